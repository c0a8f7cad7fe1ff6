/*
 * C11 atomics under --memory sc|tso|lkmm: store buffering (SB) and message
 * passing (MP) with the orders chosen at compile time. What each may show
 * (C11 and the LKMM agree on these shapes; check-memory-orders pins it):
 *   SB, seq_cst stores and loads            never
 *   SB, release stores and acquire loads    tso, lkmm
 *   SB, relaxed                             tso, lkmm
 *   SB, relaxed fetch_add for the stores    lkmm (tso: a locked instruction)
 *   SB, seq_cst fetch_add                   never
 *   MP, release store and acquire load      never
 *   MP, relaxed                             lkmm (tso keeps both orders)
 *
 * -DSHAPE_MP selects MP; -DST, -DLD, -DRMW the orders (memory_order_*).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int x, y;
static int r0, r1;

#ifdef RMW
#define STORE(v) atomic_fetch_add_explicit(&(v), 1, RMW)
#else
#define STORE(v) atomic_store_explicit(&(v), 1, ST)
#endif
#define LOAD(v) atomic_load_explicit(&(v), LD)

#ifndef SHAPE_MP
static void *t0(void *arg)
{
	(void)arg;
	STORE(x);
	r0 = LOAD(y);
	return NULL;
}

static void *t1(void *arg)
{
	(void)arg;
	STORE(y);
	r1 = LOAD(x);
	return NULL;
}
#define FORBIDDEN (r0 == 0 && r1 == 0)
#else
static void *t0(void *arg)
{
	(void)arg;
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	STORE(y);
	return NULL;
}

static void *t1(void *arg)
{
	(void)arg;
	r0 = LOAD(y);
	r1 = atomic_load_explicit(&x, memory_order_relaxed);
	return NULL;
}
#define FORBIDDEN (r0 == 1 && r1 == 0)
#endif

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, t0, NULL);
	pthread_create(&b, NULL, t1, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(!FORBIDDEN);
	return 0;
}
