//! Client profiles: one TOML file per client under `fixtures/clients/`, saying how to install the
//! client, read its version, configure its MCP server, launch it unattended and which model
//! dialect it speaks. Adding a client means adding a profile.
//!
//! Strings may use placeholders, filled per run: `{home}`, `{work}`, `{stub_url}`, `{prompt}`,
//! `{server_url}`, `{server_command}`, `{server_command_json}`, `{server_args_json}`,
//! `{server_argv_json}` (command and arguments in one JSON array), `{server_command_line}`. An
//! argument that is exactly `{server}` expands to the server's command and arguments (stdio) or
//! its URL (HTTP).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::drivers::stub::Dialect;
pub use crate::drivers::terminal::script::{Interactive, TerminalLogin};
pub use crate::harness::launch::ConfigFile;

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("cannot read profile {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("profile {path} is not valid: {message}")]
    Invalid { path: String, message: String },
    #[error("no client profile named {0:?} in {2} (known: {1}; profiles are read from MCP_CLIENT_PROBE_PROFILES, else fixtures/clients of the checkout you stand in, else the built-in ones)")]
    Unknown(String, String, String),
    #[error("no client profile named {0:?} (known: {1})")]
    NotAmong(String, String),
    #[error("{0:?} names no client: give a profile's name, or name@version (known: {1})")]
    NoName(String, String),
    #[error("{0:?} names no version after @: give name@version, or the name alone for its pinned version")]
    NoVersion(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub name: String,
    pub description: String,
    /// The model dialect the host speaks, or none for clients without a model.
    pub dialect: Option<Dialect>,
    pub install: Install,
    pub version: VersionCheck,
    #[serde(default)]
    pub files: Vec<ConfigFile>,
    pub launch: Launch,
    /// How to drive the host's skills support in the skills server variants, if it has any.
    #[serde(default)]
    pub skills: Option<SkillsLaunch>,
    /// How to drive the host's interactive UI in a terminal, if it has one.
    #[serde(default)]
    pub interactive: Option<Interactive>,
    /// What the long-calls variant adds, where the host lets its tool timeout be set: a short
    /// one keeps the bounded run short and shows whether the host honours it.
    #[serde(default)]
    pub long_calls: Option<LongCallsLaunch>,
    /// How the host signs in to a server that answers 401 (the auth variants, over HTTP). Without
    /// it the harness only watches for a sign-in URL while the host runs, and a host that starts
    /// no sign-in is judged not-reached: the profile gave the harness no way to sign it in.
    #[serde(default)]
    pub auth: Option<AuthPlan>,
    /// What the profile's configuration tells the host its model takes, where the host's
    /// configuration can say it. The harness declares every input the stub takes (text, image
    /// and audio) wherever the host has words for it, and the record says what was declared: a
    /// picture or a sound kept from a model not declared to take it is no fault of the host's.
    /// Absent: the profile declares nothing (the host's configuration cannot say, or its words
    /// for it are not known): the host decides by itself, and its verdicts stand as judged.
    #[serde(default)]
    pub model_inputs: Option<Vec<ModelInput>>,
}

/// A kind of input a model takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelInput {
    Text,
    Image,
    Audio,
}

impl ModelInput {
    /// The word for it, as the profile and the `model_inputs` note write it.
    pub fn word(self) -> &'static str {
        match self {
            ModelInput::Text => "text",
            ModelInput::Image => "image",
            ModelInput::Audio => "audio",
        }
    }
}

/// How a host signs in to a remote server. While it runs, the browser trap catches every URL it
/// opens and the person logs in at each authorization URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthPlan {
    /// Arguments of a login command run before the launches (`mcp login probe`), with the
    /// profile's placeholders; empty when the host starts the sign-in itself on a 401.
    #[serde(default)]
    pub login: Vec<String>,
    /// How long the login command may take.
    #[serde(default = "crate::drivers::terminal::script::default_login_secs")]
    pub login_timeout_secs: u64,
    /// The host's sign-in callback listens on a fixed port: its auth runs go one at a time
    /// (two at once would take each other's redirects).
    #[serde(default)]
    pub one_at_a_time: bool,
    /// Files written after the profile's in the auth variants (one with the same path replaces
    /// it): a configuration that lets the host use OAuth for the server.
    #[serde(default)]
    pub files: Vec<ConfigFile>,
    /// Variables added over `launch.env` in the auth variants, for the login and the launches.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Launches added after the profile's in the auth variants (a host without a model calls
    /// the auth tools only when told to).
    #[serde(default)]
    pub steps: Vec<Vec<String>>,
    /// Arguments that hand the host a client ID metadata document URL (the MCP Inspector's
    /// `--client-metadata-url URL`), for a host that uses one only when given it: in the auth-cimd
    /// variant they go into every launch and the login, before the first `--` (or at the end).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub client_metadata_args: Vec<String>,
    /// The login runs in a pseudo-terminal (its UI, or a login command that wants one), worked by
    /// these steps; `login` then holds the arguments that start it.
    #[serde(default)]
    pub terminal: Option<TerminalLogin>,
}

