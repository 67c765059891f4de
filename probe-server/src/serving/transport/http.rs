//! The Streamable HTTP tap: rmcp's `StreamableHttpService` behind an axum middleware that journals
//! every request (method, path, the headers that matter, the body as a frame), every response
//! status, every SSE event reassembled from the stream, and refuses foreign `Origin`/`Host`.
//!
//! Bodies that are not JSON, or not JSON-RPC, are answered here with a JSON-RPC error (400)
//! instead of rmcp's plain-text 415, so a client sees a protocol answer.
//!
//! SSE priming events (an event id with empty data) exist from 2025-11-25 on. rmcp sends them on
//! every stream; the tap passes them only on sessions whose negotiated version has them and
//! withholds them (journalled as `sse_priming_withheld`) on older sessions, whose SDKs may parse
//! the empty data as JSON. The one exception is the `stream-drop` variant's GET stream on an old
//! session: its id goes out as an id-only event (no `data` field, which no SSE parser dispatches),
//! so the client has an id to resume from.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{json, Map, Value};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::journal::{Direction, Entry, EventKind, Journal, Transport};
use crate::net::loopback::{host_allowed, loopback_request};
use crate::note::{self, Payload};
use crate::server::{ProbeServer, ServeOptions};
use crate::variant::Variant;

/// The most sessions open at once: one more `initialize` is answered 503.
pub const MAX_SESSIONS: usize = 256;

/// How long the tap waits for a request head, or for the next chunk of a body, by default.
pub const READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// How long a whole request body may take to arrive (at most; a short read timeout shortens it).
pub const BODY_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

pub use crate::surface::MCP_PATH;
/// The largest POST body parsed: the frame limit both transports share. A longer body is read
/// to its end as length + sha256 + head, and refused.
pub const MAX_BODY: usize = super::MAX_FRAME;

/// The `retry:` the server sends in the `stream-drop` variant.
pub const STREAM_DROP_RETRY: std::time::Duration = std::time::Duration::from_millis(100);

/// The first protocol revision with SSE priming events.
pub const PRIMING_SINCE: &str = "2025-11-25";

/// Headers journalled with every request and response.
pub const JOURNALLED_HEADERS: [&str; 10] =
    ["mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name", "origin", "host", "last-event-id", "accept", "content-type", "content-length"];

#[derive(Clone)]
struct TapState {
    journal: Journal,
    variant: Variant,
    /// The tasks of legacy sessions in the tasks variant, which the tap serves itself.
    legacy_tasks: Arc<super::legacy_tasks::LegacyTasks>,
    /// Session ids the server has expired (variant `session-expires`: only the first session).
    expired: Arc<Mutex<Vec<String>>>,
    /// Whether a GET stream was already dropped (variant `stream-drop`: only the first).
    dropped_a_stream: Arc<AtomicBool>,
    /// The version each session negotiated, learned from its initialize answer.
    versions: Versions,
    /// rmcp's sessions: which exist, and how many.
    sessions: Arc<LocalSessionManager>,
    /// How long a body may pause between two of its chunks.
    read_timeout: std::time::Duration,
    /// Cancelled when the server stops: ends the streams the tap itself holds open.
    closing: CancellationToken,
    /// In the auth variants: the authorization server's state, which the tap checks tokens against.
    auth: Option<Arc<crate::auth::Authority>>,
}

type Versions = Arc<Mutex<HashMap<String, String>>>;

/// What the tap does with the data-less events (priming events) of one stream.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Priming {
    /// Passed on: the session's version has priming events (or nothing says otherwise).
    Pass,
    /// Withheld: the session negotiated this version, older than priming events.
    Withhold(String),
    /// Sent as an id-only event (no `data` field): `stream-drop`'s GET stream on an old session.
    IdOnly(String),
    /// Held back until the stream's first message says which version was negotiated (the
    /// initialize answer).
    Undecided,
}

impl Priming {
    fn for_version(version: &str) -> Priming {
        if version >= PRIMING_SINCE {
            Priming::Pass
        } else {
            Priming::Withhold(version.to_string())
        }
    }
}

impl TapState {
    /// Whether rmcp holds an open session of this id (it answers a DELETE 202 whatever the id).
    async fn session_open(&self, session: &str) -> bool {
        self.sessions.sessions.read().await.contains_key(session)
    }

    /// How many sessions rmcp holds open.
    async fn open_sessions(&self) -> usize {
        self.sessions.sessions.read().await.len()
    }

    /// Whether this request must be answered 404 because its session expired. In the
    /// `session-expires` variant the first session expires at its first request after
    /// initialization.
    fn expires(&self, session: &str, frame: Option<&Value>) -> bool {
        if session == "-" || self.variant != Variant::SessionExpires {
            return false;
        }
        let mut expired = self.expired.lock().unwrap_or_else(|p| p.into_inner());
        if expired.iter().any(|s| s == session) {
            return true;
        }
        let is_request = frame.is_some_and(|f| f.get("id").is_some() && f.get("method").and_then(Value::as_str).is_some_and(|m| m != "initialize"));
        if expired.is_empty() && is_request {
            expired.push(session.to_string());
            self.journal.log(Entry::note(session, Transport::Http, note::SessionExpired { session: session.to_string() }.detail()));
            return true;
        }
        false
    }

