// SPDX-License-Identifier: LGPL-2.1-or-later
//! Batches of operations (`TWHEEL_IOC_SUBMIT`).

use std::io;

use crate::clock::TimerState;
use crate::sys;
use crate::timer::{Rearm, Timer, TimerId};
use crate::wheel::Status;

/// What one operation of a batch did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpOutcome {
    /// An add: the new timer's id.
    Added(TimerId),
    /// A modify: the state the timer was in.
    Modified(TimerState),
    /// A cancel: the state the timer was in.
    Cancelled(TimerState),
    /// A query: the timer's status.
    Queried(Status),
}

/// Operations for one [`Twheel::submit`](crate::Twheel::submit): adds,
/// modifies, cancels and queries, done in order, each exactly as its
/// single call would be, each with its own result; a failing operation
/// fails alone.
///
/// ```no_run
/// use std::time::Duration;
/// use twheel::{Batch, OpOutcome, Timer, TimerId, Twheel};
///
/// # fn main() -> std::io::Result<()> {
/// let wheel = Twheel::open()?;
/// let mut batch = Batch::new();
/// let a = batch.add(&Timer::after(Duration::from_secs(5)).cookie(1));
/// let c = batch.cancel(TimerId::from_raw(12345));
/// wheel.submit(&mut batch)?;
/// if let Some(Ok(OpOutcome::Added(id))) = batch.result(a) {
///     println!("added {}", id);
/// }
/// assert_eq!(batch.result(c).unwrap().unwrap_err().raw_os_error(), Some(2)); // ENOENT
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Batch {
    ops: Vec<sys::twheel_op>,
    done: usize,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Batch {
        Batch::default()
    }

    /// An empty batch with room for `n` operations.
    pub fn with_capacity(n: usize) -> Batch {
        Batch {
            ops: Vec::with_capacity(n),
            done: 0,
        }
    }

    /// The number of operations in it.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether it has no operation.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Removes every operation and result, keeping the memory.
    pub fn clear(&mut self) {
        self.ops.clear();
        self.done = 0;
    }

    /// Appends an add; returns the operation's index.
    pub fn add(&mut self, timer: &Timer) -> usize {
        let a = timer.to_sys();
        self.push_raw(sys::twheel_op {
            op: sys::TWHEEL_OP_ADD,
            flags: a.flags,
            cookie: a.cookie,
            expires_ns: a.expires_ns,
            period_ns: a.period_ns,
            clock: a.clock,
            ..Default::default()
        })
    }

    /// Appends a modify of timer `id`; returns the operation's index.
    pub fn modify(&mut self, id: TimerId, rearm: &Rearm) -> usize {
        let m = rearm.to_sys(id);
        self.push_raw(sys::twheel_op {
            op: sys::TWHEEL_OP_MODIFY,
            flags: m.flags,
            id: m.id,
            cookie: m.cookie,
            expires_ns: m.expires_ns,
            period_ns: m.period_ns,
            ..Default::default()
        })
    }

    /// Appends a cancel of timer `id`; returns the operation's index.
    pub fn cancel(&mut self, id: TimerId) -> usize {
        self.push_raw(sys::twheel_op {
            op: sys::TWHEEL_OP_CANCEL,
            id: id.as_raw(),
            ..Default::default()
        })
    }

    /// Appends a query of timer `id`; returns the operation's index.
    pub fn query(&mut self, id: TimerId) -> usize {
        self.push_raw(sys::twheel_op {
            op: sys::TWHEEL_OP_QUERY,
            id: id.as_raw(),
            ..Default::default()
        })
    }

    /// Appends a raw operation, as given (the kernel checks it: an
    /// unknown `op`, flag or clock is that operation's `EINVAL`); returns
    /// its index.
    pub fn push_raw(&mut self, op: sys::twheel_op) -> usize {
        self.ops.push(op);
        self.ops.len() - 1
    }

    /// The operations, with the outputs the last submit wrote into them.
    pub fn ops(&self) -> &[sys::twheel_op] {
        &self.ops
    }

    /// How many operations the last submit did (each with its result
    /// written): all of them, or fewer when one could not be read or
    /// written back, or a fatal signal came. 0 before any submit.
    pub fn done(&self) -> usize {
        self.done
    }

    /// The result of operation `i`: `None` if the last submit did not do
    /// it (or `i` is out of range); else what it did, or the error its
    /// single call would have failed with (it then changed nothing).
    pub fn result(&self, i: usize) -> Option<io::Result<OpOutcome>> {
        if i >= self.done {
            return None;
        }
        Some(outcome(&self.ops[i]))
    }

    /// The results of the operations the last submit did, in order.
    pub fn results(&self) -> impl Iterator<Item = io::Result<OpOutcome>> + '_ {
        self.ops[..self.done].iter().map(outcome)
    }

    pub(crate) fn ops_mut(&mut self) -> &mut [sys::twheel_op] {
        &mut self.ops
    }

    pub(crate) fn set_done(&mut self, done: usize) {
        self.done = done;
    }
}

