//! The storm benchmark: a misbehaving host in a retry loop, re-sending a `resources/subscribe`
//! that fails as fast as a target rate allows, at the probe server started as its own process in
//! the `subscribe-fails` variant (`serve --stdio`, `serve --http`), for a fixed time.
//! Reports what was sent and answered (after the storm the backlog is drained and timed), what the
//! journal holds, the server's peak RSS and the p99 answer latency. Over HTTP the requests are
//! pipelined on keep-alive connections, so the offered rate never waits for answers.
//! A benchmark, never a test: the figures depend on the machine.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use serde::Serialize;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[derive(Debug, Serialize)]
pub struct StormReport {
    pub transport: String,
    pub seconds: f64,
    pub sent: u64,
    pub answered: u64,
    pub sent_per_second: f64,
    /// Inbound `resources/subscribe` frames in the server's journal.
    pub journalled: u64,
    pub peak_rss_mb: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Seconds after the storm until the last request sent was answered (the backlog).
    pub drain_seconds: f64,
}

fn peak_rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok()).map_or(0.0, |kb| kb / 1024.0)
}

/// Samples the server's peak RSS every 50 ms until stopped; returns the highest seen.
fn rss_sampler(pid: u32) -> (tokio::task::JoinHandle<f64>, tokio_util::sync::CancellationToken) {
    let stop = tokio_util::sync::CancellationToken::new();
    let done = stop.clone();
    let task = tokio::spawn(async move {
        let mut peak = 0.0f64;
        loop {
            peak = peak.max(peak_rss_mb(pid));
            tokio::select! {
                _ = done.cancelled() => return peak,
                _ = tokio::time::sleep(Duration::from_millis(50)) => {}
            }
        }
    });
    (task, stop)
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index] as f64 / 1000.0
}

fn count_storm_frames(journal: &Path) -> u64 {
    let events = probe_server::journal::read_journal(journal).map(|read| read.events).unwrap_or_default();
    events.iter().filter(|e| e.dir == probe_server::journal::Direction::ClientToServer && e.method.as_deref() == Some("resources/subscribe")).count() as u64
}

const INITIALIZE: &str =
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"storm","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// One retry of the failing subscription.
fn storm_request(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/subscribe","params":{{"uri":"{}"}}}}"#, probe_server::surface::SECOND_PAGE_URI)
}

