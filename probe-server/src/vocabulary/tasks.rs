//! Tasks (the 2026-07-28 extension `io.modelcontextprotocol/tasks`, SEP-2663), served in the
//! tasks variant. `tools/call` of each tool below answers a client that declared the extension
//! with a task (`resultType: "task"`) instead of the tool's result; the client follows it with
//! `tasks/get` at the task's `pollIntervalMs` until a terminal status, answers its input requests
//! with `tasks/update`, and gives up on it with `tasks/cancel`. A client that did not declare
//! the extension gets rmcp's refusal (-32021) in place of a task.
//!
//! - [`TOOL_TASK_RESULT`]: working for [`RESULT_AFTER_MS`], then completed with a text result
//!   holding [`RESULT_CANARY`].
//! - [`TOOL_TASK_INPUT`]: `input_required` (one form elicitation under [`INPUT_KEY`]) until a
//!   `tasks/update` answers it, then completed.
//! - [`TOOL_TASK_FAIL`]: working for [`FAIL_AFTER_MS`], then failed with a JSON-RPC error whose
//!   message holds [`FAIL_CANARY`].
//! - [`TOOL_TASK_LONG`]: working for [`LONG_MS`] (long enough for a host to give up on it and
//!   cancel), then completed; cancelled at once by `tasks/cancel`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The extension's identifier, in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";
pub const TOOL_TASK_RESULT: &str = "probe_task_result";
pub const TOOL_TASK_INPUT: &str = "probe_task_input";
pub const TOOL_TASK_FAIL: &str = "probe_task_fail";
pub const TOOL_TASK_LONG: &str = "probe_task_long";
/// The tools of the tasks variant, in the order the model calls them.
pub const TASK_TOOLS: [&str; 4] = [TOOL_TASK_RESULT, TOOL_TASK_INPUT, TOOL_TASK_FAIL, TOOL_TASK_LONG];
/// The polling interval every task asks for (by default: see [`TaskTiming`]).
pub const POLL_INTERVAL_MS: u64 = 200;
/// How long the server keeps a task.
pub const TTL_MS: u64 = 120_000;
pub const RESULT_AFTER_MS: u64 = 1_000;
pub const FAIL_AFTER_MS: u64 = 400;
pub const LONG_MS: u64 = 20_000;

/// How long the task tools run before they end, and the poll interval every task asks for:
/// [`RESULT_AFTER_MS`], [`FAIL_AFTER_MS`], [`LONG_MS`] and [`POLL_INTERVAL_MS`] by default; the
/// self-test's reference runs shorten them (the descriptions the tools are listed with stay those
/// of the defaults; the poll interval judged is the one each task asked for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskTiming {
    /// [`TOOL_TASK_RESULT`] completes after this long.
    pub result_after: Duration,
    /// [`TOOL_TASK_FAIL`] fails after this long.
    pub fail_after: Duration,
    /// [`TOOL_TASK_LONG`] completes after this long unless it is cancelled.
    pub long: Duration,
    /// Every task asks to be polled no more often than this (`pollIntervalMs`; 2025-11-25:
    /// `pollInterval`).
    pub poll_interval: Duration,
    /// How long a task is kept after it was made (`ttlMs`; 2025-11-25: `ttl`): then it is
    /// forgotten, and its id is unknown.
    pub ttl: Duration,
}

impl Default for TaskTiming {
    fn default() -> Self {
        TaskTiming {
            result_after: Duration::from_millis(RESULT_AFTER_MS),
            fail_after: Duration::from_millis(FAIL_AFTER_MS),
            long: Duration::from_millis(LONG_MS),
            poll_interval: Duration::from_millis(POLL_INTERVAL_MS),
            ttl: Duration::from_millis(TTL_MS),
        }
    }
}
/// Words in the completed result of [`TOOL_TASK_RESULT`].
pub const RESULT_CANARY: &str = "task-result-7e2a";
/// Words in the error of a failed [`TOOL_TASK_FAIL`].
pub const FAIL_CANARY: &str = "task-failed-93bd";
/// The key of [`TOOL_TASK_INPUT`]'s one input request.
pub const INPUT_KEY: &str = "confirm";

