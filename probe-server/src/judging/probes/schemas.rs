//! How faithfully an input schema reaches the model, and the model's arguments the server. One
//! tool, `probe_schema`, carries what server authors reach for (`surface::schema_tool_input`):
//! a property by `$ref` into `$defs`, a nullable union, a `format`, bounds two objects deep. The
//! schema judges read the entry the host offered its model (model journal) and accept every
//! equivalent spelling: a `$ref` kept with its target or the target inlined, `anyOf`/`oneOf`,
//! a list of types or `nullable: true` for a union, type names in any case. Evidence lines are
//! those of the model journal; the arguments judge names the server journal's line in its detail.

use serde_json::Value;

use super::{probe, BOTH};
use crate::host_tools::names_tool;
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};
use crate::surface as s;

/// How deep a chain of `$ref`s is followed before it counts as unresolvable.
const MAX_REF_HOPS: usize = 8;

/// The schema the host offered its model for `tool`: (model journal line, schema). Not reached
/// when the model was offered no MCP tool at all; no when it was offered others but not this one
/// (a host that drops a tool it cannot convert).
pub(super) fn offered_schema<'a>(o: &'a Observations, tool: &str) -> Result<(u64, &'a Value), Verdict> {
    let offered = o.offered_tools();
    if let Some((seq, entry)) = offered.iter().find(|(_, t)| t.get("name").and_then(Value::as_str).is_some_and(|n| names_tool(n, tool))) {
        return Ok((*seq, entry.get("schema").unwrap_or(&Value::Null)));
    }
    let others = o.offered_probe_tools();
    Err(match others.first() {
        None => super::no_tool_offered(o),
        Some((first, _)) => Verdict::new(Outcome::No, format!("offered {} MCP tools but never {tool}", others.len())).evidence([*first]).opportunity([*first]),
    })
}

/// `node` with its `$ref` chain followed inside `root` (local pointers only); `None` when a
/// reference points nowhere.
pub(super) fn resolve<'a>(root: &'a Value, node: &'a Value) -> Option<&'a Value> {
    let mut current = node;
    for _ in 0..MAX_REF_HOPS {
        let Some(reference) = current.get("$ref").and_then(Value::as_str) else { return Some(current) };
        current = root.pointer(reference.strip_prefix('#')?)?;
    }
    None
}

/// Property `name` of `schema` (resolved), if the schema still has it.
fn property<'a>(root: &'a Value, schema: &'a Value, name: &str) -> Option<&'a Value> {
    resolve(root, schema.get("properties")?.get(name)?)
}

/// The types a schema admits, lowercased: its `type` (one or a list), the types of its `anyOf`
/// or `oneOf` branches, and null where `nullable` is true.
fn admitted_types(root: &Value, schema: &Value) -> Vec<String> {
    let mut types: Vec<String> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.to_lowercase()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).map(str::to_lowercase).collect(),
        _ => Vec::new(),
    };
    for key in ["anyOf", "oneOf"] {
        for branch in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            if let Some(branch) = resolve(root, branch) {
                types.extend(admitted_types(root, branch));
            }
        }
    }
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        types.push("null".into());
    }
    types
}

/// A schema shown short in a verdict's detail.
pub(super) fn shown(schema: &Value) -> String {
    let text = schema.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] = &[&SchemaRefsResolvable, &SchemaUnionKept, &SchemaFormatKept, &SchemaNestedKept, &SchemaArgumentsIntact];

probe! {
    /// Evidence (model journal): in the schema the host offered for `probe_schema`, property
    /// `origin` (a `$ref` to `#/$defs/point`) still resolves to an object with properties `x`
    /// and `y`: the `$ref` kept with its `$defs`, or the definition inlined (yes). A `$ref` that
    /// points nowhere in the offered schema, or an `origin` without the point's properties, is
    /// no. JSON Schema 2020-12 `$ref`/`$defs` (MCP 2025-11-25 makes 2020-12 the default dialect).
    SchemaRefsResolvable {
        id: "affordances.schema_refs_resolvable", area: Affordances, title: "a $ref into $defs still resolves for the model",
        revisions: ["2025-11-25"], eras: BOTH, serves: "probe_schema: origin is {\"$ref\": \"#/$defs/point\"}",
        judge: judge_refs, needs_model: true,
    }
}

