/*
 * model_util.c - what every model's scenario callbacks would otherwise
 * write again (both builds): setup()'s copy of the workload into the world,
 * stats()'s rows of per-thread counters (weft.h).
 */
#include <weft/weft.h>

void weft_workload_copy(const struct weft_workload *wl, unsigned nr_threads, unsigned max_ops,
			unsigned *nr_ops, struct weft_op *ops)
{
	for (unsigned t = 0; t < nr_threads && t < WEFT_MAX_THREADS; t++) {
		nr_ops[t] = wl->nr_ops[t] < max_ops ? wl->nr_ops[t] : max_ops;
		for (unsigned i = 0; i < nr_ops[t]; i++)
			ops[(size_t)t * max_ops + i] = wl->ops[t][i];
	}
}

unsigned long weft_stat_sum(const unsigned long *stat, unsigned nr, unsigned nr_threads,
			    unsigned s)
{
	unsigned long v = 0;

	for (unsigned t = 0; t < nr_threads; t++)
		v += stat[(size_t)t * nr + s];
	return v;
}

unsigned weft_stat_rows(const char *const *stat_names, unsigned nr, const unsigned long *stat,
			unsigned nr_threads, const char **names, uint64_t *vals, unsigned max)
{
	unsigned n = 0;

	for (unsigned s = 0; s < nr && n < max; s++, n++) {
		names[n] = stat_names[s];
		vals[n] = weft_stat_sum(stat, nr, nr_threads, s);
	}
	return n;
}
