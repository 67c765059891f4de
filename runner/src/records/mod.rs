//! Records: what one probe run of one client over one transport observed, pinned to the client's
//! version, the protocol version it spoke, the date and the probe's own commit.

pub mod baseline;
pub mod compare;
pub mod diff;
pub mod findings;
pub mod matrix;
pub mod rejudge;
pub mod selection;

use std::path::{Path, PathBuf};

use probe_server::{Era, EraPolicy, Variant, Verdict};
use serde::{Deserialize, Serialize};

use crate::harness::launch::{Ending, LaunchRecord};

pub const RECORD_FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LaunchSummary {
    /// The server variant of the run this launch belonged to.
    #[serde(default, alias = "scenario", skip_serializing_if = "Variant::is_standard")]
    pub variant: Variant,
    pub ending: Ending,
    pub stdout_bytes: usize,
    pub stderr_bytes: usize,
    pub duration_ms: u64,
    pub swept: usize,
}

impl Record {
    /// Whether every launch of the standard run was stopped at its bound (at least one launch).
    pub fn never_ended(&self) -> bool {
        let mut standard = self.launches.iter().filter(|l| l.variant.is_standard()).peekable();
        standard.peek().is_some() && standard.all(|l| l.ending == crate::harness::launch::Ending::TimedOut)
    }
}

impl LaunchSummary {
    pub fn in_variant(mut self, variant: Variant) -> Self {
        self.variant = variant;
        self
    }
}

impl From<&LaunchRecord> for LaunchSummary {
    fn from(r: &LaunchRecord) -> Self {
        LaunchSummary {
            variant: Variant::Standard,
            ending: r.ending.clone(),
            stdout_bytes: r.stdout_bytes,
            stderr_bytes: r.stderr_bytes,
            duration_ms: r.duration_ms,
            swept: r.swept,
        }
    }
}

/// What one probe run of one client over one transport observed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Record {
    pub format_version: u32,
    pub client: String,
    pub version: String,
    pub transport: String,
    /// The eras the probe server spoke in this run: both (the main record), or one only (the
    /// run that shows a host's legacy behaviour, or its fallback, against a one-era server).
    #[serde(default, skip_serializing_if = "EraPolicy::is_dual")]
    pub server_eras: EraPolicy,
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
    /// `clientInfo` as the client sent it (initialize params or request `_meta`).
    #[serde(default)]
    pub client_info: Option<serde_json::Value>,
    /// The capabilities the client declared, verbatim.
    #[serde(default)]
    pub declared_capabilities: Option<serde_json::Value>,
    /// File names beside the record: the standard server variant's journal, and the journal of
    /// each other variant (each verdict names the variant its evidence comes from).
    pub journal: String,
    #[serde(default, alias = "scenario_journals", skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub variant_journals: std::collections::BTreeMap<String, String>,
    pub model_journal: Option<String>,
    /// Things the run noticed that are not verdicts (the client never connected, …).
    pub notes: Vec<String>,
}

/// `git rev-parse HEAD` of the source tree this binary was built from, or "unknown".
pub fn probe_commit() -> String {
    // Recorded by the build script from the repository the binary was built in.
    env!("MCP_CLIENT_PROBE_COMMIT").to_string()
}

pub fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

/// Where a run writes its records and journals until it is complete: a `.partial-…` directory
/// inside the records root, moved into place by [`Staging::commit`] and removed if the run is
/// dropped unfinished (interrupted, or failed).
pub struct Staging {
    dir: tempfile::TempDir,
    root: PathBuf,
}

impl Staging {
    pub fn new(root: &Path) -> std::io::Result<Staging> {
        std::fs::create_dir_all(root)?;
        let dir = tempfile::Builder::new().prefix(".partial-").tempdir_in(root)?;
        Ok(Staging { dir, root: root.to_path_buf() })
    }

    /// The staging directory, laid out as a records root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Where the run writes what goes to `<root>/<client>/<version>`.
    pub fn record_dir(&self, client: &str, version: &str) -> PathBuf {
        record_dir(self.dir.path(), client, version)
    }

