//! The command line's contract: listings, judging recorded journals, and bad input that gets a
//! clear message and exit code 2, never a panic.

use super::{fixture, probe_cmd};

fn stdout_of(args: &[&str]) -> String {
    let output = probe_cmd().args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_probe_catalogue() {
    insta::assert_snapshot!(stdout_of(&["probes"]));
}

#[test]
fn the_ablation_catalogue() {
    insta::assert_snapshot!(stdout_of(&["probes", "--ablations"]));
}

#[test]
fn judging_a_recorded_journal() {
    let path = fixture("reference-stdio-modern-alter-request-state.jsonl");
    insta::assert_snapshot!(stdout_of(&["judge", path.to_str().unwrap()]));
}

#[test]
fn judging_a_cut_off_journal_says_so() {
    let path = fixture("crashed-writer.jsonl");
    let out = stdout_of(&["judge", path.to_str().unwrap()]);
    assert!(out.contains("last line was cut off"), "{out}");
}

fn fails_with_bad_input(args: &[&str], message: &str) {
    let output = probe_cmd().args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(message), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_input_is_refused_with_exit_code_2() {
    fails_with_bad_input(&["judge", "/nonexistent/journal.jsonl"], "cannot open journal");
    fails_with_bad_input(&["serve", "--journal", "/tmp/x.jsonl"], "required");
    fails_with_bad_input(&["serve", "--http", "192.0.2.1:0", "--journal", "/tmp/x.jsonl"], "loopback only");
    fails_with_bad_input(&["serve", "--stdio", "--journal", "/nonexistent/dir/j.jsonl"], "cannot open journal");
    fails_with_bad_input(&["serve", "--stdio", "--era", "sideways", "--journal", "/tmp/x.jsonl"], "unknown era");
    fails_with_bad_input(&["probe", "--ablation", "no-such-thing"], "unknown ablation");
    fails_with_bad_input(&["probe", "some-client"], "no client profile named \"some-client\"");
    fails_with_bad_input(&["probe", "./no/such/client"], "no client executable");
    fails_with_bad_input(&["probe", "claude-code", "--runs", "interactive"], "give --records DIR");
    fails_with_bad_input(&["probe", "--repeat", "0"], "not in 1..=20");
    fails_with_bad_input(&["probe", "--repeat", "2"], "apply to a client");
    fails_with_bad_input(&["terminal-host"], "required");
    fails_with_bad_input(&["terminal-host", "--era", "dual", "x"], "unknown era");
    fails_with_bad_input(&["serve", "--stdio", "--variant", "sideways", "--journal", "/tmp/x.jsonl"], "unknown");
    // Nothing is installed or written before these are refused.
    let records = tempfile::tempdir().unwrap();
    let dir = records.path().to_str().unwrap();
    fails_with_bad_input(&["probe", "codex", "--runs", "interactive", "--records", dir], "has no [interactive] section");
    fails_with_bad_input(&["probe", "claude-code", "--runs", "interactive", "--records", dir], "over stdio only");
    assert_eq!(std::fs::read_dir(records.path()).unwrap().count(), 0, "nothing written");
    fails_with_bad_input(&["matrix", "refresh", "--check", "--client", "nosuch"], "no client profile named \"nosuch\" (known: ");
    fails_with_bad_input(&["matrix", "render", "--records", "/nonexistent/records"], "cannot read /nonexistent/records");
    let bad_record = records.path().join("bad.json");
    std::fs::write(&bad_record, "{").unwrap();
    fails_with_bad_input(&["matrix", "render", "--records", bad_record.to_str().unwrap()], "is not valid");
}

/// A reader that stops early (`… | head`) ends the output quietly: no panic, success.
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    let journal = fixture("reference-stdio-modern-alter-request-state.jsonl");
    let records = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../matrices/records");
    let records = records.to_str().unwrap();
    // The JSON matrix of the committed records is far larger than a pipe's buffer, so the writer
    // meets the closed pipe; the others show small outputs behave the same.
    let cases = [
        vec!["matrix", "render", "--records", records, "--format", "json"],
        vec!["probes"],
        vec!["probes", "--catalogue"],
        vec!["probes", "--ablations"],
        vec!["judge", journal.to_str().unwrap()],
    ];
    for args in cases {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcp-client-probe"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
    }
}

#[test]
fn a_journal_with_a_bad_line_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, "not an event\n{}\n").unwrap();
    fails_with_bad_input(&["judge", path.to_str().unwrap()], "line 1");
}

#[test]
fn the_committed_probe_catalogue_is_current() {
    let committed = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../PROBES.md")).unwrap();
    assert!(committed == stdout_of(&["probes", "--catalogue"]), "PROBES.md is stale: run `cargo run -- probes --catalogue > PROBES.md`");
}
