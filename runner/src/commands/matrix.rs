//! The `matrix` commands: render, check, diff, refresh and schema, over the records directory.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cli::{Format, MatrixCommand, MatrixFormat};
use crate::records::{self, Located, Record};
use crate::{clients::install, clients::profile, records::diff, records::findings, records::matrix, render, session::client};

/// The records directory as the matrix document links to it.
fn link_prefix(records: &Path, out: &Path) -> String {
    let base = out.parent().unwrap_or(Path::new("."));
    records.strip_prefix(base).map_or_else(|_| records.display().to_string(), |p| p.display().to_string())
}

/// The markdown document for the records under `records`, as it would be written to `out`.
pub fn markdown(records: &Path, out: &Path) -> Result<String> {
    let located = records::newest_only(&load_records(records)?);
    let matrix = matrix::from_records(&located, &link_prefix(records, out));
    let plain: Vec<&Record> = located.iter().map(|l| &l.record).collect();
    Ok(render::markdown::document(&matrix, &findings::findings(&plain)))
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
                    if let Some(parent) = out.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    std::fs::write(&out, markdown(&records, &out)?)?;
                    eprintln!("mcp-client-probe: wrote {} ({} records)", out.display(), located.len());
                }
                MatrixFormat::Table => crate::out!("{}", render::terminal(&matrix::from_records(&located, ""), None)),
                MatrixFormat::Json => crate::out!("{}", render::json(&matrix::from_records(&located, ""))),
                MatrixFormat::Canimcp => crate::out!("{}", serde_json::to_string_pretty(&render::exports::canimcp(&plain))?),
                MatrixFormat::Declared => crate::out!("{}", serde_json::to_string_pretty(&render::exports::declared(&plain))?),
            }
            Ok(crate::exit::OK)
        }
        MatrixCommand::Check { records, matrix } => {
            let expected = markdown(&records, &matrix)?;
            let actual = std::fs::read_to_string(&matrix).unwrap_or_default();
            if expected == actual {
                crate::out!("{} is up to date", matrix.display());
                Ok(crate::exit::OK)
            } else {
                crate::out!("{} differs from what {} produces: run `cargo run -- matrix render`", matrix.display(), records.display());
                Ok(crate::exit::MISMATCH)
            }
        }
        MatrixCommand::Diff { before, after, format, fail_on_regression } => {
            let (a, b) = (load_records(&before)?, load_records(&after)?);
            for (side, records) in [(&before, &a), (&after, &b)] {
                if records.is_empty() {
                    return Err(crate::exit::bad_input(format!("no records under {}: give a record file or a records directory", side.display())));
                }
            }
            let lines = diff::diff(&a.iter().map(|l| &l.record).collect::<Vec<_>>(), &b.iter().map(|l| &l.record).collect::<Vec<_>>());
            match format {
                Format::Json => crate::out!("{}", serde_json::to_string_pretty(&lines)?),
                Format::Table => crate::out_raw!("{}", diff::text(&lines)),
            }
            let regressed = lines.iter().filter(|l| l.change == diff::Change::Regressed).count();
            if fail_on_regression && regressed > 0 {
                eprintln!("mcp-client-probe: {regressed} verdicts regressed");
                return Ok(crate::exit::MISMATCH);
            }
            Ok(crate::exit::OK)
        }
        MatrixCommand::Compact { records } => compact(&records),
        MatrixCommand::Site { records, out, check } => super::site::run(&records, &out, check),
        MatrixCommand::Refresh { check, records, out, clients, jobs } => refresh(check, &records, &out, &clients, jobs, &server_exe).await,
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
            if let Some(parent) = out.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&out, schema)?;
            Ok(crate::exit::OK)
        }
    }
}

/// `matrix compact`: every model journal in the records' directories stored compacted.
fn compact(records: &Path) -> Result<u8> {
    let located = load_records(records)?;
    let base = if records.is_file() { records.parent().unwrap_or(Path::new(".")) } else { records };
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
    Ok(crate::exit::OK)
}

