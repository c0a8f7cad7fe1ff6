/*
 * test_genome.c - the schedule genome (weft.h, docs/strategies.md):
 *  - decode(encode(g)) == g, and every byte string with the magic decodes;
 *  - only inputs starting FF C1 are genomes: every legacy input keeps its
 *    meaning (a serial genome runs exactly the legacy serial execution of
 *    the same workload: same trace hash);
 *  - each mode is deterministic (same input, same trace hash, twice) and
 *    the seeded modes differ from serial on some seed;
 *  - an override stays put when another thread's workload changes: the
 *    preempted thread is preempted after the same number of its own events;
 *  - the mutator (genome_mutate.c) is deterministic: two mutators given the
 *    same seeds and rewards make the same inputs; every output is a genome
 *    that runs; ov-insert lands inside the parent's own execution; a
 *    rewarded arm's share grows; the warm-up's forced fresh genomes draw
 *    their mode from the warm-up's shares, other fresh genomes from the
 *    prior;
 *  - a raw input of 0 or 1 bytes stands for a fresh walk genome
 *    (weft_raw_input: random workload, version 2 at a delay rate of 24..59
 *    under weak memory), the same bytes in every build (pinned), and the
 *    mutator edits that genome; an input of 2 or more bytes is itself;
 *  - o->genome_lean (the fuzz targets' lean access path with on_step and
 *    feedback) changes no execution, trace hash or feedback map.
 */
#include <stdlib.h>
#include <string.h>

#include <weft/fuzz.h>

#include "../check.h"

static struct weft_exec_result run(const struct weft_scenario *sc, unsigned vi, const uint8_t *buf,
				   size_t len, bool record)
{
	static struct weft_bytes b;
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .record = record };
	struct weft_exec_result r;

	weft_bytes_init(&b, sc, buf, len);
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute failed");
	return r;
}

static void test_roundtrip(void)
{
	struct weft_genome g, h;
	uint8_t buf[WEFT_INPUT_MAX], raw[64];

	memset(&g, 0, sizeof(g));
	g.mode = WEFT_MODE_PCT;
	g.param = 2 | 6 << 3;
	g.seed = 0xdeadbeef;
	g.nr_ops = 3;
	for (unsigned k = 0; k < 3; k++) {
		g.wl[k].t_op = (uint8_t)(k << 4 | k);
		g.wl[k].arg = (uint8_t)(7 * k);
	}
	g.nr_ov = 2;
	g.ov[0].key = WEFT_OV_KEY(1, 17);
	g.ov[0].b = 1;
	g.ov[1].key = 3;
	g.ov[1].b = 0x82;
	size_t n = weft_genome_encode(&g, buf, sizeof(buf));
	CHECK(n == WEFT_GENOME_HEADER + 6 + 6, "encoded %zu bytes", n);
	CHECK(weft_input_is_genome(buf, n), "not recognised");
	weft_genome_decode(&h, buf, n);
	CHECK(h.mode == g.mode && h.param == g.param && h.seed == g.seed && h.nr_ops == 3 &&
		      h.nr_ov == 2 && h.ov[0].key == g.ov[0].key && h.ov[1].b == 0x82,
	      "roundtrip");
	/* version 2: its header's ninth byte is the weak-memory rate */
	g.version = 2;
	g.mem = 37;
	n = weft_genome_encode(&g, buf, sizeof(buf));
	CHECK(n == WEFT_GENOME_HEADER2 + 6 + 6 && buf[1] == WEFT_GENOME_MAGIC2 && buf[8] == 37,
	      "version 2 encoded as %zu bytes", n);
	weft_genome_decode(&h, buf, n);
	CHECK(h.version == 2 && h.mem == 37 && h.mode == g.mode && h.seed == g.seed &&
		      h.nr_ops == 3 && h.wl[2].t_op == g.wl[2].t_op && h.nr_ov == 2 &&
		      h.ov[0].key == g.ov[0].key,
	      "version 2 roundtrip (mem %u)", h.mem);
	/* every prefix and random tail decodes, never past len */
	for (unsigned i = 0; i < 2000; i++) {
		size_t len = 2 + (size_t)rand() % (sizeof(raw) - 2);
		for (size_t k = 0; k < len; k++)
			raw[k] = (uint8_t)rand();
		raw[0] = WEFT_GENOME_MAGIC0;
		raw[1] = WEFT_GENOME_MAGIC1;
		weft_genome_decode(&h, raw, len);
		CHECK(h.mode < WEFT_MODE__COUNT && WEFT_GENOME_HEADER + 2 * h.nr_ops + 3 * h.nr_ov <=
						      (len > WEFT_GENOME_HEADER ? len : WEFT_GENOME_HEADER),
		      "decoded past the end");
	}
	/* legacy inputs are never genomes unless they start FF C1 */
	uint8_t legacy[3] = { 0xff, 0xc0, 0 };
	CHECK(!weft_input_is_genome(legacy, 3), "FF C0 is legacy");
	CHECK(!weft_input_is_genome(legacy, 1), "FF is legacy");
}

