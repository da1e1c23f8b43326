// SPDX-License-Identifier: GPL-2.0
/*
 * wheel_test.c - native run of the wheel's directed cases and seeded
 * random differential test against the reference model (wheel_ref.h).
 *
 *   wheel_test [SEED [OPS [RUNS]]]
 *
 * SEED (default: from the clock, printed) seeds run 0; run i uses SEED + i
 * and prints it, so "wheel_test SEED_i OPS 1" replays one run. OPS is the
 * number of operations per random run (default 200000), RUNS the number of
 * runs (default 8). Exits 1 on the first mismatch of a case, after the
 * summary line "wheel_test: N passed, M failed".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "twheel_wheel.h"
#include "wheel_ref.h"

static u64 seed_from_clock(void)
{
	struct timespec ts;
	u64 z;

	clock_gettime(CLOCK_REALTIME, &ts);
	z = (u64)ts.tv_sec * 1000000007ULL ^ (u64)ts.tv_nsec;
	z ^= z >> 29;
	z *= 0xbf58476d1ce4e5b9ULL;
	return z ^ (z >> 32);
}

static void print_stats(const struct wref *r)
{
	printf("    ops %llu: add %llu, remove %llu, advance %llu, next %llu, forward %llu (moved %llu)\n",
	       r->st.ops, r->st.adds, r->st.removes, r->st.advances,
	       r->st.nexts, r->st.forwards, r->st.forwarded);
	printf("    handed back %llu (max %llu in one advance), layouts %llu, restarts %llu\n",
	       r->st.handed, r->st.max_handed, r->st.layouts, r->st.resets);
	printf("    advances stopped by their budget %llu, take_all %llu, holds %llu\n",
	       r->st.partial, r->st.take_alls, r->st.holds);
	printf("    levels: given %llu, taken back %llu; stops for a level %llu (left waiting %llu)\n",
	       r->st.given, r->st.taken, r->st.level_stops,
	       r->st.level_waits);
	printf("    re-keyed by a cascade %llu (%llu more to a missing level)\n",
	       r->st.rekeys, r->st.rekeys_ignored);
	printf("    parked %llu (at most %u at once), removed %llu;",
	       r->st.parks, r->st.max_parked, r->st.parked_removes);
	printf(" take_parked %llu, gave back %llu\n", r->st.take_parkeds,
	       r->st.took_parked);
	printf("    live: %llu on average, %u at most\n",
	       r->st.advances ? r->st.live_sum / r->st.advances : 0,
	       r->st.max_live);
}

int main(int argc, char **argv)
{
	static const u32 objs[] = { 4096, 64, 1024, 16 };
	u64 seed = argc > 1 ? strtoull(argv[1], NULL, 0) : seed_from_clock();
	u64 nops = argc > 2 ? strtoull(argv[2], NULL, 0) : 200000;
	unsigned int runs = argc > 3 ? (unsigned int)strtoul(argv[3], NULL, 0) : 8;
	unsigned int i, passed = 0, failed = 0;
	u64 total = 0;
	struct wref *r;

	if (sizeof(struct twheel_entry) > 32) {
		printf("struct twheel_entry is %zu bytes (> 32)\n",
		       sizeof(struct twheel_entry));
		failed++;
	}
	printf("wheel_test: seed 0x%llx, %u random runs of %llu ops\n",
	       seed, runs, nops);
	if (sizeof(struct twheel_level) != TWHEEL_SLOTS * sizeof(void *)) {
		printf("struct twheel_level is %zu bytes (not 64 pointers)\n",
		       sizeof(struct twheel_level));
		failed++;
	}
	printf("wheel_test: struct twheel_entry %zu bytes, struct twheel_wheel %zu bytes, struct twheel_level %zu bytes\n",
	       sizeof(struct twheel_entry), sizeof(struct twheel_wheel),
	       sizeof(struct twheel_level));

	for (i = 0; i < ARRAY_SIZE(wref_cases); i++) {
		r = wref_alloc(WREF_CASE_OBJS, 0);
		if (!r) {
			perror("wref_alloc");
			return 2;
		}
		if (wref_cases[i].fn(r) || r->failed) {
			printf("FAIL %s: %s\n", wref_cases[i].name, r->msg);
			failed++;
		} else {
			printf("ok   %s\n", wref_cases[i].name);
			passed++;
		}
		total += r->st.ops;
		wref_free(r);
	}

	for (i = 0; i < runs; i++) {
		u64 s = seed + i;

		r = wref_alloc(objs[i % ARRAY_SIZE(objs)], 0);
		if (!r) {
			perror("wref_alloc");
			return 2;
		}
		if (wref_run(r, s, nops)) {
			printf("FAIL random seed 0x%llx (%u objects): %s\n", s,
			       r->nobj, r->msg);
			printf("     after %llu ops; replay: %s 0x%llx %llu 1\n",
			       r->st.ops, argv[0], s, nops);
			failed++;
		} else {
			printf("ok   random seed 0x%llx (%u objects)\n", s,
			       r->nobj);
			passed++;
		}
		print_stats(r);
		total += r->st.ops;
		wref_free(r);
	}
	printf("wheel_test: %llu operations checked\n", total);
	printf("wheel_test: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
