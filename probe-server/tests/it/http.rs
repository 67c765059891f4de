//! The Streamable HTTP tap: bad bodies get JSON-RPC errors, foreign origins are refused, and both
//! land in the journal.

use std::time::Duration;

use probe_server::journal::{read_journal, EventKind, Journal};
use probe_server::transport::http::serve_http;
use probe_server::ServeOptions;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

async fn post(addr: std::net::SocketAddr, extra_headers: &str, body: &str) -> String {
    send_post(addr, extra_headers, body, false).await
}

/// Writes `body` as a POST and reads the whole answer; `half_close` shuts the client's side
/// after the request instead of asking for `Connection: close`.
async fn send_post(addr: std::net::SocketAddr, extra_headers: &str, body: &str, half_close: bool) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let close = if half_close { "" } else { "Connection: close\r\n" };
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra_headers}Content-Length: {}\r\n{close}\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    if half_close {
        stream.shutdown().await.unwrap();
    }
    let mut response = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut response)).await.unwrap().unwrap();
    response
}

/// A probe server on loopback in `variant`, journalling to a temporary file.
struct Served {
    addr: std::net::SocketAddr,
    path: std::path::PathBuf,
    shutdown: CancellationToken,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    _dir: tempfile::TempDir,
}

impl Served {
    async fn start(variant: probe_server::Variant) -> Served {
        Served::start_with(ServeOptions { variant, ..ServeOptions::default() }).await
    }

    async fn start_with(options: ServeOptions) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let server = tokio::spawn(serve_http(listener, Journal::create(&path).unwrap(), options, shutdown.clone()));
        Served { addr, path, shutdown, server, _dir: dir }
    }

    /// Stops the server and reads its journal back.
    async fn stop(self) -> probe_server::journal::JournalRead {
        self.shutdown.cancel();
        tokio::time::timeout(Duration::from_secs(5), self.server).await.unwrap().unwrap().unwrap();
        read_journal(&self.path).unwrap()
    }
}

#[tokio::test]
async fn bad_bodies_and_foreign_origins_are_answered_and_journalled() {
    let served = Served::start(probe_server::Variant::Standard).await;
    let addr = served.addr;

    let malformed = post(addr, "", "{not json").await;
    assert!(malformed.starts_with("HTTP/1.1 400"), "{malformed}");
    assert!(malformed.contains("-32700"));
    let batch = post(addr, "", r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).await;
    assert!(batch.contains("-32600"), "{batch}");
    let foreign = post(addr, "Origin: https://evil.example\r\n", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).await;
    assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
    let init =
        post(addr, "", r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
            .await;
    assert!(init.contains("\"protocolVersion\":\"2025-11-25\""), "{init}");

    let read = served.stop().await;
    let events = read.events;
    let count = |kind| events.iter().filter(|e| e.kind == kind).count();
    assert_eq!(count(EventKind::Unparsable), 1);
    assert_eq!(count(EventKind::NotJsonRpc), 1);
    assert_eq!(count(EventKind::Refused), 1);
    assert_eq!(count(EventKind::HttpRequest), 3, "refused requests are journalled as refused, not as requests");
    let initialize = events.iter().find(|e| e.method.as_deref() == Some("initialize")).unwrap();
    assert!(initialize.raw.as_ref().unwrap().contains("clientInfo"));
    assert!(events.iter().any(|e| e.kind == EventKind::Frame && e.raw.as_deref().is_some_and(|r| r.contains("\"result\""))), "the SSE answer is reassembled into a frame");
    let answered_by_tap = events.iter().filter(|e| e.kind == EventKind::HttpResponse && e.detail.as_ref().is_some_and(|d| d["by"] == "tap")).count();
    assert_eq!(answered_by_tap, 2, "the tap's own 400 answers are journalled too");
}

fn session_id(response: &str) -> String {
    response.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("mcp-session-id:").map(|v| v.trim().to_string())).expect("a session id")
}

