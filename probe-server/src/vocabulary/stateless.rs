//! The stateless variants: Streamable HTTP as a server that keeps nothing between requests serves
//! it (a serverless function, a load-balanced fleet). No `Mcp-Session-Id` is issued, every POST is
//! served on its own, a GET stream or DELETE is refused (405), and nothing the server asks of the
//! client can be answered. `tools/list` holds one tool, whose call needs no state and answers with
//! [`RESULT_CANARY`]: what is judged is whether a client works with such a server at all.
//!
//! `stateless` answers every request with an `application/json` body (wherever nothing comes
//! before the answer), as most such servers do; `stateless-sse` answers each with an event stream
//! of its own.

use serde_json::{json, Value};

/// The one tool of the stateless variants.
pub const TOOL_STATELESS: &str = "probe_stateless";
/// The text of its answer.
pub const RESULT_CANARY: &str = "MCP-PROBE-STATELESS-RESULT-5A1D";

/// The tools as `tools/list` shows them in the stateless variants.
pub fn tools() -> Vec<Value> {
    vec![json!({
        "name": TOOL_STATELESS,
        "description": "Answers with a canary from a server that keeps no session; call it once",
        "inputSchema": {"type": "object", "properties": {}}
    })]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_tool_is_listed() {
        let tools = tools();
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0]["name"], TOOL_STATELESS);
    }
}
