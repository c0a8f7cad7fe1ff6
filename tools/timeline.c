/*
 * timeline.c - Chrome trace JSON (the Trace Event Format that Perfetto and
 * chrome://tracing open: "X" complete events on one lane per fake CPU, "C"
 * counter events, "i" instant events, "M" metadata) and a self-contained
 * HTML page with an inline SVG timeline.
 *
 * Contexts: events sit on the lane of the CPU they ran on (interrupt
 * handlers, kworkers, spawned and migrating threads included), lanes are
 * named after every thread that ran there, and each CPU gets context
 * lanes (JSON) or bands (HTML) for its interrupt handlers and for the
 * stretches a thread ran with interrupts, preemption or bottom halves off.
 *
 * Time axis: one event = 10 trace microseconds, in trace order (several
 * events can share a step; steps stay in args). Deterministic output: no
 * clock or host value is written.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "timeline.h"

#define MAX_SPANS 256
#define MAX_COUNTERS 6
#define MAX_CTX_SPANS 512

/* Context spans: kinds, their lanes' names and their colours. */
enum { CTX_IRQ, CTX_IRQOFF, CTX_NOPREEMPT, CTX_BH, CTX__COUNT };
static const char *const ctx_lane[CTX__COUNT] = { "interrupts", "irqs off", "preemption off",
						  "BH off" };
static const char *const ctx_color[CTX__COUNT] = { "#ffe066", "#e63946", "#6c757d", "#7209b7" };

struct ctx_span {
	size_t from, to;     /* event indices */
	unsigned cpu, tid, kind;
};

/*
 * An interrupt handler from its entry to its return; for each thread, each
 * run of its events with interrupts (preemption, bottom halves) off. A
 * span still open at the end reaches the last event.
 */
static size_t ctx_spans(const struct weft_trace_view *v, struct ctx_span *sp, size_t cap)
{
	static const unsigned bit[CTX__COUNT] = { 0, WEFT_EVF_IRQOFF | WEFT_EVF_HARDIRQ,
						  WEFT_EVF_NOPREEMPT, WEFT_EVF_SOFTIRQ };
	size_t n = 0, open[WEFT_EXEC_MAX_THREADS][CTX__COUNT], last[WEFT_EXEC_MAX_THREADS];

	for (unsigned t = 0; t < WEFT_EXEC_MAX_THREADS; t++) {
		last[t] = SIZE_MAX;
		for (unsigned k = 0; k < CTX__COUNT; k++)
			open[t][k] = SIZE_MAX;
	}
	for (size_t i = 0; i <= v->n; i++) {
		const struct weft_event *e = i < v->n ? &v->ev[i] : NULL;
		for (unsigned t = 0; t < WEFT_EXEC_MAX_THREADS; t++) {
			if (e && e->tid != t)
				continue;
			for (unsigned k = 0; k < CTX__COUNT; k++) {
				/* close: the handler returned before e, or e runs
				 * without the masking; open: e enters or masks */
				bool close, start;
				if (k == CTX_IRQ) {
					close = !e || (last[t] != SIZE_MAX &&
						       v->ev[last[t]].ev == WEFT_EV_IRQ_EXIT);
					start = e && e->ev == WEFT_EV_IRQ_ENTER;
				} else {
					/* a hard handler runs masked: its span says so */
					close = !e || !(e->flags & bit[k]) ||
						(k == CTX_IRQOFF && t < v->nthreads && v->irq[t] >= 0);
					start = !close;
				}
				if (close && open[t][k] != SIZE_MAX) {
					if (n < cap) {
						sp[n].from = open[t][k];
						sp[n].to = last[t];
						sp[n].cpu = v->ev[open[t][k]].cpu;
						sp[n].tid = t;
						sp[n].kind = k;
						n++;
					}
					open[t][k] = SIZE_MAX;
				}
				if (start && open[t][k] == SIZE_MAX)
					open[t][k] = i;
			}
			if (e)
				last[t] = i;
		}
	}
	return n;
}

