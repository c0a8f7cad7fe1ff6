/*
 * test_diff_wait.c - the sleeping primitives against a reference scheduler
 * model: wait queues (exclusive and non-exclusive waiters mixed, wake_up,
 * wake_up_nr, wake_up_all), completions, semaphores, mutexes, rw
 * semaphores, condition variables and the page-bit waits (lock and plain
 * waiters, the waiters bit).
 *
 * Random programs of 2-4 threads, each a few well-formed patterns of those
 * primitives (nested locks, trylocks and their conditional unlocks, an
 * unlock that forgets the wake-up), run under both lock models with the
 * serial schedule and seeded random ones in lock step with the reference
 * (lockstep.h). The reference is written from <weft/sleep.h>'s contract and
 * the kernel functions it cites, as plain lists and counters: it says which
 * waiters each wake-up makes runnable, who is handed what, what every
 * trylock and test returns, where a thread must sleep, and at the end
 * whether the run is clean, a deadlock (every sleeper waits for an owner)
 * or a lost wakeup (a sleeper waits on something nobody owns, and no
 * thread is left to wake it) and which thread it names.
 *
 * WEFT_DIFF_SIZE=large runs more programs (the medium tier);
 * WEFT_DIFF_SEED another sequence; WEFT_DIFF_ONLY=N one program, verbose.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/pthread.h>
#include <weft/strategy.h>

#include "check.h"
#include "lockstep.h"

#define NT 4
#define MAXOPS 16
#define WBIT 7          /* the waiters bit of a bit-wait word (PG_waiters) */

enum opk {
	Q_PREP, Q_PREPX, Q_SCHED, Q_FINISH, Q_WAKE, Q_ACTIVE,
	C_WAIT, C_TRY, C_DONE, C_COMPLETE, C_ALL, C_REINIT,
	S_DOWN, S_TRY, S_UP, S_UP_IF,
	M_LOCK, M_TRY, M_UNLOCK, M_UNLOCK_IF,
	R_DR, R_DW, R_UR, R_UW, R_TRYR, R_TRYW, R_UR_IF, R_UW_IF, R_DOWNGRADE,
	V_WAIT, V_SIGNAL, V_BCAST,
	B_LOCK, B_WAIT, B_TRY, B_UNLOCK, B_UNLOCK_IF, B_WAKE, B_WAKE_IF,
	OP__N
};

static const char *const opname[OP__N] = {
	"prepare_to_wait", "prepare_to_wait_exclusive", "schedule", "finish_wait", "wake_up_nr",
	"waitqueue_active",
	"wait_for_completion", "try_wait_for_completion", "completion_done", "complete",
	"complete_all", "reinit_completion",
	"down", "down_trylock", "up", "up_if_got",
	"mutex_lock", "mutex_trylock", "mutex_unlock", "mutex_unlock_if_got",
	"down_read", "down_write", "up_read", "up_write", "down_read_trylock",
	"down_write_trylock", "up_read_if_got", "up_write_if_got", "downgrade_write",
	"cond_wait", "cond_signal", "cond_broadcast",
	"lock_bit", "wait_on_bit", "test_and_set_bit_lock", "clear_bit_unlock",
	"clear_bit_unlock_if_got", "wake_up_bit", "wake_up_bit_if_waiters",
};

struct op {
	uint8_t k, obj, arg;     /* arg: wake_up_nr's nr (0: all), a bit, cond_wait's mutex */
};

struct prog {
	unsigned nt;
	unsigned n[NT];
	struct op ops[NT][MAXOPS];
	uint8_t sem_init[2];
};

static struct prog P;

/* ------------------------------------------------------------- the program */

struct world {
	struct weft_wait_queue_head wq[2];
	struct weft_completion c[2];
	struct weft_semaphore sem[2];
	struct weft_mutex m[2];
	struct weft_rw_semaphore rw[2];
	struct weft_pthread_cond cv[2];
	unsigned long word[2];
};

/* what the program's threads remember (thread-private: no scheduling point) */
static bool got[NT][OP__N][2];
static bool had_waiters[NT][2];

WEFT_TEST_SETUP_WORLD(w, struct world)
{
	for (unsigned k = 0; k < 2; k++) {
		init_waitqueue_head(&W->wq[k]);
		init_completion(&W->c[k]);
		sema_init(&W->sem[k], P.sem_init[k]);
		mutex_init(&W->m[k]);
		init_rwsem(&W->rw[k]);
		weft_pthread_cond_init(&W->cv[k], NULL);
		W->word[k] = 0;
	}
	memset(got, 0, sizeof(got));
	memset(had_waiters, 0, sizeof(had_waiters));
}

