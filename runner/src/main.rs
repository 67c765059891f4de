//! `mcp-client-probe`: measures what MCP clients actually do.
//!
//! Exit codes (see [`exit`]): 0 success; 1 a comparison failed (the self-test, `--expect`,
//! `matrix check`); 2 bad input (usage, unreadable or invalid files); 3 the harness itself failed.

mod bench;
mod cli;
mod clients;
mod commands;
mod drivers;
mod exit;
mod features;
mod harness;
mod progress;
mod records;
mod reference;
mod render;
mod runs;

use std::process::ExitCode;

use clap::Parser;

use cli::Cli;

/// The self-test runs dozens of sessions in one process, each building and dropping JSON values
/// on every frame: glibc's allocator spent a third of its CPU in malloc and its arena locks.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc asks the kernel for transparent huge pages, and zeroing each new 2 MiB page was a
/// third of the self-test's CPU time (its runs come and go, each with fresh memory). Turned off
/// as mimalloc itself does with `MIMALLOC_ALLOW_THP=0`; what this process starts inherits it
/// (for a launched host that changes how its memory is backed, nothing it can see).
fn without_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_THP_DISABLE takes integer arguments and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn main() -> ExitCode {
    without_huge_pages();
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("fake-client") {
        commands::fake_client::run(&args[2..]);
    }
    harness::launch::mark_runner();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version go out as clap writes them; a usage error is one line on stderr.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprintln!("mcp-client-probe: a command is required (see --help)");
            return ExitCode::from(exit::BAD_INPUT);
        }
        Err(e) => {
            // clap's message up to its usage section, on one line.
            let rendered = e.render().to_string();
            // One hint at the end, not clap's own as well.
            let message: Vec<&str> =
                rendered.lines().take_while(|l| !l.starts_with("Usage:")).map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("For more information")).collect();
            eprintln!("mcp-client-probe: {} (see --help)", message.join(" ").trim_start_matches("error: "));
            return ExitCode::from(exit::BAD_INPUT);
        }
    };
    progress::set_quiet(cli.quiet);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp-client-probe: cannot start the async runtime: {e}");
            return ExitCode::from(exit::HARNESS);
        }
    };
    // The harness commands clean up after an interrupt; the probe server and the fake hosts keep
    // the default dispositions (a client that ends its server by a signal sees what it expects).
    let sweeps = matches!(cli.command, cli::Command::Probe(_) | cli::Command::SelfTest(_) | cli::Command::Matrix(_) | cli::Command::Bench(_) | cli::Command::Clients(_));
    // Journals kept on request stay kept after an interrupt: the message says where.
    let kept_journals = match &cli.command {
        cli::Command::Probe(args) => args.keep_journals.clone(),
        cli::Command::SelfTest(args) => args.keep_journals.clone(),
        cli::Command::Matrix(cli::MatrixCommand::Refresh { keep_journals, .. }) => keep_journals.clone(),
        _ => None,
    };
    let code = runtime.block_on(async {
        // The handlers are in place before the command starts anything: a signal that arrives
        // while the command's first step runs is caught, not fatal.
        let signals = if sweeps { Signals::register() } else { None };
        tokio::select! {
            outcome = commands::dispatch(cli.command, cli.schemas) => match outcome {
                Ok(code) => code,
                Err(err) => {
                    progress::end();
                    // One line, whatever the causes' own formatting (a TOML error draws a caret diagram).
                    let text = format!("{err:#}");
                    eprintln!("mcp-client-probe: {}", text.split_whitespace().collect::<Vec<_>>().join(" "));
                    commands::exit_code_of(&err)
                }
            },
            code = interrupted(signals) => {
                // The command's futures are dropped here: their scratch and staging directories go with them.
                // The message goes on a line of its own, not onto the bar's.
                progress::end();
                let swept = harness::launch::sweep_runner().await;
                let kept = kept_journals.as_ref().map_or(String::new(), |dir| format!(" (the journals of the runs that had finished are kept in {})", dir.display()));
                eprintln!("mcp-client-probe: interrupted; {swept} process(es) of the run killed, nothing recorded{kept}");
                code
            }
        }
    });
    // Tasks still running (the self-test's runs) are dropped with their temporaries.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    ExitCode::from(code)
}

/// SIGINT and SIGTERM, caught from the moment they are registered.
struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
}

impl Signals {
    fn register() -> Option<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        Some(Signals { int: signal(SignalKind::interrupt()).ok()?, term: signal(SignalKind::terminate()).ok()? })
    }
}

/// Resolves with the exit code when SIGINT or SIGTERM arrives; never without signals to watch.
async fn interrupted(signals: Option<Signals>) -> u8 {
    let Some(mut signals) = signals else { return std::future::pending().await };
    tokio::select! {
        _ = signals.int.recv() => exit::INTERRUPTED,
        _ = signals.term.recv() => exit::TERMINATED,
    }
}
