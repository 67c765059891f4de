//! The house plan, enforced: ARCHITECTURE.md's "Layering" table puts every source file of both
//! crates on a floor; a file may import only from its own floor or below, and no import circle
//! may run between files of different folders. Imports are the `crate::` and `super::` paths of
//! a file outside comments and its test module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The floors of each crate's source directory, from the table under "## Layering": (path or
/// folder prefix, floor) per crate directory.
fn floors(architecture: &str) -> BTreeMap<String, Vec<(String, u32)>> {
    let section = architecture.split("\n## Layering\n").nth(1).expect("ARCHITECTURE.md has a Layering section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut floors: BTreeMap<String, Vec<(String, u32)>> = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [dir, floor, paths] = cells.as_slice() else { continue };
        let Ok(floor) = floor.parse::<u32>() else { continue };
        for path in paths.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            floors.entry(dir.to_string()).or_default().push((path.to_string(), floor));
        }
    }
    floors
}

/// Every `.rs` file under `dir`, relative to it, with `/` separators.
fn sources(dir: &Path) -> Vec<String> {
    let (mut found, mut stack) = (Vec::new(), vec![dir.to_path_buf()]);
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    found
}

/// The module path of a source file: `harness/launch.rs` → `harness::launch`, `harness/mod.rs`
/// → `harness`, `main.rs` → the crate root.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "main" | "lib")) {
        parts.pop();
    }
    parts
}

fn folder_of(file: &str) -> &str {
    file.rsplit_once('/').map_or(".", |(folder, _)| folder)
}

/// The code of a file as the layering sees it: no comment lines, nothing from its test module on.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod ").next().unwrap_or(text);
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The paths a use tree or path starting at `text` names (`a::b::{c, d::{e, self}}`).
fn paths_at(text: &[u8], mut at: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix;
    loop {
        while text.get(at).is_some_and(|c| c.is_ascii_whitespace()) {
            at += 1;
        }
        if text.get(at) == Some(&b'{') {
            let mut all = Vec::new();
            at += 1;
            loop {
                let (found, next) = paths_at(text, at, path.clone());
                all.extend(found);
                at = next;
                while text.get(at).is_some_and(|c| c.is_ascii_whitespace() || *c == b',') {
                    at += 1;
                }
                match text.get(at) {
                    Some(b'}') => return (all, at + 1),
                    None => return (all, at),
                    _ if at == next => return (all, at),
                    _ => {}
                }
            }
        }
        let start = at;
        while text.get(at).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
            at += 1;
        }
        let ident = String::from_utf8_lossy(&text[start..at]).to_string();
        if !ident.is_empty() && ident != "self" {
            path.push(ident);
        }
        if text.get(at..at + 2) == Some(b"::") {
            at += 2;
            continue;
        }
        return (vec![path], at);
    }
}

/// The modules a file's code names through `crate::` and `super::` paths.
fn imports(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for head in ["crate::", "super::"] {
        for (at, _) in code.match_indices(head) {
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b':') {
                continue;
            }
            let (mut base, mut next) = (Vec::new(), at + head.len());
            if head == "super::" {
                base = module[..module.len().saturating_sub(1)].to_vec();
                while code[next..].starts_with("super::") {
                    base.pop();
                    next += "super::".len();
                }
            }
            found.extend(paths_at(bytes, next, base).0);
        }
    }
    found
}

