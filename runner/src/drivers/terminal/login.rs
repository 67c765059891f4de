//! A host's sign-in worked from a terminal (its profile's `[auth.terminal]`): the host starts in a
//! pseudo-terminal, the steps wait for what a person would wait for and type what they would type,
//! and the login ends when the screen says the host is signed in (or the command exits). The
//! person who logs in is not here: the sign-in watcher hands them the URL the host opens or prints
//! (everything the host writes is passed on to it).

use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;

use super::keys;
use super::pty::{Pty, PtySpec};
use super::script::{TerminalLogin, TerminalStep};

/// How long typed text may take to be drawn before the next step goes on anyway. A key pressed
/// while a host still draws the text can act on what it drew for half of it (Gemini CLI's Enter
/// took a completion listed for `prob` and ran `/mcp auth probee`).
const TYPED_ECHO: Duration = Duration::from_secs(5);
/// How long a key may take to change the screen before the next one is sent anyway.
const KEY_ECHO: Duration = Duration::from_millis(1000);
/// How long the screen must stay still after a key or typed text before the next step.
const QUIET: Duration = Duration::from_millis(150);
/// The longest a settle waits: a host that animates is never still.
const SETTLE_MAX: Duration = Duration::from_millis(1000);
/// Between two typed characters.
const CHAR_GAP: Duration = Duration::from_millis(10);
/// How often the host's output is passed on while a wait goes on.
const SLICE: Duration = Duration::from_millis(200);
/// How long a text must stay off the screen for a `gone` step to pass: a host may draw its
/// start-up line a moment after the prompt.
const GONE_FOR: Duration = Duration::from_millis(1000);
/// How long the host has to leave after the quit keys.
const GRACE: Duration = Duration::from_secs(5);

/// How a terminal sign-in went: what the login's `client_exited` note says of it, and what
/// only the runner keeps (whether the deadline ended it, the bytes it wrote).
#[derive(Debug, Clone)]
pub struct TerminalSignIn {
    pub login: probe_server::note::TerminalLogin,
    pub timed_out: bool,
    pub output: Vec<u8>,
}

/// Works one terminal sign-in in isolation, as `drive_isolated` drives an interactive run: the
/// terminal environment, the sign-in on a blocking thread, then a sweep of every process carrying
/// the marker. Returns how it went and how many processes were swept.
pub async fn sign_in_isolated(
    launch: crate::harness::launch::Launch,
    plan: &TerminalLogin,
    timeout: Duration,
    watcher: Option<UnboundedSender<Vec<u8>>>,
) -> Result<(TerminalSignIn, usize), super::DriveError> {
    let env = super::terminal_env(&launch.home, &launch.marker, launch.env);
    let spec = PtySpec { program: launch.program, args: launch.args, env, cwd: launch.cwd, columns: plan.columns, rows: plan.rows, mark_cursor: false };
    let plan = plan.clone();
    let signed = tokio::task::spawn_blocking(move || sign_in(&spec, &plan, timeout, watcher)).await.map_err(super::DriveError::Panicked)?;
    let swept = crate::harness::launch::sweep(None, &launch.marker).await;
    Ok((signed, swept))
}

