// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl - look at and exercise /dev/twheel.
 *
 *   twheelctl info                    what a new fd is (ABI, tick, limits)
 *   twheelctl after MS [MS...]        one timer per MS; print each expiry
 *   twheelctl stress N SPAN_MS [PCT]  N timers 100 ms + [0, SPAN_MS) ahead,
 *                                     cancel PCT% of
 *                                     them, wait with epoll, and check that
 *                                     every other one fires exactly once,
 *                                     never early
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "libtwheel.h"

#define NS_PER_MS 1000000LL

static void die(const char *what)
{
	fprintf(stderr, "twheelctl: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void show_fdinfo(int fd, const char *indent)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "pos:", 4) && strncmp(line, "flags:", 6) &&
		    strncmp(line, "mnt_id:", 7) && strncmp(line, "ino:", 4))
			printf("%s%s", indent, line);
	fclose(f);
}

static int cmd_info(void)
{
	struct twheel_info info;
	int fd = twheel_open(O_CLOEXEC);

	if (fd < 0)
		die("open /dev/twheel");
	if (twheel_info(fd, &info) < 0)
		die("TWHEEL_IOC_INFO");
	printf("abi version:  %u\n", info.version);
	printf("record size:  %u bytes\n", info.event_size);
	printf("tick:         %" PRIu64 " ns\n", (uint64_t)info.tick_ns);
	printf("max timers:   %" PRIu64 " per fd\n", (uint64_t)info.max_timers);
	printf("fdinfo:\n");
	show_fdinfo(fd, "  ");
	close(fd);
	return 0;
}

