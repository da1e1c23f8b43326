// SPDX-License-Identifier: LGPL-2.1-or-later
//! twheel-tokio against the real module, in the test VM (run by
//! tests/rust/run.sh, built static): "ok rust/tokio/NAME" lines, each
//! case in a child process; skipped without /dev/twheel unless
//! TWHEEL_REQUIRE_DEVICE=1. Only lower bounds on time.

use std::future::Future;
use std::process::Command;
use std::time::{Duration, Instant};

use twheel::{Clock, Config, IdleTimeouts, Timer, Twheel};
use twheel_tokio::{AsyncIdleTimeouts, AsyncTwheel};

const MS: Duration = Duration::from_millis(1);
const MS_NS: i64 = 1_000_000;

fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("a runtime")
        .block_on(f)
}

fn records_on_the_manual_clock() {
    block_on(async {
        let w = Twheel::open_nonblocking().unwrap();
        w.configure(&Config::new().tick(MS).manual(true)).unwrap();
        let mut w = AsyncTwheel::new(w).unwrap();
        let a = w.get_ref().add(&Timer::after(10 * MS).cookie(1)).unwrap();
        let b = w.get_ref().add(&Timer::after(20 * MS).cookie(2)).unwrap();
        w.get_ref().advance(20 * MS).unwrap();
        let e1 = w.next().await.unwrap();
        let e2 = w.next().await.unwrap();
        assert_eq!((e1.id(), e2.id()), (a, b));
        assert_eq!((e1.time_ns(), e2.time_ns()), (20 * MS_NS, 20 * MS_NS));
        assert_eq!(w.get_ref().info().unwrap().queued, 0);
    });
}

fn records_wake_the_task_on_the_real_clock() {
    block_on(async {
        let mut w = AsyncTwheel::open().unwrap();
        let t0 = Instant::now();
        let start = Clock::Monotonic.now().unwrap();
        for c in 0..3u64 {
            w.get_ref()
                .add(&Timer::after((50 + 25 * c as u32) * MS).cookie(c))
                .unwrap();
        }
        for c in 0..3u64 {
            let ev = w.next().await.unwrap();
            assert_eq!(ev.cookie(), c);
            let due = start + (50 + 25 * c as i64) * MS_NS;
            assert!(
                ev.time_ns() >= due,
                "record {} at {} before {}",
                c,
                ev.time_ns(),
                due
            );
        }
        assert!(t0.elapsed() >= 100 * MS);
    });
}

fn idle_expired_on_the_manual_clock() {
    block_on(async {
        let idle = IdleTimeouts::options(10 * MS, 8)
            .tick(MS)
            .manual(true)
            .open()
            .unwrap();
        let mut idle = AsyncIdleTimeouts::new(idle).unwrap();
        let a = idle.get_mut().add(100).unwrap();
        let b = idle.get_mut().add(200).unwrap();
        let c = idle.get_mut().add(300).unwrap();
        idle.get_ref().wheel().advance(5 * MS).unwrap();
        idle.get_mut().touch(a).unwrap();
        assert!(idle.get_mut().remove(c).unwrap());
        idle.get_ref().wheel().advance(5 * MS).unwrap();
        assert_eq!(idle.expired().await.unwrap(), 200);
        // a: late push (its record queued at 15 ms, touched after).
        idle.get_ref().wheel().advance(5 * MS).unwrap();
        idle.get_mut().touch(a).unwrap();
        idle.get_ref().wheel().advance(10 * MS).unwrap();
        assert_eq!(idle.expired().await.unwrap(), 100);
        assert_eq!(idle.get_ref().late_pushes(), 1);
        assert!(idle.get_ref().is_empty());
        assert!(!idle.get_mut().touch(b).unwrap());
    });
}

fn idle_expired_on_the_real_clock() {
    block_on(async {
        let timeout = 100 * MS;
        let mut idle = AsyncIdleTimeouts::open(timeout, 4).unwrap();
        let t0 = Instant::now();
        idle.get_mut().add(1).unwrap();
        idle.get_mut().add(2).unwrap();
        let mut got = vec![idle.expired().await.unwrap(), idle.expired().await.unwrap()];
        got.sort_unstable();
        assert_eq!(got, vec![1, 2]);
        assert!(t0.elapsed() >= timeout, "expired after {:?}", t0.elapsed());
    });
}

type Case = (&'static str, fn());

const CASES: &[Case] = &[
    ("records_on_the_manual_clock", records_on_the_manual_clock),
    (
        "records_wake_the_task_on_the_real_clock",
        records_wake_the_task_on_the_real_clock,
    ),
    (
        "idle_expired_on_the_manual_clock",
        idle_expired_on_the_manual_clock,
    ),
    (
        "idle_expired_on_the_real_clock",
        idle_expired_on_the_real_clock,
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 && args[1] == "--case" {
        std::panic::set_hook(Box::new(|info| {
            for line in info.to_string().lines() {
                println!("# {}", line);
            }
        }));
        let case = CASES.iter().find(|c| c.0 == args[2]).expect("no such case");
        (case.1)();
        std::process::exit(0);
    }
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
            println!("not ok rust/tokio/device_present");
            std::process::exit(1);
        }
        for c in &cases {
            println!("ok rust/tokio/{} # SKIP no {}", c.0, Twheel::PATH);
        }
        return;
    }
    let exe = std::env::current_exe().expect("current_exe");
    let mut failed = 0;
    for c in &cases {
        let st = Command::new(&exe)
            .arg("--case")
            .arg(c.0)
            .status()
            .expect("spawn a case");
        if st.success() {
            println!("ok rust/tokio/{}", c.0);
        } else {
            println!("# {}: {}", c.0, st);
            println!("not ok rust/tokio/{}", c.0);
            failed += 1;
        }
    }
    std::process::exit(failed.min(125));
}
