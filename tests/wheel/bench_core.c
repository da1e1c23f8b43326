// SPDX-License-Identifier: GPL-2.0
/*
 * bench_core.c - cost of the twheel wheel core against two baselines: the
 * harness (workloads, timing, the tables, the callgrind modes and main()).
 *
 * For N outstanding entries with deadlines uniform over [1000, 10^7] ticks
 * (1 ms .. 10 s at 1 us per tick), clock starting at 0, it measures per
 * structure:
 *   add     N adds into an empty structure, ns per add;
 *   remove  N removes, in a random order, from the full structure (so of
 *           sizes N down to 1), ns per remove;
 *   expire  the N entries re-added, then the clock advanced from 0 to 10^7
 *           in steps of 1000 ticks (a 1 kHz periodic caller: 10^4 advance
 *           calls), the caller reading each handed-back entry; ns per
 *           entry handed back, all advance calls included.
 * Each (N, structure) is measured BENCH_REPS times (median, min-max), all
 * three structures on the same deadlines and removal order in each rep.
 * Timing is clock_gettime(CLOCK_MONOTONIC) around whole loops only.
 *
 * The structures, one file each (each with a run of the workload above
 * and one of the timeout.c workload below): twheel in bench_core_twheel.c,
 * heap in bench_core_heap.c, hwN (hw512 and hw64k) in bench_core_hwheel.c;
 * bench_core.h holds what the files share.
 *
 * A second table runs the workload shape of the benchmark that comes with
 * William Ahern's timeout.c (a hierarchical timing wheel library for
 * event loops): fill with N timeouts of random deadlines, cancel part of
 * them, then expire the rest stepping the clock one tick at a time. Here:
 *   add     N adds, deadlines uniform over [1, 60000] ticks (one minute of
 *           1 ms ticks), clock at 0;
 *   cancel  a random half of them removed, in random order;
 *   expire  the clock advanced 1 tick per call, 1 .. 60000, each entry
 *           handed back read; ns per entry handed back (N / 2), all
 *           60000 calls included;
 *   life    (add + cancel + expire time) / N: the whole life of a timer.
 * The same four structures, all at every N (the span is 60000 ticks, so
 * hw512 visits each entry about 59 times, not 10^4).
 * Only the shape is taken from timeout.c: no code of it is used or copied.
 * Written for this benchmark; no code taken from elsewhere.
 *
 * Modes:
 *   bench_core [-r REPS] [-n N] [-o FILE]   timing table
 *   bench_core -c [-n N]      one rep per structure under callgrind, with
 *                             instrumentation on only around each loop and
 *                             a dump per (structure, op)
 *   bench_core -C DIR [-n N] [-o FILE]   instructions/op table from DIR
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_core.h"

#define MAX_REPS	64

static u64 rng_state;

static u64 rnd64(void)
{
	u64 z;

	rng_state += 0x9e3779b97f4a7c15ULL;
	z = rng_state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 rnd_below(u64 n)
{
	return (u64)(((unsigned __int128)rnd64() * n) >> 64);
}

/* Set by bench_cg(): then phase_start() and phase_end() act. */
int cg_mode;

void check(const char *what, u64 got_n, u64 want_n, u64 got_sum,
	   u64 want_sum)
{
	if (got_n != want_n || got_sum != want_sum) {
		fprintf(stderr, "bench_core: %s handed back %llu (sum %llu), want %llu (sum %llu)\n",
			what, got_n, got_sum, want_n, want_sum);
		exit(3);
	}
}

/*
 * Touch every page of a fresh allocation, so that the timed loops of the
 * timeout.c workload do not pay its first-touch page faults.
 */
void prefault(void *p, size_t len)
{
	volatile char *c = p;
	size_t off;

	for (off = 0; off < len; off += 4096)
		c[off] = 0;	/* volatile: not dropped as a store of zero */
}

/* ------------------------------------------------------------------ */

/* The structures measured; a max_n of 0 means every N. */
struct bench_struct {
	char name[16];
	int kind;		/* 0 twheel, 1 heap, 2 hashed wheel */
	u32 slots;		/* hashed wheel only */
	u32 max_n;
	bool in_cg;		/* also measured under callgrind */
};

