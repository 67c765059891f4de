//! `serve`: the probe server on its own, for a client to be pointed at.

use anyhow::{Context, Result};
use probe_server::journal::Journal;
use probe_server::transport::{http, stdio};
use probe_server::ServeOptions;
use tokio_util::sync::CancellationToken;

use crate::cli::ServeArgs;

/// Input the user can fix; maps to the bad-input exit code.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

pub async fn serve(args: ServeArgs) -> Result<()> {
    // Refused before the journal is created: bad input writes nothing.
    if let Some(addr) = args.http.filter(|a| !a.ip().is_loopback()) {
        return Err(BadInput(format!("refusing to listen on {addr}: the probe server serves loopback only")).into());
    }
    if !args.stdio && args.http.is_none() {
        return Err(BadInput("choose --stdio or --http ADDR".into()).into());
    }
    // A variant that means something over one transport only is refused over the other.
    let transport = if args.stdio { probe_server::journal::Transport::Stdio } else { probe_server::journal::Transport::Http };
    if !args.variant.transports().contains(&transport) {
        return Err(BadInput(format!(
            "variant {} applies over {} only, not {}",
            args.variant.as_str(),
            args.variant.transports().iter().map(|t| t.as_str()).collect::<Vec<_>>().join(" and "),
            transport.as_str()
        ))
        .into());
    }
    // A revision the server does not know would be offered to clients as if it were one.
    if let Some(version) = args.protocol_version.as_deref() {
        let known: Vec<&str> = probe_server::era::LEGACY_VERSIONS.iter().copied().chain([probe_server::era::MODERN_VERSION]).collect();
        if !known.contains(&version) {
            return Err(BadInput(format!("--protocol-version {version} is no revision this server serves (it serves {})", known.join(", "))).into());
        }
    }
    // A journal already there (a client that started its server again) is kept: this server
    // journals beside it, and the runner reads them all.
    let (journal, journal_path) = Journal::create_beside(&args.journal).map_err(|e| BadInput(e.to_string()))?;
    if journal_path != args.journal {
        eprintln!("mcp-client-probe: {} is taken; journalling to {}", args.journal.display(), journal_path.display());
    }
    let options = ServeOptions {
        era: args.era,
        protocol_version: args.protocol_version,
        variant: args.variant,
        withdraw_after: args.withdraw_after_ms.map(std::time::Duration::from_millis),
        answer_timeout: args.answer_timeout_ms.map(std::time::Duration::from_millis),
        ping_timeout: None,
        read_timeout: None,
        long_call: args.long_call_ms.map(std::time::Duration::from_millis),
        progress_gap: args.progress_gap_ms.map(std::time::Duration::from_millis),
        task_timing: Default::default(),
    };
    if args.stdio {
        // stdout carries protocol bytes only; everything else goes to stderr or the journal.
        return stdio::serve_stdio(tokio::io::stdin(), tokio::io::stdout(), journal, options).await.context("stdio server failed");
    }
    let Some(addr) = args.http else { return Err(BadInput("choose --stdio or --http ADDR".into()).into()) };
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    eprintln!("mcp-client-probe: serving http://{}{}", listener.local_addr()?, http::MCP_PATH);
    let shutdown = CancellationToken::new();
    let on_signal = shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        on_signal.cancel();
    });
    http::serve_http(listener, journal, options, shutdown).await.context("HTTP server failed")
}