/// Sends at `rate` per second for `duration`, in 1 ms slices; `send` returns false to stop.
async fn paced(rate: u64, duration: Duration, mut send: impl FnMut(u64) -> bool) -> u64 {
    let start = Instant::now();
    let mut sent = 0u64;
    let mut tick = tokio::time::interval(Duration::from_millis(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    while start.elapsed() < duration {
        tick.tick().await;
        let due = (start.elapsed().as_secs_f64() * rate as f64) as u64;
        while sent < due {
            sent += 1;
            if !send(sent) {
                return sent - 1;
            }
        }
    }
    sent
}

pub async fn stdio(server_exe: &Path, rate: u64, duration: Duration) -> Result<StormReport> {
    let dir = tempfile::tempdir()?;
    let journal = dir.path().join("storm.jsonl");
    let mut child = tokio::process::Command::new(server_exe)
        .args(crate::harness::stdio_server_args(&journal, probe_server::Variant::SubscribeFails, probe_server::EraPolicy::Dual))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .context("cannot start the probe server")?;
    let pid = child.id().ok_or_else(|| anyhow!("no pid"))?;
    let (sampler, stop_sampling) = rss_sampler(pid);
    let mut stdin = child.stdin.take().ok_or_else(|| anyhow!("no stdin"))?;
    let stdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
    let started = Arc::new(Instant::now());
    let sent_at = Arc::new(Mutex::new(Vec::<u64>::with_capacity((rate * duration.as_secs() + 1) as usize)));
    let latencies = Arc::new(Mutex::new(Vec::<u64>::new()));
    let reader = {
        let (sent_at, latencies, started) = (sent_at.clone(), latencies.clone(), started.clone());
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let now = started.elapsed().as_micros() as u64;
                let id = serde_json::from_str::<serde_json::Value>(&line).ok().and_then(|v| v["id"].as_u64()).unwrap_or(0);
                if id > 0 {
                    let sent = sent_at.lock().unwrap().get(id as usize - 1).copied();
                    if let Some(sent) = sent {
                        latencies.lock().unwrap().push(now.saturating_sub(sent));
                    }
                }
            }
        })
    };
    stdin.write_all(format!("{INITIALIZE}\n{INITIALIZED}\n").as_bytes()).await?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        while let Some(bytes) = rx.recv().await {
            if stdin.write_all(&bytes).await.is_err() {
                break;
            }
        }
        drop(stdin);
    });
    let sent = {
        let (sent_at, started) = (sent_at.clone(), started.clone());
        paced(rate, duration, move |id| {
            sent_at.lock().unwrap().push(started.elapsed().as_micros() as u64);
            tx.send(format!("{}\n", storm_request(id)).into_bytes()).is_ok()
        })
        .await
    };
    let seconds = started.elapsed().as_secs_f64();
    let _ = writer.await;
    let _ = tokio::time::timeout(Duration::from_secs(30), reader).await;
    let drain_seconds = (started.elapsed().as_secs_f64() - seconds).max(0.0);
    stop_sampling.cancel();
    let peak = sampler.await.unwrap_or(0.0);
    let _ = tokio::time::timeout(Duration::from_secs(15), child.wait()).await;
    let mut report = report("stdio", seconds, sent, &latencies, &journal, peak)?;
    report.drain_seconds = drain_seconds;
    Ok(report)
}

fn report(transport: &str, seconds: f64, sent: u64, latencies: &Mutex<Vec<u64>>, journal: &Path, peak_rss_mb: f64) -> Result<StormReport> {
    let mut lat = latencies.lock().unwrap().clone();
    lat.sort_unstable();
    Ok(StormReport {
        transport: transport.into(),
        seconds,
        sent,
        answered: lat.len() as u64,
        sent_per_second: sent as f64 / seconds,
        journalled: count_storm_frames(journal),
        peak_rss_mb,
        p50_ms: percentile(&lat, 0.50),
        p99_ms: percentile(&lat, 0.99),
        drain_seconds: 0.0,
    })
}

async fn start_http_server(server_exe: &Path, journal: &Path) -> Result<(tokio::process::Child, String)> {
    let mut child = tokio::process::Command::new(server_exe)
        .args(["serve", "--http", "127.0.0.1:0", "--variant", "subscribe-fails", "--journal"])
        .arg(journal)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("cannot start the probe server")?;
    let stderr = child.stderr.take().ok_or_else(|| anyhow!("no stderr"))?;
    let mut lines = BufReader::new(stderr).lines();
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await??.ok_or_else(|| anyhow!("the server said nothing"))?;
    let url = line.rsplit(' ').next().unwrap_or_default().to_string();
    Ok((child, url))
}

