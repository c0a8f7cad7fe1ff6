/*
 * test_min_canonical.c - the minimizer's result is canonical for a race
 * (issue 19, item 7):
 *  - mirror images: one race found with the threads' roles swapped (T0
 *    preempted by T1, or T1 by T0, in a model whose threads run the same
 *    code) minimizes to one input, one trace hash, one file name. Every
 *    finding of random seeds 1-12 of demo-stack-index:racy-pop,
 *    demo-counter:racy, demo-abba:abba and demo-refcount:inc (two ops)
 *    minimizes to the same bytes; before, abba gave 00010000 and
 *    00000000010000, and refcount-inc two files;
 *  - operations removed in more than one order: a private model whose bug
 *    needs an even count of "toggle" ops and three "use" ops, started at
 *    [toggle use use use toggle]: no single op can go and no neighbours
 *    can go together, but the two toggles can: 5 ops where 3 reproduce.
 *
 *  - arguments changed together: [set 3, check 3] of a private model whose
 *    bug needs both ops on one object goes to [set 0, check 0]; changing
 *    either argument alone loses the bug.
 *
 * Usage: test_min_canonical mirror|pairs|args
 */
#include <stdio.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>
#include <weft/replay.h>

#include "check.h"
#include "../model_driver.h"

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

static void mirror(const char *spec)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	char first[2 * WEFT_INPUT_MAX + 1] = "";
	uint64_t first_hash = 0;
	unsigned found = 0, distinct_before = 0;
	char before[12][2 * WEFT_INPUT_MAX + 1];

	CHECK(sc != NULL, "no %s", spec);
	if (!sc)
		return;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		static struct weft_random rs;
		struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
					   .checks = WEFT_CHECKS_DEFAULT };
		struct weft_exec_result r;
		weft_random_init(&rs, sc, seed, NULL, 0);
		for (unsigned it = 0; it < 20000; it++) {
			if (weft_execute(&o, &weft_strategy_random, &rs, &r) < 0 ||
			    r.kind != WEFT_KIND_NONE)
				break;
		}
		if (r.kind == WEFT_KIND_NONE)
			continue;
		uint8_t in[WEFT_INPUT_MAX], out[WEFT_INPUT_MAX];
		size_t n = weft_last_input(sc, in, sizeof(in)), out_len = 0;
		struct weft_min_result mr;
		CHECK(n > 0 && weft_minimize(&o, in, n, out, &out_len, &mr) == 0,
		      "%s seed %llu: minimize", spec, (unsigned long long)seed);
		char h[2 * WEFT_INPUT_MAX + 1];
		hex(out, out_len, h);
		hex(in, n, before[found]);
		distinct_before += found == 0 || strcmp(before[found], before[0]) != 0;
		if (!found++) {
			snprintf(first, sizeof(first), "%s", h);
			first_hash = mr.final.trace_hash;
		} else {
			CHECK(!strcmp(h, first) && mr.final.trace_hash == first_hash,
			      "%s seed %llu minimizes to %s (trace %016llx), seed 1's finding to %s "
			      "(trace %016llx)", spec, (unsigned long long)seed, h,
			      (unsigned long long)mr.final.trace_hash, first,
			      (unsigned long long)first_hash);
		}
	}
	printf("%s: %u findings (%u distinct inputs) minimize to %s\n", spec, found,
	       distinct_before, first);
	CHECK(found >= 6, "%s: only %u findings", spec, found);
}

/* ------------------------------------------------------------ pairs */

enum { OP_TOGGLE, OP_USE };

struct pw {
	unsigned nr[2];      /* ops of each kind, from the workload */
	unsigned toggles, uses;
};

static void pw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct pw *W = w;

	(void)variant;
	for (unsigned k = 0; k < wl->nr_ops[0]; k++)
		W->nr[wl->ops[0][k].code % 2]++;
}

static void pw_thread(void *w, unsigned tid)
{
	struct pw *W = w;

	(void)tid;
	for (unsigned k = 0; k < W->nr[OP_TOGGLE]; k++)
		WRITE_ONCE(W->toggles, READ_ONCE(W->toggles) + 1);
	for (unsigned k = 0; k < W->nr[OP_USE]; k++)
		WRITE_ONCE(W->uses, READ_ONCE(W->uses) + 1);
	/* the bug: the state is back where it started (even toggles) and used
	 * three times */
	if (READ_ONCE(W->uses) == 3 && READ_ONCE(W->toggles) % 2 == 0)
		weft_report(WEFT_KIND_ASSERT, &W->uses,
			    WEFT_SITE(WEFT_EV_NOTE, "three uses in the start state"),
			    "used three times with %u toggles", W->toggles);
}

