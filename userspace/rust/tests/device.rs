// SPDX-License-Identifier: LGPL-2.1-or-later
//! The binding against the real module: needs /dev/twheel, so it runs in
//! the test VM (tests/rust/run.sh builds it static and runs it there).
//!
//! Its own harness (`harness = false`), in the project's TAP-like style:
//! every case runs in a child process of its own (this binary re-run with
//! `--case NAME`) under a time limit, and prints "ok rust/NAME" or
//! "not ok rust/NAME"; diagnostics are "# " lines. Exit status: the number
//! of failed cases (0: all passed).
//!
//!   device [SUBSTRING]     only the cases whose name contains SUBSTRING
//!
//! Without /dev/twheel every case is reported skipped, unless
//! TWHEEL_REQUIRE_DEVICE=1 (set in the VM), which makes that a failure.

use std::io::{self, Read};
use std::os::raw::{c_int, c_short, c_ulong};
use std::os::unix::io::{AsFd, AsRawFd, FromRawFd, IntoRawFd};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use twheel::sys;
use twheel::{
    Batch, Clock, Config, EventBuf, IdleTimeouts, Missed, OpOutcome, Rearm, Timer, TimerId,
    TimerState, Twheel,
};

// errno values (x86-64, the VM's architecture; the same on most).
const ENOENT: i32 = 2;
const E2BIG: i32 = 7;
const EAGAIN: i32 = 11;
const EBUSY: i32 = 16;
const EINVAL: i32 = 22;
const EPERM: i32 = 1;
const ENXIO: i32 = 6;
const ENODEV: i32 = 19;
const ENOSPC: i32 = 28;

const MS: Duration = Duration::from_millis(1);
const MS_NS: i64 = 1_000_000;

/// Asserts that `$e` is `Err` with errno `$errno`.
macro_rules! assert_errno {
    ($e:expr, $errno:expr) => {
        match $e {
            Ok(v) => panic!("{}: want errno {}, got Ok({:?})", stringify!($e), $errno, v),
            Err(err) => assert_eq!(
                err.raw_os_error(),
                Some($errno),
                "{}: want errno {}, got {}",
                stringify!($e),
                $errno,
                err
            ),
        }
    };
}

fn manual() -> Twheel {
    Twheel::open_manual(MS).expect("open a manual-clock fd")
}

/// Every record queued now (the fd must be non-blocking).
fn drain(w: &Twheel) -> Vec<twheel::Event> {
    let mut buf = EventBuf::new(16);
    let evs: io::Result<Vec<_>> = w.events(&mut buf).collect();
    evs.expect("read records")
}

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: c_short,
    revents: c_short,
}
const POLLIN: c_short = 0x1;
extern "C" {
    fn poll(fds: *mut PollFd, nfds: c_ulong, timeout: c_int) -> c_int;
    fn geteuid() -> u32;
    fn mknod(path: *const std::os::raw::c_char, mode: u32, dev: u64) -> c_int;
}

/// Root (who has CAP_WAKE_ALARM, which the alarm clocks need)?
fn root() -> bool {
    unsafe { geteuid() == 0 }
}

/// poll(2) on anything with an fd, as an event loop would: its revents.
fn poll_in(fd: &impl AsFd, timeout_ms: i32) -> c_short {
    let mut p = PollFd {
        fd: fd.as_fd().as_raw_fd(),
        events: POLLIN,
        revents: 0,
    };
    let n = unsafe { poll(&mut p, 1, timeout_ms) };
    assert!(n >= 0, "poll: {}", io::Error::last_os_error());
    p.revents
}

// ---- cases ----

