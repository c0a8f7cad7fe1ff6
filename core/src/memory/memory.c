/*
 * memory.c - the weak memory models of the fake CPUs on the store buffers
 * (store_buffer.c) and the history of memory (history.c); memory.h states
 * what each model allows, docs/memory-model.md which LKMM relations.
 *
 * tso: FIFO buffers; a load reads its CPU's newest buffered store to its
 * location or memory. lkmm, its multicopy-atomic part (one memory, which a
 * store joins for every other CPU at once):
 *  - a store is buffered with the delay the strategy picks, and may become
 *    visible before an older store of its CPU to another location unless
 *    an smp_wmb() between them, a release, or a fence orders them;
 *  - a load reads its CPU's newest buffered store to its location, else a
 *    version of memory the strategy picks among those still current at or
 *    after the load's floor: the latest of the CPU's floor (raised by
 *    smp_mb() and the full-barrier primitives to what has reached every
 *    CPU, a strong fence, history.c), to the time of its loads
 *    so far by smp_rmb(), to the time an acquire read at), the version its
 *    CPU last read or wrote at that location (coherence: CoRR, CoWR), and
 *    the time of the load that gave the pointer it reads through (an
 *    address dependency);
 *  - read-modify-writes are atomic on memory (the latest value), and order
 *    by their class: fully (the value-returning ones: the buffer drains
 *    first, later loads read at "now"), acquire, release, or not at all
 *    (the non-returning ones; any that fails).
 * A load with a choice of versions and a store asked for a delay are the
 * weak choices of an execution, in one stream the strategy answers
 * (pick_delay) and a replay file records.
 */
#include <string.h>

#include <weft/kernel.h>

#include "sched.h"
#include "memory_internal.h"

struct mem_state mem;

uint32_t weft_mem_due = UINT32_MAX;
bool weft_mem_weak;
bool weft_mem_switch_due;
void (*weft_point_hook)(void);

static bool lkmm(void)
{
	return mem.model == WEFT_MEM_LKMM;
}

/* The store buffers and the CPUs' last tasks are as sb_reset() and the
 * loop below leave them: only a weak execution changes them (every caller
 * of the buffers, fences and switch-ins tests weft_mem_weak first), so a
 * reset after a reset and sc executions has nothing to do there (two
 * loops over the 64 CPUs, about 190 instructions per execution). */
static bool buffers_at_rest;

void weft_mem_reset(enum weft_memory_model m)
{
	mem.model = m;
	mem.nr_delays = 0;
	mem.patch_addr = NULL;
	if (!buffers_at_rest) {
		sb_reset();
		for (unsigned c = 0; c < WEFT_EXEC_MAX_CPUS; c++)
			mem.last_task[c] = -1;
	}
	if (m == WEFT_MEM_LKMM)
		hist_reset();
	weft_mem_weak = m != WEFT_MEM_SC;
	buffers_at_rest = !weft_mem_weak;
	weft_mem_due = weft_mem_weak || weft_point_hook ? 0 : UINT32_MAX;
	weft_mem_switch_due = weft_mem_weak || weft_point_hook;
}

enum weft_memory_model weft_last_memory(void)
{
	return mem.model;
}

const uint8_t *weft_last_delays(size_t *n)
{
	*n = mem.nr_delays < WEFT_MAX_DELAYS ? mem.nr_delays : WEFT_MAX_DELAYS;
	return mem.delays;
}

static unsigned cur_cpu(void)
{
	return M.cpu_of[M.cur];
}

static unsigned order_of(const struct weft_site *s)
{
	return s->flags & WEFT_SITE_ORD_MASK;
}

/* The next weak choice of the execution: a code in [0, ncodes). */
static uint32_t ask(uint32_t ncodes)
{
	uint32_t code = 0;

	if (M.ops->pick_delay)
		code = M.ops->pick_delay(M.st, mem.nr_delays, ncodes) % ncodes;
	if (mem.nr_delays < WEFT_MAX_DELAYS)
		mem.delays[mem.nr_delays] = (uint8_t)code;
	mem.nr_delays++;
	return code;
}

/* ------------------------------------------------------------- fences */

