/*
 * access.c - memory primitives: marked accesses (atomics, READ_ONCE,
 * WRITE_ONCE, bit operations), plain accesses, barriers, notes, model
 * choices and yields. Each is a scheduling point, a trace event and a
 * detector hook (use-after-free through the shadow) at once.
 *
 * Memory model: sequential consistency, unless the run chose a weak one
 * (memory/memory.h): then loads, stores and read-modify-writes of model
 * threads go through the store buffers, and fences drain them.
 */
#include <string.h>

#include <weft/kernel.h>

#include "sched.h"

static inline __attribute__((always_inline)) uint64_t do_op(void *addr, unsigned size, unsigned aop,
							    uint64_t a, uint64_t b,
		      uint64_t *newv)
{
	uint64_t old = 0, nv;

	/* a word, the most frequent size, tested first: no mask, no second
	 * size switch */
	if (__builtin_expect(size == 8, 1)) {
		old = __atomic_load_n((uint64_t *)addr, __ATOMIC_RELAXED);
		if (aop == WEFT_A_LOAD) {
			*newv = old;
			return old;
		}
		nv = weft_op_value(aop, old, a, b, ~0ull);
		__atomic_store_n((uint64_t *)addr, nv, __ATOMIC_RELAXED);
		*newv = nv;
		return old;
	}
	/* an int, the next most frequent: the same, with its mask constant */
	if (size == 4) {
		old = __atomic_load_n((uint32_t *)addr, __ATOMIC_RELAXED);
		if (aop == WEFT_A_LOAD) {
			*newv = old;
			return old;
		}
		nv = weft_op_value(aop, old, a, b, 0xffffffffull) & 0xffffffffull;
		__atomic_store_n((uint32_t *)addr, (uint32_t)nv, __ATOMIC_RELAXED);
		*newv = nv;
		return old;
	}
	switch (size) {
	case 1: old = __atomic_load_n((uint8_t *)addr, __ATOMIC_RELAXED); break;
	case 2: old = __atomic_load_n((uint16_t *)addr, __ATOMIC_RELAXED); break;
	case 4: old = __atomic_load_n((uint32_t *)addr, __ATOMIC_RELAXED); break;
	default: old = __atomic_load_n((uint64_t *)addr, __ATOMIC_RELAXED); break;
	}
	uint64_t mask = size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
	if (aop == WEFT_A_LOAD) {
		*newv = old;
		return old;
	}
	nv = weft_op_value(aop, old, a, b, mask) & mask;
	switch (size) {
	case 1: __atomic_store_n((uint8_t *)addr, (uint8_t)nv, __ATOMIC_RELAXED); break;
	case 2: __atomic_store_n((uint16_t *)addr, (uint16_t)nv, __ATOMIC_RELAXED); break;
	case 4: __atomic_store_n((uint32_t *)addr, (uint32_t)nv, __ATOMIC_RELAXED); break;
	default: __atomic_store_n((uint64_t *)addr, nv, __ATOMIC_RELAXED); break;
	}
	*newv = nv;
	return old;
}

/* check: CHECK_UAF, NO_CHECK, or UNLESS_FREED (freed memory: a load
 * instead, with no report, no store and no shadow write) */
enum { NO_CHECK, CHECK_UAF, UNLESS_FREED };

