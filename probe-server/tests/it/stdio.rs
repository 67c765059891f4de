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
    serve_in_memory_with(ServeOptions::default())
}

#[allow(clippy::type_complexity)]
fn serve_in_memory_with(
    options: ServeOptions,
) -> (tempfile::TempDir, tokio::io::WriteHalf<tokio::io::DuplexStream>, BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>, tokio::task::JoinHandle<std::io::Result<()>>) {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::create(&dir.path().join("journal.jsonl")).unwrap();
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(serve_stdio(server_read, server_write, journal, options));
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

const INITIALIZE_2025: &[u8] =
    b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n";

/// Initializes a 2025-11-25 session and says it is initialized.
async fn open_session<W: tokio::io::AsyncWrite + Unpin, R: tokio::io::AsyncBufRead + Unpin>(client_write: &mut W, replies: &mut R) {
    send(client_write, INITIALIZE_2025).await;
    assert!(next_reply(replies).await["result"].is_object(), "the session opens");
    send(client_write, b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await;
}

/// Issue 21, defect 2: a second `initialize` asking for 2026-07-28 switched a legacy session to
/// modern behaviour (ping answered -32601) while the journal and the first answer said
/// 2025-11-25. Now it is refused and the session keeps the version it was answered. One asking
/// the same version (Kimi CLI sends one before every tool call) gets the opening answer again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_initialize_is_refused_and_the_session_keeps_its_version() {
    let (dir, mut client_write, mut replies, serving) = serve_in_memory();
    send(&mut client_write, INITIALIZE_2025).await;
    let opening = next_reply(&mut replies).await;
    assert_eq!(opening["result"]["protocolVersion"], "2025-11-25");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await;
    let same_again = String::from_utf8(INITIALIZE_2025.to_vec()).unwrap().replacen("\"id\":1", "\"id\":\"again\"", 1);
    assert!(same_again.contains("\"again\""), "the test's initialize has id 1: {same_again}");
    send(&mut client_write, same_again.as_bytes()).await;
    let again = next_reply(&mut replies).await;
    assert_eq!((again["id"].clone(), again["result"].clone()), (Value::from("again"), opening["result"].clone()), "{again}");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2026-07-28\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n").await;
    let refused = next_reply(&mut replies).await;
    assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (Value::from(2), Value::from(-32600)), "{refused}");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n").await;
    let pong = next_reply(&mut replies).await;
    assert_eq!(pong["id"], 3);
    assert!(pong["result"].is_object(), "ping still answered as in 2025-11-25: {pong}");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}\n").await;
    let tools = next_reply(&mut replies).await;
    assert!(tools["result"].get("resultType").is_none(), "a legacy list carries no resultType: {tools}");
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), serving).await.expect("the server ends at end of input").unwrap().unwrap();
    let notes = read_journal(&dir.path().join("journal.jsonl")).unwrap().events;
    let repeated: Vec<_> = notes.iter().filter(|e| probe_server::note::Note::of(e) == Some(probe_server::note::Note::RepeatedInitialize)).collect();
    assert_eq!(repeated.len(), 2, "both repeats are noted");
    assert_eq!(repeated.iter().map(|e| e.detail.as_ref().unwrap()["answered_again"].clone()).collect::<Vec<_>>(), vec![Value::from(true), Value::from(false)]);
}

