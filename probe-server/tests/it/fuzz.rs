//! A bounded, seeded fuzz campaign against both taps: well-formed requests of every method the
//! server answers on its own, mutated (odd ids, ill-typed params, missing members, flipped and
//! invalid bytes, cut frames, duplicate keys, deep nesting, large strings, blank lines), and over
//! HTTP also cut, slow and half-closed connections and heads the HTTP parser refuses. It checks
//! that nothing panics, every inbound frame is journalled, every well-formed request is answered
//! exactly once, and the test's memory stays bounded. The seed is fixed, so a failure
//! reproduces; `FUZZ_SEED` and `FUZZ_FRAMES` widen a local run.

use std::collections::HashMap;
use std::time::Duration;

use probe_server::journal::{read_journal, Direction, EventKind, Journal};
use probe_server::surface as s;
use probe_server::transport::http::serve_http;
use probe_server::transport::stdio::serve_stdio;
use probe_server::ServeOptions;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// xorshift64*: deterministic, and enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn seed() -> u64 {
    std::env::var("FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x5eed_2026_1201)
}

fn frames_wanted(default: usize) -> usize {
    std::env::var("FUZZ_FRAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Requests the server answers without asking the client anything, and notifications.
fn requests() -> Vec<(&'static str, Value)> {
    vec![
        ("ping", json!({})),
        ("tools/list", json!({})),
        ("tools/list", json!({"cursor": s::TOOLS_CURSOR})),
        ("tools/call", json!({"name": s::TOOL_PROGRESS, "_meta": {"progressToken": 7}})),
        ("tools/call", json!({"name": s::TOOL_RESOURCE_LINK})),
        ("tools/call", json!({"name": s::TOOL_LIST_CHANGED})),
        ("tools/call", json!({"name": "no_such_tool"})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": s::TEXT_URI})),
        ("resources/read", json!({"uri": s::BLOB_URI})),
        ("resources/read", json!({"uri": "probe://nothing/here"})),
        ("resources/subscribe", json!({"uri": s::SECOND_PAGE_URI})),
        ("resources/unsubscribe", json!({"uri": s::SECOND_PAGE_URI})),
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": s::PROMPT, "arguments": {"topic": "fuzz"}})),
        ("logging/setLevel", json!({"level": "debug"})),
        ("completion/complete", json!({"ref": {"type": "ref/prompt", "name": s::PROMPT}, "argument": {"name": "topic", "value": "f"}})),
        ("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "again", "version": "1"}})),
        ("no/such/method", json!({})),
    ]
}

fn notifications() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 424242, "reason": "fuzz"}}),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 0.5}}),
        json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}),
    ]
}

/// One frame to send, and the id of the answer it must get, if it is a well-formed request.
struct Fuzzed {
    bytes: Vec<u8>,
    answered_as: Option<i64>,
}

const ODD_IDS: [&str; 9] = ["7.0", "-1", "1e3", "\"s\"", "null", "{}", "[]", "true", "18446744073709551616"];
const ODD_PARAMS: [&str; 5] = ["5", "\"x\"", "[]", "null", "{\"name\":5,\"uri\":[]}"];

/// A frame: a well-formed request, a notification, or a request broken in one of many ways.
fn fuzzed(rng: &mut Rng, next_id: &mut i64) -> Fuzzed {
    let requests = requests();
    let (method, params) = &requests[rng.below(requests.len())];
    *next_id += 1;
    let id = *next_id;
    let well_formed = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    let mut text = well_formed.clone().into_bytes();
    let mutation = rng.below(14);
    match mutation {
        0..=3 => return Fuzzed { bytes: text, answered_as: Some(id) },
        4 => {
            let notes = notifications();
            return Fuzzed { bytes: notes[rng.below(notes.len())].to_string().into_bytes(), answered_as: None };
        }
        5 => text = well_formed.replacen(&format!("\"id\":{id}"), &format!("\"id\":{}", ODD_IDS[rng.below(ODD_IDS.len())]), 1).into_bytes(),
        6 => {
            text = json!({"jsonrpc": "2.0", "id": id, "method": method})
                .to_string()
                .replacen('}', &format!(",\"params\":{}}}", ODD_PARAMS[rng.below(ODD_PARAMS.len())]), 1)
                .into_bytes()
        }
        7 => text = well_formed.replacen("\"jsonrpc\":\"2.0\",", "", 1).into_bytes(),
        8 => {
            let at = rng.below(text.len());
            text[at] = (rng.next() & 0xff) as u8;
            // A newline would split the frame in two: the count of frames sent must stay exact.
            if text[at] == b'\n' {
                text[at] = 0xff;
            }
        }
        9 => text.truncate(rng.below(text.len())),
        10 => text = well_formed.replacen('{', "{\"id\":-5,", 1).into_bytes(),
        11 => text = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\",\"params\":{{\"x\":{}{}}}}}", "[".repeat(2000), "]".repeat(2000)).into_bytes(),
        12 => text = json!({"jsonrpc": "2.0", "id": id, "method": "ping", "params": {"x": "y".repeat(100_000)}}).to_string().into_bytes(),
        _ => text = b"   ".to_vec(),
    }
    // A mutation may still leave a well-formed request (a byte flipped inside a string).
    let intact: Value = serde_json::from_str(&well_formed).unwrap_or_default();
    let answered_as = serde_json::from_slice::<Value>(&text).ok().filter(|v| *v == intact).map(|_| id);
    Fuzzed { bytes: text, answered_as }
}

