//! The terminal driver: starts a host's interactive UI in a pseudo-terminal, waits for what a
//! person would wait for (the server's tools listed, the form on screen, the screen settled),
//! works the form with the profile's keystroke plan, and journals what it saw and did as notes
//! placed where they happened among the probe server's frames (see `probe_server::interactive`).
//! Where the screen does not show what the plan expects, it journals `plan_stopped` with the
//! screen and cancels; the probes then say not-reached.

pub mod keys;
pub mod login;
pub mod pty;
pub mod script;
pub mod trap;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use probe_server::interactive::{self as plan, FieldInput, Input};
use probe_server::journal::{Direction, Event, EventKind, JournalRead, Transport};
use probe_server::Variant;
use serde_json::Value;

use crate::harness::{journal_lines, JournalIdle};
use probe_server::note::{self, Note, Payload};
use pty::{Pty, PtySpec};
use script::{Interactive, KeyPlan};

/// The session name of the driver's notes in the journal.
pub const SESSION: &str = "terminal";

/// One interactive run to drive.
struct Case {
    variant: Variant,
    plan: Interactive,
    pty: PtySpec,
    /// Where the probe server (spawned by the host) journals.
    server_journal: PathBuf,
    /// Where the browser trap appends the URLs the host tried to open.
    trap_log: PathBuf,
    /// The run's marker: once no process carries it, the server's journal is final.
    marker: String,
}

/// A terminal host's process for one interactive run.
pub struct HostLaunch {
    /// Its variables are added over the scrubbed base environment before the trap goes first on PATH.
    pub launch: crate::harness::launch::Launch,
    /// The run's scratch directory: the browser trap and its log go here.
    pub scratch: PathBuf,
}

/// Drives one interactive run of `launch` in isolation: the scrubbed environment of
/// `launch::base_env` with a terminal type (colours allowed), `launch.env`, and the browser trap
/// first on PATH and named by `BROWSER`; the driver on a blocking thread; then a sweep of every
/// process carrying the run's marker. Returns what was driven and how many processes were swept.
pub async fn drive_isolated(host: HostLaunch, variant: Variant, plan: Interactive, server_journal: PathBuf) -> Result<(Driven, usize), DriveError> {
    let (launch, scratch) = (host.launch, host.scratch);
    let trap_log = scratch.join("opened-urls.log");
    let trap = trap::install(&scratch.join("trap"), &trap_log).map_err(DriveError::Trap)?;
    let mut env = terminal_env(&launch.home, &launch.marker, launch.env);
    let path = env.get("PATH").cloned().unwrap_or_default();
    env.extend(trap.env(&path));
    let pty = PtySpec { program: launch.program, args: launch.args, env, cwd: launch.cwd, columns: plan.columns, rows: plan.rows, mark_cursor: plan.focus_at_cursor() };
    let case = Case { variant, plan, pty, server_journal, trap_log, marker: launch.marker.clone() };
    let driven = tokio::task::spawn_blocking(move || drive(case)).await.map_err(DriveError::Panicked)?;
    let swept = crate::harness::launch::sweep(None, &launch.marker).await;
    Ok((driven, swept))
}

/// The whole environment of a host in a terminal: the scrubbed base of `launch::base_env` with a
/// terminal type (colours allowed), then `extra`.
pub fn terminal_env(home: &Path, marker: &str, extra: impl IntoIterator<Item = (String, String)>) -> BTreeMap<String, String> {
    let mut env = crate::harness::launch::base_env(home, marker);
    env.insert("TERM".into(), "xterm-256color".into());
    env.remove("NO_COLOR");
    env.extend(extra);
    env
}

