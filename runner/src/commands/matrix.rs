//! The `matrix` commands: render, check, diff, refresh and schema, over the records directory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cli::{Format, MatrixCommand, MatrixFormat};
use crate::harness::Transport;
use crate::records::compare::{compare, keyed, Difference, Placed, Same, VerdictKey};
use crate::records::{self, Located, Record};
use crate::{clients::install, clients::profile, records::diff, records::findings, records::matrix, render, runs::client};
use probe_server::{registry, Variant};

/// The records directory as the matrix document links to it.
fn link_prefix(records: &Path, out: &Path) -> String {
    let base = out.parent().unwrap_or(Path::new("."));
    records.strip_prefix(base).map_or_else(|_| records.display().to_string(), |p| p.display().to_string())
}

/// The markdown documents for the records under `records`, each with the path it is written to:
/// `out` (`MATRIX.md`) and one page per client in `clients/` beside it.
pub fn documents(records: &Path, out: &Path) -> Result<Vec<(PathBuf, String)>> {
    let located = records::newest_only(&load_records(records)?);
    let mut matrix = matrix::from_records(&located, &link_prefix(records, out));
    // Links to journals name the form they are stored in.
    let base = records::base_of(records);
    for (column, l) in matrix.columns.iter_mut().zip(&located) {
        let dir = base.join(&l.relative).parent().map(Path::to_path_buf).unwrap_or_default();
        column.compressed = probe_server::journal::stored::compressed_path(&dir.join(&l.record.journal)).is_file();
    }
    let plain: Vec<&Record> = located.iter().map(|l| &l.record).collect();
    let documents = render::markdown::documents(&matrix, &findings::findings(&plain));
    let pages = clients_dir(out);
    let beside = out.parent().unwrap_or(Path::new(""));
    let mut all = vec![(out.to_path_buf(), documents.matrix), (beside.join(render::markdown::PROBES_FILE), documents.probes)];
    all.extend(documents.clients.into_iter().map(|(name, text)| (pages.join(name), text)));
    all.extend(repository_pages(records, out)?);
    Ok(all)
}

/// The width the README's example is rendered at.
const EXAMPLE_WIDTH: u16 = 110;

/// The repository's own pages beside the `matrices` directory `out` is in, when there are any: the
/// README with its example rendered from the records, and the reference in `docs/` as it stands
/// (so that their links are checked with the matrix's).
fn repository_pages(records: &Path, out: &Path) -> Result<Vec<(PathBuf, String)>> {
    let matrices = out.parent().unwrap_or(Path::new(""));
    if matrices.file_name().is_none_or(|name| name != "matrices") {
        return Ok(Vec::new());
    }
    let root = matrices.parent().unwrap_or(Path::new(""));
    let readme = root.join("README.md");
    let Ok(text) = std::fs::read_to_string(&readme) else { return Ok(Vec::new()) };
    let mut pages = vec![(readme, with_example(&text, records)?)];
    let docs = root.join("docs");
    let mut names: Vec<PathBuf> =
        std::fs::read_dir(&docs).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "md")).collect()).unwrap_or_default();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let text = with_profiles(&text, &root.join("fixtures/clients"))?;
        pages.push((path, text));
    }
    Ok(pages)
}

/// A block of a page the matrix commands make: what stands between `<!-- NAME ARGS -->` (its line)
/// and `<!-- /NAME -->`, replaced by `make(ARGS)`. A page without the block is left as it is.
fn with_block(text: &str, name: &str, make: impl FnOnce(&str) -> Result<String>) -> Result<String> {
    let opens = format!("<!-- {name}");
    let Some(start) = text.find(&opens) else { return Ok(text.to_string()) };
    let (args, _) = text[start + opens.len()..].split_once(" -->\n").ok_or_else(|| anyhow::anyhow!("the block {name} opens with no ` -->` ending its line"))?;
    let inner = start + opens.len() + args.len() + " -->\n".len();
    let closes = format!("<!-- /{name} -->");
    let end = text[inner..].find(&closes).map(|i| inner + i).ok_or_else(|| anyhow::anyhow!("the block {name} has no closing {closes}"))?;
    Ok(format!("{}{}{}", &text[..inner], make(args.trim_start_matches(':').trim())?, &text[end..]))
}

