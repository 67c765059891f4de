//! Keywords that schema conversions for model APIs are known to drop or rewrite, one property
//! each in `probe_schema_keywords` (`surface::schema_keywords_input`): a closed object, a `oneOf`
//! of two object shapes, a 2020-12 tuple, a `const`, a `pattern` and a string `enum`. The model
//! is offered the tool and never asked to call it, so each judge reads only the entry the host
//! offered its model (model journal), and accepts every equivalent spelling of its keyword. One
//! more tool, `probe_schema_remote` (tool-names variant), holds a `$ref` to a loopback URL that
//! must not be fetched.

use serde_json::Value;

use super::schemas::{judge_property, offered_schema, resolve, shown};
use super::{probe, BOTH};
use crate::observe::Observations;
use crate::probe::{Outcome, Verdict};
use crate::surface as s;

fn yes(seq: u64, detail: impl Into<String>) -> Verdict {
    Verdict::new(Outcome::Yes, detail).evidence([seq])
}

fn short(outcome: Outcome, seq: u64, detail: impl Into<String>) -> Verdict {
    Verdict::new(outcome, detail).evidence([seq]).opportunity([seq])
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] =
    &[&SchemaClosedKept, &SchemaOneOfKept, &SchemaTupleKept, &SchemaConstKept, &SchemaPatternKept, &SchemaEnumKept, &SchemaRemoteRefNotFetched];

probe! {
    /// Evidence (model journal): the schema offered for `probe_schema_keywords` still says
    /// `additionalProperties: false` at its top level (yes). Dropped, or opened (`true` or a
    /// schema), is no: the model may then send properties the server refuses. JSON Schema
    /// 2020-12 §10.3.2.3.
    SchemaClosedKept {
        id: "affordances.schema_closed_kept", area: Affordances, title: "a closed object (additionalProperties: false) stays closed",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_schema_keywords: additionalProperties is false",
        judge: judge_closed, needs_model: true,
    }
}

fn judge_closed(o: &Observations) -> Verdict {
    let (seq, schema) = match offered_schema(o, s::TOOL_SCHEMA_KEYWORDS) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    match schema.get("additionalProperties") {
        Some(Value::Bool(false)) => yes(seq, "additionalProperties: false reached the model"),
        None => short(Outcome::No, seq, "additionalProperties is gone: the offered object is open"),
        Some(other) => short(Outcome::No, seq, format!("additionalProperties became {}", shown(other))),
    }
}

probe! {
    /// Evidence (model journal): property `shape` (`oneOf` an object with `radius` and an object
    /// with `side`) keeps both alternatives as `oneOf` (yes). Loosened to `anyOf`, or merged
    /// into one object that has both properties, is partial (the model may send both); one
    /// alternative left, or `shape` gone, is no. JSON Schema 2020-12 §10.2.1.3.
    SchemaOneOfKept {
        id: "affordances.schema_one_of_kept", area: Affordances, title: "a oneOf of object shapes reaches the model whole",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_schema_keywords: shape is oneOf a circle and a square",
        judge: judge_one_of, needs_model: true,
    }
}

/// Whether `schema` (resolved in `root`) names property `name`.
fn names_property(root: &Value, schema: &Value, name: &str) -> bool {
    resolve(root, schema).and_then(|s| s.get("properties")).and_then(|p| p.get(name)).is_some()
}

fn judge_one_of(o: &Observations) -> Verdict {
    judge_property(o, s::TOOL_SCHEMA_KEYWORDS, &["shape"], |seq, root, shape| {
        let both = |key: &str| {
            let branches = shape.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
            branches.iter().any(|b| names_property(root, b, "radius")) && branches.iter().any(|b| names_property(root, b, "side"))
        };
        if both("oneOf") {
            yes(seq, "shape keeps both alternatives as oneOf")
        } else if both("anyOf") {
            short(Outcome::Partial, seq, "shape keeps both alternatives, loosened to anyOf")
        } else if names_property(root, shape, "radius") && names_property(root, shape, "side") {
            short(Outcome::Partial, seq, "shape's alternatives are merged into one object")
        } else {
            short(Outcome::No, seq, format!("shape lost an alternative: {}", shown(shape)))
        }
    })
}

