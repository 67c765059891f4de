//! The probe server's MCP behaviour: one rmcp `ServerHandler` that serves every probe's surface
//! (see [`crate::surface`]) in both eras. It judges nothing; it serves and notes, and the journal
//! written by the transports holds the evidence.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use rmcp::model::*;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::era::{Era, EraPolicy, LEGACY_VERSIONS, MODERN_VERSION};
use crate::journal::{Entry, Journal, Transport};
use crate::note::{self, Payload};
use crate::skills;
use crate::surface as s;
use crate::variant::Variant;

/// How the server presents itself for one run.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    pub era: EraPolicy,
    /// Serve exactly this protocol version (a counter-offer for legacy clients).
    pub protocol_version: Option<String>,
    /// The server variant.
    pub variant: Variant,
    /// In the interactive-withdrawn variant: how long before the request is withdrawn
    /// (default [`WITHDRAW_AFTER`]).
    pub withdraw_after: Option<Duration>,
    /// How long a server→client request waits for its answer outside the interactive variants
    /// (default [`CLIENT_ANSWER_TIMEOUT`]).
    pub answer_timeout: Option<Duration>,
    /// How long the server's ping waits for its answer (default: the answer timeout above).
    pub ping_timeout: Option<Duration>,
    /// Over HTTP: how long a request head, or the next chunk of a body, may take to arrive
    /// (default [`crate::transport::http::READ_TIMEOUT`]).
    pub read_timeout: Option<Duration>,
    /// In the long-calls variant: how long the slow call runs (default
    /// [`crate::long_calls::SLOW_CALL`]).
    pub long_call: Option<Duration>,
    /// How long `probe_progress` waits between its last notification and its result (default
    /// [`PROGRESS_GAP`]).
    pub progress_gap: Option<Duration>,
    /// In the tasks variant: how long the task tools run before they end.
    pub task_timing: crate::tasks::TaskTiming,
}

/// The version the version-downgrade variant answers every `initialize` with: older than any
/// client asks for today, new enough for Streamable HTTP.
pub const DOWNGRADE_VERSION: &str = "2025-03-26";

/// How long the server waits for a client's answer to a server→client request.
pub const CLIENT_ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// The same in the interactive variants, where a person fills the form in.
pub const PERSON_ANSWER_TIMEOUT: Duration = Duration::from_secs(300);
/// In the interactive-withdrawn variant the server gives up on the person after this long and
/// withdraws its request (`notifications/cancelled`).
pub const WITHDRAW_AFTER: Duration = Duration::from_secs(6);
/// How long `probe_progress` waits after its notifications before it answers. A host built on
/// the TypeScript SDK that reads the notifications and the result in one chunk handles the
/// result first and then finds the progress token unknown; Qwen Code counts that as a lost
/// connection, and every later probe of the run would pay for it. With the gap they arrive
/// apart, so the run measures what each probe asks and not that race.
pub const PROGRESS_GAP: Duration = Duration::from_millis(250);
/// How long `probe_ping` waits for the answer to the request no revision defines.
const UNKNOWN_REQUEST_WAIT: Duration = Duration::from_secs(2);

struct Shared {
    journal: Journal,
    session: String,
    transport: Transport,
    options: ServeOptions,
    lists_changed: AtomicBool,
    serial: AtomicU64,
    /// Open `subscriptions/listen` streams (2026-07-28), for sending list changes and updates.
    listeners: std::sync::Mutex<Vec<rmcp::service::SubscriptionSink>>,
    /// Cancelled when the client is gone (end of stdio input, HTTP shutdown): ends open listens.
    closing: tokio_util::sync::CancellationToken,
    /// Told when the lists changed, so that one listen stream can then be ended by the server.
    changed: tokio::sync::Notify,
    /// Whether the server has already ended a listen stream (it ends only the first).
    ended_a_listen: AtomicBool,
    /// Listen handlers still running, and a signal each time one returns.
    open_listens: std::sync::atomic::AtomicUsize,
    listen_returned: tokio::sync::Notify,
    /// The URL-mode elicitation's URL: the fetch trap's, where one could be opened.
    elicit_url: String,
    /// The URL of the remote schema `probe_schema_remote`'s `$ref` points at, on the same trap.
    schema_url: String,
    /// The trap's origin (or a port nothing listens on), where the server's and a tool's icons are.
    icon_origin: String,
    /// The tasks of the tasks variant (2026-07-28 extension).
    tasks: crate::tasks::Tasks,
}

/// The MCP handler. Cheap to clone; clones share state (HTTP creates one per session).
#[derive(Clone)]
pub struct ProbeServer {
    shared: Arc<Shared>,
}

fn typed<T: DeserializeOwned>(value: Value) -> Result<T, McpError> {
    serde_json::from_value(value).map_err(|e| McpError::internal_error(format!("probe surface does not fit the SDK type: {e}"), None))
}

/// A result built from JSON, marked `resultType: "complete"` (rmcp strips it for legacy peers).
fn complete<T: DeserializeOwned>(mut value: Value) -> Result<T, McpError> {
    value["resultType"] = json!("complete");
    typed(value)
}

/// A refused task request: an unknown task or input key is the client's invalid params.
fn task_error(error: crate::tasks::TaskError) -> McpError {
    McpError::invalid_params(error.to_string(), None)
}

fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

