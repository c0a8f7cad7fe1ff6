/*
 * pending_check.h - a strategy's halves that check weft_thread_pending()
 * against what runs: at each decision pend_check_note() records what every
 * runnable thread announces; when one of them next takes a step,
 * pend_check_step() compares the step with the announcement: the same
 * location, size and site and, with check_kind, the same dependence kind
 * or the one it sharpens to once the step runs (an acquire or a join that
 * blocks). RCU's announcements sharpen further (an unlock that releases,
 * a grace-period wait that sleeps or acquires): tests/rcu/test_rcu.c
 * leaves check_kind off.
 * A test builds its strategy from the two with its own choice of thread
 * (tests/core/test_threads.c, tests/rcu/test_rcu.c); the blocking
 * prediction itself is checked by tests/sleep/sleep_test.h's st_dfs.
 */
#ifndef WEFT_TEST_PENDING_CHECK_H
#define WEFT_TEST_PENDING_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <weft/strategy.h>

struct pend_check {
	struct weft_rng rng;                /* the test's choices */
	bool check_kind;
	bool known[WEFT_MAX_THREADS];
	struct weft_step_info want[WEFT_MAX_THREADS];
	unsigned checked, mismatched;
};

/* Before an execution: nothing announced yet. */
static inline void pend_check_reset(struct pend_check *p)
{
	memset(p->known, 0, sizeof(p->known));
}

/* At a decision: what each runnable thread announces (yields announce
 * nothing to compare). */
static inline void pend_check_note(struct pend_check *p, const struct weft_decision *d)
{
	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++)
		p->known[t] = (d->runnable >> t & 1) && weft_thread_pending(t, &p->want[t], NULL) &&
			      p->want[t].kind != WEFT_DEP_YIELD;
}

static inline void pend_check_step(void *st, const struct weft_step_info *si)
{
	struct pend_check *p = st;

	if (si->tid >= WEFT_MAX_THREADS || !p->known[si->tid])
		return;
	p->known[si->tid] = false;
	p->checked++;
	const struct weft_step_info *w = &p->want[si->tid];
	bool sharpened = (w->kind == WEFT_DEP_ACQUIRE || w->kind == WEFT_DEP_JOIN) &&
			 si->kind == WEFT_DEP_BLOCKED;
	if (w->loc != si->loc || w->size != si->size || w->site != si->site ||
	    (p->check_kind && w->kind != si->kind && !sharpened)) {
		p->mismatched++;
		fprintf(stderr, "  pending T%u %s loc %u+%u kind %u, ran %s loc %u+%u kind %u\n",
			si->tid, w->site ? w->site->what : "-", w->loc, w->size, w->kind,
			si->site ? si->site->what : "-", si->loc, si->size, si->kind);
	}
}

#endif