/// `text` with its table of profiled clients (the block `profiles`) made again from the
/// profiles in `dir`: a client's name and pin live in its profile only.
fn with_profiles(text: &str, dir: &Path) -> Result<String> {
    with_block(text, "profiles", |_| {
        let profiles = profile::load_all(dir).map_err(crate::exit::bad_input_from)?;
        let mut table = String::from("| profile | pinned | from | model dialect | how it is run |\n|---|---|---|---|---|\n");
        for p in &profiles {
            let from = match (&p.install.npm, &p.install.pypi, &p.install.shares) {
                (_, _, Some(other)) => format!("{other}'s install"),
                (Some(package), _, _) => format!("npm `{package}`"),
                (None, Some(package), _) => format!("PyPI `{package}`{}", p.install.python.as_ref().map(|v| format!(", Python {v}")).unwrap_or_default()),
                (None, None, None) => "-".to_string(),
            };
            let dialect = p.dialect.map_or("none".to_string(), |d| d.title().to_string());
            table.push_str(&format!(
                "| [`{}`](../fixtures/clients/{}.toml) | {} | {from} | {dialect} | {} |\n",
                p.name,
                p.name,
                p.install.version,
                p.description.replace('|', "\\|")
            ));
        }
        Ok(table)
    })
}

/// `text` with its `which` example (the block `which-example: ITEMS`) rendered again from `records`.
fn with_example(text: &str, records: &Path) -> Result<String> {
    with_block(text, "which-example", |items| {
        let items: Vec<&str> = items.split_whitespace().collect();
        Ok(format!("```text\n{}```\n", super::which::example(&items, records, EXAMPLE_WIDTH)?))
    })
}

/// Where the client pages of `out` (`MATRIX.md`) live.
fn clients_dir(out: &Path) -> PathBuf {
    out.parent().unwrap_or(Path::new("")).join(render::markdown::CLIENTS_DIR)
}

/// The client pages present beside `out` that `documents` does not produce (a client gone).
fn stale_pages(out: &Path, documents: &[(PathBuf, String)]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(clients_dir(out)) else { return Vec::new() };
    let mut stale: Vec<PathBuf> =
        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "md") && !documents.iter().any(|(d, _)| d == p)).collect();
    stale.sort();
    stale
}

