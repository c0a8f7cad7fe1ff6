/*
 * trace_text.c - the words of a recorded execution's diagram and timelines
 * (trace_view.h): the CPU column and thread an event is drawn in, its
 * "func() at file:line", its values (world pointers by name) and its text.
 * trace_view.c decides which events are shown; this file only words them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/context.h>

#include "trace_view.h"

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
	case WEFT_EV_FLUSH:
		/* weak memory: a buffered store reaches memory */
		weft_trace_value(v, e, e->old, a, sizeof(a));
		weft_trace_value(v, e, e->val, b, sizeof(b));
		snprintf(buf, n, "%s becomes visible: %s %s \u2192 %s", what, obj, a, b);
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
		else if (obj[0])
			snprintf(buf, n, "%s [sleeps on %s]", what, obj);
		else   /* schedule(): on no wait queue */
			snprintf(buf, n, "%s [sleeps]", what);
		break;
	case WEFT_EV_WAKE: {
		/* wake_up_state() (kthread.c): loc the task's state, old the state
		 * it found, val whether it woke the task */
		unsigned task;
		int end = 0;
		if (sscanf(obj, "T%u's task state%n", &task, &end) == 1 && end && !obj[end] &&
		    task < v->nthreads) {
			const char *t = weft_trace_thread(v, task);
			if (e->val)
				snprintf(buf, n, "%s [wakes %s]", what, t);
			else if (e->old == 0)
				snprintf(buf, n, "%s [%s awake already]", what, t);
			else
				snprintf(buf, n, "%s [%s sleeps in a state it does not wake]", what, t);
			break;
		}
		/* every other wake-up: old the mask of the threads woken, val how many */
		char who[96] = "";
		size_t k = 0;
		for (unsigned t = 0; t < 32 && k + 24 < sizeof(who); t++)
			if (e->old >> t & 1)
				k += (size_t)snprintf(who + k, sizeof(who) - k, "%s%s", k ? ", " : "",
						      weft_trace_thread(v, t));
		if (who[0])
			snprintf(buf, n, "%s [wakes %s]", what, who);
		else if (e->val == WEFT_WAKE_HELD_AGAIN)
			snprintf(buf, n, "%s [wakes nobody: %s was taken again, its waiters sleep on]",
				 what, obj);
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
