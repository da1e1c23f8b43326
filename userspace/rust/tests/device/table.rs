// SPDX-License-Identifier: LGPL-2.1-or-later
//! Device cases: the shared timer table (Table, TableTimer): mapping it,
//! deadlines pushed or cancelled by a store, and pushes that come too late.

use std::io;
use std::time::{Duration, Instant};

use twheel::sys;
use twheel::{Clock, Config, Timer, TimerState, Twheel};

use crate::common::{drain, poll_in, EBUSY, ENODEV, ENOENT, MS, MS_NS};

/// A manual-clock fd (1 ms tick) with a table of `entries` entries.
pub(crate) fn manual_table(entries: u64) -> Twheel {
    let w = Twheel::open_nonblocking().unwrap();
    w.configure(&Config::new().tick(MS).manual(true).table(entries))
        .unwrap();
    w
}

pub(crate) fn table_map_and_entries() {
    // No table: ENODEV (as mmap(2) says it), nothing mapped.
    let w = Twheel::open_nonblocking().unwrap();
    assert_errno!(w.map_table().map(|t| t.len()), ENODEV);
    let w = Twheel::open_nonblocking().unwrap();
    w.configure(&Config::new().table(64)).unwrap();
    let i = w.info().unwrap();
    assert!(i.has_feature(sys::TWHEEL_FEATURE_TABLE));
    assert_eq!(i.max_timers, 64);
    assert_ne!(i.config_flags & sys::TWHEEL_CONFIG_TABLE, 0);
    assert!(i.table_size >= 64 * 8, "table_size {}", i.table_size);
    {
        let t = w.map_table().unwrap();
        assert_eq!((t.len(), t.tick()), (64, MS));
        // Once mapped, the configuration is fixed.
        assert_errno!(w.configure(&Config::new().table(64)), EBUSY);
        let now = Clock::Monotonic.now().unwrap();
        let a = t
            .add(&Timer::after(Duration::from_secs(60)).cookie(5))
            .unwrap();
        // The deadline made absolute, rounded up to a tick; the kernel
        // wrote it into the entry on the add.
        assert!(a.tick() * MS_NS >= now + 60_000 * MS_NS);
        assert_eq!(a.clock(), Clock::Monotonic);
        assert_eq!(
            t.load(&a),
            sys::twheel_table_deadline(a.id().as_raw(), a.tick() as u64)
        );
        let st = w.query(a.id()).unwrap();
        assert_eq!((st.deadline_ns, st.cookie), (a.tick() * MS_NS, 5));
        // A timer added otherwise, bound by a query.
        let id = w.add(&Timer::after(Duration::from_secs(90))).unwrap();
        let b = t.bind(id).unwrap();
        assert_eq!(b.tick() * MS_NS, w.query(id).unwrap().deadline_ns);
        assert_eq!(
            t.load(&b),
            sys::twheel_table_deadline(id.as_raw(), b.tick() as u64)
        );
        // A periodic timer ignores stored deadlines: refused.
        let e = t
            .add(&Timer::after(MS).every(Duration::from_secs(1)))
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        // Beyond 2^31 ticks: refused, not stored wrapped.
        let mut a2 = a.clone();
        let e = t
            .push(&mut a2, Duration::from_secs(30 * 86_400))
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(a2, a);
        assert_eq!(w.cancel(a.id()).unwrap(), TimerState::Pending);
        // The kernel writes 0 when the timer ends.
        assert_eq!(t.load(&a), 0);
    }
    // Unmapped (the Table dropped): the fd and its timers go on.
    assert_eq!(w.info().unwrap().timers, 1);
}

