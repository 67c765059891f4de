//! Sampling and roots: the server asks the client (a request in the legacy era, an MRTR input
//! in the modern era) and judges the answer's shape.

use serde_json::Value;

use super::opportunity::{self, chance};
use super::{answered, exchange_evidence, probe, BOTH};
use crate::host_tools::names_tool;
use crate::note::ModelView;
use crate::observe::Observations;
use crate::probe::{Declaration, Outcome, Verdict};
use crate::surface;

fn asked(o: &Observations, tool: &str, method: &str, declared: Declaration) -> Result<(Value, Vec<u64>), Verdict> {
    answered(o.exchange(tool, method), &declared).map(|(result, exchange)| (result, exchange_evidence(&exchange)))
}

fn blocks(content: &Value) -> Vec<&Value> {
    match content {
        Value::Array(items) => items.iter().collect(),
        Value::Null => Vec::new(),
        single => vec![single],
    }
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] =
    &[&CreateMessage, &SamplingModelPreferences, &SamplingIncludeContext, &SamplingTools, &SamplingSystemPrompt, &SamplingMaxTokens, &RootsList];

probe! {
    /// Evidence: `sampling/createMessage` answered with `role: assistant`, content and a model name.
    CreateMessage {
        id: "sampling.create_message", area: Sampling, title: "sampling/createMessage answered",
        revisions: ["2024-11-05", "2026-07-28"], eras: BOTH, serves: "probe_sampling asks for a completion",
        judge: judge_create_message,
    }
}

fn judge_create_message(o: &Observations) -> Verdict {
    judge_completion(o, surface::TOOL_SAMPLING, None)
}

/// Judges the answer to the plain sampling request `tool` asks: `role: assistant`, content and a
/// model name is yes (the detail names the model, and says so where it is the name `hint`ed);
/// anything short of that, an error or no answer is no.
fn judge_completion(o: &Observations, tool: &str, hint: Option<&str>) -> Verdict {
    let declared = Declaration::from_bool(o.declares(&["sampling"]));
    let (result, evidence) = match asked(o, tool, "sampling/createMessage", declared.clone()) {
        Ok(ok) => ok,
        Err(v) => return v,
    };
    let role_ok = result.get("role").and_then(Value::as_str) == Some("assistant");
    let has_content = !blocks(result.get("content").unwrap_or(&Value::Null)).is_empty();
    let model = result.get("model").and_then(Value::as_str).unwrap_or("");
    let verdict = if role_ok && has_content && !model.is_empty() {
        let hinted = if hint == Some(model) { ", the hinted name" } else { "" };
        Verdict::new(Outcome::Yes, format!("answered by model {model:?}{hinted}"))
    } else {
        Verdict::new(Outcome::No, "answer lacks role assistant, content or model")
    };
    verdict.declared(declared).opportunity(evidence.first().copied()).evidence(evidence)
}

probe! {
    /// Evidence: a plain sampling request whose `modelPreferences` carries a name hint and the
    /// three priorities is answered like `probe_sampling`'s plain one: `role: assistant`, content
    /// and a model name (yes). The preferences are advisory (`CreateMessageRequest.modelPreferences`:
    /// the client may ignore them), so refusing the request or leaving it unanswered is no.
    SamplingModelPreferences {
        id: "sampling.model_preferences", area: Sampling, title: "a sampling request with modelPreferences answered",
        revisions: ["2024-11-05", "2026-07-28"], eras: BOTH, serves: "probe_sampling_preferences asks with a hint and three priorities",
        judge: judge_model_preferences,
    }
}

fn judge_model_preferences(o: &Observations) -> Verdict {
    judge_completion(o, surface::TOOL_SAMPLING_PREFERENCES, Some(surface::SAMPLING_MODEL_HINT))
}

probe! {
    /// Evidence: a client that declares `sampling.context` gets `probe_sampling`'s request with
    /// `includeContext: "thisServer"`, and answers it like the plain one: `role: assistant`,
    /// content and a model name (yes); an error or an answer short of that is no. Not declared:
    /// the server asks for no context (n/a); a legacy session older than 2025-11-25 has no
    /// `sampling.context` (n/a).
    SamplingIncludeContext {
        id: "sampling.include_context", area: Sampling, title: "a sampling request with includeContext answered (sampling.context declared)",
        revisions: ["2025-11-25", "2026-07-28"], eras: BOTH, serves: "probe_sampling asks with includeContext: thisServer where sampling.context is declared",
        judge: judge_include_context,
    }
}

/// Whether the client declares `sampling.<feature>`, or the n/a of a legacy session older than
/// 2025-11-25, which has no such declaration (`what` names the feature).
fn declared_since_2025_11_25(o: &Observations, feature: &str, what: &str) -> Result<Declaration, Verdict> {
    let declared = Declaration::from_bool(o.declares(&["sampling", feature]));
    match super::negotiated_before(o, "2025-11-25") {
        Some(version) => Err(Verdict::new(Outcome::NotApplicable, format!("the session negotiated {version}; {what} exists since 2025-11-25")).declared(declared)),
        None => Ok(declared),
    }
}

