//! The built-in reference client: an rmcp client that exercises every probe correctly, in either
//! lifecycle, over stdio or Streamable HTTP. With an [`Ablation`] it removes or breaks exactly one
//! feature, which is how the self-test proves each probe can fail.

pub mod ablation;
pub mod apps;
pub mod auth;
pub mod events;
pub mod handler;
pub mod host;
pub mod http_client;
mod inject;
pub mod skills;
pub mod tasks;
pub mod terminal_host;
pub mod variation;
pub mod wire;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use probe_server::surface as s;
use probe_server::Era;
use rmcp::model::*;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

pub use ablation::Ablation;
use handler::ReferenceHandler;
pub use variation::Variation;
use wire::Rewriting;

/// Where the reference client finds the probe server.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// Spawn this program with these arguments and speak over its stdio.
    Stdio { program: PathBuf, args: Vec<String> },
    /// The probe server's stdio tap served in this process over an in-memory pipe, journalling to
    /// `journal`: the same tap and the same bytes as `Stdio`, without a process to start.
    InProcess { journal: PathBuf, options: probe_server::ServeOptions },
    /// A Streamable HTTP endpoint URL.
    Http { url: String },
}

#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    #[error("cannot start the probe server: {0}")]
    Spawn(#[from] std::io::Error),
    #[error("the reference client could not connect: {0}")]
    Connect(String),
    #[error("the reference client's script did not finish within {0:?}")]
    Timeout(Duration),
}

/// How long one scripted session may take before it is abandoned.
pub const SCRIPT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long to wait for list_changed notifications after triggering them.
const NOTIFICATION_WAIT: Duration = Duration::from_secs(5);

type Client = RunningService<RoleClient, ReferenceHandler>;

fn params<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("reference client parameters fit the SDK types")
}

/// The in-process pipe's buffer: a pipe's usual capacity.
const PIPE_BUFFER: usize = 64 * 1024;

/// Runs the reference client's script, then keeps the session open `linger` before leaving (time
/// in which the server's dropped stream may be resumed). Against a server variant that refuses
/// `server/discover` ([`probe_server::Variant::tests_fallback`]) or leaves `resultType` out it
/// opens with `server/discover` whatever `era` says, falls back to `initialize` where it must,
/// lists the tools and leaves: what such a run shows is how the session opened.
pub async fn run(
    endpoint: &Endpoint,
    era: Era,
    variant: probe_server::Variant,
    ablation: Option<Ablation>,
    variation: Option<Variation>,
    linger: Duration,
) -> Result<(), ReferenceError> {
    let opening = match variant {
        v if v.tests_fallback() || v == probe_server::Variant::NoResultType => Opening::Fallback,
        v if v.modern_only() => Opening::FallForward,
        _ => Opening::Era(era),
    };
    let (client, handler) = match connect(endpoint, opening, ReferenceHandler::new(ablation, variation)).await {
        // A client broken so that it cannot open the session ends there; the journal shows how.
        Err(ReferenceError::Connect(_)) if ablation.is_some_and(Ablation::may_break_the_session) => return Ok(()),
        // A client that refuses a sign-in it must refuse (another issuer, another resource) opens no session.
        Err(ReferenceError::Connect(_)) if auth::refuses_sign_in(variant) => return Ok(()),
        other => other?,
    };
    let outcome = match opening {
        Opening::Fallback | Opening::FallForward => {
            tokio::time::timeout(SCRIPT_TIMEOUT, async {
                let _ = client.list_tools(None).await;
            })
            .await
        }
        Opening::Era(Era::Modern) if variant == probe_server::Variant::Events => {
            tokio::time::timeout(SCRIPT_TIMEOUT, events::script(&client, &handler, endpoint_url(endpoint), ablation)).await
        }
        Opening::Era(_) if variant == probe_server::Variant::Tasks => tokio::time::timeout(SCRIPT_TIMEOUT, tasks::script(&client, ablation)).await,
        Opening::Era(_) if variant.is_stateless() => tokio::time::timeout(SCRIPT_TIMEOUT, stateless_script(&client, endpoint, ablation)).await,
        Opening::Era(_) if variant.is_auth() => tokio::time::timeout(SCRIPT_TIMEOUT, auth::script(&client, variant)).await,
        Opening::Era(era) => tokio::time::timeout(SCRIPT_TIMEOUT, script(&client, &handler, era, ablation, variation)).await,
    };
    tokio::time::sleep(linger).await;
    let _ = client.cancel().await;
    outcome.map_err(|_| ReferenceError::Timeout(SCRIPT_TIMEOUT))
}

