/*
 * rt_escape.c - locals whose address escaped to another thread.
 *
 * A thread's accesses to its own stack are not scheduling points: its
 * locals are its own (rt_shared()). Once another thread can reach one, a
 * race on it has two sides, and both must be points, or the search never
 * puts the other thread's access between two of the owner's (two loads of
 * an atomic local with the other's store between them; an owner spinning
 * on a request on its stack that another thread completes, which without
 * a point ran until a wall-clock limit). So the stacks carry escape marks,
 * one bit per 8-byte granule, and the owner's accesses to a marked
 * granule are points like any shared access (race detection, await for
 * spins, fairness). A granule is marked
 *
 *   - when another thread accesses it (its access is a point already: the
 *     slow paths of rt_tsan.c mark what it touched);
 *   - when its address is handed over: a pointer into a stack given to
 *     pthread_create()/thrd_create() as the argument, or stored by a point
 *     (a store to a global, the heap, or an escaped local: a queue, a
 *     request's field), before any other thread can use it. The pointer
 *     says where the object starts, not its size: the marks cover the 64
 *     bytes (a cache line) from it, cut at the top of the frame that holds
 *     it (the first frame pointer above it on the chain from the handing
 *     function's frame, which weft-cc keeps with -fno-omit-frame-pointer):
 *     a request, a flag, a small struct, and not the caller's frames. A
 *     larger object's further bytes are marked when another thread first
 *     touches them (the rule above); the locals past the 64 bytes stay
 *     private (marking up to the frame's top would take in every local
 *     declared before the object, a loop's array among them: each access
 *     a point). The words of a newly marked range that themselves point
 *     into a stack are handed over with it (a request that carries the
 *     address of another local).
 *
 * Marks are per execution (rt_escape_reset() at every execution's start)
 * and a function of the execution's own events, so every execution and
 * replay marks the same granules. A frame that returns keeps its marks:
 * a later call whose frame reuses those bytes has its accesses there as
 * points until the execution ends (conservative: more points, never a
 * missed race). docs/testing-c-programs.md, "What is a scheduling point".
 */
#include <stdlib.h>

#include "rt_internal.h"

uint64_t *rt_esc_bits;
uintptr_t rt_esc_lo, rt_esc_len;
bool rt_esc_armed;
/* the range of the marks; rt_esc_lo/len are it from RT_ESC_FILTER bytes
 * below, or every stack while armed */
static uintptr_t marks_lo, marks_len;

/* how far from a handed-over pointer the marks reach (a cache line) */
#define ESC_SPAN 64
#define ESC_WORKLIST 16

int rt_escape_init(void)
{
	size_t granules = rt_w.stack_bytes >> RT_ESC_SHIFT;

	rt_esc_bits = calloc((granules + 63) / 64, sizeof(uint64_t));
	return rt_esc_bits ? 0 : -1;
}

void rt_escape_reset(void)
{
	if (marks_len) {
		size_t g0 = (marks_lo - (uintptr_t)rt_w.stacks_lo) >> RT_ESC_SHIFT;
		size_t g1 = (marks_lo + marks_len - 1 - (uintptr_t)rt_w.stacks_lo) >> RT_ESC_SHIFT;
		for (size_t w = g0 / 64; w <= g1 / 64; w++)
			rt_esc_bits[w] = 0;
	}
	rt_esc_lo = 0;
	rt_esc_len = 0;
	marks_lo = 0;
	marks_len = 0;
	rt_esc_armed = false;
}

/* A plain store that may write a pointer (8 bytes or a range) is announced,
 * its value known only once it is done: until rt_flush_slow() completes it
 * and hands its value over (rt_escape_disarm()), every access to a stack
 * takes rt_escaped_slow(), which completes it first (rt_escape_settle()),
 * so a local whose address it stores is a point from the next access on. */
void rt_escape_arm(void)
{
	if (rt_esc_armed)
		return;
	rt_esc_armed = true;
	rt_esc_lo = (uintptr_t)rt_w.stacks_lo;
	rt_esc_len = rt_w.stack_bytes;
}

static void filter_marks(void)
{
	rt_esc_lo = marks_len ? marks_lo - RT_ESC_FILTER : 0;
	rt_esc_len = marks_len ? marks_len + RT_ESC_FILTER : 0;
}

void rt_escape_disarm(void)
{
	rt_esc_armed = false;
	filter_marks();
}

static inline bool in_stacks(uintptr_t a)
{
	return a - (uintptr_t)rt_w.stacks_lo < rt_w.stack_bytes;
}

