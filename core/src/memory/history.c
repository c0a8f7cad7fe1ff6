/*
 * history.c - what the kernel's model (lkmm) reads through: the history of
 * memory (every write of a weak execution, so a load can read a version
 * that coherence still allows) and each CPU's view of it (the floor its
 * loads read at or after, its coherence per location, the pointers it
 * loaded), and what strong fences made reach every CPU (view_strong_fence).
 * memory.c says when the floors move.
 *
 * Keys are world offsets (never addresses): the same execution allows the
 * same versions in every build. Every table is bounded; what falls out of
 * one (an old write, a coherence entry, a dependency) only removes
 * versions a load could read, or raises a floor: never a behaviour the
 * model forbids.
 */
#include <string.h>

#include "sched.h"
#include "memory_internal.h"

/* A load through a pointer this CPU loaded reads after that load, when
 * its address is within DEP_WINDOW bytes after the pointer (p->field) or
 * DEP_WINDOW_BEFORE bytes before it: a pointer to a member, as list and
 * rb-tree links are, reaches its object's other fields through
 * container_of() (list_entry_rcu(): the entry's fields lie before its
 * list_head). A wider window orders more loads than the kernel's
 * dependencies do (it can hide a reordering), never fewer. */
#define DEP_WINDOW 128
#define DEP_WINDOW_BEFORE 256

void hist_reset(void)
{
	mem.now = 0;
	mem.nr_hist = 0;
	mem.everywhere.floor = 0;
	mem.everywhere.used = 0;
	if (weft_epoch_advance(&mem.lkmm_epoch)) {
		memset(mem.view, 0, sizeof(mem.view));
		memset(mem.slot, 0, sizeof(mem.slot));
	}
}

void cpu_view_init(struct cpu_view *vw)
{
	memset(vw, 0, sizeof(*vw));
	vw->epoch = mem.lkmm_epoch;
	for (unsigned i = 0; i < COH_SLOTS; i++)
		vw->coh[i].loc = WEFT_NO_LOC;
}

/* The slot of loc's 8-byte word (direct-mapped), set up on its first use
 * in this lkmm execution, as cpu_view() (16 KB cleared per reset before). */
static struct hist_slot *word_slot(uint32_t loc)
{
	struct hist_slot *sl = &mem.slot[(loc >> 3) % HIST_SLOTS];

	if (sl->epoch != mem.lkmm_epoch)
		*sl = (struct hist_slot){ .loc = WEFT_NO_LOC, .idx = HIST_NONE, .tau = HIST_NONE,
					  .epoch = mem.lkmm_epoch };
	return sl;
}

void hist_write(uint32_t loc, unsigned size, uint64_t old, uint32_t cumul)
{
	struct hist_slot *sl = word_slot(loc);
	uint32_t idx = mem.nr_hist++;
	struct hist_write *w = &mem.hist[idx % HIST_CAP];

	mem.now++;
	w->loc = loc;
	w->size = (uint8_t)size;
	w->tau = mem.now;
	w->cumul = cumul;
	w->old = old;
	if (sl->loc == (loc & ~7u)) {
		w->prev = sl->idx;
		w->prev_tau = sl->tau;
	} else {
		/* the slot's word changed: the other word's chain is gone,
		 * and this word's, if it had one, was forgotten before */
		if (sl->loc != WEFT_NO_LOC && sl->tau > sl->lost)
			sl->lost = sl->tau;
		w->prev = HIST_NONE;
		w->prev_tau = sl->lost;
	}
	sl->loc = loc & ~7u;
	sl->idx = idx;
	sl->tau = mem.now;
}

/* The logged write idx, if still in the ring and the one expected. */
static const struct hist_write *logged(uint32_t idx, uint32_t tau)
{
	if (idx == HIST_NONE || mem.nr_hist - idx > HIST_CAP)
		return NULL;
	const struct hist_write *w = &mem.hist[idx % HIST_CAP];
	return w->tau == tau ? w : NULL;
}

/* A word's chain holds the writes of every location in the 8-byte word:
 * a load walks past the others' (at most this many) to its own. */
#define MAX_SKIPS 64

static bool overlaps(const struct hist_write *w, uint32_t loc, unsigned size)
{
	return w->loc < loc + size && loc < w->loc + w->size;
}

