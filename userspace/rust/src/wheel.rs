// SPDX-License-Identifier: LGPL-2.1-or-later
//! The file descriptor: opening, configuring, timers, records.

use std::convert::TryFrom;
use std::fs::File;
use std::io;
use std::mem::size_of;
use std::os::raw::{c_int, c_void};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::batch::Batch;
use crate::clock::{Clock, TimerState};
use crate::error::OpenError;
use crate::event::{Event, EventBuf, Events};
use crate::sys;
use crate::timer::{Rearm, Timer, TimerId};
use crate::{duration_to_u64_ns, i64_ns_to_duration};

/// Architecture-dependent constants of Linux's C ABI.
#[cfg(any(target_arch = "mips", target_arch = "mips64"))]
pub(crate) mod arch {
    pub const O_NONBLOCK: i32 = 0x80;
    pub const EPROTO: i32 = 134;
}
#[cfg(any(target_arch = "sparc", target_arch = "sparc64"))]
pub(crate) mod arch {
    pub const O_NONBLOCK: i32 = 0x4000;
    pub const EPROTO: i32 = 86;
}
#[cfg(not(any(
    target_arch = "mips",
    target_arch = "mips64",
    target_arch = "sparc",
    target_arch = "sparc64"
)))]
pub(crate) mod arch {
    pub const O_NONBLOCK: i32 = 0o4000;
    pub const EPROTO: i32 = 71;
}
const F_GETFL: c_int = 3;
const F_SETFL: c_int = 4;

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: i16,
    revents: i16,
}
const POLLIN: i16 = 0x1;

extern "C" {
    fn fcntl(fd: c_int, cmd: c_int, ...) -> c_int;
    fn read(fd: c_int, buf: *mut c_void, count: usize) -> isize;
    fn poll(fds: *mut PollFd, nfds: std::os::raw::c_ulong, timeout: c_int) -> c_int;
}

/// How to open `/dev/twheel`: [`Twheel::options`].
#[derive(Clone, Debug)]
pub struct OpenOptions {
    path: PathBuf,
    nonblocking: bool,
    handshake: bool,
}

impl OpenOptions {
    /// `/dev/twheel`, blocking, with the ABI handshake.
    pub fn new() -> OpenOptions {
        OpenOptions {
            path: PathBuf::from(Twheel::PATH),
            nonblocking: false,
            handshake: true,
        }
    }

    /// Opens another device node instead of `/dev/twheel`.
    pub fn path<P: AsRef<Path>>(&mut self, path: P) -> &mut OpenOptions {
        self.path = path.as_ref().to_path_buf();
        self
    }

    /// Opens it `O_NONBLOCK`: reads with nothing queued fail with
    /// `EAGAIN` ([`io::ErrorKind::WouldBlock`]) instead of waiting; what
    /// poll/epoll-driven loops (tokio's `AsyncFd`, mio) need.
    pub fn nonblocking(&mut self, on: bool) -> &mut OpenOptions {
        self.nonblocking = on;
        self
    }

    /// Whether [`OpenOptions::open`] checks the module's ABI version
    /// (default: yes).
    pub fn handshake(&mut self, on: bool) -> &mut OpenOptions {
        self.handshake = on;
        self
    }