fn info_handshake() {
    let w = Twheel::open().unwrap();
    let i = w.info().unwrap();
    assert_eq!(i.version, sys::TWHEEL_ABI_VERSION);
    assert_eq!(i.event_size, 40);
    assert_eq!(i.op_size, 72);
    assert_eq!(i.status_size, 56);
    assert_eq!(i.max_batch, 1024);
    assert_eq!(i.tick, MS);
    assert_eq!(i.min_tick, Duration::from_micros(1));
    assert_eq!(i.max_tick, Duration::from_secs(1));
    assert!(!i.manual);
    assert_eq!((i.timers, i.queued), (0, 0));
    for c in Clock::ALL.iter() {
        assert!(i.supports_clock(*c), "{:?}", c);
    }
    for c in Clock::ALARMS.iter() {
        assert!(i.supports_clock(*c), "{:?}", c);
    }
    assert_eq!(
        i.clocks,
        (1 << 0) | (1 << 1) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 11)
    );
    for cmd in [
        sys::TWHEEL_IOC_INFO,
        sys::TWHEEL_IOC_ADD,
        sys::TWHEEL_IOC_CANCEL,
        sys::TWHEEL_IOC_MODIFY,
        sys::TWHEEL_IOC_QUERY,
        sys::TWHEEL_IOC_LIST,
        sys::TWHEEL_IOC_SUBMIT,
        sys::TWHEEL_IOC_CONFIG,
        sys::TWHEEL_IOC_ADVANCE,
    ]
    .iter()
    {
        assert!(i.supports_ioctl(*cmd), "ioctl {:#x}", cmd);
    }
    assert!(i.has_feature(sys::TWHEEL_FEATURE_PERIODIC | sys::TWHEEL_FEATURE_MANUAL_CLOCK));
    assert!(i.has_feature(sys::TWHEEL_FEATURE_ALARM | sys::TWHEEL_FEATURE_CLOCK_SET));
    assert!(!w.is_nonblocking().unwrap());
    assert!(Twheel::open_nonblocking()
        .unwrap()
        .is_nonblocking()
        .unwrap());
}

fn alarm_clocks() {
    let w = Twheel::open_nonblocking().unwrap();
    for c in Clock::ALARMS.iter() {
        let t = Timer::after(Duration::from_secs(60)).clock(*c).cookie(4);
        if !root() {
            assert_errno!(w.add(&t), EPERM);
            continue;
        }
        let id = w.add(&t).unwrap();
        let st = w.query(id).unwrap();
        assert_eq!((st.clock, st.cookie), (*c, 4));
        assert_eq!(w.cancel(id).unwrap(), TimerState::Pending);
    }
    assert_eq!(w.info().unwrap().timers, 0);
    // On the manual clock too (a manual fd reports the clock it was given).
    if root() {
        let m = manual();
        let id = m
            .add(&Timer::after(MS).clock(Clock::BoottimeAlarm).cookie(9))
            .unwrap();
        m.advance(MS).unwrap();
        let evs = drain(&m);
        assert_eq!(evs.len(), 1);
        assert_eq!(
            (evs[0].id(), evs[0].clock(), evs[0].flags()),
            (id, Some(Clock::BoottimeAlarm), 0)
        );
    }
}

fn cancel_on_set_rules() {
    let w = Twheel::open_nonblocking().unwrap();
    let rt = Clock::Realtime.now().unwrap() + 3_600_000 * MS_NS;
    let mut clocks = Clock::ALL.to_vec();
    if root() {
        clocks.extend_from_slice(&Clock::ALARMS);
    }
    for c in clocks.iter() {
        let abs = Timer::at(rt).clock(*c).cancel_on_set(true);
        if c.is_wall() {
            let id = w.add(&abs).unwrap();
            assert_eq!(w.cancel(id).unwrap(), TimerState::Pending);
        } else {
            assert_errno!(w.add(&abs), EINVAL);
        }
        // A relative deadline: never.
        assert_errno!(
            w.add(&Timer::after(MS).clock(*c).cancel_on_set(true)),
            EINVAL
        );
    }
    assert_eq!(w.info().unwrap().timers, 0);
    let mono = w.add(&Timer::after(Duration::from_secs(60))).unwrap();
    assert_errno!(w.modify(mono, &Rearm::at(rt).cancel_on_set(true)), EINVAL);
    let wall = w
        .add(&Timer::at(rt).clock(Clock::Realtime).cookie(1))
        .unwrap();
    assert_errno!(
        w.modify(wall, &Rearm::after(MS).cancel_on_set(true)),
        EINVAL
    );
    assert_eq!(
        w.modify(wall, &Rearm::at(rt).cancel_on_set(true)).unwrap(),
        TimerState::Pending
    );
    let mut b = Batch::new();
    let ok = b.add(&Timer::at(rt).clock(Clock::Tai).cancel_on_set(true));
    let bad = b.add(&Timer::at(rt).clock(Clock::Boottime).cancel_on_set(true));
    w.submit(&mut b).unwrap();
    assert!(b.result(ok).unwrap().is_ok());
    assert_errno!(b.result(bad).unwrap(), EINVAL);
    assert_eq!(w.info().unwrap().timers, 3);
    assert!(drain(&w).is_empty());
}

