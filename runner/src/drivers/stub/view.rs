//! What the model was shown, in one shape for every dialect: journalled by the stub as a
//! `model_view` note beside each request, for the affordance probes to judge. Tools that concern
//! MCP (the probe server's tools, resource and skill tools, slash commands) keep their name,
//! namespace, description and schema; other tools only their name. Tool results keep their text.

use probe_server::surface as s;
use serde_json::{json, Map, Value};

use super::Dialect;

/// The longest tool description or tool result kept.
const KEEP_CHARS: usize = 16 * 1024;

fn capped(text: &str) -> String {
    if text.len() <= KEEP_CHARS {
        return text.to_string();
    }
    let mut end = KEEP_CHARS;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…[{} bytes in all]", &text[..end], text.len())
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().map(|p| p.get("text").and_then(Value::as_str).map_or_else(|| p.to_string(), str::to_string)).collect::<Vec<_>>().join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Whether a tool concerns MCP: the view keeps all of it.
fn concerns_mcp(name: &str) -> bool {
    let n: String = name.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase();
    n.contains("probe") || n.contains("mcp") || n.contains("resource") || n.contains("skill") || n.contains("prompt") || n.contains("slashcommand") || n.contains("toolsearch")
}

fn entry(tool: &Value, namespace: Option<&str>) -> Option<Value> {
    let function = tool.get("function").unwrap_or(tool);
    let name = function.get("name").and_then(Value::as_str)?;
    let full = concerns_mcp(name) || namespace.is_some_and(concerns_mcp);
    if !full {
        return Some(json!({"name": name, "namespace": namespace}));
    }
    let schema = super::plan::schema_of(function);
    let description = function.get("description").and_then(Value::as_str).map(capped);
    Some(json!({"name": name, "namespace": namespace, "description": description, "schema": schema}))
}

/// Every tool offered, in order.
pub fn tools(body: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for tool in body["tools"].as_array().into_iter().flatten() {
        if let Some(declared) = tool.get("functionDeclarations").and_then(Value::as_array) {
            out.extend(declared.iter().filter_map(|t| entry(t, None)));
            continue;
        }
        match tool.get("tools").and_then(Value::as_array) {
            Some(inner) => out.extend(inner.iter().filter_map(|t| entry(t, tool.get("name").and_then(Value::as_str)))),
            None => out.extend(entry(tool, None)),
        }
    }
    out
}

/// Every `tool_result` block of an Anthropic request, in order.
fn anthropic_tool_results(body: &Value) -> impl Iterator<Item = &Value> {
    body["messages"].as_array().into_iter().flatten().flat_map(|m| m["content"].as_array().into_iter().flatten()).filter(|b| b["type"] == "tool_result")
}

/// The text of every tool result in the request, in order (the lines of a sized result folded,
/// see `probe_server::sized`, and each cut to [`KEEP_CHARS`]).
pub fn tool_results(dialect: Dialect, body: &Value) -> Vec<String> {
    let texts: Vec<String> = match dialect {
        Dialect::Chat => body["messages"].as_array().into_iter().flatten().filter(|m| m["role"] == "tool").map(|m| text_of(&m["content"])).collect(),
        Dialect::Anthropic => anthropic_tool_results(body).map(|b| text_of(&b["content"])).collect(),
        // A function response is an object: its `output` or `content` is the result's text.
        Dialect::Gemini => super::gemini::function_responses(body)
            .map(|r| match (r["response"].get("output"), r["response"].get("content")) {
                (Some(output), _) => text_of(output),
                (None, Some(content)) => text_of(content),
                _ => text_of(&r["response"]),
            })
            .collect(),
        Dialect::Responses => {
            body["input"].as_array().into_iter().flatten().filter(|i| i["type"].as_str().is_some_and(|t| t.ends_with("call_output"))).map(|i| text_of(&i["output"])).collect()
        }
    };
    // The lines of a sized result fold into ranges first, so the judge still sees how much of
    // it came and what the host wrote beside it.
    texts.iter().map(|t| capped(&probe_server::sized::fold(t))).collect()
}

/// Which tool results the dialect itself marks as errors (Anthropic `is_error`, a Gemini function
/// response with an `error`), by their index in [`tool_results`]' order. Chat Completions and
/// Responses have no such mark.
pub fn error_marks(dialect: Dialect, body: &Value) -> Vec<usize> {
    let marked: Vec<bool> = match dialect {
        Dialect::Anthropic => anthropic_tool_results(body).map(|b| b["is_error"] == true).collect(),
        Dialect::Gemini => super::gemini::function_responses(body).map(|r| r["response"].get("error").is_some()).collect(),
        Dialect::Chat | Dialect::Responses => Vec::new(),
    };
    marked.iter().enumerate().filter(|(_, m)| **m).map(|(i, _)| i).collect()
}

/// A request as JSON text, in two parts: everything but the tool catalogue, and the catalogue.
/// A marker is a run of letters, digits and a few signs, so it never spans the two: it appears in
/// the whole request as often as in both parts together.
pub struct RequestText {
    pub context: String,
    pub catalogue: String,
}

/// An object serialised without its `tools` entry (and without copying the rest).
struct WithoutTools<'a>(&'a Map<String, Value>);