static int cmd_after(int argc, char **argv)
{
	int fd = twheel_open(O_CLOEXEC);
	int64_t start, *deadline;
	struct twheel_event ev;
	int i, left = argc;

	if (fd < 0)
		die("open /dev/twheel");
	deadline = calloc(argc, sizeof(*deadline));
	if (!deadline)
		die("calloc");
	start = twheel_now(TWHEEL_CLOCK_MONOTONIC);
	for (i = 0; i < argc; i++) {
		uint64_t id;

		deadline[i] = start + atoll(argv[i]) * NS_PER_MS;
		if (twheel_add(fd, i, deadline[i], TWHEEL_CLOCK_MONOTONIC,
			       TWHEEL_ADD_ABSTIME, &id) < 0)
			die("TWHEEL_IOC_ADD");
		printf("timer %" PRIu64 ": in %s ms\n", id, argv[i]);
	}
	while (left) {
		if (twheel_read(fd, &ev, 1) != 1)
			die("read");
		printf("timer %" PRIu64 " fired at +%.3f ms (%.3f ms after its deadline)\n",
		       (uint64_t)ev.id, (ev.time_ns - start) / 1e6,
		       (ev.time_ns - deadline[ev.cookie]) / 1e6);
		left--;
	}
	free(deadline);
	close(fd);
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Small, fast, seeded: reproducible runs. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int cmd_stress(long n, long span_ms, long pct)
{
	int64_t *deadline, *late, start, t_add, t_cancel, next_report;
	uint64_t *ids, cancelled = 0, fired = 0, early = 0, dup = 0;
	struct twheel_event evs[256];
	struct epoll_event ee = { .events = EPOLLIN };
	unsigned char *seen;
	int fd, ep, bad = 0;
	long i;

	fd = twheel_open(O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		die("open /dev/twheel");
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ee) < 0)
		die("epoll");
	deadline = calloc(n, sizeof(*deadline));
	late = calloc(n, sizeof(*late));
	ids = calloc(n, sizeof(*ids));
	seen = calloc(n, 1);
	if (!deadline || !late || !ids || !seen)
		die("calloc");

	/*
	 * Deadlines lie 100 ms + [0, SPAN_MS) after the clock read at the
	 * start of each batch of 1024 adds: never already due when added
	 * (a batch takes far less than 100 ms), and exact, so "never early"
	 * is checked against the true deadline. One clock read per batch
	 * keeps the add loop's timing about adds.
	 */
	start = twheel_now(TWHEEL_CLOCK_MONOTONIC);
	for (i = 0; i < n; i++) {
		static int64_t batch;

		if (!(i % 1024))
			batch = twheel_now(TWHEEL_CLOCK_MONOTONIC);
		deadline[i] = batch + 100 * NS_PER_MS +
			(int64_t)(rng() % (uint64_t)(span_ms * NS_PER_MS));
		if (twheel_add(fd, i, deadline[i], TWHEEL_CLOCK_MONOTONIC,
			       TWHEEL_ADD_ABSTIME, &ids[i]) < 0)
			die("TWHEEL_IOC_ADD");
	}
	t_add = twheel_now(TWHEEL_CLOCK_MONOTONIC);
	for (i = 0; i < n; i++) {
		if ((long)(rng() % 100) >= pct)
			continue;
		if (twheel_cancel(fd, ids[i]) < 0)
			die("TWHEEL_IOC_CANCEL");
		seen[i] = 2;
		cancelled++;
	}
	t_cancel = twheel_now(TWHEEL_CLOCK_MONOTONIC);
	printf("scheduled %ld timers over %ld ms: %.0f ns per add; cancelled %" PRIu64
	       ": %.0f ns per cancel\n", n, span_ms,
	       (double)(t_add - start) / n, cancelled,
	       cancelled ? (double)(t_cancel - t_add) / cancelled : 0.0);
	show_fdinfo(fd, "  fdinfo ");

	next_report = start + 500 * NS_PER_MS;
	while (fired + cancelled < (uint64_t)n) {
		int64_t now;
		ssize_t r, k;

		if (epoll_wait(ep, &ee, 1, 2000 + span_ms) < 0 && errno != EINTR)
			die("epoll_wait");
		while ((r = twheel_read(fd, evs, 256)) > 0) {
			for (k = 0; k < r; k++) {
				uint64_t c = evs[k].cookie;

				if (c >= (uint64_t)n || seen[c]) {
					dup++;
					continue;
				}
				seen[c] = 1;
				if (evs[k].time_ns < deadline[c])
					early++;
				late[fired++] = evs[k].time_ns - deadline[c];
			}
		}
		if (r < 0 && errno != EAGAIN)
			die("read");
		now = twheel_now(TWHEEL_CLOCK_MONOTONIC);
		if (now >= next_report) {
			printf("  t=%5.1f s  fired %8" PRIu64 " of %8" PRIu64 "\n",
			       (now - start) / 1e9, fired, n - cancelled);
			while (next_report <= now)
				next_report += 500 * NS_PER_MS;
		}
		if (now > start + (span_ms + 30000) * NS_PER_MS) {
			printf("gave up waiting: %" PRIu64 " timers never fired\n",
			       n - cancelled - fired);
			bad = 1;
			break;
		}
	}
	qsort(late, fired, sizeof(*late), cmp_i64);
	printf("fired %" PRIu64 ", cancelled %" PRIu64 ", early %" PRIu64
	       ", duplicated %" PRIu64 "\n", fired, cancelled, early, dup);
	if (fired)
		printf("lateness: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
		       late[fired / 2] / 1e6, late[fired * 99 / 100] / 1e6,
		       late[fired - 1] / 1e6);
	if (early || dup || fired + cancelled != (uint64_t)n)
		bad = 1;
	printf("%s\n", bad ? "FAILED" : "every timer ended exactly once, none early");
	free(deadline);
	free(late);
	free(ids);
	free(seen);
	close(ep);
	close(fd);
	return bad;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "info"))
		return cmd_info();
	if (argc >= 3 && !strcmp(argv[1], "after"))
		return cmd_after(argc - 2, argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "stress") && atol(argv[2]) > 0 &&
	    atol(argv[3]) > 0)
		return cmd_stress(atol(argv[2]), atol(argv[3]),
				  argc > 4 ? atol(argv[4]) : 0);
	fprintf(stderr,
		"usage: twheelctl info\n"
		"       twheelctl after MS [MS...]\n"
		"       twheelctl stress N SPAN_MS [CANCEL_PERCENT]\n");
	return 2;
}