static int run_op(struct world *W, unsigned t, const struct op *o)
{
	unsigned k = o->obj;
	int v = 0;

	switch (o->k) {
	case Q_PREP:
		prepare_to_wait(&W->wq[k], NULL, TASK_UNINTERRUPTIBLE);
		break;
	case Q_PREPX:
		prepare_to_wait_exclusive(&W->wq[k], NULL, TASK_UNINTERRUPTIBLE);
		break;
	case Q_SCHED:
		schedule();
		break;
	case Q_FINISH:
		finish_wait(&W->wq[k], NULL);
		break;
	case Q_WAKE:
		wake_up_nr(&W->wq[k], o->arg);
		break;
	case Q_ACTIVE:
		v = waitqueue_active(&W->wq[k]);
		break;
	case C_WAIT:
		wait_for_completion(&W->c[k]);
		break;
	case C_TRY:
		v = try_wait_for_completion(&W->c[k]);
		break;
	case C_DONE:
		v = completion_done(&W->c[k]);
		break;
	case C_COMPLETE:
		complete(&W->c[k]);
		break;
	case C_ALL:
		complete_all(&W->c[k]);
		break;
	case C_REINIT:
		reinit_completion(&W->c[k]);
		break;
	case S_DOWN:
		down(&W->sem[k]);
		break;
	case S_TRY:
		v = !down_trylock(&W->sem[k]);
		got[t][S_TRY][k] = v;
		break;
	case S_UP:
		up(&W->sem[k]);
		break;
	case S_UP_IF:
		if (!got[t][S_TRY][k])
			return -1;
		got[t][S_TRY][k] = false;
		up(&W->sem[k]);
		break;
	case M_LOCK:
		mutex_lock(&W->m[k]);
		break;
	case M_TRY:
		v = mutex_trylock(&W->m[k]);
		got[t][M_TRY][k] = v;
		break;
	case M_UNLOCK:
		mutex_unlock(&W->m[k]);
		break;
	case M_UNLOCK_IF:
		if (!got[t][M_TRY][k])
			return -1;
		got[t][M_TRY][k] = false;
		mutex_unlock(&W->m[k]);
		break;
	case R_DR:
		down_read(&W->rw[k]);
		break;
	case R_DW:
		down_write(&W->rw[k]);
		break;
	case R_UR:
		up_read(&W->rw[k]);
		break;
	case R_UW:
		up_write(&W->rw[k]);
		break;
	case R_TRYR:
		v = down_read_trylock(&W->rw[k]);
		got[t][R_TRYR][k] = v;
		break;
	case R_TRYW:
		v = down_write_trylock(&W->rw[k]);
		got[t][R_TRYW][k] = v;
		break;
	case R_UR_IF:
		if (!got[t][R_TRYR][k])
			return -1;
		got[t][R_TRYR][k] = false;
		up_read(&W->rw[k]);
		break;
	case R_UW_IF:
		if (!got[t][R_TRYW][k])
			return -1;
		got[t][R_TRYW][k] = false;
		up_write(&W->rw[k]);
		break;
	case R_DOWNGRADE:
		downgrade_write(&W->rw[k]);
		break;
	case V_WAIT:
		weft_pthread_cond_wait(&W->cv[k], &W->m[o->arg]);
		break;
	case V_SIGNAL:
		weft_pthread_cond_signal(&W->cv[k]);
		break;
	case V_BCAST:
		weft_pthread_cond_broadcast(&W->cv[k]);
		break;
	case B_LOCK:
		weft_wait_on_bit_waiters(&W->word[k], o->arg, WBIT, true,
					 WEFT_SITE(WEFT_EV_LOCK, "lock_bit(word)"));
		break;
	case B_WAIT:
		weft_wait_on_bit_waiters(&W->word[k], o->arg, WBIT, false,
					 WEFT_SITE(WEFT_EV_READ, "wait_on_bit(word)"));
		break;
	case B_TRY:
		v = test_and_set_bit_lock(o->arg, &W->word[k]);
		got[t][B_TRY][k] = !v;
		break;
	case B_UNLOCK_IF:
		if (!got[t][B_TRY][k])
			return -1;
		got[t][B_TRY][k] = false;
		/* fall through */
	case B_UNLOCK: {
		unsigned long old = weft_clear_bit_unlock_fetch(
			o->arg, &W->word[k], WEFT_SITE(WEFT_EV_RMW, "clear_bit_unlock_fetch(word)"));
		had_waiters[t][k] = old >> WBIT & 1;
		v = (int)old;
		break;
	}
	case B_WAKE_IF:
		if (!had_waiters[t][k])
			return -1;
		/* fall through */
	case B_WAKE:
		weft_wake_up_bit_waiters(&W->word[k], o->arg, WBIT,
					 WEFT_SITE(WEFT_EV_WAKE, "wake_up_bit(word)"));
		break;
	}
	return v;
}

static void w_thread(void *w, unsigned t)
{
	for (unsigned i = 0; i < P.n[t]; i++)
		ls_note(t, LS_DONE, i, run_op(w, t, &P.ops[t][i]));
}

static struct weft_scenario wsc = {
	.name = "diff-wait", .summary = "differential: sleeping primitives", LS_ONE_PROGRAM,
	.nr_cpus = NT, .nr_threads = 2, .world_size = sizeof(struct world), .setup = w_setup,
	.thread = w_thread,
};

/* ------------------------------------------------------------ the reference */

/* A FIFO wait list: oldest first. */
enum { F_EXCL = 1, F_WRITE = 2, F_LOCK = 4 };
struct rlist {
	uint8_t tid[NT], fl[NT], bit[NT];
	unsigned n;
};

static int rl_find(const struct rlist *l, unsigned t)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->tid[i] == t)
			return (int)i;
	return -1;
}

static void rl_add(struct rlist *l, unsigned t, unsigned fl, unsigned bit)
{
	if (rl_find(l, t) >= 0)
		return;
	l->tid[l->n] = (uint8_t)t;
	l->fl[l->n] = (uint8_t)fl;
	l->bit[l->n] = (uint8_t)bit;
	l->n++;
}

static void rl_del_at(struct rlist *l, unsigned i)
{
	for (; i + 1 < l->n; i++) {
		l->tid[i] = l->tid[i + 1];
		l->fl[i] = l->fl[i + 1];
		l->bit[i] = l->bit[i + 1];
	}
	l->n--;
}

static void rl_del(struct rlist *l, unsigned t)
{
	int i = rl_find(l, t);

	if (i >= 0)
		rl_del_at(l, (unsigned)i);
}

/* what a sleeping thread sleeps on: a class and an object */
enum { ON_NONE, ON_WQ, ON_C, ON_SEM, ON_M, ON_RW, ON_CV, ON_WORD };
enum { TS_RUN, TS_SLEEP, TS_DONE };

