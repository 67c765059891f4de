//! Tools named at the edges of what the 2025-11-25 revision allows (Tools, "Tool names", from
//! SEP-986: 1 to 128 characters of `A-Z a-z 0-9 _ - .`), served in the tool-names variant. A host
//! may show its model other names (a prefix, dots and dashes replaced, a long name cut and given
//! a digest); what matters to a server is that the model's call comes back under the exact name.
//! Each tool is told apart in the model's catalogue by a property of its input schema that only
//! it has, since its name may not survive.

use serde_json::{json, Value};

use crate::host_tools::names_tool;

/// One tool with a name at an edge of the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeTool {
    /// The exact name the server lists and expects back.
    pub name: &'static str,
    /// The one property of its input schema, by which the scripted model finds it.
    pub marker: &'static str,
    /// What is at the edge, in plain words.
    pub what: &'static str,
}

pub const DOTS: EdgeTool = EdgeTool { name: "probe.dotted.name", marker: "edge_dots", what: "dots" };
pub const DASHES: EdgeTool = EdgeTool { name: "probe-dashed-name", marker: "edge_dashes", what: "dashes" };
pub const LONGEST: EdgeTool = EdgeTool {
    name: "probe_long_name_01234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789ab",
    marker: "edge_longest",
    what: "128 characters",
};

/// The tools of the tool-names variant, in list order.
pub const EDGE_TOOLS: [EdgeTool; 3] = [DOTS, DASHES, LONGEST];

/// The tools as `tools/list` shows them in the tool-names variant.
pub fn tools() -> Vec<Value> {
    EDGE_TOOLS
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "description": format!("A tool whose name has {}; it does nothing", t.what),
                "inputSchema": {"type": "object", "properties": {t.marker: {"type": "string", "description": "leave empty"}}}
            })
        })
        .collect()
}

/// The edge tool `name` is, if it is one exactly.
pub fn by_name(name: &str) -> Option<EdgeTool> {
    EDGE_TOOLS.iter().copied().find(|t| t.name == name)
}

/// Whether a name a host shows its model (in a catalogue or in the text that lists deferred
/// tools) may stand for one of the edge tools: the name itself after a prefix, with its dots and
/// dashes made underscores, or, cut short, holding the first 24 characters of it.
pub fn may_name(shown: &str) -> bool {
    let shown_underscored = shown.replace(['.', '-'], "_");
    EDGE_TOOLS
        .iter()
        .zip(underscored_names())
        .any(|(t, (underscored, head))| names_tool(shown, t.name) || names_tool(shown, underscored) || shown_underscored.contains(head.as_str()))
}

/// Each edge tool's name with its dots and dashes made underscores, and that name's first 24
/// characters, in the order of [`EDGE_TOOLS`] (made once: the model stub asks [`may_name`] of
/// every word of every request).
fn underscored_names() -> &'static [(String, String)] {
    static NAMES: std::sync::LazyLock<Vec<(String, String)>> = std::sync::LazyLock::new(|| {
        EDGE_TOOLS
            .iter()
            .map(|t| {
                let underscored = t.name.replace(['.', '-'], "_");
                let head = underscored.chars().take(24).collect();
                (underscored, head)
            })
            .collect()
    });
    &NAMES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_keeps_to_the_rules_and_one_is_as_long_as_they_allow() {
        for tool in EDGE_TOOLS {
            assert!((1..=128).contains(&tool.name.len()), "{}", tool.name);
            assert!(tool.name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')), "{}", tool.name);
        }
        assert_eq!(LONGEST.name.len(), 128);
        assert!(DOTS.name.contains('.') && DASHES.name.contains('-'));
        assert_eq!(by_name(DASHES.name), Some(DASHES));
        assert_eq!(by_name("probe_dashed_name"), None);
        for shown in ["mcp__probe__probe_dotted_name", "probe__probe.dotted.name", "mcp_probe_probe_long_name_0123456789012_b8bb3963", "probe-dashed-name"] {
            assert!(may_name(shown), "{shown}");
        }
        assert!(!may_name("probe_ping") && !may_name("dotted"));
    }
}
