//! `bench`: the speed figures that are targets, measured here and never in tests.
//! Journal throughput (small frames journalled per second, each its own flushed line) and the
//! self-test's wall time.

pub mod client;
pub mod storm;

use std::time::Instant;

use anyhow::{Context, Result};
use probe_server::journal::{Direction, Entry, EventKind, Journal, Transport};
use serde::Serialize;
use serde_json::Value;

use crate::runs::self_test;

#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub journal_frames: u64,
    pub journal_seconds: f64,
    pub journal_frames_per_second: f64,
    pub journal_bytes: u64,
    pub self_test_runs: usize,
    pub self_test_seconds: f64,
    pub self_test_jobs: usize,
    /// The self-test's mismatches, one line each (as `self-test` prints them).
    pub self_test_mismatches: Vec<String>,
    /// The self-test runs' wall times added up (the work the concurrency spreads).
    pub self_test_run_seconds_total: f64,
    /// How fast the reference's answers to the server's questions were under this load, against
    /// the auto-answer threshold: the margin of the timing verdicts.
    pub answer_latency: AnswerLatency,
    /// How many self-test runs took under 0.25, 0.5, 1, 2, 4 s, and longer.
    pub self_test_run_histogram: [usize; 6],
    /// The slowest self-test runs (what bounds the wall time), slowest first.
    pub self_test_slowest: Vec<SlowRun>,
    /// Loopback TCP connections in TIME_WAIT before the self-test and after it (Linux; none
    /// elsewhere). A self-test closes thousands of connections, each of which stays there a
    /// minute: a bench started within a minute of another finds the ephemeral ports crowded and
    /// its connections slower, so figures are comparable only from a like start.
    pub tcp_time_wait_before: Option<u64>,
    pub tcp_time_wait_after: Option<u64>,
    /// Rendering a 50-column × 100-row matrix (markdown, then terminal table), per render.
    pub render_markdown_ms: f64,
    pub render_terminal_ms: f64,
}

/// The answers the server's elicitations got in the self-test's journals, split at the auto-answer
/// threshold: answers given at once (an ablation or variation that does not ask the person)
/// must stay under it, and the simulated person's must stay above it.
#[derive(Debug, Default, Serialize)]
pub struct AnswerLatency {
    pub threshold_ms: f64,
    pub answers: usize,
    /// The slowest answer under the threshold, and how far below it that is.
    pub slowest_fast_ms: f64,
    pub fast_margin_ms: f64,
    /// The quickest answer at or above the threshold, and how far above it that is.
    pub quickest_slow_ms: f64,
    pub slow_margin_ms: f64,
}

impl AnswerLatency {
    /// Reads every server journal in `dir` (model journals aside).
    fn of_journals(dir: &std::path::Path) -> Result<AnswerLatency> {
        use probe_server::probes::AUTO_ANSWER_US;
        use probe_server::surface as s;
        // The threshold is the elicitation probes' (a sampling answer waits on a model).
        let asks = [s::TOOL_ELICIT_FORM, s::TOOL_ELICIT_ENUMS, s::TOOL_ELICIT_URL];
        let mut latencies = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.to_string_lossy().ends_with(".model.jsonl") {
                continue;
            }
            let observations = probe_server::observe::Observations::from_read(probe_server::journal::read_journal(&path)?);
            // In the interactive variants the person is the terminal driver, and the probes
            // judge what the screen showed, not how fast the form came back.
            if !observations.variant().is_interactive() {
                latencies.extend(asks.iter().filter_map(|tool| observations.exchange(tool, "elicitation/create")?.latency_us));
            }
        }
        let ms = |us: u64| us as f64 / 1000.0;
        let threshold = ms(AUTO_ANSWER_US);
        let slowest_fast = latencies.iter().filter(|&&us| us < AUTO_ANSWER_US).max().map_or(0.0, |&us| ms(us));
        let quickest_slow = latencies.iter().filter(|&&us| us >= AUTO_ANSWER_US).min().map_or(f64::INFINITY, |&us| ms(us));
        Ok(AnswerLatency {
            threshold_ms: threshold,
            answers: latencies.len(),
            slowest_fast_ms: slowest_fast,
            fast_margin_ms: threshold - slowest_fast,
            quickest_slow_ms: quickest_slow,
            slow_margin_ms: quickest_slow - threshold,
        })
    }
}

