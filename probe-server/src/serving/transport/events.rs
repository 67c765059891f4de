//! The events variant's `events/*` requests of 2026-07-28 sessions, answered by the taps (rmcp
//! knows no events, and would put a push stream's notifications on the GET stream instead of the
//! request's own): `events/list`, `events/poll`, `events/subscribe` and `events/unsubscribe` get
//! one answer; `events/stream` gets its notifications as [`crate::events::push_script`] times
//! them and then stays open, unanswered, until the client goes (HTTP) or the session ends.
//! A request for an event type in a mode the type does not offer is refused (-32602).

use std::time::Duration;

use serde_json::{json, Value};

use crate::events::{self as ev, HOOKED, PUSHED};
use crate::Variant;

/// What the tap sends for an intercepted request.
pub(crate) enum Served {
    /// One answer (a result or an error).
    Answer(Value),
    /// The notifications of a push stream, each after its delay; the stream stays open after them.
    Stream(Vec<(Duration, Value)>),
}

fn is_modern(frame: &Value) -> bool {
    frame.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").is_some()
}

/// Whether the tap answers `frame` itself: a 2026-07-28 `events/*` request in the events variant.
pub(crate) fn intercepts(variant: Variant, frame: &Value) -> bool {
    variant == Variant::Events && frame.get("id").is_some() && is_modern(frame) && frame.get("method").and_then(Value::as_str).is_some_and(|m| m.starts_with("events/"))
}

fn refusal(id: &Value, code: i64, message: String) -> Served {
    Served::Answer(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
}

fn result(id: &Value, result: Value) -> Served {
    Served::Answer(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// What the tap sends for the intercepted request `frame`.
pub(crate) fn serve(frame: &Value) -> Served {
    let id = frame.get("id").cloned().unwrap_or(Value::Null);
    let method = frame.get("method").and_then(Value::as_str).unwrap_or_default();
    let params = frame.get("params").cloned().unwrap_or(Value::Null);
    if method == "events/list" {
        return result(&id, json!({"resultType": "complete", "events": ev::types()}));
    }
    let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
    let Some(wanted) = ev::mode_of(method) else {
        return refusal(&id, -32601, format!("method not found: {method}"));
    };
    match ev::delivery_of(name) {
        None => return refusal(&id, -32602, format!("no event type {name:?}: events/list names them")),
        Some(offered) if offered != wanted => return refusal(&id, -32602, format!("{name} is delivered by {offered} only, not by {wanted}")),
        Some(_) => {}
    }
    let cursor = params.get("cursor").and_then(Value::as_str);
    match method {
        "events/poll" => match ev::poll_answer(name, cursor) {
            Ok(page) => result(&id, page),
            Err(message) => refusal(&id, -32602, message),
        },
        "events/stream" if name == PUSHED => Served::Stream(ev::push_script(&id, cursor)),
        "events/subscribe" if name == HOOKED => match params.pointer("/delivery/url").and_then(Value::as_str) {
            Some(_) => result(&id, ev::subscribe_answer(&params, std::time::SystemTime::now())),
            None => refusal(&id, -32602, "events/subscribe needs delivery.url".into()),
        },
        _ => result(&id, json!({"resultType": "complete"})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modern(method: &str, params: Value) -> Value {
        let mut params = params;
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params})
    }

    fn answer(served: Served) -> Value {
        match served {
            Served::Answer(answer) => answer,
            Served::Stream(_) => panic!("a stream where an answer was due"),
        }
    }

    #[test]
    fn only_modern_events_requests_of_the_events_variant_are_the_taps() {
        assert!(intercepts(Variant::Events, &modern("events/list", json!({}))));
        assert!(!intercepts(Variant::Standard, &modern("events/list", json!({}))));
        assert!(!intercepts(Variant::Events, &json!({"jsonrpc": "2.0", "id": 1, "method": "events/list"})));
        assert!(!intercepts(Variant::Events, &modern("tools/list", json!({}))));
    }

    #[test]
    fn each_type_is_served_in_its_own_mode_only() {
        let listed = answer(serve(&modern("events/list", json!({}))));
        assert_eq!(listed.pointer("/result/events").and_then(Value::as_array).map(Vec::len), Some(ev::TYPES.len()));
        let polled = answer(serve(&modern("events/poll", json!({"name": ev::POLLED, "arguments": {}, "cursor": null}))));
        assert_eq!(polled.pointer("/result/cursor"), Some(&json!("polled-1")));
        let wrong = answer(serve(&modern("events/poll", json!({"name": PUSHED, "arguments": {}, "cursor": null}))));
        assert_eq!(wrong.pointer("/error/code"), Some(&json!(-32602)));
        assert!(matches!(serve(&modern("events/stream", json!({"name": PUSHED, "arguments": {}}))), Served::Stream(_)));
        let hooked = answer(serve(&modern("events/subscribe", json!({"name": HOOKED, "arguments": {}, "delivery": {"mode": "webhook", "url": "http://127.0.0.1:1/"}}))));
        assert!(hooked.pointer("/result/refreshBefore").is_some(), "{hooked}");
    }
}
