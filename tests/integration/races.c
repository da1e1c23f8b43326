// SPDX-License-Identifier: GPL-2.0
/*
 * races: on the VM's 2 vCPUs, time-bounded. Cancel racing expiry (each
 * timer ends in exactly one outcome), close while thousands of timers
 * fire, two readers plus an epoll reader on one fd (every record exactly
 * once), and four threads mixing add, cancel and read for 10 s with the
 * counts checked at the end.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/epoll.h>

#include "twtest.h"

/* ---- cancel against expiry ---- */

/*
 * The adder adds timers due 0..2 ms after their add and hands each to the
 * canceller, which cancels it 0..3 ms after its add: whatever the speed
 * of the VM, each cancel lands around its timer's expiry. A reader thread
 * reads records meanwhile. Each timer must end exactly once: cancelled
 * (PENDING or QUEUED, never read) or read exactly once (its cancel then
 * ENOENT).
 */
#define N_CVE	1500

struct cve {
	int fd;
	atomic_int stop;
	atomic_int published;		/* entries the adder has filled */
	uint64_t id[N_CVE];
	int64_t cancel_at[N_CVE];
	int result[N_CVE];		/* 0 ENOENT, else the cancel result */
	atomic_int nread[N_CVE];	/* per timer (cookie): times read */
	atomic_int total_read;
	atomic_int bad;
};

static void *cve_reader(void *arg)
{
	struct cve *s = arg;
	struct twheel_event ev[16];

	for (;;) {
		int r = twt_poll(s->fd, 5);
		ssize_t n;
		int i;

		if (r <= 0) {
			if (atomic_load(&s->stop) && twt_poll(s->fd, 0) == 0)
				break;
			continue;
		}
		n = read(s->fd, ev, sizeof(ev));
		if (n < 0) {
			if (errno != EAGAIN)
				atomic_store(&s->bad, 1);
			continue;	/* EAGAIN: the canceller was first */
		}
		for (i = 0; i < n / TWT_EV_SIZE; i++) {
			if (ev[i].cookie >= N_CVE) {
				atomic_store(&s->bad, 2);
				continue;
			}
			atomic_fetch_add(&s->nread[ev[i].cookie], 1);
			atomic_fetch_add(&s->total_read, 1);
		}
	}
	return NULL;
}

static void *cve_canceller(void *arg)
{
	struct cve *s = arg;
	int i;

	for (i = 0; i < N_CVE; i++) {
		uint32_t r = 0;
		int64_t d;

		while (atomic_load(&s->published) <= i)
			sched_yield();
		/* Sleep most of the way, spin the rest. */
		d = s->cancel_at[i] - twt_mono();
		if (d > 300 * TWT_US)
			twt_sleep_ns(d - 200 * TWT_US);
		while (twt_mono() < s->cancel_at[i])
			;
		if (twt_cancel_raw(s->fd, s->id[i], 0, &r) == 0) {
			if (r != TWHEEL_STATE_PENDING &&
			    r != TWHEEL_STATE_QUEUED)
				atomic_store(&s->bad, 3);
			s->result[i] = (int)r;
		} else {
			if (errno != ENOENT)
				atomic_store(&s->bad, 4);
			s->result[i] = 0;
		}
	}
	return NULL;
}

