/*
 * fairness.c - fair scheduling of spin loops (docs/strategies.md,
 * "Fairness"), after CHESS's fair scheduler (Musuvathi and Qadeer, "Fair
 * stateless model checking", PLDI 2008).
 *
 * A thread that spins without progress — the same observation again
 * (sched.h fair_event: a read, a failed trylock or cmpxchg, a test-and-set
 * that found the bit set, at the same site and location, with no other
 * thread's write to it and no progress of its own since), or a yield
 * (cpu_relax(), cond_resched()) — cannot change what it waits for by
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
 * Invariants: spinners holds exactly the threads with spin_wait[] != 0;
 * a thread never waits for itself; if every eligible thread spins (they
 * wait for each other), none is unfair: nothing fair exists, and the step
 * budget ends the execution as a livelock naming the spinners
 * (weft_sched_livelock).
 */
#include <stdio.h>
#include <string.h>

#include "sched.h"

/* Thread tid just spun at s on loc (WEFT_NO_LOC for a yield). */
void weft_fair_spun(unsigned tid, const struct weft_site *s, uint32_t loc)
{
	struct wthread *t = &M.th[tid];
	uint64_t others = eligible() & ~tbit(tid);

	/* a yield names what the loop looked at since its last progress */
	for (unsigned i = 0; i < 4 && loc == WEFT_NO_LOC; i++)
		if (t->obs[i].site_id && t->obs[i].progress == t->progress)
			loc = t->obs[i].loc;
	t->spin_site = s;
	t->spin_loc = loc;
	t->nr_spins++;
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

/* Execution start. */
void weft_fair_reset(void)
{
	M.fair = (M.o->checks & WEFT_CHECK_FAIR) != 0;
	M.fair_restricted = false;
	M.spinners = 0;
	for (unsigned i = 0; i < M.nr_threads; i++) {
		struct wthread *t = &M.th[i];
		t->progress = 0;
		memset(t->obs, 0, sizeof(t->obs));
		t->obs_next = 0;
		t->spin_site = NULL;
		t->nr_spins = 0;
	}
}

/* "T0 spins on lock A at x.c:12; T1 ..." for the
 * livelock report: the threads that spin, and what still runs. */
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
					      weft_site_basename(t->spin_site), t->spin_site->line);
		} else if (M.excluded >> i & 1) {
			k += (size_t)snprintf(buf + k, n - k, "%sT%u waits for CPU%u, held by "
					      "another context", k ? "; " : "", i, M.cpu_of[i]);
		} else {
			k += (size_t)snprintf(buf + k, n - k, "%sT%u runnable, not seen spinning",
					      k ? "; " : "", i);
		}
		if (k >= n)
			k = n - 1;
	}
	return k;
}
