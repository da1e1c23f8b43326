// SPDX-License-Identifier: LGPL-2.1-or-later
//! Idle timeouts over the shared timer table: a connection's timeout is
//! pushed back by one store on each activity, and only real expiries come
//! out (as libtwheel's `twheel_idle_*`, over the ABI directly).

use std::convert::TryFrom;
use std::io;
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::time::Duration;

use crate::clock::Clock;
use crate::duration_to_i64_ns;
use crate::event::{Event, EventBuf};
use crate::sys;
use crate::table::{too_far, Mapping, TABLE_REACH_TICKS};
use crate::timer::{Timer, TimerId};
use crate::wheel::{Config, Twheel};

/// A connection tracked by [`IdleTimeouts`]: what [`IdleTimeouts::add`]
/// returns, for [`IdleTimeouts::touch`] and [`IdleTimeouts::remove`].
/// Once its connection expired or was removed, the handle is stale: it
/// acts on nothing, even when its place is reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IdleHandle {
    slot: u32,
    gen: u32,
}

/// One connection's place: its live timer (0: the place is free), the
/// deadline tick last stored for it, the caller's cookie, and the
/// generation that makes stale handles miss.
#[derive(Clone, Copy, Debug)]
struct Slot {
    id: u64,
    tick: i64,
    cookie: u64,
    gen: u32,
}

/// How to open an [`IdleTimeouts`]: [`IdleTimeouts::options`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleOptions {
    timeout: Duration,
    max_connections: u64,
    headroom: u64,
    tick: Duration,
    manual: bool,
}

impl IdleOptions {
    /// How many removed connections' timers may wait for their deadline
    /// tick to end (a cancel by one store, lazily) before
    /// [`IdleTimeouts::remove`] cancels with `TWHEEL_IOC_CANCEL` instead
    /// (one ioctl); the table has `max_connections + headroom` entries.
    /// Default: `max_connections` (0 is that too).
    pub fn headroom(mut self, headroom: u64) -> IdleOptions {
        self.headroom = headroom;
        self
    }

    /// The fd's tick (default 1 ms): deadlines are rounded up to it, and
    /// connections idle in the same tick expire together.
    pub fn tick(mut self, tick: Duration) -> IdleOptions {
        self.tick = tick;
        self
    }

    /// A manual clock ([`Config::manual`]), moved by
    /// [`Twheel::advance`] on [`IdleTimeouts::wheel`]: for tests.
    pub fn manual(mut self, on: bool) -> IdleOptions {
        self.manual = on;
        self
    }

    /// Opens `/dev/twheel` (non-blocking) with a table sized for the
    /// connections and the headroom, and maps it. Errors: those of
    /// [`Twheel::open`] (with what to do), `InvalidInput` for no
    /// connections or a timeout of 2^31 ticks or more (24.8 days at
    /// 1 ms), `EINVAL` for more timers than the module allows (its
    /// `max_timers` parameter), `EOPNOTSUPP` for a module without the
    /// table.
    pub fn open(&self) -> io::Result<IdleTimeouts> {
        if self.max_connections == 0 || self.max_connections > u64::from(u32::MAX) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "twheel idle: max_connections must be 1 to 2^32 - 1",
            ));
        }
        let headroom = if self.headroom == 0 {
            self.max_connections
        } else {
            self.headroom
        };
        let wheel = Twheel::open_nonblocking()?;
        if !wheel.info()?.has_feature(sys::TWHEEL_FEATURE_TABLE) {
            return Err(io::Error::from_raw_os_error(EOPNOTSUPP));
        }
        let entries = self.max_connections.saturating_add(headroom);
        wheel.configure(
            &Config::new()
                .tick(self.tick)
                .manual(self.manual)
                .table(entries),
        )?;
        let map = Mapping::map(&wheel)?;
        let timeout_ns = duration_to_i64_ns(self.timeout);
        // The deadline of a touch is now + timeout rounded up: up to two
        // ticks more than the timeout from the present tick.
        if timeout_ns / map.tick_ns() >= TABLE_REACH_TICKS - 2 {
            return Err(too_far(self.timeout, map.tick_ns()));
        }
        Ok(IdleTimeouts {
            map,
            wheel,
            timeout: self.timeout,
            max_connections: self.max_connections as usize,
            headroom,
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
            readded: 0,
            stores: 0,
            dropped: 0,
            cancelled: 0,
            buf: EventBuf::new(256),
        })
    }
}