static void cancel_vs_expiry(void)
{
	static struct cve s;
	uint64_t seed = 42;
	int round;

	for (round = 0; round < 3; round++) {
		int npend = 0, nq = 0, nnoent = 0, i;
		pthread_t t[2];

		memset(&s, 0, sizeof(s));
		s.fd = twt_open(O_NONBLOCK);
		CHECK_OK(pthread_create(&t[0], NULL, cve_reader, &s));
		CHECK_OK(pthread_create(&t[1], NULL, cve_canceller, &s));
		for (i = 0; i < N_CVE; i++) {
			int64_t now = twt_mono();

			s.cancel_at[i] = now + (int64_t)(twt_rand(&seed) % (3 * TWT_MS));
			s.id[i] = twt_add_abs(s.fd, i,
					      now + (int64_t)(twt_rand(&seed) % (2 * TWT_MS)),
					      CLOCK_MONOTONIC);
			atomic_store(&s.published, i + 1);
		}
		pthread_join(t[1], NULL);
		/* Every deadline is past: let the reader drain, then stop. */
		twt_sleep_ms(50);
		atomic_store(&s.stop, 1);
		pthread_join(t[0], NULL);
		CHECK_EQ(atomic_load(&s.bad), 0);
		for (i = 0; i < N_CVE; i++) {
			int nr = atomic_load(&s.nread[i]);

			if (s.result[i] ? nr != 0 : nr != 1)
				twt_fail(__FILE__, __LINE__,
					 "timer %d: cancel %s, read %d times",
					 i, s.result[i] == 1 ? "PENDING" :
					 s.result[i] == 2 ? "QUEUED" : "ENOENT", nr);
			if (s.result[i] == TWHEEL_STATE_PENDING)
				npend++;
			else if (s.result[i] == TWHEEL_STATE_QUEUED)
				nq++;
			else
				nnoent++;
		}
		CHECK_EQ(npend + nq + atomic_load(&s.total_read), N_CVE);
		CHECK_EQ(nnoent, atomic_load(&s.total_read));
		CHECK_EQ(twt_timers(s.fd), 0);
		CHECK_EQ(twt_queued(s.fd), 0);
		printf("# round %d: cancelled pending %d, cancelled queued %d, read %d\n",
		       round, npend, nq, atomic_load(&s.total_read));
		close(s.fd);
	}
}

/* ---- close while firing ---- */

struct closer {
	int fd, ep;
	atomic_int stop;
	long records;
};

static void *close_reader(void *arg)
{
	struct closer *c = arg;
	struct twheel_event ev[64];

	while (!atomic_load(&c->stop)) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 5) <= 0)
			continue;
		if (p.revents & POLLNVAL)
			break;
		n = read(c->fd, ev, sizeof(ev));
		if (n > 0)
			c->records += n / TWT_EV_SIZE;
	}
	return NULL;
}

static void *close_epoller(void *arg)
{
	struct closer *c = arg;
	struct epoll_event e[8];

	while (!atomic_load(&c->stop))
		epoll_wait(c->ep, e, 8, 5);
	return NULL;
}

static void close_while_firing(void)
{
	uint64_t seed = 7;
	int64_t per_add = 50 * TWT_US;	/* learnt from each round */
	int round;

	for (round = 0; round < 8; round++) {
		const int n = 1500;
		struct closer c;
		struct epoll_event e = { .events = EPOLLIN };
		pthread_t t[2];
		int64_t t0, window;
		int i;

		memset(&c, 0, sizeof(c));
		c.fd = twt_open(O_NONBLOCK);
		c.ep = epoll_create1(0);
		CHECK_OK(c.ep);
		CHECK_OK(epoll_ctl(c.ep, EPOLL_CTL_ADD, c.fd, &e));
		/*
		 * All due in a 100 ms window that opens as the adds end; the
		 * close comes 20..80 ms into it.
		 */
		t0 = twt_mono();
		window = t0 + n * per_add;
		for (i = 0; i < n; i++)
			twt_add_abs(c.fd, i, window + (int64_t)(twt_rand(&seed) % (100 * TWT_MS)),
				    CLOCK_MONOTONIC);
		per_add = (twt_mono() - t0) / n;
		CHECK_OK(pthread_create(&t[0], NULL, close_reader, &c));
		CHECK_OK(pthread_create(&t[1], NULL, close_epoller, &c));
		twt_sleep_ns(window + 20 * TWT_MS +
			     (int64_t)(twt_rand(&seed) % (60 * TWT_MS)) - twt_mono());
		printf("# round %d: %llu of %d queued at close, %ld read\n", round,
		       (unsigned long long)twt_queued(c.fd), n, c.records);
		CHECK_OK(close(c.fd));
		atomic_store(&c.stop, 1);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		close(c.ep);
	}
}

/*
 * A thread asleep in read(2) when another closes the fd keeps the file
 * alive: its read still returns the record when the timer fires.
 */
struct sleeper {
	int fd;
	ssize_t r;
	struct twheel_event ev;
};

static void *sleepy_read(void *arg)
{
	struct sleeper *s = arg;

	s->r = read(s->fd, &s->ev, sizeof(s->ev));
	return NULL;
}

static void close_while_reading(void)
{
	struct sleeper s = { .fd = twt_open(0) };
	pthread_t t;
	int i;

	for (i = 0; i < 100; i++)
		twt_add_rel(s.fd, i, 3600 * TWT_S);
	twt_add_rel(s.fd, 500, 300 * TWT_MS);
	CHECK_OK(pthread_create(&t, NULL, sleepy_read, &s));
	twt_sleep_ms(100);
	CHECK_OK(close(s.fd));
	pthread_join(t, NULL);
	CHECK_EQ(s.r, sizeof(s.ev));
	CHECK_EQ(s.ev.cookie, 500);
}

