//! A connection whose peer stops reading: the response waits on a full send buffer, and
//! nothing in hyper's HTTP/1 server ends that wait. [`WriteDeadline`] fails a write that has
//! made no progress for its limit, so a client that asks for a photo and never reads it holds
//! its connection slot for that long, not for ever.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// `inner`, whose writes fail with `TimedOut` once one has waited `limit` without progress.
pub(crate) struct WriteDeadline<T> {
    inner: T,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteDeadline<T> {
    pub(crate) fn new(inner: T, limit: Duration) -> Self {
        Self {
            inner,
            limit,
            stalled: None,
        }
    }

    /// Turns a pending write into a `TimedOut` error once it has waited the limit; any
    /// progress starts the wait again.
    fn watch<R>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>> {
        match polled {
            Poll::Ready(r) => {
                self.stalled = None;
                Poll::Ready(r)
            }
            Poll::Pending => {
                let limit = self.limit;
                let sleep = self
                    .stalled
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                match sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the peer read nothing of the response",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteDeadline<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.watch(cx, polled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_write_nobody_reads_fails_after_the_limit_and_progress_restarts_the_wait() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut w = WriteDeadline::new(near, Duration::from_secs(30));
        // 64 bytes fit the pipe; the rest waits for a reader.
        w.write_all(&[b'x'; 64])
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let started = tokio::time::Instant::now();
        let writing = tokio::spawn(async move {
            let r = w.write_all(&[b'y'; 64]).await;
            (r, w)
        });
        // A reader that takes a little every 20 s keeps the write alive past 30 s...
        let mut buf = [0u8; 16];
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_secs(20)).await;
            let n = far.read(&mut buf).await.unwrap_or(0);
            assert!(n > 0);
        }
        // ...then stops reading: the write fails 30 s after its last progress.
        let (r, _w) = writing.await.unwrap_or_else(|e| panic!("{e}"));
        let err = r.err().map(|e| e.kind());
        assert_eq!(err, Some(io::ErrorKind::TimedOut));
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_secs(90) && waited < Duration::from_secs(91),
            "{waited:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn reads_and_prompt_writes_pass_through() {
        let (near, mut far) = tokio::io::duplex(1024);
        let mut w = WriteDeadline::new(near, Duration::from_secs(1));
        far.write_all(b"GET / HTTP/1.1\r\n\r\n")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut buf = [0u8; 18];
        w.read_exact(&mut buf)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&buf, b"GET / HTTP/1.1\r\n\r\n");
        tokio::time::sleep(Duration::from_secs(5)).await;
        w.write_all(b"HTTP/1.1 200 OK\r\n\r\n")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