impl serde::Serialize for WithoutTools<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().filter(|(key, _)| key.as_str() != "tools"))
    }
}

impl RequestText {
    pub fn of(body: &Value) -> RequestText {
        let context = match body.as_object() {
            Some(map) => serde_json::to_string(&WithoutTools(map)).unwrap_or_default(),
            None => body.to_string(),
        };
        let catalogue = match body.as_object() {
            Some(map) => map.get("tools").map(Value::to_string).unwrap_or_default(),
            None => String::new(),
        };
        RequestText { context, catalogue }
    }

    /// How many times `needle` appears in the whole request.
    fn count(&self, needle: &str) -> usize {
        self.context.matches(needle).count() + self.catalogue.matches(needle).count()
    }
}

/// The result tools' pictures and sound, by the name the view gives each: [`payloads`] says where
/// each appears, [`payload_forms`] how.
const MEDIA_PAYLOADS: [(&str, &str); 3] = [("png", s::IMAGE_PNG_BASE64), ("wav", s::AUDIO_WAV_BASE64), ("picture_data_png", s::PICTURE_DATA_PNG_BASE64)];

/// The payloads of the result tools (the picture, the sound, the embedded text and blob): where
/// each appears in the request, in a tool result or anywhere else ("beside": a message of its own,
/// as hosts hand pictures to a model). Payloads that appear nowhere are left out.
pub fn payloads(text: &RequestText, results: &[String]) -> Value {
    use base64::Engine;
    let blob = base64::engine::general_purpose::STANDARD.encode(s::embedded_blob_bytes());
    let mut found = Map::new();
    let others = [
        ("embedded_text", s::EMBEDDED_TEXT_CANARY),
        ("embedded_blob", blob.as_str()),
        ("audience_user", s::USER_ONLY_CANARY),
        ("audience_assistant", s::ASSISTANT_ONLY_CANARY),
        ("picture_data", s::PICTURE_DATA_CANARY),
    ];
    for (name, needle) in MEDIA_PAYLOADS.into_iter().chain(others) {
        let in_results = results.iter().filter(|r| r.contains(needle)).count();
        let places: Vec<&str> = [(in_results > 0, "tool_result"), (text.count(needle) > in_results, "beside")].iter().filter(|(f, _)| *f).map(|(_, p)| *p).collect();
        if !places.is_empty() {
            found.insert(name.to_string(), json!(places));
        }
    }
    Value::Object(found)
}