fn judge_include_context(o: &Observations) -> Verdict {
    let declared = match declared_since_2025_11_25(o, "context", "sampling.context") {
        Ok(declared) => declared,
        Err(not_applicable) => return not_applicable,
    };
    if declared == Declaration::NotDeclared {
        return Verdict::new(Outcome::NotApplicable, "sampling.context not declared: the server asks for no context").declared(declared);
    }
    // The request (legacy), or the input request of the `input_required` result (2026-07-28).
    let carried = |f: &crate::observe::Frame| {
        let wanted = |params: &Value| params.get("includeContext").and_then(Value::as_str) == Some(surface::SAMPLING_INCLUDE_CONTEXT);
        let inputs = f.result().and_then(|r| r.get("inputRequests")).and_then(Value::as_object);
        wanted(f.params()) || inputs.is_some_and(|i| i.values().any(|input| input.get("params").is_some_and(wanted)))
    };
    let asked = o.exchange(surface::TOOL_SAMPLING, "sampling/createMessage").and_then(|e| o.frames.iter().find(|f| f.seq == e.asked));
    if let Some(ask) = asked.filter(|ask| !carried(ask)) {
        return Verdict::new(Outcome::Inconclusive, "the sampling request carried no includeContext").declared(declared).evidence([ask.seq]);
    }
    judge_completion(o, surface::TOOL_SAMPLING, None)
}

probe! {
    /// Evidence: with `sampling.tools` declared, a request offering a tool with
    /// `toolChoice: required` is answered with a `tool_use` block and `stopReason: toolUse`. A
    /// legacy session older than 2025-11-25 has no sampling with tools (n/a).
    SamplingTools {
        id: "sampling.tools", area: Sampling, title: "sampling with tools",
        revisions: ["2025-11-25", "2026-07-28"], eras: BOTH, serves: "probe_sampling_tools offers one tool, toolChoice required",
        judge: judge_sampling_tools,
    }
}

fn judge_sampling_tools(o: &Observations) -> Verdict {
    let declared = match declared_since_2025_11_25(o, "tools", "sampling with tools") {
        Ok(declared) => declared,
        Err(not_applicable) => return not_applicable,
    };
    if declared == Declaration::NotDeclared {
        // Opportunity: the tool was called; the server answered that the capability is missing.
        let chance = chance!(opportunity::tool_called(o, surface::TOOL_SAMPLING_TOOLS));
        return chance.cite(Verdict::new(Outcome::No, "sampling.tools not declared, so never asked").declared(declared));
    }
    let (result, evidence) = match asked(o, surface::TOOL_SAMPLING_TOOLS, "sampling/createMessage", declared.clone()) {
        Ok(ok) => ok,
        Err(v) => return v,
    };
    let uses = blocks(result.get("content").unwrap_or(&Value::Null))
        .into_iter()
        .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_use") && b.get("name").and_then(Value::as_str) == Some(surface::SAMPLING_TOOL_NAME));
    let stop = result.get("stopReason").and_then(Value::as_str) == Some("toolUse");
    // A host that forwards the request to its model: the model must have been told to call the tool.
    let forwarded = o.offered_tools().into_iter().find(|(_, t)| t.get("name").and_then(Value::as_str) == Some(surface::SAMPLING_TOOL_NAME));
    if let (false, Some((seq, _))) = (uses, forwarded) {
        if !o.model_calls().any(|(_, tool, _)| tool == surface::SAMPLING_TOOL_NAME) {
            return Verdict::new(Outcome::NotReached, format!("the host forwarded the request to its model, which never called {}", surface::SAMPLING_TOOL_NAME))
                .declared(declared)
                .opportunity_model([seq]);
        }
    }
    let verdict = match (uses, stop) {
        (true, true) => Verdict::new(Outcome::Yes, "answered with tool_use and stopReason toolUse"),
        (true, false) => Verdict::new(Outcome::Partial, "tool_use without stopReason toolUse"),
        _ => Verdict::new(Outcome::No, "the offered tool was ignored"),
    };
    verdict.declared(declared).opportunity(evidence.first().copied()).evidence(evidence)
}

/// Whether `marker` is in the context (system prompt or messages) of a `model_view`.
fn in_context(view: &ModelView, marker: &str) -> bool {
    crate::observe::mention_places(view, marker).iter().any(|p| p == "context")
}

/// Judges the sampling requests the host passed on to its model (model requests whose context
/// carries the sampling ask canary) with `judge`. None passed on: not reached when the model
/// never called a sampling tool; no otherwise (the request was answered another way, or not
/// at all), citing the model's calls as the opportunity.
fn judge_forwarded(o: &Observations, judge: fn(&[(u64, &ModelView)]) -> Verdict) -> Verdict {
    let forwarded: Vec<(u64, &ModelView)> = o.model_views().filter(|(_, v)| in_context(v, surface::SAMPLING_ASK_CANARY)).collect();
    if !forwarded.is_empty() {
        return judge(&forwarded);
    }
    let sampling_tools = [surface::TOOL_SAMPLING, surface::TOOL_SAMPLING_TOOLS, surface::TOOL_SAMPLING_PREFERENCES];
    let calls: Vec<u64> = o.model_calls().filter(|(_, tool, _)| sampling_tools.iter().any(|t| names_tool(tool, t))).map(|(seq, _, _)| seq).collect();
    if calls.is_empty() {
        return Verdict::new(Outcome::NotReached, "the model never called a sampling tool");
    }
    let asked = sampling_tools.iter().filter(|t| o.exchange(t, "sampling/createMessage").is_some()).count();
    Verdict::new(Outcome::No, format!("no sampling request reached the model (the server asked {asked} of {} times)", sampling_tools.len())).opportunity(calls)
}

