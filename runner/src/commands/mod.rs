//! The subcommands: `dispatch` sends each parsed command to its module.

pub mod serve;

mod catalogue;
mod clients;
pub mod fake_client;
mod judge;
pub mod matrix;
mod probe;
mod self_test;
mod site;
mod which;

use std::io::IsTerminal;

use anyhow::{Context, Result};
use probe_server::Era;

use crate::cli::{Command, Format};
use crate::exit::{self, bad_input};
use crate::{drivers::stub, reference};

/// Where `reference-host` finds the model's URL without `--model-url`.
pub const MODEL_URL_VAR: &str = "MCP_CLIENT_PROBE_MODEL_URL";

pub async fn dispatch(command: Command, schemas: Option<std::path::PathBuf>) -> Result<u8> {
    if matches!(command, Command::Probe(_) | Command::SelfTest(_) | Command::Matrix(_) | Command::Bench(_) | Command::Judge(_)) {
        // Read before anything runs: a directory without schemas is bad input.
        crate::harness::wire::configure(schemas).map_err(exit::bad_input_from)?;
    }
    match command {
        Command::Serve(args) => crate::commands::serve::serve(args).await.map(|_| exit::OK),
        Command::Probe(args) => probe::probe(*args).await,
        Command::SelfTest(args) => self_test::self_test(args).await,
        Command::Judge(args) => judge::judge(args),
        Command::Clients(command) => clients::clients(command).await,
        Command::Matrix(command) => matrix::run(command, own_exe()?).await,
        Command::Bench(args) if args.storm => {
            let duration = std::time::Duration::from_secs(args.storm_seconds);
            let reports = vec![
                crate::bench::storm::stdio(&own_exe()?, args.storm_rate, duration).await?,
                crate::bench::storm::http(&own_exe()?, args.storm_rate, duration, args.storm_connections).await?,
            ];
            match args.format.format {
                Format::Json => crate::out!("{}", serde_json::to_string_pretty(&reports)?),
                Format::Table => {
                    for r in &reports {
                        crate::out!(
                            "storm {}: sent {} in {:.1} s ({:.0}/s), answered {} (backlog drained {:.1} s after), journalled {}, peak RSS {:.1} MB, p50 {:.2} ms, p99 {:.2} ms",
                            r.transport,
                            r.sent,
                            r.seconds,
                            r.sent_per_second,
                            r.answered,
                            r.drain_seconds,
                            r.journalled,
                            r.peak_rss_mb,
                            r.p50_ms,
                            r.p99_ms
                        );
                    }
                }
            }
            Ok(exit::OK)
        }
        Command::Bench(args) if args.client.is_some() => {
            let name = args.client.as_deref().unwrap_or_default();
            let report = crate::bench::client::run(name, args.client_jobs, args.rounds, &own_exe()?).await?;
            match args.format.format {
                Format::Json => crate::out!("{}", serde_json::to_string_pretty(&report)?),
                Format::Table => {
                    crate::out!("{}@{}: headless probe, both transports", report.client, report.version);
                    crate::out!(
                        "  one run at a time: {:.1} s; slowest run {:.1} s ({})",
                        report.one_at_a_time_ms as f64 / 1e3,
                        report.slowest_run_ms as f64 / 1e3,
                        report.slowest_run
                    );
                    crate::out!("  {} runs at once: {:.1} s = {:.2} × the slowest run", report.jobs, report.at_once_ms as f64 / 1e3, report.ratio_to_slowest_run);
                    if let Some(i) = &report.interactive {
                        crate::out!(
                            "  interactive: {} runs over {} rounds, median {:.1} s, slowest {:.1} s ({}); {} verdict(s) differ between rounds",
                            i.runs,
                            i.rounds,
                            i.median_ms as f64 / 1e3,
                            i.slowest_ms as f64 / 1e3,
                            i.slowest_run,
                            i.differences.len()
                        );
                        for line in &i.differences {
                            crate::out!("    {line}");
                        }
                    }
                }
            }
            Ok(exit::OK)
        }
        Command::Bench(args) => {
            let report = crate::bench::run(args.frames, args.jobs, own_exe()?).await?;
            match args.format.format {
                Format::Json => crate::out!("{}", serde_json::to_string_pretty(&report)?),
                Format::Table => {
                    crate::out!(
                        "journal: {} small frames in {:.3} s = {:.0} frames/s ({} bytes)",
                        report.journal_frames,
                        report.journal_seconds,
                        report.journal_frames_per_second,
                        report.journal_bytes
                    );
                    crate::out!(
                        "self-test: {} runs in {:.2} s ({} jobs), {} mismatches; the runs' own times add up to {:.1} s",
                        report.self_test_runs,
                        report.self_test_seconds,
                        report.self_test_jobs,
                        report.self_test_mismatches.len(),
                        report.self_test_run_seconds_total
                    );
                    for mismatch in &report.self_test_mismatches {
                        crate::out!("  {mismatch}");
                    }
                    if let (Some(before), Some(after)) = (report.tcp_time_wait_before, report.tcp_time_wait_after) {
                        crate::out!("TCP connections in TIME_WAIT: {before} before the self-test, {after} after (compare benches started alike)");
                    }
                    let a = &report.answer_latency;
                    crate::out!(
                        "answers to the server's questions ({}): slowest at-once {:.1} ms ({:.1} ms under the {} ms threshold), quickest by the person {:.1} ms ({:.1} ms over it)",
                        a.answers,
                        a.slowest_fast_ms,
                        a.fast_margin_ms,
                        a.threshold_ms,
                        a.quickest_slow_ms,
                        a.slow_margin_ms
                    );
                    for run in report.self_test_slowest.iter().take(5) {
                        crate::out!("  slow run: {} ms  {}", run.ms, run.run);
                    }
                    crate::out!("render 50 clients × 100 probes: markdown {:.2} ms, terminal table {:.2} ms", report.render_markdown_ms, report.render_terminal_ms);
                }
            }
            Ok(exit::OK)
        }
        Command::Which(args) => which::which(args),
        Command::Features(args) => {
            catalogue::list_features(args.format);
            Ok(exit::OK)
        }
        Command::Probes(args) if args.catalogue => {
            crate::out_raw!("{}", catalogue::probe_catalogue());
            Ok(exit::OK)
        }
        Command::Probes(args) if args.ablations => {
            catalogue::list_ablations(args.format.format);
            Ok(exit::OK)
        }
        Command::Probes(args) => {
            catalogue::list_probes(args.format.format);
            Ok(exit::OK)
        }
        Command::ReferenceHost(args) => {
            let server = match &args.server_file {
                Some(file) => {
                    let text = std::fs::read_to_string(file).map_err(|e| bad_input(format!("cannot read {}: {e}", file.display())))?;
                    shell_words::split(text.trim()).map_err(|e| bad_input(format!("{}: {e}", file.display())))?
                }
                None => args.server.clone(),
            };
            let model_url = match args.model_url.clone().or_else(|| std::env::var(MODEL_URL_VAR).ok()) {
                Some(url) => url,
                None => return Err(bad_input(format!("give --model-url or set {MODEL_URL_VAR}"))),
            };
            let endpoint = match server.split_first() {
                Some((url, [])) if url.starts_with("http://") => reference::Endpoint::Http { url: url.clone() },
                Some((program, rest)) => reference::Endpoint::Stdio { program: program.into(), args: rest.to_vec() },
                None => return Err(bad_input("give the probe server's command line or URL")),
            };
            let limits = reference::host::Limits { tool_timeout: args.tool_timeout_ms.map(std::time::Duration::from_millis), ..Default::default() };
            reference::host::run(&endpoint, Era::Legacy, None, None, &model_url, limits).await?;
            Ok(exit::OK)
        }
        Command::TerminalHost(args) => {
            reference::terminal_host::run(&args.server, args.era, args.fault, args.layout).await?;
            Ok(exit::OK)
        }
        Command::ModelStub(args) => {
            let journal = probe_server::journal::Journal::create(&args.journal).with_context(|| format!("cannot write {}", args.journal.display()))?;
            let stub = stub::start(journal, stub::Scope::Full, stub::plan::SETTLE_MS).await.context("cannot start the model stub")?;
            crate::out!("{}", stub.base_url);
            tokio::signal::ctrl_c().await.context("cannot wait for an interrupt")?;
            stub.stop().await;
            Ok(exit::OK)
        }
    }
}

