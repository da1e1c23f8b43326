// SPDX-License-Identifier: LGPL-2.1-or-later
//! A tokio echo server on 127.0.0.1 whose connections are closed when idle
//! for the timeout, all their timers in ONE /dev/twheel fd
//! (`AsyncIdleTimeouts`). The timer logic is five lines, marked
//! `// timer:` below, as many as tokio's DelayQueue takes (insert, reset,
//! remove, `next().await`):
//!
//!   open     let mut idle = AsyncIdleTimeouts::open(timeout, max)?;
//!   accept   let h = idle.get_mut().add(cookie)?;
//!   data     idle.get_mut().touch(h)?;        (one store, no system call)
//!   close    idle.get_mut().remove(h)?;
//!   idle     let cookie = idle.expired().await?;   -> close that connection
//!
//! One task owns the tracker (as a DelayQueue would be owned): each
//! connection's task echoes and tells it of activity and close through a
//! channel; an idle connection's task is aborted, which closes its socket.
//!
//!   idle_server [--port N] [--timeout MS]    serve until killed (7007, 5000)
//!   idle_server --selftest                   check itself, exit status 0 if ok
//!
//! --selftest serves on an ephemeral port with its own clients: silent ones
//! (one message, then quiet) must be closed by the server, never before the
//! timeout after their last echoed message; chatty ones (a message every
//! timeout/10 for 3 timeouts, then close) must never be closed sooner than
//! that (one closed later, after a stall of the machine, is counted, not a
//! failure); closing ones (one message, then close) must never be reported
//! idle after the server saw their close. Only lower bounds on time.
//!
//! Built offline against Debian's tokio (`apt-get install cargo
//! librust-tokio-dev`), the module loaded (`sudo modprobe twheel`):
//!
//!   cd userspace/rust/tokio
//!   cargo run --offline --example idle_server -- --selftest
//!   cargo run --offline --example idle_server -- --port 7007 --timeout 5000

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};
use twheel::IdleHandle;
use twheel_tokio::AsyncIdleTimeouts;

/// The server: accepts, tracks, and closes idle connections (cookie: a
/// connection's number).
async fn serve(listener: TcpListener, timeout: Duration) -> io::Result<()> {
    let mut idle = AsyncIdleTimeouts::open(timeout, 1024)?; // timer:
    let mut conns = HashMap::new(); // cookie -> the connection's task
    let (tx, mut rx) = unbounded_channel();
    for n in 0u64.. {
        tokio::select! {
            // Activity and closes first: an expiry taken after them is real.
            biased;
            Some((cookie, h, open)) = rx.recv() => if open {
                idle.get_mut().touch(h)?; // timer:
            } else {
                idle.get_mut().remove(h)?; // timer:
                conns.remove(&cookie);
            },
            conn = listener.accept() => {
                let h = idle.get_mut().add(n)?; // timer:
                conns.insert(n, tokio::spawn(echo(conn?.0, n, h, tx.clone())));
            }
            cookie = idle.expired() => match conns.remove(&cookie?) { // timer:
                Some(task) => task.abort(), // drops its socket: closed
                None => return Err(io::Error::new(io::ErrorKind::Other, "reported after its close")),
            },
        }
    }
    Ok(())
}

/// A connection: echoes, telling the server of each message, then of
/// the close.
async fn echo(
    mut s: TcpStream,
    cookie: u64,
    h: IdleHandle,
    tx: UnboundedSender<(u64, IdleHandle, bool)>,
) {
    let mut buf = [0; 4096];
    while let Ok(n @ 1..) = s.read(&mut buf).await {
        let _ = tx.send((cookie, h, true));
        if s.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = tx.send((cookie, h, false));
}

// ---- --selftest ----

/// One client: `rounds` messages `gap` apart (0: silent, waits to be
/// closed), then closes. Ok(true) when the server closed it (never before
/// `timeout` after the last message echoed: Err then).
async fn client(
    addr: SocketAddr,
    rounds: u32,
    gap: Duration,
    timeout: Duration,
) -> Result<bool, String> {
    let who = ["silent", "closing"]
        .get(rounds as usize)
        .unwrap_or(&"chatty");
    let mut last = Instant::now(); // before the connect: the server's add is after
    let mut s = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let mut buf = [0; 4];
    for i in 0..rounds.max(1) {
        let sent = Instant::now(); // before the send: the server's touch is after
        let msg = format!("{:04}", i);
        let echoed = match s.write_all(msg.as_bytes()).await {
            Ok(()) => s.read_exact(&mut buf).await.is_ok(),
            Err(_) => false,
        };
        if !echoed {
            return closed(last, timeout, who);
        }
        if buf != msg.as_bytes() {
            return Err(format!("echo {:?} of {:?}", buf, msg));
        }
        last = sent;
        tokio::time::sleep(gap).await;
    }
    if rounds > 0 {
        return Ok(false); // dropped: closed
    }
    match s.read(&mut buf).await {
        Ok(0) | Err(_) => closed(last, timeout, who),
        Ok(_) => Err("silent: unexpected data".into()),
    }
}

fn closed(last: Instant, timeout: Duration, who: &str) -> Result<bool, String> {
    let quiet = last.elapsed();
    if quiet < timeout {
        return Err(format!("{} client closed early: quiet {:?}", who, quiet));
    }
    println!("{} client closed after {:?} quiet", who, quiet);
    Ok(true)
}

async fn selftest() -> io::Result<bool> {
    let timeout = Duration::from_millis(1000);
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    // (messages, gap): silent, chatty (3 timeouts long), closing; 5 of each.
    let kinds = [(0, Duration::ZERO), (30, timeout / 10), (1, Duration::ZERO)];
    let clients: Vec<_> = (kinds.iter().cycle().take(15))
        .map(|&(n, gap)| (n, tokio::spawn(client(addr, n, gap, timeout))))
        .collect();
    let server = tokio::spawn(serve(listener, timeout));
    let (mut fails, mut late) = (0, 0);
    for (n, task) in clients {
        match task.await.expect("client task") {
            Ok(closed) => late += u32::from(closed && n != 0),
            Err(e) => {
                println!("selftest: FAIL: {}", e);
                fails += 1;
            }
        }
    }
    // The closes reach the server: a report after one would end it.
    tokio::time::sleep(timeout * 2).await;
    if server.is_finished() {
        println!("selftest: FAIL: server: {:?}", server.await);
        fails += 1;
    }
    println!(
        "chatty or closing clients closed late (a stall, not a failure): {}",
        late
    );
    println!("selftest: {}", if fails == 0 { "passed" } else { "failed" });
    Ok(fails == 0)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str, default: u64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1)?.parse().ok())
            .unwrap_or(default)
    };
    let r = if args.iter().any(|a| a == "--selftest") {
        selftest().await
    } else {
        let timeout = Duration::from_millis(opt("--timeout", 5000));
        match TcpListener::bind(("127.0.0.1", opt("--port", 7007) as u16)).await {
            Ok(l) => {
                println!(
                    "serving on {:?}, idle timeout {:?}",
                    l.local_addr(),
                    timeout
                );
                serve(l, timeout).await.map(|()| true)
            }
            Err(e) => Err(e),
        }
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("idle_server: {}", e);
            ExitCode::FAILURE
        }
    }
}