static inline __attribute__((always_inline)) uint64_t access_op(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
				 const struct weft_site *s, struct weft_access *prev, unsigned check,
				 unsigned mode)
{
	/* WEFT_TRACE_LEAN_FB (M.lean_fb): a lean execution's point, trace
	 * and shadow, with the strategy's on_step and the feedback kept */
	const bool lean = mode == WEFT_TRACE_LEAN || mode == WEFT_TRACE_LEAN_FB;
	const bool host = mode == WEFT_TRACE_HOST || mode == WEFT_TRACE_HOST_QUIET;
	/* no on_step, feedback or recording to feed (M.lean, M.host_quiet) */
	const bool quiet = mode == WEFT_TRACE_LEAN || mode == WEFT_TRACE_HOST_QUIET;
	const unsigned tmode = mode == WEFT_TRACE_LEAN_FB ? WEFT_TRACE_LEAN : mode;
	uint64_t nv, old;
	uint32_t loc;

	if (!host && (lean || M.cur >= 0))
		sched_point_at_f(s, addr, size, NULL, lean);
	if (!in_world(addr, size, s))
		return 0;   /* the host context: reported, not performed */
	loc = (uint32_t)((uintptr_t)addr - (uintptr_t)M.world);
	if (check == CHECK_UAF)
		check_uaf(loc, s);
	else if (check == UNLESS_FREED && M.shadow[loc].epoch == M.epoch && M.shadow[loc].poisoned)
		aop = WEFT_A_LOAD;
	if (prev)
		*prev = weft_last_write(addr);
	bool buffered = false;
	if (!lean && !host && __builtin_expect(weft_mem_weak, 0) && M.cur >= 0)
		old = weft_mem_access(addr, loc, size, aop, a, b, s, &nv, &buffered);
	else
		old = do_op(addr, size, aop, a, b, &nv);
#ifdef WEFT_TSAN
	if (aop != WEFT_A_STORE)
		weft_tsan_acquire(addr);
	if (aop != WEFT_A_LOAD)
		weft_tsan_release(addr);
#endif
	/* a load's event: old the newest value its CPU could see, val what it
	 * read (they differ only for a stale read under weak memory) */
	if (aop == WEFT_A_LOAD)
		weft_trace_f(WEFT_EV_READ, loc, nv, old, s, tmode);
	else
		weft_trace_f(aop == WEFT_A_STORE ? WEFT_EV_WRITE : WEFT_EV_RMW, loc, old, nv, s,
			     tmode);
	if (!quiet)
		weft_sched_step(aop == WEFT_A_LOAD ? WEFT_DEP_READ : WEFT_DEP_WRITE, loc, size, 0, s);
	if (!quiet && M.fb && aop != WEFT_A_STORE)
		feedback_read(loc, s);
	if (aop != WEFT_A_LOAD && (aop != WEFT_A_CMPXCHG || nv != old) && !buffered) {
		shadow_write_f(loc, s, lean ? SHADOW_BY_THREAD : host ? SHADOW_BY_HOST : SHADOW_BY_ANY);
		if (!quiet && M.fb)
			feedback_write(loc, s);
		if (__builtin_expect(M.word_written != NULL, 0) && nv != old)
			M.word_written(loc, nv);
	}
	return old;
}

uint64_t weft_apply_op(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
		       uint64_t *newv)
{
	return do_op(addr, size, aop, a, b, newv);
}

/* weft_access() of a model thread outside a lean execution (M.lean) */
static __attribute__((noinline)) uint64_t access_full(void *addr, unsigned size, unsigned aop,
						      uint64_t a, uint64_t b,
						      const struct weft_site *s)
{
	return access_op(addr, size, aop, a, b, s, NULL, CHECK_UAF, WEFT_TRACE_ANY);
}

/* weft_access() of a model thread in a lean execution */
static __attribute__((noinline)) uint64_t access_lean(void *addr, unsigned size, unsigned aop,
						      uint64_t a, uint64_t b,
						      const struct weft_site *s)
{
	return access_op(addr, size, aop, a, b, s, NULL, CHECK_UAF, WEFT_TRACE_LEAN);
}

/* weft_access() of a model thread in an execution that is lean but for
 * the strategy's on_step or the interleaving feedback, and asked for it
 * (M.lean_fb: o->genome_lean, the fuzz targets' genome executions) */
static __attribute__((noinline)) uint64_t access_lean_fb(void *addr, unsigned size, unsigned aop,
							 uint64_t a, uint64_t b,
							 const struct weft_site *s)
{
	return access_op(addr, size, aop, a, b, s, NULL, CHECK_UAF, WEFT_TRACE_LEAN_FB);
}

