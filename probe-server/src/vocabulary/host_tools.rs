//! What a tool a host offers its model is for, told from its name and parameter schema. One
//! classifier serves the model stub's script (which tool to call) and the affordance judges
//! (which tool was offered), so the two can never disagree about what a tool is.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One tool as the host offered it to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OfferedTool {
    pub name: String,
    /// Codex groups MCP tools under a namespace; a call must name it.
    pub namespace: Option<String>,
    pub schema: Value,
    /// A deferred tool the host lets the model call only through this proxy tool (its arguments
    /// `{"name", "arguments"}`), once a search returned the tool's declaration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// What the model stub played in one answer: written by the stub into its journal under
/// [`MODEL_STEP_KEY`] of the answer's detail, read back by the judges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ModelStep {
    Call { tool: OfferedTool, arguments: Value, purpose: String },
    Finish { text: String },
}

/// The key of the stub's answer detail that holds its [`ModelStep`].
pub const MODEL_STEP_KEY: &str = "step";

/// The kind of a tool a host offers its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostTool {
    /// Lists MCP resources (not templates, not directories).
    ResourceList,
    /// Reads an MCP resource by URI.
    ResourceRead,
    /// Lists MCP resource templates.
    TemplateList,
    /// Lists a directory of a skill (SEP-2640).
    DirectoryRead,
    /// Lists MCP prompts.
    PromptList,
    /// Fetches one MCP prompt.
    PromptGet,
    /// Loads deferred tools by query.
    ToolSearch,
    /// Runs a slash command of the host.
    SlashCommand,
    /// Anything else: an MCP tool of a server, or a tool of the host's own.
    Other,
}

impl HostTool {
    /// The kinds that reach the MCP server: the script calls each one a host offers.
    pub const MCP_RELATED: [HostTool; 5] = [HostTool::ResourceList, HostTool::ResourceRead, HostTool::TemplateList, HostTool::DirectoryRead, HostTool::PromptList];
}

/// Lower-case letters and digits only: `ReadMcpResourceTool`, `read_mcp_resource` and
/// `read-mcp-resource` look alike.
pub fn normalized(name: &str) -> String {
    name.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase()
}

/// Whether a parameter schema has `property`.
pub fn has_property(schema: &Value, property: &str) -> bool {
    schema.pointer(&format!("/properties/{property}")).is_some()
}

/// What the tool `name` with parameter schema `schema` is for.
pub fn classify(name: &str, schema: &Value) -> HostTool {
    let n = normalized(name);
    let resource = n.contains("resource");
    if (n.contains("toolsearch") || n.contains("searchtool")) && has_property(schema, "query") {
        HostTool::ToolSearch
    } else if n == "slashcommand" && has_property(schema, "command") {
        HostTool::SlashCommand
    } else if resource && n.contains("template") && n.contains("list") {
        HostTool::TemplateList
    } else if (n.contains("dir") || n.contains("directory")) && (resource || n.contains("skill")) && has_property(schema, "uri") {
        HostTool::DirectoryRead
    } else if (n.contains("listmcpresources") || n.ends_with("listresources")) && !n.contains("dir") {
        HostTool::ResourceList
    } else if (n.contains("readmcpresource") || n.ends_with("readresource") || n.ends_with("getresource")) && !n.contains("dir") && has_property(schema, "uri") {
        HostTool::ResourceRead
    } else if n.ends_with("listprompts") || n.contains("listmcpprompts") {
        HostTool::PromptList
    } else if (n.ends_with("getprompt") || n.contains("getmcpprompt")) && has_property(schema, "name") {
        HostTool::PromptGet
    } else {
        HostTool::Other
    }
}

/// What a tool of the model stub's `model_view` (an entry with `name` and `schema`) is for.
pub fn classify_entry(entry: &Value) -> HostTool {
    classify(entry.get("name").and_then(Value::as_str).unwrap_or_default(), entry.get("schema").unwrap_or(&Value::Null))
}

/// Whether a name that carries no schema yet (a deferred tool the host names in text) could be
/// one the script calls: the kind ignores the schema's properties.
pub fn classify_bare(name: &str) -> HostTool {
    static LOOSE: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| serde_json::json!({"properties": {"uri": {}, "query": {}, "command": {}, "name": {}}}));
    classify(name, &LOOSE)
}

