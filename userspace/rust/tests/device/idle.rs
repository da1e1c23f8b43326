// SPDX-License-Identifier: LGPL-2.1-or-later
//! Device cases: idle timeouts (IdleTimeouts) over the shared table: touch,
//! remove and expire, headroom, late pushes, a model run, the real clock.

use std::io;
use std::time::{Duration, Instant};

use twheel::IdleTimeouts;

use crate::common::{poll_in, ENOSPC, MS, MS_NS};

/// An IdleTimeouts on the manual clock (1 ms tick) for `conns`
/// connections (and as much headroom).
pub(crate) fn manual_idle(timeout: Duration, conns: u64) -> IdleTimeouts {
    IdleTimeouts::options(timeout, conns)
        .tick(MS)
        .manual(true)
        .open()
        .unwrap()
}

pub(crate) fn idle_drained(idle: &mut IdleTimeouts) -> Vec<u64> {
    let mut v: Vec<u64> = idle.drain().collect::<io::Result<_>>().unwrap();
    v.sort_unstable();
    v
}

pub(crate) fn idle_touch_remove_expire() {
    let mut idle = manual_idle(10 * MS, 16);
    let a = idle.add(100).unwrap();
    let b = idle.add(200).unwrap();
    let c = idle.add(300).unwrap();
    assert_eq!(idle.len(), 3);
    assert_eq!(idle.deadline_ns(a), Some(10 * MS_NS));
    idle.wheel().advance(4 * MS).unwrap();
    assert!(idle.touch(a).unwrap()); // deadline 14 ms: one store
    assert_eq!(idle.deadline_ns(a), Some(14 * MS_NS));
    assert!(idle.remove(c).unwrap());
    assert!(!idle.remove(c).unwrap(), "a stale handle removed twice");
    assert_eq!(idle.cookie(c), None);
    idle.wheel().advance(5 * MS).unwrap();
    assert!(!idle.wait(Some(Duration::ZERO)).unwrap());
    assert!(idle_drained(&mut idle).is_empty(), "expired early");
    idle.wheel().advance(MS).unwrap(); // 10 ms
    assert!(idle.wait(Some(MS)).unwrap());
    assert!(idle.wait(None).unwrap());
    assert_eq!(idle_drained(&mut idle), vec![200]);
    assert!(!idle.touch(b).unwrap(), "an expired connection touched");
    idle.wheel().advance(3 * MS).unwrap();
    assert!(idle_drained(&mut idle).is_empty(), "a expired early");
    idle.wheel().advance(MS).unwrap(); // 14 ms
    assert_eq!(idle_drained(&mut idle), vec![100]);
    idle.wheel().advance(100 * MS).unwrap();
    assert!(idle_drained(&mut idle).is_empty(), "reported twice");
    assert!(idle.is_empty());
    let i = idle.wheel().info().unwrap();
    assert_eq!((i.timers, i.cancelled, idle.late_pushes()), (0, 1, 0));
    // A place reused: the stale handles act on nothing.
    let d = idle.add(400).unwrap();
    assert!(!idle.touch(a).unwrap() && !idle.remove(b).unwrap());
    assert_eq!(idle.cookie(d), Some(400));
}