probe! {
    /// Evidence (model journal): property `pair` (a 2020-12 tuple: `prefixItems` a string and an
    /// integer, `items: false`) keeps `prefixItems` with both positions (yes). The tuple in the
    /// pre-2020 spelling (`items` as an array of two) is partial: the model's API reads another
    /// dialect than the tool declared. Positions gone is no. JSON Schema 2020-12 §10.3.1.1 (MCP
    /// 2025-11-25 makes 2020-12 the default dialect).
    SchemaTupleKept {
        id: "affordances.schema_tuple_kept", area: Affordances, title: "a 2020-12 tuple (prefixItems) reaches the model",
        revisions: ["2025-11-25"], eras: BOTH, serves: "probe_schema_keywords: pair is prefixItems [string, integer]",
        judge: judge_tuple, needs_model: true,
    }
}

fn judge_tuple(o: &Observations) -> Verdict {
    judge_property(o, s::TOOL_SCHEMA_KEYWORDS, &["pair"], |seq, _, pair| {
        let positions = |key: &str| pair.get(key).and_then(Value::as_array).map_or(0, Vec::len);
        if positions("prefixItems") == 2 {
            yes(seq, "pair keeps prefixItems with both positions")
        } else if positions("items") == 2 {
            short(Outcome::Partial, seq, "pair is spelled as a pre-2020 tuple (items as an array)")
        } else {
            short(Outcome::No, seq, format!("pair lost its positions: {}", shown(pair)))
        }
    })
}

probe! {
    /// Evidence (model journal): property `kind` (`const: "probe"`) still admits only "probe":
    /// `const` kept, or spelled `enum: ["probe"]` (yes). Gone is no.
    SchemaConstKept {
        id: "affordances.schema_const_kept", area: Affordances, title: "a const reaches the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_schema_keywords: kind is const \"probe\"",
        judge: judge_const, needs_model: true,
    }
}

fn judge_const(o: &Observations) -> Verdict {
    judge_property(o, s::TOOL_SCHEMA_KEYWORDS, &["kind"], |seq, _, kind| {
        let only = serde_json::json!(["probe"]);
        if kind.get("const").and_then(Value::as_str) == Some("probe") {
            yes(seq, "kind keeps const \"probe\"")
        } else if kind.get("enum") == Some(&only) {
            yes(seq, "kind is spelled as enum [\"probe\"]")
        } else {
            short(Outcome::No, seq, format!("kind no longer admits only \"probe\": {}", shown(kind)))
        }
    })
}

probe! {
    /// Evidence (model journal): property `code` keeps `pattern: "^[A-Z]{3}$"` (yes). The
    /// pattern named only in the description is partial; gone or changed, no.
    SchemaPatternKept {
        id: "affordances.schema_pattern_kept", area: Affordances, title: "a string's pattern reaches the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_schema_keywords: code matches ^[A-Z]{3}$",
        judge: judge_pattern, needs_model: true,
    }
}

const CODE_PATTERN: &str = "^[A-Z]{3}$";

fn judge_pattern(o: &Observations) -> Verdict {
    judge_property(o, s::TOOL_SCHEMA_KEYWORDS, &["code"], |seq, _, code| {
        let described = code.get("description").and_then(Value::as_str).is_some_and(|d| d.contains(CODE_PATTERN));
        match code.get("pattern").and_then(Value::as_str) {
            Some(CODE_PATTERN) => yes(seq, "code keeps its pattern"),
            Some(other) => short(Outcome::No, seq, format!("code's pattern became {other:?}")),
            None if described => short(Outcome::Partial, seq, "the pattern is gone from code, named only in its description"),
            None => short(Outcome::No, seq, format!("code lost its pattern: {}", shown(code))),
        }
    })
}

probe! {
    /// Evidence (model journal): property `color` keeps `enum` with exactly red, green and blue,
    /// in any order (yes). Values lost or added, or the enum gone, is no.
    SchemaEnumKept {
        id: "affordances.schema_enum_kept", area: Affordances, title: "a string enum reaches the model",
        revisions: ["2024-11-05"], eras: BOTH, serves: "probe_schema_keywords: color is one of red, green, blue",
        judge: judge_enum, needs_model: true,
    }
}

fn judge_enum(o: &Observations) -> Verdict {
    judge_property(o, s::TOOL_SCHEMA_KEYWORDS, &["color"], |seq, _, color| {
        let mut values: Vec<&str> = color.get("enum").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        values.sort_unstable();
        if values == ["blue", "green", "red"] {
            yes(seq, "color keeps its three values")
        } else {
            short(Outcome::No, seq, format!("color no longer admits exactly red, green and blue: {}", shown(color)))
        }
    })
}

