//! A matrix read per client: each probe's columns merged, each feature rolled up.

use std::collections::BTreeMap;

use super::{merge, roll_up, Feature, FeatureAnswer, Merged, Seen, FEATURES};
use crate::records::matrix::Matrix;

/// One client version's answers: its columns (every transport and server kind) taken together.
#[derive(Debug, Clone)]
pub struct ClientAnswers {
    /// The client's name, without its version.
    pub client: String,
    pub version: String,
    /// Its columns in the matrix, in matrix order.
    pub columns: Vec<usize>,
    /// Each probe's outcome, its columns merged.
    pub probes: BTreeMap<String, Merged>,
    /// Each feature's answer, in catalogue order.
    pub features: Vec<(&'static Feature, FeatureAnswer)>,
}

impl ClientAnswers {
    pub fn answer(&self, feature: &str) -> Option<&FeatureAnswer> {
        self.features.iter().find(|(f, _)| f.id == feature).map(|(_, a)| a)
    }
}

/// Splits `client@version` (a column's client) into name and version.
pub fn split_label(label: &str) -> (&str, &str) {
    label.rsplit_once('@').unwrap_or((label, ""))
}

/// The matrix read per client version, in the order each first appears.
pub fn by_client(matrix: &Matrix) -> Vec<ClientAnswers> {
    let mut clients: Vec<ClientAnswers> = Vec::new();
    for (index, column) in matrix.columns.iter().enumerate() {
        let (client, version) = split_label(&column.client);
        match clients.iter_mut().find(|c| c.client == client && c.version == version) {
            Some(c) => c.columns.push(index),
            None => clients.push(ClientAnswers { client: client.into(), version: version.into(), columns: vec![index], probes: BTreeMap::new(), features: Vec::new() }),
        }
    }
    for client in &mut clients {
        for row in &matrix.rows {
            let seen: Vec<Seen> =
                client.columns.iter().map(|&c| Seen { column: &matrix.columns[c].transport, outcome: row.cells[c].outcome, detail: &row.cells[c].detail }).collect();
            if let Some(merged) = merge(&seen) {
                client.probes.insert(row.probe.clone(), merged);
            }
        }
        let probes = &client.probes;
        client.features = FEATURES.iter().map(|f| (f, roll_up(f, |p| probes.get(p)))).collect();
    }
    clients
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Transport;
    use crate::render::tests::recorded;
    use probe_server::Era;

    #[test]
    fn a_clients_columns_answer_together() {
        let runs = [recorded("reference-stdio-legacy-full.jsonl", Transport::Stdio, Era::Legacy), recorded("reference-http-modern-full.jsonl", Transport::Http, Era::Modern)];
        let matrix = crate::runs::reference::matrix_of("reference@1.0", &runs.iter().collect::<Vec<_>>());
        let clients = by_client(&matrix);
        assert_eq!(clients.len(), 1);
        let reference = &clients[0];
        assert_eq!((reference.client.as_str(), reference.version.as_str(), reference.columns.len()), ("reference", "1.0", 2));
        assert_eq!(reference.features.len(), FEATURES.len());
        // The full reference client lists tools on both transports.
        assert_eq!(reference.answer("tools").map(|a| a.answer), Some(super::super::Answer::Supported), "{:?}", reference.answer("tools"));
    }
}