/* "CPU0: T0, IRQ dev_irq": every thread that ran on CPU c. */
static void lane_title(const struct weft_trace_view *v, unsigned c, char *buf, size_t n)
{
	uint64_t on = 0;
	size_t k = (size_t)snprintf(buf, n, "CPU%u", c);

	for (unsigned t = 0; t < v->sc->nr_threads; t++)
		if (weft_cpu_of(v->sc, t) == c)
			on |= 1ull << t;
	for (size_t i = 0; i < v->n; i++)
		if (v->ev[i].tid != 0xff && v->ev[i].cpu == c && v->ev[i].tid < 64)
			on |= 1ull << v->ev[i].tid;
	for (unsigned t = 0; t < 32 && k + 40 < n; t++)
		if (on >> t & 1)
			k += (size_t)snprintf(buf + k, n - k, "%s %s", k > 4 ? "," : ":",
					      weft_trace_thread(v, t));
}

struct span {
	size_t from, to;     /* event indices */
	unsigned cpu, tid;
	uint32_t loc;
};

/* Lock hold spans: LOCK (or a successful TRYLOCK) to the UNLOCK by the
 * same thread of the same lock; still held at the end: to the last event. */
static size_t lock_spans(const struct weft_trace_view *v, struct span *sp, size_t cap)
{
	size_t n = 0;
	struct span open[64];
	size_t nopen = 0;

	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		if (e->tid == 0xff)
			continue;
		if ((e->ev == WEFT_EV_LOCK || (e->ev == WEFT_EV_TRYLOCK && e->old)) && nopen < 64) {
			open[nopen].from = i;
			open[nopen].cpu = e->cpu;
			open[nopen].tid = e->tid;
			open[nopen].loc = e->loc;
			nopen++;
		} else if (e->ev == WEFT_EV_UNLOCK) {
			for (size_t k = nopen; k-- > 0;)
				if (open[k].tid == e->tid && open[k].loc == e->loc) {
					if (n < cap) {
						sp[n] = open[k];
						sp[n].to = i;
						n++;
					}
					open[k] = open[--nopen];
					break;
				}
		}
	}
	for (size_t k = 0; k < nopen && n < cap; k++) {
		sp[n] = open[k];
		sp[n].to = v->n ? v->n - 1 : 0;
		n++;
	}
	return n;
}

/* Locations of the reported object that are written: the counter tracks. */
static size_t counter_locs(const struct weft_trace_view *v, uint32_t *locs, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < v->n && n < cap; i++) {
		const struct weft_event *e = &v->ev[i];
		if (e->loc == WEFT_NO_LOC || (e->ev != WEFT_EV_WRITE && e->ev != WEFT_EV_RMW))
			continue;
		if (v->prefix[0] && !weft_trace_involved(v, i))
			continue;
		if ((e->val >> 63) || (e->old >> 63))
			continue;   /* pointers make no counter */
		size_t k;
		for (k = 0; k < n && locs[k] != e->loc; k++)
			;
		if (k == n)
			locs[n++] = e->loc;
	}
	return n;
}

static const char *vname(const struct weft_trace_view *v)
{
	return v->sc->nr_variants ? v->sc->variants[v->variant].name : "";
}

