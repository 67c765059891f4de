//! Events (the extension `io.modelcontextprotocol/events`, SEP-3415; variant events, 2026-07-28
//! sessions): whether a client lists the server's event types and follows each in the mode it
//! offers — polls that start from now, carry the cursor they were handed, drain a backlog at once,
//! wait the asked interval (and a floor when asked for none), keep a truncated page's fresh
//! cursor and send `null` for a type without replay; a push stream that falls silent taken for
//! dead and opened again from the last cursor; a webhook subscription refreshed before it
//! expires. Judged from the server's journal: the client's `events/*` requests, the answers and
//! push notifications the server sent, and their times. What the client declared is
//! `extensions["io.modelcontextprotocol/events"]` in its per-request capabilities; a client that
//! follows nothing is declared-only where it declared the extension, no where it did not.

use serde_json::Value;

use super::{probe, BOTH, MODERN, STDIO_ONLY};
use crate::events::{EXTENSION_ID, FOLLOWING, HOOKED, NEXT_POLL_MS, POLLED, PUSHED, SUBSCRIPTION_ID_KEY, UNREPLAYED, WEBHOOK_GRANT_MS};
use crate::observe::{Frame, Observations};
use crate::probe::{Declaration, Outcome, Verdict};

fn declared(o: &Observations) -> Declaration {
    Declaration::from_bool(o.declares(&["extensions", EXTENSION_ID]))
}

/// The server's answer that advertised the extension to the client (its `server/discover`
/// result naming it), if the client asked for one.
fn advertised(o: &Observations) -> Option<&Frame> {
    o.client_requests("server/discover")
        .filter_map(|discover| o.answer_to(discover))
        .find(|answer| answer.result().and_then(|r| r.pointer("/capabilities/extensions")).and_then(|e| e.get(EXTENSION_ID)).is_some())
}

/// No when the client followed nothing of the extension the server advertised to it
/// (declared-only where it declared the extension); not-reached when no advertisement reached it.
fn followed_nothing(o: &Observations, what: String) -> Verdict {
    let declared = declared(o);
    let Some(advertisement) = advertised(o) else {
        return Verdict::new(Outcome::NotReached, format!("{what}; no server/discover answer advertising the extension reached the client")).declared(declared);
    };
    let outcome = if declared == Declaration::Declared { Outcome::DeclaredOnly } else { Outcome::No };
    Verdict::new(outcome, format!("{what}, though the server advertised the extension")).declared(declared).evidence([advertisement.seq]).opportunity([advertisement.seq])
}

/// A poll and the answer the server gave it.
struct Poll<'a> {
    request: &'a Frame,
    answer: Option<&'a Frame>,
}

impl Poll<'_> {
    /// The cursor the poll carried: `None` for null or absent.
    fn cursor(&self) -> Option<&str> {
        self.request.params().get("cursor").and_then(Value::as_str)
    }

    /// Where the poll was answered: the answer, or the request where none came.
    fn at(&self) -> &Frame {
        self.answer.unwrap_or(self.request)
    }

    fn page(&self) -> Option<&Value> {
        self.answer?.result()
    }

    /// The cursor the answer handed: `None` for null, absent, or no result.
    fn handed(&self) -> Option<&str> {
        self.page()?.get("cursor")?.as_str()
    }

    fn flag(&self, key: &str) -> bool {
        self.page().and_then(|p| p.get(key)).and_then(Value::as_bool) == Some(true)
    }

    fn next_poll_ms(&self) -> Option<u64> {
        self.page()?.get("nextPollMs")?.as_u64()
    }
}

/// The client's requests of `method` naming the event type `name`.
fn naming<'a>(o: &'a Observations, method: &'a str, name: &'a str) -> impl Iterator<Item = &'a Frame> + 'a {
    o.client_requests(method).filter(move |f| f.params().get("name").and_then(Value::as_str) == Some(name))
}

/// The polls of `name`, in order.
fn polls<'a>(o: &'a Observations, name: &'a str) -> Vec<Poll<'a>> {
    naming(o, "events/poll", name).map(|request| Poll { request, answer: o.answer_to(request) }).collect()
}

