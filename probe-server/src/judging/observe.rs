//! Journal events turned into something judges can ask questions of: parsed frames in order,
//! the lifecycle the client chose, what it declared, and the exchanges in which the server asked
//! the client for input (a JSON-RPC request in the legacy era, an MRTR round in the modern era).

use serde::Deserialize;
use serde_json::Value;

use crate::era::Era;
use crate::journal::{Direction, Event, EventKind, JournalRead};
use crate::note::{ModelView, Note, Payload};
use crate::surface;

/// One parsed JSON-RPC frame.
#[derive(Debug, Clone)]
pub struct Frame {
    pub seq: u64,
    pub t_us: u64,
    pub dir: Direction,
    pub msg: Value,
}

impl Frame {
    pub fn method(&self) -> Option<&str> {
        self.msg.get("method").and_then(Value::as_str)
    }
    pub fn id(&self) -> Option<&Value> {
        self.msg.get("id")
    }
    pub fn params(&self) -> &Value {
        self.msg.get("params").unwrap_or(&Value::Null)
    }
    pub fn result(&self) -> Option<&Value> {
        self.msg.get("result")
    }
    pub fn error(&self) -> Option<&Value> {
        self.msg.get("error")
    }
    pub fn is_request(&self) -> bool {
        self.method().is_some() && self.id().is_some()
    }
    pub fn is_notification(&self) -> bool {
        self.method().is_some() && self.id().is_none()
    }
    pub fn is_answer(&self) -> bool {
        self.method().is_none() && (self.result().is_some() || self.error().is_some())
    }
    /// `params._meta[key]` of a request.
    pub fn meta(&self, key: &str) -> Option<&Value> {
        self.params().get("_meta").and_then(|m| m.get(key))
    }
    /// The result of an answer that asks for input (2026-07-28 `resultType: "input_required"`).
    pub fn input_required(&self) -> Option<&Value> {
        self.result().filter(|r| r.get("resultType").and_then(Value::as_str) == Some("input_required"))
    }
}

/// Where a `model_view` saw `marker` outside tool results: "context" (system prompt and
/// messages) and/or "tools" (the catalogue); empty where it saw it nowhere.
pub fn mention_places<'a>(view: &'a ModelView, marker: &str) -> &'a [Value] {
    view.mentions.get(marker).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// How the client started its session.
#[derive(Debug, Clone, PartialEq)]
pub struct Lifecycle {
    pub era: Era,
    pub requested_version: Option<String>,
    pub negotiated_version: Option<String>,
    pub client_info: Option<Value>,
    pub capabilities: Option<Value>,
    /// The frame that opened the session (initialize, or the first request with `_meta`).
    pub opener: u64,
}

/// An answer the client gave to a server's request for input.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Result(Value),
    Error(Value),
}

/// One time the server asked the client for input on behalf of a tool.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub era: Era,
    /// The s2c frame that asked: a request (legacy) or an `input_required` result (modern).
    pub asked: u64,
    pub answer: Option<Answer>,
    /// The c2s frame that carried the answer.
    pub answered: Option<u64>,
    pub latency_us: Option<u64>,
    /// Modern era only: the retry's `requestState` and the one the server handed out.
    pub request_state: Option<(Option<String>, Option<String>)>,
    /// Modern era only: the retry reused the original request's id.
    pub retry_reused_id: bool,
}

pub const MODERN_META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const MODERN_META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const MODERN_META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// Everything a judge may look at for one run.
#[derive(Debug, Clone, Default)]
pub struct Observations {
    pub events: Vec<Event>,
    pub frames: Vec<Frame>,
    pub truncated: bool,
    /// The model stub's journal of the same run, when the client is a host with a model
    /// ([`Observations::with_model`], [`Observations::model`]).
    model: Vec<Event>,
    /// The model views of `model`, read once (many judges ask), each with its line.
    views: std::sync::OnceLock<Vec<(u64, ModelView)>>,
    /// [`Observations::offered_tools`] as found once: (the index of its view in `views`, the
    /// tool's index in that view's tools).
    offered: std::sync::OnceLock<Vec<(usize, usize)>>,
}

