/*
 * sleep.c - the wait lists every sleeping primitive shares, and the
 * sleeping locks: struct mutex (kernel/locking/mutex.c), struct
 * rw_semaphore (rwsem.c) and struct semaphore (semaphore.c), v6.8.
 *
 * Length (~1,320 lines): the wait lists (weft_wl_*, with the task-state
 * helpers every wait shares: weft_wl_block(), weft_wl_wake_all()) and
 * the three sleeping locks on them (mutex, rw_semaphore with its
 * per-reader holds, semaphore), a section each; moving each lock to a
 * file of its own is the next seam (issue 24).
 *
 * Every operation that may sleep calls might_sleep() first (the
 * !TASK_RUNNING warning here, the atomic-context check of context.c);
 * mutexes and rw semaphores are lockdep-lite classes (lockdep.c: acquired
 * at the attempt, released at the unlock, classed by their init site),
 * semaphores are not (nor are they in the kernel: no owner).
 *
 * A waiter is a blocked thread of the scheduler: weft_sched_block() on the
 * object, with a wait class naming the object's owner, so all-asleep is a
 * deadlock when the sleepers wait for owners and a lost wakeup when one
 * waits on an object nobody owns (machine.c, stuck_report()).
 *
 * What the model keeps and leaves out:
 *  - mutex: the owner is checked (unlock by another thread, or of an
 *    unlocked mutex, is bad-unlock; locking a mutex one holds is a
 *    deadlock at once, as lockdep reports recursive locking). Release wakes
 *    the oldest waiter; `--lock tas` leaves the mutex free for whoever runs
 *    first (optimistic stealing), `--lock ticket` hands it to that waiter
 *    (MUTEX_FLAG_HANDOFF). With a waiter queued and no handoff, the
 *    release and the wake-up are two steps (__mutex_unlock_slowpath()
 *    takes the wait_lock after it released the owner word), so freeing
 *    the mutex before the unlocker's wake-up is a use after free; the
 *    pthread form releases in one step. No optimistic spinning, no
 *    lockdep classes.
 *  - rw_semaphore: a reader queues behind a waiting writer (no reader
 *    lock stealing), so a recursive down_read() with a writer waiting
 *    deadlocks; lockdep-lite reports the recursion at once (a deadlock,
 *    as lockdep's "possible recursive locking"), writer or not. A release wakes the oldest waiter
 *    if it is a writer, else grants every waiting reader
 *    (rwsem_mark_wake() since v5.3), in a step of its own after the
 *    release as the mutex's (rwsem_wake()). Trylocks fail while anyone
 *    waits.
 *    up_read() by a thread holding no read lock is bad-unlock (lockdep).
 *  - semaphore: up() hands the count to the oldest waiter (__up()); no
 *    owner: up() by any thread is legal, and a sleeper nobody ups is a
 *    lost wakeup. down_timeout() sleeps in schedule_timeout() (its timer
 *    may fire first: -ETIME).
 *
 * Length: mutex, rwsem and semaphore share the wait lists, the owner and
 * hand-off rules and the lockdep hooks; each is about 200 lines here.
 */
#include <string.h>

#include <weft/kernel.h>
#include <weft/timer.h>

#include "core_state.h"
#include "families.h"
#include "waiters.h"

/* ------------------------------------------------------------ wait lists */

static struct weft_waiter waiters[WEFT_EXEC_MAX_THREADS];
static uint64_t wl_seq;
static uint32_t wl_seq_epoch;

struct weft_waiter *weft_wl_entry(unsigned tid)
{
	struct weft_waiter *w = &waiters[tid];

	if (w->epoch != M.epoch) {
		memset(w, 0, sizeof(*w));
		w->epoch = M.epoch;
	}
	return w;
}

void weft_wl_add(unsigned tid, const void *chan, uint8_t flags)
{
	struct weft_waiter *w = weft_wl_entry(tid);

	if (w->chan == chan)
		return;
	if (wl_seq_epoch != M.epoch) {
		wl_seq_epoch = M.epoch;
		wl_seq = 0;
	}
	w->chan = chan;
	w->flags = flags;
	w->seq = ++wl_seq;
}

void weft_wl_del(unsigned tid)
{
	struct weft_waiter *w = weft_wl_entry(tid);

	w->chan = NULL;
	w->flags &= WL_GRANTED;
}

static inline bool on_list(unsigned tid, const void *chan)
{
	return waiters[tid].epoch == M.epoch && waiters[tid].chan == chan;
}

int weft_wl_next(const void *chan, uint8_t mask, uint8_t want, uint64_t after)
{
	int best = -1;

	for (unsigned i = 0; i < M.nr_threads; i++) {
		const struct weft_waiter *w = &waiters[i];
		if (!on_list(i, chan) || (w->flags & mask) != want || w->seq <= after)
			continue;
		if (best < 0 || w->seq < waiters[best].seq)
			best = (int)i;
	}
	return best;
}

unsigned weft_wl_count(const void *chan, uint8_t mask, uint8_t want)
{
	unsigned n = 0;

	for (unsigned i = 0; i < M.nr_threads; i++)
		n += on_list(i, chan) && (waiters[i].flags & mask) == want;
	return n;
}

/* The threads whose task state a wake-up of step wl_woken_step (of
 * execution wl_woken_epoch) changed to TASK_RUNNING: weft_wl_woken_step()
 * records those writes after the step's own record. */
static uint64_t wl_woken;
static uint32_t wl_woken_step, wl_woken_epoch;

/* try_to_wake_up(): the waker writes the state (a task already running is
 * left as it is, as ttwu_state_match() does, and nothing is written) */
static void task_woken(unsigned tid)
{
	struct weft_waiter *w = weft_wl_entry(tid);

	if (w->task_state == TASK_RUNNING)
		return;
	w->task_state = TASK_RUNNING;
	if (wl_woken_step != M.step || wl_woken_epoch != M.epoch) {
		wl_woken = 0;
		wl_woken_step = M.step;
		wl_woken_epoch = M.epoch;
	}
	wl_woken |= tbit(tid);
}

bool weft_wl_wake(unsigned tid, const void *chan)
{
	task_woken(tid);
	if (M.th[tid].state != T_BLOCKED || M.th[tid].wait_chan != chan)
		return false;
	weft_sched_wake_thread(tid);
	return true;
}