#[tokio::test]
async fn an_expired_session_is_answered_404_and_a_new_one_is_served() {
    let served = Served::start(probe_server::Variant::SessionExpires).await;
    let addr = served.addr;
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let in_session = |id: &str| format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

    let first = session_id(&post(addr, "", initialize).await);
    assert!(post(addr, &in_session(&first), initialized).await.starts_with("HTTP/1.1 202"), "a notification does not expire the session");
    let expired = post(addr, &in_session(&first), list).await;
    assert!(expired.starts_with("HTTP/1.1 404"), "{expired}");
    assert!(post(addr, &in_session(&first), list).await.starts_with("HTTP/1.1 404"), "the expired session stays expired");
    let second = session_id(&post(addr, "", initialize).await);
    assert_ne!(first, second);
    let _ = post(addr, &in_session(&second), initialized).await;
    let listed = post(addr, &in_session(&second), list).await;
    assert!(listed.starts_with("HTTP/1.1 200") && listed.contains("\"tools\""), "only the first session expires: {listed}");

    let read = served.stop().await;
    let observations = probe_server::observe::Observations::from_read(read);
    assert_eq!(observations.variant(), probe_server::Variant::SessionExpires);
    let expiries: Vec<_> = observations.notes(probe_server::note::Note::SessionExpired).collect();
    assert_eq!(expiries.len(), 1);
    assert_eq!(expiries[0].detail.as_ref().unwrap()["session"], first.as_str());
    let not_found = observations.events.iter().filter(|e| e.kind == EventKind::HttpResponse && e.detail.as_ref().is_some_and(|d| d["status"] == 404)).count();
    assert_eq!(not_found, 2, "both 404 answers are journalled");
}

/// The whole request line is journalled (a query, an absolute-form authority), and an
/// absolute-form request for another host is refused whatever its Host header says.
#[tokio::test]
async fn the_request_line_is_journalled_whole_and_a_foreign_absolute_form_is_refused() {
    let served = Served::start(probe_server::Variant::Standard).await;
    let addr = served.addr;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let with_query = format!(
        "POST /mcp?access_token=secret HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    request(addr, &with_query).await;
    let foreign = format!(
        "POST http://evil.example/mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let refused = request(addr, &foreign).await;
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    let events = served.stop().await.events;
    let detail = |kind: EventKind| events.iter().find(|e| e.kind == kind).and_then(|e| e.detail.clone()).unwrap();
    assert_eq!(detail(EventKind::HttpRequest)["query"], "access_token=secret");
    assert_eq!(detail(EventKind::Refused)["uri_authority"], "evil.example");
}

async fn request(addr: std::net::SocketAddr, head: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut response = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut response)).await.unwrap().unwrap();
    response
}

/// Lines of a raw HTTP response that are an SSE `data` field with nothing in it.
fn empty_data_lines(response: &str) -> usize {
    response.lines().filter(|l| l.trim_end() == "data:").count()
}