/// Writes `MATRIX.md`, the client pages and the README's example, and removes the pages of
/// clients no longer on record; returns how many client pages there are.
pub fn write_documents(records: &Path, out: &Path) -> Result<usize> {
    let documents = documents(records, out)?;
    for page in stale_pages(out, &documents) {
        std::fs::remove_file(&page).map_err(|e| anyhow::anyhow!("cannot remove {}: {e}", page.display()))?;
    }
    // Where the documents go is the user's choice: a place that cannot be written is bad input.
    for (path, text) in &documents {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| crate::exit::bad_input(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(path, text).map_err(|e| crate::exit::bad_input(format!("cannot write {}: {e}", path.display())))?;
    }
    let pages = clients_dir(out);
    Ok(documents.iter().filter(|(path, _)| path.starts_with(&pages)).count())
}

/// What `matrix check` finds: documents that differ from what the records produce, pages of
/// clients no longer on record, links that do not resolve, and documents over their size.
fn check_documents(records: &Path, out: &Path) -> Result<Vec<String>> {
    let documents = documents(records, out)?;
    let mut problems = Vec::new();
    for (path, text) in &documents {
        match std::fs::read_to_string(path) {
            Ok(actual) if &actual == text => {}
            Ok(_) => problems.push(format!("{} differs from what {} produces: run `cargo run -- matrix render`", path.display(), records.display())),
            Err(_) => problems.push(format!("{} is missing: run `cargo run -- matrix render`", path.display())),
        }
    }
    for page in stale_pages(out, &documents) {
        problems.push(format!("{} is the page of a client no longer on record: run `cargo run -- matrix render`", page.display()));
    }
    for file in records::uncompressed(records) {
        problems.push(format!("{} is stored uncompressed: run `cargo run -- matrix compact`", file.display()));
    }
    problems.extend(render::md_links::broken(&documents));
    for (path, text) in &documents {
        let limit = if path == out { render::markdown::MATRIX_MAX_BYTES } else { render::markdown::CLIENT_PAGE_MAX_BYTES };
        if text.len() > limit {
            problems.push(format!("{} is {} bytes, over its {limit}", path.display(), text.len()));
        }
    }
    Ok(problems)
}

fn load_records(path: &Path) -> Result<Vec<Located>> {
    records::load(path).map_err(crate::exit::bad_input_from)
}

/// Runs one `matrix` command; returns the exit code.
pub async fn run(command: MatrixCommand, server_exe: PathBuf) -> Result<u8> {
    match command {
        MatrixCommand::Render { records, out, format } => {
            // The exports keep every version on record; the matrix shows each client's newest.
            let all = load_records(&records)?;
            let plain: Vec<&Record> = all.iter().map(|l| &l.record).collect();
            let located = records::newest_only(&all);
            match format {
                MatrixFormat::Markdown => {
                    let pages = write_documents(&records, &out)?;
                    eprintln!("mcp-client-probe: wrote {}, {} and {pages} client pages ({} records)", out.display(), render::markdown::PROBES_FILE, located.len());
                }
                MatrixFormat::Table => {
                    let clients = crate::features::by_client(&matrix::from_records(&located, ""));
                    crate::out_raw!("{}", render::features_table::terminal(&clients, super::terminal_width()));
                }
                MatrixFormat::Json => crate::out!("{}", render::json(&matrix::from_records(&located, ""))),
                MatrixFormat::Canimcp => crate::out!("{}", serde_json::to_string_pretty(&render::exports::canimcp(&plain))?),
                MatrixFormat::Declared => crate::out!("{}", serde_json::to_string_pretty(&render::exports::declared(&plain))?),
            }
            Ok(crate::exit::OK)
        }
        MatrixCommand::Check { records, matrix } => {
            let problems = check_documents(&records, &matrix)?;
            if problems.is_empty() {
                crate::out!("{} and its client pages are up to date, their links resolve", matrix.display());
                Ok(crate::exit::OK)
            } else {
                for problem in &problems {
                    crate::out!("{problem}");
                }
                Ok(crate::exit::MISMATCH)
            }
        }
        MatrixCommand::Diff { before, after, format, fail_on_regression, hide_new } => {
            let (a, b) = (load_records(&before)?, load_records(&after)?);
            for (side, records) in [(&before, &a), (&after, &b)] {
                if records.is_empty() {
                    return Err(crate::exit::bad_input(format!("no records under {}: give a record file or a records directory", side.display())));
                }
            }
            let (a, b): (Vec<_>, Vec<_>) = (a.iter().map(|l| &l.record).collect(), b.iter().map(|l| &l.record).collect());
            let mut lines = diff::diff(&a, &b);
            if hide_new {
                let new = lines.iter().filter(|l| l.change == diff::Change::New).count();
                lines.retain(|l| l.change != diff::Change::New);
                crate::progress!("{new} verdicts only the later run has are left out (--hide-new)");
            }
            match format {
                Format::Json => crate::out!("{}", serde_json::to_string_pretty(&lines)?),
                Format::Table => crate::out_raw!("{}", diff::text(&lines)),
            }
            if diff::lined_up(&a, &b) == 0 {
                let clients = |side: &[&crate::records::Record]| {
                    let mut names: Vec<String> = side.iter().map(|r| format!("{} {}", r.client, r.column_transport())).collect();
                    names.sort();
                    names.dedup();
                    names.join(", ")
                };
                eprintln!(
                    "mcp-client-probe: nothing lined up: {} has {} and {} has {}; no verdict is on both sides, so every line is new or removed",
                    before.display(),
                    clients(&a),
                    after.display(),
                    clients(&b)
                );
            }
            let regressed = lines.iter().filter(|l| l.change == diff::Change::Regressed).count();
            if fail_on_regression && regressed > 0 {
                eprintln!("mcp-client-probe: {regressed} verdicts regressed");
                return Ok(crate::exit::MISMATCH);
            }
            Ok(crate::exit::OK)
        }
        MatrixCommand::Compact { records } => compact(&records),
        MatrixCommand::Rejudge { check, records, out } => rejudge(check, &records, &out),
        MatrixCommand::Site { records, out, check } => super::site::run(&records, &out, check),
        MatrixCommand::Refresh { check, records, out, clients, changed_since, rotate, latest, jobs, keep_journals } => {
            let Some(clients) = select_clients(clients, changed_since.as_deref(), rotate)? else {
                crate::out!("nothing to re-probe: no client changed and none is in rotation");
                return Ok(crate::exit::OK);
            };
            if latest {
                return refresh_latest(&records, &out, &clients, jobs, &server_exe).await;
            }
            refresh(check, &records, &out, &clients, jobs, keep_journals.as_deref(), &server_exe).await
        }
        MatrixCommand::Schema { out, check } => {
            let schema = records::schema();
            if check {
                let current = std::fs::read_to_string(&out).unwrap_or_default();
                if current != schema {
                    crate::out!("{} is stale: run `cargo run -- matrix schema`", out.display());
                    return Ok(crate::exit::MISMATCH);
                }
                crate::out!("{} is up to date", out.display());
                return Ok(crate::exit::OK);
            }
            if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| crate::exit::bad_input(format!("cannot create {}: {e}", parent.display())))?;
            }
            std::fs::write(&out, schema).map_err(|e| crate::exit::bad_input(format!("cannot write {}: {e}", out.display())))?;
            Ok(crate::exit::OK)
        }
    }
}

