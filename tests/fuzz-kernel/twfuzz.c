// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz.c - a randomized fuzzer of /dev/twheel with an oracle, run in the
 * test VM (static, no libc there).
 *
 *   twfuzz [-s SEED] [-t SECONDS] [-j PROCS] [-T THREADS] [-v]
 *
 * (-v: per-process counts.)
 *
 * Several processes, each with several threads, issue random valid and
 * invalid calls for SECONDS. Even-numbered processes are "strict": each
 * thread owns a few fds that only it uses and keeps, per fd, a shadow of
 * every timer it created (id, cookie, clock, deadline, period, state). On
 * a TWHEEL_CONFIG_MANUAL fd the shadow is an exact model of the header's
 * rules (due at the deadline tick, queue order, counts, statuses); on a
 * real-clock fd it keeps bounds (the deadline between two clock readings)
 * and checks what cannot depend on the machine's speed. Every call's
 * result is checked against it: records are of live timers, never early,
 * one-shots end once with count 1, a cancelled timer never reports, ids
 * are never reused, INFO/QUERY/LIST agree with the shadow, and an invalid
 * call fails with the errno the header documents and changes nothing. At
 * the end every timer either expires and is read, or is cancelled.
 *
 * Odd-numbered processes are "chaos": their threads share fds (inherited
 * from the parent, opened, dup'ed, dup2'ed over each other, closed while
 * another thread uses the number, passed to forked children) and make
 * random calls with random and broken arguments; their oracle is weaker:
 * no errno outside the documented set, results well-formed.
 *
 * Output: "#" lines (seed, the counts of each kind of operation, records,
 * timers, early/lost/duplicate/violations), TAP lines "ok fuzz-kernel/..."
 * and exit status 0 when all passed. A violation prints the seed and the
 * tail of the offending thread's operation log. The threads interleave
 * with real time, so a seed does not replay a run exactly; it does replay
 * each thread's choices.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <linux/twheel.h>

#include "twtest.h"

/* The uapi types (long long): one printf format for everything here. */
typedef __u64 u64;
typedef __s64 s64;

#define PROG		"fuzz-kernel"
#define MS		TWT_MS
#define S		TWT_S
#define EV		((size_t)sizeof(struct twheel_event))
#define NCLK		6	/* the last two: the alarm clocks */
#define FDS_PER_THREAD	3
#define NDEAD		256
#define LOGN		48
#define LOGW		240
#define SOFT_LIVE	300	/* a strict fd stops adding beyond this */
#define NTAB		12	/* chaos: fd slots shared by a process */
#define REGION_PAGES	32
#define PARAM		"/sys/module/twheel/parameters/max_timers"
/* How long past its deadline a real-clock timer may take to be read. */
#define LOST_SLACK_NS	(60 * S)

#ifndef FD_TO_CLOCKID
#define FD_TO_CLOCKID(fd)	((clockid_t)((~(unsigned int)(fd) << 3) | 3))
#endif

enum kind {
	K_INFO, K_ADD, K_CANCEL, K_MODIFY, K_QUERY, K_LIST, K_SUBMIT,
	K_CONFIG, K_ADVANCE, K_READ, K_POLL, K_EPOLL, K_BADCMD, K_SIZES,
	K_OPEN, K_CLOSE, K_DUP, K_FORK, K_WAKE, K_TABLE, K_NKINDS
};

static const char *const kind_name[K_NKINDS] = {
	"info", "add", "cancel", "modify", "query", "list", "submit",
	"config", "advance", "read", "poll", "epoll", "badcmd", "sizes",
	"open", "close", "dup", "fork", "wake", "table",
};

enum vkind { V_EARLY, V_LOST, V_DUP, V_ORACLE, V_ERRNO };

/* Per process, in memory shared with the parent; updated atomically. */
struct stats {
	u64 ops[K_NKINDS];
	u64 invalid;	/* calls that had to fail, and did as documented */
	u64 faults;	/* calls with a bad pointer */
	u64 created;	/* strict: timers created */
	u64 ended_read, ended_cancel, ended_close;
	u64 records, periodic_records, exact_checks;
	u64 real_created, real_records;	/* of those, on real clocks */
	u64 early, lost, dup, oracle, errno_bad;
	u64 chaos_records, chaos_created;
	u64 table_maps, table_stores;	/* chaos: tables mapped, stored */
	u64 done;		/* the process finished its run */
};

#define ST_ADD(th, field, v) \
	__atomic_add_fetch(&(th)->st->field, (v), __ATOMIC_RELAXED)
#define ST_INC(th, field)	ST_ADD(th, field, 1)

/* One timer of a strict fd's shadow. */
struct stimer {
	u64 id, cookie;
	uint32_t clock;		/* clockid */
	int state;		/* TWHEEL_STATE_* */
	s64 dlo, dhi;	/* its deadline is in [dlo, dhi] (manual: equal) */
	u64 period;	/* in effect, 0: one-shot */
	/* manual model */
	u64 dtick;		/* deadline tick while pending */
	u64 seq;		/* order of placement in the wheel */
	u64 qseq;		/* order in the queue while queued */
	s64 qtime;		/* time_ns of its queued record */
	/* real clocks */
	bool known_queued;	/* seen queued: stays so until consumed */
	bool cos;		/* TWHEEL_CANCEL_ON_SET */
	bool via_wheel;		/* placed with a deadline after the present */
};

/* A strict fd and its shadow. */
struct sfd {
	int fd;
	bool manual, used, tainted;
	bool clock_set;		/* TWHEEL_CONFIG_CLOCK_SET */
	u64 tick, max_timers;
	s64 now;		/* manual clock */
	u64 seq, qseq;
	struct stimer *t;
	int n, cap;
	u64 dead[NDEAD];
	unsigned int ndead;
};

struct tsamp {
	s64 t[NCLK];
};

struct th {
	int proc, idx;
	bool chaos;
	uint64_t rs;		/* twt_rand() state */
	struct stats *st;
	pthread_t tid;
	unsigned int logi;
	char log[LOGN][LOGW];
	struct sfd f[FDS_PER_THREAD];
	u64 cookie_ctr;
	/*
	 * Memory for arguments: arrays (buf) and structs (arg), read-only,
	 * faulting half-way (half_end: the end of accessible memory,
	 * followed by a PROT_NONE page), inaccessible (a PROT_NONE page).
	 * The faulting pages stay mapped: a hole left by munmap() is where
	 * another thread's one-page mmap() of a table can land, and then
	 * the "fault" is memory the kernel may rightly write.
	 */
	char *buf;
	char *arg;
	size_t buflen;
	char *ro;
	char *half_end;
	char *unmapped;
	/* chaos */
	int epfd;
	u64 ids[64];
	unsigned int nids;
};

static u64 g_seed;
static int g_seconds = 60, g_procs = 4, g_threads = 3, g_verbose;
static s64 g_end_ns;	/* CLOCK_MONOTONIC */
static size_t g_pg;
static struct stats *g_stats;
static int g_shared[2] = { -1, -1 };
static int g_tab[NTAB];		/* chaos: the process's fd slots */
static int g_printed;		/* violations printed by this process */

static const clockid_t g_clocks[NCLK] = {
	CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME, CLOCK_TAI,
	CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM
};
/*
 * The clocks valid_clock() picks from: all six for root (CAP_WAKE_ALARM,
 * which the alarm clocks need: EPERM without), the first four otherwise.
 */
static int g_nclk = NCLK;

/* ------------------------------------------------------------------ */
/* Small helpers */

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	char b[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n >= (int)sizeof(b))
		n = sizeof(b) - 1;
	if (write(1, b, n) < 0)
		return;
}

static u64 splitmix(u64 *x)
{
	u64 z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static u64 rnd64(struct th *th)
{
	return twt_rand(&th->rs);
}

/* Uniform enough in [0, n) (n > 0); 0 for n == 0. */
static u64 rnd(struct th *th, u64 n)
{
	return n ? rnd64(th) % n : 0;
}

static bool chance(struct th *th, unsigned int pct)
{
	return rnd(th, 100) < pct;
}

static s64 mono(void)
{
	return twt_mono();
}

static bool time_up(void)
{
	return mono() >= g_end_ns;
}

static int clk_index(uint32_t clock)
{
	int i;

	for (i = 0; i < NCLK; i++)
		if ((uint32_t)g_clocks[i] == clock)
			return i;
	return -1;
}

static void sample(struct tsamp *s)
{
	int i;

	/*
	 * The alarm clocks read as CLOCK_REALTIME and CLOCK_BOOTTIME (their
	 * own clock_gettime() needs a wake-up RTC).
	 */
	for (i = 0; i < NCLK; i++)
		s->t[i] = twt_now(g_clocks[i] == CLOCK_REALTIME_ALARM ?
				  CLOCK_REALTIME :
				  g_clocks[i] == CLOCK_BOOTTIME_ALARM ?
				  CLOCK_BOOTTIME : g_clocks[i]);
}

static s64 add_sat(s64 a, s64 b)
{
	s64 r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* The header's deadline tick: ceil(ns / tick), 0 at or before 0. */
static u64 dl_tick(s64 ns, u64 tick)
{
	if (ns <= 0)
		return 0;
	return (u64)ns / tick + ((u64)ns % tick != 0);
}

static u64 now_tick(s64 ns, u64 tick)
{
	return ns <= 0 ? 0 : (u64)ns / tick;
}

static s64 tick_ns(u64 t, u64 tick)
{
	if (t > (u64)INT64_MAX / tick)
		return INT64_MAX;
	return (s64)(t * tick);
}

static s64 roundup_tick(s64 ns, u64 tick)
{
	return tick_ns(dl_tick(ns, tick), tick);
}

/* A period as the fd takes it: 0, or one tick to 2^62 - 1 ns. */
static u64 eff_period(u64 p, u64 tick)
{
	const u64 longest = (1ULL << 62) - 1;

	if (!p)
		return 0;
	if (p < tick)
		return tick;
	return p > longest ? longest : p;
}

/* Expiries a queued periodic timer of deadline d stands for at now. */
static u64 pcount(s64 d, u64 p, s64 now)
{
	if (now <= d)
		return 1;
	return 1 + ((u64)now - (u64)d) / p;
}

/*
 * d + n * p, saturating at INT64_MAX. The step may exceed INT64_MAX when d
 * is far in the past; INT64_MAX - d and the sum are exact in u64.
 */
static s64 periods_after(s64 d, u64 n, u64 p)
{
	u64 step;

	if (__builtin_mul_overflow(n, p, &step) ||
	    step > (u64)INT64_MAX - (u64)d)
		return INT64_MAX;
	return (s64)((u64)d + step);
}

static long xioctl(int fd, unsigned long cmd, void *arg)
{
	errno = 0;
	return ioctl(fd, cmd, arg);
}

#define IOC(dir, nr, size)	_IOC((dir), TWHEEL_IOC_TYPE, (nr), (size))

/* ------------------------------------------------------------------ */
/* The operation log and violations */

static void tlog(struct th *th, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tlog(struct th *th, const char *fmt, ...)
{
	char *b = th->log[th->logi++ % LOGN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, LOGW, fmt, ap);
	va_end(ap);
}

static void violation(struct th *th, struct sfd *f, enum vkind k,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void violation(struct th *th, struct sfd *f, enum vkind k,
		      const char *fmt, ...)
{
	static const char *const names[] = {
		"EARLY", "LOST", "DUPLICATE", "ORACLE", "ERRNO"
	};
	char msg[512];
	va_list ap;
	unsigned int i, n;

	switch (k) {
	case V_EARLY:
		ST_INC(th, early);
		break;
	case V_LOST:
		ST_INC(th, lost);
		break;
	case V_DUP:
		ST_INC(th, dup);
		break;
	case V_ORACLE:
		ST_INC(th, oracle);
		break;
	case V_ERRNO:
		ST_INC(th, errno_bad);
		break;
	}
	if (f)
		f->tainted = true;	/* the shadow may be off: start afresh */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (__atomic_add_fetch(&g_printed, 1, __ATOMIC_RELAXED) > 8)
		return;
	out("# VIOLATION %s: proc %d thread %d (%s) seed %#llx: %s\n",
	    names[k], th->proc, th->idx, th->chaos ? "chaos" : "strict",
	    g_seed, msg);
	if (f)
		out("#   fd %d: %s tick %llu manual now %lld"
		    ", %d timers in the shadow\n", f->fd,
		    f->manual ? "manual" : "real", f->tick, f->now, f->n);
	if (f && f->manual && now_tick(f->now, f->tick) % 64 == 63 &&
	    f->now % f->tick)
		out("#   (the clock is inside tick %llu, the last of a round of "
		    "level 0: see the known bug of deadlines passed inside the "
		    "current tick at a level boundary)\n",
		    now_tick(f->now, f->tick));
	n = th->logi < LOGN ? th->logi : LOGN;
	out("#   last %u operations of this thread, oldest first:\n", n);
	for (i = th->logi - n; i != th->logi; i++)
		out("#   | %s\n", th->log[i % LOGN]);
}

/* An errno the call may not return. */
static void bad_errno(struct th *th, struct sfd *f, const char *call,
		      long ret, int err, const char *want)
{
	violation(th, f, V_ERRNO, "%s returned %ld errno %d (%s), want %s",
		  call, ret, err, strerror(err), want);
}

/* ------------------------------------------------------------------ */
/* Argument memory: where an argument goes, by kind of pointer */

enum ptrkind { P_OK, P_NULL, P_UNMAPPED, P_RO, P_HALF, P_WILD, P_NKINDS };

static const char *const pk_name[P_NKINDS] = {
	"ok", "null", "unmapped", "ro", "half", "wild"
};

/*
 * The outcome a call on one struct must have, in the kernel's order of
 * checks: an unreadable argument EFAULT; invalid input EINVAL (or @err2
 * when @cond2 holds as well: the header does not rank the two); @cond2
 * alone @err2 (ENOENT: no such timer; ENOSPC: the fd is full); a
 * read-only argument (the result cannot be written back) EFAULT; else
 * success. Reports any other outcome.
 * Return: true when the call had to succeed, and did.
 */
static bool expect_call(struct th *th, struct sfd *f, const char *what,
			enum ptrkind pk, bool invalid, bool cond2, int err2,
			const char *err2_name, long r, int e)
{
	char call[64];

	if (pk != P_OK && pk != P_RO) {
		ST_INC(th, faults);
		snprintf(call, sizeof(call), "%s (unreadable)", what);
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, call, r, e, "EFAULT");
		return false;
	}
	if (invalid || cond2) {
		snprintf(call, sizeof(call), "%s (%s)", what,
			 invalid ? "invalid" : err2_name);
		if (r == -1 && ((invalid && e == EINVAL) ||
				(cond2 && e == err2)))
			ST_INC(th, invalid);
		else
			bad_errno(th, f, call, r, e,
				  invalid ? "EINVAL" : err2_name);
		return false;
	}
	if (pk == P_RO) {
		ST_INC(th, faults);
		snprintf(call, sizeof(call), "%s (read-only)", what);
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, call, r, e, "EFAULT");
		return false;
	}
	if (r) {
		bad_errno(th, f, what, r, e, "success");
		return false;
	}
	return true;
}

static void *map_or_die(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		out("# mmap: %s\n", strerror(errno));
		_exit(2);
	}
	return p;
}

static void th_mem_init(struct th *th)
{
	size_t region = REGION_PAGES * g_pg;
	char *p;

	th->buflen = 128 * 1024;
	th->buf = map_or_die(th->buflen + g_pg, PROT_READ | PROT_WRITE);
	th->arg = th->buf + th->buflen;
	th->ro = map_or_die(region, PROT_READ);
	/* Accessible, then a PROT_NONE page: faults half-way. */
	p = map_or_die(region + g_pg, PROT_READ | PROT_WRITE);
	if (mprotect(p + region, g_pg, PROT_NONE)) {
		out("# mprotect: %s\n", strerror(errno));
		_exit(2);
	}
	th->half_end = p + region;
	th->unmapped = map_or_die(g_pg, PROT_NONE);
}

static enum ptrkind pick_pk(struct th *th, unsigned int bad_pct)
{
	if (!chance(th, bad_pct))
		return P_OK;
	return 1 + rnd(th, P_NKINDS - 1);
}

/*
 * An array of n elements of esize bytes from src, at a pointer of kind pk.
 * *fit: how many whole elements can be read and written there (n for
 * P_OK; for P_HALF a random number of them, followed by part of the next
 * and then the hole; 0 otherwise).
 */
static void *arr_at(struct th *th, enum ptrkind pk, const void *src,
		    size_t esize, size_t n, size_t *fit)
{
	size_t len = esize * n, region = REGION_PAGES * g_pg, k, extra;
	char *p;

	*fit = 0;
	switch (pk) {
	case P_OK:
		if (len > th->buflen)
			len = th->buflen;
		memcpy(th->buf, src, len);
		*fit = n;
		return th->buf;
	case P_NULL:
		return NULL;
	case P_UNMAPPED:
		return th->unmapped + rnd(th, g_pg - 8);
	case P_RO:
		if (len > region)
			len = region;
		mprotect(th->ro, region, PROT_READ | PROT_WRITE);
		memcpy(th->ro, src, len);
		mprotect(th->ro, region, PROT_READ);
		return th->ro;
	case P_HALF:
		k = rnd(th, n + 1);
		extra = k < n ? rnd(th, esize) : 0;
		if (k == n && n > 0 && esize > 1 && chance(th, 70)) {
			k = n - 1;
			extra = 1 + rnd(th, esize - 1);
		}
		if (k * esize + extra > region) {
			k = region / esize - 1;
			extra = 0;
		}
		p = th->half_end - (k * esize + extra);
		memcpy(p, src, k * esize + extra);
		*fit = k;
		return p;
	default:
		return (void *)(uintptr_t)(chance(th, 50) ? 0xffff888000000000ULL :
					   0x1000 + rnd(th, 0x10000));
	}
}

/* One struct: readable and writable only with P_OK. */
static void *arg_at(struct th *th, enum ptrkind pk, const void *src,
		    size_t len)
{
	size_t fit;

	if (pk == P_HALF && len < 2)
		pk = P_NULL;
	if (pk == P_HALF) {
		char *p = th->half_end - (len - 1 - rnd(th, len - 1));

		memcpy(p, src, th->half_end - p);
		return p;
	}
	if (pk == P_OK) {
		memcpy(th->arg, src, len);
		return th->arg;
	}
	return arr_at(th, pk, src, len, 1, &fit);
}

/* ------------------------------------------------------------------ */
/* Random values */

static uint32_t valid_clock(struct th *th)
{
	return g_clocks[rnd(th, g_nclk)];
}

/*
 * May a timer of @clock be given TWHEEL_CANCEL_ON_SET with @flags? Only
 * absolute on a wall clock: EINVAL otherwise.
 */
static bool cos_ok(uint32_t clock, uint32_t flags)
{
	return (flags & TWHEEL_ABSTIME) &&
	       (clock == CLOCK_REALTIME || clock == CLOCK_TAI ||
		clock == CLOCK_REALTIME_ALARM);
}

static uint32_t bad_clock(struct th *th)
{
	static const uint32_t bad[] = {
		CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
		CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
		CLOCK_MONOTONIC_COARSE, 10, 12, 16, 64, 0xffffffff, 8 + 16,
		(uint32_t)FD_TO_CLOCKID(3), (uint32_t)((~0U << 3) | 2),
	};

	if (chance(th, 10))
		for (;;) {
			uint32_t c = rnd64(th);

			if (clk_index(c) < 0)
				return c;
		}
	return bad[rnd(th, sizeof(bad) / sizeof(bad[0]))];
}

/* A relative delay (>= 0). Real clocks: short ones mostly. */
static s64 gen_rel(struct th *th, u64 tick, bool manual)
{
	switch (rnd(th, 14)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return tick - 1;
	case 3:
		return tick;
	case 4:
		return tick + 1;
	case 5:
		return rnd(th, 10 * tick);
	case 6:
		return manual ? (s64)rnd(th, 64 * 64 * tick) :
				(s64)rnd(th, 200 * MS);
	case 7:
		return manual ? (s64)(rnd64(th) >> (1 + rnd(th, 40))) :
				(s64)rnd(th, 2 * S);
	case 8:
		return chance(th, 50) ? INT64_MAX : INT64_MAX - rnd(th, S);
	case 9:
		return manual ? (s64)rnd(th, 64 * tick) :
				(s64)rnd(th, 20 * MS);
	default:
		return rnd(th, manual ? 100 * tick : 50 * MS);
	}
}

/* An absolute deadline around now on a clock. */
static s64 gen_abs(struct th *th, u64 tick, bool manual, s64 now)
{
	switch (rnd(th, 10)) {
	case 0:
		return 0;
	case 1:
		return -(s64)rnd(th, S);
	case 2:
		return chance(th, 50) ? INT64_MIN : INT64_MAX;
	case 3:
		return now - (s64)rnd(th, 100 * tick);
	case 4:
		return tick_ns(now_tick(now, tick) + rnd(th, 3), tick);
	case 5:
		return now;
	default:
		return add_sat(now, gen_rel(th, tick, manual));
	}
}

static u64 gen_period(struct th *th, u64 tick, bool manual)
{
	if (chance(th, 65))
		return 0;
	switch (rnd(th, 8)) {
	case 0:
		return 1;
	case 1:
		return tick - 1 ? tick - 1 : 1;
	case 2:
		return tick;
	case 3:
		return chance(th, 50) ? UINT64_MAX : (u64)INT64_MAX + 1;
	case 4:
		return manual ? rnd64(th) >> rnd(th, 64) : tick * (1 + rnd(th, 50));
	default:
		return manual ? tick * (1 + rnd(th, 200)) + rnd(th, tick) :
				MS * (1 + rnd(th, 100));
	}
}

static uint32_t unknown_bits(struct th *th, uint32_t known)
{
	uint32_t b;

	do {
		b = chance(th, 50) ? 1U << rnd(th, 32) : (uint32_t)rnd64(th);
	} while (!(b & ~known));
	return b;
}

static u64 new_cookie(struct th *th)
{
	return ((u64)(th->proc + 1) << 56) | ((u64)th->idx << 48) |
	       ++th->cookie_ctr;
}

/* ------------------------------------------------------------------ */
/* The shadow of a strict fd */

static struct stimer *sh_find(struct sfd *f, u64 id)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (f->t[i].id == id)
			return &f->t[i];
	return NULL;
}

