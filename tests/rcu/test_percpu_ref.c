/*
 * test_percpu_ref.c - percpu_ref (<weft/percpu_ref.h>):
 *  - the per-CPU to atomic switch keeps the count: gets and puts on two
 *    CPUs racing with percpu_ref_kill() never release the ref while a
 *    reference is held, and release runs exactly once (dfs bound 2,
 *    complete);
 *  - the kill takes effect for tryget_live only after its confirmation:
 *    once percpu_ref_switch_wait() returned, no tryget_live succeeds;
 *    tryget (not live) still succeeds while the count is above 0;
 *  - kill_and_confirm calls the confirmation once, before the release;
 *  - misuse: a second kill (warn-on), a put below 0 (refcount-underflow),
 *    a get on a released ref (inc-from-zero); the per-CPU counters are
 *    freed after the switch (use-after-free to touch them);
 *  - percpu_ref_switch_to_atomic_sync(): atomic mode, the count intact.
 */
#include <weft/percpu_ref.h>

#include "rcu_test.h"
#include "../model_driver.h"

struct pr_world {
	unsigned variant;
	struct percpu_ref ref;
	atomic_t released, confirmed;
	int confirmed_seen, held;
	long sum_at_release;
};

enum { P_BASIC, P_RACE, P_RACE_LIVE, P_AFTER_CONFIRM, P_DOUBLE_KILL, P_PUT_UNDERFLOW,
       P_GET_RELEASED, P_SWITCH_SYNC, P_PERCPU_AFTER_EXIT, P_NR };

static struct pr_world *world_of(struct percpu_ref *ref)
{
	return weft_list_entry(ref, struct pr_world, ref);
}

static void release(struct percpu_ref *ref)
{
	struct pr_world *W = world_of(ref);

	if (READ_ONCE(W->held))
		weft_report(WEFT_KIND_ASSERT, &W->held,
			    WEFT_SITE(WEFT_EV_NOTE, "no reference held at release"),
			    "percpu_ref released while a reference is held");
	if (atomic_read(&W->confirmed) == 0 && W->variant == P_AFTER_CONFIRM)
		weft_report(WEFT_KIND_ASSERT, &W->confirmed,
			    WEFT_SITE(WEFT_EV_NOTE, "confirmed before released"),
			    "released before the kill was confirmed");
	atomic_inc(&W->released);
}

static void confirm(struct percpu_ref *ref)
{
	atomic_inc(&world_of(ref)->confirmed);
}

WEFT_TEST_SETUP(pr, struct pr_world)
{
	percpu_ref_init(&W->ref, release, 0, GFP_KERNEL);   /* the kernel's four arguments */
}

static void user(struct pr_world *W, bool live)
{
	bool got = live ? percpu_ref_tryget_live(&W->ref) : percpu_ref_tryget(&W->ref);

	if (!got)
		return;
	WRITE_ONCE(W->held, 1);
	if (atomic_read(&W->released))
		weft_report(WEFT_KIND_ASSERT, &W->released,
			    WEFT_SITE(WEFT_EV_NOTE, "a held ref is not released"),
			    "tryget succeeded on a released ref");
	WRITE_ONCE(W->held, 0);
	percpu_ref_put(&W->ref);
}

