//! Probing a real client: one run per server variant, each with a private HOME and working
//! directory, the model stub (for agent hosts), the probe server (stdio: the client spawns this
//! tool's `serve --stdio`; HTTP: served here on loopback), the client's configuration files and
//! its launches; then the journals judged together into one record per transport.
//! A client that hangs, crashes or never connects still yields a complete record.

mod interactive;
pub mod sign_in;
mod variant;

use probe_server::note::Payload;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use probe_server::journal::{concatenate, read_journal, restarts, rewrite_compacted, write_events, JournalRead};
use probe_server::note::Note;
use probe_server::observe::Observations;
use probe_server::{registry, Era, EraPolicy, ServeOptions, Variant};

pub use crate::harness::slots::RunSlots;

/// Which of a profiled client's runs to make: the headless ones, the interactive ones (through a
/// terminal), or all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RunKinds {
    All,
    Headless,
    Interactive,
}

impl RunKinds {
    pub fn headless(self) -> bool {
        self != RunKinds::Interactive
    }
    pub fn interactive(self) -> bool {
        self != RunKinds::Headless
    }
}

use crate::clients::profile::{Profile, Vars};
use crate::drivers::terminal::login::{sign_in_isolated, TerminalSignIn};
use crate::harness::launch::{launch, Ending, Launch, LaunchRecord, LaunchSpec};
use crate::harness::RunFiles;
use crate::harness::Transport;
use crate::records::{self, LaunchSummary, Record, RECORD_FORMAT};
use crate::runs::session::{Harness, ModelJournal, RunError, Session};
use probe_server::note::ClientExited;

/// A client ready to be probed.
#[derive(Debug, Clone)]
pub struct Target {
    pub profile: Profile,
    pub executable: PathBuf,
    pub version: String,
}

/// One pass of a client over one transport: the probe server speaking both eras (the main
/// record), or one era only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub transport: Transport,
    pub eras: EraPolicy,
}

impl Pass {
    pub fn dual(transport: Transport) -> Pass {
        Pass { transport, eras: EraPolicy::Dual }
    }

    /// Whether the pass runs the server variant: the dual pass runs every one; a one-era pass only
    /// the standard variant and those that some probe of the legacy era alone is judged on (what
    /// the other variants show does not depend on the era, and the dual pass has it), unless the
    /// variant's server speaks only the legacy era anyway (the dual pass ran it the same way).
    fn runs(self, variant: Variant) -> bool {
        self.eras.is_dual() || variant.is_standard() || (!variant.legacy_only() && registry::judged_on(variant).any(|p| !p.eras().contains(&Era::Modern)))
    }

    /// `stdio`, or `stdio.legacy-only` for a one-era server.
    fn stem(self) -> String {
        match self.eras {
            EraPolicy::Dual => self.transport.as_str().to_string(),
            eras => format!("{}.{}-only", self.transport.as_str(), eras.as_str()),
        }
    }
}

/// The journal of `variant` beside a record of `pass` (see [`RunFiles`]).
pub fn journal_name(pass: Pass, variant: Variant) -> String {
    RunFiles { stem: &pass.stem(), variant }.journal()
}