/// Runs one terminal sign-in to its end (blocking), within `timeout`. Never fails: a host that
/// will not start or does not show what the plan waits for is described in the result.
pub fn sign_in(spec: &PtySpec, plan: &TerminalLogin, timeout: Duration, watcher: Option<UnboundedSender<Vec<u8>>>) -> TerminalSignIn {
    let deadline = Instant::now() + timeout;
    let mut pty = match Pty::spawn(spec) {
        Ok(pty) => pty,
        Err(e) => {
            let login = probe_server::note::TerminalLogin { signed_in: false, stopped: Some(e.to_string()), unmatched: false, screen: String::new(), exit_code: None };
            return TerminalSignIn { login, timed_out: false, output: Vec::new() };
        }
    };
    let mut passed_on = 0;
    let mut pass_on = |pty: &Pty| {
        let output = pty.raw_output();
        if let Some(watcher) = &watcher {
            if output.len() > passed_on {
                let _ = watcher.send(output[passed_on..].to_vec());
            }
        }
        passed_on = output.len();
    };
    let failed = |screen: &str| plan.failed.iter().find(|f| screen.contains(f.as_str())).cloned();
    let (mut stopped, mut unmatched) = (None, false);
    for (index, step) in plan.steps.iter().enumerate() {
        let step_deadline = deadline.min(Instant::now() + Duration::from_secs(plan.step_wait_secs));
        if let Err(why) = take(&mut pty, step, step_deadline, &mut pass_on, &failed) {
            unmatched = matches!(why, StepFailed::NeverShown);
            stopped = Some(format!("step {} ({}): {why}", index + 1, describe(step)));
            break;
        }
    }
    let mut timed_out = false;
    let signed_in = match (&stopped, &plan.signed_in) {
        (Some(_), _) => false,
        (None, Some(text)) => match wait_for_text(&mut pty, deadline, &mut pass_on, text, &failed) {
            Shown::Text => true,
            Shown::Failure(said) => {
                stopped = Some(StepFailed::Said(said).to_string());
                false
            }
            Shown::Neither => {
                timed_out = pty.exited().is_none();
                unmatched = timed_out;
                false
            }
        },
        (None, None) => {
            while pty.exited().is_none() && Instant::now() < deadline {
                pty.wait_for(SLICE, |_| false);
                pass_on(&pty);
            }
            timed_out = pty.exited().is_none();
            pty.exited() == Some(0)
        }
    };
    pass_on(&pty);
    let screen = pty.screen();
    if pty.exited().is_none() {
        for key in &plan.quit {
            let _ = keys::bytes(key).map(|bytes| pty.send(bytes));
            pty.settle(QUIET, SETTLE_MAX);
        }
    }
    let exit_code = pty.finish(GRACE);
    pass_on(&pty);
    let login = probe_server::note::TerminalLogin { signed_in, stopped, unmatched, screen, exit_code };
    TerminalSignIn { login, timed_out, output: pty.raw_output() }
}

fn describe(step: &TerminalStep) -> String {
    match step {
        TerminalStep::Wait(text) => format!("wait for {text:?}"),
        TerminalStep::Gone(text) => format!("wait for {text:?} to go"),
        TerminalStep::Type(text) => format!("type {text:?}"),
        TerminalStep::Keys(keys) => format!("press {}", keys.join(" ")),
    }
}

