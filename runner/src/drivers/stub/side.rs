//! Side requests: what a host asks its model outside the conversation (a title, a summary, a check
//! whether the agent is going round in circles). They offer no tools and are answered outside the
//! script, briefly. A side request that asks for JSON of a given shape gets the smallest value of
//! that shape: a host that cannot parse the answer retries it, backs off and may never return to
//! the conversation, which would stop the run on the harness's account.

use serde_json::{json, Map, Value};

/// The answer to a side request: the smallest value of the JSON shape it asks for, as text, or a
/// word when it asks for prose.
pub fn answer(body: &Value) -> String {
    match wanted_json(body) {
        Some(Wanted::Schema(schema)) => smallest(schema, schema, 0).to_string(),
        Some(Wanted::AnyObject) => "{}".into(),
        None => "ok".into(),
    }
}

/// The JSON a request asks its answer to be.
#[derive(Debug, PartialEq)]
enum Wanted<'a> {
    /// An answer matching this JSON Schema (or OpenAPI schema, as Gemini takes).
    Schema(&'a Value),
    /// Any JSON object.
    AnyObject,
}

/// Where each dialect asks for JSON: Gemini's `generationConfig`, Chat Completions'
/// `response_format`, Responses' `text.format`, Anthropic's `output_format`.
fn wanted_json(body: &Value) -> Option<Wanted<'_>> {
    let config = &body["generationConfig"];
    if let Some(schema) = ["responseJsonSchema", "responseSchema", "response_json_schema", "response_schema"].iter().map(|k| &config[*k]).find(|s| s.is_object()) {
        return Some(Wanted::Schema(schema));
    }
    if config["responseMimeType"] == "application/json" || config["response_mime_type"] == "application/json" {
        return Some(Wanted::AnyObject);
    }
    for format in [&body["response_format"], &body["text"]["format"], &body["output_format"]] {
        match format["type"].as_str() {
            Some("json_schema") => {
                let schema = [&format["json_schema"]["schema"], &format["schema"]].into_iter().find(|s| s.is_object());
                return Some(schema.map_or(Wanted::AnyObject, Wanted::Schema));
            }
            Some("json_object") => return Some(Wanted::AnyObject),
            _ => {}
        }
    }
    None
}

/// How deep a schema is followed; deeper (or recursive) parts get `null`.
const DEPTH: usize = 16;

/// The smallest value `schema` accepts, as far as its common keywords tell: required properties
/// only, empty strings and arrays (or their least length), zero (or the minimum), false, the first
/// of an enum or a union. `root` resolves local `$ref`s.
fn smallest(schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > DEPTH {
        return Value::Null;
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(target) = schema["$ref"].as_str().and_then(|r| r.strip_prefix('#')).and_then(|pointer| root.pointer(pointer)) {
        return smallest(target, root, depth + 1);
    }
    if let Some(first) = ["anyOf", "oneOf", "allOf"].iter().find_map(|k| schema[*k].as_array().and_then(|a| a.first())) {
        return smallest(first, root, depth + 1);
    }
    let kind = match &schema["type"] {
        Value::String(kind) => kind.to_ascii_lowercase(),
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).find(|k| *k != "null").unwrap_or("null").to_ascii_lowercase(),
        _ if schema.get("properties").is_some() => "object".into(),
        _ => return Value::Null,
    };
    match kind.as_str() {
        "object" => {
            let mut object = Map::new();
            let required = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str);
            for name in required {
                object.insert(name.to_string(), smallest(&schema["properties"][name], root, depth + 1));
            }
            Value::Object(object)
        }
        "array" => {
            let least = schema["minItems"].as_u64().unwrap_or(0).min(DEPTH as u64);
            Value::Array((0..least).map(|_| smallest(&schema["items"], root, depth + 1)).collect())
        }
        "string" => json!("x".repeat(schema["minLength"].as_u64().unwrap_or(0).min(1024) as usize)),
        "integer" => json!(schema["minimum"].as_i64().unwrap_or(0)),
        "number" => schema["minimum"].as_f64().map_or(json!(0), |m| json!(m)),
        "boolean" => json!(false),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_for_prose_gets_a_word() {
        assert_eq!(answer(&json!({"contents": [], "generationConfig": {"temperature": 0}})), "ok");
        assert_eq!(answer(&json!({"messages": [], "response_format": {"type": "text"}})), "ok");
    }

    #[test]
    fn a_gemini_json_schema_gets_its_required_properties() {
        let body = json!({"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": {
            "type": "object",
            "properties": {"analysis": {"type": "string"}, "confidence": {"type": "number"}, "extra": {"type": "string"}},
            "required": ["analysis", "confidence"]}}});
        let answered: Value = serde_json::from_str(&answer(&body)).unwrap();
        assert_eq!(answered, json!({"analysis": "", "confidence": 0}));
    }

    #[test]
    fn an_openapi_schema_in_capitals_is_read() {
        let body = json!({"generationConfig": {"responseSchema": {"type": "OBJECT", "properties": {"ok": {"type": "BOOLEAN"}}, "required": ["ok"]}}});
        assert_eq!(answer(&body), r#"{"ok":false}"#);
    }

    #[test]
    fn each_dialect_says_where_it_wants_json() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}}, "required": ["n"]});
        let chat = json!({"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}});
        let responses = json!({"text": {"format": {"type": "json_schema", "name": "x", "schema": schema}}});
        let anthropic = json!({"output_format": {"type": "json_schema", "schema": schema}});
        for body in [chat, responses, anthropic] {
            assert_eq!(answer(&body), r#"{"n":3}"#, "{body}");
        }
        assert_eq!(answer(&json!({"response_format": {"type": "json_object"}})), "{}");
        assert_eq!(answer(&json!({"generationConfig": {"responseMimeType": "application/json"}})), "{}");
    }

    #[test]
    fn references_unions_enums_and_lengths_are_followed() {
        let schema = json!({
            "type": "object",
            "$defs": {"point": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
            "properties": {
                "at": {"$ref": "#/$defs/point"},
                "mood": {"enum": ["calm", "busy"]},
                "either": {"anyOf": [{"type": "boolean"}, {"type": "string"}]},
                "tags": {"type": "array", "minItems": 2, "items": {"type": "string", "minLength": 1}},
                "maybe": {"type": ["null", "string"]}
            },
            "required": ["at", "mood", "either", "tags", "maybe"]});
        assert_eq!(smallest(&schema, &schema, 0), json!({"at": {"x": 0}, "mood": "calm", "either": false, "tags": ["x", "x"], "maybe": ""}));
    }

    #[test]
    fn a_schema_that_refers_to_itself_ends() {
        let schema = json!({"type": "object", "properties": {"next": {"$ref": "#"}}, "required": ["next"]});
        let value = smallest(&schema, &schema, 0);
        assert!(value.to_string().contains("null"), "{value}");
    }
}
