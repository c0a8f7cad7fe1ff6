/*
 * test_lkmm.c - --memory lkmm (the part of the kernel's model it has)
 * (core/src/memory/), each shape exhaustively by dfs (no preemption bound,
 * two weak choices per execution) against what the LKMM says of it, and
 * never shown under sc or tso where those forbid it:
 *  - MP (message passing): found with no barrier, with only smp_wmb()
 *    (the reader's loads reorder) and with only smp_rmb() (the writer's
 *    stores reorder); forbidden by smp_wmb() + smp_rmb(), by a release
 *    store + an acquire load, and by an address dependency through the
 *    published pointer, also with set_bit() (a relaxed read-modify-write)
 *    as the flag; tso forbids all of them, sc too;
 *  - SB: found with no barrier and across a non-returning atomic (it
 *    orders nothing under lkmm; tso's locked instruction does), and with
 *    atomic_inc() as the stores (its write may become visible after the
 *    load that follows it); forbidden by smp_mb() and by a value-returning
 *    atomic;
 *  - a failed trylock orders nothing (tools/memory-model/lock.cat: a
 *    failed trylock is a read with no ordering properties): a reader whose
 *    mutex_trylock() fails, the lock held by a writer that stored x before
 *    smp_mb() and mutex_lock(), may still read x = 0 under lkmm (never
 *    under tso, where the trylock is a locked instruction, nor sc);
 *  - MP+wmb+rmb whose flag shares its 8-byte word with another location
 *    the writer stores after it (int fields side by side, as in any
 *    struct): forbidden all the same (a load of the flag once its
 *    word-mate was written later lost the flag's write time, so smp_rmb()
 *    did not order the data load after it: a false report);
 *  - RCU publication: rcu_assign_pointer() of an object whose two int
 *    fields were filled first, rcu_dereference() and both fields read:
 *    forbidden to see a field unfilled (rcu_assign_pointer() is a release;
 *    it was a plain store); RCU_INIT_POINTER() orders nothing: allowed;
 *  - a sleeper's wait (wait_event(), the open-coded prepare_to_wait()
 *    loop) against a waker's store and wake_up(): never a lost wakeup
 *    (prepare_to_wait() is smp_store_mb(), wake_up() a barrier before it
 *    looks); with the waker's waitqueue_active() shortcut a lost wakeup
 *    under tso and lkmm, and never once smp_mb() precedes the shortcut;
 *    with atomic_inc() as the waker's store, a lost wakeup under lkmm
 *    (never under tso: a locked instruction), and never once
 *    smp_mb__after_atomic() follows it;
 *  - coherence: CoRR (two loads of one location never see it go back) and
 *    CoWR (a CPU reads its own store or a newer one);
 *  - every execution replays to the same trace (weft_check_determinism),
 *    and a stale read is traced with old (the newest) != val.
 */
#include <string.h>

#include <weft/kernel.h>
#include <weft/rcu.h>
#include <weft/sleep.h>
#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

enum {
	V_MP, V_MP_WMB, V_MP_RMB, V_MP_WMB_RMB, V_MP_REL_ACQ, V_MP_DEP, V_MP_BIT,
	V_MP_BIT_WMB_RMB,
	V_SB, V_SB_MB, V_SB_NORET, V_SB_RET,
	V_CORR, V_COWR, V_MP_TRYLOCK_FAILS, V_MP_WMB_RMB_WORDMATE,
	V_WAIT_EVENT, V_WAIT_OPEN_CODED, V_WQ_ACTIVE, V_WQ_ACTIVE_MB,
	V_RCU_ASSIGN, V_RCU_INIT_POINTER,
	V_SB_INCS, V_WQ_ACTIVE_INC, V_WQ_ACTIVE_INC_MB, V_WQ_HAS_SLEEPER,
	V__COUNT
};

static const char *const names[V__COUNT] = {
	"MP", "MP+wmb", "MP+rmb", "MP+wmb+rmb", "MP+release+acquire", "MP+addr-dep",
	"MP(set_bit)", "MP(set_bit)+wmb+rmb",
	"SB", "SB+mb", "SB+atomic_inc", "SB+atomic_inc_return",
	"CoRR", "CoWR", "MP+mutex_trylock-fails", "MP+wmb+rmb(word-mate)",
	"wait_event/wake_up", "prepare_to_wait/wake_up", "waitqueue_active", "mb+waitqueue_active",
	"rcu_assign_pointer", "RCU_INIT_POINTER",
	"SB(atomic_inc)", "atomic_inc+waitqueue_active", "atomic_inc+mb+waitqueue_active",
	"wq_has_sleeper",
};