/// Why a request rmcp has no type for brought no answer: the request failed, or its answer is no
/// JSON value.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CustomRequestError {
    #[error(transparent)]
    Service(#[from] rmcp::ServiceError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// A request rmcp has no type for (2025-11-25's tasks, the events extension, an ablation's
/// malformed one), and its result as JSON.
pub(crate) async fn custom_request(client: &Client, method: &str, params: Value) -> Result<Value, CustomRequestError> {
    let request = ClientRequest::CustomRequest(CustomRequest::new(method.to_string(), Some(params)));
    let result = client.send_request(request).await?;
    Ok(serde_json::to_value(result)?)
}

/// The endpoint's URL, where it is served over HTTP.
fn endpoint_url(endpoint: &Endpoint) -> Option<&str> {
    match endpoint {
        Endpoint::Http { url } => Some(url),
        _ => None,
    }
}

/// How the reference client opens its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// In one era: `initialize` (legacy) or `server/discover` (2026-07-28), without fallback.
    Era(Era),
    /// With `server/discover`, falling back to `initialize` when the server refuses it or leaves
    /// it unanswered for [`DISCOVER_WAIT`], as a client speaking both eras should.
    Fallback,
    /// With `initialize`, and when the server refuses it (a 2026-07-28-only server), again with
    /// `server/discover` on a new connection, as a client speaking both eras should.
    FallForward,
}

/// How long the reference client waits for an answer to `server/discover` before it takes the
/// server for a legacy one (rmcp's own wait is 10 s): over HTTP a new connection's answer took
/// more than 300 ms with 128 self-test runs at once.
pub const DISCOVER_WAIT: Duration = Duration::from_millis(1000);
/// The version the retry-unlisted-version ablation falls back with: one no revision has.
fn unlisted_version() -> ProtocolVersion {
    serde_json::from_value(json!("2024-10-07")).expect("a version string")
}
/// How long the no-discover-timeout ablation waits for an answer before it ends its run.
const UNBOUNDED_DISCOVER_GIVES_UP: Duration = Duration::from_millis(2500);

