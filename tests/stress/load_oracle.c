// SPDX-License-Identifier: GPL-2.0
/*
 * load_oracle.c: the oracle of twstress-load (see load.c): its slots (one
 * a timer, the cookie its index), the records it absorbs, the collection
 * of every fd's records until all have ended, and the verdict.
 *
 * Every case is checked by one oracle: every timer created ends exactly
 * once, in one record read (with its id, cookie, clock, fd and a count of
 * 1) or in one successful cancel, and no record is queued or read before
 * its deadline on its clock. Ids are unique in their fd.
 *
 * Each case prints a line "# load/<case>: timers N records N cancelled N
 * early 0 lost 0 duplicates 0 ... time S s". Deadlines are a few
 * milliseconds to a few seconds away and only lower bounds are checked,
 * so no result depends on the machine's speed; a case fails if no record
 * comes for STALL_S seconds while timers are pending.
 */
#include <sys/epoll.h>

#include "load.h"

#define STALL_S		120

struct totals total;

unsigned int clock_index(uint32_t clock)
{
	switch (clock) {
	case CLOCK_MONOTONIC:
		return 0;
	case CLOCK_BOOTTIME:
		return 1;
	case CLOCK_REALTIME:
		return 2;
	default:
		return 3;
	}
}

void oracle_init(struct oracle *o, size_t cap)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->s = calloc(cap, sizeof(*o->s));
	CHECK(o->s);
	/*
	 * Fault it in now (the memcg case must not fault at its limit):
	 * through a volatile pointer, as a memset of 0 after calloc() may be
	 * optimised away.
	 */
	for (i = 0; i < cap * sizeof(*o->s); i += 4096)
		((volatile char *)o->s)[i] = 0;
	o->cap = cap;
	atomic_store(&o->last_progress, twt_mono());
}

void oracle_free(struct oracle *o)
{
	free(o->s);
	o->s = NULL;
}

/* A new slot (cookie) for a timer about to be added; -1 when full. */
long slot_new(struct oracle *o, uint32_t clock, unsigned int fdx)
{
	size_t i = atomic_fetch_add(&o->used, 1);

	if (i >= o->cap) {
		atomic_store(&o->used, o->cap);
		return -1;
	}
	o->s[i].clock = clock;
	o->s[i].fdx = fdx;
	return i;
}

void slot_created(struct oracle *o, size_t i, uint64_t id, int64_t deadline)
{
	o->s[i].id = id;
	o->s[i].deadline = deadline;
	o->s[i].created = 1;
	atomic_fetch_add(&o->created, 1);
}

/* A successful cancel (result must be PENDING or QUEUED). */
void slot_cancelled(struct oracle *o, size_t i, uint32_t result)
{
	if (result != TWHEEL_STATE_PENDING && result != TWHEEL_STATE_QUEUED)
		twt_fail(__FILE__, __LINE__, "cancel result %u", result);
	if (result == TWHEEL_STATE_QUEUED)
		atomic_fetch_add(&o->retracted, 1);
	atomic_fetch_add(&o->s[i].cancels, 1);
	atomic_fetch_add(&o->cancelled, 1);
	atomic_fetch_add(&o->ended, 1);
}

/* Account n records just read from fd number fdx. */
void absorb(struct oracle *o, unsigned int fdx,
	    const struct twheel_event *ev, size_t n)
{
	int64_t now[TWT_NCLOCKS];
	unsigned int k;
	size_t j;

	for (k = 0; k < TWT_NCLOCKS; k++)
		now[k] = twt_now(twt_clock(k));
	for (j = 0; j < n; j++) {
		struct slot *s;

		if (ev[j].cookie >= o->cap) {
			atomic_fetch_add(&o->bad_cookie, 1);
			continue;
		}
		s = &o->s[ev[j].cookie];
		if (atomic_fetch_add(&s->reads, 1) == 0) {
			s->rec_id = ev[j].id;
			s->rec_time = ev[j].time_ns;
			s->rec_count = ev[j].count;
			s->rec_clock = ev[j].clock;
			s->rec_fdx = fdx;
			s->read_now = now[clock_index(ev[j].clock)];
		}
	}
	atomic_fetch_add(&o->records, n);
	atomic_fetch_add(&o->ended, n);
	if (n)
		atomic_store(&o->last_progress, twt_mono());
}

/* Read what fd has queued (it is O_NONBLOCK); returns the records. */
size_t read_some(struct oracle *o, int fd, unsigned int fdx,
		 struct twheel_event *buf, size_t cap)
{
	ssize_t r = read(fd, buf, cap * sizeof(*buf));

	atomic_fetch_add(&o->ops, 1);
	if (r < 0 && errno == EAGAIN)
		return 0;
	if (r <= 0 || r % TWT_EV_SIZE)
		twt_fail(__FILE__, __LINE__, "read: %zd (%s)", r,
			 r < 0 ? strerror(errno) : "short");
	absorb(o, fdx, buf, r / TWT_EV_SIZE);
	return r / TWT_EV_SIZE;
}

struct fd_id {
	uint64_t id;
	uint64_t fdx;
};

static int cmp_fd_id(const void *a, const void *b)
{
	const struct fd_id *x = a, *y = b;

	if (x->fdx != y->fdx)
		return (x->fdx > y->fdx) - (x->fdx < y->fdx);
	return (x->id > y->id) - (x->id < y->id);
}

/*
 * The oracle's verdict over every slot: prints the case's line, adds to
 * the totals and fails the case on any early, lost, duplicate, misdelivered
 * record or duplicate id.
 */
