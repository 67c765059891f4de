//! The scripted model stub: a loopback HTTP server that plays the model's turns for an agent host,
//! in the Anthropic Messages, OpenAI Responses and OpenAI Chat Completions dialects.
//!
//! Each reply is chosen from the request alone (the catalogue offered and the number of tool
//! results already present), so a host's retry replays the same step. Every request and reply is
//! journalled: that journal is the evidence of what the host offered its model and what reached it.

pub mod anthropic;
pub mod chat;
pub mod plan;
pub mod responses;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use probe_server::journal::{Direction, Entry, EventKind, Journal, TransportKind};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use plan::Step;

/// A reply in the dialect's framing.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Json(Value),
    /// Server-sent events: optional event name and the data line.
    Sse(Vec<(Option<String>, String)>),
}

impl Reply {
    pub fn body_text(&self) -> String {
        match self {
            Reply::Json(v) => v.to_string(),
            Reply::Sse(events) => events
                .iter()
                .map(|(name, data)| match name {
                    Some(name) => format!("event: {name}\ndata: {data}\n\n"),
                    None => format!("data: {data}\n\n"),
                })
                .collect(),
        }
    }

    fn into_response(self) -> Response {
        let content_type = match &self {
            Reply::Json(_) => "application/json",
            Reply::Sse(_) => "text/event-stream",
        };
        (StatusCode::OK, [("content-type", content_type), ("cache-control", "no-cache")], self.body_text()).into_response()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    Anthropic,
    Responses,
    Chat,
}

impl Dialect {
    pub fn from_path(path: &str) -> Option<Dialect> {
        if path.ends_with("/messages") {
            Some(Dialect::Anthropic)
        } else if path.ends_with("/responses") {
            Some(Dialect::Responses)
        } else if path.ends_with("/chat/completions") {
            Some(Dialect::Chat)
        } else {
            None
        }
    }
}

/// The reply to one model request, and what it was.
pub fn answer(dialect: Dialect, body: &Value) -> (Reply, Option<Step>) {
    let (offered, results) = match dialect {
        Dialect::Anthropic => (anthropic::offered(body), anthropic::results(body)),
        Dialect::Responses => (responses::offered(body), responses::results(body)),
        Dialect::Chat => (chat::offered(body), chat::results(body)),
    };
    // Side requests (titles, summaries) offer no tools: answer briefly, outside the script.
    let mentioned = plan::mentioned_tools(body);
    let step = if offered.is_empty() { Step::Finish { text: "ok".into() } } else { plan::step(&offered, &mentioned, plan::linked_uri(body).as_deref(), results) };
    let reply = match dialect {
        Dialect::Anthropic => anthropic::reply(body, &step, results),
        Dialect::Responses => responses::reply(body, &step, results),
        Dialect::Chat => chat::reply(body, &step, results),
    };
    (reply, (!offered.is_empty()).then_some(step))
}

const SESSION: &str = "model-stub";

fn headers_detail(headers: &HeaderMap) -> Value {
    let get = |k: &str| headers.get(k).and_then(|v| v.to_str().ok()).map(str::to_string);
    json!({
        "user-agent": get("user-agent"),
        "anthropic-version": get("anthropic-version"),
        "anthropic-beta": get("anthropic-beta"),
        "content-type": get("content-type"),
        "has-api-key": headers.contains_key("x-api-key") || headers.contains_key("authorization"),
    })
}

async fn handle(State(journal): State<Journal>, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let path = uri.path().to_string();
    let mut request = Entry::frame(SESSION, TransportKind::Http, Direction::ClientToServer, EventKind::HttpRequest, &body, None);
    request.method = Some(format!("{method} {path}"));
    journal.log(request.with_detail(json!({"path": path, "query": uri.query(), "headers": headers_detail(&headers)})));
    let Some(dialect) = Dialect::from_path(&path).filter(|_| method == Method::POST) else {
        // Preflights (HEAD /), model listings and anything else: a harmless empty answer.
        return (StatusCode::OK, [("content-type", "application/json")], r#"{"data":[],"object":"list"}"#).into_response();
    };
    let Ok(parsed) = serde_json::from_slice::<Value>(&body) else {
        journal.log(Entry::note(SESSION, TransportKind::Http, json!({"event": "model_request_unparsable", "path": path})));
        return (StatusCode::BAD_REQUEST, "body is not JSON").into_response();
    };
    let (reply, step) = answer(dialect, &parsed);
    let mut entry = Entry::frame(SESSION, TransportKind::Http, Direction::ServerToClient, EventKind::HttpResponse, reply.body_text().as_bytes(), None);
    entry.method = Some(format!("{method} {path}"));
    journal.log(entry.with_detail(json!({"dialect": dialect, "step": step})));
    reply.into_response()
}

/// A running stub.
pub struct StubHandle {
    /// Base URL without a path, e.g. `http://127.0.0.1:4242`.
    pub base_url: String,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl StubHandle {
    pub async fn stop(self) {
        self.shutdown.cancel();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), self.task).await;
    }
}

/// Starts the stub on an ephemeral loopback port.
pub async fn start(journal: Journal) -> std::io::Result<StubHandle> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base_url = format!("http://{}", listener.local_addr()?);
    let app = axum::Router::new().fallback(handle).with_state(journal);
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    let task = tokio::spawn(async move { axum::serve(listener, app).with_graceful_shutdown(stop.cancelled_owned()).await });
    Ok(StubHandle { base_url, shutdown, task })
}