/* A full barrier of cpu: its buffer drains; under lkmm a strong fence (its
 * later loads read at or after what has reached every CPU, history.c) whose
 * later stores carry "now" as their cumul. */
static void full_barrier(unsigned cpu)
{
	weft_mem_drain_cpu(cpu);
	if (lkmm()) {
		view_strong_fence(cpu);
		cpu_view(cpu)->fence = mem.now;
	}
}

void weft_mem_fence(unsigned kind)
{
	unsigned cpu = cur_cpu();

	switch (kind) {
	case WEFT_FENCE_RMB:
		/* tso keeps loads in order; lkmm: later loads see what the
		 * writes that earlier loads read had to be preceded by (their
		 * cumul): the other writes of a time they read at need not
		 * have reached this CPU (smp_rmb() is not cumulative) */
		if (lkmm()) {
			struct cpu_view *vw = cpu_view(cpu);
			if (vw->maxcumul > vw->floor)
				vw->floor = vw->maxcumul;
		}
		break;
	case WEFT_FENCE_RELEASE:
		/* a C11 release fence: smp_wmb(), and A-cumulative (what this
		 * CPU saw before it precedes its later stores for everyone) */
		if (lkmm()) {
			struct cpu_view *vw = cpu_view(cpu);
			vw->fence = max_u32(vw->fence, cpu_saw(vw));
		}
		__attribute__((fallthrough));
	case WEFT_FENCE_WMB:
		/* tso keeps stores in order; lkmm: later stores follow every
		 * store buffered now, and carry this CPU's stores as their
		 * cumul (write_cumul()) */
		mem.sb[cpu].wmb_seq = mem.sb[cpu].next_seq;
		if (lkmm())
			cpu_view(cpu)->wmb = true;
		break;
	default:
		/* smp_mb(), and the fences this build treats as one:
		 * smp_mb__before_atomic()/__after_atomic() order every access
		 * before with every access after (the LKMM only those around an
		 * atomic), smp_mb__after_spinlock() */
		full_barrier(cpu);
		break;
	}
}

/* ------------------------------------------------------ scheduling points */

/* Events after which a CPU's buffer must be empty: everything but plain
 * and marked loads and stores and events that touch no memory. */
static bool orders(unsigned ev)
{
	switch (ev) {
	case WEFT_EV_READ:
	case WEFT_EV_WRITE:
	case WEFT_EV_RMW:       /* weft_mem_access() orders it by its class */
	case WEFT_EV_YIELD:
	case WEFT_EV_BARRIER:   /* weft_fence() says which kind */
	case WEFT_EV_CHOICE:
	case WEFT_EV_NOTE:
	case WEFT_EV_OP:
	case WEFT_EV_CTX:
		return false;
	default:
		return true;
	}
}

/* Does the operation at site s order its CPU's accesses by itself (a
 * spin_unlock() is a release store; under lkmm a spin_lock() is an
 * acquire, weft_mem_observe_lock())? Under lkmm every trylock (spin_,
 * mutex_, down_*_, pthread_mutex_trylock, try_wait_for_completion) orders
 * by its outcome, known only after this point: one that succeeds is an
 * acquire (its primitive calls weft_mem_observe_lock()), one that fails
 * orders nothing (tools/memory-model/lock.cat: a failed trylock, LF, is a
 * read with "no ordering properties"). */
static bool orders_itself(const struct weft_site *s)
{
	if (s->flags & WEFT_SITE_SC)
		return false;
	if (s->ev == WEFT_EV_UNLOCK)
		return order_of(s) == WEFT_SITE_RELEASE;
	if (s->ev == WEFT_EV_TRYLOCK)
		return lkmm();
	if (s->ev == WEFT_EV_LOCK)
		return lkmm() && order_of(s) == WEFT_SITE_ACQUIRE;
	return false;
}

void weft_mem_point(const struct weft_site *s)
{
	if (__builtin_expect(weft_point_hook != NULL, 0))
		weft_point_hook();
	if (mem.nr_buffered)
		sb_flush_due();
	/* spin_unlock() is a release store (x86: a plain mov): it leaves the
	 * buffer, weft_mem_unlock() marks its place; under tso a lock is a
	 * locked instruction; every other primitive of the machine is (or
	 * implies) a full barrier */
	if (M.cur >= 0 && s && orders(s->ev) && !orders_itself(s)) {
		if (mem.nr_buffered || lkmm())
			full_barrier(cur_cpu());
	}
}