/// The peak resident memory of this test process, in KiB (Linux), if known.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The longest time, in the journal, between a request and its answer (by id).
fn longest_answer_us(events: &[probe_server::journal::Event]) -> u64 {
    let mut asked: HashMap<String, u64> = HashMap::new();
    let mut longest = 0;
    for e in events.iter().filter(|e| e.kind == EventKind::Frame) {
        let Some(id) = &e.id else { continue };
        match (e.dir, e.method.is_some()) {
            (Direction::ClientToServer, true) => {
                asked.insert(id.to_string(), e.t_us);
            }
            (Direction::ServerToClient, false) => {
                if let Some(at) = asked.remove(&id.to_string()) {
                    longest = longest.max(e.t_us.saturating_sub(at));
                }
            }
            _ => {}
        }
    }
    longest
}

const INBOUND: [EventKind; 6] = [EventKind::Frame, EventKind::Unparsable, EventKind::NotJsonRpc, EventKind::Oversize, EventKind::Blank, EventKind::Partial];

/// A stdio probe server in memory, journalling under a directory of its own: its journal's path,
/// the client's writer, the task that reads every reply line (read all along, so the server never
/// blocks on a full pipe), and the server's task.
struct InMemory {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    replies: tokio::task::JoinHandle<Vec<String>>,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

fn serve_in_memory(options: ServeOptions) -> InMemory {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(serve_stdio(server_read, server_write, Journal::create(&path).unwrap(), options));
    let (client_read, write) = tokio::io::split(client);
    let replies = tokio::spawn(async move {
        let mut replies = Vec::new();
        let mut lines = BufReader::new(client_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            replies.push(line);
        }
        replies
    });
    InMemory { _dir: dir, path, write, replies, serving }
}

/// How many answers each request id got (requests and notifications from the server aside);
/// a reply that is not JSON fails the test.
fn answers_by_id(replies: &[String]) -> HashMap<i64, usize> {
    let mut answers: HashMap<i64, usize> = HashMap::new();
    for reply in replies {
        let value: Value = serde_json::from_str(reply).unwrap_or_else(|e| panic!("a reply that is not JSON ({e}): {reply}"));
        if value.get("method").is_none() {
            if let Some(id) = value["id"].as_i64() {
                *answers.entry(id).or_default() += 1;
            }
        }
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stdio_tap_survives_a_seeded_fuzz_campaign() {
    let InMemory { _dir, path, write: mut client_write, replies: reading, serving } = serve_in_memory(ServeOptions::default());
    let mut rng = Rng(seed());
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}});
    // Frames are written as they are made; only what the checks need is kept.
    let mut expected: Vec<i64> = vec![0];
    // Ids also carried by a frame that is not a well-formed request (a flipped digit can make one):
    // two answers with such an id are no fault.
    let mut ambiguous: std::collections::HashSet<i64> = Default::default();
    let mut frames = 0usize;
    let mut write = async |bytes: &[u8], ending: &[u8]| {
        client_write.write_all(&[bytes, ending].concat()).await.unwrap();
    };
    write(initialize.to_string().as_bytes(), b"\n").await;
    write(notifications()[0].to_string().as_bytes(), b"\n").await;
    frames += 2;
    let mut next_id = 0;
    for _ in 0..frames_wanted(3000) {
        let frame = fuzzed(&mut rng, &mut next_id);
        match frame.answered_as {
            Some(id) => expected.push(id),
            None => {
                if let Some(id) = serde_json::from_slice::<Value>(&frame.bytes).ok().and_then(|v| v.get("id").and_then(Value::as_i64)) {
                    ambiguous.insert(id);
                }
            }
        }
        let ending: &[u8] = if rng.below(4) == 0 { b"\r\n" } else { b"\n" };
        write(&frame.bytes, ending).await;
        frames += 1;
    }
    client_write.flush().await.unwrap();
    client_write.shutdown().await.unwrap();
    let served = tokio::time::timeout(Duration::from_secs(60), serving).await.expect("the server ends at end of input");
    served.expect("no panic").expect("no error");
    let replies = tokio::time::timeout(Duration::from_secs(10), reading).await.unwrap().unwrap();

