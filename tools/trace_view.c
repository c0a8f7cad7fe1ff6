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
 * Length: the event selection (what the cause needs), the per-CPU columns,
 * context lanes and folding are one pass over a recorded trace.
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
	    !strcmp(name, "an address far from the world") || !strcmp(name, "(outside the world)"))
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
	bool soft = e->tid != 0xff && is_irq_thread(v, e->tid) &&
		    v->sc->irqs[v->irq[e->tid]].kind == WEFT_SOFTIRQ;

	tag[0] = e->flags & WEFT_EVF_HARDIRQ ? 'H' : e->flags & WEFT_EVF_IRQOFF ? 'I' : ' ';
	tag[1] = e->flags & WEFT_EVF_NOPREEMPT ? 'P' : ' ';
	tag[2] = e->flags & WEFT_EVF_SOFTIRQ ? (soft ? 'S' : 'B') : ' ';
	tag[3] = 0;
}

static bool is_migration(const struct weft_event *e)
{
	return e->ev == WEFT_EV_CTX && e->site && !strcmp(e->site->what, "migrate");
}

static bool lost_wakeup_note(const struct weft_trace_view *v, size_t i)
{
	const struct weft_report *rp = &v->r->report;

	return i == v->fail_idx && rp->here.valid && rp->here.tid >= 0 &&
	       v->ev[i].tid != (uint8_t)rp->here.tid;
}

unsigned weft_trace_cpu(const struct weft_trace_view *v, size_t i)
{
	const struct weft_event *e = &v->ev[i];

	if (lost_wakeup_note(v, i) && v->r->report.here.cpu >= 0)
		return (unsigned)v->r->report.here.cpu;
	if (is_migration(e))
		return (unsigned)e->old;
	return e->cpu == 0xff ? 0 : e->cpu;
}

unsigned weft_trace_tid(const struct weft_trace_view *v, size_t i)
{
	if (lost_wakeup_note(v, i))
		return (unsigned)v->r->report.here.tid;
	return v->ev[i].tid;
}

void weft_trace_where(const struct weft_trace_view *v, size_t i, char *buf, size_t n)
{
	const struct weft_event *e = &v->ev[i];

	weft_site_where(buf, n, e->site, e->caller);
}

/* ------------------------------------------------------------- values */

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

void weft_trace_value(const struct weft_trace_view *v, const struct weft_event *e, uint64_t x,
		      char *buf, size_t n)
{
	char name[96] = "";
	const char *what = e->site ? e->site->what : NULL;
	enum weft_value_form form;

	if (e->loc != WEFT_NO_LOC)
		weft_describe_loc(v->sc, e->loc, name, sizeof(name));
	form = weft_value_form(x, e->loc != WEFT_NO_LOC ? name : NULL, what);
	if (form == WEFT_VALUE_POINTER) {
		weft_trace_pointer_name(v, (uint32_t)(x & 0xffffffffu), name, sizeof(name));
		snprintf(buf, n, "&%s", name);
		return;
	}
	if ((x == 0x100 || x == 0x122) && list_pointer_field(e->loc != WEFT_NO_LOC ? name : NULL,
							     what)) {
		snprintf(buf, n, "LIST_POISON%d", x == 0x100 ? 1 : 2);
		return;
	}
	/* the diagram's own hex words (swap slots, flag words) */
	if (form != WEFT_VALUE_SIGNED64 && wants_hex(e->loc != WEFT_NO_LOC ? name : NULL, what))
		form = WEFT_VALUE_HEX;
	switch (form) {
	case WEFT_VALUE_HEX:
		snprintf(buf, n, "0x%02" PRIx64, x);
		break;
	case WEFT_VALUE_SIGNED32:
		snprintf(buf, n, "%" PRId32, (int32_t)(uint32_t)x);
		break;
	case WEFT_VALUE_SIGNED64:
		snprintf(buf, n, "%" PRId64, (int64_t)x);
		break;
	default:
		snprintf(buf, n, "%" PRIu64, x);
		break;
	}
}

/* "[irqs off]", "[preemption on, BH on]": what a context change did. */
static void ctx_change(uint64_t before, uint64_t after, char *buf, size_t n)
{
	static const struct { unsigned bit; const char *name; } parts[] = {
		{ WEFT_EVF_IRQOFF, "irqs" },
		{ WEFT_EVF_NOPREEMPT, "preemption" },
		{ WEFT_EVF_SOFTIRQ, "BH" },
	};
	size_t k = 0;

	buf[0] = 0;
	for (unsigned p = 0; p < 3 && k + 24 < n; p++) {
		bool was = before & parts[p].bit, is = after & parts[p].bit;
		if (was == is)
			continue;
		k += (size_t)snprintf(buf + k, n - k, "%s%s %s", k ? ", " : " [", parts[p].name,
				      is ? "off" : "on");
	}
	if (k)
		snprintf(buf + k, n - k, "]");
	else
		snprintf(buf, n, " [nested: no change]");
}