/// Each answered poll with the poll that followed it, if one did.
fn steps<'a, 'b>(polls: &'b [Poll<'a>]) -> impl Iterator<Item = (&'b Poll<'a>, Option<&'b Poll<'a>>)> + 'b {
    polls.iter().enumerate().filter(|(_, p)| p.page().is_some()).map(|(i, p)| (p, polls.get(i + 1)))
}

fn ms(us: u64) -> u64 {
    us / 1000
}

/// The verdict when an answer was followed by no poll: no when the session went on at least
/// `room_ms` after it (the client had the time and did not poll), not-reached when it ended sooner.
fn no_poll_after(o: &Observations, answer: &Frame, room_ms: u64, what: &str) -> Verdict {
    let lasted = ms(o.ended_us().saturating_sub(answer.t_us));
    if lasted >= room_ms {
        Verdict::new(Outcome::No, format!("{what}, and no poll followed in the {lasted} ms the session went on"))
            .declared(declared(o))
            .evidence([answer.seq])
            .opportunity([answer.seq])
    } else {
        Verdict::new(Outcome::NotReached, format!("{what}; the session ended {lasted} ms later, before a poll was due")).declared(declared(o)).evidence([answer.seq])
    }
}

/// The client's requests that follow an event type, each with the mode it follows it in.
fn following(o: &Observations) -> Vec<(&Frame, &'static str)> {
    FOLLOWING.into_iter().flat_map(|(method, mode)| o.client_requests(method).map(move |f| (f, mode))).collect()
}

