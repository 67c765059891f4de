//! What the terminal driver is told to do, as a client's profile writes it: the plan of an
//! interactive run (how to start the host's terminal UI, get past its first-run screens, submit a
//! prompt, answer a form and quit, at what pace) and of a sign-in through the terminal. The
//! profile embeds these; the driver reads them.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::harness::launch::ConfigFile;

/// What is wrong with a profile's `[interactive]` section.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum InteractiveError {
    #[error("interactive: unknown key {0:?}")]
    UnknownKey(String),
    #[error("interactive: focus_marker is empty and focus_at_cursor is not set")]
    EmptyFocusMarker,
    #[error("interactive: both focus_marker and focus_at_cursor are set")]
    TwoFocusSigns,
    #[error("interactive: the prompt must name {{tool}}")]
    PromptWithoutTool,
}

/// A sign-in worked from a terminal: steps a person would take (wait for a text, type, press
/// keys), then a wait for the text that says the host is signed in (or for the command to end).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerminalLogin {
    #[serde(default)]
    pub steps: Vec<TerminalStep>,
    /// Text on screen once the host is signed in; without it the login ends when the command
    /// exits.
    #[serde(default)]
    pub signed_in: Option<String>,
    /// Texts on screen that say the sign-in failed: the login ends there instead of waiting out
    /// its timeout.
    #[serde(default)]
    pub failed: Vec<String>,
    /// Keys that leave the UI once signed in.
    #[serde(default)]
    pub quit: Vec<String>,
    /// The host prints its authorization URL instead of opening a browser: the watcher reads
    /// the host's output for it. Off by default, because a terminal UI draws a long URL in
    /// pieces, and a piece is not a URL to follow.
    #[serde(default)]
    pub printed_url: bool,
    /// Variables added over `launch.env` for the login only.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Files written before the login only (a terminal UI's first-run state).
    #[serde(default)]
    pub files: Vec<ConfigFile>,
    #[serde(default = "default_columns")]
    pub columns: u16,
    #[serde(default = "default_rows")]
    pub rows: u16,
    /// How long a `wait` step waits for its text (the wait for the signed-in text has the whole
    /// login's time, since a person logs in meanwhile).
    #[serde(default = "default_step_wait_secs")]
    pub step_wait_secs: u64,
}

fn default_step_wait_secs() -> u64 {
    30
}

/// One step of a terminal sign-in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TerminalStep {
    /// Wait until the screen shows this text.
    Wait(String),
    /// Wait until the screen no longer shows this text (a host still starting up that queues
    /// what is typed as a prompt rather than reading it as a command).
    Gone(String),
    /// Type this text.
    Type(String),
    /// Press these keys (names as in `keys`).
    Keys(Vec<String>),
}

impl TerminalLogin {
    /// The key names the steps and `quit` use.
    pub fn key_names(&self) -> impl Iterator<Item = &String> {
        self.steps
            .iter()
            .flat_map(|s| match s {
                TerminalStep::Keys(keys) => keys.as_slice(),
                _ => &[],
            })
            .chain(&self.quit)
    }
}

pub(crate) fn default_login_secs() -> u64 {
    60
}

/// The interactive runs: how to start the host's terminal UI, get past its first-run screens,
/// submit a prompt and quit, and the keystroke plan for its elicitation forms. Keys are names
/// (`Enter`, `Esc`, `Tab`, `Space`, `Backspace`, `Up`, `Down`, `Left`, `Right`, `Ctrl-C`,
/// `Ctrl-U`), see `terminal::keys`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interactive {
    /// Arguments that start the UI (placeholders as in `launch`).
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added over `launch.env`.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Files written before the start, after the profile's files (first-run state).
    #[serde(default)]
    pub files: Vec<ConfigFile>,
    /// The prompt typed into the UI; `{tool}` is the probe tool the run is about. The model stub
    /// calls only the tool named after `--only-tool`.
    pub prompt: String,
    pub submit: Vec<String>,
    pub quit: Vec<String>,
    #[serde(default = "default_columns")]
    pub columns: u16,
    #[serde(default = "default_rows")]
    pub rows: u16,
    /// How long to wait for the host to list the server's tools, and for the form to appear.
    #[serde(default = "default_wait")]
    pub ready_timeout_secs: u64,
    #[serde(default = "default_wait")]
    pub form_timeout_secs: u64,
    /// How a person works the form. Absent for a host with no form to show (it declares no
    /// elicitation and answers the request by itself): should a form appear all the same, the
    /// plan stops there and says that the profile has no keys for it.
    #[serde(default)]
    pub keys: Option<KeyPlan>,
    /// How long a person's keys wait on the host's drawing; the defaults suit real hosts.
    #[serde(default)]
    pub pace: Pace,
}

