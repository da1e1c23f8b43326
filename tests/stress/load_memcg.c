// SPDX-License-Identifier: GPL-2.0
/*
 * load_memcg.c: the memcg case of twstress-load: adds at a memory
 * cgroup's limit until ENOMEM, what may fail there and what must not,
 * checked by the oracle (load_oracle.c).
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include "load.h"

#define CG		"/sys/fs/cgroup"
#define CGDIR		CG "/twstress"

/*
 * memcg: this process in a memory cgroup whose memory.max is KIB above
 * its usage; one-shot timers (due 2 s after their add, unread meanwhile)
 * are added until TWHEEL_IOC_ADD fails with ENOMEM. Then: the failing
 * call changed nothing; a batch's adds fail each on its own (ENOMEM) or
 * succeed; after 4096 cancels and after 4096 records read, 1024 adds each
 * succeed again, still at the limit; every timer created ends exactly
 * once; nobody was OOM-killed (memory.events oom_kill, /proc/vmstat).
 *
 * At the limit this process must not fault in a page nor make the kernel
 * allocate for it (a file, a pipe or tmpfs page for stdout): either would
 * call the cgroup's OOM killer. So everything is allocated and touched
 * before, and nothing is printed until the limit is lifted.
 */
static void write_file(const char *path, const char *s)
{
	CHECK_OK(twt_sysfs_write(path, s));
}

static long long keyed(const char *path, const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			v = atoll(line + len + 1);
	fclose(f);
	return v;
}

/* The kernel log lines so far that contain what (-1: no /dev/kmsg). */
static long long kmsg_count(const char *what)
{
	char rec[2048];
	long long n = 0;
	ssize_t r;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (r <= 0)
			break;
		rec[r] = 0;
		if (strstr(rec, what))
			n++;
	}
	close(fd);
	return n;
}

/*
 * At the limit: single adds until one fails (with ENOMEM: returned), so
 * that no charge is left over on this CPU for the call that follows.
 */
static int fill_to_limit(struct oracle *o, int fd)
{
	uint64_t id;
	int64_t d;
	long i;

	for (;;) {
		i = slot_new(o, CLOCK_MONOTONIC, 0);
		if (i < 0)
			return -1;
		d = twt_mono() + 2 * TWT_S;
		if (twt_add_raw(fd, i, d, TWHEEL_ABSTIME, CLOCK_MONOTONIC,
				&id))
			return errno;
		atomic_fetch_add(&o->ops, 1);
		slot_created(o, i, id, d);
	}
}

static void __attribute__((noinline)) touch_stack(void)
{
	volatile char pad[256 * 1024];

	memset((char *)pad, 0, sizeof(pad));
}

/*
 * memcg: add @n timers due 2 s from now, at the cgroup's limit where the
 * case has just freed room. Return: how many adds failed.
 */
static long long memcg_add(struct oracle *o, int fd, int n)
{
	long long failed = 0;
	uint64_t id;
	long i;
	int64_t d;
	int j;

	for (j = 0; j < n; j++) {
		i = slot_new(o, CLOCK_MONOTONIC, 0);
		d = twt_mono() + 2 * TWT_S;
		if (i >= 0 && twt_add_raw(fd, i, d, TWHEEL_ABSTIME,
					  CLOCK_MONOTONIC, &id) == 0)
			slot_created(o, i, id, d);
		else
			failed++;
	}
	return failed;
}

