/*
 * race_diagram.c - the race as kernel developers draw it in mail: one
 * column per fake CPU, time going down, one row per step that matters
 * (operations on the reported object with their values, lock operations,
 * the preemption points, the workload operations), the failing access
 * marked "!!" and the earlier conflicting access "^^".
 *
 * Rows come from the recorded trace of a replay (weft_last_events()); the
 * machine is not touched except to name world offsets.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "race_diagram.h"

#define COL_MAX 46
#define COL_MIN 22

static bool name_has_prefix(const char *name, const char *prefix);
static void mark_locks(struct weft_trace_view *v);

static void add_key(struct weft_trace_view *v, uint32_t loc)
{
	if (loc == WEFT_NO_LOC || v->nkey == sizeof(v->key) / sizeof(v->key[0]))
		return;
	for (unsigned k = 0; k < v->nkey; k++)
		if (v->key[k] == loc)
			return;
	v->key[v->nkey++] = loc;
}

void weft_trace_view_init(struct weft_trace_view *v)
{
	const struct weft_report *rp = &v->r->report;

	v->fail_idx = v->n;
	v->other_idx = v->n;
	v->prefix[0] = 0;
	v->lock_shown = NULL;
	v->nkey = 0;
	if (v->r->kind == WEFT_KIND_NONE)
		return;
	for (size_t i = v->n; i-- > 0;)
		if (v->ev[i].ev == WEFT_EV_NOTE && (v->ev[i].flags & WEFT_EVF_FAILED)) {
			v->fail_idx = i;
			break;
		}
	if (rp->other.valid) {
		for (size_t i = v->fail_idx; i-- > 0;) {
			const struct weft_event *e = &v->ev[i];
			if (e->step == rp->other.step && e->site == rp->other.site &&
			    (rp->other.tid < 0 ? e->tid == 0xff : e->tid == rp->other.tid)) {
				v->other_idx = i;
				break;
			}
		}
	}
	snprintf(v->prefix, sizeof(v->prefix), "%s", rp->object);
	char *arrow = strstr(v->prefix, " ->");
	if (arrow)
		*arrow = 0;
	v->nkey = 0;
	add_key(v, rp->loc);
	if (v->other_idx < v->n)
		add_key(v, v->ev[v->other_idx].loc);
	if (v->fail_idx < v->n)
		add_key(v, v->ev[v->fail_idx].loc);
	for (size_t i = 0; i < v->n; i++) {
		char name[96];
		if (v->ev[i].ev != WEFT_EV_RMW || v->ev[i].loc == WEFT_NO_LOC || !v->prefix[0])
			continue;
		weft_describe_loc(v->sc, v->ev[i].loc, name, sizeof(name));
		if (name_has_prefix(name, v->prefix))
			add_key(v, v->ev[i].loc);
	}
	v->lock_shown = NULL;
	if (v->prefix[0])
		mark_locks(v);
}

static bool name_has_prefix(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return n && !strncmp(name, prefix, n) &&
	       (name[n] == 0 || name[n] == ' ' || name[n] == '-' || name[n] == '.' ||
		name[n] == '[');
}

static bool object_event(const struct weft_trace_view *v, size_t i);

/* Lock and unlock rows that matter: the critical section touches the
 * reported object, someone waits for the lock, or a preemption or the
 * failure happens inside it. */
static void mark_locks(struct weft_trace_view *v)
{
	v->lock_shown = calloc(v->n ? v->n : 1, 1);
	if (!v->lock_shown)
		return;
	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		if (e->ev == WEFT_EV_BLOCK || (e->ev == WEFT_EV_WAIT && e->val == 0) ||
		    (e->ev == WEFT_EV_TRYLOCK && !e->old)) {
			v->lock_shown[i] = 1;
			continue;
		}
		if (!(e->ev == WEFT_EV_LOCK || (e->ev == WEFT_EV_TRYLOCK && e->old)))
			continue;
		size_t j;
		bool show = false;
		for (j = i + 1; j < v->n; j++) {
			const struct weft_event *f = &v->ev[j];
			if (f->ev == WEFT_EV_UNLOCK && f->tid == e->tid && f->loc == e->loc)
				break;
			if (j == v->fail_idx || (f->flags & WEFT_EVF_PREEMPTED) ||
			    ((f->ev == WEFT_EV_BLOCK || f->ev == WEFT_EV_WAIT) && f->loc == e->loc) ||
			    (f->tid == e->tid && object_event(v, j)))
				show = true;
		}
		if (show) {
			v->lock_shown[i] = 1;
			if (j < v->n)
				v->lock_shown[j] = 1;
		}
	}
}

