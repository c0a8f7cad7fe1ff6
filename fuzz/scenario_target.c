/*
 * scenario_target.c - the fuzz target of one scenario variant, compiled
 * once per entry of WEFT_FUZZ_VARIANTS (fuzz/CMakeLists.txt) with
 * -DWEFT_TARGET_SCENARIO="name" -DWEFT_TARGET_VARIANT="variant".
 *
 * One input is one execution: the bytes strategy decodes it (weft_input in
 * weft.h: a workload section, then sparse preemption entries at absolute
 * decision positions), the machine runs it on a zeroed world, and a report
 * prints the ERROR:/SUMMARY: lines and aborts so the engine keeps the
 * input. Every byte string decodes to a valid execution, so there is no
 * rejection path (returning -1 is ignored by libFuzzer before LLVM 15).
 */
#include <stdio.h>
#include <stdlib.h>

#include <weft/strategy.h>

#include "weft_fuzz_glue.h"

#if !defined(WEFT_TARGET_SCENARIO) || !defined(WEFT_TARGET_VARIANT)
#error "build with -DWEFT_TARGET_SCENARIO=\"name\" -DWEFT_TARGET_VARIANT=\"variant\""
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct weft_run_opts opts;
static struct weft_bytes bytes_st;
static struct weft_exec_result result;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *spec = WEFT_TARGET_SCENARIO ":" WEFT_TARGET_VARIANT;
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);

	(void)argc;
	(void)argv;
	if (!sc) {
		/* a build error: the variant list names a variant the registry
		 * does not have */
		fprintf(stderr, "weft: this target's scenario %s is not in the registry\n", spec);
		exit(WEFT_EXIT_USAGE);
	}
	if (weft_fuzz_glue_init())
		exit(WEFT_EXIT_USAGE);
	opts.sc = sc;
	opts.variant = vi;
	opts.lock = weft_fuzz_lock(sc);
	opts.feedback = weft_fuzz_feedback_on();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	weft_fuzz_glue_begin();
	weft_bytes_init(&bytes_st, opts.sc, data, size);
	weft_execute(&opts, &weft_strategy_bytes, &bytes_st, &result);
	weft_fuzz_glue_end();
	if (result.kind != WEFT_KIND_NONE) {
		weft_fuzz_glue_report();
		weft_report_print(stderr, &opts, &result);
		fprintf(stderr, "weft: minimize and store this input: weft import FILE --target %s "
				"--lock %s\n",
			WEFT_TARGET_SCENARIO ":" WEFT_TARGET_VARIANT,
			opts.lock == WEFT_LOCK_TICKET ? "ticket" : "tas");
		fflush(stderr);
		abort();
	}
	return 0;
}
