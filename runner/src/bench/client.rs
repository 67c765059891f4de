//! `bench --client NAME`: how long probing a real client takes, against the targets. The probe's
//! wall time at `--jobs` compared with the slowest of its variant runs made one at a time, and,
//! for a host with an interactive section, the interactive runs' median over several rounds with
//! their verdicts compared round by round.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use serde::Serialize;

use crate::clients::{install, profile};
use crate::harness::Transport;
use crate::records::Record;
use crate::runs::client::RunKinds;
use crate::runs::client::{self, RunSlots, Target};

#[derive(Debug, Serialize)]
pub struct ClientBench {
    pub client: String,
    pub version: String,
    /// The headless probe over both transports, every run one after another.
    pub one_at_a_time_ms: u64,
    /// The slowest single variant run (its launches) in that probe, and which it was.
    pub slowest_run_ms: u64,
    pub slowest_run: String,
    /// The same probe with `jobs` runs at once, and its ratio to the slowest single run.
    pub jobs: usize,
    pub at_once_ms: u64,
    pub ratio_to_slowest_run: f64,
    pub interactive: Option<InteractiveBench>,
}

#[derive(Debug, Serialize)]
pub struct InteractiveBench {
    pub rounds: u32,
    pub runs: usize,
    /// Each interactive run's wall time (from the host's start to its end), every round.
    pub median_ms: u64,
    pub slowest_ms: u64,
    pub slowest_run: String,
    /// Interactive verdicts that differed from round 1's.
    pub differences: Vec<String>,
}

pub async fn run(name: &str, jobs: usize, rounds: u32, server_exe: &Path) -> Result<ClientBench> {
    let profile = profile::find(&profile::default_dir(), name).map_err(crate::exit::bad_input_from)?;
    let installed = install::ensure_installed(&profile).await?;
    let target = Target { profile, executable: installed.executable, version: installed.version };
    let scratch = tempfile::tempdir()?;

    let (one_at_a_time_ms, records) = probe(&target, RunKinds::Headless, 1, server_exe, &scratch.path().join("one")).await?;
    let (slowest_run, slowest_run_ms) = run_times(&records).into_iter().max_by_key(|(_, ms)| *ms).unwrap_or_default();
    let (at_once_ms, _) = probe(&target, RunKinds::Headless, jobs, server_exe, &scratch.path().join("at-once")).await?;

    let interactive = match target.profile.interactive.is_some() && rounds > 0 {
        true => Some(interactive(&target, rounds, server_exe, scratch.path()).await?),
        false => None,
    };
    Ok(ClientBench {
        client: target.profile.name.clone(),
        version: target.version.clone(),
        one_at_a_time_ms,
        slowest_run_ms,
        slowest_run,
        jobs,
        at_once_ms,
        ratio_to_slowest_run: at_once_ms as f64 / slowest_run_ms.max(1) as f64,
        interactive,
    })
}

/// Probes over both transports with `jobs` runs at once; the wall time and the records.
async fn probe(target: &Target, runs: RunKinds, jobs: usize, server_exe: &Path, dir: &Path) -> Result<(u64, Vec<Record>)> {
    let slots = RunSlots::new(crate::harness::slots::Slots::new(jobs), target.profile.launch.max_parallel);
    let started = Instant::now();
    let transports: &[Transport] = if runs.headless() { &[Transport::Stdio, Transport::Http] } else { &[Transport::Stdio] };
    let passes = transports.iter().map(|&t| client::probe_all(target, t, runs, None, &slots, server_exe, dir));
    let records = futures::future::try_join_all(passes).await?.into_iter().flatten().collect();
    Ok((started.elapsed().as_millis() as u64, records))
}

/// Each run's own time (its launches added up), named by record and variant.
fn run_times(records: &[Record]) -> Vec<(String, u64)> {
    let mut times: BTreeMap<String, u64> = BTreeMap::new();
    for record in records {
        for launch in &record.launches {
            *times.entry(format!("{} {}", record.column_transport(), launch.variant)).or_default() += launch.duration_ms;
        }
    }
    times.into_iter().collect()
}

async fn interactive(target: &Target, rounds: u32, server_exe: &Path, scratch: &Path) -> Result<InteractiveBench> {
    let mut times = Vec::new();
    let mut first: Option<Record> = None;
    let mut differences = Vec::new();
    for round in 1..=rounds {
        let (_, records) = probe(target, RunKinds::Interactive, 1, server_exe, &scratch.join(format!("interactive-{round}"))).await?;
        let Some(record) = records.into_iter().next() else { continue };
        times.extend(record.launches.iter().filter(|l| l.variant.is_interactive()).map(|l| (format!("round {round} {}", l.variant), l.duration_ms)));
        match &first {
            None => first = Some(record),
            Some(first) => differences.extend(interactive_differences(first, &record, round)),
        }
    }
    let mut sorted: Vec<u64> = times.iter().map(|(_, ms)| *ms).collect();
    sorted.sort();
    let (slowest_run, slowest_ms) = times.iter().max_by_key(|(_, ms)| *ms).cloned().unwrap_or_default();
    Ok(InteractiveBench { rounds, runs: times.len(), median_ms: sorted.get(sorted.len() / 2).copied().unwrap_or(0), slowest_ms, slowest_run, differences })
}

/// The interactive probes whose outcome or detail differs from round 1's.
fn interactive_differences(first: &Record, now: &Record, round: u32) -> Vec<String> {
    let interactive = |probe: &str| probe_server::registry::find(probe).is_some_and(|p| p.variant().is_interactive());
    first
        .verdicts
        .iter()
        .filter(|v| interactive(&v.probe))
        .filter_map(|then| {
            let again = now.verdicts.iter().find(|v| v.probe == then.probe);
            match again {
                Some(v) if v.outcome == then.outcome && v.detail == then.detail => None,
                Some(v) => Some(format!("round {round} {}: {} ({}) then {} ({})", then.probe, then.outcome.label(), then.detail, v.outcome.label(), v.detail)),
                None => Some(format!("round {round} {}: no verdict", then.probe)),
            }
        })
        .collect()
}
