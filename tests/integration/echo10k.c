// SPDX-License-Identifier: GPL-2.0
/*
 * echo10k: the example twheel-echo-server (userspace/examples/) with
 * 10 000 client connections, once per way it keeps its idle timeouts
 * (--timers modify: one MODIFY per activity; batch: the MODIFYs of a turn
 * of its loop in one SUBMIT; table: a store into the shared timer table,
 * no system call). The clients: echo10k_clients.h.
 * Idle timeout 1 s. It checks:
 *   - none closed early: the client sees a close no sooner than the
 *     timeout after the start of its last send that was echoed (or of its
 *     connect); the server's log agrees (idle time and the record's time
 *     since its last activity);
 *   - none closed twice: every connection ends one way, each once in the
 *     server's log, no record arrives for a closed connection (table: but
 *     one queued before its cancel was stored, which the server ignores);
 *   - every quiet connection is closed (within 60 s of the last thing
 *     that happened, which is no bound on the server's timing);
 *   - every byte the server logs it echoed, the clients saw echoed, and
 *     no other (a read of its log holds all a recv() loop got: one
 *     message, or more when a late client sent its next one at once);
 *   - the timer system calls: the server counts them, the kernel counts
 *     the ADDs (sysfs timers_created) and each kind of operation (one
 *     tracefs instance per event, where the kernel has tracefs; the server
 *     is the only twheel user while the case runs):
 *     modify: one MODIFY per activity, one CANCEL per connection;
 *     batch: no MODIFY alone, at most one SUBMIT per activity;
 *     table: no MODIFY, SUBMIT or CANCEL: no timer system call to push a
 *     timeout back or to cancel one. ADDs: one per connection, plus one
 *     per re-add the server logs, and every record it read is explained
 *     by its log: a close for idleness, a re-add, or one queued before
 *     its cancel was stored. The server re-adds when a record's time is
 *     before the deadline last stored (the push came after the kernel had
 *     read the entry: a stall of half the timeout between a send and its
 *     echo), or when input is waiting unread as the record is read; how
 *     many there are depends on the machine's speed, so they are
 *     reported, and the rule asserted, not a number.
 * Only lower bounds are asserted on time: a slow machine delays closes, it
 * never makes them early. The last case prints the three ways' timer
 * system calls per activity at 10 000 connections.
 * On the debug kernel (KASAN, lockdep, kmemleak under TCG) the cases use
 * DEBUG_CONNS connections: 10 000 there take minutes per case.
 */
#include "echo10k.h"
#include "echo_modes.h"
#include "echo10k_clients.h"
#include "echo10k_log.h"
#include "echo10k_kernel.h"

/* ---- the case */

