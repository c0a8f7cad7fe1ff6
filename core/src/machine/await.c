/*
 * await.c - a spin loop as a wait (programs: WEFT_CHECK_FAIR_STATE under
 * sequential consistency; docs/testing-c-programs.md, "Spin loops").
 *
 * A thread that spins (fairness.c: the same observation again in one run,
 * with its own net effect on shared memory unchanged, (loc, value) changes
 * cancelling) read, in that run, only values that no other thread changed
 * since: running it again only repeats the iteration. So it blocks at its
 * next scheduling point until another thread changes one of the locations
 * it read in that run (reads[], a superset of the iteration's reads), as
 * GenMC's spin-assume ("await") and CHESS's good-samaritan assumption treat
 * such loops. For reachability this drops stutter steps only, so dfs with
 * partial-order reduction ends on programs that spin, and a complete
 * search still proves what it searched: the write that wakes the thread
 * races with its reads, and the reduction reverses that race as any other.
 *
 * Only an iteration that stored nothing (not even a value put back) and
 * left the thread's stack as it was (weft_await_frames: its locals, at
 * -O0) awaits; others are left to fairness. The assumption (GenMC's and
 * CHESS's) is that such an iteration decides nothing by being repeated. A
 * loop that counts its iterations in a register (-O1 and above:
 * `while (!flag) if (++i == N) reach_error();`) is outside it: Weft does
 * not see registers, and the count never reaches N.
 *
 * A state where every thread that is left awaits (or waits on a lock that
 * an awaiting thread holds) is a hang of the program: a livelock report
 * (stuck_report in machine.c), not a safety violation; `--kind` leaves it
 * aside as any other kind. A thread that reads more than WEFT_AWAIT_LOCS
 * locations in its spinning run is not blocked: fairness treats it as before.
 */
#include <stdio.h>
#include <string.h>

#include "sched.h"

const void *weft_user_sp;
const void *weft_user_tls;
size_t weft_user_tls_size;

/* The current thread's local state: a hash of its stack from the
 * program's lowest frame (weft_user_sp) to the top, where -O0 keeps every
 * local, and of its __thread variables; 0 when not known (then it never
 * awaits). Registers are not seen:
 * at -O1 and above a counter kept in one is missed (the docs say so). */
typedef uint64_t __attribute__((may_alias, aligned(1))) word_any;

/* no_sanitize: a frame's locals sit between ASan's redzones */
__attribute__((no_sanitize("address"))) uint64_t weft_await_frames(void)
{
	const struct weft_fiber *f = &M.th[M.cur].fib;
	const uint8_t *lo = weft_user_sp;
	const uint8_t *top = (const uint8_t *)f->stack_lo + f->stack_size;

	if (!lo || lo < (const uint8_t *)f->stack_lo || lo >= top)
		return 0;
	uint64_t h = 0x243f6a8885a308d3ull;
	for (const uint8_t *p = lo; p + 8 <= top; p += 8) {
		h = weft_mix64(h ^ *(const word_any *)p);
	}
	/* its __thread variables: a count kept in one is a change too */
	const uint8_t *tls = weft_user_tls, *tls_end = tls + weft_user_tls_size;
	for (; tls && tls + 8 <= tls_end; tls += 8)
		h = weft_mix64(h ^ *(const word_any *)tls);
	for (; tls && tls < tls_end; tls++)
		h = weft_mix64(h ^ *tls);
	return h | 1;
}

static int await_owner(const void *chan)
{
	(void)chan;
	return -1;
}

static const struct weft_wait_class await_class = {
	.name = "a spin loop's values",
	.sleeps = false,
	.owner = await_owner,
};

static struct weft_site await_site = { __FILE__, "weft_await_block",
				       "a spin loop waits for another thread's write", __LINE__,
				       WEFT_EV_BLOCK, 0, WEFT_SITE_SC };

/* The current thread read loc in its current quiet stretch (fairness.c):
 * false if it read too many locations to await (then its spin is left to
 * fairness). */
bool weft_await_note_read(uint32_t loc)
{
	struct wthread *t = &M.th[M.cur];

	if (t->reads_run != M.run_id) {
		t->reads_run = M.run_id;
		t->nr_reads = 0;
	}
	if (t->nr_reads > WEFT_AWAIT_LOCS)
		return false;
	for (unsigned i = 0; i < t->nr_reads; i++)
		if (t->reads[i] == loc)
			return true;
	if (t->nr_reads == WEFT_AWAIT_LOCS) {
		t->nr_reads++;   /* too many */
		return false;
	}
	t->reads[t->nr_reads++] = loc;
	return true;
}

