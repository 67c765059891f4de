//! The scripted model stub: a loopback HTTP server that plays the model's turns for an agent host,
//! in the Anthropic Messages, OpenAI Responses, OpenAI Chat Completions and Gemini dialects.
//!
//! Each reply is chosen from the request alone (the catalogue offered and the number of tool
//! results already present), so a host's retry replays the same step. Every request and reply is
//! journalled: that journal is the evidence of what the host offered its model and what reached it.

pub mod anthropic;
pub mod chat;
pub mod gemini;
pub mod plan;
pub mod responses;
pub mod side;
pub mod view;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use probe_server::journal::{Direction, Entry, EventKind, Journal, Transport};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

pub use plan::Scope;
use plan::Step;
use probe_server::note::Payload;

/// What every request handler of one stub shares.
#[derive(Clone)]
struct Stub {
    journal: Journal,
    scope: Scope,
    /// How long a settled turn lasts (ms).
    settle_ms: u64,
    asks: Arc<Asks>,
}

/// How many requests with tools offered came with each number of tool results: a host that
/// drops a result asks the same step again and again.
#[derive(Default)]
pub struct Asks(std::sync::Mutex<std::collections::HashMap<usize, u32>>);

impl Asks {
    /// Counts one more request with `results` tool results; how many there were.
    fn count(&self, results: usize) -> u32 {
        let mut asks = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = asks.entry(results).or_default();
        *n += 1;
        *n
    }
}

/// In the large-results variant, a size asked for this many times without its result coming
/// back ends the script (a host that drops a result would otherwise be asked until it is stopped).
pub const SIZED_ASKS: u32 = 3;

/// A reply in the dialect's framing.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Json(Value),
    /// Server-sent events: optional event name and the data line.
    Sse(Vec<(Option<String>, String)>),
}

impl Reply {
    pub fn body_text(&self) -> String {
        match self {
            Reply::Json(v) => v.to_string(),
            Reply::Sse(events) => events
                .iter()
                .map(|(name, data)| match name {
                    Some(name) => format!("event: {name}\ndata: {data}\n\n"),
                    None => format!("data: {data}\n\n"),
                })
                .collect(),
        }
    }

    fn into_response(self) -> Response {
        let content_type = match &self {
            Reply::Json(_) => "application/json",
            Reply::Sse(_) => "text/event-stream",
        };
        (StatusCode::OK, [("content-type", content_type), ("cache-control", "no-cache")], self.body_text()).into_response()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    Anthropic,
    Responses,
    Chat,
    Gemini,
}

impl Dialect {
    /// The API's name, in words.
    pub fn title(self) -> &'static str {
        match self {
            Dialect::Anthropic => "Anthropic Messages",
            Dialect::Responses => "OpenAI Responses",
            Dialect::Chat => "OpenAI Chat Completions",
            Dialect::Gemini => "Gemini generateContent",
        }
    }

    pub fn from_path(path: &str) -> Option<Dialect> {
        if path.ends_with("/messages") {
            Some(Dialect::Anthropic)
        } else if path.ends_with("/responses") {
            Some(Dialect::Responses)
        } else if path.ends_with("/chat/completions") {
            Some(Dialect::Chat)
        } else if gemini::endpoint(path).is_some() {
            Some(Dialect::Gemini)
        } else {
            None
        }
    }
}

/// The tools a request declares, in the dialect's shape.
pub fn declared(dialect: Dialect, body: &Value) -> Vec<plan::OfferedTool> {
    match dialect {
        Dialect::Anthropic => anthropic::offered(body),
        Dialect::Responses => responses::offered(body),
        Dialect::Chat => chat::offered(body),
        Dialect::Gemini => gemini::offered(body),
    }
}

/// How many tool results a request carries.
fn results(dialect: Dialect, body: &Value) -> usize {
    match dialect {
        Dialect::Anthropic => anthropic::results(body),
        Dialect::Responses => responses::results(body),
        Dialect::Chat => chat::results(body),
        Dialect::Gemini => gemini::results(body),
    }
}

