//! What the probe server advertises and serves: names, URIs, canaries and wire shapes.
//!
//! Probes judge against these constants, the server serves them, and the reference client uses
//! them: one definition feeds all three. Shapes are written as JSON so that they read like the
//! specification and go on the wire exactly as written.

use serde_json::{json, Value};

/// The path the MCP endpoint is served at over Streamable HTTP.
pub const MCP_PATH: &str = "/mcp";

pub const SERVER_NAME: &str = "mcp-client-probe";
pub const INSTRUCTIONS_CANARY: &str = "MCP-PROBE-INSTRUCTIONS-CANARY-4F1C";

// Tools. The first page of `tools/list` ends after `TOOLS_PAGE_ONE`.
pub const TOOL_PROGRESS: &str = "probe_progress";
pub const TOOL_RESOURCE_LINK: &str = "probe_resource_link";
pub const TOOL_ELICIT_FORM: &str = "probe_elicit_form";
pub const TOOL_ELICIT_ENUMS: &str = "probe_elicit_enums";
pub const TOOL_ELICIT_URL: &str = "probe_elicit_url";
pub const TOOL_SAMPLING: &str = "probe_sampling";
pub const TOOL_SAMPLING_TOOLS: &str = "probe_sampling_tools";
/// Asks for a completion whose request carries `modelPreferences` (see
/// [`sampling_preferences_params`]); the plain request of [`TOOL_SAMPLING`] carries none, so a
/// client that chokes on the preferences is told apart from one that cannot sample.
pub const TOOL_SAMPLING_PREFERENCES: &str = "probe_sampling_preferences";
pub const TOOL_ROOTS: &str = "probe_roots";
pub const TOOL_PING: &str = "probe_ping";
pub const TOOL_LIST_CHANGED: &str = "probe_list_changed";
/// In the 2026-07-28 era, asks two form elicitations in one `InputRequiredResult`
/// ([`TWO_INPUT_KEYS`]); in the legacy era it asks nothing.
pub const TOOL_TWO_INPUTS: &str = "probe_two_inputs";
// Tools whose results test what a host hands its model (judged from the model stub's journal).
// Each result carries a canary of its own whose text avoids words a host might add ("image",
// "audio", "error"), so such words in what the model got are the host's.
pub const TOOL_IMAGE: &str = "probe_image";
pub const TOOL_AUDIO: &str = "probe_audio";
pub const TOOL_EMBEDDED: &str = "probe_embedded";
pub const TOOL_FAULT: &str = "probe_fault";
pub const TOOL_RPC_ERROR: &str = "probe_rpc_error";
pub const TOOL_AUDIENCE: &str = "probe_audience";
pub const TOOL_PICTURE_DATA: &str = "probe_picture_data";
/// Takes arguments whose schema uses what server authors reach for (see [`schema_tool_input`]).
pub const TOOL_SCHEMA: &str = "probe_schema";
/// Takes arguments whose schema uses keywords model APIs are known to cut (see
/// [`schema_keywords_input`]); the model is only offered it, never asked to call it.
pub const TOOL_SCHEMA_KEYWORDS: &str = "probe_schema_keywords";
/// Listed in the tool-names variant only: one property's schema is a `$ref` to a URL on the
/// server's fetch trap (see [`schema_remote_tool`]); the model is offered it, never asked to
/// call it.
pub const TOOL_SCHEMA_REMOTE: &str = "probe_schema_remote";
/// The property of [`TOOL_SCHEMA_REMOTE`] whose schema is the remote `$ref`.
pub const REMOTE_REF_PROPERTY: &str = "unit";
/// Returns `structuredContent` that breaks its own `outputSchema`.
pub const TOOL_BAD_OUTPUT: &str = "probe_bad_output";
/// Appears in `tools/list` only after `probe_list_changed` ran.
pub const TOOL_ADDED: &str = "probe_added";
/// The only tool of the second page: nothing depends on it but `tools.pagination` and the
/// model's tool catalogue, so a client that stops at the first page still reaches every trigger.
pub const TOOL_PAGE_TWO: &str = "probe_page_two";
/// The canary in [`TOOL_TITLE`].
pub const TOOL_TITLE_CANARY: &str = "title canary TT-4c1d";
/// `probe_page_two`'s `title` (2025-06-18): a canary a host may show its model or its person.
pub const TOOL_TITLE: &str = "Page two probe (title canary TT-4c1d)";
/// Every tool a probe triggers is on the first page.
pub const TOOLS_PAGE_ONE: usize = 22;
/// The tools that trigger a probe, in the order a scripted model calls them.
pub const TRIGGER_TOOLS: [&str; 12] = [
    TOOL_PROGRESS,
    TOOL_RESOURCE_LINK,
    TOOL_ELICIT_FORM,
    TOOL_ELICIT_ENUMS,
    TOOL_ELICIT_URL,
    TOOL_SAMPLING,
    TOOL_SAMPLING_TOOLS,
    TOOL_SAMPLING_PREFERENCES,
    TOOL_ROOTS,
    TOOL_PING,
    TOOL_TWO_INPUTS,
    TOOL_LIST_CHANGED,
];
/// The tools whose results the model is handed: the scripted model calls all but the last just
/// before `probe_list_changed`, and the last (a JSON-RPC error, on which some hosts restart their
/// server) after everything else, then `probe_ping` once more to see whether the session lived.
pub const RESULT_TOOLS: [&str; 9] = [TOOL_EMBEDDED, TOOL_FAULT, TOOL_IMAGE, TOOL_AUDIO, TOOL_AUDIENCE, TOOL_PICTURE_DATA, TOOL_SCHEMA, TOOL_BAD_OUTPUT, TOOL_RPC_ERROR];
/// The canary of each result tool's text content.
pub const IMAGE_RESULT_CANARY: &str = "MCP-PROBE-RESULT-PNG-7C21";
pub const AUDIO_RESULT_CANARY: &str = "MCP-PROBE-RESULT-WAV-3E90";
pub const EMBEDDED_RESULT_CANARY: &str = "MCP-PROBE-RESULT-EMBED-5B44";
pub const FAULT_RESULT_CANARY: &str = "MCP-PROBE-RESULT-FAULT-8D17";
pub const AUDIENCE_RESULT_CANARY: &str = "MCP-PROBE-RESULT-AUDIENCE-2F63";
pub const PICTURE_DATA_CANARY: &str = "MCP-PROBE-RESULT-PICTURE-DATA-91C5";
pub const BAD_OUTPUT_CANARY: &str = "MCP-PROBE-RESULT-COUNT-AS-WORD-0B7A";
/// The text of `probe_audience`'s block annotated `audience: ["user"]` (kept from the model).
pub const USER_ONLY_CANARY: &str = "MCP-PROBE-FOR-THE-USER-ONLY-4D08";
/// The text of `probe_audience`'s block annotated `audience: ["assistant"]` (for the model).
pub const ASSISTANT_ONLY_CANARY: &str = "MCP-PROBE-FOR-THE-ASSISTANT-ONLY-E7B2";
/// The method of the request no revision defines that the server sends after its ping.
pub const UNKNOWN_REQUEST: &str = "probe/unknown_request";
/// The notification no revision defines that the server sends before its ping.
pub const UNKNOWN_NOTIFICATION: &str = "notifications/probe/unknown";
/// The message of the JSON-RPC error `probe_rpc_error` answers with.
pub const RPC_ERROR_CANARY: &str = "MCP-PROBE-RPC-MESSAGE-4A90";
/// The text of the embedded text resource in `probe_embedded`'s result.
pub const EMBEDDED_TEXT_CANARY: &str = "MCP-PROBE-EMBEDDED-TEXT-CANARY-6A1F";
pub const EMBEDDED_TEXT_URI: &str = "probe://embedded/text";
pub const EMBEDDED_BLOB_URI: &str = "probe://embedded/blob";
/// A 2×2 PNG, base64.
pub const IMAGE_PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAAMIM////ZwAAHu8E/KPItPcAAAAASUVORK5CYII=";
/// Another 2×2 PNG (other colours), `probe_picture_data`'s, so that it is told from `probe_image`'s.
pub const PICTURE_DATA_PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR42mMQMglbffY9w4yyECOBfwAlVwWmempzrAAAAABJRU5ErkJggg==";
/// Four milliseconds of 8 kHz mono WAV, base64.
pub const AUDIO_WAV_BASE64: &str = "UklGRkQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YSAAAACAoMCggGBAYICgwKCAYEBggKDAoIBgQGCAoMCggGBAYA==";

