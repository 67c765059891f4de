//! The model's script, independent of dialect: which tool to call at each step, chosen from the
//! tool catalogue the host offered and the number of tool results already in the request, so a
//! retried request replays the same step.

use probe_server::surface as s;
use serde::Serialize;
use serde_json::{json, Value};

/// The MCP server name the runner gives the probe server in every client's configuration.
pub const SERVER_NAME: &str = "probe";

/// One tool as the host offered it to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfferedTool {
    pub name: String,
    /// Codex groups MCP tools under a namespace; a call must name it.
    pub namespace: Option<String>,
    pub schema: Value,
}

/// What the model does next.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Step {
    Call { tool: OfferedTool, arguments: Value, purpose: String },
    Finish { text: String },
}

/// The probe tools the model calls, in order.
pub const PROBE_TOOLS: [&str; 10] = [
    s::TOOL_PROGRESS,
    s::TOOL_RESOURCE_LINK,
    s::TOOL_ELICIT_FORM,
    s::TOOL_ELICIT_ENUMS,
    s::TOOL_ELICIT_URL,
    s::TOOL_SAMPLING,
    s::TOOL_SAMPLING_TOOLS,
    s::TOOL_ROOTS,
    s::TOOL_PING,
    s::TOOL_LIST_CHANGED,
];

pub const FINAL_TEXT: &str = "mcp-client-probe: script complete";

fn normalized(name: &str) -> String {
    name.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase()
}

/// A catalogue name refers to `tool` when it is the tool's name, or ends with it after a
/// separator (hosts prefix MCP tools with the server name).
pub fn names_tool(offered: &str, tool: &str) -> bool {
    offered == tool || offered.strip_suffix(tool).is_some_and(|prefix| prefix.ends_with(|c: char| !c.is_ascii_alphanumeric()))
}

fn has_property(schema: &Value, property: &str) -> bool {
    schema.pointer(&format!("/properties/{property}")).is_some()
}

/// A host tool that lists MCP resources (not templates, not directories).
fn is_resource_list_tool(t: &OfferedTool) -> bool {
    let n = normalized(&t.name);
    (n.contains("listmcpresources") || n.ends_with("listresources")) && !n.contains("template") && !n.contains("dir")
}

/// A host tool that reads an MCP resource by URI.
fn is_resource_read_tool(t: &OfferedTool) -> bool {
    let n = normalized(&t.name);
    (n.contains("readmcpresource") || n.ends_with("readresource") || n.ends_with("getresource")) && !n.contains("dir") && has_property(&t.schema, "uri")
}

fn with_server(schema: &Value, mut arguments: Value) -> Value {
    if has_property(schema, "server") {
        arguments["server"] = json!(SERVER_NAME);
    } else if has_property(schema, "server_name") {
        arguments["server_name"] = json!(SERVER_NAME);
    }
    arguments
}

/// The whole script for this catalogue.
pub fn plan(catalogue: &[OfferedTool]) -> Vec<Step> {
    let mut steps = Vec::new();
    if let Some(list) = catalogue.iter().find(|t| is_resource_list_tool(t)) {
        steps.push(Step::Call { tool: list.clone(), arguments: with_server(&list.schema, json!({})), purpose: "list resources".into() });
    }
    if let Some(read) = catalogue.iter().find(|t| is_resource_read_tool(t)) {
        for (uri, purpose) in [(s::TEXT_URI.to_string(), "read the text resource"), (s::BLOB_URI.to_string(), "read the binary resource"), (format!("{}42", s::TEMPLATE_PREFIX), "read a templated URI")] {
            steps.push(Step::Call { tool: read.clone(), arguments: with_server(&read.schema, json!({"uri": uri})), purpose: purpose.into() });
        }
    }
    for probe in PROBE_TOOLS {
        if let Some(tool) = catalogue.iter().find(|t| names_tool(&t.name, probe)) {
            steps.push(Step::Call { tool: tool.clone(), arguments: json!({}), purpose: format!("call {probe}") });
        }
    }
    steps.push(Step::Finish { text: FINAL_TEXT.into() });
    steps
}

/// The step for a request that already carries `results` tool results.
pub fn step(catalogue: &[OfferedTool], results: usize) -> Step {
    let mut steps = plan(catalogue);
    let last = steps.len() - 1;
    steps.swap_remove(results.min(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, schema: Value) -> OfferedTool {
        OfferedTool { name: name.into(), namespace: None, schema }
    }

    #[test]
    fn the_script_uses_resource_tools_then_probe_tools_then_finishes() {
        let catalogue = vec![
            tool("ReadMcpResourceDirTool", json!({"properties": {"uri": {}}})),
            tool("ReadMcpResourceTool", json!({"properties": {"server": {}, "uri": {}}})),
            tool("ListMcpResourcesTool", json!({"properties": {"server": {}}})),
            tool("mcp__probe__probe_sampling_tools", json!({})),
            tool("mcp__probe__probe_sampling", json!({})),
            tool("Bash", json!({})),
        ];
        let steps = plan(&catalogue);
        let calls: Vec<String> = steps.iter().map(|s| match s { Step::Call { tool, arguments, .. } => format!("{} {arguments}", tool.name), Step::Finish { .. } => "finish".into() }).collect();
        assert_eq!(calls, vec![
            r#"ListMcpResourcesTool {"server":"probe"}"#.to_string(),
            r#"ReadMcpResourceTool {"server":"probe","uri":"probe://text/canary"}"#.into(),
            r#"ReadMcpResourceTool {"server":"probe","uri":"probe://blob/bytes"}"#.into(),
            r#"ReadMcpResourceTool {"server":"probe","uri":"probe://items/42"}"#.into(),
            r#"mcp__probe__probe_sampling {}"#.into(),
            r#"mcp__probe__probe_sampling_tools {}"#.into(),
            "finish".into(),
        ]);
        assert_eq!(step(&catalogue, 99), Step::Finish { text: FINAL_TEXT.into() });
        assert_eq!(step(&catalogue, 4), steps[4]);
    }

    #[test]
    fn tool_names_match_only_after_a_separator() {
        assert!(names_tool("mcp__probe__probe_ping", "probe_ping"));
        assert!(names_tool("probe_ping", "probe_ping"));
        assert!(!names_tool("xprobe_ping", "probe_ping"));
        assert!(!names_tool("mcp__probe__probe_sampling_tools", "probe_sampling"));
    }
}
