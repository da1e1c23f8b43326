// SPDX-License-Identifier: LGPL-2.1-or-later
//! Timer ids and the descriptions of timers to add or re-arm.

use std::fmt;
use std::time::Duration;

use crate::clock::Clock;
use crate::sys;
use crate::{duration_to_i64_ns, duration_to_u64_ns};

/// A timer's id: never 0, unique within its fd and never reused while the
/// fd is open (so a stale id gives `ENOENT`, never another timer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct TimerId(u64);

impl TimerId {
    /// The id of a raw value, e.g. one kept outside this crate. Ids are
    /// only meaningful on the fd that made them.
    pub const fn from_raw(id: u64) -> TimerId {
        TimerId(id)
    }

    /// The raw value, as the ABI's `id` fields hold it.
    pub const fn as_raw(self) -> u64 {
        self.0
    }
}

impl fmt::Display for TimerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl From<TimerId> for u64 {
    fn from(id: TimerId) -> u64 {
        id.0
    }
}

/// When a timer (next) expires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expiry {
    /// This long from now, on the timer's clock. Durations beyond what an
    /// `i64` of nanoseconds holds (292 years) saturate, as the kernel
    /// saturates a relative deadline.
    After(Duration),
    /// At this absolute time, in nanoseconds, on the timer's clock
    /// (`TWHEEL_ABSTIME`; see [`Clock::now`]). Any value: one already past
    /// is due at once.
    At(i64),
}

impl Expiry {
    /// The ABI's `expires_ns` and its `TWHEEL_ABSTIME` flag.
    pub(crate) fn to_raw(self) -> (i64, u32) {
        match self {
            Expiry::After(d) => (duration_to_i64_ns(d), 0),
            Expiry::At(ns) => (ns, sys::TWHEEL_ABSTIME),
        }
    }
}

const fn cos_flag(on: bool) -> u32 {
    if on {
        sys::TWHEEL_CANCEL_ON_SET
    } else {
        0
    }
}

/// What a periodic timer does with the deadlines it missed while its
/// record waited to be read (`TWHEEL_MISSED_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Missed {
    /// One record counting every passed deadline; the next deadline is the
    /// grid's first after the read (timerfd's; the default).
    #[default]
    Count,
    /// One record per deadline, count 1, the missed ones queued one after
    /// another at once (tokio's `Burst`).
    Burst,
    /// Count 1; the next deadline one period after the read (tokio's
    /// `Delay`).
    Delay,
    /// Count 1, the missed deadlines dropped; the next on the grid
    /// (tokio's `Skip`).
    Skip,
}

impl Missed {
    /// Its `TWHEEL_MISSED_*` flag.
    pub const fn as_flags(self) -> u32 {
        match self {
            Missed::Count => sys::TWHEEL_MISSED_COUNT,
            Missed::Burst => sys::TWHEEL_MISSED_BURST,
            Missed::Delay => sys::TWHEEL_MISSED_DELAY,
            Missed::Skip => sys::TWHEEL_MISSED_SKIP,
        }
    }
}

/// A timer to add ([`Twheel::add`](crate::Twheel::add),
/// [`Batch::add`](crate::Batch::add)): its first expiry, its clock
/// (default [`Clock::Monotonic`]), its period (default none: one-shot)
/// and its cookie (default 0), returned in its records.
///
/// ```
/// use std::time::Duration;
/// use twheel::{Clock, Timer};
///
/// let idle = Timer::after(Duration::from_secs(30)).cookie(42);
/// let tick = Timer::after(Duration::ZERO).every(Duration::from_millis(50));
/// let alarm = Timer::at(1_900_000_000_000_000_000).clock(Clock::Realtime);
/// # let _ = (idle, tick, alarm);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timer {
    expiry: Expiry,
    clock: Clock,
    period: Duration,
    missed: Missed,
    cookie: u64,
    cancel_on_set: bool,
}

impl Timer {
    /// A one-shot timer on [`Clock::Monotonic`] with cookie 0.
    pub const fn new(expiry: Expiry) -> Timer {
        Timer {
            expiry,
            clock: Clock::Monotonic,
            period: Duration::ZERO,
            missed: Missed::Count,
            cookie: 0,
            cancel_on_set: false,
        }
    }

