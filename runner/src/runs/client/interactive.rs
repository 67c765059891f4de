//! An interactive run: the profile's `[interactive]` section under the terminal driver.

use super::*;

/// One interactive run: the host's terminal UI in a pseudo-terminal (stdio server, model stub for
/// agent hosts, browser trap first on PATH), driven by the profile's keystroke plan. The journal
/// written to `out_dir` holds the server's frames and the driver's notes in place; the saved
/// screens also go to `<transport>.<variant>.screens.txt`.
pub(super) async fn run_interactive(
    target: &Target,
    interactive: &crate::clients::profile::Interactive,
    variant: Variant,
    server_exe: &Path,
    out_dir: &Path,
) -> Result<VariantRun, RunError> {
    let transport = Transport::Stdio;
    let profile = &target.profile;
    let model = if profile.dialect.is_some() { ModelJournal::Scratch } else { ModelJournal::None };
    // The host starts the stdio server itself, from the arguments in its configuration.
    let mut session = Session::open(transport, ServeOptions { variant, ..ServeOptions::default() }, model, &Harness::for_clients()).await?;
    let server_journal = session.server_journal(0);
    let server_args = crate::harness::stdio_server_args(&server_journal, variant, EraPolicy::Dual);
    let scratch = &session.scratch;
    let vars = run_vars(RunPaths { home: &scratch.home, work: &scratch.work, server_exe }, &session.stub_url(), &interactive.prompt, "", server_args, transport);
    write_files(profile.files.iter().chain(interactive.files.iter()), &vars, transport)?;
    let launch = crate::drivers::terminal::HostLaunch {
        launch: Launch {
            program: target.executable.clone(),
            args: vars.fill_args(&interactive.args),
            env: profile.launch.env.iter().chain(interactive.env.iter()).map(|(k, v)| (k.clone(), vars.fill(v))).collect(),
            home: scratch.home.clone(),
            cwd: scratch.work.clone(),
            marker: format!("{}-interactive-{variant}-{}", profile.name, std::process::id()),
        },
        scratch: scratch.path().to_path_buf(),
    };
    let (driven, swept) = crate::drivers::terminal::drive_isolated(launch, variant, interactive.clone(), server_journal).await?;
    let _ = session.close().await;
    let files = RunFiles { stem: &Pass::dual(transport).stem(), variant };
    let (journal_path, screens_path) = (out_dir.join(files.journal()), out_dir.join(files.screens()));
    write_events(&journal_path, &driven.journal.events).map_err(RunError::journal(&journal_path))?;
    std::fs::write(&screens_path, &driven.screens).map_err(RunError::write(&screens_path))?;
    let ending = match driven.exit_code {
        Some(code) => Ending::Exited { code: code as i32 },
        None => Ending::TimedOut,
    };
    let launch = LaunchRecord {
        ending,
        stdout_bytes: driven.raw_output.len(),
        stdout: driven.raw_output,
        stderr: Vec::new(),
        stderr_bytes: 0,
        duration_ms: driven.duration.as_millis() as u64,
        swept,
        ended_unix_us: None,
    };
    Ok(VariantRun { variant, observations: Observations::from_read(driven.journal), launches: vec![launch], plan_stopped: driven.stopped })
}
