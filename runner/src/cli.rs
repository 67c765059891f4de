//! The command line. Doc comments here are the help text.

use std::net::SocketAddr;
use std::path::PathBuf;

pub use crate::runs::client::RunKinds;
use clap::{Args, Parser, Subcommand, ValueEnum};
use probe_server::EraPolicy;

use crate::harness::Transport;
use crate::reference::Ablation;

const AFTER_HELP: &str = "\
Examples:
  mcp-client-probe probe                          probe the built-in reference client
  mcp-client-probe probe codex --records out      install the pinned Codex, probe it, records in out/
  mcp-client-probe probe --command 'my-client {server}' --transport stdio
                                                  probe any client by command line
  mcp-client-probe probe codex --only elicitation. --explain
                                                  only the elicitation probes, with every non-yes detail
  mcp-client-probe self-test                      prove every probe discriminates
  mcp-client-probe matrix render                  matrices/MATRIX.md from the committed records
  mcp-client-probe judge journal.jsonl            judge a recorded journal

Exit codes:
  0    success
  1    a comparison failed (self-test, --expect, --repeat, matrix check, refresh --check)
  2    bad input: refused before anything ran or was written
  3    the harness failed (a server, stub or client could not be started)
  4    the client never opened an MCP session in any run (its record still written)
  130  interrupted (SIGINT); 143 stopped (SIGTERM): the run's processes killed, nothing recorded";

const PROBE_AFTER_HELP: &str = "\
Examples:
  Probe a client that has a profile, at its pinned version, and keep its record:
    mcp-client-probe probe codex --records out
  Probe a host with no profile, over stdio: {server} becomes the probe server's command line,
  the model stub's URL goes in an environment variable, and its configuration is a file:
    mcp-client-probe probe --command 'my-host --config {work}/mcp.json -p \"{prompt}\"' \\
      --name my-host --client-version 1.2.3 --transport stdio --dialect chat \\
      --env 'OPENAI_BASE_URL={stub_url}/v1' \\
      --file 'mcp.json={\"mcpServers\":{\"probe\":{\"command\":{server_command_json},\"args\":{server_args_json}}}}'
  Re-check the elicitation probes of one client only, with the detail of every verdict not yes:
    mcp-client-probe probe claude-code --only elicitation. --explain

Placeholders: {home} {work} {stub_url} {prompt} {server} {server_url} {server_command}
{server_command_json} {server_args_json} {server_argv_json} {server_command_line} {skills_dir}
(docs/hosts.md says what each becomes). Exit codes: see mcp-client-probe --help.";

