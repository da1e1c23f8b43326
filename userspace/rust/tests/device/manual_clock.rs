// SPDX-License-Identifier: LGPL-2.1-or-later
//! Device cases on the manual clock (TWHEEL_CONFIG_MANUAL): time moved by
//! ADVANCE only, so every deadline, record order, periodic count and
//! missed-deadline policy is exact; modify, query and the example's
//! pattern on it.

use std::time::Duration;

use twheel::sys;
use twheel::{Clock, Missed, Rearm, Timer, TimerState};

use crate::common::{drain, manual, poll_in, EINVAL, ENOENT, MS, MS_NS, POLLIN};

pub(crate) fn manual_clock_starts_at_zero_and_advances() {
    let w = manual();
    let i = w.info().unwrap();
    assert!(i.manual);
    assert_eq!(i.config_flags, sys::TWHEEL_CONFIG_MANUAL);
    assert_eq!(w.manual_now().unwrap(), 0);
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(w.manual_now().unwrap(), 0, "real time does not move it");
    assert_eq!(w.advance(Duration::from_nanos(5)).unwrap(), 5);
    assert_eq!(w.advance(Duration::from_secs(1)).unwrap(), 1_000_000_005);
    assert_eq!(w.manual_now().unwrap(), 1_000_000_005);
    // Saturates at i64::MAX.
    assert_eq!(w.advance(Duration::from_secs(u64::MAX)).unwrap(), i64::MAX);
    assert_eq!(w.advance(MS).unwrap(), i64::MAX);
}

pub(crate) fn manual_records_in_deadline_then_add_order() {
    let w = manual();
    // (cookie, deadline in ms) in add order; 3 ms twice, 7 ms twice.
    let plan: [(u64, i64); 6] = [(1, 7), (2, 3), (3, 5), (4, 3), (5, 12), (6, 7)];
    let mut ids = Vec::new();
    for (i, &(cookie, ms)) in plan.iter().enumerate() {
        let t = if i % 2 == 0 {
            Timer::after(Duration::from_millis(ms as u64))
        } else {
            Timer::at(ms * MS_NS).clock(Clock::Boottime)
        };
        ids.push(w.add(&t.cookie(cookie)).unwrap());
    }
    assert!(drain(&w).is_empty());
    assert_eq!(poll_in(&w, 0), 0);
    assert_eq!(w.advance(Duration::from_millis(10)).unwrap(), 10 * MS_NS);
    assert_eq!(poll_in(&w, 0), POLLIN);
    assert_eq!(w.info().unwrap().queued, 5);
    let evs = drain(&w);
    let cookies: Vec<u64> = evs.iter().map(|e| e.cookie()).collect();
    assert_eq!(cookies, vec![2, 4, 3, 1, 6]);
    for e in &evs {
        assert_eq!(e.id(), ids[e.cookie() as usize - 1]);
        assert_eq!(e.time_ns(), 10 * MS_NS);
        assert_eq!(e.count(), 1);
        assert_eq!(e.flags(), 0);
        let want = if (e.cookie() - 1) % 2 == 0 {
            Clock::Monotonic
        } else {
            Clock::Boottime
        };
        assert_eq!(e.clock(), Some(want));
    }
    assert_eq!(poll_in(&w, 0), 0);
    // The 12 ms one: not at 12 ms - 1 ns, at 12 ms.
    w.advance(Duration::from_nanos(2 * MS_NS as u64 - 1))
        .unwrap();
    assert!(drain(&w).is_empty());
    w.advance(Duration::from_nanos(1)).unwrap();
    let evs = drain(&w);
    assert_eq!(evs.len(), 1);
    assert_eq!((evs[0].cookie(), evs[0].time_ns()), (5, 12 * MS_NS));
    // One-shot timers end when read.
    assert_eq!(w.info().unwrap().timers, 0);
    assert_errno!(w.cancel(ids[4]), ENOENT);
}