impl AuthPlan {
    /// `args` with the client metadata arguments in place: before the first `--`, or at the end.
    pub fn with_client_metadata(&self, mut args: Vec<String>) -> Vec<String> {
        let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
        args.splice(at..at, self.client_metadata_args.iter().cloned());
        args
    }
}

/// A launch's additions in the long-calls variant: environment variables, arguments put before
/// the launch's own, and files written after the profile's (one with the same path replaces it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongCallsLaunch {
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub files: Vec<ConfigFile>,
    /// The tool timeout this sets, in seconds, as the record's notes name it.
    pub tool_timeout_secs: u64,
}

/// The skills variants' launch: its own arguments and prompt (the model stub reads the skills
/// directory from the prompt's `--skills-dir DIR`), extra files, and where the host installs
/// skills (the runner lists what it finds there, and anything skill-like outside it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillsLaunch {
    pub args: Vec<String>,
    pub prompt: String,
    pub skills_dir: String,
    #[serde(default)]
    pub files: Vec<ConfigFile>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Install {
    /// An npm package, or…
    pub npm: Option<String>,
    /// …a PyPI package, installed in a virtual environment with `python`.
    pub pypi: Option<String>,
    /// Python version for PyPI clients ("3.13"): found under pyenv or on PATH.
    pub python: Option<String>,
    /// The PyPI package's extras to install with it (`["mcp"]` installs `package[mcp]`).
    #[serde(default)]
    pub extras: Vec<String>,
    /// The pinned version.
    pub version: String,
    /// The executable, relative to the install directory.
    pub executable: String,
    /// Another profile whose installation this one uses (same package, launched differently).
    #[serde(default)]
    pub shares: Option<String>,
    /// The Node.js version an npm client needs where the machine's is older ("22.23.3"): the
    /// runtime is installed from npm beside the client (`node-linux-<arch>`) and the client is
    /// started with it.
    #[serde(default)]
    pub node: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionCheck {
    pub args: Vec<String>,
    /// Which whitespace-separated word of the first output line is the version (1-based).
    pub word: usize,
    /// What that word is for a package version whose client prints something else (its own
    /// build number, say): `reports = { "1.2.3" = "1.2.3-build.7" }`. Without an entry the word
    /// must be the package version.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reports: BTreeMap<String, String>,
}

impl VersionCheck {
    /// What the version word must be for package version `version`.
    pub fn expected_for<'a>(&'a self, version: &'a str) -> &'a str {
        self.reports.get(version).map_or(version, String::as_str)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Launch {
    /// Arguments of the single launch; ignored when `steps` is given.
    #[serde(default)]
    pub args: Vec<String>,
    /// One process per step, for clients that do one thing per process.
    #[serde(default)]
    pub steps: Vec<Vec<String>>,
    /// The steps of the stateless variants, for such clients: those servers list one tool
    /// (`probe_stateless`), which the ordinary steps never call. Without them `steps` run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stateless_steps: Vec<Vec<String>>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The prompt handed to agent hosts.
    #[serde(default)]
    pub prompt: String,
    pub timeout_secs: u64,
    /// At most this many runs of the client at once: for a host that cannot run twice, or whose
    /// answers come close to a timing threshold when the machine is busy.
    #[serde(default)]
    pub max_parallel: Option<usize>,
}

impl Profile {
    pub fn parse(text: &str, path: &Path) -> Result<Profile, ProfileError> {
        let profile: Profile = toml::from_str(text).map_err(|e| ProfileError::Invalid { path: path.display().to_string(), message: e.to_string() })?;
        let invalid = |message: &str| ProfileError::Invalid { path: path.display().to_string(), message: message.into() };
        match (&profile.install.npm, &profile.install.pypi) {
            (Some(_), None) => {}
            (None, Some(_)) if profile.install.python.is_some() => {}
            (None, Some(_)) => return Err(invalid("a PyPI client needs `python`")),
            _ => return Err(invalid("give exactly one of install.npm and install.pypi")),
        }
        if profile.launch.args.is_empty() && profile.launch.steps.is_empty() {
            return Err(invalid("launch needs `args` or `steps`"));
        }
        if let Some(interactive) = &profile.interactive {
            interactive.validate().map_err(|e| invalid(&e.to_string()))?;
        }
        if let Some(plan) = &profile.auth {
            if let Some(bad) = plan.terminal.iter().flat_map(|t| t.key_names()).find(|k| crate::drivers::terminal::keys::bytes(k).is_none()) {
                return Err(invalid(&format!("auth.terminal: unknown key {bad:?}")));
            }
            if plan.terminal.is_some() && plan.login.is_empty() {
                return Err(invalid("auth.terminal needs `login`: the arguments that start the host in the terminal"));
            }
        }
        for file in profile.files.iter().chain(profile.skills.iter().flat_map(|s| s.files.iter())).chain(profile.interactive.iter().flat_map(|i| i.files.iter())) {
            if file.content.is_none() && (file.stdio.is_none() || file.http.is_none()) {
                return Err(invalid("a file needs `content`, or both `stdio` and `http`"));
            }
        }
        // The auth variants are served over HTTP only.
        for file in profile.auth.iter().flat_map(|a| a.files.iter().chain(a.terminal.iter().flat_map(|t| t.files.iter()))) {
            if file.content.is_none() && file.http.is_none() {
                return Err(invalid("an auth file needs `content` or `http`"));
            }
        }
        if profile.model_inputs.as_ref().is_some_and(|inputs| !inputs.contains(&ModelInput::Text)) {
            return Err(invalid("model_inputs must include \"text\": every model the stub plays reads text"));
        }
        if profile.model_inputs.is_some() && profile.dialect.is_none() {
            return Err(invalid("model_inputs is for hosts with a model: this profile has no dialect"));
        }
        Ok(profile)
    }

    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Read { path: path.display().to_string(), source })?;
        Profile::parse(&text, path)
    }

    /// The launches of one run against `variant`: one per step (the stateless steps against a
    /// server that keeps no session, where the profile has them), or the single launch.
    pub fn launches(&self, variant: probe_server::Variant) -> Vec<Vec<String>> {
        if variant.is_stateless() && !self.launch.stateless_steps.is_empty() {
            self.launch.stateless_steps.clone()
        } else if self.launch.steps.is_empty() {
            vec![self.launch.args.clone()]
        } else {
            self.launch.steps.clone()
        }
    }
}

/// Where profiles live: `fixtures/clients` of this source tree (overridable).
pub fn default_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("MCP_CLIENT_PROBE_PROFILES") {
        return PathBuf::from(dir);
    }
    // A checkout of the repository (the current directory), then the one the binary was built
    // from, then the copy compiled into the binary.
    let here = PathBuf::from("fixtures/clients");
    if here.join("claude-code.toml").is_file() {
        return here;
    }
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/clients");
    if built_from.is_dir() {
        return built_from;
    }
    embedded_dir().unwrap_or(built_from)
}

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_profiles.rs"));
}

