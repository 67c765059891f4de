//! The wire journal: an append-only JSONL file, one event per line, each line written with a single
//! `write` call so that a crash loses at most the line being written.
//!
//! Every frame in both directions goes here *before* anything interprets it, including frames that
//! do not parse. Frames above [`INLINE_LIMIT`] bytes are kept as length + sha256 + their first KiB.
//! A finished journal may be compacted ([`delta`]): frames that repeat an earlier one are stored as
//! a change to it, and the reader puts them back exactly.

pub mod delta;
pub mod stored;

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Version of the line format. Bump on any incompatible change.
pub const FORMAT_VERSION: u32 = 1;
/// Raw text up to this many bytes is stored verbatim; longer text is summarised.
pub const INLINE_LIMIT: usize = 256 * 1024;
/// How much of a summarised frame is kept.
pub const HEAD_BYTES: usize = 1024;

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot open journal {path}: {source}")]
    Open { path: String, source: std::io::Error },
    #[error("cannot write journal: {0}")]
    Write(#[from] std::io::Error),
    #[error("journal line {line} is not a valid event: {message}")]
    BadLine { line: usize, message: String },
    #[error("journal line {line} has format_version {found}, this build reads {FORMAT_VERSION} and {}", delta::DELTA_FORMAT_VERSION)]
    Version { line: usize, found: u32 },
    #[error(transparent)]
    Delta(#[from] delta::DeltaError),
}

/// An I/O failure on the journal file at `path`.
fn at(path: &Path) -> impl FnOnce(std::io::Error) -> JournalError + '_ {
    move |source| JournalError::Open { path: path.display().to_string(), source }
}

/// Which way a frame travelled, or `Note` for something the server itself observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[serde(rename = "c2s")]
    ClientToServer,
    #[serde(rename = "s2c")]
    ServerToClient,
    Note,
}

/// The transport a frame travelled over, and the transport a run is made over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    Stdio,
    Http,
}

impl Transport {
    pub const ALL: [Transport; 2] = [Transport::Stdio, Transport::Http];

    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
        }
    }
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A JSON-RPC message (request, notification, response or error).
    Frame,
    /// Bytes that are not JSON at all.
    Unparsable,
    /// Valid JSON that is not a JSON-RPC message (a batch, a bare string, a bad envelope).
    NotJsonRpc,
    /// A line longer than the transport serves; only length, digest and head are kept.
    Oversize,
    /// Bytes left without a terminating newline when the client went away.
    Partial,
    /// A blank line.
    Blank,
    /// An HTTP request line with the headers that matter.
    HttpRequest,
    /// An HTTP response status and the headers that matter.
    HttpResponse,
    /// A request the HTTP layer refused (foreign Origin or Host).
    Refused,
    /// Something the server noted: session start, era, end of input, a withheld frame.
    Note,
}

/// One journal line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub format_version: u32,
    pub seq: u64,
    /// Microseconds since the journal was opened (monotonic clock).
    pub t_us: u64,
    pub session: String,
    pub transport: Transport,
    pub dir: Direction,
    pub kind: EventKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    #[serde(default)]
    pub raw_len: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The exact bytes of `raw` (or of `head` for a summarised frame), base64, where they are not
    /// UTF-8: `raw` and `head` are then lossy text, with U+FFFD for what did not decode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_base64: Option<String>,
    /// In a compacted journal, `raw` stored as a change to an earlier frame; [`parse_journal`]
    /// puts the text back into `raw`, so readers never see this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_delta: Option<delta::RawDelta>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
}

/// What a caller hands the journal; sequence number and timestamp are assigned on write.
#[derive(Debug, Clone)]
pub struct Entry {
    pub session: String,
    pub transport: Transport,
    pub dir: Direction,
    pub kind: EventKind,
    pub raw: Option<RawText>,
    pub method: Option<String>,
    pub id: Option<Value>,
    pub detail: Option<Value>,
}