pub(crate) fn idle_headroom_and_maximum() {
    // 4 connections, headroom 2: two removals lazily, by a store; the
    // third cancels with an ioctl (the table never fills up).
    let mut idle = IdleTimeouts::options(10 * MS, 4)
        .headroom(2)
        .tick(MS)
        .manual(true)
        .open()
        .unwrap();
    assert_eq!(idle.wheel().info().unwrap().max_timers, 6);
    let h: Vec<_> = (0..4).map(|c| idle.add(c).unwrap()).collect();
    assert_errno!(idle.add(4), ENOSPC);
    for (k, timers) in [(0, 4), (1, 4), (2, 3)].iter() {
        assert!(idle.remove(h[*k]).unwrap());
        assert_eq!(
            idle.wheel().info().unwrap().timers,
            *timers,
            "after removing {}",
            k
        );
    }
    let _h4 = idle.add(4).unwrap();
    let _h5 = idle.add(5).unwrap();
    let _h6 = idle.add(6).unwrap();
    assert_errno!(idle.add(7), ENOSPC);
    // 4 tracked and 2 cancelled by a store: the table is full.
    assert_eq!(idle.wheel().info().unwrap().timers, 6);
    idle.wheel().advance(10 * MS).unwrap();
    assert_eq!(idle_drained(&mut idle), vec![3, 4, 5, 6]);
    assert_eq!(idle.wheel().info().unwrap().cancelled, 2);
    // Once the lazily cancelled ones ended, removals are stores again.
    let a = idle.add(7).unwrap();
    let b = idle.add(8).unwrap();
    assert!(idle.remove(a).unwrap());
    assert!(idle.remove(b).unwrap());
    let i = idle.wheel().info().unwrap();
    assert_eq!((i.timers, idle.len()), (2, 0));
    idle.wheel().advance(10 * MS).unwrap();
    assert!(idle_drained(&mut idle).is_empty());
    let i = idle.wheel().info().unwrap();
    assert_eq!((i.timers, i.cancelled), (0, 4));
}

pub(crate) fn idle_late_push_is_readded() {
    let mut idle = manual_idle(10 * MS, 16);
    let a = idle.add(1).unwrap();
    // At 10 ms the record is queued; the touch then comes too late for
    // the kernel, but it is activity: not reported, the timer re-added.
    idle.wheel().advance(10 * MS).unwrap();
    assert_eq!(idle.wheel().info().unwrap().queued, 1);
    assert!(idle.touch(a).unwrap());
    assert!(
        idle_drained(&mut idle).is_empty(),
        "a late push reported as idle"
    );
    assert_eq!(idle.late_pushes(), 1);
    assert_eq!(idle.len(), 1);
    assert_eq!(idle.deadline_ns(a), Some(20 * MS_NS));
    let i = idle.wheel().info().unwrap();
    assert_eq!((i.timers, i.queued), (1, 0));
    idle.wheel().advance(9 * MS).unwrap();
    assert!(idle_drained(&mut idle).is_empty(), "expired early");
    // Touched again through the new timer: the push lands this time.
    assert!(idle.touch(a).unwrap()); // 29 ms
    idle.wheel().advance(MS).unwrap();
    assert!(idle_drained(&mut idle).is_empty(), "expired early");
    idle.wheel().advance(8 * MS).unwrap();
    assert!(idle_drained(&mut idle).is_empty(), "expired early");
    idle.wheel().advance(MS).unwrap(); // 29 ms
    assert_eq!(idle_drained(&mut idle), vec![1]);
    assert_eq!(idle.late_pushes(), 1);
    assert!(idle.is_empty());
}

pub(crate) fn idle_removed_with_a_queued_record() {
    let mut idle = manual_idle(10 * MS, 16);
    let a = idle.add(1).unwrap();
    let b = idle.add(2).unwrap();
    idle.wheel().advance(10 * MS).unwrap();
    // Both records queued; a is closed before they are read: its record,
    // queued before the cancel store, is dropped.
    assert!(idle.remove(a).unwrap());
    assert_eq!(idle_drained(&mut idle), vec![2]);
    assert!(!idle.remove(b).unwrap());
    // A connection removed while its record is queued and its place
    // reused at once: the new one is not taken for the old.
    let c = idle.add(3).unwrap();
    idle.wheel().advance(10 * MS).unwrap();
    assert!(idle.remove(c).unwrap());
    let d = idle.add(4).unwrap();
    assert!(
        idle_drained(&mut idle).is_empty(),
        "a removed connection reported"
    );
    assert_eq!(idle.cookie(d), Some(4));
    idle.wheel().advance(10 * MS).unwrap();
    assert_eq!(idle_drained(&mut idle), vec![4]);
}

/// xorshift64*: the same pattern on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

