//! Exports for other catalogues: a canimcp-style results file, and the capabilities each client
//! declared. Both name the profile (two profiles of one product, such as an agent and its
//! harness mode, give the same `clientInfo`) beside the product's own name.

use serde_json::{json, Map, Value};

use crate::records::Record;

/// `{run_date, spec_version, results: [{profile, clientInfo, transport, features: {probe: {outcome, notes}}}]}`.
pub fn canimcp(records: &[&Record]) -> Value {
    let run_date = records.iter().map(|r| r.date.as_str()).max().unwrap_or("");
    let spec_version = records.iter().filter_map(|r| r.protocol_version.as_deref()).max().unwrap_or("");
    let results: Vec<Value> = records
        .iter()
        .map(|r| {
            let features: Map<String, Value> = r.verdicts.iter().map(|v| (v.probe.clone(), json!({"outcome": v.outcome.label(), "notes": v.detail}))).collect();
            json!({
                "profile": r.client,
                "clientInfo": {"name": client_name(r), "version": r.version},
                "transport": r.transport,
                "protocolVersion": r.protocol_version,
                "date": r.date,
                "features": features,
            })
        })
        .collect();
    json!({"run_date": run_date, "spec_version": spec_version, "results": results})
}

fn client_name(record: &Record) -> String {
    record.client_info.as_ref().and_then(|i| i.get("name")).and_then(Value::as_str).map_or_else(|| record.client.clone(), str::to_string)
}

/// `{profile: {clientInfo, version, protocolVersion, capabilities}}` as declared, one entry per
/// profile (its first record: stdio first).
pub fn declared(records: &[&Record]) -> Value {
    let mut out = Map::new();
    for record in records {
        let Some(capabilities) = &record.declared_capabilities else { continue };
        out.entry(record.client.clone())
            .or_insert_with(|| json!({"clientInfo": client_name(record), "version": record.version, "protocolVersion": record.protocol_version, "capabilities": capabilities}));
    }
    Value::Object(out)
}
