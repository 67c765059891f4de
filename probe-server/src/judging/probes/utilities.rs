//! Progress, logging and ping.

use serde_json::Value;

use super::{probe, requested, BOTH, LEGACY, MODERN};
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};
use crate::surface;

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] =
    &[&ProgressToken, &SetLevel, &Ping, &UnknownRequestAnswered, &UnknownNotificationTolerated, &NoPingToModern, &NoSetLevelToModern, &LogLevelMetaValid];

probe! {
    /// Evidence: the `tools/call` of probe_progress carries `_meta.progressToken` (string or
    /// integer); the detail says whether the server's progress notifications went out for it.
    ProgressToken {
        id: "utilities.progress_token", area: Utilities, title: "progressToken on tools/call",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_progress sends 3 progress notifications for the token",
        judge: judge_progress,
    }
}

fn judge_progress(o: &Observations) -> Verdict {
    let Some(call) = o.tool_calls(surface::TOOL_PROGRESS).next() else { return Verdict::new(Outcome::NotReached, "probe_progress never called") };
    match call.meta("progressToken") {
        Some(token @ (Value::String(_) | Value::Number(_))) => {
            let sent: Vec<u64> = o.server_notifications("notifications/progress").filter(|f| f.params().get("progressToken") == Some(token)).map(|f| f.seq).collect();
            Verdict::new(Outcome::Yes, format!("token present; {} progress notification(s) sent for it", sent.len())).evidence(std::iter::once(call.seq).chain(sent))
        }
        Some(_) => Verdict::new(Outcome::No, "progressToken is neither a string nor an integer").evidence([call.seq]).opportunity([call.seq]),
        None => Verdict::new(Outcome::No, "no progressToken").evidence([call.seq]).opportunity([call.seq]),
    }
}

probe! {
    /// Evidence: a `logging/setLevel` request.
    SetLevel {
        id: "utilities.set_level", area: Utilities, title: "logging/setLevel sent",
        revisions: ["2024-11-05"], eras: LEGACY, serves: "logging capability; log messages from probe_progress",
        judge: |o| requested(o, "logging/setLevel", "set the log level", &[]),
    }
}

probe! {
    /// Evidence: the server's `ping` request answered with an empty result.
    Ping {
        id: "utilities.ping", area: Utilities, title: "answers the server's ping",
        revisions: ["2024-11-05"], eras: LEGACY, serves: "probe_ping pings the client",
        judge: judge_ping,
    }
}

fn judge_ping(o: &Observations) -> Verdict {
    let Some(ping) = o.server_requests("ping").next() else { return Verdict::new(Outcome::NotReached, "the server never pinged") };
    match o.answer_to(ping) {
        Some(a) if a.result().is_some() => Verdict::new(Outcome::Yes, "answered ping").evidence([ping.seq, a.seq]),
        Some(a) => Verdict::new(Outcome::No, "answered ping with an error").evidence([ping.seq, a.seq]).opportunity([ping.seq]),
        None => Verdict::new(Outcome::No, "never answered ping").evidence([ping.seq]).opportunity([ping.seq]),
    }
}

probe! {
    /// Evidence: during `probe_ping` the server sends a request no revision defines
    /// (`probe/unknown_request`); the client answers it with error -32601, method not found
    /// (yes). Another error code is partial, a result or no answer no.
    UnknownRequestAnswered {
        id: "utilities.unknown_request_answered", area: Utilities, title: "an unknown request answered -32601",
        revisions: ["2024-11-05"], eras: LEGACY, serves: "probe_ping sends a request no revision defines after its ping",
        judge: judge_unknown_request,
    }
}

fn judge_unknown_request(o: &Observations) -> Verdict {
    let Some(request) = o.server_requests(surface::UNKNOWN_REQUEST).next() else {
        let ping = o.server_requests("ping").next();
        return match (o.tool_calls(surface::TOOL_PING).next(), ping.and_then(|p| o.answer_to(p))) {
            (None, _) => Verdict::new(Outcome::NotReached, "the server never sent its unknown request: probe_ping was not called"),
            (Some(call), Some(_)) => {
                Verdict::new(Outcome::NotReached, "probe_ping was called and its ping answered, but the server sent no unknown request after it").evidence([call.seq])
            }
            (Some(call), None) => {
                Verdict::new(Outcome::NotReached, "probe_ping was called, but the run ended while the server's ping waited for its answer: the unknown request never went out")
                    .evidence([call.seq])
            }
        };
    };
    match o.answer_to(request) {
        Some(a) => match a.error().map(|e| e.get("code").and_then(Value::as_i64)) {
            Some(Some(-32601)) => Verdict::new(Outcome::Yes, "answered -32601 (method not found)").evidence([request.seq, a.seq]),
            Some(code) => Verdict::new(Outcome::Partial, format!("answered with error code {}", code.map_or("none".to_string(), |c| c.to_string())))
                .evidence([request.seq, a.seq])
                .opportunity([request.seq]),
            None => Verdict::new(Outcome::No, "answered with a result, as if the method existed").evidence([request.seq, a.seq]).opportunity([request.seq]),
        },
        None => Verdict::new(Outcome::No, "never answered the unknown request").evidence([request.seq]).opportunity([request.seq]),
    }
}

