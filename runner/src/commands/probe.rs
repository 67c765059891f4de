//! `probe`: the reference client (its runs, merged per transport and era) or a real client
//! (installed, launched against every server variant, recorded).

use anyhow::Result;
use probe_server::Era;

use super::{own_exe, terminal_width};
use crate::cli::{self, Format};
use crate::exit::{self, bad_input};
use crate::session::run::{self, RunSpec};
use crate::{clients::install, clients::profile, drivers::stub, records as record, records::baseline, records::matrix, render, selftest, session::client};

pub async fn probe(args: cli::ProbeArgs) -> Result<u8> {
    if args.client.is_some() || args.command.is_some() {
        return probe_client(args).await;
    }
    if args.repeat > 1 || args.runs != cli::RunKinds::All {
        return Err(bad_input("--repeat and --runs apply to a client (a profile, a path or --command); the reference client's runs are the self-test's"));
    }
    let ablation = args.ablation;
    let mut specs = Vec::new();
    for transport in args.transport.transports() {
        for era in Era::ALL {
            for host in [false, true] {
                specs.extend(selftest::variants(transport, era, host).into_iter().map(|variant| RunSpec { transport, era, variant, host, variation: None, ablation }));
            }
        }
    }
    let results = selftest::execute(specs, own_exe()?, args.jobs, args.keep_journals).await;
    for failed in results.iter().filter_map(|r| r.harness_error.as_ref()) {
        eprintln!("mcp-client-probe: harness error: {failed}");
    }
    // The ablated runs stand in for the full ones here: merge them per transport and era.
    let unablated: Vec<run::RunResult> = results
        .iter()
        .cloned()
        .map(|mut r| {
            r.spec.ablation = None;
            r
        })
        .collect();
    let merged = run::merge_variants(&unablated);
    let runs: Vec<_> = merged.iter().collect();
    let matrix = matrix::from_runs("reference", &runs);
    match args.format.format {
        Format::Table => crate::out!("{}", render::terminal(&matrix, terminal_width())),
        Format::Json => crate::out!("{}", render::json(&matrix)),
    }
    Ok(if results.iter().any(|r| r.harness_error.is_some()) { exit::HARNESS } else { exit::OK })
}

/// A profile for a client given by command line: no install, the server as arguments, a model
/// stub when the host speaks a model dialect.
fn command_profile(command_line: &str, timeout: u64, dialect: Option<stub::Dialect>) -> Result<(profile::Profile, std::path::PathBuf)> {
    let words: Vec<String> = command_line.split_whitespace().map(str::to_string).collect();
    let Some((program, args)) = words.split_first() else { return Err(bad_input("--command is empty")) };
    let profile = profile::Profile {
        name: std::path::Path::new(program).file_name().and_then(|n| n.to_str()).unwrap_or("command").to_string(),
        description: format!("command line: {command_line}"),
        dialect,
        install: profile::Install { npm: None, pypi: None, python: None, version: "unversioned".into(), executable: program.clone(), shares: None },
        version: profile::VersionCheck { args: Vec::new(), word: 1 },
        files: Vec::new(),
        launch: profile::Launch { args: args.to_vec(), steps: Vec::new(), env: Default::default(), prompt: String::new(), timeout_secs: timeout, max_parallel: None },
        skills: None,
        interactive: None,
    };
    Ok((profile, std::path::PathBuf::from(program)))
}

/// Refuses `--runs interactive` where no interactive run can be made, before anything is installed.
fn check_runs(profile: &profile::Profile, args: &cli::ProbeArgs) -> Result<()> {
    if args.runs != cli::RunKinds::Interactive {
        return Ok(());
    }
    if profile.interactive.is_none() {
        return Err(bad_input(format!("--runs interactive: the profile of {} has no [interactive] section", profile.name)));
    }
    if args.transport.transports().contains(&run::Transport::Http) {
        return Err(bad_input("--runs interactive: the interactive runs are over stdio only; add --transport stdio"));
    }
    Ok(())
}

