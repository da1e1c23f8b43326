// SPDX-License-Identifier: GPL-2.0
/*
 * lateness: a timer never fires early. 10 000 timers with random absolute
 * deadlines 1..2000 ms ahead on all four clocks (exact deadlines, so the
 * check is rigorous), then relative ones against a conservative bound.
 * Prints the lateness distribution as "# lateness ..." lines; the only
 * upper bound asserted is a generous 2 s (TCG VMs are slow).
 */
#include "twtest.h"

#define N_ABS		10000
#define N_REL		3000
#define MAX_LATE_NS	(2 * TWT_S)

static void never_early_abs(void)
{
	static int64_t dl[N_ABS], late[N_ABS];
	static int64_t late_c[TWT_NCLOCKS][N_ABS];
	static unsigned char got[N_ABS];
	static struct twheel_event ev[512];
	int fd = twt_open(0);
	uint64_t seed = 0x5EED;
	int64_t tadd, end;
	size_t nl[TWT_NCLOCKS] = { 0 };
	int i, n = 0, early = 0;
	int64_t worst_early = 0;

	tadd = twt_mono();
	for (i = 0; i < N_ABS; i++) {
		clockid_t c = twt_clock(i % TWT_NCLOCKS);

		/* Exact: the clock just before the add plus 1..2000 ms. */
		dl[i] = twt_now(c) + TWT_MS +
			(int64_t)(twt_rand(&seed) % (1999 * TWT_MS + 1));
		twt_add_abs(fd, i, dl[i], c);
	}
	tadd = twt_mono() - tadd;
	printf("# %d adds took %.1f ms\n", N_ABS, tadd / 1e6);
	end = twt_mono() + 60 * TWT_S;
	while (n < N_ABS) {
		ssize_t r;
		int64_t now[TWT_NCLOCKS];
		int k;

		CHECK(twt_mono() < end);
		r = read(fd, ev, sizeof(ev));
		for (k = 0; k < TWT_NCLOCKS; k++)
			now[k] = twt_now(twt_clock(k));
		CHECK(r > 0 && r % TWT_EV_SIZE == 0);
		for (k = 0; k < r / TWT_EV_SIZE; k++) {
			int c = (int)ev[k].cookie, clk;

			CHECK(ev[k].cookie < N_ABS);
			CHECK(!got[c]);
			got[c] = 1;
			clk = c % TWT_NCLOCKS;
			CHECK_EQ(ev[k].clock, twt_clock(clk));
			CHECK_EQ(ev[k].count, 1);
			CHECK_EQ(ev[k].flags, 0);
			CHECK(ev[k].time_ns <= now[clk]);
			if (ev[k].time_ns < dl[c]) {
				early++;
				if (dl[c] - ev[k].time_ns > worst_early)
					worst_early = dl[c] - ev[k].time_ns;
				printf("# EARLY: timer %d (%s) by %lld ns\n", c,
				       twt_clockname(twt_clock(clk)),
				       (long long)(dl[c] - ev[k].time_ns));
			}
			late[n] = ev[k].time_ns - dl[c];
			late_c[clk][nl[clk]++] = late[n];
			n++;
		}
	}
	CHECK_EQ(twt_timers(fd), 0);
	twt_print_dist("lateness all clocks (time_ns - deadline)", late, N_ABS);
	for (i = 0; i < TWT_NCLOCKS; i++) {
		char label[64];

		snprintf(label, sizeof(label), "lateness %s",
			 twt_clockname(twt_clock(i)));
		twt_print_dist(label, late_c[i], nl[i]);
	}
	if (early)
		twt_fail(__FILE__, __LINE__, "%d of %d timers fired early (worst %lld ns)",
			 early, N_ABS, (long long)worst_early);
	/* late[] is sorted now. */
	CHECK(late[0] >= 0);
	CHECK(late[N_ABS - 1] <= MAX_LATE_NS);
	close(fd);
}

/*
 * Relative deadlines, on all four clocks (relative CLOCK_REALTIME and
 * CLOCK_TAI are allowed since ABI version 2): the true deadline is at
 * least the clock read before the ioctl plus the delay, so time_ns below
 * that is certainly early.
 */
static void never_early_rel(void)
{
	static int64_t lo[N_REL], late[N_REL];
	static struct twheel_event ev[N_REL];
	int fd = twt_open(0);
	uint64_t seed = 0xFACE;
	int i, early = 0;

	for (i = 0; i < N_REL; i++) {
		clockid_t c = twt_clock(i % TWT_NCLOCKS);
		int64_t d = TWT_MS + (int64_t)(twt_rand(&seed) % (1999 * TWT_MS + 1));

		if (i % 100 == 0)
			d = i % 200 ? 1 : 0;	/* a few at once */
		lo[i] = twt_now(c) + d;
		twt_add(fd, i, d, 0, c);
	}
	twt_read_n(fd, ev, N_REL, 60000);
	for (i = 0; i < N_REL; i++) {
		int c = (int)ev[i].cookie;

		CHECK(ev[i].cookie < N_REL);
		CHECK_EQ(ev[i].clock, twt_clock(c % TWT_NCLOCKS));
		if (ev[i].time_ns < lo[c]) {
			early++;
			printf("# EARLY: timer %d by at least %lld ns\n", c,
			       (long long)(lo[c] - ev[i].time_ns));
		}
		late[i] = ev[i].time_ns - lo[c];
	}
	twt_print_dist("lateness relative (upper bound: from before the ioctl)",
		       late, N_REL);
	CHECK_EQ(early, 0);
	CHECK(late[N_REL - 1] <= MAX_LATE_NS + 10 * TWT_MS);
	close(fd);
}

/* A single timer, repeated: the latency a lone timer sees. */
static void single_timer_latency(void)
{
	int fd = twt_open(0);
	int64_t late[50];
	int i;

	for (i = 0; i < 50; i++) {
		struct twheel_event ev;
		int64_t dl = twt_mono() + 3 * TWT_MS + (i * 37 % 1000) * TWT_US;

		twt_add_abs(fd, i, dl, CLOCK_MONOTONIC);
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
		CHECK_EQ(ev.cookie, i);
		CHECK(ev.time_ns >= dl);
		late[i] = ev.time_ns - dl;
	}
	twt_print_dist("lateness single timer", late, 50);
	CHECK(late[49] <= MAX_LATE_NS);
	close(fd);
}

TWT_MAIN("lateness",
	 TWT_CASE_T(never_early_abs, 120),
	 TWT_CASE_T(never_early_rel, 90),
	 TWT_CASE(single_timer_latency))
