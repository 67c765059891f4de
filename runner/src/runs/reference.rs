//! One run: start the probe server with a fresh journal, drive the reference client against it,
//! read the journal back and judge it with every probe.

use probe_server::note::Payload;
use std::path::Path;
use std::time::Duration;

use probe_server::journal::{append_note, read_journal};
use probe_server::note::Note;
use probe_server::observe::Observations;
use probe_server::{registry, Era, EraPolicy, ServeOptions, Variant, Verdict};
use serde::Serialize;

use crate::exit::one_line;
use crate::harness::launch::Ending;
use crate::harness::Scratch;
use crate::reference::host::{HostEnd, Limits};
use crate::reference::terminal_host::Layout;
use crate::reference::{self, Ablation, Endpoint, Variation};
use crate::runs::session::{self, ModelJournal, RunError, Session};

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct RunSpec {
    pub transport: Transport,
    pub era: Era,
    pub variant: Variant,
    /// The reference host (client plus model loop, with the model stub) instead of the client.
    pub host: bool,
    #[serde(serialize_with = "ablation_name")]
    pub ablation: Option<Ablation>,
    /// A legal behaviour of real hosts played instead of the reference behaviour.
    #[serde(serialize_with = "variation_name")]
    pub variation: Option<Variation>,
}

fn variation_name<S: serde::Serializer>(v: &Option<Variation>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(v.map_or("none", Variation::id))
}

fn ablation_name<S: serde::Serializer>(a: &Option<Ablation>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(a.map_or("none", Ablation::id))
}

pub use probe_server::journal::Transport;

/// What a run produced. A harness error is the tool's failure, never the client's.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub spec: RunSpec,
    pub verdicts: Vec<Verdict>,
    pub protocol_version: Option<String>,
    pub harness_error: Option<String>,
    pub journal_events: usize,
    /// Wall time of the run (reported, never compared).
    pub duration_ms: u64,
}

impl RunResult {
    pub fn verdict(&self, probe: &str) -> Option<&Verdict> {
        self.verdicts.iter().find(|v| v.probe == probe)
    }
}

/// Builds a matrix with one column per run, named `client`.
pub fn matrix_of(client: &str, runs: &[&RunResult]) -> crate::records::matrix::Matrix {
    let columns = runs
        .iter()
        .map(|r| crate::records::matrix::Column {
            client: client.to_string(),
            transport: r.spec.transport.as_str().into(),
            era: r.spec.era.to_string(),
            protocol_version: r.protocol_version.clone(),
            date: None,
            record: None,
            journal: None,
            variant_journals: Default::default(),
            model_journal: None,
            compressed: false,
            never_ended: false,
        })
        .collect();
    crate::records::matrix::Matrix { columns, rows: crate::records::matrix::rows(&runs.iter().map(|r| r.verdicts.as_slice()).collect::<Vec<_>>()) }
}

/// How long the server waits before withdrawing its request from the fake terminal host.
const REFERENCE_WITHDRAW_AFTER_MS: u64 = 1000;

/// How long the stdio server may take to notice the client has gone and finish its journal.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs the reference client once. `server_exe` is this tool's own executable, which the fake
/// terminal host of the interactive runs starts with `serve --stdio`.
pub async fn run_reference(spec: RunSpec, server_exe: &Path, keep_dir: Option<&Path>) -> RunResult {
    let started = std::time::Instant::now();
    let mut result = match tokio::time::timeout(RUN_BOUND, run_reference_untimed(spec, server_exe, keep_dir)).await {
        Ok(result) => result,
        // Reported as the run's harness error, which names the run, instead of holding up the
        // whole self-test.
        Err(_) => RunResult::failed(spec, format!("the run did not finish within {} s", RUN_BOUND.as_secs())),
    };
    result.duration_ms = started.elapsed().as_millis() as u64;
    result
}

/// A reference run still going after this long is stopped (the slowest take about 5 s).
const RUN_BOUND: Duration = Duration::from_secs(60);

