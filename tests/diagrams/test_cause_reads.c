/*
 * test_cause_reads.c - the default race diagram keeps the cause on other
 * objects (issue 19, item 4): for every location the failing thread read
 * since its first preemption (never preempted: since it started), on any
 * object, the view keeps the read, the store of another thread it read
 * from, and the last store of another thread to it before the failure.
 *
 * Checked on real traces: with the zoo and demos linked (weft_models), on
 * every regression replay in the directory given; linked with an example
 * (docs/examples/: its own registry), on the race of each of its buggy
 * variants (its trigger input, else dfs). And one pointed case: demo-stack-index:racy-pop, whose
 * report names no object in the world, where T1's decrement (the cause)
 * was hidden.
 *
 * Usage: test_cause_reads [REGRESSIONS_DIR]
 */
#include <dirent.h>

#include <weft/replay.h>

#include "diag_test.h"
#include "regressions.h"

/* The stores the rule wants kept, checked against the view. */
static unsigned check_view(const char *what, const struct weft_trace_view *v)
{
	unsigned wanted = 0;

	if (v->fail_idx >= v->n || v->ev[v->fail_idx].tid == 0xff || !v->shown)
		return 0;
	unsigned ft = v->ev[v->fail_idx].tid;
	for (size_t j = v->reads_from; j <= v->fail_idx; j++) {
		const struct weft_event *e = &v->ev[j];
		if (e->tid != ft || e->loc == WEFT_NO_LOC ||
		    (e->ev != WEFT_EV_READ && e->ev != WEFT_EV_RMW))
			continue;
		/* the store it read from, and the last store of another thread
		 * before the failure */
		size_t from = SIZE_MAX, last = SIZE_MAX;
		for (size_t k = 0; k <= v->fail_idx; k++) {
			const struct weft_event *f = &v->ev[k];
			if (f->loc != e->loc ||
			    (f->ev != WEFT_EV_WRITE && f->ev != WEFT_EV_RMW && f->ev != WEFT_EV_FREE))
				continue;
			if (k < j)
				from = k;
			if (f->tid != ft && f->tid != 0xff && k >= v->reads_from)
				last = k;
		}
		if (from != SIZE_MAX && v->ev[from].tid != ft && v->ev[from].tid != 0xff) {
			wanted++;
			CHECK(v->shown[j] && v->shown[from],
			      "%s: T%u's read at step %u and the store of T%u it read (step %u) hidden",
			      what, ft, e->step, v->ev[from].tid, v->ev[from].step);
		}
		if (last != SIZE_MAX) {
			wanted++;
			CHECK(v->shown[last], "%s: the last store of T%u (step %u) to what T%u read "
			      "at step %u hidden", what, v->ev[last].tid, v->ev[last].step, ft, e->step);
		}
	}
	return wanted;
}

#ifdef WEFT_TEST_EXAMPLE
/* an example program: its buggy variants, found by dfs */
int main(void)
{
	unsigned wanted = 0, races = 0;

	for (unsigned i = 0; i < weft_nr_scenarios; i++) {
		const struct weft_scenario *sc = weft_scenarios[i];
		for (unsigned vi = 0; vi < sc->nr_variants; vi++) {
			if (!sc->variants[vi].buggy)
				continue;
			struct d_run run;
			if (sc->triggers && sc->triggers[vi]) {
				/* its trigger input (a workload and the schedule) */
				static struct weft_bytes b;
				memset(&run, 0, sizeof(run));
				run.o.sc = sc;
				run.o.variant = vi;
				run.o.lock = sc->default_lock;
				run.o.record = true;
				weft_bytes_init(&b, sc, sc->triggers[vi], sc->trigger_lens[vi]);
				if (weft_execute(&run.o, &weft_strategy_bytes, &b, &run.r) == 0)
					run.kind = run.r.kind;
			} else {
				run = d_dfs(sc, vi, 2, 0);
			}
			CHECK(run.kind != WEFT_KIND_NONE, "%s:%s: no race found", sc->name,
			      sc->variants[vi].name);
			if (run.kind == WEFT_KIND_NONE)
				continue;
			struct weft_trace_view v;
			d_view(&run, &v);
			wanted += check_view(sc->variants[vi].name, &v);
			weft_trace_view_fini(&v);
			races++;
		}
	}
	printf("%u races of the example, %u stores the rule keeps\n", races, wanted);
	CHECK(races > 0, "no buggy variant");
	return check_done();
}
#else
static void regressions(const char *dir)
{
	DIR *d = opendir(dir);
	unsigned files = 0, wanted = 0;
	char path[4096], err[300];
	struct weft_replay rf;

	CHECK(d != NULL, "cannot open %s", dir);
	if (!d)
		return;
	while (regression_next(d, dir, path, sizeof(path), &rf)) {
		const struct weft_scenario *sc;
		unsigned vi;
		if (weft_replay_bind(&rf, &sc, &vi, err, sizeof(err))) {
			CHECK(0, "%s: %s", path, err);
			weft_replay_free(&rf);
			continue;
		}
		struct weft_replay_check c;
		if (weft_replay_execute(&rf, sc, vi, &c) == 0 && c.reproduced) {
			struct weft_trace_view v = { .sc = sc, .variant = vi,
						     .lock = (enum weft_lock_model)rf.lock, .r = &c.r };
			v.ev = weft_last_events(&v.n);
			weft_trace_view_init(&v);
			wanted += check_view(strrchr(path, '/') + 1, &v);
			weft_trace_view_fini(&v);
			files++;
		} else {
			CHECK(0, "%s: does not reproduce: %s", path, c.why);
		}
		weft_replay_free(&rf);
	}
	closedir(d);
	printf("%u regression replays, %u stores the rule keeps\n", files, wanted);
	CHECK(files >= 20 && wanted >= 50, "too little checked: %u files, %u stores", files,
	      wanted);
}

/* demo-stack-index:racy-pop: T0 reads nr_free == 1, is preempted, T1 pops
 * the one slot (1 -> 0), T0 decrements to -1 and indexes slots[-1]. The
 * report names an address outside the world (no object), so before this
 * rule the view kept the read, the preemption and the failure only. */
static void racy_pop(void)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("demo-stack-index:racy-pop", &vi);

	CHECK(sc != NULL, "no demo-stack-index");
	if (!sc)
		return;
	struct d_run run = d_dfs(sc, vi, 1, 0);
	CHECK(run.kind == WEFT_KIND_OUT_OF_WORLD, "racy-pop: %s", weft_kind_name(run.kind));
	struct weft_trace_view v;
	d_view(&run, &v);
	char *d = d_diagram(&run, false);
	CHECK(d_kept(&v, 1, "atomic_dec_return(&W->nr_free): nr_free 1", "0"),
	      "T1's decrement (the cause) hidden:\n%s", d);
	CHECK(d_kept(&v, 0, "atomic_dec_return(&W->nr_free): nr_free 0", "-1"),
	      "T0's decrement to -1 hidden:\n%s", d);
	CHECK(strstr(d, "T0's reads since it was preempted") != NULL, "footer:\n%s", d);
	free(d);
	weft_trace_view_fini(&v);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		regressions(argv[1]);
	racy_pop();
	return check_done();
}
#endif
