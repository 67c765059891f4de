//! The tools of the long-calls variant: one call that runs past a host's timeout while it reports
//! progress, and one that never answers. What a host does with them shows its effective tool
//! timeout, whether it tells the server when it gives up (`notifications/cancelled`, or over
//! 2026-07-28 HTTP closing the call's response stream) and whether progress keeps a call alive.
//!
//! The slow call lasts [`SLOW_CALL`] by default (`serve --long-call-ms` shortens it for the
//! reference host) and sends a progress notification every eighth of it, when the call carried a
//! `progressToken`. The stalled call waits until it is cancelled, or [`STALL_LIMIT`].

use std::time::Duration;

use serde_json::{json, Value};

/// Runs for the long-call duration, reporting progress, then answers with [`SLOW_CANARY`].
pub const TOOL_SLOW: &str = "probe_slow_progress";
/// Never answers.
pub const TOOL_STALL: &str = "probe_never_answers";
/// The text of the slow call's answer.
pub const SLOW_CANARY: &str = "slow call finished LONGCALL-7d3e";
/// How long the slow call runs for real clients: longer than the short timeouts the profiles set
/// in this variant (5 s), shorter than the run's bound.
pub const SLOW_CALL: Duration = Duration::from_secs(8);
/// How many progress notifications the slow call sends, evenly over its duration.
pub const PROGRESS_STEPS: u32 = 8;
/// The stalled call gives up waiting for a cancel after this long (the run ends long before).
pub const STALL_LIMIT: Duration = Duration::from_secs(600);
/// While the stalled call waits, the server journals that it still does this often (a stdio
/// server killed with its client writes nothing more, so these notes show how long it waited).
pub const PENDING_NOTE_EVERY: Duration = Duration::from_secs(5);

/// The tools as `tools/list` shows them in the long-calls variant.
pub fn tools() -> Vec<Value> {
    let no_arguments = json!({"type": "object", "properties": {}});
    vec![
        json!({"name": TOOL_SLOW, "description": "Takes several seconds and reports its progress while it runs; call it once", "inputSchema": no_arguments}),
        json!({"name": TOOL_STALL, "description": "Never answers: it shows what the host does with a call that hangs; call it once", "inputSchema": no_arguments}),
    ]
}

/// Whole seconds and tenths, for a verdict's detail: "5.0 s".
pub fn seconds(us: u64) -> String {
    format!("{:.1} s", us as f64 / 1_000_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tools_are_listed_and_seconds_read_well() {
        let tools = tools();
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, [TOOL_SLOW, TOOL_STALL]);
        assert_eq!(seconds(5_049_999), "5.0 s");
        assert_eq!(seconds(12_360_000), "12.4 s");
    }
}