/* A serial genome of workload W runs exactly the legacy serial run of W. */
static void test_serial_equals_legacy(const char *spec)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	uint8_t leg[1 + 2 * 6], gen[WEFT_GENOME_HEADER + 2 * 6];
	struct weft_genome g;

	CHECK(sc, "no scenario %s", spec);
	for (unsigned trial = 0; trial < 50; trial++) {
		memset(&g, 0, sizeof(g));
		g.nr_ops = 1 + (unsigned)rand() % 6;
		leg[0] = (uint8_t)g.nr_ops;
		for (unsigned k = 0; k < g.nr_ops; k++) {
			g.wl[k].t_op = leg[1 + 2 * k] = (uint8_t)rand();
			g.wl[k].arg = leg[2 + 2 * k] = (uint8_t)rand();
		}
		size_t n = weft_genome_encode(&g, gen, sizeof(gen));
		struct weft_exec_result a = run(sc, vi, leg, 1 + 2 * (size_t)g.nr_ops, false);
		struct weft_exec_result b = run(sc, vi, gen, n, false);
		CHECK(a.trace_hash == b.trace_hash && a.kind == b.kind && a.steps == b.steps,
		      "%s: serial genome differs from the legacy serial run (trial %u)", spec, trial);
	}
}

static void test_modes(const char *spec)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	uint8_t buf[WEFT_INPUT_MAX];
	struct weft_genome g;

	CHECK(sc, "no scenario %s", spec);
	for (unsigned mode = 1; mode < WEFT_MODE__COUNT; mode++) {
		unsigned differ = 0;
		for (uint32_t seed = 1; seed <= 20; seed++) {
			memset(&g, 0, sizeof(g));
			g.mode = (uint8_t)mode;
			g.param = mode == WEFT_MODE_PCT ? (uint8_t)(1 | 6 << 3) : 0;
			g.seed = seed;
			g.nr_ops = sc->nr_threads * 2;
			for (unsigned k = 0; k < g.nr_ops; k++) {
				g.wl[k].t_op = (uint8_t)((k % sc->nr_threads) << 4 | (k / 3) % sc->nr_opcodes);
				g.wl[k].arg = (uint8_t)k;
			}
			size_t n = weft_genome_encode(&g, buf, sizeof(buf));
			struct weft_exec_result a = run(sc, vi, buf, n, false);
			struct weft_exec_result b = run(sc, vi, buf, n, false);
			CHECK(a.trace_hash == b.trace_hash && a.kind == b.kind,
			      "%s: mode %u seed %u not deterministic", spec, mode, seed);
			g.mode = WEFT_MODE_SERIAL;
			n = weft_genome_encode(&g, buf, sizeof(buf));
			struct weft_exec_result s = run(sc, vi, buf, n, false);
			differ += s.trace_hash != a.trace_hash;
		}
		CHECK(differ > 0, "%s: mode %u never departs from serial", spec, mode);
	}
}