/// Raw bytes of a frame, kept verbatim or summarised depending on size.
#[derive(Debug, Clone)]
pub struct RawText {
    pub len: usize,
    pub text: Option<String>,
    pub sha256: Option<String>,
    pub head: Option<String>,
    /// The kept bytes (all of them, or the head), base64, when they are not UTF-8.
    pub base64: Option<String>,
}

/// The bytes as text, and as base64 too when they are not UTF-8 (the text is then lossy).
fn text_and_base64(bytes: &[u8]) -> (String, Option<String>) {
    use base64::Engine;
    match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_string(), None),
        Err(_) => (String::from_utf8_lossy(bytes).into_owned(), Some(base64::engine::general_purpose::STANDARD.encode(bytes))),
    }
}

impl RawText {
    /// Keeps `bytes` verbatim when small enough, otherwise length + digest + head.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        if bytes.len() <= INLINE_LIMIT {
            let (text, base64) = text_and_base64(bytes);
            // Lossy text alone would lose the bytes: the digest names the original.
            let sha256 = base64.is_some().then(|| sha256_hex(bytes));
            RawText { len: bytes.len(), text: Some(text), sha256, head: None, base64 }
        } else {
            Self::summary(bytes.len(), &sha256_hex(bytes), &bytes[..HEAD_BYTES.min(bytes.len())])
        }
    }

    /// A summary for a frame whose bytes were not all kept.
    pub fn summary(len: usize, sha256: &str, head: &[u8]) -> Self {
        let (head, base64) = text_and_base64(&head[..HEAD_BYTES.min(head.len())]);
        RawText { len, text: None, sha256: Some(sha256.to_string()), head: Some(head), base64 }
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Bytes as lower-case hex (how digests are written in the journal).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Entry {
    pub fn new(session: &str, transport: Transport, dir: Direction, kind: EventKind) -> Self {
        Entry { session: session.to_string(), transport, dir, kind, raw: None, method: None, id: None, detail: None }
    }

    /// A frame with its raw bytes; method and id are filled in when the bytes are a JSON object.
    pub fn frame(session: &str, transport: Transport, dir: Direction, kind: EventKind, bytes: &[u8], parsed: Option<&Value>) -> Self {
        let mut entry = Entry::new(session, transport, dir, kind);
        entry.raw = Some(RawText::from_bytes(bytes));
        if let Some(Value::Object(map)) = parsed {
            entry.method = map.get("method").and_then(Value::as_str).map(str::to_string);
            entry.id = map.get("id").cloned();
        }
        entry
    }

    pub fn note(session: &str, transport: Transport, detail: Value) -> Self {
        let mut entry = Entry::new(session, transport, Direction::Note, EventKind::Note);
        entry.detail = Some(detail);
        entry
    }

    pub fn with_detail(mut self, detail: Value) -> Self {
        self.detail = Some(detail);
        self
    }
}

struct Inner {
    sink: Box<dyn Write + Send>,
    seq: u64,
    buf: Vec<u8>,
}

/// A shared handle to one journal file. Cloning is cheap; all clones write to the same file.
#[derive(Clone)]
pub struct Journal {
    inner: Arc<Mutex<Inner>>,
    start: Instant,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Journal")
    }
}

impl Journal {
    /// Creates (truncating) the journal at `path`. The file is opened for appending, as every
    /// journal is: a line another writer adds (the runner's notes after a run) is never
    /// overwritten by this writer's next one.
    pub fn create(path: &Path) -> Result<Self, JournalError> {
        // A file cannot be opened both truncating and appending: a regular file is emptied once
        // open (a terminal or a pipe given as the journal has nothing to empty).
        let file = std::fs::OpenOptions::new().append(true).create(true).open(path).map_err(at(path))?;
        if file.metadata().map_err(at(path))?.is_file() {
            file.set_len(0).map_err(at(path))?;
        }
        Ok(Self::from_writer(Box::new(file)))
    }