/// Per-connection idle timeouts on one twheel fd with a shared timer
/// table: [`add`](IdleTimeouts::add) a connection,
/// [`touch`](IdleTimeouts::touch) it on activity (one store into the
/// table: no system call on the real clock),
/// [`remove`](IdleTimeouts::remove) it when it closes (one store), and
/// [`drain`](IdleTimeouts::drain) the connections idle for the whole
/// timeout when the fd is readable. The same tracker as libtwheel's
/// `twheel_idle_*`, over the ABI directly.
///
/// What the table leaves to a program, it does here: it keeps each
/// connection's stored deadline tick; a record that came before it (a
/// push too late for the kernel) re-adds the timer for the rest of the
/// time instead of being reported; a record of a removed connection
/// (queued before its cancel store) is dropped. So every connection
/// [`drain`](IdleTimeouts::drain) yields was idle for the timeout (never
/// early), once, and every idle one is yielded; a removed one never is.
///
/// Timers run on `CLOCK_MONOTONIC` (or the fd's manual clock). A removed
/// connection's timer, cancelled by a store, keeps its entry until its
/// deadline tick (the kernel ends it there): the table has room for
/// `headroom` of them, beyond which [`remove`](IdleTimeouts::remove)
/// cancels with an ioctl, so the table never fills up.
///
/// ```no_run
/// use std::time::Duration;
/// use twheel::IdleTimeouts;
///
/// # fn main() -> std::io::Result<()> {
/// let mut idle = IdleTimeouts::open(Duration::from_secs(30), 10_000)?;
/// let conn = idle.add(42)?;      // accept: the cookie names the connection
/// idle.touch(conn)?;             // data: one store
/// // ... poll(2)/epoll on idle's fd; readable:
/// for cookie in idle.drain() {
///     println!("connection {} idle for 30 s: close it", cookie?);
/// }
/// idle.remove(conn)?;            // closed by the peer: one store
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct IdleTimeouts {
    map: Mapping,
    wheel: Twheel,
    timeout: Duration,
    max_connections: usize,
    headroom: u64,
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
    readded: u64,
    // Lazy cancels: stored, their records dropped, ended by the kernel
    // (INFO's cancelled, as last read).
    stores: u64,
    dropped: u64,
    cancelled: u64,
    buf: EventBuf,
}

const CLOCK: Clock = Clock::Monotonic;
const ENOSPC: i32 = 28;
#[cfg(not(any(
    target_arch = "mips",
    target_arch = "mips64",
    target_arch = "sparc",
    target_arch = "sparc64"
)))]
const EOPNOTSUPP: i32 = 95;
#[cfg(any(target_arch = "mips", target_arch = "mips64"))]
const EOPNOTSUPP: i32 = 122;
#[cfg(any(target_arch = "sparc", target_arch = "sparc64"))]
const EOPNOTSUPP: i32 = 45;

impl IdleTimeouts {
    /// A tracker of up to `max_connections` connections idle after
    /// `timeout`, on the real clock, 1 ms tick, with `max_connections` of
    /// headroom (see [`IdleOptions::open`] for the errors).
    pub fn open(timeout: Duration, max_connections: u64) -> io::Result<IdleTimeouts> {
        IdleTimeouts::options(timeout, max_connections).open()
    }

    /// Options: [`IdleOptions::headroom`], [`IdleOptions::tick`],
    /// [`IdleOptions::manual`], then [`IdleOptions::open`].
    pub fn options(timeout: Duration, max_connections: u64) -> IdleOptions {
        IdleOptions {
            timeout,
            max_connections,
            headroom: 0,
            tick: Duration::from_nanos(sys::TWHEEL_DEFAULT_TICK_NS),
            manual: false,
        }
    }