/* Events of thread t before the first preempted event. */
static unsigned events_before_preemption(unsigned t)
{
	size_t n;
	const struct weft_event *e = weft_last_events(&n);
	unsigned c = 0;

	for (size_t i = 0; i < n; i++) {
		if (e[i].flags & WEFT_EVF_PREEMPTED)
			return c;
		c += e[i].tid == t;
	}
	return ~0u;
}

static void test_override_locality(void)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("z1-lru:z1a", &vi);
	uint8_t buf[WEFT_INPUT_MAX];
	struct weft_genome g;

	CHECK(sc, "no z1-lru");
	memset(&g, 0, sizeof(g));
	/* T1 scans, T0 releases, T2 truncates: T1 is preempted after 9 ops */
	g.nr_ops = 3;
	g.wl[0].t_op = 0x10 | 2;   /* T1 scan */
	g.wl[1].t_op = 0x00 | 1;   /* T0 release */
	g.wl[2].t_op = 0x20 | 3;   /* T2 truncate */
	g.nr_ov = 2;
	g.ov[0].key = WEFT_OV_KEY(0, 0);   /* start with T1 */
	g.ov[0].b = 0;
	g.ov[1].key = WEFT_OV_KEY(1, 9);
	g.ov[1].b = 0;
	size_t n = weft_genome_encode(&g, buf, sizeof(buf));
	run(sc, vi, buf, n, true);
	unsigned before = events_before_preemption(1);
	CHECK(before != ~0u && before > 0, "no preemption of T1");
	/* one more op for T2 and for T0: T1's override stays at its 9th op */
	g.wl[3].t_op = 0x20 | 0;
	g.wl[4].t_op = 0x00 | 0;
	g.nr_ops = 5;
	n = weft_genome_encode(&g, buf, sizeof(buf));
	run(sc, vi, buf, n, true);
	CHECK(events_before_preemption(1) == before, "the override moved: %u then %u events", before,
	      events_before_preemption(1));
}

