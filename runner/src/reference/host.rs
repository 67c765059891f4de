//! The reference host: the reference client plus a model loop. It offers its model (the scripted
//! stub, in the Chat Completions dialect) every MCP tool as `probe__<name>` and, when the server
//! declares resources, `read_resource(server, uri)`, `list_resources(server)` and
//! `list_resource_templates(server)`; it passes the server's instructions as the system prompt,
//! runs each call the model makes (with the model's arguments) against the probe server and hands
//! back what it got — text as text, blobs as their base64, pictures and sounds in a user message
//! after the tool messages, an `isError` result prefixed "Error:", structured content that breaks
//! its tool's output schema as an error, content for the user only kept back, a failed read with
//! the server's message. Each affordance probe has a switch that breaks one of these, and
//! each host variation changes one of these in a way real hosts do and the probes must accept.

use probe_server::Era;
use std::time::Duration;

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ReadResourceRequestParams, ResourceContents, ServerResult};
use rmcp::service::PeerRequestOptions;
use serde_json::{json, Value};

use super::handler::ReferenceHandler;
use super::{connect, Ablation, Client, Endpoint, ReferenceError, Variation, SCRIPT_TIMEOUT};

/// The prefix of MCP tools as the model sees them.
pub const TOOL_PREFIX: &str = "probe__";
/// At most this many model turns.
const MAX_TURNS: usize = 48;

/// How long the reference host waits on a tool call, and how long its whole run may last.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    /// Gives up on a tool call after this long without its answer or a progress notification
    /// (none: it waits as long as the run lasts).
    pub tool_timeout: Option<Duration>,
    /// Ends its run here, as the runner stops a real host at a variant's bound: an end, not a
    /// failure (none: the script must finish within [`SCRIPT_TIMEOUT`]).
    pub bound: Option<Duration>,
    /// Follows a task a call is answered with (the tasks variant), where rmcp's call helper
    /// would fail on it.
    pub follow_tasks: bool,
}

/// The tool timeout the reference host keeps in the long-calls variant (a profile sets a short
/// one there where the host allows it): well above the progress interval of the reference's slow
/// call, well below its length.
pub const REFERENCE_TOOL_TIMEOUT: Duration = Duration::from_millis(800);
/// The reference host's bound in the long-calls variant: 1.6 s past the end its script reaches
/// (the slow call, then the tool timeout of the call that never answers), room for a loaded
/// machine.
pub const REFERENCE_BOUND: Duration = Duration::from_millis(4000);

impl Limits {
    /// The limits of a run against `variant`: in long-calls, a short tool timeout and a bound.
    pub fn for_variant(variant: probe_server::Variant) -> Limits {
        match variant {
            probe_server::Variant::LongCalls => Limits { tool_timeout: Some(REFERENCE_TOOL_TIMEOUT), bound: Some(REFERENCE_BOUND), follow_tasks: false },
            probe_server::Variant::Tasks => Limits { follow_tasks: true, ..Limits::default() },
            _ => Limits::default(),
        }
    }
}

/// How the reference host's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostEnd {
    /// Its model finished.
    Finished,
    /// It was still at work when its bound came.
    StoppedAtBound,
}

/// Runs the reference host against `endpoint`, its model at `model_url` (the stub's base URL).
pub async fn run(endpoint: &Endpoint, era: Era, ablation: Option<Ablation>, variation: Option<Variation>, model_url: &str, limits: Limits) -> Result<HostEnd, ReferenceError> {
    let (client, handler) = connect(endpoint, super::Opening::Era(era), ReferenceHandler::new(ablation, variation).unattended().with_model(model_url)).await?;
    let outcome = tokio::time::timeout(limits.bound.unwrap_or(SCRIPT_TIMEOUT), converse(&client, &handler, ablation, variation, model_url, limits)).await;
    let _ = client.cancel().await;
    match outcome {
        Ok(result) => result.map(|()| HostEnd::Finished),
        Err(_) if limits.bound.is_some() => Ok(HostEnd::StoppedAtBound),
        Err(_) => Err(ReferenceError::Timeout(SCRIPT_TIMEOUT)),
    }
}

fn function(name: &str, description: &str, parameters: Value) -> Value {
    json!({"type": "function", "function": {"name": name, "description": description, "parameters": parameters}})
}

/// The namespace of the namespace variation (no trailing separator, as Codex sends it).
const NAMESPACE: &str = "mcp__probe";
/// The search tool of the deferred-tools variation.
const TOOL_SEARCH: &str = "tool_search";