fn page<T: Clone>(items: &[T], first_page: usize, cursor: Option<&str>, next: &str) -> Result<(Vec<T>, Option<String>), McpError> {
    match cursor {
        None => Ok((items[..first_page.min(items.len())].to_vec(), Some(next.to_string()))),
        Some(c) if c == next => Ok((items[first_page.min(items.len())..].to_vec(), None)),
        Some(other) => Err(McpError::invalid_params(format!("unknown cursor {other:?}"), None)),
    }
}

fn is_modern(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version().is_some_and(|v| Era::of_version(v.as_str()) == Era::Modern)
}

impl ProbeServer {
    pub fn new(journal: Journal, session: impl Into<String>, transport: Transport, mut options: ServeOptions) -> Self {
        let task_timing = options.task_timing;
        if options.variant.legacy_only() {
            options.era = EraPolicy::Legacy;
        }
        if options.variant.modern_only() {
            options.era = EraPolicy::Modern;
        }
        if options.variant == Variant::VersionDowngrade {
            options.protocol_version.get_or_insert_with(|| DOWNGRADE_VERSION.to_string());
        }
        let (session, closing) = (session.into(), tokio_util::sync::CancellationToken::new());
        let trap = crate::fetch_trap::open(journal.clone(), session.clone(), transport, closing.clone());
        // Without a trap (no listener could be opened) the schema and the icons point at a port
        // nothing listens on, and the URL request at the fixed example URL.
        let elicit_url = trap.as_ref().map_or_else(|| s::ELICIT_URL.to_string(), |origin| format!("{origin}{}", crate::fetch_trap::TRAP_PATH));
        let icon_origin = trap.unwrap_or_else(|| "http://127.0.0.1:9".to_string());
        let schema_url = format!("{icon_origin}{}", crate::fetch_trap::SCHEMA_PATH);
        ProbeServer {
            shared: Arc::new(Shared {
                journal,
                session,
                transport,
                options,
                lists_changed: AtomicBool::new(false),
                serial: AtomicU64::new(0),
                listeners: std::sync::Mutex::new(Vec::new()),
                closing,
                changed: tokio::sync::Notify::new(),
                ended_a_listen: AtomicBool::new(false),
                open_listens: std::sync::atomic::AtomicUsize::new(0),
                listen_returned: tokio::sync::Notify::new(),
                elicit_url,
                schema_url,
                icon_origin,
                tasks: crate::tasks::Tasks::new(task_timing),
            }),
        }
    }

    /// Journals which server variant is serving: the first note of every journal. The transport
    /// adds what it knows (`loopback`, `closed_connections_seen`).
    pub fn note_serving(&self, transport_says: impl FnOnce(&mut note::Serving)) {
        let mut serving = note::Serving {
            variant: Some(self.shared.options.variant.to_string()),
            era_policy: self.shared.options.era,
            loopback: None,
            closed_connections_seen: None,
            // Where the journal's clock starts, for notes the runner places on it afterwards.
            clock_zero_unix_us: Some(self.shared.journal.zero_unix_us()),
        };
        transport_says(&mut serving);
        self.note(&serving);
    }

    /// Cancel this when the client has gone, so that long-lived handlers (listen) end.
    pub fn closing(&self) -> tokio_util::sync::CancellationToken {
        self.shared.closing.clone()
    }

    /// Resolves once no listen handler is running (after [`Self::closing`] was cancelled, soon).
    pub async fn listens_closed(&self) {
        loop {
            let returned = self.shared.listen_returned.notified();
            if self.shared.open_listens.load(Ordering::SeqCst) == 0 {
                return;
            }
            returned.await;
        }
    }

    fn note(&self, payload: &impl Payload) {
        self.shared.journal.log(Entry::note(&self.shared.session, self.shared.transport, payload.detail()));
    }

    fn changed(&self) -> bool {
        self.shared.lists_changed.load(Ordering::SeqCst)
    }

    /// How long a legacy server→client request may wait for its answer.
    fn answer_timeout(&self) -> Duration {
        match self.shared.options.variant {
            Variant::InteractiveWithdrawn => self.shared.options.withdraw_after.unwrap_or(WITHDRAW_AFTER),
            s if s.is_interactive() => PERSON_ANSWER_TIMEOUT,
            _ => self.machine_answer_timeout(),
        }
    }

    /// How long a request that no person answers (ping) may wait for the client's answer, in
    /// every variant.
    fn machine_answer_timeout(&self) -> Duration {
        self.shared.options.answer_timeout.unwrap_or(CLIENT_ANSWER_TIMEOUT)
    }

    /// How long the server's ping waits for its answer.
    fn ping_timeout(&self) -> Duration {
        self.shared.options.ping_timeout.unwrap_or_else(|| self.machine_answer_timeout())
    }

