// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz_table.c - the chaos operation on the shared timer table of an
 * fd: mmap() it, right or wrong, and store into it.
 */
#include "twfuzz.h"

/*
 * The shared timer table of a chaos fd, through a private dup (nobody
 * else closes or replaces it): wrong mappings are refused with their
 * errno; a right one is stored into with any value, a timer's own
 * deadlines and cancels included (they must all be harmless), in the
 * entries up to one of an id just added (backed: slots are taken in
 * order, pages never given back), while other threads use the fd.
 */
void chaos_table(struct th *th, int fd)
{
	size_t pg = g_pg, len;
	struct twheel_info in;
	struct twheel_add a;
	u64 *t, i, n, id;
	int d, prot, flags, e;
	off_t off = 0;
	void *m;

	ST_INC(th, ops[K_TABLE]);
	d = dup(fd);
	if (d < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.cookie = rnd64(th);
	a.clock = valid_clock(th);
	a.expires_ns = chance(th, 50) ? (s64)rnd(th, 50 * MS) :
		       (s64)rnd(th, 3600) * 1000000000LL;
	a.period_ns = chance(th, 10) ? MS * (1 + rnd(th, 20)) : 0;
	id = xioctl(d, TWHEEL_IOC_ADD, &a) ? 0 : a.id;
	/* After a timer was added, the configuration is fixed. */
	memset(&in, 0, sizeof(in));
	if (xioctl(d, TWHEEL_IOC_INFO, &in))
		goto out;
	len = in.table_size ? (1 + rnd(th, in.table_size / pg)) * pg : pg;
	prot = PROT_READ | PROT_WRITE;
	flags = MAP_SHARED;
	switch (chance(th, 20) ? rnd(th, 4) : 4) {
	case 0:
		flags = MAP_PRIVATE;
		break;
	case 1:
		prot |= PROT_EXEC;
		break;
	case 2:
		off = (off_t)pg * (1 + rnd(th, 4));
		break;
	case 3:
		len = in.table_size + pg;
		break;
	}
	m = mmap(NULL, len, prot, flags, d, off);
	e = errno;
	tlog(th, "table fd %d size %llu len %zu prot %#x flags %#x off %lld "
	     "-> %p %d", d, in.table_size, len, prot, flags, (long long)off,
	     m, e);
	if (m == MAP_FAILED) {
		/*
		 * ENODEV: no table (the fd may have been configured by
		 * another thread's chaos since INFO); EPERM for PROT_EXEC;
		 * EINVAL for the rest; ENOMEM, EAGAIN from the VM.
		 */
		if (e != ENODEV && e != EINVAL && e != EPERM && e != ENOMEM &&
		    e != EAGAIN)
			bad_errno(th, NULL, "mmap of the table (chaos)", -1, e,
				  "ENODEV, EINVAL, EPERM");
		else if (id && in.table_size && flags == MAP_SHARED && !off &&
			 !(prot & PROT_EXEC) && len <= in.table_size &&
			 e != ENOMEM && e != EAGAIN)
			bad_errno(th, NULL, "mmap of the table (chaos)", -1, e,
				  "success");
		goto out;
	}
	if (id && (!in.table_size || flags != MAP_SHARED || off ||
		   (prot & PROT_EXEC) || len > in.table_size))
		violation(th, NULL, V_ORACLE, "mmap of the table (chaos): "
			  "size %llu len %zu prot %#x flags %#x off %lld "
			  "accepted", in.table_size, len, prot, flags,
			  (long long)off);
	t = m;
	ST_INC(th, table_maps);
	if (id) {
		n = TWHEEL_TABLE_INDEX(id) + 1;
		if (n > len / sizeof(u64))
			n = len / sizeof(u64);
		for (i = 0; i < 1 + rnd(th, 64); i++) {
			u64 k = rnd(th, n), v;

			switch (rnd(th, 6)) {
			case 0:
				v = rnd64(th);
				break;
			case 1:
				v = TWHEEL_TABLE_CANCELLED(id);
				k = TWHEEL_TABLE_INDEX(id);
				break;
			case 2:
				v = TWHEEL_TABLE_DEADLINE(id, t[k] +
							   rnd(th, 100));
				k = TWHEEL_TABLE_INDEX(id);
				break;
			case 3:		/* another timer's deadline, later */
				v = t[k] + rnd(th, 1000);
				break;
			case 4:
				v = t[k] | TWHEEL_TABLE_CANCEL;
				break;
			default:
				v = t[k] ^ (1ULL << rnd(th, 64));
				break;
			}
			__atomic_store_n(&t[k], v, __ATOMIC_RELAXED);
			ST_INC(th, table_stores);
		}
	}
	if (chance(th, 30)) {
		/* A mapping outlives the fd and the dup. */
		close(d);
		d = -1;
		usleep(rnd(th, 2000));
	}
	munmap(m, len);
out:
	if (d >= 0)
		close(d);
}