/// `refresh --latest`: each chosen client's newest release probed beside its pinned one, the pin
/// moved to it, and what changed printed. A release that does not install, start or open a
/// session in any run is a finding: its records are not kept and its pin stays.
async fn refresh_latest(records: &Path, out: &Path, only: &[String], jobs: usize, server_exe: &Path) -> Result<u8> {
    let dir = profile::default_dir();
    let chosen = profile::chosen(&dir, only).map_err(crate::exit::bad_input_from)?;
    let newest = crate::clients::registry::latest_of_each(&chosen).await.map_err(|e| crate::exit::Exit { code: crate::exit::HARNESS, message: e.to_string() })?;
    let mut moving: Vec<(profile::Profile, String)> = Vec::new();
    for (profile, latest) in chosen.into_iter().zip(newest) {
        if latest.version == profile.install.version {
            crate::out!("{}: {} is the newest {} offers", profile.name, profile.install.version, latest.registry);
            continue;
        }
        let old = profile.install.version.clone();
        let mut moved = profile;
        moved.install.version = latest.version;
        moving.push((moved, old));
    }
    if moving.is_empty() {
        crate::out!("every pin is the newest its registry offers");
        return Ok(crate::exit::OK);
    }
    let mut findings: Vec<String> = Vec::new();
    let mut targets: Vec<(client::Target, String)> = Vec::new();
    for (profile, old) in moving {
        match install::ensure_installed(&profile).await {
            Ok(installed) => targets.push((client::Target { profile, executable: installed.executable, version: installed.version }, old)),
            Err(e) => findings.push(format!("{}@{} does not install or start as its profile says ({e}); the pin stays at {old}", profile.name, profile.install.version)),
        }
    }
    let staging = records::Staging::new(records)?;
    let passes: Vec<(&client::Target, Transport)> = targets.iter().flat_map(|(target, _)| [Transport::Stdio, Transport::Http].map(|t| (target, t))).collect();
    probe_passes(&passes, &crate::harness::slots::Slots::new(jobs), staging.path(), server_exe).await?;
    let mut kept = Vec::new();
    for (target, old) in &targets {
        let staged = staging.record_dir(&target.profile.name, &target.version);
        let fresh = load_records(&staged)?;
        if fresh.iter().all(|l| l.record.protocol_version.is_none()) {
            // What the client said, from its standard run's output.
            let said = ["stdio.stdout.txt", "stdio.stderr.txt", "http.stdout.txt", "http.stderr.txt"]
                .iter()
                .filter_map(|name| probe_server::journal::stored::read_text(&staged.join(name)).ok())
                .find_map(|text| {
                    text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with("===")).map(|l| format!("; it said: {:?}", l.chars().take(200).collect::<String>()))
                })
                .unwrap_or_default();
            findings.push(format!(
                "{}@{} opened no session in any run (its configuration may no longer be accepted){said}; its records are not kept and the pin stays at {old}",
                target.profile.name, target.version
            ));
            std::fs::remove_dir_all(&staged)?;
            continue;
        }
        kept.push((target, old));
    }
    staging.commit()?;
    for (target, _) in &kept {
        records::compress_dir(&records::record_dir(records, &target.profile.name, &target.version))?;
    }
    for (target, old) in kept {
        let name = &target.profile.name;
        let path = dir.join(format!("{name}.toml"));
        let text = std::fs::read_to_string(&path)?;
        let moved = crate::clients::profile::move_pin(&text, old, &target.version)
            .ok_or_else(|| anyhow::anyhow!("{}: no `version = \"{old}\"` under [install] to move", path.display()))?;
        std::fs::write(&path, moved)?;
        let before = load_records(&records::record_dir(records, name, old))?;
        let after = load_records(&records::record_dir(records, name, &target.version))?;
        let lines = diff::diff(&before.iter().map(|l| &l.record).collect::<Vec<_>>(), &after.iter().map(|l| &l.record).collect::<Vec<_>>());
        crate::out!("{name}: {old} -> {} (the pin in {} moved)", target.version, path.display());
        crate::out_raw!("{}", diff::text(&lines));
    }
    write_documents(records, out)?;
    for finding in &findings {
        crate::out!("finding: {finding}");
    }
    Ok(crate::exit::OK)
}

