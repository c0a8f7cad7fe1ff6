/*
 * race_weak.c - the stale reads of a weak-memory execution and the
 * barrier that would have forbidden each (race_weak.h).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "race_weak.h"

static bool is_store(const struct weft_event *e)
{
	return e->ev == WEFT_EV_WRITE || e->ev == WEFT_EV_RMW;
}

static bool is_load(const struct weft_event *e)
{
	return e->ev == WEFT_EV_READ || e->ev == WEFT_EV_RMW;
}

/* The value a load event read (a read-modify-write's is its old). */
static uint64_t read_value(const struct weft_event *e)
{
	return e->ev == WEFT_EV_RMW ? e->old : e->val;
}

/* Where store j became visible: its flush (a write event followed by a
 * flush of the same thread, site, location and value), else itself. */
static size_t visible_at(const struct weft_trace_view *v, size_t j)
{
	const struct weft_event *w = &v->ev[j];

	if (w->ev != WEFT_EV_WRITE)
		return j;
	for (size_t k = j + 1; k < v->n; k++) {
		const struct weft_event *f = &v->ev[k];
		if (f->ev == WEFT_EV_FLUSH && f->tid == w->tid && f->site == w->site &&
		    f->loc == w->loc && f->val == w->val)
			return k;
	}
	return j;   /* written at once */
}

/* Was store j still in its buffer at event i (j < i)? */
static bool buffered_at(const struct weft_trace_view *v, size_t j, size_t i)
{
	size_t f = visible_at(v, j);

	return f != j && f > i;
}

/* The barrier for a store j that was still buffered when read i ran. */
static void fix_buffered(const struct weft_trace_view *v, size_t j, size_t i,
			 struct weft_stale *s)
{
	const struct weft_event *w = &v->ev[j], *r = &v->ev[i];

	/* a later store of the same thread, visible before the read and read
	 * by the reader first: the stores left the buffer out of order */
	for (size_t k = j + 1; k < i; k++) {
		const struct weft_event *w2 = &v->ev[k];
		if (w2->tid != w->tid || !is_store(w2) || w2->loc == w->loc)
			continue;
		size_t vis = visible_at(v, k);
		if (vis > i)
			continue;
		for (size_t m = vis; m < i; m++)
			if (v->ev[m].tid == r->tid && is_load(&v->ev[m]) && v->ev[m].loc == w2->loc &&
			    read_value(&v->ev[m]) == w2->val) {
				s->fix = WEFT_FIX_WMB;
				s->from = k;
				return;
			}
	}
	/* else store buffering: the storing CPU's next load ran before it */
	s->fix = WEFT_FIX_MB_WRITER;
	s->from = SIZE_MAX;
	for (size_t k = j + 1; k < v->n; k++)
		if (v->ev[k].tid == w->tid && v->ev[k].ev == WEFT_EV_READ) {
			s->from = k;
			break;
		}
}

/* The write that put value x at loc last before event i (a store already
 * visible there), or SIZE_MAX. */
static size_t writer_of(const struct weft_trace_view *v, uint32_t loc, uint64_t x, size_t i)
{
	size_t best = SIZE_MAX, best_vis = 0;

	for (size_t j = 0; j < i; j++) {
		const struct weft_event *e = &v->ev[j];
		if (!is_store(e) || e->loc != loc || e->val != x)
			continue;
		size_t vis = visible_at(v, j);
		if (vis < i && (best == SIZE_MAX || vis >= best_vis)) {
			best = j;
			best_vis = vis;
		}
	}
	return best;
}