static unsigned variant;

struct lk_world {
	long x, y;
	long *p;
	unsigned long flags;
	atomic_t a, sb[2];
	struct weft_mutex m;
	long r[4];
	int flag, mate;   /* one 8-byte word */
	struct weft_wait_queue_head wq;
	struct { int a, b; } obj, *gp;   /* a and b: one 8-byte word */
};

static void lk_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	struct lk_world *W = w;

	(void)v; (void)wl;
	init_waitqueue_head(&W->wq);
}

/* A sleeper on W->wq until x is set, and its waker. */
static void sleeper(struct lk_world *W)
{
	if (variant == V_WAIT_EVENT) {
		wait_event(W->wq, READ_ONCE(W->x));
		return;
	}
	if (variant == V_WQ_ACTIVE_INC || variant == V_WQ_ACTIVE_INC_MB) {
		wait_event(W->wq, atomic_read(&W->a));
		return;
	}
	DEFINE_WAIT(e);
	for (;;) {
		prepare_to_wait(&W->wq, &e, TASK_UNINTERRUPTIBLE);
		if (READ_ONCE(W->x))
			break;
		schedule();
	}
	finish_wait(&W->wq, &e);
}

static void waker(struct lk_world *W)
{
	if (variant == V_WQ_ACTIVE_INC || variant == V_WQ_ACTIVE_INC_MB)
		atomic_inc(&W->a);
	else
		WRITE_ONCE(W->x, 1);
	if (variant == V_WQ_ACTIVE_MB)
		smp_mb();
	if (variant == V_WQ_ACTIVE_INC_MB)
		smp_mb__after_atomic();
	if (variant == V_WQ_HAS_SLEEPER) {   /* its smp_mb() is the shortcut's */
		if (wq_has_sleeper(&W->wq))
			wake_up(&W->wq);
		return;
	}
	if (variant == V_WAIT_EVENT || variant == V_WAIT_OPEN_CODED || waitqueue_active(&W->wq))
		wake_up(&W->wq);
}

static void writer(struct lk_world *W)
{
	switch (variant) {
	case V_MP:
	case V_MP_RMB:
		WRITE_ONCE(W->x, 1);
		WRITE_ONCE(W->y, 1);
		break;
	case V_MP_WMB:
	case V_MP_WMB_RMB:
		WRITE_ONCE(W->x, 1);
		smp_wmb();
		WRITE_ONCE(W->y, 1);
		break;
	case V_MP_REL_ACQ:
		WRITE_ONCE(W->x, 1);
		smp_store_release(&W->y, 1);
		break;
	case V_MP_DEP:   /* rcu_assign_pointer() of &x, x filled first */
		WRITE_ONCE(W->x, 1);
		smp_store_release(&W->p, &W->x);
		break;
	case V_MP_BIT:
		WRITE_ONCE(W->x, 1);
		set_bit(0, &W->flags);
		break;
	case V_MP_BIT_WMB_RMB:   /* SetPageUptodate() since 2.6.27 */
		WRITE_ONCE(W->x, 1);
		smp_wmb();
		set_bit(0, &W->flags);
		break;
	case V_MP_WMB_RMB_WORDMATE:   /* the stores after the wmb may
					 become visible in either order */
		WRITE_ONCE(W->x, 1);
		smp_wmb();
		WRITE_ONCE(W->mate, 1);
		WRITE_ONCE(W->flag, 1);
		break;
	case V_MP_TRYLOCK_FAILS:
		WRITE_ONCE(W->x, 1);
		smp_mb();
		mutex_lock(&W->m);
		mutex_unlock(&W->m);
		break;
	}
}