/// Opens the reference client's session with the probe server.
async fn connect(endpoint: &Endpoint, opening: Opening, handler: ReferenceHandler) -> Result<(Client, ReferenceHandler), ReferenceError> {
    let (ablation, variation) = (handler.ablation(), handler.variation());
    // An in-process server's journal, one for every connection of the run.
    let journal = match endpoint {
        Endpoint::InProcess { journal, .. } => Some(probe_server::journal::Journal::create(journal).map_err(std::io::Error::other)?),
        _ => None,
    };
    let discover = || ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    // The negotiates-2024-11-05 variation asks for the oldest revision, as older hosts still do.
    let mut initialize_version = (variation == Some(Variation::Negotiates20241105)).then_some(ProtocolVersion::V_2024_11_05);
    let (mode, discover_wait) = match (opening, endpoint) {
        (Opening::Era(Era::Legacy), _) => (ClientLifecycleMode::Initialize, None),
        (Opening::Era(Era::Modern), _) => (discover(), None),
        // The ablation opens with initialize and stays with it.
        (Opening::FallForward, _) if ablation == Some(Ablation::NoFallForward) => (ClientLifecycleMode::Initialize, None),
        (Opening::FallForward, _) => {
            initialize_refused_first(endpoint, journal.clone()).await?;
            (discover(), None)
        }
        // The ablations that must not fall back: no fallback at all, or no timeout of its own.
        (Opening::Fallback, _) if matches!(ablation, Some(Ablation::NoDiscoverFallback | Ablation::NoDiscoverTimeout)) => (discover(), None),
        (Opening::Fallback, Endpoint::Http { url }) => {
            let (mode, version) = discover_over_http(url, ablation).await?;
            initialize_version = version;
            (mode, None)
        }
        (Opening::Fallback, _) => {
            let legacy = if ablation == Some(Ablation::RetryUnlistedVersion) { unlisted_version() } else { ProtocolVersion::V_2025_11_25 };
            (ClientLifecycleMode::Auto { preferred_versions: vec![ProtocolVersion::V_2026_07_28], legacy_version: Some(legacy) }, Some(DISCOVER_WAIT))
        }
    };
    // The handler of the session: after a fallback over HTTP it asks for the version its own
    // discover settled on.
    let session = handler.clone().initializing_with(initialize_version);
    let opened = async {
        match endpoint {
            Endpoint::Stdio { program, args } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args);
                let (process, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn()?;
                Ok(session.serve_with_lifecycle(Rewriting::opening(process, ablation, variation, discover_wait), mode).await)
            }
            Endpoint::InProcess { options, .. } => {
                let journal = journal.clone().ok_or_else(|| std::io::Error::other("an in-process server without its journal"))?;
                let (ours, theirs) = tokio::io::duplex(PIPE_BUFFER);
                let (server_reads, server_writes) = tokio::io::split(theirs);
                tokio::spawn(probe_server::transport::stdio::serve_stdio(server_reads, server_writes, journal, options.clone()));
                let (reads, writes) = tokio::io::split(ours);
                let writes = inject::Injecting::new(writes, handler.injector.clone());
                let pipe = rmcp::transport::async_rw::AsyncRwTransport::new_client(reads, writes);
                Ok(session.serve_with_lifecycle(Rewriting::opening(pipe, ablation, variation, discover_wait), mode).await)
            }
            Endpoint::Http { url } => {
                if variation == Some(Variation::GetBeforeSession) {
                    reachability_get(url).await;
                }
                if variation == Some(Variation::PostsToAnotherPath) {
                    stray_post(url).await;
                }
                if ablation == Some(Ablation::ForeignOrigin) {
                    // Refused (403), so nothing else of the session changes.
                    post_by_hand(url, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(), Some("https://evil.example")).await;
                }
                if ablation == Some(Ablation::SendsBatch) {
                    post_by_hand(url, BATCH.to_string(), None).await;
                }
                let mut config = rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .reinit_on_expired_session(ablation != Some(Ablation::NoReinitialize));
                config.allow_stateless = ablation != Some(Ablation::RequiresSessionId);
                let authorizer = std::sync::Arc::new(auth::Authorizer::new(url, ablation));
                let transport = StreamableHttpClientTransport::with_client(http_client::AblatingHttpClient::new(ablation, authorizer), config);
                Ok(session.serve_with_lifecycle(Rewriting::opening(transport, ablation, variation, discover_wait), mode).await)
            }
        }
    };
    let opened: Result<_, ReferenceError> = if ablation == Some(Ablation::NoDiscoverTimeout) && opening == Opening::Fallback {
        // It would wait for ever: it ends its run instead, as a host gives up on a server.
        match tokio::time::timeout(UNBOUNDED_DISCOVER_GIVES_UP, opened).await {
            Ok(opened) => opened,
            Err(_) => return Err(ReferenceError::Connect("no answer to server/discover".into())),
        }
    } else {
        opened.await
    };
    let client = opened?.map_err(|e| ReferenceError::Connect(e.to_string()))?;
    Ok((client, handler))
}

/// The fall-forward opening's first attempt: an `initialize` on a connection of its own, which
/// a 2026-07-28-only server refuses (and, over stdio, then ends); its answer is read and let go.
async fn initialize_refused_first(endpoint: &Endpoint, journal: Option<probe_server::journal::Journal>) -> Result<(), ReferenceError> {
    let body = json!({"jsonrpc": "2.0", "id": "reference-initialize", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "reference-fall-forward", "version": env!("CARGO_PKG_VERSION")}
    }})
    .to_string();
    match endpoint {
        Endpoint::Http { url } => post_by_hand(url, body, None).await,
        Endpoint::InProcess { options, .. } => {
            use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
            let journal = journal.ok_or_else(|| std::io::Error::other("an in-process server without its journal"))?;
            let (mut ours, theirs) = tokio::io::duplex(PIPE_BUFFER);
            let (server_reads, server_writes) = tokio::io::split(theirs);
            let served = tokio::spawn(probe_server::transport::stdio::serve_stdio(server_reads, server_writes, journal, options.clone()));
            ours.write_all(format!("{body}\n").as_bytes()).await?;
            let mut answer = String::new();
            let _ = tokio::time::timeout(SCRIPT_TIMEOUT, tokio::io::BufReader::new(&mut ours).read_line(&mut answer)).await;
            drop(ours);
            let _ = served.await;
        }
        // A launched server is launched again for the second attempt: the first gets the same line.
        Endpoint::Stdio { .. } => return Err(ReferenceError::Connect("a fall-forward opening needs an in-process or HTTP server".into())),
    }
    Ok(())
}