probe! {
    /// Evidence (server journal, with the model's as opportunity): in the tool-names variant,
    /// `probe_schema_remote`'s property `unit` is a `$ref` to an absolute URL on the server's
    /// fetch trap, whose every request is journalled (`url_fetched`). Offered to the model (model
    /// journal) with no request at that URL is yes; its detail says what the model got for `unit`
    /// (the `$ref` as is, or something else). A request at that URL is no: the host dereferenced a network reference on its own, which
    /// JSON Schema 2020-12 §9.1.2 does not ask of it (a reference identifies a schema the
    /// implementation knows ahead of time; nothing need be downloaded) and which lets a server's
    /// listing make the host open connections. The tool left out of what the model was offered,
    /// unfetched, is partial.
    SchemaRemoteRefNotFetched {
        id: "affordances.schema_remote_ref_not_fetched", area: Affordances, title: "a remote $ref in a tool schema is not fetched",
        revisions: ["2024-11-05"], eras: BOTH, variant: ToolNames, serves: "probe_schema_remote: unit is a $ref to a loopback URL that journals every request",
        judge: judge_remote_ref, needs_model: true, server_evidence: true,
    }
}

fn judge_remote_ref(o: &Observations) -> Verdict {
    if let Some(fetch) = o.trap_fetches(crate::fetch_trap::SCHEMA_PATH).next() {
        return Verdict::new(Outcome::No, format!("the host fetched the remote $ref itself: {}", crate::fetch_trap::fetcher(fetch))).evidence([fetch.seq]).opportunity([fetch.seq]);
    }
    // The listing that carried the reference: the server journal's evidence of a yes.
    let listed = o.client_requests("tools/list").filter_map(|f| o.answer_to(f)).map(|a| a.seq).last();
    let (seq, schema) = match offered_schema(o, s::TOOL_SCHEMA_REMOTE) {
        Ok(found) => found,
        // The judge of offered schemas cites the model journal's lines.
        Err(Verdict { outcome, detail, evidence, .. }) => {
            let outcome = if outcome == Outcome::No { Outcome::Partial } else { outcome };
            return Verdict::new(outcome, format!("never fetched; {detail}")).evidence(listed).opportunity_model(evidence);
        }
    };
    let unit = schema.get("properties").and_then(|p| p.get(s::REMOTE_REF_PROPERTY));
    let got = match unit {
        None => "unit was left out".to_string(),
        Some(u) if u.get("$ref").and_then(Value::as_str).is_some_and(|r| r.ends_with(crate::fetch_trap::SCHEMA_PATH)) => "the $ref reached the model as is".to_string(),
        Some(u) => format!("unit became {}", shown(u)),
    };
    Verdict::new(Outcome::Yes, format!("never fetched; {got}")).evidence(listed).opportunity_model([seq])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_served_schema_has_every_keyword_these_judges_look_for() {
        let schema = s::schema_keywords_input();
        let p = &schema["properties"];
        assert_eq!(schema["additionalProperties"], false);
        assert!(names_property(&schema, &p["shape"]["oneOf"][0], "radius") && names_property(&schema, &p["shape"]["oneOf"][1], "side"));
        assert!(!names_property(&schema, &p["shape"], "radius"), "the served shape is not a merged object");
        assert_eq!(p["pair"]["prefixItems"].as_array().map(Vec::len), Some(2));
        assert_eq!(p["kind"]["const"], "probe");
        assert_eq!(p["code"]["pattern"], CODE_PATTERN);
        assert_eq!(p["color"]["enum"], serde_json::json!(["red", "green", "blue"]));
    }

    #[test]
    fn the_remote_ref_points_at_the_trap_and_cannot_be_resolved_locally() {
        let tool = s::schema_remote_tool("http://127.0.0.1:4000/mcp-client-probe/schemas/unit.json");
        let unit = &tool["inputSchema"]["properties"][s::REMOTE_REF_PROPERTY];
        assert!(unit["$ref"].as_str().unwrap().ends_with(crate::fetch_trap::SCHEMA_PATH));
        assert_eq!(resolve(&tool["inputSchema"], unit), None);
    }

    #[test]
    fn the_served_schema_shares_no_keyword_with_probe_schema() {
        let text = s::schema_keywords_input().to_string();
        for keyword in ["$defs", "$ref", "anyOf", "format", "minimum"] {
            assert!(!text.contains(keyword), "{keyword}");
        }
    }
}
