/*
 * bad_scenarios.c - a model program whose registry declares scenarios the
 * machine cannot run (check_bad_scenarios.sh runs it): more threads or
 * CPUs than Weft has, none, a thread on a CPU that does not exist, no
 * thread function, too many operations per thread; and one it can. Each
 * bad one must be refused with a sentence and exit 2, never reported
 * "clean" after running nothing.
 */
#include <weft/kernel.h>

struct bw {
	int x;
};

static void b_thread(void *w, unsigned tid)
{
	struct bw *W = w;

	(void)tid;
	WRITE_ONCE(W->x, READ_ONCE(W->x) + 1);
}

static const char *const b_ops[] = { "op" };
static const struct weft_variant b_variants[] = {
	{ "v", NULL, false, "", "test", WEFT_KIND_NONE, 0, 0 },
};
static const uint8_t b_cpu_of[] = { 0, 2 };

#define B_SCENARIO(id, name_, cpus, threads, cpu_of_, thread_, max_ops_)     \
	static const struct weft_scenario id = {                               \
		.name = name_, .summary = name_, .source = "test", .nr_cpus = cpus, \
		.nr_threads = threads, .cpu_of = cpu_of_,                      \
		.world_size = sizeof(struct bw), .nr_opcodes = 1, .opnames = b_ops, \
		.max_ops = max_ops_, .decision_hint = 8, .thread = thread_,    \
		.variants = b_variants, .nr_variants = 1 }

B_SCENARIO(ok, "ok", 2, 2, NULL, b_thread, 1);
B_SCENARIO(too_many_threads, "too-many-threads", 64, 64, NULL, b_thread, 1);
B_SCENARIO(no_threads, "no-threads", 1, 0, NULL, b_thread, 1);
B_SCENARIO(too_many_cpus, "too-many-cpus", 65, 2, NULL, b_thread, 1);
B_SCENARIO(bad_cpu_of, "bad-cpu-of", 2, 2, b_cpu_of, b_thread, 1);
B_SCENARIO(no_thread_fn, "no-thread-fn", 2, 2, NULL, NULL, 1);
B_SCENARIO(too_many_ops, "too-many-ops", 2, 2, NULL, b_thread, WEFT_MAX_OPS + 1);

WEFT_DEFINE_REGISTRY(&ok, &too_many_threads, &no_threads, &too_many_cpus, &bad_cpu_of,
		     &no_thread_fn, &too_many_ops);