/// Over HTTP the reference client asks `server/discover` itself before it opens the session
/// (rmcp's HTTP client sends nothing more while a request's answer stream is open, so it could
/// not fall back from a discover left unanswered): the lifecycle to open with. An error that is
/// not a 2026-07-28 rejection, or no answer within [`DISCOVER_WAIT`], means a legacy server.
async fn discover_over_http(url: &str, ablation: Option<Ablation>) -> Result<(ClientLifecycleMode, Option<ProtocolVersion>), ReferenceError> {
    let listed = if ablation == Some(Ablation::RetryUnlistedVersion) { unlisted_version() } else { ProtocolVersion::V_2025_11_25 };
    let legacy = (ClientLifecycleMode::Initialize, Some(listed));
    let modern = (ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }, None);
    let body = json!({"jsonrpc": "2.0", "id": "reference-discover", "method": "server/discover", "params": {"_meta": modern_meta()}});
    let http = loopback_http().map_err(|e| ReferenceError::Connect(e.to_string()))?;
    let asked = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "server/discover")
        .body(body.to_string())
        .send();
    // The whole answer, headers and body, within the wait.
    let answered = tokio::time::timeout(DISCOVER_WAIT, async { asked.await?.text().await }).await;
    let Ok(Ok(text)) = answered else { return Ok(legacy) };
    // A JSON body, or the first `data:` line of an event stream.
    let frame: Value =
        serde_json::from_str(&text).ok().or_else(|| text.lines().find_map(|l| l.strip_prefix("data:")).and_then(|d| serde_json::from_str(d.trim()).ok())).unwrap_or(Value::Null);
    if frame.is_null() && ablation == Some(Ablation::FallbackOnJsonRpcErrorOnly) {
        return Err(ReferenceError::Connect(format!("server/discover got no JSON-RPC answer: {text:?}")));
    }
    if let Some(result) = frame.get("result") {
        if result.get("resultType").is_none() && ablation == Some(Ablation::RequireResultType) {
            return Err(ReferenceError::Connect("the server/discover result has no resultType".into()));
        }
        return Ok(modern);
    }
    let lists_modern = frame.pointer("/error/data/supported").and_then(Value::as_array).is_some_and(|l| l.iter().any(|v| v == "2026-07-28"));
    match frame.pointer("/error/code").and_then(Value::as_i64) {
        // A -32022 that lists only legacy versions leaves `initialize` with one of them.
        Some(-32022) if !lists_modern => Ok(legacy),
        Some(-32022..=-32020) => Err(ReferenceError::Connect(format!("server/discover refused as a 2026-07-28 server refuses: {frame}"))),
        Some(code) if ablation == Some(Ablation::FallbackOnMethodNotFoundOnly) && code != -32601 => Err(ReferenceError::Connect(format!("server/discover refused with {code}"))),
        _ => Ok(legacy),
    }
}

/// How the reference client names itself, in `initialize` and in every 2026-07-28 request's
/// `_meta`: its name, a title for people (2025-06-18) and its version.
pub fn implementation() -> Implementation {
    Implementation::new("mcp-client-probe-reference", env!("CARGO_PKG_VERSION")).with_title("mcp-client-probe reference client")
}

/// The `_meta` of a `server/discover` the reference client sends itself: 2026-07-28, no
/// capabilities, its name, title and version.
pub(crate) fn modern_meta() -> Value {
    use probe_server::observe::{MODERN_META_CAPABILITIES, MODERN_META_CLIENT_INFO, MODERN_META_VERSION};
    json!({
        MODERN_META_VERSION: "2026-07-28",
        MODERN_META_CAPABILITIES: {},
        MODERN_META_CLIENT_INFO: implementation()
    })
}

/// An HTTP client for loopback only (no proxy from the environment), for what the reference
/// client and host send outside rmcp: the discover preflight, the model's requests, fetches.
pub(crate) fn loopback_http() -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder().no_proxy().build()
}