/// The reply to one model request, what it was, and how long to hold it back. `mentioned`
/// are the wanted tools the request names in its text ([`plan::mentioned_tools`]), `cues` what
/// else the script reads from it.
pub fn answer(dialect: Dialect, body: &Value, scope: Scope, mentioned: &[String], cues: &plan::Cues, asks: &Asks) -> (Reply, Option<Step>, plan::Hold) {
    let (mut offered, results) = (declared(dialect, body), results(dialect, body));
    let proxied = plan::proxied(body, &offered);
    offered.extend(proxied);
    // A code-mode host's functions its search named, not declared yet.
    let coded = plan::coded(mentioned, &offered);
    offered.extend(coded);
    // Side requests (titles, summaries, loop checks) offer no tools: answered outside the script.
    let (step, hold) = if offered.is_empty() {
        (Step::Finish { text: side::answer(body) }, plan::Hold::None)
    } else if scope == Scope::SizedResults && asks.count(results) > SIZED_ASKS {
        (Step::Finish { text: plan::FINAL_TEXT.into() }, plan::Hold::None)
    } else {
        plan::next(&offered, mentioned, cues, scope, results)
    };
    let wire = plan::on_the_wire(&step, &offered);
    let reply = match dialect {
        Dialect::Anthropic => anthropic::reply(body, &wire, results),
        Dialect::Responses => responses::reply(body, &wire, results),
        Dialect::Chat => chat::reply(body, &wire, results),
        Dialect::Gemini => gemini::reply(body, &wire, results),
    };
    (reply, (!offered.is_empty()).then_some(step), hold)
}

const SESSION: &str = "model-stub";

fn headers_detail(headers: &HeaderMap) -> Value {
    let get = |k: &str| headers.get(k).and_then(|v| v.to_str().ok()).map(str::to_string);
    let has_api_key = ["x-api-key", "authorization", "x-goog-api-key"].iter().any(|k| headers.contains_key(*k));
    json!({
        "user-agent": get("user-agent"),
        "anthropic-version": get("anthropic-version"),
        "anthropic-beta": get("anthropic-beta"),
        "content-type": get("content-type"),
        "has-api-key": has_api_key,
    })
}

async fn handle(State(Stub { journal, scope, settle_ms, asks }): State<Stub>, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let path = uri.path().to_string();
    let mut request = Entry::frame(SESSION, Transport::Http, Direction::ClientToServer, EventKind::HttpRequest, &body, None);
    request.method = Some(format!("{method} {path}"));
    journal.log(request.with_detail(json!({"path": path, "query": uri.query(), "headers": headers_detail(&headers)})));
    if gemini::is_count_tokens(&path) {
        return gemini::count_tokens().into_response();
    }
    let Some(dialect) = Dialect::from_path(&path).filter(|_| method == Method::POST) else {
        // Preflights (HEAD /), model listings and anything else: a harmless empty answer.
        return (StatusCode::OK, [("content-type", "application/json")], r#"{"data":[],"object":"list"}"#).into_response();
    };
    let Ok(mut parsed) = serde_json::from_slice::<Value>(&body) else {
        journal.log(Entry::note(SESSION, Transport::Http, probe_server::note::ModelRequestUnparsable { path: path.to_string() }.detail()));
        return (StatusCode::BAD_REQUEST, "body is not JSON").into_response();
    };
    if gemini::endpoint(&path) == Some(true) {
        parsed["stream"] = json!(true);
    }
    // The view and the answer read the same request: its text and what it mentions are worked
    // out once. The cues live outside the catalogue (tool results, the prompt).
    let (mentioned, text) = (plan::mentioned_tools(&parsed), view::RequestText::of(&parsed));
    journal.log(Entry::note(SESSION, Transport::Http, view::view(dialect, &parsed, &mentioned, &text).detail()));
    let (reply, step, hold) = answer(dialect, &parsed, scope, &mentioned, &plan::Cues::read(&text.context), &asks);
    let hold_ms = hold.ms(settle_ms);
    if hold_ms > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(hold_ms)).await;
    }
    let mut entry = Entry::frame(SESSION, Transport::Http, Direction::ServerToClient, EventKind::HttpResponse, reply.body_text().as_bytes(), None);
    entry.method = Some(format!("{method} {path}"));
    let mut detail = json!({"dialect": dialect, probe_server::host_tools::MODEL_STEP_KEY: step});
    if hold_ms > 0 {
        detail[probe_server::probes::opportunity::HELD_BACK_KEY] = json!(hold_ms);
    }
    // The settle this stub keeps, beside a settled turn: what the judges require of it.
    if hold == plan::Hold::Settle {
        detail[probe_server::probes::opportunity::SETTLE_KEY] = json!(settle_ms);
    }
    journal.log(entry.with_detail(detail));
    reply.into_response()
}

