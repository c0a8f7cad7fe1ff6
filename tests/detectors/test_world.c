/*
 * test_world.c - every primitive family given memory outside the world:
 * from a model thread and from setup (the host context), on an object just
 * before the world, on a host global and near NULL. Each case must be an
 * out-of-world report naming the address relative to the world, and the
 * host's memory must be untouched: the host global is a canary compared
 * byte for byte, the bytes before the world are compared with a copy taken
 * before the execution (the heap allocator's chunk header: a store there
 * used to abort the process at the next free).
 *
 * Usage: test_world [CASE]   (no argument: every case, from both contexts)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <weft/strategy.h>
#include <weft/mm/page.h>
#include <weft/mm/pagelock.h>
#include <weft/percpu_ref.h>
#include <weft/rcu.h>
#include <weft/xarray.h>

#include "check.h"
#include "../model_driver.h"

/* Big enough for any object the cases use; first in the world, so that
 * "before" (a negative index of it) is just before the world. */
union obj {
	uint64_t word[64];
	struct weft_spinlock lock;
	struct weft_mutex mutex;
	struct weft_rw_semaphore rwsem;
	struct weft_semaphore sem;
	struct weft_completion done;
	struct weft_wait_queue_head wq;
	struct rcu_head rcu;
	struct work_struct work;
	struct weft_list_head list;
	struct weft_page page;
};

struct ww {
	union obj first;   /* world offset 0 */
	unsigned variant;
	unsigned where;    /* W_BEFORE, W_HOST, W_NULL */
	bool from_setup;
	struct weft_mm mm;
	struct weft_list_head head;
	struct xarray xa;
	struct percpu_ref ref;
};

static union obj host_canary;   /* a host global the model must not touch */
static const uint8_t canary_byte = 0xa5;

enum { W_BEFORE, W_HOST, W_NULL, W_NR };
static const char *const where_names[] = { "before", "host", "null" };

static void *target(struct ww *W, unsigned where)
{
	switch (where) {
	case W_BEFORE: return (char *)&W->first - sizeof(union obj);
	case W_HOST: return &host_canary;
	default: return (void *)(uintptr_t)0x40;
	}
}

static void noop_rcu(struct rcu_head *h)
{
	(void)h;
}

static void noop_work(struct work_struct *w)
{
	(void)w;
}

/* One misuse each; p is outside the world. Some are thread-only (the
 * host context refuses them before looking at the object). */
