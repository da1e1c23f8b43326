/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_compat.h - the few kernel API differences between the kernels
 * twheel builds for (6.1 to current).
 */
#ifndef _TWHEEL_COMPAT_H
#define _TWHEEL_COMPAT_H

#include <linux/hrtimer.h>

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

#endif /* _TWHEEL_COMPAT_H */
