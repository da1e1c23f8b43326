// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_chaos.c - a thread of a chaos process. The threads of a chaos
 * process share fds (inherited from the parent, opened, dup'ed, dup2'ed
 * over each other, closed while another thread uses the number, passed to
 * forked children) and make random calls with random and broken
 * arguments; their oracle is weaker: no errno outside the documented set,
 * results well-formed.
 */
#include "twfuzz.h"

static int tab_get(struct th *th)
{
	return __atomic_load_n(&g_tab[rnd(th, NTAB)], __ATOMIC_RELAXED);
}

static void tab_put(struct th *th, int fd)
{
	int old = __atomic_exchange_n(&g_tab[rnd(th, NTAB)], fd,
				      __ATOMIC_RELAXED);

	if (old >= 3 && old != g_shared[0] && old != g_shared[1])
		close(old);
}

static void remember_id(struct th *th, u64 id)
{
	if (id)
		th->ids[th->nids++ % 64] = id;
}

static u64 chaos_id(struct th *th)
{
	if (th->nids && chance(th, 80))
		return th->ids[rnd(th, th->nids < 64 ? th->nids : 64)];
	return chance(th, 50) ? 1 + rnd(th, 100) : rnd64(th);
}

static bool errno_in(int e, const int *set)
{
	for (; *set; set++)
		if (*set == e)
			return true;
	return false;
}

static bool status_ok(const struct twheel_status *st)
{
	return st->id && clk_index(st->clock) >= 0 &&
	       ((st->state == TWHEEL_STATE_PENDING && !st->count) ||
		(st->state == TWHEEL_STATE_QUEUED && st->count >= 1)) &&
	       st->remaining_ns >= 0;
}

static bool records_ok(struct th *th, const struct twheel_event *ev, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!ev[i].id || ev[i].flags || !ev[i].count ||
		    clk_index(ev[i].clock) < 0)
			return false;
		remember_id(th, ev[i].id);
	}
	ST_ADD(th, chaos_records, n);
	return true;
}