async fn run_reference_untimed(spec: RunSpec, server_exe: &Path, keep_dir: Option<&Path>) -> RunResult {
    // The fake terminal host starts its own stdio server; the other runs use the session's.
    let interactive = spec.variant.is_interactive();
    let transport = if interactive { Transport::Stdio } else { spec.transport };
    let model = if spec.host { ModelJournal::Scratch } else { ModelJournal::None };
    let mut session = match Session::open(transport, reference_options(spec.variant), model, &session::Harness::reference()).await {
        Ok(session) => session,
        Err(e) => return RunResult::failed(spec, one_line(e)),
    };
    let journal_path = session.server_journal(0);
    let model_url = spec.host.then(|| session.stub_url());
    let outcome = match transport {
        _ if interactive => run_terminal(spec, server_exe, &session.scratch, &journal_path).await.map(|()| HostEnd::Finished),
        Transport::Stdio => run_stdio(spec, &journal_path, model_url.as_deref()).await,
        Transport::Http => run_http(spec, &session.server_url(), model_url.as_deref()).await,
    };
    let end = outcome.as_ref().map_or(HostEnd::Finished, |end| *end);
    session.note_client_exited(&exited(end));
    let closed = session.close().await.map_err(RunError::from);
    let mut harness_error = outcome.and(closed).err().map(one_line);
    if transport == Transport::Stdio && !interactive && end == HostEnd::StoppedAtBound {
        // Over stdio the note follows the server's last event, as the runner writes it for a real host.
        if let Err(e) = append_note(&journal_path, transport.as_str(), transport, exited(end).detail()) {
            harness_error.get_or_insert(format!("cannot journal the client's end: {e}"));
        }
    }
    if spec.host {
        // What the reference host was told its model takes, as the runner journals it for a real host.
        let declared: &[&str] = if spec.variation == Some(Variation::TextOnlyModel) { &["text"] } else { &["text", "image", "audio"] };
        if let Err(e) =
            append_note(&journal_path, transport.as_str(), transport, probe_server::note::ModelInputs { declared: Some(declared.iter().map(|d| d.to_string()).collect()) }.detail())
        {
            harness_error.get_or_insert(format!("cannot journal what the model takes: {e}"));
        }
    }
    if spec.variation.is_some_and(Variation::unattended) {
        // Journalled as the runner does after a real host's headless launches.
        let note = probe_server::note::Unattended { launches: 1 }.detail();
        if let Err(e) = append_note(&journal_path, transport.as_str(), transport, note) {
            harness_error.get_or_insert(format!("cannot journal the unattended note: {e}"));
        }
    }
    let model_path = session.model_journal().map(Path::to_path_buf);
    // Reading, checking and judging the journal is CPU work of tens of milliseconds (more in a
    // debug build): off the runtime's workers, so that it never holds up another run's answers,
    // whose latency the timing-based probes judge. The session (its scratch directory) lives on
    // until it is done.
    let keep = keep_dir.map(Path::to_path_buf);
    let judged = tokio::task::spawn_blocking(move || judge_and_keep(spec, transport, &journal_path, model_path.as_deref(), keep.as_deref(), harness_error)).await;
    drop(session);
    judged.unwrap_or_else(|e| RunResult::failed(spec, format!("judging the run failed: {e}")))
}

