/*
 * test_rcu.c - RCU on the machine (core/src/primitives/rcu.c):
 *  - a grace period never ends early: the RCU litmus test (a section seen
 *    to start before synchronize_rcu() is over when it returns) is clean
 *    over the whole dfs space at bound 3, and the same test without the
 *    synchronize_rcu() is caught at bound 1 (the test has teeth);
 *  - nesting counts: the litmus test with a nested section;
 *  - a grace period ends (never waits forever): every execution finishes,
 *    and one ends while the reader is inside a section begun later
 *    (scripted schedule);
 *  - the grace-period end is a dependence: the unlock that ended it is a
 *    RELEASE of the reader's slot, the waiter's ACQUIRE covers it;
 *  - kfree_rcu()/call_rcu() wait for a grace period; freeing without one,
 *    or queueing the free before unpublishing, is rcu-free-in-use naming
 *    the reader's rcu_dereference(); rcu_barrier() waits for callbacks;
 *  - under --memory tso and lkmm the same lifetimes hold: call_rcu()/
 *    kfree_rcu() start a grace period with a full barrier on the caller's
 *    CPU, so a reader that begins after it reads the unpublished pointer's
 *    replacement, never the object queued for freeing (the store was left
 *    in the store buffer: a false rcu-free-in-use); queueing before
 *    unpublishing is still found;
 *  - misuse: unbalanced unlock, a thread ending inside a section,
 *    rcu_dereference() outside one, call_rcu() twice on a
 *    head; kfree_rcu() of a freed object (its rcu_head is freed memory) and
 *    a double kfree(); sleeping inside a section (synchronize_rcu(),
 *    might_sleep()) is sleep-in-atomic naming the section's rcu_read_lock();
 *  - non-preemptible regions are sections (preempt_disable(),
 *    local_bh_disable(): the litmus test), rcu_dereference_sched() is legal
 *    there and rcu_dereference() is not (v6.12's lockdep); a callback runs
 *    in softirq context (in_softirq(), might_sleep() is sleep-in-atomic);
 *  - determinism of executions with the callback kthread.
 */
#include <weft/kernel.h>

#include "pending_check.h"
#include "rcu_test.h"
#include "../model_driver.h"

struct obj {
	int v;
	struct rcu_head rcu;
};

struct rw {
	unsigned variant;
	int in1, left1, synced, saw, bad;
	struct obj objs[3];
	struct obj *gp;
};

enum {
	V_LITMUS, V_LITMUS_NOSYNC, V_NESTED, V_LATER, V_FREE_IN_USE, V_SYNC_FREE, V_KFREE_RCU,
	V_KFREE_RCU_EARLY, V_BARRIER, V_CALL_TWICE, V_UNBALANCED, V_END_IN, V_SLEEP_IN,
	V_DEREF_OUT, V_MIGHT_SLEEP, V_KFREE_THEN_RCU, V_DOUBLE_KFREE, V_PREEMPT_LITMUS,
	V_BH_LITMUS, V_DEREF_SCHED, V_DEREF_PREEMPT, V_CB_SLEEPS, V_CB_SOFTIRQ, V_READ_LOCK_BH, V_NR
};

WEFT_TEST_SETUP(rw, struct rw)
{
	WRITE_ONCE(W->objs[0].v, 1);
	WRITE_ONCE(W->objs[1].v, 2);
	rcu_assign_pointer(W->gp, &W->objs[0]);
}

static void set_seven(struct rcu_head *head)
{
	struct obj *o = weft_list_entry(head, struct obj, rcu);

	WRITE_ONCE(o->v, 7);
}

/* an RCU callback in softirq context (rcu_do_batch()): it may not sleep */
static void sleep_cb(struct rcu_head *head)
{
	(void)head;
	might_sleep();
}

static void softirq_cb(struct rcu_head *head)
{
	struct obj *o = weft_list_entry(head, struct obj, rcu);

	if (!in_softirq())
		weft_report(WEFT_KIND_ASSERT, &o->v, WEFT_SITE(WEFT_EV_NOTE, "callback in softirq"),
			    "an RCU callback runs outside softirq context");
}

