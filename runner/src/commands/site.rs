//! `matrix site`: the static site, written to a directory or checked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::records::{self, findings, Located};
use crate::render::site::{self, links, Site};

/// The file that marks a directory as a site this command wrote, and may replace.
const MARKER: &str = ".mcp-client-probe-site";

/// A relative path as the site names its files: components joined by `/` on every platform.
fn slash_path(path: &Path) -> String {
    path.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}

/// Every journal (`*.jsonl`, or its compressed form `*.jsonl.zst`) in the directories of
/// `located`, by its path under the records root as its record names it (without `.zst`).
fn journals(root: &Path, located: &[Located]) -> Result<BTreeMap<String, String>> {
    let dirs: std::collections::BTreeSet<PathBuf> = located.iter().filter_map(|l| l.relative.parent().map(Path::to_path_buf)).collect();
    let mut journals = BTreeMap::new();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(&dir))?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".jsonl") || p.to_string_lossy().ends_with(".jsonl.zst"))
            .collect();
        files.sort();
        for file in files {
            let text = probe_server::journal::stored::read_text(&file).map_err(|e| crate::exit::bad_input(format!("cannot read {}: {e}", file.display())))?;
            let named = slash_path(file.strip_prefix(root).unwrap_or(&file));
            journals.insert(named.strip_suffix(".zst").map(str::to_string).unwrap_or(named), text);
        }
    }
    Ok(journals)
}

/// The site the records under `root` produce.
pub fn build(root: &Path) -> Result<Site> {
    if !root.is_dir() {
        return Err(crate::exit::bad_input_from(records::RecordError::Missing { path: root.to_path_buf() }));
    }
    let located = records::load(root).map_err(crate::exit::bad_input_from)?;
    if located.is_empty() {
        return Err(crate::exit::bad_input(format!("no records under {}", root.display())));
    }
    let journals = journals(root, &located)?;
    let plain: Vec<&records::Record> = located.iter().map(|l| &l.record).collect();
    let findings = findings::findings(&plain);
    Ok(site::build(&site::Input { records: &located, journals: &journals, findings: &findings }))
}

/// The files of a site already written to `dir`, when `dir` holds one.
fn written(dir: &Path) -> Result<Option<BTreeMap<String, String>>> {
    if !dir.join(MARKER).is_file() {
        return Ok(None);
    }
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.file_name().is_some_and(|n| n != MARKER) {
                files.insert(slash_path(path.strip_prefix(dir).unwrap_or(&path)), std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    Ok(Some(files))
}

fn write(site: &Site, out: &Path) -> Result<()> {
    if out.exists() {
        let empty = std::fs::read_dir(out).map(|mut entries| entries.next().is_none()).unwrap_or(false);
        if !out.join(MARKER).is_file() && !empty {
            return Err(crate::exit::bad_input(format!("{} holds files this command did not write: give an empty or new directory", out.display())));
        }
        std::fs::remove_dir_all(out)?;
    }
    for (path, text) in &site.files {
        let target = out.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(target, text)?;
    }
    std::fs::write(out.join(MARKER), "written by `mcp-client-probe matrix site`; the whole directory is replaced when it runs again\n")?;
    Ok(())
}

/// `matrix site`; returns the exit code.
pub fn run(records: &Path, out: &Path, check: bool) -> Result<u8> {
    let started = std::time::Instant::now();
    let site = build(records)?;
    let built_ms = started.elapsed().as_millis();
    let report = links::check(&site.files);
    let summary = format!(
        "{} files ({} pages, {} of them journal views), {} bytes; {} links checked, {} broken",
        site.files.len(),
        site.files.keys().filter(|p| p.ends_with(".html")).count(),
        site.journal_pages(),
        site.bytes(),
        report.checked,
        report.broken.len()
    );
    for line in &report.broken {
        crate::out!("BROKEN {line}");
    }
    eprintln!("mcp-client-probe: site built in {built_ms} ms");
    if check {
        let mut code = if report.broken.is_empty() { crate::exit::OK } else { crate::exit::MISMATCH };
        if let Some(files) = written(out)? {
            if files == site.files {
                crate::out!("{} is up to date", out.display());
            } else {
                let stale = site.files.iter().filter(|(p, t)| files.get(*p) != Some(*t)).count() + files.keys().filter(|p| !site.files.contains_key(*p)).count();
                crate::out!("{} is stale ({stale} files differ): run `cargo run -- matrix site`", out.display());
                code = crate::exit::MISMATCH;
            }
        }
        crate::out!("site: {summary}");
        return Ok(code);
    }
    write(&site, out)?;
    crate::out!("wrote {}: {summary}", out.display());
    Ok(if report.broken.is_empty() { crate::exit::OK } else { crate::exit::MISMATCH })
}