/// Issue 52: a second `initialize` sent before the first was answered switched the session under
/// it (three answers, ending on the last version asked). Now it is refused, and the session keeps
/// the version of the first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_initialize_sent_before_the_first_is_answered_is_refused() {
    let (dir, mut client_write, mut replies, serving) = serve_in_memory();
    let second = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n";
    // Both in one write: the second is read before the first can have been answered.
    send(&mut client_write, &[INITIALIZE_2025, second.as_slice()].concat()).await;
    let (a, b) = (next_reply(&mut replies).await, next_reply(&mut replies).await);
    let (opening, refused) = if a["id"] == 1 { (a, b) } else { (b, a) };
    assert_eq!(opening["result"]["protocolVersion"], "2025-11-25", "{opening}");
    assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (Value::from(2), Value::from(-32600)), "{refused}");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await;
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n").await;
    assert_eq!(next_reply(&mut replies).await["id"], 3, "the session goes on");
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), serving).await.expect("the server ends at end of input").unwrap().unwrap();
    let events = read_journal(&dir.path().join("journal.jsonl")).unwrap().events;
    let answers = events.iter().filter(|e| e.raw.as_deref().is_some_and(|r| r.contains("\"protocolVersion\"") && r.contains("\"result\""))).count();
    assert_eq!(answers, 1, "one opening answer only");
}

/// Issue 21, defect 7: an id of `7.0` was answered as `7` (the client never saw its answer) and
/// left a pending entry, so the server lingered the whole drain time at end of input. Now such an
/// id is refused with the id as sent, and nothing is left pending.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_the_sdk_cannot_echo_is_refused_with_the_id_as_sent() {
    let (_dir, mut client_write, mut replies, serving) = serve_in_memory();
    open_session(&mut client_write, &mut replies).await;
    for (sent, echoed) in [("7.0", Value::from(7.0)), ("18446744073709551615", Value::from(u64::MAX))] {
        send(&mut client_write, format!("{{\"jsonrpc\":\"2.0\",\"id\":{sent},\"method\":\"ping\"}}\n").as_bytes()).await;
        let refused = next_reply(&mut replies).await;
        assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (echoed, Value::from(-32600)), "{refused}");
    }
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n").await;
    assert_eq!(next_reply(&mut replies).await["id"], 7);
    client_write.shutdown().await.unwrap();
    // Nothing is pending, so the server does not wait out its drain time at end of input.
    let drain_half = probe_server::transport::stdio::DRAIN_AFTER_EOF / 2;
    tokio::time::timeout(drain_half, serving).await.expect("nothing left pending at end of input").unwrap().unwrap();
}

/// Issue 21, defect 8: ill-typed params on a method the SDK types were answered -32601 (method
/// not found). Now -32602, with the request's id; an unknown method keeps -32601.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ill_typed_params_of_a_known_method_get_invalid_params() {
    let (_dir, mut client_write, mut replies, serving) = serve_in_memory();
    open_session(&mut client_write, &mut replies).await;
    for (id, line) in [
        (2, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":5}}"),
        (3, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":[]}}"),
        (4, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/get\",\"params\":\"name\"}"),
    ] {
        send(&mut client_write, format!("{line}\n").as_bytes()).await;
        let reply = next_reply(&mut replies).await;
        assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (Value::from(id), Value::from(-32602)), "{line} -> {reply}");
    }
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"no/such/method\",\"params\":{}}\n").await;
    let unknown = next_reply(&mut replies).await;
    assert_eq!((unknown["id"].clone(), unknown["error"]["code"].clone()), (Value::from(5), Value::from(-32601)), "{unknown}");
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), serving).await.expect("the server ends at end of input").unwrap().unwrap();
}

