//! The Streamable HTTP tap: bad bodies get JSON-RPC errors, foreign origins are refused, and both
//! land in the journal.

use std::time::Duration;

use probe_server::journal::{read_journal, EventKind, Journal};
use probe_server::transport::http::serve_http;
use probe_server::ServeOptions;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

async fn post(addr: std::net::SocketAddr, extra_headers: &str, body: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra_headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut response)).await.unwrap().unwrap();
    response
}

#[tokio::test]
async fn bad_bodies_and_foreign_origins_are_answered_and_journalled() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = CancellationToken::new();
    let server = tokio::spawn(serve_http(listener, Journal::create(&path).unwrap(), ServeOptions::default(), shutdown.clone()));

    let malformed = post(addr, "", "{not json").await;
    assert!(malformed.starts_with("HTTP/1.1 400"), "{malformed}");
    assert!(malformed.contains("-32700"));
    let batch = post(addr, "", r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).await;
    assert!(batch.contains("-32600"), "{batch}");
    let foreign = post(addr, "Origin: https://evil.example\r\n", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).await;
    assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
    let init = post(addr, "", r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#).await;
    assert!(init.contains("\"protocolVersion\":\"2025-11-25\""), "{init}");

    shutdown.cancel();
    tokio::time::timeout(Duration::from_secs(5), server).await.unwrap().unwrap().unwrap();
    let events = read_journal(&path).unwrap().events;
    let count = |kind| events.iter().filter(|e| e.kind == kind).count();
    assert_eq!(count(EventKind::Unparsable), 1);
    assert_eq!(count(EventKind::NotJsonRpc), 1);
    assert_eq!(count(EventKind::Refused), 1);
    assert_eq!(count(EventKind::HttpRequest), 3, "refused requests are journalled as refused, not as requests");
    let initialize = events.iter().find(|e| e.method.as_deref() == Some("initialize")).unwrap();
    assert!(initialize.raw.as_ref().unwrap().contains("clientInfo"));
    assert!(events.iter().any(|e| e.kind == EventKind::Frame && e.raw.as_deref().is_some_and(|r| r.contains("\"result\""))), "the SSE answer is reassembled into a frame");
}