    /// Removed connections' timers cancelled by a store and not yet ended
    /// (as far as known here: an upper bound).
    fn lingering(&self) -> u64 {
        self.stores.saturating_sub(self.dropped + self.cancelled)
    }

    fn slot(&self, h: IdleHandle) -> Option<&Slot> {
        self.slots
            .get(h.slot as usize)
            .filter(|s| s.gen == h.gen && s.id != 0)
    }

    fn release(&mut self, i: u32) {
        let s = &mut self.slots[i as usize];
        s.id = 0;
        s.gen = s.gen.wrapping_add(1);
        self.free.push(i);
        self.live -= 1;
    }

    /// Adds a timer for slot `i` at deadline tick `tick` (absolute, so
    /// the tick is exact).
    fn arm(&mut self, i: u32, tick: i64) -> io::Result<()> {
        let at = tick.saturating_mul(self.map.tick_ns());
        let id = self
            .wheel
            .add(&Timer::at(at).clock(CLOCK).cookie(u64::from(i)))?;
        let s = &mut self.slots[i as usize];
        s.id = id.as_raw();
        s.tick = tick;
        Ok(())
    }

    /// A new connection, named by `cookie` (what [`drain`](Self::drain)
    /// yields when it was idle for the timeout): its timer, one ioctl.
    /// `ENOSPC` when `max_connections` are tracked.
    pub fn add(&mut self, cookie: u64) -> io::Result<IdleHandle> {
        if self.live >= self.max_connections {
            return Err(io::Error::from_raw_os_error(ENOSPC));
        }
        let tick = self.map.tick_after(&self.wheel, CLOCK, self.timeout)?;
        let i = match self.free.pop() {
            Some(i) => i,
            None => {
                let i = u32::try_from(self.slots.len())
                    .map_err(|_| io::Error::from_raw_os_error(ENOSPC))?;
                self.slots.push(Slot {
                    id: 0,
                    tick: 0,
                    cookie: 0,
                    gen: 0,
                });
                i
            }
        };
        self.slots[i as usize].cookie = cookie;
        if let Err(e) = self.arm(i, tick) {
            self.free.push(i);
            return Err(e);
        }
        self.live += 1;
        Ok(IdleHandle {
            slot: i,
            gen: self.slots[i as usize].gen,
        })
    }

    /// Activity on the connection: its deadline becomes the timeout from
    /// now, by one store into the table (no system call on the real
    /// clock; the manual clock is read with an ioctl). `Ok(false)` for a
    /// stale handle (the connection expired or was removed).
    pub fn touch(&mut self, h: IdleHandle) -> io::Result<bool> {
        let id = match self.slot(h) {
            Some(s) => s.id,
            None => return Ok(false),
        };
        let tick = self.map.tick_after(&self.wheel, CLOCK, self.timeout)?;
        self.map.push_tick(TimerId::from_raw(id), tick);
        self.slots[h.slot as usize].tick = tick;
        Ok(true)
    }

    /// The connection closed: it is forgotten, its timer cancelled by one
    /// store (it ends with no record at its deadline tick, holding its
    /// table entry until then); a record of it already queued is dropped
    /// by [`drain`](Self::drain). When `headroom` such timers may still
    /// be waiting, it reads INFO's count of those ended, and if there is
    /// still no room, cancels with `TWHEEL_IOC_CANCEL` (then the handle
    /// stays tracked if that fails). `Ok(false)` for a stale handle.
    pub fn remove(&mut self, h: IdleHandle) -> io::Result<bool> {
        let id = match self.slot(h) {
            Some(s) => TimerId::from_raw(s.id),
            None => return Ok(false),
        };
        if self.lingering() >= self.headroom {
            self.cancelled = self.wheel.info()?.cancelled;
        }
        if self.lingering() >= self.headroom {
            self.wheel.cancel(id)?; // a queued record retracted too
        } else {
            self.map.cancel(id);
            self.stores += 1;
        }
        self.release(h.slot);
        Ok(true)
    }

