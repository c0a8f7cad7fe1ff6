/*
 * diag_test.h - what the diagram tests share: run a scenario variant
 * under dfs with recording until the first report, draw its race diagram
 * (default or --full view) into a string, and look for rows in it.
 */
#ifndef WEFT_DIAG_TEST_H
#define WEFT_DIAG_TEST_H

#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "check.h"
#include "race_diagram.h"
#include "timeline.h"

struct d_run {
	enum weft_kind kind;
	struct weft_exec_result r;
	struct weft_run_opts o;
};

/* The scenario sym of a diagram test: one bug, variant ("test only", of
 * kind, found within min preemptions; prefix##_variants), over struct
 * prefix##_world, one body a thread ("run"); its hooks and further fields
 * after (WEFT_TEST_HOOKS(prefix) names the variants too). */
static const char *const d_one_op[] __attribute__((unused)) = { "run" };
#define D_SCENARIO(sym, prefix, name_, summary_, variant, kind, min, cpus, threads, ...) \
	static const struct weft_variant prefix##_variants[] = {                          \
		{ variant, NULL, true, "test only", "tests/diagrams", kind, min, 0 },     \
	};                                                                                 \
	static const struct weft_scenario sym = {                                          \
		.name = name_, .summary = summary_, .source = "tests/diagrams",            \
		.nr_cpus = cpus, .nr_threads = threads,                                    \
		.world_size = sizeof(struct prefix##_world), .nr_opcodes = 1,              \
		.opnames = d_one_op, .max_ops = 1, .decision_hint = 64, __VA_ARGS__        \
	}

/* dfs at bound (record on) on workload wl (NULL: the default) until a
 * report; kind NONE if none. */
static inline struct d_run d_dfs_on(const struct weft_scenario *sc, unsigned variant,
				    unsigned bound, unsigned checks, const uint8_t *wl,
				    size_t wl_len)
{
	static struct weft_dfs d;
	struct d_run out;

	memset(&out, 0, sizeof(out));
	out.o.sc = sc;
	out.o.variant = variant;
	out.o.lock = sc->default_lock;
	out.o.record = true;
	out.o.checks = checks;
	weft_dfs_init(&d, sc, bound, wl, wl_len);
	for (unsigned n = 0; n < 100000 && weft_execute(&out.o, &weft_strategy_dfs, &d, &out.r) == 0;
	     n++)
		if (out.r.kind != WEFT_KIND_NONE) {
			out.kind = out.r.kind;
			break;
		}
	return out;
}

static inline struct d_run d_dfs(const struct weft_scenario *sc, unsigned variant, unsigned bound,
				 unsigned checks)
{
	return d_dfs_on(sc, variant, bound, checks, NULL, 0);
}

/* What draw(f, view, how) writes about the last execution, in a string
 * (the caller frees it). */
static inline char *d_render(const struct d_run *run,
			     void (*draw)(FILE *f, const struct weft_trace_view *v, bool how),
			     bool how)
{
	struct weft_trace_view v = { .sc = run->o.sc, .variant = run->o.variant,
				     .lock = run->o.lock, .r = &run->r };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	v.ev = weft_last_events(&v.n);
	weft_trace_view_init(&v);
	draw(f, &v, how);
	weft_trace_view_fini(&v);
	fclose(f);
	return out;
}

static inline void d_draw_diagram(FILE *f, const struct weft_trace_view *v, bool full)
{
	weft_race_diagram(f, v, full);
}

static inline void d_draw_timeline(FILE *f, const struct weft_trace_view *v, bool html)
{
	if (html)
		weft_timeline_html(f, v);
	else
		weft_timeline_chrome_json(f, v);
}

/* The race diagram of the last execution (the caller frees it). */
static inline char *d_diagram(const struct d_run *run, bool full)
{
	return d_render(run, d_draw_diagram, full);
}

/* A timeline of the last execution (html or Chrome JSON) in a string. */
static inline char *d_timeline(const struct d_run *run, bool html)
{
	return d_render(run, d_draw_timeline, html);
}

/* Does some line of text contain every one of the words (in order)? */
static inline bool d_row(const char *text, const char *a, const char *b)
{
	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), l);
		const char *p = strstr(line, a);
		if (p && (!b || strstr(p + strlen(a), b)))
			return true;
		l = e ? e + 1 : NULL;
	}
	return false;
}

/* The view of the last execution (weft_trace_view_fini() it). */
static inline void d_view(const struct d_run *run, struct weft_trace_view *v)
{
	memset(v, 0, sizeof(*v));
	v->sc = run->o.sc;
	v->variant = run->o.variant;
	v->lock = run->o.lock;
	v->r = &run->r;
	v->ev = weft_last_events(&v->n);
	weft_trace_view_init(v);
}

/* The first event of thread tid (0xff: any) whose text (as the diagram
 * writes it, unwrapped) contains a and then b (b may be NULL); -1 if
 * none. */
static inline long d_find(const struct weft_trace_view *v, unsigned tid, const char *a,
			  const char *b)
{
	char text[512];

	for (size_t i = 0; i < v->n; i++) {
		if (tid != 0xff && v->ev[i].tid != tid)
			continue;
		weft_trace_event_text(v, i, text, sizeof(text));
		const char *p = strstr(text, a);
		if (p && (!b || strstr(p + strlen(a), b)))
			return (long)i;
	}
	return -1;
}

/* Does an event of thread tid (0xff: any) of the run's last execution
 * contain a in its text (as the diagram writes it, unwrapped)? */
static inline bool d_text_has(const struct d_run *run, unsigned tid, const char *a)
{
	struct weft_trace_view v;
	long i;

	d_view(run, &v);
	i = d_find(&v, tid, a, NULL);
	weft_trace_view_fini(&v);
	return i >= 0;
}

/* Such an event exists and the default view keeps it. */
static inline bool d_kept(const struct weft_trace_view *v, unsigned tid, const char *a,
			  const char *b)
{
	long i = d_find(v, tid, a, b);

	return i >= 0 && weft_trace_involved(v, (size_t)i);
}

/* The index of the first recorded event of thread tid at a site whose
 * text starts with what, or -1. */
static inline long d_event(unsigned tid, const char *what)
{
	size_t n;
	const struct weft_event *ev = weft_last_events(&n);

	for (size_t i = 0; i < n; i++)
		if (ev[i].tid == tid && ev[i].site && !strncmp(ev[i].site->what, what, strlen(what)))
			return (long)i;
	return -1;
}

#endif