void weft_timeline_chrome_json(FILE *f, const struct weft_trace_view *v)
{
	struct span *sp = calloc(MAX_SPANS, sizeof(*sp));
	uint32_t locs[MAX_COUNTERS];
	size_t nsp = sp ? lock_spans(v, sp, MAX_SPANS) : 0;
	size_t nloc = counter_locs(v, locs, MAX_COUNTERS);
	char text[256], name[96], title[160];
	const struct weft_scenario *sc = v->sc;

	fprintf(f, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"scenario\": ");
	cli_json_str(f, sc->name);
	fprintf(f, ", \"variant\": ");
	cli_json_str(f, vname(v));
	fprintf(f, ", \"verdict\": \"%s\", \"kind\": ",
		v->r->kind == WEFT_KIND_NONE ? "clean" : "bug");
	cli_json_str(f, v->r->kind == WEFT_KIND_NONE ? "none" : weft_kind_name(v->r->kind));
	fprintf(f, ", \"trace_hash\": \"%016" PRIx64 "\", \"lock\": \"%s\"},\n\"traceEvents\": [\n",
		v->r->trace_hash, v->lock == WEFT_LOCK_TICKET ? "ticket" : "tas");
	snprintf(title, sizeof(title), "weft %s:%s", sc->name, vname(v));
	fprintf(f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": ");
	cli_json_str(f, title);
	fprintf(f, "}}");
	struct ctx_span *cs = calloc(MAX_CTX_SPANS, sizeof(*cs));
	size_t ncs = cs ? ctx_spans(v, cs, MAX_CTX_SPANS) : 0;
	for (unsigned c = 0; c < sc->nr_cpus; c++) {
		lane_title(v, c, title, sizeof(title));
		fprintf(f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, "
			   "\"args\": {\"name\": ", c);
		cli_json_str(f, title);
		fprintf(f, "}}");
		fprintf(f, ",\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, "
			   "\"tid\": %u, \"args\": {\"sort_index\": %u}}", c, c * 10);
		/* its context lanes (tid 100 * (kind + 1) + CPU), those in use */
		for (unsigned k = 0; k < CTX__COUNT; k++) {
			bool used = false;
			for (size_t j = 0; j < ncs && !used; j++)
				used = cs[j].cpu == c && cs[j].kind == k;
			if (!used)
				continue;
			fprintf(f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, "
				   "\"tid\": %u, \"args\": {\"name\": \"CPU%u %s\"}}",
				100 * (k + 1) + c, c, ctx_lane[k]);
			fprintf(f, ",\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, "
				   "\"tid\": %u, \"args\": {\"sort_index\": %u}}", 100 * (k + 1) + c,
				c * 10 + k + 1);
		}
	}
	if (sc->nr_cpus)
		fprintf(f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, "
			   "\"args\": {\"name\": \"setup/audit\"}}", sc->nr_cpus);
	for (size_t k = 0; k < ncs; k++) {
		const struct ctx_span *c = &cs[k];
		if (c->kind == CTX_IRQ) {
			int t = weft_trace_interrupted(v, c->from);
			snprintf(title, sizeof(title), "%s%s%s", weft_trace_thread(v, c->tid),
				 t >= 0 ? " interrupts " : " on an idle CPU",
				 t >= 0 ? weft_trace_thread(v, (unsigned)t) : "");
		} else {
			snprintf(title, sizeof(title), "%s: %s", weft_trace_thread(v, c->tid),
				 ctx_lane[c->kind]);
		}
		fprintf(f, ",\n{\"name\": ");
		cli_json_str(f, title);
		fprintf(f, ", \"cat\": \"context\", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, "
			   "\"ts\": %zu, \"dur\": %zu, \"args\": {\"from_step\": %" PRIu32
			   ", \"to_step\": %" PRIu32 "}}",
			100 * (c->kind + 1) + c->cpu, c->from * 10, (c->to - c->from) * 10 + 9,
			v->ev[c->from].step, v->ev[c->to].step);
	}
	free(cs);
	for (size_t k = 0; k < nsp; k++) {
		weft_describe_loc(sc, sp[k].loc, name, sizeof(name));
		snprintf(title, sizeof(title), "T%u holds %s", sp[k].tid, name);
		fprintf(f, ",\n{\"name\": ");
		cli_json_str(f, title);
		fprintf(f, ", \"cat\": \"lock\", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, \"ts\": %zu, "
			   "\"dur\": %zu, \"args\": {\"from_step\": %" PRIu32 ", \"to_step\": %" PRIu32
			   "}}",
			sp[k].cpu, sp[k].from * 10, (sp[k].to - sp[k].from) * 10 + 9,
			v->ev[sp[k].from].step, v->ev[sp[k].to].step);
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		unsigned lane = e->cpu == 0xff ? sc->nr_cpus : e->cpu;
		weft_trace_event_text(v, i, text, sizeof(text));
		fprintf(f, ",\n{\"name\": ");
		cli_json_str(f, e->caller && !(e->caller->flags & WEFT_CALLER_KIT) ? e->caller->what : e->site ? e->site->what : weft_ev_name(e->ev));
		fprintf(f, ", \"cat\": \"%s%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, \"ts\": %zu, "
			   "\"dur\": 8, \"args\": {\"step\": %" PRIu32 ", \"thread\": ",
			weft_ev_name(e->ev), weft_trace_involved(v, i) ? ",involved" : "", lane, i * 10,
			e->step);
		if (e->tid == 0xff)
			fprintf(f, "\"%s\"", weft_trace_host_phase(v, i));
		else
			cli_json_str(f, weft_trace_thread(v, e->tid));
		fprintf(f, ", \"op\": ");
		cli_json_str(f, text);
		if (e->site) {
			weft_trace_where(v, i, title, sizeof(title));
			fprintf(f, ", \"site\": ");
			cli_json_str(f, title);
		}
		if (e->tid != 0xff && (e->flags & (WEFT_EVF_IRQOFF | WEFT_EVF_NOPREEMPT |
						   WEFT_EVF_HARDIRQ | WEFT_EVF_SOFTIRQ))) {
			char tag[4];
			weft_trace_ctx_tag(v, i, tag);
			fprintf(f, ", \"context\": ");
			cli_json_str(f, tag);
		}
		fprintf(f, "%s}}", e->flags & WEFT_EVF_PREEMPTED ? ", \"preempted\": true" : "");
		if (e->flags & WEFT_EVF_PREEMPTED)
			fprintf(f, ",\n{\"name\": \"preemption\", \"ph\": \"i\", \"s\": \"t\", \"pid\": 1, "
				   "\"tid\": %u, \"ts\": %zu}", lane, i * 10);
		if (i == v->fail_idx || i == v->other_idx) {
			fprintf(f, ",\n{\"name\": ");
			cli_json_str(f, i == v->fail_idx ? weft_kind_name(v->r->kind)
							 : "earlier conflicting access");
			fprintf(f, ", \"ph\": \"i\", \"s\": \"%s\", \"pid\": 1, \"tid\": %u, \"ts\": %zu}",
				i == v->fail_idx ? "g" : "t", lane, i * 10);
		}
		for (size_t k = 0; k < nloc; k++) {
			if (e->loc != locs[k] || (e->ev != WEFT_EV_WRITE && e->ev != WEFT_EV_RMW &&
						  e->ev != WEFT_EV_READ))
				continue;
			if ((e->val >> 63))
				continue;
			weft_describe_loc(sc, locs[k], name, sizeof(name));
			fprintf(f, ",\n{\"name\": ");
			cli_json_str(f, name);
			fprintf(f, ", \"ph\": \"C\", \"pid\": 1, \"ts\": %zu, \"args\": {\"value\": %" PRId64
				   "}}",
				i * 10, (int64_t)(e->val >= 0x80000000ull && e->val <= 0xffffffffull
						      ? (int64_t)(int32_t)(uint32_t)e->val
						      : (int64_t)e->val));
		}
	}
	fprintf(f, "\n]}\n");
	free(sp);
}