    fn next_serial(&self) -> u64 {
        self.shared.serial.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// One server→client input, asked the way the request's era allows: a JSON-RPC request in the
    /// legacy era, an `InputRequiredResult` in the modern era.
    async fn ask(&self, tool: &str, method: &str, params: Value, request: &CallToolRequestParams, ctx: &RequestContext<RoleServer>) -> Result<CallToolResponse, McpError> {
        if is_modern(ctx) {
            let key = s::input_key_for(tool);
            if let Some(answer) = request.input_responses.as_ref().and_then(|r| r.get(&key)) {
                self.note(&note::InputResponse { tool: tool.to_string(), request_state: request.request_state.clone(), keys: None });
                return Ok(text_result(format!("{tool}: answered: {answer}")).into());
            }
            let input: InputRequest = typed(json!({"method": method, "params": params}))?;
            let mut requests = InputRequests::new();
            requests.insert(key, input);
            let state = s::request_state_for(tool, self.next_serial());
            return Ok(InputRequiredResult::new(Some(requests), Some(state)).into());
        }
        let peer = ctx.peer.clone();
        // Every server→client request waits the same time for its answer, then is cancelled.
        let outcome = match method {
            "elicitation/create" => peer.create_elicitation_with_timeout(typed(params)?, Some(self.answer_timeout())).await.map(|r| serde_json::to_value(r).unwrap_or_default()),
            "sampling/createMessage" => {
                let params: CreateMessageRequestParams = typed(params)?;
                // What rmcp's create_message checks before it sends.
                if (params.tools.is_some() || params.tool_choice.is_some()) && !peer.supports_sampling_tools() {
                    return Err(McpError::invalid_params("tools or toolChoice provided but client does not support sampling tools capability", None));
                }
                params.validate().map_err(|e| McpError::invalid_params(e, None))?;
                let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
                self.ask_with_timeout(&peer, request).await
            }
            "roots/list" => self.ask_with_timeout(&peer, ServerRequest::ListRootsRequest(Default::default())).await,
            other => return Err(McpError::internal_error(format!("no such input method {other}"), None)),
        };
        Ok(match outcome {
            Ok(answer) => text_result(format!("{tool}: answered: {answer}")),
            Err(err) => CallToolResult::error(vec![ContentBlock::text(format!("{tool}: the client's answer failed: {err}"))]),
        }
        .into())
    }

    /// `probe_two_inputs`: in the modern era two input requests in one `InputRequiredResult`,
    /// and on the retry the keys it answered (asked once: a retry that answers one is not asked
    /// again). Nothing is asked in the legacy era.
    fn ask_two(&self, request: &CallToolRequestParams, ctx: &RequestContext<RoleServer>) -> Result<CallToolResponse, McpError> {
        if !is_modern(ctx) {
            return Ok(text_result("two inputs at once are asked only in 2026-07-28").into());
        }
        if let Some(responses) = request.input_responses.as_ref() {
            let answered: Vec<&str> = s::TWO_INPUT_KEYS.into_iter().filter(|k| responses.get(*k).is_some()).collect();
            self.note(&note::InputResponse {
                tool: s::TOOL_TWO_INPUTS.to_string(),
                request_state: request.request_state.clone(),
                keys: Some(answered.iter().map(|k| k.to_string()).collect()),
            });
            return Ok(text_result(format!("{}: answered {} of 2", s::TOOL_TWO_INPUTS, answered.len())).into());
        }
        let requests: InputRequests = typed(s::two_input_requests())?;
        let state = s::request_state_for(s::TOOL_TWO_INPUTS, self.next_serial());
        Ok(InputRequiredResult::new(Some(requests), Some(state)).into())
    }

    /// Sends `request` to the client and waits [`Self::answer_timeout`] for the answer; on timeout
    /// rmcp cancels the request (`notifications/cancelled`).
    async fn ask_with_timeout(&self, peer: &rmcp::service::Peer<RoleServer>, request: ServerRequest) -> Result<Value, rmcp::service::ServiceError> {
        let options = rmcp::service::PeerRequestOptions::with_timeout(self.answer_timeout());
        let answer = peer.send_request_with_option(request, options).await?.await_response().await?;
        Ok(match answer {
            ClientResult::CreateMessageResult(r) => serde_json::to_value(r).unwrap_or_default(),
            ClientResult::ListRootsResult(r) => serde_json::to_value(r).unwrap_or_default(),
            other => serde_json::to_value(other).unwrap_or_default(),
        })
    }

    async fn progress(&self, ctx: &RequestContext<RoleServer>) -> CallToolResult {
        let token = ctx.meta.get_progress_token();
        if let Some(token) = token.clone() {
            for step in 1..=3u32 {
                let param = ProgressNotificationParam::new(token.clone(), step as f64).with_total(3.0).with_message(format!("step {step} of 3"));
                let _ = ctx.peer.notify_progress(param).await;
            }
        }
        if !is_modern(ctx) {
            let _ = ctx.peer.notify_logging_message(LoggingMessageNotificationParam::new(LoggingLevel::Info, json!("mcp-client-probe log canary")).with_logger("probe")).await;
        }
        tokio::time::sleep(self.shared.options.progress_gap.unwrap_or(PROGRESS_GAP)).await;
        let mut result = text_result(match token {
            Some(t) => format!("sent 3 progress notifications for token {}", serde_json::to_string(&t.0).unwrap_or_default()),
            None => "no progressToken on this call".to_string(),
        });
        // Both content and structuredContent: which of them reaches a host's model is a probe.
        result.structured_content = Some(json!({"canary": s::STRUCTURED_CANARY, "progress_notifications": 3}));
        result
    }

    /// The long-calls variant's slow call: [`crate::long_calls::PROGRESS_STEPS`] progress
    /// notifications spread over its duration (when the call carried a token), then the canary;
    /// it stops early when the client cancels it.
    async fn slow_call(&self, ctx: &RequestContext<RoleServer>) -> CallToolResult {
        use crate::long_calls as l;
        let steps = l::PROGRESS_STEPS;
        let every = self.shared.options.long_call.unwrap_or(l::SLOW_CALL) / steps;
        let token = ctx.meta.get_progress_token();
        for step in 1..=steps {
            tokio::select! {
                _ = ctx.ct.cancelled() => return CallToolResult::error(vec![ContentBlock::text("cancelled")]),
                _ = tokio::time::sleep(every) => {}
            }
            if let (Some(token), true) = (token.clone(), step < steps) {
                let param = ProgressNotificationParam::new(token, f64::from(step)).with_total(f64::from(steps)).with_message(format!("step {step} of {steps}"));
                let _ = ctx.peer.notify_progress(param).await;
            }
        }
        text_result(l::SLOW_CANARY)
    }

    /// `probe_ping` in the 2026-07-28 era, which has no ping: a call without a `requestState` is
    /// answered `input_required` with a state and no input request (a server shedding load,
    /// SEP-2322); a call that brings a state back is told there is no ping.
    fn ping_modern(&self, request: &CallToolRequestParams) -> CallToolResponse {
        match &request.request_state {
            Some(state) => {
                self.note(&note::InputResponse { tool: s::TOOL_PING.to_string(), request_state: Some(state.clone()), keys: None });
                CallToolResult::error(vec![ContentBlock::text("ping does not exist in the 2026-07-28 era")]).into()
            }
            None => InputRequiredResult::new(None, Some(s::request_state_for(s::TOOL_PING, self.next_serial()))).into(),
        }
    }

    async fn ping_client(&self, ctx: &RequestContext<RoleServer>) -> CallToolResult {
        // A notification no revision defines comes first: a client that tolerates it answers the ping.
        let unknown = CustomNotification::new(s::UNKNOWN_NOTIFICATION, Some(json!({"note": "no revision defines this notification"})));
        let _ = ctx.peer.send_notification(ServerNotification::CustomNotification(unknown)).await;
        let ping = ServerRequest::PingRequest(PingRequest { method: Default::default(), extensions: Default::default() });
        // The ping waits one answer timeout, as every other server→client request does (no
        // person answers it): a client that never answers must not hold the call forever.
        let options = rmcp::service::PeerRequestOptions::with_timeout(self.ping_timeout());
        let pinged = match ctx.peer.send_request_with_option(ping, options).await {
            Ok(handle) => handle.await_response().await,
            Err(e) => Err(e),
        };
        // Then a request no revision defines, which the client should answer with -32601. Its answer
        // is journalled whenever it comes; the tool waits for it only briefly, and not at all after
        // a ping that went unanswered (the call then ends one answer timeout after it began).
        let unknown = ServerRequest::CustomRequest(CustomRequest::new(s::UNKNOWN_REQUEST, Some(json!({}))));
        if let Ok(handle) = ctx.peer.send_request_with_option(unknown, rmcp::service::PeerRequestOptions::no_options()).await {
            if pinged.is_ok() {
                let _ = tokio::time::timeout(UNKNOWN_REQUEST_WAIT, handle.await_response()).await;
            }
        }
        match pinged {
            Ok(_) => text_result("the client answered ping"),
            Err(err) => CallToolResult::error(vec![ContentBlock::text(format!("ping failed: {err}"))]),
        }
    }

    async fn change_lists(&self, ctx: &RequestContext<RoleServer>) -> CallToolResult {
        self.shared.lists_changed.store(true, Ordering::SeqCst);
        if is_modern(ctx) {
            let sinks = self.shared.listeners.lock().unwrap_or_else(|p| p.into_inner()).clone();
            for sink in &sinks {
                let _ = sink.notify_tool_list_changed().await;
                let _ = sink.notify_resource_list_changed().await;
                let _ = sink.notify_prompt_list_changed().await;
            }
            self.shared.changed.notify_waiters();
            return text_result(format!("lists changed; told {} open subscription(s)", sinks.len()));
        }
        let _ = ctx.peer.notify_tool_list_changed().await;
        let _ = ctx.peer.notify_resource_list_changed().await;
        let _ = ctx.peer.notify_prompt_list_changed().await;
        text_result("tools, resources and prompts changed; notifications sent")
    }

    fn read(&self, uri: &str, modern: bool) -> Result<ReadResourceResult, McpError> {
        let skill_file = self.shared.options.variant.serves_skills().then(|| skills::catalogue().files.get(uri)).flatten();
        let contents = if let Some(bytes) = skill_file {
            let mime = if uri.ends_with(".md") { "text/markdown" } else { "text/plain" };
            json!({"uri": uri, "mimeType": mime, "text": String::from_utf8_lossy(bytes)})
        } else if uri == crate::apps::VIEW_URI && self.shared.options.variant == Variant::Apps {
            json!({"uri": uri, "mimeType": crate::apps::APP_MIME_TYPE, "text": crate::apps::view_html()})
        } else if uri == s::TEXT_URI {
            json!({"uri": uri, "mimeType": "text/plain", "text": format!("canary: {}", s::TEXT_CANARY)})
        } else if uri == s::BLOB_URI {
            json!({"uri": uri, "mimeType": "application/octet-stream",
                   "blob": base64::engine::general_purpose::STANDARD.encode(s::blob_bytes())})
        } else if uri == s::SECOND_PAGE_URI || (uri == s::ADDED_RESOURCE_URI && self.changed()) {
            json!({"uri": uri, "mimeType": "text/plain", "text": format!("resource {uri}")})
        } else if let Some(id) = uri.strip_prefix(s::TEMPLATE_PREFIX).filter(|id| !id.is_empty() && !id.contains('{')) {
            json!({"uri": uri, "mimeType": "text/plain", "text": format!("item {id}")})
        } else if uri.starts_with(s::LINK_PREFIX) {
            json!({"uri": uri, "mimeType": "text/plain", "text": format!("linked: {}", s::LINK_CANARY)})
        } else {
            let message = if uri == s::MISSING_URI { format!("no resource {uri} ({})", s::NOT_FOUND_CANARY) } else { format!("no resource {uri}") };
            return Err(if modern { McpError::invalid_params(message, Some(json!({"uri": uri}))) } else { McpError::resource_not_found(message, Some(json!({"uri": uri}))) });
        };
        complete(json!({"contents": [contents]}))
    }

    /// One listen stream: updates for the watched resources, list changes while open, and the
    /// server's own end of the first stream after the lists changed.
    async fn serve_listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), McpError> {
        let sink = context.sink().clone();
        let watched = context.accepted().resource_subscriptions.clone().unwrap_or_default();
        self.note(&note::Listening { accepted: serde_json::to_value(context.accepted()).unwrap_or_default() });
        self.shared.listeners.lock().unwrap_or_else(|p| p.into_inner()).push(sink.clone());
        // As with resources/subscribe: each watched resource changes a moment after.
        tokio::time::sleep(Duration::from_millis(s::UPDATE_AFTER_MS)).await;
        for uri in watched {
            let _ = sink.notify_resource_updated(uri).await;
        }
        // After the lists changed, the server ends the first listen stream itself, gracefully, to
        // see whether the client opens another.
        let end_first = async {
            loop {
                let changed = self.shared.changed.notified();
                if self.changed() {
                    break;
                }
                changed.await;
            }
            tokio::time::sleep(Duration::from_millis(s::UPDATE_AFTER_MS)).await;
            if self.shared.ended_a_listen.swap(true, Ordering::SeqCst) {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            _ = context.cancelled() => self.note(&note::ListenEnded { by: note::EndedBy::Client }),
            _ = self.shared.closing.cancelled() => self.note(&note::ListenEnded { by: note::EndedBy::ClientGone }),
            _ = end_first => self.note(&note::ListenEnded { by: note::EndedBy::Server }),
        }
        Ok(())
    }

    /// In the `no-resources` variant every resources method is refused as unknown.
    fn resources_served(&self) -> Result<(), McpError> {
        if self.shared.options.variant == Variant::NoResources {
            return Err(McpError::new(ErrorCode::METHOD_NOT_FOUND, "this server does not declare resources", None));
        }
        Ok(())
    }

    fn supported(&self) -> Vec<ProtocolVersion> {
        let versions: Vec<String> = match (&self.shared.options.protocol_version, self.shared.options.era) {
            (Some(v), _) => vec![v.clone()],
            (None, EraPolicy::Legacy) => LEGACY_VERSIONS.iter().map(|v| v.to_string()).collect(),
            (None, EraPolicy::Modern) => vec![MODERN_VERSION.to_string()],
            (None, EraPolicy::Dual) => LEGACY_VERSIONS.iter().chain([MODERN_VERSION].iter()).map(|v| v.to_string()).collect(),
        };
        versions.into_iter().filter_map(|v| serde_json::from_value(json!(v)).ok()).collect()
    }
}

impl ServerHandler for ProbeServer {
    fn get_info(&self) -> ServerInfo {
        let mut advertised = s::server_capabilities();
        if self.shared.options.variant == Variant::NoResources {
            if let Some(caps) = advertised.as_object_mut() {
                caps.remove("resources");
            }
        }
        if self.shared.options.variant == Variant::SubscribeUnadvertised {
            if let Some(resources) = advertised.get_mut("resources").and_then(Value::as_object_mut) {
                resources.remove("subscribe");
            }
        }
        // A server that keeps nothing between requests can tell a client of no change: tools only.
        if self.shared.options.variant.is_stateless() {
            advertised = json!({"tools": {}});
        }
        let mut instructions = s::instructions();
        if self.shared.options.variant.serves_skills() {
            let skills = match self.shared.options.variant {
                Variant::Skills => json!({"directoryRead": true}),
                _ => json!({}),
            };
            advertised["extensions"] = json!({rmcp::model::SKILLS_EXTENSION_ID: skills});
            instructions.push_str(&format!(" Skills: besides the listed ones, this server serves the skill {}.", skills::HIDDEN_URI));
        }
        if self.shared.options.variant == Variant::Tasks {
            advertised["extensions"] = json!({crate::tasks::EXTENSION_ID: {}});
        }
        if self.shared.options.variant == Variant::Events {
            advertised["extensions"] = json!({crate::events::EXTENSION_ID: {}});
        }
        if self.shared.options.variant == Variant::Apps {
            advertised["extensions"] = json!({crate::apps::EXTENSION_ID: {"mimeTypes": [crate::apps::APP_MIME_TYPE]}});
        }
        let capabilities: ServerCapabilities = serde_json::from_value(advertised).unwrap_or_default();
        let icon = Icon::new(format!("{}{}", self.shared.icon_origin, crate::fetch_trap::SERVER_ICON_PATH)).with_mime_type("image/png").with_sizes(vec!["48x48".into()]);
        let implementation = Implementation::new(s::SERVER_NAME, env!("CARGO_PKG_VERSION")).with_icons(vec![icon]);
        ServerInfo::new(capabilities).with_server_info(implementation).with_instructions(instructions)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(self.supported())
    }

