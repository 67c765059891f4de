//! HTML pieces every page shares: escaping, the page shell, outcome badges, evidence links.

use std::fmt::Write;

use probe_server::probe::Outcome;

use crate::records::matrix::{Cell, Column};
use crate::render::summary::badge;

/// `text` made safe for element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page: `root` leads from the page back to the site's root (`""`, `"../"`, …).
pub fn page(title: &str, root: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>{title} · MCP client capability matrix</title>\n<link rel=\"stylesheet\" href=\"{root}style.css\">\n</head>\n<body>\n\
<header><a href=\"{root}index.html\">MCP client capability matrix</a></header>\n<main>\n{body}</main>\n<script src=\"{root}site.js\"></script>\n</body>\n</html>\n",
        title = escape(title)
    )
}

/// The CSS class of an outcome (`o-yes`, `o-not-reached`, `o-n-a`, …).
pub fn outcome_class(outcome: Outcome) -> String {
    format!("o-{}", super::slug(outcome.label()))
}

/// An outcome as a coloured badge with its symbol and word.
pub fn badge_span(outcome: Outcome) -> String {
    format!("<span class=\"badge {}\">{}</span>", outcome_class(outcome), escape(&badge(outcome)))
}

/// A cell's evidence as links into the journal views: "line N ↗" and, for a verdict that blames
/// the client, "chance ↗".
pub fn evidence(root: &str, column: &Column, cell: &Cell) -> String {
    let mut out = String::new();
    for link in column.evidence_links(cell) {
        let text = if link.chance { format!("chance: line {} ↗", link.line) } else { format!("line {} ↗", link.line) };
        let title = if link.chance { "the line that shows the client had its chance" } else { "the line the verdict rests on" };
        let _ = write!(out, " <a class=\"evidence\" href=\"{}\" title=\"{title}\">{text}</a>", escape(&super::journal_href(root, &link.journal, link.line)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(escape(r#"<a href="x">&</a>"#), "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
        assert_eq!(outcome_class(Outcome::NotApplicable), "o-n-a");
        assert_eq!(outcome_class(Outcome::NotReached), "o-not-reached");
    }
}
