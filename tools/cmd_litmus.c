/*
 * cmd_litmus.c - `weft litmus FILE.litmus...`: the kernel's C litmus tests
 * on the fake CPUs (the library is litmus/; this file parses flags and
 * prints herd7's words: docs/litmus.md).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <weft/litmus.h>

#include "cli.h"

const char weft_help_litmus[] =
	"usage: weft litmus FILE.litmus... [--memory sc|tso|lkmm] [--strategy S]\n"
	"                   [--executions N] [--seed N] [--depth D] [--bound K|none]\n"
	"                   [--delay-bound N] [--expect] [--json]\n\n"
	"Runs each C litmus test (the format of the kernel's tools/memory-model/\n"
	"litmus-tests) on the fake CPUs: process Pn is a thread on CPU n, every\n"
	"access goes through the memory model. Prints, per test, herd7's words\n"
	"with litmus7's counts: the final states seen and how often, Ok/No, the\n"
	"Positive/Negative executions of the condition's proposition, and\n"
	"\"Observation NAME Never|Sometimes|Always P N\".\n"
	"  --memory M        sc (default), tso or lkmm (docs/memory-model.md)\n"
	"  --strategy S      random (default), pct, or dfs (every interleaving within\n"
	"                    --bound and every store delay within --delay-bound)\n"
	"  --executions N    executions per test (default 10000; dfs: a cap, default\n"
	"                    none)\n"
	"  --seed N          seed of random and pct (default 1)\n"
	"  --depth D         pct depth (default 2)\n"
	"  --bound K|none    dfs preemption bound (default none)\n"
	"  --delay-bound N   dfs: stores per execution that may be delayed (default 2)\n"
	"  --expect          check each file's own \"Result:\" line: Never must be\n"
	"                    seen 0 times, Always every time, Sometimes at least once\n"
	"                    (every model of this build is stronger than the kernel's:\n"
	"                    a Sometimes test not witnessed is reported as\n"
	"                    \"stronger\", not as a failure); DEADLOCK (herd7 finds no\n"
	"                    complete\n"
	"                    execution) needs a deadlock report or every execution\n"
	"                    excluded by the test's filter\n"
	"  --json            one JSON object per test, one per line: name, file,\n"
	"                    memory, strategy, expected, observed, verdict (ok,\n"
	"                    stronger, fail, skipped, unchecked), positive, negative,\n"
	"                    executions, complete, seconds, states [{state, count}],\n"
	"                    and why (for skipped)\n"
	"A test that uses a primitive this build does not model is skipped, with the\n"
	"reason: never counted as a pass.\n"
	"exit: 0 every test as expected (or no --expect), 1 a test contradicts its\n"
	"      Result line or an execution ended in a report other than a deadlock\n"
	"      (the test misuses a primitive: fail, with or without --expect), 2 usage,\n"
	"      3 a file cannot be read or parsed (FILE:LINE:COL)\n";

struct lopts {
	struct weft_litmus_run_opts ro;
	bool expect, json;
};

/* An execution ended in a report other than a deadlock (the test misuses a
 * primitive, or dereferences what is no variable): it has no final state,
 * the counts are of the executions that did not, and a Never test would
 * pass on none at all. */
static bool misuse_reported(const struct weft_litmus_result *r)
{
	return r->report != WEFT_KIND_NONE && r->report != WEFT_KIND_DEADLOCK;
}

