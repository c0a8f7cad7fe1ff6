/*
 * trace_view.c - what the race diagram and the timelines draw of a
 * recorded execution (trace_view.h).
 *
 * The default view keeps the events the failure depends on (issue 11,
 * item 8), not only the operations on the failing field:
 *  - the failing access and the earlier conflicting one;
 *  - the race's objects: the object each of them touches ("page 0" of
 *    "page 0 ->state") and the reported one. The racing threads (the
 *    failing one, the conflicting one, the sleeper of a lost wake-up)
 *    show every access to them, whatever the field, and every access
 *    whose value points into them (the compound_head() or xa_load() that
 *    led a thread to the object, the store that published it); other
 *    threads show their read-modify-writes, frees and notes there, and
 *    plain loads and stores of the fields that matter (read-modify-written
 *    somewhere, failing, conflicting);
 *  - for each of those loads, the store of another thread it read from;
 *  - the failing thread's reads since its first preemption, on any object,
 *    with the stores of other threads they read from and the last store of
 *    another thread to each before the failure (mark_failing_reads);
 *  - where a thread was preempted (or interrupted): its last three steps
 *    before it, back to its current workload operation;
 *  - the structure: workload operations, choices, sleeping and waking,
 *    threads started and joined, interrupts, context changes, and the
 *    lock operations whose critical sections matter (they touch the
 *    race's objects, someone waits for the lock, or a preemption or the
 *    failure happens inside).
 * A report that names no object keeps every event.
 *
 * The words an event is drawn with (its CPU column, "func() at
 * file:line", values, text) are in trace_text.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <weft/context.h>

#include "trace_view.h"

#define PREEMPTED_TAIL 3   /* steps kept before a preemption */

/* ----------------------------------------------------------- names */

static bool name_has_prefix(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return n && !strncmp(name, prefix, n) &&
	       (name[n] == 0 || name[n] == ' ' || name[n] == '-' || name[n] == '.' ||
		name[n] == '[');
}

/* The object a world offset belongs to: its name up to the first field
 * ("page 0" of "page 0 ->lru.next", "inactive_list" of
 * "inactive_list.prev"). */
static void object_of(const struct weft_trace_view *v, uint32_t loc, char *buf, size_t n)
{
	weft_describe_loc(v->sc, loc, buf, n);
	buf[weft_name_object_len(buf)] = 0;
}

void weft_trace_pointer_name(const struct weft_trace_view *v, uint32_t off, char *buf, size_t n)
{
	weft_describe_pointer(v->sc, off, buf, n);
}

const char *weft_trace_host_phase(const struct weft_trace_view *v, size_t i)
{
	for (size_t k = 0; k < i && k < v->n; k++)
		if (v->ev[k].tid != 0xff)
			return "audit";
	return "setup";
}

const char *weft_trace_thread(const struct weft_trace_view *v, unsigned tid)
{
	static char buf[16];

	if (tid < v->nthreads)
		return v->name[tid];
	snprintf(buf, sizeof(buf), "T%u", tid);
	return buf;
}

static bool is_irq_thread(const struct weft_trace_view *v, unsigned tid)
{
	return tid < v->nthreads && v->irq[tid] >= 0;
}

static void name_threads(struct weft_trace_view *v)
{
	unsigned nt = weft_last_nr_threads();

	v->nthreads = nt < WEFT_EXEC_MAX_THREADS ? nt : WEFT_EXEC_MAX_THREADS;
	for (unsigned t = 0; t < WEFT_EXEC_MAX_THREADS; t++) {
		int q = t < v->nthreads ? weft_last_thread_irq(t) : -1;
		const char *label = t < v->nthreads ? weft_last_thread_label(t) : NULL;
		v->irq[t] = q >= 0 && (unsigned)q < v->sc->nr_irqs ? q : -1;
		v->softirq[t] = q >= 0 && (unsigned)q >= v->sc->nr_irqs;
		v->ended[t] = t < v->nthreads ? weft_last_thread_end(t) : UINT32_MAX;
		if (v->irq[t] >= 0)
			snprintf(v->name[t], sizeof(v->name[t]), "IRQ %s", v->sc->irqs[q].name);
		else if (label)
			snprintf(v->name[t], sizeof(v->name[t]), "%s", label);
		else
			snprintf(v->name[t], sizeof(v->name[t]), "T%u", t);
	}
	/* events of threads beyond the last execution's (a hand-made trace) */
	for (size_t i = 0; i < v->n; i++)
		if (v->ev[i].tid != 0xff && v->ev[i].tid >= v->nthreads &&
		    v->ev[i].tid < WEFT_EXEC_MAX_THREADS)
			v->nthreads = v->ev[i].tid + 1u;
}

