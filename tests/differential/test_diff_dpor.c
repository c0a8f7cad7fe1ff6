/*
 * test_diff_dpor.c - partial-order reduction on random programs whose
 * steps carry several dependence records, against plain dfs.
 *
 * tests/dpor/test_dpor_random.c checks the reduction on loads, stores,
 * spinlocks and spawns, one record a step. Here the programs also take the
 * steps whose transition is several records at once: a free that writes an
 * object's state and poisons its body in one step (a later use is a
 * use-after-free), an allocation that writes another field and unpoisons
 * it (whether the body ends poisoned is part of the final state, so a free
 * and an allocation race through their second records only), pthread_cond_wait() (on the condition's list, the mutex
 * released - waking its waiter - and asleep, one step), a wake-up
 * (wake_up() after a flag, prepare_to_wait()/schedule()/finish_wait() on
 * the other side), and an RCU callback (call_rcu(): the callback kthread's
 * queue write and grace-period acquire, then the callback's store), next to
 * plain reads, writes, atomics and critical sections. And transitions
 * whose records have different steps: an allocation (the body's unpoison,
 * which has no scheduling point of its own) before a publishing store,
 * which as a thread's first op is one transition with the store (the
 * machine takes no decision at a new thread's first point); and a thread
 * spawned to run one such publication, joined when its parent's ops are
 * done (a join that finds it running blocks: a blocked attempt).
 *
 * For each program, plain dfs (every interleaving) gives the set of final
 * states (the world's bytes and the verdict). Source-DPOR and optimal DPOR
 * must reach only states from it; if plain dfs reaches a report, so must
 * they; and where no execution of theirs was cut short by a report (an
 * execution that reports ends there: its other events are never seen, so
 * the front ends do not certify past one) and they certify completeness,
 * they must reach exactly that set (they must certify every program,
 * unbounded and under a bound, call_rcu()'s callback kthread sharing its
 * caller's CPU included). A reduction that drops a record, or
 * does not let such a record wake a sleep-set entry, loses states. The
 * disagreeing program is printed.
 * WEFT_DIFF_SIZE=large runs more programs; WEFT_DIFF_SEED another sequence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/pthread.h>
#include <weft/strategy.h>

#include "check.h"
#include "hash_set.h"
#include "lockstep.h"
#include "plain_ops.h"

#define NT 3
#define MAXOPS 4
#define CAP 15000

enum opk { O_R, O_W, O_A, O_CS, O_FREE, O_ALLOC, O_USE, O_CWAIT, O_CSIGNAL, O_QWAIT, O_QWAKE,
	   O_CALLRCU, O_RCUREAD, O_PUBLISH, O_SPAWN, OP__N };
PLAIN_OPS_MATCH(O_R, O_W, O_A, O_CS);
static const char *const opname[OP__N] = { "read", "write", "atomic_inc", "spin_cs", "free",
					   "alloc", "use", "cond_wait", "cond_signal",
					   "wait_queue_wait", "wake_up", "call_rcu", "rcu_read",
					   "alloc_publish", "spawn_publish" };

struct op {
	uint8_t k, x, y;
};

struct prog {
	unsigned nt;
	unsigned n[NT];
	struct op ops[NT][MAXOPS];
};

static struct prog P;

struct obj {
	int state, astate;
	int body[2];
};

struct world {
	int x[3];
	spinlock_t l;
	weft_pthread_mutex_t m;
	weft_pthread_cond_t cv;
	wait_queue_head_t wq;
	int fc, fq, z;
	struct obj obj[2];
	struct rcu_head head[NT];
};

static struct world *Wp;

/* the callback kthread's own store, after the grace period */
static void rcu_cb_z(struct rcu_head *h)
{
	(void)h;
	WRITE_ONCE(Wp->z, READ_ONCE(Wp->z) + 1);
}

WEFT_TEST_SETUP_WORLD(dp, struct world)
{
	Wp = W;
	spin_lock_init(&W->l);
	weft_pthread_mutex_init(&W->m, NULL);
	weft_pthread_cond_init(&W->cv, NULL);
	init_waitqueue_head(&W->wq);
}

/* An allocation, then its publication: the body's unpoison (a record
 * with no scheduling point of its own) and the store after it. */
