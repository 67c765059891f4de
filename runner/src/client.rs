//! Probing a real client: a private HOME and working directory, the model stub (for agent hosts),
//! the probe server (stdio: the client spawns this tool's `serve --stdio`; HTTP: served here on
//! loopback), the client's configuration files, its launches, then the journal judged into a record.
//! A client that hangs, crashes or never connects still yields a complete record.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use probe_server::journal::{concatenate, read_journal, write_events, Journal};
use probe_server::observe::Observations;
use probe_server::transport::http::{serve_http, MCP_PATH};
use probe_server::{registry, ServeOptions};
use tokio_util::sync::CancellationToken;

use crate::launch::{launch, Ending, LaunchRecord, LaunchSpec};
use crate::profile::{Profile, Vars};
use crate::record::{self, LaunchSummary, Record, RECORD_FORMAT};
use crate::run::Transport;
use crate::stub;

/// A client ready to be probed.
#[derive(Debug, Clone)]
pub struct Target {
    pub profile: Profile,
    pub executable: PathBuf,
    pub version: String,
}

/// Files beside a record.
pub fn journal_name(transport: Transport) -> String {
    format!("{}.journal.jsonl", transport.as_str())
}

fn model_journal_name(transport: Transport) -> String {
    format!("{}.model.jsonl", transport.as_str())
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Probes `target` once over `transport`; journals and the record go to `out_dir`.
pub async fn probe(target: &Target, transport: Transport, server_exe: &Path, out_dir: &Path) -> Result<Record, String> {
    let started = Instant::now();
    std::fs::create_dir_all(out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let scratch = tempfile::tempdir().map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let (home, work) = (scratch.path().join("home"), scratch.path().join("work"));
    for dir in [&home, &work] {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let profile = &target.profile;
    let launches = profile.launches();
    let step_journal = |i: usize| scratch.path().join(format!("journal-{i}.jsonl"));

    let model_journal_path = out_dir.join(model_journal_name(transport));
    let stub = match profile.dialect {
        Some(_) => Some(stub::start(Journal::create(&model_journal_path).map_err(|e| e.to_string())?).await.map_err(|e| format!("cannot start the model stub: {e}"))?),
        None => None,
    };
    let shutdown = CancellationToken::new();
    let mut http_server = None;
    let mut server_url = String::new();
    if transport == Transport::Http {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| format!("cannot bind loopback: {e}"))?;
        server_url = format!("http://{}{MCP_PATH}", listener.local_addr().map_err(|e| e.to_string())?);
        let journal = Journal::create(&step_journal(0)).map_err(|e| e.to_string())?;
        http_server = Some(tokio::spawn(serve_http(listener, journal, ServeOptions::default(), shutdown.clone())));
    }

    let mut records: Vec<LaunchRecord> = Vec::new();
    for (index, args) in launches.iter().enumerate() {
        let journal_path = step_journal(index);
        let server_args = vec!["serve".to_string(), "--stdio".into(), "--journal".into(), journal_path.display().to_string()];
        let mut vars = Vars::default();
        let command = server_exe.display().to_string();
        for (key, value) in [
            ("home", home.display().to_string()),
            ("work", work.display().to_string()),
            ("stub_url", stub.as_ref().map(|s| s.base_url.clone()).unwrap_or_default()),
            ("prompt", profile.launch.prompt.clone()),
            ("server_url", server_url.clone()),
            ("server_command", command.clone()),
            ("server_command_json", json_str(&command)),
            ("server_args_json", serde_json::to_string(&server_args).unwrap_or_default()),
            ("server_command_line", std::iter::once(command.clone()).chain(server_args.iter().cloned()).collect::<Vec<_>>().join(" ")),
        ] {
            vars.values.insert(key, value);
        }
        vars.server = match transport {
            Transport::Stdio => std::iter::once(command).chain(server_args).collect(),
            Transport::Http => vec![server_url.clone()],
        };
        for file in &profile.files {
            let content = match transport {
                Transport::Stdio => file.stdio.as_ref().or(file.content.as_ref()),
                Transport::Http => file.http.as_ref().or(file.content.as_ref()),
            };
            let path = PathBuf::from(vars.fill(&file.path));
            if let Some(parent) = path.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            std::fs::write(&path, vars.fill(content.map(String::as_str).unwrap_or_default())).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        let spec = LaunchSpec {
            program: target.executable.clone(),
            args: vars.fill_args(args),
            env: profile.launch.env.iter().map(|(k, v)| (k.clone(), vars.fill(v))).collect(),
            cwd: work.clone(),
            home: home.clone(),
            timeout: Duration::from_secs(profile.launch.timeout_secs),
            grace: Duration::from_secs(3),
            stdin: None,
            marker: format!("{}-{}-{}-{index}", profile.name, transport.as_str(), std::process::id()),
        };
        records.push(launch(&spec).await);
    }

    if let Some(stub) = stub {
        stub.stop().await;
    }
    shutdown.cancel();
    if let Some(server) = http_server {
        let _ = tokio::time::timeout(Duration::from_secs(5), server).await;
    }

    let parts: Vec<_> = (0..launches.len()).map(step_journal).filter(|p| p.exists()).filter_map(|p| read_journal(&p).ok()).collect();
    let joined = concatenate(parts);
    let journal_file = journal_name(transport);
    write_events(&out_dir.join(&journal_file), &joined.events).map_err(|e| e.to_string())?;
    let observations = Observations::from_read(joined);
    let lifecycle = observations.lifecycle();
    let mut notes = Vec::new();
    let mut verdicts = registry::judge_all(&observations);
    if lifecycle.is_none() {
        let why = describe_endings(&records);
        notes.push(format!("the client never opened an MCP session: {why}"));
        for verdict in &mut verdicts {
            verdict.detail = format!("{} (the client {why})", verdict.detail);
        }
    }
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    for (i, r) in records.iter().enumerate() {
        let header = format!("=== launch {i}: {:?}\n", r.ending);
        for (all, part) in [(&mut stdout, &r.stdout), (&mut stderr, &r.stderr)] {
            all.extend_from_slice(header.as_bytes());
            all.extend_from_slice(part);
            if !part.ends_with(b"\n") {
                all.push(b'\n');
            }
        }
        if r.swept > 0 {
            notes.push(format!("launch {i}: {} process(es) outlived the client and were killed", r.swept));
        }
    }
    let _ = std::fs::write(out_dir.join(format!("{}.stdout.txt", transport.as_str())), stdout);
    let _ = std::fs::write(out_dir.join(format!("{}.stderr.txt", transport.as_str())), stderr);
    let record = Record {
        format_version: RECORD_FORMAT,
        client: profile.name.clone(),
        version: target.version.clone(),
        transport: transport.as_str().into(),
        era: lifecycle.as_ref().map(|l| l.era),
        client_info: lifecycle.as_ref().and_then(|l| l.client_info.clone()),
        declared_capabilities: lifecycle.as_ref().and_then(|l| l.capabilities.clone()),
        protocol_version: lifecycle.and_then(|l| l.negotiated_version),
        date: record::today(),
        probe_version: env!("CARGO_PKG_VERSION").into(),
        probe_commit: record::probe_commit(),
        os: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
        verdicts,
        launches: records.iter().map(LaunchSummary::from).collect(),
        duration_ms: started.elapsed().as_millis() as u64,
        journal: journal_file,
        model_journal: profile.dialect.map(|_| model_journal_name(transport)),
        notes,
    };
    record::write(&record, out_dir).map_err(|e| format!("cannot write the record: {e}"))?;
    Ok(record)
}

fn describe_endings(records: &[LaunchRecord]) -> String {
    let parts: Vec<String> = records
        .iter()
        .map(|r| match &r.ending {
            Ending::Exited { code } => format!("exited with code {code}"),
            Ending::Signalled { signal } => format!("killed by signal {signal}"),
            Ending::TimedOut => "timed out and was stopped".to_string(),
            Ending::FailedToStart { error } => format!("failed to start ({error})"),
        })
        .collect();
    parts.join("; ")
}