/// The tools of the tasks variant, as listed.
pub fn tools() -> Vec<Value> {
    let described = |name: &str, what: &str| json!({"name": name, "description": what, "inputSchema": {"type": "object", "properties": {}}});
    vec![
        described(TOOL_TASK_RESULT, "Runs as a task for about a second, then completes with a text result"),
        described(TOOL_TASK_INPUT, "Runs as a task that asks for a confirmation before it completes"),
        described(TOOL_TASK_FAIL, "Runs as a task that fails"),
        described(TOOL_TASK_LONG, "Runs as a task for twenty seconds unless it is cancelled"),
    ]
}

/// The status of a task, as the extension names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

struct Entry {
    tool: &'static str,
    started: Instant,
    created_at: String,
    answer: Option<Value>,
    cancelled: bool,
}

/// The tasks of one server process.
#[derive(Default)]
pub struct Tasks {
    entries: Mutex<HashMap<String, Entry>>,
    timing: TaskTiming,
}

/// Why a task request was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TaskError {
    #[error("no task {0}")]
    Unknown(String),
    #[error("task {0} asks for no input under the keys given")]
    NoSuchInput(String),
    #[error("task {0} has already ended ({1})")]
    Ended(String, &'static str),
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Tasks {
    /// No tasks yet; those started will run as `timing` says.
    pub fn new(timing: TaskTiming) -> Self {
        Tasks { entries: Mutex::default(), timing }
    }

    /// How long the tasks run.
    pub fn timing(&self) -> TaskTiming {
        self.timing
    }

    /// Starts a task for a call of `tool` (one of [`TASK_TOOLS`]) with id `task_id`: the
    /// `CreateTaskResult` to answer the call with.
    pub fn start(&self, tool: &str, task_id: &str) -> Option<Value> {
        let mut created = self.begin(tool, task_id, EXTENSION_FIELDS)?;
        created["resultType"] = json!("task");
        Some(created)
    }

    /// Enters a new task of `tool` (one of [`TASK_TOOLS`]): its fields, working, named as
    /// `names` says.
    fn begin(&self, tool: &str, task_id: &str, names: FieldNames) -> Option<Value> {
        let tool = TASK_TOOLS.into_iter().find(|t| *t == tool)?;
        let entry = Entry { tool, started: Instant::now(), created_at: now(), answer: None, cancelled: false };
        let fields = self.task_fields(task_id, &entry, Status::Working, names);
        self.live().insert(task_id.to_string(), entry);
        Some(fields)
    }

    /// The tasks, those past their time to live forgotten first.
    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let ttl = self.timing.ttl;
        entries.retain(|_, entry| entry.started.elapsed() < ttl);
        entries
    }

    /// The status of `task_id` now, and `f` of it with its entry.
    fn with<T>(&self, task_id: &str, f: impl FnOnce(Status, &Entry) -> T) -> Result<T, TaskError> {
        let entries = self.live();
        let entry = entries.get(task_id).ok_or_else(|| TaskError::Unknown(task_id.to_string()))?;
        let after = |length: Duration| entry.started.elapsed() >= length;
        let status = match entry.tool {
            _ if entry.cancelled => Status::Cancelled,
            TOOL_TASK_RESULT if after(self.timing.result_after) => Status::Completed,
            TOOL_TASK_INPUT if entry.answer.is_some() => Status::Completed,
            TOOL_TASK_INPUT => Status::InputRequired,
            TOOL_TASK_FAIL if after(self.timing.fail_after) => Status::Failed,
            TOOL_TASK_LONG if after(self.timing.long) => Status::Completed,
            _ => Status::Working,
        };
        Ok(f(status, entry))
    }

    /// What `tasks/get` answers for `task_id`: the task with its status's payload inlined.
    pub fn get(&self, task_id: &str) -> Result<(Status, Value), TaskError> {
        self.with(task_id, |status, entry| {
            let mut task = self.task_fields(task_id, entry, status, EXTENSION_FIELDS);
            match status {
                Status::InputRequired => task["inputRequests"] = json!({INPUT_KEY: input_request()}),
                Status::Completed => task["result"] = completed_result(entry.tool, entry.answer.as_ref()),
                Status::Failed => task["error"] = failure(),
                _ => {}
            }
            task["resultType"] = json!("complete");
            (status, task)
        })
    }

    /// `tasks/update`: the answers to a task's input requests.
    pub fn update(&self, task_id: &str, responses: &Value) -> Result<(), TaskError> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let entry = entries.get_mut(task_id).ok_or_else(|| TaskError::Unknown(task_id.to_string()))?;
        match responses.get(INPUT_KEY) {
            Some(answer) if entry.tool == TOOL_TASK_INPUT => {
                entry.answer = Some(answer.clone());
                Ok(())
            }
            _ => Err(TaskError::NoSuchInput(task_id.to_string())),
        }
    }

    /// `tasks/cancel`: the task ends cancelled; one that already ended is refused (as 2025-11-25
    /// says: a cancellation of a task in a terminal status is invalid params), in both eras alike.
    pub fn cancel(&self, task_id: &str) -> Result<(), TaskError> {
        let ended = self.with(task_id, |status, _| status.is_terminal().then(|| status.as_str()))?;
        if let Some(status) = ended {
            return Err(TaskError::Ended(task_id.to_string(), status));
        }
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(entry) = entries.get_mut(task_id) {
            entry.cancelled = true;
        }
        Ok(())
    }
}