/// The bytes of the embedded blob: not UTF-8, and none of the binary resource's runs of bytes.
pub fn embedded_blob_bytes() -> Vec<u8> {
    (0u8..48).map(|i| 0xff - i.wrapping_mul(5)).collect()
}
pub const TOOLS_CURSOR: &str = "tools-page-2";

// Resources.
pub const TEXT_URI: &str = "probe://text/canary";
pub const TEXT_CANARY: &str = "MCP-PROBE-TEXT-CANARY-93B2";
/// In the `structuredContent` of `probe_progress`'s result (its text content says what it did).
pub const STRUCTURED_CANARY: &str = "MCP-PROBE-STRUCTURED-CANARY-5D0E";
pub const BLOB_URI: &str = "probe://blob/bytes";
pub const SECOND_PAGE_URI: &str = "probe://text/second-page";
pub const ADDED_RESOURCE_URI: &str = "probe://text/added";
pub const RESOURCES_CURSOR: &str = "resources-page-2";
pub const TEMPLATE: &str = "probe://items/{id}";
pub const TEMPLATE_PREFIX: &str = "probe://items/";
/// The variable of [`TEMPLATE`], which `completion/complete` can complete.
pub const TEMPLATE_VARIABLE: &str = "id";

/// What `completion/complete` offers for an argument of what `reference` names (a
/// `ref/prompt` or `ref/resource` object as it came on the wire), given what was typed so far:
/// the prompt's argument and the template's variable have values; anything else has none.
pub fn completion_values(reference: &Value, argument: &str, typed: &str) -> Vec<&'static str> {
    let candidates: &[&'static str] = match (reference.get("type").and_then(Value::as_str), argument) {
        (Some("ref/prompt"), PROMPT_ARGUMENT) if reference.get("name").and_then(Value::as_str) == Some(PROMPT) => &["probes", "prompts", "protocols"],
        (Some("ref/resource"), TEMPLATE_VARIABLE) if reference.get("uri").and_then(Value::as_str) == Some(TEMPLATE) => &["42", "4711"],
        _ => &[],
    };
    candidates.iter().copied().filter(|value| value.starts_with(typed)).collect()
}
pub const LINK_PREFIX: &str = "probe://linked/";
pub const LINK_CANARY: &str = "MCP-PROBE-LINK-CANARY-51D0";
/// A URI the server has no resource for: the scripted model reads it last.
pub const MISSING_URI: &str = "probe://missing/nothing-here";
/// In the message of the server's not-found error for [`MISSING_URI`] (never in the URI itself,
/// so a host that only repeats the URI it was asked for does not pass it on).
pub const NOT_FOUND_CANARY: &str = "MCP-PROBE-NOT-FOUND-6E2D";