/// (outcome, declared) per (client, transport, probe): what `--check` compares.
fn essentials(records: &[Located]) -> std::collections::BTreeMap<(String, String, String, String), (String, String)> {
    records
        .iter()
        .flat_map(|l| {
            let r = &l.record;
            r.verdicts
                .iter()
                .map(move |v| ((r.client.clone(), r.version.clone(), r.column_transport(), v.probe.clone()), (v.outcome.label().to_string(), v.declared.label().to_string())))
        })
        .collect()
}

async fn refresh(check: bool, records: &Path, out: &Path, only: &[String], jobs: usize, server_exe: &Path) -> Result<u8> {
    let all = profile::load_all(&profile::default_dir()).map_err(crate::exit::bad_input_from)?;
    if let Some(unknown) = only.iter().find(|name| !all.iter().any(|p| &p.name == *name)) {
        let known: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
        return Err(crate::exit::bad_input(format!("no client profile named {unknown:?} (known: {})", known.join(", "))));
    }
    let profiles: Vec<_> = all.into_iter().filter(|p| only.is_empty() || only.contains(&p.name)).collect();
    let scratch = tempfile::tempdir()?;
    // Fresh records are staged, then compared (--check) or moved into place when all are done.
    let staging = records::Staging::new(if check { scratch.path() } else { records })?;
    let target_root = staging.path().to_path_buf();
    let transports = [crate::session::run::Transport::Stdio, crate::session::run::Transport::Http];
    let mut targets = Vec::new();
    for profile in &profiles {
        let installed = install::ensure_installed(profile).await?;
        targets.push(client::Target { profile: profile.clone(), executable: installed.executable, version: installed.version.clone() });
    }
    // Every client over every transport at once, as many runs as `jobs` allows.
    let all_slots = std::sync::Arc::new(tokio::sync::Semaphore::new(jobs.max(1)));
    let total = targets.len() * transports.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let passes = targets.iter().flat_map(|target| {
        let slots = client::RunSlots::new(all_slots.clone(), &target.profile);
        let dir = records::record_dir(&target_root, &target.profile.name, &target.version);
        let done = &done;
        transports.map(move |transport| {
            let (slots, dir) = (slots.clone(), dir.clone());
            async move {
                client::probe_all(target, transport, crate::cli::RunKinds::All, &slots, server_exe, &dir).await?;
                let finished = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                crate::progress!("[{finished}/{total}] {}@{} over {} done", target.profile.name, target.version, transport.as_str());
                anyhow::Ok(())
            }
        })
    });
    crate::progress::begin(0, "refresh");
    let done = futures::future::try_join_all(passes).await;
    crate::progress::end();
    done?;
    if !check {
        staging.commit()?;
        std::fs::write(out, markdown(records, out)?)?;
        eprintln!("mcp-client-probe: records rewritten under {}; {} rendered", records.display(), out.display());
        return Ok(crate::exit::OK);
    }
    let fresh = essentials(&load_records(&target_root)?);
    // Older versions kept beside the pinned one are history, not what this check re-observes.
    let pinned = |l: &Located| targets.iter().any(|t| t.profile.name == l.record.client && t.version == l.record.version);
    let committed = essentials(&load_records(records)?.into_iter().filter(pinned).collect::<Vec<_>>());
    let mut differences = Vec::new();
    for (key, now) in &fresh {
        match committed.get(key) {
            Some(then) if then == now => {}
            Some(then) => differences.push(format!("{} {} {} {}: committed {}/{}, observed {}/{}", key.0, key.1, key.2, key.3, then.0, then.1, now.0, now.1)),
            None => differences.push(format!("{} {} {} {}: no committed record (observed {})", key.0, key.1, key.2, key.3, now.0)),
        }
    }
    for key in committed.keys().filter(|k| !fresh.contains_key(*k)) {
        differences.push(format!("{} {} {} {}: committed but not observed", key.0, key.1, key.2, key.3));
    }
    for line in &differences {
        crate::out!("DIFFERS {line}");
    }
    crate::out!("{} verdicts compared, {} differ", fresh.len(), differences.len());
    Ok(if differences.is_empty() { crate::exit::OK } else { crate::exit::MISMATCH })
}