    /// Creates a journal at `path`, or beside it when it is taken (`<path>.2`, `<path>.3`, …): a
    /// server started again with the same journal (a client that restarts its server) never
    /// overwrites what the first one wrote. Returns the journal and where it writes.
    pub fn create_beside(path: &Path) -> Result<(Self, std::path::PathBuf), JournalError> {
        for attempt in 1u32.. {
            let candidate = restart_path(path, attempt);
            match std::fs::OpenOptions::new().append(true).create_new(true).open(&candidate) {
                Ok(file) => return Ok((Self::from_writer(Box::new(file)), candidate)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(source) => return Err(at(&candidate)(source)),
            }
        }
        unreachable!("a free name is found before the counter runs out")
    }

    /// A journal over any writer; each event is written with one `write_all` and flushed.
    pub fn from_writer(sink: Box<dyn Write + Send>) -> Self {
        Journal { inner: Arc::new(Mutex::new(Inner { sink, seq: 0, buf: Vec::with_capacity(512) })), start: Instant::now() }
    }

    /// Appends one event. Errors are returned, never swallowed; callers on hot paths log them.
    pub fn record(&self, entry: Entry) -> Result<u64, JournalError> {
        let mut inner = self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        inner.seq += 1;
        let seq = inner.seq;
        let (raw, raw_len, sha256, head, raw_base64) = match entry.raw {
            Some(r) => (r.text, r.len, r.sha256, r.head, r.base64),
            None => (None, 0, None, None, None),
        };
        let event = Event {
            format_version: FORMAT_VERSION,
            seq,
            t_us: self.start.elapsed().as_micros() as u64,
            session: entry.session,
            transport: entry.transport,
            dir: entry.dir,
            kind: entry.kind,
            raw,
            raw_len,
            sha256,
            head,
            raw_base64,
            raw_delta: None,
            method: entry.method,
            id: entry.id,
            detail: entry.detail,
        };
        let Inner { sink, buf, .. } = &mut *inner;
        buf.clear();
        serde_json::to_writer(&mut *buf, &event).map_err(std::io::Error::from)?;
        buf.push(b'\n');
        sink.write_all(buf)?;
        sink.flush()?;
        Ok(seq)
    }

    /// Records and reports a failure to stderr instead of returning it (for transport hot paths).
    pub fn log(&self, entry: Entry) {
        if let Err(err) = self.record(entry) {
            eprintln!("mcp-client-probe: journal write failed: {err}");
        }
    }

    /// Microseconds since the journal was opened, on the same clock as events.
    pub fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    /// The wall-clock time (microseconds since the Unix epoch) of the journal's zero: what lets
    /// a process that did not write the journal (the runner, timing a client's end) place its
    /// own events on the journal's clock.
    pub fn zero_unix_us(&self) -> u64 {
        unix_now_us().saturating_sub(self.now_us())
    }
}

/// Microseconds since the Unix epoch, now.
pub fn unix_now_us() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64)
}

impl Event {
    /// A note written by someone other than the journal's own writer (the runner, the terminal
    /// driver), placed at `seq` and `t_us`.
    /// A note to follow `events`: the next sequence number, at the last event's time.
    pub fn note_after(events: &[Event], session: &str, transport: Transport, detail: Value) -> Event {
        let (seq, t_us) = events.last().map_or((1, 0), |last| (last.seq + 1, last.t_us));
        Event::note_at(seq, t_us, session, transport, detail)
    }

    pub fn note_at(seq: u64, t_us: u64, session: &str, transport: Transport, detail: Value) -> Event {
        Event {
            format_version: FORMAT_VERSION,
            seq,
            t_us,
            session: session.to_string(),
            transport,
            dir: Direction::Note,
            kind: EventKind::Note,
            raw: None,
            raw_len: 0,
            sha256: None,
            head: None,
            raw_base64: None,
            raw_delta: None,
            method: None,
            id: None,
            detail: Some(detail),
        }
    }
}