/* ---------------------------------------------------------------- HTML */

static void html_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static const char *ev_color(const struct weft_event *e)
{
	switch (e->ev) {
	case WEFT_EV_READ: return "#8ecae6";
	case WEFT_EV_WRITE:
	case WEFT_EV_RMW: return "#219ebc";
	case WEFT_EV_LOCK:
	case WEFT_EV_TRYLOCK:
	case WEFT_EV_UNLOCK: return "#ffb703";
	case WEFT_EV_BLOCK:
	case WEFT_EV_WAIT: return "#fb8500";
	case WEFT_EV_WAKE: return "#ffb703";
	case WEFT_EV_FREE: return "#9d0208";
	case WEFT_EV_ALLOC: return "#2a9d8f";
	case WEFT_EV_NOTE: return e->flags & WEFT_EVF_FAILED ? "#e63946" : "#adb5bd";
	}
	return "#ced4da";
}

static int64_t as_signed(uint64_t x)
{
	return x >= 0x80000000ull && x <= 0xffffffffull ? (int64_t)(int32_t)(uint32_t)x
							: (int64_t)x;
}

void weft_timeline_html(FILE *f, const struct weft_trace_view *v)
{
	const struct weft_scenario *sc = v->sc;
	struct span *sp = calloc(MAX_SPANS, sizeof(*sp));
	uint32_t locs[MAX_COUNTERS];
	size_t nsp = sp ? lock_spans(v, sp, MAX_SPANS) : 0;
	size_t nloc = counter_locs(v, locs, MAX_COUNTERS);
	unsigned lanes = sc->nr_cpus + 1;   /* + audit lane */
	double px = v->n ? 1100.0 / (double)v->n : 20;
	char text[256], name[96];

	if (px < 6)
		px = 6;
	if (px > 28)
		px = 28;
	const int left = 110, lane_h = 44, ctr_h = 56;
	int width = left + (int)(px * (double)v->n) + 40;
	int height = 30 + (int)lanes * lane_h + (int)nloc * ctr_h + 20;

	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>weft ");
	html_str(f, sc->name);
	fprintf(f, ":");
	html_str(f, vname(v));
	fprintf(f, "</title>\n<style>\nbody{font-family:sans-serif;margin:1.5em;color:#222}\n"
		   "pre{background:#f6f8fa;padding:1em;overflow-x:auto;font-size:13px}\n"
		   "table{border-collapse:collapse;font-size:12px;font-family:monospace}\n"
		   "td,th{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left}\n"
		   "tr.inv{background:#fffbe6}tr.fail{background:#ffd6d6}tr.pre td:first-child{"
		   "font-weight:bold}\n.svgwrap{overflow-x:auto;border:1px solid #ddd}\n"
		   "</style></head><body>\n<h1>");
	if (v->r->kind != WEFT_KIND_NONE) {
		html_str(f, weft_kind_name(v->r->kind));
		if (v->r->report.object[0]) {
			fprintf(f, " on ");
			html_str(f, v->r->report.object);
		}
	} else {
		fprintf(f, "clean execution");
	}
	fprintf(f, " in ");
	html_str(f, sc->name);
	fprintf(f, ":");
	html_str(f, vname(v));
	fprintf(f, "</h1>\n<p>");
	html_str(f, v->r->report.msg);
	fprintf(f, "</p>\n<p>lock model %s, %u CPUs, %" PRIu32 " step%s, %" PRIu32
		   " preemption%s, %zu event%s, trace hash <code>%016" PRIx64 "</code></p>\n",
		v->lock == WEFT_LOCK_TICKET ? "ticket" : "tas", sc->nr_cpus, v->r->steps,
		v->r->steps == 1 ? "" : "s", v->r->preemptions, v->r->preemptions == 1 ? "" : "s",
		v->n, v->n == 1 ? "" : "s", v->r->trace_hash);

	fprintf(f, "<h2>Timeline</h2>\n<div class=\"svgwrap\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "width=\"%d\" height=\"%d\" font-family=\"monospace\" font-size=\"11\">\n",
		width, height);
	for (unsigned c = 0; c < lanes; c++) {
		int y = 30 + (int)c * lane_h;
		fprintf(f, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", y - 4,
			width, lane_h, c % 2 ? "#fafafa" : "#f1f3f5");
		if (c < sc->nr_cpus) {
			char title[160];
			lane_title(v, c, title, sizeof(title));
			fprintf(f, "<text x=\"6\" y=\"%d\">CPU%u<title>", y + 16, c);
			html_str(f, title);
			fprintf(f, "</title></text>\n<text x=\"6\" y=\"%d\" font-size=\"9\">", y + 28);
			const char *colon = strchr(title, ':');
			html_str(f, colon ? colon + 2 : "");
			fprintf(f, "</text>\n");
		} else {
			fprintf(f, "<text x=\"6\" y=\"%d\">setup/audit</text>\n", y + 16);
		}
	}
	/* contexts: a handler's stretch behind its boxes, masked stretches as
	 * thin bands under the lane */
	struct ctx_span *cs = calloc(MAX_CTX_SPANS, sizeof(*cs));
	size_t ncs = cs ? ctx_spans(v, cs, MAX_CTX_SPANS) : 0;
	for (size_t k = 0; k < ncs; k++) {
		const struct ctx_span *c = &cs[k];
		int y = 30 + (int)c->cpu * lane_h;
		double x = left + px * (double)c->from, wd = px * (double)(c->to - c->from + 1);
		if (c->kind == CTX_IRQ) {
			int t = weft_trace_interrupted(v, c->from);
			fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"28\" fill=\"%s\" "
				   "opacity=\"0.45\" stroke=\"#e09f3e\"><title>", x - 1, y - 3, wd,
				ctx_color[c->kind]);
			html_str(f, weft_trace_thread(v, c->tid));
			fprintf(f, "%s", t >= 0 ? " interrupts " : " on an idle CPU");
			if (t >= 0)
				html_str(f, weft_trace_thread(v, (unsigned)t));
			fprintf(f, " (steps %" PRIu32 "-%" PRIu32 ")</title></rect>\n",
				v->ev[c->from].step, v->ev[c->to].step);
			continue;
		}
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"3\" fill=\"%s\">"
			   "<title>", x, y + 34 + 3 * (int)(c->kind - 1), wd, ctx_color[c->kind]);
		html_str(f, weft_trace_thread(v, c->tid));
		fprintf(f, ": %s (steps %" PRIu32 "-%" PRIu32 ")</title></rect>\n", ctx_lane[c->kind],
			v->ev[c->from].step, v->ev[c->to].step);
	}
	free(cs);
	for (size_t k = 0; k < nsp; k++) {
		int y = 30 + (int)sp[k].cpu * lane_h + 26;
		weft_describe_loc(sc, sp[k].loc, name, sizeof(name));
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"7\" fill=\"#ffb703\" "
			   "opacity=\"0.6\"><title>T%u holds ",
			left + px * (double)sp[k].from, y, px * (double)(sp[k].to - sp[k].from + 1),
			sp[k].tid);
		html_str(f, name);
		fprintf(f, " (steps %" PRIu32 "-%" PRIu32 ")</title></rect>\n", v->ev[sp[k].from].step,
			v->ev[sp[k].to].step);
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		unsigned lane = e->cpu == 0xff ? sc->nr_cpus : e->cpu;
		int y = 30 + (int)lane * lane_h;
		double x = left + px * (double)i;
		bool inv = weft_trace_involved(v, i);
		weft_trace_event_text(v, i, text, sizeof(text));
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"22\" fill=\"%s\" "
			   "opacity=\"%s\"%s><title>step %" PRIu32 " %s",
			x, y, px - 1, ev_color(e), inv ? "1" : "0.35",
			i == v->fail_idx ? " stroke=\"#000\" stroke-width=\"2\"" :
			i == v->other_idx ? " stroke=\"#e63946\" stroke-width=\"2\"" : "",
			e->step, e->tid == 0xff ? weft_trace_host_phase(v, i) : "");
		if (e->tid != 0xff)
			html_str(f, weft_trace_thread(v, e->tid));
		fprintf(f, ": ");
		html_str(f, text);
		fprintf(f, "</title></rect>\n");
		if (e->flags & WEFT_EVF_PREEMPTED)
			fprintf(f, "<path d=\"M%.1f %d l4 -7 l-8 0 z\" fill=\"#000\"><title>preemption"
				   "</title></path>\n", x + px / 2 - 0.5, y - 1);
	}
	if (v->fail_idx < v->n) {
		double x = left + px * (double)v->fail_idx + px / 2;
		fprintf(f, "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e63946\" "
			   "stroke-dasharray=\"4 3\"/>\n<text x=\"%.1f\" y=\"16\" fill=\"#e63946\">",
			x, x, height - 10, x + 4);
		html_str(f, weft_kind_name(v->r->kind));
		fprintf(f, "</text>\n");
	}
	/* counter tracks: a step plot of each written location of the object */
	for (size_t k = 0; k < nloc; k++) {
		int y0 = 30 + (int)lanes * lane_h + (int)k * ctr_h;
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (size_t i = 0; i < v->n; i++) {
			const struct weft_event *e = &v->ev[i];
			if (e->loc != locs[k] || (e->val >> 63) ||
			    (e->ev != WEFT_EV_WRITE && e->ev != WEFT_EV_RMW && e->ev != WEFT_EV_READ))
				continue;
			int64_t a = as_signed(e->val), b = e->ev == WEFT_EV_READ ? a : as_signed(e->old);
			lo = a < lo ? a : lo;
			lo = b < lo ? b : lo;
			hi = a > hi ? a : hi;
			hi = b > hi ? b : hi;
		}
		if (lo > hi)
			continue;
		double span = hi > lo ? (double)(hi - lo) : 1;
		weft_describe_loc(sc, locs[k], name, sizeof(name));
		fprintf(f, "<text x=\"6\" y=\"%d\">", y0 + 14);
		html_str(f, name);
		fprintf(f, "</text>\n<polyline fill=\"none\" stroke=\"#6a4c93\" stroke-width=\"2\" "
			   "points=\"");
		double lastx = left, lasty = 0;
		bool have = false;
		for (size_t i = 0; i < v->n; i++) {
			const struct weft_event *e = &v->ev[i];
			if (e->loc != locs[k] || (e->val >> 63) ||
			    (e->ev != WEFT_EV_WRITE && e->ev != WEFT_EV_RMW && e->ev != WEFT_EV_READ))
				continue;
			double x = left + px * (double)i;
			double yo = y0 + 40 - 32 * (double)(as_signed(e->ev == WEFT_EV_READ ? e->val : e->old) - lo) / span;
			double yn = y0 + 40 - 32 * (double)(as_signed(e->val) - lo) / span;
			if (!have)
				fprintf(f, "%.1f,%.1f ", (double)left, yo);
			else
				fprintf(f, "%.1f,%.1f ", x, lasty);
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x, yo, x + px - 1, yn);
			lastx = x + px - 1;
			lasty = yn;
			have = true;
		}
		if (have)
			fprintf(f, "%.1f,%.1f", (double)width - 30, lasty);
		(void)lastx;
		fprintf(f, "\"/>\n");
		for (size_t i = 0; i < v->n; i++) {
			const struct weft_event *e = &v->ev[i];
			if (e->loc != locs[k] || (e->val >> 63) ||
			    (e->ev != WEFT_EV_WRITE && e->ev != WEFT_EV_RMW))
				continue;
			double yn = y0 + 40 - 32 * (double)(as_signed(e->val) - lo) / span;
			weft_trace_value(v, e, e->val, name, sizeof(name));
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#6a4c93\">", left + px * (double)i,
				yn - 3);
			html_str(f, name);
			fprintf(f, "</text>\n");
		}
	}
	fprintf(f, "</svg></div>\n<p>Boxes: operations (blue: writes and read-modify-writes, light "
		   "blue: reads, yellow: locks, orange: blocked, dark red: frees, red: the failure); "
		   "yellow bars: lock holds; triangles: preemptions; pale boxes: events the failure "
		   "does not depend on; shaded stretches: interrupt handlers; thin bands under a "
		   "lane: interrupts off (red), preemption off (grey), bottom halves off "
		   "(purple).</p>\n");

	fprintf(f, "<h2>Race diagram</h2>\n<pre>");
	char *diag = NULL;
	size_t dlen = 0;
	FILE *m = open_memstream(&diag, &dlen);
	if (m) {
		weft_race_diagram(m, v, false);
		fclose(m);
		html_str(f, diag);
		free(diag);
	}
	fprintf(f, "</pre>\n<h2>Every event</h2>\n<table><tr><th>step</th><th>thread</th>"
		   "<th>CPU</th><th>context</th><th>operation</th><th>site</th></tr>\n");
	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		weft_trace_event_text(v, i, text, sizeof(text));
		fprintf(f, "<tr class=\"%s%s\"><td>%" PRIu32 "%s</td><td>",
			i == v->fail_idx || i == v->other_idx ? "fail" :
			weft_trace_involved(v, i) ? "inv" : "",
			e->flags & WEFT_EVF_PREEMPTED ? " pre" : "", e->step,
			e->flags & WEFT_EVF_PREEMPTED ? "*" : "");
		char tag[4] = "";
		if (e->tid == 0xff) {
			fprintf(f, "%s</td><td>-", weft_trace_host_phase(v, i));
		} else {
			html_str(f, weft_trace_thread(v, e->tid));
			fprintf(f, "</td><td>%u", e->cpu);
			weft_trace_ctx_tag(v, i, tag);
		}
		fprintf(f, "</td><td>%s</td><td>", tag);
		html_str(f, text);
		fprintf(f, "</td><td>");
		if (e->site) {
			char where[256];
			weft_trace_where(v, i, where, sizeof(where));
			html_str(f, where);
		}
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n</body></html>\n");
	free(sp);
}
