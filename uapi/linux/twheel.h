/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * twheel.h - userspace ABI of /dev/twheel: many timers on one fd.
 *
 * Each open(2) of /dev/twheel is an independent timer set. Timers are
 * scheduled, changed, cancelled and inspected with ioctl(2), one at a time
 * or in batches; poll/epoll/select report the fd readable (EPOLLIN |
 * EPOLLRDNORM) exactly while at least one expiry record is queued, or,
 * with a record ring (TWHEEL_CONFIG_RING), while its head is not at the
 * kernel's tail; read(2) returns whole struct twheel_event records. (With
 * EPOLLET, while records stay unread, an internal timer event that queues
 * no new record may report the fd again.)
 *
 * Clocks: a timer runs on one of CLOCK_MONOTONIC, CLOCK_BOOTTIME,
 * CLOCK_REALTIME, CLOCK_TAI, CLOCK_REALTIME_ALARM or CLOCK_BOOTTIME_ALARM
 * (the clockid_t values of <time.h>), given per timer; any other value is
 * EINVAL. Deadlines are relative (from now, on that clock) or absolute
 * (TWHEEL_ABSTIME) on every one of them. A CLOCK_REALTIME, CLOCK_TAI or
 * CLOCK_REALTIME_ALARM timer follows changes of the wall clock: its
 * deadline is an absolute time of that clock, also when it was given
 * relative (as timerfd does). The two alarm clocks read as CLOCK_REALTIME
 * and CLOCK_BOOTTIME, and their timers wake the system from suspend (the
 * kernel's alarmtimer, as timerfd's and POSIX timers' alarm clocks): the
 * system suspended before a pending alarm timer's deadline is resumed in
 * time for it, whether or not a task uses the fd meanwhile: the alarm's
 * own callback keeps it armed. (Only while no task uses the fd and that
 * callback leaves its work unfinished, because one of the fd's timers is
 * due and more remains than the 128 wheel entries it moves, or because the
 * callbacks of the fd's user moved 65 536 in the second, does the alarm
 * come again 1 s later instead.) The record is queued after the resume
 * (never before the deadline; CLOCK_BOOTTIME and its alarm count the time
 * suspended, CLOCK_MONOTONIC does not). The system may also be resumed before the
 * deadline, at a point where the fd's wheel moves the timer to a finer
 * level (at most once per level), and, as for every alarm timer, the
 * kernel refuses to suspend (EBUSY) less than 2 s before the point an
 * alarm is armed for. Adding a timer on an alarm clock needs
 * CAP_WAKE_ALARM in the calling task (EPERM without, also on a
 * TWHEEL_CONFIG_MANUAL fd), as timerfd_create(2) does. An fd configured
 * with TWHEEL_CONFIG_MANUAL replaces all six by one manual clock (see
 * struct twheel_config).
 *
 * Time: every time given or returned is in the time namespace of the task
 * that opened the fd, whichever task uses it later.
 *
 * Resolution: each fd has a tick (default TWHEEL_DEFAULT_TICK_NS; see
 * struct twheel_config). A timer is due when its clock reaches its
 * deadline rounded up to a multiple of the tick; it expires never before
 * its deadline, and a task waiting on the fd (blocked in read(2), or in
 * poll, select or epoll on it) is woken for it at most one tick plus
 * scheduling latency after it.
 *
 * Delivery: expired timers are turned into records by the tasks that use
 * the fd, in their own context: a waiter woken for an expiry, and every
 * read(2), poll and ioctl, each first queues the records of every timer
 * due by then (also right after CLOCK_REALTIME, and so CLOCK_TAI, was set
 * past a deadline). On an fd nobody waits on, a record is therefore
 * queued when the fd is next used (see struct twheel_event's time_ns).
 * Reading the fd's /proc/PID/fdinfo queues nothing: it shows the fd as
 * its last use left it.
 *
 * Limits: one fd holds at most max_timers timers (module parameter, or
 * lower as struct twheel_config sets it; ENOSPC). Per user (the opener's
 * effective uid, charged until the fd is closed and no longer mapped),
 * over all their
 * processes: at most fs.twheel.max_user_fds open fds (sysctl; open(2)
 * fails with EMFILE) and fs.twheel.max_user_timers
 * timer slots (sysctl; ENOSPC). A timer takes a slot of its fd; when it
 * ends, the slot stays with the fd for its next timer, so an fd holds as
 * many slots as the most timers it has held at once, until it is closed.
 *
 * Outcomes: every expiry of a timer is reported by a record, or retracted
 * by a successful cancel or modify (or, with a shared timer table, moved
 * or cancelled by a store the kernel read: see below); none is reported twice (a periodic
 * timer's deadlines missed while its record waited are counted in it, or,
 * as its TWHEEL_MISSED_* policy asks, dropped, or never come). A one-shot
 * timer ends when its record is read, or when it is cancelled.
 *
 * Extensibility: each ioctl's argument size is encoded in its command
 * number (_IOC_SIZE). The kernel accepts a smaller (older) struct down to
 * its first published size (the 40 bytes of version 1 for TWHEEL_IOC_INFO,
 * the version 2 size for the others), zero-extending it (smaller than
 * that: EINVAL), and a larger (newer) one whose extra bytes are all zero
 * (else E2BIG). A command that writes results (all but TWHEEL_IOC_CONFIG
 * and TWHEEL_IOC_SUBMIT) writes those extra bytes as zero; the write-only
 * TWHEEL_IOC_CONFIG and TWHEEL_IOC_SUBMIT write nothing into their struct,
 * which may be in read-only memory. For an output-only struct
 * (TWHEEL_IOC_INFO) the input bytes are not read at all. Every field
 * marked "in" is checked: unknown flags, clocks or operations, and
 * non-zero reserved fields, are EINVAL. Fields marked "out" are ignored on
 * input and written when the call succeeds; a call that fails with
 * another error than EFAULT leaves the struct as given. Fields marked only
 * "in" may be written back with the value they were read with, or not
 * written at all.
 *
 * Errors common to all ioctls: ENOTTY for an unknown command, EFAULT for
 * an argument that cannot be read or written (nothing is changed then).
 *
 * The shared timer table (TWHEEL_CONFIG_TABLE; TWHEEL_FEATURE_TABLE):
 * timeouts that move without a system call. An fd configured with
 * TWHEEL_CONFIG_TABLE has a table of __u64 entries, one per timer it can
 * hold, in memory the kernel allocates (charged to the opener's memory
 * cgroup; it is part of what a timer slot holds, see "Limits"), which
 * mmap(2) maps into the process. Entry i belongs to the timer whose id
 * has i + 1 in its low 32 bits: TWHEEL_TABLE_INDEX(id). The values an
 * entry takes:
 *
 * TWHEEL_TABLE_DEADLINE(id, D): the timer's deadline is tick D: the time
 *	D * tick_ns on the timer's clock, in the opener's time namespace
 *	(on a TWHEEL_CONFIG_MANUAL fd, on the manual clock). Only D's low 32
 *	bits are stored: the kernel takes them for the D from 2^31 ticks
 *	before the present tick P to 2^31 - 1 ticks after it (P - 2^31 <= D
 *	< P + 2^31), so a deadline 2^31 ticks or more ahead needs
 *	TWHEEL_IOC_MODIFY (stored, it reads as a deadline passed). P is the
 *	time the kernel brings the fd's wheel up to when it reads the entry,
 *	divided by tick_ns, rounded down: not the timer's deadline tick, but
 *	on a manual clock the time TWHEEL_IOC_ADVANCE moves the clock to,
 *	and on a real clock the time of the update that finds the timer due
 *	or cascades it (below; see "Delivery": on an fd nobody waits on,
 *	when it is next used, if the hrtimer's callback could not). So
 *	when that time is more than 2^31 ticks after a deadline stored (one
 *	ADVANCE longer than that, an fd left unused that long: 35.8 minutes
 *	at a 1 us tick), the stored D reads as a tick 2^32 (or a multiple)
 *	later, and the timer is placed there.
 * TWHEEL_TABLE_CANCELLED(id): the timer is cancelled.
 * A value whose bits 33 to 63 (its tag) differ from those of the id
 *	means nothing for it: 0, most garbage, and any store aimed at an
 *	earlier timer of the entry (every timer that takes an entry has
 *	another tag than the ones before it there). The tag is all the
 *	kernel compares: the value holds no index. So the tag protects an
 *	entry's timer against stale stores into its reused entry, not
 *	against stores at the wrong index: timers in different entries may
 *	have the same tag (a generation), and a value made for one of them,
 *	stored in another's entry, acts on that entry's timer as if made
 *	for it.
 *
 * The kernel writes TWHEEL_TABLE_DEADLINE(id, D) when TWHEEL_IOC_ADD or
 * TWHEEL_IOC_MODIFY (alone or in a batch) sets the timer's deadline (D:
 * struct twheel_status.deadline_ns divided by tick_ns, rounded down), and
 * 0 when the timer ends; it writes nothing else. It reads the entry when
 * the timer's deadline tick comes due in the fd's wheel, and acts on it
 * at most once per passing of that tick; and, for a one-shot timer, each
 * time the wheel moves the timer to a finer level before that tick (a
 * cascade: at a tick that is a multiple of 64, at most 10 times per
 * deadline the timer is placed for), where only a later deadline acts,
 * and only in a level the fd's wheel holds then (a tick in a later
 * aligned range of 4 096 ticks than the present tick needs level 2, of
 * 262 144 level 3; a wheel frees its levels when it empties): one needing
 * a level the wheel lacks acts later, at the timer's tick at the latest,
 * once the task using the fd has allocated the level (its waiting thread
 * is woken for that, once per level). Both in the callback of the fd's
 * timer for that clock (an hrtimer; on the alarm clocks the alarmtimer)
 * when it can (a later deadline or a cancel then wakes nobody; a tick
 * whose first timer in line expires it leaves whole to the task it wakes
 * for that timer), else in the task that advances the wheel (see
 * "Delivery"); only entries whose value it can act on change anything:
 *
 * - one-shot timer, a deadline D whose time is after the present and
 *   after the deadline the timer is placed for (at its tick: after the
 *   present): the timer is placed again for tick D, with no record, at
 *   once (struct twheel_status.deadline_ns shows it from then on), and
 *   comes among the timers of tick D as if modified then. An earlier
 *   deadline than the one placed takes TWHEEL_IOC_MODIFY: a store cannot
 *   move a timer forward.
 * - a cancelled timer (one-shot or periodic), at its tick: it ends there,
 *   with no record, as if TWHEEL_IOC_CANCEL had cancelled it then, and
 *   counts in struct twheel_info.cancelled from then on. Until that tick it is a
 *   live timer: it counts in struct twheel_info.timers, against the
 *   fd's and the user's maximums, and every ioctl works on it as on any
 *   other (TWHEEL_IOC_MODIFY writes a deadline over the cancel,
 *   TWHEEL_IOC_CANCEL ends it at once).
 * - any other value: the timer expires as it would without a table; a
 *   periodic timer ignores deadlines stored.
 *
 * Races: a store the kernel reads takes effect; a store it does not read
 * (made after it read the entry, or after the record was queued) has no
 * effect at all, and unless the deadline stored (D * tick_ns) had passed
 * by then, the record's time_ns is before it. So a record whose time_ns
 * is at or after the last deadline the application stored is the expiry
 * of that deadline; one whose time_ns is before it tells that the store
 * came too late (the one-shot timer ends with that record). A timer that
 * takes an entry after another timer ended there has an id whose bits 33
 * to 63 differ from every earlier one's (ids never repeat), so a store
 * aimed at an ended timer never moves or cancels another. The kernel
 * never reads other entries, never acts on another fd's table, and
 * reads each entry as a plain value: whatever is stored, a timer never
 * expires before its deadline and never more than once per deadline.
 *
 * Id 0 (a record of wall clock sets: TWHEEL_CONFIG_CLOCK_SET) is no
 * timer: it has no entry (TWHEEL_TABLE_INDEX(0) is no index), and
 * TWHEEL_IOC_QUERY, TWHEEL_IOC_MODIFY and TWHEEL_IOC_CANCEL on it, alone
 * or in a batch, fail with ENOENT.
 *
 * The mapping: offset 0, a length up to struct twheel_info.table_size
 * (the table's size: max_timers entries, rounded up to the page size),
 * MAP_SHARED, PROT_READ and PROT_WRITE. EINVAL for another offset, a
 * longer length or MAP_PRIVATE; EPERM for PROT_EXEC (and mprotect(2)
 * cannot add it later: EACCES); ENODEV on an fd without a table. On an
 * fd opened O_RDWR, PROT_READ alone is allowed too: the entries can be
 * read, a store raises SIGSEGV and changes nothing, and mprotect(2) may
 * add PROT_WRITE later. On an fd opened O_RDONLY, PROT_WRITE is EACCES
 * and PROT_READ alone EINVAL (mmap(2) makes a shared mapping of a
 * read-only file private); on an O_WRONLY fd, EACCES. Stores never
 * change the times of /dev/twheel (its mtime and ctime), so they show
 * nothing to other users. mremap(2) may move or shrink the mapping,
 * not grow it (EFAULT). Only
 * the pages of entries the fd's slots have used are backed: touching a
 * page beyond them raises SIGBUS (an entry of a timer the fd has given
 * an id is always backed). An add that would need a slot beyond the table
 * (possible only once slots were retired, their ids' generations used up)
 * fails with ENOSPC. The mapping holds the fd's timer set as an
 * open fd does: after close(2) its timers keep running until the last
 * mapping is unmapped too, and until then the file is open: it counts
 * in the fds counter of /sys/class/misc/twheel/stats, in its user's fds
 * (fdinfo's user_fds) and against fs.twheel.max_user_fds. After
 * fork(2), or in another process the fd was passed to, every mapping of
 * the fd is the same table. munmap(2) changes nothing for the timers:
 * the kernel keeps the table until the fd and its mappings are gone.
 * Once the table was mapped, TWHEEL_IOC_CONFIG fails with EBUSY, also
 * after every mapping is unmapped.
 *
 * The record ring (TWHEEL_CONFIG_RING; TWHEEL_FEATURE_RING): records
 * without a read(2). An fd configured with TWHEEL_CONFIG_RING has a
 * struct twheel_ring (below) in memory the kernel allocates (charged to
 * the opener's memory cgroup, part of what an fd holds), which mmap(2)
 * maps at offset TWHEEL_RING_OFFSET. When the fd is polled (poll(2),
 * select(2), epoll_wait(2), epoll_ctl(2)'s EPOLL_CTL_ADD and
 * EPOLL_CTL_MOD, io_uring's poll), the kernel first brings its
 * wheels up to date as for a read, then moves queued records, oldest
 * first, into the ring while it has room: each one ends there as if
 * read(2) had returned it (it no longer counts in struct
 * twheel_info.queued; a periodic timer's next deadline is set then), and
 * so on until the wheels are up to date or the ring is full; one poll,
 * as one read(2), moves at most one record of a periodic timer. It
 * writes a record into events[tail % TWHEEL_RING_ENTRIES], then, after
 * the records, the new tail (a store-release); the program reads the
 * records from its head up to the tail (a load-acquire of tail), then
 * stores the new head (a store-release). The ring has room for
 * TWHEEL_RING_ENTRIES - (tail - head) records, counted modulo 2^32; a
 * head for which tail - head is above TWHEEL_RING_ENTRIES (garbage, or a
 * head ahead of the tail) leaves it no room: records stay queued, for
 * read(2) or for a poll once the head is right again. The kernel reads
 * only head, once per poll that has records to move, never trusts it
 * beyond that, and keeps its own tail: what the program stores into
 * tail or into events[] is overwritten or ignored. The records in the
 * ring come before those still queued, which read(2) returns as before
 * (it takes nothing from the ring). Nothing moves records into the ring
 * but a poll: no read(2), ioctl, or expiry does. The fd is readable
 * (EPOLLIN) while head differs from the kernel's tail (the one it last
 * wrote, whatever the program stored into tail since) or a record is
 * queued; so a level-triggered epoll reports it until the program has
 * moved its head to the tail, and the next epoll_wait(2) after that fills
 * the ring again when records wait. A store into head wakes nobody: an
 * epoll looks at it again when it polls the fd (for a level-triggered
 * one, each epoll_wait(2) after it reported the fd), poll(2) and select(2)
 * at each call. With EPOLLET, as for any fd, records left
 * queued (the ring full) wake nobody again: read them with read(2), or
 * poll the fd once more after emptying the ring.
 *
 * A record moved into the ring has ended its timer (as read(2) ends it):
 * from then on every ioctl on its id fails with ENOENT, and its id slot,
 * with its table entry, may go to the next timer added, before the
 * program has taken the record from the ring (with read(2) alone, a
 * slot is never reused before its record is read). So a program that
 * keys its own state by TWHEEL_TABLE_INDEX(id) must take the ring's
 * records before it adds a timer, or find each record by its whole id
 * (ids never repeat); a store it makes meanwhile into that entry for the
 * ended timer means nothing to the new one (another tag) but replaces
 * the value there, as any stale store does.
 *
 * The ring's mapping: offset TWHEEL_RING_OFFSET, a length up to
 * sizeof(struct twheel_ring) rounded up to the page size, with the
 * table's rules otherwise (MAP_SHARED, the protections and the fd's open
 * mode, mprotect(2), mremap(2), the fd's timer set held by the mapping
 * after close(2), one ring after fork(2)). An offset below
 * TWHEEL_RING_OFFSET is the table's (ENODEV without a table, EINVAL but
 * for 0), one at or above it the ring's: ENODEV on an fd without a ring,
 * EINVAL for another offset than TWHEEL_RING_OFFSET or a longer length.
 * Once the ring was mapped, TWHEEL_IOC_CONFIG fails with EBUSY, also
 * after every mapping is unmapped.
 *
 * ABI version 2 (TWHEEL_VERSION 0.3) changed version 1: clocks are
 * clockid_t values (version 1 had its own numbering); struct twheel_add
 * gained period_ns (its 32-byte version 1 form is EINVAL); the cancel
 * outcomes are named TWHEEL_STATE_*. The records and TWHEEL_IOC_INFO's
 * first 40 bytes kept their layout.
 */
#ifndef _UAPI_LINUX_TWHEEL_H
#define _UAPI_LINUX_TWHEEL_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* The ABI version, reported by TWHEEL_IOC_INFO; the module's version. */
#define TWHEEL_ABI_VERSION	2
#define TWHEEL_VERSION		"0.3"

/* The tick of a new fd, and the range TWHEEL_IOC_CONFIG accepts. */
#define TWHEEL_DEFAULT_TICK_NS	1000000ULL
#define TWHEEL_MIN_TICK_NS	1000ULL
#define TWHEEL_MAX_TICK_NS	1000000000ULL

/* The most operations one TWHEEL_IOC_SUBMIT takes. */
#define TWHEEL_MAX_BATCH	1024

/*
 * Flags of a deadline (struct twheel_add, struct twheel_modify, struct
 * twheel_op). TWHEEL_ABSTIME: expires_ns is an absolute time on the
 * timer's clock, not a delay from now. TWHEEL_SET_COOKIE (modify only):
 * replace the cookie with the one given; without it the cookie is kept.
 */
#define TWHEEL_ABSTIME		0x00000001U
#define TWHEEL_SET_COOKIE	0x00000002U

/*
 * TWHEEL_CANCEL_ON_SET (a flag of struct twheel_add, struct twheel_modify
 * and struct twheel_op, with TWHEEL_ABSTIME on CLOCK_REALTIME, CLOCK_TAI
 * or CLOCK_REALTIME_ALARM only: EINVAL otherwise), as timerfd's
 * TFD_TIMER_CANCEL_ON_SET: when the wall clock is set while the timer is
 * pending, the timer ends there with a record whose flags are
 * TWHEEL_EVENT_CLOCK_SET and whose count is 0, instead of expiring at a
 * deadline that now means another moment. A set is any discontinuous
 * change of the wall clock against CLOCK_MONOTONIC: settimeofday(2),
 * clock_settime(2), adjtimex(2) stepping it (ADJ_SETOFFSET) or changing
 * the TAI offset, a leap second, and every resume from suspend (the
 * wall clock moves by the time suspended). A timer added or modified
 * after the set (whose deadline was computed from the new time) is not
 * ended by it; one whose record is already queued keeps it.
 */
#define TWHEEL_CANCEL_ON_SET	0x00000010U

/*
 * What a periodic timer does with the deadlines it missed, while its
 * record waited to be read (a flag of struct twheel_add, struct
 * twheel_modify and struct twheel_op, with a period only: EINVAL without;
 * one of the four values of TWHEEL_MISSED_MASK):
 *
 * TWHEEL_MISSED_COUNT (0, the default; timerfd's): one record, whose count
 *	is every deadline that had passed when it was read; the next
 *	deadline is the first of the period's grid after that read.
 * TWHEEL_MISSED_BURST (tokio's MissedTickBehavior::Burst, Java's
 *	scheduleAtFixedRate): one record per deadline, count 1; reading it
 *	sets the next deadline to the following one of the grid, past or
 *	not, so the missed ones come one after another, at once, until the
 *	timer has caught up.
 * TWHEEL_MISSED_DELAY (tokio's Delay, Java's scheduleWithFixedDelay):
 *	count 1; the next deadline is one period after the record was read.
 * TWHEEL_MISSED_SKIP (tokio's Skip, Quartz's "do nothing" misfire): count
 *	1, the missed deadlines dropped; the next deadline as with
 *	TWHEEL_MISSED_COUNT.
 */
#define TWHEEL_MISSED_MASK	0x0000000CU
#define TWHEEL_MISSED_COUNT	0x00000000U
#define TWHEEL_MISSED_BURST	0x00000004U
#define TWHEEL_MISSED_DELAY	0x00000008U
#define TWHEEL_MISSED_SKIP	0x0000000CU

/*
 * The state of a timer: pending (its next expiry has not happened yet),
 * or queued (it expired and its record is unread). Also the outcome of a
 * cancel or a modify: the state the timer was in.
 */
#define TWHEEL_STATE_PENDING	1
#define TWHEEL_STATE_QUEUED	2

/**
 * struct twheel_add - argument of TWHEEL_IOC_ADD: schedule one timer
 * @cookie: in: any value; returned in the timer's expiry records
 * @expires_ns: in: the first deadline: nanoseconds from now (>= 0, else
 *	EINVAL), or with TWHEEL_ABSTIME the absolute time on @clock (any
 *	value; a deadline already past is due at once, see below). A
 *	relative deadline that would overflow saturates at the largest
 *	representable time (never wraps).
 * @period_ns: in: 0 for a one-shot timer; else the timer is periodic:
 *	after each expiry the next deadline is the previous one plus
 *	@period_ns (but see TWHEEL_MISSED_*). A period shorter than the fd's
 *	tick is taken as one tick, one longer than 2^62 - 1 ns (146 years)
 *	as that (and reported so by TWHEEL_IOC_QUERY and TWHEEL_IOC_LIST).
 * @flags: in: TWHEEL_ABSTIME, TWHEEL_CANCEL_ON_SET, and with a period one
 *	TWHEEL_MISSED_* value; other bits are EINVAL
 * @clock: in: CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME, CLOCK_TAI,
 *	CLOCK_REALTIME_ALARM or CLOCK_BOOTTIME_ALARM (the alarm clocks need
 *	CAP_WAKE_ALARM: EPERM without); others are EINVAL
 * @id: out: the new timer's id: never 0, unique within the fd and never
 *	reused while the fd is open
 *
 * A timer whose deadline tick has already been reached is queued before
 * the ioctl returns, behind every record already queued (and behind the
 * fd's timers of that tick it finds falling due at that moment, queued
 * then too; only when those are more than 256 does it come with them at
 * the fd's next use, as a read or poll does first). So is one whose
 * deadline has passed inside the current tick (its deadline tick is the
 * next), unless the wheel of its clock (on a TWHEEL_CONFIG_MANUAL fd, the
 * fd's one wheel) holds a pending timer in the same slot: one due in that
 * tick; or, when that tick's number (the kernel's time on that clock,
 * outside any time namespace, divided by the tick) is a multiple of 64^k,
 * k >= 1 (the largest such k), one due in the 64^k ticks that begin with
 * it. Then it is queued when
 * that tick is reached, behind the timers of that tick added before it
 * (see struct twheel_event for order): never before its deadline, at most
 * the rest of the current tick after it.
 *
 * A periodic timer has at most one record at a time: expiries while its
 * record is unread are counted in that record's count (read(2) counts
 * every deadline that has passed by then; with TWHEEL_MISSED_BURST,
 * DELAY or SKIP the count is 1), and its next deadline is set when the
 * record is read. An unread periodic timer therefore causes no timer
 * interrupts, whatever its period.
 *
 * Errors: EINVAL as above; EPERM for an alarm clock without
 * CAP_WAKE_ALARM; ENOSPC when the fd already holds its maximum of
 * timers (module parameter max_timers, as it was when the fd was opened,
 * or the lower one struct twheel_config set; queued records count until
 * read), or when the timer needs a new slot
 * (see "Limits" above) and the fd's user holds fs.twheel.max_user_timers
 * slots already; ENOMEM, also when the caller's memory cgroup is at its
 * limit (the OOM killer is not called). On any error no timer is created.
 */
struct twheel_add {
	__u64 cookie;
	__s64 expires_ns;
	__u64 period_ns;
	__u32 flags;
	__u32 clock;
	__u64 id;
};

/**
 * struct twheel_modify - argument of TWHEEL_IOC_MODIFY: re-arm a timer
 * @id: in: the timer's id
 * @cookie: in: the new cookie, used only with TWHEEL_SET_COOKIE
 * @expires_ns: in: the new next deadline, as in struct twheel_add, on the
 *	timer's own clock (which does not change)
 * @period_ns: in: the new period, as in struct twheel_add (0: one-shot)
 * @flags: in: TWHEEL_ABSTIME, TWHEEL_SET_COOKIE, TWHEEL_CANCEL_ON_SET
 *	(whether a clock set ends the timer, from now on), and with a
 *	period one TWHEEL_MISSED_* value (the timer's policy from now on);
 *	other bits are EINVAL
 * @result: out: the state the timer was in: TWHEEL_STATE_PENDING, or
 *	TWHEEL_STATE_QUEUED, in which case its unread record is retracted
 *	(never read)
 *
 * One step, atomic against the timer's expiry: afterwards the timer is
 * exactly as if added now with these values, except that it keeps its id
 * (and its cookie without TWHEEL_SET_COOKIE). Among timers of one deadline
 * tick, it comes after those added or modified before it.
 *
 * Errors: ENOENT when the fd holds no such timer (unknown, cancelled, a
 * one-shot timer whose record was read, or an id of another fd); EINVAL;
 * ENOMEM (making a one-shot timer periodic may allocate). On any error the
 * timer is unchanged.
 */
struct twheel_modify {
	__u64 id;
	__u64 cookie;
	__s64 expires_ns;
	__u64 period_ns;
	__u32 flags;
	__u32 result;
};

/**
 * struct twheel_cancel - argument of TWHEEL_IOC_CANCEL: cancel one timer
 * @id: in: the timer's id
 * @flags: in: must be 0 (EINVAL otherwise)
 * @result: out: the state the timer was in: TWHEEL_STATE_PENDING, or
 *	TWHEEL_STATE_QUEUED, in which case its unread record is retracted
 *
 * After a successful cancel no record for the timer will ever be read,
 * and its id is unknown to the fd.
 * Errors: ENOENT when the fd holds no such timer: an unknown id, a
 * one-shot timer whose record was already read, one already cancelled,
 * or an id of another fd.
 */
struct twheel_cancel {
	__u64 id;
	__u32 flags;
	__u32 result;
};

/**
 * struct twheel_status - one timer, as TWHEEL_IOC_QUERY and TWHEEL_IOC_LIST
 *	report it
 * @id: the timer's id
 * @cookie: its cookie
 * @deadline_ns: the absolute time, on @clock, of its next expiry not yet
 *	counted: for a one-shot timer its deadline rounded up to the fd's
 *	tick (by less than one tick); for a periodic one exactly the point
 *	of its grid (while its record is queued, the next deadline a read
 *	now would set: see TWHEEL_MISSED_*); 0 when none is coming (a
 *	one-shot timer whose record is queued)
 * @period_ns: its period in effect (0: one-shot)
 * @count: the expiries its queued record stands for if it were read now;
 *	0 while pending
 * @remaining_ns: @deadline_ns minus the present time of @clock, at least
 *	0; 0 when none is coming
 * @clock: its clockid
 * @state: TWHEEL_STATE_PENDING or TWHEEL_STATE_QUEUED
 *
 * The values of one status are taken together, under the fd's lock.
 * Re-adding a timer with @deadline_ns as an absolute deadline (and
 * @period_ns) re-creates it, never earlier than it would have expired.
 */
struct twheel_status {
	__u64 id;
	__u64 cookie;
	__s64 deadline_ns;
	__u64 period_ns;
	__u64 count;
	__s64 remaining_ns;
	__u32 clock;
	__u32 state;
};

/**
 * struct twheel_query - argument of TWHEEL_IOC_QUERY: one timer's status
 * @id: in: the timer's id
 * @flags: in: must be 0
 * @__reserved: in: must be 0
 * @status: out: the timer's status
 *
 * Errors: ENOENT as for TWHEEL_IOC_CANCEL. Nothing is changed.
 */
struct twheel_query {
	__u64 id;
	__u32 flags;
	__u32 __reserved;
	struct twheel_status status;
};

/**
 * struct twheel_list - argument of TWHEEL_IOC_LIST: the fd's timers
 * @statuses: in: user pointer to an array of @capacity struct twheel_status
 * @capacity: in: its length, at least 1 (else EINVAL)
 * @count: out: the entries written
 * @cursor: in: 0 to start a listing, or the @cursor a call of it returned;
 *	out: where the next call goes on, or 0 when the listing is complete
 *	(a call may write fewer than @capacity entries and still return a
 *	non-zero cursor)
 * @status_size: in: sizeof(struct twheel_status), 56 (else EINVAL)
 * @flags: in: must be 0
 *
 * A listing (the calls from cursor 0 until the cursor comes back 0)
 * reports every timer that exists throughout it exactly once; a timer
 * added or removed during it is reported at most once. Each entry is
 * consistent in itself (see struct twheel_status); the order is the
 * fd's internal order, not deadline order. Nothing is changed. One hold
 * of the fd's lock reports at most 64 entries and looks at most at 256 id
 * slots (the call goes on after releasing it). If the
 * array cannot be written, EFAULT: repeat the call with the same cursor.
 * ENOMEM when the kernel's buffer for the listing cannot be allocated.
 */
struct twheel_list {
	__u64 statuses;
	__u32 capacity;
	__u32 count;
	__u64 cursor;
	__u32 status_size;
	__u32 flags;
};

/* struct twheel_op.op */
#define TWHEEL_OP_ADD		1
#define TWHEEL_OP_MODIFY	2
#define TWHEEL_OP_CANCEL	3
#define TWHEEL_OP_QUERY		4

/**
 * struct twheel_op - one operation of a TWHEEL_IOC_SUBMIT batch
 * @op: in: TWHEEL_OP_ADD, TWHEEL_OP_MODIFY, TWHEEL_OP_CANCEL or
 *	TWHEEL_OP_QUERY
 * @flags: in: the flags of that operation's struct (TWHEEL_ABSTIME;
 *	TWHEEL_SET_COOKIE for MODIFY; 0 for CANCEL and QUERY)
 * @id: in: the timer (MODIFY, CANCEL, QUERY); out: ADD's new id
 * @cookie: in: ADD, and MODIFY with TWHEEL_SET_COOKIE; out: QUERY
 * @expires_ns: in: ADD, MODIFY; out: QUERY's deadline_ns
 * @period_ns: in: ADD, MODIFY; out: QUERY
 * @clock: in: ADD; out: QUERY
 * @error: out: 0, or the negative errno the single ioctl would have
 *	failed with (the operation then changed nothing)
 * @result: out: MODIFY, CANCEL: the state the timer was in; QUERY: its
 *	state
 * @__reserved: in: must be 0
 * @count: out: QUERY
 * @remaining_ns: out: QUERY
 *
 * Each operation behaves exactly as its single ioctl. Fields an operation
 * does not take as input are ignored on input. On output the operation's
 * outputs are written (on error, all of them but @error as 0), and @error,
 * @result, @count and @remaining_ns as 0 where the operation does not
 * produce them; every other field keeps the value given.
 */
struct twheel_op {
	__u32 op;
	__u32 flags;
	__u64 id;
	__u64 cookie;
	__s64 expires_ns;
	__u64 period_ns;
	__u32 clock;
	__s32 error;
	__u32 result;
	__u32 __reserved;
	__u64 count;
	__s64 remaining_ns;
};

/**
 * struct twheel_submit - argument of TWHEEL_IOC_SUBMIT: a batch
 * @ops: in: user pointer to an array of @nr struct twheel_op
 * @nr: in: its length, 0 to TWHEEL_MAX_BATCH (else EINVAL, checked first)
 * @op_size: in: sizeof(struct twheel_op), 72 (else EINVAL)
 * @flags: in: must be 0
 * @__reserved: in: must be 0
 *
 * The operations are done in array order, each written back (error and
 * outputs) before the next starts. An operation that fails sets its
 * @error and the batch goes on. If an operation cannot be read or written
 * back, the batch stops before it, with that operation not done.
 *
 * Return (of ioctl(2)): the number of operations done, each with its
 * result written: @nr, or fewer when one could not be read or written
 * (or a fatal signal arrived); -1 with EFAULT if the first one could not
 * be; -1 with EINVAL for a bad struct twheel_submit, or ENOMEM when the
 * kernel's buffer for the batch cannot be allocated (no operation done).
 */
struct twheel_submit {
	__u64 ops;
	__u32 nr;
	__u32 op_size;
	__u32 flags;
	__u32 __reserved;
};

/**
 * struct twheel_uring_cmd - an ioctl submitted through io_uring
 * @arg: in: user pointer to the command's argument struct, as ioctl(2)'s
 *	third argument
 * @__reserved: in: must be 0 (else the CQE's res is -EINVAL)
 *
 * An IORING_OP_URING_CMD on a twheel fd, when struct twheel_info.features
 * has TWHEEL_FEATURE_URING: sqe->cmd_op is any TWHEEL_IOC_* command and
 * the SQE's command area (sqe->cmd, 16 bytes) holds this struct. The
 * command is done as ioctl(2) does it: the CQE's res is what the ioctl
 * returns (0, a count or an outcome; -errno on failure, -ENOTTY for a
 * command twheel does not have), and its results are written into the
 * argument struct exactly as the ioctl writes them. The argument struct
 * must stay valid until the CQE is posted. It is done by the submitting
 * task, never sleeping there, when it can be at once: an ADD, MODIFY,
 * CANCEL, QUERY or a SUBMIT of one operation, with the fd's lock free,
 * the argument in memory and at most one chunk of wheel work due; else
 * (and always for INFO, LIST, CONFIG, ADVANCE and larger batches) by an
 * io_uring worker thread of its process.
 *
 * Reads through io_uring (IORING_OP_READ, READV) follow read(2); with
 * TWHEEL_FEATURE_URING they are tried at once, never sleeping, and when
 * no record is queued io_uring waits for one by poll, with no worker
 * thread, on a blocking fd as on an O_NONBLOCK one. A try that would
 * sleep (the fd's lock busy, a page of the buffer not in memory, more
 * than one chunk of wheel work before a record is known) reads nothing
 * and io_uring tries again after poll or from a worker thread.
 */
struct twheel_uring_cmd {
	__u64 arg;
	__u64 __reserved;
};

/*
 * struct twheel_config.flags: the fd's clock is manual; max_timers is
 * given; the fd has a shared timer table; it has records of wall clock
 * sets; it has a record ring.
 */
#define TWHEEL_CONFIG_MANUAL		0x00000001U
#define TWHEEL_CONFIG_MAX_TIMERS	0x00000002U
#define TWHEEL_CONFIG_TABLE		0x00000004U
#define TWHEEL_CONFIG_CLOCK_SET		0x00000008U
#define TWHEEL_CONFIG_RING		0x00000010U

/*
 * The shared timer table's entries (see "The shared timer table" above).
 * @id is a timer's id (__u64), @tick a deadline in ticks (any integer;
 * its low 32 bits are stored).
 */
#define TWHEEL_TABLE_INDEX(id)	(((__u64)(id) & 0xffffffffULL) - 1)
#define TWHEEL_TABLE_TAG(id)	((__u64)(id) & 0xffffffff00000000ULL)
#define TWHEEL_TABLE_CANCEL	0x0000000100000000ULL
#define TWHEEL_TABLE_DEADLINE(id, tick) \
	(TWHEEL_TABLE_TAG(id) | ((__u64)(tick) & 0xffffffffULL))
#define TWHEEL_TABLE_CANCELLED(id) \
	(TWHEEL_TABLE_TAG(id) | TWHEEL_TABLE_CANCEL)

/**
 * struct twheel_config - argument of TWHEEL_IOC_CONFIG: set up the fd
 * @tick_ns: in: the fd's tick, TWHEEL_MIN_TICK_NS (1 us) to
 *	TWHEEL_MAX_TICK_NS (1 s); else EINVAL
 * @flags: in: TWHEEL_CONFIG_MANUAL, TWHEEL_CONFIG_MAX_TIMERS,
 *	TWHEEL_CONFIG_TABLE, TWHEEL_CONFIG_CLOCK_SET, TWHEEL_CONFIG_RING;
 *	other bits are EINVAL
 * @__reserved: in: must be 0
 * @max_timers: in: with TWHEEL_CONFIG_MAX_TIMERS, the most timers the fd
 *	may hold, as Netty's maxPendingTimeouts: 1 up to the maximum it was
 *	opened with (the module parameter max_timers then; larger is
 *	EINVAL), or 0 for that maximum; beyond it an add fails with ENOSPC,
 *	and struct twheel_info.max_timers reports it. Without the flag it
 *	must be 0 (EINVAL), and the fd keeps the maximum it was opened with
 *	(the 16-byte struct of version 2 has no such field: the same).
 *
 * Allowed only before the fd's first timer is added (EBUSY after, even
 * once that timer is gone); it may be repeated before, the last one
 * counts. ENOMEM (nothing changed) when the memory of a table or a ring
 * cannot be allocated.
 *
 * TWHEEL_CONFIG_MANUAL: the fd's timers, on whatever clock they are
 * added, all run on one manual clock that starts at 0 and moves only by
 * TWHEEL_IOC_ADVANCE; times given and reported are on that clock (no
 * time namespace applies), and for the order of records they are all on
 * one clock. For testing timeout logic without waiting.
 *
 * TWHEEL_CONFIG_TABLE: the fd has a shared timer table (see "The shared
 * timer table" above) of as many entries as its maximum of timers, for
 * mmap(2); a configuration without the flag leaves the fd without one.
 * Once the table is mapped, the configuration is fixed (EBUSY).
 *
 * TWHEEL_CONFIG_RING: the fd has a record ring (see "The record ring"
 * above), for mmap(2); a configuration without the flag leaves the fd
 * without one. Once the ring is mapped, the configuration is fixed
 * (EBUSY).
 *
 * TWHEEL_CONFIG_CLOCK_SET: the fd receives a record each time the wall
 * clock is set (as TWHEEL_CANCEL_ON_SET defines a set), ordered among
 * the other records when the fd learns of it: id 0, cookie 0, clock
 * CLOCK_REALTIME, flags TWHEEL_EVENT_CLOCK_SET, time_ns the wall clock's
 * time then, count the sets it stands for. At most one such record is
 * queued at a time: sets that come while it is unread are counted in it.
 * It ends when read; no ioctl acts on id 0. Sets before the
 * configuration are not reported.
 */
struct twheel_config {
	__u64 tick_ns;
	__u32 flags;
	__u32 __reserved;
	__u64 max_timers;
};

/**
 * struct twheel_advance - argument of TWHEEL_IOC_ADVANCE: move the manual
 *	clock
 * @delta_ns: in: how far forward, in nanoseconds (the clock saturates at
 *	the largest representable time, INT64_MAX: a deadline after the
 *	last whole tick before it is never reached)
 * @flags: in: must be 0
 * @__reserved: in: must be 0
 * @now_ns: out: the manual clock's time afterwards
 *
 * Before it returns, every timer due by the new time is queued, in the
 * order of struct twheel_event (poll waiters are woken). A delta of 0
 * reads the clock. Errors: EINVAL on an fd without TWHEEL_CONFIG_MANUAL.
 */
struct twheel_advance {
	__u64 delta_ns;
	__u32 flags;
	__u32 __reserved;
	__s64 now_ns;
};

/* struct twheel_event.flags: the record tells of a wall clock set. */
#define TWHEEL_EVENT_CLOCK_SET	0x00000001U

/**
 * struct twheel_event - one expiry record, as read(2) returns it
 * @id: the timer's id
 * @cookie: the timer's cookie
 * @time_ns: the time on the timer's clock at which the record was queued
 *	(never before the deadline; on an fd nobody waited on, when the fd
 *	was next used: see "Delivery" above), in the opener's time namespace
 * @count: the number of expiries this record stands for: 1 for a
 *	one-shot timer; for a periodic one, every deadline that had passed
 *	when the record was read (at least 1), or 1 with TWHEEL_MISSED_BURST,
 *	DELAY or SKIP
 * @clock: the timer's clockid
 * @flags: 0 for an expiry; TWHEEL_EVENT_CLOCK_SET for a record of the
 *	wall clock being set (see TWHEEL_CANCEL_ON_SET and
 *	TWHEEL_CONFIG_CLOCK_SET; @count is then 0, or the sets it stands for)
 *
 * read(2) returns as many whole records as fit in the buffer, in the
 * order they were queued. Within a clock, the timers that fall due
 * together are queued in order of deadline tick, those of one deadline
 * tick in the order they were added (or modified); timers of equal
 * deadline therefore always come out in that order (one added after its
 * deadline included: see struct twheel_add). It blocks for the first
 * record unless the fd is O_NONBLOCK (EAGAIN). A buffer smaller than one
 * record is EINVAL. A signal while blocked gives EINTR, or restarts the
 * read under SA_RESTART. If copying a record out faults, that record and
 * the ones after it stay queued: the read returns the bytes copied before
 * it, or EFAULT if none. Reading a periodic timer's record sets its next
 * deadline: the first one after the present, on the period's grid. One
 * read holds at most one record of a periodic timer (but for the missed
 * deadlines of a TWHEEL_MISSED_BURST timer, queued again at once as each
 * is read): should the next deadline of one whose record it took pass
 * while it goes on, that expiry comes in a later read (unless a cancel or
 * a modify retracts it first), and so does every record after it.
 */
struct twheel_event {
	__u64 id;
	__u64 cookie;
	__s64 time_ns;
	__u64 count;
	__u32 clock;
	__u32 flags;
};

/* The record ring's mmap(2) offset, and its size in records. */
#define TWHEEL_RING_OFFSET	0x10000000000ULL
#define TWHEEL_RING_ENTRIES	128U

/**
 * struct twheel_ring - the record ring, mapped at TWHEEL_RING_OFFSET (see
 *	"The record ring" above)
 * @head: in: the program's: the records before it are consumed; the
 *	kernel reads it, never writes it (0 at first)
 * @__pad1: unused: the kernel neither reads nor writes it
 * @tail: out: the kernel's: it has written the records before it (0 at
 *	first); stores into it are overwritten at the next record
 * @__pad2: unused: the kernel neither reads nor writes it
 * @events: out: record i is at events[i % TWHEEL_RING_ENTRIES], written by
 *	the kernel before the tail passes it, not written again until the
 *	head has passed it
 *
 * @head and @tail count records modulo 2^32, each in a cache line of its
 * own.
 */
struct twheel_ring {
	__u32 head;
	__u32 __pad1[15];
	__u32 tail;
	__u32 __pad2[15];
	struct twheel_event events[TWHEEL_RING_ENTRIES];
};

/* struct twheel_info.features */
#define TWHEEL_FEATURE_PERIODIC		0x1ULL		/* period_ns */
#define TWHEEL_FEATURE_TIMENS		0x2ULL		/* time namespaces */
#define TWHEEL_FEATURE_MANUAL_CLOCK	0x4ULL		/* TWHEEL_CONFIG_MANUAL */
#define TWHEEL_FEATURE_RELATIVE_WALL	0x8ULL		/* relative REALTIME/TAI */
#define TWHEEL_FEATURE_URING		0x10ULL		/* struct twheel_uring_cmd */
#define TWHEEL_FEATURE_MISSED		0x20ULL		/* TWHEEL_MISSED_* */
#define TWHEEL_FEATURE_FD_MAX_TIMERS	0x40ULL		/* config max_timers */
#define TWHEEL_FEATURE_TABLE		0x80ULL		/* TWHEEL_CONFIG_TABLE */
#define TWHEEL_FEATURE_ALARM		0x100ULL	/* *_ALARM clocks */
#define TWHEEL_FEATURE_CLOCK_SET	0x200ULL	/* clock-set records */
#define TWHEEL_FEATURE_RING		0x400ULL	/* TWHEEL_CONFIG_RING */

/**
 * struct twheel_info - argument of TWHEEL_IOC_INFO: the handshake
 * @version: out: TWHEEL_ABI_VERSION of the running module
 * @event_size: out: sizeof(struct twheel_event) of the running module
 * @tick_ns: out: the fd's tick in nanoseconds
 * @max_timers: out: the most timers the fd may hold
 * @timers: out: the timers it holds: pending, plus expired and unread
 * @queued: out: the expiry records queued and unread
 * @features: out: TWHEEL_FEATURE_* bits the module has
 * @ioctls: out: bit _IOC_NR(cmd) set for each TWHEEL_IOC_* it knows
 * @clocks: out: bit (1 << clockid) set for each clock it takes
 * @min_tick_ns: out: TWHEEL_MIN_TICK_NS
 * @max_tick_ns: out: TWHEEL_MAX_TICK_NS
 * @config_flags: out: the fd's TWHEEL_CONFIG_MANUAL, TWHEEL_CONFIG_TABLE,
 *	TWHEEL_CONFIG_CLOCK_SET and TWHEEL_CONFIG_RING flags (its maximum of
 *	timers is @max_timers)
 * @op_size: out: sizeof(struct twheel_op)
 * @status_size: out: sizeof(struct twheel_status)
 * @max_batch: out: TWHEEL_MAX_BATCH
 * @table_size: out: the size in bytes of the fd's shared timer table (a
 *	multiple of the page size), 0 when it has none
 * @cancelled: out: the timers the kernel has ended because their table
 *	entry held TWHEEL_TABLE_CANCELLED(id) when their deadline tick came
 *	due, since the fd was opened; 0 without a table. A store counts
 *	when it takes effect, not when it is made (the kernel does not see
 *	it then); a timer ended otherwise (TWHEEL_IOC_CANCEL, a read, its
 *	cancel overwritten before that tick) never counts, and the count
 *	never goes down. The kernel keeps it as timers end: reading it
 *	(here or in fdinfo) visits no timer slot and no table entry, O(1)
 *	whatever the number of timers
 *
 * The first 40 bytes are those of ABI version 1, so a program of any
 * version can read @version first.
 */
struct twheel_info {
	__u32 version;
	__u32 event_size;
	__u64 tick_ns;
	__u64 max_timers;
	__u64 timers;
	__u64 queued;
	__u64 features;
	__u64 ioctls;
	__u64 clocks;
	__u64 min_tick_ns;
	__u64 max_tick_ns;
	__u32 config_flags;
	__u32 op_size;
	__u32 status_size;
	__u32 max_batch;
	__u64 table_size;
	__u64 cancelled;
};

/* ioctl type 0xBA, numbers 0x00-0x0F (ioctl-number.rst lists it free). */
#define TWHEEL_IOC_TYPE		0xBA

#define TWHEEL_IOC_INFO		_IOR(TWHEEL_IOC_TYPE, 0x00, struct twheel_info)
#define TWHEEL_IOC_ADD		_IOWR(TWHEEL_IOC_TYPE, 0x01, struct twheel_add)
#define TWHEEL_IOC_CANCEL	_IOWR(TWHEEL_IOC_TYPE, 0x02, struct twheel_cancel)
#define TWHEEL_IOC_MODIFY	_IOWR(TWHEEL_IOC_TYPE, 0x03, struct twheel_modify)
#define TWHEEL_IOC_QUERY	_IOWR(TWHEEL_IOC_TYPE, 0x04, struct twheel_query)
#define TWHEEL_IOC_LIST		_IOWR(TWHEEL_IOC_TYPE, 0x05, struct twheel_list)
#define TWHEEL_IOC_SUBMIT	_IOW(TWHEEL_IOC_TYPE, 0x06, struct twheel_submit)
#define TWHEEL_IOC_CONFIG	_IOW(TWHEEL_IOC_TYPE, 0x07, struct twheel_config)
#define TWHEEL_IOC_ADVANCE	_IOWR(TWHEEL_IOC_TYPE, 0x08, struct twheel_advance)

#endif /* _UAPI_LINUX_TWHEEL_H */
