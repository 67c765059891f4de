//! The official JSON schemas of the protocol revisions, and the check of the frames one side of a
//! session sent against the schema of the revision the session negotiated.
//!
//! The schemas are not part of this repository: they are read from a directory holding one folder
//! per revision (`<dir>/<revision>/schema.json`, as the specification's repository lays them out).
//! Each frame is checked against the schema type its method names ([`client_target`] for what a
//! client sends, [`server_target`] for what a server sends); a frame of a method the revision does
//! not define (an extension's, an older or newer era's) is not checked. The result of a client
//! check is written to the journal as a `wire_checked` note ([`WireCheck::note`]), which the probe
//! `wire.client_frames_valid` judges.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::journal::Direction;
use crate::observe::{Frame, Observations};

/// How many invalid frames a check keeps (it counts them all).
const KEPT_INVALID: usize = 8;
/// How much of one frame's validation errors a check keeps.
const MAX_ERROR_CHARS: usize = 400;

#[derive(Debug, thiserror::Error)]
pub enum SchemaDirError {
    #[error("{0} is not a directory of official MCP schemas (expected <dir>/<revision>/schema.json)")]
    NotASchemaDir(PathBuf),
    #[error("cannot read the schema {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("the schema {path} is not JSON: {source}")]
    Parse { path: PathBuf, source: serde_json::Error },
    #[error("the type {definition} of the {revision} schema does not compile: {message}")]
    Compile { revision: String, definition: String, message: String },
}

/// One compiled schema type, or none where the revision has no such type.
type Compiled = Option<Arc<jsonschema::Validator>>;

/// A directory of official schemas, read and compiled as types are asked for; shared by all the
/// runs of one process.
pub struct SchemaDir {
    root: PathBuf,
    documents: Mutex<HashMap<String, Arc<Value>>>,
    validators: Mutex<HashMap<(String, String), Compiled>>,
}

/// What one validation found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Validation {
    Valid,
    /// The validator's messages, each with the place in the instance it concerns.
    Invalid(String),
    /// The revision defines no such type: nothing to check.
    Undefined,
}

