// SPDX-License-Identifier: LGPL-2.1-or-later
//! What the device cases share: errno values, the 1 ms tick, `assert_errno!`,
//! a manual-clock fd, draining its records, poll(2) and whether we are root.

use std::io;
use std::os::raw::{c_int, c_short, c_ulong};
use std::os::unix::io::{AsFd, AsRawFd};
use std::time::Duration;

use twheel::{EventBuf, Twheel};

// errno values (x86-64, the VM's architecture; the same on most).
pub(crate) const ENOENT: i32 = 2;
pub(crate) const E2BIG: i32 = 7;
pub(crate) const EAGAIN: i32 = 11;
pub(crate) const EBUSY: i32 = 16;
pub(crate) const EINVAL: i32 = 22;
pub(crate) const EPERM: i32 = 1;
pub(crate) const ENXIO: i32 = 6;
pub(crate) const ENODEV: i32 = 19;
pub(crate) const ENOSPC: i32 = 28;

pub(crate) const MS: Duration = Duration::from_millis(1);
pub(crate) const MS_NS: i64 = 1_000_000;

/// Asserts that `$e` is `Err` with errno `$errno`.
macro_rules! assert_errno {
    ($e:expr, $errno:expr) => {
        match $e {
            Ok(v) => panic!("{}: want errno {}, got Ok({:?})", stringify!($e), $errno, v),
            Err(err) => assert_eq!(
                err.raw_os_error(),
                Some($errno),
                "{}: want errno {}, got {}",
                stringify!($e),
                $errno,
                err
            ),
        }
    };
}

pub(crate) fn manual() -> Twheel {
    Twheel::open_manual(MS).expect("open a manual-clock fd")
}

/// Every record queued now (the fd must be non-blocking).
pub(crate) fn drain(w: &Twheel) -> Vec<twheel::Event> {
    let mut buf = EventBuf::new(16);
    let evs: io::Result<Vec<_>> = w.events(&mut buf).collect();
    evs.expect("read records")
}

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: c_short,
    revents: c_short,
}
pub(crate) const POLLIN: c_short = 0x1;
extern "C" {
    fn poll(fds: *mut PollFd, nfds: c_ulong, timeout: c_int) -> c_int;
    fn geteuid() -> u32;
    pub(crate) fn mknod(path: *const std::os::raw::c_char, mode: u32, dev: u64) -> c_int;
}

/// Root (who has CAP_WAKE_ALARM, which the alarm clocks need)?
pub(crate) fn root() -> bool {
    unsafe { geteuid() == 0 }
}

/// poll(2) on anything with an fd, as an event loop would: its revents.
pub(crate) fn poll_in(fd: &impl AsFd, timeout_ms: i32) -> c_short {
    let mut p = PollFd {
        fd: fd.as_fd().as_raw_fd(),
        events: POLLIN,
        revents: 0,
    };
    let n = unsafe { poll(&mut p, 1, timeout_ms) };
    assert!(n >= 0, "poll: {}", io::Error::last_os_error());
    p.revents
}