/* ---- two readers and an epoll reader ---- */

#define N_RD	4000

struct readers {
	int fd, ep;
	atomic_int seen[N_RD];
	atomic_int total;
	atomic_int bad;
	int64_t give_up;
	long per[3];
};

static void account(struct readers *s, struct twheel_event *ev, ssize_t n, int who)
{
	int i;

	if (n % TWT_EV_SIZE) {
		atomic_store(&s->bad, 1);
		return;
	}
	for (i = 0; i < n / TWT_EV_SIZE; i++) {
		if (ev[i].cookie >= N_RD || ev[i].count != 1) {
			atomic_store(&s->bad, 2);
			continue;
		}
		atomic_fetch_add(&s->seen[ev[i].cookie], 1);
		atomic_fetch_add(&s->total, 1);
		s->per[who]++;
	}
}

struct rd_arg {
	struct readers *s;
	int who;
};

static void *poll_reader(void *arg)
{
	struct readers *s = ((struct rd_arg *)arg)->s;
	int who = ((struct rd_arg *)arg)->who;
	struct twheel_event ev[10];
	uint64_t seed = 1000 + who;

	while (atomic_load(&s->total) < N_RD && twt_mono() < s->give_up) {
		/* 40..400 bytes: 1..10 records, and odd sizes in between. */
		size_t len = 40 + twt_rand(&seed) % 361;
		ssize_t n;

		if (!(twt_poll(s->fd, 20) & POLLIN))
			continue;
		n = read(s->fd, ev, len);
		if (n < 0) {
			if (errno != EAGAIN)
				atomic_store(&s->bad, 3);
			continue;
		}
		account(s, ev, n, who);
	}
	return NULL;
}

static void *epoll_reader(void *arg)
{
	struct readers *s = arg;
	struct twheel_event ev[7];

	while (atomic_load(&s->total) < N_RD && twt_mono() < s->give_up) {
		struct epoll_event e;
		ssize_t n;

		if (epoll_wait(s->ep, &e, 1, 20) != 1)
			continue;
		n = read(s->fd, ev, sizeof(ev));
		if (n < 0) {
			if (errno != EAGAIN)
				atomic_store(&s->bad, 4);
			continue;
		}
		account(s, ev, n, 2);
	}
	return NULL;
}

static void two_readers_epoll(void)
{
	static struct readers s;
	struct rd_arg ra[2] = { { &s, 0 }, { &s, 1 } };
	struct epoll_event e = { .events = EPOLLIN };
	uint64_t seed = 99;
	pthread_t t[3];
	int64_t base;
	int i;

	memset(&s, 0, sizeof(s));
	s.fd = twt_open(O_NONBLOCK);
	s.ep = epoll_create1(0);
	CHECK_OK(s.ep);
	CHECK_OK(epoll_ctl(s.ep, EPOLL_CTL_ADD, s.fd, &e));
	base = twt_mono() + 20 * TWT_MS;
	s.give_up = base + 30 * TWT_S;
	CHECK_OK(pthread_create(&t[0], NULL, poll_reader, &ra[0]));
	CHECK_OK(pthread_create(&t[1], NULL, poll_reader, &ra[1]));
	CHECK_OK(pthread_create(&t[2], NULL, epoll_reader, &s));
	/* Added while the readers already read. */
	for (i = 0; i < N_RD; i++)
		twt_add_abs(s.fd, i, base + (int64_t)(twt_rand(&seed) % (500 * TWT_MS)),
			    CLOCK_MONOTONIC);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("# records per reader: %ld %ld %ld\n", s.per[0], s.per[1], s.per[2]);
	CHECK_EQ(atomic_load(&s.bad), 0);
	for (i = 0; i < N_RD; i++)
		if (atomic_load(&s.seen[i]) != 1)
			twt_fail(__FILE__, __LINE__, "record %d read %d times",
				 i, atomic_load(&s.seen[i]));
	CHECK_EQ(atomic_load(&s.total), N_RD);
	CHECK_EQ(twt_timers(s.fd), 0);
	CHECK_EQ(twt_poll(s.fd, 50), 0);
	close(s.ep);
	close(s.fd);
}

