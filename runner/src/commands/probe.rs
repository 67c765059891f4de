//! `probe`: the reference client (its runs, merged per transport and era) or a real client
//! (installed, launched against every server variant, recorded).

use anyhow::Result;
use probe_server::{Era, Variant};

use super::own_exe;
use crate::cli;
use crate::exit::{self, bad_input};
use crate::runs::reference::{self, RunSpec};
use crate::{clients::install, clients::profile, drivers::stub, records as record, records::baseline, records::matrix, runs::client, runs::self_test};

pub async fn probe(args: cli::ProbeArgs) -> Result<u8> {
    if args.client.is_some() || args.command.is_some() || args.profile.is_some() {
        return probe_client(args).await;
    }
    let for_clients = [
        ("--repeat", args.repeat > 1),
        ("--runs", args.runs != cli::RunKinds::All),
        ("--timeout", args.timeout.is_some()),
        ("--expect", args.expect.is_some()),
        ("--write-baseline", args.view.write_baseline.is_some()),
        ("--records", args.records.is_some()),
        ("--update", args.update),
    ];
    let given: Vec<&str> = for_clients.iter().filter(|(_, given)| *given).map(|(flag, _)| *flag).collect();
    if !given.is_empty() {
        let (them, apply) = if given.len() == 1 { (given[0].to_string(), "applies") } else { (given.join(" and "), "apply") };
        return Err(bad_input(format!("{them} {apply} to a client (a profile, a path or --command); the reference client's runs are the self-test's")));
    }
    if let Some(dir) = &args.keep_journals {
        check_writable(dir)?;
    }
    let selected = selected_probes(args.view.only.as_deref())?;
    let ablation = args.ablation;
    let mut specs = Vec::new();
    for transport in args.transport.transports() {
        for era in Era::ALL {
            for host in [false, true] {
                specs.extend(self_test::variants_over(transport, era, host).into_iter().map(|variant| RunSpec { transport, era, variant, host, variation: None, ablation }));
            }
        }
    }
    // With --only, the runs on which a selected probe is judged, and no other.
    if let Some(probes) = &selected {
        let planned = specs.len();
        specs.retain(|s| probes.iter().any(|p| p.variant() == s.variant && p.needs_model() == s.host && p.eras().contains(&s.era) && p.transports().contains(&s.transport)));
        crate::progress!("--only: {} of the {planned} reference runs", specs.len());
    }
    let jobs = args.jobs.unwrap_or_else(cli::default_jobs);
    let results = self_test::execute(specs, own_exe()?, jobs, args.keep_journals, "reference client").await;
    for failed in results.iter().filter_map(|r| r.harness_error.as_ref()) {
        eprintln!("mcp-client-probe: harness error: {failed}");
    }
    // The ablated runs stand in for the full ones here: merge them per transport and era.
    let unablated: Vec<reference::RunResult> = results
        .iter()
        .cloned()
        .map(|mut r| {
            r.spec.ablation = None;
            r
        })
        .collect();
    let merged = reference::merge_variants(&unablated);
    let runs: Vec<_> = merged.iter().collect();
    let mut matrix = crate::runs::reference::matrix_of("reference", &runs);
    // A probe of the client's frames against the official schemas cannot run without them: its
    // row goes, with a line saying why, rather than a column of not-reached cells.
    let unchecked = self_test::skipped_without_schemas();
    matrix.rows.retain(|r| !unchecked.contains(&r.probe.as_str()));
    super::print_matrix(&matrix, args.format, &args.view, true);
    if !unchecked.is_empty() && args.format == cli::MatrixFormatChoice::Table {
        crate::out!("not run: {} (no official schemas: give --schemas DIR or set MCP_SCHEMA_DIR)", unchecked.join(", "));
    }
    Ok(if results.iter().any(|r| r.harness_error.is_some()) { exit::HARNESS } else { exit::OK })
}

