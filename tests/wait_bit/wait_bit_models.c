/*
 * wait_bit_models.c - the hashed wait queues (<weft/wait_bit.h>) in the
 * shapes kernel code gets wrong, each bug beside its fix, run through the
 * weft command line of this program (bin/weft-wait-bit;
 * tests/wait_bit/CMakeLists.txt):
 *
 *  var-wait    T0 wait_var_event()s until T1 sets a flag and
 *              wake_up_var()s it. mb: the store, smp_mb(), the wake-up
 *              (clean under sc, tso and lkmm); release-wake:
 *              store_release_wake_up() (clean); no-mb: no barrier between
 *              the store and the wake-up's unlocked waitqueue_active()
 *              test, which can miss a waiter that then reads the old flag
 *              (lost wakeup under tso); wake-first: the wake-up before the
 *              store (lost wakeup under sc).
 *  ref-drain   T0 waits for the last reference of an object to go and
 *              frees it; T1 and T2 drop theirs. dec-and-wake:
 *              atomic_dec_and_wake_up() (clean: its wake_up_var() after
 *              the free touches no freed memory, as the kernel's hashes
 *              the address only); dec-no-mb: atomic_dec(), an unordered
 *              RMW, then wake_up_var() (lost wakeup under lkmm).
 *  bit-wait    T0 wait_on_bit()s until T1 clears a busy bit it set in
 *              setup. clear-and-wake: clear_and_wake_up_bit() (clean under
 *              sc, tso and lkmm); clear-no-mb: clear_bit() then
 *              wake_up_bit() (lost wakeup under lkmm); wake-first: the
 *              wake-up before the clear (lost wakeup under sc);
 *              wait-own-bit: T0 first waits on a bit it took itself with
 *              wait_on_bit_lock() (deadlock: it is its own owner).
 *  bit-lock    T0 and T1 each take bit locks with wait_on_bit_lock() and
 *              update a counter under them, releasing with
 *              clear_and_wake_up_bit(). one-lock (clean under sc, tso and
 *              lkmm: the counter ends at 2); abba: two bits taken in
 *              opposite orders (deadlock).
 *  var-timeout T0 wait_var_event_timeout()s for a flag: set by T1
 *              (set, clean: the result is at least 1) or by nobody
 *              (no-waker, clean: the timeout wakes it, the result is 0).
 */
#include <weft/kernel.h>
#include <weft/wait_bit.h>

#define WEFT_TEST_SOURCE "tests/wait_bit"
#define WEFT_TEST_FILE "wait_bit_models.c"
#include "../model_driver.h"

/* ---------------------------------------------------------------- var-wait */

enum { VW_MB, VW_RELEASE_WAKE, VW_NO_MB, VW_WAKE_FIRST };

struct vw_world {
	unsigned variant;
	int done;
};

WEFT_TEST_SETUP_VARIANT_ONLY(vw, struct vw_world)

static void vw_thread(void *w, unsigned tid)
{
	struct vw_world *W = w;

	if (tid == 0) {
		wait_var_event(&W->done, READ_ONCE(W->done));
		return;
	}
	switch (W->variant) {
	case VW_MB:
		WRITE_ONCE(W->done, 1);
		smp_mb();
		wake_up_var(&W->done);
		break;
	case VW_RELEASE_WAKE:
		store_release_wake_up(&W->done, 1);
		break;
	case VW_NO_MB:
		WRITE_ONCE(W->done, 1);
		wake_up_var(&W->done);
		break;
	case VW_WAKE_FIRST:
		wake_up_var(&W->done);
		WRITE_ONCE(W->done, 1);
		break;
	}
}

static const struct weft_variant vw_variants[] = {
	WEFT_TEST_FIX("mb", "the store, smp_mb(), wake_up_var()", VW_MB),
	WEFT_TEST_FIX("release-wake", "store_release_wake_up()", VW_RELEASE_WAKE),
	WEFT_TEST_BUG("no-mb",
	              "no barrier before wake_up_var()'s waitqueue_active() test (weak memory)",
	              WEFT_KIND_LOST_WAKEUP, VW_NO_MB),
	WEFT_TEST_BUG("wake-first",
	              "wake_up_var() before the store",
	              WEFT_KIND_LOST_WAKEUP, VW_WAKE_FIRST),
};

