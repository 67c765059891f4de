//! The ordered list of probes. Its order is the matrix's row order.

use crate::era::Era;
use crate::observe::Observations;
use crate::probe::{Outcome, Probe, Verdict};
use crate::probes::{
    affordances, apps, auth, connection, elicitation, http, interactive, long_calls, prompts, resources, results, sampling_roots, schema_keywords, schemas, skills, stateless,
    subscriptions, tasks, tools, utilities,
};
use crate::variant::Variant;

static REGISTRY: &[&dyn Probe] = &[
    &connection::Initialized,
    &connection::ClientInfo,
    &connection::ClientTitle,
    &connection::VersionDowngrade,
    &connection::DiscoverFallback,
    &connection::DiscoverFallbackAnyError,
    &connection::DiscoverHttpErrorFallback,
    &connection::DiscoverTimeoutFallback,
    &connection::UnsupportedVersionRetry,
    &connection::ResultTypeDefault,
    &connection::RequestMeta,
    &connection::Instructions,
    &connection::ClientFramesValid,
    &tools::ToolsList,
    &tools::ToolsPagination,
    &tools::ToolsListChanged,
    &tools::NameDots,
    &tools::NameDashes,
    &tools::Name128Chars,
    &results::SessionSurvivesRpcError,
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
    &subscriptions::RespectsCapability,
    &subscriptions::FailureBackoff,
    &skills::List,
    &skills::Pagination,
    &skills::Get,
    &skills::GetUnlisted,
    &skills::ReadFiles,
    &skills::NoPrefetch,
    &skills::DirectoryRead,
    &skills::DirectoryUndeclared,
    &skills::DirectoryManifestOnly,
    &skills::VerifyDigest,
    &skills::VerifySize,
    &skills::VerifyFrontmatter,
    &skills::UnlistedFile,
    &skills::PathEscape,
    &skills::ManifestLimits,
    &skills::NameMismatch,
    &skills::SameName,
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
    &elicitation::UrlNotPrefetched,
    &elicitation::MrtrRetry,
    &elicitation::MrtrMultipleInputs,
    &interactive::FormShown,
    &interactive::DefaultsPrefilled,
    &interactive::AcceptTyped,
    &interactive::Decline,
    &interactive::Cancel,
    &interactive::RequiredEnforced,
    &interactive::FormatEnforced,
    &interactive::BoundsEnforced,
    &interactive::EnumUntitledSingle,
    &interactive::EnumTitledSingle,
    &interactive::EnumUntitledMulti,
    &interactive::EnumTitledMulti,
    &interactive::EnumLegacyNames,
    &interactive::UrlShown,
    &interactive::UrlNotOpenedUnasked,
    &interactive::FormWithdrawn,
    &sampling_roots::CreateMessage,
    &sampling_roots::SamplingModelPreferences,
    &sampling_roots::SamplingTools,
    &sampling_roots::SamplingSystemPrompt,
    &sampling_roots::SamplingMaxTokens,
    &sampling_roots::RootsList,
    &utilities::ProgressToken,
    &utilities::SetLevel,
    &utilities::Ping,
    &utilities::UnknownRequestAnswered,
    &utilities::UnknownNotificationTolerated,
    &long_calls::CallTimeout,
    &long_calls::CancelOnTimeout,
    &long_calls::ProgressKeepalive,
    &http::PostAccept,
    &http::ProtocolVersionHeader,
    &http::GetStream,
    &http::DeleteOnExit,
    &http::SessionIdEchoed,
    &http::StandardHeaders,
    &http::SessionExpiry,
    &http::Resumption,
    &http::PrimingEvents,
    &http::JsonResponses,
    &stateless::StatelessToolsListed,
    &stateless::StatelessToolCalled,
    &stateless::StatelessNoSessionId,
    &stateless::StatelessGetRefused,
    &stateless::StatelessVersionHeader,
    &stateless::StatelessSse,
    &affordances::ReadTool,
    &affordances::ListTool,
    &affordances::TemplateListTool,
    &affordances::ServerParam,
    &affordances::ReadReachesServer,
    &affordances::TextToModel,
    &affordances::BlobToModel,
    &affordances::TemplateRead,
    &affordances::ToolNames,
    &affordances::ToolSchemas,
    &affordances::ToolDescriptions,
    &schemas::SchemaRefsResolvable,
    &schemas::SchemaUnionKept,
    &schemas::SchemaFormatKept,
    &schemas::SchemaNestedKept,
    &schemas::SchemaArgumentsIntact,
    &schema_keywords::SchemaClosedKept,
    &schema_keywords::SchemaOneOfKept,
    &schema_keywords::SchemaTupleKept,
    &schema_keywords::SchemaConstKept,
    &schema_keywords::SchemaPatternKept,
    &schema_keywords::SchemaEnumKept,
    &schema_keywords::SchemaRemoteRefNotFetched,
    &affordances::StructuredContent,
    &results::ImageToModel,
    &results::AudioToModel,
    &results::EmbeddedResourceToModel,
    &results::IsErrorToModel,
    &results::AudienceUserWithheld,
    &results::AudienceAssistantDelivered,
    &results::ImageBesideStructured,
    &results::RpcErrorToModel,
    &results::ResourceNotFoundToModel,
    &results::OutputSchemaEnforced,
    &results::ResultSizeLimit,
    &affordances::ResourcesGated,
    &apps::UiToolTextToModel,
    &apps::AppOnlyToolHidden,
    &apps::UiResourceRead,
    &apps::ViewReceivesResult,
    &tasks::AugmentedCall,
    &tasks::Followed,
    &tasks::PollInterval,
    &tasks::ResultFetched,
    &tasks::InputAnswered,
    &tasks::CancelTask,
    &tasks::ResultToModel,
    &tasks::FailedToModel,
    &tasks::TaskNameHeader,
    &auth::PrmDiscovery,
    &auth::PrmWellKnown,
    &auth::AsMetadataOrder,
    &auth::Registration,
    &auth::ClientIdDocument,
    &auth::PkceS256,
    &auth::State,
    &auth::ResourceIndicator,
    &auth::ScopeSelection,
    &auth::BearerHeader,
    &auth::StepUp,
    &auth::Refresh,
    &auth::IssValidated,
    &auth::TokenAudience,
];