/* Fill a random argument for command nr (0..8) in b, semi-valid. */
static void chaos_fill(struct th *th, unsigned int nr, unsigned char *b,
		       size_t size)
{
	size_t i;

	memset(b, 0, size);
	if (chance(th, 5)) {
		for (i = 0; i < size; i++)
			b[i] = rnd(th, 256);
		return;
	}
	switch (nr) {
	case 1: {
		struct twheel_add *a = (void *)b;

		a->cookie = rnd64(th);
		a->clock = chance(th, 90) ? valid_clock(th) : bad_clock(th);
		a->flags = chance(th, 40) ? TWHEEL_ABSTIME : 0;
		a->expires_ns = a->flags ? add_sat(twt_now(CLOCK_MONOTONIC),
						  gen_rel(th, MS, false)) :
				gen_rel(th, MS, chance(th, 50));
		a->period_ns = gen_period(th, MS, false);
		if (chance(th, 5))
			a->flags |= unknown_bits(th, 1);
		break;
	}
	case 2: {
		struct twheel_cancel *c = (void *)b;

		c->id = chaos_id(th);
		c->flags = chance(th, 5) ? unknown_bits(th, 0) : 0;
		break;
	}
	case 3: {
		struct twheel_modify *m = (void *)b;

		m->id = chaos_id(th);
		m->cookie = rnd64(th);
		m->flags = rnd(th, 4) | (chance(th, 5) ? unknown_bits(th, 3) : 0);
		m->expires_ns = gen_rel(th, MS, false);
		m->period_ns = gen_period(th, MS, false);
		break;
	}
	case 4: {
		struct twheel_query *q = (void *)b;

		q->id = chaos_id(th);
		q->flags = chance(th, 5);
		break;
	}
	case 5: {
		struct twheel_list *l = (void *)b;
		size_t fit;

		l->capacity = chance(th, 5) ? 0 : 1 + rnd(th, 64);
		l->status_size = chance(th, 95) ? sizeof(struct twheel_status) :
			rnd(th, 100);
		l->cursor = chance(th, 70) ? 0 : chance(th, 50) ? rnd(th, 100) :
			rnd64(th);
		l->statuses = (uintptr_t)arr_at(th, pick_pk(th, 15),
						th->buf + 65536,
						sizeof(struct twheel_status),
						l->capacity, &fit);
		if (l->statuses == (uintptr_t)th->buf)
			l->statuses = (uintptr_t)(th->buf + 65536);
		l->flags = chance(th, 5);
		break;
	}
	case 6: {
		struct twheel_submit *s = (void *)b;
		struct twheel_op *ops = (struct twheel_op *)(th->buf + 8192);
		uint32_t n = chance(th, 5) ? 1024 + rnd(th, 2) : rnd(th, 40);
		size_t fit;
		uint32_t k;

		for (k = 0; k < n; k++) {
			memset(&ops[k], 0, sizeof(ops[k]));
			ops[k].op = chance(th, 95) ? 1 + rnd(th, 4) : rnd(th, 10);
			ops[k].id = chaos_id(th);
			ops[k].cookie = rnd64(th);
			ops[k].clock = chance(th, 95) ? valid_clock(th) :
				bad_clock(th);
			ops[k].expires_ns = gen_rel(th, MS, false);
			ops[k].flags = chance(th, 10) ? rnd(th, 4) : 0;
			ops[k].period_ns = chance(th, 10) ? MS : 0;
			ops[k].__reserved = chance(th, 2);
		}
		s->nr = n;
		s->op_size = chance(th, 95) ? sizeof(struct twheel_op) :
			rnd(th, 128);
		s->flags = chance(th, 3);
		s->__reserved = chance(th, 3);
		if (chance(th, 10)) {
			s->ops = (uintptr_t)arr_at(th, 1 + rnd(th, P_NKINDS - 1),
						   ops, sizeof(*ops),
						   n > 1000 ? 1000 : n, &fit);
		} else {
			s->ops = (uintptr_t)ops;
		}
		break;
	}
	case 7: {
		struct twheel_config *c = (void *)b;

		c->tick_ns = chance(th, 80) ? TWHEEL_MIN_TICK_NS +
			rnd(th, 10 * MS) : rnd64(th);
		c->flags = rnd(th, 2) | (chance(th, 5) ? unknown_bits(th, 1) : 0) |
			   (chance(th, 10) ? TWHEEL_CONFIG_TABLE : 0) |
			   (chance(th, 10) ? TWHEEL_CONFIG_CLOCK_SET : 0);
		c->__reserved = chance(th, 5);
		break;
	}
	case 8: {
		struct twheel_advance *a = (void *)b;

		a->delta_ns = chance(th, 90) ? rnd(th, 100 * MS) : rnd64(th);
		a->flags = chance(th, 5);
		break;
	}
	}
}

/* The errnos a command may give (besides EBADF: fds close under us). */
static const int *chaos_errnos(unsigned int nr)
{
	static const int e_info[] = { EFAULT, EINVAL, EBADF, 0 };
	/* EPERM: an alarm clock without CAP_WAKE_ALARM (not as root). */
	static const int e_add[] = { EINVAL, EFAULT, ENOSPC, ENOMEM, E2BIG,
				     EBADF, EPERM, 0 };
	static const int e_cancel[] = { EINVAL, ENOENT, EFAULT, E2BIG, EBADF, 0 };
	static const int e_modify[] = { EINVAL, ENOENT, EFAULT, ENOMEM, E2BIG,
					EBADF, 0 };
	static const int e_list[] = { EINVAL, EFAULT, ENOMEM, E2BIG, EBADF, 0 };
	static const int e_config[] = { EINVAL, EBUSY, EFAULT, E2BIG, EBADF, 0 };
	static const int e_adv[] = { EINVAL, EFAULT, E2BIG, EBADF, 0 };
	static const int *const sets[] = {
		e_info, e_add, e_cancel, e_modify, e_cancel, e_list, e_list,
		e_config, e_adv,
	};

	return nr < 9 ? sets[nr] : NULL;
}