    /// How priming events are treated on the stream answering this request.
    fn priming(&self, session: &str, request_headers: &HeaderMap, frame: Option<&Value>, is_get: bool) -> Priming {
        if frame.and_then(|f| f.get("method")).and_then(Value::as_str) == Some("initialize") {
            return Priming::Undecided;
        }
        let known = self.versions.lock().unwrap_or_else(|p| p.into_inner()).get(session).cloned();
        let Some(version) = known.or_else(|| header(request_headers, "mcp-protocol-version").map(str::to_string)) else { return Priming::Pass };
        match Priming::for_version(&version) {
            Priming::Withhold(v) if is_get && self.variant == Variant::StreamDrop => Priming::IdOnly(v),
            other => other,
        }
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

fn session_of(headers: &HeaderMap) -> String {
    header(headers, "mcp-session-id").unwrap_or("-").to_string()
}

/// An answer the tap gives itself (rmcp never sees the request): a JSON-RPC error, journalled
/// like every other response.
fn json_error(journal: &Journal, session: &str, status: StatusCode, code: i64, message: String) -> Response {
    json_error_with_id(journal, session, status, Value::Null, code, message)
}

/// [`json_error`] answering the request of `id`.
fn json_error_with_id(journal: &Journal, session: &str, status: StatusCode, id: Value, code: i64, message: String) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    tap_answer(journal, session, status, "application/json", body.to_string(), Some(&body))
}

/// An HTTP error with a plain-text body that holds no JSON-RPC, journaled as the unparsable frame
/// it is to a client.
fn plain_text_error(journal: &Journal, session: &str, status: u16, body: &'static str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    tap_answer(journal, session, status, "text/plain", body.to_string(), None)
}

/// An answer the tap makes itself, journaled as it goes out: the response's status and type
/// (marked as the tap's), then the body as a frame (unparsable where it holds no JSON).
fn tap_answer(journal: &Journal, session: &str, status: StatusCode, content_type: &'static str, body: String, parsed: Option<&Value>) -> Response {
    let detail = json!({"status": status.as_u16(), "headers": {"content-type": content_type}, "by": "tap"});
    journal.log(Entry::new(session, Transport::Http, Direction::ServerToClient, EventKind::HttpResponse).with_detail(detail));
    let kind = if parsed.is_some() { EventKind::Frame } else { EventKind::Unparsable };
    journal.log(Entry::frame(session, Transport::Http, Direction::ServerToClient, kind, body.as_bytes(), parsed));
    (status, [("content-type", content_type)], body).into_response()
}

/// Splits an SSE byte stream into events, rewrites hostile skill placeholders (skills variants),
/// journals each event as sent, and passes the events on.
struct SseJournal {
    journal: Journal,
    session: String,
    buffer: Vec<u8>,
    rewrite: Option<super::Rewrite>,
    priming: Priming,
    /// Data-less events (with their parsed fields) held while `priming` is undecided.
    held: Vec<(Vec<u8>, SseFields)>,
    versions: Versions,
    /// The id of the request whose answer this stream is to carry (a POSTed request), until the
    /// answer has gone out.
    awaiting: Option<Value>,
}

impl Drop for SseJournal {
    /// A stream dropped before it carried its request's answer: the client closed it, or the
    /// server stopped with the request still in hand.
    fn drop(&mut self) {
        if let Some(id) = self.awaiting.take() {
            answer_stream_closed(&self.journal, &self.session, id, false);
        }
    }
}

/// Journals that the stream to carry the answer to `request_id` closed first (before even its
/// headers went out, when `before_answer_began`).
fn answer_stream_closed(journal: &Journal, session: &str, request_id: Value, before_answer_began: bool) {
    let closed = note::AnswerStreamClosed { request_id, before_answer_began };
    journal.log(Entry::note(session, Transport::Http, closed.detail()));
}

/// A request in the SDK's hands whose answer has not begun: if it is dropped so (the client closed
/// its connection), that is journalled as its answer stream closed.
struct AnswerPending {
    journal: Journal,
    session: String,
    request_id: Option<Value>,
}

impl Drop for AnswerPending {
    fn drop(&mut self) {
        if let Some(id) = self.request_id.take() {
            answer_stream_closed(&self.journal, &self.session, id, true);
        }
    }
}

/// The fields of one SSE event.
#[derive(Default)]
struct SseFields {
    data: Vec<String>,
    id: Option<String>,
    retry: Option<String>,
    name: Option<String>,
}

impl SseFields {
    fn parse(event: &[u8]) -> SseFields {
        let mut fields = SseFields::default();
        for line in String::from_utf8_lossy(event).lines() {
            let (field, value) = line.split_once(':').map_or((line, ""), |(f, v)| (f, v.strip_prefix(' ').unwrap_or(v)));
            match field {
                "data" => fields.data.push(value.to_string()),
                "id" => fields.id = Some(value.to_string()),
                "retry" => fields.retry = Some(value.to_string()),
                "event" => fields.name = Some(value.to_string()),
                _ => {}
            }
        }
        fields
    }

    fn without_data(&self) -> bool {
        self.data.iter().all(String::is_empty)
    }

