// SPDX-License-Identifier: GPL-2.0
/*
 * load_threads.c: the threads case of twstress-load: worker threads on
 * one fd mixing add, modify, cancel, read, query, list and info, checked
 * by the oracle (load_oracle.c).
 */
#include <pthread.h>

#include "load.h"

/*
 * threads: THREADS threads on one fd. Each owns the timers it added (at
 * most LIVE at a time) and modifies, cancels and queries only those;
 * every thread reads records, anyone's. Deadlines are absolute, up to
 * 20 ms ahead (one add in eight 5 ms in the past). The races the oracle
 * allows: a cancel, modify or query that finds the timer gone (ENOENT)
 * means its record was read, by someone, exactly once; a successful
 * cancel means no record ever; a successful modify retracts a queued
 * record, and the one record read must then be due by the new deadline.
 */
#define LIVE	128

struct worker {
	pthread_t th;
	struct oracle *o;
	int fd;
	unsigned int idx;
	uint64_t seed;
	size_t live[LIVE];
	unsigned int nlive;
};

static atomic_int stop_threads;

static void drop_live(struct worker *w, unsigned int k)
{
	w->live[k] = w->live[--w->nlive];
}

static int64_t pick_deadline(struct worker *w, uint32_t clock)
{
	int64_t d = twt_now(clock) + (int64_t)(twt_rand(&w->seed) % (20 * TWT_MS));

	if (twt_rand(&w->seed) % 8 == 0)
		d -= 25 * TWT_MS;
	return d;
}

static void w_add(struct worker *w)
{
	struct oracle *o = w->o;
	uint32_t clock = twt_clock(twt_rand(&w->seed) % 4);
	int64_t d = pick_deadline(w, clock);
	uint64_t id;
	long i;

	if (w->nlive == LIVE)
		return;
	i = slot_new(o, clock, 0);
	if (i < 0)
		return;
	if (twt_add_raw(w->fd, i, d, TWHEEL_ABSTIME, clock, &id))
		twt_fail(__FILE__, __LINE__, "add: %s", strerror(errno));
	atomic_fetch_add(&o->ops, 1);
	slot_created(o, i, id, d);
	w->live[w->nlive++] = i;
}

/* Up to 8 adds in one batch. */
static void w_add_batch(struct worker *w)
{
	struct oracle *o = w->o;
	struct twheel_op ops[8];
	unsigned int m = 0, j;

	memset(ops, 0, sizeof(ops));
	while (m < 8 && w->nlive + m < LIVE) {
		uint32_t clock = twt_clock(twt_rand(&w->seed) % 4);
		long i = slot_new(o, clock, 0);

		if (i < 0)
			break;
		ops[m].op = TWHEEL_OP_ADD;
		ops[m].flags = TWHEEL_ABSTIME;
		ops[m].cookie = i;
		ops[m].clock = clock;
		ops[m].expires_ns = pick_deadline(w, clock);
		m++;
	}
	if (!m)
		return;
	CHECK_EQ(twt_submit_raw(w->fd, ops, m), m);
	atomic_fetch_add(&o->ops, 1);
	for (j = 0; j < m; j++) {
		/* The slot was taken: an error would need its own verdict. */
		if (ops[j].error)
			twt_fail(__FILE__, __LINE__, "batch add: %s",
				 strerror(-ops[j].error));
		slot_created(o, ops[j].cookie, ops[j].id, ops[j].expires_ns);
		w->live[w->nlive++] = ops[j].cookie;
	}
}

static void w_modify(struct worker *w)
{
	struct oracle *o = w->o;
	unsigned int k;
	struct slot *s;
	uint32_t result;
	int64_t d;

	if (!w->nlive)
		return;
	k = twt_rand(&w->seed) % w->nlive;
	s = &o->s[w->live[k]];
	d = pick_deadline(w, s->clock);
	atomic_fetch_add(&o->ops, 1);
	if (twt_modify_raw(w->fd, s->id, 0, d, 0, TWHEEL_ABSTIME, &result)) {
		if (errno != ENOENT)
			twt_fail(__FILE__, __LINE__, "modify: %s",
				 strerror(errno));
		drop_live(w, k);	/* read by someone */
		return;
	}
	if (result != TWHEEL_STATE_PENDING && result != TWHEEL_STATE_QUEUED)
		twt_fail(__FILE__, __LINE__, "modify result %u", result);
	if (result == TWHEEL_STATE_QUEUED)
		atomic_fetch_add(&o->retracted, 1);
	s->deadline = d;
	atomic_fetch_add(&o->modified, 1);
}

static void w_cancel(struct worker *w)
{
	struct oracle *o = w->o;
	uint32_t result;
	unsigned int k;

	if (!w->nlive)
		return;
	k = twt_rand(&w->seed) % w->nlive;
	atomic_fetch_add(&o->ops, 1);
	if (twt_cancel_raw(w->fd, o->s[w->live[k]].id, 0, &result)) {
		if (errno != ENOENT)
			twt_fail(__FILE__, __LINE__, "cancel: %s",
				 strerror(errno));
	} else {
		slot_cancelled(o, w->live[k], result);
	}
	drop_live(w, k);
}