void weft_trace_view_fini(struct weft_trace_view *v)
{
	free(v->lock_shown);
	v->lock_shown = NULL;
}

bool weft_trace_involved(const struct weft_trace_view *v, size_t i)
{
	const struct weft_event *e = &v->ev[i];

	if (i == v->fail_idx || i == v->other_idx)
		return true;
	switch (e->ev) {
	case WEFT_EV_LOCK:
	case WEFT_EV_TRYLOCK:
	case WEFT_EV_UNLOCK:
	case WEFT_EV_BLOCK:
		if (!v->lock_shown || v->lock_shown[i])
			return true;
		break;
	case WEFT_EV_WAIT:
	case WEFT_EV_WAKE:
		return true;   /* who sleeps and who wakes is the story of a lost wakeup */
	case WEFT_EV_OP:
	case WEFT_EV_CHOICE:
		return true;
	}
	if (e->flags & (WEFT_EVF_PREEMPTED | WEFT_EVF_FAILED))
		return true;
	if (i + 1 < v->n && (v->ev[i + 1].flags & WEFT_EVF_PREEMPTED) && v->ev[i + 1].tid != e->tid)
		return true;   /* where the preempted thread stopped */
	if (!v->prefix[0])
		return true;   /* nothing named: everything matters */
	return object_event(v, i);
}

/* Event i is an operation on the reported object that matters. */
static bool object_event(const struct weft_trace_view *v, size_t i)
{
	const struct weft_event *e = &v->ev[i];
	char name[96];

	if (e->loc == WEFT_NO_LOC)
		return e->ev == WEFT_EV_NOTE;
	weft_describe_loc(v->sc, e->loc, name, sizeof(name));
	if (!name_has_prefix(name, v->prefix))
		return false;
	if (e->ev == WEFT_EV_READ || e->ev == WEFT_EV_WRITE) {
		/* plain loads and stores only of the fields that matter */
		for (unsigned k = 0; k < v->nkey; k++)
			if (v->key[k] == e->loc)
				return true;
		return false;
	}
	return true;
}

/*
 * Counts print in decimal (refcounts, mapcounts, swap counts: "count" in
 * the name); flag words, bit masks and swap_map entries (a count with
 * flag bits) in hex.
 */
static bool wants_hex(const char *name, const char *what)
{
	static const char *const words[] = { "flag", "bit", "mask", "byte", "swap_map",
					     "swap slot", NULL };

	if (name && strstr(name, "count"))
		return false;
	for (const char *const *w = words; *w; w++)
		if ((name && strstr(name, *w)) || (what && strstr(what, *w)))
			return true;
	return false;
}

/* Does the name end with component c ("->next", ".next", " next")? */
static bool ends_with_word(const char *s, const char *c)
{
	size_t n = strlen(s), k = strlen(c);

	return n >= k && !strcmp(s + n - k, c) &&
	       (n == k || s[n - k - 1] == '.' || s[n - k - 1] == '>' || s[n - k - 1] == ' ');
}

/* A list pointer field: the only place 0x100 and 0x122 mean LIST_POISON1
 * and LIST_POISON2 (include/linux/poison.h, stored by list_del). */
static bool list_pointer_field(const char *name, const char *what)
{
	if (name && (ends_with_word(name, "next") || ends_with_word(name, "prev")))
		return true;
	return what && (strstr(what, "->next") || strstr(what, "->prev") ||
			strstr(what, ".next") || strstr(what, ".prev"));
}

/* Length of the first component of a field path: up to " ->", "->" or ".". */
static size_t component(const char *s)
{
	size_t i = 0;

	while (s[i] && s[i] != '.' && strncmp(s + i, " ->", 3) && strncmp(s + i, "->", 2))
		i++;
	return i;
}

static size_t separator(const char *s)
{
	return *s == '.' ? 1 : !strncmp(s, " ->", 3) ? 3 : !strncmp(s, "->", 2) ? 2 : 0;
}