static void alloc_publish(struct world *W, unsigned x, unsigned y, int v)
{
	weft_unpoison(W->obj[x].body, sizeof(W->obj[x].body),
		      WEFT_SITE(WEFT_EV_ALLOC, "alloc(body)"));
	WRITE_ONCE(W->x[y], v);
}

/* A spawned thread: one publication, its first (and only) transition. */
static void dp_child(void *w, void *arg)
{
	unsigned xy = (unsigned)(uintptr_t)arg;

	alloc_publish(w, xy >> 4, xy & 15, 3);
}

static void dp_thread(void *w, unsigned t)
{
	struct world *W = w;
	int last = 0, child = -1;

	Wp = W;
	for (unsigned i = 0; i < P.n[t]; i++) {
		const struct op *o = &P.ops[t][i];
		if (plain_step(o->k, W->x, o->x, (last + (int)t + 1) & 3, &W->l, o->y, 1, &last))
			continue;
		switch (o->k) {
		case O_FREE: {
			/* one step, two records: the state's store and the
			 * body's poison */
			struct obj *ob = &W->obj[o->x];
			WRITE_ONCE(ob->state, (int)t + 1);
			weft_poison(ob->body, sizeof(ob->body), WEFT_SITE(WEFT_EV_FREE, "free(body)"));
			break;
		}
		case O_ALLOC: {
			/* one step: another field's store and the body's unpoison */
			struct obj *ob = &W->obj[o->x];
			WRITE_ONCE(ob->astate, (int)t + 1);
			weft_unpoison(ob->body, sizeof(ob->body), WEFT_SITE(WEFT_EV_ALLOC, "alloc(body)"));
			break;
		}
		case O_USE:
			last = READ_ONCE(W->obj[o->x].body[o->y & 1]);   /* either end */
			break;
		case O_CWAIT:
			weft_pthread_mutex_lock(&W->m);
			for (int k = 0; k < 2 && !READ_ONCE(W->fc); k++)
				weft_pthread_cond_wait(&W->cv, &W->m);
			weft_pthread_mutex_unlock(&W->m);
			break;
		case O_CSIGNAL:
			weft_pthread_mutex_lock(&W->m);
			WRITE_ONCE(W->fc, 1);
			if (o->y)
				weft_pthread_cond_broadcast(&W->cv);
			else
				weft_pthread_cond_signal(&W->cv);
			weft_pthread_mutex_unlock(&W->m);
			break;
		case O_QWAIT:
			prepare_to_wait(&W->wq, NULL, TASK_UNINTERRUPTIBLE);
			if (!READ_ONCE(W->fq))
				schedule();
			finish_wait(&W->wq, NULL);
			break;
		case O_QWAKE:
			WRITE_ONCE(W->fq, 1);
			wake_up(&W->wq);
			break;
		case O_CALLRCU:
			call_rcu(&W->head[t], rcu_cb_z);
			break;
		case O_RCUREAD:
			rcu_read_lock();
			last = READ_ONCE(W->z);
			rcu_read_unlock();
			break;
		case O_PUBLISH:
			alloc_publish(W, o->x, o->y, (last + (int)t + 1) & 3);
			break;
		case O_SPAWN:
			weft_pthread_create(&child, NULL, dp_child,
					    (void *)(uintptr_t)((unsigned)o->x << 4 | o->y));
			break;
		}
	}
	if (child >= 0)
		weft_pthread_join(child, NULL);
}

static struct weft_scenario dpsc = {
	.name = "diff-dpor", .summary = "differential: dpor on multi-record steps",
	LS_ONE_PROGRAM, .nr_cpus = 8, .nr_threads = 2, .world_size = sizeof(struct world),
	.setup = dp_setup, .thread = dp_thread,
};

/* ------------------------------------------------------------ final states */

static uint64_t final_state(const struct weft_exec_result *r)
{
	const uint8_t *b = weft_last_world();
	const struct world *W = weft_last_world();
	uint64_t h = 1469598103934665603ull ^ (uint64_t)r->kind;

	for (size_t i = 0; i < offsetof(struct world, head); i++)
		h = (h ^ b[i]) * 1099511628211ull;
	/* whether each body ends freed */
	for (unsigned k = 0; k < 2; k++)
		h = (h ^ weft_is_poisoned(W->obj[k].body)) * 1099511628211ull;
	return h;
}

