//! What a host offers its model, and what reaches it: judged from the model stub's journal (the
//! `model_view` of every request and the calls the stub made) together with the probe server's
//! journal. Evidence lines are those of the model journal.

use base64::Engine;
use serde_json::Value;

use super::{probe, BOTH};
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};
use crate::surface as s;

fn normalized(name: &str) -> String {
    name.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase()
}

fn name(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or_default()
}

/// The name as the model sees it, namespace included.
fn shown_name(tool: &Value) -> String {
    match tool.get("namespace").and_then(Value::as_str) {
        Some(ns) => format!("{ns}{}", name(tool)),
        None => name(tool).to_string(),
    }
}

fn has_property(tool: &Value, property: &str) -> bool {
    tool.pointer(&format!("/schema/properties/{property}")).is_some()
}

/// A tool that reads an MCP resource by URI.
pub fn is_read_tool(tool: &Value) -> bool {
    let n = normalized(name(tool));
    (n.contains("readmcpresource") || n.ends_with("readresource") || n.ends_with("getresource")) && !n.contains("dir") && has_property(tool, "uri")
}

/// A tool that lists MCP resources (not templates).
pub fn is_list_tool(tool: &Value) -> bool {
    let n = normalized(name(tool));
    (n.contains("listmcpresources") || n.ends_with("listresources")) && !n.contains("template") && !n.contains("dir")
}

/// A tool that lists MCP resource templates.
pub fn is_template_tool(tool: &Value) -> bool {
    let n = normalized(name(tool));
    n.contains("resource") && n.contains("template") && n.contains("list")
}

/// A name that refers to MCP tool `tool`: the name itself, or the name after a separator.
pub fn names_tool(shown: &str, tool: &str) -> bool {
    shown == tool || shown.strip_suffix(tool).is_some_and(|prefix| prefix.ends_with(|c: char| !c.is_ascii_alphanumeric()))
}

/// The first request's view: the catalogue a verdict of absence rests on.
fn first_view(o: &Observations) -> Option<u64> {
    o.model_views().next().map(|(seq, _)| seq)
}

fn offered_where(o: &Observations, test: fn(&Value) -> bool) -> Vec<(u64, &Value)> {
    o.offered_tools().into_iter().filter(|(_, t)| test(t)).collect()
}

fn offered_verdict(o: &Observations, test: fn(&Value) -> bool, what: &str) -> Verdict {
    let found = offered_where(o, test);
    match found.first() {
        Some((seq, _)) => Verdict::new(Outcome::Yes, format!("{what}: {}", found.iter().map(|(_, t)| shown_name(t)).collect::<Vec<_>>().join(", "))).evidence([*seq]),
        None => Verdict::new(Outcome::No, format!("no tool {what}")).evidence(first_view(o)),
    }
}

probe! {
    /// Evidence (model journal): the host offers its model a tool that reads an MCP resource by
    /// URI; the detail gives its exact name(s).
    ReadTool {
        id: "affordances.read_tool", area: Affordances, title: "a resource-read tool for the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "resources the model may want to read",
        judge: |o| offered_verdict(o, is_read_tool, "reads MCP resources"), needs_model: true,
    }
}

probe! {
    /// Evidence (model journal): the host offers its model a tool that lists MCP resources.
    ListTool {
        id: "affordances.list_tool", area: Affordances, title: "a resource-list tool for the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "two pages of resources",
        judge: |o| offered_verdict(o, is_list_tool, "lists MCP resources"), needs_model: true,
    }
}

probe! {
    /// Evidence (model journal): the host offers its model a tool that lists resource templates.
    TemplateListTool {
        id: "affordances.template_list_tool", area: Affordances, title: "a template-list tool for the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "a resource template",
        judge: |o| offered_verdict(o, is_template_tool, "lists resource templates"), needs_model: true,
    }
}

probe! {
    /// Evidence (model journal): the read tool names the server it reads from — a required server
    /// parameter, or a tool per server (the server's name in the tool's name or namespace). An
    /// optional server parameter is partial; none at all, no.
    ServerParam {
        id: "affordances.server_param", area: Affordances, title: "the read tool names its server",
        revisions: ["2024-11-05"], eras: BOTH, serves: "the server is called probe in every configuration",
        judge: judge_server_param, needs_model: true,
    }
}