// Prompts.
pub const PROMPT: &str = "probe_prompt";
pub const PROMPT_ADDED: &str = "probe_prompt_added";
pub const PROMPT_ARGUMENT: &str = "topic";

// Elicitation. The URL the URL-mode elicitation points at (never served: it only has to be shown).
/// The URL-mode elicitation's URL where no fetch trap could be opened (nothing listens there);
/// otherwise the trap's (`fetch_trap`), on a port of its own and the same path.
pub const ELICIT_URL: &str = "http://127.0.0.1:9/mcp-client-probe/elicit";

/// `probe_schema`'s input schema: a property by `$ref` to local `$defs`, a nullable union
/// (`anyOf` of a string and null), a `format`, bounds two objects deep and
/// `additionalProperties: false`. The schema judges look for each of these in what reached the
/// model, in any equivalent spelling.
pub fn schema_tool_input() -> Value {
    json!({
        "type": "object",
        "$defs": {"point": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["x", "y"], "additionalProperties": false}},
        "properties": {
            "origin": {"$ref": "#/$defs/point"},
            "label": {"anyOf": [{"type": "string", "maxLength": 40}, {"type": "null"}]},
            "when": {"type": "string", "format": "date"},
            "options": {"type": "object", "properties": {"depth": {"type": "object", "properties": {"level": {"type": "integer", "minimum": 1, "maximum": 3}}}}}
        },
        "required": ["origin", "when"],
        "additionalProperties": false
    })
}

/// `probe_schema_keywords`'s input schema: one property per keyword that schema conversions for
/// model APIs drop or rewrite — a closed object (`additionalProperties: false`), a `oneOf` of two
/// object shapes, a 2020-12 tuple (`prefixItems`, `items: false`), a `const`, a `pattern` and a
/// string `enum`. It uses none of `probe_schema`'s keywords (`$defs`, `anyOf`, `format`, objects
/// nested in properties), so a host that breaks one of those is not counted twice.
pub fn schema_keywords_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "shape": {"oneOf": [
                {"type": "object", "properties": {"radius": {"type": "number"}}, "required": ["radius"]},
                {"type": "object", "properties": {"side": {"type": "number"}}, "required": ["side"]}
            ]},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false},
            "kind": {"const": "probe"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "color": {"type": "string", "enum": ["red", "green", "blue"]}
        },
        "required": ["kind"],
        "additionalProperties": false
    })
}

