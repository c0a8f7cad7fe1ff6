/*
 * test_callers.c - the list helpers of <weft/kernel.h> name the model's
 * call (issue 15's papercut "List helpers report sites inside kernel.h
 * instead of the model's caller"), without changing a site id:
 *  - every event of a helper keeps the helper's site (file kernel.h, the
 *    helper's function: the inputs of its id, so every trace hash and
 *    stored replay is unchanged; tests/core/golden-hashes.inc and the
 *    corpus replays check the hashes themselves) and carries the model's
 *    call (file, function, line, text) as its caller;
 *  - the first event of each call is flagged (two calls from one line
 *    are two calls); events outside helpers have no caller; a helper that
 *    calls helpers through the macros keeps the outermost call;
 *  - reports (text, SUMMARY), the race diagram's rows and side lines and
 *    the report struct name the caller for both sides.
 */
#include <weft/kernel.h>

#include "diag_test.h"
#include "../model_driver.h"

struct cl_world {
	struct weft_list_head head, a, b;
	int x;
};

static unsigned del_line, move_line, add_line;

/* A model's own helper over the list helpers, called through a macro of
 * its own: its events are named by its caller. */
static void my_move(struct weft_list_head *e, struct weft_list_head *h)
{
	weft_list_del(e);
	weft_list_add(e, h);
}
#define my_move(e, h) WEFT_CALL_VOID("my_move(" #e ", " #h ")", (my_move)((e), (h)))

static void cl_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct cl_world *W = w;
	struct weft_list_head *nodes[2] = { &W->a, &W->b };

	(void)variant;
	(void)wl;
	weft_list_init(&W->head);
	for (unsigned i = 0; i < 2; i++) {
		add_line = __LINE__ + 1;
		weft_list_add(nodes[i], &W->head);
	}
}

static void cl_thread(void *w, unsigned tid)
{
	struct cl_world *W = w;

	WRITE_ONCE(W->x, tid);
	if (tid == 0) {
		move_line = __LINE__ + 1;
		my_move(&W->b, &W->head);
	}
	del_line = __LINE__ + 1;
	weft_list_del(&W->a);   /* both threads: the second finds it poisoned */
}

static void cl_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	static const char *const names[] = { "head.next", "head.prev", "a.next", "a.prev",
					     "b.next", "b.prev" };

	(void)w;
	if (off < 6 * sizeof(void *) && off % sizeof(void *) == 0)
		snprintf(buf, n, "%s", names[off / sizeof(void *)]);
	else if (off == offsetof(struct cl_world, x))
		snprintf(buf, n, "x");
}

D_SCENARIO(cl_scn, cl, "diag-callers",
	   "test only: list helpers called by a model",
	   "double-del", WEFT_KIND_LIST_CORRUPTION, 0, 2, 2,
	   WEFT_TEST_HOOKS(cl), .describe = cl_describe);

