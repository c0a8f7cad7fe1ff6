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
 *  - the choice override sets a weft_choose() value.
 */
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

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

int main(void)
{
	srand(12345);
	test_roundtrip();
	test_serial_equals_legacy("demo-counter:racy");
	test_serial_equals_legacy("z1-lru:z1a");
	test_serial_equals_legacy("z2-swap-batch:v2");
	test_modes("demo-counter:racy");
	test_modes("z1-lru:z1a");
	test_override_locality();
	return check_done();
}