static void test_mutator(void)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("z1-lru:fix-unless-zero", &vi);
	static struct weft_mutator a, b;
	uint8_t x[WEFT_INPUT_MAX], y[WEFT_INPUT_MAX];
	size_t nx, ny;

	CHECK(sc, "no z1-lru");
	weft_mutator_init(&a, sc, 7);
	weft_mutator_init(&b, sc, 7);
	nx = weft_mutator_generate(&a, x, sizeof(x));
	ny = weft_mutator_generate(&b, y, sizeof(y));
	CHECK(nx == ny && !memcmp(x, y, nx), "generation is deterministic");
	for (unsigned i = 0; i < 3000; i++) {
		struct weft_exec_result r = run(sc, vi, x, nx, false);
		CHECK(r.kind == WEFT_KIND_NONE, "a fixed variant reported");
		weft_mutator_reward(&a, x, nx, i % 7 == 0, r.steps);
		weft_mutator_reward(&b, y, ny, i % 7 == 0, r.steps);
		nx = weft_mutator_mutate(&a, x, nx, sizeof(x), i * 2654435761u, NULL);
		ny = weft_mutator_mutate(&b, y, ny, sizeof(y), i * 2654435761u, NULL);
		CHECK(nx == ny && !memcmp(x, y, nx), "mutation %u differs between equal mutators", i);
		CHECK(weft_input_is_genome(x, nx), "mutation %u is not a genome", i);
		if (check_failed)
			break;
	}
	/* ov-insert inside the parent's execution */
	struct weft_fuzz_shape sh = { .known = true, .steps = 40 };
	sh.cnt[1] = 5;
	weft_mutator_init(&a, sc, 9);
	a.fixed_arm = WEFT_MUT_OV_INSERT;
	for (unsigned i = 0; i < 200; i++) {
		uint8_t g[WEFT_INPUT_MAX] = { WEFT_GENOME_MAGIC0, WEFT_GENOME_MAGIC1 };
		size_t n = weft_mutator_mutate(&a, g, 2, sizeof(g), i, &sh);
		struct weft_genome d;
		weft_genome_decode(&d, g, n);
		CHECK(d.nr_ov == 1 && WEFT_OV_TID(d.ov[0].key) == 1 && WEFT_OV_K(d.ov[0].key) <= 5,
		      "override (%u, %u) outside the parent's execution",
		      WEFT_OV_TID(d.ov[0].key), WEFT_OV_K(d.ov[0].key));
	}
	/* a rewarded arm's share grows */
	weft_mutator_init(&a, sc, 11);
	unsigned seed_before = 0, seed_after = 0;
	nx = weft_mutator_generate(&a, x, sizeof(x));
	for (unsigned i = 0; i < 4000; i++) {
		nx = weft_mutator_mutate(&a, x, nx, sizeof(x), i, NULL);
		if (i < 1000)
			seed_before += a.last_arm == WEFT_MUT_SEED;
		else if (i >= 3000)
			seed_after += a.last_arm == WEFT_MUT_SEED;
		weft_mutator_reward(&a, x, nx, a.last_arm == WEFT_MUT_SEED, 50);
	}
	CHECK(2 * seed_after > 3 * seed_before, "the rewarded arm's share: %u then %u of 1000",
	      seed_before, seed_after);
	/* the warm-up's forced fresh genomes take their mode class from the
	 * warm-up's shares (here pct d8 alone), every other fresh genome from
	 * the prior (here walk alone) */
	weft_mutator_init(&a, sc, 13);
	for (unsigned c = 0; c < WEFT_MUT_MODE_CLASSES; c++) {
		a.mode_prior[c] = c == 0;
		a.warmup_prior[c] = c == WEFT_MUT_MODE_CLASSES - 1;
	}
	a.mode_bandit = false;
	a.warmup = 1000;
	a.warmup_fresh = 1000;
	nx = weft_mutator_generate(&a, x, sizeof(x));
	unsigned warm_pct8 = 0, later_walk = 0;
	for (unsigned i = 0; i < 400; i++) {
		if (i == 200) {
			a.warmup_fresh = 0;
			a.fixed_arm = WEFT_MUT_FRESH;
		}
		nx = weft_mutator_mutate(&a, x, nx, sizeof(x), i, NULL);
		struct weft_genome d;
		weft_genome_decode(&d, x, nx);
		if (i < 200)
			warm_pct8 += d.mode == WEFT_MODE_PCT && (d.param & 7) == 7;
		else
			later_walk += d.mode == WEFT_MODE_WALK && d.param == 0;
	}
	CHECK(warm_pct8 == 200 && later_walk == 200,
	      "warm-up genomes in pct d8: %u of 200; later fresh genomes walks: %u of 200",
	      warm_pct8, later_walk);
}

/*
 * Golden trace hashes of genome executions, one per mode (and overrides,
 * choices), the same in every build (gcc, clang, the sanitizers): a change
 * to what a genome means shows here. WEFT_GENOME_PRINT=1 prints them.
 */
static const struct {
	const char *spec;
	const char *hex;
	uint64_t hash;
} golden[] = {
	{ "z1-lru:z1a", "ffc10000000000000310021100020300", 0xfca945467ed7818dull },   /* none, 100 steps */
	{ "z1-lru:z1a", "ffc1010007000000041002110002032004", 0x35b780985ea45136ull },   /* none, 102 steps */
	{ "z1-lru:z1a", "ffc102310b000000041002110002032004", 0xe52c83af7fd0e1c6ull },   /* none, 104 steps */
	{ "z1-lru:z1a", "ffc1030063000000041002110002032004", 0x0871d314bb2faa2full },   /* none, 96 steps */
	{ "z1-lru:z1a", "ffc1012005000000041002110002032004", 0xcd634679bb886ca0ull },   /* none, 97 steps */
	{ "z7-swapcont:z7-small", "ffc10000000000000210240020000010160000", 0xf8d79d7e6d539557ull },   /* none, 57 steps */
	{ "z2-swap-batch:v2", "ffc1020112000000040020010002010430", 0x9ff0310bbec6d074ull },   /* swap-slot-leak, 343 steps */
};

