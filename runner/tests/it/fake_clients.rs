//! Clients that misbehave: every run still ends with a complete record whose verdicts say why
//! nothing was observed, the tool itself succeeds, and no process of the run survives it.

use std::path::Path;

use serde_json::Value;

use super::probe_cmd;

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // A zombie is dead; only its exit status waits to be collected.
        Ok(stat) => !stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'),
        Err(_) => false,
    }
}

fn probe_fake(mode: &str, dir: &Path) -> (Value, String) {
    // Only the hanging client is meant to meet its timeout; the others end by themselves.
    let timeout = if mode == "hang" { "2" } else { "120" };
    let pidfile = dir.join("pids");
    let fake = format!("{} fake-client", env!("CARGO_BIN_EXE_mcp-client-probe"));
    let records = dir.join("records");
    let output = probe_cmd()
        .args(["probe", "--transport", "stdio", "--jobs", "8", "--timeout", timeout, "--format", "json", "--records", records.to_str().unwrap()])
        .arg("--command")
        .arg(format!("{fake} {mode} {} {{server}}", pidfile.display()))
        .env("ANTHROPIC_API_KEY", "sk-real-secret-never-forwarded")
        .env("OPENAI_API_KEY", "sk-real-secret-never-forwarded")
        .output()
        .unwrap();
    // None of the fake clients ever opens a session: the never-connected exit, with the record.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{mode}: {stderr}");
    assert!(stderr.contains("never opened an MCP session in any of its"), "{mode}: {stderr}");
    let record_dir = records.join("mcp-client-probe/unversioned");
    let record: Value = serde_json::from_str(&std::fs::read_to_string(record_dir.join("stdio.json")).unwrap()).unwrap();
    let stdout = std::fs::read_to_string(record_dir.join("stdio.stdout.txt")).unwrap_or_default();
    for line in std::fs::read_to_string(&pidfile).unwrap_or_default().lines() {
        let pid: u32 = line.parse().unwrap();
        assert!(!alive(pid), "{mode}: pid {pid} outlived the run");
    }
    (record, stdout)
}

/// Every verdict is not-reached because no session opened, and the record's notes say how the
/// launches ended (the verdicts stay as the judges gave them).
fn assert_nothing_observed(record: &Value, reason: &str) {
    for verdict in record["verdicts"].as_array().unwrap() {
        assert_eq!(verdict["outcome"], "not-reached", "{verdict}");
        let detail = verdict["detail"].as_str().unwrap();
        assert!(detail.contains("never opened an MCP session"), "{detail}");
    }
    let notes: Vec<&str> = record["notes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(notes.iter().any(|n| n.contains("never opened an MCP session") && n.contains(reason)), "{notes:?}");
}

#[test]
fn a_hanging_client_is_stopped_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (record, _) = probe_fake("hang", dir.path());
    assert_eq!(record["launches"][0]["ending"]["kind"], "timed_out");
    assert_nothing_observed(&record, "timed out");
}

#[test]
fn a_client_that_crashes_at_start_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (record, _) = probe_fake("crash", dir.path());
    assert_eq!(record["launches"][0]["ending"]["kind"], "signalled");
    assert_nothing_observed(&record, "killed by signal");
}

#[test]
fn a_client_that_floods_stdout_is_recorded_with_its_output_capped() {
    let dir = tempfile::tempdir().unwrap();
    let (record, stdout) = probe_fake("garbage", dir.path());
    assert_eq!(record["launches"][0]["stdout_bytes"], 16 << 20);
    assert!(stdout.len() <= (4 << 20) + 200, "{}", stdout.len());
    assert_nothing_observed(&record, "exited with code 0");
}

#[test]
fn a_child_left_running_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let (record, _) = probe_fake("orphan", dir.path());
    assert!(record["launches"][0]["swept"].as_u64().unwrap() >= 1, "{}", record["launches"]);
    assert!(record["notes"].to_string().contains("outlived the client"));
}

#[test]
fn a_client_that_never_connects_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (record, _) = probe_fake("no-connect", dir.path());
    assert_nothing_observed(&record, "exited with code 0");
    assert_eq!(record["era"], Value::Null);
}

/// Over stdio the client's end is placed on the server's clock where it happened, not at the
/// server's last event: this client outlives its server by 1.5 s (a sleep: load only lengthens it).
#[test]
fn a_stdio_client_that_outlives_its_server_ends_when_it_ended() {
    let dir = tempfile::tempdir().unwrap();
    let (record, _) = probe_fake("linger", dir.path());
    assert_nothing_observed(&record, "exited with code 0");
    let journal = dir.path().join("records/mcp-client-probe/unversioned/stdio.journal.jsonl");
    let events = probe_server::journal::read_journal(&journal).unwrap().events;
    let time_of = |name: &str| events.iter().find(|e| e.detail.as_ref().is_some_and(|d| d["event"] == name)).map(|e| e.t_us).unwrap_or_else(|| panic!("no {name} in {events:?}"));
    let (closed, exited) = (time_of("input_closed"), time_of("client_exited"));
    assert!(exited >= closed + 1_500_000, "the client's end at {exited} µs, its server's input closed at {closed} µs");
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
}

