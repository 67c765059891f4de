//! One run of a client against one server variant, in three steps: set up (`VariantSetup::open`),
//! sign in and launch (`log_in`, `launch_all`), and assemble the run's journal (`finish`).

use super::*;
use probe_server::note::Payload;

/// One run against one server variant: a private HOME and working directory, the model stub (for
/// agent hosts), the probe server (stdio: the client spawns this tool's `serve --stdio`; HTTP:
/// served here on loopback), the client's configuration files and its launches. Its journal
/// (and the stub's) are written to `out_dir`.
pub(super) async fn run_variant(target: &Target, pass: Pass, variant: Variant, server_exe: &Path, out_dir: &Path) -> Result<VariantRun, RunError> {
    let setup = VariantSetup::open(target, pass, variant, server_exe, out_dir).await?;
    let (mut launches, login_args) = match setup.log_in().await? {
        Some((login, args)) => (vec![login], args),
        None => (Vec::new(), Vec::new()),
    };
    launches.extend(setup.launch_all().await?);
    setup.finish(launches, &login_args, out_dir).await
}

/// A variant's run before its host starts: the session (scratch, model stub, HTTP server), the
/// launches the profile asks for in this variant, its sign-in plan, where the host installs
/// skills, and the person watching what the host opens (the auth variants).
struct VariantSetup<'a> {
    target: &'a Target,
    pass: Pass,
    variant: Variant,
    server_exe: &'a Path,
    session: Session,
    /// Where the model stub's journal is kept beside the record, when it is evidence.
    kept_model: Option<PathBuf>,
    /// In the skills variants a host with skills support is launched its own way.
    skills_launch: Option<&'a crate::clients::profile::SkillsLaunch>,
    /// The profile's sign-in plan, in the auth variants.
    auth_plan: Option<&'a crate::clients::profile::AuthPlan>,
    /// Against an authorization server that takes client ID metadata documents, a host that
    /// uses one only when given its URL is given it.
    metadata_plan: Option<&'a crate::clients::profile::AuthPlan>,
    /// Each launch's arguments.
    launches: Vec<Vec<String>>,
    /// Where the host installs skills (its profile says, relative to the run's home or work
    /// directory).
    skills_dir: Option<String>,
    watch: Option<super::sign_in::Watch>,
}

