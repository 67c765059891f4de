//! A client transport wrapper that rewrites outgoing frames for the ablations that live on the
//! wire (a dropped notification, a stripped `_meta` key, a `progressToken` the schema refuses, an
//! altered `requestState`, an input response left out). The rmcp client underneath stays
//! correct; only what leaves it is changed. The cancel-after-completed-calls variation lives here too: it follows every answered
//! `tools/call` with a `notifications/cancelled`. So does the one ablation on incoming frames: a
//! session that ends at a notification it does not know.

use std::future::Future;
use std::time::Duration;

use futures::future::Either;
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{json, Value};

use super::ablation::Ablation;
use super::variation::Variation;

const CLIENT_INFO_META: &str = "io.modelcontextprotocol/clientInfo";

/// A variation's rewrite of an outgoing request, legal either way: a vendor key of the host's
/// own in every request's `_meta`, or progress tokens sent as strings (the specification allows
/// a string or an integer).
pub fn vary(variation: Variation, mut frame: Value) -> Value {
    let is_request = frame.get("method").is_some() && frame.get("id").is_some();
    let id = frame.get("id").cloned().unwrap_or_default();
    let Some(params) = frame.as_object_mut().filter(|_| is_request).map(|f| f.entry("params").or_insert_with(|| json!({}))) else { return frame };
    let Some(params) = params.as_object_mut() else { return frame };
    match variation {
        Variation::VendorMeta => {
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(VENDOR_META_KEY.into(), json!(format!("trace-{id}")));
            }
        }
        Variation::StringProgressTokens => {
            if let Some(token) = params.get_mut("_meta").and_then(|m| m.get_mut("progressToken")).filter(|t| t.is_number()) {
                *token = json!(format!("progress-{token}"));
            }
        }
        _ => {}
    }
    frame
}

/// The key the vendor-meta variation adds to every request's `_meta` (a prefix of its own, as
/// the specification asks of implementations).
pub const VENDOR_META_KEY: &str = "com.example.host/trace";

/// Wraps any client transport and applies one ablation's rewrite to outgoing frames.
pub struct Rewriting<T> {
    inner: T,
    ablation: Option<Ablation>,
    /// Ids of the `tools/call` requests sent, for the cancel-after-completed-calls variation.
    calls: Option<Vec<Value>>,
    /// How long an answer to `server/discover` may take: past it the client hands rmcp an error
    /// in its place, and rmcp falls back to `initialize` (its own wait is 10 s).
    discover_wait: Option<Duration>,
    /// The `server/discover` in flight and when the wait for it ends.
    discover_pending: Option<(Value, tokio::time::Instant)>,
    /// Whether an answer to a 2026-07-28 request that has no `resultType` gets `"complete"`, as
    /// the schema tells clients to take it (rmcp's own discover result requires the member).
    default_result_type: bool,
    /// Ids of the 2026-07-28 requests sent (those with a protocol version in their `_meta`).
    modern_ids: Vec<Value>,
    /// The variation whose rewrite every outgoing request gets ([`vary`]), if it has one.
    varying: Option<Variation>,
    /// Whether the late-discover ablation has sent its request ahead of the first discover.
    listed_early: bool,
    /// The late-discover ablation's first discover, held until its own request is answered.
    held_discover: Option<TxJsonRpcMessage<RoleClient>>,
}

/// The id of the request the late-discover ablation sends ahead of its first discover.
const EARLY_LIST_ID: &str = "reference-early-list";

impl<T> Rewriting<T> {
    pub fn new(inner: T, ablation: Option<Ablation>, variation: Option<Variation>) -> Self {
        Rewriting {
            inner,
            ablation,
            calls: (variation == Some(Variation::CancelAfterCompletedCalls)).then(Vec::new),
            discover_wait: None,
            discover_pending: None,
            default_result_type: false,
            modern_ids: Vec::new(),
            varying: variation.filter(|v| matches!(v, Variation::VendorMeta | Variation::StringProgressTokens)),
            listed_early: false,
            held_discover: None,
        }
    }

    /// The wrapper of the reference client's session: its ablation's and variation's rewrites, the
    /// discover wait, and an absent `resultType` taken as complete (unless ablated).
    pub fn opening(inner: T, ablation: Option<Ablation>, variation: Option<Variation>, discover_wait: Option<Duration>) -> Self {
        Rewriting::new(inner, ablation, variation).discover_wait(discover_wait).default_result_type(ablation != Some(Ablation::RequireResultType))
    }

