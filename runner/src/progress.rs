//! Progress on stderr while a command works: one plain line per finished run, launch or pass, so
//! a long probe is never silent. `-q` silences it; errors and results are not progress and are
//! always shown.

use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences progress for the rest of the process (`-q`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::SeqCst);
}

/// Writes one progress line, unless silenced.
pub fn line(text: std::fmt::Arguments<'_>) {
    if !QUIET.load(Ordering::SeqCst) {
        eprintln!("mcp-client-probe: {text}");
    }
}

/// `progress!("…", args)`: one line of progress on stderr.
#[macro_export]
macro_rules! progress {
    ($($arg:tt)*) => {
        $crate::progress::line(format_args!($($arg)*))
    };
}
