//! Connection and lifecycle probes.

use serde_json::Value;

use super::{probe, BOTH, HTTP_ONLY, LEGACY, MODERN};
use crate::note::Note;
use crate::observe::{Observations, MODERN_META_CAPABILITIES, MODERN_META_CLIENT_INFO, MODERN_META_VERSION};
use crate::probe::{Outcome, Verdict};
use crate::surface;

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[
    &Initialized,
    &ClientInfo,
    &ClientTitle,
    &VersionDowngrade,
    &DiscoverFallback,
    &DiscoverFallbackAnyError,
    &DiscoverHttpErrorFallback,
    &DiscoverTimeoutFallback,
    &UnsupportedVersionRetry,
    &FallsForward,
    &ServerIconFetched,
    &ResultTypeDefault,
    &RequestMeta,
    &DiscoverFirst,
    &InitializeNotCancelled,
    &Instructions,
    &ClientFramesValid,
    &NoBatches,
];

probe! {
    /// Evidence: a `notifications/initialized` from the client after the `initialize` answer and
    /// before its next request. Sent late is partial; never sent is no.
    Initialized {
        id: "connection.initialized", area: Connection, title: "notifications/initialized sent",
        revisions: ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"], eras: LEGACY,
        serves: "answers initialize", judge: judge_initialized,
    }
}

fn judge_initialized(o: &Observations) -> Verdict {
    let Some(first) = o.client_requests("initialize").next() else { return Verdict::new(Outcome::NotReached, "no initialize") };
    // The opening to acknowledge is the first initialize the server accepted: a refused one
    // (an error answer) opened nothing.
    let accepted = o.client_requests("initialize").find_map(|init| Some((init, o.answer_to(init).filter(|a| a.result().is_some())?)));
    let Some((init, answer)) = accepted else {
        return match o.answer_to(first) {
            Some(refused) => Verdict::new(Outcome::NotReached, "the server refused initialize: no session opened to acknowledge").evidence([first.seq, refused.seq]),
            None => Verdict::new(Outcome::NotReached, "initialize never answered"),
        };
    };
    let Some(sent) = o.client_notifications("notifications/initialized").find(|f| f.seq > answer.seq) else {
        return Verdict::new(Outcome::No, "never sent notifications/initialized").evidence([init.seq, answer.seq]).opportunity([answer.seq]);
    };
    let early = o.frames.iter().find(|f| f.seq > answer.seq && f.seq < sent.seq && f.dir == crate::journal::Direction::ClientToServer && f.is_request());
    match early {
        Some(req) => Verdict::new(Outcome::Partial, format!("sent, but after a {} request", req.method().unwrap_or("?"))).evidence([sent.seq, req.seq]).opportunity([answer.seq]),
        None => Verdict::new(Outcome::Yes, "sent right after the initialize answer").evidence([answer.seq, sent.seq]),
    }
}

probe! {
    /// Evidence: the client names itself: `clientInfo` with a non-empty `name` and `version`, in
    /// `initialize` (legacy) or in the opening request's `_meta` (modern).
    ClientInfo {
        id: "connection.client_info", area: Connection, title: "clientInfo with name and version",
        revisions: ["2024-11-05", "2026-07-28"], eras: BOTH,
        serves: "records clientInfo", judge: judge_client_info,
    }
}

/// The session's opening, or the not-reached verdict of a client that never opened one.
fn opened(o: &Observations) -> Result<crate::observe::Lifecycle, Verdict> {
    o.lifecycle().ok_or_else(|| Verdict::new(Outcome::NotReached, "the client never opened a session"))
}

/// A text field of the client's `clientInfo`, when it says something.
fn info_text(life: &crate::observe::Lifecycle, key: &str) -> Option<String> {
    life.client_info.as_ref()?.get(key)?.as_str().filter(|s| !s.trim().is_empty()).map(str::to_string)
}

fn judge_client_info(o: &Observations) -> Verdict {
    let life = match opened(o) {
        Ok(life) => life,
        Err(verdict) => return verdict,
    };
    match (info_text(&life, "name"), info_text(&life, "version")) {
        (Some(name), Some(version)) => Verdict::new(Outcome::Yes, format!("{name} {version}")).evidence([life.opener]),
        (Some(_), None) | (None, Some(_)) => Verdict::new(Outcome::Partial, "clientInfo lacks a name or version").evidence([life.opener]).opportunity([life.opener]),
        (None, None) => Verdict::new(Outcome::No, "no usable clientInfo").evidence([life.opener]).opportunity([life.opener]),
    }
}

