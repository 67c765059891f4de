//! The index: the answer by feature. One row per feature, one column per client (its newest
//! version, every run taken together); a feature expands to its probes. Then the checklist of
//! features a server uses, what the answers mean for server authors counted in clients, the
//! outcome words, and the clients.

use std::fmt::Write;

use super::html::{escape, outcome_class, page};
use super::{feature_href, host_href, probe_href, slug, Release};
use crate::features::{self, Answer, ClientAnswers, FEATURES};
use crate::records::matrix::Matrix;
use crate::render::summary::badge;

/// The CSS class of a feature's answer (`a-supported`, …).
fn answer_class(answer: Answer) -> String {
    format!("a-{}", answer.label())
}

fn answer_badge(answer: Answer) -> String {
    format!("{}<span class=\"word\"> {}</span>", answer.symbol(), answer.label())
}

/// The anchor of a client's section on feature and probe pages: `client@version`, slugged.
pub fn client_anchor(client: &ClientAnswers) -> String {
    slug(&format!("{}@{}", client.client, client.version))
}

/// What the filter searches in a feature's row: its id, title, question, terms and probe ids.
fn feature_search(feature: &features::Feature) -> String {
    let mut words = vec![feature.id, feature.title, feature.question];
    words.extend(feature.terms);
    words.extend(feature.paths.iter().flat_map(|p| p.probes.iter().copied()));
    words.extend(feature.also);
    words.join(" ").to_lowercase()
}

/// What the filter searches in a probe's row under a feature: its id and title, and the
/// feature's name and terms (a search for "oauth" finds the `auth.*` probes).
fn probe_search(feature: &features::Feature, probe: &str) -> String {
    let title = probe_server::registry::find(probe).map_or("", |p| p.title());
    let mut words = vec![probe, title, feature.id, feature.title];
    words.extend(feature.terms);
    words.join(" ").to_lowercase()
}