/// The media payloads (picture and sound bytes) and how the request carries each: `part` when a
/// value of its own holds them (a media part's `data`, or a `data:` URL, as every dialect hands a
/// model a picture), `text` when they sit inside text among other characters or under a text
/// field (a model reads those as characters, not as a picture). Payloads absent are left out.
pub fn payload_forms(body: &Value) -> Value {
    /// Every string of the request once, each payload's forms (by its index in [`MEDIA_PAYLOADS`]) noted.
    fn walk(value: &Value, key: &str, forms: &mut [Vec<&'static str>]) {
        match value {
            Value::String(text) => {
                for ((_, needle), found) in MEDIA_PAYLOADS.iter().zip(forms.iter_mut()).filter(|((_, needle), _)| text.contains(needle)) {
                    let whole = text == needle || (text.starts_with("data:") && text.ends_with(&format!(";base64,{needle}")));
                    let under_text = ["text", "content", "output", "input", "result"].contains(&key);
                    let form = if whole && !under_text { "part" } else { "text" };
                    if !found.contains(&form) {
                        found.push(form);
                    }
                }
            }
            Value::Object(map) => map.iter().for_each(|(k, v)| walk(v, k, forms)),
            Value::Array(items) => items.iter().for_each(|v| walk(v, key, forms)),
            _ => {}
        }
    }
    let mut forms = vec![Vec::new(); MEDIA_PAYLOADS.len()];
    walk(body, "", &mut forms);
    let mut found = Map::new();
    for ((name, _), mut forms) in MEDIA_PAYLOADS.into_iter().zip(forms).filter(|(_, forms)| !forms.is_empty()) {
        forms.sort_unstable();
        found.insert(name.to_string(), json!(forms));
    }
    Value::Object(found)
}

/// Where the probe's markers appear in the request outside the tool catalogue and tool results
/// ("context": system prompt and messages) and inside the catalogue ("tools").
pub fn mentions(text: &RequestText, results: &[String]) -> Value {
    let RequestText { context, catalogue } = text;
    let mut found = Map::new();
    for marker in [s::INSTRUCTIONS_CANARY, s::TEXT_URI, s::BLOB_URI, s::TEMPLATE_PREFIX, "skill://", s::SAMPLING_ASK_CANARY, s::SAMPLING_SYSTEM_CANARY, s::TOOL_TITLE_CANARY] {
        let in_results = results.iter().filter(|r| r.contains(marker)).count();
        // Context mentions that are not only inside tool results.
        let in_context = context.matches(marker).count() > in_results;
        let places: Vec<&str> = [(in_context, "context"), (catalogue.contains(marker), "tools")].iter().filter(|(f, _)| *f).map(|(_, p)| *p).collect();
        if !places.is_empty() {
            found.insert(marker.to_string(), json!(places));
        }
    }
    Value::Object(found)
}

/// The most output tokens the request lets the model write, in its dialect's field; `None`
/// when it sets no limit.
pub fn output_limit(dialect: Dialect, body: &Value) -> Option<u64> {
    let field = match dialect {
        Dialect::Anthropic => body.get("max_tokens"),
        Dialect::Chat => body.get("max_completion_tokens").or_else(|| body.get("max_tokens")),
        Dialect::Responses => body.get("max_output_tokens"),
        Dialect::Gemini => body.pointer("/generationConfig/maxOutputTokens"),
    };
    field.and_then(Value::as_u64)
}

/// The `model_view` note's detail for one request. `deferred` are the wanted tools the request
/// names only in its text (a host that defers tools behind a search tool lists them there).
pub fn view(dialect: Dialect, body: &Value, deferred: &[String], text: &RequestText) -> probe_server::note::ModelView {
    let results = tool_results(dialect, body);
    // Tools a search declared in the conversation, callable only through the host's proxy tool,
    // were shown to the model too: they join the catalogue, marked with their proxy.
    let mut offered = tools(body);
    for (tool, declaration) in super::plan::proxied_declarations(body, &super::declared(dialect, body)) {
        if let Some(mut shown) = entry(&declaration, None) {
            shown["via"] = json!(tool.via);
            offered.push(shown);
        }
    }
    let (marks, carried) = (error_marks(dialect, body), payloads(text, &results));
    probe_server::note::ModelView {
        dialect: serde_json::to_value(dialect).ok().and_then(|d| d.as_str().map(str::to_string)).unwrap_or_default(),
        tools: offered,
        deferred: Some(deferred.iter().map(|name| Value::from(name.as_str())).collect()),
        mentions: mentions(text, &results),
        tool_results: results.into_iter().map(Value::from).collect(),
        error_marks: Some(marks.into_iter().map(Value::from).collect()),
        payloads: Some(carried),
        payload_forms: Some(payload_forms(body)),
        max_tokens: output_limit(dialect, body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_is_a_part_of_its_own_or_characters_in_text() {
        let png = s::IMAGE_PNG_BASE64;
        let forms = |body: Value| payload_forms(&body)["png"].clone();
        // Each dialect's picture part.
        assert_eq!(forms(json!({"messages": [{"content": [{"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{png}")}}]}]})), json!(["part"]));
        assert_eq!(forms(json!({"messages": [{"content": [{"type": "image", "source": {"type": "base64", "data": png}}]}]})), json!(["part"]));
        assert_eq!(forms(json!({"contents": [{"parts": [{"inlineData": {"mimeType": "image/png", "data": png}}]}]})), json!(["part"]));
        assert_eq!(forms(json!({"input": [{"type": "input_image", "image_url": format!("data:image/png;base64,{png}")}]})), json!(["part"]));
        // The bytes as text: inside a serialised result, as a text part, as a tool message's content.
        assert_eq!(forms(json!({"messages": [{"role": "tool", "content": format!("[{{\"type\":\"image\",\"data\":\"{png}\"}}]")}]})), json!(["text"]));
        assert_eq!(forms(json!({"messages": [{"content": [{"type": "text", "text": png}]}]})), json!(["text"]));
        assert_eq!(forms(json!({"messages": [{"role": "tool", "content": png}]})), json!(["text"]));
        // Both in one request; none at all leaves the payload out.
        assert_eq!(forms(json!([{"data": png}, {"text": format!("see {png}")}])), json!(["part", "text"]));
        assert_eq!(payload_forms(&json!({"messages": []})), json!({}));
    }

    #[test]
    fn the_output_limit_is_read_from_each_dialects_own_field() {
        assert_eq!(output_limit(Dialect::Anthropic, &json!({"max_tokens": 32})), Some(32));
        assert_eq!(output_limit(Dialect::Chat, &json!({"max_tokens": 40})), Some(40));
        assert_eq!(output_limit(Dialect::Chat, &json!({"max_completion_tokens": 50, "max_tokens": 40})), Some(50));
        assert_eq!(output_limit(Dialect::Responses, &json!({"max_output_tokens": 60})), Some(60));
        assert_eq!(output_limit(Dialect::Gemini, &json!({"generationConfig": {"maxOutputTokens": 70}})), Some(70));
        assert_eq!(output_limit(Dialect::Responses, &json!({"max_tokens": 60})), None, "another dialect's field is not this one's");
    }

    #[test]
    fn every_dialect_gives_the_same_view_of_tools_and_results() {
        let chat = json!({"messages": [{"role": "system", "content": format!("canary {}", s::INSTRUCTIONS_CANARY)}, {"role": "tool", "content": "r1"}],
            "tools": [{"type": "function", "function": {"name": "probe__probe_ping", "description": "d", "parameters": {"type": "object"}}}, {"type": "function", "function": {"name": "Bash", "description": "long"}}]});
        let anthropic = json!({"system": "x", "messages": [{"role": "user", "content": [{"type": "tool_result", "content": [{"type": "text", "text": "r1"}]}]}],
            "tools": [{"name": "probe__probe_ping", "description": "d", "input_schema": {"type": "object"}}]});
        let responses = json!({"input": [{"type": "function_call_output", "output": "r1"}],
            "tools": [{"type": "namespace", "name": "mcp__probe__", "tools": [{"type": "function", "name": "probe_ping", "description": "d", "parameters": {"type": "object"}}]}]});
        assert_eq!(tool_results(Dialect::Chat, &chat), vec!["r1"]);
        assert_eq!(tool_results(Dialect::Anthropic, &anthropic), vec!["r1"]);
        assert_eq!(tool_results(Dialect::Responses, &responses), vec!["r1"]);
        let gemini = json!({"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "probe__probe_ping", "response": {"output": "r1"}}}]}],
            "tools": [{"functionDeclarations": [{"name": "probe__probe_ping", "description": "d", "parametersJsonSchema": {"type": "object"}}]}]});
        assert_eq!(tool_results(Dialect::Gemini, &gemini), vec!["r1"]);
        assert_eq!(tools(&gemini)[0]["schema"], json!({"type": "object"}));
        let chat_tools = tools(&chat);
        assert_eq!(chat_tools[0]["schema"], json!({"type": "object"}));
        assert!(chat_tools[1].get("description").is_none(), "tools unrelated to MCP keep only their name");
        assert_eq!(tools(&responses)[0]["namespace"], "mcp__probe__");
        assert_eq!(view(Dialect::Chat, &chat, &[], &RequestText::of(&chat)).mentions[s::INSTRUCTIONS_CANARY], json!(["context"]));
    }

    /// The two parts count a marker as often as the whole request does, for every recorded request.
    #[test]
    fn request_text_counts_as_the_whole_request_does() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/model-requests");
        let mut bodies = vec![json!({"system": s::INSTRUCTIONS_CANARY, "tools": [{"description": s::TEXT_URI}], "x": [s::TEXT_URI, s::IMAGE_PNG_BASE64]}), json!([s::TEXT_URI])];
        for entry in std::fs::read_dir(&dir).unwrap() {
            bodies.push(serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap());
        }
        assert!(bodies.len() > 4, "recorded requests to compare with");
        for body in &bodies {
            let (text, whole) = (RequestText::of(body), body.to_string());
            for needle in [s::INSTRUCTIONS_CANARY, s::TEXT_URI, s::BLOB_URI, s::TEMPLATE_PREFIX, "skill://", s::IMAGE_PNG_BASE64, "probe", "mcp"] {
                assert_eq!(text.count(needle), whole.matches(needle).count(), "{needle}");
            }
            assert_eq!(text.catalogue, body.get("tools").map(Value::to_string).unwrap_or_default());
        }
    }

    #[test]
    fn error_marks_and_payloads_are_found_in_every_dialect() {
        let picture = format!("data:image/png;base64,{}", s::IMAGE_PNG_BASE64);
        let chat = json!({"messages": [{"role": "tool", "content": "Error: x"}, {"role": "user", "content": [{"type": "image_url", "image_url": {"url": picture}}]}]});
        let results = tool_results(Dialect::Chat, &chat);
        assert_eq!(payloads(&RequestText::of(&chat), &results), json!({"png": ["beside"]}));
        assert!(error_marks(Dialect::Chat, &chat).is_empty(), "Chat Completions has no mark: words are all there is");
        let anthropic = json!({"messages": [{"role": "user", "content": [
            {"type": "tool_result", "content": "ok"},
            {"type": "tool_result", "is_error": true, "content": [{"type": "text", "text": s::FAULT_RESULT_CANARY}]},
            {"type": "tool_result", "content": [{"type": "text", "text": "x"}, {"type": "image", "source": {"type": "base64", "data": s::AUDIO_WAV_BASE64}}]}
        ]}]});
        assert_eq!(error_marks(Dialect::Anthropic, &anthropic), vec![1]);
        assert_eq!(payloads(&RequestText::of(&anthropic), &tool_results(Dialect::Anthropic, &anthropic)), json!({"wav": ["tool_result"]}));
        let gemini = json!({"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "a", "response": {"output": "fine"}}}, {"functionResponse": {"name": "b", "response": {"error": "bad"}}}]}]});
        assert_eq!(error_marks(Dialect::Gemini, &gemini), vec![1]);
        assert_eq!(payloads(&RequestText::of(&gemini), &[]), json!({}));
    }
}
