//! Events (the extension `io.modelcontextprotocol/events`, SEP-3415, defined for 2026-07-28 and
//! later), served in the events variant to 2026-07-28 sessions; a legacy session is refused every
//! `events/*` request (-32601), as a server without the extension refuses it. The server lists
//! four event types, one per way of being followed, and answers each one the same way to every
//! client, so that what the client does next says what it made of the answer:
//!
//! - [`POLLED`] (poll): answered by the cursor the poll carries, as [`poll_answer`] says — from
//!   now (no events, a cursor, [`NEXT_POLL_MS`]), then a page with `hasMore: true` and a
//!   [`HAS_MORE_NEXT_POLL_MS`] that a client draining the backlog ignores, then a `truncated`
//!   page with a fresh cursor and `nextPollMs: 0` (a client applies its floor), then quiet pages.
//! - [`UNREPLAYED`] (poll): a type without replay; every answer's cursor is `null`.
//! - [`PUSHED`] (push): an `events/stream` is confirmed (`notifications/events/active`), gets
//!   one event and [`HEARTBEATS`] heartbeats [`HEARTBEAT_MS`] apart, each with a cursor, and
//!   then falls silent while staying open: a client that watches the heartbeats takes it for
//!   dead and opens a new stream from its last cursor.
//! - [`HOOKED`] (webhook): `events/subscribe` is granted [`WEBHOOK_GRANT_MS`], shorter than any
//!   client asks; a client keeps the subscription by subscribing again before `refreshBefore`.

use std::time::Duration;

use serde_json::{json, Value};

/// The extension's identifier, in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/events";
/// The `_meta` key naming the `events/stream` request a push notification belongs to.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";
pub const POLLED: &str = "probe.polled";
pub const UNREPLAYED: &str = "probe.unreplayed";
pub const PUSHED: &str = "probe.pushed";
pub const HOOKED: &str = "probe.hooked";
/// The event types, in the order `events/list` lists them, each with its one delivery mode.
pub const TYPES: [(&str, &str); 4] = [(POLLED, "poll"), (UNREPLAYED, "poll"), (PUSHED, "push"), (HOOKED, "webhook")];
/// The interval a quiet poll answer asks for.
pub const NEXT_POLL_MS: u64 = 1_000;
/// The interval the `hasMore: true` answer names (ten minutes): ignored by a client that drains.
pub const HAS_MORE_NEXT_POLL_MS: u64 = 600_000;
/// How far apart the push stream's heartbeats come, and how many come before it falls silent.
pub const HEARTBEAT_MS: u64 = 500;
pub const HEARTBEATS: usize = 3;
/// How long a webhook subscription is granted, whatever the client suggests.
pub const WEBHOOK_GRANT_MS: u64 = 3_000;
/// In every event's data: the token a host that hands the event on shows its model.
pub const EVENT_CANARY: &str = "event-canary-5d1e";

/// The event types of `events/list`.
pub fn types() -> Value {
    let described = |name: &str, delivery: &str, what: &str| {
        json!({
            "name": name,
            "description": what,
            "delivery": [delivery],
            "inputSchema": {"type": "object", "properties": {"topic": {"type": "string", "description": "narrows the events to one topic"}}},
            "payloadSchema": {"type": "object", "properties": {"n": {"type": "integer"}, "token": {"type": "string"}}, "required": ["n", "token"]},
        })
    };
    json!([
        described(POLLED, "poll", "Fires on each step of the probe's poll script"),
        described(UNREPLAYED, "poll", "Fires now and then; no replay, so every cursor is null"),
        described(PUSHED, "push", "Fires once on a stream, then the stream falls silent"),
        described(HOOKED, "webhook", "Fires to a callback; the subscription must be refreshed"),
    ])
}

/// The requests that follow an event type, each with the delivery mode it follows it in.
pub const FOLLOWING: [(&str, &str); 3] = [("events/poll", "poll"), ("events/stream", "push"), ("events/subscribe", "webhook")];

/// The delivery mode a request of `method` belongs to (`events/unsubscribe` ends a webhook).
pub fn mode_of(method: &str) -> Option<&'static str> {
    match method {
        "events/unsubscribe" => Some("webhook"),
        _ => FOLLOWING.iter().find(|(following, _)| *following == method).map(|(_, mode)| *mode),
    }
}

/// What a webhook subscription is known by: its event type, arguments and callback URL (the
/// same again refreshes it).
pub fn subscription_key(params: &Value) -> Value {
    json!([params.get("name"), params.get("arguments"), params.pointer("/delivery/url")])
}

/// The delivery mode `name` is served by, if it is one of the event types.
pub fn delivery_of(name: &str) -> Option<&'static str> {
    TYPES.iter().find(|(type_name, _)| *type_name == name).map(|(_, delivery)| *delivery)
}

/// One occurrence of `name`, the `n`th.
pub fn occurrence(name: &str, n: u64, cursor: Option<&str>) -> Value {
    let mut event = json!({
        "eventId": format!("{name}-{n}"),
        "name": name,
        "timestamp": "2026-07-28T00:00:00Z",
        "data": {"n": n, "token": EVENT_CANARY},
    });
    if name != POLLED && name != UNREPLAYED {
        event["cursor"] = json!(cursor);
    }
    event
}

/// The cursors of [`POLLED`]'s script, in order.
pub const POLL_CURSORS: [&str; 4] = ["polled-1", "polled-2", "polled-3", "polled-4"];