/// Every probe, in matrix order.
pub fn probes() -> &'static [&'static dyn Probe] {
    REGISTRY
}

/// The probes judged on the journal of `variant`'s run.
pub fn judged_on(variant: Variant) -> impl Iterator<Item = &'static dyn Probe> {
    REGISTRY.iter().copied().filter(move |p| p.variant() == variant)
}

pub fn find(id: &str) -> Option<&'static dyn Probe> {
    REGISTRY.iter().copied().find(|p| p.id() == id)
}

/// Judges one run with every probe. Probes judged on another server variant say not-reached.
pub fn judge_all(observations: &Observations) -> Vec<Verdict> {
    judge_runs(&[(observations.variant(), observations)])
}

/// Judges the runs of one client over one transport, one run per server variant (named by the
/// caller, who knows which variant it served even when the journal stayed empty): each probe is
/// judged on the run of its own variant. Probes that do not apply to the era the client chose,
/// or to the transport, say so.
pub fn judge_runs(runs: &[(Variant, &Observations)]) -> Vec<Verdict> {
    judge_runs_with(runs, |_| None)
}

/// Why the caller made no run against a server variant, so that the probes judged on it say so
/// in their own verdicts.
#[derive(Debug, Clone)]
pub enum Absence {
    /// The variant is not part of this pass: every probe judged on it gets this outcome and detail.
    NotInPass(Outcome, String),
    /// The variant could not be run for this client: where the probe would say its run is
    /// missing, it says this instead (probes that are n/a anyway stay n/a).
    CannotRun(String),
}

