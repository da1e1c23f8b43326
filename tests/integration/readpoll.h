/* SPDX-License-Identifier: GPL-2.0 */
/*
 * readpoll.h - helpers shared by the two readpoll programs, readpoll.c and
 * readpoll_wait.c.
 */
#ifndef READPOLL_H
#define READPOLL_H

#include "twtest.h"

#define RD	(POLLIN | POLLRDNORM)

/* Queue n records at once (deadline due), cookies base.., return ids. */
static inline void queue_due(int fd, int n, uint64_t base, uint64_t *ids)
{
	int i;

	for (i = 0; i < n; i++) {
		uint64_t id = twt_add_rel(fd, base + i, 0);

		if (ids)
			ids[i] = id;
	}
}

#endif /* READPOLL_H */
