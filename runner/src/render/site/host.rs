//! A host's page: every version on record, newest first, each with its runs, its roll-ups per
//! area, what it does differently, what changed since the version before, and every verdict.

use std::fmt::Write;

use super::html::{badge_span, escape, evidence, page};
use super::{probe_href, slug, Release};
use crate::records::diff::{self, Change};
use crate::records::findings::Finding;
use crate::render::summary::{rollups, ROLLUP_HEADINGS};

const ROOT: &str = "../";

/// The anchor of one version's section on its host's page.
pub fn version_anchor(version: &str) -> String {
    format!("v-{}", slug(version))
}

fn runs(release: &Release, body: &mut String) {
    body.push_str("<h3>Runs</h3>\n<ul>\n");
    for column in &release.matrix.columns {
        let journal = column.journal.as_deref().map(|j| format!(" · <a href=\"{}\">journal</a>", escape(&format!("{ROOT}journals/{j}.html")))).unwrap_or_default();
        let model = column.model_journal.as_deref().map(|j| format!(" · <a href=\"{}\">model journal</a>", escape(&format!("{ROOT}journals/{j}.html")))).unwrap_or_default();
        let _ = writeln!(
            body,
            "<li>{}: {} era, protocol {}, probed {}{journal}{model}</li>",
            escape(&column.transport),
            escape(&column.era),
            escape(column.protocol_version.as_deref().unwrap_or("none (no session)")),
            escape(column.date.as_deref().unwrap_or("-"))
        );
    }
    body.push_str("</ul>\n");
}

/// The version's answer for every feature, with why and how it was shown.
fn feature_answers(release: &Release, body: &mut String) {
    let Some(client) = crate::features::by_client(&release.matrix).into_iter().next() else { return };
    body.push_str("<h3>Features</h3>\n<table class=\"answers\"><thead><tr><th>feature</th><th>answer</th><th>shown</th><th>why</th></tr></thead>\n<tbody>\n");
    for (feature, answer) in &client.features {
        let _ = writeln!(
            body,
            "<tr><th><a href=\"{}\">{}</a></th><td class=\"a-{}\">{}</td><td>{}</td><td>{}</td></tr>",
            escape(&super::feature_href(ROOT, feature.id)),
            escape(feature.title),
            answer.answer.label(),
            escape(&answer.answer.badge()),
            escape(answer.path.unwrap_or("-")),
            escape(&answer.why)
        );
    }
    body.push_str("</tbody></table>\n");
}

fn rollup_tables(release: &Release, body: &mut String) {
    for host in &release.hosts {
        let _ = write!(body, "<h3>{}: by area</h3>\n<table class=\"rollup\"><thead><tr><th>area</th>", escape(&host.label));
        for heading in ROLLUP_HEADINGS {
            let _ = write!(body, "<th>{heading}</th>");
        }
        body.push_str("<th>transports differ</th></tr></thead>\n<tbody>\n");
        for rollup in rollups(&release.matrix, host) {
            let counts: String = rollup.counts.iter().map(|n| format!("<td>{n}</td>")).collect();
            let _ = writeln!(body, "<tr><th>{}</th>{counts}<td>{}</td></tr>", escape(rollup.area.title()), rollup.differ);
        }
        body.push_str("</tbody></table>\n");
    }
}

fn changes(before: &Release, release: &Release, body: &mut String) {
    let (old, new): (Vec<_>, Vec<_>) = (before.records.iter().map(|l| &l.record).collect(), release.records.iter().map(|l| &l.record).collect());
    let lines = diff::diff(&old, &new);
    let _ = writeln!(body, "<h3>Changed since {}</h3>", escape(&before.version));
    if lines.is_empty() {
        body.push_str("<p>No verdict changed.</p>\n");
        return;
    }
    body.push_str("<ul class=\"changes\">\n");
    for line in lines {
        let outcome = |o: Option<probe_server::probe::Outcome>| o.map_or("(none)".to_string(), badge_span);
        let word = match line.change {
            Change::Fixed => "fixed",
            Change::Regressed => "regressed",
            Change::Changed => "changed",
            Change::New => "new",
            Change::Removed => "removed",
        };
        let _ = writeln!(
            body,
            "<li class=\"{word}\">{word}: <a href=\"{}\"><code>{}</code></a> over {}: {} → {}</li>",
            escape(&probe_href(ROOT, &line.probe)),
            escape(&line.probe),
            escape(&line.transport),
            outcome(line.before),
            outcome(line.after)
        );
    }
    body.push_str("</ul>\n");
}

fn verdicts(release: &Release, newest: bool, body: &mut String) {
    let columns = &release.matrix.columns;
    body.push_str("<h3>Every verdict</h3>\n<div class=\"scroll\"><table class=\"verdicts\"><thead><tr><th>probe</th>");
    for column in columns {
        let _ = write!(body, "<th>{}</th>", escape(&column.transport));
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    let mut area = None;
    for row in &release.matrix.rows {
        if area != Some(row.area) {
            area = Some(row.area);
            let _ = writeln!(body, "<tr class=\"area\"><th colspan=\"{}\">{}</th></tr>", columns.len() + 1, escape(row.area.title()));
        }
        let _ = write!(body, "<tr><th><a href=\"{}\"><code>{}</code></a></th>", escape(&probe_href(ROOT, &row.probe)), escape(&row.probe));
        for (c, cell) in row.cells.iter().enumerate() {
            // The newest version's cells open the probe's page at this host; older ones its history.
            let anchor = match release.hosts.iter().find(|h| h.columns.contains(&c)) {
                Some(host) if newest => slug(&host.label),
                _ => format!("history-{}", slug(&release.client)),
            };
            let _ = write!(
                body,
                "<td title=\"{}\"><a href=\"{}#{anchor}\">{}</a>{}</td>",
                escape(&cell.detail),
                escape(&probe_href(ROOT, &row.probe)),
                badge_span(cell.outcome),
                evidence(ROOT, &columns[c], cell)
            );
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody></table></div>\n");
}

/// `releases` oldest first, as [`super::releases`] orders them.
pub fn render(client: &str, releases: &[Release], findings: &[Finding]) -> String {
    let mut body = format!("<h1>{}</h1>\n<p>Versions on record, newest first: ", escape(client));
    let links: Vec<String> = releases.iter().rev().map(|r| format!("<a href=\"#{}\">{}</a>", version_anchor(&r.version), escape(&r.version))).collect();
    body.push_str(&links.join(", "));
    body.push_str(".</p>\n");
    for (index, release) in releases.iter().enumerate().rev() {
        let _ = writeln!(body, "<section id=\"{}\">\n<h2>{}@{}</h2>", version_anchor(&release.version), escape(client), escape(&release.version));
        runs(release, &mut body);
        feature_answers(release, &mut body);
        rollup_tables(release, &mut body);
        let label = format!("{client}@{}", release.version);
        let own: Vec<&Finding> = findings.iter().filter(|f| f.client == label).collect();
        if !own.is_empty() {
            body.push_str("<h3>What this host does differently</h3>\n<ul>\n");
            for finding in own {
                let _ = writeln!(body, "<li>{}</li>", escape(&finding.text));
            }
            body.push_str("</ul>\n");
        }
        if let Some(before) = index.checked_sub(1).map(|i| &releases[i]) {
            changes(before, release, &mut body);
        }
        verdicts(release, index + 1 == releases.len(), &mut body);
        body.push_str("</section>\n");
    }
    page(client, ROOT, &body)
}