probe! {
    /// Evidence: the client gives people a name for itself: a non-empty `clientInfo.title` (the
    /// `Implementation` of 2025-06-18 and later), in `initialize` (legacy) or in the opening
    /// request's `_meta` (modern), which a server can show where the `name` is an identifier. No
    /// when it has none; not applicable in a session of an earlier revision, whose
    /// `Implementation` has no title.
    ClientTitle {
        id: "connection.client_title", area: Connection, title: "clientInfo with a title for people",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH,
        serves: "records clientInfo", judge: judge_client_title,
    }
}

fn judge_client_title(o: &Observations) -> Verdict {
    let life = match opened(o) {
        Ok(life) => life,
        Err(verdict) => return verdict,
    };
    if let Some(version) = life.negotiated_version.as_deref().filter(|v| *v < "2025-06-18") {
        return Verdict::new(Outcome::NotApplicable, format!("a {version} session: clientInfo has no title before 2025-06-18")).evidence([life.opener]);
    }
    match info_text(&life, "title") {
        Some(title) => Verdict::new(Outcome::Yes, format!("{title:?}")).evidence([life.opener]),
        None => {
            let name = info_text(&life, "name").map(|n| format!(" (its name is {n:?})")).unwrap_or_default();
            Verdict::new(Outcome::No, format!("clientInfo has no title{name}")).evidence([life.opener]).opportunity([life.opener])
        }
    }
}

probe! {
    /// Evidence (variant version-downgrade, where every `initialize` is answered with 2025-03-26):
    /// when the server answers `initialize` with an older version than requested, the client goes on (sends `notifications/initialized` and further requests) in that version:
    /// no 2026-07-28 method such as `server/discover` afterwards, and over HTTP every later
    /// `MCP-Protocol-Version` header equals the negotiated version.
    VersionDowngrade {
        id: "connection.version_downgrade", area: Connection, title: "accepts an older version counter-offer",
        revisions: ["2024-11-05"], eras: LEGACY, variant: VersionDowngrade,
        serves: "answers initialize with 2025-03-26 (or --protocol-version)", judge: judge_downgrade,
    }
}

fn judge_downgrade(o: &Observations) -> Verdict {
    let Some(life) = o.lifecycle() else { return Verdict::new(Outcome::NotReached, "no initialize") };
    let (Some(requested), Some(negotiated)) = (life.requested_version.clone(), life.negotiated_version.clone()) else {
        return Verdict::new(Outcome::NotReached, "initialize never answered").evidence([life.opener]);
    };
    if requested <= negotiated {
        return Verdict::new(Outcome::NotReached, format!("no counter-offer: asked for {requested}, got it")).evidence([life.opener]);
    }
    let later: Vec<_> = o.frames.iter().filter(|f| f.seq > life.opener && f.dir == crate::journal::Direction::ClientToServer && f.is_request()).collect();
    if later.is_empty() {
        return Verdict::new(Outcome::No, format!("stopped after being offered {negotiated} instead of {requested}")).evidence([life.opener]).opportunity([life.opener]);
    }
    if let Some(modern) = later.iter().find(|f| f.method() == Some("server/discover") || f.meta(MODERN_META_VERSION).is_some()) {
        return Verdict::new(Outcome::No, format!("offered {negotiated}, still spoke {requested} ({})", modern.method().unwrap_or("?")))
            .evidence([life.opener, modern.seq])
            .opportunity([life.opener]);
    }
    let wrong_header = o.events.iter().filter(|e| e.kind == crate::journal::EventKind::HttpRequest && e.seq > life.opener).find(|e| {
        let h = e.detail.as_ref().and_then(|d| d.pointer("/headers/mcp-protocol-version")).and_then(Value::as_str);
        h.is_some_and(|h| h != negotiated)
    });
    if let Some(event) = wrong_header {
        return Verdict::new(Outcome::No, format!("offered {negotiated}, HTTP header still says otherwise")).evidence([life.opener, event.seq]).opportunity([life.opener]);
    }
    Verdict::new(Outcome::Yes, format!("asked for {requested}, continued in {negotiated}")).evidence([life.opener, later[0].seq])
}