#define NSTRUCT		4
static struct bench_struct structs[NSTRUCT] = {
	{ "twheel", 0, 0, 0, true },
	{ "heap", 1, 0, 0, true },
	{ "hw512", 2, 512, 10000, true },	/* Netty's default size */
	{ "hw64k", 2, 65536, 0, true },
};

static void run_struct(const struct bench_struct *b, const struct work *wk,
		       struct res *res)
{
	if (b->kind == 0)
		run_twheel(wk, res);
	else if (b->kind == 1)
		run_heap(wk, res);
	else
		run_hwheel(wk, res, b->slots, b->name);
}

static bool struct_runs(const struct bench_struct *b, u32 n)
{
	return !b->max_n || n <= b->max_n;
}

static void make_work(struct work *wk, u32 n, u64 seed)
{
	u32 i, j, x;

	wk->n = n;
	wk->dl = xcalloc(n, sizeof(*wk->dl));
	wk->perm = xcalloc(n, sizeof(*wk->perm));
	wk->sum = 0;
	rng_state = seed;
	for (i = 0; i < n; i++) {
		wk->dl[i] = DL_MIN + rnd_below(DL_MAX - DL_MIN + 1);
		wk->sum += wk->dl[i];
		wk->perm[i] = i;
	}
	for (i = n - 1; i > 0; i--) {
		j = (u32)rnd_below(i + 1);
		x = wk->perm[i];
		wk->perm[i] = wk->perm[j];
		wk->perm[j] = x;
	}
}

static void free_work(struct work *wk)
{
	free(wk->dl);
	free(wk->perm);
}

/* The timeout.c workload: deadlines over [1, TO_MAX], a random cancel set. */
static void make_work_to(struct work *wk, u32 n, u64 seed)
{
	u32 i;

	make_work(wk, n, seed);		/* for the random order */
	for (i = 0; i < n; i++)
		wk->dl[i] = 1 + rnd_below(TO_MAX);
	wk->sum = 0;
	for (i = to_ncancel(n); i < n; i++)
		wk->sum += wk->dl[wk->perm[i]];
}

static void run_struct_to(const struct bench_struct *b, const struct work *wk,
			  struct res *res)
{
	if (b->kind == 0)
		run_twheel_to(wk, res);
	else if (b->kind == 1)
		run_heap_to(wk, res);
	else
		run_hwheel_to(wk, res, b->slots);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* "median [min-max]" of @n values. */
static void stat_str(char *buf, size_t len, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	snprintf(buf, len, "%8.1f [%.1f-%.1f]",
		 n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0],
		 v[n - 1]);
}

static FILE *out_file;

static __printf(1, 2) void emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (out_file) {
		va_start(ap, fmt);
		vfprintf(out_file, fmt, ap);
		va_end(ap);
	}
}

