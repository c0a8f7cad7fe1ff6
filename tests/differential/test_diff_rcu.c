/*
 * test_diff_rcu.c - RCU's documented guarantees (<weft/rcu.h>,
 * Documentation/RCU/whatisRCU.rst) as properties of random programs.
 *
 * Readers (1-2 threads) run read-side sections, some nested, that
 * rcu_dereference() a published object and read it; updaters (1-2 threads)
 * publish a new object under an update lock and retire the old one by
 * synchronize_rcu() + kfree(), kfree_rcu(), or call_rcu() with a callback
 * that frees it, some followed by rcu_barrier(). Every program checks:
 *  - synchronize_rcu() returns only after every read-side section that was
 *    open when it was called has ended (its outermost rcu_read_unlock());
 *  - a call_rcu() callback runs only after every section open at the call
 *    has ended, callbacks run in the order they were queued, each once;
 *  - rcu_barrier() returns only after every callback queued before it ran;
 *  - no reader sees a freed object (no use-after-free, no rcu-free-in-use);
 *  - nesting: an inner rcu_read_unlock() does not end the section.
 * Each program runs serially, under seeded random schedules and dfs at
 * bound 1; every execution must be clean. Pinned programs that retire
 * without a grace period, or check before it, must be reported.
 * WEFT_DIFF_SIZE=large runs more programs; WEFT_DIFF_SEED another sequence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "props.h"

#define NT 4
#define NOBJ 8

enum { R_SYNC, R_KFREE_RCU, R_CALL_RCU, R_NOW, R_SYNC_CHECK_EARLY };

struct prog {
	unsigned nreaders, nupdaters;
	unsigned sections[NT];     /* reader: sections */
	bool nested[NT];           /* reader: an inner lock/unlock pair */
	unsigned derefs[NT];
	unsigned updates[NT];      /* updater: updates */
	uint8_t retire[NT][2];
	bool barrier[NT];          /* updater: rcu_barrier() at its end */
};

static struct prog P;

struct snap {
	uint8_t in[NT];
	uint32_t sec[NT];
};

struct obj {
	int val;
	struct snap snap;           /* at the call_rcu() */
	uint32_t cbseq;
	struct rcu_head rcu;
};

struct world {
	struct obj obj[NOBJ];
	struct obj *gp;
	spinlock_t upd;
	uint32_t cb_queued, cb_done;
};

/* the program's own bookkeeping: plain (no scheduling point), each write
 * in the same step as the primitive it follows */
static uint8_t in_sec[NT];
static uint32_t sec_no[NT];

static struct world *Wp;

static void take_snap(struct snap *s)
{
	for (unsigned t = 0; t < P.nreaders; t++) {
		s->in[t] = in_sec[t];
		s->sec[t] = sec_no[t];
	}
}

static void check_snap(const struct snap *s, const char *what)
{
	for (unsigned t = 0; t < P.nreaders; t++)
		if (s->in[t] && in_sec[t] && sec_no[t] == s->sec[t])
			weft_report(WEFT_KIND_ASSERT, NULL,
				    WEFT_SITE(WEFT_EV_NOTE, "a grace period waits for open sections"),
				    "%s: reader T%u's section %u, open at the call, is still open", what,
				    t, s->sec[t]);
}

static void cb_free(struct rcu_head *h)
{
	struct obj *o = weft_list_entry(h, struct obj, rcu);

	check_snap(&o->snap, "call_rcu() callback");
	if (o->cbseq != Wp->cb_done)
		weft_report(WEFT_KIND_ASSERT, NULL, WEFT_SITE(WEFT_EV_NOTE, "callbacks run in order"),
			    "callback %u runs as the %u-th", o->cbseq, Wp->cb_done);
	Wp->cb_done++;
	weft_poison(o, sizeof(*o), WEFT_SITE(WEFT_EV_FREE, "kfree(o) in the callback"));
}

WEFT_TEST_SETUP_WORLD(rc, struct world)
{
	Wp = W;
	memset(in_sec, 0, sizeof(in_sec));
	memset(sec_no, 0, sizeof(sec_no));
	spin_lock_init(&W->upd);
	W->obj[0].val = 100;
	W->gp = &W->obj[0];
	for (unsigned i = 1; i < NOBJ; i++)
		weft_poison(&W->obj[i], sizeof(W->obj[i]), WEFT_SITE(WEFT_EV_FREE, "free object"));
}

static void reader(struct world *W, unsigned t)
{
	for (unsigned s = 0; s < P.sections[t]; s++) {
		rcu_read_lock();
		in_sec[t] = 1;
		sec_no[t]++;
		for (unsigned d = 0; d < P.derefs[t]; d++) {
			struct obj *p = rcu_dereference(W->gp);
			if (P.nested[t] && d == 0) {
				rcu_read_lock();
				(void)READ_ONCE(p->val);
				rcu_read_unlock();   /* inner: the section goes on */
			}
			(void)READ_ONCE(p->val);
		}
		rcu_read_unlock();
		in_sec[t] = 0;
	}
}

