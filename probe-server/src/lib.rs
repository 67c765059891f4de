//! The instrumented MCP probe server: probes, wire journal, transports, both protocol eras.
//!
//! * [`host_tools`] — what a tool a host offers its model is for, shared by the model stub and the judges.
//! * [`surface`] — what the server advertises and serves, shared by server, probes and clients.
//! * [`edge_names`] — the tools of the tool-names variant, named at the edges of what the specification allows.
//! * [`sized`] — the sized tool results of the large-results variant, how the stub folds them and the judge reads them.
//! * [`long_calls`] — the tools of the long-calls variant: a call that reports progress past a timeout, one that never answers.
//! * [`apps`] — the tools and view of the apps variant (MCP Apps, `io.modelcontextprotocol/ui`).
//! * [`stateless`] — the one tool of the stateless variants (Streamable HTTP without sessions).
//! * [`skills`] — the SEP-2640 skills served in the skills variants, hostile ones included.
//! * [`auth`] — OAuth in the auth variants: the loopback authorization server and the protected resource's checks.
//! * [`tasks`] — the tasks of the tasks variant (the 2026-07-28 extension `io.modelcontextprotocol/tasks`).
//! * [`interactive`] — what a person does in each interactive run, shared by the terminal driver and the probes.
//! * [`server`] — the rmcp handler that serves the surface in both eras.
//! * [`transport`] — the stdio and Streamable HTTP taps that journal every frame.
//! * [`journal`] — the JSONL wire journal and its reader.
//! * [`note`] — the journal's note vocabulary, named once for writers and readers.
//! * [`observe`] — journal events turned into observations judges can query.
//! * [`wire_schema`] — the official schemas of each revision, and the check of a session's frames against them.
//! * [`probe`], [`registry`], [`probes`] — the probe model, the ordered registry, one file per family.

pub mod apps;
pub mod auth;
pub mod edge_names;
pub mod era;
pub mod fetch_trap;
pub mod host_tools;
pub mod interactive;
pub mod journal;
pub mod long_calls;
pub mod net;
pub mod note;
pub mod observe;
pub mod probe;
pub mod probes;
pub mod registry;
pub mod server;
pub mod sized;
pub mod skills;
pub mod stateless;
pub mod surface;
pub mod tasks;
pub mod transport;
pub mod variant;
pub mod wire_schema;

pub use era::{Era, EraPolicy};
pub use journal::{Journal, JournalError};
pub use probe::{Area, Outcome, Probe, Verdict};
pub use server::{ProbeServer, ServeOptions};
pub use variant::Variant;
