//! The HTTP tap's connections, served by hyper directly so that nothing a client sends is lost:
//! a request followed by a half-close is still answered, a request head the HTTP parser refuses
//! (a bad `Content-Length`, too many headers, a head that never ends) is journalled as refused
//! with what arrived of it, a head must arrive within the read timeout, and the number of open
//! connections is capped.

use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

use crate::journal::{Direction, Entry, EventKind, Journal, RawText, Transport, HEAD_BYTES};

/// The most connections open at once; one more is journalled as refused and closed.
pub const MAX_CONNECTIONS: usize = 256;

/// The most header lines a request head may carry (hyper's default is 100).
pub const MAX_HEADERS: usize = 100;

/// How the connections of one server are served.
#[derive(Clone)]
pub(crate) struct Limits {
    /// How long a request head (or, once a request is served, the next one) may take to arrive.
    pub read_timeout: Duration,
}

/// Accepts connections on `listener` and serves `app` on each until `shutdown` is cancelled, then
/// waits for the open ones to finish.
pub(crate) async fn serve(listener: TcpListener, app: axum::Router, journal: Journal, limits: Limits, shutdown: CancellationToken) -> std::io::Result<()> {
    let connections = TaskTracker::new();
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            // Out of descriptors and the like: the listener stays; try again shortly.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            journal.log(
                Entry::new("-", Transport::Http, Direction::ClientToServer, EventKind::Refused)
                    .with_detail(json!({"connection": format!("over the {MAX_CONNECTIONS}-connection limit")})),
            );
            drop(tcp);
            continue;
        };
        // Small SSE writes must not wait for delayed ACKs (a 40 ms stall per answer otherwise).
        let _ = tcp.set_nodelay(true);
        let (app, journal, limits, shutdown) = (app.clone(), journal.clone(), limits.clone(), shutdown.clone());
        connections.spawn(async move {
            serve_one(tcp, app, &journal, &limits, shutdown).await;
            drop(permit);
        });
    }
    connections.close();
    connections.wait().await;
    Ok(())
}

async fn serve_one(tcp: TcpStream, app: axum::Router, journal: &Journal, limits: &Limits, shutdown: CancellationToken) {
    let tail = Arc::new(Mutex::new(Tail::default()));
    let io = TokioIo::new(Recording { inner: tcp, tail: tail.clone() });
    let service = TowerToHyperService::new(app.map_request(|request: axum::http::Request<Incoming>| request.map(Body::new)));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).half_close(true).max_headers(MAX_HEADERS).header_read_timeout(limits.read_timeout);
    let mut connection = pin!(builder.serve_connection(io, service));
    let result = tokio::select! {
        result = connection.as_mut() => result,
        _ = shutdown.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    let Err(error) = result else { return };
    // A request the parser refused, or one whose head never came whole: journalled with the last
    // bytes that arrived. Errors of connections the client simply closed are not requests.
    if error.is_parse() || error.is_parse_too_large() || error.is_timeout() || error.is_incomplete_message() {
        let (last, read) = tail.lock().map(|t| t.bytes()).unwrap_or_default();
        let mut entry = Entry::new("-", Transport::Http, Direction::ClientToServer, EventKind::Refused);
        entry.raw = (!last.is_empty()).then(|| RawText::from_bytes(&last));
        journal.log(entry.with_detail(json!({"connection": error.to_string(), "bytes_read": read, "raw_is_tail": read > last.len() as u64})));
    }
}

/// The last bytes read on a connection (at most [`HEAD_BYTES`]) and how many were read in all.
#[derive(Default)]
struct Tail {
    last: std::collections::VecDeque<u8>,
    total: u64,
}

impl Tail {
    fn absorb(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let keep = &bytes[bytes.len().saturating_sub(HEAD_BYTES)..];
        let overflow = (self.last.len() + keep.len()).saturating_sub(HEAD_BYTES);
        self.last.drain(..overflow);
        self.last.extend(keep);
    }

    fn bytes(&self) -> (Vec<u8>, u64) {
        (self.last.iter().copied().collect(), self.total)
    }
}

/// A TCP stream that keeps the tail of what it reads.
struct Recording {
    inner: TcpStream,
    tail: Arc<Mutex<Tail>>,
}

impl AsyncRead for Recording {
    fn poll_read(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            if let Ok(mut tail) = self.tail.lock() {
                tail.absorb(&buf.filled()[before..]);
            }
        }
        polled
    }
}

impl AsyncWrite for Recording {
    fn poll_write(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[std::io::IoSlice<'_>]) -> Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_last_bytes_and_counts_them_all() {
        let mut tail = Tail::default();
        tail.absorb(b"abc");
        assert_eq!(tail.bytes(), (b"abc".to_vec(), 3));
        tail.absorb(&vec![b'x'; HEAD_BYTES]);
        tail.absorb(b"end");
        let (bytes, total) = tail.bytes();
        assert_eq!((bytes.len(), total), (HEAD_BYTES, HEAD_BYTES as u64 + 6));
        assert!(bytes.ends_with(b"xend"));
    }
}
