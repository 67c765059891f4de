//! A probe's page: what it looks for, each host's verdict now (newest version) with its evidence,
//! and its history per client across the versions on record: since which version the current
//! outcome holds, and where a yes was lost (a regression).

use std::collections::BTreeMap;
use std::fmt::Write;

use probe_server::probe::{Declaration, Outcome, Probe};

use super::html::{badge_span, escape, evidence, outcome_class, page};
use super::{host_href, slug, Release};
use crate::render::summary::split_transport;

const ROOT: &str = "../";

/// The outcome of `probe` in each column of a release, by the column's transport name.
fn outcomes(release: &Release, probe: &str) -> Vec<(String, Outcome)> {
    let Some(row) = release.matrix.rows.iter().find(|r| r.probe == probe) else { return Vec::new() };
    release.matrix.columns.iter().zip(&row.cells).map(|(c, cell)| (c.transport.clone(), cell.outcome)).collect()
}

/// Since which release `transport` has shown its newest outcome without a break (the oldest on
/// record when it always has).
pub(crate) fn since<'a>(history: &'a [BTreeMap<String, Outcome>], versions: &'a [&'a str], transport: &str) -> Option<&'a str> {
    let now = history.last()?.get(transport)?;
    let mut since = versions.last()?;
    for (outcomes, version) in history.iter().zip(versions).rev().skip(1) {
        if outcomes.get(transport) != Some(now) {
            break;
        }
        since = version;
    }
    Some(since)
}

fn current(probe: &str, newest: &[&Release], body: &mut String) {
    body.push_str("<h2>Now</h2>\n");
    for release in newest {
        let Some(row) = release.matrix.rows.iter().find(|r| r.probe == probe) else { continue };
        for host in &release.hosts {
            let _ = writeln!(body, "<section id=\"{}\">\n<h3><a href=\"{}\">{}</a></h3>\n<ul>", slug(&host.label), escape(&host_href(ROOT, &release.client)), escape(&host.label));
            for &c in &host.columns {
                let (column, cell) = (&release.matrix.columns[c], &row.cells[c]);
                let declared = match cell.declared {
                    Declaration::NoCapability => String::new(),
                    ref declared => format!(" · {}", declared.label()),
                };
                let _ = writeln!(
                    body,
                    "<li>{} · {}{declared} — {}{}</li>",
                    escape(split_transport(column).0),
                    badge_span(cell.outcome),
                    escape(&cell.detail),
                    evidence(ROOT, column, cell)
                );
            }
            body.push_str("</ul>\n</section>\n");
        }
    }
}

fn history(probe: &str, releases: &BTreeMap<String, Vec<Release>>, body: &mut String) {
    body.push_str("<h2>History</h2>\n<p>Each client's versions on record, oldest first. ↓ marks a yes lost since the version before.</p>\n");
    for (client, releases) in releases {
        let versions: Vec<&str> = releases.iter().map(|r| r.version.as_str()).collect();
        let history: Vec<BTreeMap<String, Outcome>> = releases.iter().map(|r| outcomes(r, probe).into_iter().collect()).collect();
        let mut transports: Vec<String> = Vec::new();
        for outcomes in history.iter().rev() {
            for transport in outcomes.keys() {
                if !transports.contains(transport) {
                    transports.push(transport.clone());
                }
            }
        }
        let _ = write!(
            body,
            "<h3 id=\"history-{}\"><a href=\"{}\">{}</a></h3>\n<table class=\"history\"><thead><tr><th>run</th>",
            slug(client),
            escape(&host_href(ROOT, client)),
            escape(client)
        );
        for version in &versions {
            let _ = write!(body, "<th>{}</th>", escape(version));
        }
        body.push_str("<th>now</th></tr></thead>\n<tbody>\n");
        for transport in &transports {
            let _ = write!(body, "<tr><th>{}</th>", escape(transport));
            let mut before: Option<Outcome> = None;
            for outcomes in &history {
                match outcomes.get(transport) {
                    Some(&outcome) => {
                        let regressed = before == Some(Outcome::Yes) && outcome != Outcome::Yes;
                        let (class, mark) = if regressed { (" regressed", " ↓") } else { ("", "") };
                        let _ = write!(body, "<td class=\"{}{class}\">{}{mark}</td>", outcome_class(outcome), escape(&crate::render::summary::badge(outcome)));
                        before = Some(outcome);
                    }
                    None => {
                        body.push_str("<td>not probed</td>");
                        before = None;
                    }
                }
            }
            let note = match since(&history, &versions, transport) {
                Some(version) if versions.len() == 1 => format!("since {version}, the only version on record"),
                Some(version) if Some(&version) == versions.first() => format!("since {version}, the oldest on record"),
                Some(version) => format!("since {version}"),
                None => "not probed in the newest version".into(),
            };
            let _ = writeln!(body, "<td>{}</td></tr>", escape(&note));
        }
        body.push_str("</tbody></table>\n");
    }
}

pub fn render(probe: &dyn Probe, newest: &[&Release], releases: &BTreeMap<String, Vec<Release>>) -> String {
    let mut body = String::new();
    let _ = writeln!(body, "<h1><code>{}</code>: {}</h1>", escape(probe.id()), escape(probe.title()));
    let eras: Vec<&str> = probe.eras().iter().map(|e| e.as_str()).collect();
    let _ = writeln!(body, "<p class=\"facts\">{} · eras: {} · revisions: {}</p>", escape(probe.area().title()), escape(&eras.join(", ")), escape(&probe.revisions().join(", ")));
    let _ = writeln!(body, "<p><strong>The server serves</strong> {}</p>", escape(probe.serves()));
    if !probe.variant().is_standard() {
        let _ = writeln!(body, "<p><strong>Server variant</strong> <code>{}</code>: {}</p>", escape(probe.variant().as_str()), escape(probe.variant().description()));
    }
    let evidence: Vec<&str> = probe.evidence().lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let evidence = evidence.join(" ");
    let _ = writeln!(body, "<p><strong>Evidence:</strong> {}</p>", escape(evidence.strip_prefix("Evidence:").unwrap_or(&evidence).trim_start()));
    current(probe.id(), newest, &mut body);
    history(probe.id(), releases, &mut body);
    page(probe.id(), ROOT, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_walks_back_while_the_outcome_holds() {
        let at = |outcome: Outcome| BTreeMap::from([("stdio".to_string(), outcome)]);
        let history = [at(Outcome::No), at(Outcome::Yes), at(Outcome::Yes)];
        let versions = ["1", "2", "3"];
        assert_eq!(since(&history, &versions, "stdio"), Some("2"));
        assert_eq!(since(&history[..1], &versions[..1], "stdio"), Some("1"));
        assert_eq!(since(&history, &versions, "http"), None);
    }
}
