//! Streamable HTTP behaviour, judged from the HTTP tap's request events: the `Accept` of each
//! POST, the `MCP-Protocol-Version` header, the standalone GET stream, and DELETE at the end.

use serde_json::Value;

use super::{probe, BOTH, HTTP_ONLY, LEGACY, MODERN};
use crate::journal::Event;
use crate::note::{self, Note, Payload};
use crate::observe::{Frame, Observations};
use crate::probe::{Outcome, Verdict};

/// The value of request or response header `name` the HTTP tap journalled with `event`.
pub(super) fn header<'a>(event: &'a Event, name: &str) -> Option<&'a str> {
    event.detail.as_ref()?.get("headers")?.get(name)?.as_str()
}

/// The HTTP method of a request event.
pub(super) fn method(event: &Event) -> &str {
    event.detail.as_ref().and_then(|d| d.get("method")).and_then(Value::as_str).unwrap_or("")
}

/// The session the server minted in its initialize answer, and the journal line of that answer.
fn session(o: &Observations) -> Option<(String, u64)> {
    o.events.iter().find_map(|e| {
        let minted = e.kind == crate::journal::EventKind::HttpResponse && header(e, "mcp-session-id").is_some();
        minted.then(|| (header(e, "mcp-session-id").unwrap_or_default().to_string(), e.seq))
    })
}

