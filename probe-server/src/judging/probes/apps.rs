//! MCP Apps (variant apps, extension `io.modelcontextprotocol/ui`): what can be seen of a host's
//! apps support without looking at a screen. The model is asked to call `probe_app_view`, a tool
//! with a `ui://` view; the server's journal shows whether the host read the view and whether a
//! view it ran reported the tool's result back (by calling `probe_app_report`, a tool for the
//! view alone), and the model stub's journal shows what the model was offered and handed. What
//! the client declared is its `extensions["io.modelcontextprotocol/ui"].mimeTypes` listing
//! `text/html;profile=mcp-app`.

use serde_json::Value;

use super::opportunity::{self, Chance};
use super::results::{first_call, result_after};
use super::schemas::{offered_schema, shown};
use super::{probe, BOTH};
use crate::apps::{APP_MIME_TYPE, EXTENSION_ID, REPORT_ARGUMENT, SERIAL_KEY, TOOL_APP_REPORT, TOOL_APP_VIEW, VIEW_TEXT_CANARY, VIEW_URI};
use crate::host_tools::names_tool;
use crate::observe::{Frame, Observations};
use crate::probe::{Declaration, Outcome, Verdict};

/// Whether the client declared MCP Apps with the app MIME type.
fn declared(o: &Observations) -> Declaration {
    let caps = o.lifecycle().and_then(|l| l.capabilities);
    let types = caps.as_ref().and_then(|c| c.get("extensions")?.get(EXTENSION_ID)?.get("mimeTypes")?.as_array().cloned());
    Declaration::from_bool(types.is_some_and(|t| t.iter().any(|m| m == APP_MIME_TYPE)))
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[&UiToolTextToModel, &AppOnlyToolHidden, &UiResourceRead, &ViewReceivesResult];

probe! {
    /// Evidence (model journal): the model's call of `probe_app_view`, a tool with a `ui://`
    /// view (`_meta.ui.resourceUri`) and no `visibility` (so for the model too), and a later
    /// request whose tool result holds the words of the tool's text content. The view is for
    /// the person and the `content` for the model, so a server can give a tool a view without
    /// losing hosts that have none. The tool left out of what the model was offered (also when
    /// the host had it from `tools/list` and offered its model no tool of the server), or its
    /// result without its text, is no; with the `structuredContent` in place of the text (a
    /// host may hand its model either), partial.
    UiToolTextToModel {
        id: "apps.ui_tool_text_to_model", area: Apps, title: "a tool with a view reaches the model with its text",
        revisions: ["2025-06-18"], eras: BOTH, variant: Apps, serves: "probe_app_view: _meta.ui.resourceUri ui://probe/view.html; text content and structuredContent",
        judge: judge_text_to_model, needs_model: true,
    }
}

fn judge_text_to_model(o: &Observations) -> Verdict {
    let declared = declared(o);
    match offered_schema(o, TOOL_APP_VIEW) {
        Ok(_) => {}
        // The host had the tool from the server and showed its model none of the server's.
        Err(verdict) if verdict.outcome == Outcome::NotReached && listed_to_host(o) => {
            let shown = o.model_views().next().map(|(seq, _)| seq);
            let detail = "the host listed the tool with a view and offered its model no tool of the server";
            return Verdict::new(Outcome::No, detail).declared(declared).evidence(shown).opportunity(shown);
        }
        Err(verdict) => return verdict.declared(declared),
    }
    let call = match first_call(o, TOOL_APP_VIEW) {
        Ok((call, _)) => call,
        Err(verdict) => return verdict.declared(declared),
    };
    if let Some((seq, _, _)) = result_after(o, call, VIEW_TEXT_CANARY) {
        return Verdict::new(Outcome::Yes, "the tool's text reached the model").declared(declared).evidence([call, seq]);
    }
    match result_after(o, call, SERIAL_KEY) {
        Some((seq, _, _)) => {
            Verdict::new(Outcome::Partial, "the model got the tool's structuredContent in place of its text").declared(declared).evidence([call, seq]).opportunity([call])
        }
        None => Verdict::new(Outcome::No, "the model got no text of the tool's result").declared(declared).evidence([call]).opportunity([call]),
    }
}

/// Whether a `tools/list` answer gave the host `probe_app_view`.
fn listed_to_host(o: &Observations) -> bool {
    let listed = |tools: &Value| tools.as_array().is_some_and(|list| list.iter().any(|t| t.get("name").and_then(Value::as_str) == Some(TOOL_APP_VIEW)));
    o.client_requests("tools/list").filter_map(|f| o.answer_to(f)?.result()?.get("tools")).any(listed)
}

probe! {
    /// Evidence (model journal): what the host offered its model. `probe_app_report` has
    /// `_meta.ui.visibility: ["app"]`: the MCP Apps extension says a host must not put a tool in
    /// its model's tool list when the tool's visibility leaves out `"model"`. Its sibling
    /// `probe_app_view` offered without it is yes. It offered is a violation from a host that
    /// declares MCP Apps, and no from one that does not (it reads no `_meta.ui`; a server that
    /// checks the declaration would not have listed the tool to it). Neither offered is
    /// not-reached.
    AppOnlyToolHidden {
        id: "apps.app_only_tool_hidden", area: Apps, title: "a tool for the view alone is kept from the model",
        revisions: ["2025-06-18"], eras: BOTH, variant: Apps, serves: "probe_app_report: _meta.ui.visibility [\"app\"]",
        judge: judge_app_only_hidden, needs_model: true,
    }
}

fn judge_app_only_hidden(o: &Observations) -> Verdict {
    let declared = declared(o);
    let offered = |tool: &str| o.offered_tools().into_iter().find(|(_, t)| t.get("name").and_then(Value::as_str).is_some_and(|n| names_tool(n, tool))).map(|(seq, _)| seq);
    match (offered(TOOL_APP_REPORT), offered(TOOL_APP_VIEW)) {
        (Some(seq), _) if declared == Declaration::Declared => {
            Verdict::new(Outcome::Violation, "declares MCP Apps and offered its model a tool whose visibility is [\"app\"]").declared(declared).evidence([seq]).opportunity([seq])
        }
        (Some(seq), _) => Verdict::new(Outcome::No, "offered its model a tool whose visibility is [\"app\"] (it declares no MCP Apps support)")
            .declared(declared)
            .evidence([seq])
            .opportunity([seq]),
        (None, Some(seq)) => Verdict::new(Outcome::Yes, "kept the tool for the view alone from its model, and offered the tool with the view").declared(declared).evidence([seq]),
        (None, None) => Verdict::new(Outcome::NotReached, "neither tool of the apps variant was offered to the model").declared(declared),
    }
}

/// The `resources/read` requests for the view.
fn view_reads(o: &Observations) -> impl Iterator<Item = &Frame> + '_ {
    o.client_requests("resources/read").filter(|f| f.params().get("uri").and_then(Value::as_str) == Some(VIEW_URI))
}

