//! Outcomes at a glance, shared by the renderers: badges, hosts (a client version against one
//! kind of server), anchors, and per-area roll-ups.

use probe_server::probe::Outcome;

use crate::records::matrix::{Column, Matrix};

/// An outcome's symbol, for dense tables.
pub fn symbol(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Yes => "✓",
        Outcome::Partial => "◐",
        Outcome::No => "✕",
        Outcome::Violation => "⚠",
        Outcome::NotApplicable => "–",
        Outcome::NotReached | Outcome::Inconclusive => "?",
        Outcome::DeclaredOnly => "◌",
        Outcome::AutoAnswered => "↯",
    }
}

/// What each outcome means, in the order legends list them.
pub const OUTCOME_MEANINGS: &[(Outcome, &str)] = &[
    (Outcome::Yes, "works as specified"),
    (Outcome::Partial, "some of it works"),
    (Outcome::No, "exercised and not working, or never used"),
    (Outcome::DeclaredOnly, "declared, never honoured"),
    (Outcome::AutoAnswered, "answered with nobody asked (under 100 ms, or in a headless run)"),
    (Outcome::Violation, "used without declaring it, or forbidden by the specification"),
    (Outcome::NotReached, "the run never got there"),
    (Outcome::Inconclusive, "the evidence does not decide"),
    (Outcome::NotApplicable, "the probe does not exist in the protocol era the client chose"),
];

/// An outcome as a symbol and a word.
pub fn badge(outcome: Outcome) -> String {
    format!("{} {}", symbol(outcome), outcome.label())
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

/// The outcome a host's transports agree on in one row, if they do. A transport on which the
/// probe is n/a (it exists over one transport only, or not in the era spoken there) takes no
/// side: the others decide.
pub fn agreed(matrix: &Matrix, row: usize, host: &Host) -> Option<Outcome> {
    let cells = &matrix.rows[row].cells;
    let mut sides = host.columns.iter().map(|&c| cells[c].outcome).filter(|&o| o != Outcome::NotApplicable);
    let Some(first) = sides.next() else { return Some(Outcome::NotApplicable) };
    sides.all(|o| o == first).then_some(first)
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
            compressed: false,
            never_ended: false,
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
        // b@2 has one transport; a@1's legacy-only host is n/a nowhere: a lone n/a is n/a.
        let one_side = Matrix {
            columns: matrix.columns.clone(),
            rows: vec![Row {
                probe: "x".into(),
                area: Area::Tools,
                title: "t".into(),
                cells: [Outcome::NotApplicable, Outcome::Yes, Outcome::Yes, Outcome::Yes].map(cell).to_vec(),
            }],
        };
        assert_eq!(agreed(&one_side, 0, &found[0]), Some(Outcome::Yes), "n/a over http takes no side");
        let none = Matrix {
            columns: matrix.columns.clone(),
            rows: vec![Row { probe: "x".into(), area: Area::Tools, title: "t".into(), cells: [Outcome::NotApplicable; 4].map(cell).to_vec() }],
        };
        assert_eq!(agreed(&none, 0, &found[0]), Some(Outcome::NotApplicable));
        let rollup = &rollups(&matrix, &found[0])[0];
        assert_eq!((rollup.counts[0], rollup.differ), (1, 1), "a@1: one probe agrees, one differs");
    }
}
