/*
 * afl_mutator.c - the schedule genome mutator for AFL++ (a custom mutator
 * library, AFL_CUSTOM_MUTATOR_LIBRARY; AFL++ 4.x custom mutator API), the
 * same generation, genome mutations and bandit as the libFuzzer targets'
 * LLVMFuzzerCustomMutator (genome_mutate.c). `weft fuzz --engine afl` sets
 * it up with AFL_CUSTOM_MUTATOR_ONLY=1 and WEFT_FUZZ_TARGET=scenario:variant.
 *
 * It is loaded into afl-fuzz, not into the target: it links the models and
 * runs each parent once in its own machine (without feedback) to learn the
 * parent's operations per thread, so overrides land inside the parent's
 * execution as they do under libFuzzer. A new queue entry credits the arm
 * and the mode of the mutation that made it (afl_custom_queue_new_entry).
 * Built uninstrumented (gcc, the regression build): afl-fuzz has no map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/fuzz.h>

#include "weft_fuzz_glue.h"

struct weft_afl {
	struct weft_mutator m;
	unsigned vi;
	struct weft_bytes b;
	uint8_t out[WEFT_INPUT_MAX];
	uint8_t fresh[WEFT_INPUT_MAX];   /* a short parent's genome (weft_raw_input) */
	uint64_t calls;
	/* the shape of the last parent: AFL++ asks for many mutations of one
	 * queue entry in a row, and each shape costs an execution here */
	uint64_t shape_hash;
	struct weft_fuzz_shape shape;
};

void *afl_custom_init(void *afl, unsigned int seed);
size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
		       uint8_t *add_buf, size_t add_buf_size, size_t max_size);
uint8_t afl_custom_queue_new_entry(void *data, const uint8_t *filename_new_queue,
				   const uint8_t *filename_orig_queue);
void afl_custom_deinit(void *data);

/* A few random bytes after the magic: AFL++ has no byte mutator to lend. */
static size_t flip_bytes(uint8_t *data, size_t size, size_t max)
{
	static uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)max;
	for (unsigned n = 1 + (unsigned)(x >> 62); n-- && size;) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		data[(x >> 8) % size] = (uint8_t)(x >> 40);
	}
	return size;
}

void *afl_custom_init(void *afl, unsigned int seed)
{
	const char *spec = getenv("WEFT_FUZZ_TARGET");
	struct weft_afl *a;
	const struct weft_scenario *sc;
	unsigned vi;

	(void)afl;
	if (!spec || !(sc = weft_scenario_find(spec, &vi))) {
		fprintf(stderr, "weft: WEFT_FUZZ_TARGET=%s: no such scenario:variant in the "
				"mutator library\n", spec ? spec : "(unset)");
		return NULL;
	}
	if (weft_machine_init())
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	weft_mutator_init(&a->m, sc, 0x5745465441464cull ^ seed);
	/* the target's memory model, as fuzz_target.c sets it (WEFT_FUZZ_MEMORY,
	 * else the scenario's own): under a weak one genomes are version 2 and
	 * the delay arm runs. Without it every AFL++ genome asked for sc, and
	 * Z14-Z16's store-buffer bugs were found by byte flips alone. */
	if (!weft_fuzz_memory(sc, &a->m.memory)) {
		free(a);
		return NULL;
	}
	a->m.byte_mutate = flip_bytes;
	a->vi = vi;
	a->m.variant = vi;
	return a;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
		       uint8_t *add_buf, size_t add_buf_size, size_t max_size)
{
	struct weft_afl *a = data;
	struct weft_run_opts o = { .sc = a->m.sc, .variant = a->vi, .lock = a->m.sc->default_lock,
				   .no_trace_hash = true, .checks = WEFT_CHECKS_DEFAULT,
				   .memory = (uint8_t)a->m.memory };
	struct weft_exec_result r;
	size_t n = buf_size < sizeof(a->out) ? buf_size : sizeof(a->out);

	(void)add_buf;
	(void)add_buf_size;
	/* the parent's shape: one execution here, once per parent */
	uint64_t h = weft_fuzz_hash(buf, n);
	if (!a->calls || h != a->shape_hash) {
		memset(&a->shape, 0, sizeof(a->shape));
		a->shape_hash = h;
		size_t run_len = n;
		const uint8_t *run = weft_raw_input(a->m.sc, a->m.variant, a->m.memory, buf, &run_len,
						    a->fresh);
		weft_bytes_init(&a->b, a->m.sc, run, run_len);
		if (weft_execute(&o, &weft_strategy_bytes, &a->b, &r) == 0) {
			a->shape.known = a->b.genome;
			a->shape.steps = r.steps;
			memcpy(a->shape.cnt, a->b.gr.cnt, sizeof(a->shape.cnt));
			weft_mutator_reward(&a->m, NULL, 0, false, r.steps);
		}
	}
	memcpy(a->out, buf, n);
	if (max_size > sizeof(a->out))
		max_size = sizeof(a->out);
	n = weft_mutator_mutate(&a->m, a->out, n, max_size, (uint32_t)(a->calls++ * 0x9e3779b9u),
				&a->shape);
	*out_buf = a->out;
	return n;
}

uint8_t afl_custom_queue_new_entry(void *data, const uint8_t *filename_new_queue,
				   const uint8_t *filename_orig_queue)
{
	struct weft_afl *a = data;

	(void)filename_new_queue;
	(void)filename_orig_queue;
	if (a->m.last_arm >= 0) {
		a->m.gain[a->m.last_arm] += 1;
		if (a->m.last_mode >= 0)
			a->m.mgain[a->m.last_mode] += 1;
		a->m.last_arm = -1;
	}
	return 0;
}

void afl_custom_deinit(void *data)
{
	free(data);
}
