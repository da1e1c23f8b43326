// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_abi.c - the strict operations on the fd's configuration and the
 * ABI's edges: CONFIG, commands the fd must not know, argument sizes
 * other than this header's.
 */
#include "twfuzz.h"

/* CONFIG: allowed only before the first timer, EBUSY after. */
void s_config(struct th *th, struct sfd *f)
{
	static const u64 bad_ticks[] = { 0, 1, 999, 1000000001ULL,
					      UINT64_MAX };
	struct twheel_config c;
	enum ptrkind pk = pick_pk(th, 6);
	bool invalid = false;
	void *p;
	long r;
	int e;

	ST_INC(th, ops[K_CONFIG]);
	memset(&c, 0, sizeof(c));
	switch (rnd(th, 5)) {
	case 0:
		c.tick_ns = TWHEEL_MIN_TICK_NS;
		break;
	case 1:
		c.tick_ns = TWHEEL_MAX_TICK_NS;
		break;
	case 2:
		c.tick_ns = TWHEEL_DEFAULT_TICK_NS;
		break;
	default:
		c.tick_ns = TWHEEL_MIN_TICK_NS +
			rnd(th, chance(th, 50) ? 2 * TWHEEL_DEFAULT_TICK_NS :
			    TWHEEL_MAX_TICK_NS - TWHEEL_MIN_TICK_NS);
		break;
	}
	c.flags = chance(th, 50) ? TWHEEL_CONFIG_MANUAL : 0;
	if (chance(th, 25))
		c.flags |= TWHEEL_CONFIG_CLOCK_SET;
	switch (chance(th, 15) ? rnd(th, 3) : 3) {
	case 0:
		c.tick_ns = bad_ticks[rnd(th, 5)];
		invalid = true;
		break;
	case 1:
		c.flags |= unknown_bits(th, TWHEEL_CONFIG_MANUAL |
					 TWHEEL_CONFIG_MAX_TIMERS |
					 TWHEEL_CONFIG_TABLE |
					 TWHEEL_CONFIG_CLOCK_SET |
					 TWHEEL_CONFIG_RING);
		invalid = true;
		break;
	case 2:
		c.__reserved = 1 + rnd(th, 1000);
		invalid = true;
		break;
	}
	p = arg_at(th, pk, &c, sizeof(c));
	r = xioctl(f->fd, TWHEEL_IOC_CONFIG, p);
	e = errno;
	tlog(th, "config fd %d tick %llu fl %#x res %#x ptr %s -> %ld %d "
	     "(used %d)", f->fd, c.tick_ns, c.flags, c.__reserved, pk_name[pk],
	     r, e, f->used);
	if (pk != P_OK && pk != P_RO) {
		ST_INC(th, faults);
		if (r != -1 || e != EFAULT)
			bad_errno(th, f, "CONFIG (unreadable)", r, e, "EFAULT");
		return;
	}
	if (invalid) {
		if (r != -1 || (e != EINVAL && !(f->used && e == EBUSY)))
			bad_errno(th, f, "CONFIG (invalid)", r, e, "EINVAL");
		else
			ST_INC(th, invalid);
		return;
	}
	if (f->used) {
		if (r != -1 || e != EBUSY)
			bad_errno(th, f, "CONFIG (after a timer)", r, e, "EBUSY");
		else
			ST_INC(th, invalid);
		return;
	}
	if (r) {
		bad_errno(th, f, "CONFIG", r, e, "success");
		return;
	}
	/* The fd had no timer: nothing to carry over; the last one counts. */
	f->tick = c.tick_ns;
	f->manual = c.flags & TWHEEL_CONFIG_MANUAL;
	f->clock_set = c.flags & TWHEEL_CONFIG_CLOCK_SET;
	f->now = 0;
}

