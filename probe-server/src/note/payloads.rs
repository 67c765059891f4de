//! The payload of every note: one type per note, each refusing a field it does not know. Writers
//! build the type and call [`Payload::detail`](super::Payload::detail); readers ask
//! [`Payload::of`](super::Payload::of) or [`Observations::payloads`](crate::observe::Observations::payloads).
//! Fields that journals written before a field existed lack are optional here, so every committed
//! journal still reads.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// The `unattended` note: the runner launched the client headless, so nobody sat at the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unattended {
    /// How many launches the run made.
    pub launches: u64,
}

/// The `model_inputs` note: what the runner told the host its model takes (`text`, `image`,
/// `audio`), or nothing when the host's configuration cannot say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelInputs {
    pub declared: Option<Vec<String>>,
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

/// The `call_pending` note: the call that never answers (`request_id`) was still waiting, after
/// `waited_s` seconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallPending {
    pub request_id: Value,
    pub waited_s: u64,
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

/// The `serving` note, the first of every journal: which server variant served, under which era
/// policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Serving {
    /// The variant's name (`scenario` in journals written before variants had one name; absent in
    /// the oldest).
    #[serde(default, alias = "scenario", skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub era_policy: crate::era::EraPolicy,
    /// HTTP: whether the server listens on loopback only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loopback: Option<bool>,
    /// The long-calls variant over HTTP: whether the tap sees a client close a connection while a
    /// request is pending (journals before it could not tell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_connections_seen: Option<bool>,
    /// Where the journal's clock starts (microseconds since the Unix epoch), for notes the runner
    /// places on it afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_zero_unix_us: Option<u64>,
}

/// The `session_started` note: a legacy session began.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionStarted {
    pub era: String,
    pub requested: String,
    pub negotiated: String,
}

/// The `session_ended` note: the stdio session ended, and why (rmcp's words).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionEnded {
    pub reason: String,
}

/// The `session_expired` note: the HTTP tap expired this session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionExpired {
    pub session: String,
}

/// The `refused_initialize` note: a modern-only server refused an initialize asking for this
/// version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RefusedInitialize {
    pub requested: String,
}

/// The `refused_discover` note: how a legacy-only server refused `server/discover`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RefusedDiscover {
    /// The JSON-RPC error code; null when the refusal was no JSON-RPC error.
    pub code: Option<i64>,
    /// The request was left unanswered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unanswered: bool,
    /// The HTTP status of a refusal without a JSON-RPC error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
}

/// The `discover` note: the client called `server/discover`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Discover {}

/// The `log_level` note: the level the client set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogLevel {
    pub level: String,
}

/// The `input_response` note: a retry carried the answers to an `input_required` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputResponse {
    pub tool: String,
    pub request_state: Option<String>,
    /// Which of the two inputs were answered (the two-inputs tool only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
}

/// The `listening` note: a `subscriptions/listen` stream opened for these notifications.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Listening {
    /// What the server accepted to send on it, as it went on the wire.
    pub accepted: Value,
}

/// Who ended a `subscriptions/listen` stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EndedBy {
    #[serde(rename = "client")]
    Client,
    #[serde(rename = "client gone")]
    ClientGone,
    #[serde(rename = "server")]
    Server,
}

/// The `listen_ended` note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListenEnded {
    pub by: EndedBy,
}

/// The `input_closed` note: the client closed stdio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputClosed {
    /// At a line's end (false: in the middle of a frame).
    pub clean: bool,
    /// The bytes of the unfinished frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_bytes: Option<u64>,
}

/// The `repeated_initialize` note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepeatedInitialize {
    pub id: Value,
    /// The version the repeated initialize asked for (null when it named none).
    pub version: Value,
    /// Answered as the first was (same version), rather than refused.
    #[serde(default)]
    pub answered_again: bool,
    /// Refused because the first was not answered yet.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_flight: bool,
}

/// The `withheld_before_first_request` note: a notification kept from rmcp.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WithheldBeforeFirstRequest {
    pub method: String,
}