fn config_clock_set() {
    let w = Twheel::open_nonblocking().unwrap();
    w.configure(&Config::new().clock_set(true)).unwrap();
    assert_eq!(w.info().unwrap().config_flags, sys::TWHEEL_CONFIG_CLOCK_SET);
    w.configure(&Config::new().manual(true).clock_set(true))
        .unwrap();
    let i = w.info().unwrap();
    assert_eq!(
        i.config_flags,
        sys::TWHEEL_CONFIG_MANUAL | sys::TWHEEL_CONFIG_CLOCK_SET
    );
    assert!(i.manual);
    // The last configuration counts.
    w.configure(&Config::new()).unwrap();
    assert_eq!(w.info().unwrap().config_flags, 0);
    // No record comes of configuring.
    assert!(drain(&w).is_empty());
}

fn add_then_cancel_is_pending() {
    let w = Twheel::open_nonblocking().unwrap();
    let a = w
        .add(&Timer::after(Duration::from_secs(60)).cookie(5))
        .unwrap();
    let b = w.add(&Timer::after(Duration::from_secs(60))).unwrap();
    assert_ne!(a.as_raw(), 0);
    assert_ne!(a, b);
    assert_eq!(w.info().unwrap().timers, 2);
    assert_eq!(w.cancel(a).unwrap(), TimerState::Pending);
    // Gone: a second cancel, a query and a modify know no such timer.
    assert_errno!(w.cancel(a), ENOENT);
    assert_errno!(w.query(a), ENOENT);
    assert_errno!(w.modify(a, &Rearm::after(MS)), ENOENT);
    assert_eq!(w.info().unwrap().timers, 1);
    assert_eq!(w.cancel(b).unwrap(), TimerState::Pending);
    assert_eq!(w.info().unwrap().timers, 0);
    // Nothing was ever queued.
    assert_errno!(w.read_events(&mut [twheel::Event::default(); 2]), EAGAIN);
}

fn modify_unknown_is_enoent() {
    let w = Twheel::open().unwrap();
    let other = Twheel::open().unwrap();
    let id = other.add(&Timer::after(Duration::from_secs(60))).unwrap();
    // Never made here; made by another fd; the id 0, never a timer's.
    assert_errno!(
        w.modify(TimerId::from_raw(12345), &Rearm::after(MS)),
        ENOENT
    );
    assert_errno!(w.modify(id, &Rearm::after(MS)), ENOENT);
    assert_errno!(w.cancel(TimerId::from_raw(0)), ENOENT);
    assert_errno!(w.query(TimerId::from_raw(u64::MAX)), ENOENT);
    // The other fd's timer is untouched.
    assert_eq!(other.query(id).unwrap().state, TimerState::Pending);
}