/// The probes `--only PATTERN` selects (None without it); a pattern no probe id contains is bad
/// input, with the areas' prefixes to choose from.
fn selected_probes(pattern: Option<&str>) -> Result<Option<Vec<&'static dyn probe_server::Probe>>> {
    let Some(pattern) = pattern else { return Ok(None) };
    let probes: Vec<&'static dyn probe_server::Probe> = probe_server::registry::probes().iter().copied().filter(|p| p.id().contains(pattern)).collect();
    if probes.is_empty() {
        let mut prefixes: Vec<&str> = probe_server::registry::probes().iter().filter_map(|p| p.id().split_once('.').map(|(area, _)| area)).collect();
        prefixes.dedup();
        return Err(bad_input(format!("--only {pattern:?}: no probe id contains it (`probes` lists them; they start with {}.)", prefixes.join(". "))));
    }
    Ok(Some(probes))
}

/// The server variants a client's pass runs for `--only`: those on which a selected probe is
/// judged, and the standard one (its run decides the era the rest is judged in).
fn selected_variants(selected: &[&'static dyn probe_server::Probe]) -> std::collections::BTreeSet<Variant> {
    selected.iter().map(|p| p.variant()).chain([Variant::Standard]).collect()
}

/// How a client given by command line is described: `--name`, `--client-version`, `--env`,
/// `--file`, `--dialect` and `--timeout`.
pub struct CommandClient<'a> {
    pub command_line: &'a str,
    pub timeout: u64,
    pub dialect: Option<stub::Dialect>,
    pub name: Option<&'a str>,
    pub version: Option<&'a str>,
    pub env: &'a [(String, String)],
    pub files: &'a [(String, String)],
    /// Files for the stdio runs only, and for the HTTP runs only.
    pub files_stdio: &'a [(String, String)],
    pub files_http: &'a [(String, String)],
}

/// The dummy keys a host given by command line gets with a model dialect, as profiles give them.
const DUMMY_KEYS: [(&str, &str); 3] = [
    ("ANTHROPIC_API_KEY", "sk-ant-mcp-client-probe-dummy-000000000000"),
    ("OPENAI_API_KEY", "sk-mcp-client-probe-dummy-000000000000"),
    ("GEMINI_API_KEY", "mcp-client-probe-dummy-000000000000"),
];