/// A GET of the endpoint with `Accept: */*` before any session exists, as hosts do to see
/// whether a server is there (the get-before-session variation). Its answer does not matter.
async fn reachability_get(url: &str) {
    if let Ok(http) = loopback_http() {
        let _ = http.get(url).header("accept", "*/*").send().await;
    }
}

/// The posts-to-another-path variation: a ping posted under the endpoint's path (`<url>/rpc`),
/// as a host that guesses its server's layout does first; the 404 is ignored.
async fn stray_post(url: &str) {
    post_by_hand(&format!("{}/rpc", url.trim_end_matches('/')), json!({"jsonrpc": "2.0", "id": "stray-1", "method": "ping"}).to_string(), None).await;
}

/// A POST of `body` to `url` outside rmcp's session, with the `Accept` and `Content-Type` a
/// client sends (and an `Origin`, where given). Its answer does not matter.
async fn post_by_hand(url: &str, body: String, origin: Option<&str>) {
    if let Ok(http) = loopback_http() {
        let mut request = http.post(url).header("accept", "application/json, text/event-stream").header("content-type", "application/json");
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        let _ = request.body(body).send().await;
    }
}

/// The batch the sends-batch ablation sends: one notification in an array (over HTTP ahead of its
/// session, over stdio once it is open).
pub(crate) const BATCH: &str = r#"[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]"#;

/// The session against a server that keeps none (the stateless variants): list the tools (both
/// pages), call the one there is.
async fn stateless_script(client: &Client, endpoint: &Endpoint, ablation: Option<Ablation>) {
    if let (Some(Ablation::GivesUpAtGet405), Endpoint::Http { url }) = (ablation, endpoint) {
        if get_refused(url).await {
            return;
        }
    }
    let _ = client.list_tools(None).await;
    let _ = client.list_tools(Some(params(json!({"cursor": s::TOOLS_CURSOR})))).await;
    if ablation == Some(Ablation::AsksUnadvertisedCompletion) {
        let asked = json!({"ref": {"type": "ref/prompt", "name": s::PROMPT}, "argument": {"name": s::PROMPT_ARGUMENT, "value": "a"}});
        let _ = custom_request(client, "completion/complete", asked).await;
    }
    if ablation != Some(Ablation::CallsNeedSession) {
        let _ = client.call_tool(params(json!({"name": probe_server::stateless::TOOL_STATELESS, "arguments": {}}))).await;
    }
}

/// A standalone GET stream asked for as a client that always opens one does (the
/// gives-up-at-get-405 ablation): whether the server refused it with 405.
async fn get_refused(url: &str) -> bool {
    let Ok(http) = loopback_http() else { return false };
    let asked = http.get(url).header("accept", "text/event-stream").header("mcp-protocol-version", ProtocolVersion::V_2025_11_25.as_str()).send().await;
    asked.is_ok_and(|answer| answer.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED)
}