/// The arguments the scripted model gives `probe_schema`: valid for its schema, with a null
/// where the union allows one and an object two levels deep.
pub fn schema_tool_arguments() -> Value {
    json!({"origin": {"x": 3, "y": 4}, "label": null, "when": "2026-12-01", "options": {"depth": {"level": 2}}})
}

/// The arguments the scripted model gives `tool`: `probe_schema`'s own, none for the others.
pub fn arguments_for(tool: &str) -> Value {
    if tool == TOOL_SCHEMA {
        schema_tool_arguments()
    } else {
        json!({})
    }
}

/// `probe_bad_output`'s output schema: `count` is a required integer.
pub fn bad_output_schema() -> Value {
    json!({"type": "object", "properties": {"count": {"type": "integer"}, "canary": {"type": "string"}}, "required": ["count"]})
}

/// `probe_bad_output`'s result: `structuredContent` whose `count` is a word, against its output
/// schema, and the same as text.
pub fn bad_output_result() -> Value {
    let data = json!({"count": "three", "canary": BAD_OUTPUT_CANARY});
    json!({"content": [{"type": "text", "text": data.to_string()}], "structuredContent": data})
}

/// `probe_image`'s result: its canary and the picture.
pub fn image_result() -> Value {
    json!({"content": [{"type": "text", "text": IMAGE_RESULT_CANARY}, {"type": "image", "data": IMAGE_PNG_BASE64, "mimeType": "image/png"}]})
}

/// `probe_audio`'s result: its canary and the sound.
pub fn audio_result() -> Value {
    json!({"content": [{"type": "text", "text": AUDIO_RESULT_CANARY}, {"type": "audio", "data": AUDIO_WAV_BASE64, "mimeType": "audio/wav"}]})
}

/// `probe_embedded`'s result: its canary, an embedded text resource and an embedded blob.
pub fn embedded_result() -> Value {
    use base64::Engine;
    let blob = base64::engine::general_purpose::STANDARD.encode(embedded_blob_bytes());
    json!({"content": [
        {"type": "text", "text": EMBEDDED_RESULT_CANARY},
        {"type": "resource", "resource": {"uri": EMBEDDED_TEXT_URI, "mimeType": "text/plain", "text": EMBEDDED_TEXT_CANARY}},
        {"type": "resource", "resource": {"uri": EMBEDDED_BLOB_URI, "mimeType": "application/octet-stream", "blob": blob}}
    ]})
}

/// `probe_audience`'s result: its canary unannotated, a block for the user only and a block for
/// the assistant only.
pub fn audience_result() -> Value {
    json!({"content": [
        {"type": "text", "text": AUDIENCE_RESULT_CANARY},
        {"type": "text", "text": USER_ONLY_CANARY, "annotations": {"audience": ["user"], "priority": 0.2}},
        {"type": "text", "text": ASSISTANT_ONLY_CANARY, "annotations": {"audience": ["assistant"], "priority": 1.0}}
    ]})
}

/// `probe_picture_data`'s result: `structuredContent` with its canary, the same serialized as
/// the first text block (as the 2025-06-18 revision asks), and a picture.
pub fn picture_data_result() -> Value {
    let data = json!({"canary": PICTURE_DATA_CANARY, "width": 2, "height": 2});
    json!({"content": [
        {"type": "text", "text": data.to_string()},
        {"type": "image", "data": PICTURE_DATA_PNG_BASE64, "mimeType": "image/png"}
    ], "structuredContent": data})
}

/// `probe_fault`'s result: marked `isError`, its only text the canary.
pub fn fault_result() -> Value {
    json!({"content": [{"type": "text", "text": FAULT_RESULT_CANARY}], "isError": true})
}

/// The bytes of the binary resource: every byte value once, so any text re-encoding shows.
pub fn blob_bytes() -> Vec<u8> {
    (0u8..=255).collect()
}

/// `requestState` handed out by MRTR results; bytes chosen so that any re-encoding is visible.
pub fn request_state_for(tool: &str, serial: u64) -> String {
    format!("rs:{tool}:{serial}:é☃+/= \u{2028}end")
}

/// Key used in `inputRequests` for a tool's single input request.
pub fn input_key_for(tool: &str) -> String {
    format!("in_{tool}")
}

/// The keys of `probe_two_inputs`'s two input requests.
pub const TWO_INPUT_KEYS: [&str; 2] = ["first_question", "second_question"];

