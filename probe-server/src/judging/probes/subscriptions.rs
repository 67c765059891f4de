//! Resource subscriptions in the legacy era: subscribe, re-read on `notifications/resources/updated`,
//! unsubscribe. The server advertises `resources.subscribe` and reports a change shortly after
//! each subscription.

use serde_json::Value;

use super::opportunity::{self, chance};
use super::{latency_bucket, probe, BOTH, LEGACY, MODERN};
use crate::host_tools::HostTool;
use crate::observe::{Frame, Observations};
use crate::probe::{Outcome, Verdict};
use crate::surface;

fn uri(frame: &Frame) -> Option<&str> {
    frame.params().get("uri").and_then(Value::as_str)
}

fn listed(uri: &str) -> bool {
    surface::resources(true).iter().any(|r| r["uri"] == uri)
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[&Subscribe, &Reread, &Unsubscribe, &Listen, &ListenReopen, &RespectsCapability, &FailureBackoff];

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
        None if !subscriptions.is_empty() => {
            Verdict::new(Outcome::Partial, "subscribed only to URIs the server never listed").evidence([subscriptions[0].seq]).opportunity([subscriptions[0].seq])
        }
        None => {
            let chance = chance!(opportunity::session_and_tools(o, &[HostTool::ResourceList, HostTool::ResourceRead]));
            chance.cite(Verdict::new(Outcome::No, "never subscribed"))
        }
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
        None => Verdict::new(Outcome::No, "never re-read the updated resource").evidence([update.seq]).opportunity([update.seq]),
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
        None => Verdict::new(Outcome::No, "never unsubscribed").evidence([subscribed.seq]).opportunity([subscribed.seq]),
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
    let Some(listen) = o.client_requests("subscriptions/listen").next() else {
        let chance = chance!(opportunity::session(o));
        return chance.cite(Verdict::new(Outcome::No, "never opened subscriptions/listen"));
    };
    let filter = listen.params().get("notifications").cloned().unwrap_or(Value::Null);
    let mut kinds: Vec<String> =
        filter.as_object().map(|m| m.iter().filter(|(_, v)| !v.is_null() && **v != Value::Bool(false)).map(|(k, _)| k.clone()).collect()).unwrap_or_default();
    kinds.sort();
    if kinds.is_empty() {
        return Verdict::new(Outcome::Partial, "opened with an empty filter").evidence([listen.seq]).opportunity([listen.seq]);
    }
    Verdict::new(Outcome::Yes, format!("listening for {}", kinds.join(", "))).evidence([listen.seq])
}

probe! {
    /// Evidence (2026-07-28): after the server ends a listen stream gracefully (a final
    /// `subscriptions/listen` result), the client opens a new `subscriptions/listen` (yes). No
    /// only when the run went on for `REOPEN_SETTLE_MS` (10 s) after the end without one; a run
    /// that ended sooner gave the client no settled chance (not-reached).
    ListenReopen {
        id: "subscriptions.listen_reopen", area: Resources, title: "re-opens listen when the server ends it",
        revisions: ["2026-07-28"], eras: MODERN, serves: "ends the first listen stream after the lists changed", judge: judge_reopen,
    }
}

fn judge_reopen(o: &Observations) -> Verdict {
    // Only a stream the server ended on purpose counts: one that ends because the client left is
    // no question put to the client.
    let by_server = o.payloads::<crate::note::ListenEnded>().find(|(_, ended)| ended.by == crate::note::EndedBy::Server).map(|(e, _)| e);
    let Some(ended) = by_server
        .and_then(|note| o.client_requests("subscriptions/listen").filter_map(|listen| o.answer_to(listen).filter(|a| a.result().is_some())).find(|answer| answer.seq > note.seq))
    else {
        return Verdict::new(Outcome::NotReached, "the server never ended a listen stream: none was open when the lists changed");
    };
    if let Some(again) = o.client_requests_after("subscriptions/listen", ended.seq).next() {
        return Verdict::new(Outcome::Yes, format!("opened a new listen stream {} after the end", super::latency_bucket(again.t_us.saturating_sub(ended.t_us))))
            .evidence([ended.seq, again.seq]);
    }
    // A client may wait before it listens again (one waits about 6 s): a run that ended sooner
    // gave it no chance to.
    let lasted_us = o.ended_us().saturating_sub(ended.t_us);
    if lasted_us < REOPEN_SETTLE_MS * 1000 {
        return Verdict::new(
            Outcome::NotReached,
            format!("the run ended {:.1} s after the stream ended, before a settled {} s in which to listen again", lasted_us as f64 / 1e6, REOPEN_SETTLE_MS / 1000),
        )
        .evidence([ended.seq]);
    }
    Verdict::new(Outcome::No, "did not listen again after the stream ended").evidence([ended.seq]).opportunity([ended.seq])
}

/// How long a run must go on after the server ended a listen stream before not listening again
/// is the client's doing.
pub const REOPEN_SETTLE_MS: u64 = 10_000;

