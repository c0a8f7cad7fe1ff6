/*
 * test_sleep_golden.c - the sleeping-primitive demos give the same trace
 * hash in every build and on every machine (as tests/core/test_golden.c
 * does for the first demos): fixed inputs against hashes recorded once
 * (x86-64, gcc 12). A change of a sleeping primitive's scheduling points,
 * events or values changes them on purpose: regenerate with
 * `test_sleep_golden --print > tests/sleep/sleep-golden.inc`, and remake
 * the demos' replays in corpus/regressions.
 */
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

static const struct golden golden[] = {
#include "sleep-golden.inc"
};

static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (; h[0] && h[1] && n < cap; h += 2) {
		unsigned v;
		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

int main(int argc, char **argv)
{
	bool print = argc > 1 && !strcmp(argv[1], "--print");

	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		const struct golden *g = &golden[i];
		unsigned vi;
		const struct weft_scenario *sc = weft_scenario_find(g->spec, &vi);
		uint8_t in[WEFT_INPUT_MAX];
		size_t n = unhex(g->hex, in, sizeof(in));
		struct weft_bytes b;
		struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = g->lock };
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
	return print ? 0 : check_done();
}
