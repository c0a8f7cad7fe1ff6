/*
 * test_fuzz_input.c - the properties the fuzz targets rely on:
 *  - every input decodes and runs (all prefixes of random inputs);
 *  - a flip of any byte after the op count changes exactly one workload op
 *    or one schedule entry of the decoded input;
 *  - a flip of a schedule byte moves at most one preemption: the decisions
 *    where the bytes strategy departs from the default differ only at the
 *    flipped entry's old and new position;
 *  - the feedback map of the fuzz glue sees features, and none with
 *    WEFT_NO_FEEDBACK=1 (checked in a second process by the ctest entry).
 * Runs on every registered scenario variant that is named on the command
 * line (default: demo-counter:racy).
 */
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "../check.h"
#include "weft_fuzz_glue.h"

static const struct weft_scenario *sc;
static unsigned vi;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

/* Runs one execution; fills the override positions (decisions where the
 * choice is not the default). Returns the number of decisions. */
static size_t run(const uint8_t *buf, size_t len, uint32_t *ov, size_t *nov,
		  struct weft_exec_result *r)
{
	static struct weft_bytes b;
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock };
	size_t nd;

	weft_fuzz_glue_begin();
	weft_bytes_init(&b, sc, buf, len);
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, r) == 0, "execute failed");
	const struct weft_decision_rec *d = weft_last_decisions(&nd);
	*nov = 0;
	for (size_t i = 0; i < nd; i++)
		if (d[i].chosen != d[i].dflt)
			ov[(*nov)++] = (uint32_t)i;
	return nd;
}

static bool has(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static unsigned decoded_diff(const struct weft_input *a, const struct weft_input *b)
{
	unsigned d = 0;

	if (a->nr_wl_ops != b->nr_wl_ops || a->nr_entries != b->nr_entries)
		return 1000;
	for (unsigned k = 0; k < a->nr_wl_ops; k++)
		d += a->wl[k].t_op != b->wl[k].t_op || a->wl[k].arg != b->wl[k].arg;
	for (unsigned k = 0; k < a->nr_entries; k++)
		d += a->e[k].pos != b->e[k].pos || a->e[k].b != b->e[k].b;
	return d;
}

static void test_prefixes(void)
{
	uint8_t buf[300];
	struct weft_input in;
	uint32_t ov[4096];
	size_t nov;
	struct weft_exec_result r;

	for (unsigned rep = 0; rep < 20; rep++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)rnd();
		buf[0] %= 12;
		for (size_t k = 0; k <= sizeof(buf); k += 1 + k / 16) {
			weft_input_decode(&in, buf, k);
			CHECK(in.nr_wl_ops <= (k ? buf[0] : 0u), "prefix %zu: ops", k);
			CHECK(in.nr_entries <= WEFT_MAX_ENTRIES, "prefix %zu: entries", k);
			CHECK(1 + 2 * (size_t)in.nr_wl_ops + 3 * (size_t)in.nr_entries <= k + (k == 0),
			      "prefix %zu decodes more than it has", k);
			run(buf, k, ov, &nov, &r);
			CHECK(r.kind != WEFT_KIND_STACK_OVERFLOW, "prefix %zu overflowed", k);
		}
	}
}

static void test_flips(void)
{
	uint8_t buf[64], m[64];
	struct weft_input a, b;
	uint32_t ov_a[4096], ov_b[4096];
	size_t na, nb;
	struct weft_exec_result r;
	unsigned checked = 0;

	for (unsigned rep = 0; rep < 30; rep++) {
		/* 3 ops, then schedule entries at small positions */
		size_t len = 1 + 2 * 3 + 3 * (1 + rnd() % 8);
		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rnd();
		buf[0] = 3;
		for (size_t i = 7; i + 2 < len; i += 3) {
			buf[i] = (uint8_t)(rnd() % 24);
			buf[i + 1] = 0;
		}
		weft_input_decode(&a, buf, len);
		size_t nd_a = run(buf, len, ov_a, &na, &r);
		for (size_t i = 1; i < len; i++)
			for (unsigned bit = 0; bit < 8; bit++) {
				memcpy(m, buf, len);
				m[i] ^= (uint8_t)(1u << bit);
				weft_input_decode(&b, m, len);
				CHECK(decoded_diff(&a, &b) == 1,
				      "flip of byte %zu bit %u changed %u decoded items", i, bit,
				      decoded_diff(&a, &b));
				if (i < 7)
					continue;
				/* schedule byte: positions of the flipped entry */
				size_t e = (i - 7) / 3;
				uint32_t hint = sc->decision_hint ? sc->decision_hint : 1024;
				uint32_t p_old = a.e[e].pos % hint, p_new = b.e[e].pos % hint;
				size_t nd_b = run(m, len, ov_b, &nb, &r);
				size_t common = nd_a < nd_b ? nd_a : nd_b;
				/* within the decisions both executions reach, departures
				 * from the default differ at most at p_old and p_new */
				for (size_t k = 0; k < na; k++)
					if (ov_a[k] < common && ov_a[k] != p_old && ov_a[k] != p_new)
						CHECK(has(ov_b, nb, ov_a[k]),
						      "flip %zu/%u lost the preemption at %u", i, bit,
						      ov_a[k]);
				for (size_t k = 0; k < nb; k++)
					if (ov_b[k] < common && ov_b[k] != p_old && ov_b[k] != p_new)
						CHECK(has(ov_a, na, ov_b[k]),
						      "flip %zu/%u added a preemption at %u", i, bit,
						      ov_b[k]);
				checked++;
			}
	}
	CHECK(checked > 100, "only %u schedule flips checked", checked);
}

/* Feedback: an execution with switches must leave features in the map.
 * argv "--expect-no-feedback": run with WEFT_NO_FEEDBACK=1, map absent. */
static void test_feedback(bool expect_none)
{
	uint8_t in[] = { 2, 0x00, 0, 0x10, 0, 1, 0, 0, 3, 0, 1 };
	uint32_t ov[4096];
	size_t nov;
	struct weft_exec_result r;

	run(in, sizeof(in), ov, &nov, &r);
	uint8_t *map = weft_fuzz_map();
	if (expect_none) {
		CHECK(map == NULL && !weft_fuzz_feedback_on(), "feedback attached despite "
							       "WEFT_NO_FEEDBACK");
		return;
	}
	CHECK(map != NULL, "no feedback map");
	if (!map)
		return;
	unsigned nz = 0;
	for (unsigned i = 0; i < WEFT_FUZZ_MAP_SIZE; i++)
		nz += map[i] != 0;
	CHECK(nz >= 2, "only %u features after an interleaved execution", nz);
}

int main(int argc, char **argv)
{
	bool no_fb = argc > 1 && !strcmp(argv[1], "--expect-no-feedback");
	int first = no_fb ? 2 : 1;
	const char *specs_default[] = { "demo-counter:racy" };
	const char *const *specs = argc > first ? (const char *const *)argv + first : specs_default;
	int nspecs = argc > first ? argc - first : 1;

	CHECK(weft_fuzz_glue_init() == 0, "glue init");
	for (int s = 0; s < nspecs; s++) {
		sc = weft_scenario_find(specs[s], &vi);
		if (!sc) {
			printf("skipped %s: not in this build\n", specs[s]);
			continue;
		}
		test_feedback(no_fb);
		if (no_fb)
			continue;
		test_prefixes();
		test_flips();
	}
	return check_done();
}