static bool sh_dead(struct sfd *f, u64 id)
{
	unsigned int i, n = f->ndead < NDEAD ? f->ndead : NDEAD;

	for (i = 0; i < n; i++)
		if (f->dead[i] == id)
			return true;
	return false;
}

static struct stimer *sh_new(struct sfd *f)
{
	struct stimer *t;

	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->t = realloc(f->t, f->cap * sizeof(*f->t));
		if (!f->t) {
			out("# out of memory\n");
			_exit(2);
		}
	}
	t = &f->t[f->n++];
	memset(t, 0, sizeof(*t));
	return t;
}

/* The timer has ended (read, cancelled): forget it, remember its id. */
static void sh_end(struct sfd *f, struct stimer *t)
{
	f->dead[f->ndead++ % NDEAD] = t->id;
	*t = f->t[--f->n];
}

static int sh_queued(struct sfd *f)
{
	int i, q = 0;

	for (i = 0; i < f->n; i++)
		q += f->t[i].state == TWHEEL_STATE_QUEUED;
	return q;
}

static int sh_known_queued(struct sfd *f)
{
	int i, q = 0;

	for (i = 0; i < f->n; i++)
		q += f->t[i].known_queued;
	return q;
}

/* Real clock: timers that may be queued by t1 (their deadline passed). */
static int sh_may_be_queued(struct sfd *f, const struct tsamp *t1)
{
	int i, q = 0;

	for (i = 0; i < f->n; i++) {
		struct stimer *t = &f->t[i];

		q += t->known_queued || t->dlo <= t1->t[clk_index(t->clock)];
	}
	return q;
}

/*
 * The header's rule (struct twheel_add): does the wheel hold a pending
 * timer in the slot of tick dt, i.e. one whose deadline tick has the same
 * level and slot relative to the clock (the highest 6-bit digit in which
 * it differs from the clock's tick, and that digit)?
 */
static bool m_holds(struct sfd *f, u64 dt, struct stimer *except)
{
	u64 clk = now_tick(f->now, f->tick);
	unsigned int lvl = (63 - __builtin_clzll(dt ^ clk)) / 6, l2;
	int i;

	for (i = 0; i < f->n; i++) {
		struct stimer *t = &f->t[i];

		if (t == except || t->state != TWHEEL_STATE_PENDING ||
		    t->dtick <= clk)
			continue;
		l2 = (63 - __builtin_clzll(t->dtick ^ clk)) / 6;
		if (l2 == lvl && ((t->dtick >> (6 * lvl)) & 63) ==
		    ((dt >> (6 * lvl)) & 63))
			return true;
	}
	return false;
}

/*
 * Manual model, the header's placement rule (struct twheel_add): a timer
 * whose deadline tick has been reached is queued at once; so is one whose
 * deadline has passed inside the current tick, unless the wheel holds a
 * pending timer in that tick's slot; else it waits in the wheel.
 */
static void m_place(struct sfd *f, struct stimer *t, s64 d)
{
	u64 dt = dl_tick(d, f->tick), nt = now_tick(f->now, f->tick);

	t->dlo = t->dhi = d;
	if (d <= f->now && (dt <= nt || !m_holds(f, dt, t))) {
		t->state = TWHEEL_STATE_QUEUED;
		t->qseq = ++f->qseq;
		t->qtime = f->now;
		return;
	}
	t->state = TWHEEL_STATE_PENDING;
	t->dtick = dt;
	t->seq = ++f->seq;
}

static int m_due_cmp(const void *a, const void *b)
{
	const struct stimer *x = *(struct stimer *const *)a;
	const struct stimer *y = *(struct stimer *const *)b;

	if (x->dtick != y->dtick)
		return x->dtick < y->dtick ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Manual model: the clock moves to now; what is due is queued, in order. */
static void m_advance(struct sfd *f, s64 now)
{
	u64 nt = now_tick(now, f->tick);
	struct stimer **due;
	int i, k = 0;

	f->now = now;
	due = malloc(sizeof(*due) * (f->n + 1));
	if (!due)
		_exit(2);
	for (i = 0; i < f->n; i++)
		if (f->t[i].state == TWHEEL_STATE_PENDING && f->t[i].dtick <= nt)
			due[k++] = &f->t[i];
	qsort(due, k, sizeof(*due), m_due_cmp);
	for (i = 0; i < k; i++) {
		due[i]->state = TWHEEL_STATE_QUEUED;
		due[i]->qseq = ++f->qseq;
		due[i]->qtime = now;
	}
	free(due);
}

/* Manual model: the queued timer whose record comes next. */
static struct stimer *m_next_record(struct sfd *f)
{
	struct stimer *best = NULL;
	int i;

	for (i = 0; i < f->n; i++)
		if (f->t[i].state == TWHEEL_STATE_QUEUED &&
		    (!best || f->t[i].qseq < best->qseq))
			best = &f->t[i];
	return best;
}

/* Manual model: a timer's status as QUERY and LIST must report it. */
static void m_status(struct sfd *f, struct stimer *t, struct twheel_status *st)
{
	s64 next = 0;
	bool coming = true;

	memset(st, 0, sizeof(*st));
	st->id = t->id;
	st->cookie = t->cookie;
	st->clock = t->clock;
	st->period_ns = t->period;
	if (t->state == TWHEEL_STATE_PENDING) {
		st->state = TWHEEL_STATE_PENDING;
		next = t->period ? t->dlo : tick_ns(t->dtick, f->tick);
	} else if (t->period) {
		st->state = TWHEEL_STATE_QUEUED;
		st->count = pcount(t->dlo, t->period, f->now);
		next = periods_after(t->dlo, st->count, t->period);
	} else {
		st->state = TWHEEL_STATE_QUEUED;
		st->count = 1;
		coming = false;
	}
	if (coming) {
		st->deadline_ns = next;
		st->remaining_ns = next > f->now ? next - f->now : 0;
	}
}

static void fmt_status(char *b, size_t n, const struct twheel_status *st)
{
	snprintf(b, n, "{id %#llx cookie %#llx deadline %lld"
		 " period %llu count %llu remaining %lld"
		 " clock %u state %u}", st->id, st->cookie, st->deadline_ns,
		 st->period_ns, st->count, st->remaining_ns, st->clock,
		 st->state);
}

/*
 * A status the kernel reported (QUERY, LIST, a batch's QUERY) against
 * the shadow. t0/t1: the clocks before and after the call.
 */
static void check_status(struct th *th, struct sfd *f, struct stimer *t,
			 const struct twheel_status *st,
			 const struct tsamp *t0, const struct tsamp *t1,
			 const char *what)
{
	char got[256], want[256];
	int c = clk_index(t->clock);
	s64 lo, hi;

	if (f->manual) {
		struct twheel_status m;

		ST_INC(th, exact_checks);
		m_status(f, t, &m);
		if (!memcmp(&m, st, sizeof(m)))
			return;
		fmt_status(got, sizeof(got), st);
		fmt_status(want, sizeof(want), &m);
		violation(th, f, st->state == TWHEEL_STATE_QUEUED &&
			  m.state == TWHEEL_STATE_PENDING ? V_EARLY :
			  st->state == TWHEEL_STATE_PENDING &&
			  m.state == TWHEEL_STATE_QUEUED ? V_LOST : V_ORACLE,
			  "%s: status %s, the model says %s", what, got, want);
		return;
	}
	fmt_status(got, sizeof(got), st);
	if (st->id != t->id || st->cookie != t->cookie ||
	    st->clock != t->clock || st->period_ns != t->period) {
		violation(th, f, V_ORACLE, "%s: status %s: id/cookie/clock/"
			  "period of the shadow: %#llx/%#llx"
			  "/%u/%llu", what, got, t->id, t->cookie, t->clock,
			  t->period);
		return;
	}
	if (st->state == TWHEEL_STATE_PENDING) {
		if (t->known_queued) {
			violation(th, f, V_ORACLE, "%s: %s pending again after "
				  "it was seen queued", what, got);
			return;
		}
		if (st->count) {
			violation(th, f, V_ORACLE, "%s: %s pending with a count",
				  what, got);
			return;
		}
		if (t->period) {
			/* Pending periodic: its exact grid point. */
			if (st->deadline_ns < t->dlo || st->deadline_ns > t->dhi) {
				violation(th, f, V_ORACLE, "%s: %s: deadline "
					  "outside [%lld, %lld]",
					  what, got, t->dlo, t->dhi);
				return;
			}
			t->dlo = t->dhi = st->deadline_ns;
		} else {
			/* One-shot: its deadline tick, >= the deadline. */
			lo = roundup_tick(t->dlo, f->tick);
			hi = roundup_tick(t->dhi, f->tick);
			if (st->deadline_ns < lo || st->deadline_ns > hi) {
				violation(th, f, V_ORACLE, "%s: %s: deadline "
					  "tick outside [%lld, %lld"
					  "]", what, got, lo, hi);
				return;
			}
			if (st->deadline_ns < INT64_MAX &&
			    st->deadline_ns - (s64)f->tick + 1 > t->dlo)
				t->dlo = st->deadline_ns - f->tick + 1;
			if (st->deadline_ns < t->dhi)
				t->dhi = st->deadline_ns;
		}
		lo = st->deadline_ns > t1->t[c] ? st->deadline_ns - t1->t[c] : 0;
		hi = st->deadline_ns > t0->t[c] ? st->deadline_ns - t0->t[c] : 0;
		if (st->remaining_ns < lo || st->remaining_ns > hi)
			violation(th, f, V_ORACLE, "%s: %s: remaining outside "
				  "[%lld, %lld]", what, got, lo, hi);
		return;
	}
	if (st->state != TWHEEL_STATE_QUEUED) {
		violation(th, f, V_ORACLE, "%s: %s: bad state", what, got);
		return;
	}
	if (t->dlo > t1->t[c]) {
		violation(th, f, V_EARLY, "%s: %s queued, but its deadline is "
			  ">= %lld and the clock was %lld", what, got,
			  t->dlo, t1->t[c]);
		return;
	}
	t->known_queued = true;
	if (!t->period) {
		if (st->count != 1 || st->deadline_ns || st->remaining_ns)
			violation(th, f, V_ORACLE, "%s: %s: a queued one-shot "
				  "has count 1, deadline 0, remaining 0", what,
				  got);
		return;
	}
	lo = pcount(t->dhi, t->period, t0->t[c]);
	hi = pcount(t->dlo, t->period, t1->t[c]);
	if ((s64)st->count < lo || (s64)st->count > hi) {
		violation(th, f, V_ORACLE, "%s: %s: count outside [%lld"
			  ", %lld]", what, got, lo, hi);
		return;
	}
	lo = periods_after(t->dlo, st->count, t->period);
	hi = periods_after(t->dhi, st->count, t->period);
	if (st->deadline_ns < lo || st->deadline_ns > hi)
		violation(th, f, V_ORACLE, "%s: %s: next deadline outside [%"
			  "lld, %lld]", what, got, lo, hi);
}

/*
 * Records read from a strict fd, in order, against the shadow; each is
 * consumed (a one-shot ends, a periodic one goes back for its next
 * deadline). t0/t1: the clocks around the read.
 */
static void check_records(struct th *th, struct sfd *f,
			  const struct twheel_event *ev, size_t n,
			  const struct tsamp *t0, const struct tsamp *t1)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct twheel_event *e = &ev[i];
		struct stimer *t = sh_find(f, e->id);
		u64 want_count = 1;
		int c;

		ST_INC(th, records);
		if (!f->manual)
			ST_INC(th, real_records);
		/*
		 * A wall clock set (nothing here sets the clock, but a resume,
		 * an NTP step or another task may): the fd's record of the
		 * sets (id 0), or a TWHEEL_CANCEL_ON_SET timer it ended
		 * (count 0). The shadow cannot tell when the set was: it
		 * starts afresh.
		 */
		if (e->flags == TWHEEL_EVENT_CLOCK_SET && !f->manual &&
		    ((!e->id && f->clock_set && !e->cookie && e->count &&
		      e->clock == CLOCK_REALTIME) ||
		     (t && t->cos && !e->count && e->cookie == t->cookie &&
		      e->clock == t->clock))) {
			out("# fd %d: a record of a wall clock set {id %#llx "
			    "count %llu}: the shadow starts afresh\n", f->fd,
			    e->id, e->count);
			f->tainted = true;
			return;
		}
		if (!t) {
			violation(th, f, sh_dead(f, e->id) ? V_DUP : V_ORACLE,
				  "record %zu/%zu {id %#llx cookie %#"
				  "llx time %lld count %llu"
				  " clock %u}: %s", i, n, e->id, e->cookie,
				  e->time_ns, e->count, e->clock,
				  sh_dead(f, e->id) ? "that timer has ended" :
				  "no such timer");
			return;
		}
		c = clk_index(t->clock);
		if (e->cookie != t->cookie || e->clock != t->clock || e->flags) {
			violation(th, f, V_ORACLE, "record id %#llx"
				  ": cookie %#llx clock %u flags %u, "
				  "want %#llx %u 0", e->id, e->cookie,
				  e->clock, e->flags, t->cookie, t->clock);
			return;
		}
		if (f->manual) {
			struct stimer *next = m_next_record(f);

			ST_INC(th, exact_checks);
			if (t->state != TWHEEL_STATE_QUEUED) {
				violation(th, f, V_EARLY, "record id %#llx"
					  " time %lld: the model has it "
					  "pending for tick %llu (clock at "
					  "%lld)", e->id, e->time_ns,
					  t->dtick, f->now);
				return;
			}
			if (next != t) {
				violation(th, f, V_ORACLE, "record id %#llx"
					  " out of order: the model's next is %#"
					  "llx", e->id, next->id);
				return;
			}
			if (t->period)
				want_count = pcount(t->dlo, t->period, f->now);
			if (e->time_ns != t->qtime || e->count != want_count) {
				violation(th, f, V_ORACLE, "record id %#llx"
					  ": time %lld count %llu"
					  ", the model says %lld %llu",
					  e->id, e->time_ns, e->count, t->qtime,
					  want_count);
				return;
			}
			if (!t->period) {
				ST_INC(th, ended_read);
				sh_end(f, t);
				continue;
			}
			ST_INC(th, periodic_records);
			m_place(f, t, periods_after(t->dlo, e->count, t->period));
			continue;
		}
		/* Real clock: never early, never in the future. */
		if (e->time_ns < t->dlo || t1->t[c] < t->dlo ||
		    (t->via_wheel && e->time_ns < roundup_tick(t->dlo, f->tick))) {
			violation(th, f, V_EARLY, "record id %#llx time %"
				  "lld: deadline >= %lld (tick %"
				  "lld), clock after the read %lld",
				  e->id, e->time_ns, t->dlo,
				  roundup_tick(t->dlo, f->tick), t1->t[c]);
			return;
		}
		if (e->time_ns > t1->t[c]) {
			violation(th, f, V_ORACLE, "record id %#llx time %"
				  "lld after the read (%lld)", e->id,
				  e->time_ns, t1->t[c]);
			return;
		}
		if (!t->period) {
			if (e->count != 1) {
				violation(th, f, V_ORACLE, "one-shot record id %#"
					  "llx count %llu", e->id,
					  e->count);
				return;
			}
			ST_INC(th, ended_read);
			sh_end(f, t);
			continue;
		}
		if (e->count < pcount(t->dhi, t->period, t0->t[c]) ||
		    e->count > pcount(t->dlo, t->period, t1->t[c])) {
			violation(th, f, V_ORACLE, "periodic record id %#llx"
				  " count %llu outside [%llu, %"
				  "llu]", e->id, e->count,
				  pcount(t->dhi, t->period, t0->t[c]),
				  pcount(t->dlo, t->period, t1->t[c]));
			return;
		}
		ST_INC(th, periodic_records);
		t->dlo = periods_after(t->dlo, e->count, t->period);
		t->dhi = periods_after(t->dhi, e->count, t->period);
		t->known_queued = false;
		t->via_wheel = true;
		t->state = TWHEEL_STATE_PENDING;
	}
}