    /// The negotiated version, when this event carries an initialize answer.
    fn negotiated_version(&self) -> Option<String> {
        negotiated_version(&self.data.join("\n"))
    }
}

/// The protocol version an initialize answer (a JSON-RPC message as text) negotiated, if it is one.
fn negotiated_version(message: &str) -> Option<String> {
    let value: Value = serde_json::from_str(message).ok()?;
    value.get("result")?.get("protocolVersion")?.as_str().map(str::to_string)
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
            let rewritten = self.rewrite.and_then(|rewrite| std::str::from_utf8(&event).ok().and_then(rewrite));
            let event = rewritten.map_or(event, String::into_bytes);
            let fields = SseFields::parse(&event[..event.len() - sep]);
            if fields.without_data() {
                if self.priming == Priming::Undecided {
                    self.held.push((event, fields));
                } else {
                    last_id = self.send_data_less(event, &fields, &mut out).or(last_id);
                }
                continue;
            }
            if self.priming == Priming::Undecided {
                last_id = self.release_held(fields.negotiated_version(), &mut out).or(last_id);
            }
            last_id = self.journal_message(fields).or(last_id);
            out.extend_from_slice(&event);
        }
        (out, last_id)
    }

    /// Settles the priming policy of an undecided stream by the version its first message names
    /// (none: nothing says the events must be withheld), remembers that version for the session,
    /// and sends or withholds the data-less events held until then; returns the last id sent.
    fn release_held(&mut self, negotiated: Option<String>, out: &mut Vec<u8>) -> Option<String> {
        self.priming = negotiated.as_deref().map_or(Priming::Pass, Priming::for_version);
        if let Some(version) = negotiated.filter(|_| self.session != "-") {
            self.versions.lock().unwrap_or_else(|p| p.into_inner()).insert(self.session.clone(), version);
        }
        let mut last_id = None;
        for (event, fields) in std::mem::take(&mut self.held) {
            last_id = self.send_data_less(event, &fields, out).or(last_id);
        }
        last_id
    }

    /// Journals a data-less event and sends it on, withholds it, or sends its id alone, as the
    /// stream's priming policy says; returns its id if it was sent.
    fn send_data_less(&self, event: Vec<u8>, fields: &SseFields, out: &mut Vec<u8>) -> Option<String> {
        let (note, bytes) = match &self.priming {
            Priming::Pass | Priming::Undecided => (note::SseWithoutData { sse_id: fields.id.clone(), retry: fields.retry.clone() }.detail(), Some(event)),
            Priming::Withhold(version) => (note::SsePrimingWithheld { sse_id: fields.id.clone(), negotiated: version.clone() }.detail(), None),
            Priming::IdOnly(version) => {
                let mut id_only = String::new();
                if let Some(id) = &fields.id {
                    id_only.push_str(&format!("id: {id}\n"));
                }
                if let Some(retry) = &fields.retry {
                    id_only.push_str(&format!("retry: {retry}\n"));
                }
                id_only.push('\n');
                (note::SseIdOnly { sse_id: fields.id.clone(), retry: fields.retry.clone(), negotiated: version.clone() }.detail(), Some(id_only.into_bytes()))
            }
        };
        let mut entry = Entry::new(&self.session, Transport::Http, Direction::ServerToClient, EventKind::Note);
        entry.detail = Some(note);
        self.journal.log(entry);
        let bytes = bytes?;
        out.extend_from_slice(&bytes);
        fields.id.clone()
    }

    /// Bytes left after the last complete event (a stream cut mid-event), journalled and sent on,
    /// after any data-less events still held (a stream that ended before its first message).
    fn finish(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        if self.priming == Priming::Undecided {
            self.release_held(None, &mut out);
        }
        let rest = std::mem::take(&mut self.buffer);
        if !rest.is_empty() {
            let mut entry = Entry::new(&self.session, Transport::Http, Direction::ServerToClient, EventKind::Note);
            entry.detail = Some(note::SseIncompleteEvent { bytes: rest.len() as u64, head: String::from_utf8_lossy(&rest[..rest.len().min(256)]).into_owned() }.detail());
            self.journal.log(entry);
        }
        out.extend_from_slice(&rest);
        out
    }

    /// Journals an event with data as a frame; returns its id.
    fn journal_message(&mut self, fields: SseFields) -> Option<String> {
        let detail = json!({"sse_id": fields.id, "sse_event": fields.name, "retry": fields.retry});
        let data = fields.data.join("\n");
        let parsed: Option<Value> = serde_json::from_str(&data).ok();
        let answers = |awaited: &Value| parsed.as_ref().is_some_and(|p| p.get("id") == Some(awaited) && (p.get("result").is_some() || p.get("error").is_some()));
        if self.awaiting.as_ref().is_some_and(answers) {
            self.awaiting = None;
        }
        let kind = if parsed.is_some() { EventKind::Frame } else { EventKind::Unparsable };
        self.journal.log(Entry::frame(&self.session, Transport::Http, Direction::ServerToClient, kind, data.as_bytes(), parsed.as_ref()).with_detail(detail));
        fields.id
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

/// What arrived of a request body.
enum BodyRead {
    /// The body, with its room in the memory budget when it is a large one.
    Whole(Bytes, Option<tokio::sync::SemaphorePermit<'static>>),
    /// Over the limit: read to its end, summarised, never held whole.
    Oversize(super::Summary),
    /// The body ended with an error (the client stopped sending): the bytes that arrived.
    Cut { raw: crate::journal::RawText, error: String },
}

/// Reads a body, holding at most `limit` bytes of it.
/// A body that pauses longer than `idle` between two chunks is cut there, and one still arriving
/// after [`BODY_DEADLINE`] (or five times `idle`, if shorter) in all is cut then: a byte every
/// few seconds would otherwise hold a connection, and 256 such held every other client out.
async fn read_body(body: Body, limit: usize, idle: std::time::Duration) -> BodyRead {
    let mut chunks = body.into_data_stream();
    let mut kept: Vec<u8> = Vec::new();
    let mut summary: Option<super::Summary> = None;
    let mut room = None;
    let whole = BODY_DEADLINE.min(idle.saturating_mul(5));
    let deadline = tokio::time::Instant::now() + whole;
    loop {
        let wait = idle.min(deadline.saturating_duration_since(tokio::time::Instant::now()));
        let chunk = match tokio::time::timeout(wait, chunks.next()).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(_) if wait < idle => Err(axum::Error::new(format!("the body did not arrive whole within {} s", whole.as_secs_f32()))),
            Err(_) => Err(axum::Error::new(format!("no byte of the body for {} s", idle.as_secs_f32()))),
        };
        match chunk {
            Ok(bytes) => match &mut summary {
                Some(summary) => summary.absorb(&bytes),
                None if kept.len() + bytes.len() > limit => {
                    let mut started = super::Summary::new();
                    started.absorb(&kept);
                    started.absorb(&bytes);
                    summary = Some(started);
                    kept = Vec::new();
                }
                None => {
                    // A body growing large waits for room in the budget before it is held.
                    if room.is_none() && kept.len() + bytes.len() > super::budget::LARGE {
                        match tokio::time::timeout_at(deadline, super::budget::reading(limit)).await {
                            Ok(permit) => room = permit,
                            Err(_) => {
                                let error = format!("no room to hold the body within {} s (other large bodies took the memory budget)", whole.as_secs_f32());
                                return BodyRead::Cut { raw: crate::journal::RawText::from_bytes(&kept), error };
                            }
                        }
                    }
                    kept.extend_from_slice(&bytes)
                }
            },
            Err(err) => {
                let raw = match summary {
                    Some(summary) => summary.raw(),
                    None => crate::journal::RawText::from_bytes(&kept),
                };
                return BodyRead::Cut { raw, error: err.to_string() };
            }
        }
    }
    match summary {
        Some(summary) => BodyRead::Oversize(summary),
        None => BodyRead::Whole(Bytes::from(kept), room),
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
    let mut detail = json!({"method": parts.method.as_str(), "path": parts.uri.path(), "headers": selected_headers(&parts.headers)});
    // All of the request line: a query (a token put there, say) and an absolute-form authority.
    if let Some(query) = parts.uri.query() {
        detail["query"] = json!(query);
    }
    if let Some(authority) = parts.uri.authority() {
        detail["uri_authority"] = json!(authority.as_str());
    }
    let journal = &state.journal;
    // An absolute-form request line names the host the request is for, over the Host header
    // (RFC 9112 §3.2.2): it must be this machine too.
    let authority_allowed = parts.uri.authority().is_none_or(|a| host_allowed(Some(a.as_str())));
    if !loopback_request(&parts.headers) || !authority_allowed {
        journal.log(Entry::new(&session, Transport::Http, Direction::ClientToServer, EventKind::Refused).with_detail(detail));
        return (StatusCode::FORBIDDEN, "foreign Origin or Host refused").into_response();
    }
    journal.log(Entry::new(&session, Transport::Http, Direction::ClientToServer, EventKind::HttpRequest).with_detail(detail));
    if let Some(answer) = state.auth.as_deref().and_then(|authority| super::auth_gate::well_known(authority, journal, &session, parts.uri.path())) {
        return answer;
    }
    // Only the endpoint's own path serves MCP, as a real server's does: a request to any other
    // path is answered 404, its body journalled beside the refusal (not as a frame of the session).
    // In the auth variants the protected resource covers every path under the endpoint: a request
    // there without a token meets the challenge first, as before.
    if parts.uri.path() != MCP_PATH {
        let challenged = parts.uri.path().starts_with(MCP_PATH).then_some(state.auth.as_deref()).flatten();
        if let Some(refusal) = challenged.and_then(|authority| super::auth_gate::refusal(authority, journal, &session, &parts, None)) {
            return refusal;
        }
        let mut entry = Entry::new(&session, Transport::Http, Direction::ClientToServer, EventKind::Refused)
            .with_detail(json!({"path": parts.uri.path(), "status": 404, "why": format!("not the MCP endpoint ({MCP_PATH})")}));
        let body = match read_body(body, MAX_BODY, state.read_timeout).await {
            BodyRead::Whole(bytes, _) => crate::journal::RawText::from_bytes(&bytes),
            BodyRead::Oversize(summary) => summary.raw(),
            BodyRead::Cut { raw, .. } => raw,
        };
        if body.len > 0 {
            entry.raw = Some(body);
        }
        journal.log(entry);
        return (StatusCode::NOT_FOUND, format!("no MCP endpoint at {}: it is at {MCP_PATH}", parts.uri.path())).into_response();
    }
    if parts.method == axum::http::Method::DELETE && session != "-" && !state.session_open(&session).await {
        return json_error(journal, &session, StatusCode::NOT_FOUND, -32001, format!("no open session {session}"));
    }
    let (bytes, _room) = match read_body(body, MAX_BODY, state.read_timeout).await {
        BodyRead::Whole(bytes, room) => (bytes, room),
        BodyRead::Oversize(summary) => {
            let mut entry = Entry::new(&session, Transport::Http, Direction::ClientToServer, EventKind::Oversize);
            entry.raw = Some(summary.raw());
            entry.detail = Some(json!({"content_length": header(&parts.headers, "content-length")}));
            let len = entry.raw.as_ref().map_or(0, |r| r.len);
            journal.log(entry);
            return json_error(journal, &session, StatusCode::PAYLOAD_TOO_LARGE, -32600, format!("body of {len} bytes exceeds the {MAX_BODY}-byte limit"));
        }
        BodyRead::Cut { raw, error } => {
            // The client stopped sending: what arrived is kept, and the answer may find nobody.
            let mut entry = Entry::new(&session, Transport::Http, Direction::ClientToServer, EventKind::Partial);
            entry.raw = Some(raw);
            entry.detail = Some(json!({"error": error, "content_length": header(&parts.headers, "content-length")}));
            journal.log(entry);
            return json_error(journal, &session, StatusCode::BAD_REQUEST, -32700, format!("body cut short: {error}"));
        }
    };
    if let Some((entry, message)) = super::too_many_values_refusal(&session, Transport::Http, &bytes) {
        journal.log(entry);
        return json_error(journal, &session, StatusCode::PAYLOAD_TOO_LARGE, -32600, message);
    }
    // A large frame waits its turn to be parsed, here and by the SDK, and keeps it until its
    // answer has gone out (the SDK holds the parsed request while it serves it).
    let Ok(turn) = tokio::time::timeout(BODY_DEADLINE, super::budget::parsing(bytes.len())).await else {
        let message = format!("other large frames are being served: none came free within {} s", BODY_DEADLINE.as_secs());
        let mut entry = Entry::new(&session, Transport::Http, Direction::ClientToServer, EventKind::Refused).with_detail(json!({"why": message}));
        entry.raw = Some(crate::journal::RawText::from_bytes(&bytes));
        journal.log(entry);
        return json_error(journal, &session, StatusCode::SERVICE_UNAVAILABLE, -32000, message);
    };
    let mut frame = None;
    let is_post = parts.method == axum::http::Method::POST;
    let refused = |frame: Option<&Value>| state.auth.as_deref().and_then(|authority| super::auth_gate::refusal(authority, journal, &session, &parts, frame));
    if !is_post {
        if let Some(refusal) = refused(None) {
            return refusal;
        }
    }
    if is_post {
        let (kind, parsed) = classify_body(&bytes);
        journal.log(
            Entry::frame(&session, Transport::Http, Direction::ClientToServer, kind, &bytes, parsed.as_ref()).with_detail(json!({"headers": selected_headers(&parts.headers)})),
        );
        if let Some(refusal) = refused(parsed.as_ref()) {
            return refusal;
        }
        match kind {
            EventKind::Unparsable => return json_error(journal, &session, StatusCode::BAD_REQUEST, -32700, "parse error: body is not JSON".into()),
            EventKind::NotJsonRpc => {
                return json_error(journal, &session, StatusCode::BAD_REQUEST, -32600, "invalid request: not a JSON-RPC 2.0 message (batches are not served)".into())
            }
            _ => frame = parsed,
        }
        // The same screen as on stdio: what the SDK would refuse with a plain-text 415, or serve
        // in a way that loses the id or the params' error, gets its JSON-RPC error here.
        if let Some(Err(refusal)) = frame.clone().map(super::screen) {
            if let Some(note) = refusal.note {
                journal.log(Entry::note(&session, Transport::Http, note));
            }
            let answer = refusal.answer.unwrap_or(super::Answer { id: Value::Null, code: -32600, message: "invalid response: not a JSON-RPC response the server can take".into() });
            return json_error_with_id(journal, &session, StatusCode::BAD_REQUEST, answer.id, answer.code, answer.message);
        }
    }
    // A variant that refuses server/discover in its own way answers it here (rmcp would answer
    // -32022 first): an error in a 200 answer, or no answer until the client or the server goes.
    if let Some(refusal) = frame.as_ref().and_then(|f| super::discover_refusal(state.variant, f)) {
        journal.log(Entry::note(&session, Transport::Http, refusal.note()));
        match refusal {
            super::DiscoverRefusal::Error { id, code, message } => return json_error_with_id(journal, &session, StatusCode::OK, id, code, message.into()),
            super::DiscoverRefusal::Unanswered => return held_open(journal, &session, state.closing.clone()),
            super::DiscoverRefusal::HttpStatus { status, body } => return plain_text_error(journal, &session, status, body),
        }
    }
    // A legacy session's tasks (tasks variant) are the tap's: rmcp does not know them.
    if let Some(asked) = frame.as_ref().filter(|f| super::legacy_tasks::intercepts(state.variant, f)) {
        // As rmcp would for any request outside initialize: a session is needed, and it must be open.
        let id = asked.get("id").cloned().unwrap_or(Value::Null);
        if session == "-" {
            return json_error_with_id(journal, &session, StatusCode::BAD_REQUEST, id, -32600, "a request outside initialize needs an Mcp-Session-Id".into());
        }
        if !state.session_open(&session).await {
            return json_error_with_id(journal, &session, StatusCode::NOT_FOUND, id, -32001, "no such session".into());
        }
        let answer = state.legacy_tasks.answer(asked, &session).await;
        return tap_answer(journal, &session, StatusCode::OK, "application/json", answer.to_string(), Some(&answer));
    }
    // So are a 2026-07-28 session's events (events variant), a push stream included.
    if let Some(asked) = frame.as_ref().filter(|f| super::events::intercepts(state.variant, f)) {
        return match super::events::serve(asked) {
            super::events::Served::Answer(answer) => tap_answer(journal, &session, StatusCode::OK, "application/json", answer.to_string(), Some(&answer)),
            super::events::Served::Stream(script) => {
                let id = asked.get("id").cloned().unwrap_or(Value::Null);
                push_stream(journal, &session, id, script, state.closing.clone())
            }
        };
    }
    // Only a request's id is echoed (the tap's own errors included); answers to notifications and
    // responses carry null.
    let request_id = frame.as_ref().filter(|f| f.get("method").is_some()).and_then(|f| f.get("id")).cloned().unwrap_or(Value::Null);
    let is_initialize = frame.as_ref().and_then(|f| f.get("method")).and_then(Value::as_str) == Some("initialize");
    // An initialize in a session already open: one asking the session's version is answered again
    // (by the SDK), one asking another is refused (the SDK would switch the session under it).
    if is_initialize && session != "-" {
        let negotiated = state.versions.lock().unwrap_or_else(|p| p.into_inner()).get(&session).cloned();
        if let Some(negotiated) = negotiated {
            let asked = frame.as_ref().and_then(|f| f.pointer("/params/protocolVersion")).cloned().unwrap_or(Value::Null);
            let same = asked.as_str() == Some(negotiated.as_str());
            journal.log(Entry::note(
                &session,
                Transport::Http,
                note::RepeatedInitialize { id: request_id.clone(), version: asked.clone(), answered_again: same, in_flight: false }.detail(),
            ));
            if !same {
                let message = format!("invalid request: the session is already initialized with protocol version {negotiated}");
                return json_error_with_id(journal, &session, StatusCode::BAD_REQUEST, request_id, -32600, message);
            }
        }
    }
    let opens_session = session == "-" && is_initialize;
    if opens_session && state.open_sessions().await >= MAX_SESSIONS {
        return json_error_with_id(journal, &session, StatusCode::SERVICE_UNAVAILABLE, request_id, -32000, format!("{MAX_SESSIONS} sessions are open: no more"));
    }
    if state.expires(&session, frame.as_ref()) {
        return json_error_with_id(journal, &session, StatusCode::NOT_FOUND, request_id, -32001, "session expired".into());
    }
    let is_get = parts.method == axum::http::Method::GET;
    let drop_stream = state.variant == Variant::StreamDrop && is_get;
    let priming = state.priming(&session, &parts.headers, frame.as_ref(), is_get);
    // The SDK gets the frame as the tap read it: a body with duplicate member names (which the SDK's
    // typed reading refuses with a plain-text 415) is served as on stdio, the last name winning.
    // The journal keeps the bytes as sent.
    let bytes = match &frame {
        Some(value) => serde_json::to_vec(value).map(Bytes::from).unwrap_or(bytes),
        None => bytes,
    };
    // A request the client gives up on before its answer begins (its connection closed, see
    // `Limits::half_close`) is dropped here, unanswered: the guard says so.
    let mut unanswered = AnswerPending { journal: journal.clone(), session: session.clone(), request_id: Some(request_id.clone()).filter(|id| !id.is_null()) };
    let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    unanswered.request_id = None;
    let (mut parts_out, body_out) = response.into_parts();
    let out_session = header(&parts_out.headers, "mcp-session-id").map(str::to_string).unwrap_or(session);
    let content_type = header(&parts_out.headers, "content-type").unwrap_or("").to_string();
    let mut data: DataStream = StreamExt::boxed(body_out.into_data_stream());
    // In json-responses and stateless a request's stream that would open with its answer is answered with
    // that answer as a JSON body instead; one that opens otherwise stays a stream.
    let streams = content_type.starts_with("text/event-stream");
    if matches!(state.variant, Variant::JsonResponses | Variant::Stateless) && streams && !is_get && !request_id.is_null() && parts_out.status.is_success() {
        let (held, first) = first_data_event(&mut data).await;
        match first.filter(|event| answers(event, &request_id)) {
            Some(answer) => {
                if let Some(version) = negotiated_version(&answer).filter(|_| is_initialize) {
                    state.versions.lock().unwrap_or_else(|p| p.into_inner()).insert(out_session.clone(), version);
                }
                return json_answer(journal, &out_session, parts_out, answer, request_id);
            }
            None => data = StreamExt::boxed(futures::stream::once(async move { Ok(Bytes::from(held)) }).chain(data)),
        }
    }
    let detail = json!({"status": parts_out.status.as_u16(), "headers": selected_headers(&parts_out.headers)});
    journal.log(Entry::new(&out_session, Transport::Http, Direction::ServerToClient, EventKind::HttpResponse).with_detail(detail));
    let rewrite = super::outgoing_rewrite(state.variant);
    if streams {
        let awaiting = Some(request_id.clone()).filter(|id| !id.is_null());
        let sse = SseJournal { journal: journal.clone(), session: out_session, buffer: Vec::new(), rewrite, priming, held: Vec::new(), versions: state.versions.clone(), awaiting };
        // In `stream-drop`, the first GET stream ends right after its first event with an id.
        let drop_here = drop_stream && parts_out.status.is_success() && !state.dropped_a_stream.swap(true, Ordering::SeqCst);
        let stream = futures::stream::unfold((data, sse, false), move |(mut inner, mut sse, ended)| async move {
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
                sse.journal.log(Entry::note(&sse.session, Transport::Http, note::StreamDropped { last_sse_id: last_id.clone() }.detail()));
            }
            Some((Ok(Bytes::from(out)), (inner, sse, end_now)))
        });
        // A large frame's turn ends with its stream (its end, or the client gone).
        let stream = stream.map(move |item| {
            let _held = &turn;
            item
        });
        return Response::from_parts(parts_out, Body::from_stream(stream));
    }
    let mut bytes = Bytes::from(collect_all(data).await.unwrap_or_default());
    if let Some(rewritten) = rewrite.and_then(|rewrite| std::str::from_utf8(&bytes).ok().and_then(rewrite)) {
        bytes = Bytes::from(rewritten);
        parts_out.headers.remove(axum::http::header::CONTENT_LENGTH);
    }
    let mut sdk_said = None;
    if let Some(answer) = is_post.then(|| error_answer_with_id(parts_out.status, &content_type, &bytes, request_id)).flatten() {
        sdk_said = Some(String::from_utf8_lossy(&bytes).into_owned());
        bytes = Bytes::from(answer);
        parts_out.headers.remove(axum::http::header::CONTENT_LENGTH);
        parts_out.headers.insert(axum::http::header::CONTENT_TYPE, axum::http::HeaderValue::from_static("application/json"));
    }
    if !bytes.is_empty() {
        let (kind, parsed) = classify_body(&bytes);
        let entry = Entry::frame(&out_session, Transport::Http, Direction::ServerToClient, kind, &bytes, parsed.as_ref());
        journal.log(match sdk_said {
            Some(said) => entry.with_detail(json!({"sdk_body": said})),
            None => entry,
        });
    }
    Response::from_parts(parts_out, Body::from(bytes))
}

type DataStream = futures::stream::BoxStream<'static, Result<Bytes, axum::Error>>;

/// Every byte of a body; `None` when reading it failed.
async fn collect_all(mut data: DataStream) -> Option<Vec<u8>> {
    let mut all = Vec::new();
    while let Some(chunk) = data.next().await {
        all.extend_from_slice(&chunk.ok()?);
    }
    Some(all)
}

/// Reads an event stream up to its first event that carries data: the bytes read, and that
/// event's data (`None` when the stream ended first).
async fn first_data_event(data: &mut DataStream) -> (Vec<u8>, Option<String>) {
    let mut held = Vec::new();
    while let Some(Ok(chunk)) = data.next().await {
        held.extend_from_slice(&chunk);
        if let Some(found) = first_event_data(&String::from_utf8_lossy(&held)) {
            return (held, Some(found));
        }
    }
    (held, None)
}

/// The data of the first complete event in `text` that has any (its `data:` lines joined).
fn first_event_data(text: &str) -> Option<String> {
    let text = text.replace("\r\n", "\n");
    let complete = &text[..text.rfind("\n\n")?];
    complete.split("\n\n").find_map(|event| {
        let lines: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data:")).map(|d| d.strip_prefix(' ').unwrap_or(d)).collect();
        let data = lines.join("\n");
        (!data.trim().is_empty()).then_some(data)
    })
}

/// Whether an event's data is the answer (a result or an error) to the request with `id`.
fn answers(data: &str, id: &Value) -> bool {
    serde_json::from_str::<Value>(data).is_ok_and(|m| m.get("id") == Some(id) && (m.get("result").is_some() || m.get("error").is_some()))
}

/// The answer sent as an `application/json` body, journaled as such.
fn json_answer(journal: &Journal, session: &str, mut parts: axum::http::response::Parts, answer: String, id: Value) -> Response {
    parts.headers.insert(axum::http::header::CONTENT_TYPE, axum::http::HeaderValue::from_static("application/json"));
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    let detail = json!({"status": parts.status.as_u16(), "headers": selected_headers(&parts.headers)});
    journal.log(Entry::new(session, Transport::Http, Direction::ServerToClient, EventKind::HttpResponse).with_detail(detail));
    journal.log(Entry::note(session, Transport::Http, note::AnsweredAsJson { id: id.clone() }.detail()));
    let parsed = serde_json::from_str::<Value>(&answer).ok();
    journal.log(Entry::frame(session, Transport::Http, Direction::ServerToClient, EventKind::Frame, answer.as_bytes(), parsed.as_ref()));
    Response::from_parts(parts, Body::from(answer))
}

/// The SDK's refusal of a POST made a JSON-RPC error with an `id` member: its JSON errors that
/// lack one get the request's id (null for anything but a request), its plain-text refusals
/// (an unsupported `MCP-Protocol-Version`) become a -32600 error. `None`: the answer stands.
fn error_answer_with_id(status: StatusCode, content_type: &str, body: &[u8], request_id: Value) -> Option<String> {
    if !status.is_client_error() {
        return None;
    }
    if content_type.starts_with("application/json") {
        let mut answer: Map<String, Value> = serde_json::from_slice(body).ok()?;
        if answer.contains_key("id") || !answer.contains_key("error") {
            return None;
        }
        answer.insert("id".into(), request_id);
        return Some(Value::Object(answer).to_string());
    }
    let message = String::from_utf8_lossy(body);
    let message = message.trim();
    let message = if message.is_empty() { status.canonical_reason().unwrap_or("refused") } else { message };
    Some(json!({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32600, "message": message}}).to_string())
}

