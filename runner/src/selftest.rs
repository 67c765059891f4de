//! The ground truth. For each transport and era: the full reference client must make every probe
//! that applies say yes; then, for each probe, the reference client with that probe's feature
//! ablated must make that probe say anything but yes while every other probe keeps its outcome.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use probe_server::probe::Outcome;
use probe_server::{registry, Era, Scenario};
use serde::Serialize;
use tokio::sync::Semaphore;

use crate::matrix::{self, AblatedCell, Matrix};
use crate::reference::Ablation;
use crate::run::{merge_scenarios, run_reference, RunResult, RunSpec, Transport};

/// One way the self-test failed.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mismatch {
    pub transport: String,
    pub era: String,
    pub scenario: String,
    pub ablation: String,
    pub probe: String,
    pub problem: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SelfTestReport {
    pub runs: usize,
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
/// host's runs prove the probes judged from the model's side, the client's all others.
fn applies(probe_id: &str, era: Era, transport: Transport, scenario: Scenario, host: bool) -> bool {
    registry::find(probe_id).is_some_and(|p| {
        p.wire_judged() && p.eras().contains(&era) && p.transports().contains(&transport.kind()) && p.scenario() == scenario && p.needs_model() == host
    })
}

/// The reference host runs over stdio only: what a host shows its model does not depend on
/// the transport.
pub const HOST_TRANSPORT: Transport = Transport::Stdio;

/// The server variants worth running in this era over this transport (by the client, or by the
/// host): the standard one for the client, and every one that some probe applying there is
/// judged on.
pub fn scenarios(transport: Transport, era: Era, host: bool) -> Vec<Scenario> {
    if host && transport != HOST_TRANSPORT {
        return Vec::new();
    }
    Scenario::ALL
        .into_iter()
        .filter(|&s| (s.is_standard() && !host) || registry::probes().iter().any(|p| applies(p.id(), era, transport, s, host)))
        .collect()
}

/// Every run the self-test needs for these transports: per era, one full run against each server
/// variant that some applicable probe is judged on, and one ablated run per applicable probe.
pub fn plan(transports: &[Transport]) -> Vec<RunSpec> {
    let mut specs = Vec::new();
    for &transport in transports {
        for era in Era::ALL {
            for host in [false, true] {
                for scenario in scenarios(transport, era, host) {
                    specs.push(RunSpec { transport, era, scenario, host, ablation: None });
                    for &ablation in Ablation::ALL.iter().filter(|a| applies(a.target(), era, transport, scenario, host)) {
                        specs.push(RunSpec { transport, era, scenario, host, ablation: Some(ablation) });
                    }
                }
            }
        }
    }
    specs
}

/// Runs the plan with at most `jobs` runs at once.
pub async fn execute(specs: Vec<RunSpec>, server_exe: PathBuf, jobs: usize, keep_dir: Option<PathBuf>) -> Vec<RunResult> {
    let limit = Arc::new(Semaphore::new(jobs.max(1)));
    let exe = Arc::new(server_exe);
    let keep = Arc::new(keep_dir);
    let handles: Vec<_> = specs
        .into_iter()
        .map(|spec| {
            let (limit, exe, keep) = (limit.clone(), exe.clone(), keep.clone());
            tokio::spawn(async move {
                let _permit = limit.acquire_owned().await;
                run_reference(spec, &exe, keep.as_deref()).await
            })
        })
        .collect();
    let mut results = Vec::new();
    for handle in handles {
        if let Ok(result) = handle.await {
            results.push(result);
        }
    }
    results
}

/// Compares the runs against the ground truth and builds the report.
pub fn evaluate(results: &[RunResult]) -> SelfTestReport {
    let mut mismatches = Vec::new();
    let full: HashMap<(Transport, Era, Scenario, bool), &RunResult> =
        results.iter().filter(|r| r.spec.ablation.is_none()).map(|r| ((r.spec.transport, r.spec.era, r.spec.scenario, r.spec.host), r)).collect();
    let mut proven: HashMap<&str, bool> = HashMap::new();
    let mismatch = |r: &RunResult, probe: &str, problem: String| Mismatch {
        transport: r.spec.transport.as_str().into(),
        era: r.spec.era.to_string(),
        scenario: if r.spec.host { format!("{} (host)", r.spec.scenario) } else { r.spec.scenario.to_string() },
        ablation: r.spec.ablation.map_or("none".into(), |a| a.id().into()),
        probe: probe.into(),
        problem,
    };
    for result in results {
        if let Some(error) = &result.harness_error {
            mismatches.push(mismatch(result, "-", format!("harness error: {error}")));
            continue;
        }
        let (era, transport, scenario, host) = (result.spec.era, result.spec.transport, result.spec.scenario, result.spec.host);
        match result.spec.ablation {
            None => {
                for probe in registry::probes().iter().filter(|p| applies(p.id(), era, transport, scenario, host)) {
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
                let Some(baseline) = full.get(&(transport, era, scenario, host)) else { continue };
                let collateral = ablation.collateral();
                for verdict in result.verdicts.iter().filter(|v| v.probe != target && !collateral.contains(&v.probe.as_str()) && applies(&v.probe, era, transport, scenario, host)) {
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
    SelfTestReport { runs: results.len(), probes_proven: proven.values().filter(|ok| **ok).count(), mismatches, matrix: self_test_matrix(results) }
}

/// The full runs as columns (server variants merged), each cell carrying the outcome under that
/// probe's ablation.
fn self_test_matrix(results: &[RunResult]) -> Matrix {
    let merged = merge_scenarios(results);
    let full: Vec<&RunResult> = merged.iter().collect();
    let mut matrix = matrix::from_runs("reference", &full);
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
