//! Tool-list probes.

use serde_json::Value;

use super::{listed_before_use, probe, refetched, BOTH};
use crate::edge_names;
use crate::host_tools::has_property;
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};
use crate::surface;

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[&ToolsList, &ToolsPagination, &ToolsListChanged, &IconFetched, &NameDots, &NameDashes, &Name128Chars];

probe! {
    /// Evidence: a `tools/list` before the client's first `tools/call`. Listing only after
    /// calling is partial.
    ToolsList {
        id: "tools.list", area: Tools, title: "tools listed",
        revisions: ["2024-11-05"], eras: BOTH, serves: "tools capability, tools in two pages",
        judge: |o| listed_before_use(o, "tools/list", "tools/call", "listed tools", &[]),
    }
}

probe! {
    /// Evidence: a `tools/list` whose `cursor` is exactly the `nextCursor` of the first page.
    ToolsPagination {
        id: "tools.pagination", area: Tools, title: "tools/list nextCursor followed",
        revisions: ["2024-11-05"], eras: BOTH, serves: "a first tools page with nextCursor",
        judge: |o| cursor_followed(o, "tools/list", surface::TOOLS_CURSOR),
    }
}

/// The answer that handed out the first page and its cursor.
fn first_page_answer(o: &Observations, first: &crate::observe::Frame) -> Option<u64> {
    o.answer_to(first).map(|a| a.seq)
}

/// Yes when a list request carried the cursor the server handed out. Opportunity: the answer
/// that handed out the cursor.
pub(crate) fn cursor_followed(o: &Observations, method: &str, cursor: &str) -> Verdict {
    let lists: Vec<_> = o.client_requests(method).collect();
    if lists.is_empty() {
        return Verdict::new(Outcome::NotReached, format!("never sent {method}"));
    }
    match lists.iter().find(|f| f.params().get("cursor").and_then(Value::as_str) == Some(cursor)) {
        Some(f) => Verdict::new(Outcome::Yes, "second page fetched with the server's cursor").evidence([lists[0].seq, f.seq]),
        None => match lists.iter().find(|f| f.params().get("cursor").is_some()) {
            Some(f) => Verdict::new(Outcome::No, "sent a cursor the server never issued").evidence([f.seq]).opportunity(first_page_answer(o, lists[0])),
            None => Verdict::new(Outcome::No, "stopped at the first page").evidence([lists[0].seq]).opportunity(first_page_answer(o, lists[0])),
        },
    }
}

probe! {
    /// Evidence: after the server sends `notifications/tools/list_changed`, a new `tools/list`.
    ToolsListChanged {
        id: "tools.list_changed", area: Tools, title: "tools refetched on list_changed",
        revisions: ["2024-11-05", "2026-07-28"], eras: BOTH, serves: "tools.listChanged; probe_list_changed adds a tool and notifies (through subscriptions/listen in 2026-07-28)",
        judge: |o| refetched(o, "notifications/tools/list_changed", "tools/list", None),
    }
}

probe! {
    /// Evidence: the tools list names an icon for `probe_progress` (2025-11-25), served on the
    /// fetch trap; a host that shows its tools fetches it (yes). Never fetched is no; a session
    /// of an older revision is n/a.
    IconFetched {
        id: "tools.icon_fetched", area: Tools, title: "a tool's icon fetched",
        revisions: ["2025-11-25", "2026-07-28"], eras: BOTH,
        serves: "probe_progress listed with an icon: a PNG on the fetch trap",
        judge: |o| super::icon_fetched(o, "a tool's", crate::fetch_trap::TOOL_ICON_PATH, |result| {
            result.get("tools").and_then(Value::as_array).is_some_and(|tools| tools.iter().any(|t| t.get("icons").is_some()))
        }),
    }
}

probe! {
    /// Evidence (model journal; the server journal's line in the detail): in the tool-names
    /// variant the model calls the tool named `probe.dotted.name`, found in its catalogue by the
    /// property only that tool's schema has, under whatever name the host shows it. Yes when a
    /// `tools/call` then reaches the server with exactly that name (2025-11-25, Tools: tool names
    /// may hold dots); no when the host never showed the tool to its model, or the call reached
    /// the server under another name or not at all.
    NameDots {
        id: "tools.name_dots", area: Tools, title: "a tool named with dots is offered and called by its name",
        revisions: ["2025-11-25"], eras: BOTH, variant: ToolNames, serves: "tools/list holds probe.dotted.name",
        judge: |o| judge_edge_name(o, edge_names::DOTS), needs_model: true,
    }
}

