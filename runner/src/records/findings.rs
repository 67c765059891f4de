//! Findings the table cannot hold, generated from records: capabilities declared but never
//! honoured, features used without being declared, violations, and transports that disagree.

use std::collections::BTreeMap;

use probe_server::probe::{Declaration, Outcome};
use probe_server::registry;

use crate::records::Record;

/// One finding in plain words, about one client version.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Finding {
    pub client: String,
    pub text: String,
}

fn title(probe: &str) -> &'static str {
    registry::find(probe).map_or("unknown probe", |p| p.title())
}

/// Findings for every client version in `records`, sorted.
pub fn findings(records: &[&Record]) -> Vec<Finding> {
    let mut by_client: BTreeMap<String, Vec<&Record>> = BTreeMap::new();
    for record in records {
        by_client.entry(format!("{}@{}", record.client, record.version)).or_default().push(record);
    }
    let mut found = Vec::new();
    for (client, runs) in by_client {
        // Per probe: the transports (and one-era servers) on which each outcome was seen.
        let names: Vec<String> = runs.iter().map(|r| r.column_transport()).collect();
        let one_era: Vec<&str> = runs.iter().zip(&names).filter(|(r, _)| !r.server_eras.is_dual()).map(|(_, n)| n.as_str()).collect();
        let mut seen: BTreeMap<&str, Vec<(&str, &probe_server::Verdict)>> = BTreeMap::new();
        for (run, name) in runs.iter().zip(&names) {
            for verdict in &run.verdicts {
                seen.entry(verdict.probe.as_str()).or_default().push((name.as_str(), verdict));
            }
        }
        // A host's fallback against a one-era server, in one line.
        for run in runs.iter().filter(|r| !r.server_eras.is_dual()) {
            let how = match (run.era, run.protocol_version.as_deref()) {
                (Some(era), Some(version)) => format!("spoke the {era} era ({version})"),
                _ => "never opened a session".to_string(),
            };
            found.push(Finding { client: client.clone(), text: format!("against a {} over {}: {how}", run.server_eras.server_label(), run.transport) });
        }
        // Declared but not honoured, grouped per area and transports so one line says it.
        let mut unhonoured: BTreeMap<(probe_server::Area, String), Vec<(String, String)>> = BTreeMap::new();
        for (probe, verdicts) in seen {
            let transports = |pred: &dyn Fn(&probe_server::Verdict) -> bool| verdicts.iter().filter(|(_, v)| pred(v)).map(|(t, _)| *t).collect::<Vec<_>>().join(", ");
            let declared_unhonoured = transports(&|v| v.declared == Declaration::Declared && matches!(v.outcome, Outcome::No | Outcome::AutoAnswered | Outcome::DeclaredOnly));
            if !declared_unhonoured.is_empty() {
                let detail = verdicts.iter().find(|(_, v)| v.declared == Declaration::Declared).map(|(_, v)| v.detail.clone()).unwrap_or_default();
                let area = registry::find(probe).map_or(probe_server::Area::Connection, |p| p.area());
                unhonoured.entry((area, declared_unhonoured)).or_default().push((title(probe).to_string(), detail));
            }
            let undeclared_use = transports(&|v| v.declared == Declaration::NotDeclared && v.outcome == Outcome::Yes);
            if !undeclared_use.is_empty() {
                found.push(Finding { client: client.clone(), text: format!("\"{}\" works although the client does not declare it ({undeclared_use})", title(probe)) });
            }
            let violations = transports(&|v| v.outcome == Outcome::Violation);
            if !violations.is_empty() {
                found.push(Finding { client: client.clone(), text: format!("violation in \"{}\" ({violations})", title(probe)) });
            }
            // n/a says the probe cannot observe anything over that transport: not a disagreement.
            // A one-era server serves another era: its verdicts are no transport disagreement either.
            let dual: Vec<&(&str, &probe_server::Verdict)> = verdicts.iter().filter(|(t, _)| !one_era.contains(t)).collect();
            let outcomes: Vec<Outcome> = dual.iter().map(|(_, v)| v.outcome).filter(|o| *o != Outcome::NotApplicable).collect();
            if outcomes.windows(2).any(|w| w[0] != w[1]) {
                let each = dual.iter().map(|(t, v)| format!("{t}: {}", v.outcome.label())).collect::<Vec<_>>().join(", ");
                found.push(Finding { client: client.clone(), text: format!("\"{}\" differs between transports ({each})", title(probe)) });
            }
        }
        // Headless elicitation is answered with nobody at the keyboard; say when a person at the
        // terminal was seen to get it working.
        let at_terminal = runs
            .iter()
            .flat_map(|r| &r.verdicts)
            .filter(|v| v.outcome == Outcome::Yes && registry::find(&v.probe).is_some_and(|p| p.area() == probe_server::Area::Interactive))
            .count();
        for ((area, transports), probes) in unhonoured {
            let each = probes.iter().map(|(title, detail)| format!("{title} ({detail})")).collect::<Vec<_>>().join("; ");
            let text = if area == probe_server::Area::Elicitation && at_terminal > 0 {
                format!("declares elicitation; with nobody at the keyboard no probe saw it work ({transports}): {each}; with a person at the terminal {at_terminal} interactive probes said yes")
            } else if area == probe_server::Area::Interactive {
                format!("declares elicitation; with a person at the terminal these did not work ({transports}): {each}")
            } else {
                format!("declares {}, but no probe saw it work ({transports}): {each}", area.title().to_lowercase())
            };
            found.push(Finding { client: client.clone(), text });
        }
    }
    found.sort();
    found
}
