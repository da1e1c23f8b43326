// SPDX-License-Identifier: LGPL-2.1-or-later
//! The shared timer table (`TWHEEL_CONFIG_TABLE`): a timeout pushed back,
//! or cancelled, by one store into memory shared with the kernel, with no
//! system call.
//!
//! `uapi/linux/twheel.h` ("The shared timer table") has every rule; in
//! short: entry `TWHEEL_TABLE_INDEX(id)` belongs to timer `id`; storing
//! `TWHEEL_TABLE_DEADLINE(id, D)` moves the one-shot timer to tick `D`
//! (later only), storing `TWHEEL_TABLE_CANCELLED(id)` ends it with no
//! record. The kernel reads the entry when the timer's placed deadline
//! tick comes due (and, for a later deadline, when the wheel cascades the
//! timer before it): a store it has not seen by the tick is too late,
//! and the record then comes before the deadline stored
//! ([`Table::expired`] is false for it).

use std::convert::TryFrom;
use std::io;
use std::os::raw::{c_int, c_long, c_void};
use std::os::unix::io::AsRawFd;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::clock::Clock;
use crate::duration_to_i64_ns;
use crate::event::Event;
use crate::sys;
use crate::timer::{Expiry, Timer, TimerId};
use crate::wheel::Twheel;

const PROT_READ: c_int = 1;
const PROT_WRITE: c_int = 2;
const MAP_SHARED: c_int = 1;
const ENODEV: i32 = 19;

extern "C" {
    // off_t of the `mmap` symbol is `long` (mmap64 takes 64 bits); the
    // offset is always 0 here.
    fn mmap(
        addr: *mut c_void,
        len: usize,
        prot: c_int,
        flags: c_int,
        fd: c_int,
        off: c_long,
    ) -> *mut c_void;
    fn munmap(addr: *mut c_void, len: usize) -> c_int;
}

/// The most ticks ahead of the present a stored deadline may be: the
/// kernel reads a stored `D` as the one from `P - 2^31` to `P + 2^31 - 1`.
pub(crate) const TABLE_REACH_TICKS: i64 = (1 << 31) - 1;

/// Deadline `ns` as a tick, rounded up so that the timer never expires
/// before it (libtwheel's `twheel_table_tick()`).
pub(crate) fn ns_to_tick(ns: i64, tick_ns: i64) -> i64 {
    let d = ns / tick_ns;
    // Division truncates towards 0: round up what is left above it.
    if ns % tick_ns > 0 {
        d + 1
    } else {
        d
    }
}

/// A mapping of an fd's table, owned: unmapped on drop. Crate-internal;
/// [`Table`] ties it to its [`Twheel`]'s lifetime, the idle helper owns
/// both.
#[derive(Debug)]
pub(crate) struct Mapping {
    entries: NonNull<AtomicU64>,
    len: usize,
    bytes: usize,
    tick_ns: i64,
    manual: bool,
}

