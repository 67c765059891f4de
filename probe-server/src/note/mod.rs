//! The journal's note vocabulary: every note the server, the taps, the runner, the model stub and
//! the terminal driver write, named once. A note's detail is a JSON object whose `event` field is
//! the note's name. Every note has a payload type of its own (`payloads`), which refuses a field it
//! does not know: writers build it and call [`Payload::detail`]; readers ask [`Payload::of`],
//! [`AnyNote`] or [`crate::observe::Observations::payloads`], so no name or field is ever spelled
//! twice.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::journal::{Event, EventKind};

mod payloads;
pub use payloads::*;

/// A note whose payload has a type of its own: written through it ([`Payload::detail`]) and read
/// back through it ([`Payload::of`]), never by field name. A payload with a field its type does
/// not know does not read.
pub trait Payload: Serialize + DeserializeOwned {
    const NOTE: Note;

    /// The note's detail, with its `event` name.
    fn detail(&self) -> Value {
        Self::NOTE.detail(serde_json::to_value(self).unwrap_or_default())
    }

    /// The payload of an event that is this note; an error for one that does not read as it.
    fn of(event: &Event) -> Option<Result<Self, serde_json::Error>> {
        if Note::of(event) != Some(Self::NOTE) {
            return None;
        }
        let mut detail = event.detail.clone()?;
        detail.as_object_mut()?.remove("event");
        Some(serde_json::from_value(detail))
    }
}

macro_rules! notes {
    ($($variant:ident($payload:ty) => $name:literal, $what:literal;)*) => {
        /// A note a journal can carry.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Note { $(#[doc = $what] $variant),* }

        impl Note {
            pub const ALL: &'static [Note] = &[$(Note::$variant),*];

            /// The name written in the detail's `event` field.
            pub fn name(self) -> &'static str {
                match self { $(Note::$variant => $name),* }
            }

            /// What the note records, in plain words.
            pub fn description(self) -> &'static str {
                match self { $(Note::$variant => $what),* }
            }
        }

        /// Any note's payload, tagged by its name under `event`: what a journal line's detail
        /// reads as when it is a note of the vocabulary.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "event")]
        pub enum AnyNote { $(#[serde(rename = $name)] $variant($payload)),* }

        impl AnyNote {
            /// Which note this is.
            pub fn note(&self) -> Note {
                match self { $(AnyNote::$variant(_) => Note::$variant),* }
            }
        }

        $(impl Payload for $payload { const NOTE: Note = Note::$variant; })*
    };
}

