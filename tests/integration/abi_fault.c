// SPDX-License-Identifier: GPL-2.0
/*
 * abi_fault: argument memory that cannot be read or written (EFAULT),
 * for each of the nine ioctls (abi_table.h): pointers to nowhere, an
 * argument whose tail is not mapped, a read-only argument (the commands
 * that write it back fail; a write-only command, SUBMIT or CONFIG, takes
 * it from read-only memory, also a larger one with a zero tail); a
 * read-only ADD creates no timer, a read-only CANCEL cancels none.
 */
#include "abi_table.h"

/* Argument pointers that point nowhere: EFAULT, nothing changed. */
static void efault_pointers(void)
{
	struct ictx x = { 0 };
	unsigned int k, b;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);
		void *bad[] = { NULL, NULL, NULL, (void *)1,
				(void *)0xffff880000000000ULL, (void *)-64L };

		begin(d, &x);
		bad[1] = arg_guard;
		bad[2] = arg_guard + 1000;
		for (b = 0; b < sizeof(bad) / sizeof(bad[0]); b++)
			call(d, &x, d->cmd, bad[b], size, EFAULT, "pointer");
		end(&x);
	}
}

/*
 * An argument whose first bytes are mapped and the rest not (every
 * 4-byte split): EFAULT, nothing changed.
 */
static void efault_straddle(void)
{
	struct ictx x = { 0 };
	unsigned int k;
	size_t cut;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);

		for (cut = 4; cut < size; cut += 4) {
			begin(d, &x);
			call(d, &x, d->cmd, place(cut), size, EFAULT,
			     "straddle");
			end(&x);
		}
	}
}

/*
 * A read-only argument: the commands that write it back fail with
 * EFAULT and change nothing; those that only read it (SUBMIT, CONFIG)
 * work.
 */
static void efault_readonly(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct ictx x = { 0 };
	unsigned int k;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];
		size_t size = _IOC_SIZE(d->cmd);
		unsigned char *p;

		p = mmap(NULL, pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(p != MAP_FAILED);
		begin(d, &x);
		memcpy(p + pg - size, valid, size);
		CHECK_OK(mprotect(p, pg, PROT_READ));
		call(d, &x, d->cmd, p + pg - size, size,
		     d->writes ? EFAULT : 0, "read-only");
		end(&x);
		munmap(p, pg);
	}
}

/*
 * The same with a larger struct whose tail is zero: the commands that
 * write fail with EFAULT and change nothing; the write-only ones (SUBMIT,
 * CONFIG) only read it, and work. The old code wrote zeroes over the
 * tail of every larger struct before anything else, also for those two:
 * EFAULT, nothing done.
 */
static void efault_readonly_larger(void)
{
	static const size_t extra[] = { 8, 64, 1000 };
	long pg = sysconf(_SC_PAGESIZE);
	struct ictx x = { 0 };
	unsigned int k, e;

	for (k = 0; k < NDESCS; k++) {
		const struct idesc *d = &descs[k];

		for (e = 0; e < sizeof(extra) / sizeof(extra[0]); e++) {
			size_t size = _IOC_SIZE(d->cmd) + extra[e];
			unsigned char *p;

			p = mmap(NULL, pg, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			CHECK(p != MAP_FAILED);
			begin(d, &x);
			memcpy(p + pg - size, valid, size);
			CHECK_OK(mprotect(p, pg, PROT_READ));
			call(d, &x, CMD_SIZE(d->cmd, size), p + pg - size, size,
			     d->writes ? EFAULT : 0, "read-only, larger");
			end(&x);
			munmap(p, pg);
		}
	}
}

/*
 * A read-only ADD: the kernel can read it but not write the id back. The
 * header: EFAULT, and nothing is changed: no timer is created (none ever
 * fires, also one that would be due at once or soon) and none cancelled.
 */
static void efault_readonly_add(void)
{
	int fd = twt_open(O_NONBLOCK);
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t id = twt_add_rel(fd, 1, 3600 * TWT_S);
	uint64_t qid = twt_add_abs(fd, 2, 0, CLOCK_MONOTONIC);
	struct twheel_add *a;
	struct twheel_cancel *c;
	struct twheel_event ev;
	char *p;

	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	CHECK(p != MAP_FAILED);
	a = (struct twheel_add *)p;
	a->cookie = 100;
	a->expires_ns = 0;		/* due at once */
	a->flags = TWHEEL_ABSTIME;
	a->clock = CLOCK_MONOTONIC;
	a[1] = a[0];
	a[1].cookie = 101;
	a[1].expires_ns = 30 * TWT_MS;	/* pending, would fire soon */
	a[1].flags = 0;
	a[2] = a[1];
	a[2].cookie = 102;
	a[2].period_ns = 10 * TWT_MS;	/* periodic */
	a[2].clock = CLOCK_REALTIME;
	c = (struct twheel_cancel *)(p + 256);
	c[0].id = id;
	c[1].id = qid;
	CHECK_OK(mprotect(p, pg, PROT_READ));

	CHECK_ERR(ioctl(fd, TWHEEL_IOC_ADD, &a[0]), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_ADD, &a[1]), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_ADD, &a[2]), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_CANCEL, &c[0]), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_CANCEL, &c[1]), EFAULT);
	CHECK_ERR(ioctl(fd, TWHEEL_IOC_INFO, p), EFAULT);

	/* Still exactly the two timers from before, one queued. */
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_EQ(twt_queued(fd), 1);
	twt_sleep_ms(100);		/* a[1] would have fired by now */
	CHECK_EQ(twt_timers(fd), 2);
	CHECK_EQ(twt_queued(fd), 1);
	CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	CHECK_EQ(ev.id, qid);
	CHECK_EQ(ev.cookie, 2);
	CHECK_EQ(twt_cancel(fd, id), TWHEEL_STATE_PENDING);
	CHECK_UNTOUCHED(fd, 0);
	close(fd);
}

TWT_MAIN("abi_fault",
	 TWT_CASE(efault_pointers),
	 TWT_CASE(efault_straddle),
	 TWT_CASE(efault_readonly),
	 TWT_CASE(efault_readonly_larger),
	 TWT_CASE(efault_readonly_add))
