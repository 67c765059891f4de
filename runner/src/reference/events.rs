//! The reference client's side of the events extension (2026-07-28, which it declares): it lists
//! the event types and follows each in the one mode it offers, side by side — the poll types from
//! a null cursor, each poll carrying the cursor the last answer handed, at once while `hasMore`,
//! else after `nextPollMs` but never sooner than [`POLL_FLOOR`]; the push type on a stream it
//! watches, taking the stream for dead after twice the longest gap it has seen between
//! notifications (at least [`DEAD_AT_LEAST`]) and opening it again from its last cursor; the
//! webhook type with a loopback callback, subscribing again halfway to `refreshBefore`. Each
//! events probe has an ablation here that breaks one of these.

use std::time::{Duration, Instant};

use futures::StreamExt;
use probe_server::events::{self as ev, HOOKED, POLLED, PUSHED, UNREPLAYED};
use rmcp::model::{ClientRequest, CustomRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::{json, Value};

use super::handler::ReferenceHandler;
use super::{Ablation, Client};

/// The least time between two polls, whatever `nextPollMs` says (the SEP's default floor).
const POLL_FLOOR: Duration = Duration::from_millis(1_000);
/// Polls of the scripted type: enough to meet each of its answers once.
const POLLS: usize = 5;
/// An interval longer than this ends the ablated client's polling (one that waits out hasMore).
const GIVE_UP_PAST: Duration = Duration::from_secs(5);
/// The least silence after which a push stream counts as dead.
const DEAD_AT_LEAST: Duration = Duration::from_millis(1_000);
/// How long the client waits for a push stream's first notification before it gives up on it.
const FIRST_PUSH_WAIT: Duration = Duration::from_secs(5);

/// An `events/*` request (rmcp has no type for them), and its result as JSON.
async fn raw(client: &Client, method: &str, params: Value) -> Option<Value> {
    super::custom_request(client, method, params).await.ok()
}

/// The reference client's script in the events variant.
pub async fn script(client: &Client, handler: &ReferenceHandler, http: Option<&str>, ablation: Option<Ablation>) {
    let skip = |a: Ablation| ablation == Some(a);
    if !skip(Ablation::NoEventsList) {
        let _ = raw(client, "events/list", json!({})).await;
    }
    if skip(Ablation::CrossesDeliveryModes) {
        let _ = raw(client, "events/poll", json!({"name": PUSHED, "arguments": {}, "cursor": null})).await;
    }
    tokio::join!(poll_scripted(client, ablation), poll_unreplayed(client, ablation), push(client, handler, http, ablation), webhook(client, ablation));
}

/// How long to wait after a poll answer before the next poll.
fn wait_after(page: &Value, ablation: Option<Ablation>) -> Option<Duration> {
    let asked = Duration::from_millis(page.get("nextPollMs").and_then(Value::as_u64).unwrap_or(1_000));
    let has_more = page.get("hasMore").and_then(Value::as_bool) == Some(true);
    let wait = match ablation {
        Some(Ablation::IgnoresNextPollMs) => Duration::ZERO,
        Some(Ablation::NoPollFloor) if !has_more => asked,
        Some(Ablation::WaitsOutHasMore) => asked.max(POLL_FLOOR),
        _ if has_more => Duration::ZERO,
        _ => asked.max(POLL_FLOOR),
    };
    (wait <= GIVE_UP_PAST).then_some(wait)
}

/// Follows [`POLLED`] for [`POLLS`] polls.
async fn poll_scripted(client: &Client, ablation: Option<Ablation>) {
    let mut cursor: Option<String> = None;
    let mut older: Option<String> = None;
    if ablation == Some(Ablation::PollsFromMadeUpCursor) {
        let _ = raw(client, "events/poll", json!({"name": POLLED, "arguments": {}, "cursor": "resume-me"})).await;
    }
    for _ in 0..POLLS {
        let Some(page) = raw(client, "events/poll", json!({"name": POLLED, "arguments": {}, "cursor": cursor})).await else { return };
        let handed = page.get("cursor").and_then(Value::as_str).map(str::to_string);
        let truncated = page.get("truncated").and_then(Value::as_bool) == Some(true);
        (cursor, older) = match ablation {
            // Each poll carries the cursor from two answers back.
            Some(Ablation::StaleEventCursor) => (older, handed),
            Some(Ablation::ResetsOnTruncated) if truncated => (None, None),
            _ => (handed, None),
        };
        let Some(wait) = wait_after(&page, ablation) else { return };
        tokio::time::sleep(wait).await;
    }
}

/// Follows [`UNREPLAYED`] for two polls, the second with the cursor the first answer handed
/// (null) — or, ablated, with one it kept from elsewhere.
async fn poll_unreplayed(client: &Client, ablation: Option<Ablation>) {
    let Some(page) = raw(client, "events/poll", json!({"name": UNREPLAYED, "arguments": {}, "cursor": null})).await else { return };
    let Some(wait) = wait_after(&page, ablation) else { return };
    tokio::time::sleep(wait).await;
    let cursor = match ablation {
        Some(Ablation::ReplaysIntoUnreplayed) => json!(ev::POLL_CURSORS[0]),
        _ => page.get("cursor").cloned().unwrap_or(Value::Null),
    };
    let mut params = json!({"name": UNREPLAYED, "arguments": {}, "cursor": cursor});
    if ablation == Some(Ablation::OmitsEventArguments) {
        params.as_object_mut().map(|p| p.remove("arguments"));
    }
    let _ = raw(client, "events/poll", params).await;
}

/// The last cursor among the push notifications that arrived, the time the last one came, and
/// the longest gap between two of them.
fn watched(handler: &ReferenceHandler) -> (Option<Value>, Option<Instant>, Duration, usize) {
    let arrived = handler.pushed.arrived.lock().unwrap_or_else(|p| p.into_inner());
    let cursor = arrived.iter().rev().find_map(|(_, _, params)| params.get("cursor").cloned());
    let longest = arrived.windows(2).map(|pair| pair[1].0 - pair[0].0).max().unwrap_or_default();
    (cursor, arrived.last().map(|(at, _, _)| *at), longest, arrived.len())
}

/// A push stream the client holds open: on stdio a request in rmcp's hands, cancelled with
/// `notifications/cancelled`; over HTTP a POST of its own whose answer stream it reads, released
/// by closing it (rmcp's client can cancel a request but not close its stream).
enum Stream {
    Stdio(rmcp::service::RequestHandle<rmcp::service::RoleClient>),
    Http(tokio::task::JoinHandle<()>),
}

impl Stream {
    /// Gives the stream up: cancelled, or its connection closed.
    async fn release(self) {
        match self {
            Stream::Stdio(handle) => drop(handle.cancel(Some("the stream is given up on".into())).await),
            Stream::Http(reader) => reader.abort(),
        }
    }

    /// Forgets the stream without a word to the server (the keeps-dead-stream ablation).
    fn forget(self) {
        match self {
            Stream::Stdio(handle) => std::mem::forget(handle),
            Stream::Http(reader) => std::mem::forget(reader),
        }
    }
}

/// Opens a stream of [`PUSHED`] from `cursor`.
async fn open_stream(client: &Client, handler: &ReferenceHandler, http: Option<&str>, cursor: Value) -> Option<Stream> {
    let params = json!({"name": PUSHED, "arguments": {}, "cursor": cursor});
    let Some(url) = http else {
        let request = ClientRequest::CustomRequest(CustomRequest::new("events/stream", Some(params)));
        return client.send_cancellable_request(request, PeerRequestOptions::no_options()).await.ok().map(Stream::Stdio);
    };
    let mut params = params;
    params["_meta"] = super::modern_meta();
    params["_meta"][probe_server::observe::MODERN_META_CAPABILITIES] = serde_json::to_value(super::handler::declared_capabilities()).unwrap_or_default();
    let body = json!({"jsonrpc": "2.0", "id": format!("events-stream-{}", STREAMS.fetch_add(1, std::sync::atomic::Ordering::SeqCst)), "method": "events/stream", "params": params});
    let http = super::loopback_http().ok()?;
    let answer = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "events/stream")
        .body(body.to_string())
        .send()
        .await
        .ok()?;
    let pushed = handler.pushed.clone();
    Some(Stream::Http(tokio::spawn(async move {
        let mut events = sse_stream::SseStream::from_bytes_stream(answer.bytes_stream());
        while let Some(Ok(event)) = events.next().await {
            let Some(frame) = event.data.and_then(|data| serde_json::from_str::<Value>(&data).ok()) else { continue };
            if let Some(method) = frame.get("method").and_then(Value::as_str) {
                pushed.record(method, frame["params"].clone());
            }
        }
    })))
}