void weft_mem_unlock(const void *lock, const struct weft_site *s)
{
	unsigned cpu = cur_cpu();
	struct store_buffer *b = &mem.sb[cpu];

	if (!b->n || (s->flags & WEFT_SITE_SC))
		return;   /* nothing of this CPU is still to become visible */
	uint32_t seq = b->next_seq++;
	struct sb_entry e = { .addr = (uint8_t *)(uintptr_t)lock, .loc = WEFT_NO_LOC,
			      .kind = SB_UNLOCK, .tid = (uint8_t)M.cur, .due = M.step + 1,
			      .step = M.step, .seq = seq, .after = seq, .site = s };
	sb_push(cpu, &e);
}

void weft_mem_observe_lock(const void *lock, bool acquire)
{
	unsigned cpu = cur_cpu();

	if (mem.nr_unlocks)
		sb_observe_lock(lock);
	if (!lkmm() || !acquire)
		return;
	/* an unlock then a lock on one CPU is a full barrier (the LKMM's
	 * po-unlock-lock-po): this CPU's unlock still buffered drains */
	const struct store_buffer *b = &mem.sb[cpu];
	for (unsigned i = 0; i < b->n; i++)
		if (b->e[i].kind == SB_UNLOCK) {
			weft_mem_drain_cpu(cpu);
			break;
		}
	/* an acquire: later loads read at "now"; the lock's handover is
	 * taken as a full barrier for the stores after it too (the LKMM's
	 * po-unlock-lock-po is a cumul-fence; A-cumulative here: stronger) */
	struct cpu_view *vw = cpu_view(cpu);
	vw->floor = vw->fence = mem.now;
}

void weft_mem_switch_in(unsigned tid)
{
	unsigned cpu = M.cpu_of[tid];

	if (__builtin_expect(weft_point_hook != NULL, 0))
		weft_point_hook();   /* M.cur is tid: its window begins */
	if (!weft_mem_weak || M.irq_threads >> tid & 1)
		return;   /* sc; an interrupt continues its CPU's program order */
	int last = mem.last_task[cpu];
	mem.last_task[cpu] = (int16_t)tid;
	if (last >= 0 && last != (int)tid)
		full_barrier(cpu);   /* __schedule()'s full barrier */
}

void weft_mem_migrate(unsigned from, unsigned to)
{
	full_barrier(from);
	full_barrier(to);
}

void weft_mem_cpu_barrier(unsigned cpu)
{
	full_barrier(cpu);
}

void weft_mem_resumed(void)
{
	full_barrier(cur_cpu());
}

void weft_mem_yield(void)
{
	/* stores become visible in finite time: a spin-wait (cpu_relax())
	 * reads the latest of memory */
	if (lkmm())
		cpu_view(cur_cpu())->floor = mem.now;
}

/* ------------------------------------------------------------- stores */

/* The order a store of site s must keep behind its CPU's older entries. */
static uint32_t store_after(unsigned cpu, const struct weft_site *s)
{
	const struct store_buffer *b = &mem.sb[cpu];

	if (!lkmm() || order_of(s) == WEFT_SITE_RELEASE)
		return b->next_seq;   /* tso (FIFO), or a release: all of them */
	return b->wmb_seq;
}

/* A store of the current thread: buffered (true) or written now. rmw:
 * the write of an acquire read-modify-write (sb_entry.rmw). */
