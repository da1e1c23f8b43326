// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_util.c - small helpers of twfuzz (output, random numbers, clock
 * readings, tick arithmetic, ioctl), a thread's operation log and the
 * report of a violation. A violation prints the seed and the tail of the
 * offending thread's operation log.
 */
#include "twfuzz.h"

static int g_printed;		/* violations printed by this process */

/* ------------------------------------------------------------------ */
/* Small helpers */

void out(const char *fmt, ...)
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

u64 splitmix(u64 *x)
{
	u64 z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

u64 rnd64(struct th *th)
{
	return twt_rand(&th->rs);
}

/* Uniform enough in [0, n) (n > 0); 0 for n == 0. */
u64 rnd(struct th *th, u64 n)
{
	return n ? rnd64(th) % n : 0;
}

bool chance(struct th *th, unsigned int pct)
{
	return rnd(th, 100) < pct;
}

s64 mono(void)
{
	return twt_mono();
}

bool time_up(void)
{
	return mono() >= g_end_ns;
}

int clk_index(uint32_t clock)
{
	int i;

	for (i = 0; i < NCLK; i++)
		if ((uint32_t)g_clocks[i] == clock)
			return i;
	return -1;
}

void sample(struct tsamp *s)
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

s64 add_sat(s64 a, s64 b)
{
	s64 r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* The header's deadline tick: ceil(ns / tick), 0 at or before 0. */
u64 dl_tick(s64 ns, u64 tick)
{
	if (ns <= 0)
		return 0;
	return (u64)ns / tick + ((u64)ns % tick != 0);
}

u64 now_tick(s64 ns, u64 tick)
{
	return ns <= 0 ? 0 : (u64)ns / tick;
}

s64 tick_ns(u64 t, u64 tick)
{
	if (t > (u64)INT64_MAX / tick)
		return INT64_MAX;
	return (s64)(t * tick);
}

s64 roundup_tick(s64 ns, u64 tick)
{
	return tick_ns(dl_tick(ns, tick), tick);
}

/* A period as the fd takes it: 0, or one tick to 2^62 - 1 ns. */
u64 eff_period(u64 p, u64 tick)
{
	const u64 longest = (1ULL << 62) - 1;

	if (!p)
		return 0;
	if (p < tick)
		return tick;
	return p > longest ? longest : p;
}

/* Expiries a queued periodic timer of deadline d stands for at now. */
u64 pcount(s64 d, u64 p, s64 now)
{
	if (now <= d)
		return 1;
	return 1 + ((u64)now - (u64)d) / p;
}

/*
 * d + n * p, saturating at INT64_MAX. The step may exceed INT64_MAX when d
 * is far in the past; INT64_MAX - d and the sum are exact in u64.
 */
s64 periods_after(s64 d, u64 n, u64 p)
{
	u64 step;

	if (__builtin_mul_overflow(n, p, &step) ||
	    step > (u64)INT64_MAX - (u64)d)
		return INT64_MAX;
	return (s64)((u64)d + step);
}

long xioctl(int fd, unsigned long cmd, void *arg)
{
	errno = 0;
	return ioctl(fd, cmd, arg);
}

/* ------------------------------------------------------------------ */
/* The operation log and violations */

void tlog(struct th *th, const char *fmt, ...)
{
	char *b = th->log[th->logi++ % LOGN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, LOGW, fmt, ap);
	va_end(ap);
}

void violation(struct th *th, struct sfd *f, enum vkind k,
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
void bad_errno(struct th *th, struct sfd *f, const char *call,
	       long ret, int err, const char *want)
{
	violation(th, f, V_ERRNO, "%s returned %ld errno %d (%s), want %s",
		  call, ret, err, strerror(err), want);
}