/// The run's journal read back, checked against the schemas, judged, and kept (when asked) in
/// `keep_dir`; `harness_error` is the run's own, if it had one.
fn judge_and_keep(spec: RunSpec, transport: Transport, journal_path: &Path, model_path: Option<&Path>, keep_dir: Option<&Path>, harness_error: Option<String>) -> RunResult {
    // The client's frames against the official schemas, where the process has them: the note
    // joins the journal as read (the file itself is left as the server wrote it).
    let observations = read_journal(journal_path).map_err(JudgingFailed::Journal).and_then(|read| {
        let mut observations = Observations::from_read(read);
        crate::harness::wire::add_check(&mut observations, transport).map_err(JudgingFailed::Check)?;
        Ok(observations)
    });
    // The note as added, for a kept copy of the journal.
    let checked = observations.as_ref().ok().and_then(|o| o.events.last()).filter(|e| Note::of(e) == Some(Note::WireChecked)).and_then(|e| e.detail.clone());
    let mut result = judge_observed(spec, observations, model_path);
    if result.harness_error.is_none() {
        result.harness_error = harness_error;
    }
    if let Some(keep) = keep_dir {
        let variant = if spec.variant.is_standard() { String::new() } else { format!("-{}", spec.variant) };
        let runner = if spec.host { "-host" } else { "" };
        let stem =
            format!("{}-{}{variant}{runner}-{}", spec.transport.as_str(), spec.era, spec.ablation.map_or_else(|| spec.variation.map_or("full", Variation::id), Ablation::id));
        let kept_journal = keep.join(format!("{stem}.jsonl"));
        let mut kept = std::fs::create_dir_all(keep).and_then(|_| std::fs::copy(journal_path, &kept_journal)).map(drop).map_err(|e| e.to_string());
        if let (Some(note), true) = (checked, kept.is_ok()) {
            kept = append_note(&kept_journal, transport.as_str(), transport, note).map_err(|e| e.to_string());
        }
        if let (Some(model_path), true) = (model_path, kept.is_ok()) {
            kept = std::fs::copy(model_path, keep.join(format!("{stem}.model.jsonl"))).map(drop).map_err(|e| e.to_string());
        }
        if let Err(e) = kept {
            result.harness_error.get_or_insert(format!("cannot keep the journal: {e}"));
        }
    }
    result
}

impl RunResult {
    /// A run that yielded no verdicts, for `error` (the harness's).
    pub fn failed(spec: RunSpec, error: String) -> RunResult {
        RunResult { spec, verdicts: Vec::new(), protocol_version: None, harness_error: Some(error), journal_events: 0, duration_ms: 0 }
    }
}

/// Why a run's journals could not be judged: the harness's failure, never the client's.
#[derive(Debug, thiserror::Error)]
enum JudgingFailed {
    #[error("cannot read the journal: {0}")]
    Journal(probe_server::JournalError),
    #[error("cannot check the client's frames: {0}")]
    Check(probe_server::wire_schema::SchemaDirError),
    #[error("cannot read the model's journal: {0}")]
    Model(probe_server::JournalError),
}

/// Judges a run's observations (with the model stub's journal of the run, if any).
fn judge_observed(spec: RunSpec, observations: Result<Observations, JudgingFailed>, model: Option<&Path>) -> RunResult {
    let observations = observations.and_then(|observations| match model {
        Some(model) => read_journal(model).map(|m| observations.with_model(m)).map_err(JudgingFailed::Model),
        None => Ok(observations),
    });
    match observations {
        Ok(observations) => RunResult {
            spec,
            verdicts: registry::judge_all(&observations),
            protocol_version: observations.lifecycle().and_then(|l| l.negotiated_version),
            harness_error: None,
            journal_events: observations.events.len(),
            duration_ms: 0,
        },
        Err(e) => RunResult::failed(spec, e.to_string()),
    }
}

/// The reference client, or the reference host when a model URL is given; whether it was stopped
/// at its bound (the reference host in the long-calls variant).
async fn drive(endpoint: &Endpoint, spec: RunSpec, model_url: Option<&str>) -> Result<HostEnd, RunError> {
    Ok(match model_url {
        Some(url) => reference::host::run(endpoint, spec.era, spec.ablation, spec.variation, url, Limits::for_variant(spec.variant)).await?,
        // In the stream-drop variant the client stays a settled time, as the stub makes hosts do.
        None => {
            let linger = if spec.variant == Variant::StreamDrop { Duration::from_millis(probe_server::probes::opportunity::SETTLE_MS + 100) } else { Duration::ZERO };
            reference::run(endpoint, spec.era, spec.variant, spec.ablation, spec.variation, linger).await?;
            HostEnd::Finished
        }
    })
}