/// A request accepted and never answered: an SSE stream that carries no event and ends only
/// when the server stops (the headers go out at once, so a client is not stuck waiting for them).
fn held_open(journal: &Journal, session: &str, closing: CancellationToken) -> Response {
    let detail = json!({"status": 200, "headers": {"content-type": "text/event-stream"}, "by": "tap", "held_open": true});
    journal.log(Entry::new(session, Transport::Http, Direction::ServerToClient, EventKind::HttpResponse).with_detail(detail));
    let never = futures::stream::once(async move {
        closing.cancelled().await;
        Ok::<Bytes, std::io::Error>(Bytes::new())
    });
    ([("content-type", "text/event-stream"), ("cache-control", "no-cache")], Body::from_stream(never)).into_response()
}

/// A push stream still open: dropped by the client (not by the server stopping), it is
/// journalled as the request's answer stream closed.
struct PushOpen {
    journal: Journal,
    session: String,
    request_id: Value,
    closing: CancellationToken,
}

impl Drop for PushOpen {
    fn drop(&mut self) {
        if !self.closing.is_cancelled() {
            answer_stream_closed(&self.journal, &self.session, self.request_id.take(), false);
        }
    }
}

/// An `events/stream` answered with an SSE stream: each notification of `script` journalled and
/// sent after its delay, then nothing until the client closes the stream (journalled as its
/// answer stream closed) or the server stops.
fn push_stream(journal: &Journal, session: &str, request_id: Value, script: Vec<(std::time::Duration, Value)>, closing: CancellationToken) -> Response {
    let detail = json!({"status": 200, "headers": {"content-type": "text/event-stream"}, "by": "tap"});
    journal.log(Entry::new(session, Transport::Http, Direction::ServerToClient, EventKind::HttpResponse).with_detail(detail));
    let open = PushOpen { journal: journal.clone(), session: session.to_string(), request_id, closing: closing.clone() };
    let (journal, session) = (journal.clone(), session.to_string());
    let notifications = futures::stream::iter(script).then(move |(delay, notification)| {
        let (journal, session) = (journal.clone(), session.clone());
        async move {
            tokio::time::sleep(delay).await;
            let text = notification.to_string();
            journal.log(Entry::frame(&session, Transport::Http, Direction::ServerToClient, EventKind::Frame, text.as_bytes(), Some(&notification)));
            Ok::<Bytes, std::io::Error>(Bytes::from(format!("data: {text}\n\n")))
        }
    });
    let silence = futures::stream::once(async move {
        closing.cancelled().await;
        Ok::<Bytes, std::io::Error>(Bytes::new())
    });
    // The guard lives as long as the body: dropped with it when the client goes.
    let body = notifications.chain(silence).map(move |item| {
        let _open = &open;
        item
    });
    ([("content-type", "text/event-stream"), ("cache-control", "no-cache")], Body::from_stream(body)).into_response()
}