/// `probe_two_inputs`'s input requests: a one-field form elicitation per key, each asking with
/// its own message.
pub fn two_input_requests() -> Value {
    let ask = |n: &str| {
        json!({"method": "elicitation/create", "params": {"mode": "form", "message": format!("mcp-client-probe: {n} of two questions asked together"),
            "requestedSchema": {"type": "object", "properties": {"answer": {"type": "string", "default": "yes"}}}}})
    };
    json!({TWO_INPUT_KEYS[0]: ask("first"), TWO_INPUT_KEYS[1]: ask("second")})
}

/// The form elicitation: primitive fields, each with a default.
pub fn elicit_form_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email", "title": "E-mail", "default": "probe@example.org"},
            "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
            "ratio": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5},
            "agree": {"type": "boolean", "default": true},
            "note": {"type": "string", "maxLength": 40, "default": "hello"}
        },
        "required": ["email", "count", "agree"]
    })
}

/// Field names of the enum elicitation, one per enum shape of 2025-11-25.
pub mod enum_fields {
    pub const UNTITLED_SINGLE: &str = "untitled_single";
    pub const TITLED_SINGLE: &str = "titled_single";
    pub const UNTITLED_MULTI: &str = "untitled_multi";
    pub const TITLED_MULTI: &str = "titled_multi";
    pub const LEGACY_NAMES: &str = "legacy_enum_names";
}

/// The enum elicitation: one field per enum shape.
pub fn elicit_enum_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            enum_fields::UNTITLED_SINGLE: {"type": "string", "enum": ["red", "green", "blue"], "default": "green"},
            enum_fields::TITLED_SINGLE: {"type": "string", "oneOf": [
                {"const": "s", "title": "Small"}, {"const": "m", "title": "Medium"}, {"const": "l", "title": "Large"}
            ]},
            enum_fields::UNTITLED_MULTI: {"type": "array", "minItems": 1, "maxItems": 2,
                "items": {"type": "string", "enum": ["tea", "coffee", "water"]}},
            enum_fields::TITLED_MULTI: {"type": "array", "minItems": 1,
                "items": {"anyOf": [{"const": "x1", "title": "Option one"}, {"const": "x2", "title": "Option two"}]}},
            enum_fields::LEGACY_NAMES: {"type": "string", "enum": ["lo", "hi"], "enumNames": ["Low", "High"]}
        },
        "required": [enum_fields::UNTITLED_SINGLE, enum_fields::TITLED_SINGLE, enum_fields::UNTITLED_MULTI,
                     enum_fields::TITLED_MULTI, enum_fields::LEGACY_NAMES]
    })
}

/// The options of an enum field in any shape of 2025-11-25 (untitled or titled, single or
/// multi-select, legacy `enumNames`): each value with the label a host shows for it (its title
/// where the schema gives one, else the value), and whether the field is a multi-select. `None`
/// for a field that is not an enum.
pub fn enum_options(prop: &Value) -> Option<(Vec<(String, String)>, bool)> {
    let strings = |v: &Value| v.as_array().map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect::<Vec<_>>()).unwrap_or_default();
    let titled = |v: &Value| {
        v.as_array().map(|a| a.iter().filter_map(|o| Some((o.get("const")?.as_str()?.to_string(), o.get("title")?.as_str()?.to_string()))).collect::<Vec<_>>()).unwrap_or_default()
    };
    let plain = |values: Vec<String>| values.into_iter().map(|v| (v.clone(), v)).collect::<Vec<_>>();
    if prop["type"] == "array" {
        let items = &prop["items"];
        return Some((if items.get("anyOf").is_some() { titled(&items["anyOf"]) } else { plain(strings(&items["enum"])) }, true));
    }
    if prop.get("oneOf").is_some() {
        return Some((titled(&prop["oneOf"]), false));
    }
    if prop.get("enum").is_some() {
        let (values, names) = (strings(&prop["enum"]), strings(&prop["enumNames"]));
        let labelled = if names.len() == values.len() { values.into_iter().zip(names).collect() } else { plain(values) };
        return Some((labelled, false));
    }
    None
}

pub fn elicit_form_params() -> Value {
    json!({"mode": "form", "message": "mcp-client-probe: please confirm these details", "requestedSchema": elicit_form_schema()})
}

pub fn elicit_enum_params() -> Value {
    json!({"mode": "form", "message": "mcp-client-probe: pick one of each", "requestedSchema": elicit_enum_schema()})
}

/// URL-mode elicitation. `elicitation_id` is `None` in the 2026-07-28 era, which dropped it.
pub fn elicit_url_params(elicitation_id: Option<&str>, url: &str) -> Value {
    let mut params = json!({"mode": "url", "message": "mcp-client-probe: open this page to continue", "url": url});
    if let Some(id) = elicitation_id {
        params["elicitationId"] = json!(id);
    }
    params
}