/// The clients a refresh re-probes: `--client`'s, those changed since a revision, and those in
/// rotation; every profile when none of the three was asked for. `None`: a selection was asked for
/// and holds nobody.
fn select_clients(named: Vec<String>, changed_since: Option<&str>, rotate: Option<usize>) -> Result<Option<Vec<String>>> {
    if changed_since.is_none() && rotate.is_none() {
        return Ok(Some(named));
    }
    let known: Vec<String> = profile::load_all(&profile::default_dir()).map_err(crate::exit::bad_input_from)?.into_iter().map(|p| p.name).collect();
    let mut chosen: Vec<(String, &str)> = named.into_iter().map(|n| (n, "named")).collect();
    let mut add = |name: String, why: &'static str| {
        if !chosen.iter().any(|(n, _)| *n == name) {
            chosen.push((name, why));
        }
    };
    if let Some(since) = changed_since {
        for name in records::selection::changed_since(Path::new("."), since, &known).map_err(crate::exit::bad_input_from)? {
            add(name, "changed");
        }
    }
    if let Some(count) = rotate {
        let seed = records::selection::head_commit(Path::new(".")).map_err(crate::exit::bad_input_from)?;
        for name in records::selection::rotation(&known, &seed, count) {
            add(name, "in rotation");
        }
    }
    if chosen.is_empty() {
        return Ok(None);
    }
    let listed: Vec<String> = chosen.iter().map(|(name, why)| format!("{name} ({why})")).collect();
    crate::out!("re-probing {} of {} clients: {}", chosen.len(), known.len(), listed.join(", "));
    Ok(Some(chosen.into_iter().map(|(name, _)| name).collect()))
}

/// `matrix compact`: every model journal in the records' directories stored compacted.
fn compact(records: &Path) -> Result<u8> {
    let located = load_records(records)?;
    let base = records::base_of(records);
    let dirs: std::collections::BTreeSet<PathBuf> = located.iter().filter_map(|l| base.join(&l.relative).parent().map(Path::to_path_buf)).collect();
    let (mut count, mut before, mut after) = (0usize, 0u64, 0u64);
    for dir in &dirs {
        let mut journals: Vec<PathBuf> = std::fs::read_dir(dir)?.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.to_string_lossy().ends_with(".model.jsonl")).collect();
        journals.sort();
        for journal in journals {
            let (was, is) = probe_server::journal::compact_file(&journal).map_err(|e| crate::exit::bad_input(format!("{}: {e}", journal.display())))?;
            (count, before, after) = (count + 1, before + was, after + is);
        }
    }
    crate::out!("{count} model journals: {before} bytes before, {after} after");
    // Then every journal and output kept compressed at rest.
    let (mut files, mut before, mut after) = (0usize, 0u64, 0u64);
    for dir in &dirs {
        let (n, was, is) = records::compress_dir(dir).map_err(|e| anyhow::anyhow!("cannot compress the files of {}: {e}", dir.display()))?;
        (files, before, after) = (files + n, before + was, after + is);
    }
    crate::out!("{files} files compressed: {before} bytes before, {after} after");
    Ok(crate::exit::OK)
}

/// `matrix rejudge`: every record's journals judged again; the changed verdicts listed, and
/// (without `check`) written back, with MATRIX.md rendered again when the records are the
/// committed ones.
fn rejudge(check: bool, records: &Path, out: &Path) -> Result<u8> {
    let located = load_records(records)?;
    let base = records::base_of(records);
    let (mut changed, mut differing, mut compared) = (0usize, 0usize, 0usize);
    for l in &located {
        let path = base.join(&l.relative);
        let dir = path.parent().unwrap_or(Path::new("."));
        let fresh = records::rejudge::rejudge(dir, &l.record).map_err(crate::exit::bad_input_from)?;
        let r = &l.record;
        compared += fresh.len();
        let again = Record { verdicts: fresh, ..r.clone() };
        let mut any = false;
        for (key, difference) in compare(&keyed([r]), &keyed([&again]), Same::OutcomeAndDetail) {
            any = true;
            // A verdict of a probe added since, or one that changed outcome or declaration, is
            // one the committed records do not show; changed words alone are a detail.
            let essential = difference.before().zip(difference.after()).is_none_or(|(before, after)| !COMPARED.holds(before.verdict, after.verdict));
            differing += usize::from(essential);
            let label = if essential { "DIFFERS" } else { "DETAIL" };
            let said = |p: Option<Placed>| p.map_or("-/-".to_string(), |p| format!("{}/{}", p.verdict.outcome.label(), p.verdict.declared.label()));
            let detail = difference.after().map_or(String::new(), |a| a.verdict.detail.clone());
            crate::out!("{label} {key}: {} -> {} ({detail})", said(difference.before()), said(difference.after()));
        }
        if any {
            changed += 1;
            if !check {
                records::write(&again, dir).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
            }
        }
    }
    crate::out!("{compared} verdicts judged again in {} records: {differing} outcomes or declarations differ; {changed} records changed", located.len());
    if check {
        return Ok(if differing == 0 { crate::exit::OK } else { crate::exit::MISMATCH });
    }
    if changed > 0 && records == Path::new(crate::cli::COMMITTED_RECORDS) {
        write_documents(records, out)?;
        eprintln!("mcp-client-probe: {} rendered again", out.display());
    }
    Ok(crate::exit::OK)
}