void memcg(void)
{
	static struct twheel_event buf[RDBUF];
	static struct twheel_op ops[16];
	long kib = arg1 > 0 ? arg1 : 4096;
	long long oom0, cur, retry_nomem = 0, batch_ok = 0, batch_nomem = 0;
	long long reread = 0, at_fail = 0, cancel_err = 0, readd_err = 0;
	uint64_t timers_at_fail = 0;
	int64_t t0 = twt_mono(), d;
	struct oracle o;
	char pid[32], lim[32];
	int fd, maxfd, err = 0, again_err = 0, j, r;
	int newclock_err, list_err, batch_err;
	long long ev_max, ev_oom, ev_kill, vm_kill, kill0, kills;
	int round, fill_bad = 0;
	long long n_ok;
	struct twheel_status st[16];
	struct twheel_list l;
	uint32_t result;
	uint64_t id;
	long i;

	mkdir(CG, 0755);
	if (mount("none", CG, "cgroup2", 0, NULL) < 0)
		CHECK(errno == EBUSY);
	write_file(CG "/cgroup.subtree_control", "+memory");
	if (mkdir(CGDIR, 0755) < 0)
		CHECK(errno == EEXIST);
	write_file(CGDIR "/memory.max", "max");
	/* The cgroup's limit, ENOMEM, must come first: not ENOSPC. */
	ensure_user_limits(1, 1 << 22);
	/* vmstat's oom_kill needs VM_EVENT_COUNTERS (not on the debug kernel). */
	oom0 = keyed("/proc/vmstat", "oom_kill");
	kill0 = kmsg_count("Killed process");
	CHECK(kill0 >= 0);
	/*
	 * Unkillable: should anything call the cgroup's OOM killer, it finds
	 * no victim and the allocation fails instead; memory.events counts
	 * the call ("oom"), checked below.
	 */
	write_file("/proc/self/oom_score_adj", "-1000");
	oracle_init(&o, 1 << 20);
	touch_stack();
	memset(buf, 0, sizeof(buf));
	memset(ops, 0, sizeof(ops));
	fd = twt_open(O_NONBLOCK | O_CLOEXEC);
	/* Everything mapped now is faulted in, charged outside the cgroup. */
	CHECK_OK(mlockall(MCL_CURRENT));
	snprintf(pid, sizeof(pid), "%d", getpid());
	write_file(CGDIR "/cgroup.procs", pid);
	/* The first add allocates the clock's wheel: before the limit. */
	i = slot_new(&o, CLOCK_MONOTONIC, 0);
	d = twt_mono() + 2 * TWT_S;
	slot_created(&o, i, twt_add_abs(fd, i, d, CLOCK_MONOTONIC), d);
	maxfd = open(CGDIR "/memory.max", O_WRONLY | O_CLOEXEC);
	CHECK_OK(maxfd);
	cur = twt_sysfs_read(CGDIR "/memory.current");
	CHECK(cur >= 0);
	snprintf(lim, sizeof(lim), "%lld", cur + kib * 1024);
	printf("# memcg: memory.current %lld, memory.max %s\n", cur, lim);
	fflush(stdout);

	/*
	 * At the limit from here on: no printing, no CHECK (it prints), no
	 * new memory; outcomes are kept and judged once the limit is lifted.
	 */
	CHECK_EQ(write(maxfd, lim, strlen(lim)), (ssize_t)strlen(lim));
	for (;;) {
		i = slot_new(&o, CLOCK_MONOTONIC, 0);
		if (i < 0) {
			err = -1;
			break;
		}
		d = twt_mono() + 2 * TWT_S;
		if (twt_add_raw(fd, i, d, TWHEEL_ABSTIME, CLOCK_MONOTONIC,
				&id)) {
			err = errno;
			break;
		}
		atomic_fetch_add(&o.ops, 1);
		slot_created(&o, i, id, d);
	}
	at_fail = atomic_load(&o.created);
	/* The failing call changed nothing; neither do the next ones. */
	timers_at_fail = twt_timers(fd);
	for (j = 0; j < 16 && err == ENOMEM; j++) {
		i = slot_new(&o, CLOCK_MONOTONIC, 0);
		d = twt_mono() + 2 * TWT_S;
		if (i < 0)
			break;
		if (twt_add_raw(fd, i, d, TWHEEL_ABSTIME, CLOCK_MONOTONIC,
				&id) == 0) {
			/* Room again (a per-cpu charge cache): a real timer. */
			slot_created(&o, i, id, d);
			timers_at_fail++;
		} else if (errno == ENOMEM) {
			retry_nomem++;
		} else {
			again_err = errno;
		}
		if (twt_timers(fd) != timers_at_fail)
			again_err = -2;
	}
	/*
	 * A first timer on another clock needs that clock's wheel, a LIST
	 * its buffer, a batch its copy of the operations: at the limit each
	 * may fail with ENOMEM, and must not call the OOM killer.
	 */
	/*
	 * Allocations without __GFP_NORETRY reclaim first (the cgroup's
	 * charges cached on other CPUs come back), so they may succeed where
	 * an add just failed. The first round follows the failed adds at
	 * once; the next ones fill up again before each call, until each
	 * has failed.
	 */
	newclock_err = list_err = batch_err = 0;
	for (round = 0; round < 8 && !(newclock_err && list_err && batch_err);
	     round++) {
		if (!newclock_err) {
			if (round && fill_to_limit(&o, fd) != ENOMEM)
				fill_bad++;
			d = twt_now(CLOCK_REALTIME) + 2 * TWT_S;
			i = slot_new(&o, CLOCK_REALTIME, 0);
			if (i >= 0 && twt_add_raw(fd, i, d, TWHEEL_ABSTIME,
						  CLOCK_REALTIME, &id) == 0)
				slot_created(&o, i, id, d);
			else
				newclock_err = errno;
		}
		if (!list_err) {
			if (round && fill_to_limit(&o, fd) != ENOMEM)
				fill_bad++;
			memset(&l, 0, sizeof(l));
			l.statuses = (uintptr_t)st;
			l.capacity = 16;
			l.status_size = sizeof(st[0]);
			list_err = ioctl(fd, TWHEEL_IOC_LIST, &l) ? errno : 0;
		}
		if (batch_err)
			continue;
		/* Each of a batch's adds fails (ENOMEM) or succeeds. */
		if (round && fill_to_limit(&o, fd) != ENOMEM)
			fill_bad++;
		timers_at_fail = twt_timers(fd);
		for (j = 0; j < 16; j++) {
			ops[j].op = TWHEEL_OP_ADD;
			ops[j].flags = TWHEEL_ABSTIME;
			ops[j].cookie = slot_new(&o, CLOCK_MONOTONIC, 0);
			ops[j].clock = CLOCK_MONOTONIC;
			ops[j].expires_ns = twt_mono() + 2 * TWT_S;
		}
		r = twt_submit_raw(fd, ops, 16);
		batch_err = r < 0 ? errno : 0;
		n_ok = 0;
		for (j = 0; j < (r > 0 ? r : 0); j++) {
			if (ops[j].error == 0 && ops[j].cookie < o.cap) {
				slot_created(&o, ops[j].cookie, ops[j].id,
					     ops[j].expires_ns);
				n_ok++;
			} else if (ops[j].error == -ENOMEM) {
				batch_nomem++;
			} else {
				again_err = -4;
			}
		}
		batch_ok += n_ok;
		if (r >= 0 && r != 16)
			again_err = -3;
		if (twt_timers(fd) != timers_at_fail + n_ok)
			again_err = -5;
	}
	/* Free by cancelling the first 4096 timers, then add 1024. */
	for (i = 1; i <= 4096 && i < at_fail; i++) {
		if (twt_cancel_raw(fd, o.s[i].id, 0, &result) ||
		    (result != TWHEEL_STATE_PENDING &&
		     result != TWHEEL_STATE_QUEUED))
			cancel_err++;
		else
			slot_cancelled(&o, i, result);
	}
	readd_err += memcg_add(&o, fd, 1024);
	/* Free by reading 4096 records (due 2 s after their add), add 1024. */
	while (reread < 4096 && twt_mono() - t0 < 600 * TWT_S) {
		ssize_t r = read(fd, buf, (4096 - reread) * sizeof(*buf));

		if (r > 0 && r % TWT_EV_SIZE == 0) {
			absorb(&o, 0, buf, r / TWT_EV_SIZE);
			reread += r / TWT_EV_SIZE;
		} else if (r < 0 && errno == EAGAIN) {
			twt_sleep_ms(50);
		} else {
			break;
		}
	}
	readd_err += memcg_add(&o, fd, 1024);
	/* Lift the limit before printing anything. */
	CHECK_EQ(write(maxfd, "max", 3), 3);
	close(maxfd);

	printf("# memcg: %s after %lld timers; the next 16 adds: %lld ENOMEM, timers %llu before and after; batch of 16: %lld ok, %lld ENOMEM\n",
	       err > 0 ? strerror(err) : "no failure", at_fail, retry_nomem,
	       (unsigned long long)timers_at_fail, batch_ok, batch_nomem);
	printf("# memcg: at the limit, in %d rounds: first add on a new clock: %s; LIST: %s; batch: %s\n",
	       round,
	       newclock_err ? strerror(newclock_err) : "ok",
	       list_err ? strerror(list_err) : "ok",
	       batch_err ? strerror(batch_err) : "ok");
	printf("# memcg: at the limit: 4096 cancelled (%lld errors), %lld read; 2048 re-adds, %lld failed\n",
	       cancel_err, reread, readd_err);
	CHECK_EQ(err, ENOMEM);
	CHECK(at_fail > 8192);
	CHECK_EQ(again_err, 0);
	CHECK_EQ(fill_bad, 0);
	CHECK(newclock_err == 0 || newclock_err == ENOMEM);
	CHECK(list_err == 0 || list_err == ENOMEM);
	CHECK(batch_err == 0 || batch_err == ENOMEM);
	CHECK_EQ(cancel_err, 0);
	CHECK_EQ(reread, 4096);
	CHECK_EQ(readd_err, 0);
	printf("# memcg: memory.stat: anon %lld file %lld kernel %lld kernel_stack %lld pagetables %lld percpu %lld sock %lld slab %lld; %.1f bytes of the limit per timer at ENOMEM\n",
	       keyed(CGDIR "/memory.stat", "anon"),
	       keyed(CGDIR "/memory.stat", "file"),
	       keyed(CGDIR "/memory.stat", "kernel"),
	       keyed(CGDIR "/memory.stat", "kernel_stack"),
	       keyed(CGDIR "/memory.stat", "pagetables"),
	       keyed(CGDIR "/memory.stat", "percpu"),
	       keyed(CGDIR "/memory.stat", "sock"),
	       keyed(CGDIR "/memory.stat", "slab"),
	       kib * 1024.0 / (at_fail ? at_fail : 1));
	printf("# memcg: memory.events: max %lld oom %lld oom_kill %lld; vmstat oom_kill %lld -> %lld\n",
	       keyed(CGDIR "/memory.events", "max"),
	       keyed(CGDIR "/memory.events", "oom"),
	       keyed(CGDIR "/memory.events", "oom_kill"), oom0,
	       keyed("/proc/vmstat", "oom_kill"));
	ev_max = keyed(CGDIR "/memory.events", "max");
	ev_oom = keyed(CGDIR "/memory.events", "oom");
	ev_kill = keyed(CGDIR "/memory.events", "oom_kill");
	vm_kill = keyed("/proc/vmstat", "oom_kill");
	kills = kmsg_count("Killed process") - kill0;
	printf("# memcg: processes killed (kernel log): %lld\n", kills);

	collect(&o, &fd, 1);
	CHECK_EQ(twt_timers(fd), 0);
	close(fd);
	verify(&o, "memcg", t0, 1);
	oracle_free(&o);
	CHECK(ev_max > 0);
	/* The OOM killer was never called ("oom"), nobody was killed. */
	CHECK_EQ(ev_oom, 0);
	CHECK_EQ(ev_kill, 0);
	CHECK_EQ(kills, 0);
	CHECK_EQ(vm_kill, oom0);
}
