//! The reference host: the reference client plus a model loop. It offers its model (the scripted
//! stub, in the Chat Completions dialect) every MCP tool as `probe__<name>` and, when the server
//! declares resources, `read_resource(server, uri)`, `list_resources(server)` and
//! `list_resource_templates(server)`; it passes the server's instructions as the system prompt,
//! runs each call the model makes against the probe server and hands back what it got — text as
//! text, blobs as their base64. Each affordance probe has a switch that breaks one of these.

use probe_server::Era;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::{json, Value};

use super::{connect, Ablation, Client, Endpoint, ReferenceError, SCRIPT_TIMEOUT};

/// The prefix of MCP tools as the model sees them.
pub const TOOL_PREFIX: &str = "probe__";
/// At most this many model turns.
const MAX_TURNS: usize = 48;

/// Runs the reference host against `endpoint`, its model at `model_url` (the stub's base URL).
pub async fn run(endpoint: &Endpoint, era: Era, ablation: Option<Ablation>, model_url: &str) -> Result<(), ReferenceError> {
    let (client, _handler) = connect(endpoint, era, ablation).await?;
    let outcome = tokio::time::timeout(SCRIPT_TIMEOUT, converse(&client, ablation, model_url)).await;
    let _ = client.cancel().await;
    match outcome {
        Ok(result) => result,
        Err(_) => Err(ReferenceError::Timeout(SCRIPT_TIMEOUT)),
    }
}

fn function(name: &str, description: &str, parameters: Value) -> Value {
    json!({"type": "function", "function": {"name": name, "description": description, "parameters": parameters}})
}

/// The catalogue the host offers its model.
fn catalogue(tools: &[rmcp::model::Tool], resources: bool, ablation: Option<Ablation>) -> Vec<Value> {
    let skip = |a: Ablation| ablation == Some(a);
    let shown = if skip(Ablation::HideSomeTools) { tools.len() / 2 } else { tools.len() };
    let mut offered: Vec<Value> = tools
        .iter()
        .take(shown)
        .map(|tool| {
            let mut schema = serde_json::to_value(tool.input_schema.as_ref()).unwrap_or(Value::Null);
            if skip(Ablation::AlterSchemas) {
                schema["additionalProperties"] = json!(false);
            }
            let description = if skip(Ablation::DropDescriptions) { String::new() } else { tool.description.as_deref().unwrap_or_default().to_string() };
            function(&format!("{TOOL_PREFIX}{}", tool.name), &description, schema)
        })
        .collect();
    if (resources || skip(Ablation::ResourceToolsAlways)) && !skip(Ablation::NoResourceTools) {
        let required = if skip(Ablation::ServerOptional) { json!(["uri"]) } else { json!(["server", "uri"]) };
        let server = json!({"type": "string", "description": "the MCP server's name"});
        offered.push(function("read_resource", "Read an MCP resource", json!({"type": "object", "properties": {"server": server, "uri": {"type": "string"}}, "required": required})));
        if !skip(Ablation::NoListTool) {
            offered.push(function("list_resources", "List the MCP resources of a server", json!({"type": "object", "properties": {"server": server}, "required": ["server"]})));
        }
        if !skip(Ablation::NoTemplateTool) {
            offered.push(function("list_resource_templates", "List the MCP resource templates of a server", json!({"type": "object", "properties": {"server": server}, "required": ["server"]})));
        }
    }
    offered
}

async fn converse(client: &Client, ablation: Option<Ablation>, model_url: &str) -> Result<(), ReferenceError> {
    let info = client.peer_info();
    let resources = info.as_ref().is_some_and(|i| i.capabilities.resources.is_some());
    let instructions = info.as_ref().and_then(|i| i.instructions.clone()).unwrap_or_default();
    let tools = client.list_all_tools().await.unwrap_or_default();
    let listed: Vec<String> = if resources { client.list_all_resources().await.unwrap_or_default().into_iter().map(|r| r.uri.clone()).collect() } else { Vec::new() };
    let offered = catalogue(&tools, resources, ablation);
    let mut messages = Vec::new();
    if ablation != Some(Ablation::NoInstructions) && !instructions.is_empty() {
        messages.push(json!({"role": "system", "content": instructions}));
    }
    messages.push(json!({"role": "user", "content": "Use the probe MCP server's tools and resources as instructed."}));
    let http = reqwest::Client::builder().no_proxy().build().map_err(|e| ReferenceError::Connect(e.to_string()))?;
    for _ in 0..MAX_TURNS {
        let body = json!({"model": "stub-model", "stream": false, "messages": messages, "tools": offered});
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
        for call in calls {
            let name = call["function"]["name"].as_str().unwrap_or_default();
            let arguments: Value = call["function"]["arguments"].as_str().and_then(|a| serde_json::from_str(a).ok()).unwrap_or(json!({}));
            let text = execute(client, name, &arguments, &listed, ablation).await;
            messages.push(json!({"role": "tool", "tool_call_id": call["id"], "content": text}));
        }
    }
    Ok(())
}

/// Runs one of the model's calls and returns what the model gets back.
async fn execute(client: &Client, name: &str, arguments: &Value, listed: &[String], ablation: Option<Ablation>) -> String {
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
            let Ok(result) = client.read_resource(ReadResourceRequestParams::new(uri.clone())).await else { return format!("error reading {uri}") };
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
        "list_resources" => json!(client.list_all_resources().await.unwrap_or_default()).to_string(),
        "list_resource_templates" => json!(client.list_all_resource_templates().await.unwrap_or_default()).to_string(),
        other => match other.strip_prefix(TOOL_PREFIX) {
            Some(tool) => match client.call_tool(CallToolRequestParams::new(tool.to_string())).await {
                Ok(result) if result.structured_content.is_some() && skip(Ablation::DropDualResults) => "[result omitted]".to_string(),
                Ok(result) => result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n"),
                Err(e) => format!("error: {e}"),
            },
            None => format!("unknown tool {other}"),
        },
    }
}
