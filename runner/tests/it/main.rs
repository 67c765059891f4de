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