/// The `sse_without_data` note: a priming event went out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SseWithoutData {
    pub sse_id: Option<String>,
    pub retry: Option<String>,
}

/// The `sse_priming_withheld` note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SsePrimingWithheld {
    pub sse_id: Option<String>,
    pub negotiated: String,
}

/// The `sse_id_only` note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SseIdOnly {
    pub sse_id: Option<String>,
    pub retry: Option<String>,
    pub negotiated: String,
}

/// The `sse_incomplete_event` note: the bytes left of an unfinished event, and their start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SseIncompleteEvent {
    pub bytes: u64,
    pub head: String,
}

/// The `stream_dropped` note: the id of the last event sent before the tap ended the stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamDropped {
    pub last_sse_id: Option<String>,
}

/// The `model_view` note: what a host showed the model stub in one request. The tools and results
/// keep the shape the stub gives every dialect (see the stub's view module); fields later journals
/// gained are optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelView {
    pub dialect: String,
    pub tools: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred: Option<Vec<Value>>,
    pub tool_results: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_marks: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payloads: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_forms: Option<Value>,
    pub mentions: Value,
    #[serde(default)]
    pub max_tokens: Option<u64>,
}

/// The `model_request_unparsable` note: the path of a request to the model stub that was not JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelRequestUnparsable {
    pub path: String,
}

/// The `screen` note: the terminal driver's labelled copy of the screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Screen {
    pub label: String,
    pub text: String,
}

/// The `keys` note: what the terminal driver pressed (named keys, or text typed), and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keys {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub why: String,
}

/// The `plan_stopped` note: why the person's plan stopped, with the screen then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanStopped {
    pub reason: String,
    pub screen: String,
}

/// What the person who logs in did with a URL the host opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersonFollowed {
    pub followed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback_status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The `browser_opened` note: the opener's arguments, and (auth variants) what the person did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrowserOpened {
    pub arguments: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<PersonFollowed>,
}

/// The `sign_in` note: how the harness let the host sign in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignIn {
    /// `none`, `on-401`, `terminal` or `login`.
    pub plan: String,
    /// The login command's arguments.
    pub login: Vec<String>,
    /// Against an authorization server that takes client ID metadata documents: whether the host
    /// was handed a document's URL by its profile (a host may also know one of its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_metadata_given: Option<bool>,
}

/// The `auth_serving` note: the authorization server of an auth variant started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthServing {
    pub issuer: String,
    pub resource: String,
    /// The resource its metadata names (another one in the resource-mismatch variant).
    pub named_resource: String,
}

/// The `auth_request` note: a request that reached the authorization server (every secret fake).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthRequest {
    /// The serial its [`AuthAnswer`] repeats.
    pub n: u64,
    pub endpoint: String,
    pub method: String,
    pub path: String,
    pub query: serde_json::Map<String, Value>,
    pub form: serde_json::Map<String, Value>,
    pub json: Option<Value>,
    pub body_bytes: u64,
    #[serde(default)]
    pub body_error: Option<String>,
    pub user_agent: Option<String>,
    pub authorization: Option<String>,
}

/// The `auth_answer` note: the authorization server's answer to the request of the same `n`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthAnswer {
    pub n: u64,
    pub endpoint: String,
    pub status: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<Value>,
    /// A redirect's location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

/// The `resource_checked` note: the protected resource's decision about one MCP request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceChecked {
    pub http_method: String,
    #[serde(default)]
    pub rpc_method: Option<String>,
    #[serde(default)]
    pub tool: Option<String>,
    /// `absent`, `unknown`, `expired`, `other_audience`, `valid`, or `several`.
    pub token: String,
    #[serde(default)]
    pub presented: Option<String>,
    #[serde(default)]
    pub bearer_in_query: bool,
    pub status: u16,
    /// A valid token's scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The resource a token for another one was issued for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
    /// How many Authorization headers came (when several did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_headers: Option<u64>,
}

/// The `well_known` note: a request for a well-known document at the MCP server's origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WellKnown {
    pub path: String,
    pub kind: String,
    pub served: bool,
}