#[test]
fn secrets_in_the_runner_environment_never_reach_the_client() {
    let dir = tempfile::tempdir().unwrap();
    let (_, stdout) = probe_fake("env", dir.path());
    assert!(stdout.contains("HOME="), "{stdout}");
    assert!(!stdout.contains("sk-real-secret"), "{stdout}");
    assert!(!stdout.contains("ANTHROPIC_API_KEY") && !stdout.contains("OPENAI_API_KEY"), "{stdout}");
}

#[test]
fn a_host_without_a_profile_gets_affordance_verdicts_through_the_model_stub() {
    let dir = tempfile::tempdir().unwrap();
    let exe = env!("CARGO_BIN_EXE_mcp-client-probe");
    let (records, record) =
        probe_chat_host(dir.path(), &[], &format!("{exe} reference-host --tool-timeout-ms 10000 --model-url {{stub_url}} {{server}}"), "mcp-client-probe/unversioned");
    let affordances = affordances_of(&record);
    assert!(affordances.len() >= 12);
    for verdict in affordances {
        assert_eq!(verdict["outcome"], "yes", "{verdict}");
        // Judged from the model's journal: its lines are the evidence, or (for a probe whose
        // evidence is the server's) the opportunity.
        let model_lines = verdict["opportunity_model"].as_array().is_some_and(|lines| !lines.is_empty());
        assert!(verdict["model_evidence"] == true || model_lines, "{verdict}");
    }
    assert!(records.join("mcp-client-probe/unversioned/stdio.model.jsonl").exists());
}

/// Probes a host given by `command` over stdio with the Chat Completions stub and `extra`
/// arguments, into records under `dir`; returns the records directory and the stdio record
/// found under `record_dir` (client/version).
fn probe_chat_host(dir: &std::path::Path, extra: &[&str], command: &str, record_dir: &str) -> (std::path::PathBuf, Value) {
    let records = dir.join("records");
    let output = probe_cmd()
        .args(["probe", "--transport", "stdio", "--jobs", "8", "--dialect", "chat", "--format", "json", "--records", records.to_str().unwrap()])
        .args(extra)
        .arg("--command")
        .arg(command)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let record = serde_json::from_str(&std::fs::read_to_string(records.join(record_dir).join("stdio.json")).unwrap()).unwrap();
    (records, record)
}

/// A record's verdicts of the model-facing affordance probes.
fn affordances_of(record: &Value) -> Vec<&Value> {
    record["verdicts"].as_array().unwrap().iter().filter(|v| v["probe"].as_str().unwrap().starts_with("affordances.")).collect()
}

/// A host without a profile, probed from one `probe --command` line and no wrapper script: the
/// command line shell-quoted, the model's URL handed over in an environment variable and the
/// server's command line in a file, the client named and versioned.
#[test]
fn a_host_is_probed_from_one_command_line_with_env_and_file_only() {
    let dir = tempfile::tempdir().unwrap();
    let exe = env!("CARGO_BIN_EXE_mcp-client-probe");
    let extra = ["--name", "fake-host", "--client-version", "1.2.3", "--env", "MCP_CLIENT_PROBE_MODEL_URL={stub_url}", "--file", "server.txt={server_command_line}"];
    let (_, record) = probe_chat_host(dir.path(), &extra, &format!("'{exe}' reference-host --tool-timeout-ms 10000 --server-file server.txt"), "fake-host/1.2.3");
    assert_eq!((record["client"].as_str(), record["version"].as_str()), (Some("fake-host"), Some("1.2.3")));
    let affordances = affordances_of(&record);
    assert!(affordances.len() >= 12);
    for verdict in affordances {
        assert_eq!(verdict["outcome"], "yes", "{verdict}");
    }
}

