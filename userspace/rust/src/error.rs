// SPDX-License-Identifier: LGPL-2.1-or-later
//! Why `/dev/twheel` could not be opened, and what to do about it.

use std::error::Error;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::arch::EPROTO;
use crate::sys;

// errno values 1 to 34 are the same on every Linux architecture
// (asm-generic/errno-base.h); EPROTO is not (arch.rs).
const EPERM: i32 = 1;
const ENOENT: i32 = 2;
const ENXIO: i32 = 6;
const ENOMEM: i32 = 12;
const EACCES: i32 = 13;
const ENODEV: i32 = 19;
const ENFILE: i32 = 23;
const EMFILE: i32 = 24;
const ENOTTY: i32 = 25;

/// What to do when opening `/dev/twheel` failed with `errno`: the hints
/// of libtwheel's `twheel_open_hint()` (which twheelctl prints), word for
/// word but for the ABI version's, or `None` when strerror says it all.
pub(crate) fn open_hint(errno: i32) -> Option<&'static str> {
    Some(match errno {
        ENOENT | ENODEV | ENXIO => "is the module loaded? modprobe twheel (or insmod twheel.ko)",
        EACCES => {
            "this user may not open /dev/twheel: see its mode and group \
             (ls -l /dev/twheel), set by udev rules (60-twheel.rules); join that \
             group, or ask the administrator"
        }
        EPERM => {
            "a device cgroup or security policy refuses /dev/twheel (in a container: \
             allow the device's character major:minor, 10:250 by default)"
        }
        EMFILE => {
            "too many open files: this process's limit (ulimit -n), or this user's \
             twheel fds at fs.twheel.max_user_fds (root raises it: sysctl -w \
             fs.twheel.max_user_fds=N; /proc/driver/twheel shows who holds them)"
        }
        ENFILE => "the system's table of open files is full (fs.file-max)",
        ENOMEM => "out of memory, or this process's memory cgroup is at its limit",
        ENOTTY => {
            "/dev/twheel is not twheel's device: another driver has its number \
             (compare ls -l /dev/twheel with /sys/class/misc/twheel/dev)"
        }
        e if e == EPROTO => {
            "the loaded module's ABI version is not this crate's: load the twheel \
             module of the same version as the crate"
        }
        _ => return None,
    })
}

/// Opening `/dev/twheel` failed ([`Twheel::open`](crate::Twheel::open),
/// [`OpenOptions::open`](crate::OpenOptions::open)): the path, the
/// system's error, and what to do about it.
///
/// Its `Display` says all three, e.g. with the module not loaded:
///
/// ```text
/// /dev/twheel: No such file or directory (os error 2): is the module loaded? modprobe twheel (or insmod twheel.ko)
/// ```
///
/// The error itself stays available: [`OpenError::kind`],
/// [`OpenError::raw_os_error`] (the errno: `ENOENT`, `EACCES`, ...;
/// `EPROTO` for a module of another ABI version, `ENOTTY` for another
/// driver's node), [`OpenError::io_error`], and [`Error::source`]. It
/// converts into an [`io::Error`] of the same kind (so `?` works in a
/// function returning `io::Result`), whose `Display` is this one and
/// whose [`get_ref`](io::Error::get_ref) is this error (there
/// `raw_os_error()` is `None`: take it from here).
#[derive(Debug)]
pub struct OpenError {
    path: PathBuf,
    err: io::Error,
    version: Option<u32>,
}

impl OpenError {
    pub(crate) fn new(path: &Path, err: io::Error) -> OpenError {
        OpenError {
            path: path.to_path_buf(),
            err,
            version: None,
        }
    }

    /// The module answered the handshake with ABI `version`.
    pub(crate) fn version(path: &Path, version: u32) -> OpenError {
        OpenError {
            path: path.to_path_buf(),
            err: io::Error::from_raw_os_error(EPROTO),
            version: Some(version),
        }
    }

    /// The path opened.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The error's kind (`NotFound`, `PermissionDenied`, ...).
    pub fn kind(&self) -> io::ErrorKind {
        self.err.kind()
    }

    /// The errno of the failure (`ENOENT`: no device node, the module is
    /// not loaded; `EACCES`; `EPROTO`: a module of another ABI version;
    /// ...), `None` for an error that has none.
    pub fn raw_os_error(&self) -> Option<i32> {
        self.err.raw_os_error()
    }

    /// The ABI version the module reported, when it was not this crate's
    /// (`EPROTO`).
    pub fn module_version(&self) -> Option<u32> {
        self.version
    }

    /// What to do about it, as libtwheel's `twheel_open_hint()` says it;
    /// `None` when the error says it all.
    pub fn hint(&self) -> Option<&'static str> {
        self.raw_os_error().and_then(open_hint)
    }

    /// The system's error.
    pub fn io_error(&self) -> &io::Error {
        &self.err
    }

    /// The system's error, without the path and the hint.
    pub fn into_io_error(self) -> io::Error {
        self.err
    }
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path.display())?;
        match self.version {
            Some(v) => write!(
                f,
                "the loaded module's ABI version is {}, this crate's {} (twheel {}): load \
                 the twheel module of the same version as the crate",
                v,
                sys::TWHEEL_ABI_VERSION,
                sys::TWHEEL_VERSION
            ),
            None => match self.hint() {
                Some(hint) => write!(f, "{}: {}", self.err, hint),
                None => write!(f, "{}", self.err),
            },
        }
    }
}

impl Error for OpenError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.err)
    }
}

impl From<OpenError> for io::Error {
    fn from(e: OpenError) -> io::Error {
        io::Error::new(e.kind(), e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_node_says_load_the_module() {
        let e = OpenError::new(
            Path::new("/dev/twheel"),
            io::Error::from_raw_os_error(ENOENT),
        );
        assert_eq!(e.raw_os_error(), Some(ENOENT));
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        let s = e.to_string();
        assert!(s.starts_with("/dev/twheel: "), "{}", s);
        assert!(s.contains("modprobe twheel"), "{}", s);
        assert!(e.source().is_some());
        let io: io::Error = e.into();
        assert_eq!(io.kind(), io::ErrorKind::NotFound);
        assert!(io.to_string().contains("modprobe twheel"));
        let inner = io.get_ref().unwrap().downcast_ref::<OpenError>().unwrap();
        assert_eq!(inner.raw_os_error(), Some(ENOENT));
    }

    #[test]
    fn every_hint() {
        for (errno, word) in [
            (ENODEV, "modprobe"),
            (ENXIO, "modprobe"),
            (EACCES, "group"),
            (EPERM, "cgroup"),
            (EMFILE, "max_user_fds"),
            (ENFILE, "file-max"),
            (ENOMEM, "memory"),
            (ENOTTY, "not twheel's device"),
            (EPROTO, "ABI version"),
        ]
        .iter()
        {
            let h = open_hint(*errno).unwrap();
            assert!(h.contains(word), "{}: {}", errno, h);
        }
        assert_eq!(open_hint(22), None);
        let e = OpenError::new(Path::new("/x"), io::Error::from_raw_os_error(22));
        assert_eq!(
            e.to_string(),
            format!("/x: {}", io::Error::from_raw_os_error(22))
        );
    }

    #[test]
    fn another_abi_version() {
        let e = OpenError::version(Path::new("/dev/twheel"), 7);
        assert_eq!(e.raw_os_error(), Some(EPROTO));
        assert_eq!(e.module_version(), Some(7));
        let s = e.to_string();
        assert!(s.contains("ABI version is 7, this crate's 2"), "{}", s);
    }
}