/* ------------------------------------------------------------------ */
/* Strict operations */

/* An id for a call: live, ended, of another fd, random, 0. */
static u64 pick_id(struct th *th, struct sfd *f)
{
	unsigned int r = rnd(th, 100);
	struct sfd *o;

	if (r < 62 && f->n)
		return f->t[rnd(th, f->n)].id;
	if (r < 76 && f->ndead)
		return f->dead[rnd(th, f->ndead < NDEAD ? f->ndead : NDEAD)];
	if (r < 86) {
		o = &th->f[rnd(th, FDS_PER_THREAD)];
		if (o->n)
			return o->t[rnd(th, o->n)].id;
		if (o->ndead)
			return o->dead[rnd(th, o->ndead < NDEAD ? o->ndead : NDEAD)];
	}
	if (r < 94)
		return chance(th, 50) ? 1 + rnd(th, 64) :
			(rnd(th, 8) << 35) | (1 + rnd(th, 64));
	if (r < 97)
		return rnd64(th);
	return chance(th, 50) ? 0 : UINT64_MAX;
}

/* The clocks around a call on a real-clock fd (manual: unused). */
#define AROUND(f, t, call) do {					\
	if (!(f)->manual)					\
		sample(&(t##0));				\
	call;							\
	if (!(f)->manual)					\
		sample(&(t##1));				\
} while (0)

/*
 * Place @t in the shadow as ADD or MODIFY armed it (@flags, @expires):
 * on a manual clock exactly (m_place()); on a real one, its deadline
 * known to lie between what the clock said before the call (@t0) and
 * after it (@t1).
 */
static void sh_arm(struct sfd *f, struct stimer *t, uint32_t flags,
		   s64 expires, const struct tsamp *t0, const struct tsamp *t1)
{
	int c = clk_index(t->clock);

	if (f->manual) {
		m_place(f, t, flags & TWHEEL_ABSTIME ? expires :
			add_sat(f->now, expires));
		return;
	}
	t->state = TWHEEL_STATE_PENDING;
	if (flags & TWHEEL_ABSTIME) {
		t->dlo = t->dhi = expires;
		t->via_wheel = expires > t1->t[c];
	} else {
		t->dlo = add_sat(t0->t[c], expires);
		t->dhi = add_sat(t1->t[c], expires);
		t->via_wheel = expires > 0;
	}
}

/* A timer was created: put it in the shadow. */
static void sh_created(struct th *th, struct sfd *f, u64 id,
		       u64 cookie, uint32_t clock, uint32_t flags,
		       s64 expires, u64 period,
		       const struct tsamp *t0, const struct tsamp *t1,
		       const char *what)
{
	struct stimer *t;

	if (!id || sh_find(f, id) || sh_dead(f, id)) {
		violation(th, f, V_ORACLE, "%s: new id %#llx is %s", what,
			  id, !id ? "0" : sh_find(f, id) ? "live already" :
			  "one that was used before");
		return;
	}
	ST_INC(th, created);
	if (!f->manual)
		ST_INC(th, real_created);
	f->used = true;
	t = sh_new(f);
	t->id = id;
	t->cookie = cookie;
	t->clock = clock;
	t->cos = flags & TWHEEL_CANCEL_ON_SET;
	t->period = eff_period(period, f->tick);
	sh_arm(f, t, flags, expires, t0, t1);
}

/* A timer was re-armed by MODIFY: place it again in the shadow. */
static void sh_modified(struct sfd *f, struct stimer *t, u64 cookie,
			uint32_t flags, s64 expires, u64 period,
			const struct tsamp *t0, const struct tsamp *t1)
{
	t->period = eff_period(period, f->tick);
	if (flags & TWHEEL_SET_COOKIE)
		t->cookie = cookie;
	t->cos = flags & TWHEEL_CANCEL_ON_SET;
	t->known_queued = false;
	if (f->manual)
		t->state = 0;	/* out of the wheel and the queue */
	sh_arm(f, t, flags, expires, t0, t1);
}

/* The state a CANCEL or MODIFY reported against the shadow. */
static void check_result(struct th *th, struct sfd *f, struct stimer *t,
			 uint32_t result, const struct tsamp *t1,
			 const char *what)
{
	if (result != TWHEEL_STATE_PENDING && result != TWHEEL_STATE_QUEUED) {
		violation(th, f, V_ORACLE, "%s id %#llx: result %u", what,
			  t->id, result);
		return;
	}
	if (f->manual) {
		ST_INC(th, exact_checks);
		if (result != (uint32_t)t->state)
			violation(th, f, result == TWHEEL_STATE_QUEUED ? V_EARLY :
				  V_LOST, "%s id %#llx: result %u, the "
				  "model says %d (deadline %lld, tick %"
				  "llu, clock %lld)", what, t->id,
				  result, t->state, t->dlo, t->dtick, f->now);
		return;
	}
	if (result == TWHEEL_STATE_PENDING && t->known_queued)
		violation(th, f, V_ORACLE, "%s id %#llx: pending after "
			  "it was seen queued", what, t->id);
	if (result == TWHEEL_STATE_QUEUED &&
	    t->dlo > t1->t[clk_index(t->clock)])
		violation(th, f, V_EARLY, "%s id %#llx: queued before its "
			  "deadline %lld", what, t->id, t->dlo);
}

/* What INFO says against the shadow. */
static void check_info(struct th *th, struct sfd *f,
		       const struct twheel_info *in, const struct tsamp *t1,
		       const char *what)
{
	int q = sh_queued(f);

	if (in->version != TWHEEL_ABI_VERSION || in->event_size != EV ||
	    in->op_size != sizeof(struct twheel_op) ||
	    in->status_size != sizeof(struct twheel_status) ||
	    in->max_batch != TWHEEL_MAX_BATCH ||
	    in->min_tick_ns != TWHEEL_MIN_TICK_NS ||
	    in->max_tick_ns != TWHEEL_MAX_TICK_NS ||
	    in->ioctls != 0x1ff || in->clocks != ((1 << CLOCK_MONOTONIC) |
						  (1 << CLOCK_BOOTTIME) |
						  (1 << CLOCK_REALTIME) |
						  (1 << CLOCK_TAI) |
						  (1 << CLOCK_REALTIME_ALARM) |
						  (1 << CLOCK_BOOTTIME_ALARM))) {
		violation(th, f, V_ORACLE, "%s: constant fields wrong "
			  "(version %u event %u op %u status %u)", what,
			  in->version, in->event_size, in->op_size,
			  in->status_size);
		return;
	}
	if (in->tick_ns != f->tick || in->max_timers != f->max_timers ||
	    in->config_flags != ((f->manual ? TWHEEL_CONFIG_MANUAL : 0U) |
				 (f->clock_set ? TWHEEL_CONFIG_CLOCK_SET :
				  0U)) ||
	    in->table_size || in->cancelled ||
	    in->timers != (u64)f->n) {
		violation(th, f, V_ORACLE, "%s: tick %llu max %llu"
			  " flags %u timers %llu; the shadow: %llu"
			  " %llu %u %d", what, in->tick_ns,
			  in->max_timers, in->config_flags, in->timers, f->tick,
			  f->max_timers, f->manual ? TWHEEL_CONFIG_MANUAL : 0,
			  f->n);
		return;
	}
	if (f->manual) {
		ST_INC(th, exact_checks);
		if (in->queued != (u64)q)
			violation(th, f, in->queued > (u64)q ? V_EARLY :
				  V_LOST, "%s: queued %llu, the model "
				  "says %d", what, in->queued, q);
		return;
	}
	if (in->queued < (u64)sh_known_queued(f) ||
	    in->queued > (u64)sh_may_be_queued(f, t1))
		violation(th, f, in->queued < (u64)sh_known_queued(f) ?
			  V_LOST : V_EARLY, "%s: queued %llu, the "
			  "shadow says between %d and %d", what, in->queued,
			  sh_known_queued(f), sh_may_be_queued(f, t1));
}

static void s_info(struct th *th, struct sfd *f)
{
	struct twheel_info in;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	enum ptrkind pk = pick_pk(th, 15);
	void *p;
	long r;

	ST_INC(th, ops[K_INFO]);
	memset(&in, 0xAA, sizeof(in));
	p = arg_at(th, pk, &in, sizeof(in));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_INFO, p));
	tlog(th, "info fd %d ptr %s -> %ld %d", f->fd, pk_name[pk], r, errno);
	if (pk != P_OK) {
		ST_INC(th, faults);
		if (r != -1 || errno != EFAULT)
			bad_errno(th, f, "INFO (bad pointer)", r, errno, "EFAULT");
		else
			ST_INC(th, invalid);
		return;
	}
	if (r) {
		bad_errno(th, f, "INFO", r, errno, "success");
		return;
	}
	memcpy(&in, p, sizeof(in));
	check_info(th, f, &in, &t1, "INFO");
	(void)t0;
}

static void s_add(struct th *th, struct sfd *f)
{
	struct twheel_add a;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } }, tn;
	bool invalid = false, full = f->n >= (int)f->max_timers;
	enum ptrkind pk = pick_pk(th, 8);
	s64 now;
	void *p;
	long r;
	int e;

	ST_INC(th, ops[K_ADD]);
	if (f->n >= SOFT_LIVE && f->max_timers > SOFT_LIVE)
		return;
	memset(&a, 0, sizeof(a));
	a.cookie = new_cookie(th);
	a.clock = valid_clock(th);
	a.flags = chance(th, 40) ? TWHEEL_ABSTIME : 0;
	sample(&tn);
	now = f->manual ? f->now : tn.t[clk_index(a.clock)];
	a.expires_ns = a.flags ? gen_abs(th, f->tick, f->manual, now) :
			gen_rel(th, f->tick, f->manual);
	a.period_ns = gen_period(th, f->tick, f->manual);
	a.id = rnd64(th);	/* out: ignored on input */
	/* A wall clock deadline a clock set would end (or EINVAL). */
	if (chance(th, 8)) {
		a.flags |= TWHEEL_CANCEL_ON_SET;
		invalid = !cos_ok(a.clock, a.flags);
	}
	switch (chance(th, 12) ? rnd(th, 3) : 3) {
	case 0:
		/* The model knows only TWHEEL_MISSED_COUNT: no policy bits. */
		a.flags |= unknown_bits(th, TWHEEL_ABSTIME | TWHEEL_MISSED_MASK |
					TWHEEL_CANCEL_ON_SET);
		invalid = true;
		break;
	case 1:
		a.clock = bad_clock(th);
		invalid = true;
		break;
	case 2:
		a.flags &= TWHEEL_CANCEL_ON_SET;
		a.expires_ns = chance(th, 50) ? -1 : INT64_MIN + (s64)rnd(th, S);
		invalid = true;
		break;
	}
	p = arg_at(th, pk, &a, sizeof(a));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_ADD, p));
	e = errno;
	tlog(th, "add fd %d cookie %#llx exp %lld per %llu"
	     " fl %#x clk %u ptr %s -> %ld %d id %#llx", f->fd, a.cookie,
	     a.expires_ns, a.period_ns, a.flags, a.clock, pk_name[pk], r, e,
	     pk == P_OK ? ((struct twheel_add *)p)->id : 0);
	if (!expect_call(th, f, "ADD", pk, invalid, full, ENOSPC, "ENOSPC",
			 r, e))
		return;
	sh_created(th, f, ((struct twheel_add *)p)->id, a.cookie, a.clock,
		   a.flags, a.expires_ns, a.period_ns, &t0, &t1, "ADD");
}

static void s_cancel(struct th *th, struct sfd *f)
{
	struct twheel_cancel c;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	enum ptrkind pk = pick_pk(th, 8);
	struct stimer *t;
	bool badflags = chance(th, 8);
	void *p;
	long r;
	int e, again;

	ST_INC(th, ops[K_CANCEL]);
	memset(&c, 0, sizeof(c));
	c.id = pick_id(th, f);
	c.flags = badflags ? unknown_bits(th, 0) : 0;
	c.result = rnd64(th);
	t = sh_find(f, c.id);
	p = arg_at(th, pk, &c, sizeof(c));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_CANCEL, p));
	e = errno;
	tlog(th, "cancel fd %d id %#llx fl %#x ptr %s -> %ld %d res %u",
	     f->fd, c.id, c.flags, pk_name[pk], r, e,
	     pk == P_OK ? ((struct twheel_cancel *)p)->result : 0);
	if (!expect_call(th, f, "CANCEL", pk, badflags, !t, ENOENT, "ENOENT",
			 r, e))
		return;
	check_result(th, f, t, ((struct twheel_cancel *)p)->result, &t1,
		     "CANCEL");
	ST_INC(th, ended_cancel);
	sh_end(f, t);
	if (chance(th, 30)) {
		/* A second cancel of it: ENOENT. */
		again = twt_cancel_raw(f->fd, c.id, 0, NULL);
		e = errno;
		tlog(th, "cancel again fd %d id %#llx -> %d %d", f->fd,
		     c.id, again, e);
		ST_INC(th, ops[K_CANCEL]);
		if (again != -1 || e != ENOENT)
			bad_errno(th, f, "second CANCEL", again, e, "ENOENT");
	}
	(void)t0;
}

static void s_modify(struct th *th, struct sfd *f)
{
	struct twheel_modify m;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } }, tn;
	enum ptrkind pk = pick_pk(th, 8);
	struct stimer *t;
	bool invalid = false;
	void *p;
	long r;
	int e;

	ST_INC(th, ops[K_MODIFY]);
	memset(&m, 0, sizeof(m));
	m.id = pick_id(th, f);
	t = sh_find(f, m.id);
	m.cookie = new_cookie(th);
	m.flags = rnd(th, 4);	/* ABSTIME, SET_COOKIE */
	sample(&tn);
	m.expires_ns = m.flags & TWHEEL_ABSTIME ?
		gen_abs(th, f->tick, f->manual, f->manual ? f->now :
			tn.t[clk_index(t ? t->clock : CLOCK_MONOTONIC)]) :
		gen_rel(th, f->tick, f->manual);
	m.period_ns = gen_period(th, f->tick, f->manual);
	m.result = rnd64(th);
	/*
	 * By the timer's own clock; an unknown timer is ENOENT first (the
	 * flag's rule needs the timer's clock).
	 */
	if (chance(th, 8)) {
		m.flags |= TWHEEL_CANCEL_ON_SET;
		invalid = t && !cos_ok(t->clock, m.flags);
	}
	if (chance(th, 10)) {
		invalid = true;
		if (chance(th, 50)) {
			m.flags |= unknown_bits(th, TWHEEL_ABSTIME |
						TWHEEL_SET_COOKIE |
						TWHEEL_MISSED_MASK |
						TWHEEL_CANCEL_ON_SET);
		} else {
			m.flags &= ~TWHEEL_ABSTIME;
			m.expires_ns = -1 - (s64)rnd(th, S);
		}
	}
	p = arg_at(th, pk, &m, sizeof(m));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_MODIFY, p));
	e = errno;
	tlog(th, "modify fd %d id %#llx cookie %#llx exp %lld"
	     " per %llu fl %#x ptr %s -> %ld %d res %u", f->fd, m.id,
	     m.cookie, m.expires_ns, m.period_ns, m.flags, pk_name[pk], r, e,
	     pk == P_OK ? ((struct twheel_modify *)p)->result : 0);
	if (!expect_call(th, f, "MODIFY", pk, invalid, !t, ENOENT, "ENOENT",
			 r, e))
		return;
	check_result(th, f, t, ((struct twheel_modify *)p)->result, &t1,
		     "MODIFY");
	sh_modified(f, t, m.cookie, m.flags, m.expires_ns, m.period_ns, &t0,
		    &t1);
	if (chance(th, 25)) {
		/* It keeps its id (and its cookie without SET_COOKIE). */
		struct twheel_status st;
		int q;

		ST_INC(th, ops[K_QUERY]);
		AROUND(f, t, q = twt_query_raw(f->fd, m.id, &st));
		if (q)
			bad_errno(th, f, "QUERY after MODIFY", q, errno,
				  "success");
		else
			check_status(th, f, t, &st, &t0, &t1,
				     "QUERY after MODIFY");
	}
}

static void s_query(struct th *th, struct sfd *f)
{
	struct twheel_query q;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	enum ptrkind pk = pick_pk(th, 8);
	struct stimer *t;
	bool invalid = chance(th, 8);
	void *p;
	long r;
	int e;

	ST_INC(th, ops[K_QUERY]);
	memset(&q, 0x5A, sizeof(q));
	q.id = pick_id(th, f);
	q.flags = 0;
	q.__reserved = 0;
	if (invalid) {
		if (chance(th, 50))
			q.flags = unknown_bits(th, 0);
		else
			q.__reserved = 1 + rnd(th, 0xffff);
	}
	t = sh_find(f, q.id);
	p = arg_at(th, pk, &q, sizeof(q));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_QUERY, p));
	e = errno;
	tlog(th, "query fd %d id %#llx fl %#x res %#x ptr %s -> %ld %d",
	     f->fd, q.id, q.flags, q.__reserved, pk_name[pk], r, e);
	if (!expect_call(th, f, "QUERY", pk, invalid, !t, ENOENT, "ENOENT",
			 r, e))
		return;
	memcpy(&q, p, sizeof(q));
	check_status(th, f, t, &q.status, &t0, &t1, "QUERY");
}

