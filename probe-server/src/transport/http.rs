//! The Streamable HTTP tap: rmcp's `StreamableHttpService` behind an axum middleware that journals
//! every request (method, path, the headers that matter, the body as a frame), every response
//! status, every SSE event reassembled from the stream, and refuses foreign `Origin`/`Host`.
//!
//! Bodies that are not JSON, or not JSON-RPC, are answered here with a JSON-RPC error (400)
//! instead of rmcp's plain-text 415, so a client sees a protocol answer.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use http_body_util::BodyExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{json, Map, Value};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::journal::{Direction, Entry, EventKind, Journal, TransportKind};
use crate::scenario::Scenario;
use crate::server::{ProbeServer, ServeOptions};

/// The path the MCP endpoint is mounted at.
pub const MCP_PATH: &str = "/mcp";
/// The largest POST body read.
pub const MAX_BODY: usize = 16 * 1024 * 1024;

/// The `retry:` the server sends in the `stream-drop` scenario.
pub const STREAM_DROP_RETRY: std::time::Duration = std::time::Duration::from_millis(100);

/// Headers journalled with every request and response.
pub const JOURNALLED_HEADERS: [&str; 10] = [
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "origin",
    "host",
    "last-event-id",
    "accept",
    "content-type",
    "content-length",
];

#[derive(Clone)]
struct TapState {
    journal: Journal,
    scenario: Scenario,
    /// Session ids the server has expired (scenario `session-expires`: only the first session).
    expired: Arc<Mutex<Vec<String>>>,
    /// Whether a GET stream was already dropped (scenario `stream-drop`: only the first).
    dropped_a_stream: Arc<AtomicBool>,
}

impl TapState {
    /// Whether this request must be answered 404 because its session expired. In the
    /// `session-expires` scenario the first session expires at its first request after
    /// initialization.
    fn expires(&self, session: &str, frame: Option<&Value>) -> bool {
        if session == "-" || self.scenario != Scenario::SessionExpires {
            return false;
        }
        let mut expired = self.expired.lock().unwrap_or_else(|p| p.into_inner());
        if expired.iter().any(|s| s == session) {
            return true;
        }
        let is_request = frame.is_some_and(|f| f.get("id").is_some() && f.get("method").and_then(Value::as_str).is_some_and(|m| m != "initialize"));
        if expired.is_empty() && is_request {
            expired.push(session.to_string());
            self.journal.log(Entry::note(session, TransportKind::Http, json!({"event": "session_expired", "session": session})));
            return true;
        }
        false
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn selected_headers(headers: &HeaderMap) -> Value {
    let mut map = Map::new();
    for name in JOURNALLED_HEADERS {
        if let Some(value) = headers.get(name) {
            map.insert(name.to_string(), json!(String::from_utf8_lossy(value.as_bytes())));
        }
    }
    Value::Object(map)
}

fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(name, port)| if port.chars().all(|c| c.is_ascii_digit()) { name } else { host })
    };
    matches!(name, "127.0.0.1" | "localhost" | "::1")
}

/// An `Origin` is acceptable when absent or on loopback.
pub fn origin_allowed(origin: Option<&str>) -> bool {
    let Some(origin) = origin else { return true };
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else { return false };
    is_loopback_host(rest.trim_end_matches('/'))
}

/// A `Host` is acceptable when present and on loopback.
pub fn host_allowed(host: Option<&str>) -> bool {
    host.is_some_and(is_loopback_host)
}

fn session_of(headers: &HeaderMap) -> String {
    header(headers, "mcp-session-id").unwrap_or("-").to_string()
}

/// An answer the tap gives itself (rmcp never sees the request): a JSON-RPC error, journalled
/// like every other response.
fn json_error(journal: &Journal, session: &str, status: StatusCode, code: i64, message: String) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    let text = body.to_string();
    let detail = json!({"status": status.as_u16(), "headers": {"content-type": "application/json"}, "by": "tap"});
    journal.log(Entry::new(session, TransportKind::Http, Direction::ServerToClient, EventKind::HttpResponse).with_detail(detail));
    journal.log(Entry::frame(session, TransportKind::Http, Direction::ServerToClient, EventKind::Frame, text.as_bytes(), Some(&body)));
    (status, [("content-type", "application/json")], text).into_response()
}

/// Splits an SSE byte stream into events, rewrites hostile skill placeholders (skills variants),
/// journals each event as sent, and passes the events on.
struct SseJournal {
    journal: Journal,
    session: String,
    buffer: Vec<u8>,
    rewrite_skills: bool,
}

impl SseJournal {
    /// Journals every event completed by `chunk`; returns the bytes to send on (complete events
    /// only) and the last event id among them.
    fn feed(&mut self, chunk: &[u8]) -> (Vec<u8>, Option<String>) {
        self.buffer.extend_from_slice(chunk);
        let mut out = Vec::with_capacity(self.buffer.len());
        let mut last_id = None;
        while let Some((end, sep)) = find_event_end(&self.buffer) {
            let event: Vec<u8> = self.buffer.drain(..end + sep).collect();
            let rewritten = self.rewrite_skills.then(|| std::str::from_utf8(&event).ok().and_then(crate::skills::rewrite_outgoing)).flatten();
            let event = rewritten.map_or(event, String::into_bytes);
            let body = &event[..event.len() - sep];
            last_id = self.journal_event(body).or(last_id);
            out.extend_from_slice(&event);
        }
        (out, last_id)
    }

