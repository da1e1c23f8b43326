/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faults_snap.h - for the fault walks (faults.h): what a call may change,
 * as a snapshot taken with no fault armed (take_snap()), whose views of
 * the fd must agree with each other; the check that nothing in it changed
 * (CHECK_SAME()), and what a failing check prints of the round under way.
 */
#ifndef FAULTS_SNAP_H
#define FAULTS_SNAP_H

#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>

#include <linux/twheel.h>

#include "twtest.h"

#define MAX_TIMERS	4200

#define U(x)		((unsigned long long)(x))
#define S(x)		((long long)(x))

/* ---- what a call may change: a snapshot, taken with no fault armed ----- */

struct snap {
	int nfds;			/* the process's open fds */
	long long refcnt;		/* the module's reference count */
	int fd;				/* -1: only the two above */
	struct twheel_info info;
	char fdinfo[2048];		/* minus the lines every file has */
	int readable;
	long long now;			/* the manual clock, or -1 */
	uint32_t n;
	struct twheel_status st[MAX_TIMERS];	/* LIST order, remaining_ns 0 */
};

static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	CHECK(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static inline void read_fdinfo(int fd, char *buf, size_t len)
{
	char path[64], line[256];
	size_t used = 0, l;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	CHECK(f);
	buf[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "pos:", 4) || !strncmp(line, "flags:", 6) ||
		    !strncmp(line, "mnt_id:", 7) || !strncmp(line, "ino:", 4))
			continue;
		l = strlen(line);
		CHECK(used + l < len);
		memcpy(buf + used, line, l + 1);
		used += l;
	}
	fclose(f);
}

/* The value of "key:\t<n>" in fdinfo text, or -1. */
static inline long long fdinfo_val(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ':')
			return strtoll(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* Every timer of fd, in LIST order, remaining_ns zeroed; their number. */
static inline uint32_t list_all(int fd, struct twheel_status *st, uint32_t cap)
{
	struct twheel_list l;
	uint32_t n = 0, k;
	int calls = 0;

	memset(&l, 0, sizeof(l));
	l.status_size = sizeof(*st);
	do {
		CHECK(n < cap);
		CHECK(++calls < 10000);
		l.statuses = (uint64_t)(uintptr_t)(st + n);
		l.capacity = cap - n;
		CHECK_OK(ioctl(fd, TWHEEL_IOC_LIST, &l));
		n += l.count;
	} while (l.cursor);
	for (k = 0; k < n; k++)
		st[k].remaining_ns = 0;
	return n;
}

static inline void take_snap(int fd, struct snap *s)
{
	uint32_t k, queued = 0;

	s->nfds = count_fds();
	s->refcnt = twt_sysfs_read("/sys/module/twheel/refcnt");
	s->fd = fd;
	if (fd < 0)
		return;
	s->n = list_all(fd, s->st, MAX_TIMERS);
	s->info = twt_info(fd);
	read_fdinfo(fd, s->fdinfo, sizeof(s->fdinfo));
	s->readable = !!(twt_poll(fd, 0) & POLLIN);
	s->now = s->info.config_flags & TWHEEL_CONFIG_MANUAL ?
		 twt_advance(fd, 0) : -1;
	/* The views agree with each other. */
	for (k = 0; k < s->n; k++)
		queued += s->st[k].state == TWHEEL_STATE_QUEUED;
	CHECK_EQ(s->info.timers, s->n);
	CHECK_EQ(s->info.queued, queued);
	CHECK_EQ(s->readable, queued > 0);
	CHECK_EQ(fdinfo_val(s->fdinfo, "timers"), s->n);
	CHECK_EQ(fdinfo_val(s->fdinfo, "queued"), queued);
	CHECK_EQ(fdinfo_val(s->fdinfo, "pending"), s->n - queued);
	if (s->now >= 0)
		CHECK_EQ(fdinfo_val(s->fdinfo, "manual_now_ns"), s->now);
}

static inline const struct twheel_status *snap_find(const struct snap *s,
					     uint64_t cookie)
{
	uint32_t k;

	for (k = 0; k < s->n; k++)
		if (s->st[k].cookie == cookie)
			return &s->st[k];
	return NULL;
}

static inline void print_text(const char *what, const char *text)
{
	const char *p = text, *e;

	printf("# %s:\n", what);
	while (*p) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		printf("#   %.*s\n", (int)(e - p), p);
		p = *e ? e + 1 : e;
	}
}

static inline void print_status(const char *what, const struct twheel_status *st)
{
	printf("# %s: id %#llx cookie %llu deadline %lld period %llu count %llu clock %u state %u\n",
	       what, U(st->id), U(st->cookie), S(st->deadline_ns),
	       U(st->period_ns), U(st->count), st->clock, st->state);
}

/* The round under way, for diagnostics. */
static const char *cur_walk = "";
static int cur_nth, cur_err;

static inline void print_where(void)
{
	if (cur_nth)
		printf("# in %s, fault %d injected (the call: %s)\n", cur_walk,
		       cur_nth, cur_err ? strerror(cur_err) : "succeeded");
	else
		printf("# in %s, clean round\n", cur_walk);
}

/* CHECK_SAME(a, b): nothing a call may change differs. */
#define CHECK_SAME(a, b)	snap_same(__FILE__, __LINE__, (a), (b))
static inline void snap_same(const char *file, int line, const struct snap *a,
		      const struct snap *b)
{
	uint32_t k;

	if (a->nfds != b->nfds || a->refcnt != b->refcnt || a->fd != b->fd) {
		print_where();
		twt_fail(file, line, "open fds %d -> %d, module refcnt %lld -> %lld, fd %d -> %d",
			 a->nfds, b->nfds, a->refcnt, b->refcnt, a->fd, b->fd);
	}
	if (a->fd < 0)
		return;
	if (memcmp(&a->info, &b->info, sizeof(a->info))) {
		print_where();
		twt_fail(file, line, "INFO changed: timers %llu -> %llu, queued %llu -> %llu, tick %llu -> %llu, config %u -> %u",
			 U(a->info.timers), U(b->info.timers),
			 U(a->info.queued), U(b->info.queued),
			 U(a->info.tick_ns), U(b->info.tick_ns),
			 a->info.config_flags, b->info.config_flags);
	}
	if (strcmp(a->fdinfo, b->fdinfo)) {
		print_where();
		print_text("fdinfo before", a->fdinfo);
		print_text("fdinfo after", b->fdinfo);
		twt_fail(file, line, "fdinfo changed");
	}
	if (a->readable != b->readable || a->now != b->now) {
		print_where();
		twt_fail(file, line, "readable %d -> %d, manual clock %lld -> %lld",
			 a->readable, b->readable, a->now, b->now);
	}
	if (a->n != b->n) {
		print_where();
		twt_fail(file, line, "LIST: %u timers before, %u after", a->n,
			 b->n);
	}
	for (k = 0; k < a->n; k++) {
		if (!memcmp(&a->st[k], &b->st[k], sizeof(a->st[k])))
			continue;
		print_where();
		print_status("before", &a->st[k]);
		print_status("after", &b->st[k]);
		twt_fail(file, line, "LIST entry %u changed", k);
	}
}

#endif /* FAULTS_SNAP_H */