/*
 * A whole listing (cursor 0 until 0), capacity per call random: every
 * timer of the shadow exactly once, each status right. With bad_pct, a
 * call may also be invalid or point at bad memory (it must then fail as
 * documented and change nothing).
 */
static void s_list(struct th *th, struct sfd *f, unsigned int bad_pct)
{
	struct twheel_status *st = (struct twheel_status *)th->buf;
	struct twheel_list l, *lp;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	uint8_t *seen;
	int calls = 0, got = 0, i;
	u64 cursor = 0;
	long r;
	int e;

	ST_INC(th, ops[K_LIST]);
	seen = calloc(f->n + 1, 1);
	if (!seen)
		_exit(2);
	(void)t0;
	while (!f->tainted) {
		uint32_t cap = 1 + rnd(th, chance(th, 50) ? 4 : f->n + 4);
		enum ptrkind pk = P_OK, spk = P_OK;
		size_t fit = 0, want;
		int kind = chance(th, bad_pct) ? 1 + rnd(th, 5) : 0;
		char zero[64 * sizeof(*st)];

		if (cap > 1000)
			cap = 1000;
		memset(&l, 0, sizeof(l));
		l.capacity = cap;
		l.cursor = cursor;
		l.status_size = sizeof(*st);
		l.count = rnd64(th);
		switch (kind) {
		case 1:
			l.capacity = 0;
			break;
		case 2:
			l.status_size = chance(th, 50) ? 0 : sizeof(*st) +
				(chance(th, 50) ? 8 : -8);
			break;
		case 3:
			l.flags = unknown_bits(th, 0);
			break;
		case 4:
			pk = 1 + rnd(th, P_NKINDS - 1);
			break;
		case 5:
			spk = 1 + rnd(th, P_NKINDS - 1);
			break;
		}
		memset(zero, 0, sizeof(zero));
		if (spk == P_OK) {
			l.statuses = (uintptr_t)(th->buf + 4096);
		} else {
			l.statuses = (uintptr_t)arr_at(th, spk, zero, sizeof(*st),
							cap < 64 ? cap : 64, &fit);
		}
		if (spk != P_OK && spk != P_HALF)
			fit = 0;
		lp = arg_at(th, pk, &l, sizeof(l));
		if (++calls > f->n * 2 + 64) {
			violation(th, f, V_ORACLE, "LIST: no end after %d calls "
				  "(%d of %d timers)", calls, got, f->n);
			break;
		}
		AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_LIST, lp));
		e = errno;
		tlog(th, "list fd %d cap %u cursor %#llx size %u fl %#x "
		     "ptr %s st %s (fit %zu) -> %ld %d count %u cursor %#llx",
		     f->fd, l.capacity, l.cursor, l.status_size, l.flags,
		     pk_name[pk], pk_name[spk], fit, r, e,
		     pk == P_OK ? lp->count : 0, pk == P_OK ? lp->cursor : 0);
		if (pk != P_OK) {
			ST_INC(th, faults);
			if (r != -1 || e != EFAULT)
				bad_errno(th, f, "LIST (bad argument pointer)",
					  r, e, "EFAULT");
			continue;	/* nothing changed: the same cursor */
		}
		if (kind >= 1 && kind <= 3) {
			if (r != -1 || e != EINVAL)
				bad_errno(th, f, "LIST (invalid)", r, e, "EINVAL");
			else
				ST_INC(th, invalid);
			continue;
		}
		if (spk != P_OK) {
			/*
			 * The statuses go to memory with room for `fit`; at
			 * the start of a listing the call writes min(cap,
			 * timers left): EFAULT iff more than fit.
			 */
			ST_INC(th, faults);
			want = f->n - got;
			if (want > cap)
				want = cap;
			if (cursor == 0 && want > fit) {
				if (r != -1 || e != EFAULT)
					bad_errno(th, f, "LIST (statuses fault)",
						  r, e, "EFAULT");
				continue;
			}
			if (cursor != 0 && r == -1 && e == EFAULT)
				continue;
			if (r) {
				bad_errno(th, f, "LIST (statuses fit)", r, e,
					  "success");
				break;
			}
			/* It fit: take what it wrote. */
			memcpy(th->buf + 4096, (void *)(uintptr_t)l.statuses,
			       lp->count * sizeof(*st));
		}
		if (r) {
			bad_errno(th, f, "LIST", r, e, "success");
			break;
		}
		if (lp->count > l.capacity) {
			violation(th, f, V_ORACLE, "LIST: count %u > capacity %u",
				  lp->count, l.capacity);
			break;
		}
		st = (struct twheel_status *)(th->buf + 4096);
		for (i = 0; i < (int)lp->count; i++) {
			struct stimer *t = sh_find(f, st[i].id);

			if (!t) {
				violation(th, f, V_ORACLE, "LIST: id %#llx"
					  " is no live timer%s", st[i].id,
					  sh_dead(f, st[i].id) ? " (it ended)" : "");
				goto done;
			}
			if (seen[t - f->t]++) {
				violation(th, f, V_ORACLE, "LIST: id %#llx"
					  " twice in one listing", st[i].id);
				goto done;
			}
			got++;
			check_status(th, f, t, &st[i], &t0, &t1, "LIST");
			if (f->tainted)
				goto done;
		}
		cursor = lp->cursor;
		if (!cursor)
			break;
		if (calls > f->n * 2 + 64) {
			violation(th, f, V_ORACLE, "LIST: no end after %d calls "
				  "(%d of %d timers)", calls, got, f->n);
			break;
		}
	}
	if (!f->tainted && got != f->n)
		violation(th, f, V_ORACLE, "LIST: %d timers listed, the shadow "
			  "has %d", got, f->n);
done:
	free(seen);
}

/* LIST from a random cursor: whatever comes must be live timers. */
static void s_list_cursor(struct th *th, struct sfd *f)
{
	struct twheel_status *st = (struct twheel_status *)th->buf;
	struct twheel_list l;
	long r;
	uint32_t i;

	ST_INC(th, ops[K_LIST]);
	memset(&l, 0, sizeof(l));
	l.statuses = (uintptr_t)st;
	l.capacity = 1 + rnd(th, 64);
	l.status_size = sizeof(*st);
	l.cursor = chance(th, 50) ? rnd(th, 300) : rnd64(th);
	r = xioctl(f->fd, TWHEEL_IOC_LIST, &l);
	tlog(th, "list fd %d cursor %#llx cap %u -> %ld %d count %u",
	     f->fd, l.cursor, l.capacity, r, errno, l.count);
	if (r) {
		bad_errno(th, f, "LIST (cursor)", r, errno, "success");
		return;
	}
	if (l.count > l.capacity)
		violation(th, f, V_ORACLE, "LIST: count %u > capacity %u",
			  l.count, l.capacity);
	for (i = 0; i < l.count && i < l.capacity; i++)
		if (!sh_find(f, st[i].id)) {
			violation(th, f, V_ORACLE, "LIST from cursor: id %#"
				  "llx is no live timer", st[i].id);
			return;
		}
}

/* One operation of a batch, random; *exp: the error it must give. */
static void gen_op(struct th *th, struct sfd *f, struct twheel_op *op,
		   s64 now_hint)
{
	memset(op, 0, sizeof(*op));
	op->error = (int32_t)rnd64(th);	/* outputs: ignored on input */
	op->result = rnd64(th);
	op->count = rnd64(th);
	op->remaining_ns = rnd64(th);
	switch (rnd(th, 10)) {
	case 0: case 1: case 2: case 3:
		op->op = TWHEEL_OP_ADD;
		op->cookie = new_cookie(th);
		op->clock = chance(th, 5) ? bad_clock(th) : valid_clock(th);
		op->flags = chance(th, 40) ? TWHEEL_ABSTIME : 0;
		if (chance(th, 8))
			op->flags |= TWHEEL_CANCEL_ON_SET;
		op->expires_ns = op->flags ? gen_abs(th, f->tick, f->manual,
						     now_hint) :
			gen_rel(th, f->tick, f->manual);
		if (chance(th, 4))
			op->expires_ns = -1;
		op->period_ns = gen_period(th, f->tick, f->manual);
		op->id = rnd64(th);
		break;
	case 4: case 5:
		op->op = TWHEEL_OP_MODIFY;
		op->id = pick_id(th, f);
		op->cookie = new_cookie(th);
		op->flags = rnd(th, 4);
		if (chance(th, 8))
			op->flags |= TWHEEL_CANCEL_ON_SET;
		op->expires_ns = op->flags & TWHEEL_ABSTIME ?
			gen_abs(th, f->tick, f->manual, now_hint) :
			gen_rel(th, f->tick, f->manual);
		op->period_ns = gen_period(th, f->tick, f->manual);
		op->clock = rnd64(th);	/* ignored by MODIFY */
		break;
	case 6: case 7:
		op->op = TWHEEL_OP_CANCEL;
		op->id = pick_id(th, f);
		op->cookie = rnd64(th);
		break;
	case 8:
		op->op = TWHEEL_OP_QUERY;
		op->id = pick_id(th, f);
		op->expires_ns = rnd64(th);
		break;
	default:
		op->op = chance(th, 50) ? 0 : 5 + rnd(th, 100);
		op->id = pick_id(th, f);
		break;
	}
	if (chance(th, 3))
		op->flags |= unknown_bits(th, op->op == TWHEEL_OP_MODIFY ?
					  TWHEEL_ABSTIME | TWHEEL_SET_COOKIE |
					  TWHEEL_MISSED_MASK |
					  TWHEEL_CANCEL_ON_SET :
					  op->op == TWHEEL_OP_ADD ?
					  TWHEEL_ABSTIME | TWHEEL_MISSED_MASK |
					  TWHEEL_CANCEL_ON_SET : 0);
	if (chance(th, 3))
		op->__reserved = 1 + rnd(th, 100);
}

/*
 * One operation of a batch, done by the kernel, against the shadow,
 * which it updates. in: the operation as given; op: as written back.
 */
static void check_op(struct th *th, struct sfd *f, const struct twheel_op *in,
		     const struct twheel_op *op, unsigned int i,
		     const struct tsamp *t0, const struct tsamp *t1)
{
	struct stimer *t = NULL;
	int want = 0;
	bool full = f->n >= (int)f->max_timers;
	char what[64];

	snprintf(what, sizeof(what), "SUBMIT op %u (%u)", i, in->op);
	/* The error the single ioctl would give. */
	if (in->__reserved) {
		want = -EINVAL;
	} else if (in->op == TWHEEL_OP_ADD) {
		if (clk_index(in->clock) < 0 ||
		    (in->flags & ~(TWHEEL_ABSTIME | TWHEEL_CANCEL_ON_SET)) ||
		    (!(in->flags & TWHEEL_ABSTIME) && in->expires_ns < 0) ||
		    ((in->flags & TWHEEL_CANCEL_ON_SET) &&
		     !cos_ok(in->clock, in->flags)))
			want = -EINVAL;
		else if (full)
			want = -ENOSPC;
	} else if (in->op == TWHEEL_OP_MODIFY) {
		t = sh_find(f, in->id);
		if ((in->flags & ~(TWHEEL_ABSTIME | TWHEEL_SET_COOKIE |
				   TWHEEL_CANCEL_ON_SET)) ||
		    (!(in->flags & TWHEEL_ABSTIME) && in->expires_ns < 0))
			want = -EINVAL;
		else if (!t)
			want = -ENOENT;
		else if ((in->flags & TWHEEL_CANCEL_ON_SET) &&
			 !cos_ok(t->clock, in->flags))
			want = -EINVAL;
	} else if (in->op == TWHEEL_OP_CANCEL || in->op == TWHEEL_OP_QUERY) {
		t = sh_find(f, in->id);
		if (in->flags)
			want = -EINVAL;
		else if (!t)
			want = -ENOENT;
	} else {
		want = -EINVAL;
	}
	if (op->error != want && !(want == -EINVAL && !t &&
				    op->error == -ENOENT &&
				    (in->op == TWHEEL_OP_MODIFY ||
				     in->op == TWHEEL_OP_CANCEL ||
				     in->op == TWHEEL_OP_QUERY) &&
				    !in->__reserved) &&
	    !(want == -EINVAL && full && op->error == -ENOSPC &&
	      in->op == TWHEEL_OP_ADD && !in->__reserved)) {
		violation(th, f, V_ERRNO, "%s: error %d, want %d", what,
			  op->error, want);
		return;
	}
	/* Fields that are not outputs come back as given. */
	if (op->op != in->op || op->flags != in->flags ||
	    op->__reserved != in->__reserved ||
	    (in->op != TWHEEL_OP_ADD && op->id != in->id) ||
	    (in->op != TWHEEL_OP_QUERY &&
	     (op->cookie != in->cookie || op->expires_ns != in->expires_ns ||
	      op->period_ns != in->period_ns || op->clock != in->clock))) {
		violation(th, f, V_ORACLE, "%s: an input field changed", what);
		return;
	}
	if (op->error) {
		ST_INC(th, invalid);
		if ((in->op == TWHEEL_OP_ADD && op->id) || op->result ||
		    op->count || op->remaining_ns ||
		    (in->op == TWHEEL_OP_QUERY &&
		     (op->cookie || op->expires_ns || op->period_ns ||
		      op->clock)))
			violation(th, f, V_ORACLE, "%s: failed with outputs not "
				  "0", what);
		return;
	}
	switch (in->op) {
	case TWHEEL_OP_ADD:
		if (op->result || op->count || op->remaining_ns) {
			violation(th, f, V_ORACLE, "%s: result/count/remaining "
				  "not 0", what);
			return;
		}
		sh_created(th, f, op->id, in->cookie, in->clock, in->flags,
			   in->expires_ns, in->period_ns, t0, t1, what);
		return;
	case TWHEEL_OP_MODIFY:
	case TWHEEL_OP_CANCEL:
		if (op->count || op->remaining_ns) {
			violation(th, f, V_ORACLE, "%s: count/remaining not 0",
				  what);
			return;
		}
		check_result(th, f, t, op->result, t1, what);
		if (f->tainted)
			return;
		if (in->op == TWHEEL_OP_CANCEL) {
			ST_INC(th, ended_cancel);
			sh_end(f, t);
		} else {
			sh_modified(f, t, in->cookie, in->flags, in->expires_ns,
				    in->period_ns, t0, t1);
		}
		return;
	case TWHEEL_OP_QUERY: {
		struct twheel_status st = {
			.id = in->id, .cookie = op->cookie,
			.deadline_ns = op->expires_ns,
			.period_ns = op->period_ns, .count = op->count,
			.remaining_ns = op->remaining_ns, .clock = op->clock,
			.state = op->result,
		};

		check_status(th, f, t, &st, t0, t1, what);
		return;
	}
	}
}

static void s_submit(struct th *th, struct sfd *f)
{
	static const uint32_t sizes[] = { 0, 1, 1, 2, 3, 5, 8, 31, 32, 33, 64,
					  1024, 1025 };
	struct twheel_op *in, *ops;
	struct twheel_submit s, *sp;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } }, tn;
	enum ptrkind pk = P_OK, opk = pick_pk(th, 10);
	int bad = chance(th, 8) ? 1 + rnd(th, 4) : 0;
	uint32_t nr = sizes[rnd(th, sizeof(sizes) / sizeof(sizes[0]))], i;
	size_t fit = 0;
	long r, want;
	int e;

	ST_INC(th, ops[K_SUBMIT]);
	if (nr > 64 && f->n > SOFT_LIVE / 2 && f->max_timers > SOFT_LIVE)
		nr = 8;
	in = malloc((nr + 1) * sizeof(*in));
	if (!in)
		_exit(2);
	sample(&tn);
	for (i = 0; i < nr; i++)
		gen_op(th, f, &in[i], f->manual ? f->now :
		       tn.t[0]);
	memset(&s, 0, sizeof(s));
	s.nr = nr;
	s.op_size = sizeof(*in);
	ops = arr_at(th, opk, in, sizeof(*in), nr, &fit);
	s.ops = (uintptr_t)ops;
	switch (bad) {
	case 1:
		s.op_size = chance(th, 50) ? 0 : sizeof(*in) - 8 + 16 * rnd(th, 2);
		break;
	case 2:
		s.flags = unknown_bits(th, 0);
		break;
	case 3:
		s.__reserved = 1 + rnd(th, 1000);
		break;
	case 4:
		pk = 1 + rnd(th, P_NKINDS - 1);
		break;
	}
	sp = arg_at(th, pk, &s, sizeof(s));
	AROUND(f, t, r = xioctl(f->fd, TWHEEL_IOC_SUBMIT, sp));
	e = errno;
	tlog(th, "submit fd %d nr %u op_size %u fl %#x res %#x ptr %s ops %s "
	     "(fit %zu) -> %ld %d", f->fd, s.nr, s.op_size, s.flags,
	     s.__reserved, pk_name[pk], pk_name[opk], fit, r, e);
	/* The struct is only read (_IOW): read-only memory is fine. */
	if (pk != P_OK && pk != P_RO) {
		ST_INC(th, faults);
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, "SUBMIT (bad argument)", r, e, "EFAULT");
		goto out;
	}
	if ((bad >= 1 && bad <= 3) || nr > TWHEEL_MAX_BATCH) {
		if (r != -1 || e != EINVAL)
			bad_errno(th, f, "SUBMIT (invalid)", r, e, "EINVAL");
		else
			ST_INC(th, invalid);
		goto out;
	}
	/* Done: every operation that can be read and written back. */
	want = opk == P_OK ? nr : opk == P_HALF ? (long)fit : 0;
	if (nr == 0)
		want = 0;
	if (opk != P_OK)
		ST_INC(th, faults);
	if (want == 0 && nr > 0) {
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, "SUBMIT (ops unreachable)", r, e,
				  "EFAULT");
		goto out;
	}
	if (r != want) {
		violation(th, f, r < 0 ? V_ERRNO : V_ORACLE, "SUBMIT: %ld (%s) "
			  "operations done, want %ld (ops %s, fit %zu)", r,
			  r < 0 ? strerror(e) : "-", want, pk_name[opk], fit);
		goto out;
	}
	for (i = 0; i < (uint32_t)r && !f->tainted; i++)
		check_op(th, f, &in[i], &ops[i], i, &t0, &t1);
	/* Those not done are as given. */
	for (; i < fit && i < nr && !f->tainted; i++)
		if (memcmp(&ops[i], &in[i], sizeof(*in)))
			violation(th, f, V_ORACLE, "SUBMIT: op %u not done but "
				  "changed", i);
