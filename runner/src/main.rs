//! `mcp-client-probe`: measures what MCP clients actually do.
//!
//! Exit codes (see [`exit`]): 0 success; 1 a comparison failed (the self-test, `--expect`,
//! `matrix check`); 2 bad input (usage, unreadable or invalid files); 3 the harness itself failed.

mod bench;
mod cli;
mod clients;
mod commands;
mod drivers;
mod exit;
mod records;
mod render;
mod selftest;
mod session;

use std::process::ExitCode;

use clap::Parser;

use cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp-client-probe: cannot start the async runtime: {e}");
            return ExitCode::from(exit::HARNESS);
        }
    };
    match runtime.block_on(commands::dispatch(cli.command)) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("mcp-client-probe: {err:#}");
            ExitCode::from(exit::code_of(&err))
        }
    }
}