/// Where the `attempt`-th server given the journal `path` writes: `path` itself, then `path.2`, …
pub fn restart_path(path: &Path, attempt: u32) -> std::path::PathBuf {
    match attempt {
        0 | 1 => path.to_path_buf(),
        n => {
            let mut name = path.as_os_str().to_os_string();
            name.push(format!(".{n}"));
            name.into()
        }
    }
}

/// Every journal the servers given `path` wrote, in the order they were started (see
/// [`Journal::create_beside`]).
pub fn restarts(path: &Path) -> Vec<std::path::PathBuf> {
    (1u32..).map(|attempt| restart_path(path, attempt)).take_while(|p| p.exists()).collect()
}

/// What was read back from a journal file.
#[derive(Debug, Clone, Default)]
pub struct JournalRead {
    pub events: Vec<Event>,
    /// The last line had no newline and did not parse: the writer died mid-line.
    pub truncated_tail: bool,
}

impl JournalRead {
    /// Adds a note after the last event, at its time.
    pub fn push_note(&mut self, session: &str, transport: Transport, detail: Value) {
        let note = Event::note_after(&self.events, session, transport, detail);
        self.events.push(note);
    }
}

/// Appends a note to a finished journal file, after its last event. A journal whose last line was
/// cut off is refused: the note would turn that line into a bad one in the middle.
pub fn append_note(path: &Path, session: &str, transport: Transport, detail: Value) -> Result<(), JournalError> {
    let mut read = read_journal(path)?;
    if read.truncated_tail {
        return Err(JournalError::BadLine { line: read.events.len() + 1, message: "the last line was cut off; nothing can follow it".into() });
    }
    read.push_note(session, transport, detail);
    let mut line = serde_json::to_vec(read.events.last().expect("a note was pushed")).map_err(std::io::Error::from)?;
    line.push(b'\n');
    let mut file = std::fs::OpenOptions::new().append(true).open(path).map_err(at(path))?;
    file.write_all(&line)?;
    Ok(())
}

/// Parses journal text, putting back frames stored as changes. A truncated last line is tolerated
/// and reported; any other bad line is an error.
pub fn parse_journal(text: &str) -> Result<JournalRead, JournalError> {
    let mut read = JournalRead::default();
    let ends_with_newline = text.ends_with('\n');
    let lines: Vec<&str> = text.split('\n').collect();
    let count = lines.len();
    for (index, line) in lines.into_iter().enumerate() {
        if line.is_empty() {
            continue;
        }
        let is_last = index + 1 == count;
        match serde_json::from_str::<Event>(line) {
            Ok(event) if ![FORMAT_VERSION, delta::DELTA_FORMAT_VERSION].contains(&event.format_version) => {
                return Err(JournalError::Version { line: index + 1, found: event.format_version })
            }
            Ok(event) => read.events.push(event),
            Err(_) if is_last && !ends_with_newline => read.truncated_tail = true,
            Err(err) => return Err(JournalError::BadLine { line: index + 1, message: err.to_string() }),
        }
    }
    delta::expand(&mut read.events)?;
    Ok(read)
}

/// Reads a journal file, or its compressed form when that is what is stored ([`stored`]); see
/// [`parse_journal`].
pub fn read_journal(path: &Path) -> Result<JournalRead, JournalError> {
    let text = stored::read_bytes(path).map_err(at(path))?;
    parse_journal(&String::from_utf8_lossy(&text))
}

/// Joins journals written one after another (one per client process) into one, renumbering
/// sequence numbers and shifting times so that order is kept.
pub fn concatenate(parts: Vec<JournalRead>) -> JournalRead {
    let mut joined = JournalRead::default();
    let (mut seq, mut offset) = (0u64, 0u64);
    for part in parts {
        let mut last = offset;
        for mut event in part.events {
            seq += 1;
            event.seq = seq;
            event.t_us += offset;
            last = last.max(event.t_us);
            joined.events.push(event);
        }
        offset = last + 1;
        joined.truncated_tail |= part.truncated_tail;
    }
    joined
}