async fn refresh(check: bool, records: &Path, out: &Path, only: &[String], jobs: usize, keep: Option<&Path>, server_exe: &Path) -> Result<u8> {
    let profiles = profile::chosen(&profile::default_dir(), only).map_err(crate::exit::bad_input_from)?;
    if let Some(dir) = keep {
        empty_or_new(dir)?;
    }
    let scratch = tempfile::tempdir()?;
    // Fresh records are staged and moved into place when all are done; under --check they are
    // only compared, in a scratch directory or the one the journals are kept in.
    let staging = if check { None } else { Some(records::Staging::new(records)?) };
    let target_root = match (&staging, keep) {
        (Some(staging), _) => staging.path().to_path_buf(),
        (None, Some(dir)) => dir.to_path_buf(),
        (None, None) => scratch.path().to_path_buf(),
    };
    let transports = [Transport::Stdio, Transport::Http];
    let mut targets = Vec::new();
    for profile in &profiles {
        let installed = install::ensure_installed(profile).await?;
        targets.push(client::Target { profile: profile.clone(), executable: installed.executable, version: installed.version.clone() });
    }
    // Every client over every transport at once, as many runs as `jobs` allows.
    let all_slots = crate::harness::slots::Slots::new(jobs);
    let passes: Vec<(&client::Target, Transport)> = targets.iter().flat_map(|target| transports.map(|transport| (target, transport))).collect();
    probe_passes(&passes, &all_slots, &target_root, server_exe).await?;
    if let Some(staging) = staging {
        staging.commit()?;
        for target in &targets {
            records::compress_dir(&records::record_dir(records, &target.profile.name, &target.version))?;
        }
        write_documents(records, out)?;
        eprintln!("mcp-client-probe: records rewritten under {}; {} rendered", records.display(), out.display());
        return Ok(crate::exit::OK);
    }
    let fresh_records = load_records(&target_root)?;
    let fresh = keyed(fresh_records.iter().map(|l| &l.record));
    // Older versions kept beside the pinned one are history, not what this check re-observes.
    let pinned = |l: &Located| targets.iter().any(|t| t.profile.name == l.record.client && t.version == l.record.version);
    let committed_records: Vec<Located> = load_records(records)?.into_iter().filter(pinned).collect();
    let committed = keyed(committed_records.iter().map(|l| &l.record));
    let first = differing(&fresh, &committed);
    // What the judges said of each differing verdict, the last run made again's last.
    let mut observed = details(&fresh, &first);
    // A verdict can hang on a race inside a client (two of its own timers of the same length,
    // which even a quiet machine tips either way now and then): the runs whose verdicts differed
    // are made again, one at a time, up to AGAIN times; a verdict differs only if no run made
    // again shows the committed one. One that did is listed as unstable, with the try.
    let mut unsettled = first.clone();
    let mut settled_on: BTreeMap<VerdictKey, String> = BTreeMap::new();
    for attempt in 1..=AGAIN {
        if unsettled.is_empty() {
            break;
        }
        let again = runs_to_make_again(&unsettled, &fresh_records, &committed_records);
        let runs: usize = again.iter().map(|(_, variants)| variants.len()).sum();
        crate::progress!("try {attempt} of {AGAIN}: making {runs} run(s) again one at a time, where {} verdict(s) differ", unsettled.len());
        let scratch = tempfile::tempdir()?;
        let again_root = keep.map_or_else(|| scratch.path().to_path_buf(), |dir| dir.join(format!("again-{attempt}")));
        let alone = crate::harness::slots::Slots::new(1);
        let mut again_seen: BTreeMap<VerdictKey, probe_server::Verdict> = BTreeMap::new();
        crate::progress::begin(0, "refresh, again");
        // Each pass's record and journals are named after the pass, so passes share a directory.
        for ((client, version, pass), variants) in &again {
            let Some(target) = targets.iter().find(|t| &t.profile.name == client && &t.version == version) else { continue };
            let slots = client::RunSlots::new(alone.clone(), target.profile.launch.max_parallel);
            let dir = records::record_dir(&again_root, client, version);
            // A variant the pass does not run has nothing to show again: its verdicts stay differing.
            let record = match client::probe_variants(target, *pass, variants, &slots, server_exe, &dir).await {
                Err(crate::runs::session::RunError::NothingToRun { .. }) => continue,
                made => made?,
            };
            let made = keyed([&record]);
            observed.extend(details(&made, &first));
            again_seen.extend(made.into_iter().map(|(key, placed)| (key, placed.verdict.clone())));
        }
        crate::progress::end();
        unsettled.retain(|key, _| {
            let matched = again_seen.get(key).zip(committed.get(key)).is_some_and(|(seen, then)| COMPARED.holds(seen, then.verdict));
            if matched {
                settled_on.insert(key.clone(), format!("the committed verdict when its run was made again alone (try {attempt} of {AGAIN})"));
            }
            !matched
        });
    }
    let mut differences = 0;
    for (key, difference) in &first {
        let said = observed.get(key).map(|detail| format!(" (the judge: {detail})")).unwrap_or_default();
        match settled_on.get(key) {
            Some(settled) => crate::out!("UNSTABLE {key}: {difference} once, {settled}"),
            None => {
                differences += 1;
                crate::out!("DIFFERS {key}: {difference}{said}");
            }
        }
    }
    crate::out!("{} verdicts compared, {differences} differ", fresh.len());
    if let Some(dir) = keep {
        crate::out!("the fresh records and journals are kept in {}", dir.display());
    }
    Ok(if differences == 0 { crate::exit::OK } else { crate::exit::MISMATCH })
}

