/*
 * store_buffer.c - the per-CPU store buffers of the weak memory models
 * (memory.h says what each model allows, docs/memory-model.md why).
 *
 * An entry becomes visible at the first scheduling point at or after its
 * due step, after every entry of its CPU it must follow: under tso all the
 * older ones (FIFO); under lkmm the older ones to an overlapping location
 * (CoWW) and those an smp_wmb(), a release or an unlock puts before it.
 * Dues are raised at insertion to those of the entries an entry follows,
 * so visibility in due order keeps every constraint; a drain (a fence, an
 * atomic, a lock, a full buffer) makes an entry visible early, its
 * predecessors first.
 *
 * The delays a strategy picks are the only inputs: the same delays (and
 * decisions) give the same flushes at the same steps in every build.
 */
#include <string.h>

#include <weft/kernel.h>

#include "sched.h"
#include "memory_internal.h"

/* ------------------------------------------------------------- memory */

uint64_t mem_read(const void *addr, unsigned size)
{
	switch (size) {
	case 1: return __atomic_load_n((const uint8_t *)addr, __ATOMIC_RELAXED);
	case 2: return __atomic_load_n((const uint16_t *)addr, __ATOMIC_RELAXED);
	case 4: return __atomic_load_n((const uint32_t *)addr, __ATOMIC_RELAXED);
	default: return __atomic_load_n((const uint64_t *)addr, __ATOMIC_RELAXED);
	}
}

void mem_write(void *addr, unsigned size, uint64_t v)
{
	switch (size) {
	case 1: __atomic_store_n((uint8_t *)addr, (uint8_t)v, __ATOMIC_RELAXED); break;
	case 2: __atomic_store_n((uint16_t *)addr, (uint16_t)v, __ATOMIC_RELAXED); break;
	case 4: __atomic_store_n((uint32_t *)addr, (uint32_t)v, __ATOMIC_RELAXED); break;
	default: __atomic_store_n((uint64_t *)addr, v, __ATOMIC_RELAXED); break;
	}
}

uint64_t size_mask(unsigned size)
{
	return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
}

/* The cumul of cpu's write of order ord joining memory now: the time a
 * CPU that reads it and then orders its loads (smp_rmb(), an acquire)
 * must read at or after. A later time than the LKMM needs only orders
 * more (stronger), never less. tools/memory-model/linux-kernel.cat: such a
 * load may not read a version older than a write w2 when w2 ->prop-> an
 * event of its CPU that happens before it; prop's cumul-fence chains give
 * a write's own part here, happens-before through other CPUs the rest:
 *  - A-cumul(strong-fence | po-rel): after a full barrier, every write of
 *    a time before it (fence); a release, every write of a time its CPU
 *    read at, was floored to, or wrote at;
 *  - wmb, po-unlock-lock-po: its CPU's own earlier writes (own);
 *  - rmw-sequence, and a read that happens before the write on its CPU
 *    (ppo: a dependency Weft cannot see is assumed): the cumul of every
 *    version its CPU read (maxcumul), never the read's own time: a write
 *    its CPU saw need not have reached another CPU (WRC+wmb+rmb, IRIW with
 *    smp_rmb()s: propagation that is not multicopy-atomic). */
static uint32_t write_cumul(unsigned cpu, enum mem_ord ord)
{
	const struct cpu_view *vw = cpu_view(cpu);
	uint32_t c = max_u32(vw->fence, vw->maxcumul);

	switch (ord) {
	case MEM_ORD_FULL:
		return mem.now;
	case MEM_ORD_RELEASE:
		return max_u32(c, cpu_saw(vw));
	default:
		return vw->wmb ? max_u32(c, vw->own) : c;
	}
}

void mem_store_now(unsigned cpu, uint8_t *addr, uint32_t loc, unsigned size, uint64_t v,
		   enum mem_ord ord)
{
	if (__builtin_expect(mem.nr_rmw != 0, 0))
		sb_flush_rmw(cpu, addr, size);   /* read-modify-writes stay atomic */
	uint64_t old = mem_read(addr, size);