// SAFETY: the mapping is only ever accessed through `AtomicU64`s (shared
// with the kernel and any thread: atomics are Sync), and it is owned:
// unmapped once, by Drop.
unsafe impl Send for Mapping {}
// SAFETY: as above: `&Mapping` gives only atomic loads and stores.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps `wheel`'s whole table, read-write. `ENODEV` (made up here, as
    /// mmap(2) would say it, and as libtwheel's `twheel_table_map()` does)
    /// when the fd has none.
    pub(crate) fn map(wheel: &Twheel) -> io::Result<Mapping> {
        let info = wheel.info()?;
        if info.table_size == 0 {
            return Err(io::Error::from_raw_os_error(ENODEV));
        }
        let bytes = usize::try_from(info.table_size)
            .map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
        // SAFETY: a new shared mapping of the fd at offset 0, of the size
        // the kernel reports; nothing else is touched. The kernel checks
        // every argument.
        let p = unsafe {
            mmap(
                std::ptr::null_mut(),
                bytes,
                PROT_READ | PROT_WRITE,
                MAP_SHARED,
                wheel.as_raw_fd(),
                0,
            )
        };
        if p as isize == -1 {
            return Err(io::Error::last_os_error());
        }
        let entries = match NonNull::new(p as *mut AtomicU64) {
            Some(e) => e,
            None => return Err(io::Error::from(io::ErrorKind::Other)),
        };
        // The table has max_timers entries (the rest of its last page
        // belongs to no timer).
        let len = (bytes / std::mem::size_of::<u64>()).min(info.max_timers as usize);
        Ok(Mapping {
            entries,
            len,
            bytes,
            tick_ns: duration_to_i64_ns(info.tick).max(1),
            manual: info.manual,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn tick_ns(&self) -> i64 {
        self.tick_ns
    }

    /// Timer `id`'s entry. Panics for an index beyond the table (an id of
    /// another fd).
    fn entry(&self, id: TimerId) -> &AtomicU64 {
        let i = sys::twheel_table_index(id.as_raw());
        assert!(
            i < self.len as u64,
            "twheel: timer {} has no entry in this table ({} entries)",
            id,
            self.len
        );
        // SAFETY: i < len, the entries of the mapping (page aligned, so
        // aligned for AtomicU64, which has u64's layout); the mapping
        // lives as long as self. Callers pass only ids this fd gave,
        // whose entries the kernel keeps backed (a page no slot has used
        // would raise SIGBUS).
        unsafe { &*self.entries.as_ptr().add(i as usize) }
    }

    /// One relaxed atomic store (never torn, no fence: the kernel reads
    /// the entry as a plain value once, and orders nothing against it),
    /// as libtwheel's `twheel_table_store()`.
    pub(crate) fn store(&self, id: TimerId, value: u64) {
        self.entry(id).store(value, Ordering::Relaxed);
    }

    pub(crate) fn load(&self, id: TimerId) -> u64 {
        self.entry(id).load(Ordering::Relaxed)
    }

    /// Stores deadline tick `tick` for timer `id`.
    pub(crate) fn push_tick(&self, id: TimerId, tick: i64) {
        self.store(id, sys::twheel_table_deadline(id.as_raw(), tick as u64));
    }

    /// Stores the cancel of timer `id`.
    pub(crate) fn cancel(&self, id: TimerId) {
        self.store(id, sys::twheel_table_cancelled(id.as_raw()));
    }

    /// The present time of `clock` as the fd sees it: the manual clock
    /// (one ioctl) on a manual fd, else `clock_gettime` (vDSO, no system
    /// call).
    pub(crate) fn now(&self, wheel: &Twheel, clock: Clock) -> io::Result<i64> {
        if self.manual {
            wheel.manual_now()
        } else {
            clock.now()
        }
    }

    /// The tick of a deadline `after` from now on `clock`; `InvalidInput`
    /// when it is beyond what the table reaches (2^31 - 1 ticks).
    pub(crate) fn tick_after(
        &self,
        wheel: &Twheel,
        clock: Clock,
        after: Duration,
    ) -> io::Result<i64> {
        let now = self.now(wheel, clock)?;
        let tick = ns_to_tick(now.saturating_add(duration_to_i64_ns(after)), self.tick_ns);
        if tick - now.div_euclid(self.tick_ns) > TABLE_REACH_TICKS {
            return Err(too_far(after, self.tick_ns));
        }
        Ok(tick)
    }

    /// libtwheel's `twheel_table_expired()`: the record's time is at or
    /// after deadline tick `tick`.
    pub(crate) fn expired(&self, ev: &Event, tick: i64) -> bool {
        ev.time_ns() >= tick.saturating_mul(self.tick_ns)
    }

    fn identity(&self) -> usize {
        self.entries.as_ptr() as usize
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping this struct made, unmapped once; every
        // reference into it borrows self, so none outlives it.
        unsafe {
            munmap(self.entries.as_ptr() as *mut c_void, self.bytes);
        }
    }
}

pub(crate) fn too_far(after: Duration, tick_ns: i64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "twheel table: a deadline {:?} ahead is 2^31 ticks ({:?} each) or more: \
             beyond the table's reach, use Twheel::modify (or a coarser tick)",
            after,
            Duration::from_nanos(tick_ns as u64)
        ),
    )
}