/// Measures what MCP clients actually do, as opposed to what they declare.
#[derive(Debug, Parser)]
#[command(name = "mcp-client-probe", version, about, after_help = AFTER_HELP)]
pub struct Cli {
    /// No progress lines on stderr (results and errors still appear).
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// The official MCP schemas to check client frames against (default: $MCP_SCHEMA_DIR).
    ///
    /// A directory with one folder per revision (`<DIR>/<revision>/schema.json`): runs check every
    /// frame the client sent against the negotiated revision's (`wire.client_frames_valid`).
    /// Without it or $MCP_SCHEMA_DIR nothing is checked and that probe says not-reached.
    #[arg(long, global = true, value_name = "DIR")]
    pub schemas: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the instrumented probe server on its own (stdio or Streamable HTTP on loopback).
    Serve(ServeArgs),
    /// Probe a client and print its capability matrix. Without CLIENT, probes the built-in
    /// reference client.
    #[command(after_help = PROBE_AFTER_HELP)]
    Probe(Box<ProbeArgs>),
    /// Prove every probe: the full reference client must pass each, and each probe must fail
    /// under its ablation. Exits 1 on any mismatch.
    SelfTest(SelfTestArgs),
    /// Measure journal throughput and the self-test's wall time (build with --release).
    Bench(BenchArgs),
    /// Judge a recorded journal and print the verdicts.
    Judge(JudgeArgs),
    /// The dated capability matrix: render, check, diff, refresh, schema.
    #[command(subcommand)]
    Matrix(MatrixCommand),
    /// Install pinned clients into the cache, or list the known client profiles.
    #[command(subcommand)]
    Clients(ClientsCommand),
    /// List the probes: id, area, eras, what each serves.
    Probes(ProbesArgs),
    /// List the features a server author builds on: id, title, the probes that show each.
    Features(FormatArgs),
    /// Which clients support every ITEM (a feature, e.g. `elicitation-forms`, or a probe id), from
    /// the committed records: one row per client at its newest version, and since which version
    /// where older versions are on record. An unknown item exits 2 with close matches.
    Which(WhichArgs),
    /// The reference host as a program of its own (client plus a Chat Completions model loop), for
    /// `probe --command … --dialect chat`. SERVER is the probe server's command line (stdio) or URL.
    #[command(hide = true)]
    ReferenceHost(ReferenceHostArgs),
    /// The scripted model stub on its own, for driving a host by hand: prints its base URL and
    /// serves until interrupted.
    #[command(hide = true)]
    ModelStub(ModelStubArgs),
    /// The fake terminal host (the interactive probes' ground truth): an MCP client with a
    /// terminal UI, to be run in a terminal. SERVER is the probe server's command line.
    #[command(hide = true)]
    TerminalHost(TerminalHostArgs),
}