static void reader(struct rw *W)
{
	rcu_read_lock();
	struct obj *p = rcu_dereference(W->gp);
	(void)READ_ONCE(p->v);
	rcu_read_unlock();
}

/* replace objs[0] with objs[1]; returns the old object */
static struct obj *replace(struct rw *W)
{
	struct obj *old = rcu_dereference_protected(W->gp, 1);

	rcu_assign_pointer(W->gp, &W->objs[1]);
	return old;
}

static void litmus_updater(struct rw *W, bool sync)
{
	int s = READ_ONCE(W->in1);

	if (sync)
		synchronize_rcu();
	if (s && !READ_ONCE(W->left1))
		weft_report(WEFT_KIND_ASSERT, &W->left1,
			    WEFT_SITE(WEFT_EV_NOTE, "grace period covers the section"),
			    "synchronize_rcu() returned before a section it must wait for ended");
}

static void rw_thread(void *w, unsigned tid)
{
	struct rw *W = w;
	struct obj *old;

	switch (W->variant) {
	case V_LITMUS:
	case V_LITMUS_NOSYNC:
		if (tid == 0) {
			rcu_read_lock();
			WRITE_ONCE(W->in1, 1);
			WRITE_ONCE(W->left1, 1);
			rcu_read_unlock();
		} else {
			litmus_updater(W, W->variant == V_LITMUS);
		}
		break;
	case V_NESTED:
		if (tid == 0) {
			rcu_read_lock();
			rcu_read_lock();
			WRITE_ONCE(W->in1, 1);
			rcu_read_unlock();
			WRITE_ONCE(W->left1, 1);
			rcu_read_unlock();
		} else {
			litmus_updater(W, true);
		}
		break;
	case V_LATER:
		if (tid == 0) {
			rcu_read_lock();
			WRITE_ONCE(W->in1, 1);
			rcu_read_unlock();
			rcu_read_lock();
			WRITE_ONCE(W->saw, READ_ONCE(W->synced) + 1);
			rcu_read_unlock();
		} else {
			synchronize_rcu();
			WRITE_ONCE(W->synced, 1);
		}
		break;
	case V_FREE_IN_USE:
	case V_SYNC_FREE:
	case V_KFREE_RCU:
	case V_KFREE_RCU_EARLY:
		if (tid == 0) {
			reader(W);
		} else if (W->variant == V_KFREE_RCU_EARLY) {
			old = rcu_dereference_protected(W->gp, 1);
			kfree_rcu(old, rcu);
			rcu_assign_pointer(W->gp, &W->objs[1]);
		} else {
			old = replace(W);
			if (W->variant == V_SYNC_FREE)
				synchronize_rcu();
			if (W->variant == V_KFREE_RCU)
				kfree_rcu(old, rcu);
			else
				weft_kfree(old);
		}
		break;
	case V_BARRIER:
		if (tid == 0) {
			reader(W);
		} else {
			old = replace(W);
			call_rcu(&old->rcu, set_seven);
			rcu_barrier();
			if (READ_ONCE(old->v) != 7)
				weft_report(WEFT_KIND_ASSERT, &old->v,
					    WEFT_SITE(WEFT_EV_NOTE, "rcu_barrier() waits for callbacks"),
					    "rcu_barrier() returned before the callback ran");
		}
		break;
	case V_CALL_TWICE:
		if (tid == 0) {
			call_rcu(&W->objs[2].rcu, set_seven);
			call_rcu(&W->objs[2].rcu, set_seven);
		}
		break;
	case V_UNBALANCED:
		if (tid == 0) {
			rcu_read_lock();
			rcu_read_unlock();
			rcu_read_unlock();
		}
		break;
	case V_END_IN:
		if (tid == 0)
			rcu_read_lock();
		break;
	case V_SLEEP_IN:
		if (tid == 0) {
			rcu_read_lock();
			synchronize_rcu();
			rcu_read_unlock();
		}
		break;
	case V_DEREF_OUT:
		if (tid == 0)
			(void)rcu_dereference(W->gp);
		break;
	case V_MIGHT_SLEEP:
		if (tid == 0) {
			rcu_read_lock();
			might_sleep();
			rcu_read_unlock();
		}
		break;
	case V_KFREE_THEN_RCU:
		if (tid == 0) {
			weft_kfree(&W->objs[2]);
			kfree_rcu(&W->objs[2], rcu);
		}
		break;
	case V_DOUBLE_KFREE:
		if (tid == 0) {
			weft_kfree(&W->objs[2]);
			weft_kfree(&W->objs[2]);
		}
		break;
	case V_PREEMPT_LITMUS:
	case V_BH_LITMUS:
		/* a non-preemptible region is a section (v5.0+) */
		if (tid == 0) {
			if (W->variant == V_PREEMPT_LITMUS)
				preempt_disable();
			else
				local_bh_disable();
			WRITE_ONCE(W->in1, 1);
			WRITE_ONCE(W->left1, 1);
			if (W->variant == V_PREEMPT_LITMUS)
				preempt_enable();
			else
				local_bh_enable();
		} else {
			litmus_updater(W, true);
		}
		break;
	case V_DEREF_SCHED:
	case V_DEREF_PREEMPT:
		if (tid == 0) {
			preempt_disable();
			if (W->variant == V_DEREF_SCHED)
				(void)rcu_dereference_sched(W->gp);
			else
				(void)rcu_dereference(W->gp);
			preempt_enable();
		}
		break;
	case V_READ_LOCK_BH:
		/* rcu_read_lock_bh() disables bottom halves, _sched() preemption */
		if (tid == 0) {
			rcu_read_lock_bh();
			bool bh = in_softirq();
			(void)rcu_dereference_bh(W->gp);
			rcu_read_unlock_bh();
			rcu_read_lock_sched();
			bool atomic = preempt_count() != 0;
			(void)rcu_dereference_sched(W->gp);
			rcu_read_unlock_sched();
			if (!bh || !atomic || in_softirq() || preempt_count())
				weft_report(WEFT_KIND_ASSERT, &W->gp,
					    WEFT_SITE(WEFT_EV_NOTE, "rcu_read_lock_bh() context"),
					    "rcu_read_lock_bh()/_sched() context wrong: in_softirq() %d, "
					    "preempt_count() %d inside", bh, atomic);
		}
		break;
	case V_CB_SLEEPS:
	case V_CB_SOFTIRQ:
		if (tid == 0)
			call_rcu(&W->objs[2].rcu, W->variant == V_CB_SLEEPS ? sleep_cb : softirq_cb);
		break;
	}
}

