/*
 * trace_view.h - a recorded execution as the race diagram and the
 * timelines read it: which events the failure depends on (the default
 * view), who each thread is (a scenario thread, an interrupt handler, a
 * kworker), what context each event ran in, and each event's text with
 * its values ("atomic_dec_return(&p->count): page 0 ->count 1 → 0").
 *
 * The view reads the events of the machine's last execution
 * (weft_last_events()); it never touches the machine except to name world
 * offsets and threads of that execution.
 */
#ifndef WEFT_TRACE_VIEW_H
#define WEFT_TRACE_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include <weft/weft.h>

#define WEFT_VIEW_MAX_OBJECTS 4

struct weft_trace_view {
	const struct weft_scenario *sc;
	unsigned variant;
	enum weft_lock_model lock;
	const struct weft_exec_result *r;
	const struct weft_event *ev;     /* weft_last_events() of r's execution */
	size_t n;
	/* derived by weft_trace_view_init */
	size_t fail_idx;                 /* the failing event, or n */
	size_t other_idx;                /* the earlier conflicting access, or n */
	char prefix[64];                 /* reported object name ("page 0") */
	/* the reported object's fields that matter to threads outside the
	 * race: the ones read-modify-written (the counts, the flag words),
	 * the reported one, the conflicting one */
	uint32_t key[16];
	unsigned nkey;
	/* the race: the objects the failing and the conflicting access touch
	 * ("page 0", "folio 6") and the threads that made them (bit t) */
	char objects[WEFT_VIEW_MAX_OBJECTS][64];
	unsigned nobj;
	uint64_t racing;
	/* the failing thread's path: its reads from reads_from on (its last
	 * step before its first preemption; 0 if it was never preempted) are
	 * kept with the stores of other threads behind them */
	size_t reads_from;
	bool fail_preempted;
	/* per event: kept by the default view (NULL: every event) */
	uint8_t *shown;
	/* per event: the index of the first event of the helper call it is
	 * part of (a list helper called by the model), or SIZE_MAX */
	size_t *call_of;
	/* draw contexts: interrupts, masking, or threads sharing a CPU */
	bool show_ctx;
	/* threads of the execution, by number: "T0", "IRQ dev_irq",
	 * "kworker/1"; irq: the scenario interrupt it delivers, or -1 */
	unsigned nthreads;
	char name[WEFT_EXEC_MAX_THREADS][32];
	int irq[WEFT_EXEC_MAX_THREADS];
	/* a machine-made softirq pseudo-thread (the timers' "timer/N") */
	bool softirq[WEFT_EXEC_MAX_THREADS];
	uint32_t ended[WEFT_EXEC_MAX_THREADS];   /* weft_last_thread_end() */
};

void weft_trace_view_init(struct weft_trace_view *v);
void weft_trace_view_fini(struct weft_trace_view *v);
/* Is event i in the default view (the failure depends on it)? */
bool weft_trace_involved(const struct weft_trace_view *v, size_t i);
/* "atomic_dec_and_test(&page->count): page 0 ->count 1 → 0"; an event of
 * a helper call is named by the model's call ("list_del(&p->lru): page 0
 * ->lru.next = &inactive_list"). */
void weft_trace_event_text(const struct weft_trace_view *v, size_t i, char *buf, size_t n);
/* A value as the diagram prints it (pointers into the world by name). */
void weft_trace_value(const struct weft_trace_view *v, const struct weft_event *e, uint64_t x,
		      char *buf, size_t n);
/* A world pointer's target by name: the largest object or field that
 * starts at off ("page 0", "page 0 ->lru"), not the first field that
 * shares its address ("page 0 ->count", "page 0 ->lru.next"). */
void weft_trace_pointer_name(const struct weft_trace_view *v, uint32_t off, char *buf, size_t n);
/* For an event of the host context (tid 0xff): "setup" before the first
 * thread event, "audit" after (quiescence). */
const char *weft_trace_host_phase(const struct weft_trace_view *v, size_t i);

/* The name of thread tid ("T0", "IRQ dev_irq", "kworker/1"). */
const char *weft_trace_thread(const struct weft_trace_view *v, unsigned tid);
/* The thread an interrupt entry (or return) at event i interrupted: the
 * one running on that CPU before it, or -1 if the CPU was idle. */
int weft_trace_interrupted(const struct weft_trace_view *v, size_t i);
/* The context of event i as a 3-letter tag: [I|H][P][B|S] (interrupts
 * off / in a hard interrupt; preemption off; bottom halves off / in a
 * softirq), spaces where a letter does not apply. */
void weft_trace_ctx_tag(const struct weft_trace_view *v, size_t i, char tag[4]);
/* The CPU column event i is drawn in: its CPU, except a migration (drawn
 * where the thread leaves) and a lost wake-up's report (drawn on the
 * sleeper's CPU, whoever ran last). */
unsigned weft_trace_cpu(const struct weft_trace_view *v, size_t i);
/* The thread event i is about (the sleeper for a lost wake-up's report). */
unsigned weft_trace_tid(const struct weft_trace_view *v, size_t i);
/* "func() at file:line" of event i: the model's call for a helper's
 * event, else the site's. */
void weft_trace_where(const struct weft_trace_view *v, size_t i, char *buf, size_t n);

#endif
