//! The fake terminal host: the ground truth of the interactive probes. An MCP client (over stdio,
//! either era) with a terminal UI: a prompt line (`--only-tool NAME` calls that tool), and a
//! form for each elicitation, worked with keys. Switches (`Fault`) make it render or answer the
//! way a faulty host would; each interactive probe must say yes against the correct host and
//! not yes under its switch. Its keystroke plan (`PROFILE`) differs from Claude Code's on
//! purpose: a second terminal host is a profile, not code.

#![allow(deprecated)]

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::Stdio;

use probe_server::Era;
use rmcp::model::*;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData as McpError};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use crate::clients::profile::Interactive;
use crate::drivers::terminal::keys::{Key, KeyReader};

/// The host's keystroke plan, as a profile's `interactive` section.
pub const PROFILE: &str = r#"
args = []
prompt = "run {tool} --only-tool {tool}"
submit = ["Enter"]
quit = ["Ctrl-C"]
columns = 100
rows = 40
ready_timeout_secs = 20
form_timeout_secs = 20

[keys]
focus_marker = "»"
next_field = ["Tab"]
clear = ["Ctrl-U"]
toggle = ["Space"]
expand = ["Enter"]
next_option = ["Down"]
pick = ["Space"]
collapse_single = []
collapse_multi = ["Enter"]
accept_label = "Accept"
decline_label = "Decline"
next_button = ["Tab"]
press = ["Enter"]
cancel = ["Esc"]
empty_value = "(empty)"

# The host draws each screen in one write and reads keys in order: no key needs to wait for a
# redraw, and a page it opens on its own is opened before the request is drawn. A key it ignores
# (the faults' point) costs the echo wait, so it is short; the driver's wait for an effect the
# plan needs is 1 s, looked for twice, room for a loaded machine (at 0.6 s, with 128 self-test
# runs at once, the focus once seemed not to move). It takes a withdrawn form down, and answers
# a late press, as soon as it reads the withdrawal: only the fault that keeps the form waits the
# settles out, and half a second is ample for a redraw even under the self-test's load. It writes
# its screen after every key it reads, even one it ignores: the driver waits for that write,
# however long a loaded machine makes it, before it looks at the focus.
[pace]
key_echo_ms = 300
key_settle_ms = 0
key_effect_ms = 1000
char_ms = 0
screen_quiet_ms = 20
ready_pause_ms = 0
url_watch_ms = 100
withdrawal_settle_ms = 500
late_answer_ms = 500
redraws_every_key = true
"#;

/// The keys that differ when the host shows focus by the cursor with labels above values
/// (`Layout::CursorLabelsAbove`).
const CURSOR_KEYS: &str = "focus_at_cursor = true\nlabels_above = true\n";

/// The host's keystroke plan for a layout.
pub fn profile(layout: Layout) -> Interactive {
    let text = match layout {
        Layout::Marker => PROFILE.to_string(),
        Layout::CursorLabelsAbove => PROFILE.replace("focus_marker = \"»\"\n", CURSOR_KEYS),
    };
    toml::from_str(&text).expect("the fake terminal host's plan parses")
}

/// How the host draws a form.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Layout {
    /// `label: value` on one line, a `»` before what has the focus.
    #[default]
    Marker,
    /// Each label on a line above its value, no marker: the terminal's cursor sits on what has
    /// the focus.
    CursorLabelsAbove,
}

/// A faulty behaviour of the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Fault {
    /// Renders forms without their message.
    NoMessage,
    /// Ignores defaults: every field starts empty.
    DropDefaults,
    /// Sends numbers and booleans as strings.
    ValuesAsStrings,
    /// Sends cancel when the person declines.
    DeclineAsCancel,
    /// Sends decline when the person presses Esc.
    EscDeclines,
    /// Accepts with required fields empty.
    NoRequiredCheck,
    /// Renders enum fields as free text.
    EnumAsText,
    /// Shows URL-mode requests without the URL.
    UrlHidden,
    /// Opens the URL at once, without asking.
    OpenUrl,
    /// Keeps a form on screen after the server withdraws its request, and sends the late answer.
    KeepsWithdrawnForm,
    /// Checks neither string formats nor number bounds.
    NoValidation,
}

impl Fault {
    pub fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self).map(|v| v.get_name().to_string()).unwrap_or_default()
    }
}