/* ------------------------------------------------------- the default view */

static void add_key(struct weft_trace_view *v, uint32_t loc)
{
	if (loc == WEFT_NO_LOC || v->nkey == sizeof(v->key) / sizeof(v->key[0]))
		return;
	for (unsigned k = 0; k < v->nkey; k++)
		if (v->key[k] == loc)
			return;
	v->key[v->nkey++] = loc;
}

static void add_object(struct weft_trace_view *v, const char *name)
{
	if (!name[0] || v->nobj == WEFT_VIEW_MAX_OBJECTS || !strncmp(name, "world+", 6) ||
	    !strncmp(name, "world-", 6) || !strncmp(name, "NULL+", 5) ||
	    !strcmp(name, "an address far from the world") ||
	    !strcmp(name, "a static variable of the program") || !strcmp(name, "(outside the world)"))
		return;
	for (unsigned k = 0; k < v->nobj; k++)
		if (!strcmp(v->objects[k], name))
			return;
	snprintf(v->objects[v->nobj++], sizeof(v->objects[0]), "%s", name);
}

static void add_racing(struct weft_trace_view *v, int tid)
{
	if (tid >= 0 && tid < 64)
		v->racing |= 1ull << tid;
}

/* Does world offset loc belong to one of the race's objects? */
static bool in_objects(const struct weft_trace_view *v, uint32_t loc)
{
	char name[96];

	if (loc == WEFT_NO_LOC || !v->nobj)
		return false;
	weft_describe_loc(v->sc, loc, name, sizeof(name));
	for (unsigned k = 0; k < v->nobj; k++)
		if (name_has_prefix(name, v->objects[k]))
			return true;
	return false;
}

static bool is_key(const struct weft_trace_view *v, uint32_t loc)
{
	for (unsigned k = 0; k < v->nkey; k++)
		if (v->key[k] == loc)
			return true;
	return false;
}

static bool is_access(unsigned ev)
{
	return ev == WEFT_EV_READ || ev == WEFT_EV_WRITE || ev == WEFT_EV_RMW;
}

static bool racing(const struct weft_trace_view *v, const struct weft_event *e)
{
	return e->tid < 64 && (v->racing >> e->tid & 1);
}

/* Event i is an operation on the race's objects that matters; on[] caches
 * in_objects() per event. */
static bool object_event(const struct weft_trace_view *v, size_t i, const uint8_t *on)
{
	const struct weft_event *e = &v->ev[i];

	if (e->loc == WEFT_NO_LOC)
		return e->ev == WEFT_EV_NOTE;
	if (!on[i])
		return false;
	if (racing(v, e))
		return true;   /* the racing threads: every access to the objects */
	if (e->ev == WEFT_EV_READ || e->ev == WEFT_EV_WRITE)
		return is_key(v, e->loc);   /* others: the fields that matter */
	return true;
}

/* A value that points into one of the race's objects. */
static bool points_into(const struct weft_trace_view *v, uint64_t x)
{
	return (x >> 63) && in_objects(v, (uint32_t)(x & 0xffffffffu));
}

/* Lock and unlock rows that matter: the critical section touches the
 * race's objects, someone waits for the lock, or a preemption or the
 * failure happens inside it. */
static void mark_locks(struct weft_trace_view *v, const uint8_t *on)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		if (e->ev == WEFT_EV_BLOCK || (e->ev == WEFT_EV_TRYLOCK && !e->old)) {
			v->shown[i] = 1;
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
			    (f->tid == e->tid && object_event(v, j, on)))
				show = true;
		}
		if (show) {
			v->shown[i] = 1;
			if (j < v->n)
				v->shown[j] = 1;
		}
	}
}

/* The steps of the thread running before event i (a preemption) that led
 * to it: back to its current operation, at most PREEMPTED_TAIL. */
