//! A program in a pseudo-terminal of fixed size, with its screen kept parsed. A reader thread
//! feeds everything the program writes into a vt100 parser; the driver reads the screen as text,
//! waits for conditions on it, and sends keys.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, PtySize};

#[derive(Debug, thiserror::Error)]
pub enum PtyError {
    #[error("cannot open a pseudo-terminal: {0}")]
    Open(String),
    #[error("cannot start {program} in the terminal: {message}")]
    Spawn { program: String, message: String },
}

/// What to start.
#[derive(Debug, Clone)]
pub struct PtySpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The whole environment (nothing is inherited).
    pub env: BTreeMap<String, String>,
    pub cwd: PathBuf,
    pub columns: u16,
    pub rows: u16,
    /// Whether `screen` shows the cursor's cell as `CURSOR_MARK` (for hosts that show focus by
    /// the cursor).
    pub mark_cursor: bool,
}

/// What `Pty::screen` puts where the cursor is, when asked to: a character terminal UIs do not
/// draw (U+2038 CARET).
pub const CURSOR_MARK: char = '\u{2038}';

fn nonzero(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).unwrap_or(std::num::NonZeroU16::MIN)
}

/// How much raw output is kept for the record.
const RAW_CAP: usize = 4 * 1024 * 1024;

/// A count of the bytes read, with a signal for whoever waits for more.
#[derive(Default)]
struct Received {
    bytes: Mutex<u64>,
    more: Condvar,
}

impl Received {
    fn add(&self, n: usize) {
        if let Ok(mut bytes) = self.bytes.lock() {
            *bytes += n as u64;
        }
        self.more.notify_all();
    }

    fn now(&self) -> u64 {
        self.bytes.lock().map(|b| *b).unwrap_or(0)
    }

    /// Waits until more than `seen` bytes have arrived, at most `timeout`; returns the count.
    fn wait_past(&self, seen: u64, timeout: Duration) -> u64 {
        let Ok(bytes) = self.bytes.lock() else { return seen };
        match self.more.wait_timeout_while(bytes, timeout, |b| *b == seen) {
            Ok((bytes, _)) => *bytes,
            Err(_) => seen,
        }
    }
}

/// How often a wait looks whether the program has ended while no output arrives.
const EXIT_CHECK: Duration = Duration::from_millis(50);

pub struct Pty {
    parser: Arc<Mutex<vt100::Parser>>,
    /// Bytes read so far: a change means the screen may have changed.
    received: Arc<Received>,
    raw: Arc<Mutex<Vec<u8>>>,
    writer: SharedWriter,
    child: Box<dyn Child + Send + Sync>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
    mark_cursor: bool,
}

/// The terminal's input side, shared by the driver's keys and the answers to the host's queries.
type SharedWriter = Arc<Mutex<Box<dyn Write + Send>>>;

/// Finds the cursor position queries (`ESC [ 6 n`, "device status report") a host writes, which a
/// real terminal answers with `ESC [ row ; col R`: some hosts' line editors wait for the answer
/// and draw poorly without it. A query split between two reads is still found.
#[derive(Default)]
struct CursorQueries {
    /// The end of the previous read that could begin a query.
    tail: Vec<u8>,
}

impl CursorQueries {
    const QUERY: &'static [u8] = b"\x1b[6n";

    fn count_in(&mut self, chunk: &[u8]) -> usize {
        let mut joined = std::mem::take(&mut self.tail);
        joined.extend_from_slice(chunk);
        let count = joined.windows(Self::QUERY.len()).filter(|w| *w == Self::QUERY).count();
        let keep = (1..Self::QUERY.len()).rev().find(|&k| joined.len() >= k && joined.ends_with(&Self::QUERY[..k])).unwrap_or(0);
        self.tail = joined[joined.len() - keep..].to_vec();
        count
    }
}

/// The screen's text with `CURSOR_MARK` inserted before the cursor's cell, unless the cursor is
/// hidden (as hosts hide it while they redraw).
fn with_cursor_mark(screen: &vt100::Screen) -> String {
    if screen.hide_cursor() {
        return screen.contents();
    }
    let (row, col) = screen.cursor_position();
    let width = screen.size().1.get();
    let before = screen.rows(0, col).nth(row.into()).unwrap_or_default();
    let after = screen.rows(col, width.saturating_sub(col)).nth(row.into()).unwrap_or_default();
    // A row's text stops at its last drawn cell: pad to the cursor's column first.
    let padding = usize::from(col).saturating_sub(before.chars().count());
    let marked = format!("{before}{}{CURSOR_MARK}{after}", " ".repeat(padding));
    let mut lines: Vec<String> = screen.rows(0, width).collect();
    if let Some(line) = lines.get_mut(usize::from(row)) {
        *line = marked;
    }
    lines.join("\n")
}