static void test_golden(void)
{
	bool print = getenv("WEFT_GENOME_PRINT") != NULL;

	for (unsigned i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		unsigned vi;
		const struct weft_scenario *sc = weft_scenario_find(golden[i].spec, &vi);
		uint8_t buf[256];
		size_t n = strlen(golden[i].hex) / 2;
		static struct weft_bytes b;
		struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock };
		struct weft_exec_result r;

		for (size_t k = 0; k < n; k++)
			buf[k] = (uint8_t)strtoul((char[]){ golden[i].hex[2 * k],
							    golden[i].hex[2 * k + 1], 0 }, NULL, 16);
		weft_bytes_init(&b, sc, buf, n);
		CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute");
		if (print)
			printf("\t{ \"%s\", \"%s\", 0x%016llxull },   /* %s, %u steps */\n",
			       golden[i].spec, golden[i].hex, (unsigned long long)r.trace_hash,
			       weft_kind_name(r.kind), r.steps);
		else
			CHECK(r.trace_hash == golden[i].hash, "%s %s: trace hash %016llx, pinned %016llx",
			      golden[i].spec, golden[i].hex, (unsigned long long)r.trace_hash,
			      (unsigned long long)golden[i].hash);
	}
}

/*
 * The fuzz targets run genomes with o->genome_lean (the lean access path
 * with on_step and feedback kept): each golden genome, under trace hash
 * version 2 (the lean path's) with every feedback on, runs the same
 * execution with and without it: trace hash, counts, and feedback map.
 */
static void test_genome_lean(void)
{
	static uint8_t map[2][1u << 16];

	for (unsigned i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		unsigned vi;
		const struct weft_scenario *sc = weft_scenario_find(golden[i].spec, &vi);
		uint8_t buf[256];
		size_t n = strlen(golden[i].hex) / 2;
		static struct weft_bytes b;
		struct weft_exec_result r[2];

		for (size_t k = 0; k < n; k++)
			buf[k] = (uint8_t)strtoul((char[]){ golden[i].hex[2 * k],
							    golden[i].hex[2 * k + 1], 0 }, NULL, 16);
		for (unsigned lean = 0; lean < 2; lean++) {
			struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
						   .checks = WEFT_CHECK_TRACE_HASH2, .feedback = true,
						   .genome_lean = lean };
			memset(map[lean], 0, sizeof(map[lean]));
			weft_feedback_attach(map[lean], sizeof(map[lean]));
			weft_bytes_init(&b, sc, buf, n);
			CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r[lean]) == 0, "execute");
			weft_feedback_attach(NULL, 0);
		}
		unsigned hits = 0;
		for (size_t k = 0; k < sizeof(map[0]); k++)
			hits += map[0][k] != 0;
		CHECK(r[0].trace_hash == r[1].trace_hash && r[0].kind == r[1].kind &&
			      r[0].steps == r[1].steps && r[0].decisions == r[1].decisions &&
			      r[0].switches == r[1].switches && hits > 0 &&
			      !memcmp(map[0], map[1], sizeof(map[0])),
		      "%s %s with genome_lean: hash %016llx, %u steps, %u decisions, map %s "
		      "(%u features); without: %016llx, %u steps, %u decisions",
		      golden[i].spec, golden[i].hex, (unsigned long long)r[1].trace_hash, r[1].steps,
		      r[1].decisions, memcmp(map[0], map[1], sizeof(map[0])) ? "differs" : "same",
		      hits, (unsigned long long)r[0].trace_hash, r[0].steps, r[0].decisions);
	}
}

/* The one-byte input 0x00's genome on z1-lru:z1a, pinned: the short-input
 * stream draws the same in every build (WEFT_GENOME_PRINT=1 prints it). */