/// The driver itself failed (a host that misbehaves is journalled instead).
#[derive(Debug, thiserror::Error)]
pub enum DriveError {
    #[error("cannot install the browser trap")]
    Trap(#[source] std::io::Error),
    #[error("the terminal driver panicked")]
    Panicked(#[source] tokio::task::JoinError),
}

/// What a driven run produced.
pub struct Driven {
    /// The server's journal with the driver's notes in place.
    pub journal: JournalRead,
    /// The saved screens, for people.
    pub screens: String,
    pub raw_output: Vec<u8>,
    /// The host's exit code, when it exited by itself after the quit keys.
    pub exit_code: Option<u32>,
    pub stopped: Option<String>,
    pub duration: Duration,
}

/// The plan could not go on: what the screen did not show.
#[derive(Debug)]
struct Stop(String);

/// The plan's stop when a key or a text could not be sent.
fn typing(e: std::io::Error) -> Stop {
    Stop(format!("cannot type into the terminal: {e}"))
}

/// The bytes of a key the profile names; an unknown name stops the plan.
fn key_bytes(key: &str) -> Result<&'static [u8], Stop> {
    keys::bytes(key).ok_or_else(|| Stop(format!("unknown key {key}")))
}

type Step = Result<(), Stop>;

/// How long the host has to answer the server once the person has answered the form.
const ANSWER_WAIT: Duration = Duration::from_secs(10);
/// How long to wait for the server to withdraw its request (it does after 6 s).
const WITHDRAWAL_WAIT: Duration = Duration::from_secs(30);
/// At most this many presses to empty a field.
const MAX_CLEARS: usize = 80;
/// How long the screen may still show a request for input after the host answered it by itself.
const SHOWN_AFTER_ANSWER: Duration = Duration::from_secs(5);
/// How often the wait for a form looks in the journal for the host's own answer.
const ANSWER_LOOK: Duration = Duration::from_millis(200);
/// At most this many presses to reach a field, option or button.
const MAX_MOVES: usize = 40;

struct Driver<'a> {
    pty: Pty,
    focus: Focus,
    plan: &'a Interactive,
    /// The plan's keys (none, all empty, where the profile has none: the run stops at a form).
    keys: KeyPlan,
    server_journal: &'a Path,
    trap_log: &'a Path,
    trap_seen: usize,
    /// (server journal events before the note, note detail)
    notes: Vec<(usize, Value)>,
    screens: String,
    message: &'static str,
}

/// Drives one interactive run to its end (blocking). Never fails: problems become notes.
fn drive(case: Case) -> Driven {
    let started = Instant::now();
    let tool = case.variant.interactive_tool().unwrap_or(probe_server::surface::TOOL_ELICIT_FORM);
    let mut notes = Vec::new();
    let pty = match Pty::spawn(&case.pty) {
        Ok(pty) => pty,
        Err(e) => {
            notes.push((0, note::PlanStopped { reason: e.to_string(), screen: String::new() }.detail()));
            let journal = interleave(read_server(&case.server_journal), &notes);
            return Driven { journal, screens: String::new(), raw_output: Vec::new(), exit_code: None, stopped: Some(e.to_string()), duration: started.elapsed() };
        }
    };
    let keys = case.plan.keys.clone().unwrap_or_default();
    let labels_above = if keys.labels_above { plan::field_labels(tool) } else { Vec::new() };
    let mut driver = Driver {
        pty,
        focus: Focus { sign: case.plan.focus_sign(), labels_above },
        plan: &case.plan,
        keys,
        server_journal: &case.server_journal,
        trap_log: &case.trap_log,
        trap_seen: 0,
        notes,
        screens: String::new(),
        message: plan::message_of(tool),
    };
    let prompt = case.plan.prompt.replace("{tool}", tool);
    let stopped = match driver.run(case.variant, tool, &prompt) {
        Ok(()) => None,
        Err(Stop(reason)) => {
            let screen = driver.pty.screen();
            driver.note(note::PlanStopped { reason: reason.clone(), screen: screen.clone() }.detail());
            driver.screens.push_str(&format!("=== plan stopped: {reason}\n{screen}\n\n"));
            // Leave the form the way a person would, so the host does not hang on it.
            let cancel = driver.keys.cancel.clone();
            let _ = driver.press(&cancel, "leave the form");
            Some(reason)
        }
    };
    driver.check_trap();
    let _ = driver.press(&case.plan.quit, "quit");
    let exit_code = driver.pty.finish(Duration::from_secs(5));
    let raw_output = driver.pty.raw_output();
    // The server notices the host has gone and closes its journal.
    // A host may leave its server running (something it started still holds the server's input):
    // stop waiting once the journal has had nothing new for a second. A server ended by a signal
    // (the host's hang-up) writes no closing note: stop once no process of the run is left, seen
    // twice in a row (a process caught mid-exec can be missed once).
    let mut idle = JournalIdle::new(&case.server_journal, Duration::from_secs(1));
    let mut gone_looks = 0;
    let mut finished = || {
        gone_looks = if !crate::harness::launch::marked_processes(&case.marker).is_empty() { 0 } else { gone_looks + 1 };
        gone_looks >= 2 || idle.idle()
    };
    wait_for_journal(&case.server_journal, |e| Note::of(e) == Some(Note::InputClosed), Duration::from_secs(5), &mut finished);
    let journal = interleave(read_server(&case.server_journal), &driver.notes);
    Driven { journal, screens: driver.screens, raw_output, exit_code, stopped, duration: started.elapsed() }
}