#[derive(Debug, Args)]
pub struct TerminalHostArgs {
    /// The protocol era to speak.
    #[arg(long, default_value = "modern", value_parser = parse_one_era)]
    pub era: probe_server::Era,
    /// Behave like a faulty host (repeatable).
    #[arg(long, value_enum)]
    pub fault: Vec<crate::reference::terminal_host::Fault>,
    /// How forms are drawn.
    #[arg(long, value_enum, default_value_t)]
    pub layout: crate::reference::terminal_host::Layout,
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub server: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ModelStubArgs {
    /// Where to journal the model requests and replies (JSONL).
    #[arg(long, value_name = "FILE")]
    pub journal: std::path::PathBuf,
}

#[derive(Debug, Args)]
pub struct ReferenceHostArgs {
    /// The model's base URL (the stub's `{stub_url}`); default: the environment variable
    /// `MCP_CLIENT_PROBE_MODEL_URL`.
    #[arg(long, value_name = "URL")]
    pub model_url: Option<String>,
    /// Read the probe server's command line (shell-quoted) or URL from this file instead.
    #[arg(long, value_name = "FILE", conflicts_with = "server")]
    pub server_file: Option<PathBuf>,
    /// Give up on a tool call after this many milliseconds, as hosts with a tool timeout do
    /// (default: wait however long it takes).
    #[arg(long, value_name = "MS")]
    pub tool_timeout_ms: Option<u64>,
    /// The probe server: a URL, or a command and its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub server: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatrixFormat {
    /// `MATRIX.md`, written to --out.
    Markdown,
    /// A table for the terminal.
    Table,
    /// The matrix as JSON.
    Json,
    /// Results in the canimcp shape: run_date, spec_version, per-client features.
    Canimcp,
    /// The capabilities each client declared, keyed by its clientInfo name.
    Declared,
}

#[derive(Debug, Subcommand)]
pub enum MatrixCommand {
    /// Render the matrix from the committed records.
    Render {
        /// The records directory (or one record file).
        #[arg(long, default_value = "matrices/records")]
        records: PathBuf,
        /// Where the markdown goes (other formats print to stdout).
        #[arg(long, default_value = "matrices/MATRIX.md")]
        out: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = MatrixFormat::Markdown)]
        format: MatrixFormat,
    },
    /// Fail (exit 1) when MATRIX.md differs from what the records produce.
    Check {
        /// The records directory.
        #[arg(long, default_value = "matrices/records")]
        records: PathBuf,
        /// The rendered matrix to compare.
        #[arg(long, default_value = "matrices/MATRIX.md")]
        matrix: PathBuf,
    },
    /// Fixed, regressed, changed, new and removed verdicts between two records or directories.
    Diff {
        /// A record file or records directory: the earlier run.
        before: PathBuf,
        /// The same, the later run.
        after: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Exit 1 when a verdict regressed (a yes became anything else).
        #[arg(long)]
        fail_on_regression: bool,
        /// Leave out the verdicts only the later run has (probes added since), so that what
        /// changed stands out.
        #[arg(long)]
        hide_new: bool,
    },
    /// Re-probe every pinned client (installing as needed), rewrite the records, render.
    /// With --check, write nothing and fail when any verdict differs from the committed records.
    Refresh {
        /// Write nothing; exit 1 when a fresh verdict differs from the committed one.
        #[arg(long)]
        check: bool,
        /// The committed records.
        #[arg(long, default_value = "matrices/records")]
        records: PathBuf,
        /// Where the rendered matrix goes.
        #[arg(long, default_value = "matrices/MATRIX.md")]
        out: PathBuf,
        /// Only these clients (repeatable); all profiles when absent (and no --changed-since or
        /// --rotate).
        #[arg(long = "client", value_name = "NAME")]
        clients: Vec<String>,
        /// Only the clients whose profile (and so pinned version) or committed records differ
        /// between this git revision and the work tree, with --client's and --rotate's.
        #[arg(long, value_name = "REV")]
        changed_since: Option<String>,
        /// Also N clients in rotation, chosen from the checked-out commit's id, so that successive
        /// commits walk through every client.
        #[arg(long, value_name = "N")]
        rotate: Option<usize>,
        /// Probe the newest version each chosen client's registry offers instead of the pinned
        /// one: its records go beside the older versions', the profile's pin moves to it, and
        /// what changed since the pinned version is printed. A version that does not install,
        /// start or open a session is reported and its pin stays.
        #[arg(long, conflicts_with = "check")]
        latest: bool,
        /// How many runs at once, across the clients (each profile may allow fewer).
        #[arg(long, value_name = "N", default_value_t = default_client_jobs(), value_parser = jobs_in_range)]
        jobs: usize,
        /// With --check: keep the fresh records and journals in this directory (new or empty),
        /// and those of the runs made again under `again-<try>/`, to see why a verdict differed.
        #[arg(long, value_name = "DIR", requires = "check")]
        keep_journals: Option<PathBuf>,
    },
    /// Judge every record's journals again with today's judges and rewrite the verdicts that
    /// changed (and MATRIX.md). With --check, write nothing: exit 1 when an outcome or a
    /// declaration differs from the committed one. A verdict whose journals are not beside its
    /// record stays as recorded.
    Rejudge {
        /// Write nothing; exit 1 when a verdict's outcome or declaration would change.
        #[arg(long)]
        check: bool,
        /// The records directory (or one client's, one version's, or one record).
        #[arg(long, default_value = "matrices/records")]
        records: PathBuf,
        /// Where the rendered matrix goes (when the records are the committed ones).
        #[arg(long, default_value = "matrices/MATRIX.md")]
        out: PathBuf,
    },
    /// Store the model journals beside the records compacted: each model request kept as a change
    /// to the one before (it repeats the conversation so far), read back byte for byte. Journals
    /// already compacted are left as they are; `probe` and `refresh` write them compacted.
    Compact {
        /// The records directory (or one record file).
        #[arg(long, default_value = "matrices/records")]
        records: PathBuf,
    },
    /// Write the matrix as a static site: a feature-first index, a page per host (every version on
    /// record, with what changed between them), a page per probe with its history, and every journal
    /// as a page whose lines can be linked to. With --check, write nothing: exit 1 when a link or
    /// anchor does not resolve, or when --out holds a site that is stale.
    Site {
        /// The records directory.
        #[arg(long, default_value = "matrices/records")]
        records: PathBuf,
        /// Where the site goes (replaced when it holds a site this command wrote; refused when it
        /// holds anything else).
        #[arg(long, default_value = "target/site")]
        out: PathBuf,
        /// Write nothing; check the links, and that --out (when it holds a site) is up to date.
        #[arg(long)]
        check: bool,
    },
    /// Write the JSON schema of records (generated from the Rust types); --check fails when stale.
    Schema {
        /// Where the schema goes.
        #[arg(long, default_value = "matrices/schema/record.schema.json")]
        out: PathBuf,
        /// Write nothing; exit 1 when the committed schema is stale.
        #[arg(long)]
        check: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ClientsCommand {
    /// Install `name[@version]` (idempotent) and verify the version it reports.
    Install {
        /// A profile's name (its pinned version), or name@version: a version the registry does
        /// not have is refused before anything is installed.
        client: String,
    },
    /// List the client profiles and whether each pinned version is installed.
    List,
    /// For each profile, the pinned version and the newest its registry offers (asked with `npm
    /// view` or `pip index versions`), with the release date where the registry gives it. A
    /// registry that cannot be asked exits 3.
    Outdated {
        /// Only these clients (repeatable).
        #[arg(long = "client", value_name = "NAME")]
        clients: Vec<String>,
        #[command(flatten)]
        format: FormatArgs,
    },
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("transport").required(true).args(["stdio", "http"]))]
pub struct ServeArgs {
    /// Serve newline-delimited JSON-RPC on stdin/stdout.
    #[arg(long)]
    pub stdio: bool,
    /// Serve Streamable HTTP on this loopback address (port 0 picks a free port).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// Where to write the wire journal (JSONL).
    #[arg(long, value_name = "FILE")]
    pub journal: PathBuf,
    /// Which protocol eras to serve.
    #[arg(long, default_value = "dual", value_parser = parse_era)]
    pub era: EraPolicy,
    /// Serve exactly this protocol version (a counter-offer to legacy clients).
    #[arg(long, value_name = "V")]
    pub protocol_version: Option<String>,
    /// The server variant: standard, subscribe-unadvertised, subscribe-fails, session-expires
    /// (HTTP), stream-drop (HTTP), and the others `probes --catalogue` names (`--scenario` is
    /// the same flag by its older name).
    #[arg(long, alias = "scenario", default_value = "standard", value_parser = parse_variant)]
    pub variant: probe_server::Variant,
    /// In the interactive-withdrawn variant, withdraw the request after this many milliseconds
    /// instead of 6 s (the self-test's person is quicker than a real one).
    #[arg(long, value_name = "MS")]
    pub withdraw_after_ms: Option<u64>,
    /// How long a request to the client (sampling, roots, elicitation) waits for its answer before
    /// it is cancelled, in milliseconds (default 10 s; the interactive variants wait for a person).
    #[arg(long, value_name = "MS")]
    pub answer_timeout_ms: Option<u64>,
    /// In the long-calls variant, how long the slow call runs, in milliseconds (default 8 s).
    #[arg(long, value_name = "MS")]
    pub long_call_ms: Option<u64>,
    /// How long `probe_progress` waits between its notifications and its result, in milliseconds
    /// (default 250).
    #[arg(long, value_name = "MS")]
    pub progress_gap_ms: Option<u64>,
}

