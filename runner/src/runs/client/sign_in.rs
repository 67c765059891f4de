//! Signing a host in, in the auth variants' runs: the browser trap first on the host's PATH and
//! named by `BROWSER`, and a watcher that hands every authorization URL the host opens to the
//! person who logs in (`drivers::person`). What the host opened, and how each login ended, become
//! `browser_opened` notes; how the harness meant to sign the host in, a `sign_in` note.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::drivers::terminal::trap;
use probe_server::note::{BrowserOpened, Payload, PersonFollowed, SignIn};

/// How often the watcher reads the trap's log.
const POLL: Duration = Duration::from_millis(100);

/// One URL opener the host ran, and what the person did with it.
#[derive(Debug, Clone)]
pub struct Opened {
    pub line: String,
    /// The person's login: `None` when the line held no authorization URL on this machine.
    pub login: Option<Result<u16, std::sync::Arc<crate::drivers::person::LoginError>>>,
}

impl Opened {
    pub fn note(&self) -> Value {
        let person = self.login.as_ref().map(|login| match login {
            Ok(status) => PersonFollowed { followed: true, callback_status: Some(*status), error: None },
            Err(error) => PersonFollowed { followed: false, callback_status: None, error: Some(error.to_string()) },
        });
        BrowserOpened { arguments: self.line.clone(), person }.detail()
    }
}

/// The trap and its watcher, for one run.
pub struct Watch {
    trap: trap::Trap,
    output: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
    stop: CancellationToken,
    watcher: tokio::task::JoinHandle<Vec<Opened>>,
}

/// Whether a URL is an authorization URL on this machine: loopback, its path ending in
/// `/authorize`.
fn is_authorization_url(word: &str) -> bool {
    let path = word.split('?').next().unwrap_or("");
    probe_server::auth::server::loopback_redirect(word) && path.ends_with(probe_server::auth::AUTHORIZE_PATH)
}

/// The authorization URL in a line the trap logged.
fn authorization_url(line: &str) -> Option<&str> {
    line.split_whitespace().find(|word| is_authorization_url(word))
}

/// The authorization URLs in what a host printed, each whole (a URL ends at white space, a quote
/// or a bracket).
fn printed_urls(text: &str) -> Vec<String> {
    let ends = |c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '(' | ')' | '[' | ']' | '\u{1b}');
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("http") {
        let candidate = &rest[at..];
        let url = &candidate[..candidate.find(ends).unwrap_or(candidate.len())];
        if is_authorization_url(url) && !found.iter().any(|f| f == url) {
            found.push(url.to_string());
        }
        rest = &candidate[4..];
    }
    found
}

/// The most of a host's output the watcher keeps to look for URLs in.
const OUTPUT_KEPT: usize = 1 << 20;

impl Watch {
    /// Installs the trap in `scratch` and starts watching its log and the host's output.
    pub fn start(scratch: &Path) -> std::io::Result<Watch> {
        let log = scratch.join("opened-urls.log");
        let trap = trap::install(&scratch.join("trap"), &log)?;
        let stop = CancellationToken::new();
        let watching = stop.clone();
        let (output, mut printed) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        let watcher = tokio::spawn(async move {
            let (mut seen, mut text) = (0, String::new());
            let mut followed: Vec<String> = Vec::new();
            let mut opened = Vec::new();
            loop {
                let stopping = watching.is_cancelled();
                let logged = std::fs::read_to_string(&log).unwrap_or_default();
                let mut handed: Vec<(String, Option<String>)> = logged.lines().skip(seen).map(|l| (l.to_string(), authorization_url(l).map(str::to_string))).collect();
                seen += handed.len();
                while let Ok(chunk) = printed.try_recv() {
                    if text.len() < OUTPUT_KEPT {
                        text.push_str(&String::from_utf8_lossy(&chunk));
                    }
                }
                for url in printed_urls(&text) {
                    if !followed.contains(&url) && !handed.iter().any(|(_, u)| u.as_deref() == Some(url.as_str())) {
                        handed.push((format!("printed {url}"), Some(url)));
                    }
                }
                for (line, url) in handed {
                    let login = match url {
                        Some(url) if !followed.contains(&url) => {
                            followed.push(url.clone());
                            Some(crate::drivers::person::log_in(&url).await.map(|d| d.callback_status).map_err(std::sync::Arc::new))
                        }
                        _ => None,
                    };
                    opened.push(Opened { line, login });
                }
                if stopping {
                    return opened;
                }
                tokio::select! {
                    _ = watching.cancelled() => {}
                    _ = tokio::time::sleep(POLL) => {}
                }
            }
        });
        Ok(Watch { trap, output, stop, watcher })
    }