void weft_trace_pointer_name(const struct weft_trace_view *v, uint32_t off, char *buf, size_t n)
{
	char prev[96] = "";

	weft_describe_loc(v->sc, off, buf, n);
	if (off)
		weft_describe_loc(v->sc, off - 1, prev, sizeof(prev));
	/*
	 * A name is a path: "page 0 ->lru.next", "inactive_list.next". The
	 * byte before off shares the components of everything that started
	 * before off; the next component is the largest thing that starts at
	 * off, and the pointer names it.
	 */
	char *a = buf;
	const char *b = prev;
	for (;;) {
		size_t la = component(a), lb = component(b);
		if (la != lb || strncmp(a, b, la) || !separator(a + la) || !separator(b + lb)) {
			a[la] = 0;
			return;
		}
		a += la + separator(a + la);
		b += lb + separator(b + lb);
	}
}

const char *weft_trace_host_phase(const struct weft_trace_view *v, size_t i)
{
	for (size_t k = 0; k < i && k < v->n; k++)
		if (v->ev[k].tid != 0xff)
			return "audit";
	return "setup";
}

void weft_trace_value(const struct weft_trace_view *v, const struct weft_event *e, uint64_t x,
		      char *buf, size_t n)
{
	char name[96] = "";
	const char *what = e->site ? e->site->what : NULL;

	if (x >> 63) {
		weft_trace_pointer_name(v, (uint32_t)(x & 0xffffffffu), name, sizeof(name));
		snprintf(buf, n, "&%s", name);
		return;
	}
	if (e->loc != WEFT_NO_LOC)
		weft_describe_loc(v->sc, e->loc, name, sizeof(name));
	if ((x == 0x100 || x == 0x122) && list_pointer_field(e->loc != WEFT_NO_LOC ? name : NULL,
							     what)) {
		snprintf(buf, n, "LIST_POISON%d", x == 0x100 ? 1 : 2);
		return;
	}
	if (wants_hex(e->loc != WEFT_NO_LOC ? name : NULL, what))
		snprintf(buf, n, "0x%02" PRIx64, x);
	else if (x >= 0x80000000ull && x <= 0xffffffffull)
		snprintf(buf, n, "%" PRId32, (int32_t)(uint32_t)x);
	else
		snprintf(buf, n, "%" PRId64, (int64_t)x);
}

void weft_trace_event_text(const struct weft_trace_view *v, size_t i, char *buf, size_t n)
{
	const struct weft_event *e = &v->ev[i];
	const char *what = e->site ? e->site->what : "?";
	char obj[96] = "", a[96], b[96];

	if (e->loc != WEFT_NO_LOC)
		weft_describe_loc(v->sc, e->loc, obj, sizeof(obj));
	switch (e->ev) {
	case WEFT_EV_READ:
		weft_trace_value(v, e, e->val, a, sizeof(a));
		snprintf(buf, n, "%s: %s = %s", what, obj, a);
		break;
	case WEFT_EV_WRITE:
	case WEFT_EV_RMW:
		weft_trace_value(v, e, e->old, a, sizeof(a));
		weft_trace_value(v, e, e->val, b, sizeof(b));
		if (e->ev == WEFT_EV_WRITE && e->old == 0 && e->site &&
		    !strncmp(e->site->what, "PLAIN_WRITE", 11))
			snprintf(buf, n, "%s: %s := %s", what, obj, b);   /* old not traced */
		else
			snprintf(buf, n, "%s: %s %s \u2192 %s", what, obj, a, b);
		break;
	case WEFT_EV_LOCK:
		snprintf(buf, n, "%s [takes %s]", what, obj);
		break;
	case WEFT_EV_TRYLOCK:
		snprintf(buf, n, "%s [%s %s]", what, e->old ? "takes" : "fails on", obj);
		break;
	case WEFT_EV_UNLOCK:
		snprintf(buf, n, "%s [releases %s]", what, obj);
		break;
	case WEFT_EV_BLOCK:
		if (e->old)
			snprintf(buf, n, "%s [waits: %s held by T%u]", what, obj,
				 (unsigned)e->old - 1);
		else
			snprintf(buf, n, "%s [waits for %s]", what, obj);
		break;
	case WEFT_EV_WAIT:
		/* sleeping primitives (core/src/sleep.c, waitqueue.c): val 0
		 * falls asleep, 1 woken and running again, 2 did not sleep */
		if (e->val == 1)
			snprintf(buf, n, "%s [woken%s%s]", what, obj[0] ? " on " : "", obj);
		else if (e->val == 2)
			snprintf(buf, n, "%s [does not sleep: already woken]", what);
		else if (e->old)
			snprintf(buf, n, "%s [sleeps: %s held by T%u]", what, obj,
				 (unsigned)e->old - 1);
		else
			snprintf(buf, n, "%s [sleeps on %s]", what, obj);
		break;
	case WEFT_EV_WAKE: {
		/* old: mask of the threads woken; val: how many */
		char who[64] = "";
		size_t k = 0;
		for (unsigned t = 0; t < 32 && k + 8 < sizeof(who); t++)
			if (e->old >> t & 1)
				k += (size_t)snprintf(who + k, sizeof(who) - k, "%sT%u", k ? ", " : "", t);
		if (who[0])
			snprintf(buf, n, "%s [wakes %s]", what, who);
		else if (e->val)
			snprintf(buf, n, "%s [%" PRIu64 " woken: awake already]", what, e->val);
		else
			snprintf(buf, n, "%s [wakes nobody: %s has no waiter]", what, obj);
		break;
	}
	case WEFT_EV_FREE:
	case WEFT_EV_ALLOC:
		/* a region (a page frees its poisoned tail, from ->lru): the
		 * object it belongs to is what is freed or allocated */
		obj[component(obj)] = 0;
		snprintf(buf, n, "%s: %s %s", what, e->ev == WEFT_EV_FREE ? "free" : "alloc", obj);
		break;
	case WEFT_EV_CHOICE:
		snprintf(buf, n, "%s \u2192 %" PRIu64 " of %" PRIu64, what, e->val, e->old);
		break;
	case WEFT_EV_NOTE:
		if (e->flags & WEFT_EVF_FAILED)
			snprintf(buf, n, "%s: %s%s%s", weft_kind_name(v->r->kind), what, obj[0] ? " on " : "",
				 obj);
		else
			snprintf(buf, n, "%s%s%s", what, obj[0] ? " " : "", obj);
		break;
	default:
		snprintf(buf, n, "%s%s%s", what, obj[0] ? " " : "", obj);
		break;
	}
}