struct rthread {
	int st;
	unsigned pc;
	bool retry;          /* woken inside its current op: it re-checks */
	bool granted;        /* handed the object by its waker */
	bool cond_woken;     /* cond_wait: woken from the condition, re-taking the mutex */
	bool task_sleeping;  /* between prepare_to_wait() and its wake-up/finish_wait() */
	bool released;       /* its unlock released the lock; the wake-up is to come */
	int on, on_obj;      /* what it sleeps on (TS_SLEEP) */
	int wq_on;           /* the wait queue whose list it is on, or -1 */
	unsigned rd_held[2]; /* read holds of each rwsem */
	bool got[OP__N][2];
	bool had_waiters[2];
};

static struct {
	struct rthread th[NT];
	enum weft_lock_model lock;
	struct rlist wq[2];
	uint32_t cdone[2];
	struct rlist cl[2];
	unsigned scount[2];
	struct rlist sl[2];
	unsigned mowner[2];       /* 1 + owner, 0: free */
	struct rlist ml[2];
	unsigned rwriter[2], rreaders[2];
	struct rlist rl[2];
	struct rlist vl[2];
	unsigned long word[2];
	int holder[2][WBIT];      /* bit-lock holder of (word, bit), -1: none */
	struct rlist bl[2];
} R;

#define C_ALL_DONE 0xffffffffu

static void ref_reset(enum weft_lock_model lock)
{
	memset(&R, 0, sizeof(R));
	R.lock = lock;
	for (unsigned t = 0; t < NT; t++) {
		R.th[t].st = t < P.nt && P.n[t] ? TS_RUN : TS_DONE;
		R.th[t].wq_on = -1;
	}
	for (unsigned k = 0; k < 2; k++) {
		R.scount[k] = P.sem_init[k];
		for (unsigned b = 0; b < WBIT; b++)
			R.holder[k][b] = -1;
	}
}

static void wake_thread(unsigned t, int on, int obj)
{
	struct rthread *th = &R.th[t];

	if (th->st == TS_SLEEP && th->on == on && th->on_obj == obj) {
		th->st = TS_RUN;
		th->retry = true;
	}
}

/* mutex_unlock(): free, or handed to the oldest waiter (ticket); that
 * waiter is woken either way */
static void m_release(unsigned k)
{
	R.mowner[k] = 0;
	if (!R.ml[k].n)
		return;
	unsigned w = R.ml[k].tid[0];
	if (R.lock == WEFT_LOCK_TICKET) {
		R.mowner[k] = w + 1;
		rl_del_at(&R.ml[k], 0);
		R.th[w].granted = true;
	}
	wake_thread(w, ON_M, (int)k);
}

/* __mutex_unlock_slowpath()'s wake-up, after the release: the oldest
 * waiter, whoever holds m now */
static void m_wake_first(unsigned k)
{
	if (R.ml[k].n)
		wake_thread(R.ml[k].tid[0], ON_M, (int)k);
}

/* mutex_lock()'s attempt (or its retry after a wake-up): true if it holds m */
static bool m_acquire(unsigned t, unsigned k)
{
	if (R.mowner[k] == t + 1) {       /* handed over */
		R.th[t].granted = false;
		return true;
	}
	if (R.mowner[k] == 0) {
		R.mowner[k] = t + 1;
		rl_del(&R.ml[k], t);
		return true;
	}
	rl_add(&R.ml[k], t, 0, 0);
	return false;
}

/* rwsem_wake(): the oldest waiter if it is a writer (handed over under
 * the ticket model) and the rwsem is free; else every waiting reader */
static void rw_wake(unsigned k)
{
	struct rlist *l = &R.rl[k];

	if (!l->n)
		return;
	if (l->fl[0] & F_WRITE) {
		if (R.rwriter[k] || R.rreaders[k])
			return;
		unsigned w = l->tid[0];
		if (R.lock == WEFT_LOCK_TICKET) {
			R.rwriter[k] = w + 1;
			rl_del_at(l, 0);
			R.th[w].granted = true;
		}
		wake_thread(w, ON_RW, (int)k);
		return;
	}
	if (R.rwriter[k])
		return;
	for (unsigned i = 0; i < l->n;) {
		if (l->fl[i] & F_WRITE) {
			i++;
			continue;
		}
		unsigned w = l->tid[i];
		R.rreaders[k]++;
		R.th[w].rd_held[k]++;
		R.th[w].granted = true;
		rl_del_at(l, i);
		wake_thread(w, ON_RW, (int)k);
	}
}

static bool rw_writer_waits(unsigned k)
{
	for (unsigned i = 0; i < R.rl[k].n; i++)
		if (R.rl[k].fl[i] & F_WRITE)
			return true;
	return false;
}

/* __wake_up_common(): every non-exclusive waiter and the oldest nr
 * exclusive ones (nr 0: all) leave the list, TASK_RUNNING */
static void list_wake(struct rlist *l, unsigned nr, int on, int obj)
{
	bool all = nr == 0;

	for (unsigned i = 0; i < l->n;) {
		if ((l->fl[i] & F_EXCL) && !all) {
			if (nr == 0) {
				i++;
				continue;
			}
			nr--;
		}
		unsigned w = l->tid[i];
		rl_del_at(l, i);
		R.th[w].task_sleeping = false;
		if (on == ON_WQ)
			R.th[w].wq_on = -1;
		wake_thread(w, on, obj);
	}
}

/* folio_wake_bit(): oldest first, every plain waiter of the bit up to the
 * first lock waiter, which is handed the bit if it is clear */
