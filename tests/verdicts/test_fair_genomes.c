/*
 * test_fair_genomes.c - the fuzzer's side of fair scheduling: random schedule
 * genomes (every mode: serial, random walk, pct, pos; random overrides), run
 * as the fuzz targets run them (the bytes strategy, WEFT_CHECKS_DEFAULT),
 * never report a livelock on the correct spin-waiting programs of
 * verdict_models.c, and do find the real one. Before fair scheduling the
 * serial and pct modes starved a lock holder behind a spinning thread.
 * Usage: test_fair_genomes [N genomes per variant]
 */
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "check.h"

static unsigned run(const char *spec, unsigned n, enum weft_kind *first)
{
	unsigned vi, reports = 0;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	struct weft_rng rng;
	static struct weft_bytes b;
	static uint8_t buf[WEFT_INPUT_MAX];

	*first = WEFT_KIND_NONE;
	if (!sc)
		return ~0u;
	weft_rng_seed(&rng, 7);
	for (unsigned i = 0; i < n; i++) {
		struct weft_genome g;
		memset(&g, 0, sizeof(g));
		g.version = 1;
		g.mode = (uint8_t)(i % WEFT_MODE__COUNT);
		g.param = (uint8_t)weft_rng_below(&rng, 256);
		g.seed = (uint32_t)weft_rng_next(&rng);
		g.nr_ov = weft_rng_below(&rng, 6);
		for (unsigned k = 0; k < g.nr_ov; k++) {
			g.ov[k].key = WEFT_OV_KEY(weft_rng_below(&rng, sc->nr_threads),
						  weft_rng_below(&rng, 40));
			g.ov[k].b = (uint8_t)weft_rng_below(&rng, 0x80);
		}
		size_t len = weft_genome_encode(&g, buf, sizeof(buf));
		struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
					   .checks = WEFT_CHECKS_DEFAULT };
		struct weft_exec_result r;
		weft_bytes_init(&b, sc, buf, len);
		if (weft_execute(&o, &weft_strategy_bytes, &b, &r) < 0)
			continue;
		if (r.kind != WEFT_KIND_NONE) {
			if (!reports++)
				*first = r.kind;
		}
	}
	return reports;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 2000;
	static const char *const clean[] = { "verdict-spin:trylock", "verdict-spin:cas-lock",
					     "verdict-spin:tas-bit", "verdict-spin:flag",
					     "verdict-spin:steal" };
	enum weft_kind k;

	for (unsigned i = 0; i < sizeof(clean) / sizeof(clean[0]); i++) {
		unsigned bad = run(clean[i], n, &k);
		CHECK(bad == 0, "%s: %u of %u genomes reported (the first: %s)", clean[i], bad, n,
		      weft_kind_name(k));
	}
	unsigned found = run("verdict-spin:livelock", n, &k);
	CHECK(found > 0 && k == WEFT_KIND_LIVELOCK, "verdict-spin:livelock: %u of %u genomes "
	      "found it (first %s)", found, n, weft_kind_name(k));
	printf("livelock found by %u of %u genomes\n", found, n);
	return check_done();
}
