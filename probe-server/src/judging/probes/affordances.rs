//! What a host offers its model, and what reaches it: judged from the model stub's journal (the
//! `model_view` of every request and the calls the stub made) together with the probe server's
//! journal. Evidence lines are those of the model journal.

use base64::Engine;
use serde_json::Value;

use super::{probe, BOTH};
use crate::host_tools::{self, names_tool, HostTool};
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};
use crate::surface as s;

fn name(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or_default()
}

/// The name as the model sees it: `namespace/name` when the host groups tools in a namespace.
fn shown_name(tool: &Value) -> String {
    match tool.get("namespace").and_then(Value::as_str) {
        Some(ns) => format!("{ns}/{}", name(tool)),
        None => name(tool).to_string(),
    }
}

fn has_property(tool: &Value, property: &str) -> bool {
    tool.pointer(&format!("/schema/properties/{property}")).is_some()
}

/// A tool that reads an MCP resource by URI.
pub fn is_read_tool(tool: &Value) -> bool {
    host_tools::classify_entry(tool) == HostTool::ResourceRead
}

/// A tool that lists MCP resources (not templates).
pub fn is_list_tool(tool: &Value) -> bool {
    host_tools::classify_entry(tool) == HostTool::ResourceList
}

/// A tool that lists MCP resource templates.
pub fn is_template_tool(tool: &Value) -> bool {
    host_tools::classify_entry(tool) == HostTool::TemplateList
}

/// Whether an offered entry refers to MCP tool `tool`: by its name (inside a namespace, the
/// bare name; without one, the name after the host's prefix).
fn refers_to(entry: &Value, tool: &str) -> bool {
    names_tool(name(entry), tool)
}

/// The first request's view: the catalogue a verdict of absence rests on.
fn first_view(o: &Observations) -> Option<u64> {
    o.model_views().next().map(|(seq, _)| seq)
}

fn offered_where(o: &Observations, test: fn(&Value) -> bool) -> Vec<(u64, &Value)> {
    o.offered_tools().into_iter().filter(|(_, t)| test(t)).collect()
}

/// A deferred tool of `kind` that the harness asked the host's tool search to load and that did
/// not load: (model journal line of the search, the deferred name, what the search answered). A
/// load failed when the search's result never came, or came without naming the tool.
fn failed_load(o: &Observations, kind: HostTool) -> Option<(u64, String, String)> {
    // Every request names the deferred tools again: each name is weighed once, in order.
    let mut seen = std::collections::HashSet::new();
    let deferred: Vec<&str> = o.model_views().flat_map(|(_, v)| v.deferred_names()).filter(|n| seen.insert(*n) && host_tools::classify_bare(n) == kind).collect();
    let searches: Vec<&str> = o.offered_tools().into_iter().filter(|(_, t)| host_tools::classify_entry(t) == HostTool::ToolSearch).map(|(_, t)| name(t)).collect();
    for (call, _, arguments) in o.model_calls().filter(|(_, tool, _)| searches.contains(&tool.as_str())) {
        let asked = arguments.to_string();
        for wanted in deferred.iter().filter(|n| asked.contains(**n)) {
            match super::results::result_of_call(o, call) {
                Some((_, text, _)) if text.contains(wanted) => {}
                Some((_, text, _)) => return Some((call, wanted.to_string(), text.chars().take(120).collect())),
                None => return Some((call, wanted.to_string(), "no result".into())),
            }
        }
    }
    None
}

