//! Long calls (variant long-calls): what a host does with a call that never answers and with one
//! that runs past its timeout while it reports progress. Judged from the server's journal (the
//! calls, `notifications/cancelled`, a response stream closed, the run's end), which the evidence
//! cites, and the model stub's (the model's call, and whether it got a result for it), cited as
//! `opportunity_model`.

use serde_json::Value;

use super::{probe, BOTH};
use crate::long_calls::{seconds, SLOW_CANARY, TOOL_SLOW, TOOL_STALL};
use crate::note::Note;
use crate::observe::{Frame, Observations};
use crate::probe::{Outcome, Verdict};
use crate::Era;

/// A client stopped by the harness may cancel what is in flight as it shuts down: over HTTP, a
/// cancel this close to such an end is the shutdown's, not the host's timeout (the runner's
/// grace is 3 s).
const SHUTDOWN_GRACE_US: u64 = 3_500_000;

/// How the host let the server know it gave up on a call.
struct GaveUp {
    seq: u64,
    t_us: u64,
    /// `notifications/cancelled` (with its reason), or the response stream closed.
    how: String,
    /// Over 2026-07-28 HTTP closing the stream is the cancel; elsewhere only the notification is.
    counts_as_cancel: bool,
}

/// The first sign, in the server's journal, that the client gave up on `call`: its
/// `notifications/cancelled` for the call's id, or the call's response stream closed, in the
/// same session and not in the shutdown of a client the harness stopped.
fn gave_up(o: &Observations, call: &Frame) -> Option<GaveUp> {
    let id = call.id()?;
    // After the call's answer went out there is nothing left to give up on.
    let answered = o.answer_to(call).map_or(u64::MAX, |a| a.seq);
    // Over stdio the server is stopped with its client and journals no shutdown; over HTTP it
    // outlives the client, which may cancel as it is stopped.
    let over_http = o.transport() == Some(crate::journal::Transport::Http);
    // A stream closed once the client was gone was closed by the server stopping.
    let exited = o.notes(Note::ClientExited).map(|e| e.seq).min().unwrap_or(u64::MAX);
    let stopped = o.stopped_at_bound();
    let in_time = |seq: u64, t_us: u64| seq < answered.min(exited) && o.same_session(call.seq, seq) && (!over_http || stopped.is_none_or(|end| t_us + SHUTDOWN_GRACE_US < end));
    let cancelled = o.client_notifications("notifications/cancelled").find(|f| f.params().get("requestId") == Some(id) && in_time(f.seq, o.event(f.seq).map_or(0, |e| e.t_us)));
    let closed = o.payloads::<crate::note::AnswerStreamClosed>().find(|(e, closed)| &closed.request_id == id && e.seq > call.seq && in_time(e.seq, e.t_us)).map(|(e, _)| e);
    let modern = o.era() == Some(Era::Modern);
    let from_cancel = cancelled.map(|f| {
        let reason = f.params().get("reason").and_then(Value::as_str).map(|r| format!(" (reason {r:?})")).unwrap_or_default();
        GaveUp { seq: f.seq, t_us: o.event(f.seq).map_or(0, |e| e.t_us), how: format!("notifications/cancelled{reason}"), counts_as_cancel: true }
    });
    let from_close = closed.map(|e| GaveUp { seq: e.seq, t_us: e.t_us, how: "closed the call's response stream (its connection)".into(), counts_as_cancel: modern });
    match (from_cancel, from_close) {
        (Some(a), Some(b)) => Some(if b.seq < a.seq && b.counts_as_cancel { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The first call of `tool` the server got, or the not-reached verdict.
fn first_call<'a>(o: &'a Observations, tool: &'a str) -> Result<&'a Frame, Verdict> {
    o.tool_calls(tool).next().ok_or_else(|| Verdict::new(Outcome::NotReached, format!("{tool} was never called (the host did not offer it to its model, or the run ended before)")))
}

/// The model journal line of the model's first call of `tool`, and the result the host handed
/// back for it, if any: (call line, result line, its text).
fn model_result<'a>(o: &'a Observations, tool: &str) -> Option<(u64, Option<(u64, &'a str)>)> {
    let (call, _, _) = o.model_calls().find(|(_, name, _)| crate::host_tools::names_tool(name, tool))?;
    let result = super::results::result_of_call(o, call).map(|(seq, text, _)| (seq, text));
    Some((call, result))
}

/// [`model_result`] for the call that never answers: a host stopped at the run's bound has none,
/// since whatever it handed its model then came from its server dying with it.
fn stalled_result(o: &Observations) -> Option<(u64, Option<(u64, &str)>)> {
    model_result(o, TOOL_STALL).map(|(call, result)| (call, result.filter(|_| o.stopped_at_bound().is_none())))
}

/// A text handed to the model, for a verdict's detail: whole when short, else its last 160
/// characters (hosts wrap an error in boilerplate; the error comes last).
fn shown(text: &str) -> String {
    let count = text.chars().count();
    match count > 160 {
        true => format!("…{}", text.chars().skip(count - 160).collect::<String>()),
        false => text.to_string(),
    }
}

/// When the run ended on the server's clock: its last event, or the last note of the call that
/// never answers still pending, whichever is later (a stdio server killed with its client
/// writes nothing at the end).
fn ended_us(o: &Observations) -> u64 {
    o.payloads::<crate::note::CallPending>().map(|(e, _)| e.t_us).max().unwrap_or(0).max(o.ended_us())
}

/// Whether the run spoke the 2026-07-28 era over Streamable HTTP.
fn modern_http(o: &Observations) -> bool {
    o.era() == Some(Era::Modern) && o.transport() == Some(crate::journal::Transport::Http)
}

/// Whether the server said it sees a client close its connection while an answer is pending.
fn closed_connections_seen(o: &Observations) -> bool {
    o.payloads::<crate::note::Serving>().any(|(_, serving)| serving.closed_connections_seen == Some(true))
}

fn t_us(o: &Observations, seq: u64) -> u64 {
    o.event(seq).map_or(0, |e| e.t_us)
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[&CallTimeout, &CancelOnTimeout, &ProgressKeepalive];

probe! {
    /// Evidence: the host gives up on `probe_never_answers`, which never answers: the server gets
    /// `notifications/cancelled` for the call's id, or (over HTTP) the call's response stream is
    /// closed before the run ends, or the model is handed a result for the call. The detail says
    /// after how long, measured on the server's clock from the call: the host's effective tool
    /// timeout. Not reached when the call was still waiting when the run ended (its bound is 45 s;
    /// where a host's timeout can be configured, its profile sets 5 s for this variant): a
    /// bounded run cannot show that a host never gives up. No when the host never told its model
    /// anything of the call, yet ended its run on its own. A cancel in the shutdown of a host the
    /// harness stopped does not count.
    CallTimeout {
        id: "utilities.call_timeout", area: Utilities, title: "gives up on a call that never answers",
        revisions: ["2024-11-05"], eras: BOTH, variant: LongCalls, serves: "probe_never_answers never answers",
        judge: judge_call_timeout, needs_model: true, server_evidence: true,
    }
}

fn judge_call_timeout(o: &Observations) -> Verdict {
    let call = match first_call(o, TOOL_STALL) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    let started = t_us(o, call.seq);
    if let Some(up) = gave_up(o, call) {
        return Verdict::new(Outcome::Yes, format!("gave up after {}: {}", seconds(up.t_us.saturating_sub(started)), up.how)).evidence([call.seq, up.seq]);
    }
    if let Some((model_call, Some((seq, text)))) = stalled_result(o) {
        return Verdict::new(Outcome::Yes, format!("gave up: the model was handed {:?}; the server was never told", shown(text)))
            .evidence([call.seq])
            .opportunity_model([model_call, seq]);
    }
    let waited = seconds(ended_us(o).saturating_sub(started));
    let ended_itself = o.notes(Note::ClientExited).next().is_some() && o.stopped_at_bound().is_none();
    if ended_itself {
        return Verdict::new(Outcome::No, format!("the host ended its run {waited} after the call with the call still pending: neither the server nor the model was told of it"))
            .evidence([call.seq])
            .opportunity([call.seq]);
    }
    // A bounded run cannot show that a host waits for ever: its timeout may be longer.
    Verdict::new(Outcome::NotReached, format!("still waiting when the run ended, {waited} after the call: no timeout within the run (the host's, if any, is longer)"))
        .evidence([call.seq])
}

probe! {
    /// Evidence: when the host gives up on `probe_never_answers`, it tells the server:
    /// `notifications/cancelled` with the call's `requestId` (stdio and legacy HTTP), or over
    /// 2026-07-28 HTTP closing the call's response stream (in this variant the server sees a
    /// client close its connection at once, before any answer began). Partial when it only
    /// closed the stream in the legacy era (there a disconnection is not a cancel); no when the
    /// model was handed a result for the call and the server heard nothing. Not reached when the
    /// host never gave up within the run, and over 2026-07-28 HTTP in a journal whose server did
    /// not yet see closed connections at once (it saw them only when it wrote, and the call
    /// never writes).
    CancelOnTimeout {
        id: "utilities.cancel_on_timeout", area: Utilities, title: "a call given up on is cancelled at the server",
        revisions: ["2024-11-05", "2026-07-28"], eras: BOTH, variant: LongCalls, serves: "probe_never_answers never answers",
        judge: judge_cancel_on_timeout, needs_model: true, server_evidence: true,
    }
}

fn judge_cancel_on_timeout(o: &Observations) -> Verdict {
    let call = match first_call(o, TOOL_STALL) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    let started = t_us(o, call.seq);
    match (gave_up(o, call), stalled_result(o)) {
        (Some(up), _) if up.counts_as_cancel => Verdict::new(Outcome::Yes, format!("{} after {}", up.how, seconds(up.t_us.saturating_sub(started)))).evidence([call.seq, up.seq]),
        (Some(up), _) => Verdict::new(
            Outcome::Partial,
            format!("{} after {}, without notifications/cancelled: in the legacy era a disconnection is no cancel", up.how, seconds(up.t_us.saturating_sub(started))),
        )
        .evidence([call.seq, up.seq])
        .opportunity([call.seq]),
        // Over 2026-07-28 HTTP the cancel is closing the call's response stream: a server that
        // sees a closed connection only when it writes (journals made before it saw them at
        // once) cannot see that on a call that never writes.
        (None, Some((model_call, Some((seq, text))))) if modern_http(o) && !closed_connections_seen(o) => Verdict::new(
            Outcome::NotReached,
            format!("the model was handed {:?} for the call; over 2026-07-28 HTTP the cancel is closing the call's response stream, which this server could not see on a stream it never wrote to", shown(text)),
        )
        .evidence([call.seq])
        .opportunity_model([model_call, seq]),
        (None, Some((model_call, Some((seq, text))))) => Verdict::new(Outcome::No, format!("the model was handed {:?} for the call, and the server was never told", shown(text)))
            .evidence([call.seq])
            .opportunity([call.seq])
            .opportunity_model([model_call, seq]),
        (None, _) => Verdict::new(
            Outcome::NotReached,
            format!("the host never gave up on the call within the run ({} after it): no timeout, so nothing to cancel", seconds(ended_us(o).saturating_sub(started))),
        )
        .evidence([call.seq]),
    }
}

probe! {
    /// Evidence: `probe_slow_progress` runs longer than the host's effective timeout (measured on
    /// `probe_never_answers` in the same run) and sends progress for the call's `progressToken`
    /// throughout: yes when its answer reached the model (its canary in a tool result) without
    /// the host giving up on it; no when the host gave up on it (cancelled it, or handed the model
    /// something else for it) although progress kept coming (or, with no `progressToken` on the
    /// call, could not be sent). Not reached when the host
    /// never timed out a call within the run, or its timeout is longer than the slow call.
    ProgressKeepalive {
        id: "utilities.progress_keepalive", area: Utilities, title: "progress keeps a long call alive past the timeout",
        revisions: ["2024-11-05"], eras: BOTH, variant: LongCalls, serves: "probe_slow_progress reports progress while it runs past the timeout",
        judge: judge_progress_keepalive, needs_model: true, server_evidence: true,
    }
}

fn judge_progress_keepalive(o: &Observations) -> Verdict {
    let slow = match first_call(o, TOOL_SLOW) {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    let token = slow.meta("progressToken").cloned();
    let up = gave_up(o, slow);
    // Progress for this call: after it, before its answer or the host gave up on it.
    let until = up.as_ref().map(|u| u.seq).or(o.answer_to(slow).map(|a| a.seq)).unwrap_or(u64::MAX);
    let progress: Vec<u64> = o
        .server_notifications("notifications/progress")
        .filter(|f| token.is_some() && f.params().get("progressToken") == token.as_ref() && f.seq > slow.seq && f.seq < until)
        .map(|f| f.seq)
        .collect();
    let sent = match (&token, progress.len()) {
        (None, _) => "the call carried no progressToken, so no progress could be sent".to_string(),
        (Some(_), n) => format!("{n} progress notification(s) sent for its token"),
    };
    let slow_started = t_us(o, slow.seq);
    if let Some(up) = up {
        let after = seconds(up.t_us.saturating_sub(slow_started));
        return Verdict::new(Outcome::No, format!("gave up on the slow call after {after} ({}); {sent}", up.how)).evidence([slow.seq, up.seq]).opportunity([slow.seq]);
    }
    let handed = model_result(o, TOOL_SLOW);
    if let Some((model_call, Some((seq, text)))) = handed.filter(|(_, result)| result.is_some_and(|(_, text)| !text.contains(SLOW_CANARY))) {
        return Verdict::new(Outcome::No, format!("gave up on the slow call without telling the server: the model was handed {:?}; {sent}", shown(text)))
            .evidence([slow.seq])
            .opportunity_model([model_call, seq])
            .opportunity([slow.seq]);
    }
    let answered = o.answer_to(slow).filter(|a| a.result().is_some());
    let reached = handed.and_then(|(call, result)| result.map(|(seq, _)| (call, seq)));
    let (Some(answer), Some((model_call, model_seq))) = (answered, reached) else {
        let what = if answered.is_none() { "the server never answered the slow call within the run" } else { "its answer never reached the model" };
        return Verdict::new(Outcome::NotReached, format!("{what}; {sent}")).evidence([slow.seq]);
    };
    let lasted = t_us(o, answer.seq).saturating_sub(slow_started);
    // The host's timeout, from the call that never answers.
    let timeout = first_call(o, TOOL_STALL).ok().and_then(|stall| gave_up(o, stall).map(|up| up.t_us.saturating_sub(t_us(o, stall.seq))));
    match timeout {
        Some(timeout) if timeout < lasted => {
            Verdict::new(Outcome::Yes, format!("the slow call ran {} and reached the model, past the host's timeout of about {}; {sent}", seconds(lasted), seconds(timeout)))
                .evidence(std::iter::once(slow.seq).chain(progress.iter().copied()).chain([answer.seq]))
                .opportunity_model([model_call, model_seq])
        }
        Some(timeout) => Verdict::new(
            Outcome::NotReached,
            format!("the host's timeout (about {}) is longer than the slow call ({}): progress was not needed", seconds(timeout), seconds(lasted)),
        )
        .evidence([slow.seq, answer.seq]),
        None => {
            Verdict::new(Outcome::NotReached, format!("the slow call came whole after {}, but the host timed out no call within the run: progress was not needed", seconds(lasted)))
                .evidence([slow.seq, answer.seq])
        }
    }
}
