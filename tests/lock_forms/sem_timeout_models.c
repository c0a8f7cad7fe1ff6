/*
 * sem_timeout_models.c - down_timeout() (kernel/locking/semaphore.c,
 * ___down_common() with a timeout): T0 hands a request to T1 and waits for
 * it with down_timeout() on a semaphore of count 0; T1 takes a mutex,
 * stores its result and up()s the semaphore. The waiter's timer may fire
 * before T1 runs (the timer softirq's pseudo-thread, a fair alternative
 * once T0 sleeps, as timeout-first's), and T0's timeout path is where the
 * bug is (bin/weft-lock-forms; tests/lock_forms/CMakeLists.txt):
 *
 *  sem-timeout  free-on-timeout (bug): on -ETIME T0 frees the request and
 *               the common exit frees it again (double free);
 *               down-again (clean): on -ETIME T0 waits for T1's up() with
 *               down(), then frees once; a down_timeout() that returned 0
 *               saw the result (up() hands the count over: waiter.up wins
 *               over a timer that fired too).
 */
#include <errno.h>

#include <weft/kernel.h>
#include <weft/slab.h>
#include <weft/timer.h>

#define WEFT_TEST_SOURCE "kernel/locking/semaphore.c"
#define WEFT_TEST_FILE "sem_timeout_models.c"
#include "../model_driver.h"

_Static_assert(WEFT_ETIME == ETIME, "down_timeout() returns Linux's -ETIME");

enum { ST_FREE_ON_TIMEOUT, ST_DOWN_AGAIN };

struct st_req {
	int result;
};

struct st_world {
	unsigned variant;
	struct mutex m;
	struct semaphore sem;
	struct st_req *req;
};

WEFT_TEST_SETUP(st, struct st_world)
{
	mutex_init(&W->m);
	sema_init(&W->sem, 0);
	W->req = kzalloc(sizeof(*W->req), GFP_KERNEL);
}

static void st_thread(void *w, unsigned tid)
{
	struct st_world *W = w;
	struct st_req *r = READ_ONCE(W->req);

	if (tid == 1) {
		mutex_lock(&W->m);
		WRITE_ONCE(r->result, 1);
		mutex_unlock(&W->m);
		up(&W->sem);
		return;
	}
	int ret = down_timeout(&W->sem, 2);
	if (ret == -ETIME) {
		if (W->variant == ST_FREE_ON_TIMEOUT)
			kfree(r);   /* the bug: the exit below frees it again */
		else
			down(&W->sem);
	} else if (ret != 0 || READ_ONCE(r->result) != 1) {
		weft_report(WEFT_KIND_ASSERT, &r->result, WEFT_TEST_NOTE_SITE("st result"),
			    "down_timeout() returned %d, result %d", ret, READ_ONCE(r->result));
	}
	kfree(r);
}

static const struct weft_variant st_variants[] = {
	WEFT_TEST_BUG("free-on-timeout",
	              "down_timeout()'s -ETIME path frees the request twice",
	              WEFT_KIND_DOUBLE_FREE, ST_FREE_ON_TIMEOUT),
	WEFT_TEST_FIX("down-again",
	              "after -ETIME the waiter waits with down(), then frees once",
	              ST_DOWN_AGAIN),
};

extern const struct weft_scenario weft_sem_timeout;   /* lock_forms_models.c registers it */
const struct weft_scenario weft_sem_timeout = {
	.name = "sem-timeout",
	.summary = "test: a down_timeout() that times out before up()",
	.source = WEFT_TEST_SOURCE,
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct st_world),
	.decision_hint = 128,
	.files = WEFT_TEST_FILES,
	WEFT_TEST_HOOKS(st),
	.heap_size = 64,
};