out:
	free(in);
}

static void s_advance(struct th *th, struct sfd *f)
{
	struct twheel_advance a, *ap;
	enum ptrkind pk = pick_pk(th, 6);
	bool bad = chance(th, 5);
	u64 d, T = f->tick;
	s64 now;
	long r;
	int e;

	ST_INC(th, ops[K_ADVANCE]);
	switch (rnd(th, 16)) {
	case 0:
		d = 0;
		break;
	case 1:
		d = 1;
		break;
	case 2:
		d = T - 1;
		break;
	case 3:
		d = T;
		break;
	case 4:
		d = T + 1;
		break;
	case 5:
		d = rnd(th, 10 * T);
		break;
	case 6:
		d = rnd(th, 64 * 64 * T);
		break;
	case 7: {
		/*
		 * Into a tick whose number ends a level-0 round (63 mod
		 * 64), not on its start: wheel boundaries.
		 */
		u64 nt = now_tick(f->now, T), base = nt / 64 * 64 + 63;
		s64 to;

		if (base <= nt)
			base += 64;
		to = tick_ns(base, T) + (T > 1 ? 1 + (s64)rnd(th, T - 1) : 0);
		d = to > f->now ? (u64)(to - f->now) : 0;
		break;
	}
	case 8:
		d = chance(th, 3) ? (chance(th, 50) ? UINT64_MAX :
				     (u64)INT64_MAX) : rnd(th, 1000 * T);
		break;
	default:
		d = rnd(th, 100 * T);
		break;
	}
	memset(&a, 0, sizeof(a));
	a.delta_ns = d;
	a.now_ns = rnd64(th);
	if (bad) {
		if (chance(th, 50))
			a.flags = unknown_bits(th, 0);
		else
			a.__reserved = 1 + rnd(th, 1000);
	}
	ap = arg_at(th, pk, &a, sizeof(a));
	r = xioctl(f->fd, TWHEEL_IOC_ADVANCE, ap);
	e = errno;
	tlog(th, "advance fd %d delta %llu fl %#x res %#x ptr %s -> %ld "
	     "%d now %lld", f->fd, d, a.flags, a.__reserved, pk_name[pk],
	     r, e, pk == P_OK ? ap->now_ns : 0);
	if (pk != P_OK && pk != P_RO) {
		ST_INC(th, faults);
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, "ADVANCE (unreadable)", r, e, "EFAULT");
		return;
	}
	if (bad || !f->manual) {
		if (r != -1 || e != EINVAL)
			bad_errno(th, f, bad ? "ADVANCE (invalid)" :
				  "ADVANCE (not a manual clock)", r, e, "EINVAL");
		else
			ST_INC(th, invalid);
		return;
	}
	if (pk == P_RO) {
		/* The clock moves only once its new time is written. */
		ST_INC(th, faults);
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, "ADVANCE (read-only)", r, e, "EFAULT");
		return;
	}
	if (r) {
		bad_errno(th, f, "ADVANCE", r, e, "success");
		return;
	}
	now = d > (u64)(INT64_MAX - f->now) ? INT64_MAX :
	      f->now + (s64)d;
	if (ap->now_ns != now) {
		violation(th, f, V_ORACLE, "ADVANCE %llu from %lld"
			  ": now %lld, want %lld", d, f->now,
			  ap->now_ns, now);
		return;
	}
	m_advance(f, now);
}

/*
 * read(2), with every kind of buffer. Nonblocking unless `block` (then
 * only when a record is sure to be there or to come).
 */
static void s_read(struct th *th, struct sfd *f)
{
	struct twheel_event *ev;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	enum ptrkind pk = pick_pk(th, 12);
	size_t want, count, fit = 0, n, q, kq;
	bool tiny = chance(th, 4);
	char *buf;
	long r;
	int e;

	ST_INC(th, ops[K_READ]);
	want = 1 + rnd(th, chance(th, 20) ? 300 : 8);
	count = want * EV + (chance(th, 20) ? 1 + rnd(th, EV - 1) : 0);
	if (tiny)
		count = rnd(th, EV);	/* 0 .. one record minus 1: EINVAL */
	ev = calloc(want + 1, EV);
	if (!ev)
		_exit(2);
	if (pk == P_OK) {
		/* Unaligned on purpose, sometimes. */
		buf = th->buf + (chance(th, 20) ? 1 + rnd(th, 7) : 0);
		memset(buf, 0xEE, count);
		fit = want;
	} else {
		buf = arr_at(th, pk, ev, EV, want, &fit);
		if (pk != P_HALF)
			fit = 0;
	}
	q = sh_queued(f);
	kq = sh_known_queued(f);
	AROUND(f, t, r = read(f->fd, buf, count));
	e = errno;
	tlog(th, "read fd %d count %zu buf %s (fit %zu) -> %ld %d (model "
	     "queued %zu)", f->fd, count, pk_name[pk], fit, r, e, q);
	/* A kernel address fails the VFS's access_ok() first: EFAULT. */
	if (pk == P_WILD && r == -1 && e == EFAULT) {
		ST_INC(th, faults);
		goto out;
	}
	if (tiny) {
		if (r != -1 || e != EINVAL)
			bad_errno(th, f, "read (below one record)", r, e,
				  "EINVAL");
		else
			ST_INC(th, invalid);
		goto out;
	}
	if (pk != P_OK)
		ST_INC(th, faults);
	if (r < 0) {
		if (e == EAGAIN) {
			if ((f->manual && q) || kq)
				violation(th, f, V_LOST, "read: EAGAIN with %zu "
					  "records queued", f->manual ? q : kq);
			goto out;
		}
		if (e == EFAULT && fit == 0 && pk != P_OK) {
			if (f->manual && !q)
				violation(th, f, V_EARLY, "read: EFAULT (a record"
					  " to copy) with none queued");
			goto out;
		}
		bad_errno(th, f, "read", r, e, "records, EAGAIN or EFAULT");
		goto out;
	}
	if (r % EV || r == 0) {
		violation(th, f, V_ORACLE, "read: %ld bytes", r);
		goto out;
	}
	n = r / EV;
	if (n > want || n > (pk == P_OK ? want : fit)) {
		violation(th, f, V_ORACLE, "read: %zu records into room for %zu",
			  n, pk == P_OK ? want : fit);
		goto out;
	}
	if (!f->manual) {
		size_t lim = kq < want ? kq : want;

		if (pk != P_OK && lim > fit)
			lim = fit;
		if (n < lim) {
			violation(th, f, V_LOST, "read: %zu records, %zu known "
				  "queued (room %zu)", n, kq,
				  pk == P_OK ? want : fit);
			goto out;
		}
	}
	memcpy(ev, buf, n * EV);
	/*
	 * Manual clock: each record must be the model's next (a periodic
	 * timer read at the end of time is due again at once, and can come
	 * again in the same read); a read that stops short of its room
	 * leaves nothing queued.
	 */
	check_records(th, f, ev, n, &t0, &t1);
	if (f->manual && !f->tainted && n < (pk == P_OK ? want : fit) &&
	    sh_queued(f))
		violation(th, f, V_LOST, "read: %zu records (room %zu), the "
			  "model still has %d queued (%zu before)", n,
			  pk == P_OK ? want : fit, sh_queued(f), q);
out:
	free(ev);
}

/* poll and epoll (timeout 0) against the shadow. */
static void s_poll(struct th *th, struct sfd *f)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN | POLLRDNORM };
	struct epoll_event ev = { .events = EPOLLIN };
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	int r, ready, epfd;
	bool use_epoll = chance(th, 40);

	ST_INC(th, ops[use_epoll ? K_EPOLL : K_POLL]);
	if (use_epoll) {
		epfd = epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, f->fd, &ev)) {
			violation(th, f, V_ERRNO, "epoll set-up: %s",
				  strerror(errno));
			if (epfd >= 0)
				close(epfd);
			return;
		}
		AROUND(f, t, r = epoll_wait(epfd, &ev, 1, 0));
		close(epfd);
		ready = r == 1 && (ev.events & EPOLLIN);
	} else {
		AROUND(f, t, r = poll(&p, 1, 0));
		ready = r == 1 && (p.revents & POLLIN);
		if (r == 1 && (p.revents & ~(POLLIN | POLLRDNORM)))
			violation(th, f, V_ORACLE, "poll: revents %#x",
				  p.revents);
	}
	tlog(th, "%s fd %d -> %d ready %d (model queued %d)",
	     use_epoll ? "epoll" : "poll", f->fd, r, ready, sh_queued(f));
	if (r < 0) {
		bad_errno(th, f, use_epoll ? "epoll_wait" : "poll", r, errno,
			  "success");
		return;
	}
	if (f->manual) {
		ST_INC(th, exact_checks);
		if (ready != (sh_queued(f) > 0))
			violation(th, f, ready ? V_EARLY : V_LOST, "%s: "
				  "readable %d, the model has %d queued",
				  use_epoll ? "epoll" : "poll", ready,
				  sh_queued(f));
		return;
	}
	if (!ready && sh_known_queued(f))
		violation(th, f, V_LOST, "poll: not readable with %d records "
			  "known queued", sh_known_queued(f));
	if (ready && !sh_may_be_queued(f, &t1))
		violation(th, f, V_EARLY, "poll: readable with no timer due");
	(void)t0;
}

/* CONFIG: allowed only before the first timer, EBUSY after. */
static void s_config(struct th *th, struct sfd *f)
{
	static const u64 bad_ticks[] = { 0, 1, 999, 1000000001ULL,
					      UINT64_MAX };
	struct twheel_config c;
	enum ptrkind pk = pick_pk(th, 6);
	bool invalid = false;
	void *p;
	long r;
	int e;

	ST_INC(th, ops[K_CONFIG]);
	memset(&c, 0, sizeof(c));
	switch (rnd(th, 5)) {
	case 0:
		c.tick_ns = TWHEEL_MIN_TICK_NS;
		break;
	case 1:
		c.tick_ns = TWHEEL_MAX_TICK_NS;
		break;
	case 2:
		c.tick_ns = TWHEEL_DEFAULT_TICK_NS;
		break;
	default:
		c.tick_ns = TWHEEL_MIN_TICK_NS +
			rnd(th, chance(th, 50) ? 2 * TWHEEL_DEFAULT_TICK_NS :
			    TWHEEL_MAX_TICK_NS - TWHEEL_MIN_TICK_NS);
		break;
	}
	c.flags = chance(th, 50) ? TWHEEL_CONFIG_MANUAL : 0;
	if (chance(th, 25))
		c.flags |= TWHEEL_CONFIG_CLOCK_SET;
	switch (chance(th, 15) ? rnd(th, 3) : 3) {
	case 0:
		c.tick_ns = bad_ticks[rnd(th, 5)];
		invalid = true;
		break;
	case 1:
		c.flags |= unknown_bits(th, TWHEEL_CONFIG_MANUAL |
					 TWHEEL_CONFIG_MAX_TIMERS |
					 TWHEEL_CONFIG_TABLE |
					 TWHEEL_CONFIG_CLOCK_SET);
		invalid = true;
		break;
	case 2:
		c.__reserved = 1 + rnd(th, 1000);
		invalid = true;
		break;
	}
	p = arg_at(th, pk, &c, sizeof(c));
	r = xioctl(f->fd, TWHEEL_IOC_CONFIG, p);
	e = errno;
	tlog(th, "config fd %d tick %llu fl %#x res %#x ptr %s -> %ld %d "
	     "(used %d)", f->fd, c.tick_ns, c.flags, c.__reserved, pk_name[pk],
	     r, e, f->used);
	if (pk != P_OK && pk != P_RO) {
		ST_INC(th, faults);
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, "CONFIG (unreadable)", r, e, "EFAULT");
		return;
	}
	if (invalid) {
		if (r != -1 || (e != EINVAL && !(f->used && e == EBUSY)))
			bad_errno(th, f, "CONFIG (invalid)", r, e, "EINVAL");
		else
			ST_INC(th, invalid);
		return;
	}
	if (f->used) {
		if (r != -1 || e != EBUSY)
			bad_errno(th, f, "CONFIG (after a timer)", r, e, "EBUSY");
		else
			ST_INC(th, invalid);
		return;
	}
	if (r) {
		bad_errno(th, f, "CONFIG", r, e, "success");
		return;
	}
	/* The fd had no timer: nothing to carry over; the last one counts. */
	f->tick = c.tick_ns;
	f->manual = c.flags & TWHEEL_CONFIG_MANUAL;
	f->clock_set = c.flags & TWHEEL_CONFIG_CLOCK_SET;
	f->now = 0;
}

/* Commands the fd must not know: ENOTTY, nothing changed. */
static void s_badcmd(struct th *th, struct sfd *f)
{
	static const unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
					     _IOC_READ | _IOC_WRITE };
	static const unsigned int want_dir[] = { _IOC_READ, 3, 3, 3, 3, 3,
						 _IOC_WRITE, _IOC_WRITE, 3 };
	unsigned long cmd;
	unsigned int nr, dir;
	long r;

	ST_INC(th, ops[K_BADCMD]);
	memset(th->buf, 0, 256);
	switch (rnd(th, 3)) {
	case 0:		/* another type */
		cmd = _IOC(dirs[rnd(th, 4)], 0xBB - 2 * rnd(th, 2), rnd(th, 16),
			   rnd(th, 128));
		break;
	case 1:		/* an unknown number */
		cmd = IOC(dirs[rnd(th, 4)], 9 + rnd(th, 247), rnd(th, 128));
		break;
	default:	/* a known number with the wrong direction */
		nr = rnd(th, 9);
		do {
			dir = dirs[rnd(th, 4)];
		} while (dir == want_dir[nr]);
		cmd = IOC(dir, nr, 8 + 8 * rnd(th, 12));
		break;
	}
	r = xioctl(f->fd, cmd, th->buf);
	tlog(th, "badcmd fd %d cmd %#lx -> %ld %d", f->fd, cmd, r, errno);
	if (r != -1 || errno != ENOTTY)
		bad_errno(th, f, "unknown command", r, errno, "ENOTTY");
	else
		ST_INC(th, invalid);
}

/*
 * Argument sizes other than this header's: older (smaller: INFO's 40
 * bytes; below the first published size: EINVAL) and newer (larger: a
 * zero tail is fine and comes back zero, else E2BIG).
 */
