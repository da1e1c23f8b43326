/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load.h: what the files of twstress-load (tests/stress/load*.c) share:
 * the oracle's slot and state, the totals over the cases run, the
 * arguments, and the functions one file calls in another, by file.
 */
#ifndef TWSTRESS_LOAD_H
#define TWSTRESS_LOAD_H

#include <stdatomic.h>

#include "twtest.h"

#define RDBUF		4096

/* One timer of the oracle; its cookie is its index. */
struct slot {
	uint64_t id;		/* its id (set by its owner after the add) */
	int64_t deadline;	/* its last deadline armed, absolute, on clock */
	uint64_t rec_id;	/* the first record read for it: id */
	int64_t rec_time;	/* its time_ns */
	int64_t read_now;	/* the clock's time once that read returned */
	uint32_t rec_count;	/* its count */
	uint16_t clock, fdx;	/* clock; the fd it was added to */
	uint16_t rec_clock;	/* the record's clock */
	uint16_t rec_fdx;	/* the fd it was read from */
	atomic_uchar reads;	/* records read */
	atomic_uchar cancels;	/* successful cancels */
	uint8_t created;	/* the add succeeded */
};

struct oracle {
	struct slot *s;
	size_t cap;
	atomic_size_t used;		/* slots handed out */
	atomic_ullong created;		/* successful adds */
	atomic_ullong ended;		/* records read + successful cancels */
	atomic_ullong records, cancelled, retracted, bad_cookie;
	atomic_ullong ops;		/* ioctls and reads done */
	atomic_ullong modified, queries, bad_query, enoent_unread;
	atomic_llong last_progress;	/* monotonic ns of the last record */
};

/* Totals over the cases run (soak). */
struct totals {
	unsigned long long timers, records, early, lost, dups, ops;
};

/* load_oracle.c */
extern struct totals total;
unsigned int clock_index(uint32_t clock);
void oracle_init(struct oracle *o, size_t cap);
void oracle_free(struct oracle *o);
long slot_new(struct oracle *o, uint32_t clock, unsigned int fdx);
void slot_created(struct oracle *o, size_t i, uint64_t id, int64_t deadline);
void slot_cancelled(struct oracle *o, size_t i, uint32_t result);
void absorb(struct oracle *o, unsigned int fdx,
	    const struct twheel_event *ev, size_t n);
size_t read_some(struct oracle *o, int fd, unsigned int fdx,
		 struct twheel_event *buf, size_t cap);
void verify(struct oracle *o, const char *name, int64_t t0,
	    unsigned int nfds);
void collect(struct oracle *o, const int *fds, unsigned int nfds);

/* load_cases.c */
void ensure_user_limits(long long fds, long long timers);
void million(void);
void multifd_run(const char *name, long nfds, long per);
void multifd(void);
void soak(void);

/* load_threads.c */
void threads_run(const char *name, long nthreads, long secs);
void threads(void);

/* load_memcg.c */
void memcg(void);

/* load.c: the program's name in its TAP lines, its arguments (-1: none) */
extern const char *prog;
extern long arg1, arg2;

#endif /* TWSTRESS_LOAD_H */