/// Each missed-deadline policy, read at 35 ms: a 10 ms timer due at 10 ms.
pub(crate) fn manual_missed_policies() {
    let cases = [
        (Missed::Count, vec![3u64], 40),
        (Missed::Burst, vec![1, 1, 1], 40),
        (Missed::Delay, vec![1], 45),
        (Missed::Skip, vec![1], 40),
    ];
    for (missed, counts, next) in cases {
        let w = manual();
        let id = w
            .add(
                &Timer::after(Duration::from_millis(10))
                    .every(Duration::from_millis(10))
                    .missed(missed),
            )
            .unwrap();
        w.advance(Duration::from_millis(35)).unwrap();
        let got: Vec<u64> = drain(&w).iter().map(|e| e.count()).collect();
        assert_eq!(got, counts, "{:?}", missed);
        assert_eq!(
            w.query(id).unwrap().deadline_ns,
            next * MS_NS,
            "{:?}",
            missed
        );
    }
    // A policy needs a period.
    let w = manual();
    assert_errno!(
        w.add(&Timer::after(Duration::from_millis(1)).missed(Missed::Burst)),
        EINVAL
    );
}

pub(crate) fn manual_periodic_exact_counts() {
    let w = manual();
    let id = w
        .add(
            &Timer::after(Duration::from_millis(10))
                .every(Duration::from_millis(10))
                .cookie(0xCAFE),
        )
        .unwrap();
    let st = w.query(id).unwrap();
    assert_eq!(
        (st.deadline_ns, st.period, st.state),
        (10 * MS_NS, Duration::from_millis(10), TimerState::Pending)
    );
    // Each 10 ms step: one record, count 1.
    for k in 1..=3i64 {
        w.advance(Duration::from_millis(10)).unwrap();
        let evs = drain(&w);
        assert_eq!(evs.len(), 1, "step {}", k);
        assert_eq!(
            (evs[0].id(), evs[0].cookie(), evs[0].count()),
            (id, 0xCAFE, 1)
        );
        assert_eq!(evs[0].time_ns(), 10 * k * MS_NS);
    }
    // Unread for 45 ms (30 -> 75 ms): one record standing for 40, 50, 60, 70.
    w.advance(Duration::from_millis(45)).unwrap();
    let st = w.query(id).unwrap();
    assert_eq!(st.state, TimerState::Queued);
    assert_eq!(st.count, 4);
    assert_eq!(st.deadline_ns, 80 * MS_NS);
    assert_eq!(st.remaining, Duration::from_millis(5));
    assert_eq!(w.info().unwrap().queued, 1);
    let evs = drain(&w);
    assert_eq!(evs.len(), 1);
    // Queued by the advance that passed 40 ms: its time is that advance's.
    assert_eq!((evs[0].count(), evs[0].time_ns()), (4, 75 * MS_NS));
    // Read: pending again, for the grid's next point.
    let st = w.query(id).unwrap();
    assert_eq!(
        (st.state, st.count, st.deadline_ns),
        (TimerState::Pending, 0, 80 * MS_NS)
    );
    w.advance(Duration::from_millis(5)).unwrap();
    let evs = drain(&w);
    assert_eq!(
        (evs.len(), evs[0].count(), evs[0].time_ns()),
        (1, 1, 80 * MS_NS)
    );
    assert_eq!(w.cancel(id).unwrap(), TimerState::Pending);
    assert_errno!(w.query(id), ENOENT);
}