static void bit_wake(unsigned k, unsigned bit)
{
	struct rlist *l = &R.bl[k];
	unsigned long b = 1ul << bit;

	for (unsigned i = 0; i < l->n;) {
		if (l->bit[i] != bit) {
			i++;
			continue;
		}
		unsigned w = l->tid[i];
		bool lock = l->fl[i] & F_LOCK;
		if (lock) {
			if (R.word[k] & b)
				break;
			R.word[k] |= b;
			R.holder[k][bit] = (int)w;
		}
		R.th[w].granted = true;
		rl_del_at(l, i);
		wake_thread(w, ON_WORD, (int)k);
		if (lock)
			break;
	}
	if (!l->n)
		R.word[k] &= ~(1ul << WBIT);
}

static void sleep_on(unsigned t, int on, int obj)
{
	R.th[t].st = TS_SLEEP;
	R.th[t].on = on;
	R.th[t].on_obj = obj;
}

/*
 * Thread t performs (or retries) its current operation now. Returns true
 * if it completes (its result in *val), false if it goes to sleep (queued
 * where the model queues it).
 */
static bool attempt(unsigned t, const struct op *o, int *val)
{
	struct rthread *th = &R.th[t];
	unsigned k = o->obj;
	bool retry = th->retry;

	th->retry = false;
	*val = 0;
	switch (o->k) {
	case Q_PREP:
	case Q_PREPX:
		if (th->wq_on != (int)k) {
			rl_add(&R.wq[k], t, o->k == Q_PREPX ? F_EXCL : 0, 0);
			th->wq_on = (int)k;
		}
		th->task_sleeping = true;
		return true;
	case Q_SCHED:
		if (!th->task_sleeping)
			return true;
		sleep_on(t, ON_WQ, th->wq_on);
		return false;
	case Q_FINISH:
		th->task_sleeping = false;
		if (th->wq_on == (int)k) {
			rl_del(&R.wq[k], t);
			th->wq_on = -1;
		}
		return true;
	case Q_WAKE:
		list_wake(&R.wq[k], o->arg, ON_WQ, (int)k);
		return true;
	case Q_ACTIVE:
		*val = R.wq[k].n != 0;
		return true;
	case C_WAIT:
		if (R.cdone[k]) {
			if (R.cdone[k] != C_ALL_DONE)
				R.cdone[k]--;
			return true;
		}
		rl_add(&R.cl[k], t, F_EXCL, 0);
		sleep_on(t, ON_C, (int)k);
		return false;
	case C_TRY:
		*val = R.cdone[k] != 0;
		if (R.cdone[k] && R.cdone[k] != C_ALL_DONE)
			R.cdone[k]--;
		return true;
	case C_DONE:
		*val = R.cdone[k] != 0;
		return true;
	case C_COMPLETE:
	case C_ALL:
		if (o->k == C_ALL)
			R.cdone[k] = C_ALL_DONE;
		else if (R.cdone[k] != C_ALL_DONE)
			R.cdone[k]++;
		while (R.cl[k].n) {
			unsigned w = R.cl[k].tid[0];
			rl_del_at(&R.cl[k], 0);
			wake_thread(w, ON_C, (int)k);
			if (o->k == C_COMPLETE)
				break;
		}
		return true;
	case C_REINIT:
		R.cdone[k] = 0;
		return true;
	case S_DOWN:
		if (th->granted) {
			th->granted = false;
			return true;
		}
		if (R.scount[k]) {
			R.scount[k]--;
			return true;
		}
		rl_add(&R.sl[k], t, F_EXCL, 0);
		sleep_on(t, ON_SEM, (int)k);
		return false;
	case S_TRY:
		*val = R.scount[k] != 0;
		if (*val)
			R.scount[k]--;
		th->got[S_TRY][k] = *val;
		return true;
	case S_UP_IF:
		if (!th->got[S_TRY][k]) {
			*val = -1;
			return true;
		}
		th->got[S_TRY][k] = false;
		/* fall through */
	case S_UP:
		if (R.sl[k].n) {
			unsigned w = R.sl[k].tid[0];
			rl_del_at(&R.sl[k], 0);
			R.th[w].granted = true;
			wake_thread(w, ON_SEM, (int)k);
		} else {
			R.scount[k]++;
		}
		return true;
	case M_LOCK:
		if (m_acquire(t, k))
			return true;
		sleep_on(t, ON_M, (int)k);
		return false;
	case M_TRY:
		*val = R.mowner[k] == 0;
		if (*val)
			R.mowner[k] = t + 1;
		th->got[M_TRY][k] = *val;
		return true;
	case M_UNLOCK_IF:
		if (!th->got[M_TRY][k]) {
			*val = -1;
			return true;
		}
		th->got[M_TRY][k] = false;
		/* fall through */
	case M_UNLOCK:
		if (th->released)
			m_wake_first(k);
		else
			m_release(k);
		th->released = false;
		return true;
	case R_DR:
		if (th->granted) {
			th->granted = false;
			return true;
		}
		if (!R.rwriter[k] && !rw_writer_waits(k)) {
			R.rreaders[k]++;
			th->rd_held[k]++;
			return true;
		}
		rl_add(&R.rl[k], t, 0, 0);
		sleep_on(t, ON_RW, (int)k);
		return false;
	case R_DW:
		if (R.rwriter[k] == t + 1) {
			th->granted = false;
			return true;
		}
		if (!R.rwriter[k] && !R.rreaders[k]) {
			R.rwriter[k] = t + 1;
			rl_del(&R.rl[k], t);
			return true;
		}
		rl_add(&R.rl[k], t, F_WRITE, 0);
		sleep_on(t, ON_RW, (int)k);
		return false;
	case R_TRYR:
		*val = !R.rwriter[k] && !R.rl[k].n;
		if (*val) {
			R.rreaders[k]++;
			th->rd_held[k]++;
		}
		th->got[R_TRYR][k] = *val;
		return true;
	case R_TRYW:
		*val = !R.rwriter[k] && !R.rreaders[k] && !R.rl[k].n;
		if (*val)
			R.rwriter[k] = t + 1;
		th->got[R_TRYW][k] = *val;
		return true;
	case R_UR_IF:
		if (!th->got[R_TRYR][k]) {
			*val = -1;
			return true;
		}
		th->got[R_TRYR][k] = false;
		/* fall through */
	case R_UR:
		if (!th->released) {
			R.rreaders[k]--;
			th->rd_held[k]--;
		}
		if (th->released || !R.rreaders[k])
			rw_wake(k);
		th->released = false;
		return true;
	case R_UW_IF:
		if (!th->got[R_TRYW][k]) {
			*val = -1;
			return true;
		}
		th->got[R_TRYW][k] = false;
		/* fall through */
	case R_UW:
		if (!th->released)
			R.rwriter[k] = 0;
		rw_wake(k);
		th->released = false;
		return true;
	case R_DOWNGRADE:
		R.rwriter[k] = 0;
		R.rreaders[k]++;
		th->rd_held[k]++;
		rw_wake(k);
		return true;
	case V_WAIT:
		if (!retry || !th->cond_woken) {
			/* one step: on the condition's list, the mutex released, asleep */
			rl_add(&R.vl[k], t, F_EXCL, 0);
			m_release(o->arg);
			sleep_on(t, ON_CV, (int)k);
			return false;
		}
		/* woken from the condition: re-take the mutex (in the same step) */
		if (m_acquire(t, o->arg)) {
			th->cond_woken = false;
			return true;
		}
		sleep_on(t, ON_M, o->arg);
		return false;
	case V_SIGNAL:
	case V_BCAST:
		list_wake(&R.vl[k], o->k == V_BCAST ? 0 : 1, ON_CV, (int)k);
		return true;
	case B_LOCK:
	case B_WAIT: {
		unsigned long b = 1ul << o->arg;
		if (retry) {           /* woken: a lock waiter was handed the bit */
			th->granted = false;
			return true;
		}
		unsigned long old = R.word[k];
		R.word[k] |= 1ul << WBIT;
		if (!(old & b)) {
			if (o->k == B_LOCK) {
				R.word[k] |= b;
				R.holder[k][o->arg] = (int)t;
			}
			return true;
		}
		rl_add(&R.bl[k], t, o->k == B_LOCK ? F_EXCL | F_LOCK : 0, o->arg);
		sleep_on(t, ON_WORD, (int)k);
		return false;
	}
	case B_TRY: {
		unsigned long b = 1ul << o->arg;
		*val = (R.word[k] & b) != 0;
		R.word[k] |= b;
		if (!*val)
			R.holder[k][o->arg] = (int)t;
		th->got[B_TRY][k] = !*val;
		return true;
	}
	case B_UNLOCK_IF:
		if (!th->got[B_TRY][k]) {
			*val = -1;
			return true;
		}
		th->got[B_TRY][k] = false;
		/* fall through */
	case B_UNLOCK:
		*val = (int)R.word[k];
		th->had_waiters[k] = R.word[k] >> WBIT & 1;
		R.word[k] &= ~(1ul << o->arg);
		R.holder[k][o->arg] = -1;
		return true;
	case B_WAKE_IF:
		if (!th->had_waiters[k]) {
			*val = -1;
			return true;
		}
		/* fall through */
	case B_WAKE:
		bit_wake(k, o->arg);
		return true;
	}
	return true;
}