static const char short_golden[] =
	"ffc10100ac5feb1944142807d0177016c423782864150021532706063628df07"
	"f113bc05681352267f2148235913dc18a4125f14cb065907be224d18a022a512"
	"8f10db177818171116231c07d62473158824a910d9246026ed035405e2044324"
	"64222b26f6207611b8256f20492745120311f40251125120e815590311209d14"
	"e008e308fe0730248f059d020122ba013a";

/* The empty input's genome: dfs's first execution where the scenario
 * declares a trigger (the trigger workload, serially), else a walk. */
static void check_empty_input(const struct weft_scenario *sc, unsigned vi, const char *spec)
{
	static uint8_t scratch[WEFT_INPUT_MAX];
	uint8_t wl[1 + 2 * 255];
	size_t n = 0, nwl = weft_dfs_workload(sc, vi, wl, sizeof(wl), NULL);
	const uint8_t *g = weft_raw_input(sc, vi, sc->memory, NULL, &n, scratch);
	struct weft_genome d;

	CHECK(g == scratch && weft_input_is_genome(g, n), "%s: empty input: no genome", spec);
	weft_genome_decode(&d, g, n);
	if (nwl) {
		bool same = d.nr_ops == wl[0];
		for (unsigned k = 0; same && k < d.nr_ops; k++)
			same = d.wl[k].t_op == wl[1 + 2 * k] && d.wl[k].arg == wl[2 + 2 * k];
		CHECK(d.mode == WEFT_MODE_SERIAL && d.version == 1 && !d.nr_ov && same,
		      "%s: empty input: mode %u version %u, %u ops (trigger %u), %u overrides", spec,
		      d.mode, d.version, d.nr_ops, wl[0], d.nr_ov);
	} else {
		CHECK(d.mode == WEFT_MODE_WALK && !d.nr_ov,
		      "%s: empty input without a trigger: mode %u, %u overrides", spec, d.mode, d.nr_ov);
	}
}