    async fn initialize(&self, request: InitializeRequestParams, context: RequestContext<RoleServer>) -> Result<InitializeResult, McpError> {
        if !self.shared.options.era.allows(Era::Legacy) {
            self.note(&note::RefusedInitialize { requested: request.protocol_version.as_str().to_string() });
            let supported: Vec<String> = self.supported().iter().map(|v| v.as_str().to_string()).collect();
            return Err(McpError::new(
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                "this server speaks only the 2026-07-28 era: use server/discover and per-request _meta",
                Some(json!({"supported": supported, "requested": request.protocol_version.as_str()})),
            ));
        }
        context.peer.set_peer_info(request.clone());
        let result = self.negotiate_initialize(&request)?;
        self.note(&note::SessionStarted {
            era: "legacy".into(),
            requested: request.protocol_version.as_str().to_string(),
            negotiated: result.protocol_version.as_str().to_string(),
        });
        Ok(result)
    }

    async fn discover(&self, _context: RequestContext<RoleServer>) -> Result<DiscoverResult, McpError> {
        if !self.shared.options.era.allows(Era::Modern) {
            self.note(&note::RefusedDiscover { code: Some(ErrorCode::METHOD_NOT_FOUND.0.into()), unanswered: false, http_status: None });
            return Err(McpError::new(ErrorCode::METHOD_NOT_FOUND, "server/discover", None));
        }
        self.note(&note::Discover {});
        Ok(DiscoverResult::from_server_info(self.supported(), self.get_info()))
    }

