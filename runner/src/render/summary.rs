//! Outcomes at a glance, shared by the renderers: badges, hosts (a client version against one
//! kind of server), anchors, and per-area roll-ups.

use probe_server::probe::Outcome;

use crate::records::matrix::{Column, Matrix};

/// An outcome as a symbol and a word.
pub fn badge(outcome: Outcome) -> String {
    let symbol = match outcome {
        Outcome::Yes => "✓",
        Outcome::Partial => "◐",
        Outcome::No => "✕",
        Outcome::Violation => "⚠",
        Outcome::NotApplicable => "–",
        Outcome::NotReached | Outcome::Inconclusive => "?",
        Outcome::DeclaredOnly => "◌",
        Outcome::AutoAnswered => "↯",
    };
    format!("{symbol} {}", outcome.label())
}

/// A host as the summary shows it: one client version against one kind of server (both eras, or
/// one era only), over every transport it was probed on.
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    /// `client@version`, with the server kind when the server spoke one era only.
    pub label: String,
    /// The matrix columns (one per transport), in matrix order.
    pub columns: Vec<usize>,
}

/// The transport of a column without the server kind, and the server kind (empty for both eras).
pub fn split_transport(column: &Column) -> (&str, &str) {
    column.transport.split_once(" · ").unwrap_or((column.transport.as_str(), ""))
}

/// The hosts of a matrix, in the order their first column appears.
pub fn hosts(matrix: &Matrix) -> Vec<Host> {
    let mut hosts: Vec<Host> = Vec::new();
    for (index, column) in matrix.columns.iter().enumerate() {
        let (_, server) = split_transport(column);
        let label = if server.is_empty() { column.client.clone() } else { format!("{} · {server}", column.client) };
        match hosts.iter_mut().find(|h| h.label == label) {
            Some(host) => host.columns.push(index),
            None => hosts.push(Host { label, columns: vec![index] }),
        }
    }
    hosts
}

/// The HTML anchor of a probe's section.
pub fn anchor(probe: &str) -> String {
    format!("probe-{}", probe.replace(['.', '_'], "-"))
}

/// The outcome a host's transports agree on in one row, if they do.
pub fn agreed(matrix: &Matrix, row: usize, host: &Host) -> Option<Outcome> {
    let cells = &matrix.rows[row].cells;
    let first = cells[host.columns[0]].outcome;
    host.columns.iter().all(|&c| cells[c].outcome == first).then_some(first)
}

/// What some rows mean for a server author, in one line under the summary: how many hosts do it.
const FOR_SERVER_AUTHORS: &[(&str, &str)] = &[
    ("resources.templates_list", "list resource templates; elsewhere expose what matters as a listed resource or a tool too"),
    ("affordances.template_read", "let the model read an unlisted templated URI"),
    ("affordances.blob_to_model", "hand binary resource bytes to the model"),
    ("affordances.image_to_model", "hand a tool's image to the model"),
    ("elicitation.form", "answer a form elicitation when nobody is at the keyboard; interactive.* shows what a person can do"),
    ("sampling.create_message", "answer sampling/createMessage"),
    ("subscriptions.subscribe", "subscribe to resource updates"),
    ("skills.list", "list SEP-2640 skills"),
];

/// How many hosts do what one row asks, for a server author.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthorLine {
    pub probe: &'static str,
    pub what: &'static str,
    /// Hosts with a yes on one of their transports.
    pub doing: usize,
    pub hosts: usize,
}

/// The [`FOR_SERVER_AUTHORS`] lines whose probes the matrix has.
pub fn for_server_authors(matrix: &Matrix, hosts: &[Host]) -> Vec<AuthorLine> {
    FOR_SERVER_AUTHORS
        .iter()
        .filter_map(|&(probe, what)| {
            let row = matrix.rows.iter().find(|r| r.probe == probe)?;
            let doing = hosts.iter().filter(|h| h.columns.iter().any(|&c| row.cells[c].outcome == Outcome::Yes)).count();
            Some(AuthorLine { probe, what, doing, hosts: hosts.len() })
        })
        .collect()
}

/// How one host's probes of one area came out.
#[derive(Debug, Clone, PartialEq)]
pub struct Rollup {
    pub area: probe_server::Area,
    /// Probes whose transports agree, by outcome: yes, partial, no, violation, not reached
    /// (or inconclusive), other ([`ROLLUP_HEADINGS`]).
    pub counts: [usize; 6],
    /// Probes whose transports disagree.
    pub differ: usize,
}

/// What each of [`Rollup::counts`] counts.
pub const ROLLUP_HEADINGS: [&str; 6] = ["✓ yes", "◐ partial", "✕ no", "⚠ violation", "? not reached", "other"];

/// One roll-up per area, in matrix order, for one host.
pub fn rollups(matrix: &Matrix, host: &Host) -> Vec<Rollup> {
    let mut rollups: Vec<Rollup> = Vec::new();
    for (index, row) in matrix.rows.iter().enumerate() {
        if rollups.last().is_none_or(|r| r.area != row.area) {
            rollups.push(Rollup { area: row.area, counts: [0; 6], differ: 0 });
        }
        let Some(rollup) = rollups.last_mut() else { continue };
        let Some(outcome) = agreed(matrix, index, host) else {
            rollup.differ += 1;
            continue;
        };
        let slot = match outcome {
            Outcome::Yes => 0,
            Outcome::Partial => 1,
            Outcome::No => 2,
            Outcome::Violation => 3,
            Outcome::NotReached | Outcome::Inconclusive => 4,
            _ => 5,
        };
        rollup.counts[slot] += 1;
    }
    rollups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::matrix::{Cell, Row};
    use probe_server::probe::Verdict;
    use probe_server::Area;

    fn column(client: &str, transport: &str) -> Column {
        Column {
            client: client.into(),
            transport: transport.into(),
            era: "legacy".into(),
            protocol_version: Some("2025-11-25".into()),
            date: Some("2026-12-01".into()),
            record: None,
            journal: None,
            variant_journals: Default::default(),
            model_journal: None,
        }
    }

    fn cell(outcome: Outcome) -> Cell {
        Cell::from_verdict(Some(&Verdict::new(outcome, "d")))
    }

    #[test]
    fn transports_share_a_cell_only_when_they_agree() {
        let matrix = Matrix {
            columns: vec![column("a@1", "http"), column("a@1", "http · legacy-only server"), column("a@1", "stdio"), column("b@2", "stdio")],
            rows: vec![
                Row { probe: "tools.list".into(), area: Area::Tools, title: "t".into(), cells: [Outcome::Yes, Outcome::No, Outcome::Yes, Outcome::Partial].map(cell).to_vec() },
                Row {
                    probe: "tools.list_changed".into(),
                    area: Area::Tools,
                    title: "t".into(),
                    cells: [Outcome::Yes, Outcome::Yes, Outcome::No, Outcome::NotApplicable].map(cell).to_vec(),
                },
            ],
        };
        let found = hosts(&matrix);
        assert_eq!(found.iter().map(|h| (h.label.as_str(), h.columns.clone())).collect::<Vec<_>>(), [("a@1", vec![0, 2]), ("a@1 · legacy-only server", vec![1]), ("b@2", vec![3])]);
        assert_eq!(agreed(&matrix, 0, &found[0]), Some(Outcome::Yes));
        assert_eq!(agreed(&matrix, 1, &found[0]), None, "http yes, stdio no");
        let rollup = &rollups(&matrix, &found[0])[0];
        assert_eq!((rollup.counts[0], rollup.differ), (1, 1), "a@1: one probe agrees, one differs");
    }
}