/// An elicitation waiting for the person.
struct Ask {
    params: Value,
    reply: oneshot::Sender<Value>,
    /// Cancelled when the server withdraws the request.
    withdrawn: tokio_util::sync::CancellationToken,
}

#[derive(Clone)]
struct TerminalHandler {
    asks: mpsc::UnboundedSender<Ask>,
    keeps_withdrawn: bool,
}

impl ClientHandler for TerminalHandler {
    fn get_info(&self) -> ClientInfo {
        let capabilities = serde_json::from_value(json!({"elicitation": {"form": {}, "url": {}}})).unwrap_or_default();
        ClientInfo::new(capabilities, Implementation::new("mcp-client-probe-terminal-host", env!("CARGO_PKG_VERSION")))
    }

    async fn create_elicitation(&self, request: ElicitRequestParams, context: RequestContext<RoleClient>) -> Result<ElicitResult, McpError> {
        let (reply, answer) = oneshot::channel();
        let params = serde_json::to_value(&request).unwrap_or_default();
        let withdrawn = if self.keeps_withdrawn { tokio_util::sync::CancellationToken::new() } else { context.ct.clone() };
        self.asks.send(Ask { params, reply, withdrawn }).map_err(|_| McpError::internal_error("the terminal is gone", None))?;
        let answer = tokio::select! {
            answer = answer => answer.map_err(|_| McpError::internal_error("the terminal is gone", None))?,
            // Withdrawn by the server: the form is gone and nothing more is said about it.
            _ = context.ct.cancelled(), if !self.keeps_withdrawn => return Err(McpError::internal_error("withdrawn by the server", None)),
        };
        serde_json::from_value(answer).map_err(|e| McpError::internal_error(format!("bad answer: {e}"), None))
    }
}

#[derive(Debug, Clone)]
enum Kind {
    Text,
    Integer,
    Number,
    Bool,
    Single(Vec<(String, String)>),
    Multi(Vec<(String, String)>),
}

#[derive(Debug, Clone)]
struct Field {
    key: String,
    label: String,
    kind: Kind,
    required: bool,
    text: String,
    flag: Option<bool>,
    choice: Option<usize>,
    chosen: Vec<bool>,
    /// The field's schema: formats, bounds and lengths to check.
    rules: Value,
}

impl Field {
    fn from_schema(key: &str, prop: &Value, required: bool, faults: &[Fault]) -> Field {
        let kind = match (probe_server::surface::enum_options(prop), prop["type"].as_str()) {
            (Some(_), _) if faults.contains(&Fault::EnumAsText) => Kind::Text,
            (Some((opts, true)), _) => Kind::Multi(opts),
            (Some((opts, false)), _) => Kind::Single(opts),
            (None, Some("integer")) => Kind::Integer,
            (None, Some("number")) => Kind::Number,
            (None, Some("boolean")) => Kind::Bool,
            _ => Kind::Text,
        };
        let label = prop.get("title").and_then(Value::as_str).unwrap_or(key).to_string();
        let mut field = Field { key: key.into(), label, required, text: String::new(), flag: None, choice: None, chosen: Vec::new(), kind, rules: prop.clone() };
        if let Kind::Multi(opts) = &field.kind {
            field.chosen = vec![false; opts.len()];
        }
        let default = prop.get("default").filter(|_| !faults.contains(&Fault::DropDefaults));
        match (&field.kind, default) {
            (Kind::Bool, Some(Value::Bool(b))) => field.flag = Some(*b),
            (Kind::Single(opts), Some(Value::String(s))) => field.choice = opts.iter().position(|(v, _)| v == s),
            (_, Some(Value::String(s))) => field.text = s.clone(),
            (_, Some(Value::Number(n))) => field.text = n.to_string(),
            _ => {}
        }
        field
    }

    fn display(&self) -> String {
        match &self.kind {
            Kind::Bool => match self.flag {
                Some(true) => "☑".into(),
                Some(false) => "☐".into(),
                None => "(unset)".into(),
            },
            Kind::Single(opts) => self.choice.and_then(|i| opts.get(i)).map_or("(none)".into(), |(_, l)| l.clone()),
            Kind::Multi(opts) => {
                let picked: Vec<&str> = opts.iter().zip(&self.chosen).filter(|(_, c)| **c).map(|((_, l), _)| l.as_str()).collect();
                if picked.is_empty() {
                    "(none)".into()
                } else {
                    picked.join(", ")
                }
            }
            _ if self.text.is_empty() => "(empty)".into(),
            _ => self.text.clone(),
        }
    }

