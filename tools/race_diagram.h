/*
 * race_diagram.h - the race as a side-by-side per-CPU diagram (one column
 * per fake CPU, one row per step that matters), and the helpers the
 * timelines share: which events involve the reported object, and an
 * event's text with its values ("page 0 ->count 1 → 0").
 */
#ifndef WEFT_RACE_DIAGRAM_H
#define WEFT_RACE_DIAGRAM_H

#include <stdbool.h>
#include <stdio.h>

#include <weft/weft.h>

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
	/* the object's fields that matter: the ones read-modify-written (the
	 * counts, the flag words), the reported one, the conflicting one */
	uint32_t key[16];
	unsigned nkey;
	/* per event: a lock operation worth showing (the critical section
	 * touches the object, is contended, or is preempted); NULL: all */
	uint8_t *lock_shown;
};

void weft_trace_view_init(struct weft_trace_view *v);
void weft_trace_view_fini(struct weft_trace_view *v);
/* Does event i touch the reported object (or is it the report itself)? */
bool weft_trace_involved(const struct weft_trace_view *v, size_t i);
/* "atomic_dec_and_test(&page->count): page 0 ->count 1 → 0" */
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

/* Print the diagram; full: every event, not only the ones that matter. */
void weft_race_diagram(FILE *f, const struct weft_trace_view *v, bool full);

#endif