/// A profile for a client given by command line: no install, the server as arguments, a model
/// stub when the host speaks a model dialect. The command line is split as a shell would
/// (quotes and backslashes), without running a shell.
fn command_profile(client: &CommandClient<'_>) -> Result<(profile::Profile, std::path::PathBuf)> {
    let command_line = client.command_line;
    let words = shell_words::split(command_line).map_err(|e| bad_input(format!("--command {command_line:?}: {e}")))?;
    let Some((program, args)) = words.split_first() else { return Err(bad_input("--command is empty")) };
    // Where placeholders may stand: the arguments, the --env values, the --file texts.
    let file_texts = client.files.iter().chain(client.files_stdio).chain(client.files_http).map(|(_, t)| t);
    let texts: Vec<&String> = args.iter().chain(client.env.iter().map(|(_, v)| v)).chain(file_texts).collect();
    if !texts.iter().any(|a| profile::SERVER_PLACEHOLDERS.iter().any(|p| a.contains(p))) {
        return Err(bad_input(format!(
            "--command {command_line:?} never names the probe server: put {{server}} (or {{server_url}}, {{server_command_line}}) where it goes, in the command line, an --env or a --file"
        )));
    }
    let mut unknown: Vec<String> = texts.iter().flat_map(|t| profile::unknown_placeholders(t)).collect();
    unknown.dedup();
    if let Some(first) = unknown.first() {
        return Err(bad_input(format!(
            "{{{first}}} is no placeholder (it would reach the client as written); the placeholders are {}",
            profile::PLACEHOLDERS.iter().map(|p| format!("{{{p}}}")).collect::<Vec<_>>().join(", ")
        )));
    }
    if client.dialect.is_none() && texts.iter().any(|t| t.contains("{stub_url}")) {
        return Err(bad_input("{stub_url} needs --dialect: the model stub only runs for a host that speaks a model dialect"));
    }
    let files = command_files(client)?;
    let program = find_program(program)?.display().to_string();
    let mut env: std::collections::BTreeMap<String, String> = Default::default();
    if client.dialect.is_some() {
        env.extend(DUMMY_KEYS.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    }
    env.extend(client.env.iter().cloned());
    let name = client.name.map(str::to_string).unwrap_or_else(|| std::path::Path::new(&program).file_name().and_then(|n| n.to_str()).unwrap_or("command").to_string());
    let profile = profile::Profile {
        name,
        description: format!("command line: {command_line}"),
        dialect: client.dialect,
        install: profile::Install {
            npm: None,
            pypi: None,
            python: None,
            extras: Vec::new(),
            version: client.version.unwrap_or("unversioned").into(),
            executable: program.clone(),
            shares: None,
            node: None,
        },
        version: profile::VersionCheck { args: Vec::new(), word: 1, reports: Default::default() },
        files,
        launch: profile::Launch {
            args: args.to_vec(),
            steps: Vec::new(),
            stateless_steps: Vec::new(),
            env,
            prompt: String::new(),
            timeout_secs: client.timeout,
            max_parallel: None,
        },
        skills: None,
        interactive: None,
        long_calls: None,
        auth: None,
        // A command line's configuration is the user's own: what it tells the model is unknown.
        model_inputs: None,
    };
    Ok((profile, std::path::PathBuf::from(program)))
}

/// The files a command-line client is handed: `--file` for both transports, `--file-stdio` and
/// `--file-http` for one (the same path in both is one file with a text per transport). Every
/// path stays inside the client's sandbox: relative to its working directory, or under `{work}/`
/// or `{home}/`; an absolute path or a `..` is bad input.
fn command_files(client: &CommandClient<'_>) -> Result<Vec<profile::ConfigFile>> {
    let mut files: Vec<profile::ConfigFile> = Vec::new();
    let given = client
        .files
        .iter()
        .map(|f| (f, None))
        .chain(client.files_stdio.iter().map(|f| (f, Some(reference::Transport::Stdio))))
        .chain(client.files_http.iter().map(|f| (f, Some(reference::Transport::Http))));
    for ((path, text), only) in given {
        let path = sandboxed_path(path)?;
        let index = match files.iter().position(|f| f.path == path) {
            Some(index) => index,
            None => {
                files.push(profile::ConfigFile { path: path.clone(), content: None, stdio: None, http: None });
                files.len() - 1
            }
        };
        let file = &mut files[index];
        let slot = match only {
            None => &mut file.content,
            Some(reference::Transport::Stdio) => &mut file.stdio,
            Some(reference::Transport::Http) => &mut file.http,
        };
        if slot.replace(text.clone()).is_some() {
            return Err(bad_input(format!("{path:?} is given twice for the same transport")));
        }
    }
    Ok(files)
}

/// Where a `--file` path goes: under the client's working directory unless it starts with
/// `{work}/` or `{home}/`; never outside them.
fn sandboxed_path(path: &str) -> Result<String> {
    let outside = || bad_input(format!("--file {path:?}: a path must stay inside the client's sandbox (relative to its working directory, or under {{work}}/ or {{home}}/)"));
    let (root, rest) = match ["{work}/", "{home}/"].iter().find_map(|root| path.strip_prefix(root).map(|rest| (&root[..root.len() - 1], rest))) {
        Some(found) => found,
        None => ("{work}", path),
    };
    let parts = std::path::Path::new(rest).components();
    if rest.is_empty() || parts.clone().any(|c| !matches!(c, std::path::Component::Normal(_))) || rest.contains('{') {
        return Err(outside());
    }
    Ok(format!("{root}/{rest}"))
}

/// The program a command line starts: a path (relative to the current directory) or a name on
/// PATH; it must be an executable file.
fn find_program(program: &str) -> Result<std::path::PathBuf> {
    let candidates: Vec<std::path::PathBuf> = if program.contains('/') {
        vec![std::path::PathBuf::from(program)]
    } else {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).map(|dir| dir.join(program)).collect()
    };
    match candidates.iter().find(|c| c.is_file()) {
        Some(found) => {
            check_executable(found)?;
            // The client runs in a scratch directory: a relative path would not be found from there.
            Ok(std::path::absolute(found).unwrap_or_else(|_| found.clone()))
        }
        None if program.contains('/') && std::path::Path::new(program).is_dir() => Err(bad_input(format!("{program} is a directory, not a client executable"))),
        None if program.contains('/') => Err(bad_input(format!("no client executable at {program}"))),
        None => Err(bad_input(format!("no program named {program:?} on PATH"))),
    }
}