    /// What is wrong with the entered value under the field's schema, if anything.
    fn broken_rule(&self, value: &Value) -> Option<String> {
        let rules = &self.rules;
        if rules.get("format").and_then(Value::as_str) == Some("email") && value.as_str().is_some_and(|s| !s.contains('@') || !s.contains('.')) {
            return Some(format!("{} must be an e-mail address", self.label));
        }
        if let (Some(n), Some(min)) = (value.as_f64(), rules.get("minimum").and_then(Value::as_f64)) {
            if n < min {
                return Some(format!("{} must be at least {min}", self.label));
            }
        }
        if let (Some(n), Some(max)) = (value.as_f64(), rules.get("maximum").and_then(Value::as_f64)) {
            if n > max {
                return Some(format!("{} must be at most {max}", self.label));
            }
        }
        if let (Some(s), Some(max)) = (value.as_str(), rules.get("maxLength").and_then(Value::as_u64)) {
            if s.chars().count() as u64 > max {
                return Some(format!("{} must be at most {max} characters", self.label));
            }
        }
        None
    }

    /// The field's value for the answer, `Ok(None)` when empty, or what is wrong with it.
    fn value(&self, as_strings: bool) -> Result<Option<Value>, NotANumber> {
        let text = |v: Value| if as_strings { json!(v.to_string().trim_matches('"')) } else { v };
        Ok(match &self.kind {
            Kind::Text => (!self.text.is_empty()).then(|| json!(self.text)),
            Kind::Integer if self.text.is_empty() => None,
            Kind::Integer => Some(text(json!(self.text.parse::<i64>().map_err(|_| NotANumber { label: self.label.clone(), whole: true })?))),
            Kind::Number if self.text.is_empty() => None,
            Kind::Number => Some(text(json!(self.text.parse::<f64>().map_err(|_| NotANumber { label: self.label.clone(), whole: false })?))),
            Kind::Bool => self.flag.map(|b| text(json!(b))),
            Kind::Single(opts) => self.choice.and_then(|i| opts.get(i)).map(|(v, _)| json!(v)),
            Kind::Multi(opts) => {
                let picked: Vec<&String> = opts.iter().zip(&self.chosen).filter(|(_, c)| **c).map(|((v, _), _)| v).collect();
                (!picked.is_empty()).then(|| json!(picked))
            }
        })
    }
}

/// A number field holding text that is not a number: the form's warning says so.
#[derive(Debug, thiserror::Error)]
#[error("{label} must be a {}", if *whole { "whole number" } else { "number" })]
struct NotANumber {
    label: String,
    whole: bool,
}

/// What the screen shows.
enum Mode {
    Prompt,
    Waiting(String),
    Form { ask: Ask, message: String, fields: Vec<Field>, focus: usize, open: Option<usize>, warning: Option<String> },
    Url { ask: Ask, message: String, url: String },
}

struct Ui {
    faults: Vec<Fault>,
    layout: Layout,
    prompt: String,
    last: String,
    mode: Mode,
}

impl Ui {
    fn has(&self, fault: Fault) -> bool {
        self.faults.contains(&fault)
    }