/// The clocks of the keystroke plan, where no screen event can tell that the host is ready: a
/// key without a visible effect, a host that drops a key arriving mid-redraw. Everything else
/// waits for what it needs on screen or in the journal.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Pace {
    /// How long a key may take to change the screen before the next key is sent anyway.
    pub key_echo_ms: u64,
    /// How long the screen must stay still after a key's echo before the next key.
    pub key_settle_ms: u64,
    /// How long a key whose effect the plan needs (the focus moving, typed text drawn) may take
    /// to show it before the plan stops.
    pub key_effect_ms: u64,
    /// Between two typed characters.
    pub char_ms: u64,
    /// How long the screen must stay still before it is saved.
    pub screen_quiet_ms: u64,
    /// After the host has listed the server's tools, before the prompt is typed.
    pub ready_pause_ms: u64,
    /// How long a URL request stays on screen, unanswered, while the browser trap watches for
    /// a page opened without asking.
    pub url_watch_ms: u64,
    /// The longest a settle waits for the screen to stay still: a host that animates (a spinner,
    /// a running timer) never does.
    pub settle_max_ms: u64,
    /// How long the host has, once the server withdrew its request, to take the form off the
    /// screen before the screen is judged.
    pub withdrawal_settle_ms: u64,
    /// How long a person's late answer to a withdrawn form has to reach the server.
    pub late_answer_ms: u64,
    /// Whether the host writes its screen after every key it reads, even a key it ignores:
    /// then a key's effect is waited for as that write (up to [`REDRAW_BOUND`]), not as a
    /// change within `key_echo_ms`, so a host slow to redraw on a loaded machine is not taken for
    /// one that ignored the key.
    pub redraws_every_key: bool,
}

/// How long a host that redraws after every key may take to write after one.
pub const REDRAW_BOUND: Duration = Duration::from_secs(10);

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            key_echo_ms: 400,
            key_settle_ms: 150,
            key_effect_ms: 1500,
            char_ms: 30,
            screen_quiet_ms: 300,
            ready_pause_ms: 500,
            url_watch_ms: 2000,
            settle_max_ms: 1000,
            withdrawal_settle_ms: 2000,
            late_answer_ms: 2000,
            redraws_every_key: false,
        }
    }
}

impl Pace {
    pub fn key_echo(&self) -> Duration {
        Duration::from_millis(self.key_echo_ms)
    }
    pub fn key_settle(&self) -> Duration {
        Duration::from_millis(self.key_settle_ms)
    }
    pub fn key_effect(&self) -> Duration {
        Duration::from_millis(self.key_effect_ms)
    }
    pub fn char(&self) -> Duration {
        Duration::from_millis(self.char_ms)
    }
    pub fn screen_quiet(&self) -> Duration {
        Duration::from_millis(self.screen_quiet_ms)
    }
    pub fn ready_pause(&self) -> Duration {
        Duration::from_millis(self.ready_pause_ms)
    }
    pub fn url_watch(&self) -> Duration {
        Duration::from_millis(self.url_watch_ms)
    }
    pub fn settle_max(&self) -> Duration {
        Duration::from_millis(self.settle_max_ms)
    }
    pub fn withdrawal_settle(&self) -> Duration {
        Duration::from_millis(self.withdrawal_settle_ms)
    }
    pub fn late_answer(&self) -> Duration {
        Duration::from_millis(self.late_answer_ms)
    }
}

fn default_columns() -> u16 {
    100
}
fn default_rows() -> u16 {
    40
}
fn default_wait() -> u64 {
    60
}