/// One self-test run and how long it took.
#[derive(Debug, Serialize)]
pub struct SlowRun {
    pub run: String,
    pub ms: u64,
}

fn histogram(results: &[crate::runs::reference::RunResult]) -> [usize; 6] {
    let mut counts = [0; 6];
    for r in results {
        let bucket = [250, 500, 1000, 2000, 4000].iter().position(|&limit| r.duration_ms < limit).unwrap_or(5);
        counts[bucket] += 1;
    }
    counts
}

/// The `count` slowest runs, slowest first.
fn slowest(results: &[crate::runs::reference::RunResult], count: usize) -> Vec<SlowRun> {
    let mut runs: Vec<SlowRun> = results
        .iter()
        .map(|r| {
            let s = r.spec;
            let who = if s.host { "host" } else { "client" };
            let what = s.ablation.map(|a| a.id()).or(s.variation.map(|v| v.id())).unwrap_or("full");
            SlowRun { run: format!("{} {} {} {who} {what}", s.transport.as_str(), s.era, s.variant), ms: r.duration_ms }
        })
        .collect();
    runs.sort_by(|a, b| b.ms.cmp(&a.ms).then_with(|| a.run.cmp(&b.run)));
    runs.truncate(count);
    runs
}

/// A matrix of `columns` clients × `rows` probes with realistic cells.
pub fn synthetic_matrix(columns: usize, rows: usize) -> crate::records::matrix::Matrix {
    use crate::records::matrix::{Cell, Column, Matrix, Row};
    use probe_server::probe::{Declaration, Outcome};
    let outcomes = [Outcome::Yes, Outcome::No, Outcome::Partial, Outcome::AutoAnswered, Outcome::NotApplicable];
    let areas = probe_server::registry::probes().iter().map(|p| p.area()).collect::<Vec<_>>();
    Matrix {
        columns: (0..columns)
            .map(|c| Column {
                client: format!("client-{c}@1.{c}.0"),
                transport: if c % 2 == 0 { "stdio".into() } else { "http".into() },
                era: "legacy".into(),
                protocol_version: Some("2025-11-25".into()),
                date: Some("2026-11-30".into()),
                record: Some(format!("records/client-{c}/1.{c}.0/stdio.json")),
                journal: Some(format!("records/client-{c}/1.{c}.0/stdio.journal.jsonl")),
                variant_journals: Default::default(),
                model_journal: None,
                compressed: false,
                never_ended: false,
            })
            .collect(),
        rows: (0..rows)
            .map(|r| Row {
                probe: format!("area.probe_{r}"),
                area: areas[r * areas.len() / rows],
                title: format!("probe number {r}"),
                cells: (0..columns)
                    .map(|c| Cell {
                        outcome: outcomes[(r + c) % outcomes.len()],
                        declared: if (r + c) % 3 == 0 { Declaration::Declared } else { Declaration::NoCapability },
                        detail: "answered decline in < 100 ms, nobody asked".into(),
                        evidence: vec![(r * 7 + c) as u64],
                        variant: Default::default(),
                        model_evidence: false,
                        opportunity: Box::default(),
                        opportunity_model: Box::default(),
                        ablated: Vec::new(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn time_per_render(iterations: u32, mut render: impl FnMut() -> String) -> f64 {
    let start = Instant::now();
    let mut bytes = 0;
    for _ in 0..iterations {
        bytes += render().len();
    }
    std::hint::black_box(bytes);
    start.elapsed().as_secs_f64() * 1000.0 / iterations as f64
}

/// A typical small frame: what a client's `tools/call` looks like on the wire.
const SMALL_FRAME: &[u8] = br#"{"jsonrpc":"2.0","id":1234,"method":"tools/call","params":{"name":"probe_progress","arguments":{}}}"#;

/// Journals `frames` small frames the way the stdio tap does (parse, then one flushed line each).
pub fn journal_throughput(frames: u64) -> Result<(f64, u64)> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("bench.jsonl");
    let journal = Journal::create(&path)?;
    let start = Instant::now();
    for _ in 0..frames {
        let parsed: Option<Value> = serde_json::from_slice(SMALL_FRAME).ok();
        journal.record(Entry::frame("stdio", Transport::Stdio, Direction::ClientToServer, EventKind::Frame, SMALL_FRAME, parsed.as_ref()))?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&path).context("bench journal vanished")?.len();
    Ok((seconds, bytes))
}

pub async fn run(frames: u64, jobs: usize, server_exe: std::path::PathBuf) -> Result<BenchReport> {
    let specs = self_test::plan(&[Transport::Stdio, Transport::Http]);
    // The journals are kept where the runs' scratch directories are (a memory file system where
    // there is one), so that keeping them costs the runs about what `self-test` costs them, and
    // the self-test goes before the journal benchmark and its 280 MB file on disk. Kept in the
    // temporary directory after that file, three self-tests took 5.65-5.91 s; so, 4.77-5.01 s.
    let kept = tempfile::tempdir_in(crate::harness::reference_scratch_root())?;
    let tcp_time_wait_before = tcp_time_wait();
    let start = Instant::now();
    let results = self_test::execute(specs, server_exe, jobs, Some(kept.path().to_path_buf()), "bench").await;
    let self_test_seconds = start.elapsed().as_secs_f64();
    let tcp_time_wait_after = tcp_time_wait();
    let answer_latency = AnswerLatency::of_journals(kept.path())?;
    let report = self_test::evaluate(&results);
    drop(kept);
    let (journal_seconds, journal_bytes) = tokio::task::spawn_blocking(move || journal_throughput(frames)).await??;
    let matrix = synthetic_matrix(50, 100);
    let render_markdown_ms = time_per_render(20, || crate::render::markdown::document(&matrix, &[]));
    let render_terminal_ms = time_per_render(5, || crate::render::terminal(&matrix, Some(400)));
    Ok(BenchReport {
        render_markdown_ms,
        render_terminal_ms,
        journal_frames: frames,
        journal_seconds,
        journal_frames_per_second: frames as f64 / journal_seconds,
        journal_bytes,
        self_test_runs: report.runs,
        self_test_seconds,
        self_test_jobs: jobs,
        self_test_mismatches: report.mismatches.iter().map(self_test::Mismatch::line).collect(),
        self_test_run_seconds_total: results.iter().map(|r| r.duration_ms).sum::<u64>() as f64 / 1000.0,
        self_test_run_histogram: histogram(&results),
        answer_latency,
        self_test_slowest: slowest(&results, 25),
        tcp_time_wait_before,
        tcp_time_wait_after,
    })
}

/// TCP sockets in TIME_WAIT now (`tw` in `/proc/net/sockstat`), where the system says.
fn tcp_time_wait() -> Option<u64> {
    time_wait_of(&std::fs::read_to_string("/proc/net/sockstat").ok()?)
}

fn time_wait_of(sockstat: &str) -> Option<u64> {
    let tcp = sockstat.lines().find(|l| l.starts_with("TCP:"))?;
    let mut words = tcp.split_whitespace();
    words.find(|w| *w == "tw")?;
    words.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_wait_is_read_from_the_tcp_line_of_sockstat() {
        let sockstat = "sockets: used 8\nTCP: inuse 1 orphan 0 tw 7749 alloc 1 mem 40\nUDP: inuse 0 mem 0\n";
        assert_eq!(time_wait_of(sockstat), Some(7749));
        assert_eq!(time_wait_of("sockets: used 8\nUDP: inuse 0 mem 0\n"), None);
        assert_eq!(time_wait_of("TCP: inuse 1 orphan 0\n"), None);
    }
}