#define CASES(X)                                                                \
	X(read_once, (void)READ_ONCE(*(uint64_t *)p))                               \
	X(write_once, WRITE_ONCE(*(uint64_t *)p, 1))                            \
	X(atomic_inc, atomic_inc((atomic_t *)p))                                \
	X(cmpxchg, (void)cmpxchg((uint64_t *)p, 0, 1))                          \
	X(test_and_set_bit, (void)test_and_set_bit(3, (unsigned long *)p))      \
	X(plain_read, (void)PLAIN_READ(*(uint64_t *)p))                         \
	X(plain_write, PLAIN_WRITE(*(uint64_t *)p, 7))                          \
	X(peek, (void)weft_peek(*(uint64_t *)p))                                \
	X(spin_lock_init, spin_lock_init((spinlock_t *)p))                      \
	X(spin_lock, spin_lock((spinlock_t *)p))                                \
	X(spin_trylock, (void)spin_trylock((spinlock_t *)p))                    \
	X(spin_unlock, spin_unlock((spinlock_t *)p))                            \
	X(spin_is_locked, (void)spin_is_locked((spinlock_t *)p))                \
	X(mutex_init, mutex_init((struct weft_mutex *)p))                       \
	X(mutex_lock, mutex_lock((struct weft_mutex *)p))                       \
	X(mutex_trylock, (void)mutex_trylock((struct weft_mutex *)p))           \
	X(init_rwsem, init_rwsem((struct weft_rw_semaphore *)p))                \
	X(down_read, down_read((struct weft_rw_semaphore *)p))                  \
	X(down_write, down_write((struct weft_rw_semaphore *)p))                \
	X(up_write, up_write((struct weft_rw_semaphore *)p))                    \
	X(sema_init, sema_init((struct weft_semaphore *)p, 1))                  \
	X(down, down((struct weft_semaphore *)p))                               \
	X(up, up((struct weft_semaphore *)p))                                   \
	X(init_completion, init_completion((struct weft_completion *)p))        \
	X(complete, complete((struct weft_completion *)p))                      \
	X(completion_done, (void)completion_done((struct weft_completion *)p))  \
	X(init_waitqueue_head, init_waitqueue_head((struct weft_wait_queue_head *)p)) \
	X(wake_up, wake_up((struct weft_wait_queue_head *)p))                   \
	X(bit_lock, (void)test_and_set_bit_lock(0, (unsigned long *)p))         \
	X(wake_bit, weft_wake_up_bit_waiters((unsigned long *)p, 0, 1,          \
					     WEFT_SITE(WEFT_EV_WAKE, "wake_bit(p)"))) \
	X(call_rcu, call_rcu((struct rcu_head *)p, noop_rcu))                   \
	X(kfree, weft_kfree((struct weft_list_head *)p))                             \
	X(rcu_dereference, (void)rcu_dereference(*(uint64_t **)p))              \
	X(init_work, INIT_WORK((struct work_struct *)p, noop_work))             \
	X(queue_work, (void)schedule_work_on(0, (struct work_struct *)p))          \
	X(poison, weft_poison(p, 8, WEFT_SITE(WEFT_EV_FREE, "poison(p)")))      \
	X(list_add, weft_list_add((struct weft_list_head *)p, &W->head))             \
	X(list_del, weft_list_del((struct weft_list_head *)p))                       \
	X(xa_init, xa_init((struct xarray *)p))                                 \
	X(percpu_ref_init, (void)percpu_ref_init((struct percpu_ref *)p, NULL, 0)) \
	X(get_page, weft_get_page(&W->mm, (struct weft_page *)p))                    \
	X(lock_page, lock_page((struct weft_page *)p))                          \
	X(mm_init, weft_mm_init((struct weft_mm *)p, 2, false))

enum {
#define X(n, e) C_##n,
	CASES(X)
#undef X
	C_NR
};
static const char *const case_names[] = {
#define X(n, e) #n,
	CASES(X)
#undef X
};

/* Cases the host context refuses before looking at their object (an
 * assertion: nothing can wake a sleeper there, no worker exists). */
static bool host_refuses(unsigned c)
{
	return c == C_queue_work;
}

static void misuse(struct ww *W)
{
	void *p = target(W, W->where);

	switch (W->variant) {
#define X(n, e)                                                                 \
	case C_##n:                                                             \
		e;                                                              \
		break;
		CASES(X)
#undef X
	}
}

/* The harness's choice of (where, from_setup) for the next execution. */
static unsigned mode_words[2];

WEFT_TEST_SETUP(ww, struct ww)
{
	W->where = mode_words[0];
	W->from_setup = mode_words[1];
	weft_mm_init(&W->mm, 2, false);
	weft_list_init(&W->head);
	if (W->from_setup)
		misuse(W);
}

static void ww_thread(void *w, unsigned tid)
{
	struct ww *W = w;

	if (tid == 0 && !W->from_setup)
		misuse(W);
}

static const char *const ww_files[] = { "test_world.c", NULL };

static struct weft_variant ww_variants[C_NR];

static struct weft_scenario ww_sc = {
	.name = "test-world", .summary = "every primitive family outside the world",
	.source = "tests/detectors", .nr_cpus = 2, .nr_threads = 2, .world_size = sizeof(struct ww),
	WEFT_TEST_NOP_OP, .decision_hint = 64, .files = ww_files,
	WEFT_TEST_HOOKS(ww),
};

/* Can the harness itself read p? (A world of its own mmap has no mapped
 * page before it; a heap world has the allocator's chunk header there.) */
static bool mapped(const void *p)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char v;

	return mincore((void *)((uintptr_t)p & ~(uintptr_t)(pg - 1)), 1, &v) == 0;
}

/* The report names a host address by its distance from the world when it
 * is within 64 KiB of it (machine.c, WORLD_NEAR), else "far". */
static bool near_world(const void *p, const uint8_t *world)
{
	uintptr_t a = (uintptr_t)p, w = (uintptr_t)world;

	return a < w ? w - a <= 65536 : a - w < sizeof(struct ww) + 65536;
}

