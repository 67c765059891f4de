//! The matrix commands over committed and fixture records: check, diff, render, exports, schema.

use std::path::{Path, PathBuf};

use super::{copy_dir, probe_cmd};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file under the committed records that `wanted` accepts.
fn committed_files(wanted: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let (mut found, mut stack) = (Vec::new(), vec![repo().join("matrices/records")]);
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            // A `.partial-…` directory is a run still writing: not committed.
            if path.is_dir() && !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
                stack.push(path);
            } else if wanted(&path) {
                found.push(path);
            }
        }
    }
    found
}

fn run(args: &[&str]) -> (i32, String) {
    let output = probe_cmd().args(args).output().unwrap();
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    (output.status.code().unwrap_or(-1), String::from_utf8(output.stdout).unwrap())
}

#[test]
fn the_committed_matrix_is_current_and_an_edited_record_makes_check_fail() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("matrices"), dir.path());
    let (records, matrix) = (dir.path().join("records"), dir.path().join("MATRIX.md"));
    let args = |r: &Path, m: &Path| vec!["matrix".to_string(), "check".into(), "--records".into(), r.display().to_string(), "--matrix".into(), m.display().to_string()];
    let check = |r: &Path, m: &Path| {
        let a = args(r, m);
        run(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    assert_eq!(check(&records, &matrix).0, 0, "MATRIX.md on main must match its records");

    // A client page that is gone is found too.
    std::fs::remove_file(dir.path().join("clients/codex.md")).unwrap();
    let (code, out) = check(&records, &matrix);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("clients/codex.md is missing"), "{out}");
    copy_dir(&repo().join("matrices/clients"), &dir.path().join("clients"));
    // So is a journal stored uncompressed.
    let journal = records.join("codex/0.171.0/stdio.journal.jsonl");
    std::fs::write(&journal, probe_server::journal::stored::read_bytes(&journal).unwrap()).unwrap();
    let (code, out) = check(&records, &matrix);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("stdio.journal.jsonl is stored uncompressed"), "{out}");
    std::fs::remove_file(&journal).unwrap();

    let record = records.join("codex/0.171.0/stdio.json");
    let edited = std::fs::read_to_string(&record).unwrap().replacen("\"outcome\": \"yes\"", "\"outcome\": \"partial\"", 1);
    std::fs::write(&record, edited).unwrap();
    let (code, out) = check(&records, &matrix);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("differs"), "{out}");
}

#[test]
fn every_real_client_has_a_dated_column_and_a_verdict_in_every_row() {
    let text = std::fs::read_to_string(repo().join("matrices/MATRIX.md")).unwrap();
    // Every profile is a client with records: the list is the profiles' (a name lives in its
    // profile only), with each one's pin.
    let mut clients: Vec<(String, String)> = std::fs::read_dir(repo().join("fixtures/clients"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let profile: toml::Value = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (profile["name"].as_str().unwrap().to_string(), profile["install"]["version"].as_str().unwrap().to_string())
        })
        .collect();
    clients.sort();
    assert!(clients.len() >= 12, "{clients:?}");
    // The clients table: each client dated, with its runs over stdio and over HTTP.
    for (name, _) in &clients {
        let row = text.lines().find(|l| l.starts_with(&format!("| [{name}](clients/{name}.md) |"))).unwrap_or_else(|| panic!("{name} has no row"));
        assert!(row.contains("](records/") && row.contains("stdio") && row.contains("http"), "{name} over stdio and http: {row}");
        assert!(row.contains("| 2026-"), "{name} dated: {row}");
    }
    // Hosts that chose 2026-07-28 at their pinned version (older ones on record may have spoken
    // the legacy era) have a record against a legacy-only server per transport too.
    let mut modern = 0;
    for (client, pinned) in &clients {
        for transport in ["stdio", "http"] {
            let chosen = std::fs::read_to_string(repo().join(format!("matrices/records/{client}/{pinned}/{transport}.json"))).unwrap();
            if !chosen.contains("\"era\": \"modern\"") {
                continue;
            }
            modern += 1;
            let record = repo().join(format!("matrices/records/{client}/{pinned}/{transport}.legacy-only.json"));
            let text = std::fs::read_to_string(&record).unwrap_or_else(|_| panic!("{} is missing", record.display()));
            assert!(text.contains("\"era\": \"legacy\""), "{}: no legacy-era verdicts", record.display());
        }
    }
    assert!(modern >= 2, "at least one host that chose 2026-07-28 over both transports");
    // The features table first: a row per feature, a column per client (a legacy-only server's
    // runs are part of their client's answer, never a column of their own).
    let first_table: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("| feature |")).take_while(|l| l.starts_with('|')).collect();
    assert_eq!(first_table[0].split(" | ").count() - 1, clients.len(), "{}", first_table[0]);
    assert!(!first_table[0].contains("legacy-only"), "{}", first_table[0]);
    let features: Vec<&&str> = first_table.iter().filter(|l| l.starts_with("| [")).collect();
    assert!(features.len() >= 25, "{} feature rows", features.len());
    // Beside it, a row per probe, a column per client.
    let probes = std::fs::read_to_string(repo().join("matrices/probes.md")).unwrap();
    let rows: Vec<&str> = probes.lines().filter(|l| l.starts_with("| <a id=\"probe-")).collect();
    assert_eq!(rows.len(), probe_server::registry::probes().len());
    for row in rows {
        let cells = row.split(" | ").count() - 1;
        assert_eq!(cells, clients.len(), "{row}");
        assert!(!row.contains("| |"), "an empty cell: {row}");
    }
}