WEFT_TEST_SCENARIO(var_wait, "var-wait",
		   "test: wait_var_event() until another CPU sets a flag",
		   struct vw_world, 2, 2, 32, vw,
		   .memory = WEFT_MEM_TSO);

/* --------------------------------------------------------------- ref-drain */

enum { RD_DEC_AND_WAKE, RD_DEC_NO_MB };

struct rd_obj {
	atomic_t refs;
	int payload;
};

struct rd_world {
	unsigned variant;
	struct rd_obj obj;
};

WEFT_TEST_SETUP(rd, struct rd_world)
{
	atomic_set(&W->obj.refs, 2);
}

static void rd_thread(void *w, unsigned tid)
{
	struct rd_world *W = w;
	struct rd_obj *obj = &W->obj;

	if (tid == 0) {
		wait_var_event(&obj->refs, !atomic_read(&obj->refs));
		weft_poison(obj, sizeof(*obj), WEFT_TEST_NOTE_SITE("kfree(obj)"));
		return;
	}
	if (W->variant == RD_DEC_AND_WAKE) {
		atomic_dec_and_wake_up(&obj->refs);
	} else {
		atomic_dec(&obj->refs);
		wake_up_var(&obj->refs);
	}
}

static const struct weft_variant rd_variants[] = {
	WEFT_TEST_FIX("dec-and-wake",
	              "atomic_dec_and_wake_up(), the waiter frees the object",
	              RD_DEC_AND_WAKE),
	WEFT_TEST_BUG("dec-no-mb",
	              "atomic_dec() then wake_up_var(): nothing orders the decrement before the "
	              "waitqueue_active() test (lkmm)",
	              WEFT_KIND_LOST_WAKEUP, RD_DEC_NO_MB),
};

WEFT_TEST_SCENARIO(ref_drain, "ref-drain",
		   "test: wait_var_event() for the last reference, then free",
		   struct rd_world, 3, 3, 48, rd,
		   .memory = WEFT_MEM_LKMM);

/* ---------------------------------------------------------------- bit-wait */

enum { BW_CLEAR_AND_WAKE, BW_CLEAR_NO_MB, BW_WAKE_FIRST, BW_WAIT_OWN_BIT, BW_UNLOCK_NO_MB };
enum { BW_BUSY = 3, BW_LOCK = 4 };

struct bw_world {
	unsigned variant;
	unsigned long flags;
};

WEFT_TEST_SETUP(bw, struct bw_world)
{
	W->flags = 1ul << BW_BUSY;
}

static void bw_thread(void *w, unsigned tid)
{
	struct bw_world *W = w;

	if (tid == 0) {
		if (W->variant == BW_WAIT_OWN_BIT) {
			wait_on_bit_lock(&W->flags, BW_LOCK, TASK_UNINTERRUPTIBLE);
			wait_on_bit(&W->flags, BW_LOCK, TASK_UNINTERRUPTIBLE);
			clear_and_wake_up_bit(BW_LOCK, &W->flags);
		}
		wait_on_bit(&W->flags, BW_BUSY, TASK_UNINTERRUPTIBLE);
		return;
	}
	switch (W->variant) {
	case BW_WAIT_OWN_BIT:
	case BW_CLEAR_AND_WAKE:
		clear_and_wake_up_bit(BW_BUSY, &W->flags);
		break;
	case BW_CLEAR_NO_MB:
		clear_bit(BW_BUSY, &W->flags);
		wake_up_bit(&W->flags, BW_BUSY);
		break;
	case BW_UNLOCK_NO_MB:   /* a release orders the wake-up's read of the queue after nothing */
		clear_bit_unlock(BW_BUSY, &W->flags);
		wake_up_bit(&W->flags, BW_BUSY);
		break;
	case BW_WAKE_FIRST:
		wake_up_bit(&W->flags, BW_BUSY);
		clear_bit_unlock(BW_BUSY, &W->flags);
		break;
	}
}