static void test_short_inputs(void)
{
	static const char *const specs[] = { "z1-lru:z1a", "z16-page-uptodate:z16" };
	static uint8_t scratch[WEFT_INPUT_MAX], again[WEFT_INPUT_MAX];
	uint8_t first[WEFT_INPUT_MAX];
	size_t first_len = 0;

	for (unsigned s = 0; s < 2; s++) {
		unsigned vi;
		const struct weft_scenario *sc = weft_scenario_find(specs[s], &vi);
		CHECK(sc, "no scenario %s", specs[s]);
		check_empty_input(sc, vi, specs[s]);
		for (int v = 0; v < 256; v++) {
			uint8_t byte = (uint8_t)v;
			size_t n = 1, m = 1;
			const uint8_t *g = weft_raw_input(sc, vi, sc->memory, &byte, &n, scratch);
			const uint8_t *h = weft_raw_input(sc, vi, sc->memory, &byte, &m, again);
			struct weft_genome d;
			CHECK(g == scratch && weft_input_is_genome(g, n), "%s: input %d: no genome",
			      specs[s], v);
			CHECK(n == m && !memcmp(g, h, n), "%s: input %d: two genomes", specs[s], v);
			weft_genome_decode(&d, g, n);
			CHECK(d.mode == WEFT_MODE_WALK && d.param == 0 && d.nr_ops >= 1 && !d.nr_ov,
			      "%s: input %d: mode %u param %u, %u ops, %u overrides", specs[s], v,
			      d.mode, d.param, d.nr_ops, d.nr_ov);
			if (sc->memory)
				CHECK(d.version == 2 && (d.mem & 3u) == sc->memory &&
					      d.mem >> 2 >= 24 && d.mem >> 2 <= 59,
				      "%s: input %d: version %u mem %02x", specs[s], v, d.version, d.mem);
			else
				CHECK(d.version == 1, "%s: input %d: version %u", specs[s], v, d.version);
			if (s == 0 && v == 0) {
				memcpy(first, g, n);
				first_len = n;
			} else if (s == 0) {
				CHECK(n != first_len || memcmp(g, first, n),
				      "input %d: input 0x00's genome", v);
			}
		}
	}
	char hex[2 * WEFT_INPUT_MAX + 1];
	for (size_t k = 0; k < first_len; k++)
		snprintf(hex + 2 * k, 3, "%02x", first[k]);
	hex[2 * first_len] = 0;
	if (getenv("WEFT_GENOME_PRINT"))
		printf("short-input genome (z1-lru:z1a, input 00): %s\n", hex);
	else
		CHECK(!strcmp(hex, short_golden), "input 00's genome %s, pinned %s", hex,
		      short_golden);

	/* every scenario's empty input, with and without a trigger; one
	 * without must exist for the walk branch to be tested */
	unsigned untriggered = 0;
	for (unsigned i = 0; i < weft_nr_scenarios; i++) {
		const struct weft_scenario *sc = weft_scenarios[i];
		uint8_t wl[1 + 2 * 255];
		for (unsigned vi = 0; vi < sc->nr_variants; vi++) {
			check_empty_input(sc, vi, sc->name);
			untriggered += !weft_dfs_workload(sc, vi, wl, sizeof(wl), NULL);
		}
	}
	CHECK(untriggered > 0, "no variant without a trigger: the walk branch is untested");

	/* the empty input of Z10, a bug of its trigger under no preemption, is
	 * the bug: libFuzzer's and AFL++'s first execution reports it */
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("z10-mlock:z10", &vi);
	CHECK(sc, "no z10-mlock:z10");
	if (sc) {
		static struct weft_bytes b;
		struct weft_exec_result r;
		struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
					   .checks = WEFT_CHECKS_DEFAULT, .memory = (uint8_t)sc->memory };
		size_t n = 0;
		const uint8_t *g = weft_raw_input(sc, vi, sc->memory, NULL, &n, scratch);
		weft_bytes_init(&b, sc, g, n);
		CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0 &&
			      r.kind == sc->variants[vi].expect_kind,
		      "z10's empty input: %s, expected %s", weft_kind_name(r.kind),
		      weft_kind_name(sc->variants[vi].expect_kind));
	}

	/* two bytes or more: the input itself (the serial seed, a legacy input) */
	sc = weft_scenario_find("z1-lru:z1a", &vi);
	const uint8_t serial[2] = { WEFT_GENOME_MAGIC0, WEFT_GENOME_MAGIC1 }, legacy[2] = { 1, 0x10 };
	size_t n = 2;
	CHECK(weft_raw_input(sc, vi, 0, serial, &n, scratch) == serial && n == 2, "serial seed");
	CHECK(weft_raw_input(sc, vi, 0, legacy, &n, scratch) == legacy && n == 2, "legacy input");

	/* the mutator edits the genome a short input ran: a new seed keeps
	 * its workload and walk mode */
	static struct weft_mutator mu;
	uint8_t buf[WEFT_INPUT_MAX];
	struct weft_genome want, got;
	weft_genome_decode(&want, first, first_len);
	weft_mutator_init(&mu, sc, 5);
	mu.variant = vi;
	mu.fixed_arm = WEFT_MUT_SEED;
	buf[0] = 0;
	n = weft_mutator_mutate(&mu, buf, 1, sizeof(buf), 1, NULL);
	weft_genome_decode(&got, buf, n);
	CHECK(got.mode == WEFT_MODE_WALK && got.seed != want.seed && got.nr_ops == want.nr_ops &&
		      !memcmp(got.wl, want.wl, want.nr_ops * sizeof(want.wl[0])),
	      "a seed mutation of input 00: mode %u, %u ops (its genome: %u)", got.mode,
	      got.nr_ops, want.nr_ops);
}

int main(void)
{
	srand(12345);
	test_golden();
	test_genome_lean();
	test_roundtrip();
	test_serial_equals_legacy("demo-counter:racy");
	test_serial_equals_legacy("z1-lru:z1a");
	test_serial_equals_legacy("z2-swap-batch:v2");
	test_modes("demo-counter:racy");
	test_modes("z1-lru:z1a");
	test_override_locality();
	test_mutator();
	test_short_inputs();
	return check_done();
}