    let events = read_journal(&path).unwrap().events;
    let inbound = events.iter().filter(|e| e.dir == Direction::ClientToServer && INBOUND.contains(&e.kind)).count();
    assert_eq!(inbound, frames, "every inbound frame is journalled once");
    let answers = answers_by_id(&replies);
    for id in expected.iter().filter(|id| !ambiguous.contains(id)) {
        assert_eq!(answers.get(id), Some(&1), "request {id} answered once");
    }
    for id in expected.iter().filter(|id| ambiguous.contains(id)) {
        assert!(answers.get(id).is_some_and(|n| *n >= 1), "request {id} answered");
    }
    let peak = peak_rss_kib();
    println!(
        "stdio fuzz: {} frames, {} well-formed requests answered, {} replies, longest answer {} ms, peak memory {} MiB",
        frames,
        expected.len(),
        replies.len(),
        longest_answer_us(&events) / 1000,
        peak.map_or("?".into(), |k| (k / 1024).to_string())
    );
    assert!(peak.is_none_or(|k| k < 1024 * 1024), "memory stays bounded: {peak:?} KiB");
}

/// How one fuzzed HTTP request is sent.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sending {
    /// In one write.
    Whole,
    /// In pieces with pauses (a slow client).
    Paced,
    /// Whole, then the client half-closes its side before reading the answer.
    HalfClosed,
    /// Only part of the body, then the connection goes.
    Cut,
    /// With a head the HTTP parser refuses (a Content-Length that is not a number).
    BadHead,
}

impl Sending {
    fn pick(rng: &mut Rng) -> Sending {
        match rng.below(40) {
            0..=3 => Sending::Paced,
            4..=7 => Sending::HalfClosed,
            8 | 9 => Sending::Cut,
            10 => Sending::BadHead,
            _ => Sending::Whole,
        }
    }
}

/// One HTTP exchange over a fresh connection: the status line, or `None` for a cut request.
async fn exchange(addr: std::net::SocketAddr, session: &str, body: &[u8], sending: Sending) -> Option<String> {
    let mut stream = tokio::net::TcpStream::connect(addr).await.ok()?;
    let length = if sending == Sending::BadHead { "1x".to_string() } else { body.len().to_string() };
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
    );
    let request = [head.as_bytes(), body].concat();
    let sent = if sending == Sending::Cut { &request[..head.len() + body.len() / 2] } else { &request[..] };
    if sending == Sending::Paced {
        for piece in sent.chunks(sent.len().div_ceil(4).max(1)) {
            stream.write_all(piece).await.ok()?;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    } else {
        stream.write_all(sent).await.ok()?;
    }
    match sending {
        Sending::Cut => return None,
        Sending::HalfClosed => stream.shutdown().await.ok()?,
        _ => {}
    }
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response)).await.ok()?.ok()?;
    String::from_utf8_lossy(&response).lines().next().map(str::to_string)
}

