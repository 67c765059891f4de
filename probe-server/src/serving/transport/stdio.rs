//! The stdio tap: newline-delimited JSON-RPC over any reader/writer pair, journalled raw.
//!
//! Unlike rmcp's stdio helper it drops nothing silently: every inbound line is journalled before
//! it is parsed; unparsable JSON is answered with -32700, JSON that is not a JSON-RPC message with
//! -32600; a line over [`MAX_LINE`] is journalled as length + sha256 + head and answered with an
//! error; bytes left without a newline at end of input are journalled as a partial frame.
//! Notifications and responses that arrive before the first request are journalled and withheld
//! from rmcp (whose lifecycle would otherwise end the session). If rmcp ends a session (for
//! example after refusing `initialize`), a new one is served on the same input.

use std::sync::Arc;

use rmcp::service::{RoleServer, RxJsonRpcMessage, ServiceExt, TxJsonRpcMessage};
use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, Mutex};

use super::Summary;
use crate::journal::{Direction, Entry, EventKind, Journal, RawText, Transport};
use crate::note::{self, Payload};
use crate::server::{ProbeServer, ServeOptions};

/// The longest line served: the frame limit both transports share. Longer lines are
/// summarised and answered with an error.
pub const MAX_LINE: usize = super::MAX_FRAME;

const SESSION: &str = "stdio";

/// One unit read from the input.
#[derive(Debug, PartialEq)]
pub enum ReadFrame {
    Line(Vec<u8>),
    Oversize {
        len: usize,
        sha256: String,
        head: Vec<u8>,
    },
    /// Bytes without a terminating newline at end of input.
    Partial(Vec<u8>),
    Eof,
}

fn oversize_frame(summary: Summary) -> ReadFrame {
    let (len, sha256, head) = summary.finish();
    ReadFrame::Oversize { len, sha256, head }
}

/// Reads the next newline-terminated frame, never holding more than [`MAX_LINE`] bytes of it
/// (a CRLF ending's CR aside).
pub async fn next_frame<R: AsyncBufRead + Unpin>(reader: &mut R, max_line: usize) -> std::io::Result<ReadFrame> {
    let mut line = Vec::new();
    let mut oversize: Option<Summary> = None;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match oversize {
                Some(summary) => oversize_frame(summary),
                None if line.is_empty() => ReadFrame::Eof,
                None => ReadFrame::Partial(line),
            });
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        match &mut oversize {
            Some(summary) => summary.feed(chunk, done.is_some()),
            // One byte over the limit is held for now: it may be the CR of a CRLF ending.
            None if line.len() + chunk.len() > max_line + 1 => {
                let mut summary = Summary::new();
                summary.feed(&line, false);
                summary.feed(chunk, done.is_some());
                oversize = Some(summary);
                line = Vec::new();
            }
            None => line.extend_from_slice(chunk),
        }
        let consumed = done.unwrap_or(chunk.len());
        reader.consume(consumed);
        if done.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if oversize.is_none() && line.len() > max_line {
                let mut summary = Summary::new();
                summary.feed(&line, true);
                return Ok(oversize_frame(summary));
            }
            return Ok(match oversize {
                Some(summary) => oversize_frame(summary),
                None => ReadFrame::Line(line),
            });
        }
    }
}

fn error_frame(id: Value, code: i64, message: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})).unwrap_or_default()
}

/// How long, after the client closes its input, the server keeps going to answer requests it
/// already accepted (a pending answer may itself wait on the client for this long).
pub const DRAIN_AFTER_EOF: std::time::Duration = std::time::Duration::from_secs(12);

/// Ids of client requests forwarded to rmcp and not yet answered.
#[derive(Default)]
struct Pending {
    ids: std::sync::Mutex<std::collections::HashSet<String>>,
    answered: tokio::sync::Notify,
}

impl Pending {
    /// Adds an in-flight id; false if a request with that id is still in flight.
    fn insert(&self, id: &Value) -> bool {
        self.ids.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string())
    }

    fn remove(&self, id: &Value) {
        self.ids.lock().unwrap_or_else(|p| p.into_inner()).remove(&id.to_string());
        self.answered.notify_waiters();
    }

    fn is_empty(&self) -> bool {
        self.ids.lock().unwrap_or_else(|p| p.into_inner()).is_empty()
    }

    async fn drained(&self) {
        loop {
            let answered = self.answered.notified();
            if self.is_empty() {
                return;
            }
            answered.await;
        }
    }
}