/// How a person works the host's elicitation form, as data. Focus is found on screen: the line
/// holding `focus_marker`, whose text after the marker (leading symbols skipped) starts with the
/// label of the field, option or button wanted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyPlan {
    /// What the host draws before the focused field, option or button.
    #[serde(default)]
    pub focus_marker: String,
    /// The host shows focus by where it leaves the terminal's cursor instead of a marker: the
    /// driver marks the cursor's cell (with `drivers::terminal::pty::CURSOR_MARK`) and reads the
    /// focus after it.
    #[serde(default)]
    pub focus_at_cursor: bool,
    /// The host draws a field's label on a line of its own above the value (perhaps with a hint
    /// line between): the driver reads the focused field as the nearest label above the focus.
    #[serde(default)]
    pub labels_above: bool,
    pub next_field: Vec<String>,
    /// Empties the focused text field.
    pub clear: Vec<String>,
    /// What an empty text field shows after its label (a placeholder), if anything: a field
    /// showing nothing or this is empty, and no more clear keys are pressed.
    #[serde(default)]
    pub empty_value: Option<String>,
    pub toggle: Vec<String>,
    /// Opens the focused enum field's options.
    pub expand: Vec<String>,
    pub next_option: Vec<String>,
    pub pick: Vec<String>,
    /// Closes the options after picking, per kind of field.
    #[serde(default)]
    pub collapse_single: Vec<String>,
    #[serde(default)]
    pub collapse_multi: Vec<String>,
    pub accept_label: String,
    pub decline_label: String,
    /// Moves from the accept button towards the decline button.
    pub next_button: Vec<String>,
    /// Presses the focused button.
    pub press: Vec<String>,
    pub cancel: Vec<String>,
}

impl Interactive {
    /// Every key name the section uses, for validation.
    pub fn key_names(&self) -> impl Iterator<Item = &String> {
        self.submit.iter().chain(&self.quit).chain(self.keys.iter().flat_map(KeyPlan::key_names))
    }

    /// Whether the host shows focus by its cursor.
    pub fn focus_at_cursor(&self) -> bool {
        self.keys.as_ref().is_some_and(|k| k.focus_at_cursor)
    }

    /// The text before the focused field, option or button on screen (empty without keys).
    pub fn focus_sign(&self) -> String {
        match &self.keys {
            Some(keys) if keys.focus_at_cursor => crate::drivers::terminal::pty::CURSOR_MARK.to_string(),
            Some(keys) => keys.focus_marker.clone(),
            None => String::new(),
        }
    }

    /// Checks key names and the focus sign; the error says what is wrong.
    pub fn validate(&self) -> Result<(), InteractiveError> {
        if let Some(bad) = self.key_names().find(|k| crate::drivers::terminal::keys::bytes(k).is_none()) {
            return Err(InteractiveError::UnknownKey(bad.clone()));
        }
        if let Some(keys) = &self.keys {
            match (keys.focus_marker.trim().is_empty(), keys.focus_at_cursor) {
                (true, false) => return Err(InteractiveError::EmptyFocusMarker),
                (false, true) => return Err(InteractiveError::TwoFocusSigns),
                _ => {}
            }
        }
        if !self.prompt.contains("{tool}") {
            return Err(InteractiveError::PromptWithoutTool);
        }
        Ok(())
    }
}

impl KeyPlan {
    /// Every key name the plan uses.
    fn key_names(&self) -> impl Iterator<Item = &String> {
        self.next_field
            .iter()
            .chain(&self.clear)
            .chain(&self.toggle)
            .chain(&self.expand)
            .chain(&self.next_option)
            .chain(&self.pick)
            .chain(&self.collapse_single)
            .chain(&self.collapse_multi)
            .chain(&self.next_button)
            .chain(&self.press)
            .chain(&self.cancel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYLESS: &str = r#"
        prompt = "Call {tool}."
        submit = ["Enter"]
        quit = ["Ctrl-C"]
    "#;

    #[test]
    fn a_plan_without_keys_is_valid_and_shows_no_focus_sign() {
        let plan: Interactive = toml::from_str(KEYLESS).unwrap();
        plan.validate().unwrap();
        assert!(plan.keys.is_none());
        assert_eq!(plan.focus_sign(), "");
        assert!(!plan.focus_at_cursor());
        assert_eq!(plan.key_names().collect::<Vec<_>>(), ["Enter", "Ctrl-C"]);
    }

    #[test]
    fn the_keys_of_a_form_are_checked_where_there_are_some() {
        let keys = r#"
            [keys]
            focus_marker = ">"
            next_field = ["Sideways"]
            clear = []
            toggle = []
            expand = []
            next_option = []
            pick = []
            accept_label = "OK"
            decline_label = "No"
            next_button = []
            press = ["Enter"]
            cancel = ["Esc"]
        "#;
        let plan: Interactive = toml::from_str(&format!("{KEYLESS}{keys}")).unwrap();
        assert!(matches!(plan.validate(), Err(InteractiveError::UnknownKey(k)) if k == "Sideways"));
        let plan: Interactive = toml::from_str(&format!("{KEYLESS}{}", keys.replace("Sideways", "Down").replace("\">\"", "\" \""))).unwrap();
        assert!(matches!(plan.validate(), Err(InteractiveError::EmptyFocusMarker)));
    }
}
