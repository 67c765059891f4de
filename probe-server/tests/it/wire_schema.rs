//! Every frame the probe server sent in the recorded reference journals validates against the
//! official JSON schema of the protocol revision that session negotiated, read from
//! `$MCP_SCHEMA_DIR/<revision>/schema.json` or else `../shared/mcp-schema/<revision>/schema.json`
//! beside the repository. Where neither exists the test prints a visible "skipped" line and
//! passes (the schemas are not part of the repository); `.ci/run` refuses to run without them.

use std::collections::HashMap;
use std::path::PathBuf;

use probe_server::journal::Direction;
use probe_server::observe::{Frame, Observations};
use serde_json::{json, Value};

/// The environment variable naming a directory of official schemas, one folder per revision.
const SCHEMA_DIR_VAR: &str = "MCP_SCHEMA_DIR";

fn schema_root() -> PathBuf {
    match std::env::var_os(SCHEMA_DIR_VAR) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/mcp-schema"),
    }
}

/// Compiled validators for one `$defs` entry of one revision.
#[derive(Default)]
struct Schemas {
    documents: HashMap<String, Value>,
    validators: HashMap<(String, String), jsonschema::Validator>,
}

impl Schemas {
    fn validate(&mut self, revision: &str, definition: &str, instance: &Value) -> Result<(), String> {
        let key = (revision.to_string(), definition.to_string());
        if !self.validators.contains_key(&key) {
            let document = self.documents.entry(revision.to_string()).or_insert_with(|| {
                let path = schema_root().join(revision).join("schema.json");
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("the official schema {} is needed: {e}", path.display()));
                serde_json::from_str(&text).unwrap()
            });
            let defs_key = if document.get("$defs").is_some() { "$defs" } else { "definitions" };
            if document[defs_key].get(definition).is_none() {
                return Ok(()); // the revision has no such type (e.g. elicitation before 2025-06-18)
            }
            let mut wrapper = json!({"$ref": format!("#/{defs_key}/{definition}")});
            wrapper["$schema"] = document["$schema"].clone();
            wrapper[defs_key] = document[defs_key].clone();
            let validator = jsonschema::validator_for(&wrapper).map_err(|e| format!("cannot compile {definition}: {e}"))?;
            self.validators.insert(key.clone(), validator);
        }
        let validator = &self.validators[&key];
        let errors: Vec<String> = validator.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("; "))
        }
    }
}

fn result_definition(method: &str, result: &Value) -> Option<&'static str> {
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Some("InputRequiredResult");
    }
    Some(match method {
        "initialize" => "InitializeResult",
        "server/discover" => "DiscoverResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        _ => return None,
    })
}

fn message_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "elicitation/create" => "ElicitRequest",
        "sampling/createMessage" => "CreateMessageRequest",
        "roots/list" => "ListRootsRequest",
        "ping" => "PingRequest",
        "notifications/progress" => "ProgressNotification",
        "notifications/message" => "LoggingMessageNotification",
        "notifications/tools/list_changed" => "ToolListChangedNotification",
        "notifications/resources/list_changed" => "ResourceListChangedNotification",
        "notifications/prompts/list_changed" => "PromptListChangedNotification",
        _ => return None,
    })
}

fn request_for<'a>(observations: &'a Observations, answer: &Frame) -> Option<&'a Frame> {
    observations.frames.iter().rev().find(|f| f.seq < answer.seq && f.dir == Direction::ClientToServer && f.is_request() && f.id() == answer.id())
}

#[test]
fn the_server_speaks_the_negotiated_revision() {
    if !schema_root().is_dir() {
        eprintln!("skipped: no official schemas at {} (set {SCHEMA_DIR_VAR})", schema_root().display());
        return;
    }
    let mut schemas = Schemas::default();
    let mut checked = 0;
    let mut failures = Vec::new();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/journals");
    let mut journals: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("reference-")).collect();
    journals.sort();
    assert!(!journals.is_empty());
    for path in journals {
        let observations = Observations::from_text(&std::fs::read_to_string(&path).unwrap()).unwrap();
        // A session that never opened (an ablation refused at the door) sent no frame to check.
        let Some(revision) = observations.lifecycle().and_then(|l| l.negotiated_version) else {
            assert!(observations.frames.iter().all(|f| f.dir != Direction::ServerToClient), "{} answered without a negotiated revision", path.display());
            continue;
        };
        for frame in observations.frames.iter().filter(|f| f.dir == Direction::ServerToClient) {
            let target = if let Some(result) = frame.result() {
                request_for(&observations, frame).and_then(|r| result_definition(r.method()?, result)).map(|d| (d, result.clone()))
            } else {
                frame.method().and_then(message_definition).map(|d| (d, frame.msg.clone()))
            };
            let Some((definition, mut instance)) = target else { continue };
            // The one thing the no-result-type variant breaks on purpose; the rest must hold.
            if observations.variant() == probe_server::Variant::NoResultType && frame.result().is_some() {
                if let Some(result) = instance.as_object_mut() {
                    result.entry("resultType").or_insert(Value::from("complete"));
                }
            }
            checked += 1;
            if let Err(e) = schemas.validate(&revision, definition, &instance) {
                failures.push(format!("{} seq {} ({revision} {definition}): {e}", path.file_name().unwrap().to_string_lossy(), frame.seq));
            }
        }
    }
    assert!(checked > 200, "only {checked} frames checked");
    assert!(failures.is_empty(), "{} frames break the schema:\n{}", failures.len(), failures.join("\n"));
}
