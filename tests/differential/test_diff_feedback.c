/*
 * test_diff_feedback.c - the interleaving feedback families against an
 * observer of the recorded trace.
 *
 * Random small programs (reads, writes, atomics, critical sections and
 * trylocks of 1-3 threads, and a scenario state bucket) run under seeded
 * random schedules with each feature family routed alone to a fresh map
 * (weft_feedback_route). From the execution's recorded events, written
 * independently of the machine's feedback hooks, the observer says whether
 * the family had something to count:
 *  - context-switch site pairs: two threads ran (a switch from one to the
 *    other; some thread's event following another's is one);
 *  - reads-from pairs: a marked load or read-modify-write of the world;
 *  - state buckets: a store or read-modify-write to a variable whose bucket
 *    is not 0;
 *  - lock outcomes: a lock acquired or a trylock tried.
 * The family's map must be non-empty exactly when the observer says so. A
 * second test of each family, next to tests/fuzz/test_feedback_families.c's
 * hand-made scenarios. WEFT_DIFF_SIZE=large runs more programs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "lockstep.h"

#define NT 3
#define MAXOPS 3
#define MAP 4096

enum opk { O_R, O_W, O_A, O_CS, O_TRY, O_NONE, OP__N };

static struct {
	unsigned nt;
	unsigned n[NT];
	uint8_t k[NT][MAXOPS], x[NT][MAXOPS];
} P;

struct world {
	int x[3];          /* x[0], x[1]: bucketed; x[2] not */
	spinlock_t l;
	int quiet;         /* touched by plain C only */
};

LS_ONE_LOCK_SETUP(fb_setup, struct world)

static void fb_thread(void *w, unsigned t)
{
	struct world *W = w;
	int last = 0;

	for (unsigned i = 0; i < P.n[t]; i++) {
		unsigned x = P.x[t][i];
		switch (P.k[t][i]) {
		case O_R:
			last = READ_ONCE(W->x[x]);
			break;
		case O_W:
			WRITE_ONCE(W->x[x], last + (int)t + 1);
			break;
		case O_A:
			last = atomic_inc_return((atomic_t *)&W->x[x]);
			break;
		case O_CS:
			spin_lock(&W->l);
			W->quiet++;
			spin_unlock(&W->l);
			break;
		case O_TRY:
			if (spin_trylock(&W->l))
				spin_unlock(&W->l);
			break;
		case O_NONE:
			W->quiet++;
			break;
		}
	}
}

/* x[0] and x[1] have buckets (1 + value), x[2] none */
static uint32_t fb_bucket(const void *w, uint32_t off)
{
	const struct world *W = w;

	if (off < 2 * sizeof(int))
		return 1 + (uint32_t)(W->x[off / sizeof(int)] & 3);
	return 0;
}

static struct weft_scenario fbsc = {
	.name = "diff-feedback", .summary = "differential: feedback families", LS_ONE_PROGRAM,
	.nr_cpus = NT, .nr_threads = 2, .world_size = sizeof(struct world), .setup = fb_setup,
	.thread = fb_thread, .state_bucket = fb_bucket,
};

/* The observer: what each family had to count in the last execution. */
static void observe(bool want[4])
{
	size_t n;
	const struct weft_event *ev = weft_last_events(&n);
	int prev = -1;

	memset(want, 0, 4 * sizeof(bool));
	/* every thread runs to its end, so with two the machine switches
	 * from one to another (at the latest when the first ends, even to a
	 * thread that then does nothing the trace shows) */
	want[0] = weft_last_nr_threads() >= 2;
	for (size_t i = 0; i < n; i++) {
		const struct weft_event *e = &ev[i];
		if (e->tid == 0xff)
			continue;   /* setup */
		if (prev >= 0 && e->tid != prev)
			want[0] = true;                       /* a switch */
		prev = e->tid;
		bool in_world = e->loc < sizeof(struct world);
		if (in_world && (e->ev == WEFT_EV_READ || e->ev == WEFT_EV_RMW))
			want[1] = true;                       /* a marked load */
		if (e->loc < 2 * sizeof(int) && (e->ev == WEFT_EV_WRITE || e->ev == WEFT_EV_RMW))
			want[2] = true;                       /* a store to a bucketed variable */
		if (e->ev == WEFT_EV_LOCK || e->ev == WEFT_EV_TRYLOCK)
			want[3] = true;                       /* a lock or trylock */
	}
}

static void gen(void)
{
	memset(&P, 0, sizeof(P));
	P.nt = 1 + ls_rnd(NT);
	for (unsigned t = 0; t < P.nt; t++) {
		P.n[t] = ls_rnd(MAXOPS + 1);
		for (unsigned i = 0; i < P.n[t]; i++) {
			P.k[t][i] = (uint8_t)ls_rnd(OP__N);
			P.x[t][i] = (uint8_t)ls_rnd(3);
		}
	}
}

int main(void)
{
	static const unsigned family[4] = { WEFT_FB_SWITCH, WEFT_FB_READS_FROM, WEFT_FB_STATE,
					    WEFT_FB_LOCK };
	static const char *const fname[4] = { "context-switch pairs", "reads-from pairs",
					      "state buckets", "lock outcomes" };
	static uint8_t map[MAP];
	unsigned nprog = ls_large() ? 20000 : 1000, failures = 0;
	unsigned fired[4] = { 0 }, silent[4] = { 0 };

	weft_machine_init();
	ls_seed();
	for (unsigned p = 0; p < nprog; p++) {
		gen();
		fbsc.nr_threads = P.nt;
		for (unsigned f = 0; f < 4; f++) {
			struct weft_run_opts o = { .sc = &fbsc, .record = true, .feedback = true };
			struct weft_random rnd;
			struct weft_exec_result r;
			bool want[4];
			memset(map, 0, sizeof(map));
			weft_feedback_route(map, NULL, MAP, family[f]);
			weft_random_init(&rnd, &fbsc, p * 4 + f, (const uint8_t[]){ 0 }, 1);
			weft_execute(&o, &weft_strategy_random, &rnd, &r);
			weft_feedback_route(NULL, NULL, 0, 0);
			observe(want);
			bool got = false;
			for (unsigned i = 0; i < MAP; i++)
				got |= map[i] != 0;
			fired[f] += got;
			silent[f] += !got;
			CHECK(got == want[f], "program %u: %s %s, the trace says %s", p, fname[f],
			      got ? "counted" : "counted nothing",
			      want[f] ? "there was something to count" : "there was nothing");
			if (got != want[f] && failures++ < 5)
				for (unsigned t = 0; t < P.nt; t++) {
					fprintf(stderr, "     T%u:", t);
					for (unsigned i = 0; i < P.n[t]; i++)
						fprintf(stderr, " %u(x%u)", P.k[t][i], P.x[t][i]);
					fprintf(stderr, "\n");
				}
		}
	}
	printf("%u programs (%s size); families fired/silent: switch %u/%u, reads-from %u/%u, "
	       "state %u/%u, lock %u/%u\n", nprog, ls_large() ? "large" : "quick", fired[0],
	       silent[0], fired[1], silent[1], fired[2], silent[2], fired[3], silent[3]);
	for (unsigned f = 0; f < 4; f++)
		CHECK(fired[f] && silent[f], "%s: never both fired and silent", fname[f]);
	return check_done();
}
