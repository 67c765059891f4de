//! OpenAI Responses (`POST /v1/responses`): SSE with one `response.output_item.done` per item and a
//! closing `response.completed`.

use serde_json::{json, Value};

use super::plan::{OfferedTool, Step};
use super::Reply;

fn function(tool: &Value, namespace: Option<&str>) -> Option<OfferedTool> {
    let name = tool["name"].as_str()?;
    let schema = tool.get("parameters").cloned().unwrap_or(Value::Null);
    Some(OfferedTool { name: name.to_string(), namespace: namespace.map(str::to_string), schema, via: None })
}

pub fn offered(body: &Value) -> Vec<OfferedTool> {
    super::plan::grouped_tools(body, function)
}

pub fn results(body: &Value) -> usize {
    body["input"].as_array().into_iter().flatten().filter(|item| item["type"].as_str().is_some_and(|t| t.ends_with("call_output"))).count()
}

pub fn reply(_body: &Value, step: &Step, turn: usize) -> Reply {
    let response_id = format!("resp_stub_{turn}");
    let item = match step {
        Step::Call { tool, arguments, .. } => {
            let mut item = json!({"type": "function_call", "id": format!("fc_stub_{turn}"), "call_id": format!("call_stub_{turn}"),
                "name": tool.name, "arguments": arguments.to_string(), "status": "completed"});
            if let Some(namespace) = &tool.namespace {
                item["namespace"] = json!(namespace);
            }
            item
        }
        Step::Finish { text } => json!({"type": "message", "id": format!("msg_stub_{turn}"), "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}),
    };
    let usage = json!({"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2});
    let events = vec![
        json!({"type": "response.created", "response": {"id": response_id, "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"id": response_id, "status": "completed", "output": [item], "usage": usage}}),
    ];
    Reply::Sse(events.into_iter().map(|e| (e["type"].as_str().map(str::to_string), e.to_string())).collect())
}
