//! The reference client's side of tasks, in both generations. In 2026-07-28 (the extension
//! `io.modelcontextprotocol/tasks`, which it declares) a call answered with a task is followed
//! with `tasks/get` at the task's `pollIntervalMs` until a terminal status, with the result
//! inline; an input request is answered with `tasks/update`. In 2025-11-25 (experimental tasks,
//! which rmcp does not know, so the requests go out as custom ones) it calls a tool whose
//! `execution.taskSupport` is `"required"` with `params.task`, follows the `CreateTaskResult`
//! with `tasks/get` at its `pollInterval`, and fetches the result with `tasks/result`. In both,
//! a task still unfinished after [`GIVE_UP_AFTER`] is cancelled with `tasks/cancel`. Each tasks
//! probe has an ablation here that breaks one of these.

use std::time::{Duration, Instant};

use probe_server::tasks::TaskTiming;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams, UpdateTaskParams};
use serde_json::{json, Value};

use super::{custom_request, Ablation, Client, CustomRequestError};

/// How long the task tools run in the reference runs, and how often their tasks ask to be
/// polled: shorter than a real host is given, so that the runs that follow every task one after
/// another take seconds less; the long task is left as it is, since the reference client gives up
/// on it. Polled every 100 ms (real clients are asked for 200 ms), a task is seen done sooner, and
/// the first poll comes long before the task with a result completes: under the
/// stop-polling-early ablation that first poll must still see it working (at 0.4 s with 200 ms
/// polls, one delayed by load did not, with 128 self-test runs at once).
pub const REFERENCE_TIMING: TaskTiming = TaskTiming {
    result_after: Duration::from_millis(700),
    fail_after: Duration::from_millis(300),
    long: Duration::from_millis(probe_server::tasks::LONG_MS),
    poll_interval: Duration::from_millis(100),
    ttl: Duration::from_millis(probe_server::tasks::TTL_MS),
};

/// How long the reference client follows a task before it gives up on it: 0.8 s past the task
/// that completes (a loaded machine delays the polls by up to hundreds of milliseconds; 0.5 s was
/// too little room), well before the long one ends.
pub const GIVE_UP_AFTER: Duration = Duration::from_millis(REFERENCE_TIMING.result_after.as_millis() as u64 + 800);
/// The interval of the busy-poll-tasks ablation, which also sends each poll twice at once: two
/// polls in flight together reach the server a moment apart however loaded the machine is, where
/// one poll after another's answer may not (the judge counts polls less than half the asked
/// interval apart).
const BUSY_POLL: Duration = Duration::from_millis(10);

/// How a call ended, as the caller hands it on.
#[derive(Debug, Clone, PartialEq)]
pub enum Ended {
    /// The tool's result (from the call, or from the completed task), as JSON.
    Result(Value),
    /// The task failed, was cancelled, or was given up on: why, in words.
    Failed(String),
}

/// Whether the session speaks a revision before 2026-07-28.
fn legacy(client: &Client) -> bool {
    client.peer_info().is_some_and(|info| info.protocol_version.as_str() < "2026-07-28")
}

/// Calls `tool` once; a task handed back instead of the result is followed to its end.
pub async fn call(client: &Client, params: CallToolRequestParams, ablation: Option<Ablation>) -> Ended {
    if legacy(client) {
        return call_legacy(client, params, ablation).await;
    }
    let response = match client.call_tool_once(params).await {
        Ok(response) => response,
        Err(e) => return Ended::Failed(format!("error: {e}")),
    };
    match response {
        CallToolResponse::Complete(result) => Ended::Result(serde_json::to_value(result).unwrap_or_default()),
        CallToolResponse::Task(created) => {
            let handle = serde_json::to_value(&created).unwrap_or_default();
            follow(client, Generation::Extension, &handle, ablation).await
        }
        CallToolResponse::InputRequired(_) => Ended::Failed("the server asked for input outside a task".into()),
        other => Ended::Failed(format!("an answer of an unknown kind: {other:?}")),
    }
}

/// The generation of tasks a session speaks, and what differs between the two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Generation {
    /// 2026-07-28's extension: rmcp's typed requests, the result inline in `tasks/get`.
    Extension,
    /// 2025-11-25's experimental tasks: custom requests, the result from `tasks/result`.
    Core,
}

