//! Exports for other catalogues: a canimcp-style results file, and the capabilities each client
//! declared, keyed by the name it gives in `clientInfo`.

use serde_json::{json, Map, Value};

use crate::records::Record;

/// `{run_date, spec_version, results: [{clientInfo, transport, features: {probe: {outcome, notes}}}]}`.
pub fn canimcp(records: &[&Record]) -> Value {
    let run_date = records.iter().map(|r| r.date.as_str()).max().unwrap_or("");
    let spec_version = records.iter().filter_map(|r| r.protocol_version.as_deref()).max().unwrap_or("");
    let results: Vec<Value> = records
        .iter()
        .map(|r| {
            let features: Map<String, Value> = r.verdicts.iter().map(|v| (v.probe.clone(), json!({"outcome": v.outcome.label(), "notes": v.detail}))).collect();
            json!({
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

/// `{clientInfo name: {protocolVersion, capabilities}}` as declared, one entry per name (stdio first).
pub fn declared(records: &[&Record]) -> Value {
    let mut out = Map::new();
    for record in records {
        let Some(capabilities) = &record.declared_capabilities else { continue };
        out.entry(client_name(record)).or_insert_with(|| json!({"version": record.version, "protocolVersion": record.protocol_version, "capabilities": capabilities}));
    }
    Value::Object(out)
}