bool weft_await_is(const struct wthread *t)
{
	return t->state == T_BLOCKED && t->wait_class == &await_class;
}

/* Block the current thread t at s as a spin's wait until weft_await_event()
 * wakes it. */
static void await_sleep(struct wthread *t, const struct weft_site *s)
{
	weft_trace(WEFT_EV_BLOCK, t->spin_loc, 0, (uint64_t)M.cur, &await_site);
	weft_sched_step(WEFT_DEP_BLOCKED, WEFT_NO_LOC, 0, 0, &await_site);
	M.nr_await++;
	weft_sched_block(t->reads, &await_class, s);
}

/* At the scheduling point s of the current thread, which spun: block until
 * another thread changes what it read (weft_await_event wakes it). */
void weft_await_block(const struct weft_site *s)
{
	struct wthread *t = &M.th[M.cur];

	/* a release runs first (await_pending stays): an iteration that polls
	 * under a lock (lock; read; unlock) spun at its read, and blocking
	 * before the unlock would keep the lock from the thread that changes
	 * what it read (a false livelock) */
	if (s->ev == WEFT_EV_UNLOCK)
		return;
	t->await_pending = false;
	if (t->reads_run != M.run_id || t->nr_reads > WEFT_AWAIT_LOCS)
		return;   /* another stretch since it spun: it looks again */
	await_sleep(t, s);
	/* woken: what it read changed; the block ended its stretch: a fresh read set */
}

/* At the yield s: the current thread's iteration since its last yield
 * changed nothing and read what no other thread changed since (weft_yield):
 * block until another thread changes anything (weft_await_event). */
void weft_await_any_block(const struct weft_site *s)
{
	struct wthread *t = &M.th[M.cur];

	t->await_pending = false;
	t->await_any = true;
	t->spin_site = s;
	t->spin_loc = WEFT_NO_LOC;
	t->nr_spins++;
	await_sleep(t, s);
	t->await_any = false;
}

/* Another thread's event ev at loc (not a read): a changed value there
 * wakes the threads that await it. */
void weft_await_event(unsigned ev, uint32_t loc, uint64_t old, uint64_t val)
{
	switch (ev) {
	case WEFT_EV_WRITE: case WEFT_EV_RMW: case WEFT_EV_FLUSH:
		if (old == val)
			return;   /* the value stayed: re-reading it changes nothing */
		break;
	case WEFT_EV_TRYLOCK:
		if (M.next_flags & WEFT_EVF_FAILED)
			return;
		break;
	case WEFT_EV_LOCK: case WEFT_EV_UNLOCK: case WEFT_EV_FREE: case WEFT_EV_ALLOC:
		break;
	case WEFT_EV_SPAWN: case WEFT_EV_WAKE: case WEFT_EV_END:
		/* a change of no location (fair_mark() counts it): it wakes
		 * only what awaits any change (pthread_tryjoin_np() in a
		 * yielding loop sees the end) */
		break;
	default:
		return;   /* not a change of memory (a block, a wait, a note) */
	}
	for (unsigned i = 0; i < M.nr_threads && M.nr_await; i++) {
		struct wthread *t = &M.th[i];
		if ((int)i == M.cur || !weft_await_is(t))
			continue;
		if (t->await_any) {
			M.nr_await--;
			weft_sched_wake_thread(i);
			continue;
		}
		for (unsigned k = 0; k < t->nr_reads && loc != WEFT_NO_LOC; k++) {
			if (t->reads[k] == loc) {
				M.nr_await--;
				weft_sched_wake_thread(i);
				break;
			}
		}
	}
}

/* "T0 awaits flag2 (dekker.c:30); T1 ..." for the livelock report. */
size_t weft_await_describe(char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < M.nr_threads && k + 1 < n; i++) {
		const struct wthread *t = &M.th[i];
		if (!weft_await_is(t))
			continue;
		char obj[48] = "";
		if (t->spin_loc != WEFT_NO_LOC)
			weft_describe_loc(M.sc, t->spin_loc, obj, sizeof(obj));
		k += (size_t)snprintf(buf + k, n - k, "%sT%u spins on %s at %s:%u", k ? "; " : "", i,
				      obj[0] ? obj : "what it read",
				      t->spin_site ? weft_site_file(t->spin_site) : "?",
				      t->spin_site ? t->spin_site->line : 0);
		if (k >= n)
			k = n - 1;
	}
	return k;
}