static bool is(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

int main(void)
{
	struct d_run run = d_dfs(&cl_scn, 0, 0, 0);   /* the serial run fails */
	size_t n;
	const struct weft_event *ev = weft_last_events(&n);
	char where[256];

	CHECK(run.kind == WEFT_KIND_LIST_CORRUPTION, "list-corruption, got %s",
	      weft_kind_name(run.kind));

	/* every helper event: the helper's site, the model's caller */
	unsigned calls_setup = 0, in_helpers = 0, moves = 0, dels = 0;
	for (size_t i = 0; i < n; i++) {
		const struct weft_event *e = &ev[i];
		if (!e->site)
			continue;
		bool helper = is(weft_site_basename(e->site), "kernel.h") &&
			      !strncmp(e->site->func, "weft_list_", 10);
		helper |= is(e->site->func, "__weft_list_add");
		if (!helper) {
			CHECK(!e->caller, "%s: a caller outside a helper", e->site->what);
			CHECK(!(e->flags & WEFT_EVF_CALL), "%s: flagged outside a helper",
			      e->site->what);
			continue;
		}
		in_helpers++;
		CHECK(e->caller != NULL, "%s in %s(): no caller", e->site->what, e->site->func);
		if (!e->caller)
			continue;
		CHECK(is(weft_caller_basename(e->caller), "test_callers.c"), "caller file %s",
		      e->caller->file);
		if (e->tid == 0xff) {
			CHECK(is(e->caller->func, "cl_setup"), "setup's caller %s", e->caller->func);
			if (is(e->caller->what, "list_add(nodes[i], &W->head)")) {
				CHECK(e->caller->line == add_line, "line %u, want %u", e->caller->line,
				      add_line);
				calls_setup += (e->flags & WEFT_EVF_CALL) != 0;
			}
		} else if (is(e->caller->what, "my_move(&W->b, &W->head)")) {
			/* the helpers my_move() calls: the outermost call names them */
			CHECK(e->caller->line == move_line, "line %u, want %u", e->caller->line,
			      move_line);
			moves += (e->flags & WEFT_EVF_CALL) != 0;
		} else {
			CHECK(is(e->caller->what, "list_del(&W->a)"), "caller %s", e->caller->what);
			CHECK(is(e->caller->func, "cl_thread") && e->caller->line == del_line,
			      "%s() line %u, want cl_thread() line %u", e->caller->func,
			      e->caller->line, del_line);
			CHECK(is(e->site->func, "weft_list_del"), "site function %s", e->site->func);
			dels += (e->flags & WEFT_EVF_CALL) != 0;
		}
	}
	CHECK(in_helpers > 10, "%u helper events", in_helpers);
	CHECK(calls_setup == 2, "two calls from one line are two calls: %u", calls_setup);
	CHECK(moves == 1, "my_move() is one call: %u", moves);
	CHECK(dels == 2, "two list_del() calls: %u", dels);

	/* the report names both sides' callers */
	const struct weft_report *rp = &run.r.report;
	CHECK(rp->here_caller && is(rp->here_caller->func, "cl_thread") &&
	      rp->here_caller->line == del_line, "here_caller");
	CHECK(rp->other_caller && is(rp->other_caller->what, "list_del(&W->a)"), "other_caller");
	CHECK(rp->here_since == rp->here.step, "here_since");
	weft_site_where(where, sizeof(where), rp->here.site, rp->here_caller);
	char want[128];
	snprintf(want, sizeof(want), "cl_thread() at test_callers.c:%u", del_line);
	CHECK(is(where, want), "where '%s', want '%s'", where, want);

	/* the text report and the diagram */
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	weft_report_print(f, &run.o, &run.r);
	fclose(f);
	snprintf(want, sizeof(want), "[list_del(&W->a)]  in cl_thread() at test_callers.c:%u",
		 del_line);
	CHECK(strstr(out, want) != NULL, "report 'here:' names the caller:\n%s", out);
	snprintf(want, sizeof(want), "in cl_thread test_callers.c:%u\n", del_line);
	CHECK(strstr(out, want) != NULL, "SUMMARY names the caller:\n%s", out);
	CHECK(!strstr(out, "kernel.h"), "no kernel.h in the report:\n%s", out);
	free(out);

	char *d = d_diagram(&run, false);
	if (getenv("DIAG_VERBOSE"))
		printf("%s\n%s\n", d, d_diagram(&run, true));
	snprintf(want, sizeof(want),
		 "__list_del_entry_valid() [list_del(&W->a)] in cl_thread() at test_callers.c:%u",
		 del_line);
	CHECK(strstr(d, want) != NULL, "side line names the caller:\n%s", d);
	CHECK(strstr(d, "list_del(&W->a): a.next") != NULL, "rows name the call:\n%s", d);
	/* T0's my_move(): one row in the default view (a call folded) */
	CHECK(strstr(d, "my_move(&W->b, &W->head): b, a, head") != NULL, "a folded call:\n%s", d);
	CHECK(!strstr(d, "kernel.h"), "no kernel.h in the diagram:\n%s", d);
	free(d);
	d = d_diagram(&run, true);
	CHECK(strstr(d, "my_move(&W->b, &W->head): b.next = &a") != NULL,
	      "--full: each access of the call:\n%s", d);
	free(d);
	return check_done();
}