/// Issue 21, defect 10: invalid UTF-8 was journalled as lossy text with no digest, so the bytes
/// were lost; a CRLF line of exactly the limit was refused while the LF one was served. Now the
/// exact bytes are kept (base64 beside the lossy text, and a digest), and the CR does not count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_is_kept_exactly_and_a_crlf_ending_does_not_count_against_the_limit() {
    use base64::Engine;
    let (dir, mut client_write, mut replies, serving) = serve_in_memory();
    let garbage: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}";
    send(&mut client_write, &[garbage, b"\n"].concat()).await;
    assert_eq!(next_reply(&mut replies).await["error"]["code"], -32700);
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), serving).await.expect("the server ends at end of input").unwrap().unwrap();
    let events = read_journal(&dir.path().join("journal.jsonl")).unwrap().events;
    let kept = events.iter().find(|e| e.dir == Direction::ClientToServer && e.raw_len == garbage.len()).expect("the frame is journalled");
    let bytes = base64::engine::general_purpose::STANDARD.decode(kept.raw_base64.as_deref().expect("base64 beside the lossy text")).unwrap();
    assert_eq!(bytes, garbage);
    assert!(kept.sha256.is_some(), "a digest names the original bytes");

    let limit = 64;
    let line = |ending: &[u8]| [vec![b'x'; limit], ending.to_vec()].concat();
    for ending in [&b"\n"[..], b"\r\n"] {
        let input = line(ending);
        let mut reader = BufReader::new(&input[..]);
        let frame = probe_server::transport::stdio::next_frame(&mut reader, limit).await.unwrap();
        assert_eq!(frame, probe_server::transport::stdio::ReadFrame::Line(vec![b'x'; limit]), "ending {ending:?}");
    }
    let input = [vec![b'x'; limit + 1], b"\r\n".to_vec()].concat();
    let mut reader = BufReader::new(&input[..]);
    let over = probe_server::transport::stdio::next_frame(&mut reader, limit).await.unwrap();
    assert!(matches!(over, probe_server::transport::stdio::ReadFrame::Oversize { len, .. } if len == limit + 1), "{over:?}");
}

/// Issue 21, defect 1: a 15 MiB line of small values raised the server's peak memory to 1.75 GB
/// (a tree of millions of values, copied on its way into the SDK). Now a frame over the shared
/// byte limit or with more values than the shared value limit is refused before it is parsed;
/// the frame is journalled (its bytes, or length + digest + head) and the session goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_of_too_many_values_is_refused_before_parsing() {
    use probe_server::transport::MAX_VALUES;
    let (dir, mut client_write, mut replies, serving) = serve_in_memory();
    send(&mut client_write, INITIALIZE_2025).await;
    next_reply(&mut replies).await;
    let zeros = vec!["0"; MAX_VALUES].join(",");
    send(&mut client_write, format!("{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{{\"x\":[{zeros}]}}}}\n").as_bytes()).await;
    let refused = next_reply(&mut replies).await;
    assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (Value::Null, Value::from(-32600)), "{refused}");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n").await;
    assert_eq!(next_reply(&mut replies).await["id"], 3, "the session goes on");
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), serving).await.expect("the server ends at end of input").unwrap().unwrap();
    let events = read_journal(&dir.path().join("journal.jsonl")).unwrap().events;
    let kept = events.iter().find(|e| e.kind == EventKind::Oversize).expect("the refused frame is journalled");
    assert!(kept.sha256.is_some() && kept.raw_len > 2 * MAX_VALUES, "{kept:?}");
    assert!(kept.detail.as_ref().and_then(|d| d["values"].as_u64()).is_some_and(|n| n as usize > MAX_VALUES));
}

/// A session that fails because the input ended is not served again. The task that reads the
/// input closed its channel a moment before it was finished, and the server looked at the task:
/// in that moment it served a new session on the closed channel, failed, and served again,
/// journalling each failure (117 in one run of a real host on a loaded machine). That moment
/// cannot be made to last from here; the server now looks at the channel, and this guards the
/// outcome: one failure for the session that saw the input end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_that_fails_on_closed_input_is_journalled_once() {
    let (dir, mut client_write, _replies, serving) = serve_in_memory();
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n").await;
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), serving).await.expect("the server ends at end of input").unwrap().unwrap();
    let events = read_journal(&dir.path().join("journal.jsonl")).unwrap().events;
    let failures: Vec<_> = events.iter().filter_map(|e| e.detail.as_ref().filter(|d| d["event"] == "session_failed")).collect();
    assert_eq!(failures.len(), 1, "{failures:?}");
}

