//! The model's script, independent of dialect: which tool to call at each step, chosen from the
//! tool catalogue the host offered and the number of tool results already in the request, so a
//! retried request replays the same step.

use probe_server::host_tools::{self, has_property, HostTool};
use probe_server::sized;
use probe_server::surface as s;
use serde_json::{json, Value};

/// The MCP server name the runner gives the probe server in every client's configuration.
pub const SERVER_NAME: &str = "probe";

pub use probe_server::host_tools::{ModelStep as Step, OfferedTool};

/// Every function in a request's `tools`, a namespace entry (`{"name", "tools": [...]}`) giving its
/// name to the functions inside it; `function` reads one entry in the dialect's shape.
pub fn grouped_tools(body: &Value, function: impl Fn(&Value, Option<&str>) -> Option<OfferedTool>) -> Vec<OfferedTool> {
    let mut tools = Vec::new();
    for entry in body["tools"].as_array().into_iter().flatten() {
        match entry["tools"].as_array() {
            Some(inner) => tools.extend(inner.iter().filter_map(|t| function(t, entry["name"].as_str()))),
            None => tools.extend(function(entry, None)),
        }
    }
    tools
}

/// How much of the script the model plays in a run. The server variants other than the standard
/// one judge only what a host does with resources, skills and its own connection, so there the
/// model uses the MCP-related host tools and finishes without calling the probe tools (whose
/// asks can hold a host up for many seconds without being judged there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    #[default]
    Full,
    ResourcesOnly,
    /// As `ResourcesOnly`, with the finishing reply held back [`SETTLE_MS`]: in the stream-drop
    /// variant the host gets a settled time in which to reconnect the stream the server dropped,
    /// instead of ending its run as soon as its model is done.
    ResourcesThenSettle,
    /// The large-results variant: the model asks `probe_large_result` for 10 KB, then for each
    /// larger size only while the last one reached it whole to its last line, then finishes.
    SizedResults,
    /// The tool-names variant: the model calls each tool named at an edge of the rules (found by
    /// its schema's marker property, whatever name the host shows), then finishes.
    EdgeNames,
    /// The long-calls variant: the model calls the slow call, then the call that never answers,
    /// then finishes (once the host gives up on it, if it ever does).
    LongCalls,
    /// The apps variant: the model calls `probe_app_view` once (never the tool for the view
    /// alone, never a resource tool: whatever reads the view or reports from it is the host's
    /// doing), and its finishing reply is held back [`SETTLE_MS`] so that a host that runs the
    /// view has a settled time in which the view can report.
    Apps,
    /// The tasks variant: the model calls each task tool in turn (`probe_server::tasks`), then
    /// finishes; what follows a task is the host's doing.
    Tasks,
    /// The stateless variants: the model calls `probe_stateless` once, then finishes.
    Stateless,
    /// The auth variants: the model calls `probe_auth_whoami`, then `probe_auth_write`, then
    /// finishes (what happens to the tokens is the host's doing).
    Auth,
    /// As `Auth`, with the first call held back past an access token's lifetime (auth-refresh):
    /// a host that signed in at its start must then renew its token.
    AuthRefresh,
}

impl Scope {
    /// The scope of a run against `variant`.
    pub fn for_variant(variant: probe_server::Variant) -> Scope {
        if variant.is_standard() || variant.is_interactive() {
            Scope::Full
        } else if variant == probe_server::Variant::StreamDrop {
            Scope::ResourcesThenSettle
        } else if variant == probe_server::Variant::LargeResults {
            Scope::SizedResults
        } else if variant == probe_server::Variant::ToolNames {
            Scope::EdgeNames
        } else if variant == probe_server::Variant::LongCalls {
            Scope::LongCalls
        } else if variant == probe_server::Variant::Apps {
            Scope::Apps
        } else if variant == probe_server::Variant::Tasks {
            Scope::Tasks
        } else if variant.is_stateless() {
            Scope::Stateless
        } else if variant == probe_server::Variant::AuthRefresh {
            Scope::AuthRefresh
        } else if variant.is_auth() {
            Scope::Auth
        } else {
            Scope::ResourcesOnly
        }
    }
}

/// The probe tools the model calls, in order.
pub const PROBE_TOOLS: [&str; 12] = s::TRIGGER_TOOLS;

pub const FINAL_TEXT: &str = "mcp-client-probe: script complete";

pub use probe_server::host_tools::names_tool;

/// How long the stub holds back its reply to the request that carries the trigger's result
/// (`probe_list_changed`): the host gets this quiet time to refetch its lists before its next
/// model turn. The list_changed judges require it in the model journal before they blame a host.
pub use probe_server::probes::opportunity::SETTLE_MS;

/// The city the model asks the sampling tool about.
pub const SAMPLING_CITY: &str = "Paris";

fn kind(t: &OfferedTool) -> HostTool {
    host_tools::classify(&t.name, &t.schema)
}

fn offered(catalogue: &[OfferedTool], wanted: HostTool) -> Option<&OfferedTool> {
    catalogue.iter().find(|t| kind(t) == wanted)
}

fn with_server(schema: &Value, mut arguments: Value) -> Value {
    if has_property(schema, "server") {
        arguments["server"] = json!(SERVER_NAME);
    } else if has_property(schema, "server_name") {
        arguments["server_name"] = json!(SERVER_NAME);
    }
    arguments
}

/// Whether a bare name (no schema yet) is one the script wants.
fn wanted_name(name: &str) -> bool {
    s::tool_names().iter().any(|p| names_tool(name, p)) || probe_server::edge_names::may_name(name) || HostTool::MCP_RELATED.contains(&host_tools::classify_bare(name))
}