fn model_journal_name(pass: Pass, variant: Variant) -> String {
    RunFiles { stem: &pass.stem(), variant }.model_journal()
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// What one run against one server variant produced.
struct VariantRun {
    variant: Variant,
    observations: Observations,
    launches: Vec<LaunchRecord>,
    /// Interactive runs: where the keystroke plan stopped, if it did.
    plan_stopped: Option<String>,
}

/// Probes `target` over `transport` against the dual server and then, for what the dual server
/// cannot show, against a one-era server: a host that chose 2026-07-28 is probed again against a
/// legacy-only server (its legacy behaviour and its fallback, as a record of its own); a host that
/// chose the legacy era is run once against a 2026-07-28-only server (the modern-only variant),
/// whose journal joins the main record's and whose probes are judged on it. Returns the records
/// written to `out_dir`.
pub async fn probe_all(
    target: &Target,
    transport: Transport,
    runs_wanted: RunKinds,
    only: Option<&BTreeSet<Variant>>,
    slots: &RunSlots,
    server_exe: &Path,
    out_dir: &Path,
) -> Result<Vec<Record>, RunError> {
    // What the dual pass cannot show depends only on the era its standard run chose: the one-era
    // run or pass starts as soon as that is known, beside the dual pass's other runs.
    let (chosen, era) = tokio::sync::oneshot::channel();
    let main = probe(target, Pass::dual(transport), runs_wanted, only, slots, server_exe, out_dir, Some(chosen));
    let one_era = async {
        match era.await {
            Ok(Some(Era::Modern)) => {
                let legacy = probe(target, Pass { transport, eras: EraPolicy::Legacy }, runs_wanted, only, slots, server_exe, out_dir, None).await?;
                Ok(OneEra::Pass(Box::new(legacy)))
            }
            Ok(Some(Era::Legacy)) if only.is_none_or(|only| only.contains(&Variant::ModernOnly)) => {
                let pass = Pass::dual(transport);
                crate::progress::plan_more(1);
                let _slot = slots.take(start_place(Variant::ModernOnly)).await;
                let run = variant::run_variant(target, pass, Variant::ModernOnly, server_exe, out_dir).await?;
                crate::run_finished!("{} {} {}: {}", target.profile.name, pass.stem(), Variant::ModernOnly, describe_run(&run.launches));
                Ok(OneEra::FallForward(fall_forward_note(&run), run.launches))
            }
            // No session, or no headless runs: nothing the other era could add.
            Ok(_) | Err(_) => Ok(OneEra::None),
        }
    };
    let (mut main, one_era) = futures::try_join!(main, one_era)?;
    match one_era {
        OneEra::Pass(legacy) => Ok(vec![main, *legacy]),
        OneEra::FallForward(note, launches) => {
            // The run's journal joins the record's, and its probes are judged on it.
            main.notes.push(note);
            main.variant_journals.insert(Variant::ModernOnly.to_string(), journal_name(Pass::dual(transport), Variant::ModernOnly));
            main.launches.extend(launches.iter().map(|l| LaunchSummary::from(l).in_variant(Variant::ModernOnly)));
            main.verdicts = records::rejudge::rejudge(out_dir, &main).map_err(|e| RunError::Record(std::io::Error::other(e)))?;
            records::write(&main, out_dir).map_err(RunError::Record)?;
            Ok(vec![main])
        }
        OneEra::None => Ok(vec![main]),
    }
}

/// What a pass against a one-era server added to the dual pass.
enum OneEra {
    /// A host that chose 2026-07-28, probed again against a legacy-only server: a record.
    Pass(Box<Record>),
    /// A host that chose the legacy era, run against a 2026-07-28-only server (the modern-only
    /// variant): a note, and the run's launches.
    FallForward(String, Vec<LaunchRecord>),
    None,
}

/// What a host that chose the legacy era did against a server that speaks only 2026-07-28.
fn fall_forward_note(run: &VariantRun) -> String {
    let prefix = "against a 2026-07-28-only server";
    match run.observations.lifecycle() {
        Some(l) if l.era == Era::Modern => format!("{prefix}: fell forward, opened a {} session", l.negotiated_version.unwrap_or_default()),
        Some(l) => {
            let refused = run.observations.notes(Note::RefusedInitialize).count();
            format!("{prefix}: asked for {} (legacy) and did not fall forward ({refused} refusal(s) journalled)", l.requested_version.unwrap_or_default())
        }
        None => format!("{prefix}: never opened a session ({})", describe_endings(&run.launches)),
    }
}

/// Where a run of `variant` asks for a slot (see [`RunSlots::take`]), the kinds that take longest on
/// a real host first: a person working a form in a terminal; a sign-in (a login, a browser,
/// consent; some hosts sign in one run at a time) and the standard run (every probe's calls; the
/// era it chose decides what else is run); the runs stopped by a bound rather than by the host (a
/// call held for seconds, a discovery never answered); then the rest.
fn start_place(variant: Variant) -> usize {
    match variant {
        v if v.is_interactive() => 0,
        v if v.is_auth() || v.is_standard() => 1,
        v if mostly_waits(v) => 2,
        _ => 3,
    }
}

/// Whether a run of `variant` mostly waits for its bound (a call held for seconds, a discovery
/// never answered): such runs hold at most half the slots (see [`RunSlots::take_to_wait`]).
fn mostly_waits(variant: Variant) -> bool {
    matches!(variant, Variant::LongCalls | Variant::DiscoverUnanswered)
}

/// Whether every probe judged on `variant` reads the model's side (and some probe is judged
/// on it): large-results and tool-names.
fn judged_from_the_model_only(variant: Variant) -> bool {
    let mut judged = registry::judged_on(variant).peekable();
    !variant.is_standard() && judged.peek().is_some() && judged.all(|p| p.needs_model())
}

/// Probes `target` in `pass` again, running only `variants` (those that apply to the pass): the
/// record's verdicts of the probes judged on them are as a full pass would judge them, the others
/// say their variant was not run.
pub async fn probe_variants(target: &Target, pass: Pass, variants: &BTreeSet<Variant>, slots: &RunSlots, server_exe: &Path, out_dir: &Path) -> Result<Record, RunError> {
    probe(target, pass, RunKinds::All, Some(variants), slots, server_exe, out_dir, None).await
}

/// Probes `target` in one pass, once per server variant that means anything over its transport
/// (of `only`, when given); journals and the record go to `out_dir`. The era the standard run
/// chose is sent on `chosen` as soon as it is known (`None` when no session was opened).
#[allow(clippy::too_many_arguments)]
async fn probe(
    target: &Target,
    pass: Pass,
    runs_wanted: RunKinds,
    only: Option<&BTreeSet<Variant>>,
    slots: &RunSlots,
    server_exe: &Path,
    out_dir: &Path,
    chosen: Option<tokio::sync::oneshot::Sender<Option<Era>>>,
) -> Result<Record, RunError> {
    // The modern-only variant follows a legacy opening (`probe_all` runs it then); a pass of some
    // variants only (`probe_variants`, asked of a record that has it) runs it with the rest.
    let runs_after_opening = chosen.is_none() && only.is_some();
    let chosen = &std::sync::Mutex::new(chosen);
    let started = Instant::now();
    let transport = pass.transport;
    std::fs::create_dir_all(out_dir).map_err(RunError::write(out_dir))?;
    // A client without a model gets nothing to show in a variant whose every probe is judged from
    // the model's side: that run is not made.
    let without_model = |variant: Variant| target.profile.dialect.is_none() && judged_from_the_model_only(variant);
    let selected = |variant: Variant| only.is_none_or(|only| only.contains(&variant));
    let headless: Vec<Variant> = Variant::ALL
        .into_iter()
        .filter(|s| {
            s.applies_to(transport)
                && !s.is_interactive()
                && (!s.after_a_legacy_opening() || runs_after_opening)
                && runs_wanted.headless()
                && pass.runs(*s)
                && !without_model(*s)
                && selected(*s)
        })
        .collect();
    // What a person sees does not depend on the server's eras: the interactive runs go with the
    // main pass, each in a terminal of its own.
    let interactive = target.profile.interactive.as_ref().filter(|_| transport == Transport::Stdio && runs_wanted.interactive() && pass.eras.is_dual());
    let interactive_variants: Vec<Variant> = interactive.map_or_else(Vec::new, |_| Variant::interactive().filter(|v| selected(*v)).collect());
    crate::progress::plan_more((headless.len() + interactive_variants.len()) as u64);
    let interactive_runs = futures::future::try_join_all(interactive.into_iter().flat_map(|interactive| {
        interactive_variants.iter().copied().map(move |variant| async move {
            let _slot = slots.take(start_place(variant)).await;
            let run = interactive::run_interactive(target, interactive, variant, server_exe, out_dir).await?;
            let stopped = run.plan_stopped.as_deref().map(|r| format!("; the keystroke plan stopped: {r}")).unwrap_or_default();
            crate::run_finished!("{} interactive {variant}: {}{stopped}", target.profile.name, describe_run(&run.launches));
            Ok::<_, RunError>(run)
        })
    }));
    // Each run has its own scratch directory, stub, server and journals: they run at once, as
    // many as the slots allow (the longest kinds first), and come back in the variants' order.
    let headless_runs = futures::future::try_join_all(headless.into_iter().map(|variant| async move {
        // A host whose sign-in callback has a fixed port signs in one run at a time, and with the
        // other profiles of its program (same port); a run waits for its turn before it takes a
        // slot, so that waiting holds none.
        let _signing_in = match target.profile.auth.as_ref().filter(|a| a.one_at_a_time && variant.is_auth()) {
            Some(_) => Some(sign_in::one_at_a_time(sign_in::program_of(&target.profile)).await),
            None => None,
        };
        let _slot = match mostly_waits(variant) {
            true => slots.take_to_wait(start_place(variant)).await,
            false => slots.take(start_place(variant)).await,
        };
        let run = variant::run_variant(target, pass, variant, server_exe, out_dir).await?;
        crate::run_finished!("{} {} {variant}: {}", target.profile.name, pass.stem(), describe_run(&run.launches));
        if variant.is_standard() {
            if let Some(chosen) = chosen.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take() {
                let _ = chosen.send(run.observations.lifecycle().map(|l| l.era));
            }
        }
        Ok::<_, RunError>(run)
    }));
    let (interactive_runs, mut runs) = futures::try_join!(interactive_runs, headless_runs)?;
    runs.extend(interactive_runs);
    if runs.is_empty() {
        return Err(RunError::NothingToRun { client: target.profile.name.clone(), transport: transport.as_str() });
    }
    let profile = &target.profile;
    let observed: Vec<(Variant, &Observations)> = runs.iter().map(|r| (r.variant, &r.observations)).collect();
    let opened_in = runs[0].observations.lifecycle().map(|l| l.era);
    // The judges get the reasons for the variants not run, so every verdict is final as judged
    // (but for the modern-only run after a legacy opening, which `probe_all` adds).
    let absence = |variant: Variant| {
        if let Some(absent) = registry::Absence::outside_one_era_pass(variant, pass.eras).or_else(|| registry::Absence::after_a_modern_opening(variant, opened_in)) {
            return Some(absent);
        }
        if without_model(variant) {
            return Some(registry::Absence::CannotRun(format!("not run: the client has no model, and every probe of the {variant} variant is judged from the model's side")));
        }
        (variant.is_interactive() && profile.interactive.is_none()).then(|| registry::Absence::CannotRun("not driven: the client's profile has no interactive section".into()))
    };
    let verdicts = registry::judge_runs_with(&observed, absence);
    let mut notes = Vec::new();
    for run in &runs {
        if let Some(reason) = &run.plan_stopped {
            notes.push(format!("{}: the keystroke plan stopped: {reason}", run.variant));
        }
    }
    if runs.iter().any(|r| r.variant == Variant::LongCalls) {
        let set = profile
            .long_calls
            .as_ref()
            .map_or("the host's own tool timeout (the profile sets none)".to_string(), |l| format!("a tool timeout of {} s set by the profile", l.tool_timeout_secs));
        notes.push(format!("{}: {set}; the run is stopped after {} s at the latest", Variant::LongCalls, profile.launch.timeout_secs.min(LONG_CALLS_BOUND_SECS)));
    }
    if runs.iter().any(|r| r.variant == Variant::DiscoverUnanswered) {
        notes.push(format!("{}: the run is stopped after {} s at the latest", Variant::DiscoverUnanswered, profile.launch.timeout_secs.min(LONG_CALLS_BOUND_SECS)));
    }
    for run in runs.iter().filter(|r| r.observations.lifecycle().is_none()) {
        notes.push(format!("{}: the client never opened an MCP session: {}", run.variant, describe_endings(&run.launches)));
    }
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    for run in &runs {
        for (i, r) in run.launches.iter().enumerate() {
            let header = format!("=== {} launch {i}: {:?}\n", run.variant, r.ending);
            for (all, part) in [(&mut stdout, &r.stdout), (&mut stderr, &r.stderr)] {
                all.extend_from_slice(header.as_bytes());
                all.extend_from_slice(part);
                if !part.ends_with(b"\n") {
                    all.push(b'\n');
                }
            }
            if r.swept > 0 {
                notes.push(format!("{} launch {i}: {} process(es) outlived the client and were killed", run.variant, r.swept));
            }
        }
    }
    let _ = std::fs::write(out_dir.join(format!("{}.stdout.txt", pass.stem())), stdout);
    let _ = std::fs::write(out_dir.join(format!("{}.stderr.txt", pass.stem())), stderr);
    let standard = &runs[0].observations;
    let lifecycle = standard.lifecycle();
    let record = Record {
        format_version: RECORD_FORMAT,
        client: profile.name.clone(),
        version: target.version.clone(),
        transport: transport.as_str().into(),
        server_eras: pass.eras,
        era: lifecycle.as_ref().map(|l| l.era),
        client_info: lifecycle.as_ref().and_then(|l| l.client_info.clone()),
        declared_capabilities: lifecycle.as_ref().and_then(|l| l.capabilities.clone()),
        protocol_version: lifecycle.and_then(|l| l.negotiated_version),
        date: records::today(),
        probe_version: env!("CARGO_PKG_VERSION").into(),
        probe_commit: records::probe_commit(),
        os: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
        verdicts,
        launches: runs.iter().flat_map(|run| run.launches.iter().map(move |l| LaunchSummary::from(l).in_variant(run.variant))).collect(),
        duration_ms: started.elapsed().as_millis() as u64,
        journal: journal_name(pass, Variant::Standard),
        // Every run but the standard one, which is `journal` (a pass of interactive runs alone has none).
        variant_journals: runs.iter().filter(|r| r.variant != Variant::Standard).map(|r| (r.variant.to_string(), journal_name(pass, r.variant))).collect(),
        model_journal: profile.dialect.map(|_| model_journal_name(pass, Variant::Standard)),
        notes,
    };
    records::write(&record, out_dir).map_err(RunError::Record)?;
    Ok(record)
}

/// The long-calls and discover-unanswered variants' runs end here at the latest (a host without
/// a timeout would wait on the call, or the discover, that never answers until its profile's
/// timeout).
pub const LONG_CALLS_BOUND_SECS: u64 = 45;

/// The run's directories and the probe server's executable.
struct RunPaths<'a> {
    home: &'a Path,
    work: &'a Path,
    server_exe: &'a Path,
}