/// Whether a name shown to the model refers to the MCP tool `tool`: the name itself, or the name
/// after a separator (hosts prefix MCP tools with the server's name: `mcp__probe__x`,
/// `probe__x`, `mcp_probe_x`), perhaps followed by a digest that keeps names unique
/// (`probe_x_3d956210ede8`, gptme). A namespace is never glued to the name: a host that groups
/// tools under a namespace shows the bare name inside it.
pub fn names_tool(shown: &str, tool: &str) -> bool {
    let after_separator = |shown: &str| shown == tool || shown.strip_suffix(tool).is_some_and(|prefix| prefix.ends_with(|c: char| !c.is_ascii_alphanumeric()));
    after_separator(shown) || without_digest(shown).is_some_and(after_separator)
}

/// The shortest hexadecimal digest taken for one a host appended (`_` and at least this many hex
/// digits), so that a word such as `added` is never mistaken for one.
const MIN_DIGEST: usize = 6;

/// `name` without a trailing `_<hex digest>`, if it has one.
fn without_digest(name: &str) -> Option<&str> {
    let (head, digest) = name.rsplit_once('_')?;
    (digest.len() >= MIN_DIGEST && digest.chars().all(|c| c.is_ascii_hexdigit())).then_some(head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_digest_after_the_name_still_names_the_tool() {
        assert!(names_tool("probe_probe_ping_d9f9577fa217", "probe_ping"));
        assert!(names_tool("probe_ping_D9F957", "probe_ping"));
        assert!(!names_tool("probe_ping_d9f95", "probe_ping"), "too short for a digest");
        assert!(!names_tool("probe_ping_d9f9577fa217", "ping_d9f9577fa217x"));
        assert!(!names_tool("probe_pinged_d9f9577fa217", "probe_ping"));
    }

    #[test]
    fn real_hosts_tools_are_classified_by_name_and_schema() {
        let uri = json!({"properties": {"server": {}, "uri": {}}});
        let none = json!({});
        // Claude Code, Codex, fast-agent's harness, the reference host.
        assert_eq!(classify("ReadMcpResourceTool", &uri), HostTool::ResourceRead);
        assert_eq!(classify("ListMcpResourcesTool", &none), HostTool::ResourceList);
        assert_eq!(classify("ReadMcpResourceDirTool", &uri), HostTool::DirectoryRead);
        assert_eq!(classify("list_mcp_resources", &none), HostTool::ResourceList);
        assert_eq!(classify("list_mcp_resource_templates", &none), HostTool::TemplateList);
        assert_eq!(classify("read_mcp_resource", &uri), HostTool::ResourceRead);
        assert_eq!(classify("get_resource", &uri), HostTool::ResourceRead);
        assert_eq!(classify("list_resource_templates", &none), HostTool::TemplateList);
        assert_eq!(classify("ToolSearch", &json!({"properties": {"query": {}}})), HostTool::ToolSearch);
        assert_eq!(classify("slash_command", &json!({"properties": {"command": {}}})), HostTool::SlashCommand);
        assert_eq!(classify("list_prompts", &none), HostTool::PromptList);
        assert_eq!(classify("get_prompt", &json!({"properties": {"name": {}}})), HostTool::PromptGet);
        // A read tool without a uri parameter reads nothing the script could name.
        assert_eq!(classify("read_resource", &none), HostTool::Other);
        assert_eq!(classify("Bash", &none), HostTool::Other);
        assert_eq!(classify("mcp__probe__probe_ping", &none), HostTool::Other);
        assert_eq!(classify_bare("ReadMcpResourceTool"), HostTool::ResourceRead);
    }

    #[test]
    fn tool_names_match_only_after_a_separator() {
        assert!(names_tool("mcp__probe__probe_ping", "probe_ping"));
        assert!(names_tool("mcp_probe_probe_ping", "probe_ping"));
        assert!(names_tool("probe_ping", "probe_ping"));
        assert!(!names_tool("xprobe_ping", "probe_ping"));
        assert!(!names_tool("mcp__probe__probe_sampling_tools", "probe_sampling"));
    }
}