/// Refuses a file nobody may execute.
fn check_executable(path: &std::path::Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).map_err(|e| bad_input(format!("cannot read {}: {e}", path.display())))?.permissions().mode();
    if mode & 0o111 == 0 {
        return Err(bad_input(format!("{} is not executable", path.display())));
    }
    Ok(())
}

/// Refuses an output directory that cannot be written, before anything runs: the nearest
/// existing directory on its path must take a new file (tried and removed at once).
pub fn check_writable(dir: &std::path::Path) -> Result<()> {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let existing = absolute.ancestors().find(|a| a.exists()).unwrap_or(std::path::Path::new("/"));
    if !existing.is_dir() {
        return Err(bad_input(format!("{} cannot be a directory: {} is a file", dir.display(), existing.display())));
    }
    tempfile::tempfile_in(existing).map(drop).map_err(|e| bad_input(format!("cannot write into {}: {e}", dir.display())))
}

/// Refuses the flags that describe a client given by command line when the client is a profile
/// or a path: they would be silently ignored (the profile says its own dialect, environment and
/// files). Names the first flag typed.
fn refuse_command_flags_without_command(args: &cli::ProbeArgs) -> Result<()> {
    if args.command.is_some() {
        return Ok(());
    }
    let given = [
        ("--dialect", args.dialect.is_some()),
        ("--name", args.name.is_some()),
        ("--client-version", args.client_version.is_some()),
        ("--env", !args.envs.is_empty()),
        ("--file", !args.files.is_empty()),
        ("--file-stdio", !args.files_stdio.is_empty()),
        ("--file-http", !args.files_http.is_empty()),
    ];
    match given.iter().find(|(_, typed)| *typed) {
        Some((flag, _)) => Err(bad_input(format!("{flag} describes a client given by --command; a profile or a client path sets its own"))),
        None => Ok(()),
    }
}

/// Refuses `--runs interactive` where no interactive run can be made, before anything is installed.
fn check_runs(profile: &profile::Profile, args: &cli::ProbeArgs) -> Result<()> {
    if args.runs != cli::RunKinds::Interactive {
        return Ok(());
    }
    if profile.interactive.is_none() {
        return Err(bad_input(format!("--runs interactive: the profile of {} has no [interactive] section", profile.name)));
    }
    if args.transport.transports().contains(&reference::Transport::Http) {
        return Err(bad_input("--runs interactive: the interactive runs are over stdio only; add --transport stdio"));
    }
    Ok(())
}