/// The placeholders of one launch.
fn run_vars(paths: RunPaths<'_>, stub_url: &str, prompt: &str, server_url: &str, server_args: Vec<String>, transport: Transport) -> Vars {
    let mut vars = Vars::default();
    let command = paths.server_exe.display().to_string();
    for (key, value) in [
        ("home", paths.home.display().to_string()),
        ("work", paths.work.display().to_string()),
        ("stub_url", stub_url.to_string()),
        ("prompt", prompt.to_string()),
        ("server_url", server_url.to_string()),
        ("server_command", command.clone()),
        ("server_command_json", json_str(&command)),
        ("server_args_json", serde_json::to_string(&server_args).unwrap_or_default()),
        ("server_argv_json", serde_json::to_string(&std::iter::once(&command).chain(&server_args).collect::<Vec<_>>()).unwrap_or_default()),
        ("server_command_line", std::iter::once(command.clone()).chain(server_args.iter().cloned()).collect::<Vec<_>>().join(" ")),
    ] {
        vars.values.insert(key, value);
    }
    vars.server = match transport {
        Transport::Stdio => std::iter::once(command).chain(server_args).collect(),
        Transport::Http => vec![server_url.to_string()],
    };
    vars
}

/// Writes a profile's configuration files with the run's placeholders filled. A file with a text
/// for the other transport only is not written.
fn write_files<'a>(files: impl Iterator<Item = &'a crate::clients::profile::ConfigFile>, vars: &Vars, transport: Transport) -> Result<(), RunError> {
    for file in files {
        let content = match transport {
            Transport::Stdio => file.stdio.as_ref().or(file.content.as_ref()),
            Transport::Http => file.http.as_ref().or(file.content.as_ref()),
        };
        if content.is_none() && (file.stdio.is_some() || file.http.is_some()) {
            continue;
        }
        let path = PathBuf::from(vars.fill(&file.path));
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        std::fs::write(&path, vars.fill(content.map(String::as_str).unwrap_or_default())).map_err(RunError::write(&path))?;
    }
    Ok(())
}

