/*
 * fairness.c - fair scheduling of spin loops (docs/strategies.md,
 * "Fairness"), after CHESS's fair scheduler (Musuvathi and Qadeer, "Fair
 * stateless model checking", PLDI 2008).
 *
 * A thread that spins without progress — the same observation again, in
 * one quiet stretch of at least WEFT_FAIR_RUN events (weft_fair_event: a
 * read, a failed trylock or cmpxchg, a test-and-set that found the bit
 * set, at the same site and location, with no other thread's write to it
 * and no progress of its own since), or a yield
 * (cpu_relax(), cond_resched()) other than its first since it changed
 * something (weft_yield(): that one offers it as a fair alternative) —
 * cannot change what it waits for by
 * running again. Until every thread that was eligible when it spun has
 * run a step or stopped being eligible, choosing it is unfair
 * (weft_decision.unfair): the default is another thread and switching
 * to it is free; dfs counts choosing the spinner as a preemption, pct
 * passes it over while a fair thread is runnable, random and the
 * fuzzer's overrides may still choose it. Every schedule stays
 * reachable (nothing is pruned), but a spinning thread no longer starves
 * the thread it waits for by default, which made pct and dfs report
 * livelocks on correct spin-waiting programs; and under the "good
 * samaritan" assumption (a spin iteration has no effect but the retry)
 * a bound of K preemptions now covers K real deviations, not K spins.
 *
 * The quiet stretch is the thread's own events since its last change
 * that nothing undoes (sched.h fair_quiet_ends(): a store that changed a
 * value, without WEFT_CHECK_FAIR_STATE; an allocation, a free, a spawn, a
 * wake-up, a block, an end), whatever switches fell between: a switch
 * saves the current thread's stretch (M.run_len, M.run_id) and restores
 * the next one's (fair_switch()). So whether an observation is a spin
 * is decided by the thread's own events and the other threads' writes
 * to what it observes (the shadow's last writer), which is a property of
 * the trace: every linearization of one Mazurkiewicz class judges the
 * same spins, and a partial-order reduction's covering argument (moving
 * an event from one run of a thread to its previous one) keeps them. A
 * thread that polls while others interleave is a spinner too, as in
 * CHESS; one alone is looked at as well (its spin waits for no one:
 * weft_fair_spun()), as whether it is alone depends on where the
 * others' independent events fall. Under await (M.await_spins: programs
 * under sc, where a spin blocks rather than costs an unfair choice) the
 * stretch is still the run, as it was for every thread: with the quiet stretch,
 * dfs --bound none on tests/rt/programs/spin_barrier.c -DFIXED no longer
 * ended (7,561 executions with the run; not diagnosed).
 *
 * Invariants: spinners holds exactly the threads with spin_wait[] != 0;
 * a thread never waits for itself; if every eligible thread spins (they
 * wait for each other), none is unfair: nothing fair exists, and the step
 * budget ends the execution as a livelock naming the spinners
 * (weft_sched_livelock).
 */
#include <stdio.h>
#include <string.h>

#include "sched.h"

/* (loc, value) mixed (splitmix64's finalizer): two different pairs'
 * hashes xor to 0 with negligible probability. */
