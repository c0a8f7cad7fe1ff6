/*
 * native_sleep.c - the sleeping primitives of <weft/sleep.h> on real
 * threads (-DWEFT_NATIVE, weft stress), with the semantics of the
 * controlled build (sleep.c, waitqueue.c).
 *
 * Every wait list is a queue in one process-wide table (one entry per
 * model thread, as the controlled build keeps them) under one lock, `nq`:
 * a sleeper checks its condition and joins a list under nq, a waker
 * changes the state and takes sleepers off the lists under nq, so a
 * wake-up is never lost between a check and the sleep. A sleeper then
 * waits for its own `woken` word (a futex on Linux) with a short timeout
 * and polls the stop flag, so a report in another thread, or the stress
 * loop's hang detector (a lost wakeup or a deadlock shows natively as an
 * iteration that does not end), still ends the iteration: the thread bails
 * out through weft_native_poll(). Nothing here sleeps or reports while it
 * holds nq.
 *
 * Object fields are read and written with atomics (a TSan build sees the
 * protocol, not races on the primitives' own words).
 *
 * Length: the real-thread twin of sleep.c and waitqueue.c in one file, so
 * that the two builds' semantics can be compared primitive by primitive.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <weft/kernel.h>
#include <weft/timer.h>
#include <weft/wait_bit.h>

#include "native_tasks.h"

enum {
	NW_EXCLUSIVE = 1,
	NW_WRITE = 2,
	NW_GRANTED = 4,
	NW_LOCK = 8,
	NW_HASHED = 32,          /* a hashed wait (wait_bit.h): chan is the key */
};

static struct nwaiter {
	const void *chan;        /* the wait list it is on, or NULL */
	uint64_t seq;
	uint32_t woken;          /* futex word: set by the waker */
	uint8_t flags;
	uint8_t bit;
	uint8_t task_state;
	bool polls;              /* in a wait's poll loop (weft_native_task_polls()) */
} nw[WEFT_MAX_THREADS];
static uint64_t nseq;
static pthread_mutex_t nq = PTHREAD_MUTEX_INITIALIZER;

/* Each thread's read holds of each rw_semaphore, exactly (r->held, 2 bits
 * a thread, saturates at 3: see sleep.c); under nq. A thread holding more
 * rwsems at once than it has entries falls back to the summary. */
#define NAT_READS 8
static struct nat_read {
	const struct weft_rw_semaphore *r;
	uint32_t depth;
} nat_reads[WEFT_MAX_THREADS][NAT_READS];
static bool nat_reads_full[WEFT_MAX_THREADS];

#define LD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* Host, between iterations: every model thread is parked or has bailed. */
void weft_native_sleep_reset(void)
{
	pthread_mutex_lock(&nq);
	memset(nw, 0, sizeof(nw));
	memset(nat_reads, 0, sizeof(nat_reads));
	memset(nat_reads_full, 0, sizeof(nat_reads_full));
	nseq = 0;
	pthread_mutex_unlock(&nq);
}

static inline unsigned me(void)
{
	return weft_native_tid % WEFT_MAX_THREADS;
}

/* ------------------------------------------------------ lists (under nq) */

static void nw_add(unsigned t, const void *chan, uint8_t flags)
{
	if (nw[t].chan == chan)
		return;
	nw[t].chan = chan;
	nw[t].flags = flags;
	nw[t].seq = ++nseq;
	ST(nw[t].woken, 0);
}

static void nw_del(unsigned t)
{
	nw[t].chan = NULL;
	nw[t].flags &= NW_GRANTED;
}

static int nw_next(const void *chan, uint8_t mask, uint8_t want, uint64_t after)
{
	int best = -1;

	for (unsigned i = 0; i < WEFT_MAX_THREADS; i++) {
		if (nw[i].chan != chan || (nw[i].flags & mask) != want || nw[i].seq <= after)
			continue;
		if (best < 0 || nw[i].seq < nw[best].seq)
			best = (int)i;
	}
	return best;
}

static unsigned nw_count(const void *chan, uint8_t mask, uint8_t want)
{
	unsigned n = 0;

	for (unsigned i = 0; i < WEFT_MAX_THREADS; i++)
		n += nw[i].chan == chan && (nw[i].flags & mask) == want;
	return n;
}