/// In the text of every sampling request's message: a model request that carries it is one the
/// host passed on from the server.
pub const SAMPLING_ASK_CANARY: &str = "MCP-PROBE-SAMPLING-ASK-71D2";
/// In every sampling request's `systemPrompt`.
pub const SAMPLING_SYSTEM_CANARY: &str = "MCP-PROBE-SAMPLING-SYSTEM-3C58";
/// Every sampling request's `maxTokens`.
pub const SAMPLING_MAX_TOKENS: u64 = 32;

fn sampling_system_prompt() -> String {
    format!("You are answering a capability probe ({SAMPLING_SYSTEM_CANARY}).")
}

pub fn sampling_params() -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": format!("mcp-client-probe: reply with one word ({SAMPLING_ASK_CANARY})")}}],
        "systemPrompt": sampling_system_prompt(),
        "maxTokens": SAMPLING_MAX_TOKENS
    })
}

/// The `includeContext` of `probe_sampling`'s request to a client that declares
/// `sampling.context` (to any other it carries none: the value is soft-deprecated, and a server
/// should not use it unless declared).
pub const SAMPLING_INCLUDE_CONTEXT: &str = "thisServer";

/// The model name hinted by [`sampling_preferences_params`].
pub const SAMPLING_MODEL_HINT: &str = "probe-model";

/// A plain sampling request with every field of `modelPreferences` set: a name hint and the
/// three priorities (`CreateMessageRequest.modelPreferences`, all advisory).
pub fn sampling_preferences_params() -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": format!("mcp-client-probe: reply with one word, any model will do ({SAMPLING_ASK_CANARY})")}}],
        "systemPrompt": sampling_system_prompt(),
        "modelPreferences": {"hints": [{"name": SAMPLING_MODEL_HINT}], "costPriority": 0.2, "speedPriority": 0.5, "intelligencePriority": 0.8},
        "maxTokens": SAMPLING_MAX_TOKENS
    })
}

/// The text a server request asks with: an elicitation's message, a sampling request's first
/// message.
fn asking_text(params: &Value) -> Option<&str> {
    params.get("message").or_else(|| params.pointer("/messages/0/content/text"))?.as_str()
}

/// The tool on whose behalf the server sent a request with these params, where they tell: each
/// elicitation and sampling request asks with its own text, so calls a client runs side by side
/// are told apart.
pub fn asking_tool(params: &Value) -> Option<&'static str> {
    let text = asking_text(params)?;
    let asks = [
        (TOOL_ELICIT_FORM, elicit_form_params()),
        (TOOL_ELICIT_ENUMS, elicit_enum_params()),
        (TOOL_ELICIT_URL, elicit_url_params(None, ELICIT_URL)),
        (TOOL_SAMPLING, sampling_params()),
        (TOOL_SAMPLING_TOOLS, sampling_tools_params()),
        (TOOL_SAMPLING_PREFERENCES, sampling_preferences_params()),
    ];
    asks.into_iter().find(|(_, asked)| asking_text(asked) == Some(text)).map(|(tool, _)| tool)
}

pub const SAMPLING_TOOL_NAME: &str = "probe_weather";

pub fn sampling_tools_params() -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": format!("mcp-client-probe: call the tool ({SAMPLING_ASK_CANARY})")}}],
        "systemPrompt": sampling_system_prompt(),
        "maxTokens": SAMPLING_MAX_TOKENS,
        "tools": [{"name": SAMPLING_TOOL_NAME, "description": "Reports the weather for a city",
                   "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
        "toolChoice": {"mode": "required"}
    })
}

