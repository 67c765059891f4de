//! The probes, one file per small family. Each probe's doc comment says what evidence it looks
//! for. Shared judging helpers live here.

pub mod affordances;
pub mod apps;
pub mod auth;
pub mod connection;
pub mod elicitation;
pub mod events;
pub mod http;
pub mod interactive;
pub mod long_calls;
pub mod meta_names;
pub mod opportunity;
pub mod prompts;
pub mod resources;
pub mod results;
pub mod sampling_roots;
pub mod schema_keywords;
pub mod schemas;
pub mod skills;
pub mod stateless;
pub mod subscriptions;
pub mod tasks;
pub mod tools;
pub mod utilities;

use serde_json::Value;

use crate::host_tools::HostTool;
use crate::observe::{Answer, Exchange, Frame, Observations};
use crate::probe::{Declaration, Outcome, Verdict};
use opportunity::chance;

/// Declares a unit-struct probe with its metadata and judge function.
macro_rules! probe {
    ($(#[doc = $doc:literal])* $ty:ident {
        id: $id:literal, area: $area:ident, title: $title:literal, revisions: [$($rev:literal),*],
        eras: $eras:expr, $(transports: $transports:expr,)? $(variant: $variant:ident,)? serves: $serves:literal, judge: $judge:expr $(, wire_judged: $wire:literal)? $(, needs_model: $model:literal)? $(, reads_model: $reads:literal)? $(, server_evidence: $server:literal)? $(, needs_schemas: $schemas:literal)? $(, precondition: $pre:literal)? $(,)?
    }) => {
        $(#[doc = $doc])*
        pub struct $ty;
        impl $crate::probe::Probe for $ty {
            fn id(&self) -> &'static str { $id }
            fn area(&self) -> $crate::probe::Area { $crate::probe::Area::$area }
            fn title(&self) -> &'static str { $title }
            fn revisions(&self) -> &'static [&'static str] { &[$($rev),*] }
            fn eras(&self) -> &'static [$crate::era::Era] { $eras }
            fn serves(&self) -> &'static str { $serves }
            fn evidence(&self) -> &'static str { concat!($($doc, "\n"),*) }
            $(fn wire_judged(&self) -> bool { $wire })?
            $(fn needs_model(&self) -> bool { $model })?
            $(fn reads_model(&self) -> bool { $reads })?
            $(fn evidence_in_model(&self) -> bool { !$server })?
            $(fn needs_schemas(&self) -> bool { $schemas })?
            $(fn precondition(&self) -> Option<&'static str> { Some($pre) })?
            $(fn transports(&self) -> &'static [$crate::journal::Transport] { $transports })?
            $(fn variant(&self) -> $crate::variant::Variant { $crate::variant::Variant::$variant })?
            fn judge(&self, observations: &$crate::observe::Observations) -> $crate::probe::Verdict {
                let judge: fn(&$crate::observe::Observations) -> $crate::probe::Verdict = $judge;
                judge(observations)
            }
        }
    };
}
pub(crate) use probe;

pub(crate) const BOTH: &[crate::era::Era] = &crate::era::Era::ALL;
pub(crate) const LEGACY: &[crate::era::Era] = &[crate::era::Era::Legacy];
pub(crate) const MODERN: &[crate::era::Era] = &[crate::era::Era::Modern];
pub(crate) const HTTP_ONLY: &[crate::journal::Transport] = &[crate::journal::Transport::Http];
pub(crate) const STDIO_ONLY: &[crate::journal::Transport] = &[crate::journal::Transport::Stdio];

/// The version a legacy session negotiated, where it is older than `since` (revisions are dates:
/// they sort as text): what a feature that came in `since` cannot be judged against.
pub(crate) fn negotiated_before(observations: &Observations, since: &str) -> Option<String> {
    let lifecycle = observations.lifecycle().filter(|l| l.era == crate::era::Era::Legacy)?;
    lifecycle.negotiated_version.filter(|version| version.as_str() < since)
}

/// Yes when the client sent `server` no request that `unwanted` picks out (`what` names them),
/// requests such a server has no method for (an extension it did not declare, a method its
/// revision removed); no, citing them, when it did.
pub(crate) fn none_asked(observations: &Observations, what: &str, unwanted: impl Fn(&Frame) -> bool, server: &str) -> Verdict {
    let asked: Vec<&Frame> = observations.frames.iter().filter(|f| f.dir == crate::journal::Direction::ClientToServer && f.is_request() && unwanted(f)).collect();
    match asked.first() {
        None => Verdict::new(Outcome::Yes, format!("sent no {what} to {server}")),
        Some(first) => {
            Verdict::new(Outcome::No, format!("sent {} to {server}", first.method().unwrap_or_default())).evidence(asked.iter().map(|f| f.seq).take(5)).opportunity([first.seq])
        }
    }
}

/// The verdict of a judge that reads the tools the model was offered, when it was offered none:
/// not reached. Where the model still called probe tools through a host tool that runs or
/// proxies them (a code-mode host's runner, whose search declared the functions in a language
/// no judge reads), the detail says so and cites the first such call.
pub(crate) fn no_tool_offered(observations: &Observations) -> Verdict {
    let ours = |name: &str| crate::surface::tool_names().iter().any(|t| crate::host_tools::names_tool(name, t));
    let through = observations.model_calls_through().find(|(_, name, _)| ours(name)).map(|(seq, _, via)| (seq, via));
    match through {
        Some((seq, via)) => Verdict::new(
            Outcome::NotReached,
            format!("no MCP tool was declared to the model in a form the judges read: the model called them through {via}, as functions its host declared another way"),
        )
        .evidence([seq]),
        None => Verdict::new(Outcome::NotReached, "no MCP tool was offered to the model"),
    }
}

/// Whether the client fetched an icon the server named (at `path` on the fetch trap): yes when it
/// did; no when an answer named it (found by `named`) and it was never fetched; not reached when
/// no answer named it (a run older than the icon). Icons exist since 2025-11-25: a session of an
/// older revision is n/a.
pub(crate) fn icon_fetched(o: &Observations, whose: &str, path: &str, named: impl Fn(&Value) -> bool) -> Verdict {
    if o.lifecycle().is_none() {
        return Verdict::new(Outcome::NotReached, "the client never opened a session");
    }
    if let Some(version) = negotiated_before(o, "2025-11-25") {
        return Verdict::new(Outcome::NotApplicable, format!("the session negotiated {version}; icons exist since 2025-11-25"));
    }
    let naming = o.frames.iter().find(|f| f.dir == crate::journal::Direction::ServerToClient && f.result().is_some_and(&named));
    let Some(naming) = naming else {
        return Verdict::new(Outcome::NotReached, format!("no answer named {whose} icon (a run older than this probe, or the list that names it never asked)"));
    };
    match o.trap_fetches(path).next() {
        Some(fetched) => Verdict::new(Outcome::Yes, format!("fetched {whose} icon: {}", crate::fetch_trap::fetcher(fetched))).evidence([naming.seq, fetched.seq]),
        None => Verdict::new(Outcome::No, format!("never fetched {whose} icon")).evidence([naming.seq]).opportunity([naming.seq]),
    }
}

/// Whether `frame`'s method begins with `prefix` (`events/`: the events extension's methods).
pub(crate) fn method_in(frame: &Frame, prefix: &str) -> bool {
    frame.method().is_some_and(|m| m.starts_with(prefix))
}

/// An answer faster than this, with nobody asked, counts as automatic.
pub const AUTO_ANSWER_US: u64 = 100_000;

/// Yes when the client sent `method` and got a result; no when it never sent it. Opportunity:
/// the session opened and the model (of a host with one) called every host tool of `kinds`.
pub(crate) fn requested(observations: &Observations, method: &str, what: &str, kinds: &[HostTool]) -> Verdict {
    let frames: Vec<&Frame> = observations.client_requests(method).collect();
    match frames.first() {
        None => {
            let chance = chance!(opportunity::session_and_tools(observations, kinds));
            chance.cite(Verdict::new(Outcome::No, format!("never {what}")))
        }
        Some(first) => {
            let answered = observations.answer_to(first);
            Verdict::new(Outcome::Yes, format!("{what} ({} request{})", frames.len(), if frames.len() == 1 { "" } else { "s" }))
                .evidence(frames.iter().map(|f| f.seq).chain(answered.map(|a| a.seq)))
        }
    }
}

/// Yes when the client re-requested `method` after the server's `notification` arrived, in the
/// same session of the same server process.
/// Opportunity: the trigger was called, the notification sent and, for a host with a model, the
/// host had a settled model turn afterwards and, where it offered its model a tool that lists
/// what changed (`on_request`), the model called it after the trigger (a host may list afresh
/// only when asked).
pub(crate) fn refetched(observations: &Observations, notification: &str, method: &str, on_request: Option<HostTool>) -> Verdict {
    let Some(sent) = observations.server_notifications(notification).next() else {
        return Verdict::new(Outcome::NotReached, format!("{notification} was never sent: the trigger tool was not called"));
    };
    // Only a refetch by the session that was told counts: a server started again (a host that
    // restarts its server after an error) or another session lists afresh whatever it was told.
    match observations.client_requests_after(method, sent.seq).find(|f| observations.same_session(sent.seq, f.seq)) {
        Some(again) => Verdict::new(Outcome::Yes, format!("{method} fetched again after {notification}")).evidence([sent.seq, again.seq]),
        None => {
            let trigger = chance!(opportunity::tool_called(observations, crate::surface::TOOL_LIST_CHANGED));
            let settled = chance!(opportunity::settled_turn(observations));
            let asked = match on_request {
                Some(kind) => chance!(opportunity::host_tool_called_after(observations, kind, crate::surface::TOOL_LIST_CHANGED)),
                None => opportunity::Chance::default(),
            };
            trigger.and(settled).and(asked).cite(Verdict::new(Outcome::No, format!("no {method} after {notification}")).evidence([sent.seq]).opportunity([sent.seq]))
        }
    }
}

/// The journal lines of an exchange: the ask and, if any, the answer.
pub(crate) fn exchange_evidence(exchange: &Exchange) -> Vec<u64> {
    [Some(exchange.asked), exchange.answered].into_iter().flatten().collect()
}

/// The result the client answered an exchange with, or the verdict saying why there is none.
pub(crate) fn answered(exchange: Option<Exchange>, declared: &Declaration) -> Result<(Value, Exchange), Verdict> {
    let Some(exchange) = exchange else {
        return Err(Verdict::new(Outcome::NotReached, "the server never got to ask: the tool was not called").declared(declared.clone()));
    };
    let failed = |detail: String| Err(Verdict::new(Outcome::No, detail).declared(declared.clone()).evidence(exchange_evidence(&exchange)).opportunity([exchange.asked]));
    match &exchange.answer {
        None => failed("asked, never answered".into()),
        Some(Answer::Error(e)) => failed(format!("answered with error {}", e.get("code").unwrap_or(&Value::Null))),
        Some(Answer::Result(r)) => Ok((r.clone(), exchange)),
    }
}

/// The content of an accepted elicitation, or a verdict saying why there is none.
pub(crate) fn accepted_content(exchange: Option<Exchange>, declared: Declaration) -> Result<(Value, Exchange), Verdict> {
    let (result, exchange) = answered(exchange, &declared)?;
    let evidence = exchange_evidence(&exchange);
    match result.get("action").and_then(Value::as_str) {
        Some("accept") => Ok((result.get("content").cloned().unwrap_or(Value::Null), exchange)),
        Some(action) => Err(Verdict::new(Outcome::No, format!("answered {action}")).declared(declared).evidence(evidence).opportunity([exchange.asked])),
        None => Err(Verdict::new(Outcome::No, "answer has no action").declared(declared).evidence(evidence).opportunity([exchange.asked])),
    }
}

/// Yes when the client sent `method` before its first `use_method` (or never used it);
/// partial when it listed only after using; no when it never listed. Opportunity: the session
/// opened and the model (of a host with one) called every host tool of `kinds`.
pub(crate) fn listed_before_use(observations: &Observations, method: &str, use_method: &str, what: &str, kinds: &[HostTool]) -> Verdict {
    let Some(first) = observations.client_requests(method).next() else {
        let chance = chance!(opportunity::session_and_tools(observations, kinds));
        return chance.cite(Verdict::new(Outcome::No, format!("never {what}")));
    };
    match observations.client_requests(use_method).next() {
        Some(used) if used.seq < first.seq => Verdict::new(Outcome::Partial, format!("{what} only after a {use_method}")).evidence([used.seq, first.seq]).opportunity([used.seq]),
        _ => Verdict::new(Outcome::Yes, format!("{what} before use")).evidence([first.seq]),
    }
}

/// What a `completion/complete` request should name: its reference (`ref/prompt` by `name`, or
/// `ref/resource` by `uri`), the argument, the list that showed it, and how to say it.
pub(crate) struct Completable {
    pub reference: (&'static str, &'static str, &'static str),
    pub argument: &'static str,
    pub listed_by: &'static str,
    pub what: &'static str,
}

/// Yes when the client asked the server to complete the argument `it` names; partial when it
/// asked for the reference's completions of another argument; no when it never asked though it
/// listed what has the argument, and someone (the client itself, as a wire-level client does)
/// could have typed in it. A run nobody sat at (the runner's `unattended` note) is not-reached:
/// completion is asked for as a person types. Never listed: not-reached too.
pub(crate) fn completion_asked(o: &Observations, it: &Completable) -> Verdict {
    let (kind, key, value) = it.reference;
    let asks: Vec<&Frame> = o
        .client_requests("completion/complete")
        .filter(|f| f.params().pointer("/ref/type").and_then(Value::as_str) == Some(kind) && f.params().pointer(&format!("/ref/{key}")).and_then(Value::as_str) == Some(value))
        .collect();
    let argument = |f: &Frame| f.params().pointer("/argument/name").and_then(Value::as_str).unwrap_or("").to_string();
    if let Some(ask) = asks.iter().find(|f| argument(f) == it.argument) {
        let typed = ask.params().pointer("/argument/value").and_then(Value::as_str).unwrap_or("");
        let answer = o.answer_to(ask).map(|a| a.seq);
        return Verdict::new(Outcome::Yes, format!("asked the server to complete {} (typed {typed:?})", it.what)).evidence(std::iter::once(ask.seq).chain(answer));
    }
    if let Some(ask) = asks.first() {
        let detail = format!("asked for completions of {value}, for argument {:?}, not {:?}", argument(ask), it.argument);
        return Verdict::new(Outcome::Partial, detail).evidence([ask.seq]).opportunity([ask.seq]);
    }
    let Some(listed) = o.client_requests(it.listed_by).next() else {
        return Verdict::new(Outcome::NotReached, format!("never sent {}, so it never saw {}", it.listed_by, it.what));
    };
    if let Some((note, _)) = o.payloads::<crate::note::Unattended>().next() {
        return Verdict::new(Outcome::NotReached, format!("nobody typed at the host (it ran unattended), and the client never asked to complete {} on its own", it.what))
            .evidence([listed.seq, note.seq]);
    }
    Verdict::new(Outcome::No, format!("never asked the server to complete {}", it.what)).evidence([listed.seq]).opportunity([listed.seq])
}

/// "answered in < 100 ms" style buckets, stable across machines.
pub fn latency_bucket(us: u64) -> &'static str {
    match us {
        0..=99_999 => "< 100 ms",
        100_000..=999_999 => "100 ms – 1 s",
        1_000_000..=9_999_999 => "1 – 10 s",
        _ => "≥ 10 s",
    }
}