probe! {
    /// Evidence (server journal, with the model's as opportunity): a `resources/read` of
    /// `ui://probe/view.html`, the view `probe_app_view` names in `_meta.ui.resourceUri`, at
    /// any time (a host may read views ahead, when it lists the tools, or when the tool is
    /// called); the detail says which. No read although the model's call of the tool reached
    /// the server is no; the call never reaching it is not-reached.
    UiResourceRead {
        id: "apps.ui_resource_read", area: Apps, title: "a tool's ui:// view is read",
        revisions: ["2025-06-18"], eras: BOTH, variant: Apps, serves: "ui://probe/view.html: text/html;profile=mcp-app, named by both tools' _meta.ui.resourceUri",
        judge: judge_view_read, needs_model: true, server_evidence: true,
    }
}

fn judge_view_read(o: &Observations) -> Verdict {
    let declared = declared(o);
    let first_call = o.tool_calls(TOOL_APP_VIEW).next().map(|f| f.seq);
    if let Some(read) = view_reads(o).next() {
        let when = match first_call {
            Some(call) if call < read.seq => "after the tool was called",
            _ => "before the tool was called",
        };
        let answered = o.answer_to(read).map(|a| a.seq);
        return Verdict::new(Outcome::Yes, format!("read the view {when}")).declared(declared).evidence(std::iter::once(read.seq).chain(answered));
    }
    let called = match view_called(o) {
        Ok(called) => called,
        Err(verdict) => return verdict.declared(declared),
    };
    called.cite(Verdict::new(Outcome::No, "the tool with a view was called and its view never read").declared(declared).evidence(first_call))
}

/// The chance the host had: the model's call of `probe_app_view` reached the server (the
/// server's line, and the model journal's line of the call).
fn view_called(o: &Observations) -> Result<Chance, Verdict> {
    let mut called = opportunity::tool_called(o, TOOL_APP_VIEW)?;
    called.model.extend(first_call(o, TOOL_APP_VIEW).ok().map(|(seq, _)| seq));
    Ok(called)
}

