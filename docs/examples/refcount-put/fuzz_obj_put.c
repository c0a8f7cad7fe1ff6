/*
 * fuzz_obj_put.c - a libFuzzer target for the example model, out of tree.
 *
 * One input is one execution under the bytes strategy (docs/strategies.md):
 * a workload section, then sparse preemptions. Interleaving features go to
 * libFuzzer through its extra counters. A report prints the race and
 * aborts, so libFuzzer stores the input; replay it with
 *   obj-put run example-obj-put:split-put --strategy bytes --input CRASH
 * Build: clang -fsanitize=fuzzer (CMakeLists.txt does it when CC is clang).
 */
#include <stdio.h>
#include <stdlib.h>

#include <weft/strategy.h>

#ifndef OBJ_PUT_VARIANT
#define OBJ_PUT_VARIANT "split-put"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

__attribute__((used, section("__libfuzzer_extra_counters"))) static uint8_t features[4096];

static struct weft_run_opts opts;
static struct weft_bytes st;
static struct weft_exec_result res;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("example-obj-put:" OBJ_PUT_VARIANT, &vi);

	(void)argc;
	(void)argv;
	if (!sc || weft_machine_init())
		abort();
	opts.sc = sc;
	opts.variant = vi;
	opts.lock = sc->default_lock;
	opts.feedback = true;
	weft_feedback_attach(features, sizeof(features));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	weft_bytes_init(&st, opts.sc, data, size);
	weft_execute(&opts, &weft_strategy_bytes, &st, &res);
	if (res.kind != WEFT_KIND_NONE) {
		weft_report_print(stderr, &opts, &res);
		fflush(stderr);
		abort();
	}
	return 0;
}
