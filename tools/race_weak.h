/*
 * race_weak.h - the stale reads of a weak-memory execution, as the race
 * diagram explains them (docs/memory-model.md): a load that read a value
 * older than a store another CPU had already made, because that store was
 * still in its CPU's store buffer, or (lkmm) because the load read an older
 * version of memory; and which barrier would have forbidden it. Read from
 * the recorded trace alone: a buffered store is a `write` event followed
 * by a `flush` of the same thread, site, location and value; a stale
 * version is a `read` whose old (the newest its CPU could see) differs
 * from its val.
 */
#ifndef WEFT_RACE_WEAK_H
#define WEFT_RACE_WEAK_H

#include <stddef.h>

#include "trace_view.h"

struct weft_stale {
	size_t read;        /* the stale read */
	size_t store;       /* the store it missed (write or rmw event) */
	size_t visible;     /* where that store became visible (its flush, or
			       itself), or SIZE_MAX: not before the read */
	/* the barrier that would have forbidden it: smp_mb() on the storing
	 * CPU between store and `from` (a later load of it); smp_wmb() there
	 * between store and `from` (a later store the reader saw first);
	 * smp_rmb() on the reading CPU between `from` (an earlier read that
	 * saw something newer) and the read; smp_mb() before the read */
	enum { WEFT_FIX_MB_WRITER, WEFT_FIX_WMB, WEFT_FIX_RMB, WEFT_FIX_MB_READER } fix;
	size_t from;        /* the other event the barrier goes against, or SIZE_MAX */
};

/* The stale reads of the view's execution (at most max), in trace order. */
size_t weft_weak_stale_reads(const struct weft_trace_view *v, struct weft_stale *out,
			     size_t max);
/* "stale: T0's store x = 1 at step 5 still buffered on CPU0" */
void weft_weak_why(const struct weft_trace_view *v, const struct weft_stale *s, char *buf,
		   size_t n);
/* "smp_mb() on CPU0 between T0's store at step 5 and its load at step 6
 * would have forbidden it" */
void weft_weak_fix(const struct weft_trace_view *v, const struct weft_stale *s, char *buf,
		   size_t n);

#endif