/// What the judge said of each verdict of `verdicts` whose place is in `wanted` (its detail).
fn details<V>(verdicts: &BTreeMap<VerdictKey, Placed>, wanted: &BTreeMap<VerdictKey, V>) -> BTreeMap<VerdictKey, String> {
    verdicts.iter().filter(|(key, _)| wanted.contains_key(*key)).map(|(key, p)| (key.clone(), p.verdict.detail.clone())).collect()
}

/// Refuses a directory to keep journals in that already holds something (nothing is
/// overwritten) or that cannot be written, as `probe --keep-journals` does.
fn empty_or_new(dir: &Path) -> Result<()> {
    if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(crate::exit::bad_input(format!("{} is not empty: give a new or empty directory to keep the journals in", dir.display())));
    }
    super::probe::check_writable(dir)
}

/// What `refresh --check` compares of a verdict at its place.
const COMPARED: Same = Same::OutcomeAndDeclared;

/// How many times `refresh --check` makes a differing verdict's runs again before it says the
/// verdict differs. Alone on a quiet machine, fast-agent 0.10.48 fell back after an unanswered
/// server/discover in 8 of 9 starts (its own 10 s startup budget won the ninth).
const AGAIN: usize = 3;

/// A pass of a client: (client, version, pass).
type PassKey = (String, String, client::Pass);

/// Per pass where a verdict differed (`differences`), the server variants to run again: each
/// differing verdict's own (as the fresh or the committed record says) and its precondition's,
/// whose no would turn the verdict to n/a.
fn runs_to_make_again(differences: &BTreeMap<VerdictKey, String>, fresh: &[Located], committed: &[Located]) -> Vec<(PassKey, BTreeSet<Variant>)> {
    let mut again: BTreeMap<(String, String, String), (client::Pass, BTreeSet<Variant>)> = BTreeMap::new();
    for VerdictKey { client, version, column, probe } in differences.keys() {
        let of_pass = |l: &&Located| &l.record.client == client && &l.record.version == version && &l.record.column_transport() == column;
        let Some(record) = fresh.iter().find(of_pass).or_else(|| committed.iter().find(of_pass)).map(|l| &l.record) else { continue };
        let pass = client::Pass { transport: pass_of(&record.transport), eras: record.server_eras };
        let entry = again.entry((client.clone(), version.clone(), column.clone())).or_insert_with(|| (pass, BTreeSet::new()));
        let judged = registry::find(probe);
        let precondition = judged.and_then(|p| p.precondition()).and_then(registry::find);
        entry.1.extend(judged.into_iter().chain(precondition).map(|p| p.variant()));
    }
    again.into_iter().map(|((client, version, _), (pass, variants))| ((client, version, pass), variants)).collect()
}

/// The verdicts that are not as committed, with how they differ.
fn differing(fresh: &BTreeMap<VerdictKey, Placed>, committed: &BTreeMap<VerdictKey, Placed>) -> BTreeMap<VerdictKey, String> {
    let words = |p: Placed| (p.verdict.outcome.label(), p.verdict.declared.label());
    compare(committed, fresh, COMPARED)
        .into_iter()
        .map(|(key, difference)| {
            let said = match difference {
                Difference::Changed { before, after } => {
                    let ((then_outcome, then_declared), (now_outcome, now_declared)) = (words(before), words(after));
                    format!("committed {then_outcome}/{then_declared}, observed {now_outcome}/{now_declared}")
                }
                Difference::Gone { .. } => "committed but not observed".to_string(),
                Difference::New { after } => format!("no committed record (observed {})", after.verdict.outcome.label()),
            };
            (key, said)
        })
        .collect()
}