    /// Bytes left after the last complete event (a stream cut mid-event), journalled and sent on.
    fn finish(&mut self) -> Vec<u8> {
        let rest = std::mem::take(&mut self.buffer);
        if !rest.is_empty() {
            let mut entry = Entry::new(&self.session, TransportKind::Http, Direction::ServerToClient, EventKind::Note);
            entry.detail = Some(json!({"event": "sse_incomplete_event", "bytes": rest.len(), "head": String::from_utf8_lossy(&rest[..rest.len().min(256)])}));
            self.journal.log(entry);
        }
        rest
    }

    fn journal_event(&self, event: &[u8]) -> Option<String> {
        let text = String::from_utf8_lossy(event);
        let (mut data, mut id, mut retry, mut name) = (Vec::new(), None, None, None);
        for line in text.lines() {
            let (field, value) = line.split_once(':').map_or((line, ""), |(f, v)| (f, v.strip_prefix(' ').unwrap_or(v)));
            match field {
                "data" => data.push(value.to_string()),
                "id" => id = Some(value.to_string()),
                "retry" => retry = Some(value.to_string()),
                "event" => name = Some(value.to_string()),
                _ => {}
            }
        }
        let detail = json!({"sse_id": id, "sse_event": name, "retry": retry});
        if data.iter().all(String::is_empty) {
            let mut entry = Entry::new(&self.session, TransportKind::Http, Direction::ServerToClient, EventKind::Note);
            entry.detail = Some(json!({"event": "sse_without_data", "sse_id": id, "retry": retry}));
            self.journal.log(entry);
            return id;
        }
        let data = data.join("\n");
        let parsed: Option<Value> = serde_json::from_str(&data).ok();
        let kind = if parsed.is_some() { EventKind::Frame } else { EventKind::Unparsable };
        self.journal.log(Entry::frame(&self.session, TransportKind::Http, Direction::ServerToClient, kind, data.as_bytes(), parsed.as_ref()).with_detail(detail));
        id
    }
}

