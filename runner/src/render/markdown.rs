//! `MATRIX.md`: a short header, the summary, each probe's evidence by area, the affordances and
//! elicitation at a glance, then one section per host.

use std::fmt::Write;

use probe_server::probe::{Declaration, Outcome};

use super::summary;
use crate::records::findings::Finding;
use crate::records::matrix::{Cell, Column, Matrix, Row};

fn escape(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn heading(column: &Column) -> String {
    let mut text = format!("{}<br>{} · {}", column.client, column.transport, column.protocol_version.as_deref().unwrap_or("no session"));
    if let Some(date) = &column.date {
        let _ = write!(text, "<br>{date}");
    }
    text
}

/// The longest detail a table at a glance shows.
const GLANCE_CHARS: usize = 120;
/// The longest detail a probe's section shows; the record keeps all of it.
const DETAIL_CHARS: usize = 300;

/// `text` escaped for a table or list, cut to `chars` characters (marked with "…").
pub fn short(text: &str, chars: usize) -> String {
    let text = escape(text);
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// The evidence links of one column's cell: the line the verdict rests on and, for a verdict that
/// blames the client, the line that shows it had its chance. `name` starts each link's text.
fn links(cell: &Cell, column: &Column, name: &str) -> String {
    let mut text = String::new();
    for link in column.evidence_links(cell) {
        let chance = if link.chance { "chance " } else { "" };
        let _ = write!(text, " [{name}{chance}↗]({}#L{})", link.journal, link.line);
    }
    text
}

/// One probe's section: a line per host, transports that agree (outcome, declaration and detail)
/// on one line, each with its evidence links.
fn probe_section(matrix: &Matrix, hosts: &[summary::Host], row: &Row, out: &mut String) {
    let _ = writeln!(out, "\n### <a id=\"{}\"></a>`{}`: {}\n", summary::anchor(&row.probe), row.probe, escape(&row.title));
    for host in hosts {
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for &c in &host.columns {
            let same = |other: &usize| {
                let (a, b) = (&row.cells[c], &row.cells[*other]);
                a.outcome == b.outcome && a.declared == b.declared && a.detail == b.detail
            };
            match groups.iter_mut().find(|g| same(&g[0])) {
                Some(group) => group.push(c),
                None => groups.push(vec![c]),
            }
        }
        for group in groups {
            let cell = &row.cells[group[0]];
            let transports: Vec<&str> = group.iter().map(|&c| matrix.columns[c].transport.split(" · ").next().unwrap_or_default()).collect();
            let declared = match cell.declared {
                Declaration::Declared => " · declared",
                Declaration::NotDeclared => " · not declared",
                Declaration::NoCapability => "",
            };
            // Where transports share a line, each link names its transport.
            let evidence: String =
                group.iter().zip(&transports).map(|(&c, t)| links(&row.cells[c], &matrix.columns[c], &if group.len() > 1 { format!("{t} ") } else { String::new() })).collect();
            let _ = writeln!(out, "- **{}** · {}: {}{declared} — {}{evidence}", host.label, transports.join(", "), summary::badge(cell.outcome), short(&cell.detail, DETAIL_CHARS));
        }
    }
}

const LEGEND: &str = "**yes** works as specified · **partial** some of it works · **no** exercised and not working, or never \
used · **declared-only** declared, never honoured · **auto-answered** answered with nobody asked (under 100 ms, or \
in a headless run) · **violation** used without declaring it, or forbidden by the specification · **not-reached** \
the run never got there · **inconclusive** the evidence does not decide · **n/a** the probe does not exist in the \
protocol era the client chose. \"declared\" / \"not declared\" is what the client claimed in its capabilities; the \
outcome is what it did. ↗ opens the journal line the verdict rests on; chance ↗ opens the line that shows the \
harness gave the client its chance (a no, partial or declared-only without one is reported as not-reached).";

/// The whole document. Pure: the same matrix and findings give the same text.
pub fn document(matrix: &Matrix, findings: &[Finding]) -> String {
    let mut out = String::new();
    out.push_str("# MCP client capability matrix\n\n");
    out.push_str("What MCP clients were observed to do against the mcp-client-probe server: the summary first (a row per probe, a column\n");
    out.push_str("per host), then the evidence of every verdict by area (each line dated, pinned to the protocol version the client spoke\n");
    out.push_str("and linked to the journal line it rests on), then a section per host. Each client appears at its newest version on\n");
    out.push_str("record; older versions stay in `matrices/records/` as history, which `cargo run -- matrix site` shows per host and\n");
    out.push_str("per probe. Generated from `matrices/records/`; do not edit by hand. Regenerate with `cargo run -- matrix refresh`\n");
    out.push_str("(re-probe every pinned client) or `cargo run -- matrix render`.\n\n");
    summary::summary(matrix, &mut out);
    let _ = writeln!(out, "\n## Evidence\n\n{LEGEND}");
    let (hosts, mut area) = (summary::hosts(matrix), None);
    for row in &matrix.rows {
        if area != Some(row.area) {
            area = Some(row.area);
            let _ = writeln!(out, "\n## {}", row.area.title());
        }
        probe_section(matrix, &hosts, row, &mut out);
    }
    affordances_at_a_glance(matrix, &mut out);
    elicitation_side_by_side(matrix, &mut out);
    summary::host_sections(matrix, findings, &mut out);
    out
}

/// One line per column whose host has a model: the affordance verdicts in the shape of a
/// code-reading survey (is there a tool, what is it called, what does it take, does it reach the
/// server, is it gated on the capability, how do bytes travel, do instructions arrive).
fn affordances_at_a_glance(matrix: &Matrix, out: &mut String) {
    let find = |probe: &str| matrix.rows.iter().find(|r| r.probe == probe);
    let (Some(read), Some(signature), Some(reaches), Some(gate), Some(blob), Some(instructions)) = (
        find("affordances.read_tool"),
        find("affordances.server_param"),
        find("affordances.read_reaches_server"),
        find("affordances.resources_gated"),
        find("affordances.blob_to_model"),
        find("connection.instructions"),
    ) else {
        return;
    };
    let with_model: Vec<usize> = (0..matrix.columns.len()).filter(|&i| read.cells[i].outcome != Outcome::NotReached).collect();
    if with_model.is_empty() {
        return;
    }
    out.push_str("\n## Model-facing affordances at a glance\n\n");
    out.push_str("| client | resource tool for the model? | tool name(s) | signature | reaches resources/read? | only with the resources capability? | binary delivery | instructions reach the model? |\n");
    out.push_str("|---|---|---|---|---|---|---|---|\n");
    for i in with_model {
        let names = read.cells[i].detail.split_once(": ").map_or("-", |(_, names)| names);
        let outcome = |row: &Row| row.cells[i].outcome.label().to_string();
        let told = |row: &Row| format!("{}: {}", row.cells[i].outcome.label(), short(&row.cells[i].detail, GLANCE_CHARS));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            heading(&matrix.columns[i]),
            outcome(read),
            escape(names),
            told(signature),
            outcome(reaches),
            told(gate),
            told(blob),
            outcome(instructions)
        );
    }
}

/// One line per column driven through a terminal: what the host answered with nobody at the
/// keyboard beside what reached the server when a person worked the form.
fn elicitation_side_by_side(matrix: &Matrix, out: &mut String) {
    let find = |probe: &str| matrix.rows.iter().find(|r| r.probe == probe);
    let probes = [
        "elicitation.form",
        "interactive.form_shown",
        "interactive.accept_typed",
        "interactive.decline",
        "interactive.cancel",
        "interactive.required_enforced",
        "interactive.format_enforced",
        "interactive.bounds_enforced",
        "interactive.url_shown",
        "interactive.url_consent",
        "interactive.form_withdrawn",
    ];
    let Some(rows) = probes.iter().map(|p| find(p)).collect::<Option<Vec<&Row>>>() else { return };
    let enums: Vec<&Row> = matrix.rows.iter().filter(|r| r.probe.starts_with("interactive.enum_")).collect();
    let driven: Vec<usize> = (0..matrix.columns.len()).filter(|&i| !matches!(rows[1].cells[i].outcome, Outcome::NotReached | Outcome::NotApplicable)).collect();
    if driven.is_empty() {
        return;
    }
    out.push_str("\n## Elicitation: nobody at the keyboard, and a person at the terminal\n\n");
    out.push_str("| client | headless form answer | form shown | accept, typed values | decline | cancel | required / format / bounds enforced | enum shapes shown and sent | URL shown | URL not opened unasked | withdrawn form goes away |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for i in driven {
        let label = |row: &Row| row.cells[i].outcome.label().to_string();
        let headless = format!("{}: {}", label(rows[0]), short(&rows[0].cells[i].detail, GLANCE_CHARS));
        let enum_yes = enums.iter().filter(|r| r.cells[i].outcome == Outcome::Yes).count();
        let _ = writeln!(
            out,
            "| {} | {headless} | {} | {} | {} | {} | {} / {} / {} | {enum_yes} of {} | {} | {} | {} |",
            heading(&matrix.columns[i]),
            label(rows[1]),
            label(rows[2]),
            label(rows[3]),
            label(rows[4]),
            label(rows[5]),
            label(rows[6]),
            label(rows[7]),
            enums.len(),
            label(rows[8]),
            label(rows[9]),
            label(rows[10]),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::run::Transport;
    use probe_server::Era;

    #[test]
    fn the_side_by_side_table_has_a_line_only_for_columns_driven_through_a_terminal() {
        let recorded = super::super::tests::recorded;
        let runs =
            [recorded("claude-code-stdio-interactive-accept.jsonl", Transport::Stdio, Era::Modern), recorded("reference-stdio-legacy-full.jsonl", Transport::Stdio, Era::Legacy)];
        let matrix = crate::records::matrix::from_runs("host", &runs.iter().collect::<Vec<_>>());
        let document = document(&matrix, &[]);
        let table = document.split("## Elicitation: nobody at the keyboard, and a person at the terminal").nth(1).expect("the table is rendered");
        let lines: Vec<&str> = table.lines().take_while(|l| !l.starts_with("## ")).filter(|l| l.starts_with("| host")).collect();
        assert_eq!(lines.len(), 1, "{table}");
        // Form shown and accepted with typed values, each judged from the accept run; the other runs were not made.
        assert!(lines[0].contains("| yes | yes | not-reached | not-reached | not-reached / not-reached / not-reached | 0 of 5 |"), "{}", lines[0]);
    }
}