    fn render(&self) -> String {
        let mut lines = vec!["probe terminal host".to_string()];
        match &self.mode {
            Mode::Prompt => lines.push(format!("> {}", self.prompt)),
            Mode::Waiting(tool) => lines.push(format!("  calling {tool}…")),
            Mode::Form { message, fields, focus, open, warning, .. } if self.layout == Layout::CursorLabelsAbove => {
                lines.push("[the probe server asks for input]".into());
                if !self.has(Fault::NoMessage) {
                    lines.push(message.clone());
                }
                // (row, column) of what has the focus.
                let mut cursor = (0, 0);
                for (i, field) in fields.iter().enumerate() {
                    lines.push(format!("{}{}", field.label, if field.required { " *" } else { "" }));
                    if *focus == i {
                        cursor = (lines.len(), 2);
                    }
                    lines.push(format!("  {}", field.display()));
                    let options: Vec<String> = match (&field.kind, *focus == i && open.is_some()) {
                        (Kind::Single(opts), true) => opts.iter().enumerate().map(|(j, (_, l))| format!("    {} {l}", if field.choice == Some(j) { "◉" } else { "○" })).collect(),
                        (Kind::Multi(opts), true) => opts.iter().zip(&field.chosen).map(|((_, l), c)| format!("    {} {l}", if *c { "☑" } else { "☐" })).collect(),
                        _ => Vec::new(),
                    };
                    if let (Some(at), false) = (open.filter(|_| *focus == i), options.is_empty()) {
                        cursor = (lines.len() + at, 4);
                    }
                    lines.extend(options);
                }
                let n = fields.len();
                if *focus >= n {
                    cursor = (lines.len(), if *focus == n { 2 } else { 10 });
                }
                lines.push("  Accept  Decline".into());
                lines.extend(warning.iter().map(|w| format!("! {w}")));
                lines.push("Tab next · Enter open/press · Space pick · Ctrl-U clear · Esc cancel".into());
                // The cursor is hidden while the screen is redrawn, as terminal UIs do.
                return format!("\x1b[?25l\x1b[H\x1b[2J{}\x1b[{};{}H\x1b[?25h", lines.join("\r\n"), cursor.0 + 1, cursor.1 + 1);
            }
            Mode::Form { message, fields, focus, open, warning, .. } => {
                lines.push("[the probe server asks for input]".into());
                if !self.has(Fault::NoMessage) {
                    lines.push(message.clone());
                }
                for (i, field) in fields.iter().enumerate() {
                    let mark = if *focus == i { "»" } else { " " };
                    lines.push(format!("{mark} {}{}: {}", field.label, if field.required { " *" } else { "" }, field.display()));
                    if let (Some(cursor), true) = (open, *focus == i) {
                        let rows: Vec<String> = match &field.kind {
                            Kind::Single(opts) => opts
                                .iter()
                                .enumerate()
                                .map(|(j, (_, l))| format!("    {} {} {l}", if j == *cursor { "»" } else { " " }, if field.choice == Some(j) { "◉" } else { "○" }))
                                .collect(),
                            Kind::Multi(opts) => opts
                                .iter()
                                .enumerate()
                                .map(|(j, (_, l))| format!("    {} {} {l}", if j == *cursor { "»" } else { " " }, if field.chosen[j] { "☑" } else { "☐" }))
                                .collect(),
                            _ => Vec::new(),
                        };
                        lines.extend(rows);
                    }
                }
                let n = fields.len();
                lines.push(format!("{}Accept  {}Decline", if *focus == n { "» " } else { "  " }, if *focus == n + 1 { "» " } else { "  " }));
                lines.extend(warning.iter().map(|w| format!("! {w}")));
                lines.push("Tab next · Enter open/press · Space pick · Ctrl-U clear · Esc cancel".into());
            }
            Mode::Url { message, url, .. } => {
                lines.push("[the probe server asks you to open a page]".into());
                lines.push(message.clone());
                if !self.has(Fault::UrlHidden) {
                    lines.push(url.clone());
                }
                lines.push("Enter open · Esc cancel".into());
            }
        }
        if !self.last.is_empty() {
            lines.push(self.last.clone());
        }
        format!("\x1b[H\x1b[2J{}", lines.join("\r\n"))
    }

