//! MCP Apps (the `io.modelcontextprotocol/ui` extension), served in the apps variant.
//!
//! `tools/list` holds two tools that share one view, the HTML resource [`VIEW_URI`]:
//! - [`TOOL_APP_VIEW`], for the model and the view alike (no `visibility`, so both). Its result
//!   carries words for the model ([`VIEW_TEXT_CANARY`]) and, for the view only, a
//!   `structuredContent` whose serial differs from call to call.
//! - [`TOOL_APP_REPORT`], for the view only (`visibility: ["app"]`): a host must keep it out of
//!   its model's tools. The view calls it, through the host, with the `structuredContent` it was
//!   handed, so the server's journal shows what reached the view.
//!
//! The view is a page whose script speaks the extension's postMessage protocol: it opens with
//! `ui/initialize`, and when the host hands it the tool's result
//! (`ui/notifications/tool-result`) it asks the host to call [`TOOL_APP_REPORT`]. A host that
//! renders the view runs that script; the reference host plays it (see the runner).

use serde_json::{json, Value};

/// The extension's identifier, in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App's HTML.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The view both tools name.
pub const VIEW_URI: &str = "ui://probe/view.html";
/// The tool with a view, offered to the model.
pub const TOOL_APP_VIEW: &str = "probe_app_view";
/// The tool only the view may call.
pub const TOOL_APP_REPORT: &str = "probe_app_report";
/// The argument of [`TOOL_APP_REPORT`] that holds the `structuredContent` the view was handed.
pub const REPORT_ARGUMENT: &str = "structured";
/// Words in [`TOOL_APP_VIEW`]'s text content: what a host without apps shows its model.
pub const VIEW_TEXT_CANARY: &str = "app-view-text-4d1c";
/// The key of [`TOOL_APP_VIEW`]'s `structuredContent` that holds the call's serial.
pub const SERIAL_KEY: &str = "view_serial";

/// The two tools of the apps variant, as listed.
pub fn tools() -> Vec<Value> {
    vec![
        json!({
            "name": TOOL_APP_VIEW,
            "description": "Shows a small table in its view; its text says what the table holds",
            "inputSchema": {"type": "object", "properties": {"topic": {"type": "string"}}},
            "outputSchema": {"type": "object", "properties": {SERIAL_KEY: {"type": "string"}, "rows": {"type": "array", "items": {"type": "integer"}}},
                             "required": [SERIAL_KEY, "rows"]},
            "_meta": {"ui": {"resourceUri": VIEW_URI}}
        }),
        json!({
            "name": TOOL_APP_REPORT,
            "description": "Called by the view of probe_app_view with what it was handed; not for the model",
            "inputSchema": {"type": "object", "properties": {REPORT_ARGUMENT: {"type": "object"}}, "required": [REPORT_ARGUMENT]},
            "_meta": {"ui": {"resourceUri": VIEW_URI, "visibility": ["app"]}}
        }),
    ]
}

/// The view as `resources/list` shows it.
pub fn view_resource() -> Value {
    json!({"uri": VIEW_URI, "name": "probe-view", "mimeType": APP_MIME_TYPE, "description": "The view of probe_app_view"})
}

/// The `structuredContent` of call number `serial` of [`TOOL_APP_VIEW`].
pub fn structured(serial: u64) -> Value {
    json!({SERIAL_KEY: format!("view-{serial}"), "rows": [3, 1, 4]})
}

/// The whole result of call number `serial` of [`TOOL_APP_VIEW`].
pub fn view_result(serial: u64) -> Value {
    json!({
        "content": [{"type": "text", "text": format!("{VIEW_TEXT_CANARY}: the table holds three rows (3, 1, 4)")}],
        "structuredContent": structured(serial)
    })
}

/// The tool's view named in a listed tool's `_meta.ui`, if any.
pub fn resource_uri(tool_meta: Option<&Value>) -> Option<&str> {
    tool_meta?.pointer("/ui/resourceUri")?.as_str()
}

/// Whether a listed tool's `_meta.ui.visibility` lets `who` (`"model"` or `"app"`) see it; a
/// tool without one is for both.
pub fn visible_to(tool_meta: Option<&Value>, who: &str) -> bool {
    match tool_meta.and_then(|m| m.pointer("/ui/visibility")).and_then(Value::as_array) {
        Some(list) => list.iter().any(|v| v == who),
        None => true,
    }
}

/// The view's page: it speaks the extension's protocol to its host over postMessage and reports
/// the result it is handed by calling [`TOOL_APP_REPORT`] through the host.
pub fn view_html() -> String {
    const PAGE: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>probe view</title></head>
<body><p id="state">waiting for the tool's result</p>
<script>
let next = 1;
const waiting = new Map();
function post(message) { window.parent.postMessage(message, "*"); }
function ask(method, params) {
  const id = next++;
  post({jsonrpc: "2.0", id, method, params});
  return new Promise((resolve) => waiting.set(id, resolve));
}
window.addEventListener("message", (event) => {
  const message = event.data;
  if (!message || message.jsonrpc !== "2.0") return;
  if (message.id !== undefined && waiting.has(message.id)) {
    waiting.get(message.id)(message);
    waiting.delete(message.id);
    return;
  }
  if (message.method === "ui/notifications/tool-result") {
    const structured = (message.params && message.params.structuredContent) || null;
    document.getElementById("state").textContent = "reporting what arrived";
    ask("tools/call", {name: "TOOL", arguments: {ARGUMENT: structured}});
  }
});
ask("ui/initialize", {protocolVersion: "2026-01-26", appInfo: {name: "probe-view", version: "1"}, appCapabilities: {}})
  .then(() => post({jsonrpc: "2.0", method: "ui/notifications/initialized", params: {}}));
</script></body></html>
"#;
    PAGE.replace("TOOL", TOOL_APP_REPORT).replace("ARGUMENT", REPORT_ARGUMENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_tool_is_for_the_view_only_and_both_name_the_view() {
        let tools = tools();
        let (view, report) = (&tools[0], &tools[1]);
        assert!(visible_to(view.get("_meta"), "model") && visible_to(view.get("_meta"), "app"));
        assert!(!visible_to(report.get("_meta"), "model") && visible_to(report.get("_meta"), "app"));
        assert_eq!(resource_uri(view.get("_meta")), Some(VIEW_URI));
        assert_eq!(resource_uri(report.get("_meta")), Some(VIEW_URI));
        assert!(view_html().contains(&format!("name: \"{TOOL_APP_REPORT}\", arguments: {{{REPORT_ARGUMENT}: structured}}")));
    }

    #[test]
    fn each_call_gets_its_own_structured_content() {
        assert_ne!(structured(1), structured(2));
        assert_eq!(view_result(7)["structuredContent"], structured(7));
        assert!(!view_result(7)["content"].to_string().contains("view-7"), "the serial is for the view only");
    }
}
