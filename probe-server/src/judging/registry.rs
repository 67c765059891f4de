//! The ordered list of probes. Its order is the matrix's row order.

use crate::era::Era;
use crate::observe::Observations;
use crate::probe::{Outcome, Probe, Verdict};
use crate::probes::{
    affordances, apps, auth, connection, elicitation, events, http, interactive, long_calls, meta_names, prompts, resources, results, sampling_roots, schema_keywords, schemas,
    skills, stateless, subscriptions, tasks, tools, utilities,
};
use crate::variant::Variant;

/// The families, each with its own list of probes (in its file, beside the probes). Where two
/// families share an area, the one named first here comes first within it.
const FAMILIES: &[&[&dyn Probe]] = &[
    connection::PROBES,
    meta_names::PROBES,
    tools::PROBES,
    results::PROBES,
    resources::PROBES,
    subscriptions::PROBES,
    skills::PROBES,
    prompts::PROBES,
    elicitation::PROBES,
    interactive::PROBES,
    sampling_roots::PROBES,
    utilities::PROBES,
    long_calls::PROBES,
    http::PROBES,
    stateless::PROBES,
    affordances::PROBES,
    schemas::PROBES,
    schema_keywords::PROBES,
    apps::PROBES,
    tasks::PROBES,
    events::PROBES,
    auth::PROBES,
];

/// Every family's probes, ordered by area (stably: within an area, in the order of [`FAMILIES`]
/// and then of each family's list).
static REGISTRY: std::sync::LazyLock<Vec<&'static dyn Probe>> = std::sync::LazyLock::new(|| {
    let mut all: Vec<&'static dyn Probe> = FAMILIES.iter().flat_map(|family| family.iter().copied()).collect();
    all.sort_by_key(|probe| probe.area());
    all
});

/// Every probe, in matrix order.
pub fn probes() -> &'static [&'static dyn Probe] {
    &REGISTRY
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

impl Absence {
    /// Where a pass of a one-era server (`eras`) does not run `variant` (the dual pass does): its
    /// probes are n/a there. `None` for the dual pass.
    pub fn outside_one_era_pass(variant: Variant, eras: crate::EraPolicy) -> Option<Absence> {
        (!eras.is_dual()).then(|| {
            let why = format!("judged against the dual server only (the {variant} variant is not run against a {})", eras.server_label());
            Absence::NotInPass(Outcome::NotApplicable, why)
        })
    }

    /// Where the standard run opened in `era` and `variant` is run only after a legacy opening
    /// ([`Variant::after_a_legacy_opening`]): a client that opened with `server/discover` is
    /// never run against it, and its probes are n/a.
    pub fn after_a_modern_opening(variant: Variant, era: Option<Era>) -> Option<Absence> {
        (variant.after_a_legacy_opening() && era == Some(Era::Modern)).then(|| {
            let why = format!("opens with server/discover: the {variant} variant (initialize refused) is run only for a client that opens with initialize");
            Absence::NotInPass(Outcome::NotApplicable, why)
        })
    }
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
    for (verdict, probe) in verdicts.iter_mut().zip(REGISTRY.iter()) {
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

    /// A probe declared in a family file but left out of its family's list would never be judged.
    #[test]
    fn every_declared_probe_is_in_its_familys_list() {
        let sources = [
            ("connection", include_str!("probes/connection.rs"), connection::PROBES),
            ("meta_names", include_str!("probes/meta_names.rs"), meta_names::PROBES),
            ("tools", include_str!("probes/tools.rs"), tools::PROBES),
            ("results", include_str!("probes/results.rs"), results::PROBES),
            ("resources", include_str!("probes/resources.rs"), resources::PROBES),
            ("subscriptions", include_str!("probes/subscriptions.rs"), subscriptions::PROBES),
            ("skills", include_str!("probes/skills.rs"), skills::PROBES),
            ("prompts", include_str!("probes/prompts.rs"), prompts::PROBES),
            ("elicitation", include_str!("probes/elicitation.rs"), elicitation::PROBES),
            ("interactive", include_str!("probes/interactive.rs"), interactive::PROBES),
            ("sampling_roots", include_str!("probes/sampling_roots.rs"), sampling_roots::PROBES),
            ("utilities", include_str!("probes/utilities.rs"), utilities::PROBES),
            ("long_calls", include_str!("probes/long_calls.rs"), long_calls::PROBES),
            ("http", include_str!("probes/http.rs"), http::PROBES),
            ("stateless", include_str!("probes/stateless.rs"), stateless::PROBES),
            ("affordances", include_str!("probes/affordances.rs"), affordances::PROBES),
            ("schemas", include_str!("probes/schemas.rs"), schemas::PROBES),
            ("schema_keywords", include_str!("probes/schema_keywords.rs"), schema_keywords::PROBES),
            ("apps", include_str!("probes/apps.rs"), apps::PROBES),
            ("tasks", include_str!("probes/tasks.rs"), tasks::PROBES),
            ("events", include_str!("probes/events.rs"), events::PROBES),
            ("auth", include_str!("probes/auth.rs"), auth::PROBES),
        ];
        assert_eq!(sources.len(), FAMILIES.len(), "a family missing from this test or from FAMILIES");
        for (family, source, listed) in sources {
            let ids: Vec<&str> = source.split("\n        id: \"").skip(1).map(|rest| rest.split('"').next().unwrap()).collect();
            let listed: Vec<&str> = listed.iter().map(|p| p.id()).collect();
            for id in &ids {
                assert!(listed.contains(id), "{family}: {id} is declared but not in its PROBES");
            }
            assert_eq!(ids.len(), listed.len(), "{family}: {listed:?}");
        }
        assert_eq!(probes().len(), FAMILIES.iter().map(|f| f.len()).sum::<usize>());
    }

    #[test]
    fn areas_appear_in_contiguous_blocks() {
        let areas: Vec<_> = probes().iter().map(|p| p.area()).collect();
        let mut sorted = areas.clone();
        sorted.sort();
        assert_eq!(areas, sorted, "registry order must follow area order");
    }
}