unsigned weft_wl_wake_all(const void *chan, const struct weft_site *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < M.nr_threads; i++)
		if (M.th[i].state == T_BLOCKED && M.th[i].wait_chan == chan)
			n += weft_wl_wake(i, chan);
	weft_wl_woken_step(s);
	return n;
}

void weft_wl_woken_step(const struct weft_site *s)
{
	if (!wl_woken || wl_woken_step != M.step || wl_woken_epoch != M.epoch)
		return;
	for (uint64_t m = wl_woken; m; m &= m - 1)
		weft_sched_step(WEFT_DEP_WRITE, weft_task_state_loc(lowest(m)), 1, 0,
				s);
	wl_woken = 0;
}

void weft_wl_step(unsigned kind, uint32_t loc, uint32_t size, const struct weft_site *s)
{
	weft_sched_step(kind, loc, size, 0, s);
	weft_wl_woken_step(s);
}

void weft_wl_task_sleeps(const struct weft_site *s)
{
	struct weft_waiter *w = weft_wl_entry((unsigned)M.cur);

	if (w->task_state != TASK_RUNNING)
		return;
	w->task_state = TASK_UNINTERRUPTIBLE;
	w->flags &= (uint8_t)~WL_TASK_WOKEN;
	weft_sched_step(WEFT_DEP_WRITE, weft_task_state_loc((unsigned)M.cur), 1, 0, s);
}

void weft_wl_block(const void *chan, const struct weft_wait_class *wc, const struct weft_site *s)
{
	weft_wl_task_sleeps(s);
	weft_sched_block(chan, wc, s);
}

void weft_wl_sleep(const void *chan, uint32_t size, const struct weft_wait_class *wc,
		   uint64_t holder, const struct weft_site *s)
{
	uint32_t loc = loc_of(chan);

	weft_trace(WEFT_EV_WAIT, loc, holder, 0, s);
	weft_sched_step(WEFT_DEP_BLOCKED, loc, size, 0, s);
	if (M.fb)
		fb_hit(0x5700000000000000ull ^ site_id(s));
	/* schedule() comes here with the state its caller set; every other
	 * wait loop (the sleeping locks', do_wait_for_common(),
	 * folio_wait_bit_common(), a futex's) sets it itself before it
	 * sleeps, set_current_state(TASK_UNINTERRUPTIBLE) (the _killable and
	 * _interruptible forms' states differ only for signals, which are
	 * not modelled). The waker's weft_wl_wake() makes it TASK_RUNNING. */
	weft_wl_block(chan, wc, s);
	weft_tsan_acquire(chan);
	/* running again: what it does now is the next step */
	if (++M.step > M.step_budget)
		weft_sched_livelock("step budget exhausted");
}

uint32_t weft_wl_wait_turn(void *obj, uint32_t size, uint32_t *nr_waiters, uint8_t flags,
			   const struct weft_wait_class *wc, uint64_t holder, const struct weft_site *s)
{
	unsigned me = (unsigned)M.cur;

	if (!on_list(me, obj)) {
		weft_wl_add(me, obj, flags);
		(*nr_waiters)++;
	}
	weft_wl_sleep(obj, size, wc, holder, s);
	return obj_loc(obj, size, s);
}

void weft_wl_taken(void *obj, uint32_t *nr_waiters)
{
	if (on_list((unsigned)M.cur, obj)) {
		weft_wl_del((unsigned)M.cur);
		(*nr_waiters)--;
	}
}

void weft_wl_trace_wake(const void *chan, uint64_t mask, unsigned n, const struct weft_site *s)
{
	weft_trace(WEFT_EV_WAKE, loc_of(chan), mask, n, s);
	if (M.fb)
		fb_hit(0x5800000000000000ull ^ (uint64_t)n << 40 ^ site_id(s));
}

void weft_wl_might_sleep(const void *chan, const struct weft_site *s)
{
	struct weft_waiter *w = weft_wl_entry((unsigned)M.cur);

	/* __might_sleep(): the task-state warning, then ___might_sleep()'s
	 * atomic-context check (context.c) */
	if (w->task_state != TASK_RUNNING)
		weft_report(WEFT_KIND_WARN_ON, chan, s,
			    "do not call blocking ops when !TASK_RUNNING: T%d is between "
			    "prepare_to_wait() and schedule() (state %u)", M.cur, w->task_state);
	weft_might_sleep(s);
	if (w->chan && w->chan != chan)
		weft_report(WEFT_KIND_ASSERT, chan, s,
			    "T%d would wait on two wait lists at once (it is still on another "
			    "object's list): not modelled", M.cur);
}

void weft_wl_host_sleeps(const void *obj, const struct weft_site *s)
{
	weft_report(WEFT_KIND_ASSERT, obj, s,
		    "%s from setup or an audit would sleep: no thread runs there to wake it",
		    s->what);
}

/* --------------------------------------------------------- bit-lock holders */

/* The bit locks held in this execution: slot i is held iff bit i of
 * live_mask() is set. Every scan walks the held slots in slot order (a
 * word written after a bit lock was taken pays for the held ones only,
 * not for the table). */
static struct bitlock {
	uint32_t loc;
	uint8_t bit, tid;
} bitlocks[32];
static uint32_t bitlocks_live;
static uint32_t bitlocks_epoch;   /* the execution bitlocks_live is of */

static uint32_t live_mask(void)
{
	return bitlocks_epoch == M.epoch ? bitlocks_live : 0;
}

static void bitlock_written(uint32_t loc, uint64_t word);

void weft_bitlock_set(uint32_t loc, unsigned bit, unsigned tid)
{
	uint32_t live;

	if (loc == WEFT_NO_LOC)
		return;
	M.word_written = bitlock_written;   /* for this execution */
	live = live_mask();
	for (uint32_t m = live; m; m &= m - 1) {
		struct bitlock *b = &bitlocks[__builtin_ctz(m)];
		if (b->loc == loc && b->bit == bit) {
			b->tid = (uint8_t)tid;
			return;
		}
	}
	/* more bit locks held at once than the table holds: the owner is
	 * unknown (a deadlock among them reads as a lost wakeup) */
	if (live == UINT32_MAX)
		return;
	unsigned i = (unsigned)__builtin_ctz(~live);
	bitlocks[i] = (struct bitlock){ loc, (uint8_t)bit, (uint8_t)tid };
	bitlocks_live = live | 1u << i;
	bitlocks_epoch = M.epoch;
}

/* Let go of the held bit locks at loc: of bit (bit >= 0), or (bit < 0)
 * of every bit that word has clear. */