static const struct weft_variant bw_variants[] = {
	WEFT_TEST_FIX("clear-and-wake", "clear_and_wake_up_bit()", BW_CLEAR_AND_WAKE),
	WEFT_TEST_BUG("clear-no-mb",
	              "clear_bit() then wake_up_bit(): no smp_mb__after_atomic() (lkmm)",
	              WEFT_KIND_LOST_WAKEUP, BW_CLEAR_NO_MB),
	WEFT_TEST_BUG("wake-first",
	              "wake_up_bit() before the clear",
	              WEFT_KIND_LOST_WAKEUP, BW_WAKE_FIRST),
	WEFT_TEST_BUG("wait-own-bit",
	              "wait_on_bit() of a bit the thread took with wait_on_bit_lock() itself",
	              WEFT_KIND_DEADLOCK, BW_WAIT_OWN_BIT),
	WEFT_TEST_BUG("unlock-no-mb",
	              "clear_bit_unlock() then wake_up_bit(): no smp_mb__after_atomic() (lkmm)",
	              WEFT_KIND_LOST_WAKEUP, BW_UNLOCK_NO_MB),
};

WEFT_TEST_SCENARIO(bit_wait, "bit-wait",
		   "test: wait_on_bit() until another CPU clears a busy bit",
		   struct bw_world, 2, 2, 32, bw,
		   .memory = WEFT_MEM_LKMM);

/* ---------------------------------------------------------------- bit-lock */

enum { BL_ONE_LOCK, BL_ABBA };
enum { BL_A = 0, BL_B = 5 };

struct bl_world {
	unsigned variant;
	unsigned long locks;
	int counter;
};

WEFT_TEST_SETUP_VARIANT_ONLY(bl, struct bl_world)

static void bl_thread(void *w, unsigned tid)
{
	struct bl_world *W = w;
	unsigned first = BL_A, second = BL_B;

	if (W->variant == BL_ABBA && tid == 1) {
		first = BL_B;
		second = BL_A;
	}
	wait_on_bit_lock(&W->locks, first, TASK_UNINTERRUPTIBLE);
	if (W->variant == BL_ABBA)
		wait_on_bit_lock(&W->locks, second, TASK_UNINTERRUPTIBLE);
	WRITE_ONCE(W->counter, READ_ONCE(W->counter) + 1);
	if (W->variant == BL_ABBA)
		clear_and_wake_up_bit(second, &W->locks);
	clear_and_wake_up_bit(first, &W->locks);
}

static void bl_quiesce(void *w)
{
	struct bl_world *W = w;

	if (READ_ONCE(W->counter) != 2)
		weft_report(WEFT_KIND_ASSERT, &W->counter, WEFT_TEST_NOTE_SITE("bl counter"),
			    "counter %d after two locked increments", READ_ONCE(W->counter));
	if (READ_ONCE(W->locks))
		weft_report(WEFT_KIND_ASSERT, &W->locks, WEFT_TEST_NOTE_SITE("bl locks"),
			    "bit locks %#lx still held at the end", READ_ONCE(W->locks));
}

static const struct weft_variant bl_variants[] = {
	WEFT_TEST_FIX("one-lock",
	              "wait_on_bit_lock(), the update, clear_and_wake_up_bit()",
	              BL_ONE_LOCK),
	WEFT_TEST_BUG("abba",
	              "two bit locks taken in opposite orders",
	              WEFT_KIND_DEADLOCK, BL_ABBA),
};

WEFT_TEST_SCENARIO(bit_lock, "bit-lock",
		   "test: bit locks taken with wait_on_bit_lock()",
		   struct bl_world, 2, 2, 48, bl,
		   .quiesce = bl_quiesce);

/* ------------------------------------------------------------- var-timeout */

enum { VT_SET, VT_NO_WAKER };

struct vt_world {
	unsigned variant;
	int done;
	long ret;
};

