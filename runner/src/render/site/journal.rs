//! A journal as a page: one item per line, each with an anchor (`#L12`), its time from the run's
//! start, a short reading (direction, kind, method, id, note) and what it carried: a frame's JSON
//! once, pretty-printed (the journal line holds it as an escaped string), or the note's detail.
//! The script marks the line the address names; CSS highlights it too (`:target`).

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

/// What a line carries, for people: the frame it recorded (its JSON pretty-printed, once), or the
/// note's or HTTP exchange's detail; text that is not JSON as it came.
pub fn content(line: &str) -> String {
    let Ok(serde_json::Value::Object(event)) = serde_json::from_str::<serde_json::Value>(line) else {
        return line.to_string();
    };
    let pretty = |value: &serde_json::Value| serde_json::to_string_pretty(value).unwrap_or_default();
    if let Some(raw) = event.get("raw").and_then(|r| r.as_str()) {
        return match serde_json::from_str::<serde_json::Value>(raw) {
            Ok(frame) => pretty(&frame),
            Err(_) => raw.to_string(),
        };
    }
    if let Some(delta) = event.get("raw_delta") {
        return format!("(what changed since the request before)\n{}", pretty(delta));
    }
    event.get("detail").map(pretty).unwrap_or_default()
}

/// When a line was written, from the run's start: `+12.345 s`.
fn when(line: &str) -> String {
    serde_json::from_str::<serde_json::Value>(line).ok().and_then(|e| e.get("t_us").and_then(|t| t.as_u64())).map_or_else(String::new, |t| format!("+{:.3} s", t as f64 / 1e6))
}

/// `path` is the journal's place under the records root: `<client>/<version>/<file>`.
pub fn render(path: &str, text: &str) -> String {
    let mut parts = path.splitn(3, '/');
    let (client, version, file) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default(), parts.next().unwrap_or(path));
    let lines: Vec<&str> = text.lines().collect();
    let mut body = format!("<h1>{}@{} · <code>{}</code></h1>\n", escape(client), escape(version), escape(file));
    let _ = writeln!(
        body,
        "<p><a href=\"{}#{}\">Back to {}@{}</a> · {} lines, as recorded under <code>matrices/records/{}</code>: each line's time from the run's start, what it is (→ from the client, ← to the client, • the harness's note) and what it carried, a frame's JSON shown once, pretty-printed. A line number links to its line.</p>",
        escape(&host_href(ROOT, client)),
        version_anchor(version),
        escape(client),
        escape(version),
        lines.len(),
        escape(path)
    );
    body.push_str("<ol class=\"journal\">\n");
    for (index, line) in lines.iter().enumerate() {
        let n = index + 1;
        let _ = writeln!(
            body,
            "<li id=\"L{n}\"><span class=\"n\"><a href=\"#L{n}\">{n}</a></span><span class=\"when\">{}</span><span class=\"what\">{}</span><pre>{}</pre></li>",
            escape(&when(line)),
            escape(&reading(line)),
            escape(&content(line))
        );
    }
    body.push_str("</ol>\n");
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
        let page = render("a/1.0/stdio.journal.jsonl", "{\"dir\":\"s2c\",\"kind\":\"frame\",\"raw\":\"<b>\",\"t_us\":1500000}\n");
        assert!(page.contains("<li id=\"L1\">"), "{page}");
        assert!(page.contains("+1.500 s"), "{page}");
        assert!(page.contains("&lt;b&gt;"), "markup in a line is escaped");
        assert!(page.contains("href=\"../../../hosts/a.html#v-1-0\""), "{page}");
    }

    #[test]
    fn a_frame_is_shown_once_as_pretty_json() {
        let line = r#"{"dir":"c2s","kind":"frame","raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}"#;
        let shown = content(line);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&shown).unwrap(), serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
        assert!(shown.contains("\n  \"method\": \"ping\""), "pretty: {shown}");
        assert!(!shown.contains("\\\""), "escaped once, not twice: {shown}");
        assert_eq!(content(r#"{"dir":"note","detail":{"event":"serving"}}"#), "{\n  \"event\": \"serving\"\n}");
        assert_eq!(content("not json"), "not json");
    }
}