static void bitlocks_release(uint32_t loc, int bit, uint64_t word)
{
	uint32_t live = live_mask();

	for (uint32_t m = live; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		const struct bitlock *b = &bitlocks[i];
		if (b->loc == loc && (bit >= 0 ? b->bit == (unsigned)bit : !(word >> b->bit & 1)))
			live &= ~(1u << i);
	}
	bitlocks_live = live;
}

void weft_bitlock_clear(uint32_t loc, unsigned bit)
{
	bitlocks_release(loc, (int)bit, 0);
}

int weft_bitlock_holder_bit(uint32_t loc, unsigned bit)
{
	for (uint32_t m = live_mask(); m; m &= m - 1) {
		const struct bitlock *b = &bitlocks[__builtin_ctz(m)];
		if (b->loc == loc && b->bit == bit)
			return b->tid;
	}
	return -1;
}

/* A store changed the word at loc: a holder whose bit it cleared let go. */
static void bitlock_written(uint32_t loc, uint64_t word)
{
	if (live_mask())
		bitlocks_release(loc, -1, word);
}

int weft_bitlock_holder(uint32_t loc)
{
	for (uint32_t m = live_mask(); m; m &= m - 1) {
		const struct bitlock *b = &bitlocks[__builtin_ctz(m)];
		if (b->loc == loc)
			return b->tid;
	}
	return -1;
}

/* ------------------------------------------------------------------ mutex */

static int owner_tid(uint32_t owner)
{
	return owner == WEFT_HOST_OWNER ? WEFT_OWNER_HOST
	       : owner == 0 || owner > WEFT_EXEC_MAX_THREADS ? -1 : (int)owner - 1;
}

static int mutex_owner(const void *chan)
{
	return owner_tid(((const struct weft_mutex *)chan)->owner);
}

/* Would tid sleep in mutex_lock() now? Not if the mutex was handed to it. */
static bool mutex_busy(const void *chan, unsigned tid)
{
	uint32_t o = ((const struct weft_mutex *)chan)->owner;

	return o != 0 && o != tid + 1;
}

static const struct weft_wait_class mutex_class = WL_CLASS("mutex", true, mutex_owner, mutex_busy);

/* mutex_lock()'s test: handed over by the unlock, or free (taken). */
static bool mutex_take(struct weft_mutex *m, uint32_t me)
{
	if (m->owner == me)
		return true;
	if (m->owner)
		return false;
	m->owner = me;
	weft_wl_taken(m, &m->nr_waiters);
	return true;
}

void weft_mutex_init(struct weft_mutex *m, const struct weft_site *s)
{
	uint32_t loc, old;

	if (M.cur < 0 && !in_world(m, sizeof(*m), s))
		return;
	weft_lockdep_init(m, s);   /* the lock class: this init site */
	if (M.cur < 0) {
		m->owner = 0;
		m->nr_waiters = 0;
		return;
	}
	sched_point_at(s, m, sizeof(*m), NULL);
	loc = obj_loc(m, sizeof(*m), s);
	if (m->owner || weft_wl_count(m, 0, 0))
		weft_report(WEFT_KIND_ASSERT, m, s, "mutex_init of a mutex in use (held by T%d)",
			    owner_tid(m->owner));
	old = m->owner;
	m->owner = 0;
	m->nr_waiters = 0;
	weft_trace(WEFT_EV_WRITE, loc, old, 0, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(*m), 0, s);
	obj_written(loc, s);
}

/* The lock operation of this step: takes m or sleeps until it can. */
void weft_mutex_acquire(struct weft_mutex *m, const struct weft_site *s)
{
	uint32_t loc = obj_loc(m, sizeof(*m), s), me = (uint32_t)M.cur + 1;

	if (m->owner == me)
		weft_report(WEFT_KIND_DEADLOCK, m, s,
			    "T%d locks a mutex it already holds (recursive locking)", M.cur);
	if (weft_lockdep_on)
		weft_lockdep_acquire(m, false, s);   /* at the attempt, as mutex_acquire() */
	while (!mutex_take(m, me))
		loc = weft_wl_wait_turn(m, sizeof(*m), &m->nr_waiters, 0, &mutex_class, m->owner, s);
	weft_wl_entry((unsigned)M.cur)->flags &= (uint8_t)~WL_GRANTED;
	weft_tsan_acquire(m);
	weft_trace(WEFT_EV_LOCK, loc, 0, me, s);
	weft_sched_step(WEFT_DEP_ACQUIRE, loc, sizeof(*m), 0, s);
	obj_written(loc, s);
	if (M.fb)
		fb_hit(0x4d00000000000000ull ^ site_id(s));
}

void weft_mutex_lock(struct weft_mutex *m, const struct weft_site *s)
{
	if (M.cur < 0 && !in_world(m, sizeof(*m), s))
		return;
	if (M.cur < 0) {
		if (m->owner)
			weft_wl_host_sleeps(m, s);
		else
			m->owner = WEFT_HOST_OWNER;
		return;
	}
	sched_point_at(s, m, sizeof(*m), &mutex_class);
	weft_wl_might_sleep(m, s);
	weft_mutex_acquire(m, s);
}

/* After an attempt on the lock-like obj at loc: a success is an acquire
 * (for the race detector, and, where observe, for weak memory: a trylock's
 * acquire orders itself, memory.c); a failure flags the coming event. */
static void try_outcome(const void *obj, uint32_t loc, bool ok, bool observe,
			const struct weft_site *s)
{
	if (ok) {
		weft_tsan_acquire(obj);
		obj_written(loc, s);
		if (observe && __builtin_expect(weft_mem_weak, 0))
			weft_mem_observe_lock(obj, true);
	} else {
		M.next_flags |= WEFT_EVF_FAILED;
	}
}

bool weft_mutex_trylock(struct weft_mutex *m, const struct weft_site *s)
{
	uint32_t loc;
	bool ok;

	if (M.cur < 0 && !in_world(m, sizeof(*m), s))
		return false;
	if (M.cur < 0) {
		ok = m->owner == 0;
		if (ok)
			m->owner = WEFT_HOST_OWNER;
		return ok;
	}
	sched_point_at(s, m, sizeof(*m), NULL);
	loc = obj_loc(m, sizeof(*m), s);
	ok = m->owner == 0;
	if (ok) {
		if (weft_lockdep_on)
			weft_lockdep_acquire(m, true, s);
		m->owner = (uint32_t)M.cur + 1;
	}
	try_outcome(m, loc, ok, true, s);
	weft_trace(WEFT_EV_TRYLOCK, loc, ok, m->owner, s);
	weft_sched_step(ok ? WEFT_DEP_ACQUIRE : WEFT_DEP_READ, loc, sizeof(*m), 0, s);
	return ok;
}