    /// A timer that expires `delay` from now.
    pub const fn after(delay: Duration) -> Timer {
        Timer::new(Expiry::After(delay))
    }

    /// A timer that expires at the absolute time `ns` of its clock.
    pub const fn at(ns: i64) -> Timer {
        Timer::new(Expiry::At(ns))
    }

    /// Runs it on `clock`.
    pub const fn clock(mut self, clock: Clock) -> Timer {
        self.clock = clock;
        self
    }

    /// Makes it periodic: after each expiry the next deadline is the
    /// previous one plus `period` (a period shorter than the fd's tick
    /// counts as one tick). `Duration::ZERO` makes it one-shot again.
    pub const fn every(mut self, period: Duration) -> Timer {
        self.period = period;
        self
    }

    /// Sets the cookie its records carry.
    pub const fn cookie(mut self, cookie: u64) -> Timer {
        self.cookie = cookie;
        self
    }

    /// Sets what a periodic timer does with missed deadlines (a policy
    /// other than [`Missed::Count`] on a one-shot timer is `EINVAL`).
    pub const fn missed(mut self, missed: Missed) -> Timer {
        self.missed = missed;
        self
    }

    /// `TWHEEL_CANCEL_ON_SET`: when the wall clock is set while the timer
    /// is pending, it ends with a record whose
    /// [`is_clock_set`](crate::Event::is_clock_set) is true and count 0,
    /// instead of expiring at a deadline that now means another moment
    /// (timerfd's `TFD_TIMER_CANCEL_ON_SET`). Only with an absolute
    /// deadline ([`Timer::at`]) on a wall clock ([`Clock::is_wall`]),
    /// else `EINVAL`.
    pub const fn cancel_on_set(mut self, on: bool) -> Timer {
        self.cancel_on_set = on;
        self
    }

    /// Its expiry, clock and period.
    pub(crate) fn parts(&self) -> (Expiry, Clock, Duration) {
        (self.expiry, self.clock, self.period)
    }

    /// The same timer with another expiry.
    pub(crate) fn with_expiry(mut self, expiry: Expiry) -> Timer {
        self.expiry = expiry;
        self
    }

    /// The `struct twheel_add` that adds it.
    pub fn to_sys(&self) -> sys::twheel_add {
        let (expires_ns, flags) = self.expiry.to_raw();
        sys::twheel_add {
            cookie: self.cookie,
            expires_ns,
            period_ns: duration_to_u64_ns(self.period),
            flags: flags | self.missed.as_flags() | cos_flag(self.cancel_on_set),
            clock: self.clock.as_raw(),
            id: 0,
        }
    }
}

/// A new deadline and period for an existing timer
/// ([`Twheel::modify`](crate::Twheel::modify),
/// [`Batch::modify`](crate::Batch::modify)): afterwards the timer is as if
/// added now with these values, on its own clock, keeping its id, and
/// keeping its cookie unless [`Rearm::cookie`] replaces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rearm {
    expiry: Expiry,
    period: Duration,
    missed: Missed,
    cookie: Option<u64>,
    cancel_on_set: bool,
}

impl Rearm {
    /// Next expiry at `expiry`, one-shot, cookie kept.
    pub const fn new(expiry: Expiry) -> Rearm {
        Rearm {
            expiry,
            period: Duration::ZERO,
            missed: Missed::Count,
            cookie: None,
            cancel_on_set: false,
        }
    }

    /// Next expiry `delay` from now.
    pub const fn after(delay: Duration) -> Rearm {
        Rearm::new(Expiry::After(delay))
    }

    /// Next expiry at the absolute time `ns` of the timer's clock.
    pub const fn at(ns: i64) -> Rearm {
        Rearm::new(Expiry::At(ns))
    }

    /// The new period (`Duration::ZERO`, the default: one-shot).
    pub const fn every(mut self, period: Duration) -> Rearm {
        self.period = period;
        self
    }

    /// Replaces the cookie (`TWHEEL_SET_COOKIE`).
    pub const fn cookie(mut self, cookie: u64) -> Rearm {
        self.cookie = Some(cookie);
        self
    }