    /// Opens it (read-write, close-on-exec). With the handshake, a module
    /// whose ABI version is not [`sys::TWHEEL_ABI_VERSION`] fails with
    /// `EPROTO` (the fd is closed), as libtwheel's `twheel_open` does.
    ///
    /// The error says what failed and what to do ([`OpenError`]: e.g.
    /// `ENOENT`, the module is not loaded: `modprobe twheel`), and keeps
    /// the errno ([`OpenError::raw_os_error`]); `?` turns it into an
    /// [`io::Error`] of the same kind and message.
    pub fn open(&self) -> Result<Twheel, OpenError> {
        let mut o = std::fs::OpenOptions::new();
        o.read(true).write(true);
        if self.nonblocking {
            o.custom_flags(arch::O_NONBLOCK);
        }
        let file = o
            .open(&self.path)
            .map_err(|e| OpenError::new(&self.path, e))?;
        let wheel = Twheel {
            fd: OwnedFd::from(file),
        };
        if self.handshake {
            let v = wheel
                .info()
                .map_err(|e| OpenError::new(&self.path, e))?
                .version;
            if v != sys::TWHEEL_ABI_VERSION {
                return Err(OpenError::version(&self.path, v));
            }
        }
        Ok(wheel)
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}

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

/// An open `/dev/twheel`: one timer set.
///
/// All methods take `&self`: the kernel serialises calls on one fd, so a
/// `Twheel` may be shared between threads (it is `Send` and `Sync`). It
/// closes the fd when dropped, ending every timer in it.
///
/// For event loops: the fd is readable (`EPOLLIN`) exactly while a record
/// is queued; register [`AsRawFd::as_raw_fd`] or [`AsFd::as_fd`] with
/// epoll, mio or tokio's `AsyncFd` on an fd opened
/// [`nonblocking`](OpenOptions::nonblocking), and call
/// [`Twheel::read_events`] (or iterate [`Twheel::events`]) until
/// `WouldBlock`.
#[derive(Debug)]
pub struct Twheel {
    fd: OwnedFd,
}

impl Twheel {
    /// The device node.
    pub const PATH: &'static str = "/dev/twheel";

    /// Opens `/dev/twheel`, blocking, with the ABI handshake (`EPROTO`
    /// for a module of another ABI version). The error says what to do
    /// (see [`OpenError`]).
    pub fn open() -> Result<Twheel, OpenError> {
        OpenOptions::new().open()
    }

    /// Opens `/dev/twheel` `O_NONBLOCK`, with the handshake.
    pub fn open_nonblocking() -> Result<Twheel, OpenError> {
        OpenOptions::new().nonblocking(true).open()
    }

    /// Options for opening it another way.
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// Opens a non-blocking fd on a manual clock with this tick: the
    /// timer set of a unit test of timeout logic.
    pub fn open_manual(tick: Duration) -> io::Result<Twheel> {
        let wheel = Twheel::open_nonblocking()?;
        wheel.configure(&Config::new().tick(tick).manual(true))?;
        Ok(wheel)
    }

    fn ioctl<T>(&self, cmd: u32, arg: &mut T) -> io::Result<c_int> {
        debug_assert_eq!(sys::ioc::size(cmd) as usize, size_of::<T>());
        // SAFETY: every caller passes the struct of the command (whose
        // size is in cmd: asserted above), holding no user pointer but
        // those submit and list_page set up themselves.
        unsafe { sys::ioctl(self.fd.as_raw_fd(), cmd, arg as *mut T as *mut c_void) }
    }

    /// `TWHEEL_IOC_INFO`: the module's ABI and the fd's state.
    pub fn info(&self) -> io::Result<Info> {
        let mut info = sys::twheel_info::default();
        self.ioctl(sys::TWHEEL_IOC_INFO, &mut info)?;
        Ok(Info::from(info))
    }

    /// `TWHEEL_IOC_CONFIG`: sets the tick and the manual clock. Only
    /// before the fd's first timer (`EBUSY` after, even once it is
    /// gone); `EINVAL` for a tick outside 1 us to 1 s.
    pub fn configure(&self, config: &Config) -> io::Result<()> {
        let mut c = config.to_sys();
        self.ioctl(sys::TWHEEL_IOC_CONFIG, &mut c).map(drop)
    }

    /// `TWHEEL_IOC_ADD`: schedules a timer; returns its id.
    ///
    /// A timer whose deadline tick has already been reached is queued
    /// before this returns. Errors: `ENOSPC` at the fd's or the user's
    /// limit of timers, `ENOMEM` (also at the memory cgroup's limit);
    /// no timer is created then.
    pub fn add(&self, timer: &Timer) -> io::Result<TimerId> {
        let mut a = timer.to_sys();
        self.ioctl(sys::TWHEEL_IOC_ADD, &mut a)?;
        Ok(TimerId::from_raw(a.id))
    }

    /// `TWHEEL_IOC_MODIFY`: re-arms timer `id` in one step, atomically
    /// against its expiry; returns the state it was in
    /// ([`TimerState::Queued`]: its unread record was retracted).
    /// `ENOENT` when the fd holds no such timer.
    pub fn modify(&self, id: TimerId, rearm: &Rearm) -> io::Result<TimerState> {
        let mut m = rearm.to_sys(id);
        self.ioctl(sys::TWHEEL_IOC_MODIFY, &mut m)?;
        TimerState::from_kernel(m.result)
    }

