/*
 * fuzz_litmus_parse.c - the fuzz target of the litmus parser: any bytes
 * parse or fail with a FILE:LINE:COL message; a parsed test that this
 * build can run runs a few executions (the runner never trusts the AST
 * beyond what the parser checked). libFuzzer: link with
 * -fsanitize=fuzzer; the plain build drives it from test_litmus_parse.
 */
#include <string.h>

#include <weft/litmus.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[300], why[200];
	struct weft_litmus *t = weft_litmus_parse("fuzz.litmus", (const char *)data, size, err,
						  sizeof(err));
	static struct weft_litmus_result r;

	if (!t) {
		if (!strstr(err, "fuzz.litmus:"))
			__builtin_trap();   /* every error names the place */
		return 0;
	}
	struct weft_litmus_run_opts o = { .memory = WEFT_MEM_TSO, .strategy = "random",
					  .executions = 4, .seed = 1 };
	if (weft_litmus_nr_procs(t) <= 4)
		weft_litmus_run(t, &o, &r, why, sizeof(why));
	weft_litmus_free(t);
	return 0;
}
