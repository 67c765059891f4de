//! Isolated process lifecycle for a client under test.
//!
//! spawn (own process group, scrubbed environment, temporary HOME) → running (stdout and stderr
//! drained concurrently into capped buffers) → exit, or timeout → SIGTERM to the group → grace →
//! SIGKILL → sweep: every process still carrying this run's marker variable, and the whole group,
//! is killed. No process outlives its run.

use probe_server::journal::unix_now_us;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt};

/// The environment variable that marks every process of one run, for the final sweep.
pub const RUN_MARKER: &str = "MCP_CLIENT_PROBE_RUN";
/// Every process a runner starts, directly or not, carries this variable set to the runner's
/// pid: an interrupted runner sweeps them all.
pub const RUNNER_MARKER: &str = "MCP_CLIENT_PROBE_RUNNER";

/// The value of [`RUNNER_MARKER`] for this runner: the pid of the outermost runner, which
/// [`mark_runner`] put in the environment (processes it starts keep it).
pub fn runner_mark() -> String {
    std::env::var(RUNNER_MARKER).unwrap_or_else(|_| std::process::id().to_string())
}

/// Marks this process as a runner unless it was started by one. Call before any thread starts.
pub fn mark_runner() {
    if std::env::var_os(RUNNER_MARKER).is_none() {
        std::env::set_var(RUNNER_MARKER, std::process::id().to_string());
    }
}
/// How much of each output stream is kept.
pub const OUTPUT_CAP: usize = 4 * 1024 * 1024;

/// Variables passed through from the runner's own environment; everything else is dropped.
const PASSED_THROUGH: [&str; 2] = ["PATH", "LANG"];

/// What starts a client's process and where: the shape every launch has, headless (a
/// [`LaunchSpec`]), a host's terminal UI (`drivers::terminal::HostLaunch`) or a sign-in in a
/// terminal, before what only some of them need.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Added after the scrubbed base environment (profile variables, stub URL, dummy keys).
    pub env: BTreeMap<String, String>,
    pub cwd: PathBuf,
    pub home: PathBuf,
    /// A unique value for [`RUN_MARKER`]: every process carrying it is swept afterwards.
    pub marker: String,
}

#[derive(Debug, Clone)]
pub struct LaunchSpec {
    pub launch: Launch,
    pub timeout: Duration,
    pub grace: Duration,
    /// Bytes for stdin; `None` means /dev/null.
    pub stdin: Option<Vec<u8>>,
    /// Where stdout and stderr also go as they arrive (the person who logs in reads a sign-in
    /// URL a host prints).
    pub output: Option<tokio::sync::mpsc::UnboundedSender<Vec<u8>>>,
}

/// How the process ended: the probe server's vocabulary, since the journal's `client_exited`
/// notes carry it.
pub use probe_server::note::Ending;

/// Everything observed of one launch.
#[derive(Debug, Clone, Serialize)]
pub struct LaunchRecord {
    pub ending: Ending,
    #[serde(skip)]
    pub stdout: Vec<u8>,
    #[serde(skip)]
    pub stderr: Vec<u8>,
    pub stdout_bytes: usize,
    pub stderr_bytes: usize,
    pub duration_ms: u64,
    /// Processes of the run still alive after the client ended, killed by the sweep.
    pub swept: usize,
    /// When it ended (microseconds since the Unix epoch): its exit, or the moment the harness
    /// began stopping it at its bound. What places its end on a stdio server's clock.
    #[serde(skip)]
    pub ended_unix_us: Option<u64>,
}

/// The scrubbed environment every client starts from.
pub fn base_env(home: &Path, marker: &str) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for key in PASSED_THROUGH {
        if let Ok(value) = std::env::var(key) {
            env.insert(key.to_string(), value);
        }
    }
    env.entry("LANG".into()).or_insert_with(|| "C.UTF-8".into());
    let h = |sub: &str| home.join(sub).display().to_string();
    env.insert("HOME".into(), home.display().to_string());
    env.insert("TERM".into(), "dumb".into());
    env.insert("NO_COLOR".into(), "1".into());
    env.insert("XDG_CONFIG_HOME".into(), h(".config"));
    env.insert("XDG_DATA_HOME".into(), h(".local/share"));
    env.insert("XDG_STATE_HOME".into(), h(".local/state"));
    env.insert("XDG_CACHE_HOME".into(), h(".cache"));
    env.insert("TMPDIR".into(), h("tmp"));
    env.insert(RUN_MARKER.into(), marker.to_string());
    env.insert(RUNNER_MARKER.into(), runner_mark());
    env
}

