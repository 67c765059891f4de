//! Checks the links of rendered markdown: every relative link names a file that exists, every
//! `#anchor` into a markdown page names an anchor (`<a id="…">`) that page has, and every `#L<n>`
//! into a journal names a line it has.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// The targets of the markdown links in `text`: what stands between `](` and `)`.
fn targets(text: &str) -> impl Iterator<Item = &str> {
    text.split("](").skip(1).filter_map(|rest| rest.split_once(')').map(|(target, _)| target))
}

/// The anchors a page defines with `<a id="…">`.
fn anchors(text: &str) -> BTreeSet<&str> {
    text.split("<a id=\"").skip(1).filter_map(|rest| rest.split_once('"').map(|(id, _)| id)).collect()
}

/// `dir/relative` with `..` and `.` folded, without touching the file system.
fn join(dir: &Path, relative: &str) -> PathBuf {
    let mut path = PathBuf::new();
    for part in dir.join(relative).components() {
        match part {
            Component::ParentDir => {
                path.pop();
            }
            Component::CurDir => {}
            other => path.push(other),
        }
    }
    path
}

/// What is wrong with the links of `pages` (path, text), which are to be written where their
/// paths say: pages of the set are read from the set, other files from disk.
pub fn broken(pages: &[(PathBuf, String)]) -> Vec<String> {
    let in_set: BTreeMap<PathBuf, &str> = pages.iter().map(|(path, text)| (join(Path::new(""), &path.to_string_lossy()), text.as_str())).collect();
    let mut line_counts: BTreeMap<PathBuf, Option<usize>> = BTreeMap::new();
    let mut problems = Vec::new();
    for (page, text) in pages {
        let dir = page.parent().unwrap_or(Path::new(""));
        for target in targets(text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').map_or((target, None), |(f, a)| (f, Some(a)));
            let path = if file.is_empty() { join(Path::new(""), &page.to_string_lossy()) } else { join(dir, file) };
            let say = |what: String| format!("{}: {target}: {what}", page.display());
            if let Some(linked) = in_set.get(&path) {
                if let Some(anchor) = anchor.filter(|a| !a.is_empty()) {
                    if !anchors(linked).contains(anchor) {
                        problems.push(say(format!("no anchor {anchor:?} in {}", path.display())));
                    }
                }
                continue;
            }
            if !path.exists() {
                problems.push(say("no such file".into()));
                continue;
            }
            if let Some(line) = anchor.and_then(|a| a.strip_prefix('L')).and_then(|n| n.parse::<usize>().ok()) {
                let count = *line_counts.entry(path.clone()).or_insert_with(|| std::fs::read_to_string(&path).ok().map(|t| t.lines().count()));
                if count.is_some_and(|count| line == 0 || line > count) {
                    problems.push(say(format!("{} has {} lines", path.display(), count.unwrap_or(0))));
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_to_missing_files_anchors_and_lines_are_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("j.jsonl"), "a\nb\n").unwrap();
        let root = dir.path();
        let pages = vec![
            (
                root.join("M.md"),
                "[ok](c/x.md#f) [bad anchor](c/x.md#nope) [line](j.jsonl#L2) [past the end](j.jsonl#L3) [gone](missing.md) [web](https://e.org/x) [here](#top)".to_string(),
            ),
            (root.join("c/x.md"), "<a id=\"f\"></a> [up](../M.md) [journal](../j.jsonl#L1)".to_string()),
        ];
        let problems = broken(&pages);
        assert_eq!(problems.len(), 4, "{problems:#?}");
        assert!(problems.iter().any(|p| p.contains("no anchor \"nope\"")));
        assert!(problems.iter().any(|p| p.contains("j.jsonl#L3") && p.contains("has 2 lines")));
        assert!(problems.iter().any(|p| p.contains("missing.md: no such file")));
        assert!(problems.iter().any(|p| p.contains("#top") && p.contains("no anchor")));
    }
}