/// A running stub.
pub struct StubHandle {
    /// Base URL without a path, e.g. `http://127.0.0.1:4242`.
    pub base_url: String,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl StubHandle {
    pub async fn stop(self) {
        self.shutdown.cancel();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), self.task).await;
    }
}

/// Starts the stub on an ephemeral loopback port, playing the script within `scope`, its settled
/// turns lasting `settle_ms` ([`plan::SETTLE_MS`] for real clients).
pub async fn start(journal: Journal, scope: Scope, settle_ms: u64) -> std::io::Result<StubHandle> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base_url = format!("http://{}", listener.local_addr()?);
    let app = axum::Router::new().fallback(handle).with_state(Stub { journal, scope, settle_ms, asks: Arc::default() });
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    let task = tokio::spawn(async move { axum::serve(listener, app).with_graceful_shutdown(stop.cancelled_owned()).await });
    Ok(StubHandle { base_url, shutdown, task })
}

#[cfg(test)]
mod tests {
    use super::*;
    use probe_server::journal::read_journal;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn fixture(name: &str) -> Value {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/model-requests").join(format!("{name}.json"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_size_whose_result_never_comes_back_is_asked_three_times_then_the_script_ends() {
        let body = json!({"messages": [{"role": "user", "content": "go"}],
            "tools": [{"type": "function", "function": {"name": "probe__probe_large_result", "parameters": {"type": "object"}}}]});
        let asks = Asks::default();
        let steps: Vec<Option<Step>> = (0..4).map(|_| answer(Dialect::Chat, &body, Scope::SizedResults, &[], &plan::Cues::of(&body), &asks).1).collect();
        assert!(steps[..3].iter().all(|s| matches!(s, Some(Step::Call { arguments, .. }) if arguments["bytes"] == 10_000)), "{steps:?}");
        assert!(matches!(&steps[3], Some(Step::Finish { .. })), "{steps:?}");
        // Elsewhere a repeated step is replayed as often as it comes.
        let (full, mut ping) = (Asks::default(), body.clone());
        ping["tools"][0]["function"]["name"] = json!("probe__probe_ping");
        let first = answer(Dialect::Chat, &ping, Scope::Full, &[], &plan::Cues::of(&ping), &full).1;
        assert!(matches!(first, Some(Step::Call { .. })), "{first:?}");
        assert!((0..4).all(|_| answer(Dialect::Chat, &ping, Scope::Full, &[], &plan::Cues::of(&ping), &full).1 == first));
    }