static const char *const pw_ops[] = { "toggle", "use" };
static const char *const pw_files[] = { "test_min_canonical.c", NULL };
static const struct weft_variant pw_variants[] = {
	{ "pairs", NULL, true, "pairs", "test", WEFT_KIND_ASSERT, 0, 0 },
};
/* A one-thread scenario prefix##_sc of two opcodes prefix##_ops, up to
 * eight ops, its sites in this file. */
#define MIN_SCENARIO(prefix, name_, summary_, world_t)                                   \
	static const struct weft_scenario prefix##_sc = {                                \
		.name = name_, .summary = summary_, .source = "tests/replay", .nr_cpus = 1, \
		.nr_threads = 1, .world_size = sizeof(world_t), .nr_opcodes = 2,         \
		.opnames = prefix##_ops, .max_ops = 8, .decision_hint = 64,              \
		.files = pw_files, WEFT_TEST_HOOKS(prefix),                              \
	}
MIN_SCENARIO(pw, "test-min-pairs", "ops that go in pairs", struct pw);

static void pairs(void)
{
	/* [toggle use use use toggle] on T0, no schedule */
	const uint8_t in[] = { 5, 0x00, 0, 0x01, 0, 0x01, 0, 0x01, 0, 0x00, 0 };
	uint8_t out[WEFT_INPUT_MAX];
	size_t out_len = 0;
	struct weft_min_result mr;
	struct weft_run_opts o = { .sc = &pw_sc };

	CHECK(weft_minimize(&o, in, sizeof(in), out, &out_len, &mr) == 0, "minimize");
	printf("pairs: %u ops -> %u ops\n", mr.before.ops, mr.after.ops);
	CHECK(mr.before.ops == 5 && mr.after.ops == 3 && mr.final.kind == WEFT_KIND_ASSERT,
	      "5 ops minimized to %u (3 reproduce: the three uses)", mr.after.ops);
}

/* ------------------------------------------------------------ args */

/* One thread: "set" marks object arg % 4, "check" fails on a marked
 * object. The bug needs both ops on one object, any object: [set 3,
 * check 3] minimizes to [set 0, check 0] only if the two arguments change
 * together (either alone loses the bug). */
enum { OP_SET, OP_CHECK };

struct aw {
	struct weft_op ops[8];
	unsigned nr;
	unsigned mark[4];
};

static void aw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct aw *W = w;

	(void)variant;
	for (unsigned k = 0; k < wl->nr_ops[0] && k < 8; k++)
		W->ops[W->nr++] = wl->ops[0][k];
}

static void aw_thread(void *w, unsigned tid)
{
	struct aw *W = w;

	(void)tid;
	for (unsigned k = 0; k < W->nr; k++) {
		unsigned o = W->ops[k].arg % 4;
		if (W->ops[k].code % 2 == OP_SET)
			WRITE_ONCE(W->mark[o], 1);
		else if (READ_ONCE(W->mark[o]))
			weft_report(WEFT_KIND_ASSERT, &W->mark[o],
				    WEFT_SITE(WEFT_EV_NOTE, "a marked object checked"),
				    "object %u is marked", o);
	}
}

static const char *const aw_ops[] = { "set", "check" };
static const struct weft_variant aw_variants[] = {
	{ "args", NULL, true, "args", "test", WEFT_KIND_ASSERT, 0, 0 },
};
MIN_SCENARIO(aw, "test-min-args", "two ops on one object", struct aw);

static void args(void)
{
	/* [set 3, check 3] on T0, no schedule */
	const uint8_t in[] = { 2, 0x00, 3, 0x01, 3 };
	const uint8_t want[] = { 2, 0x00, 0, 0x01, 0 };
	uint8_t out[WEFT_INPUT_MAX];
	size_t out_len = 0;
	struct weft_min_result mr;
	struct weft_run_opts o = { .sc = &aw_sc };

	CHECK(weft_minimize(&o, in, sizeof(in), out, &out_len, &mr) == 0, "minimize");
	char h[2 * WEFT_INPUT_MAX + 1];
	hex(out, out_len, h);
	printf("args: 0200030103 -> %s\n", h);
	CHECK(out_len == sizeof(want) && !memcmp(out, want, sizeof(want)),
	      "[set 3, check 3] minimized to %s, not [set 0, check 0] (0200000100)", h);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (!strcmp(what, "mirror")) {
		mirror("demo-stack-index:racy-pop");
		mirror("demo-counter:racy");
		mirror("demo-abba:abba");
		mirror("demo-refcount:inc");
	} else if (!strcmp(what, "pairs")) {
		pairs();
	} else if (!strcmp(what, "args")) {
		args();
	} else {
		fprintf(stderr, "usage: test_min_canonical mirror|pairs|args\n");
		return 2;
	}
	return check_done();
}