/// Whether the session on this input has been initialized. A second `initialize` never reaches
/// the SDK (it would switch to the newly asked version while the journal and the first answer say
/// the old): asking the version the first one asked, it gets the first answer again, as SDK servers
/// that accept a repeated `initialize` give it; asking another, it is refused.
#[derive(Default)]
struct Lifecycle {
    /// The `initialize` in flight: its id as JSON text, and the version it asked for.
    asked: std::sync::Mutex<Option<(String, Option<String>)>>,
    /// The version the opening `initialize` asked for, and the result it was answered.
    opened: std::sync::Mutex<Option<(Option<String>, Value)>>,
}

impl Lifecycle {
    fn asking(&self, id: &Value, version: Option<String>) {
        *self.asked.lock().unwrap_or_else(|p| p.into_inner()) = Some((id.to_string(), version));
    }

    /// Notes an outbound response: the answer to the `initialize` in flight, with a result, opens the session.
    fn answered(&self, id: &Value, result: Option<&Value>) {
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        let id = id.to_string();
        if asked.as_ref().is_some_and(|(asked_id, _)| *asked_id == id) {
            let version = asked.take().and_then(|(_, version)| version);
            if let Some(result) = result {
                *self.opened.lock().unwrap_or_else(|p| p.into_inner()) = Some((version, result.clone()));
            }
        }
    }

    fn is_initialized(&self) -> bool {
        self.opened.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }

    /// Whether an `initialize` was sent on and not yet answered.
    fn in_flight(&self) -> bool {
        self.asked.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }

    /// The opening answer, for a repeated `initialize` that asks the same version.
    fn answer_again(&self, version: Option<&str>) -> Option<Value> {
        let opened = self.opened.lock().unwrap_or_else(|p| p.into_inner());
        opened.as_ref().filter(|(asked, _)| asked.as_deref() == version).map(|(_, result)| result.clone())
    }