/* The start of an unlock of m by the current thread: lockdep's release
 * (mutex_release(), first in the kernel) and the owner check. */
static void mutex_unlock_check(struct weft_mutex *m, uint32_t me, const struct weft_site *s)
{
	if (weft_lockdep_on)
		weft_lockdep_release(m, s);   /* bad-unlock if not held */
	if (m->owner != me) {
		if (m->owner == 0)
			weft_report(WEFT_KIND_BAD_UNLOCK, m, s,
				    "T%d unlocks a mutex that is not locked", M.cur);
		else if (m->owner == WEFT_HOST_OWNER)
			weft_report(WEFT_KIND_BAD_UNLOCK, m, s,
				    "T%d unlocks a mutex setup locked (mutexes are released "
				    "by their owner)", M.cur);
		else
			weft_report(WEFT_KIND_BAD_UNLOCK, m, s,
				    "T%d unlocks a mutex held by T%d (mutexes are released by "
				    "their owner)", M.cur, owner_tid(m->owner));
	}
}

/* The release of this step: checks the owner, frees or hands m over and
 * wakes the oldest waiter (UNLOCK and WAKE events, no dependence record:
 * the caller's). One step: pthread_mutex_unlock() and the release of
 * pthread_cond_wait() (POSIX lets the last user destroy a mutex it has
 * just unlocked), and mutex_unlock() where nothing touches the mutex after
 * its release (weft_mutex_unlock()). */
void weft_mutex_release(struct weft_mutex *m, const struct weft_site *s)
{
	uint32_t loc = obj_loc(m, sizeof(*m), s), me = (uint32_t)M.cur + 1;
	uint64_t mask = 0;
	int w;

	mutex_unlock_check(m, me, s);
	weft_tsan_release(m);
	m->owner = 0;
	w = weft_wl_first(m, 0, 0);
	if (w >= 0) {
		if (M.o->lock == WEFT_LOCK_TICKET) {
			m->owner = (uint32_t)w + 1;
			weft_wl_del((unsigned)w);
			weft_wl_entry((unsigned)w)->flags |= WL_GRANTED;
			m->nr_waiters--;
		}
		if (weft_wl_wake((unsigned)w, m))
			mask = tbit((unsigned)w);
	}
	weft_trace(WEFT_EV_UNLOCK, loc, me, m->owner, s);
	if (mask)
		weft_wl_trace_wake(m, mask, 1, s);
	obj_written(loc, s);
}

void weft_mutex_unlock_posix(struct weft_mutex *m, const struct weft_site *s)
{
	if (M.cur < 0 && !in_world(m, sizeof(*m), s))
		return;
	if (M.cur < 0) {
		m->owner = 0;
		return;
	}
	sched_point_at(s, m, sizeof(*m), NULL);
	weft_mutex_release(m, s);
	weft_wl_step(WEFT_DEP_RELEASE, loc_of(m), sizeof(*m), s);
}

/*
 * mutex_unlock() (v6.12). Without waiters, __mutex_unlock_fast()'s one
 * cmpxchg of the owner to 0 is all it does: one step. With waiters,
 * __mutex_unlock_slowpath() releases the owner word first (keeping its
 * flags) and only then takes lock->wait_lock to wake the first waiter:
 * two steps, between which another thread may take the mutex (it is
 * free), unlock it and, as the last user, free it; the second step's
 * access to m is then a use after free (Documentation/locking/
 * mutex-design.rst: mutex_unlock() may touch the mutex after it has
 * released it). A handoff (--lock ticket, MUTEX_FLAG_HANDOFF) does not
 * release before the wait_lock: the owner becomes the waiter inside it,
 * and that waiter runs only once woken after it, so it stays one step.
 */
void weft_mutex_unlock(struct weft_mutex *m, const struct weft_site *s)
{
	uint32_t loc, me = (uint32_t)M.cur + 1;
	uint64_t mask = 0;
	int w;

	if (M.cur < 0) {
		weft_mutex_unlock_posix(m, s);
		return;
	}
	sched_point_at(s, m, sizeof(*m), NULL);
	if (M.o->lock == WEFT_LOCK_TICKET || weft_wl_first(m, 0, 0) < 0) {
		weft_mutex_release(m, s);
		weft_wl_step(WEFT_DEP_RELEASE, loc_of(m), sizeof(*m), s);
		return;
	}
	/* the release: the owner word, the waiters flag kept */
	loc = obj_loc(m, sizeof(*m), s);
	mutex_unlock_check(m, me, s);
	weft_tsan_release(m);
	m->owner = 0;
	weft_trace(WEFT_EV_UNLOCK, loc, me, 0, s);
	weft_sched_step(WEFT_DEP_RELEASE, loc, sizeof(*m), 0, s);
	obj_written(loc, s);
	/* a step of its own: the wait_lock section wakes the first waiter
	 * (whoever it is now), a write of the mutex, checked for a free */
	sched_point_at(s, m, sizeof(*m), NULL);
	loc = obj_loc(m, sizeof(*m), s);
	w = weft_wl_first(m, 0, 0);
	if (w >= 0 && weft_wl_wake((unsigned)w, m))
		mask = tbit((unsigned)w);
	/* n 1 with no mask: the first waiter was woken already (by another
	 * unlocker's wake-up) and has not run yet */
	weft_wl_trace_wake(m, mask, w >= 0, s);
	weft_tsan_release(m);   /* raw_spin_unlock(&lock->wait_lock) */
	weft_wl_step(WEFT_DEP_WRITE, loc, sizeof(*m), s);
	obj_written(loc, s);
}

bool weft_wl_query(const void *obj, uint32_t size, const uint32_t *word,
		   const struct weft_site *s)
{
	uint32_t loc;

	if (M.cur < 0)
		return in_world(obj, size, s) && *word != 0;
	sched_point_at(s, obj, size, NULL);
	loc = obj_loc(obj, size, s);
	weft_trace(WEFT_EV_READ, loc, *word, *word, s);
	weft_sched_step(WEFT_DEP_READ, loc, size, 0, s);
	return *word != 0;
}