/// The files under `roots` after a skills run: those inside the host's skills directory (relative
/// to it), and those elsewhere whose path names a served skill or an escaping target.
fn files_on_disk(roots: &[&Path], skills_dir: &Path) -> serde_json::Value {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>, depth: usize) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.filter_map(|e| e.ok()) {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() && depth < 12 => walk(&path, found, depth + 1),
                Ok(t) if t.is_file() => found.push(path),
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    for root in roots {
        walk(root, &mut found, 0);
    }
    found.sort();
    let skill_like = |p: &Path| {
        let text = p.display().to_string();
        text.contains(probe_server::skills::ESCAPE_MARK) || probe_server::skills::catalogue().skills.iter().any(|s| text.contains(&format!("/{}/", s.name)))
    };
    let inside: Vec<String> = found.iter().filter_map(|p| p.strip_prefix(skills_dir).ok()).map(|p| p.display().to_string()).collect();
    let outside: Vec<String> = found.iter().filter(|p| !p.starts_with(skills_dir) && skill_like(p)).map(|p| p.display().to_string()).collect();
    probe_server::note::FilesOnDisk { skills_dir: skills_dir.display().to_string(), in_skills_dir: inside, elsewhere: outside }.detail()
}

/// How the launches ended, each way once with how many ended so ("exited with code 0" for one
/// launch, "19 launches exited with code 0" for a host run in steps).
fn describe_endings(records: &[LaunchRecord]) -> String {
    let mut ways: Vec<(String, usize)> = Vec::new();
    for record in records {
        let said = describe_ending(&record.ending);
        match ways.iter_mut().find(|(way, _)| *way == said) {
            Some((_, count)) => *count += 1,
            None => ways.push((said, 1)),
        }
    }
    match ways.as_slice() {
        [(only, 1)] => only.clone(),
        _ => ways.iter().map(|(way, count)| format!("{count} launch{} {way}", if *count == 1 { "" } else { "es" })).collect::<Vec<_>>().join("; "),
    }
}