/// GitHub renders the matrix and each client page whole only while they stay small.
#[test]
fn the_committed_matrix_and_client_pages_stay_within_their_sizes() {
    let matrix = std::fs::metadata(repo().join("matrices/MATRIX.md")).unwrap().len();
    assert!(matrix <= 200_000, "MATRIX.md is {matrix} bytes");
    let probes = std::fs::metadata(repo().join("matrices/probes.md")).unwrap().len();
    assert!(probes <= 400_000, "probes.md is {probes} bytes");
    let pages: Vec<_> = std::fs::read_dir(repo().join("matrices/clients")).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(pages.len() >= 12, "{pages:?}");
    for page in pages {
        let size = std::fs::metadata(&page).unwrap().len();
        assert!(size <= 400_000, "{} is {size} bytes", page.display());
    }
}

#[test]
fn diff_between_two_versions() {
    let fixtures = repo().join("fixtures/records/example-client");
    let (code, out) = run(&["matrix", "diff", fixtures.join("1.0.0/stdio.json").to_str().unwrap(), fixtures.join("1.1.0/stdio.json").to_str().unwrap()]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
    // Directories of one version each are accepted, and a regression can fail the command.
    let regressions = |before: &str, after: &str| {
        let (code, out) = run(&["matrix", "diff", "--fail-on-regression", fixtures.join(before).to_str().unwrap(), fixtures.join(after).to_str().unwrap()]);
        (code, out.lines().filter(|l| l.contains("regressed")).count())
    };
    let (forward, backward) = (regressions("1.0.0", "1.1.0"), regressions("1.1.0", "1.0.0"));
    assert_eq!(forward.0, i32::from(forward.1 > 0), "{forward:?}");
    assert_eq!(backward.0, 1, "1.1.0 fixed what 1.0.0 lacked, so going back regresses: {backward:?}");
}

#[test]
fn renderings_of_fixture_records() {
    let records = repo().join("fixtures/records");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("MATRIX.md");
    assert_eq!(run(&["matrix", "render", "--records", records.to_str().unwrap(), "--out", out.to_str().unwrap()]).0, 0);
    let markdown = std::fs::read_to_string(&out).unwrap();
    // Links point from the document to the records, wherever the two live.
    let markdown = markdown.replace(&records.display().to_string(), "[records]");
    insta::assert_snapshot!("markdown", crate::sampled(&markdown, crate::Expected::EveryProbe));
    let page = std::fs::read_to_string(dir.path().join("clients/example-client.md")).unwrap().replace(&records.display().to_string(), "[records]");
    insta::assert_snapshot!("client_page", crate::sampled(&page, crate::Expected::EveryProbe));
    let table = probe_cmd().env("COLUMNS", "80").args(["matrix", "render", "--records", records.to_str().unwrap(), "--format", "table"]).output().unwrap();
    assert!(table.status.success());
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.lines().all(|l| l.chars().count() <= 80), "{table}");
    insta::assert_snapshot!("features_table_at_80_columns", table);
    let (_, canimcp) = run(&["matrix", "render", "--records", records.to_str().unwrap(), "--format", "canimcp"]);
    insta::assert_snapshot!("canimcp", canimcp);
    let (_, declared) = run(&["matrix", "render", "--records", records.to_str().unwrap(), "--format", "declared"]);
    insta::assert_snapshot!("declared", declared);
}

