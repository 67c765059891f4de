//! Records: what one probe run of one client over one transport observed, pinned to the client's
//! version, the protocol version it spoke, the date and the probe's own commit.

use std::path::{Path, PathBuf};

use probe_server::{Era, Verdict};
use serde::{Deserialize, Serialize};

use crate::launch::{Ending, LaunchRecord};

pub const RECORD_FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaunchSummary {
    pub ending: Ending,
    pub stdout_bytes: usize,
    pub stderr_bytes: usize,
    pub duration_ms: u64,
    pub swept: usize,
}

impl From<&LaunchRecord> for LaunchSummary {
    fn from(r: &LaunchRecord) -> Self {
        LaunchSummary { ending: r.ending.clone(), stdout_bytes: r.stdout_bytes, stderr_bytes: r.stderr_bytes, duration_ms: r.duration_ms, swept: r.swept }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub format_version: u32,
    pub client: String,
    pub version: String,
    pub transport: String,
    pub era: Option<Era>,
    pub protocol_version: Option<String>,
    /// UTC date of the run, `YYYY-MM-DD`.
    pub date: String,
    pub probe_version: String,
    pub probe_commit: String,
    pub os: String,
    pub verdicts: Vec<Verdict>,
    pub launches: Vec<LaunchSummary>,
    pub duration_ms: u64,
    /// File names beside the record.
    pub journal: String,
    pub model_journal: Option<String>,
    /// Things the run noticed that are not verdicts (the client never connected, …).
    pub notes: Vec<String>,
}

/// `git rev-parse HEAD` of the source tree this binary was built from, or "unknown".
pub fn probe_commit() -> String {
    std::process::Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

pub fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

/// `<root>/<client>/<version>`.
pub fn record_dir(root: &Path, client: &str, version: &str) -> PathBuf {
    root.join(client).join(version)
}

pub fn write(record: &Record, dir: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}.json", record.transport));
    let mut text = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(&path, text)?;
    Ok(path)
}
