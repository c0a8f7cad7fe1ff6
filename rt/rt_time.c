/*
 * rt_time.c - the clocks of an instrumented program during an execution:
 * a virtual clock, the same in every execution and every replay, where
 * the real one made a program that reads the time behave differently in
 * each run (a timeout taken or not, a value that changes the path) and a
 * recorded bug not replay.
 *
 * The clock starts at 0 ns with every execution and moves forward by 1 µs
 * at each reading (two readings differ, as on a real machine) and by the
 * requested time at each sleep (rt_time_sleep(): usleep, nanosleep,
 * sleep), so a program measuring an elapsed time or waiting for a deadline
 * sees time pass as it asked. CLOCK_REALTIME (and time(), gettimeofday())
 * reads 1700000000 s plus the clock, the monotonic and boot clocks 1000 s
 * plus it, the CPU-time clocks (and clock()) the clock itself. Outside an
 * execution each function is the C library's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#include "rt_internal.h"

#define READ_STEP_NS 1000ull
#define REALTIME_BASE_S 1700000000ull
#define MONOTONIC_BASE_S 1000ull

REAL(int, clock_gettime, clockid_t, struct timespec *)
REAL(int, gettimeofday, struct timeval *restrict, void *restrict)
REAL(time_t, time, time_t *)
REAL(clock_t, clock, void)

static uint64_t clock_ns;   /* per execution (rt_time_reset()) */

void rt_time_reset(void)
{
	clock_ns = 0;
}

void rt_time_sleep(uint64_t ns)
{
	clock_ns += ns;
}

/* the reading of clock clk, or false for a clock there is none of */
static bool read_clock(clockid_t clk, struct timespec *ts)
{
	uint64_t base;

	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_TAI:
		base = REALTIME_BASE_S * 1000000000ull;
		break;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		base = MONOTONIC_BASE_S * 1000000000ull;
		break;
	case CLOCK_PROCESS_CPUTIME_ID:
	case CLOCK_THREAD_CPUTIME_ID:
		base = 0;
		break;
	default:
		return false;
	}
	clock_ns += READ_STEP_NS;
	rt_state_moved();
	uint64_t t = base + clock_ns;
	ts->tv_sec = (time_t)(t / 1000000000ull);
	ts->tv_nsec = (long)(t % 1000000000ull);
	return true;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (!rt_active())
		return get_clock_gettime()(clk, ts);
	if (!read_clock(clk, ts)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	if (!rt_active())
		return get_gettimeofday()(tv, tz);
	struct timespec ts;
	read_clock(CLOCK_REALTIME, &ts);
	/* tv is declared nonnull (glibc's header) */
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t time(time_t *t)
{
	if (!rt_active())
		return get_time()(t);
	struct timespec ts;
	read_clock(CLOCK_REALTIME, &ts);
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

clock_t clock(void)
{
	if (!rt_active())
		return get_clock()();
	struct timespec ts;
	read_clock(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (clock_t)((uint64_t)ts.tv_sec * CLOCKS_PER_SEC +
			 (uint64_t)ts.tv_nsec / (1000000000ull / CLOCKS_PER_SEC));
}