pub(crate) fn modify_retracts_a_queued_record() {
    let w = manual();
    let id = w
        .add(&Timer::after(Duration::from_millis(5)).cookie(1))
        .unwrap();
    w.advance(Duration::from_millis(5)).unwrap();
    assert_eq!(w.query(id).unwrap().state, TimerState::Queued);
    // Re-armed 10 ms on (now 5 ms: due at 15 ms), cookie replaced: the
    // queued record is never read.
    assert_eq!(
        w.modify(id, &Rearm::after(Duration::from_millis(10)).cookie(2))
            .unwrap(),
        TimerState::Queued
    );
    assert!(drain(&w).is_empty());
    let st = w.query(id).unwrap();
    assert_eq!(
        (st.state, st.deadline_ns, st.cookie),
        (TimerState::Pending, 15 * MS_NS, 2)
    );
    // Absolute, cookie kept: pending before.
    assert_eq!(
        w.modify(id, &Rearm::at(20 * MS_NS)).unwrap(),
        TimerState::Pending
    );
    w.advance(Duration::from_millis(14)).unwrap(); // 19 ms
    assert!(drain(&w).is_empty());
    w.advance(MS).unwrap();
    let evs = drain(&w);
    assert_eq!(evs.len(), 1);
    assert_eq!(
        (evs[0].id(), evs[0].cookie(), evs[0].time_ns()),
        (id, 2, 20 * MS_NS)
    );
    // Cancel of a queued timer retracts its record too.
    let id2 = w.add(&Timer::after(MS)).unwrap();
    w.advance(MS).unwrap();
    assert_eq!(w.cancel(id2).unwrap(), TimerState::Queued);
    assert!(drain(&w).is_empty());
    assert_eq!(w.info().unwrap().queued, 0);
}

pub(crate) fn past_deadline_is_queued_by_add() {
    let w = manual();
    w.advance(Duration::from_millis(100)).unwrap();
    let a = w
        .add(&Timer::at(50 * MS_NS).clock(Clock::Realtime))
        .unwrap();
    let b = w
        .add(&Timer::after(Duration::ZERO).clock(Clock::Tai))
        .unwrap();
    assert_eq!(w.info().unwrap().queued, 2);
    let evs = drain(&w);
    assert_eq!(evs.iter().map(|e| e.id()).collect::<Vec<_>>(), vec![a, b]);
    assert_eq!(evs[0].clock(), Some(Clock::Realtime));
    assert_eq!(evs[1].clock(), Some(Clock::Tai));
    assert!(evs.iter().all(|e| e.time_ns() == 100 * MS_NS));
}

pub(crate) fn query_reports_every_field() {
    let w = manual();
    w.advance(Duration::from_secs(5)).unwrap();
    for (k, clock) in Clock::ALL.iter().enumerate() {
        let rel = Duration::from_millis(100 * (k as u64 + 1));
        let id = w
            .add(&Timer::after(rel).clock(*clock).cookie(k as u64))
            .unwrap();
        let st = w.query(id).unwrap();
        assert_eq!(st.id, id);
        assert_eq!(st.cookie, k as u64);
        assert_eq!(st.clock, *clock);
        assert_eq!(st.deadline_ns, 5_000 * MS_NS + rel.as_nanos() as i64);
        assert_eq!(st.remaining, rel);
        assert_eq!(
            (st.period, st.count, st.state),
            (Duration::ZERO, 0, TimerState::Pending)
        );
    }
    // A period below the tick counts as one tick.
    let id = w
        .add(&Timer::after(MS).every(Duration::from_nanos(10)))
        .unwrap();
    assert_eq!(w.query(id).unwrap().period, MS);
}

pub(crate) fn example_logic_on_the_manual_clock() {
    // The crate's example binary is run by tests/rust/run.sh; here its
    // pattern in miniature: idle timeouts pushed back by activity.
    let w = manual();
    let idle = Duration::from_secs(30);
    let a = w.add(&Timer::after(idle).cookie(1)).unwrap();
    let b = w.add(&Timer::after(idle).cookie(2)).unwrap();
    w.advance(Duration::from_secs(20)).unwrap();
    assert_eq!(
        w.modify(a, &Rearm::after(idle)).unwrap(),
        TimerState::Pending
    ); // activity on 1
    w.advance(Duration::from_secs(10)).unwrap();
    let evs = drain(&w);
    assert_eq!(evs.iter().map(|e| e.id()).collect::<Vec<_>>(), vec![b]);
    w.advance(Duration::from_secs(20)).unwrap();
    let evs = drain(&w);
    assert_eq!(
        evs.iter()
            .map(|e| (e.id(), e.time_ns()))
            .collect::<Vec<_>>(),
        vec![(a, 50_000 * MS_NS)]
    );
}