    /// One HTTP/1.1 exchange over a raw socket: (content type, body).
    async fn post(base: &str, path: &str, body: &Value) -> (String, String) {
        let addr = base.trim_start_matches("http://");
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let body = body.to_string();
        let request = format!("POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        let content_type = head.lines().find_map(|l| l.strip_prefix("content-type: ")).unwrap_or("").to_string();
        (content_type, body.to_string())
    }

    fn sse_data(body: &str) -> Vec<Value> {
        body.lines().filter_map(|l| l.strip_prefix("data: ")).filter(|d| *d != "[DONE]").map(|d| serde_json::from_str(d).unwrap()).collect()
    }

    async fn stub() -> (StubHandle, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::create(&dir.path().join("model.jsonl")).unwrap();
        (start(journal, Scope::Full, plan::SETTLE_MS).await.unwrap(), dir)
    }

    #[tokio::test]
    async fn anthropic_streams_a_tool_search_first_and_replays_it_on_retry() {
        let (stub, dir) = stub().await;
        let request = fixture("anthropic-deferred-first-turn");
        let (content_type, body) = post(&stub.base_url, "/v1/messages?beta=true", &request).await;
        assert_eq!(content_type, "text/event-stream");
        let names: Vec<String> = body.lines().filter_map(|l| l.strip_prefix("event: ")).map(str::to_string).collect();
        assert_eq!(names, ["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
        let events = sse_data(&body);
        assert_eq!(events[1]["content_block"]["name"], "ToolSearch");
        let input: Value = serde_json::from_str(events[2]["delta"]["partial_json"].as_str().unwrap()).unwrap();
        assert!(input["query"].as_str().unwrap().contains("mcp__probe__probe_ping"), "{input}");
        assert_eq!(events[4]["delta"]["stop_reason"], "tool_use");
        let (_, again) = post(&stub.base_url, "/v1/messages", &request).await;
        assert_eq!(again, body, "a retried request replays the same step");
        stub.stop().await;
        let events = read_journal(&dir.path().join("model.jsonl")).unwrap().events;
        assert_eq!(events.len(), 6, "request, what the model was shown, and reply, twice");
        assert_eq!(events[1].detail.as_ref().unwrap()["event"], "model_view");
    }

    #[tokio::test]
    async fn anthropic_picks_the_step_from_the_tool_results_and_answers_json_when_not_streaming() {
        let (stub, _dir) = stub().await;
        let mut request = fixture("anthropic-after-two-results");
        request["stream"] = json!(false);
        let (content_type, body) = post(&stub.base_url, "/v1/messages", &request).await;
        assert_eq!(content_type, "application/json");
        let reply: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(reply["stop_reason"], "tool_use");
        assert_eq!(reply["content"][0]["name"], "ReadMcpResourceTool");
        assert_eq!(reply["content"][0]["input"], json!({"server": "probe", "uri": probe_server::surface::TEXT_URI}));
        stub.stop().await;
    }

    #[tokio::test]
    async fn responses_calls_namespaced_tools_and_completes_every_response() {
        let (stub, _dir) = stub().await;
        let (_, first) = post(&stub.base_url, "/v1/responses", &fixture("responses-first-turn")).await;
        let events = sse_data(&first);
        assert_eq!(events.last().unwrap()["type"], "response.completed");
        let done = events.iter().find(|e| e["type"] == "response.output_item.done").unwrap();
        assert_eq!(done["item"]["name"], "list_mcp_resources");
        // The recorded request after five results, and a sixth: the read of the missing URI.
        let mut after_six = fixture("responses-after-five-results");
        let input = after_six["input"].as_array_mut().unwrap();
        input.push(json!({"type": "function_call", "call_id": "call_6", "name": "read_mcp_resource", "arguments": "{}"}));
        input.push(json!({"type": "function_call_output", "call_id": "call_6", "output": "no resource"}));
        let (_, later) = post(&stub.base_url, "/v1/responses", &after_six).await;
        let item = &sse_data(&later).into_iter().find(|e| e["type"] == "response.output_item.done").unwrap()["item"];
        // list, list templates, three reads, the missing read: the seventh step is the first probe tool.
        assert_eq!(item["name"], "probe_progress");
        assert_eq!(item["namespace"], "mcp__probe");
        assert_eq!(item["arguments"], "{}");
        stub.stop().await;
    }

    #[tokio::test]
    async fn chat_streams_tool_calls_and_ends_with_done() {
        let (stub, _dir) = stub().await;
        let (_, first) = post(&stub.base_url, "/v1/chat/completions", &fixture("chat-first-turn")).await;
        assert!(first.trim_end().ends_with("data: [DONE]"), "{first}");
        let chunks = sse_data(&first);
        assert_eq!(chunks[0]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"], "probe__probe_progress");
        assert_eq!(chunks[1]["choices"][0]["finish_reason"], "tool_calls");
        let (_, later) = post(&stub.base_url, "/v1/chat/completions", &fixture("chat-after-two-results")).await;
        assert_eq!(sse_data(&later)[0]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"], "probe__probe_elicit_form");
        stub.stop().await;
    }

    /// The chat fixture's conversation as Gemini says it: the same tools, declared as functions.
    fn gemini_first_turn() -> Value {
        let chat = fixture("chat-first-turn");
        let declarations: Vec<Value> = chat["tools"].as_array().unwrap().iter().map(|t| t["function"].clone()).collect();
        json!({"contents": [{"role": "user", "parts": [{"text": "go"}]}], "tools": [{"functionDeclarations": declarations}],
            "systemInstruction": {"parts": [{"text": chat["messages"][0]["content"]}]}})
    }

    #[tokio::test]
    async fn gemini_streams_a_function_call_and_counts_tokens_outside_the_script() {
        let (stub, dir) = stub().await;
        let request = gemini_first_turn();
        let (content_type, body) = post(&stub.base_url, "/v1beta/models/stub-model:streamGenerateContent?alt=sse", &request).await;
        assert_eq!(content_type, "text/event-stream");
        let events = sse_data(&body);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0]["candidates"][0]["content"]["parts"][0]["functionCall"]["name"], "probe__probe_progress");
        let (content_type, plain) = post(&stub.base_url, "/v1beta/models/stub-model:generateContent", &request).await;
        assert_eq!(content_type, "application/json");
        let plain: Value = serde_json::from_str(&plain).unwrap();
        assert_eq!(plain["candidates"][0]["content"]["parts"][0], events[0]["candidates"][0]["content"]["parts"][0], "the same step, streamed or not");
        let (_, counted) = post(&stub.base_url, "/v1beta/models/stub-model:countTokens", &request).await;
        assert_eq!(serde_json::from_str::<Value>(&counted).unwrap()["totalTokens"], 1);
        stub.stop().await;
        let events = read_journal(&dir.path().join("model.jsonl")).unwrap().events;
        let view = events.iter().find(|e| e.detail.as_ref().is_some_and(|d| d["event"] == "model_view")).unwrap().detail.clone().unwrap();
        assert_eq!(view["dialect"], "gemini");
        assert!(view["tools"].as_array().unwrap().iter().any(|t| t["name"] == "probe__probe_progress" && t["schema"].is_object()), "{view}");
    }

    #[tokio::test]
    async fn requests_without_tools_get_a_short_answer_outside_the_script() {
        let (stub, _dir) = stub().await;
        let (_, body) = post(&stub.base_url, "/v1/messages", &json!({"model": "m", "messages": [{"role": "user", "content": "title?"}]})).await;
        let reply: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(reply["content"][0]["text"], "ok");
        stub.stop().await;
    }

    /// Gemini CLI checks for loops by asking for JSON of a shape: an answer it cannot parse is
    /// retried with back-off and the conversation never resumes.
    #[tokio::test]
    async fn a_side_request_for_json_gets_json_of_its_shape() {
        let (stub, _dir) = stub().await;
        let schema = json!({"type": "object", "properties": {"confidence": {"type": "number"}}, "required": ["confidence"]});
        let request = json!({"contents": [{"role": "user", "parts": [{"text": "looping?"}]}],
            "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": schema}});
        let (_, body) = post(&stub.base_url, "/v1beta/models/stub-model:generateContent", &request).await;
        let reply: Value = serde_json::from_str(&body).unwrap();
        let text = reply["candidates"][0]["content"]["parts"][0]["text"].as_str().unwrap();
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), json!({"confidence": 0}));
        stub.stop().await;
    }
}