static void updater(struct world *W, unsigned u)
{
	for (unsigned j = 0; j < P.updates[u]; j++) {
		struct obj *n = &W->obj[1 + u * 2 + j], *old;
		struct snap s;
		weft_unpoison(n, sizeof(*n), WEFT_SITE(WEFT_EV_ALLOC, "kmalloc(n)"));
		WRITE_ONCE(n->val, (int)(u * 10 + j));
		spin_lock(&W->upd);
		old = rcu_dereference_protected(W->gp, lockdep_is_held(&W->upd));
		rcu_assign_pointer(W->gp, n);
		spin_unlock(&W->upd);
		switch (P.retire[u][j]) {
		case R_SYNC:
			take_snap(&s);
			synchronize_rcu();
			check_snap(&s, "synchronize_rcu()");
			weft_kfree(old);
			break;
		case R_SYNC_CHECK_EARLY:   /* a pinned bug: checks before the wait */
			take_snap(&s);
			check_snap(&s, "no grace period");
			synchronize_rcu();
			weft_kfree(old);
			break;
		case R_KFREE_RCU:
			kfree_rcu(old, rcu);
			break;
		case R_CALL_RCU:
			take_snap(&old->snap);   /* before the call: conservative */
			call_rcu(&old->rcu, cb_free);
			/* its place in the queue, in the step that queued it
			 * (no callback can run before the next point) */
			old->cbseq = W->cb_queued++;
			break;
		case R_NOW:                /* a pinned bug: no grace period */
			weft_kfree(old);
			break;
		}
	}
	if (P.barrier[u]) {
		uint32_t q = W->cb_queued;
		rcu_barrier();
		if (W->cb_done < q)
			weft_report(WEFT_KIND_ASSERT, NULL,
				    WEFT_SITE(WEFT_EV_NOTE, "rcu_barrier() waits for the callbacks"),
				    "rcu_barrier() returned with %u of %u callbacks run", W->cb_done, q);
	}
}

static void rc_thread(void *w, unsigned tid)
{
	Wp = w;
	if (tid < P.nreaders)
		reader(w, tid);
	else
		updater(w, tid - P.nreaders);
}

static struct weft_scenario rcsc = {
	.name = "diff-rcu", .summary = "properties: RCU", LS_ONE_PROGRAM, .nr_cpus = NT,
	.nr_threads = 2, .world_size = sizeof(struct world), .setup = rc_setup,
	.thread = rc_thread,
};

static void gen(void)
{
	memset(&P, 0, sizeof(P));
	P.nreaders = 1 + ls_rnd(2);
	P.nupdaters = 1 + (P.nreaders == 1 && ls_rnd(2));
	for (unsigned t = 0; t < P.nreaders; t++) {
		P.sections[t] = 1 + ls_rnd(2);
		P.derefs[t] = 1 + ls_rnd(2);
		P.nested[t] = ls_rnd(3) == 0;
	}
	for (unsigned u = 0; u < P.nupdaters; u++) {
		P.updates[u] = 1 + ls_rnd(2);
		for (unsigned j = 0; j < P.updates[u]; j++)
			P.retire[u][j] = (uint8_t)ls_rnd(3);
		P.barrier[u] = ls_rnd(3) == 0;
	}
}

static void print_prog(FILE *f)
{
	static const char *const rn[] = { "synchronize_rcu+kfree", "kfree_rcu", "call_rcu",
					  "kfree at once", "check before synchronize_rcu" };
	for (unsigned t = 0; t < P.nreaders; t++)
		fprintf(f, "     T%u reader: %u sections of %u rcu_dereference()%s\n", t,
			P.sections[t], P.derefs[t], P.nested[t] ? ", one nested section" : "");
	for (unsigned u = 0; u < P.nupdaters; u++) {
		fprintf(f, "     T%u updater:", P.nreaders + u);
		for (unsigned j = 0; j < P.updates[u]; j++)
			fprintf(f, " publish, %s;", rn[P.retire[u][j]]);
		fprintf(f, "%s\n", P.barrier[u] ? " rcu_barrier()" : "");
	}
}

static unsigned failures;
static uint64_t total_exec;

static void check_prog(long no, enum weft_kind want, enum weft_kind also, unsigned nrand,
		       uint64_t seed, unsigned bound)
{
	struct props_out out;

	rcsc.nr_threads = P.nreaders + P.nupdaters;
	bool ok = props_run(&rcsc, WEFT_CHECKS_DEFAULT, nrand, seed, bound, 20000, want, also, &out);
	total_exec += out.executions;
	CHECK(ok, "program %ld: %s%s%s (want %s)", no, weft_kind_name(out.bad.kind),
	      out.bad.kind ? ": " : "", out.bad.report.msg, weft_kind_name(want));
	if (!ok && failures++ < 5) {
		fprintf(stderr, "   found by %s (seed %llu)\n",
			out.how == 0 ? "the serial run" : out.how == 1 ? "a random schedule" : "dfs",
			(unsigned long long)out.seed);
		print_prog(stderr);
	}
}

int main(void)
{
	unsigned nprog = ls_large() ? 3000 : 150, nrand = ls_large() ? 40 : 10;

	weft_machine_init();
	/* pinned: a retire without a grace period is found; a check made
	 * before synchronize_rcu() fails where a reader is inside */
	memset(&P, 0, sizeof(P));
	P.nreaders = 1;
	P.nupdaters = 1;
	P.sections[0] = 1;
	P.derefs[0] = 2;
	P.updates[0] = 1;
	P.retire[0][0] = R_NOW;
	check_prog(-1, WEFT_KIND_RCU_FREE_IN_USE, WEFT_KIND_USE_AFTER_FREE, 4, 1, 2);
	P.retire[0][0] = R_SYNC_CHECK_EARLY;
	check_prog(-2, WEFT_KIND_ASSERT, WEFT_KIND_NONE, 4, 2, 2);
	uint64_t seed = ls_seed();
	for (unsigned p = 0; p < nprog; p++) {
		gen();
		check_prog(p, WEFT_KIND_NONE, WEFT_KIND_NONE, nrand, seed * 100000 + p * 100, 1);
	}
	printf("%u programs (%s size), %llu executions (serial, %u random, dfs bound 1 each)\n",
	       nprog, ls_large() ? "large" : "quick", (unsigned long long)total_exec, nrand);
	return check_done();
}
