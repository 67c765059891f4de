//! What a client's registry offers now: the newest version of its package, asked through the
//! registry's own client (`npm view`, `pip index versions`) so that whatever registry the machine
//! is configured for answers, and with the release date where the registry gives one.

use serde::Serialize;

use super::install::find_python;
use super::profile::Profile;

/// The newest release a registry offers for a profile's package.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Latest {
    pub registry: &'static str,
    pub package: String,
    pub version: String,
    /// The release's date (`YYYY-MM-DD`), where the registry says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub released: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("{client}: the profile names no npm or PyPI package")]
    NoPackage { client: String },
    #[error("{client}: no Python {python} to ask PyPI with (looked under pyenv and on PATH)")]
    NoPython { client: String, python: String },
    #[error("{client}: cannot ask the {registry} registry ({command}): {message}")]
    Unreachable { client: String, registry: &'static str, command: String, message: String },
    #[error("{client}: the {registry} registry's answer has no version: {answer}")]
    Unreadable { client: String, registry: &'static str, answer: String },
}

/// Why a registry's own client gave no answer.
#[derive(Debug, thiserror::Error)]
enum CommandFailed {
    #[error("{0}")]
    Start(#[from] std::io::Error),
    /// It ran and failed: its exit status and the first line of its stderr that says why.
    #[error("{status}: {said}")]
    Status { status: std::process::ExitStatus, said: String },
}

async fn output(command: &mut tokio::process::Command) -> Result<String, CommandFailed> {
    let out = command.output().await?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The first line that says what went wrong: not a warning, not where a log was left.
        let said = stderr.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with("WARNING") && !l.contains("complete log")).unwrap_or("").to_string();
        return Err(CommandFailed::Status { status: out.status, said });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Reads `npm view PACKAGE version time --json`: the `latest` version and its publication time.
pub fn parse_npm(answer: &str) -> Option<(String, Option<String>)> {
    let value: serde_json::Value = serde_json::from_str(answer).ok()?;
    let version = value.get("version")?.as_str()?.to_string();
    let released = value.get("time").and_then(|t| t.get(&version)).and_then(|t| t.as_str()).map(|t| t.chars().take(10).collect());
    Some((version, released))
}

/// Reads `pip index versions PACKAGE`: its first line is `PACKAGE (VERSION)`.
pub fn parse_pip(answer: &str) -> Option<String> {
    let line = answer.lines().find(|l| l.contains('(') && l.trim_end().ends_with(')'))?;
    let (_, rest) = line.split_once('(')?;
    Some(rest.trim_end().trim_end_matches(')').to_string())
}

/// The newest release of `profile`'s package. PyPI is asked with the profile's own Python, so a
/// release that needs a newer interpreter is not offered.
pub async fn latest(profile: &Profile) -> Result<Latest, RegistryError> {
    let client = profile.name.clone();
    if let Some(package) = &profile.install.npm {
        let command = format!("npm view {package} version time --json");
        let answer = output(tokio::process::Command::new("npm").args(["view", package, "version", "time", "--json"])).await.map_err(|failed| RegistryError::Unreachable {
            client: client.clone(),
            registry: "npm",
            command,
            message: failed.to_string(),
        })?;
        let (version, released) = parse_npm(&answer).ok_or_else(|| RegistryError::Unreadable { client, registry: "npm", answer: answer.chars().take(200).collect() })?;
        return Ok(Latest { registry: "npm", package: package.clone(), version, released });
    }
    let Some(package) = &profile.install.pypi else { return Err(RegistryError::NoPackage { client }) };
    let answer = pip_index_versions(profile, package).await?;
    let version = parse_pip(&answer).ok_or_else(|| RegistryError::Unreadable { client, registry: "PyPI", answer: answer.chars().take(200).collect() })?;
    Ok(Latest { registry: "PyPI", package: package.clone(), version, released: None })
}

/// What `pip index versions PACKAGE` answers, asked with the profile's own Python (a release
/// that needs a newer interpreter is not listed).
async fn pip_index_versions(profile: &Profile, package: &str) -> Result<String, RegistryError> {
    let client = profile.name.clone();
    let python_version = profile.install.python.clone().unwrap_or_else(|| "3".into());
    let python = find_python(&python_version).ok_or_else(|| RegistryError::NoPython { client: client.clone(), python: python_version.clone() })?;
    let command = format!("python{python_version} -m pip index versions {package}");
    output(tokio::process::Command::new(python).args(["-m", "pip", "index", "versions", package, "--disable-pip-version-check"]))
        .await
        .map_err(|failed| RegistryError::Unreachable { client, registry: "PyPI", command, message: failed.to_string() })
}

/// Reads `pip index versions PACKAGE`'s `Available versions: a, b, …` line.
pub fn parse_pip_versions(answer: &str) -> Vec<String> {
    answer
        .lines()
        .find_map(|l| l.trim().strip_prefix("Available versions:"))
        .map(|list| list.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect())
        .unwrap_or_default()
}

/// Whether the registry offers `version` of `profile`'s package: `Some(false)` when it answered
/// without it, `None` when it could not be asked (the install then finds out itself).
pub async fn offers(profile: &Profile, version: &str) -> Option<bool> {
    if let Some(package) = &profile.install.npm {
        // npm answers a version it does not have with nothing (and a package it does not have
        // with an error).
        let spec = format!("{package}@{version}");
        let out = tokio::process::Command::new("npm").args(["view", &spec, "version", "--json"]).output().await.ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        return match (out.status.success(), text.trim().is_empty()) {
            (true, empty) => Some(!empty),
            (false, _) if stderr.contains("E404") || text.contains("E404") => Some(false),
            (false, _) => None,
        };
    }
    let package = profile.install.pypi.as_ref()?;
    let versions = parse_pip_versions(&pip_index_versions(profile, package).await.ok()?);
    (!versions.is_empty()).then(|| versions.iter().any(|v| v == version))
}

/// The newest release of each profile's package, asked of the registries at once; the first
/// registry that cannot be asked is the error (a partial answer would read as complete).
pub async fn latest_of_each(profiles: &[Profile]) -> Result<Vec<Latest>, RegistryError> {
    futures::future::join_all(profiles.iter().map(latest)).await.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_answers_are_read() {
        let npm = r#"{"version": "0.171.0", "time": {"0.170.0": "2026-11-20T01:02:03.000Z", "0.171.0": "2026-11-27T05:44:03.169000+00:00"}}"#;
        assert_eq!(parse_npm(npm), Some(("0.171.0".into(), Some("2026-11-27".into()))));
        assert_eq!(parse_npm(r#"{"version": "1.0.0"}"#), Some(("1.0.0".into(), None)));
        assert_eq!(parse_npm("not json"), None);
        assert_eq!(parse_pip("gptme (0.35.1)\nAvailable versions: 0.35.1, 0.34.0\n"), Some("0.35.1".into()));
        assert_eq!(parse_pip("ERROR: No matching distribution found for x\n"), None);
        assert_eq!(parse_pip_versions("gptme (0.35.1)\nAvailable versions: 0.35.1, 0.34.0\n"), ["0.35.1", "0.34.0"]);
        assert!(parse_pip_versions("ERROR: No matching distribution found for x\n").is_empty());
    }
}
