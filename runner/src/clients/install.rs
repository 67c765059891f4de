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
        let runtime = profile.install.node.as_deref().map(|node| format!("{}@{node}", node_package()));
        crate::progress!("installing {spec} from npm into {} (once)", dir.display());
        let mut npm = tokio::process::Command::new("npm");
        npm.args(["install", "--prefix"]).arg(dir).args(["--no-audit", "--no-fund", "--loglevel=error", &spec]).args(&runtime);
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

/// The npm package of a Node.js runtime for this machine (the `node` package's own install script,
/// which picks it, is not run by every npm).
fn node_package() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("node-{}-{arch}", std::env::consts::OS)
}

/// For a client with a runtime of its own ([`crate::clients::profile::Install::node`]): a
/// launcher in the install directory that starts the client's script with that runtime, so that
/// every launch (headless, in a terminal, the version check) starts it the same way.
fn with_runtime(profile: &Profile, dir: &Path, script: &Path) -> Result<PathBuf, InstallError> {
    if profile.install.node.is_none() {
        return Ok(script.to_path_buf());
    }
    let node = dir.join("node_modules").join(node_package()).join("bin/node");
    if !node.exists() {
        return Err(InstallError::Missing { client: profile.name.clone(), path: node.display().to_string() });
    }
    let launcher = dir.join(format!("{}-with-node", profile.name));
    let quote = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', "'\\''"));
    let text = format!("#!/bin/sh\nexec {} {} \"$@\"\n", quote(&node), quote(script));
    let write = || -> std::io::Result<()> {
        std::fs::write(&launcher, &text)?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755))
    };
    write().map_err(|e| InstallError::Io(launcher.display().to_string(), e))?;
    Ok(launcher)
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
    let executable = with_runtime(profile, &dir, &executable)?;
    let (reported, version_ms) = read_version(profile, &executable).await?;
    let expected = profile.version.expected_for(&profile.install.version);
    if reported != expected {
        return Err(InstallError::WrongVersion { client: profile.name.clone(), expected: expected.to_string(), found: reported });
    }
    // The record names the package version the pin installed, whatever the client prints.
    Ok(Installed { executable, version: profile.install.version.clone(), version_ms })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client with a runtime of its own starts through a launcher that runs its script with
    /// that runtime, arguments passed on whole; one without starts as itself.
    #[test]
    fn a_client_with_a_runtime_starts_through_a_launcher_that_runs_its_script_with_it() {
        let nanocoder = crate::clients::profile::find(&crate::clients::profile::default_dir(), "nanocoder").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("node_modules/pkg/cli.js");
        // The runtime missing: said, never a launcher that cannot start.
        assert!(matches!(with_runtime(&nanocoder, dir.path(), &script), Err(InstallError::Missing { .. })));
        let bin = dir.path().join("node_modules").join(node_package()).join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        // A stand-in runtime that prints what it was asked to run.
        std::fs::write(bin.join("node"), "#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join("node"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let launcher = with_runtime(&nanocoder, dir.path(), &script).unwrap();
        let out = std::process::Command::new(&launcher).args(["run", "two words"]).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("[{}]\n[run]\n[two words]\n", script.display()));
        let plain = crate::clients::profile::find(&crate::clients::profile::default_dir(), "opencode").unwrap();
        assert_eq!(with_runtime(&plain, dir.path(), &script).unwrap(), script);
    }
}