static void mark_preempted_tail(struct weft_trace_view *v, size_t i)
{
	const struct weft_event *e = &v->ev[i];
	size_t k = i;
	unsigned p = 0xff, kept = 0;

	while (k-- > 0)
		if (v->ev[k].tid != 0xff && v->ev[k].tid != e->tid) {
			p = v->ev[k].tid;
			break;
		}
	if (p == 0xff)
		return;
	for (k = i; k-- > 0 && kept < PREEMPTED_TAIL;) {
		const struct weft_event *f = &v->ev[k];
		if (f->tid != p)
			continue;
		v->shown[k] = 1;
		if (f->ev == WEFT_EV_OP)
			break;
		if (f->ev != WEFT_EV_BARRIER && f->ev != WEFT_EV_YIELD)
			kept++;
		if (f->flags & (WEFT_EVF_PREEMPTED | WEFT_EVF_SWITCHED))
			break;   /* where it started running this time */
	}
}

/* For a load j shown, the store of another thread it read from. */
static void mark_reads_from(struct weft_trace_view *v, size_t j)
{
	const struct weft_event *e = &v->ev[j];

	for (size_t k = j; k-- > 0;) {
		const struct weft_event *f = &v->ev[k];
		if (f->loc != e->loc || (f->ev != WEFT_EV_WRITE && f->ev != WEFT_EV_RMW))
			continue;
		if (f->tid != e->tid && f->tid != 0xff)
			v->shown[k] = 1;
		return;   /* the last store to it: its own, setup's, or another's */
	}
}

/*
 * The failing thread's path read from other objects too: what it read
 * since it was first preempted (never preempted: since it started), from
 * whichever object. For each location it read there, keep its read, the
 * store of another thread it read from, and the last store of another
 * thread to that location before the failure (a store it did not see: the
 * value it acted on was stale). An xarray split, a compound head read, a
 * reference taken on another page are decisive events of this kind.
 */
static void mark_failing_reads(struct weft_trace_view *v)
{
	if (v->fail_idx >= v->n || v->ev[v->fail_idx].tid == 0xff)
		return;
	unsigned ft = v->ev[v->fail_idx].tid;
	size_t start = 0;
	uint32_t nloc = 0;

	for (size_t i = 1; i <= v->fail_idx; i++) {
		if (!(v->ev[i].flags & WEFT_EVF_PREEMPTED))
			continue;
		size_t k = i;
		while (k-- > 0 && (v->ev[k].tid == 0xff || v->ev[k].tid == v->ev[i].tid))
			;
		if (k < i && v->ev[k].tid == ft) {
			start = k;   /* its last step before its first preemption */
			v->fail_preempted = true;
			break;
		}
	}
	v->reads_from = start;
	for (size_t i = 0; i <= v->fail_idx; i++)
		if (v->ev[i].loc != WEFT_NO_LOC && v->ev[i].loc >= nloc)
			nloc = v->ev[i].loc + 1;
	if (!nloc)
		return;
	/* per location: 1 + the last store so far, 1 + the last store of a
	 * thread other than ft, and whether ft read it in the window */
	uint32_t *last = calloc(nloc, sizeof(*last));
	uint32_t *other = calloc(nloc, sizeof(*other));
	uint8_t *read = calloc(nloc, 1);
	if (!last || !other || !read)
		goto out;
	for (size_t i = 0; i <= v->fail_idx; i++) {
		const struct weft_event *e = &v->ev[i];
		if (e->loc == WEFT_NO_LOC)
			continue;
		if (e->tid == ft && i >= start && (e->ev == WEFT_EV_READ || e->ev == WEFT_EV_RMW)) {
			uint32_t w = last[e->loc];
			if (w && v->ev[w - 1].tid != ft && v->ev[w - 1].tid != 0xff) {
				v->shown[i] = 1;
				v->shown[w - 1] = 1;
			}
			read[e->loc] = 1;
		}
		if (e->ev == WEFT_EV_WRITE || e->ev == WEFT_EV_RMW || e->ev == WEFT_EV_FREE) {
			last[e->loc] = (uint32_t)i + 1;
			if (e->tid != ft && e->tid != 0xff)
				other[e->loc] = (uint32_t)i + 1;
		}
	}
	for (uint32_t l = 0; l < nloc; l++)
		if (read[l] && other[l] && other[l] - 1 >= start)
			v->shown[other[l] - 1] = 1;
out:
	free(last);
	free(other);
	free(read);
}

