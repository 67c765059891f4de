//! `serve` on its own, the way a real client will be pointed at it.

use probe_server::journal::{parse_journal, Direction, EventKind};

use super::probe_cmd;

#[test]
fn serve_stdio_answers_and_journals_then_exits_at_end_of_input() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.jsonl");
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        "\n",
        "garbage\n",
    );
    let output = probe_cmd().args(["serve", "--stdio", "--journal", journal.to_str().unwrap()]).write_stdin(input).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let replies: Vec<serde_json::Value> = String::from_utf8(output.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(replies.len(), 3, "initialize, tools/list and the parse error; stdout carries nothing else");
    // Answers may overtake each other: the parse error is written before rmcp answers.
    let by_id = |id: serde_json::Value| replies.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("no reply for {id}"));
    assert_eq!(by_id(1.into())["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(by_id(2.into())["result"]["nextCursor"], "tools-page-2");
    assert_eq!(by_id(serde_json::Value::Null)["error"]["code"], -32700);
    let events = parse_journal(&std::fs::read_to_string(&journal).unwrap()).unwrap().events;
    assert_eq!(events.iter().filter(|e| e.dir == Direction::ClientToServer).count(), 4);
    assert_eq!(events.iter().filter(|e| e.dir == Direction::ServerToClient && e.kind == EventKind::Frame).count(), 3);
    let started = events.iter().find(|e| e.detail.as_ref().is_some_and(|d| d["event"] == "session_started")).unwrap();
    assert_eq!(started.detail.as_ref().unwrap()["negotiated"], "2025-06-18");
}

#[test]
fn a_modern_only_server_refuses_initialize_but_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.jsonl");
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        "\n",
    );
    let output = probe_cmd().args(["serve", "--stdio", "--era", "modern", "--journal", journal.to_str().unwrap()]).write_stdin(input).output().unwrap();
    assert!(output.status.success());
    let replies: Vec<serde_json::Value> = String::from_utf8(output.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(replies[0]["error"]["code"], -32022, "{}", replies[0]);
    assert_eq!(replies[0]["error"]["data"]["supported"], serde_json::json!(["2026-07-28"]));
    assert!(replies[1]["result"]["supportedVersions"].is_array(), "{}", replies[1]);
}

#[test]
fn a_request_accepted_before_end_of_input_is_still_answered() {
    // The client asks for a tool that needs its answer, then leaves: the server waits out its own
    // timeout for the answer (shortened here to 300 ms) and still answers the accepted tools/call
    // before it stops.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.jsonl");
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe_elicit_form"}}"#,
        "\n",
    );
    let output = probe_cmd().args(["serve", "--stdio", "--answer-timeout-ms", "300", "--journal", journal.to_str().unwrap()]).write_stdin(input).output().unwrap();
    assert!(output.status.success());
    let replies: Vec<serde_json::Value> = String::from_utf8(output.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let answer = replies.iter().find(|r| r["id"] == 2 && r.get("method").is_none()).expect("the accepted tools/call is answered");
    assert!(answer["result"]["content"][0]["text"].as_str().unwrap().contains("answer failed"), "{answer}");
}

/// A client that never answers the server's sampling or roots request still gets its tools/call
/// answered: every server→client request has the same answer timeout, then is cancelled (before,
/// only elicitation timed out and these calls waited forever).
#[test]
fn unanswered_sampling_and_roots_requests_time_out_and_are_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.jsonl");
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"roots":{}},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe_sampling"}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"probe_roots"}}"#,
        "\n",
    );
    let output = probe_cmd().args(["serve", "--stdio", "--answer-timeout-ms", "300", "--journal", journal.to_str().unwrap()]).write_stdin(input).output().unwrap();
    assert!(output.status.success());
    let frames: Vec<serde_json::Value> = String::from_utf8(output.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for (call, method) in [(2, "sampling/createMessage"), (3, "roots/list")] {
        let asked = frames.iter().find(|f| f["method"] == method).unwrap_or_else(|| panic!("no {method} sent: {frames:?}"));
        let answer = frames.iter().find(|f| f["id"] == call && f.get("method").is_none()).unwrap_or_else(|| panic!("tools/call {call} never answered"));
        assert!(answer["result"]["content"][0]["text"].as_str().unwrap().contains("answer failed"), "{answer}");
        let cancelled = frames.iter().any(|f| f["method"] == "notifications/cancelled" && f["params"]["requestId"] == asked["id"]);
        assert!(cancelled, "{method} was not cancelled: {frames:?}");
    }
}

/// Issue 52: frames just under the size limit made of many small objects grow several times over
/// when parsed, and 30 such HTTP bodies at once took the server to 1.2 GB. One memory budget for
/// large frames now keeps its peak resident memory under 400 MB.
#[test]
fn thirty_large_bodies_at_once_keep_the_servers_memory_bounded() {
    use std::io::{BufRead, Read, Write};
    let dir = tempfile::tempdir().unwrap();
    /// The server, killed however the test ends.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut server = Killed(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("mcp-client-probe"))
            .args(["serve", "--http", "127.0.0.1:0", "--journal", dir.path().join("j.jsonl").to_str().unwrap()])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut said = std::io::BufReader::new(server.0.stderr.take().unwrap());
    let mut line = String::new();
    said.read_line(&mut line).unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").to_string();
    // Objects of one long key: three JSON values each, under the per-frame value limit, and just
    // under the 4 MiB body limit in all.
    let object = format!("{{\"{}\":0}},", "k".repeat(100));
    let count = (probe_server::transport::MAX_FRAME - 200) / object.len();
    assert!(count * 3 < probe_server::transport::MAX_VALUES, "the frame is not refused for its values");
    let items = object.repeat(count);
    let post = |addr: &str, headers: &str, body: &str| -> String {
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        let _ = stream.write_all(body.as_bytes());
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    let opened =
        post(&addr, "", r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
    let session = opened.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("mcp-session-id:").map(|v| v.trim().to_string())).expect("a session");
    let in_session = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let _ = post(&addr, &in_session, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    // Each call runs about a second (its progress notifications): the SDK holds its parsed request
    // all that time.
    let senders: Vec<_> = (0..30)
        .map(|i| {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"probe_progress","arguments":{{"x":[{}]}},"_meta":{{"progressToken":{i}}}}}}}"#,
                i + 1,
                items.trim_end_matches(',')
            );
            let (addr, in_session) = (addr.clone(), in_session.clone());
            std::thread::spawn(move || post(&addr, &in_session, &body))
        })
        .collect();
    let answers: Vec<String> = senders.into_iter().map(|s| s.join().unwrap()).collect();
    assert!(answers.iter().any(|a| a.contains("\"result\"")), "the calls were served: {}", &answers[0][..answers[0].len().min(600)]);
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.0.id())).unwrap();
    drop(server);
    assert!(answers.iter().all(|a| a.starts_with("HTTP/1.1 ")), "every body was answered");
    let peak_kb: u64 = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap().trim().trim_end_matches("kB").trim().parse().unwrap();
    eprintln!("peak resident memory of the server: {} MB", peak_kb / 1024);
    assert!(peak_kb < 400 * 1024, "the server's peak resident memory was {} MB", peak_kb / 1024);
}