fn judge_server_param(o: &Observations) -> Verdict {
    let Some((seq, tool)) = offered_where(o, is_read_tool).into_iter().next() else {
        return Verdict::new(Outcome::NotReached, "no read tool was offered").evidence(first_view(o));
    };
    let required: Vec<&str> = tool.pointer("/schema/required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let param = ["server", "server_name", "serverName"].into_iter().find(|p| has_property(tool, p));
    match param {
        Some(p) if required.contains(&p) => Verdict::new(Outcome::Yes, format!("required parameter {p}")).evidence([seq]),
        Some(p) => Verdict::new(Outcome::Partial, format!("optional parameter {p}")).evidence([seq]),
        None if shown_name(tool).contains("probe") => Verdict::new(Outcome::Yes, "encoded in the tool name").evidence([seq]),
        None => Verdict::new(Outcome::No, "the read tool cannot name a server").evidence([seq]),
    }
}

/// The model's calls of a read tool for `uri`: (model journal line).
fn read_calls(o: &Observations, uri: &str) -> Vec<u64> {
    let read_tools: Vec<String> = offered_where(o, is_read_tool).iter().map(|(_, t)| name(t).to_string()).collect();
    o.model_calls().filter(|(_, tool, args)| read_tools.iter().any(|t| t == tool) && args.get("uri").and_then(Value::as_str) == Some(uri)).map(|(seq, _, _)| seq).collect()
}

/// The model's first read of `uri`, or the not-reached verdict naming `what` it never read.
fn first_read(o: &Observations, uri: &str, what: &str) -> Result<u64, Verdict> {
    read_calls(o, uri).first().copied().ok_or_else(|| Verdict::new(Outcome::NotReached, format!("the model never called a read tool for {what}")).evidence(first_view(o)))
}

fn server_read(o: &Observations, uri: &str) -> bool {
    o.client_requests("resources/read").any(|f| f.params().get("uri").and_then(Value::as_str) == Some(uri))
}

fn results_containing<'a>(o: &'a Observations, needle: &'a str) -> impl Iterator<Item = u64> + 'a {
    o.model_views()
        .filter(move |(_, v)| v.get("tool_results").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).any(|r| r.contains(needle)))
        .map(|(seq, _)| seq)
}

probe! {
    /// Evidence: a model call of the read tool for the text resource is followed by a
    /// `resources/read` of that same URI on the probe server.
    ReadReachesServer {
        id: "affordances.read_reaches_server", area: Affordances, title: "the model's read reaches resources/read",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe://text/canary",
        judge: judge_read_reaches_server, needs_model: true,
    }
}