static void reader(struct lk_world *W)
{
	switch (variant) {
	case V_MP:
	case V_MP_WMB:
		W->r[0] = READ_ONCE(W->y);
		W->r[1] = READ_ONCE(W->x);
		break;
	case V_MP_RMB:
	case V_MP_WMB_RMB:
		W->r[0] = READ_ONCE(W->y);
		smp_rmb();
		W->r[1] = READ_ONCE(W->x);
		break;
	case V_MP_REL_ACQ:
		W->r[0] = smp_load_acquire(&W->y);
		W->r[1] = READ_ONCE(W->x);
		break;
	case V_MP_BIT:
		W->r[0] = test_bit(0, &W->flags);
		W->r[1] = READ_ONCE(W->x);
		break;
	case V_MP_WMB_RMB_WORDMATE:
		W->r[0] = READ_ONCE(W->flag);
		smp_rmb();
		W->r[1] = READ_ONCE(W->x);
		break;
	case V_MP_BIT_WMB_RMB:
		W->r[0] = test_bit(0, &W->flags);
		smp_rmb();
		W->r[1] = READ_ONCE(W->x);
		break;
	case V_MP_TRYLOCK_FAILS: {
		bool ok = mutex_trylock(&W->m);
		W->r[0] = !ok;   /* 1: the writer held the lock, after its store */
		W->r[1] = READ_ONCE(W->x);
		if (ok)
			mutex_unlock(&W->m);
		break;
	}
	case V_MP_DEP: {
		long *q = READ_ONCE(W->p);   /* rcu_dereference() */
		W->r[0] = q != NULL;
		W->r[1] = q ? READ_ONCE(*q) : 1;
		break;
	}
	}
}

static void lk_thread(void *w, unsigned tid)
{
	struct lk_world *W = w;
	long *mine = tid ? &W->y : &W->x, *other = tid ? &W->x : &W->y;

	switch (variant) {
	case V_SB:
		WRITE_ONCE(*mine, 1);
		W->r[tid] = READ_ONCE(*other);
		break;
	case V_SB_MB:
		WRITE_ONCE(*mine, 1);
		smp_mb();
		W->r[tid] = READ_ONCE(*other);
		break;
	case V_SB_NORET:
		WRITE_ONCE(*mine, 1);
		atomic_inc(&W->a);
		W->r[tid] = READ_ONCE(*other);
		break;
	case V_SB_RET:
		WRITE_ONCE(*mine, 1);
		(void)atomic_inc_return(&W->a);
		W->r[tid] = READ_ONCE(*other);
		break;
	case V_SB_INCS:   /* the stores are atomic_inc() */
		atomic_inc(&W->sb[tid]);
		W->r[tid] = atomic_read(&W->sb[!tid]);
		break;
	case V_RCU_ASSIGN:
	case V_RCU_INIT_POINTER:
		if (tid == 0) {
			WRITE_ONCE(W->obj.a, 1);
			WRITE_ONCE(W->obj.b, 1);
			if (variant == V_RCU_ASSIGN)
				rcu_assign_pointer(W->gp, &W->obj);
			else
				RCU_INIT_POINTER(W->gp, &W->obj);
		} else {
			rcu_read_lock();
			__typeof__(W->gp) o = rcu_dereference(W->gp);
			W->r[0] = o != NULL;
			W->r[1] = o ? READ_ONCE(o->a) && READ_ONCE(o->b) : 1;
			rcu_read_unlock();
		}
		break;
	case V_WAIT_EVENT:
	case V_WAIT_OPEN_CODED:
	case V_WQ_ACTIVE:
	case V_WQ_ACTIVE_MB:
	case V_WQ_ACTIVE_INC:
	case V_WQ_ACTIVE_INC_MB:
	case V_WQ_HAS_SLEEPER:
		if (tid == 0)
			sleeper(W);
		else
			waker(W);
		break;
	case V_CORR:
		if (tid == 0) {
			WRITE_ONCE(W->x, 1);
			WRITE_ONCE(W->x, 2);
		} else {
			W->r[0] = READ_ONCE(W->x);
			W->r[1] = READ_ONCE(W->x);
		}
		break;
	case V_COWR:
		if (tid == 0) {
			WRITE_ONCE(W->x, 1);
			W->r[0] = READ_ONCE(W->x);
		} else {
			WRITE_ONCE(W->y, 1);
			W->r[1] = READ_ONCE(W->x);
		}
		break;
	default:
		if (tid == 0)
			writer(W);
		else
			reader(W);
		break;
	}
}