/// The transport of the pass that makes a record of `column` (`http`, `http · legacy only`).
fn pass_of(column: &str) -> Transport {
    if column.starts_with(Transport::Stdio.as_str()) {
        Transport::Stdio
    } else {
        Transport::Http
    }
}

/// Probes each client over each transport in `passes`, all at once within `all` (and each
/// client's own limit, shared by its passes), writing the records under `root`.
async fn probe_passes(passes: &[(&client::Target, Transport)], all: &std::sync::Arc<crate::harness::slots::Slots>, root: &Path, server_exe: &Path) -> Result<()> {
    let mut own: std::collections::HashMap<&str, client::RunSlots> = std::collections::HashMap::new();
    for (target, _) in passes {
        own.entry(target.profile.name.as_str()).or_insert_with(|| client::RunSlots::new(all.clone(), target.profile.launch.max_parallel));
    }
    let total = passes.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let runs = passes.iter().map(|&(target, transport)| {
        let slots = own[target.profile.name.as_str()].clone();
        let dir = records::record_dir(root, &target.profile.name, &target.version);
        let done = &done;
        async move {
            client::probe_all(target, transport, crate::cli::RunKinds::All, None, &slots, server_exe, &dir).await?;
            let finished = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            crate::progress!("[{finished}/{total}] {}@{} over {} done", target.profile.name, target.version, transport.as_str());
            anyhow::Ok(())
        }
    });
    crate::progress::begin(0, "refresh");
    let done = futures::future::try_join_all(runs).await;
    crate::progress::end();
    done.map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differing_lists_changed_missing_and_unrecorded_verdicts() {
        use probe_server::probe::Outcome::{No, Yes};
        let committed = crate::records::compare::test_record("1.0", "http", &[("a", Yes, ""), ("b", No, ""), ("c", Yes, "")]);
        let mut fresh = crate::records::compare::test_record("1.0", "http", &[("a", Yes, "other words"), ("b", Yes, ""), ("d", No, "")]);
        let found = differing(&keyed([&fresh]), &keyed([&committed]));
        assert_eq!(found.keys().map(|k| k.probe.as_str()).collect::<Vec<_>>(), ["b", "c", "d"]);
        let said = |probe: &str| found.iter().find(|(k, _)| k.probe == probe).map(|(_, said)| said.clone()).unwrap();
        assert_eq!(said("b"), "committed no/-, observed yes/-");
        assert_eq!(said("c"), "committed but not observed");
        assert_eq!(said("d"), "no committed record (observed no)");
        // A declaration that changed is a difference too; the judge's words are not.
        fresh.verdicts[0].declared = probe_server::probe::Declaration::Declared;
        assert!(differing(&keyed([&fresh]), &keyed([&committed])).keys().any(|k| k.probe == "a"));
    }

    #[test]
    fn a_column_names_the_pass_that_made_it() {
        assert_eq!(pass_of("stdio"), Transport::Stdio);
        assert_eq!(pass_of("stdio · legacy only"), Transport::Stdio);
        assert_eq!(pass_of("http"), Transport::Http);
        assert_eq!(pass_of("http · 2026-07-28 only"), Transport::Http);
    }

    #[test]
    fn a_differing_verdict_is_made_again_with_its_own_variant_and_its_preconditions() {
        let records = Path::new(env!("CARGO_MANIFEST_DIR")).join("../matrices/records/fast-agent/0.10.48");
        let committed = load_records(&records).expect("the committed fast-agent records load");
        let key = |column: &str, probe: &str| VerdictKey { client: "fast-agent".into(), version: "0.10.48".into(), column: column.into(), probe: probe.into() };
        let differences: BTreeMap<_, _> =
            [(key("http", "connection.discover_timeout_fallback"), String::new()), (key("http · legacy-only server", "affordances.resources_gated"), String::new())].into();
        let again = runs_to_make_again(&differences, &[], &committed);
        let passes: Vec<(client::Pass, Vec<Variant>)> = again.iter().map(|((_, _, pass), variants)| (*pass, variants.iter().copied().collect())).collect();
        assert_eq!(
            passes,
            [
                (client::Pass::dual(Transport::Http), vec![Variant::DiscoverUnanswered]),
                (client::Pass { transport: Transport::Http, eras: probe_server::EraPolicy::Legacy }, vec![Variant::Standard, Variant::NoResources]),
            ]
        );
    }
}