static void select_events(struct weft_trace_view *v)
{
	uint8_t *on = calloc(v->n ? v->n : 1, 1);
	uint8_t *pulled = calloc(v->n ? v->n : 1, 1);

	v->shown = calloc(v->n ? v->n : 1, 1);
	if (!on || !pulled || !v->shown) {
		free(v->shown);
		v->shown = NULL;   /* every event */
		free(on);
		free(pulled);
		return;
	}
	for (size_t i = 0; i < v->n; i++)
		on[i] = in_objects(v, v->ev[i].loc);
	mark_locks(v, on);
	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		bool show = i == v->fail_idx || i == v->other_idx;
		switch (e->ev) {
		case WEFT_EV_WAIT:
		case WEFT_EV_WAKE:   /* who sleeps and who wakes: a lost wake-up's story */
		case WEFT_EV_CHOICE:
			/* the model's choices; not the machine's choice of a CPU for
			 * a migration or an interrupt (its own row says where) */
			show = !(e->site && (!strcmp(e->site->what, "migrate") ||
					     !strcmp(e->site->what, "interrupt CPU")));
			break;
		case WEFT_EV_OP:
		case WEFT_EV_SPAWN:
		case WEFT_EV_JOIN:
		case WEFT_EV_END:
		case WEFT_EV_IRQ_ENTER:
		case WEFT_EV_IRQ_EXIT:
		case WEFT_EV_CTX:
			show = true;
			break;
		}
		if (e->flags & (WEFT_EVF_PREEMPTED | WEFT_EVF_FAILED))
			show = true;
		if (object_event(v, i, on)) {
			show = true;
			pulled[i] = 1;
		} else if (racing(v, e) && is_access(e->ev) &&
			   (points_into(v, e->val) || points_into(v, e->old))) {
			show = true;   /* how the thread found the object, or published it */
			pulled[i] = 1;
		}
		if (show)
			v->shown[i] = 1;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		if (pulled[i] && (e->ev == WEFT_EV_READ || e->ev == WEFT_EV_RMW) && e->tid != 0xff)
			mark_reads_from(v, i);
		if ((e->flags & WEFT_EVF_PREEMPTED) && i > 0)
			mark_preempted_tail(v, i);
	}
	mark_failing_reads(v);
	free(on);
	free(pulled);
}

/* Helper calls: consecutive events of one thread with one caller, each
 * call starting at an event flagged WEFT_EVF_CALL. */
static void find_calls(struct weft_trace_view *v)
{
	size_t cur[WEFT_EXEC_MAX_THREADS + 1];
	const struct weft_caller *by[WEFT_EXEC_MAX_THREADS + 1] = { 0 };

	v->call_of = malloc((v->n ? v->n : 1) * sizeof(*v->call_of));
	if (!v->call_of)
		return;
	for (size_t i = 0; i < v->n; i++) {
		const struct weft_event *e = &v->ev[i];
		unsigned t = e->tid == 0xff ? WEFT_EXEC_MAX_THREADS : e->tid % WEFT_EXEC_MAX_THREADS;
		v->call_of[i] = SIZE_MAX;
		if (!e->caller || (e->caller->flags & WEFT_CALLER_KIT)) {
			by[t] = NULL;
			continue;
		}
		if ((e->flags & WEFT_EVF_CALL) || by[t] != e->caller)
			cur[t] = i;
		by[t] = e->caller;
		v->call_of[i] = cur[t];
	}
}

static void decide_ctx(struct weft_trace_view *v)
{
	uint64_t seen[WEFT_EXEC_MAX_CPUS] = { 0 };

	enum weft_kind k = v->r->kind;

	/* a report about a context rule: the contexts are the story */
	v->show_ctx = k == WEFT_KIND_SLEEP_IN_ATOMIC || k == WEFT_KIND_PREEMPTIBLE_PERCPU ||
		      k == WEFT_KIND_IRQ_LOCK_INVERSION;
	for (size_t i = 0; i < v->n && !v->show_ctx; i++) {
		const struct weft_event *e = &v->ev[i];
		if (e->tid == 0xff)
			continue;
		if ((e->flags & (WEFT_EVF_IRQOFF | WEFT_EVF_HARDIRQ | WEFT_EVF_SOFTIRQ)) ||
		    e->ev == WEFT_EV_IRQ_ENTER || e->ev == WEFT_EV_CTX) {
			v->show_ctx = true;
			return;
		}
		if (!is_irq_thread(v, e->tid) && e->cpu < WEFT_EXEC_MAX_CPUS && e->tid < 64) {
			seen[e->cpu] |= 1ull << e->tid;
			if (seen[e->cpu] & (seen[e->cpu] - 1)) {
				v->show_ctx = true;   /* two threads share a CPU */
				return;
			}
		}
	}
}

