//! `mcp-client-probe`: measures what MCP clients actually do.
//!
//! Exit codes (see [`exit`]): 0 success; 1 the self-test found a probe that does not
//! discriminate; 2 bad input (usage, unreadable files); 3 the harness itself failed.

mod baseline;
mod bench;
mod cli;
mod client;
mod diff;
mod findings;
mod install;
mod launch;
mod matrix;
mod matrix_cmd;
mod profile;
mod record;
mod reference;
mod render;
mod run;
mod selftest;
mod serve;
mod storm;
mod stub;
mod terminal;

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;
use probe_server::{registry, Era};

use cli::{Cli, Command, Format};
use run::RunSpec;

/// Documented exit codes.
pub mod exit {
    pub const OK: u8 = 0;
    pub const MISMATCH: u8 = 1;
    pub const BAD_INPUT: u8 = 2;
    pub const HARNESS: u8 = 3;
}

/// An error that chooses its exit code.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct Exit {
    code: u8,
    message: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp-client-probe: cannot start the async runtime: {e}");
            return ExitCode::from(exit::HARNESS);
        }
    };
    match runtime.block_on(dispatch(cli.command)) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            let code = match (err.downcast_ref::<Exit>(), err.downcast_ref::<serve::BadInput>()) {
                (Some(e), _) => e.code,
                (None, Some(_)) => exit::BAD_INPUT,
                (None, None) => exit::HARNESS,
            };
            eprintln!("mcp-client-probe: {err:#}");
            ExitCode::from(code)
        }
    }
}

fn terminal_width() -> Option<u16> {
    if std::io::stdout().is_terminal() {
        None
    } else {
        Some(160)
    }
}

async fn dispatch(command: Command) -> Result<u8> {
    match command {
        Command::Serve(args) => serve::serve(args).await.map(|_| exit::OK),
        Command::Probe(args) => probe(args).await,
        Command::SelfTest(args) => self_test(args).await,
        Command::Judge(args) => judge(args),
        Command::Clients(command) => clients(command).await,
        Command::Matrix(command) => matrix_cmd::run(command, own_exe()?).await,
        Command::Bench(args) if args.storm => {
            let duration = std::time::Duration::from_secs(args.storm_seconds);
            let reports = vec![storm::stdio(&own_exe()?, args.storm_rate, duration).await?, storm::http(&own_exe()?, args.storm_rate, duration, args.storm_connections).await?];
            match args.format.format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&reports)?),
                Format::Table => {
                    for r in &reports {
                        println!(
                            "storm {}: sent {} in {:.1} s ({:.0}/s), answered {} (backlog drained {:.1} s after), journalled {}, peak RSS {:.1} MB, p50 {:.2} ms, p99 {:.2} ms",
                            r.transport, r.sent, r.seconds, r.sent_per_second, r.answered, r.drain_seconds, r.journalled, r.peak_rss_mb, r.p50_ms, r.p99_ms
                        );
                    }
                }
            }
            Ok(exit::OK)
        }
        Command::Bench(args) => {
            let report = bench::run(args.frames, args.jobs, own_exe()?).await?;
            match args.format.format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
                Format::Table => {
                    println!(
                        "journal: {} small frames in {:.3} s = {:.0} frames/s ({} bytes)",
                        report.journal_frames, report.journal_seconds, report.journal_frames_per_second, report.journal_bytes
                    );
                    println!("self-test: {} runs in {:.2} s, {} mismatches", report.self_test_runs, report.self_test_seconds, report.self_test_mismatches);
                    println!("render 50 clients × 100 probes: markdown {:.2} ms, terminal table {:.2} ms", report.render_markdown_ms, report.render_terminal_ms);
                }
            }
            Ok(exit::OK)
        }
        Command::Probes(args) if args.catalogue => {
            print!("{}", probe_catalogue());
            Ok(exit::OK)
        }
        Command::Probes(args) if args.ablations => {
            list_ablations(args.format.format);
            Ok(exit::OK)
        }
        Command::Probes(args) => {
            list_probes(args.format.format);
            Ok(exit::OK)
        }
        Command::ReferenceHost(args) => {
            let endpoint = match args.server.split_first() {
                Some((url, [])) if url.starts_with("http://") => reference::Endpoint::Http { url: url.clone() },
                Some((program, rest)) => reference::Endpoint::Stdio { program: program.into(), args: rest.to_vec() },
                None => return Err(bad_input("give the probe server's command line or URL")),
            };
            reference::host::run(&endpoint, Era::Legacy, None, None, &args.model_url).await?;
            Ok(exit::OK)
        }
        Command::TerminalHost(args) => {
            let era = match args.era {
                cli::EraChoice::Legacy => Era::Legacy,
                cli::EraChoice::Modern => Era::Modern,
            };
            reference::terminal_host::run(&args.server, era, args.fault).await?;
            Ok(exit::OK)
        }
        Command::ModelStub(args) => {
            let journal = probe_server::journal::Journal::create(&args.journal).with_context(|| format!("cannot write {}", args.journal.display()))?;
            let stub = stub::start(journal, stub::Scope::Full).await.context("cannot start the model stub")?;
            println!("{}", stub.base_url);
            tokio::signal::ctrl_c().await.context("cannot wait for an interrupt")?;
            stub.stop().await;
            Ok(exit::OK)
        }
    }
}

