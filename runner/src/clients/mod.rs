//! The real clients: their profiles (`fixtures/clients/*.toml`), their pinned installs, and what
//! their registries offer now.

pub mod install;
pub mod profile;
pub mod registry;
