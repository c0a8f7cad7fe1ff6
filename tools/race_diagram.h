/*
 * race_diagram.h - the race as a side-by-side per-CPU diagram (one column
 * per fake CPU, one row per step that matters: trace_view.h chooses them
 * and names them).
 */
#ifndef WEFT_RACE_DIAGRAM_H
#define WEFT_RACE_DIAGRAM_H

#include <stdbool.h>
#include <stdio.h>

#include "trace_view.h"

/* Print the diagram; full: every event, not only the ones that matter. */
void weft_race_diagram(FILE *f, const struct weft_trace_view *v, bool full);

#endif
