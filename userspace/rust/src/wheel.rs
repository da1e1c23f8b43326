// SPDX-License-Identifier: LGPL-2.1-or-later
//! The file descriptor: opening, configuring, timers, records.
//!
//! [`Twheel`] is here with what concerns the fd itself (opening,
//! `TWHEEL_IOC_INFO` and `TWHEEL_IOC_CONFIG`, `O_NONBLOCK`, conversions to
//! and from fds); its other methods are in the child modules, by role:
//! `timers` (adding, re-arming, cancelling, querying, listing, batches, the
//! manual clock) and `records` (reading and waiting for expiry records).
//! `options` opens it ([`OpenOptions`]), `config` is what it is configured
//! with ([`Config`]), `info` what the kernel reports ([`Info`],
//! [`Status`]).

use std::fs::File;
use std::io;
use std::mem::size_of;
use std::os::raw::{c_int, c_void};
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::time::Duration;

use crate::arch;
use crate::error::OpenError;
use crate::sys;

mod config;
mod info;
mod options;
mod records;
mod timers;

pub use config::Config;
pub use info::{Info, Status};
pub use options::OpenOptions;

const F_GETFL: c_int = 3;
const F_SETFL: c_int = 4;

extern "C" {
    fn fcntl(fd: c_int, cmd: c_int, ...) -> c_int;
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
    use crate::batch::Batch;
    use crate::event::EventBuf;
    use std::path::Path;

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