static void pr_thread(void *w, unsigned tid)
{
	struct pr_world *W = w;
	struct percpu_ref *ref = &W->ref;

	switch (W->variant) {
	case P_BASIC:
		if (tid)
			break;
		percpu_ref_get(ref);
		percpu_ref_put(ref);
		if (!percpu_ref_tryget(ref) || percpu_ref_is_zero(ref))
			weft_report(WEFT_KIND_ASSERT, ref, WEFT_SITE(WEFT_EV_NOTE, "live"), "not live");
		percpu_ref_kill_and_confirm(ref, confirm);
		if (percpu_ref_tryget_live(ref))
			weft_report(WEFT_KIND_ASSERT, ref, WEFT_SITE(WEFT_EV_NOTE, "dead"),
				    "tryget_live succeeded after the kill in the same thread");
		if (!percpu_ref_tryget(ref))
			weft_report(WEFT_KIND_ASSERT, ref, WEFT_SITE(WEFT_EV_NOTE, "tryget"),
				    "tryget failed with references left");
		percpu_ref_put(ref);
		percpu_ref_put(ref);   /* the tryget before the kill */
		percpu_ref_switch_wait(ref);
		if (!percpu_ref_is_zero(ref) || atomic_read(&W->released) != 1 ||
		    atomic_read(&W->confirmed) != 1)
			weft_report(WEFT_KIND_ASSERT, ref, WEFT_SITE(WEFT_EV_NOTE, "released"),
				    "after the switch: zero %d released %d confirmed %d",
				    weft_percpu_ref_is_zero(ref, WEFT_SITE(WEFT_EV_READ, "z")),
				    atomic_read(&W->released), atomic_read(&W->confirmed));
		break;
	case P_RACE:
	case P_RACE_LIVE:
		if (tid == 0) {
			user(W, W->variant == P_RACE_LIVE);
			user(W, W->variant == P_RACE_LIVE);
		} else {
			percpu_ref_kill(ref);
		}
		break;
	case P_AFTER_CONFIRM:
		if (tid == 0) {
			int seen = READ_ONCE(W->confirmed_seen);
			if (percpu_ref_tryget_live(ref)) {
				if (seen)
					weft_report(WEFT_KIND_ASSERT, ref,
						    WEFT_SITE(WEFT_EV_NOTE, "confirmed kill"),
						    "tryget_live succeeded after the kill was confirmed");
				percpu_ref_put(ref);
			}
		} else {
			percpu_ref_kill_and_confirm(ref, confirm);
			percpu_ref_switch_wait(ref);
			WRITE_ONCE(W->confirmed_seen, 1);
		}
		break;
	case P_DOUBLE_KILL:
		if (tid == 0) {
			percpu_ref_get(ref);
			percpu_ref_kill(ref);
			percpu_ref_kill(ref);
		}
		break;
	case P_PUT_UNDERFLOW:
	case P_GET_RELEASED:
		if (tid == 0) {
			percpu_ref_kill(ref);
			percpu_ref_switch_wait(ref);
			if (W->variant == P_PUT_UNDERFLOW)
				percpu_ref_put(ref);
			else
				percpu_ref_get(ref);
		}
		break;
	case P_SWITCH_SYNC:
		if (tid == 0) {
			percpu_ref_get(ref);
			percpu_ref_switch_to_atomic_sync(ref);
			percpu_ref_put(ref);
			if (atomic_read(&W->released) || percpu_ref_is_zero(ref))
				weft_report(WEFT_KIND_ASSERT, ref, WEFT_SITE(WEFT_EV_NOTE, "sync"),
					    "released by the switch alone");
			percpu_ref_put(ref);
		}
		break;
	case P_PERCPU_AFTER_EXIT:
		if (tid == 0) {
			percpu_ref_kill(ref);
			percpu_ref_switch_wait(ref);
			(void)READ_ONCE(ref->percpu_count[0]);
		}
		break;
	}
}

static void pr_quiesce(void *w)
{
	struct pr_world *W = w;

	if ((W->variant == P_RACE || W->variant == P_RACE_LIVE || W->variant == P_AFTER_CONFIRM ||
	     W->variant == P_SWITCH_SYNC) &&
	    atomic_read(&W->released) != 1)
		weft_report(WEFT_KIND_ASSERT, &W->released,
			    WEFT_SITE(WEFT_EV_NOTE, "released exactly once"),
			    "released %d times", atomic_read(&W->released));
}

T_SCENARIO(pr, "percpu-ref-test", "percpu_ref", struct pr_world, P_NR, .quiesce = pr_quiesce);

/* every case: dfs at its bound, at most 3000000 executions */
#define expect(v, bound, k, what) t_expect(&pr_sc, v, bound, k, 3000000, what)

int main(void)
{
	t_begin(pr_variants, P_NR);

	expect(P_BASIC, 0, WEFT_KIND_NONE, "get/put/tryget, kill_and_confirm, switch_wait");
	expect(P_RACE, 2, WEFT_KIND_NONE, "tryget/put on CPU0 vs kill on CPU1, bound 2");
	expect(P_RACE_LIVE, 2, WEFT_KIND_NONE, "tryget_live/put vs kill, bound 2");
	expect(P_AFTER_CONFIRM, 2, WEFT_KIND_NONE, "no tryget_live after the confirmed kill");
	expect(P_SWITCH_SYNC, 2, WEFT_KIND_NONE, "percpu_ref_switch_to_atomic_sync()");
	expect(P_DOUBLE_KILL, 0, WEFT_KIND_WARN_ON, "percpu_ref_kill() twice");
	expect(P_PUT_UNDERFLOW, 0, WEFT_KIND_REFCOUNT_UNDERFLOW, "put after the release");
	expect(P_GET_RELEASED, 0, WEFT_KIND_INC_FROM_ZERO, "get after the release");
	expect(P_PERCPU_AFTER_EXIT, 0, WEFT_KIND_USE_AFTER_FREE,
	       "per-CPU counter read after the switch freed it");
	return check_done();
}
