// SPDX-License-Identifier: GPL-2.0
/*
 * wheel_fuzz.c - libFuzzer target for the wheel core.
 *
 * The input is the randomness of the differential driver in wheel_ref.h:
 * its first byte picks the number of objects (1..64, few, so that ids,
 * deadlines and slots collide), the rest is consumed by the same generators
 * the seeded random test uses (operation, id, deadline kind and value,
 * advance target, restart clock, when levels are taken back or an advance
 * is left waiting for a level, and which of the entries an advance hands
 * back are parked), until it runs dry. Every operation is checked against
 * the reference model, the layout every 16 operations, and at the end
 * everything left is handed back with advance(U64_MAX), the parked entries
 * are taken back, and every level, empty, is taken back (LeakSanitizer
 * then sees any level the driver failed to free). Any mismatch aborts,
 * printing what differed.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined (see wheel.mk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "twheel_wheel.h"
#include "wheel_ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wref *r;

	if (size < 1)
		return 0;
	r = wref_alloc(1 + data[0] % 64, 0);
	if (!r)
		abort();
	r->buf = data + 1;
	r->len = size - 1;
	r->pos = 0;
	r->layout_every = 16;
	wref_random_caller(r);
	wref_reset(r, wref_gen_start(r));
	r->scale = 1 + wref_below(r, 40);
	while (!wref_dry(r) && !r->failed)
		wref_step(r);
	wref_finish(r);
	if (r->failed) {
		fprintf(stderr, "wheel_fuzz: mismatch after %llu ops: %s\n",
			r->st.ops, r->msg);
		abort();
	}
	wref_free(r);
	return 0;
}