/// The scripted session. Errors from individual calls are not fatal: the journal records them and
/// the probes judge them.
async fn script(client: &Client, handler: &ReferenceHandler, era: Era, ablation: Option<Ablation>, variation: Option<Variation>) {
    let skip = |a: Ablation| ablation == Some(a);
    if variation == Some(Variation::PingsServer) {
        let _ = client.send_request(ClientRequest::PingRequest(PingRequest::default())).await;
    }
    if skip(Ablation::BadMetaKey) {
        let _ = custom_request(client, "ping", json!({"_meta": {"-reference-trace": "1"}})).await;
    }
    if skip(Ablation::AsksUnadvertisedEvents) {
        let _ = custom_request(client, "events/list", json!({})).await;
    }
    if skip(Ablation::SendsBatch) {
        // Over stdio in process (over HTTP it was posted ahead of the session).
        handler.injector.inject(BATCH);
    }
    if skip(Ablation::AsksUnadvertisedSkills) {
        let _ = custom_request(client, "skills/list", json!({})).await;
    }
    if skip(Ablation::AsksUnadvertisedTasks) {
        let _ = custom_request(client, "tasks/list", json!({})).await;
    }
    if era == Era::Legacy && skip(Ablation::CancelsInitialize) {
        // rmcp numbers its requests from 0, and initialize is its first.
        let cancel: CancelledNotificationParam = params(json!({"requestId": 0, "reason": "cancelled late"}));
        let _ = client.send_notification(ClientNotification::CancelledNotification(CancelledNotification::new(cancel))).await;
    }
    if era == Era::Modern && skip(Ablation::PingsModernServer) {
        let _ = client.send_request(ClientRequest::PingRequest(PingRequest::default())).await;
    }
    if era == Era::Modern && skip(Ablation::SetsLevelOnModern) {
        let _ = custom_request(client, "logging/setLevel", json!({"level": "info"})).await;
    }
    if era == Era::Modern && !skip(Ablation::NeverListen) {
        let filter: SubscriptionFilter = params(json!({"toolsListChanged": true, "resourcesListChanged": true, "promptsListChanged": true,
            "resourceSubscriptions": [s::SECOND_PAGE_URI]}));
        let (peer, handler, relisten) = (client.peer().clone(), handler.clone(), !skip(Ablation::NoRelisten));
        tokio::spawn(async move {
            // Listen; when the server ends the stream, listen once more (unless ablated).
            for round in 0..2 {
                let Ok(mut subscription) = peer.listen(filter.clone()).await else { return };
                if round == 1 {
                    handler.changes.relistened.store(true, std::sync::atomic::Ordering::SeqCst);
                    handler.changes.arrived.notify_waiters();
                }
                while let Ok(Some(notification)) = subscription.next().await {
                    handler.on_subscription_notification(&notification);
                }
                if !relisten {
                    return;
                }
            }
        });
    }
    let mut icons: Vec<String> = Vec::new();
    if !skip(Ablation::SkipToolsList) {
        if let Ok(page) = client.list_tools(None).await {
            icons.extend(page.tools.iter().flat_map(|t| t.icons.iter().flatten().map(|i| i.src.clone())));
        }
        if !skip(Ablation::ToolsFirstPageOnly) && variation != Some(Variation::FirstToolsPageOnly) {
            let _ = client.list_tools(Some(params(json!({"cursor": s::TOOLS_CURSOR})))).await;
        }
    }
    // As a host that shows icons: the server's and each listed tool's.
    let server_icon = client.peer_info().and_then(|i| i.server_info.as_ref()?.icons.as_ref()?.first().map(|icon| icon.src.clone()));
    if !skip(Ablation::IgnoresServerIcon) {
        fetch_icons(server_icon.into_iter()).await;
    }
    if !skip(Ablation::IgnoresToolIcons) {
        fetch_icons(icons.into_iter()).await;
    }
    if !skip(Ablation::SkipResourcesList) {
        let first = client.list_resources(None).await.ok();
        let cursor = first.and_then(|p| p.next_cursor);
        if let (Some(cursor), false) = (cursor, skip(Ablation::ResourcesFirstPageOnly)) {
            let _ = client.list_resources(Some(params(json!({"cursor": cursor})))).await;
        }
    }
    if !skip(Ablation::SkipTemplatesList) {
        let _ = client.list_resource_templates(None).await;
    }
    // As a person filling in the template would: the server completes its variable.
    if !skip(Ablation::NoTemplateCompletion) {
        let _ = client.complete_resource_argument(s::TEMPLATE, s::TEMPLATE_VARIABLE, "4", None).await;
    }
    // A host without a cache reads what it needs each time it needs it.
    let reads = if variation == Some(Variation::ReadsResourcesTwice) { 2 } else { 1 };
    if !skip(Ablation::SkipTextRead) {
        for _ in 0..reads {
            let _ = client.read_resource(params(json!({"uri": s::TEXT_URI}))).await;
        }
    }
    let subscribed = era == Era::Legacy && subscribe(client, ablation).await;
    if !skip(Ablation::SkipBlobRead) {
        for _ in 0..reads {
            let _ = client.read_resource(params(json!({"uri": s::BLOB_URI}))).await;
        }
    }
    if !skip(Ablation::SkipTemplateRead) {
        let _ = client.read_resource(params(json!({"uri": format!("{}42", s::TEMPLATE_PREFIX)}))).await;
    }
    if !skip(Ablation::SkipPromptsList) {
        let _ = client.list_prompts(None).await;
    }
    if !skip(Ablation::NoPromptCompletion) {
        let _ = client.complete_prompt_argument(s::PROMPT, s::PROMPT_ARGUMENT, "pro", None).await;
    }
    if !skip(Ablation::SkipPromptsGet) {
        let _ = client.get_prompt(params(json!({"name": s::PROMPT, "arguments": {s::PROMPT_ARGUMENT: "probes"}}))).await;
    }
    skills::run(client, ablation).await;
    if era == Era::Legacy && !skip(Ablation::SkipSetLevel) {
        #[allow(deprecated)]
        let _ = client.set_level(params(json!({"level": "info"}))).await;
    }
    if variation == Some(Variation::RelistsToolsBeforeCalls) && !skip(Ablation::SkipToolsList) {
        let _ = client.list_tools(None).await;
    }
    match era {
        // 2026-07-28 asks for log messages per request, in _meta.
        Era::Modern => {
            let level = if skip(Ablation::BadLogLevel) { "verbose" } else { "info" };
            let meta: RequestMetaObject = params(json!({probe_server::probes::utilities::LOG_LEVEL_META: level}));
            let mut progress = CallToolRequestParams::new(s::TOOL_PROGRESS);
            progress.meta = Some(meta);
            let _ = client.call_tool(progress).await;
        }
        Era::Legacy => drop(call(client, s::TOOL_PROGRESS).await),
    }
    let linked = call(client, s::TOOL_RESOURCE_LINK).await;
    if let (Some(result), false) = (linked, skip(Ablation::SkipLinkFollow)) {
        let link = result["content"].as_array().into_iter().flatten().find(|c| c["type"] == "resource_link").and_then(|c| c["uri"].as_str().map(str::to_string));
        if let Some(uri) = link {
            let _ = client.read_resource(params(json!({"uri": uri}))).await;
        }
    }
    // The person answers the three forms side by side (hosts may run tool calls at once): one
    // person's delay instead of three.
    let _ = tokio::join!(call(client, s::TOOL_ELICIT_FORM), call(client, s::TOOL_ELICIT_ENUMS), call(client, s::TOOL_ELICIT_URL));
    for tool in [s::TOOL_SAMPLING, s::TOOL_SAMPLING_TOOLS, s::TOOL_SAMPLING_PREFERENCES, s::TOOL_ROOTS] {
        let _ = call(client, tool).await;
    }
    match era {
        Era::Legacy => drop(call(client, s::TOOL_PING).await),
        // Two questions in one InputRequiredResult (the legacy era asks nothing there), and a
        // call answered input_required with only a requestState.
        Era::Modern => {
            let _ = call(client, s::TOOL_TWO_INPUTS).await;
            let _ = call(client, s::TOOL_PING).await;
        }
    }
    let _ = call(client, s::TOOL_LIST_CHANGED).await;
    refetch_changed_lists(client, handler, ablation, variation).await;

    reread_and_unsubscribe(client, handler, era, subscribed, ablation).await;
    if era == Era::Modern && !matches!(ablation, Some(Ablation::NeverListen | Ablation::NoRelisten)) {
        let relistened = &handler.changes.relistened;
        wait_until(client, &handler.changes.arrived, || relistened.load(std::sync::atomic::Ordering::SeqCst)).await;
    }
    // Last, because a discover in a legacy HTTP session switches rmcp's server to per-request
    // metadata for the rest of that session.
    if skip(Ablation::IgnoreDowngrade) && era == Era::Legacy {
        let negotiated = client.peer_info().map(|i| i.protocol_version.as_str().to_string());
        if negotiated.is_some_and(|v| v.as_str() < "2026-07-28") {
            let meta: RequestMetaObject = params(modern_meta());
            let _ = client.discover(meta).await;
        }
    }
}