    /// Moves every staged file into place (replacing what was there) and removes the staging
    /// directory.
    pub fn commit(self) -> std::io::Result<()> {
        for client in std::fs::read_dir(self.dir.path())? {
            let client = client?;
            for version in std::fs::read_dir(client.path())? {
                let version = version?;
                let target = record_dir(&self.root, &client.file_name().to_string_lossy(), &version.file_name().to_string_lossy());
                std::fs::create_dir_all(&target)?;
                for file in std::fs::read_dir(version.path())? {
                    let file = file?;
                    std::fs::rename(file.path(), target.join(file.file_name()))?;
                }
            }
        }
        Ok(())
    }
}

/// The directory records given as `records` (a records directory, or one record file) are
/// laid out under: what a record's `relative` path is relative to.
pub fn base_of(records: &Path) -> &Path {
    if records.is_file() {
        records.parent().unwrap_or(Path::new("."))
    } else {
        records
    }
}

/// Whether a file in a record's directory is kept compressed at rest: journals, model journals,
/// and a run's stdout and stderr ([`probe_server::journal::stored`]).
pub fn stored_compressed(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    path.is_file() && (name.ends_with(".jsonl") || name.ends_with(".txt"))
}

/// Compresses every file of a record's directory that is kept compressed and is not yet: how
/// many, and their bytes before and after.
pub fn compress_dir(dir: &Path) -> std::io::Result<(usize, u64, u64)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| stored_compressed(p)).collect();
    files.sort();
    let (mut count, mut before, mut after) = (0, 0, 0);
    for file in files {
        let size = std::fs::metadata(&file)?.len();
        let saved = probe_server::journal::stored::compress(&file)?;
        (count, before, after) = (count + 1, before + size, after + size - saved);
    }
    Ok((count, before, after))
}

/// The files under a records root that should be compressed and are not.
pub fn uncompressed(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
            if path.is_dir() && !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
                stack.push(path);
            } else if stored_compressed(&path) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// `<root>/<client>/<version>`.
pub fn record_dir(root: &Path, client: &str, version: &str) -> PathBuf {
    root.join(client).join(version)
}

pub fn write(record: &Record, dir: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(record.file_name());
    let mut text = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(&path, text)?;
    Ok(path)
}

impl Record {
    /// The transport as a matrix column names it: with the server's eras when it spoke only one.
    pub fn column_transport(&self) -> String {
        match self.server_eras {
            EraPolicy::Dual => self.transport.clone(),
            eras => format!("{} · {}", self.transport, eras.server_label()),
        }
    }

    /// The record's file name beside its journals.
    pub fn file_name(&self) -> String {
        match self.server_eras {
            EraPolicy::Dual => format!("{}.json", self.transport),
            eras => format!("{}.{}-only.json", self.transport, eras.as_str()),
        }
    }
}

/// A record or records directory that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("no records at {}{}", path.display(), if path.ends_with("matrices/records") { " (the committed records are a checkout's; elsewhere give --records DIR)" } else { "" })]
    Missing { path: PathBuf },
    #[error("cannot read {}", path.display())]
    Unreadable { path: PathBuf, source: std::io::Error },
    #[error("record {} is not valid", path.display())]
    Invalid { path: PathBuf, source: serde_json::Error },
}

fn unreadable(path: &Path) -> impl FnOnce(std::io::Error) -> RecordError + '_ {
    move |source| RecordError::Unreadable { path: path.to_path_buf(), source }
}

pub fn read(path: &Path) -> Result<Record, RecordError> {
    let text = std::fs::read_to_string(path).map_err(unreadable(path))?;
    serde_json::from_str(&text).map_err(|source| RecordError::Invalid { path: path.to_path_buf(), source })
}

/// A record and where it lives, relative to the records root.
#[derive(Debug, Clone)]
pub struct Located {
    pub relative: PathBuf,
    pub record: Record,
}

/// Every `<client>/<version>/<transport>.json` under `root`, sorted by client, version, transport.
/// A client's directory, one version's directory and a single record file are accepted too.
pub fn load(root: &Path) -> Result<Vec<Located>, RecordError> {
    if !root.exists() {
        return Err(RecordError::Missing { path: root.to_path_buf() });
    }
    if root.is_file() {
        let name = root.file_name().map(PathBuf::from).unwrap_or_default();
        return Ok(vec![Located { relative: name, record: read(root)? }]);
    }
    // A records root holds `<client>/<version>/<record>`; a client's directory and one version's
    // directory are accepted too: records are looked for up to two directories down.
    let mut found = Vec::new();
    collect(root, root, 2, &mut found)?;
    sort(&mut found);
    Ok(found)
}