/// [`wanted_name`], remembered for the words seen before: a conversation's every request
/// repeats the words of the one before, and every run of a process speaks the same script. At
/// most [`WANTED_MEMO_SIZE`] words are remembered; past that a word is weighed afresh.
fn wanted_name_remembered(name: &str) -> bool {
    use std::collections::HashMap;
    use std::sync::{LazyLock, Mutex};
    static MEMO: LazyLock<Mutex<HashMap<String, bool>>> = LazyLock::new(Mutex::default);
    if let Some(&wanted) = MEMO.lock().unwrap_or_else(|p| p.into_inner()).get(name) {
        return wanted;
    }
    let wanted = wanted_name(name);
    let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
    if memo.len() < WANTED_MEMO_SIZE {
        memo.insert(name.to_string(), wanted);
    }
    wanted
}

/// How many words [`wanted_name_remembered`] keeps at most (a few MiB).
const WANTED_MEMO_SIZE: usize = 100_000;

/// What the script reads from a request's text besides its catalogue, read once per request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cues {
    /// The first `probe://linked/…` URI a tool result handed back ([`linked_uri`]).
    pub linked: Option<String>,
    /// The skills directory the prompt names ([`skills_dir`]).
    pub skills_dir: Option<String>,
    /// The one probe tool the prompt asks for ([`only_tool`]).
    pub only: Option<String>,
    /// How many of the sized results, smallest first, reached the model down to their last line.
    pub sized_ends: usize,
    /// The probe server's connectors a code-mode host's search named ([`probe_connectors`]).
    pub connectors: Vec<String>,
}

impl Cues {
    /// The cues of a request: those in its text outside the tool catalogue.
    #[cfg(test)]
    pub fn of(body: &Value) -> Cues {
        Cues::read(&super::view::RequestText::of(body).context)
    }

    /// The cues in the text of a request (its JSON as a string).
    pub fn read(text: &str) -> Cues {
        let sized_ends = probe_server::sized::SIZES.iter().take_while(|&&size| probe_server::sized::holds_end(text, size)).count();
        Cues { linked: linked_uri(text), skills_dir: skills_dir(text), only: only_tool(text), sized_ends, connectors: probe_connectors(text) }
    }
}

/// The connectors a code-mode host's search named (`<name>…</name>` in its guidance) that hold
/// the probe server's functions, in order, each once.
pub fn probe_connectors(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for piece in text.split("<name>").skip(1) {
        let Some((name, _)) = piece.split_once("</name>") else { continue };
        if name.contains(SERVER_NAME) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') && !found.iter().any(|f| f == name) {
            found.push(name.to_string());
        }
    }
    found
}

/// The first `probe://linked/…` URI a tool result handed back, if any reached the model.
pub fn linked_uri(text: &str) -> Option<String> {
    let start = text.find(s::LINK_PREFIX)?;
    let rest = &text[start + s::LINK_PREFIX.len()..];
    let id: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
    (!id.is_empty()).then(|| format!("{}{id}", s::LINK_PREFIX))
}

/// Wanted tool names that appear in the request's text (outside the catalogue), sorted.
pub fn mentioned_tools(body: &Value) -> Vec<String> {
    // A conversation repeats its words (and a picture's base64 splits into many): each distinct
    // token is weighed once.
    fn walk<'a>(value: &'a Value, seen: &mut std::collections::HashSet<&'a str>, found: &mut std::collections::BTreeSet<&'a str>) {
        match value {
            Value::String(text) => {
                // Dots belong to a name (`probe.dotted.name`), not at its end (a sentence's).
                for token in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')).map(|t| t.trim_matches('.')) {
                    if !token.is_empty() && seen.insert(token) && wanted_name_remembered(token) {
                        found.insert(token);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, seen, found)),
            Value::Object(map) => map.iter().filter(|(k, _)| k.as_str() != "tools").for_each(|(_, v)| walk(v, seen, found)),
            _ => {}
        }
    }
    let (mut seen, mut found) = Default::default();
    walk(body, &mut seen, &mut found);
    found.into_iter().map(str::to_string).collect()
}

/// A tool declaration's input schema, under whichever name its dialect gives it (null if none).
pub fn schema_of(declaration: &Value) -> Value {
    ["input_schema", "parameters", "parametersJsonSchema", "inputSchema"].iter().find_map(|k| declaration.get(*k)).cloned().unwrap_or(Value::Null)
}

/// A code-mode host's function search and code runner (its model calls tools from code it writes
/// for the runner, a tool that runs the program its `code` parameter holds, finding them first
/// with a search that ranks function names), when it offers both and declares no probe tool to
/// the model itself.
fn code_mode(catalogue: &[OfferedTool]) -> Option<(&OfferedTool, &OfferedTool)> {
    let modes = |t: &OfferedTool| t.schema.pointer("/properties/mode/enum").and_then(Value::as_array).is_some_and(|m| m.iter().any(|v| v == "best_match"));
    let search = offered(catalogue, HostTool::ToolSearch).filter(|t| modes(t))?;
    let runner = catalogue.iter().find(|t| t.name.to_ascii_lowercase().contains("run_") && has_property(&t.schema, "code"))?;
    let declared = |t: &OfferedTool| t.via.is_none() && s::tool_names().iter().any(|p| names_tool(&t.name, p));
    (!catalogue.iter().any(declared)).then_some((search, runner))
}

/// The functions a code-mode host's search named (`connector.function`, among `mentioned`),
/// each offered through the catalogue's code runner (none without one).
pub fn coded(mentioned: &[String], catalogue: &[OfferedTool]) -> Vec<OfferedTool> {
    let Some((_, runner)) = code_mode(catalogue) else { return Vec::new() };
    mentioned
        .iter()
        .filter(|m| m.split_once('.').is_some_and(|(group, function)| !group.is_empty() && !function.is_empty()))
        .filter(|m| !catalogue.iter().any(|t| &t.name == *m))
        .map(|name| OfferedTool { name: name.clone(), namespace: None, schema: Value::Null, via: Some(runner.name.clone()) })
        .collect()
}