notes! {
    Serving(Serving) => "serving", "the probe server started: its variant, era policy and (HTTP) whether it listens on loopback";
    SessionStarted(SessionStarted) => "session_started", "a legacy session began: the version requested and the one answered";
    SessionEnded(SessionEnded) => "session_ended", "the stdio session ended, and why";
    SessionFailed(SessionFailed) => "session_failed", "the stdio session could not be served";
    SessionExpired(SessionExpired) => "session_expired", "the HTTP tap expired a session (variant session-expires)";
    RefusedInitialize(RefusedInitialize) => "refused_initialize", "a modern-only server refused initialize";
    RefusedDiscover(RefusedDiscover) => "refused_discover", "a legacy-only server refused server/discover";
    Discover(Discover) => "discover", "the client called server/discover";
    LogLevel(LogLevel) => "log_level", "the client set the log level";
    InputResponse(InputResponse) => "input_response", "a modern-era retry carried the answers to an input_required result";
    Listening(Listening) => "listening", "a subscriptions/listen stream opened";
    ListenEnded(ListenEnded) => "listen_ended", "a subscriptions/listen stream ended, and by whom";
    Subscribed(Subscribed) => "subscribed", "the client subscribed to a resource";
    SubscribeRefused(SubscribeRefused) => "subscribe_refused", "a subscription was refused (the capability is not advertised)";
    SubscribeFailed(SubscribeFailed) => "subscribe_failed", "a subscription failed on purpose (variant subscribe-fails)";
    Unsubscribed(Unsubscribed) => "unsubscribed", "the client unsubscribed from a resource";
    InputError(InputError) => "input_error", "reading the client's stdio failed";
    InputClosed(InputClosed) => "input_closed", "the client closed stdio: the journal's evidence is complete";
    SdkRejectedFrame(SdkRejectedFrame) => "sdk_rejected_frame", "rmcp refused a frame the tap passed on";
    DuplicateRequestId(DuplicateRequestId) => "duplicate_request_id", "a request reused the id of one still in flight, and was refused";
    InexactId(InexactId) => "inexact_id", "a request's id is a number the SDK cannot echo exactly (a fraction, or beyond 64 bits), and was refused";
    RepeatedInitialize(RepeatedInitialize) => "repeated_initialize", "an initialize in a session already initialized: the opening answer again for the same version, refused for another";
    WithheldBeforeFirstRequest(WithheldBeforeFirstRequest) => "withheld_before_first_request", "a notification before the first request, kept from rmcp";
    AnsweredAsJson(AnsweredAsJson) => "answered_as_json", "a request answered with an application/json body instead of an event stream (variant json-responses)";
    SseWithoutData(SseWithoutData) => "sse_without_data", "an SSE event with an id and no data went out: a priming event";
    SsePrimingWithheld(SsePrimingWithheld) => "sse_priming_withheld", "a priming event withheld: the session's version predates them";
    SseIdOnly(SseIdOnly) => "sse_id_only", "a priming event sent as its id alone (variant stream-drop, old session)";
    SseIncompleteEvent(SseIncompleteEvent) => "sse_incomplete_event", "an SSE stream ended in the middle of an event";
    CallPending(CallPending) => "call_pending", "a call that never answers (variant long-calls) was still pending, written every 5 s: the journal of a server killed with its client still shows how long the call waited";
    AnswerStreamClosed(AnswerStreamClosed) => "answer_stream_closed", "over HTTP, the SSE stream that was to carry a request's answer closed before the answer: the client went away from it (2026-07-28 HTTP cancels a request that way), or the server stopped";
    StreamDropped(StreamDropped) => "stream_dropped", "the HTTP tap ended a GET stream (variant stream-drop)";
    ClientExited(ClientExited) => "client_exited", "the runner saw the client it launched (or drove) end: the run's end, timed on the server's clock (HTTP)";
    ModelInputs(ModelInputs) => "model_inputs", "what the runner's configuration told the host its model takes (text, image, audio), or that the host's configuration cannot say";
    Unattended(Unattended) => "unattended", "the runner launched the client headless: nobody sat at the host, so whatever answered a request for input was the host itself";
    FilesOnDisk(FilesOnDisk) => "files_on_disk", "the runner's list of what a host left in its skills directory and elsewhere";
    WireChecked(WireCheck) => "wire_checked", "the runner's check of every frame the client sent against the official schema of the negotiated revision (written only when the run had the schemas)";
    ModelView(ModelView) => "model_view", "what a host showed the model stub in one request";
    ModelRequestUnparsable(ModelRequestUnparsable) => "model_request_unparsable", "a request to the model stub that was not JSON";
    Screen(Screen) => "screen", "the terminal driver's labelled copy of the screen";
    Keys(Keys) => "keys", "what the terminal driver pressed, and why";
    PlanStopped(PlanStopped) => "plan_stopped", "the screen did not show what the person's plan expected";
    BrowserOpened(BrowserOpened) => "browser_opened", "the host tried to open a URL (in the auth variants, with what the person who logs in did with it)";
    SignIn(SignIn) => "sign_in", "how the harness let a host sign in, in the auth variants: on a 401 by itself (the browser trap watched), with its login command, or no plan in its profile";
    AuthServing(AuthServing) => "auth_serving", "the authorization server of an auth variant started: its issuer, the protected resource, and the resource its metadata names";
    AuthRequest(AuthRequest) => "auth_request", "a request reached the authorization server: endpoint, method, path, query, form or JSON body, user agent and Authorization header (every secret is fake)";
    AuthAnswer(AuthAnswer) => "auth_answer", "the authorization server's answer to the auth_request of the same n: status, and the JSON body or the redirect's location";
    ResourceChecked(ResourceChecked) => "resource_checked", "the protected resource's decision about one MCP request of an auth variant: the token it carried (absent, unknown, expired, other_audience, valid), a token in the query, and the status (401, 403, or 200 for passed on)";
    WellKnown(WellKnown) => "well_known", "a request for a well-known document at the MCP server's origin (auth variants): its path and whether it was served";
    UrlFetched(UrlFetched) => "url_fetched", "a request reached the fetch trap behind the URL-mode elicitation's URL or a tool schema's remote $ref: the client fetched it itself";
}

