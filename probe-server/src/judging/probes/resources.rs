//! Resource probes: listing, reading text and binary, templates, links and pagination.

use serde_json::Value;

use super::opportunity::{self, chance};
use super::tools::cursor_followed;
use super::{listed_before_use, probe, refetched, requested, BOTH};
use crate::host_tools::HostTool;
use crate::observe::{Frame, Observations};
use crate::probe::{Outcome, Verdict};
use crate::surface;

fn reads<'a>(o: &'a Observations, pred: impl Fn(&str) -> bool + 'a) -> impl Iterator<Item = &'a Frame> + 'a {
    o.client_requests("resources/read").filter(move |f| f.params().get("uri").and_then(Value::as_str).is_some_and(&pred))
}

/// Yes when a read matching `pred` was answered with contents; no when never read.
fn read_answered(o: &Observations, pred: impl Fn(&str) -> bool, what: &str) -> Verdict {
    let Some(read) = reads(o, pred).next() else {
        let chance = chance!(opportunity::session_and_tools(o, &[HostTool::ResourceRead]));
        return chance.cite(Verdict::new(Outcome::No, format!("never read {what}")));
    };
    match o.answer_to(read) {
        Some(a) if a.result().and_then(|r| r.get("contents")).is_some() => Verdict::new(Outcome::Yes, format!("read {what}")).evidence([read.seq, a.seq]),
        Some(a) => Verdict::new(Outcome::Inconclusive, format!("read {what}, but the server answered with an error")).evidence([read.seq, a.seq]),
        None => Verdict::new(Outcome::Inconclusive, format!("read {what}, never answered")).evidence([read.seq]),
    }
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] =
    &[&ResourcesList, &ResourcesPagination, &ReadText, &ReadBlob, &TemplatesList, &TemplateRead, &TemplateCompletion, &LinkFollowed, &ResourcesListChanged];

probe! {
    /// Evidence: a `resources/list` before the client's first `resources/read`. Listing only
    /// after reading is partial.
    ResourcesList {
        id: "resources.list", area: Resources, title: "resources listed",
        revisions: ["2024-11-05"], eras: BOTH, serves: "resources capability, three resources in two pages",
        judge: |o| listed_before_use(o, "resources/list", "resources/read", "listed resources", &[HostTool::ResourceList]),
    }
}

probe! {
    /// Evidence: a `resources/list` whose `cursor` is the first page's `nextCursor`.
    ResourcesPagination {
        id: "resources.pagination", area: Resources, title: "resources/list nextCursor followed",
        revisions: ["2024-11-05"], eras: BOTH, serves: "a first resources page with nextCursor",
        judge: |o| cursor_followed(o, "resources/list", surface::RESOURCES_CURSOR),
    }
}

probe! {
    /// Evidence: `resources/read` of the text resource, answered with the canary text.
    ReadText {
        id: "resources.read_text", area: Resources, title: "text resource read",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe://text/canary with a canary string",
        judge: |o| read_answered(o, |u| u == surface::TEXT_URI, "the text resource"),
    }
}

probe! {
    /// Evidence: `resources/read` of the binary resource, answered with a `blob`.
    ReadBlob {
        id: "resources.read_blob", area: Resources, title: "binary resource read",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe://blob/bytes: 256 bytes, every value once",
        judge: |o| read_answered(o, |u| u == surface::BLOB_URI, "the binary resource"),
    }
}

probe! {
    /// Evidence: a `resources/templates/list` request answered with a result.
    TemplatesList {
        id: "resources.templates_list", area: Resources, title: "resource templates listed",
        revisions: ["2024-11-05"], eras: BOTH, serves: "one template probe://items/{id}",
        judge: |o| requested(o, "resources/templates/list", "listed resource templates", &[HostTool::TemplateList]),
    }
}

probe! {
    /// Evidence: `resources/read` of a URI that expands the template (a concrete id, no braces),
    /// never listed by the server.
    TemplateRead {
        id: "resources.template_read", area: Resources, title: "expanded template URI read",
        revisions: ["2024-11-05"], eras: BOTH, serves: "reads of probe://items/<id> for any id",
        judge: |o| read_answered(o, |u| u.strip_prefix(surface::TEMPLATE_PREFIX).is_some_and(|id| !id.is_empty() && !id.contains('{')), "an expanded template URI"),
    }
}

probe! {
    /// Evidence: a `completion/complete` whose `ref/resource` names the served template
    /// (`probe://items/{id}`) and whose argument is its variable `id`: the client asks the server
    /// to complete the template as it is filled in. One for another variable is partial; none,
    /// after listing the templates, is no for a client that could have typed and not-reached for a
    /// run nobody sat at.
    TemplateCompletion {
        id: "resources.template_completion", area: Resources, title: "a template's variable completed by the server",
        revisions: ["2024-11-05"], eras: BOTH, serves: "completions capability; completion/complete offers ids for probe://items/{id}",
        judge: |o| super::completion_asked(o, &super::Completable {
            reference: ("ref/resource", "uri", surface::TEMPLATE),
            argument: surface::TEMPLATE_VARIABLE,
            listed_by: "resources/templates/list",
            what: "the template's variable",
        }),
    }
}

probe! {
    /// Evidence: after a tool result carries a `resource_link`, a `resources/read` of exactly that URI.
    LinkFollowed {
        id: "resources.link_followed", area: Resources, title: "resource_link in a tool result followed",
        revisions: ["2025-06-18"], eras: BOTH, serves: "probe_resource_link returns a resource_link to a fresh URI",
        judge: judge_link,
    }
}

fn judge_link(o: &Observations) -> Verdict {
    let links: Vec<(u64, String)> = o
        .frames
        .iter()
        .filter(|f| f.dir == crate::journal::Direction::ServerToClient)
        .filter_map(|f| {
            let content = f.result()?.get("content")?.as_array()?;
            content.iter().find(|c| c.get("type").and_then(Value::as_str) == Some("resource_link")).and_then(|c| c.get("uri")?.as_str()).map(|u| (f.seq, u.to_string()))
        })
        .collect();
    let Some((seq, uri)) = links.first() else {
        // Resource links came in 2025-06-18: an older session is handed none.
        return match super::negotiated_before(o, "2025-06-18") {
            Some(version) => Verdict::new(Outcome::NotApplicable, format!("the session negotiated {version}; resource links exist since 2025-06-18")),
            None => Verdict::new(Outcome::NotReached, "no resource_link was handed out"),
        };
    };
    let uri = uri.clone();
    let read = reads(o, move |u| u == uri).find(|f| f.seq > *seq).map(|f| f.seq);
    match read {
        Some(read) => Verdict::new(Outcome::Yes, "read the linked URI").evidence([*seq, read]),
        None => {
            let chance = chance!(opportunity::host_tools_called(o, &[HostTool::ResourceRead]));
            chance.cite(Verdict::new(Outcome::No, "never read the linked URI").evidence([*seq]).opportunity([*seq]))
        }
    }
}

probe! {
    /// Evidence: after the server sends `notifications/resources/list_changed`, a new `resources/list`.
    ResourcesListChanged {
        id: "resources.list_changed", area: Resources, title: "resources refetched on list_changed",
        revisions: ["2024-11-05", "2026-07-28"], eras: BOTH, serves: "resources.listChanged; probe_list_changed adds a resource and notifies (through subscriptions/listen in 2026-07-28)",
        judge: |o| refetched(o, "notifications/resources/list_changed", "resources/list", Some(HostTool::ResourceList)),
    }
}
