/*
 * history.c - what the kernel's model (lkmm) reads through: the history of
 * memory (every write of a weak execution, so a load can read a version
 * that coherence still allows) and each CPU's view of it (the floor its
 * loads read at or after, its coherence per location, the pointers it
 * loaded). memory.c says when the floors move.
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

static void coh_set(struct cpu_view *vw, uint32_t loc, uint32_t tau)
{
	unsigned i = coh_slot(loc);

	if (vw->coh[i].loc != loc && vw->coh[i].loc != WEFT_NO_LOC &&
	    vw->coh[i].tau > vw->floor)
		vw->floor = vw->coh[i].tau;   /* evicted: its order kept, coarser */
	if (vw->coh[i].loc != loc || tau > vw->coh[i].tau) {
		vw->coh[i].loc = loc;
		vw->coh[i].tau = tau;
	}
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
