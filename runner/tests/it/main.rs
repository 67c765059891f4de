//! Integration tests for the `mcp-client-probe` binary. One binary; each module opens with what
//! belongs there.

mod cli;
mod fake_clients;
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