/// Every tool the server lists, in list order. `with_added` adds the tool that appears after
/// `tools/list_changed`.
pub fn tools(with_added: bool) -> Vec<Value> {
    let empty = json!({"type": "object", "properties": {}});
    let mut list = vec![
        json!({"name": TOOL_PROGRESS, "description": "Sends progress notifications for the call's progressToken and a log message", "inputSchema": empty}),
        json!({"name": TOOL_RESOURCE_LINK, "description": "Returns a resource_link the client may follow", "inputSchema": empty}),
        json!({"name": TOOL_ELICIT_FORM, "description": "Asks the user for a form with primitive fields", "inputSchema": empty}),
        json!({"name": TOOL_ELICIT_ENUMS, "description": "Asks the user to pick from every enum shape", "inputSchema": empty}),
        json!({"name": TOOL_ELICIT_URL, "description": "Asks the user to visit a URL", "inputSchema": empty}),
        json!({"name": TOOL_SAMPLING, "description": "Asks the client's model for a completion", "inputSchema": empty}),
        json!({"name": TOOL_SAMPLING_TOOLS, "description": "Asks the client's model for a completion that uses a tool", "inputSchema": empty}),
        json!({"name": TOOL_SAMPLING_PREFERENCES, "description": "Asks the client's model for a completion, with model preferences", "inputSchema": empty}),
        json!({"name": TOOL_ROOTS, "description": "Asks the client for its roots", "inputSchema": empty}),
        json!({"name": TOOL_PING, "description": "Pings the client", "inputSchema": empty}),
        json!({"name": TOOL_TWO_INPUTS, "description": "Asks the user two questions at once (2026-07-28 only; otherwise does nothing)", "inputSchema": empty}),
        json!({"name": TOOL_LIST_CHANGED, "description": "Changes the tool, resource and prompt lists and says so", "inputSchema": empty}),
        json!({"name": TOOL_EMBEDDED, "description": "Returns two embedded resources, one text and one binary", "inputSchema": empty}),
        json!({"name": TOOL_FAULT, "description": "Always fails: returns a result marked isError", "inputSchema": empty}),
        json!({"name": TOOL_IMAGE, "description": "Returns a small PNG picture", "inputSchema": empty}),
        json!({"name": TOOL_AUDIO, "description": "Returns a short WAV sound", "inputSchema": empty}),
        json!({"name": TOOL_RPC_ERROR, "description": "Always fails: answers with a JSON-RPC error instead of a result", "inputSchema": empty}),
        json!({"name": TOOL_AUDIENCE, "description": "Returns three texts: one for everyone, one for the user, one for the assistant", "inputSchema": empty}),
        json!({"name": TOOL_PICTURE_DATA, "description": "Returns a small picture and the same facts as structured data", "inputSchema": empty,
            "outputSchema": {"type": "object", "properties": {"canary": {"type": "string"}, "width": {"type": "integer"}, "height": {"type": "integer"}}, "required": ["canary"]}}),
        json!({"name": TOOL_SCHEMA, "description": "Echoes its arguments: a point, an optional label, a date and nested options", "inputSchema": schema_tool_input()}),
        json!({"name": TOOL_SCHEMA_KEYWORDS, "description": "Echoes its arguments: a shape, a pair, a kind, a code and a color", "inputSchema": schema_keywords_input()}),
        json!({"name": TOOL_BAD_OUTPUT, "description": "Returns a count as structured data", "inputSchema": empty, "outputSchema": bad_output_schema()}),
        json!({"name": TOOL_PAGE_TWO, "description": "Listed on the second page of tools only; does nothing", "inputSchema": empty}),
    ];
    if with_added {
        list.push(json!({"name": TOOL_ADDED, "description": "Exists only after the lists changed", "inputSchema": empty}));
    }
    list
}

/// The tool listed with an icon (2025-11-25), the first of the first page.
pub const TOOL_WITH_ICON: &str = TOOL_PROGRESS;

/// `tools` with `probe_page_two` given its title ([`TOOL_TITLE`], 2025-06-18) and
/// [`TOOL_WITH_ICON`] an icon at `icon_src` (2025-11-25): what a host may show of a tool besides
/// its name. The title goes to a tool no script calls, so a host that calls tools by their
/// titles breaks no other probe.
pub fn with_title_and_icon(mut tools: Vec<Value>, icon_src: &str) -> Vec<Value> {
    for tool in tools.iter_mut() {
        if tool["name"] == TOOL_PAGE_TWO {
            tool["title"] = json!(TOOL_TITLE);
        }
        if tool["name"] == TOOL_WITH_ICON {
            tool["icons"] = json!([{"src": icon_src, "mimeType": "image/png", "sizes": ["48x48"]}]);
        }
    }
    tools
}

/// [`TOOL_SCHEMA_REMOTE`] as listed, its `unit` a `$ref` to `schema_url` (absolute, so it
/// cannot be resolved inside the schema).
pub fn schema_remote_tool(schema_url: &str) -> Value {
    json!({
        "name": TOOL_SCHEMA_REMOTE,
        "description": "Echoes its arguments: a temperature and its unit",
        "inputSchema": {
            "type": "object",
            "properties": {"degrees": {"type": "number"}, REMOTE_REF_PROPERTY: {"$ref": schema_url}},
            "required": ["degrees"]
        }
    })
}