/// The media types an `Accept` value lists, lowercased, without their parameters.
fn accepted(accept: &str) -> Vec<String> {
    accept.split(',').filter_map(|range| range.split(';').next()).map(|m| m.trim().to_ascii_lowercase()).filter(|m| !m.is_empty()).collect()
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[
    &PostAccept,
    &ProtocolVersionHeader,
    &GetStream,
    &DeleteOnExit,
    &SessionIdEchoed,
    &StandardHeaders,
    &VersionHeaderMatchesMeta,
    &SessionExpiry,
    &Resumption,
    &PrimingEvents,
    &JsonResponses,
    &OriginLoopback,
    &NotificationAccepted,
];

probe! {
    /// Evidence: every POST the HTTP tap saw lists both `application/json` and
    /// `text/event-stream` in its `Accept` header, as the Streamable HTTP transport requires of
    /// clients ("Sending Messages to the Server", from 2025-03-26) (yes). Any POST without one of
    /// them is no (a wildcard such as `*/*` does not list them); its detail names the first.
    PostAccept {
        id: "http.post_accept", area: Http, title: "every POST accepts both JSON and an event stream",
        revisions: ["2025-03-26", "2026-07-28"], eras: BOTH, transports: HTTP_ONLY,
        serves: "Streamable HTTP; rmcp answers 406 to a POST that does not accept both", judge: judge_post_accept,
    }
}

fn judge_post_accept(o: &Observations) -> Verdict {
    let posts: Vec<&Event> = o.http_requests().filter(|e| method(e) == "POST").collect();
    let Some(first) = posts.first() else { return Verdict::new(Outcome::NotReached, "no POST was sent") };
    let lacking = |e: &&Event| {
        let types = accepted(header(e, "accept").unwrap_or_default());
        !(types.iter().any(|t| t == "application/json") && types.iter().any(|t| t == "text/event-stream"))
    };
    let wrong: Vec<&Event> = posts.iter().copied().filter(lacking).collect();
    match wrong.first() {
        None => Verdict::new(Outcome::Yes, format!("all {} POSTs accept application/json and text/event-stream", posts.len())).evidence([first.seq]),
        Some(bad) => {
            let said = header(bad, "accept").map_or("no Accept".to_string(), |a| format!("Accept: {a}"));
            Verdict::new(Outcome::No, format!("{} of {} POSTs do not accept both (the first said {said})", wrong.len(), posts.len())).evidence([bad.seq]).opportunity([bad.seq])
        }
    }
}

probe! {
    /// Evidence: every HTTP request inside the session (after the initialize answer, carrying the
    /// session id) has `MCP-Protocol-Version` equal to the negotiated version (required from
    /// 2025-06-18 on). Some without it is partial.
    ProtocolVersionHeader {
        id: "http.protocol_version_header", area: Http, title: "MCP-Protocol-Version on every request",
        revisions: ["2025-06-18"], eras: LEGACY, transports: HTTP_ONLY,
        serves: "Streamable HTTP with sessions", judge: judge_protocol_header,
    }
}

fn judge_protocol_header(o: &Observations) -> Verdict {
    let Some(negotiated) = o.lifecycle().and_then(|l| l.negotiated_version) else { return Verdict::new(Outcome::NotReached, "initialize never answered") };
    if let Some(not_required) = version_header_not_required(&negotiated) {
        return not_required;
    }
    let Some((_, answered)) = session(o) else { return Verdict::new(Outcome::NotReached, "no session was minted") };
    // Requests inside a session (a client that opens several sessions sends each initialize bare).
    let later: Vec<&Event> = o.http_requests().filter(|e| e.seq > answered && header(e, "mcp-session-id").is_some()).collect();
    version_header_said(&later, &negotiated, answered)
}

/// N/a where the negotiated version predates the `MCP-Protocol-Version` header (2025-06-18).
pub(super) fn version_header_not_required(negotiated: &str) -> Option<Verdict> {
    (negotiated < "2025-06-18").then(|| Verdict::new(Outcome::NotApplicable, format!("not required in {negotiated}")))
}

/// Whether each of `later` (the requests after the opening answer at line `answered`) carries
/// `MCP-Protocol-Version: negotiated`: all yes, none no, some partial.
pub(super) fn version_header_said(later: &[&Event], negotiated: &str, answered: u64) -> Verdict {
    if later.is_empty() {
        return Verdict::new(Outcome::NotReached, "no request after initialize");
    }
    let wrong: Vec<&Event> = later.iter().copied().filter(|e| header(e, "mcp-protocol-version") != Some(negotiated)).collect();
    match wrong.len() {
        0 => Verdict::new(Outcome::Yes, format!("all {} requests say {negotiated}", later.len())).evidence([later[0].seq]),
        n if n == later.len() => Verdict::new(Outcome::No, format!("none of {} requests says {negotiated}", later.len())).evidence([wrong[0].seq]).opportunity([answered]),
        n => Verdict::new(Outcome::Partial, format!("{n} of {} requests lack {negotiated} ({} first)", later.len(), method(wrong[0])))
            .evidence([wrong[0].seq])
            .opportunity([answered]),
    }
}

probe! {
    /// Evidence: a GET with `Accept: text/event-stream` and the session id, answered 200: the
    /// standalone stream on which a server can reach the client outside a request. Only GETs
    /// after the session was minted count (a reachability GET before `initialize` is legal and
    /// says nothing); partial when every such GET lacks the Accept or the session id.
    /// Opportunity: the answer that minted the session.
    GetStream {
        id: "http.get_stream", area: Http, title: "standalone GET stream opened",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY,
        serves: "GET on the MCP endpoint with a session", judge: judge_get_stream,
    }
}

fn judge_get_stream(o: &Observations) -> Verdict {
    let Some((id, minted)) = session(o) else { return Verdict::new(Outcome::NotReached, "no session was minted") };
    let gets: Vec<&Event> = o.http_requests().filter(|e| method(e) == "GET" && e.seq > minted).collect();
    let streams = |get: &Event| header(get, "accept").is_some_and(|a| a.contains("text/event-stream"));
    let in_session = |get: &Event| header(get, "mcp-session-id") == Some(id.as_str());
    if let Some(get) = gets.iter().find(|g| streams(g) && in_session(g)) {
        return Verdict::new(Outcome::Yes, format!("{} GET stream(s) opened", gets.iter().filter(|g| streams(g) && in_session(g)).count())).evidence([get.seq]);
    }
    let Some(get) = gets.first() else { return Verdict::new(Outcome::No, "never opened a GET stream").opportunity([minted]) };
    let verdict = if streams(get) { Verdict::new(Outcome::Partial, "GET without the session id") } else { Verdict::new(Outcome::Partial, "GET without Accept: text/event-stream") };
    verdict.evidence([get.seq]).opportunity([minted])
}

probe! {
    /// Evidence: a DELETE carrying the session id, after the client's last request.
    DeleteOnExit {
        id: "http.delete_on_exit", area: Http, title: "DELETE ends the session",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY,
        serves: "DELETE on the MCP endpoint", judge: judge_delete,
    }
}

fn judge_delete(o: &Observations) -> Verdict {
    let Some((id, minted)) = session(o) else { return Verdict::new(Outcome::NotReached, "no session was minted") };
    let deletes: Vec<&Event> = o.http_requests().filter(|e| method(e) == "DELETE").collect();
    match deletes.iter().find(|e| header(e, "mcp-session-id") == Some(id.as_str())) {
        Some(delete) => Verdict::new(Outcome::Yes, "sent DELETE with its session id").evidence([delete.seq]),
        None if !deletes.is_empty() => Verdict::new(Outcome::Partial, "sent DELETE without its session id").evidence([deletes[0].seq]).opportunity([minted]),
        // A client the harness stopped at the run's bound never got to exit by itself.
        None if o.stopped_at_bound().is_some() => Verdict::new(Outcome::NotReached, "the harness stopped the client at the run's bound: it never exited by itself"),
        None => Verdict::new(Outcome::No, "never sent DELETE").opportunity([minted]),
    }
}

/// Every session id the server minted.
fn minted(o: &Observations) -> Vec<&str> {
    o.events.iter().filter(|e| e.kind == crate::journal::EventKind::HttpResponse).filter_map(|e| header(e, "mcp-session-id")).collect()
}

probe! {
    /// Evidence: after the server minted `Mcp-Session-Id`, every POST (other than a new
    /// `initialize`), GET and DELETE carries a session id the server minted. Some without it is
    /// partial; none, no.
    SessionIdEchoed {
        id: "http.session_id_echoed", area: Http, title: "Mcp-Session-Id on every request",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY,
        serves: "Streamable HTTP with sessions", judge: judge_session_echoed,
    }
}

fn judge_session_echoed(o: &Observations) -> Verdict {
    let Some((_, answered)) = session(o) else { return Verdict::new(Outcome::NotReached, "no session was minted") };
    let sessions = minted(o);
    let carries = |h: Option<&Value>| h.and_then(|h| h.get("mcp-session-id")).and_then(Value::as_str).is_some_and(|id| sessions.contains(&id));
    // (journal line, what, carries the session id)
    let mut checked: Vec<(u64, String, bool)> = o
        .frames
        .iter()
        .filter(|f| f.seq > answered && f.dir == crate::journal::Direction::ClientToServer && f.method() != Some("initialize"))
        .map(|f| (f.seq, f.method().unwrap_or("a response").to_string(), carries(o.http_headers(f))))
        .collect();
    checked.extend(
        o.http_requests()
            .filter(|e| e.seq > answered && matches!(method(e), "GET" | "DELETE"))
            .map(|e| (e.seq, method(e).to_string(), header(e, "mcp-session-id").is_some_and(|id| sessions.contains(&id)))),
    );
    checked.sort();
    if checked.is_empty() {
        return Verdict::new(Outcome::NotReached, "no request after initialize");
    }
    let missing: Vec<&(u64, String, bool)> = checked.iter().filter(|c| !c.2).collect();
    match missing.first() {
        None => Verdict::new(Outcome::Yes, format!("all {} requests carry their session id", checked.len())).evidence([checked[0].0]),
        Some(_) if missing.len() == checked.len() => Verdict::new(Outcome::No, "no request carries the session id").evidence([missing[0].0]).opportunity([answered]),
        Some(first) => Verdict::new(Outcome::Partial, format!("{} of {} requests lack the session id ({} first)", missing.len(), checked.len(), first.1))
            .evidence([first.0])
            .opportunity([answered]),
    }
}

/// A header value, decoded when it uses the `=?base64?…?=` sentinel for non-ASCII values.
pub(super) fn decoded(value: &str) -> Option<String> {
    use base64::Engine;
    match value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?=")) {
        Some(encoded) => String::from_utf8(base64::engine::general_purpose::STANDARD.decode(encoded).ok()?).ok(),
        None => Some(value.to_string()),
    }
}