static bool store(uint8_t *addr, uint32_t loc, unsigned size, uint64_t val,
		  const struct weft_site *s, bool rmw)
{
	unsigned cpu = cur_cpu();
	struct store_buffer *b = &mem.sb[cpu];
	uint32_t code = ask(WEFT_DELAY_CODES);
	enum mem_ord ord = order_of(s) == WEFT_SITE_RELEASE ? MEM_ORD_RELEASE : MEM_ORD_RELAXED;

	if (size > 8) {   /* not a value the buffer can hold */
		weft_mem_drain_cpu(cpu);
		mem_store_now(cpu, addr, loc, size, val, ord);
		return false;
	}
	uint32_t after = store_after(cpu, s);
	if (!code && !sb_constrains(cpu, addr, size, after)) {
		mem_store_now(cpu, addr, loc, size, val & size_mask(size), ord);
		return false;
	}
	uint32_t seq = b->next_seq++;
	struct sb_entry e = { .addr = addr, .loc = loc, .size = (uint8_t)size, .kind = SB_STORE,
			      .tid = (uint8_t)M.cur, .due = M.step + 1 + weft_delay_steps(code),
			      .step = M.step, .seq = seq, .after = after < seq ? after : seq,
			      .val = val & size_mask(size), .site = s, .rmw = rmw,
			      .ord = (uint8_t)ord };
	sb_push(cpu, &e);
	return true;
}

/* -------------------------------------------------------------- loads */

/* A plain C read is a marked load of no class here. */
static const struct weft_site plain_site = { __FILE__, "plain", "plain read", __LINE__,
					     WEFT_EV_READ, 0, 0 };

/* What a load of the current thread reads at [addr, addr+size): its CPU's
 * buffered store, or (lkmm) a version of memory; *newest: the latest value
 * this CPU could see there (the trace shows a stale read as old != val). */
static uint64_t load(uint8_t *addr, uint32_t loc, unsigned size, const struct weft_site *s,
		     uint64_t *newest)
{
	unsigned cpu = cur_cpu();
	uint64_t v;

	if (mem.sb[cpu].n && sb_forward(cpu, addr, size, &v)) {
		*newest = v;
		return v;
	}
	if (!lkmm() || loc == WEFT_NO_LOC || size > 8) {
		*newest = v = mem_read(addr, size);
		return v;
	}
	struct version ver[MAX_VERSIONS];
	uint32_t floor = view_floor(cpu, addr, loc);
	unsigned n = hist_versions(cpu, addr, loc, size, floor, ver), k = 0;
	if (n > 1)
		k = ask(n);
	uint32_t sat = ver[k].tau > floor ? ver[k].tau : floor;
	view_read(cpu, addr, loc, &ver[k], sat);
	/* an acquire: later loads see what the write it read had to be
	 * preceded by (its cumul; coherence keeps this location's order) */
	struct cpu_view *vw = cpu_view(cpu);
	if (order_of(s) == WEFT_SITE_ACQUIRE && ver[k].cumul > vw->floor)
		vw->floor = ver[k].cumul;
	*newest = ver[0].val;
	return ver[k].val;
}

/* ----------------------------------------------------------- accesses */

