// SPDX-License-Identifier: LGPL-2.1-or-later
//! The fd's configuration: [`Config`], what `TWHEEL_IOC_CONFIG` sets.

use std::time::Duration;

use crate::duration_to_u64_ns;
use crate::sys;

// Named by the doc comments.
#[cfg(doc)]
use super::Twheel;
#[cfg(doc)]
use crate::clock::Clock;

/// The fd's configuration ([`Twheel::configure`]): its tick, whether its
/// clock is manual, the most timers it may hold, and whether it has a
/// shared timer table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    tick: Duration,
    manual: bool,
    max_timers: u64,
    clock_set: bool,
    table: bool,
}

impl Config {
    /// The defaults: a 1 ms tick, the real clocks.
    pub const fn new() -> Config {
        Config {
            tick: Duration::from_nanos(sys::TWHEEL_DEFAULT_TICK_NS),
            manual: false,
            max_timers: 0,
            clock_set: false,
            table: false,
        }
    }

    /// The tick: a timer is due when its clock reaches its deadline
    /// rounded up to a multiple of it. 1 us to 1 s, else `EINVAL`.
    pub const fn tick(mut self, tick: Duration) -> Config {
        self.tick = tick;
        self
    }

    /// `TWHEEL_CONFIG_MANUAL`: all the fd's timers, whatever clock they
    /// name, run on one clock that starts at 0 and moves only by
    /// [`Twheel::advance`]. For testing timeout logic without waiting.
    pub const fn manual(mut self, on: bool) -> Config {
        self.manual = on;
        self
    }

    /// The most timers the fd may hold (Netty's `maxPendingTimeouts`), at
    /// most the maximum it was opened with (else `EINVAL`); adds beyond it
    /// fail with `ENOSPC`. 0, the default, is that maximum.
    pub const fn max_timers(mut self, max: u64) -> Config {
        self.max_timers = max;
        self
    }

    /// `TWHEEL_CONFIG_CLOCK_SET`: the fd receives a record each time the
    /// wall clock is set from now on (id 0, cookie 0, clock
    /// [`Clock::Realtime`], [`Event::is_clock_set`](crate::Event::is_clock_set),
    /// count the sets it stands for: at most one is queued at a time). None
    /// on a manual clock.
    pub const fn clock_set(mut self, on: bool) -> Config {
        self.clock_set = on;
        self
    }

    /// `TWHEEL_CONFIG_TABLE`: the fd gets a shared timer table of
    /// `entries` entries, one per timer it may hold, to map with
    /// [`Twheel::map_table`](crate::Twheel::map_table): this sets
    /// [`Config::max_timers`] to `entries` too (0: the maximum the fd was
    /// opened with, the module's `max_timers`, often far more than a
    /// program needs: the table's memory is charged to it as it is used).
    /// Size it for the most timers alive at once, counting those
    /// cancelled by a store, which live until their deadline tick.
    pub const fn table(mut self, entries: u64) -> Config {
        self.table = true;
        self.max_timers = entries;
        self
    }

    /// No shared timer table (the default).
    pub const fn no_table(mut self) -> Config {
        self.table = false;
        self
    }

    /// The `struct twheel_config` that sets it.
    pub fn to_sys(&self) -> sys::twheel_config {
        sys::twheel_config {
            tick_ns: duration_to_u64_ns(self.tick),
            flags: if self.manual {
                sys::TWHEEL_CONFIG_MANUAL
            } else {
                0
            } | if self.max_timers != 0 {
                sys::TWHEEL_CONFIG_MAX_TIMERS
            } else {
                0
            } | if self.clock_set {
                sys::TWHEEL_CONFIG_CLOCK_SET
            } else {
                0
            } | if self.table {
                sys::TWHEEL_CONFIG_TABLE
            } else {
                0
            },
            __reserved: 0,
            max_timers: self.max_timers,
        }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_encoding() {
        assert_eq!(
            Config::new().to_sys(),
            sys::twheel_config {
                tick_ns: 1_000_000,
                flags: 0,
                __reserved: 0,
                max_timers: 0
            }
        );
        let c = Config::default()
            .tick(Duration::from_micros(250))
            .manual(true)
            .to_sys();
        assert_eq!((c.tick_ns, c.flags), (250_000, sys::TWHEEL_CONFIG_MANUAL));
        let c = Config::new().clock_set(true).max_timers(3).to_sys();
        assert_eq!(
            (c.flags, c.max_timers),
            (
                sys::TWHEEL_CONFIG_CLOCK_SET | sys::TWHEEL_CONFIG_MAX_TIMERS,
                3
            )
        );
        assert_eq!(
            Config::new()
                .clock_set(true)
                .clock_set(false)
                .to_sys()
                .flags,
            0
        );
        let c = Config::new().table(4096).to_sys();
        assert_eq!(
            (c.flags, c.max_timers),
            (
                sys::TWHEEL_CONFIG_TABLE | sys::TWHEEL_CONFIG_MAX_TIMERS,
                4096
            )
        );
        let c = Config::new().table(0).to_sys();
        assert_eq!((c.flags, c.max_timers), (sys::TWHEEL_CONFIG_TABLE, 0));
        assert_eq!(
            Config::new().table(5).no_table().to_sys().flags,
            sys::TWHEEL_CONFIG_MAX_TIMERS
        );
    }
}