/// The compiled-in profiles, written once per tool version under the cache directory.
fn embedded_dir() -> Option<PathBuf> {
    let dir = crate::clients::install::cache_root().join(format!("profiles-{}", env!("CARGO_PKG_VERSION")));
    std::fs::create_dir_all(&dir).ok()?;
    for (name, text) in embedded::EMBEDDED {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(*text) {
            std::fs::write(&path, text).ok()?;
        }
    }
    Some(dir)
}

/// Every profile in `dir`, sorted by name.
pub fn load_all(dir: &Path) -> Result<Vec<Profile>, ProfileError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ProfileError::Read { path: dir.display().to_string(), source })?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    paths.sort();
    paths.iter().map(|p| Profile::load(p)).collect()
}

/// The profiles named in `names`, in catalogue order; every profile when `names` is empty. A name
/// no profile has is an error naming the known ones.
pub fn chosen(dir: &Path, names: &[String]) -> Result<Vec<Profile>, ProfileError> {
    let all = load_all(dir)?;
    if let Some(unknown) = names.iter().find(|name| !all.iter().any(|p| &p.name == *name)) {
        let known = all.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(", ");
        return Err(ProfileError::NotAmong(unknown.clone(), known));
    }
    Ok(all.into_iter().filter(|p| names.is_empty() || names.contains(&p.name)).collect())
}

