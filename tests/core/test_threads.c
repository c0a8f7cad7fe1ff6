/*
 * test_threads.c - threads that come and go (weft_thread_spawn/join), the
 * stuck-thread reports they make possible, and the dependence records a
 * strategy gets through ops->on_step.
 *
 *  - "spawn": T0 starts two workers that each do a read-then-write
 *    increment of one counter and joins them; the lost update needs one
 *    preemption, so dfs at bound 0 is clean and at bound 1 finds it, and
 *    every spawned thread runs on the CPU it was given.
 *  - "join-cycle": the worker joins its parent while the parent joins it:
 *    a deadlock, not a livelock.
 *  - "join-self": a thread joining itself is a deadlock at once.
 *  - "too-many": spawning past WEFT_EXEC_MAX_THREADS is an assertion.
 *  - on_step: every visible operation is announced once, with its thread,
 *    kind and world offset; spawn and join carry the thread they name.
 */
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "pending_check.h"
#include "../model_driver.h"

struct th_world {
	int counter;
	int parent;        /* the parent's thread number, for join-cycle */
	int child;
	unsigned cpu_seen[WEFT_MAX_THREADS];
};

enum { V_SPAWN, V_JOIN_CYCLE, V_JOIN_SELF, V_TOO_MANY };

static void worker(void *w, void *arg)
{
	struct th_world *W = w;
	int v = READ_ONCE(W->counter);

	(void)arg;
	W->cpu_seen[weft_current_tid()] = smp_processor_id() + 1;   /* own slot */
	WRITE_ONCE(W->counter, v + 1);
}

static void cycle_worker(void *w, void *arg)
{
	struct th_world *W = w;

	(void)arg;
	WEFT_THREAD_JOIN(READ_ONCE(W->parent));
}

static void idle(void *w, void *arg)
{
	(void)w; (void)arg;
}

static unsigned th_variant;

static void th_thread(void *w, unsigned tid)
{
	struct th_world *W = w;

	switch (th_variant) {
	case V_SPAWN: {
		int a = WEFT_THREAD_SPAWN(worker, NULL, 1);
		int b = WEFT_THREAD_SPAWN(worker, NULL, 2);
		WEFT_THREAD_JOIN(a);
		WEFT_THREAD_JOIN(b);
		if (READ_ONCE(W->counter) != 2)
			weft_report(WEFT_KIND_LOST_UPDATE, &W->counter,
				    WEFT_SITE(WEFT_EV_NOTE, "counter == 2"), "counter is %d",
				    weft_peek(W->counter));
		break;
	}
	case V_JOIN_CYCLE:
		WRITE_ONCE(W->parent, (int)tid);
		WRITE_ONCE(W->child, WEFT_THREAD_SPAWN(cycle_worker, NULL, 1));
		WEFT_THREAD_JOIN(READ_ONCE(W->child));
		break;
	case V_JOIN_SELF:
		WEFT_THREAD_JOIN((int)tid);
		break;
	case V_TOO_MANY:
		for (int i = 0; i < WEFT_EXEC_MAX_THREADS + 1; i++)
			WEFT_THREAD_SPAWN(idle, NULL, 0);
		break;
	}
}

static const struct weft_variant th_variants[] = {
	{ "spawn", NULL, true, "lost update between two spawned workers", "test",
	  WEFT_KIND_LOST_UPDATE, 1, V_SPAWN },
	{ "join-cycle", NULL, true, "parent and child join each other", "test",
	  WEFT_KIND_DEADLOCK, 0, V_JOIN_CYCLE },
	{ "join-self", NULL, true, "a thread joins itself", "test", WEFT_KIND_DEADLOCK, 0,
	  V_JOIN_SELF },
	{ "too-many", NULL, true, "spawn past the limit", "test", WEFT_KIND_ASSERT, 0,
	  V_TOO_MANY },
};
static const struct weft_scenario th_sc = {
	.name = "threads", .summary = "spawn/join", .source = "test", .nr_cpus = 3, .nr_threads = 1,
	.world_size = sizeof(struct th_world), WEFT_TEST_NOP_OP,
	.decision_hint = 256, .thread = th_thread, WEFT_TEST_VARIANTS(th),
};

static struct weft_exec_result run_dfs(unsigned variant, unsigned bound, uint64_t *execs,
				       bool *complete)
{
	struct weft_dfs d;
	struct weft_run_opts o = { .sc = &th_sc, .variant = variant };
	struct weft_exec_result r, found;

	th_variant = variant;
	memset(&found, 0, sizeof(found));
	weft_dfs_init(&d, &th_sc, bound, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		if (r.kind != WEFT_KIND_NONE) {
			found = r;
			break;
		}
	}
	*execs = d.executions;
	*complete = d.complete;
	return found;
}

/* ------------------------------------------------------------- on_step */

