//! Google Gemini (`POST /v1beta/models/{model}:generateContent`, and `:streamGenerateContent`
//! with `alt=sse`): function declarations offered, one function call or a text answer back.
//! Gemini says "streaming" in its path, not its body: the stub marks such a body `"stream": true`
//! before answering, as the other dialects carry it.

use serde_json::{json, Value};

use super::plan::{OfferedTool, Step};
use super::Reply;

/// Whether a path is a Gemini generation endpoint, and whether it streams.
pub fn endpoint(path: &str) -> Option<bool> {
    let action = path.rsplit_once(':').map(|(_, action)| action)?;
    match action {
        "generateContent" => Some(false),
        "streamGenerateContent" => Some(true),
        _ => None,
    }
}

/// Whether a path is a Gemini token count (`:countTokens`), answered outside the script.
pub fn is_count_tokens(path: &str) -> bool {
    path.ends_with(":countTokens")
}

/// The functions declared, in order (`parameters` or `parametersJsonSchema` as the schema).
pub fn offered(body: &Value) -> Vec<OfferedTool> {
    declarations(body).filter_map(|f| Some(OfferedTool { name: f["name"].as_str()?.to_string(), namespace: None, schema: super::plan::schema_of(f), via: None })).collect()
}

/// Every function declaration of every tool entry.
pub fn declarations(body: &Value) -> impl Iterator<Item = &Value> {
    body["tools"].as_array().into_iter().flatten().flat_map(|t| t["functionDeclarations"].as_array().into_iter().flatten())
}

/// The function responses the conversation carries, in order.
pub fn function_responses(body: &Value) -> impl Iterator<Item = &Value> {
    body["contents"].as_array().into_iter().flatten().flat_map(|c| c["parts"].as_array().into_iter().flatten()).filter_map(|p| p.get("functionResponse"))
}

pub fn results(body: &Value) -> usize {
    function_responses(body).count()
}

pub fn reply(body: &Value, step: &Step, turn: usize) -> Reply {
    // Gemini ends a turn with STOP whether it calls a function or answers.
    let part = match step {
        Step::Call { tool, arguments, .. } => json!({"functionCall": {"id": format!("call_stub_{turn}"), "name": tool.name, "args": arguments}}),
        Step::Finish { text } => json!({"text": text}),
    };
    let response = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "stub-model",
        "responseId": format!("stub-{turn}"),
    });
    if body["stream"] == json!(true) {
        Reply::Sse(vec![(None, response.to_string())])
    } else {
        Reply::Json(response)
    }
}

/// The answer to a token count.
pub fn count_tokens() -> Reply {
    Reply::Json(json!({"totalTokens": 1}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_told_by_their_action() {
        assert_eq!(endpoint("/v1beta/models/gemini-2.5-pro:generateContent"), Some(false));
        assert_eq!(endpoint("/v1beta/models/stub:streamGenerateContent"), Some(true));
        assert_eq!(endpoint("/v1beta/models/stub:countTokens"), None);
        assert_eq!(endpoint("/v1/chat/completions"), None);
        assert!(is_count_tokens("/v1beta/models/stub:countTokens"));
    }

    #[test]
    fn declarations_and_responses_are_read_from_every_entry() {
        let body = json!({
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "probe_ping", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "probe_ping", "response": {"output": "pong"}}}]},
            ],
            "tools": [{"functionDeclarations": [{"name": "probe_ping", "parametersJsonSchema": {"type": "object"}}]},
                      {"functionDeclarations": [{"name": "read_file", "parameters": {"type": "OBJECT"}}]}],
        });
        let offered = offered(&body);
        assert_eq!(offered.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["probe_ping", "read_file"]);
        assert_eq!(offered[0].schema, json!({"type": "object"}));
        assert_eq!(offered[1].schema, json!({"type": "OBJECT"}));
        assert_eq!(results(&body), 1);
    }

    #[test]
    fn a_call_streams_as_one_event_and_a_plain_request_gets_json() {
        let tool = OfferedTool { name: "probe_ping".into(), namespace: None, schema: json!({}), via: None };
        let step = Step::Call { tool, arguments: json!({"a": 1}), purpose: "p".into() };
        let Reply::Sse(events) = reply(&json!({"stream": true}), &step, 3) else { panic!("a stream") };
        let event: Value = serde_json::from_str(&events[0].1).unwrap();
        assert_eq!(event["candidates"][0]["content"]["parts"][0]["functionCall"], json!({"id": "call_stub_3", "name": "probe_ping", "args": {"a": 1}}));
        let Reply::Json(plain) = reply(&json!({}), &Step::Finish { text: "done".into() }, 0) else { panic!("JSON") };
        assert_eq!(plain["candidates"][0]["content"]["parts"][0]["text"], "done");
    }
}