/*
 * A RELEASE record of thread t inside op o. mutex_unlock() with waiters
 * releases the owner word and only then wakes the oldest waiter (v6.12
 * __mutex_unlock_slowpath(); a handoff, --lock ticket, hands over and
 * wakes at once), and up_read() (the last reader) and up_write() with
 * waiters likewise release before rwsem_wake() (Documentation/locking/
 * mutex-design.rst, <weft/sleep.h>): here the release; the op's
 * completion wakes. Every other RELEASE is the whole op (its completion).
 */
static void ref_release(unsigned t, const struct op *o)
{
	struct rthread *th = &R.th[t];
	unsigned k = o->obj;
	bool split = R.lock != WEFT_LOCK_TICKET;

	switch (o->k) {
	case M_UNLOCK_IF:
		if (!th->got[M_TRY][k])
			return;
		/* fall through */
	case M_UNLOCK:
		if (split && R.ml[k].n) {
			R.mowner[k] = 0;
			th->released = true;
		}
		return;
	case R_UR_IF:
		if (!th->got[R_TRYR][k])
			return;
		/* fall through */
	case R_UR:
		if (split && R.rreaders[k] == 1 && R.rl[k].n) {
			R.rreaders[k] = 0;
			th->rd_held[k]--;
			th->released = true;
		}
		return;
	case R_UW_IF:
		if (!th->got[R_TRYW][k])
			return;
		/* fall through */
	case R_UW:
		if (split && R.rl[k].n) {
			R.rwriter[k] = 0;
			th->released = true;
		}
		return;
	default:
		return;
	}
}

