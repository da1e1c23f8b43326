// SPDX-License-Identifier: LGPL-2.1-or-later
//! Opening `/dev/twheel`: [`OpenOptions`] and the ABI handshake.

use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::OwnedFd;
use std::path::{Path, PathBuf};

use super::Twheel;
use crate::arch;
use crate::error::OpenError;
use crate::sys;

// Named by the doc comments.
#[cfg(doc)]
use std::io;

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