/* A spawned thread on a CPU of its own (a CPU shared with its creator
 * is a context the reductions cannot certify). */
#define RUN_CHECKS WEFT_CHECK_SPAWN_CPU

/* Plain dfs, every interleaving: false if too big. */
static bool plain_reported;

static bool plain(enum weft_lock_model lock, unsigned bound, struct hash_set *out, uint64_t *execs)
{
	static struct weft_dfs d;
	struct weft_run_opts o = { .sc = &dpsc, .lock = lock, .no_trace_hash = true,
				   .checks = RUN_CHECKS };
	struct weft_exec_result r;

	out->n = 0;
	*execs = 0;
	plain_reported = false;
	weft_dfs_init(&d, &dpsc, bound, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		if (++*execs > CAP)
			return false;
		plain_reported |= r.kind != WEFT_KIND_NONE;
		hash_set_add(out, final_state(&r));
	}
	return d.complete;
}

struct dres {
	bool complete, reported;
	uint64_t execs;
	char why[160];
};

static struct dres reduced(enum weft_por m, enum weft_lock_model lock, unsigned bound,
			   struct hash_set *out)
{
	struct weft_dpor *d = weft_dpor_new();
	struct weft_run_opts o = { .sc = &dpsc, .lock = lock, .no_trace_hash = true,
				   .checks = RUN_CHECKS };
	struct weft_exec_result r;
	struct dres res = { 0 };

	out->n = 0;
	CHECK(d && weft_dpor_reset(d, &dpsc, m, bound, lock, NULL, 0) == 0, "reset");
	weft_dpor_set_caps(d, 0, 0, CAP);
	while (weft_execute(&o, &weft_strategy_dpor, d, &r) == 0) {
		res.execs++;
		res.reported |= r.kind != WEFT_KIND_NONE;
		hash_set_add(out, final_state(&r));
	}
	res.complete = weft_dpor_complete(d);
	snprintf(res.why, sizeof(res.why), "%s", weft_dpor_why_incomplete(d));
	weft_dpor_free(d);
	return res;
}

/* ------------------------------------------------------------ generation */

static void gen(void)
{
	memset(&P, 0, sizeof(P));
	P.nt = 2 + (ls_rnd(3) == 0);
	for (unsigned t = 0; t < P.nt; t++) {
		P.n[t] = 1 + ls_rnd(P.nt == 2 ? MAXOPS : MAXOPS - 1);
		for (unsigned i = 0; i < P.n[t]; i++) {
			struct op *o = &P.ops[t][i];
			unsigned r = ls_rnd(100);
			/* half the ops take several records at once */
			o->k = (uint8_t)(r < 9 ? O_R : r < 18 ? O_W : r < 21 ? O_A : r < 27 ? O_CS
					 : r < 34 ? O_FREE : r < 41 ? O_ALLOC : r < 45 ? O_USE
					 : r < 52 ? O_CWAIT : r < 60 ? O_CSIGNAL : r < 66 ? O_QWAIT
					 : r < 74 ? O_QWAKE : r < 80 ? O_CALLRCU : r < 84 ? O_RCUREAD
					 : r < 93 ? O_PUBLISH : O_SPAWN);
			o->x = (uint8_t)(o->k == O_FREE || o->k == O_ALLOC || o->k == O_USE ||
							 o->k == O_PUBLISH || o->k == O_SPAWN
						 ? ls_rnd(2)
						 : ls_rnd(3));
			o->y = (uint8_t)ls_rnd(3);
			/* one call_rcu() per thread (its rcu_head is its own),
			 * one child per thread */
			for (unsigned j = 0; j < i; j++) {
				if (o->k == O_CALLRCU && P.ops[t][j].k == O_CALLRCU)
					o->k = O_RCUREAD;
				if (o->k == O_SPAWN && P.ops[t][j].k == O_SPAWN)
					o->k = O_PUBLISH;
			}
		}
	}
}

static void print_prog(FILE *f)
{
	for (unsigned t = 0; t < P.nt; t++) {
		fprintf(f, "     T%u:", t);
		for (unsigned i = 0; i < P.n[t]; i++)
			fprintf(f, " %s(%u,%u)", opname[P.ops[t][i].k], P.ops[t][i].x, P.ops[t][i].y);
		fprintf(f, "\n");
	}
}