static void s_sizes(struct th *th, struct sfd *f)
{
	unsigned char *b = (unsigned char *)th->buf;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	size_t size, i;
	long r;
	int e;

	ST_INC(th, ops[K_SIZES]);
	switch (rnd(th, 6)) {
	case 0: {	/* INFO, smaller or larger */
		struct twheel_info *in = (struct twheel_info *)b;

		size = chance(th, 30) ? rnd(th, 40) :
			chance(th, 50) ? 40 + 8 * rnd(th, 9) :
			sizeof(*in) + 8 * rnd(th, 64);
		memset(b, 0xAA, 2048);
		AROUND(f, t, r = xioctl(f->fd, IOC(_IOC_READ, 0, size), b));
		e = errno;
		tlog(th, "info size %zu -> %ld %d", size, r, e);
		if (size < 40) {
			if (r != -1 || e != EINVAL)
				bad_errno(th, f, "INFO (< 40 bytes)", r, e,
					  "EINVAL");
			else
				ST_INC(th, invalid);
			return;
		}
		if (r) {
			bad_errno(th, f, "INFO (other size)", r, e, "success");
			return;
		}
		for (i = size; i < size + 64; i++)
			if (b[i] != 0xAA) {
				violation(th, f, V_ORACLE, "INFO of %zu bytes "
					  "wrote byte %zu", size, i);
				return;
			}
		for (i = sizeof(*in); i < size; i++)
			if (b[i]) {
				violation(th, f, V_ORACLE, "INFO of %zu bytes: "
					  "byte %zu not zeroed", size, i);
				return;
			}
		if (in->version != TWHEEL_ABI_VERSION || in->event_size != EV ||
		    in->tick_ns != f->tick || in->timers != (u64)f->n)
			violation(th, f, V_ORACLE, "INFO of %zu bytes: version %u"
				  " tick %llu timers %llu", size,
				  in->version, in->tick_ns, in->timers);
		else if (size >= sizeof(*in))
			check_info(th, f, in, &t1, "INFO (larger)");
		return;
	}
	case 1: case 2: {	/* ADD: version 1's 32 bytes, or larger */
		struct twheel_add *a = (struct twheel_add *)b;
		bool tail = chance(th, 40), small = chance(th, 20);

		if (f->n >= (int)f->max_timers)
			return;
		size = small ? 32 : sizeof(*a) + 8 * (1 + rnd(th, 8));
		memset(b, 0, size);
		a->cookie = new_cookie(th);
		a->clock = valid_clock(th);
		a->expires_ns = gen_rel(th, f->tick, f->manual);
		if (tail && !small)
			b[sizeof(*a) + rnd(th, size - sizeof(*a))] = 1 +
				rnd(th, 255);
		tail = tail && !small;
		AROUND(f, t, r = xioctl(f->fd, IOC(3, 1, size), b));
		e = errno;
		tlog(th, "add size %zu tail %d cookie %#llx exp %lld"
		     " clk %u -> %ld %d id %#llx", size, tail, a->cookie,
		     a->expires_ns, a->clock, r, e, a->id);
		if (small || tail) {
			if (r != -1 || e != (small ? EINVAL : E2BIG))
				bad_errno(th, f, small ? "ADD (32 bytes)" :
					  "ADD (non-zero tail)", r, e,
					  small ? "EINVAL" : "E2BIG");
			else
				ST_INC(th, invalid);
			return;
		}
		if (r) {
			bad_errno(th, f, "ADD (larger)", r, e, "success");
			return;
		}
		for (i = sizeof(*a); i < size; i++)
			if (b[i])
				violation(th, f, V_ORACLE, "ADD of %zu bytes: "
					  "byte %zu of the tail not zero", size,
					  i);
		sh_created(th, f, a->id, a->cookie, a->clock, 0, a->expires_ns,
			   0, &t0, &t1, "ADD (larger)");
		return;
	}
	case 3: {	/* CANCEL below 16 bytes, QUERY with a tail */
		struct twheel_query *q = (struct twheel_query *)b;
		bool tail = chance(th, 50);

		if (chance(th, 50)) {
			size = rnd(th, 16);
			memset(b, 0, 16);
			r = xioctl(f->fd, IOC(3, 2, size), b);
			e = errno;
			tlog(th, "cancel size %zu -> %ld %d", size, r, e);
			if (r != -1 || e != EINVAL)
				bad_errno(th, f, "CANCEL (< 16 bytes)", r, e,
					  "EINVAL");
			else
				ST_INC(th, invalid);
			return;
		}
		size = sizeof(*q) + 8 * (1 + rnd(th, 4));
		memset(b, 0, size);
		q->id = pick_id(th, f);
		if (tail)
			b[size - 1 - rnd(th, size - sizeof(*q))] = 1;
		AROUND(f, t, r = xioctl(f->fd, IOC(3, 4, size), b));
		e = errno;
		tlog(th, "query size %zu tail %d id %#llx -> %ld %d",
		     size, tail, q->id, r, e);
		if (tail) {
			if (r != -1 || e != E2BIG)
				bad_errno(th, f, "QUERY (non-zero tail)", r, e,
					  "E2BIG");
			else
				ST_INC(th, invalid);
			return;
		}
		if (!sh_find(f, q->id)) {
			if (r != -1 || e != ENOENT)
				bad_errno(th, f, "QUERY (larger, no timer)", r, e,
					  "ENOENT");
			return;
		}
		if (r) {
			bad_errno(th, f, "QUERY (larger)", r, e, "success");
			return;
		}
		check_status(th, f, sh_find(f, q->id), &q->status, &t0, &t1,
			     "QUERY (larger)");
		return;
	}
	case 4: {	/* SUBMIT, LIST, CONFIG, ADVANCE, MODIFY smaller */
		static const unsigned int nrs[] = { 3, 4, 5, 6, 7, 8 };
		static const unsigned int mins[] = { 40, 72, 32, 24, 16, 24 };
		unsigned int k = rnd(th, 6);

		size = rnd(th, mins[k]);
		memset(b, 0, 128);
		r = xioctl(f->fd, IOC(nrs[k] == 6 || nrs[k] == 7 ? _IOC_WRITE : 3,
				      nrs[k], size), b);
		e = errno;
		tlog(th, "ioctl nr %u size %zu -> %ld %d", nrs[k], size, r, e);
		if (r != -1 || e != EINVAL)
			bad_errno(th, f, "ioctl below its first size", r, e,
				  "EINVAL");
		else
			ST_INC(th, invalid);
		return;
	}
	default: {	/* LIST and SUBMIT larger, tail zero or not */
		struct twheel_submit *s = (struct twheel_submit *)b;
		bool tail = chance(th, 50);

		size = sizeof(*s) + 8 * (1 + rnd(th, 8));
		memset(b, 0, size);
		s->op_size = sizeof(struct twheel_op);
		s->nr = 0;
		if (tail)
			b[sizeof(*s) + rnd(th, size - sizeof(*s))] = 0x80;
		r = xioctl(f->fd, IOC(_IOC_WRITE, 6, size), b);
		e = errno;
		tlog(th, "submit nr 0 size %zu tail %d -> %ld %d", size, tail, r,
		     e);
		if (tail ? (r != -1 || e != E2BIG) : r != 0)
			bad_errno(th, f, "SUBMIT (larger)", r, e,
				  tail ? "E2BIG" : "0");
		else if (tail)
			ST_INC(th, invalid);
		return;
	}
	}
}

/* Waiter helper: blocks in poll, epoll or read until woken. */
struct waiter {
	int fd, mode;		/* 0 poll, 1 epoll, 2 read */
	long ret;
	int err;
	int revents;
	struct twheel_event ev[8];
	int started, done;	/* __atomic */
	struct tsamp t0, t1;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN };
	int epfd;

	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	if (w->mode == 0) {
		w->ret = poll(&p, 1, 60000);
		w->err = errno;
		w->revents = p.revents;
	} else if (w->mode == 1) {
		epfd = epoll_create1(EPOLL_CLOEXEC);
		epoll_ctl(epfd, EPOLL_CTL_ADD, w->fd, &ev);
		w->ret = epoll_wait(epfd, &ev, 1, 60000);
		w->err = errno;
		w->revents = ev.events;
		close(epfd);
	} else {
		sample(&w->t0);
		w->ret = read(w->fd, w->ev, sizeof(w->ev));
		w->err = errno;
		sample(&w->t1);
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Wake-ups: another thread waits (poll, epoll, a blocking read) while this
 * one makes a record due (ADVANCE on a manual clock, or a short real
 * timer). It must be woken: a time-out of 60 s means it was not.
 */
static void s_wake(struct th *th, struct sfd *f)
{
	struct waiter w;
	pthread_t tid;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	struct timespec until;
	int fl, r;

	ST_INC(th, ops[K_WAKE]);
	if (sh_queued(f) || sh_known_queued(f) || f->n >= (int)f->max_timers ||
	    (f->manual && f->now > INT64_MAX / 2))
		return;
	if (!f->manual) {
		/* Only if nothing may be queued: the record must be ours. */
		sample(&t0);
		if (sh_may_be_queued(f, &t0))
			return;
	}
	memset(&w, 0, sizeof(w));
	w.fd = f->fd;
	w.mode = rnd(th, 3);
	/* A timer that will fall due: ADVANCE makes it, or time does. */
	{
		struct twheel_add a;
		long ar;

		memset(&a, 0, sizeof(a));
		a.cookie = new_cookie(th);
		a.clock = f->manual ? valid_clock(th) : CLOCK_MONOTONIC;
		a.expires_ns = f->manual ? (s64)(f->tick * (1 + rnd(th, 3))) :
			(s64)(1 + rnd(th, 20 * MS));
		AROUND(f, t, ar = xioctl(f->fd, TWHEEL_IOC_ADD, &a));
		tlog(th, "wake: add fd %d exp %lld -> %ld %d id %#llx",
		     f->fd, a.expires_ns, ar, errno, a.id);
		if (ar) {
			bad_errno(th, f, "ADD (wake)", ar, errno, "success");
			return;
		}
		sh_created(th, f, a.id, a.cookie, a.clock, 0, a.expires_ns, 0,
			   &t0, &t1, "ADD (wake)");
		if (f->tainted)
			return;
	}
	fl = fcntl(f->fd, F_GETFL);
	if (w.mode == 2)
		fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK);
	if (pthread_create(&tid, NULL, waiter_main, &w)) {
		fcntl(f->fd, F_SETFL, fl);
		return;
	}
	while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE))
		sched_yield();
	if (chance(th, 70))
		twt_sleep_ns(rnd(th, 3 * MS));
	if (f->manual) {
		int64_t now = 0;

		/* The timer is due two ticks on at most. */
		r = twt_advance_raw(f->fd, 4 * f->tick, &now);
		tlog(th, "wake: advance fd %d %llu -> %d now %lld",
		     f->fd, 4 * f->tick, r, (s64)now);
		if (r) {
			bad_errno(th, f, "ADVANCE (wake)", r, errno, "success");
		} else {
			m_advance(f, now);
			if (!sh_queued(f))
				violation(th, f, V_ORACLE, "wake: nothing due "
					  "after the advance");
		}
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 90;
	r = pthread_timedjoin_np(tid, NULL, &until);
	if (w.mode == 2)
		fcntl(f->fd, F_SETFL, fl);
	tlog(th, "wake: %s on fd %d -> %ld %d revents %#x", w.mode == 0 ?
	     "poll" : w.mode == 1 ? "epoll" : "read", f->fd, w.ret, w.err,
	     w.revents);
	if (r) {
		violation(th, f, V_LOST, "wake: the waiter (%s) is still "
			  "blocked after 90 s", w.mode == 0 ? "poll" :
			  w.mode == 1 ? "epoll" : "read");
		pthread_detach(tid);
		return;
	}
	if (w.mode < 2) {
		if (w.ret != 1 || !(w.revents & POLLIN))
			violation(th, f, V_LOST, "wake: %s returned %ld revents "
				  "%#x (errno %d)", w.mode ? "epoll" : "poll",
				  w.ret, w.revents, w.err);
		return;
	}
	if (w.ret <= 0 || w.ret % EV) {
		violation(th, f, V_LOST, "wake: blocking read returned %ld (%s)",
			  w.ret, strerror(w.err));
		return;
	}
	if (f->manual) {
		size_t q = sh_queued(f), n = w.ret / EV;

		/*
		 * A waiter woken early may update the wheel itself and take
		 * the first records before all are queued: 1 to min(q, 8).
		 */
		if (n > (q < 8 ? q : 8))
			violation(th, f, V_ORACLE, "wake: read %zu records, the "
				  "model has %zu queued", n, q);
	}
	check_records(th, f, w.ev, w.ret / EV, &w.t0, &w.t1);
}