probe! {
    /// Evidence: in the 2026-07-28 era every client request carries `_meta` with
    /// `protocolVersion` and `clientCapabilities` (required) and `clientInfo` (should).
    /// Required keys missing anywhere is no; only `clientInfo` missing somewhere is partial.
    RequestMeta {
        id: "connection.request_meta", area: Connection, title: "per-request _meta on every request",
        revisions: ["2026-07-28"], eras: MODERN,
        serves: "serves every request statelessly from its _meta", judge: judge_request_meta,
    }
}

fn judge_request_meta(o: &Observations) -> Verdict {
    let requests: Vec<_> = o.frames.iter().filter(|f| f.dir == crate::journal::Direction::ClientToServer && f.is_request()).collect();
    if requests.is_empty() {
        return Verdict::new(Outcome::NotReached, "no requests");
    }
    let missing = |key: &str| requests.iter().filter(|f| f.meta(key).is_none()).map(|f| f.seq).collect::<Vec<_>>();
    let (no_version, no_caps, no_info) = (missing(MODERN_META_VERSION), missing(MODERN_META_CAPABILITIES), missing(MODERN_META_CLIENT_INFO));
    if !no_version.is_empty() || !no_caps.is_empty() {
        let n = no_version.len().max(no_caps.len());
        return Verdict::new(Outcome::No, format!("{n} of {} requests lack required _meta keys", requests.len()))
            .evidence(no_version.into_iter().chain(no_caps))
            .opportunity([requests[0].seq]);
    }
    if !no_info.is_empty() {
        return Verdict::new(Outcome::Partial, format!("{} of {} requests lack clientInfo", no_info.len(), requests.len())).evidence(no_info).opportunity([requests[0].seq]);
    }
    Verdict::new(Outcome::Yes, format!("all {} requests carry version, capabilities and clientInfo", requests.len())).evidence([requests[0].seq])
}

probe! {
    /// Evidence (model journal): the canary in the server's `instructions` appears in the model's
    /// context (system prompt or messages). Only inside a tool description is partial.
    Instructions {
        id: "connection.instructions", area: Connection, title: "server instructions reach the model",
        revisions: ["2025-03-26", "2026-07-28"], eras: BOTH,
        serves: "instructions carrying a canary string", judge: judge_instructions, needs_model: true,
    }
}

fn judge_instructions(o: &Observations) -> Verdict {
    // Instructions come in the answer that opens a session: without one there were none to pass on.
    // (The check's lines are the server's; this verdict's lines are the model's.)
    if let Err(not_reached) = super::opportunity::session(o) {
        return Verdict::new(Outcome::NotReached, not_reached.detail);
    }
    let places = |v| crate::observe::mention_places(v, surface::INSTRUCTIONS_CANARY);
    if let Some((seq, _)) = o.model_views().find(|(_, v)| places(v).iter().any(|p| p == "context")) {
        return Verdict::new(Outcome::Yes, "the canary is in the model's context").evidence([seq]);
    }
    match o.model_views().find(|(_, v)| !places(v).is_empty()) {
        Some((seq, _)) => Verdict::new(Outcome::Partial, "the canary is only in a tool description").evidence([seq]).opportunity([seq]),
        // Opportunity: the host asked its model something (the first request's view).
        None => Verdict::new(Outcome::No, "the canary never reached the model").opportunity(o.model_views().next().map(|(seq, _)| seq)),
    }
}

probe! {
    /// Evidence (variant discover-refused: a legacy-only server that answers `server/discover`
    /// with -32601, as servers older than 2026-07-28 do): a client that opens with
    /// `server/discover` sends `initialize` after the refusal (2026-07-28 §Transports, backward
    /// compatibility: any error means the server is legacy). No `initialize` afterwards is no; a
    /// client that opens with `initialize` never meets the refusal (n/a).
    DiscoverFallback {
        id: "connection.discover_fallback", area: Connection, title: "falls back to initialize when server/discover is refused",
        revisions: ["2026-07-28"], eras: BOTH, variant: DiscoverRefused,
        serves: "refuses server/discover with -32601, serves initialize", judge: |o| judge_fallback(o, "refusal (-32601)"),
    }
}

probe! {
    /// Evidence (variant discover-invalid: `server/discover` refused with -32602): as
    /// `connection.discover_fallback`, for an error other than method-not-found. The fallback
    /// "MUST NOT be keyed to one specific error code" (2026-07-28 §Transports, stdio backward
    /// compatibility).
    DiscoverFallbackAnyError {
        id: "connection.discover_fallback_any_error", area: Connection, title: "falls back on any server/discover error, not only -32601",
        revisions: ["2026-07-28"], eras: BOTH, variant: DiscoverInvalid,
        serves: "refuses server/discover with -32602, serves initialize", judge: |o| judge_fallback(o, "refusal (-32602)"),
    }
}