/// The code-mode variation's search, code runner and connector (a function's name is
/// `<connector>.<tool>`, its path in a program `tools["<connector>"]["<tool>"]`).
const CODE_SEARCH: &str = "search_tool_functions";
const CODE_RUNNER: &str = "run_typescript";
const CODE_CONNECTOR: &str = "mcp_probe";
/// How many functions a code-mode search ranks, and how many declarations one details call reads.
const CODE_RANKED: usize = 20;
const CODE_DETAILS: usize = 10;

/// Twelve hex digits that depend only on `tool` (a host's digest keeps shown names unique).
fn digest_of(tool: &str) -> String {
    let hash = tool.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3));
    format!("{:012x}", hash & 0xffff_ffff_ffff)
}

/// How the host shows MCP tools to its model.
struct Presentation {
    ablation: Option<Ablation>,
    variation: Option<Variation>,
}

impl Presentation {
    /// The name the model sees for MCP tool `tool`.
    fn shown(&self, tool: &str) -> String {
        match self.variation {
            Some(Variation::NamespaceWithoutSeparator) => tool.to_string(),
            Some(Variation::SingleUnderscorePrefix) => format!("mcp_probe_{tool}"),
            Some(Variation::DoubleUnderscorePrefix) => format!("mcp__probe__{tool}"),
            Some(Variation::DigestSuffix) => format!("probe_{tool}_{}", digest_of(tool)),
            Some(Variation::SanitizedNames) => {
                let name: String = format!("{TOOL_PREFIX}{tool}").chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
                match name.len() > 64 {
                    true => format!("{}_{}", &name[..51], digest_of(tool)),
                    false => name,
                }
            }
            _ => format!("{TOOL_PREFIX}{tool}"),
        }
    }