/* weft_access() of the host context (setup, audits) */
static __attribute__((noinline)) uint64_t access_host(void *addr, unsigned size, unsigned aop,
						      uint64_t a, uint64_t b,
						      const struct weft_site *s)
{
	return access_op(addr, size, aop, a, b, s, NULL, CHECK_UAF, WEFT_TRACE_HOST);
}

/* weft_access() of the host context when M.host_quiet */
static __attribute__((noinline)) uint64_t access_host_quiet(void *addr, unsigned size,
							    unsigned aop, uint64_t a, uint64_t b,
							    const struct weft_site *s)
{
	return access_op(addr, size, aop, a, b, s, NULL, CHECK_UAF, WEFT_TRACE_HOST_QUIET);
}

#ifndef WEFT_TSAN
/* access_host_quiet()'s store changed a word a family follows
 * (M.word_written): the call, after the leaf below. */
static __attribute__((noinline)) uint64_t host_written(uint32_t loc, uint64_t old, uint64_t nv)
{
	M.word_written(loc, nv);
	return old;
}

/*
 * access_host_quiet() as a leaf, for a search's execution (no ring, no
 * trace hash: !M.keep_ring), where setup and audits write and read the
 * world. What would call out is tested before anything changes (an
 * operand outside the world, a freed byte, a thread blocked in await that
 * a store may wake: access_host_quiet() does the whole access then), or
 * comes after it in a tail call (a followed word's store); so the common
 * access saves no register (access_host_quiet() saves six and keeps a
 * frame for the ring's event). Under WEFT_TSAN (the accesses' acquire and release
 * annotations) the host's accesses take access_host_quiet().
 */
static __attribute__((noinline)) uint64_t access_host_leaf(void *addr, unsigned size, unsigned aop,
							   uint64_t a, uint64_t b,
							   const struct weft_site *s)
{
	uintptr_t off = (uintptr_t)addr - (uintptr_t)M.world;

	if (__builtin_expect(M.keep_ring | (M.nr_await != 0), 0) ||
	    __builtin_expect(!(off < M.world_size && M.world_size - off >= size), 0) ||
	    __builtin_expect(M.shadow[off].epoch == M.epoch && M.shadow[off].poisoned, 0))
		return access_host_quiet(addr, size, aop, a, b, s);
	/* access_op()'s and weft_trace_f()'s for WEFT_TRACE_HOST_QUIET
	 * without a ring: the host has no fairness and awaits no event */
	uint64_t nv, old = do_op(addr, size, aop, a, b, &nv);
	M.evseq++;
	M.next_flags = 0;
	if (aop != WEFT_A_LOAD && (aop != WEFT_A_CMPXCHG || nv != old)) {
		shadow_write_f((uint32_t)off, s, SHADOW_BY_HOST);
		if (__builtin_expect(M.word_written != NULL, 0) && nv != old)
			return host_written((uint32_t)off, old, nv);
	}
	return old;
}
#else
#define access_host_leaf access_host_quiet
#endif

/* Each path is a call of its own (tail calls here): with one inline, the
 * register saves of its body ran before the test, on every path. */
uint64_t weft_access(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
		     const struct weft_site *s)
{
	if (__builtin_expect(M.cur < 0, 0))
		return M.host_quiet ? access_host_leaf(addr, size, aop, a, b, s)
				    : access_host(addr, size, aop, a, b, s);
	if (__builtin_expect(!M.lean, 0))
		return M.lean_fb ? access_lean_fb(addr, size, aop, a, b, s)
				 : access_full(addr, size, aop, a, b, s);
	return access_lean(addr, size, aop, a, b, s);
}

uint64_t weft_access_prev(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
			  const struct weft_site *s, struct weft_access *prev)
{
	return access_op(addr, size, aop, a, b, s, prev, CHECK_UAF, WEFT_TRACE_ANY);
}