size_t weft_weak_stale_reads(const struct weft_trace_view *v, struct weft_stale *out,
			     size_t max)
{
	size_t n = 0;
	bool weak = false;

	for (size_t i = 0; i < v->n && !weak; i++)
		weak = v->ev[i].ev == WEFT_EV_FLUSH ||
		       (v->ev[i].ev == WEFT_EV_READ && v->ev[i].old != v->ev[i].val);
	if (!weak)
		return 0;
	for (size_t i = 0; i < v->n && n < max; i++) {
		const struct weft_event *r = &v->ev[i];
		if (r->ev != WEFT_EV_READ || r->loc == WEFT_NO_LOC || r->tid == 0xff)
			continue;
		struct weft_stale s = { .read = i, .store = SIZE_MAX, .visible = SIZE_MAX,
					.from = SIZE_MAX };
		if (r->old != r->val) {
			/* an older version: the store of the newest one was visible */
			size_t j = writer_of(v, r->loc, r->old, i);
			if (j == SIZE_MAX)
				continue;
			s.store = j;
			s.visible = visible_at(v, j);
			s.fix = WEFT_FIX_MB_READER;
			/* an earlier read of the reader that saw a store made visible
			 * after this one: smp_rmb() between them */
			for (size_t k = i; k-- > 0;) {
				const struct weft_event *e = &v->ev[k];
				if (e->tid != r->tid || e->ev != WEFT_EV_READ || e->loc == r->loc)
					continue;
				size_t w2 = writer_of(v, e->loc, e->val, k);
				if (w2 != SIZE_MAX && visible_at(v, w2) > s.visible) {
					s.fix = WEFT_FIX_RMB;
					s.from = k;
					break;
				}
			}
		} else {
			/* a store of another CPU made before and still buffered */
			for (size_t j = i; j-- > 0;) {
				const struct weft_event *w = &v->ev[j];
				if (w->ev != WEFT_EV_WRITE || w->loc != r->loc || w->tid == r->tid ||
				    w->cpu == r->cpu || w->val == r->val)
					continue;
				if (buffered_at(v, j, i)) {
					s.store = j;
					fix_buffered(v, j, i, &s);
				}
				break;
			}
			if (s.store == SIZE_MAX)
				continue;
		}
		out[n++] = s;
	}
	return n;
}

/* "x = 1" of an access to its location. */
static void loc_val(const struct weft_trace_view *v, const struct weft_event *e, uint64_t x,
		    char *buf, size_t n)
{
	char name[96], val[96];

	weft_describe_loc(v->sc, e->loc, name, sizeof(name));
	weft_trace_value(v, e, x, val, sizeof(val));
	snprintf(buf, n, "%s = %s", name, val);
}

void weft_weak_why(const struct weft_trace_view *v, const struct weft_stale *s, char *buf,
		   size_t n)
{
	const struct weft_event *w = &v->ev[s->store];
	char what[200];

	loc_val(v, w, w->val, what, sizeof(what));
	if (s->visible == SIZE_MAX || s->visible > s->read)
		snprintf(buf, n, "stale: %s's store %s at step %" PRIu32 " still buffered on CPU%u",
			 weft_trace_thread(v, w->tid), what, w->step, w->cpu);
	else
		snprintf(buf, n, "stale: %s's store %s at step %" PRIu32 " visible since step %" PRIu32
				 ", %s read an older version",
			 weft_trace_thread(v, w->tid), what, w->step, v->ev[s->visible].step,
			 weft_trace_thread(v, v->ev[s->read].tid));
}

void weft_weak_fix(const struct weft_trace_view *v, const struct weft_stale *s, char *buf,
		   size_t n)
{
	const struct weft_event *w = &v->ev[s->store], *r = &v->ev[s->read];
	const char *wt = weft_trace_thread(v, w->tid);

	switch (s->fix) {
	case WEFT_FIX_WMB:
		snprintf(buf, n, "smp_wmb() on CPU%u between %s's store at step %" PRIu32
				 " and its store at step %" PRIu32 " (or a release there) would "
				 "have made this one visible first", w->cpu, wt, w->step,
			 v->ev[s->from].step);
		break;
	case WEFT_FIX_MB_WRITER:
		if (s->from != SIZE_MAX)
			snprintf(buf, n, "smp_mb() on CPU%u between %s's store at step %" PRIu32
					 " and its load at step %" PRIu32 " would have made it "
					 "visible first", w->cpu, wt, w->step, v->ev[s->from].step);
		else
			snprintf(buf, n, "smp_mb() on CPU%u after %s's store at step %" PRIu32
					 " would have made it visible first", w->cpu, wt, w->step);
		break;
	case WEFT_FIX_RMB:
		snprintf(buf, n, "smp_rmb() on CPU%u between %s's read at step %" PRIu32
				 " and this one (or smp_load_acquire() there) would have forbidden it",
			 r->cpu, weft_trace_thread(v, r->tid), v->ev[s->from].step);
		break;
	default:
		snprintf(buf, n, "smp_mb() on CPU%u before %s's read would have forbidden it",
			 r->cpu, weft_trace_thread(v, r->tid));
		break;
	}
}
