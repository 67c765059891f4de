//! A writer for the reference client's in-process stdio pipe that can put a line of its own
//! between two of rmcp's messages (never inside one): what the sends-batch ablation sends once
//! its session is open, so that the server's refusal does not take the place of an answer rmcp
//! is waiting for.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::AsyncWrite;

/// Lines waiting to be written at the next message boundary.
#[derive(Clone, Default)]
pub struct Injector(Arc<Mutex<Vec<Vec<u8>>>>);

impl Injector {
    /// Queues `line` (a newline is added); it goes out before rmcp's next message, or at the next
    /// flush.
    pub fn inject(&self, line: &str) {
        if let Ok(mut queued) = self.0.lock() {
            queued.push(format!("{line}\n").into_bytes());
        }
    }

    fn take(&self) -> Option<Vec<u8>> {
        self.0.lock().ok().and_then(|mut queued| (!queued.is_empty()).then(|| queued.remove(0)))
    }
}

/// Wraps a writer: rmcp's bytes pass through as they are; a queued line is written whole
/// whenever the last byte written ended a line.
pub struct Injecting<W> {
    inner: W,
    injector: Injector,
    /// A queued line being written, and how much of it is out.
    current: Option<(Vec<u8>, usize)>,
    at_boundary: bool,
}

impl<W> Injecting<W> {
    pub fn new(inner: W, injector: Injector) -> Self {
        Injecting { inner, injector, current: None, at_boundary: true }
    }
}

impl<W: AsyncWrite + Unpin> Injecting<W> {
    /// Writes out any queued line while at a message boundary; ready when none is left half-out.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        loop {
            if self.current.is_none() && self.at_boundary {
                self.current = self.injector.take().map(|line| (line, 0));
            }
            let Some((line, written)) = self.current.as_mut() else { return Poll::Ready(Ok(())) };
            match Pin::new(&mut self.inner).poll_write(cx, &line[*written..]) {
                Poll::Ready(Ok(n)) => {
                    *written += n;
                    if *written >= line.len() {
                        self.current = None;
                    } else if n == 0 {
                        return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
                    }
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Injecting<W> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        if let Poll::Ready(Err(e)) = this.drain(cx) {
            return Poll::Ready(Err(e));
        }
        if this.current.is_some() {
            return Poll::Pending;
        }
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(Ok(n)) => {
                if n > 0 {
                    this.at_boundary = buf[n - 1] == b'\n';
                }
                Poll::Ready(Ok(n))
            }
            other => other,
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        match this.drain(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut this.inner).poll_flush(cx),
            other => other,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test]
    async fn a_queued_line_goes_out_between_messages_never_inside_one() {
        let injector = Injector::default();
        let mut out = Injecting::new(Vec::new(), injector.clone());
        out.write_all(b"{\"a\":").await.unwrap();
        injector.inject("[1]");
        out.write_all(b"1}\n").await.unwrap();
        out.write_all(b"{\"b\":2}\n").await.unwrap();
        injector.inject("[2]");
        out.flush().await.unwrap();
        assert_eq!(String::from_utf8(out.inner).unwrap(), "{\"a\":1}\n[1]\n{\"b\":2}\n[2]\n");
    }
}