	mem_write(addr, size, v);
	if (mem.model == WEFT_MEM_LKMM && loc != WEFT_NO_LOC) {
		hist_write(loc, size, old, write_cumul(cpu, ord));
		view_wrote(cpu, loc, mem.now);
	}
}

/* ------------------------------------------------------------ buffers */

void sb_reset(void)
{
	if (mem.nr_buffered)   /* an aborted execution left stores behind */
		for (unsigned c = 0; c < WEFT_EXEC_MAX_CPUS; c++)
			mem.sb[c].n = 0;
	for (unsigned c = 0; c < WEFT_EXEC_MAX_CPUS; c++)
		mem.sb[c].next_seq = mem.sb[c].wmb_seq = 0;
	mem.nr_buffered = 0;
	mem.nr_unlocks = 0;
	mem.nr_rmw = 0;
}

static bool overlaps(const struct sb_entry *a, const uint8_t *addr, unsigned size)
{
	return a->kind == SB_STORE && a->addr < addr + size && addr < a->addr + a->size;
}

/* Must entry j (older) of a buffer become visible before e? */
static bool precedes(const struct sb_entry *j, const struct sb_entry *e)
{
	return j->seq < e->after || (e->kind == SB_STORE && overlaps(j, e->addr, e->size));
}

/* Entry i of cpu becomes visible: first the entries it follows. */
static void flush_at(unsigned cpu, unsigned i)
{
	struct store_buffer *b = &mem.sb[cpu];

	for (unsigned j = 0; j < i;) {
		if (precedes(&b->e[j], &b->e[i])) {
			flush_at(cpu, j);
			i--;   /* e[i] moved down: j is gone */
		} else {
			j++;
		}
	}
	struct sb_entry *e = &b->e[i];
	if (e->kind == SB_UNLOCK) {   /* the lock word is in memory already */
		mem.nr_unlocks--;
	} else {
		uint64_t old = mem_read(e->addr, e->size);
		mem_store_now(cpu, e->addr, e->loc, e->size, e->val, (enum mem_ord)e->ord);
		weft_trace_flush(e->tid, (uint8_t)cpu, e->loc, old, e->val, e->site);
		if (e->loc != WEFT_NO_LOC) {
			/* the shadow names the store, as an unbuffered one would */
			struct shadow *sh = &M.shadow[e->loc];
			sh->epoch = M.epoch;
			sh->step = e->step;
			sh->site = e->site;
			sh->tid = e->tid;
			sh->poisoned = 0;
			if (M.fb)
				feedback_write(e->loc, e->site);
		}
	}
	if (e->rmw)
		mem.nr_rmw--;
	memmove(&b->e[i], &b->e[i + 1], (b->n - i - 1) * sizeof(b->e[0]));
	b->n--;
	mem.nr_buffered--;
}

void sb_push(unsigned cpu, const struct sb_entry *e)
{
	struct store_buffer *b = &mem.sb[cpu];

	if (b->n == SB_CAP)
		flush_at(cpu, 0);
	struct sb_entry *t = &b->e[b->n];
	*t = *e;
	for (unsigned j = 0; j < b->n; j++)
		if (precedes(&b->e[j], t) && b->e[j].due > t->due)
			t->due = b->e[j].due;   /* never due before an entry it follows */
	b->n++;
	mem.nr_buffered++;
	if (t->kind == SB_UNLOCK)
		mem.nr_unlocks++;
	if (t->rmw)
		mem.nr_rmw++;
}

bool sb_constrains(unsigned cpu, const uint8_t *addr, unsigned size, uint32_t after)
{
	const struct store_buffer *b = &mem.sb[cpu];

	for (unsigned j = 0; j < b->n; j++)
		if (b->e[j].seq < after || overlaps(&b->e[j], addr, size))
			return true;
	return false;
}

bool sb_forward(unsigned cpu, const uint8_t *addr, unsigned size, uint64_t *v)
{
	struct store_buffer *b = &mem.sb[cpu];

	for (unsigned i = b->n; i-- > 0;) {
		const struct sb_entry *e = &b->e[i];
		if (e->kind != SB_STORE)
			continue;
		if (e->addr == addr && e->size == size) {
			*v = e->val;
			return true;
		}
		if (overlaps(e, addr, size)) {
			sb_flush_loc(cpu, addr, size);
			return false;
		}
	}
	return false;
}