/// How many reference runs at once by default: 48 per core in a release build, 6 in a debug
/// one. A run spends most of its time waiting (a simulated person's pause, a settled turn), not
/// computing; a debug build computes about eight times as long. Measured with `bench` and
/// `self-test` on 2 cores, the kernel's huge pages off (see `main`), the reference runs' scratch
/// in memory: in a release build at 96 runs at once the slowest at-once answer took 18–28 ms in
/// four rounds (72 ms or more inside the 100 ms auto-answer threshold) and no self-test had a
/// mismatch; at 128 the fake terminal host's focus once seemed not to move within its 1 s, and
/// (with shorter timings than the reference runs keep now) a progress came too late; in a debug
/// build at 64, two self-tests in two saw a 3 ms decline take over 100 ms; `bench` on a debug
/// build gave the slowest at-once answer 9.5 ms at 8, 15.4 ms at 12, 30 ms at 16, 70.5 ms at 32.
pub fn default_jobs() -> usize {
    let per_core = if cfg!(debug_assertions) { 6 } else { 48 };
    std::thread::available_parallelism().map_or(2, |n| n.get()) * per_core
}

/// How many runs of real clients at once by default: one. Real clients' timing verdicts do not
/// hold under their own load on a small machine: on 2 cores, at 4 runs at once, one
/// `matrix refresh --check` in four saw Claude Code's at-once declines take over 100 ms (5
/// auto-answered verdicts became no) and Codex not reach its DELETE. More at once is `--jobs N`,
/// for a machine with cores to spare.
pub fn default_client_jobs() -> usize {
    1
}