WEFT_TEST_SETUP_VARIANT_ONLY(vt, struct vt_world)

static void vt_thread(void *w, unsigned tid)
{
	struct vt_world *W = w;

	if (tid == 0) {
		long ret = wait_var_event_timeout(&W->done, READ_ONCE(W->done), 10);
		if (W->variant == VT_NO_WAKER && ret != 0)
			weft_report(WEFT_KIND_ASSERT, &W->done, WEFT_TEST_NOTE_SITE("vt ret"),
				    "woke with %ld jiffies left and nobody set the flag", ret);
		if (ret > 0 && !READ_ONCE(W->done))
			weft_report(WEFT_KIND_ASSERT, &W->done, WEFT_TEST_NOTE_SITE("vt ret"),
				    "returned %ld with the flag still clear", ret);
		return;
	}
	if (W->variant == VT_SET) {
		WRITE_ONCE(W->done, 1);
		smp_mb();
		wake_up_var(&W->done);
	}
}

static const struct weft_variant vt_variants[] = {
	WEFT_TEST_FIX("set", "the flag set and woken; the wait may also time out first", VT_SET),
	WEFT_TEST_FIX("no-waker",
	              "nobody sets the flag: the timeout ends the wait with 0",
	              VT_NO_WAKER),
};

WEFT_TEST_SCENARIO(var_timeout, "var-timeout",
		   "test: wait_var_event_timeout() with and without a waker",
		   struct vt_world, 2, 2, 32, vt);

/* ------------------------------------------------------------- bit-timeout */

/* T0 waits with wait_on_bit_timeout() for T1's I/O bit to clear, then
 * reads the result T1 stored before clearing it (clear_and_wake_up_bit()
 * orders the store). trust-timeout (bug): T0 reads the result whatever
 * the wait returned; after a timeout (-EAGAIN) it is not there yet
 * (assertion); wait-again (clean): on -EAGAIN T0 waits with wait_on_bit(). */
enum { BT_WAIT_AGAIN, BT_TRUST_TIMEOUT };

struct bt_world {
	unsigned variant;
	unsigned long flags;
	int result;
};

WEFT_TEST_SETUP(bt, struct bt_world)
{
	W->flags = 1ul << BW_BUSY;
}

static void bt_thread(void *w, unsigned tid)
{
	struct bt_world *W = w;

	if (tid == 1) {
		WRITE_ONCE(W->result, 1);
		clear_and_wake_up_bit(BW_BUSY, &W->flags);
		return;
	}
	int r = wait_on_bit_timeout(&W->flags, BW_BUSY, TASK_UNINTERRUPTIBLE, 2);
	if (r && r != -11)
		weft_report(WEFT_KIND_ASSERT, &W->flags, WEFT_TEST_NOTE_SITE("bt ret"),
			    "wait_on_bit_timeout() returned %d, neither 0 nor -EAGAIN", r);
	if (r && W->variant == BT_WAIT_AGAIN)
		wait_on_bit(&W->flags, BW_BUSY, TASK_UNINTERRUPTIBLE);
	if (READ_ONCE(W->result) != 1)
		weft_report(WEFT_KIND_ASSERT, &W->result, WEFT_TEST_NOTE_SITE("bt result"),
			    "the I/O bit's result read before it was stored");
}

static const struct weft_variant bt_variants[] = {
	WEFT_TEST_FIX("wait-again", "after -EAGAIN, wait_on_bit() without a timeout",
		      BT_WAIT_AGAIN),
	WEFT_TEST_BUG("trust-timeout", "the result read whatever wait_on_bit_timeout() returned",
		      WEFT_KIND_ASSERT, BT_TRUST_TIMEOUT),
};

WEFT_TEST_SCENARIO(bit_timeout, "bit-timeout",
		   "test: wait_on_bit_timeout() for an I/O bit, then its result",
		   struct bt_world, 2, 2, 48, bt);

WEFT_DEFINE_REGISTRY(&var_wait, &ref_drain, &bit_wait, &bit_lock, &var_timeout, &bit_timeout);
