// SPDX-License-Identifier: LGPL-2.1-or-later
//! The crate's ABI against the C header itself: a C program compiled
//! against `uapi/linux/twheel.h` prints every ioctl number, constant,
//! struct size and field offset this crate defines, and each must be
//! equal to the crate's. Runs on the host (no device needed); needs a C
//! compiler (`$CC`, default `cc`) and the repository's `uapi/`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::mem::{size_of, MaybeUninit};
use std::path::Path;
use std::process::Command;

use twheel::sys::{self, *};

/// The offset of a field, at run time, without `offset_of!` (Rust 1.77).
macro_rules! offset {
    ($t:ty, $f:ident) => {{
        let u = MaybeUninit::<$t>::uninit();
        let base = u.as_ptr();
        // SAFETY: addr_of! takes the field's address without reading it.
        let field = unsafe { std::ptr::addr_of!((*base).$f) };
        field as usize - base as usize
    }};
}

/// `(C expression, this crate's value)` for everything to compare.
fn expected() -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = Vec::new();
    macro_rules! c {
        ($($name:ident),+ $(,)?) => { $( v.push((stringify!($name).to_string(), sys::$name as u64)); )+ };
    }
    c!(
        TWHEEL_IOC_INFO,
        TWHEEL_IOC_ADD,
        TWHEEL_IOC_CANCEL,
        TWHEEL_IOC_MODIFY,
        TWHEEL_IOC_QUERY,
        TWHEEL_IOC_LIST,
        TWHEEL_IOC_SUBMIT,
        TWHEEL_IOC_CONFIG,
        TWHEEL_IOC_ADVANCE,
        TWHEEL_IOC_TYPE,
        TWHEEL_ABI_VERSION,
        TWHEEL_DEFAULT_TICK_NS,
        TWHEEL_MIN_TICK_NS,
        TWHEEL_MAX_TICK_NS,
        TWHEEL_MAX_BATCH,
        TWHEEL_ABSTIME,
        TWHEEL_SET_COOKIE,
        TWHEEL_STATE_PENDING,
        TWHEEL_STATE_QUEUED,
        TWHEEL_OP_ADD,
        TWHEEL_OP_MODIFY,
        TWHEEL_OP_CANCEL,
        TWHEEL_OP_QUERY,
        TWHEEL_CONFIG_MANUAL,
        TWHEEL_CONFIG_MAX_TIMERS,
        TWHEEL_CONFIG_TABLE,
        TWHEEL_TABLE_CANCEL,
        TWHEEL_FEATURE_TABLE,
        TWHEEL_FEATURE_PERIODIC,
        TWHEEL_FEATURE_TIMENS,
        TWHEEL_FEATURE_MANUAL_CLOCK,
        TWHEEL_FEATURE_RELATIVE_WALL,
        TWHEEL_FEATURE_URING,
        TWHEEL_FEATURE_MISSED,
        TWHEEL_FEATURE_FD_MAX_TIMERS,
        TWHEEL_FEATURE_ALARM,
        TWHEEL_FEATURE_CLOCK_SET,
        TWHEEL_FEATURE_RING,
        TWHEEL_CANCEL_ON_SET,
        TWHEEL_CONFIG_CLOCK_SET,
        TWHEEL_CONFIG_RING,
        TWHEEL_RING_OFFSET,
        TWHEEL_RING_ENTRIES,
        TWHEEL_EVENT_CLOCK_SET,
        TWHEEL_MISSED_MASK,
        TWHEEL_MISSED_COUNT,
        TWHEEL_MISSED_BURST,
        TWHEEL_MISSED_DELAY,
        TWHEEL_MISSED_SKIP,
        CLOCK_REALTIME,
        CLOCK_MONOTONIC,
        CLOCK_BOOTTIME,
        CLOCK_TAI,
        CLOCK_REALTIME_ALARM,
        CLOCK_BOOTTIME_ALARM,
    );
    macro_rules! s {
        ($t:ident { $($f:ident),+ $(,)? }) => {
            v.push((format!("sizeof(struct {})", stringify!($t)), size_of::<$t>() as u64));
            $( v.push((format!("offsetof(struct {}, {})", stringify!($t), stringify!($f)),
                       offset!($t, $f) as u64)); )+
        };
    }
    s!(twheel_add {
        cookie,
        expires_ns,
        period_ns,
        flags,
        clock,
        id
    });
    s!(twheel_modify {
        id,
        cookie,
        expires_ns,
        period_ns,
        flags,
        result
    });
    s!(twheel_cancel { id, flags, result });
    s!(twheel_status {
        id,
        cookie,
        deadline_ns,
        period_ns,
        count,
        remaining_ns,
        clock,
        state
    });
    s!(twheel_query {
        id,
        flags,
        __reserved,
        status
    });
    s!(twheel_list {
        statuses,
        capacity,
        count,
        cursor,
        status_size,
        flags
    });
    s!(twheel_op {
        op,
        flags,
        id,
        cookie,
        expires_ns,
        period_ns,
        clock,
        error,
        result,
        __reserved,
        count,
        remaining_ns,
    });
    s!(twheel_submit {
        ops,
        nr,
        op_size,
        flags,
        __reserved
    });
    s!(twheel_uring_cmd { arg, __reserved });
    s!(twheel_config {
        tick_ns,
        flags,
        __reserved,
        max_timers
    });
    s!(twheel_advance {
        delta_ns,
        flags,
        __reserved,
        now_ns
    });
    s!(twheel_event {
        id,
        cookie,
        time_ns,
        count,
        clock,
        flags
    });
    s!(twheel_info {
        version,
        event_size,
        tick_ns,
        max_timers,
        timers,
        queued,
        features,
        ioctls,
        clocks,
        min_tick_ns,
        max_tick_ns,
        config_flags,
        op_size,
        status_size,
        max_batch,
        table_size,
        cancelled,
    });
    // The table's entry macros, on ids and ticks at their edges.
    let ids: [u64; 6] = [
        1,
        0xffff_ffff,
        0x2_0000_0001,
        0x6_0000_0003,
        0xabcd_ef00_1234_5678,
        u64::MAX - (1 << 32),
    ];
    let ticks: [u64; 5] = [0, 1, 0xffff_ffff, 0x1_2345_6789, u64::MAX];
    for &id in &ids {
        v.push((
            format!("TWHEEL_TABLE_INDEX({:#x}ULL)", id),
            sys::twheel_table_index(id),
        ));
        v.push((
            format!("TWHEEL_TABLE_TAG({:#x}ULL)", id),
            sys::twheel_table_tag(id),
        ));
        v.push((
            format!("TWHEEL_TABLE_CANCELLED({:#x}ULL)", id),
            sys::twheel_table_cancelled(id),
        ));
        for &t in &ticks {
            v.push((
                format!("TWHEEL_TABLE_DEADLINE({:#x}ULL, {:#x}ULL)", id, t),
                sys::twheel_table_deadline(id, t),
            ));
        }
    }
    // The version string, as a number: "0.3" -> 3.
    v.push((
        "TWHEEL_VERSION_MINOR".to_string(),
        TWHEEL_VERSION[2..].parse().unwrap(),
    ));
    v
}