/// An argument that should have been `KEY=VALUE` (or `PATH=TEXT`).
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not KEY=VALUE")]
pub struct NotAnAssignment(String);

/// `KEY=VALUE` (or `PATH=TEXT`) split at its first `=`; the key may not be empty.
fn parse_assignment(s: &str) -> Result<(String, String), NotAnAssignment> {
    match s.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(NotAnAssignment(s.to_string())),
    }
}

/// `--jobs` was not a number of runs from 1 to 1024.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a number of runs from 1 to 1024")]
pub struct JobsOutOfRange(String);

/// A number of runs at once: 1 to 1024.
fn jobs_in_range(s: &str) -> Result<usize, JobsOutOfRange> {
    s.parse::<usize>().ok().filter(|n| (1..=1024).contains(n)).ok_or_else(|| JobsOutOfRange(s.to_string()))
}

fn parse_variant(s: &str) -> Result<probe_server::Variant, probe_server::variant::UnknownVariant> {
    s.parse()
}

fn parse_era(s: &str) -> Result<EraPolicy, probe_server::era::UnknownEra> {
    s.parse()
}

fn parse_one_era(s: &str) -> Result<probe_server::Era, probe_server::era::UnknownEra> {
    s.parse()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
}

/// What part of a matrix to show, and how much of it.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// After the table, the judge's detail of every cell that is not a yes.
    #[arg(long)]
    pub explain: bool,
    /// Only the probes whose id contains this (`elicitation.`, `skills.get`), and only the runs
    /// they are judged on (a client's record is then partial: give --records DIR).
    #[arg(long, value_name = "PATTERN")]
    pub only: Option<String>,
    /// Also write the baseline these verdicts meet (what --expect reads) to FILE.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// For the reference client: every probe's row, as for a real client (without it, outcomes
    /// per area and the cells that are not a yes).
    #[arg(long)]
    pub grid: bool,
}

#[derive(Debug, Args)]
pub struct FormatArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TransportChoice {
    Stdio,
    Http,
    Both,
}

impl TransportChoice {
    pub fn transports(self) -> Vec<Transport> {
        match self {
            TransportChoice::Stdio => vec![Transport::Stdio],
            TransportChoice::Http => vec![Transport::Http],
            TransportChoice::Both => vec![Transport::Stdio, Transport::Http],
        }
    }
}

