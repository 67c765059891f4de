//! Transports that record every frame before anything interprets it.

use rmcp::service::{RoleServer, RxJsonRpcMessage};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::journal::{RawText, HEAD_BYTES};
use crate::note::{self, Payload};

pub mod auth_gate;
pub mod budget;
pub(crate) mod events;
pub mod http;
pub(crate) mod legacy_tasks;
pub mod stdio;

pub use crate::net::connections::{MAX_CONNECTIONS, MAX_HEADERS};

/// The largest frame either transport parses: a stdio line (a CRLF ending's CR aside) or an HTTP
/// POST body. A longer one is journalled as length + sha256 + head, never held whole, and
/// answered with a JSON-RPC error (-32600) before anything parses it. It is the SDK's own limit
/// for HTTP bodies, so both transports refuse the same frames.
pub const MAX_FRAME: usize = 4 * 1024 * 1024;

/// The most JSON values a frame may hold. Parsing multiplies small values (an array of a million
/// zeros is 2 MB of text and over 100 MB as a tree, held several times over on its way into the
/// SDK's types), so a frame with more is refused before it is parsed, like an oversize one.
pub const MAX_VALUES: usize = 128 * 1024;

/// How many JSON values `bytes` holds at least (commas, colons and openings outside strings,
/// plus one), if that is more than `limit`: a linear scan that allocates nothing.
pub fn too_many_values(bytes: &[u8], limit: usize) -> Option<usize> {
    let (mut count, mut in_string, mut escaped) = (1usize, false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' | b':' | b'[' | b'{' => count += 1,
            _ => {}
        }
    }
    (count > limit).then_some(count)
}

/// A frame refused before parsing for holding more than [`MAX_VALUES`] JSON values: its journal
/// entry (kind oversize, its bytes, the count) and the error message to answer with.
pub(crate) fn too_many_values_refusal(session: &str, transport: crate::journal::Transport, bytes: &[u8]) -> Option<(crate::journal::Entry, String)> {
    use crate::journal::{Direction, Entry, EventKind};
    let values = too_many_values(bytes, MAX_VALUES)?;
    let mut entry = Entry::new(session, transport, Direction::ClientToServer, EventKind::Oversize);
    entry.raw = Some(RawText::from_bytes(bytes));
    let entry = entry.with_detail(json!({"values": values, "limit": MAX_VALUES}));
    Some((entry, format!("a frame of {values} JSON values exceeds the {MAX_VALUES}-value limit")))
}

/// The request methods the SDK types, by its own names. A request of one of these that it could
/// only take as a custom request has params of the wrong shape: -32602, not the handler's -32601.
const TYPED_METHODS: &[&str] = {
    use rmcp::model::*;
    &[
        PingRequestMethod::VALUE,
        InitializeResultMethod::VALUE,
        DiscoverRequestMethod::VALUE,
        CompleteRequestMethod::VALUE,
        SetLevelRequestMethod::VALUE,
        GetPromptRequestMethod::VALUE,
        ListPromptsRequestMethod::VALUE,
        ListResourcesRequestMethod::VALUE,
        ListResourceTemplatesRequestMethod::VALUE,
        ReadResourceRequestMethod::VALUE,
        SubscriptionsListenRequestMethod::VALUE,
        SubscribeRequestMethod::VALUE,
        UnsubscribeRequestMethod::VALUE,
        CallToolRequestMethod::VALUE,
        ListToolsRequestMethod::VALUE,
        GetTaskMethod::VALUE,
        UpdateTaskMethod::VALUE,
        CancelTaskMethod::VALUE,
        ListSkillsRequestMethod::VALUE,
        GetSkillRequestMethod::VALUE,
        ReadResourceDirectoryRequestMethod::VALUE,
    ]
};

/// Whether a typed request arrived as a custom one: its method is one the SDK types.
fn ill_typed(message: &RxJsonRpcMessage<RoleServer>) -> Option<&str> {
    match message {
        rmcp::model::JsonRpcMessage::Request(request) => match &request.request {
            rmcp::model::ClientRequest::CustomRequest(custom) if TYPED_METHODS.contains(&custom.method.as_str()) => Some(custom.method.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the SDK echoes this id exactly: a string, or an integer within 64 bits. (`7.0` would
/// come back as `7`, and the client would never see the answer to its request.)
fn echoed_exactly(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64(),
        _ => false,
    }
}

/// The error a refused frame is answered with.
pub(crate) struct Answer {
    pub id: Value,
    pub code: i64,
    pub message: String,
}

/// Why a JSON-RPC object is not handed to the SDK: a note for the journal, and the error to
/// answer with (none for an ill-formed response: an error with its id could pass for the answer to
/// the client's own request of that id).
pub(crate) struct Refusal {
    pub note: Option<Value>,
    pub answer: Option<Answer>,
}

/// Screens a JSON-RPC 2.0 object the same way on both transports and types it for the SDK:
/// an id the SDK cannot echo exactly is refused (-32600); what the SDK cannot type is refused
/// (-32602 for a request with a method name, a well-formed id and nothing else but params: its
/// params are ill-typed;
/// -32600 otherwise); a request of a method the SDK types that it could only take as a custom
/// one has ill-typed params (-32602, where the handler would say -32601).
pub(crate) fn screen(value: Value) -> Result<RxJsonRpcMessage<RoleServer>, Refusal> {
    let is_request = value.get("method").is_some() && value.get("id").is_some();
    let has_method = value.get("method").is_some_and(Value::is_string);
    // A request with members of a response as well (`result`, `error`) is no request at all.
    let request_members_only = value.as_object().is_some_and(|o| o.keys().all(|k| matches!(k.as_str(), "jsonrpc" | "id" | "method" | "params")));
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let response = value.get("method").is_none() && (value.get("result").is_some() || value.get("error").is_some());
    // An id that is not a string or a number cannot be echoed: the answer's id is null then.
    let answer_id = if id.is_string() || id.is_number() { id.clone() } else { Value::Null };
    let refuse = |note: Option<Value>, code: i64, message: String| Refusal { note, answer: Some(Answer { id: answer_id.clone(), code, message }) };
    if is_request && id.is_number() && !echoed_exactly(&id) {
        let note = note::InexactId { id: id.clone() }.detail();
        return Err(refuse(Some(note), -32600, "invalid request: the id must be a string or an integer of at most 64 bits".into()));
    }
    let typed_id = id.is_string() || id.is_i64() || id.is_u64();
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(message) => match ill_typed(&message) {
            Some(method) => Err(refuse(None, -32602, format!("invalid params: the params of {method} do not have the schema's shape"))),
            None => Ok(message),
        },
        Err(err) => {
            let note = Some(note::SdkRejectedFrame { error: err.to_string() }.detail());
            if response {
                return Err(Refusal { note, answer: None });
            }
            let (code, what) = if is_request && typed_id && has_method && request_members_only { (-32602, "invalid params") } else { (-32600, "invalid request") };
            Err(refuse(note, code, format!("{what}: {err}")))
        }
    }
}

/// A line over the limit, summarised as it streams by: length, digest and head of its bytes
/// (without the CR of a CRLF ending, as a line that fits is kept).
pub(crate) struct Summary {
    hasher: Sha256,
    len: usize,
    head: Vec<u8>,
    /// A CR ended the last piece: it belongs to the line unless the LF comes next.
    held_cr: bool,
}

impl Summary {
    pub(crate) fn new() -> Summary {
        Summary { hasher: Sha256::new(), len: 0, head: Vec::new(), held_cr: false }
    }

    pub(crate) fn absorb(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        self.len += bytes.len();
        let room = HEAD_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
    }

    /// Takes the next piece of the line; `last` when the LF follows it.
    pub(crate) fn feed(&mut self, piece: &[u8], last: bool) {
        if std::mem::take(&mut self.held_cr) && !(last && piece.is_empty()) {
            self.absorb(b"\r");
        }
        let (body, cr) = match piece.split_last() {
            Some((b'\r', rest)) => (rest, true),
            _ => (piece, false),
        };
        self.absorb(body);
        self.held_cr = cr && !last;
    }

    /// Length, sha256 (hex) and head of everything taken.
    pub(crate) fn finish(mut self) -> (usize, String, Vec<u8>) {
        if std::mem::take(&mut self.held_cr) {
            self.absorb(b"\r");
        }
        (self.len, crate::journal::hex(&self.hasher.finalize()), self.head)
    }

    pub(crate) fn raw(self) -> RawText {
        let (len, sha256, head) = self.finish();
        RawText::summary(len, &sha256, &head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_counted_outside_strings_only() {
        assert_eq!(too_many_values(b"[0,0,0,0]", 3), Some(5));
        assert_eq!(too_many_values(b"[0,0,0,0]", 5), None);
        assert_eq!(too_many_values(br#"{"a":"[,,,:{\",,,"}"#, 2), Some(3));
        assert_eq!(too_many_values(br#"{"a":"[,,,:{\",,,"}"#, 3), None);
    }
}

/// A rewrite of the text of outgoing frames (a stdio line, an SSE event, a JSON body): the new
/// text, or none when it leaves the text as it is. The journal keeps what was sent.
pub(crate) type Rewrite = fn(&str) -> Option<String>;

/// The rewrite the taps apply to outgoing frames in `variant`: the skills variants' placeholders,
/// the no-result-type variant's removal of `resultType`, or the tasks variant's legacy task
/// declarations.
pub(crate) fn outgoing_rewrite(variant: crate::Variant) -> Option<Rewrite> {
    if variant.serves_skills() {
        Some(crate::skills::rewrite_outgoing)
    } else if variant == crate::Variant::NoResultType {
        Some(without_result_type)
    } else if variant == crate::Variant::Tasks {
        Some(legacy_tasks::rewrite_outgoing)
    } else {
        None
    }
}

/// The text with every `"resultType":"complete"` member removed (rmcp writes it without spaces;
/// inside a string it would be escaped and stays). An `input_required` result keeps its own.
pub(crate) fn without_result_type(text: &str) -> Option<String> {
    const MEMBER: &str = r#""resultType":"complete""#;
    if !text.contains(MEMBER) {
        return None;
    }
    Some(text.replace(&format!("{MEMBER},"), "").replace(&format!(",{MEMBER}"), "").replace(MEMBER, ""))
}

/// How the tap answers a `server/discover` in a variant that refuses it in its own way. rmcp
/// answers a discover of a version the server does not speak with -32022 before any handler
/// sees it, so these refusals are the tap's.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DiscoverRefusal {
    /// An error answer with this code.
    Error { id: Value, code: i64, message: &'static str },
    /// No answer at all.
    Unanswered,
    /// (HTTP only) an HTTP error status with a plain-text body, no JSON-RPC in it.
    HttpStatus { status: u16, body: &'static str },
}

/// The refusal `frame` gets in `variant`, when it is a `server/discover` request there.
pub(crate) fn discover_refusal(variant: crate::Variant, frame: &Value) -> Option<DiscoverRefusal> {
    let id = frame.get("id").filter(|_| frame.get("method").and_then(Value::as_str) == Some("server/discover"))?.clone();
    match variant {
        crate::Variant::DiscoverRefused => Some(DiscoverRefusal::Error { id, code: -32601, message: "method not found: server/discover" }),
        crate::Variant::DiscoverInvalid => Some(DiscoverRefusal::Error { id, code: -32602, message: "invalid params: this server takes no server/discover" }),
        crate::Variant::DiscoverUnanswered => Some(DiscoverRefusal::Unanswered),
        crate::Variant::DiscoverHttpError => Some(DiscoverRefusal::HttpStatus { status: 400, body: "Bad Request: no route for this method" }),
        _ => None,
    }
}

impl DiscoverRefusal {
    /// The `refused_discover` note's detail.
    pub(crate) fn note(&self) -> Value {
        match self {
            DiscoverRefusal::Error { code, .. } => note::RefusedDiscover { code: Some(*code), unanswered: false, http_status: None }.detail(),
            DiscoverRefusal::Unanswered => note::RefusedDiscover { code: None, unanswered: true, http_status: None }.detail(),
            DiscoverRefusal::HttpStatus { status, .. } => note::RefusedDiscover { code: None, unanswered: false, http_status: Some(*status) }.detail(),
        }
    }
}

#[cfg(test)]
mod discover_refusal_tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn only_a_discover_request_in_a_refusing_variant_is_refused() {
        let discover = json!({"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {}});
        assert_eq!(
            discover_refusal(Variant::DiscoverRefused, &discover),
            Some(DiscoverRefusal::Error { id: json!(7), code: -32601, message: "method not found: server/discover" })
        );
        assert!(matches!(discover_refusal(Variant::DiscoverInvalid, &discover), Some(DiscoverRefusal::Error { code: -32602, .. })));
        assert_eq!(discover_refusal(Variant::DiscoverUnanswered, &discover), Some(DiscoverRefusal::Unanswered));
        assert!(matches!(discover_refusal(Variant::DiscoverHttpError, &discover), Some(DiscoverRefusal::HttpStatus { status: 400, .. })));
        assert_eq!(discover_refusal(Variant::Standard, &discover), None);
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
        assert_eq!(discover_refusal(Variant::DiscoverRefused, &initialize), None);
        // A notification of that name has no id to answer.
        assert_eq!(discover_refusal(Variant::DiscoverUnanswered, &json!({"jsonrpc": "2.0", "method": "server/discover"})), None);
    }

    #[test]
    fn result_type_complete_is_removed_wherever_it_stands_and_nothing_else() {
        let first = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}"#;
        let last = r#"data: {"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete"}}"#;
        let only = r#"{"result":{"resultType":"complete"}}"#;
        assert_eq!(without_result_type(first).unwrap(), r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#);
        assert_eq!(without_result_type(last).unwrap(), r#"data: {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#);
        assert_eq!(without_result_type(only).unwrap(), r#"{"result":{}}"#);
        for unchanged in [r#"{"result":{"resultType":"input_required","inputRequests":{}}}"#, r#"{"text":"say \"resultType\":\"complete\""}"#] {
            assert_eq!(without_result_type(unchanged), None, "{unchanged}");
        }
    }
}