/// The outcome of one operation that was done.
fn outcome(o: &sys::twheel_op) -> io::Result<OpOutcome> {
    if o.error != 0 {
        return Err(io::Error::from_raw_os_error(o.error.wrapping_neg()));
    }
    match o.op {
        sys::TWHEEL_OP_ADD => Ok(OpOutcome::Added(TimerId::from_raw(o.id))),
        sys::TWHEEL_OP_MODIFY => Ok(OpOutcome::Modified(TimerState::from_kernel(o.result)?)),
        sys::TWHEEL_OP_CANCEL => Ok(OpOutcome::Cancelled(TimerState::from_kernel(o.result)?)),
        sys::TWHEEL_OP_QUERY => {
            let st = sys::twheel_status {
                id: o.id,
                cookie: o.cookie,
                deadline_ns: o.expires_ns,
                period_ns: o.period_ns,
                count: o.count,
                remaining_ns: o.remaining_ns,
                clock: o.clock,
                state: o.result,
            };
            Ok(OpOutcome::Queried(Status::try_from(st)?))
        }
        other => Err(crate::invalid_data("batch operation", other as u64)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use std::time::Duration;

    #[test]
    fn encodes_operations() {
        let mut b = Batch::with_capacity(4);
        assert!(b.is_empty());
        let t = Timer::at(50)
            .clock(Clock::Boottime)
            .every(Duration::from_millis(2))
            .cookie(3);
        assert_eq!(b.add(&t), 0);
        assert_eq!(
            b.modify(
                TimerId::from_raw(8),
                &Rearm::after(Duration::from_nanos(9)).cookie(4)
            ),
            1
        );
        assert_eq!(b.cancel(TimerId::from_raw(10)), 2);
        assert_eq!(b.query(TimerId::from_raw(11)), 3);
        assert_eq!(b.len(), 4);
        let o = b.ops();
        assert_eq!(
            o[0],
            sys::twheel_op {
                op: 1,
                flags: sys::TWHEEL_ABSTIME,
                cookie: 3,
                expires_ns: 50,
                period_ns: 2_000_000,
                clock: 7,
                ..Default::default()
            }
        );
        assert_eq!(
            (o[1].op, o[1].id, o[1].cookie, o[1].expires_ns),
            (2, 8, 4, 9)
        );
        assert_eq!(o[1].flags, sys::TWHEEL_SET_COOKIE);
        assert_eq!((o[2].op, o[2].id, o[2].flags), (3, 10, 0));
        assert_eq!((o[3].op, o[3].id, o[3].flags), (4, 11, 0));
        // Nothing submitted: no results.
        assert_eq!(b.done(), 0);
        assert!(b.result(0).is_none());
        assert_eq!(b.results().count(), 0);
    }

    #[test]
    fn decodes_results_as_the_kernel_writes_them() {
        let mut b = Batch::new();
        b.add(&Timer::after(Duration::from_secs(1)));
        b.cancel(TimerId::from_raw(5));
        b.modify(TimerId::from_raw(6), &Rearm::after(Duration::from_secs(1)));
        b.query(TimerId::from_raw(7));
        b.cancel(TimerId::from_raw(8));
        {
            let o = b.ops_mut();
            o[0].id = 99;
            o[1].error = -2; // ENOENT
            o[2].result = sys::TWHEEL_STATE_QUEUED;
            o[3].cookie = 70;
            o[3].expires_ns = 1_000;
            o[3].period_ns = 10;
            o[3].clock = sys::CLOCK_TAI;
            o[3].result = sys::TWHEEL_STATE_PENDING;
            o[3].remaining_ns = 400;
            o[4].result = sys::TWHEEL_STATE_PENDING;
        }
        b.set_done(4);
        assert_eq!(
            b.result(0).unwrap().unwrap(),
            OpOutcome::Added(TimerId::from_raw(99))
        );
        assert_eq!(b.result(1).unwrap().unwrap_err().raw_os_error(), Some(2));
        assert_eq!(
            b.result(2).unwrap().unwrap(),
            OpOutcome::Modified(TimerState::Queued)
        );
        match b.result(3).unwrap().unwrap() {
            OpOutcome::Queried(st) => {
                assert_eq!(st.id, TimerId::from_raw(7));
                assert_eq!(st.cookie, 70);
                assert_eq!(st.deadline_ns, 1_000);
                assert_eq!(st.period, Duration::from_nanos(10));
                assert_eq!(st.clock, Clock::Tai);
                assert_eq!(st.state, TimerState::Pending);
                assert_eq!(st.remaining, Duration::from_nanos(400));
                assert_eq!(st.count, 0);
            }
            other => panic!("{:?}", other),
        }
        // Not done: no result.
        assert!(b.result(4).is_none());
        assert_eq!(b.results().count(), 4);
        b.clear();
        assert!(b.is_empty() && b.done() == 0);
    }
}
