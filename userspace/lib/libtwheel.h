/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtwheel - a thin C library over /dev/twheel (see <linux/twheel.h>).
 *
 * Every function returns -1 and leaves the kernel's errno on failure,
 * exactly as the underlying system call did; nothing is retried or hidden.
 * The helpers at the end (draining the records, building a batch, a batch
 * operation's outcome as errno, the idle-timeout tracker) say where they
 * differ.
 * Requests are the ABI's own structs, filled with designated initialisers,
 * so no two arguments of one type can be swapped by mistake:
 *
 *	struct twheel_add a = {
 *		.cookie = conn_id,
 *		.expires_ns = 30 * TWHEEL_SEC,
 *		.clock = CLOCK_MONOTONIC,
 *	};
 *	if (twheel_add(fd, &a) < 0)
 *		err(1, "twheel_add");
 *	... a.id is the timer's id ...
 */
#ifndef LIBTWHEEL_H
#define LIBTWHEEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <linux/twheel.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TWHEEL_USEC	1000LL
#define TWHEEL_MSEC	1000000LL
#define TWHEEL_SEC	1000000000LL

/*
 * open("/dev/twheel") with @flags (O_CLOEXEC, O_NONBLOCK), then the
 * handshake: fails with EPROTO (fd closed) when the running module's ABI
 * version is not TWHEEL_ABI_VERSION. Returns the fd.
 */
int twheel_open(int flags);

/*
 * What to do when twheel_open() failed with errno @err: a static string
 * (no newline) for a program to print after its own message, e.g. for
 * ENOENT "is the module loaded? modprobe twheel (or insmod twheel.ko)";
 * NULL for an errno with nothing to add to strerror(@err). Not a system
 * call: it prints nothing and leaves errno alone. twheelctl prints these.
 */
const char *twheel_open_hint(int err);

/* TWHEEL_IOC_INFO. Returns 0. */
int twheel_info(int fd, struct twheel_info *info);

/*
 * TWHEEL_IOC_CONFIG, before the first timer: tick, manual clock, maximum
 * of timers, shared timer table, record ring (@cfg->flags passed as
 * given).
 */
int twheel_config(int fd, const struct twheel_config *cfg);

/* TWHEEL_IOC_ADD; on success @req->id is the new timer's id. Returns 0. */
int twheel_add(int fd, struct twheel_add *req);

/*
 * TWHEEL_IOC_MODIFY. Returns the state the timer was in
 * (TWHEEL_STATE_PENDING, or TWHEEL_STATE_QUEUED: its record retracted).
 */
int twheel_modify(int fd, struct twheel_modify *req);

/* TWHEEL_IOC_CANCEL of timer @id. Returns the state it was in. */
int twheel_cancel(int fd, uint64_t id);

/* TWHEEL_IOC_QUERY of timer @id into *@st. Returns 0. */
int twheel_query(int fd, uint64_t id, struct twheel_status *st);

/*
 * One TWHEEL_IOC_LIST call: up to @n statuses into @st, from *@cursor
 * (0 to start); *@cursor is set to where the next call goes on, 0 when
 * the listing is complete. Returns the number of entries written.
 */
ssize_t twheel_list(int fd, uint64_t *cursor, struct twheel_status *st,
		    size_t n);

/*
 * TWHEEL_IOC_SUBMIT of @nr operations (at most TWHEEL_MAX_BATCH). Returns
 * the number done (each with its error and outputs written).
 */
int twheel_submit(int fd, struct twheel_op *ops, unsigned int nr);

/*
 * TWHEEL_IOC_ADVANCE of a TWHEEL_CONFIG_MANUAL fd by @delta_ns; stores the
 * clock's new time in *@now_ns if not NULL. Returns 0.
 */
int twheel_advance(int fd, uint64_t delta_ns, int64_t *now_ns);

/* read(2) of up to @n records. Returns how many were read (>= 1). */
ssize_t twheel_read(int fd, struct twheel_event *ev, size_t n);

/* clock_gettime(@clock) in nanoseconds, for absolute deadlines; -1 on error. */
int64_t twheel_now(clockid_t clock);

/*
 * Read the records queued now, without blocking (a blocking @fd is polled
 * before each read), @n at a time into @ev:
 *
 *  - with @fn: after each read, @fn(@arg, @ev, count) is called with the
 *    records just read, until a read finds fewer than @n records queued
 *    (or none), or @fn returns non-zero;
 *  - without @fn (NULL): into @ev until it is full or nothing is queued;
 *    records beyond @n stay queued.
 *
 * Returns the number of records read (0: none was queued), each of them
 * in @ev or passed to @fn. An error after some records were read returns
 * their count (read(2) would fail again at the next call); -1 only when
 * none was read. EINVAL for @n of 0.
 */
ssize_t twheel_drain(int fd, struct twheel_event *ev, size_t n,
		     int (*fn)(void *arg, const struct twheel_event *ev,
			       size_t n),
		     void *arg);

/*
 * A batch being built in a caller's array of struct twheel_op: @ops holds
 * @capacity operations, of which the first @nr are appended. The
 * twheel_batch_*() functions below append one operation each.
 */
struct twheel_batch {
	struct twheel_op *ops;
	size_t nr;
	size_t capacity;
};

/* Start an empty batch in @ops (@capacity operations; any number). */
void twheel_batch_init(struct twheel_batch *b, struct twheel_op *ops,
		       size_t capacity);

/*
 * Append an operation: an add, a modify or a query of the request as its
 * single call takes it (the request's outputs are not written; they are
 * the operation's), a cancel of timer @id. Returns the operation, whose
 * outputs twheel_batch_submit() writes, or NULL with ENOSPC when the
 * batch is full. Its error is -ECANCELED until the kernel writes it, so
 * twheel_op_result() reports an operation that was never done as failed.
 */
struct twheel_op *twheel_batch_add(struct twheel_batch *b,
				   const struct twheel_add *req);
struct twheel_op *twheel_batch_modify(struct twheel_batch *b,
				      const struct twheel_modify *req);
struct twheel_op *twheel_batch_cancel(struct twheel_batch *b, uint64_t id);
struct twheel_op *twheel_batch_query(struct twheel_batch *b, uint64_t id);

/*
 * Submit the @b->nr operations of @b, TWHEEL_MAX_BATCH per
 * TWHEEL_IOC_SUBMIT. Returns the number done (each with its error and
 * outputs written): @b->nr, or fewer when a submission stopped short; -1
 * with errno when none was done. The batch is left as it is (reuse it
 * with twheel_batch_init()).
 */
ssize_t twheel_batch_submit(int fd, struct twheel_batch *b);

/*
 * The outcome of a submitted operation as its single call would return
 * it: -1 with errno set to -@op->error when it failed; else 0, or for a
 * modify or a cancel the state the timer was in (@op->result).
 */
int twheel_op_result(const struct twheel_op *op);

/*
 * The shared timer table (TWHEEL_CONFIG_TABLE; see "The shared timer
 * table" in <linux/twheel.h>): a timeout pushed back, or cancelled, by
 * one store into memory shared with the kernel, with no system call.
 *
 * twheel_table_map() maps the table of @fd, an fd configured with
 * TWHEEL_CONFIG_TABLE (twheel_config()), and fills *@t; @t is then all
 * the inline helpers below need. twheel_table_unmap() unmaps it. Both
 * return 0, or -1 with errno: the kernel's (INFO's, or mmap(2)'s), or
 * ENODEV, made up here as mmap(2) would say it, when @fd has no table.
 * Once mapped, the fd's configuration (tick included) is fixed.
 */
struct twheel_table {
	volatile uint64_t *entries;	/* entries[TWHEEL_TABLE_INDEX(id)] */
	size_t size;			/* bytes mapped: info.table_size */
	uint64_t tick_ns;		/* the fd's tick */
};

int twheel_table_map(int fd, struct twheel_table *t);
int twheel_table_unmap(struct twheel_table *t);

/*
 * The hot path, inline: each helper is one 64-bit store into the timer's
 * entry, and no system call. The store is relaxed (__atomic_store_n,
 * so that it is never torn, and no fence): the kernel reads an entry as
 * a plain value, when the timer's deadline tick comes due (and, for a
 * later deadline, when the wheel cascades the timer before it), and
 * orders nothing else against it. A store it has not seen by the tick is
 * simply too late: the timer expires at its old deadline, and the record
 * says so (twheel_table_expired() is false for it).
 *
 * twheel_table_push(): timer @id's deadline is tick @tick (the time
 * @tick * tick_ns on its clock, in the opener's time namespace), for a
 * one-shot timer and a deadline later than the one it is placed for,
 * less than 2^31 ticks after the tick the kernel reads the entry at (else
 * TWHEEL_IOC_MODIFY; the exact rule is TWHEEL_TABLE_DEADLINE's in
 * <linux/twheel.h>).
 * twheel_table_push_ns(): the same for the absolute time @deadline_ns,
 * rounded up to a tick, so that the timer never expires before it.
 * Returns the tick stored, for twheel_table_expired().
 * twheel_table_cancel(): timer @id is cancelled, lazily: it ends with no
 * record when its deadline tick comes due, and counts as a live timer
 * until then.
 */
static inline int64_t twheel_table_tick(const struct twheel_table *t,
					int64_t ns)
{
	int64_t d = ns / (int64_t)t->tick_ns;

	/* Rounded up (division truncates towards 0). */
	if (ns % (int64_t)t->tick_ns > 0)
		d++;
	return d;
}

static inline void twheel_table_store(const struct twheel_table *t,
				      uint64_t id, uint64_t v)
{
	__atomic_store_n(&t->entries[TWHEEL_TABLE_INDEX(id)], v,
			 __ATOMIC_RELAXED);
}

static inline void twheel_table_push(const struct twheel_table *t,
				     uint64_t id, int64_t tick)
{
	twheel_table_store(t, id, TWHEEL_TABLE_DEADLINE(id, tick));
}

static inline int64_t twheel_table_push_ns(const struct twheel_table *t,
					   uint64_t id, int64_t deadline_ns)
{
	int64_t tick = twheel_table_tick(t, deadline_ns);

	twheel_table_push(t, id, tick);
	return tick;
}

static inline void twheel_table_cancel(const struct twheel_table *t,
				       uint64_t id)
{
	twheel_table_store(t, id, TWHEEL_TABLE_CANCELLED(id));
}

/*
 * Is record @ev the expiry of deadline tick @tick, the last one stored
 * for its timer (by a push, or by the kernel on add or modify: the tick
 * of struct twheel_status.deadline_ns)? True when its time is at or
 * after that deadline; false when a push came too late for the kernel to
 * read (the one-shot timer ended with this record all the same).
 */
static inline int twheel_table_expired(const struct twheel_table *t,
				       const struct twheel_event *ev,
				       int64_t tick)
{
	return ev->time_ns >= tick * (int64_t)t->tick_ns;
}

/*
 * The record ring (TWHEEL_CONFIG_RING; see "The record ring" in
 * <linux/twheel.h>, since LIBTWHEEL_0.6): records without a read(2).
 * Each poll of the fd (poll(2), select(2), epoll_wait(2)) moves the
 * records queued, oldest first, into the ring while it has room; the
 * program takes them from there:
 *
 *	struct twheel_ringmap r;
 *	if (twheel_ring_map(fd, &r) < 0)	once, after twheel_config()
 *		err(1, "twheel_ring_map");
 *	...
 *	epoll_wait() says fd is readable:
 *	n = twheel_ring_take(&r, ev, 64);	as twheel_read(fd, ev, 64)
 *
 * Records the ring had no room for stay queued: the fd stays readable,
 * and the next poll after a take moves them (or read(2) returns them).
 *
 * twheel_ring_map() maps the ring of @fd, an fd configured with
 * TWHEEL_CONFIG_RING, and fills *@r; twheel_ring_unmap() unmaps it (and
 * zeroes *@r). Both return 0, or -1 with errno: the kernel's (INFO's, or
 * mmap(2)'s), or ENODEV, made up here as mmap(2) would say it, when @fd
 * has no ring (*@r is then left as it was). Once mapped, the fd's
 * configuration is fixed.
 */
struct twheel_ringmap {
	struct twheel_ring *ring;	/* mapped at TWHEEL_RING_OFFSET */
	size_t size;			/* bytes mapped: whole pages */
};

int twheel_ring_map(int fd, struct twheel_ringmap *r);
int twheel_ring_unmap(struct twheel_ringmap *r);

/*
 * twheel_ring_take(): copy up to @max records from the ring into @ev,
 * oldest first, and give their slots back to the kernel. No system call:
 * a load-acquire of the kernel's tail, the copies from the program's
 * head on, then a store-release of the new head (only when a record was
 * taken). Returns the number of records taken: 0 when the ring is empty,
 * or when its tail - head is above TWHEEL_RING_ENTRIES (a head or tail
 * the program stored itself: nothing is taken, the kernel moves nothing
 * into the ring either, and the fd stays readable; read(2) still returns
 * the records queued). A ring is used by one thread at a time.
 */
static inline unsigned int twheel_ring_take(const struct twheel_ringmap *r,
					    struct twheel_event *ev,
					    unsigned int max)
{
	struct twheel_ring *ring = r->ring;
	uint32_t head = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
	uint32_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
	uint32_t n = tail - head, i;

	if (n > TWHEEL_RING_ENTRIES)
		return 0;
	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		ev[i] = ring->events[(head + i) % TWHEEL_RING_ENTRIES];
	if (n)
		__atomic_store_n(&ring->head, head + n, __ATOMIC_RELEASE);
	return n;
}

/*
 * An idle-timeout tracker over the shared timer table (since
 * LIBTWHEEL_0.5): one timer per connection, pushed back on activity by
 * one store, with everything the table leaves to the program kept here:
 * the deadline tick stored per timer, timers added again when a push
 * came too late for the kernel, records of removed connections dropped,
 * and a maximum of timers sized for the timers removed but not ended yet.
 * A program sees only handles, its cookies, and real expiries:
 *
 *	struct twheel_idle_config cfg = {
 *		.max_conns = 10000,
 *		.timeout_ns = 30 * TWHEEL_SEC,
 *	};
 *	struct twheel_idle *ti = twheel_idle_open(&cfg);
 *	c->h = twheel_idle_add(ti, conn_index);	accept: one TWHEEL_IOC_ADD
 *	twheel_idle_touch(ti, c->h);		activity: one store, no call
 *	twheel_idle_remove(ti, c->h);		close: one store
 *	n = twheel_idle_drain(ti, ev, 64);	twheel_idle_fd() readable:
 *						ev[i].cookie was idle
 *
 * A tracker is used by one thread at a time (it is not locked); its fd
 * belongs to it (never read it, nor add timers to it).
 */

/* struct twheel_idle_config.flags: the fd's clock is manual (for tests). */
#define TWHEEL_IDLE_MANUAL	0x00000001U

/* What twheel_idle_config.observe is told of (@what). */
#define TWHEEL_IDLE_READDED	1	/* a push too late: timer added again */
#define TWHEEL_IDLE_DROPPED	2	/* a record of a removed handle */

/*
 * The tracker's set-up, for twheel_idle_open(). Zero a field for its
 * default.
 * @max_conns: the most handles (connections) held at once, 1 to INT_MAX
 * @timeout_ns: the idle timeout, > 0 and less than 2^31 - 2 ticks
 * @tick_ns: the fd's tick (TWHEEL_MIN_TICK_NS to TWHEEL_MAX_TICK_NS; 0:
 *	TWHEEL_DEFAULT_TICK_NS); deadlines are rounded up to it
 * @headroom: how many removed handles' timers may wait for their deadline
 *	tick to end (a lazy cancel, one store each) before
 *	twheel_idle_remove() cancels with TWHEEL_IOC_CANCEL instead (0:
 *	@max_conns); the fd's maximum of timers is @max_conns + @headroom
 * @flags: TWHEEL_IDLE_MANUAL, or 0
 * @__reserved: 0
 * @observe: NULL, or called by twheel_idle_drain() for each record it
 *	handles itself, before it goes on: @what TWHEEL_IDLE_READDED (@ev's
 *	time is before the deadline last stored, @deadline_ns, so a push
 *	came after the kernel read the entry: a new timer was added for
 *	@deadline_ns, the handle keeps running) or TWHEEL_IDLE_DROPPED (@ev
 *	is of a handle removed before its record was read; @deadline_ns 0).
 *	@ev->cookie is the handle's cookie, @ev->id the timer that ended.
 *	It may call twheel_idle_add(), _touch() and _remove(), not
 *	twheel_idle_close().
 * @arg: passed to @observe
 */
struct twheel_idle_config {
	uint64_t max_conns;
	int64_t timeout_ns;
	uint64_t tick_ns;
	uint64_t headroom;
	uint32_t flags;
	uint32_t __reserved;
	void (*observe)(void *arg, unsigned int what,
			const struct twheel_event *ev, int64_t deadline_ns);
	void *arg;
};

struct twheel_idle;

/*
 * A new tracker: twheel_open(O_CLOEXEC | O_NONBLOCK), configured with a
 * shared timer table, @cfg->tick_ns and a maximum of @cfg->max_conns +
 * headroom timers (on a manual clock with TWHEEL_IDLE_MANUAL), the
 * table mapped; and, where the module has it (TWHEEL_FEATURE_RING), a
 * record ring, mapped, from which twheel_idle_drain() takes the records
 * the fd's last poll moved there with no system call (read(2) only for
 * records no poll moved). Timers run on CLOCK_MONOTONIC. NULL with errno on
 * failure: EINVAL for a bad field of @cfg (also the kernel's, for a
 * maximum above the module's max_timers), EOPNOTSUPP for a module
 * without the table, ENOMEM, or the errors of twheel_open().
 */
struct twheel_idle *twheel_idle_open(const struct twheel_idle_config *cfg);

/* The tracker's fd, for poll/epoll (readable: call twheel_idle_drain()). */
int twheel_idle_fd(const struct twheel_idle *ti);

/*
 * A new handle (>= 0) whose timer expires @timeout_ns from now unless
 * touched; its records carry @cookie. One TWHEEL_IOC_ADD. ENOSPC when
 * max_conns handles are held; the kernel's errors of twheel_add().
 */
int twheel_idle_add(struct twheel_idle *ti, uint64_t cookie);

/*
 * Activity on handle @h: its deadline becomes timeout from now (rounded
 * up to a tick), by one store into the table; no system call (but on a
 * manual clock, which is read with TWHEEL_IOC_ADVANCE). EINVAL for a
 * handle not held; ETIME for one twheel_idle_drain() reported expired
 * (remove it, or remove it and add a new one).
 */
int twheel_idle_touch(struct twheel_idle *ti, int h);

/*
 * Release handle @h (held, or reported expired): its timer is cancelled
 * by one store (lazily: it ends at its deadline tick), or, when headroom
 * such timers may still be waiting, by TWHEEL_IOC_CANCEL. A record of it
 * read later is dropped. @h may be returned by a later twheel_idle_add().
 * EINVAL for a handle not held; the kernel's errors of twheel_info() and
 * twheel_cancel() (then @h is still held).
 */
int twheel_idle_remove(struct twheel_idle *ti, int h);

/*
 * Read the records queued, without blocking, and store in @ev (up to @n)
 * those of real expiries, each with its handle's cookie: the handle was
 * not touched for the timeout (the record's time_ns is at or after the
 * deadline last stored). Its handle stays held until twheel_idle_remove().
 * A record whose push came too late is handled here: a new timer is added
 * for the deadline stored; one of a removed handle is dropped (see
 * @observe). Reads at most @n records, so records beyond stay queued and
 * the fd readable. Returns the number stored (0: none); an error after
 * some were stored returns their count (the next call gets it again); -1
 * only when none was stored. A re-add that failed is tried again by the
 * next call. EINVAL for @n of 0.
 */
ssize_t twheel_idle_drain(struct twheel_idle *ti, struct twheel_event *ev,
			  size_t n);

/*
 * Close the fd (every timer ends) and free the tracker; NULL does
 * nothing. Returns 0, or -1 with close(2)'s errno (freed all the same).
 */
int twheel_idle_close(struct twheel_idle *ti);

#ifdef __cplusplus
}
#endif

#endif /* LIBTWHEEL_H */
