/*
 * bench_run.c - one run of `weft bench` (weft_bench.h): every selected
 * section in order, cheap ones first, then bench.md and bench.json.
 *
 * A piece that is missing (no `weft fuzz`, no AFL++ build, no `weft min`)
 * becomes a "not measured: <why>" row; nothing is invented. Timed children
 * (everything but the stress test, which needs real threads on real cores)
 * are pinned to one CPU.
 *
 * Medians over seeds treat a seed that did not find the bug within the cap
 * as +infinity (censored): the median is "not found" when half the seeds or
 * more missed. min and max are over the seeds that found it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_fuzz.h"
#include "harness.h"
#include "weft_bench.h"

const char *const weft_bench_sections[] = { "core", "program", "throughput", "memory", "min",
					    "ttb", "silence", "scaling", "fuzz", "fuzz-ablation",
					    NULL };

/* The sections before fuzz, in the order they run: cheap ones first, so
 * that a --budget cut falls on the long tail of time-to-bug seeds and on
 * silence, never on a whole section. then, if set, runs right after run
 * (the headline needs the time-to-bug results). */
static const struct {
	const char *name;
	void (*run)(void);
	void (*then)(void);
} serial_sections[] = {
	{ "core", bench_section_core, bench_section_empty_libfuzzer },
	{ "program", bench_section_program, NULL },
	{ "throughput", bench_section_throughput, NULL },
	{ "memory", bench_section_memory, NULL },
	{ "min", bench_section_min, NULL },
	{ "ttb", bench_section_ttb, bench_section_headline },
	{ "silence", bench_section_silence, NULL },
	{ "scaling", bench_section_scaling, NULL },
};

/* bench.md and bench.json into B.out, each written whole or not at all. */
static int write_outputs(const char *md_buf, size_t md_len, const char *js_buf, size_t js_len)
{
	int rc = WEFT_EXIT_CLEAN;
	const struct {
		const char *name;
		const char *buf;
		size_t len;
	} files[2] = { { "bench.md", md_buf, md_len }, { "bench.json", js_buf, js_len } };
	for (unsigned i = 0; i < 2; i++) {
		char path[PATH_MAX], tmp[PATH_MAX + 16];
		snprintf(path, sizeof(path), "%s/%s", B.out, files[i].name);
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		FILE *f = fopen(tmp, "w");
		if (!f || fwrite(files[i].buf, 1, files[i].len, f) != files[i].len ||
		    fclose(f) || rename(tmp, path)) {
			rc = cli_io_error("bench: cannot write %s", path);
			f = NULL;
		}
	}
	return rc;
}

int weft_bench_run(const struct weft_bench_opts *o, struct weft_bench_result *r)
{
	memset(r, 0, sizeof(*r));
	memset(&B, 0, sizeof(B));
	B.quick = o->quick;
	B.no_engines = o->no_engines;
	B.all = o->all;
	B.out = o->out;
	B.seeds = o->seeds;
	B.stress_cap = o->stress_cap;
	B.budget = o->budget;
	B.only = o->only;
	B.sections = o->sections;
	B.markdown = o->markdown;
	copy_trunc(B.cmdline, sizeof(B.cmdline), o->cmdline ? o->cmdline : "weft bench");
	/* weft fuzz --time takes whole seconds */
	B.fuzz_cap = o->fuzz_cap < 1 ? 1 : (double)(long)(o->fuzz_cap + 0.5);
	B.run_cap = B.quick ? 20000 : 200000;
	B.silence_iters = B.quick ? 2000 : 50000;
	B.silence_secs = B.quick ? 0.5 : 5;
	/* engines and stress cost seconds per run: --quick runs one seed */
	B.slow_seeds = B.quick ? 1 : B.seeds;

	ssize_t n = readlink("/proc/self/exe", bench_self, sizeof(bench_self) - 1);
	if (n <= 0)
		return cli_io_error("bench: cannot find my own path");
	bench_self[n] = 0;
	snprintf(bench_bindir, sizeof(bench_bindir), "%s", bench_self);
	char *slash = strrchr(bench_bindir, '/');
	if (slash)
		*slash = 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	bench_cpu = bench_idlest_cpu(cores);

	if (mkdir(B.out, 0777) && errno != EEXIST)
		return cli_io_error("bench: cannot create %s: %s", B.out, strerror(errno));
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/bench.log", B.out);
	bench_log = fopen(path, "w");
	if (!bench_log)
		return cli_io_error("bench: cannot write %s", path);

	signal(SIGINT, bench_on_signal);
	signal(SIGTERM, bench_on_signal);
	signal(SIGHUP, bench_on_signal);
	double t0 = bench_clock();
	if (B.budget > 0)
		bench_deadline = t0 + B.budget;
	char *md_buf = NULL, *js_buf = NULL;
	size_t md_len = 0, js_len = 0;
	md = open_memstream(&md_buf, &md_len);
	js = open_memstream(&js_buf, &js_len);
	if (!md || !js)
		return cli_io_error("bench: out of memory");
	if (bench_load_variants())
		return cli_io_error("bench: `weft list --json` did not give a variant list");
	B.have_fuzz = bench_have_command("fuzz");
	B.have_min = bench_have_command("min");

	fprintf(stderr, "weft bench: writing %s/bench.md and %s/bench.json (log: %s)\n", B.out,
		B.out, path);
	bench_section_machine();
	for (unsigned i = 0; i < sizeof(serial_sections) / sizeof(serial_sections[0]); i++) {
		if (!bench_section_on(serial_sections[i].name))
			continue;
		serial_sections[i].run();
		if (serial_sections[i].then)
			serial_sections[i].then();
	}
	if (bench_section_on("fuzz") || (B.sections && bench_section_on("fuzz-ablation"))) {
		/* bench_fuzz.c: searchers side by side, issue 12's targets */
		struct bench_fuzz_opts fo = {
			.quick = B.quick, .no_engines = B.no_engines || !B.have_fuzz,
			.ablation = B.sections && bench_section_on("fuzz-ablation"),
			.searchers = bench_section_on("fuzz"), .seeds = B.seeds,
			.fuzz_cap = B.fuzz_cap, .run_cap = B.run_cap, .out = B.out,
			.only = B.only, .self = bench_self, .deadline = bench_deadline,
		};
		bench_js_section("fuzz");
		bench_fuzz_section(md, js, &fo);
		bench_js_end_section();
	}
	bench_section_targets();
	double total = bench_clock() - t0;
	fprintf(md, "Whole bench: %.1f s%s.\n", total,
		bench_budget_spent() ? " (time budget spent: rows marked \"time budget spent\" "
				       "were not run)" : "");
	fprintf(js, ",\n  \"seconds\": %.3f\n}\n", total);
	fclose(md);
	fclose(js);

	int rc = write_outputs(md_buf, md_len, js_buf, js_len);
	if (B.markdown && !rc && bench_write_markdown(B.markdown, md_buf, md_len))
		rc = WEFT_EXIT_IO;
	/* the JSON must parse with our own strict parser */
	struct jnode *self_check = bench_jparse(js_buf, js_len);
	if (!self_check)
		rc = cli_io_error("bench: internal error: bench.json does not parse");
	bench_jfree(self_check);
	fclose(bench_log);
	bench_log = NULL;
	r->md = md_buf;
	r->md_len = md_len;
	r->json = js_buf;
	r->json_len = js_len;
	return rc;
}