/// An fd's shared timer table, mapped (`mmap(2)`, read-write, shared):
/// [`Twheel::map_table`]. Unmapped when dropped; it borrows the
/// [`Twheel`], so it cannot outlive the timer set.
///
/// The fd must have been configured with a table
/// ([`Config::table`](crate::Config::table)) before its first timer;
/// once mapped its configuration is fixed (`EBUSY`).
///
/// Timers bound to an entry ([`Table::add`], [`Table::bind`]) are
/// [`TableTimer`]s, which keep the deadline tick last stored; pushing
/// one back or cancelling it is one store, no system call (on a manual
/// clock, [`Table::push`] reads the clock with an ioctl).
///
/// ```no_run
/// use std::time::Duration;
/// use twheel::{Config, EventBuf, Timer, Twheel};
///
/// # fn main() -> std::io::Result<()> {
/// let wheel = Twheel::open_nonblocking()?;
/// wheel.configure(&Config::new().table(1024))?;
/// let table = wheel.map_table()?;
/// let idle = Duration::from_secs(30);
/// let mut t = table.add(&Timer::after(idle).cookie(7))?;
/// table.push(&mut t, idle)?; // activity: one store
/// let mut buf = EventBuf::new(64);
/// for ev in wheel.events(&mut buf) {
///     let ev = ev?;
///     if ev.id() == t.id() && !table.expired(&t, &ev) {
///         // The push came too late: add it again for the rest.
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Table<'a> {
    map: Mapping,
    wheel: &'a Twheel,
}

/// A one-shot timer bound to its entry of a [`Table`]: its id, its clock
/// and the deadline tick last stored for it (by the add, or a push).
///
/// Made only by [`Table::add`] and [`Table::bind`], so its entry is
/// always one the kernel backs; using it with another table panics.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableTimer {
    id: TimerId,
    clock: Clock,
    tick: i64,
    table: usize,
}

impl TableTimer {
    /// The timer's id.
    pub fn id(&self) -> TimerId {
        self.id
    }

    /// Its clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// The deadline tick last stored for it (the time `tick * tick_ns`
    /// on its clock).
    pub fn tick(&self) -> i64 {
        self.tick
    }
}