static void w_query(struct worker *w)
{
	struct oracle *o = w->o;
	struct twheel_status st;
	unsigned int k;
	struct slot *s;
	int bad;

	if (!w->nlive)
		return;
	k = twt_rand(&w->seed) % w->nlive;
	s = &o->s[w->live[k]];
	atomic_fetch_add(&o->ops, 1);
	if (twt_query_raw(w->fd, s->id, &st)) {
		if (errno != ENOENT)
			twt_fail(__FILE__, __LINE__, "query: %s",
				 strerror(errno));
		drop_live(w, k);
		return;
	}
	atomic_fetch_add(&o->queries, 1);
	bad = st.id != s->id || st.cookie != w->live[k] ||
	      st.clock != s->clock || st.period_ns != 0;
	if (st.state == TWHEEL_STATE_PENDING)
		/* The deadline rounded up to the 1 ms tick, by less than one. */
		bad |= st.deadline_ns < s->deadline ||
		       st.deadline_ns >= s->deadline + TWT_MS || st.count;
	else if (st.state == TWHEEL_STATE_QUEUED)
		bad |= st.deadline_ns != 0 || st.count != 1;
	else
		bad = 1;
	if (bad && atomic_fetch_add(&o->bad_query, 1) < 5)
		printf("# query %llu: state %u deadline %lld (armed %lld) count %llu cookie %llu\n",
		       (unsigned long long)s->id, st.state,
		       (long long)st.deadline_ns, (long long)s->deadline,
		       (unsigned long long)st.count,
		       (unsigned long long)st.cookie);
}

/* One page of a listing, and the handshake: sane values only. */
static void w_list_info(struct worker *w)
{
	struct oracle *o = w->o;
	struct twheel_status st[32];
	struct twheel_list l;
	struct twheel_info info;
	unsigned int j;

	memset(&l, 0, sizeof(l));
	l.statuses = (uintptr_t)st;
	l.capacity = 32;
	l.status_size = sizeof(st[0]);
	CHECK_OK(ioctl(w->fd, TWHEEL_IOC_LIST, &l));
	CHECK(l.count <= 32);
	for (j = 0; j < l.count; j++)
		if (st[j].cookie >= o->cap)
			atomic_fetch_add(&o->bad_query, 1);
	info = twt_info(w->fd);
	CHECK_EQ(info.version, TWHEEL_ABI_VERSION);
	CHECK(info.queued <= info.timers);
	atomic_fetch_add(&o->ops, 2);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct twheel_event buf[64];

	while (!atomic_load(&stop_threads)) {
		unsigned int r = twt_rand(&w->seed) % 100;

		if (r < 25)
			w_add(w);
		else if (r < 30)
			w_add_batch(w);
		else if (r < 45)
			w_modify(w);
		else if (r < 58)
			w_cancel(w);
		else if (r < 85) {
			/* One thread in eight waits in poll first. */
			if (w->idx % 8 == 0)
				twt_poll(w->fd, 5);
			read_some(w->o, w->fd, 0, buf, 64);
		} else if (r < 97)
			w_query(w);
		else
			w_list_info(w);
	}
	return NULL;
}

void threads_run(const char *name, long nthreads, long secs)
{
	struct oracle o;
	struct worker *w;
	int64_t t0 = twt_mono();
	long k;
	int fd;

	CHECK(nthreads > 0 && secs > 0);
	/* Enough slots for any speed; adds stop (and are counted) if full. */
	oracle_init(&o, 1000000);
	ensure_user_limits(1, nthreads * LIVE);
	fd = twt_open(O_NONBLOCK | O_CLOEXEC);
	w = calloc(nthreads, sizeof(*w));
	CHECK(w);
	atomic_store(&stop_threads, 0);
	for (k = 0; k < nthreads; k++) {
		w[k].o = &o;
		w[k].fd = fd;
		w[k].idx = k;
		w[k].seed = 0x9E3779B97F4A7C15ULL * (k + 1) ^ (uint64_t)t0;
		CHECK_EQ(pthread_create(&w[k].th, NULL, worker_main, &w[k]), 0);
	}
	twt_sleep_ns(secs * TWT_S);
	atomic_store(&stop_threads, 1);
	for (k = 0; k < nthreads; k++)
		CHECK_EQ(pthread_join(w[k].th, NULL), 0);
	printf("# %s: %ld threads for %ld s: %llu ops, %llu modified, %llu queried%s\n",
	       name, nthreads, secs, (unsigned long long)atomic_load(&o.ops),
	       (unsigned long long)atomic_load(&o.modified),
	       (unsigned long long)atomic_load(&o.queries),
	       atomic_load(&o.used) >= o.cap ? " (oracle full: adds stopped)" : "");
	collect(&o, &fd, 1);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
	free(w);
	verify(&o, name, t0, 1);
	oracle_free(&o);
}

void threads(void)
{
	threads_run("threads", arg1 > 0 ? arg1 : 64, arg2 > 0 ? arg2 : 30);
}