/* The second table: the timeout.c-shaped workload, every structure. */
static void bench_time_to(const u32 *ns, int nn, int reps)
{
	static double v[NSTRUCT][4][MAX_REPS];
	struct work wk;
	char s[4][64];
	struct res r;
	int in, k, rep;

	emit("\nbench-core, timeout.c workload: ns per operation, median of %d repetitions [min-max]\n",
	     reps);
	emit("  the shape of the benchmark of W. Ahern's timeout.c (reimplemented, no code taken):\n");
	emit("  add: N adds, deadlines uniform over [1, %llu] ticks (1 ms ticks: up to a minute),\n",
	     TO_MAX);
	emit("       clock at 0; cancel: a random %u%% of them removed, random order, ns per cancel;\n",
	     TO_CANCEL_PCT);
	emit("  expire: the clock advanced 1 tick per call, 1 .. %llu, ns per entry handed back,\n",
	     TO_MAX);
	emit("          all %llu calls included; life: (add + cancel + expire) / N, ns per timer\n",
	     TO_MAX);
	emit("  every structure at every N (in hwN an entry of deadline d is visited\n"
	     "  d / N + 1 times: about 59 times in hw512, once in hw64k)\n");
	emit("\n%9s  %-7s  %-24s  %-24s  %-24s  %-24s\n", "N", "struct",
	     "add ns/op", "cancel ns/op", "expire ns/entry", "life ns/timer");
	for (in = 0; in < nn; in++) {
		for (rep = 0; rep < reps; rep++) {
			make_work_to(&wk, ns[in], 0x746fULL * (rep + 1) + ns[in]);
			for (k = 0; k < NSTRUCT; k++) {
				run_struct_to(&structs[k], &wk, &r);
				v[k][0][rep] = r.add;
				v[k][1][rep] = r.remove;
				v[k][2][rep] = r.expire;
				v[k][3][rep] = r.life;
			}
			free_work(&wk);
		}
		for (k = 0; k < NSTRUCT; k++) {
			stat_str(s[0], sizeof(s[0]), v[k][0], reps);
			stat_str(s[1], sizeof(s[1]), v[k][1], reps);
			stat_str(s[2], sizeof(s[2]), v[k][2], reps);
			stat_str(s[3], sizeof(s[3]), v[k][3], reps);
			emit("%9u  %-7s  %-24s  %-24s  %-24s  %-24s\n", ns[in],
			     structs[k].name, s[0], s[1], s[2], s[3]);
		}
		fflush(stdout);
	}
}

static int bench_time(const u32 *ns, int nn, int reps)
{
	static double v[NSTRUCT][3][MAX_REPS];
	double one, huge;
	char s[3][64];
	struct work wk;
	struct res r;
	int in, k, rep;

	emit("bench-core: ns per operation, median of %d repetitions [min-max]\n",
	     reps);
	emit("  deadlines uniform over [%llu, %llu] ticks (1 us ticks: 1 ms .. 10 s), clock from 0\n",
	     DL_MIN, DL_MAX);
	emit("  add: N adds to an empty structure; remove: the N removed in random order;\n");
	emit("  expire: N re-added, clock advanced 0 -> 10^7 in 1000-tick (1 ms) steps,\n");
	emit("          per entry handed back, all 10^4 advance calls included\n");
	emit("  twheel: kmod/twheel_wheel.c; heap: binary min-heap, index-tracked remove;\n");
	emit("  hwN: single-level hashed wheel with rounds (Netty-style), N one-tick slots;\n");
	for (k = 0; k < NSTRUCT; k++)
		if (structs[k].max_n)
			emit("  %s timed only up to N = %u: it visits each entry once per turn, about\n"
			     "        N * 5e6 / %u visits in all, %.0e at N = 10^5 (see the callgrind table)\n",
			     structs[k].name, structs[k].max_n, structs[k].slots,
			     1e5 * 5e6 / structs[k].slots);
	emit("\n%9s  %-7s  %-24s  %-24s  %-24s\n", "N", "struct", "add ns/op",
	     "remove ns/op", "expire ns/entry");
	for (in = 0; in < nn; in++) {
		for (rep = 0; rep < reps; rep++) {
			make_work(&wk, ns[in], 0x7477ULL * (rep + 1) + ns[in]);
			for (k = 0; k < NSTRUCT; k++) {
				if (!struct_runs(&structs[k], ns[in]))
					continue;
				run_struct(&structs[k], &wk, &r);
				v[k][0][rep] = r.add;
				v[k][1][rep] = r.remove;
				v[k][2][rep] = r.expire;
			}
			free_work(&wk);
		}
		for (k = 0; k < NSTRUCT; k++) {
			if (!struct_runs(&structs[k], ns[in]))
				continue;
			stat_str(s[0], sizeof(s[0]), v[k][0], reps);
			stat_str(s[1], sizeof(s[1]), v[k][1], reps);
			stat_str(s[2], sizeof(s[2]), v[k][2], reps);
			emit("%9u  %-7s  %-24s  %-24s  %-24s\n", ns[in],
			     structs[k].name, s[0], s[1], s[2]);
		}
		fflush(stdout);
	}
	idle_jump(&one, &huge);
	emit("\ntwheel advance() over an empty wheel: %.1f ns for 1 tick, %.1f ns for 10^12 ticks\n",
	     one, huge);
	bench_time_to(ns, nn, reps);
	return 0;
}

