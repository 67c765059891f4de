//! The HTTP tap's connections, served by hyper directly so that nothing a client sends is lost:
//! a request followed by a half-close is still answered (except where a closed connection is the
//! evidence, see [`Limits::half_close`]), a request head the HTTP parser refuses
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
    /// Whether a client that shuts down its sending side still gets its answers. Where it does
    /// not (variant long-calls), the end of the client's bytes while an answer is pending is seen
    /// at once and the request dropped: a client that gives up on a call by closing its
    /// connection is seen doing so, where otherwise it would show only at the server's next
    /// write (and a call that never answers writes nothing).
    pub half_close: bool,
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
    let (started, finished) = (tail.clone(), tail.clone());
    let app = app
        .map_request(move |request: axum::http::Request<Incoming>| {
            started.lock().map(|mut t| t.requests_started += 1).ok();
            request.map(Body::new)
        })
        .map_response(move |response: axum::response::Response| response.map(|body| Body::new(Counted::new(body, finished.clone()))));
    let service = TowerToHyperService::new(app);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).half_close(limits.half_close).max_headers(MAX_HEADERS).header_read_timeout(limits.read_timeout);
    let mut connection = pin!(builder.serve_connection(io, service));
    let result = tokio::select! {
        result = connection.as_mut() => result,
        _ = shutdown.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    let Err(error) = result else { return };
    // A client that went away while a request of its was being answered (a stream it left, a
    // call it gave up on) sent no bad request: the tap journals what became of the answer.
    let answering = tail.lock().is_ok_and(|t| t.requests_started > t.answers_finished);
    if error.is_incomplete_message() && answering {
        return;
    }
    // A request the parser refused, or one whose head never came whole: journalled with the last
    // bytes that arrived. Errors of connections the client simply closed are not requests.
    if error.is_parse() || error.is_parse_too_large() || error.is_timeout() || error.is_incomplete_message() {
        let (last, read) = tail.lock().map(|t| t.bytes()).unwrap_or_default();
        let mut entry = Entry::new("-", Transport::Http, Direction::ClientToServer, EventKind::Refused);
        entry.raw = (!last.is_empty()).then(|| RawText::from_bytes(&last));
        journal.log(entry.with_detail(json!({"connection": error.to_string(), "bytes_read": read, "raw_is_tail": read > last.len() as u64})));
    }
}

/// The last bytes read on a connection (at most [`HEAD_BYTES`]) and how many were read in all,
/// with how many requests were handed to the app and how many answers went out whole.
#[derive(Default)]
struct Tail {
    last: std::collections::VecDeque<u8>,
    total: u64,
    requests_started: u64,
    answers_finished: u64,
}

/// A response body that counts itself in its connection's [`Tail`] once it has gone out whole.
struct Counted {
    inner: Body,
    tail: Option<Arc<Mutex<Tail>>>,
}

impl Counted {
    /// An empty body may never be polled: it counts as gone out at once.
    fn new(inner: Body, tail: Arc<Mutex<Tail>>) -> Counted {
        let mut counted = Counted { inner, tail: Some(tail) };
        if http_body::Body::is_end_stream(&counted.inner) {
            counted.finish();
        }
        counted
    }

    fn finish(&mut self) {
        if let Some(tail) = self.tail.take() {
            tail.lock().map(|mut t| t.answers_finished += 1).ok();
        }
    }
}

impl http_body::Body for Counted {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let polled = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.finish();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
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