/// An HTTP probe server on a loopback port, journalling under a directory of its own: its
/// journal's path, its address, what stops it, and its task.
struct OnLoopback {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    addr: std::net::SocketAddr,
    shutdown: tokio_util::sync::CancellationToken,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn serve_on_loopback(options: ServeOptions) -> OnLoopback {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = tokio_util::sync::CancellationToken::new();
    let server = tokio::spawn(serve_http(listener, Journal::create(&path).unwrap(), options, shutdown.clone()));
    OnLoopback { _dir: dir, path, addr, shutdown, server }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_tap_survives_a_seeded_fuzz_campaign() {
    let OnLoopback { _dir, path, addr, shutdown, server } = serve_on_loopback(ServeOptions::default()).await;
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}});
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = initialize.to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let session = response.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("mcp-session-id:").map(|v| v.trim().to_string())).expect("a session");

    let mut rng = Rng(seed() ^ 0x4854_5450);
    let (mut next_id, mut answered, mut statuses) = (0, 0, HashMap::<String, usize>::new());
    let (mut cut, mut bad_heads, mut half_closed) = (0, 0, 0);
    let total = frames_wanted(3000) / 10;
    for _ in 0..total {
        let frame = fuzzed(&mut rng, &mut next_id);
        let sending = Sending::pick(&mut rng);
        match exchange(addr, &session, &frame.bytes, sending).await {
            Some(status) if sending == Sending::BadHead => {
                assert!(status.starts_with("HTTP/1.1 400"), "a refused head is answered 400: {status}");
                bad_heads += 1;
            }
            Some(status) => {
                half_closed += usize::from(sending == Sending::HalfClosed);
                let code = status.split_whitespace().nth(1).unwrap_or("?").to_string();
                if frame.answered_as.is_some() {
                    assert!(!code.starts_with('5'), "a well-formed request is served: {status} for {}", String::from_utf8_lossy(&frame.bytes));
                    answered += 1;
                }
                // Every body the server cannot take gets a JSON-RPC error, never a plain-text 415.
                assert_ne!(code, "415", "{}", String::from_utf8_lossy(&frame.bytes));
                *statuses.entry(code).or_default() += 1;
            }
            None if sending == Sending::Cut => cut += 1,
            None => panic!("no answer to {}", String::from_utf8_lossy(&frame.bytes)),
        }
    }
    shutdown.cancel();
    tokio::time::timeout(Duration::from_secs(10), server).await.expect("the server stops").expect("no panic").expect("no error");
    let events = read_journal(&path).unwrap().events;
    let requests = events.iter().filter(|e| e.kind == EventKind::HttpRequest).count();
    // The initialize, then every fuzzed request whose head parsed (cut ones too: their head
    // arrived); the refused heads are journalled as refused connections.
    assert_eq!(requests, 1 + total - bad_heads, "every request is journalled");
    let refused = events.iter().filter(|e| e.kind == EventKind::Refused && e.detail.as_ref().is_some_and(|d| d.get("connection").is_some())).count();
    assert_eq!(refused, bad_heads, "every refused head is journalled");
    let mut statuses: Vec<_> = statuses.into_iter().collect();
    statuses.sort();
    println!(
        "http fuzz: {total} requests ({cut} cut, {half_closed} half-closed, {bad_heads} refused heads, {answered} well-formed served), statuses {statuses:?}, longest answer {} ms",
        longest_answer_us(&events) / 1000
    );
}

/// A request to the authorization server, fuzzed: an endpoint, then a query or form made of keys
/// it reads and of hostile values (repeated keys, CR/LF, a fragment, a foreign redirect, markup,
/// bad percent-escapes, a large value), sometimes with a foreign Origin.
fn fuzzed_auth(rng: &mut Rng, issuer_host: &str, client_id: &str) -> (String, String) {
    const PATHS: [&str; 8] =
        ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/register", "/authorize", "/authorize/approve", "/token", "/jwks", "/nowhere"];
    const KEYS: [&str; 12] =
        ["client_id", "redirect_uri", "state", "code", "code_verifier", "code_challenge", "code_challenge_method", "grant_type", "scope", "resource", "request", "refresh_token"];
    let values = [
        "http://127.0.0.1:9/cb".to_string(),
        "http://evil.example\\@127.0.0.1/cb".to_string(),
        "http://127.0.0.1:9/cb#frag".to_string(),
        "http://127.0.0.1:9/cb%0d%0aSet-Cookie:%20x".to_string(),
        "<script>alert(1)</script>".to_string(),
        "authorization_code".to_string(),
        "refresh_token".to_string(),
        "S256".to_string(),
        "%zz%".to_string(),
        "".to_string(),
        "x".repeat(5_000),
        format!("{}", rng.next()),
        client_id.to_string(),
        client_id.to_string(),
    ];
    let path = PATHS[rng.below(PATHS.len())];
    let pairs: Vec<String> = (0..1 + rng.below(12))
        .map(|_| {
            // Now and then one key over and over (the quadratic naming of old).
            let key = KEYS[rng.below(KEYS.len())];
            format!("{key}={}", values[rng.below(values.len())])
        })
        .collect();
    let mut text = pairs.join("&");
    if rng.below(10) == 0 {
        text.push_str(&"&k=v".repeat(2_000));
    }
    let origin = if rng.below(8) == 0 { "Origin: https://evil.example\r\n".to_string() } else { String::new() };
    // Mostly the method the endpoint takes, so that most requests reach its checks.
    let takes_get = matches!(path, "/authorize" | "/jwks") || path.starts_with("/.well-known");
    let get = if rng.below(5) == 0 { !takes_get } else { takes_get };
    let request = if get {
        format!("GET {path}?{text} HTTP/1.1\r\nHost: {issuer_host}\r\n{origin}Connection: close\r\n\r\n")
    } else {
        format!(
            "POST {path} HTTP/1.1\r\nHost: {issuer_host}\r\n{origin}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
            text.len()
        )
    };
    (path.to_string(), request)
}