probe! {
    /// Evidence: during `probe_ping` the server sends a notification no revision defines
    /// (`notifications/probe/unknown`), then its ping; the client goes on in that session: a frame
    /// from it follows in the same session of the same server process (yes). Over HTTP the first
    /// such frame may answer a ping the client read before the notification (they travel on
    /// different streams), so a second is needed (one alone is inconclusive). Nothing more from it
    /// there is no (it answered neither the ping nor anything else).
    UnknownNotificationTolerated {
        id: "utilities.unknown_notification_tolerated", area: Utilities, title: "an unknown notification tolerated",
        revisions: ["2024-11-05"], eras: LEGACY, serves: "probe_ping sends a notification no revision defines before its ping",
        judge: judge_unknown_notification,
    }
}

fn judge_unknown_notification(o: &Observations) -> Verdict {
    let Some(sent) = o.server_notifications(surface::UNKNOWN_NOTIFICATION).next() else {
        return Verdict::new(Outcome::NotReached, "the unknown notification never went out: probe_ping was not called, or (over HTTP) the client opened no stream for it");
    };
    let from_client_after = |seq: u64| o.frames.iter().find(|f| f.dir == crate::journal::Direction::ClientToServer && f.seq > seq && o.same_session(sent.seq, f.seq));
    let went_on = |f: &crate::observe::Frame| {
        Verdict::new(Outcome::Yes, format!("the client went on: {}", f.method().map_or("an answer".to_string(), |m| m.to_string()))).evidence([sent.seq, f.seq])
    };
    let Some(first) = from_client_after(sent.seq) else {
        return Verdict::new(Outcome::No, "nothing more came from the client in that session").evidence([sent.seq]).opportunity([sent.seq]);
    };
    // Over HTTP the notification travels on the standalone stream and the ping on the call's own,
    // so the client may read (and answer) the ping before the notification: only a frame after
    // that first one shows it went on past the notification.
    let over_http = o.event(sent.seq).is_some_and(|e| e.transport == crate::journal::Transport::Http);
    match (over_http, from_client_after(first.seq)) {
        (false, _) => went_on(first),
        (true, Some(later)) => went_on(later),
        (true, None) => Verdict::new(Outcome::Inconclusive, "the client's only frame after the notification may answer a request it read before it (another stream)")
            .evidence([sent.seq, first.seq]),
    }
}

/// The `_meta` key with which a 2026-07-28 request asks for log messages while it is served.
pub const LOG_LEVEL_META: &str = "io.modelcontextprotocol/logLevel";

/// The levels of `LoggingLevel` (RFC 5424's, lowest first).
const LOG_LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

probe! {
    /// Evidence: in a 2026-07-28 session, no `ping` request from the client (2026-07-28 removed
    /// ping: a server has no method to answer it with). One is no.
    NoPingToModern {
        id: "utilities.no_ping_to_modern", area: Utilities, title: "no ping to a 2026-07-28 server",
        revisions: ["2026-07-28"], eras: MODERN, serves: "a 2026-07-28 server (ping removed)",
        judge: |o| super::none_asked(o, "ping", |f| f.method() == Some("ping"), "a 2026-07-28 server"),
    }
}

probe! {
    /// Evidence: in a 2026-07-28 session, no `logging/setLevel` from the client (2026-07-28
    /// removed it: the level travels in each request's `_meta["io.modelcontextprotocol/logLevel"]`).
    /// One is no.
    NoSetLevelToModern {
        id: "utilities.no_set_level_to_modern", area: Utilities, title: "no logging/setLevel to a 2026-07-28 server",
        revisions: ["2026-07-28"], eras: MODERN, serves: "a 2026-07-28 server (logging/setLevel removed)",
        judge: |o| super::none_asked(o, "logging/setLevel", |f| f.method() == Some("logging/setLevel"), "a 2026-07-28 server"),
    }
}

probe! {
    /// Evidence: in a 2026-07-28 session, the requests that carry
    /// `_meta["io.modelcontextprotocol/logLevel"]` (how a client asks for log messages while a
    /// request is served): every value one of the eight `LoggingLevel` names is yes, another
    /// value is no. No request carrying it is not applicable: a client need not ask for logs.
    LogLevelMetaValid {
        id: "utilities.log_level_meta_valid", area: Utilities, title: "a per-request log level names a logging level",
        revisions: ["2026-07-28"], eras: MODERN, serves: "log messages from probe_progress at the level a request asks",
        judge: judge_log_level_meta,
    }
}

fn judge_log_level_meta(o: &Observations) -> Verdict {
    let asking: Vec<(u64, &Value)> =
        o.frames.iter().filter(|f| f.dir == crate::journal::Direction::ClientToServer && f.is_request()).filter_map(|f| Some((f.seq, f.meta(LOG_LEVEL_META)?))).collect();
    let Some((first, _)) = asking.first() else {
        return Verdict::new(Outcome::NotApplicable, format!("no request carried _meta[{LOG_LEVEL_META:?}]: the client asked for no log messages"));
    };
    match asking.iter().find(|(_, level)| !level.as_str().is_some_and(|l| LOG_LEVELS.contains(&l))) {
        Some((seq, level)) => Verdict::new(Outcome::No, format!("asked for log level {level}, which is no logging level")).evidence([*seq]).opportunity([*seq]),
        None => {
            let levels: std::collections::BTreeSet<&str> = asking.iter().filter_map(|(_, l)| l.as_str()).collect();
            Verdict::new(Outcome::Yes, format!("{} request(s) asked for log level {}", asking.len(), levels.into_iter().collect::<Vec<_>>().join(", "))).evidence([*first])
        }
    }
}