/// The `url_fetched` note: a request that reached the fetch trap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrlFetched {
    pub method: String,
    pub path: String,
    pub user_agent: Option<String>,
}

/// Declares notes whose payload is one field: `name: type`, with what the field holds.
macro_rules! one_field {
    ($($(#[doc = $doc:literal])* $ty:ident { $field:ident: $field_ty:ty });* $(;)?) => {
        $(
            $(#[doc = $doc])*
            #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct $ty {
                pub $field: $field_ty,
            }
        )*
    };
}

one_field! {
    /// The `session_failed` note: why the stdio session could not be served.
    SessionFailed { error: String };
    /// The `input_error` note: how reading the client's stdio failed.
    InputError { error: String };
    /// The `sdk_rejected_frame` note: rmcp's words for a frame it refused.
    SdkRejectedFrame { error: String };
    /// The `subscribed` note: the resource the client subscribed to.
    Subscribed { uri: String };
    /// The `subscribe_refused` note.
    SubscribeRefused { uri: String };
    /// The `subscribe_failed` note.
    SubscribeFailed { uri: String };
    /// The `unsubscribed` note.
    Unsubscribed { uri: String };
    /// The `duplicate_request_id` note: the id reused while its request was in flight.
    DuplicateRequestId { id: Value };
    /// The `inexact_id` note: an id the SDK cannot echo exactly.
    InexactId { id: Value };
    /// The `answered_as_json` note: the request answered with an application/json body.
    AnsweredAsJson { id: Value };
}

/// One frame that broke its type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvalidFrame {
    /// The frame's journal line.
    pub seq: u64,
    pub definition: String,
    pub errors: String,
}

/// The check of one session's client frames: the payload of the `wire_checked`
/// note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireCheck {
    /// The negotiated revision; none when the session never negotiated one.
    pub revision: Option<String>,
    /// Whether the schema directory holds that revision's schema.
    pub schema_found: bool,
    /// Frames of a type the revision defines, all checked.
    pub checked: usize,
    /// The journal line of the first frame checked.
    pub first_checked: Option<u64>,
    /// How many of them broke their type.
    pub invalid_count: usize,
    /// The first of those (at most `KEPT_INVALID` of the wire check).
    pub invalid: Vec<InvalidFrame>,
}

impl AuthRequest {
    /// A query parameter's value, as text.
    pub fn query_field(&self, key: &str) -> Option<&str> {
        self.query.get(key).and_then(Value::as_str)
    }

    /// A form field's value, as text.
    pub fn form_field(&self, key: &str) -> Option<&str> {
        self.form.get(key).and_then(Value::as_str)
    }
}

impl AuthAnswer {
    /// A text member of the JSON body.
    pub fn json_text(&self, key: &str) -> Option<&str> {
        self.json.as_ref()?.get(key)?.as_str()
    }
}

impl ModelView {
    /// The text of each tool result the request carried.
    pub fn result_texts(&self) -> impl Iterator<Item = &str> {
        self.tool_results.iter().filter_map(Value::as_str)
    }

    /// The names of the tools the host deferred (named, not offered).
    pub fn deferred_names(&self) -> impl Iterator<Item = &str> {
        self.deferred.iter().flatten().filter_map(Value::as_str)
    }

    /// Whether the dialect's own mark says tool result `index` is an error.
    pub fn marks_error(&self, index: usize) -> bool {
        self.error_marks.iter().flatten().any(|mark| mark.as_u64() == Some(index as u64))
    }

    /// Where the request carried media payload `name` (`tool_result`, `beside`), if it did.
    pub fn payload_places(&self, name: &str) -> Option<Vec<&str>> {
        Some(self.payloads.as_ref()?.get(name)?.as_array()?.iter().filter_map(Value::as_str).collect())
    }

    /// How the request carried media payload `name` (`part`, `base64_text`), when the stub said.
    pub fn payload_forms_of(&self, name: &str) -> Option<&[Value]> {
        Some(self.payload_forms.as_ref()?.get(name)?.as_array()?.as_slice())
    }
}