/* ---- four threads mixing add, cancel, read ---- */

#define MIX_THREADS	4
#define MIX_SLOTS	(1 << 19)	/* adds per thread at most */
#define MIX_LIVE	8192

enum { ST_OPEN, ST_CANCELLED, ST_READ };
enum { K_DUE, K_NEAR, K_FAR };

struct mixer {
	int fd;
	int64_t until;
	atomic_int bad;
	char bad_msg[160];
	struct mixth {
		int idx;
		struct mixer *m;
		unsigned char *state;	/* per slot: ST_* */
		unsigned char *kind;	/* per slot: K_* */
		uint64_t live[MIX_LIVE];
		uint32_t live_slot[MIX_LIVE];
		int nlive;
		uint32_t nslots;
		long adds, cancels, reads, enoent, ops;
	} th[MIX_THREADS];
};

static void mix_bad(struct mixer *m, const char *msg, uint64_t a, uint64_t b)
{
	int zero = 0;

	if (atomic_compare_exchange_strong(&m->bad, &zero, 1))
		snprintf(m->bad_msg, sizeof(m->bad_msg), "%s (%llu, %llu)", msg,
			 (unsigned long long)a, (unsigned long long)b);
}

static void mix_read(struct mixth *me)
{
	struct mixer *m = me->m;
	struct twheel_event ev[8];
	ssize_t n = read(m->fd, ev, sizeof(ev));
	int i;

	if (n < 0) {
		if (errno != EAGAIN)
			mix_bad(m, "read errno", errno, 0);
		return;
	}
	for (i = 0; i < n / TWT_EV_SIZE; i++) {
		uint32_t t = ev[i].cookie >> 32, slot = (uint32_t)ev[i].cookie;
		unsigned char old;

		if (t >= MIX_THREADS ||
		    slot >= __atomic_load_n(&m->th[t].nslots, __ATOMIC_ACQUIRE)) {
			mix_bad(m, "bad cookie", ev[i].cookie, 0);
			continue;
		}
		old = __atomic_exchange_n(&m->th[t].state[slot], ST_READ,
					  __ATOMIC_SEQ_CST);
		if (old != ST_OPEN)
			mix_bad(m, old == ST_READ ? "record read twice" :
				"record of a cancelled timer", t, slot);
		me->reads++;
	}
}

static void mix_cancel(struct mixth *me, uint64_t *seed)
{
	struct mixer *m = me->m;
	int k = twt_rand(seed) % me->nlive;
	uint64_t id = me->live[k];
	uint32_t slot = me->live_slot[k], r = 0;

	me->live[k] = me->live[me->nlive - 1];
	me->live_slot[k] = me->live_slot[me->nlive - 1];
	me->nlive--;
	if (twt_cancel_raw(m->fd, id, 0, &r) == 0) {
		unsigned char old;

		if (r != TWHEEL_STATE_PENDING && r != TWHEEL_STATE_QUEUED)
			mix_bad(m, "cancel result", r, id);
		if (r == TWHEEL_STATE_PENDING && me->kind[slot] == K_DUE)
			mix_bad(m, "due timer cancelled as pending", slot, id);
		old = __atomic_exchange_n(&me->state[slot], ST_CANCELLED,
					  __ATOMIC_SEQ_CST);
		if (old != ST_OPEN)
			mix_bad(m, "cancelled a timer already read", slot, id);
		me->cancels++;
	} else if (errno == ENOENT) {
		me->enoent++;	/* read by someone already */
	} else {
		mix_bad(m, "cancel errno", errno, id);
	}
}

static void mix_add(struct mixth *me, uint64_t *seed)
{
	struct mixer *m = me->m;
	uint32_t slot = me->nslots, r = twt_rand(seed) % 10;
	uint64_t cookie = ((uint64_t)me->idx << 32) | slot, id = 0;
	int kind = r < 3 ? K_DUE : r < 9 ? K_NEAR : K_FAR;
	clockid_t clock = twt_clock(twt_rand(seed) % TWT_NCLOCKS);
	int ret;

	me->kind[slot] = kind;
	/* Publish the slot before a record for it can exist. */
	__atomic_store_n(&me->nslots, slot + 1, __ATOMIC_RELEASE);
	switch (kind) {
	case K_DUE:
		/* A deadline tick long past: queued before the add returns. */
		ret = twt_add_raw(m->fd, cookie, 1, TWHEEL_ABSTIME, clock,
				  &id);
		break;
	case K_NEAR:
		ret = twt_add_raw(m->fd, cookie,
				  (int64_t)(twt_rand(seed) % (20 * TWT_MS)), 0,
				  clock, &id);
		break;
	default:
		ret = twt_add_raw(m->fd, cookie, 3600 * TWT_S, 0, clock, &id);
		break;
	}
	if (ret) {
		mix_bad(m, "add errno", errno, slot);
		return;
	}
	me->adds++;
	me->live[me->nlive] = id;
	me->live_slot[me->nlive] = slot;
	me->nlive++;
}