static void ref_event(const struct ls_ent *e)
{
	if (e->tid >= P.nt) {
		ls_fail("a log entry of thread %u, which the program does not have", e->tid);
		return;
	}
	struct rthread *th = &R.th[e->tid];
	if (th->st != TS_RUN) {
		ls_fail("T%u acts (%s) while the reference has it %s", e->tid,
			e->kind == LS_DONE ? "completes an op" : "goes to sleep",
			th->st == TS_DONE ? "finished" : "asleep");
		return;
	}
	const struct op *o = &P.ops[e->tid][th->pc];
	bool cond_phase = o->k == V_WAIT && th->retry && th->on == ON_CV;
	int val;
	bool done;

	if (e->kind == LS_RELEASE) {
		ref_release(e->tid, o);
		return;
	}
	if (cond_phase)
		th->cond_woken = true;
	done = attempt(e->tid, o, &val);
	if (e->kind == LS_BLOCKED) {
		if (done)
			ls_fail("T%u op %u (%s): Weft puts it to sleep, the reference has it "
				"complete", e->tid, th->pc, opname[o->k]);
		return;
	}
	if (e->op != th->pc) {
		ls_fail("T%u completes op %u, the reference expects op %u", e->tid, e->op, th->pc);
		return;
	}
	if (!done) {
		ls_fail("T%u op %u (%s) completes in Weft, the reference has it sleep", e->tid,
			th->pc, opname[o->k]);
		return;
	}
	if (val != e->val)
		ls_fail("T%u op %u (%s) returns %d in Weft, %d in the reference", e->tid, th->pc,
			opname[o->k], e->val, val);
	if (++th->pc == P.n[e->tid])
		th->st = TS_DONE;
}

static uint32_t ref_eligible(void)
{
	uint32_t m = 0;

	for (unsigned t = 0; t < P.nt; t++)
		m |= (uint32_t)(R.th[t].st == TS_RUN) << t;
	return m;
}

static const struct ls_ref ref = { ref_event, ref_eligible };

/* The owner a sleeper waits for (-1: nobody owns what it sleeps on). */
static int ref_owner(unsigned t)
{
	const struct rthread *th = &R.th[t];
	unsigned k = (unsigned)th->on_obj;

	switch (th->on) {
	case ON_M:
		return R.mowner[k] ? (int)R.mowner[k] - 1 : -1;
	case ON_RW:
		if (R.rwriter[k])
			return (int)R.rwriter[k] - 1;
		for (unsigned i = 0; i < P.nt; i++)
			if (R.th[i].rd_held[k])
				return (int)i;
		return -1;
	case ON_WORD: {
		int i = rl_find(&R.bl[k], t);
		return i >= 0 ? R.holder[k][R.bl[k].bit[i]] : -1;
	}
	default:
		return -1;
	}
}

/* The report the operation thread t is about to start makes at once, if
 * any (locking what it holds). */
static enum weft_kind ref_immediate(unsigned t)
{
	const struct rthread *th = &R.th[t];

	if (th->st != TS_RUN || th->retry || th->pc >= P.n[t])
		return WEFT_KIND_NONE;
	const struct op *o = &P.ops[t][th->pc];
	if (o->k == M_LOCK && R.mowner[o->obj] == t + 1)
		return WEFT_KIND_DEADLOCK;
	if (o->k == R_DW && (R.rwriter[o->obj] == t + 1 || th->rd_held[o->obj]))
		return WEFT_KIND_DEADLOCK;
	return WEFT_KIND_NONE;
}

/* The verdict the reference gives the run; *who the thread a report names. */
static enum weft_kind ref_verdict(int *who)
{
	bool any_run = false, any_sleep = false;

	*who = -1;
	for (unsigned t = 0; t < P.nt; t++) {
		any_run |= R.th[t].st == TS_RUN;
		any_sleep |= R.th[t].st == TS_SLEEP;
	}
	if (any_run)
		return WEFT_KIND__COUNT;   /* the run cannot have ended here */
	if (!any_sleep)
		return WEFT_KIND_NONE;
	for (unsigned t = 0; t < P.nt; t++)
		if (R.th[t].st == TS_SLEEP && ref_owner(t) < 0) {
			*who = (int)t;
			return WEFT_KIND_LOST_WAKEUP;
		}
	return WEFT_KIND_DEADLOCK;
}

/* ------------------------------------------------------------ generation */

enum fam { F_WQ, F_COMP, F_SEM, F_MUTEX, F_RWSEM, F_COND, F_BIT, F__N };

static void put(unsigned t, unsigned k, unsigned obj, unsigned arg)
{
	if (P.n[t] < MAXOPS)
		P.ops[t][P.n[t]++] = (struct op){ (uint8_t)k, (uint8_t)obj, (uint8_t)arg };
}

static unsigned pick_obj(void)
{
	return ls_rnd(3) == 0;
}

static void gen_pattern(unsigned t, unsigned fams, unsigned depth);

/* an inner pattern inside a lock, sometimes */
static void maybe_inner(unsigned t, unsigned fams, unsigned depth)
{
	if (depth < 2 && P.n[t] + 6 < MAXOPS && ls_rnd(10) < 3)
		gen_pattern(t, fams, depth + 1);
}