/// Ctrl-C during a probe: the runner kills every process of the run (the client ignores SIGTERM),
/// leaves no record and no staging directory behind, and exits 130.
#[test]
fn an_interrupted_probe_leaves_no_process_and_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pids");
    let records = dir.path().join("records");
    let fake = format!("{} fake-client", env!("CARGO_BIN_EXE_mcp-client-probe"));
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcp-client-probe"))
        .args(["probe", "--transport", "stdio", "--timeout", "120", "--format", "json", "--records", records.to_str().unwrap()])
        .arg("--command")
        .arg(format!("{fake} hang {} {{server}}", pidfile.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait (by events, not a clock) until a client of the run is up.
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&pidfile).unwrap_or_default().lines().next().is_none() {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "no client started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: kill(2) on a child's pid touches no memory.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for line in std::fs::read_to_string(&pidfile).unwrap().lines() {
        let pid: u32 = line.parse().unwrap();
        assert!(!alive(pid), "pid {pid} outlived the interrupted run");
    }
    let left: Vec<_> = std::fs::read_dir(&records).map(|d| d.map(|e| e.unwrap().file_name()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "the interrupted run left {left:?}");
}

/// A client whose every launch fails to start (an executable file the system cannot run) is the
/// harness's failure: exit 3, and no record.
#[test]
fn a_client_that_never_starts_is_no_record() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken-client");
    std::fs::write(&broken, [0u8, 1, 2, 3]).unwrap();
    std::fs::set_permissions(&broken, std::fs::Permissions::from_mode(0o755)).unwrap();
    let records = dir.path().join("records");
    let output =
        probe_cmd().args(["probe", "--transport", "stdio", "--records", records.to_str().unwrap(), "--command"]).arg(format!("{} {{server}}", broken.display())).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("failed to start"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(&records).map(|d| d.map(|e| e.unwrap().file_name()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

/// Issue 49, item 15: `--only` on a client makes the runs of the variants its probes are judged
/// on (and the standard run, which decides the era), not all of them.
#[test]
fn only_probes_a_client_against_the_variants_its_probes_need() {
    let dir = tempfile::tempdir().unwrap();
    let exe = env!("CARGO_BIN_EXE_mcp-client-probe");
    let (records, record) = probe_chat_host(
        dir.path(),
        &["--only", "tools.name_dots"],
        &format!("{exe} reference-host --tool-timeout-ms 10000 --model-url {{stub_url}} {{server}}"),
        "mcp-client-probe/unversioned",
    );
    let dots = record["verdicts"].as_array().unwrap().iter().find(|v| v["probe"] == "tools.name_dots").unwrap();
    assert_eq!(dots["outcome"], "yes", "{dots}");
    let journals: Vec<String> = std::fs::read_dir(records.join("mcp-client-probe/unversioned"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".jsonl") && !name.contains(".model."))
        .collect();
    assert_eq!(journals.len(), 2, "the standard and tool-names runs only: {journals:?}");
}

/// Issue 49, item 12: a client that never opens a session got a successful probe (exit 0, a
/// record, no hint). Now it exits 4, prints how its launches ended, whether the model stub was
/// called and the tail of its stderr, and with `--update` writes nothing.
#[test]
fn a_client_that_never_connects_exits_4_with_its_stderr_and_updates_nothing() {
    let cwd = tempfile::tempdir().unwrap();
    let output = probe_cmd()
        .current_dir(cwd.path())
        .args(["probe", "--transport", "stdio", "--update", "--dialect", "chat", "--format", "json", "--command"])
        .arg("sh -c 'echo the-client-says-why >&2; exit 1' {server}")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("  | the-client-says-why"), "the tail of its stderr: {stderr}");
    assert!(stderr.contains("exited with code 1"), "{stderr}");
    assert!(stderr.contains("the model stub was never called"), "{stderr}");
    assert!(stderr.contains("nothing written to the committed records"), "{stderr}");
    let written: Vec<_> = walk(cwd.path()).into_iter().filter(|p| p.is_file()).collect();
    assert!(written.is_empty(), "{written:?}");
}

/// Every path under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found
}

/// Issue 49, item 13: a stdio-shaped configuration given to the HTTP runs made an HTTP record
/// entirely of a stdio session. Such a run is refused (exit 2) and nothing is recorded.
#[test]
fn a_run_over_the_other_transport_is_refused_not_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let exe = env!("CARGO_BIN_EXE_mcp-client-probe");
    let records = dir.path().join("records");
    let output = probe_cmd()
        .args(["probe", "--transport", "http", "--dialect", "chat", "--only", "connection.client_info", "--records", records.to_str().unwrap()])
        .args(["--env", "MCP_CLIENT_PROBE_MODEL_URL={stub_url}", "--file", "server.txt={server_command_line}"])
        .arg("--command")
        .arg(format!("'{exe}' reference-host --tool-timeout-ms 10000 --server-file server.txt"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("connected over stdio in a run over http"), "{stderr}");
    let written: Vec<_> = walk(&records).into_iter().filter(|p| p.is_file()).collect();
    assert!(written.is_empty(), "{written:?}");
}
