// SPDX-License-Identifier: GPL-2.0
/*
 * load: /dev/twheel under load (twstress-load in the guest): main, its
 * arguments and the table of cases. The cases: load_cases.c (million,
 * multifd, soak), load_threads.c, load_memcg.c; each is checked by the
 * oracle of load_oracle.c; load.h: what the files share.
 *
 *   twstress-load million [N]            N timers (1000000) on one fd
 *   twstress-load multifd [FDS [PER]]    FDS fds (1000), PER timers (1000) each
 *   twstress-load threads [THREADS [SECS]]
 *                                        THREADS threads (64) on one fd mixing
 *                                        add, modify, cancel, read, query,
 *                                        list and info for SECS seconds (30)
 *   twstress-load memcg [KIB]            adds in a memory cgroup whose limit is
 *                                        KIB (4096) above its usage, until ENOMEM
 *   twstress-load soak SECS              threads and multifd rounds alternating
 *
 * Each case prints one TAP line ("ok load/<case>").
 */
#include "load.h"

const char *prog = "load";
long arg1 = -1, arg2 = -1;

static const struct twt_case all_cases[] = {
	TWT_CASE(million),
	TWT_CASE(multifd),
	TWT_CASE(threads),
	TWT_CASE(memcg),
	TWT_CASE(soak),
};

int main(int argc, char **argv)
{
	struct twt_case c;
	size_t k;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: %s million [N] | multifd [FDS [PER]] | threads [THREADS [SECS]] | memcg [KIB] | soak SECS\n",
			argv[0]);
		return 2;
	}
	if (argc > 2)
		arg1 = atol(argv[2]);
	if (argc > 3)
		arg2 = atol(argv[3]);
	for (k = 0; k < sizeof(all_cases) / sizeof(all_cases[0]); k++) {
		if (strcmp(argv[1], all_cases[k].name))
			continue;
		c = all_cases[k];
		/* Generous: a slow debug kernel under emulation. */
		if (!strcmp(c.name, "soak"))
			c.timeout_s = (arg1 > 0 ? arg1 : 600) + 900;
		else if (!strcmp(c.name, "threads"))
			c.timeout_s = (arg2 > 0 ? arg2 : 30) + 900;
		else
			c.timeout_s = 1800;
		return twt_run(prog, &c, 1);
	}
	fprintf(stderr, "%s: unknown case %s\n", argv[0], argv[1]);
	return 2;
}
