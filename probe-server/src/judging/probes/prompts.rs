//! Prompt probes.

use serde_json::Value;

use super::opportunity::{self, chance};
use super::{listed_before_use, probe, refetched, BOTH};
use crate::host_tools::HostTool;
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};
use crate::surface;

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[&PromptsList, &PromptsGet, &ArgumentCompletion, &CompletionUnadvertisedNotAsked, &PromptsListChanged];

probe! {
    /// Evidence: a `prompts/list` before the client's first `prompts/get`. Listing only after
    /// fetching is partial.
    PromptsList {
        id: "prompts.list", area: Prompts, title: "prompts listed",
        revisions: ["2024-11-05"], eras: BOTH, serves: "prompts capability with one prompt",
        judge: |o| listed_before_use(o, "prompts/list", "prompts/get", "listed prompts", &[HostTool::PromptList]),
    }
}

probe! {
    /// Evidence: `prompts/get` for the served prompt with its required argument filled in.
    /// Fetched without the argument is partial.
    PromptsGet {
        id: "prompts.get", area: Prompts, title: "prompt fetched with arguments",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_prompt with a required argument `topic`",
        judge: judge_get,
    }
}

fn judge_get(o: &Observations) -> Verdict {
    let gets: Vec<_> = o.client_requests("prompts/get").filter(|f| f.params().get("name").and_then(Value::as_str) == Some(surface::PROMPT)).collect();
    let Some(first) = gets.first() else {
        let chance = chance!(opportunity::session_and_tools(o, &[HostTool::PromptList, HostTool::PromptGet]));
        return chance.cite(Verdict::new(Outcome::No, "never fetched the prompt"));
    };
    let with_arg = gets.iter().find(|f| f.params().pointer(&format!("/arguments/{}", surface::PROMPT_ARGUMENT)).and_then(Value::as_str).is_some());
    match with_arg {
        Some(f) => Verdict::new(Outcome::Yes, "fetched with its argument").evidence([f.seq]),
        None => Verdict::new(Outcome::Partial, "fetched without its required argument").evidence([first.seq]).opportunity([first.seq]),
    }
}

probe! {
    /// Evidence: a `completion/complete` whose `ref/prompt` names the served prompt and whose
    /// argument is its `topic`: the client asks the server to complete what is typed there. One
    /// for another argument of the prompt is partial; none, after listing the prompt, is no for a
    /// client that could have typed and not-reached for a run nobody sat at.
    ArgumentCompletion {
        id: "prompts.argument_completion", area: Prompts, title: "the prompt's argument completed by the server",
        revisions: ["2024-11-05"], eras: BOTH, serves: "completions capability; completion/complete offers values for probe_prompt's topic",
        judge: |o| super::completion_asked(o, &super::Completable {
            reference: ("ref/prompt", "name", surface::PROMPT),
            argument: surface::PROMPT_ARGUMENT,
            listed_by: "prompts/list",
            what: "the prompt's argument",
        }),
    }
}

probe! {
    /// Evidence (HTTP, variant stateless: a server that declares tools only): no
    /// `completion/complete` to it: yes. One is no (a server that offers completion declares
    /// `completions`, 2025-03-26 and later; before that no server could say, so it is asked of
    /// none here either).
    CompletionUnadvertisedNotAsked {
        id: "prompts.completion_unadvertised_not_asked", area: Prompts, title: "no completion/complete to a server that does not declare completions",
        revisions: ["2025-03-26"], eras: BOTH, transports: super::HTTP_ONLY, variant: Stateless,
        serves: "declares tools only (no completions)",
        judge: |o| super::none_asked(o, "completion/complete", |f| f.method() == Some("completion/complete"), "a server that does not declare completions"),
    }
}

probe! {
    /// Evidence: after the server sends `notifications/prompts/list_changed`, a new `prompts/list`.
    PromptsListChanged {
        id: "prompts.list_changed", area: Prompts, title: "prompts refetched on list_changed",
        revisions: ["2024-11-05", "2026-07-28"], eras: BOTH, serves: "prompts.listChanged; probe_list_changed adds a prompt and notifies (through subscriptions/listen in 2026-07-28)",
        judge: |o| refetched(o, "notifications/prompts/list_changed", "prompts/list", Some(HostTool::PromptList)),
    }
}