/// Fetches each icon served on loopback (the probe server's fetch trap), as a host that shows it.
async fn fetch_icons(sources: impl Iterator<Item = String>) {
    let Ok(http) = loopback_http() else { return };
    for src in sources.filter(|s| s.starts_with("http://127.0.0.1:")) {
        let _ = http.get(src).send().await;
    }
}

async fn call(client: &Client, tool: &str) -> Option<Value> {
    let result = client.call_tool(CallToolRequestParams::new(tool.to_string())).await;
    if let Err(rmcp::service::ServiceError::TransportSend(_) | rmcp::service::ServiceError::TransportClosed) = &result {
        // The session is gone (expired and not reopened): no notification can come any more.
        let changes = &client.service().changes;
        changes.lost.store(true, std::sync::atomic::Ordering::SeqCst);
        changes.arrived.notify_waiters();
    }
    serde_json::to_value(result.ok()?).ok()
}

/// Waits until `done()` holds, re-checking each time a notification arrives, for at most
/// [`NOTIFICATION_WAIT`]. A session found gone (a call failed in the transport) cannot deliver
/// any more, so the wait ends with it.
async fn wait_until(client: &Client, arrived: &tokio::sync::Notify, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + NOTIFICATION_WAIT;
    let over = || done() || client.service().changes.lost.load(std::sync::atomic::Ordering::SeqCst);
    while !over() {
        let notified = arrived.notified();
        if over() || tokio::time::timeout_at(deadline, notified).await.is_err() {
            break;
        }
    }
}