impl Note {
    /// The note's detail: `fields` (an object; anything else is kept under `value`) with the
    /// note's name under `event`. Only a [`Payload`] builds one.
    fn detail(self, fields: Value) -> Value {
        let mut map = match fields {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => Map::from_iter([("value".to_string(), other)]),
        };
        map.insert("event".into(), Value::from(self.name()));
        Value::Object(map)
    }

    /// The note a journal event is, if it is one of the vocabulary.
    pub fn of(event: &Event) -> Option<Note> {
        if event.kind != EventKind::Note {
            return None;
        }
        Note::named(event.detail.as_ref()?.get("event")?.as_str()?)
    }

    /// The note of this detail's `event` name.
    pub fn of_detail(detail: &Value) -> Option<Note> {
        Note::named(detail.get("event")?.as_str()?)
    }

    pub fn named(name: &str) -> Option<Note> {
        Note::ALL.iter().copied().find(|n| n.name() == name)
    }
}

/// Placing a note on a journal's own clock, which its `serving` note starts.
impl crate::journal::JournalRead {
    /// The wall-clock time of this journal's zero, as its server's first `serving` note says
    /// (journals written before servers said it have none).
    pub fn zero_unix_us(&self) -> Option<u64> {
        self.events.iter().find_map(|e| Serving::of(e)?.ok()?.clock_zero_unix_us)
    }

    /// Inserts a note at `unix_us` on this journal's clock (after every event of the same time
    /// or earlier), renumbering what follows; without a known zero, after the last event.
    pub fn insert_note_at_unix(&mut self, unix_us: u64, session: &str, transport: crate::journal::Transport, detail: Value) {
        let Some(zero) = self.zero_unix_us() else {
            return self.push_note(session, transport, detail);
        };
        let t_us = unix_us.saturating_sub(zero);
        let at = self.events.partition_point(|e| e.t_us <= t_us);
        let seq = self.events.get(at).map_or_else(|| self.events.last().map_or(1, |e| e.seq + 1), |e| e.seq);
        self.events.insert(at, crate::journal::Event::note_at(seq, t_us, session, transport, detail));
        for event in &mut self.events[at + 1..] {
            event.seq += 1;
        }
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut names: Vec<&str> = Note::ALL.iter().map(|n| n.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Note::ALL.len());
        for note in Note::ALL {
            assert_eq!(Note::named(note.name()), Some(*note));
            assert_eq!(Note::of_detail(&note.detail(json!({"x": 1}))), Some(*note));
        }
        assert_eq!(Note::named("no_such_note"), None);
    }

    fn note_event(detail: Value) -> Event {
        let mut event: Event =
            serde_json::from_value(json!({"format_version": 1, "seq": 1, "t_us": 0, "session": "-", "transport": "stdio", "dir": "note", "kind": "note"})).unwrap();
        event.detail = Some(detail);
        event
    }

