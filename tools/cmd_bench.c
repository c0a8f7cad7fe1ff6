/*
 * cmd_bench.c - `weft bench`: the command line of the benchmark harness
 * (bench/, libweft_bench, weft_bench.h), which measures and writes
 * bench.md and bench.json; this prints one of them.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "weft_bench.h"

const char weft_help_bench[] =
	"usage: weft bench [--quick] [--json] [--out DIR] [--seeds N] [--stress-cap S]\n"
	"                  [--fuzz-cap S] [--budget S] [--only LIST]\n"
	"                  [--no-engines] [--all] [--sections LIST] [--markdown FILE]\n\n"
	"Measures, in one run on this machine: the core micro-benchmarks (ns per\n"
	"context switch vs a bare asm switch and swapcontext, scheduling decisions/s,\n"
	"exec/s of a 2-CPU x 50-point scenario), throughput per target (random\n"
	"in-process, libFuzzer, AFL++, the empty libFuzzer loop), time to bug of\n"
	"every buggy variant under libFuzzer with and without interleaving feedback,\n"
	"AFL++, random, pct (d=2,3), dfs (bound 1,2) and the native stress test,\n"
	"silence of every fixed variant, weft min before -> after, and peak RSS.\n"
	"Writes DIR/bench.md and DIR/bench.json (default DIR: weft-bench).\n"
	"  --quick        CI form: fewer seeds, short caps, under 2 minutes\n"
	"  --json         also print the JSON to stdout\n"
	"  --seeds N      seeds per time-to-bug row (default 10; quick 3, and 1 for\n"
	"                 weft fuzz and stress rows)\n"
	"  --stress-cap S seconds per stress run (default 60; quick 1)\n"
	"  --fuzz-cap S   seconds per weft fuzz run (default 20; quick 1)\n"
	"  --budget S     stop starting new measurements after S seconds (quick 90)\n"
	"  --only LIST    only these scenarios or variants (comma-separated) in the\n"
	"                 per-variant sections\n"
	"  --no-engines   skip weft fuzz (libFuzzer, AFL++) and weft stress rows\n"
	"  --all          demos too (by default only zoo variants, once there are any)\n"
	"  --sections L   only these, comma-separated: core, program (instrumented\n"
	"                 programs: ns per access, exec/s in process and forked),\n"
	"                 throughput, memory, min,\n"
	"                 ttb (time to bug and headline), silence, scaling\n"
	"                 (executions to bug and ns/step against threads and steps\n"
	"                 per thread: weft-bench-scaling), fuzz (searchers\n"
	"                 side by side to each zoo bug, issue 12's targets; default:\n"
	"                 all of these), fuzz-ablation (the fuzzer's ablation rows)\n"
	"  --markdown F   also write F (docs/benchmarks.md) from this run: a header naming\n"
	"                 the command, the commit of this build's source tree (and whether\n"
	"                 it had uncommitted changes) and the date, the tables, then F's\n"
	"                 hand-written section (after its <!-- hand-written --> line) as it was\n"
	"exit: 0 written, 2 usage, 3 I/O\n";

int cmd_bench(int argc, char **argv)
{
	struct weft_bench_opts o = { .out = "weft-bench" };
	bool json = false, seeds_set = false, stress_set = false, fuzz_set = false,
	     budget_set = false;
	char cmdline[512];
	uint64_t u;
	double d;

	size_t cl = (size_t)snprintf(cmdline, sizeof(cmdline), "weft");
	for (int i = 0; i < argc && cl < sizeof(cmdline); i++)
		cl += (size_t)snprintf(cmdline + cl, sizeof(cmdline) - cl, " %s", argv[i]);
	o.cmdline = cmdline;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--quick")) {
			o.quick = true;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--no-engines")) {
			o.no_engines = true;
		} else if (!strcmp(a, "--all")) {
			o.all = true;
		} else if (!strcmp(a, "--out") && v) {
			o.out = v;
			i++;
		} else if (!strcmp(a, "--sections") && v) {
			char buf[128];
			snprintf(buf, sizeof(buf), "%s", v);
			for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
				bool ok = false;
				for (const char *const *k = weft_bench_sections; *k; k++)
					ok |= !strcmp(tok, *k);
				if (!ok)
					return cli_usage_error("bench: unknown section '%s' (core, program, "
							       "throughput, memory, min, ttb, silence)",
							       tok);
			}
			o.sections = v;
			i++;
		} else if (!strcmp(a, "--markdown") && v) {
			o.markdown = v;
			i++;
		} else if (!strcmp(a, "--only") && v) {
			o.only = v;
			i++;
		} else if (!strcmp(a, "--seeds") && v) {
			if (!cli_parse_u64(v, &u) || !u || u > 64)
				return cli_usage_error("bench: --seeds takes 1..64");
			o.seeds = (unsigned)u;
			seeds_set = true;
			i++;
		} else if ((!strcmp(a, "--stress-cap") || !strcmp(a, "--fuzz-cap") ||
			    !strcmp(a, "--budget")) && v) {
			if (!cli_parse_double(v, &d) || d <= 0)
				return cli_usage_error("bench: %s takes positive seconds", a);
			if (!strcmp(a, "--stress-cap")) {
				o.stress_cap = d;
				stress_set = true;
			} else if (!strcmp(a, "--fuzz-cap")) {
				o.fuzz_cap = d;
				fuzz_set = true;
			} else {
				o.budget = d;
				budget_set = true;
			}
			i++;
		} else {
			return cli_usage_error("bench: unknown flag or missing value '%s' "
					       "(weft help bench)", a);
		}
	}
	if (!seeds_set)
		o.seeds = o.quick ? 3 : 10;
	if (!stress_set)
		o.stress_cap = o.quick ? 1 : 60;
	if (!fuzz_set)
		o.fuzz_cap = o.quick ? 1 : 20;
	if (!budget_set)
		o.budget = o.quick ? 90 : 0;

	struct weft_bench_result r;
	int rc = weft_bench_run(&o, &r);
	if (json && r.json)
		fwrite(r.json, 1, r.json_len, stdout);
	else if (!json && r.md)
		fwrite(r.md, 1, r.md_len, stdout);
	free(r.md);
	free(r.json);
	return rc;
}