static void gen_pattern(unsigned t, unsigned fams, unsigned depth)
{
	unsigned f;

	do
		f = ls_rnd(F__N);
	while (!(fams >> f & 1));
	unsigned k = pick_obj(), r = ls_rnd(100);
	/* even threads lean to waiting, odd ones to waking: most sleepers
	 * have someone who may wake them */
	if (depth == 0 && ls_rnd(10) < 6)
		r = t & 1 ? 50 + r / 2 : r / 2;
	switch (f) {
	case F_WQ:
		if (r < 45) {
			put(t, ls_rnd(2) ? Q_PREPX : Q_PREP, k, 0);
			put(t, Q_SCHED, k, 0);
			put(t, Q_FINISH, k, 0);
		} else if (r < 55) {
			put(t, ls_rnd(2) ? Q_PREPX : Q_PREP, k, 0);
			put(t, Q_FINISH, k, 0);
		} else if (r < 65) {
			put(t, Q_ACTIVE, k, 0);
		} else {
			put(t, Q_WAKE, k, ls_rnd(3));
		}
		break;
	case F_COMP: {
		static const uint8_t pick[] = { C_WAIT, C_WAIT, C_WAIT, C_TRY, C_REINIT,
						C_COMPLETE, C_COMPLETE, C_COMPLETE, C_ALL, C_DONE };
		put(t, pick[r / 10], k, 0);
		break;
	}
	case F_SEM:
		if (r < 30) {
			put(t, S_DOWN, k, 0);
		} else if (r < 50) {
			put(t, S_TRY, k, 0);
			put(t, S_UP_IF, k, 0);
		} else if (r < 70) {
			put(t, S_DOWN, k, 0);
			maybe_inner(t, fams, depth);
			put(t, S_UP, k, 0);
		} else {
			put(t, S_UP, k, 0);
		}
		break;
	case F_MUTEX:
		if (r < 2) {
			put(t, M_LOCK, k, 0);
			put(t, M_LOCK, k, 0);   /* recursive: a deadlock at once */
		} else if (r < 75) {
			put(t, M_LOCK, k, 0);
			maybe_inner(t, fams, depth);
			put(t, M_UNLOCK, k, 0);
		} else {
			put(t, M_TRY, k, 0);
			maybe_inner(t, fams, depth);
			put(t, M_UNLOCK_IF, k, 0);
		}
		break;
	case F_RWSEM:
		if (r < 30) {
			put(t, R_DR, k, 0);
			maybe_inner(t, fams, depth);
			put(t, R_UR, k, 0);
		} else if (r < 55) {
			put(t, R_DW, k, 0);
			maybe_inner(t, fams, depth);
			put(t, R_UW, k, 0);
		} else if (r < 65) {
			put(t, R_DW, k, 0);
			put(t, R_DOWNGRADE, k, 0);
			maybe_inner(t, fams, depth);
			put(t, R_UR, k, 0);
		} else if (r < 75) {
			put(t, R_TRYR, k, 0);
			put(t, R_UR_IF, k, 0);
		} else if (r < 85) {
			put(t, R_TRYW, k, 0);
			put(t, R_UW_IF, k, 0);
		} else if (r < 97) {
			put(t, R_DR, k, 0);     /* recursive read: a waiting writer deadlocks it */
			put(t, R_DR, k, 0);
			put(t, R_UR, k, 0);
			put(t, R_UR, k, 0);
		} else {
			put(t, R_DR, k, 0);     /* write while reading: a deadlock at once */
			put(t, R_DW, k, 0);
		}
		break;
	case F_COND: {
		unsigned m = pick_obj();
		if (r < 45) {
			put(t, M_LOCK, m, 0);
			put(t, V_WAIT, k, m);
			put(t, M_UNLOCK, m, 0);
		} else if (r < 70) {
			put(t, M_LOCK, m, 0);
			put(t, ls_rnd(3) ? V_SIGNAL : V_BCAST, k, 0);
			put(t, M_UNLOCK, m, 0);
		} else {
			put(t, ls_rnd(3) ? V_SIGNAL : V_BCAST, k, 0);
		}
		break;
	}
	case F_BIT: {
		unsigned bit = ls_rnd(4) == 0;
		if (r < 45) {
			put(t, B_LOCK, k, bit);
			maybe_inner(t, fams, depth);
			put(t, B_UNLOCK, k, bit);
			if (ls_rnd(8))
				put(t, B_WAKE_IF, k, bit);   /* else the wake-up is forgotten */
		} else if (r < 65) {
			put(t, B_TRY, k, bit);
			put(t, B_UNLOCK_IF, k, bit);
			put(t, ls_rnd(2) ? B_WAKE_IF : B_WAKE, k, bit);
		} else if (r < 85) {
			put(t, B_WAIT, k, bit);
		} else {
			put(t, B_WAKE, k, bit);
		}
		break;
	}
	}
}

static void gen(void)
{
	memset(&P, 0, sizeof(P));
	P.nt = 2 + ls_rnd(3);
	unsigned fams = 0;
	do {
		fams |= 1u << ls_rnd(F__N);
	} while (ls_rnd(3) == 0);
	P.sem_init[0] = (uint8_t)ls_rnd(3);
	P.sem_init[1] = (uint8_t)ls_rnd(2);
	for (unsigned t = 0; t < P.nt; t++) {
		unsigned np = 1 + ls_rnd(3);
		for (unsigned i = 0; i < np && P.n[t] + 5 < MAXOPS; i++)
			gen_pattern(t, fams, 0);
	}
}

static void print_prog(FILE *f)
{
	fprintf(f, "   program (semaphores start at %u, %u):\n", P.sem_init[0], P.sem_init[1]);
	for (unsigned t = 0; t < P.nt; t++) {
		fprintf(f, "     T%u:", t);
		for (unsigned i = 0; i < P.n[t]; i++) {
			const struct op *o = &P.ops[t][i];
			fprintf(f, " %s(%u", opname[o->k], o->obj);
			if (o->k == Q_WAKE || o->k == V_WAIT || (o->k >= B_LOCK && o->k <= B_WAKE_IF))
				fprintf(f, ",%u", o->arg);
			fprintf(f, ")");
		}
		fprintf(f, "\n");
	}
}

/* ------------------------------------------------------------ the checks */

static unsigned failures, nr_runs, verdicts[WEFT_KIND__COUNT];
static long cur_prog;

static const char *kind_name(enum weft_kind k)
{
	return k == WEFT_KIND__COUNT ? "(still running)" : weft_kind_name(k);
}

