/*
 * test_diff_percpu_ref.c - percpu_ref's documented guarantees
 * (<weft/percpu_ref.h>, include/linux/percpu-refcount.h) as properties of
 * random programs.
 *
 * Holders (1-3 threads on their CPUs, each with a reference taken in
 * setup) take and drop references (percpu_ref_get/put, tryget, tryget_live,
 * get_many/put_many) around uses of the object and drop their own at the
 * end; one thread kills the ref (percpu_ref_kill or _kill_and_confirm, in
 * per-CPU or atomic mode after percpu_ref_switch_to_atomic_sync), some then
 * wait for the confirmation and try tryget_live again. Every program checks:
 *  - release runs exactly once, only once every reference is dropped and
 *    the ref is killed, and never while a holder still uses the object;
 *  - once the kill is confirmed (the confirm callback ran), no
 *    tryget_live() succeeds; tryget() of a held ref always succeeds;
 *  - at quiescence the ref is released if and only if it was killed.
 * Each program runs serially, under seeded random schedules and dfs at
 * bound 1. WEFT_DIFF_SIZE=large runs more programs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/percpu_ref.h>
#include <weft/strategy.h>

#include "check.h"
#include "props.h"

#define NT 4
#define MAXOPS 6

enum opk { O_GET_PUT, O_TRYGET_PUT, O_TRYGET_LIVE_PUT, O_GET_MANY, O_KILL, O_KILL_CONFIRM,
	   O_WAIT_TRY_LIVE, O_ATOMIC_SYNC, OP__N };

struct prog {
	unsigned nt;
	unsigned n[NT];
	uint8_t ops[NT][MAXOPS];
	bool killed;           /* some thread kills */
};

static struct prog P;

struct world {
	struct percpu_ref ref;
	int data;
};

static struct world *Wp;
static int holders, released, confirmed;

static void release(struct percpu_ref *ref)
{
	(void)ref;
	if (released || holders)
		weft_report(WEFT_KIND_ASSERT, NULL,
			    WEFT_SITE(WEFT_EV_NOTE, "release: once, with no reference held"),
			    "percpu_ref release %s (%d references in use)",
			    released ? "runs twice" : "while references are held", holders);
	released++;
	weft_poison(&Wp->data, sizeof(Wp->data), WEFT_SITE(WEFT_EV_FREE, "kfree(data)"));
}

static void confirm(struct percpu_ref *ref)
{
	(void)ref;
	confirmed = 1;
}

static void use(struct world *W)
{
	holders++;
	(void)READ_ONCE(W->data);
}

static void unuse(void)
{
	holders--;
}

WEFT_TEST_SETUP_WORLD(pr, struct world)
{
	Wp = W;
	holders = released = confirmed = 0;
	percpu_ref_init(&W->ref, release, 0);
	for (unsigned t = 0; t < P.nt; t++)
		percpu_ref_get(&W->ref);   /* each thread's own */
	holders = (int)P.nt;
}

static void pr_thread(void *w, unsigned t)
{
	struct world *W = w;
	struct percpu_ref *ref = &W->ref;

	for (unsigned i = 0; i < P.n[t]; i++) {
		switch (P.ops[t][i]) {
		case O_GET_PUT:
			percpu_ref_get(ref);
			use(W);
			unuse();
			percpu_ref_put(ref);
			break;
		case O_TRYGET_PUT:
			/* this thread holds a reference: tryget cannot fail */
			if (!percpu_ref_tryget(ref))
				weft_report(WEFT_KIND_ASSERT, NULL,
					    WEFT_SITE(WEFT_EV_NOTE, "tryget of a held ref succeeds"),
					    "percpu_ref_tryget() failed while T%u holds a reference", t);
			use(W);
			unuse();
			percpu_ref_put(ref);
			break;
		case O_TRYGET_LIVE_PUT: {
			int c = confirmed;
			bool ok = percpu_ref_tryget_live(ref);
			if (ok && c)
				weft_report(WEFT_KIND_ASSERT, NULL,
					    WEFT_SITE(WEFT_EV_NOTE, "no tryget_live after the kill's confirmation"),
					    "percpu_ref_tryget_live() succeeded after the kill was confirmed");
			if (ok) {
				use(W);
				unuse();
				percpu_ref_put(ref);
			}
			break;
		}
		case O_GET_MANY:
			percpu_ref_get_many(ref, 3);
			use(W);
			unuse();
			percpu_ref_put_many(ref, 2);
			percpu_ref_put(ref);
			break;
		case O_KILL:
			percpu_ref_kill(ref);
			break;
		case O_KILL_CONFIRM:
			percpu_ref_kill_and_confirm(ref, confirm);
			break;
		case O_WAIT_TRY_LIVE:
			percpu_ref_switch_wait(ref);
			if (percpu_ref_tryget_live(ref))
				weft_report(WEFT_KIND_ASSERT, NULL,
					    WEFT_SITE(WEFT_EV_NOTE, "no tryget_live after the switch"),
					    "percpu_ref_tryget_live() succeeded after the kill's switch");
			break;
		case O_ATOMIC_SYNC:
			percpu_ref_switch_to_atomic_sync(ref);
			break;
		}
	}
	unuse();
	percpu_ref_put(ref);   /* its own reference */
}

static void pr_quiesce(void *w)
{
	(void)w;
	if (released != (P.killed ? 1 : 0))
		weft_report(WEFT_KIND_ASSERT, NULL,
			    WEFT_SITE(WEFT_EV_NOTE, "released iff killed, at quiescence"),
			    "at quiescence the ref was released %d times (killed: %s)", released,
			    P.killed ? "yes" : "no");
}

PROPS_SCENARIO(prsc, "diff-percpu-ref", "properties: percpu_ref", pr);

static unsigned gen(void)
{
	memset(&P, 0, sizeof(P));
	P.nt = 2 + ls_rnd(2);
	unsigned killer = ls_rnd(P.nt);
	P.killed = ls_rnd(6) != 0;
	for (unsigned t = 0; t < P.nt; t++) {
		unsigned n = 1 + ls_rnd(2);
		if (t == killer && P.killed) {
			if (ls_rnd(4) == 0)
				P.ops[t][P.n[t]++] = O_ATOMIC_SYNC;
			P.ops[t][P.n[t]++] = ls_rnd(2) ? O_KILL : O_KILL_CONFIRM;
			if (ls_rnd(2))
				P.ops[t][P.n[t]++] = O_WAIT_TRY_LIVE;
			continue;
		}
		for (unsigned i = 0; i < n; i++)
			P.ops[t][P.n[t]++] = (uint8_t)ls_rnd(O_KILL);
	}
	return P.nt;
}

static void print_prog(FILE *f)
{
	static const char *const on[OP__N] = { "get/put", "tryget/put", "tryget_live/put",
					       "get_many(3)/put_many(2)/put", "kill",
					       "kill_and_confirm", "switch_wait+tryget_live",
					       "switch_to_atomic_sync" };
	for (unsigned t = 0; t < P.nt; t++) {
		fprintf(f, "     T%u:", t);
		for (unsigned i = 0; i < P.n[t]; i++)
			fprintf(f, " %s;", on[P.ops[t][i]]);
		fprintf(f, " put (its own)\n");
	}
}

int main(void)
{
	return props_main(&prsc, gen, print_prog);
}
