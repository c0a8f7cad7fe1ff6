/*
 * weft_bench.h - the benchmark harness behind `weft bench` (libweft_bench,
 * bench/): every benchmark of docs/benchmarks.md in one run, on this
 * machine, side by side. tools/cmd_bench.c parses the command line into
 * struct weft_bench_opts and prints the result.
 *
 * The bench drives this program's own subcommands as child processes of
 * /proc/self/exe (and weft-microbench, weft-stress and the empty libFuzzer
 * target installed beside it) with --json, so it measures the program that
 * calls it, with that program's models.
 */
#ifndef WEFT_BENCH_H
#define WEFT_BENCH_H

#include <stdbool.h>
#include <stddef.h>

struct weft_bench_opts {
	bool quick;             /* the CI form: fewer seeds, short caps */
	bool no_engines;        /* no weft fuzz (libFuzzer, AFL++) or weft stress rows */
	bool all;               /* demos too in the per-variant sections */
	const char *out;        /* work folder: bench.md, bench.json, bench.log */
	unsigned seeds;         /* seeds per time-to-bug row */
	double stress_cap;      /* seconds per stress run */
	double fuzz_cap;        /* seconds per weft fuzz run (rounded to whole) */
	double budget;          /* no new measurement after this many seconds; 0: none */
	const char *only;       /* scenario, scenario:variant or variant; NULL: all */
	const char *sections;   /* comma-separated, of weft_bench_sections; NULL: all */
	const char *markdown;   /* also write this page (docs/benchmarks.md); NULL: none */
	const char *cmdline;    /* the command as typed, for the page's header */
};

/* The names --sections takes, NULL-terminated. */
extern const char *const weft_bench_sections[];

struct weft_bench_result {
	char *md, *json;        /* bench.md and bench.json as written; free() both */
	size_t md_len, json_len;
};

/* Runs every selected section and writes o->out/bench.md, bench.json (and
 * o->markdown). Returns WEFT_EXIT_CLEAN, or WEFT_EXIT_IO with a message
 * printed ("weft: bench: ..."); r holds what was written either way (NULL
 * when nothing was). */
int weft_bench_run(const struct weft_bench_opts *o, struct weft_bench_result *r);

#endif
