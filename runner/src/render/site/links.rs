//! Checks a built site: every local `href` and `src` names a file of the site and, with a
//! fragment, an element `id` on that page.

use std::collections::{BTreeMap, HashMap, HashSet};

/// What the check found.
#[derive(Debug, Default, PartialEq)]
pub struct LinkReport {
    pub checked: usize,
    /// `page: target` for every link that does not resolve.
    pub broken: Vec<String>,
}

/// The values of every `name="…"` attribute in `html`.
fn attributes<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!(" {name}=\"");
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find(&needle) {
        rest = &rest[start + needle.len()..];
        let end = rest.find('"').unwrap_or(rest.len());
        found.push(&rest[..end]);
        rest = &rest[end..];
    }
    found
}

/// `target` resolved against the directory of `page`; `None` when it leaves the site.
fn resolve(page: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = page.split('/').collect();
    parts.pop();
    for part in target.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// Undoes the escaping of an attribute value (`&amp;` and friends).
fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

pub fn check(files: &BTreeMap<String, String>) -> LinkReport {
    let ids: HashMap<&str, HashSet<&str>> =
        files.iter().filter(|(p, _)| p.ends_with(".html")).map(|(p, html)| (p.as_str(), attributes(html, "id").into_iter().collect())).collect();
    let mut report = LinkReport::default();
    for (page, html) in files.iter().filter(|(p, _)| p.ends_with(".html")) {
        for target in attributes(html, "href").into_iter().chain(attributes(html, "src")) {
            let target = unescape(target);
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            report.checked += 1;
            let (path, fragment) = target.split_once('#').map_or((target.as_str(), None), |(p, f)| (p, Some(f)));
            let file = if path.is_empty() { Some(page.clone()) } else { resolve(page, path) };
            let resolves = file.is_some_and(|file| files.contains_key(&file) && fragment.is_none_or(|f| ids.get(file.as_str()).is_some_and(|ids| ids.contains(f))));
            if !resolves {
                report.broken.push(format!("{page}: {target}"));
            }
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_resolve_to_files_and_ids_or_are_reported() {
        let files = BTreeMap::from([
            (
                "index.html".to_string(),
                r##"<a href="a/b.html#L2">x</a> <a href="a/b.html#L9">y</a> <a href="missing.html">z</a> <a href="https://example.org/">w</a>"##.to_string(),
            ),
            ("a/b.html".to_string(), r##"<tr id="L2"></tr><a href="../index.html">up</a><a href="#L2">self</a><a href="../../out.html">out</a>"##.to_string()),
        ]);
        let report = check(&files);
        assert_eq!(report.checked, 6);
        assert_eq!(report.broken, ["a/b.html: ../../out.html", "index.html: a/b.html#L9", "index.html: missing.html"]);
    }
}
