//! 2025-11-25's experimental tasks, served by the taps in the tasks variant to legacy sessions.
//! rmcp knows only the 2026-07-28 extension (no `params.task`, `tasks/result`, `tasks/list`, no
//! `capabilities.tasks` and no `execution` on a tool), so the taps do what that revision asks
//! of a server: they list the task tools with `execution.taskSupport: "required"` and declare
//! `capabilities.tasks` (outgoing rewrite), answer a task-augmented call of a task tool with a
//! `CreateTaskResult` and one without `params.task` with -32601, and answer `tasks/get`,
//! `tasks/result` (once the task has ended), `tasks/cancel` and `tasks/list` themselves. A
//! 2026-07-28 request (a protocol version in its `_meta`) goes on to rmcp as ever.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

use crate::tasks::{Status, Tasks, TASK_TOOLS};
use crate::Variant;

/// The methods the taps answer for a legacy session.
const TASK_METHODS: [&str; 4] = ["tasks/get", "tasks/result", "tasks/cancel", "tasks/list"];
/// How often a pending `tasks/result` looks at its task again.
const RESULT_RECHECK: Duration = Duration::from_millis(50);
/// How long a `tasks/result` waits for its task to end at most, past the longest task.
const RESULT_WAIT_PAST_LONGEST: Duration = Duration::from_millis(5_000);

/// The legacy tasks of one tap, each owned by the session that created it: another session
/// (or none) cannot list, read, wait on or cancel it — its id is unknown there (-32602).
#[derive(Default)]
pub(crate) struct LegacyTasks {
    tasks: Tasks,
    serial: AtomicU64,
    owners: std::sync::Mutex<std::collections::HashMap<String, String>>,
}

fn is_legacy(frame: &Value) -> bool {
    frame.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").is_none()
}

/// Whether the tap answers `frame` itself: a legacy request about tasks in the tasks variant.
pub(crate) fn intercepts(variant: Variant, frame: &Value) -> bool {
    if variant != Variant::Tasks || frame.get("id").is_none() || !is_legacy(frame) {
        return false;
    }
    match frame.get("method").and_then(Value::as_str) {
        Some("tools/call") => frame.pointer("/params/name").and_then(Value::as_str).is_some_and(|name| TASK_TOOLS.contains(&name)),
        Some(method) => TASK_METHODS.contains(&method),
        None => false,
    }
}