bool weft_mutex_is_locked(struct weft_mutex *m, const struct weft_site *s)
{
	return weft_wl_query(m, sizeof(*m), &m->owner, s);
}

/* ------------------------------------------------------------------ rwsem */

_Static_assert(WEFT_MAX_THREADS <= 16, "rw_semaphore.held has 2 bits per thread");

/*
 * Each thread's read holds of each rw_semaphore, exactly. r->held, the
 * public struct's summary (2 bits a thread), saturates at 3: a thread that
 * nested down_read() three deep and left would hold the rwsem for ever in
 * the owner checks (a false "already holds" deadlock at its next
 * down_write(), a sleeper's owner that holds nothing). One entry per
 * (rwsem, thread) with holds in this execution; an execution that holds
 * more at once than the table has falls back to the summary.
 */
static struct weft_hold read_holds[64];
static uint32_t read_holds_full_epoch;

struct weft_hold *weft_hold_find(struct weft_hold *table, unsigned n, const void *obj,
				 unsigned tid, bool make, uint32_t *full_epoch)
{
	struct weft_hold *free_slot = NULL;

	for (unsigned i = 0; i < n; i++) {
		struct weft_hold *h = &table[i];
		if (h->epoch != M.epoch || !h->depth) {
			if (!free_slot)
				free_slot = h;
			continue;
		}
		if (h->obj == obj && h->tid == tid)
			return h;
	}
	if (!make)
		return NULL;
	if (!free_slot) {
		if (full_epoch)
			*full_epoch = M.epoch;
		return NULL;
	}
	*free_slot = (struct weft_hold){ M.epoch, obj, 0, (uint8_t)tid };
	return free_slot;
}

static struct weft_hold *read_hold(const struct weft_rw_semaphore *r, unsigned tid, bool make)
{
	return weft_hold_find(read_holds, sizeof(read_holds) / sizeof(read_holds[0]), r, tid, make,
			      &read_holds_full_epoch);
}

static inline unsigned held_of(const struct weft_rw_semaphore *r, unsigned tid)
{
	if (tid >= WEFT_MAX_THREADS)
		return 0;
	const struct weft_hold *h = read_hold(r, tid, false);

	if (h)
		return h->depth;
	return read_holds_full_epoch == M.epoch ? weft_held_summary(r->held, tid) : 0;
}

static struct weft_site held_limit_site = { __FILE__, "held_add",
	"rw_semaphore read hold by a thread numbered 16 or more", __LINE__, WEFT_EV_NOTE, 0,
	WEFT_SITE_SC };

static inline void held_add(struct weft_rw_semaphore *r, unsigned tid, int d)
{
	if (tid >= WEFT_MAX_THREADS) {
		/* the read holds live in the rwsem (2 bits a thread, in the
		 * world): a limit, said plainly rather than a wrong verdict */
		weft_report(WEFT_KIND_ASSERT, r, &held_limit_site,
			    "T%u takes an rw_semaphore for read: read holds are tracked for "
			    "threads 0..%d only (WEFT_MAX_THREADS)", tid, WEFT_MAX_THREADS - 1);
		return;
	}
	struct weft_hold *x = read_hold(r, tid, d > 0);

	if (x && (d > 0 || x->depth))
		x->depth += (uint32_t)d;
	r->held = weft_held_summary_add(r->held, tid, d);   /* read_holds has the depth */
}

/* The last read hold of r is gone. */
static void held_clear(struct weft_rw_semaphore *r)
{
	r->held = 0;
	for (unsigned i = 0; i < sizeof(read_holds) / sizeof(read_holds[0]); i++)
		if (read_holds[i].epoch == M.epoch && read_holds[i].obj == r)
			read_holds[i].depth = 0;
}

static int rwsem_owner(const void *chan)
{
	const struct weft_rw_semaphore *r = chan;

	if (r->writer)
		return owner_tid(r->writer);
	for (unsigned t = 0; t < M.nr_threads; t++)
		if (held_of(r, t))
			return (int)t;
	return -1;
}

static bool rwsem_read_busy(const void *chan, unsigned tid)
{
	const struct weft_rw_semaphore *r = chan;

	if (weft_wl_entry(tid)->flags & WL_GRANTED)
		return false;
	return r->writer || weft_wl_count(r, WL_WRITE, WL_WRITE);
}

static bool rwsem_write_busy(const void *chan, unsigned tid)
{
	const struct weft_rw_semaphore *r = chan;

	return r->writer != tid + 1 && (r->writer || r->readers);
}

static const struct weft_wait_class rwsem_read_class =
	WL_CLASS("rw_semaphore", true, rwsem_owner, rwsem_read_busy);

static const struct weft_wait_class rwsem_write_class =
	WL_CLASS("rw_semaphore", true, rwsem_owner, rwsem_write_busy);

static uint64_t rwsem_holder(const struct weft_rw_semaphore *r)
{
	int o = rwsem_owner(r);

	return o < 0 ? 0 : (uint64_t)o + 1;
}

/* rwsem_wake(): the oldest waiter if it is a writer and r is free; else
 * every waiting reader (granted here). Returns the mask woken. */
static uint64_t rwsem_wake(struct weft_rw_semaphore *r)
{
	uint64_t mask = 0;
	int w = weft_wl_first(r, 0, 0);

	if (w < 0)
		return 0;
	if (weft_wl_entry((unsigned)w)->flags & WL_WRITE) {
		if (r->writer || r->readers)
			return 0;
		if (M.o->lock == WEFT_LOCK_TICKET) {
			r->writer = (uint32_t)w + 1;
			weft_wl_del((unsigned)w);
			weft_wl_entry((unsigned)w)->flags |= WL_GRANTED;
			r->nr_waiters--;
		}
		return weft_wl_wake((unsigned)w, r) ? 1u << w : 0;
	}
	if (r->writer)
		return 0;
	while ((w = weft_wl_first(r, WL_WRITE, 0)) >= 0) {
		r->readers++;
		held_add(r, (unsigned)w, 1);
		weft_wl_del((unsigned)w);
		weft_wl_entry((unsigned)w)->flags |= WL_GRANTED;
		r->nr_waiters--;
		if (weft_wl_wake((unsigned)w, r))
			mask |= tbit((unsigned)w);
	}
	return mask;
}

/* The scheduling point of an rwsem operation at s that does not block,
 * then r's location (checked for use after free). */
static uint32_t rwsem_point(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	sched_point_at(s, r, sizeof(*r), NULL);
	return obj_loc(r, sizeof(*r), s);
}

