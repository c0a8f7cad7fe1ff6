/* bench_median.h: the median of a sample, shared by the bench programs
 * (weft-microbench, weft-bench-scaling) and the harness (bench_fuzz.c).
 * Header-only because the programs link no bench library. */
#ifndef WEFT_BENCH_MEDIAN_H
#define WEFT_BENCH_MEDIAN_H

#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v[0..n) in place; n > 0. An even n averages the two middle values. */
static inline double bench_median_sort(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