/* Callgrind mode: one rep of each structure at one N. */
static int bench_cg(u32 n)
{
	struct work wk;
	struct res r;
	int k;

	cg_mode = 1;
	make_work(&wk, n, 0x7477ULL + n);
	for (k = 0; k < NSTRUCT; k++)
		if (structs[k].in_cg)
			run_struct(&structs[k], &wk, &r);
	free_work(&wk);
	return 0;
}

/* Read the instruction count of the dump labelled @label in @dir. */
static long long cg_read(const char *dir, const char *label)
{
	char path[4096], line[4096], want[320];
	long long ir = -1, v;
	int part, match;
	FILE *f;

	snprintf(want, sizeof(want), "desc: Trigger: Client Request: %s\n",
		 label);
	for (part = 1; part < 1000; part++) {
		snprintf(path, sizeof(path), "%s/cg.out.%d", dir, part);
		f = fopen(path, "r");
		if (!f)
			break;
		match = 0;
		while (fgets(line, sizeof(line), f)) {
			if (!strcmp(line, want))
				match = 1;
			if (match && sscanf(line, "summary: %lld", &v) == 1)
				ir = v;
		}
		fclose(f);
		if (match)
			return ir;
	}
	return -1;
}

static int bench_cg_table(const char *dir, u32 n)
{
	static const char *const ops[] = { "add", "remove", "expire" };
	char label[256];
	long long ir;
	int k, op;

	emit("bench-core (callgrind): instructions per operation at N = %u\n", n);
	emit("  valgrind --tool=callgrind, counting only inside each measured loop; same\n");
	emit("  workload and loops as the timing table; expire is per entry handed back,\n");
	emit("  including the 10^4 advance calls (and for hwN the 10^7 bucket visits)\n\n");
	emit("%-7s  %14s  %14s  %16s\n", "struct", "add Ir/op", "remove Ir/op",
	     "expire Ir/entry");
	for (k = 0; k < NSTRUCT; k++) {
		if (!structs[k].in_cg)
			continue;
		emit("%-7s", structs[k].name);
		for (op = 0; op < 3; op++) {
			snprintf(label, sizeof(label), "bench %s %s %u",
				 structs[k].name, ops[op], n);
			ir = cg_read(dir, label);
			if (ir < 0) {
				fprintf(stderr, "bench_core: no callgrind dump '%s' in %s\n",
					label, dir);
				return 1;
			}
			emit("  %*.1f", op == 2 ? 16 : 14, (double)ir / n);
		}
		emit("\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const u32 all_n[] = { 1000, 10000, 100000, 1000000 };
	const char *outpath = NULL, *cgdir = NULL;
	int reps = 5, c, ret, cg = 0;
	u32 one_n = 0;

	while ((c = getopt(argc, argv, "r:n:o:cC:")) != -1) {
		switch (c) {
		case 'r':
			reps = atoi(optarg);
			break;
		case 'n':
			one_n = (u32)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'c':
			cg = 1;
			break;
		case 'C':
			cgdir = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-r reps] [-n N] [-o file] [-c | -C dir]\n",
				argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "bench_core: -r must be 1..%d\n", MAX_REPS);
		return 2;
	}
	if (cg)
		return bench_cg(one_n ? one_n : 100000);
	if (outpath) {
		out_file = fopen(outpath, "w");
		if (!out_file) {
			fprintf(stderr, "bench_core: %s: %s\n", outpath,
				strerror(errno));
			return 2;
		}
	}
	if (cgdir)
		ret = bench_cg_table(cgdir, one_n ? one_n : 100000);
	else if (one_n)
		ret = bench_time(&one_n, 1, reps);
	else
		ret = bench_time(all_n, 4, reps);
	if (out_file) {
		fclose(out_file);
		printf("(written to %s)\n", outpath);
	}
	return ret;
}