    /// Shows a new elicitation.
    fn ask(&mut self, ask: Ask) {
        let message = ask.params.get("message").and_then(Value::as_str).unwrap_or_default().to_string();
        if ask.params.get("mode").and_then(Value::as_str) == Some("url") {
            let url = ask.params.get("url").and_then(Value::as_str).unwrap_or_default().to_string();
            if self.has(Fault::OpenUrl) {
                open_url(&url);
            }
            self.mode = Mode::Url { ask, message, url };
            return;
        }
        let schema = ask.params.get("requestedSchema").cloned().unwrap_or_default();
        let required: Vec<&str> = schema["required"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        let fields = schema["properties"]
            .as_object()
            .map(|p| p.iter().map(|(k, prop)| Field::from_schema(k, prop, required.contains(&k.as_str()), &self.faults)).collect())
            .unwrap_or_default();
        self.mode = Mode::Form { ask, message, fields, focus: 0, open: None, warning: None };
    }

    /// Handles a key; returns a tool to call, if the prompt asked for one.
    fn key(&mut self, key: Key) -> Option<String> {
        let as_strings = self.has(Fault::ValuesAsStrings);
        let no_required_check = self.has(Fault::NoRequiredCheck);
        let no_validation = self.has(Fault::NoValidation);
        let (esc, decline) = (if self.has(Fault::EscDeclines) { "decline" } else { "cancel" }, if self.has(Fault::DeclineAsCancel) { "cancel" } else { "decline" });
        match &mut self.mode {
            Mode::Prompt => match key {
                Key::Char(c) => self.prompt.push(c),
                Key::Backspace => {
                    self.prompt.pop();
                }
                Key::Enter => {
                    let tool = self.prompt.split("--only-tool ").nth(1).map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
                    self.prompt.clear();
                    if let Some(tool) = &tool {
                        self.mode = Mode::Waiting(tool.clone());
                    }
                    return tool;
                }
                _ => {}
            },
            Mode::Waiting(_) => {}
            Mode::Url { .. } => match key {
                Key::Esc => self.answer(json!({"action": esc})),
                Key::Enter => {
                    if let Mode::Url { url, .. } = &self.mode {
                        open_url(&url.clone());
                    }
                    self.answer(json!({"action": "accept"}));
                }
                _ => {}
            },
            Mode::Form { fields, focus, open, warning, .. } => {
                let n = fields.len();
                match key {
                    Key::Esc => self.answer(json!({"action": esc})),
                    Key::Tab => {
                        *focus = (*focus + 1) % (n + 2);
                        *open = None;
                    }
                    Key::Down => {
                        if let (Some(cursor), Some(field)) = (open.as_mut(), fields.get(*focus)) {
                            let len = match &field.kind {
                                Kind::Single(o) | Kind::Multi(o) => o.len(),
                                _ => 0,
                            };
                            *cursor = (*cursor + 1).min(len.saturating_sub(1));
                        }
                    }
                    Key::Char(' ') => match (fields.get_mut(*focus), *open) {
                        (Some(field), Some(cursor)) => match &field.kind {
                            Kind::Single(_) => {
                                field.choice = Some(cursor);
                                *open = None;
                            }
                            Kind::Multi(_) => field.chosen[cursor] = !field.chosen[cursor],
                            _ => {}
                        },
                        (Some(field), None) if matches!(field.kind, Kind::Bool) => field.flag = Some(!field.flag.unwrap_or(false)),
                        (Some(field), None) if matches!(field.kind, Kind::Text | Kind::Integer | Kind::Number) => field.text.push(' '),
                        _ => {}
                    },
                    Key::Char(c) => {
                        if let Some(field) = fields.get_mut(*focus).filter(|f| matches!(f.kind, Kind::Text | Kind::Integer | Kind::Number)) {
                            field.text.push(c);
                        }
                    }
                    Key::Backspace => {
                        if let Some(field) = fields.get_mut(*focus) {
                            field.text.pop();
                        }
                    }
                    Key::CtrlU => {
                        if let Some(field) = fields.get_mut(*focus) {
                            field.text.clear();
                            field.flag = None;
                            field.choice = None;
                            field.chosen.iter_mut().for_each(|c| *c = false);
                        }
                    }
                    Key::Enter if *focus == n + 1 => self.answer(json!({"action": decline})),
                    Key::Enter if *focus == n => {
                        let mut content = serde_json::Map::new();
                        let mut problem = None;
                        for field in fields.iter() {
                            match field.value(as_strings) {
                                Ok(Some(v)) => {
                                    if let Some(broken) = field.value(false).ok().flatten().and_then(|typed| field.broken_rule(&typed)).filter(|_| !no_validation) {
                                        problem = Some(broken);
                                    }
                                    content.insert(field.key.clone(), v);
                                }
                                Ok(None) if field.required && !no_required_check => problem = Some(format!("{} is required", field.label)),
                                Ok(None) => {}
                                Err(e) => problem = Some(e.to_string()),
                            }
                        }
                        match problem {
                            Some(p) => *warning = Some(p),
                            None => self.answer(json!({"action": "accept", "content": content})),
                        }
                    }
                    Key::Enter => {
                        if let Some(field) = fields.get(*focus) {
                            match (&field.kind, *open) {
                                (Kind::Single(_) | Kind::Multi(_), None) => *open = Some(0),
                                (Kind::Multi(_), Some(_)) => *open = None,
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        None
    }

    /// Resolves when the server withdraws the request on screen (never, without one).
    async fn withdrawn(&self) {
        match &self.mode {
            Mode::Form { ask, .. } | Mode::Url { ask, .. } => ask.withdrawn.cancelled().await,
            _ => std::future::pending().await,
        }
    }

    /// Takes the withdrawn request off the screen; nothing is sent for it.
    fn withdraw(&mut self) {
        self.mode = Mode::Waiting("the tool".into());
        self.last = "the server withdrew its request".into();
    }

    /// Sends the person's answer and leaves the form.
    fn answer(&mut self, result: Value) {
        let mode = std::mem::replace(&mut self.mode, Mode::Prompt);
        match mode {
            Mode::Form { ask, .. } | Mode::Url { ask, .. } => {
                self.last = format!("answered {}", result["action"].as_str().unwrap_or("?"));
                let _ = ask.reply.send(result);
                self.mode = Mode::Waiting("the tool".into());
            }
            other => self.mode = other,
        }
    }
}

fn open_url(url: &str) {
    let opener = std::env::var("BROWSER").unwrap_or_else(|_| "xdg-open".into());
    let _ = std::process::Command::new(opener).arg(url).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status();
}

/// Puts the terminal in raw mode; the guard restores it.
struct RawMode(Option<libc::termios>);

impl RawMode {
    fn enter() -> RawMode {
        // SAFETY: tcgetattr/tcsetattr on stdin with a zeroed termios the call fills in.
        unsafe {
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut saved) != 0 {
                return RawMode(None);
            }
            let mut raw = saved;
            libc::cfmakeraw(&mut raw);
            libc::tcsetattr(0, libc::TCSANOW, &raw);
            RawMode(Some(saved))
        }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        if let Some(saved) = self.0 {
            // SAFETY: restores the attributes read in `enter`.
            unsafe {
                libc::tcsetattr(0, libc::TCSANOW, &saved);
            }
        }
    }
}

/// Runs the host against the probe server started by `server` (a command line), until Ctrl-C.
pub async fn run(server: &[String], era: Era, faults: Vec<Fault>, layout: Layout) -> anyhow::Result<()> {
    let Some((program, args)) = server.split_first() else { anyhow::bail!("give the probe server's command line") };
    let _raw = RawMode::enter();
    let (ask_tx, mut asks) = mpsc::unbounded_channel();
    let handler = TerminalHandler { asks: ask_tx, keeps_withdrawn: faults.contains(&Fault::KeepsWithdrawnForm) };
    let mut command = tokio::process::Command::new(PathBuf::from(program));
    command.args(args);
    let (process, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn()?;
    let mode = match era {
        Era::Legacy => ClientLifecycleMode::Initialize,
        Era::Modern => ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
    };
    let client = std::sync::Arc::new(handler.serve_with_lifecycle(process, mode).await.map_err(|e| anyhow::anyhow!("cannot connect: {e}"))?);
    let _ = client.list_tools(None).await;

    let (key_tx, mut key_rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin();
        let mut buf = [0u8; 256];
        while let Ok(n) = stdin.read(&mut buf) {
            if n == 0 || key_tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let (done_tx, mut done) = mpsc::unbounded_channel::<String>();
    let mut ui = Ui { faults, layout, prompt: String::new(), last: String::new(), mode: Mode::Prompt };
    let mut out = Screen::open()?;
    let mut reader = KeyReader::default();
    loop {
        out.draw(&ui.render());
        let keys = tokio::select! {
            Some(input) = key_rx.recv() => reader.feed(&input),
            // A key's first bytes with nothing after them for a while: a lone Esc.
            () = tokio::time::sleep(UNFINISHED_KEY_WAIT), if reader.holds() => reader.flush(),
            Some(ask) = asks.recv() => {
                ui.ask(ask);
                continue;
            }
            _ = ui.withdrawn() => {
                ui.withdraw();
                continue;
            }
            Some(line) = done.recv() => {
                ui.last = line;
                if matches!(ui.mode, Mode::Waiting(_)) {
                    ui.mode = Mode::Prompt;
                }
                continue;
            }
            else => return Ok(()),
        };
        for key in keys {
            if key == Key::CtrlC {
                // Leaving closes the server's stdin; it ends its journal.
                return Ok(());
            }
            if let Some(tool) = ui.key(key) {
                let (client, done) = (client.clone(), done_tx.clone());
                tokio::spawn(async move {
                    // The client's call_tool answers an InputRequiredResult (2026-07-28) itself.
                    let outcome = client.call_tool(CallToolRequestParams::new(tool.clone())).await;
                    let _ = done.send(format!("{tool} {}", if outcome.is_ok() { "finished" } else { "failed" }));
                });
            }
        }
    }
}

/// How long the host waits for the rest of a key whose first bytes arrived (an ESC that may begin
/// an arrow's sequence) before taking what it has.
const UNFINISHED_KEY_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

/// The terminal the host draws on. Each screen goes out in one write, as a terminal UI that
/// renders a frame into a buffer does: a driver never sees half a screen followed, later, by
/// the rest.
struct Screen(std::fs::File);

impl Screen {
    fn open() -> anyhow::Result<Screen> {
        use std::os::fd::AsFd;
        let fd = std::io::stdout().as_fd().try_clone_to_owned()?;
        Ok(Screen(std::fs::File::from(fd)))
    }

    fn draw(&mut self, screen: &str) {
        let _ = self.0.write_all(screen.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_parses_and_uses_known_keys() {
        profile(Layout::Marker).validate().unwrap();
        let cursor = profile(Layout::CursorLabelsAbove);
        cursor.validate().unwrap();
        let keys = cursor.keys.as_ref().expect("the fake terminal host has keys for its form");
        assert!(keys.focus_at_cursor && keys.labels_above && keys.focus_marker.is_empty());
    }

    fn form(faults: Vec<Fault>) -> (Ui, oneshot::Receiver<Value>) {
        let (reply, answer) = oneshot::channel();
        let mut ui = Ui { faults, layout: Layout::Marker, prompt: String::new(), last: String::new(), mode: Mode::Prompt };
        ui.ask(Ask { params: probe_server::surface::elicit_form_params(), reply, withdrawn: Default::default() });
        (ui, answer)
    }

    #[test]
    fn a_form_shows_defaults_and_accepts_typed_values() {
        let (mut ui, mut answer) = form(Vec::new());
        let screen = ui.render();
        assert!(screen.contains("» E-mail *: probe@example.org") || screen.contains("E-mail"), "{screen}");
        assert!(screen.contains("please confirm"));
        for _ in 0..5 {
            ui.key(Key::Tab);
        }
        ui.key(Key::Enter);
        let sent = answer.try_recv().unwrap();
        assert_eq!(sent["action"], "accept");
        assert_eq!(sent["content"]["count"], json!(3));
        assert_eq!(sent["content"]["agree"], json!(true));
    }

    #[test]
    fn faults_change_what_is_sent() {
        let (mut ui, mut answer) = form(vec![Fault::ValuesAsStrings]);
        for _ in 0..5 {
            ui.key(Key::Tab);
        }
        ui.key(Key::Enter);
        assert_eq!(answer.try_recv().unwrap()["content"]["count"], json!("3"));
        let (mut ui, mut answer) = form(vec![Fault::EscDeclines]);
        ui.key(Key::Esc);
        assert_eq!(answer.try_recv().unwrap()["action"], "decline");
        let (mut ui, mut answer) = form(vec![Fault::DropDefaults]);
        for _ in 0..5 {
            ui.key(Key::Tab);
        }
        ui.key(Key::Enter);
        assert!(answer.try_recv().is_err(), "required fields were empty, nothing may be sent");
        assert!(ui.render().contains("is required"));
    }

    #[test]
    fn formats_and_bounds_are_checked_unless_the_fault_is_on() {
        for (faults, held) in [(Vec::new(), true), (vec![Fault::NoValidation], false)] {
            let (mut ui, mut answer) = form(faults);
            ui.key(Key::Tab); // count
            ui.key(Key::CtrlU);
            for c in "11".chars() {
                ui.key(Key::Char(c));
            }
            for _ in 0..4 {
                ui.key(Key::Tab);
            }
            ui.key(Key::Enter);
            assert_eq!(answer.try_recv().is_err(), held);
            if held {
                assert!(ui.render().contains("count must be at most 10"), "{}", ui.render());
            }
        }
    }
}
