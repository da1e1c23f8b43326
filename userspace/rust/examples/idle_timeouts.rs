// SPDX-License-Identifier: LGPL-2.1-or-later
//! Idle timeouts for connections with `twheel::IdleTimeouts`: one timer
//! per connection in the shared timer table, pushed back on activity by
//! one store (no system call), and only real expiries reported. The
//! timer logic is five lines, marked `// timer:` below:
//!
//!   open     let mut idle = IdleTimeouts::open(timeout, max_connections)?;
//!   accept   let h = idle.add(conn)?;
//!   data     idle.touch(h)?;
//!   close    idle.remove(h)?;
//!   readable for conn in idle.drain() { close(conn?) }
//!
//! (tokio's DelayQueue takes as many: insert, reset, remove, and a
//! `next().await` loop.)
//!
//!   idle_timeouts            the logic on the manual clock: 1000
//!                            connections over 10 simulated minutes,
//!                            checked against a model each second
//!   idle_timeouts --real     on CLOCK_MONOTONIC, woken by poll(2) as an
//!                            event loop would be
//!
//! Needs /dev/twheel (the module loaded). Exit status 0 when every
//! connection was closed exactly when the model says.

use std::collections::BTreeMap;
use std::io;
use std::time::{Duration, Instant};

use twheel::{IdleHandle, IdleTimeouts};

/// xorshift64*: the same activity pattern on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// The tracker against a model, on the manual clock, one-second steps.
fn simulate() -> io::Result<bool> {
    const CONNS: u64 = 1000;
    const TIMEOUT_S: u64 = 30;
    const STEPS: u64 = 600;
    let mut idle = IdleTimeouts::options(Duration::from_secs(TIMEOUT_S), CONNS) // timer:
        .manual(true)
        .open()?;
    // The model: each open connection's handle and last activity (s).
    let mut conns: BTreeMap<u64, (IdleHandle, u64)> = BTreeMap::new();
    for c in 0..CONNS {
        conns.insert(c, (idle.add(c)?, 0)); // timer:
    }
    let mut rng = Rng(0x1D1E);
    let (mut idle_closed, mut peer_closed, mut ok) = (0, 0, true);
    for t in 1..=STEPS {
        idle.wheel().advance(Duration::from_secs(1))?;
        // Activity in this second: a third of the connections are chatty
        // (90 %), a third rare (4 %), a third silent; 0.2 % are closed by
        // the peer.
        let open: Vec<u64> = conns.keys().copied().collect();
        for c in open {
            let r = rng.next() % 1000;
            let h = conns[&c].0;
            if r < 2 {
                idle.remove(h)?; // timer:
                conns.remove(&c);
                peer_closed += 1;
            } else if r < [900, 40, 0][(c % 3) as usize] {
                idle.touch(h)?; // timer:
                conns.insert(c, (h, t));
            }
        }
        let mut got = Vec::new();
        for c in idle.drain() {
            got.push(c?); // timer:
        }
        got.sort_unstable();
        let want: Vec<u64> = conns
            .iter()
            .filter(|(_, &(_, last))| last + TIMEOUT_S <= t)
            .map(|(&c, _)| c)
            .collect();
        if got != want {
            println!("t={}s: idle {:?}, want {:?}", t, got, want);
            ok = false;
        }
        for c in &got {
            conns.remove(c);
        }
        idle_closed += got.len();
    }
    println!(
        "manual clock: {} connections, {} s simulated: {} closed after exactly {} s idle, \
         {} closed by the peer, {} active in the second they fell due (a push too late: \
         timer added again), {} open (model: {})",
        CONNS,
        STEPS,
        idle_closed,
        TIMEOUT_S,
        peer_closed,
        idle.late_pushes(),
        idle.len(),
        conns.len()
    );
    Ok(ok && idle.len() == conns.len())
}

/// On the real clock: three connections, 200 ms timeout; connection 1 is
/// active every 40 ms until 400 ms. An event loop's wait: poll(2)
/// (`IdleTimeouts::wait`).
fn real() -> io::Result<bool> {
    let timeout = Duration::from_millis(200);
    let mut idle = IdleTimeouts::open(timeout, 16)?;
    let t0 = Instant::now();
    let handles: Vec<IdleHandle> = (0..3).map(|c| idle.add(c)).collect::<Result<_, _>>()?;
    let mut closed_at = BTreeMap::new();
    let activity_ends = Duration::from_millis(400);
    let mut next_activity = Duration::from_millis(40);
    let mut last_activity = Duration::ZERO;
    while !idle.is_empty() {
        let wait = if next_activity <= activity_ends {
            Some(next_activity.saturating_sub(t0.elapsed()))
        } else {
            None // only the timers are left to wait for
        };
        idle.wait(wait)?;
        for c in idle.drain() {
            closed_at.insert(c?, t0.elapsed());
        }
        if t0.elapsed() >= next_activity && next_activity <= activity_ends {
            if idle.touch(handles[1])? {
                last_activity = t0.elapsed();
            }
            next_activity += Duration::from_millis(40);
        }
    }
    let mut ok = closed_at.len() == 3;
    for c in 0..3u64 {
        let at = closed_at.get(&c).copied();
        // Never early: 0 and 2 after the timeout, 1 the timeout after its
        // last activity.
        let min = if c == 1 {
            last_activity + timeout
        } else {
            timeout
        };
        match at {
            Some(at) if at >= min => println!(
                "real clock: conn {} closed at {:?} (not before {:?})",
                c, at, min
            ),
            _ => {
                println!(
                    "real clock: conn {} closed at {:?}, want not before {:?}",
                    c, at, min
                );
                ok = false;
            }
        }
    }
    Ok(ok)
}

fn main() {
    let real_clock = std::env::args().any(|a| a == "--real");
    let result = if real_clock { real() } else { simulate() };
    match result {
        Ok(true) => {}
        Ok(false) => {
            println!("idle_timeouts: FAILED");
            std::process::exit(1);
        }
        Err(e) => {
            // The error says what to do (e.g. no /dev/twheel: modprobe twheel).
            eprintln!("idle_timeouts: {}", e);
            std::process::exit(2);
        }
    }
}