/* Commands the fd must not know: ENOTTY, nothing changed. */
void s_badcmd(struct th *th, struct sfd *f)
{
	static const unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
					     _IOC_READ | _IOC_WRITE };
	static const unsigned int want_dir[] = { _IOC_READ, 3, 3, 3, 3, 3,
						 _IOC_WRITE, _IOC_WRITE, 3 };
	unsigned long cmd;
	unsigned int nr, dir;
	long r;

	ST_INC(th, ops[K_BADCMD]);
	memset(th->buf, 0, 256);
	switch (rnd(th, 3)) {
	case 0:		/* another type */
		cmd = _IOC(dirs[rnd(th, 4)], 0xBB - 2 * rnd(th, 2), rnd(th, 16),
			   rnd(th, 128));
		break;
	case 1:		/* an unknown number */
		cmd = IOC(dirs[rnd(th, 4)], 9 + rnd(th, 247), rnd(th, 128));
		break;
	default:	/* a known number with the wrong direction */
		nr = rnd(th, 9);
		do {
			dir = dirs[rnd(th, 4)];
		} while (dir == want_dir[nr]);
		cmd = IOC(dir, nr, 8 + 8 * rnd(th, 12));
		break;
	}
	r = xioctl(f->fd, cmd, th->buf);
	tlog(th, "badcmd fd %d cmd %#lx -> %ld %d", f->fd, cmd, r, errno);
	if (r != -1 || errno != ENOTTY)
		bad_errno(th, f, "unknown command", r, errno, "ENOTTY");
	else
		ST_INC(th, invalid);
}

/*
 * Argument sizes other than this header's: older (smaller: INFO's 40
 * bytes; below the first published size: EINVAL) and newer (larger: a
 * zero tail is fine and comes back zero, else E2BIG).
 */