impl Generation {
    /// The key of a task's poll interval.
    fn interval_key(self) -> &'static str {
        match self {
            Generation::Extension => "pollIntervalMs",
            Generation::Core => "pollInterval",
        }
    }

    async fn get(self, client: &Client, task_id: &str) -> Result<Value, CustomRequestError> {
        match self {
            Generation::Extension => Ok(client.get_task(GetTaskParams::new(task_id)).await.map(|got| serde_json::to_value(got).unwrap_or_default())?),
            Generation::Core => custom_request(client, "tasks/get", json!({"taskId": task_id})).await,
        }
    }

    async fn cancel(self, client: &Client, task_id: &str) {
        let _ = match self {
            Generation::Extension => client.cancel_task(CancelTaskParams::new(task_id)).await.map(drop).map_err(CustomRequestError::from),
            Generation::Core => custom_request(client, "tasks/cancel", json!({"taskId": task_id})).await.map(drop),
        };
    }

    /// How the task `task` (as `tasks/get` answered) ended, if it did.
    async fn ended(self, client: &Client, task_id: &str, task: &Value) -> Option<Ended> {
        let status = task.get("status").and_then(Value::as_str).unwrap_or_default();
        if !matches!(status, "completed" | "failed" | "cancelled") {
            return None;
        }
        Some(match (self, status) {
            (Generation::Core, _) => custom_request(client, "tasks/result", json!({"taskId": task_id})).await.map_or_else(|e| Ended::Failed(e.to_string()), Ended::Result),
            (Generation::Extension, "completed") => Ended::Result(task.get("result").cloned().unwrap_or_default()),
            (Generation::Extension, "failed") => Ended::Failed(task.pointer("/error/message").and_then(Value::as_str).unwrap_or("the task failed").to_string()),
            (Generation::Extension, _) => Ended::Failed(format!("task {task_id} was cancelled")),
        })
    }
}

/// Follows the task `handle` (the task a call was answered with) to its end.
async fn follow(client: &Client, generation: Generation, handle: &Value, ablation: Option<Ablation>) -> Ended {
    let skip = |a: Ablation| ablation == Some(a);
    let Some(task_id) = handle.get("taskId").and_then(Value::as_str).map(str::to_string) else {
        return Ended::Failed("a task without a taskId".into());
    };
    if skip(Ablation::IgnoreTasks) {
        return Ended::Result(json!({"content": [{"type": "text", "text": format!("task {task_id} started")}]}));
    }
    let asked = Duration::from_millis(handle.get(generation.interval_key()).and_then(Value::as_u64).unwrap_or(1000));
    let interval = if skip(Ablation::BusyPollTasks) { BUSY_POLL } else { asked };
    let started = Instant::now();
    let mut polls = 0;
    loop {
        tokio::time::sleep(interval).await;
        if started.elapsed() >= GIVE_UP_AFTER || (skip(Ablation::StopPollingEarly) && polls >= 1) {
            if !skip(Ablation::NeverCancelTasks) && !skip(Ablation::StopPollingEarly) {
                generation.cancel(client, &task_id).await;
            }
            return Ended::Failed(format!("gave up on task {task_id}"));
        }
        polls += 1;
        let polled =
            if skip(Ablation::BusyPollTasks) { tokio::join!(generation.get(client, &task_id), generation.get(client, &task_id)).0 } else { generation.get(client, &task_id).await };
        let task = match polled {
            Ok(task) => task,
            Err(e) => return Ended::Failed(format!("tasks/get failed: {e}")),
        };
        if let Some(ended) = generation.ended(client, &task_id, &task).await {
            return ended;
        }
        // Only the extension asks for input during a task (2025-11-25's would come through
        // tasks/result, which is asked only at the end).
        if task.get("status").and_then(Value::as_str) == Some("input_required") && !skip(Ablation::IgnoreTaskInput) {
            let requests = task.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
            let responses = requests.keys().map(|key| (key.clone(), json!({"action": "accept", "content": {"confirmed": true}}))).collect();
            let _ = client.update_task(UpdateTaskParams::new(task_id.clone(), responses)).await;
        }
    }
}

/// A 2025-11-25 call of a tool that requires a task: with `params.task` (unless ablated).
async fn call_legacy(client: &Client, params: CallToolRequestParams, ablation: Option<Ablation>) -> Ended {
    let mut request = serde_json::to_value(&params).unwrap_or_default();
    if ablation != Some(Ablation::NoTaskAugmentation) {
        request["task"] = json!({"ttl": 60_000});
    }
    let answer = match custom_request(client, "tools/call", request).await {
        Ok(answer) => answer,
        Err(e) => return Ended::Failed(format!("error: {e}")),
    };
    match answer.get("task") {
        Some(task) => follow(client, Generation::Core, task, ablation).await,
        None => Ended::Result(answer),
    }
}

/// The reference client's script in the tasks variant: the task tools called side by side (a
/// client may have several tasks running), each task followed on its own.
pub async fn script(client: &Client, ablation: Option<Ablation>) {
    let _ = client.list_tools(None).await;
    let calls = probe_server::tasks::TASK_TOOLS.map(|tool| call(client, CallToolRequestParams::new(tool.to_string()), ablation));
    futures::future::join_all(calls).await;
}