    /// Takes an absent `resultType` in an answer to a 2026-07-28 request as `"complete"`.
    pub fn default_result_type(mut self, on: bool) -> Self {
        self.default_result_type = on;
        self
    }

    /// Gives `server/discover` this long to be answered (none: as long as rmcp waits).
    pub fn discover_wait(mut self, wait: Option<Duration>) -> Self {
        self.discover_wait = wait;
        self
    }
}

/// The error the client hands itself in place of an answer to `server/discover` that did not come.
fn discover_timed_out(id: &Value, wait: Duration) -> Option<RxJsonRpcMessage<RoleClient>> {
    let message = format!("no answer to server/discover within {} ms", wait.as_millis());
    serde_json::from_value(serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32001, "message": message}})).ok()
}

/// Whether `frame` refuses with -32022 and lists no 2026-07-28 version: only `initialize` is left.
fn lists_only_legacy_versions(frame: &Value) -> bool {
    let listed = frame.pointer("/error/data/supported").and_then(Value::as_array);
    frame.pointer("/error/code").and_then(Value::as_i64) == Some(-32022) && listed.is_some_and(|l| !l.iter().any(|v| v == "2026-07-28"))
}

/// The fallback-on-method-not-found-only ablation: a refusal of `server/discover` with any other
/// code is made a 2026-07-28 rejection (-32021), on which rmcp does not fall back.
fn only_method_not_found_falls_back(frame: &mut Value) {
    if let Some(code) = frame.pointer_mut("/error/code") {
        if code.as_i64() != Some(-32601) {
            *code = Value::from(-32021);
        }
    }
}

/// The state-only-is-final ablation: an `input_required` answer with no input request (only a
/// `requestState`) becomes an error, so that the call ends there instead of being made again.
fn state_only_refused(frame: &Value) -> Option<Value> {
    let result = frame.get("result")?;
    let asks = result.get("inputRequests").and_then(Value::as_object).is_some_and(|r| !r.is_empty());
    (result.get("resultType").and_then(Value::as_str) == Some("input_required") && !asks)
        .then(|| serde_json::json!({"jsonrpc": "2.0", "id": frame.get("id"), "error": {"code": -32603, "message": "an input_required with nothing to answer"}}))
}

/// The `notifications/cancelled` a host sends for a request, here one that already completed.
fn cancelled(id: &Value) -> Option<TxJsonRpcMessage<RoleClient>> {
    let note = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "the call is finished"}});
    serde_json::from_value(note).ok()
}

/// Applies `ablation` to one outgoing frame; `None` means the frame is dropped.
pub fn rewrite(ablation: Ablation, mut frame: Value) -> Option<Value> {
    let method = frame.get("method").and_then(Value::as_str).unwrap_or("").to_string();
    if ablation == Ablation::InvalidProgressToken && method == "tools/list" {
        // rmcp's own types take any `_meta`; the schema does not.
        if let Some(object) = frame.as_object_mut() {
            let params = object.entry("params").or_insert_with(|| serde_json::json!({}));
            if let Some(meta) = params.as_object_mut().map(|p| p.entry("_meta").or_insert_with(|| serde_json::json!({}))).and_then(Value::as_object_mut) {
                meta.insert("progressToken".into(), Value::Bool(true));
            }
        }
        return Some(frame);
    }
    let params = frame.get_mut("params");
    match (ablation, params) {
        // Replaced rather than dropped: rmcp's HTTP client expects to send a notification here.
        (Ablation::SkipInitialized, _) if method == "notifications/initialized" => {
            return Some(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}))
        }
        (Ablation::BlankClientInfo, Some(params)) => {
            if let Some(name) = params.pointer_mut("/clientInfo/name") {
                *name = Value::from("");
            }
            if let Some(meta) = params.get_mut("_meta").and_then(|m| m.get_mut(CLIENT_INFO_META)) {
                meta["name"] = Value::from("");
            }
        }
        (Ablation::UntitledClientInfo, Some(params)) => {
            if let Some(info) = params.get_mut("clientInfo").and_then(Value::as_object_mut) {
                info.remove("title");
            }
            if let Some(info) = params.get_mut("_meta").and_then(|m| m.get_mut(CLIENT_INFO_META)).and_then(Value::as_object_mut) {
                info.remove("title");
            }
        }
        (Ablation::DropClientInfoMeta, Some(params)) if method != "server/discover" => {
            if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
                meta.remove(CLIENT_INFO_META);
            }
        }
        (Ablation::StripProgressToken, Some(params)) if method == "tools/call" => {
            if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
                meta.remove("progressToken");
            }
        }
        (Ablation::AlterRequestState, Some(params)) if method == "tools/call" => {
            if let Some(Value::String(state)) = params.get_mut("requestState") {
                // A decomposing re-encode: the kind of change a careless client makes.
                *state = state.replace('é', "e\u{301}");
            }
        }
        (Ablation::FirstInputOnly, Some(params)) if method == "tools/call" => {
            if let Some(responses) = params.get_mut("inputResponses").and_then(Value::as_object_mut) {
                let rest: Vec<String> = responses.keys().skip(1).cloned().collect();
                for key in rest {
                    responses.remove(&key);
                }
            }
        }
        _ => {}
    }
    Some(frame)
}

