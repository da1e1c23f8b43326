/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_compat.h - the few kernel API differences between the kernels
 * twheel builds for (6.1 to current).
 */
#ifndef _TWHEEL_COMPAT_H
#define _TWHEEL_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/slab.h>

/* hrtimer_setup() replaced hrtimer_init() + .function in 6.13 (Kbuild). */
static inline void twheel_hrtimer_setup(struct hrtimer *timer,
					enum hrtimer_restart (*fn)(struct hrtimer *),
					clockid_t clock, enum hrtimer_mode mode)
{
#ifdef TWHEEL_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * A slab cache of twheel's own, never merged into another (6.5 added
 * SLAB_NO_MERGE). Before it, a cache with a constructor is never merged:
 * an empty one, run once per object when a slab page is set up (not per
 * allocation), costs next to nothing.
 */
#ifdef SLAB_NO_MERGE
#define TWHEEL_SLAB_NO_MERGE	SLAB_NO_MERGE
#define TWHEEL_SLAB_CTOR	NULL
#else
static inline void twheel_slab_ctor(void *obj)
{
}

#define TWHEEL_SLAB_NO_MERGE	0
#define TWHEEL_SLAB_CTOR	twheel_slab_ctor
#endif

#endif /* _TWHEEL_COMPAT_H */
