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
}

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
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
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
        let writer = pair.master.take_writer().map_err(|e| spawn_error(e.to_string()))?;
        let parser = Arc::new(Mutex::new(vt100::Parser::new(nonzero(spec.rows), nonzero(spec.columns), 0)));
        let received = Arc::new(Received::default());
        let raw = Arc::new(Mutex::new(Vec::new()));
        let (p, r, w) = (parser.clone(), received.clone(), raw.clone());
        std::thread::spawn(move || {
            let mut chunk = [0u8; 16 * 1024];
            while let Ok(n) = reader.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if let Ok(mut parser) = p.lock() {
                    parser.process(&chunk[..n]);
                }
                if let Ok(mut raw) = w.lock() {
                    let room = RAW_CAP.saturating_sub(raw.len());
                    raw.extend_from_slice(&chunk[..n.min(room)]);
                }
                r.add(n);
            }
        });
        Ok(Pty { parser, received, raw, writer, child, _master: pair.master })
    }

    /// The screen as text: one line per row, trailing blanks and blank trailing rows dropped.
    pub fn screen(&self) -> String {
        let contents = self.parser.lock().map(|p| p.screen().contents()).unwrap_or_default();
        let lines: Vec<&str> = contents.lines().map(str::trim_end).collect();
        let end = lines.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
        lines[..end].join("\n")
    }

    pub fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(bytes)?;
        self.writer.flush()
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
