// SPDX-License-Identifier: LGPL-2.1-or-later
//! The fd's timers: adding, re-arming, cancelling, querying and listing
//! them, batches of those ([`Twheel::submit`]), and the manual clock.

use std::convert::TryFrom;
use std::io;
use std::mem::size_of;
use std::time::Duration;

use super::{Status, Twheel};
use crate::batch::Batch;
use crate::clock::TimerState;
use crate::duration_to_u64_ns;
use crate::sys;
use crate::timer::{Rearm, Timer, TimerId};

// Named by the doc comments.
#[cfg(doc)]
use super::Config;

impl Twheel {
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
}