    /// A new SDK session starts on the same input (the last one ended).
    fn reset(&self) {
        *self.opened.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// Writes one outbound frame to the journal and queues it for the client.
#[derive(Clone)]
struct Outbound {
    journal: Journal,
    tx: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Pending>,
    lifecycle: Arc<Lifecycle>,
    /// Whether hostile skill manifests replace their placeholders on the way out.
    rewrite: Option<super::Rewrite>,
}

impl Outbound {
    fn send(&self, bytes: Vec<u8>) {
        let rewritten = self.rewrite.and_then(|rewrite| std::str::from_utf8(&bytes).ok().and_then(rewrite));
        let bytes = rewritten.map_or(bytes, String::into_bytes);
        let parsed: Option<Value> = serde_json::from_slice(&bytes).ok();
        self.journal.log(Entry::frame(SESSION, Transport::Stdio, Direction::ServerToClient, EventKind::Frame, &bytes, parsed.as_ref()));
        if let Some(frame) = &parsed {
            if frame.get("method").is_none() {
                if let Some(id) = frame.get("id") {
                    self.pending.remove(id);
                    self.lifecycle.answered(id, frame.get("result"));
                }
            }
        }
        let _ = self.tx.send(bytes);
    }
}

/// The rmcp transport handed to one rmcp session; several may be created over one input.
struct StdioTap {
    inbound: Arc<Mutex<mpsc::Receiver<RxJsonRpcMessage<RoleServer>>>>,
    outbound: Outbound,
    server: ProbeServer,
}

impl rmcp::transport::Transport<RoleServer> for StdioTap {
    type Error = std::io::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleServer>) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let result = serde_json::to_vec(&item).map(|bytes| self.outbound.send(bytes)).map_err(std::io::Error::from);
        std::future::ready(result)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let next = self.inbound.lock().await.recv().await;
        if next.is_none() {
            // End of input: answer what was already accepted, and let open listen streams end
            // while rmcp can still send their final results, before letting rmcp stop.
            let _ = tokio::time::timeout(DRAIN_AFTER_EOF, self.outbound.pending.drained()).await;
            self.server.closing().cancel();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), self.server.listens_closed()).await;
        }
        next
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Reads frames, journals them, answers what rmcp would not, and forwards the rest.
async fn pump_input<R: AsyncRead + Unpin>(
    reader: R,
    journal: Journal,
    outbound: Outbound,
    forward: mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
    closing: tokio_util::sync::CancellationToken,
    variant: crate::Variant,
    task_timing: crate::tasks::TaskTiming,
) {
    // A push stream's notifications stop when the input ends.
    let closing_events = closing.clone();
    let _closing = closing.drop_guard();
    // The tasks of a legacy session in the tasks variant, which the tap serves itself.
    let legacy_tasks = Arc::new(super::legacy_tasks::LegacyTasks::new(task_timing));
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut seen_request = false;
    let journal_frame = |kind: EventKind, bytes: &[u8], parsed: Option<&Value>| {
        journal.log(Entry::frame(SESSION, Transport::Stdio, Direction::ClientToServer, kind, bytes, parsed));
    };
    loop {
        let frame = match next_frame(&mut reader, MAX_LINE).await {
            Ok(frame) => frame,
            Err(err) => {
                journal.log(Entry::note(SESSION, Transport::Stdio, note::InputError { error: err.to_string() }.detail()));
                break;
            }
        };
        let line = match frame {
            ReadFrame::Eof => {
                journal.log(Entry::note(SESSION, Transport::Stdio, note::InputClosed { clean: true, partial_bytes: None }.detail()));
                break;
            }
            ReadFrame::Partial(bytes) => {
                journal_frame(EventKind::Partial, &bytes, None);
                journal.log(Entry::note(SESSION, Transport::Stdio, note::InputClosed { clean: false, partial_bytes: Some(bytes.len() as u64) }.detail()));
                break;
            }
            ReadFrame::Oversize { len, sha256, head } => {
                let mut entry = Entry::new(SESSION, Transport::Stdio, Direction::ClientToServer, EventKind::Oversize);
                entry.raw = Some(RawText::summary(len, &sha256, &head));
                journal.log(entry);
                outbound.send(error_frame(Value::Null, -32600, &format!("line of {len} bytes exceeds the {MAX_LINE}-byte limit")));
                continue;
            }
            ReadFrame::Line(line) => line,
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            journal_frame(EventKind::Blank, &line, None);
            continue;
        }
        if let Some((entry, message)) = super::too_many_values_refusal(SESSION, Transport::Stdio, &line) {
            journal.log(entry);
            outbound.send(error_frame(Value::Null, -32600, &message));
            continue;
        }
        // A large line waits its turn to be parsed, as an HTTP body does (one budget per process);
        // the turn ends once the frame is on its way to the SDK.
        let _parsing = super::budget::parsing(line.len()).await;
        let value: Value = match serde_json::from_slice(&line) {
            Ok(value) => value,
            Err(err) => {
                journal_frame(EventKind::Unparsable, &line, None);
                outbound.send(error_frame(Value::Null, -32700, &format!("parse error: {err}")));
                continue;
            }
        };
        if !value.is_object() || value.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            journal_frame(EventKind::NotJsonRpc, &line, Some(&value));
            let id = value.get("id").cloned().unwrap_or(Value::Null);
            outbound.send(error_frame(id, -32600, "invalid request: not a JSON-RPC 2.0 message (batches are not served)"));
            continue;
        }
        journal_frame(EventKind::Frame, &line, Some(&value));
        drop(line);
        let is_request = value.get("method").is_some() && value.get("id").is_some();
        let method = value.get("method").and_then(Value::as_str).map(str::to_string);
        let id = value.get("id").cloned().unwrap_or(Value::Null);
        let asked_version = value.pointer("/params/protocolVersion").and_then(Value::as_str).map(str::to_string);
        // A variant that refuses server/discover in its own way answers it here.
        if let Some(refusal) = super::discover_refusal(variant, &value) {
            journal.log(Entry::note(SESSION, Transport::Stdio, refusal.note()));
            if let super::DiscoverRefusal::Error { id, code, message } = refusal {
                outbound.send(error_frame(id, code, message));
            }
            continue;
        }
        // A legacy session's tasks (tasks variant) are the tap's: rmcp does not know them. They
        // pass the same screen and in-flight guard as every other request before the tap answers.
        let intercepted = super::legacy_tasks::intercepts(variant, &value).then(|| value.clone());
        // So are a 2026-07-28 session's events (events variant).
        let events_asked = super::events::intercepts(variant, &value).then(|| value.clone());
        // The value is moved into the SDK's type, not copied: a large frame is held once.
        let message = match super::screen(value) {
            Ok(message) => message,
            Err(refusal) => {
                if let Some(note) = refusal.note {
                    journal.log(Entry::note(SESSION, Transport::Stdio, note));
                }
                if let Some(answer) = refusal.answer {
                    outbound.send(error_frame(answer.id, answer.code, &answer.message));
                }
                continue;
            }
        };
        if is_request && method.as_deref() == Some("initialize") {
            if outbound.lifecycle.is_initialized() {
                let again = outbound.lifecycle.answer_again(asked_version.as_deref());
                journal.log(Entry::note(
                    SESSION,
                    Transport::Stdio,
                    note::RepeatedInitialize { id: id.clone(), version: json!(asked_version), answered_again: again.is_some(), in_flight: false }.detail(),
                ));
                match again {
                    Some(result) => outbound.send(serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).unwrap_or_default()),
                    None => outbound.send(error_frame(id, -32600, "invalid request: the session is already initialized with another protocol version")),
                }
                continue;
            }
            if outbound.lifecycle.in_flight() {
                // A second opening before the first is answered would switch the session under
                // the first (it did: three answers, ending on the last version asked).
                journal.log(Entry::note(
                    SESSION,
                    Transport::Stdio,
                    note::RepeatedInitialize { id: id.clone(), version: json!(asked_version), answered_again: false, in_flight: true }.detail(),
                ));
                outbound.send(error_frame(id, -32600, "invalid request: an initialize is already in flight"));
                continue;
            }
            outbound.lifecycle.asking(&id, asked_version);
        }
        if !is_request && !seen_request {
            journal.log(Entry::note(SESSION, Transport::Stdio, note::WithheldBeforeFirstRequest { method: method.clone().unwrap_or_default() }.detail()));
            continue;
        }
        seen_request |= is_request;
        // A listen stream is open by design until the client goes; it is not waited for.
        if is_request && method.as_deref() != Some("subscriptions/listen") {
            // A second request with the id of one still in flight would take its place in the SDK
            // and the first would never be answered: refuse the second.
            if !outbound.pending.insert(&id) {
                journal.log(Entry::note(SESSION, Transport::Stdio, note::DuplicateRequestId { id: id.clone() }.detail()));
                outbound.send(error_frame(id.clone(), -32600, &format!("invalid request: id {id} is already in use by a request still in flight")));
                continue;
            }
        }
        if let Some(asked) = events_asked {
            serve_events(&asked, &outbound, &closing_events);
            continue;
        }
        if let Some(asked) = intercepted {
            if !outbound.lifecycle.is_initialized() {
                outbound.send(error_frame(id, -32600, "invalid request: the session is not initialized"));
                continue;
            }
            let (tasks, outbound) = (legacy_tasks.clone(), outbound.clone());
            tokio::spawn(async move {
                let answer = tasks.answer(&asked, SESSION).await;
                outbound.send(serde_json::to_vec(&answer).unwrap_or_default());
            });
            continue;
        }
        if forward.send(message).await.is_err() && is_request {
            outbound.send(error_frame(id, -32603, "the probe server's session has ended"));
        }
    }
}

