//! The skills variant over stdio: hostile manifests leave the server with their placeholders
//! replaced, and no URI — traversal, percent-encoded, absolute or another scheme — makes the
//! server read or serve a file outside its in-memory skill tree.

use std::time::Duration;

use probe_server::transport::stdio::serve_stdio;
use probe_server::{Journal, ServeOptions, Variant};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

struct Session {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    read: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    next_id: u64,
}

impl Session {
    async fn start(variant: Variant, journal: Journal) -> Self {
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        tokio::spawn(serve_stdio(server_read, server_write, journal, ServeOptions { variant, ..ServeOptions::default() }));
        let (read, write) = tokio::io::split(client);
        let mut session = Session { write, read: BufReader::new(read), next_id: 0 };
        let init = session.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})).await;
        assert_eq!(init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"]["directoryRead"], true, "{init}");
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        session
    }

    async fn send(&mut self, frame: Value) {
        self.write.write_all(format!("{frame}\n").as_bytes()).await.unwrap();
        self.write.flush().await.unwrap();
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})).await;
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(10), self.read.read_line(&mut line)).await.expect("an answer in time").unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_uri_reaches_outside_the_skill_tree() {
    let dir = tempfile::tempdir().unwrap();
    // A secret beside the journal, and the usual system files: none may come back.
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "top-secret-canary").unwrap();
    let journal = Journal::create(&dir.path().join("journal.jsonl")).unwrap();
    let mut session = Session::start(Variant::Skills, journal).await;
    let secret_path = secret.display().to_string();
    let attempts = [
        "skill://probe/escape/../escape-secret.md".to_string(),
        "skill://probe/escape/%2e%2e%2fescape-secret-encoded.md".to_string(),
        "skill:///escape-secret-absolute.md".to_string(),
        "skill://probe/probe-good/../../../../../../etc/passwd".to_string(),
        format!("skill://probe/probe-good/../../../../../..{secret_path}"),
        format!("file://{secret_path}"),
        "file:///etc/passwd".to_string(),
        "skill://probe/probe-good/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd".to_string(),
    ];
    for uri in &attempts {
        let answer = session.request("resources/read", json!({"uri": uri})).await;
        assert!(answer.get("error").is_some(), "{uri} was served: {answer}");
        let text = answer.to_string();
        assert!(!text.contains("top-secret-canary") && !text.contains("root:"), "{uri} leaked: {text}");
        let listing = session.request("resources/directory/read", json!({"uri": uri})).await;
        assert!(listing.get("error").is_some(), "{uri} was listed as a directory: {listing}");
    }
    // The files the manifest does list are served.
    let good = session.request("resources/read", json!({"uri": "skill://probe/probe-good/reference.md"})).await;
    assert!(good["result"]["contents"][0]["text"].as_str().unwrap().contains("canary"), "{good}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_manifests_go_out_with_their_placeholders_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    let mut session = Session::start(Variant::Skills, Journal::create(&path).unwrap()).await;
    let first = session.request("skills/list", json!({})).await;
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_string();
    let second = session.request("skills/list", json!({"cursor": cursor})).await;
    let text = second.to_string();
    assert!(text.contains("skill://probe/escape/../escape-secret.md") && !text.contains("placeholder"), "{text}");
    assert!(text.contains("\"name\":\"renamed\""), "{text}");
    let got = session.request("skills/get", json!({"uri": "skill://probe/escape/SKILL.md"})).await;
    assert!(got.to_string().contains("skill:///escape-secret-absolute.md"), "{got}");
    let unknown = session.request("skills/get", json!({"uri": "skill://probe/nothing/SKILL.md"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    // The journal holds what was sent, not what rmcp produced.
    let journal = std::fs::read_to_string(&path).unwrap();
    assert!(journal.contains("escape-secret") && !journal.contains("placeholder-dotdot"));
}