fn bad_arguments_are_einval() {
    let w = Twheel::open().unwrap();
    // Clocks twheel does not take (CLOCK_PROCESS_CPUTIME_ID, ..._RAW,
    // CLOCK_SGI_CYCLE, nonsense): only the raw ABI can name them.
    for clock in [2u32, 4, 10, 12, 1000].iter() {
        let mut a = Timer::after(MS).to_sys();
        a.clock = *clock;
        let r = unsafe {
            sys::ioctl(
                w.as_raw_fd(),
                sys::TWHEEL_IOC_ADD,
                &mut a as *mut _ as *mut _,
            )
        };
        assert_errno!(r, EINVAL);
        assert_eq!(a.id, 0, "no id written on error");
    }
    // A negative relative deadline, unknown flags.
    let mut a = Timer::after(MS).to_sys();
    a.expires_ns = -1;
    assert_errno!(
        unsafe {
            sys::ioctl(
                w.as_raw_fd(),
                sys::TWHEEL_IOC_ADD,
                &mut a as *mut _ as *mut _,
            )
        },
        EINVAL
    );
    let mut a = Timer::after(MS).to_sys();
    a.flags = 0x80;
    assert_errno!(
        unsafe {
            sys::ioctl(
                w.as_raw_fd(),
                sys::TWHEEL_IOC_ADD,
                &mut a as *mut _ as *mut _,
            )
        },
        EINVAL
    );
    // Ticks out of range.
    assert_errno!(
        w.configure(&Config::new().tick(Duration::from_nanos(999))),
        EINVAL
    );
    assert_errno!(
        w.configure(&Config::new().tick(Duration::from_secs(2))),
        EINVAL
    );
    // A real-clock fd has no manual clock to advance.
    assert_errno!(w.advance(MS), EINVAL);
    assert_eq!(w.info().unwrap().timers, 0);
    // A larger (newer) struct with a non-zero tail: E2BIG.
    let mut big = [0u64; 6];
    big[1] = 1_000_000; // expires_ns
    big[3] = 1; // clock MONOTONIC (flags 0)
    let mut bigger = [0u64; 7];
    bigger[..6].copy_from_slice(&big);
    bigger[6] = 1;
    let cmd = sys::ioc::iowr(sys::TWHEEL_IOC_TYPE, 1, 56);
    assert_errno!(
        unsafe { sys::ioctl(w.as_raw_fd(), cmd, bigger.as_mut_ptr() as *mut _) },
        E2BIG
    );
}

fn configure_after_first_timer_is_ebusy() {
    let w = Twheel::open().unwrap();
    w.configure(&Config::new().tick(Duration::from_micros(100)))
        .unwrap();
    w.configure(&Config::new().tick(Duration::from_micros(500)))
        .unwrap(); // the last counts
    assert_eq!(w.info().unwrap().tick, Duration::from_micros(500));
    let id = w.add(&Timer::after(Duration::from_secs(9))).unwrap();
    assert_errno!(w.configure(&Config::new()), EBUSY);
    w.cancel(id).unwrap();
    // Even once the timer is gone.
    assert_errno!(w.configure(&Config::new().manual(true)), EBUSY);
    assert_eq!(w.info().unwrap().tick, Duration::from_micros(500));
}

