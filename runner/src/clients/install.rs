//! Pinned client installs into a per-version cache directory: npm packages with `npm install
//! --prefix`, PyPI packages in a virtual environment of the profile's Python. Idempotent; the
//! installed version is read back from the client itself.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::clients::profile::Profile;
use crate::harness::launch::{launch, Ending, Launch, LaunchSpec};

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{command} failed ({status}): {stderr}")]
    Command { command: String, status: String, stderr: String },
    #[error("no Python {0} found (looked under pyenv and on PATH)")]
    NoPython(String),
    #[error("{client}: installed executable {path} is missing")]
    Missing { client: String, path: String },
    #[error("{client}: expected version {expected}, the client says {found:?}")]
    WrongVersion { client: String, expected: String, found: String },
    #[error("cannot prepare {0}: {1}")]
    Io(String, std::io::Error),
    #[error("{client}: the registry has no version {version} of {package} (`clients outdated` names the newest)")]
    NoSuchVersion { client: String, package: String, version: String },
}

/// A client ready to run.
#[derive(Debug, Clone)]
pub struct Installed {
    pub executable: PathBuf,
    pub version: String,
    /// How long `--version` took: the client's bare start-up time.
    pub version_ms: u64,
}

/// The cache root: `$MCP_CLIENT_PROBE_CACHE`, else `$XDG_CACHE_HOME/mcp-client-probe`, else
/// `~/.cache/mcp-client-probe`.
pub fn cache_root() -> PathBuf {
    if let Ok(dir) = std::env::var("MCP_CLIENT_PROBE_CACHE") {
        return PathBuf::from(dir);
    }
    let base = std::env::var("XDG_CACHE_HOME").map(PathBuf::from).unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| "/tmp".into())).join(".cache"));
    base.join("mcp-client-probe")
}

pub fn install_dir(profile: &Profile) -> PathBuf {
    let name = profile.install.shares.as_deref().unwrap_or(&profile.name);
    cache_root().join("clients").join(name).join(&profile.install.version)
}

async fn run(command: &mut tokio::process::Command, what: &str) -> Result<(), InstallError> {
    let output = command.output().await.map_err(|e| InstallError::Command { command: what.into(), status: "not started".into(), stderr: e.to_string() })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: String = stderr.lines().rev().take(12).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
    Err(InstallError::Command { command: what.into(), status: output.status.to_string(), stderr: tail })
}

/// Finds an interpreter for Python `version` ("3.13"): pyenv's versions first, then PATH.
pub fn find_python(version: &str) -> Option<PathBuf> {
    let pyenv_root = std::env::var("PYENV_ROOT").map(PathBuf::from).unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".pyenv"));
    if let Ok(entries) = std::fs::read_dir(pyenv_root.join("versions")) {
        let mut candidates: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_str().is_some_and(|n| n == version || n.starts_with(&format!("{version}."))))
            .map(|e| e.path().join("bin/python3"))
            .filter(|p| p.exists())
            .collect();
        candidates.sort();
        if let Some(found) = candidates.pop() {
            return Some(found);
        }
    }
    let name = format!("python{version}");
    std::env::var("PATH").ok()?.split(':').map(|dir| Path::new(dir).join(&name)).find(|p| p.exists())
}

async fn install_files(profile: &Profile, dir: &Path) -> Result<(), InstallError> {
    let version = &profile.install.version;
    // A version the registry does not have is said before anything is installed or made.
    if super::registry::offers(profile, version).await == Some(false) {
        let package = profile.install.npm.clone().or(profile.install.pypi.clone()).unwrap_or_default();
        return Err(InstallError::NoSuchVersion { client: profile.name.clone(), package, version: version.clone() });
    }
    std::fs::create_dir_all(dir).map_err(|e| InstallError::Io(dir.display().to_string(), e))?;
    if let Some(package) = &profile.install.npm {
        let spec = format!("{package}@{version}");
        crate::progress!("installing {spec} from npm into {} (once)", dir.display());
        let mut npm = tokio::process::Command::new("npm");
        npm.args(["install", "--prefix"]).arg(dir).args(["--no-audit", "--no-fund", "--loglevel=error", &spec]);
        return run(&mut npm, &format!("npm install {spec}")).await;
    }
    let (Some(package), Some(python)) = (&profile.install.pypi, &profile.install.python) else { return Ok(()) };
    let interpreter = find_python(python).ok_or_else(|| InstallError::NoPython(python.clone()))?;
    let venv = dir.join("venv");
    if !venv.join("bin/pip").exists() {
        run(tokio::process::Command::new(&interpreter).args(["-m", "venv"]).arg(&venv), "python -m venv").await?;
    }
    let extras = if profile.install.extras.is_empty() { String::new() } else { format!("[{}]", profile.install.extras.join(",")) };
    let spec = format!("{package}{extras}=={version}");
    crate::progress!("installing {spec} from PyPI into {} (once)", dir.display());
    run(tokio::process::Command::new(venv.join("bin/pip")).args(["install", "-q", "--disable-pip-version-check", &spec]), &format!("pip install {spec}")).await
}

/// Reads the version the client reports, in an isolated environment.
pub async fn read_version(profile: &Profile, executable: &Path) -> Result<(String, u64), InstallError> {
    let scratch = tempfile::tempdir().map_err(|e| InstallError::Io("a temporary directory".into(), e))?;
    let spec = LaunchSpec {
        launch: Launch {
            program: executable.to_path_buf(),
            args: profile.version.args.clone(),
            env: Default::default(),
            cwd: scratch.path().to_path_buf(),
            home: scratch.path().join("home"),
            marker: format!("version-{}-{}", profile.name, std::process::id()),
        },
        timeout: Duration::from_secs(60),
        grace: Duration::from_secs(2),
        stdin: None,
        output: None,
    };
    let record = launch(&spec).await;
    let text = String::from_utf8_lossy(&record.stdout);
    let word =
        text.lines().find(|l| !l.trim().is_empty()).and_then(|l| l.split_whitespace().nth(profile.version.word.saturating_sub(1))).map(|w| w.trim_start_matches('v').to_string());
    match (record.ending, word) {
        (Ending::Exited { code: 0 }, Some(word)) => Ok((word, record.duration_ms)),
        (ending, word) => {
            Err(InstallError::WrongVersion { client: profile.name.clone(), expected: profile.install.version.clone(), found: format!("{ending:?} {}", word.unwrap_or_default()) })
        }
    }
}

/// Installs the profile's pinned version unless it is already there, then verifies it.
pub async fn ensure_installed(profile: &Profile) -> Result<Installed, InstallError> {
    let dir = install_dir(profile);
    let executable = dir.join(&profile.install.executable);
    if !executable.exists() {
        install_files(profile, &dir).await?;
    }
    if !executable.exists() {
        return Err(InstallError::Missing { client: profile.name.clone(), path: executable.display().to_string() });
    }
    let (reported, version_ms) = read_version(profile, &executable).await?;
    let expected = profile.version.expected_for(&profile.install.version);
    if reported != expected {
        return Err(InstallError::WrongVersion { client: profile.name.clone(), expected: expected.to_string(), found: reported });
    }
    // The record names the package version the pin installed, whatever the client prints.
    Ok(Installed { executable, version: profile.install.version.clone(), version_ms })
}