    async fn set_level(&self, request: SetLevelRequestParams, _context: RequestContext<RoleServer>) -> Result<(), McpError> {
        self.note(&note::LogLevel { level: serde_json::to_value(request.level).ok().and_then(|l| l.as_str().map(str::to_string)).unwrap_or_default() });
        Ok(())
    }

    async fn list_tools(&self, request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListToolsResult, McpError> {
        let all = match self.shared.options.variant {
            Variant::LargeResults => vec![crate::sized::tool()],
            Variant::ToolNames => {
                let mut tools = crate::edge_names::tools();
                tools.push(s::schema_remote_tool(&self.shared.schema_url));
                tools
            }
            Variant::LongCalls => crate::long_calls::tools(),
            Variant::Apps => crate::apps::tools(),
            auth if auth.is_auth() => crate::auth::tools(),
            Variant::Tasks => crate::tasks::tools(),
            stateless if stateless.is_stateless() => crate::stateless::tools(),
            _ => s::with_title_and_icon(s::tools(self.changed()), &format!("{}{}", self.shared.icon_origin, crate::fetch_trap::TOOL_ICON_PATH)),
        };
        let (tools, next) = page(&all, s::TOOLS_PAGE_ONE, request.as_ref().and_then(|r| r.cursor.as_deref()), s::TOOLS_CURSOR)?;
        complete(json!({"tools": tools, "nextCursor": next}))
    }

    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let modern = is_modern(&context);
        let tool_url_id = format!("elicit-{}", self.next_serial());
        match name.as_str() {
            s::TOOL_PROGRESS => Ok(self.progress(&context).await.into()),
            // resource_link content came with 2025-06-18: an older session gets the URI in words.
            s::TOOL_RESOURCE_LINK if context.protocol_version().is_some_and(|v| v.as_str() < "2025-06-18") => {
                let uri = format!("{}{}", s::LINK_PREFIX, self.next_serial());
                Ok(CallToolResult::success(vec![ContentBlock::text(format!("see the resource {uri}"))]).into())
            }
            s::TOOL_RESOURCE_LINK => {
                let uri = format!("{}{}", s::LINK_PREFIX, self.next_serial());
                let link: Resource = typed(json!({"uri": uri, "name": "linked-note", "mimeType": "text/plain"}))?;
                Ok(CallToolResult::success(vec![ContentBlock::text("see the linked resource"), ContentBlock::resource_link(link)]).into())
            }
            s::TOOL_ELICIT_FORM => self.ask(&name, "elicitation/create", s::elicit_form_params(), &request, &context).await,
            s::TOOL_ELICIT_ENUMS => self.ask(&name, "elicitation/create", s::elicit_enum_params(), &request, &context).await,
            s::TOOL_ELICIT_URL => {
                let id = (!modern).then_some(tool_url_id.as_str());
                let response = self.ask(&name, "elicitation/create", s::elicit_url_params(id, &self.shared.elicit_url), &request, &context).await;
                if !modern {
                    let note = CustomNotification::new("notifications/elicitation/complete", Some(json!({"elicitationId": tool_url_id})));
                    let _ = context.peer.send_notification(ServerNotification::CustomNotification(note)).await;
                }
                response
            }
            s::TOOL_SAMPLING => {
                // A client that declares sampling.context is asked to include this server's context.
                let mut params = s::sampling_params();
                if context.client_capabilities().and_then(|c| c.sampling).and_then(|s| s.context).is_some() {
                    params["includeContext"] = json!(s::SAMPLING_INCLUDE_CONTEXT);
                }
                self.ask(&name, "sampling/createMessage", params, &request, &context).await
            }
            s::TOOL_SAMPLING_PREFERENCES => self.ask(&name, "sampling/createMessage", s::sampling_preferences_params(), &request, &context).await,
            s::TOOL_SAMPLING_TOOLS => {
                let declared = context.client_capabilities().and_then(|c| c.sampling).and_then(|s| s.tools).is_some();
                if !declared {
                    return Ok(CallToolResult::error(vec![ContentBlock::text("the client did not declare sampling.tools")]).into());
                }
                self.ask(&name, "sampling/createMessage", s::sampling_tools_params(), &request, &context).await
            }
            s::TOOL_ROOTS => self.ask(&name, "roots/list", json!({}), &request, &context).await,
            s::TOOL_PING if modern => Ok(self.ping_modern(&request)),
            s::TOOL_PING => Ok(self.ping_client(&context).await.into()),
            s::TOOL_TWO_INPUTS => self.ask_two(&request, &context),
            s::TOOL_LIST_CHANGED => Ok(self.change_lists(&context).await.into()),
            s::TOOL_IMAGE => complete::<CallToolResult>(s::image_result()).map(Into::into),
            s::TOOL_AUDIO => complete::<CallToolResult>(s::audio_result()).map(Into::into),
            s::TOOL_EMBEDDED => complete::<CallToolResult>(s::embedded_result()).map(Into::into),
            s::TOOL_FAULT => complete::<CallToolResult>(s::fault_result()).map(Into::into),
            s::TOOL_AUDIENCE => complete::<CallToolResult>(s::audience_result()).map(Into::into),
            s::TOOL_PICTURE_DATA => complete::<CallToolResult>(s::picture_data_result()).map(Into::into),
            s::TOOL_SCHEMA | s::TOOL_SCHEMA_KEYWORDS | s::TOOL_SCHEMA_REMOTE => {
                Ok(text_result(format!("received {}", Value::Object(request.arguments.clone().unwrap_or_default()))).into())
            }
            s::TOOL_BAD_OUTPUT => complete::<CallToolResult>(s::bad_output_result()).map(Into::into),
            s::TOOL_RPC_ERROR => Err(McpError::internal_error(s::RPC_ERROR_CANARY, None)),
            s::TOOL_ADDED if self.changed() => Ok(text_result("the added tool ran").into()),
            s::TOOL_PAGE_TWO => Ok(text_result("the second page's tool ran").into()),
            edge if self.shared.options.variant == Variant::ToolNames && crate::edge_names::by_name(edge).is_some() => Ok(text_result(format!("{edge} ran")).into()),
            crate::long_calls::TOOL_SLOW if self.shared.options.variant == Variant::LongCalls => Ok(self.slow_call(&context).await.into()),
            crate::long_calls::TOOL_STALL if self.shared.options.variant == Variant::LongCalls => {
                // Never answers: rmcp drops whatever a cancelled request returns.
                let started = tokio::time::Instant::now();
                let every = crate::long_calls::PENDING_NOTE_EVERY;
                while started.elapsed() < crate::long_calls::STALL_LIMIT {
                    tokio::select! {
                        _ = context.ct.cancelled() => break,
                        _ = tokio::time::sleep(every) => {
                            let id = serde_json::to_value(&context.id).unwrap_or(Value::Null);
                            self.note(&note::CallPending { request_id: id.clone(), waited_s: started.elapsed().as_secs() });
                        }
                    }
                }
                Ok(CallToolResult::error(vec![ContentBlock::text("probe_never_answers gave up waiting to be cancelled")]).into())
            }
            crate::sized::TOOL_LARGE_RESULT if self.shared.options.variant == Variant::LargeResults => {
                let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
                match crate::sized::size_asked(&arguments) {
                    Some(size) => Ok(text_result(crate::sized::text(size)).into()),
                    None => Ok(CallToolResult::error(vec![ContentBlock::text(format!("bytes must be one of {:?}", crate::sized::SIZES))]).into()),
                }
            }
            crate::stateless::TOOL_STATELESS if self.shared.options.variant.is_stateless() => Ok(text_result(crate::stateless::RESULT_CANARY).into()),
            crate::apps::TOOL_APP_VIEW if self.shared.options.variant == Variant::Apps => complete::<CallToolResult>(crate::apps::view_result(self.next_serial())).map(Into::into),
            crate::apps::TOOL_APP_REPORT if self.shared.options.variant == Variant::Apps => Ok(text_result("the view's report arrived").into()),
            // The tap let the call through: its token was valid and, for the write tool in
            // auth-step-up, had the scope.
            crate::auth::TOOL_WHOAMI if self.shared.options.variant.is_auth() => Ok(text_result(crate::auth::WHOAMI_TEXT).into()),
            crate::auth::TOOL_WRITE if self.shared.options.variant.is_auth() => Ok(text_result(crate::auth::WRITE_TEXT).into()),
            // A legacy session's calls of these tools never come here: the taps answer them
            // (`transport::legacy_tasks`).
            task if self.shared.options.variant == Variant::Tasks && crate::tasks::TASK_TOOLS.contains(&task) => {
                let task_id = format!("task-{}", self.next_serial());
                let created = self.shared.tasks.start(task, &task_id).ok_or_else(|| McpError::internal_error("no such task tool", None))?;
                // rmcp refuses (-32021) to hand a task to a client that did not declare the extension.
                Ok(CallToolResponse::Task(typed(created)?))
            }
            _ => Ok(CallToolResult::error(vec![ContentBlock::text(format!("unknown tool {name}"))]).into()),
        }
    }