/* Open and configure a strict fd; its shadow starts empty. */
static void s_open(struct th *th, struct sfd *f)
{
	struct twheel_info in;
	char val[32];
	int small = chance(th, 12), k;

	ST_INC(th, ops[K_OPEN]);
	free(f->t);
	memset(f, 0, sizeof(*f));
	if (small) {
		snprintf(val, sizeof(val), "%d", 1 + (int)rnd(th, 24));
		twt_sysfs_write(PARAM, val);
	}
	f->fd = open(TWT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (small)
		twt_sysfs_write(PARAM, "8192");
	if (f->fd < 0) {
		violation(th, NULL, V_ERRNO, "open %s: %s", TWT_DEV,
			  strerror(errno));
		return;
	}
	memset(&in, 0, sizeof(in));
	if (xioctl(f->fd, TWHEEL_IOC_INFO, &in)) {
		violation(th, NULL, V_ERRNO, "INFO: %s", strerror(errno));
		return;
	}
	f->max_timers = in.max_timers;
	f->tick = TWHEEL_DEFAULT_TICK_NS;
	if (in.tick_ns != f->tick || in.timers || in.queued || in.config_flags)
		violation(th, f, V_ORACLE, "a new fd: tick %llu timers %"
			  "llu queued %llu config %u", in.tick_ns,
			  in.timers, in.queued, in.config_flags);
	/* Configurations, valid or not; the last valid one counts. */
	for (k = rnd(th, 3); k >= 0; k--)
		s_config(th, f);
	if (chance(th, 60) && !f->manual) {
		/* Most strict fds are manual: exact and fast. */
		u64 tick = chance(th, 30) ? TWHEEL_DEFAULT_TICK_NS :
			TWHEEL_MIN_TICK_NS + rnd(th, 100000);

		if (twt_config_raw(f->fd, tick, TWHEEL_CONFIG_MANUAL)) {
			violation(th, f, V_ERRNO, "CONFIG: %s", strerror(errno));
			return;
		}
		f->tick = tick;
		f->manual = true;
		f->clock_set = false;	/* the last configuration counts */
		f->now = 0;
	}
	if (!f->manual && f->tick > 20 * MS) {
		/* Real clocks with a long tick would make the end wait. */
		if (!twt_config_raw(f->fd, MS, 0)) {
			f->tick = MS;
			f->clock_set = false;
		}
	}
	tlog(th, "open fd %d %s tick %llu max %llu", f->fd,
	     f->manual ? "manual" : "real", f->tick, f->max_timers);
	s_info(th, f);
}

static void s_close(struct th *th, struct sfd *f)
{
	ST_INC(th, ops[K_CLOSE]);
	ST_ADD(th, ended_close, f->n);
	tlog(th, "close fd %d with %d timers", f->fd, f->n);
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->n = 0;
}

/* Use the fd through a dup; sometimes keep the dup, close the original. */
static void s_dup(struct th *th, struct sfd *f)
{
	int d = dup(f->fd), keep = f->fd;

	ST_INC(th, ops[K_DUP]);
	if (d < 0) {
		violation(th, f, V_ERRNO, "dup: %s", strerror(errno));
		return;
	}
	tlog(th, "dup fd %d -> %d", f->fd, d);
	f->fd = d;
	if (chance(th, 50))
		s_info(th, f);
	else
		s_read(th, f);
	if (chance(th, 50)) {
		close(keep);
	} else {
		f->fd = keep;
		close(d);
	}
}

/* Cancel every timer of the shadow for which keep() is false. */
static void s_cancel_all(struct th *th, struct sfd *f,
			 bool (*keep)(struct sfd *f, struct stimer *t,
				      const struct tsamp *now))
{
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	uint32_t res = 0;
	int i;
	long r;

	for (i = f->n - 1; i >= 0 && !f->tainted; i--) {
		struct stimer *t = &f->t[i];

		sample(&t0);
		if (keep && keep(f, t, &t0))
			continue;
		r = twt_cancel_raw(f->fd, t->id, 0, &res);
		sample(&t1);
		tlog(th, "final cancel fd %d id %#llx -> %ld %d res %u",
		     f->fd, t->id, r, errno, res);
		if (r) {
			bad_errno(th, f, "CANCEL (final)", r, errno, "success");
			return;
		}
		check_result(th, f, t, res, &t1, "CANCEL (final)");
		ST_INC(th, ended_cancel);
		sh_end(f, t);
	}
}

static bool keep_one_shot(struct sfd *f, struct stimer *t,
			  const struct tsamp *now)
{
	(void)f;
	(void)now;
	return !t->period;
}

/* Real clocks: one-shots due within 2 s are waited for. */
static bool keep_near(struct sfd *f, struct stimer *t, const struct tsamp *now)
{
	(void)f;
	return !t->period && t->dhi < now->t[clk_index(t->clock)] + 2 * S;
}

/*
 * End of the run: every timer ends exactly once. Periodic timers and far
 * real-clock ones are cancelled; a manual clock jumps to the end of time
 * and every record is read (what never falls due is cancelled); near
 * real-clock timers are waited for, up to LOST_SLACK_NS past their
 * deadlines.
 */
static void s_final(struct th *th, struct sfd *f)
{
	struct twheel_event ev[64];
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	struct twheel_info in;
	s64 give_up = mono() + 2 * S + LOST_SLACK_NS;
	int64_t now = 0;
	long r;
	int i;

	if (f->fd < 0 || f->tainted)
		return;
	tlog(th, "final fd %d (%s, %d timers)", f->fd,
	     f->manual ? "manual" : "real", f->n);
	if (f->manual) {
		s_cancel_all(th, f, keep_one_shot);
		if (twt_advance_raw(f->fd, UINT64_MAX, &now)) {
			bad_errno(th, f, "ADVANCE (final)", -1, errno, "success");
			return;
		}
		m_advance(f, now);
	} else {
		s_cancel_all(th, f, keep_near);
	}
	while (f->n && !f->tainted) {
		AROUND(f, t, r = read(f->fd, ev, sizeof(ev)));
		if (r > 0) {
			check_records(th, f, ev, r / EV, &t0, &t1);
			continue;
		}
		if (r < 0 && errno != EAGAIN) {
			bad_errno(th, f, "read (final)", r, errno, "records");
			return;
		}
		if (f->manual) {
			/* Left: what never falls due. */
			for (i = 0; i < f->n; i++)
				if (f->t[i].state == TWHEEL_STATE_QUEUED) {
					violation(th, f, V_LOST, "final: id %#"
						  "llx is due, read has "
						  "nothing", f->t[i].id);
					return;
				}
			s_cancel_all(th, f, NULL);
			break;
		}
		if (mono() > give_up) {
			sample(&t0);
			for (i = 0; i < f->n; i++)
				violation(th, f, V_LOST, "final: id %#llx"
					  " deadline <= %lld clock %u: "
					  "no record %lld ns later",
					  f->t[i].id, f->t[i].dhi, f->t[i].clock,
					  t0.t[clk_index(f->t[i].clock)] -
					  f->t[i].dhi);
			return;
		}
		twt_poll(f->fd, 100);
	}
	if (f->tainted)
		return;
	memset(&in, 0, sizeof(in));
	if (xioctl(f->fd, TWHEEL_IOC_INFO, &in))
		bad_errno(th, f, "INFO (final)", -1, errno, "success");
	else if (in.timers || in.queued)
		violation(th, f, V_ORACLE, "final: INFO says %llu"
			  " timers %llu queued, the shadow none",
			  in.timers, in.queued);
}

static void strict_step(struct th *th, struct sfd *f)
{
	unsigned int r = rnd(th, 1000);

	if (r < 190)
		s_add(th, f);
	else if (r < 270)
		s_cancel(th, f);
	else if (r < 350)
		s_modify(th, f);
	else if (r < 400)
		s_query(th, f);
	else if (r < 420)
		s_list(th, f, 15);
	else if (r < 425)
		s_list_cursor(th, f);
	else if (r < 500)
		s_submit(th, f);
	else if (r < 600)
		s_advance(th, f);
	else if (r < 730)
		s_read(th, f);
	else if (r < 780)
		s_poll(th, f);
	else if (r < 810)
		s_info(th, f);
	else if (r < 825)
		s_config(th, f);
	else if (r < 845)
		s_badcmd(th, f);
	else if (r < 880)
		s_sizes(th, f);
	else if (r < 895)
		s_wake(th, f);
	else if (r < 900)
		s_dup(th, f);
	else if (r < 903) {
		s_close(th, f);
		s_open(th, f);
	} else if (!f->manual && f->n) {
		/* Real clocks: let time pass a little, then read. */
		twt_sleep_ns(rnd(th, 5 * MS));
		s_read(th, f);
	} else {
		s_advance(th, f);
	}
}

static void *strict_main(void *arg)
{
	struct th *th = arg;
	unsigned long steps = 0;
	int i;

	th_mem_init(th);
	for (i = 0; i < FDS_PER_THREAD; i++)
		s_open(th, &th->f[i]);
	while (!time_up()) {
		struct sfd *f = &th->f[rnd(th, FDS_PER_THREAD)];

		if (f->fd < 0 || f->tainted) {
			s_close(th, f);
			s_open(th, f);
			continue;
		}
		strict_step(th, f);
		if (++steps % 50 == 0 && !f->tainted)
			s_list(th, f, 0);
	}
	for (i = 0; i < FDS_PER_THREAD; i++) {
		s_final(th, &th->f[i]);
		if (!th->f[i].tainted && th->f[i].n)
			violation(th, &th->f[i], V_LOST, "final: %d timers left",
				  th->f[i].n);
		s_close(th, &th->f[i]);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Chaos: shared fds, random calls, the weak oracle */

static int tab_get(struct th *th)
{
	return __atomic_load_n(&g_tab[rnd(th, NTAB)], __ATOMIC_RELAXED);
}

static void tab_put(struct th *th, int fd)
{
	int old = __atomic_exchange_n(&g_tab[rnd(th, NTAB)], fd,
				      __ATOMIC_RELAXED);

	if (old >= 3 && old != g_shared[0] && old != g_shared[1])
		close(old);
}

static void remember_id(struct th *th, u64 id)
{
	if (id)
		th->ids[th->nids++ % 64] = id;
}

static u64 chaos_id(struct th *th)
{
	if (th->nids && chance(th, 80))
		return th->ids[rnd(th, th->nids < 64 ? th->nids : 64)];
	return chance(th, 50) ? 1 + rnd(th, 100) : rnd64(th);
}

static bool errno_in(int e, const int *set)
{
	for (; *set; set++)
		if (*set == e)
			return true;
	return false;
}

static bool status_ok(const struct twheel_status *st)
{
	return st->id && clk_index(st->clock) >= 0 &&
	       ((st->state == TWHEEL_STATE_PENDING && !st->count) ||
		(st->state == TWHEEL_STATE_QUEUED && st->count >= 1)) &&
	       st->remaining_ns >= 0;
}

static bool records_ok(struct th *th, const struct twheel_event *ev, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!ev[i].id || ev[i].flags || !ev[i].count ||
		    clk_index(ev[i].clock) < 0)
			return false;
		remember_id(th, ev[i].id);
	}
	ST_ADD(th, chaos_records, n);
	return true;
}

/* Fill a random argument for command nr (0..8) in b, semi-valid. */
static void chaos_fill(struct th *th, unsigned int nr, unsigned char *b,
		       size_t size)
{
	size_t i;

	memset(b, 0, size);
	if (chance(th, 5)) {
		for (i = 0; i < size; i++)
			b[i] = rnd(th, 256);
		return;
	}
	switch (nr) {
	case 1: {
		struct twheel_add *a = (void *)b;

		a->cookie = rnd64(th);
		a->clock = chance(th, 90) ? valid_clock(th) : bad_clock(th);
		a->flags = chance(th, 40) ? TWHEEL_ABSTIME : 0;
		a->expires_ns = a->flags ? add_sat(twt_now(CLOCK_MONOTONIC),
						  gen_rel(th, MS, false)) :
				gen_rel(th, MS, chance(th, 50));
		a->period_ns = gen_period(th, MS, false);
		if (chance(th, 5))
			a->flags |= unknown_bits(th, 1);
		break;
	}
	case 2: {
		struct twheel_cancel *c = (void *)b;

		c->id = chaos_id(th);
		c->flags = chance(th, 5) ? unknown_bits(th, 0) : 0;
		break;
	}
	case 3: {
		struct twheel_modify *m = (void *)b;

		m->id = chaos_id(th);
		m->cookie = rnd64(th);
		m->flags = rnd(th, 4) | (chance(th, 5) ? unknown_bits(th, 3) : 0);
		m->expires_ns = gen_rel(th, MS, false);
		m->period_ns = gen_period(th, MS, false);
		break;
	}
	case 4: {
		struct twheel_query *q = (void *)b;

		q->id = chaos_id(th);
		q->flags = chance(th, 5);
		break;
	}
	case 5: {
		struct twheel_list *l = (void *)b;
		size_t fit;

		l->capacity = chance(th, 5) ? 0 : 1 + rnd(th, 64);
		l->status_size = chance(th, 95) ? sizeof(struct twheel_status) :
			rnd(th, 100);
		l->cursor = chance(th, 70) ? 0 : chance(th, 50) ? rnd(th, 100) :
			rnd64(th);
		l->statuses = (uintptr_t)arr_at(th, pick_pk(th, 15),
						th->buf + 65536,
						sizeof(struct twheel_status),
						l->capacity, &fit);
		if (l->statuses == (uintptr_t)th->buf)
			l->statuses = (uintptr_t)(th->buf + 65536);
		l->flags = chance(th, 5);
		break;
	}
	case 6: {
		struct twheel_submit *s = (void *)b;
		struct twheel_op *ops = (struct twheel_op *)(th->buf + 8192);
		uint32_t n = chance(th, 5) ? 1024 + rnd(th, 2) : rnd(th, 40);
		size_t fit;
		uint32_t k;

		for (k = 0; k < n; k++) {
			memset(&ops[k], 0, sizeof(ops[k]));
			ops[k].op = chance(th, 95) ? 1 + rnd(th, 4) : rnd(th, 10);
			ops[k].id = chaos_id(th);
			ops[k].cookie = rnd64(th);
			ops[k].clock = chance(th, 95) ? valid_clock(th) :
				bad_clock(th);
			ops[k].expires_ns = gen_rel(th, MS, false);
			ops[k].flags = chance(th, 10) ? rnd(th, 4) : 0;
			ops[k].period_ns = chance(th, 10) ? MS : 0;
			ops[k].__reserved = chance(th, 2);
		}
		s->nr = n;
		s->op_size = chance(th, 95) ? sizeof(struct twheel_op) :
			rnd(th, 128);
		s->flags = chance(th, 3);
		s->__reserved = chance(th, 3);
		if (chance(th, 10)) {
			s->ops = (uintptr_t)arr_at(th, 1 + rnd(th, P_NKINDS - 1),
						   ops, sizeof(*ops),
						   n > 1000 ? 1000 : n, &fit);
		} else {
			s->ops = (uintptr_t)ops;
		}
		break;
	}
	case 7: {
		struct twheel_config *c = (void *)b;

		c->tick_ns = chance(th, 80) ? TWHEEL_MIN_TICK_NS +
			rnd(th, 10 * MS) : rnd64(th);
		c->flags = rnd(th, 2) | (chance(th, 5) ? unknown_bits(th, 1) : 0) |
			   (chance(th, 10) ? TWHEEL_CONFIG_TABLE : 0) |
			   (chance(th, 10) ? TWHEEL_CONFIG_CLOCK_SET : 0);
		c->__reserved = chance(th, 5);
		break;
	}
	case 8: {
		struct twheel_advance *a = (void *)b;

		a->delta_ns = chance(th, 90) ? rnd(th, 100 * MS) : rnd64(th);
		a->flags = chance(th, 5);
		break;
	}
	}
}

/* The errnos a command may give (besides EBADF: fds close under us). */
static const int *chaos_errnos(unsigned int nr)
{
	static const int e_info[] = { EFAULT, EINVAL, EBADF, 0 };
	/* EPERM: an alarm clock without CAP_WAKE_ALARM (not as root). */
	static const int e_add[] = { EINVAL, EFAULT, ENOSPC, ENOMEM, E2BIG,
				     EBADF, EPERM, 0 };
	static const int e_cancel[] = { EINVAL, ENOENT, EFAULT, E2BIG, EBADF, 0 };
	static const int e_modify[] = { EINVAL, ENOENT, EFAULT, ENOMEM, E2BIG,
					EBADF, 0 };
	static const int e_list[] = { EINVAL, EFAULT, ENOMEM, E2BIG, EBADF, 0 };
	static const int e_config[] = { EINVAL, EBUSY, EFAULT, E2BIG, EBADF, 0 };
	static const int e_adv[] = { EINVAL, EFAULT, E2BIG, EBADF, 0 };
	static const int *const sets[] = {
		e_info, e_add, e_cancel, e_modify, e_cancel, e_list, e_list,
		e_config, e_adv,
	};

	return nr < 9 ? sets[nr] : NULL;
}

static void chaos_ioctl(struct th *th, int fd)
{
	static const unsigned int dirs[] = { 2, 3, 3, 3, 3, 3, 1, 1, 3 };
	static const size_t sizes[] = {
		sizeof(struct twheel_info), sizeof(struct twheel_add),
		sizeof(struct twheel_cancel), sizeof(struct twheel_modify),
		sizeof(struct twheel_query), sizeof(struct twheel_list),
		sizeof(struct twheel_submit), sizeof(struct twheel_config),
		sizeof(struct twheel_advance),
	};
	static const int e_tty[] = { ENOTTY, EBADF, 0 };
	static const unsigned int kinds[] = {
		K_INFO, K_ADD, K_CANCEL, K_MODIFY, K_QUERY, K_LIST, K_SUBMIT,
		K_CONFIG, K_ADVANCE,
	};
	unsigned char arg[512];
	unsigned int nr = rnd(th, 9), r100 = rnd(th, 100);
	unsigned long cmd;
	size_t size = sizes[nr];
	const int *errs;
	enum ptrkind pk = pick_pk(th, 8);
	void *p;
	long r;
	int e;

	if (r100 < 80) {
		cmd = IOC(dirs[nr], nr, size);
		errs = chaos_errnos(nr);
	} else if (r100 < 92) {
		size = chance(th, 50) ? rnd(th, size) : size + 8 * rnd(th, 40);
		cmd = IOC(dirs[nr], nr, size);
		errs = chaos_errnos(nr);
	} else {
		cmd = chance(th, 50) ? IOC(rnd(th, 4), 9 + rnd(th, 200),
					   rnd(th, 200)) :
			_IOC(rnd(th, 4), 0xBB, rnd(th, 10), rnd(th, 100));
		errs = e_tty;
		nr = 99;
	}
	if (size > sizeof(arg))
		size = sizeof(arg);
	ST_INC(th, ops[nr < 9 ? kinds[nr] : K_BADCMD]);
	chaos_fill(th, nr, arg, size);
	/* A newer, larger struct: its tail zero, mostly. */
	if (size > sizes[nr < 9 ? nr : 0] && nr < 9 && chance(th, 70))
		memset(arg + sizes[nr], 0, size - sizes[nr]);
	if (nr == 6 && pk == P_OK) {
		/* The ops array is in th->buf: the argument must not be. */
		p = arg;
	} else {
		p = pk == P_OK ? arg : arg_at(th, pk, arg, size ? size : 1);
	}
	r = xioctl(fd, cmd, p);
	e = errno;
	tlog(th, "chaos ioctl fd %d cmd %#lx ptr %s -> %ld %d", fd, cmd,
	     pk_name[pk], r, e);
	if (r < 0) {
		if (r != -1 || !errno_in(e, errs))
			bad_errno(th, NULL, "ioctl (chaos)", r, e,
				  "an errno the header documents");
		return;
	}
	if (nr >= 9) {
		bad_errno(th, NULL, "unknown ioctl (chaos)", r, e, "ENOTTY");
		return;
	}
	if (pk != P_OK || size < sizes[nr])
		return;
	switch (nr) {
	case 0: {
		struct twheel_info *in = p;

		if (in->version != TWHEEL_ABI_VERSION || in->event_size != EV ||
		    /* (A record of clock sets is queued, not a timer.) */
		    in->queued > in->timers +
		    !!(in->config_flags & TWHEEL_CONFIG_CLOCK_SET) ||
		    in->timers > in->max_timers ||
		    in->tick_ns < TWHEEL_MIN_TICK_NS ||
		    in->tick_ns > TWHEEL_MAX_TICK_NS ||
		    in->config_flags & ~(TWHEEL_CONFIG_MANUAL |
					 TWHEEL_CONFIG_TABLE |
					 TWHEEL_CONFIG_CLOCK_SET) ||
		    (size >= sizeof(*in) &&
		     !(in->config_flags & TWHEEL_CONFIG_TABLE) !=
		     !in->table_size))
			violation(th, NULL, V_ORACLE, "INFO (chaos): version %u"
				  " timers %llu queued %llu max %"
				  "llu tick %llu", in->version,
				  in->timers, in->queued, in->max_timers,
				  in->tick_ns);
		break;
	}
	case 1:
		if (!((struct twheel_add *)p)->id)
			violation(th, NULL, V_ORACLE, "ADD (chaos): id 0");
		remember_id(th, ((struct twheel_add *)p)->id);
		ST_INC(th, chaos_created);
		break;
	case 2:
	case 3: {
		uint32_t res = nr == 2 ? ((struct twheel_cancel *)p)->result :
			((struct twheel_modify *)p)->result;

		if (res != TWHEEL_STATE_PENDING && res != TWHEEL_STATE_QUEUED)
			violation(th, NULL, V_ORACLE, "%s (chaos): result %u",
				  nr == 2 ? "CANCEL" : "MODIFY", res);
		break;
	}
	case 4: {
		struct twheel_query *q = p;

		if (!status_ok(&q->status) || q->status.id != q->id)
			violation(th, NULL, V_ORACLE, "QUERY (chaos): state %u "
				  "count %llu clock %u", q->status.state,
				  q->status.count, q->status.clock);
		break;
	}
	case 5: {
		struct twheel_list *l = p;
		struct twheel_status *st = (void *)(uintptr_t)l->statuses;
		uint32_t i;

		if (l->count > l->capacity) {
			violation(th, NULL, V_ORACLE, "LIST (chaos): count %u "
				  "capacity %u", l->count, l->capacity);
			break;
		}
		if (st != (void *)(th->buf + 65536))
			break;
		for (i = 0; i < l->count; i++) {
			if (!status_ok(&st[i])) {
				violation(th, NULL, V_ORACLE, "LIST (chaos): "
					  "entry %u bad", i);
				break;
			}
			remember_id(th, st[i].id);
		}
		break;
	}
	case 6: {
		struct twheel_submit *s = p;
		struct twheel_op *ops = (void *)(uintptr_t)s->ops;
		long i;

		if (r > s->nr) {
			violation(th, NULL, V_ORACLE, "SUBMIT (chaos): %ld of %u",
				  r, s->nr);
			break;
		}
		if (ops != (void *)(th->buf + 8192))
			break;
		for (i = 0; i < r; i++) {
			int32_t er = ops[i].error;

			if (er && er != -EINVAL && er != -ENOENT &&
			    er != -ENOSPC && er != -ENOMEM) {
				violation(th, NULL, V_ERRNO, "SUBMIT (chaos): "
					  "op %ld error %d", i, er);
				break;
			}
			if (!er && ops[i].op == TWHEEL_OP_ADD) {
				remember_id(th, ops[i].id);
				ST_INC(th, chaos_created);
			}
		}
		break;
	}
	case 8:
		if (((struct twheel_advance *)p)->now_ns < 0)
			violation(th, NULL, V_ORACLE, "ADVANCE (chaos): now %"
				  "lld", ((struct twheel_advance *)p)->now_ns);
		break;
	}
}

static void chaos_read(struct th *th, int fd)
{
	static const int errs[] = { EAGAIN, EINVAL, EFAULT, EINTR, EBADF, 0 };
	size_t n = rnd(th, 20), count = n * EV + (chance(th, 20) ? rnd(th, EV) : 0);
	enum ptrkind pk = pick_pk(th, 10);
	size_t fit = n;
	void *buf;
	long r;
	int e;

	ST_INC(th, ops[K_READ]);
	buf = pk == P_OK ? (void *)th->buf : arr_at(th, pk, th->buf + 65536, EV,
						     n, &fit);
	r = read(fd, buf, count);
	e = errno;
	tlog(th, "chaos read fd %d count %zu ptr %s -> %ld %d", fd, count,
	     pk_name[pk], r, e);
	if (r < 0) {
		if (!errno_in(e, errs))
			bad_errno(th, NULL, "read (chaos)", r, e,
				  "EAGAIN/EINVAL/EFAULT/EINTR/EBADF");
		else if (e == EINVAL && count >= EV)
			bad_errno(th, NULL, "read (chaos, room for a record)", r,
				  e, "not EINVAL");
		return;
	}
	if (count < EV || r % EV || (size_t)r > n * EV ||
	    (pk != P_OK && (size_t)r > fit * EV) || r == 0) {
		violation(th, NULL, V_ORACLE, "read (chaos): %ld bytes for "
			  "count %zu (fit %zu)", r, count, fit);
		return;
	}
	if (pk == P_OK && !records_ok(th, buf, r / EV))
		violation(th, NULL, V_ORACLE, "read (chaos): a malformed record");
}

static void chaos_poll(struct th *th, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN | (chance(th, 30) ? EPOLLET : 0) };
	int r;

	if (chance(th, 50)) {
		ST_INC(th, ops[K_POLL]);
		r = poll(&p, 1, rnd(th, 20));
		if (r < 0 && errno != EINTR)
			bad_errno(th, NULL, "poll (chaos)", r, errno, "EINTR");
		if (r > 0 && (p.revents & ~(POLLIN | POLLRDNORM | POLLNVAL)))
			violation(th, NULL, V_ORACLE, "poll (chaos): revents %#x",
				  p.revents);
		return;
	}
	ST_INC(th, ops[K_EPOLL]);
	if (epoll_ctl(th->epfd, EPOLL_CTL_ADD, fd, &ev) && errno != EEXIST &&
	    errno != EBADF && errno != EPERM)
		bad_errno(th, NULL, "epoll_ctl (chaos)", -1, errno, "0/EEXIST");
	r = epoll_wait(th->epfd, &ev, 1, rnd(th, 20));
	if (r < 0 && errno != EINTR)
		bad_errno(th, NULL, "epoll_wait (chaos)", r, errno, "EINTR");
	if (chance(th, 30))
		epoll_ctl(th->epfd, EPOLL_CTL_DEL, fd, NULL);
}

static void chaos_open(struct th *th)
{
	int fd;

	ST_INC(th, ops[K_OPEN]);
	fd = open(TWT_DEV, O_RDWR | O_CLOEXEC | (chance(th, 70) ? O_NONBLOCK : 0));
	if (fd < 0) {
		if (errno != EMFILE && errno != ENFILE && errno != ENOMEM)
			bad_errno(th, NULL, "open (chaos)", fd, errno, "an fd");
		return;
	}
	if (chance(th, 50)) {
		struct twheel_config c = {
			.tick_ns = TWHEEL_MIN_TICK_NS + rnd(th, 5 * MS),
			.flags = rnd(th, 2),
		};

		/* A shared timer table, often with a small maximum. */
		if (chance(th, 40)) {
			c.flags |= TWHEEL_CONFIG_TABLE;
			if (chance(th, 70)) {
				struct twheel_info in;

				c.flags |= TWHEEL_CONFIG_MAX_TIMERS;
				c.max_timers = 1 + rnd(th, 3000);
				/*
				 * At most the fd's maximum (EINVAL above): a
				 * strict thread may have lowered max_timers
				 * for the moment of this open (s_open()).
				 */
				memset(&in, 0, sizeof(in));
				if (!xioctl(fd, TWHEEL_IOC_INFO, &in) &&
				    c.max_timers > in.max_timers)
					c.max_timers = in.max_timers;
			}
		}

		if (xioctl(fd, TWHEEL_IOC_CONFIG, &c))
			bad_errno(th, NULL, "CONFIG of a new fd (chaos)", -1,
				  errno, "success");
	}
	tab_put(th, fd);
}