/// The committed records: `probe` writes here only with `--update` (or when given it as
/// `--records`), and then renders `MATRIX.md` beside it again.
pub const COMMITTED_RECORDS: &str = "matrices/records";
/// The matrix rendered from the committed records.
pub const COMMITTED_MATRIX: &str = "matrices/MATRIX.md";

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The client to probe: a profile name (see `clients list`), name@version, or a path to a
    /// client executable (given the server as its arguments). Omit for the reference client.
    pub client: Option<String>,
    /// Probe any client by command line instead: `{server}` becomes the probe server's command and
    /// arguments (stdio) or its URL (HTTP); `{server_url}` and `{server_command_line}` also work.
    #[arg(long, value_name = "COMMAND LINE", conflicts_with = "client")]
    pub command: Option<String>,
    /// For --command: the host talks to a model in this dialect; the model stub is started and
    /// `{stub_url}` in the command line becomes its base URL.
    #[arg(long, value_enum, requires = "command")]
    pub dialect: Option<crate::drivers::stub::Dialect>,
    /// Probe the client this profile file describes (a TOML profile outside the catalogue).
    #[arg(long, value_name = "FILE.toml", conflicts_with_all = ["client", "command"])]
    pub profile: Option<PathBuf>,
    /// For --command: the client's name in records and the matrix (default: the program's file name).
    #[arg(long, value_name = "NAME", requires = "command")]
    pub name: Option<String>,
    /// For --command: the client's version in records and the matrix (default: unversioned).
    #[arg(long, value_name = "VERSION", requires = "command")]
    pub client_version: Option<String>,
    /// For --command: an environment variable for the client (repeatable; the value may use the
    /// profile placeholders, e.g. `--env OPENAI_BASE_URL={stub_url}/v1`).
    #[arg(long = "env", value_name = "KEY=VALUE", requires = "command", value_parser = parse_assignment)]
    pub envs: Vec<(String, String)>,
    /// For --command: a file to write before the client starts (repeatable; PATH relative to the
    /// client's working directory, TEXT with placeholders, e.g. `--file mcp.json={"url":"{server_url}"}`).
    #[arg(long = "file", value_name = "PATH=TEXT", requires = "command", value_parser = parse_assignment)]
    pub files: Vec<(String, String)>,
    /// For --command: as --file, written only for the stdio runs (a configuration that names the
    /// server's command line; give the HTTP runs theirs with --file-http).
    #[arg(long = "file-stdio", value_name = "PATH=TEXT", requires = "command", value_parser = parse_assignment)]
    pub files_stdio: Vec<(String, String)>,
    /// For --command: as --file, written only for the HTTP runs (a configuration that names
    /// `{server_url}`).
    #[arg(long = "file-http", value_name = "PATH=TEXT", requires = "command", value_parser = parse_assignment)]
    pub files_http: Vec<(String, String)>,
    /// Where records go: `<DIR>/<client>/<version>/<transport>.json` with journals beside them
    /// (default: `records` under the cache directory; never the committed records unless asked).
    #[arg(long, value_name = "DIR", conflicts_with = "update")]
    pub records: Option<PathBuf>,
    /// Write into the committed records (`matrices/records`) and render `matrices/MATRIX.md` again.
    #[arg(long)]
    pub update: bool,
    /// For --command and path clients: seconds before the client is stopped (default 60; a
    /// profile sets its own).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: Option<u64>,
    /// Fail (exit 1) on any verdict that is neither yes nor n/a and not listed in this baseline,
    /// and on any listed entry that no longer holds. A baseline is TOML: `[[expect]]` tables of
    /// `probe`, `outcome`, optional `transport` and `reason` (docs/commands.md: "Gating a client's CI";
    /// `--write-baseline FILE` writes one from a run).
    #[arg(long, value_name = "BASELINE.toml")]
    pub expect: Option<PathBuf>,
    /// Which transports to probe over.
    #[arg(long, value_enum, default_value_t = TransportChoice::Both)]
    pub transport: TransportChoice,
    /// Reference client only: remove or break one feature (see `probes --ablations`).
    #[arg(long, value_name = "NAME", value_parser = parse_ablation, conflicts_with_all = ["client", "command"])]
    pub ablation: Option<Ablation>,
    /// Reference client only: keep each run's journal in this directory (a client's journals go
    /// beside its record).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["client", "command"])]
    pub keep_journals: Option<PathBuf>,
    /// Which runs to make for a profiled client: headless ones, interactive ones (through a
    /// terminal, for profiles with an `interactive` section), or all. A partial probe needs
    /// --records, so it never replaces a full record.
    #[arg(long, value_enum, default_value_t = RunKinds::All)]
    pub runs: RunKinds,
    /// Probe this many times in a row and compare the verdicts; exit 1 if any differ.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub repeat: u32,
    /// How many runs at once: server variants and transports of a client (a profile may allow
    /// fewer; default 1); for the reference client, its runs (default: as the self-test's).
    #[arg(long, value_name = "N", value_parser = jobs_in_range)]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub view: ViewArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MatrixFormatChoice::Table)]
    pub format: MatrixFormatChoice,
}