fn own_exe() -> Result<std::path::PathBuf> {
    std::env::current_exe().context("cannot find this program's own executable")
}

fn bad_input(message: impl Into<String>) -> anyhow::Error {
    Exit { code: exit::BAD_INPUT, message: message.into() }.into()
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
        launch: profile::Launch { args: args.to_vec(), steps: Vec::new(), env: Default::default(), prompt: String::new(), timeout_secs: timeout },
        skills: None,
        interactive: None,
    };
    Ok((profile, std::path::PathBuf::from(program)))
}

async fn probe_client(args: cli::ProbeArgs) -> Result<u8> {
    if args.runs != cli::RunKinds::All && args.records == std::path::Path::new(cli::DEFAULT_RECORDS) {
        return Err(bad_input("--runs headless or interactive makes a partial record: give --records DIR so it does not replace the full one"));
    }
    let target = if let Some(command) = &args.command {
        let (profile, executable) = command_profile(command, args.timeout, args.dialect)?;
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
            eprintln!("mcp-client-probe: {}@{}: installing if needed", profile.name, profile.install.version);
            let installed = install::ensure_installed(&profile).await?;
            eprintln!("mcp-client-probe: {}@{} ready (--version took {} ms)", profile.name, installed.version, installed.version_ms);
            client::Target { profile, executable: installed.executable, version: installed.version }
        }
    };
    let baseline = match &args.expect {
        Some(path) => Some(baseline::Baseline::load(path).map_err(bad_input)?),
        None => None,
    };
    let dir = record::record_dir(&args.records, &target.profile.name, &target.version);
    let mut records = Vec::new();
    let mut repeats_differ = false;
    for round in 1..=args.repeat {
        let mut round_records = Vec::new();
        for transport in args.transport.transports() {
            eprintln!("mcp-client-probe: probing {}@{} over {} (round {round} of {})", target.profile.name, target.version, transport.as_str(), args.repeat);
            let written = client::probe_all(&target, transport, args.runs, &own_exe()?, &dir).await.map_err(|e| anyhow::anyhow!(e))?;
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
        Format::Table => println!("{}", render::terminal(&matrix, terminal_width())),
        Format::Json => println!("{}", render::json(&matrix)),
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

async fn clients(command: cli::ClientsCommand) -> Result<u8> {
    match command {
        cli::ClientsCommand::Install { client } => {
            let profile = profile::find(&profile::default_dir(), &client).map_err(|e| bad_input(e.to_string()))?;
            let installed = install::ensure_installed(&profile).await?;
            println!("{}@{} {}", profile.name, installed.version, installed.executable.display());
        }
        cli::ClientsCommand::List => {
            for profile in profile::load_all(&profile::default_dir()).map_err(|e| bad_input(e.to_string()))? {
                let installed = install::install_dir(&profile).join(&profile.install.executable).exists();
                let dialect = profile.dialect.map_or("none".to_string(), |d| format!("{d:?}").to_lowercase());
                println!("{:<16} {:<10} {:<10} {:<10} {}", profile.name, profile.install.version, dialect, if installed { "installed" } else { "-" }, profile.description);
            }
        }
    }
    Ok(exit::OK)
}

async fn probe(args: cli::ProbeArgs) -> Result<u8> {
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
                specs.extend(selftest::scenarios(transport, era, host).into_iter().map(|scenario| RunSpec { transport, era, scenario, host, variation: None, ablation }));
            }
        }
    }
    let results = selftest::execute(specs, own_exe()?, 4, args.keep_journals).await;
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
    let merged = run::merge_scenarios(&unablated);
    let runs: Vec<_> = merged.iter().collect();
    let matrix = matrix::from_runs("reference", &runs);
    match args.format.format {
        Format::Table => println!("{}", render::terminal(&matrix, terminal_width())),
        Format::Json => println!("{}", render::json(&matrix)),
    }
    Ok(if results.iter().any(|r| r.harness_error.is_some()) { exit::HARNESS } else { exit::OK })
}

