//! The index: the summary, feature first. One row per probe, one column per host (each client's
//! newest version, against each kind of server), transports in one cell when they agree.

use std::fmt::Write;

use super::html::{badge_span, escape, outcome_class, page};
use super::{feature_href, host_href, slug, Release};
use crate::records::matrix::{self, Matrix};
use crate::render::summary::{agreed, badge, for_server_authors, hosts, split_transport, Host};

const LEGEND: &str = "✓ yes · ◐ partial · ✕ no · ⚠ violation · – n/a · ? not reached · ◌ declared only · ↯ auto-answered";

/// The client of a matrix column (`client@version`).
fn client_of(column: &matrix::Column) -> &str {
    column.client.rsplit_once('@').map_or(column.client.as_str(), |(client, _)| client)
}

/// One summary cell: one badge when the host's transports agree, else one per transport.
fn cell(matrix: &Matrix, row: usize, host: &Host) -> String {
    let (cells, probe) = (&matrix.rows[row].cells, &matrix.rows[row].probe);
    let href = escape(&format!("{}#{}", feature_href("", probe), slug(&host.label)));
    if let Some(outcome) = agreed(matrix, row, host) {
        return format!("<td class=\"{}\"><a href=\"{href}\">{}</a></td>", outcome_class(outcome), escape(&badge(outcome)));
    }
    let parts: Vec<String> = host.columns.iter().map(|&c| format!("{} {}", escape(split_transport(&matrix.columns[c]).0), badge_span(cells[c].outcome))).collect();
    format!("<td class=\"mixed\"><a href=\"{href}\">{}</a></td>", parts.join("<br>"))
}

fn body(newest: &[&Release]) -> String {
    let records: Vec<crate::records::Located> = newest.iter().flat_map(|r| r.records.iter().cloned()).collect();
    let matrix = matrix::from_records(&records, "");
    let hosts = hosts(&matrix);
    let mut body = String::from("<h1>MCP client capability matrix</h1>\n");
    body.push_str(
        "<p>What MCP clients were observed to do against the mcp-client-probe server, each client at the newest version on record. \
A verdict is computed from the journals of the run, never from what the client declared; what it declared is shown beside it. \
A cell opens the probe's page at that host, where each verdict links to the journal line it rests on.</p>\n",
    );
    let _ = writeln!(body, "<p class=\"legend\">{LEGEND}</p>");
    body.push_str("<p><label>Filter probes <input id=\"filter\" type=\"search\" placeholder=\"e.g. template, elicitation\"></label></p>\n");
    body.push_str("<div class=\"scroll\"><table class=\"summary\">\n<thead><tr><th>probe</th>");
    for host in &hosts {
        let client = client_of(&matrix.columns[host.columns[0]]);
        // `client@version · server`: the client as the link, the rest below it.
        let rest = host.label.strip_prefix(client).unwrap_or_default().trim_start_matches('@');
        let _ = write!(body, "<th><a href=\"{}\">{}</a><br><small>{}</small></th>", escape(&host_href("", client)), escape(client), escape(rest));
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    let mut area = None;
    for (index, row) in matrix.rows.iter().enumerate() {
        if area != Some(row.area) {
            area = Some(row.area);
            let _ = writeln!(body, "<tr class=\"area\"><th colspan=\"{}\"><span>{}</span></th></tr>", hosts.len() + 1, escape(row.area.title()));
        }
        let _ = write!(
            body,
            "<tr data-search=\"{}\"><th><a href=\"{}\"><code>{}</code></a><br><small>{}</small></th>",
            escape(&format!("{} {}", row.probe, row.title).to_lowercase()),
            escape(&feature_href("", &row.probe)),
            escape(&row.probe),
            escape(&row.title)
        );
        for host in &hosts {
            body.push_str(&cell(&matrix, index, host));
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody></table></div>\n");
    body.push_str("<h2>What this means for server authors</h2>\n<p>A host counts when one of its transports said yes.</p>\n<ul>\n");
    for line in for_server_authors(&matrix, &hosts) {
        let _ = writeln!(
            body,
            "<li><a href=\"{}\"><code>{}</code></a>: {} of {} hosts {}.</li>",
            escape(&feature_href("", line.probe)),
            line.probe,
            line.doing,
            line.hosts,
            escape(line.what)
        );
    }
    body.push_str("</ul>\n<h2>Hosts</h2>\n<ul>\n");
    for release in newest {
        let dates: std::collections::BTreeSet<&str> = release.matrix.columns.iter().filter_map(|c| c.date.as_deref()).collect();
        let dates: Vec<&str> = dates.into_iter().collect();
        let _ = writeln!(
            body,
            "<li><a href=\"{}\">{}@{}</a>: probed {}</li>",
            escape(&host_href("", &release.client)),
            escape(&release.client),
            escape(&release.version),
            escape(&dates.join(", "))
        );
    }
    body.push_str("</ul>\n");
    body
}

pub fn render(newest: &[&Release]) -> String {
    page("Summary", "", &body(newest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::matrix::{Cell, Column, Row};
    use probe_server::probe::{Outcome, Verdict};
    use probe_server::Area;

    #[test]
    fn a_cell_shows_each_transport_only_when_they_disagree() {
        let column = |transport: &str| Column {
            client: "a@1".into(),
            transport: transport.into(),
            era: "legacy".into(),
            protocol_version: None,
            date: None,
            record: None,
            journal: None,
            variant_journals: Default::default(),
            model_journal: None,
        };
        let cells = |outcomes: [Outcome; 2]| outcomes.map(|o| Cell::from_verdict(Some(&Verdict::new(o, "d")))).to_vec();
        let matrix = Matrix {
            columns: vec![column("http"), column("stdio")],
            rows: vec![
                Row { probe: "tools.list".into(), area: Area::Tools, title: "t".into(), cells: cells([Outcome::Yes, Outcome::Yes]) },
                Row { probe: "tools.list_changed".into(), area: Area::Tools, title: "t".into(), cells: cells([Outcome::Yes, Outcome::No]) },
            ],
        };
        let host = &hosts(&matrix)[0];
        assert_eq!(cell(&matrix, 0, host), "<td class=\"o-yes\"><a href=\"features/tools.list.html#a-1\">✓ yes</a></td>");
        let mixed = cell(&matrix, 1, host);
        assert!(mixed.starts_with("<td class=\"mixed\"><a href=\"features/tools.list_changed.html#a-1\">http <span class=\"badge o-yes\">"), "{mixed}");
        assert!(mixed.contains("stdio <span class=\"badge o-no\">✕ no</span>"), "{mixed}");
    }
}
