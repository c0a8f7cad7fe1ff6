/*
 * race_diagram.c - the race as kernel developers draw it in mail: one
 * column per fake CPU, time going down, one row per step that matters
 * (trace_view.c chooses them: the race's objects and the threads that
 * raced on them, what they read from, where a thread was preempted, locks,
 * workload operations), the failing access marked "!!" and the earlier
 * conflicting access "^^".
 *
 * Contexts: every event is drawn in the column of the CPU it ran on, so
 * spawned threads, kworkers and interrupt handlers land where they ran
 * and a migrating thread changes column. An interrupt's entry and return
 * are rows of their own ("IRQ dev_irq interrupts T0"), its handler's rows
 * indented between them. When the execution used contexts (interrupts,
 * masking, several threads on one CPU) each row carries a tag of the
 * context it ran in: I interrupts off, H in a hard interrupt, P preemption
 * off, B bottom halves off, S in a softirq.
 *
 * Weak memory (race_weak.h): every stale read is drawn with the store it
 * missed and where that store became visible; its row says why it was
 * stale, a line under the diagram which barrier would have forbidden it.
 *
 * Rows come from the recorded trace of a replay (weft_last_events()); the
 * machine is not touched except to name world offsets.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "race_diagram.h"
#include "race_weak.h"

#define COL_MAX 46
#define COL_MIN 22

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
	unsigned cpu;          /* the CPU, then its column */
	unsigned tid;
	char mark[3];          /* "!!", "^^", " *", "" */
	char ctx[4];           /* context tag (trace_view.h), "" if not drawn */
	unsigned indent;       /* inside an interrupt handler */
	char text[420];
	unsigned repeat;
	size_t call;           /* the helper call folded into this row, or SIZE_MAX */
	unsigned nfold;
	char objs[160];        /* the call's list nodes */
	size_t nev;            /* events the row stands for (folded, repeated) */
	size_t elided;         /* an elision marker: rows it stands for (0: not one) */
	size_t elided_ev;      /* ... and their events */
	uint32_t from, to;     /* ... and their steps */
};

/* A long execution (a loop of 10^5 rounds) would draw a row for most of
 * its steps, and the default view keeps all rows in memory to size the
 * columns: past DIAGRAM_CAP rows in memory, and past DIAGRAM_ROWS rows
 * once loops are folded, the rows between the first DIAGRAM_HEAD and the
 * last DIAGRAM_TAIL are dropped (but the failing access and the earlier
 * conflicting one) and one row says how many and over which steps
 * (--full draws every step). */
#define DIAGRAM_HEAD 50
#define DIAGRAM_TAIL 250
#define DIAGRAM_ROWS 400
#define DIAGRAM_CAP 8192

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

/* Columns a row's text starts at, inside its cell: the mark, the context
 * tag, the handler's indent. */
static size_t lead(const struct row *r)
{
	return 3 + (r->ctx[0] ? 4 : 0) + r->indent;
}

