/* SPDX-License-Identifier: GPL-2.0 */
/*
 * echo_modes.h - what the echo servers' tests (echo.c, echo10k.c) share:
 * each runs its server once per way of moving the timeouts (MODIFY, a
 * SUBMIT batch, the shared table), one case each; every case leaves its
 * figure in a file (@fmt with the mode's name for %s), and the last one
 * prints the three side by side, as the earlier cases left them.
 */
#ifndef ECHO_MODES_H
#define ECHO_MODES_H

#include "twtest.h"

static const char *const echo_modes[] = { "modify", "batch", "table" };

/* "# timer system calls per activity: modify X, batch Y, table Z". */
static inline void echo_print_modes(const char *fmt)
{
	char path[64], buf[64];
	unsigned int i;

	printf("# timer system calls per activity:");
	for (i = 0; i < 3; i++) {
		FILE *f;

		snprintf(path, sizeof(path), fmt, echo_modes[i]);
		f = fopen(path, "r");
		if (!f || !fgets(buf, sizeof(buf), f))
			strcpy(buf, "- (case failed)\n");
		if (f)
			fclose(f);
		buf[strcspn(buf, "\n")] = 0;
		printf(" %s %s%s", echo_modes[i], buf, i < 2 ? "," : "\n");
	}
}

#endif /* ECHO_MODES_H */