/// Finds `name` or `name@version` among the profiles. A different version than the pinned one
/// is allowed: the profile's recipe is used with that version.
pub fn find(dir: &Path, spec: &str) -> Result<Profile, ProfileError> {
    let (name, version) = spec.split_once('@').map_or((spec, None), |(n, v)| (n, Some(v)));
    let all = load_all(dir)?;
    let names = all.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(", ");
    if name.trim().is_empty() {
        return Err(ProfileError::NoName(spec.into(), names));
    }
    if version.is_some_and(|v| v.trim().is_empty() || v.chars().any(char::is_whitespace)) {
        return Err(ProfileError::NoVersion(spec.into()));
    }
    let mut profile = all.into_iter().find(|p| p.name == name).ok_or_else(|| ProfileError::Unknown(name.into(), names, dir.display().to_string()))?;
    if let Some(version) = version {
        profile.install.version = version.to_string();
    }
    Ok(profile)
}

/// A profile's text with its pin moved from `old` to `new`: the `version = "…"` line of its
/// `[install]` table, everything else as it was. `None` when that line does not hold `old`.
pub fn move_pin(text: &str, old: &str, new: &str) -> Option<String> {
    let mut table = String::new();
    let mut moved = false;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let trimmed = line.trim();
            if trimmed.starts_with('[') {
                table = trimmed.to_string();
            } else if !moved && table == "[install]" {
                if let Some((key, value)) = trimmed.split_once('=') {
                    let value = value.split('#').next().unwrap_or_default().trim();
                    if key.trim() == "version" && value == format!("\"{old}\"") {
                        moved = true;
                        return line.replacen(&format!("\"{old}\""), &format!("\"{new}\""), 1);
                    }
                }
            }
            line.to_string()
        })
        .collect();
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    moved.then_some(out)
}

/// The placeholders that name the probe server (its command line, its arguments or its URL):
/// a client given by command line must use one of them somewhere.
pub const SERVER_PLACEHOLDERS: [&str; 7] =
    ["{server}", "{server_url}", "{server_command_line}", "{server_argv_json}", "{server_command}", "{server_command_json}", "{server_args_json}"];

/// Every placeholder a run fills (`{name}`), for checking what a user wrote.
pub const PLACEHOLDERS: [&str; 12] = [
    "home",
    "work",
    "stub_url",
    "prompt",
    "server",
    "server_url",
    "server_command",
    "server_command_json",
    "server_args_json",
    "server_argv_json",
    "server_command_line",
    "skills_dir",
];

/// The `{name}` tokens of `text` (a name of lowercase letters, digits and `_`) that are no
/// placeholder a run fills: they would pass through literally.
pub fn unknown_placeholders(text: &str) -> Vec<String> {
    let mut unknown = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find('}') else { break };
        let name = &rest[..close];
        let is_name = !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if is_name && !PLACEHOLDERS.contains(&name) && !unknown.iter().any(|u: &String| u == name) {
            unknown.push(name.to_string());
        }
    }
    unknown
}

/// Placeholder values for one run.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    pub values: BTreeMap<&'static str, String>,
    /// What `{server}` expands to as separate arguments.
    pub server: Vec<String>,
}

impl Vars {
    pub fn fill(&self, template: &str) -> String {
        let mut out = template.to_string();
        for (key, value) in &self.values {
            out = out.replace(&format!("{{{key}}}"), value);
        }
        out
    }

