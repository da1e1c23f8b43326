// SPDX-License-Identifier: LGPL-2.1-or-later
//! Device cases: batches (SUBMIT): a result per operation, partial errors,
//! and a batch longer than TWHEEL_MAX_BATCH split by the binding.

use std::os::unix::io::AsRawFd;
use std::time::Duration;

use twheel::sys;
use twheel::{Batch, Clock, OpOutcome, Rearm, Timer, TimerId, TimerState, Twheel};

use crate::common::{drain, manual, EINVAL, ENOENT, MS_NS};

pub(crate) fn batch_partial_errors() {
    let w = manual();
    let keep = w
        .add(&Timer::after(Duration::from_secs(1)).cookie(9))
        .unwrap();
    let mut b = Batch::new();
    let i_add = b.add(
        &Timer::after(Duration::from_millis(3))
            .cookie(77)
            .clock(Clock::Boottime),
    );
    let i_enoent = b.cancel(TimerId::from_raw(0xdead_beef));
    let i_bad_clock = b.push_raw(sys::twheel_op {
        op: sys::TWHEEL_OP_ADD,
        expires_ns: MS_NS,
        clock: 3, // CLOCK_THREAD_CPUTIME_ID
        ..Default::default()
    });
    let i_bad_op = b.push_raw(sys::twheel_op {
        op: 99,
        id: keep.as_raw(),
        ..Default::default()
    });
    let i_modify = b.modify(
        keep,
        &Rearm::after(Duration::from_millis(4)).every(Duration::from_millis(2)),
    );
    let i_query = b.query(keep);
    let i_cancel_twice = b.cancel(TimerId::from_raw(0xdead_beef));
    assert_eq!(w.submit(&mut b).unwrap(), 7);
    assert_eq!(b.done(), 7);
    let added = match b.result(i_add).unwrap().unwrap() {
        OpOutcome::Added(id) => id,
        other => panic!("{:?}", other),
    };
    assert_errno!(b.result(i_enoent).unwrap(), ENOENT);
    assert_errno!(b.result(i_bad_clock).unwrap(), EINVAL);
    assert_eq!(b.ops()[i_bad_clock].id, 0);
    assert_errno!(b.result(i_bad_op).unwrap(), EINVAL);
    assert_eq!(
        b.result(i_modify).unwrap().unwrap(),
        OpOutcome::Modified(TimerState::Pending)
    );
    match b.result(i_query).unwrap().unwrap() {
        OpOutcome::Queried(st) => {
            assert_eq!(st.id, keep);
            assert_eq!(st.cookie, 9);
            assert_eq!(st.deadline_ns, 4 * MS_NS);
            assert_eq!(st.period, Duration::from_millis(2));
            assert_eq!(st.remaining, Duration::from_millis(4));
            assert_eq!(
                (st.clock, st.state, st.count),
                (Clock::Monotonic, TimerState::Pending, 0)
            );
        }
        other => panic!("{:?}", other),
    }
    assert_errno!(b.result(i_cancel_twice).unwrap(), ENOENT);
    assert_eq!(b.results().filter(|r| r.is_err()).count(), 4);
    // The failing operations changed nothing: two timers.
    assert_eq!(w.info().unwrap().timers, 2);
    w.advance(Duration::from_millis(4)).unwrap();
    let evs = drain(&w);
    assert_eq!(
        evs.iter().map(|e| e.cookie()).collect::<Vec<_>>(),
        vec![77, 9]
    );
    assert_eq!(evs[0].id(), added);
    assert_eq!(evs[0].time_ns(), 4 * MS_NS);
    // The batch again: a cancel of each, both now pending (periodic
    // `keep` read: pending for 6 ms; `added` read: gone, ENOENT).
    b.clear();
    b.cancel(keep);
    b.cancel(added);
    assert_eq!(w.submit(&mut b).unwrap(), 2);
    assert_eq!(
        b.result(0).unwrap().unwrap(),
        OpOutcome::Cancelled(TimerState::Pending)
    );
    assert_errno!(b.result(1).unwrap(), ENOENT);
    assert_eq!(w.info().unwrap().timers, 0);
}

pub(crate) fn batch_longer_than_max_is_split() {
    let w = Twheel::open_nonblocking().unwrap();
    let n = sys::TWHEEL_MAX_BATCH as usize * 2 + 100;
    let mut b = Batch::with_capacity(n);
    for i in 0..n {
        b.add(&Timer::after(Duration::from_secs(100)).cookie(i as u64));
    }
    assert_eq!(w.submit(&mut b).unwrap(), n);
    let mut ids: Vec<TimerId> = b
        .results()
        .map(|r| match r.unwrap() {
            OpOutcome::Added(id) => id,
            other => panic!("{:?}", other),
        })
        .collect();
    assert_eq!(w.info().unwrap().timers, n as u64);
    // The listing has them all, each once, with their cookies.
    let list = w.list().unwrap();
    assert_eq!(list.len(), n);
    let mut listed: Vec<TimerId> = list.iter().map(|s| s.id).collect();
    for s in &list {
        assert_eq!(s.state, TimerState::Pending);
        assert_eq!(s.period, Duration::ZERO);
    }
    ids.sort();
    listed.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "ids unique");
    assert_eq!(listed, ids);
    // The kernel itself refuses more than TWHEEL_MAX_BATCH in one call.
    let mut ops = vec![sys::twheel_op::default(); n];
    let mut s = sys::twheel_submit {
        ops: ops.as_mut_ptr() as usize as u64,
        nr: sys::TWHEEL_MAX_BATCH + 1,
        op_size: 72,
        ..Default::default()
    };
    assert_errno!(
        unsafe {
            sys::ioctl(
                w.as_raw_fd(),
                sys::TWHEEL_IOC_SUBMIT,
                &mut s as *mut _ as *mut _,
            )
        },
        EINVAL
    );
    // Cancel them all in one (split) batch.
    let mut b = Batch::new();
    for id in &ids {
        b.cancel(*id);
    }
    assert_eq!(w.submit(&mut b).unwrap(), n);
    assert!(b
        .results()
        .all(|r| r.unwrap() == OpOutcome::Cancelled(TimerState::Pending)));
    assert_eq!(w.info().unwrap().timers, 0);
    assert!(w.list().unwrap().is_empty());
}