/// The width tables are drawn to: the terminal's, else `COLUMNS`, else 160.
/// Whether the table goes out in colour: only to a terminal, and never when `NO_COLOR` is set to
/// anything (no-color.org).
pub(crate) fn colour() -> bool {
    wants_colour(std::io::stdout().is_terminal(), std::env::var_os("NO_COLOR").as_deref())
}

fn wants_colour(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty())
}

pub(crate) fn terminal_width() -> Option<u16> {
    if std::io::stdout().is_terminal() {
        let mut size = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: TIOCGWINSZ fills the winsize struct passed by pointer; nothing else is touched.
        let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
        if ok && size.ws_col > 0 {
            return Some(size.ws_col);
        }
    }
    Some(std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(160))
}

/// Prints a matrix as asked: the table (with `--explain`, every non-yes cell's detail after it),
/// or `summarised` (outcomes per area and the cells that are not a yes) unless `--grid`; or JSON;
/// `--only` keeps the probes whose id contains the pattern.
pub(crate) fn print_matrix(matrix: &crate::records::matrix::Matrix, format: crate::cli::MatrixFormatChoice, view: &crate::cli::ViewArgs, summarised: bool) {
    let summarised = summarised && !view.grid;
    use crate::cli::MatrixFormatChoice;
    let mut matrix = matrix.clone();
    if let Some(pattern) = &view.only {
        matrix.rows.retain(|r| r.probe.contains(pattern.as_str()));
    }
    match format {
        MatrixFormatChoice::Table if summarised => {
            crate::out_raw!("{}", crate::render::area_summary(&matrix, terminal_width()));
            crate::out!("`probe --grid` shows every probe's row.");
        }
        MatrixFormatChoice::Table => {
            crate::out!("{}", crate::render::terminal_in(&matrix, terminal_width(), colour()));
            if view.explain {
                crate::out_raw!("{}", crate::render::explain(&matrix));
            }
        }
        MatrixFormatChoice::Json => crate::out!("{}", crate::render::json(&matrix)),
        MatrixFormatChoice::Junit => crate::out_raw!("{}", crate::render::junit(&matrix)),
    }
}