bool rt_escaped_slow(uintptr_t a, size_t size)
{
	uintptr_t lo = (uintptr_t)rt_w.stacks_lo;
	uintptr_t end = a + (size ? size : 1);

	if (rt_esc_armed)
		rt_escape_settle();
	if (a < marks_lo)
		a = marks_lo;
	if (end > marks_lo + marks_len)
		end = marks_lo + marks_len;
	for (uintptr_t g = (a - lo) >> RT_ESC_SHIFT; a < end && g <= (end - 1 - lo) >> RT_ESC_SHIFT;
	     g++)
		if (rt_esc_bits[g / 64] >> (g % 64) & 1)
			return true;
	return false;
}

/* Mark [a, end) (inside one stack): the granules newly marked, 0 if none. */
static size_t mark(uintptr_t a, uintptr_t end)
{
	uintptr_t lo = (uintptr_t)rt_w.stacks_lo;
	size_t fresh = 0;

	if (end > (uintptr_t)rt_w.stacks_hi)
		end = (uintptr_t)rt_w.stacks_hi;
	if (a < lo || a >= end)
		return 0;
	for (uintptr_t g = (a - lo) >> RT_ESC_SHIFT; g <= (end - 1 - lo) >> RT_ESC_SHIFT; g++) {
		uint64_t bit = 1ull << (g % 64);
		if (!(rt_esc_bits[g / 64] & bit)) {
			rt_esc_bits[g / 64] |= bit;
			fresh++;
		}
	}
	if (!fresh)
		return 0;
	uintptr_t ga = a & ~(uintptr_t)((1u << RT_ESC_SHIFT) - 1);
	uintptr_t ge = ((end - 1) | ((1u << RT_ESC_SHIFT) - 1)) + 1;
	if (!marks_len) {
		marks_lo = ga;
		marks_len = ge - ga;
	} else {
		uintptr_t hi = marks_lo + marks_len;
		if (ga < marks_lo)
			marks_lo = ga;
		if (ge > hi)
			hi = ge;
		marks_len = hi - marks_lo;
	}
	if (!rt_esc_armed)
		filter_marks();
	return fresh;
}

void rt_escape_touch(const void *addr, size_t size)
{
	uintptr_t a = (uintptr_t)addr;
	const struct weft_fiber *f = &M.th[M.cur].fib;

	if (in_stacks(a) && a - (uintptr_t)f->stack_lo >= f->stack_size)
		mark(a, a + (size ? size : 1));   /* not the owner's own (escaped) access */
}

/* The end of the marks for the object p points to: p + ESC_SPAN, or the
 * first frame pointer above p on the program's chain from fp (the frame of
 * the function that handed p over: locals lie below their frame's
 * pointer) when it comes first. */
static uintptr_t object_end(uintptr_t p, uintptr_t fp)
{
	const struct weft_fiber *f = &M.th[M.cur].fib;
	uintptr_t lo = (uintptr_t)f->stack_lo, top = lo + f->stack_size;

	if (p - lo >= f->stack_size)
		return p + ESC_SPAN;
	for (unsigned n = 0; n < 4096; n++) {
		if (fp - lo >= f->stack_size || (fp & 7))
			break;   /* not a frame of this thread's (no chain, or its end) */
		if (fp > p)
			return fp < p + ESC_SPAN ? fp : p + ESC_SPAN;
		uintptr_t up = *(const uintptr_t *)fp;
		if (up <= fp || up >= top)
			break;
		fp = up;
	}
	return p + ESC_SPAN;
}

void rt_escape_handoff(uint64_t v, uintptr_t fp)
{
	uintptr_t work[ESC_WORKLIST][2];
	unsigned n = 0;

	if (!in_stacks((uintptr_t)v) || M.cur < 0)
		return;
	uintptr_t end = object_end((uintptr_t)v, fp);
	if (!mark((uintptr_t)v, end))
		return;
	work[n][0] = (uintptr_t)v;
	work[n++][1] = end;
	/* what the newly reachable words point to on a stack is reachable too */
	while (n) {
		n--;
		uintptr_t a = (work[n][0] + 7) & ~(uintptr_t)7, e = work[n][1];
		for (; a + 8 <= e && a + 8 <= (uintptr_t)rt_w.stacks_hi; a += 8) {
			uintptr_t w = *(const uintptr_t *)a;
			if (!in_stacks(w) || n == ESC_WORKLIST)
				continue;
			uintptr_t we = object_end(w, fp);
			if (mark(w, we)) {
				work[n][0] = w;
				work[n++][1] = we;
			}
		}
	}
}

void rt_escape_range(const void *addr, size_t size, uintptr_t fp)
{
	uintptr_t a = ((uintptr_t)addr + 7) & ~(uintptr_t)7, e = (uintptr_t)addr + size;

	if (size > 4096)
		e = a + 4096;   /* a block copy's first 4 KiB: a pointer array's head */
	for (; a + 8 <= e; a += 8)
		rt_escape_handoff(*(const uint64_t *)a, fp);
}
