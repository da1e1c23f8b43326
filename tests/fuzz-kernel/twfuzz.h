// SPDX-License-Identifier: GPL-2.0
/*
 * twfuzz.h - what the files of twfuzz (the fuzzer of /dev/twheel,
 * tests/fuzz-kernel/twfuzz*.c) share: the constants, the kinds of
 * operation and of violation, the per-process counts, the shadow of a
 * strict fd, a thread's state, the global state (defined in twfuzz.c) and
 * the functions one file calls in another, by file.
 */
#ifndef TWFUZZ_H
#define TWFUZZ_H

#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <linux/twheel.h>

#include "twtest.h"

/* The uapi types (long long): one printf format for everything here. */
typedef __u64 u64;
typedef __s64 s64;

#define PROG		"fuzz-kernel"
#define MS		TWT_MS
#define S		TWT_S
#define EV		((size_t)sizeof(struct twheel_event))
#define NCLK		6	/* the last two: the alarm clocks */
#define FDS_PER_THREAD	3
#define NDEAD		256
#define LOGN		48
#define LOGW		240
#define SOFT_LIVE	300	/* a strict fd stops adding beyond this */
#define NTAB		12	/* chaos: fd slots shared by a process */
#define REGION_PAGES	32
#define PARAM		"/sys/module/twheel/parameters/max_timers"
/* How long past its deadline a real-clock timer may take to be read. */
#define LOST_SLACK_NS	(60 * S)

#ifndef FD_TO_CLOCKID
#define FD_TO_CLOCKID(fd)	((clockid_t)((~(unsigned int)(fd) << 3) | 3))
#endif

enum kind {
	K_INFO, K_ADD, K_CANCEL, K_MODIFY, K_QUERY, K_LIST, K_SUBMIT,
	K_CONFIG, K_ADVANCE, K_READ, K_POLL, K_EPOLL, K_BADCMD, K_SIZES,
	K_OPEN, K_CLOSE, K_DUP, K_FORK, K_WAKE, K_TABLE, K_NKINDS
};


enum vkind { V_EARLY, V_LOST, V_DUP, V_ORACLE, V_ERRNO };

/* Per process, in memory shared with the parent; updated atomically. */
struct stats {
	u64 ops[K_NKINDS];
	u64 invalid;	/* calls that had to fail, and did as documented */
	u64 faults;	/* calls with a bad pointer */
	u64 created;	/* strict: timers created */
	u64 ended_read, ended_cancel, ended_close;
	u64 records, periodic_records, exact_checks;
	u64 real_created, real_records;	/* of those, on real clocks */
	u64 early, lost, dup, oracle, errno_bad;
	u64 chaos_records, chaos_created;
	u64 table_maps, table_stores;	/* chaos: tables mapped, stored */
	u64 done;		/* the process finished its run */
};

#define ST_ADD(th, field, v) \
	__atomic_add_fetch(&(th)->st->field, (v), __ATOMIC_RELAXED)
#define ST_INC(th, field)	ST_ADD(th, field, 1)

/* One timer of a strict fd's shadow. */
struct stimer {
	u64 id, cookie;
	uint32_t clock;		/* clockid */
	int state;		/* TWHEEL_STATE_* */
	s64 dlo, dhi;	/* its deadline is in [dlo, dhi] (manual: equal) */
	u64 period;	/* in effect, 0: one-shot */
	/* manual model */
	u64 dtick;		/* deadline tick while pending */
	u64 seq;		/* order of placement in the wheel */
	u64 qseq;		/* order in the queue while queued */
	s64 qtime;		/* time_ns of its queued record */
	/* real clocks */
	bool known_queued;	/* seen queued: stays so until consumed */
	bool cos;		/* TWHEEL_CANCEL_ON_SET */
	bool via_wheel;		/* placed with a deadline after the present */
};

/* A strict fd and its shadow. */
struct sfd {
	int fd;
	bool manual, used, tainted;
	bool clock_set;		/* TWHEEL_CONFIG_CLOCK_SET */
	u64 tick, max_timers;
	s64 now;		/* manual clock */
	u64 seq, qseq;
	struct stimer *t;
	int n, cap;
	u64 dead[NDEAD];
	unsigned int ndead;
};

struct tsamp {
	s64 t[NCLK];
};

struct th {
	int proc, idx;
	bool chaos;
	uint64_t rs;		/* twt_rand() state */
	struct stats *st;
	pthread_t tid;
	unsigned int logi;
	char log[LOGN][LOGW];
	struct sfd f[FDS_PER_THREAD];
	u64 cookie_ctr;
	/*
	 * Memory for arguments: arrays (buf) and structs (arg), read-only,
	 * faulting half-way (half_end: the end of accessible memory,
	 * followed by a PROT_NONE page), inaccessible (a PROT_NONE page).
	 * The faulting pages stay mapped: a hole left by munmap() is where
	 * another thread's one-page mmap() of a table can land, and then
	 * the "fault" is memory the kernel may rightly write.
	 */
	char *buf;
	char *arg;
	size_t buflen;
	char *ro;
	char *half_end;
	char *unmapped;
	/* chaos */
	int epfd;
	u64 ids[64];
	unsigned int nids;
};

#define IOC(dir, nr, size)	_IOC((dir), TWHEEL_IOC_TYPE, (nr), (size))

/* Argument memory: where an argument goes, by kind of pointer */
enum ptrkind { P_OK, P_NULL, P_UNMAPPED, P_RO, P_HALF, P_WILD, P_NKINDS };