impl Observations {
    pub fn from_read(read: JournalRead) -> Self {
        let frames = read
            .events
            .iter()
            .filter(|e| e.kind == EventKind::Frame && e.dir != Direction::Note)
            .filter_map(|e| {
                let msg: Value = serde_json::from_str(e.raw.as_deref()?).ok()?;
                Some(Frame { seq: e.seq, t_us: e.t_us, dir: e.dir, msg })
            })
            .collect();
        Observations { events: read.events, frames, truncated: read.truncated_tail, model: Vec::new(), views: std::sync::OnceLock::new(), offered: std::sync::OnceLock::new() }
    }

    pub fn from_text(text: &str) -> Result<Self, crate::journal::JournalError> {
        crate::journal::parse_journal(text).map(Self::from_read)
    }

    pub fn client_requests<'a>(&'a self, method: &'a str) -> impl Iterator<Item = &'a Frame> + 'a {
        self.frames.iter().filter(move |f| f.dir == Direction::ClientToServer && f.is_request() && f.method() == Some(method))
    }

    pub fn client_notifications<'a>(&'a self, method: &'a str) -> impl Iterator<Item = &'a Frame> + 'a {
        self.frames.iter().filter(move |f| f.dir == Direction::ClientToServer && f.is_notification() && f.method() == Some(method))
    }

    pub fn server_requests<'a>(&'a self, method: &'a str) -> impl Iterator<Item = &'a Frame> + 'a {
        self.frames.iter().filter(move |f| f.dir == Direction::ServerToClient && f.is_request() && f.method() == Some(method))
    }

    pub fn server_notifications<'a>(&'a self, method: &'a str) -> impl Iterator<Item = &'a Frame> + 'a {
        self.frames.iter().filter(move |f| f.dir == Direction::ServerToClient && f.is_notification() && f.method() == Some(method))
    }

    /// Every `tools/call` the client made for `tool`.
    pub fn tool_calls<'a>(&'a self, tool: &'a str) -> impl Iterator<Item = &'a Frame> + 'a {
        self.client_requests("tools/call").filter(move |f| f.params().get("name").and_then(Value::as_str) == Some(tool))
    }

    /// The answer to `request`, travelling the other way with the same id.
    pub fn answer_to(&self, request: &Frame) -> Option<&Frame> {
        let id = request.id()?;
        self.frames.iter().find(|f| f.seq > request.seq && f.dir != request.dir && f.is_answer() && f.id() == Some(id))
    }

    /// The request `answer` answers: the last request from the other side with its id before it
    /// (the other way round from [`Observations::answer_to`]).
    pub fn request_of(&self, answer: &Frame) -> Option<&Frame> {
        self.frames.iter().rev().find(|f| f.seq < answer.seq && f.dir != answer.dir && f.is_request() && f.id() == answer.id())
    }

    /// How the client opened its session, if it did.
    pub fn lifecycle(&self) -> Option<Lifecycle> {
        if let Some(init) = self.client_requests("initialize").next() {
            let answer = self.answer_to(init);
            return Some(Lifecycle {
                era: Era::Legacy,
                requested_version: init.params().get("protocolVersion").and_then(Value::as_str).map(str::to_string),
                negotiated_version: answer.and_then(|a| a.result()).and_then(|r| r.get("protocolVersion")).and_then(Value::as_str).map(str::to_string),
                client_info: init.params().get("clientInfo").cloned(),
                capabilities: init.params().get("capabilities").cloned(),
                opener: init.seq,
            });
        }
        let first = self.frames.iter().find(|f| f.dir == Direction::ClientToServer && f.is_request() && f.meta(MODERN_META_VERSION).is_some())?;
        let version = first.meta(MODERN_META_VERSION).and_then(Value::as_str).map(str::to_string);
        Some(Lifecycle {
            era: version.as_deref().map_or(Era::Modern, Era::of_version),
            requested_version: version.clone(),
            negotiated_version: version,
            client_info: first.meta(MODERN_META_CLIENT_INFO).cloned(),
            capabilities: first.meta(MODERN_META_CAPABILITIES).cloned(),
            opener: first.seq,
        })
    }

    /// The transport the frames travelled over.
    pub fn transport(&self) -> Option<crate::journal::Transport> {
        self.events.iter().find(|e| e.kind == EventKind::Frame).map(|e| e.transport)
    }

    /// The journal event with sequence number `seq`.
    pub fn event(&self, seq: u64) -> Option<&Event> {
        self.events.binary_search_by_key(&seq, |e| e.seq).ok().map(|i| &self.events[i]).or_else(|| self.events.iter().find(|e| e.seq == seq))
    }

    /// The HTTP headers the tap journalled with the POST that carried `frame` (HTTP only).
    pub fn http_headers(&self, frame: &Frame) -> Option<&Value> {
        self.event(frame.seq)?.detail.as_ref()?.get("headers")
    }

    /// HTTP requests (method, path, headers) as journalled by the HTTP tap, in order.
    pub fn http_requests(&self) -> impl Iterator<Item = &Event> + '_ {
        self.events.iter().filter(|e| e.kind == EventKind::HttpRequest)
    }

    /// Adds a note after the last event (as [`JournalRead::push_note`] does to a journal read).
    pub fn push_note(&mut self, session: &str, transport: crate::journal::Transport, detail: Value) {
        let note = crate::journal::Event::note_after(&self.events, session, transport, detail);
        self.events.push(note);
    }

    /// Adds the model stub's journal of the same run.
    pub fn with_model(mut self, model: JournalRead) -> Self {
        self.model = model.events;
        self.views = std::sync::OnceLock::new();
        self.offered = std::sync::OnceLock::new();
        self
    }

    /// The model stub's journal of the same run (empty for a client without a model).
    pub fn model(&self) -> &[Event] {
        &self.model
    }

    /// What the model was shown, request by request: (model journal line, `model_view` note).
    pub fn model_views(&self) -> impl Iterator<Item = (u64, &ModelView)> + '_ {
        self.read_views().iter().map(|(seq, view)| (*seq, view))
    }

    fn read_views(&self) -> &[(u64, ModelView)] {
        self.views.get_or_init(|| self.model.iter().filter_map(|e| Some((e.seq, ModelView::of(e)?.ok()?))).collect())
    }

    /// The calls the model made, in order: (model journal line, tool name, arguments).
    pub fn model_calls(&self) -> impl Iterator<Item = (u64, String, Value)> + '_ {
        self.model_call_steps().map(|(seq, tool, arguments)| (seq, tool.name, arguments))
    }

    /// The model's calls made through a host tool that runs or proxies them: (model journal line,
    /// tool called, the host tool it went through).
    pub fn model_calls_through(&self) -> impl Iterator<Item = (u64, String, String)> + '_ {
        self.model_call_steps().filter_map(|(seq, tool, _)| Some((seq, tool.name, tool.via?)))
    }

    /// Each call the model stub played, as it journalled it: (line, the tool as offered, arguments).
    fn model_call_steps(&self) -> impl Iterator<Item = (u64, crate::host_tools::OfferedTool, Value)> + '_ {
        use crate::host_tools::{ModelStep, MODEL_STEP_KEY};
        self.model.iter().filter_map(|e| {
            let step = e.detail.as_ref()?.get(MODEL_STEP_KEY)?;
            match ModelStep::deserialize(step).ok()? {
                ModelStep::Call { tool, arguments, .. } => Some((e.seq, tool, arguments)),
                ModelStep::Finish { .. } => None,
            }
        })
    }

    /// Every tool offered to the model, first sighting of each name: (model journal line, entry).
    pub fn offered_tools(&self) -> Vec<(u64, &Value)> {
        let found = self.offered.get_or_init(|| self.find_offered());
        let views = self.read_views();
        found.iter().filter_map(|&(at, index)| views.get(at).and_then(|(seq, view)| Some((*seq, view.tools.get(index)?)))).collect()
    }

    /// Where each tool offered to the model is first seen: (view index, tool index).
    fn find_offered(&self) -> Vec<(usize, usize)> {
        let mut seen = std::collections::HashSet::new();
        let mut found = Vec::new();
        for (at, (_, view)) in self.read_views().iter().enumerate() {
            for (index, tool) in view.tools.iter().enumerate() {
                let key = (tool.get("namespace").and_then(Value::as_str).unwrap_or(""), tool.get("name").and_then(Value::as_str).unwrap_or(""));
                if seen.insert(key) {
                    found.push((at, index));
                }
            }
        }
        found
    }

    /// The probe server's own tools among those offered to the model (any tool the server can
    /// list, under whatever name the host shows it): (model journal line, entry).
    pub fn offered_probe_tools(&self) -> Vec<(u64, &Value)> {
        let ours = |name: &str| surface::tool_names().iter().any(|tool| crate::host_tools::names_tool(name, tool));
        self.offered_tools().into_iter().filter(|(_, t)| t.get("name").and_then(Value::as_str).is_some_and(ours)).collect()
    }

    /// The server variant that served the run (the `serving` note; standard when absent).
    /// Journals written before the variant had its one name call it `scenario`.
    pub fn variant(&self) -> crate::variant::Variant {
        self.payloads::<crate::note::Serving>().find_map(|(_, serving)| serving.variant?.parse().ok()).unwrap_or_default()
    }

    pub fn era(&self) -> Option<Era> {
        self.lifecycle().map(|l| l.era)
    }

    /// Whether the client declared the capability at `path` (e.g. `["elicitation", "url"]`).
    /// In the modern era the capabilities of the request that reached the feature are preferred.
    pub fn declares(&self, path: &[&str]) -> bool {
        let Some(caps) = self.lifecycle().and_then(|l| l.capabilities) else { return false };
        let mut node = &caps;
        for key in path {
            match node.get(key) {
                Some(next) => node = next,
                None => return false,
            }
        }
        !node.is_null()
    }

    /// The exchange in which the server asked for input on behalf of `tool` with `method`.
    pub fn exchange(&self, tool: &str, method: &str) -> Option<Exchange> {
        let call = self.tool_calls(tool).next()?;
        match self.era()? {
            Era::Legacy => self.legacy_exchange(call, tool, method),
            Era::Modern => self.modern_exchange(call, tool),
        }
    }

    /// The server's request made during `call` of `tool`: between the call and its answer, and
    /// (for calls running side by side) asking with that tool's text.
    fn legacy_exchange(&self, call: &Frame, tool: &str, method: &str) -> Option<Exchange> {
        let end = self.answer_to(call).map_or(u64::MAX, |a| a.seq);
        let for_tool = |f: &&Frame| surface::asking_tool(f.params()).is_none_or(|asker| asker == tool);
        let asked = self.server_requests(method).filter(for_tool).find(|f| f.seq > call.seq && f.seq < end)?;
        let answer = self.answer_to(asked);
        Some(Exchange {
            era: Era::Legacy,
            asked: asked.seq,
            answer: answer.map(|a| match a.result() {
                Some(r) => Answer::Result(r.clone()),
                None => Answer::Error(a.error().cloned().unwrap_or_default()),
            }),
            answered: answer.map(|a| a.seq),
            latency_us: answer.map(|a| a.t_us.saturating_sub(asked.t_us)),
            request_state: None,
            retry_reused_id: false,
        })
    }

    fn modern_exchange(&self, call: &Frame, tool: &str) -> Option<Exchange> {
        let key = surface::input_key_for(tool);
        let result = self.answer_to(call)?;
        let asked = result.input_required()?;
        let issued_state = asked.get("requestState").and_then(Value::as_str).map(str::to_string);
        let retry = self.tool_calls(tool).find(|f| f.seq > result.seq && f.params().get("inputResponses").is_some());
        Some(Exchange {
            era: Era::Modern,
            asked: result.seq,
            answer: retry.and_then(|r| r.params().get("inputResponses")?.get(&key).cloned()).map(Answer::Result),
            answered: retry.map(|r| r.seq),
            latency_us: retry.map(|r| r.t_us.saturating_sub(result.t_us)),
            request_state: retry.map(|r| (r.params().get("requestState").and_then(Value::as_str).map(str::to_string), issued_state)),
            retry_reused_id: retry.is_some_and(|r| r.id() == call.id()),
        })
    }

    /// Requests of `method` the client sent after journal sequence `after`.
    pub fn client_requests_after<'a>(&'a self, method: &'a str, after: u64) -> impl Iterator<Item = &'a Frame> + 'a {
        self.client_requests(method).filter(move |f| f.seq > after)
    }

    /// Whether journal line `later` belongs to the session of line `earlier` in the same server
    /// process: the same session id, and no server started again in between (a host that restarts
    /// its server after an error, or opens another session, starts afresh).
    pub fn same_session(&self, earlier: u64, later: u64) -> bool {
        let restarted = self.notes(Note::Serving).any(|e| e.seq > earlier && e.seq <= later);
        let session_of = |seq: u64| self.event(seq).map(|e| e.session.as_str());
        !restarted && later > earlier && session_of(later) == session_of(earlier)
    }

    /// When the run ended, in the journal's microseconds: its last event. Over HTTP the runner
    /// journals `client_exited` on the server's clock when the client ends, so a host that sent
    /// the server nothing while it waited on its model still ends when it did; over stdio the
    /// server's own `input_closed` comes last.
    pub fn ended_us(&self) -> u64 {
        self.events.last().map_or(0, |e| e.t_us)
    }

    /// When the harness stopped the client at the run's bound (the runner's `client_exited`
    /// note says `timed_out`): that end's time. None when the client ended on its own.
    pub fn stopped_at_bound(&self) -> Option<u64> {
        self.payloads::<crate::note::ClientExited>().find(|(_, exit)| exit.ending == crate::note::Ending::TimedOut).map(|(e, _)| e.t_us)
    }

    /// The URL the server's URL-mode elicitation asked the client to visit (legacy request or
    /// 2026-07-28 input request): the first `url` of a `mode: "url"` object in the frame that
    /// asked on `tool`'s behalf.
    pub fn asked_url(&self, tool: &str) -> Option<String> {
        fn find(value: &Value) -> Option<&str> {
            match value {
                Value::Object(map) if map.get("mode").and_then(Value::as_str) == Some("url") => map.get("url").and_then(Value::as_str),
                Value::Object(map) => map.values().find_map(find),
                Value::Array(items) => items.iter().find_map(find),
                _ => None,
            }
        }
        let asked = self.exchange(tool, "elicitation/create")?.asked;
        let frame = self.frames.iter().find(|f| f.seq == asked)?;
        find(&frame.msg).map(str::to_string)
    }

    /// Journal notes of one `event` name written by the server.
    pub fn notes(&self, note: Note) -> impl Iterator<Item = &Event> + '_ {
        self.events.iter().filter(move |e| Note::of(e) == Some(note))
    }

    /// The notes of a typed payload that read as it, each with its payload (one that does not
    /// read is passed over).
    pub fn payloads<T: crate::note::Payload>(&self) -> impl Iterator<Item = (&Event, T)> + '_ {
        self.notes(T::NOTE).filter_map(|e| Some((e, T::of(e)?.ok()?)))
    }

    /// The requests that reached the server's fetch trap at `path` (`url_fetched` notes).
    pub fn trap_fetches<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a Event> + 'a {
        self.payloads::<crate::note::UrlFetched>().filter(move |(_, fetched)| fetched.path == path).map(|(e, _)| e)
    }
}