probe! {
    /// Evidence (variant discover-http-error, HTTP only: `server/discover` answered with HTTP 400
    /// and a plain-text body, no JSON-RPC in it): as `connection.discover_fallback`, for an answer
    /// that is not a JSON-RPC error at all: a 400, 404 or 405 whose body is no 2026-07-28 error
    /// means a legacy server (2026-07-28 Streamable HTTP, backward compatibility), as a server
    /// behind a router may answer a method it does not route.
    DiscoverHttpErrorFallback {
        id: "connection.discover_http_error_fallback", area: Connection, title: "falls back to initialize when server/discover gets an HTTP 400",
        revisions: ["2026-07-28"], eras: BOTH, transports: HTTP_ONLY, variant: DiscoverHttpError,
        serves: "answers server/discover with HTTP 400 text/plain, serves initialize", judge: |o| judge_fallback(o, "HTTP 400 answer"),
    }
}

probe! {
    /// Evidence (variant discover-unanswered: `server/discover` is never answered): a client that
    /// opens with it sends `initialize` after a timeout of its own (a timeout means the server is
    /// legacy, 2026-07-28 §Transports); the detail says how long it waited. Still waiting when the
    /// harness stopped it at the run's bound is not reached; ending its run without `initialize`
    /// is no.
    DiscoverTimeoutFallback {
        id: "connection.discover_timeout_fallback", area: Connection, title: "falls back to initialize when server/discover goes unanswered",
        revisions: ["2026-07-28"], eras: BOTH, variant: DiscoverUnanswered,
        serves: "never answers server/discover, serves initialize", judge: |o| judge_fallback(o, "unanswered server/discover"),
    }
}

/// The client's first `server/discover`, or the verdict of a run without one: n/a for a client
/// that opens with `initialize`, not reached for one that opened nothing.
fn discover_opener(o: &Observations) -> Result<&crate::observe::Frame, Verdict> {
    o.client_requests("server/discover").next().ok_or_else(|| match o.lifecycle() {
        Some(life) => Verdict::new(Outcome::NotApplicable, "opens with initialize: it never asks server/discover").evidence([life.opener]),
        None => Verdict::new(Outcome::NotReached, "the client never opened a session"),
    })
}

/// How a client that opened with `server/discover` went on once the server refused it (the
/// refusal named by `what`) or left it unanswered.
fn judge_fallback(o: &Observations, what: &str) -> Verdict {
    let discover = match discover_opener(o) {
        Ok(discover) => discover,
        Err(verdict) => return verdict,
    };
    let fallback = o.client_requests("initialize").find(|f| f.seq > discover.seq);
    // Over HTTP every POST has its own answer: the initialize may reuse the discover's id, and
    // its answer is no answer to the discover.
    let answer = o.answer_to(discover).filter(|a| fallback.is_none_or(|init| a.seq < init.seq));
    if answer.is_some_and(|r| r.result().is_some()) {
        return Verdict::new(Outcome::Inconclusive, "the server answered server/discover with a result").evidence([discover.seq]);
    }
    // An HTTP error with no JSON-RPC in it is no frame: the tap's note marks when it went out.
    let http_refusal = || o.payloads::<crate::note::RefusedDiscover>().find(|(e, refused)| e.seq > discover.seq && refused.http_status.is_some()).map(|(e, _)| (e.seq, e.t_us));
    let refusal = answer.map(|a| (a.seq, a.t_us)).or_else(http_refusal);
    // The wait is measured from the refusal, or from the discover that was never answered.
    let (from_seq, from_us) = refusal.unwrap_or((discover.seq, discover.t_us));
    let cited = |last: u64| [discover.seq].into_iter().chain(refusal.map(|r| r.0)).chain([last]);
    if let Some(init) = fallback {
        let detail = match refusal {
            Some(_) => format!("sent initialize after the {what}"),
            None => format!("sent initialize after waiting {} for an answer to server/discover", crate::long_calls::seconds(init.t_us.saturating_sub(from_us))),
        };
        return Verdict::new(Outcome::Yes, detail).evidence(cited(init.seq));
    }
    let asked = o.client_requests("server/discover").count();
    let again = if asked > 1 { format!("; asked server/discover {asked} times") } else { String::new() };
    if let Some(end) = o.stopped_at_bound() {
        return Verdict::new(
            Outcome::NotReached,
            format!("no initialize yet when the run was stopped {} after the {what}{again}", crate::long_calls::seconds(end.saturating_sub(from_us))),
        )
        .evidence([discover.seq]);
    }
    Verdict::new(Outcome::No, format!("never sent initialize after the {what}{again}")).evidence([discover.seq].into_iter().chain(refusal.map(|r| r.0))).opportunity([from_seq])
}