static const char *verdict_of(const struct weft_litmus *t, const struct weft_litmus_result *r,
			      const struct lopts *o)
{
	enum weft_litmus_expect e = weft_litmus_expected(t);

	if (misuse_reported(r))
		return "fail";
	if (!o->expect || e == WEFT_LITMUS_UNKNOWN)
		return "unchecked";
	switch (e) {
	case WEFT_LITMUS_NEVER:
		return r->positive ? "fail" : "ok";
	case WEFT_LITMUS_ALWAYS:
		return r->negative || !r->positive ? "fail" : "ok";
	case WEFT_LITMUS_SOMETIMES:
		if (r->positive)
			return "ok";
		/* every model of this build forbids more than the kernel's:
		 * sc and tso, and lkmm without load buffering, with full
		 * barriers, locks and dependencies ordering as in a
		 * multicopy-atomic memory
		 * (docs/memory-model.md; tests/litmus/kernel-litmus.sh pins
		 * which tests each model cannot witness) */
		return "stronger";
	case WEFT_LITMUS_DEADLOCK:
		/* herd7 finds no complete execution: here a deadlock report, or
		 * no execution that survives the filter */
		return r->report == WEFT_KIND_DEADLOCK || (!r->positive && !r->negative) ? "ok"
											 : "fail";
	default:
		return "unchecked";
	}
}

static void print_text(const char *file, const struct weft_litmus *t,
		       const struct weft_litmus_result *r, const struct lopts *o, const char *v)
{
	const char *name = weft_litmus_name(t);

	printf("Test %s %s\n", name, r->exists ? "Allowed" : "Required");
	printf("States %u%s\n", r->nr_states, r->states_capped ? " (more not counted)" : "");
	for (unsigned i = 0; i < r->nr_states; i++)
		printf("%-10" PRIu64 ":>%s%s\n", r->states[i].count, r->states[i].text,
		       r->states[i].satisfies ? "  *" : "");
	bool ok = !strcmp(r->quantifier, "exists") ? r->positive > 0
		  : !strcmp(r->quantifier, "~exists") ? r->positive == 0
						      : r->negative == 0;
	printf("%s\n", ok ? "Ok" : "No");
	printf("Witnesses\nPositive: %" PRIu64 " Negative: %" PRIu64 "\n", r->positive, r->negative);
	if (r->filtered)
		printf("Filtered: %" PRIu64 "\n", r->filtered);
	if (r->report)
		printf("Report: %s (%s)%s\n", weft_kind_name(r->report), r->report_msg,
		       misuse_reported(r)
			       ? ": the test is wrong (no outcome of such an execution is counted)"
			       : "");
	printf("Condition %s\n", weft_litmus_condition(t));
	printf("Observation %s %s %" PRIu64 " %" PRIu64 "\n", name,
	       weft_litmus_expect_name(r->observed), r->positive, r->negative);
	printf("Time %s %.3f (%" PRIu64 " executions, %s, --memory %s%s)\n", name, r->seconds,
	       r->executions, o->ro.strategy, weft_memory_name(o->ro.memory),
	       !strcmp(o->ro.strategy, "dfs") ? r->complete ? ", complete" : ", incomplete" : "");
	/* Never, Always and DEADLOCK are claims about every execution:
	 * only a complete dfs search makes one; a witnessed Sometimes needs
	 * one execution */
	enum weft_litmus_expect e = weft_litmus_expected(t);
	bool claim = !strcmp(v, "ok") && e != WEFT_LITMUS_SOMETIMES;
	bool dfs_done = !strcmp(o->ro.strategy, "dfs") && r->complete;
	bool sampled = claim && !dfs_done;
	/* a complete dfs covered what its bounds let it: a preemption bound,
	 * and under a weak model the delay bound, which cuts weak choices as
	 * --bound cuts preemptions (an outcome that needs one more is not
	 * searched) */
	char within[160] = "";
	bool pbound = o->ro.preemption_bound != WEFT_BOUND_NONE, weak = o->ro.memory != WEFT_MEM_SC;
	if (claim && dfs_done && pbound && weak)
		snprintf(within, sizeof(within),
			 ", within %u preemptions and %u weak choices per execution: --bound none "
			 "and a larger --delay-bound search more",
			 o->ro.preemption_bound, o->ro.delay_bound);
	else if (claim && dfs_done && pbound)
		snprintf(within, sizeof(within), ", within %u preemptions: --bound none searches more",
			 o->ro.preemption_bound);
	else if (claim && dfs_done && weak)
		snprintf(within, sizeof(within),
			 ", within %u weak choices per execution: a larger --delay-bound searches more",
			 o->ro.delay_bound);
	if (o->expect || !strcmp(v, "fail"))
		printf("Expect %s %s: %s (%s)%s\n", name, weft_litmus_expect_name(e), v, file,
		       sampled ? ", on the executions sampled: --strategy dfs searches them all"
			       : within);
	printf("\n");
}