/* The newest write of [loc, loc+size) at or before the chain entry (idx,
 * tau) of its word, or NULL and *bound: the latest time that write can
 * have been made when it is not known (0: there was none, the value is
 * the initial one). A bound too late only raises the floors of the loads
 * after this one (stronger, never a behaviour the model forbids); one too
 * early would let them read versions it forbids. */
static const struct hist_write *newest_write_of(uint32_t idx, uint32_t tau, uint32_t loc,
						unsigned size, uint32_t *bound)
{
	for (unsigned hops = 0; hops < MAX_SKIPS; hops++) {
		const struct hist_write *w = idx == HIST_NONE ? NULL : logged(idx, tau);
		if (!w)
			break;
		if (overlaps(w, loc, size))
			return w;
		idx = w->prev;
		tau = w->prev_tau;
	}
	*bound = tau;
	return NULL;
}

unsigned hist_versions(unsigned cpu, const uint8_t *addr, uint32_t loc, unsigned size,
		       uint32_t floor, struct version *v)
{
	unsigned n = 1;
	uint32_t bound = 0;

	(void)cpu;
	v[0].val = mem_read(addr, size);
	v[0].tau = v[0].cumul = 0;
	if (loc == WEFT_NO_LOC)
		return 1;
	const struct hist_slot *sl = word_slot(loc);
	if (sl->loc != (loc & ~7u)) {
		v[0].tau = v[0].cumul = sl->lost;   /* never written, or forgotten */
		return 1;
	}
	const struct hist_write *w = newest_write_of(sl->idx, sl->tau, loc, size, &bound);
	if (!w) {
		v[0].tau = v[0].cumul = bound;
		return 1;
	}
	v[0].tau = w->tau;
	v[0].cumul = w->cumul;
	/* a write of another offset or size ends the location's versions */
	if (w->loc != loc || w->size != size)
		return 1;
	/* the value w replaced was current until w->tau */
	while (n < MAX_VERSIONS && w->tau > floor) {
		const struct hist_write *p = newest_write_of(w->prev, w->prev_tau, loc, size, &bound);
		v[n].val = w->old;
		v[n].tau = p ? p->tau : bound;
		v[n].cumul = p ? p->cumul : bound;
		n++;
		if (!p || p->loc != loc || p->size != size)
			break;
		w = p;
	}
	return n;
}

uint32_t hist_newest_cumul(uint32_t loc, unsigned size)
{
	uint32_t bound = 0;

	if (loc == WEFT_NO_LOC)
		return mem.now;
	const struct hist_slot *sl = word_slot(loc);
	if (sl->loc != (loc & ~7u))
		return sl->lost;
	const struct hist_write *w = newest_write_of(sl->idx, sl->tau, loc, size, &bound);
	return w ? w->cumul : bound;
}

/* --------------------------------------------------------------- views */

static unsigned coh_slot(uint32_t loc)
{
	return (loc >> 3) % COH_SLOTS;
}

static uint32_t coh_get(const struct cpu_view *vw, uint32_t loc)
{
	unsigned i = coh_slot(loc);

	return vw->coh[i].loc == loc ? vw->coh[i].tau : 0;
}

/* vw's coherence at loc moves to version tau (never back). A slot that
 * moves is one a strong fence must tell every CPU about, but when what
 * moved it came from every CPU's (fresh false). */
static void coh_move(struct cpu_view *vw, uint32_t loc, uint32_t tau, bool fresh)
{
	unsigned i = coh_slot(loc);

	if (vw->coh[i].loc != loc && vw->coh[i].loc != WEFT_NO_LOC &&
	    vw->coh[i].tau > vw->floor)
		vw->floor = vw->coh[i].tau;   /* evicted: its order kept, coarser */
	if (vw->coh[i].loc != loc || tau > vw->coh[i].tau) {
		vw->coh[i].loc = loc;
		vw->coh[i].tau = tau;
		vw->coh_used |= 1ull << i;
		if (fresh)
			vw->coh_new |= 1ull << i;
	}
}

static void coh_set(struct cpu_view *vw, uint32_t loc, uint32_t tau)
{
	coh_move(vw, loc, tau, true);
}

