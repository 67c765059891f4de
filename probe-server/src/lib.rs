//! The instrumented MCP probe server: probes, wire journal, transports, both protocol eras. Three
//! rooms on the ground of the journal, the eras and the notes: [`vocabulary`] (what the server
//! serves and the names judges look for), [`serving`] (the network floor, the taps, the
//! authorization server, the rmcp handler) and [`judging`] (observations, the probes, the
//! registry, the wire schemas).
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

pub mod era;
pub mod journal;
pub mod judging;
pub mod note;
pub mod serving;
pub mod sized;
pub mod vocabulary;

// Every module keeps its path at the crate root: `probe_server::surface`, `crate::observe`, ….
pub use judging::{observe, probe, probes, registry, wire_schema};
pub use serving::{auth, fetch_trap, net, server, transport};
pub use vocabulary::{apps, edge_names, events, host_tools, interactive, long_calls, skills, stateless, surface, tasks, variant};

pub use era::{Era, EraPolicy};
pub use journal::{Journal, JournalError};
pub use probe::{Area, Outcome, Probe, Verdict};
pub use server::{ProbeServer, ServeOptions};
pub use variant::Variant;
