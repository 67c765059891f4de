//! The ground floor every run stands on, for the reference client and for real clients alike: a
//! scratch directory with a private home and working directory, the probe server's command line
//! (stdio) or the probe server on loopback (HTTP), the names of the files a run leaves beside its
//! record, launching and stopping a client's processes (`launch`), the run slots (`slots`) and
//! the wire check against the official schemas (`wire`). Nothing here knows a driver, a client
//! profile or a run pipeline.

pub mod launch;
pub mod slots;
pub mod wire;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use probe_server::journal::Journal;
use probe_server::transport::http::{serve_http, MCP_PATH};
use probe_server::{EraPolicy, ServeOptions, Variant};
use tokio_util::sync::CancellationToken;

pub use probe_server::journal::Transport;

/// Something a run needs could not be set up; the harness's failure, never the client's.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("cannot create {}", path.display())]
    Directory { path: PathBuf, source: std::io::Error },
    #[error("cannot create the journal {}", path.display())]
    Journal { path: PathBuf, source: probe_server::JournalError },
    #[error("cannot start the model stub")]
    Stub(#[source] std::io::Error),
    #[error("cannot serve on loopback")]
    Loopback(#[source] std::io::Error),
    #[error("cannot compile the official schemas")]
    Schemas(#[source] probe_server::wire_schema::SchemaDirError),
}

/// The HTTP probe server did not stop cleanly (its journal may lack its last lines).
#[derive(Debug, thiserror::Error)]
pub enum StopError {
    #[error("the HTTP probe server failed")]
    Failed(#[source] std::io::Error),
    #[error("the HTTP probe server panicked")]
    Panicked(#[source] tokio::task::JoinError),
    #[error("the HTTP probe server did not stop within {0:?}")]
    TooSlow(Duration),
}

/// A temporary directory holding a run's private `home` and `work` directories; removed when
/// dropped.
pub struct Scratch {
    dir: tempfile::TempDir,
    pub home: PathBuf,
    pub work: PathBuf,
}

impl Scratch {
    /// A new scratch directory under `root`.
    pub fn new_in(root: &Path) -> Result<Scratch, SetupError> {
        let dir = tempfile::tempdir_in(root).map_err(|source| SetupError::Directory { path: root.to_path_buf(), source })?;
        let (home, work) = (dir.path().join("home"), dir.path().join("work"));
        for path in [&home, &work] {
            std::fs::create_dir_all(path).map_err(|source| SetupError::Directory { path: path.clone(), source })?;
        }
        Ok(Scratch { dir, home, work })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Where the reference runs keep their scratch directories: a memory file system where the
/// machine has one that runs programs (`/dev/shm` on Linux) and `TMPDIR` names no other place,
/// else the temporary directory. Hundreds of runs each make a directory tree and journals:
/// on ext4 allocating those inodes took an eighth of the self-test's CPU time, inside calls
/// that held up the runtime's workers (the at-once answers it times came late). Real clients
/// keep theirs in the temporary directory: they may write caches of any size into their home.
pub fn reference_scratch_root() -> &'static Path {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let memory = Path::new("/dev/shm");
        match std::env::var_os("TMPDIR") {
            None if runs_programs_in_memory(memory) => memory.to_path_buf(),
            _ => std::env::temp_dir(),
        }
    })
}

/// Whether `dir` is a writable directory on a memory file system (tmpfs) mounted without
/// `noexec` (the terminal runs start programs written into their scratch directory).
fn runs_programs_in_memory(dir: &Path) -> bool {
    const TMPFS_MAGIC: u64 = 0x0102_1994;
    let Ok(c_path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else { return false };
    // SAFETY: `c_path` is a valid NUL-terminated string and both structs are plain data
    // the calls fill in.
    let (mut fs, mut vfs): (libc::statfs, libc::statvfs) = unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    let described = unsafe { libc::statfs(c_path.as_ptr(), &mut fs) == 0 && libc::statvfs(c_path.as_ptr(), &mut vfs) == 0 };
    // SAFETY: as above; access(2) only reads the path.
    let writable = unsafe { libc::access(c_path.as_ptr(), libc::W_OK | libc::X_OK) == 0 };
    described && fs.f_type as u64 == TMPFS_MAGIC && vfs.f_flag & libc::ST_NOEXEC == 0 && vfs.f_flag & libc::ST_RDONLY == 0 && writable
}

/// How many lines a journal file holds (0 while it does not exist).
pub fn journal_lines(path: &Path) -> usize {
    std::fs::read(path).map(|b| b.iter().filter(|c| **c == b'\n').count()).unwrap_or(0)
}

/// Whether a journal has had no new line for a while.
pub struct JournalIdle<'a> {
    path: &'a Path,
    quiet: Duration,
    lines: usize,
    since: Instant,
}

impl<'a> JournalIdle<'a> {
    pub fn new(path: &'a Path, quiet: Duration) -> JournalIdle<'a> {
        JournalIdle { path, quiet, lines: journal_lines(path), since: Instant::now() }
    }

    /// Looks again; true once nothing was added for the quiet time.
    pub fn idle(&mut self) -> bool {
        let lines = journal_lines(self.path);
        if lines != self.lines {
            (self.lines, self.since) = (lines, Instant::now());
        }
        self.since.elapsed() >= self.quiet
    }
}

/// The arguments that make this tool's executable the stdio probe server, journalling to
/// `journal`, in `variant`, speaking `eras`.
pub fn stdio_server_args(journal: &Path, variant: Variant, eras: EraPolicy) -> Vec<String> {
    ["serve", "--stdio", "--journal"]
        .into_iter()
        .map(str::to_string)
        .chain([journal.display().to_string(), "--variant".into(), variant.to_string(), "--era".into(), eras.as_str().into()])
        .collect()
}

/// The probe server over Streamable HTTP on a loopback port, journalling to its own file.
pub struct HttpServer {
    pub url: String,
    pub journal: Journal,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// How long the HTTP server may take to stop once asked.
pub const HTTP_STOP_TIMEOUT: Duration = Duration::from_secs(5);

impl HttpServer {
    pub async fn start(journal: &Path, options: ServeOptions) -> Result<HttpServer, SetupError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(SetupError::Loopback)?;
        let url = format!("http://{}{MCP_PATH}", listener.local_addr().map_err(SetupError::Loopback)?);
        let writer = Journal::create(journal).map_err(|source| SetupError::Journal { path: journal.to_path_buf(), source })?;
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(serve_http(listener, writer.clone(), options, shutdown.clone()));
        Ok(HttpServer { url, journal: writer, shutdown, task })
    }

    /// Stops the server and waits (at most [`HTTP_STOP_TIMEOUT`]) until its journal is complete.
    pub async fn stop(self) -> Result<(), StopError> {
        self.shutdown.cancel();
        match tokio::time::timeout(HTTP_STOP_TIMEOUT, self.task).await {
            Ok(Ok(Ok(()))) => Ok(()),
            Ok(Ok(Err(e))) => Err(StopError::Failed(e)),
            Ok(Err(e)) => Err(StopError::Panicked(e)),
            Err(_) => Err(StopError::TooSlow(HTTP_STOP_TIMEOUT)),
        }
    }
}

/// The names of the files a run leaves beside its record. The standard variant's journal is
/// `<stem>.journal.jsonl`; another variant's carries its name, `<stem>.<variant>.journal.jsonl`,
/// and the same holds for the model stub's journal (`.model.jsonl`) and saved screens
/// (`.screens.txt`). `stem` is the transport, with the server's eras for a one-era pass
/// (`stdio.legacy-only`).
pub struct RunFiles<'a> {
    pub stem: &'a str,
    pub variant: Variant,
}

impl RunFiles<'_> {
    fn with(&self, suffix: &str) -> String {
        match self.variant.is_standard() {
            true => format!("{}.{suffix}", self.stem),
            false => format!("{}.{}.{suffix}", self.stem, self.variant),
        }
    }

    pub fn journal(&self) -> String {
        self.with("journal.jsonl")
    }

    pub fn model_journal(&self) -> String {
        self.with("model.jsonl")
    }

    pub fn screens(&self) -> String {
        self.with("screens.txt")
    }
}

/// The model journal of `variant` beside a record whose standard model journal is `standard`.
pub fn model_journal_of_variant(standard: &str, variant: Variant) -> Option<String> {
    let stem = standard.strip_suffix(".model.jsonl")?;
    Some(RunFiles { stem, variant }.model_journal())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_files_name_the_variant_except_the_standard_one() {
        let standard = RunFiles { stem: "stdio", variant: Variant::Standard };
        assert_eq!((standard.journal(), standard.model_journal()), ("stdio.journal.jsonl".into(), "stdio.model.jsonl".into()));
        let skills = RunFiles { stem: "http.legacy-only", variant: Variant::Skills };
        assert_eq!(skills.journal(), "http.legacy-only.skills.journal.jsonl");
        assert_eq!(model_journal_of_variant("stdio.model.jsonl", Variant::NoResources).as_deref(), Some("stdio.no-resources.model.jsonl"));
        assert_eq!(model_journal_of_variant("stdio.model.jsonl", Variant::Standard).as_deref(), Some("stdio.model.jsonl"));
    }

    #[test]
    fn the_stdio_server_is_told_its_journal_variant_and_eras() {
        let args = stdio_server_args(Path::new("/tmp/j.jsonl"), Variant::StreamDrop, EraPolicy::Legacy);
        assert_eq!(args, ["serve", "--stdio", "--journal", "/tmp/j.jsonl", "--variant", "stream-drop", "--era", "legacy"]);
    }

    #[test]
    fn a_reference_scratch_is_made_where_programs_run_and_gone_when_dropped() {
        assert!(!runs_programs_in_memory(Path::new("/nonexistent/mcp-client-probe")));
        let scratch = Scratch::new_in(reference_scratch_root()).unwrap();
        let (home, work, dir) = (scratch.home.clone(), scratch.work.clone(), scratch.path().to_path_buf());
        assert!(home.is_dir() && work.is_dir() && dir.starts_with(reference_scratch_root()));
        drop(scratch);
        assert!(!dir.exists());
    }
}