uint32_t view_floor(unsigned cpu, const uint8_t *addr, uint32_t loc)
{
	const struct cpu_view *vw = cpu_view(cpu);
	uint32_t f = vw->floor, c = coh_get(vw, loc);

	if (c > f)
		f = c;
	for (unsigned i = 0; i < DEP_SLOTS; i++)
		if (vw->dep[i].sat > f &&
		    (uint64_t)(uintptr_t)addr + DEP_WINDOW_BEFORE - vw->dep[i].v <
			    DEP_WINDOW_BEFORE + DEP_WINDOW)
			f = vw->dep[i].sat;
	return f;
}

void view_read(unsigned cpu, const uint8_t *addr, uint32_t loc, const struct version *v,
	       uint32_t sat)
{
	struct cpu_view *vw = cpu_view(cpu);

	(void)addr;
	if (sat > vw->maxsat)
		vw->maxsat = sat;
	if (v->cumul > vw->maxcumul)
		vw->maxcumul = v->cumul;
	if (loc != WEFT_NO_LOC)
		coh_set(vw, loc, v->tau);
	view_dep(cpu, v->val, sat);
}

void view_dep(unsigned cpu, uint64_t val, uint32_t sat)
{
	struct cpu_view *vw = cpu_view(cpu);

	/* a value that points into the world heads an address dependency */
	if (val - (uint64_t)(uintptr_t)M.world < M.loc_limit && sat) {
		unsigned i = vw->dep_next++ % DEP_SLOTS;
		if (vw->dep[i].sat > vw->floor)
			vw->floor = vw->dep[i].sat;   /* evicted: kept, coarser */
		vw->dep[i].v = val;
		vw->dep[i].sat = sat;
	}
}

void view_wrote(unsigned cpu, uint32_t loc, uint32_t tau)
{
	struct cpu_view *vw = cpu_view(cpu);

	vw->own = tau;
	if (loc != WEFT_NO_LOC)
		coh_set(vw, loc, tau);
}

/* ------------------------------------------------------- strong fences */

/* The LKMM's strong fence (smp_mb(), and what this build takes for one):
 * every write that has propagated to its CPU before it propagates to every
 * CPU before anything after it (tools/memory-model/Documentation/
 * explanation.txt, "PROPAGATION ORDER RULE"; pb in linux-kernel.cat). What
 * has reached a CPU is its view: its floor and the cumul of the writes it
 * read (a time), and per location the version it last read or wrote. Not
 * a write only coherence puts before one of its own (R+wmb+mb: the other
 * CPU's store to x, ordered by smp_wmb() before a store to y that P1's
 * store to y overwrites, need not have reached P1): so not "now", as a
 * single floor had it. Strong fences are totally ordered (they run one at
 * a time here), and each adds its CPU's view to what has reached every
 * CPU, then takes all of it: of two fences, the later one's CPU reads what
 * reached the earlier one's (SB+mbs). The stores after the fence carry
 * "now" as their cumul still (vw->fence, set by the caller; A-cumulative,
 * as a time: stronger than the fence's view, never weaker). Eviction from
 * the direct-mapped table only raises its floor (coarser, stronger). */
static void everywhere_set(struct everywhere *g, uint32_t loc, uint32_t tau)
{
	unsigned i = coh_slot(loc);

	if (tau <= g->floor)
		return;
	if (g->used >> i & 1) {
		if (g->coh[i].loc == loc) {
			if (tau > g->coh[i].tau)
				g->coh[i].tau = tau;
			return;
		}
		if (g->coh[i].tau > g->floor)
			g->floor = g->coh[i].tau;   /* evicted: coarser */
	}
	g->coh[i].loc = loc;
	g->coh[i].tau = tau;
	g->used |= 1ull << i;
}

void view_strong_fence(unsigned cpu)
{
	struct cpu_view *vw = cpu_view(cpu);
	struct everywhere *g = &mem.everywhere;

	/* what has reached this CPU reaches every CPU (what reached it from
	 * every CPU's view is there already) */
	for (uint64_t m = vw->coh_new; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctzll(m);
		everywhere_set(g, vw->coh[i].loc, vw->coh[i].tau);
	}
	vw->coh_new = 0;
	g->floor = max_u32(g->floor, max_u32(vw->floor, vw->maxcumul));
	/* and this CPU's later loads read at or after all of it */
	if (g->floor > vw->floor)
		vw->floor = g->floor;
	for (uint64_t m = g->used; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctzll(m);
		if (g->coh[i].tau > vw->floor)
			coh_move(vw, g->coh[i].loc, g->coh[i].tau, false);
	}
}