/// Subscribes to a resource (legacy era) when the server advertises `resources.subscribe`, and
/// gives up when the subscription fails. Returns whether a subscription is in place.
async fn subscribe(client: &Client, ablation: Option<Ablation>) -> bool {
    let advertised = client.peer_info().and_then(|i| i.capabilities.resources.as_ref().and_then(|r| r.subscribe)).unwrap_or(false);
    if ablation == Some(Ablation::NeverSubscribe) || !(advertised || ablation == Some(Ablation::SubscribeUnadvertised)) {
        return false;
    }
    let attempts = if ablation == Some(Ablation::SubscribeRetryStorm) { 1 + STORM_RETRIES } else { 1 };
    for _ in 0..attempts {
        #[allow(deprecated)]
        if client.subscribe(params(json!({"uri": s::SECOND_PAGE_URI}))).await.is_ok() {
            return true;
        }
    }
    false
}

/// How many times the `subscribe-retry-storm` ablation retries a failed subscription, at once.
const STORM_RETRIES: usize = 30;

/// Re-reads the subscribed resource once its update arrived, then unsubscribes.
async fn reread_and_unsubscribe(client: &Client, handler: &ReferenceHandler, era: Era, subscribed: bool, ablation: Option<Ablation>) {
    use std::sync::atomic::Ordering::SeqCst;
    let nothing_watched = match era {
        Era::Legacy => !subscribed,
        Era::Modern => ablation == Some(Ablation::NeverListen),
    };
    if nothing_watched {
        return;
    }
    let no_channel = ablation == Some(Ablation::NoGetStream);
    let changes = &handler.changes;
    if !no_channel && ablation != Some(Ablation::NoReread) {
        wait_until(client, &changes.arrived, || changes.updated.load(SeqCst)).await;
    }
    if changes.updated.load(SeqCst) {
        let _ = client.read_resource(params(json!({"uri": s::SECOND_PAGE_URI}))).await;
    }
    if era == Era::Legacy && ablation != Some(Ablation::NoUnsubscribe) {
        #[allow(deprecated)]
        let _ = client.unsubscribe(params(json!({"uri": s::SECOND_PAGE_URI}))).await;
    }
}

/// Waits briefly for the list_changed notifications the handler has not been told to ignore
/// (in 2026-07-28 they come on the listen stream, so there are none without one),
/// then refetches each list whose notification arrived.
async fn refetch_changed_lists(client: &Client, handler: &ReferenceHandler, ablation: Option<Ablation>, variation: Option<Variation>) {
    use std::sync::atomic::Ordering::SeqCst;
    let changes = &handler.changes;
    let expected =
        [(&changes.tools, Ablation::IgnoreToolsListChanged), (&changes.resources, Ablation::IgnoreResourcesListChanged), (&changes.prompts, Ablation::IgnorePromptsListChanged)];
    // Without a listen stream (2026-07-28) or a GET stream (HTTP), notifications have no way in.
    let no_channel = matches!(ablation, Some(Ablation::NeverListen | Ablation::NoGetStream));
    let all_arrived = || no_channel || expected.iter().all(|(flag, ignored)| ablation == Some(*ignored) || flag.load(SeqCst));
    wait_until(client, &changes.arrived, all_arrived).await;
    if variation == Some(Variation::RefetchAfter300Ms) {
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    if changes.tools.load(SeqCst) {
        let _ = client.list_tools(None).await;
    }
    if changes.resources.load(SeqCst) {
        let _ = client.list_resources(None).await;
    }
    if changes.prompts.load(SeqCst) {
        let _ = client.list_prompts(None).await;
    }
}
