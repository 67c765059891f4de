//! The reference host's MCP Apps side (`io.modelcontextprotocol/ui`). It keeps a tool from its
//! model when the tool's `_meta.ui.visibility` leaves out `"model"`; after a call of a tool that
//! names a `ui://` view it reads the view (once), runs it when its MIME type is the app one, and
//! hands it the call's arguments and result. It cannot run the page's script, so it plays it:
//! [`PlayedView`] does what the served page does with what it is handed (it asks its host to call
//! the tool for the view alone with the `structuredContent` it got). The host's bridge passes a
//! view's `tools/call` on only for a tool of the same server whose visibility includes `"app"`.

use std::collections::HashMap;

use probe_server::apps::{self as served, APP_MIME_TYPE};
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, Tool};
use serde_json::{json, Value};

use super::{Ablation, Client, Variation};

/// A listed tool's `_meta`, as the wire had it.
fn meta_of(tool: &Tool) -> Option<Value> {
    serde_json::to_value(tool).ok()?.get("_meta").cloned()
}

/// The `ui://` view a listed tool names, if any.
fn view_of(tool: &Tool) -> Option<String> {
    served::resource_uri(meta_of(tool).as_ref()).map(str::to_string)
}

/// Whether the host offers `tool` to its model.
pub fn offered_to_model(tool: &Tool, ablation: Option<Ablation>) -> bool {
    match ablation {
        Some(Ablation::HideUiTools) if view_of(tool).is_some() => false,
        Some(Ablation::OfferAppOnlyTools) => true,
        _ => served::visible_to(meta_of(tool).as_ref(), "model"),
    }
}

/// A view as the host read it: what it needs of it, its MIME type.
#[derive(Debug, Clone)]
struct View {
    mime_type: Option<String>,
}

/// The host's views, read once each.
pub struct AppHost {
    ablation: Option<Ablation>,
    views: HashMap<String, View>,
}

impl AppHost {
    pub fn new(ablation: Option<Ablation>) -> Self {
        AppHost { ablation, views: HashMap::new() }
    }

    /// Reads every view the listed tools name, ahead of any call (the prefetch-views variation).
    pub async fn prefetch(&mut self, client: &Client, tools: &[Tool], variation: Option<Variation>) {
        if variation != Some(Variation::PrefetchViews) {
            return;
        }
        for uri in tools.iter().filter_map(view_of) {
            self.view(client, &uri).await;
        }
    }

    /// The view at `uri`, read the first time it is needed (never, in the never-read-views
    /// ablation).
    async fn view(&mut self, client: &Client, uri: &str) -> Option<View> {
        if self.ablation == Some(Ablation::NeverReadViews) {
            return None;
        }
        if let Some(view) = self.views.get(uri) {
            return Some(view.clone());
        }
        let read = client.read_resource(ReadResourceRequestParams::new(uri)).await.ok()?;
        let mime_type = read.contents.iter().find_map(|c| serde_json::to_value(c).ok()?.get("mimeType")?.as_str().map(str::to_string));
        let view = View { mime_type };
        self.views.insert(uri.to_string(), view.clone());
        Some(view)
    }

    /// After the model's call of `tool` brought `result`: runs the tool's view, if it has one
    /// the host can show, and serves what the view asks of it.
    pub async fn after_call(&mut self, client: &Client, tool: &Tool, tools: &[Tool], result: &Value) {
        let Some(uri) = view_of(tool) else { return };
        let Some(view) = self.view(client, &uri).await else { return };
        if view.mime_type.as_deref() != Some(APP_MIME_TYPE) {
            return;
        }
        let mut handed = result.clone();
        if self.ablation == Some(Ablation::ViewWithoutStructuredContent) {
            if let Some(object) = handed.as_object_mut() {
                object.remove("structuredContent");
            }
        }
        if let Some((name, arguments)) = PlayedView.tool_result(&handed) {
            let _ = bridge_call(client, tools, &name, arguments).await;
        }
    }
}

/// Passes a view's `tools/call` to the server when the tool is one of the server's and its
/// visibility includes `"app"`; anything else is refused (the view is told, the server never
/// sees it).
async fn bridge_call(client: &Client, tools: &[Tool], name: &str, arguments: Value) -> Result<Value, BridgeRefused> {
    let Some(tool) = tools.iter().find(|t| t.name == name) else { return Err(BridgeRefused::NoSuchTool(name.to_string())) };
    if !served::visible_to(meta_of(tool).as_ref(), "app") {
        return Err(BridgeRefused::NotForViews(name.to_string()));
    }
    let mut params = CallToolRequestParams::new(name.to_string());
    if let Value::Object(arguments) = arguments {
        params = params.with_arguments(arguments);
    }
    let result = client.call_tool(params).await?;
    Ok(serde_json::to_value(result)?)
}

/// Why a view's `tools/call` brought it no result.
#[derive(Debug, thiserror::Error)]
enum BridgeRefused {
    #[error("the server has no tool {0}")]
    NoSuchTool(String),
    #[error("{0} is not for views")]
    NotForViews(String),
    #[error(transparent)]
    Call(#[from] rmcp::ServiceError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// The served page's script, played: what it asks its host for when the host hands it the
/// tool's result (`ui/notifications/tool-result`): a call of the tool for the view alone,
/// reporting the result's `structuredContent`. (The page does nothing with the tool's input.)
struct PlayedView;

impl PlayedView {
    fn tool_result(&self, result: &Value) -> Option<(String, Value)> {
        let structured = result.get("structuredContent").cloned().unwrap_or(Value::Null);
        Some((served::TOOL_APP_REPORT.to_string(), json!({served::REPORT_ARGUMENT: structured})))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(index: usize) -> Tool {
        serde_json::from_value(served::tools()[index].clone()).expect("a listed tool")
    }

    #[test]
    fn the_model_is_offered_the_tool_with_a_view_and_not_the_one_for_the_view() {
        let (view, report) = (listed(0), listed(1));
        assert!(offered_to_model(&view, None) && !offered_to_model(&report, None));
        assert!(offered_to_model(&report, Some(Ablation::OfferAppOnlyTools)));
        assert!(!offered_to_model(&view, Some(Ablation::HideUiTools)));
        assert_eq!(view_of(&view).as_deref(), Some(served::VIEW_URI));
    }

    #[test]
    fn the_played_view_reports_the_structured_content_it_was_handed() {
        let result = served::view_result(3);
        let (tool, arguments) = PlayedView.tool_result(&result).expect("a report");
        assert_eq!(tool, served::TOOL_APP_REPORT);
        assert_eq!(arguments[served::REPORT_ARGUMENT], served::structured(3));
        let (_, without) = PlayedView.tool_result(&json!({"content": []})).expect("a report");
        assert_eq!(without[served::REPORT_ARGUMENT], Value::Null);
    }
}