/// Serves the probe server on `listener` until `shutdown` is cancelled.
pub async fn serve_http(listener: TcpListener, journal: Journal, options: ServeOptions, shutdown: CancellationToken) -> std::io::Result<()> {
    let (variant, task_timing) = (options.variant, options.task_timing);
    let read_timeout = options.read_timeout.unwrap_or(READ_TIMEOUT);
    let handler = ProbeServer::new(journal.clone(), "http", Transport::Http, options);
    let local: SocketAddr = listener.local_addr()?;
    // Whether a client closing its connection is seen while an answer is pending (see
    // `Limits::half_close`): the long-call judges need it to blame a host for not cancelling.
    let closes_seen = variant == Variant::LongCalls;
    handler.note_serving(|serving| {
        serving.loopback = Some(local.ip().is_loopback());
        serving.closed_connections_seen = Some(closes_seen);
    });
    let closing = handler.closing();
    let on_shutdown = shutdown.clone();
    tokio::spawn(async move {
        on_shutdown.cancelled().await;
        closing.cancel();
    });
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = shutdown.child_token();
    config.sse_keep_alive = None;
    if variant == Variant::StreamDrop {
        config.sse_retry = Some(STREAM_DROP_RETRY);
    }
    // No sessions: every POST served on its own, GET and DELETE refused (405). The tap makes the
    // JSON answers of `stateless`, as it does in `json-responses`.
    if variant.is_stateless() {
        config.legacy_session_mode = false;
    }
    // Host and Origin are checked (and journalled) by the tap; rmcp's own guard would refuse unjournalled.
    config.allowed_hosts = Vec::new();
    let sessions = Arc::new(LocalSessionManager::default());
    let auth = match crate::auth::Plan::of(variant) {
        Some(plan) => {
            let resource = format!("http://{local}{MCP_PATH}");
            let (journal, closing) = (journal.clone(), shutdown.child_token());
            Some(crate::auth::server::open(closing, read_timeout, move |issuer| crate::auth::Authority::new(plan, issuer, resource, journal)).await?)
        }
        None => None,
    };
    let service = StreamableHttpService::new(move || Ok(handler.clone()), sessions.clone(), config);
    let state = TapState {
        journal: journal.clone(),
        legacy_tasks: Arc::new(super::legacy_tasks::LegacyTasks::new(task_timing)),
        variant,
        expired: Arc::default(),
        dropped_a_stream: Arc::default(),
        versions: Arc::default(),
        sessions,
        read_timeout,
        closing: shutdown.child_token(),
        auth,
    };
    let app = axum::Router::new().nest_service(MCP_PATH, service).layer(axum::middleware::from_fn_with_state(state, tap));
    crate::net::connections::serve(listener, app, journal, crate::net::connections::Limits { read_timeout, half_close: !closes_seen }, shutdown).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_event_with_data_is_found_past_priming_events_and_only_once_complete() {
        assert_eq!(first_event_data("id: 0\nretry: 3000\ndata:\n\nevent: message\ndata: {\"id\":1}\n\n"), Some("{\"id\":1}".into()));
        assert_eq!(first_event_data("data: {\"id\":1}\r\n\r\n"), Some("{\"id\":1}".into()));
        assert_eq!(first_event_data("data: {\"id\":1}\n"), None, "an event not yet ended is not taken");
        assert_eq!(first_event_data("id: 0\ndata:\n\n"), None);
        assert!(answers(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#, &json!(7)));
        assert!(!answers(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#, &json!(7)), "a request to the client is no answer");
        assert!(!answers(r#"{"jsonrpc":"2.0","id":8,"result":{}}"#, &json!(7)));
    }

    #[test]
    fn sse_events_are_found_across_both_separators() {
        assert_eq!(find_event_end(b"data: x\n\nrest"), Some((7, 2)));
        assert_eq!(find_event_end(b"data: x\r\n\r\n"), Some((7, 4)));
        assert_eq!(find_event_end(b"data: x\n"), None);
    }
}