uint64_t weft_access_unless_freed(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
				  const struct weft_site *s)
{
	if (M.cur < 0)
		return access_op(addr, size, aop, a, b, s, NULL, UNLESS_FREED,
				 M.host_quiet ? WEFT_TRACE_HOST_QUIET : WEFT_TRACE_HOST);
	if (!M.lean)
		return access_op(addr, size, aop, a, b, s, NULL, UNLESS_FREED, WEFT_TRACE_ANY);
	return access_op(addr, size, aop, a, b, s, NULL, UNLESS_FREED, WEFT_TRACE_LEAN);
}

uint64_t weft_load_nocheck(const void *addr, unsigned size, const struct weft_site *s)
{
	/* traced as a load; freed memory may be read */
	return access_op((void *)addr, size, WEFT_A_LOAD, 0, 0, s, NULL, NO_CHECK, WEFT_TRACE_ANY);
}

/* Where the host context's out-of-world plain access goes instead (it was
 * reported; the model's own C access must still go somewhere). Plain
 * accesses are scalars: PLAIN_READ/PLAIN_WRITE pass their values as
 * uint64_t. */
static uint64_t plain_scratch[2];

void *weft_plain_point(const void *addr, unsigned size, const struct weft_site *s)
{
	uint64_t ignored;

	if (M.cur >= 0)
		sched_point_at(s, addr, size, NULL);
	if (!in_world(addr, size, s)) {
		memset(plain_scratch, 0, sizeof(plain_scratch));
		M.plain_old = 0;
		return plain_scratch;
	}
	check_uaf((uint32_t)((uintptr_t)addr - (uintptr_t)M.world), s);
	/* the value a plain store overwrites, for the trace (read here, in
	 * uninstrumented core code, so TSan sees only the model's access) */
	M.plain_old = do_op((void *)addr, size, WEFT_A_LOAD, 0, 0, &ignored);
	if (__builtin_expect(weft_mem_weak, 0) && M.cur >= 0 && s->ev == WEFT_EV_READ)
		weft_mem_plain_read_begin((void *)addr, size);
	return (void *)addr;
}

void weft_plain_done(const void *addr, unsigned size, uint64_t old, uint64_t val,
		     const struct weft_site *s)
{
	uint32_t loc = loc_of(addr);
	bool buffered = false;

	/* a write's old: what it overwrote; a read's (weak memory): the
	 * newest value its CPU could see (M.plain_old, set by
	 * weft_mem_plain_read_begin) */
	if (s->ev == WEFT_EV_WRITE || (weft_mem_weak && M.cur >= 0))
		old = M.plain_old;
	if (__builtin_expect(weft_mem_weak, 0) && M.cur >= 0) {
		if (s->ev == WEFT_EV_WRITE)
			buffered = weft_mem_plain_write((void *)addr, loc, size, old, val, s);
		else
			weft_mem_plain_read_end();
	}
	weft_trace(s->ev, loc, old, val, s);
	weft_sched_step(s->ev == WEFT_EV_WRITE ? WEFT_DEP_WRITE : WEFT_DEP_READ, loc, size, 0, s);
	if (loc != WEFT_NO_LOC) {
		if (M.fb && s->ev == WEFT_EV_READ)
			feedback_read(loc, s);
		if (s->ev == WEFT_EV_WRITE && !buffered) {
			shadow_write(loc, s);
			if (M.fb)
				feedback_write(loc, s);
			if (__builtin_expect(M.word_written != NULL, 0) && val != old)
				M.word_written(loc, val);
		}
	}
}

void weft_barrier(const struct weft_site *s)
{
	weft_fence(WEFT_FENCE_MB, s);
}

void weft_fence(unsigned kind, const struct weft_site *s)
{
	if (__builtin_expect(weft_mem_weak, 0) && M.cur >= 0)
		weft_mem_fence(kind);
	weft_trace(WEFT_EV_BARRIER, WEFT_NO_LOC, 0, 0, s);
}