probe! {
    /// Evidence (variant discover-unsupported-version: `server/discover` refused with -32022 and
    /// `data.supported` listing only legacy versions): the client's next opening uses a listed
    /// version: `initialize` with one of them, or another `server/discover` with one in its
    /// `_meta` (2026-07-28 §Versioning: -32022 names the server's versions; retry with one). An
    /// unlisted version is no, and so is giving up; a client that opens with `initialize` never
    /// meets the refusal (n/a).
    UnsupportedVersionRetry {
        id: "connection.unsupported_version_retry", area: Connection, title: "retries with a listed version after -32022",
        revisions: ["2026-07-28"], eras: BOTH, variant: DiscoverUnsupportedVersion,
        serves: "refuses server/discover with -32022 listing the legacy versions, serves initialize", judge: judge_unsupported_retry,
    }
}

fn judge_unsupported_retry(o: &Observations) -> Verdict {
    let discover = match discover_opener(o) {
        Ok(discover) => discover,
        Err(verdict) => return verdict,
    };
    let Some(refusal) = o.answer_to(discover).filter(|a| a.error().and_then(|e| e.get("code")).and_then(Value::as_i64) == Some(-32022)) else {
        return Verdict::new(Outcome::Inconclusive, "server/discover was not refused with -32022").evidence([discover.seq]);
    };
    let listed: Vec<&str> = refusal.error().and_then(|e| e.pointer("/data/supported")).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let list = listed.join(", ");
    let next = o
        .frames
        .iter()
        .find(|f| f.seq > refusal.seq && f.dir == crate::journal::Direction::ClientToServer && (f.method() == Some("initialize") || f.method() == Some("server/discover")));
    let Some(next) = next else {
        if o.stopped_at_bound().is_some() {
            return Verdict::new(Outcome::NotReached, "no second opening before the run was stopped").evidence([discover.seq, refusal.seq]);
        }
        return Verdict::new(Outcome::No, format!("gave up after -32022 (listed: {list})")).evidence([discover.seq, refusal.seq]).opportunity([refusal.seq]);
    };
    let version = match next.method() {
        Some("initialize") => next.params().get("protocolVersion").and_then(Value::as_str),
        _ => next.meta(MODERN_META_VERSION).and_then(Value::as_str),
    }
    .unwrap_or("none");
    let how = next.method().unwrap_or("?");
    if listed.contains(&version) {
        Verdict::new(Outcome::Yes, format!("{how} with {version}, a listed version")).evidence([discover.seq, refusal.seq, next.seq])
    } else {
        Verdict::new(Outcome::No, format!("{how} with {version}, not among the listed {list}")).evidence([discover.seq, refusal.seq, next.seq]).opportunity([refusal.seq])
    }
}

probe! {
    /// Evidence (variant modern-only: a server that speaks only 2026-07-28 refuses `initialize`
    /// with -32022, `data.supported` naming 2026-07-28): a client that opened with `initialize`
    /// asks `server/discover` after the refusal, on that connection or a new one (2026-07-28
    /// §Versioning: -32022 names the versions the server speaks). Only `initialize` again, or
    /// nothing, is no, also when the run went on to its bound; a client that opens with
    /// `server/discover` never meets the refusal (n/a).
    FallsForward {
        id: "connection.falls_forward", area: Connection, title: "falls forward to server/discover when a 2026-07-28-only server refuses initialize",
        revisions: ["2026-07-28"], eras: BOTH, variant: ModernOnly,
        serves: "speaks only 2026-07-28: refuses initialize with -32022, serves server/discover", judge: judge_falls_forward,
    }
}