#[test]
fn crate_abi_equals_the_c_header() {
    let uapi = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../uapi");
    if !uapi.join("linux/twheel.h").exists() {
        eprintln!(
            "note: {} not found (crate outside its repository): not compared",
            uapi.display()
        );
        return;
    }
    let want = expected();
    let mut c = String::from(
        "#include <stdio.h>\n#include <stddef.h>\n#include <string.h>\n#include <time.h>\n\
         #include <linux/twheel.h>\n\
         #define TWHEEL_VERSION_MINOR (strchr(TWHEEL_VERSION, '.')[1] - '0')\n\
         int main(void)\n{\n",
    );
    for (expr, _) in &want {
        writeln!(
            c,
            "\tprintf(\"%s=%llu\\n\", \"{}\", (unsigned long long)({}));",
            expr, expr
        )
        .unwrap();
    }
    c.push_str("\treturn 0;\n}\n");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("twheel-header");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("abi.c");
    let exe = dir.join("abi");
    std::fs::write(&src, c).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(&cc)
        .arg("-std=gnu11")
        .arg("-Wall")
        .arg("-Werror")
        .arg("-I")
        .arg(&uapi)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run the C compiler {:?} ({}): needed to compare with the header",
                cc, e
            )
        });
    assert!(
        out.status.success(),
        "{} failed:\n{}",
        cc,
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success());
    let got: BTreeMap<String, u64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.rsplit_once('=').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect();
    let mut bad = Vec::new();
    for (expr, mine) in &want {
        match got.get(expr) {
            Some(c) if c == mine => {}
            Some(c) => bad.push(format!("{}: header {:#x}, crate {:#x}", expr, c, mine)),
            None => bad.push(format!("{}: not printed", expr)),
        }
    }
    assert!(
        bad.is_empty(),
        "the crate differs from uapi/linux/twheel.h:\n{}",
        bad.join("\n")
    );
    assert!(want.len() > 100, "compared {} values", want.len());
}