impl<'a> VariantSetup<'a> {
    async fn open(target: &'a Target, pass: Pass, variant: Variant, server_exe: &'a Path, out_dir: &Path) -> Result<VariantSetup<'a>, RunError> {
        let profile = &target.profile;
        // The model's side is kept where it is evidence: the standard run (what the host offered its
        // model), the skills runs (the commands and their results) and every variant a probe judges
        // reading the model's side (no-resources, large-results, json-responses). In the other
        // variants it repeats the standard run's, so it stays in the scratch directory.
        let keeps_model_journal = variant.is_standard() || variant.serves_skills() || registry::judged_on(variant).any(|p| p.reads_model());
        let kept_model = (profile.dialect.is_some() && keeps_model_journal).then(|| out_dir.join(model_journal_name(pass, variant)));
        let model = match (&kept_model, profile.dialect) {
            (Some(path), _) => ModelJournal::At(path.clone()),
            (None, Some(_)) => ModelJournal::Scratch,
            (None, None) => ModelJournal::None,
        };
        let session = Session::open(pass.transport, ServeOptions { variant, era: pass.eras, ..ServeOptions::default() }, model, &Harness::for_clients()).await?;
        let skills_launch = profile.skills.as_ref().filter(|_| variant.serves_skills());
        let auth_plan = profile.auth.as_ref().filter(|_| variant.is_auth());
        let mut launches: Vec<Vec<String>> = match skills_launch {
            Some(skills) => vec![skills.args.clone()],
            None => profile.launches(variant).into_iter().chain(auth_plan.into_iter().flat_map(|a| a.steps.iter().cloned())).collect(),
        };
        let metadata_plan = auth_plan.filter(|_| variant == Variant::AuthCimd);
        if let Some(plan) = metadata_plan {
            launches = launches.into_iter().map(|args| plan.with_client_metadata(args)).collect();
        }
        let skills_dir = skills_launch.map(|skills| {
            let mut vars = Vars::default();
            vars.values.insert("home", session.scratch.home.display().to_string());
            vars.values.insert("work", session.scratch.work.display().to_string());
            vars.fill(&skills.skills_dir)
        });
        // In the auth variants the person who logs in watches what the host opens.
        let watch = match variant.is_auth() {
            true => Some(super::sign_in::Watch::start(session.scratch.path()).map_err(|source| RunError::Write { path: session.scratch.path().join("trap"), source })?),
            false => None,
        };
        Ok(VariantSetup { target, pass, variant, server_exe, session, kept_model, skills_launch, auth_plan, metadata_plan, launches, skills_dir, watch })
    }

    /// A launch of the host (its login too): its executable in the run's directories.
    fn host(&self, args: Vec<String>, env: BTreeMap<String, String>, marker: String) -> Launch {
        let scratch = &self.session.scratch;
        Launch { program: self.target.executable.clone(), args, env, cwd: scratch.work.clone(), home: scratch.home.clone(), marker }
    }

    /// A headless launch of the host, its output watched for sign-in URLs in the auth variants.
    fn host_launch(&self, args: Vec<String>, env: BTreeMap<String, String>, timeout: Duration, marker: String) -> LaunchSpec {
        LaunchSpec { launch: self.host(args, env, marker), timeout, grace: Duration::from_secs(3), stdin: None, output: self.watch.as_ref().map(|w| w.output()) }
    }

    /// What the person watching sets in the host's environment (the auth variants).
    fn watch_env(&self) -> impl Iterator<Item = (String, String)> + '_ {
        self.watch.iter().flat_map(|w| w.env())
    }

    fn vars(&self, server_args: Vec<String>) -> Vars {
        let scratch = &self.session.scratch;
        let paths = RunPaths { home: &scratch.home, work: &scratch.work, server_exe: self.server_exe };
        run_vars(paths, &self.session.stub_url(), &self.target.profile.launch.prompt, &self.session.server_url(), server_args, self.pass.transport)
    }

    /// The host's login command, before its launches, with its configuration written (the auth
    /// variants, for a profile with a login): how it ended and its arguments.
    async fn log_in(&self) -> Result<Option<(LaunchRecord, Vec<String>)>, RunError> {
        let Some(plan) = self.auth_plan.filter(|p| !p.login.is_empty()) else { return Ok(None) };
        let (profile, transport, variant) = (&self.target.profile, self.pass.transport, self.variant);
        let vars = self.vars(Vec::new());
        write_files(profile.files.iter().chain(plan.files.iter()), &vars, transport)?;
        let mut login_args = vars.fill_args(&plan.login);
        if let Some(plan) = self.metadata_plan {
            login_args = plan.with_client_metadata(login_args);
        }
        let env = profile.launch.env.iter().chain(&plan.env).map(|(k, v)| (k.clone(), vars.fill(v)));
        let marker = format!("{}-{}-{variant}-{}-login", profile.name, self.pass.stem(), std::process::id());
        let timeout = Duration::from_secs(plan.login_timeout_secs);
        let record = match &plan.terminal {
            None => {
                let record = launch(&self.host_launch(login_args.clone(), env.chain(self.watch_env()).collect(), timeout, marker)).await;
                self.session.note_client_exited(&ClientExited::login(record.ending.clone(), None));
                record
            }
            Some(terminal) => {
                write_files(terminal.files.iter(), &vars, transport)?;
                let trap_env = self.watch.iter().flat_map(|w| w.trap_env());
                let env = env.chain(trap_env).chain(terminal.env.iter().map(|(k, v)| (k.clone(), vars.fill(v)))).collect();
                let login = self.host(login_args.clone(), env, marker);
                let watcher = self.watch.as_ref().filter(|_| terminal.printed_url).map(|w| w.output());
                let started = Instant::now();
                let (signed, swept) = sign_in_isolated(login, terminal, timeout, watcher).await?;
                let record = terminal_login_record(&signed, started.elapsed(), swept);
                self.session.note_client_exited(&ClientExited::login(record.ending.clone(), Some(signed.login.clone())));
                record
            }
        };
        tokio::time::sleep(after_login(variant)).await;
        Ok(Some((record, login_args)))
    }

    /// Every launch of the host in turn, each with the files its variant writes, each one's end
    /// journalled.
    async fn launch_all(&self) -> Result<Vec<LaunchRecord>, RunError> {
        let (profile, transport, variant) = (&self.target.profile, self.pass.transport, self.variant);
        let mut records = Vec::new();
        for (index, args) in self.launches.iter().enumerate() {
            let server_args = crate::harness::stdio_server_args(&self.session.server_journal(index), variant, self.pass.eras);
            let mut vars = self.vars(server_args);
            if let (Some(skills), Some(dir)) = (self.skills_launch, &self.skills_dir) {
                vars.values.insert("skills_dir", dir.clone());
                let prompt = vars.fill(&skills.prompt);
                vars.values.insert("prompt", prompt);
            }
            let long_calls = profile.long_calls.as_ref().filter(|_| variant == Variant::LongCalls);
            let auth_files = self.auth_plan.into_iter().flat_map(|a| a.files.iter());
            let skills_files = self.skills_launch.iter().flat_map(|s| s.files.iter());
            write_files(profile.files.iter().chain(skills_files).chain(long_calls.iter().flat_map(|l| l.files.iter())).chain(auth_files), &vars, transport)?;
            let args: Vec<String> = long_calls.iter().flat_map(|l| l.args.iter()).chain(args.iter()).cloned().collect();
            let timeout = match variant {
                Variant::LongCalls | Variant::DiscoverUnanswered => profile.launch.timeout_secs.min(LONG_CALLS_BOUND_SECS),
                _ => profile.launch.timeout_secs,
            };
            let env = profile
                .launch
                .env
                .iter()
                .chain(long_calls.iter().flat_map(|l| l.env.iter()))
                .chain(self.auth_plan.into_iter().flat_map(|a| a.env.iter()))
                .map(|(k, v)| (k.clone(), vars.fill(v)))
                .chain(self.watch_env())
                .collect();
            let marker = format!("{}-{}-{variant}-{}-{index}", profile.name, self.pass.stem(), std::process::id());
            let record = launch(&self.host_launch(vars.fill_args(&args), env, Duration::from_secs(timeout), marker)).await;
            self.session.note_client_exited(&ClientExited::launch(index, record.ending.clone()));
            records.push(record);
        }
        Ok(records)
    }

    /// After the launches: the person's last logins (they need the server up), the server
    /// stopped, and the run's journal assembled (the launches' server journals joined, the
    /// runner's notes after them, the wire check) and written with the model's beside it.
    async fn finish(mut self, records: Vec<LaunchRecord>, login_args: &[String], out_dir: &Path) -> Result<VariantRun, RunError> {
        let (profile, transport, variant) = (&self.target.profile, self.pass.transport, self.variant);
        let opened = match self.watch.take() {
            Some(watch) => Some(watch.finish().await),
            None => None,
        };
        // A server that does not stop cleanly still leaves the journal it wrote.
        self.session.let_requests_land().await;
        let _ = self.session.close().await;

        let launches = self.launches.len();
        let mut journals: Vec<PathBuf> = (0..launches).map(|i| self.session.server_journal(i)).collect();
        journals.dedup();
        let launched = &records[records.len() - launches..];
        let mut joined = join_launches(&journals, (transport == Transport::Stdio).then_some(launched));
        // The runner's own notes follow the server's events. Nobody sat at the host: whatever
        // answered a request for input was the host itself.
        joined.push_note(transport.as_str(), transport, probe_server::note::Unattended { launches: launches as u64 }.detail());
        if profile.dialect.is_some() {
            // What the host was told its model takes: a picture kept from a model not said to take
            // one is no fault of the host's.
            let declared = profile.model_inputs.as_ref().map(|inputs| inputs.iter().map(|i| i.word().to_string()).collect());
            joined.push_note(transport.as_str(), transport, probe_server::note::ModelInputs { declared }.detail());
        }
        if let Some(opened) = opened {
            for opened in opened {
                joined.push_note(transport.as_str(), transport, opened.note());
            }
            joined.push_note(transport.as_str(), transport, super::sign_in::plan_note(profile.auth.as_ref(), login_args, variant));
        }
        if let Some(skills_dir) = &self.skills_dir {
            // What the host left on disk is evidence too.
            let (home, work) = (&self.session.scratch.home, &self.session.scratch.work);
            joined.push_note(transport.as_str(), transport, files_on_disk(&[home, work], Path::new(skills_dir)));
        }
        // The client's frames against the official schemas, where the process has them.
        let mut observations = Observations::from_read(joined);
        // A configuration that names the server's command line in an HTTP run (or its URL in a stdio
        // one) makes a run of the other transport: it is refused, not recorded under this one.
        if let Some(seen) = observations.transport().filter(|seen| *seen != transport) {
            return Err(RunError::WrongTransport { client: profile.name.clone(), pass: transport.as_str(), seen: seen.as_str() });
        }
        crate::harness::wire::add_check(&mut observations, transport)?;
        let journal_path = out_dir.join(journal_name(self.pass, variant));
        write_events(&journal_path, &observations.events).map_err(RunError::journal(&journal_path))?;
        if let Some(model) = self.session.model_journal().and_then(|path| read_journal(path).ok()) {
            // Each model request repeats the conversation so far: the record keeps it compacted.
            if let Some(path) = &self.kept_model {
                rewrite_compacted(path, &model).map_err(RunError::journal(path))?;
            }
            observations = observations.with_model(model);
        }
        Ok(VariantRun { variant, observations, launches: records, plan_stopped: None })
    }
}