    /// The timer's policy for missed deadlines from now on.
    pub const fn missed(mut self, missed: Missed) -> Rearm {
        self.missed = missed;
        self
    }

    /// Whether a wall clock set ends the timer from now on
    /// (`TWHEEL_CANCEL_ON_SET`, as [`Timer::cancel_on_set`]; without it a
    /// modify takes it away). Only with [`Rearm::at`] on a wall clock,
    /// else `EINVAL`.
    pub const fn cancel_on_set(mut self, on: bool) -> Rearm {
        self.cancel_on_set = on;
        self
    }

    /// The `struct twheel_modify` that re-arms timer `id`.
    pub fn to_sys(&self, id: TimerId) -> sys::twheel_modify {
        let (expires_ns, mut flags) = self.expiry.to_raw();
        flags |= self.missed.as_flags() | cos_flag(self.cancel_on_set);
        if self.cookie.is_some() {
            flags |= sys::TWHEEL_SET_COOKIE;
        }
        sys::twheel_modify {
            id: id.as_raw(),
            cookie: self.cookie.unwrap_or(0),
            expires_ns,
            period_ns: duration_to_u64_ns(self.period),
            flags,
            result: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timer_defaults_and_builders() {
        let t = Timer::after(Duration::from_millis(30)).to_sys();
        assert_eq!(
            t,
            sys::twheel_add {
                cookie: 0,
                expires_ns: 30_000_000,
                period_ns: 0,
                flags: 0,
                clock: 1,
                id: 0
            }
        );
        let t = Timer::at(-5)
            .clock(Clock::Tai)
            .every(Duration::from_micros(7))
            .cookie(u64::MAX)
            .to_sys();
        assert_eq!(t.expires_ns, -5);
        assert_eq!(t.flags, sys::TWHEEL_ABSTIME);
        assert_eq!(t.clock, 11);
        assert_eq!(t.period_ns, 7000);
        assert_eq!(t.cookie, u64::MAX);
        // A relative deadline beyond i64 nanoseconds saturates.
        let t = Timer::after(Duration::from_secs(u64::MAX)).to_sys();
        assert_eq!((t.expires_ns, t.flags), (i64::MAX, 0));
    }

    #[test]
    fn rearm_sets_cookie_flag_only_when_asked() {
        let id = TimerId::from_raw(77);
        let m = Rearm::after(Duration::from_secs(1)).to_sys(id);
        assert_eq!(
            m,
            sys::twheel_modify {
                id: 77,
                cookie: 0,
                expires_ns: 1_000_000_000,
                period_ns: 0,
                flags: 0,
                result: 0
            }
        );
        let m = Rearm::at(123)
            .every(Duration::from_nanos(9))
            .cookie(0)
            .to_sys(id);
        assert_eq!(m.flags, sys::TWHEEL_ABSTIME | sys::TWHEEL_SET_COOKIE);
        assert_eq!((m.cookie, m.expires_ns, m.period_ns), (0, 123, 9));
    }

    #[test]
    fn cancel_on_set_flag() {
        let t = Timer::at(5)
            .clock(Clock::RealtimeAlarm)
            .cancel_on_set(true)
            .to_sys();
        assert_eq!(
            (t.flags, t.clock),
            (sys::TWHEEL_ABSTIME | sys::TWHEEL_CANCEL_ON_SET, 8)
        );
        assert_eq!(
            Timer::at(5).cancel_on_set(false).to_sys().flags,
            sys::TWHEEL_ABSTIME
        );
        let id = TimerId::from_raw(3);
        let m = Rearm::at(5).cancel_on_set(true).to_sys(id);
        assert_eq!(m.flags, sys::TWHEEL_ABSTIME | sys::TWHEEL_CANCEL_ON_SET);
        assert_eq!(Rearm::at(5).to_sys(id).flags, sys::TWHEEL_ABSTIME);
    }

    #[test]
    fn timer_id_round_trips() {
        let id = TimerId::from_raw(0x1_0000_0005);
        assert_eq!(id.as_raw(), 0x1_0000_0005);
        assert_eq!(u64::from(id), 0x1_0000_0005);
        assert_eq!(id.to_string(), "4294967301");
    }
}