/// What is wrong with the layering of the crate whose sources are under `dir`, by `floors`.
fn layering_problems(dir: &Path, floors: &[(String, u32)]) -> Vec<String> {
    let files = sources(dir);
    let mut modules: BTreeMap<Vec<String>, &str> = files.iter().map(|f| (module_of(f), f.as_str())).collect();
    // A module the crate root re-exports (`pub use room::{a, b};`) is also reached by its short path.
    for root in ["lib.rs", "main.rs"] {
        let Ok(text) = std::fs::read_to_string(dir.join(root)) else { continue };
        for (room, names) in text.lines().filter_map(|l| l.strip_prefix("pub use ")?.strip_suffix("};")?.split_once("::{")) {
            for name in names.split(',').map(str::trim) {
                if let Some(file) = modules.get(&vec![room.to_string(), name.to_string()]).copied() {
                    modules.insert(vec![name.to_string()], file);
                }
            }
        }
    }
    let floor_of = |file: &str| floors.iter().filter(|(p, _)| file == p || (p.ends_with('/') && file.starts_with(p.as_str()))).map(|(_, f)| *f).next();
    let mut problems = Vec::new();
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for file in &files {
        let Some(floor) = floor_of(file) else {
            problems.push(format!("{file} stands on no floor of ARCHITECTURE.md's Layering table"));
            continue;
        };
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let module = module_of(file);
        for path in imports(&code(&text), &module) {
            let target = (1..=path.len()).rev().find_map(|n| modules.get(&path[..n]).copied());
            let Some(target) = target.filter(|t| t != file) else { continue };
            edges.entry(file.as_str()).or_default().insert(target);
            if let Some(above) = floor_of(target).filter(|f| *f > floor) {
                problems.push(format!("{file} (floor {floor}) imports {target} (floor {above}): {}", path.join("::")));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems.extend(circles_across_folders(&edges));
    problems
}

/// The import circles (strongly connected files) that take in more than one folder.
fn circles_across_folders(edges: &BTreeMap<&str, BTreeSet<&str>>) -> Vec<String> {
    let nodes: BTreeSet<&str> = edges.iter().flat_map(|(a, bs)| std::iter::once(*a).chain(bs.iter().copied())).collect();
    let reach = |from: &str| {
        let (mut seen, mut stack) = (BTreeSet::new(), vec![from]);
        while let Some(at) = stack.pop() {
            for next in edges.get(at).into_iter().flatten() {
                if seen.insert(*next) {
                    stack.push(next);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<&str>> = nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut circles: BTreeSet<Vec<&str>> = BTreeSet::new();
    for node in &nodes {
        let circle: Vec<&str> = nodes.iter().copied().filter(|other| reaches[node].contains(other) && reaches[other].contains(node)).collect();
        let folders: BTreeSet<&str> = circle.iter().map(|f| folder_of(f)).collect();
        if folders.len() > 1 {
            circles.insert(circle);
        }
    }
    circles.into_iter().map(|c| format!("an import circle across folders: {}", c.join(", "))).collect()
}

#[test]
fn every_module_imports_only_from_its_floor_or_below() {
    let architecture = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let floors = floors(&architecture);
    assert_eq!(floors.keys().map(String::as_str).collect::<Vec<_>>(), ["probe-server/src", "runner/src"]);
    for (dir, floors) in &floors {
        let problems = layering_problems(&repo().join(dir), floors);
        assert!(problems.is_empty(), "{dir}:\n{}", problems.join("\n"));
    }
}

#[test]
fn an_import_from_above_a_circle_across_folders_and_a_file_on_no_floor_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let write = |file: &str, text: &str| {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("main.rs", "mod low; mod high;\nfn main() { high::run(); }\n");
    // A doc comment and a test module may name anything.
    write("low/mod.rs", "/// See [`crate::high::run`].\npub mod a;\n#[cfg(test)]\nmod tests { use crate::high::run; }\n");
    write("low/a.rs", "use crate::{high::{self, b::B}, low};\n");
    write("high/mod.rs", "pub mod b;\npub fn run() { super::low::a::go(); }\n");
    write("high/b.rs", "pub struct B;\n");
    write("stray.rs", "");
    let floors = vec![("main.rs".to_string(), 2), ("low/".into(), 0), ("high/".into(), 1)];
    let problems = layering_problems(dir.path(), &floors);
    assert_eq!(
        problems,
        [
            "low/a.rs (floor 0) imports high/b.rs (floor 1): high::b::B",
            "low/a.rs (floor 0) imports high/mod.rs (floor 1): high",
            "stray.rs stands on no floor of ARCHITECTURE.md's Layering table",
            "an import circle across folders: high/mod.rs, low/a.rs",
        ],
        "{problems:#?}"
    );
}