static uint64_t loc_value_hash(uint32_t loc, uint64_t v)
{
	uint64_t z = ((uint64_t)loc << 32 | 0x5eedu) ^ (v * 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* An event of the current thread in a quiet stretch of WEFT_FAIR_RUN
 * events or more (sched.h fair_event): its progress (what may cancel: a
 * lock and its release, a store's change under M.fair_state), or an
 * observation compared with the same site's last one in this stretch.
 * Observations of earlier stretches are not compared (their slots carry
 * the stretch); every event of the thread from the stretch's
 * WEFT_FAIR_RUN-th on comes here, so two observations compared have all
 * the thread's progress between them counted. The default case is
 * unreachable (fair_quiet_ends() ends the stretch there) but kept. */
void weft_fair_event(unsigned ev, uint32_t loc, uint64_t old, uint64_t val,
		     const struct weft_site *s)
{
	struct wthread *t = &M.th[M.cur];
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t l = (uint64_t)loc << 32 | loc;

	switch (ev) {
	case WEFT_EV_READ:
		break;
	case WEFT_EV_TRYLOCK:
		if (M.next_flags & WEFT_EVF_FAILED)
			break;
		__attribute__((fallthrough));   /* taken */
	case WEFT_EV_LOCK: case WEFT_EV_UNLOCK:
		t->progress ^= (l ^ 0x10c4) * k;   /* a pair cancels */
		return;
	case WEFT_EV_RMW: case WEFT_EV_WRITE:
		t->nr_stores++;
		if (old == val)
			break;
		if (M.fair_state)   /* the change of (loc, value): undone, it cancels */
			t->progress ^= loc_value_hash(loc, old) ^ loc_value_hash(loc, val);
		else
			t->progress += 1ull << 32;   /* a value changed: progress */
		return;
	case WEFT_EV_YIELD: case WEFT_EV_NOTE: case WEFT_EV_BARRIER: case WEFT_EV_CHOICE:
		return;
	default:
		t->progress ^= ((uint64_t)M.step << 8 | ev) * k + 1;
		return;
	}
	if (loc == WEFT_NO_LOC)
		return;
	bool may_await = M.await_spins && weft_await_note_read(loc);
	uint64_t frames = may_await ? weft_await_frames() : 0;
	const struct shadow *sh = &M.shadow[loc];
	/* the last write by another thread (a write of its own that left
	 * the value, a failed TAS, is no progress) */
	uint32_t w = sh->epoch != M.epoch ? 0 : sh->tid == (uint8_t)M.cur ? ~0u : sh->step + 1;
	uint32_t id = site_id(s);
	struct weft_spin_obs *o = NULL;
	for (unsigned i = 0; i < 4; i++)
		if (t->obs[i].run == M.run_id && t->obs[i].site_id == id && t->obs[i].loc == loc)
			o = &t->obs[i];
	if (!o) {   /* the least recent of the four */
		o = &t->obs[t->obs_next++ & 3];
	} else if (o->w == w && o->progress == t->progress) {
		/* a failure retried (trylock, cmpxchg, test-and-set) spins at
		 * once; a plain read only when polled a fourth time, so that a
		 * reader repeating a read-only operation is not taken for a
		 * poll loop before it has repeated it more than workloads do */
		if (++o->repeats >= (ev == WEFT_EV_READ ? 3u : 1u)) {
			/* await only an iteration that stored nothing (not even a
			 * value put back: a loop over CPUs clearing one bit word)
			 * and left its local state (its frames) as it was */
			if (may_await && o->stores == t->nr_stores && o->frames == frames && frames) {
				/* it blocks at its next point (await.c) */
				t->await_pending = true;
				t->spin_site = s;
				t->spin_loc = loc;
				t->nr_spins++;
			} else {
				weft_fair_spun((unsigned)M.cur, s, loc);
			}
		}
		return;
	} else {
		t->nr_spins = 0;   /* what it looks at changed */
	}
	o->site_id = id;
	o->loc = loc;
	o->w = w;
	o->repeats = 0;
	o->run = M.run_id;
	o->progress = t->progress;
	o->stores = t->nr_stores;
	o->frames = frames;
}

/* Thread tid just spun at s on loc (WEFT_NO_LOC for a yield). */
void weft_fair_spun(unsigned tid, const struct weft_site *s, uint32_t loc)
{
	struct wthread *t = &M.th[tid];
	uint64_t others = eligible() & ~tbit(tid);

	/* a yield names what the loop looked at since its last progress */
	for (unsigned i = 0; i < 4 && loc == WEFT_NO_LOC; i++)
		if (t->obs[i].site_id && t->obs[i].run == M.run_id &&
		    t->obs[i].progress == t->progress)
			loc = t->obs[i].loc;
	t->spin_site = s;
	t->spin_loc = loc;
	t->nr_spins++;
	t->spun_step = M.step + 1;
	M.spin_wait[tid] = others;
	if (others)
		M.spinners |= tbit(tid);
	else
		M.spinners &= ~tbit(tid);
}

uint64_t weft_fair_offer(uint64_t e)
{
	uint64_t unfair = 0;

	for (uint64_t m = M.spinners; m; m &= m - 1) {
		unsigned t = lowest(m);
		if (!(M.spin_wait[t] & e)) {
			/* everyone it waited for ran, blocked or ended */
			M.spin_wait[t] = 0;
			M.spinners &= ~tbit(t);
		} else if (e >> t & 1) {
			unfair |= tbit(t);
		}
	}
	if (unfair == e)
		return 0;   /* they spin on each other: none is fairer */
	if (unfair)
		M.fair_restricted = true;
	return unfair;
}

/* Thread tid runs a step: the spinners waiting for it have had it. */
void weft_fair_ran(unsigned tid)
{
	for (uint64_t m = M.spinners; m; m &= m - 1) {
		unsigned t = lowest(m);
		M.spin_wait[t] &= ~tbit(tid);
		if (!M.spin_wait[t])
			M.spinners &= ~tbit(t);
	}
}

/* A thread's fairness state at its start: nothing of an earlier
 * execution may decide what this one sees (its slots' stretches are older
 * than any stretch of this execution, and the slot to reuse starts at 0). */
void weft_fair_thread_reset(struct wthread *t)
{
	t->progress = 0;
	t->obs_next = 0;
	t->spin_site = NULL;
	t->nr_spins = 0;
	t->reads_run = 0;
	t->nr_reads = 0;
	t->nr_stores = 0;
	t->await_pending = false;
	t->spun_step = 0;
	/* its start is a change: its first yield (no yield_site) follows one */
	t->yield_wr = 0;
	t->yield_sw = 0;
	/* its quiet stretch starts with it */
	t->quiet_len = 0;
	t->quiet_id = ++M.stretch_seq;
	t->yield_site = NULL;
	t->yield_frames = 0;
	t->yield_others = 0;
	t->await_any = false;
	t->spur_loc = WEFT_NO_LOC;
	t->spur_wr = 0;
}

uint64_t weft_fair_others(unsigned tid)
{
	uint64_t h = 0;

	for (unsigned i = 0; i < M.nr_threads; i++)
		if (i != tid)
			h += M.fair_wr[i] * (2 * i + 1);
	return h;
}

/* Execution start. */
void weft_fair_reset(void)
{
	M.fair = (M.o->checks & WEFT_CHECK_FAIR) != 0;
	M.fair_state = (M.o->checks & WEFT_CHECK_FAIR_STATE) != 0;
	M.await_spins = M.fair && M.fair_state && M.o->memory == WEFT_MEM_SC;
	M.nr_await = 0;
	M.await_hang = false;
	M.fair_restricted = false;
	M.unfair_values = false;
	M.untracked = NULL;
	M.spinners = 0;
	M.run_len = 0;   /* the host's (no thread's events are counted yet) */
	M.run_id = ++M.stretch_seq;
	for (unsigned i = 0; i < M.nr_threads; i++)
		weft_fair_thread_reset(&M.th[i]);
}

/* "T0 spins on lock A at x.c:12; T1 at f[0] at x.c:30; ..." for the
 * livelock report: the threads seen spinning, and where the others are. */
size_t weft_fair_describe(char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < M.nr_threads && k + 1 < n; i++) {
		const struct wthread *t = &M.th[i];
		if (t->state != T_RUNNABLE)
			continue;
		if (t->nr_spins && t->spin_site) {
			char obj[48] = "";
			if (t->spin_loc != WEFT_NO_LOC)
				weft_describe_loc(M.sc, t->spin_loc, obj, sizeof(obj));
			k += (size_t)snprintf(buf + k, n - k, "%sT%u spins%s%s at %s:%u",
					      k ? "; " : "", i, obj[0] ? " on " : "", obj,
					      weft_site_file(t->spin_site), t->spin_site->line);
		} else if (M.excluded >> i & 1) {
			k += (size_t)snprintf(buf + k, n - k, "%sT%u waits for CPU%u, held by "
					      "another context", k ? "; " : "", i, M.cpu_of[i]);
		} else if (t->last_site) {
			/* not seen spinning (others ran in between): where it is */
			char obj[48] = "";
			uint32_t loc = t->pend_addr ? loc_of(t->pend_addr) : WEFT_NO_LOC;
			if (loc != WEFT_NO_LOC)
				weft_describe_loc(M.sc, loc, obj, sizeof(obj));
			k += (size_t)snprintf(buf + k, n - k, "%sT%u at %s%s%s:%u", k ? "; " : "", i,
					      obj, obj[0] ? " at " : "",
					      weft_site_file(t->last_site), t->last_site->line);
		} else {
			k += (size_t)snprintf(buf + k, n - k, "%sT%u runnable", k ? "; " : "", i);
		}
		if (k >= n)
			k = n - 1;
	}
	return k;
}
