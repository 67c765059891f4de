//! The official schemas a run checks its client's frames against: given once per process
//! (`--schemas DIR`, else the `MCP_SCHEMA_DIR` environment variable), they are read before the
//! command starts (a directory without them, or a schema that is not JSON, is bad input) and
//! compiled when its first run opens, before any run starts (a run that compiled them would take
//! the CPU from the runs beside it). Every run's journal then ends with a `wire_checked` note
//! (`probe_server::wire_schema`) for `wire.client_frames_valid` to judge. Without them a run has
//! no such note, and that probe says not reached.

use std::path::PathBuf;
use std::sync::OnceLock;

use probe_server::journal::Transport;
use probe_server::observe::Observations;
use probe_server::wire_schema::{check_client_frames, SchemaDir, SchemaDirError};
use serde_json::Value;

/// The environment variable naming the schemas directory where `--schemas` is not given.
pub const SCHEMA_DIR_VAR: &str = "MCP_SCHEMA_DIR";

static SCHEMAS: OnceLock<Option<SchemaDir>> = OnceLock::new();
static COMPILED: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();

/// Opens the schemas directory for this process: `dir`, else the environment's. A directory
/// that holds no schema is an error; none given is fine (nothing will be checked).
pub fn configure(dir: Option<PathBuf>) -> Result<Option<PathBuf>, SchemaDirError> {
    let dir = dir.or_else(|| std::env::var_os(SCHEMA_DIR_VAR).filter(|v| !v.is_empty()).map(PathBuf::from));
    let schemas = dir.as_deref().map(SchemaDir::open).transpose()?;
    let _ = SCHEMAS.set(schemas);
    Ok(dir)
}

/// Compiles every schema type once per process, when the first run opens; the runs that open
/// meanwhile wait for it (nothing of theirs has started). Compiled here rather than in
/// [`configure`], a command that stops before its first run (bad input, a command that runs
/// nothing) does not pay for it: 0.65 CPU-seconds in a debug build.
pub async fn compiled() -> Result<(), SchemaDirError> {
    let Some(schemas) = schemas() else { return Ok(()) };
    COMPILED.get_or_try_init(|| async { schemas.compile_all() }).await.map(|_| ())
}

fn schemas() -> Option<&'static SchemaDir> {
    SCHEMAS.get().and_then(Option::as_ref)
}

/// Whether this process was given the schemas.
pub fn configured() -> bool {
    schemas().is_some()
}

/// Adds the `wire_checked` note after the last event of a session's observations, when the
/// process has the schemas.
pub fn add_check(observations: &mut Observations, transport: Transport) -> Result<(), SchemaDirError> {
    if let Some(note) = check_note(observations)? {
        observations.push_note(transport.as_str(), transport, note);
    }
    Ok(())
}

/// The `wire_checked` note of a session's observations, when the process has the schemas.
pub fn check_note(observations: &Observations) -> Result<Option<Value>, SchemaDirError> {
    let Some(schemas) = schemas() else { return Ok(None) };
    Ok(Some(probe_server::note::Payload::detail(&check_client_frames(observations, schemas)?)))
}