/// Opens a session at `version`, lists tools in it, and returns the session id and both answers.
async fn session_at(addr: std::net::SocketAddr, version: &str) -> (String, String, String) {
    let initialize =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#);
    let opened = post(addr, "", &initialize).await;
    assert!(opened.contains(&format!("\"protocolVersion\":\"{version}\"")), "{opened}");
    let session = session_id(&opened);
    let in_session = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {version}\r\n");
    let _ = post(addr, &in_session, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    let listed = post(addr, &in_session, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#).await;
    assert!(listed.contains("\"tools\""), "{listed}");
    (session, opened, listed)
}

#[tokio::test]
async fn priming_events_reach_only_sessions_whose_version_has_them() {
    let served = Served::start(probe_server::Variant::Standard).await;
    let addr = served.addr;

    let (old, old_opened, old_listed) = session_at(addr, "2025-06-18").await;
    assert_eq!(empty_data_lines(&old_opened) + empty_data_lines(&old_listed), 0, "no priming on a 2025-06-18 session:\n{old_opened}\n{old_listed}");
    let (new, new_opened, new_listed) = session_at(addr, "2025-11-25").await;
    assert_eq!(empty_data_lines(&new_opened), 1, "{new_opened}");
    assert_eq!(empty_data_lines(&new_listed), 1, "{new_listed}");

    let read = served.stop().await;
    let events = read.events;
    let notes = |name: &str, session: &str| events.iter().filter(|e| e.session == session && e.detail.as_ref().is_some_and(|d| d["event"] == name)).count();
    assert_eq!(notes("sse_priming_withheld", &old), 2, "each withheld priming event is journalled");
    assert_eq!(notes("sse_without_data", &old), 0);
    assert_eq!(notes("sse_without_data", &new), 2);
    assert_eq!(notes("sse_priming_withheld", &new), 0);
}

#[tokio::test]
async fn a_dropped_stream_on_an_old_session_carries_its_id_without_data() {
    let served = Served::start(probe_server::Variant::StreamDrop).await;
    let addr = served.addr;

    let (session, _, _) = session_at(addr, "2025-06-18").await;
    let get =
        format!("GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-06-18\r\nConnection: close\r\n\r\n");
    let stream = request(addr, &get).await;
    assert!(stream.starts_with("HTTP/1.1 200"), "{stream}");
    assert!(stream.lines().any(|l| l.starts_with("id:")), "the dropped stream names an id to resume from: {stream}");
    assert!(!stream.lines().any(|l| l.starts_with("data")), "an id-only event, no data field: {stream}");

    let read = served.stop().await;
    let observations = probe_server::observe::Observations::from_read(read);
    assert_eq!(observations.notes(probe_server::note::Note::SseIdOnly).count(), 1);
    let dropped = observations.notes(probe_server::note::Note::StreamDropped).next().expect("the stream was dropped");
    assert_eq!(dropped.detail.as_ref().unwrap()["last_sse_id"], "0");
}

/// Issue 21, defects 1, 5 and 6: the tap parsed a body of up to 16 MiB into a JSON value before
/// the SDK refused it at 4 MiB (hundreds of MB per request), and a refused body kept no length,
/// digest or head; a cut body was journalled with `raw_len: 0`. Now one limit holds on both
/// transports before anything parses: an oversize body is read through as length + sha256 +
/// head and answered with a JSON-RPC error, and a cut body keeps the bytes that arrived.
#[tokio::test]
async fn an_oversize_body_is_summarised_and_a_cut_one_keeps_its_bytes() {
    use probe_server::transport::MAX_FRAME;
    assert_eq!(probe_server::transport::stdio::MAX_LINE, MAX_FRAME, "one limit on both transports");
    let served = Served::start(probe_server::Variant::Standard).await;
    let addr = served.addr;
    let big = format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}", "y".repeat(MAX_FRAME));
    let refused = post(addr, "", &big).await;
    assert!(refused.starts_with("HTTP/1.1 413"), "{}", &refused[..refused.len().min(300)]);
    assert!(refused.contains("-32600") && refused.contains("\"id\":null"), "{refused}");

    // A body that stops halfway: Content-Length promises 100 bytes, 40 arrive, then the client goes.
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&[b'{'; 40]).await.unwrap();
    stream.flush().await.unwrap();
    drop(stream);
    // The server notices the cut when the connection closes; give the journal a moment by polling it.
    let path = served.path.clone();
    let journalled = async {
        loop {
            let events = read_journal(&path).map(|r| r.events).unwrap_or_default();
            if events.iter().any(|e| e.kind == EventKind::Partial) {
                return events;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), journalled).await.expect("the cut body is journalled");
    let events = served.stop().await.events;
    let oversize = events.iter().find(|e| e.kind == EventKind::Oversize).expect("the oversize body is journalled");
    assert_eq!(oversize.raw_len, big.len());
    assert_eq!(oversize.sha256.as_deref(), Some(probe_server::journal::sha256_hex(big.as_bytes()).as_str()));
    assert!(oversize.head.as_deref().is_some_and(|h| big.starts_with(h) && h.len() == probe_server::journal::HEAD_BYTES));
    let cut = events.iter().find(|e| e.kind == EventKind::Partial).unwrap();
    assert_eq!((cut.raw_len, cut.raw.as_deref()), (40, Some("{".repeat(40).as_str())));
}

/// Issue 21, defects 5, 7 and 8 over HTTP: bodies the SDK cannot type (an id that is an object,
/// a request with a `result`) got `415 text/plain` where stdio answers a JSON-RPC -32600; ill-typed
/// params of a typed method got -32601; an id of `7.0` came back as `7`. Now HTTP answers as
/// stdio does: JSON-RPC errors with the right code and the id as sent.
#[tokio::test]
async fn bodies_the_sdk_cannot_type_get_the_same_json_rpc_errors_as_on_stdio() {
    let served = Served::start(probe_server::Variant::Standard).await;
    let addr = served.addr;
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let session = session_id(&post(addr, "", initialize).await);
    let with_session = format!("Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-11-25\r\n");
    for (body, code, id) in [
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, "-32600", "null"),
        (r#"{"jsonrpc":"2.0","id":3,"method":"ping","result":{}}"#, "-32600", "3"),
        (r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}"#, "-32602", "4"),
        (r#"{"jsonrpc":"2.0","id":7.0,"method":"ping"}"#, "-32600", "7.0"),
    ] {
        let response = post(addr, &with_session, body).await;
        assert!(response.starts_with("HTTP/1.1 400"), "{body} -> {response}");
        assert!(response.to_ascii_lowercase().contains("content-type: application/json"), "{body} -> {response}");
        assert!(response.contains(&format!("\"code\":{code}")) && response.contains(&format!("\"id\":{id}")), "{body} -> {response}");
    }
    served.stop().await;
}

/// Polls the journal at `path` until `done` holds for its events (the server journals a closed
/// connection when it notices the close).
async fn journal_until(path: &std::path::Path, done: impl Fn(&[probe_server::journal::Event]) -> bool) {
    let polled = async {
        loop {
            let events = read_journal(path).map(|r| r.events).unwrap_or_default();
            if done(&events) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), polled).await.expect("the journal shows it in time");
}

fn refused_connections(events: &[probe_server::journal::Event]) -> Vec<&probe_server::journal::Event> {
    events.iter().filter(|e| e.kind == EventKind::Refused && e.detail.as_ref().is_some_and(|d| d.get("connection").is_some())).collect()
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

async fn post_then_half_close(addr: std::net::SocketAddr, extra_headers: &str, body: &str) -> String {
    send_post(addr, extra_headers, body, true).await
}

/// Issue 21, defect 6: a POST followed by a half-close lost its request when the answer took a
/// moment (12 of 20 unanswered, 8 never journalled), and requests the HTTP parser refused (a
/// bad Content-Length, 1,000 headers) were not journalled at all. Now the half-closed request
/// is served whatever its answer waits for, and a refused head is answered by the parser and
/// journalled as refused with its last bytes.
#[tokio::test]
async fn a_half_closed_post_is_answered_and_a_refused_head_is_journalled() {
    let options = ServeOptions { answer_timeout: Some(Duration::from_millis(100)), ..ServeOptions::default() };
    let served = Served::start_with(options).await;
    let addr = served.addr;
    let session = session_id(&post_then_half_close(addr, "", INITIALIZE).await);
    let in_session = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let _ = post(addr, &in_session, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    // The tool asks the client for its roots and answers once that request times out: the
    // answer comes well after the client's half-close.
    for id in 10..14 {
        let call = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{}","arguments":{{}}}}}}"#, probe_server::surface::TOOL_ROOTS);
        let answer = post_then_half_close(addr, &in_session, &call).await;
        assert!(answer.contains(&format!("\"id\":{id}")) && answer.contains("\"result\""), "{answer}");
    }
    let bad_length = request(addr, &format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: abc\r\n\r\n{{}}")).await;
    assert!(bad_length.starts_with("HTTP/1.1 400"), "{bad_length}");
    let many: String = (0..1000).map(|i| format!("X-Header-{i}: {i}\r\n")).collect();
    let too_many = request(addr, &format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n{many}Content-Length: 2\r\n\r\n{{}}")).await;
    assert!(too_many.starts_with("HTTP/1.1 431") || too_many.starts_with("HTTP/1.1 400"), "{too_many}");
    journal_until(&served.path, |events| refused_connections(events).len() == 2).await;
    let events = served.stop().await.events;
    let refused = refused_connections(&events);
    // Each connection is journalled when it closes, in either order.
    let with = |text: &str| refused.iter().find(|e| e.raw.as_deref().is_some_and(|raw| raw.contains(text))).copied();
    assert!(with("Content-Length: abc").is_some(), "{refused:?}");
    let too_large = with("X-Header-").expect("the head with too many headers is journalled");
    let detail = too_large.detail.as_ref().unwrap();
    assert_eq!((detail["connection"].as_str(), detail["raw_is_tail"].as_bool()), (Some("message head is too large"), Some(true)), "{detail}");
}

/// Issue 21, defect 9: slow connections stayed open without limit. A head that stops arriving
/// is dropped after the read timeout and journalled; a body that pauses as long is cut there,
/// answered, and keeps the bytes that came.
#[tokio::test]
async fn a_stalled_head_or_body_times_out_and_is_journalled() {
    let options = ServeOptions { read_timeout: Some(Duration::from_millis(200)), ..ServeOptions::default() };
    let served = Served::start_with(options).await;
    let addr = served.addr;
    let mut stalled = tokio::net::TcpStream::connect(addr).await.unwrap();
    stalled.write_all(b"POST /mcp HTTP/1.1\r\nHo").await.unwrap();
    let mut rest = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stalled.read_to_end(&mut rest)).await.expect("the server closes a stalled head").unwrap();

    let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n");
    slow.write_all(head.as_bytes()).await.unwrap();
    slow.write_all(b"{\"jsonrpc\"").await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(10), slow.read_to_string(&mut answer)).await.expect("a stalled body is answered").unwrap();
    assert!(answer.starts_with("HTTP/1.1 400") && answer.contains("-32700") && answer.contains("no byte of the body"), "{answer}");

    journal_until(&served.path, |events| !refused_connections(events).is_empty()).await;
    let events = served.stop().await.events;
    let timed_out = refused_connections(&events)[0];
    assert_eq!(timed_out.raw.as_deref(), Some("POST /mcp HTTP/1.1\r\nHo"));
    let cut = events.iter().find(|e| e.kind == EventKind::Partial).expect("the stalled body is journalled");
    assert_eq!(cut.raw.as_deref(), Some("{\"jsonrpc\""));
}

/// Issue 21, defect 9: a DELETE of an unknown session was answered 202. Now only an open
/// session is deleted (202); one that never existed, or was deleted already, is 404.
#[tokio::test]
async fn deleting_a_session_that_is_not_open_is_404() {
    let served = Served::start(probe_server::Variant::Standard).await;
    let addr = served.addr;
    let session = session_id(&post(addr, "", INITIALIZE).await);
    let delete = |id: &str| format!("DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\n\r\n");
    let first = request(addr, &delete(&session)).await;
    assert!(first.starts_with("HTTP/1.1 202"), "{first}");
    let again = request(addr, &delete(&session)).await;
    assert!(again.starts_with("HTTP/1.1 404") && again.contains("-32001"), "{again}");
    let unknown = request(addr, &delete("no-such-session")).await;
    assert!(unknown.starts_with("HTTP/1.1 404"), "{unknown}");
    served.stop().await;
}

/// Issue 21, defect 9: sessions and connections had no cap. One session over
/// [`probe_server::transport::http::MAX_SESSIONS`] is answered 503 with its id; one connection
/// over [`probe_server::transport::MAX_CONNECTIONS`] is closed and journalled as refused.
#[tokio::test]
async fn sessions_and_connections_are_capped() {
    use probe_server::transport::{http::MAX_SESSIONS, MAX_CONNECTIONS};
    let served = Served::start(probe_server::Variant::Standard).await;
    let addr = served.addr;
    for _ in 0..MAX_SESSIONS {
        assert!(post(addr, "", INITIALIZE).await.starts_with("HTTP/1.1 200"));
    }
    let over = post(addr, "", INITIALIZE).await;
    assert!(over.starts_with("HTTP/1.1 503") && over.contains("\"id\":1"), "{over}");

    let mut open = Vec::new();
    for _ in 0..MAX_CONNECTIONS {
        open.push(tokio::net::TcpStream::connect(addr).await.unwrap());
    }
    // The server takes the connections in order; the last one only once all the others hold a slot.
    let mut last = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut nothing = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), last.read_to_end(&mut nothing)).await.expect("the connection over the cap is closed").unwrap();
    assert!(nothing.is_empty());
    drop(open);
    journal_until(&served.path, |events| !refused_connections(events).is_empty()).await;
    let events = served.stop().await.events;
    assert!(refused_connections(&events)[0].detail.as_ref().unwrap()["connection"].as_str().unwrap().contains("limit"));
}

/// Issue 21, defect 8: errors the SDK gives without the tap (the stateless 2026-07-28 path) had
/// no `id` member, and an unsupported `MCP-Protocol-Version` got plain text. Now every refusal of
/// a POST is a JSON-RPC error with an id: the request's, or null for a notification or response.
#[tokio::test]
async fn the_sdks_own_refusals_carry_an_id() {
    let served = Served::start(probe_server::Variant::Standard).await;
    let addr = served.addr;
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;
    let modern = "MCP-Protocol-Version: 2026-07-28\r\n";
    let cases = [
        ("MCP-Protocol-Version: 2099-01-01\r\n".to_string(), r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}"#.to_string(), "9"),
        (modern.to_string(), format!(r#"{{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{{{meta}}}}}"#), "10"),
        (modern.to_string(), r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(), "null"),
        (modern.to_string(), r#"{"jsonrpc":"2.0","id":11,"result":{}}"#.to_string(), "null"),
    ];
    for (headers, body, id) in cases {
        let answer = post(addr, &headers, &body).await;
        assert!(answer.starts_with("HTTP/1.1 4"), "{body} -> {answer}");
        assert!(answer.to_ascii_lowercase().contains("content-type: application/json"), "{body} -> {answer}");
        let json = answer.split("\r\n\r\n").nth(1).unwrap();
        let value: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{body} -> {answer}: {e}"));
        assert_eq!(value["id"].to_string(), id, "{body} -> {answer}");
        assert!(value["error"]["code"].is_i64(), "{body} -> {answer}");
    }
    let events = served.stop().await.events;
    assert!(events.iter().any(|e| e.detail.as_ref().is_some_and(|d| d["sdk_body"].as_str().is_some_and(|b| b.contains("2099-01-01")))), "what the SDK said is kept");
}

/// Issue 49, item 9: the server answered MCP on any path under its endpoint (`/mcp/rpc`,
/// `/mcp/health`), so a host posting to the wrong path was judged on its headers instead of its
/// real fault. Now only the endpoint's path serves: another is 404, journalled as refused with
/// its body, and never a frame of a session.
#[tokio::test]
async fn only_the_endpoints_own_path_serves_mcp() {
    let served = Served::start(probe_server::Variant::Standard).await;
    let addr = served.addr;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    // A trailing slash is another path too (issue 52, N12); a query on the endpoint is the endpoint.
    for path in ["/mcp/rpc", "/mcp/health", "/other", "/mcp/"] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{ping}",
            ping.len()
        );
        let answer = request(addr, &head).await;
        assert!(answer.starts_with("HTTP/1.1 404"), "{path}: {answer}");
    }
    let served_answer =
        post(addr, "", r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
            .await;
    assert!(served_answer.starts_with("HTTP/1.1 200"), "{served_answer}");
    let events = served.stop().await.events;
    let refused: Vec<_> = events.iter().filter(|e| e.kind == EventKind::Refused).collect();
    assert_eq!(refused.len(), 4, "{refused:?}");
    assert!(refused.iter().all(|e| e.raw.as_deref() == Some(ping) && e.detail.as_ref().is_some_and(|d| d["status"] == 404)), "{refused:?}");
    assert_eq!(events.iter().filter(|e| e.kind == EventKind::Frame && e.method.as_deref() == Some("ping")).count(), 0, "no refused body became a frame");
    // Where the endpoint is protected, a path under it without a token meets the challenge first
    // (a host looking for the resource metadata there is told where it is).
    let protected = Served::start(probe_server::Variant::Auth).await;
    let addr = protected.addr;
    let answer = request(addr, &format!("GET /mcp/.well-known/oauth-protected-resource HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")).await;
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    protected.stop().await;
}

/// Issue 52: an `initialize` in a session already open went to the SDK unguarded. Now one asking
/// another version is refused with -32600 and the session keeps its version; one asking the
/// same version is answered with the opening answer again (as on stdio).
#[tokio::test]
async fn an_initialize_in_an_open_session_is_refused_or_answered_again() {
    let served = Served::start(probe_server::Variant::Standard).await;
    let addr = served.addr;
    let (session, opened, _) = session_at(addr, "2025-11-25").await;
    let in_session = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let other = r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    // Its version header agrees with what it asks: only the session's version stands in the way.
    let refused = post(addr, &format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2024-11-05\r\n"), other).await;
    assert!(refused.contains("\"id\":7") && refused.contains("-32600"), "{refused}");
    let same = r#"{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let again = post(addr, &in_session, same).await;
    assert!(again.contains("\"id\":8") && again.contains("\"protocolVersion\":\"2025-11-25\""), "{again}");
    let listed = post(addr, &in_session, r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#).await;
    assert!(listed.contains("\"tools\""), "the session goes on: {listed}");
    assert!(opened.contains("2025-11-25"));
    let events = served.stop().await.events;
    let repeated = events.iter().filter(|e| probe_server::note::Note::of(e) == Some(probe_server::note::Note::RepeatedInitialize)).count();
    assert_eq!(repeated, 2, "both repeats are noted");
}

/// Issue 52: a body had no total deadline, so 256 connections sending a byte every few seconds
/// held every slot and kept every other client out. Now a body still arriving at the deadline (five
/// read timeouts here, 5 s; 10 s at most) is cut, and a new client gets in once the slow ones are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_bodies_on_every_connection_keep_a_new_client_out_no_longer_than_the_body_deadline() {
    use probe_server::transport::MAX_CONNECTIONS;
    let options = ServeOptions { read_timeout: Some(Duration::from_secs(1)), ..ServeOptions::default() };
    let served = Served::start_with(options).await;
    let addr = served.addr;
    let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n");
    let mut slow = Vec::new();
    for _ in 0..MAX_CONNECTIONS {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        slow.push(stream);
    }
    // A byte on each every 300 ms: no pause is long, the whole body never comes.
    let trickling = tokio::spawn(async move {
        for _ in 0..200 {
            for stream in &mut slow {
                let _ = stream.write_all(b" ").await;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    });
    // A new client knocks until it is served: once the slow bodies are cut, it is.
    let knocking = async {
        loop {
            let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let request = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{INITIALIZE}",
                INITIALIZE.len()
            );
            let _ = stream.write_all(request.as_bytes()).await;
            let mut answer = String::new();
            let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut answer)).await;
            if answer.starts_with("HTTP/1.1 200") {
                return answer;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let answer = tokio::time::timeout(Duration::from_secs(60), knocking).await.expect("a new client got in while bodies trickled");
    assert!(answer.contains("\"protocolVersion\""), "{answer}");
    trickling.abort();
    let events = served.stop().await.events;
    let cut = events
        .iter()
        .filter(|e| e.kind == EventKind::Partial && e.detail.as_ref().is_some_and(|d| d["error"].as_str().is_some_and(|m| m.contains("did not arrive whole"))))
        .count();
    assert!(cut > 0, "the slow bodies are cut at the deadline and journalled");
}

/// In long-calls a client that gives up on the call that never answers by closing its connection
/// (over 2026-07-28 HTTP that is the cancel) is seen doing so while the server still runs, though
/// the call writes nothing: the tap journals the call's answer stream closed, before its answer
/// began (2026-07-28: no priming event, so the SDK has sent not even the headers) or after
/// (2025-11-25: the stream opened with its priming event), and the connection is no refused
/// request.
#[tokio::test]
async fn a_call_given_up_by_closing_the_connection_is_seen_before_any_answer() {
    let served = Served::start(probe_server::Variant::LongCalls).await;
    let addr = served.addr;
    let (session, _, listed) = session_at(addr, "2025-11-25").await;
    assert!(listed.contains(probe_server::long_calls::TOOL_STALL), "{listed}");
    let stall = probe_server::long_calls::TOOL_STALL;
    let legacy = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let modern = format!("Mcp-Method: tools/call\r\nMcp-Name: {stall}\r\nMCP-Protocol-Version: 2026-07-28\r\n");
    let modern_meta = r#""_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"#;
    for (id, headers, meta, before_answer) in [(7, legacy, "", false), (8, modern, modern_meta, true)] {
        let call = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{meta}"name":"{stall}","arguments":{{}}}}}}"#);
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\r\n{call}",
            call.len()
        );
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        // The call is in hand once it is journalled; then the client goes.
        let called = format!("\"id\":{id},");
        journal_until(&served.path, |events| events.iter().any(|e| e.kind == EventKind::Frame && e.raw.as_deref().is_some_and(|raw| raw.contains(&called)))).await;
        drop(stream);
        let closed = |e: &probe_server::journal::Event| {
            probe_server::note::Note::of(e) == Some(probe_server::note::Note::AnswerStreamClosed)
                && e.detail.as_ref().is_some_and(|d| d["request_id"] == id && d.get("before_answer_began").is_some() == before_answer)
        };
        journal_until(&served.path, |events| events.iter().any(closed)).await;
    }
    let events = served.stop().await.events;
    assert!(refused_connections(&events).is_empty(), "{:?}", refused_connections(&events));
}