fn manual_clock_starts_at_zero_and_advances() {
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

fn manual_records_in_deadline_then_add_order() {
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
fn manual_missed_policies() {
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

fn manual_periodic_exact_counts() {
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

fn modify_retracts_a_queued_record() {
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

fn past_deadline_is_queued_by_add() {
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

fn batch_partial_errors() {
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

fn batch_longer_than_max_is_split() {
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

fn nonblocking_read_and_iterator() {
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

fn iterator_keeps_what_it_read_ahead() {
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

fn blocking_read_waits_for_the_deadline() {
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

fn poll_and_nonblocking_toggle() {
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

fn fd_ownership_round_trips() {
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

fn query_reports_every_field() {
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

fn example_logic_on_the_manual_clock() {
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

// ---- the shared timer table ----

/// A manual-clock fd (1 ms tick) with a table of `entries` entries.
fn manual_table(entries: u64) -> Twheel {
    let w = Twheel::open_nonblocking().unwrap();
    w.configure(&Config::new().tick(MS).manual(true).table(entries))
        .unwrap();
    w
}

fn table_map_and_entries() {
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

fn table_push_moves_the_deadline() {
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

fn table_push_on_the_real_clock_is_never_early() {
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

fn table_cancel_ends_with_no_record() {
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

fn table_late_push_is_not_expired() {
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

// ---- idle timeouts (IdleTimeouts) ----

/// An IdleTimeouts on the manual clock (1 ms tick) for `conns`
/// connections (and as much headroom).
fn manual_idle(timeout: Duration, conns: u64) -> IdleTimeouts {
    IdleTimeouts::options(timeout, conns)
        .tick(MS)
        .manual(true)
        .open()
        .unwrap()
}

fn idle_drained(idle: &mut IdleTimeouts) -> Vec<u64> {
    let mut v: Vec<u64> = idle.drain().collect::<io::Result<_>>().unwrap();
    v.sort_unstable();
    v
}

fn idle_touch_remove_expire() {
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

fn idle_headroom_and_maximum() {
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

fn idle_late_push_is_readded() {
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

fn idle_removed_with_a_queued_record() {
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

fn idle_against_a_model() {
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

fn idle_on_the_real_clock() {
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

fn open_errors_say_what_to_do() {
    // A missing node: the module is not loaded.
    let e = Twheel::options().path("/dev/no-twheel").open().unwrap_err();
    assert_eq!(e.raw_os_error(), Some(ENOENT));
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    let s = e.to_string();
    assert!(s.starts_with("/dev/no-twheel: "), "{}", s);
    assert!(s.contains("is the module loaded? modprobe twheel"), "{}", s);
    // Through `?` into io::Error: the message kept, the errno reachable.
    let io: io::Error = e.into();
    assert_eq!(io.kind(), io::ErrorKind::NotFound);
    assert_eq!(io.to_string(), s);
    // A node whose driver is not there (a major no driver has): ENXIO,
    // the same hint.
    if root() {
        let path = "/tmp/twheel-no-driver";
        let _ = std::fs::remove_file(path);
        let cpath = std::ffi::CString::new(path).unwrap();
        // S_IFCHR | 0600, major 241 (local/experimental), minor 0.
        let dev: u64 = 241 << 8;
        assert_eq!(
            unsafe { mknod(cpath.as_ptr(), 0o020600, dev) },
            0,
            "mknod: {}",
            io::Error::last_os_error()
        );
        let e = Twheel::options().path(path).open().unwrap_err();
        let _ = std::fs::remove_file(path);
        assert!(
            e.raw_os_error() == Some(ENXIO) || e.raw_os_error() == Some(ENODEV),
            "{:?}",
            e
        );
        assert!(e.to_string().contains("modprobe twheel"), "{}", e);
    }
    // The real device opens; a regular file is not twheel's device.
    Twheel::open().unwrap();
    let e = Twheel::options()
        .path("/proc/self/stat")
        .open()
        .unwrap_err();
    assert!(e.raw_os_error().is_some(), "{:?}", e);
    // IdleTimeouts: bad sizes say so.
    let e = IdleTimeouts::open(MS, 0).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    let e = IdleTimeouts::open(Duration::from_secs(30 * 86_400), 1).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    assert!(e.to_string().contains("2^31 ticks"), "{}", e);
    let e = IdleTimeouts::open(MS, u32::MAX as u64).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(EINVAL), "{}", e);
}

// ---- harness ----

type Case = (&'static str, fn());

const CASES: &[Case] = &[
    ("info_handshake", info_handshake),
    ("alarm_clocks", alarm_clocks),
    ("cancel_on_set_rules", cancel_on_set_rules),
    ("config_clock_set", config_clock_set),
    ("add_then_cancel_is_pending", add_then_cancel_is_pending),
    ("modify_unknown_is_enoent", modify_unknown_is_enoent),
    ("bad_arguments_are_einval", bad_arguments_are_einval),
    (
        "configure_after_first_timer_is_ebusy",
        configure_after_first_timer_is_ebusy,
    ),
    (
        "manual_clock_starts_at_zero_and_advances",
        manual_clock_starts_at_zero_and_advances,
    ),
    (
        "manual_records_in_deadline_then_add_order",
        manual_records_in_deadline_then_add_order,
    ),
    ("manual_periodic_exact_counts", manual_periodic_exact_counts),
    ("manual_missed_policies", manual_missed_policies),
    (
        "modify_retracts_a_queued_record",
        modify_retracts_a_queued_record,
    ),
    (
        "past_deadline_is_queued_by_add",
        past_deadline_is_queued_by_add,
    ),
    ("batch_partial_errors", batch_partial_errors),
    (
        "batch_longer_than_max_is_split",
        batch_longer_than_max_is_split,
    ),
    (
        "nonblocking_read_and_iterator",
        nonblocking_read_and_iterator,
    ),
    (
        "iterator_keeps_what_it_read_ahead",
        iterator_keeps_what_it_read_ahead,
    ),
    (
        "blocking_read_waits_for_the_deadline",
        blocking_read_waits_for_the_deadline,
    ),
    ("poll_and_nonblocking_toggle", poll_and_nonblocking_toggle),
    ("fd_ownership_round_trips", fd_ownership_round_trips),
    ("query_reports_every_field", query_reports_every_field),
    (
        "example_logic_on_the_manual_clock",
        example_logic_on_the_manual_clock,
    ),
    ("table_map_and_entries", table_map_and_entries),
    (
        "table_push_moves_the_deadline",
        table_push_moves_the_deadline,
    ),
    (
        "table_push_on_the_real_clock_is_never_early",
        table_push_on_the_real_clock_is_never_early,
    ),
    (
        "table_cancel_ends_with_no_record",
        table_cancel_ends_with_no_record,
    ),
    (
        "table_late_push_is_not_expired",
        table_late_push_is_not_expired,
    ),
    ("idle_touch_remove_expire", idle_touch_remove_expire),
    ("idle_headroom_and_maximum", idle_headroom_and_maximum),
    ("idle_late_push_is_readded", idle_late_push_is_readded),
    (
        "idle_removed_with_a_queued_record",
        idle_removed_with_a_queued_record,
    ),
    ("idle_against_a_model", idle_against_a_model),
    ("idle_on_the_real_clock", idle_on_the_real_clock),
    ("open_errors_say_what_to_do", open_errors_say_what_to_do),
];

const CASE_TIMEOUT: Duration = Duration::from_secs(120);

/// Child side: run one case; a panic prints "# " lines and exits 101.
fn run_case(name: &str) -> ! {
    std::panic::set_hook(Box::new(|info| {
        for line in info.to_string().lines() {
            println!("# {}", line);
        }
    }));
    let case = CASES
        .iter()
        .find(|c| c.0 == name)
        .unwrap_or_else(|| panic!("no case {}", name));
    (case.1)();
    std::process::exit(0);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 && args[1] == "--case" {
        run_case(&args[2]);
    }
    // Cargo passes libtest's options (e.g. --nocapture) through: only a
    // plain word filters.
    let filter = args
        .iter()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .cloned()
        .unwrap_or_default();
    let cases: Vec<&Case> = CASES
        .iter()
        .filter(|c| c.0.contains(filter.as_str()))
        .collect();
    if !std::path::Path::new(Twheel::PATH).exists() {
        if std::env::var("TWHEEL_REQUIRE_DEVICE")
            .map(|v| v == "1")
            .unwrap_or(false)
        {
            println!("not ok rust/device_present");
            std::process::exit(1);
        }
        println!(
            "# {} missing (the module loads only in the test VM: tests/rust/run.sh)",
            Twheel::PATH
        );
        for c in &cases {
            println!("ok rust/{} # SKIP no {}", c.0, Twheel::PATH);
        }
        return;
    }
    let exe = std::env::current_exe().expect("current_exe");
    let mut failed = 0;
    for c in &cases {
        let t0 = Instant::now();
        let mut child = Command::new(&exe)
            .arg("--case")
            .arg(c.0)
            .stdin(Stdio::null())
            .spawn()
            .expect("spawn a case");
        let status = loop {
            if let Some(st) = child.try_wait().expect("wait") {
                break Some(st);
            }
            if t0.elapsed() > CASE_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        match status {
            Some(st) if st.success() => println!("ok rust/{}", c.0),
            Some(st) => {
                println!("# {}: {}", c.0, st);
                println!("not ok rust/{}", c.0);
                failed += 1;
            }
            None => {
                println!("# {}: time-out after {:?}", c.0, CASE_TIMEOUT);
                println!("not ok rust/{}", c.0);
                failed += 1;
            }
        }
    }
    if cases.is_empty() {
        println!("# no case matches {:?}", filter);
        failed = 1;
    }
    std::process::exit(failed.min(125));
}
