//! The reference client's answers to the server: elicitation, sampling, roots, ping and the
//! list_changed notifications. Correct by default; each ablation breaks exactly one answer.
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Duration;

use probe_server::surface::{self, enum_fields};
use rmcp::model::*;
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData as McpError};
use serde_json::{json, Value};
use tokio::sync::Notify;

use super::ablation::Ablation;
use super::variation::Variation;

/// How long the simulated person takes to answer a form: well above the auto-answer threshold.
pub const PERSON_DELAY: Duration = Duration::from_millis(150);

/// Which list_changed notifications arrived, with a way to wait for them.
#[derive(Default)]
pub struct ListChanges {
    pub tools: std::sync::atomic::AtomicBool,
    pub resources: std::sync::atomic::AtomicBool,
    pub prompts: std::sync::atomic::AtomicBool,
    /// `notifications/resources/updated` arrived for a subscribed resource.
    pub updated: std::sync::atomic::AtomicBool,
    /// A second listen stream was opened after the server ended the first.
    pub relistened: std::sync::atomic::AtomicBool,
    /// A request failed in the transport: the session is gone, nothing more will arrive.
    pub lost: std::sync::atomic::AtomicBool,
    pub arrived: Notify,
}

/// The push notifications of the events extension that arrived (`notifications/events/*`), each
/// with when it arrived.
#[derive(Default)]
pub struct Pushed {
    pub arrived: std::sync::Mutex<Vec<(std::time::Instant, String, Value)>>,
}

impl Pushed {
    /// Keeps the notification `method` with `params` if it is one of the events extension's.
    pub fn record(&self, method: &str, params: Value) {
        if method.starts_with("notifications/events/") {
            self.arrived.lock().unwrap_or_else(|p| p.into_inner()).push((std::time::Instant::now(), method.to_string(), params));
        }
    }
}

#[derive(Clone)]
pub struct ReferenceHandler {
    ablation: Option<Ablation>,
    variation: Option<Variation>,
    /// How long the person takes over a form: [`PERSON_DELAY`], or nothing where nobody sits at
    /// the keyboard (the reference host, whose runs judge only what its model was shown).
    person_delay: Duration,
    /// The version its `initialize` asks for, where not rmcp's latest (a fallback from
    /// `server/discover` asks for a legacy one).
    initialize_version: Option<ProtocolVersion>,
    /// The reference host's model (the stub's base URL): a sampling request without tools is
    /// passed on to it. Without one, sampling is answered here.
    model_url: Option<Arc<str>>,
    pub changes: Arc<ListChanges>,
    pub pushed: Arc<Pushed>,
    /// Lines to put between the client's own messages on an in-process stdio pipe.
    pub injector: super::inject::Injector,
}

impl ReferenceHandler {
    pub fn new(ablation: Option<Ablation>, variation: Option<Variation>) -> Self {
        ReferenceHandler {
            ablation,
            variation,
            person_delay: PERSON_DELAY,
            initialize_version: None,
            model_url: None,
            changes: Arc::default(),
            pushed: Arc::default(),
            injector: Default::default(),
        }
    }

    /// The same client, asking for `version` in its `initialize`.
    pub fn initializing_with(self, version: Option<ProtocolVersion>) -> Self {
        ReferenceHandler { initialize_version: version, ..self }
    }

    /// The same client, passing sampling requests without tools on to the model at `url`.
    pub fn with_model(self, url: &str) -> Self {
        ReferenceHandler { model_url: Some(url.into()), ..self }
    }

    /// The same client with nobody at the keyboard: forms are answered at once.
    pub fn unattended(self) -> Self {
        ReferenceHandler { person_delay: Duration::ZERO, ..self }
    }

    pub fn ablation(&self) -> Option<Ablation> {
        self.ablation
    }

    pub fn variation(&self) -> Option<Variation> {
        self.variation
    }

    fn is(&self, ablation: Ablation) -> bool {
        self.ablation == Some(ablation)
    }

    /// Handles a notification that arrived on a `subscriptions/listen` stream (2026-07-28): those
    /// do not reach the callbacks below.
    pub fn on_subscription_notification(&self, notification: &ServerNotification) {
        match notification {
            ServerNotification::ToolListChangedNotification(_) => self.mark(&self.changes.tools, Ablation::IgnoreToolsListChanged),
            ServerNotification::ResourceListChangedNotification(_) => self.mark(&self.changes.resources, Ablation::IgnoreResourcesListChanged),
            ServerNotification::PromptListChangedNotification(_) => self.mark(&self.changes.prompts, Ablation::IgnorePromptsListChanged),
            ServerNotification::ResourceUpdatedNotification(_) => self.mark(&self.changes.updated, Ablation::NoReread),
            _ => {}
        }
    }

    fn mark(&self, flag: &std::sync::atomic::AtomicBool, ignored: Ablation) {
        if !self.is(ignored) {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            self.changes.arrived.notify_waiters();
        }
    }