/// The server journals of a run's launches joined into one (a host may start its server more
/// than once per launch: each start journals beside the last). Over HTTP the live server
/// journalled each end on its clock; over stdio (`launched` given) the runner places each
/// launch's end on the clock of the last server that launch started, where it happened; a
/// launch that started none ends after what came before it.
fn join_launches(journals: &[PathBuf], launched: Option<&[LaunchRecord]>) -> JournalRead {
    let stdio = Transport::Stdio;
    let mut parts: Vec<JournalRead> = Vec::new();
    let mut unplaced = Vec::new();
    for (index, path) in journals.iter().enumerate() {
        let mut started: Vec<JournalRead> = restarts(path).iter().filter_map(|p| read_journal(p).ok()).collect();
        let Some(record) = launched.and_then(|l| l.get(index)) else {
            parts.append(&mut started);
            continue;
        };
        let note = ClientExited::launch(index, record.ending.clone()).detail();
        match (started.last_mut(), record.ended_unix_us, parts.last_mut()) {
            (Some(last), Some(ended), _) => last.insert_note_at_unix(ended, stdio.as_str(), stdio, note),
            (Some(last), None, _) | (None, _, Some(last)) => last.push_note(stdio.as_str(), stdio, note),
            (None, _, None) => unplaced.push(note),
        }
        parts.append(&mut started);
    }
    let mut joined = concatenate(parts);
    for note in unplaced {
        joined.push_note(stdio.as_str(), stdio, note);
    }
    joined
}

