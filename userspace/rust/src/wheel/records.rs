// SPDX-License-Identifier: LGPL-2.1-or-later
//! The fd's records: reading them ([`Twheel::read_events`],
//! [`Twheel::events`]) and waiting for one ([`Twheel::wait`]).

use std::io;
use std::mem::size_of;
use std::os::raw::{c_int, c_void};
use std::os::unix::io::AsRawFd;
use std::time::Duration;

use super::Twheel;
use crate::event::{Event, EventBuf, Events};

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: i16,
    revents: i16,
}
const POLLIN: i16 = 0x1;

extern "C" {
    fn read(fd: c_int, buf: *mut c_void, count: usize) -> isize;
    fn poll(fds: *mut PollFd, nfds: std::os::raw::c_ulong, timeout: c_int) -> c_int;
}

impl Twheel {
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
}
