// SPDX-License-Identifier: GPL-2.0
/*
 * idle_user.c - the userspace modes of the idle-timeout phase (idle.c):
 * the store-only loop, a 4-ary heap and a hierarchical timing wheel, each
 * lazy or eager, each on one timerfd re-armed to its next due point.
 *
 * Lazy (Netty, nginx, Go): an activity only stores the new deadline (the
 * loop's store into c->last[], which the store-only mode does alone);
 * when the placed deadline (the key) comes due, the entry is re-keyed to
 * the stored one if that is still ahead, else the timer closes. Eager: an
 * activity re-keys the entry at once (the heap sifts, the wheel unlinks
 * and links). Due entries are processed before each sleep of the loop (as
 * libuv does in each iteration); the timerfd is re-armed then, when its
 * target changed (after it fired: always; timerfd_settime() also clears
 * its readiness, so it is never read).
 *
 * The wheel is the Linux 2.6 one: 4 levels of 64 slots of 1, 64, 4096,
 * 262144 ticks, circular doubly linked lists through index arrays (O(1)
 * link and unlink), cascades on level boundaries; its timerfd is armed at
 * the first occupied slot of level 0 in the current round of 64 ticks,
 * else at the next boundary.
 */
#include <sys/timerfd.h>
#include <unistd.h>

#include "idle.h"

/* ---- store-only ---- */

static void st_setup(struct ictx *c, const int64_t *key)
{
	(void)c;
	(void)key;
}

static void st_act(struct ictx *c, uint32_t h)
{
	(void)c;
	(void)h;
}

static void st_event(struct ictx *c, uint64_t u)
{
	(void)c;
	(void)u;
}

static long st_count(struct ictx *c)
{
	return c->expiry ? 0 : c->n;
}

static void st_teardown(struct ictx *c)
{
	(void)c;
}

const struct imode im_store = {
	.name = "store", .maxn = 1000000, .setup = st_setup,
	.act = st_act, .event = st_event, .count = st_count,
	.teardown = st_teardown,
};

/* ---- one timerfd, re-armed to the structure's next due tick ---- */

struct utfd {
	int fd;
	int64_t armed;		/* tick armed at, 0 disarmed, -1 unknown */
};

static void utfd_init(struct ictx *c, struct utfd *t)
{
	t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (t->fd < 0)
		die("idle: timerfd_create");
	t->armed = -1;
	idle_epoll_add(c, t->fd, 0);
}

static void utfd_arm(struct ictx *c, struct utfd *t, int64_t tick)
{
	struct itimerspec its = { .it_value = ns_ts(tick * I_TICK_NS) };

	if (tick == t->armed)
		return;
	if (SYS(c, timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL)))
		die("idle: timerfd_settime");
	t->armed = tick;
}

/* ---- 4-ary heap ---- */

struct hp {
	int64_t *key;
	uint32_t *who, *pos;
	long n;
	int lazy;
	struct utfd t;
};

static inline void hp_set(struct hp *p, long i, int64_t k, uint32_t h)
{
	p->key[i] = k;
	p->who[i] = h;
	p->pos[h] = i;
}

static void hp_up(struct hp *p, long i)
{
	int64_t k = p->key[i];
	uint32_t h = p->who[i];

	while (i) {
		long q = (i - 1) / 4;

		if (p->key[q] <= k)
			break;
		hp_set(p, i, p->key[q], p->who[q]);
		i = q;
	}
	hp_set(p, i, k, h);
}

static void hp_down(struct hp *p, long i)
{
	int64_t k = p->key[i];
	uint32_t h = p->who[i];

	for (;;) {
		long c0 = 4 * i + 1, j, m = -1;
		int64_t mk = k;

		for (j = c0; j < c0 + 4 && j < p->n; j++)
			if (p->key[j] < mk) {
				mk = p->key[j];
				m = j;
			}
		if (m < 0)
			break;
		hp_set(p, i, mk, p->who[m]);
		i = m;
	}
	hp_set(p, i, k, h);
}

static void hp_rekey(struct hp *p, uint32_t h, int64_t k)
{
	long i = p->pos[h];
	int64_t old = p->key[i];

	p->key[i] = k;
	if (k < old)
		hp_up(p, i);
	else
		hp_down(p, i);
}