pub(crate) fn own_exe() -> Result<std::path::PathBuf> {
    std::env::current_exe().context("cannot find this program's own executable")
}

/// The exit code an error stands for: its own when it chose one, bad input for the server's
/// bad-input errors, a harness failure otherwise.
pub fn exit_code_of(error: &anyhow::Error) -> u8 {
    if let Some(exit) = error.downcast_ref::<exit::Exit>() {
        return exit.code;
    }
    if error.downcast_ref::<crate::commands::serve::BadInput>().is_some() {
        return exit::BAD_INPUT;
    }
    // A client version the registry does not have: what the user asked for, not the harness.
    if let Some(crate::clients::install::InstallError::NoSuchVersion { .. }) = error.downcast_ref::<crate::clients::install::InstallError>() {
        return exit::BAD_INPUT;
    }
    // A client configured for the other transport: what it was given, not the harness.
    if let Some(crate::runs::session::RunError::WrongTransport { .. }) = error.downcast_ref::<crate::runs::session::RunError>() {
        return exit::BAD_INPUT;
    }
    exit::HARNESS
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_error_maps_to_one_code() {
        use super::{exit, exit_code_of};
        assert_eq!(exit_code_of(&exit::bad_input("no such file")), exit::BAD_INPUT);
        assert_eq!(exit_code_of(&anyhow::anyhow!("the server died")), exit::HARNESS);
        assert_eq!(exit_code_of(&exit::Exit { code: exit::MISMATCH, message: "differs".into() }.into()), exit::MISMATCH);
        let wrong = crate::runs::session::RunError::WrongTransport { client: "c".into(), pass: "stdio", seen: "http" };
        assert_eq!(exit_code_of(&wrong.into()), exit::BAD_INPUT);
    }

    #[test]
    fn colour_goes_only_to_a_terminal_and_never_under_no_color() {
        use std::ffi::OsStr;
        assert!(super::wants_colour(true, None));
        assert!(super::wants_colour(true, Some(OsStr::new(""))), "an empty NO_COLOR is unset (no-color.org)");
        assert!(!super::wants_colour(true, Some(OsStr::new("1"))));
        assert!(!super::wants_colour(false, None));
    }
}