fn judge_falls_forward(o: &Observations) -> Verdict {
    let Some(init) = o.client_requests("initialize").next() else {
        return match o.lifecycle() {
            Some(life) => Verdict::new(Outcome::NotApplicable, "opens with server/discover: no initialize to refuse").evidence([life.opener]),
            None => Verdict::new(Outcome::NotReached, "the client never opened a session"),
        };
    };
    let asked = init.params().get("protocolVersion").and_then(Value::as_str).unwrap_or("no version");
    let Some(refusal) = o.answer_to(init).filter(|a| a.error().is_some()) else {
        return Verdict::new(Outcome::Inconclusive, "initialize was not refused").evidence([init.seq]);
    };
    if let Some(discover) = o.client_requests_after("server/discover", refusal.seq).next() {
        return Verdict::new(Outcome::Yes, format!("asked initialize ({asked}), refused; then server/discover")).evidence([init.seq, refusal.seq, discover.seq]);
    }
    let tries = o.client_requests("initialize").count();
    let again = if tries > 1 { format!(" ({tries} initialize requests, each refused)") } else { String::new() };
    let ended = match o.stopped_at_bound() {
        Some(end) => format!("; the run went on {} after the refusal until it was stopped", crate::long_calls::seconds(end.saturating_sub(refusal.t_us))),
        None => String::new(),
    };
    Verdict::new(Outcome::No, format!("asked initialize ({asked}), refused; never asked server/discover{again}{ended}"))
        .evidence([init.seq, refusal.seq])
        .opportunity([refusal.seq])
}

probe! {
    /// Evidence: the answer that opens the session (`initialize`, or `server/discover` with the
    /// server's info in its `_meta`) names an icon in `serverInfo.icons` (2025-11-25), served on
    /// the fetch trap; a host that shows the server fetches it (yes). Never fetched is no; a
    /// session of an older revision is n/a.
    ServerIconFetched {
        id: "connection.server_icon_fetched", area: Connection, title: "the server's icon fetched",
        revisions: ["2025-11-25", "2026-07-28"], eras: BOTH,
        serves: "serverInfo.icons names a PNG on the fetch trap",
        judge: |o| super::icon_fetched(o, "the server's", crate::fetch_trap::SERVER_ICON_PATH, |result| {
            // 2026-07-28 carries serverInfo in the result's _meta.
            let modern = result.get("_meta").and_then(|m| m.get("io.modelcontextprotocol/serverInfo"));
            result.get("serverInfo").or(modern).is_some_and(|info| info.get("icons").is_some())
        }),
    }
}

probe! {
    /// Evidence (variant no-result-type: every complete result is sent without `resultType`): a
    /// client that speaks 2026-07-28 takes such a result as complete ("clients MUST treat an absent
    /// `resultType` as `complete`", 2026-07-28 schema, `Result`): after the first one (usually the
    /// `server/discover` answer) it goes on with further 2026-07-28 requests. Falling back to
    /// `initialize` after it, or sending nothing more, is no. A client that opens with
    /// `initialize` meets no `resultType` in any result (n/a).
    ResultTypeDefault {
        id: "connection.result_type_default", area: Connection, title: "a result without resultType is taken as complete",
        revisions: ["2026-07-28"], eras: BOTH, variant: NoResultType,
        serves: "leaves resultType out of every complete result", judge: judge_result_type_default,
    }
}

fn judge_result_type_default(o: &Observations) -> Verdict {
    let is_modern = |f: &&crate::observe::Frame| f.dir == crate::journal::Direction::ClientToServer && f.is_request() && f.meta(MODERN_META_VERSION).is_some();
    let modern: Vec<_> = o.frames.iter().filter(is_modern).collect();
    if modern.is_empty() {
        return match o.lifecycle() {
            Some(life) => Verdict::new(Outcome::NotApplicable, "opens with initialize: its results never carry resultType").evidence([life.opener]),
            None => Verdict::new(Outcome::NotReached, "the client never opened a session"),
        };
    }
    // The first result the server gave a 2026-07-28 request.
    let Some((request, result)) = modern.iter().find_map(|r| o.answer_to(r).filter(|a| a.result().is_some()).map(|a| (*r, a))) else {
        return Verdict::new(Outcome::NotReached, "no 2026-07-28 request got a result").evidence([modern[0].seq]);
    };
    let method = request.method().unwrap_or("?");
    if result.result().and_then(|r| r.get("resultType")).is_some() {
        return Verdict::new(Outcome::Inconclusive, format!("the {method} result carried resultType")).evidence([result.seq]);
    }
    let later: Vec<_> = o.frames.iter().filter(|f| f.seq > result.seq && f.dir == crate::journal::Direction::ClientToServer && f.is_request()).collect();
    if let Some(init) = later.iter().find(|f| f.method() == Some("initialize")) {
        return Verdict::new(Outcome::No, format!("took the {method} result without resultType for a failure: fell back to initialize"))
            .evidence([request.seq, result.seq, init.seq])
            .opportunity([result.seq]);
    }
    match later.iter().copied().find(is_modern) {
        Some(next) => Verdict::new(Outcome::Yes, format!("went on after the {method} result without resultType ({} more requests)", later.len())).evidence([
            request.seq,
            result.seq,
            next.seq,
        ]),
        None if o.stopped_at_bound().is_some() => {
            Verdict::new(Outcome::NotReached, format!("sent nothing more after the {method} result before the run was stopped")).evidence([result.seq])
        }
        None => Verdict::new(Outcome::No, format!("sent nothing more after the {method} result without resultType")).evidence([request.seq, result.seq]).opportunity([result.seq]),
    }
}

