// SPDX-License-Identifier: LGPL-2.1-or-later
//! Idle timeouts for connections: one twheel timer per connection, pushed
//! back by one MODIFY on each activity, closing the connections that were
//! silent for the whole timeout.
//!
//!   idle_timeouts            the timeout logic tested on the manual clock:
//!                            1000 connections over 10 simulated minutes,
//!                            checked against a model, in well under a
//!                            second of real time
//!   idle_timeouts --real     the same tracker on CLOCK_MONOTONIC, woken
//!                            by poll(2) as an event loop would be
//!
//! Needs /dev/twheel (the module loaded). Exit status 0 when every
//! connection was closed exactly when the model says.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::os::raw::{c_int, c_short, c_ulong};
use std::os::unix::io::AsRawFd;
use std::time::{Duration, Instant};

use twheel::{EventBuf, Rearm, Timer, TimerId, TimerState, Twheel};

/// The connections' idle timers on one twheel fd.
struct IdleTimeouts {
    wheel: Twheel,
    timeout: Duration,
    timers: HashMap<u64, TimerId>,
    buf: EventBuf,
}

impl IdleTimeouts {
    /// Tracks connections on `wheel` (opened non-blocking), closing those
    /// silent for `timeout`.
    fn new(wheel: Twheel, timeout: Duration) -> IdleTimeouts {
        IdleTimeouts {
            wheel,
            timeout,
            timers: HashMap::new(),
            buf: EventBuf::new(256),
        }
    }

    /// A new connection: its timer, with the connection as the cookie.
    fn open(&mut self, conn: u64) -> io::Result<()> {
        let id = self.wheel.add(&Timer::after(self.timeout).cookie(conn))?;
        self.timers.insert(conn, id);
        Ok(())
    }

    /// Activity on `conn`: its deadline moves to `timeout` from now, same
    /// timer. Returns true when the timer had already fired and its record
    /// was not read yet: the kernel retracted that record, so the
    /// connection, active after all, is not closed.
    fn activity(&mut self, conn: u64) -> io::Result<bool> {
        let id = self.timers[&conn];
        Ok(self.wheel.modify(id, &Rearm::after(self.timeout))? == TimerState::Queued)
    }

    /// The connections idle for the whole timeout since the last call:
    /// closed (forgotten) here.
    fn expired(&mut self) -> io::Result<Vec<u64>> {
        let mut idle = Vec::new();
        for ev in self.wheel.events(&mut self.buf) {
            let conn = ev?.cookie();
            self.timers.remove(&conn);
            idle.push(conn);
        }
        Ok(idle)
    }

    fn len(&self) -> usize {
        self.timers.len()
    }
}

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
    let mut idle = IdleTimeouts::new(
        Twheel::open_manual(Duration::from_millis(1))?,
        Duration::from_secs(TIMEOUT_S),
    );
    // The model: when each open connection was last active (seconds).
    let mut last: BTreeMap<u64, u64> = BTreeMap::new();
    for c in 0..CONNS {
        idle.open(c)?;
        last.insert(c, 0);
    }
    let mut rng = Rng(0x1D1E);
    let (mut closed, mut rescued, mut ok) = (0usize, 0usize, true);
    for t in 1..=STEPS {
        idle.wheel.advance(Duration::from_secs(1))?;
        // Activity in this second: a third of the connections are chatty
        // (90 %), a third rare (4 %), a third silent.
        let mut active = BTreeSet::new();
        for (&c, _) in last.iter() {
            let p = [90, 4, 0][(c % 3) as usize];
            if rng.next() % 100 < p {
                active.insert(c);
            }
        }
        let mut want_idle = Vec::new();
        for (&c, &l) in last.iter() {
            if l + TIMEOUT_S == t && !active.contains(&c) {
                want_idle.push(c);
            }
        }
        for &c in &active {
            // Due this very second (queued by the advance above): the
            // activity retracts the record.
            let due = last[&c] + TIMEOUT_S == t;
            if idle.activity(c)? != due {
                println!(
                    "t={}s conn {}: modify said {}queued",
                    t,
                    c,
                    if due { "not " } else { "" }
                );
                ok = false;
            }
            rescued += due as usize;
            last.insert(c, t);
        }
        let mut got = idle.expired()?;
        got.sort_unstable();
        want_idle.sort_unstable();
        if got != want_idle {
            println!("t={}s: closed {:?}, want {:?}", t, got, want_idle);
            ok = false;
        }
        for c in &got {
            last.remove(c);
        }
        closed += got.len();
    }
    println!(
        "manual clock: {} connections, {} s simulated: {} closed after exactly {} s idle, {} \
         rescued by activity in the second they fell due, {} open (model: {})",
        CONNS,
        STEPS,
        closed,
        TIMEOUT_S,
        rescued,
        idle.len(),
        last.len()
    );
    Ok(ok && idle.len() == last.len())
}

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: c_short,
    revents: c_short,
}

extern "C" {
    fn poll(fds: *mut PollFd, nfds: c_ulong, timeout: c_int) -> c_int;
}

/// On the real clock: three connections, 200 ms timeout; connection 1 is
/// active every 40 ms until 400 ms. An event loop's wait: poll(2).
fn real() -> io::Result<bool> {
    let timeout = Duration::from_millis(200);
    let mut idle = IdleTimeouts::new(Twheel::open_nonblocking()?, timeout);
    let t0 = Instant::now();
    for c in 0..3 {
        idle.open(c)?;
    }
    let mut closed_at = HashMap::new();
    let mut next_activity = Duration::from_millis(40);
    let mut last_activity = Duration::ZERO;
    while idle.len() > 0 && t0.elapsed() < Duration::from_secs(5) {
        let activity_ends = Duration::from_millis(400);
        let wait = if next_activity <= activity_ends {
            next_activity.saturating_sub(t0.elapsed()).as_millis() as c_int
        } else {
            1000 // only the timers are left to wait for
        };
        let mut p = PollFd {
            fd: idle.wheel.as_raw_fd(),
            events: 1,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        if unsafe { poll(&mut p, 1, wait.max(1)) } < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        for c in idle.expired()? {
            closed_at.insert(c, t0.elapsed());
        }
        if t0.elapsed() >= next_activity && next_activity <= activity_ends {
            if idle.timers.contains_key(&1) {
                idle.activity(1)?;
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
            eprintln!("idle_timeouts: {} (is the twheel module loaded?)", e);
            std::process::exit(2);
        }
    }
}