probe! {
    /// Evidence (server journal, with the model's as opportunity): a call of
    /// `probe_app_report`, which only the view calls, whose `structured` argument equals the
    /// `structuredContent` of a result of `probe_app_view` (each call's differs): the host
    /// ran the view and handed it the tool's result with its `structuredContent` intact. A
    /// report with anything else is no, as is none: the detail says whether the view was read
    /// at all. A host that renders apps only in a graphical window runs no view in a headless
    /// run; the detail of its no says that no view ran here. The tool never called is
    /// not-reached.
    ViewReceivesResult {
        id: "apps.view_receives_result", area: Apps, title: "the view gets the tool's result with structuredContent",
        revisions: ["2025-06-18"], eras: BOTH, variant: Apps, serves: "the view's script calls probe_app_report with the structuredContent it was handed",
        judge: judge_view_result, needs_model: true, server_evidence: true,
    }
}

fn judge_view_result(o: &Observations) -> Verdict {
    let declared = declared(o);
    let results: Vec<(u64, &Value)> =
        o.tool_calls(TOOL_APP_VIEW).filter_map(|call| o.answer_to(call)).filter_map(|answer| Some((answer.seq, answer.result()?.get("structuredContent")?))).collect();
    if let Some(report) = o.tool_calls(TOOL_APP_REPORT).next() {
        let got = report.params().get("arguments").and_then(|a| a.get(REPORT_ARGUMENT));
        if let Some((seq, _)) = results.iter().find(|(_, structured)| Some(*structured) == got) {
            return Verdict::new(Outcome::Yes, "the view reported the tool's structuredContent intact").declared(declared).evidence([*seq, report.seq]);
        }
        let what = match got {
            None | Some(Value::Null) => "without its structuredContent".to_string(),
            Some(other) => format!("with its structuredContent changed: {}", shown(other)),
        };
        let before = results.iter().map(|(seq, _)| *seq).filter(|seq| *seq < report.seq).collect::<Vec<_>>();
        return Verdict::new(Outcome::No, format!("the view reported the tool's result {what}"))
            .declared(declared)
            .evidence(before.iter().copied().chain([report.seq]))
            .opportunity(before);
    }
    let called = match view_called(o) {
        Ok(called) => called,
        Err(verdict) => return verdict.declared(declared),
    };
    let detail = match view_reads(o).next() {
        Some(_) => "the view was read, and no view reported the result: no view ran in this run",
        None => "the view was never read, and no view reported the result: no view ran in this run",
    };
    called.cite(Verdict::new(Outcome::No, detail).declared(declared).evidence(results.iter().map(|(seq, _)| *seq)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Direction;
    use serde_json::json;

    fn frame(seq: u64, dir: Direction, msg: Value) -> Frame {
        Frame { seq, t_us: seq * 1000, dir, msg }
    }

    fn observations(report: Option<Value>, read: bool) -> Observations {
        let (client, server) = (Direction::ClientToServer, Direction::ServerToClient);
        let mut frames = vec![
            frame(
                1,
                client,
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
            ),
            frame(2, server, json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "p", "version": "1"}}})),
            frame(3, client, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": TOOL_APP_VIEW}})),
            frame(4, server, json!({"jsonrpc": "2.0", "id": 1, "result": crate::apps::view_result(1)})),
        ];
        if read {
            frames.push(frame(5, client, json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": VIEW_URI}})));
        }
        if let Some(structured) = report {
            frames.push(frame(
                6,
                client,
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": TOOL_APP_REPORT, "arguments": {REPORT_ARGUMENT: structured}}}),
            ));
        }
        let mut observations = Observations::default();
        observations.frames = frames;
        observations
    }

    #[test]
    fn only_the_structured_content_of_a_result_makes_the_report_a_yes() {
        assert_eq!(judge_view_result(&observations(Some(crate::apps::structured(1)), true)).outcome, Outcome::Yes);
        let changed = judge_view_result(&observations(Some(crate::apps::structured(2)), true));
        assert_eq!(changed.outcome, Outcome::No);
        assert!(changed.detail.contains("changed"), "{}", changed.detail);
        assert!(judge_view_result(&observations(Some(Value::Null), true)).detail.contains("without its structuredContent"));
        let silent = judge_view_result(&observations(None, false));
        assert_eq!(silent.outcome, Outcome::No);
        assert!(silent.detail.contains("never read") && silent.has_opportunity(), "{silent:?}");
    }

    #[test]
    fn a_read_of_the_view_is_a_yes_whenever_it_comes() {
        assert_eq!(judge_view_read(&observations(None, true)).outcome, Outcome::Yes);
        assert!(judge_view_read(&observations(None, true)).detail.contains("after the tool was called"));
        assert_eq!(judge_view_read(&observations(None, false)).outcome, Outcome::No);
    }
}
