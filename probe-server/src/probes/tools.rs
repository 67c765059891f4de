//! Tool-list probes.

use serde_json::Value;

use super::{listed_before_use, probe, refetched, BOTH};
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};
use crate::surface;

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
        judge: |o| refetched(o, "notifications/tools/list_changed", "tools/list"),
    }
}