/* ------------------------------------------------------------ the checks */

static unsigned failures, tested, skipped, certified[4], uncertified[4], reported[4];
static unsigned rcu_certified;   /* runs of programs with call_rcu() */
static uint64_t tot_plain, tot_states, tot_dpor[4];

static unsigned cur_bound;

static void fail_prog(long p, enum weft_por m, enum weft_lock_model lock, const char *what)
{
	CHECK(0, "program %ld, %s DPOR, lock %s, bound %d: %s", p, weft_por_name(m),
	      lock == WEFT_LOCK_TICKET ? "ticket" : "tas",
	      cur_bound == WEFT_BOUND_NONE ? -1 : (int)cur_bound, what);
	if (failures++ < 5)
		print_prog(stderr);
}

static void check_prog(long p)
{
	static struct hash_set want, got;

	/* unbounded (source and optimal), and within 1 and 2 preemptions
	 * (source's bounded form, whose sleepers stand for whole blocks) */
	static const unsigned bounds[] = { WEFT_BOUND_NONE, 1, 2 };
	for (unsigned bi = 0; bi < 3; bi++)
	for (int lk = 0; lk < 2; lk++) {
		enum weft_lock_model lock = lk ? WEFT_LOCK_TICKET : WEFT_LOCK_TAS;
		unsigned bound = bounds[bi];
		uint64_t n;
		cur_bound = bound;
		dpsc.nr_threads = P.nt;
		if (!plain(lock, bound, &want, &n)) {
			skipped++;
			continue;
		}
		tested++;
		tot_plain += n;
		tot_states += want.n;
		for (enum weft_por m = WEFT_POR_SOURCE; m <= WEFT_POR_OPTIMAL; m++) {
			if (m == WEFT_POR_OPTIMAL && bound != WEFT_BOUND_NONE)
				continue;   /* refused with a bound (not sound there) */
			struct dres d = reduced(m, lock, bound, &got);
			char what[320];
			tot_dpor[m] += d.execs;
			size_t missing = 0, foreign = 0;
			for (size_t i = 0; i < want.n; i++)
				missing += !hash_set_has(&got, want.h[i]);
			for (size_t i = 0; i < got.n; i++)
				foreign += !hash_set_has(&want, got.h[i]);
			if (foreign) {
				snprintf(what, sizeof(what), "%zu final states plain dfs never reaches",
					 foreign);
				fail_prog(p, m, lock, what);
			}
			if (plain_reported && !d.reported) {
				snprintf(what, sizeof(what), "plain dfs reaches a report, the reduction "
					 "none (%llu executions)", (unsigned long long)d.execs);
				fail_prog(p, m, lock, what);
			}
			if (d.reported) {
				reported[m]++;
			} else if (d.complete) {
				certified[m]++;
				for (unsigned t = 0; t < P.nt; t++)
					for (unsigned i = 0; i < P.n[t]; i++)
						if (P.ops[t][i].k == O_CALLRCU) {
							rcu_certified++;
							t = P.nt - 1;
							break;
						}
				if (missing) {
					snprintf(what, sizeof(what), "certified complete, but %zu of %zu final "
						 "states missing (%llu executions)", missing, want.n,
						 (unsigned long long)d.execs);
					fail_prog(p, m, lock, what);
				}
			} else {
				/* none of these programs has a reason not to be
				 * certified: threads sharing a CPU (call_rcu()'s
				 * kthread, a spawn onto a busy CPU) are certified
				 * under a bound too */
				uncertified[m]++;
				snprintf(what, sizeof(what), "not certified: %s",
					 d.why[0] ? d.why : "(no reason given)");
				fail_prog(p, m, lock, what);
			}
		}
	}
}

/* Programs pinned because a reduction that drops a step's other records
 * loses their states. */
