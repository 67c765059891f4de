//! The command line's contract: listings, judging recorded journals, and bad input that gets a
//! clear message and exit code 2, never a panic.

use super::{fixture, probe_cmd};

/// The output of a command run without the official schemas (whatever the environment says), so
/// that what it prints does not depend on where the tests run.
fn stdout_of(args: &[&str]) -> String {
    let output = probe_cmd().env_remove("MCP_SCHEMA_DIR").args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_probe_catalogue() {
    insta::assert_snapshot!(crate::sampled(&stdout_of(&["probes"]), crate::Expected::EveryProbe));
}

#[test]
fn the_feature_catalogue() {
    // The features and their titles; which probes show each is the catalogue's own (its unit
    // tests), so a probe joining a feature changes no snapshot here.
    let out = stdout_of(&["features"]);
    let named = out.lines().filter(|line| !crate::probes_named(line).is_empty()).count();
    assert!(named >= 40, "{named} lines name probes:\n{out}");
    insta::assert_snapshot!(out.lines().filter(|line| crate::probes_named(line).is_empty()).collect::<Vec<_>>().join("\n"));
}

/// `which` answers for a feature and for a probe from the committed records: one row per client
/// at its newest version; an item with history says since when.
#[test]
fn which_answers_for_features_and_probes_from_the_records() {
    let records = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../matrices/records");
    let json = stdout_of(&["which", "elicitation.form", "Form elicitation", "--format", "json", "--records", records.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let clients = report["clients"].as_array().unwrap();
    let names: std::collections::BTreeSet<&str> = clients.iter().map(|c| c["client"].as_str().unwrap()).collect();
    assert_eq!(names.len(), clients.len(), "one row per client");
    assert!(names.contains("claude-code") && names.contains("mcp-inspector"), "{names:?}");
    assert_eq!(report["items"][0]["kind"], "probe");
    assert_eq!(report["items"][1]["item"], "elicitation-forms");
    for client in clients {
        let items = client["items"].as_array().unwrap();
        assert_eq!(items.len(), 2);
        let feature = items[1]["answer"].as_str().unwrap();
        assert!(["supported", "partly", "no", "untested"].contains(&feature), "{feature}");
        let all = items[0]["answer"] == "yes" && feature == "supported";
        assert_eq!(client["all"], all, "{client}");
    }
    // mcp-inspector has two versions on record: its answers say since when they held.
    let inspector = clients.iter().find(|c| c["client"] == "mcp-inspector").unwrap();
    assert!(inspector["items"][1]["since"].is_string(), "{inspector}");
    // Two versions of a fixture client: a probe fixed since the newer, one lost in it.
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/records");
    let json = stdout_of(&["which", "tools.pagination", "prompts.list", "--format", "json", "--records", fixtures.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let items = &report["clients"][0]["items"];
    assert_eq!((items[0]["answer"].as_str(), items[0]["since"].as_str()), (Some("yes"), Some("1.1.0")), "{report}");
    assert_eq!((items[1]["answer"].as_str(), items[1]["lost_in"].as_str()), (Some("no"), Some("1.1.0")), "{report}");
    // The table names what it counts.
    let table = stdout_of(&["which", "tools", "--records", records.to_str().unwrap()]);
    assert!(table.contains("clients, each at its newest version on record, support all of: tools"), "{table}");
}

#[test]
fn the_ablation_catalogue() {
    insta::assert_snapshot!(crate::sampled(&stdout_of(&["probes", "--ablations"]), crate::Expected::EveryProbe));
}

#[test]
fn judging_a_recorded_journal() {
    let path = fixture("reference-stdio-modern-alter-request-state.jsonl");
    insta::assert_snapshot!(crate::sampled(&stdout_of(&["judge", path.to_str().unwrap()]), crate::Expected::EveryProbe));
}

#[test]
fn judging_with_the_model_journal_reaches_the_probes_of_what_the_model_saw() {
    let journal = fixture("reference-stdio-legacy-host-full.jsonl");
    let model = fixture("model/reference-stdio-legacy-host-full.jsonl");
    let line = |out: &str| out.lines().find(|l| l.starts_with("affordances.schema_refs_resolvable")).map(str::to_string).unwrap_or_default();
    let alone = stdout_of(&["judge", journal.to_str().unwrap()]);
    assert!(line(&alone).contains("not-reached"), "{alone}");
    let with_model = stdout_of(&["judge", journal.to_str().unwrap(), "--model", model.to_str().unwrap()]);
    assert!(line(&with_model).contains("yes"), "{with_model}");
}

#[test]
fn judging_with_the_schemas_checks_a_journal_recorded_without_them() {
    let schemas = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/mcp-schema");
    let schemas = std::env::var_os("MCP_SCHEMA_DIR").map(std::path::PathBuf::from).unwrap_or(schemas);
    if !schemas.is_dir() {
        eprintln!("skipped: no official schemas at {} (set MCP_SCHEMA_DIR)", schemas.display());
        return;
    }
    let journal = fixture("recorded/claude-code-2.1.332-stdio.journal.jsonl");
    let line = |out: &str| out.lines().find(|l| l.starts_with("wire.client_frames_valid")).map(str::to_string).unwrap_or_default();
    let without = stdout_of(&["judge", journal.to_str().unwrap()]);
    assert!(line(&without).contains("not-reached"), "{without}");
    let with = stdout_of(&["judge", journal.to_str().unwrap(), "--schemas", schemas.to_str().unwrap()]);
    assert!(line(&with).contains("yes") && line(&with).contains("2026-07-28"), "{with}");
    let refused = probe_cmd().args(["judge", journal.to_str().unwrap(), "--schemas", journal.parent().unwrap().to_str().unwrap()]).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not a directory of official MCP schemas"));
}

#[test]
fn judging_a_cut_off_journal_says_so() {
    let path = fixture("crashed-writer.jsonl");
    let out = stdout_of(&["judge", path.to_str().unwrap()]);
    assert!(out.contains("last line was cut off"), "{out}");
}

/// Files the bad invocations point at, in a directory of their own.
struct Inputs {
    dir: tempfile::TempDir,
}

impl Inputs {
    fn new() -> Inputs {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("bad.json", "{");
        write("bad.jsonl", "not an event\n{}\n");
        write("not-executable", "#!/bin/sh\n");
        write("bad-baseline.toml", "this is = = not toml");
        std::fs::create_dir_all(dir.path().join("empty")).unwrap();
        write("empty-file.jsonl", "");
        Inputs { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }
}

/// Every bad invocation exits 2 with one line on stderr naming the problem, never panics, and
/// writes nothing (each runs in an empty working directory that must stay empty).
#[test]
fn bad_invocations_exit_2_with_one_line_and_write_nothing() {
    let inputs = Inputs::new();
    let (bad_json, bad_jsonl, not_exec, bad_baseline, empty) =
        (inputs.path("bad.json"), inputs.path("bad.jsonl"), inputs.path("not-executable"), inputs.path("bad-baseline.toml"), inputs.path("empty"));
    let full = inputs.path("");
    let empty_file = inputs.path("empty-file.jsonl");
    let fixture_records = format!("{}/../fixtures/records", env!("CARGO_MANIFEST_DIR"));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // Usage errors.
        (vec!["frobnicate"], "unrecognized subcommand"),
        (vec![], "a command is required"),
        (vec!["probe", "--format", "xml"], "invalid value 'xml'"),
        (vec!["self-test", "--transport", "carrier-pigeon"], "invalid value"),
        (vec!["probes", "--format", "yaml"], "invalid value"),
        (vec!["probe", "--jobs", "0"], "not a number of runs from 1 to 1024"),
        (vec!["self-test", "--jobs", "0"], "not a number of runs"),
        // Said before any run, not after all of them.
        (vec!["self-test", "--keep-journals", "/proc/no-such-dir"], "cannot write into /proc/no-such-dir"),
        (vec!["bench", "--storm", "--storm-rate", "0"], "invalid value '0'"),
        (vec!["bench", "--storm", "--storm-seconds", "0"], "invalid value '0'"),
        (vec!["bench", "--storm", "--storm-connections", "0"], "invalid value '0'"),
        (vec!["matrix", "refresh", "--jobs", "-3"], "unexpected argument"),
        (vec!["probe", "--repeat", "0"], "not in 1..=20"),
        (vec!["probe", "--timeout", "0", "--command", "x {server}"], "not in 1..=3600"),
        // serve
        (vec!["serve", "--journal", "j.jsonl"], "required"),
        (vec!["serve", "--http", "192.0.2.1:0", "--journal", "j.jsonl"], "loopback only"),
        (vec!["serve", "--stdio", "--journal", "/nonexistent/dir/j.jsonl"], "cannot open journal"),
        (vec!["serve", "--stdio", "--era", "sideways", "--journal", "j.jsonl"], "unknown era"),
        (vec!["serve", "--stdio", "--variant", "sideways", "--journal", "j.jsonl"], "unknown"),
        (vec!["terminal-host"], "required"),
        (vec!["terminal-host", "--era", "dual", "x"], "unknown era"),
        // matrix refresh: what changed is asked of git, and an empty directory is no repository
        (vec!["matrix", "refresh", "--check", "--changed-since", "HEAD~1"], "cannot run git to see what changed since HEAD~1"),
        // which
        (vec!["which"], "required"),
        (vec!["which", "nosuch"], "\"nosuch\" is neither a feature nor a probe"),
        (vec!["which", "elicitaton.form"], "did you mean elicitation.form"),
        (vec!["which", "tools", "--records", "/nonexistent/records"], "no records at /nonexistent/records"),
        // judge
        (vec!["judge", "/nonexistent/journal.jsonl"], "cannot open journal"),
        (vec!["judge", &bad_jsonl], "line 1"),
        (vec!["judge", &empty], "cannot"),
        (vec!["judge", &empty_file], "holds no journal line"),
        (vec!["matrix", "render", "--records", &fixture_records, "--out", "/proc/no-such-dir/MATRIX.md"], "cannot create /proc/no-such-dir"),
        (vec!["matrix", "schema", "--out", "/proc/no-such-dir/record.schema.json"], "cannot create /proc/no-such-dir"),
        // probe: the reference client
        (vec!["probe", "--ablation", "no-such-thing"], "unknown ablation"),
        (vec!["probe", "--repeat", "2"], "applies to a client"),
        (vec!["probe", "--runs", "headless"], "applies to a client"),
        (vec!["probe", "--timeout", "5"], "applies to a client"),
        (vec!["probe", "--expect", &bad_baseline], "applies to a client"),
        (vec!["probe", "--keep-journals", "/proc/no-such-dir"], "cannot write into /proc/no-such-dir"),
        (vec!["probe", "--dialect", "chat"], "--command"),
        // probe: a client by profile
        (vec!["probe", "some-client"], "no client profile named \"some-client\""),
        (vec!["probe", "@1.2.3"], "names no client"),
        (vec!["probe", "codex@"], "names no version after @"),
        (vec!["serve", "--stdio", "--variant", "session-expires", "--journal", "j.jsonl"], "applies over http only, not stdio"),
        (vec!["probe", "claude-code", "--runs", "interactive", "--update"], "give --records DIR"),
        (vec!["probe", "codex", "--runs", "headless", "--records", "matrices/records"], "give --records DIR"),
        (vec!["probe", "codex", "--update", "--records", "recs"], "cannot be used with"),
        (vec!["probe", "--update"], "--update applies to a client"),
        (vec!["probe", "--update", "--timeout", "5"], "--timeout and --update apply to a client"),
        (vec!["serve", "--stdio", "--protocol-version", "1999-01-01", "--journal", "j.jsonl"], "is no revision this server serves"),
        (vec!["probe", "kilo", "--runs", "interactive", "--records", "recs"], "has no [interactive] section"),
        (vec!["probe", "claude-code", "--runs", "interactive", "--records", "recs"], "over stdio only"),
        (vec!["probe", "codex", "--ablation", "never-subscribe"], "cannot be used with"),
        (vec!["probe", "codex", "--keep-journals", "kept"], "cannot be used with"),
        (vec!["probe", "codex", "--timeout", "5"], "a profile sets its own"),
        (vec!["probe", "codex", "--expect", "/nonexistent/baseline.toml"], "cannot read"),
        (vec!["probe", "codex", "--expect", &bad_baseline], "baseline"),
        (vec!["probe", "codex", "--records", "/proc/no-such-dir"], "cannot write into /proc/no-such-dir"),
        // The flags of a client given by command line, with a profile client: refused, not ignored.
        (vec!["probe", "codex", "--dialect", "chat"], "--dialect describes a client given by --command"),
        (vec!["probe", "codex", "--env", "A=1"], "--env describes a client given by --command"),
        (vec!["probe", "--profile", "fixtures/clients/codex.toml", "--file", "a=1"], "--file describes a client given by --command"),
        // --only: a pattern no probe id contains, and a partial record where the committed one would go.
        (vec!["probe", "--only", "nosuchprobe"], "no probe id contains it"),
        (vec!["probe", "codex", "--only", "nosuchprobe", "--records", "recs"], "no probe id contains it"),
        (vec!["probe", "codex", "--only", "tools.", "--update"], "--only makes a partial record"),
        // probe: a client by path or command line
        (vec!["probe", "./no/such/client"], "no client executable at ./no/such/client"),
        (vec!["probe", &not_exec], "is not executable"),
        (vec!["probe", "/etc/"], "is a directory"),
        (vec!["probe", "--command", "echo hello"], "never names the probe server"),
        (vec!["probe", "--command", "echo {server} {stub_url}"], "{stub_url} needs --dialect"),
        (vec!["probe", "--command", "echo {server} {sever_url}"], "{sever_url} is no placeholder"),
        (vec!["probe", "--command", "echo {server}", "--env", "A={hom}/x"], "{hom} is no placeholder"),
        (vec!["probe", "--command", "echo 'unclosed {server}"], "missing closing quote"),
        (vec!["probe", "--command", "echo {server}", "--env", "=x"], "is not KEY=VALUE"),
        (vec!["probe", "--name", "x"], "--command"),
        (vec!["probe", "--command", "/nonexistent/program {server}"], "no client executable at /nonexistent/program"),
        (vec!["probe", "--command", "no-such-program-anywhere {server}"], "no program named \"no-such-program-anywhere\" on PATH"),
        (vec!["probe", "--command", "   "], "--command is empty"),
        // --file paths stay inside the client's sandbox; one path, one text per transport.
        (vec!["probe", "--command", "echo {server}", "--file", "/tmp/x=1"], "must stay inside the client's sandbox"),
        (vec!["probe", "--command", "echo {server}", "--file", "../x=1"], "must stay inside the client's sandbox"),
        (vec!["probe", "--command", "echo {server}", "--file", "{home}/../x=1"], "must stay inside the client's sandbox"),
        (vec!["probe", "--command", "echo {server}", "--file-http", "a=1", "--file-http", "a=2"], "is given twice for the same transport"),
        (vec!["probe", "--command", "x {server}", "some-client"], "cannot be used with"),
        // matrix
        (vec!["matrix", "refresh", "--check", "--client", "nosuch"], "no client profile named \"nosuch\" (known: "),
        (vec!["matrix", "refresh", "--keep-journals", "kept"], "--check"),
        (vec!["matrix", "refresh", "--check", "--keep-journals", &full], "is not empty"),
        (vec!["matrix", "refresh", "--check", "--keep-journals", "/proc/no-such-dir"], "cannot write into /proc/no-such-dir"),
        (vec!["matrix", "render", "--records", "/nonexistent/records"], "no records at /nonexistent/records"),
        (vec!["matrix", "render", "--records", &bad_json], "is not valid"),
        (vec!["matrix", "check", "--records", "/nonexistent/records"], "no records at /nonexistent/records"),
        (vec!["matrix", "diff", "/nonexistent/a", "/nonexistent/b"], "no records at /nonexistent/a"),
        (vec!["matrix", "diff", &empty, &empty], "no records under"),
        // clients
        (vec!["clients", "install", "nosuch"], "no client profile named \"nosuch\""),
    ];
    assert!(cases.len() >= 40, "{} cases", cases.len());
    for (args, message) in &cases {
        let cwd = tempfile::tempdir().unwrap();
        let output = probe_cmd().current_dir(cwd.path()).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: expected {message:?} in {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: not one line: {stderr}");
        assert!(stderr.matches("--help").count() <= 1, "{args:?}: the hint said twice: {stderr}");
        let left: Vec<_> = std::fs::read_dir(cwd.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "{args:?} wrote {left:?}");
    }
    assert_eq!(std::fs::read_dir(inputs.dir.path().join("empty")).unwrap().count(), 0, "nothing written into the inputs");
}

/// A reader that stops early (`… | head`) ends the output quietly: no panic, success; for every
/// subcommand that prints (`serve` prints nothing on stdout but protocol, `bench` is a measurement).
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    let journal = fixture("reference-stdio-modern-alter-request-state.jsonl");
    let records = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../matrices/records");
    let records = records.to_str().unwrap();
    // The JSON matrix of the committed records is far larger than a pipe's buffer, so the writer
    // meets the closed pipe; the others show small outputs behave the same.
    let codex = std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../matrices/records/codex")).unwrap().next().unwrap().unwrap().path();
    let (stdio, http) = (codex.join("stdio.json"), codex.join("http.json"));
    let fake = format!("{} fake-client no-connect /dev/null {{server}}", env!("CARGO_BIN_EXE_mcp-client-probe"));
    let scratch = tempfile::tempdir().unwrap();
    let scratch_records = scratch.path().to_str().unwrap();
    let cases = [
        vec!["matrix", "render", "--records", records, "--format", "json"],
        vec!["matrix", "render", "--records", records, "--format", "table"],
        vec!["matrix", "render", "--records", records, "--format", "canimcp"],
        vec!["matrix", "render", "--records", records, "--format", "declared"],
        vec!["matrix", "diff", stdio.to_str().unwrap(), http.to_str().unwrap()],
        vec!["probes"],
        vec!["probes", "--format", "json"],
        vec!["probes", "--catalogue"],
        vec!["probes", "--ablations"],
        vec!["judge", journal.to_str().unwrap()],
        vec!["judge", journal.to_str().unwrap(), "--format", "json"],
        vec!["clients", "list"],
        vec!["probe", "--transport", "stdio", "--records", scratch_records, "--command", &fake, "--explain"],
        vec!["probe", "--transport", "stdio", "--records", scratch_records, "--command", &fake, "--format", "junit"],
        vec!["self-test", "--transport", "http", "--format", "json"],
        vec!["--help"],
    ];
    for args in cases {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcp-client-probe"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        // The fake client never connects: exit 4, unless its output met the closed pipe first.
        let expected: &[i32] = if args.contains(&fake.as_str()) { &[0, 4] } else { &[0] };
        assert!(output.status.code().is_some_and(|c| expected.contains(&c)), "{args:?}: {:?} {stderr}", output.status.code());
    }
}

#[test]
fn the_committed_probe_catalogue_is_current() {
    let committed = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../PROBES.md")).unwrap();
    assert!(committed == stdout_of(&["probes", "--catalogue"]), "PROBES.md is stale: run `cargo run -- probes --catalogue > PROBES.md`");
}

/// Issue 49, item 15: `--only` filtered the printed table but made every run. Now the reference
/// client makes only the runs on which a selected probe is judged: fewer than a tenth of a full
/// probe's for one probe of the standard variant.
#[test]
fn only_makes_the_runs_its_probes_are_judged_on() {
    let output = probe_cmd().args(["probe", "--only", "connection.client_info", "--format", "json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let counted = stderr.lines().find_map(|l| l.strip_prefix("mcp-client-probe: --only: ")).expect("the plan is reported");
    let numbers: Vec<usize> = counted.split(' ').filter_map(|w| w.parse().ok()).collect();
    let [made, planned] = numbers[..] else { panic!("{counted}") };
    assert!(made > 0 && made * 10 < planned, "{made} of {planned} runs");
    let matrix: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows = matrix["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert!(rows[0]["cells"].as_array().unwrap().iter().all(|c| c["outcome"] == "yes"), "{}", rows[0]);
}

/// The README's first command answers in a screen: outcomes per area, then the cells that are not
/// a yes. The reference host runs over HTTP too, so no column has cells the harness never ran;
/// what is left not reached is the two probes the server cannot observe over 2026-07-28 HTTP
/// (a cancel there closes a response stream it never wrote to).
#[test]
fn the_reference_probe_opens_with_a_summary_and_every_run_made() {
    let output = probe_cmd().env_remove("MCP_SCHEMA_DIR").env("COLUMNS", "120").args(["probe", "--quiet"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.lines().count() < 60, "{text}");
    assert!(text.lines().nth(1).is_some_and(|l| l.contains("area") && l.contains("[4]")), "{text}");
    for column in ["[1] reference over stdio", "[2] reference over stdio", "[3] reference over http"] {
        let line = text.lines().find(|l| l.starts_with(column)).unwrap_or_else(|| panic!("{column}: {text}"));
        assert!(line.contains(" 0 partial, 0 no, 0 not-reached,"), "{line}");
    }
    let not_yes: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("Cells that are not a yes")).skip(1).take_while(|l| !l.starts_with('`')).collect();
    assert!(not_yes.iter().all(|l| l.starts_with("utilities.") && l.contains(" [4]: not-reached")), "{not_yes:#?}");
    assert!(text.contains("not run: wire.client_frames_valid (no official schemas"), "{text}");
    // The grid is a flag away.
    let grid = probe_cmd().env_remove("MCP_SCHEMA_DIR").args(["probe", "--quiet", "--grid", "--only", "tools.list"]).output().unwrap();
    assert!(String::from_utf8_lossy(&grid.stdout).contains("│ tools.list"), "{}", String::from_utf8_lossy(&grid.stdout));
}

/// `clients outdated` asks each profile's registry through its own client: the pinned version
/// beside the newest, a date where npm gives one. With the registries unreachable it exits 3 with
/// one line naming the registry, never a partial list.
#[test]
fn clients_outdated_asks_the_registries_and_says_when_it_cannot() {
    let output = probe_cmd().args(["clients", "outdated", "--format", "json", "--client", "codex", "--client", "gptme"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let pins: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let pins = pins.as_array().unwrap();
    assert_eq!(pins.len(), 2);
    for pin in pins {
        assert!(pin["pinned"].is_string() && pin["version"].is_string() && pin["outdated"].is_boolean(), "{pin}");
        assert_eq!(pin["outdated"], pin["pinned"] != pin["version"], "{pin}");
    }
    let codex = pins.iter().find(|p| p["client"] == "codex").unwrap();
    assert_eq!((codex["registry"].as_str(), codex["package"].as_str()), (Some("npm"), Some("@openai/codex")));
    assert!(codex["released"].as_str().is_some_and(|d| d.len() == 10), "{codex}");
    assert_eq!(pins.iter().find(|p| p["client"] == "gptme").unwrap()["registry"], "PyPI");

    // Registries at a port nothing listens on (the registries' own settings, no retries).
    let offline =
        probe_cmd().args(["clients", "outdated", "--client", "codex"]).env("npm_config_registry", "http://127.0.0.1:9/").env("npm_config_fetch_retries", "0").output().unwrap();
    assert_eq!(offline.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&offline.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("cannot ask the npm registry"), "{stderr}");
    assert!(offline.stdout.is_empty(), "no partial list");
}

/// `probe --help` teaches by example: a profiled client, a host given by command line (with
/// `--env` and `--file`), and a re-check of some probes.
#[test]
fn probe_help_shows_worked_examples() {
    let output = probe_cmd().args(["probe", "--help"]).output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(help.contains("Examples:"), "{help}");
    for example in ["probe codex --records out", "--command 'my-host", "--env 'OPENAI_BASE_URL={stub_url}/v1'", "--file 'mcp.json=", "--only elicitation. --explain"] {
        assert!(help.contains(example), "{example} missing from: {help}");
    }
}

/// Two records that share no client and transport: every line is new or removed, and the diff
/// says that nothing lined up rather than leave a count to puzzle over.
#[test]
fn a_diff_of_unrelated_records_says_nothing_lined_up() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let codex = root.join("matrices/records/codex/0.171.0/stdio.json");
    let opencode = root.join("matrices/records/opencode/1.18.33/stdio.json");
    let output = probe_cmd().args(["matrix", "diff"]).arg(&codex).arg(&opencode).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("nothing lined up") && stderr.contains("codex stdio") && stderr.contains("opencode stdio"), "{stderr}");
    // Two versions of one client line up: no such word.
    let older = root.join("matrices/records/codex/0.162.0/stdio.json");
    let lined = probe_cmd().args(["matrix", "diff"]).arg(&older).arg(&codex).output().unwrap();
    assert!(!String::from_utf8_lossy(&lined.stderr).contains("nothing lined up"));
    // --hide-new: what only the later run has is left out, and the count says so.
    let oldest = root.join("matrices/records/codex/0.154.0/stdio.json");
    let hidden = probe_cmd().args(["matrix", "diff", "--hide-new"]).arg(&oldest).arg(&codex).output().unwrap();
    let text = String::from_utf8_lossy(&hidden.stdout);
    assert!(!text.lines().any(|l| l.starts_with("new ")), "{text}");
    assert!(text.trim_end().ends_with(" 0 new, 0 removed") || text.contains(" 0 new,"), "{text}");
}

/// Outside a checkout, the matrix commands say where records are looked for and how to name
/// others, in one wording, and write nothing in the current directory.
#[test]
fn outside_a_checkout_the_matrix_commands_ask_for_records_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for args in [vec!["matrix", "render"], vec!["matrix", "site"], vec!["matrix", "check"]] {
        let output = probe_cmd().args(&args).current_dir(dir.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("no records at matrices/records") && stderr.contains("give --records DIR"), "{args:?}: {stderr}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "{args:?} wrote {left:?}");
    }
}

/// A client version the registry does not have is bad input, found by asking the registry before
/// anything is installed: exit 2, and nothing left in the cache. (Where the registry cannot be
/// reached at all, the install would find out by itself; the check needs the registry.)
#[test]
fn a_version_the_registry_does_not_have_is_refused_before_any_install() {
    let reachable = std::process::Command::new("npm").args(["view", "@openai/codex", "version"]).output().is_ok_and(|o| o.status.success());
    if !reachable {
        eprintln!("the npm registry cannot be reached from here: nothing to check");
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let output = probe_cmd().args(["clients", "install", "codex@0.0.0-does-not-exist"]).env("XDG_CACHE_HOME", cache.path()).env_remove("MCP_CLIENT_PROBE_CACHE").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the registry has no version 0.0.0-does-not-exist of @openai/codex"), "{stderr}");
    let left: Vec<_> = walk(cache.path());
    assert!(left.iter().all(|p| !p.contains("0.0.0-does-not-exist")), "{left:?}");
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir).into_iter().flatten().flatten().flat_map(|e| std::iter::once(e.path().display().to_string()).chain(walk(&e.path()))).collect()
}
