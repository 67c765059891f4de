//! The journal's note vocabulary: every note the server, the taps, the runner, the model stub and
//! the terminal driver write, named once. A note's detail is a JSON object whose `event` field is
//! the note's name; writers build it with [`Note::detail`], readers ask [`Note::of`] or
//! [`crate::observe::Observations::notes`], so no name is ever spelled twice.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::journal::{Event, EventKind};

macro_rules! notes {
    ($($variant:ident => $name:literal, $what:literal;)*) => {
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
    };
}

notes! {
    Serving => "serving", "the probe server started: its variant, era policy and (HTTP) whether it listens on loopback";
    SessionStarted => "session_started", "a legacy session began: the version requested and the one answered";
    SessionEnded => "session_ended", "the stdio session ended, and why";
    SessionFailed => "session_failed", "the stdio session could not be served";
    SessionExpired => "session_expired", "the HTTP tap expired a session (variant session-expires)";
    RefusedInitialize => "refused_initialize", "a modern-only server refused initialize";
    RefusedDiscover => "refused_discover", "a legacy-only server refused server/discover";
    Discover => "discover", "the client called server/discover";
    LogLevel => "log_level", "the client set the log level";
    InputResponse => "input_response", "a modern-era retry carried the answers to an input_required result";
    Listening => "listening", "a subscriptions/listen stream opened";
    ListenEnded => "listen_ended", "a subscriptions/listen stream ended, and by whom";
    Subscribed => "subscribed", "the client subscribed to a resource";
    SubscribeRefused => "subscribe_refused", "a subscription was refused (the capability is not advertised)";
    SubscribeFailed => "subscribe_failed", "a subscription failed on purpose (variant subscribe-fails)";
    Unsubscribed => "unsubscribed", "the client unsubscribed from a resource";
    InputError => "input_error", "reading the client's stdio failed";
    InputClosed => "input_closed", "the client closed stdio: the journal's evidence is complete";
    SdkRejectedFrame => "sdk_rejected_frame", "rmcp refused a frame the tap passed on";
    DuplicateRequestId => "duplicate_request_id", "a request reused the id of one still in flight, and was refused";
    InexactId => "inexact_id", "a request's id is a number the SDK cannot echo exactly (a fraction, or beyond 64 bits), and was refused";
    RepeatedInitialize => "repeated_initialize", "an initialize in a session already initialized: the opening answer again for the same version, refused for another";
    WithheldBeforeFirstRequest => "withheld_before_first_request", "a notification before the first request, kept from rmcp";
    AnsweredAsJson => "answered_as_json", "a request answered with an application/json body instead of an event stream (variant json-responses)";
    SseWithoutData => "sse_without_data", "an SSE event with an id and no data went out: a priming event";
    SsePrimingWithheld => "sse_priming_withheld", "a priming event withheld: the session's version predates them";
    SseIdOnly => "sse_id_only", "a priming event sent as its id alone (variant stream-drop, old session)";
    SseIncompleteEvent => "sse_incomplete_event", "an SSE stream ended in the middle of an event";
    CallPending => "call_pending", "a call that never answers (variant long-calls) was still pending, written every 5 s: the journal of a server killed with its client still shows how long the call waited";
    AnswerStreamClosed => "answer_stream_closed", "over HTTP, the SSE stream that was to carry a request's answer closed before the answer: the client went away from it (2026-07-28 HTTP cancels a request that way), or the server stopped";
    StreamDropped => "stream_dropped", "the HTTP tap ended a GET stream (variant stream-drop)";
    ClientExited => "client_exited", "the runner saw the client it launched (or drove) end: the run's end, timed on the server's clock (HTTP)";
    ModelInputs => "model_inputs", "what the runner's configuration told the host its model takes (text, image, audio), or that the host's configuration cannot say";
    Unattended => "unattended", "the runner launched the client headless: nobody sat at the host, so whatever answered a request for input was the host itself";
    FilesOnDisk => "files_on_disk", "the runner's list of what a host left in its skills directory and elsewhere";
    WireChecked => "wire_checked", "the runner's check of every frame the client sent against the official schema of the negotiated revision (written only when the run had the schemas)";
    ModelView => "model_view", "what a host showed the model stub in one request";
    ModelRequestUnparsable => "model_request_unparsable", "a request to the model stub that was not JSON";
    Screen => "screen", "the terminal driver's labelled copy of the screen";
    Keys => "keys", "what the terminal driver pressed, and why";
    PlanStopped => "plan_stopped", "the screen did not show what the person's plan expected";
    BrowserOpened => "browser_opened", "the host tried to open a URL (in the auth variants, with what the person who logs in did with it)";
    SignIn => "sign_in", "how the harness let a host sign in, in the auth variants: on a 401 by itself (the browser trap watched), with its login command, or no plan in its profile";
    AuthServing => "auth_serving", "the authorization server of an auth variant started: its issuer, the protected resource, and the resource its metadata names";
    AuthRequest => "auth_request", "a request reached the authorization server: endpoint, method, path, query, form or JSON body, user agent and Authorization header (every secret is fake)";
    AuthAnswer => "auth_answer", "the authorization server's answer to the auth_request of the same n: status, and the JSON body or the redirect's location";
    ResourceChecked => "resource_checked", "the protected resource's decision about one MCP request of an auth variant: the token it carried (absent, unknown, expired, other_audience, valid), a token in the query, and the status (401, 403, or 200 for passed on)";
    WellKnown => "well_known", "a request for a well-known document at the MCP server's origin (auth variants): its path and whether it was served";
    UrlFetched => "url_fetched", "a request reached the fetch trap behind the URL-mode elicitation's URL or a tool schema's remote $ref: the client fetched it itself";
}

