/*
 * bench_program_plain.c - the uninstrumented half of weft-bench-program
 * (bench_program.c): its loop, compiled without -fsanitize=thread, is the
 * baseline an instrumented access is compared with.
 */
long bench_plain_loop(int *a, long n);
void bench_escape(int *a);

__attribute__((noinline)) long bench_plain_loop(int *a, long n)
{
	long s = 0;

	for (long i = 0; i < n; i++) {
		s += a[i & 63];
		a[(i * 7) & 63] = (int)i;
	}
	return s;
}

void bench_escape(int *a)
{
	__asm__ volatile("" : : "r"(a) : "memory");
}
