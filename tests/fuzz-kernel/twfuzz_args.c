// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_args.c - what a call of twfuzz is given: argument memory (where
 * an argument goes, by kind of pointer, and the outcome a call on it must
 * have) and random values (clocks, delays, deadlines, periods, flags,
 * cookies).
 */
#include "twfuzz.h"

/* ------------------------------------------------------------------ */
/* Argument memory: where an argument goes, by kind of pointer */

const char *const pk_name[P_NKINDS] = {
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
bool expect_call(struct th *th, struct sfd *f, const char *what,
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

void th_mem_init(struct th *th)
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

enum ptrkind pick_pk(struct th *th, unsigned int bad_pct)
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
void *arr_at(struct th *th, enum ptrkind pk, const void *src,
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
void *arg_at(struct th *th, enum ptrkind pk, const void *src,
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

uint32_t valid_clock(struct th *th)
{
	return g_clocks[rnd(th, g_nclk)];
}

/*
 * May a timer of @clock be given TWHEEL_CANCEL_ON_SET with @flags? Only
 * absolute on a wall clock: EINVAL otherwise.
 */
bool cos_ok(uint32_t clock, uint32_t flags)
{
	return (flags & TWHEEL_ABSTIME) &&
	       (clock == CLOCK_REALTIME || clock == CLOCK_TAI ||
		clock == CLOCK_REALTIME_ALARM);
}

uint32_t bad_clock(struct th *th)
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
s64 gen_rel(struct th *th, u64 tick, bool manual)
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
s64 gen_abs(struct th *th, u64 tick, bool manual, s64 now)
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

u64 gen_period(struct th *th, u64 tick, bool manual)
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

uint32_t unknown_bits(struct th *th, uint32_t known)
{
	uint32_t b;

	do {
		b = chance(th, 50) ? 1U << rnd(th, 32) : (uint32_t)rnd64(th);
	} while (!(b & ~known));
	return b;
}

u64 new_cookie(struct th *th)
{
	return ((u64)(th->proc + 1) << 56) | ((u64)th->idx << 48) |
	       ++th->cookie_ctr;
}
