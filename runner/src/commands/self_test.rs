//! `self-test`: every probe proven against the reference client and its ablations.

use anyhow::Result;

use super::{own_exe, terminal_width};
use crate::cli::{self, Format};
use crate::exit;
use crate::{render, runs::self_test};

/// How many of the slowest runs the table output names on stderr (where the wall time goes).
const SLOWEST_LISTED: usize = 5;

pub async fn self_test(args: cli::SelfTestArgs) -> Result<u8> {
    // A directory that cannot take the journals is bad input, said before the runs, not after.
    if let Some(dir) = &args.keep_journals {
        super::probe::check_writable(dir)?;
    }
    let specs = self_test::plan(&args.transport.transports());
    let results = self_test::execute(specs, own_exe()?, args.jobs, args.keep_journals, "self-test").await;
    let report = self_test::evaluate(&results);
    match args.format.format {
        Format::Json => crate::out!("{}", serde_json::to_string_pretty(&report)?),
        Format::Table => {
            crate::out!("{}", render::terminal_in(&report.matrix, terminal_width(), super::colour()));
            for m in &report.mismatches {
                crate::out!("{}", m.line());
            }
            let mut by_length: Vec<_> = results.iter().collect();
            by_length.sort_by_key(|r| std::cmp::Reverse(r.duration_ms));
            for run in by_length.iter().take(SLOWEST_LISTED) {
                let spec = &run.spec;
                let what = spec.ablation.map(|a| a.id()).or(spec.variation.map(|v| v.id())).unwrap_or("full");
                let runner = if spec.host { " host" } else { "" };
                eprintln!("slow run: {} {} {}{runner} [{what}] {} ms", spec.transport.as_str(), spec.era, spec.variant, run.duration_ms);
            }
            crate::out!("{} variations, {} changed verdicts", report.variations, report.variation_changes);
            crate::out!("{} runs; {} probes proven; {} mismatches", report.runs, report.probes_proven, report.mismatches.len());
        }
    }
    for probe in self_test::skipped_without_schemas() {
        eprintln!("skipped: {probe}, which needs the official schemas (--schemas DIR or ${})", crate::harness::wire::SCHEMA_DIR_VAR);
    }
    Ok(if report.passed() { exit::OK } else { exit::MISMATCH })
}
