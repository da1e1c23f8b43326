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
//!
//! This file is the harness and the case table (the order in which the
//! cases run); the cases are in device/, a file per role:
//!   common.rs        what the cases share (errno values, assert_errno!, ...)
//!   abi.rs           the handshake, clocks, configuration, bad arguments, open errors
//!   manual_clock.rs  exact deadlines, records and policies on the manual clock
//!   batch.rs         batches (SUBMIT), partial errors, splitting
//!   fd.rs            the fd: reading records, poll(2), ownership
//!   table.rs         the shared timer table
//!   idle.rs          idle timeouts (IdleTimeouts)

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use twheel::Twheel;

// The cases, a module per role, in device/ (not directly in tests/, where
// cargo would take each file for a test binary of its own). common first:
// its assert_errno! is in scope only in the modules declared after it.
#[macro_use]
#[path = "device/common.rs"]
mod common;

#[path = "device/abi.rs"]
mod abi;
#[path = "device/batch.rs"]
mod batch;
#[path = "device/fd.rs"]
mod fd;
#[path = "device/idle.rs"]
mod idle;
#[path = "device/manual_clock.rs"]
mod manual_clock;
#[path = "device/table.rs"]
mod table;

// ---- harness ----

type Case = (&'static str, fn());

const CASES: &[Case] = &[
    ("info_handshake", abi::info_handshake),
    ("alarm_clocks", abi::alarm_clocks),
    ("cancel_on_set_rules", abi::cancel_on_set_rules),
    ("config_clock_set", abi::config_clock_set),
    (
        "add_then_cancel_is_pending",
        abi::add_then_cancel_is_pending,
    ),
    ("modify_unknown_is_enoent", abi::modify_unknown_is_enoent),
    ("bad_arguments_are_einval", abi::bad_arguments_are_einval),
    (
        "configure_after_first_timer_is_ebusy",
        abi::configure_after_first_timer_is_ebusy,
    ),
    (
        "manual_clock_starts_at_zero_and_advances",
        manual_clock::manual_clock_starts_at_zero_and_advances,
    ),
    (
        "manual_records_in_deadline_then_add_order",
        manual_clock::manual_records_in_deadline_then_add_order,
    ),
    (
        "manual_periodic_exact_counts",
        manual_clock::manual_periodic_exact_counts,
    ),
    (
        "manual_missed_policies",
        manual_clock::manual_missed_policies,
    ),
    (
        "modify_retracts_a_queued_record",
        manual_clock::modify_retracts_a_queued_record,
    ),
    (
        "past_deadline_is_queued_by_add",
        manual_clock::past_deadline_is_queued_by_add,
    ),
    ("batch_partial_errors", batch::batch_partial_errors),
    (
        "batch_longer_than_max_is_split",
        batch::batch_longer_than_max_is_split,
    ),
    (
        "nonblocking_read_and_iterator",
        fd::nonblocking_read_and_iterator,
    ),
    (
        "iterator_keeps_what_it_read_ahead",
        fd::iterator_keeps_what_it_read_ahead,
    ),
    (
        "blocking_read_waits_for_the_deadline",
        fd::blocking_read_waits_for_the_deadline,
    ),
    (
        "poll_and_nonblocking_toggle",
        fd::poll_and_nonblocking_toggle,
    ),
    ("fd_ownership_round_trips", fd::fd_ownership_round_trips),
    (
        "query_reports_every_field",
        manual_clock::query_reports_every_field,
    ),
    (
        "example_logic_on_the_manual_clock",
        manual_clock::example_logic_on_the_manual_clock,
    ),
    ("table_map_and_entries", table::table_map_and_entries),
    (
        "table_push_moves_the_deadline",
        table::table_push_moves_the_deadline,
    ),
    (
        "table_push_on_the_real_clock_is_never_early",
        table::table_push_on_the_real_clock_is_never_early,
    ),
    (
        "table_cancel_ends_with_no_record",
        table::table_cancel_ends_with_no_record,
    ),
    (
        "table_late_push_is_not_expired",
        table::table_late_push_is_not_expired,
    ),
    ("idle_touch_remove_expire", idle::idle_touch_remove_expire),
    ("idle_headroom_and_maximum", idle::idle_headroom_and_maximum),
    ("idle_late_push_is_readded", idle::idle_late_push_is_readded),
    (
        "idle_removed_with_a_queued_record",
        idle::idle_removed_with_a_queued_record,
    ),
    ("idle_against_a_model", idle::idle_against_a_model),
    ("idle_on_the_real_clock", idle::idle_on_the_real_clock),
    (
        "open_errors_say_what_to_do",
        abi::open_errors_say_what_to_do,
    ),
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