/// What the taps answer for 2025-11-25's experimental tasks (the generation before the
/// extension), which rmcp does not know: the task the same tools make, in that revision's shapes.
impl Tasks {
    /// Starts a task for a task-augmented call of `tool`: the `CreateTaskResult` of 2025-11-25.
    /// That revision has no `tasks/update`, so the task of [`TOOL_TASK_INPUT`] completes as the
    /// one of [`TOOL_TASK_RESULT`] does.
    pub fn start_legacy(&self, tool: &str, task_id: &str) -> Option<Value> {
        let tool = if tool == TOOL_TASK_INPUT { TOOL_TASK_RESULT } else { tool };
        self.begin(tool, task_id, CORE_FIELDS).map(|task| json!({"task": task}))
    }

    /// A task as 2025-11-25 writes it (`ttl`, `pollInterval`; no payload).
    pub fn legacy_task(&self, task_id: &str) -> Result<(Status, Value), TaskError> {
        self.with(task_id, |status, entry| {
            let mut task = self.task_fields(task_id, entry, status, CORE_FIELDS);
            if status == Status::Failed {
                task["statusMessage"] = json!("the task failed");
            }
            (status, task)
        })
    }

    /// What `tasks/result` answers once the task ended: the call's result, or the error it failed
    /// (or was cancelled) with; none while it is still working.
    pub fn legacy_outcome(&self, task_id: &str) -> Result<Option<Result<Value, Value>>, TaskError> {
        self.with(task_id, |status, entry| match status {
            Status::Completed => {
                let mut result = completed_result(entry.tool, entry.answer.as_ref());
                result["_meta"] = json!({RELATED_TASK: {"taskId": task_id}});
                Some(Ok(result))
            }
            Status::Failed => Some(Err(failure())),
            Status::Cancelled => Some(Err(json!({"code": -32603, "message": format!("task {task_id} was cancelled")}))),
            Status::Working | Status::InputRequired => None,
        })
    }

    /// Every task's id, oldest first.
    pub fn ids(&self) -> Vec<String> {
        let entries = self.live();
        let mut ids: Vec<(&Instant, &String)> = entries.iter().map(|(id, e)| (&e.started, id)).collect();
        ids.sort();
        ids.into_iter().map(|(_, id)| id.clone()).collect()
    }
}

/// The `_meta` key that ties a message to its task (2025-11-25).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// What a generation calls a task's time to live and its poll interval.
type FieldNames = (&'static str, &'static str);
/// The 2026-07-28 extension's names.
const EXTENSION_FIELDS: FieldNames = ("ttlMs", "pollIntervalMs");
/// 2025-11-25's names.
const CORE_FIELDS: FieldNames = ("ttl", "pollInterval");

impl Tasks {
    /// The base fields of a task, named as `names` says.
    fn task_fields(&self, task_id: &str, entry: &Entry, status: Status, (ttl, interval): FieldNames) -> Value {
        json!({"taskId": task_id, "status": status.as_str(), "createdAt": entry.created_at, "lastUpdatedAt": now(),
               ttl: self.timing.ttl.as_millis() as u64, interval: self.timing.poll_interval.as_millis() as u64})
    }
}

/// The error a failed task ends with.
fn failure() -> Value {
    json!({"code": -32603, "message": format!("the task failed ({FAIL_CANARY})")})
}