#[test]
fn exports_keep_two_profiles_of_one_product_apart() {
    let records = repo().join("matrices/records");
    let (_, declared) = run(&["matrix", "render", "--records", records.to_str().unwrap(), "--format", "declared"]);
    let declared: serde_json::Value = serde_json::from_str(&declared).unwrap();
    let (agent, harness) = (&declared["fast-agent"], &declared["fast-agent-harness"]);
    assert!(agent.is_object() && harness.is_object(), "{declared}");
    assert_eq!(agent["clientInfo"], harness["clientInfo"], "one product, two profiles");
    let (_, canimcp) = run(&["matrix", "render", "--records", records.to_str().unwrap(), "--format", "canimcp"]);
    let canimcp: serde_json::Value = serde_json::from_str(&canimcp).unwrap();
    let profiles: std::collections::BTreeSet<&str> = canimcp["results"].as_array().unwrap().iter().filter_map(|r| r["profile"].as_str()).collect();
    assert!(profiles.contains("fast-agent") && profiles.contains("fast-agent-harness"), "{profiles:?}");
}

#[test]
fn the_committed_record_schema_is_current() {
    let schema = repo().join("matrices/schema/record.schema.json");
    let (code, out) = run(&["matrix", "schema", "--check", "--out", schema.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_run_that_breaks_its_baseline_fails() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline.toml");
    std::fs::write(&baseline, "[[expect]]\nprobe = \"tools.list\"\noutcome = \"not-reached\"\n").unwrap();
    let fake = format!("{} fake-client", env!("CARGO_BIN_EXE_mcp-client-probe"));
    let output = probe_cmd()
        .args(["probe", "--transport", "stdio", "--records", dir.path().join("r").to_str().unwrap(), "--expect", baseline.to_str().unwrap(), "--command"])
        .arg(format!("{fake} no-connect {} {{server}}", dir.path().join("pids").display()))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unlisted: connection.client_info over stdio is not-reached"), "{stderr}");
    assert!(!stderr.contains("tools.list over"), "the listed expectation holds: {stderr}");
}

/// Every committed verdict that blames a client (no, partial, declared-only) cites the journal
/// lines that show the harness gave the client its chance.
#[test]
fn every_committed_verdict_that_blames_a_client_cites_its_opportunity() {
    let records = committed_files(|path| path.extension().is_some_and(|e| e == "json"));
    assert!(!records.is_empty());
    let mut missing = Vec::new();
    let mut blamed = 0;
    for path in &records {
        let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for verdict in record["verdicts"].as_array().unwrap() {
            if !matches!(verdict["outcome"].as_str(), Some("no" | "partial" | "declared-only")) {
                continue;
            }
            blamed += 1;
            let cites = |key: &str| verdict.get(key).and_then(|v| v.as_array()).is_some_and(|a| !a.is_empty());
            if !cites("opportunity") && !cites("opportunity_model") {
                missing.push(format!("{}: {} {}", path.display(), verdict["probe"], verdict["detail"]));
            }
        }
    }
    assert!(missing.is_empty(), "verdicts without opportunity:\n{}", missing.join("\n"));
    assert!(blamed > 0);
}

#[test]
fn every_committed_model_journal_reads_back_whole() {
    // Stored compressed (`.model.jsonl.zst`), read by the journal's own name or the stored one.
    let journals = committed_files(|path| path.to_string_lossy().ends_with(".model.jsonl.zst"));
    assert!(!journals.is_empty());
    let (mut requests, mut stored_as_changes) = (0, 0);
    for path in &journals {
        let text = probe_server::journal::stored::read_text(path).unwrap();
        stored_as_changes += text.lines().filter(|line| line.contains("\"raw_delta\":")).count();
        let read = probe_server::journal::read_journal(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for event in read.events.iter().filter(|e| e.kind == probe_server::journal::EventKind::HttpRequest && e.sha256.is_none()) {
            requests += 1;
            assert_eq!(event.raw.as_deref().map(str::len), Some(event.raw_len), "{} line {}", path.display(), event.seq);
        }
    }
    assert!(stored_as_changes > 0 && requests > stored_as_changes, "{stored_as_changes} of {requests} requests stored as changes");
}

#[test]
fn compact_stores_model_journals_as_changes_and_refuses_a_broken_one() {
    use probe_server::journal::{read_journal, write_events};
    let dir = tempfile::tempdir().unwrap();
    let (committed, copy) = (repo().join("matrices/records/gptme/0.35.1"), dir.path().join("gptme/0.35.1"));
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(committed.join("stdio.json"), copy.join("stdio.json")).unwrap();
    let original = read_journal(&committed.join("stdio.model.jsonl")).unwrap().events;
    let journal = copy.join("stdio.model.jsonl");
    write_events(&journal, &original).unwrap();
    let expanded = std::fs::metadata(&journal).unwrap().len();

    let records = dir.path().to_str().unwrap();
    let (code, out) = run(&["matrix", "compact", "--records", records]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("1 model journals:"), "{out}");
    assert!(out.contains("\n1 files compressed:"), "{out}");
    // Kept compressed beside its record's name, and read back exactly by that name.
    let stored = probe_server::journal::stored::compressed_path(&journal);
    assert!(!journal.exists() && stored.is_file());
    assert!(std::fs::metadata(&stored).unwrap().len() * 10 < expanded, "compacted and compressed to a tenth or less");
    assert_eq!(read_journal(&journal).unwrap().events, original, "read back exactly");
    // `matrix check` refuses a journal stored uncompressed.
    assert!(committed_files(|p| p.to_string_lossy().ends_with(".jsonl") || p.to_string_lossy().ends_with(".txt")).is_empty(), "the committed records are compressed");
    std::fs::remove_file(&stored).unwrap();

    std::fs::write(&journal, "not a journal line\n{}\n").unwrap();
    let output = probe_cmd().args(["matrix", "compact", "--records", records]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("stdio.model.jsonl"));
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), "not a journal line\n{}\n", "a journal that cannot be read is left as it is");
}

#[test]
fn the_matrix_starts_with_features_by_client_and_no_line_is_wider_than_it() {
    let text = std::fs::read_to_string(repo().join("matrices/MATRIX.md")).unwrap();
    assert_eq!(text.lines().find(|l| l.starts_with("## ")), Some("## Features × clients"));
    let summary: Vec<&str> = text.split("## Features × clients").nth(1).unwrap().lines().take_while(|l| !l.starts_with("## ")).filter(|l| l.starts_with('|')).collect();
    assert!(summary.len() > 30, "a row per feature");
    let widest = summary.iter().map(|l| l.chars().count()).max().unwrap();
    let wider: Vec<String> = text.lines().filter(|l| l.chars().count() > widest).map(|l| l.chars().take(100).collect()).collect();
    assert!(wider.is_empty(), "{} lines wider than the summary's {widest} characters: {wider:?}", wider.len());
}

/// Judging is a pure function of the journals: the committed records judged again give their own
/// verdicts, and a verdict edited in a copy is found (exit 1) and written back as judged.
#[test]
fn rejudge_check_passes_on_the_committed_records_and_catches_an_edited_verdict() {
    let (code, out) = run(&["matrix", "rejudge", "--check", "--records", repo().join("matrices/records").to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(" 0 outcomes or declarations differ"), "{out}");
    // One version of one client, copied with its journals, one verdict edited.
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_dir(repo().join("matrices/records/codex")).unwrap().map(|e| e.unwrap().path()).find(|p| p.is_dir()).unwrap();
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let record = dir.path().join("stdio.json");
    let mut value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let verdict = value["verdicts"].as_array_mut().unwrap().iter_mut().find(|v| v["probe"] == "tools.list").unwrap();
    let judged = verdict["outcome"].clone();
    verdict["outcome"] = serde_json::json!(if judged == "yes" { "no" } else { "yes" });
    std::fs::write(&record, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let records = dir.path().to_str().unwrap();
    let (code, out) = run(&["matrix", "rejudge", "--check", "--records", records]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("DIFFERS codex") && out.contains("tools.list"), "{out}");
    let (code, out) = run(&["matrix", "rejudge", "--records", records]);
    assert_eq!(code, 0, "{out}");
    let mended: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(mended["verdicts"].as_array().unwrap().iter().find(|v| v["probe"] == "tools.list").unwrap()["outcome"], judged);
    assert_eq!(run(&["matrix", "rejudge", "--check", "--records", records]).0, 0);
}

/// The README is a first page (at most 150 lines) whose example is the `which` table of the
/// committed records, the table of profiled clients in `docs/hosts.md` is made from the profiles
/// (a client's name and pin live in its profile only), and the links of the README and of
/// `docs/` resolve: `matrix check` says so, and fails on an example or a table left stale or a
/// link to a page that is not there.
#[test]
fn the_readme_is_short_its_example_current_and_every_link_of_it_and_docs_resolves() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(readme.lines().count() <= 150, "README.md has {} lines", readme.lines().count());
    assert!(readme.contains("cargo test --workspace"), "the README names the test command .ci/run calls");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for name in ["README.md", "PROBES.md", "ARCHITECTURE.md"] {
        std::fs::copy(repo().join(name), root.join(name)).unwrap();
    }
    for folder in ["docs", "matrices", "fixtures/clients"] {
        copy_dir(&repo().join(folder), &root.join(folder));
    }
    let (records, matrix) = (root.join("matrices/records"), root.join("matrices/MATRIX.md"));
    let check = || run(&["matrix", "check", "--records", &records.display().to_string(), "--matrix", &matrix.display().to_string()]);
    let (code, out) = check();
    assert_eq!(code, 0, "{out}");

    std::fs::write(root.join("README.md"), readme.replacen("codex@", "codex @", 1)).unwrap();
    let (code, out) = check();
    assert_eq!((code, out.contains("README.md differs")), (1, true), "{out}");
    std::fs::write(root.join("README.md"), &readme).unwrap();

    // A pin moved in a profile and not in the table: the table is stale.
    let codex = std::fs::read_to_string(root.join("fixtures/clients/codex.toml")).unwrap();
    let pin = codex.lines().find_map(|l| l.strip_prefix("version = \"")).and_then(|v| v.strip_suffix('"')).expect("codex's profile pins a version").to_string();
    std::fs::write(root.join("fixtures/clients/codex.toml"), codex.replacen(&format!("version = \"{pin}\""), "version = \"9.9.9\"", 1)).unwrap();
    let (code, out) = check();
    assert_eq!((code, out.contains("docs/hosts.md differs")), (1, true), "{out}");
    std::fs::write(root.join("fixtures/clients/codex.toml"), codex).unwrap();

    let commands = std::fs::read_to_string(root.join("docs/commands.md")).unwrap();
    std::fs::write(root.join("docs/commands.md"), format!("{commands}\nSee [the variants](variant.md).\n")).unwrap();
    let (code, out) = check();
    assert_eq!((code, out.contains("variant.md: no such file")), (1, true), "{out}");
}
