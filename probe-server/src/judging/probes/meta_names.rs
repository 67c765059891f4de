//! The names a client gives its own metadata: the `_meta` keys of everything it sends (2025-06-18
//! set their format, and kept prefixes with a `modelcontextprotocol` or `mcp` label for MCP's own
//! keys) and the identifiers of the extensions it declares (SEP-2133: `{vendor-prefix}/{name}`,
//! each mapped to a settings object). Judged from the server's journal of the standard run.

use serde_json::Value;

use super::{probe, BOTH};
use crate::observe::{Frame, Observations, MODERN_META_CAPABILITIES};
use crate::probe::{Outcome, Verdict};

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[&MetaKeysWellFormed, &ExtensionIdsWellFormed];

/// The `_meta` keys under a kept prefix that MCP defines for a client to send: the 2026-07-28
/// request metadata and the official extensions' identifiers.
const MCP_KEYS: &[&str] = &[
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
    "io.modelcontextprotocol/subscriptionId",
    "io.modelcontextprotocol/related-task",
    "io.modelcontextprotocol/oauth-client-credentials",
    "io.modelcontextprotocol/ui",
    "io.modelcontextprotocol/tasks",
    "io.modelcontextprotocol/skills",
    "io.modelcontextprotocol/events",
];

/// A label of a prefix: a letter first, a letter or digit last, letters, digits and hyphens
/// between.
fn is_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => first.is_ascii_alphabetic() && last.is_ascii_alphanumeric() && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-'),
        _ => false,
    }
}

/// A name: empty, or an alphanumeric first and last with letters, digits, `-`, `_` and `.` between.
fn is_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (None, _) => true,
        (Some(first), Some(last)) => first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric() && bytes.iter().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(b)),
        _ => false,
    }
}

/// What is wrong with `key` as a `_meta` key (or, with `prefix_needed`, as an extension
/// identifier); `None` when nothing is.
fn fault(key: &str, prefix_needed: bool) -> Option<&'static str> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        if !prefix.split('.').all(is_label) {
            return Some("its prefix is not dot-separated labels");
        }
        if prefix.split('.').any(|label| label == "modelcontextprotocol" || label == "mcp") && !MCP_KEYS.contains(&key) {
            return Some("its prefix is kept for MCP, which defines no such key");
        }
    } else if prefix_needed {
        return Some("it has no vendor prefix");
    }
    if !is_name(name) || (prefix_needed && name.is_empty()) {
        return Some("its name does not begin and end with a letter or digit, or holds other characters than - _ .");
    }
    None
}

/// Each `_meta` object the client sent: in the params of its requests and notifications, in the
/// results of its answers.
fn client_metas(o: &Observations) -> impl Iterator<Item = (&Frame, &serde_json::Map<String, Value>)> {
    o.frames.iter().filter(|f| f.dir == crate::journal::Direction::ClientToServer).filter_map(|f| {
        let meta = if f.is_answer() { f.result()?.get("_meta") } else { f.params().get("_meta") };
        Some((f, meta?.as_object()?))
    })
}

probe! {
    /// Evidence: every `_meta` key in what the client sent (requests, notifications, answers):
    /// each a name with an optional prefix of dot-separated labels, as 2025-06-18 set out, and
    /// under a prefix kept for MCP only a key MCP defines. All well formed is yes; one that is not
    /// is no (the detail names it). A client that sent no `_meta` at all: yes, with nothing to name.
    MetaKeysWellFormed {
        id: "connection.meta_keys_well_formed", area: Connection, title: "_meta keys the client sends are well formed",
        revisions: ["2025-06-18", "2026-07-28"], eras: BOTH,
        serves: "records every frame's _meta", judge: judge_meta_keys,
    }
}

fn judge_meta_keys(o: &Observations) -> Verdict {
    let mut keys = std::collections::BTreeSet::new();
    for (frame, meta) in client_metas(o) {
        for key in meta.keys() {
            if let Some(fault) = fault(key, false) {
                return Verdict::new(Outcome::No, format!("the _meta key {key:?}: {fault}")).evidence([frame.seq]).opportunity([frame.seq]);
            }
            keys.insert(key.as_str());
        }
    }
    let named: Vec<&str> = keys.into_iter().collect();
    match named.is_empty() {
        true => Verdict::new(Outcome::Yes, "sent no _meta keys"),
        false => Verdict::new(Outcome::Yes, format!("{} keys, all well formed: {}", named.len(), named.join(", "))),
    }
}

/// The extensions the client declared, and where: its `initialize` capabilities, or any
/// request's per-request capabilities (2026-07-28).
fn declared_extensions(o: &Observations) -> Vec<(&Frame, &serde_json::Map<String, Value>)> {
    o.frames
        .iter()
        .filter(|f| f.dir == crate::journal::Direction::ClientToServer && f.is_request())
        .filter_map(|f| {
            let capabilities = if f.method() == Some("initialize") { f.params().get("capabilities") } else { f.meta(MODERN_META_CAPABILITIES) };
            Some((f, capabilities?.get("extensions")?.as_object()?))
        })
        .collect()
}

probe! {
    /// Evidence: the extensions the client declared (`capabilities.extensions`, in `initialize` or
    /// in a request's `_meta` capabilities): each identifier `{vendor-prefix}/{name}` with a
    /// well-formed prefix and name, and each mapped to a settings object. All well formed is yes;
    /// one that is not is no. A client that declares no extension: not applicable.
    ExtensionIdsWellFormed {
        id: "connection.extension_ids_well_formed", area: Connection, title: "declared extensions are named vendor/name, each with settings",
        revisions: ["2026-07-28"], eras: BOTH,
        serves: "records the capabilities of every request", judge: judge_extension_ids,
    }
}

fn judge_extension_ids(o: &Observations) -> Verdict {
    let declared = declared_extensions(o);
    if declared.is_empty() {
        return Verdict::new(Outcome::NotApplicable, "declared no extension");
    }
    let mut ids = std::collections::BTreeSet::new();
    for (frame, extensions) in &declared {
        for (id, settings) in extensions.iter() {
            let fault = fault(id, true).or((!settings.is_object()).then_some("its settings are not an object"));
            if let Some(fault) = fault {
                return Verdict::new(Outcome::No, format!("the extension {id:?}: {fault}")).evidence([frame.seq]).opportunity([frame.seq]);
            }
            ids.insert(id.as_str());
        }
    }
    let ids: Vec<&str> = ids.into_iter().collect();
    Verdict::new(Outcome::Yes, format!("declared {}", ids.join(", "))).evidence([declared[0].0.seq])
}

#[cfg(test)]
mod tests {
    use super::fault;

    #[test]
    fn keys_are_judged_by_the_format_2025_06_18_set_out() {
        for good in ["progressToken", "traceparent", "x-codex-turn-metadata", "claudecode/toolUseId", "io.modelcontextprotocol/clientInfo", "com.example.tools/a.b_c-d"] {
            assert_eq!(fault(good, false), None, "{good}");
        }
        for bad in ["-lead", "trail.", "has space", "9lives.example/x", "a..b/x", "io.modelcontextprotocol/invented", "dev.mcp/mine"] {
            assert!(fault(bad, false).is_some(), "{bad}");
        }
        assert!(fault("ui", true).is_some());
        assert_eq!(fault("io.modelcontextprotocol/ui", true), None);
        assert_eq!(fault("com.example/feature", true), None);
    }
}
