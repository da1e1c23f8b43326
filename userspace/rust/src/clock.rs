// SPDX-License-Identifier: LGPL-2.1-or-later
//! Clocks and timer states.

use std::io;
use std::os::raw::{c_int, c_long};

use crate::sys;

/// The clock a timer runs on: one of the four `clockid_t` values twheel
/// takes. Any other clockid is `EINVAL` for the kernel, so the typed API
/// cannot name one (use [`sys`] for raw requests).
///
/// On an fd configured with [`Config::manual`](crate::Config::manual) all
/// four run on the fd's one manual clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Clock {
    /// `CLOCK_REALTIME`: the wall clock; a timer follows changes of it
    /// (its deadline is an absolute wall-clock time, also when given
    /// relative).
    Realtime,
    /// `CLOCK_MONOTONIC`: does not count suspend; the default.
    #[default]
    Monotonic,
    /// `CLOCK_BOOTTIME`: as monotonic, but counts time suspended.
    Boottime,
    /// `CLOCK_TAI`: international atomic time; follows the wall clock.
    Tai,
}

impl Clock {
    /// The four clocks, in the order of their clockid values.
    pub const ALL: [Clock; 4] = [
        Clock::Realtime,
        Clock::Monotonic,
        Clock::Boottime,
        Clock::Tai,
    ];

    /// The clockid (`CLOCK_MONOTONIC` is 1, ...), as the ABI's `clock`
    /// fields hold it.
    pub const fn as_raw(self) -> u32 {
        match self {
            Clock::Realtime => sys::CLOCK_REALTIME,
            Clock::Monotonic => sys::CLOCK_MONOTONIC,
            Clock::Boottime => sys::CLOCK_BOOTTIME,
            Clock::Tai => sys::CLOCK_TAI,
        }
    }

    /// The clock of a clockid, or `None` for one twheel does not take.
    pub const fn from_raw(clockid: u32) -> Option<Clock> {
        match clockid {
            sys::CLOCK_REALTIME => Some(Clock::Realtime),
            sys::CLOCK_MONOTONIC => Some(Clock::Monotonic),
            sys::CLOCK_BOOTTIME => Some(Clock::Boottime),
            sys::CLOCK_TAI => Some(Clock::Tai),
            _ => None,
        }
    }

    /// The clock's present time in nanoseconds (`clock_gettime(2)`), the
    /// base of absolute deadlines ([`Timer::at`](crate::Timer::at)) on a
    /// real-clock fd. Not the time of a manual-clock fd: that is
    /// [`Twheel::manual_now`](crate::Twheel::manual_now).
    // c_long is i64 here, i32 on 32-bit targets: i64::from for both.
    #[allow(clippy::useless_conversion)]
    pub fn now(self) -> io::Result<i64> {
        let mut ts = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: ts is a valid struct timespec for the C library's ABI.
        let ret = unsafe { clock_gettime(self.as_raw() as c_int, &mut ts) };
        if ret < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(i64::from(ts.tv_sec)
            .saturating_mul(1_000_000_000)
            .saturating_add(i64::from(ts.tv_nsec)))
    }
}

/// `struct timespec` of the C library's default ABI (`time_t` is `long`).
#[repr(C)]
struct Timespec {
    tv_sec: c_long,
    tv_nsec: c_long,
}

extern "C" {
    fn clock_gettime(clockid: c_int, ts: *mut Timespec) -> c_int;
}

/// The state of a timer, and the outcome of a cancel or a modify (the
/// state the timer was in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimerState {
    /// `TWHEEL_STATE_PENDING`: its next expiry has not happened yet.
    Pending,
    /// `TWHEEL_STATE_QUEUED`: it expired and its record is unread. As the
    /// outcome of a cancel or modify: that record was retracted, it will
    /// never be read.
    Queued,
}

impl TimerState {
    /// The ABI's value (`TWHEEL_STATE_*`).
    pub const fn as_raw(self) -> u32 {
        match self {
            TimerState::Pending => sys::TWHEEL_STATE_PENDING,
            TimerState::Queued => sys::TWHEEL_STATE_QUEUED,
        }
    }

    /// The state of an ABI value, or `None` for one this version does not
    /// define.
    pub const fn from_raw(state: u32) -> Option<TimerState> {
        match state {
            sys::TWHEEL_STATE_PENDING => Some(TimerState::Pending),
            sys::TWHEEL_STATE_QUEUED => Some(TimerState::Queued),
            _ => None,
        }
    }

    /// As [`TimerState::from_raw`], an unknown value being an
    /// `InvalidData` error.
    pub(crate) fn from_kernel(state: u32) -> io::Result<TimerState> {
        TimerState::from_raw(state).ok_or_else(|| crate::invalid_data("timer state", state as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clockids_are_those_of_time_h() {
        assert_eq!(Clock::Realtime.as_raw(), 0);
        assert_eq!(Clock::Monotonic.as_raw(), 1);
        assert_eq!(Clock::Boottime.as_raw(), 7);
        assert_eq!(Clock::Tai.as_raw(), 11);
        for c in Clock::ALL.iter() {
            assert_eq!(Clock::from_raw(c.as_raw()), Some(*c));
        }
        // CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, ..._RAW,
        // ..._COARSE, ..._ALARM: not twheel's.
        for raw in [2u32, 3, 4, 5, 6, 8, 9, 10, 12, u32::MAX].iter() {
            assert_eq!(Clock::from_raw(*raw), None, "clockid {}", raw);
        }
        assert_eq!(Clock::default(), Clock::Monotonic);
    }

    #[test]
    fn states() {
        assert_eq!(TimerState::from_raw(1), Some(TimerState::Pending));
        assert_eq!(TimerState::from_raw(2), Some(TimerState::Queued));
        assert_eq!(TimerState::from_raw(0), None);
        assert_eq!(TimerState::from_raw(3), None);
        assert_eq!(TimerState::Queued.as_raw(), 2);
        let e = TimerState::from_kernel(9).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn now_moves_forward() {
        for c in Clock::ALL.iter() {
            let a = c.now().unwrap();
            let b = c.now().unwrap();
            assert!(a > 0 && b >= a, "{:?}: {} then {}", c, a, b);
        }
    }
}
