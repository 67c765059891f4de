//! The parts every run is made of, for the reference client and for real clients alike: a scratch
//! directory with a private home and working directory, the probe server's command line (stdio)
//! or the probe server on loopback (HTTP), the model stub, and the names of the files a run leaves
//! beside its record.

pub mod client;
pub mod launch;
pub mod run;
pub mod sign_in;
pub mod slots;
pub mod wire;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use probe_server::journal::Transport;
use probe_server::journal::{Entry, Journal};
use probe_server::note::Note;
use probe_server::transport::http::{serve_http, MCP_PATH};
use probe_server::{EraPolicy, ServeOptions, Variant};
use tokio_util::sync::CancellationToken;

use crate::drivers::stub;

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

/// Why a run could not be made or finished: the harness's failure, never the client's. Each
/// keeps its cause as its source.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Stop(#[from] StopError),
    #[error("cannot write the journal {}", path.display())]
    Journal { path: PathBuf, source: probe_server::JournalError },
    #[error("cannot write {}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Reference(#[from] crate::drivers::reference::ReferenceError),
    #[error(transparent)]
    Terminal(#[from] crate::drivers::terminal::DriveError),
    #[error("the stdio probe server did not finish its journal within {0:?}")]
    Unfinished(Duration),
    #[error("{client} connected over {seen} in a run over {pass}: its configuration names the server the other transport's way (give each transport its own with --file-stdio and --file-http, or --transport {seen})")]
    WrongTransport { client: String, pass: &'static str, seen: &'static str },
    #[error("no run of {client} applies over {transport} with the runs asked for")]
    NothingToRun { client: String, transport: &'static str },
    #[error("cannot write the record")]
    Record(#[source] std::io::Error),
    #[error("cannot check the client's frames against the official schemas")]
    Schemas(#[from] probe_server::wire_schema::SchemaDirError),
}

impl RunError {
    pub fn journal(path: &Path) -> impl FnOnce(probe_server::JournalError) -> RunError + '_ {
        move |source| RunError::Journal { path: path.to_path_buf(), source }
    }

    pub fn write(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
        move |source| RunError::Write { path: path.to_path_buf(), source }
    }
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

/// What a run's harness keeps differently for the self-test's reference runs than for real
/// clients: where the scratch directory goes and how long the model stub's settled turns last.
#[derive(Debug, Clone)]
pub struct Harness {
    pub scratch_root: PathBuf,
    pub settle_ms: u64,
}

/// The settled turn of the reference host's runs: it refetches its lists as a notification
/// arrives, so a shorter quiet time than a real host's is still a settled one; long enough for
/// the late-refetch variation's refetch, 300 ms after the notification, to land within it.
pub const REFERENCE_SETTLE_MS: u64 = 600;

impl Harness {
    /// A real client's: the temporary directory, the full settle.
    pub fn for_clients() -> Harness {
        Harness { scratch_root: std::env::temp_dir(), settle_ms: stub::plan::SETTLE_MS }
    }

    /// The reference runs': [`reference_scratch_root`], [`REFERENCE_SETTLE_MS`].
    pub fn reference() -> Harness {
        Harness { scratch_root: reference_scratch_root().to_path_buf(), settle_ms: REFERENCE_SETTLE_MS }
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

/// Where a run's model stub journals.
pub enum ModelJournal {
    /// The client talks to no model: no stub.
    None,
    /// In the scratch directory (`model.jsonl`), gone with it.
    Scratch,
    /// Beside the record, where it is evidence.
    At(PathBuf),
}

/// What every run sets up before the client starts and takes down after it ends: the scratch
/// directory, the model stub (for clients with a model) and, over HTTP, the probe server on
/// loopback journalling to `server_journal()`. Over stdio the client starts the server itself,
/// from [`stdio_server_args`].
pub struct Session {
    pub scratch: Scratch,
    stub: Option<stub::StubHandle>,
    model_journal: Option<PathBuf>,
    http: Option<HttpServer>,
}

impl Session {
    /// Opens a run's session as `harness` says.
    pub async fn open(transport: Transport, options: ServeOptions, model: ModelJournal, harness: &Harness) -> Result<Session, SetupError> {
        wire::compiled().await.map_err(SetupError::Schemas)?;
        let scratch = Scratch::new_in(&harness.scratch_root)?;
        let model_journal = match model {
            ModelJournal::None => None,
            ModelJournal::Scratch => Some(scratch.path().join("model.jsonl")),
            ModelJournal::At(path) => Some(path),
        };
        let stub = match &model_journal {
            Some(path) => Some(start_stub(path, options.variant, harness.settle_ms).await?),
            None => None,
        };
        let http = match transport {
            Transport::Http => Some(HttpServer::start(&scratch.path().join("journal-0.jsonl"), options).await?),
            Transport::Stdio => None,
        };
        Ok(Session { scratch, stub, model_journal, http })
    }

    /// Where the probe server of launch `index` journals (over HTTP, one server for all launches).
    pub fn server_journal(&self, index: usize) -> PathBuf {
        let index = if self.http.is_some() { 0 } else { index };
        self.scratch.path().join(format!("journal-{index}.jsonl"))
    }

    /// The model stub's base URL, or empty without a stub.
    pub fn stub_url(&self) -> String {
        self.stub.as_ref().map(|s| s.base_url.clone()).unwrap_or_default()
    }

    /// The HTTP probe server's URL, or empty over stdio.
    pub fn server_url(&self) -> String {
        self.http.as_ref().map(|s| s.url.clone()).unwrap_or_default()
    }

    pub fn model_journal(&self) -> Option<&Path> {
        self.model_journal.as_deref()
    }

    /// Journals, on the live HTTP server's clock, that the client has ended (nothing over stdio,
    /// where the server's `input_closed` marks it). A judge that needs a settled time after some
    /// event measures it to this note: the client's last request can come long before its end
    /// (a host waiting on its model sends nothing to the server).
    pub fn note_client_exited(&self, detail: serde_json::Value) {
        if let Some(server) = &self.http {
            server.journal.log(Entry::note(Transport::Http.as_str(), Transport::Http, Note::ClientExited.detail(detail)));
        }
    }

    /// Waits until the HTTP server's journal has been quiet for [`LANDING_QUIET`] (at most
    /// [`LANDING_MAX`]; nothing over stdio): a launched client that has exited may still have a
    /// request on its way (the closing DELETE), and stopping the server under it would lose it
    /// under load. The reference client's requests have all been answered when it returns.
    pub async fn let_requests_land(&self) {
        if self.http.is_none() {
            return;
        }
        let journal = self.server_journal(0);
        let deadline = Instant::now() + LANDING_MAX;
        let mut idle = JournalIdle::new(&journal, LANDING_QUIET);
        while !idle.idle() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Stops the stub and the HTTP server (its journal complete); the scratch directory stays
    /// until the session is dropped.
    pub async fn close(&mut self) -> Result<(), StopError> {
        if let Some(stub) = self.stub.take() {
            stub.stop().await;
        }
        match self.http.take() {
            Some(server) => server.stop().await,
            None => Ok(()),
        }
    }
}

/// How long an HTTP server's journal must have been quiet before the server is stopped.
pub const LANDING_QUIET: Duration = Duration::from_millis(250);
/// The longest an HTTP server waits for its journal to go quiet.
pub const LANDING_MAX: Duration = Duration::from_secs(2);

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

/// Starts the model stub journalling to `journal`, playing what `variant` needs.
pub async fn start_stub(journal: &Path, variant: Variant, settle_ms: u64) -> Result<stub::StubHandle, SetupError> {
    let writer = Journal::create(journal).map_err(|source| SetupError::Journal { path: journal.to_path_buf(), source })?;
    stub::start(writer, stub::Scope::for_variant(variant), settle_ms).await.map_err(SetupError::Stub)
}

/// The probe server over Streamable HTTP on a loopback port, journalling to its own file.
pub struct HttpServer {
    pub url: String,
    journal: Journal,
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
        let scratch = Scratch::new_in(&Harness::reference().scratch_root).unwrap();
        let (home, work, dir) = (scratch.home.clone(), scratch.work.clone(), scratch.path().to_path_buf());
        assert!(home.is_dir() && work.is_dir() && dir.starts_with(reference_scratch_root()));
        drop(scratch);
        assert!(!dir.exists());
    }
}