pub(crate) fn idle_against_a_model() {
    // 300 connections over 3000 steps of 7 ms, a 60 ms timeout: touches
    // (in time, and late: right after the advance that queued the
    // record), removals and new connections, checked at every step
    // against a model of when each was last active.
    const TIMEOUT: i64 = 60;
    const STEP: i64 = 7;
    let mut idle = manual_idle(Duration::from_millis(TIMEOUT as u64), 512);
    let mut rng = Rng(0x5EED);
    // cookie -> (handle, last activity in ms)
    let mut model: std::collections::BTreeMap<u64, (twheel::IdleHandle, i64)> = Default::default();
    let mut next_cookie = 0u64;
    let (mut expired, mut removed) = (0usize, 0usize);
    for _ in 0..300 {
        model.insert(next_cookie, (idle.add(next_cookie).unwrap(), 0));
        next_cookie += 1;
    }
    for step in 1..=3000i64 {
        let now = step * STEP;
        assert_eq!(
            idle.wheel()
                .advance(Duration::from_millis(STEP as u64))
                .unwrap(),
            now * MS_NS
        );
        let cookies: Vec<u64> = model.keys().copied().collect();
        for c in cookies {
            let r = rng.next() % 100;
            let (h, last) = model[&c];
            if r < 12 {
                assert!(idle.touch(h).unwrap());
                model.insert(c, (h, now));
            } else if r < 13 {
                assert!(idle.remove(h).unwrap());
                model.remove(&c);
                removed += 1;
            } else if r < 14 && last + TIMEOUT <= now {
                // Idle in the model already, touched before the drain:
                // a late push for sure when its record is queued.
                assert!(idle.touch(h).unwrap());
                model.insert(c, (h, now));
            }
        }
        for _ in 0..(rng.next() % 3) {
            model.insert(next_cookie, (idle.add(next_cookie).unwrap(), now));
            next_cookie += 1;
        }
        let got = idle_drained(&mut idle);
        let want: Vec<u64> = model
            .iter()
            .filter(|(_, &(_, last))| last + TIMEOUT <= now)
            .map(|(&c, _)| c)
            .collect();
        assert_eq!(got, want, "at {} ms", now);
        for c in &got {
            model.remove(c);
        }
        expired += got.len();
        assert_eq!(idle.len(), model.len());
    }
    let i = idle.wheel().info().unwrap();
    println!(
        "# {} connections: {} expired, {} removed, {} late pushes re-added, {} open; {} timers, {} ended by a cancel store",
        next_cookie,
        expired,
        removed,
        idle.late_pushes(),
        idle.len(),
        i.timers,
        i.cancelled
    );
    assert!(idle.late_pushes() > 10 && expired > 100 && removed > 100);
}

pub(crate) fn idle_on_the_real_clock() {
    let timeout = 100 * MS;
    let mut idle = IdleTimeouts::open(timeout, 8).unwrap();
    assert!(idle.wheel().is_nonblocking().unwrap());
    let t0 = Instant::now();
    let h: Vec<_> = (0..3).map(|c| idle.add(c).unwrap()).collect();
    let mut last = [t0; 3];
    // Connection 1 is active 5 times, 30 ms apart; 2 is closed at once.
    assert!(idle.remove(h[2]).unwrap());
    let mut touches = 0;
    let mut got = Vec::new();
    while got.len() < 2 {
        let wait = if touches < 5 { 30 } else { -1 };
        poll_in(&idle, wait);
        for c in idle.drain() {
            let c = c.unwrap();
            let idle_for = last[c as usize].elapsed();
            assert!(
                idle_for >= timeout,
                "conn {} reported after {:?} idle",
                c,
                idle_for
            );
            got.push(c);
        }
        if touches < 5 && t0.elapsed() >= (touches + 1) * 30 * MS {
            if idle.touch(h[1]).unwrap() {
                last[1] = Instant::now();
            }
            touches += 1;
        }
    }
    got.sort_unstable();
    assert_eq!(got, vec![0, 1]);
    assert!(idle.is_empty());
}
