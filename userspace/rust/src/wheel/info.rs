// SPDX-License-Identifier: LGPL-2.1-or-later
//! What the kernel reports: the module's ABI and the fd's state
//! ([`Info`]), one timer's status ([`Status`]).

use std::convert::TryFrom;
use std::io;
use std::time::Duration;

use crate::clock::{Clock, TimerState};
use crate::i64_ns_to_duration;
use crate::sys;
use crate::timer::TimerId;

// Named by the doc comments.
#[cfg(doc)]
use super::Twheel;

/// What `TWHEEL_IOC_INFO` reports: the module's ABI and the fd's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Info {
    /// The module's ABI version (`TWHEEL_ABI_VERSION`).
    pub version: u32,
    /// The size of its records (40).
    pub event_size: u32,
    /// The fd's tick.
    pub tick: Duration,
    /// The most timers the fd may hold.
    pub max_timers: u64,
    /// The timers it holds: pending, plus expired and unread.
    pub timers: u64,
    /// The records queued and unread.
    pub queued: u64,
    /// `TWHEEL_FEATURE_*` bits (see [`Info::has_feature`]).
    pub features: u64,
    /// Bit `_IOC_NR(cmd)` for each command the module knows.
    pub ioctls: u64,
    /// Bit `1 << clockid` for each clock it takes.
    pub clocks: u64,
    /// The shortest tick it accepts.
    pub min_tick: Duration,
    /// The longest tick it accepts.
    pub max_tick: Duration,
    /// Whether the fd's clock is manual (`TWHEEL_CONFIG_MANUAL`).
    pub manual: bool,
    /// The fd's `TWHEEL_CONFIG_*` flags.
    pub config_flags: u32,
    /// The size of a batch operation (72).
    pub op_size: u32,
    /// The size of a timer status (56).
    pub status_size: u32,
    /// The most operations one batch may hold (1024).
    pub max_batch: u32,
    /// The size in bytes of the fd's shared timer table (0: none).
    pub table_size: u64,
    /// The timers the kernel has ended because their table entry said
    /// cancelled when their deadline tick came due, since the fd was
    /// opened (kept as they end: reading it is O(1)).
    pub cancelled: u64,
}

impl Info {
    /// Whether the module has a `TWHEEL_FEATURE_*` feature.
    pub fn has_feature(&self, feature: u64) -> bool {
        self.features & feature == feature
    }

    /// Whether the module takes timers on `clock`.
    pub fn supports_clock(&self, clock: Clock) -> bool {
        self.clocks & (1u64 << clock.as_raw()) != 0
    }

    /// Whether the module knows the command `cmd` (a `sys::TWHEEL_IOC_*`).
    pub fn supports_ioctl(&self, cmd: u32) -> bool {
        self.ioctls & (1u64 << sys::ioc::nr(cmd)) != 0
    }
}

impl From<sys::twheel_info> for Info {
    fn from(i: sys::twheel_info) -> Info {
        Info {
            version: i.version,
            event_size: i.event_size,
            tick: Duration::from_nanos(i.tick_ns),
            max_timers: i.max_timers,
            timers: i.timers,
            queued: i.queued,
            features: i.features,
            ioctls: i.ioctls,
            clocks: i.clocks,
            min_tick: Duration::from_nanos(i.min_tick_ns),
            max_tick: Duration::from_nanos(i.max_tick_ns),
            manual: i.config_flags & sys::TWHEEL_CONFIG_MANUAL != 0,
            config_flags: i.config_flags,
            op_size: i.op_size,
            status_size: i.status_size,
            max_batch: i.max_batch,
            table_size: i.table_size,
            cancelled: i.cancelled,
        }
    }
}

/// One timer, as [`Twheel::query`], [`Twheel::list`] and a batch's query
/// report it. Its values were taken together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Status {
    /// The timer's id.
    pub id: TimerId,
    /// Its cookie.
    pub cookie: u64,
    /// The absolute time, on its clock, of its next expiry not yet
    /// counted: for a one-shot timer its deadline rounded up to the tick,
    /// for a periodic one the exact point of its grid; 0 when none is
    /// coming (a one-shot timer whose record is queued).
    pub deadline_ns: i64,
    /// Its period in effect (`Duration::ZERO`: one-shot).
    pub period: Duration,
    /// The expiries its queued record stands for if it were read now; 0
    /// while pending.
    pub count: u64,
    /// The time until `deadline_ns` (zero when none is coming).
    pub remaining: Duration,
    /// Its clock.
    pub clock: Clock,
    /// Pending, or queued (expired, record unread).
    pub state: TimerState,
}

impl TryFrom<sys::twheel_status> for Status {
    type Error = io::Error;

    /// Fails (`InvalidData`) only on a clock or state this ABI version
    /// does not define.
    fn try_from(s: sys::twheel_status) -> io::Result<Status> {
        Ok(Status {
            id: TimerId::from_raw(s.id),
            cookie: s.cookie,
            deadline_ns: s.deadline_ns,
            period: Duration::from_nanos(s.period_ns),
            count: s.count,
            remaining: i64_ns_to_duration(s.remaining_ns),
            clock: Clock::from_raw(s.clock)
                .ok_or_else(|| crate::invalid_data("clock", s.clock as u64))?,
            state: TimerState::from_kernel(s.state)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_conversion() {
        let raw = sys::twheel_info {
            version: 2,
            event_size: 40,
            tick_ns: 1_000_000,
            config_flags: 1,
            clocks: (1 << 1) | (1 << 7),
            ioctls: 1 << 8,
            features: 0x5,
            ..Default::default()
        };
        let i = Info::from(raw);
        assert!(i.manual);
        assert_eq!(i.tick, Duration::from_millis(1));
        assert!(i.supports_clock(Clock::Monotonic) && i.supports_clock(Clock::Boottime));
        assert!(!i.supports_clock(Clock::Realtime));
        assert!(i.supports_ioctl(sys::TWHEEL_IOC_ADVANCE));
        assert!(!i.supports_ioctl(sys::TWHEEL_IOC_ADD));
        assert!(i.has_feature(sys::TWHEEL_FEATURE_PERIODIC));
        assert!(i.has_feature(sys::TWHEEL_FEATURE_MANUAL_CLOCK));
        assert!(!i.has_feature(sys::TWHEEL_FEATURE_TIMENS));
    }

    #[test]
    fn status_conversion_rejects_unknown_values() {
        let mut s = sys::twheel_status {
            id: 3,
            cookie: 4,
            deadline_ns: 5,
            period_ns: 6,
            count: 7,
            remaining_ns: 8,
            clock: 0,
            state: 2,
        };
        let st = Status::try_from(s).unwrap();
        assert_eq!(st.clock, Clock::Realtime);
        assert_eq!(st.state, TimerState::Queued);
        assert_eq!(
            (st.period, st.remaining),
            (Duration::from_nanos(6), Duration::from_nanos(8))
        );
        s.clock = 4;
        assert_eq!(
            Status::try_from(s).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        s.clock = 1;
        s.state = 0;
        assert_eq!(
            Status::try_from(s).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
    }
}