/* weft_note()'s event through weft_trace() */
static __attribute__((noinline)) void note_traced(const struct weft_site *s, uint64_t a,
						  uint64_t b)
{
	weft_trace(WEFT_EV_NOTE, WEFT_NO_LOC, a, b, s);
}

void weft_note(const struct weft_site *s, uint64_t a, uint64_t b)
{
	/* weft_trace()'s in a search's execution (no ring, no recording:
	 * !M.keep_ring), as a leaf: a note has no location, so nothing
	 * awaits it, and is no progress, so to fairness it only lengthens
	 * the thread's quiet stretch (weft_fair_event() returns at once) */
	if (__builtin_expect(!M.keep_ring, 1)) {
		M.evseq++;
		if (M.fair && M.cur >= 0)
			M.run_len++;   /* in the quiet stretch (fair_event()): no progress */
		M.next_flags = 0;
		return;
	}
	note_traced(s, a, b);
}

uint32_t weft_choose_unfair(uint32_t n, uint64_t unfair, const struct weft_site *s)
{
	M.choice_unfair = unfair & ~1ull;
	if (M.choice_unfair)
		M.unfair_values = true;
	uint32_t v = weft_choose(n, s);
	M.choice_unfair = 0;
	return v;
}

uint32_t weft_choose(uint32_t n, const struct weft_site *s)
{
	uint32_t v = 0;

	if (n > 1 && M.ops && M.ops->pick_value)
		v = M.ops->pick_value(M.st, M.choices, n) % n;
	if (n > 1)
		M.free_choices++;
	if (M.choices < WEFT_MAX_CHOICES)
		M.choice_vals[M.choices] = v;
	M.choices++;
	weft_trace(WEFT_EV_CHOICE, WEFT_NO_LOC, n, v, s);
	return v;
}