/// The names of every tool the server can list (the added one and the large-results,
/// tool-names and long-calls variants' included), worked out once.
pub fn tool_names() -> &'static [String] {
    static NAMES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        let mut every = tools(true);
        every.push(crate::sized::tool());
        every.extend(crate::edge_names::tools());
        every.push(schema_remote_tool(ELICIT_URL));
        every.extend(crate::long_calls::tools());
        every.extend(crate::apps::tools());
        every.extend(crate::tasks::tools());
        every.extend(crate::stateless::tools());
        every.iter().filter_map(|t| t["name"].as_str().map(str::to_string)).collect()
    });
    &NAMES
}

pub fn resources(with_added: bool) -> Vec<Value> {
    let mut list = vec![
        json!({"uri": TEXT_URI, "name": "canary-text", "mimeType": "text/plain", "description": "A text resource with a canary"}),
        json!({"uri": BLOB_URI, "name": "all-bytes", "mimeType": "application/octet-stream", "description": "256 bytes, one of each value"}),
        json!({"uri": SECOND_PAGE_URI, "name": "second-page", "mimeType": "text/plain", "description": "Listed on the second page only"}),
    ];
    if with_added {
        list.push(json!({"uri": ADDED_RESOURCE_URI, "name": "added", "mimeType": "text/plain"}));
    }
    list
}

/// How long after a subscription the server says the resource changed.
pub const UPDATE_AFTER_MS: u64 = 50;

/// How many resources the first page of `resources/list` holds.
pub const RESOURCES_PAGE_ONE: usize = 2;

pub fn resource_templates() -> Vec<Value> {
    vec![json!({"uriTemplate": TEMPLATE, "name": "item", "mimeType": "text/plain", "description": "One item by id"})]
}

pub fn prompts(with_added: bool) -> Vec<Value> {
    let mut list = vec![json!({"name": PROMPT, "description": "A prompt with one argument",
        "arguments": [{"name": PROMPT_ARGUMENT, "description": "What to talk about", "required": true}]})];
    if with_added {
        list.push(json!({"name": PROMPT_ADDED, "description": "Exists only after the lists changed"}));
    }
    list
}

/// Server capabilities advertised in both eras.
pub fn server_capabilities() -> Value {
    json!({
        "tools": {"listChanged": true},
        "resources": {"listChanged": true, "subscribe": true},
        "prompts": {"listChanged": true},
        "logging": {},
        "completions": {}
    })
}

pub fn instructions() -> String {
    format!("This server probes MCP client behaviour. Canary: {INSTRUCTIONS_CANARY}.")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(deprecated)]
    use rmcp::model::{CreateMessageRequestParams, ElicitRequestParams, ServerCapabilities, Tool};

    #[test]
    #[allow(deprecated)]
    fn every_wire_shape_is_accepted_by_the_sdk_types() {
        for params in [elicit_form_params(), elicit_enum_params(), elicit_url_params(Some("e1"), ELICIT_URL)] {
            serde_json::from_value::<ElicitRequestParams>(params.clone()).unwrap_or_else(|e| panic!("{e}: {params}"));
        }
        serde_json::from_value::<CreateMessageRequestParams>(sampling_params()).unwrap();
        serde_json::from_value::<CreateMessageRequestParams>(sampling_tools_params()).unwrap();
        serde_json::from_value::<CreateMessageRequestParams>(sampling_preferences_params()).unwrap();
        serde_json::from_value::<ServerCapabilities>(server_capabilities()).unwrap();
        for tool in tools(true) {
            serde_json::from_value::<Tool>(tool).unwrap();
        }
    }

    #[test]
    fn the_enum_schema_survives_the_sdk_round_trip() {
        let typed: ElicitRequestParams = serde_json::from_value(elicit_enum_params()).unwrap();
        let back = serde_json::to_value(typed).unwrap();
        assert_eq!(back["requestedSchema"]["properties"], elicit_enum_schema()["properties"]);
    }

    #[test]
    fn each_request_names_the_tool_that_asked() {
        assert_eq!(asking_tool(&elicit_form_params()), Some(TOOL_ELICIT_FORM));
        assert_eq!(asking_tool(&elicit_enum_params()), Some(TOOL_ELICIT_ENUMS));
        assert_eq!(asking_tool(&elicit_url_params(Some("e1"), ELICIT_URL)), Some(TOOL_ELICIT_URL));
        assert_eq!(asking_tool(&sampling_params()), Some(TOOL_SAMPLING));
        assert_eq!(asking_tool(&sampling_tools_params()), Some(TOOL_SAMPLING_TOOLS));
        assert_eq!(asking_tool(&sampling_preferences_params()), Some(TOOL_SAMPLING_PREFERENCES));
        assert_eq!(asking_tool(&serde_json::json!({})), None);
        assert_eq!(asking_tool(&serde_json::json!({"message": "something else"})), None);
    }
}