impl<T> Rewriting<T> {
    /// `message` with `"resultType": "complete"` in its result when it answers a 2026-07-28
    /// request and has none.
    fn with_default_result_type(&mut self, message: RxJsonRpcMessage<RoleClient>) -> RxJsonRpcMessage<RoleClient> {
        let mut frame = serde_json::to_value(&message).unwrap_or_default();
        let Some(position) = frame.get("id").and_then(|id| self.modern_ids.iter().position(|m| m == id)) else { return message };
        if frame.get("method").is_some() {
            return message;
        }
        self.modern_ids.remove(position);
        match frame.get_mut("result").and_then(Value::as_object_mut) {
            Some(result) if !result.contains_key("resultType") => {
                result.insert("resultType".into(), Value::from("complete"));
                serde_json::from_value(frame).unwrap_or(message)
            }
            _ => message,
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Rewriting<T> {
    type Error = T::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleClient>) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if self.default_result_type {
            let frame = serde_json::to_value(&item).unwrap_or_default();
            if let (Some(_), Some(id)) = (frame.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion"), frame.get("id")) {
                self.modern_ids.push(id.clone());
            }
        }
        if let Some(wait) = self.discover_wait {
            let frame = serde_json::to_value(&item).unwrap_or_default();
            if let (Some("server/discover"), Some(id)) = (frame.get("method").and_then(Value::as_str), frame.get("id")) {
                self.discover_pending = Some((id.clone(), tokio::time::Instant::now() + wait));
            }
        }
        if let Some(calls) = self.calls.as_mut() {
            let frame = serde_json::to_value(&item).unwrap_or_default();
            if frame.get("method").and_then(Value::as_str) == Some("tools/call") {
                calls.extend(frame.get("id").cloned());
            }
        }
        let item = match self.varying {
            Some(variation) => {
                let frame = serde_json::to_value(&item).unwrap_or_default();
                serde_json::from_value::<TxJsonRpcMessage<RoleClient>>(vary(variation, frame)).unwrap_or(item)
            }
            None => item,
        };
        if self.ablation == Some(Ablation::LateDiscover) && !self.listed_early {
            let frame = serde_json::to_value(&item).unwrap_or_default();
            if frame.get("method").and_then(Value::as_str) == Some("server/discover") {
                // A request of its own first, made like the discover it goes before; the discover
                // follows once that is answered (see `receive`).
                self.listed_early = true;
                let mut early = frame;
                early["id"] = Value::from(EARLY_LIST_ID);
                early["method"] = Value::from("tools/list");
                if let Ok(early) = serde_json::from_value::<TxJsonRpcMessage<RoleClient>>(early) {
                    self.held_discover = Some(item);
                    return Either::Left(self.inner.send(early));
                }
            }
        }
        let Some(ablation) = self.ablation else { return Either::Left(self.inner.send(item)) };
        let original = serde_json::to_value(&item).ok();
        let rewritten = original.clone().map(|v| rewrite(ablation, v));
        match rewritten {
            Some(None) => Either::Right(std::future::ready(Ok(()))),
            // Left as it was: sent as it was (a round trip through the SDK's types would drop
            // what they do not know, such as a 2025-11-25 call's `params.task`).
            Some(Some(value)) if Some(&value) == original.as_ref() => Either::Left(self.inner.send(item)),
            Some(Some(value)) => match serde_json::from_value::<TxJsonRpcMessage<RoleClient>>(value) {
                Ok(item) => Either::Left(self.inner.send(item)),
                Err(_) => Either::Left(self.inner.send(item)),
            },
            None => Either::Left(self.inner.send(item)),
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let message = self.receive_one().await?;
            // The late-discover ablation, holding its discover: when its own request is
            // answered (the answer is its own, not rmcp's), the held discover goes out.
            let Some(discover) = self.held_discover.take() else { return Some(message) };
            let frame = serde_json::to_value(&message).unwrap_or_default();
            if frame.get("method").is_some() || frame.get("id") != Some(&Value::from(EARLY_LIST_ID)) {
                self.held_discover = Some(discover);
                return Some(message);
            }
            let sending = self.inner.send(discover);
            tokio::spawn(async move {
                let _ = sending.await;
            });
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

impl<T: Transport<RoleClient>> Rewriting<T> {
    /// The next message for rmcp, with the discover wait, the default `resultType` and the
    /// incoming ablations applied.
    async fn receive_one(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = match self.discover_pending.take() {
            None => self.inner.receive().await?,
            Some((id, until)) => {
                tokio::select! {
                    message = self.inner.receive() => {
                        let mut message = message?;
                        let mut frame = serde_json::to_value(&message).unwrap_or_default();
                        if frame.get("method").is_none() && frame.get("id") == Some(&id) {
                            if self.ablation == Some(Ablation::FallbackOnMethodNotFoundOnly) {
                                only_method_not_found_falls_back(&mut frame);
                                message = serde_json::from_value(frame).unwrap_or(message);
                            } else if lists_only_legacy_versions(&frame) {
                                // rmcp would look for 2026-07-28 in the list and give up: a plain
                                // error makes its Auto lifecycle send initialize with the legacy
                                // version it was given (2025-11-25, which the list holds).
                                frame["error"]["code"] = Value::from(-32001);
                                message = serde_json::from_value(frame).unwrap_or(message);
                            }
                        } else {
                            self.discover_pending = Some((id, until));
                        }
                        message
                    }
                    _ = tokio::time::sleep_until(until) => return discover_timed_out(&id, self.discover_wait.unwrap_or_default()),
                }
            }
        };
        let message = if self.default_result_type { self.with_default_result_type(message) } else { message };
        if self.ablation == Some(Ablation::StateOnlyIsFinal) {
            let frame = serde_json::to_value(&message).unwrap_or_default();
            if let Some(refused) = state_only_refused(&frame) {
                return serde_json::from_value(refused).ok().or(Some(message));
            }
        }
        if self.ablation == Some(Ablation::ChokeOnUnknownNotification) {
            let frame = serde_json::to_value(&message).unwrap_or_default();
            if frame.get("method").and_then(Value::as_str) == Some(probe_server::surface::UNKNOWN_NOTIFICATION) {
                // As a strict parser does: the frame it cannot place ends the session.
                return None;
            }
        }
        if let Some(calls) = self.calls.as_mut() {
            let frame = serde_json::to_value(&message).unwrap_or_default();
            let answered = frame.get("method").is_none().then(|| frame.get("id")).flatten();
            if let Some(position) = answered.and_then(|id| calls.iter().position(|c| c == id)) {
                let id = calls.remove(position);
                // The answer goes on; the cancellation follows it on its own task (over HTTP a
                // send may wait for this very receive loop).
                if let Some(note) = cancelled(&id) {
                    let sending = self.inner.send(note);
                    tokio::spawn(async move {
                        let _ = sending.await;
                    });
                }
            }
        }
        Some(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rewrites_touch_only_their_frames() {
        let init = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(rewrite(Ablation::SkipInitialized, init.clone()).unwrap()["method"], "notifications/roots/list_changed");
        assert_eq!(rewrite(Ablation::SkipBlobRead, init.clone()), Some(init));

        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "t", "requestState": "é!", "_meta": {"progressToken": 1, CLIENT_INFO_META: {"name": "n"}}}});
        let altered = rewrite(Ablation::AlterRequestState, call.clone()).unwrap();
        assert_eq!(altered["params"]["requestState"], json!("e\u{301}!"));
        let stripped = rewrite(Ablation::StripProgressToken, call.clone()).unwrap();
        assert!(stripped["params"]["_meta"].get("progressToken").is_none());
        let no_info = rewrite(Ablation::DropClientInfoMeta, call.clone()).unwrap();
        assert!(no_info["params"]["_meta"].get(CLIENT_INFO_META).is_none());
        let listed = rewrite(Ablation::InvalidProgressToken, serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})).unwrap();
        assert_eq!(listed["params"]["_meta"]["progressToken"], true);
        assert_eq!(rewrite(Ablation::InvalidProgressToken, call.clone()), Some(call.clone()));
        let blank = rewrite(Ablation::BlankClientInfo, call).unwrap();
        assert_eq!(blank["params"]["_meta"][CLIENT_INFO_META]["name"], json!(""));
    }
}