probe! {
    /// Evidence (server variant `subscribe-unadvertised`): no `resources/subscribe` while the
    /// server's `resources` capability lacks `subscribe`. Any subscribe is a violation: the client
    /// used a feature the server never offered. A client that never subscribes passes trivially;
    /// the `subscriptions.subscribe` row says whether it subscribes when it may.
    RespectsCapability {
        id: "subscriptions.respects_capability", area: Resources, title: "no subscribe unless advertised",
        revisions: ["2024-11-05"], eras: LEGACY, variant: SubscribeUnadvertised,
        serves: "resources without subscribe; resources/subscribe refused with -32601", judge: judge_respects_capability,
    }
}

fn judge_respects_capability(o: &Observations) -> Verdict {
    let subscriptions: Vec<&Frame> = o.client_requests("resources/subscribe").collect();
    match subscriptions.first() {
        None => Verdict::new(Outcome::Yes, "never subscribed while resources.subscribe was not advertised"),
        Some(first) => Verdict::new(Outcome::Violation, format!("subscribed {} although resources.subscribe was not advertised", times(subscriptions.len())))
            .evidence([first.seq].into_iter().chain(o.answer_to(first).map(|a| a.seq))),
    }
}

fn times(n: usize) -> String {
    if n == 1 {
        "once".into()
    } else {
        format!("{n} times")
    }
}

/// More retries than this, faster than [`RETRY_LOOP_PER_SECOND`], is a retry loop.
pub const RETRY_LOOP_MIN_RETRIES: usize = 5;
/// Retries per second (over the window from the first failure to the last retry) above which
/// repeated retries count as a loop.
pub const RETRY_LOOP_PER_SECOND: f64 = 5.0;

probe! {
    /// Evidence (server variant `subscribe-fails`): what follows the first failed
    /// `resources/subscribe`. No further subscribe to that URI (gave up), or retries whose gaps
    /// never shrink (back-off), is yes. More than 5 retries at more than 5 per second, measured from
    /// the first failure to the last retry, is a retry loop: a violation, since it floods a server
    /// that already said no. Other retrying is partial.
    FailureBackoff {
        id: "subscriptions.failure_backoff", area: Resources, title: "gives up or backs off when subscribe fails",
        revisions: ["2024-11-05"], eras: LEGACY, variant: SubscribeFails,
        serves: "resources.subscribe advertised; every resources/subscribe fails with -32603", judge: judge_failure_backoff,
    }
}

fn judge_failure_backoff(o: &Observations) -> Verdict {
    let subscriptions: Vec<&Frame> = o.client_requests("resources/subscribe").collect();
    let Some(failed) = subscriptions.iter().find(|f| o.answer_to(f).is_some_and(|a| a.error().is_some())) else {
        return match subscriptions.first() {
            None => Verdict::new(Outcome::NotReached, "never subscribed, so no subscription failed"),
            Some(first) => Verdict::new(Outcome::Inconclusive, "no subscription was answered with its failure").evidence([first.seq]),
        };
    };
    let retries: Vec<&Frame> = subscriptions.iter().copied().filter(|f| f.seq > failed.seq && uri(f) == uri(failed)).collect();
    let answer = o.answer_to(failed).map(|a| a.seq);
    let Some(last) = retries.last() else {
        return Verdict::new(Outcome::Yes, "gave up after the subscription failed").evidence([failed.seq].into_iter().chain(answer));
    };
    let evidence = [failed.seq, retries[0].seq, last.seq].into_iter().chain(answer);
    let window_s = (last.t_us.saturating_sub(failed.t_us) as f64 / 1e6).max(1e-3);
    let rate = retries.len() as f64 / window_s;
    if retries.len() > RETRY_LOOP_MIN_RETRIES && rate > RETRY_LOOP_PER_SECOND {
        return Verdict::new(Outcome::Violation, format!("retry loop: {} retries at more than {RETRY_LOOP_PER_SECOND} per second", count_bucket(retries.len()))).evidence(evidence);
    }
    let instants: Vec<u64> = std::iter::once(failed.t_us).chain(retries.iter().map(|f| f.t_us)).collect();
    let gaps: Vec<u64> = instants.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
    if gaps.windows(2).all(|g| g[1] >= g[0]) {
        return Verdict::new(Outcome::Yes, format!("retried {} with growing intervals (back-off)", times(retries.len()))).evidence(evidence);
    }
    Verdict::new(Outcome::Partial, format!("retried {} without back-off, below the loop threshold", times(retries.len()))).evidence(evidence).opportunity([failed.seq])
}

/// Exact small counts, buckets for large ones (real clients' storms vary from run to run).
fn count_bucket(n: usize) -> String {
    match n {
        0..=10 => n.to_string(),
        11..=100 => "11–100".into(),
        101..=1000 => "101–1000".into(),
        _ => "more than 1000".into(),
    }
}