/// Whether the model was offered a tool of `kind`. Without one, a no — unless the host deferred
/// such a tool and its tool search failed the harness's request to load it: then the harness never
/// saw what the host would have offered (not reached).
fn offered_verdict(o: &Observations, kind: HostTool, what: &str) -> Verdict {
    let found: Vec<(u64, &Value)> = o.offered_tools().into_iter().filter(|(_, t)| host_tools::classify_entry(t) == kind).collect();
    if let Some((seq, _)) = found.first() {
        return Verdict::new(Outcome::Yes, format!("{what}: {}", found.iter().map(|(_, t)| shown_name(t)).collect::<Vec<_>>().join(", "))).evidence([*seq]);
    }
    // Only without one is the tool search looked at.
    match failed_load(o, kind) {
        Some((call, deferred, answer)) => {
            Verdict::new(Outcome::NotReached, format!("the host's tool search did not load {deferred}, which the model asked for; it answered {answer:?}")).evidence([call])
        }
        None => Verdict::new(Outcome::No, format!("no tool {what}")).evidence(first_view(o)).opportunity(first_view(o)),
    }
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[
    &ToolTitleToModel,
    &ReadTool,
    &ListTool,
    &TemplateListTool,
    &ServerParam,
    &ReadReachesServer,
    &TextToModel,
    &BlobToModel,
    &TemplateRead,
    &ToolNames,
    &ToolSchemas,
    &ToolDescriptions,
    &StructuredContent,
    &ResourcesGated,
];

probe! {
    /// Evidence (model journal): `probe_page_two` is listed with a `title` (2025-06-18) holding a
    /// canary; the canary in what the host showed its model (the tool's description, the context,
    /// or a tool result such as a code-mode search's declarations) is yes. The tool offered
    /// without it is no, and so is neither shown; the second page never listed, or no title
    /// served (a run older than this probe), is not reached; a session of an older revision is n/a.
    ToolTitleToModel {
        id: "affordances.tool_title_to_model", area: Affordances, title: "a tool's title reaches the model",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH,
        serves: "probe_page_two listed with a title holding a canary", judge: judge_title_to_model, needs_model: true,
    }
}

fn judge_title_to_model(o: &Observations) -> Verdict {
    if let Some(version) = super::negotiated_before(o, "2025-06-18") {
        return Verdict::new(Outcome::NotApplicable, format!("the session negotiated {version}; tool titles exist since 2025-06-18"));
    }
    let titled =
        |result: &Value| result.get("tools").and_then(Value::as_array).is_some_and(|tools| tools.iter().any(|t| t.get("title").and_then(Value::as_str) == Some(s::TOOL_TITLE)));
    let Some(listed) = o.frames.iter().find(|f| f.dir == crate::journal::Direction::ServerToClient && f.result().is_some_and(titled)) else {
        return Verdict::new(Outcome::NotReached, "no tools list the client asked for held the titled tool (the second page never listed, or a run older than this probe)");
    };
    let offered = o.offered_tools().into_iter().find(|(_, t)| t.get("name").and_then(Value::as_str).is_some_and(|n| names_tool(n, s::TOOL_PAGE_TWO)));
    let shows_title = |t: &Value| ["title", "description"].iter().any(|k| t.get(*k).and_then(Value::as_str).is_some_and(|text| text.contains(s::TOOL_TITLE_CANARY)));
    if let Some((seq, _)) = offered.filter(|(_, t)| shows_title(t)) {
        return Verdict::new(Outcome::Yes, format!("the title reached the model with {}", s::TOOL_PAGE_TWO)).evidence([seq]);
    }
    let mentioned = o.model_views().map(|(seq, v)| (seq, crate::observe::mention_places(v, s::TOOL_TITLE_CANARY))).find(|(_, places)| !places.is_empty());
    if let Some((seq, places)) = mentioned {
        let places: Vec<&str> = places.iter().filter_map(Value::as_str).collect();
        return Verdict::new(Outcome::Yes, format!("the title reached the model ({})", places.join(", "))).evidence([seq]);
    }
    // A host that declares its tools in a search's answer (code mode) shows the title there.
    if let Some((seq, _)) = o.model_views().find(|(_, v)| v.result_texts().any(|text| text.contains(s::TOOL_TITLE_CANARY))) {
        return Verdict::new(Outcome::Yes, "the title reached the model in a tool result (a search's declarations)").evidence([seq]);
    }
    match (offered, o.model_views().next()) {
        (Some((seq, _)), _) => Verdict::new(Outcome::No, format!("offered {} to the model without its title", s::TOOL_PAGE_TWO)).evidence([seq]).opportunity([seq]),
        (None, Some((seq, _))) => {
            Verdict::new(Outcome::No, format!("showed the model neither the titled tool nor its title (listed in line {})", listed.seq)).evidence([seq]).opportunity([seq])
        }
        (None, None) => Verdict::new(Outcome::NotReached, "no model transcript: the host never asked its model anything"),
    }
}

probe! {
    /// Evidence (model journal): the host offers its model a tool that reads an MCP resource by
    /// URI; the detail gives its exact name(s).
    ReadTool {
        id: "affordances.read_tool", area: Affordances, title: "a resource-read tool for the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "resources the model may want to read",
        judge: |o| offered_verdict(o, HostTool::ResourceRead, "reads MCP resources"), needs_model: true,
    }
}

probe! {
    /// Evidence (model journal): the host offers its model a tool that lists MCP resources.
    ListTool {
        id: "affordances.list_tool", area: Affordances, title: "a resource-list tool for the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "two pages of resources",
        judge: |o| offered_verdict(o, HostTool::ResourceList, "lists MCP resources"), needs_model: true,
    }
}

probe! {
    /// Evidence (model journal): the host offers its model a tool that lists resource templates.
    TemplateListTool {
        id: "affordances.template_list_tool", area: Affordances, title: "a template-list tool for the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "a resource template",
        judge: |o| offered_verdict(o, HostTool::TemplateList, "lists resource templates"), needs_model: true,
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
        Some(p) => Verdict::new(Outcome::Partial, format!("optional parameter {p}")).evidence([seq]).opportunity([seq]),
        None if shown_name(tool).contains("probe") => Verdict::new(Outcome::Yes, "encoded in the tool name").evidence([seq]),
        None => Verdict::new(Outcome::No, "the read tool cannot name a server").evidence([seq]).opportunity([seq]),
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
    o.model_views().filter(move |(_, v)| v.result_texts().any(|r| r.contains(needle))).map(|(seq, _)| seq)
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
        Verdict::new(Outcome::No, "the model's read never reached the server").evidence([call]).opportunity([call])
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
        None => Verdict::new(Outcome::No, "the model never received the canary").evidence([call]).opportunity([call]),
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
    let answered = o.model_views().filter(|(seq, _)| *seq > call).find(|(_, v)| !v.tool_results.is_empty());
    match answered {
        Some((seq, _)) => Verdict::new(Outcome::Partial, "the model got a result without the bytes (a placeholder or a path)").evidence([call, seq]).opportunity([call]),
        None => Verdict::new(Outcome::No, "the model never got a result for the binary resource").evidence([call]).opportunity([call]),
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
        (true, None) => Verdict::new(Outcome::Partial, "read from the server, the content never reached the model").evidence([call]).opportunity([call]),
        (false, _) => Verdict::new(Outcome::No, "the host never asked the server for it").evidence([call]).opportunity([call]),
    }
}

/// A tool the client received from `tools/list`, and whether it appeared only after the lists
/// changed (first listed in an answer after `notifications/tools/list_changed`).
struct Listed {
    tool: Value,
    /// The line of the answer that first listed a tool that appeared late.
    late: Option<u64>,
}

/// The tools the client received from `tools/list` (every page it fetched).
fn listed_tools(o: &Observations) -> Vec<Listed> {
    let changed = o.server_notifications("notifications/tools/list_changed").next().map(|f| f.seq);
    let mut tools: Vec<Listed> = Vec::new();
    for request in o.client_requests("tools/list") {
        let Some(answer) = o.answer_to(request) else { continue };
        let listed = answer.result().and_then(|r| r.get("tools")).and_then(Value::as_array).cloned().unwrap_or_default();
        for tool in listed {
            if !tools.iter().any(|t| t.tool["name"] == tool["name"]) {
                let late = changed.filter(|c| request.seq > *c).map(|_| answer.seq);
                tools.push(Listed { tool, late });
            }
        }
    }
    tools
}

/// Where the model was offered a tool: in the catalogue (with the entry), or only named in the
/// request's text as a deferred tool it can load through the host's tool search.
#[derive(Clone)]
enum Offer {
    Catalogue(u64, Value),
    Deferred(u64),
}

impl Offer {
    fn seq(&self) -> u64 {
        match self {
            Offer::Catalogue(seq, _) | Offer::Deferred(seq) => *seq,
        }
    }
}

/// Each listed MCP tool with what the model was offered for it, if anything.
fn matched(o: &Observations) -> Vec<(Listed, Option<Offer>)> {
    let offered = o.offered_tools();
    let deferred: Vec<(u64, &str)> = o.model_views().flat_map(|(seq, v)| v.deferred_names().map(move |n| (seq, n))).collect();
    listed_tools(o)
        .into_iter()
        .map(|listed| {
            let mcp_name = listed.tool["name"].as_str().unwrap_or_default().to_string();
            let found = offered
                .iter()
                .find(|(_, t)| refers_to(t, &mcp_name))
                .map(|(seq, t)| Offer::Catalogue(*seq, (*t).clone()))
                .or_else(|| deferred.iter().find(|(_, n)| names_tool(n, &mcp_name)).map(|(seq, _)| Offer::Deferred(*seq)));
            (listed, found)
        })
        .collect()
}

/// Whether the host's model acted after the lists were refetched at `refetched`: a `tools/call`
/// after that answer, answered (its result went back to a model request that came after the
/// refetch). Without it a tool that appeared late was not offered *yet*.
fn acted_after(o: &Observations, refetched: u64) -> Option<u64> {
    o.client_requests("tools/call").find(|f| f.seq > refetched && o.answer_to(f).is_some()).map(|f| f.seq)
}

probe! {
    /// Evidence (model journal): every tool the host listed from the server is offered to the
    /// model — in the catalogue under its own name, after a prefix or inside a namespace, or
    /// named as a deferred tool behind the host's tool search (the detail shows how, and how many
    /// came only through that search rather than the catalogue the host began with). Some
    /// missing is partial. Opportunity: a tool that appeared only after `tools/list_changed`
    /// counts only when the host called a tool after that refetch (its model had a turn in
    /// which the tool could be offered).
    ToolNames {
        id: "affordances.tool_names", area: Affordances, title: "MCP tools offered to the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "the probe tools",
        judge: judge_tool_names, needs_model: true,
    }
}

fn judge_tool_names(o: &Observations) -> Verdict {
    let all = matched(o);
    // A late tool the model never had a turn for is not counted either way.
    let pairs: Vec<&(Listed, Option<Offer>)> = all.iter().filter(|(l, f)| f.is_some() || l.late.is_none_or(|at| acted_after(o, at).is_some())).collect();
    let waiting = all.len() - pairs.len();
    let Some(opportunity) = first_view(o) else {
        return Verdict::new(Outcome::NotReached, "the host never asked its model anything");
    };
    if pairs.is_empty() {
        return Verdict::new(Outcome::NotReached, "the host listed no tools");
    }
    let not_yet = if waiting > 0 { format!("; {waiting} listed after the lists changed, with no model turn since, not counted") } else { String::new() };
    let offered: Vec<(&Listed, &Offer)> = pairs.iter().filter_map(|(l, f)| f.as_ref().map(|f| (l, f))).collect();
    let Some((listed, first)) = offered.iter().find(|(_, f)| matches!(f, Offer::Catalogue(..))).or(offered.first()).copied() else {
        return Verdict::new(Outcome::No, format!("none of {} listed tools was offered to the model{not_yet}", pairs.len())).evidence([opportunity]).opportunity([opportunity]);
    };
    let mcp = listed.tool["name"].as_str().unwrap_or_default();
    let presentation = match first {
        Offer::Catalogue(_, entry) => match (entry.get("namespace").and_then(Value::as_str), name(entry).strip_suffix(mcp)) {
            (Some(ns), Some("")) => format!("in namespace {ns}"),
            (Some(ns), _) => format!("in namespace {ns} as {}", name(entry)),
            (None, Some("")) => "unchanged names".to_string(),
            (None, Some(prefix)) => format!("as {prefix}<name>"),
            (None, None) => name(entry).to_string(),
        },
        Offer::Deferred(_) => "deferred behind the host's tool search".to_string(),
    };
    let deferred = offered.iter().filter(|(_, f)| matches!(f, Offer::Deferred(_))).count();
    let deferred = if deferred > 0 && matches!(first, Offer::Catalogue(..)) { format!(" ({deferred} deferred)") } else { String::new() };
    // Tools a search declared in the conversation were not in the catalogue the host began with.
    let searched: Vec<&str> = offered
        .iter()
        .filter_map(|(_, f)| match f {
            Offer::Catalogue(_, entry) => entry.get("via").and_then(Value::as_str),
            Offer::Deferred(_) => None,
        })
        .collect();
    let deferred = match searched.first() {
        Some(via) => format!("{deferred} ({} of them only through the host's tool search, called by way of its {via} tool)", searched.len()),
        None => deferred,
    };
    let seq = first.seq();
    if offered.len() == pairs.len() {
        Verdict::new(Outcome::Yes, format!("all {} listed tools, {presentation}{deferred}{not_yet}", pairs.len())).evidence([seq])
    } else {
        let missing = pairs.iter().find(|(_, f)| f.is_none()).map(|(l, _)| l.tool["name"].as_str().unwrap_or_default()).unwrap_or_default();
        Verdict::new(Outcome::Partial, format!("{} of {} listed tools, {presentation}{deferred} ({missing} missing){not_yet}", offered.len(), pairs.len()))
            .evidence([seq])
            .opportunity([opportunity])
    }
}

/// Yes when every offered MCP tool keeps `field` of its listing (as `same` compares them).
fn passthrough(o: &Observations, what: &str, same: fn(&Value, &Value) -> bool) -> Verdict {
    let pairs: Vec<(Value, (u64, Value))> = matched(o)
        .into_iter()
        .filter_map(|(l, f)| match f {
            Some(Offer::Catalogue(seq, entry)) => Some((l.tool, (seq, entry))),
            _ => None,
        })
        .collect();
    let Some((_, (seq, _))) = pairs.first() else {
        return super::no_tool_offered(o);
    };
    let changed: Vec<&str> = pairs.iter().filter(|(listed, (_, offered))| !same(listed, offered)).map(|(l, _)| l["name"].as_str().unwrap_or_default()).collect();
    match changed.first() {
        None => Verdict::new(Outcome::Yes, format!("{what} of all {} offered tools unchanged", pairs.len())).evidence([*seq]),
        Some(first) if changed.len() == pairs.len() => {
            Verdict::new(Outcome::No, format!("{what} of every offered tool changed ({first} first)")).evidence([*seq]).opportunity([*seq])
        }
        Some(first) => Verdict::new(Outcome::Partial, format!("{what} of {} of {} tools changed ({first} first)", changed.len(), pairs.len())).evidence([*seq]).opportunity([*seq]),
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
    /// Precondition: the same host offers a read tool when the server has resources
    /// (`affordances.read_tool`); a host that never offers one has nothing to withhold (n/a).
    ResourcesGated {
        id: "affordances.resources_gated", area: Affordances, title: "resource tools only with the resources capability",
        revisions: ["2024-11-05"], eras: BOTH, variant: NoResources, serves: "no resources capability",
        judge: judge_resources_gated, needs_model: true, precondition: "affordances.read_tool",
    }
}

fn judge_resources_gated(o: &Observations) -> Verdict {
    let offered: Vec<(u64, &Value)> = o.offered_tools().into_iter().filter(|(_, t)| is_read_tool(t) || is_list_tool(t)).collect();
    match offered.first() {
        None => Verdict::new(Outcome::Yes, "no resource tool while the server has no resources"),
        Some((seq, tool)) => Verdict::new(Outcome::No, format!("offered {} although the server has no resources", shown_name(tool))).evidence([*seq]).opportunity([*seq]),
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
    let after = |needle: &'static str| o.model_views().filter(move |(seq, _)| *seq > call).find(move |(_, v)| v.result_texts().any(|r| r.contains(needle)));
    let content = after("progress notifications").or_else(|| after("no progressToken"));
    let structured = after(s::STRUCTURED_CANARY);
    match (content, structured) {
        (Some((seq, _)), Some(_)) => Verdict::new(Outcome::Yes, "the model sees content and structuredContent").evidence([call, seq]),
        (Some((seq, _)), None) => Verdict::new(Outcome::Yes, "the model sees content only").evidence([call, seq]),
        (None, Some((seq, _))) => Verdict::new(Outcome::Yes, "the model sees structuredContent only").evidence([call, seq]),
        (None, None) => Verdict::new(Outcome::No, "the model saw neither").evidence([call]).opportunity([call]),
    }
}