/// Why a step of a terminal sign-in could not be taken.
#[derive(Debug, thiserror::Error)]
enum StepFailed {
    /// One of the plan's failure texts was on the screen.
    #[error("the screen said {0:?}")]
    Said(String),
    #[error("the host exited ({0})")]
    Exited(u32),
    #[error("the screen never showed it")]
    NeverShown,
    #[error("the screen still showed it")]
    StillShown,
    #[error("cannot type into the terminal: {0}")]
    Typing(#[from] std::io::Error),
    #[error("unknown key {0}")]
    UnknownKey(String),
}

/// Takes one step; the error says what the screen did not show.
fn take(pty: &mut Pty, step: &TerminalStep, deadline: Instant, pass_on: &mut impl FnMut(&Pty), failed: &impl Fn(&str) -> Option<String>) -> Result<(), StepFailed> {
    match step {
        TerminalStep::Wait(text) => match wait_for_text(pty, deadline, pass_on, text, failed) {
            Shown::Text => Ok(()),
            Shown::Failure(said) => Err(StepFailed::Said(said)),
            Shown::Neither => Err(pty.exited().map_or(StepFailed::NeverShown, StepFailed::Exited)),
        },
        TerminalStep::Gone(text) => match wait_gone(pty, deadline, pass_on, text) {
            true => Ok(()),
            false => Err(pty.exited().map_or(StepFailed::StillShown, StepFailed::Exited)),
        },
        TerminalStep::Type(text) => {
            pty.type_and_watch(text, CHAR_GAP, TYPED_ECHO)?;
            pty.settle(QUIET, SETTLE_MAX);
            pass_on(pty);
            Ok(())
        }
        TerminalStep::Keys(names) => {
            for name in names {
                let bytes = keys::bytes(name).ok_or_else(|| StepFailed::UnknownKey(name.clone()))?;
                pty.press(bytes, KEY_ECHO, QUIET, SETTLE_MAX)?;
                pass_on(pty);
            }
            Ok(())
        }
    }
}

/// What a wait for a text ended on.
enum Shown {
    Text,
    /// One of the plan's failure texts, without the text waited for: what the screen said.
    Failure(String),
    /// Neither, by the deadline or the host's exit.
    Neither,
}

/// Waits for `text` on screen, or one of the plan's failure texts (`failed`).
fn wait_for_text(pty: &mut Pty, deadline: Instant, pass_on: &mut impl FnMut(&Pty), text: &str, failed: &impl Fn(&str) -> Option<String>) -> Shown {
    if !wait_until(pty, deadline, pass_on, |s| s.contains(text) || failed(s).is_some()) {
        return Shown::Neither;
    }
    let screen = pty.screen();
    match failed(&screen) {
        Some(said) if !screen.contains(text) => Shown::Failure(said),
        _ => Shown::Text,
    }
}

/// Waits until `text` has left the screen and stayed away for [`GONE_FOR`].
fn wait_gone(pty: &mut Pty, deadline: Instant, pass_on: &mut impl FnMut(&Pty), text: &str) -> bool {
    loop {
        if !wait_until(pty, deadline, pass_on, |s| !s.contains(text)) {
            return false;
        }
        let back = pty.wait_for(GONE_FOR, |s| s.contains(text)).is_some();
        pass_on(pty);
        if !back {
            return true;
        }
    }
}

/// Waits until the screen satisfies `wanted`, the deadline passes or the host exits, passing the
/// host's output on as it goes. Returns whether the screen did.
fn wait_until(pty: &mut Pty, deadline: Instant, pass_on: &mut impl FnMut(&Pty), wanted: impl Fn(&str) -> bool) -> bool {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let seen = pty.wait_for(left.min(SLICE), &wanted).is_some();
        pass_on(pty);
        if seen {
            return true;
        }
        if left <= SLICE || pty.exited().is_some() {
            return wanted(&pty.screen());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn shell(script: &str) -> PtySpec {
        let env: BTreeMap<String, String> = [("PATH".to_string(), std::env::var("PATH").unwrap_or_default()), ("TERM".into(), "xterm".into())].into();
        PtySpec { program: "/bin/sh".into(), args: vec!["-c".into(), script.into()], env, cwd: std::env::temp_dir(), columns: 80, rows: 24, mark_cursor: false }
    }

    fn plan(steps: Vec<TerminalStep>, signed_in: Option<&str>) -> TerminalLogin {
        TerminalLogin {
            steps,
            signed_in: signed_in.map(str::to_string),
            failed: vec!["Failed".into()],
            step_wait_secs: 30,
            quit: vec!["Ctrl-C".into()],
            printed_url: false,
            env: BTreeMap::new(),
            files: Vec::new(),
            columns: 80,
            rows: 24,
        }
    }

    #[test]
    fn steps_are_taken_and_the_signed_in_text_ends_the_login() {
        let spec = shell("echo ready; read answer; echo \"signed in as $answer\"; sleep 30");
        let steps = vec![TerminalStep::Wait("ready".into()), TerminalStep::Type("probe".into()), TerminalStep::Keys(vec!["Enter".into()])];
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let signed = sign_in(&spec, &plan(steps, Some("signed in as probe")), Duration::from_secs(60), Some(tx));
        assert!(signed.login.signed_in, "{signed:?}");
        assert_eq!(signed.login.stopped, None);
        assert!(!signed.timed_out);
        let mut passed_on = Vec::new();
        while let Ok(chunk) = rx.try_recv() {
            passed_on.extend(chunk);
        }
        assert!(String::from_utf8_lossy(&passed_on).contains("signed in as probe"));
    }

    /// A host still starting drops what is typed (Gemini CLI queues it as a prompt): the typing
    /// waits until the start-up text has gone.
    #[test]
    fn a_gone_step_waits_until_the_text_has_left_the_screen() {
        let script = "echo Initializing; sleep 1; while read -t 0.2 junk; do :; done; printf '\\033[2J\\033[H'; echo ready; read answer; echo \"got $answer\"; sleep 30";
        let bash = || PtySpec { program: "/bin/bash".into(), ..shell(script) };
        let steps = |first: Vec<TerminalStep>| first.into_iter().chain([TerminalStep::Type("x".into()), TerminalStep::Keys(vec!["Enter".into()])]).collect();
        let waited = sign_in(
            &bash(),
            &plan(steps(vec![TerminalStep::Wait("Initializing".into()), TerminalStep::Gone("Initializing".into())]), Some("got x")),
            Duration::from_secs(60),
            None,
        );
        assert!(waited.login.signed_in, "{waited:?}");
        let mut hasty = plan(steps(vec![TerminalStep::Wait("Initializing".into())]), Some("got x"));
        hasty.step_wait_secs = 5;
        let hasty = sign_in(&bash(), &hasty, Duration::from_secs(8), None);
        assert!(!hasty.login.signed_in, "typed while starting, the answer was dropped: {hasty:?}");
    }

    #[test]
    fn a_text_that_never_goes_stops_the_plan_and_says_which_step() {
        let spec = shell("echo Initializing; sleep 30");
        let steps = vec![TerminalStep::Wait("Initializing".into()), TerminalStep::Gone("Initializing".into())];
        let signed = sign_in(&spec, &plan(steps, Some("signed in")), Duration::from_secs(5), None);
        assert_eq!(signed.login.stopped.as_deref(), Some("step 2 (wait for \"Initializing\" to go): the screen still showed it"));
    }

    #[test]
    fn a_screen_that_never_shows_the_text_stops_the_plan_and_says_which_step() {
        let spec = shell("echo something else; sleep 30");
        let signed = sign_in(&spec, &plan(vec![TerminalStep::Wait("Authenticate".into())], Some("signed in")), Duration::from_secs(1), None);
        assert!(!signed.login.signed_in);
        assert_eq!(signed.login.stopped.as_deref(), Some("step 1 (wait for \"Authenticate\"): the screen never showed it"));
        assert!(signed.login.unmatched);
        assert!(signed.login.screen.contains("something else"));
    }

    #[test]
    fn a_failure_on_screen_ends_the_login_without_waiting_out_its_timeout() {
        let spec = shell("echo 'Failed to authenticate: issuer mismatch'; sleep 30");
        let started = Instant::now();
        let signed = sign_in(&spec, &plan(Vec::new(), Some("signed in")), Duration::from_secs(600), None);
        assert!(!signed.login.signed_in && !signed.timed_out, "{signed:?}");
        assert_eq!(signed.login.stopped.as_deref(), Some("the screen said \"Failed\""));
        // The host said it failed: that is its doing, not a plan that missed its cue.
        assert!(!signed.login.unmatched);
        // Well inside the ten minutes it would otherwise wait.
        assert!(started.elapsed() < Duration::from_secs(300));
        let waiting = sign_in(&spec, &plan(vec![TerminalStep::Wait("Authenticate".into())], Some("signed in")), Duration::from_secs(600), None);
        assert_eq!(waiting.login.stopped.as_deref(), Some("step 1 (wait for \"Authenticate\"): the screen said \"Failed\""));
    }

    #[test]
    fn without_a_signed_in_text_the_commands_exit_decides() {
        let signed = sign_in(&shell("echo done; exit 0"), &plan(Vec::new(), None), Duration::from_secs(60), None);
        assert!(signed.login.signed_in && signed.login.exit_code == Some(0), "{signed:?}");
        let failed = sign_in(&shell("exit 3"), &plan(Vec::new(), None), Duration::from_secs(60), None);
        assert!(!failed.login.signed_in && failed.login.exit_code == Some(3), "{failed:?}");
    }
}