/// `judge(polls)` on the polls of `name`; no (or declared-only) when the client never polled it.
fn on_polls(o: &Observations, name: &str, judge: impl Fn(&[Poll]) -> Verdict) -> Verdict {
    let polls = polls(o, name);
    if polls.is_empty() {
        return followed_nothing(o, format!("never polled {name}"));
    }
    judge(&polls)
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[
    &Unadvertised,
    &Listed,
    &PolledFromNow,
    &CursorCarried,
    &BacklogDrained,
    &IntervalHonoured,
    &FloorApplied,
    &TruncatedCursorKept,
    &NullCursorKept,
    &ModeRespected,
    &ArgumentsSent,
    &PushResumed,
    &StaleStreamReleased,
    &WebhookRefreshed,
];

probe! {
    /// Evidence (server journal, the standard server, which offers no events): any `events/*`
    /// request is no (a client must not send them to a server that did not advertise the
    /// extension); none is yes.
    Unadvertised {
        id: "events.unadvertised_not_asked", area: Events, title: "no events/* request to a server that does not offer events",
        revisions: ["2026-07-28"], eras: BOTH, serves: "no events extension: events/* refused (-32601)",
        judge: judge_unadvertised,
    }
}

fn judge_unadvertised(o: &Observations) -> Verdict {
    super::none_asked(o, "events/* request", |f| super::method_in(f, "events/"), "a server that offers no events")
}

probe! {
    /// Evidence (server journal): an `events/list` to the server that advertised the extension:
    /// yes; none is no (declared-only where the client declared the extension).
    Listed {
        id: "events.listed", area: Events, title: "the event types are listed (events/list)",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "capabilities.extensions[\"io.modelcontextprotocol/events\"]; four event types",
        judge: judge_listed,
    }
}

fn judge_listed(o: &Observations) -> Verdict {
    match o.client_requests("events/list").next() {
        Some(listed) => Verdict::new(Outcome::Yes, "asked events/list").declared(declared(o)).evidence(std::iter::once(listed.seq).chain(o.answer_to(listed).map(|a| a.seq))),
        None => followed_nothing(o, "never asked events/list".into()),
    }
}

probe! {
    /// Evidence (server journal): the first `events/poll` of `probe.polled` carries no cursor
    /// (`null`, or none): it starts from now, as a new subscription must. A cursor the server
    /// never gave is no.
    PolledFromNow {
        id: "events.poll_starts_from_now", area: Events, title: "a poll subscription starts with a null cursor",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "probe.polled (poll)",
        judge: |o| on_polls(o, POLLED, |polls| {
            let first = &polls[0];
            match first.cursor() {
                None => Verdict::new(Outcome::Yes, "the first poll carried a null cursor").declared(declared(o)).evidence([first.request.seq]),
                Some(cursor) => Verdict::new(Outcome::No, format!("the first poll carried the cursor {cursor:?}, which the server never gave")).declared(declared(o)).evidence([first.request.seq]).opportunity([first.request.seq]),
            }
        }),
    }
}

probe! {
    /// Evidence (server journal): each poll of `probe.polled` after an answer that was not
    /// truncated carries the cursor that answer handed: yes; another cursor is no. No poll after
    /// the first answer is no when the session went on twice the asked interval, not-reached when
    /// it ended sooner.
    CursorCarried {
        id: "events.cursor_carried", area: Events, title: "each poll carries the cursor the last answer handed",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "probe.polled: each answer hands a new cursor",
        judge: |o| on_polls(o, POLLED, |polls| {
            let pairs: Vec<(&Poll, &Poll)> = steps(polls).filter(|(answered, _)| !answered.flag("truncated")).filter_map(|(a, next)| Some((a, next?))).collect();
            if pairs.is_empty() {
                let first = polls[0].at();
                return no_poll_after(o, first, 2 * NEXT_POLL_MS, "the first poll was answered");
            }
            let wrong: Vec<&(&Poll, &Poll)> = pairs.iter().filter(|(answered, next)| answered.handed().is_some() && next.cursor() != answered.handed()).collect();
            match wrong.first() {
                None => Verdict::new(Outcome::Yes, format!("{} polls each carried the cursor handed before", pairs.len())).declared(declared(o)).evidence([pairs[0].1.request.seq]),
                Some((answered, next)) => Verdict::new(Outcome::No, format!("handed {:?}, the next poll carried {:?}", answered.handed().unwrap_or_default(), next.cursor()))
                    .declared(declared(o))
                    .evidence([answered.at().seq, next.request.seq])
                    .opportunity([next.request.seq]),
            }
        }),
    }
}

probe! {
    /// Evidence (server journal): after the answer of `probe.polled` with `hasMore: true` (and a
    /// `nextPollMs` of ten minutes, which draining ignores), another poll: yes. None is no when
    /// the session went on 2 s after it, not-reached when it ended sooner or that answer was never
    /// reached.
    BacklogDrained {
        id: "events.backlog_drained", area: Events, title: "hasMore: the next poll comes at once, not after nextPollMs",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "probe.polled's second answer: hasMore true, nextPollMs 600000",
        judge: |o| on_polls(o, POLLED, |polls| {
            let Some((more, next)) = steps(polls).find(|(answered, _)| answered.flag("hasMore")) else {
                return Verdict::new(Outcome::NotReached, "no answer with hasMore: true: the client never polled with the first answer's cursor").declared(declared(o));
            };
            let answer = more.at();
            match next {
                Some(next) => Verdict::new(Outcome::Yes, format!("polled again {} ms after hasMore: true", ms(next.request.t_us.saturating_sub(answer.t_us)))).declared(declared(o)).evidence([answer.seq, next.request.seq]),
                None => no_poll_after(o, answer, 2_000, "hasMore: true was answered"),
            }
        }),
    }
}

/// A poll less than half the asked interval after the answer counts as too soon (timers are not
/// exact, and a busy machine only delays a poll).
fn too_soon(asked_ms: u64, waited_us: u64) -> bool {
    waited_us < asked_ms * 1000 / 2
}

probe! {
    /// Evidence (server journal): each answer of `probe.polled` with `hasMore: false` and a
    /// `nextPollMs` of 1 s or more, and the time to the poll after it: none less than half the
    /// interval is yes; one that soon is no. No such answer followed by a poll is not-reached.
    IntervalHonoured {
        id: "events.interval_honoured", area: Events, title: "polls wait the nextPollMs asked",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "probe.polled's quiet answers: nextPollMs 1000",
        judge: |o| on_polls(o, POLLED, |polls| {
            let waits: Vec<(&Frame, &Frame, u64, u64)> = steps(polls)
                .filter(|(answered, _)| !answered.flag("hasMore"))
                .filter_map(|(answered, next)| Some((answered.answer?, next?.request, answered.next_poll_ms().filter(|&asked| asked >= 1000)?)))
                .map(|(answer, next, asked)| (answer, next, asked, next.t_us.saturating_sub(answer.t_us)))
                .collect();
            let Some(&(first, first_next, _, _)) = waits.first() else {
                return Verdict::new(Outcome::NotReached, "no answer that asked for an interval was followed by a poll").declared(declared(o));
            };
            match waits.iter().find(|(_, _, asked, waited)| too_soon(*asked, *waited)) {
                None => Verdict::new(Outcome::Yes, format!("{} polls each waited at least half the nextPollMs asked", waits.len())).declared(declared(o)).evidence([first.seq, first_next.seq]),
                Some((answer, next, asked, waited)) => Verdict::new(Outcome::No, format!("asked to wait {asked} ms, polled after {} ms", ms(*waited)))
                    .declared(declared(o))
                    .evidence([answer.seq, next.seq])
                    .opportunity([answer.seq]),
            }
        }),
    }
}

/// The floor a client should keep between polls when a server asks for none (the SEP's default
/// is 1 s; half of it counts, as for an asked interval).
const FLOOR_MS: u64 = 1_000;

probe! {
    /// Evidence (server journal): the answer of `probe.polled` with `hasMore: false` and
    /// `nextPollMs: 0`, and the time to the poll after it: at least half the 1 s floor the SEP
    /// says clients apply is yes; sooner is no (a server could make it loop). Not followed by a
    /// poll: no when the session went on 2 s, not-reached when it ended sooner or that answer was
    /// never reached.
    FloorApplied {
        id: "events.poll_floor", area: Events, title: "nextPollMs: 0 still waits a floor",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "probe.polled's third answer: nextPollMs 0",
        judge: |o| on_polls(o, POLLED, |polls| {
            let Some((zero, next)) = steps(polls).find(|(answered, _)| !answered.flag("hasMore") && answered.next_poll_ms() == Some(0)) else {
                return Verdict::new(Outcome::NotReached, "no answer with nextPollMs: 0: the client never polled that far").declared(declared(o));
            };
            let answer = zero.at();
            let Some(next) = next else {
                return no_poll_after(o, answer, 2 * FLOOR_MS, "nextPollMs: 0 was answered");
            };
            let waited = next.request.t_us.saturating_sub(answer.t_us);
            let verdict = if too_soon(FLOOR_MS, waited) {
                Verdict::new(Outcome::No, format!("asked for no interval, polled again after {} ms", ms(waited))).opportunity([answer.seq])
            } else {
                Verdict::new(Outcome::Yes, format!("asked for no interval, waited {} ms", ms(waited)))
            };
            verdict.declared(declared(o)).evidence([answer.seq, next.request.seq])
        }),
    }
}

probe! {
    /// Evidence (server journal): the poll after the answer of `probe.polled` with `truncated:
    /// true` carries that answer's fresh cursor: yes; another (the old one, or none) is no. Not
    /// followed by a poll: as `events.poll_floor`.
    TruncatedCursorKept {
        id: "events.truncated_cursor_kept", area: Events, title: "after a truncated page, its fresh cursor is kept",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "probe.polled's third answer: truncated true, a fresh cursor",
        judge: |o| on_polls(o, POLLED, |polls| {
            let Some((truncated, next)) = steps(polls).find(|(answered, _)| answered.flag("truncated")) else {
                return Verdict::new(Outcome::NotReached, "no truncated answer: the client never polled that far").declared(declared(o));
            };
            let answer = truncated.at();
            let Some(next) = next else {
                return no_poll_after(o, answer, 2 * FLOOR_MS, "a truncated page was answered");
            };
            let fresh = truncated.handed();
            if next.cursor() == fresh {
                Verdict::new(Outcome::Yes, format!("polled on from the fresh cursor {:?}", fresh.unwrap_or_default())).declared(declared(o)).evidence([answer.seq, next.request.seq])
            } else {
                Verdict::new(Outcome::No, format!("handed the fresh cursor {fresh:?}, polled on with {:?}", next.cursor())).declared(declared(o)).evidence([answer.seq, next.request.seq]).opportunity([answer.seq])
            }
        }),
    }
}

probe! {
    /// Evidence (server journal): `probe.unreplayed` has no replay, and every answer's cursor is
    /// `null`: every later poll of it carries `null` (or none): yes; a cursor is no. One poll
    /// only: as `events.cursor_carried`.
    NullCursorKept {
        id: "events.null_cursor_kept", area: Events, title: "a type without replay is polled with a null cursor",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "probe.unreplayed (poll): every cursor null",
        judge: |o| on_polls(o, UNREPLAYED, |polls| {
            let later = &polls[1..];
            if later.is_empty() {
                let first = polls[0].at();
                return no_poll_after(o, first, 2 * NEXT_POLL_MS, "the first poll was answered with a null cursor");
            }
            match later.iter().find(|p| p.cursor().is_some()) {
                None => Verdict::new(Outcome::Yes, format!("{} later polls carried a null cursor", later.len())).declared(declared(o)).evidence([later[0].request.seq]),
                Some(p) => Verdict::new(Outcome::No, format!("handed only null cursors, polled with {:?}", p.cursor().unwrap_or_default())).declared(declared(o)).evidence([p.request.seq]).opportunity([p.request.seq]),
            }
        }),
    }
}

probe! {
    /// Evidence (server journal): the client's `events/poll`, `events/stream` and
    /// `events/subscribe`, each naming an event type that offers one mode only: every one in the
    /// mode its type offers is yes; one in another mode is no. None at all is no (declared-only
    /// where the client declared the extension).
    ModeRespected {
        id: "events.delivery_mode_respected", area: Events, title: "each event type is followed only in a mode it offers",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "probe.polled and probe.unreplayed by poll, probe.pushed by push, probe.hooked by webhook",
        judge: judge_mode_respected,
    }
}

fn judge_mode_respected(o: &Observations) -> Verdict {
    let asked = following(o);
    if asked.is_empty() {
        return followed_nothing(o, "followed no event type".into());
    }
    let crossed = asked.iter().find(|(f, mode)| f.params().get("name").and_then(Value::as_str).and_then(crate::events::delivery_of) != Some(*mode));
    match crossed {
        None => Verdict::new(Outcome::Yes, format!("{} requests, each in its type's mode", asked.len())).declared(declared(o)).evidence([asked[0].0.seq]),
        Some((f, mode)) => {
            let name = f.params().get("name").and_then(Value::as_str).unwrap_or_default();
            let offered = crate::events::delivery_of(name).unwrap_or("no mode: no such type");
            Verdict::new(Outcome::No, format!("followed {name:?} by {mode}; it offers {offered}")).declared(declared(o)).evidence([f.seq]).opportunity([f.seq])
        }
    }
}

probe! {
    /// Evidence: every `events/poll`, `events/stream` and `events/subscribe` carries the
    /// subscription's `arguments` as an object (`{}` where it narrows nothing): yes; one without
    /// them, or with something else, is no. None at all: as `events.delivery_mode_respected`.
    ArgumentsSent {
        id: "events.arguments_sent", area: Events, title: "each subscription request carries its arguments object",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "event types whose inputSchema is an object with one optional property",
        judge: judge_arguments_sent,
    }
}

fn judge_arguments_sent(o: &Observations) -> Verdict {
    let asked: Vec<&Frame> = following(o).into_iter().map(|(f, _)| f).collect();
    if asked.is_empty() {
        return followed_nothing(o, "followed no event type".into());
    }
    match asked.iter().find(|f| !f.params().get("arguments").is_some_and(Value::is_object)) {
        None => Verdict::new(Outcome::Yes, format!("{} requests, each with an arguments object", asked.len())).declared(declared(o)).evidence([asked[0].seq]),
        Some(f) => Verdict::new(
            Outcome::No,
            format!("{} of {:?} without an arguments object", f.method().unwrap_or_default(), f.params().get("name").and_then(Value::as_str).unwrap_or_default()),
        )
        .declared(declared(o))
        .evidence([f.seq])
        .opportunity([f.seq]),
    }
}

/// The silence after which a client that expects the SEP's slowest heartbeat (every 30 s) takes
/// a stream for dead: twice that.
const DEAD_AFTER_MS: u64 = 60_000;

/// The push notifications the server sent on the stream opened by `stream`, in order.
fn pushed_on<'a>(o: &'a Observations, stream: &'a Frame) -> Vec<&'a Frame> {
    let id = stream.id();
    let mut pushed: Vec<&Frame> = ["notifications/events/active", "notifications/events/event", "notifications/events/heartbeat"]
        .iter()
        .flat_map(|m| o.server_notifications(m))
        .filter(|n| n.params().pointer("/_meta").and_then(|m| m.get(SUBSCRIPTION_ID_KEY)) == id && o.same_session(stream.seq, n.seq))
        .collect();
    pushed.sort_by_key(|f| f.seq);
    pushed
}

probe! {
    /// Evidence (server journal): the `events/stream` of `probe.pushed`, the event and heartbeats
    /// the server sent on it (each with a cursor) before it fell silent, and a second
    /// `events/stream` of the type: from the last cursor sent is yes; from another is no. None:
    /// no when the session went on 60 s past the last heartbeat (twice the slowest heartbeat the
    /// SEP allows), not-reached when it ended sooner.
    PushResumed {
        id: "events.push_resumed", area: Events, title: "a push stream that falls silent is opened again from its last cursor",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "probe.pushed (push): an event and 3 heartbeats 500 ms apart, then silence",
        judge: judge_push_resumed,
    }
}

fn judge_push_resumed(o: &Observations) -> Verdict {
    let streams: Vec<&Frame> = naming(o, "events/stream", PUSHED).collect();
    let Some(first) = streams.first() else {
        return followed_nothing(o, format!("never opened a stream of {PUSHED}"));
    };
    let pushed = pushed_on(o, first);
    let Some(last) = pushed.last() else {
        return Verdict::new(Outcome::NotReached, "the server sent nothing on the stream").declared(declared(o)).evidence([first.seq]);
    };
    let last_cursor = last.params().get("cursor").and_then(Value::as_str);
    match streams.get(1) {
        Some(again) => {
            let cursor = again.params().get("cursor").and_then(Value::as_str);
            let waited = ms(again.t_us.saturating_sub(last.t_us));
            if cursor == last_cursor {
                Verdict::new(Outcome::Yes, format!("opened again {waited} ms after the last heartbeat, from its cursor {:?}", cursor.unwrap_or_default()))
                    .declared(declared(o))
                    .evidence([last.seq, again.seq])
            } else {
                Verdict::new(Outcome::No, format!("opened again from {cursor:?}, not from the last cursor sent, {last_cursor:?}"))
                    .declared(declared(o))
                    .evidence([last.seq, again.seq])
                    .opportunity([last.seq])
            }
        }
        None => {
            let lasted = ms(o.ended_us().saturating_sub(last.t_us));
            let verdict = if lasted >= DEAD_AFTER_MS {
                Verdict::new(Outcome::No, format!("the stream was silent for the {lasted} ms the session went on, and was not opened again")).opportunity([last.seq])
            } else {
                Verdict::new(Outcome::NotReached, format!("the session ended {lasted} ms after the stream fell silent, before a client must take it for dead"))
            };
            verdict.declared(declared(o)).evidence([last.seq])
        }
    }
}

probe! {
    /// Evidence (server journal, stdio): a client that opened a second `events/stream` of
    /// `probe.pushed` released the first with a `notifications/cancelled` naming its request id:
    /// yes; left open (the server keeps a dead subscription) is no. No second stream is
    /// not-reached. Over HTTP a client releases a stream by closing it, which a server sees only
    /// when it next writes there, and this one writes nothing more on a silent stream: n/a.
    StaleStreamReleased {
        id: "events.stale_stream_released", area: Events, title: "a push stream given up on is cancelled",
        revisions: ["2026-07-28"], eras: MODERN, transports: STDIO_ONLY, variant: Events, serves: "probe.pushed (push): a stream that falls silent and stays open",
        judge: judge_stale_stream_released,
    }
}

fn judge_stale_stream_released(o: &Observations) -> Verdict {
    let streams: Vec<&Frame> = naming(o, "events/stream", PUSHED).collect();
    let (Some(first), Some(second)) = (streams.first(), streams.get(1)) else {
        return Verdict::new(Outcome::NotReached, format!("no second stream of {PUSHED}: none was given up on")).declared(declared(o));
    };
    let id = first.id();
    let cancelled = o.client_notifications("notifications/cancelled").find(|n| n.params().get("requestId") == id).map(|n| n.seq);
    match cancelled {
        Some(released) => Verdict::new(Outcome::Yes, "cancelled the stream it replaced").declared(declared(o)).evidence([first.seq, released]),
        None => {
            Verdict::new(Outcome::No, "opened a new stream and left the one it replaced open").declared(declared(o)).evidence([first.seq, second.seq]).opportunity([second.seq])
        }
    }
}

probe! {
    /// Evidence (server journal): the `events/subscribe` of `probe.hooked` (answered with a
    /// `refreshBefore` 3 s away, shorter than asked) and another one with the same name,
    /// arguments and callback URL before those 3 s are out: yes; one later, or none while the
    /// session went on past them, is no; the session ending sooner is not-reached.
    WebhookRefreshed {
        id: "events.webhook_refreshed", area: Events, title: "a webhook subscription is refreshed before refreshBefore",
        revisions: ["2026-07-28"], eras: MODERN, variant: Events, serves: "probe.hooked (webhook): granted 3 s",
        judge: judge_webhook_refreshed,
    }
}

fn judge_webhook_refreshed(o: &Observations) -> Verdict {
    let subscribes: Vec<&Frame> = naming(o, "events/subscribe", HOOKED).collect();
    let Some((first, granted)) = subscribes.iter().find_map(|s| Some((*s, o.answer_to(s).filter(|a| a.result().and_then(|r| r.get("refreshBefore")).is_some())?))) else {
        return match subscribes.first() {
            Some(refused) => Verdict::new(Outcome::No, "its events/subscribe was refused").declared(declared(o)).evidence([refused.seq]).opportunity([refused.seq]),
            None => followed_nothing(o, format!("never subscribed to {HOOKED}")),
        };
    };
    let key = crate::events::subscription_key(first.params());
    let refresh = subscribes.iter().find(|s| s.seq > granted.seq && crate::events::subscription_key(s.params()) == key);
    let grant_us = WEBHOOK_GRANT_MS * 1000;
    match refresh {
        Some(again) if again.t_us.saturating_sub(granted.t_us) <= grant_us => {
            Verdict::new(Outcome::Yes, format!("refreshed {} ms into a {WEBHOOK_GRANT_MS} ms grant", ms(again.t_us - granted.t_us)))
                .declared(declared(o))
                .evidence([granted.seq, again.seq])
        }
        Some(again) => Verdict::new(Outcome::No, format!("refreshed {} ms after a {WEBHOOK_GRANT_MS} ms grant: it had expired", ms(again.t_us - granted.t_us)))
            .declared(declared(o))
            .evidence([granted.seq, again.seq])
            .opportunity([granted.seq]),
        None if ms(o.ended_us().saturating_sub(granted.t_us)) > WEBHOOK_GRANT_MS => {
            Verdict::new(Outcome::No, format!("never refreshed; the session outlived the {WEBHOOK_GRANT_MS} ms grant"))
                .declared(declared(o))
                .evidence([granted.seq])
                .opportunity([granted.seq])
        }
        None => Verdict::new(Outcome::NotReached, format!("the session ended before the {WEBHOOK_GRANT_MS} ms grant ran out")).declared(declared(o)).evidence([granted.seq]),
    }
}