void weft_init_rwsem(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	uint32_t loc;

	weft_lockdep_init(r, s);
	if (M.cur < 0 && !in_world(r, sizeof(*r), s))
		return;
	if (M.cur < 0) {
		memset(r, 0, sizeof(*r));
		return;
	}
	loc = rwsem_point(r, s);
	if (r->writer || r->readers || weft_wl_count(r, 0, 0))
		weft_report(WEFT_KIND_ASSERT, r, s, "init_rwsem of an rw_semaphore in use");
	weft_trace(WEFT_EV_WRITE, loc, r->writer, 0, s);
	memset(r, 0, sizeof(*r));
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(*r), 0, s);
	obj_written(loc, s);
}

/* What a trace event says of r: readers << 16 | writer. */
static inline uint64_t rw_state(const struct weft_rw_semaphore *r)
{
	return (uint64_t)r->readers << 16 | r->writer;
}

static void rwsem_taken(struct weft_rw_semaphore *r, uint32_t loc, bool ok, unsigned ev,
			const struct weft_site *s)
{
	try_outcome(r, loc, ok, ev == WEFT_EV_TRYLOCK, s);
	weft_trace(ev, loc, ev == WEFT_EV_TRYLOCK ? ok : 0, rw_state(r), s);
	weft_sched_step(ok ? WEFT_DEP_ACQUIRE : WEFT_DEP_READ, loc, sizeof(*r), 0, s);
}

/* down_read()'s test: counted in by a release (WL_GRANTED), or no writer
 * holds or waits (taken). */
static bool rwsem_read_take(struct weft_rw_semaphore *r, unsigned me)
{
	if (weft_wl_entry(me)->flags & WL_GRANTED)
		return true;
	if (r->writer || weft_wl_count(r, WL_WRITE, WL_WRITE))
		return false;
	r->readers++;
	held_add(r, me, 1);
	return true;
}

/* down_write()'s test: handed over by the release, or free (taken). */
static bool rwsem_write_take(struct weft_rw_semaphore *r, unsigned me)
{
	if (r->writer == me + 1)
		return true;
	if (r->writer || r->readers)
		return false;
	r->writer = me + 1;
	weft_wl_taken(r, &r->nr_waiters);
	return true;
}

/* down_read() and down_write(): the wait loop, written once. */
static void rwsem_down(struct weft_rw_semaphore *r, bool write, const struct weft_site *s)
{
	const struct weft_wait_class *wc = write ? &rwsem_write_class : &rwsem_read_class;
	unsigned me = (unsigned)M.cur;
	uint32_t loc;

	if (M.cur < 0 && !in_world(r, sizeof(*r), s))
		return;
	if (M.cur < 0) {
		if (r->writer || (write && r->readers))
			weft_wl_host_sleeps(r, s);
		else if (write)
			r->writer = WEFT_HOST_OWNER;
		else
			r->readers++;
		return;
	}
	sched_point_at(s, r, sizeof(*r), wc);
	weft_wl_might_sleep(r, s);
	loc = obj_loc(r, sizeof(*r), s);
	if (write && (r->writer == me + 1 || held_of(r, me)))
		weft_report(WEFT_KIND_DEADLOCK, r, s,
			    "T%u takes an rw_semaphore for write that it already holds", me);
	/* down_read() is not a recursive read for lockdep (read=1): a second
	 * one deadlocks once a down_write() queues between the two, which
	 * lockdep reports at once (check_deadlock(): "possible recursive
	 * locking") */
	if (!write && weft_lockdep_held_reads && (r->writer == me + 1 || held_of(r, me)))
		weft_report(WEFT_KIND_DEADLOCK, r, s,
			    "T%u takes an rw_semaphore for read that it already holds: possible "
			    "recursive locking (a down_write() between the two waits for the "
			    "first, and the second waits behind it)", me);
	if (weft_lockdep_on)
		weft_lockdep_acquire(r, false, s);
	while (!(write ? rwsem_write_take(r, me) : rwsem_read_take(r, me)))
		loc = weft_wl_wait_turn(r, sizeof(*r), &r->nr_waiters, write ? WL_WRITE : 0, wc,
				   rwsem_holder(r), s);
	weft_wl_entry(me)->flags &= (uint8_t)~WL_GRANTED;
	rwsem_taken(r, loc, true, WEFT_EV_LOCK, s);
}

/* down_read_trylock() and down_write_trylock(): free of writers (and of
 * readers, for write) and of waiters. */
static int rwsem_trylock(struct weft_rw_semaphore *r, bool write, const struct weft_site *s)
{
	uint32_t loc;
	bool ok;

	if (M.cur < 0 && !in_world(r, sizeof(*r), s))
		return 0;
	if (M.cur < 0) {
		ok = !r->writer && !(write && r->readers);
		if (write && ok)
			r->writer = WEFT_HOST_OWNER;
		else if (!write)
			r->readers += ok;
		return ok;
	}
	loc = rwsem_point(r, s);
	ok = !r->writer && !(write && r->readers) && !weft_wl_count(r, 0, 0);
	if (ok) {
		if (weft_lockdep_on)
			weft_lockdep_acquire(r, true, s);
		if (write) {
			r->writer = (uint32_t)M.cur + 1;
		} else {
			r->readers++;
			held_add(r, (unsigned)M.cur, 1);
		}
	}
	rwsem_taken(r, loc, ok, WEFT_EV_TRYLOCK, s);
	return ok;
}

void weft_down_read(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_down(r, false, s);
}

int weft_down_read_trylock(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	return rwsem_trylock(r, false, s);
}

void weft_down_write(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_down(r, true, s);
}

int weft_down_write_trylock(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	return rwsem_trylock(r, true, s);
}

/* The start of a release's update of r: r's state before it (for the
 * trace), and the release edge for the race detector. */
static uint64_t rwsem_releasing(struct weft_rw_semaphore *r)
{
	uint64_t old = rw_state(r);

	weft_tsan_release(r);
	return old;
}

static void rwsem_released(struct weft_rw_semaphore *r, uint32_t loc, uint64_t old,
			   uint64_t mask, const struct weft_site *s)
{
	weft_trace(WEFT_EV_UNLOCK, loc, old, rw_state(r), s);
	if (mask)
		weft_wl_trace_wake(r, mask, (unsigned)__builtin_popcountll(mask), s);
	weft_wl_step(WEFT_DEP_RELEASE, loc, sizeof(*r), s);
	obj_written(loc, s);
}