static void chaos_ioctl(struct th *th, int fd)
{
	static const unsigned int dirs[] = { 2, 3, 3, 3, 3, 3, 1, 1, 3 };
	static const size_t sizes[] = {
		sizeof(struct twheel_info), sizeof(struct twheel_add),
		sizeof(struct twheel_cancel), sizeof(struct twheel_modify),
		sizeof(struct twheel_query), sizeof(struct twheel_list),
		sizeof(struct twheel_submit), sizeof(struct twheel_config),
		sizeof(struct twheel_advance),
	};
	static const int e_tty[] = { ENOTTY, EBADF, 0 };
	static const unsigned int kinds[] = {
		K_INFO, K_ADD, K_CANCEL, K_MODIFY, K_QUERY, K_LIST, K_SUBMIT,
		K_CONFIG, K_ADVANCE,
	};
	unsigned char arg[512];
	unsigned int nr = rnd(th, 9), r100 = rnd(th, 100);
	unsigned long cmd;
	size_t size = sizes[nr];
	const int *errs;
	enum ptrkind pk = pick_pk(th, 8);
	void *p;
	long r;
	int e;

	if (r100 < 80) {
		cmd = IOC(dirs[nr], nr, size);
		errs = chaos_errnos(nr);
	} else if (r100 < 92) {
		size = chance(th, 50) ? rnd(th, size) : size + 8 * rnd(th, 40);
		cmd = IOC(dirs[nr], nr, size);
		errs = chaos_errnos(nr);
	} else {
		cmd = chance(th, 50) ? IOC(rnd(th, 4), 9 + rnd(th, 200),
					   rnd(th, 200)) :
			_IOC(rnd(th, 4), 0xBB, rnd(th, 10), rnd(th, 100));
		errs = e_tty;
		nr = 99;
	}
	if (size > sizeof(arg))
		size = sizeof(arg);
	ST_INC(th, ops[nr < 9 ? kinds[nr] : K_BADCMD]);
	chaos_fill(th, nr, arg, size);
	/* A newer, larger struct: its tail zero, mostly. */
	if (size > sizes[nr < 9 ? nr : 0] && nr < 9 && chance(th, 70))
		memset(arg + sizes[nr], 0, size - sizes[nr]);
	if (nr == 6 && pk == P_OK) {
		/* The ops array is in th->buf: the argument must not be. */
		p = arg;
	} else {
		p = pk == P_OK ? arg : arg_at(th, pk, arg, size ? size : 1);
	}
	r = xioctl(fd, cmd, p);
	e = errno;
	tlog(th, "chaos ioctl fd %d cmd %#lx ptr %s -> %ld %d", fd, cmd,
	     pk_name[pk], r, e);
	if (r < 0) {
		if (r != -1 || !errno_in(e, errs))
			bad_errno(th, NULL, "ioctl (chaos)", r, e,
				  "an errno the header documents");
		return;
	}
	if (nr >= 9) {
		bad_errno(th, NULL, "unknown ioctl (chaos)", r, e, "ENOTTY");
		return;
	}
	if (pk != P_OK || size < sizes[nr])
		return;
	switch (nr) {
	case 0: {
		struct twheel_info *in = p;

		if (in->version != TWHEEL_ABI_VERSION || in->event_size != EV ||
		    /* (A record of clock sets is queued, not a timer.) */
		    in->queued > in->timers +
		    !!(in->config_flags & TWHEEL_CONFIG_CLOCK_SET) ||
		    in->timers > in->max_timers ||
		    in->tick_ns < TWHEEL_MIN_TICK_NS ||
		    in->tick_ns > TWHEEL_MAX_TICK_NS ||
		    in->config_flags & ~(TWHEEL_CONFIG_MANUAL |
					 TWHEEL_CONFIG_TABLE |
					 TWHEEL_CONFIG_CLOCK_SET |
					 TWHEEL_CONFIG_RING) ||
		    (size >= sizeof(*in) &&
		     !(in->config_flags & TWHEEL_CONFIG_TABLE) !=
		     !in->table_size))
			violation(th, NULL, V_ORACLE, "INFO (chaos): version %u"
				  " timers %llu queued %llu max %"
				  "llu tick %llu", in->version,
				  in->timers, in->queued, in->max_timers,
				  in->tick_ns);
		break;
	}
	case 1:
		if (!((struct twheel_add *)p)->id)
			violation(th, NULL, V_ORACLE, "ADD (chaos): id 0");
		remember_id(th, ((struct twheel_add *)p)->id);
		ST_INC(th, chaos_created);
		break;
	case 2:
	case 3: {
		uint32_t res = nr == 2 ? ((struct twheel_cancel *)p)->result :
			((struct twheel_modify *)p)->result;

		if (res != TWHEEL_STATE_PENDING && res != TWHEEL_STATE_QUEUED)
			violation(th, NULL, V_ORACLE, "%s (chaos): result %u",
				  nr == 2 ? "CANCEL" : "MODIFY", res);
		break;
	}
	case 4: {
		struct twheel_query *q = p;

		if (!status_ok(&q->status) || q->status.id != q->id)
			violation(th, NULL, V_ORACLE, "QUERY (chaos): state %u "
				  "count %llu clock %u", q->status.state,
				  q->status.count, q->status.clock);
		break;
	}
	case 5: {
		struct twheel_list *l = p;
		struct twheel_status *st = (void *)(uintptr_t)l->statuses;
		uint32_t i;

		if (l->count > l->capacity) {
			violation(th, NULL, V_ORACLE, "LIST (chaos): count %u "
				  "capacity %u", l->count, l->capacity);
			break;
		}
		if (st != (void *)(th->buf + 65536))
			break;
		for (i = 0; i < l->count; i++) {
			if (!status_ok(&st[i])) {
				violation(th, NULL, V_ORACLE, "LIST (chaos): "
					  "entry %u bad", i);
				break;
			}
			remember_id(th, st[i].id);
		}
		break;
	}
	case 6: {
		struct twheel_submit *s = p;
		struct twheel_op *ops = (void *)(uintptr_t)s->ops;
		long i;

		if (r > s->nr) {
			violation(th, NULL, V_ORACLE, "SUBMIT (chaos): %ld of %u",
				  r, s->nr);
			break;
		}
		if (ops != (void *)(th->buf + 8192))
			break;
		for (i = 0; i < r; i++) {
			int32_t er = ops[i].error;

			if (er && er != -EINVAL && er != -ENOENT &&
			    er != -ENOSPC && er != -ENOMEM) {
				violation(th, NULL, V_ERRNO, "SUBMIT (chaos): "
					  "op %ld error %d", i, er);
				break;
			}
			if (!er && ops[i].op == TWHEEL_OP_ADD) {
				remember_id(th, ops[i].id);
				ST_INC(th, chaos_created);
			}
		}
		break;
	}
	case 8:
		if (((struct twheel_advance *)p)->now_ns < 0)
			violation(th, NULL, V_ORACLE, "ADVANCE (chaos): now %"
				  "lld", ((struct twheel_advance *)p)->now_ns);
		break;
	}
}