/// The value of header `name` (lowercase) on the POST that carried `frame` (HTTP only).
pub(super) fn http_header<'a>(o: &'a Observations, frame: &crate::observe::Frame, name: &str) -> Option<&'a str> {
    o.http_headers(frame)?.get(name)?.as_str()
}

/// What a 2026-07-28 request's standard headers should say: `Mcp-Method`, and `Mcp-Name` for
/// the methods that name something.
fn expected_name(frame: &crate::observe::Frame) -> Option<&str> {
    let key = match frame.method()? {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    frame.params().get(key).and_then(Value::as_str)
}

probe! {
    /// Evidence (2026-07-28): every POSTed request carries `Mcp-Method` equal to its body's
    /// method (a notification's POST is not judged: the revision leaves its headers undefined), and `tools/call`, `prompts/get` and `resources/read` carry `Mcp-Name`
    /// equal to the tool or prompt name or the URI (Base64 sentinel decoded).
    StandardHeaders {
        id: "http.standard_headers", area: Http, title: "Mcp-Method and Mcp-Name mirror the body",
        revisions: ["2026-07-28"], eras: MODERN, transports: HTTP_ONLY,
        serves: "Streamable HTTP; rmcp answers 400 to requests whose headers disagree", judge: judge_standard_headers,
    }
}

fn judge_standard_headers(o: &Observations) -> Verdict {
    // Requests only: 2026-07-28 (Transports, Streamable HTTP) defines the headers for requests and
    // leaves those of a notification's POST undefined.
    let posted: Vec<&crate::observe::Frame> = o.frames.iter().filter(|f| f.dir == crate::journal::Direction::ClientToServer && f.is_request()).collect();
    if posted.is_empty() {
        return Verdict::new(Outcome::NotReached, "no request was posted");
    }
    let wrong: Vec<(&crate::observe::Frame, &str)> = posted
        .iter()
        .filter_map(|f| {
            let get = |name: &str| http_header(o, f, name);
            if get("mcp-method") != f.method() {
                return Some((*f, "Mcp-Method"));
            }
            let name = expected_name(f)?;
            (get("mcp-name").and_then(decoded).as_deref() != Some(name)).then_some((*f, "Mcp-Name"))
        })
        .collect();
    match wrong.first() {
        None => Verdict::new(Outcome::Yes, format!("all {} posted requests carry matching headers", posted.len())).evidence([posted[0].seq]),
        Some(_) if wrong.len() == posted.len() => {
            Verdict::new(Outcome::No, "no posted request carries matching standard headers").evidence([wrong[0].0.seq]).opportunity([posted[0].seq])
        }
        Some((frame, header)) => {
            Verdict::new(Outcome::Partial, format!("{} of {} posted requests lack a matching {header} ({} first)", wrong.len(), posted.len(), frame.method().unwrap_or("")))
                .evidence([frame.seq])
                .opportunity([posted[0].seq])
        }
    }
}

probe! {
    /// Evidence (2026-07-28): every POSTed request whose body's `_meta` names its protocol version
    /// (`io.modelcontextprotocol/protocolVersion`) carries `MCP-Protocol-Version` with the same
    /// version, as the revision requires of clients (a server refuses a mismatch, 400 with
    /// -32020). All matching is yes; some is partial; none is no. Its detail names the first
    /// request whose header is missing or says otherwise.
    VersionHeaderMatchesMeta {
        id: "http.version_header_matches_meta", area: Http, title: "MCP-Protocol-Version equals the request's _meta version",
        revisions: ["2026-07-28"], eras: MODERN, transports: HTTP_ONLY,
        serves: "Streamable HTTP in the 2026-07-28 era", judge: judge_version_header_matches_meta,
    }
}

fn judge_version_header_matches_meta(o: &Observations) -> Verdict {
    let posted: Vec<(&crate::observe::Frame, &str)> = o
        .frames
        .iter()
        .filter(|f| f.dir == crate::journal::Direction::ClientToServer && f.is_request())
        .filter_map(|f| Some((f, f.meta(crate::observe::MODERN_META_VERSION)?.as_str()?)))
        .collect();
    let Some((first, _)) = posted.first() else {
        return Verdict::new(Outcome::NotReached, "no posted request named its protocol version in _meta");
    };
    let wrong: Vec<(&crate::observe::Frame, &str, Option<&str>)> =
        posted.iter().map(|(f, version)| (*f, *version, http_header(o, f, "mcp-protocol-version"))).filter(|(_, version, header)| *header != Some(*version)).collect();
    let Some((frame, version, header)) = wrong.first() else {
        return Verdict::new(Outcome::Yes, format!("all {} posted requests carry their _meta version in MCP-Protocol-Version", posted.len())).evidence([first.seq]);
    };
    let said = header.map_or("no MCP-Protocol-Version".to_string(), |h| format!("MCP-Protocol-Version: {h}"));
    let what = format!("{} ({said}, _meta {version})", frame.method().unwrap_or("?"));
    let outcome = if wrong.len() == posted.len() { Outcome::No } else { Outcome::Partial };
    Verdict::new(outcome, format!("{} of {} posted requests disagree with their _meta version, the first {what}", wrong.len(), posted.len()))
        .evidence([frame.seq])
        .opportunity([first.seq])
}

probe! {
    /// Evidence (server variant `session-expires`): after the server answers 404 to a request in
    /// an expired session, the client sends a new `initialize` (the specification says it MUST
    /// start a new session). Carrying on with the dead session id, or stopping, is no. A client
    /// that opens more sessions than that anyway (one per command) is inconclusive.
    SessionExpiry {
        id: "http.session_expiry", area: Http, title: "re-initializes after 404 (session expired)",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY, variant: SessionExpires,
        serves: "expires the session at the first request after initialization (404)", judge: judge_session_expiry,
    }
}

fn judge_session_expiry(o: &Observations) -> Verdict {
    let Some((expired, dead)) = o.payloads::<note::SessionExpired>().next().map(|(e, note)| (e, note.session)) else {
        return Verdict::new(Outcome::NotReached, "the session never reached a request after initialization, so it never expired");
    };
    let dead = dead.as_str();
    let sessions_opened = o.client_requests("initialize").count();
    if let Some(again) = o.client_requests_after("initialize", expired.seq).next() {
        // A client that opens a session per step (one process per command) initializes again
        // anyway: a new initialize then proves nothing about recovery.
        if sessions_opened > 2 {
            return Verdict::new(Outcome::Inconclusive, format!("opened {sessions_opened} sessions in all, so the new initialize after the 404 need not be a recovery"))
                .evidence([expired.seq, again.seq]);
        }
        return Verdict::new(Outcome::Yes, "started a new session after the 404").evidence([expired.seq, again.seq]);
    }
    let reused = o.http_requests().filter(|e| e.seq > expired.seq && header(e, "mcp-session-id") == Some(dead)).count();
    match reused {
        0 => Verdict::new(Outcome::No, "gave up after the 404").evidence([expired.seq]).opportunity([expired.seq]),
        n => Verdict::new(Outcome::No, format!("kept sending the expired session id ({n} more request{})", if n == 1 { "" } else { "s" }))
            .evidence([expired.seq])
            .opportunity([expired.seq]),
    }
}

probe! {
    /// Evidence (server variant `stream-drop`): the server ends the first standalone GET stream
    /// after its first event with an id (and `retry: 100`); the client opens a new GET in the same
    /// session carrying `Last-Event-ID` equal to that id. A new GET without it (or with another
    /// id) is partial, none is no. Any of these only when the run went on for a settled time
    /// after the drop (the model stub holds its last reply back that long in this variant); a run
    /// that ended sooner is not-reached, whether or not it reconnected in that time.
    Resumption {
        id: "http.resumption", area: Http, title: "resumes a dropped stream with Last-Event-ID",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY, variant: StreamDrop,
        serves: "ends the first GET stream after its first event with an id", judge: judge_resumption,
    }
}

fn judge_resumption(o: &Observations) -> Verdict {
    let Some((dropped, last_id)) = o.payloads::<note::StreamDropped>().next().map(|(e, note)| (e, note.last_sse_id.unwrap_or_default())) else {
        return Verdict::new(Outcome::NotReached, "no GET stream was opened, so none was dropped");
    };
    let last_id = last_id.as_str();
    // A reconnection belongs to the session whose stream was dropped.
    let session = dropped.session.as_str();
    let in_session = |e: &&Event| e.seq > dropped.seq && header(e, "mcp-session-id") == Some(session);
    // A run that ended within a settled time of the drop is too short to judge: the client had no
    // settled chance to reconnect, and a reconnection in it would race the client's own end of
    // the session (the server asks for a retry after 100 ms), so its outcome is chance.
    // A session the client deleted ends at its DELETE; one it left for another (one session per
    // command) ends at its last request; otherwise the run ends when the client did
    // (`Observations::ended_us`).
    let moved_on = o.http_requests().any(|e| e.seq > dropped.seq && header(e, "mcp-session-id").is_some_and(|s| s != session));
    // A client that deletes the session ends it there, whenever its run ends.
    let deleted = o.http_requests().filter(in_session).find(|e| method(e) == "DELETE").map(|e| e.t_us);
    let ended_us = match (deleted, moved_on) {
        (Some(at), _) => at,
        (None, true) => o.http_requests().filter(in_session).map(|e| e.t_us).max().unwrap_or(dropped.t_us),
        (None, false) => o.ended_us(),
    };
    let lasted_us = ended_us.saturating_sub(dropped.t_us);
    if lasted_us < super::opportunity::SETTLE_MS * 1000 {
        return Verdict::new(
            Outcome::NotReached,
            format!(
                "the {} ended {} after the drop, before a settled {} ms in which to reconnect",
                if moved_on || deleted.is_some() { "session" } else { "run" },
                super::latency_bucket(lasted_us),
                super::opportunity::SETTLE_MS
            ),
        )
        .evidence([dropped.seq]);
    }
    let Some(again) = o.http_requests().filter(in_session).find(|e| method(e) == "GET") else {
        let later = o.http_requests().filter(in_session).count();
        return Verdict::new(Outcome::No, format!("never reconnected the dropped stream ({later} later request{} in that session)", if later == 1 { "" } else { "s" }))
            .evidence([dropped.seq])
            .opportunity([dropped.seq]);
    };
    let after = super::latency_bucket(again.t_us.saturating_sub(dropped.t_us));
    match header(again, "last-event-id") {
        Some(id) if id == last_id => Verdict::new(Outcome::Yes, format!("reconnected with Last-Event-ID, {after} after the drop")).evidence([dropped.seq, again.seq]),
        Some(_) => {
            Verdict::new(Outcome::Partial, "reconnected with a Last-Event-ID the server never sent on that stream").evidence([dropped.seq, again.seq]).opportunity([dropped.seq])
        }
        None => Verdict::new(Outcome::Partial, "reconnected without Last-Event-ID").evidence([dropped.seq, again.seq]).opportunity([dropped.seq]),
    }
}

probe! {
    /// Evidence: on a session that negotiated 2025-11-25 or later, every SSE stream opens with a
    /// priming event (an event id and an empty `data` field). The client survives it when it
    /// goes on using the session after a primed answer to a request other than `initialize`.
    /// No: not one request in the session after the primed initialize answer (an SDK that parses
    /// the empty data as JSON fails there). Requests after the initialize answer but none after
    /// their own answers is inconclusive: a client that does one thing per session looks the
    /// same. Older sessions get no priming events (n/a).
    PrimingEvents {
        id: "http.priming_events", area: Http, title: "survives SSE priming events",
        revisions: ["2025-11-25"], eras: LEGACY, transports: HTTP_ONLY,
        serves: "an event id with empty data first on every SSE stream of a 2025-11-25 session", judge: judge_priming,
    }
}

/// Whether `e` is a request (a frame with a method and an id) the client sent in `session`.
fn is_client_request_in(e: &Event, session: &str) -> bool {
    e.kind == crate::journal::EventKind::Frame && e.dir == crate::journal::Direction::ClientToServer && e.session == session && e.method.is_some() && e.id.is_some()
}

fn judge_priming(o: &Observations) -> Verdict {
    let Some(primed) = o.notes(Note::SseWithoutData).find(|e| e.session != "-") else {
        let withheld = o.notes(Note::SsePrimingWithheld).count();
        return match o.lifecycle().and_then(|l| l.negotiated_version) {
            None => Verdict::new(Outcome::NotReached, "initialize never answered"),
            Some(v) if v.as_str() < crate::transport::http::PRIMING_SINCE => Verdict::new(Outcome::NotApplicable, format!("{v} has no priming events ({withheld} withheld)")),
            Some(_) => Verdict::new(Outcome::NotReached, "no SSE stream was opened in a session"),
        };
    };
    let session = primed.session.as_str();
    let requests: Vec<&Event> = o.events.iter().filter(|e| is_client_request_in(e, session)).collect();
    let answered = |request: &Event| {
        o.events.iter().find(|e| {
            e.seq > request.seq
                && e.session == session
                && e.dir == crate::journal::Direction::ServerToClient
                && e.kind == crate::journal::EventKind::Frame
                && e.id == request.id
                && e.method.is_none()
        })
    };
    // The initialize request carries no session id yet; its answer is the session's first.
    let is_initialize_answer = |e: &&Event| {
        e.session == session
            && e.dir == crate::journal::Direction::ServerToClient
            && e.kind == crate::journal::EventKind::Frame
            && e.raw.as_deref().and_then(|r| serde_json::from_str::<Value>(r).ok()).is_some_and(|m| m.get("result").and_then(|r| r.get("protocolVersion")).is_some())
    };
    let Some(open_answer) = o.events.iter().find(is_initialize_answer) else { return Verdict::new(Outcome::NotReached, "the primed session has no initialize answer") };
    let streams = o.notes(Note::SseWithoutData).filter(|e| e.session == session).count();
    let later: Vec<&Event> = requests.iter().copied().filter(|e| e.seq > open_answer.seq).collect();
    let Some(first) = later.first() else {
        return Verdict::new(Outcome::No, "not one request in the session after the primed initialize answer")
            .evidence([primed.seq, open_answer.seq])
            .opportunity([open_answer.seq]);
    };
    // A request sent after the client received a primed answer to an earlier one.
    let went_on = later.iter().find_map(|r| answered(r)).and_then(|a| later.iter().find(|e| e.seq > a.seq).map(|next| (a, *next)));
    match went_on {
        Some((answer, next)) => {
            let plural = if streams == 1 { "" } else { "s" };
            Verdict::new(Outcome::Yes, format!("went on after primed answers ({streams} primed stream{plural})")).evidence([primed.seq, answer.seq, next.seq])
        }
        None => {
            let method = first.method.as_deref().unwrap_or("?");
            let count = later.len();
            Verdict::new(
                Outcome::Inconclusive,
                format!("{count} request{} ({method} first) after the primed initialize answer, none after a primed answer to them", if count == 1 { "" } else { "s" }),
            )
            .evidence([primed.seq, first.seq])
        }
    }
}

probe! {
    /// Evidence (variant json-responses, HTTP only: a request whose stream would carry only its
    /// answer gets that answer as an `application/json` body, the tap's `answered_as_json` note
    /// beside it): the client's `tools/list` is answered so, and the client uses what it got:
    /// a `tools/call` afterwards, or a probe tool offered to its model (yes). Tools listed as JSON
    /// and then neither is no, and so is a client that got JSON answers and never listed tools
    /// (it stopped at an earlier JSON answer). A server may answer a POST either way and the
    /// client must take both (Streamable HTTP, sending messages to the server).
    JsonResponses {
        id: "http.json_responses", area: Http, title: "takes answers sent as application/json",
        revisions: ["2025-03-26"], eras: &crate::era::Era::ALL, transports: HTTP_ONLY, variant: JsonResponses,
        serves: "answers each request with a JSON body wherever nothing comes before its answer", judge: judge_json_responses, reads_model: true,
    }
}

fn judge_json_responses(o: &Observations) -> Verdict {
    let answered: Vec<&Event> = o.notes(Note::AnsweredAsJson).collect();
    let Some(first) = answered.first() else {
        return Verdict::new(Outcome::NotReached, "no request was answered with a JSON body");
    };
    // The request each JSON answer answered: the last one with its id before the note.
    let asked = |note: &Event| {
        let id = note::AnsweredAsJson::of(note).and_then(Result::ok).map(|answered| answered.id);
        o.frames.iter().rev().find(|f| f.seq < note.seq && f.dir == crate::journal::Direction::ClientToServer && f.is_request() && f.id() == id.as_ref())
    };
    let listed = answered.iter().find(|note| asked(note).and_then(|f| f.method()) == Some("tools/list"));
    let Some(listed) = listed else {
        let methods = first_seen(answered.iter().filter_map(|note| asked(note)?.method()));
        return Verdict::new(Outcome::No, format!("after JSON answers to {} the client never listed tools", methods.join(", "))).evidence([first.seq]).opportunity([first.seq]);
    };
    match use_of_list(o, listed.seq, o.frames.iter().filter(|f| f.method() == Some("tools/call"))) {
        ListUse::Called(call) => Verdict::new(Outcome::Yes, format!("{} answers came as JSON; tools listed so were then called", answered.len())).evidence([listed.seq, call.seq]),
        ListUse::Offered => Verdict::new(Outcome::Yes, format!("{} answers came as JSON; tools listed so reached the model", answered.len())).evidence([listed.seq]),
        ListUse::Unused => Verdict::new(Outcome::No, "tools were listed as JSON, then neither called nor offered to a model").evidence([listed.seq]).opportunity([listed.seq]),
    }
}

/// `items` without repeats, each where it first came.
pub(super) fn first_seen<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen
}

