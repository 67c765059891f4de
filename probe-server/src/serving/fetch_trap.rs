//! A loopback listener whose URLs the server hands out where a client must not fetch on its own
//! (the URL of a URL-mode elicitation, a tool schema's remote `$ref`): every request that
//! reaches it is journalled as a `url_fetched` note with its method, path and user agent, and
//! closed. The remote schema's path is answered with that schema (a host that fetches it gets
//! what it asked for and carries on); every other path (the icons' among them) with 204. It
//! stops when the server's session ends.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use crate::journal::{Entry, Journal, Transport};
use crate::note::{Payload, UrlFetched};

/// The path of the URL-mode elicitation's URL.
pub const TRAP_PATH: &str = "/mcp-client-probe/elicit";
/// The path of the remote schema a tool's `$ref` points at ([`REMOTE_SCHEMA`]).
pub const SCHEMA_PATH: &str = "/mcp-client-probe/schemas/unit.json";
/// The path of the icon `serverInfo.icons` names.
pub const SERVER_ICON_PATH: &str = "/mcp-client-probe/icons/server.png";
/// The path of the icon `probe_progress`'s listing names.
pub const TOOL_ICON_PATH: &str = "/mcp-client-probe/icons/tool.png";
/// What the trap answers at [`SCHEMA_PATH`]: a string enum of two units.
pub const REMOTE_SCHEMA: &str = r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string","enum":["celsius","fahrenheit"]}"#;
/// The most of a request head read.
const MAX_HEAD: usize = 8 * 1024;
/// How long a request head may take to arrive.
const HEAD_WAIT: Duration = Duration::from_secs(2);

/// Opens the trap on an ephemeral loopback port and returns its origin (`http://127.0.0.1:port`);
/// `None` outside a Tokio runtime or when no port can be had (the server then hands out URLs
/// nothing listens on).
pub fn open(journal: Journal, session: String, transport: Transport, closing: CancellationToken) -> Option<String> {
    let runtime = tokio::runtime::Handle::try_current().ok()?;
    let bound = std::net::TcpListener::bind("127.0.0.1:0").ok()?;
    bound.set_nonblocking(true).ok()?;
    let port = bound.local_addr().ok()?.port();
    runtime.spawn(async move {
        let Ok(listener) = tokio::net::TcpListener::from_std(bound) else { return };
        loop {
            let accepted = tokio::select! {
                _ = closing.cancelled() => return,
                accepted = listener.accept() => accepted,
            };
            let Ok((mut stream, _)) = accepted else { continue };
            let (journal, session) = (journal.clone(), session.clone());
            tokio::spawn(async move {
                let head = tokio::time::timeout(HEAD_WAIT, read_head(&mut stream, MAX_HEAD)).await.unwrap_or_default();
                let detail = describe(&head);
                journal.log(Entry::note(&session, transport, detail.detail()));
                let _ = stream.write_all(answer(&detail).as_bytes()).await;
            });
        }
    });
    Some(format!("http://127.0.0.1:{port}"))
}

/// The answer to a request `describe`d as `detail`: the remote schema at its path, else 204.
fn answer(detail: &UrlFetched) -> String {
    if detail.path == SCHEMA_PATH {
        let length = REMOTE_SCHEMA.len();
        format!("HTTP/1.1 200 OK\r\nContent-Type: application/schema+json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n{REMOTE_SCHEMA}")
    } else {
        "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string()
    }
}

/// A request head, up to its blank line or `limit` bytes (a little more: whole reads are kept).
pub async fn read_head(stream: &mut tokio::net::TcpStream, limit: usize) -> String {
    let mut head = Vec::new();
    let mut chunk = [0u8; 1024];
    while head.len() < limit && !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&chunk[..n]),
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// Who fetched, from a `url_fetched` note: "GET by curl/8.5" (`?` for what the head lacked).
pub fn fetcher(note: &crate::journal::Event) -> String {
    match UrlFetched::of(note) {
        Some(Ok(fetched)) => format!("{} by {}", fetched.method, fetched.user_agent.as_deref().unwrap_or("?")),
        _ => "? by ?".to_string(),
    }
}

/// The note's detail: the request line's method and path, and the user agent.
fn describe(head: &str) -> UrlFetched {
    let mut request_line = head.lines().next().unwrap_or_default().split_whitespace();
    let (method, path) = (request_line.next().unwrap_or(""), request_line.next().unwrap_or(""));
    let agent = head.lines().find_map(|l| l.split_once(':').filter(|(name, _)| name.trim().eq_ignore_ascii_case("user-agent")).map(|(_, v)| v.trim()));
    UrlFetched { method: method.to_string(), path: path.to_string(), user_agent: agent.map(str::to_string) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn a_request_head_is_described_by_method_path_and_agent() {
        let detail = describe("HEAD /mcp-client-probe/elicit HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: probe-test/1\r\n\r\n");
        assert_eq!(detail.detail(), json!({"event": "url_fetched", "method": "HEAD", "path": TRAP_PATH, "user_agent": "probe-test/1"}));
        assert_eq!(describe("").detail(), json!({"event": "url_fetched", "method": "", "path": "", "user_agent": null}));
    }

    #[tokio::test]
    async fn every_request_to_the_trap_is_journalled() {
        let dir = std::env::temp_dir().join(format!("fetch-trap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("journal.jsonl");
        let journal = Journal::create(&path).unwrap();
        let closing = CancellationToken::new();
        let origin = open(journal.clone(), "s".into(), Transport::Stdio, closing.clone()).expect("a trap");
        let address = origin.trim_start_matches("http://").to_string();
        let mut answers = Vec::new();
        for path in [TRAP_PATH, SCHEMA_PATH] {
            let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
            stream.write_all(format!("GET {path} HTTP/1.1\r\nUser-Agent: t\r\n\r\n").as_bytes()).await.unwrap();
            let mut answer = String::new();
            stream.read_to_string(&mut answer).await.unwrap();
            answers.push(answer);
        }
        assert!(answers[0].starts_with("HTTP/1.1 204"), "{}", answers[0]);
        assert!(answers[1].starts_with("HTTP/1.1 200") && answers[1].ends_with(REMOTE_SCHEMA), "{}", answers[1]);
        serde_json::from_str::<Value>(REMOTE_SCHEMA).unwrap();
        closing.cancel();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches("\"event\":\"url_fetched\"").count(), 2, "{text}");
        assert!(text.contains(&format!("\"path\":\"{SCHEMA_PATH}\"")), "{text}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