static void idle_timeouts(const char *mode)
{
	long created, expired, read_recs, tr[N_TRACE] = { 0 };
	struct clients cl = { 0 };
	struct server_log l = { 0 };
	struct rlimit rl;
	int64_t start, clients_ns;
	int i, s, out, status;
	bool traced;
	pid_t pid;

	if (access(SERVER, X_OK))
		twt_skip("twheel-echo-server not built (userspace/examples/examples.mk)");
	/* The debug test kernel may be built without TCP/IP. */
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 && (errno == ENOSYS || errno == EAFNOSUPPORT))
		twt_skip("no TCP/IP sockets in this kernel");
	CHECK_OK(s);
	close(s);
	loopback_up();

	cl.n = debug_kernel() ? DEBUG_CONNS : N_CONNS;
	if (cl.n != N_CONNS)
		printf("# debug kernel: %d connections, not %d (too slow under KASAN and TCG)\n",
		       cl.n, N_CONNS);
	/* A socket per connection here, and one in the server. */
	rl.rlim_cur = rl.rlim_max = cl.n + 1024;
	CHECK_OK(setrlimit(RLIMIT_NOFILE, &rl));
	cl.c = calloc(cl.n, sizeof(*cl.c));
	cl.heap = calloc(cl.n, sizeof(*cl.heap));
	l.closes = calloc(cl.n, 1);
	l.n = cl.n;
	l.first_port = -1;
	l.expect = -1;
	CHECK(cl.c && cl.heap && l.closes);

	traced = trace_start((long)cl.n * MAX_ACTS);
	created = twt_sysfs_read(STATS "timers_created");
	expired = twt_sysfs_read(STATS "expirations");
	read_recs = twt_sysfs_read(STATS "records_read");
	CHECK(created >= 0 && expired >= 0 && read_recs >= 0);

	out = open(SERVER_OUT, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK_OK(out);
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0) {
		dup2(out, 1);
		dup2(out, 2);
		execl(SERVER, SERVER, "--port", "0", "--timeout",
		      XSTR(TIMEOUT_MS), "--timers", mode, (char *)NULL);
		_exit(127);
	}
	close(out);
	cl.port = server_port(pid, &l);

	start = twt_mono();
	run_clients(&cl);
	clients_ns = twt_mono() - start;
	/* The clients' own closes reach the server last: wait for them. */
	for (i = 0; i < 600; i++) {
		read_server_log(&l, false);
		if (l.idle_closed + l.client_closed >= l.accepted &&
		    l.accepted >= cl.n - cl.failed)
			break;
		twt_sleep_ms(100);
	}
	if (waitpid(pid, &status, WNOHANG) == pid)
		twt_fail(__FILE__, __LINE__, "the server exited (status %d)",
			 status);
	kill(pid, SIGTERM);
	CHECK(waitpid(pid, &status, 0) == pid);
	read_server_log(&l, true);
	if (traced)
		trace_count(tr);
	created = twt_sysfs_read(STATS "timers_created") - created;
	expired = twt_sysfs_read(STATS "expirations") - expired;
	read_recs = twt_sysfs_read(STATS "records_read") - read_recs;

	printf("# --timers %s: %d connections, idle timeout %d ms, a message every %.0f ms, %d to %d each, 1 in %d closes itself; clients ran %.1f s\n",
	       mode, cl.n, TIMEOUT_MS, INTERVAL_NS / 1e6, MIN_ACTS, MAX_ACTS,
	       QUIT_EVERY, clients_ns / 1e9);
	printf("# clients: sends=%ld echoes=%ld closed by the server=%d (%d while sending: allowed after a stall) closed themselves=%d early=%d not_closed=%d failed=%d; sends late by up to %.1f ms\n",
	       cl.sends, cl.echoes, cl.server_closed, cl.while_active,
	       cl.client_closed, cl.early, cl.not_closed, cl.failed,
	       cl.max_lag / 1e6);
	if (cl.server_closed)
		printf("# closest close to its last activity, seen by the client: %.3f ms (timeout %d ms)\n",
		       cl.min_gap / 1e6, TIMEOUT_MS);
	printf("# server: accepted=%ld echoed=%ld (%ld bytes) idle_closed=%ld client_closed=%ld early=%ld twice=%ld errors=%ld late_cancel=%ld (allowed: table)\n",
	       l.accepted, l.echoed, l.echoed_bytes, l.idle_closed, l.client_closed, l.early,
	       l.twice, l.errors, l.late_cancel);
	printf("# server: idle close after the deadline: max %.3f ms (not asserted)\n",
	       l.late_max);
	printf("# server's timer syscalls: add=%ld modify=%ld cancel=%ld submit=%ld (readd=%ld: %ld pushes too late, by up to %.3f ms, %ld input waiting, of which %ld the client's close); activities=%ld; per activity %.3f\n",
	       l.add, l.modify, l.cancel, l.submit, l.readd, l.readd_late,
	       l.readd_lead_max, l.readd_waiting, l.readd_closed,
	       l.activities, l.per_activity);
	printf("# kernel: timers_created=%ld expirations=%ld records_read=%ld; trace: %s add=%ld modify=%ld cancel=%ld\n",
	       created, expired, read_recs,
	       traced ? "on" : "off (no tracefs)", tr[0], tr[1], tr[2]);

	/* SIGTERM: it reports its timer system calls and exits 0. */
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(l.summary);
	CHECK(!strcmp(l.mode, mode));
	CHECK_EQ(l.errors, 0);
	CHECK_EQ(cl.failed, 0);
	/* Never early, seen from both ends. */
	CHECK_EQ(cl.early, 0);
	CHECK_EQ(l.early, 0);
	/* Each ends once, one way; every quiet one is closed. */
	CHECK_EQ(l.twice, 0);
	CHECK_EQ(cl.not_closed, 0);
	CHECK_EQ(l.accepted, cl.n);
	CHECK_EQ(l.conns, cl.n);
	CHECK_EQ(l.idle_closed + l.client_closed, l.accepted);
	CHECK_EQ(cl.server_closed + cl.client_closed, cl.n);
	/*
	 * The client sees each idle close but of one it closed itself at
	 * the same moment; the server sees each of its closes but of one
	 * it closed first.
	 */
	CHECK(l.idle_closed >= cl.server_closed);
	CHECK_EQ(l.idle_closed - cl.server_closed,
		 cl.client_closed - l.client_closed);
	/*
	 * Every byte the server echoed, the clients saw echoed, and no
	 * other: the server logs the bytes of each read (one read may hold
	 * several messages, when the client sent its next one late, at once
	 * after an echo) and of those echoed before a client's close (no
	 * push for them). Each logged read with input is one activity.
	 */
	CHECK_EQ(l.echoed_bytes, cl.echoes * MSG_LEN);
	CHECK(l.echoed <= cl.echoes);
	CHECK_EQ(l.activities, l.echoed);
	/*
	 * One ADD per connection, and one per re-add it logged: for a
	 * record before the deadline stored, or for input waiting, which it
	 * then read.
	 */
	CHECK_EQ(l.readd, l.readded);
	CHECK_EQ(l.readd_unexplained, 0);
	CHECK_EQ(l.add, l.accepted + l.readd);
	CHECK_EQ(created, l.add);
	if (!strcmp(mode, "table")) {
		/* No timer system call per activity, none to close. */
		CHECK_EQ(l.modify, 0);
		CHECK_EQ(l.submit, 0);
		CHECK_EQ(l.cancel, 0);
		/* Every record it read: an idle close, a re-add, or late. */
		CHECK_EQ(read_recs, l.idle_closed + l.readd + l.late_cancel);
		CHECK(expired >= read_recs);
	} else {
		CHECK_EQ(l.readd, 0);
		CHECK_EQ(l.late_cancel, 0);
		CHECK_EQ(l.cancel, l.accepted);
	}
	if (!strcmp(mode, "modify")) {
		/* One MODIFY per activity. */
		CHECK_EQ(l.modify, l.activities);
		CHECK_EQ(l.submit, 0);
	}
	if (!strcmp(mode, "batch")) {
		/* At most one SUBMIT per activity, no MODIFY alone. */
		CHECK_EQ(l.modify, 0);
		CHECK(l.submit > 0 && l.submit <= l.activities);
	}
	if (traced) {
		/* The kernel's count of the operations agrees. */
		CHECK_EQ(tr[0], l.add);
		if (!strcmp(mode, "table")) {
			CHECK_EQ(tr[1], 0);
			/* Only the lazy cancels the stores asked for. */
			CHECK(tr[2] <= l.client_closed);
		} else {
			CHECK_EQ(tr[1], l.activities);
			CHECK_EQ(tr[2], l.accepted);
		}
	}
	{
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), RATIO_FILE, mode);
		f = fopen(path, "w");
		CHECK(f);
		fprintf(f, "%.3f (%d connections)\n", l.per_activity, cl.n);
		fclose(f);
	}
}

static void modify(void)
{
	idle_timeouts("modify");
}

static void batch(void)
{
	idle_timeouts("batch");
}

/* Last: the three side by side, as the earlier cases left them. */
static void table(void)
{
	idle_timeouts("table");
	echo_print_modes(RATIO_FILE);
}

TWT_MAIN("echo10k", TWT_CASE_T(modify, 300), TWT_CASE_T(batch, 300),
	 TWT_CASE_T(table, 300))