    fn form_answer(&self, schema: &Value) -> Value {
        let props = &schema["properties"];
        if props.get("email").is_some() {
            return json!({"email": "person@example.org", "count": 4, "ratio": 0.25, "agree": true, "note": "from the reference client"});
        }
        let pick = |normal: Value, ablation: Ablation, broken: Value| if self.is(ablation) { broken } else { normal };
        json!({
            enum_fields::UNTITLED_SINGLE: pick(json!("blue"), Ablation::EnumUntitledSingleInvalid, json!("purple")),
            enum_fields::TITLED_SINGLE: pick(json!("m"), Ablation::EnumTitledSingleTitle, json!("Medium")),
            enum_fields::UNTITLED_MULTI: pick(json!(["tea", "water"]), Ablation::EnumMultiAsString, json!("tea")),
            enum_fields::TITLED_MULTI: pick(json!(["x2"]), Ablation::EnumTitledMultiTitle, json!(["Option two"])),
            enum_fields::LEGACY_NAMES: pick(json!("hi"), Ablation::EnumLegacyName, json!("High")),
        })
    }
}

/// What the full reference client declares (for a request it sends outside rmcp).
pub(crate) fn declared_capabilities() -> ClientCapabilities {
    capabilities(None, None)
}

fn capabilities(variation: Option<Variation>, ablation: Option<Ablation>) -> ClientCapabilities {
    let mut declared = json!({
        "roots": {"listChanged": true},
        "sampling": {"tools": {}, "context": {}},
        "elicitation": {"form": {}, "url": {}},
        "extensions": {probe_server::apps::EXTENSION_ID: {"mimeTypes": [probe_server::apps::APP_MIME_TYPE]}, probe_server::tasks::EXTENSION_ID: {}, probe_server::events::EXTENSION_ID: {}}
    });
    if ablation == Some(Ablation::UnprefixedExtension) {
        declared["extensions"]["reference-views"] = json!({});
    }
    if variation == Some(Variation::ExperimentalCapability) {
        declared["experimental"] = json!({"io.example/reference-probe": {"enabled": true}});
    }
    if variation == Some(Variation::Negotiates20241105) {
        // Sampling with tools came in 2025-11-25: a client of 2024-11-05 does not declare it.
        declared["sampling"] = json!({});
    }
    serde_json::from_value(declared).unwrap_or_default()
}

/// How fast the decline-in-3ms variation answers a form.
const AT_ONCE: std::time::Duration = std::time::Duration::from_millis(3);
/// How long a headless host of the `unattended-slow-cancel` variation takes to cancel: slower than
/// the 100 ms a person needs at least, so only the run's unattended note can call it automatic.
const UNATTENDED_CANCEL: std::time::Duration = std::time::Duration::from_millis(300);

impl ReferenceHandler {
    /// Passes a sampling request on to the model at `url` (Chat Completions): its
    /// `systemPrompt` as the system message, its text messages, its `maxTokens` as the output
    /// limit; the model's text and name make the result.
    async fn ask_model(&self, url: &str, params: &CreateMessageRequestParams) -> Result<Value, McpError> {
        let failed = |e: String| McpError::internal_error(format!("the model did not answer: {e}"), None);
        let mut messages = Vec::new();
        if let Some(system) = params.system_prompt.as_deref().filter(|_| !self.is(Ablation::SamplingDropSystemPrompt)) {
            messages.push(json!({"role": "system", "content": system}));
        }
        for message in &params.messages {
            let text = serde_json::to_value(&message.content).ok().and_then(|c| sampled_text(&c)).unwrap_or_default();
            messages.push(json!({"role": serde_json::to_value(&message.role).unwrap_or(json!("user")), "content": text}));
        }
        let limit = if self.is(Ablation::SamplingIgnoreMaxTokens) { UNBOUNDED_SAMPLING_TOKENS } else { u64::from(params.max_tokens) };
        let body = json!({"model": "stub-model", "stream": false, "messages": messages, "max_tokens": limit});
        let http = super::loopback_http().map_err(|e| failed(e.to_string()))?;
        let response = http.post(format!("{url}/v1/chat/completions")).json(&body).send().await.map_err(|e| failed(e.to_string()))?;
        let reply: Value = response.json().await.map_err(|e| failed(e.to_string()))?;
        let text = reply.pointer("/choices/0/message/content").and_then(Value::as_str).unwrap_or_default();
        let model = reply.get("model").and_then(Value::as_str).unwrap_or("stub-model");
        Ok(json!({"role": "assistant", "model": model, "stopReason": "endTurn", "content": {"type": "text", "text": text}}))
    }
}