    /// The MCP tool a model's call names, if it names one of `tools`.
    fn mcp_tool<'a>(&self, called: &str, tools: &'a [rmcp::model::Tool]) -> Option<&'a rmcp::model::Tool> {
        tools.iter().find(|t| self.shown(&t.name) == called)
    }

    /// The catalogue the host offers its model. `loaded` are the deferred tools the model loaded.
    fn catalogue(&self, tools: &[rmcp::model::Tool], resources: bool, loaded: &[String]) -> Vec<Value> {
        let skip = |a: Ablation| self.ablation == Some(a);
        let shown = if skip(Ablation::HideSomeTools) { tools.len() / 2 } else { tools.len() };
        let deferred = self.variation == Some(Variation::DeferredTools);
        let coded = self.variation == Some(Variation::CodeMode);
        let mcp: Vec<Value> = tools
            .iter()
            .take(shown)
            .filter(|tool| super::apps::offered_to_model(tool, self.ablation))
            .filter(|tool| !coded && (!deferred || loaded.contains(&self.shown(&tool.name))))
            .map(|tool| {
                let mut schema = serde_json::to_value(tool.input_schema.as_ref()).unwrap_or(Value::Null);
                if skip(Ablation::AlterSchemas) {
                    schema["additionalProperties"] = json!(false);
                }
                schema_ablation(&mut schema, self.ablation);
                let description = if skip(Ablation::DropDescriptions) { "" } else { tool.description.as_deref().unwrap_or_default() };
                let title = tool.title.as_deref().filter(|_| !skip(Ablation::DropsTitles));
                function(&self.shown(&tool.name), &with_title(title, description), schema)
            })
            .collect();
        let mut offered = match self.variation {
            Some(Variation::NamespaceWithoutSeparator) => vec![json!({"type": "namespace", "name": NAMESPACE, "tools": mcp})],
            _ => mcp,
        };
        if coded {
            let names = json!({"type": "array", "items": {"type": "string"}, "maxItems": CODE_DETAILS});
            offered.push(function(
                CODE_SEARCH,
                "Discover callable tool functions for run_typescript: best_match ranks names for a query, details declares exact functions, all_connector_capabilities lists a connector's",
                json!({"type": "object", "properties": {
                    "mode": {"type": "string", "enum": ["best_match", "details", "all_connector_capabilities"]},
                    "query": {"type": "string"}, "connectors": {"type": "array", "items": {"type": "string"}}, "functions": names
                }, "required": ["mode"]}),
            ));
            offered.push(function(
                CODE_RUNNER,
                "Runs a TypeScript program; call tool functions as tools.<connector>.<function>(arguments)",
                json!({"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}),
            ));
        }
        if deferred {
            offered.push(function(
                TOOL_SEARCH,
                "Loads deferred tools: query select:<name>,<name>",
                json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
            ));
        }
        if (resources || skip(Ablation::ResourceToolsAlways)) && !skip(Ablation::NoResourceTools) {
            let required = if skip(Ablation::ServerOptional) { json!(["uri"]) } else { json!(["server", "uri"]) };
            let server = json!({"type": "string", "description": "the MCP server's name"});
            offered.push(function(
                "read_resource",
                "Read an MCP resource",
                json!({"type": "object", "properties": {"server": server, "uri": {"type": "string"}}, "required": required}),
            ));
            if !skip(Ablation::NoListTool) {
                offered.push(function("list_resources", "List the MCP resources of a server", json!({"type": "object", "properties": {"server": server}, "required": ["server"]})));
            }
            if !skip(Ablation::NoTemplateTool) {
                offered.push(function(
                    "list_resource_templates",
                    "List the MCP resource templates of a server",
                    json!({"type": "object", "properties": {"server": server}, "required": ["server"]}),
                ));
            }
        }
        offered
    }

    /// The prompt: with deferred tools, it names them (the only place the model sees them).
    fn prompt(&self, tools: &[rmcp::model::Tool]) -> String {
        let mut prompt = "Use the probe MCP server's tools and resources as instructed.".to_string();
        if self.variation == Some(Variation::DeferredTools) {
            let names: Vec<String> = tools.iter().map(|t| self.shown(&t.name)).collect();
            prompt.push_str(&format!("\nDeferred tools, load them with {TOOL_SEARCH}:\n{}", names.join("\n")));
        }
        prompt
    }
}

/// A tool's description with its title before it, as a host that shows its model both does.
fn with_title(title: Option<&str>, description: &str) -> String {
    title.map_or_else(|| description.to_string(), |title| format!("{title}: {description}"))
}

/// The answer of the code-mode variation's search: ranked names (the first [`CODE_RANKED`], and
/// whether more match) with the connector's guidance, every name of the connector, or the
/// declarations (as JSON Schema, in `<function>` tags) of the functions asked for.
fn code_search(arguments: &Value, tools: &[rmcp::model::Tool]) -> String {
    let name = |t: &rmcp::model::Tool| format!("{CODE_CONNECTOR}.{}", t.name);
    let listed = |names: Vec<String>| names.iter().enumerate().map(|(i, n)| format!("{}. {n}", i + 1)).collect::<Vec<_>>().join("\n");
    let guidance = format!("<connector-guidance><connector><name>{CODE_CONNECTOR}</name><status>connected</status></connector></connector-guidance>");
    match arguments["mode"].as_str() {
        Some("details") => {
            let wanted: Vec<&str> = arguments["functions"].as_array().into_iter().flatten().filter_map(Value::as_str).take(CODE_DETAILS).collect();
            tools
                .iter()
                .filter(|t| wanted.contains(&name(t).as_str()))
                .map(|t| {
                    let schema = serde_json::to_value(t.input_schema.as_ref()).unwrap_or(Value::Null);
                    let description = with_title(t.title.as_deref(), t.description.as_deref().unwrap_or_default());
                    let declaration = json!({"name": name(t), "description": description, "parameters": schema});
                    format!("<function>{declaration}</function>")
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        Some("all_connector_capabilities") => listed(tools.iter().map(name).collect()),
        _ => {
            let more = tools.len() > CODE_RANKED;
            format!("moreCandidatesAvailable: {more}\n{}\n{guidance}", listed(tools.iter().take(CODE_RANKED).map(name).collect()))
        }
    }
}

/// The tool a code-mode program calls (`tools["<connector>"]["<tool>"](<arguments>)`) and its
/// arguments, if it calls one of `tools`.
fn code_call<'a>(program: &str, tools: &'a [rmcp::model::Tool]) -> Option<(&'a rmcp::model::Tool, Value)> {
    let rest = &program[program.find("tools[")? + "tools[".len()..];
    let group_end = rest.find(']')?;
    let group: String = serde_json::from_str(&rest[..group_end]).ok()?;
    let rest = rest[group_end + 1..].strip_prefix('[')?;
    let name_end = rest.find("](")?;
    let name: String = serde_json::from_str(&rest[..name_end]).ok()?;
    let arguments_text = &rest[name_end + 2..];
    let arguments_end = arguments_text.find(");")?;
    let arguments = serde_json::from_str(&arguments_text[..arguments_end]).ok()?;
    let tool = tools.iter().find(|t| group == CODE_CONNECTOR && t.name == name)?;
    Some((tool, arguments))
}

/// Tool names a `select:a,b` query loads.
fn selected(query: &str) -> Vec<String> {
    query.strip_prefix("select:").map(|names| names.split(',').map(|n| n.trim().to_string()).collect()).unwrap_or_default()
}

async fn converse(
    client: &Client,
    handler: &ReferenceHandler,
    ablation: Option<Ablation>,
    variation: Option<Variation>,
    model_url: &str,
    limits: Limits,
) -> Result<(), ReferenceError> {
    let info = client.peer_info();
    let resources = info.as_ref().is_some_and(|i| i.capabilities.resources.is_some());
    let instructions = info.as_ref().and_then(|i| i.instructions.clone()).unwrap_or_default();
    let mut tools = client.list_all_tools().await.unwrap_or_default();
    let listed = if resources { client.list_all_resources().await.unwrap_or_default() } else { Vec::new() };
    let listed_uris: Vec<String> = listed.iter().map(|r| r.uri.clone()).collect();
    let presentation = Presentation { ablation, variation };
    let http = super::loopback_http().map_err(|e| ReferenceError::Connect(e.to_string()))?;
    if ablation == Some(Ablation::FetchRemoteRefs) {
        // A host that dereferences every schema before converting it for its model.
        for reference in tools.iter().flat_map(|t| remote_refs(&Value::Object(t.input_schema.as_ref().clone()))) {
            let _ = http.get(reference).send().await;
        }
    }
    let mut apps = super::apps::AppHost::new(ablation);
    apps.prefetch(client, &tools, variation).await;
    let mut loaded: Vec<String> = Vec::new();
    let mut refetched = false;
    let mut messages = Vec::new();
    if ablation != Some(Ablation::NoInstructions) && !instructions.is_empty() {
        messages.push(json!({"role": "system", "content": instructions}));
    }
    messages.push(json!({"role": "user", "content": presentation.prompt(&tools)}));
    // A host that gives up on a server after a JSON-RPC error (the drop-server-on-rpc-error fault).
    let mut dropped = false;
    for _ in 0..MAX_TURNS {
        if variation == Some(Variation::LateRefetch) && !refetched && handler.changes.tools.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            tools = client.list_all_tools().await.unwrap_or(tools);
            refetched = true;
        }
        let body = json!({"model": "stub-model", "stream": false, "messages": messages, "tools": presentation.catalogue(&tools, resources, &loaded)});
        let response = http
            .post(format!("{model_url}/v1/chat/completions"))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| ReferenceError::Connect(format!("the model did not answer: {e}")))?;
        let bytes = response.bytes().await.map_err(|e| ReferenceError::Connect(e.to_string()))?;
        let reply: Value = serde_json::from_slice(&bytes).map_err(|e| ReferenceError::Connect(format!("the model's answer is not JSON: {e}")))?;
        let message = reply["choices"][0]["message"].clone();
        let calls = message["tool_calls"].as_array().cloned().unwrap_or_default();
        messages.push(message);
        if calls.is_empty() {
            return Ok(());
        }
        // Pictures and sounds cannot go in a Chat Completions tool message: they follow the
        // turn's tool messages in a user message of their own.
        let mut media = Vec::new();
        for call in calls {
            let name = call["function"]["name"].as_str().unwrap_or_default();
            let arguments: Value = call["function"]["arguments"].as_str().and_then(|a| serde_json::from_str(a).ok()).unwrap_or(json!({}));
            let coded = (variation == Some(Variation::CodeMode) && name == CODE_RUNNER).then(|| code_call(arguments["code"].as_str().unwrap_or_default(), &tools));
            let text = if name == TOOL_SEARCH && variation == Some(Variation::DeferredTools) {
                let names = selected(arguments["query"].as_str().unwrap_or_default());
                loaded.extend(names.iter().cloned());
                format!("loaded {}", names.join(", "))
            } else if name == CODE_SEARCH && variation == Some(Variation::CodeMode) {
                code_search(&arguments, &tools)
            } else if let Some(None) = coded {
                "the program calls no tool function of this host".to_string()
            } else if let Some((mcp, arguments)) = coded.flatten().or_else(|| presentation.mcp_tool(name, &tools).map(|t| (t, arguments.clone()))) {
                if dropped {
                    "the server is no longer available".to_string()
                } else {
                    let handed = call_mcp_tool(client, mcp, &arguments, ablation, variation, limits).await;
                    dropped = handed.failed && ablation == Some(Ablation::DropServerOnRpcError);
                    if let Some(result) = &handed.result {
                        apps.after_call(client, mcp, &tools, result).await;
                    }
                    media.extend(handed.media);
                    handed.text
                }
            } else {
                execute(client, name, &arguments, &listed_uris, &listed, ablation, variation).await
            };
            messages.push(json!({"role": "tool", "tool_call_id": call["id"], "content": text}));
        }
        if !media.is_empty() {
            let mut parts = vec![json!({"type": "text", "text": "Attachments of the tool results above."})];
            parts.extend(media);
            messages.push(json!({"role": "user", "content": parts}));
        }
    }
    Ok(())
}

/// The `$ref`s of `schema`, at any depth, that point at a network URL.
fn remote_refs(schema: &Value) -> Vec<String> {
    match schema {
        Value::Object(map) => map
            .iter()
            .flat_map(|(key, value)| match value.as_str() {
                Some(target) if key == "$ref" && (target.starts_with("http://") || target.starts_with("https://")) => vec![target.to_string()],
                _ => remote_refs(value),
            })
            .collect(),
        Value::Array(items) => items.iter().flat_map(remote_refs).collect(),
        _ => Vec::new(),
    }
}

/// Breaks one thing in a tool's input schema as hosts that convert schemas for their model's API
/// have been seen to: `$defs` dropped (its `$ref`s left dangling), unions cut to their first
/// branch, a keyword removed (`format`, `prefixItems`, `const`, `pattern`, `enum`, the top
/// level's `additionalProperties`), objects below the top level emptied of their properties.
fn schema_ablation(schema: &mut Value, ablation: Option<Ablation>) {
    if ablation == Some(Ablation::OpenObjects) {
        if let Some(object) = schema.as_object_mut() {
            object.remove("additionalProperties");
        }
    }
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else { return };
    let dropped = match ablation {
        Some(Ablation::DropFormats) => Some("format"),
        Some(Ablation::DropPrefixItems) => Some("prefixItems"),
        Some(Ablation::DropConsts) => Some("const"),
        Some(Ablation::DropPatterns) => Some("pattern"),
        Some(Ablation::DropEnums) => Some("enum"),
        _ => None,
    };
    if let Some(keyword) = dropped {
        for property in properties.values_mut().filter_map(Value::as_object_mut) {
            property.remove(keyword);
        }
        return;
    }
    match ablation {
        Some(Ablation::DropSchemaDefs) => {
            if let Some(object) = schema.as_object_mut() {
                object.remove("$defs");
            }
        }
        Some(Ablation::CollapseUnions | Ablation::OneOfFirstBranch) => {
            let key = if ablation == Some(Ablation::CollapseUnions) { "anyOf" } else { "oneOf" };
            for property in properties.values_mut() {
                if let Some(first) = property.get(key).and_then(Value::as_array).and_then(|branches| branches.first()).cloned() {
                    *property = first;
                }
            }
        }
        Some(Ablation::FlattenNested) => {
            for property in properties.values_mut().filter_map(Value::as_object_mut) {
                for inner in property.get_mut("properties").and_then(Value::as_object_mut).into_iter().flat_map(|p| p.values_mut()) {
                    if inner.get("type") == Some(&json!("object")) {
                        *inner = json!({"type": "object"});
                    }
                }
            }
        }
        _ => {}
    }
}

/// How `data` breaks `schema` (the first error a JSON Schema validator finds), or `None` when it
/// fits. A schema that does not compile is reported as such.
fn output_mismatch(schema: &Value, data: &Value) -> Option<String> {
    match jsonschema::validator_for(schema) {
        Ok(validator) => validator.iter_errors(data).next().map(|e| e.to_string()),
        Err(e) => Some(format!("the output schema does not compile: {e}")),
    }
}

/// What the model is handed for one MCP tool call: the tool message's text, and the pictures and
/// sounds that follow it; whether the call failed with a JSON-RPC error.
struct Handed {
    text: String,
    media: Vec<Value>,
    failed: bool,
    /// The tool's result as it came, for the tool's view (none when the call brought none).
    result: Option<Value>,
}

/// Calls MCP tool `tool` and hands its result on: text as text, embedded resources as their text
/// or base64, pictures and sounds as attachments, an `isError` result prefixed "Error:"; content
/// annotated for the user only stays with the user; a result of any size whole.
async fn call_mcp_tool(client: &Client, tool: &rmcp::model::Tool, arguments: &Value, ablation: Option<Ablation>, variation: Option<Variation>, limits: Limits) -> Handed {
    let skip = |a: Ablation| ablation == Some(a);
    let failed = |text: String| Handed { text, media: Vec::new(), failed: true, result: None };
    // What the model is told in place of a result the host has none of.
    let said = |text: String| Handed { text, media: Vec::new(), failed: false, result: None };
    let mut arguments = arguments.as_object().cloned().unwrap_or_default();
    if skip(Ablation::DropNullArguments) {
        arguments.retain(|_, value| !value.is_null());
    }
    let name = match ablation {
        Some(Ablation::DotsToUnderscores) => tool.name.replace('.', "_"),
        Some(Ablation::DashesToUnderscores) => tool.name.replace('-', "_"),
        Some(Ablation::NamesCutTo64) => tool.name.chars().take(64).collect(),
        _ => tool.name.to_string(),
    };
    let mut params = CallToolRequestParams::new(name);
    if !arguments.is_empty() {
        params = params.with_arguments(arguments);
    }
    let called = match limits.follow_tasks {
        true => match super::tasks::call(client, params, ablation).await {
            super::tasks::Ended::Result(_) if skip(Ablation::TaskResultWithheld) => return said("the task completed".into()),
            super::tasks::Ended::Result(result) => serde_json::from_value(result).map_err(|e| Called::Failed(format!("the task's result is no tool result: {e}"))),
            super::tasks::Ended::Failed(_) if skip(Ablation::TaskFailureHidden) => return said(String::new()),
            super::tasks::Ended::Failed(why) => return said(format!("Error: {why}")),
        },
        false => call_within(client, params, limits.tool_timeout, ablation).await,
    };
    let result = match called {
        Ok(result) => result,
        Err(Called::TimedOut(after)) => return said(format!("Error: the tool call timed out after {after:?}")),
        Err(_) if skip(Ablation::RpcErrorUnsaid) => return failed("the tool call failed".into()),
        Err(Called::Failed(e)) => return failed(format!("error: {e}")),
    };
    let raw = serde_json::to_value(&result).ok();
    let handed = |text: String, media: Vec<Value>| Handed { text, media, failed: false, result: raw.clone() };
    let output_schema = tool.output_schema.as_deref().map(|schema| Value::Object(schema.clone()));
    let mismatch = output_schema.zip(result.structured_content.as_ref()).and_then(|(schema, data)| output_mismatch(&schema, data));
    if let (Some(why), false) = (mismatch, skip(Ablation::SkipOutputValidation)) {
        return handed(format!("Error: the tool's structured result does not match its output schema ({why})"), Vec::new());
    }
    if result.structured_content.is_some() && skip(Ablation::DropDualResults) {
        return handed("[result omitted]".into(), Vec::new());
    }
    if let (Some(data), true) = (&result.structured_content, skip(Ablation::StructuredOnly)) {
        return handed(data.to_string(), Vec::new());
    }
    let (mut texts, mut media) = (Vec::new(), Vec::new());
    for block in result.content.iter().filter_map(|c| serde_json::to_value(c).ok()) {
        let annotations = block.get("annotations").filter(|a| !a.is_null());
        let user_only = annotations.and_then(|a| a.get("audience")).is_some_and(|a| a == &json!(["user"]));
        if (user_only && !skip(Ablation::KeepUserAudience)) || (annotations.is_some() && skip(Ablation::DropAnnotatedBlocks)) {
            continue;
        }
        let (data, mime) = (block["data"].as_str().unwrap_or_default(), block["mimeType"].as_str().unwrap_or_default());
        match block["type"].as_str().unwrap_or_default() {
            "text" => texts.push(block["text"].as_str().unwrap_or_default().to_string()),
            "image" | "audio" if variation == Some(Variation::TextOnlyModel) => texts.push(format!("[{mime}: the model takes text only]")),
            "image" if skip(Ablation::ImagePlaceholder) => texts.push("[image omitted]".into()),
            "image" if skip(Ablation::ImageAsBase64Text) => texts.push(format!("[image {mime}, base64] {data}")),
            "image" => media.push(json!({"type": "image_url", "image_url": {"url": format!("data:{mime};base64,{data}")}})),
            "audio" if skip(Ablation::DropAudio) => {}
            "audio" => media.push(json!({"type": "input_audio", "input_audio": {"data": data, "format": "wav"}})),
            "resource" => match (block["resource"]["text"].as_str(), block["resource"]["blob"].as_str()) {
                (Some(text), _) => texts.push(text.to_string()),
                (None, Some(_)) if skip(Ablation::DropEmbeddedBlob) => {}
                (None, Some(blob)) => texts.push(blob.to_string()),
                (None, None) => {}
            },
            _ => {}
        }
    }
    let text = texts.join("\n");
    let text = if result.is_error == Some(true) && !skip(Ablation::ErrorAsOrdinary) { format!("Error: {text}") } else { text };
    let text = if skip(Ablation::TruncateResultsSilently) { cut(&text, RESULT_LIMIT, 0, None) } else { text };
    let text = if variation == Some(Variation::TruncateResultsMarked) { cut(&text, RESULT_LIMIT - KEPT_TAIL, KEPT_TAIL, Some("[{} bytes of the result truncated]")) } else { text };
    handed(text, media)
}

/// Why a tool call brought no result.
enum Called {
    /// The host gave up waiting.
    TimedOut(Duration),
    /// The call failed (a JSON-RPC error, the connection lost).
    Failed(String),
}

/// Calls a tool, giving up after `timeout` without its answer or a progress notification for it
/// and telling the server (`notifications/cancelled`). The ablations give up without a word, wait
/// however long it takes, or let progress count for nothing.
async fn call_within(client: &Client, params: CallToolRequestParams, timeout: Option<Duration>, ablation: Option<Ablation>) -> Result<rmcp::model::CallToolResult, Called> {
    let Some(timeout) = timeout else {
        return client.call_tool(params).await.map_err(|e| Called::Failed(e.to_string()));
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    if matches!(ablation, Some(Ablation::SilentTimeout | Ablation::NoCallTimeout)) {
        // Its own clock on the answer (or none), the request left as it is at the server even
        // when the host's run is stopped under it.
        let handle = client.send_request_with_option(request, PeerRequestOptions::no_options()).await.map_err(|e| Called::Failed(e.to_string()))?;
        let waited = match ablation {
            Some(Ablation::NoCallTimeout) => Ok(handle.rx.await),
            _ => tokio::time::timeout(timeout, handle.rx).await,
        };
        return match waited {
            Ok(Ok(Ok(ServerResult::CallToolResult(result)))) => Ok(result),
            Ok(Ok(Ok(_))) => Err(Called::Failed("an answer that is no tool result".into())),
            Ok(Ok(Err(e))) => Err(Called::Failed(e.to_string())),
            Ok(Err(_)) => Err(Called::Failed("the connection closed".into())),
            Err(_) => Err(Called::TimedOut(timeout)),
        };
    }
    let mut options = PeerRequestOptions::with_timeout(timeout);
    if ablation != Some(Ablation::TimeoutIgnoresProgress) {
        options = options.reset_timeout_on_progress();
    }
    let handle = client.send_request_with_option(request, options).await.map_err(|e| Called::Failed(e.to_string()))?;
    match handle.await_response().await {
        Ok(ServerResult::CallToolResult(result)) => Ok(result),
        Ok(_) => Err(Called::Failed("an answer that is no tool result".into())),
        Err(rmcp::ServiceError::Timeout { timeout }) => Err(Called::TimedOut(timeout)),
        Err(e) => Err(Called::Failed(e.to_string())),
    }
}

/// The most of a tool result the ablation and the variation that cut results hand on, and of
/// it the variation's tail.
const RESULT_LIMIT: usize = 50_000;
const KEPT_TAIL: usize = 10_000;

/// `text` cut to its first `head` and last `tail` bytes (on character boundaries) when it is
/// longer than both, with `note` (its `{}` the bytes left out) between them.
fn cut(text: &str, head: usize, tail: usize, note: Option<&str>) -> String {
    if text.len() <= head + tail {
        return text.to_string();
    }
    let mut end = head;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut start = text.len() - tail;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let note = note.map(|n| format!("\n{}\n", n.replace("{}", &(start - end).to_string()))).unwrap_or_default();
    format!("{}{note}{}", &text[..end], &text[start..])
}

/// Runs one of the model's calls of the host's own tools (the resource tools) and returns what
/// the model gets back.
async fn execute(
    client: &Client,
    name: &str,
    arguments: &Value,
    listed: &[String],
    listing: &[rmcp::model::Resource],
    ablation: Option<Ablation>,
    variation: Option<Variation>,
) -> String {
    let skip = |a: Ablation| ablation == Some(a);
    let uri = arguments["uri"].as_str().unwrap_or_default().to_string();
    match name {
        "read_resource" => {
            if skip(Ablation::ListedUrisOnly) && !listed.contains(&uri) {
                return format!("refused: {uri} is not a listed resource");
            }
            if skip(Ablation::ReadFromCache) && uri == probe_server::surface::TEXT_URI {
                return format!("{uri}: listed (content not fetched)");
            }
            let result = match client.read_resource(ReadResourceRequestParams::new(uri.clone())).await {
                Ok(result) => result,
                Err(_) if skip(Ablation::ResourceErrorUnsaid) => return format!("error reading {uri}"),
                Err(e) => return format!("error reading {uri}: {e}"),
            };
            result
                .contents
                .into_iter()
                .map(|c| match c {
                    ResourceContents::TextResourceContents { text, .. } if skip(Ablation::DropText) => format!("[{} bytes of text omitted]", text.len()),
                    ResourceContents::TextResourceContents { text, .. } => text,
                    ResourceContents::BlobResourceContents { blob, .. } if skip(Ablation::DropBlobs) => format!("[binary resource omitted, {} base64 chars]", blob.len()),
                    ResourceContents::BlobResourceContents { blob, .. } => blob,
                    _ => String::new(),
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        "list_resources" if variation == Some(Variation::ListFromCache) => json!(listing).to_string(),
        "list_resources" => json!(client.list_all_resources().await.unwrap_or_default()).to_string(),
        "list_resource_templates" => json!(client.list_all_resource_templates().await.unwrap_or_default()).to_string(),
        other => format!("unknown tool {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_network_references_are_remote() {
        let schema = json!({
            "type": "object",
            "$defs": {"point": {"type": "object"}},
            "properties": {
                "at": {"$ref": "#/$defs/point"},
                "unit": {"$ref": "http://127.0.0.1:9/unit.json"},
                "pair": {"prefixItems": [{"$ref": "https://example.invalid/a.json"}, {"type": "string"}]}
            }
        });
        let mut found = remote_refs(&schema);
        found.sort();
        assert_eq!(found, vec!["http://127.0.0.1:9/unit.json", "https://example.invalid/a.json"]);
    }

    fn tool(name: &str) -> rmcp::model::Tool {
        serde_json::from_value(json!({"name": name, "description": format!("{name} does it"), "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}))
            .expect("a tool")
    }

    #[test]
    fn a_code_mode_program_calls_the_function_the_stub_wrote_it_for() {
        let tools = vec![tool("probe_ping"), tool("probe_schema")];
        let program = crate::drivers::stub::plan::program("mcp_probe.probe_schema", &json!({"n": 2}));
        let (called, arguments) = code_call(&program, &tools).expect("a call");
        assert_eq!((called.name.as_ref(), arguments), ("probe_schema", json!({"n": 2})));
        // Another connector's function, or a program that calls none, is no call of this host.
        assert!(code_call(&crate::drivers::stub::plan::program("other.probe_ping", &json!({})), &tools).is_none());
        assert!(code_call("console.log(1);", &tools).is_none());
    }

    #[test]
    fn the_code_mode_search_ranks_lists_and_declares() {
        let tools: Vec<rmcp::model::Tool> = (0..=CODE_RANKED).map(|i| tool(&format!("probe_t{i}"))).collect();
        let ranked = code_search(&json!({"mode": "best_match", "query": "probe"}), &tools);
        assert!(ranked.contains("moreCandidatesAvailable: true") && ranked.contains("<name>mcp_probe</name>"), "{ranked}");
        assert!(ranked.contains("mcp_probe.probe_t0") && !ranked.contains(&format!("mcp_probe.probe_t{CODE_RANKED}")));
        let all = code_search(&json!({"mode": "all_connector_capabilities", "connectors": ["mcp_probe"]}), &tools);
        assert!(all.contains(&format!("mcp_probe.probe_t{CODE_RANKED}")));
        let declared = code_search(&json!({"mode": "details", "functions": ["mcp_probe.probe_t1"]}), &tools);
        let inner = declared.strip_prefix("<function>").and_then(|d| d.strip_suffix("</function>")).expect("one declaration");
        let declaration: Value = serde_json::from_str(inner).expect("JSON");
        assert_eq!(declaration["name"], "mcp_probe.probe_t1");
        assert_eq!(declaration["parameters"]["properties"]["n"]["type"], "integer");
    }
}