/*
 * The end of an up_read() or up_write() that leaves r free with waiters
 * (v6.12 __up_read(), __up_write()): the release (the count's atomic add)
 * is one step; rwsem_wake(), which takes r->wait_lock and wakes or grants
 * the waiters at the head of the list, is a step of its own, a write of r
 * checked for a free: another CPU may take r in between (it is free),
 * release it and free it as its last user. Preemption stays disabled
 * from one to the other, as the kernel's does. A handoff (--lock ticket)
 * reserves r for the waiter it wakes, which no other thread can take in
 * between: there it stays one step.
 */
static void rwsem_release_then_wake(struct weft_rw_semaphore *r, uint32_t loc, uint64_t old,
				    const struct weft_site *s)
{
	uint64_t mask;

	rwsem_released(r, loc, old, 0, s);
	weft_ctx_preempt_inc();
	sched_point_at(s, r, sizeof(*r), NULL);
	loc = obj_loc(r, sizeof(*r), s);
	mask = rwsem_wake(r);
	unsigned n = (unsigned)__builtin_popcountll(mask);
	/* no one woken with waiters queued: r taken again since the release,
	 * or its first waiter (a writer) woken already and not run yet */
	if (!mask && weft_wl_first(r, 0, 0) >= 0)
		n = r->writer || r->readers ? WEFT_WAKE_HELD_AGAIN : 1;
	weft_wl_trace_wake(r, mask, n, s);
	weft_tsan_release(r);   /* raw_spin_unlock_irqrestore(&sem->wait_lock) */
	weft_wl_step(WEFT_DEP_WRITE, loc, sizeof(*r), s);
	obj_written(loc, s);
	weft_ctx_preempt_dec();
}

/* Whether a release that left r free wakes in a step of its own. */
static bool rwsem_wakes_later(const struct weft_rw_semaphore *r, bool whole)
{
	return !whole && M.o->lock != WEFT_LOCK_TICKET && weft_wl_first(r, 0, 0) >= 0;
}

/* up_read(); whole: in one step (pthread_rwlock_unlock()) */
static void rwsem_up_read(struct weft_rw_semaphore *r, bool whole, const struct weft_site *s)
{
	unsigned me = (unsigned)M.cur;
	uint32_t loc;
	uint64_t mask = 0;
	uint64_t old;

	if (M.cur < 0 && !in_world(r, sizeof(*r), s))
		return;
	if (M.cur < 0) {
		if (r->readers)
			r->readers--;
		return;
	}
	loc = rwsem_point(r, s);
	if (weft_lockdep_on)
		weft_lockdep_release(r, s);
	if (!held_of(r, me) || !r->readers)
		weft_report(WEFT_KIND_BAD_UNLOCK, r, s,
			    "T%u releases a read lock of an rw_semaphore it does not hold for "
			    "read (%u readers, writer T%d)", me, r->readers, owner_tid(r->writer));
	old = rwsem_releasing(r);
	r->readers--;
	held_add(r, me, -1);
	if (r->readers == 0) {
		held_clear(r);
		if (rwsem_wakes_later(r, whole)) {
			rwsem_release_then_wake(r, loc, old, s);
			return;
		}
		mask = rwsem_wake(r);
	}
	rwsem_released(r, loc, old, mask, s);
}

void weft_up_read(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_up_read(r, false, s);
}

void weft_up_read_posix(struct weft_rw_semaphore *r, const struct weft_site *s)
{
	rwsem_up_read(r, true, s);
}

/* up_write() and downgrade_write(), which keeps a read lock: either lets
 * the head of the wait list in (downgrade: only waiting readers). whole:
 * in one step (downgrade_write(), whose caller still holds r for read,
 * and pthread_rwlock_unlock()). */