/*
 * The shared timer table of a chaos fd, through a private dup (nobody
 * else closes or replaces it): wrong mappings are refused with their
 * errno; a right one is stored into with any value, a timer's own
 * deadlines and cancels included (they must all be harmless), in the
 * entries up to one of an id just added (backed: slots are taken in
 * order, pages never given back), while other threads use the fd.
 */
static void chaos_table(struct th *th, int fd)
{
	size_t pg = g_pg, len;
	struct twheel_info in;
	struct twheel_add a;
	u64 *t, i, n, id;
	int d, prot, flags, e;
	off_t off = 0;
	void *m;

	ST_INC(th, ops[K_TABLE]);
	d = dup(fd);
	if (d < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.cookie = rnd64(th);
	a.clock = valid_clock(th);
	a.expires_ns = chance(th, 50) ? (s64)rnd(th, 50 * MS) :
		       (s64)rnd(th, 3600) * 1000000000LL;
	a.period_ns = chance(th, 10) ? MS * (1 + rnd(th, 20)) : 0;
	id = xioctl(d, TWHEEL_IOC_ADD, &a) ? 0 : a.id;
	/* After a timer was added, the configuration is fixed. */
	memset(&in, 0, sizeof(in));
	if (xioctl(d, TWHEEL_IOC_INFO, &in))
		goto out;
	len = in.table_size ? (1 + rnd(th, in.table_size / pg)) * pg : pg;
	prot = PROT_READ | PROT_WRITE;
	flags = MAP_SHARED;
	switch (chance(th, 20) ? rnd(th, 4) : 4) {
	case 0:
		flags = MAP_PRIVATE;
		break;
	case 1:
		prot |= PROT_EXEC;
		break;
	case 2:
		off = (off_t)pg * (1 + rnd(th, 4));
		break;
	case 3:
		len = in.table_size + pg;
		break;
	}
	m = mmap(NULL, len, prot, flags, d, off);
	e = errno;
	tlog(th, "table fd %d size %llu len %zu prot %#x flags %#x off %lld "
	     "-> %p %d", d, in.table_size, len, prot, flags, (long long)off,
	     m, e);
	if (m == MAP_FAILED) {
		/*
		 * ENODEV: no table (the fd may have been configured by
		 * another thread's chaos since INFO); EPERM for PROT_EXEC;
		 * EINVAL for the rest; ENOMEM, EAGAIN from the VM.
		 */
		if (e != ENODEV && e != EINVAL && e != EPERM && e != ENOMEM &&
		    e != EAGAIN)
			bad_errno(th, NULL, "mmap of the table (chaos)", -1, e,
				  "ENODEV, EINVAL, EPERM");
		else if (id && in.table_size && flags == MAP_SHARED && !off &&
			 !(prot & PROT_EXEC) && len <= in.table_size &&
			 e != ENOMEM && e != EAGAIN)
			bad_errno(th, NULL, "mmap of the table (chaos)", -1, e,
				  "success");
		goto out;
	}
	if (id && (!in.table_size || flags != MAP_SHARED || off ||
		   (prot & PROT_EXEC) || len > in.table_size))
		violation(th, NULL, V_ORACLE, "mmap of the table (chaos): "
			  "size %llu len %zu prot %#x flags %#x off %lld "
			  "accepted", in.table_size, len, prot, flags,
			  (long long)off);
	t = m;
	ST_INC(th, table_maps);
	if (id) {
		n = TWHEEL_TABLE_INDEX(id) + 1;
		if (n > len / sizeof(u64))
			n = len / sizeof(u64);
		for (i = 0; i < 1 + rnd(th, 64); i++) {
			u64 k = rnd(th, n), v;

			switch (rnd(th, 6)) {
			case 0:
				v = rnd64(th);
				break;
			case 1:
				v = TWHEEL_TABLE_CANCELLED(id);
				k = TWHEEL_TABLE_INDEX(id);
				break;
			case 2:
				v = TWHEEL_TABLE_DEADLINE(id, t[k] +
							   rnd(th, 100));
				k = TWHEEL_TABLE_INDEX(id);
				break;
			case 3:		/* another timer's deadline, later */
				v = t[k] + rnd(th, 1000);
				break;
			case 4:
				v = t[k] | TWHEEL_TABLE_CANCEL;
				break;
			default:
				v = t[k] ^ (1ULL << rnd(th, 64));
				break;
			}
			__atomic_store_n(&t[k], v, __ATOMIC_RELAXED);
			ST_INC(th, table_stores);
		}
	}
	if (chance(th, 30)) {
		/* A mapping outlives the fd and the dup. */
		close(d);
		d = -1;
		usleep(rnd(th, 2000));
	}
	munmap(m, len);
out:
	if (d >= 0)
		close(d);
}

static void chaos_step(struct th *th, bool child);

/* A forked child: the table's fds, single-threaded, for a moment. */
static void chaos_fork(struct th *th)
{
	pid_t pid;
	int status;

	ST_INC(th, ops[K_FORK]);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		struct itimerval it = {
			.it_interval = { 0, 30000 }, .it_value = { 0, 30000 },
		};
		s64 until = mono() + (50 + rnd(th, 250)) * MS;

		th->rs ^= 0x1234567;
		th->idx += 100;
		setitimer(ITIMER_REAL, &it, NULL);	/* EINTR for reads */
		while (mono() < until && !time_up())
			chaos_step(th, true);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		violation(th, NULL, V_ORACLE, "forked child: status %#x", status);
}

static void chaos_step(struct th *th, bool child)
{
	unsigned int r = rnd(th, 1000);
	int fd = tab_get(th);

	if (r < 30) {
		chaos_open(th);
	} else if (r < 60) {
		int old;

		ST_INC(th, ops[K_CLOSE]);
		old = __atomic_exchange_n(&g_tab[rnd(th, NTAB)], -1,
					  __ATOMIC_RELAXED);
		if (old >= 3 && close(old) && errno != EBADF)
			bad_errno(th, NULL, "close (chaos)", -1, errno, "0");
	} else if (r < 80) {
		int d;

		ST_INC(th, ops[K_DUP]);
		if (fd < 0)
			return;
		if (chance(th, 50)) {
			d = dup(fd);
			if (d >= 0)
				tab_put(th, d);
		} else {
			int to = tab_get(th);

			if (to >= 3 && to != fd)
				dup2(fd, to);
		}
	} else if (r < 82 && !child) {
		chaos_fork(th);
	} else if (r < 100) {
		if (fd >= 0)
			chaos_table(th, fd);
	} else if (r < 620) {
		if (fd >= 0)
			chaos_ioctl(th, fd);
	} else if (r < 850) {
		if (fd >= 0)
			chaos_read(th, fd);
	} else if (fd >= 0) {
		chaos_poll(th, fd);
	}
}

static void *chaos_main(void *arg)
{
	struct th *th = arg;

	th_mem_init(th);
	while (!time_up())
		chaos_step(th, false);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
}

/* A crash of the fuzzer itself: where (addr2line -e twfuzz ADDR...). */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	void *bt[32];
	int n = backtrace(bt, 32);

	(void)uc;
	out("# twfuzz crashed: signal %d at %p; backtrace:\n", sig, si->si_addr);
	backtrace_symbols_fd(bt, n, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ------------------------------------------------------------------ */
/* Processes */

static int run_process(int proc)
{
	struct th *ths;
	bool chaos = g_procs > 1 && (proc % 2 == 1);
	struct sigaction sa;
	u64 x;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: blocked calls EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	ths = calloc(g_threads, sizeof(*ths));
	if (!ths)
		return 2;
	for (i = 0; i < NTAB; i++)
		g_tab[i] = -1;
	if (chaos) {
		g_tab[0] = g_shared[0];
		g_tab[1] = g_shared[1];
	}
	x = g_seed ^ ((u64)proc << 32);
	for (i = 0; i < g_threads; i++) {
		ths[i].proc = proc;
		ths[i].idx = i;
		ths[i].chaos = chaos;
		ths[i].st = &g_stats[proc];
		ths[i].rs = splitmix(&x) | 1;
		/*
		 * Before any thread opens or closes: a stale number of the
		 * table is then never one of these.
		 */
		ths[i].epfd = epoll_create1(EPOLL_CLOEXEC);
	}
	for (i = 0; i < g_threads; i++) {
		if (pthread_create(&ths[i].tid, NULL,
				   chaos ? chaos_main : strict_main, &ths[i])) {
			out("# pthread_create: %s\n", strerror(errno));
			return 2;
		}
	}
	if (chaos) {
		/* Interrupt blocked reads and polls now and then. */
		uint64_t rs = g_seed ^ 0xabcdef ^ proc;

		while (!time_up()) {
			twt_sleep_ns(20 * MS + twt_rand(&rs) % (80 * MS));
			for (i = 0; i < g_threads; i++)
				pthread_kill(ths[i].tid, SIGUSR1);
		}
		/* Until every thread is out of a blocking call. */
		for (i = 0; i < g_threads; i++) {
			struct timespec until;

			for (;;) {
				int k;

				clock_gettime(CLOCK_REALTIME, &until);
				until.tv_nsec += 50 * MS;
				if (until.tv_nsec >= S) {
					until.tv_sec++;
					until.tv_nsec -= S;
				}
				if (!pthread_timedjoin_np(ths[i].tid, NULL, &until))
					break;
				for (k = 0; k < g_threads; k++)
					pthread_kill(ths[k].tid, SIGUSR1);
			}
		}
	} else {
		for (i = 0; i < g_threads; i++)
			pthread_join(ths[i].tid, NULL);
	}
	__atomic_store_n(&g_stats[proc].done, 1, __ATOMIC_RELAXED);
	return 0;
}

static bool handshake(void)
{
	struct twheel_info in;
	int fd = open(TWT_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		out("# open %s: %s\n", TWT_DEV, strerror(errno));
		return false;
	}
	memset(&in, 0, sizeof(in));
	if (ioctl(fd, TWHEEL_IOC_INFO, &in)) {
		out("# INFO: %s\n", strerror(errno));
		close(fd);
		return false;
	}
	close(fd);
	out("# module: ABI version %u, record %u, op %u, status %u bytes, "
	    "max_timers %llu\n", in.version, in.event_size, in.op_size,
	    in.status_size, in.max_timers);
	return in.version == TWHEEL_ABI_VERSION && in.event_size == EV &&
	       in.op_size == sizeof(struct twheel_op) &&
	       in.status_size == sizeof(struct twheel_status);
}

static void usage(void)
{
	out("usage: twfuzz [-s SEED] [-t SECONDS] [-j PROCS] [-T THREADS] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct stats sum;
	pid_t *pids;
	bool seeded = false, hang = false, crashed = false;
	long long old_param;
	int failed = 0, c, i, k;
	char val[32];
	struct timespec ts;
	s64 t_start;

	setvbuf(stdout, NULL, _IONBF, 0);
	while ((c = getopt(argc, argv, "s:t:j:T:v")) != -1) {
		switch (c) {
		case 's':
			g_seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 't':
			g_seconds = atoi(optarg);
			break;
		case 'j':
			g_procs = atoi(optarg);
			break;
		case 'T':
			g_threads = atoi(optarg);
			break;
		case 'v':
			g_verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (g_seconds < 1 || g_procs < 1 || g_procs > 64 || g_threads < 1 ||
	    g_threads > 32)
		usage();
	if (!seeded) {
		clock_gettime(CLOCK_REALTIME, &ts);
		g_seed = ((u64)ts.tv_sec << 20) ^ ts.tv_nsec ^
			 ((u64)getpid() << 40);
	}
	g_pg = sysconf(_SC_PAGESIZE);
	/* The alarm clocks need CAP_WAKE_ALARM: root's. */
	if (geteuid() != 0)
		g_nclk = 4;
	out("# twfuzz: seed %#llx seconds %d procs %d threads %d "
	    "(rerun: twfuzz -s %#llx -t %d -j %d -T %d)\n", g_seed,
	    g_seconds, g_procs, g_threads, g_seed, g_seconds, g_procs, g_threads);
	if (!handshake()) {
		out("not ok %s/handshake\n", PROG);
		return 1;
	}
	out("ok %s/handshake\n", PROG);

	/* Every fd opened from now on: at most 8192 timers (memory). */
	old_param = twt_sysfs_read(PARAM);
	twt_sysfs_write(PARAM, "8192");
	g_shared[0] = open(TWT_DEV, O_RDWR | O_NONBLOCK);
	g_shared[1] = open(TWT_DEV, O_RDWR | O_NONBLOCK);
	if (g_shared[0] < 0 || g_shared[1] < 0 ||
	    twt_config_raw(g_shared[1], 10 * TWHEEL_MIN_TICK_NS,
			   TWHEEL_CONFIG_MANUAL)) {
		out("# shared fds: %s\n", strerror(errno));
		return 1;
	}
	g_stats = mmap(NULL, sizeof(*g_stats) * g_procs, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(g_procs, sizeof(*pids));
	if (g_stats == MAP_FAILED || !pids)
		return 2;
	memset(g_stats, 0, sizeof(*g_stats) * g_procs);
	t_start = mono();
	g_end_ns = t_start + (s64)g_seconds * S;
	for (i = 0; i < g_procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			out("# fork: %s\n", strerror(errno));
			return 2;
		}
		if (pids[i] == 0)
			_exit(run_process(i));
	}
	close(g_shared[0]);
	close(g_shared[1]);

	/* Wait, with a generous bound for the end-of-run drains. */
	for (k = 0; k < g_procs; ) {
		int status;
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p > 0) {
			for (i = 0; i < g_procs; i++)
				if (pids[i] == p)
					break;
			if (i < g_procs &&
			    (!WIFEXITED(status) || WEXITSTATUS(status))) {
				out("# process %d: %s %d\n", i,
				    WIFSIGNALED(status) ? "killed by signal" :
				    "exit status", WIFSIGNALED(status) ?
				    WTERMSIG(status) : WEXITSTATUS(status));
				crashed = true;
			}
			k++;
			continue;
		}
		if (mono() > g_end_ns + 300 * S) {
			out("# processes still running 300 s after the end: "
			    "killed (a blocked call?)\n");
			for (i = 0; i < g_procs; i++)
				kill(pids[i], SIGKILL);
			hang = true;
			while (waitpid(-1, NULL, 0) > 0)
				;
			break;
		}
		twt_sleep_ms(100);
	}
	if (old_param > 0) {
		snprintf(val, sizeof(val), "%lld", old_param);
		twt_sysfs_write(PARAM, val);
	}

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < g_procs; i++) {
		u64 *a = (u64 *)&sum, *b = (u64 *)&g_stats[i];

		for (k = 0; k < (int)(sizeof(sum) / sizeof(u64)); k++)
			a[k] += b[k];
		if (g_verbose)
			out("# process %d (%s): add %llu read %llu"
			    " records %llu created %llu\n", i,
			    g_procs > 1 && i % 2 ? "chaos" : "strict",
			    g_stats[i].ops[K_ADD], g_stats[i].ops[K_READ],
			    g_stats[i].records + g_stats[i].chaos_records,
			    g_stats[i].created);
	}
	{
		char line[1024];
		int len = 0;
		u64 total = 0;

		for (k = 0; k < K_NKINDS; k++) {
			len += snprintf(line + len, sizeof(line) - len, " %s %llu",
					kind_name[k], sum.ops[k]);
			total += sum.ops[k];
		}
		out("# %.0f s, %llu operations:%s\n",
		    (mono() - t_start) / 1e9, total, line);
	}
	out("# expected failures (documented errno) %llu, bad pointers %"
	    "llu, exact model checks %llu\n", sum.invalid,
	    sum.faults, sum.exact_checks);
	out("# strict: timers created %llu (real clocks %llu), records read "
	    "%llu (real clocks %llu, periodic %llu); ended by read %llu, "
	    "by cancel %llu, by close %llu\n", sum.created,
	    sum.real_created, sum.records, sum.real_records,
	    sum.periodic_records, sum.ended_read, sum.ended_cancel,
	    sum.ended_close);
	out("# chaos: timers created %llu, records read %llu; tables mapped "
	    "%llu, entries stored %llu\n", sum.chaos_created,
	    sum.chaos_records, sum.table_maps, sum.table_stores);
	out("# early %llu lost %llu duplicate %llu"
	    " oracle violations %llu errno violations %llu\n",
	    sum.early, sum.lost, sum.dup, sum.oracle, sum.errno_bad);

#define TAP(cond, name) do {						\
	bool _ok = (cond);						\
	out("%s %s/%s\n", _ok ? "ok" : "not ok", PROG, (name));		\
	failed += !_ok;							\
} while (0)
	for (i = 0, k = 0; i < g_procs; i++)
		k += !g_stats[i].done;
	TAP(!hang && !crashed && !k, "processes_finished");
	TAP(sum.early == 0, "no_early");
	TAP(sum.lost == 0, "no_lost");
	TAP(sum.dup == 0, "no_duplicate");
	TAP(sum.oracle == 0, "oracle");
	TAP(sum.errno_bad == 0, "documented_errnos");
	/* Every timer of a strict fd ended exactly once. */
	TAP(sum.created == sum.ended_read + sum.ended_cancel + sum.ended_close,
	    "every_timer_ends_once");
	{
		bool all = sum.created > 0 && sum.records > 0;

		for (k = 0; k < K_NKINDS; k++)
			if (!sum.ops[k] && !(k == K_FORK && g_procs < 2))
				all = false;
		TAP(all, "every_kind_ran");
	}
	if (failed)
		out("# FAILED: seed %#llx (twfuzz -s %#llx -t %d -j "
		    "%d -T %d)\n", g_seed, g_seed, g_seconds, g_procs, g_threads);
	return failed ? 1 : 0;
}