/// What a client did with the tools it listed (the list journalled at line `listed`).
pub(super) enum ListUse<'a> {
    /// The first of the calls judged that came after the list.
    Called(&'a Frame),
    /// No such call, and a probe tool reached its model.
    Offered,
    Unused,
}

pub(super) fn use_of_list<'a>(o: &'a Observations, listed: u64, mut calls: impl Iterator<Item = &'a Frame>) -> ListUse<'a> {
    if let Some(called) = calls.find(|f| f.seq > listed) {
        return ListUse::Called(called);
    }
    match o.offered_probe_tools().first() {
        Some(_) => ListUse::Offered,
        None => ListUse::Unused,
    }
}

probe! {
    /// Evidence: the `Origin` header of every HTTP request the tap saw, refused ones included.
    /// None, or a loopback origin, is yes: a client outside a browser need not send one, and a
    /// server that guards against DNS rebinding (2025-11-25: servers MUST validate `Origin`)
    /// accepts a loopback one. A foreign origin (`null` among them) is no: such a server refuses
    /// the request (403), as this one does.
    OriginLoopback {
        id: "http.origin_loopback", area: Http, title: "no foreign Origin header",
        revisions: ["2025-11-25"], eras: BOTH, transports: HTTP_ONLY,
        serves: "Streamable HTTP on loopback; a foreign Origin or Host refused (403)", judge: judge_origin,
    }
}