static void rwsem_write_release(struct weft_rw_semaphore *r, bool downgrade, bool whole,
				const struct weft_site *s)
{
	unsigned me = (unsigned)M.cur;
	uint32_t loc;
	uint64_t old;

	if (M.cur < 0 && !in_world(r, sizeof(*r), s))
		return;
	if (M.cur < 0) {
		r->writer = 0;
		r->readers += downgrade;
		return;
	}
	loc = rwsem_point(r, s);
	if (!downgrade && weft_lockdep_on)
		weft_lockdep_release(r, s);
	if (r->writer != me + 1 && downgrade)
		weft_report(WEFT_KIND_BAD_UNLOCK, r, s,
			    "T%u downgrades an rw_semaphore it does not hold for write", me);
	else if (r->writer != me + 1)
		weft_report(WEFT_KIND_BAD_UNLOCK, r, s,
			    "T%u releases the write lock of an rw_semaphore %s", me,
			    r->writer ? "another thread holds" : "nobody holds for write");
	old = rwsem_releasing(r);
	r->writer = 0;
	if (downgrade) {
		r->readers++;
		held_add(r, me, 1);
	}
	if (!downgrade && rwsem_wakes_later(r, whole))
		rwsem_release_then_wake(r, loc, old, s);
	else
		rwsem_released(r, loc, old, rwsem_wake(r), s);
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

static int no_owner(const void *chan)
{
	(void)chan;
	return -1;
}

static bool sem_busy(const void *chan, unsigned tid)
{
	return ((const struct weft_semaphore *)chan)->count == 0 &&
	       !(weft_wl_entry(tid)->flags & WL_GRANTED);
}

static const struct weft_wait_class sem_class = WL_CLASS("semaphore", true, no_owner, sem_busy);

void weft_sema_init(struct weft_semaphore *sem, unsigned val, const struct weft_site *s)
{
	uint32_t loc, old;

	if (M.cur < 0 && !in_world(sem, sizeof(*sem), s))
		return;
	if (M.cur < 0) {
		sem->count = val;
		sem->nr_waiters = 0;
		return;
	}
	sched_point_at(s, sem, sizeof(*sem), NULL);
	loc = obj_loc(sem, sizeof(*sem), s);
	if (weft_wl_count(sem, 0, 0))
		weft_report(WEFT_KIND_ASSERT, sem, s, "sema_init of a semaphore with sleepers");
	old = sem->count;
	sem->count = val;
	weft_trace(WEFT_EV_WRITE, loc, old, val, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(*sem), 0, s);
	obj_written(loc, s);
}

/* down()'s test: up() handed its count over (WL_GRANTED), or the count
 * is positive (taken); *old: the count the LOCK event records as before. */
static bool sem_take(struct weft_semaphore *sem, unsigned me, uint32_t *old)
{
	struct weft_waiter *w = weft_wl_entry(me);

	if (w->flags & WL_GRANTED) {
		w->flags &= (uint8_t)~WL_GRANTED;
		*old = 0;
		return true;
	}
	if (!sem->count)
		return false;
	*old = sem->count--;
	return true;
}

void weft_down(struct weft_semaphore *sem, const struct weft_site *s)
{
	unsigned me = (unsigned)M.cur;
	uint32_t loc, old;

	if (M.cur < 0 && !in_world(sem, sizeof(*sem), s))
		return;
	if (M.cur < 0) {
		if (sem->count == 0)
			weft_wl_host_sleeps(sem, s);
		else
			sem->count--;
		return;
	}
	sched_point_at(s, sem, sizeof(*sem), &sem_class);
	weft_wl_might_sleep(sem, s);
	loc = obj_loc(sem, sizeof(*sem), s);
	while (!sem_take(sem, me, &old))
		loc = weft_wl_wait_turn(sem, sizeof(*sem), &sem->nr_waiters, WL_EXCLUSIVE, &sem_class, 0,
				   s);
	weft_tsan_acquire(sem);
	weft_trace(WEFT_EV_LOCK, loc, old, sem->count, s);
	weft_sched_step(WEFT_DEP_ACQUIRE, loc, sizeof(*sem), 0, s);
	obj_written(loc, s);
}

int weft_down_trylock(struct weft_semaphore *sem, const struct weft_site *s)
{
	uint32_t loc, old;
	bool ok;

	if (M.cur < 0 && !in_world(sem, sizeof(*sem), s))
		return 1;
	if (M.cur < 0) {
		ok = sem->count > 0;
		sem->count -= ok;
		return !ok;
	}
	sched_point_at(s, sem, sizeof(*sem), NULL);
	loc = obj_loc(sem, sizeof(*sem), s);
	old = sem->count;
	ok = sem->count > 0;
	if (ok)
		sem->count--;
	try_outcome(sem, loc, ok, true, s);
	weft_trace(WEFT_EV_TRYLOCK, loc, ok, old, s);
	weft_sched_step(ok ? WEFT_DEP_ACQUIRE : WEFT_DEP_READ, loc, sizeof(*sem), 0, s);
	return !ok;
}

/* down_timeout() (___down_common() with a timeout): the count if there is
 * one; else on the list, TASK_UNINTERRUPTIBLE, asleep in schedule_timeout()
 * until up() hands the count over (waiter.up: looked at first, so a
 * hand-over that comes with the timer still wins) or the time runs out:
 * off the list, -ETIME. From setup no time passes: -ETIME unless the
 * count is there. */
int weft_down_timeout(struct weft_semaphore *sem, long timeout, const struct weft_site *s)
{
	unsigned me = (unsigned)M.cur;
	long left = timeout;
	struct weft_waiter *w;
	uint32_t loc, old = 0;

	if (M.cur < 0 && !in_world(sem, sizeof(*sem), s))
		return -WEFT_ETIME;
	if (M.cur < 0) {
		if (!sem->count)
			return -WEFT_ETIME;
		sem->count--;
		return 0;
	}
	sched_point_at(s, sem, sizeof(*sem), &sem_class);
	weft_wl_might_sleep(sem, s);
	loc = obj_loc(sem, sizeof(*sem), s);
	bool got = sem_take(sem, me, &old);
	while (!got && left > 0) {
		w = weft_wl_entry(me);
		bool joins = w->chan != sem;
		if (joins) {
			weft_wl_add(me, sem, WL_EXCLUSIVE | WL_TIMED | WL_SEMA);
			sem->nr_waiters++;
		}
		/* the count read as 0, and the first time the waiter count
		 * written: up() depends on both (as the completion's timed
		 * wait) */
		weft_sched_step(joins ? WEFT_DEP_WRITE : WEFT_DEP_READ, loc, sizeof(*sem), 0, s);
		w->flags &= (uint8_t)~WL_TASK_WOKEN;
		weft_wl_task_sleeps(s);   /* and its WRITE record */
		left = weft_schedule_timeout(left, s);
		got = sem_take(sem, me, &old);
	}
	uint32_t nr_before = sem->nr_waiters;
	weft_wl_taken(sem, &sem->nr_waiters);
	w = weft_wl_entry(me);
	w->task_state = TASK_RUNNING;
	w->flags &= (uint8_t)~WL_TASK_WOKEN;
	if (!got) {
		/* timed out: what it read was a count of 0; off the list, it
		 * wrote the waiter count */
		M.next_flags |= WEFT_EVF_FAILED;
		weft_trace(WEFT_EV_READ, loc, 0, 0, s);
		weft_sched_step(nr_before != sem->nr_waiters ? WEFT_DEP_WRITE : WEFT_DEP_READ, loc,
				sizeof(*sem), 0, s);
		return -WEFT_ETIME;
	}
	weft_tsan_acquire(sem);
	weft_trace(WEFT_EV_LOCK, loc, old, sem->count, s);
	weft_sched_step(WEFT_DEP_ACQUIRE, loc, sizeof(*sem), 0, s);
	obj_written(loc, s);
	return 0;
}

void weft_up(struct weft_semaphore *sem, const struct weft_site *s)
{
	uint32_t loc, old;
	uint64_t mask = 0;
	int w;

	if (M.cur < 0 && !in_world(sem, sizeof(*sem), s))
		return;
	if (M.cur < 0) {
		sem->count++;
		return;
	}
	sched_point_at(s, sem, sizeof(*sem), NULL);
	loc = obj_loc(sem, sizeof(*sem), s);
	old = sem->count;
	weft_tsan_release(sem);
	w = weft_wl_first(sem, 0, 0);
	if (w >= 0) {
		weft_wl_del((unsigned)w);
		weft_wl_entry((unsigned)w)->flags |= WL_GRANTED;
		sem->nr_waiters--;
		if (weft_wl_wake((unsigned)w, sem))
			mask = tbit((unsigned)w);
	} else {
		sem->count++;
	}
	weft_trace(WEFT_EV_UNLOCK, loc, old, sem->count, s);
	if (mask)
		weft_wl_trace_wake(sem, mask, 1, s);
	weft_wl_step(WEFT_DEP_RELEASE, loc, sizeof(*sem), s);
	obj_written(loc, s);
}