    /// `TWHEEL_IOC_CANCEL`: cancels timer `id`; returns the state it was
    /// in ([`TimerState::Queued`]: its unread record was retracted). No
    /// record of it is read afterwards. `ENOENT` when the fd holds no
    /// such timer (unknown, cancelled, or a one-shot timer whose record
    /// was read).
    pub fn cancel(&self, id: TimerId) -> io::Result<TimerState> {
        let mut c = sys::twheel_cancel {
            id: id.as_raw(),
            flags: 0,
            result: 0,
        };
        self.ioctl(sys::TWHEEL_IOC_CANCEL, &mut c)?;
        TimerState::from_kernel(c.result)
    }

    /// `TWHEEL_IOC_QUERY`: timer `id`'s status. `ENOENT` as for cancel.
    pub fn query(&self, id: TimerId) -> io::Result<Status> {
        let mut q = sys::twheel_query {
            id: id.as_raw(),
            ..Default::default()
        };
        self.ioctl(sys::TWHEEL_IOC_QUERY, &mut q)?;
        Status::try_from(q.status)
    }

    /// One `TWHEEL_IOC_LIST` call: up to `buf.len()` statuses from
    /// `cursor` (0 starts a listing). Returns the entries written and the
    /// cursor to go on from, 0 when the listing is complete (a call may
    /// write fewer entries than fit and still return a non-zero cursor).
    /// An empty `buf` is `EINVAL`.
    pub fn list_page(
        &self,
        cursor: u64,
        buf: &mut [sys::twheel_status],
    ) -> io::Result<(usize, u64)> {
        let mut l = sys::twheel_list {
            statuses: buf.as_mut_ptr() as usize as u64,
            capacity: u32::try_from(buf.len()).unwrap_or(u32::MAX),
            count: 0,
            cursor,
            status_size: size_of::<sys::twheel_status>() as u32,
            flags: 0,
        };
        self.ioctl(sys::TWHEEL_IOC_LIST, &mut l)?;
        Ok(((l.count as usize).min(buf.len()), l.cursor))
    }

    /// Every timer of the fd (a whole listing: each timer that exists
    /// throughout it is reported exactly once), in the fd's internal
    /// order, not deadline order.
    pub fn list(&self) -> io::Result<Vec<Status>> {
        let mut page = vec![sys::twheel_status::default(); 256];
        let mut out = Vec::new();
        let mut cursor = 0;
        loop {
            let (n, next) = self.list_page(cursor, &mut page)?;
            for s in &page[..n] {
                out.push(Status::try_from(*s)?);
            }
            if next == 0 {
                return Ok(out);
            }
            cursor = next;
        }
    }

    /// `TWHEEL_IOC_SUBMIT`: does the batch's operations in order, each
    /// with its own result ([`Batch::result`]). Returns how many were
    /// done: all, or fewer when one could not be read or written back, or
    /// a fatal signal came; the rest have no result.
    ///
    /// A batch longer than `TWHEEL_MAX_BATCH` (1024) is submitted in
    /// consecutive ioctls of up to 1024, stopping after one that did not
    /// do all of its operations. An error of the first ioctl (`EFAULT`,
    /// `ENOMEM`: nothing done) is returned as the error; one of a later
    /// ioctl ends the batch with the count done before it.
    pub fn submit(&self, batch: &mut Batch) -> io::Result<usize> {
        batch.set_done(0);
        let mut done = 0;
        for chunk in batch.ops_mut().chunks_mut(sys::TWHEEL_MAX_BATCH as usize) {
            let mut s = sys::twheel_submit {
                ops: chunk.as_mut_ptr() as usize as u64,
                nr: chunk.len() as u32,
                op_size: size_of::<sys::twheel_op>() as u32,
                flags: 0,
                __reserved: 0,
            };
            let n = match self.ioctl(sys::TWHEEL_IOC_SUBMIT, &mut s) {
                Ok(n) => n as usize,
                Err(e) if done == 0 => return Err(e),
                Err(_) => break,
            };
            done += n.min(chunk.len());
            if n < chunk.len() {
                break;
            }
        }
        batch.set_done(done);
        Ok(done)
    }