    pub fn fill_args(&self, args: &[String]) -> Vec<String> {
        args.iter().flat_map(|a| if a == "{server}" { self.server.clone() } else { vec![self.fill(a)] }).collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn moving_a_pin_touches_the_install_version_only() {
        let text = "name = \"x\"\n[version]\nargs = [\"--version\"]\nversion = \"1.0\"\n[install]\nnpm = \"x\"\nversion = \"1.0\"  # pinned\n[launch]\nversion = \"1.0\"\n";
        let moved = move_pin(text, "1.0", "1.1").unwrap();
        assert_eq!(moved, text.replacen("version = \"1.0\"  # pinned", "version = \"1.1\"  # pinned", 1));
        assert!(move_pin(text, "0.9", "1.1").is_none(), "the pin is not 0.9");
        // Every committed profile's pin can be moved.
        for profile in load_all(&default_dir()).unwrap() {
            let text = std::fs::read_to_string(default_dir().join(format!("{}.toml", profile.name))).unwrap();
            let moved = move_pin(&text, &profile.install.version, "99.0.0").unwrap_or_else(|| panic!("{}", profile.name));
            let reparsed: Profile = toml::from_str(&moved).unwrap();
            assert_eq!(reparsed.install.version, "99.0.0", "{}", profile.name);
        }
    }

    use super::*;
    use crate::drivers::terminal::script::TerminalStep;

    #[test]
    fn placeholders_no_run_fills_are_found() {
        assert_eq!(unknown_placeholders("{server} --x {stub_url}/v1 {nosuch} {home}/{nosuch}"), ["nosuch"]);
        assert!(unknown_placeholders(r#"{"mcpServers":{"probe":{"command":{server_command_json}}}} {} {A}"#).is_empty(), "JSON and non-names are no placeholders");
        assert_eq!(unknown_placeholders("{server_urls} {work"), ["server_urls"]);
    }

    #[test]
    fn every_shipped_profile_loads() {
        let profiles = load_all(&default_dir()).unwrap();
        let names: Vec<_> = profiles.iter().map(|p| p.name.as_str()).collect();
        for expected in ["claude-code", "codex", "fast-agent", "mcp-inspector"] {
            assert!(names.contains(&expected), "{names:?}");
        }
    }

    #[test]
    fn bad_profiles_are_refused_with_a_reason() {
        let path = Path::new("x.toml");
        let base = r#"name = "x"
description = "d"
[install]
version = "1"
executable = "bin/x"
[version]
args = ["--version"]
word = 1
[launch]
args = ["a"]
timeout_secs = 5
"#;
        let err = Profile::parse(base, path).unwrap_err().to_string();
        assert!(err.contains("exactly one of install.npm and install.pypi"), "{err}");
        let typo = base.replace("word = 1", "word = 1\nwurd = 2");
        assert!(Profile::parse(&typo, path).unwrap_err().to_string().contains("wurd"));
        let npm = base.replace("version = \"1\"\n", "version = \"1\"\nnpm = \"x\"\n");
        assert!(Profile::parse(&npm, path).is_ok());
        let terminal = |auth: &str| Profile::parse(&format!("{npm}{auth}"), path).map(|p| p.auth.and_then(|a| a.terminal)).map_err(|e| e.to_string());
        let steps = "[auth]\nlogin = [\"ui\"]\n[auth.terminal]\nsteps = [{ wait = \"ready\" }, { type = \"/mcp\" }, { keys = [\"Enter\"] }]\nsigned_in = \"ok\"\n";
        let parsed = terminal(steps).unwrap().unwrap();
        assert_eq!(parsed.steps, vec![TerminalStep::Wait("ready".into()), TerminalStep::Type("/mcp".into()), TerminalStep::Keys(vec!["Enter".into()])]);
        assert!(terminal(&steps.replace("Enter", "Entr")).unwrap_err().contains("auth.terminal: unknown key \"Entr\""));
        assert!(terminal(&steps.replace("login = [\"ui\"]", "")).unwrap_err().contains("auth.terminal needs `login`"));
        assert!(terminal(&steps.replace("{ wait = ", "{ wiat = ")).unwrap_err().contains("wiat"));
    }

    #[test]
    fn placeholders_fill_strings_and_splice_the_server() {
        let mut vars = Vars::default();
        vars.values.insert("home", "/h".into());
        vars.server = vec!["/bin/probe".into(), "serve".into()];
        assert_eq!(vars.fill("{home}/.config"), "/h/.config");
        assert_eq!(vars.fill_args(&["--x".into(), "{server}".into(), "{home}".into()]), vec!["--x", "/bin/probe", "serve", "/h"]);
    }

    /// Issue 49, item 16: a client whose `--version` prints something other than its package
    /// version could not be profiled (every install ended "expected version"). The profile names
    /// what it prints per package version.
    #[test]
    fn a_profile_names_what_its_client_prints_for_a_package_version() {
        let check: VersionCheck = toml::from_str("args = [\"--version\"]\nword = 2\nreports = { \"1.2.3\" = \"1.2.3-build.7\" }").unwrap();
        assert_eq!(check.expected_for("1.2.3"), "1.2.3-build.7");
        assert_eq!(check.expected_for("1.2.4"), "1.2.4", "without an entry the package version itself");
        let plain: VersionCheck = toml::from_str("args = []\nword = 1").unwrap();
        assert!(plain.reports.is_empty());
    }

    #[test]
    fn client_metadata_arguments_go_before_the_server_or_at_the_end() {
        let plan: AuthPlan = toml::from_str("client_metadata_args = [\"--client-metadata-url\", \"https://x.invalid/c.json\"]").unwrap();
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert_eq!(
            plan.with_client_metadata(args(&["--cli", "--method", "tools/list", "--", "http://s/mcp"])),
            args(&["--cli", "--method", "tools/list", "--client-metadata-url", "https://x.invalid/c.json", "--", "http://s/mcp"])
        );
        assert_eq!(plan.with_client_metadata(args(&["login"])), args(&["login", "--client-metadata-url", "https://x.invalid/c.json"]));
        let none: AuthPlan = toml::from_str("").unwrap();
        assert_eq!(none.with_client_metadata(args(&["a", "--", "b"])), args(&["a", "--", "b"]));
    }
}