/* Runs the current program once in lock step; false on a disagreement. */
static bool run_one(enum weft_lock_model lock, enum ls_mode mode, uint64_t seed, bool verbose)
{
	static struct ls_strategy s;
	struct weft_run_opts o = { .sc = &wsc, .lock = lock };
	struct weft_exec_result r;

	wsc.nr_threads = P.nt;
	ref_reset(lock);
	ls_run(&o, &ref, mode, seed, &s, &r);
	nr_runs++;
	verdicts[r.kind]++;

	char why[600];
	snprintf(why, sizeof(why), "%s", ls_why);
	if (!why[0]) {
		int who;
		enum weft_kind want = ref_verdict(&who), imm = WEFT_KIND_NONE;
		int rt = r.report.here.tid;
		if (r.kind != WEFT_KIND_NONE && rt >= 0 && rt < (int)P.nt)
			imm = ref_immediate((unsigned)rt);
		if (imm != WEFT_KIND_NONE) {
			if (r.kind != imm)
				snprintf(why, sizeof(why), "T%d reports %s, the reference %s at once", rt,
					 kind_name(r.kind), kind_name(imm));
		} else if (r.kind != want) {
			snprintf(why, sizeof(why), "verdict %s (%s), the reference %s",
				 kind_name(r.kind), r.report.msg, kind_name(want));
		} else if (want == WEFT_KIND_LOST_WAKEUP && rt != who) {
			snprintf(why, sizeof(why), "the lost wakeup names T%d, the reference T%d", rt,
				 who);
		}
	}
	if (verbose)
		fprintf(stderr, "  %s %s seed %llu: %s%s%s\n", lock == WEFT_LOCK_TICKET ? "ticket" : "tas",
			mode == LS_SERIAL ? "serial" : mode == LS_STICKY ? "sticky" : "uniform",
			(unsigned long long)seed, weft_kind_name(r.kind), why[0] ? ": " : "", why);
	if (!why[0])
		return true;
	CHECK(0, "program %ld: %s", cur_prog, why);
	ls_show_failure(&failures, print_prog, &s, "  lock %s, mode %d, seed %llu\n",
			lock == WEFT_LOCK_TICKET ? "ticket" : "tas", (int)mode,
			(unsigned long long)seed);
	return false;
}

/* Every lock model, the serial schedule and nr seeded ones. */
static void run_prog(unsigned nr, uint64_t seed, bool verbose)
{
	for (int lk = 0; lk < 2; lk++) {
		enum weft_lock_model lock = lk ? WEFT_LOCK_TICKET : WEFT_LOCK_TAS;
		if (!run_one(lock, LS_SERIAL, 0, verbose))
			return;
		for (unsigned i = 0; i < nr; i++)
			if (!run_one(lock, i & 1 ? LS_UNIFORM : LS_STICKY, seed * 1000 + i, verbose))
				return;
	}
}

/* Programs pinned because a wrong primitive gave a wrong verdict on them. */
static const struct pinned_prog {
	long id;
	uint64_t seed;
	unsigned nt, nops;
	struct { uint8_t t, k, arg; } ops[7]; /* all on object 0 */
} pinned_progs[] = {
	/* a non-exclusive and an exclusive sleeper, one wake_up(): both wake
	 * (the non-exclusive one does not use up the exclusive budget); the
	 * serial run is clean, not a lost wakeup */
	{ -1, 1, 3, 7, { { 0, Q_PREP, 0 }, { 0, Q_SCHED, 0 }, { 0, Q_FINISH, 0 },
			 { 1, Q_PREPX, 0 }, { 1, Q_SCHED, 0 }, { 1, Q_FINISH, 0 },
			 { 2, Q_WAKE, 1 } } },
	/* two exclusive sleepers and one wake_up(): the second sleeps for ever */
	{ -2, 2, 3, 7, { { 0, Q_PREPX, 0 }, { 0, Q_SCHED, 0 }, { 0, Q_FINISH, 0 },
			 { 1, Q_PREPX, 0 }, { 1, Q_SCHED, 0 }, { 1, Q_FINISH, 0 },
			 { 2, Q_WAKE, 1 } } },
	/* a page unlock that forgets to wake the sleeper: a lost wakeup */
	{ -3, 3, 2, 6, { { 0, B_LOCK, 0 }, { 0, Q_ACTIVE, 0 }, { 0, B_UNLOCK, 0 },
			 { 1, B_LOCK, 0 }, { 1, B_UNLOCK, 0 }, { 1, B_WAKE_IF, 0 } } },
};

static void pinned(void)
{
	for (size_t i = 0; i < sizeof(pinned_progs) / sizeof(pinned_progs[0]); i++) {
		const struct pinned_prog *pp = &pinned_progs[i];
		memset(&P, 0, sizeof(P));
		P.nt = pp->nt;
		for (unsigned j = 0; j < pp->nops; j++)
			put(pp->ops[j].t, pp->ops[j].k, 0, pp->ops[j].arg);
		cur_prog = pp->id;
		run_prog(20, pp->seed, false);
	}
}

int main(void)
{
	const struct ls_programs progs = { pinned, gen, print_prog, run_prog, &cur_prog };
	unsigned nprog = ls_large() ? 100000 : 5000;

	static const enum weft_kind kinds[] = { WEFT_KIND_DEADLOCK, WEFT_KIND_LOST_WAKEUP };
	static const char *const labels[] = { "deadlock", "lost-wakeup" };

	ls_log_releases = true;   /* the reference splits contended unlocks (ref_release()) */

	ls_run_programs(&progs, nprog, ls_large() ? 24 : 8);
	ls_print_verdicts(nprog, nr_runs, verdicts, kinds, labels, 2);
	return check_done();
}