async fn self_test(args: cli::SelfTestArgs) -> Result<u8> {
    let specs = selftest::plan(&args.transport.transports());
    let results = selftest::execute(specs, own_exe()?, args.jobs, None).await;
    let report = selftest::evaluate(&results);
    match args.format.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Table => {
            println!("{}", render::terminal(&report.matrix, terminal_width()));
            for m in &report.mismatches {
                println!("MISMATCH {} {} {} [{}] {}: {}", m.transport, m.era, m.scenario, m.ablation, m.probe, m.problem);
            }
            if let Some(slowest) = results.iter().max_by_key(|r| r.duration_ms) {
                let ablation = slowest.spec.ablation.map_or("none", |a| a.id());
                eprintln!("slowest run: {} {} [{ablation}] {} ms", slowest.spec.transport.as_str(), slowest.spec.era, slowest.duration_ms);
            }
            println!("{} variations, {} changed verdicts", report.variations, report.variation_changes);
            println!("{} runs; {} probes proven; {} mismatches", report.runs, report.probes_proven, report.mismatches.len());
        }
    }
    Ok(if report.passed() { exit::OK } else { exit::MISMATCH })
}

fn judge(args: cli::JudgeArgs) -> Result<u8> {
    let (observations, verdicts) = run::judge_recorded(&args.journal).map_err(|e| Exit { code: exit::BAD_INPUT, message: e.to_string() })?;
    match args.format.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&verdicts)?),
        Format::Table => {
            if let Some(life) = observations.lifecycle() {
                println!("era {} · requested {} · negotiated {}", life.era, life.requested_version.unwrap_or_default(), life.negotiated_version.unwrap_or_default());
            }
            if observations.truncated {
                println!("note: the journal's last line was cut off (the writer stopped mid-line)");
            }
            for v in &verdicts {
                println!("{:<36} {:<14} {}", v.probe, v.outcome.label(), v.detail);
            }
        }
    }
    Ok(exit::OK)
}

/// `PROBES.md`: every probe in matrix order with what it serves and the evidence it looks for.
fn probe_catalogue() -> String {
    use std::fmt::Write;
    let mut out = String::from("# Probe catalogue\n\nGenerated by `cargo run -- probes --catalogue > PROBES.md`; a test fails when it is stale.\n");
    out.push_str(
        "\nMost probes are judged on the standard server. A probe that needs the server to behave differently for a whole \
session names its server variant; a client is run once per variant and each probe is judged on its own variant's journal.\n",
    );
    let mut area = None;
    for p in registry::probes() {
        if area != Some(p.area()) {
            area = Some(p.area());
            let _ = write!(out, "\n## {}\n", p.area().title());
        }
        let eras: Vec<_> = p.eras().iter().map(|e| e.as_str()).collect();
        let transports: Vec<_> = p.transports().iter().map(|t| format!("{t:?}").to_lowercase()).collect();
        let _ = write!(out, "\n### `{}` — {}\n\n", p.id(), p.title());
        let _ = writeln!(out, "- eras: {}; transports: {}; revisions: {}", eras.join(", "), transports.join(", "), p.revisions().join(", "));
        let _ = writeln!(out, "- serves: {}", p.serves());
        if !p.scenario().is_standard() {
            let _ = writeln!(out, "- server variant `{}`: {}", p.scenario(), p.scenario().description());
        }
        if !p.wire_judged() {
            let _ = writeln!(out, "- needs a model transcript: recorded, not judged from the wire");
        }
        if p.needs_model() {
            let _ = writeln!(out, "- judged from the model stub's journal (what the host showed its model) beside the server's; evidence lines are the model journal's");
        }
        let evidence: Vec<&str> = p.evidence().lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        let _ = writeln!(out, "\n{}", evidence.join(" "));
    }
    out
}

fn list_probes(format: Format) {
    let probes: Vec<_> = registry::probes()
        .iter()
        .map(|p| serde_json::json!({"id": p.id(), "area": p.area(), "title": p.title(), "revisions": p.revisions(), "eras": p.eras(), "scenario": p.scenario(), "serves": p.serves(), "wire_judged": p.wire_judged()}))
        .collect();
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&probes).unwrap_or_default()),
        Format::Table => {
            for p in registry::probes() {
                let eras: Vec<_> = p.eras().iter().map(|e| e.as_str()).collect();
                println!("{:<36} {:<14} {}", p.id(), eras.join("+"), p.title());
            }
        }
    }
}

fn list_ablations(format: Format) {
    let all = reference::Ablation::ALL;
    match format {
        Format::Json => {
            let rows: Vec<_> = all.iter().map(|a| serde_json::json!({"ablation": a.id(), "target": a.target(), "changes": a.description()})).collect();
            println!("{}", serde_json::to_string_pretty(&rows).unwrap_or_default());
        }
        Format::Table => {
            for a in all {
                println!("{:<30} {:<36} {}", a.id(), a.target(), a.description());
            }
            println!("\nvariations (legal behaviours of real hosts; no verdict may change but the effects named):");
            for v in reference::Variation::ALL {
                let effects = if v.effects().is_empty() { "-".to_string() } else { v.effects().join(", ") };
                println!("{:<30} {:<36} {}", v.id(), effects, v.description());
            }
        }
    }
}