fn judge_read_reaches_server(o: &Observations) -> Verdict {
    let call = match first_read(o, s::TEXT_URI, "the text resource") {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    if server_read(o, s::TEXT_URI) {
        Verdict::new(Outcome::Yes, "the model's read became resources/read of the same URI").evidence([call])
    } else {
        Verdict::new(Outcome::No, "the model's read never reached the server").evidence([call])
    }
}

probe! {
    /// Evidence (model journal): after the model read the text resource, a tool result it
    /// received contains the resource's canary.
    TextToModel {
        id: "affordances.text_to_model", area: Affordances, title: "text resource content reaches the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe://text/canary with a canary",
        judge: judge_text_to_model, needs_model: true,
    }
}

fn judge_text_to_model(o: &Observations) -> Verdict {
    let call = match first_read(o, s::TEXT_URI, "the text resource") {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    match results_containing(o, s::TEXT_CANARY).next() {
        Some(seen) => Verdict::new(Outcome::Yes, "the canary reached the model").evidence([call, seen]),
        None => Verdict::new(Outcome::No, "the model never received the canary").evidence([call]),
    }
}

probe! {
    /// Evidence (model journal): after the model read the binary resource, a tool result it
    /// received carries the same bytes inline (base64). A result without them (a placeholder, a
    /// path to a saved file, nothing) is partial; no result at all, no.
    BlobToModel {
        id: "affordances.blob_to_model", area: Affordances, title: "binary resource bytes reach the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe://blob/bytes",
        judge: judge_blob_to_model, needs_model: true,
    }
}

fn judge_blob_to_model(o: &Observations) -> Verdict {
    let call = match first_read(o, s::BLOB_URI, "the binary resource") {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    let encoded = base64::engine::general_purpose::STANDARD.encode(s::blob_bytes());
    if let Some(seen) = results_containing(o, &encoded).next() {
        return Verdict::new(Outcome::Yes, "inline base64, the same bytes").evidence([call, seen]);
    }
    let answered = o.model_views().filter(|(seq, _)| *seq > call).find(|(_, v)| v.get("tool_results").and_then(Value::as_array).is_some_and(|r| !r.is_empty()));
    match answered {
        Some((seq, _)) => Verdict::new(Outcome::Partial, "the model got a result without the bytes (a placeholder or a path)").evidence([call, seq]),
        None => Verdict::new(Outcome::No, "the model never got a result for the binary resource").evidence([call]),
    }
}

probe! {
    /// Evidence: the model's read of `probe://items/42` — a URI that matches the server's template
    /// but was never listed — reaches the server and its content reaches the model.
    TemplateRead {
        id: "affordances.template_read", area: Affordances, title: "an unlisted templated URI can be read",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe://items/{id}",
        judge: judge_template_read, needs_model: true,
    }
}

fn judge_template_read(o: &Observations) -> Verdict {
    let uri = format!("{}42", s::TEMPLATE_PREFIX);
    let call = match first_read(o, &uri, "a templated URI") {
        Ok(call) => call,
        Err(verdict) => return verdict,
    };
    match (server_read(o, &uri), results_containing(o, "item 42").next()) {
        (true, Some(seen)) => Verdict::new(Outcome::Yes, "read through and handed to the model").evidence([call, seen]),
        (true, None) => Verdict::new(Outcome::Partial, "read from the server, the content never reached the model").evidence([call]),
        (false, _) => Verdict::new(Outcome::No, "the host never asked the server for it").evidence([call]),
    }
}

/// The tools the client received from `tools/list` (every page it fetched).
fn listed_tools(o: &Observations) -> Vec<Value> {
    let mut tools: Vec<Value> = Vec::new();
    for request in o.client_requests("tools/list") {
        let listed = o.answer_to(request).and_then(|a| a.result()).and_then(|r| r.get("tools")).and_then(Value::as_array).cloned().unwrap_or_default();
        for tool in listed {
            if !tools.iter().any(|t| t["name"] == tool["name"]) {
                tools.push(tool);
            }
        }
    }
    tools
}

/// Each listed MCP tool with what the model was offered for it, if anything.
fn matched(o: &Observations) -> Vec<(Value, Option<(u64, Value)>)> {
    let offered = o.offered_tools();
    listed_tools(o)
        .into_iter()
        .map(|tool| {
            let mcp_name = tool["name"].as_str().unwrap_or_default().to_string();
            let found = offered.iter().find(|(_, t)| names_tool(&shown_name(t), &mcp_name)).map(|(seq, t)| (*seq, (*t).clone()));
            (tool, found)
        })
        .collect()
}

probe! {
    /// Evidence (model journal): every tool the host listed from the server is offered to the
    /// model, under its own name or after a prefix or namespace (the detail shows how). Some
    /// missing is partial.
    ToolNames {
        id: "affordances.tool_names", area: Affordances, title: "MCP tools offered to the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "the probe tools",
        judge: judge_tool_names, needs_model: true,
    }
}

fn judge_tool_names(o: &Observations) -> Verdict {
    let pairs = matched(o);
    if pairs.is_empty() {
        return Verdict::new(Outcome::NotReached, "the host listed no tools");
    }
    let offered: Vec<&(u64, Value)> = pairs.iter().filter_map(|(_, f)| f.as_ref()).collect();
    let Some((seq, first)) = offered.first() else {
        return Verdict::new(Outcome::No, format!("none of {} listed tools was offered to the model", pairs.len()));
    };
    let mcp = pairs.iter().find(|(_, f)| f.is_some()).map(|(t, _)| t["name"].as_str().unwrap_or_default()).unwrap_or_default();
    let shown = shown_name(first);
    let presentation = match shown.strip_suffix(mcp) {
        Some("") => "unchanged names".to_string(),
        Some(prefix) => format!("as {prefix}<name>"),
        None => shown,
    };
    if offered.len() == pairs.len() {
        Verdict::new(Outcome::Yes, format!("all {} listed tools, {presentation}", pairs.len())).evidence([*seq])
    } else {
        Verdict::new(Outcome::Partial, format!("{} of {} listed tools, {presentation}", offered.len(), pairs.len())).evidence([*seq])
    }
}

/// Yes when every offered MCP tool keeps `field` of its listing (as `same` compares them).
fn passthrough(o: &Observations, what: &str, same: fn(&Value, &Value) -> bool) -> Verdict {
    let pairs: Vec<(Value, (u64, Value))> = matched(o).into_iter().filter_map(|(t, f)| f.map(|f| (t, f))).collect();
    let Some((_, (seq, _))) = pairs.first() else {
        return Verdict::new(Outcome::NotReached, "no MCP tool was offered to the model");
    };
    let changed: Vec<&str> = pairs.iter().filter(|(listed, (_, offered))| !same(listed, offered)).map(|(l, _)| l["name"].as_str().unwrap_or_default()).collect();
    match changed.first() {
        None => Verdict::new(Outcome::Yes, format!("{what} of all {} offered tools unchanged", pairs.len())).evidence([*seq]),
        Some(first) if changed.len() == pairs.len() => Verdict::new(Outcome::No, format!("{what} of every offered tool changed ({first} first)")).evidence([*seq]),
        Some(first) => Verdict::new(Outcome::Partial, format!("{what} of {} of {} tools changed ({first} first)", changed.len(), pairs.len())).evidence([*seq]),
    }
}

probe! {
    /// Evidence (model journal): each offered MCP tool's parameter schema equals its listed
    /// `inputSchema`.
    ToolSchemas {
        id: "affordances.tool_schemas", area: Affordances, title: "input schemas reach the model unchanged",
        revisions: ["2024-11-05"], eras: BOTH, serves: "the probe tools' input schemas",
        judge: |o| passthrough(o, "input schemas", |listed, offered| listed.get("inputSchema") == offered.get("schema")), needs_model: true,
    }
}

probe! {
    /// Evidence (model journal): each offered MCP tool's description contains its listed
    /// description.
    ToolDescriptions {
        id: "affordances.tool_descriptions", area: Affordances, title: "tool descriptions reach the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "the probe tools' descriptions",
        judge: |o| passthrough(o, "descriptions", |listed, offered| {
            let listed = listed.get("description").and_then(Value::as_str).unwrap_or_default();
            offered.get("description").and_then(Value::as_str).is_some_and(|d| d.contains(listed))
        }),
        needs_model: true,
    }
}

probe! {
    /// Evidence (server variant `no-resources`, model journal): with a server that does not
    /// declare the resources capability, the host offers no tool to list or read resources.
    ResourcesGated {
        id: "affordances.resources_gated", area: Affordances, title: "resource tools only with the resources capability",
        revisions: ["2024-11-05"], eras: BOTH, scenario: NoResources, serves: "no resources capability",
        judge: judge_resources_gated, needs_model: true,
    }
}

fn judge_resources_gated(o: &Observations) -> Verdict {
    let offered: Vec<(u64, &Value)> = o.offered_tools().into_iter().filter(|(_, t)| is_read_tool(t) || is_list_tool(t)).collect();
    match offered.first() {
        None => Verdict::new(Outcome::Yes, "no resource tool while the server has no resources"),
        Some((seq, tool)) => Verdict::new(Outcome::No, format!("offered {} although the server has no resources", shown_name(tool))).evidence([*seq]),
    }
}

probe! {
    /// Evidence (model journal): `probe_progress` answers with text content and a
    /// `structuredContent` carrying a canary; after the model called it, the tool result it
    /// received holds one of them or both (yes; the detail says which — the specification lets a
    /// host use either). Neither is no.
    StructuredContent {
        id: "affordances.structured_content", area: Affordances, title: "content or structuredContent reaches the model",
        revisions: ["2025-06-18"], eras: BOTH, serves: "probe_progress: content and structuredContent",
        judge: judge_structured_content, needs_model: true,
    }
}

fn judge_structured_content(o: &Observations) -> Verdict {
    let Some((call, _, _)) = o.model_calls().find(|(_, tool, _)| names_tool(tool, s::TOOL_PROGRESS)) else {
        return Verdict::new(Outcome::NotReached, "the model never called probe_progress");
    };
    let after = |needle: &'static str| o.model_views().filter(move |(seq, _)| *seq > call).find(move |(_, v)| {
        v.get("tool_results").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).any(|r| r.contains(needle))
    });
    let content = after("progress notifications").or_else(|| after("no progressToken"));
    let structured = after(s::STRUCTURED_CANARY);
    match (content, structured) {
        (Some((seq, _)), Some(_)) => Verdict::new(Outcome::Yes, "the model sees content and structuredContent").evidence([call, seq]),
        (Some((seq, _)), None) => Verdict::new(Outcome::Yes, "the model sees content only").evidence([call, seq]),
        (None, Some((seq, _))) => Verdict::new(Outcome::Yes, "the model sees structuredContent only").evidence([call, seq]),
        (None, None) => Verdict::new(Outcome::No, "the model saw neither").evidence([call]),
    }
}