/// In the `sign_in` note of an auth-cimd run: whether the host was handed a client ID metadata
/// document URL by its profile (a host may also know one of its own).
pub const CLIENT_METADATA_GIVEN: &str = "client_metadata_given";
impl Note {
    /// The note's detail: `fields` (an object; anything else is kept under `value`) with the
    /// note's name under `event`.
    pub fn detail(self, fields: Value) -> Value {
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

/// How a launched client's process ended, as the runner saw it: the `ending` of a
/// [`ClientExited`] note and of a record's launches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Ending {
    Exited {
        code: i32,
    },
    Signalled {
        signal: i32,
    },
    /// The runner stopped it at the run's bound.
    TimedOut,
    FailedToStart {
        error: String,
    },
}

/// Which launch of a run a [`ClientExited`] note is about: the n-th (from 0), or the host's
/// login before them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LaunchOf {
    Index(u64),
    Login(Login),
}

/// The word `login`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Login {
    Login,
}

/// How a sign-in worked in a terminal went, as its login's [`ClientExited`] note says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerminalLogin {
    /// Whether the screen said the host is signed in (or, without such a text, the command
    /// exited 0).
    pub signed_in: bool,
    /// The step the plan could not take, with what was missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The plan waited for a text the screen never showed while the host ran on without saying
    /// it failed.
    pub unmatched: bool,
    /// The screen when the login ended.
    pub screen: String,
    /// The host's exit code, when it exited by itself.
    pub exit_code: Option<u32>,
}

/// The `client_exited` note's payload: the runner saw a launch of the client end, and how. One
/// type for every writer (the reference runs, a client's launches, its login) and reader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientExited {
    pub launch: LaunchOf,
    pub ending: Ending,
    /// A login worked in a terminal: how it went.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<TerminalLogin>,
}

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

impl Payload for ClientExited {
    const NOTE: Note = Note::ClientExited;
}

/// The `unattended` note: the runner launched the client headless, so nobody sat at the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unattended {
    /// How many launches the run made.
    pub launches: u64,
}

impl Payload for Unattended {
    const NOTE: Note = Note::Unattended;
}

/// The `model_inputs` note: what the runner told the host its model takes (`text`, `image`,
/// `audio`), or nothing when the host's configuration cannot say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelInputs {
    pub declared: Option<Vec<String>>,
}

impl Payload for ModelInputs {
    const NOTE: Note = Note::ModelInputs;
}

/// The `files_on_disk` note of a skills run: what the host left in its skills directory
/// (relative to it) and the skill-like files it left elsewhere (absolute).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesOnDisk {
    pub skills_dir: String,
    pub in_skills_dir: Vec<String>,
    pub elsewhere: Vec<String>,
}

impl Payload for FilesOnDisk {
    const NOTE: Note = Note::FilesOnDisk;
}

/// The `answer_stream_closed` note: over HTTP, the stream that was to carry the answer to the
/// request `request_id` closed first (the client went away from it, or the server stopped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerStreamClosed {
    pub request_id: Value,
    /// Before even the answer's headers went out (the request was dropped in the SDK's hands).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub before_answer_began: bool,
}

impl Payload for AnswerStreamClosed {
    const NOTE: Note = Note::AnswerStreamClosed;
}

/// The `call_pending` note: the call that never answers (`request_id`) was still waiting, after
/// `waited_s` seconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallPending {
    pub request_id: Value,
    pub waited_s: u64,
}

impl Payload for CallPending {
    const NOTE: Note = Note::CallPending;
}

impl ClientExited {
    /// The launch numbered `index` ended so.
    pub fn launch(index: usize, ending: Ending) -> ClientExited {
        ClientExited { launch: LaunchOf::Index(index as u64), ending, terminal: None }
    }

    /// The host's login ended so.
    pub fn login(ending: Ending, terminal: Option<TerminalLogin>) -> ClientExited {
        ClientExited { launch: LaunchOf::Login(Login::Login), ending, terminal }
    }

    pub fn is_login(&self) -> bool {
        matches!(self.launch, LaunchOf::Login(_))
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
}