/* Display columns of UTF-8 text (continuation bytes take none). */
static size_t width(const char *s, size_t bytes)
{
	size_t w = 0;

	for (size_t i = 0; i < bytes && s[i]; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Next line of at most w columns from *s (breaking at a space when it
 * can); returns its byte length and advances *s past it and one space. */
static size_t next_line(const char **s, size_t w)
{
	const char *p = *s;
	size_t cols = 0, i = 0, brk = 0;

	while (p[i]) {
		if (((unsigned char)p[i] & 0xc0) != 0x80) {
			if (cols == w)
				break;
			cols++;
		}
		if (p[i] == ' ')
			brk = i;
		i++;
	}
	if (p[i] && brk > 0)
		i = brk;
	*s = p + i;
	while (**s == ' ')
		(*s)++;
	return i;
}

struct row {
	size_t idx;            /* event, or SIZE_MAX for a marker row */
	bool host;             /* setup or audit: the host context, every column */
	unsigned cpu;
	char mark[3];          /* "!!", "^^", " *", "" */
	char text[256];
	unsigned repeat;
};

/* Append text to a line buffer, padded to w display columns. */
static void put_cell(char *out, size_t *o, size_t cap, const char *s, size_t bytes, size_t w)
{
	for (size_t i = 0; i < bytes && *o + 1 < cap; i++)
		out[(*o)++] = s[i];
	for (size_t c = width(s, bytes); c < w && *o + 1 < cap; c++)
		out[(*o)++] = ' ';
	out[*o] = 0;
}

static void flush_line(FILE *f, char *line, size_t n)
{
	while (n && line[n - 1] == ' ')
		n--;
	fwrite(line, 1, n, f);
	fputc('\n', f);
}

static void print_row(FILE *f, const struct row *r, unsigned ncpu, size_t w, const char *step)
{
	const char *s = r->text;
	bool first = true;
	char buf[300], out[2048];

	if (r->host) {
		/* the host context runs on no fake CPU: one cell across them all */
		size_t span = ncpu * (w + 1) + (ncpu - 1) * 2 - 1;
		do {
			const char *line = s;
			size_t len = next_line(&s, span - 3), o;
			o = (size_t)snprintf(out, sizeof(out), "%6s | ", first ? step : "");
			snprintf(buf, sizeof(buf), "%-2s %.*s", first ? r->mark : "", (int)len, line);
			put_cell(out, &o, sizeof(out), buf, strlen(buf), span);
			flush_line(f, out, o);
			first = false;
		} while (*s);
		return;
	}
	do {
		const char *line = s;
		size_t len = next_line(&s, w - 3), o = 0;
		o = (size_t)snprintf(out, sizeof(out), "%6s |", first ? step : "");
		for (unsigned c = 0; c < ncpu; c++) {
			put_cell(out, &o, sizeof(out), " ", 1, 1);
			if (c == r->cpu) {
				snprintf(buf, sizeof(buf), "%-2s %.*s", first ? r->mark : "", (int)len,
					 line);
				put_cell(out, &o, sizeof(out), buf, strlen(buf), w);
			} else {
				put_cell(out, &o, sizeof(out), "", 0, w);
			}
			if (c + 1 < ncpu)
				put_cell(out, &o, sizeof(out), " |", 2, 2);
		}
		flush_line(f, out, o);
		first = false;
	} while (*s);
}

static void rule(FILE *f, unsigned ncpu, size_t w, char ch)
{
	fprintf(f, "%6s-+", "------");
	for (unsigned c = 0; c < ncpu; c++) {
		for (size_t k = 0; k < w + 1; k++)
			fputc(ch, f);
		fputs(c + 1 < ncpu ? "-+" : "", f);
	}
	fputc('\n', f);
}

static void side_line(FILE *f, const struct weft_trace_view *v, size_t idx, const char *mark,
		      const char *label, const struct weft_access *a)
{
	if (!a->valid)
		return;
	fprintf(f, "  %s %s: step %" PRIu32 ", ", mark, label, a->step);
	if (a->tid < 0)
		fprintf(f, "%s", idx < v->n ? weft_trace_host_phase(v, idx) : "setup or audit");
	else
		fprintf(f, "T%d on CPU%d", a->tid, a->cpu);
	if (a->site)
		fprintf(f, ", %s in %s() at %s:%u", a->site->what, a->site->func,
			weft_site_basename(a->site), a->site->line);
	fputc('\n', f);
}

void weft_race_diagram(FILE *f, const struct weft_trace_view *v, bool full)
{
	const struct weft_scenario *sc = v->sc;
	unsigned ncpu = sc->nr_cpus ? sc->nr_cpus : 1;
	const struct weft_exec_result *r = v->r;
	struct row *rows = calloc(v->n + 1, sizeof(*rows) * 2);
	size_t nr = 0, w = COL_MIN, shown = 0;
	unsigned threads_on[WEFT_MAX_CPUS] = { 0 };

	if (!rows) {
		fprintf(f, "weft: out of memory for the diagram\n");
		return;
	}
	for (unsigned t = 0; t < sc->nr_threads; t++)
		threads_on[weft_cpu_of(sc, t) % ncpu]++;

	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		if (!full && (!weft_trace_involved(v, i) ||
			      (e->tid == 0xff && i != v->fail_idx && i != v->other_idx)))
			continue;
		unsigned cpu = e->cpu == 0xff ? 0 : e->cpu % ncpu;
		if ((e->flags & WEFT_EVF_PREEMPTED) && i > 0 && v->ev[i - 1].tid != 0xff &&
		    v->ev[i - 1].tid != e->tid) {
			struct row *m = &rows[nr++];
			m->idx = SIZE_MAX;
			m->cpu = v->ev[i - 1].cpu % ncpu;
			snprintf(m->text, sizeof(m->text), "~~ T%u preempted, T%u runs ~~",
				 v->ev[i - 1].tid, e->tid);
		}
		struct row *rw = &rows[nr];
		char text[230];
		shown++;
		weft_trace_event_text(v, i, text, sizeof(text));
		rw->idx = i;
		rw->host = e->tid == 0xff;
		rw->cpu = cpu;
		rw->repeat = 1;
		if (i == v->fail_idx)
			strcpy(rw->mark, "!!");
		else if (i == v->other_idx)
			strcpy(rw->mark, "^^");
		else if (e->flags & WEFT_EVF_PREEMPTED)
			strcpy(rw->mark, " *");
		if (e->tid == 0xff)
			snprintf(rw->text, sizeof(rw->text), "(%s) %s", weft_trace_host_phase(v, i),
				 text);
		else if (threads_on[cpu] > 1)
			snprintf(rw->text, sizeof(rw->text), "T%u: %s", e->tid, text);
		else
			snprintf(rw->text, sizeof(rw->text), "%s", text);
		/* a run of identical rows (a spin loop) prints once */
		if (nr > 0 && rows[nr - 1].idx != SIZE_MAX && !rw->mark[0] &&
		    !rows[nr - 1].mark[0] && rows[nr - 1].cpu == cpu &&
		    v->ev[rows[nr - 1].idx].tid == e->tid && !strcmp(rows[nr - 1].text, rw->text)) {
			rows[nr - 1].repeat++;
			continue;
		}
		nr++;
	}
	for (size_t k = 0; k < nr; k++) {
		char tmp[32];
		if (rows[k].repeat > 1) {
			snprintf(tmp, sizeof(tmp), " (\u00d7%u)", rows[k].repeat);
			size_t tl = strlen(rows[k].text);
			if (tl + strlen(tmp) < sizeof(rows[k].text))
				memcpy(rows[k].text + tl, tmp, strlen(tmp) + 1);
		}
		size_t tw = width(rows[k].text, sizeof(rows[k].text)) + 3;
		if (tw > w && !rows[k].host)
			w = tw;
	}
	/* one column per CPU that has a row (an idle CPU adds nothing) */
	unsigned col_cpu[WEFT_MAX_CPUS], ncol = 0, used = 0;
	for (size_t k = 0; k < nr; k++)
		if (!rows[k].host)
			used |= 1u << rows[k].cpu;
	if (!used)
		used = 1;
	for (unsigned c = 0; c < ncpu; c++)
		if (used >> c & 1)
			col_cpu[ncol++] = c;
	for (size_t k = 0; k < nr; k++)
		for (unsigned j = 0; j < ncol; j++)
			if (col_cpu[j] == rows[k].cpu) {
				rows[k].cpu = j;
				break;
			}
	if (w > COL_MAX + 3)
		w = COL_MAX + 3;
	if (ncol > 2 && w > 38)
		w = 38;

	const char *vname = sc->nr_variants ? sc->variants[v->variant].name : "";
	if (r->kind != WEFT_KIND_NONE)
		fprintf(f, "%s%s%s in %s:%s\n", weft_kind_name(r->kind),
			r->report.object[0] ? " on " : "", r->report.object, sc->name, vname);
	else
		fprintf(f, "clean execution of %s:%s\n", sc->name, vname);
	fprintf(f, "lock model %s, %u CPU%s, %" PRIu32 " step%s, %" PRIu32 " preemption%s%s\n\n",
		v->lock == WEFT_LOCK_TICKET ? "ticket" : "tas", ncpu, ncpu == 1 ? "" : "s",
		r->steps, r->steps == 1 ? "" : "s", r->preemptions, r->preemptions == 1 ? "" : "s",
		full ? ", every step" : "");
	{
		char out[2048];
		size_t o = (size_t)snprintf(out, sizeof(out), "%6s |", "step");
		for (unsigned j = 0; j < ncol; j++) {
			unsigned c = col_cpu[j];
			char hdr[96];
			size_t k = (size_t)snprintf(hdr, sizeof(hdr), " CPU%u", c);
			const char *sep = ":";
			for (unsigned t = 0; t < sc->nr_threads && k < sizeof(hdr) - 8; t++)
				if (weft_cpu_of(sc, t) % ncpu == c) {
					k += (size_t)snprintf(hdr + k, sizeof(hdr) - k, "%s T%u", sep, t);
					sep = ",";
				}
			put_cell(out, &o, sizeof(out), hdr, strlen(hdr), w + 1);
			if (j + 1 < ncol)
				put_cell(out, &o, sizeof(out), " |", 2, 2);
		}
		flush_line(f, out, o);
	}
	rule(f, ncol, w, '-');
	uint32_t last_step = UINT32_MAX;
	for (size_t k = 0; k < nr; k++) {
		char step[16] = "";
		if (rows[k].idx != SIZE_MAX) {
			const struct weft_event *e = &v->ev[rows[k].idx];
			if (e->step != last_step)
				snprintf(step, sizeof(step), "%" PRIu32, e->step);
			last_step = e->step;
		}
		print_row(f, &rows[k], ncol, w, step);
	}
	rule(f, ncol, w, '-');
	if (r->kind != WEFT_KIND_NONE) {
		fprintf(f, "  %s\n", r->report.msg);
		side_line(f, v, v->fail_idx, "!!", "fails", &r->report.here);
		side_line(f, v, v->other_idx, "^^", "earlier conflicting access", &r->report.other);
	}
	if (r->preemptions)
		fprintf(f, "   * ran right after a preemption (the thread before it could have "
			   "gone on)\n");
	if (!full)
		fprintf(f, "  (%zu of %zu events shown: the ones on %s, locks and preemptions; "
			   "--full shows all)\n",
			shown, v->n, v->prefix[0] ? v->prefix : "the object");
	free(rows);
}