static void chaos_read(struct th *th, int fd)
{
	static const int errs[] = { EAGAIN, EINVAL, EFAULT, EINTR, EBADF, 0 };
	size_t n = rnd(th, 20), count = n * EV + (chance(th, 20) ? rnd(th, EV) : 0);
	enum ptrkind pk = pick_pk(th, 10);
	size_t fit = n;
	void *buf;
	long r;
	int e;

	ST_INC(th, ops[K_READ]);
	buf = pk == P_OK ? (void *)th->buf : arr_at(th, pk, th->buf + 65536, EV,
						     n, &fit);
	r = read(fd, buf, count);
	e = errno;
	tlog(th, "chaos read fd %d count %zu ptr %s -> %ld %d", fd, count,
	     pk_name[pk], r, e);
	if (r < 0) {
		if (!errno_in(e, errs))
			bad_errno(th, NULL, "read (chaos)", r, e,
				  "EAGAIN/EINVAL/EFAULT/EINTR/EBADF");
		else if (e == EINVAL && count >= EV)
			bad_errno(th, NULL, "read (chaos, room for a record)", r,
				  e, "not EINVAL");
		return;
	}
	if (count < EV || r % EV || (size_t)r > n * EV ||
	    (pk != P_OK && (size_t)r > fit * EV) || r == 0) {
		violation(th, NULL, V_ORACLE, "read (chaos): %ld bytes for "
			  "count %zu (fit %zu)", r, count, fit);
		return;
	}
	if (pk == P_OK && !records_ok(th, buf, r / EV))
		violation(th, NULL, V_ORACLE, "read (chaos): a malformed record");
}

static void chaos_poll(struct th *th, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN | (chance(th, 30) ? EPOLLET : 0) };
	int r;

	if (chance(th, 50)) {
		ST_INC(th, ops[K_POLL]);
		r = poll(&p, 1, rnd(th, 20));
		if (r < 0 && errno != EINTR)
			bad_errno(th, NULL, "poll (chaos)", r, errno, "EINTR");
		if (r > 0 && (p.revents & ~(POLLIN | POLLRDNORM | POLLNVAL)))
			violation(th, NULL, V_ORACLE, "poll (chaos): revents %#x",
				  p.revents);
		return;
	}
	ST_INC(th, ops[K_EPOLL]);
	if (epoll_ctl(th->epfd, EPOLL_CTL_ADD, fd, &ev) && errno != EEXIST &&
	    errno != EBADF && errno != EPERM)
		bad_errno(th, NULL, "epoll_ctl (chaos)", -1, errno, "0/EEXIST");
	r = epoll_wait(th->epfd, &ev, 1, rnd(th, 20));
	if (r < 0 && errno != EINTR)
		bad_errno(th, NULL, "epoll_wait (chaos)", r, errno, "EINTR");
	if (chance(th, 30))
		epoll_ctl(th->epfd, EPOLL_CTL_DEL, fd, NULL);
}

