// SPDX-License-Identifier: LGPL-2.1-or-later
//! Device cases: reading records (non-blocking, blocking, through the
//! iterator), poll(2) and the non-blocking toggle, and the fd's ownership
//! (into/from a raw fd, duplicates).

use std::io::{self, Read};
use std::os::unix::io::{AsRawFd, FromRawFd, IntoRawFd};
use std::time::{Duration, Instant};

use twheel::{Clock, EventBuf, Timer, Twheel};

use crate::common::{drain, manual, poll_in, EAGAIN, EINVAL, MS, MS_NS, POLLIN};

pub(crate) fn nonblocking_read_and_iterator() {
    let w = Twheel::open_nonblocking().unwrap();
    let mut evs = [twheel::Event::default(); 4];
    let e = w.read_events(&mut evs).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(EAGAIN));
    assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
    let mut buf = EventBuf::new(4);
    assert!(w.events(&mut buf).next().is_none());
    // An empty buffer is the kernel's EINVAL (smaller than a record), as
    // is a 39-byte read through any other handle of the fd.
    assert_errno!(w.read_events(&mut []), EINVAL);
    let mut f = std::fs::File::from(w.try_clone().unwrap());
    assert_errno!(f.read(&mut [0u8; 39]), EINVAL);
    assert_errno!(f.read(&mut [0u8; 40]), EAGAIN);
}

pub(crate) fn iterator_keeps_what_it_read_ahead() {
    let w = manual();
    for c in 0..10u64 {
        w.add(&Timer::after(MS).cookie(c)).unwrap();
    }
    w.advance(MS).unwrap();
    let mut buf = EventBuf::new(8);
    // Take 3 and drop the iterator: 5 more were read ahead into buf.
    let first: Vec<u64> = w
        .events(&mut buf)
        .take(3)
        .map(|e| e.unwrap().cookie())
        .collect();
    assert_eq!(first, vec![0, 1, 2]);
    assert_eq!(buf.len(), 5);
    assert_eq!(w.info().unwrap().queued, 2);
    let rest: Vec<u64> = w.events(&mut buf).map(|e| e.unwrap().cookie()).collect();
    assert_eq!(rest, vec![3, 4, 5, 6, 7, 8, 9]);
    assert!(buf.is_empty());
}

pub(crate) fn blocking_read_waits_for_the_deadline() {
    let w = Twheel::open().unwrap();
    for clock in Clock::ALL.iter() {
        let before = clock.now().unwrap();
        let t0 = Instant::now();
        let id = w
            .add(
                &Timer::after(Duration::from_millis(30))
                    .clock(*clock)
                    .cookie(clock.as_raw() as u64),
            )
            .unwrap();
        let mut buf = EventBuf::new(4);
        let ev = w.events(&mut buf).next().unwrap().unwrap();
        assert!(
            t0.elapsed() >= Duration::from_millis(30),
            "{:?}: woke after {:?}",
            clock,
            t0.elapsed()
        );
        assert_eq!(
            (ev.id(), ev.cookie(), ev.count()),
            (id, clock.as_raw() as u64, 1)
        );
        assert_eq!(ev.clock(), Some(*clock));
        // Never early, on the timer's own clock.
        assert!(
            ev.time_ns() >= before + 30 * MS_NS,
            "{:?}: {} < {} + 30 ms",
            clock,
            ev.time_ns(),
            before
        );
        assert!(buf.is_empty());
    }
    // Absolute, on CLOCK_MONOTONIC; read(2) directly.
    let at = Clock::Monotonic.now().unwrap() + 20 * MS_NS;
    let id = w.add(&Timer::at(at)).unwrap();
    let mut evs = [twheel::Event::default(); 2];
    assert_eq!(w.read_events(&mut evs).unwrap(), 1);
    assert_eq!(evs[0].id(), id);
    assert!(evs[0].time_ns() >= at);
    assert!(Clock::Monotonic.now().unwrap() >= at);
}

pub(crate) fn poll_and_nonblocking_toggle() {
    let w = Twheel::open().unwrap();
    assert!(!w.is_nonblocking().unwrap());
    w.set_nonblocking(true).unwrap();
    assert!(w.is_nonblocking().unwrap());
    assert_eq!(poll_in(&w, 0), 0);
    let t0 = Instant::now();
    w.add(&Timer::after(Duration::from_millis(20))).unwrap();
    // An event loop's wait: poll wakes when the record is queued.
    assert_eq!(poll_in(&w, 5000), POLLIN);
    assert!(t0.elapsed() >= Duration::from_millis(20));
    assert_eq!(drain(&w).len(), 1);
    assert_eq!(poll_in(&w, 0), 0);
    w.set_nonblocking(false).unwrap();
    assert!(!w.is_nonblocking().unwrap());
}

pub(crate) fn fd_ownership_round_trips() {
    let w = manual();
    let id = w.add(&Timer::after(MS).cookie(3)).unwrap();
    let raw = w.into_raw_fd();
    // SAFETY: raw came from into_raw_fd; nothing else owns it.
    let w = unsafe { Twheel::from_raw_fd(raw) };
    assert_eq!(w.as_raw_fd(), raw);
    assert_eq!(w.query(id).unwrap().cookie, 3);
    let dup = w.try_clone().unwrap();
    assert_ne!(dup.as_raw_fd(), raw);
    dup.advance(MS).unwrap();
    drop(w);
    // The duplicate is the same timer set.
    let evs = drain(&dup);
    assert_eq!((evs.len(), evs[0].id()), (1, id));
    // Closing the last fd ends the set; a new open is empty.
    drop(dup);
    assert_eq!(Twheel::open().unwrap().info().unwrap().timers, 0);
}