static void *mix_thread(void *arg)
{
	struct mixth *me = arg;
	uint64_t seed = 0x9E3779B97F4A7C15ULL * (me->idx + 1);

	while (!atomic_load(&me->m->bad)) {
		uint32_t op = twt_rand(&seed) % 10;

		if ((me->ops++ & 63) == 0 && twt_mono() >= me->m->until)
			break;
		if (op < 4 && me->nlive < MIX_LIVE && me->nslots < MIX_SLOTS)
			mix_add(me, &seed);
		else if (op < 7 && me->nlive > 0)
			mix_cancel(me, &seed);
		else
			mix_read(me);
	}
	return NULL;
}

static void mix_4_threads(void)
{
	static struct mixer m;
	long adds = 0, cancels = 0, reads = 0, enoent = 0, open_far = 0, open_other = 0;
	struct twheel_info info;
	pthread_t t[MIX_THREADS];
	int64_t t0 = twt_mono();
	int i;
	uint32_t s;

	memset(&m, 0, sizeof(m));
	m.fd = twt_open(O_NONBLOCK);
	m.until = t0 + 10 * TWT_S;
	for (i = 0; i < MIX_THREADS; i++) {
		m.th[i].idx = i;
		m.th[i].m = &m;
		m.th[i].state = calloc(MIX_SLOTS, 1);
		m.th[i].kind = calloc(MIX_SLOTS, 1);
		CHECK(m.th[i].state && m.th[i].kind);
	}
	for (i = 0; i < MIX_THREADS; i++)
		CHECK_OK(pthread_create(&t[i], NULL, mix_thread, &m.th[i]));
	for (i = 0; i < MIX_THREADS; i++)
		pthread_join(t[i], NULL);
	if (atomic_load(&m.bad))
		twt_fail(__FILE__, __LINE__, "%s", m.bad_msg);
	for (i = 0; i < MIX_THREADS; i++) {
		adds += m.th[i].adds;
		cancels += m.th[i].cancels;
		reads += m.th[i].reads;
		enoent += m.th[i].enoent;
	}
	printf("# %.1f s: adds %ld, cancels %ld (ENOENT %ld), records read %ld\n",
	       (twt_mono() - t0) / 1e9, adds, cancels, enoent, reads);
	info = twt_info(m.fd);
	CHECK_EQ(info.timers, adds - cancels - reads);

	/* Let every near timer expire, read the rest, recount. */
	twt_sleep_ms(100);
	mix_read(&m.th[0]);
	while (twt_queued(m.fd) > 0)
		mix_read(&m.th[0]);
	if (atomic_load(&m.bad))
		twt_fail(__FILE__, __LINE__, "%s", m.bad_msg);
	reads = 0;
	for (i = 0; i < MIX_THREADS; i++)
		reads += m.th[i].reads;
	for (i = 0; i < MIX_THREADS; i++)
		for (s = 0; s < m.th[i].nslots; s++) {
			if (m.th[i].state[s] != ST_OPEN)
				continue;
			if (m.th[i].kind[s] == K_FAR)
				open_far++;
			else
				open_other++;
		}
	info = twt_info(m.fd);
	CHECK_EQ(info.queued, 0);
	CHECK_EQ(info.timers, adds - cancels - reads);
	/* What is left is exactly the far timers nobody cancelled. */
	CHECK_EQ(open_other, 0);
	CHECK_EQ(info.timers, open_far);
	close(m.fd);
}

TWT_MAIN("races",
	 TWT_CASE(cancel_vs_expiry),
	 TWT_CASE(close_while_firing),
	 TWT_CASE(close_while_reading),
	 TWT_CASE(two_readers_epoll),
	 TWT_CASE_T(mix_4_threads, 90))
