//! Judging: journal events turned into observations (`observe`), the probe model (`probe`), one
//! file per family (`probes`), the ordered registry (`registry`) and the official schemas' check of
//! a session's frames (`wire_schema`).

pub mod observe;
pub mod probe;
pub mod probes;
pub mod registry;
pub mod wire_schema;