/// How `probe` prints its matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatrixFormatChoice {
    Table,
    Json,
    /// JUnit XML for CI systems: a test suite per column, a test case per probe.
    Junit,
}

fn parse_ablation(s: &str) -> Result<Ablation, crate::reference::ablation::UnknownAblation> {
    s.parse()
}

#[derive(Debug, Args)]
pub struct SelfTestArgs {
    /// Which transports to test.
    #[arg(long, value_enum, default_value_t = TransportChoice::Both)]
    pub transport: TransportChoice,
    /// How many runs at once (default: 48 per core, 6 in a debug build; the runs mostly wait).
    #[arg(long, default_value_t = default_jobs(), value_parser = jobs_in_range)]
    pub jobs: usize,
    /// Keep each run's journal in this directory (to see why a run came out as it did).
    #[arg(long, value_name = "DIR")]
    pub keep_journals: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// How many small frames to journal.
    #[arg(long, default_value_t = 1_000_000)]
    pub frames: u64,
    /// How many self-test runs at once (default: 48 per core, 6 in a debug build).
    #[arg(long, default_value_t = default_jobs(), value_parser = jobs_in_range)]
    pub jobs: usize,
    /// Bench probing this real client instead (a profile name): the headless probe one run at a
    /// time and with --client-jobs at once, and --rounds rounds of its interactive runs.
    #[arg(long, value_name = "NAME")]
    pub client: Option<String>,
    /// With --client: how many of its runs at once in the concurrent pass.
    #[arg(long, value_name = "N", default_value_t = default_client_jobs(), value_parser = jobs_in_range)]
    pub client_jobs: usize,
    /// Rounds of the client's interactive runs (0: none).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub rounds: u32,
    /// Run the storm benchmark instead: a retry loop of failing `resources/subscribe` requests at
    /// --storm-rate per second for --storm-seconds, over stdio and HTTP, at the probe server in
    /// its own process (server variant subscribe-fails).
    #[arg(long)]
    pub storm: bool,
    /// With --storm: failing requests per second (at least 1).
    #[arg(long, value_name = "N", default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub storm_rate: u64,
    /// With --storm: how many seconds the storm lasts (at least 1).
    #[arg(long, value_name = "S", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub storm_seconds: u64,
    /// Concurrent HTTP connections during the storm (at least 1).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub storm_connections: usize,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Debug, Args)]
pub struct ProbesArgs {
    /// List the reference client's ablations instead: name, target probe, what changes.
    #[arg(long)]
    pub ablations: bool,
    /// Print the probe catalogue as markdown (`PROBES.md`).
    #[arg(long, conflicts_with = "ablations")]
    pub catalogue: bool,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Debug, Args)]
pub struct WhichArgs {
    /// Features (id or title, see `features`) or probe ids (see `probes`).
    #[arg(required = true, value_name = "ITEM")]
    pub items: Vec<String>,
    /// The records to read.
    #[arg(long, value_name = "DIR", default_value = COMMITTED_RECORDS)]
    pub records: PathBuf,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// A journal written by `serve` or by a run.
    pub journal: PathBuf,
    /// The model stub's journal of the same run (`<stem>.model.jsonl` beside a record's
    /// journals), for the probes judged from what a host showed its model.
    #[arg(long, value_name = "MODEL_JOURNAL")]
    pub model: Option<PathBuf>,
    #[command(flatten)]
    pub format: FormatArgs,
}