async fn probe_client(args: cli::ProbeArgs) -> Result<u8> {
    refuse_command_flags_without_command(&args)?;
    let committed = std::path::Path::new(cli::COMMITTED_RECORDS);
    let records_root = match (&args.records, args.update) {
        (Some(dir), _) => dir.clone(),
        (None, true) => committed.to_path_buf(),
        (None, false) => install::cache_root().join("records"),
    };
    let updates_committed = args.update || records_root == committed;
    if args.runs != cli::RunKinds::All && updates_committed {
        return Err(bad_input("--runs headless or interactive makes a partial record: give --records DIR so it does not replace the committed one"));
    }
    let selected = selected_probes(args.view.only.as_deref())?;
    if selected.is_some() && updates_committed {
        return Err(bad_input("--only makes a partial record: give --records DIR so it does not replace the committed one"));
    }
    // With --only, the variants and transports its probes are judged on, and no other.
    let only_variants = selected.as_deref().map(selected_variants);
    let transports: Vec<reference::Transport> =
        args.transport.transports().into_iter().filter(|t| selected.as_ref().is_none_or(|probes| probes.iter().any(|p| p.transports().contains(t)))).collect();
    let baseline = match &args.expect {
        Some(path) => Some(baseline::Baseline::load(path).map_err(crate::exit::bad_input_from)?),
        None => None,
    };
    check_writable(&records_root)?;
    if let Some(path) = &args.view.write_baseline {
        check_writable(path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new(".")))?;
    }
    let timeout = args.timeout.unwrap_or(60);
    let target = if let Some(command) = &args.command {
        let client = CommandClient {
            command_line: command,
            timeout,
            dialect: args.dialect,
            name: args.name.as_deref(),
            version: args.client_version.as_deref(),
            env: &args.envs,
            files: &args.files,
            files_stdio: &args.files_stdio,
            files_http: &args.files_http,
        };
        let (profile, executable) = command_profile(&client)?;
        check_runs(&profile, &args)?;
        client::Target { version: profile.install.version.clone(), profile, executable }
    } else {
        let spec = args.client.clone().unwrap_or_default();
        if spec.contains('/') {
            let command_line = format!("{} {{server}}", shell_words::quote(&spec));
            let client = CommandClient { command_line: &command_line, timeout, dialect: None, name: None, version: None, env: &[], files: &[], files_stdio: &[], files_http: &[] };
            let (profile, executable) = command_profile(&client)?;
            client::Target { version: profile.install.version.clone(), profile, executable }
        } else {
            if args.timeout.is_some() {
                return Err(bad_input("--timeout applies to --command and path clients; a profile sets its own"));
            }
            let profile = match &args.profile {
                Some(file) => profile::Profile::load(file),
                None => profile::find(&profile::default_dir(), &spec),
            }
            .map_err(|e| bad_input(e.to_string()))?;
            check_runs(&profile, &args)?;
            crate::progress!("{}@{}: installing if needed", profile.name, profile.install.version);
            let installed = install::ensure_installed(&profile).await?;
            crate::progress!("{}@{} ready (--version took {} ms)", profile.name, installed.version, installed.version_ms);
            client::Target { profile, executable: installed.executable, version: installed.version }
        }
    };
    // Written aside and moved into place when every round is done: an interrupted or failed
    // probe leaves no half record.
    let staging = record::Staging::new(&records_root).map_err(|e| anyhow::anyhow!("cannot write into {}: {e}", records_root.display()))?;
    let dir = staging.record_dir(&target.profile.name, &target.version);
    let final_dir = record::record_dir(&records_root, &target.profile.name, &target.version);
    let mut records = Vec::new();
    let mut repeats_differ = false;
    for round in 1..=args.repeat {
        let mut round_records = Vec::new();
        let slots = client::RunSlots::new(crate::harness::slots::Slots::new(args.jobs.unwrap_or_else(cli::default_client_jobs)), target.profile.launch.max_parallel);
        let exe = own_exe()?;
        crate::progress!(
            "probing {}@{} over {} (round {round} of {})",
            target.profile.name,
            target.version,
            transports.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(" and "),
            args.repeat
        );
        let passes = transports.iter().map(|&transport| client::probe_all(&target, transport, args.runs, only_variants.as_ref(), &slots, &exe, &dir));
        crate::progress::begin(0, &format!("{}@{} round {round}", target.profile.name, target.version));
        let passes = futures::future::try_join_all(passes).await;
        crate::progress::end();
        for written in passes? {
            for record in written {
                crate::progress!("{} done in {} ms", record.column_transport(), record.duration_ms);
                round_records.push(record);
            }
        }
        if round > 1 {
            for (before, now) in records.iter().zip(&round_records) {
                for difference in verdict_differences(before, now) {
                    repeats_differ = true;
                    eprintln!("mcp-client-probe: round {round} differs from round 1: {difference}");
                }
            }
        } else {
            records = round_records;
        }
    }
    // A client that never started is the harness's problem (or the machine's), not a record.
    let launches: Vec<_> = records.iter().flat_map(|r| r.launches.iter()).collect();
    if !launches.is_empty() && launches.iter().all(|l| matches!(l.ending, crate::harness::launch::Ending::FailedToStart { .. })) {
        let why = launches.iter().find_map(|l| match &l.ending {
            crate::harness::launch::Ending::FailedToStart { error } => Some(error.clone()),
            _ => None,
        });
        anyhow::bail!("every launch of {} failed to start ({}); no record written", target.profile.name, why.unwrap_or_default());
    }
    // A client that started and never opened a session is told apart from one that did nothing
    // right: it gets its own exit code, and its words on stderr beside what the harness saw.
    let never_connected = never_connected(&records);
    if never_connected {
        report_never_connected(&target.profile, &dir, &records);
        if updates_committed {
            eprintln!("mcp-client-probe: nothing written to the committed records");
            return Ok(exit::NEVER_CONNECTED);
        }
    }
    staging.commit().map_err(|e| anyhow::anyhow!("cannot move the records into {}: {e}", final_dir.display()))?;
    if updates_committed {
        // The committed records keep their journals compressed (`matrix check` refuses them otherwise).
        record::compress_dir(&final_dir).map_err(|e| anyhow::anyhow!("cannot compress the journals in {}: {e}", final_dir.display()))?;
    }
    crate::progress!("records in {}", final_dir.display());
    if args.repeat > 1 {
        eprintln!("mcp-client-probe: {} rounds: {}", args.repeat, if repeats_differ { "verdicts differ" } else { "the same verdicts every round" });
    }
    let located: Vec<record::Located> =
        records.iter().map(|r| record::Located { relative: std::path::PathBuf::from(&r.client).join(&r.version).join(r.file_name()), record: r.clone() }).collect();
    if updates_committed {
        let out = std::path::Path::new(cli::COMMITTED_MATRIX);
        super::matrix::write_documents(committed, out)?;
        crate::progress!("{} rendered again from the committed records", out.display());
    }
    let matrix = matrix::from_records(&located, &records_root.display().to_string());
    super::print_matrix(&matrix, args.format, &args.view, false);
    if let Some(path) = &args.view.write_baseline {
        std::fs::write(path, baseline::write(&records.iter().collect::<Vec<_>>())).map_err(|e| anyhow::anyhow!("cannot write the baseline {}: {e}", path.display()))?;
        crate::progress!("baseline written to {}", path.display());
    }
    if repeats_differ {
        return Ok(exit::MISMATCH);
    }
    if let Some(baseline) = baseline {
        let problems = baseline::check(&baseline, &records.iter().collect::<Vec<_>>());
        for problem in &problems {
            eprintln!("mcp-client-probe: baseline: {problem}");
        }
        if !problems.is_empty() {
            return Ok(exit::MISMATCH);
        }
    }
    if never_connected {
        eprintln!("mcp-client-probe: {} never opened an MCP session: its record is in {} (exit {})", target.profile.name, final_dir.display(), exit::NEVER_CONNECTED);
        return Ok(exit::NEVER_CONNECTED);
    }
    Ok(exit::OK)
}

