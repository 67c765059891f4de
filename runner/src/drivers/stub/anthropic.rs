//! Anthropic Messages (`POST /v1/messages`): streaming SSE and plain JSON replies.

use serde_json::{json, Value};

use super::plan::{OfferedTool, Step};
use super::Reply;

pub fn offered(body: &Value) -> Vec<OfferedTool> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| Some(OfferedTool { name: t["name"].as_str()?.to_string(), namespace: None, schema: t.get("input_schema").cloned().unwrap_or(Value::Null), via: None }))
        .collect()
}

pub fn results(body: &Value) -> usize {
    body["messages"].as_array().into_iter().flatten().flat_map(|m| m["content"].as_array().into_iter().flatten()).filter(|b| b["type"] == "tool_result").count()
}

fn blocks(step: &Step, turn: usize) -> (Vec<Value>, &'static str) {
    match step {
        Step::Call { tool, arguments, .. } => (vec![json!({"type": "tool_use", "id": format!("toolu_stub_{turn}"), "name": tool.name, "input": arguments})], "tool_use"),
        Step::Finish { text } => (vec![json!({"type": "text", "text": text})], "end_turn"),
    }
}

pub fn reply(body: &Value, step: &Step, turn: usize) -> Reply {
    let (content, stop) = blocks(step, turn);
    let id = format!("msg_stub_{turn}");
    let model = body["model"].as_str().unwrap_or("stub-model").to_string();
    let usage = json!({"input_tokens": 1, "output_tokens": 1});
    if body["stream"] != json!(true) {
        return Reply::Json(json!({"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": stop, "stop_sequence": null, "usage": usage}));
    }
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": null, "stop_sequence": null, "usage": usage}}),
    )];
    for (index, block) in content.iter().enumerate() {
        let (start, delta) = if block["type"] == "tool_use" {
            (json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}), json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}))
        } else {
            (json!({"type": "text", "text": ""}), json!({"type": "text_delta", "text": block["text"]}))
        };
        events.push(("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": start})));
        events.push(("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": delta})));
        events.push(("content_block_stop", json!({"type": "content_block_stop", "index": index})));
    }
    events.push(("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 1}})));
    events.push(("message_stop", json!({"type": "message_stop"})));
    Reply::Sse(events.into_iter().map(|(name, data)| (Some(name.to_string()), data.to_string())).collect())
}
