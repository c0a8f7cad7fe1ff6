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
#include <string.h>

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

#if defined(WEFT_FUZZ_LIBFUZZER)
/*
 * A structure-aware mutator (libFuzzer's LLVMFuzzerCustomMutator): half of
 * the mutations act on the decoded input - insert, drop or change one
 * workload op, insert, drop, move or retarget one schedule entry - and
 * encode it back, so the op count in byte 0 stays consistent and entries
 * land inside the execution (positions below the largest decision count
 * seen); the other half are libFuzzer's own byte mutations (and the
 * dictionary). Only what the engine tries changes: an input still means
 * what weft_input_decode() says. WEFT_FUZZ_MUTATOR=bytes turns it off.
 */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static bool structured = true;
static uint32_t max_decisions = 16;

static uint64_t mut_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint16_t mut_pos(uint64_t *x)
{
	uint32_t lim = max_decisions < 64 || mut_next(x) & 3 ? (max_decisions < 64 ? max_decisions : 64)
							      : max_decisions;

	return (uint16_t)(mut_next(x) % (lim + 1));
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static struct weft_input in;
	static uint8_t out[WEFT_INPUT_MAX];
	const struct weft_scenario *sc = opts.sc;
	uint64_t x = seed;
	uint64_t r = mut_next(&x);
	unsigned k;

	if (!structured || r % 2 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	weft_input_decode(&in, data, size);
	switch ((r >> 8) % 8) {
	case 0: /* insert an op */
	case 1:
		if (in.nr_wl_ops >= 255)
			break;
		k = (unsigned)(mut_next(&x) % (in.nr_wl_ops + 1));
		memmove(&in.wl[k + 1], &in.wl[k], (in.nr_wl_ops - k) * sizeof(in.wl[0]));
		in.wl[k].t_op = (uint8_t)((mut_next(&x) % sc->nr_threads) << 4 |
					  mut_next(&x) % sc->nr_opcodes);
		in.wl[k].arg = (uint8_t)(mut_next(&x) % 4 ? mut_next(&x) % 8 : mut_next(&x));
		in.nr_wl_ops++;
		break;
	case 2: /* drop an op */
		if (!in.nr_wl_ops)
			break;
		k = (unsigned)(mut_next(&x) % in.nr_wl_ops);
		memmove(&in.wl[k], &in.wl[k + 1], (in.nr_wl_ops - k - 1) * sizeof(in.wl[0]));
		in.nr_wl_ops--;
		break;
	case 3: /* change an op's thread, opcode or argument */
		if (!in.nr_wl_ops)
			break;
		k = (unsigned)(mut_next(&x) % in.nr_wl_ops);
		switch (mut_next(&x) % 3) {
		case 0:
			in.wl[k].t_op = (uint8_t)((mut_next(&x) % sc->nr_threads) << 4 |
						  (in.wl[k].t_op & 15));
			break;
		case 1:
			in.wl[k].t_op = (uint8_t)((in.wl[k].t_op & 0xf0) |
						  mut_next(&x) % sc->nr_opcodes);
			break;
		default:
			in.wl[k].arg = (uint8_t)(in.wl[k].arg + 1 + mut_next(&x) % 3);
			break;
		}
		break;
	case 4: /* insert a preemption */
	case 5:
		if (in.nr_entries >= WEFT_MAX_ENTRIES)
			break;
		k = in.nr_entries++;
		in.e[k].pos = mut_pos(&x);
		in.e[k].b = (uint8_t)(mut_next(&x) % 4);
		break;
	case 6: /* drop an entry */
		if (!in.nr_entries)
			break;
		k = (unsigned)(mut_next(&x) % in.nr_entries);
		memmove(&in.e[k], &in.e[k + 1], (in.nr_entries - k - 1) * sizeof(in.e[0]));
		in.nr_entries--;
		break;
	default: /* move an entry a little, or retarget it */
		if (!in.nr_entries)
			break;
		k = (unsigned)(mut_next(&x) % in.nr_entries);
		if (mut_next(&x) % 3)
			in.e[k].pos = (uint16_t)(in.e[k].pos + (mut_next(&x) % 9) - 4);
		else
			in.e[k].b = (uint8_t)(in.e[k].b + 1);
		break;
	}
	size_t n = weft_input_encode(&in, out, sizeof(out));
	if (n > max_size)
		return LLVMFuzzerMutate(data, size, max_size);
	memcpy(data, out, n);
	return n;
}
#endif

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
	opts.checks = WEFT_CHECKS_DEFAULT;   /* every input reproduces alone: no persistence */
	opts.feedback = weft_fuzz_feedback_on();
#if defined(WEFT_FUZZ_LIBFUZZER)
	const char *m = getenv("WEFT_FUZZ_MUTATOR");
	structured = !(m && !strcmp(m, "bytes"));
#endif
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	weft_fuzz_glue_begin();
	weft_bytes_init(&bytes_st, opts.sc, data, size);
	weft_execute(&opts, &weft_strategy_bytes, &bytes_st, &result);
	weft_fuzz_glue_end();
#if defined(WEFT_FUZZ_LIBFUZZER)
	if (result.decisions > max_decisions)
		max_decisions = result.decisions < 4096 ? result.decisions : 4096;
#endif
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
