/*
 * test_spin_fold.c - a livelock's spin loop prints one turn and a marker
 * row, not a row per step (issue 23, item 6: Z13's replay printed ~3,000
 * lines). For demo-spin:lost-wakeup and z13-zonelist-seq:z13, found by
 * dfs at bound 1, the default view:
 *  - has a "the N rows above, M more times (steps a–b)" marker whose
 *    turns cover the folded steps exactly (M x N rows of one step each =
 *    b - a + 1), ending at or before the failing step;
 *  - is short (under 80 lines) where the execution has thousands of steps;
 *  - still shows the failing row;
 * and the --full view (every step) folds nothing.
 */
#include <inttypes.h>
#include <stdio.h>

#include "diag_test.h"

static unsigned count_lines(const char *s)
{
	unsigned n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void check_fold(const char *spec)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);

	CHECK(sc != NULL, "%s: not in the registry", spec);
	if (!sc)
		return;
	/* dfs at bound 1 on the registry's trigger workload, as `weft run
	 * --strategy dfs` searches it */
	size_t wl_len = 0;
	if (sc->triggers && sc->triggers[vi] && sc->trigger_lens[vi])
		wl_len = 1 + 2 * (size_t)sc->triggers[vi][0];
	if (wl_len > (sc->triggers && sc->triggers[vi] ? sc->trigger_lens[vi] : 0))
		wl_len = 0;
	struct d_run run = d_dfs_on(sc, vi, 1, WEFT_CHECKS_DEFAULT,
				    wl_len ? sc->triggers[vi] : NULL, wl_len);
	CHECK(run.kind == WEFT_KIND_LIVELOCK, "%s: dfs found %s, not a livelock", spec,
	      weft_kind_name(run.kind));
	if (run.kind != WEFT_KIND_LIVELOCK)
		return;
	CHECK(run.r.steps >= 1000, "%s: a livelock of %" PRIu32 " steps", spec, run.r.steps);

	char *d = d_diagram(&run, false);
	const char *m = strstr(d, "\u21bb the ");
	unsigned rows = 0, more = 0;
	uint32_t a = 0, b = 0;
	CHECK(m != NULL, "%s: no fold marker in\n%s", spec, d);
	if (m) {
		/* the marker may wrap inside its cell: read it across the break */
		char flat[512];
		size_t k = 0;
		for (const char *p = m; *p && k + 1 < sizeof(flat); p++) {
			if (*p != '|' && *p != '\n')
				flat[k++] = *p;
			if (*p == ')')
				break;
		}
		flat[k] = 0;
		CHECK(sscanf(flat, "\u21bb the %u rows above, %u more time%*[s] (steps %" SCNu32
			       "\u2013%" SCNu32 ")", &rows, &more, &a, &b) == 4,
		      "%s: marker '%s'", spec, flat);
		CHECK(rows >= 2 && rows <= 8, "%s: a turn of %u rows", spec, rows);
		CHECK(b >= a && (uint64_t)rows * more == (uint64_t)b - a + 1,
		      "%s: %u more turns of %u rows cover steps %" PRIu32 "-%" PRIu32, spec, more,
		      rows, a, b);
		CHECK(b <= run.r.steps, "%s: the fold ends at step %" PRIu32 " of %" PRIu32, spec, b,
		      run.r.steps);
	}
	CHECK(count_lines(d) < 80, "%s: %u lines for %" PRIu32 " steps", spec, count_lines(d),
	      run.r.steps);
	CHECK(strstr(d, "!!") != NULL, "%s: the failing row is gone", spec);
	free(d);

	char *full = d_diagram(&run, true);
	CHECK(strstr(full, "\u21bb") == NULL, "%s: --full folded a loop", spec);
	CHECK(count_lines(full) > run.r.steps / 2, "%s: --full shows %u lines", spec,
	      count_lines(full));
	free(full);
}

int main(void)
{
	if (weft_machine_init())
		return 3;
	check_fold("demo-spin:lost-wakeup");
	check_fold("z13-zonelist-seq:z13");
	return check_done();
}