static void print_row(FILE *f, const struct row *r, unsigned ncpu, size_t w, const char *step)
{
	const char *s = r->text;
	bool first = true;
	char buf[400], out[2048];

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
		size_t len = next_line(&s, w - lead(r)), o = 0;
		o = (size_t)snprintf(out, sizeof(out), "%6s |", first ? step : "");
		for (unsigned c = 0; c < ncpu; c++) {
			put_cell(out, &o, sizeof(out), " ", 1, 1);
			if (c == r->cpu) {
				if (r->ctx[0])
					snprintf(buf, sizeof(buf), "%-2s %-3s %*s%.*s",
						 first ? r->mark : "", first ? r->ctx : "",
						 (int)r->indent, "", (int)len, line);
				else
					snprintf(buf, sizeof(buf), "%-2s %*s%.*s", first ? r->mark : "",
						 (int)r->indent, "", (int)len, line);
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

/* "what [the model's call] in func() at file:line" of an access. */
static void side_where(FILE *f, const struct weft_site *s, const struct weft_caller *c)
{
	char where[256];

	if (!s)
		return;
	weft_site_where(where, sizeof(where), s, c);
	if (c)
		fprintf(f, ", %s [%s] in %s", s->what, c->what, where);
	else
		fprintf(f, ", %s in %s", s->what, where);
}

static void side_line(FILE *f, const struct weft_trace_view *v, size_t idx, const char *mark,
		      const char *label, const struct weft_access *a, const struct weft_caller *c)
{
	if (!a->valid)
		return;
	fprintf(f, "  %s %s: step %" PRIu32 ", ", mark, label, a->step);
	if (a->tid < 0)
		fprintf(f, "%s", idx < v->n ? weft_trace_host_phase(v, idx) : "setup or audit");
	else
		fprintf(f, "%s on CPU%d", weft_trace_thread(v, (unsigned)a->tid), a->cpu);
	side_where(f, a->site, c);
	fputc('\n', f);
}

/* A lost wake-up is reported when nobody is left to run, from whichever
 * thread ran last: the failing side is the sleeper, asleep since
 * here_since. */
static bool lost_wakeup_side(FILE *f, const struct weft_trace_view *v)
{
	const struct weft_report *rp = &v->r->report;

	if (v->r->kind != WEFT_KIND_LOST_WAKEUP || !rp->here.valid || rp->here.tid < 0)
		return false;
	fprintf(f, "  !! fails: step %" PRIu32 ", %s on CPU%d sleeps", rp->here_since,
		weft_trace_thread(v, (unsigned)rp->here.tid), rp->here.cpu);
	side_where(f, rp->here.site, rp->here_caller);
	if (rp->here.step != rp->here_since)
		fprintf(f, "; from step %" PRIu32 " no thread is left that can wake it",
			rp->here.step);
	fputc('\n', f);
	return true;
}

/* The list node an access of a helper touches: "page 0 ->lru" of
 * "page 0 ->lru.next", "inactive_list" of "inactive_list.prev". */
static void node_of(const struct weft_trace_view *v, uint32_t loc, char *buf, size_t n)
{
	static const char *const tails[] = { ".next", ".prev", "->next", "->prev", " next",
					     " prev", NULL };

	weft_describe_loc(v->sc, loc, buf, n);
	size_t l = strlen(buf);
	for (const char *const *t = tails; *t; t++) {
		size_t k = strlen(*t);
		if (l > k && !strcmp(buf + l - k, *t)) {
			buf[l - k] = 0;
			break;
		}
	}
}

static void fold_add(const struct weft_trace_view *v, struct row *r, size_t i)
{
	char node[96];
	size_t l = strlen(r->objs);

	if (v->ev[i].loc == WEFT_NO_LOC)
		return;
	node_of(v, v->ev[i].loc, node, sizeof(node));
	/* each node once */
	for (const char *p = r->objs; (p = strstr(p, node)) != NULL; p += strlen(node))
		if ((p == r->objs || p[-1] == ' ') && (p[strlen(node)] == ',' || !p[strlen(node)]))
			return;
	snprintf(r->objs + l, sizeof(r->objs) - l, "%s%s", l ? ", " : "", node);
}

/* Rows a spin loop repeats: the same thread, CPU, context and text, no
 * mark (the failure, the other side, a preemption), not a marker row. */
static bool row_same(const struct row *a, const struct row *b)
{
	return a->idx != SIZE_MAX && b->idx != SIZE_MAX && !a->host && !b->host && !a->mark[0] &&
	       !b->mark[0] && a->cpu == b->cpu && a->tid == b->tid && a->indent == b->indent &&
	       !strcmp(a->ctx, b->ctx) && !strcmp(a->text, b->text);
}

#define CYCLE_MAX 8   /* rows in one turn of a loop that folds */
#define CYCLE_MIN_TURNS 3

/* A loop of 2..CYCLE_MAX rows that turns CYCLE_MIN_TURNS times or more in a
 * row (a spin loop: read, cpu_relax(), read, ...) prints one turn and a
 * marker row saying how many more there were and over which steps; a run
 * of one identical row is already counted by its (xN). Compacts rows in
 * place, returns the new count. The longest fold wins at each place. */
static size_t fold_cycles(const struct weft_trace_view *v, struct row *rows, size_t nr)
{
	size_t out = 0, i = 0;

	while (i < nr) {
		unsigned best_p = 0;
		size_t best_turns = 0;
		for (unsigned p = 2; p <= CYCLE_MAX && i + p <= nr; p++) {
			size_t j = i + p;
			while (j < nr && row_same(&rows[i + (j - i) % p], &rows[j]))
				j++;
			size_t turns = (j - i) / p;
			bool body = true;   /* a turn must not be a shorter loop itself */
			for (unsigned q = 1; q < p && body; q++)
				body = !row_same(&rows[i], &rows[i + q]);
			if (body && turns >= CYCLE_MIN_TURNS && turns * p > best_turns * best_p) {
				best_p = p;
				best_turns = turns;
			}
		}
		if (!best_p) {
			rows[out++] = rows[i++];
			continue;
		}
		for (unsigned q = 0; q < best_p; q++)
			rows[out++] = rows[i + q];
		const struct weft_event *first = &v->ev[rows[i + best_p].idx];
		const struct weft_event *last = &v->ev[rows[i + best_turns * best_p - 1].idx];
		struct row *m = &rows[out++];
		unsigned cpu = rows[i].cpu;
		memset(m, 0, sizeof(*m));
		m->idx = SIZE_MAX;
		m->call = SIZE_MAX;
		m->cpu = cpu;
		snprintf(m->text, sizeof(m->text),
			 "\u21bb the %u rows above, %zu more time%s (steps %" PRIu32 "\u2013%" PRIu32 ")",
			 best_p, best_turns - 1, best_turns == 2 ? "" : "s", first->step, last->step);
		i += best_turns * best_p;
	}
	return out;
}

/* Drop rows[head .. nr - tail) but the marked ones ("!!", "^^"), each
 * stretch of dropped rows becoming one elision marker (an elision marker
 * in it is merged); returns the new row count. */
static size_t elide_rows(const struct weft_trace_view *v, struct row *rows, size_t nr,
			 size_t head, size_t tail)
{
	size_t out = head, end = nr - tail;
	struct row *m = NULL;

	if (nr <= head + tail + 1)
		return nr;
	for (size_t i = head; i < end; i++) {
		struct row cur = rows[i];   /* a new marker may take its place */
		const struct row *rw = &cur;
		if (!rw->elided && (!strcmp(rw->mark, "!!") || !strcmp(rw->mark, "^^"))) {
			rows[out++] = *rw;
			m = NULL;
			continue;
		}
		uint32_t from = rw->elided ? rw->from : 0, to = rw->elided ? rw->to : 0;
		if (!rw->elided && rw->idx != SIZE_MAX)
			from = to = v->ev[rw->idx].step;
		bool has_step = rw->elided || rw->idx != SIZE_MAX;
		if (!m) {
			struct row tmp;
			memset(&tmp, 0, sizeof(tmp));
			tmp.idx = SIZE_MAX;
			tmp.call = SIZE_MAX;
			tmp.host = true;
			tmp.from = UINT32_MAX;
			rows[out] = tmp;
			m = &rows[out++];
		}
		m->elided += rw->elided ? rw->elided : 1;
		m->elided_ev += rw->elided ? rw->elided_ev : rw->nev;
		if (has_step && from < m->from)
			m->from = from;
		if (has_step && to > m->to)
			m->to = to;
	}
	memmove(&rows[out], &rows[end], tail * sizeof(*rows));
	return out + tail;
}

/* Helper calls folded in the default view: none of their events is
 * marked (the failure, the other side, a preemption inside). */
static uint8_t *marked_calls(const struct weft_trace_view *v)
{
	uint8_t *m = calloc(v->n ? v->n : 1, 1);

	if (!m || !v->call_of)
		return m;
	for (size_t i = 0; i < v->n; i++)
		if (v->call_of[i] != SIZE_MAX &&
		    (i == v->fail_idx || i == v->other_idx || (v->ev[i].flags & WEFT_EVF_PREEMPTED)))
			m[v->call_of[i]] = 1;
	return m;
}

void weft_race_diagram(FILE *f, const struct weft_trace_view *v, bool full)
{
	const struct weft_scenario *sc = v->sc;
	unsigned ncpu = sc->nr_cpus ? sc->nr_cpus : 1;
	const struct weft_exec_result *r = v->r;
	/* two rows at most per event (a preemption's marker, the event) */
	size_t cap = 2 * (v->n + 1);
	if (!full && cap > DIAGRAM_CAP)
		cap = DIAGRAM_CAP;
	struct row *rows = calloc(cap, sizeof(*rows));
	uint8_t *marked = full ? NULL : marked_calls(v);
	size_t nr = 0, w = COL_MIN, shown = 0;
	/* threads seen on each CPU (bit t); several tasks on one: rows say whose */
	uint64_t on_cpu[WEFT_EXEC_MAX_CPUS] = { 0 };
	bool multi[WEFT_EXEC_MAX_CPUS] = { false };

	if (!rows) {
		free(marked);
		fprintf(f, "weft: out of memory for the diagram\n");
		return;
	}
	/* weak memory: the stale reads, the stores they missed, their flushes */
	struct weft_stale stale[16];
	size_t nstale = weft_weak_stale_reads(v, stale, 16);
	for (unsigned t = 0; t < sc->nr_threads; t++)
		on_cpu[weft_cpu_of(sc, t) % ncpu] |= 1ull << t;
	for (size_t i = 0; i < v->n; i++)
		if (v->ev[i].tid != 0xff)
			on_cpu[weft_trace_cpu(v, i) % ncpu] |= 1ull << (weft_trace_tid(v, i) % 64);
	for (unsigned c = 0; c < ncpu; c++) {
		unsigned tasks = 0;
		for (unsigned t = 0; t < WEFT_EXEC_MAX_THREADS; t++)
			if ((on_cpu[c] >> t & 1) && v->irq[t] < 0)
				tasks++;
		multi[c] = tasks > 1;
	}
	/* a row says whose it is where its CPU runs several tasks, and
	 * wherever a thread ran on several CPUs (it migrated) */
	bool named[WEFT_EXEC_MAX_THREADS];
	for (unsigned t = 0; t < WEFT_EXEC_MAX_THREADS; t++) {
		unsigned cols = 0;
		named[t] = false;
		for (unsigned c = 0; c < ncpu; c++)
			if (on_cpu[c] >> t & 1) {
				cols++;
				named[t] |= multi[c];
			}
		named[t] |= cols > 1;
		named[t] &= v->irq[t] < 0;
	}

	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		int st = -1;   /* the stale read this event is, or belongs to */
		for (size_t k = 0; k < nstale && st < 0; k++)
			if (stale[k].read == i || stale[k].store == i || stale[k].visible == i)
				st = (int)k;
		if (!full && st < 0 && (!weft_trace_involved(v, i) ||
					(e->tid == 0xff && i != v->fail_idx && i != v->other_idx)))
			goto next;
		if (nr + 2 > cap)   /* not in the full view: its cap is every event's rows */
			nr = elide_rows(v, rows, nr, DIAGRAM_HEAD, DIAGRAM_TAIL);
		unsigned cpu = e->tid == 0xff ? 0 : weft_trace_cpu(v, i) % ncpu;
		unsigned tid = weft_trace_tid(v, i);
		bool irq = tid < WEFT_EXEC_MAX_THREADS && v->irq[tid] >= 0;
		if ((e->flags & WEFT_EVF_PREEMPTED) && i > 0 && v->ev[i - 1].tid != 0xff &&
		    v->ev[i - 1].tid != e->tid && !irq && v->irq[v->ev[i - 1].tid % WEFT_EXEC_MAX_THREADS] < 0) {
			struct row *m = &rows[nr++];
			m->idx = SIZE_MAX;
			m->call = SIZE_MAX;
			m->cpu = weft_trace_cpu(v, i - 1) % ncpu;
			snprintf(m->text, sizeof(m->text), "~~ %s preempted, %s runs ~~",
				 weft_trace_thread(v, v->ev[i - 1].tid), weft_trace_thread(v, e->tid));
		}
		size_t call = v->call_of && !full ? v->call_of[i] : SIZE_MAX;
		bool foldable = call != SIZE_MAX && marked && !marked[call] && i != v->fail_idx &&
				i != v->other_idx;
		if (foldable && nr > 0 && rows[nr - 1].call == call) {
			rows[nr - 1].nfold++;
			rows[nr - 1].nev++;
			fold_add(v, &rows[nr - 1], i);
			shown++;
			goto next;
		}
		struct row *rw = &rows[nr];
		char text[400];
		shown++;
		weft_trace_event_text(v, i, text, sizeof(text));
		memset(rw, 0, sizeof(*rw));
		rw->idx = i;
		rw->host = e->tid == 0xff;
		rw->cpu = cpu;
		rw->tid = tid;
		rw->repeat = 1;
		rw->call = foldable ? call : SIZE_MAX;
		rw->nfold = 1;
		rw->nev = 1;
		if (foldable)
			fold_add(v, rw, i);
		if (i == v->fail_idx)
			strcpy(rw->mark, "!!");
		else if (i == v->other_idx)
			strcpy(rw->mark, "^^");
		else if (e->flags & WEFT_EVF_PREEMPTED)
			strcpy(rw->mark, " *");
		if (v->show_ctx && !rw->host)
			weft_trace_ctx_tag(v, i, rw->ctx);
		/* a handler's rows between its entry and its return */
		if (irq && e->ev != WEFT_EV_IRQ_ENTER && e->ev != WEFT_EV_IRQ_EXIT)
			rw->indent = 2;
		if (st >= 0 && stale[st].read == i) {
			char why[200];
			size_t tl = strlen(text);
			weft_weak_why(v, &stale[st], why, sizeof(why));
			snprintf(text + tl, sizeof(text) - tl, " (%s)", why);
		} else if (e->ev == WEFT_EV_WRITE) {
			/* a store that waited in its CPU's buffer */
			for (size_t k = 0; k < nstale; k++)
				if (stale[k].store == i && stale[k].visible != i) {
					size_t tl = strlen(text);
					if (stale[k].visible != SIZE_MAX)
						snprintf(text + tl, sizeof(text) - tl, " [buffered until step %" PRIu32 "]",
							 v->ev[stale[k].visible].step);
					else
						snprintf(text + tl, sizeof(text) - tl, " [buffered]");
					break;
				}
		}
		if (e->tid == 0xff)
			snprintf(rw->text, sizeof(rw->text), "(%s) %s", weft_trace_host_phase(v, i),
				 text);
		else if (tid < WEFT_EXEC_MAX_THREADS && named[tid])
			snprintf(rw->text, sizeof(rw->text), "%s: %s", weft_trace_thread(v, tid), text);
		else
			snprintf(rw->text, sizeof(rw->text), "%s", text);
		/* a run of identical rows (a spin loop) prints once */
		if (nr > 0 && rows[nr - 1].idx != SIZE_MAX && !rw->mark[0] &&
		    !rows[nr - 1].mark[0] && rows[nr - 1].cpu == cpu && rows[nr - 1].tid == tid &&
		    rows[nr - 1].nfold == 1 && rw->call == SIZE_MAX &&
		    !strcmp(rows[nr - 1].text, rw->text)) {
			rows[nr - 1].repeat++;
			rows[nr - 1].nev++;
			goto next;
		}
		nr++;
	next:;
	}
	free(marked);
	for (size_t k = 0; k < nr; k++) {
		struct row *rw = &rows[k];
		if (rw->nfold > 1) {
			/* a helper call: the model's call and the list nodes it touched */
			const struct weft_event *e = &v->ev[rw->idx];
			bool pre = rw->tid < WEFT_EXEC_MAX_THREADS && named[rw->tid];
			snprintf(rw->text, sizeof(rw->text), "%s%s%s: %s", pre ? weft_trace_thread(v, rw->tid) : "",
				 pre ? ": " : "", e->caller->what, rw->objs);
		}
		if (rw->repeat > 1) {
			char tmp[32];
			snprintf(tmp, sizeof(tmp), " (\u00d7%u)", rw->repeat);
			size_t tl = strlen(rw->text);
			if (tl + strlen(tmp) < sizeof(rw->text))
				memcpy(rw->text + tl, tmp, strlen(tmp) + 1);
		}
	}
	if (!full)
		nr = fold_cycles(v, rows, nr);
	if (!full && nr > DIAGRAM_ROWS)
		nr = elide_rows(v, rows, nr, DIAGRAM_HEAD, DIAGRAM_TAIL);
	for (size_t k = 0; k < nr; k++) {
		struct row *rw = &rows[k];
		if (!rw->elided)
			continue;
		shown -= rw->elided_ev;
		if (rw->from <= rw->to)
			snprintf(rw->text, sizeof(rw->text),
				 "\u22ee %zu rows not shown (%zu events, steps %" PRIu32 "\u2013%" PRIu32
				 "; --full draws every step)", rw->elided, rw->elided_ev, rw->from, rw->to);
		else
			snprintf(rw->text, sizeof(rw->text),
				 "\u22ee %zu rows not shown (--full draws every step)", rw->elided);
	}
	for (size_t k = 0; k < nr; k++) {
		struct row *rw = &rows[k];
		size_t tw = width(rw->text, sizeof(rw->text)) + lead(rw);
		if (tw > w && !rw->host)
			w = tw;
	}
	/* one column per CPU that has a row (an idle CPU adds nothing) */
	unsigned col_cpu[WEFT_EXEC_MAX_CPUS], ncol = 0;
	uint64_t used = 0;
	_Static_assert(WEFT_EXEC_MAX_CPUS <= 64, "used is a 64-bit CPU mask");
	for (size_t k = 0; k < nr; k++)
		if (!rows[k].host)
			used |= 1ull << rows[k].cpu;
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
	/* headers: every thread that ran on the CPU, by name */
	char hdr[WEFT_EXEC_MAX_CPUS][160];
	for (unsigned j = 0; j < ncol; j++) {
		unsigned c = col_cpu[j];
		size_t k = (size_t)snprintf(hdr[j], sizeof(hdr[j]), " CPU%u", c);
		const char *sep = ":";
		for (unsigned t = 0; t < WEFT_EXEC_MAX_THREADS && k < sizeof(hdr[j]) - 40; t++)
			if (on_cpu[c] >> t & 1) {
				k += (size_t)snprintf(hdr[j] + k, sizeof(hdr[j]) - k, "%s %s", sep,
						      weft_trace_thread(v, t));
				sep = ",";
			}
		if (width(hdr[j], sizeof(hdr[j])) > w + 1)
			w = width(hdr[j], sizeof(hdr[j])) - 1;
	}
	if (w > COL_MAX + 3)
		w = COL_MAX + 3;
	if (ncol > 2 && w > 38)
		w = 38;
	if (v->show_ctx && w < 26)
		w = 26;

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
			put_cell(out, &o, sizeof(out), hdr[j], strlen(hdr[j]), w + 1);
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
	/* the machine records the first 2^20 events of an execution */
	if (v->n && r->report.here.valid && r->report.here.step > v->ev[v->n - 1].step)
		fprintf(f, "  (the trace holds the first %zu events, up to step %" PRIu32
			   ": the steps after it are not drawn)\n", v->n, v->ev[v->n - 1].step);
	if (r->kind != WEFT_KIND_NONE) {
		const struct weft_caller *oc = v->other_idx < v->n ? v->ev[v->other_idx].caller
								  : r->report.other_caller;
		fprintf(f, "  %s\n", r->report.msg);
		if (!lost_wakeup_side(f, v))
			side_line(f, v, v->fail_idx, "!!", "fails", &r->report.here,
				  r->report.here_caller);
		if (r->report.stack[0])
			fprintf(f, "     called from %s\n", r->report.stack);
		side_line(f, v, v->other_idx, "^^", "earlier conflicting access", &r->report.other,
			  oc);
	}
	for (size_t k = 0; k < nstale; k++) {
		char fix[300], what[160];
		const struct weft_event *e = &v->ev[stale[k].read];
		weft_describe_loc(sc, e->loc, what, sizeof(what));
		weft_weak_fix(v, &stale[k], fix, sizeof(fix));
		fprintf(f, "  ~~ stale read: step %" PRIu32 ", %s read %s: %s\n", e->step,
			weft_trace_thread(v, e->tid), what, fix);
	}
	if (r->preemptions)
		fprintf(f, "   * ran right after a preemption (the thread before it could have "
			   "gone on)\n");
	if (v->show_ctx)
		fprintf(f, "  context: I interrupts off, H in a hard interrupt, P preemption off, "
			   "B bottom halves off, S in a softirq\n");
	if (!full && v->shown) {
		char who[160] = "", what[200] = "";
		size_t k = 0;
		for (unsigned t = 0; t < 32 && k + 40 < sizeof(who); t++)
			if (v->racing >> t & 1)
				k += (size_t)snprintf(who + k, sizeof(who) - k, "%s%s",
						      !k ? "" : (v->racing >> (t + 1)) ? ", " : " and ",
						      weft_trace_thread(v, t));
		k = 0;
		for (unsigned o = 0; o < v->nobj && k + 70 < sizeof(what); o++)
			k += (size_t)snprintf(what + k, sizeof(what) - k, "%s%s", o ? ", " : "",
					      v->objects[o]);
		char reads[64] = "";
		if (v->fail_idx < v->n && v->ev[v->fail_idx].tid != 0xff)
			snprintf(reads, sizeof(reads), "%s's reads%s, ",
				 weft_trace_thread(v, v->ev[v->fail_idx].tid),
				 v->fail_preempted ? " since it was preempted" : "");
		if (v->nobj)
			fprintf(f, "  (%zu of %zu events shown: %s on %s, %sthe stores they read, "
				   "where threads were preempted, locks; --full shows all)\n",
				shown, v->n, who[0] ? who : "the threads", what, reads);
		else
			fprintf(f, "  (%zu of %zu events shown: %sthe stores they read, where threads "
				   "were preempted, locks; --full shows all)\n",
				shown, v->n, reads);
	}
	free(rows);
}