/// How one launch ended, in words.
pub fn describe_ending(ending: &Ending) -> String {
    match ending {
        Ending::Exited { code } => format!("exited with code {code}"),
        Ending::Signalled { signal } => format!("was killed by signal {signal}"),
        Ending::TimedOut => "timed out and was stopped".to_string(),
        Ending::FailedToStart { error } => format!("failed to start ({error})"),
    }
}

/// How the launches ended and how long they took, for a progress line.
fn describe_run(records: &[LaunchRecord]) -> String {
    let ms: u64 = records.iter().map(|r| r.duration_ms).sum();
    format!("{} in {:.1} s", describe_endings(records), ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {

    /// What `probe --command` accepts as a placeholder is what a run fills: the run's values, the
    /// whole-argument `{server}` and the skills launch's `{skills_dir}`.
    #[test]
    fn the_placeholders_a_command_line_may_use_are_those_a_run_fills() {
        let paths = RunPaths { home: Path::new("/h"), work: Path::new("/w"), server_exe: Path::new("/s") };
        let vars = run_vars(paths, "http://stub", "go", "http://server/mcp", Vec::new(), Transport::Stdio);
        let mut filled: Vec<&str> = vars.values.keys().copied().chain(["server", "skills_dir"]).collect();
        filled.sort_unstable();
        let mut accepted = crate::clients::profile::PLACEHOLDERS.to_vec();
        accepted.sort_unstable();
        assert_eq!(filled, accepted);
    }

    #[test]
    fn launches_that_ended_alike_are_said_once_with_their_count() {
        let ended =
            |ending: Ending| LaunchRecord { ending, stdout: Vec::new(), stderr: Vec::new(), stdout_bytes: 0, stderr_bytes: 0, duration_ms: 0, swept: 0, ended_unix_us: None };
        assert_eq!(describe_endings(&[ended(Ending::Exited { code: 0 })]), "exited with code 0");
        let steps: Vec<LaunchRecord> = (0..19).map(|_| ended(Ending::Exited { code: 0 })).chain([ended(Ending::TimedOut)]).collect();
        assert_eq!(describe_endings(&steps), "19 launches exited with code 0; 1 launch timed out and was stopped");
    }

    #[test]
    fn the_kinds_of_run_that_take_longest_ask_first() {
        assert!(start_place(Variant::InteractiveAccept) < start_place(Variant::Auth));
        assert_eq!(start_place(Variant::Auth), start_place(Variant::Standard));
        assert!(start_place(Variant::Standard) < start_place(Variant::LongCalls));
        assert!(start_place(Variant::LongCalls) < start_place(Variant::SubscribeFails));
    }

    #[test]
    fn only_the_variants_judged_wholly_from_the_model_are_left_to_hosts_with_one() {
        for variant in [Variant::LargeResults, Variant::ToolNames, Variant::NoResources] {
            assert!(judged_from_the_model_only(variant), "{variant}");
        }
        for variant in [Variant::Standard, Variant::Skills, Variant::SubscribeFails, Variant::StreamDrop] {
            assert!(!judged_from_the_model_only(variant), "{variant}");
        }
    }

    use super::*;

    #[test]
    fn files_on_disk_lists_the_skills_directory_and_skill_files_elsewhere() {
        let root = tempfile::tempdir().unwrap();
        let (home, work) = (root.path().join("home"), root.path().join("work"));
        let skills = work.join("installed-skills");
        for (dir, file) in [(skills.join("probe-good"), "SKILL.md"), (home.join("x"), "escape-secret.md"), (home.join(".cache"), "unrelated.txt")] {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(file), "x").unwrap();
        }
        let note = files_on_disk(&[&home, &work], &skills);
        assert_eq!(note["in_skills_dir"], serde_json::json!(["probe-good/SKILL.md"]));
        let elsewhere = note["elsewhere"].as_array().unwrap();
        assert_eq!(elsewhere.len(), 1, "{note}");
        assert!(elsewhere[0].as_str().unwrap().ends_with("x/escape-secret.md"));
    }
}
