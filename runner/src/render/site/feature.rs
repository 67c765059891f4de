//! A feature's page: the question it answers, how it rolls up, each client's answer with why, and
//! each of its probes per client, every mark leading to the probe's page at that client.

use std::fmt::Write;

use super::html::{escape, outcome_class, page};
use super::index::{client_anchor, legend};
use super::{host_href, probe_href};
use crate::features::{ClientAnswers, Feature};
use crate::render::summary::badge;

const ROOT: &str = "../";

fn probe_list(title: &str, probes: &[&str], body: &mut String) {
    let _ = write!(body, "<li>{}: ", escape(title));
    let links: Vec<String> = probes.iter().map(|p| format!("<a href=\"{}\"><code>{}</code></a>", escape(&probe_href(ROOT, p)), escape(p))).collect();
    body.push_str(&links.join(", "));
    body.push_str("</li>\n");
}

/// `clients`: every client at its newest version, their answers computed over every run.
pub fn render(feature: &Feature, clients: &[ClientAnswers]) -> String {
    let mut body = String::new();
    let _ = writeln!(body, "<h1>{}</h1>\n<p class=\"lead\">{}</p>", escape(feature.title), escape(feature.question));
    let _ = writeln!(body, "<p class=\"facts\"><code>{}</code> · {} · also known as: {}</p>", feature.id, escape(feature.group.title()), escape(&feature.terms.join(", ")));
    body.push_str("<h2>How it is answered</h2>\n<ul>\n");
    for path in feature.paths {
        probe_list(if path.name.is_empty() { "probes, each of which must say yes" } else { path.name }, path.probes, &mut body);
    }
    if !feature.also.is_empty() {
        probe_list("shown beside it, without changing the answer", feature.also, &mut body);
    }
    body.push_str("</ul>\n<p>A client's runs are taken together (stdio and HTTP, against a server of both protocol eras and of the legacy era only); probes that do not exist in the era it spoke are left out; the way of showing the feature that went best answers.</p>\n");
    legend(&mut body);
    body.push_str("<h2>Clients</h2>\n<table class=\"answers\"><thead><tr><th>client</th><th>answer</th><th>shown</th><th>why</th></tr></thead>\n<tbody>\n");
    for client in clients {
        let Some(answer) = client.answer(feature.id) else { continue };
        let _ = writeln!(
            body,
            "<tr id=\"{}\"><th><a href=\"{}\">{}</a> <small>{}</small></th><td class=\"a-{}\">{}</td><td>{}</td><td>{}</td></tr>",
            client_anchor(client),
            escape(&host_href(ROOT, &client.client)),
            escape(&client.client),
            escape(&client.version),
            answer.answer.label(),
            escape(&answer.answer.badge()),
            escape(answer.path.unwrap_or("-")),
            escape(&answer.why)
        );
    }
    body.push_str("</tbody></table>\n<h2>Its probes, client by client</h2>\n<table class=\"grid\"><thead><tr><th class=\"first\">probe</th>");
    for client in clients {
        let _ = write!(body, "<th>{}</th>", escape(&client.client));
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    for probe in feature.probes() {
        let _ = write!(body, "<tr><th class=\"first\"><a href=\"{}\"><code>{}</code></a></th>", escape(&probe_href(ROOT, probe)), escape(probe));
        for client in clients {
            match client.probes.get(probe) {
                Some(merged) => {
                    let _ = write!(
                        body,
                        "<td class=\"{}\"><a href=\"{}#{}\" title=\"{}\">{}</a></td>",
                        outcome_class(merged.outcome),
                        escape(&probe_href(ROOT, probe)),
                        client_anchor(client),
                        escape(&merged.detail),
                        escape(&badge(merged.outcome))
                    );
                }
                None => body.push_str("<td>?</td>"),
            }
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody></table>\n");
    page(feature.title, ROOT, &body)
}
