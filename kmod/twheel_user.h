/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_user.h - what one user holds in twheel, and the per-user limits.
 *
 * A user is a (user namespace, kernel uid) pair, as for the kernel's own
 * ucounts: the opener's user namespace and effective uid. Every open
 * /dev/twheel is charged to the user who opened it, and to each namespace's
 * creator above it, level by level up to the initial user namespace, until
 * it is closed; so is every timer slot its fds hold (a timer's id slot, kept
 * by its fd for the fd's next timer after the timer ends; an fd holds as
 * many as the most timers it has held at once). Two limits,
 * fs.twheel.max_user_fds (EMFILE at open) and fs.twheel.max_user_timers
 * (ENOSPC at add), bound what one user holds at each level over all their
 * processes and fds, everything done in the namespaces they created
 * included; root changes them at run time.
 */
#ifndef _TWHEEL_USER_H
#define _TWHEEL_USER_H

#include <linux/gfp.h>
#include <linux/types.h>
#include <linux/uidgid.h>

/*
 * How twheel allocates whatever a user makes it allocate: charged to their
 * memory cgroup, and at its limit a failure (the call fails with ENOMEM)
 * rather than the OOM killer; reclaim holds nobody else up.
 */
#define TWHEEL_GFP		(GFP_KERNEL_ACCOUNT | __GFP_NORETRY)

struct twheel_user;

/*
 * The most kernel memory one fd and one timer slot may hold, for the
 * bound the default limits keep (see twheel_user.c), in a memory cgroup,
 * where each slab object also takes its share of its slab page's array
 * of owners (8 bytes, or the array's kmalloc rounding: 14 for the 73
 * objects of a twheel_ptimer page in 1 KiB). An fd: its state (512),
 * six clock bases (512 each) with all 11 wheel levels (520 each: 512 and
 * 8), its SUBMIT and LIST buffers and its id index's last page, not yet
 * full (4104 each), its shared table's last page, not yet full (4096: a
 * page), its record ring (8192: struct twheel_ring in two pages), its
 * clock-set state once it watches wall clock sets (two objects of at
 * most 72), its struct file (376: 320 on PREEMPT_RT, 8, and the security
 * modules' blob, 48), the per-user entries its open may create (one per
 * user namespace level, at most 33 of 72 bytes: 64 and 8): 65400 bytes,
 * rounded up. A slot: its largest timer (56) and its share of the
 * array (14.03), the slot (8), its table entry (8), its shares of the
 * index's and the table's page arrays (under 0.07): 86.1 bytes, rounded
 * up.
 */
#define TWHEEL_FD_MAX_BYTES	(64 * 1024)
#define TWHEEL_TIMER_MAX_BYTES	88

struct twheel_user *twheel_user_open(void);
void twheel_user_close(struct twheel_user *u, u64 slots);
bool twheel_user_charge_slot(struct twheel_user *u);
void twheel_user_uncharge_slot(struct twheel_user *u);
u32 twheel_user_irq_budget(const struct twheel_user *u, u32 want);
void twheel_user_irq_charge(struct twheel_user *u, u32 n);
void twheel_user_usage(const struct twheel_user *u, kuid_t *uid, u64 *fds,
		       u64 *slots);
int twheel_user_init(void);
void twheel_user_exit(void);

#endif /* _TWHEEL_USER_H */