/// Rewrites a finished journal file compacted (see [`delta`]), through a temporary file beside it
/// so that a failure leaves the original whole. A journal whose last line was cut off is left as it
/// is: rewriting it would drop that line. Returns the sizes before and after.
pub fn compact_file(path: &Path) -> Result<(u64, u64), JournalError> {
    let before = std::fs::metadata(path).map_err(at(path))?.len();
    let after = rewrite_compacted(path, &read_journal(path)?)?;
    Ok((before, after.unwrap_or(before)))
}

/// Rewrites the journal file at `path`, already read as `read`, compacted (see [`compact_file`]);
/// the size it has then, or `None` when a cut-off last line leaves it as it is.
pub fn rewrite_compacted(path: &Path, read: &JournalRead) -> Result<Option<u64>, JournalError> {
    if read.truncated_tail {
        return Ok(None);
    }
    let events = delta::compact(&read.events)?;
    let temporary = path.with_extension("jsonl.compacting");
    write_events(&temporary, &events)?;
    std::fs::rename(&temporary, path).map_err(at(path))?;
    Ok(Some(std::fs::metadata(path).map_err(at(path))?.len()))
}

/// Writes events as a journal file.
pub fn write_events(path: &Path, events: &[Event]) -> Result<(), JournalError> {
    let mut text = Vec::new();
    for event in events {
        serde_json::to_writer(&mut text, event).map_err(std::io::Error::from)?;
        text.push(b'\n');
    }
    std::fs::write(path, text).map_err(at(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn sample(journal: &Journal, raw: &[u8]) {
        let value: Option<Value> = serde_json::from_slice(raw).ok();
        journal.record(Entry::frame("s", Transport::Stdio, Direction::ClientToServer, EventKind::Frame, raw, value.as_ref())).unwrap();
    }

    #[test]
    fn events_round_trip_with_method_and_id() {
        let buf = Shared::default();
        let journal = Journal::from_writer(Box::new(buf.clone()));
        sample(&journal, br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#);
        sample(&journal, b"not json");
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let read = parse_journal(&text).unwrap();
        assert_eq!(read.events.len(), 2);
        assert_eq!(read.events[0].method.as_deref(), Some("tools/list"));
        assert_eq!(read.events[0].id, Some(Value::from(7)));
        assert_eq!(read.events[1].raw.as_deref(), Some("not json"));
        assert_eq!(read.events[1].seq, 2);
        assert!(!read.truncated_tail);
    }

    #[test]
    fn a_truncated_last_line_is_tolerated_but_a_bad_middle_line_is_not() {
        let buf = Shared::default();
        let journal = Journal::from_writer(Box::new(buf.clone()));
        sample(&journal, br#"{"jsonrpc":"2.0","method":"x"}"#);
        let mut text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        text.push_str("{\"format_version\":1,\"seq\":2,\"t_");
        let read = parse_journal(&text).unwrap();
        assert_eq!(read.events.len(), 1);
        assert!(read.truncated_tail);

        let broken = format!("garbage\n{text}");
        assert!(matches!(parse_journal(&broken), Err(JournalError::BadLine { line: 1, .. })));
    }

    #[test]
    fn large_frames_are_summarised_with_digest_and_head() {
        let big = vec![b'a'; INLINE_LIMIT + 10];
        let raw = RawText::from_bytes(&big);
        assert_eq!(raw.len, INLINE_LIMIT + 10);
        assert!(raw.text.is_none());
        assert_eq!(raw.head.as_ref().unwrap().len(), HEAD_BYTES);
        assert_eq!(raw.sha256.as_deref(), Some(sha256_hex(&big).as_str()));
    }

    #[test]
    fn concatenated_journals_keep_order() {
        let buf = Shared::default();
        let journal = Journal::from_writer(Box::new(buf.clone()));
        sample(&journal, br#"{"jsonrpc":"2.0","id":1,"method":"a"}"#);
        sample(&journal, br#"{"jsonrpc":"2.0","id":2,"method":"b"}"#);
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let one = parse_journal(&text).unwrap();
        let joined = concatenate(vec![one.clone(), one]);
        let seqs: Vec<u64> = joined.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, vec![1, 2, 3, 4]);
        assert!(joined.events.windows(2).all(|w| w[0].t_us <= w[1].t_us));
        assert_eq!(joined.events[2].method.as_deref(), Some("a"));
    }

    #[test]
    fn a_journal_says_where_its_clock_starts() {
        let before = unix_now_us();
        let journal = Journal::from_writer(Box::new(Shared::default()));
        let opened = unix_now_us();
        std::thread::sleep(std::time::Duration::from_millis(20));
        // When it was opened, whenever it is asked (both clocks tick together; 1 ms for rounding).
        let zero = journal.zero_unix_us();
        assert!(before.saturating_sub(1_000) <= zero && zero <= opened + 1_000, "zero {zero}, opened between {before} and {opened}");
    }

    #[test]
    fn a_line_another_writer_appends_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        std::fs::write(&path, "what an earlier run left\n").unwrap();
        let journal = Journal::create(&path).unwrap();
        sample(&journal, br#"{"jsonrpc":"2.0","id":1,"method":"before"}"#);
        append_note(&path, "s", Transport::Stdio, serde_json::json!({"event": "unattended"})).unwrap();
        sample(&journal, br#"{"jsonrpc":"2.0","id":2,"method":"after"}"#);
        let read = read_journal(&path).unwrap();
        let what: Vec<String> = read.events.iter().map(|e| e.method.clone().unwrap_or_else(|| e.detail.as_ref().map(|d| d["event"].to_string()).unwrap_or_default())).collect();
        assert_eq!(what, ["before", "\"unattended\"", "after"], "the earlier content is gone and the note kept");

        let (beside, at) = Journal::create_beside(&dir.path().join("k.jsonl")).unwrap();
        sample(&beside, br#"{"jsonrpc":"2.0","id":1,"method":"before"}"#);
        append_note(&at, "s", Transport::Stdio, serde_json::json!({"event": "unattended"})).unwrap();
        sample(&beside, br#"{"jsonrpc":"2.0","id":2,"method":"after"}"#);
        assert_eq!(read_journal(&at).unwrap().events.len(), 3);
    }

    #[test]
    fn a_taken_journal_is_never_overwritten_by_a_second_server() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let (first, at) = Journal::create_beside(&path).unwrap();
        assert_eq!(at, path);
        sample(&first, br#"{"jsonrpc":"2.0","id":1,"method":"first"}"#);
        let (second, beside) = Journal::create_beside(&path).unwrap();
        assert_eq!(beside, dir.path().join("j.jsonl.2"));
        sample(&second, br#"{"jsonrpc":"2.0","id":1,"method":"second"}"#);
        assert_eq!(restarts(&path), vec![path.clone(), beside.clone()]);
        assert_eq!(read_journal(&path).unwrap().events[0].method.as_deref(), Some("first"), "the first server's journal is whole");
        assert_eq!(read_journal(&beside).unwrap().events[0].method.as_deref(), Some("second"));
    }

    #[test]
    fn a_foreign_format_version_is_refused() {
        let line = r#"{"format_version":99,"seq":1,"t_us":0,"session":"s","transport":"stdio","dir":"note","kind":"note"}"#;
        assert!(matches!(parse_journal(&format!("{line}\n")), Err(JournalError::Version { found: 99, .. })));
    }
}