uint64_t weft_mem_access(void *addr, uint32_t loc, unsigned size, unsigned aop, uint64_t a,
			 uint64_t b, const struct weft_site *s, uint64_t *nv, bool *buffered)
{
	unsigned cpu = cur_cpu();
	uint64_t old, mask = size_mask(size);

	*buffered = false;
	if (s->flags & WEFT_SITE_SC) {   /* the machine's own vocabulary */
		full_barrier(cpu);
		if (aop == WEFT_A_LOAD) {
			*nv = old = mem_read(addr, size);
			return old;
		}
		if (aop == WEFT_A_STORE) {
			old = mem_read(addr, size);
			*nv = a & mask;
			mem_store_now(cpu, addr, loc, size, *nv, MEM_ORD_FULL);
			if (lkmm())   /* sequentially consistent: it reaches every CPU */
				view_strong_fence(cpu);
			return old;
		}
	}
	switch (aop) {
	case WEFT_A_LOAD:
		return load(addr, loc, size, s, nv);
	case WEFT_A_STORE:
		/* old: what memory holds now (the trace's before-value) */
		old = mem_read(addr, size);
		*nv = a & mask;
		*buffered = store(addr, loc, size, a, s, false);
		return old;
	default:
		break;
	}
	/* an atomic read-modify-write: on the latest value, after this CPU's
	 * own stores to the location and every other CPU's buffered
	 * read-modify-write there */
	if (lkmm() && mem.nr_rmw)
		sb_flush_rmw(cpu, addr, size);
	if (!lkmm()) {
		weft_mem_drain_cpu(cpu);   /* tso: a locked instruction */
	} else if (mem.sb[cpu].n) {
		sb_flush_loc(cpu, addr, size);
		/* its store follows what an smp_wmb() put before it */
		sb_flush_before(cpu, mem.sb[cpu].wmb_seq);
	}
	old = mem_read(addr, size);
	uint32_t read_cumul = 0;
	if (lkmm()) {
		/* its read is a load a later smp_rmb() orders (it reads the
		 * newest version, "now") */
		struct cpu_view *vw = cpu_view(cpu);
		read_cumul = hist_newest_cumul(loc, size);
		if (mem.now > vw->maxsat)
			vw->maxsat = mem.now;
		if (read_cumul > vw->maxcumul)
			vw->maxcumul = read_cumul;
		/* the value it read heads an address dependency as a load's
		 * does: a try_cmpxchg() loop that fails and follows the
		 * pointer it found (llist_del_first()) reads through it at or
		 * after now, whatever the failure orders */
		view_dep(cpu, old, mem.now);
	}
	/* the funnel's own operations (weft_op_value), xor and nand included */
	uint64_t v = weft_op_value(aop, old, a, b, mask) & mask;
	/* a cmpxchg or add_unless that fails writes nothing and orders
	 * nothing (LKMM); the others by their class */
	bool failed = (aop == WEFT_A_CMPXCHG || aop == WEFT_A_ADD_UNLESS) && v == old;
	unsigned ord = order_of(s);
	if (lkmm() && !failed && size <= 8 &&
	    (ord == WEFT_SITE_ACQUIRE || ord == WEFT_SITE_RELAXED || ord == WEFT_SITE_RELEASE)) {
		/* Nothing orders the write of an unordered, acquire or
		 * release read-modify-write before the loads that follow it
		 * (atomic_t.txt; the kernel's
		 * Atomic-RMW+mb__after_atomic-is-stronger-than-acquire): it is
		 * buffered as a store of its class would be (a release after
		 * everything before it), so `atomic_inc(); if
		 * (waitqueue_active())` without smp_mb__after_atomic() can
		 * lose a wake-up. It stays atomic: every other write to its
		 * bytes joins memory after it (mem_store_now(),
		 * sb_flush_rmw()). An acquire orders its read before what
		 * follows. */
		struct cpu_view *vw = cpu_view(cpu);
		if (ord == WEFT_SITE_ACQUIRE && read_cumul > vw->floor)
			vw->floor = read_cumul;
		*buffered = store(addr, loc, size, v, s, true);
		*nv = v;
		return old;
	}
	if (lkmm() && !failed &&
	    (ord == 0 || ord == WEFT_SITE_RELEASE || ord == WEFT_SITE_RELEASE_ACQUIRE_ZERO))
		weft_mem_drain_cpu(cpu);   /* everything before it visible first */
	if (!failed)
		mem_store_now(cpu, addr, loc, size, v,
			      ord == 0 ? MEM_ORD_FULL
			      : ord == WEFT_SITE_RELEASE || ord == WEFT_SITE_RELEASE_ACQUIRE_ZERO
				      ? MEM_ORD_RELEASE
				      : MEM_ORD_RELAXED);
	if (lkmm()) {
		struct cpu_view *vw = cpu_view(cpu);
		/* refcount_dec_and_test()'s acquire is on the path that dropped
		 * the count to 0 only (smp_acquire__after_ctrl_dep()) */
		bool acq_zero = ord == WEFT_SITE_RELEASE_ACQUIRE_ZERO && v == 0;
		if (!failed && ord == 0)
			view_strong_fence(cpu);   /* fully ordered: its write reaches
						     every CPU as a strong fence after
						     it has it (SB+mb+xchg) */
		if (!failed && (ord == 0 || ord == WEFT_SITE_ACQUIRE || acq_zero))
			vw->floor = mem.now;   /* later loads read at or after it */
		else if (loc != WEFT_NO_LOC)
			view_wrote(cpu, loc, mem.now);
	}
	*nv = v;
	return old;
}

