//! The ground truth. For each transport and era: the full reference client must make every probe
//! that applies say yes; then, for each probe, the reference client with that probe's feature
//! ablated must make that probe say anything but yes while every other probe keeps its outcome.
//! Then the variations: legal behaviours of real hosts, each of which must leave every verdict
//! as the full run had it (apart from the probes it declares as its effects).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use futures::StreamExt;
use probe_server::probe::Outcome;
use probe_server::{registry, Era, Variant};
use serde::Serialize;

use crate::records::matrix::{AblatedCell, Matrix};
use crate::reference::variation::Runner;
use crate::reference::{Ablation, Variation};
use crate::runs::reference::{merge_variants, run_reference, RunResult, RunSpec, Transport};

/// One way the self-test failed.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mismatch {
    pub transport: String,
    pub era: String,
    pub variant: String,
    pub ablation: String,
    pub probe: String,
    pub problem: String,
}

impl Mismatch {
    /// `MISMATCH <transport> <era> <variant> [<ablation>] <probe>: <problem>`.
    pub fn line(&self) -> String {
        format!("MISMATCH {} {} {} [{}] {}: {}", self.transport, self.era, self.variant, self.ablation, self.probe, self.problem)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SelfTestReport {
    pub runs: usize,
    /// Variation runs: legal behaviours that must change no verdict.
    pub variations: usize,
    /// Verdicts a variation changed (each is also a mismatch).
    pub variation_changes: usize,
    /// Distinct probes proven: yes under the full client and not yes under their ablation, in
    /// every transport and era where they apply.
    pub probes_proven: usize,
    pub mismatches: Vec<Mismatch>,
    pub matrix: Matrix,
}

impl SelfTestReport {
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// Whether the probe is part of the ground truth of a run in this era, over this transport,
/// against this server variant, by the reference client or (`host`) the reference host. The
/// host's runs prove the probes judged from the model's side, the client's all others. A probe
/// of the client's frames against the official schemas is proven only where the process has them.
fn applies(probe_id: &str, era: Era, transport: Transport, variant: Variant, host: bool) -> bool {
    registry::find(probe_id).is_some_and(|p| {
        p.wire_judged()
            && p.eras().contains(&era)
            && p.transports().contains(&transport)
            && p.variant() == variant
            && p.needs_model() == host
            && (!p.needs_schemas() || crate::harness::wire::configured())
    })
}

/// The probes the self-test leaves out because the process was not given the official schemas.
pub fn skipped_without_schemas() -> Vec<&'static str> {
    if crate::harness::wire::configured() {
        return Vec::new();
    }
    registry::probes().iter().filter(|p| p.needs_schemas()).map(|p| p.id()).collect()
}

/// The reference host runs over stdio only: what a host shows its model does not depend on
/// the transport.
pub const HOST_TRANSPORT: Transport = Transport::Stdio;

/// The server variants worth running in this era over this transport (by the client, or by the
/// host): the standard one for the client, and every one that some probe applying there is
/// judged on.
pub fn variants(transport: Transport, era: Era, host: bool) -> Vec<Variant> {
    if host && transport != HOST_TRANSPORT {
        return Vec::new();
    }
    variants_over(transport, era, host)
}

/// As [`variants`], over any transport: `probe` runs the reference host over HTTP too, so that its
/// matrix has a verdict in every cell.
pub fn variants_over(transport: Transport, era: Era, host: bool) -> Vec<Variant> {
    Variant::ALL.into_iter().filter(|&s| (s.is_standard() && !host) || registry::probes().iter().any(|p| applies(p.id(), era, transport, s, host))).collect()
}

/// Every run the self-test needs for these transports: per era, one full run against each server
/// variant that some applicable probe is judged on, and one ablated run per applicable probe.
pub fn plan(transports: &[Transport]) -> Vec<RunSpec> {
    let mut specs = Vec::new();
    for &transport in transports {
        for era in Era::ALL {
            for host in [false, true] {
                for variant in variants(transport, era, host) {
                    specs.push(RunSpec { transport, era, variant, host, ablation: None, variation: None });
                    for &ablation in Ablation::ALL.iter().filter(|a| applies(a.target(), era, transport, variant, host)) {
                        specs.push(RunSpec { transport, era, variant, host, ablation: Some(ablation), variation: None });
                    }
                    // Variations run where their runner's probes are judged: the variant a
                    // variation names, else the standard one or (for the terminal host's) each
                    // interactive one.
                    let runner = match (variant.is_interactive(), host) {
                        (true, _) => Runner::Terminal,
                        (false, true) => Runner::Host,
                        (false, false) => Runner::Client,
                    };
                    let judged_here = |v: &Variation| v.variant().map_or(variant.is_standard() || variant.is_interactive(), |only| only == variant);
                    for &variation in Variation::ALL.iter().filter(|v| judged_here(v) && v.runner() == runner && v.applies_over(transport) && v.applies_in(era)) {
                        specs.push(RunSpec { transport, era, variant, host, ablation: None, variation: Some(variation) });
                    }
                }
            }
        }
    }
    specs
}

/// Runs the plan with at most `jobs` runs at once, started strictly in the order of
/// [`expected_length`], slowest first (so the last to finish is not a slow one started late:
/// runs spawned all at once and left to race for the slots started in the runtime's order, and
/// an unanswered discover's runs started two seconds in); results come back in the plan's order.
pub async fn execute(specs: Vec<RunSpec>, server_exe: PathBuf, jobs: usize, keep_dir: Option<PathBuf>, what: &str) -> Vec<RunResult> {
    let exe = Arc::new(server_exe);
    let keep = Arc::new(keep_dir);
    crate::progress::begin(specs.len() as u64, what);
    let order = start_order(&specs);
    let total = specs.len();
    let mut results: Vec<Option<RunResult>> = vec![None; total];
    // A run is spawned only when a slot is free, in the order above.
    let mut finished = futures::stream::iter(order)
        .map(|i| {
            let (exe, keep, spec) = (exe.clone(), keep.clone(), specs[i]);
            async move { (i, tokio::spawn(async move { run_reference(spec, &exe, keep.as_deref()).await }).await) }
        })
        .buffer_unordered(jobs.max(1));
    let mut done = 0;
    while let Some((i, joined)) = finished.next().await {
        // A run that panicked is a harness error that names it, never a run gone from the report.
        results[i] = Some(joined.unwrap_or_else(|e| RunResult::failed(specs[i], format!("the run panicked: {e}"))));
        // Too many runs to list one by one: a line every 50 without a bar.
        done += 1;
        // The bar counts them already; without one, a line now and then.
        crate::progress::finished(format_args!("{done} of {total} runs done"), crate::progress::has_bar() || (done % 50 != 0 && done != total));
    }
    drop(finished);
    crate::progress::end();
    results.into_iter().zip(specs).map(|(result, spec)| result.unwrap_or_else(|| RunResult::failed(spec, "the run was never started".into()))).collect()
}

/// The order in which the runs start: the ranks of [`expected_length`] from the slowest down,
/// except that the host's conversations are spread among the HTTP and plain runs that follow
/// them instead of starting in one block. Started together, the hosts' conversations reach their
/// settled turns together and hold most slots idle at once (the CPU idled for half a second two
/// seconds in); spread out, the runs beside them keep the CPU busy. The plain runs, the
/// shortest, still come last.
fn start_order(specs: &[RunSpec]) -> Vec<usize> {
    let mut ranked: Vec<usize> = (0..specs.len()).collect();
    ranked.sort_by_key(|&i| std::cmp::Reverse(expected_length(&specs[i])));
    let host_rank = |i: &usize| expected_length(&specs[*i]) == HOST_CONVERSATION;
    let (first, rest): (Vec<usize>, Vec<usize>) = ranked.into_iter().partition(|&i| expected_length(&specs[i]) > HOST_CONVERSATION);
    let (hosts, others): (Vec<usize>, Vec<usize>) = rest.into_iter().partition(host_rank);
    // The hosts go among the first two thirds of the others, evenly.
    let between = (others.len() * 2 / 3).checked_div(hosts.len()).unwrap_or(0).max(1);
    let mut order = first;
    let mut others = others.into_iter();
    for host in hosts {
        order.push(host);
        order.extend(others.by_ref().take(between));
    }
    order.extend(others);
    order
}

/// The rank of the host's conversations with the model stub in [`expected_length`].
const HOST_CONVERSATION: u8 = 2;

/// A rank of how long a run usually takes: the host's calls that run for seconds (tasks it
/// follows, calls it times out), a person working a form in a terminal, the client's runs that
/// wait seconds (tasks, an unanswered discover, an expiring token), then the host's
/// conversations with the model stub (each with a settled turn), then the HTTP runs (a
/// loopback server, sessions that expire) and the client's runs that wait a moment on purpose,
/// then the client's plain runs.
fn expected_length(spec: &RunSpec) -> u8 {
    // The variants whose runs wait seconds on purpose: tasks, long calls, an unanswered
    // discover, a token left to expire, a dropped stream the client stays a settled time after;
    // and the variation whose ping the server waits out.
    let runs_for_seconds = matches!(spec.variant, Variant::Tasks | Variant::Events | Variant::LongCalls | Variant::DiscoverUnanswered | Variant::AuthRefresh | Variant::StreamDrop)
        || spec.variation == Some(Variation::NeverAnswersPing);
    // The variations in which the client waits 300 ms before it acts.
    let waits_a_moment = matches!(spec.variation, Some(Variation::RefetchAfter300Ms | Variation::UnattendedSlowCancel));
    match spec {
        s if s.host && runs_for_seconds => 5,
        s if s.variant.is_interactive() => 4,
        _ if runs_for_seconds => 3,
        s if s.host => HOST_CONVERSATION,
        s if s.transport == Transport::Http || waits_a_moment => 1,
        _ => 0,
    }
}

/// Compares the runs against the ground truth and builds the report.
pub fn evaluate(results: &[RunResult]) -> SelfTestReport {
    let mut mismatches = Vec::new();
    let full: HashMap<(Transport, Era, Variant, bool), &RunResult> =
        results.iter().filter(|r| r.spec.ablation.is_none() && r.spec.variation.is_none()).map(|r| ((r.spec.transport, r.spec.era, r.spec.variant, r.spec.host), r)).collect();
    let mut proven: HashMap<&str, bool> = HashMap::new();
    let mut variation_changed = 0;
    let mismatch = |r: &RunResult, probe: &str, problem: String| Mismatch {
        transport: r.spec.transport.as_str().into(),
        era: r.spec.era.to_string(),
        variant: if r.spec.host { format!("{} (host)", r.spec.variant) } else { r.spec.variant.to_string() },
        ablation: match (r.spec.ablation, r.spec.variation) {
            (Some(a), _) => a.id().into(),
            (None, Some(v)) => format!("variation {v}"),
            (None, None) => "none".into(),
        },
        probe: probe.into(),
        problem,
    };
    for result in results {
        if let Some(error) = &result.harness_error {
            mismatches.push(mismatch(result, "-", format!("harness error: {error}")));
            continue;
        }
        let (era, transport, variant, host) = (result.spec.era, result.spec.transport, result.spec.variant, result.spec.host);
        if let Some(variation) = result.spec.variation {
            let Some(baseline) = full.get(&(transport, era, variant, host)) else { continue };
            let changes = variation_changes(result, baseline, variation, |p| applies(p, era, transport, variant, host));
            variation_changed += changes.len();
            mismatches.extend(changes.into_iter().map(|(probe, problem)| mismatch(result, &probe, problem)));
            continue;
        }
        match result.spec.ablation {
            None => {
                for probe in registry::probes().iter().filter(|p| applies(p.id(), era, transport, variant, host)) {
                    let verdict = result.verdict(probe.id());
                    if verdict.map(|v| v.outcome) != Some(Outcome::Yes) {
                        let what = verdict.map_or("no verdict".to_string(), |v| format!("{}: {}", v.outcome.label(), v.detail));
                        mismatches.push(mismatch(result, probe.id(), format!("full reference client: expected yes, got {what}")));
                        proven.insert(probe.id(), false);
                    }
                }
            }
            Some(ablation) => {
                let target = ablation.target();
                match result.verdict(target) {
                    Some(v) if v.outcome == Outcome::Yes => {
                        mismatches.push(mismatch(result, target, format!("still yes under its ablation: {}", v.detail)));
                        proven.insert(target, false);
                    }
                    Some(_) => {
                        proven.entry(target).or_insert(true);
                    }
                    None => mismatches.push(mismatch(result, target, "no verdict under its ablation".into())),
                }
                let Some(baseline) = full.get(&(transport, era, variant, host)) else { continue };
                // A client that cannot open its session shows nothing else: every probe is collateral.
                if ablation.may_break_the_session() {
                    continue;
                }
                let collateral = ablation.collateral();
                for verdict in result.verdicts.iter().filter(|v| v.probe != target && !collateral.contains(&v.probe.as_str()) && applies(&v.probe, era, transport, variant, host)) {
                    let before = baseline.verdict(&verdict.probe).map(|v| v.outcome);
                    if before != Some(verdict.outcome) {
                        let was = before.map_or("nothing", Outcome::label);
                        mismatches.push(mismatch(result, &verdict.probe, format!("unrelated probe changed from {was} to {}: {}", verdict.outcome.label(), verdict.detail)));
                    }
                }
            }
        }
    }
    mismatches.sort();
    let variations = results.iter().filter(|r| r.spec.variation.is_some()).count();
    SelfTestReport {
        runs: results.len(),
        variations,
        variation_changes: variation_changed,
        probes_proven: proven.values().filter(|ok| **ok).count(),
        mismatches,
        matrix: self_test_matrix(results),
    }
}

/// The verdicts a variation run changed against the full run of the same transport, era,
/// server variant and runner: every applicable probe must keep its outcome, except the
/// variation's declared effects (which, where the variation says so, must agree with each other).
pub fn variation_changes(run: &RunResult, full: &RunResult, variation: Variation, applies: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    let mut changes = Vec::new();
    let effects = variation.effects();
    for verdict in run.verdicts.iter().filter(|v| applies(&v.probe) && !effects.contains(&v.probe.as_str())) {
        let before = full.verdict(&verdict.probe).map(|v| v.outcome);
        if before != Some(verdict.outcome) {
            let was = before.map_or("nothing", Outcome::label);
            changes.push((verdict.probe.clone(), format!("variation {variation} changed it from {was} to {}: {}", verdict.outcome.label(), verdict.detail)));
        }
    }
    if let Some(expected) = variation.effects_outcome() {
        for (probe, verdict) in effects.iter().filter(|p| applies(p)).filter_map(|p| run.verdict(p).map(|v| (*p, v))).filter(|(_, v)| v.outcome != expected) {
            changes.push((probe.to_string(), format!("variation {variation}: {} where only {} is right: {}", verdict.outcome.label(), expected.label(), verdict.detail)));
        }
    }
    if variation.effects_agree() {
        let outcomes: Vec<(&str, Outcome)> = effects.iter().filter(|p| applies(p)).filter_map(|p| run.verdict(p).map(|v| (*p, v.outcome))).collect();
        if let Some((first, outcome)) = outcomes.first() {
            for (probe, other) in outcomes.iter().filter(|(_, o)| o != outcome) {
                changes.push((probe.to_string(), format!("variation {variation}: {} here, {} for {first}: the same behaviour judged two ways", other.label(), outcome.label())));
            }
        }
    }
    changes
}

/// The full runs as columns (server variants merged), each cell carrying the outcome under that
/// probe's ablation.
fn self_test_matrix(results: &[RunResult]) -> Matrix {
    let merged = merge_variants(results);
    let full: Vec<&RunResult> = merged.iter().collect();
    let mut matrix = crate::runs::reference::matrix_of("reference", &full);
    for (column, run) in full.iter().enumerate() {
        for row in matrix.rows.iter_mut() {
            for ablated in results.iter().filter(|r| r.spec.transport == run.spec.transport && r.spec.era == run.spec.era) {
                let Some(ablation) = ablated.spec.ablation.filter(|a| a.target() == row.probe) else { continue };
                if let Some(v) = ablated.verdict(&row.probe) {
                    row.cells[column].ablated.push(AblatedCell { ablation: ablation.id().into(), outcome: v.outcome, detail: v.detail.clone() });
                }
            }
        }
    }
    matrix
}

#[cfg(test)]
mod tests {
    use super::*;
    use probe_server::probe::Verdict;

    /// A run in which every probe says yes, but for `outcomes`.
    fn result(spec: RunSpec, outcomes: &[(&str, Outcome)]) -> RunResult {
        let verdicts = registry::probes()
            .iter()
            .map(|p| {
                let outcome = outcomes.iter().find(|(id, _)| *id == p.id()).map_or(Outcome::Yes, |(_, o)| *o);
                Verdict { probe: p.id().to_string(), ..Verdict::new(outcome, "fabricated") }
            })
            .collect();
        RunResult { spec, verdicts, protocol_version: None, harness_error: None, journal_events: 1, duration_ms: 0 }
    }

    fn spec(variation: Option<Variation>) -> RunSpec {
        RunSpec { transport: Transport::Stdio, era: Era::Legacy, variant: Variant::Standard, host: false, ablation: None, variation }
    }

    #[test]
    fn a_variation_that_changes_a_verdict_fails_the_self_test() {
        let full = result(spec(None), &[("tools.list_changed", Outcome::Yes), ("tools.pagination", Outcome::Yes)]);
        let same = result(spec(Some(Variation::RefetchAfter300Ms)), &[("tools.list_changed", Outcome::Yes), ("tools.pagination", Outcome::Yes)]);
        let report = evaluate(&[full.clone(), same]);
        assert!(report.passed(), "{:?}", report.mismatches);
        assert_eq!((report.variations, report.variation_changes), (1, 0));

        let changed = result(spec(Some(Variation::RefetchAfter300Ms)), &[("tools.list_changed", Outcome::No), ("tools.pagination", Outcome::Yes)]);
        let report = evaluate(&[full.clone(), changed]);
        assert!(!report.passed());
        assert_eq!(report.variation_changes, 1);
        assert!(report.mismatches[0].problem.contains("variation refetch-after-300ms changed it from yes to no"), "{:?}", report.mismatches);

        // A declared effect may change, and only it.
        let paged = result(spec(Some(Variation::FirstToolsPageOnly)), &[("tools.list_changed", Outcome::Yes), ("tools.pagination", Outcome::No)]);
        assert!(evaluate(&[full, paged]).passed());
    }

    #[test]
    fn effects_that_must_agree_fail_when_judged_two_ways() {
        let full = result(spec(None), &[]);
        let effects = Variation::DeclineIn3Ms.effects();
        let auto: Vec<(&str, Outcome)> = effects.iter().map(|p| (*p, Outcome::AutoAnswered)).collect();
        let mut split = auto.clone();
        split[1].1 = Outcome::No;
        let report = evaluate(&[full.clone(), result(spec(Some(Variation::DeclineIn3Ms)), &split)]);
        assert!(!report.passed());
        assert!(report.mismatches.iter().any(|m| m.problem.contains("judged two ways")), "{:?}", report.mismatches);
        assert!(evaluate(&[full, result(spec(Some(Variation::DeclineIn3Ms)), &auto)]).passed());
    }

    #[test]
    fn effects_with_one_right_outcome_fail_when_they_agree_on_another() {
        let full = result(spec(None), &[]);
        let variation = Variation::UnattendedSlowCancel;
        let all = |outcome| variation.effects().iter().map(|p| (*p, outcome)).collect::<Vec<(&str, Outcome)>>();
        let report = evaluate(&[full.clone(), result(spec(Some(variation)), &all(Outcome::No))]);
        assert!(!report.passed());
        assert_eq!(report.mismatches.len(), variation.effects().len(), "{:?}", report.mismatches);
        assert!(report.mismatches.iter().all(|m| m.problem.contains("no where only auto-answered is right")), "{:?}", report.mismatches);
        assert!(evaluate(&[full, result(spec(Some(variation)), &all(Outcome::AutoAnswered))]).passed());
    }

    #[test]
    fn the_hosts_conversations_start_spread_among_the_shorter_runs_and_the_plain_runs_last() {
        let specs = plan(&[Transport::Stdio, Transport::Http]);
        let order = start_order(&specs);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..specs.len()).collect::<Vec<_>>(), "every run starts once");
        let ranks: Vec<u8> = order.iter().map(|&i| expected_length(&specs[i])).collect();
        // The runs that wait seconds on purpose go first, slowest rank first.
        let first_short = ranks.iter().position(|&r| r <= HOST_CONVERSATION).expect("shorter runs");
        assert!(ranks[..first_short].windows(2).all(|w| w[0] >= w[1]), "{ranks:?}");
        assert!(ranks[first_short..].iter().all(|&r| r <= HOST_CONVERSATION), "{ranks:?}");
        // No long block of host conversations; the last third holds none of them.
        let hosts: Vec<usize> = ranks.iter().enumerate().filter(|(_, &r)| r == HOST_CONVERSATION).map(|(at, _)| at).collect();
        assert!(hosts.len() > 10, "the plan has host conversations: {}", hosts.len());
        assert!(hosts.windows(2).all(|w| w[1] - w[0] > 1), "two host conversations in a row: {hosts:?}");
        assert!(*hosts.last().unwrap() < first_short + (ranks.len() - first_short) * 3 / 4, "{hosts:?}");
        assert_eq!(*ranks.last().unwrap(), 0, "a plain run is the last to start");
    }
}
