/*
 * test_afl_mutator.c - the AFL++ custom mutator library
 * (libweft_afl_mutator.so, fuzz/afl_mutator.c), loaded as afl-fuzz loads
 * it: the genomes it makes for a target ask for the target's memory model.
 *
 *   test_afl_mutator LIBRARY SCENARIO:VARIANT
 *
 * WEFT_FUZZ_TARGET names the variant (weft fuzz sets it). 2,000 mutations
 * from the two-byte serial genome; under a weak-memory scenario (Z16: lkmm)
 * every genome must be version 2 asking for that model, and some must
 * delay stores (a non-zero rate); under sc every genome stays version 1.
 * Before the mutator was given the model, every AFL++ genome asked for sc.
 * Exit 0 pass, 1 fail, 2 usage.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/weft.h>

typedef void *(*init_fn)(void *afl, unsigned int seed);
typedef size_t (*fuzz_fn)(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
			  uint8_t *add_buf, size_t add_buf_size, size_t max_size);
typedef void (*deinit_fn)(void *data);

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_afl_mutator LIBRARY SCENARIO:VARIANT\n");
		return 2;
	}
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(argv[2], &vi);
	if (!sc) {
		fprintf(stderr, "test_afl_mutator: no variant %s\n", argv[2]);
		return 2;
	}
	setenv("WEFT_FUZZ_TARGET", argv[2], 1);
	unsetenv("WEFT_FUZZ_MEMORY");
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "test_afl_mutator: %s\n", dlerror());
		return 1;
	}
	init_fn init = (init_fn)(uintptr_t)dlsym(lib, "afl_custom_init");
	fuzz_fn fuzz = (fuzz_fn)(uintptr_t)dlsym(lib, "afl_custom_fuzz");
	deinit_fn deinit = (deinit_fn)(uintptr_t)dlsym(lib, "afl_custom_deinit");
	if (!init || !fuzz || !deinit) {
		fprintf(stderr, "test_afl_mutator: the library lacks the AFL++ mutator entry points\n");
		return 1;
	}
	void *m = init(NULL, 1);
	if (!m) {
		fprintf(stderr, "test_afl_mutator: afl_custom_init failed\n");
		return 1;
	}
	static uint8_t parent[WEFT_INPUT_MAX];
	size_t plen = 2;
	parent[0] = WEFT_GENOME_MAGIC0;
	parent[1] = WEFT_GENOME_MAGIC1;
	unsigned v1 = 0, v2 = 0, wrong_model = 0, delaying = 0, n = 2000;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *out = NULL;
		size_t len = fuzz(m, parent, plen, &out, NULL, 0, sizeof(parent));
		if (!out || !len || len > sizeof(parent)) {
			fprintf(stderr, "test_afl_mutator: mutation %u returned nothing\n", i);
			return 1;
		}
		if (len >= 2 && out[0] == WEFT_GENOME_MAGIC0 && out[1] == WEFT_GENOME_MAGIC2) {
			v2++;
			/* mem byte: bits 0-1 the model asked for, 2-7 the delay rate */
			uint8_t mem = len > 8 ? out[8] : 0;
			wrong_model += (unsigned)(mem & 3u) != sc->memory;
			delaying += (mem >> 2) != 0;
		} else if (len >= 2 && out[0] == WEFT_GENOME_MAGIC0 && out[1] == WEFT_GENOME_MAGIC1) {
			v1++;
		}
		/* walk on: the next parent is this child (a queue of one) */
		memcpy(parent, out, len);
		plen = len;
	}
	deinit(m);
	printf("%s (memory %s): %u mutations, %u version-1 genomes, %u version-2 "
	       "(%u asking for another model, %u delaying stores)\n",
	       argv[2], weft_memory_name((enum weft_memory_model)sc->memory), n, v1, v2,
	       wrong_model, delaying);
	/* the byte-flip arm may rewrite a mem byte: most, not all, keep the model */
	bool ok = sc->memory ? v2 > n / 2 && !v1 && wrong_model * 4 < v2 && delaying > 0 : !v2 && v1 > 0;
	printf("%s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
