//! `self-test`: every probe proven against the reference client and its ablations.

use anyhow::Result;

use super::{own_exe, terminal_width};
use crate::cli::{self, Format};
use crate::exit;
use crate::{render, selftest};

pub async fn self_test(args: cli::SelfTestArgs) -> Result<u8> {
    let specs = selftest::plan(&args.transport.transports());
    let results = selftest::execute(specs, own_exe()?, args.jobs, None).await;
    let report = selftest::evaluate(&results);
    match args.format.format {
        Format::Json => crate::out!("{}", serde_json::to_string_pretty(&report)?),
        Format::Table => {
            crate::out!("{}", render::terminal(&report.matrix, terminal_width()));
            for m in &report.mismatches {
                crate::out!("MISMATCH {} {} {} [{}] {}: {}", m.transport, m.era, m.variant, m.ablation, m.probe, m.problem);
            }
            if let Some(slowest) = results.iter().max_by_key(|r| r.duration_ms) {
                let ablation = slowest.spec.ablation.map_or("none", |a| a.id());
                eprintln!("slowest run: {} {} [{ablation}] {} ms", slowest.spec.transport.as_str(), slowest.spec.era, slowest.duration_ms);
            }
            crate::out!("{} variations, {} changed verdicts", report.variations, report.variation_changes);
            crate::out!("{} runs; {} probes proven; {} mismatches", report.runs, report.probes_proven, report.mismatches.len());
        }
    }
    Ok(if report.passed() { exit::OK } else { exit::MISMATCH })
}
