//! OpenAI Chat Completions (`POST /v1/chat/completions`): streaming chunks ending `[DONE]`, or JSON.

use serde_json::{json, Value};

use super::plan::{OfferedTool, Step};
use super::Reply;

/// The functions offered; a `{"type": "namespace", "name", "tools": [...]}` entry groups
/// functions under a namespace (not part of the Chat API: the reference host's namespace
/// variation speaks it, as Codex does in the Responses API).
pub fn offered(body: &Value) -> Vec<OfferedTool> {
    super::plan::grouped_tools(body, |t, namespace| {
        let f = &t["function"];
        Some(OfferedTool {
            name: f["name"].as_str()?.to_string(),
            namespace: namespace.map(str::to_string),
            schema: f.get("parameters").cloned().unwrap_or(Value::Null),
            via: None,
        })
    })
}

pub fn results(body: &Value) -> usize {
    body["messages"].as_array().into_iter().flatten().filter(|m| m["role"] == "tool").count()
}

pub fn reply(body: &Value, step: &Step, turn: usize) -> Reply {
    let id = format!("chatcmpl-stub-{turn}");
    let model = body["model"].as_str().unwrap_or("stub-model").to_string();
    let (message, finish) = match step {
        Step::Call { tool, arguments, .. } => {
            let mut function = json!({"name": tool.name, "arguments": arguments.to_string()});
            if let Some(namespace) = &tool.namespace {
                function["namespace"] = json!(namespace);
            }
            (json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": format!("call_stub_{turn}"), "type": "function", "function": function}]}), "tool_calls")
        }
        Step::Finish { text } => (json!({"role": "assistant", "content": text}), "stop"),
    };
    if body["stream"] != json!(true) {
        return Reply::Json(json!({"id": id, "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}));
    }
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string()
    };
    Reply::Sse(vec![(None, chunk(message, Value::Null)), (None, chunk(json!({}), json!(finish))), (None, "[DONE]".to_string())])
}