/// The answer to an `events/poll` of [`POLLED`] or [`UNREPLAYED`] carrying `cursor` (`None`:
/// null or absent); `Err` with a message for a cursor the server never gave.
pub fn poll_answer(name: &str, cursor: Option<&str>) -> Result<Value, String> {
    let page = |events: Vec<Value>, cursor: Option<&str>, has_more: bool, truncated: bool, next_poll_ms: u64| json!({"resultType": "complete", "events": events, "cursor": cursor, "hasMore": has_more, "truncated": truncated, "nextPollMs": next_poll_ms});
    if name == UNREPLAYED {
        return Ok(page(vec![occurrence(name, 1, None)], None, false, false, NEXT_POLL_MS));
    }
    let [first, second, third, fourth] = POLL_CURSORS;
    Ok(match cursor {
        None => page(vec![], Some(first), false, false, NEXT_POLL_MS),
        Some(c) if c == first => page(vec![occurrence(name, 1, None)], Some(second), true, false, HAS_MORE_NEXT_POLL_MS),
        Some(c) if c == second => page(vec![occurrence(name, 2, None)], Some(third), false, true, 0),
        Some(c) if c == third || c == fourth => page(vec![], Some(fourth), false, false, NEXT_POLL_MS),
        Some(other) => return Err(format!("unknown cursor {other:?}: this server gave no such cursor for {name}")),
    })
}

/// The push stream's cursors: after its event, then one per heartbeat.
pub fn push_cursor(step: usize) -> String {
    format!("pushed-{step}")
}

/// The notifications an `events/stream` of [`PUSHED`] with the request id `id` gets, each with
/// the delay before it: confirmation, one event, [`HEARTBEATS`] heartbeats; then nothing.
/// A stream opened from a cursor the server gave starts after it.
pub fn push_script(id: &Value, cursor: Option<&str>) -> Vec<(Duration, Value)> {
    let start = cursor.and_then(|c| c.strip_prefix("pushed-")).and_then(|n| n.parse::<usize>().ok()).unwrap_or(0);
    let meta = json!({SUBSCRIPTION_ID_KEY: id});
    let notification = |method: &str, mut params: Value| {
        params["_meta"] = meta.clone();
        json!({"jsonrpc": "2.0", "method": method, "params": params})
    };
    let mut script = vec![(Duration::ZERO, notification("notifications/events/active", json!({"cursor": push_cursor(start), "truncated": false})))];
    let event = occurrence(PUSHED, start as u64 + 1, Some(&push_cursor(start + 1)));
    script.push((Duration::from_millis(50), notification("notifications/events/event", event)));
    for beat in 0..HEARTBEATS {
        let cursor = push_cursor(start + 2 + beat);
        script.push((Duration::from_millis(HEARTBEAT_MS), notification("notifications/events/heartbeat", json!({"cursor": cursor}))));
    }
    script
}

/// The answer to an `events/subscribe` of [`HOOKED`]: `refreshBefore` [`WEBHOOK_GRANT_MS`] from
/// `now` (an RFC 3339 instant), an id that stays the same for the same [`subscription_key`].
pub fn subscribe_answer(params: &Value, now: std::time::SystemTime) -> Value {
    let key = subscription_key(params).to_string();
    let digest = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3));
    let until = now + Duration::from_millis(WEBHOOK_GRANT_MS);
    json!({
        "resultType": "complete",
        "id": format!("sub_{digest:016x}"),
        "refreshBefore": rfc3339(until),
        "cursor": "hooked-1",
        "truncated": false,
    })
}

/// `time` as an RFC 3339 instant in UTC, to the millisecond.
fn rfc3339(time: std::time::SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(time).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_poll_script_moves_by_the_cursor_it_is_given() {
        let first = poll_answer(POLLED, None).unwrap();
        assert_eq!((first["events"].as_array().unwrap().len(), &first["cursor"], &first["nextPollMs"]), (0, &json!("polled-1"), &json!(NEXT_POLL_MS)));
        let more = poll_answer(POLLED, Some("polled-1")).unwrap();
        assert_eq!((&more["hasMore"], &more["nextPollMs"]), (&json!(true), &json!(HAS_MORE_NEXT_POLL_MS)));
        let truncated = poll_answer(POLLED, Some("polled-2")).unwrap();
        assert_eq!((&truncated["truncated"], &truncated["cursor"], &truncated["nextPollMs"]), (&json!(true), &json!("polled-3"), &json!(0)));
        assert_eq!(poll_answer(POLLED, Some("polled-4")).unwrap()["cursor"], "polled-4");
        assert!(poll_answer(POLLED, Some("made-up")).unwrap_err().contains("made-up"));
        assert_eq!(poll_answer(UNREPLAYED, Some("anything")).unwrap()["cursor"], Value::Null);
    }

    #[test]
    fn a_push_stream_resumes_after_the_cursor_it_is_opened_from() {
        let first = push_script(&json!(7), None);
        assert_eq!(first.len(), 2 + HEARTBEATS);
        assert_eq!(first[0].1.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId"), Some(&json!(7)));
        let last = first.last().unwrap().1["params"]["cursor"].as_str().unwrap().to_string();
        let again = push_script(&json!(8), Some(&last));
        assert_eq!(again[0].1["params"]["cursor"], json!(last));
        assert_ne!(again[1].1["params"]["eventId"], first[1].1["params"]["eventId"]);
    }

    #[test]
    fn a_subscription_keeps_its_id_and_is_granted_a_short_time() {
        let params = json!({"name": HOOKED, "arguments": {}, "delivery": {"mode": "webhook", "url": "http://127.0.0.1:9/hook"}});
        let epoch = std::time::UNIX_EPOCH + Duration::from_millis(1_785_196_800_250);
        let answer = subscribe_answer(&params, epoch);
        assert_eq!(answer["id"], subscribe_answer(&params, std::time::SystemTime::now())["id"]);
        assert_eq!(answer["refreshBefore"], "2026-07-28T00:00:03.250Z");
    }
}