/// Tells the HTTP push streams' request ids apart.
static STREAMS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Follows [`PUSHED`]: a stream watched until it falls silent, then (unless ablated) opened again
/// from the last cursor, and closed once that one is confirmed.
async fn push(client: &Client, handler: &ReferenceHandler, http: Option<&str>, ablation: Option<Ablation>) {
    let Some(first) = open_stream(client, handler, http, Value::Null).await else { return };
    let started = Instant::now();
    let last_cursor = loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (cursor, last, longest, count) = watched(handler);
        match last {
            None if started.elapsed() > FIRST_PUSH_WAIT => break None,
            Some(last) if count >= 2 && last.elapsed() > (2 * longest).max(DEAD_AT_LEAST) => break cursor,
            _ => {}
        }
    };
    // Ablated, the stream is forgotten: nothing tells the server it is given up on.
    match ablation {
        Some(Ablation::KeepsDeadStream) => first.forget(),
        _ => first.release().await,
    }
    let Some(cursor) = last_cursor.filter(|_| ablation != Some(Ablation::NoPushResume)) else { return };
    let before = watched(handler).3;
    let Some(again) = open_stream(client, handler, http, cursor).await else { return };
    let confirmed = async {
        while watched(handler).3 == before {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let _ = tokio::time::timeout(FIRST_PUSH_WAIT, confirmed).await;
    again.release().await;
}

/// Follows [`HOOKED`]: subscribes with a loopback callback, and subscribes again halfway to the
/// `refreshBefore` it was granted (ablated: never, waiting out the grant instead).
async fn webhook(client: &Client, ablation: Option<Ablation>) {
    // A callback that exists for as long as the subscription (the server posts nothing to it).
    let Ok(callback) = tokio::net::TcpListener::bind("127.0.0.1:0").await else { return };
    let Ok(address) = callback.local_addr() else { return };
    let params = json!({
        "name": HOOKED,
        "arguments": {},
        "delivery": {"mode": "webhook", "url": format!("http://{address}/events"), "secret": "whsec_cmVmZXJlbmNlLWNsaWVudC1vbmx5LW5vdC1hLXNlY3JldA=="},
        "cursor": null,
        "ttlMs": 60_000,
    });
    let Some(granted) = raw(client, "events/subscribe", params.clone()).await else { return };
    let until = granted.get("refreshBefore").and_then(Value::as_str).and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
    let Some(until) = until else { return };
    let left = (until.with_timezone(&chrono::Utc) - chrono::Utc::now()).to_std().unwrap_or_default();
    if ablation == Some(Ablation::NoWebhookRefresh) {
        tokio::time::sleep(left + Duration::from_millis(500)).await;
        return;
    }
    tokio::time::sleep(left / 2).await;
    let _ = raw(client, "events/subscribe", params).await;
    drop(callback);
}