/// The probe server's options in a reference run: the long-calls variant's slow call shortened
/// to [`REFERENCE_LONG_CALL`], the tasks' lengths the reference client's
/// ([`reference::tasks::REFERENCE_TIMING`]), and no gap before `probe_progress`'s result (the
/// reference client reads its frames in order), and the ping given up after
/// [`REFERENCE_PING_TIMEOUT`].
fn reference_options(variant: Variant) -> ServeOptions {
    let long_call = (variant == Variant::LongCalls).then_some(REFERENCE_LONG_CALL);
    let task_timing = reference::tasks::REFERENCE_TIMING;
    let ping_timeout = Some(REFERENCE_PING_TIMEOUT);
    ServeOptions { variant, era: EraPolicy::Dual, long_call, progress_gap: Some(Duration::ZERO), task_timing, ping_timeout, ..ServeOptions::default() }
}

/// How long the reference runs' server waits for the answer to its ping: the reference client
/// answers at once (the bench's slowest answer to the server's questions, 96 runs at once: tens
/// of milliseconds; a debug build at 32 at once: 70 ms), the never-answers-ping variation never;
/// the run that waits it out stays short.
pub const REFERENCE_PING_TIMEOUT: Duration = Duration::from_secs(1);

/// The slow call's length in the reference runs: twice the reference host's tool timeout, with
/// progress every eighth of it.
const REFERENCE_LONG_CALL: Duration = Duration::from_millis(1600);

/// The runner's `client_exited` note for a reference run, its ending spelled as a launched
/// client's: stopped at its bound, or ended itself.
fn exited(end: HostEnd) -> probe_server::note::ClientExited {
    let ending = match end {
        HostEnd::StoppedAtBound => Ending::TimedOut,
        HostEnd::Finished => Ending::Exited { code: 0 },
    };
    probe_server::note::ClientExited::launch(0, ending)
}

/// A stdio run: the probe server's stdio tap in this process, over an in-memory pipe (the
/// launched `serve --stdio` is what real clients and the interactive runs start).
async fn run_stdio(spec: RunSpec, journal: &Path, model_url: Option<&str>) -> Result<HostEnd, RunError> {
    let endpoint = Endpoint::InProcess { journal: journal.to_path_buf(), options: reference_options(spec.variant) };
    let outcome = drive(&endpoint, spec, model_url).await;
    wait_for_input_closed(journal).await?;
    outcome
}

/// An interactive run: the fake terminal host (with the ablation's switch) in a pseudo-terminal,
/// driven by its keystroke plan; the server's journal with the driver's notes goes to `journal`.
async fn run_terminal(spec: RunSpec, server_exe: &Path, scratch: &Scratch, journal: &Path) -> Result<(), RunError> {
    let server_journal = scratch.path().join("server.jsonl");
    let mut args = vec!["terminal-host".to_string(), "--era".into(), if spec.era == Era::Legacy { "legacy".into() } else { "modern".into() }];
    if let Some(fault) = spec.ablation.and_then(Ablation::terminal_fault) {
        args.extend(["--fault".to_string(), fault.name()]);
    }
    let layout = if spec.variation == Some(Variation::CursorFocusLabelsAbove) { Layout::CursorLabelsAbove } else { Layout::Marker };
    if layout == Layout::CursorLabelsAbove {
        args.extend(["--layout".to_string(), "cursor-labels-above".into()]);
    }
    args.push(server_exe.display().to_string());
    args.extend(crate::harness::stdio_server_args(&server_journal, spec.variant, EraPolicy::Dual));
    // The reference person answers at once: the server need not wait a real person's 6 s.
    args.extend(["--withdraw-after-ms".to_string(), REFERENCE_WITHDRAW_AFTER_MS.to_string()]);
    // It reads its frames in order, as the reference client does: no gap before a progress result.
    args.extend(["--progress-gap-ms".to_string(), "0".into()]);
    // Unique per run: the sweep afterwards ends every process carrying it.
    let what = spec.ablation.map(Ablation::id).or(spec.variation.map(Variation::id)).unwrap_or("full");
    let marker = format!("terminal-host-{}-{}-{what}-{}", spec.era, spec.variant, std::process::id());
    let launch = crate::drivers::terminal::HostLaunch {
        launch: crate::harness::launch::Launch { program: server_exe.to_path_buf(), args, env: Default::default(), home: scratch.home.clone(), cwd: scratch.work.clone(), marker },
        scratch: scratch.path().to_path_buf(),
    };
    let (driven, _) = crate::drivers::terminal::drive_isolated(launch, spec.variant, reference::terminal_host::profile(layout), server_journal).await?;
    probe_server::journal::write_events(journal, &driven.journal.events).map_err(RunError::journal(journal))
}

