/*
 * timeline.h - timelines a person opens: Chrome trace / Perfetto JSON
 * (per-CPU lanes, lock spans, counter tracks of the reported object's
 * values, the failure and the preemptions as instant events) and a
 * self-contained HTML page (inline SVG of the same, the race diagram, and
 * the full event table; no scripts, no external resources).
 */
#ifndef WEFT_TIMELINE_H
#define WEFT_TIMELINE_H

#include <stdio.h>

#include "race_diagram.h"

void weft_timeline_chrome_json(FILE *f, const struct weft_trace_view *v);
void weft_timeline_html(FILE *f, const struct weft_trace_view *v);

#endif