fn judge_origin(o: &Observations) -> Verdict {
    use crate::journal::EventKind;
    let requests: Vec<&Event> =
        o.events.iter().filter(|e| matches!(e.kind, EventKind::HttpRequest | EventKind::Refused) && e.dir == crate::journal::Direction::ClientToServer).collect();
    let Some(first) = requests.first() else { return Verdict::new(Outcome::NotReached, "no HTTP request was sent") };
    if let Some(foreign) = requests.iter().find(|e| !crate::net::loopback::origin_allowed(header(e, "origin"))) {
        let origin = header(foreign, "origin").unwrap_or_default();
        return Verdict::new(Outcome::No, format!("sent Origin {origin:?}, which a server guarding against DNS rebinding refuses"))
            .evidence([foreign.seq])
            .opportunity([foreign.seq]);
    }
    let with_origin = requests.iter().filter(|e| header(e, "origin").is_some()).count();
    let how = match with_origin {
        0 => "sent no Origin header".to_string(),
        n => format!("{n} of {} requests carried a loopback Origin, the rest none", requests.len()),
    };
    Verdict::new(Outcome::Yes, how).evidence([first.seq])
}

probe! {
    /// Evidence: the client's notifications POSTed over HTTP and answered `202 Accepted` with no
    /// body (every revision with Streamable HTTP). The client's next POST in that session is not
    /// the same notification again, and something followed it there: yes (it took the empty 202
    /// as delivered). The same notification sent again at once is no. None answered 202 is
    /// not-reached. Judged in legacy sessions, whose `notifications/initialized` every client
    /// sends (a 2026-07-28 client may send no notification at all).
    NotificationAccepted {
        id: "http.notification_accepted", area: Http, title: "a notification answered 202 is taken as delivered",
        revisions: ["2025-03-26"], eras: LEGACY, transports: HTTP_ONLY,
        serves: "every notification answered 202 Accepted, no body", judge: judge_notification_accepted,
    }
}

