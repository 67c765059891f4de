//! Every frame the probe server sent in the recorded reference journals validates against the
//! official JSON schema of the protocol revision that session negotiated, read from
//! `$MCP_SCHEMA_DIR/<revision>/schema.json` or else `../shared/mcp-schema/<revision>/schema.json`
//! beside the repository. Where neither exists the test prints a visible "skipped" line and
//! passes (the schemas are not part of the repository); `.ci/run` refuses to run without them.

use std::path::PathBuf;

use probe_server::journal::Direction;
use probe_server::observe::Observations;
use probe_server::wire_schema::{server_target, SchemaDir, Validation};
use serde_json::Value;

/// The environment variable naming a directory of official schemas, one folder per revision.
const SCHEMA_DIR_VAR: &str = "MCP_SCHEMA_DIR";

fn schema_root() -> PathBuf {
    match std::env::var_os(SCHEMA_DIR_VAR) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/mcp-schema"),
    }
}

#[test]
fn the_server_speaks_the_negotiated_revision() {
    if !schema_root().is_dir() {
        eprintln!("skipped: no official schemas at {} (set {SCHEMA_DIR_VAR})", schema_root().display());
        return;
    }
    let schemas = SchemaDir::open(&schema_root()).unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/journals");
    let mut journals: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("reference-")).collect();
    journals.sort();
    assert!(!journals.is_empty());
    for path in journals {
        let observations = Observations::from_text(&std::fs::read_to_string(&path).unwrap()).unwrap();
        // A session that never opened (an ablation refused at the door) has no revision to check
        // against: the server sent nothing but refusals there.
        let Some(revision) = observations.lifecycle().and_then(|l| l.negotiated_version) else {
            let answers = observations.frames.iter().filter(|f| f.dir == Direction::ServerToClient);
            assert!(answers.clone().all(|f| f.error().is_some()), "{} answered without a negotiated revision", path.display());
            continue;
        };
        for frame in &observations.frames {
            let Some((definitions, mut instance)) = server_target(&observations, frame) else { continue };
            // The one thing the no-result-type variant breaks on purpose; the rest must hold.
            if observations.variant() == probe_server::Variant::NoResultType && frame.result().is_some() {
                if let Some(result) = instance.as_object_mut() {
                    result.entry("resultType").or_insert(Value::from("complete"));
                }
            }
            for definition in definitions {
                match schemas.validate(&revision, definition, &instance).unwrap() {
                    Validation::Undefined => continue,
                    Validation::Valid => {}
                    Validation::Invalid(e) => failures.push(format!("{} seq {} ({revision} {definition}): {e}", path.file_name().unwrap().to_string_lossy(), frame.seq)),
                }
                checked += 1;
                break;
            }
        }
    }
    assert!(checked > 200, "only {checked} frames checked");
    assert!(failures.is_empty(), "{} frames break the schema:\n{}", failures.len(), failures.join("\n"));
}
