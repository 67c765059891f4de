//! The ordered list of probes. Its order is the matrix's row order.

use crate::era::Era;
use crate::observe::Observations;
use crate::probe::{Outcome, Probe, Verdict};
use crate::probes::{connection, elicitation, http, prompts, resources, sampling_roots, subscriptions, tools, utilities};

static REGISTRY: &[&dyn Probe] = &[
    &connection::Initialized,
    &connection::ClientInfo,
    &connection::VersionDowngrade,
    &connection::RequestMeta,
    &connection::Instructions,
    &tools::ToolsList,
    &tools::ToolsPagination,
    &tools::ToolsListChanged,
    &resources::ResourcesList,
    &resources::ResourcesPagination,
    &resources::ReadText,
    &resources::ReadBlob,
    &resources::TemplatesList,
    &resources::TemplateRead,
    &resources::LinkFollowed,
    &resources::ResourcesListChanged,
    &subscriptions::Subscribe,
    &subscriptions::Reread,
    &subscriptions::Unsubscribe,
    &subscriptions::Listen,
    &subscriptions::ListenReopen,
    &prompts::PromptsList,
    &prompts::PromptsGet,
    &prompts::PromptsListChanged,
    &elicitation::Form,
    &elicitation::EnumUntitledSingle,
    &elicitation::EnumTitledSingle,
    &elicitation::EnumUntitledMulti,
    &elicitation::EnumTitledMulti,
    &elicitation::EnumLegacyNames,
    &elicitation::Url,
    &elicitation::MrtrRetry,
    &sampling_roots::CreateMessage,
    &sampling_roots::SamplingTools,
    &sampling_roots::RootsList,
    &utilities::ProgressToken,
    &utilities::SetLevel,
    &utilities::Ping,
    &http::ProtocolVersionHeader,
    &http::GetStream,
    &http::DeleteOnExit,
];

/// Every probe, in matrix order.
pub fn probes() -> &'static [&'static dyn Probe] {
    REGISTRY
}

pub fn find(id: &str) -> Option<&'static dyn Probe> {
    REGISTRY.iter().copied().find(|p| p.id() == id)
}

/// Judges one run with every probe. Probes that do not apply to the era the client chose say so.
pub fn judge_all(observations: &Observations) -> Vec<Verdict> {
    let era = observations.era();
    let transport = observations.transport();
    if era.is_none() {
        return REGISTRY
            .iter()
            .map(|probe| {
                let mut verdict = Verdict::new(Outcome::NotReached, "the client never opened an MCP session with the probe server");
                verdict.probe = probe.id().to_string();
                verdict
            })
            .collect();
    }
    REGISTRY
        .iter()
        .map(|probe| {
            let mut verdict = match era {
                Some(era) if !probe.eras().contains(&era) => Verdict::new(Outcome::NotApplicable, format!("does not exist in the {} era", era_name(era))),
                _ if transport.is_some_and(|t| !probe.transports().contains(&t)) => Verdict::new(Outcome::NotApplicable, "not observable over this transport"),
                _ => probe.judge(observations),
            };
            verdict.probe = probe.id().to_string();
            verdict
        })
        .collect()
}

fn era_name(era: Era) -> &'static str {
    match era {
        Era::Legacy => "legacy (initialize)",
        Era::Modern => "2026-07-28",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn probe_ids_are_unique_and_name_their_area() {
        let mut seen = HashSet::new();
        for probe in probes() {
            assert!(seen.insert(probe.id()), "duplicate id {}", probe.id());
            let prefix = probe.id().split('.').next().unwrap();
            assert!(!probe.eras().is_empty() && !probe.revisions().is_empty() && !prefix.is_empty());
        }
        assert!(probes().len() >= 30);
    }

    #[test]
    fn areas_appear_in_contiguous_blocks() {
        let areas: Vec<_> = probes().iter().map(|p| p.area()).collect();
        let mut sorted = areas.clone();
        sorted.sort();
        assert_eq!(areas, sorted, "registry order must follow area order");
    }
}