    #[test]
    fn the_runners_notes_read_back_typed() {
        let files = FilesOnDisk { skills_dir: "/h/skills".into(), in_skills_dir: vec!["a/SKILL.md".into()], elsewhere: Vec::new() };
        assert_eq!(FilesOnDisk::of(&note_event(files.detail())).unwrap().unwrap(), files);
        let inputs = ModelInputs { declared: Some(vec!["text".into()]) };
        assert_eq!(ModelInputs::of(&note_event(inputs.detail())).unwrap().unwrap(), inputs);
        // A profile that declares nothing, as journals have carried it.
        assert_eq!(ModelInputs::of(&note_event(json!({"event": "model_inputs", "declared": null}))).unwrap().unwrap().declared, None);
        assert_eq!(Unattended::of(&note_event(Unattended { launches: 2 }.detail())).unwrap().unwrap().launches, 2);
        assert!(Unattended::of(&note_event(json!({"event": "unattended", "launches": 1, "who": "x"}))).unwrap().is_err());
    }

    #[test]
    fn a_client_exited_note_reads_back_typed_and_one_with_an_unknown_field_does_not() {
        let login = ClientExited::login(
            Ending::Signalled { signal: 15 },
            Some(TerminalLogin { signed_in: false, stopped: Some("step 2".into()), unmatched: true, screen: "x".into(), exit_code: None }),
        );
        for written in [ClientExited::launch(2, Ending::TimedOut), login] {
            let detail = written.detail();
            assert_eq!(detail["event"], "client_exited");
            assert_eq!(ClientExited::of(&note_event(detail)).unwrap().unwrap(), written);
        }
        // As journals have always carried them.
        let old = json!({"event": "client_exited", "launch": "login", "ending": {"kind": "exited", "code": 0}});
        assert!(ClientExited::of(&note_event(old)).unwrap().unwrap().is_login());
        let unknown = json!({"event": "client_exited", "launch": 0, "ending": {"kind": "timed_out"}, "swept": 3});
        assert!(ClientExited::of(&note_event(unknown)).unwrap().is_err());
        assert!(ClientExited::of(&note_event(json!({"event": "input_closed"}))).is_none());
    }

    #[test]
    fn the_detail_keeps_its_fields() {
        assert_eq!(Note::LogLevel.detail(json!({"level": "debug"})), serde_json::from_str::<Value>(r#"{"event": "log_level", "level": "debug"}"#).unwrap());
        assert_eq!(Note::Discover.detail(Value::Null), serde_json::from_str::<Value>(r#"{"event": "discover"}"#).unwrap());
    }

    #[test]
    fn a_note_timed_by_the_wall_clock_lands_where_it_happened_on_the_journal_clock() {
        let events = |t: &[u64]| -> Vec<Event> {
            t.iter().enumerate().map(|(i, t)| crate::journal::Event::note_at(i as u64 + 1, *t, "s", crate::journal::Transport::Stdio, json!({"event": "x"}))).collect()
        };
        let mut read = crate::journal::JournalRead { events: events(&[0, 1_000, 5_000, 9_000]), truncated_tail: false };
        read.events[0].detail = Some(json!({"event": "serving", "era_policy": "dual", "clock_zero_unix_us": 1_000_000}));
        assert_eq!(read.zero_unix_us(), Some(1_000_000));
        read.insert_note_at_unix(1_006_000, "s", crate::journal::Transport::Stdio, json!({"event": "client_exited"}));
        let at: Vec<(u64, u64)> = read.events.iter().map(|e| (e.seq, e.t_us)).collect();
        assert_eq!(at, vec![(1, 0), (2, 1_000), (3, 5_000), (4, 6_000), (5, 9_000)]);
        assert_eq!(read.events[3].detail.as_ref().unwrap()["event"], "client_exited");
        // Without a zero (a journal older than the field) the note follows the last event.
        let mut old = crate::journal::JournalRead { events: events(&[0, 7_000]), truncated_tail: false };
        old.insert_note_at_unix(1_006_000, "s", crate::journal::Transport::Stdio, json!({"event": "client_exited"}));
        assert_eq!(old.events.last().map(|e| (e.seq, e.t_us)), Some((3, 7_000)));
    }
}
