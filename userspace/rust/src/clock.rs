// SPDX-License-Identifier: LGPL-2.1-or-later
//! Clocks and timer states.

use std::io;
use std::os::raw::{c_int, c_long};

use crate::sys;

/// The clock a timer runs on: one of the six `clockid_t` values twheel
/// takes. Any other clockid is `EINVAL` for the kernel, so the typed API
/// cannot name one (use [`sys`] for raw requests).
///
/// On an fd configured with [`Config::manual`](crate::Config::manual) all
/// six run on the fd's one manual clock.
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
    /// `CLOCK_REALTIME_ALARM`: reads as [`Clock::Realtime`] and follows
    /// the wall clock; its timers wake the system from suspend. Adding one
    /// needs `CAP_WAKE_ALARM` (`EPERM`).
    RealtimeAlarm,
    /// `CLOCK_BOOTTIME_ALARM`: reads as [`Clock::Boottime`]; its timers
    /// wake the system from suspend. Adding one needs `CAP_WAKE_ALARM`
    /// (`EPERM`).
    BoottimeAlarm,
}

impl Clock {
    /// The four clocks any user may add timers on, in the order of their
    /// clockid values.
    pub const ALL: [Clock; 4] = [
        Clock::Realtime,
        Clock::Monotonic,
        Clock::Boottime,
        Clock::Tai,
    ];

    /// The two alarm clocks, which need `CAP_WAKE_ALARM`.
    pub const ALARMS: [Clock; 2] = [Clock::RealtimeAlarm, Clock::BoottimeAlarm];

    /// Whether `CANCEL_ON_SET` may be asked for on the clock (with an
    /// absolute deadline): the wall clocks.
    pub const fn is_wall(self) -> bool {
        matches!(self, Clock::Realtime | Clock::Tai | Clock::RealtimeAlarm)
    }

    /// The clockid (`CLOCK_MONOTONIC` is 1, ...), as the ABI's `clock`
    /// fields hold it.
    pub const fn as_raw(self) -> u32 {
        match self {
            Clock::Realtime => sys::CLOCK_REALTIME,
            Clock::Monotonic => sys::CLOCK_MONOTONIC,
            Clock::Boottime => sys::CLOCK_BOOTTIME,
            Clock::Tai => sys::CLOCK_TAI,
            Clock::RealtimeAlarm => sys::CLOCK_REALTIME_ALARM,
            Clock::BoottimeAlarm => sys::CLOCK_BOOTTIME_ALARM,
        }
    }

    /// The clock of a clockid, or `None` for one twheel does not take.
    pub const fn from_raw(clockid: u32) -> Option<Clock> {
        match clockid {
            sys::CLOCK_REALTIME => Some(Clock::Realtime),
            sys::CLOCK_MONOTONIC => Some(Clock::Monotonic),
            sys::CLOCK_BOOTTIME => Some(Clock::Boottime),
            sys::CLOCK_TAI => Some(Clock::Tai),
            sys::CLOCK_REALTIME_ALARM => Some(Clock::RealtimeAlarm),
            sys::CLOCK_BOOTTIME_ALARM => Some(Clock::BoottimeAlarm),
            _ => None,
        }
    }

    /// The clock's present time in nanoseconds (`clock_gettime(2)`), the
    /// base of absolute deadlines ([`Timer::at`](crate::Timer::at)) on a
    /// real-clock fd. Not the time of a manual-clock fd: that is
    /// [`Twheel::manual_now`](crate::Twheel::manual_now). An alarm clock
    /// reads as the clock it is the alarm of (`CLOCK_REALTIME`,
    /// `CLOCK_BOOTTIME`), as twheel reads it: `clock_gettime(2)` of the
    /// alarm clocks themselves fails on a machine without a wake-up RTC.
    // c_long is i64 here, i32 on 32-bit targets: i64::from for both.
    #[allow(clippy::useless_conversion)]
    pub fn now(self) -> io::Result<i64> {
        let mut ts = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: ts is a valid struct timespec for the C library's ABI.
        let read = match self {
            Clock::RealtimeAlarm => Clock::Realtime,
            Clock::BoottimeAlarm => Clock::Boottime,
            c => c,
        };
        let ret = unsafe { clock_gettime(read.as_raw() as c_int, &mut ts) };
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
        assert_eq!(Clock::RealtimeAlarm.as_raw(), 8);
        assert_eq!(Clock::BoottimeAlarm.as_raw(), 9);
        for c in Clock::ALL.iter().chain(Clock::ALARMS.iter()) {
            assert_eq!(Clock::from_raw(c.as_raw()), Some(*c));
        }
        // CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, ..._RAW,
        // ..._COARSE, CLOCK_SGI_CYCLE: not twheel's.
        for raw in [2u32, 3, 4, 5, 6, 10, 12, u32::MAX].iter() {
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
    fn wall_clocks() {
        let wall: Vec<Clock> = Clock::ALL
            .iter()
            .chain(Clock::ALARMS.iter())
            .copied()
            .filter(|c| c.is_wall())
            .collect();
        assert_eq!(wall, [Clock::Realtime, Clock::Tai, Clock::RealtimeAlarm]);
    }

    #[test]
    fn now_moves_forward() {
        for c in Clock::ALL.iter().chain(Clock::ALARMS.iter()) {
            let a = c.now().unwrap();
            let b = c.now().unwrap();
            assert!(a > 0 && b >= a, "{:?}: {} then {}", c, a, b);
        }
    }
}