/// Whether the host has answered a request for input: a response to the server's
/// `elicitation/create`, or (2026-07-28) a retry carrying the input's answers.
fn host_answered_input(journal: &Path) -> bool {
    let events = read_server(journal).events;
    let asked: Vec<&Value> =
        events.iter().filter(|e| e.dir == Direction::ServerToClient && e.method.as_deref() == Some("elicitation/create")).filter_map(|e| e.id.as_ref()).collect();
    events.iter().any(|e| {
        let answer = e.dir == Direction::ClientToServer && e.kind == EventKind::Frame && e.method.is_none() && e.id.as_ref().is_some_and(|id| asked.contains(&id));
        answer || Note::of(e) == Some(Note::InputResponse)
    })
}

fn read_server(path: &Path) -> JournalRead {
    probe_server::journal::read_journal(path).unwrap_or_default()
}

/// Waits until the server's journal holds an event that `wanted` accepts, at most `timeout`, or
/// until `give_up` says there is no point (the host has gone). Returns whether it appeared.
fn wait_for_journal(path: &Path, wanted: impl Fn(&Event) -> bool, timeout: Duration, mut give_up: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if probe_server::journal::parse_journal(&text).is_ok_and(|read| read.events.iter().any(&wanted)) {
            return true;
        }
        if Instant::now() > deadline || give_up() {
            return false;
        }
        std::thread::sleep(JOURNAL_LOOK);
    }
}

/// Waits until the server's journal has more than `lines` lines, at most `timeout`.
fn wait_for_lines(path: &Path, lines: usize, timeout: Duration, mut give_up: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while journal_lines(path) <= lines {
        if Instant::now() > deadline || give_up() {
            return false;
        }
        std::thread::sleep(JOURNAL_LOOK);
    }
    true
}

/// Waits until the server's journal holds a frame from the client past its first `lines` lines
/// (a live journal numbers its lines from 1), at most `timeout`, or until `give_up`.
fn wait_for_frame_from_client(path: &Path, lines: usize, timeout: Duration, give_up: impl FnMut() -> bool) -> bool {
    let after = lines as u64;
    wait_for_journal(path, |e| e.seq > after && e.dir == Direction::ClientToServer && e.kind == EventKind::Frame, timeout, give_up)
}

/// How often a wait on the server's journal looks at it again.
const JOURNAL_LOOK: Duration = Duration::from_millis(10);

/// The server's events with the driver's notes inserted after the event count each was taken
/// at, renumbered; a note's time is that of the event before it.
pub fn interleave(server: JournalRead, notes: &[(usize, Value)]) -> JournalRead {
    let mut events = Vec::with_capacity(server.events.len() + notes.len());
    let mut pending = notes.iter().peekable();
    let note_event = |t_us: u64, detail: &Value| Event::note_at(0, t_us, SESSION, Transport::Stdio, detail.clone());
    let mut t_us = 0;
    for (index, event) in server.events.into_iter().enumerate() {
        while let Some((_, detail)) = pending.next_if(|(after, _)| *after <= index) {
            events.push(note_event(t_us, detail));
        }
        t_us = event.t_us;
        events.push(event);
    }
    for (_, detail) in pending {
        events.push(note_event(t_us, detail));
    }
    for (i, event) in events.iter_mut().enumerate() {
        event.seq = i as u64 + 1;
    }
    JournalRead { events, truncated_tail: server.truncated_tail }
}

