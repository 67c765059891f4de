//! The matrix as markdown for GitHub: `MATRIX.md`, which answers by feature (features × clients,
//! then what it means for server authors, then every probe × client) and stays small; and one
//! page per client under `clients/`, with the evidence of every verdict linked to its journal
//! lines.

use std::fmt::Write;

use probe_server::probe::{Declaration, Outcome};

use super::summary::{self, symbol};
use crate::features::{self, Answer, ClientAnswers, Merged, FEATURES};
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
/// The longest detail a client page shows; the record keeps all of it.
const DETAIL_CHARS: usize = 300;
/// The longest finding a client page shows; the record keeps what it rests on.
const FINDING_CHARS: usize = 600;

/// `text` escaped for a table or list, cut to `chars` characters (marked with "…").
pub fn short(text: &str, chars: usize) -> String {
    let text = escape(text);
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// The documents: `MATRIX.md`, every probe by client (`probes.md`, beside it) and one page per
/// client (file name, text), for `clients/`.
pub struct Documents {
    pub matrix: String,
    pub probes: String,
    pub clients: Vec<(String, String)>,
}

/// The page of every probe by client, beside `MATRIX.md`.
pub const PROBES_FILE: &str = "probes.md";

/// The most `MATRIX.md` may weigh: GitHub renders it whole well under this.
pub const MATRIX_MAX_BYTES: usize = 200_000;
/// The most a client page may weigh.
pub const CLIENT_PAGE_MAX_BYTES: usize = 400_000;

/// The directory of the client pages, beside `MATRIX.md`.
pub const CLIENTS_DIR: &str = "clients";

/// A client page's file name.
pub fn client_file(client: &str) -> String {
    format!("{client}.md")
}

/// The anchor of a feature (in `MATRIX.md` and on each client page).
pub fn feature_anchor(feature: &str) -> String {
    format!("feature-{feature}")
}

/// Where a merged outcome held when its columns decided differently: `stdio`, `http · legacy-only server`.
fn only_in(merged: &Merged) -> String {
    if merged.only_in.is_empty() {
        return String::new();
    }
    format!(" {}", merged.only_in.join(", "))
}

/// The outcome words, for a markdown legend.
fn outcomes_legend() -> String {
    let words: Vec<String> = summary::OUTCOME_MEANINGS.iter().map(|(outcome, meaning)| format!("**{}** {meaning}", outcome.label())).collect();
    format!("{}. \"declared\" / \"not declared\" is what the client claimed in its capabilities; the outcome is what it did.", words.join(" · "))
}

const SYMBOLS: &str = "✓ yes · ◐ partial · ✕ no · ⚠ violation · ◌ declared-only · ↯ auto-answered · ? not reached · – n/a";

fn answers_legend() -> String {
    [Answer::Supported, Answer::Partly, Answer::No, Answer::Untested].iter().map(|a| format!("**{}** {}", a.badge(), a.meaning())).collect::<Vec<_>>().join(" · ")
}

/// The whole set. Pure: the same matrix and findings give the same text.
pub fn documents(matrix: &Matrix, findings: &[Finding]) -> Documents {
    let clients = features::by_client(matrix);
    let matrix_md = matrix_document(matrix, &clients);
    let mut probes = String::from("# Every probe by client\n\n[← the matrix](MATRIX.md), which answers by feature.\n\n");
    probes_table(matrix, &clients, &mut probes);
    let pages = clients.iter().map(|c| (client_file(&c.client), client_page(matrix, c, findings))).collect();
    Documents { matrix: matrix_md, probes, clients: pages }
}

/// `MATRIX.md` alone (what the bench times).
pub fn document(matrix: &Matrix, findings: &[Finding]) -> String {
    documents(matrix, findings).matrix
}

fn client_link(client: &ClientAnswers, anchor: &str) -> String {
    format!("{CLIENTS_DIR}/{}#{anchor}", client_file(&client.client))
}

fn matrix_document(matrix: &Matrix, clients: &[ClientAnswers]) -> String {
    let mut out = String::new();
    let dates: Vec<&str> = matrix.columns.iter().filter_map(|c| c.date.as_deref()).collect();
    let (first, last) = (dates.iter().min().copied().unwrap_or("-"), dates.iter().max().copied().unwrap_or("-"));
    out.push_str("# MCP client capability matrix\n\n");
    let _ = writeln!(
        out,
        "Which MCP features each client was seen to support: {} client{}, each at its newest version on record, probed \
         {first}{} against the mcp-client-probe server. A client's answer takes all its runs together (stdio and Streamable \
         HTTP, against a server of both protocol eras and one of the legacy era only). Each answer links to the client's page, \
         where every verdict links to the journal lines it rests on. Generated from `matrices/records/` by `cargo run -- \
         matrix render`; do not edit by hand.\n",
        clients.len(),
        if clients.len() == 1 { "" } else { "s" },
        if first == last { String::new() } else { format!(" to {last}") },
    );
    features_table(clients, &mut out);
    for_server_authors(clients, &mut out);
    clients_table(matrix, clients, &mut out);
    let _ = writeln!(out, "\nEvery probe by client, in one table: [{PROBES_FILE}]({PROBES_FILE}).");
    affordances_at_a_glance(matrix, &mut out);
    features_defined(&mut out);
    out
}

fn client_heading(client: &ClientAnswers) -> String {
    format!("[{}]({CLIENTS_DIR}/{})<br>{}", client.client, client_file(&client.client), client.version)
}

fn features_table(clients: &[ClientAnswers], out: &mut String) {
    out.push_str("## Features × clients\n\n");
    let _ = writeln!(
        out,
        "{}. A word after the mark says how the feature was shown (`person`: a person at the terminal; `headless`: nobody at the keyboard) or the one transport it held on.\n",
        answers_legend()
    );
    let _ = writeln!(out, "| feature | {} |", clients.iter().map(client_heading).collect::<Vec<_>>().join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(clients.len()));
    let mut group = None;
    for feature in FEATURES {
        if group != Some(feature.group) {
            group = Some(feature.group);
            let _ = writeln!(out, "| **{}** |{}", feature.group.title(), " |".repeat(clients.len()));
        }
        let cells: Vec<String> = clients
            .iter()
            .map(|client| {
                let Some(answer) = client.answer(feature.id) else { return "?".into() };
                let how = answer.path_short.map(|s| format!(" {s}")).unwrap_or_default();
                let transport = transport_of(feature, client).map(|t| format!(" {t}")).unwrap_or_default();
                format!("[{}{how}{transport}]({})", answer.answer.symbol(), client_link(client, &feature_anchor(feature.id)))
            })
            .collect();
        let _ = writeln!(out, "| [{}](#{}) | {} |", feature.title, feature_anchor(feature.id), cells.join(" | "));
    }
}

/// The one transport a supported or partly-supported feature held on, when every probe of it
/// that held did so on the same transport only.
fn transport_of(feature: &features::Feature, client: &ClientAnswers) -> Option<String> {
    let answer = client.answer(feature.id)?;
    if !matches!(answer.answer, Answer::Supported | Answer::Partly) {
        return None;
    }
    let mut only: Option<String> = None;
    for probe in feature.paths.iter().flat_map(|p| p.probes.iter()) {
        let merged = client.probes.get(*probe)?;
        if merged.outcome != Outcome::Yes {
            continue;
        }
        // Transports without the server kind: `http · legacy-only server` held over http.
        let transports: std::collections::BTreeSet<&str> = merged.only_in.iter().map(|c| c.split(" · ").next().unwrap_or_default()).collect();
        match (transports.len(), &only) {
            (0, _) => return None,
            (1, None) => only = transports.into_iter().next().map(str::to_string),
            (1, Some(t)) if transports.contains(t.as_str()) => {}
            _ => return None,
        }
    }
    only.map(|t| format!("({t} only)"))
}

fn for_server_authors(clients: &[ClientAnswers], out: &mut String) {
    out.push_str("\n## What this means for server authors\n\n");
    let _ = writeln!(out, "Each line counts clients ({} in all, each at its newest version), never transports or runs.\n", clients.len());
    for feature in FEATURES {
        let named = |wanted: Answer| features::clients_answering(clients, feature.id, wanted);
        let (yes, partly, no, untested) = (named(Answer::Supported), named(Answer::Partly), named(Answer::No), named(Answer::Untested));
        let list = |names: &[&str]| if names.is_empty() { String::new() } else { format!(" ({})", names.join(", ")) };
        let _ = write!(out, "- [{}](#{}): supported by **{} of {} clients**{}", feature.title, feature_anchor(feature.id), yes.len(), clients.len(), list(&yes));
        if !partly.is_empty() {
            let _ = write!(out, "; partly by {}{}", partly.len(), list(&partly));
        }
        if !no.is_empty() {
            let _ = write!(out, "; not by {}", no.len());
        }
        if !untested.is_empty() {
            let _ = write!(out, "; untested on {}", untested.len());
        }
        out.push_str(".\n");
    }
}

fn clients_table(matrix: &Matrix, clients: &[ClientAnswers], out: &mut String) {
    out.push_str("\n## Clients\n\n| client | version | probed | runs: transport, protocol version |\n|---|---|---|---|\n");
    for client in clients {
        let date = client.columns.iter().filter_map(|&c| matrix.columns[c].date.as_deref()).max().unwrap_or("-");
        let runs: Vec<String> = client
            .columns
            .iter()
            .map(|&c| {
                let column = &matrix.columns[c];
                let protocol = column.protocol_version.as_deref().unwrap_or("no session");
                match &column.record {
                    Some(record) => format!("[{}]({record}) {protocol}", column.transport),
                    None => format!("{} {protocol}", column.transport),
                }
            })
            .collect();
        let _ = writeln!(out, "| [{}]({CLIENTS_DIR}/{}) | {} | {date} | {} |", client.client, client_file(&client.client), client.version, runs.join("<br>"));
    }
}

fn probe_anchor(probe: &str) -> String {
    summary::anchor(probe)
}

fn probes_table(matrix: &Matrix, clients: &[ClientAnswers], out: &mut String) {
    let _ = writeln!(out, "Every probe, each client's runs merged as for features: {SYMBOLS}. A transport after the mark is the one it held on. Each mark links to the evidence on the client's page.\n\n{}\n", outcomes_legend());
    let _ = writeln!(out, "| probe | {} |", clients.iter().map(|c| format!("[{}]({CLIENTS_DIR}/{})", c.client, client_file(&c.client))).collect::<Vec<_>>().join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(clients.len()));
    let mut area = None;
    for row in &matrix.rows {
        if area != Some(row.area) {
            area = Some(row.area);
            let _ = writeln!(out, "| **{}** |{}", row.area.title(), " |".repeat(clients.len()));
        }
        let cells: Vec<String> = clients
            .iter()
            .map(|client| match client.probes.get(&row.probe) {
                Some(merged) => format!("[{}{}]({})", symbol(merged.outcome), only_in(merged), client_link(client, &probe_anchor(&row.probe))),
                None => "?".into(),
            })
            .collect();
        let _ = writeln!(out, "| <a id=\"{}\"></a>`{}` | {} |", probe_anchor(&row.probe), row.probe, cells.join(" | "));
    }
}

fn features_defined(out: &mut String) {
    out.push_str("\n## Features and their probes\n\n");
    out.push_str(
        "A feature is supported when every probe of one of its paths says yes (probes n/a in the client's protocol era left out); \
        *also* probes are shown with it and never change its answer. `cargo run -- features` lists them; \
        `cargo run -- which FEATURE…` answers from the records.\n",
    );
    for feature in FEATURES {
        let _ = writeln!(out, "\n### <a id=\"{}\"></a>{}\n\n`{}` — {}\n", feature_anchor(feature.id), feature.title, feature.id, feature.question);
        let list = |name: &str, probes: &[&str], out: &mut String| {
            let _ = writeln!(out, "- {name}:");
            for p in probes {
                let _ = writeln!(out, "  - [`{p}`]({PROBES_FILE}#{})", probe_anchor(p));
            }
        };
        for path in feature.paths {
            list(if path.name.is_empty() { "probes" } else { path.name }, path.probes, out);
        }
        if !feature.also.is_empty() {
            list("also, without changing the answer", feature.also, out);
        }
    }
}

/// One client's page: what it spoke, its feature answers, what it does differently, then every
/// probe's verdict per run with links to the journal lines.
fn client_page(matrix: &Matrix, client: &ClientAnswers, findings: &[Finding]) -> String {
    let mut out = String::new();
    let up = |link: &str| format!("../{link}");
    let _ = writeln!(out, "# {} {}\n", client.client, client.version);
    let _ = writeln!(out, "[← the matrix](../MATRIX.md). What `{}` {} was seen to do, run by run:\n", client.client, client.version);
    for &c in &client.columns {
        let column = &matrix.columns[c];
        let record = column.record.as_deref().map(|r| format!(" ([record]({}))", up(r))).unwrap_or_default();
        let ended = if column.never_ended { "; the host never ended its run: every launch of the standard run was stopped at its bound" } else { "" };
        let _ = writeln!(
            out,
            "- {}: protocol {}, probed {}{ended}{record}",
            column.transport,
            column.protocol_version.as_deref().unwrap_or("none (no session)"),
            column.date.as_deref().unwrap_or("-")
        );
    }
    let _ = writeln!(out, "\n## Features\n\n{}\n", answers_legend());
    out.push_str("| feature | answer | how it was shown | why |\n|---|---|---|---|\n");
    for (feature, answer) in &client.features {
        let _ = writeln!(
            out,
            "| <a id=\"{}\"></a>[{}](../MATRIX.md#{}) | {} | {} | {} |",
            feature_anchor(feature.id),
            feature.title,
            feature_anchor(feature.id),
            answer.answer.badge(),
            answer.path.unwrap_or("-"),
            short(&answer.why, GLANCE_CHARS)
        );
    }
    let own: Vec<&Finding> = findings.iter().filter(|f| features::split_label(&f.client).0 == client.client).collect();
    if !own.is_empty() {
        out.push_str("\n## What it does differently\n\n");
        for finding in own {
            let _ = writeln!(out, "- {}", short(&finding.text, FINDING_CHARS));
        }
    }
    let _ = writeln!(
        out,
        "\n## Every probe\n\n{} ↗ opens the journal line a verdict rests on; chance ↗ the line that shows the harness gave the client its chance (a no, partial or declared-only without one is reported as not-reached).",
        outcomes_legend()
    );
    if client.columns.iter().any(|&c| matrix.columns[c].compressed) {
        out.push_str("\nThe journals are stored compressed (zstd): a link opens the file and names the line (`zstd -dc FILE | sed -n 7p` prints line 7); the site shows every journal line by line.\n");
    }
    let mut area = None;
    for row in &matrix.rows {
        if area != Some(row.area) {
            area = Some(row.area);
            let _ = writeln!(out, "\n### {}\n", row.area.title());
        }
        probe_lines(matrix, client, row, &mut out);
    }
    out
}

/// One probe on a client's page: a line, with the runs that agree (outcome, declaration and
/// detail) on it; runs that differ on lines of their own below it.
fn probe_lines(matrix: &Matrix, client: &ClientAnswers, row: &Row, out: &mut String) {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &c in &client.columns {
        let same = |other: &usize| {
            let (a, b) = (&row.cells[c], &row.cells[*other]);
            a.outcome == b.outcome && a.declared == b.declared && a.detail == b.detail
        };
        match groups.iter_mut().find(|g| same(&g[0])) {
            Some(group) => group.push(c),
            None => groups.push(vec![c]),
        }
    }
    let line = |group: &[usize]| {
        let cell = &row.cells[group[0]];
        let transports: Vec<&str> = group.iter().map(|&c| matrix.columns[c].transport.as_str()).collect();
        let declared = match cell.declared {
            Declaration::Declared => " · declared",
            Declaration::NotDeclared => " · not declared",
            Declaration::NoCapability => "",
        };
        let evidence: String =
            group.iter().zip(&transports).map(|(&c, t)| links(&row.cells[c], &matrix.columns[c], &if group.len() > 1 { format!("{t} ") } else { String::new() })).collect();
        format!("{}: {}{declared} — {}{evidence}", transports.join(", "), summary::badge(cell.outcome), short(&cell.detail, DETAIL_CHARS))
    };
    let title = format!("<a id=\"{}\"></a>**`{}`** {}", probe_anchor(&row.probe), row.probe, escape(&row.title));
    match groups.as_slice() {
        [one] => {
            let _ = writeln!(out, "- {title} — {}", line(one));
        }
        many => {
            let _ = writeln!(out, "- {title}");
            for group in many {
                let _ = writeln!(out, "  - {}", line(group));
            }
        }
    }
}

/// The evidence links of one column's cell, from a client page: the lines the verdict rests on
/// and, for a verdict that blames the client, the line that shows it had its chance. `name`
/// starts each link's text.
fn links(cell: &Cell, column: &Column, name: &str) -> String {
    let mut text = String::new();
    for link in column.evidence_links(cell) {
        let chance = if link.chance { "chance " } else { "" };
        // A compressed journal cannot be opened at a line: the link names the line instead.
        let _ = match column.compressed {
            true => write!(text, " [{name}{chance}line {} ↗](../{}.zst)", link.line, link.journal),
            false => write!(text, " [{name}{chance}↗](../{}#L{})", link.journal, link.line),
        };
    }
    text
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Transport;
    use probe_server::Era;

    fn documents_of_fixtures() -> Documents {
        let recorded = super::super::tests::recorded;
        let runs = [
            recorded("claude-code-stdio-interactive-accept.jsonl", Transport::Stdio, Era::Modern),
            recorded("reference-stdio-legacy-full.jsonl", Transport::Stdio, Era::Legacy),
            recorded("reference-http-modern-full.jsonl", Transport::Http, Era::Modern),
        ];
        let mut matrix = crate::runs::reference::matrix_of("host@1.0", &runs[..1].iter().collect::<Vec<_>>());
        let reference = crate::runs::reference::matrix_of("reference@2.0", &runs[1..].iter().collect::<Vec<_>>());
        matrix.columns.extend(reference.columns);
        for (row, other) in matrix.rows.iter_mut().zip(reference.rows) {
            row.cells.extend(other.cells);
        }
        documents(&matrix, &[Finding { client: "host@1.0".into(), text: "shows forms".into() }])
    }

    #[test]
    fn the_matrix_opens_with_features_by_client_and_counts_clients() {
        let docs = documents_of_fixtures();
        let first_table = docs.matrix.split("\n| ").nth(1).unwrap_or_default();
        assert!(first_table.starts_with("feature | [host](clients/host.md)<br>1.0 | [reference](clients/reference.md)<br>2.0 |"), "{first_table}");
        assert!(docs.matrix.find("## Features × clients") < docs.matrix.find("## What this means for server authors"));
        // The reference client's two transports are one client.
        assert!(docs.matrix.contains("supported by **"), "{}", docs.matrix);
        assert!(docs.matrix.contains("of 2 clients**"), "{}", docs.matrix);
        // Every feature row links each client's cell to its page.
        for feature in FEATURES {
            assert!(docs.matrix.contains(&format!("(clients/host.md#feature-{})", feature.id)), "{}", feature.id);
        }
    }

    #[test]
    fn a_client_page_has_every_probe_and_links_into_its_journals() {
        let docs = documents_of_fixtures();
        let names: Vec<&str> = docs.clients.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["host.md", "reference.md"]);
        let (_, host) = &docs.clients[0];
        assert!(host.contains("## What it does differently\n\n- shows forms"), "{host}");
        for probe in probe_server::registry::probes() {
            assert!(host.contains(&format!("<a id=\"{}\"></a>", probe_anchor(probe.id()))), "{}", probe.id());
        }
        for feature in FEATURES {
            assert!(host.contains(&format!("<a id=\"feature-{}\"></a>", feature.id)), "{}", feature.id);
        }
    }
}