/// Whether no run of these records opened an MCP session: no era, and nothing judged but
/// not-reached and n/a.
fn never_connected(records: &[record::Record]) -> bool {
    use probe_server::Outcome;
    !records.is_empty() && records.iter().all(|r| r.era.is_none() && r.verdicts.iter().all(|v| matches!(v.outcome, Outcome::NotReached | Outcome::NotApplicable)))
}

/// How many lines of a client's stderr are shown when it never connected.
const STDERR_TAIL_LINES: usize = 12;

/// On stderr: how the launches ended, whether the model stub was ever asked anything, and the
/// tail of what the client wrote to stderr (the files beside the record keep all of it).
fn report_never_connected(profile: &profile::Profile, dir: &std::path::Path, records: &[record::Record]) {
    let launches: Vec<_> = records.iter().flat_map(|r| r.launches.iter()).collect();
    let mut endings: Vec<String> = launches.iter().map(|l| client::describe_ending(&l.ending)).collect();
    endings.sort();
    endings.dedup();
    eprintln!("mcp-client-probe: {} never opened an MCP session in any of its {} launches ({})", profile.name, launches.len(), endings.join("; "));
    let model = match profile.dialect {
        None => "no model stub ran (the client has no model dialect)".to_string(),
        Some(_) => {
            let asked_in = |path: &std::path::PathBuf| {
                probe_server::journal::read_journal(path).is_ok_and(|read| read.events.iter().any(|e| e.kind == probe_server::journal::EventKind::HttpRequest))
            };
            let asked = files_ending(dir, ".model.jsonl").iter().any(asked_in);
            if asked {
                "the model stub was called".to_string()
            } else {
                "the model stub was never called".to_string()
            }
        }
    };
    eprintln!("mcp-client-probe: {model}");
    // The file holds every launch of the pass, each after a `=== <variant> launch <n>` header;
    // the first is the standard run's first launch, what the other launches mostly repeat.
    for path in files_ending(dir, ".stderr.txt") {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mut sections = text.split("\n=== ");
        let first: Vec<&str> = sections.next().unwrap_or_default().lines().filter(|l| !l.trim().is_empty()).collect();
        let (header, lines) = first.split_first().map_or(("", &[][..]), |(h, rest)| (*h, rest));
        let tail = &lines[lines.len().saturating_sub(STDERR_TAIL_LINES)..];
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        eprintln!("mcp-client-probe: {name}, {}: the last {} line(s) of {}:", header.trim_start_matches("=== "), tail.len(), lines.len());
        for line in tail {
            eprintln!("  | {line}");
        }
    }
}

