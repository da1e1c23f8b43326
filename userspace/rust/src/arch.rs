// SPDX-License-Identifier: LGPL-2.1-or-later
//! Architecture-dependent constants of Linux's C ABI (the crate links no
//! libc binding: these are the values of the running architecture's
//! headers). `O_NONBLOCK` for opening and `fcntl(2)`, `EPROTO` for the
//! handshake's error.

#[cfg(any(target_arch = "mips", target_arch = "mips64"))]
mod imp {
    pub const O_NONBLOCK: i32 = 0x80;
    pub const EPROTO: i32 = 134;
}
#[cfg(any(target_arch = "sparc", target_arch = "sparc64"))]
mod imp {
    pub const O_NONBLOCK: i32 = 0x4000;
    pub const EPROTO: i32 = 86;
}
#[cfg(not(any(
    target_arch = "mips",
    target_arch = "mips64",
    target_arch = "sparc",
    target_arch = "sparc64"
)))]
mod imp {
    pub const O_NONBLOCK: i32 = 0o4000;
    pub const EPROTO: i32 = 71;
}

pub(crate) use imp::{EPROTO, O_NONBLOCK};