    async fn get_task(&self, request: GetTaskParams, _context: RequestContext<RoleServer>) -> Result<GetTaskResult, McpError> {
        let (_, task) = self.shared.tasks.get(&request.task_id).map_err(task_error)?;
        typed(task)
    }

    async fn update_task(&self, request: UpdateTaskParams, _context: RequestContext<RoleServer>) -> Result<(), McpError> {
        let responses = serde_json::to_value(&request.input_responses).unwrap_or_default();
        self.shared.tasks.update(&request.task_id, &responses).map_err(task_error)
    }

    async fn cancel_task(&self, request: CancelTaskParams, _context: RequestContext<RoleServer>) -> Result<(), McpError> {
        self.shared.tasks.cancel(&request.task_id).map_err(task_error)
    }

    async fn list_resources(&self, request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListResourcesResult, McpError> {
        self.resources_served()?;
        let all = match self.shared.options.variant {
            Variant::Apps => vec![crate::apps::view_resource()],
            _ => s::resources(self.changed()),
        };
        let (resources, next) = page(&all, s::RESOURCES_PAGE_ONE, request.as_ref().and_then(|r| r.cursor.as_deref()), s::RESOURCES_CURSOR)?;
        complete(json!({"resources": resources, "nextCursor": next}))
    }

    async fn list_resource_templates(&self, _request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListResourceTemplatesResult, McpError> {
        self.resources_served()?;
        complete(json!({"resourceTemplates": s::resource_templates()}))
    }

    async fn read_resource(&self, request: ReadResourceRequestParams, context: RequestContext<RoleServer>) -> Result<ReadResourceResponse, McpError> {
        self.resources_served()?;
        Ok(self.read(&request.uri, is_modern(&context))?.into())
    }

    async fn subscribe(&self, request: SubscribeRequestParams, context: RequestContext<RoleServer>) -> Result<(), McpError> {
        match self.shared.options.variant {
            Variant::SubscribeUnadvertised => {
                self.note(&note::SubscribeRefused { uri: request.uri.clone() });
                return Err(McpError::new(ErrorCode::METHOD_NOT_FOUND, "resources/subscribe: this server does not advertise resources.subscribe", None));
            }
            Variant::SubscribeFails => {
                self.note(&note::SubscribeFailed { uri: request.uri.clone() });
                return Err(McpError::internal_error("resources/subscribe failed (the probe server fails every subscription in this variant)", None));
            }
            _ => {}
        }
        self.note(&note::Subscribed { uri: request.uri.clone() });
        // Say the resource changed a moment later, outside the subscribe request.
        let (peer, uri) = (context.peer.clone(), request.uri.clone());
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(s::UPDATE_AFTER_MS)).await;
            let _ = peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await;
        });
        Ok(())
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), McpError> {
        self.shared.open_listens.fetch_add(1, Ordering::SeqCst);
        let result = self.serve_listen(context).await;
        self.shared.open_listens.fetch_sub(1, Ordering::SeqCst);
        self.shared.listen_returned.notify_waiters();
        result
    }

