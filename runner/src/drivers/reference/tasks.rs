//! The reference client's side of the tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28):
//! it declares the extension, and when a call is answered with a task it follows the task with
//! `tasks/get` at the task's `pollIntervalMs` until a terminal status, answers an input request
//! with `tasks/update`, and gives up on a task still unfinished after [`GIVE_UP_AFTER`] with
//! `tasks/cancel`. Each tasks probe has an ablation here that breaks one of these.

use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams, UpdateTaskParams};
use serde_json::{json, Value};

use super::{Ablation, Client};

/// How long the reference client follows a task before it gives up on it: past the task that
/// completes (1 s), well before the long one ends (20 s).
pub const GIVE_UP_AFTER: Duration = Duration::from_millis(1500);
/// The interval of the busy-poll-tasks ablation.
const BUSY_POLL: Duration = Duration::from_millis(10);

/// How a call ended, as the caller hands it on.
#[derive(Debug, Clone, PartialEq)]
pub enum Ended {
    /// The tool's result (from the call, or from the completed task), as JSON.
    Result(Value),
    /// The task failed, was cancelled, or was given up on: why, in words.
    Failed(String),
}

/// Calls `tool` once; a task handed back instead of the result is followed to its end.
pub async fn call(client: &Client, params: CallToolRequestParams, ablation: Option<Ablation>) -> Ended {
    let response = match client.call_tool_once(params).await {
        Ok(response) => response,
        Err(e) => return Ended::Failed(format!("error: {e}")),
    };
    match response {
        CallToolResponse::Complete(result) => Ended::Result(serde_json::to_value(result).unwrap_or_default()),
        CallToolResponse::Task(created) => {
            let handle = serde_json::to_value(&created).unwrap_or_default();
            follow(client, &handle, ablation).await
        }
        CallToolResponse::InputRequired(_) => Ended::Failed("the server asked for input outside a task".into()),
        other => Ended::Failed(format!("an answer of an unknown kind: {other:?}")),
    }
}

/// Follows the task `handle` (a `CreateTaskResult`) to its end.
async fn follow(client: &Client, handle: &Value, ablation: Option<Ablation>) -> Ended {
    let skip = |a: Ablation| ablation == Some(a);
    let Some(task_id) = handle.get("taskId").and_then(Value::as_str).map(str::to_string) else {
        return Ended::Failed("a task without a taskId".into());
    };
    if skip(Ablation::IgnoreTasks) {
        return Ended::Result(json!({"content": [{"type": "text", "text": format!("task {task_id} started")}]}));
    }
    let asked = Duration::from_millis(handle.get("pollIntervalMs").and_then(Value::as_u64).unwrap_or(1000));
    let interval = if skip(Ablation::BusyPollTasks) { BUSY_POLL } else { asked };
    let started = Instant::now();
    let mut polls = 0;
    loop {
        tokio::time::sleep(interval).await;
        if started.elapsed() >= GIVE_UP_AFTER || (skip(Ablation::StopPollingEarly) && polls >= 1) {
            if !skip(Ablation::NeverCancelTasks) && !skip(Ablation::StopPollingEarly) {
                let _ = client.cancel_task(CancelTaskParams::new(task_id.clone())).await;
            }
            return Ended::Failed(format!("gave up on task {task_id}"));
        }
        polls += 1;
        let task = match client.get_task(GetTaskParams::new(task_id.clone())).await {
            Ok(got) => serde_json::to_value(got).unwrap_or_default(),
            Err(e) => return Ended::Failed(format!("tasks/get failed: {e}")),
        };
        match task.get("status").and_then(Value::as_str).unwrap_or_default() {
            "completed" => return Ended::Result(task.get("result").cloned().unwrap_or_default()),
            "failed" => return Ended::Failed(task.pointer("/error/message").and_then(Value::as_str).unwrap_or("the task failed").to_string()),
            "cancelled" => return Ended::Failed(format!("task {task_id} was cancelled")),
            "input_required" if !skip(Ablation::IgnoreTaskInput) => {
                let requests = task.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
                let responses = requests.keys().map(|key| (key.clone(), json!({"action": "accept", "content": {"confirmed": true}}))).collect();
                let _ = client.update_task(UpdateTaskParams::new(task_id.clone(), responses)).await;
            }
            _ => {}
        }
    }
}

/// The reference client's script in the tasks variant: each task tool in turn.
pub async fn script(client: &Client, ablation: Option<Ablation>) {
    let _ = client.list_tools(None).await;
    for tool in probe_server::tasks::TASK_TOOLS {
        call(client, CallToolRequestParams::new(tool.to_string()), ablation).await;
    }
}