static void print_json(const char *file, const struct weft_litmus *t,
		       const struct weft_litmus_result *r, const struct lopts *o, const char *v,
		       const char *why)
{
	printf("{\"name\": ");
	cli_json_str(stdout, t ? weft_litmus_name(t) : "");
	printf(", \"file\": ");
	cli_json_str(stdout, file);
	printf(", \"memory\": \"%s\", \"strategy\": \"%s\", \"expected\": \"%s\", \"verdict\": \"%s\"",
	       weft_memory_name(o->ro.memory), o->ro.strategy,
	       t ? weft_litmus_expect_name(weft_litmus_expected(t)) : "?", v);
	if (why) {
		printf(", \"why\": ");
		cli_json_str(stdout, why);
		printf("}\n");
		return;
	}
	printf(", \"observed\": \"%s\", \"condition\": ", weft_litmus_expect_name(r->observed));
	cli_json_str(stdout, weft_litmus_condition(t));
	printf(", \"positive\": %" PRIu64 ", \"negative\": %" PRIu64 ", \"executions\": %" PRIu64
	       ", \"complete\": %s, \"seconds\": %.6f",
	       r->positive, r->negative, r->executions, r->complete ? "true" : "false", r->seconds);
	if (!strcmp(o->ro.strategy, "dfs")) {
		/* what "complete" covered: the bounds of the search */
		if (o->ro.preemption_bound == WEFT_BOUND_NONE)
			printf(", \"bound\": \"none\"");
		else
			printf(", \"bound\": %u", o->ro.preemption_bound);
		if (o->ro.memory != WEFT_MEM_SC)
			printf(", \"delay_bound\": %u", o->ro.delay_bound);
	}
	printf(", \"report\": ");
	if (r->report)
		cli_json_str(stdout, weft_kind_name(r->report));
	else
		printf("null");
	printf(", \"states\": [");
	for (unsigned i = 0; i < r->nr_states; i++) {
		printf("%s{\"state\": ", i ? ", " : "");
		cli_json_str(stdout, r->states[i].text);
		printf(", \"count\": %" PRIu64 "}", r->states[i].count);
	}
	printf("]}\n");
}