void weft_mem_plain_read_begin(void *addr, unsigned size)
{
	uint64_t v, newest;

	if (size > 8)
		return;
	/* the model's own C load runs next: it reads what this CPU's load
	 * would, put in memory for the moment */
	v = load(addr, loc_of(addr), size, &plain_site, &newest);
	M.plain_old = newest;
	if (v == mem_read(addr, size))
		return;
	mem.patch_addr = addr;
	mem.patch_size = size;
	mem.patch_saved = mem_read(addr, size);
	mem_write(addr, size, v);
}

void weft_mem_plain_read_end(void)
{
	if (mem.patch_addr) {
		mem_write(mem.patch_addr, mem.patch_size, mem.patch_saved);
		mem.patch_addr = NULL;
	}
}

bool weft_mem_plain_write(void *addr, uint32_t loc, unsigned size, uint64_t old, uint64_t val,
			  const struct weft_site *s)
{
	/* the model's own store went to memory: undo it, then store */
	mem_write(addr, size, old);
	return store(addr, loc, size, val, s, false);
}

/* A check's look at the current CPU's buffer (never a flush, never a
 * choice): 1 and *v, its newest store of exactly [addr, addr+size); -1, a
 * store of a part of it (the check reads memory); 0, none. */
static int sb_peek(unsigned cpu, const void *addr, unsigned size, uint64_t *v)
{
	const struct store_buffer *b = &mem.sb[cpu];

	for (unsigned i = b->n; i-- > 0;) {
		const struct sb_entry *e = &b->e[i];
		if (e->kind == SB_STORE && e->addr == (const uint8_t *)addr && e->size == size) {
			*v = e->val;
			return 1;
		}
		if (e->kind == SB_STORE && e->addr < (const uint8_t *)addr + size &&
		    (const uint8_t *)addr < e->addr + e->size)
			return -1;
	}
	return 0;
}

uint64_t weft_peek_weak(const void *addr, unsigned size)
{
	uint64_t v;

	if (M.cur >= 0 && size <= 8 && (size & (size - 1)) == 0 &&
	    sb_peek(cur_cpu(), addr, size, &v) > 0)
		return v;
	return mem_read(addr, size);
}

uint64_t weft_peek_visible(const void *addr, unsigned size)
{
	if (M.cur < 0 || !lkmm() || size > 8 || (size & (size - 1)))
		return weft_peek_weak(addr, size);
	unsigned cpu = cur_cpu();
	uint64_t v;
	int buffered = sb_peek(cpu, addr, size, &v);
	if (buffered > 0)
		return v;
	uint32_t loc = loc_of(addr);
	if (buffered < 0 || loc == WEFT_NO_LOC)
		return mem_read(addr, size);
	struct version ver[MAX_VERSIONS];
	unsigned n = hist_versions(cpu, addr, loc, size, view_floor(cpu, addr, loc), ver);
	return ver[n - 1].val;   /* the oldest a load may still read */
}

uint32_t weft_weak_choice(enum weft_memory_model m, uint32_t ncodes)
{
	if (!weft_mem_weak || mem.model != m || M.cur < 0 || ncodes < 2)
		return 0;
	return ask(ncodes);
}

/* The newest value of a location: a store of the same size still in a
 * CPU's buffer (the one executed last), else memory. For the kit's checks
 * of its ghost state (a page's allocator state), which a detector reads as
 * the machine knows it, never as one CPU may see it: under lkmm another
 * CPU's allocation may sit in its buffer while the page's count, stored
 * after it, is already visible. */
uint64_t weft_peek_newest(const void *addr, unsigned size)
{
	const struct sb_entry *e = sb_newest_store(addr, size);

	return e ? e->val : mem_read(addr, size);
}

/* -------------------------------------------------------------- names */

static const char *const model_names[WEFT_MEM__COUNT] = { "sc", "tso", "lkmm" };

const char *weft_memory_name(enum weft_memory_model m)
{
	return (unsigned)m < WEFT_MEM__COUNT ? model_names[m] : "?";
}

bool weft_memory_parse(const char *s, enum weft_memory_model *out, const char **why)
{
	for (unsigned m = 0; m < WEFT_MEM__COUNT; m++)
		if (!strcmp(s, model_names[m])) {
			*out = (enum weft_memory_model)m;
			return true;
		}
	if (why)
		*why = "the memory models are sc, tso and lkmm";
	return false;
}