/// The one input request of [`TOOL_TASK_INPUT`]'s task: a form with one boolean.
pub fn input_request() -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Confirm the task's step",
           "requestedSchema": {"type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]}}})
}

fn completed_result(tool: &str, answer: Option<&Value>) -> Value {
    let text = match (tool, answer) {
        (TOOL_TASK_INPUT, Some(answer)) => format!("the task completed with the answer {answer}"),
        _ => format!("the task completed ({RESULT_CANARY})"),
    };
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_task_goes_its_own_way() {
        let tasks = Tasks::default();
        let created = tasks.start(TOOL_TASK_INPUT, "t1").unwrap();
        assert_eq!((created["resultType"].as_str(), created["status"].as_str()), (Some("task"), Some("working")));
        let (status, asked) = tasks.get("t1").unwrap();
        assert_eq!(status, Status::InputRequired);
        assert!(asked["inputRequests"].get(INPUT_KEY).is_some());
        assert!(tasks.update("t1", &json!({"other": {}})).is_err());
        tasks.update("t1", &json!({INPUT_KEY: {"action": "accept", "content": {"confirmed": true}}})).unwrap();
        assert_eq!(tasks.get("t1").unwrap().0, Status::Completed);

        tasks.start(TOOL_TASK_LONG, "t2").unwrap();
        assert_eq!(tasks.get("t2").unwrap().0, Status::Working);
        tasks.cancel("t2").unwrap();
        assert_eq!(tasks.get("t2").unwrap().0, Status::Cancelled);
        // A task that ended is not cancelled again, nor one that completed (issue 52, N12).
        assert_eq!(tasks.cancel("t2"), Err(TaskError::Ended("t2".into(), "cancelled")));
        assert_eq!(tasks.cancel("t1"), Err(TaskError::Ended("t1".into(), "completed")));
        assert_eq!(tasks.get("t3"), Err(TaskError::Unknown("t3".into())));
        assert!(tasks.start("probe_other", "t4").is_none());
    }

    #[test]
    fn the_tasks_end_when_their_timing_says() {
        let instant = Tasks::new(TaskTiming { result_after: Duration::ZERO, fail_after: Duration::ZERO, long: Duration::ZERO, ..TaskTiming::default() });
        let lasting = Tasks::default();
        for (tool, ended) in [(TOOL_TASK_RESULT, Status::Completed), (TOOL_TASK_FAIL, Status::Failed), (TOOL_TASK_LONG, Status::Completed)] {
            instant.start(tool, tool).unwrap();
            lasting.start(tool, tool).unwrap();
            assert_eq!(instant.get(tool).unwrap().0, ended, "{tool}");
            assert_eq!(lasting.get(tool).unwrap().0, Status::Working, "{tool}");
        }
    }

    #[test]
    fn a_task_past_its_time_to_live_is_forgotten() {
        let brief = Tasks::new(TaskTiming { ttl: Duration::ZERO, ..TaskTiming::default() });
        let created = brief.start_legacy(TOOL_TASK_LONG, "t1").unwrap();
        assert_eq!(created["task"]["ttl"], json!(0), "the time to live announced is the one kept");
        assert_eq!(brief.legacy_task("t1"), Err(TaskError::Unknown("t1".into())));
        assert!(brief.ids().is_empty());
        let kept = Tasks::default();
        kept.start_legacy(TOOL_TASK_LONG, "t1").unwrap();
        assert_eq!(kept.ids(), ["t1"]);
    }

    #[test]
    fn every_task_asks_for_the_poll_interval_its_timing_says() {
        let quick = Tasks::new(TaskTiming { poll_interval: Duration::from_millis(100), ..TaskTiming::default() });
        assert_eq!(quick.start(TOOL_TASK_RESULT, "t1").unwrap()["pollIntervalMs"], 100);
        assert_eq!(quick.get("t1").unwrap().1["pollIntervalMs"], 100);
        assert_eq!(quick.start_legacy(TOOL_TASK_RESULT, "t2").unwrap()["task"]["pollInterval"], 100);
        assert_eq!(Tasks::default().start(TOOL_TASK_RESULT, "t1").unwrap()["pollIntervalMs"], POLL_INTERVAL_MS);
    }
}