static void hp_setup(struct ictx *c, const int64_t *key, int lazy)
{
	struct hp *p = xcalloc(1, sizeof(*p));
	long i;

	p->key = xcalloc(c->n, sizeof(*p->key));
	p->who = xcalloc(c->n, sizeof(*p->who));
	p->pos = xcalloc(c->n, sizeof(*p->pos));
	p->lazy = lazy;
	for (i = 0; i < c->n; i++) {
		hp_set(p, i, key[i], i);
		p->n = i + 1;
		hp_up(p, i);
	}
	utfd_init(c, &p->t);
	c->priv = p;
}

static void hpl_setup(struct ictx *c, const int64_t *key)
{
	hp_setup(c, key, 1);
}

static void hpe_setup(struct ictx *c, const int64_t *key)
{
	hp_setup(c, key, 0);
}

static void hpe_act(struct ictx *c, uint32_t h)
{
	hp_rekey(c->priv, h, c->last[h]);
}

/* Due entries: re-key (lazy, pushed) or close; then re-arm. */
static void hp_flush(struct ictx *c)
{
	struct hp *p = c->priv;

	while (p->n && p->key[0] * I_TICK_NS <= c->now) {
		uint32_t h = p->who[0];
		int64_t d = c->last[h];

		if (d * I_TICK_NS > c->now) {
			p->key[0] = d;		/* lazy: pushed since placed */
		} else {
			d = idle_close(c, h, c->now);
			if (d < 0) {
				p->n--;
				if (p->n)
					hp_set(p, 0, p->key[p->n],
					       p->who[p->n]);
				else
					break;
			} else {
				p->key[0] = d;
			}
		}
		hp_down(p, 0);
	}
	utfd_arm(c, &p->t, p->n ? p->key[0] : 0);
}

static void hp_event(struct ictx *c, uint64_t u)
{
	struct hp *p = c->priv;

	(void)u;
	p->t.armed = -1;	/* fired (one-shot): re-armed by the flush */
}

static long hp_count(struct ictx *c)
{
	return ((struct hp *)c->priv)->n;
}

static void hp_teardown(struct ictx *c)
{
	struct hp *p = c->priv;

	close(p->t.fd);
	free(p->key);
	free(p->who);
	free(p->pos);
	free(p);
	c->priv = NULL;
}

const struct imode im_heap_lazy = {
	.name = "heap-lazy", .maxn = 1000000, .setup = hpl_setup,
	.act = st_act, .flush = hp_flush, .event = hp_event,
	.count = hp_count, .teardown = hp_teardown,
};

const struct imode im_heap_eager = {
	.name = "heap-eager", .maxn = 1000000, .setup = hpe_setup,
	.act = hpe_act, .flush = hp_flush, .event = hp_event,
	.count = hp_count, .teardown = hp_teardown,
};

/* ---- hierarchical wheel ---- */

#define W_BITS		6
#define W_SLOTS		(1 << W_BITS)
#define W_MASK		(W_SLOTS - 1)
#define W_LEVELS	4

struct uw {
	uint32_t *nx, *pv;	/* n timers, then W_LEVELS * W_SLOTS heads */
	int64_t *ex;		/* placed deadline (tick) */
	uint64_t occ0;		/* level-0 slots that may hold timers */
	int64_t cur;		/* next tick to process */
	long n, cnt;
	int lazy;
	struct utfd t;
};

static inline uint32_t uw_head(const struct uw *w, int level, int slot)
{
	return w->n + level * W_SLOTS + slot;
}

static inline void uw_unlink(struct uw *w, uint32_t h)
{
	w->nx[w->pv[h]] = w->nx[h];
	w->pv[w->nx[h]] = w->pv[h];
}

static void uw_link(struct uw *w, uint32_t h, int64_t e)
{
	int64_t delta;
	uint32_t hd;
	int l;

	if (e < w->cur)
		e = w->cur;
	w->ex[h] = e;
	delta = e - w->cur;
	for (l = 0; l < W_LEVELS - 1; l++)
		if (delta < (1LL << (W_BITS * (l + 1))))
			break;
	if (delta >= (1LL << (W_BITS * W_LEVELS)))
		die("idle: wheel: deadline %lld ticks ahead", (long long)delta);
	hd = uw_head(w, l, (e >> (W_BITS * l)) & W_MASK);
	if (!l)
		w->occ0 |= 1ULL << (e & W_MASK);
	w->nx[h] = hd;
	w->pv[h] = w->pv[hd];
	w->nx[w->pv[hd]] = h;
	w->pv[hd] = h;
}