/* The forbidden (or, for the weak shapes, the weak) outcome. */
static void lk_quiesce(void *w)
{
	struct lk_world *W = w;

	switch (variant) {
	case V_SB:
	case V_SB_MB:
	case V_SB_NORET:
	case V_SB_RET:
	case V_SB_INCS:
		BUG_ON(W->r[0] == 0 && W->r[1] == 0);
		break;
	case V_CORR:
		BUG_ON(W->r[0] == 2 && W->r[1] == 1);
		BUG_ON(W->r[0] > 0 && W->r[1] == 0);
		break;
	case V_COWR:
		BUG_ON(W->r[0] != 1);   /* its own store, nothing else wrote x */
		break;
	default:   /* MP: the flag (or pointer) seen, the data not */
		BUG_ON(W->r[0] == 1 && W->r[1] == 0);
		break;
	}
}

WEFT_TEST_ONLY_VARIANT(lk, "lkmm shapes");
static const struct weft_scenario lk = {
	.name = "lkmm-shapes", .summary = "lkmm shapes", .source = "test", .nr_cpus = 2,
	.nr_threads = 2, .world_size = sizeof(struct lk_world), WEFT_TEST_NOP_OP,
	.decision_hint = 64, WEFT_TEST_HOOKS(lk), .quiesce = lk_quiesce,
};

/* dfs, every interleaving and two weak choices: the outcome found? */
static bool found(enum weft_memory_model m, uint64_t *execs)
{
	static struct weft_dfs d;
	struct weft_run_opts o = { .sc = &lk, .memory = (uint8_t)m };
	struct weft_exec_result r;

	weft_dfs_init(&d, &lk, WEFT_BOUND_NONE, NULL, 0);
	*execs = 0;
	while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		(*execs)++;
		if (r.kind != WEFT_KIND_NONE) {
			char why[256];
			CHECK(weft_check_determinism(&o, &r, why, sizeof(why)) == 0, "%s: %s",
			      names[variant], why);
			return true;
		}
	}
	CHECK(d.complete, "%s under %s did not complete", names[variant], weft_memory_name(m));
	return false;
}

int main(void)
{
	/* what the LKMM allows (1) or forbids (0) of each shape, and tso */
	static const bool lkmm_allows[V__COUNT] = {
		[V_MP] = 1, [V_MP_WMB] = 1, [V_MP_RMB] = 1, [V_MP_BIT] = 1, [V_SB] = 1,
		[V_SB_NORET] = 1, [V_MP_TRYLOCK_FAILS] = 1, [V_WQ_ACTIVE] = 1,
		[V_RCU_INIT_POINTER] = 1, [V_SB_INCS] = 1, [V_WQ_ACTIVE_INC] = 1,
	};
	static const bool tso_allows[V__COUNT] = { [V_SB] = 1, [V_WQ_ACTIVE] = 1 };

	for (variant = 0; variant < V__COUNT; variant++) {
		uint64_t n;
		CHECK(!found(WEFT_MEM_SC, &n), "%s: sc shows it", names[variant]);
		bool t = found(WEFT_MEM_TSO, &n);
		CHECK(t == tso_allows[variant], "%s: tso %s", names[variant],
		      t ? "shows it" : "misses it");
		bool l = found(WEFT_MEM_LKMM, &n);
		CHECK(l == lkmm_allows[variant], "%s: lkmm %s", names[variant],
		      l ? "shows a forbidden outcome" : "misses an allowed one");
		printf("%-22s lkmm dfs: %s after %llu executions\n", names[variant],
		       l ? "found" : "clean, complete", (unsigned long long)n);
	}

	/* a stale read is traced as one: old (the newest) != val */
	variant = V_MP;
	struct weft_random rs;
	struct weft_run_opts o = { .sc = &lk, .memory = WEFT_MEM_LKMM, .record = true };
	struct weft_exec_result r;
	weft_random_init(&rs, &lk, 3, NULL, 0);
	unsigned tries = 0;
	do
		CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0, "execute");
	while (r.kind == WEFT_KIND_NONE && ++tries < 100000);
	CHECK(r.kind != WEFT_KIND_NONE, "random found no MP under lkmm");
	size_t ne, stale = 0;
	const struct weft_event *ev = weft_last_events(&ne);
	for (size_t i = 0; i < ne; i++)
		stale += ev[i].ev == WEFT_EV_READ && ev[i].old != ev[i].val;
	size_t nflush = 0;
	for (size_t i = 0; i < ne; i++)
		nflush += ev[i].ev == WEFT_EV_FLUSH;
	CHECK(stale || nflush, "the MP execution shows neither a stale read nor a flush");
	printf("random MP under lkmm: %u executions, %zu stale reads, %zu flushes traced\n",
	       tries + 1, stale, nflush);
	return check_done();
}