fn answer(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error(id: &Value, error: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

fn invalid(id: &Value, message: String) -> Value {
    error(id, json!({"code": -32602, "message": message}))
}

impl LegacyTasks {
    #[cfg(test)]
    async fn answer_for_test(&self, frame: &Value) -> Value {
        self.answer(frame, "stdio").await
    }

    /// No tasks yet; those started will run as `timing` says.
    pub(crate) fn new(timing: crate::tasks::TaskTiming) -> Self {
        LegacyTasks { tasks: Tasks::new(timing), serial: AtomicU64::default(), owners: Default::default() }
    }

    fn owner(&self, task_id: &str) -> Option<String> {
        self.owners.lock().ok().and_then(|owners| owners.get(task_id).cloned())
    }

    /// The whole answer to an intercepted request of `session` (the stdio tap's one session, or
    /// an HTTP session id). A `tasks/result` waits until its task ends.
    pub(crate) async fn answer(&self, frame: &Value, session: &str) -> Value {
        let id = frame.get("id").cloned().unwrap_or(Value::Null);
        let params = frame.get("params").cloned().unwrap_or_default();
        let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or_default().to_string();
        let method = frame.get("method").and_then(Value::as_str).unwrap_or_default();
        // Another session's task is no task of this one's.
        if ["tasks/get", "tasks/result", "tasks/cancel"].contains(&method) && self.owner(&task_id).as_deref() != Some(session) {
            return invalid(&id, format!("no task {task_id}"));
        }
        match method {
            "tools/call" => {
                let tool = params.get("name").and_then(Value::as_str).unwrap_or_default();
                if !params.get("task").is_some_and(Value::is_object) {
                    let message = format!("{tool} requires task-augmented execution (execution.taskSupport is \"required\"): call it with params.task");
                    return error(&id, json!({"code": -32601, "message": message}));
                }
                let task_id = format!("legacy-task-{}", self.serial.fetch_add(1, Ordering::SeqCst) + 1);
                match self.tasks.start_legacy(tool, &task_id) {
                    Some(created) => {
                        if let Ok(mut owners) = self.owners.lock() {
                            owners.insert(task_id, session.to_string());
                        }
                        answer(&id, created)
                    }
                    None => invalid(&id, format!("no task tool {tool}")),
                }
            }
            "tasks/get" => match self.tasks.legacy_task(&task_id) {
                Ok((_, task)) => answer(&id, task),
                Err(e) => invalid(&id, e.to_string()),
            },
            "tasks/cancel" => match self.tasks.legacy_task(&task_id) {
                Ok((status, _)) if status.is_terminal() => invalid(&id, format!("task {task_id} has already ended ({})", status.as_str())),
                Ok(_) => {
                    let _ = self.tasks.cancel(&task_id);
                    self.tasks.legacy_task(&task_id).map_or_else(|e| invalid(&id, e.to_string()), |(_, task)| answer(&id, task))
                }
                Err(e) => invalid(&id, e.to_string()),
            },
            "tasks/list" => {
                let own = |t: &String| self.owner(t).as_deref() == Some(session);
                let tasks: Vec<Value> = self.tasks.ids().iter().filter(|t| own(t)).filter_map(|t| self.tasks.legacy_task(t).ok()).map(|(_, task)| task).collect();
                answer(&id, json!({"tasks": tasks}))
            }
            "tasks/result" => {
                let deadline = tokio::time::Instant::now() + self.tasks.timing().long + RESULT_WAIT_PAST_LONGEST;
                loop {
                    match self.tasks.legacy_outcome(&task_id) {
                        Err(e) => return invalid(&id, e.to_string()),
                        Ok(Some(Ok(result))) => return answer(&id, result),
                        Ok(Some(Err(failed))) => return error(&id, failed),
                        Ok(None) if tokio::time::Instant::now() >= deadline => {
                            return error(&id, json!({"code": -32603, "message": format!("task {task_id} is still {}", Status::Working.as_str())}))
                        }
                        Ok(None) => tokio::time::sleep(RESULT_RECHECK).await,
                    }
                }
            }
            other => error(&id, json!({"code": -32601, "message": format!("{other} is not served")})),
        }
    }
}

/// The outgoing rewrite of the tasks variant: a legacy `initialize` result declares
/// `capabilities.tasks`, and a legacy `tools/list` result gives each task tool
/// `execution.taskSupport: "required"` (2026-07-28 results carry a `resultType` and stay as
/// they are).
pub(crate) fn rewrite_outgoing(text: &str) -> Option<String> {
    let mut frame: Value = serde_json::from_str(text).ok()?;
    let result = frame.get_mut("result")?;
    if result.get("resultType").is_some() {
        return None;
    }
    if result.get("protocolVersion").is_some() && result.get("serverInfo").is_some() {
        result.get_mut("capabilities")?["tasks"] = json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
        return Some(frame.to_string());
    }
    let tools = result.get_mut("tools")?.as_array_mut()?;
    let mut changed = false;
    for tool in tools.iter_mut().filter(|t| t.get("name").and_then(Value::as_str).is_some_and(|n| TASK_TOOLS.contains(&n))) {
        tool["execution"] = json!({"taskSupport": "required"});
        changed = true;
    }
    changed.then(|| frame.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    }

    #[tokio::test]
    async fn a_legacy_task_is_made_followed_and_fetched_and_an_unaugmented_call_refused() {
        let tasks = LegacyTasks::default();
        let plain = request("tools/call", json!({"name": crate::tasks::TOOL_TASK_FAIL}));
        assert!(intercepts(Variant::Tasks, &plain) && !intercepts(Variant::Standard, &plain));
        assert_eq!(tasks.answer_for_test(&plain).await.pointer("/error/code"), Some(&json!(-32601)));
        let created = tasks.answer_for_test(&request("tools/call", json!({"name": crate::tasks::TOOL_TASK_FAIL, "task": {"ttl": 1000}}))).await;
        let task_id = created.pointer("/result/task/taskId").and_then(Value::as_str).unwrap().to_string();
        assert_eq!(created.pointer("/result/task/pollInterval"), Some(&json!(crate::tasks::POLL_INTERVAL_MS)));
        let failed = tasks.answer_for_test(&request("tasks/result", json!({"taskId": task_id}))).await;
        assert!(failed.pointer("/error/message").and_then(Value::as_str).unwrap().contains(crate::tasks::FAIL_CANARY));
        let listed = tasks.answer_for_test(&request("tasks/list", json!({}))).await;
        assert_eq!(listed.pointer("/result/tasks/0/status"), Some(&json!("failed")));
        let modern = request("tasks/get", json!({"taskId": task_id, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}));
        assert!(!intercepts(Variant::Tasks, &modern));
    }

    /// A task belongs to the session that made it: another cannot list, read, wait on or cancel it.
    #[tokio::test]
    async fn a_task_is_its_sessions_alone() {
        let tasks = LegacyTasks::default();
        let created = tasks.answer(&request("tools/call", json!({"name": crate::tasks::TOOL_TASK_LONG, "task": {"ttl": 1000}})), "alice").await;
        let task_id = created.pointer("/result/task/taskId").and_then(Value::as_str).unwrap().to_string();
        for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
            let foreign = tasks.answer(&request(method, json!({"taskId": task_id})), "mallory").await;
            assert_eq!(foreign.pointer("/error/code"), Some(&json!(-32602)), "{method}: {foreign}");
        }
        let listed = tasks.answer(&request("tasks/list", json!({})), "mallory").await;
        assert_eq!(listed.pointer("/result/tasks"), Some(&json!([])));
        let own = tasks.answer(&request("tasks/get", json!({"taskId": task_id})), "alice").await;
        assert_eq!(own.pointer("/result/status"), Some(&json!("working")), "{own}");
        let cancelled = tasks.answer(&request("tasks/cancel", json!({"taskId": task_id})), "alice").await;
        assert_eq!(cancelled.pointer("/result/status"), Some(&json!("cancelled")), "{cancelled}");
    }

    #[tokio::test]
    async fn a_legacy_task_runs_as_long_as_the_taps_timing_says() {
        let instant = crate::tasks::TaskTiming { result_after: Duration::ZERO, fail_after: Duration::ZERO, long: Duration::ZERO, ..Default::default() };
        for (tasks, status) in [(LegacyTasks::new(instant), "completed"), (LegacyTasks::default(), "working")] {
            let created = tasks.answer_for_test(&request("tools/call", json!({"name": crate::tasks::TOOL_TASK_LONG, "task": {"ttl": 1000}}))).await;
            let task_id = created.pointer("/result/task/taskId").and_then(Value::as_str).unwrap().to_string();
            let got = tasks.answer_for_test(&request("tasks/get", json!({"taskId": task_id}))).await;
            assert_eq!(got.pointer("/result/status"), Some(&json!(status)), "{got}");
        }
    }

    #[test]
    fn only_legacy_listings_and_openings_are_rewritten() {
        let listed = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": crate::tasks::tools()}}).to_string();
        let rewritten: Value = serde_json::from_str(&rewrite_outgoing(&listed).unwrap()).unwrap();
        assert_eq!(rewritten.pointer("/result/tools/0/execution/taskSupport"), Some(&json!("required")));
        let modern = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": crate::tasks::tools(), "resultType": "complete"}}).to_string();
        assert_eq!(rewrite_outgoing(&modern), None);
        let opened = json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "p", "version": "1"}}}).to_string();
        assert!(rewrite_outgoing(&opened).unwrap().contains("\"tasks\""));
    }
}
