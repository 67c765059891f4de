//! Resource subscriptions in the legacy era: subscribe, re-read on `notifications/resources/updated`,
//! unsubscribe. The server advertises `resources.subscribe` and reports a change shortly after
//! each subscription.

use serde_json::Value;

use super::{latency_bucket, probe, BOTH, LEGACY, MODERN};
use crate::observe::{Frame, Observations};
use crate::probe::{Outcome, Verdict};
use crate::surface;

fn uri(frame: &Frame) -> Option<&str> {
    frame.params().get("uri").and_then(Value::as_str)
}

fn listed(uri: &str) -> bool {
    surface::resources(true).iter().any(|r| r["uri"] == uri)
}

probe! {
    /// Evidence: `resources/subscribe` for a URI the server listed, while `resources.subscribe`
    /// is advertised.
    Subscribe {
        id: "subscriptions.subscribe", area: Resources, title: "subscribes to a resource",
        revisions: ["2024-11-05"], eras: LEGACY, serves: "resources.subscribe: true", judge: judge_subscribe,
    }
}

fn judge_subscribe(o: &Observations) -> Verdict {
    let subscriptions: Vec<&Frame> = o.client_requests("resources/subscribe").collect();
    match subscriptions.iter().find(|f| uri(f).is_some_and(listed)) {
        Some(f) => Verdict::new(Outcome::Yes, format!("subscribed to {}", uri(f).unwrap_or(""))).evidence([f.seq]),
        None if !subscriptions.is_empty() => Verdict::new(Outcome::Partial, "subscribed only to URIs the server never listed").evidence([subscriptions[0].seq]),
        None => Verdict::new(Outcome::No, "never subscribed"),
    }
}

probe! {
    /// Evidence: after `notifications/resources/updated{uri}`, a `resources/read` of that URI.
    Reread {
        id: "subscriptions.reread", area: Resources, title: "re-reads a resource on updated",
        revisions: ["2024-11-05", "2026-07-28"], eras: BOTH, serves: "notifications/resources/updated after each subscription (resources/subscribe, or resourceSubscriptions of subscriptions/listen)", judge: judge_reread,
    }
}

fn judge_reread(o: &Observations) -> Verdict {
    let Some(update) = o.server_notifications("notifications/resources/updated").next() else {
        return Verdict::new(Outcome::NotReached, "no update was sent: the client never subscribed to a resource");
    };
    let updated = uri(update).unwrap_or_default();
    match o.client_requests_after("resources/read", update.seq).find(|f| uri(f) == Some(updated)) {
        Some(read) => Verdict::new(Outcome::Yes, format!("re-read, {} after the update", latency_bucket(read.t_us.saturating_sub(update.t_us)))).evidence([update.seq, read.seq]),
        None => Verdict::new(Outcome::No, "never re-read the updated resource").evidence([update.seq]),
    }
}

probe! {
    /// Evidence: `resources/unsubscribe` for a URI the client had subscribed to.
    Unsubscribe {
        id: "subscriptions.unsubscribe", area: Resources, title: "unsubscribes at the end",
        revisions: ["2024-11-05"], eras: LEGACY, serves: "resources/unsubscribe", judge: judge_unsubscribe,
    }
}

fn judge_unsubscribe(o: &Observations) -> Verdict {
    let Some(subscribed) = o.client_requests("resources/subscribe").next() else { return Verdict::new(Outcome::NotReached, "never subscribed") };
    match o.client_requests_after("resources/unsubscribe", subscribed.seq).find(|f| uri(f) == uri(subscribed)) {
        Some(f) => Verdict::new(Outcome::Yes, "unsubscribed").evidence([subscribed.seq, f.seq]),
        None => Verdict::new(Outcome::No, "never unsubscribed").evidence([subscribed.seq]),
    }
}

probe! {
    /// Evidence (2026-07-28): a `subscriptions/listen` whose filter asks for at least one kind of
    /// notification the server advertises; an empty filter is partial.
    Listen {
        id: "subscriptions.listen", area: Resources, title: "opens subscriptions/listen",
        revisions: ["2026-07-28"], eras: MODERN, serves: "subscriptions/listen accepting any filter", judge: judge_listen,
    }
}

fn judge_listen(o: &Observations) -> Verdict {
    let Some(listen) = o.client_requests("subscriptions/listen").next() else { return Verdict::new(Outcome::No, "never opened subscriptions/listen") };
    let filter = listen.params().get("notifications").cloned().unwrap_or(Value::Null);
    let mut kinds: Vec<String> = filter.as_object().map(|m| m.iter().filter(|(_, v)| !v.is_null() && **v != Value::Bool(false)).map(|(k, _)| k.clone()).collect()).unwrap_or_default();
    kinds.sort();
    if kinds.is_empty() {
        return Verdict::new(Outcome::Partial, "opened with an empty filter").evidence([listen.seq]);
    }
    Verdict::new(Outcome::Yes, format!("listening for {}", kinds.join(", "))).evidence([listen.seq])
}

probe! {
    /// Evidence (2026-07-28): after the server ends a listen stream gracefully (a final
    /// `subscriptions/listen` result), the client opens a new `subscriptions/listen`.
    ListenReopen {
        id: "subscriptions.listen_reopen", area: Resources, title: "re-opens listen when the server ends it",
        revisions: ["2026-07-28"], eras: MODERN, serves: "ends the first listen stream after the lists changed", judge: judge_reopen,
    }
}

fn judge_reopen(o: &Observations) -> Verdict {
    let Some(ended) = o.client_requests("subscriptions/listen").find_map(|listen| o.answer_to(listen).filter(|a| a.result().is_some())) else {
        return Verdict::new(Outcome::NotReached, "the server never ended a listen stream: none was open when the lists changed");
    };
    match o.client_requests_after("subscriptions/listen", ended.seq).next() {
        Some(again) => Verdict::new(Outcome::Yes, "opened a new listen stream").evidence([ended.seq, again.seq]),
        None => Verdict::new(Outcome::No, "did not listen again after the stream ended").evidence([ended.seq]),
    }
}