void sb_flush_loc(unsigned cpu, const uint8_t *addr, unsigned size)
{
	struct store_buffer *b = &mem.sb[cpu];

	for (unsigned i = b->n; i-- > 0;)
		if (i < b->n && overlaps(&b->e[i], addr, size)) {
			flush_at(cpu, i);   /* its older ones to the location first */
			i = b->n;           /* rescan: indices moved */
		}
}

void sb_flush_rmw(unsigned cpu, const uint8_t *addr, unsigned size)
{
	for (unsigned c = 0; c < WEFT_EXEC_MAX_CPUS && mem.nr_rmw; c++) {
		struct store_buffer *b = &mem.sb[c];
		for (unsigned i = b->n; c != cpu && i-- > 0;)
			if (i < b->n && b->e[i].rmw && overlaps(&b->e[i], addr, size)) {
				flush_at(c, i);   /* with the entries it follows */
				i = b->n;         /* rescan: indices moved */
			}
	}
}

void sb_flush_before(unsigned cpu, uint32_t after)
{
	struct store_buffer *b = &mem.sb[cpu];

	while (b->n && b->e[0].seq < after)
		flush_at(cpu, 0);
}

/* The entry due first over every CPU (ties: the lower CPU, then program
 * order), if due now. */
static bool first_due(unsigned *cpu, unsigned *idx)
{
	uint32_t due = UINT32_MAX;
	bool any = false;

	for (unsigned c = 0; c < WEFT_EXEC_MAX_CPUS; c++)
		for (unsigned i = 0; i < mem.sb[c].n; i++)
			if (mem.sb[c].e[i].due < due) {
				due = mem.sb[c].e[i].due;
				*cpu = c;
				*idx = i;
				any = true;
			}
	return any && due <= M.step;
}

void sb_flush_due(void)
{
	unsigned c, i;

	while (mem.nr_buffered && first_due(&c, &i))
		flush_at(c, i);
}

void weft_mem_drain_cpu(unsigned cpu)
{
	while (mem.sb[cpu].n)
		flush_at(cpu, 0);
}

void weft_mem_drain_all(void)
{
	uint32_t due;

	while (mem.nr_buffered) {
		unsigned best = 0;
		due = UINT32_MAX;
		for (unsigned c = 0; c < WEFT_EXEC_MAX_CPUS; c++)
			if (mem.sb[c].n && mem.sb[c].e[0].due < due) {
				due = mem.sb[c].e[0].due;
				best = c;
			}
		flush_at(best, 0);
	}
}

bool sb_observe_lock(const void *lock)
{
	bool any = false;

	for (unsigned c = 0; c < WEFT_EXEC_MAX_CPUS; c++) {
		struct store_buffer *b = &mem.sb[c];
		if (c == M.cpu_of[M.cur] || !b->n)
			continue;
		for (unsigned i = b->n; i-- > 0;)
			if (b->e[i].kind == SB_UNLOCK && b->e[i].addr == (const uint8_t *)lock) {
				flush_at(c, i);   /* and every entry older than the unlock */
				any = true;
				break;
			}
	}
	return any;
}

const struct sb_entry *sb_newest_store(const void *addr, unsigned size)
{
	const struct sb_entry *best = NULL;

	for (unsigned c = 0; c < WEFT_EXEC_MAX_CPUS; c++)
		for (unsigned i = 0; i < mem.sb[c].n; i++) {
			const struct sb_entry *e = &mem.sb[c].e[i];
			if (e->kind == SB_STORE && e->addr == (const uint8_t *)addr &&
			    (!size || e->size == size) && (!best || e->step >= best->step))
				best = e;
		}
	return best;
}

bool weft_mem_pending_store(const void *addr, struct weft_access *a)
{
	const struct sb_entry *best = sb_newest_store(addr, 0);

	if (!best)
		return false;
	a->valid = true;
	a->tid = best->tid;
	a->cpu = (int)M.cpu_of[best->tid];
	a->step = best->step;
	a->site = best->site;
	return true;
}