/// The authorization server of the auth variant under seeded hostile requests: every request is
/// answered and journalled, no answer redirects off this machine or echoes markup unescaped,
/// nothing is a server error, and no panic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_authorization_server_survives_a_seeded_fuzz_campaign() {
    let options = ServeOptions { variant: probe_server::Variant::Auth, ..ServeOptions::default() };
    let OnLoopback { _dir, path, addr, shutdown, server } = serve_on_loopback(options).await;
    // The issuer, as a host would find it: from the protected resource's metadata.
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(format!("GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes()).await.unwrap();
    let mut metadata = String::new();
    stream.read_to_string(&mut metadata).await.unwrap();
    let body: Value = serde_json::from_str(metadata.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    let issuer = body["authorization_servers"][0].as_str().unwrap().to_string();
    let issuer_host = issuer.trim_start_matches("http://").to_string();

    // A client registered as a host would: its id opens the authorize and token checks.
    let registration = r#"{"redirect_uris":["http://127.0.0.1:9/cb"],"client_name":"fuzz","token_endpoint_auth_method":"none"}"#;
    let mut stream = tokio::net::TcpStream::connect(&issuer_host).await.unwrap();
    let head = format!("POST /register HTTP/1.1\r\nHost: {issuer_host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", registration.len());
    stream.write_all([head.as_bytes(), registration.as_bytes()].concat().as_slice()).await.unwrap();
    let mut registered = String::new();
    stream.read_to_string(&mut registered).await.unwrap();
    let registered: Value = serde_json::from_str(registered.split("\r\n\r\n").nth(1).unwrap_or("{}")).unwrap_or_default();
    let client_id = registered["client_id"].as_str().unwrap_or("unregistered").to_string();
    let mut rng = Rng(seed() ^ 0x4155_5448);
    let total = frames_wanted(3000) / 10;
    let mut statuses: HashMap<String, usize> = HashMap::new();
    for _ in 0..total {
        let (endpoint, request) = fuzzed_auth(&mut rng, &issuer_host, &client_id);
        let mut stream = tokio::net::TcpStream::connect(&issuer_host).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await.expect("answered in time").unwrap();
        let answer = String::from_utf8_lossy(&answer);
        let status = answer.split_whitespace().nth(1).unwrap_or("none").to_string();
        assert!(!status.starts_with('5') && status != "none", "{endpoint}: {status} for {request:.300}");
        let (head, page) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        if let Some(location) = head.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("location:").map(|v| v.trim().to_string())) {
            assert!(
                location.starts_with("http://127.0.0.1") || location.starts_with("http://localhost") || location.starts_with("http://[::1]"),
                "a redirect off this machine: {location}"
            );
        }
        assert!(!page.contains("<script>"), "markup echoed unescaped by {endpoint}");
        *statuses.entry(status).or_default() += 1;
    }
    shutdown.cancel();
    tokio::time::timeout(Duration::from_secs(10), server).await.expect("the server stops").expect("no panic").expect("no error");
    let events = read_journal(&path).unwrap().events;
    let asked = events.iter().filter(|e| probe_server::note::Note::of(e) == Some(probe_server::note::Note::AuthRequest)).count();
    let refused = events.iter().filter(|e| e.kind == EventKind::Refused).count();
    // Every request is an auth_request note, or (a foreign Origin or Host) a refusal.
    assert!(asked + refused >= total, "{asked} journalled and {refused} refused of {total}");
    let mut statuses: Vec<_> = statuses.into_iter().collect();
    statuses.sort();
    println!("auth fuzz: {total} requests as client {client_id}, {asked} journalled as auth_request, statuses {statuses:?}");
}

/// The task methods in both eras (the tasks variant over stdio), under seeded requests with real,
/// foreign, malformed and unknown task ids: nothing panics and every well-formed request is
/// answered exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_task_endpoints_survive_a_seeded_fuzz_campaign() {
    use probe_server::tasks::{TOOL_TASK_FAIL, TOOL_TASK_INPUT, TOOL_TASK_LONG, TOOL_TASK_RESULT};
    for version in ["2025-11-25", "2026-07-28"] {
        let options = ServeOptions { variant: probe_server::Variant::Tasks, ..ServeOptions::default() };
        let InMemory { _dir, path, write: mut client_write, replies: reading, serving } = serve_in_memory(options);
        let mut rng = Rng(seed() ^ 0x5441_534b);
        let modern = version == "2026-07-28";
        let mut frames: Vec<Value> = Vec::new();
        let opening = if modern {
            json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": version}}})
        } else {
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": version, "capabilities": {"tasks": {"requests": {"tools": {"call": {}}}}}, "clientInfo": {"name": "fuzz", "version": "1"}}})
        };
        frames.push(opening);
        if !modern {
            frames.push(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        let tools = [TOOL_TASK_RESULT, TOOL_TASK_INPUT, TOOL_TASK_FAIL, TOOL_TASK_LONG];
        // Ids the server hands out (task-N, the serial of its request; legacy-task-N), and others.
        let ids = [
            json!(format!("task-{}", 1 + rng.below(40))),
            json!("legacy-task-1"),
            json!("legacy-task-2"),
            json!("no-such-task"),
            json!(""),
            json!(5),
            json!(null),
            json!({"a": 1}),
            json!("x".repeat(3_000)),
        ];
        let mut well_formed: Vec<i64> = vec![0];
        for id in 1..=frames_wanted(3000) as i64 / 10 {
            let meta = if modern {
                json!({"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}})
            } else {
                json!({})
            };
            let task_id = ids[rng.below(ids.len())].clone();
            let (method, params) = match rng.below(6) {
                0 if modern => ("tools/call", json!({"name": tools[rng.below(tools.len())], "_meta": meta})),
                0 => ("tools/call", json!({"name": tools[rng.below(tools.len())], "task": {"ttl": 60_000}})),
                1 => ("tasks/get", json!({"taskId": task_id, "_meta": meta})),
                2 => ("tasks/cancel", json!({"taskId": task_id, "_meta": meta})),
                3 if modern => ("tasks/update", json!({"taskId": task_id, "inputResponses": {"confirm": {"action": "accept", "content": {"confirmed": true}}}, "_meta": meta})),
                3 => ("tasks/list", json!({})),
                4 if modern => ("tasks/get", json!({"taskId": task_id})),
                4 => ("tasks/result", json!({"taskId": task_id})),
                _ => ("tasks/get", json!({"_meta": meta})),
            };
            frames.push(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
            well_formed.push(id);
        }
        for frame in &frames {
            client_write.write_all(format!("{frame}\n").as_bytes()).await.unwrap();
        }
        client_write.flush().await.unwrap();
        client_write.shutdown().await.unwrap();
        let served = tokio::time::timeout(Duration::from_secs(120), serving).await.expect("the server ends at end of input");
        served.expect("no panic").expect("no error");
        let replies = tokio::time::timeout(Duration::from_secs(10), reading).await.unwrap().unwrap();
        let answers = answers_by_id(&replies);
        for id in &well_formed {
            assert_eq!(answers.get(id), Some(&1), "{version}: request {id} answered once");
        }
        let inbound = read_journal(&path).unwrap().events.iter().filter(|e| e.dir == Direction::ClientToServer && INBOUND.contains(&e.kind)).count();
        assert_eq!(inbound, frames.len(), "{version}: every frame is journalled");
        println!("task fuzz ({version}): {} requests, {} replies", well_formed.len(), replies.len());
    }
}