static void rw_quiesce(void *w)
{
	struct rw *W = w;

	if (W->variant == V_KFREE_RCU && !weft_is_poisoned(&W->objs[0]))
		weft_report(WEFT_KIND_PAGE_LEAK, &W->objs[0],
			    WEFT_SITE(WEFT_EV_NOTE, "kfree_rcu() freed the object"),
			    "the kfree_rcu() callback never ran");
}

T_SCENARIO(rw, "rcu-test", "rcu", struct rw, V_NR, .quiesce = rw_quiesce);

/* dfs at bound on v under memory model m, up to 2,000,000 executions:
 * the first report's kind, or NONE (and *complete). */
static enum weft_kind dfs_under(unsigned v, unsigned bound, enum weft_memory_model m,
				bool *complete, uint64_t *execs)
{
	static struct weft_dfs d;
	struct weft_run_opts ro = { .sc = &rw_sc, .variant = v, .memory = (uint8_t)m };
	struct weft_exec_result r;

	weft_dfs_init(&d, &rw_sc, bound, NULL, 0);
	*execs = 0;
	while (*execs < 2000000 && weft_execute(&ro, &weft_strategy_dfs, &d, &r) == 0) {
		(*execs)++;
		if (r.kind != WEFT_KIND_NONE)
			return r.kind;
	}
	*complete = d.complete;
	return WEFT_KIND_NONE;
}