fn judge_refs(o: &Observations) -> Verdict {
    let (seq, schema) = match offered_schema(o, s::TOOL_SCHEMA) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    let raw = schema.get("properties").and_then(|p| p.get("origin"));
    let Some(raw) = raw else {
        return Verdict::new(Outcome::No, "the offered schema has no origin property").evidence([seq]).opportunity([seq]);
    };
    let Some(origin) = resolve(schema, raw) else {
        return Verdict::new(Outcome::No, format!("origin's $ref points nowhere in the offered schema: {}", shown(raw))).evidence([seq]).opportunity([seq]);
    };
    let has = |name: &str| origin.get("properties").and_then(|p| p.get(name)).is_some();
    match (has("x") && has("y"), raw.get("$ref").is_some()) {
        (true, true) => Verdict::new(Outcome::Yes, "the $ref and its definition reached the model").evidence([seq]),
        (true, false) => Verdict::new(Outcome::Yes, "the definition reached the model inlined").evidence([seq]),
        (false, _) => Verdict::new(Outcome::No, format!("origin lost the point's properties: {}", shown(origin))).evidence([seq]).opportunity([seq]),
    }
}

probe! {
    /// Evidence (model journal): property `label` (`anyOf` a string and null) still admits both
    /// in the offered schema — as `anyOf`/`oneOf`, a list of types, or `nullable: true` (yes).
    /// A union cut to one of its types, or a `label` gone, is no.
    SchemaUnionKept {
        id: "affordances.schema_union_kept", area: Affordances, title: "a nullable union reaches the model as a union",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_schema: label is anyOf [string, null]",
        judge: judge_union, needs_model: true,
    }
}

/// Judges the property at `path` (names of nested properties) in the schema offered for `tool`
/// with `judge` (given the model journal line, the schema and the resolved property); a schema
/// not offered, or without that property, is judged here.
pub(super) fn judge_property(o: &Observations, tool: &str, path: &[&str], judge: fn(u64, &Value, &Value) -> Verdict) -> Verdict {
    let (seq, schema) = match offered_schema(o, tool) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    match path.iter().try_fold(schema, |node, name| property(schema, node, name)) {
        Some(found) => judge(seq, schema, found),
        None if path.len() == 1 => {
            Verdict::new(Outcome::No, format!("the offered schema has no {} property (or its $ref points nowhere)", path[0])).evidence([seq]).opportunity([seq])
        }
        None => {
            let first = schema.get("properties").and_then(|p| p.get(path[0])).unwrap_or(&Value::Null);
            Verdict::new(Outcome::No, format!("{} is gone: {} is {}", path.join("."), path[0], shown(first))).evidence([seq]).opportunity([seq])
        }
    }
}

fn judge_union(o: &Observations) -> Verdict {
    judge_property(o, s::TOOL_SCHEMA, &["label"], |seq, schema, label| {
        let types = admitted_types(schema, label);
        let admits = |t: &str| types.iter().any(|have| have == t);
        match (admits("string"), admits("null")) {
            (true, true) => Verdict::new(Outcome::Yes, "label admits a string and null").evidence([seq]),
            _ => Verdict::new(Outcome::No, format!("label no longer admits both a string and null: {}", shown(label))).evidence([seq]).opportunity([seq]),
        }
    })
}

probe! {
    /// Evidence (model journal): property `when` keeps `format: "date"` in the offered schema
    /// (yes). The format only named in the property's description is partial; gone, no.
    SchemaFormatKept {
        id: "affordances.schema_format_kept", area: Affordances, title: "a string's format reaches the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_schema: when is a string of format date",
        judge: judge_format, needs_model: true,
    }
}

fn judge_format(o: &Observations) -> Verdict {
    judge_property(o, s::TOOL_SCHEMA, &["when"], |seq, _, when| {
        let described = when.get("description").and_then(Value::as_str).is_some_and(|d| d.to_lowercase().contains("date"));
        match when.get("format").and_then(Value::as_str) {
            Some("date") => Verdict::new(Outcome::Yes, "when keeps format date").evidence([seq]),
            Some(other) => Verdict::new(Outcome::No, format!("when's format became {other:?}")).evidence([seq]).opportunity([seq]),
            None if described => Verdict::new(Outcome::Partial, "the format is gone from when, named only in its description").evidence([seq]).opportunity([seq]),
            None => Verdict::new(Outcome::No, format!("when lost its format: {}", shown(when))).evidence([seq]).opportunity([seq]),
        }
    })
}

probe! {
    /// Evidence (model journal): property `options.depth.level`, two objects deep, keeps its
    /// bounds (`minimum` 1, `maximum` 3) in the offered schema (yes). The property kept without
    /// its bounds is partial; the nested objects emptied of their properties, no.
    SchemaNestedKept {
        id: "affordances.schema_nested_kept", area: Affordances, title: "nested objects reach the model with their constraints",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_schema: options.depth.level is an integer from 1 to 3",
        judge: judge_nested, needs_model: true,
    }
}

