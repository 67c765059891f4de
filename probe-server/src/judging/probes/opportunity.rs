//! Opportunity: what the harness must have done before a no, partial or declared-only can be the
//! client's doing. Each check hands back the journal lines that show the step happened, or the
//! not-reached verdict that names the missing step. Judges cite the lines beside their evidence.

use serde_json::Value;

use crate::host_tools::{self, HostTool};
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};

/// How long, at least, the model stub holds back its reply after a trigger (`probe_list_changed`)
/// so that the host can refetch before its next model turn. The stub's journal records it.
/// Every real client gets this settle; the self-test's reference host, which refetches as the
/// notification arrives, gets a shorter one, and its stub journals that as its [`SETTLE_KEY`].
pub const SETTLE_MS: u64 = 1_000;

/// The key of the stub's reply detail that says how long (ms) the reply was held back.
pub const HELD_BACK_KEY: &str = "held_back_ms";

/// The key of the stub's reply detail, beside a settled turn, that says how long (ms) the
/// harness meant that run's settled turns to last; a journal without it was meant [`SETTLE_MS`].
pub const SETTLE_KEY: &str = "settle_ms";

/// Journal lines that show the client had its chance: in the server's journal and in the model
/// stub's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chance {
    pub server: Vec<u64>,
    pub model: Vec<u64>,
}

impl Chance {
    /// Adds the lines to a verdict judged on the server's journal.
    pub fn cite(&self, verdict: Verdict) -> Verdict {
        verdict.opportunity(self.server.iter().copied()).opportunity_model(self.model.iter().copied())
    }

    pub fn and(mut self, other: Chance) -> Chance {
        self.server.extend(other.server);
        self.model.extend(other.model);
        self
    }
}

/// The session opened: the client's opening request (`initialize`, or the first 2026-07-28
/// request) was answered, so the server had advertised everything it serves.
pub fn session(o: &Observations) -> Result<Chance, Verdict> {
    let Some(lifecycle) = o.lifecycle() else {
        return Err(Verdict::new(Outcome::NotReached, "the client never opened a session"));
    };
    let opener = o.frames.iter().find(|f| f.seq == lifecycle.opener);
    let answer = opener.and_then(|f| o.answer_to(f)).filter(|a| a.result().is_some());
    match answer {
        Some(answer) => Ok(Chance { server: vec![lifecycle.opener, answer.seq], model: Vec::new() }),
        None => Err(Verdict::new(Outcome::NotReached, "the server never answered the client's opening request").evidence([lifecycle.opener])),
    }
}

/// For a host with a model: the model called every host tool of `kinds` that the host offered
/// (the stub reaches MCP only through them). Without a model journal there is nothing to check.
pub fn host_tools_called(o: &Observations, kinds: &[HostTool]) -> Result<Chance, Verdict> {
    let mut chance = Chance::default();
    if o.model().is_empty() {
        return Ok(chance);
    }
    for (seq, tool) in o.offered_tools() {
        if !kinds.contains(&host_tools::classify_entry(tool)) {
            continue;
        }
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        match o.model_calls().find(|(_, called, _)| *called == name) {
            Some((call, _, _)) => chance.model.extend([seq, call]),
            None => return Err(Verdict::new(Outcome::NotReached, format!("the model never called {name}, which the host offered: the script has no step for it"))),
        }
    }
    Ok(chance)
}

/// For a host with a model that offered a host tool of `kind`: its model called that tool after
/// its call of the probe tool `trigger` (a host may list afresh only when its model asks). Nothing
/// to check without a model, without such a tool, or before the trigger was called.
pub fn host_tool_called_after(o: &Observations, kind: HostTool, trigger: &str) -> Result<Chance, Verdict> {
    let Some(triggered) = o.model_calls().find(|(_, name, _)| host_tools::names_tool(name, trigger)).map(|(seq, _, _)| seq) else {
        return Ok(Chance::default());
    };
    let Some((offered, name)) =
        o.offered_tools().into_iter().find(|(_, tool)| host_tools::classify_entry(tool) == kind).and_then(|(seq, tool)| Some((seq, tool.get("name")?.as_str()?)))
    else {
        return Ok(Chance::default());
    };
    match o.model_calls().find(|(seq, called, _)| *seq > triggered && called == name) {
        Some((call, _, _)) => Ok(Chance { server: Vec::new(), model: vec![offered, call] }),
        None => Err(Verdict::new(
            Outcome::NotReached,
            format!("the model never called {name} again after {trigger}: the host may list afresh only when asked, and the script did not ask"),
        )),
    }
}

/// The session opened and, for a host with a model, every host tool of `kinds` was called.
pub fn session_and_tools(o: &Observations, kinds: &[HostTool]) -> Result<Chance, Verdict> {
    Ok(session(o)?.and(host_tools_called(o, kinds)?))
}

/// The probe tool `tool` reached the server (the trigger of what a probe looks at).
pub fn tool_called(o: &Observations, tool: &str) -> Result<Chance, Verdict> {
    match o.tool_calls(tool).next() {
        Some(call) => Ok(Chance { server: vec![call.seq], model: Vec::new() }),
        None => Err(Verdict::new(Outcome::NotReached, format!("{tool} was never called: the trigger did not reach the server"))),
    }
}

/// For a host with a model: after the trigger, the stub held back a reply for at least the
/// run's settle ([`SETTLE_MS`], or the [`SETTLE_KEY`] the stub journalled beside it), so the host
/// had a quiet time to refetch and one more model turn. A client without a model runs its own
/// script and leaves when it chooses: nothing to check.
pub fn settled_turn(o: &Observations) -> Result<Chance, Verdict> {
    if o.model().is_empty() {
        return Ok(Chance::default());
    }
    let settled = |d: &Value| {
        let meant = d.get(SETTLE_KEY).and_then(Value::as_u64).unwrap_or(SETTLE_MS);
        d.get(HELD_BACK_KEY).and_then(Value::as_u64).is_some_and(|ms| ms >= meant)
    };
    match o.model().iter().find(|e| e.detail.as_ref().is_some_and(settled)) {
        Some(event) => Ok(Chance { server: Vec::new(), model: vec![event.seq] }),
        None => Err(Verdict::new(Outcome::NotReached, format!("the host's model had no settled turn ({SETTLE_MS} ms) after the trigger"))),
    }
}

/// Unwraps a chance or returns its not-reached verdict from the judge.
macro_rules! chance {
    ($check:expr) => {
        match $check {
            Ok(chance) => chance,
            Err(verdict) => return verdict,
        }
    };
}
pub(crate) use chance;