probe! {
    /// Evidence: the runner's `wire_checked` note, written when the run was given the official
    /// schemas (`--schemas`): every frame the client sent whose type the negotiated revision
    /// defines (requests and notifications by method, results by their request's method, error
    /// responses) validates against that revision's schema (yes). Any frame that breaks its type
    /// is no; the detail names the first and what broke. Without the schemas, or with none for
    /// the negotiated revision, nothing was checked: not reached. Frames of types the revision
    /// does not define (an extension's methods) are not checked.
    ClientFramesValid {
        id: "wire.client_frames_valid", area: Connection, title: "every frame the client sent fits the schema",
        revisions: ["2024-11-05"], eras: BOTH, serves: "the whole session", judge: judge_client_frames, needs_schemas: true,
    }
}

fn judge_client_frames(o: &Observations) -> Verdict {
    let Some(note) = o.notes(crate::note::Note::WireChecked).next() else {
        return Verdict::new(Outcome::NotReached, "the run was not given the official schemas to check the client's frames against (--schemas)");
    };
    let Some(Ok(check)) = <crate::wire_schema::WireCheck as crate::note::Payload>::of(note) else {
        return Verdict::new(Outcome::NotReached, "the wire_checked note cannot be read");
    };
    let Some(revision) = check.revision.as_deref() else { return Verdict::new(Outcome::NotReached, "the session never negotiated a revision") };
    if !check.schema_found {
        return Verdict::new(Outcome::NotReached, format!("no official schema of {revision} was given"));
    }
    let Some(first) = check.first_checked else {
        return Verdict::new(Outcome::NotReached, format!("the client sent no frame of a type the {revision} schema defines"));
    };
    match check.invalid.first() {
        None => Verdict::new(Outcome::Yes, format!("all {} client frames of a type the {revision} schema defines fit it", check.checked)).evidence([first, note.seq]),
        Some(bad) => {
            let seqs = check.invalid.iter().map(|f| f.seq);
            Verdict::new(
                Outcome::No,
                format!("{} of {} client frames break the {revision} schema; the first, a {}: {}", check.invalid_count, check.checked, bad.definition, bad.errors),
            )
            .evidence(seqs)
            .opportunity([first])
        }
    }
}

probe! {
    /// Evidence: the first `server/discover` of each connection is its first request
    /// (a server process started, over stdio, or a launch of the client, over HTTP): a client
    /// that probes the server's era does so before anything else (2026-07-28, lifecycle: a client
    /// SHOULD send it first). One after another request of its connection is no. A client that
    /// never asks it is not applicable: discovery is optional. Judged in 2026-07-28 sessions (one
    /// that fell back to `initialize` after its discover is judged by the fallback probes).
    DiscoverFirst {
        id: "connection.discover_first", area: Connection, title: "server/discover comes before any other request",
        revisions: ["2026-07-28"], eras: MODERN, serves: "server/discover answered with the versions served",
        judge: judge_discover_first,
    }
}