    /// `TWHEEL_IOC_ADVANCE`: moves the manual clock forward by `delta`
    /// (saturating at `i64::MAX` ns); returns its time afterwards, in ns.
    /// Every timer due by then is queued before it returns. `EINVAL` on an
    /// fd without [`Config::manual`].
    pub fn advance(&self, delta: Duration) -> io::Result<i64> {
        let mut a = sys::twheel_advance {
            delta_ns: duration_to_u64_ns(delta),
            ..Default::default()
        };
        self.ioctl(sys::TWHEEL_IOC_ADVANCE, &mut a)?;
        Ok(a.now_ns)
    }

    /// The manual clock's present time in ns (an advance by 0).
    pub fn manual_now(&self) -> io::Result<i64> {
        self.advance(Duration::ZERO)
    }

    /// One read(2): as many queued records as fit in `buf`, in the order
    /// they were queued; returns how many. Waits for the first record on a
    /// blocking fd; on an `O_NONBLOCK` one, `EAGAIN`
    /// ([`io::ErrorKind::WouldBlock`]) when none is queued. An empty
    /// `buf` is `EINVAL` (the kernel's answer to a buffer smaller than a
    /// record). `EINTR` when a signal interrupts the wait.
    pub fn read_events(&self, buf: &mut [Event]) -> io::Result<usize> {
        let size = size_of::<Event>();
        // SAFETY: Event is a repr(transparent) plain integer struct: any
        // bytes the kernel writes are a valid value.
        let ret = unsafe {
            read(
                self.fd.as_raw_fd(),
                buf.as_mut_ptr() as *mut c_void,
                std::mem::size_of_val(buf),
            )
        };
        if ret < 0 {
            return Err(io::Error::last_os_error());
        }
        let ret = ret as usize;
        if ret % size != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("twheel: read(2) returned {} bytes, not whole records", ret),
            ));
        }
        Ok(ret / size)
    }

    /// An iterator over records that reads through `buf` (up to its
    /// capacity per read(2)): see [`Events`]. Blocks for records on a
    /// blocking fd; ends when none is queued on an `O_NONBLOCK` one.
    /// Records read and not yet yielded stay in `buf` for the next
    /// iterator: none is lost when one is dropped early.
    pub fn events<'a>(&'a self, buf: &'a mut EventBuf) -> Events<'a> {
        Events::new(self, buf)
    }

    /// Waits with poll(2) until a record is queued (the fd readable), for
    /// at most `timeout` (`None`: no limit; rounded up to a millisecond).
    /// `Ok(true)` when one is queued, `Ok(false)` when the time ran out
    /// or a signal interrupted the wait. For a program with no event loop
    /// of its own.
    pub fn wait(&self, timeout: Option<Duration>) -> io::Result<bool> {
        let ms = match timeout {
            None => -1,
            Some(d) => {
                let ms = (d.as_nanos() + 999_999) / 1_000_000;
                ms.min(c_int::MAX as u128) as c_int
            }
        };
        let mut p = PollFd {
            fd: self.fd.as_raw_fd(),
            events: POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, valid for the call.
        let n = unsafe { poll(&mut p, 1, ms) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                return Ok(false);
            }
            return Err(e);
        }
        Ok(n > 0 && p.revents & POLLIN != 0)
    }

    /// Sets or clears `O_NONBLOCK` on the open file (shared with its
    /// duplicates: see [`Twheel::try_clone`]).
    pub fn set_nonblocking(&self, on: bool) -> io::Result<()> {
        let fd = self.fd.as_raw_fd();
        // SAFETY: fcntl F_GETFL/F_SETFL on an fd we own.
        let flags = unsafe { fcntl(fd, F_GETFL) };
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        let new = if on {
            flags | arch::O_NONBLOCK
        } else {
            flags & !arch::O_NONBLOCK
        };
        if new != flags && unsafe { fcntl(fd, F_SETFL, new) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Whether the open file is `O_NONBLOCK`.
    pub fn is_nonblocking(&self) -> io::Result<bool> {
        // SAFETY: as above.
        let flags = unsafe { fcntl(self.fd.as_raw_fd(), F_GETFL) };
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(flags & arch::O_NONBLOCK != 0)
    }

    /// A duplicate fd (`F_DUPFD_CLOEXEC`) of the same open file: the same
    /// timer set, the same `O_NONBLOCK` flag.
    pub fn try_clone(&self) -> io::Result<Twheel> {
        Ok(Twheel {
            fd: self.fd.try_clone()?,
        })
    }
}

impl AsFd for Twheel {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl AsRawFd for Twheel {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl FromRawFd for Twheel {
    /// Takes ownership of an open `/dev/twheel` fd (no handshake).
    ///
    /// # Safety
    ///
    /// `fd` must be an open file descriptor of `/dev/twheel` that nothing
    /// else owns (it is closed when the `Twheel` is dropped).
    unsafe fn from_raw_fd(fd: RawFd) -> Twheel {
        Twheel {
            fd: OwnedFd::from_raw_fd(fd),
        }
    }
}

impl IntoRawFd for Twheel {
    fn into_raw_fd(self) -> RawFd {
        self.fd.into_raw_fd()
    }
}

impl From<Twheel> for OwnedFd {
    fn from(w: Twheel) -> OwnedFd {
        w.fd
    }
}

impl From<OwnedFd> for Twheel {
    /// Wraps an owned fd of `/dev/twheel` (no handshake: see
    /// [`Twheel::info`]). Any other fd gives `ENOTTY` from every call.
    fn from(fd: OwnedFd) -> Twheel {
        Twheel { fd }
    }
}

impl From<Twheel> for File {
    fn from(w: Twheel) -> File {
        File::from(w.fd)
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

    #[test]
    fn open_of_a_missing_node_is_enoent() {
        let e = Twheel::options()
            .path("/nonexistent/twheel")
            .open()
            .unwrap_err();
        assert_eq!(e.raw_os_error(), Some(2));
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert_eq!(e.path(), Path::new("/nonexistent/twheel"));
        assert_eq!(
            e.to_string(),
            format!(
                "/nonexistent/twheel: {}: is the module loaded? modprobe twheel (or insmod twheel.ko)",
                io::Error::from_raw_os_error(2)
            )
        );
        // Through `?` into an io::Error: the same kind and message.
        fn via_io() -> io::Result<Twheel> {
            Ok(Twheel::options().path("/nonexistent/twheel").open()?)
        }
        let io = via_io().unwrap_err();
        assert_eq!(io.kind(), io::ErrorKind::NotFound);
        assert_eq!(io.to_string(), e.to_string());
        // A directory: EISDIR, no hint to add.
        let e = Twheel::options().path("/").open().unwrap_err();
        assert_eq!(e.raw_os_error(), Some(21));
        assert_eq!(e.hint(), None);
        assert_eq!(
            e.to_string(),
            format!("/: {}", io::Error::from_raw_os_error(21))
        );
    }

    #[test]
    fn handshake_on_a_non_twheel_file_is_enotty() {
        // /dev/null opens, but answers TWHEEL_IOC_INFO with ENOTTY.
        let e = Twheel::options().path("/dev/null").open().unwrap_err();
        assert_eq!(e.raw_os_error(), Some(25));
        assert!(
            e.to_string().starts_with("/dev/null: ")
                && e.to_string().contains("not twheel's device"),
            "{}",
            e
        );
        // Without the handshake it opens; non-blocking is set and cleared.
        let w = Twheel::options()
            .path("/dev/null")
            .handshake(false)
            .nonblocking(true)
            .open()
            .unwrap();
        assert!(w.is_nonblocking().unwrap());
        // /dev/null is always readable.
        assert!(w.wait(Some(Duration::ZERO)).unwrap());
        assert!(w.wait(None).unwrap());
        w.set_nonblocking(false).unwrap();
        assert!(!w.is_nonblocking().unwrap());
        let raw = w.into_raw_fd();
        let w = unsafe { Twheel::from_raw_fd(raw) };
        assert_eq!(w.as_raw_fd(), raw);
        assert_eq!(w.info().unwrap_err().raw_os_error(), Some(25));
    }

    #[test]
    fn is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Twheel>();
        check::<Batch>();
        check::<EventBuf>();
    }
}
