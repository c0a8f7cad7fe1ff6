/*
 * shadow.c - the shadow of the world: for every byte, the access that last
 * wrote it (site, thread, step) and whether it is freed. Poisoning a range
 * makes any later primitive on it a use-after-free report; the last writer
 * is the "other side" of most reports.
 *
 * Poison and unpoison are not scheduling points: they belong to the
 * operation that frees or allocates (which took its own point).
 */
#include <string.h>

#include <weft/kernel.h>

#include "sched.h"

/* n copies of *e from sh: two entries (48 bytes) as three 16-byte stores, four per turn,
 * where a copy of the struct was three 8-byte stores per entry (setup
 * poisons and unpoisons whole pages, one entry per byte) */
typedef uint64_t shadow_pair_part __attribute__((vector_size(16), aligned(8), may_alias));
_Static_assert(sizeof(struct shadow) == 24, "shadow_fill() stores entries as 3 words");

static void shadow_fill(struct shadow *sh, const struct shadow *e, size_t n)
{
	uint64_t q[3];

	memcpy(q, e, sizeof(q));
	shadow_pair_part a = { q[0], q[1] }, b = { q[2], q[0] }, c = { q[1], q[2] };
	shadow_pair_part *p = (shadow_pair_part *)(void *)sh;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4, p += 6) {
		p[0] = a;
		p[1] = b;
		p[2] = c;
		p[3] = a;
		p[4] = b;
		p[5] = c;
	}
	if (i + 2 <= n) {
		p[0] = a;
		p[1] = b;
		p[2] = c;
		i += 2;
	}
	if (i < n)
		sh[i] = *e;
}

/* Poison (a FREE event) or unpoison (an ALLOC event) [addr, addr + len),
 * clipped to the world: one WRITE step over the range. */
static void shadow_mark(const void *addr, size_t len, unsigned ev, bool poisoned,
			const struct weft_site *s)
{
	if (!len || !in_world(addr, 1, s))
		return;
	uint32_t loc = loc_of(addr);

	if (len > M.world_size - loc)
		len = M.world_size - loc;
	weft_trace(ev, loc, 0, len, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, (uint32_t)len, 0, s);
	/* one entry, copied: the same bytes shadow_write() and the flag would
	 * store, in a quarter of the stores (setup poisons every page) */
	struct shadow e = { .epoch = M.epoch, .step = M.step, .site = s,
			    .tid = M.cur < 0 ? 0xff : (uint8_t)M.cur, .poisoned = poisoned };
	shadow_fill(&M.shadow[loc], &e, len);
	if (poisoned && M.core_used)
		weft_families_freed(loc, (uint32_t)len, s);
	else if (poisoned && M.freed_watch)
		M.freed_watch(loc, (uint32_t)len, s);
	if (poisoned && !M.core_used && M.cur >= 0)
		/* rcu_freed()'s record (the RCU state, all zero here: no
		 * reader holds anything), also before any family used the
		 * core area: a free then and another thread's
		 * rcu_dereference() after it were independent in their
		 * records, and the order that reports the free in use was
		 * never explored (tests/dpor/test_dpor_rcu_free.c). Flagged
		 * WEFT_STEP_CTX, as a region's record of the reader slot: no
		 * operation of its own, so the genome's overrides and POS
		 * draws (genome.c) count what they did before it */
		weft_sched_step_f(WEFT_DEP_READ, M.core_off + weft_core_freed_off,
				  weft_core_freed_size, 0, WEFT_STEP_CTX, s);
}

void weft_poison(const void *addr, size_t len, const struct weft_site *s)
{
	shadow_mark(addr, len, WEFT_EV_FREE, true, s);
}

void weft_unpoison(const void *addr, size_t len, const struct weft_site *s)
{
	shadow_mark(addr, len, WEFT_EV_ALLOC, false, s);
}

bool weft_is_poisoned(const void *addr)
{
	uint32_t loc = loc_of(addr);

	return loc != WEFT_NO_LOC && M.shadow[loc].epoch == M.epoch && M.shadow[loc].poisoned;
}

bool weft_in_world(const void *p, size_t size, const struct weft_site *s)
{
	return in_world(p, size, s);
}

struct weft_access weft_last_write(const void *addr)
{
	struct weft_access a = { 0 };
	uint32_t loc = loc_of(addr);

	if (loc == WEFT_NO_LOC)
		return a;
	/* weak memory: a store still in a CPU's buffer is the last one made */
	if (__builtin_expect(weft_mem_weak, 0) && weft_mem_pending_store(addr, &a))
		return a;
	struct shadow *sh = &M.shadow[loc];
	if (sh->epoch != M.epoch || !sh->site)
		return a;
	a.valid = true;
	a.tid = sh->tid == 0xff ? -1 : sh->tid;
	a.cpu = sh->tid == 0xff ? -1 : (int)M.cpu_of[sh->tid];
	a.step = sh->step;
	a.site = sh->site;
	return a;
}
