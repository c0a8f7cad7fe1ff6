/*
 * native_run.h - the native stress loop (weft stress): real threads, real
 * atomics, the scenario looped with fresh state.
 */
#ifndef WEFT_NATIVE_RUN_H
#define WEFT_NATIVE_RUN_H

#include <weft/weft.h>

struct weft_native_opts {
	const struct weft_scenario *sc;
	unsigned variant;
	enum weft_lock_model lock;
	double seconds;
	uint64_t seed;
	uint64_t max_iterations;    /* 0: until the time is up */
	bool stop_first;            /* stop at the first manifestation */
	double hang_seconds;        /* an iteration longer than this is a hang
				       (deadlock/livelock) report; 0: 2 s */
	const uint8_t *wl;          /* fixed workload bytes, or NULL: random */
	size_t wl_len;
};

struct weft_native_report {
	enum weft_kind kind;
	const struct weft_site *site;
	int tid;
	char msg[192];
};

struct weft_native_result {
	uint64_t iterations;
	uint64_t manifestations;
	double seconds;
	double first_seconds;
	uint64_t first_iteration;
	struct weft_native_report first;
};

int weft_native_run(const struct weft_native_opts *o, struct weft_native_result *r);

#endif