/// The launch record of a terminal sign-in: how it ended, what it wrote, how long it took.
fn terminal_login_record(signed: &TerminalSignIn, took: Duration, swept: usize) -> LaunchRecord {
    let ending = match (signed.login.exit_code, signed.timed_out) {
        // The quit keys may have ended a login that never finished: it timed out all the same.
        (_, true) => Ending::TimedOut,
        (Some(code), false) => Ending::Exited { code: code as i32 },
        // Left the UI by the quit keys, or was stopped after them.
        (None, false) => Ending::Signalled { signal: 9 },
    };
    LaunchRecord {
        ending,
        stdout_bytes: signed.output.len(),
        stdout: signed.output.clone(),
        stderr: Vec::new(),
        stderr_bytes: 0,
        duration_ms: took.as_millis() as u64,
        swept,
        ended_unix_us: None,
    }
}

/// How long the host's first launch waits after its login. In the auth-refresh variant, until the
/// tokens the login obtained have expired (they live `SHORT_TOKEN_LIFETIME`), so that every host
/// starts with an expired token: before, whether it did depended on how long the host took to
/// start. A host that started within the token's life (Kimi CLI once, 1.9 s after its login
/// against 3.3 s in its record) used the still-valid token, later tried to refresh it where it had
/// not looked up the token endpoint, signed in again and finished inside the new token's life:
/// no request after a lifetime, not-reached, where the record says yes.
fn after_login(variant: Variant) -> Duration {
    match variant {
        Variant::AuthRefresh => probe_server::auth::SHORT_TOKEN_LIFETIME + Duration::from_millis(250),
        _ => Duration::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_the_auth_refresh_variant_the_first_launch_waits_out_the_logins_tokens() {
        assert!(after_login(Variant::AuthRefresh) > probe_server::auth::SHORT_TOKEN_LIFETIME);
        for variant in [Variant::Auth, Variant::AuthStepUp, Variant::Standard] {
            assert_eq!(after_login(variant), Duration::ZERO, "{variant}");
        }
    }
}
