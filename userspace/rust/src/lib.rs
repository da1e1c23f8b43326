// SPDX-License-Identifier: LGPL-2.1-or-later
//! A Rust binding of `/dev/twheel`: many timers on one file descriptor.
//!
//! twheel is a Linux kernel module that keeps a hierarchical timing wheel
//! per open file of `/dev/twheel`. A program adds, re-arms, cancels and
//! queries timers with ioctl(2), one at a time or in batches, waits for
//! the fd with poll/epoll (or tokio's `AsyncFd`, mio), and reads expiry
//! records. `uapi/linux/twheel.h` documents every field, errno and
//! guarantee; this crate is a typed layer over it, using only `std`.
//!
//! ```no_run
//! use std::time::Duration;
//! use twheel::{Clock, EventBuf, Timer, Twheel};
//!
//! # fn main() -> std::io::Result<()> {
//! let wheel = Twheel::open()?;
//! let id = wheel.add(&Timer::after(Duration::from_secs(30)).clock(Clock::Monotonic).cookie(7))?;
//! // ... activity: push the deadline back, same id.
//! wheel.modify(id, &twheel::Rearm::after(Duration::from_secs(30)))?;
//! let mut buf = EventBuf::new(64);
//! for ev in wheel.events(&mut buf) {
//!     let ev = ev?;
//!     println!("timer {} (cookie {}) expired {} time(s)", ev.id(), ev.cookie(), ev.count());
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Errors are [`std::io::Error`]s carrying the kernel's errno
//! (`err.raw_os_error()`), exactly as the system call returned it:
//! `ENOENT` for an unknown timer, `EINVAL` for a bad argument, `EBUSY` for
//! a late [`Twheel::configure`], `EAGAIN` ([`std::io::ErrorKind::WouldBlock`])
//! from a non-blocking read with nothing queued. Nothing is retried or
//! hidden, except that the record iterator retries a read interrupted by a
//! signal (`EINTR`). Opening is the exception: [`OpenError`] says what
//! failed and what to do (`modprobe twheel`, the device's group, ...),
//! keeping the errno.
//!
//! The shared timer table ([`Config::table`], [`Twheel::map_table`]:
//! [`Table`]) pushes a timeout back with one store into memory shared with
//! the kernel; [`IdleTimeouts`] builds per-connection idle timeouts on it.
//!
//! The raw ABI (its `#[repr(C)]` structs, checked against the C header's
//! layout at compile time, and the ioctl numbers) is in [`sys`].

#![warn(missing_docs)]

mod arch;
mod batch;
mod clock;
mod error;
mod event;
mod idle;
pub mod sys;
mod table;
mod timer;
mod wheel;

pub use batch::{Batch, OpOutcome};
pub use clock::{Clock, TimerState};
pub use error::OpenError;
pub use event::{Event, EventBuf, Events};
pub use idle::{IdleDrain, IdleHandle, IdleOptions, IdleTimeouts};
pub use table::{Table, TableTimer};
pub use timer::{Expiry, Missed, Rearm, Timer, TimerId};
pub use wheel::{Config, Info, OpenOptions, Status, Twheel};

use std::time::Duration;

/// A duration in nanoseconds as the ABI's signed deadlines take it:
/// saturating at `i64::MAX` (the kernel saturates too: never wraps).
pub(crate) fn duration_to_i64_ns(d: Duration) -> i64 {
    let ns = d.as_nanos();
    if ns > i64::MAX as u128 {
        i64::MAX
    } else {
        ns as i64
    }
}

/// A duration in nanoseconds as the ABI's unsigned fields take it
/// (periods, ticks, advance deltas): saturating at `u64::MAX`.
pub(crate) fn duration_to_u64_ns(d: Duration) -> u64 {
    let ns = d.as_nanos();
    if ns > u64::MAX as u128 {
        u64::MAX
    } else {
        ns as u64
    }
}

/// A non-negative nanosecond count from the kernel as a [`Duration`]
/// (negative values, which the ABI never reports, read as zero).
pub(crate) fn i64_ns_to_duration(ns: i64) -> Duration {
    Duration::from_nanos(if ns < 0 { 0 } else { ns as u64 })
}

/// An [`std::io::Error`] for a value the kernel returned that this ABI
/// version does not define (a newer module's): `ErrorKind::InvalidData`.
pub(crate) fn invalid_data(what: &str, value: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("twheel: unknown {} {} from the kernel", what, value),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_saturate() {
        assert_eq!(duration_to_i64_ns(Duration::from_nanos(5)), 5);
        assert_eq!(duration_to_i64_ns(Duration::from_secs(u64::MAX)), i64::MAX);
        assert_eq!(
            duration_to_i64_ns(Duration::from_nanos(i64::MAX as u64)),
            i64::MAX
        );
        assert_eq!(
            duration_to_i64_ns(Duration::from_nanos(i64::MAX as u64 + 1)),
            i64::MAX
        );
        assert_eq!(duration_to_u64_ns(Duration::from_nanos(u64::MAX)), u64::MAX);
        assert_eq!(duration_to_u64_ns(Duration::from_secs(u64::MAX)), u64::MAX);
        assert_eq!(duration_to_u64_ns(Duration::from_millis(3)), 3_000_000);
        assert_eq!(i64_ns_to_duration(-1), Duration::ZERO);
        assert_eq!(i64_ns_to_duration(1500), Duration::from_nanos(1500));
    }
}

/// The README's example, compiled by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
