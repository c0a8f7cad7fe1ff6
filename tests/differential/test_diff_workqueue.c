/*
 * test_diff_workqueue.c - work items' documented guarantees
 * (<weft/workqueue.h>, Documentation/core-api/workqueue.rst,
 * kernel/workqueue.c) as properties of random programs.
 *
 * 2-3 threads on their CPUs queue two work items on any CPU
 * (queue_work_on, schedule_work), flush them and test work_pending(); some
 * work functions queue their own item again, on another CPU. Every
 * program checks:
 *  - queue_work_on() returns true exactly for the queueings that lead to
 *    a run: at quiescence every item ran once per successful queueing, and
 *    none is left pending;
 *  - a work item never runs twice at once (non-reentrant since v3.7: an
 *    item queued while it runs elsewhere is queued where it runs);
 *  - work runs in process context;
 *  - flush_work() returns only once every run queued before it ended.
 * Each program runs serially, under seeded random schedules and dfs at
 * bound 1. WEFT_DIFF_SIZE=large runs more programs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "props.h"

#define NT 3
#define NW 2
#define MAXOPS 5

enum opk { O_QUEUE, O_SCHEDULE, O_FLUSH, O_PENDING, OP__N };

struct op {
	uint8_t k, w, cpu;
};

struct prog {
	unsigned nt;
	unsigned n[NT];
	struct op ops[NT][MAXOPS];
	bool requeue[NW];          /* the function queues its item again, once */
	uint8_t requeue_cpu[NW];
};

static struct prog P;

struct world {
	struct work_struct w[NW];
};

static struct world *Wp;
static unsigned queued_ok[NW], runs_started[NW], runs_done[NW], in_run[NW], requeued[NW];

static unsigned index_of(struct work_struct *w)
{
	return (unsigned)(w - Wp->w);
}

static void work_fn(struct work_struct *w)
{
	unsigned k = index_of(w);

	if (in_run[k]++)
		weft_report(WEFT_KIND_ASSERT, NULL,
			    WEFT_SITE(WEFT_EV_NOTE, "a work item never runs twice at once"),
			    "work %u runs twice at once", k);
	runs_started[k]++;
	if (in_interrupt())
		weft_report(WEFT_KIND_ASSERT, NULL, WEFT_SITE(WEFT_EV_NOTE, "work runs in process context"),
			    "work %u runs in interrupt context", k);
	if (P.requeue[k] && !requeued[k]) {
		requeued[k] = 1;
		if (queue_work_on(P.requeue_cpu[k], NULL, w))
			queued_ok[k]++;
	}
	runs_done[k]++;
	in_run[k]--;
}

WEFT_TEST_SETUP_WORLD(wq, struct world)
{
	Wp = W;
	for (unsigned k = 0; k < NW; k++) {
		INIT_WORK(&W->w[k], work_fn);
		queued_ok[k] = runs_started[k] = runs_done[k] = in_run[k] = requeued[k] = 0;
	}
}

static void wq_thread(void *w, unsigned t)
{
	struct world *W = w;

	for (unsigned i = 0; i < P.n[t]; i++) {
		const struct op *o = &P.ops[t][i];
		struct work_struct *x = &W->w[o->w];
		switch (o->k) {
		case O_QUEUE:
			if (queue_work_on(o->cpu, NULL, x))
				queued_ok[o->w]++;
			break;
		case O_SCHEDULE:
			if (schedule_work(x))
				queued_ok[o->w]++;
			break;
		case O_FLUSH: {
			unsigned q = queued_ok[o->w];
			flush_work(x);
			if (runs_done[o->w] < q)
				weft_report(WEFT_KIND_ASSERT, NULL,
					    WEFT_SITE(WEFT_EV_NOTE, "flush_work waits for the queued runs"),
					    "flush_work(work %u) returned after %u of %u runs", o->w,
					    runs_done[o->w], q);
			break;
		}
		case O_PENDING:
			(void)work_pending(x);
			break;
		}
	}
}

static void wq_quiesce(void *w)
{
	struct world *W = w;

	for (unsigned k = 0; k < NW; k++)
		if (runs_done[k] != queued_ok[k] || (weft_peek(W->w[k].data) & 1))
			weft_report(WEFT_KIND_ASSERT, NULL,
				    WEFT_SITE(WEFT_EV_NOTE, "one run per successful queueing"),
				    "work %u ran %u times for %u successful queueings%s", k,
				    runs_done[k], queued_ok[k],
				    weft_peek(W->w[k].data) & 1 ? " and is still pending" : "");
}

PROPS_SCENARIO(wqsc, "diff-workqueue", "properties: work items", wq);

static unsigned gen(void)
{
	memset(&P, 0, sizeof(P));
	P.nt = 2 + ls_rnd(2);
	for (unsigned k = 0; k < NW; k++) {
		P.requeue[k] = ls_rnd(3) == 0;
		P.requeue_cpu[k] = (uint8_t)ls_rnd(P.nt);
	}
	for (unsigned t = 0; t < P.nt; t++) {
		P.n[t] = 1 + ls_rnd(3);
		for (unsigned i = 0; i < P.n[t]; i++) {
			unsigned r = ls_rnd(10);
			P.ops[t][i] = (struct op){ (uint8_t)(r < 5 ? O_QUEUE : r < 6 ? O_SCHEDULE
							     : r < 9 ? O_FLUSH : O_PENDING),
						   (uint8_t)(ls_rnd(3) == 0), (uint8_t)ls_rnd(P.nt) };
		}
	}
	return P.nt;
}

static void print_prog(FILE *f)
{
	static const char *const on[OP__N] = { "queue_work_on", "schedule_work", "flush_work",
					       "work_pending" };
	for (unsigned t = 0; t < P.nt; t++) {
		fprintf(f, "     T%u (CPU%u):", t, t);
		for (unsigned i = 0; i < P.n[t]; i++) {
			const struct op *o = &P.ops[t][i];
			if (o->k == O_QUEUE)
				fprintf(f, " %s(%u, work %u);", on[o->k], o->cpu, o->w);
			else
				fprintf(f, " %s(work %u);", on[o->k], o->w);
		}
		fprintf(f, "\n");
	}
	for (unsigned k = 0; k < NW; k++)
		if (P.requeue[k])
			fprintf(f, "     work %u queues itself once more, on CPU%u\n", k, P.requeue_cpu[k]);
}

int main(void)
{
	return props_main(&wqsc, gen, print_prog);
}