fn judge_discover_first(o: &Observations) -> Verdict {
    let discovers: Vec<u64> = o.client_requests("server/discover").map(|f| f.seq).collect();
    let Some(first) = discovers.first() else { return Verdict::new(Outcome::NotApplicable, "never asked server/discover (a client may go without it)") };
    // A connection starts where a server process starts or a launch of the client ends.
    let starts: Vec<u64> = o.notes(Note::Serving).chain(o.notes(Note::ClientExited)).map(|e| e.seq).collect();
    let start_of = |seq: u64| starts.iter().copied().filter(|s| *s < seq).max().unwrap_or(0);
    // The first discover of each connection counts: asking again later (to refresh what it
    // learned) is no fault.
    let mut firsts: Vec<u64> = discovers.clone();
    firsts.dedup_by_key(|seq| start_of(*seq));
    for discover in &firsts {
        let from = start_of(*discover);
        let before = o.frames.iter().find(|f| f.dir == crate::journal::Direction::ClientToServer && f.is_request() && f.seq > from && f.seq < *discover);
        if let Some(before) = before {
            return Verdict::new(Outcome::No, format!("asked server/discover after {} in the same connection", before.method().unwrap_or("another request")))
                .evidence([before.seq, *discover])
                .opportunity([*discover]);
        }
    }
    Verdict::new(Outcome::Yes, format!("asked server/discover first ({} time(s))", discovers.len())).evidence([*first])
}

probe! {
    /// Evidence: no `notifications/cancelled` from the client names the id of its `initialize`
    /// (2024-11-05 onwards, cancellation: the initialize request MUST NOT be cancelled): yes. One
    /// that does is a violation.
    InitializeNotCancelled {
        id: "connection.initialize_not_cancelled", area: Connection, title: "initialize is never cancelled",
        revisions: ["2024-11-05"], eras: LEGACY, serves: "initialize answered at once",
        judge: judge_initialize_not_cancelled,
    }
}

fn judge_initialize_not_cancelled(o: &Observations) -> Verdict {
    let inits: Vec<&crate::observe::Frame> = o.client_requests("initialize").collect();
    let Some(first) = inits.first() else { return Verdict::new(Outcome::NotReached, "never sent initialize") };
    // The request a cancellation names is the last one sent before it with that id (over HTTP an
    // initialize travels before its session has an id, so sessions cannot tell them apart).
    let cancelled = o.client_notifications("notifications/cancelled").find(|c| {
        let named = c.params().get("requestId");
        let last = o.frames.iter().rfind(|f| f.seq < c.seq && f.dir == c.dir && f.is_request() && f.id() == named);
        last.is_some_and(|f| f.method() == Some("initialize"))
    });
    match cancelled {
        Some(c) => Verdict::new(Outcome::Violation, "cancelled its own initialize, which a client must never do").evidence([first.seq, c.seq]).opportunity([first.seq]),
        None => Verdict::new(Outcome::Yes, "cancelled no initialize").evidence([first.seq]),
    }
}

probe! {
    /// Evidence: every message the client sent, frames that are no JSON-RPC object included. A
    /// JSON array (a batch) in a session that negotiated anything but 2025-03-26 is no: batches
    /// existed in that revision alone (2025-06-18 removed them, and a server may refuse them, as
    /// this one does with -32600). None is yes; in a 2025-03-26 session batches are allowed, so
    /// the probe is not applicable there.
    NoBatches {
        id: "wire.no_batches", area: Connection, title: "no JSON-RPC batch outside 2025-03-26",
        revisions: ["2025-06-18"], eras: BOTH, serves: "batches refused (-32600)",
        judge: judge_no_batches,
    }
}

fn judge_no_batches(o: &Observations) -> Verdict {
    const BATCHES_ALLOWED: &str = "2025-03-26";
    let lifecycle = o.lifecycle();
    let negotiated = lifecycle.as_ref().and_then(|l| l.negotiated_version.as_deref());
    if negotiated == Some(BATCHES_ALLOWED) {
        return Verdict::new(Outcome::NotApplicable, format!("the session negotiated {BATCHES_ALLOWED}, where batches are allowed"));
    }
    let batch = o.events.iter().find(|e| {
        e.dir == crate::journal::Direction::ClientToServer && e.kind == crate::journal::EventKind::NotJsonRpc && e.raw.as_deref().is_some_and(|r| r.trim_start().starts_with('['))
    });
    match (batch, &lifecycle) {
        (Some(batch), _) => Verdict::new(Outcome::No, format!("sent a JSON-RPC batch in a session of {}", negotiated.unwrap_or("an unknown revision")))
            .evidence([batch.seq])
            .opportunity([batch.seq]),
        (None, Some(lifecycle)) => Verdict::new(Outcome::Yes, "sent no batch").evidence([lifecycle.opener]),
        (None, None) => Verdict::new(Outcome::NotReached, "never opened a session"),
    }
}