    /// Where the host's output goes for the watcher to read.
    pub fn output(&self) -> tokio::sync::mpsc::UnboundedSender<Vec<u8>> {
        self.output.clone()
    }

    /// `PATH` with the trap first, and `BROWSER`: for a host in a terminal, whose width is the
    /// terminal's.
    pub fn trap_env(&self) -> [(String, String); 2] {
        self.trap.env(&std::env::var("PATH").unwrap_or_default())
    }

    /// The trap's variables and a terminal width no sign-in URL is wrapped at: for a host whose
    /// output is a pipe.
    pub fn env(&self) -> [(String, String); 3] {
        let [path, browser] = self.trap_env();
        [path, browser, ("COLUMNS".into(), "4000".into())]
    }

    /// Stops watching (after a last look) and hands back what the host opened or printed.
    pub async fn finish(self) -> Vec<Opened> {
        self.stop.cancel();
        self.watcher.await.unwrap_or_default()
    }
}

/// The program a profile launches, as its installation names it: the profile whose installation
/// it shares (fast-agent-harness launches fast-agent), else its own name. Two profiles of one
/// program listen for their sign-in callback on the same fixed port.
pub fn program_of(profile: &crate::clients::profile::Profile) -> &str {
    profile.install.shares.as_deref().unwrap_or(&profile.name)
}

/// Holds the sign-in of one host at a time, for a host whose callback listens on a fixed port
/// (its profile's `one_at_a_time`), per `program` ([`program_of`]): the guard is held for the
/// whole run. Keyed by profile, fast-agent's and fast-agent-harness's auth runs could sign in side
/// by side in one refresh, both waiting for their callback on port 3030.
pub async fn one_at_a_time(program: &str) -> tokio::sync::OwnedMutexGuard<()> {
    static LOCKS: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<tokio::sync::Mutex<()>>>>> = std::sync::OnceLock::new();
    let lock = {
        let mut locks = LOCKS.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        locks.entry(program.to_string()).or_default().clone()
    };
    lock.lock_owned().await
}

/// The `sign_in` note: how the harness let the host sign in.
pub fn plan_note(plan: Option<&crate::clients::profile::AuthPlan>, login: &[String], variant: probe_server::Variant) -> Value {
    let how = match plan {
        None => "none",
        Some(p) if p.login.is_empty() => "on-401",
        Some(p) if p.terminal.is_some() => "terminal",
        Some(_) => "login",
    };
    // Against an authorization server that takes client ID metadata documents: whether the host
    // was handed a document's URL (a host may also know its own).
    let given = (variant == probe_server::Variant::AuthCimd).then(|| plan.is_some_and(|p| !p.client_metadata_args.is_empty()));
    SignIn { plan: how.to_string(), login: login.to_vec(), client_metadata_given: given }.detail()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profiles_of_one_program_sign_in_one_at_a_time_together() {
        let profiles = crate::clients::profile::load_all(&crate::clients::profile::default_dir()).unwrap();
        let program = |name: &str| program_of(profiles.iter().find(|p| p.name == name).unwrap()).to_string();
        assert_eq!(program("fast-agent-harness"), "fast-agent");
        assert_eq!(program("fast-agent"), "fast-agent");
        assert_eq!(program("opencode"), "opencode");
    }

    #[test]
    fn only_a_loopback_authorization_url_is_followed() {
        assert_eq!(authorization_url("xdg-open http://127.0.0.1:5/authorize?client_id=x"), Some("http://127.0.0.1:5/authorize?client_id=x"));
        assert_eq!(authorization_url("open https://example.com/authorize?x"), None);
        assert_eq!(authorization_url("xdg-open http://127.0.0.1:5/mcp-client-probe/elicit"), None);
        let printed = "Open this link:\nhttp://127.0.0.1:5/authorize?a=1&b=2\n(or \"http://127.0.0.1:5/authorize?a=1&b=2\") http://example.com/authorize?x";
        assert_eq!(printed_urls(printed), vec!["http://127.0.0.1:5/authorize?a=1&b=2".to_string()]);
    }
}
