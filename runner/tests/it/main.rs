//! Integration tests for the `mcp-client-probe` binary. One binary; each module opens with what
//! belongs there.

mod cli;
mod fake_clients;
mod layering;
mod matrix;
mod self_test;
mod serve;
mod site;

use assert_cmd::Command;

/// The binary under test, with a clean environment for its output.
pub fn probe_cmd() -> Command {
    let mut cmd = Command::cargo_bin("mcp-client-probe").unwrap();
    cmd.env_remove("RUST_LOG");
    cmd
}

pub fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/journals").join(name)
}

/// Copies the directory tree `from` to `to`.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The probes the snapshots show (`fixtures/snapshot-probes.txt`).
pub fn snapshot_probes() -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/snapshot-probes.txt");
    std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_string).collect()
}

/// The probe ids `line` names, whole (`tools.list` is not named by `tools.list_changed`).
pub fn probes_named(line: &str) -> Vec<&'static str> {
    let part_of_id = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    probe_server::registry::probes()
        .iter()
        .map(|p| p.id())
        .filter(|id| {
            line.match_indices(id).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + id.len()..].chars().next();
                !before.is_some_and(part_of_id) && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
        .collect()
}

/// `text` with only the lines that name no probe or only probes of the snapshot sample, after
/// checking that it names every probe in `expected` (all of them, for an output that lists every
/// probe): so a new probe changes no snapshot here, and is still seen to be shown.
pub fn sampled(text: &str, expected: Expected) -> String {
    let sample = snapshot_probes();
    let named: std::collections::BTreeSet<&str> = text.lines().flat_map(probes_named).collect();
    if let Expected::EveryProbe = expected {
        let missing: Vec<&str> = probe_server::registry::probes().iter().map(|p| p.id()).filter(|id| !named.contains(id)).collect();
        assert!(missing.is_empty(), "not shown: {missing:?}");
    }
    for id in &sample {
        assert!(named.contains(id.as_str()) || matches!(expected, Expected::Some), "{id} of the snapshot sample is not shown");
    }
    let mut kept: String = text.lines().filter(|line| probes_named(line).iter().all(|id| sample.iter().any(|s| s == id))).collect::<Vec<_>>().join("\n");
    if text.ends_with('\n') {
        kept.push('\n');
    }
    kept
}

/// What a sampled output must show.
pub enum Expected {
    /// Every probe of the registry.
    EveryProbe,
    /// Some probes (a feature page names those of its features only).
    Some,
}
