/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_ref.h - reference model, differential driver and directed cases
 * for the twheel wheel core.
 *
 * Header-only and written in the C common to the kernel and userspace, so
 * that one source serves the KUnit suite (tests/kunit/), the native test
 * (wheel_test.c) and the libFuzzer target (wheel_fuzz.c).
 *
 * The one header its users include. It includes the others, one role
 * each, in the order their definitions need (each includes the one
 * before it):
 *
 *   wheel_ref_model.h       the model: state, failure reports, allocation,
 *                           randomness, the order of its entries
 *   wheel_ref_check.h       comparing the wheel with the model
 *   wheel_ref_ops.h         levels, add, remove, parking, re-keying
 *   wheel_ref_advance.h     advances, forward, take_all, restarts
 *   wheel_ref_run.h         the random differential driver
 *   wheel_ref_case_clock.h  directed cases: deadlines and the clock
 *   wheel_ref_case_level.h  directed cases: levels, rings, parking
 *   wheel_ref_cases.h       the table of the directed cases
 */
#ifndef _TWHEEL_WHEEL_REF_H
#define _TWHEEL_WHEEL_REF_H

#include "wheel_ref_model.h"
#include "wheel_ref_check.h"
#include "wheel_ref_ops.h"
#include "wheel_ref_advance.h"
#include "wheel_ref_run.h"
#include "wheel_ref_case_clock.h"
#include "wheel_ref_case_level.h"
#include "wheel_ref_cases.h"

#endif /* _TWHEEL_WHEEL_REF_H */