static void run_case(unsigned c, unsigned where, bool from_setup)
{
	const char *ctx = from_setup ? "setup" : "thread";
	struct weft_bytes b;
	struct weft_exec_result r;
	struct weft_run_opts o = { .sc = &ww_sc, .variant = c, .step_budget = 2000 };
	uint8_t before[sizeof(union obj)];
	const uint8_t *world;

	mode_words[0] = where;
	mode_words[1] = from_setup;
	memset(&host_canary, canary_byte, sizeof(host_canary));
	/* the bytes before the world, as the allocator left them (the world
	 * of a scenario of this size stays where it is between executions) */
	weft_bytes_init(&b, &ww_sc, NULL, 0);
	world = weft_last_world();
	bool readable = world && mapped(world - sizeof(before));
	if (readable)
		memcpy(before, world - sizeof(before), sizeof(before));
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute %s", case_names[c]);
	CHECK(world == weft_last_world(), "the world moved");
	if (from_setup && host_refuses(c)) {
		CHECK(r.kind == WEFT_KIND_ASSERT, "%s/%s/%s: %s", case_names[c], where_names[where],
		      ctx, weft_kind_name(r.kind));
	} else {
		CHECK(r.kind == WEFT_KIND_OUT_OF_WORLD, "%s/%s/%s: expected out-of-world, got %s (%s)",
		      case_names[c], where_names[where], ctx, weft_kind_name(r.kind), r.report.msg);
		const char *want = where == W_BEFORE ? "world-0x" : where == W_NULL ? "NULL+0x"
				   : near_world(&host_canary, world) ? "world"
				   : "a static variable of the program";
		CHECK(!strncmp(r.report.object, want, strlen(want)), "%s/%s/%s: object '%s'",
		      case_names[c], where_names[where], ctx, r.report.object);
		CHECK(r.report.here.site != NULL, "%s/%s/%s: no site", case_names[c],
		      where_names[where], ctx);
		CHECK(r.report.here.tid == (from_setup ? -1 : 0), "%s/%s/%s: reported by T%d",
		      case_names[c], where_names[where], ctx, r.report.here.tid);
	}
	for (size_t i = 0; i < sizeof(host_canary); i++)
		if (((const uint8_t *)&host_canary)[i] != canary_byte) {
			CHECK(false, "%s/%s/%s: host global written at byte %zu", case_names[c],
			      where_names[where], ctx, i);
			break;
		}
	if (readable)
		CHECK(!memcmp(before, world - sizeof(before), sizeof(before)),
		      "%s/%s/%s: the bytes before the world changed", case_names[c],
		      where_names[where], ctx);
	if (r.kind == WEFT_KIND_OUT_OF_WORLD && getenv("WEFT_TEST_VERBOSE"))
		printf("%-20s %-6s %-6s %s: %s\n", case_names[c], where_names[where], ctx,
		       r.report.object, r.report.msg);
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	unsigned ran = 0;

	for (unsigned c = 0; c < C_NR; c++)
		ww_variants[c] = (struct weft_variant){ case_names[c], NULL, true, case_names[c],
							"test", WEFT_KIND_OUT_OF_WORLD, 0, c };
	/* one execution first, so that the world exists and stays put */
	{
		struct weft_bytes b;
		struct weft_exec_result r;
		struct weft_run_opts o = { .sc = &ww_sc, .variant = C_read_once };
		mode_words[0] = W_BEFORE;
		mode_words[1] = 0;
		weft_bytes_init(&b, &ww_sc, NULL, 0);
		CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "first execution");
	}
	for (unsigned c = 0; c < C_NR; c++) {
		if (only && strcmp(only, case_names[c]))
			continue;
		for (unsigned where = 0; where < W_NR; where++)
			for (unsigned from_setup = 0; from_setup < 2; from_setup++)
				run_case(c, where, from_setup);
		ran++;
	}
	if (!ran) {
		fprintf(stderr, "usage: test_world [CASE] (no case '%s')\n", only);
		return 2;
	}
	printf("%u cases x %u places x 2 contexts\n", ran, (unsigned)W_NR);
	return check_done();
}