    /// The connections idle for the whole timeout, as the fd's records
    /// tell (reads until none is queued: call it when the fd is
    /// readable). Each is yielded once and forgotten (its handle goes
    /// stale). Records of pushes that came too late re-add the timer at
    /// the deadline stored (one ioctl), records of removed connections
    /// are dropped: neither is yielded.
    pub fn drain(&mut self) -> IdleDrain<'_> {
        IdleDrain { idle: self }
    }

    /// What record `ev` means: a connection idle (its cookie), or nothing.
    fn on_record(&mut self, ev: &Event) -> io::Result<Option<u64>> {
        let i = match u32::try_from(ev.cookie()) {
            Ok(i) if (i as usize) < self.slots.len() => i,
            _ => return Ok(None),
        };
        let s = self.slots[i as usize];
        if ev.id().as_raw() == 0 || s.id != ev.id().as_raw() {
            // Removed: queued before its cancel store.
            self.dropped += 1;
            return Ok(None);
        }
        if self.map.expired(ev, s.tick) {
            self.release(i);
            return Ok(Some(s.cookie));
        }
        // Before the deadline stored: the push came too late, the
        // one-shot timer ended with this record. A new one, at that
        // deadline.
        self.readded += 1;
        if let Err(e) = self.arm(i, s.tick) {
            self.release(i);
            return Err(io::Error::new(
                e.kind(),
                format!(
                    "twheel idle: re-adding the timer of connection {} (cookie) after a late push, \
                     the connection is no longer tracked: {}",
                    s.cookie, e
                ),
            ));
        }
        Ok(None)
    }

    /// The connections tracked.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether none is tracked.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The cookie of a tracked connection (`None`: stale handle).
    pub fn cookie(&self, h: IdleHandle) -> Option<u64> {
        self.slot(h).map(|s| s.cookie)
    }

    /// The connection's deadline as last stored, in ns of
    /// `CLOCK_MONOTONIC` (or the manual clock): a multiple of the tick.
    pub fn deadline_ns(&self, h: IdleHandle) -> Option<i64> {
        self.slot(h)
            .map(|s| s.tick.saturating_mul(self.map.tick_ns()))
    }

    /// How many timers were added again because a push came too late for
    /// the kernel (records not yielded), since it was opened.
    pub fn late_pushes(&self) -> u64 {
        self.readded
    }

    /// How many records of removed connections (queued before their
    /// cancel store) were dropped, since it was opened.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Waits until the fd is readable ([`Twheel::wait`]): then call
    /// [`drain`](Self::drain). For a program with no event loop (else
    /// register [`AsRawFd::as_raw_fd`] with it).
    pub fn wait(&self, timeout: Option<Duration>) -> io::Result<bool> {
        self.wheel.wait(timeout)
    }

    /// The fd: for its [`info`](Twheel::info), or, on a manual clock,
    /// [`advance`](Twheel::advance). Reading records from it directly
    /// would bypass [`drain`](Self::drain).
    pub fn wheel(&self) -> &Twheel {
        &self.wheel
    }
}

impl AsFd for IdleTimeouts {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.wheel.as_fd()
    }
}

impl AsRawFd for IdleTimeouts {
    fn as_raw_fd(&self) -> RawFd {
        self.wheel.as_raw_fd()
    }
}

/// The iterator of [`IdleTimeouts::drain`]: the cookies of connections
/// idle for the timeout; ends when no record is queued. An error (of a
/// read, or of a re-add) is yielded and the iteration may go on.
#[derive(Debug)]
pub struct IdleDrain<'a> {
    idle: &'a mut IdleTimeouts,
}

impl Iterator for IdleDrain<'_> {
    type Item = io::Result<u64>;

    fn next(&mut self) -> Option<io::Result<u64>> {
        loop {
            let ev = match self.idle.wheel.events(&mut self.idle.buf).next()? {
                Ok(ev) => ev,
                Err(e) => return Some(Err(e)),
            };
            match self.idle.on_record(&ev) {
                Ok(Some(cookie)) => return Some(Ok(cookie)),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}