struct step_log {
	struct weft_step_info s[256];
	unsigned n;
};

static int serial_pick(void *st, const struct weft_decision *d)
{
	(void)st;
	return d->dflt;
}

static void log_step(void *st, const struct weft_step_info *si)
{
	struct step_log *l = st;

	if (l->n < 256)
		l->s[l->n++] = *si;
}

static const struct weft_strategy_ops logging = {
	.name = "log", .pick_next = serial_pick, .on_step = log_step,
};

/* pending (pending_check.h): what weft_thread_pending() announces at a
 * decision is what the thread does when it next runs; the default or the
 * lowest runnable thread, by coin. */
static int pend_pick(void *st, const struct weft_decision *d)
{
	struct pend_check *p = st;

	pend_check_note(p, d);
	return (int)(weft_rng_next(&p->rng) % 2 ? (unsigned)d->dflt
						 : (unsigned)__builtin_ctz(d->runnable));
}

static const struct weft_strategy_ops pend_ops = {
	.name = "pending-check", .pick_next = pend_pick, .on_step = pend_check_step,
};

int main(void)
{
	uint64_t execs;
	bool complete;
	struct weft_exec_result r;

	weft_machine_init();

	r = run_dfs(V_SPAWN, 0, &execs, &complete);
	CHECK(r.kind == WEFT_KIND_NONE && complete, "bound 0: %s, complete %d",
	      weft_kind_name(r.kind), complete);
	r = run_dfs(V_SPAWN, 1, &execs, &complete);
	CHECK(r.kind == WEFT_KIND_LOST_UPDATE && r.preemptions == 1,
	      "bound 1 finds the lost update with 1 preemption: %s, %u", weft_kind_name(r.kind),
	      r.preemptions);
	{
		const struct th_world *W = weft_last_world();
		CHECK(W->cpu_seen[1] == 2 && W->cpu_seen[2] == 3,
		      "spawned threads run on CPUs 1 and 2: %u %u", W->cpu_seen[1] - 1,
		      W->cpu_seen[2] - 1);
	}

	r = run_dfs(V_JOIN_CYCLE, 0, &execs, &complete);
	CHECK(r.kind == WEFT_KIND_DEADLOCK, "join cycle: %s", weft_kind_name(r.kind));
	CHECK(strstr(r.report.msg, "thread end") != NULL, "message names the join: %s",
	      r.report.msg);
	r = run_dfs(V_JOIN_SELF, 0, &execs, &complete);
	CHECK(r.kind == WEFT_KIND_DEADLOCK, "self join: %s", weft_kind_name(r.kind));
	r = run_dfs(V_TOO_MANY, 0, &execs, &complete);
	CHECK(r.kind == WEFT_KIND_ASSERT, "too many threads: %s", weft_kind_name(r.kind));

	/* on_step: the serial run of "spawn" */
	static struct step_log log;
	struct weft_run_opts o = { .sc = &th_sc, .variant = V_SPAWN };
	th_variant = V_SPAWN;
	memset(&log, 0, sizeof(log));
	CHECK(weft_execute(&o, &logging, &log, &r) == 0 && r.kind == WEFT_KIND_NONE,
	      "serial spawn run is clean: %s", weft_kind_name(r.kind));
	unsigned spawns = 0, joins = 0, ends = 0, reads = 0, writes = 0;
	for (unsigned i = 0; i < log.n; i++) {
		const struct weft_step_info *s = &log.s[i];
		switch (s->kind) {
		case WEFT_DEP_SPAWN:
			spawns++;
			CHECK(s->tid == 0 && (s->arg == 1 || s->arg == 2), "spawn by T0 of T%u", s->arg);
			break;
		case WEFT_DEP_JOIN: joins++; break;
		case WEFT_DEP_END: ends++; break;
		case WEFT_DEP_READ:
			reads++;
			CHECK(s->loc == offsetof(struct th_world, counter) && s->size == sizeof(int),
			      "read of counter at %u size %u", s->loc, s->size);
			break;
		case WEFT_DEP_WRITE: writes++; break;
		}
	}
	/* T0: 2 spawns, 2 joins, 1 read; workers: 1 read + 1 write each; 3 ends */
	CHECK(spawns == 2 && joins == 2 && ends == 3 && reads == 3 && writes == 2,
	      "steps: %u spawns %u joins %u ends %u reads %u writes", spawns, joins, ends,
	      reads, writes);

	static struct pend_check pc = { .check_kind = true };
	weft_rng_seed(&pc.rng, 7);
	for (unsigned i = 0; i < 200; i++) {
		pend_check_reset(&pc);
		weft_execute(&o, &pend_ops, &pc, &r);
	}
	CHECK(pc.checked > 100 && pc.mismatched == 0,
	      "pending ops announced at decisions: %u checked, %u differ from what ran",
	      pc.checked, pc.mismatched);
	return check_done();
}
