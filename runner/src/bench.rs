//! `bench`: the speed figures that are targets, measured here and never in tests.
//! Journal throughput (small frames journalled per second, each its own flushed line) and the
//! self-test's wall time.

use std::time::Instant;

use anyhow::{Context, Result};
use probe_server::journal::{Direction, Entry, EventKind, Journal, TransportKind};
use serde::Serialize;
use serde_json::Value;

use crate::run::Transport;
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
        journal.record(Entry::frame("stdio", TransportKind::Stdio, Direction::ClientToServer, EventKind::Frame, SMALL_FRAME, parsed.as_ref()))?;
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
    Ok(BenchReport {
        journal_frames: frames,
        journal_seconds,
        journal_frames_per_second: frames as f64 / journal_seconds,
        journal_bytes,
        self_test_runs: report.runs,
        self_test_seconds,
        self_test_mismatches: report.mismatches.len(),
    })
}
