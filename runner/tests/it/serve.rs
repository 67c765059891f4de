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