/* A lock's owner word as a block or a sleep traced it (1 + the holder;
 * 0xffffffff: taken by setup): false when it names nobody this execution
 * had. */
static bool holder_name(const struct weft_trace_view *v, uint64_t owner, char *buf, size_t n)
{
	if (owner == 0xffffffffu) {
		snprintf(buf, n, "setup");
		return true;
	}
	if (!owner || owner - 1 >= v->nthreads)
		return false;
	snprintf(buf, n, "%s", weft_trace_thread(v, (unsigned)(owner - 1)));
	return true;
}

void weft_trace_event_text(const struct weft_trace_view *v, size_t i, char *buf, size_t n)
{
	const struct weft_event *e = &v->ev[i];
	/* a helper's events are the model's call of it */
	char what[160];
	char obj[96] = "", a[96], b[96];

	weft_site_label(e->caller && !(e->caller->flags & WEFT_CALLER_KIT) ? e->caller->what
			: e->site ? e->site->what : "?", what, sizeof(what));
	bool flush = e->site && !strncmp(e->site->what, "flush_work(", 11);

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
		if (flush)   /* workqueue.c: old the item's data, val its running CPU */
			snprintf(buf, n, "%s [waits: %s pending or running]", what, obj);
		else if (e->loc == WEFT_NO_LOC && e->site && e->site->ev == WEFT_EV_JOIN)
			snprintf(buf, n, "%s [waits for %s to end]", what,
				 weft_trace_thread(v, (unsigned)e->val));
		else if (holder_name(v, e->old, a, sizeof(a)))
			snprintf(buf, n, "%s [waits: %s held by %s]", what, obj, a);
		else
			snprintf(buf, n, "%s [waits for %s]", what, obj);
		break;
	case WEFT_EV_WAIT:
		/* sleeping primitives (core/src/primitives/sleep.c, waitqueue.c): val 0
		 * falls asleep, 1 woken and running again, 2 did not sleep;
		 * flush_work(): old whether it waited */
		if (flush)
			snprintf(buf, n, "%s [%s]", what, e->old ? "done: it ran" : "nothing to wait for");
		else if (e->val == 1)
			snprintf(buf, n, "%s [woken%s%s]", what, obj[0] ? " on " : "", obj);
		else if (e->val == 2)
			snprintf(buf, n, "%s [does not sleep: already woken]", what);
		else if (holder_name(v, e->old, a, sizeof(a)))
			snprintf(buf, n, "%s [sleeps: %s held by %s]", what, obj, a);
		else
			snprintf(buf, n, "%s [sleeps on %s]", what, obj);
		break;
	case WEFT_EV_WAKE: {
		/* old: mask of the threads woken; val: how many */
		char who[96] = "";
		size_t k = 0;
		for (unsigned t = 0; t < 32 && k + 24 < sizeof(who); t++)
			if (e->old >> t & 1)
				k += (size_t)snprintf(who + k, sizeof(who) - k, "%s%s", k ? ", " : "",
						      weft_trace_thread(v, t));
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
		obj[weft_name_object_len(obj)] = 0;
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
	case WEFT_EV_SPAWN:
		/* old: its CPU, val: its number */
		snprintf(buf, n, "%s [starts %s on CPU%" PRIu64 "]", what,
			 weft_trace_thread(v, (unsigned)e->val), e->old);
		break;
	case WEFT_EV_JOIN:
		snprintf(buf, n, "%s [%s has ended]", what, weft_trace_thread(v, (unsigned)e->val));
		break;
	case WEFT_EV_END:
		snprintf(buf, n, "ends");   /* rows name their thread */
		break;
	case WEFT_EV_IRQ_ENTER:
	case WEFT_EV_IRQ_EXIT: {
		int t = weft_trace_interrupted(v, i);
		const char *irq = weft_trace_thread(v, e->tid);
		if (e->ev == WEFT_EV_IRQ_EXIT)
			snprintf(buf, n, "%s returns%s%s", irq, t >= 0 ? " to " : "",
				 t >= 0 ? weft_trace_thread(v, (unsigned)t) : "");
		else if (t >= 0)
			snprintf(buf, n, "%s interrupts %s", irq, weft_trace_thread(v, (unsigned)t));
		else
			snprintf(buf, n, "%s on idle CPU%" PRIu64, irq, e->val);
		break;
	}
	case WEFT_EV_CTX:
		if (is_migration(e)) {
			snprintf(buf, n, "%s migrates CPU%" PRIu64 " \u2192 CPU%" PRIu64,
				 weft_trace_thread(v, e->tid), e->old, e->val);
		} else if (e->site && !strncmp(e->site->what, "raise_irq(", 10)) {
			/* old: the scenario irq, val: its pseudo-thread */
			snprintf(buf, n, "%s [%s pending]", what,
				 weft_trace_thread(v, (unsigned)e->val));
		} else {
			ctx_change(e->old, e->val, a, sizeof(a));
			snprintf(buf, n, "%s%s", what, a);
		}
		break;
	default:
		snprintf(buf, n, "%s%s%s", what, obj[0] ? " " : "", obj);
		break;
	}
}
