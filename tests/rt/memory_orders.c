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
 *   SB, relaxed, seq_cst fences between     never
 *   SB, relaxed, acq_rel fences between     tso, lkmm (only seq_cst orders
 *                                           a store before a later load)
 *   MP, relaxed, release fence / acquire    never
 *   MP, relaxed, acq_rel fences             never
 *   MP, relaxed, relaxed fences             lkmm
 *   WRC, release store and acquire load     never (C11's happens-before:
 *                                           t1 read x=1 before releasing)
 *   WRC, relaxed, release fence / acquire   never (the same, by fences:
 *                                           unlike smp_wmb(), A-cumulative)
 *   WRC, relaxed                            lkmm
 *
 * -DSHAPE_MP selects MP, -DSHAPE_WRC write-to-read causality (t1 reads
 * t2's x=1 and stores it to y; t0 reads y=1, then x); -DST, -DLD, -DRMW the orders (memory_order_*);
 * -DFENCE0, -DFENCE1 an atomic_thread_fence() of that order between the
 * two accesses of t0, t1.
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
#ifdef FENCE0
#define F0() atomic_thread_fence(FENCE0)
#else
#define F0() ((void)0)
#endif
#ifdef FENCE1
#define F1() atomic_thread_fence(FENCE1)
#else
#define F1() ((void)0)
#endif

#if defined(SHAPE_WRC)
static int r2;

static void *t2(void *arg)
{
	(void)arg;
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	return NULL;
}

static void *t1(void *arg)
{
	(void)arg;
	/* what it read goes to y, not to a global of its own: a store of
	 * its own before the fence would order y=1 after x=1 by itself */
	int v = atomic_load_explicit(&x, memory_order_relaxed);
	F1();
	atomic_store_explicit(&y, v, ST);
	return NULL;
}

static void *t0(void *arg)
{
	(void)arg;
	r0 = LOAD(y);
	F0();
	r2 = atomic_load_explicit(&x, memory_order_relaxed);
	return NULL;
}
#define FORBIDDEN (r0 == 1 && r2 == 0)   /* y=1: t1 read x=1 */
#elif !defined(SHAPE_MP)
static void *t0(void *arg)
{
	(void)arg;
	STORE(x);
	F0();
	r0 = LOAD(y);
	return NULL;
}

static void *t1(void *arg)
{
	(void)arg;
	STORE(y);
	F1();
	r1 = LOAD(x);
	return NULL;
}
#define FORBIDDEN (r0 == 0 && r1 == 0)
#else
static void *t0(void *arg)
{
	(void)arg;
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	F0();
	STORE(y);
	return NULL;
}

static void *t1(void *arg)
{
	(void)arg;
	r0 = LOAD(y);
	F1();
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
#ifdef SHAPE_WRC
	pthread_t c;
	pthread_create(&c, NULL, t2, NULL);
	pthread_join(c, NULL);
#endif
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(!FORBIDDEN);
	return 0;
}