async fn drain(mut stream: impl AsyncRead + Unpin, output: Option<tokio::sync::mpsc::UnboundedSender<Vec<u8>>>) -> (Vec<u8>, usize) {
    let mut kept = Vec::new();
    let mut total = 0;
    let mut chunk = vec![0u8; 64 * 1024];
    while let Ok(n) = stream.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        total += n;
        if let Some(output) = &output {
            let _ = output.send(chunk[..n].to_vec());
        }
        let room = OUTPUT_CAP.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..n.min(room)]);
    }
    (kept, total)
}

fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Pids of processes whose environment carries `marker` (read from /proc; others are invisible).
pub fn marked_processes(marker: &str) -> Vec<i32> {
    processes_with(&format!("{RUN_MARKER}={marker}"))
}

/// Pids of other processes whose environment holds the variable `needle` (`NAME=value`).
fn processes_with(needle: &str) -> Vec<i32> {
    let own = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != own)
        .filter(|pid| std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| env.split(|b| *b == 0).any(|var| var == needle.as_bytes())))
        .collect()
}

/// Kills every process this runner started, directly or not (an interrupted run); returns how
/// many there were.
pub async fn sweep_runner() -> usize {
    sweep_needle(None, &format!("{RUNNER_MARKER}={}", runner_mark())).await
}

/// Kills every process of the run that is still alive; returns how many there were. Scans
/// again until two scans in a row find nothing: a process caught mid-`exec` or mid-`fork` can
/// be missed by one scan.
pub(crate) async fn sweep(pgid: Option<i32>, marker: &str) -> usize {
    sweep_needle(pgid, &format!("{RUN_MARKER}={marker}")).await
}

async fn sweep_needle(pgid: Option<i32>, needle: &str) -> usize {
    let mut killed = std::collections::BTreeSet::new();
    let mut quiet_scans = 0;
    for _ in 0..50 {
        if let Some(pgid) = pgid {
            signal_group(pgid, libc::SIGKILL);
        }
        let marked = processes_with(needle);
        if marked.is_empty() {
            quiet_scans += 1;
            if quiet_scans == 2 {
                break;
            }
        } else {
            quiet_scans = 0;
        }
        for pid in marked {
            // SAFETY: see signal_group.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            killed.insert(pid);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    killed.len()
}

/// Runs one client to completion under the lifecycle described at the top of this module.
pub async fn launch(spec: &LaunchSpec) -> LaunchRecord {
    let started = Instant::now();
    let mut env = base_env(&spec.launch.home, &spec.launch.marker);
    env.extend(spec.launch.env.clone());
    for dir in ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "TMPDIR"] {
        if let Some(path) = env.get(dir) {
            let _ = std::fs::create_dir_all(path);
        }
    }
    let mut command = tokio::process::Command::new(&spec.launch.program);
    command
        .args(&spec.launch.args)
        .env_clear()
        .envs(&env)
        .current_dir(&spec.launch.cwd)
        .process_group(0)
        .stdin(if spec.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return LaunchRecord {
                ending: Ending::FailedToStart { error: format!("{}: {e}", spec.launch.program.display()) },
                stdout: Vec::new(),
                stderr: Vec::new(),
                stdout_bytes: 0,
                stderr_bytes: 0,
                duration_ms: started.elapsed().as_millis() as u64,
                swept: sweep(None, &spec.launch.marker).await,
                ended_unix_us: Some(unix_now_us()),
            }
        }
    };
    let pgid = child.id().map(|id| id as i32);
    if let (Some(bytes), Some(mut stdin)) = (spec.stdin.clone(), child.stdin.take()) {
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = stdin.write_all(&bytes).await;
        });
    }
    let stdout = tokio::spawn(drain(child.stdout.take().expect("stdout is piped"), spec.output.clone()));
    let stderr = tokio::spawn(drain(child.stderr.take().expect("stderr is piped"), spec.output.clone()));
    let waited = tokio::time::timeout(spec.timeout, child.wait()).await;
    let ended_unix_us = Some(unix_now_us());
    let ending = match waited {
        Ok(Ok(status)) => ending_of(status),
        Ok(Err(e)) => Ending::FailedToStart { error: format!("wait failed: {e}") },
        Err(_) => {
            if let Some(pgid) = pgid {
                signal_group(pgid, libc::SIGTERM);
            }
            if tokio::time::timeout(spec.grace, child.wait()).await.is_err() {
                if let Some(pgid) = pgid {
                    signal_group(pgid, libc::SIGKILL);
                }
                let _ = child.wait().await;
            }
            Ending::TimedOut
        }
    };
    let swept = sweep(pgid, &spec.launch.marker).await;
    // Output pipes close once every holder is gone; the sweep made sure of that.
    let (stdout, stdout_bytes) = tokio::time::timeout(Duration::from_secs(5), stdout).await.ok().and_then(Result::ok).unwrap_or_default();
    let (stderr, stderr_bytes) = tokio::time::timeout(Duration::from_secs(5), stderr).await.ok().and_then(Result::ok).unwrap_or_default();
    LaunchRecord { ending, stdout, stderr, stdout_bytes, stderr_bytes, duration_ms: started.elapsed().as_millis() as u64, swept, ended_unix_us }
}