    async fn unsubscribe(&self, request: UnsubscribeRequestParams, _context: RequestContext<RoleServer>) -> Result<(), McpError> {
        self.note(&note::Unsubscribed { uri: request.uri.clone() });
        Ok(())
    }

    async fn list_skills(&self, request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListSkillsResult, McpError> {
        let listed: Vec<Value> = skills::catalogue().listed().into_iter().map(|s| s.entry.clone()).collect();
        let (page, next) = page(&listed, skills::SKILLS_PAGE_ONE, request.as_ref().and_then(|r| r.cursor.as_deref()), skills::SKILLS_CURSOR)?;
        complete(json!({"skills": page, "nextCursor": next, "ttlMs": 0, "cacheScope": "private"}))
    }

    async fn get_skill(&self, request: GetSkillRequestParams, _context: RequestContext<RoleServer>) -> Result<GetSkillResult, McpError> {
        match skills::catalogue().by_uri(&request.uri) {
            Some(skill) => complete(json!({"skill": skill.entry, "ttlMs": 0, "cacheScope": "private"})),
            None => Err(McpError::invalid_params(format!("no skill at {}", request.uri), Some(json!({"uri": request.uri})))),
        }
    }

    async fn read_resource_directory(&self, request: ReadResourceDirectoryRequestParams, _context: RequestContext<RoleServer>) -> Result<ReadResourceDirectoryResult, McpError> {
        let Some(children) = skills::catalogue().directories.get(&request.uri) else {
            return Err(McpError::invalid_params(format!("{} is not a directory (directory URIs have no trailing slash)", request.uri), Some(json!({"uri": request.uri}))));
        };
        let resources: Vec<Value> = children
            .iter()
            .map(|(uri, is_dir)| {
                let name = uri.rsplit('/').next().unwrap_or(uri);
                let mime = if *is_dir { rmcp::model::DIRECTORY_MIME_TYPE } else { "text/markdown" };
                json!({"uri": uri, "name": name, "mimeType": mime})
            })
            .collect();
        complete(json!({"resources": resources}))
    }

    async fn list_prompts(&self, _request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListPromptsResult, McpError> {
        complete(json!({"prompts": s::prompts(self.changed())}))
    }

    async fn complete(&self, request: CompleteRequestParams, _context: RequestContext<RoleServer>) -> Result<CompleteResult, McpError> {
        let asked = serde_json::to_value(&request).unwrap_or_default();
        let argument = |key: &str| asked.pointer(&format!("/argument/{key}")).and_then(Value::as_str).unwrap_or("");
        let values = s::completion_values(&asked["ref"], argument("name"), argument("value"));
        complete(json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}))
    }

    async fn get_prompt(&self, request: GetPromptRequestParams, _context: RequestContext<RoleServer>) -> Result<GetPromptResponse, McpError> {
        let known = request.name == s::PROMPT || (request.name == s::PROMPT_ADDED && self.changed());
        if !known {
            return Err(McpError::invalid_params(format!("no prompt {}", request.name), None));
        }
        let topic = request.arguments.as_ref().and_then(|a| a.get(s::PROMPT_ARGUMENT)).and_then(Value::as_str).unwrap_or("(none)");
        let result: GetPromptResult = complete(json!({
            "description": "probe prompt",
            "messages": [{"role": "user", "content": {"type": "text", "text": format!("Talk about {topic}.")}}]
        }))?;
        Ok(result.into())
    }
}