async fn probe_client(args: cli::ProbeArgs) -> Result<u8> {
    if args.runs != cli::RunKinds::All && args.records == std::path::Path::new(cli::DEFAULT_RECORDS) {
        return Err(bad_input("--runs headless or interactive makes a partial record: give --records DIR so it does not replace the full one"));
    }
    let target = if let Some(command) = &args.command {
        let (profile, executable) = command_profile(command, args.timeout, args.dialect)?;
        check_runs(&profile, &args)?;
        client::Target { version: profile.install.version.clone(), profile, executable }
    } else {
        let spec = args.client.clone().unwrap_or_default();
        if spec.contains('/') {
            let (profile, executable) = command_profile(&format!("{spec} {{server}}"), args.timeout, None)?;
            if !executable.exists() {
                return Err(bad_input(format!("no client executable at {spec}")));
            }
            client::Target { version: profile.install.version.clone(), profile, executable }
        } else {
            let profile = profile::find(&profile::default_dir(), &spec).map_err(|e| bad_input(e.to_string()))?;
            check_runs(&profile, &args)?;
            eprintln!("mcp-client-probe: {}@{}: installing if needed", profile.name, profile.install.version);
            let installed = install::ensure_installed(&profile).await?;
            eprintln!("mcp-client-probe: {}@{} ready (--version took {} ms)", profile.name, installed.version, installed.version_ms);
            client::Target { profile, executable: installed.executable, version: installed.version }
        }
    };
    let baseline = match &args.expect {
        Some(path) => Some(baseline::Baseline::load(path).map_err(crate::exit::bad_input_from)?),
        None => None,
    };
    let dir = record::record_dir(&args.records, &target.profile.name, &target.version);
    let mut records = Vec::new();
    let mut repeats_differ = false;
    for round in 1..=args.repeat {
        let mut round_records = Vec::new();
        let slots = client::RunSlots::new(std::sync::Arc::new(tokio::sync::Semaphore::new(args.jobs.max(1))), &target.profile);
        let exe = own_exe()?;
        let transports = args.transport.transports();
        eprintln!(
            "mcp-client-probe: probing {}@{} over {} (round {round} of {})",
            target.profile.name,
            target.version,
            transports.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(" and "),
            args.repeat
        );
        let passes = transports.iter().map(|&transport| client::probe_all(&target, transport, args.runs, &slots, &exe, &dir));
        for written in futures::future::try_join_all(passes).await? {
            for record in written {
                eprintln!("mcp-client-probe: {} done in {} ms; record in {}", record.column_transport(), record.duration_ms, dir.display());
                round_records.push(record);
            }
        }
        if round > 1 {
            for (before, now) in records.iter().zip(&round_records) {
                for difference in verdict_differences(before, now) {
                    repeats_differ = true;
                    eprintln!("mcp-client-probe: round {round} differs from round 1: {difference}");
                }
            }
        } else {
            records = round_records;
        }
    }
    if args.repeat > 1 {
        eprintln!("mcp-client-probe: {} rounds: {}", args.repeat, if repeats_differ { "verdicts differ" } else { "the same verdicts every round" });
    }
    let located: Vec<record::Located> =
        records.iter().map(|r| record::Located { relative: std::path::PathBuf::from(&r.client).join(&r.version).join(r.file_name()), record: r.clone() }).collect();
    let matrix = matrix::from_records(&located, &args.records.display().to_string());
    match args.format.format {
        Format::Table => crate::out!("{}", render::terminal(&matrix, terminal_width())),
        Format::Json => crate::out!("{}", render::json(&matrix)),
    }
    if repeats_differ {
        return Ok(exit::MISMATCH);
    }
    if let Some(baseline) = baseline {
        let problems = baseline::check(&baseline, &records.iter().collect::<Vec<_>>());
        for problem in &problems {
            eprintln!("mcp-client-probe: baseline: {problem}");
        }
        if !problems.is_empty() {
            return Ok(exit::MISMATCH);
        }
    }
    Ok(exit::OK)
}

/// The probes whose outcome or detail differs between two records of the same transport.
fn verdict_differences(before: &record::Record, now: &record::Record) -> Vec<String> {
    before
        .verdicts
        .iter()
        .filter_map(|b| {
            let n = now.verdicts.iter().find(|n| n.probe == b.probe);
            match n {
                Some(n) if n.outcome == b.outcome && n.detail == b.detail => None,
                Some(n) => Some(format!("{} {}: {} ({}) then {} ({})", now.transport, b.probe, b.outcome.label(), b.detail, n.outcome.label(), n.detail)),
                None => Some(format!("{} {}: no verdict", now.transport, b.probe)),
            }
        })
        .collect()
}
