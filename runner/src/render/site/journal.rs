//! A journal as a page: one row per line, each with an anchor (`#L12`), a short reading of the
//! line (direction, kind, method, id, note) and the line itself, verbatim. The script marks the
//! line the address names; CSS highlights it too (`:target`), so it shows without the script.

use std::fmt::Write;

use super::host::version_anchor;
use super::host_href;
use super::html::{escape, page};

const ROOT: &str = "../../../";

/// A line read for people: `→ frame tools/call #3`, `← http_response`, `• note serving`.
pub fn reading(line: &str) -> String {
    let Ok(serde_json::Value::Object(event)) = serde_json::from_str::<serde_json::Value>(line) else {
        return "(not JSON)".into();
    };
    let text = |key: &str| event.get(key).and_then(|v| v.as_str()).unwrap_or_default();
    let arrow = match text("dir") {
        "c2s" => "→",
        "s2c" => "←",
        _ => "•",
    };
    let mut out = format!("{arrow} {}", text("kind"));
    if !text("method").is_empty() {
        let _ = write!(out, " {}", text("method"));
    }
    if let Some(id) = event.get("id").filter(|id| !id.is_null()) {
        let _ = write!(out, " #{}", id.as_str().map_or_else(|| id.to_string(), str::to_string));
    }
    if let Some(note) = event.get("detail").and_then(|d| d.get("event")).and_then(|e| e.as_str()) {
        let _ = write!(out, " {note}");
    }
    out
}

/// `path` is the journal's place under the records root: `<client>/<version>/<file>`.
pub fn render(path: &str, text: &str) -> String {
    let mut parts = path.splitn(3, '/');
    let (client, version, file) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default(), parts.next().unwrap_or(path));
    let lines: Vec<&str> = text.lines().collect();
    let mut body = format!("<h1>{}@{} · <code>{}</code></h1>\n", escape(client), escape(version), escape(file));
    let _ = writeln!(
        body,
        "<p><a href=\"{}#{}\">Back to {}@{}</a> · {} lines, as recorded under <code>matrices/records/{}</code>. → from the client, ← to the client, • the harness's note. A line number links to its line.</p>",
        escape(&host_href(ROOT, client)),
        version_anchor(version),
        escape(client),
        escape(version),
        lines.len(),
        escape(path)
    );
    body.push_str("<table class=\"journal\"><tbody>\n");
    for (index, line) in lines.iter().enumerate() {
        let n = index + 1;
        let _ = writeln!(
            body,
            "<tr id=\"L{n}\"><td class=\"n\"><a href=\"#L{n}\">{n}</a></td><td class=\"r\">{}</td><td class=\"t\">{}</td></tr>",
            escape(&reading(line)),
            escape(line)
        );
    }
    body.push_str("</tbody></table>\n");
    page(&format!("{client}@{version} {file}"), ROOT, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_read_for_people_and_kept_verbatim() {
        assert_eq!(reading(r#"{"dir":"c2s","kind":"frame","method":"tools/call","id":3}"#), "→ frame tools/call #3");
        assert_eq!(reading(r#"{"dir":"note","kind":"note","detail":{"event":"serving"}}"#), "• note serving");
        assert_eq!(reading("{not json"), "(not JSON)");
        let page = render("a/1.0/stdio.journal.jsonl", "{\"dir\":\"s2c\",\"kind\":\"frame\",\"raw\":\"<b>\"}\n");
        assert!(page.contains("<tr id=\"L1\">"), "{page}");
        assert!(page.contains("&lt;b&gt;"), "markup in a line is escaped");
        assert!(page.contains("href=\"../../../hosts/a.html#v-1-0\""), "{page}");
    }
}