fn ending_of(status: std::process::ExitStatus) -> Ending {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ending::Exited { code },
        (None, Some(signal)) => Ending::Signalled { signal },
        (None, None) => Ending::Exited { code: -1 },
    }
}

/// A file a client's profile has written before a launch (its configuration, say): a path
/// relative to the client's working directory and its content, the same for both transports or
/// one for each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub path: String,
    /// Content for both transports, or…
    pub content: Option<String>,
    /// …per transport.
    pub stdio: Option<String>,
    pub http: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dir: &Path, script: &str, timeout_ms: u64) -> LaunchSpec {
        LaunchSpec {
            launch: Launch {
                program: "/bin/sh".into(),
                args: vec!["-c".into(), script.into()],
                env: BTreeMap::from([("EXTRA".to_string(), "1".to_string())]),
                cwd: dir.to_path_buf(),
                home: dir.join("home"),
                marker: format!("test-{}", std::process::id()) + script.len().to_string().as_str(),
            },
            timeout: Duration::from_millis(timeout_ms),
            grace: Duration::from_millis(200),
            stdin: None,
            output: None,
        }
    }

    #[tokio::test]
    async fn the_environment_is_scrubbed_and_home_is_private() {
        std::env::set_var("ANTHROPIC_API_KEY", "real-secret");
        let dir = tempfile::tempdir().unwrap();
        let record = launch(&spec(dir.path(), "env", 5_000)).await;
        let out = String::from_utf8(record.stdout).unwrap();
        assert_eq!(record.ending, Ending::Exited { code: 0 });
        assert!(!out.contains("real-secret") && !out.contains("ANTHROPIC_API_KEY"), "{out}");
        assert!(out.contains(&format!("HOME={}", dir.path().join("home").display())));
        assert!(out.contains("EXTRA=1"));
    }

    #[tokio::test]
    async fn a_hanging_group_is_terminated_and_swept() {
        let dir = tempfile::tempdir().unwrap();
        let spec = spec(dir.path(), "sleep 300 & sleep 300", 300);
        let record = launch(&spec).await;
        assert_eq!(record.ending, Ending::TimedOut);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(marked_processes(&spec.launch.marker).is_empty());
    }

    #[tokio::test]
    async fn a_child_left_behind_is_swept_after_exit() {
        let dir = tempfile::tempdir().unwrap();
        // The child leaves the process group (setsid) and says so before the parent exits.
        let script = "setsid sh -c 'touch escaped; exec sleep 300' > /dev/null 2>&1 & while [ ! -f escaped ]; do sleep 0.01; done; echo started";
        let spec = spec(dir.path(), script, 10_000);
        let record = launch(&spec).await;
        assert_eq!(record.ending, Ending::Exited { code: 0 });
        assert!(record.swept >= 1, "the setsid child escaped the group but carries the marker");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(marked_processes(&spec.launch.marker).is_empty());
    }

    #[tokio::test]
    async fn a_missing_program_is_a_failed_start() {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = spec(dir.path(), "", 1_000);
        spec.launch.program = "/nonexistent/client".into();
        assert!(matches!(launch(&spec).await.ending, Ending::FailedToStart { .. }));
    }
}