void verify(struct oracle *o, const char *name, int64_t t0,
	    unsigned int nfds)
{
	unsigned long long early = 0, lost = 0, dups = 0, wrong = 0;
	unsigned long long dup_ids = 0, timers = 0;
	size_t used = atomic_load(&o->used), i, k;
	struct fd_id *ids;

	if (used > o->cap)
		used = o->cap;
	ids = malloc((used + 1) * sizeof(*ids));
	CHECK(ids);
	for (i = 0, k = 0; i < used; i++) {
		struct slot *s = &o->s[i];
		unsigned int reads = atomic_load(&s->reads);
		unsigned int ends = reads + atomic_load(&s->cancels);

		if (!s->created) {
			/* A failed add: nothing may ever come of it. */
			if (ends)
				dups++;
			continue;
		}
		timers++;
		ids[k].id = s->id;
		ids[k++].fdx = s->fdx;
		if (ends == 0) {
			lost++;
			if (lost <= 5)
				printf("# lost: cookie %zu id %llu clock %u deadline %lld\n",
				       i, (unsigned long long)s->id, s->clock,
				       (long long)s->deadline);
			continue;
		}
		if (ends > 1) {
			dups++;
			if (dups <= 5)
				printf("# duplicate: cookie %zu: %u records, %u cancels\n",
				       i, reads, ends - reads);
			continue;
		}
		if (!reads)
			continue;
		if (s->rec_id != s->id || s->rec_count != 1 ||
		    s->rec_clock != s->clock || s->rec_fdx != s->fdx) {
			wrong++;
			if (wrong <= 5)
				printf("# wrong record: cookie %zu: id %llu/%llu count %u clock %u/%u fd %u/%u\n",
				       i, (unsigned long long)s->rec_id,
				       (unsigned long long)s->id, s->rec_count,
				       s->rec_clock, s->clock, s->rec_fdx,
				       s->fdx);
		}
		if (s->rec_time < s->deadline || s->read_now < s->deadline) {
			early++;
			if (early <= 5)
				printf("# early: cookie %zu clock %u deadline %lld queued %lld read at %lld\n",
				       i, s->clock, (long long)s->deadline,
				       (long long)s->rec_time,
				       (long long)s->read_now);
		}
	}
	/* Ids never repeat within an fd. */
	qsort(ids, k, sizeof(*ids), cmp_fd_id);
	for (i = 1; i < k; i++)
		if (ids[i].id == ids[i - 1].id && ids[i].fdx == ids[i - 1].fdx)
			dup_ids++;
	free(ids);
	printf("# %s/%s: timers %llu records %llu cancelled %llu (%llu queued) early %llu lost %llu duplicates %llu wrong %llu dup_ids %llu bad_cookies %llu fds %u ops %llu time %.1f s\n",
	       prog, name, timers, (unsigned long long)atomic_load(&o->records),
	       (unsigned long long)atomic_load(&o->cancelled),
	       (unsigned long long)atomic_load(&o->retracted), early, lost,
	       dups, wrong, dup_ids,
	       (unsigned long long)atomic_load(&o->bad_cookie), nfds,
	       (unsigned long long)atomic_load(&o->ops),
	       (twt_mono() - t0) / 1e9);
	total.timers += timers;
	total.records += atomic_load(&o->records);
	total.early += early;
	total.lost += lost;
	total.dups += dups;
	total.ops += atomic_load(&o->ops);
	CHECK_EQ(early, 0);
	CHECK_EQ(lost, 0);
	CHECK_EQ(dups, 0);
	CHECK_EQ(wrong, 0);
	CHECK_EQ(dup_ids, 0);
	CHECK_EQ(atomic_load(&o->bad_cookie), 0);
	CHECK_EQ(atomic_load(&o->enoent_unread), 0);
	CHECK_EQ(atomic_load(&o->bad_query), 0);
	CHECK_EQ(timers, atomic_load(&o->created));
}

/*
 * Read every fd until every timer created has ended and every fd is
 * empty (no timer, nothing queued), or until no record came for STALL_S
 * seconds (the verdict then finds what was lost).
 */
void collect(struct oracle *o, const int *fds, unsigned int nfds)
{
	static struct twheel_event buf[RDBUF];
	struct epoll_event evs[64];
	unsigned int i;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	CHECK_OK(ep);
	atomic_store(&o->last_progress, twt_mono());
	for (i = 0; i < nfds; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = i };

		CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e));
	}
	for (;;) {
		int n = epoll_wait(ep, evs, 64, 1000), j;

		CHECK(n >= 0 || errno == EINTR);
		for (j = 0; j < n; j++) {
			unsigned int x = evs[j].data.u32;

			while (read_some(o, fds[x], x, buf, RDBUF) == RDBUF)
				;
		}
		if (atomic_load(&o->ended) >= atomic_load(&o->created)) {
			/* Every fd empty: done. */
			for (i = 0; i < nfds; i++) {
				struct twheel_info info = twt_info(fds[i]);

				if (info.timers || info.queued)
					break;
			}
			if (i == nfds)
				break;
		}
		if (twt_mono() - atomic_load(&o->last_progress) >
		    STALL_S * TWT_S) {
			printf("# no record for %d s: %llu of %llu timers ended\n",
			       STALL_S,
			       (unsigned long long)atomic_load(&o->ended),
			       (unsigned long long)atomic_load(&o->created));
			break;
		}
	}
	close(ep);
	for (i = 0; i < nfds; i++)
		CHECK_EQ(read_some(o, fds[i], i, buf, RDBUF), 0);
}