/// Every record file in `dir` and, `depth` directories down, in its subdirectories. A `.partial-…`
/// directory is a run still writing (or killed while it was): not a record.
fn collect(root: &Path, dir: &Path, depth: usize, found: &mut Vec<Located>) -> Result<(), RecordError> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).map_err(unreadable(dir))?.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if is_record_file(&path) {
            found.push(Located { relative: path.strip_prefix(root).unwrap_or(&path).to_path_buf(), record: read(&path)? });
        } else if depth > 0 && path.is_dir() && !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
            collect(root, &path, depth - 1, found)?;
        }
    }
    Ok(())
}

/// A record's file name: `<transport>[.<era>-only].json` (a `.matrix` JSON is not one).
fn is_record_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    path.is_file() && name.ends_with(".json") && !name.contains(".matrix")
}

/// By client, version (as people order them) and column.
fn sort(found: &mut [Located]) {
    found.sort_by(|a, b| {
        let (a, b) = (&a.record, &b.record);
        a.client.cmp(&b.client).then_with(|| compare_versions(&a.version, &b.version)).then_with(|| a.column_transport().cmp(&b.column_transport()))
    });
}

/// Orders two client versions as people read them: numeric parts by value (`0.9.0` before
/// `0.10.0`), other parts by text, a shorter version before a longer one it begins (`1.2` before
/// `1.2.1`).
pub fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    let parts = |v: &str| v.split(['.', '-', '+']).map(str::to_string).collect::<Vec<_>>();
    let (a, b) = (parts(a), parts(b));
    for (x, y) in a.iter().zip(&b) {
        let order = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            _ => x.cmp(y),
        };
        if order.is_ne() {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// The records of each client's newest version only: what the matrix shows. Older versions stay
/// beside them as history (`<client>/<version>/`).
pub fn newest_only(located: &[Located]) -> Vec<Located> {
    located.iter().filter(|l| !located.iter().any(|o| o.record.client == l.record.client && compare_versions(&o.record.version, &l.record.version).is_gt())).cloned().collect()
}

/// The `$id` of the record schema: a name, not a place to fetch from, that changes with
/// [`RECORD_FORMAT`].
pub fn schema_id() -> String {
    format!("urn:mcp-client-probe:record:{RECORD_FORMAT}")
}

/// The JSON schema of records, generated from the Rust types, with its `$id`.
pub fn schema() -> String {
    let mut schema = serde_json::to_value(schemars::schema_for!(Record)).unwrap_or_default();
    if let Some(object) = schema.as_object_mut() {
        object.insert("$id".into(), serde_json::Value::String(schema_id()));
    }
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering::{Equal, Greater, Less};

    #[test]
    fn versions_order_by_number_not_by_text() {
        assert_eq!(compare_versions("0.9.0", "0.10.0"), Less);
        assert_eq!(compare_versions("2.1.332", "2.1.99"), Greater);
        assert_eq!(compare_versions("1.2", "1.2.1"), Less);
        assert_eq!(compare_versions("1.5.47", "1.5.47"), Equal);
        assert_eq!(compare_versions("1.0.0-beta", "1.0.0-alpha"), Greater);
    }

    #[test]
    fn a_records_root_a_client_and_a_version_directory_all_load() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/records");
        let names = |path: &Path| load(path).unwrap().into_iter().map(|l| format!("{}@{} {}", l.record.client, l.record.version, l.record.column_transport())).collect::<Vec<_>>();
        let all = names(&root);
        assert_eq!(all, ["example-client@1.0.0 stdio", "example-client@1.1.0 stdio"]);
        assert_eq!(names(&root.join("example-client")), all);
        assert_eq!(names(&root.join("example-client/1.1.0")), all[1..]);
        assert_eq!(names(&root.join("example-client/1.1.0/stdio.json")), all[1..]);
    }

    #[test]
    fn newest_only_keeps_each_clients_latest_version() {
        let committed = load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../matrices/records")).unwrap();
        let record = |client: &str, version: &str| {
            let mut located = committed[0].clone();
            (located.record.client, located.record.version) = (client.into(), version.into());
            located
        };
        let all = [record("a", "0.9.0"), record("a", "0.10.0"), record("b", "1.0")];
        let kept: Vec<(String, String)> = newest_only(&all).into_iter().map(|l| (l.record.client, l.record.version)).collect();
        assert_eq!(kept, [("a".to_string(), "0.10.0".to_string()), ("b".into(), "1.0".into())]);
    }
}