probe! {
    /// Evidence (model journal): a sampling request the host passed on to its model (its context
    /// carries the request's message canary) carries the request's `systemPrompt` canary in its
    /// context too (yes). Passed on without it is no, and so is a sampling request that never
    /// reached the model (answered otherwise or not at all). The spec lets a client modify or
    /// omit the prompt (`CreateMessageRequest.systemPrompt`): this records which it does.
    SamplingSystemPrompt {
        id: "sampling.system_prompt_to_model", area: Sampling, title: "a sampling request's systemPrompt reaches the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "every sampling request carries a systemPrompt with a canary",
        judge: judge_system_prompt, needs_model: true,
    }
}

fn judge_system_prompt(o: &Observations) -> Verdict {
    judge_forwarded(o, |forwarded| match forwarded.iter().find(|(_, v)| in_context(v, surface::SAMPLING_SYSTEM_CANARY)) {
        Some((seq, _)) => Verdict::new(Outcome::Yes, "the sampling request reached the model with its systemPrompt").evidence([*seq]),
        None => {
            let seqs = forwarded.iter().map(|(seq, _)| *seq);
            Verdict::new(Outcome::No, format!("{} sampling request(s) reached the model without their systemPrompt", forwarded.len())).evidence(seqs.clone()).opportunity(seqs)
        }
    })
}

probe! {
    /// Evidence (model journal): every sampling request the host passed on to its model asks it
    /// for at most the request's `maxTokens` (32), in the dialect's own output-limit field (yes).
    /// No limit set is partial (the host may still cut the answer, unseen here); a larger limit
    /// is no: "the requested maximum number of tokens to sample" (`CreateMessageRequest.maxTokens`).
    /// A sampling request that never reached the model is no.
    SamplingMaxTokens {
        id: "sampling.max_tokens_respected", area: Sampling, title: "a sampling request's maxTokens bounds the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "every sampling request asks for at most 32 tokens",
        judge: judge_max_tokens, needs_model: true,
    }
}

fn judge_max_tokens(o: &Observations) -> Verdict {
    judge_forwarded(o, |forwarded| {
        let limit = |v: &ModelView| v.max_tokens;
        let seqs = || forwarded.iter().map(|(seq, _)| *seq);
        let most = surface::SAMPLING_MAX_TOKENS;
        if let Some((seq, over)) = forwarded.iter().find_map(|(seq, v)| limit(v).filter(|l| *l > most).map(|l| (*seq, l))) {
            return Verdict::new(Outcome::No, format!("the model was allowed {over} tokens where the request asked for at most {most}")).evidence([seq]).opportunity([seq]);
        }
        if forwarded.iter().any(|(_, v)| limit(v).is_none()) {
            return Verdict::new(Outcome::Partial, format!("a sampling request reached the model with no output limit (asked for at most {most})"))
                .evidence(seqs())
                .opportunity(seqs());
        }
        let set: Vec<String> = forwarded.iter().filter_map(|(_, v)| limit(v)).map(|l| l.to_string()).collect();
        Verdict::new(Outcome::Yes, format!("the model was asked for at most {} tokens (requested {most})", set.join(", "))).evidence(seqs())
    })
}

probe! {
    /// Evidence: `roots/list` answered with a `roots` array whose URIs are all `file://`.
    RootsList {
        id: "roots.list", area: Roots, title: "roots/list answered",
        revisions: ["2024-11-05", "2026-07-28"], eras: BOTH, serves: "probe_roots asks for the client's roots",
        judge: judge_roots,
    }
}

fn judge_roots(o: &Observations) -> Verdict {
    let declared = Declaration::from_bool(o.declares(&["roots"]));
    let (result, evidence) = match asked(o, surface::TOOL_ROOTS, "roots/list", declared.clone()) {
        Ok(ok) => ok,
        Err(v) => return v,
    };
    let Some(roots) = result.get("roots").and_then(Value::as_array) else {
        return Verdict::new(Outcome::No, "answer has no roots array").declared(declared).opportunity(evidence.first().copied()).evidence(evidence);
    };
    let bad: Vec<&str> = roots.iter().filter_map(|r| r.get("uri").and_then(Value::as_str)).filter(|u| !u.starts_with("file://")).collect();
    let verdict = if !bad.is_empty() {
        Verdict::new(Outcome::No, format!("{} root URI(s) are not file:// URIs", bad.len()))
    } else {
        Verdict::new(Outcome::Yes, format!("{} file:// root(s)", roots.len()))
    };
    verdict.declared(declared).opportunity(evidence.first().copied()).evidence(evidence)
}
