//! The real clients: their profiles (`fixtures/clients/*.toml`) and their pinned installs.

pub mod install;
pub mod profile;