impl Driver<'_> {
    fn note(&mut self, detail: Value) {
        self.check_trap();
        self.notes.push((journal_lines(self.server_journal), detail));
    }

    /// Saves the settled screen under `label`.
    fn save_screen(&mut self, label: &str) -> String {
        let screen = self.pty.settle(self.plan.pace.screen_quiet(), self.plan.pace.settle_max().max(self.plan.pace.screen_quiet()));
        self.screens.push_str(&format!("=== {label}\n{screen}\n\n"));
        self.note(note::Screen { label: label.to_string(), text: screen.clone() }.detail());
        screen
    }

    /// Journals a URL the host tried to open since the last look.
    fn check_trap(&mut self) {
        let lines: Vec<String> = std::fs::read_to_string(self.trap_log).unwrap_or_default().lines().map(str::to_string).collect();
        for line in lines.iter().skip(self.trap_seen) {
            self.notes.push((journal_lines(self.server_journal), note::BrowserOpened { arguments: line.clone(), person: None }.detail()));
        }
        self.trap_seen = self.trap_seen.max(lines.len());
    }

    /// Sends keys one by one, each given time to show its effect.
    fn press(&mut self, keys: &[String], why: &str) -> Step {
        if keys.is_empty() {
            return Ok(());
        }
        self.note(note::Keys { keys: Some(keys.to_vec()), text: None, why: why.to_string() }.detail());
        keys.iter().try_for_each(|key| self.press_key(key))
    }

    /// Sends one key and gives it the pace's time to show its effect.
    fn press_key(&mut self, key: &str) -> Step {
        let pace = self.plan.pace;
        if pace.redraws_every_key {
            return self.pty.press_awaiting_write(key_bytes(key)?, script::REDRAW_BOUND, pace.key_settle(), pace.settle_max()).map_err(typing);
        }
        self.pty.press(key_bytes(key)?, pace.key_echo(), pace.key_settle(), pace.settle_max()).map_err(typing)
    }

    /// Presses a one-key action `times` over, the pace's typing gap apart, and gives the last
    /// press time to show its effect (a longer action is pressed once, as `press` does).
    fn press_held(&mut self, keys: &[String], times: usize, why: &str) -> Step {
        let [key] = keys else { return self.press(keys, why) };
        if times <= 1 {
            return self.press(keys, why);
        }
        self.note(note::Keys { keys: Some(vec![key.clone(); times]), text: None, why: why.to_string() }.detail());
        let bytes = key_bytes(key)?;
        for _ in 1..times {
            self.pty.send(bytes).map_err(typing)?;
            std::thread::sleep(self.plan.pace.char());
        }
        self.press_key(key)
    }

    fn type_text(&mut self, text: &str, why: &str) -> Step {
        self.note(note::Keys { keys: None, text: Some(text.to_string()), why: why.to_string() }.detail());
        // Wait for the text's end to be drawn (the caller checks where it landed), then for the
        // redraw to finish.
        self.pty.type_and_watch(text, self.plan.pace.char(), self.plan.pace.key_effect()).map_err(typing)?;
        self.redrawn();
        Ok(())
    }

    /// The screen once the host has finished redrawing (still for the pace's key settle).
    fn redrawn(&self) -> String {
        self.pty.settle(self.plan.pace.key_settle(), self.plan.pace.settle_max())
    }

    /// What has the focus below the form's message (see `Focus::read`).
    fn focused(&self, screen: &str) -> Vec<String> {
        self.focus.read(screen, self.message)
    }

    /// Waits (up to the pace's `key_effect_ms`) for the focused lines to differ from `before`.
    /// Where the cursor shows the focus, a screen without it (hidden while the host redraws)
    /// shows no focus yet.
    fn focus_changed_from(&mut self, before: &[String]) -> bool {
        let (focus, message, wait) = (&self.focus, self.message, self.plan.pace.key_effect());
        self.pty.wait_for(wait, |s| focus.shown(s) && focus.read(s, message) != before).is_some()
    }

    /// The screen, once it shows the focus where the cursor does (the host may be mid-redraw).
    fn focus_screen(&mut self) -> String {
        let (focus, wait) = (&self.focus, self.plan.pace.key_effect());
        self.pty.wait_for(wait, |s| focus.shown(s)).unwrap_or_else(|| self.pty.screen())
    }

    fn is_focused(&self, screen: &str, label: &str) -> bool {
        self.focused(screen).iter().any(|t| t.starts_with(label))
    }

    /// Presses `keys` until the focus is on `label`.
    fn move_to(&mut self, label: &str, keys: &[String], what: &str) -> Step {
        let mut seen = Vec::new();
        for _ in 0..MAX_MOVES {
            let screen = self.focus_screen();
            if self.is_focused(&screen, label) {
                return Ok(());
            }
            let mut before = self.focused(&screen);
            if seen.contains(&before) {
                // A screen read mid-redraw may still show a focus already passed: look again once
                // the screen is still before saying the focus went all the way round.
                let settled = self.redrawn();
                if self.is_focused(&settled, label) {
                    return Ok(());
                }
                before = self.focused(&settled);
                if seen.contains(&before) {
                    return Err(Stop(format!("{what} {label:?} never got the focus (the focus went all the way round)")));
                }
            }
            seen.push(before.clone());
            self.press(keys, &format!("move to {what} {label:?}"))?;
            // A host slow to redraw (a loaded machine) gets a second look once its screen is still.
            if !self.focus_changed_from(&before) {
                self.redrawn();
                if !self.focus_changed_from(&before) {
                    return Err(Stop(format!("{what} {label:?} never got the focus (the focus stopped moving)")));
                }
            }
        }
        Err(Stop(format!("{what} {label:?} never got the focus in {MAX_MOVES} moves")))
    }

    fn focus_field(&mut self, label: &str) -> Step {
        let keys = self.keys.next_field.clone();
        self.move_to(label, &keys, "field")
    }

    fn apply(&mut self, input: &FieldInput) -> Step {
        let keys = self.keys.clone();
        self.focus_field(&input.label)?;
        match &input.input {
            Input::Text(text) => {
                self.clear_field(&input.label)?;
                self.type_text(text, &format!("type into {}", input.label))?;
                let screen = self.focus_screen();
                if !self.focused(&screen).iter().any(|t| t.starts_with(&input.label) && t.contains(text)) {
                    return Err(Stop(format!("typed {text:?} into {} and the field does not show it", input.label)));
                }
            }
            Input::Toggle => self.press(&keys.toggle, &format!("toggle {}", input.label))?,
            Input::Pick(labels) => {
                self.press(&keys.expand, &format!("open {}", input.label))?;
                self.save_screen(&plan::field_open(input.field));
                for label in labels {
                    self.move_to(label, &keys.next_option, "option")?;
                    self.press(&keys.pick, &format!("pick {label:?}"))?;
                }
                let collapse = if input.multi { &keys.collapse_multi } else { &keys.collapse_single };
                self.press(collapse, &format!("close {}", input.label))?;
            }
        }
        Ok(())
    }

    /// Presses the clear keys until the focused field shows it is empty, or stops changing (a
    /// host may delete one character per press, or the whole value at once).
    fn clear_field(&mut self, label: &str) -> Step {
        let clear = self.keys.clear.clone();
        for _ in 0..MAX_CLEARS {
            let screen = self.focus_screen();
            let empty = self.keys.empty_value.as_deref();
            if self.focused(&screen).iter().any(|t| field_value(t, label).is_some_and(|v| v.is_empty() || Some(v) == empty)) {
                return Ok(());
            }
            let before = self.focused(&screen);
            // As many presses as the value has characters, one after another as a person holds
            // the key down; a host that drops some still shows a value, and the loop goes on.
            let shown = before.iter().find_map(|t| field_value(t, label)).map_or(0, |v| v.chars().count());
            self.press_held(&clear, shown.clamp(1, MAX_CLEARS), &format!("empty {label}"))?;
            if !self.focus_changed_from(&before) {
                return Ok(());
            }
        }
        Err(Stop(format!("{label} did not become empty after {MAX_CLEARS} presses")))
    }

    fn press_accept(&mut self) -> Step {
        let (label, press) = (self.keys.accept_label.clone(), self.keys.press.clone());
        self.focus_field(&label)?;
        self.press(&press, "press accept")
    }

    fn run(&mut self, variant: Variant, tool: &str, prompt: &str) -> Step {
        let ready = Duration::from_secs(self.plan.ready_timeout_secs);
        let (journal, pty) = (self.server_journal, &mut self.pty);
        if !wait_for_journal(journal, |e| e.method.as_deref() == Some("tools/list"), ready, || pty.exited().is_some()) {
            return Err(Stop(format!("the host did not list the server's tools within {} s", ready.as_secs())));
        }
        self.pty.wait_for(ready, |s| !s.trim().is_empty());
        std::thread::sleep(self.plan.pace.ready_pause());
        self.save_screen("ready");
        self.type_text(prompt, "type the prompt")?;
        let submit = self.plan.submit.clone();
        self.press(&submit, "submit the prompt")?;
        let message = self.message;
        let labels = plan::field_labels(tool);
        let form_wait = Duration::from_secs(self.plan.form_timeout_secs);
        let shown = |s: &str| {
            let below_prompt = s.lines().filter(|l| !l.contains(prompt)).collect::<Vec<_>>().join("\n");
            below_prompt.contains(message) || (!labels.is_empty() && labels.iter().filter(|l| below_prompt.contains(l.as_str())).count() * 2 > labels.len())
        };
        // A host that answers the request by itself (a URL request it declines) has no form left
        // to show: the screen gets a while after the answer, not the whole wait.
        let journal = self.server_journal;
        let (mut answered, mut looked) = (None::<Instant>, Instant::now());
        let seen = self.pty.wait_for(form_wait, |s| {
            if shown(s) {
                return true;
            }
            if answered.is_none() && looked.elapsed() >= ANSWER_LOOK {
                looked = Instant::now();
                answered = host_answered_input(journal).then(Instant::now);
            }
            answered.is_some_and(|at| at.elapsed() >= SHOWN_AFTER_ANSWER)
        });
        match seen {
            Some(screen) if shown(&screen) => {}
            Some(_) => {
                return Err(Stop(format!("the form did not appear: the host answered the request by itself and showed nothing in the {} s after", SHOWN_AFTER_ANSWER.as_secs())))
            }
            None => return Err(Stop(format!("the form did not appear within {} s", form_wait.as_secs()))),
        }
        self.save_screen(plan::FORM_SHOWN);
        if self.plan.keys.is_none() {
            return Err(Stop("the form appeared, and the profile has no keys for a form (no [interactive.keys])".to_string()));
        }
        // Frames the host sends from here on answer the form.
        let before_answer = journal_lines(self.server_journal);
        let keys = self.keys.clone();
        match variant {
            Variant::InteractiveAccept => {
                for input in plan::form_inputs() {
                    self.apply(&input)?;
                }
                self.save_screen(plan::AFTER_INPUT);
                self.press_accept()?;
            }
            Variant::InteractiveEnums => {
                for input in plan::enum_inputs() {
                    self.apply(&input)?;
                }
                self.save_screen(plan::AFTER_INPUT);
                self.press_accept()?;
            }
            Variant::InteractiveDecline => {
                self.focus_field(&keys.accept_label)?;
                self.move_to(&keys.decline_label, &keys.next_button, "button")?;
                self.press(&keys.press, "press decline")?;
            }
            Variant::InteractiveCancel => self.press(&keys.cancel, "cancel")?,
            Variant::InteractiveRequired | Variant::InteractiveBadFormat | Variant::InteractiveOutOfBounds => {
                let Some(invalid) = plan::invalid_input(variant) else { return Err(Stop(format!("{variant} has no invalid input"))) };
                let schema = probe_server::surface::elicit_form_schema();
                let label = plan::field_label(&schema, invalid.field);
                let enter = |driver: &mut Self, text: Option<&str>| -> Step {
                    driver.focus_field(&label)?;
                    driver.clear_field(&label)?;
                    match text {
                        Some(text) => driver.type_text(text, &format!("type into {label}")),
                        None => Ok(()),
                    }
                };
                enter(self, invalid.bad)?;
                self.press_accept()?;
                let screen = self.save_screen(plan::AFTER_ACCEPT_ATTEMPT);
                if screen.contains(message) {
                    enter(self, Some(invalid.fixed))?;
                    self.press_accept()?;
                }
            }
            Variant::InteractiveUrl => {
                let until = Instant::now() + self.plan.pace.url_watch();
                while Instant::now() < until {
                    self.check_trap();
                    std::thread::sleep(Duration::from_millis(100));
                }
                self.press(&keys.cancel, "cancel without opening")?;
            }
            Variant::InteractiveWithdrawn => {
                if !wait_for_journal(self.server_journal, |e| e.method.as_deref() == Some("notifications/cancelled"), WITHDRAWAL_WAIT, || false) {
                    return Err(Stop(format!("the server did not withdraw its request within {} s", WITHDRAWAL_WAIT.as_secs())));
                }
                // A settled time for the host to take the form down before the screen is judged.
                let message = self.message;
                self.pty.wait_for(self.plan.pace.withdrawal_settle(), |s| !s.contains(message));
                let screen = self.save_screen(plan::AFTER_WITHDRAWAL);
                if screen.contains(message) {
                    // The person, who saw nothing change, answers late.
                    let lines = journal_lines(self.server_journal);
                    self.press_accept()?;
                    // Whatever the host sends now reaches the journal as a new line.
                    let (journal, pty, wait) = (self.server_journal, &mut self.pty, self.plan.pace.late_answer());
                    wait_for_lines(journal, lines, wait, || pty.exited().is_some());
                    self.save_screen(plan::AFTER_LATE_ANSWER);
                }
                return Ok(());
            }
            other => return Err(Stop(format!("{other} is not an interactive run"))),
        }
        let gone = self.form_gone(ANSWER_WAIT);
        if gone {
            // A person waits for the host to act on the answer before quitting it: the host's
            // next frame to the server (its answer), or the wait's end.
            let (journal, pty) = (self.server_journal, &mut self.pty);
            wait_for_frame_from_client(journal, before_answer, ANSWER_WAIT, || pty.exited().is_some());
        }
        self.save_screen(plan::AFTER_ANSWER);
        if gone {
            Ok(())
        } else {
            Err(Stop(format!("the form was still on screen {} s after the answer", ANSWER_WAIT.as_secs())))
        }
    }

    /// Waits (at most `timeout`) until the form's message is off a still screen: a screen read
    /// while the host redraws may lack it for a moment.
    fn form_gone(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let message = self.message;
        while self.pty.wait_for(deadline.saturating_duration_since(Instant::now()), |s| !s.contains(message)).is_some() {
            let settled = self.redrawn();
            if !settled.contains(message) {
                return true;
            }
            if Instant::now() > deadline {
                break;
            }
        }
        false
    }
}