/* Re-place every timer of slot @idx of level @l; returns @idx. */
static int uw_cascade(struct uw *w, int l, int idx)
{
	uint32_t hd = uw_head(w, l, idx), h;

	while ((h = w->nx[hd]) != hd) {
		uw_unlink(w, h);
		uw_link(w, h, w->ex[h]);
	}
	return idx;
}

/* Process the ticks up to @to (inclusive). */
static void uw_run(struct ictx *c, struct uw *w, int64_t to)
{
	while (w->cur <= to) {
		int idx = w->cur & W_MASK;
		uint32_t hd = uw_head(w, 0, idx), h;

		if (!idx && !uw_cascade(w, 1, (w->cur >> W_BITS) & W_MASK) &&
		    !uw_cascade(w, 2, (w->cur >> (2 * W_BITS)) & W_MASK))
			uw_cascade(w, 3, (w->cur >> (3 * W_BITS)) & W_MASK);
		w->occ0 &= ~(1ULL << idx);
		while ((h = w->nx[hd]) != hd) {
			int64_t d = c->last[h];

			uw_unlink(w, h);
			if (d > w->cur && w->lazy) {
				uw_link(w, h, d);	/* pushed since placed */
				continue;
			}
			d = idle_close(c, h, c->now);
			if (d < 0)
				w->cnt--;
			else
				uw_link(w, h, d);
		}
		w->cur++;
	}
}

static void uw_setup(struct ictx *c, const int64_t *key, int lazy)
{
	struct uw *w = xcalloc(1, sizeof(*w));
	long i, heads = W_LEVELS * W_SLOTS;

	w->n = c->n;
	w->nx = xcalloc(c->n + heads, sizeof(*w->nx));
	w->pv = xcalloc(c->n + heads, sizeof(*w->pv));
	w->ex = xcalloc(c->n, sizeof(*w->ex));
	for (i = c->n; i < c->n + heads; i++)
		w->nx[i] = w->pv[i] = i;
	w->cur = mono_ns() / I_TICK_NS;
	w->lazy = lazy;
	for (i = 0; i < c->n; i++)
		uw_link(w, i, key[i]);
	w->cnt = c->n;
	utfd_init(c, &w->t);
	c->priv = w;
}

static void uwl_setup(struct ictx *c, const int64_t *key)
{
	uw_setup(c, key, 1);
}

static void uwe_setup(struct ictx *c, const int64_t *key)
{
	uw_setup(c, key, 0);
}

static void uwe_act(struct ictx *c, uint32_t h)
{
	struct uw *w = c->priv;

	uw_unlink(w, h);
	uw_link(w, h, c->last[h]);
}

static void uw_flush(struct ictx *c)
{
	struct uw *w = c->priv;
	uint64_t ahead;
	int64_t next;

	uw_run(c, w, c->now / I_TICK_NS);
	ahead = w->occ0 & (~0ULL << (w->cur & W_MASK));
	if (!w->cnt)
		next = 0;
	else if (!(w->cur & W_MASK))
		next = w->cur;		/* a cascade first */
	else if (ahead)
		next = (w->cur & ~(int64_t)W_MASK) + __builtin_ctzll(ahead);
	else
		next = (w->cur | W_MASK) + 1;
	utfd_arm(c, &w->t, next);
}

static void uw_event(struct ictx *c, uint64_t u)
{
	struct uw *w = c->priv;

	(void)u;
	w->t.armed = -1;
}

static long uw_count(struct ictx *c)
{
	return ((struct uw *)c->priv)->cnt;
}

static void uw_teardown(struct ictx *c)
{
	struct uw *w = c->priv;

	close(w->t.fd);
	free(w->nx);
	free(w->pv);
	free(w->ex);
	free(w);
	c->priv = NULL;
}

const struct imode im_wheel_lazy = {
	.name = "wheel-lazy", .maxn = 1000000, .setup = uwl_setup,
	.act = st_act, .flush = uw_flush, .event = uw_event,
	.count = uw_count, .teardown = uw_teardown,
};

const struct imode im_wheel_eager = {
	.name = "wheel-eager", .maxn = 1000000, .setup = uwe_setup,
	.act = uwe_act, .flush = uw_flush, .event = uw_event,
	.count = uw_count, .teardown = uw_teardown,
};