void weft_trace_view_init(struct weft_trace_view *v)
{
	const struct weft_report *rp = &v->r->report;

	v->fail_idx = v->n;
	v->other_idx = v->n;
	v->prefix[0] = 0;
	v->shown = NULL;
	v->call_of = NULL;
	v->nkey = 0;
	v->nobj = 0;
	v->racing = 0;
	v->reads_from = 0;
	v->fail_preempted = false;
	name_threads(v);
	decide_ctx(v);
	find_calls(v);
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
	if (!v->prefix[0])
		return;   /* nothing named: every event matters */

	/* the race: its objects and its threads */
	char name[96];
	add_object(v, v->prefix);
	if (v->fail_idx < v->n && v->ev[v->fail_idx].loc != WEFT_NO_LOC) {
		object_of(v, v->ev[v->fail_idx].loc, name, sizeof(name));
		add_object(v, name);
	}
	if (v->other_idx < v->n && v->ev[v->other_idx].loc != WEFT_NO_LOC) {
		object_of(v, v->ev[v->other_idx].loc, name, sizeof(name));
		add_object(v, name);
	}
	if (rp->here.valid)
		add_racing(v, rp->here.tid);
	if (rp->other.valid)
		add_racing(v, rp->other.tid);
	if (v->fail_idx < v->n && v->ev[v->fail_idx].tid != 0xff)
		add_racing(v, v->ev[v->fail_idx].tid);

	/* the fields that matter to the other threads */
	add_key(v, rp->loc);
	if (v->other_idx < v->n)
		add_key(v, v->ev[v->other_idx].loc);
	if (v->fail_idx < v->n)
		add_key(v, v->ev[v->fail_idx].loc);
	for (size_t i = 0; i < v->n; i++) {
		if (v->ev[i].ev != WEFT_EV_RMW || v->ev[i].loc == WEFT_NO_LOC)
			continue;
		weft_describe_loc(v->sc, v->ev[i].loc, name, sizeof(name));
		if (name_has_prefix(name, v->prefix))
			add_key(v, v->ev[i].loc);
	}
	select_events(v);
}

void weft_trace_view_fini(struct weft_trace_view *v)
{
	free(v->shown);
	v->shown = NULL;
	free(v->call_of);
	v->call_of = NULL;
}

bool weft_trace_involved(const struct weft_trace_view *v, size_t i)
{
	return !v->shown || i >= v->n || v->shown[i];
}

/* ---------------------------------------------------------- contexts */

int weft_trace_interrupted(const struct weft_trace_view *v, size_t i)
{
	const struct weft_event *e = &v->ev[i];

	if (e->ev == WEFT_EV_IRQ_EXIT) {   /* the one its entry interrupted */
		for (size_t k = i; k-- > 0;)
			if (v->ev[k].ev == WEFT_EV_IRQ_ENTER && v->ev[k].tid == e->tid)
				return weft_trace_interrupted(v, k);
		return -1;
	}
	for (size_t k = i; k-- > 0;) {
		const struct weft_event *f = &v->ev[k];
		if (f->tid == 0xff || f->tid == e->tid || f->cpu != e->cpu)
			continue;
		if (is_irq_thread(v, f->tid))
			continue;   /* a handler that ran before on this CPU */
		if ((f->ev == WEFT_EV_WAIT && f->val == 0) || f->ev == WEFT_EV_END ||
		    (f->tid < WEFT_EXEC_MAX_THREADS && v->ended[f->tid] <= i))
			return -1;  /* it went to sleep or ended: the CPU was idle */
		return f->tid;
	}
	return -1;
}

void weft_trace_ctx_tag(const struct weft_trace_view *v, size_t i, char tag[4])
{
	const struct weft_event *e = &v->ev[i];
	bool soft = e->tid != 0xff && e->tid < v->nthreads &&
		    (v->softirq[e->tid] ||
		     (is_irq_thread(v, e->tid) && v->sc->irqs[v->irq[e->tid]].kind == WEFT_SOFTIRQ));

	tag[0] = e->flags & WEFT_EVF_HARDIRQ ? 'H' : e->flags & WEFT_EVF_IRQOFF ? 'I' : ' ';
	tag[1] = e->flags & WEFT_EVF_NOPREEMPT ? 'P' : ' ';
	tag[2] = e->flags & WEFT_EVF_SOFTIRQ ? (soft ? 'S' : 'B') : ' ';
	tag[3] = 0;
}