impl Pty {
    pub fn spawn(spec: &PtySpec) -> Result<Pty, PtyError> {
        let size = PtySize { rows: spec.rows, cols: spec.columns, pixel_width: 0, pixel_height: 0 };
        let pair = native_pty_system().openpty(size).map_err(|e| PtyError::Open(e.to_string()))?;
        let mut command = CommandBuilder::new(&spec.program);
        command.args(&spec.args);
        command.cwd(&spec.cwd);
        command.env_clear();
        for (key, value) in &spec.env {
            command.env(key, value);
        }
        let spawn_error = |message: String| PtyError::Spawn { program: spec.program.display().to_string(), message };
        let child = pair.slave.spawn_command(command).map_err(|e| spawn_error(e.to_string()))?;
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().map_err(|e| spawn_error(e.to_string()))?;
        let writer: SharedWriter = Arc::new(Mutex::new(pair.master.take_writer().map_err(|e| spawn_error(e.to_string()))?));
        let parser = Arc::new(Mutex::new(vt100::Parser::new(nonzero(spec.rows), nonzero(spec.columns), 0)));
        let received = Arc::new(Received::default());
        let raw = Arc::new(Mutex::new(Vec::new()));
        let (p, r, w, answers) = (parser.clone(), received.clone(), raw.clone(), writer.clone());
        std::thread::spawn(move || {
            let mut chunk = [0u8; 16 * 1024];
            let mut queries = CursorQueries::default();
            while let Ok(n) = reader.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if let Ok(mut parser) = p.lock() {
                    parser.process(&chunk[..n]);
                    // Answer as a terminal would, with where the cursor is after the query.
                    for _ in 0..queries.count_in(&chunk[..n]) {
                        let (row, col) = parser.screen().cursor_position();
                        if let Ok(mut answers) = answers.lock() {
                            let _ = write!(answers, "\x1b[{};{}R", row + 1, col + 1).and_then(|()| answers.flush());
                        }
                    }
                }
                if let Ok(mut raw) = w.lock() {
                    let room = RAW_CAP.saturating_sub(raw.len());
                    raw.extend_from_slice(&chunk[..n.min(room)]);
                }
                r.add(n);
            }
        });
        Ok(Pty { parser, received, raw, writer, child, _master: pair.master, mark_cursor: spec.mark_cursor })
    }

    /// The screen as text: one line per row, trailing blanks and blank trailing rows dropped.
    pub fn screen(&self) -> String {
        let contents = self.parser.lock().map(|p| if self.mark_cursor { with_cursor_mark(p.screen()) } else { p.screen().contents() }).unwrap_or_default();
        let lines: Vec<&str> = contents.lines().map(str::trim_end).collect();
        let end = lines.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
        lines[..end].join("\n")
    }

    pub fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let mut writer = self.writer.lock().map_err(|_| std::io::Error::other("the terminal's writer was poisoned"))?;
        writer.write_all(bytes)?;
        writer.flush()
    }

    /// Types `text` a character at a time, `gap` apart (hosts drop characters sent in one burst).
    fn type_text(&mut self, text: &str, gap: Duration) -> std::io::Result<()> {
        for (i, c) in text.chars().enumerate() {
            if i > 0 {
                std::thread::sleep(gap);
            }
            let mut buf = [0u8; 4];
            self.send(c.encode_utf8(&mut buf).as_bytes())?;
        }
        Ok(())
    }

    /// Types `text` as `type_text` does, then gives the host up to `echo` to draw the text's end
    /// (its last 16 characters), as a person watches their typing land before going on: a host
    /// that is slow to echo may still be working on the earlier keys (a completion list drawn for
    /// half the word). Returns whether the end was drawn.
    pub fn type_and_watch(&mut self, text: &str, gap: Duration, echo: Duration) -> std::io::Result<bool> {
        let before = self.screen();
        self.type_text(text, gap)?;
        let tail: String = text.chars().rev().take(16).collect::<Vec<_>>().into_iter().rev().collect();
        Ok(self.wait_for(echo, |s| s != before && s.contains(&tail)).is_some())
    }

    /// Sends one key, gives it up to `echo` to change the screen, then lets the host finish
    /// redrawing (still for `quiet`, at most `max`): some hosts drop a key that arrives mid-redraw.
    pub fn press(&mut self, key: &[u8], echo: Duration, quiet: Duration, max: Duration) -> std::io::Result<()> {
        let before = self.screen();
        self.send(key)?;
        self.wait_for(echo, |s| s != before);
        self.settle(quiet, max);
        Ok(())
    }

    /// Sends one key and waits (up to `max`) for the host's next write, then lets it finish
    /// redrawing as [`Pty::press`] does: for a host that writes its screen after every key.
    pub fn press_awaiting_write(&mut self, key: &[u8], max: Duration, quiet: Duration, settle_max: Duration) -> std::io::Result<()> {
        let seen = self.received.now();
        self.send(key)?;
        let deadline = Instant::now() + max;
        while self.received.now() == seen && self.exited().is_none() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            self.received.wait_past(seen, (deadline - now).min(EXIT_CHECK));
        }
        self.settle(quiet, settle_max);
        Ok(())
    }

    /// Waits until `condition` holds on the screen, or the timeout passes, or the program ends.
    /// The screen is looked at again whenever output arrives.
    pub fn wait_for(&mut self, timeout: Duration, mut condition: impl FnMut(&str) -> bool) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let seen = self.received.now();
            let screen = self.screen();
            if condition(&screen) {
                return Some(screen);
            }
            let now = Instant::now();
            if now > deadline || self.exited().is_some() {
                return None;
            }
            self.received.wait_past(seen, (deadline - now).min(EXIT_CHECK));
        }
    }

    /// Waits until nothing new has been written for `quiet` (at most `max`), and returns the screen.
    pub fn settle(&self, quiet: Duration, max: Duration) -> String {
        let deadline = Instant::now() + max;
        let mut last = self.received.now();
        loop {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            let seen = self.received.wait_past(last, quiet.min(deadline - now));
            if seen == last {
                break;
            }
            last = seen;
        }
        self.screen()
    }

    /// The exit code once the program has ended.
    pub fn exited(&mut self) -> Option<u32> {
        self.child.try_wait().ok().flatten().map(|s| s.exit_code())
    }

    /// Waits up to `grace` for the program to end, then kills it. Returns the exit code, if it
    /// exited by itself.
    pub fn finish(&mut self, grace: Duration) -> Option<u32> {
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Some(code) = self.exited() {
                return Some(code);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }

    /// Everything the program wrote (capped), for the record.
    pub fn raw_output(&self) -> Vec<u8> {
        self.raw.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if self.exited().is_none() {
            let _ = self.child.kill();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_queries_are_counted_across_reads() {
        let mut queries = CursorQueries::default();
        assert_eq!(queries.count_in(b"abc\x1b[6ndef\x1b[6n"), 2);
        assert_eq!(queries.count_in(b"x\x1b["), 0);
        assert_eq!(queries.count_in(b"6ny"), 1);
        assert_eq!(queries.count_in(b"\x1b[5n\x1b[6"), 0);
        assert_eq!(queries.count_in(b"m"), 0);
    }

    #[test]
    fn the_cursor_mark_goes_before_the_cursors_cell() {
        let mut parser = vt100::Parser::new(std::num::NonZeroU16::new(3).unwrap(), std::num::NonZeroU16::new(20).unwrap(), 0);
        parser.process(b"first line\r\n  ab cd\x1b[2;5H");
        assert_eq!(with_cursor_mark(parser.screen()).lines().nth(1), Some(format!("  ab{CURSOR_MARK} cd").as_str()));
        // Past the end of the drawn text.
        parser.process(b"\x1b[3;4H");
        assert_eq!(with_cursor_mark(parser.screen()).lines().nth(2), Some(format!("   {CURSOR_MARK}").as_str()));
        // A hidden cursor (a redraw under way) is not marked.
        parser.process(b"\x1b[?25l");
        assert!(!with_cursor_mark(parser.screen()).contains(CURSOR_MARK));
    }

    /// A host that draws what was typed 0.3 s late: the watch sees it only if it waits that long.
    fn late_echo() -> Pty {
        let script = "stty -echo -icanon; x=$(dd bs=1 count=3 2>/dev/null); sleep 0.3; printf 'typed %s' \"$x\"; sleep 10";
        let env: std::collections::BTreeMap<String, String> = [("PATH".to_string(), std::env::var("PATH").unwrap_or_default())].into();
        Pty::spawn(&PtySpec { program: "/bin/sh".into(), args: vec!["-c".into(), script.into()], env, cwd: std::env::temp_dir(), columns: 40, rows: 5, mark_cursor: false })
            .unwrap()
    }

    #[test]
    fn typed_text_is_watched_until_the_host_draws_it() {
        let mut pty = late_echo();
        assert!(pty.type_and_watch("abc", Duration::from_millis(10), Duration::from_secs(20)).unwrap());
        assert!(pty.screen().contains("typed abc"));
        pty.finish(Duration::ZERO);

        let mut pty = late_echo();
        assert!(!pty.type_and_watch("abc", Duration::from_millis(10), Duration::from_millis(50)).unwrap(), "drawn before the host wrote it");
        pty.finish(Duration::ZERO);
    }
}