static void expect_clean(unsigned v, unsigned bound, const char *what)
{
	struct t_out o = t_dfs(&rw_sc, v, bound, 2000000);

	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "%s: dfs bound %u: %s (%s), complete %d",
	      what, bound, weft_kind_name(o.kind), o.r.report.msg, o.complete);
	printf("  %-44s clean, dfs bound %u complete: %llu executions\n", what, bound,
	       (unsigned long long)o.execs);
}

static struct t_out expect_bug(unsigned v, unsigned bound, enum weft_kind k, const char *what)
{
	struct t_out o = t_dfs(&rw_sc, v, bound, 2000000);

	CHECK(o.kind == k, "%s: dfs bound %u: want %s, got %s (%s)", what, bound,
	      weft_kind_name(k), weft_kind_name(o.kind), o.r.report.msg);
	printf("  %-44s %s after %llu executions: %s\n", what, weft_kind_name(o.kind),
	       (unsigned long long)o.execs, o.r.report.msg);
	return o;
}

/* weft_thread_pending() at each decision names what the thread then does
 * (pending_check.h: the same site, location and size; the kind may
 * sharpen: a lock that blocks, an unlock that releases, a wait that sleeps
 * or acquires, so it is not compared); a runnable thread picked uniformly. */
static int pend_pick(void *st, const struct weft_decision *d)
{
	struct pend_check *p = st;

	pend_check_note(p, d);
	unsigned n = (unsigned)__builtin_popcount(d->runnable), k = weft_rng_below(&p->rng, n);
	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++)
		if (d->runnable >> t & 1 && !k--)
			return (int)t;
	return d->dflt;
}

static const struct weft_strategy_ops pend_ops = {
	.name = "pending-check", .pick_next = pend_pick, .on_step = pend_check_step,
};

static bool site_is(const struct weft_site *s, const char *what)
{
	return s && strstr(s->what, what);
}