pub async fn http(server_exe: &Path, rate: u64, duration: Duration, concurrency: usize) -> Result<StormReport> {
    let dir = tempfile::tempdir()?;
    let journal: PathBuf = dir.path().join("storm.jsonl");
    let (mut child, url) = start_http_server(server_exe, &journal).await?;
    let pid = child.id().ok_or_else(|| anyhow!("no pid"))?;
    let (sampler, stop_sampling) = rss_sampler(pid);
    let client = reqwest::Client::builder().build()?;
    let post = |body: String, session: Option<String>| {
        let mut request = client.post(&url).header("content-type", "application/json").header("accept", "application/json, text/event-stream").body(body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-11-25");
        }
        request.send()
    };
    let init = post(INITIALIZE.into(), None).await?;
    let session = init.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string).ok_or_else(|| anyhow!("no session id"))?;
    let _ = init.bytes().await;
    let _ = post(INITIALIZED.into(), Some(session.clone())).await?.bytes().await;

    // The storm itself: HTTP/1.1 keep-alive connections with requests pipelined as they fall due,
    // so the offered rate does not depend on how fast answers come back.
    let authority = url.trim_start_matches("http://").split('/').next().unwrap_or_default().to_string();
    let started = Instant::now();
    let answered_latencies = Arc::new(Mutex::new(Vec::<u64>::new()));
    let mut lanes = Vec::new();
    let mut readers = Vec::new();
    for _ in 0..concurrency.max(1) {
        let stream = tokio::net::TcpStream::connect(&authority).await.context("cannot connect to the probe server")?;
        stream.set_nodelay(true)?;
        let (mut read, mut write) = stream.into_split();
        let in_flight = Arc::new(Mutex::new(std::collections::VecDeque::<Instant>::new()));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        let sent_at = in_flight.clone();
        tokio::spawn(async move {
            while let Some(mut bytes) = rx.recv().await {
                while let Ok(more) = rx.try_recv() {
                    bytes.extend_from_slice(&more);
                }
                if write.write_all(&bytes).await.is_err() {
                    break;
                }
            }
        });
        let lat = answered_latencies.clone();
        readers.push(tokio::spawn(async move {
            use tokio::io::AsyncReadExt;
            let mut buffer = Vec::with_capacity(64 * 1024);
            let mut chunk = vec![0u8; 64 * 1024];
            loop {
                while let Some(body) = take_response(&mut buffer) {
                    let sent = sent_at.lock().unwrap().pop_front();
                    if let (Some(sent), true) = (sent, body.windows(7).any(|w| w == b"\"error\"")) {
                        lat.lock().unwrap().push(sent.elapsed().as_micros() as u64);
                    }
                }
                match read.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                }
            }
        }));
        lanes.push((tx, in_flight));
    }
    let sent = {
        let (lanes, session, authority) = (&lanes, session.clone(), authority.clone());
        paced(rate, duration, move |id| {
            let body = storm_request(id);
            let request = format!(
                "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            let (tx, in_flight) = &lanes[id as usize % lanes.len()];
            in_flight.lock().unwrap().push_back(Instant::now());
            tx.send(request.into_bytes()).is_ok()
        })
        .await
    };
    let seconds = started.elapsed().as_secs_f64();
    // Drain: every request sent is answered, however long the backlog takes (bounded wait).
    let deadline = Instant::now() + Duration::from_secs(120);
    while answered_latencies.lock().unwrap().len() < sent as usize && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let drain_seconds = (started.elapsed().as_secs_f64() - seconds).max(0.0);
    drop(lanes);
    for reader in readers {
        reader.abort();
    }
    stop_sampling.cancel();
    let peak = sampler.await.unwrap_or(0.0);
    let _ = child.kill().await;
    let mut report = report("http", seconds, sent, &answered_latencies, &journal, peak)?;
    report.drain_seconds = drain_seconds;
    Ok(report)
}

/// Takes one complete HTTP/1.1 response (content-length or chunked) off the front of `buffer`
/// and returns its body bytes (chunk framing left in: only searched, never decoded).
fn take_response(buffer: &mut Vec<u8>) -> Option<Vec<u8>> {
    let head_end = buffer.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
    let length = head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse::<usize>().ok());
    let end = match length {
        Some(length) => (buffer.len() >= head_end + length).then_some(head_end + length)?,
        None if head.contains("transfer-encoding: chunked") => {
            let mut at = head_end;
            loop {
                let line_end = buffer[at..].windows(2).position(|w| w == b"\r\n")? + at;
                let size = usize::from_str_radix(String::from_utf8_lossy(&buffer[at..line_end]).split(';').next()?.trim(), 16).ok()?;
                at = line_end + 2 + size + 2;
                if buffer.len() < at {
                    return None;
                }
                if size == 0 {
                    break at;
                }
            }
        }
        None => head_end,
    };
    Some(buffer.drain(..end).skip(head_end).collect())
}