fn judge_notification_accepted(o: &Observations) -> Verdict {
    use crate::journal::{Direction, EventKind};
    // Each notification and the status of the answer to its POST: the next response journalled
    // in its session that opens no event stream (the tap answers a notification at once, with no
    // body; a stream that opens meanwhile answers a GET or a request sent beside it).
    let streams = |e: &&Event| e.detail.as_ref().and_then(|d| d.pointer("/headers/content-type")).and_then(Value::as_str).is_some_and(|t| t.starts_with("text/event-stream"));
    let accepted: Vec<&Frame> = o
        .frames
        .iter()
        .filter(|f| f.dir == Direction::ClientToServer && f.is_notification())
        .filter(|f| {
            let session = o.event(f.seq).map(|e| e.session.as_str());
            let answer = o.events.iter().filter(|e| !streams(e)).find(|e| e.seq > f.seq && e.kind == EventKind::HttpResponse && Some(e.session.as_str()) == session);
            answer.and_then(|e| e.detail.as_ref()?.get("status")?.as_u64()) == Some(202)
        })
        .collect();
    let Some(first) = accepted.first() else { return Verdict::new(Outcome::NotReached, "no notification was answered 202") };
    // Each accepted notification with what came next from the client in its session.
    let followed: Vec<(&Frame, &Frame)> = accepted
        .iter()
        .filter_map(|sent| Some((*sent, o.frames.iter().find(|f| f.dir == Direction::ClientToServer && f.seq > sent.seq && o.same_session(sent.seq, f.seq))?)))
        .collect();
    if let Some((sent, again)) = followed.iter().find(|(sent, next)| next.msg == sent.msg) {
        let method = sent.method().unwrap_or_default();
        return Verdict::new(Outcome::No, format!("sent {method} again after the server had accepted it (202)")).evidence([sent.seq, again.seq]).opportunity([sent.seq]);
    }
    match followed.first() {
        Some((sent, next)) => Verdict::new(Outcome::Yes, format!("{} notification(s) accepted with 202; the session went on", accepted.len())).evidence([sent.seq, next.seq]),
        None => Verdict::new(Outcome::NotReached, "nothing came from the client after its accepted notifications").evidence([first.seq]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_media_types_drop_parameters_and_case() {
        assert_eq!(accepted("Application/JSON, text/event-stream;q=0.9"), vec!["application/json", "text/event-stream"]);
        assert_eq!(accepted("*/*"), vec!["*/*"]);
        assert!(accepted("").is_empty());
    }
}