static void pinned(void)
{
	/* a use of the body, then (serially) its free: the free first is a
	 * use-after-free only the poison record orders */
	P = (struct prog){ 2, { 2, 1 }, {
		{ { O_USE, 0, 0 }, { O_R, 1, 0 } },
		{ { O_FREE, 0, 0 } },
	} };
	check_prog(-1);
	P.ops[0][0].y = 1;   /* the body's last word: the whole range is poisoned */
	check_prog(-7);
	/* cond_wait's release of the mutex against another locker */
	P = (struct prog){ 3, { 1, 1, 2 }, {
		{ { O_CWAIT, 0, 0 } },
		{ { O_CSIGNAL, 0, 0 } },
		{ { O_CS, 0, 1 }, { O_CSIGNAL, 0, 1 } },
	} };
	check_prog(-2);
	/* a free and an allocation of one body: they race through their
	 * second records only (their first ones are different fields) */
	P = (struct prog){ 3, { 1, 1, 2 }, {
		{ { O_ALLOC, 0, 0 } },
		{ { O_FREE, 0, 0 } },
		{ { O_W, 0, 0 }, { O_ALLOC, 0, 0 } },
	} };
	check_prog(-4);
	/* a use asleep (independent of the write that follows it) must wake
	 * at the free's second record, or the use after the free is lost */
	P = (struct prog){ 3, { 1, 1, 1 }, {
		{ { O_USE, 0, 0 } },
		{ { O_W, 1, 0 } },
		{ { O_FREE, 0, 0 } },
	} };
	check_prog(-5);
	/* the same with an allocation (no report cuts the run short): the
	 * sleeper that failed to wake runs last, its continuation stale, and
	 * the race after it (x2) is never reversed */
	P = (struct prog){ 3, { 2, 3, 1 }, {
		{ { O_ALLOC, 0, 0 }, { O_W, 2, 0 } },
		{ { O_W, 1, 0 }, { O_R, 2, 0 }, { O_W, 0, 0 } },
		{ { O_FREE, 0, 0 } },
	} };
	check_prog(-6);
	/* a wake-up against a waiter, and a free racing both */
	P = (struct prog){ 2, { 2, 2 }, {
		{ { O_QWAIT, 0, 0 }, { O_USE, 1, 0 } },
		{ { O_FREE, 1, 0 }, { O_QWAKE, 0, 0 } },
	} };
	check_prog(-3);
	/* a new thread's allocation and publishing store are one transition
	 * (no decision at its first point): the store's race with the other
	 * thread's load must be reversed at the decision that started it */
	P = (struct prog){ 2, { 1, 2 }, {
		{ { O_PUBLISH, 0, 0 } },
		{ { O_R, 0, 0 }, { O_W, 1, 0 } },
	} };
	check_prog(-8);
	/* the same published by a spawned thread, its parent's join of it
	 * blocked (a pthread program's main creating two threads) */
	P.ops[0][0] = (struct op){ O_SPAWN, 0, 0 };
	check_prog(-9);
}

int main(void)
{
	unsigned nprog = ls_large() ? 4000 : 150;

	weft_machine_init();
	pinned();
	ls_seed();
	for (unsigned p = 0; p < nprog; p++) {
		gen();
		check_prog(p);
	}
	printf("%u programs (%s size), %u program x lock model x bound runs compared (%u too big): plain "
	       "dfs %llu executions, %llu final states; source %llu executions (%u certified and "
	       "equal, %u found a report, %u not certified), optimal %llu (%u, %u, %u)\n",
	       nprog, ls_large() ? "large" : "quick", tested, skipped,
	       (unsigned long long)tot_plain, (unsigned long long)tot_states,
	       (unsigned long long)tot_dpor[WEFT_POR_SOURCE], certified[WEFT_POR_SOURCE],
	       reported[WEFT_POR_SOURCE], uncertified[WEFT_POR_SOURCE],
	       (unsigned long long)tot_dpor[WEFT_POR_OPTIMAL], certified[WEFT_POR_OPTIMAL],
	       reported[WEFT_POR_OPTIMAL], uncertified[WEFT_POR_OPTIMAL]);
	printf("call_rcu() programs certified, unbounded and within 1 and 2 preemptions (the "
	       "callback kthread shares its caller's CPU), and equal to plain dfs: %u runs\n",
	       rcu_certified);
	CHECK(rcu_certified >= 12, "too few call_rcu() programs certified (%u)", rcu_certified);
	CHECK(tested >= nprog, "too few programs small enough for plain dfs (%u)", tested);
	return check_done();
}
