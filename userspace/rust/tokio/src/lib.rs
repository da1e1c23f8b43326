// SPDX-License-Identifier: LGPL-2.1-or-later
//! tokio binding of `/dev/twheel`: the fd's records, and idle timeouts,
//! as futures, woken by tokio's reactor ([`tokio::io::unix::AsyncFd`]).
//!
//! ```no_run
//! use std::time::Duration;
//! use twheel::Timer;
//! use twheel_tokio::{AsyncIdleTimeouts, AsyncTwheel};
//!
//! # async fn run() -> std::io::Result<()> {
//! // Records as they come.
//! let mut wheel = AsyncTwheel::open()?;
//! wheel.get_ref().add(&Timer::after(Duration::from_millis(50)).cookie(1))?;
//! let ev = wheel.next().await?;
//! assert_eq!(ev.cookie(), 1);
//!
//! // Idle timeouts, as tokio's DelayQueue would do them.
//! let mut idle = AsyncIdleTimeouts::open(Duration::from_secs(30), 10_000)?;
//! let h = idle.get_mut().add(7)?; // accept
//! idle.get_mut().touch(h)?;       // activity: one store
//! let conn = idle.expired().await?; // idle for 30 s
//! # let _ = conn;
//! # Ok(())
//! # }
//! ```
//!
//! Each type must be made inside a tokio runtime whose I/O driver is on
//! (`enable_io()`, or `enable_all()`), as any `AsyncFd`.

#![warn(missing_docs)]

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use twheel::{Event, EventBuf, IdleTimeouts, Twheel};

/// A [`Twheel`] whose records are awaited: [`AsyncTwheel::next`].
///
/// The fd is made non-blocking and registered with tokio's reactor; every
/// other call ([`Twheel::add`], [`Twheel::modify`], ...) goes through
/// [`AsyncTwheel::get_ref`] and does not block.
#[derive(Debug)]
pub struct AsyncTwheel {
    fd: AsyncFd<Twheel>,
    buf: EventBuf,
}

impl AsyncTwheel {
    /// Opens `/dev/twheel` (see [`Twheel::open`]; the error says what to
    /// do) and registers it.
    pub fn open() -> io::Result<AsyncTwheel> {
        AsyncTwheel::new(Twheel::open_nonblocking()?)
    }

    /// Registers `wheel` (made non-blocking) with the current runtime.
    pub fn new(wheel: Twheel) -> io::Result<AsyncTwheel> {
        wheel.set_nonblocking(true)?;
        Ok(AsyncTwheel {
            fd: AsyncFd::new(wheel)?,
            buf: EventBuf::new(64),
        })
    }

    /// The fd, for its ioctls.
    pub fn get_ref(&self) -> &Twheel {
        self.fd.get_ref()
    }

    /// Deregisters it and gives the fd back (records read ahead and not
    /// yet returned are lost: take them with [`AsyncTwheel::next`] first).
    pub fn into_inner(self) -> Twheel {
        self.fd.into_inner()
    }

    /// The next record, or `Pending` (the task woken when the fd turns
    /// readable).
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Event>> {
        loop {
            // Readiness cleared before this read: a record queued after
            // it makes the fd ready again, none is missed.
            if let Some(r) = self.fd.get_ref().events(&mut self.buf).next() {
                return Poll::Ready(r);
            }
            match self.fd.poll_read_ready(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(mut guard)) => guard.clear_ready(),
            }
        }
    }

    /// The next record, when one is queued (a future: cancel-safe, no
    /// record is lost when it is dropped).
    #[allow(clippy::should_implement_trait)] // async: not Iterator's
    pub fn next(&mut self) -> Next<'_> {
        Next { wheel: self }
    }
}

/// The future of [`AsyncTwheel::next`].
#[derive(Debug)]
pub struct Next<'a> {
    wheel: &'a mut AsyncTwheel,
}

impl Future for Next<'_> {
    type Output = io::Result<Event>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<Event>> {
        self.wheel.poll_next(cx)
    }
}

/// [`IdleTimeouts`] whose expiries are awaited:
/// [`AsyncIdleTimeouts::expired`]; add, touch and remove go through
/// [`AsyncIdleTimeouts::get_mut`].
#[derive(Debug)]
pub struct AsyncIdleTimeouts {
    fd: AsyncFd<IdleTimeouts>,
}

impl AsyncIdleTimeouts {
    /// As [`IdleTimeouts::open`], registered with the current runtime.
    pub fn open(timeout: Duration, max_connections: u64) -> io::Result<AsyncIdleTimeouts> {
        AsyncIdleTimeouts::new(IdleTimeouts::open(timeout, max_connections)?)
    }

    /// Registers `idle` (its fd is non-blocking) with the current runtime.
    pub fn new(idle: IdleTimeouts) -> io::Result<AsyncIdleTimeouts> {
        Ok(AsyncIdleTimeouts {
            fd: AsyncFd::new(idle)?,
        })
    }

    /// The tracker.
    pub fn get_ref(&self) -> &IdleTimeouts {
        self.fd.get_ref()
    }

    /// The tracker, to add, touch and remove connections.
    pub fn get_mut(&mut self) -> &mut IdleTimeouts {
        self.fd.get_mut()
    }

    /// The cookie of the next connection idle for the timeout, or
    /// `Pending` (the task woken when the fd turns readable).
    pub fn poll_expired(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        loop {
            if let Some(r) = self.fd.get_mut().drain().next() {
                return Poll::Ready(r);
            }
            match self.fd.poll_read_ready(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(mut guard)) => guard.clear_ready(),
            }
        }
    }

    /// The next connection idle for the timeout (its cookie): only real
    /// expiries, as [`IdleTimeouts::drain`] yields them. Cancel-safe.
    pub fn expired(&mut self) -> Expired<'_> {
        Expired { idle: self }
    }
}

/// The future of [`AsyncIdleTimeouts::expired`].
#[derive(Debug)]
pub struct Expired<'a> {
    idle: &'a mut AsyncIdleTimeouts,
}

impl Future for Expired<'_> {
    type Output = io::Result<u64>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        self.idle.poll_expired(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn futures_are_send() {
        fn check<T: Send>() {}
        check::<AsyncTwheel>();
        check::<AsyncIdleTimeouts>();
        check::<Next<'_>>();
        check::<Expired<'_>>();
    }

    #[test]
    fn open_without_the_device_says_what_to_do() {
        if std::path::Path::new(Twheel::PATH).exists() {
            return; // the module is loaded here: nothing to check
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .unwrap();
        let _g = rt.enter();
        let e = AsyncTwheel::open().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert!(e.to_string().contains("modprobe twheel"), "{}", e);
        let e = AsyncIdleTimeouts::open(Duration::from_secs(1), 1).unwrap_err();
        assert!(e.to_string().contains("modprobe twheel"), "{}", e);
    }
}
