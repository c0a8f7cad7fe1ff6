/*
 * bench_fuzz.h - the searcher comparison of `weft bench` (sections fuzz and
 * fuzz-ablation; bench/bench_fuzz.c): executions, steps and wall time to
 * each zoo bug's declared kind under random, pct d2/d3, dfs b1 over
 * generated workloads, and `weft fuzz` (libFuzzer, AFL++, and ablations),
 * side by side in one run, with issue 12's targets marked met or missed.
 */
#ifndef WEFT_BENCH_FUZZ_H
#define WEFT_BENCH_FUZZ_H

#include <stdbool.h>
#include <stdio.h>

struct bench_fuzz_opts {
	bool quick, no_engines, ablation, searchers;
	unsigned seeds;
	double fuzz_cap;            /* seconds per weft fuzz run */
	unsigned long run_cap;      /* executions per in-process searcher seed */
	const char *out;            /* work directory */
	const char *only;           /* --only: a comma-separated list, or NULL */
	const char *self;           /* this weft */
	double deadline;            /* monotonic seconds, 0: none */
};

/* Writes the markdown table to md and a JSON array body ("fuzz": [...])
 * to js (the caller opens and closes the section). */
void bench_fuzz_section(FILE *md, FILE *js, const struct bench_fuzz_opts *o);

/* --only: is the variant named by the comma-separated list (its scenario,
 * scenario:variant, or variant)? */
bool bench_only_match(const char *only, const char *scenario, const char *variant);

#endif