/// Answers an `events/*` request of the events variant, or starts its push stream: the
/// notifications go out as timed, and the request stays unanswered (it ends with the session).
fn serve_events(asked: &Value, outbound: &Outbound, closing: &tokio_util::sync::CancellationToken) {
    match super::events::serve(asked) {
        super::events::Served::Answer(answer) => outbound.send(serde_json::to_vec(&answer).unwrap_or_default()),
        super::events::Served::Stream(script) => {
            let (outbound, closing) = (outbound.clone(), closing.clone());
            tokio::spawn(async move {
                for (delay, notification) in script {
                    tokio::select! {
                        _ = closing.cancelled() => return,
                        _ = tokio::time::sleep(delay) => outbound.send(serde_json::to_vec(&notification).unwrap_or_default()),
                    }
                }
            });
        }
    }
}

/// Serves the probe server over one reader/writer pair until the input ends.
pub async fn serve_stdio<R, W>(reader: R, mut writer: W, journal: Journal, options: ServeOptions) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer_task = tokio::spawn(async move {
        let mut batch = Vec::with_capacity(64 * 1024);
        while let Some(bytes) = out_rx.recv().await {
            // Frames already queued go out in the same write; every frame is already journalled.
            batch.clear();
            batch.extend_from_slice(&bytes);
            batch.push(b'\n');
            while batch.len() < 64 * 1024 {
                let Ok(more) = out_rx.try_recv() else { break };
                batch.extend_from_slice(&more);
                batch.push(b'\n');
            }
            if writer.write_all(&batch).await.is_err() || writer.flush().await.is_err() {
                return false;
            }
        }
        true
    });
    let outbound = Outbound { journal: journal.clone(), tx: out_tx, pending: Arc::default(), lifecycle: Arc::default(), rewrite: super::outgoing_rewrite(options.variant) };
    let (in_tx, in_rx) = mpsc::channel(64);
    let (variant, task_timing) = (options.variant, options.task_timing);
    let handler = ProbeServer::new(journal.clone(), SESSION, Transport::Stdio, options);
    handler.note_serving(|_| {});
    let pump = tokio::spawn(pump_input(reader, journal.clone(), outbound.clone(), in_tx, handler.closing(), variant, task_timing));
    let inbound = Arc::new(Mutex::new(in_rx));
    loop {
        outbound.lifecycle.reset();
        let tap = StdioTap { inbound: inbound.clone(), outbound: outbound.clone(), server: handler.clone() };
        match handler.clone().serve(tap).await {
            Ok(running) => {
                let reason = running.waiting().await;
                journal.log(Entry::note(SESSION, Transport::Stdio, note::SessionEnded { reason: format!("{reason:?}") }.detail()));
            }
            Err(err) => journal.log(Entry::note(SESSION, Transport::Stdio, note::SessionFailed { error: err.to_string() }.detail())),
        }
        // A new session is served while input may still come, or frames already read wait. The
        // channel, not the pump's task, says whether input may still come (the pump holds its only
        // sender): the pump closes it before its task is finished, and a session that failed on
        // the closed channel in between was served again at once, over and over, each journalled.
        let input_done = {
            let input = inbound.lock().await;
            input.is_closed() && input.is_empty()
        };
        if input_done {
            break;
        }
    }
    let _ = pump.await;
    drop(outbound);
    let _ = writer_task.await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], max: usize) -> Vec<ReadFrame> {
        let mut reader = BufReader::with_capacity(8, input);
        let mut out = Vec::new();
        loop {
            let frame = next_frame(&mut reader, max).await.unwrap();
            let end = frame == ReadFrame::Eof || matches!(frame, ReadFrame::Partial(_));
            out.push(frame);
            if end {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn lines_are_split_and_crlf_trimmed() {
        let got = frames(b"{\"a\":1}\r\n\nxyz\n", 1024).await;
        assert_eq!(got, vec![ReadFrame::Line(b"{\"a\":1}".to_vec()), ReadFrame::Line(vec![]), ReadFrame::Line(b"xyz".to_vec()), ReadFrame::Eof]);
    }

    #[tokio::test]
    async fn an_oversize_line_is_summarised_and_the_next_line_still_read() {
        let mut input = vec![b'x'; 100];
        input.extend_from_slice(b"\nok\n");
        let got = frames(&input, 50).await;
        match &got[0] {
            ReadFrame::Oversize { len, sha256, head } => {
                assert_eq!(*len, 100);
                assert_eq!(sha256, &crate::journal::sha256_hex(&[b'x'; 100]));
                assert_eq!(head.len(), 100.min(crate::journal::HEAD_BYTES));
            }
            other => panic!("expected oversize, got {other:?}"),
        }
        assert_eq!(got[1], ReadFrame::Line(b"ok".to_vec()));
    }

    #[tokio::test]
    async fn bytes_without_newline_at_eof_are_a_partial_frame() {
        let got = frames(b"{\"jsonrpc\":\"2.0\",\"me", 1024).await;
        assert_eq!(got, vec![ReadFrame::Partial(b"{\"jsonrpc\":\"2.0\",\"me".to_vec())]);
    }
}
