//! The stdio tap against hostile input: every frame journalled, errors where due, no panic.

use std::time::Duration;

use probe_server::journal::{read_journal, Direction, EventKind, Journal};
use probe_server::transport::stdio::{serve_stdio, MAX_LINE};
use probe_server::ServeOptions;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

async fn send<W: tokio::io::AsyncWrite + Unpin>(writer: &mut W, line: &[u8]) {
    writer.write_all(line).await.unwrap();
    writer.flush().await.unwrap();
}

async fn next_reply<R: tokio::io::AsyncBufRead + Unpin>(reader: &mut R) -> Value {
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(10), reader.read_line(&mut line)).await.expect("a reply in time").unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("reply is not JSON ({e}): {line}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_input_is_answered_and_every_frame_journalled() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    let journal = Journal::create(&path).unwrap();
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(serve_stdio(server_read, server_write, journal, ServeOptions::default()));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut replies = BufReader::new(client_read);

    // A notification before initialize must not end the server.
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await;
    send(&mut client_write, b"{not json\n").await;
    assert_eq!(next_reply(&mut replies).await["error"]["code"], -32700);
    send(&mut client_write, b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n").await;
    assert_eq!(next_reply(&mut replies).await["error"]["code"], -32600);
    send(&mut client_write, b"\"a bare string\"\n").await;
    assert_eq!(next_reply(&mut replies).await["error"]["code"], -32600);
    send(
        &mut client_write,
        br#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    )
    .await;
    send(&mut client_write, b"\n").await;
    let init = next_reply(&mut replies).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await;
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"no/such/method\"}\n").await;
    assert_eq!(next_reply(&mut replies).await["error"]["code"], -32601);

    let mut huge = vec![b'x'; 20 * 1024 * 1024];
    huge.push(b'\n');
    let writer = async {
        send(&mut client_write, &huge).await;
        send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n").await;
        send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":5,\"meth").await;
        client_write.shutdown().await.unwrap();
    };
    let reader = async {
        let oversize = next_reply(&mut replies).await;
        assert_eq!(oversize["error"]["code"], -32600, "{oversize}");
        let ping = next_reply(&mut replies).await;
        assert_eq!(ping["id"], 4);
        assert!(ping.get("result").is_some(), "{ping}");
    };
    tokio::join!(writer, reader);
    tokio::time::timeout(Duration::from_secs(10), serving).await.expect("server ends at end of input").unwrap().unwrap();

    let events = read_journal(&path).unwrap().events;
    let inbound: Vec<_> = events.iter().filter(|e| e.dir == Direction::ClientToServer).collect();
    let kinds: Vec<EventKind> = inbound.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        vec![
            EventKind::Frame,
            EventKind::Unparsable,
            EventKind::NotJsonRpc,
            EventKind::NotJsonRpc,
            EventKind::Frame,
            EventKind::Frame,
            EventKind::Frame,
            EventKind::Oversize,
            EventKind::Frame,
            EventKind::Partial,
        ],
        "every inbound frame is journalled, in order"
    );
    let oversize = inbound.iter().find(|e| e.kind == EventKind::Oversize).unwrap();
    assert_eq!(oversize.raw_len, 20 * 1024 * 1024);
    assert!(oversize.raw_len > MAX_LINE && oversize.sha256.as_ref().is_some_and(|s| s.len() == 64));
    assert_eq!(oversize.head.as_ref().unwrap().len(), 1024);
    let outbound = events.iter().filter(|e| e.dir == Direction::ServerToClient && e.kind == EventKind::Frame).count();
    assert_eq!(outbound, 7, "every reply is journalled");
    assert!(events.iter().any(|e| e.detail.as_ref().is_some_and(|d| d["event"] == "withheld_before_first_request")));
    assert!(events.iter().any(|e| e.detail.as_ref().is_some_and(|d| d["event"] == "input_closed" && d["clean"] == false)));
}

/// The stdio server on an in-memory pipe, journalling to `journal.jsonl` in the returned directory:
/// the client's write half, its replies and the server's task.
#[allow(clippy::type_complexity)]
fn serve_in_memory(
) -> (tempfile::TempDir, tokio::io::WriteHalf<tokio::io::DuplexStream>, BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>, tokio::task::JoinHandle<std::io::Result<()>>) {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::create(&dir.path().join("journal.jsonl")).unwrap();
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(serve_stdio(server_read, server_write, journal, ServeOptions::default()));
    let (client_read, client_write) = tokio::io::split(client);
    (dir, client_write, BufReader::new(client_read), serving)
}

/// Issue 21, defect 8: `{"jsonrpc":"2.0"}` (neither request nor response) went unanswered, and an
/// ill-formed client response with id 5 was answered with an error carrying id 5, which the
/// client could take for the answer to its own request 5. Now the first gets -32600 with a null
/// id and the second nothing; a ping after them shows the order of the answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_message_is_refused_and_an_ill_formed_response_is_not_answered() {
    let (dir, mut client_write, mut replies, serving) = serve_in_memory();
    let path = dir.path().join("journal.jsonl");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n").await;
    assert!(next_reply(&mut replies).await["result"].is_object());
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\"}\n").await;
    let refused = next_reply(&mut replies).await;
    assert_eq!((refused["error"]["code"].clone(), refused["id"].clone()), (Value::from(-32600), Value::Null), "{refused}");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"x\":1},\"error\":{\"code\":1,\"message\":\"both\"}}\n").await;
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}\n").await;
    let next = next_reply(&mut replies).await;
    assert_eq!(next["id"], 6, "the ill-formed response was answered: {next}");
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), serving).await.expect("the server ends at end of input").unwrap().unwrap();
    let events = read_journal(&path).unwrap().events;
    assert!(events.iter().any(|e| e.dir == Direction::ClientToServer && e.raw.as_deref().is_some_and(|r| r.contains("\"both\""))), "the ill-formed response is journalled");
}

/// Issue 21, defect 4: a request that reused the id of one still in flight took its place and
/// the first was never answered. Now the second is refused (-32600, its id) and the first is
/// answered once the client answers the server's question.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_reusing_an_id_in_flight_is_refused_and_the_first_still_answered() {
    let (_dir, mut client_write, mut replies, serving) = serve_in_memory();
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n").await;
    assert!(next_reply(&mut replies).await["result"].is_object());
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await;
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"probe_elicit_form\"}}\n").await;
    let asked = next_reply(&mut replies).await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n").await;
    let refused = next_reply(&mut replies).await;
    assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (Value::from(2), Value::from(-32600)), "{refused}");
    let answer = format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"action\":\"decline\"}}}}\n", asked["id"]);
    send(&mut client_write, answer.as_bytes()).await;
    let first = next_reply(&mut replies).await;
    assert_eq!(first["id"], 2, "{first}");
    assert!(first["result"].is_object(), "the first request is answered: {first}");
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), serving).await.expect("the server ends at end of input").unwrap().unwrap();
}