/// The files in `dir` whose names end with `ending`, sorted.
fn files_ending(dir: &std::path::Path, ending: &str) -> Vec<std::path::PathBuf> {
    let mut found: Vec<std::path::PathBuf> =
        std::fs::read_dir(dir).map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.to_string_lossy().ends_with(ending)).collect()).unwrap_or_default();
    found.sort();
    found
}

/// The probes whose outcome or detail differs between two records of the same transport.
fn verdict_differences(before: &record::Record, now: &record::Record) -> Vec<String> {
    use crate::records::compare::{compare, keyed, Difference, Same};
    compare(&keyed([before]), &keyed([now]), Same::OutcomeAndDetail)
        .into_iter()
        .map(|(key, difference)| match difference {
            Difference::Changed { before: b, after: n } => {
                format!("{} {}: {} ({}) then {} ({})", now.transport, key.probe, b.verdict.outcome.label(), b.verdict.detail, n.verdict.outcome.label(), n.verdict.detail)
            }
            Difference::Gone { .. } => format!("{} {}: no verdict", now.transport, key.probe),
            Difference::New { .. } => format!("{} {}: no verdict in the first round", now.transport, key.probe),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client<'a>(command_line: &'a str, files: &'a [(String, String)], files_stdio: &'a [(String, String)], files_http: &'a [(String, String)]) -> CommandClient<'a> {
        CommandClient { command_line, timeout: 60, dialect: None, name: None, version: None, env: &[], files, files_stdio, files_http }
    }

    /// Issue 49, item 14: the documented JSON placeholders were refused as naming no server.
    #[test]
    fn every_server_placeholder_names_the_server() {
        for placeholder in profile::SERVER_PLACEHOLDERS {
            let files = [("mcp.json".to_string(), format!("{{\"server\": {placeholder}}}"))];
            let made = command_profile(&client("sh -c true", &files, &[], &[]));
            assert!(made.is_ok(), "{placeholder}: {:?}", made.err());
        }
        assert!(command_profile(&client("sh -c true", &[("mcp.json".into(), "{}".into())], &[], &[])).is_err());
    }

    /// Issue 49, item 13: one file text served both transports; now each may have its own, and a
    /// path given for one transport only is written for that one.
    #[test]
    fn a_file_may_have_a_text_per_transport() {
        let stdio = [("mcp.json".to_string(), "{server_argv_json}".to_string()), ("only-stdio.txt".to_string(), "x".to_string())];
        let http = [("mcp.json".to_string(), "{server_url}".to_string())];
        let (profile, _) = command_profile(&client("sh -c true", &[], &stdio, &http)).unwrap();
        let mcp = profile.files.iter().find(|f| f.path == "{work}/mcp.json").unwrap();
        assert_eq!((mcp.content.as_deref(), mcp.stdio.as_deref(), mcp.http.as_deref()), (None, Some("{server_argv_json}"), Some("{server_url}")));
        let only = profile.files.iter().find(|f| f.path == "{work}/only-stdio.txt").unwrap();
        assert_eq!((only.stdio.as_deref(), only.http.as_deref()), (Some("x"), None));
        assert_eq!(sandboxed_path("{home}/.config/x.json").unwrap(), "{home}/.config/x.json");
        assert_eq!(sandboxed_path("sub/x.json").unwrap(), "{work}/sub/x.json");
    }
}