/// The program a code-mode host runs for one call: an `async function main()` (the host's sandbox
/// calls it, and shows the model what it returns) that calls the function under
/// `tools.<connector>` with its arguments and returns the result whole. A program of top-level
/// statements also makes the call in Mistral Vibe's sandbox, but the run then fails for want of
/// `main`, and the model reads the result inside that failure.
pub fn program(function: &str, arguments: &Value) -> String {
    let (group, name) = function.split_once('.').unwrap_or(("", function));
    let quoted = |s: &str| serde_json::to_string(s).unwrap_or_default();
    format!("async function main() {{\n  return await tools[{}][{}]({});\n}}", quoted(group), quoted(name), arguments)
}

/// Whether a tool is a proxy that calls a deferred tool by name: `{"name", "arguments"}` in its
/// schema and "call" in its name.
fn is_proxy(tool: &OfferedTool) -> bool {
    tool.name.to_ascii_lowercase().contains("call") && has_property(&tool.schema, "name") && has_property(&tool.schema, "arguments")
}

/// Tool declarations a tool search handed back as text (`<function>{…}</function>`), in order.
fn declarations_in_text(body: &Value) -> Vec<Value> {
    fn walk(value: &Value, found: &mut Vec<Value>) {
        match value {
            Value::String(text) => {
                let mut rest = text.as_str();
                while let Some(start) = rest.find("<function>") {
                    let after = &rest[start + "<function>".len()..];
                    let Some(end) = after.find("</function>") else { break };
                    if let Ok(declaration) = serde_json::from_str::<Value>(&after[..end]) {
                        found.push(declaration);
                    }
                    rest = &after[end..];
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
            Value::Object(map) => map.iter().filter(|(k, _)| k.as_str() != "tools").for_each(|(_, v)| walk(v, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(body, &mut found);
    found
}

/// The deferred tools a host lets the model call only through a proxy tool: every wanted tool
/// whose declaration a search returned in the conversation and that the catalogue does not
/// declare itself, offered through the catalogue's proxy or code runner (none without one).
pub fn proxied(body: &Value, catalogue: &[OfferedTool]) -> Vec<OfferedTool> {
    proxied_declarations(body, catalogue).into_iter().map(|(tool, _)| tool).collect()
}

/// [`proxied`], each tool with the declaration the search returned.
pub fn proxied_declarations(body: &Value, catalogue: &[OfferedTool]) -> Vec<(OfferedTool, Value)> {
    // A code-mode host's runner runs a program that calls the function a search declared.
    let Some(proxy) = catalogue.iter().find(|t| is_proxy(t)).or_else(|| code_mode(catalogue).map(|(_, runner)| runner)) else { return Vec::new() };
    let mut tools: Vec<(OfferedTool, Value)> = Vec::new();
    for declaration in declarations_in_text(body) {
        let Some(name) = declaration["name"].as_str() else { continue };
        if !wanted_name(name) || catalogue.iter().chain(tools.iter().map(|(t, _)| t)).any(|t| t.name == name) {
            continue;
        }
        let tool = OfferedTool { name: name.to_string(), namespace: None, schema: schema_of(&declaration), via: Some(proxy.name.clone()) };
        tools.push((tool, declaration));
    }
    tools
}

/// A step as the host must receive it: a call of a proxied tool becomes a call of its proxy
/// naming the tool and carrying its arguments, and one of a code-mode function a program for the
/// code runner that calls it ([`program`]).
pub fn on_the_wire(step: &Step, catalogue: &[OfferedTool]) -> Step {
    match step {
        Step::Call { tool, arguments, purpose } => match tool.via.as_deref().and_then(|via| catalogue.iter().find(|t| t.name == via)) {
            Some(runner) if has_property(&runner.schema, "code") => {
                Step::Call { tool: runner.clone(), arguments: json!({"code": program(&tool.name, arguments)}), purpose: purpose.clone() }
            }
            Some(proxy) => Step::Call { tool: proxy.clone(), arguments: json!({"name": tool.name, "arguments": arguments}), purpose: purpose.clone() },
            None => step.clone(),
        },
        Step::Finish { .. } => step.clone(),
    }
}

/// The skills directory the prompt names (`--skills-dir DIR`), if any: the skills variants'
/// prompt for hosts that install skills through a slash command.
pub fn skills_dir(text: &str) -> Option<String> {
    let rest = &text[text.find("--skills-dir ")? + "--skills-dir ".len()..];
    let dir: String = rest.chars().take_while(|c| !c.is_whitespace() && !matches!(c, '"' | '\\' | '\'')).collect();
    (!dir.is_empty()).then_some(dir)
}

/// The skills the model asks the host to install, in order: the good one, the one the
/// instructions name, each hostile one and both twins — never the idle one.
pub fn skills_to_install() -> Vec<String> {
    use probe_server::skills as k;
    let mut uris = vec![k::skill_uri(k::GOOD), k::HIDDEN_URI.to_string()];
    uris.extend(k::HOSTILE.iter().map(|(name, _)| k::skill_uri(name)));
    uris.extend(k::TWIN_URIS.iter().map(|u| u.to_string()));
    uris
}

/// The one probe tool the prompt asks for (`--only-tool NAME`), if any: interactive runs call a
/// single tool per run so that each run shows the person exactly one form.
pub fn only_tool(text: &str) -> Option<String> {
    let rest = &text[text.find(ONLY_TOOL_FLAG)? + ONLY_TOOL_FLAG.len()..];
    let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    PROBE_TOOLS.contains(&name.as_str()).then_some(name)
}

/// The prompt marker that restricts the script to one probe tool.
pub const ONLY_TOOL_FLAG: &str = "--only-tool ";

/// The whole script for this catalogue. `mentioned` are wanted tools the host named in text:
/// when it offers a tool-search tool, the first step loads them. With a slash-command tool and a
/// skills directory in the prompt, the script installs the probe server's skills instead. A
/// catalogue that offers the sampling tool is a sampling request the host forwarded: the model
/// calls that tool once, then answers.
pub fn plan(catalogue: &[OfferedTool], mentioned: &[String], cues: &Cues, scope: Scope) -> Vec<Step> {
    let (linked, skills_dir, only) = (cues.linked.as_deref(), cues.skills_dir.as_deref(), cues.only.as_deref());
    let mut steps = Vec::new();
    let call = |tool: &OfferedTool, arguments: Value, purpose: &str| Step::Call { tool: tool.clone(), arguments, purpose: purpose.to_string() };
    let finish = || Step::Finish { text: FINAL_TEXT.into() };
    if let Some(weather) = catalogue.iter().find(|t| names_tool(&t.name, s::SAMPLING_TOOL_NAME)) {
        return vec![call(weather, json!({"city": SAMPLING_CITY}), "use the tool the sampling request offers"), finish()];
    }
    if let Some(only) = only {
        let deferred: Vec<&String> = mentioned.iter().filter(|m| names_tool(m, only)).collect();
        if let (Some(search), Some(name)) = (offered(catalogue, HostTool::ToolSearch), deferred.first()) {
            steps.push(call(search, json!({"query": format!("select:{name}"), "max_results": 1}), "load the deferred tool"));
        }
        if let Some(tool) = catalogue.iter().find(|t| names_tool(&t.name, only)) {
            steps.push(call(tool, json!({}), &format!("call {only} alone")));
        }
        steps.push(finish());
        return steps;
    }
    if let (Some(slash), Some(dir)) = (offered(catalogue, HostTool::SlashCommand), skills_dir) {
        steps.push(call(slash, json!({"command": format!("/skills registry {SERVER_NAME}")}), "choose the probe server as skills registry"));
        for uri in skills_to_install() {
            steps.push(call(slash, json!({"command": format!("/skills add {uri} --registry {SERVER_NAME} --skills-dir {dir}")}), &format!("install {uri}")));
        }
        steps.push(finish());
        return steps;
    }
    if let Some((search, _)) = code_mode(catalogue) {
        // Code mode: rank the functions by the server's name, list the rest of its connector's
        // when the ranking was cut short, then read the declarations of those found.
        steps.push(call(search, json!({"mode": "best_match", "query": SERVER_NAME}), "find the probe server's functions"));
        if !cues.connectors.is_empty() {
            steps.push(call(search, json!({"mode": "all_connector_capabilities", "connectors": cues.connectors}), "list every function of the probe server's connector"));
        }
        let functions: Vec<&String> = mentioned.iter().filter(|m| m.contains('.')).collect();
        // As many names per call as the search's schema allows (Mistral Vibe takes 10).
        let most = search.schema.pointer("/properties/functions/maxItems").and_then(Value::as_u64).map_or(functions.len(), |m| m as usize);
        for names in functions.chunks(most.max(1)) {
            steps.push(call(search, json!({"mode": "details", "functions": names}), "read the functions' declarations"));
        }
    } else if let Some(search) = offered(catalogue, HostTool::ToolSearch).filter(|_| !mentioned.is_empty()) {
        // As many names per search as the search tool's schema allows (one host caps it at 20).
        let most = search.schema.pointer("/properties/max_results/maximum").and_then(Value::as_f64).map_or(mentioned.len(), |m| (m as usize).max(1));
        for names in mentioned.chunks(most) {
            steps.push(call(search, json!({"query": format!("select:{}", names.join(",")), "max_results": names.len()}), "load deferred tools"));
        }
    }
    if scope == Scope::EdgeNames {
        for edge in probe_server::edge_names::EDGE_TOOLS {
            if let Some(tool) = catalogue.iter().find(|t| has_property(&t.schema, edge.marker)) {
                steps.push(call(tool, json!({}), &format!("call the tool named with {}", edge.what)));
            }
        }
        steps.push(finish());
        return steps;
    }
    // The variants whose model calls a few named tools in order, then finishes.
    let named: Vec<(&str, Value, String)> = match scope {
        // The call that never answers first: while the slow one runs, the server can see what
        // the host did when it gave up (a host that ends its run right after its last call
        // would otherwise close everything at once).
        Scope::LongCalls => vec![
            (probe_server::long_calls::TOOL_STALL, json!({}), "call the tool that never answers".into()),
            (probe_server::long_calls::TOOL_SLOW, json!({}), "call the slow tool that reports progress".into()),
        ],
        Scope::Tasks => probe_server::tasks::TASK_TOOLS.iter().map(|tool| (*tool, json!({}), format!("call {tool}, which runs as a task"))).collect(),
        Scope::Apps => vec![(probe_server::apps::TOOL_APP_VIEW, json!({"topic": "apps"}), "call the tool that has a view".into())],
        Scope::Stateless => vec![(probe_server::stateless::TOOL_STATELESS, json!({}), "call the tool of the server that keeps no session".into())],
        Scope::Auth | Scope::AuthRefresh => vec![
            (probe_server::auth::TOOL_WHOAMI, json!({}), "call the tool that needs a token".into()),
            (probe_server::auth::TOOL_WRITE, json!({"note": "probe"}), "call the tool that needs the write scope".into()),
        ],
        _ => Vec::new(),
    };
    if !named.is_empty() {
        for (tool, arguments, purpose) in named {
            if let Some(offered) = catalogue.iter().find(|t| names_tool(&t.name, tool)) {
                steps.push(call(offered, arguments, &purpose));
            }
        }
        steps.push(finish());
        return steps;
    }
    if scope == Scope::SizedResults {
        if let Some(large) = catalogue.iter().find(|t| names_tool(&t.name, sized::TOOL_LARGE_RESULT)) {
            for &size in sized::SIZES.iter().take(cues.sized_ends + 1) {
                steps.push(call(large, json!({"bytes": size}), &format!("ask for a result of {size} bytes")));
            }
        }
        steps.push(finish());
        return steps;
    }
    if let Some(list) = offered(catalogue, HostTool::ResourceList) {
        steps.push(call(list, with_server(&list.schema, json!({})), "list resources"));
    }
    if let Some(templates) = offered(catalogue, HostTool::TemplateList) {
        steps.push(call(templates, with_server(&templates.schema, json!({})), "list resource templates"));
    }
    let read = offered(catalogue, HostTool::ResourceRead);
    if let Some(read) = read {
        for (uri, purpose) in [
            (s::TEXT_URI.to_string(), "read the text resource"),
            (s::BLOB_URI.to_string(), "read the binary resource"),
            (format!("{}42", s::TEMPLATE_PREFIX), "read a templated URI"),
        ] {
            steps.push(call(read, with_server(&read.schema, json!({"uri": uri})), purpose));
        }
        if scope == Scope::Full {
            steps.push(call(read, with_server(&read.schema, json!({"uri": s::MISSING_URI})), "read a URI the server has no resource for"));
        }
    }
    if let Some(directory) = offered(catalogue, HostTool::DirectoryRead) {
        let root = probe_server::skills::skill_root(&probe_server::skills::skill_uri(probe_server::skills::GOOD)).to_string();
        steps.push(call(directory, with_server(&directory.schema, json!({"uri": root})), "list the good skill's directory"));
    }
    if let Some(prompts) = offered(catalogue, HostTool::PromptList) {
        steps.push(call(prompts, with_server(&prompts.schema, json!({})), "list prompts"));
    }
    if let Some(prompt) = offered(catalogue, HostTool::PromptGet) {
        steps.push(call(prompt, with_server(&prompt.schema, json!({"name": s::PROMPT, "arguments": {s::PROMPT_ARGUMENT: "probe"}})), "get the prompt"));
    }
    // The result tools come before the trigger of list_changed (what a host does after that
    // trigger keeps its timing), the JSON-RPC error last (some hosts restart their server on one).
    let (rpc_error, results) = s::RESULT_TOOLS.split_last().expect("result tools");
    let call_results = |tools: &[&str], steps: &mut Vec<Step>| {
        for tool in tools {
            if let Some(offered) = catalogue.iter().find(|t| names_tool(&t.name, tool)) {
                steps.push(call(offered, s::arguments_for(tool), &format!("call {tool} for its result")));
            }
        }
    };
    for probe in PROBE_TOOLS.iter().filter(|_| scope == Scope::Full) {
        if *probe == s::TOOL_LIST_CHANGED {
            call_results(results, &mut steps);
        }
        let Some(tool) = catalogue.iter().find(|t| names_tool(&t.name, probe)) else { continue };
        steps.push(call(tool, json!({}), &format!("call {probe}")));
        if let (true, Some(read)) = (*probe == s::TOOL_RESOURCE_LINK, read) {
            let uri = linked.map_or_else(|| format!("{}unknown", s::LINK_PREFIX), str::to_string);
            steps.push(call(read, with_server(&read.schema, json!({"uri": uri})), "read the linked resource"));
        }
        if *probe == s::TOOL_LIST_CHANGED {
            // The reply to this step's request is held back SETTLE_MS: the host's next turn comes
            // after a quiet time in which it may refetch, and may then offer the new tool.
            if let Some(ping) = catalogue.iter().find(|t| names_tool(&t.name, s::TOOL_PING)) {
                steps.push(call(ping, json!({}), SETTLE_PURPOSE));
            }
            if let Some(added) = catalogue.iter().find(|t| names_tool(&t.name, s::TOOL_ADDED)) {
                steps.push(call(added, json!({}), "call the tool that appeared after the lists changed"));
            }
            // A host that lists resources and prompts only when its model asks refetches them
            // only then: the model asks again.
            for (kind, what) in [(HostTool::ResourceList, "list resources again after the lists changed"), (HostTool::PromptList, "list prompts again after the lists changed")] {
                if let Some(list) = offered(catalogue, kind) {
                    steps.push(call(list, with_server(&list.schema, json!({})), what));
                }
            }
        }
    }
    if scope == Scope::Full {
        call_results(&[*rpc_error], &mut steps);
        // One more call, to see whether the session outlived the error.
        if let Some(ping) = catalogue.iter().find(|t| names_tool(&t.name, s::TOOL_PING)).filter(|_| catalogue.iter().any(|t| names_tool(&t.name, rpc_error))) {
            steps.push(call(ping, json!({}), "call probe_ping after the JSON-RPC error"));
        }
    }
    steps.push(finish());
    steps
}

/// How long the stub holds its first reply back in auth-refresh: an access token's lifetime and
/// one second more.
pub const AUTH_REFRESH_HOLD_MS: u64 = probe_server::auth::SHORT_TOKEN_LIFETIME.as_millis() as u64 + 1_000;

/// The purpose of the settled turn after the lists changed.
pub const SETTLE_PURPOSE: &str = "a settled turn after the lists changed";

/// How long the stub holds a reply back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// Not at all.
    None,
    /// A settled turn: the stub's settle time ([`SETTLE_MS`] for every real client).
    Settle,
    /// This many milliseconds.
    Ms(u64),
}

impl Hold {
    /// The hold in milliseconds, for a stub that settles `settle_ms`.
    pub fn ms(self, settle_ms: u64) -> u64 {
        match self {
            Hold::None => 0,
            Hold::Settle => settle_ms,
            Hold::Ms(ms) => ms,
        }
    }
}

/// How long to hold back the reply to the request that carries `results` tool results: a settled
/// turn after the tool that changes the tool list, and before the finish of a run that settles.
fn hold_back(steps: &[Step], scope: Scope, results: usize) -> Hold {
    let previous = results.checked_sub(1).and_then(|i| steps.get(i));
    let finishing = matches!(steps.get(results.min(steps.len() - 1)), Some(Step::Finish { .. }));
    match previous {
        Some(Step::Call { tool, .. }) if names_tool(&tool.name, s::TOOL_LIST_CHANGED) => Hold::Settle,
        _ if finishing && matches!(scope, Scope::ResourcesThenSettle | Scope::Apps) => Hold::Settle,
        // The first call of auth-refresh comes after the token the host signed in with expired.
        None if scope == Scope::AuthRefresh => Hold::Ms(AUTH_REFRESH_HOLD_MS),
        _ => Hold::None,
    }
}

/// The step for a request that already carries `results` tool results, and how long to hold its
/// reply back (ms).
pub fn next(catalogue: &[OfferedTool], mentioned: &[String], cues: &Cues, scope: Scope, results: usize) -> (Step, Hold) {
    let mut steps = plan(catalogue, mentioned, cues, scope);
    let hold = hold_back(&steps, scope, results);
    let last = steps.len() - 1;
    (steps.swap_remove(results.min(last)), hold)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, schema: Value) -> OfferedTool {
        OfferedTool { name: name.into(), namespace: None, schema, via: None }
    }

    #[test]
    fn a_code_mode_host_gets_its_functions_found_declared_and_called_from_programs() {
        let search = tool(
            "search_tool_functions",
            json!({"properties": {"mode": {"enum": ["best_match", "details", "all_connector_capabilities"]}, "query": {}, "functions": {"maxItems": 2}}}),
        );
        let runner = tool("run_typescript", json!({"properties": {"code": {"type": "string"}}}));
        let catalogue = vec![search.clone(), runner];
        // Nothing found yet: the first step ranks the functions by the server's name.
        let first = plan(&catalogue, &[], &Cues::default(), Scope::Full);
        assert!(matches!(&first[0], Step::Call { tool, arguments, .. } if tool.name == "search_tool_functions" && arguments["mode"] == "best_match"));
        let text = "1. mcp_probe.probe_ping\n2. mcp_probe.probe_fault\n3. mcp_probe.probe_image\n<connector><name>mcp_probe</name></connector>";
        let cues = Cues::read(text);
        assert_eq!(cues.connectors, vec!["mcp_probe".to_string()]);
        let mentioned: Vec<String> = ["mcp_probe.probe_fault", "mcp_probe.probe_image", "mcp_probe.probe_ping"].map(String::from).to_vec();
        let mut offered = catalogue.clone();
        offered.extend(coded(&mentioned, &catalogue));
        assert!(offered.iter().filter(|t| t.via.as_deref() == Some("run_typescript")).count() == 3);
        let steps = plan(&offered, &mentioned, &cues, Scope::Full);
        let modes: Vec<&str> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Call { tool, arguments, .. } if tool.name == "search_tool_functions" => arguments["mode"].as_str(),
                _ => None,
            })
            .collect();
        // Ranked, the connector listed, then the declarations two at a time (the schema's maxItems).
        assert_eq!(modes, ["best_match", "all_connector_capabilities", "details", "details"]);
        let ping = steps.iter().find(|s| matches!(s, Step::Call { tool, .. } if tool.name == "mcp_probe.probe_ping")).expect("probe_ping called");
        let Step::Call { tool: runner_called, arguments, .. } = on_the_wire(ping, &offered) else { panic!("a call") };
        assert_eq!(runner_called.name, "run_typescript");
        assert_eq!(arguments["code"], program("mcp_probe.probe_ping", &json!({})));
        assert!(arguments["code"].as_str().unwrap().starts_with("async function main() {\n  return await tools[\"mcp_probe\"][\"probe_ping\"]({});"));
        // A host that declares probe tools itself is no code-mode host, whatever else it offers.
        let mut declaring = catalogue.clone();
        declaring.push(tool("mcp__probe__probe_ping", json!({})));
        assert!(coded(&mentioned, &declaring).is_empty());
    }

    #[test]
    fn tools_a_search_returned_are_called_through_the_hosts_proxy() {
        let proxy_schema = json!({"type": "object", "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}}});
        let catalogue = vec![tool("tool_search", json!({"type": "object", "properties": {"query": {"type": "string"}}})), tool("tool_call", proxy_schema)];
        let found = format!(
            "<functions>\n<function>{}</function>\n<function>{}</function>\n</functions>",
            json!({"name": "mcp__probe__probe_ping", "parametersJsonSchema": {"type": "object"}}),
            json!({"name": "write_file", "parameters": {}})
        );
        let body = json!({"messages": [{"role": "user", "content": [{"type": "tool_result", "content": found}]}]});
        let through = proxied(&body, &catalogue);
        assert_eq!(through.len(), 1, "only wanted tools: {through:?}");
        assert_eq!((through[0].name.as_str(), through[0].via.as_deref()), ("mcp__probe__probe_ping", Some("tool_call")));
        let step = Step::Call { tool: through[0].clone(), arguments: json!({}), purpose: "p".into() };
        let Step::Call { tool, arguments, .. } = on_the_wire(&step, &catalogue) else { panic!("a call") };
        assert_eq!(tool.name, "tool_call");
        assert_eq!(arguments, json!({"name": "mcp__probe__probe_ping", "arguments": {}}));
        assert!(proxied(&body, &catalogue[..1]).is_empty(), "no proxy, nothing offered through one");
    }

    #[test]
    fn the_script_uses_resource_tools_then_probe_tools_then_finishes() {
        let catalogue = vec![
            tool("ReadMcpResourceDirTool", json!({"properties": {"uri": {}}})),
            tool("ReadMcpResourceTool", json!({"properties": {"server": {}, "uri": {}}})),
            tool("ListMcpResourcesTool", json!({"properties": {"server": {}}})),
            tool("mcp__probe__probe_sampling_tools", json!({})),
            tool("mcp__probe__probe_sampling", json!({})),
            tool("Bash", json!({})),
        ];
        let steps = plan(&catalogue, &[], &Cues::default(), Scope::Full);
        let calls: Vec<String> = steps
            .iter()
            .map(|s| match s {
                Step::Call { tool, arguments, .. } => format!("{} {arguments}", tool.name),
                Step::Finish { .. } => "finish".into(),
            })
            .collect();
        assert_eq!(
            calls,
            vec![
                r#"ListMcpResourcesTool {"server":"probe"}"#.to_string(),
                r#"ReadMcpResourceTool {"server":"probe","uri":"probe://text/canary"}"#.into(),
                r#"ReadMcpResourceTool {"server":"probe","uri":"probe://blob/bytes"}"#.into(),
                r#"ReadMcpResourceTool {"server":"probe","uri":"probe://items/42"}"#.into(),
                r#"ReadMcpResourceTool {"server":"probe","uri":"probe://missing/nothing-here"}"#.into(),
                r#"ReadMcpResourceDirTool {"uri":"skill://probe/probe-good"}"#.into(),
                r#"mcp__probe__probe_sampling {}"#.into(),
                r#"mcp__probe__probe_sampling_tools {}"#.into(),
                "finish".into(),
            ]
        );
        assert_eq!(next(&catalogue, &[], &Cues::default(), Scope::Full, 99).0, Step::Finish { text: FINAL_TEXT.into() });
        assert_eq!(next(&catalogue, &[], &Cues::default(), Scope::Full, 4).0, steps[4]);
    }

    #[test]
    fn deferred_tools_named_in_text_are_loaded_first() {
        let body = json!({
            "messages": [{"role": "user", "content": "Deferred:\nmcp__probe__probe_ping\nReadMcpResourceTool\nWebFetch"}],
            "tools": [{"name": "mcp__probe__probe_roots"}]
        });
        let mentioned = mentioned_tools(&body);
        assert_eq!(mentioned, vec!["ReadMcpResourceTool".to_string(), "mcp__probe__probe_ping".into()]);
        let catalogue = vec![tool("ToolSearch", json!({"properties": {"query": {}}}))];
        match &plan(&catalogue, &mentioned, &Cues::default(), Scope::Full)[0] {
            Step::Call { tool, arguments, .. } => {
                assert_eq!(tool.name, "ToolSearch");
                assert_eq!(arguments["query"], "select:ReadMcpResourceTool,mcp__probe__probe_ping");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn deferred_tools_are_loaded_in_as_many_searches_as_the_search_tool_allows() {
        let mentioned: Vec<String> = ["a", "b", "c", "d", "e"].iter().map(|n| format!("mcp__probe__probe_{n}")).collect();
        let catalogue = vec![tool("ToolSearch", json!({"properties": {"query": {}, "max_results": {"type": "integer", "maximum": 2}}}))];
        let searches: Vec<Value> = plan(&catalogue, &mentioned, &Cues::default(), Scope::Full)
            .into_iter()
            .filter_map(|step| match step {
                Step::Call { tool, arguments, .. } if tool.name == "ToolSearch" => Some(arguments),
                _ => None,
            })
            .collect();
        assert_eq!(searches.len(), 3, "{searches:?}");
        assert_eq!(searches[2]["query"], "select:mcp__probe__probe_e");
        assert!(searches.iter().all(|s| s["max_results"].as_u64().is_some_and(|m| m <= 2)));
    }

    #[test]
    fn a_linked_uri_in_a_tool_result_is_read_after_the_link_tool() {
        let catalogue = vec![tool("read_resource", json!({"properties": {"uri": {}}})), tool("probe_resource_link", json!({}))];
        let body = json!({"messages": [{"role": "tool", "content": "see probe://linked/7 please"}]});
        let cues = Cues::of(&body);
        assert_eq!(cues.linked.as_deref(), Some("probe://linked/7"));
        let steps = plan(&catalogue, &[], &cues, Scope::Full);
        assert!(matches!(&steps[5], Step::Call { arguments, .. } if arguments["uri"] == "probe://linked/7"), "{steps:?}");
    }

    #[test]
    fn a_slash_command_tool_and_a_skills_dir_install_every_skill_but_the_idle_one() {
        let body = json!({"messages": [{"role": "user", "content": "Install the skills with --skills-dir /tmp/x/skills please"}]});
        let cues = Cues::of(&body);
        assert_eq!(cues.skills_dir.as_deref(), Some("/tmp/x/skills"));
        let catalogue = vec![tool("slash_command", json!({"properties": {"command": {}}})), tool("probe__probe_ping", json!({}))];
        let steps = plan(&catalogue, &[], &cues, Scope::Full);
        let commands: Vec<String> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Call { arguments, .. } => arguments["command"].as_str().map(str::to_string),
                _ => None,
            })
            .collect();
        assert_eq!(commands[0], "/skills registry probe");
        assert_eq!(commands[1], "/skills add skill://probe/probe-good/SKILL.md --registry probe --skills-dir /tmp/x/skills");
        assert_eq!(commands.len(), 1 + skills_to_install().len());
        assert!(!commands.iter().any(|c| c.contains("probe-idle")));
        // Without the directory in the prompt, the ordinary script runs.
        assert!(matches!(&plan(&catalogue, &[], &Cues::default(), Scope::Full)[0], Step::Call { tool, .. } if tool.name == "probe__probe_ping"));
    }

    #[test]
    fn sized_results_are_asked_for_while_the_last_one_came_whole() {
        let catalogue = vec![tool("mcp__probe__probe_large_result", json!({}))];
        let sizes = |cues: &Cues| -> Vec<Value> {
            plan(&catalogue, &[], cues, Scope::SizedResults)
                .iter()
                .filter_map(|s| if let Step::Call { arguments, .. } = s { Some(arguments["bytes"].clone()) } else { None })
                .collect()
        };
        assert_eq!(sizes(&Cues::default()), vec![json!(10_000)]);
        let after_first = Cues::read(&json!({"content": sized::text(10_000)}).to_string());
        assert_eq!(sizes(&after_first), vec![json!(10_000), json!(100_000)]);
        // Cut before its last line: no larger size is asked for.
        let cut = Cues::read(&json!({"content": &sized::text(10_000)[..5_000]}).to_string());
        assert_eq!(sizes(&cut), vec![json!(10_000)]);
        let all = Cues::read(&json!([sized::text(10_000), sized::text(100_000), sized::text(1_000_000)]).to_string());
        assert_eq!(sizes(&all).len(), 3);
        assert!(matches!(plan(&catalogue, &[], &all, Scope::SizedResults).last(), Some(Step::Finish { .. })));
    }

    #[test]
    fn against_a_server_that_keeps_no_session_the_one_tool_is_called_then_the_script_ends() {
        assert_eq!(Scope::for_variant(probe_server::Variant::StatelessSse), Scope::Stateless);
        let catalogue = vec![tool("list_mcp_resources", json!({})), tool("mcp__probe__probe_stateless", json!({}))];
        assert_eq!(calls(&plan(&catalogue, &[], &Cues::default(), Scope::Stateless)), ["mcp__probe__probe_stateless {}", "finish"]);
    }

    #[test]
    fn an_only_tool_marker_calls_that_tool_alone() {
        let body = json!({"messages": [{"role": "user", "content": "Show me the form. --only-tool probe_elicit_form"}]});
        let cues = Cues::of(&body);
        assert_eq!(cues.only.as_deref(), Some("probe_elicit_form"));
        let catalogue = vec![tool("mcp__probe__probe_ping", json!({})), tool("mcp__probe__probe_elicit_form", json!({}))];
        let steps = plan(&catalogue, &[], &cues, Scope::Full);
        assert!(matches!(&steps[0], Step::Call { tool, .. } if tool.name == "mcp__probe__probe_elicit_form"), "{steps:?}");
        assert_eq!(steps.len(), 2);
        assert_eq!(only_tool(&json!({"content": "--only-tool rm_rf"}).to_string()), None);
    }

    fn calls(steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .map(|s| match s {
                Step::Call { tool, arguments, .. } => format!("{} {arguments}", tool.name),
                Step::Finish { .. } => "finish".into(),
            })
            .collect()
    }

    /// Codex offers `list_mcp_resource_templates`; its record once showed `resources.templates_list`
    /// "no" only because the script never called it.
    #[test]
    fn every_template_list_tool_a_host_offers_is_called() {
        let catalogue = vec![tool("list_mcp_resource_templates", json!({"properties": {"server": {}}})), tool("list_mcp_resources", json!({"properties": {"server": {}}}))];
        assert_eq!(
            calls(&plan(&catalogue, &[], &Cues::default(), Scope::Full)),
            vec![r#"list_mcp_resources {"server":"probe"}"#.to_string(), r#"list_mcp_resource_templates {"server":"probe"}"#.into(), "finish".into(),]
        );
    }

    #[test]
    fn a_forwarded_sampling_request_offering_its_tool_gets_a_tool_call_then_an_answer() {
        let catalogue = vec![tool(s::SAMPLING_TOOL_NAME, json!({"properties": {"city": {}}}))];
        assert_eq!(calls(&plan(&catalogue, &[], &Cues::default(), Scope::Full)), vec![format!("{} {{\"city\":\"{SAMPLING_CITY}\"}}", s::SAMPLING_TOOL_NAME), "finish".into()]);
        assert!(matches!(next(&catalogue, &[], &Cues::default(), Scope::Full, 1).0, Step::Finish { .. }), "the second round, with the tool's result, is answered");
    }

    #[test]
    fn after_the_trigger_the_host_gets_a_settled_turn_and_then_the_late_tool() {
        let mut catalogue = vec![tool("probe__probe_ping", json!({})), tool("probe__probe_list_changed", json!({}))];
        let steps = plan(&catalogue, &[], &Cues::default(), Scope::Full);
        assert_eq!(calls(&steps), vec!["probe__probe_ping {}".to_string(), "probe__probe_list_changed {}".into(), "probe__probe_ping {}".into(), "finish".into()]);
        assert!(matches!(&steps[2], Step::Call { purpose, .. } if purpose == SETTLE_PURPOSE));
        // The reply to the request that carries the trigger's result (two results) is held back.
        assert_eq!(next(&catalogue, &[], &Cues::default(), Scope::Full, 2).1, Hold::Settle);
        assert_eq!(next(&catalogue, &[], &Cues::default(), Scope::Full, 1).1, Hold::None);
        assert_eq!(next(&catalogue, &[], &Cues::default(), Scope::Full, 3).1, Hold::None);
        let last = plan(&catalogue, &[], &Cues::default(), Scope::ResourcesThenSettle).len() - 1;
        assert_eq!(next(&catalogue, &[], &Cues::default(), Scope::ResourcesThenSettle, last).1, Hold::Settle, "the finish is held back");
        assert_eq!(next(&catalogue, &[], &Cues::default(), Scope::ResourcesOnly, last).1, Hold::None);
        // A settled turn lasts as long as the stub settles; other holds are their own.
        assert_eq!((Hold::Settle.ms(600), Hold::Settle.ms(SETTLE_MS), Hold::Ms(AUTH_REFRESH_HOLD_MS).ms(600), Hold::None.ms(600)), (600, SETTLE_MS, AUTH_REFRESH_HOLD_MS, 0));
        // After a refetch the host offers the new tool: the model calls it before finishing.
        catalogue.push(tool("probe__probe_added", json!({})));
        assert_eq!(calls(&plan(&catalogue, &[], &Cues::default(), Scope::Full))[3], "probe__probe_added {}");
    }

    #[test]
    fn tools_in_a_namespace_are_called_by_their_bare_name() {
        let catalogue = vec![OfferedTool { name: "probe_ping".into(), namespace: Some("mcp__probe".into()), schema: json!({}), via: None }];
        assert!(matches!(&plan(&catalogue, &[], &Cues::default(), Scope::Full)[0], Step::Call { tool, .. } if tool.namespace.as_deref() == Some("mcp__probe")));
    }
}
