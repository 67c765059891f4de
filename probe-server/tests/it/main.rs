//! Integration tests for the probe server. One binary; each module opens with what belongs there.

mod fuzz;
mod http;
mod judges;
mod notes;
mod regressions;
mod skills;
mod stdio;
mod wire_schema;
