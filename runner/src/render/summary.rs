//! The parts of `MATRIX.md` that answer at a glance: the summary (one row per probe, one column
//! per host, transports merged into one cell where they agree), and one short section per host.

use std::fmt::Write;

use probe_server::probe::Outcome;

use crate::records::findings::Finding;
use crate::records::matrix::{Column, Matrix};

/// The longest finding a host's section shows; the record keeps what it rests on.
const FINDING_CHARS: usize = 600;

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

/// One host's cell of a row: one badge when its transports agree, else each transport's.
/// The outcome a host's transports agree on in one row, if they do.
pub fn agreed(matrix: &Matrix, row: usize, host: &Host) -> Option<Outcome> {
    let cells = &matrix.rows[row].cells;
    let first = cells[host.columns[0]].outcome;
    host.columns.iter().all(|&c| cells[c].outcome == first).then_some(first)
}

fn host_cell(matrix: &Matrix, row: usize, host: &Host) -> String {
    let cells = &matrix.rows[row].cells;
    let text = match agreed(matrix, row, host) {
        Some(outcome) => badge(outcome),
        None => host.columns.iter().map(|&c| format!("{} {}", split_transport(&matrix.columns[c]).0, badge(cells[c].outcome))).collect::<Vec<_>>().join(" · "),
    };
    format!("[{text}](#{})", anchor(&matrix.rows[row].probe))
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

/// The summary table, and what it means for server authors.
pub fn summary(matrix: &Matrix, out: &mut String) {
    let hosts = hosts(matrix);
    out.push_str("## Summary\n\n");
    out.push_str("One row per probe, one column per host: transports share a cell when they agree. ");
    out.push_str("✓ yes · ◐ partial · ✕ no · ⚠ violation · – n/a · ? not reached · ◌ declared only · ↯ auto-answered. ");
    out.push_str("A cell links to the probe's evidence below.\n\n");
    let _ = writeln!(out, "| probe | {} |", hosts.iter().map(|h| h.label.as_str()).collect::<Vec<_>>().join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(hosts.len()));
    let mut area = None;
    for (index, row) in matrix.rows.iter().enumerate() {
        if area != Some(row.area) {
            area = Some(row.area);
            let _ = writeln!(out, "| **{}** |{}", row.area.title(), " |".repeat(hosts.len()));
        }
        let cells: Vec<String> = hosts.iter().map(|h| host_cell(matrix, index, h)).collect();
        let _ = writeln!(out, "| `{}` | {} |", row.probe, cells.join(" | "));
    }
    let lines: Vec<String> = for_server_authors(matrix, &hosts).iter().map(|l| format!("- `{}`: {} of {} hosts {}.", l.probe, l.doing, l.hosts, l.what)).collect();
    if !lines.is_empty() {
        out.push_str("\n**What this means for server authors** (a host counts when one of its transports said yes):\n\n");
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
    }
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

/// One short section per host: what it spoke, its outcomes per area, and what it does differently.
pub fn host_sections(matrix: &Matrix, findings: &[Finding], out: &mut String) {
    out.push_str("\n## Hosts\n");
    for host in hosts(matrix) {
        let _ = writeln!(out, "\n### {}\n", host.label);
        for &c in &host.columns {
            let column = &matrix.columns[c];
            let record = column.record.as_deref().map(|r| format!(" ([record]({r}))")).unwrap_or_default();
            let _ = writeln!(
                out,
                "- {}: protocol {}, probed {}{record}",
                split_transport(column).0,
                column.protocol_version.as_deref().unwrap_or("none (no session)"),
                column.date.as_deref().unwrap_or("-")
            );
        }
        out.push_str("\n| area | ✓ | ◐ | ✕ | ⚠ | ? | other | transports differ |\n|---|---|---|---|---|---|---|---|\n");
        for rollup in rollups(matrix, &host) {
            let cells: Vec<String> = rollup.counts.iter().map(usize::to_string).collect();
            let _ = writeln!(out, "| {} | {} | {} |", rollup.area.title(), cells.join(" | "), rollup.differ);
        }
        let client = host.label.split(" · ").next().unwrap_or_default();
        let own: Vec<&Finding> = findings.iter().filter(|f| f.client == client).collect();
        if !own.is_empty() && !host.label.contains(" · ") {
            out.push_str("\nWhat this host does differently:\n\n");
            for finding in own {
                let _ = writeln!(out, "- {}", super::markdown::short(&finding.text, FINDING_CHARS));
            }
        }
    }
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
        assert_eq!(host_cell(&matrix, 0, &found[0]), "[✓ yes](#probe-tools-list)");
        assert_eq!(host_cell(&matrix, 1, &found[0]), "[http ✓ yes · stdio ✕ no](#probe-tools-list-changed)");
        let mut out = String::new();
        summary(&matrix, &mut out);
        assert!(out.contains("| `tools.list` | [✓ yes](#probe-tools-list) | [✕ no](#probe-tools-list) | [◐ partial](#probe-tools-list) |"), "{out}");
        let mut sections = String::new();
        host_sections(&matrix, &[Finding { client: "b@2".into(), text: "says x".into() }], &mut sections);
        assert!(sections.contains("### b@2\n\n- stdio: protocol 2025-11-25, probed 2026-12-01\n"), "{sections}");
        assert!(sections.contains("| Tools | 1 | 0 | 0 | 0 | 0 | 0 | 1 |"), "a@1: one probe agrees, one differs\n{sections}");
        assert!(sections.contains("What this host does differently:\n\n- says x"), "{sections}");
    }
}
