//! `bench`: the speed figures that are targets, measured here and never in tests.
//! Journal throughput (small frames journalled per second, each its own flushed line) and the
//! self-test's wall time.

use std::time::Instant;

use anyhow::{Context, Result};
use probe_server::journal::{Direction, Entry, EventKind, Journal, Transport};
use serde::Serialize;
use serde_json::Value;

use crate::selftest;

#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub journal_frames: u64,
    pub journal_seconds: f64,
    pub journal_frames_per_second: f64,
    pub journal_bytes: u64,
    pub self_test_runs: usize,
    pub self_test_seconds: f64,
    pub self_test_mismatches: usize,
    /// Rendering a 50-column × 100-row matrix (markdown, then terminal table), per render.
    pub render_markdown_ms: f64,
    pub render_terminal_ms: f64,
}

/// A matrix of `columns` clients × `rows` probes with realistic cells.
pub fn synthetic_matrix(columns: usize, rows: usize) -> crate::matrix::Matrix {
    use crate::matrix::{Cell, Column, Matrix, Row};
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
    let (journal_seconds, journal_bytes) = tokio::task::spawn_blocking(move || journal_throughput(frames)).await??;
    let specs = selftest::plan(&[Transport::Stdio, Transport::Http]);
    let start = Instant::now();
    let results = selftest::execute(specs, server_exe, jobs, None).await;
    let self_test_seconds = start.elapsed().as_secs_f64();
    let report = selftest::evaluate(&results);
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
        self_test_mismatches: report.mismatches.len(),
    })
}