void s_sizes(struct th *th, struct sfd *f)
{
	unsigned char *b = (unsigned char *)th->buf;
	struct tsamp t0 = { { 0 } }, t1 = { { 0 } };
	size_t size, i;
	long r;
	int e;

	ST_INC(th, ops[K_SIZES]);
	switch (rnd(th, 6)) {
	case 0: {	/* INFO, smaller or larger */
		struct twheel_info *in = (struct twheel_info *)b;

		size = chance(th, 30) ? rnd(th, 40) :
			chance(th, 50) ? 40 + 8 * rnd(th, 9) :
			sizeof(*in) + 8 * rnd(th, 64);
		memset(b, 0xAA, 2048);
		AROUND(f, t, r = xioctl(f->fd, IOC(_IOC_READ, 0, size), b));
		e = errno;
		tlog(th, "info size %zu -> %ld %d", size, r, e);
		if (size < 40) {
			if (r != -1 || e != EINVAL)
				bad_errno(th, f, "INFO (< 40 bytes)", r, e,
					  "EINVAL");
			else
				ST_INC(th, invalid);
			return;
		}
		if (r) {
			bad_errno(th, f, "INFO (other size)", r, e, "success");
			return;
		}
		for (i = size; i < size + 64; i++)
			if (b[i] != 0xAA) {
				violation(th, f, V_ORACLE, "INFO of %zu bytes "
					  "wrote byte %zu", size, i);
				return;
			}
		for (i = sizeof(*in); i < size; i++)
			if (b[i]) {
				violation(th, f, V_ORACLE, "INFO of %zu bytes: "
					  "byte %zu not zeroed", size, i);
				return;
			}
		if (in->version != TWHEEL_ABI_VERSION || in->event_size != EV ||
		    in->tick_ns != f->tick || in->timers != (u64)f->n)
			violation(th, f, V_ORACLE, "INFO of %zu bytes: version %u"
				  " tick %llu timers %llu", size,
				  in->version, in->tick_ns, in->timers);
		else if (size >= sizeof(*in))
			check_info(th, f, in, &t1, "INFO (larger)");
		return;
	}
	case 1: case 2: {	/* ADD: version 1's 32 bytes, or larger */
		struct twheel_add *a = (struct twheel_add *)b;
		bool tail = chance(th, 40), small = chance(th, 20);

		if (f->n >= (int)f->max_timers)
			return;
		size = small ? 32 : sizeof(*a) + 8 * (1 + rnd(th, 8));
		memset(b, 0, size);
		a->cookie = new_cookie(th);
		a->clock = valid_clock(th);
		a->expires_ns = gen_rel(th, f->tick, f->manual);
		if (tail && !small)
			b[sizeof(*a) + rnd(th, size - sizeof(*a))] = 1 +
				rnd(th, 255);
		tail = tail && !small;
		AROUND(f, t, r = xioctl(f->fd, IOC(3, 1, size), b));
		e = errno;
		tlog(th, "add size %zu tail %d cookie %#llx exp %lld"
		     " clk %u -> %ld %d id %#llx", size, tail, a->cookie,
		     a->expires_ns, a->clock, r, e, a->id);
		if (small || tail) {
			if (r != -1 || e != (small ? EINVAL : E2BIG))
				bad_errno(th, f, small ? "ADD (32 bytes)" :
					  "ADD (non-zero tail)", r, e,
					  small ? "EINVAL" : "E2BIG");
			else
				ST_INC(th, invalid);
			return;
		}
		if (r) {
			bad_errno(th, f, "ADD (larger)", r, e, "success");
			return;
		}
		for (i = sizeof(*a); i < size; i++)
			if (b[i])
				violation(th, f, V_ORACLE, "ADD of %zu bytes: "
					  "byte %zu of the tail not zero", size,
					  i);
		sh_created(th, f, a->id, a->cookie, a->clock, 0, a->expires_ns,
			   0, &t0, &t1, "ADD (larger)");
		return;
	}
	case 3: {	/* CANCEL below 16 bytes, QUERY with a tail */
		struct twheel_query *q = (struct twheel_query *)b;
		bool tail = chance(th, 50);

		if (chance(th, 50)) {
			size = rnd(th, 16);
			memset(b, 0, 16);
			r = xioctl(f->fd, IOC(3, 2, size), b);
			e = errno;
			tlog(th, "cancel size %zu -> %ld %d", size, r, e);
			if (r != -1 || e != EINVAL)
				bad_errno(th, f, "CANCEL (< 16 bytes)", r, e,
					  "EINVAL");
			else
				ST_INC(th, invalid);
			return;
		}
		size = sizeof(*q) + 8 * (1 + rnd(th, 4));
		memset(b, 0, size);
		q->id = pick_id(th, f);
		if (tail)
			b[size - 1 - rnd(th, size - sizeof(*q))] = 1;
		AROUND(f, t, r = xioctl(f->fd, IOC(3, 4, size), b));
		e = errno;
		tlog(th, "query size %zu tail %d id %#llx -> %ld %d",
		     size, tail, q->id, r, e);
		if (tail) {
			if (r != -1 || e != E2BIG)
				bad_errno(th, f, "QUERY (non-zero tail)", r, e,
					  "E2BIG");
			else
				ST_INC(th, invalid);
			return;
		}
		if (!sh_find(f, q->id)) {
			if (r != -1 || e != ENOENT)
				bad_errno(th, f, "QUERY (larger, no timer)", r, e,
					  "ENOENT");
			return;
		}
		if (r) {
			bad_errno(th, f, "QUERY (larger)", r, e, "success");
			return;
		}
		check_status(th, f, sh_find(f, q->id), &q->status, &t0, &t1,
			     "QUERY (larger)");
		return;
	}
	case 4: {	/* SUBMIT, LIST, CONFIG, ADVANCE, MODIFY smaller */
		static const unsigned int nrs[] = { 3, 4, 5, 6, 7, 8 };
		static const unsigned int mins[] = { 40, 72, 32, 24, 16, 24 };
		unsigned int k = rnd(th, 6);

		size = rnd(th, mins[k]);
		memset(b, 0, 128);
		r = xioctl(f->fd, IOC(nrs[k] == 6 || nrs[k] == 7 ? _IOC_WRITE : 3,
				      nrs[k], size), b);
		e = errno;
		tlog(th, "ioctl nr %u size %zu -> %ld %d", nrs[k], size, r, e);
		if (r != -1 || e != EINVAL)
			bad_errno(th, f, "ioctl below its first size", r, e,
				  "EINVAL");
		else
			ST_INC(th, invalid);
		return;
	}
	default: {	/* LIST and SUBMIT larger, tail zero or not */
		struct twheel_submit *s = (struct twheel_submit *)b;
		bool tail = chance(th, 50);

		size = sizeof(*s) + 8 * (1 + rnd(th, 8));
		memset(b, 0, size);
		s->op_size = sizeof(struct twheel_op);
		s->nr = 0;
		if (tail)
			b[sizeof(*s) + rnd(th, size - sizeof(*s))] = 0x80;
		r = xioctl(f->fd, IOC(_IOC_WRITE, 6, size), b);
		e = errno;
		tlog(th, "submit nr 0 size %zu tail %d -> %ld %d", size, tail, r,
		     e);
		if (tail ? (r != -1 || e != E2BIG) : r != 0)
			bad_errno(th, f, "SUBMIT (larger)", r, e,
				  tail ? "E2BIG" : "0");
		else if (tail)
			ST_INC(th, invalid);
		return;
	}
	}
}