fn judge_nested(o: &Observations) -> Verdict {
    judge_property(o, s::TOOL_SCHEMA, &["options", "depth", "level"], |seq, _, level| {
        let bound = |key: &str| level.get(key).and_then(Value::as_f64);
        match (bound("minimum"), bound("maximum")) {
            (Some(min), Some(max)) if min == 1.0 && max == 3.0 => Verdict::new(Outcome::Yes, "options.depth.level keeps its bounds 1 to 3").evidence([seq]),
            _ => Verdict::new(Outcome::Partial, format!("options.depth.level is there without its bounds: {}", shown(level))).evidence([seq]).opportunity([seq]),
        }
    })
}

probe! {
    /// Evidence (model journal, server journal named in the detail): the model calls
    /// `probe_schema` with a nested point, a null `label`, a date and an object two levels deep;
    /// the `tools/call` that reaches the server carries exactly those arguments (yes). The same
    /// with the null argument left out is partial (a server cannot tell "null" from "absent");
    /// any other difference, or no call reaching the server, is no.
    SchemaArgumentsIntact {
        id: "affordances.schema_arguments_intact", area: Affordances, title: "the model's arguments reach the server intact",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_schema: the model sends a point, a null, a date and nested options",
        judge: judge_arguments, needs_model: true,
    }
}

fn judge_arguments(o: &Observations) -> Verdict {
    let (call, sent) = match super::results::first_call(o, s::TOOL_SCHEMA) {
        Ok(call) => call,
        Err(not_reached) => return not_reached,
    };
    let Some(received) = o.tool_calls(s::TOOL_SCHEMA).next() else {
        return Verdict::new(Outcome::No, "the model's call never reached the server").evidence([call]).opportunity([call]);
    };
    let arguments = received.params().get("arguments").cloned().unwrap_or(Value::Null);
    let at = received.seq;
    if arguments == sent {
        return Verdict::new(Outcome::Yes, format!("the server got the model's arguments unchanged (server journal line {at})")).evidence([call]);
    }
    let mut without_nulls = sent.clone();
    if let Some(object) = without_nulls.as_object_mut() {
        object.retain(|_, v| !v.is_null());
    }
    if arguments == without_nulls {
        return Verdict::new(Outcome::Partial, format!("the server got the arguments without the null label (server journal line {at})")).evidence([call]).opportunity([call]);
    }
    let changed: Vec<&str> = sent.as_object().into_iter().flatten().filter(|(k, v)| arguments.get(k.as_str()) != Some(*v)).map(|(k, _)| k.as_str()).collect();
    Verdict::new(Outcome::No, format!("the server got other arguments ({} changed; server journal line {at}): {}", changed.join(", "), shown(&arguments)))
        .evidence([call])
        .opportunity([call])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_resolve_locally_and_dangle_when_their_target_is_gone() {
        let schema = s::schema_tool_input();
        let origin = &schema["properties"]["origin"];
        assert_eq!(resolve(&schema, origin).and_then(|p| p.get("required")), Some(&json!(["x", "y"])));
        let mut without = schema.clone();
        without.as_object_mut().unwrap().remove("$defs");
        assert!(resolve(&without, &without["properties"]["origin"]).is_none());
        let looping = json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "x": {"$ref": "#/$defs/a"}});
        assert!(resolve(&looping, &looping["x"]).is_none(), "a loop is not followed for ever");
    }

    #[test]
    fn a_union_is_recognised_in_every_spelling() {
        let root = json!({});
        for spelling in [
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!({"oneOf": [{"type": "STRING"}, {"type": "NULL"}]}),
            json!({"type": ["string", "null"]}),
            json!({"type": "STRING", "nullable": true}),
        ] {
            let types = admitted_types(&root, &spelling);
            assert!(types.contains(&"string".into()) && types.contains(&"null".into()), "{spelling}");
        }
        assert_eq!(admitted_types(&root, &json!({"type": "string", "maxLength": 40})), vec!["string".to_string()]);
    }

    #[test]
    fn the_served_schema_passes_every_schema_judge_shape() {
        let schema = s::schema_tool_input();
        let label = property(&schema, &schema, "label").expect("label");
        assert_eq!(admitted_types(&schema, label), vec!["string".to_string(), "null".to_string()]);
        let level = ["options", "depth", "level"].iter().try_fold(&schema, |node, name| property(&schema, node, name)).expect("level");
        assert_eq!(level["maximum"], 3);
        assert_eq!(property(&schema, &schema, "when").and_then(|w| w.get("format")), Some(&json!("date")));
    }
}