/// The value a focused line shows for the field `label` (`label: value`, a required mark or
/// other decoration before the colon allowed), or none if the line is not that field's.
fn field_value<'a>(focused: &'a str, label: &str) -> Option<&'a str> {
    let rest = focused.strip_prefix(label)?;
    let (decoration, value) = rest.split_once(':')?;
    decoration.chars().all(|c| c == ' ' || c == '*').then(|| value.trim())
}

/// How a host shows what has the focus, and where it puts a field's label.
struct Focus {
    /// Drawn before the focused field, option or button (or the cursor's mark).
    sign: String,
    /// With labels above their values: the form's field labels, to find the focused one by.
    labels_above: Vec<String>,
}

impl Focus {
    /// Whether a screen can show the focus: with the cursor as the sign, only while the host
    /// shows its cursor (the screen then carries the cursor's mark).
    fn shown(&self, screen: &str) -> bool {
        !self.sign.chars().eq([pty::CURSOR_MARK]) || screen.contains(pty::CURSOR_MARK)
    }

    /// The text after the focus sign on each line below the form's message. Where labels sit
    /// above their values, also `label: value` for the nearest label above the sign, looking no
    /// further up than a blank line.
    fn read(&self, screen: &str, message: &str) -> Vec<String> {
        let lines: Vec<&str> = screen.lines().collect();
        let start = lines.iter().position(|l| l.contains(message)).map_or(0, |i| i + 1);
        let mut focused = Vec::new();
        for (i, line) in lines.iter().enumerate().skip(start) {
            let Some(at) = line.find(&self.sign) else { continue };
            focused.push(line[at + self.sign.len()..].trim_start_matches(|c: char| !c.is_alphanumeric()).to_string());
            if let Some(label) = self.label_above(&lines[start..i]) {
                focused.push(format!("{label}: {}", bare(&line.replacen(&self.sign, "", 1))).trim_end().to_string());
            }
        }
        focused
    }

