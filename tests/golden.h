/*
 * golden.h - what the golden-trace tests share (tests/core/test_golden.c,
 * tests/sleep/test_sleep_golden.c): fixed bytes inputs of registered
 * variants against the verdicts and trace hashes recorded once (x86-64,
 * gcc 12), the same in every build and on every machine. `PROG --print`
 * prints the table again, for a model change that moves a scheduling point
 * on purpose.
 */
#ifndef WEFT_GOLDEN_H
#define WEFT_GOLDEN_H

#include <string.h>

#include <weft/strategy.h>

#include "check.h"

struct golden {
	const char *spec;
	enum weft_lock_model lock;
	const char *hex;         /* bytes input */
	const char *kind;        /* expected verdict */
	uint64_t hash;
};

static inline size_t golden_unhex(const char *h, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (; h[0] && h[1] && n < cap; h += 2) {
		unsigned v;
		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

/* Runs (or with print, prints) the table under weft_run_opts.checks =
 * checks (0: the first trace hash; WEFT_CHECK_TRACE_HASH2: the second). */
static inline void golden_run(bool print, const struct golden *golden, size_t ng, unsigned checks)
{
	for (size_t i = 0; i < ng; i++) {
		const struct golden *g = &golden[i];
		unsigned vi;
		const struct weft_scenario *sc = weft_scenario_find(g->spec, &vi);
		uint8_t in[WEFT_INPUT_MAX];
		size_t n = golden_unhex(g->hex, in, sizeof(in));
		struct weft_bytes b;
		struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = g->lock,
					   .checks = checks };
		struct weft_exec_result r;

		CHECK(sc != NULL, "no scenario %s", g->spec);
		if (!sc)
			continue;
		weft_bytes_init(&b, sc, in, n);
		CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute %s", g->spec);
		if (print) {
			printf("\t{ \"%s\", %s, \"%s\", \"%s\", 0x%016llxull },\n", g->spec,
			       g->lock == WEFT_LOCK_TICKET ? "WEFT_LOCK_TICKET" : "WEFT_LOCK_TAS",
			       g->hex, weft_kind_name(r.kind), (unsigned long long)r.trace_hash);
			continue;
		}
		CHECK(!strcmp(weft_kind_name(r.kind), g->kind), "%s %s: verdict %s, want %s",
		      g->spec, g->hex, weft_kind_name(r.kind), g->kind);
		CHECK(r.trace_hash == g->hash, "%s %s: trace hash %016llx, recorded %016llx",
		      g->spec, g->hex, (unsigned long long)r.trace_hash,
		      (unsigned long long)g->hash);
	}
}

static inline int golden_main(int argc, char **argv, const struct golden *golden, size_t ng)
{
	bool print = argc > 1 && !strcmp(argv[1], "--print");

	golden_run(print, golden, ng, 0);
	return print ? 0 : check_done();
}

#endif