static void chaos_open(struct th *th)
{
	int fd;

	ST_INC(th, ops[K_OPEN]);
	fd = open(TWT_DEV, O_RDWR | O_CLOEXEC | (chance(th, 70) ? O_NONBLOCK : 0));
	if (fd < 0) {
		if (errno != EMFILE && errno != ENFILE && errno != ENOMEM)
			bad_errno(th, NULL, "open (chaos)", fd, errno, "an fd");
		return;
	}
	if (chance(th, 50)) {
		struct twheel_config c = {
			.tick_ns = TWHEEL_MIN_TICK_NS + rnd(th, 5 * MS),
			.flags = rnd(th, 2),
		};

		/* A shared timer table, often with a small maximum. */
		if (chance(th, 40)) {
			c.flags |= TWHEEL_CONFIG_TABLE;
			if (chance(th, 70)) {
				struct twheel_info in;

				c.flags |= TWHEEL_CONFIG_MAX_TIMERS;
				c.max_timers = 1 + rnd(th, 3000);
				/*
				 * At most the fd's maximum (EINVAL above): a
				 * strict thread may have lowered max_timers
				 * for the moment of this open (s_open()).
				 */
				memset(&in, 0, sizeof(in));
				if (!xioctl(fd, TWHEEL_IOC_INFO, &in) &&
				    c.max_timers > in.max_timers)
					c.max_timers = in.max_timers;
			}
		}

		if (xioctl(fd, TWHEEL_IOC_CONFIG, &c))
			bad_errno(th, NULL, "CONFIG of a new fd (chaos)", -1,
				  errno, "success");
	}
	tab_put(th, fd);
}

static void chaos_step(struct th *th, bool child);

/* A forked child: the table's fds, single-threaded, for a moment. */
static void chaos_fork(struct th *th)
{
	pid_t pid;
	int status;

	ST_INC(th, ops[K_FORK]);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		struct itimerval it = {
			.it_interval = { 0, 30000 }, .it_value = { 0, 30000 },
		};
		s64 until = mono() + (50 + rnd(th, 250)) * MS;

		th->rs ^= 0x1234567;
		th->idx += 100;
		setitimer(ITIMER_REAL, &it, NULL);	/* EINTR for reads */
		while (mono() < until && !time_up())
			chaos_step(th, true);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		violation(th, NULL, V_ORACLE, "forked child: status %#x", status);
}

static void chaos_step(struct th *th, bool child)
{
	unsigned int r = rnd(th, 1000);
	int fd = tab_get(th);

	if (r < 30) {
		chaos_open(th);
	} else if (r < 60) {
		int old;

		ST_INC(th, ops[K_CLOSE]);
		old = __atomic_exchange_n(&g_tab[rnd(th, NTAB)], -1,
					  __ATOMIC_RELAXED);
		if (old >= 3 && close(old) && errno != EBADF)
			bad_errno(th, NULL, "close (chaos)", -1, errno, "0");
	} else if (r < 80) {
		int d;

		ST_INC(th, ops[K_DUP]);
		if (fd < 0)
			return;
		if (chance(th, 50)) {
			d = dup(fd);
			if (d >= 0)
				tab_put(th, d);
		} else {
			int to = tab_get(th);

			if (to >= 3 && to != fd)
				dup2(fd, to);
		}
	} else if (r < 82 && !child) {
		chaos_fork(th);
	} else if (r < 100) {
		if (fd >= 0)
			chaos_table(th, fd);
	} else if (r < 620) {
		if (fd >= 0)
			chaos_ioctl(th, fd);
	} else if (r < 850) {
		if (fd >= 0)
			chaos_read(th, fd);
	} else if (fd >= 0) {
		chaos_poll(th, fd);
	}
}

void *chaos_main(void *arg)
{
	struct th *th = arg;

	th_mem_init(th);
	while (!time_up())
		chaos_step(th, false);
	return NULL;
}