/* The clocks around a call on a real-clock fd (manual: unused). */
#define AROUND(f, t, call) do {					\
	if (!(f)->manual)					\
		sample(&(t##0));				\
	call;							\
	if (!(f)->manual)					\
		sample(&(t##1));				\
} while (0)

/* Global state: twfuzz.c */
extern u64 g_seed;
extern s64 g_end_ns;	/* CLOCK_MONOTONIC */
extern size_t g_pg;
extern int g_shared[2];
extern int g_tab[NTAB];		/* chaos: the process's fd slots */
extern const clockid_t g_clocks[NCLK];
extern int g_nclk;		/* the clocks valid_clock() picks from */

/* twfuzz_util.c */
void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
u64 splitmix(u64 *x);
u64 rnd64(struct th *th);
u64 rnd(struct th *th, u64 n);
bool chance(struct th *th, unsigned int pct);
s64 mono(void);
bool time_up(void);
int clk_index(uint32_t clock);
void sample(struct tsamp *s);
s64 add_sat(s64 a, s64 b);
u64 dl_tick(s64 ns, u64 tick);
u64 now_tick(s64 ns, u64 tick);
s64 tick_ns(u64 t, u64 tick);
s64 roundup_tick(s64 ns, u64 tick);
u64 eff_period(u64 p, u64 tick);
u64 pcount(s64 d, u64 p, s64 now);
s64 periods_after(s64 d, u64 n, u64 p);
long xioctl(int fd, unsigned long cmd, void *arg);
void tlog(struct th *th, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void violation(struct th *th, struct sfd *f, enum vkind k,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void bad_errno(struct th *th, struct sfd *f, const char *call,
	       long ret, int err, const char *want);

/* twfuzz_args.c */
extern const char *const pk_name[P_NKINDS];
bool expect_call(struct th *th, struct sfd *f, const char *what,
		 enum ptrkind pk, bool invalid, bool cond2, int err2,
		 const char *err2_name, long r, int e);
void th_mem_init(struct th *th);
enum ptrkind pick_pk(struct th *th, unsigned int bad_pct);
void *arr_at(struct th *th, enum ptrkind pk, const void *src,
	     size_t esize, size_t n, size_t *fit);
void *arg_at(struct th *th, enum ptrkind pk, const void *src,
	     size_t len);
uint32_t valid_clock(struct th *th);
bool cos_ok(uint32_t clock, uint32_t flags);
uint32_t bad_clock(struct th *th);
s64 gen_rel(struct th *th, u64 tick, bool manual);
s64 gen_abs(struct th *th, u64 tick, bool manual, s64 now);
u64 gen_period(struct th *th, u64 tick, bool manual);
uint32_t unknown_bits(struct th *th, uint32_t known);
u64 new_cookie(struct th *th);

/* twfuzz_model.c */
struct stimer *sh_find(struct sfd *f, u64 id);
bool sh_dead(struct sfd *f, u64 id);
void sh_end(struct sfd *f, struct stimer *t);
int sh_queued(struct sfd *f);
int sh_known_queued(struct sfd *f);
int sh_may_be_queued(struct sfd *f, const struct tsamp *t1);
void m_place(struct sfd *f, struct stimer *t, s64 d);
void m_advance(struct sfd *f, s64 now);
struct stimer *m_next_record(struct sfd *f);
void m_status(struct sfd *f, struct stimer *t, struct twheel_status *st);
void sh_created(struct th *th, struct sfd *f, u64 id,
		u64 cookie, uint32_t clock, uint32_t flags,
		s64 expires, u64 period,
		const struct tsamp *t0, const struct tsamp *t1,
		const char *what);
void sh_modified(struct sfd *f, struct stimer *t, u64 cookie,
		 uint32_t flags, s64 expires, u64 period,
		 const struct tsamp *t0, const struct tsamp *t1);

/* twfuzz_check.c */
void check_status(struct th *th, struct sfd *f, struct stimer *t,
		  const struct twheel_status *st,
		  const struct tsamp *t0, const struct tsamp *t1,
		  const char *what);
void check_records(struct th *th, struct sfd *f,
		   const struct twheel_event *ev, size_t n,
		   const struct tsamp *t0, const struct tsamp *t1);
void check_result(struct th *th, struct sfd *f, struct stimer *t,
		  uint32_t result, const struct tsamp *t1,
		  const char *what);
void check_info(struct th *th, struct sfd *f,
		const struct twheel_info *in, const struct tsamp *t1,
		const char *what);

/* twfuzz_ops.c */
u64 pick_id(struct th *th, struct sfd *f);
void s_info(struct th *th, struct sfd *f);
void s_add(struct th *th, struct sfd *f);
void s_cancel(struct th *th, struct sfd *f);
void s_modify(struct th *th, struct sfd *f);
void s_query(struct th *th, struct sfd *f);
void s_list(struct th *th, struct sfd *f, unsigned int bad_pct);
void s_list_cursor(struct th *th, struct sfd *f);

/* twfuzz_submit.c */
void s_submit(struct th *th, struct sfd *f);

/* twfuzz_events.c */
void s_advance(struct th *th, struct sfd *f);
void s_read(struct th *th, struct sfd *f);
void s_poll(struct th *th, struct sfd *f);
void s_wake(struct th *th, struct sfd *f);

/* twfuzz_abi.c */
void s_config(struct th *th, struct sfd *f);
void s_badcmd(struct th *th, struct sfd *f);
void s_sizes(struct th *th, struct sfd *f);

/* twfuzz_strict.c */
void *strict_main(void *arg);

/* twfuzz_chaos.c */
void *chaos_main(void *arg);

/* twfuzz_table.c */
void chaos_table(struct th *th, int fd);

#endif /* TWFUZZ_H */