fn grid(clients: &[ClientAnswers], body: &mut String) {
    body.push_str("<table class=\"grid\" id=\"grid\">\n<thead><tr><th class=\"first\">feature</th>");
    for client in clients {
        let _ = write!(
            body,
            "<th data-client=\"{}\"><a href=\"{}\">{}</a><br><small>{}</small></th>",
            escape(&client.client),
            escape(&host_href("", &client.client)),
            escape(&client.client),
            escape(&client.version)
        );
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    let mut group = None;
    for feature in FEATURES {
        if group != Some(feature.group) {
            group = Some(feature.group);
            let _ = writeln!(
                body,
                "<tr class=\"group\" data-group=\"{}\"><th class=\"first\"><span>{}</span></th><td colspan=\"{}\"></td></tr>",
                slug(feature.group.title()),
                escape(feature.group.title()),
                clients.len()
            );
        }
        let group_id = slug(feature.group.title());
        let _ = write!(
            body,
            "<tr class=\"feature\" data-feature=\"{id}\" data-group=\"{group_id}\" data-search=\"{}\"><th class=\"first\"><button type=\"button\" class=\"toggle\" aria-expanded=\"false\" aria-controls=\"probes-{id}\" title=\"show its probes\">▸</button> <a href=\"{}\">{}</a></th>",
            escape(&feature_search(feature)),
            escape(&feature_href("", feature.id)),
            escape(feature.title),
            id = feature.id,
        );
        for client in clients {
            let Some(answer) = client.answer(feature.id) else {
                body.push_str("<td>?</td>");
                continue;
            };
            let how = answer.path_short.map(|s| format!(" <small>{}</small>", escape(s))).unwrap_or_default();
            let why = answer.explained();
            let _ = write!(
                body,
                "<td class=\"{}\" data-answer=\"{}\"><a href=\"{}#{}\" title=\"{}\">{}{how}</a></td>",
                answer_class(answer.answer),
                answer.answer.label(),
                escape(&feature_href("", feature.id)),
                client_anchor(client),
                escape(&why),
                answer_badge(answer.answer)
            );
        }
        body.push_str("</tr>\n");
        for probe in feature.probes() {
            let also = if feature.only_also(probe) { " <small>(also)</small>" } else { "" };
            let _ = write!(
                body,
                "<tr class=\"probe\" data-feature=\"{id}\" data-group=\"{group_id}\" data-search=\"{}\" hidden><th class=\"first\"><a href=\"{}\"><code>{}</code></a>{also}</th>",
                escape(&probe_search(feature, probe)),
                escape(&probe_href("", probe)),
                escape(probe),
                id = feature.id,
            );
            for client in clients {
                match client.probes.get(probe) {
                    Some(merged) => {
                        let symbol = crate::render::summary::symbol(merged.outcome);
                        let only = if merged.only_in.is_empty() { String::new() } else { format!(" <small>{}</small>", escape(&merged.only_in.join(", "))) };
                        let _ = write!(
                            body,
                            "<td class=\"{}\"><a href=\"{}#{}\" title=\"{}: {}\">{symbol}<span class=\"word\"> {}</span>{only}</a></td>",
                            outcome_class(merged.outcome),
                            escape(&probe_href("", probe)),
                            client_anchor(client),
                            merged.outcome.label(),
                            escape(&merged.detail),
                            merged.outcome.label()
                        );
                    }
                    None => body.push_str("<td>?</td>"),
                }
            }
            body.push_str("</tr>\n");
        }
    }
    body.push_str("</tbody></table>\n");
}

fn checklist(body: &mut String) {
    body.push_str("<section id=\"which\">\n<h2>Which clients support the features my server uses?</h2>\n");
    body.push_str("<p>Tick the features your server relies on; the clients that support every one of them are listed below (the same answer as <code>mcp-client-probe which FEATURE…</code>).</p>\n<form id=\"which-form\">\n");
    let mut group = None;
    for feature in FEATURES {
        if group != Some(feature.group) {
            if group.is_some() {
                body.push_str("</fieldset>\n");
            }
            group = Some(feature.group);
            let _ = writeln!(body, "<fieldset><legend>{}</legend>", escape(feature.group.title()));
        }
        let _ = writeln!(body, "<label><input type=\"checkbox\" name=\"feature\" value=\"{}\"> {}</label>", feature.id, escape(feature.title));
    }
    body.push_str("</fieldset>\n</form>\n<p id=\"which-answer\" aria-live=\"polite\">Tick a feature to see which clients support it.</p>\n</section>\n");
}

fn for_server_authors(clients: &[ClientAnswers], body: &mut String) {
    let _ = writeln!(
        body,
        "<h2>What this means for server authors</h2>\n<p>Each line counts clients ({} in all, each at its newest version), never transports or runs.</p>\n<ul class=\"digest\">",
        clients.len()
    );
    for feature in FEATURES {
        let named = |wanted: Answer| features::clients_answering(clients, feature.id, wanted);
        let (yes, partly) = (named(Answer::Supported), named(Answer::Partly));
        let list = |names: &[&str]| if names.is_empty() { String::new() } else { format!(" ({})", escape(&names.join(", "))) };
        let partly = if partly.is_empty() { String::new() } else { format!("; partly by {}{}", partly.len(), list(&partly)) };
        let _ = writeln!(
            body,
            "<li><a href=\"{}\">{}</a>: supported by <strong>{} of {} clients</strong>{}{partly}.</li>",
            escape(&feature_href("", feature.id)),
            escape(feature.title),
            yes.len(),
            clients.len(),
            list(&yes)
        );
    }
    body.push_str("</ul>\n");
}

/// The words of the answers and of the probes' outcomes.
pub fn legend(body: &mut String) {
    body.push_str("<dl class=\"legend\">\n");
    for answer in [Answer::Supported, Answer::Partly, Answer::No, Answer::Untested] {
        let _ = writeln!(body, "<dt class=\"{}\">{}</dt><dd>{}</dd>", answer_class(answer), escape(&answer.badge()), escape(answer.meaning()));
    }
    body.push_str("</dl>\n");
}

fn outcome_words(body: &mut String) {
    body.push_str("<h2>What a probe's outcome means</h2>\n<dl class=\"legend\">\n");
    for (outcome, meaning) in crate::render::summary::OUTCOME_MEANINGS {
        let _ = writeln!(body, "<dt class=\"{}\">{}</dt><dd>{}</dd>", outcome_class(*outcome), escape(&badge(*outcome)), escape(meaning));
    }
    body.push_str("</dl>\n<p>A verdict is computed from the journals of the run, never from what the client declared; what it declared is shown beside it. Every verdict links to the journal lines it rests on.</p>\n");
}

/// `matrix`: the newest releases' records together; `clients`: it read per client.
fn body(newest: &[&Release], matrix: &Matrix, clients: &[ClientAnswers]) -> String {
    let dates: std::collections::BTreeSet<&str> = matrix.columns.iter().filter_map(|c| c.date.as_deref()).collect();
    let (first, last) = (dates.first().copied().unwrap_or("-"), dates.last().copied().unwrap_or("-"));
    let mut body = String::from("<h1>MCP client capability matrix</h1>\n");
    let _ = writeln!(
        body,
        "<p class=\"lead\">Which MCP features {} clients were seen to support (newest versions, probed {first}{}): <span class=\"a-supported\">✓ supported</span> <span class=\"a-partly\">◐ partly</span> <span class=\"a-no\">✕ no</span> <span class=\"a-untested\">? untested</span>, <a href=\"#answers\">defined below</a>. A cell opens the feature's page at that client; ▸ shows a feature's probes, or <button type=\"button\" class=\"inline\" id=\"expand\" aria-expanded=\"false\">show every probe</button>.</p>",
        clients.len(),
        if first == last { String::new() } else { format!(" to {last}") }
    );
    body.push_str("<p class=\"controls\"><label>Filter <input id=\"filter\" type=\"search\" placeholder=\"a feature, probe or spec term: oauth, enum, resources/subscribe\"></label> <span id=\"filter-count\"></span></p>\n");
    grid(clients, &mut body);
    body.push_str("<h2 id=\"answers\">What the answers mean</h2>\n");
    legend(&mut body);
    body.push_str("<p>A client's runs are taken together: stdio and HTTP, against a server of both protocol eras and of the legacy era only. A feature shown more than one way (a form answered by a person at the terminal, or headless) is answered by the way that went best; the cell says which.</p>\n");
    checklist(&mut body);
    for_server_authors(clients, &mut body);
    outcome_words(&mut body);
    body.push_str("<h2>Clients</h2>\n<ul>\n");
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

pub fn render(newest: &[&Release], matrix: &Matrix, clients: &[ClientAnswers]) -> String {
    page("Features by client", "", &body(newest, matrix, clients))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_for_a_synonym_finds_the_feature_and_its_probes() {
        let oauth = features::feature("oauth").unwrap();
        assert!(feature_search(oauth).contains("auth.pkce_s256"));
        assert!(probe_search(oauth, "auth.pkce_s256").contains("oauth"));
        let forms = features::feature("elicitation-forms").unwrap();
        assert!(!probe_search(forms, "elicitation.form").contains("oauth"));
    }
}
