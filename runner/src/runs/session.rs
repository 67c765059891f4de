//! A run's session: what every run sets up before the client starts and takes down after it
//! ends (the harness's scratch directory and HTTP server, and the model stub), and why a run
//! could not be made.

use probe_server::note::Payload;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use probe_server::journal::{Entry, Journal};
use probe_server::{ServeOptions, Variant};

use crate::drivers::stub;
use crate::harness::{reference_scratch_root, wire, HttpServer, JournalIdle, Scratch, SetupError, StopError, Transport};

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
    Reference(#[from] crate::reference::ReferenceError),
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
    pub fn note_client_exited(&self, exit: &probe_server::note::ClientExited) {
        if let Some(server) = &self.http {
            server.journal.log(Entry::note(Transport::Http.as_str(), Transport::Http, exit.detail()));
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

/// Starts the model stub journalling to `journal`, playing what `variant` needs.
pub async fn start_stub(journal: &Path, variant: Variant, settle_ms: u64) -> Result<stub::StubHandle, SetupError> {
    let writer = Journal::create(journal).map_err(|source| SetupError::Journal { path: journal.to_path_buf(), source })?;
    stub::start(writer, stub::Scope::for_variant(variant), settle_ms).await.map_err(SetupError::Stub)
}
