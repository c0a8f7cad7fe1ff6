/*
 * bench_program.c - weft-bench-program: an instrumented program (built
 * with weft_instrument()) that `weft bench` measures side by side in one
 * run (docs/testing-c-programs.md, "Speed"):
 *
 *   main()                 two threads add to a counter under a mutex: the
 *                          unmodified-program workload whose executions per
 *                          second the runtime's bench engine measures in
 *                          process and with one fork per execution
 *   main("micro", FILE)    in one execution, ns per access (the best of 7
 *                          runs) of the same loop shape on: the running
 *                          thread's own stack, a
 *                          __thread variable (neither a scheduling point),
 *                          a global (a scheduling point), the global through
 *                          the model primitives READ_ONCE and PLAIN_READ
 *                          (what a hand-marked model pays), and the loop
 *                          uninstrumented (bench_program_plain.c); one JSON
 *                          object into FILE
 * Run as `WEFT_PROGRAM_ENGINE=bench weft-bench-program` (rt/rt_bench.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <weft/kernel.h>

#define OWN_N 4000000L
#define SHARED_N 15000L   /* x 2 accesses x 3 loops x REPS: under the step budget */

long bench_plain_loop(int *a, long n);   /* bench_program_plain.c, uninstrumented */
void bench_escape(int *a);               /* bench_program_plain.c: the array escapes */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;
int shared[64];
static __thread int mine[64];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The measured loop: one load and one store per iteration, two accesses to
 * a through LOAD and STORE. Every access form runs this one loop, so the
 * figures differ by the access alone. */
#define ACCESS_LOOP(name, LOAD, STORE)                                        \
	static __attribute__((noinline)) long name(int *a, long n)            \
	{                                                                     \
		long s = 0;                                                   \
									      \
		for (long i = 0; i < n; i++) {                                \
			s += LOAD(a[i & 63]);                                 \
			STORE(a[(i * 7) & 63], (int)i);                       \
		}                                                             \
		return s;                                                     \
	}
#define C_LOAD(x) (x)
#define C_STORE(x, v) ((x) = (v))

ACCESS_LOOP(loop, C_LOAD, C_STORE)
ACCESS_LOOP(loop_read_once, READ_ONCE, WRITE_ONCE)
ACCESS_LOOP(loop_plain_macro, PLAIN_READ, PLAIN_WRITE)

static void *adder(void *arg)
{
	for (int i = 0; i < 2; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

/* The best of REPS runs of fn(n) (ns per access: two per iteration), so
 * that another process on the machine does not decide the figure. */
#define REPS 7
#define BEST(expr, n)                                                         \
	({                                                                    \
		double best_ = 1e30;                                          \
		for (int r_ = 0; r_ < REPS; r_++) {                           \
			double t0_ = now();                                   \
			sink += (expr);                                       \
			double v_ = (now() - t0_) / (2.0 * (double)(n));      \
			if (v_ < best_)                                       \
				best_ = v_;                                   \
		}                                                             \
		best_;                                                        \
	})

static int micro(const char *path)
{
	int local[64] = { 0 };
	long sink = 0;
	FILE *f;

	bench_escape(local);
	double own = BEST(loop(local, OWN_N), OWN_N);
	double tls = BEST(loop(mine, OWN_N), OWN_N);
	double plain = BEST(bench_plain_loop(local, OWN_N), OWN_N);
	double shr = BEST(loop(shared, SHARED_N), SHARED_N);
	double ronce = BEST(loop_read_once(shared, SHARED_N), SHARED_N);
	double pmac = BEST(loop_plain_macro(shared, SHARED_N), SHARED_N);
	f = fopen(path, "w");
	if (!f)
		return 3;
	fprintf(f, "{\"own_stack_ns\": %.3f, \"thread_local_ns\": %.3f, \"uninstrumented_ns\": %.3f, "
		   "\"shared_ns\": %.3f, \"model_read_once_ns\": %.3f, \"model_plain_ns\": %.3f, "
		   "\"own_n\": %ld, \"shared_n\": %ld, \"reps\": %d, \"sink\": %ld}\n",
		own, tls, plain, shr, ronce, pmac, OWN_N, SHARED_N, REPS, sink & 1);
	return fclose(f) ? 3 : 0;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc == 3 && argv[1][0] == 'm')
		return micro(argv[2]);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, adder, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return counter == 4 ? 0 : 1;
}