/// The text of a sampling message's content: one text block, or the text blocks of a list.
fn sampled_text(content: &Value) -> Option<String> {
    match content {
        Value::Array(blocks) => Some(blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")),
        block => block.get("text").and_then(Value::as_str).map(str::to_string),
    }
}

/// The output limit the sampling-ignore-max-tokens ablation gives its model.
const UNBOUNDED_SAMPLING_TOKENS: u64 = 4096;

impl ClientHandler for ReferenceHandler {
    fn get_info(&self) -> ClientInfo {
        let info = ClientInfo::new(capabilities(self.variation, self.ablation), super::implementation());
        match &self.initialize_version {
            Some(version) => info.with_protocol_version(version.clone()),
            None => info,
        }
    }

    async fn on_custom_request(&self, request: CustomRequest, _context: RequestContext<RoleClient>) -> Result<CustomResult, McpError> {
        if self.is(Ablation::AnswerUnknownRequest) {
            return Ok(CustomResult::new(json!({})));
        }
        Err(McpError::new(ErrorCode::METHOD_NOT_FOUND, request.method, None))
    }

    async fn ping(&self, _context: RequestContext<RoleClient>) -> Result<(), McpError> {
        if self.is(Ablation::PingError) {
            return Err(McpError::internal_error("ping refused", None));
        }
        if self.variation == Some(Variation::NeverAnswersPing) {
            // Dropped when the server cancels the ping or the session ends.
            std::future::pending::<()>().await;
        }
        Ok(())
    }

    async fn create_elicitation(&self, request: ElicitRequestParams, _context: RequestContext<RoleClient>) -> Result<ElicitResult, McpError> {
        let wire = serde_json::to_value(&request).unwrap_or_default();
        if self.variation == Some(Variation::UnattendedSlowCancel) {
            tokio::time::sleep(UNATTENDED_CANCEL).await;
            return Ok(ElicitResult::new(ElicitationAction::Cancel));
        }
        if wire.get("mode").and_then(Value::as_str) == Some("url") {
            if self.is(Ablation::UrlUnsupported) {
                return Err(McpError::invalid_params("URL-mode elicitation is not supported", None));
            }
            if let (true, Some(url)) = (self.is(Ablation::PrefetchUrl), wire.get("url").and_then(Value::as_str)) {
                // A link preview: the page fetched before anybody agreed to visit it.
                if let Ok(http) = super::loopback_http() {
                    let _ = http.get(url).send().await;
                }
            }
            tokio::time::sleep(self.person_delay).await;
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        let schema = wire.get("requestedSchema").cloned().unwrap_or_default();
        if self.variation == Some(Variation::DeclineIn3Ms) {
            tokio::time::sleep(AT_ONCE).await;
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        if self.is(Ablation::ElicitAutoDecline) && schema["properties"].get("email").is_some() {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        tokio::time::sleep(self.person_delay).await;
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(self.form_answer(&schema)))
    }

    async fn create_message(&self, params: CreateMessageRequestParams, _context: RequestContext<RoleClient>) -> Result<CreateMessageResult, McpError> {
        if self.is(Ablation::SamplingError) {
            return Err(McpError::internal_error("sampling refused", None));
        }
        if self.is(Ablation::RefusesIncludeContext) && params.include_context.is_some() {
            return Err(McpError::invalid_params("includeContext is not supported", None));
        }
        if self.is(Ablation::SamplingRefusePreferences) && params.model_preferences.is_some() {
            return Err(McpError::invalid_params("modelPreferences is not supported", None));
        }
        let wants_tool = params.tools.as_ref().is_some_and(|t| !t.is_empty()) && !self.is(Ablation::SamplingIgnoreTools);
        let result = if wants_tool {
            json!({"role": "assistant", "model": "reference-model", "stopReason": "toolUse",
                   "content": [{"type": "tool_use", "id": "call-1", "name": surface::SAMPLING_TOOL_NAME, "input": {"city": "Lisbon"}}]})
        } else if let Some(url) = &self.model_url {
            self.ask_model(url, &params).await?
        } else {
            json!({"role": "assistant", "model": "reference-model", "stopReason": "endTurn", "content": {"type": "text", "text": "probed"}})
        };
        serde_json::from_value(result).map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, McpError> {
        let uri = if self.is(Ablation::RootsNonFile) { "https://example.org/workspace" } else { "file:///tmp/mcp-client-probe-root" };
        serde_json::from_value(json!({"roots": [{"uri": uri, "name": "workspace"}]})).map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.mark(&self.changes.tools, Ablation::IgnoreToolsListChanged);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.mark(&self.changes.resources, Ablation::IgnoreResourcesListChanged);
    }

    async fn on_resource_updated(&self, _params: ResourceUpdatedNotificationParam, _context: NotificationContext<RoleClient>) {
        self.mark(&self.changes.updated, Ablation::NoReread);
    }

    async fn on_custom_notification(&self, notification: CustomNotification, _context: NotificationContext<RoleClient>) {
        self.pushed.record(&notification.method, notification.params.unwrap_or(Value::Null));
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.mark(&self.changes.prompts, Ablation::IgnorePromptsListChanged);
    }
}
