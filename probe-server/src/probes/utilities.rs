//! Progress, logging and ping.

use serde_json::Value;

use super::{probe, requested, BOTH, LEGACY};
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};
use crate::surface;

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