impl<'a> Table<'a> {
    /// Maps the table of `wheel` (as [`Twheel::map_table`]). `ENODEV` when
    /// the fd has none.
    pub fn map(wheel: &'a Twheel) -> io::Result<Table<'a>> {
        Ok(Table {
            map: Mapping::map(wheel)?,
            wheel,
        })
    }

    /// Its entries: the most timers the fd may hold.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it has no entry (never: a table has at least one).
    pub fn is_empty(&self) -> bool {
        self.map.len() == 0
    }

    /// The fd's tick, the unit of stored deadlines.
    pub fn tick(&self) -> Duration {
        Duration::from_nanos(self.map.tick_ns() as u64)
    }

    /// The tick of absolute time `ns`, rounded up (the timer never
    /// expires before `ns`): libtwheel's `twheel_table_tick()`.
    pub fn tick_of(&self, ns: i64) -> i64 {
        ns_to_tick(ns, self.map.tick_ns())
    }

    fn check(&self, t: &TableTimer) {
        assert!(
            t.table == self.map.identity(),
            "twheel: timer {} belongs to another table",
            t.id
        );
    }

    /// Adds a one-shot timer (`TWHEEL_IOC_ADD`) bound to its entry. Its
    /// deadline is made absolute here, rounded up to a tick (a relative
    /// one from the present time of its clock), so that the tick is
    /// known; the kernel stores it in the entry. A periodic timer is
    /// `InvalidInput` (it ignores stored deadlines); errors as
    /// [`Twheel::add`].
    pub fn add(&self, timer: &Timer) -> io::Result<TableTimer> {
        let (expiry, clock, period) = timer.parts();
        if period != Duration::ZERO {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "twheel table: a periodic timer ignores stored deadlines: add it with Twheel::add",
            ));
        }
        let tick = match expiry {
            Expiry::After(d) => self.map.tick_after(self.wheel, clock, d)?,
            Expiry::At(ns) => self.tick_of(ns),
        };
        let id = self
            .wheel
            .add(&timer.with_expiry(Expiry::At(tick.saturating_mul(self.map.tick_ns()))))?;
        Ok(TableTimer {
            id,
            clock,
            tick,
            table: self.map.identity(),
        })
    }

    /// Binds an existing timer of this fd to its entry (e.g. one added in
    /// a [`Batch`](crate::Batch)): one `TWHEEL_IOC_QUERY` for its clock and
    /// deadline. `ENOENT` when the fd holds no such timer.
    pub fn bind(&self, id: TimerId) -> io::Result<TableTimer> {
        let st = self.wheel.query(id)?;
        Ok(TableTimer {
            id,
            clock: st.clock,
            // deadline_ns is rounded up to the tick: exact.
            tick: self.tick_of(st.deadline_ns),
            table: self.map.identity(),
        })
    }

    /// Activity: the timer's deadline becomes `after` from now (on its
    /// clock), rounded up to a tick: one store, no system call (the clock
    /// is read through the vDSO; on a manual clock with an ioctl).
    /// `InvalidInput` for a deadline 2^31 ticks or more ahead, which the
    /// table cannot hold (use [`Twheel::modify`]).
    pub fn push(&self, t: &mut TableTimer, after: Duration) -> io::Result<()> {
        self.check(t);
        let tick = self.map.tick_after(self.wheel, t.clock, after)?;
        self.map.push_tick(t.id, tick);
        t.tick = tick;
        Ok(())
    }

    /// The timer's deadline becomes absolute time `deadline_ns` on its
    /// clock, rounded up to a tick: one store. Only later than the
    /// deadline it is placed for takes effect (an earlier one takes
    /// [`Twheel::modify`]), and less than 2^31 ticks after the time the
    /// kernel reads the entry (else it is read as another tick: see
    /// `TWHEEL_TABLE_DEADLINE` in the header).
    pub fn push_at(&self, t: &mut TableTimer, deadline_ns: i64) {
        self.check(t);
        let tick = self.tick_of(deadline_ns);
        self.map.push_tick(t.id, tick);
        t.tick = tick;
    }

    /// Cancels the timer lazily, by one store: it ends with no record
    /// when its deadline tick comes due, and counts as a live timer (in
    /// [`Info::timers`](crate::Info::timers), against the maximum) until
    /// then. A record queued before the store (the store too late) is
    /// still read: drop it. A later push overwrites the cancel.
    pub fn cancel(&self, t: &TableTimer) {
        self.check(t);
        self.map.cancel(t.id);
    }

    /// Whether record `ev` (of timer `t`) is a real expiry: its time is
    /// at or after the deadline tick last stored for `t`. False when the
    /// last push came too late for the kernel to read it: the one-shot
    /// timer ended with this record all the same (add it again for the
    /// rest of its time). libtwheel's `twheel_table_expired()`.
    pub fn expired(&self, t: &TableTimer, ev: &Event) -> bool {
        self.map.expired(ev, t.tick)
    }

    /// The timer's entry as it is now (a relaxed load): what was last
    /// stored, by the program or by the kernel (`TWHEEL_TABLE_DEADLINE`
    /// on add and modify, 0 when the timer ended).
    pub fn load(&self, t: &TableTimer) -> u64 {
        self.check(t);
        self.map.load(t.id)
    }
}

impl Twheel {
    /// Maps the fd's shared timer table: see [`Table`]. `ENODEV` when it
    /// has none ([`Config::table`](crate::Config::table) before the first
    /// timer).
    pub fn map_table(&self) -> io::Result<Table<'_>> {
        Table::map(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_round_up() {
        assert_eq!(ns_to_tick(0, 1000), 0);
        assert_eq!(ns_to_tick(1, 1000), 1);
        assert_eq!(ns_to_tick(999, 1000), 1);
        assert_eq!(ns_to_tick(1000, 1000), 1);
        assert_eq!(ns_to_tick(1001, 1000), 2);
        // Negative times round up too (towards 0).
        assert_eq!(ns_to_tick(-1, 1000), 0);
        assert_eq!(ns_to_tick(-1000, 1000), -1);
        assert_eq!(ns_to_tick(-1001, 1000), -1);
        assert_eq!(ns_to_tick(i64::MAX, 1), i64::MAX);
    }

    #[test]
    fn entry_values() {
        let id = 0x0000_0006_0000_0003u64;
        assert_eq!(sys::twheel_table_index(id), 2);
        assert_eq!(
            sys::twheel_table_deadline(id, (-1i64) as u64),
            0x0000_0006_ffff_ffff
        );
        assert_eq!(sys::twheel_table_cancelled(id), 0x0000_0007_0000_0000);
    }
}
