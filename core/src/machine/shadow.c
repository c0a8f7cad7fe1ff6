/*
 * shadow.c - the shadow of the world: for every byte, the access that last
 * wrote it (site, thread, step) and whether it is freed. Poisoning a range
 * makes any later primitive on it a use-after-free report; the last writer
 * is the "other side" of most reports.
 *
 * Poison and unpoison are not scheduling points: they belong to the
 * operation that frees or allocates (which took its own point).
 */
#include <weft/kernel.h>

#include "sched.h"

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
	for (size_t i = 0; i < len; i++)
		M.shadow[loc + i] = e;
	if (poisoned && M.core_used)
		weft_families_freed(loc, (uint32_t)len, s);
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