int main(void)
{
	struct t_out o;

	t_begin(rw_variants, V_NR);

	printf("grace periods:\n");
	expect_clean(V_LITMUS, 3, "litmus: synchronize_rcu() covers the section");
	o = expect_bug(V_LITMUS_NOSYNC, 1, WEFT_KIND_ASSERT, "litmus without synchronize_rcu()");
	CHECK(o.r.preemptions == 1, "one preemption: %u", o.r.preemptions);
	expect_clean(V_NESTED, 3, "litmus with a nested section");
	expect_clean(V_LATER, 3, "a later section is not waited for (no hang)");

	/* the scripted run: T0 enters section 1, T1 starts synchronize_rcu()
	 * and sleeps, T0 leaves and enters section 2, T1 returns and sets
	 * synced, T0 sees it inside section 2 */
	static struct t_script s;
	static const int seq[] = { 0, 1, 0, 1, 1 };
	s.seq = seq;
	s.n = sizeof(seq) / sizeof(seq[0]);
	struct weft_exec_result r = t_scripted(&rw_sc, V_LATER, &s);
	const struct rw *W = weft_last_world();
	CHECK(r.kind == WEFT_KIND_NONE, "scripted V_LATER: %s", weft_kind_name(r.kind));
	CHECK(W->saw == 2, "the grace period ended while T0 was inside a later section (saw %d)",
	      W->saw - 1);
	/* dependence: T1 blocked, T0's first unlock RELEASEs rd[0], then T1's
	 * ACQUIRE covers it */
	int blocked = -1, release = -1, acquire = -1;
	for (unsigned i = 0; i < s.nlog; i++) {
		const struct weft_step_info *si = &s.log[i];
		if (si->tid == 1 && si->kind == WEFT_DEP_BLOCKED && blocked < 0)
			blocked = (int)i;
		if (si->tid == 0 && si->kind == WEFT_DEP_RELEASE && release < 0 && blocked >= 0)
			release = (int)i;
		if (si->tid == 1 && si->kind == WEFT_DEP_ACQUIRE && release >= 0 && acquire < 0)
			acquire = (int)i;
	}
	CHECK(blocked >= 0 && release > blocked && acquire > release,
	      "records: blocked %d, release %d, acquire %d", blocked, release, acquire);
	if (acquire > 0) {
		const struct weft_step_info *rel = &s.log[release], *acq = &s.log[acquire];
		CHECK(rel->loc >= acq->loc && rel->loc + rel->size <= acq->loc + acq->size,
		      "the ACQUIRE [%u,+%u) covers the RELEASE [%u,+%u)", acq->loc, acq->size,
		      rel->loc, rel->size);
		CHECK(rel->loc >= sizeof(struct rw), "reader state is core state past the world");
		CHECK(site_is(rel->site, "rcu_read_unlock") && site_is(acq->site, "synchronize_rcu"),
		      "sites %s / %s", rel->site->what, acq->site->what);
		char name[96];
		weft_describe_loc(&rw_sc, rel->loc, name, sizeof(name));
		CHECK(!strcmp(name, "RCU read side of T0"), "described as '%s'", name);
	}

	printf("frees:\n");
	o = expect_bug(V_FREE_IN_USE, 1, WEFT_KIND_RCU_FREE_IN_USE, "kfree() without a grace period");
	CHECK(o.r.report.here.tid == 1 && o.r.report.other.tid == 0 &&
	      site_is(o.r.report.other.site, "rcu_dereference") &&
	      site_is(o.r.report.here.site, "kfree"),
	      "names both sides: here T%d %s, other T%d %s", o.r.report.here.tid,
	      o.r.report.here.site ? o.r.report.here.site->what : "-", o.r.report.other.tid,
	      o.r.report.other.site ? o.r.report.other.site->what : "-");
	CHECK(o.r.preemptions == 1, "one preemption: %u", o.r.preemptions);
	o = t_dfs(&rw_sc, V_FREE_IN_USE, 0, 100000);
	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "not at bound 0: %s", weft_kind_name(o.kind));
	expect_clean(V_SYNC_FREE, 3, "synchronize_rcu() then kfree()");
	expect_clean(V_KFREE_RCU, 3, "kfree_rcu()");
	o = expect_bug(V_KFREE_RCU_EARLY, 2, WEFT_KIND_RCU_FREE_IN_USE,
		       "kfree_rcu() before unpublishing");
	CHECK(site_is(o.r.report.here.site, "kfree_rcu"), "freed by the callback: %s",
	      o.r.report.here.site ? o.r.report.here.site->what : "-");
	expect_clean(V_BARRIER, 3, "call_rcu() + rcu_barrier()");
	for (enum weft_memory_model m = WEFT_MEM_TSO; m <= WEFT_MEM_LKMM; m++) {
		static const struct { unsigned v; enum weft_kind k; const char *what; } weak[] = {
			{ V_KFREE_RCU, WEFT_KIND_NONE, "kfree_rcu()" },
			{ V_SYNC_FREE, WEFT_KIND_NONE, "synchronize_rcu() then kfree()" },
			{ V_BARRIER, WEFT_KIND_NONE, "call_rcu() + rcu_barrier()" },
			{ V_KFREE_RCU_EARLY, WEFT_KIND_RCU_FREE_IN_USE, "kfree_rcu() before unpublishing" },
		};
		for (size_t i = 0; i < sizeof(weak) / sizeof(weak[0]); i++) {
			bool complete = false;
			uint64_t n;
			enum weft_kind k = dfs_under(weak[i].v, 2, m, &complete, &n);
			CHECK(k == weak[i].k, "%s under %s: want %s, got %s", weak[i].what,
			      weft_memory_name(m), weft_kind_name(weak[i].k), weft_kind_name(k));
			if (weak[i].k == WEFT_KIND_NONE)
				CHECK(complete, "%s under %s: complete", weak[i].what, weft_memory_name(m));
			printf("  %-44s %s under %s, dfs bound 2: %llu executions\n", weak[i].what,
			       weft_kind_name(k), weft_memory_name(m), (unsigned long long)n);
		}
	}

	printf("misuse:\n");
	o = expect_bug(V_CALL_TWICE, 0, WEFT_KIND_RCU_MISUSE, "call_rcu() twice on one head");
	CHECK(o.r.report.other.valid, "names the first call_rcu()");
	o = expect_bug(V_UNBALANCED, 0, WEFT_KIND_RCU_MISUSE, "unbalanced rcu_read_unlock()");
	CHECK(site_is(o.r.report.other.site, "rcu_read_unlock"), "other: the unlock that ended it");
	o = expect_bug(V_END_IN, 0, WEFT_KIND_RCU_MISUSE, "thread ends inside a section");
	CHECK(site_is(o.r.report.other.site, "rcu_read_lock"), "other: the rcu_read_lock()");
	o = expect_bug(V_SLEEP_IN, 0, WEFT_KIND_SLEEP_IN_ATOMIC, "synchronize_rcu() inside a section");
	CHECK(site_is(o.r.report.other.site, "rcu_read_lock") &&
	      site_is(o.r.report.here.site, "synchronize_rcu"), "both sides named");
	expect_bug(V_DEREF_OUT, 0, WEFT_KIND_RCU_MISUSE, "rcu_dereference() outside a section");
	o = expect_bug(V_MIGHT_SLEEP, 0, WEFT_KIND_SLEEP_IN_ATOMIC, "might_sleep() inside a section");
	CHECK(site_is(o.r.report.other.site, "rcu_read_lock"), "other: the rcu_read_lock()");
	/* kfree_rcu() writes the freed object's rcu_head, as the kernel's does */
	expect_bug(V_KFREE_THEN_RCU, 0, WEFT_KIND_USE_AFTER_FREE, "kfree() then kfree_rcu()");
	o = expect_bug(V_DOUBLE_KFREE, 0, WEFT_KIND_DOUBLE_FREE, "kfree() twice");
	printf("contexts (v6.12):\n");
	expect_clean(V_PREEMPT_LITMUS, 3, "litmus: a preempt_disable() section");
	expect_clean(V_BH_LITMUS, 3, "litmus: a local_bh_disable() section");
	expect_clean(V_DEREF_SCHED, 1, "rcu_dereference_sched() with preemption off");
	expect_bug(V_DEREF_PREEMPT, 0, WEFT_KIND_RCU_MISUSE, "rcu_dereference() with preemption off");
	expect_bug(V_CB_SLEEPS, 0, WEFT_KIND_SLEEP_IN_ATOMIC, "might_sleep() in an RCU callback");
	expect_clean(V_CB_SOFTIRQ, 2, "an RCU callback is in_softirq()");
	expect_clean(V_READ_LOCK_BH, 1, "rcu_read_lock_bh()/_sched() disable bh/preemption");
	CHECK(site_is(o.r.report.other.site, "kfree"), "other: the first kfree()");

	printf("dependence records:\n");
	{
		static struct pend_check pc;
		static const unsigned vs[] = { V_LITMUS, V_NESTED, V_SYNC_FREE, V_KFREE_RCU, V_BARRIER };
		weft_rng_seed(&pc.rng, 5);
		for (unsigned i = 0; i < 2000; i++) {
			struct weft_run_opts ro = { .sc = &rw_sc, .variant = vs[i % 5] };
			pend_check_reset(&pc);
			weft_execute(&ro, &pend_ops, &pc, &r);
		}
		CHECK(pc.checked > 1000 && pc.mismatched == 0,
		      "pending RCU operations: %u checked, %u differ from what ran", pc.checked,
		      pc.mismatched);
		printf("  weft_thread_pending() matched the next record %u times\n", pc.checked);
	}

	printf("determinism:\n");
	{
		static struct weft_random rnd;
		struct weft_run_opts ro = { .sc = &rw_sc, .variant = V_BARRIER };
		char why[256];
		unsigned checked = 0, bad = 0;
		weft_random_init(&rnd, &rw_sc, 3, NULL, 0);
		for (unsigned i = 0; i < 200; i++) {
			if (weft_execute(&ro, &weft_strategy_random, &rnd, &r) != 0)
				break;
			checked++;
			bad += weft_check_determinism(&ro, &r, why, sizeof(why)) != 0;
		}
		CHECK(checked == 200 && bad == 0, "%u of %u executions differ on a re-run", bad,
		      checked);
		printf("  200 random executions of call_rcu()+rcu_barrier() re-run identically\n");
	}
	return check_done();
}