fn find_event_end(buffer: &[u8]) -> Option<(usize, usize)> {
    let lf = buffer.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2));
    let crlf = buffer.windows(4).position(|w| w == b"\r\n\r\n").map(|i| (i, 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

fn classify_body(bytes: &[u8]) -> (EventKind, Option<Value>) {
    match serde_json::from_slice::<Value>(bytes) {
        Err(_) => (EventKind::Unparsable, None),
        Ok(value) if value.is_object() && value.get("jsonrpc").and_then(Value::as_str) == Some("2.0") => (EventKind::Frame, Some(value)),
        Ok(value) => (EventKind::NotJsonRpc, Some(value)),
    }
}

async fn tap(State(state): State<TapState>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let session = session_of(&parts.headers);
    let detail = json!({"method": parts.method.as_str(), "path": parts.uri.path(), "headers": selected_headers(&parts.headers)});
    let journal = &state.journal;
    if !host_allowed(header(&parts.headers, "host")) || !origin_allowed(header(&parts.headers, "origin")) {
        journal.log(Entry::new(&session, TransportKind::Http, Direction::ClientToServer, EventKind::Refused).with_detail(detail));
        return (StatusCode::FORBIDDEN, "foreign Origin or Host refused").into_response();
    }
    journal.log(Entry::new(&session, TransportKind::Http, Direction::ClientToServer, EventKind::HttpRequest).with_detail(detail));
    let bytes = match http_body_util::Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(err) => {
            let mut entry = Entry::new(&session, TransportKind::Http, Direction::ClientToServer, EventKind::Oversize);
            entry.detail = Some(json!({"error": err.to_string(), "content_length": header(&parts.headers, "content-length")}));
            journal.log(entry);
            return json_error(journal, &session, StatusCode::PAYLOAD_TOO_LARGE, -32600, format!("body refused: {err}"));
        }
    };
    let mut frame = None;
    if parts.method == axum::http::Method::POST {
        let (kind, parsed) = classify_body(&bytes);
        journal.log(Entry::frame(&session, TransportKind::Http, Direction::ClientToServer, kind, &bytes, parsed.as_ref()).with_detail(json!({"headers": selected_headers(&parts.headers)})));
        match kind {
            EventKind::Unparsable => return json_error(journal, &session, StatusCode::BAD_REQUEST, -32700, "parse error: body is not JSON".into()),
            EventKind::NotJsonRpc => {
                return json_error(journal, &session, StatusCode::BAD_REQUEST, -32600, "invalid request: not a JSON-RPC 2.0 message (batches are not served)".into())
            }
            _ => frame = parsed,
        }
    }
    if state.expires(&session, frame.as_ref()) {
        return json_error(journal, &session, StatusCode::NOT_FOUND, -32001, "session expired".into());
    }
    let drop_stream = state.scenario == Scenario::StreamDrop && parts.method == axum::http::Method::GET;
    let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    let (mut parts_out, body_out) = response.into_parts();
    let out_session = header(&parts_out.headers, "mcp-session-id").map(str::to_string).unwrap_or(session);
    let detail = json!({"status": parts_out.status.as_u16(), "headers": selected_headers(&parts_out.headers)});
    journal.log(Entry::new(&out_session, TransportKind::Http, Direction::ServerToClient, EventKind::HttpResponse).with_detail(detail));
    let content_type = header(&parts_out.headers, "content-type").unwrap_or("").to_string();
    let rewrite_skills = state.scenario.serves_skills();
    if content_type.starts_with("text/event-stream") {
        let sse = SseJournal { journal: journal.clone(), session: out_session, buffer: Vec::new(), rewrite_skills };
        // In `stream-drop`, the first GET stream ends right after its first event with an id.
        let drop_here = drop_stream && parts_out.status.is_success() && !state.dropped_a_stream.swap(true, Ordering::SeqCst);
        let stream = futures::stream::unfold((body_out.into_data_stream(), sse, false), move |(mut inner, mut sse, ended)| async move {
            if ended {
                return None;
            }
            let Some(chunk) = inner.next().await else {
                let rest = sse.finish();
                return (!rest.is_empty()).then(|| (Ok(Bytes::from(rest)), (inner, sse, true)));
            };
            let chunk = match chunk {
                Ok(bytes) => bytes,
                Err(err) => return Some((Err(err), (inner, sse, false))),
            };
            let (out, last_id) = sse.feed(&chunk);
            let end_now = drop_here && last_id.is_some();
            if end_now {
                sse.journal.log(Entry::note(&sse.session, TransportKind::Http, json!({"event": "stream_dropped", "last_sse_id": last_id})));
            }
            Some((Ok(Bytes::from(out)), (inner, sse, end_now)))
        });
        return Response::from_parts(parts_out, Body::from_stream(stream));
    }
    let mut bytes: Bytes = match body_out.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    if let Some(rewritten) = rewrite_skills.then(|| std::str::from_utf8(&bytes).ok().and_then(crate::skills::rewrite_outgoing)).flatten() {
        bytes = Bytes::from(rewritten);
        parts_out.headers.remove(axum::http::header::CONTENT_LENGTH);
    }
    if !bytes.is_empty() {
        let (kind, parsed) = classify_body(&bytes);
        journal.log(Entry::frame(&out_session, TransportKind::Http, Direction::ServerToClient, kind, &bytes, parsed.as_ref()));
    }
    Response::from_parts(parts_out, Body::from(bytes))
}

/// Serves the probe server on `listener` until `shutdown` is cancelled.
pub async fn serve_http(listener: TcpListener, journal: Journal, options: ServeOptions, shutdown: CancellationToken) -> std::io::Result<()> {
    let scenario = options.scenario;
    let handler = ProbeServer::new(journal.clone(), "http", TransportKind::Http, options);
    let local: SocketAddr = listener.local_addr()?;
    handler.note_serving(json!({"loopback": local.ip().is_loopback()}));
    let closing = handler.closing();
    let on_shutdown = shutdown.clone();
    tokio::spawn(async move {
        on_shutdown.cancelled().await;
        closing.cancel();
    });
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = shutdown.child_token();
    config.sse_keep_alive = None;
    if scenario == Scenario::StreamDrop {
        config.sse_retry = Some(STREAM_DROP_RETRY);
    }
    // Host and Origin are checked (and journalled) by the tap; rmcp's own guard would refuse unjournalled.
    config.allowed_hosts = Vec::new();
    let service = StreamableHttpService::new(move || Ok(handler.clone()), Arc::new(LocalSessionManager::default()), config);
    let app = axum::Router::new()
        .nest_service(MCP_PATH, service)
        .layer(axum::middleware::from_fn_with_state(TapState { journal: journal.clone(), scenario, expired: Arc::default(), dropped_a_stream: Arc::default() }, tap));
    // Small SSE writes must not wait for delayed ACKs (a 40 ms stall per answer otherwise).
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).with_graceful_shutdown(shutdown.cancelled_owned()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_and_origins_are_accepted_others_refused() {
        assert!(host_allowed(Some("127.0.0.1:8080")));
        assert!(host_allowed(Some("localhost")));
        assert!(host_allowed(Some("[::1]:9")));
        assert!(!host_allowed(Some("evil.example:80")));
        assert!(!host_allowed(None));
        assert!(origin_allowed(None));
        assert!(origin_allowed(Some("http://localhost:3000")));
        assert!(!origin_allowed(Some("https://evil.example")));
        assert!(!origin_allowed(Some("null")));
    }

    #[test]
    fn sse_events_are_found_across_both_separators() {
        assert_eq!(find_event_end(b"data: x\n\nrest"), Some((7, 2)));
        assert_eq!(find_event_end(b"data: x\r\n\r\n"), Some((7, 4)));
        assert_eq!(find_event_end(b"data: x\n"), None);
    }
}