void weft_yield(const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	/* the operation before this yield (a yield: none in between) */
	const struct weft_site *before = M.th[M.cur].last_site;
	M.step++;
	M.th[M.cur].last_site = s;
	if (M.step > M.step_budget)
		weft_sched_livelock("step budget exhausted");
	if (__builtin_expect(M.step >= weft_mem_due, 0)) {
		weft_mem_point(s);
		weft_mem_yield();
	}
	weft_trace(WEFT_EV_YIELD, WEFT_NO_LOC, 0, 0, s);
	weft_sched_step(WEFT_DEP_YIELD, WEFT_NO_LOC, 0, 0, s);
	/* A yield hands the CPU to another runnable thread by default (as
	 * CHESS treats yields: a spinning thread is not chosen over a thread
	 * that can make progress), and that switch is free. Under fair
	 * scheduling the yielder is offered too: sched_yield() returns at
	 * once while the others run on CPUs of their own, and after a sleep
	 * nothing need have run, so a program that takes a yield for a wait
	 * has a bug some schedule shows. Its first yield since it changed
	 * something (fair_mark(); its start counts), unless it went on at its
	 * last yield with no other thread run since (no switch: M.switches;
	 * a yield's record conflicts with every event, so this is the
	 * trace's, not where switches fall), offers it as a fair
	 * alternative: going on is free, the default is another thread.
	 * Otherwise it spun (fairness.c) and going on is unfair: dfs charges
	 * it as a preemption, pct passes it over, random may draw it; and
	 * when it is back at the same yield, having looked at something and
	 * changed nothing since (and, in a program, with the same locals on
	 * its stack: weft_await_frames()), going on repeats an iteration of
	 * its spin, which under the good-samaritan assumption (an iteration
	 * has no effect but the retry) reaches nothing the other choices do
	 * not (weft_decision.spin_retry). Without fair scheduling the
	 * yielder is not offered (every spin would go on by default). */
	unsigned cur = (unsigned)M.cur;
	uint64_t others = eligible() & ~tbit(cur);
	if (M.fair) {
		struct wthread *t = &M.th[cur];
		bool changed = !t->yield_site || M.fair_wr[cur] != t->yield_wr;
		/* under await (a program under sc): a change by the others since
		 * its last yield makes a yield fresh too, and a retry with none
		 * read a state no one has changed since, so going on repeats it
		 * until another thread changes something: it awaits that change
		 * (await.c), as a spin on a read does, rather than spin as an
		 * unfair choice (a sched_yield() loop was never covered
		 * completely). Going on at a fresh yield is then one more
		 * iteration at most before such a repeat. Only with its locals
		 * known (frames, as a read's await): a count the stack does not
		 * show would be taken for a repeat. */
		uint64_t others_now = M.await_spins ? weft_fair_others(cur) : 0;
		bool others_changed = M.await_spins && t->yield_others != others_now;
		bool fresh = (changed || others_changed) && t->yield_sw != M.switches + 1ull;
		uint64_t frames = weft_await_frames();
		bool retry = !changed && t->yield_site == s && before && before->ev != WEFT_EV_YIELD &&
			     t->yield_frames == frames;
		bool repeat = retry && M.await_spins && !others_changed && frames;
		t->yield_wr = M.fair_wr[cur];
		t->yield_site = s;
		t->yield_frames = frames;
		t->yield_others = others_now;
		if (repeat) {
			weft_await_any_block(s);
			return;
		}
		if (!fresh)
			weft_fair_spun(cur, s, WEFT_NO_LOC);
		if (others) {
			M.lone_yields = 0;
			unsigned next = weft_sched_decide_yield(others | tbit(cur), cur, fresh,
								retry ? tbit(cur) : 0, s);
			if (next == cur) {
				t->yield_sw = M.switches + 1ull;
			} else {
				M.next_flags |= WEFT_EVF_SWITCHED;
				weft_sched_switch_to(next, false);
			}
			return;
		}
	} else if (others) {
		M.lone_yields = 0;
		unsigned next = others & (others - 1) ? weft_sched_decide(others, 0, s) : lowest(others);
		M.next_flags |= WEFT_EVF_SWITCHED;
		weft_sched_switch_to(next, false);
		return;
	}
	if (__builtin_expect(weft_mem_weak, 0) && M.lone_yields == 0) {
		/* alone: time passes for the other CPUs' buffers too */
		M.lone_yields++;
		weft_mem_drain_all();
	} else if (++M.lone_yields > WEFT_LONE_YIELD_LIMIT) {
		weft_sched_livelock("a thread spins alone: nothing else can run to change what it waits for");
	}
}

/* The sites of weft_peek() reports: the model's peek has a caller (no
 * site of its own, so that adding the check changed no scenario's
 * fingerprint); a report needs a site, made once per caller. */
static struct weft_site *peek_site(const struct weft_caller *c)
{
	static struct {
		const struct weft_caller *c;
		struct weft_site s;
	} sites[32];
	static unsigned nr;
	unsigned i;

	for (i = 0; i < nr; i++)
		if (sites[i].c == c)
			return &sites[i].s;
	i = nr < sizeof(sites) / sizeof(sites[0]) ? nr++ : nr - 1;
	sites[i].c = c;
	sites[i].s = (struct weft_site){ c->file, c->func, c->what, c->line, WEFT_EV_READ, 0, 0 };
	return &sites[i].s;
}

struct weft_world_bounds weft_world_bounds;

/* weft_peek_ptr()'s slow path: p is outside weft_world_bounds. */
const void *weft_peek_at(const void *p, size_t size, const struct weft_caller *c)
{
	static uint64_t zero[2];
	uintptr_t off = (uintptr_t)p - (uintptr_t)M.world;

	if (off < M.world_size && M.world_size - off >= size)
		return p;   /* a world under 16 bytes */

	/* outside an execution (tools, tests): a plain read, as it always was */
	if (!M.running || size > sizeof(zero))
		return p;
	if (weft_out_of_world(p, size, peek_site(c)))
		return p;
	zero[0] = zero[1] = 0;
	return zero;
}