static void nw_wake(unsigned t)
{
	nw[t].task_state = TASK_RUNNING;
	ST(nw[t].woken, 1);
#ifdef __linux__
	syscall(SYS_futex, &nw[t].woken, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#endif
}

/* Not under nq: until a waker sets our word; bails on the stop flag. */
static void nw_sleep(unsigned t)
{
	while (!LD(nw[t].woken)) {
#ifdef __linux__
		struct timespec ts = { 0, 2000000 };
		syscall(SYS_futex, &nw[t].woken, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
#else
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
#endif
		weft_native_poll();
	}
}

/*
 * The wait loop of every sleeping primitive, as sleep.c's
 * weft_wl_wait_turn(): under nq, each primitive's own test says whether the
 * thread may go on (nw_granted(): a waker handed it the object; or it took
 * it), and until then nw_wait_turn() queues it once on obj's list (flags;
 * counted in *nr_waiters) and sleeps, leaving nq and taking it back.
 */
static void nw_wait_turn(unsigned t, const void *obj, uint32_t *nr_waiters, uint8_t flags)
{
	if (nw[t].chan != obj) {
		nw_add(t, obj, flags);
		__atomic_fetch_add(nr_waiters, 1, __ATOMIC_RELAXED);
	}
	ST(nw[t].woken, 0);
	/* the kernel's wait loops sleep TASK_UNINTERRUPTIBLE; nw_wake()
	 * makes it TASK_RUNNING (as the model's weft_wl_sleep()) */
	nw[t].task_state = TASK_UNINTERRUPTIBLE;
	pthread_mutex_unlock(&nq);
	nw_sleep(t);
	pthread_mutex_lock(&nq);
}

/* Under nq: handed the object by its waker (and the grant consumed). */
static bool nw_granted(unsigned t)
{
	if (!(nw[t].flags & NW_GRANTED))
		return false;
	nw[t].flags &= (uint8_t)~NW_GRANTED;
	return true;
}

/* Under nq: t took obj itself: off obj's list if it slept on it. */
static void nw_taken(unsigned t, const void *obj, uint32_t *nr_waiters)
{
	if (nw[t].chan == obj) {
		nw_del(t);
		__atomic_fetch_sub(nr_waiters, 1, __ATOMIC_RELAXED);
	}
}

static void host_sleeps(const void *obj, const struct weft_site *s)
{
	weft_report(WEFT_KIND_ASSERT, obj, s,
		    "%s from setup or an audit would sleep: no thread runs there to wake it",
		    s->what);
}

/* Before anything that may sleep (under nq: the check reads our entry). */
static bool blocking_ok(unsigned t, const void *chan)
{
	return nw[t].task_state == TASK_RUNNING && (!nw[t].chan || nw[t].chan == chan);
}

static void not_blocking_ok(unsigned t, const void *chan, const struct weft_site *s)
{
	if (nw[t].task_state != TASK_RUNNING)
		weft_report(WEFT_KIND_WARN_ON, chan, s,
			    "do not call blocking ops when !TASK_RUNNING: T%u is between "
			    "prepare_to_wait() and schedule()", t);
	weft_report(WEFT_KIND_ASSERT, chan, s,
		    "T%u would wait on two wait lists at once: not modelled", t);
}

#define MIGHT_SLEEP(t, chan, s)                                                \
	do {                                                                   \
		if (!blocking_ok((t), (chan))) {                               \
			pthread_mutex_unlock(&nq);                             \
			not_blocking_ok((t), (chan), (s));                     \
		}                                                              \
	} while (0)

/* The start of an operation that needs nq in any context: a poll point,
 * then nq taken. */
static void nq_lock_polled(void)
{
	weft_native_poll();
	pthread_mutex_lock(&nq);
}

/* The start of an operation that only a model thread performs: a poll
 * point, then, in a model thread, nq taken (true); outside the model
 * nothing (false). */
static bool nq_lock_in_model(void)
{
	weft_native_poll();
	if (!weft_native_in_model())
		return false;
	pthread_mutex_lock(&nq);
	return true;
}

/* ------------------------------------------------------------------ mutex */

void weft_mutex_init(struct weft_mutex *m, const struct weft_site *s)
{
	(void)s;
	ST(m->owner, 0);
	ST(m->nr_waiters, 0);
}

/* Under nq: mutex_lock()'s test (a handover is nw_granted()). */
static bool mutex_take(struct weft_mutex *m, unsigned t)
{
	if (LD(m->owner))
		return false;
	ST(m->owner, t + 1);
	nw_taken(t, m, &m->nr_waiters);
	return true;
}

static void mutex_acquire(struct weft_mutex *m, unsigned t, const struct weft_site *s)
{
	pthread_mutex_lock(&nq);
	while (!nw_granted(t) && !mutex_take(m, t))
		nw_wait_turn(t, m, &m->nr_waiters, 0);
	pthread_mutex_unlock(&nq);
	(void)s;
}

void weft_mutex_lock(struct weft_mutex *m, const struct weft_site *s)
{
	unsigned t = me();

	weft_native_poll();
	if (!weft_native_in_model()) {
		uint32_t z = 0;
		if (!__atomic_compare_exchange_n(&m->owner, &z, 0xffffffffu, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			host_sleeps(m, s);
		return;
	}
	if (LD(m->owner) == t + 1)
		weft_report(WEFT_KIND_DEADLOCK, m, s,
			    "T%u locks a mutex it already holds (recursive locking)", t);
	pthread_mutex_lock(&nq);
	MIGHT_SLEEP(t, m, s);
	pthread_mutex_unlock(&nq);
	mutex_acquire(m, t, s);
}

bool weft_mutex_trylock(struct weft_mutex *m, const struct weft_site *s)
{
	uint32_t z = 0;
	bool ok;

	(void)s;
	nq_lock_polled();
	ok = __atomic_compare_exchange_n(&m->owner, &z,
					 weft_native_in_model() ? me() + 1 : 0xffffffffu, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&nq);
	return ok;
}

/* whole: in one go (pthread_mutex_unlock()); else as mutex_unlock() in
 * the controlled build (sleep.c): with waiters and no handoff, the release
 * and then, nq taken again, the wake-up of the first waiter, which reads
 * m (a use after free under AddressSanitizer if another thread took m in
 * between and freed it). */
static void mutex_release(struct weft_mutex *m, unsigned t, bool whole, const struct weft_site *s)
{
	uint32_t owner = LD(m->owner);
	int w;

	if (owner != t + 1)
		weft_report(WEFT_KIND_BAD_UNLOCK, m, s,
			    owner ? "T%u unlocks a mutex another thread holds"
				  : "T%u unlocks a mutex that is not locked", t);
	pthread_mutex_lock(&nq);
	w = nw_next(m, 0, 0, 0);
	if (w >= 0 && weft_native_lock_model == WEFT_LOCK_TICKET) {
		ST(m->owner, (uint32_t)w + 1);
		nw_del((unsigned)w);
		nw[w].flags |= NW_GRANTED;
		__atomic_fetch_sub(&m->nr_waiters, 1, __ATOMIC_RELAXED);
	} else {
		ST(m->owner, 0);
	}
	if (w >= 0 && weft_native_lock_model != WEFT_LOCK_TICKET && !whole) {
		pthread_mutex_unlock(&nq);
		sched_yield();
		pthread_mutex_lock(&nq);
		w = LD(m->nr_waiters) ? nw_next(m, 0, 0, 0) : -1;
	}
	if (w >= 0)
		nw_wake((unsigned)w);
	pthread_mutex_unlock(&nq);
}

void weft_mutex_unlock(struct weft_mutex *m, const struct weft_site *s)
{
	weft_native_poll();
	if (!weft_native_in_model()) {
		ST(m->owner, 0);
		return;
	}
	mutex_release(m, me(), false, s);
}

void weft_mutex_unlock_posix(struct weft_mutex *m, const struct weft_site *s)
{
	weft_native_poll();
	if (!weft_native_in_model()) {
		ST(m->owner, 0);
		return;
	}
	mutex_release(m, me(), true, s);
}

bool weft_mutex_is_locked(struct weft_mutex *m, const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	return LD(m->owner) != 0;
}

/* ------------------------------------------------------------------ rwsem */

/* under nq */
static struct nat_read *nat_read(const struct weft_rw_semaphore *r, unsigned t, bool make)
{
	struct nat_read *free_slot = NULL;

	for (unsigned i = 0; i < NAT_READS; i++) {
		struct nat_read *x = &nat_reads[t][i];
		if (x->depth && x->r == r)
			return x;
		if (!x->depth && !free_slot)
			free_slot = x;
	}
	if (!make)
		return NULL;
	if (!free_slot) {
		nat_reads_full[t] = true;
		return NULL;
	}
	free_slot->r = r;
	return free_slot;
}

/* under nq */
static unsigned held_of(const struct weft_rw_semaphore *r, unsigned t)
{
	const struct nat_read *x = nat_read(r, t, false);

	if (x)
		return x->depth;
	return nat_reads_full[t] ? weft_held_summary(LD(r->held), t) : 0;
}

/* under nq */
static void held_add(struct weft_rw_semaphore *r, unsigned t, int d)
{
	struct nat_read *x = nat_read(r, t, d > 0);

	if (x && (d > 0 || x->depth))
		x->depth += (uint32_t)d;
	ST(r->held, weft_held_summary_add(LD(r->held), t, d));
}

/* under nq: the last read hold of r is gone */
static void held_clear(struct weft_rw_semaphore *r)
{
	ST(r->held, 0);
	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++)
		for (unsigned i = 0; i < NAT_READS; i++)
			if (nat_reads[t][i].r == r)
				nat_reads[t][i].depth = 0;
}

/* rwsem_wake() under nq: the oldest waiter if it is a writer and r is
 * free, else every waiting reader. */
static void rwsem_wake(struct weft_rw_semaphore *r)
{
	int w = nw_next(r, 0, 0, 0);

	if (w < 0)
		return;
	if (nw[w].flags & NW_WRITE) {
		if (LD(r->writer) || LD(r->readers))
			return;
		if (weft_native_lock_model == WEFT_LOCK_TICKET) {
			ST(r->writer, (uint32_t)w + 1);
			nw_del((unsigned)w);
			nw[w].flags |= NW_GRANTED;
			__atomic_fetch_sub(&r->nr_waiters, 1, __ATOMIC_RELAXED);
		}
		nw_wake((unsigned)w);
		return;
	}
	if (LD(r->writer))
		return;
	while ((w = nw_next(r, NW_WRITE, 0, 0)) >= 0) {
		__atomic_fetch_add(&r->readers, 1, __ATOMIC_RELAXED);
		held_add(r, (unsigned)w, 1);
		nw_del((unsigned)w);
		nw[w].flags |= NW_GRANTED;
		__atomic_fetch_sub(&r->nr_waiters, 1, __ATOMIC_RELAXED);
		nw_wake((unsigned)w);
	}
}

void weft_init_rwsem(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	(void)s;
	ST(r->writer, 0);
	ST(r->readers, 0);
	pthread_mutex_lock(&nq);
	held_clear(r);
	pthread_mutex_unlock(&nq);
	ST(r->nr_waiters, 0);
}

/* Under nq: down_read()'s test (a grant is nw_granted()). */
static bool rwsem_read_take(struct weft_rw_semaphore *r, unsigned t)
{
	if (LD(r->writer) || nw_count(r, NW_WRITE, NW_WRITE))
		return false;
	__atomic_fetch_add(&r->readers, 1, __ATOMIC_RELAXED);
	held_add(r, t, 1);
	return true;
}

/* Under nq: down_write()'s test (a handover is nw_granted()). */
static bool rwsem_write_take(struct weft_rw_semaphore *r, unsigned t)
{
	if (LD(r->writer) || LD(r->readers))
		return false;
	ST(r->writer, t + 1);
	nw_taken(t, r, &r->nr_waiters);
	return true;
}

/* down_read() and down_write(): the wait loop, written once. */
static void rwsem_down(struct weft_rw_semaphore *r, bool write, const struct weft_site *s)
{
	unsigned t = me();

	weft_native_poll();
	if (!weft_native_in_model()) {
		if (LD(r->writer) || (write && LD(r->readers)))
			host_sleeps(r, s);
		else if (write)
			ST(r->writer, 0xffffffffu);
		else
			__atomic_fetch_add(&r->readers, 1, __ATOMIC_ACQ_REL);
		return;
	}
	if (write) {
		pthread_mutex_lock(&nq);
		bool holds = LD(r->writer) == t + 1 || held_of(r, t);
		pthread_mutex_unlock(&nq);
		if (holds)
			weft_report(WEFT_KIND_DEADLOCK, r, s,
				    "T%u takes an rw_semaphore for write that it already holds", t);
	}
	pthread_mutex_lock(&nq);
	MIGHT_SLEEP(t, r, s);
	while (!nw_granted(t) && !(write ? rwsem_write_take(r, t) : rwsem_read_take(r, t)))
		nw_wait_turn(t, r, &r->nr_waiters, write ? NW_WRITE : 0);
	pthread_mutex_unlock(&nq);
}

/* down_read_trylock() and down_write_trylock(): free of writers (and of
 * readers, for write) and of waiters. */
static int rwsem_trylock(struct weft_rw_semaphore *r, bool write)
{
	bool ok;

	nq_lock_polled();
	ok = !LD(r->writer) && !(write && LD(r->readers)) && !nw_count(r, 0, 0);
	if (ok && write) {
		ST(r->writer, weft_native_in_model() ? me() + 1 : 0xffffffffu);
	} else if (ok) {
		__atomic_fetch_add(&r->readers, 1, __ATOMIC_RELAXED);
		if (weft_native_in_model())
			held_add(r, me(), 1);
	}
	pthread_mutex_unlock(&nq);
	return ok;
}

void weft_down_read(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_down(r, false, s);
}

int weft_down_read_trylock(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	(void)s;
	return rwsem_trylock(r, false);
}

void weft_down_write(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_down(r, true, s);
}

int weft_down_write_trylock(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	(void)s;
	return rwsem_trylock(r, true);
}

/* Under nq, after a release that left r free: rwsem_wake(), as the
 * controlled build does it (sleep.c): with waiters and no handoff, nq is
 * dropped and taken again first, and the wake reads r (a use after free
 * under AddressSanitizer if another thread took r meanwhile and freed it). */
static void rwsem_wake_after(struct weft_rw_semaphore *r, bool whole)
{
	if (!whole && weft_native_lock_model != WEFT_LOCK_TICKET && nw_next(r, 0, 0, 0) >= 0) {
		pthread_mutex_unlock(&nq);
		sched_yield();
		pthread_mutex_lock(&nq);
		if (!LD(r->nr_waiters))
			return;
	}
	rwsem_wake(r);
}

static void rwsem_up_read(struct weft_rw_semaphore *r, bool whole, const struct weft_site *s)
{
	unsigned t = me();

	weft_native_poll();
	if (!weft_native_in_model()) {
		__atomic_fetch_sub(&r->readers, 1, __ATOMIC_ACQ_REL);
		return;
	}
	pthread_mutex_lock(&nq);
	bool holds = held_of(r, t) && LD(r->readers);
	pthread_mutex_unlock(&nq);
	if (!holds)
		weft_report(WEFT_KIND_BAD_UNLOCK, r, s,
			    "T%u releases a read lock of an rw_semaphore it does not hold for read",
			    t);
	pthread_mutex_lock(&nq);
	held_add(r, t, -1);
	if (__atomic_sub_fetch(&r->readers, 1, __ATOMIC_ACQ_REL) == 0) {
		held_clear(r);
		rwsem_wake_after(r, whole);
	}
	pthread_mutex_unlock(&nq);
}

void weft_up_read(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_up_read(r, false, s);
}

void weft_up_read_posix(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_up_read(r, true, s);
}

/* up_write() and downgrade_write(), which keeps a read lock. */
static void rwsem_write_release(struct weft_rw_semaphore *r, bool downgrade, bool whole,
				const struct weft_site *s)
{
	unsigned t = me();

	weft_native_poll();
	if (!weft_native_in_model()) {
		ST(r->writer, 0);
		if (downgrade)
			__atomic_fetch_add(&r->readers, 1, __ATOMIC_ACQ_REL);
		return;
	}
	if (LD(r->writer) != t + 1 && downgrade)
		weft_report(WEFT_KIND_BAD_UNLOCK, r, s,
			    "T%u downgrades an rw_semaphore it does not hold for write", t);
	else if (LD(r->writer) != t + 1)
		weft_report(WEFT_KIND_BAD_UNLOCK, r, s,
			    "T%u releases the write lock of an rw_semaphore it does not hold", t);
	pthread_mutex_lock(&nq);
	if (downgrade) {
		__atomic_fetch_add(&r->readers, 1, __ATOMIC_RELAXED);
		held_add(r, t, 1);
	}
	ST(r->writer, 0);
	rwsem_wake_after(r, whole);
	pthread_mutex_unlock(&nq);
}

void weft_up_write(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_write_release(r, false, false, s);
}

void weft_up_write_posix(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_write_release(r, false, true, s);
}

void weft_downgrade_write(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_write_release(r, true, true, s);
}

/* -------------------------------------------------------------- semaphore */

void weft_sema_init(struct weft_semaphore *sem, unsigned val, const struct weft_site *s)
{
	(void)s;
	ST(sem->count, val);
	ST(sem->nr_waiters, 0);
}

/* Under nq: down()'s test (up()'s handover is nw_granted()). */
static bool sem_take(struct weft_semaphore *sem)
{
	if (!LD(sem->count))
		return false;
	__atomic_fetch_sub(&sem->count, 1, __ATOMIC_RELAXED);
	return true;
}

void weft_down(struct weft_semaphore *sem, const struct weft_site *s)
{
	unsigned t = me();

	weft_native_poll();
	if (!weft_native_in_model()) {
		if (!LD(sem->count))
			host_sleeps(sem, s);
		else
			__atomic_fetch_sub(&sem->count, 1, __ATOMIC_ACQ_REL);
		return;
	}
	pthread_mutex_lock(&nq);
	MIGHT_SLEEP(t, sem, s);
	while (!nw_granted(t) && !sem_take(sem))
		nw_wait_turn(t, sem, &sem->nr_waiters, NW_EXCLUSIVE);
	pthread_mutex_unlock(&nq);
}

int weft_down_trylock(struct weft_semaphore *sem, const struct weft_site *s)
{
	bool ok;

	(void)s;
	nq_lock_polled();
	ok = LD(sem->count) > 0;
	if (ok)
		__atomic_fetch_sub(&sem->count, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&nq);
	return !ok;
}

/* As the completion's timed wait here: a few yields for the count, then
 * the timeout's jiffies pass (native time is virtual) and -ETIME. */
int weft_down_timeout(struct weft_semaphore *sem, long timeout, const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	for (unsigned spins = 0; spins < 64; spins++) {
		pthread_mutex_lock(&nq);
		bool ok = sem_take(sem);
		pthread_mutex_unlock(&nq);
		if (ok)
			return 0;
		if (timeout <= 0 || !weft_native_in_model())
			return -WEFT_ETIME;
		sched_yield();
	}
	weft_native_jiffies_pass((unsigned long)timeout);
	return -WEFT_ETIME;
}

void weft_up(struct weft_semaphore *sem, const struct weft_site *s)
{
	int w;

	(void)s;
	nq_lock_polled();
	w = nw_next(sem, 0, 0, 0);
	if (w >= 0) {
		nw_del((unsigned)w);
		nw[w].flags |= NW_GRANTED;
		__atomic_fetch_sub(&sem->nr_waiters, 1, __ATOMIC_RELAXED);
		nw_wake((unsigned)w);
	} else {
		__atomic_fetch_add(&sem->count, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&nq);
}

/* ------------------------------------------------------------- completion */

void weft_init_completion(struct weft_completion *x, const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	ST(x->done, 0);
}

void weft_complete(struct weft_completion *x, bool all, const struct weft_site *s)
{
	int w;

	(void)s;
	nq_lock_polled();
	if (all)
		ST(x->done, WEFT_COMPLETION_ALL);
	else if (LD(x->done) != WEFT_COMPLETION_ALL)
		__atomic_fetch_add(&x->done, 1, __ATOMIC_RELAXED);
	while ((w = nw_next(x, 0, 0, 0)) >= 0) {
		nw_del((unsigned)w);
		__atomic_fetch_sub(&x->nr_waiters, 1, __ATOMIC_RELAXED);
		nw_wake((unsigned)w);
		if (!all)
			break;
	}
	pthread_mutex_unlock(&nq);
}

static bool completion_take(struct weft_completion *x)
{
	uint32_t d = LD(x->done);

	if (!d)
		return false;
	if (d != WEFT_COMPLETION_ALL)
		ST(x->done, d - 1);
	return true;
}

void weft_wait_for_completion(struct weft_completion *x, const struct weft_site *s)
{
	unsigned t = me();

	weft_native_poll();
	if (!weft_native_in_model()) {
		pthread_mutex_lock(&nq);
		bool ok = completion_take(x);
		pthread_mutex_unlock(&nq);
		if (!ok)
			host_sleeps(x, s);
		return;
	}
	pthread_mutex_lock(&nq);
	MIGHT_SLEEP(t, x, s);
	while (!completion_take(x))
		nw_wait_turn(t, x, &x->nr_waiters, NW_EXCLUSIVE);
	pthread_mutex_unlock(&nq);
}

/* As weft_schedule_timeout() here: a few yields for the completion, then
 * the timeout's jiffies pass (native time is virtual). */
unsigned long weft_wait_for_completion_timeout(struct weft_completion *x, unsigned long timeout,
					       const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	for (unsigned spins = 0; spins < 64; spins++) {
		pthread_mutex_lock(&nq);
		bool ok = completion_take(x);
		pthread_mutex_unlock(&nq);
		if (ok)
			return timeout ? timeout : 1;
		if (!timeout || !weft_native_in_model())
			return 0;
		sched_yield();
	}
	weft_native_jiffies_pass(timeout);
	return 0;
}

bool weft_try_wait_for_completion(struct weft_completion *x, const struct weft_site *s)
{
	bool ok;

	(void)s;
	nq_lock_polled();
	ok = completion_take(x);
	pthread_mutex_unlock(&nq);
	return ok;
}

bool weft_completion_done(struct weft_completion *x, const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	return LD(x->done) != 0;
}

/* ------------------------------------------------------------ wait queues */

void weft_init_waitqueue_head(struct weft_wait_queue_head *wq, const struct weft_site *s)
{
	(void)s;
	ST(wq->wakes, 0);
	ST(wq->nr_queued, 0);
}

void weft_prepare_to_wait(struct weft_wait_queue_head *wq, struct weft_wait_entry *e,
			  int state, bool exclusive, const struct weft_site *s)
{
	unsigned t = me();

	if (!nq_lock_in_model())
		return;
	if (nw[t].chan && nw[t].chan != wq) {
		pthread_mutex_unlock(&nq);
		weft_report(WEFT_KIND_ASSERT, wq, s,
			    "T%u prepares to wait on a second wait queue: not modelled", t);
	}
	if (nw[t].chan != wq) {
		nw_add(t, wq, exclusive ? NW_EXCLUSIVE : 0);
		__atomic_fetch_add(&wq->nr_queued, 1, __ATOMIC_RELAXED);
	}
	if (e)
		e->flags = exclusive ? NW_EXCLUSIVE : 0;
	nw[t].task_state = (uint8_t)state;
	pthread_mutex_unlock(&nq);
}

void weft_finish_wait(struct weft_wait_queue_head *wq, struct weft_wait_entry *e,
		      const struct weft_site *s)
{
	unsigned t = me();

	(void)e;
	(void)s;
	if (!nq_lock_in_model())
		return;
	nw[t].task_state = TASK_RUNNING;
	if (nw[t].chan == wq) {
		nw_del(t);
		__atomic_fetch_sub(&wq->nr_queued, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&nq);
}

bool weft_schedule(const struct weft_site *s)
{
	unsigned t = me();
	bool sleep;

	weft_native_poll();
	if (!weft_native_in_model()) {
		weft_report(WEFT_KIND_ASSERT, NULL, s,
			    "%s from setup or an audit: no thread runs there to wake it", s->what);
		return false;
	}
	pthread_mutex_lock(&nq);
	sleep = nw[t].task_state != TASK_RUNNING;
	pthread_mutex_unlock(&nq);
	if (sleep)
		nw_sleep(t);
	else
		sched_yield();
	return true;
}

static void wq_wake(const void *chan, uint32_t *nr_queued, unsigned nr_exclusive)
{
	bool all = nr_exclusive == 0;
	uint64_t after = 0;
	int w;

	while ((w = nw_next(chan, NW_HASHED, 0, after)) >= 0) {
		after = nw[w].seq;
		if ((nw[w].flags & NW_EXCLUSIVE) && !all) {
			if (nr_exclusive == 0)
				continue;
			nr_exclusive--;
		}
		nw_del((unsigned)w);
		__atomic_fetch_sub(nr_queued, 1, __ATOMIC_RELAXED);
		nw_wake((unsigned)w);
	}
}

void weft_wake_up(struct weft_wait_queue_head *wq, unsigned nr_exclusive, const struct weft_site *s)
{
	(void)s;
	nq_lock_polled();
	__atomic_fetch_add(&wq->wakes, 1, __ATOMIC_RELAXED);
	wq_wake(wq, &wq->nr_queued, nr_exclusive);
	pthread_mutex_unlock(&nq);
}

bool weft_waitqueue_active(struct weft_wait_queue_head *wq, const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	return LD(wq->nr_queued) != 0;
}

/* ---------------------------------------------------- condition variables */

void weft_cond_init(struct weft_pthread_cond *c, bool spurious, const struct weft_site *s)
{
	(void)s;
	ST(c->wq.wakes, 0);
	ST(c->wq.nr_queued, 0);
	ST(c->spurious, spurious);
}

void weft_cond_wait(struct weft_pthread_cond *c, struct weft_mutex *m, const struct weft_site *s)
{
	unsigned t = me();
	bool spurious;

	weft_native_poll();
	if (!weft_native_in_model()) {
		host_sleeps(c, s);
		return;
	}
	spurious = LD(c->spurious) && weft_choose(2, s);
	pthread_mutex_lock(&nq);
	MIGHT_SLEEP(t, c, s);
	if (!spurious) {
		nw_add(t, c, NW_EXCLUSIVE);
		__atomic_fetch_add(&c->wq.nr_queued, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&nq);
	mutex_release(m, t, true, s);   /* on the list first: no signal is missed */
	if (!spurious)
		nw_sleep(t);
	mutex_acquire(m, t, s);
}

void weft_cond_wake(struct weft_pthread_cond *c, bool all, const struct weft_site *s)
{
	(void)s;
	nq_lock_polled();
	__atomic_fetch_add(&c->wq.wakes, 1, __ATOMIC_RELAXED);
	wq_wake(c, &c->wq.nr_queued, all ? 0 : 1);
	pthread_mutex_unlock(&nq);
}

/* ------------------------------------------------------ bit locks, waits */

bool weft_test_and_set_bit_lock(unsigned nr, unsigned long *addr, const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	return (__atomic_fetch_or(addr, 1ul << nr, __ATOMIC_ACQUIRE) >> nr) & 1ul;
}

void weft_clear_bit_unlock(unsigned nr, unsigned long *addr, const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	__atomic_fetch_and(addr, ~(1ul << nr), __ATOMIC_RELEASE);
}

unsigned long weft_clear_bit_unlock_fetch(unsigned nr, unsigned long *addr,
					  const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	return __atomic_fetch_and(addr, ~(1ul << nr), __ATOMIC_ACQ_REL);
}

void weft_wait_on_bit_waiters(unsigned long *word, unsigned bit, unsigned waiters_bit, bool lock,
			      const struct weft_site *s)
{
	unsigned long b = 1ul << bit;
	unsigned t = me();

	weft_native_poll();
	if (!weft_native_in_model()) {
		if (lock ? (__atomic_fetch_or(word, b, __ATOMIC_ACQUIRE) & b) : (LD(*word) & b))
			host_sleeps(word, s);
		return;
	}
	pthread_mutex_lock(&nq);
	MIGHT_SLEEP(t, word, s);
	__atomic_fetch_or(word, 1ul << waiters_bit, __ATOMIC_SEQ_CST);
	if (lock ? !(__atomic_fetch_or(word, b, __ATOMIC_SEQ_CST) & b) : !(LD(*word) & b)) {
		pthread_mutex_unlock(&nq);
		return;
	}
	nw_add(t, word, lock ? NW_EXCLUSIVE | NW_LOCK : 0);
	nw[t].bit = (uint8_t)bit;
	/* TASK_UNINTERRUPTIBLE until the waker takes it off the list (a
	 * wake_up_process() sends it back to sleep: WQ_FLAG_DONE) */
	while (nw[t].chan == word) {
		ST(nw[t].woken, 0);
		nw[t].task_state = TASK_UNINTERRUPTIBLE;
		pthread_mutex_unlock(&nq);
		nw_sleep(t);     /* a lock waiter is woken holding the bit */
		pthread_mutex_lock(&nq);
	}
	nw[t].flags &= (uint8_t)~NW_GRANTED;
	pthread_mutex_unlock(&nq);
}

void weft_wake_up_bit_waiters(unsigned long *word, unsigned bit, unsigned waiters_bit,
			      const struct weft_site *s)
{
	unsigned long b = 1ul << bit;
	uint64_t after = 0;
	int w;

	(void)s;
	nq_lock_polled();
	while ((w = nw_next(word, NW_HASHED, 0, after)) >= 0) {
		bool excl = nw[w].flags & NW_LOCK;
		after = nw[w].seq;
		if (nw[w].bit != bit)
			continue;
		if (excl) {
			if (__atomic_fetch_or(word, b, __ATOMIC_SEQ_CST) & b)
				break;
			nw[w].flags |= NW_GRANTED;
		}
		nw_del((unsigned)w);
		nw_wake((unsigned)w);
		if (excl)
			break;
	}
	if (nw_next(word, NW_HASHED, 0, 0) < 0)
		__atomic_fetch_and(word, ~(1ul << waiters_bit), __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&nq);
}

/* ------------------------------------------- hashed waits (wait_bit.h) */

void weft_wait_hashed_prepare(void *key, unsigned bit, bool exclusive, int state,
			      const struct weft_site *s)
{
	unsigned t = me();

	if (!nq_lock_in_model())
		return;
	if (nw[t].chan && (nw[t].chan != key || !(nw[t].flags & NW_HASHED) || nw[t].bit != bit)) {
		pthread_mutex_unlock(&nq);
		weft_report(WEFT_KIND_ASSERT, key, s,
			    "T%u prepares to wait on a second wait queue: not modelled", t);
	}
	if (nw[t].chan != key) {
		nw_add(t, key, (uint8_t)(NW_HASHED | (exclusive ? NW_EXCLUSIVE : 0)));
		nw[t].bit = (uint8_t)bit;
	}
	nw[t].task_state = (uint8_t)state;
	pthread_mutex_unlock(&nq);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void weft_wait_hashed_finish(void *key, const struct weft_site *s)
{
	unsigned t = me();

	(void)s;
	if (!nq_lock_in_model())
		return;
	nw[t].task_state = TASK_RUNNING;
	if (nw[t].chan == key && (nw[t].flags & NW_HASHED))
		nw_del(t);
	pthread_mutex_unlock(&nq);
}

void weft_wake_up_hashed(void *key, unsigned bit, const struct weft_site *active,
			 const struct weft_site *wake)
{
	bool exclusive_woken = false;
	uint64_t after = 0;
	int w;

	(void)active;
	(void)wake;
	nq_lock_polled();
	while ((w = nw_next(key, NW_HASHED, NW_HASHED, after)) >= 0) {
		after = nw[w].seq;
		if (nw[w].bit != bit)
			continue;
		if (bit != WEFT_WAIT_VAR_BIT && (LD(*(unsigned long *)key) >> bit & 1ul))
			continue;   /* wake_bit_function(): the bit is set again */
		if (nw[w].flags & NW_EXCLUSIVE) {
			if (exclusive_woken)
				continue;
			exclusive_woken = true;
		}
		nw_del((unsigned)w);
		nw_wake((unsigned)w);
	}
	pthread_mutex_unlock(&nq);
}

/* ------------------------------------------------------ timed sleeps */

void weft_set_current_state(int state, const struct weft_site *s)
{
	(void)s;
	pthread_mutex_lock(&nq);
	nw[me()].task_state = (uint8_t)state;
	pthread_mutex_unlock(&nq);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* schedule_timeout() natively: a short poll for a wake-up (the waker sets
 * TASK_RUNNING), then the timeout (jiffies is virtual here too: as if the
 * whole timeout went by). */
long weft_schedule_timeout(long timeout, const struct weft_site *s)
{
	unsigned t = me();

	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		weft_schedule(s);
		return timeout;
	}
	weft_native_poll();
	for (unsigned spins = 0; spins < 64; spins++) {
		pthread_mutex_lock(&nq);
		bool running = nw[t].task_state == TASK_RUNNING;
		pthread_mutex_unlock(&nq);
		if (running)
			return timeout < 0 ? 0 : timeout;
		sched_yield();
	}
	pthread_mutex_lock(&nq);
	nw[t].task_state = TASK_RUNNING;
	pthread_mutex_unlock(&nq);
	weft_native_jiffies_pass((unsigned long)(timeout < 0 ? 0 : timeout));
	return 0;
}

/* --------------------------------------------------- tasks (native_kthread.c) */

/* try_to_wake_up() of thread tid: TASK_RUNNING and woken if its state is
 * one of `state` */
bool weft_native_task_wake(unsigned tid, unsigned state)
{
	bool woke = false;

	tid %= WEFT_MAX_THREADS;
	pthread_mutex_lock(&nq);
	if (nw[tid].task_state != TASK_RUNNING && (nw[tid].task_state & state)) {
		/* a task in a wait's poll loop is woken, tests its condition
		 * and sleeps again at once, as the kernel's wait loops: its
		 * state stays (a RUNNING left until the loop ends hung a spin on
		 * task_is_running() about once in 100,000 iterations) */
		if (!nw[tid].polls)
			nw_wake(tid);
		woke = true;
	}
	pthread_mutex_unlock(&nq);
	return woke;
}

void weft_native_task_polls(bool asleep)
{
	pthread_mutex_lock(&nq);
	nw[me()].task_state = asleep ? TASK_UNINTERRUPTIBLE : TASK_RUNNING;
	nw[me()].polls = asleep;
	pthread_mutex_unlock(&nq);
}

bool weft_native_task_running(unsigned tid)
{
	pthread_mutex_lock(&nq);
	bool running = nw[tid % WEFT_MAX_THREADS].task_state == TASK_RUNNING;
	pthread_mutex_unlock(&nq);
	return running;
}
