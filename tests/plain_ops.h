/*
 * plain_ops.h - the four plain steps that the random-program drivers
 * (tests/dpor/test_dpor_random.c, tests/differential/test_diff_dpor.c and
 * test_diff_searchers.c) interpret alike: a READ_ONCE(), a WRITE_ONCE(), an
 * atomic_inc_return() and a spinlock critical section that reads one slot
 * and writes another. Each driver numbers them O_R, O_W, O_A, O_CS first in
 * its op enum (checked below) and keeps its other ops to itself.
 * The sites of these steps name plain_step(), the same in every driver: the
 * drivers compare searchers with each other, never with pinned hashes.
 */
#ifndef WEFT_TESTS_PLAIN_OPS_H
#define WEFT_TESTS_PLAIN_OPS_H

#include <stdbool.h>

#include <weft/kernel.h>

enum { PLAIN_R, PLAIN_W, PLAIN_A, PLAIN_CS, PLAIN__N };

/* Step kind k on the slots x: a read or an increment of x[at] sets *last; a
 * write stores wval at x[at]; the critical section, under l, reads x[at]
 * into *last and stores *last + cs_add at x[cs_to]. False (nothing done)
 * for a kind past PLAIN_CS: the caller's own op. */
static inline bool plain_step(unsigned k, int *x, unsigned at, int wval, spinlock_t *l,
			      unsigned cs_to, int cs_add, int *last)
{
	switch (k) {
	case PLAIN_R:
		*last = READ_ONCE(x[at]);
		return true;
	case PLAIN_W:
		WRITE_ONCE(x[at], wval);
		return true;
	case PLAIN_A:
		*last = atomic_inc_return((atomic_t *)&x[at]);
		return true;
	case PLAIN_CS:
		spin_lock(l);
		*last = READ_ONCE(x[at]);
		WRITE_ONCE(x[cs_to], *last + cs_add);
		spin_unlock(l);
		return true;
	}
	return false;
}

#define PLAIN_OPS_MATCH(r, w, a, cs)                                                    \
	_Static_assert((int)(r) == PLAIN_R && (int)(w) == PLAIN_W && (int)(a) == PLAIN_A && \
			       (int)(cs) == PLAIN_CS,                                  \
		       "the op enum starts with the plain steps in plain_ops.h's order")

#endif
