// SPDX-License-Identifier: LGPL-2.1-or-later
//! Device cases: the ABI as the module gives it: the INFO handshake, the
//! clocks (alarm, CANCEL_ON_SET, clock-set records), configuration, ids,
//! the errno of bad arguments, and what a failed open says to do.

use std::io;
use std::os::unix::io::AsRawFd;
use std::time::Duration;

use twheel::sys;
use twheel::{Batch, Clock, Config, IdleTimeouts, Rearm, Timer, TimerId, TimerState, Twheel};

use crate::common::{
    drain, manual, mknod, root, E2BIG, EAGAIN, EBUSY, EINVAL, ENODEV, ENOENT, ENXIO, EPERM, MS,
    MS_NS,
};

pub(crate) fn info_handshake() {
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

pub(crate) fn alarm_clocks() {
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

pub(crate) fn cancel_on_set_rules() {
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

pub(crate) fn config_clock_set() {
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

pub(crate) fn add_then_cancel_is_pending() {
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

pub(crate) fn modify_unknown_is_enoent() {
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

pub(crate) fn bad_arguments_are_einval() {
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

pub(crate) fn configure_after_first_timer_is_ebusy() {
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

pub(crate) fn open_errors_say_what_to_do() {
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
