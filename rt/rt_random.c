/*
 * rt_random.c - the C library's other generators during an execution,
 * each with per-execution state (rt_random_reset()), so that a program
 * drawing numbers behaves the same in every execution and every replay;
 * rand() and random() are rt_libc.c's. The C library's own state carried
 * over from one execution to the next: a recorded bug did not replay.
 *
 *   drand48, lrand48, mrand48,   POSIX's 48-bit generator, X = aX + c mod
 *   erand48, nrand48, jrand48,   2^48 with a = 0x5DEECE66D, c = 0xB, X = 0
 *   srand48, seed48, lcong48     until seeded (glibc's start): the same
 *                                numbers as the C library's from the start
 *   getrandom, getentropy,       bytes of a 64-bit generator seeded the same
 *   arc4random, _buf, _uniform   in every execution (not random at all:
 *                                deterministic, as a test needs)
 * Outside an execution each is the C library's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rt_internal.h"

REAL(double, drand48, void)
REAL(long, lrand48, void)
REAL(long, mrand48, void)
REAL(double, erand48, unsigned short *)
REAL(long, nrand48, unsigned short *)
REAL(long, jrand48, unsigned short *)
REAL(void, srand48, long)
REAL(unsigned short *, seed48, unsigned short *)
REAL(void, lcong48, unsigned short *)
REAL(ssize_t, getrandom, void *, size_t, unsigned)
REAL(int, getentropy, void *, size_t)
REAL(uint32_t, arc4random, void)
REAL(void, arc4random_buf, void *, size_t)
REAL(uint32_t, arc4random_uniform, uint32_t)

#define LCG48_A 0x5DEECE66Dull
#define LCG48_C 0xBull
#define MASK48 ((1ull << 48) - 1)

static struct {
	uint64_t x, a, c;
	unsigned short last[3];   /* seed48()'s return */
	uint64_t bytes;           /* the byte generator's state */
} g;

void rt_random_reset(void)
{
	memset(&g, 0, sizeof(g));
	g.a = LCG48_A;
	g.c = LCG48_C;
	g.bytes = 0x9E3779B97F4A7C15ull;
}

static uint64_t step48(uint64_t *x)
{
	*x = (g.a * *x + g.c) & MASK48;
	rt_state_moved();
	return *x;
}

static uint64_t from_xsubi(const unsigned short x[3])
{
	return (uint64_t)x[0] | (uint64_t)x[1] << 16 | (uint64_t)x[2] << 32;
}

static void to_xsubi(unsigned short x[3], uint64_t v)
{
	x[0] = (unsigned short)v;
	x[1] = (unsigned short)(v >> 16);
	x[2] = (unsigned short)(v >> 32);
}

static double as_double(uint64_t x)
{
	return (double)x / (double)(1ull << 48);
}

double drand48(void)
{
	if (!rt_active())
		return get_drand48()();
	return as_double(step48(&g.x));
}

long lrand48(void)
{
	if (!rt_active())
		return get_lrand48()();
	return (long)(step48(&g.x) >> 17);
}

long mrand48(void)
{
	if (!rt_active())
		return get_mrand48()();
	return (long)(int32_t)(uint32_t)(step48(&g.x) >> 16);
}

/* one step of the generator on the caller's state xsubi: the new X */
static uint64_t step_xsubi(unsigned short xsubi[3])
{
	uint64_t x = from_xsubi(xsubi);

	step48(&x);
	to_xsubi(xsubi, x);
	return x;
}

double erand48(unsigned short xsubi[3])
{
	if (!rt_active())
		return get_erand48()(xsubi);
	return as_double(step_xsubi(xsubi));
}

long nrand48(unsigned short xsubi[3])
{
	if (!rt_active())
		return get_nrand48()(xsubi);
	return (long)(step_xsubi(xsubi) >> 17);
}

long jrand48(unsigned short xsubi[3])
{
	if (!rt_active())
		return get_jrand48()(xsubi);
	return (long)(int32_t)(uint32_t)(step_xsubi(xsubi) >> 16);
}

void srand48(long seed)
{
	if (!rt_active()) {
		get_srand48()(seed);
		return;
	}
	g.x = ((uint64_t)(uint32_t)seed << 16 | 0x330E) & MASK48;
	g.a = LCG48_A;
	g.c = LCG48_C;
}

unsigned short *seed48(unsigned short seed16v[3])
{
	if (!rt_active())
		return get_seed48()(seed16v);
	to_xsubi(g.last, g.x);
	g.x = from_xsubi(seed16v);
	g.a = LCG48_A;
	g.c = LCG48_C;
	return g.last;
}

void lcong48(unsigned short param[7])
{
	if (!rt_active()) {
		get_lcong48()(param);
		return;
	}
	g.x = from_xsubi(param);
	g.a = from_xsubi(param + 3);
	g.c = param[6];
}

/* splitmix64: a fixed sequence of well-mixed 64-bit values */
static uint64_t next_bytes(void)
{
	uint64_t z = (g.bytes += 0x9E3779B97F4A7C15ull);
	rt_state_moved();
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void fill(void *buf, size_t n)
{
	unsigned char *p = buf;

	while (n) {
		uint64_t v = next_bytes();
		size_t k = n < sizeof(v) ? n : sizeof(v);
		memcpy(p, &v, k);
		p += k;
		n -= k;
	}
}

ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
	if (!rt_active())
		return get_getrandom()(buf, n, flags);
	fill(buf, n);
	return (ssize_t)n;
}

int getentropy(void *buf, size_t n)
{
	if (!rt_active())
		return get_getentropy()(buf, n);
	if (n > 256) {
		errno = EIO;
		return -1;
	}
	fill(buf, n);
	return 0;
}

uint32_t arc4random(void)
{
	if (!rt_active())
		return get_arc4random()();
	return (uint32_t)next_bytes();
}

void arc4random_buf(void *buf, size_t n)
{
	if (!rt_active()) {
		get_arc4random_buf()(buf, n);
		return;
	}
	fill(buf, n);
}

uint32_t arc4random_uniform(uint32_t bound)
{
	if (!rt_active())
		return get_arc4random_uniform()(bound);
	if (bound < 2)
		return 0;
	/* rejection of the low values that would bias the remainder */
	uint32_t min = -bound % bound, r;
	do
		r = (uint32_t)next_bytes();
	while (r < min);
	return r % bound;
}
