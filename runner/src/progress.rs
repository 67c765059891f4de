//! Progress on stderr while a command works, so a long probe is never silent. On a terminal, a
//! bar (runs done of those planned, elapsed, ETA) with each finished run's line printed above it;
//! otherwise one plain line per finished run or pass. `-q` silences both; errors and results are
//! not progress and are always shown.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};

static QUIET: AtomicBool = AtomicBool::new(false);
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Silences progress for the rest of the process (`-q`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::SeqCst);
}

/// Starts counting runs: `total` planned so far (more may be added), `what` names the work.
/// Draws a bar only when stderr is a terminal.
pub fn begin(total: u64, what: &str) {
    if QUIET.load(Ordering::SeqCst) || !std::io::stderr().is_terminal() {
        return;
    }
    let bar = ProgressBar::new(total);
    // No ETA until a run has finished: before that there is nothing to estimate from.
    bar.set_style(style(false));
    bar.set_message(what.to_string());
    // Elapsed time ticks while the first runs go, not only when one finishes.
    bar.enable_steady_tick(std::time::Duration::from_millis(500));
    if let Ok(mut slot) = BAR.lock() {
        *slot = Some(bar);
    }
}

/// The bar's look: with the ETA once there is something to estimate it from.
fn style(with_eta: bool) -> ProgressStyle {
    let template = if with_eta { "{msg} [{bar:30}] {pos}/{len} runs, {elapsed} elapsed, ETA {eta}" } else { "{msg} [{bar:30}] {pos}/{len} runs, {elapsed} elapsed" };
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> ")
}

/// Whether a bar is drawn (counting lines would only repeat it).
pub fn has_bar() -> bool {
    BAR.lock().ok().is_some_and(|b| b.is_some())
}

/// More runs planned than `begin` knew of (a second pass).
pub fn plan_more(runs: u64) {
    if let Some(bar) = BAR.lock().ok().and_then(|b| b.clone()) {
        bar.inc_length(runs);
    }
}

/// One run finished: its line above the bar, or on its own without one (unless `quietly`, for
/// commands with too many runs to list, such as the self-test).
pub fn finished(text: std::fmt::Arguments<'_>, quietly: bool) {
    if QUIET.load(Ordering::SeqCst) {
        return;
    }
    match BAR.lock().ok().and_then(|b| b.clone()) {
        Some(bar) => {
            if !quietly {
                bar.println(format!("mcp-client-probe: {text}"));
            }
            if bar.position() == 0 {
                bar.set_style(style(true));
            }
            bar.inc(1);
        }
        None if !quietly => eprintln!("mcp-client-probe: {text}"),
        None => {}
    }
}

/// Ends the bar, if there is one.
pub fn end() {
    if let Some(bar) = BAR.lock().ok().and_then(|mut b| b.take()) {
        bar.finish_and_clear();
    }
}

/// Writes one progress line (above the bar, if there is one), unless silenced.
pub fn line(text: std::fmt::Arguments<'_>) {
    if QUIET.load(Ordering::SeqCst) {
        return;
    }
    match BAR.lock().ok().and_then(|b| b.clone()) {
        Some(bar) => bar.println(format!("mcp-client-probe: {text}")),
        None => eprintln!("mcp-client-probe: {text}"),
    }
}

/// `progress!("…", args)`: one line of progress on stderr.
#[macro_export]
macro_rules! progress {
    ($($arg:tt)*) => {
        $crate::progress::line(format_args!($($arg)*))
    };
}

/// `run_finished!("…", args)`: a run is done; its line, and a step of the bar.
#[macro_export]
macro_rules! run_finished {
    ($($arg:tt)*) => {
        $crate::progress::finished(format_args!($($arg)*), false)
    };
}