impl SchemaDir {
    /// The schemas under `root`, each read now (so that a broken one is found before anything
    /// runs): at least one `<revision>/schema.json` must be there.
    pub fn open(root: &Path) -> Result<SchemaDir, SchemaDirError> {
        let dir = SchemaDir { root: root.to_path_buf(), documents: Mutex::default(), validators: Mutex::default() };
        let revisions: Vec<String> = std::fs::read_dir(root)
            .map(|entries| entries.filter_map(Result::ok).filter(|e| e.path().join("schema.json").is_file()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        if revisions.is_empty() {
            return Err(SchemaDirError::NotASchemaDir(root.to_path_buf()));
        }
        for revision in &revisions {
            dir.document(revision)?;
        }
        Ok(dir)
    }

    /// Compiles every type a frame can be checked as, for every revision in the directory, so
    /// that runs find them ready (a run that compiled them would take the CPU from the runs
    /// beside it).
    pub fn compile_all(&self) -> Result<(), SchemaDirError> {
        let revisions: Vec<String> = self.documents.lock().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect();
        for revision in revisions {
            for definition in checked_types() {
                self.validator(&revision, definition)?;
            }
        }
        Ok(())
    }

    /// Whether the directory holds the schema of `revision` (all of them were read when it was
    /// opened).
    pub fn has_revision(&self, revision: &str) -> bool {
        self.documents.lock().unwrap_or_else(|e| e.into_inner()).contains_key(revision)
    }

    fn schema_path(&self, revision: &str) -> PathBuf {
        self.root.join(revision).join("schema.json")
    }

    fn document(&self, revision: &str) -> Result<Arc<Value>, SchemaDirError> {
        let mut documents = self.documents.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(document) = documents.get(revision) {
            return Ok(document.clone());
        }
        let path = self.schema_path(revision);
        let text = std::fs::read_to_string(&path).map_err(|source| SchemaDirError::Read { path: path.clone(), source })?;
        let mut document: Value = serde_json::from_str(&text).map_err(|source| SchemaDirError::Parse { path, source })?;
        follow_typescript(&mut document);
        let document = Arc::new(document);
        documents.insert(revision.to_string(), document.clone());
        Ok(document)
    }

    fn validator(&self, revision: &str, definition: &str) -> Result<Compiled, SchemaDirError> {
        let key = (revision.to_string(), definition.to_string());
        if let Some(compiled) = self.validators.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(compiled.clone());
        }
        let document = self.document(revision)?;
        // Draft-07 revisions keep their types under `definitions`, 2020-12 ones under `$defs`.
        let defs_key = if document.get("$defs").is_some() { "$defs" } else { "definitions" };
        let compiled = match document[defs_key].get(definition) {
            None => None,
            Some(_) => {
                let wrapper = json!({"$schema": document["$schema"], "$ref": format!("#/{defs_key}/{definition}"), defs_key: document[defs_key]});
                let validator = jsonschema::validator_for(&wrapper).map_err(|e| SchemaDirError::Compile {
                    revision: revision.to_string(),
                    definition: definition.to_string(),
                    message: e.to_string(),
                })?;
                Some(Arc::new(validator))
            }
        };
        self.validators.lock().unwrap_or_else(|e| e.into_inner()).insert(key, compiled.clone());
        Ok(compiled)
    }

    /// Validates `instance` as the type `definition` of `revision`.
    pub fn validate(&self, revision: &str, definition: &str, instance: &Value) -> Result<Validation, SchemaDirError> {
        let Some(validator) = self.validator(revision, definition)? else { return Ok(Validation::Undefined) };
        let errors: Vec<String> = validator.iter_errors(instance).map(|e| format!("{e} at {}", e.instance_path())).collect();
        Ok(if errors.is_empty() { Validation::Valid } else { Validation::Invalid(errors.join("; ")) })
    }
}

/// Puts right where a revision's `schema.json` says less than its `schema.ts`, the source of
/// truth it is generated from: the values of an `ElicitResult`'s `content` are `string | number |
/// boolean` (and `string[]` from 2025-11-25) in `schema.ts`, but `integer` in place of `number`
/// in `schema.json` (2025-06-18 on), which would blame a client for answering a form's number
/// field with 0.25.
fn follow_typescript(document: &mut Value) {
    fn widen(node: &mut Value) {
        match node {
            Value::Object(map) => {
                match map.get_mut("type") {
                    Some(Value::Array(types)) => types.iter_mut().filter(|t| *t == "integer").for_each(|t| *t = Value::from("number")),
                    Some(t) if t == "integer" => *t = Value::from("number"),
                    _ => {}
                }
                map.values_mut().for_each(widen);
            }
            Value::Array(items) => items.iter_mut().for_each(widen),
            _ => {}
        }
    }
    for defs_key in ["$defs", "definitions"] {
        if let Some(values) = document.pointer_mut(&format!("/{defs_key}/ElicitResult/properties/content/additionalProperties")) {
            widen(values);
        }
    }
}

/// The schema type of each request, by method.
/// (The task requests are 2025-11-25's; 2026-07-28 leaves them to the tasks extension and does
/// not define them, so there they are not checked.)
const REQUESTS: [(&str, &str); 22] = [
    ("initialize", "InitializeRequest"),
    ("server/discover", "DiscoverRequest"),
    ("ping", "PingRequest"),
    ("tools/list", "ListToolsRequest"),
    ("tools/call", "CallToolRequest"),
    ("resources/list", "ListResourcesRequest"),
    ("resources/templates/list", "ListResourceTemplatesRequest"),
    ("resources/read", "ReadResourceRequest"),
    ("resources/subscribe", "SubscribeRequest"),
    ("resources/unsubscribe", "UnsubscribeRequest"),
    ("subscriptions/listen", "SubscriptionsListenRequest"),
    ("prompts/list", "ListPromptsRequest"),
    ("prompts/get", "GetPromptRequest"),
    ("logging/setLevel", "SetLevelRequest"),
    ("completion/complete", "CompleteRequest"),
    ("elicitation/create", "ElicitRequest"),
    ("sampling/createMessage", "CreateMessageRequest"),
    ("roots/list", "ListRootsRequest"),
    ("tasks/get", "GetTaskRequest"),
    ("tasks/result", "GetTaskPayloadRequest"),
    ("tasks/list", "ListTasksRequest"),
    ("tasks/cancel", "CancelTaskRequest"),
];

/// The schema type of each notification, by method.
const NOTIFICATIONS: [(&str, &str); 9] = [
    ("notifications/initialized", "InitializedNotification"),
    ("notifications/cancelled", "CancelledNotification"),
    ("notifications/progress", "ProgressNotification"),
    ("notifications/roots/list_changed", "RootsListChangedNotification"),
    ("notifications/message", "LoggingMessageNotification"),
    ("notifications/tools/list_changed", "ToolListChangedNotification"),
    ("notifications/resources/list_changed", "ResourceListChangedNotification"),
    ("notifications/resources/updated", "ResourceUpdatedNotification"),
    ("notifications/prompts/list_changed", "PromptListChangedNotification"),
];

/// The schema type of the result of each request, by the request's method.
const RESULTS: [(&str, &str); 17] = [
    ("initialize", "InitializeResult"),
    ("server/discover", "DiscoverResult"),
    ("ping", "EmptyResult"),
    ("tools/list", "ListToolsResult"),
    ("tools/call", "CallToolResult"),
    ("resources/list", "ListResourcesResult"),
    ("resources/templates/list", "ListResourceTemplatesResult"),
    ("resources/read", "ReadResourceResult"),
    ("prompts/list", "ListPromptsResult"),
    ("prompts/get", "GetPromptResult"),
    ("elicitation/create", "ElicitResult"),
    ("sampling/createMessage", "CreateMessageResult"),
    ("roots/list", "ListRootsResult"),
    ("tasks/get", "GetTaskResult"),
    ("tasks/result", "GetTaskPayloadResult"),
    ("tasks/list", "ListTasksResult"),
    ("tasks/cancel", "CancelTaskResult"),
];

/// A result that asks for input (2026-07-28), whatever its request.
const INPUT_REQUIRED: &str = "InputRequiredResult";
/// The answer to a task-augmented request (2025-11-25's experimental tasks).
const CREATE_TASK: &str = "CreateTaskResult";
/// An error response: the type was renamed in 2025-11-25, and a revision has one or the other.
const ERROR_RESPONSES: [&str; 2] = ["JSONRPCErrorResponse", "JSONRPCError"];

fn named(table: &[(&str, &'static str)], method: &str) -> Option<&'static str> {
    table.iter().find(|(m, _)| *m == method).map(|(_, definition)| *definition)
}

/// Every type [`target`] may name.
fn checked_types() -> impl Iterator<Item = &'static str> {
    REQUESTS.iter().chain(&NOTIFICATIONS).chain(&RESULTS).map(|(_, d)| *d).chain([INPUT_REQUIRED, CREATE_TASK]).chain(ERROR_RESPONSES)
}

/// What of a frame is checked, and as which types: a request or notification whole, a result as
/// the result of its request's method, an error as a JSON-RPC error response.
fn target(o: &Observations, frame: &Frame) -> Option<(Vec<&'static str>, Value)> {
    if let Some(method) = frame.method() {
        let definition = named(if frame.is_request() { &REQUESTS } else { &NOTIFICATIONS }, method)?;
        return Some((vec![definition], frame.msg.clone()));
    }
    if let Some(asked) = frame.input_required() {
        return Some((vec![INPUT_REQUIRED], asked.clone()));
    }
    if let Some(result) = frame.result() {
        // A task handed for a request (`resultType: "task"`) is the tasks extension's, which
        // 2026-07-28 does not define.
        if result.get("resultType").and_then(Value::as_str) == Some("task") {
            return None;
        }
        // 2025-11-25's answer to a task-augmented request, whatever the request.
        if result.get("task").is_some_and(Value::is_object) && result.get("content").is_none() {
            return Some((vec![CREATE_TASK], result.clone()));
        }
        let method = o.request_of(frame)?.method()?;
        return Some((vec![named(&RESULTS, method)?], result.clone()));
    }
    frame.error().map(|_| (ERROR_RESPONSES.to_vec(), frame.msg.clone()))
}

/// What a client sent, as [`target`] reads it.
pub fn client_target(o: &Observations, frame: &Frame) -> Option<(Vec<&'static str>, Value)> {
    (frame.dir == Direction::ClientToServer).then(|| target(o, frame)).flatten()
}

/// What a server sent, as [`target`] reads it.
pub fn server_target(o: &Observations, frame: &Frame) -> Option<(Vec<&'static str>, Value)> {
    (frame.dir == Direction::ServerToClient).then(|| target(o, frame)).flatten()
}

pub use crate::note::{InvalidFrame, WireCheck};

/// Checks every frame the client sent in `o` against the schema of the negotiated revision.
pub fn check_client_frames(o: &Observations, schemas: &SchemaDir) -> Result<WireCheck, SchemaDirError> {
    let revision = o.lifecycle().and_then(|l| l.negotiated_version);
    let mut check = WireCheck { revision: revision.clone(), schema_found: false, checked: 0, first_checked: None, invalid_count: 0, invalid: Vec::new() };
    let Some(revision) = revision.filter(|r| schemas.has_revision(r)) else { return Ok(check) };
    check.schema_found = true;
    for frame in &o.frames {
        let Some((definitions, instance)) = client_target(o, frame) else { continue };
        for definition in definitions {
            let errors = match schemas.validate(&revision, definition, &instance)? {
                Validation::Undefined => continue,
                Validation::Valid => None,
                Validation::Invalid(errors) => Some(errors),
            };
            check.checked += 1;
            check.first_checked.get_or_insert(frame.seq);
            if let Some(errors) = errors {
                check.invalid_count += 1;
                if check.invalid.len() < KEPT_INVALID {
                    let errors: String = errors.chars().take(MAX_ERROR_CHARS).collect();
                    check.invalid.push(InvalidFrame { seq: frame.seq, definition: definition.to_string(), errors });
                }
            }
            break;
        }
    }
    Ok(check)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_elicit_result_may_answer_a_number_field_with_a_fraction() {
        let mut document = json!({"$defs": {"ElicitResult": {"properties": {"content": {"additionalProperties": {
            "anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": ["string", "integer", "boolean"]}]
        }}}}, "Other": {"type": "integer"}}});
        follow_typescript(&mut document);
        assert_eq!(document.pointer("/$defs/ElicitResult/properties/content/additionalProperties/anyOf/1/type"), Some(&json!(["string", "number", "boolean"])));
        assert_eq!(document.pointer("/$defs/Other/type"), Some(&json!("integer")), "only ElicitResult's content");
    }

    #[test]
    fn frames_are_checked_as_the_type_their_method_or_request_names() {
        let journal = [
            r#"{"format_version":1,"seq":1,"t_us":1,"session":"s","transport":"stdio","dir":"c2s","kind":"frame","raw_len":0,"raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"}"#,
            r#"{"format_version":1,"seq":2,"t_us":2,"session":"s","transport":"stdio","dir":"s2c","kind":"frame","raw_len":0,"raw":"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"roots/list\"}"}"#,
            r#"{"format_version":1,"seq":3,"t_us":3,"session":"s","transport":"stdio","dir":"c2s","kind":"frame","raw_len":0,"raw":"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"roots\":[]}}"}"#,
            r#"{"format_version":1,"seq":4,"t_us":4,"session":"s","transport":"stdio","dir":"c2s","kind":"frame","raw_len":0,"raw":"{\"jsonrpc\":\"2.0\",\"method\":\"skills/list\",\"id\":2}"}"#,
        ]
        .join("\n");
        let o = Observations::from_text(&journal).unwrap();
        let kinds: Vec<Option<Vec<&str>>> = o.frames.iter().map(|f| client_target(&o, f).map(|(d, _)| d)).collect();
        assert_eq!(kinds, vec![Some(vec!["ListToolsRequest"]), None, Some(vec!["ListRootsResult"]), None]);
        let server: Vec<bool> = o.frames.iter().map(|f| server_target(&o, f).is_some()).collect();
        assert_eq!(server, vec![false, true, false, false]);
    }

    #[test]
    fn a_directory_without_schemas_is_refused() {
        let dir = std::env::temp_dir().join(format!("no-schemas-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(matches!(SchemaDir::open(&dir), Err(SchemaDirError::NotASchemaDir(_))));
        let _ = std::fs::remove_dir_all(dir);
    }
}