probe! {
    /// Evidence: as `tools.name_dots`, for the tool named `probe-dashed-name`.
    NameDashes {
        id: "tools.name_dashes", area: Tools, title: "a tool named with dashes is offered and called by its name",
        revisions: ["2025-11-25"], eras: BOTH, variant: ToolNames, serves: "tools/list holds probe-dashed-name",
        judge: |o| judge_edge_name(o, edge_names::DASHES), needs_model: true,
    }
}

probe! {
    /// Evidence: as `tools.name_dots`, for a tool whose name is 128 characters long, the most the
    /// rules allow (hosts whose model APIs take 64 must shorten it for the model and map it back).
    Name128Chars {
        id: "tools.name_128_chars", area: Tools, title: "a tool named with 128 characters is offered and called by its name",
        revisions: ["2025-11-25"], eras: BOTH, variant: ToolNames, serves: "tools/list holds a tool with a 128-character name",
        judge: |o| judge_edge_name(o, edge_names::LONGEST), needs_model: true,
    }
}

/// A name for a detail: long ones shortened in the middle.
fn shown(name: &str) -> String {
    match name.char_indices().nth(48) {
        Some(_) => {
            format!("{}…{} ({} characters)", name.chars().take(24).collect::<String>(), name.chars().skip(name.chars().count() - 12).collect::<String>(), name.chars().count())
        }
        None => name.to_string(),
    }
}

fn judge_edge_name(o: &Observations, edge: edge_names::EdgeTool) -> Verdict {
    let offered = o.offered_tools().into_iter().find(|(_, t)| t.get("schema").is_some_and(|s| has_property(s, edge.marker)));
    let Some((offered_at, tool)) = offered else {
        if o.client_requests("tools/list").next().is_none() {
            return Verdict::new(Outcome::NotReached, "the host never listed the server's tools");
        }
        // A model offered no MCP tool at all was never shown the server's catalogue: nothing
        // says this tool's name was the trouble.
        if o.offered_probe_tools().is_empty()
            && !o.offered_tools().iter().any(|(_, t)| edge_names::EDGE_TOOLS.iter().any(|e| t.get("schema").is_some_and(|s| has_property(s, e.marker))))
        {
            return super::no_tool_offered(o);
        }
        return match o.model_views().next() {
            None => Verdict::new(Outcome::NotReached, "the host never asked its model anything"),
            Some((seq, _)) => Verdict::new(Outcome::No, format!("the host never showed {} to its model", shown(edge.name))).evidence([seq]).opportunity([seq]),
        };
    };
    let as_shown = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
    let Some((call, _, _)) = o.model_calls().find(|(seq, name, _)| *seq > offered_at && *name == as_shown) else {
        return Verdict::new(Outcome::NotReached, format!("the model never called it (shown to it as {})", shown(&as_shown))).evidence([offered_at]);
    };
    let shown_as = if as_shown == edge.name { "under its own name".to_string() } else { format!("as {}", shown(&as_shown)) };
    if let Some(frame) = o.tool_calls(edge.name).next() {
        return Verdict::new(Outcome::Yes, format!("shown to the model {shown_as}; the call reached the server under its exact name (server journal line {})", frame.seq))
            .evidence([offered_at, call]);
    }
    let other = o.client_requests("tools/call").filter_map(|f| Some((f.seq, f.params().get("name")?.as_str()?.to_string()))).find(|(_, name)| edge_names::by_name(name).is_none());
    let detail = match other {
        Some((seq, name)) => format!("shown to the model {shown_as}; the call reached the server as {} (server journal line {seq})", shown(&name)),
        None => format!("shown to the model {shown_as}; the call never reached the server"),
    };
    Verdict::new(Outcome::No, detail).evidence([offered_at, call]).opportunity([call])
}