int cmd_litmus(int argc, char **argv)
{
	struct lopts o = { .ro = { .memory = WEFT_MEM_SC, .strategy = "random", .seed = 1,
				   .depth = 2, .delay_bound = WEFT_DFS_DELAY_BOUND,
				   .preemption_bound = WEFT_BOUND_NONE } };
	const char *files[1024];
	unsigned nr_files = 0;
	uint64_t v64;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = !strcmp(a, "--memory") || !strcmp(a, "--strategy") ||
			     !strcmp(a, "--executions") || !strcmp(a, "--seed") ||
			     !strcmp(a, "--depth") || !strcmp(a, "--bound") ||
			     !strcmp(a, "--delay-bound");
		if (takes && !v)
			return cli_usage_error("litmus: %s needs a value", a);
		if (!strcmp(a, "--expect")) {
			o.expect = true;
		} else if (!strcmp(a, "--json")) {
			o.json = true;
		} else if (!strcmp(a, "--memory")) {
			const char *why = "";
			if (!weft_memory_parse(v, &o.ro.memory, &why))
				return cli_usage_error("litmus: --memory '%s': %s", v, why);
		} else if (!strcmp(a, "--strategy")) {
			if (strcmp(v, "random") && strcmp(v, "pct") && strcmp(v, "dfs"))
				return cli_usage_error("litmus: --strategy takes random, pct or dfs, "
						       "not '%s'", v);
			o.ro.strategy = v;
		} else if (!strcmp(a, "--executions")) {
			if (!cli_parse_u64(v, &o.ro.executions) || !o.ro.executions)
				return cli_usage_error("litmus: --executions takes a positive number");
		} else if (!strcmp(a, "--seed")) {
			if (!cli_parse_u64(v, &o.ro.seed))
				return cli_usage_error("litmus: --seed takes a number");
		} else if (!strcmp(a, "--depth")) {
			if (!cli_parse_u64(v, &v64) || v64 < 1 || v64 > 8)
				return cli_usage_error("litmus: --depth takes 1..8");
			o.ro.depth = (unsigned)v64;
		} else if (!strcmp(a, "--bound")) {
			if (!strcmp(v, "none"))
				o.ro.preemption_bound = WEFT_BOUND_NONE;
			else if (!cli_parse_u64(v, &v64) || v64 > 255)
				return cli_usage_error("litmus: --bound takes 0..255 or none");
			else
				o.ro.preemption_bound = (unsigned)v64;
		} else if (!strcmp(a, "--delay-bound")) {
			if (!cli_parse_u64(v, &v64) || v64 > 255)
				return cli_usage_error("litmus: --delay-bound takes 0..255");
			o.ro.delay_bound = (unsigned)v64;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("litmus: unknown flag '%s' (%s help litmus)", a, cli_prog);
		} else {
			if (nr_files == sizeof(files) / sizeof(files[0]))
				return cli_usage_error("litmus: more than %zu files",
						       sizeof(files) / sizeof(files[0]));
			files[nr_files++] = a;
		}
		if (takes)
			i++;
	}
	if (!nr_files)
		return cli_usage_error("litmus: which tests? (FILE.litmus...)");

	static char text[1 << 20];
	unsigned ok = 0, stronger = 0, failed = 0, skipped = 0, unchecked = 0;
	int rc = WEFT_EXIT_CLEAN;
	struct weft_litmus_result *r = malloc(sizeof(*r));
	if (!r)
		return cli_io_error("out of memory");
	for (unsigned f = 0; f < nr_files; f++) {
		long n = cli_read_file(files[f], (uint8_t *)text, sizeof(text) - 1);
		if (n < 0) {
			fprintf(stderr, "weft: litmus: cannot read '%s'\n", files[f]);
			rc = WEFT_EXIT_IO;
			continue;
		}
		char err[300];
		struct weft_litmus *t = weft_litmus_parse(files[f], text, (size_t)n, err, sizeof(err));
		if (!t) {
			fprintf(stderr, "weft: litmus: %s\n", err);
			rc = WEFT_EXIT_IO;
			continue;
		}
		char why[240];
		if (weft_litmus_run(t, &o.ro, r, why, sizeof(why))) {
			skipped++;
			if (o.json)
				print_json(files[f], t, r, &o, "skipped", why);
			else
				printf("Test %s: skipped: %s (%s)\n\n", weft_litmus_name(t), why, files[f]);
			weft_litmus_free(t);
			continue;
		}
		const char *v = verdict_of(t, r, &o);
		ok += !strcmp(v, "ok");
		stronger += !strcmp(v, "stronger");
		unchecked += !strcmp(v, "unchecked");
		if (!strcmp(v, "fail")) {
			failed++;
			if (rc == WEFT_EXIT_CLEAN)
				rc = WEFT_EXIT_BUG;
		}
		if (o.json)
			print_json(files[f], t, r, &o, v, NULL);
		else
			print_text(files[f], t, r, &o, v);
		weft_litmus_free(t);
	}
	free(r);
	if (!o.json && nr_files > 1)
		printf("litmus: %u test%s under --memory %s: %u ok, %u stronger (not witnessed: the "
		       "model forbids more than the kernel's), %u failed, %u skipped, %u unchecked\n",
		       nr_files, nr_files == 1 ? "" : "s", weft_memory_name(o.ro.memory), ok, stronger,
		       failed, skipped, unchecked);
	return rc;
}