/// The stdio server journals `input_closed` once the client is gone; its journal is complete then.
async fn wait_for_input_closed(journal: &Path) -> Result<(), RunError> {
    let deadline = tokio::time::Instant::now() + DRAIN_TIMEOUT;
    loop {
        let text = tokio::fs::read_to_string(journal).await.unwrap_or_default();
        let events = probe_server::journal::parse_journal(&text).map(|read| read.events).unwrap_or_default();
        if events.iter().any(|e| probe_server::note::Note::of(e) == Some(probe_server::note::Note::InputClosed)) {
            // The server may still be writing its closing notes; they are not evidence.
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            return Err(RunError::Unfinished(DRAIN_TIMEOUT));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn run_http(spec: RunSpec, server_url: &str, model_url: Option<&str>) -> Result<HostEnd, RunError> {
    let outcome = drive(&Endpoint::Http { url: server_url.to_string() }, spec, model_url).await;
    // Let the client's closing DELETE reach the server before the session stops it.
    tokio::time::sleep(Duration::from_millis(20)).await;
    outcome
}

/// Judges a journal recorded earlier (by `serve` or by a run), with the model stub's journal of
/// the same run when there is one.
pub fn judge_recorded_with_model(path: &Path, model: Option<&Path>) -> Result<(Observations, Vec<Verdict>), probe_server::JournalError> {
    let mut observations = Observations::from_read(read_journal(path)?);
    if let Some(model) = model {
        observations = observations.with_model(read_journal(model)?);
    }
    let verdicts = registry::judge_all(&observations);
    Ok((observations, verdicts))
}

/// The full runs of each transport and era, their server variants merged into one: each probe's
/// verdict comes from the run of its own variant. Ablated runs are left out.
pub fn merge_variants(results: &[RunResult]) -> Vec<RunResult> {
    let mut keys: Vec<(Transport, Era)> = results.iter().filter(|r| r.spec.ablation.is_none()).map(|r| (r.spec.transport, r.spec.era)).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|(transport, era)| {
            let runs: Vec<&RunResult> = results.iter().filter(|r| r.spec.ablation.is_none() && r.spec.transport == transport && r.spec.era == era).collect();
            let standard = runs.iter().find(|r| r.spec.variant.is_standard() && !r.spec.host).copied().unwrap_or(runs[0]);
            let verdicts = registry::probes()
                .iter()
                .filter_map(|probe| {
                    let own = runs.iter().find(|r| r.spec.variant == probe.variant() && r.spec.host == probe.needs_model());
                    own.and_then(|r| r.verdict(probe.id())).or_else(|| standard.verdict(probe.id())).cloned()
                })
                .collect();
            let harness_error = runs.iter().find_map(|r| r.harness_error.clone());
            RunResult {
                spec: RunSpec { variant: Variant::Standard, host: false, ..standard.spec },
                verdicts,
                protocol_version: standard.protocol_version.clone(),
                harness_error,
                journal_events: runs.iter().map(|r| r.journal_events).sum(),
                duration_ms: runs.iter().map(|r| r.duration_ms).sum(),
            }
        })
        .collect()
}