pub(crate) fn table_push_moves_the_deadline() {
    let w = manual_table(16);
    let t = w.map_table().unwrap();
    let mut a = t.add(&Timer::after(10 * MS).cookie(1)).unwrap();
    let b = t.add(&Timer::after(10 * MS).cookie(2)).unwrap();
    assert_eq!((a.tick(), b.tick()), (10, 10));
    w.advance(5 * MS).unwrap();
    // Activity on a at 5 ms: its deadline becomes 15 ms, by one store.
    t.push(&mut a, 10 * MS).unwrap();
    assert_eq!(a.tick(), 15);
    assert_eq!(t.load(&a), sys::twheel_table_deadline(a.id().as_raw(), 15));
    w.advance(5 * MS).unwrap();
    // At 10 ms only b expires: a was placed again, with no record.
    let evs = drain(&w);
    assert_eq!(evs.iter().map(|e| e.id()).collect::<Vec<_>>(), vec![b.id()]);
    assert!(t.expired(&b, &evs[0]));
    assert_eq!(w.query(a.id()).unwrap().deadline_ns, 15 * MS_NS);
    w.advance(4 * MS).unwrap();
    assert!(drain(&w).is_empty(), "a expired before its pushed deadline");
    // push_at: absolute, rounded up to a tick (never earlier).
    t.push_at(&mut a, 16 * MS_NS + 1);
    assert_eq!(a.tick(), 17);
    w.advance(2 * MS).unwrap();
    assert!(drain(&w).is_empty(), "a expired before 17 ms");
    w.advance(MS).unwrap();
    let evs = drain(&w);
    assert_eq!(evs.len(), 1);
    assert_eq!(
        (evs[0].id(), evs[0].cookie(), evs[0].time_ns()),
        (a.id(), 1, 17 * MS_NS)
    );
    assert!(t.expired(&a, &evs[0]));
    assert_eq!(t.load(&a), 0);
    assert_eq!(w.info().unwrap().timers, 0);
}

pub(crate) fn table_push_on_the_real_clock_is_never_early() {
    let w = Twheel::open_nonblocking().unwrap();
    w.configure(&Config::new().table(4)).unwrap();
    let t = w.map_table().unwrap();
    let t0 = Instant::now();
    let mut a = t.add(&Timer::after(50 * MS)).unwrap();
    let first = a.tick() * MS_NS;
    t.push(&mut a, 150 * MS).unwrap();
    let pushed = a.tick() * MS_NS;
    assert!(pushed >= first + 100 * MS_NS);
    let ev = loop {
        poll_in(&w, -1);
        if let Some(ev) = drain(&w).pop() {
            break ev;
        }
    };
    assert_eq!(ev.id(), a.id());
    // Never before the deadline the kernel knew; if the store came in
    // time (it is not timed here: TCG may be slow), not before the pushed
    // one either, and expired() tells which.
    assert!(
        ev.time_ns() >= first,
        "record at {} before {}",
        ev.time_ns(),
        first
    );
    if t.expired(&a, &ev) {
        assert!(ev.time_ns() >= pushed);
        assert!(t0.elapsed() >= 150 * MS);
    } else {
        println!(
            "# the push came too late (a slow machine): record at {} < {}",
            ev.time_ns(),
            pushed
        );
    }
}

pub(crate) fn table_cancel_ends_with_no_record() {
    let w = manual_table(16);
    let t = w.map_table().unwrap();
    let a = t.add(&Timer::after(10 * MS)).unwrap();
    let b = t.add(&Timer::after(20 * MS)).unwrap();
    t.cancel(&a);
    assert_eq!(t.load(&a), sys::twheel_table_cancelled(a.id().as_raw()));
    // A live timer until its deadline tick.
    let i = w.info().unwrap();
    assert_eq!((i.timers, i.cancelled), (2, 0));
    w.advance(10 * MS).unwrap();
    assert!(drain(&w).is_empty(), "a cancelled timer gave a record");
    let i = w.info().unwrap();
    assert_eq!((i.timers, i.cancelled), (1, 1));
    assert_errno!(w.query(a.id()), ENOENT);
    assert_eq!(t.load(&a), 0);
    w.advance(10 * MS).unwrap();
    let evs = drain(&w);
    assert_eq!(evs.iter().map(|e| e.id()).collect::<Vec<_>>(), vec![b.id()]);
    assert_eq!(w.info().unwrap().cancelled, 1);
}

pub(crate) fn table_late_push_is_not_expired() {
    let w = manual_table(16);
    let t = w.map_table().unwrap();
    let mut a = t.add(&Timer::after(10 * MS)).unwrap();
    // At 10 ms the kernel read the entry and queued the record; the push
    // after that is too late.
    w.advance(10 * MS).unwrap();
    t.push(&mut a, 10 * MS).unwrap();
    assert_eq!(a.tick(), 20);
    let evs = drain(&w);
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].time_ns(), 10 * MS_NS);
    assert!(!t.expired(&a, &evs[0]), "a late push taken for an expiry");
    // The one-shot timer ended with that record.
    assert_errno!(w.query(a.id()), ENOENT);
    // A cancel stored too late: the record still comes (queued before).
    let c = t.add(&Timer::after(5 * MS)).unwrap();
    w.advance(5 * MS).unwrap();
    t.cancel(&c);
    let evs = drain(&w);
    assert_eq!(evs.iter().map(|e| e.id()).collect::<Vec<_>>(), vec![c.id()]);
    assert_eq!(w.info().unwrap().cancelled, 0);
}