    fn label_above(&self, lines: &[&str]) -> Option<&str> {
        for line in lines.iter().rev() {
            let text = bare(line);
            let label = self.labels_above.iter().find(|label| text.strip_prefix(label.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '*', '('])));
            if label.is_some() {
                return label.map(String::as_str);
            }
            if line.chars().all(|c| c.is_whitespace() || matches!(c, '│' | '┃' | '|')) {
                return None;
            }
        }
        None
    }
}

/// A line's text without the frame around it: blanks, box-drawing and block characters.
fn bare(line: &str) -> String {
    line.trim_matches(|c: char| c.is_whitespace() || c == '|' || ('\u{2500}'..='\u{259F}').contains(&c)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn notes_land_after_the_server_events_they_followed() {
        let server = probe_server::journal::parse_journal(
            "{\"format_version\":1,\"seq\":1,\"t_us\":5,\"session\":\"s\",\"transport\":\"stdio\",\"dir\":\"c2s\",\"kind\":\"frame\",\"raw\":\"{}\"}\n\
             {\"format_version\":1,\"seq\":2,\"t_us\":9,\"session\":\"s\",\"transport\":\"stdio\",\"dir\":\"s2c\",\"kind\":\"frame\",\"raw\":\"{}\"}\n",
        )
        .unwrap();
        let joined = interleave(
            server,
            &[
                (0, note::Screen { label: "a".into(), text: String::new() }.detail()),
                (1, note::Screen { label: "b".into(), text: String::new() }.detail()),
                (7, note::Keys { keys: None, text: None, why: String::new() }.detail()),
            ],
        );
        let kinds: Vec<String> = joined.events.iter().map(|e| e.detail.as_ref().map_or(format!("{:?}", e.dir), |d| d["event"].to_string())).collect();
        assert_eq!(kinds, vec!["\"screen\"", "ClientToServer", "\"screen\"", "ServerToClient", "\"keys\""]);
        assert_eq!(joined.events.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5]);
        assert_eq!(joined.events[2].t_us, 5);
    }

    #[test]
    fn only_an_answer_to_the_request_for_input_counts_as_the_hosts_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let line = |seq: u64, dir: &str, method: Option<&str>, id: Option<u64>, detail: Option<Value>| {
            let mut event = json!({"format_version": 1, "seq": seq, "t_us": seq, "session": "s", "transport": "stdio", "dir": dir, "kind": if detail.is_some() { "note" } else { "frame" }, "raw": "{}"});
            if let Some(method) = method {
                event["method"] = json!(method);
            }
            if let Some(id) = id {
                event["id"] = json!(id);
            }
            if let Some(detail) = detail {
                event["detail"] = detail;
            }
            format!("{event}\n")
        };
        let asked = line(1, "s2c", Some("elicitation/create"), Some(7), None) + &line(2, "s2c", Some("roots/list"), Some(8), None);
        // The answer to another request (roots) is not an answer to the form.
        std::fs::write(&path, asked.clone() + &line(3, "c2s", None, Some(8), None)).unwrap();
        assert!(!host_answered_input(&path));
        std::fs::write(&path, asked.clone() + &line(3, "c2s", None, Some(7), None)).unwrap();
        assert!(host_answered_input(&path));
        // 2026-07-28: the retry that carries the answers.
        std::fs::write(&path, line(1, "note", None, None, Some(note::InputResponse { tool: "t".into(), request_state: None, keys: None }.detail()))).unwrap();
        assert!(host_answered_input(&path));
    }

    #[test]
    fn a_field_value_is_read_after_its_label_and_colon() {
        assert_eq!(field_value("count *: (empty)", "count"), Some("(empty)"));
        assert_eq!(field_value("count: Type something…", "count"), Some("Type something…"));
        assert_eq!(field_value("count:", "count"), Some(""));
        assert_eq!(field_value("counter: 3", "count"), None);
        assert_eq!(field_value("Accept  Decline", "count"), None);
    }

    #[test]
    fn focus_at_the_cursor_is_read_with_the_label_above_it() {
        let m = pty::CURSOR_MARK;
        let focus = Focus { sign: m.to_string(), labels_above: vec!["agree".into(), "count".into(), "E-mail".into()] };
        let form = |cursor_row: usize| {
            let rows = [
                "    │ please confirm                │",
                "    │ agree *                       │",
                "    │ ┌───────────────────────────┐ │",
                "    │ │[*] Yes                   ^│ │",
                "    │ └───────────────────────────┘ │",
                "    │                               │",
                "    │ count * (min 1, max 10)       │",
                "    │ ▎ 3                           │",
                "    │                               │",
                "    │ E-mail *                      │",
                "    │   Email (user@example.com)    │",
                "    │ ▎                             │",
                "    │                               │",
                "    │ <  Accept  >  < Decline  >    │",
            ];
            let at = |row: usize, line: &str| match (row == cursor_row, row) {
                (true, 3) => line.replacen("[*]", &format!("[{m}*]"), 1),
                (true, 13) => line.replacen("< Decline", &format!("<{m} Decline"), 1),
                (true, _) => line.replacen("▎ ", &format!("▎ {m}"), 1),
                (false, _) => line.to_string(),
            };
            rows.iter().enumerate().map(|(row, line)| at(row, line)).collect::<Vec<_>>().join("\n")
        };
        assert_eq!(focus.read(&form(3), "please confirm"), vec!["Yes                   ^│ │".to_string(), "agree: [*] Yes                   ^".into()]);
        assert_eq!(focus.read(&form(7), "please confirm"), vec!["3                           │".to_string(), "count: 3".into()]);
        // A hint line between label and value; an empty value.
        assert_eq!(focus.read(&form(11), "please confirm")[1], "E-mail:");
        assert_eq!(field_value("E-mail:", "E-mail"), Some(""));
        // A button row: no label above the blank line before it.
        assert_eq!(focus.read(&form(13), "please confirm"), vec!["Decline  >    │".to_string()]);
    }

    #[test]
    fn focus_is_read_after_the_marker_below_the_message() {
        let screen = "❯ the prompt mentions count\n  please confirm\n    ✔ agree: ☒\n  ❯ ✔ count: 3\n    Accept  ❯ Decline";
        let focus = Focus { sign: "❯".into(), labels_above: Vec::new() };
        assert_eq!(focus.read(screen, "please confirm"), vec!["count: 3".to_string(), "Decline".into()]);
    }
}