/// Issue 49, item 1: the server's ping waited for the client's answer forever, so a host that
/// never answers ping spent its own tool timeout and its run's bound on `probe_ping`. Now the ping
/// waits one answer timeout (10 s, as elicitation does) and is then cancelled; the request no
/// revision defines still goes out, unwaited, and the call is answered within 12 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_ping_is_given_up_after_one_answer_timeout() {
    let (dir, mut client_write, mut replies, serving) = serve_in_memory();
    open_session(&mut client_write, &mut replies).await;
    let called = std::time::Instant::now();
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"probe_ping\"}}\n").await;
    let bound = probe_server::server::CLIENT_ANSWER_TIMEOUT + Duration::from_secs(2);
    let mut seen = Vec::new();
    let answer = loop {
        let mut line = String::new();
        let left = bound.saturating_sub(called.elapsed());
        tokio::time::timeout(left, replies.read_line(&mut line)).await.expect("probe_ping answered within 12 s").unwrap();
        let frame: Value = serde_json::from_str(&line).unwrap();
        if frame["id"] == 2 && frame.get("method").is_none() {
            break frame;
        }
        seen.push(frame["method"].as_str().unwrap_or("an answer").to_string());
    };
    assert!(called.elapsed() >= probe_server::server::CLIENT_ANSWER_TIMEOUT, "the ping was given its whole answer timeout");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(answer["result"]["content"][0]["text"].as_str().unwrap().contains("ping failed"), "{answer}");
    // The unknown request is queued before the call's answer, but the two may leave in either order.
    if seen.len() < 4 {
        seen.push(next_reply(&mut replies).await["method"].as_str().unwrap_or("an answer").to_string());
    }
    assert_eq!(
        seen,
        ["notifications/probe/unknown", "ping", "notifications/cancelled", probe_server::surface::UNKNOWN_REQUEST],
        "the ping is cancelled and the unknown request still goes out"
    );
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), serving).await.expect("the server ends at end of input").unwrap().unwrap();
    assert!(read_journal(&dir.path().join("journal.jsonl")).unwrap().events.iter().any(|e| e.method.as_deref() == Some(probe_server::surface::UNKNOWN_REQUEST)));
}

/// Issue 52, N7: the task requests the tap answers itself went past the frame screen and the
/// in-flight guard: `7.0`, `{}` or `null` ids and a reused id got results, even before
/// `initialize`. Now they are refused as any other request would be.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_requests_pass_the_same_screen_as_every_other() {
    let (_dir, mut client_write, mut replies, _serving) = serve_in_memory_with(ServeOptions { variant: probe_server::Variant::Tasks, ..ServeOptions::default() });
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/list\"}\n").await;
    let early = next_reply(&mut replies).await;
    assert_eq!((early["id"].clone(), early["error"]["code"].clone()), (Value::from(1), Value::from(-32600)), "before initialize: {early}");
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n").await;
    assert!(next_reply(&mut replies).await["result"].is_object());
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await;
    for id in ["7.0", "{}", "null"] {
        send(&mut client_write, format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tasks/list\"}}\n").as_bytes()).await;
        let refused = next_reply(&mut replies).await;
        assert!(refused["error"]["code"].is_i64() && refused.get("result").is_none(), "id {id}: {refused}");
    }
    // A task whose result is awaited holds its id: a second request with it is refused.
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"probe_task_long\",\"task\":{\"ttl\":60000}}}\n").await;
    let created = next_reply(&mut replies).await;
    let task_id = created["result"]["task"]["taskId"].as_str().unwrap().to_string();
    send(&mut client_write, format!("{{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/result\",\"params\":{{\"taskId\":\"{task_id}\"}}}}\n").as_bytes()).await;
    send(&mut client_write, b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/list\"}\n").await;
    let reused = next_reply(&mut replies).await;
    assert_eq!((reused["id"].clone(), reused["error"]["code"].clone()), (Value::from(4), Value::from(-32600)), "{reused}");
}