/// As [`judge_runs`], with the caller's reason for each variant it did not run.
pub fn judge_runs_with(runs: &[(Variant, &Observations)], absence: impl Fn(Variant) -> Option<Absence>) -> Vec<Verdict> {
    let transport = runs.iter().find_map(|(_, o)| o.transport());
    let era = runs.iter().find_map(|(_, o)| o.era());
    let verdicts: Vec<Verdict> = REGISTRY
        .iter()
        .map(|probe| {
            let run = runs.iter().find(|(s, _)| *s == probe.variant()).map(|(_, o)| *o);
            let absent = run.is_none().then(|| absence(probe.variant())).flatten();
            let no_run = || match &absent {
                Some(Absence::CannotRun(why)) => Verdict::new(Outcome::NotReached, why.clone()),
                _ => Verdict::new(Outcome::NotReached, no_run_detail(probe.variant())),
            };
            let mut verdict = match (&absent, run) {
                (Some(Absence::NotInPass(outcome, why)), _) => Verdict::new(*outcome, why.clone()),
                _ if era.is_none() => Verdict::new(Outcome::NotReached, NO_SESSION),
                _ if transport.is_some_and(|t| !probe.transports().contains(&t)) => Verdict::new(Outcome::NotApplicable, "not observable over this transport"),
                (_, Some(observations)) => judge_probe(*probe, observations),
                (_, None) => era.and_then(|era| outside_era(*probe, era)).unwrap_or_else(no_run),
            };
            verdict.probe = probe.id().to_string();
            verdict.variant = probe.variant();
            verdict.model_evidence = probe.evidence_in_model();
            verdict
        })
        .collect();
    apply_preconditions(verdicts)
}

/// A verdict whose precondition probe says no means nothing: it becomes n/a, citing why. A
/// precondition without a verdict of its own (its variant was not run) changes nothing.
fn apply_preconditions(mut verdicts: Vec<Verdict>) -> Vec<Verdict> {
    let outcomes: Vec<(String, Outcome, String)> = verdicts.iter().map(|v| (v.probe.clone(), v.outcome, v.detail.clone())).collect();
    for (verdict, probe) in verdicts.iter_mut().zip(REGISTRY) {
        let Some(precondition) = probe.precondition() else { continue };
        let Some((_, outcome, detail)) = outcomes.iter().find(|(id, _, _)| id == precondition) else { continue };
        if *outcome == Outcome::No && !matches!(verdict.outcome, Outcome::NotApplicable | Outcome::NotReached) {
            let why = format!("means nothing here: {precondition} says no ({detail})");
            *verdict =
                Verdict { outcome: Outcome::NotApplicable, detail: why, evidence: Vec::new(), opportunity: Box::default(), opportunity_model: Box::default(), ..verdict.clone() };
        }
    }
    verdicts
}

/// The detail of a probe whose server variant was not run at all.
fn no_run_detail(variant: Variant) -> String {
    format!("judged on a run against the {variant} server variant, and there was none")
}

const NO_SESSION: &str = "the client never opened an MCP session with the probe server";

/// The n/a verdict of a probe that does not exist in `era`.
fn outside_era(probe: &dyn Probe, era: Era) -> Option<Verdict> {
    (!probe.eras().contains(&era)).then(|| Verdict::new(Outcome::NotApplicable, format!("does not exist in the {} era", era_name(era))))
}

fn judge_probe(probe: &dyn Probe, observations: &Observations) -> Verdict {
    let Some(era) = observations.era() else { return Verdict::new(Outcome::NotReached, NO_SESSION) };
    if let Some(verdict) = outside_era(probe, era) {
        return verdict;
    }
    if probe.needs_model() && observations.model_views().next().is_none() {
        return Verdict::new(Outcome::NotReached, "no model transcript: the client has no model, or never asked it");
    }
    probe.judge(observations)
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
