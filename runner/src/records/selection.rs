//! Which clients a check re-probes live: those a change touched (their profile — and with it the
//! pinned version — or their committed records), plus a few in rotation chosen from the commit, so
//! that every client is re-probed every few commits while the check stays the same length however
//! many clients there are.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Why no selection could be made.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    #[error("cannot run git to see what changed since {since}: {message}")]
    Git { since: String, message: String },
}

fn git(args: &[&str], since: &str) -> Result<String, SelectionError> {
    let output = Command::new("git").args(args).output().map_err(|e| SelectionError::Git { since: since.into(), message: e.to_string() })?;
    if !output.status.success() {
        return Err(SelectionError::Git { since: since.into(), message: String::from_utf8_lossy(&output.stderr).trim().to_string() });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The client a changed path belongs to: `fixtures/clients/<name>.toml` or
/// `matrices/records/<name>/…`.
pub fn client_of_path(path: &str) -> Option<&str> {
    if let Some(file) = path.strip_prefix("fixtures/clients/") {
        return file.strip_suffix(".toml").filter(|name| !name.contains('/'));
    }
    path.strip_prefix("matrices/records/").and_then(|rest| rest.split_once('/')).map(|(name, _)| name)
}

/// The clients among `known` whose profile or records differ between `since` and the work tree
/// of the repository at `dir`.
pub fn changed_since(dir: &Path, since: &str, known: &[String]) -> Result<BTreeSet<String>, SelectionError> {
    let dir = dir.display().to_string();
    let changed = git(&["-C", &dir, "diff", "--name-only", since, "--", "fixtures/clients", "matrices/records"], since)?;
    // Files added and not yet committed count too.
    let untracked = git(&["-C", &dir, "ls-files", "--others", "--exclude-standard", "--", "fixtures/clients", "matrices/records"], since)?;
    Ok(changed.lines().chain(untracked.lines()).filter_map(client_of_path).filter(|name| known.iter().any(|k| k == name)).map(str::to_string).collect())
}

/// `count` clients of `known` (sorted) in rotation: consecutive, starting where `seed` points, so
/// that successive commits walk through them all.
pub fn rotation(known: &[String], seed: &str, count: usize) -> Vec<String> {
    let mut sorted: Vec<&String> = known.iter().collect();
    sorted.sort();
    if sorted.is_empty() {
        return Vec::new();
    }
    // The commit id's first 8 hex digits as a number; any text works.
    let start = u64::from_str_radix(&seed.chars().filter(char::is_ascii_hexdigit).take(8).collect::<String>(), 16)
        .unwrap_or_else(|_| seed.bytes().fold(0u64, |a, b| a.wrapping_mul(31).wrapping_add(u64::from(b))));
    let start = usize::try_from(start % sorted.len() as u64).unwrap_or(0);
    (0..count.min(sorted.len())).map(|i| sorted[(start + i) % sorted.len()].clone()).collect()
}

/// The id of the commit checked out in `dir`'s repository.
pub fn head_commit(dir: &Path) -> Result<String, SelectionError> {
    let dir = dir.display().to_string();
    git(&["-C", &dir, "rev-parse", "HEAD"], "HEAD").map(|s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_path_names_its_client() {
        assert_eq!(client_of_path("fixtures/clients/codex.toml"), Some("codex"));
        assert_eq!(client_of_path("matrices/records/codex/0.171.0/stdio.json"), Some("codex"));
        assert_eq!(client_of_path("matrices/MATRIX.md"), None);
        assert_eq!(client_of_path("fixtures/clients/skills/x.toml"), None);
    }

    #[test]
    fn changes_since_a_commit_name_their_clients() {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| assert!(Command::new("git").arg("-C").arg(dir.path()).args(args).output().unwrap().status.success(), "{args:?}");
        run(&["init", "-q"]);
        std::fs::create_dir_all(dir.path().join("fixtures/clients")).unwrap();
        std::fs::create_dir_all(dir.path().join("matrices/records/beta/1.0")).unwrap();
        for (path, text) in [("fixtures/clients/alpha.toml", "a"), ("fixtures/clients/beta.toml", "b"), ("matrices/records/beta/1.0/stdio.json", "{}")] {
            std::fs::write(dir.path().join(path), text).unwrap();
        }
        run(&["add", "."]);
        run(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one"]);
        let known: Vec<String> = ["alpha", "beta", "gamma"].map(String::from).to_vec();
        assert!(changed_since(dir.path(), "HEAD", &known).unwrap().is_empty());
        std::fs::write(dir.path().join("fixtures/clients/alpha.toml"), "a, pinned anew").unwrap();
        std::fs::create_dir_all(dir.path().join("matrices/records/gamma/2.0")).unwrap();
        std::fs::write(dir.path().join("matrices/records/gamma/2.0/http.json"), "{}").unwrap();
        assert_eq!(changed_since(dir.path(), "HEAD", &known).unwrap(), BTreeSet::from(["alpha".to_string(), "gamma".to_string()]));
        assert!(matches!(changed_since(dir.path(), "no-such-revision", &known), Err(SelectionError::Git { .. })));
    }

    #[test]
    fn the_rotation_walks_through_every_client() {
        let known: Vec<String> = ["e", "a", "d", "c", "b"].map(String::from).to_vec();
        assert_eq!(rotation(&known, "00000000", 3), ["a", "b", "c"]);
        assert_eq!(rotation(&known, "00000004", 3), ["e", "a", "b"], "wraps around");
        assert_eq!(rotation(&known, "anything", 9).len(), 5, "never more than there are");
        let mut seen = BTreeSet::new();
        for seed in 0..5u32 {
            seen.extend(rotation(&known, &format!("{seed:08x}"), 1));
        }
        assert_eq!(seen.len(), 5);
        assert!(rotation(&[], "0", 3).is_empty());
    }
}
