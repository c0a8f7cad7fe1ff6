/*
 * atomics_models.c - the rest of atomic_t.txt in <weft/kernel.h> (the
 * bitwise and fetch_ forms, try_cmpxchg(), atomic_dec_if_positive(), the
 * ordering forms of cmpxchg() and xchg(), change_bit() and the non-atomic
 * __test_and_set_bit()), each bug beside its fixes, run through the weft
 * command line of this program (bin/weft-atomics;
 * tests/atomics/CMakeLists.txt):
 *
 *  token-take  one token; two threads each take it if there is one, and
 *              the taker checks that it is the only holder.
 *              read-then-dec (bug): atomic_read() > 0, then atomic_dec():
 *              both can see the token (assertion: two holders);
 *              dec-if-positive (clean): atomic_dec_if_positive() >= 0;
 *              try-cmpxchg (clean): the caller's own atomic_try_cmpxchg()
 *              loop, which retries with the value a failed try found.
 *  flag-claim  two threads claim bit 0 of a flags word; the winner checks
 *              that it is the only one (it keeps the bit).
 *              read-then-or (bug): atomic_read(), then atomic_or();
 *              nonatomic-bit (bug): __test_and_set_bit(), a load and a
 *              store; fetch-or (clean): atomic_fetch_or(), and the owner
 *              clears another bit with atomic_fetch_andnot(); change-bit
 *              (clean): each thread flips a second word's bit 0 with
 *              change_bit() and the last one to finish finds it back at 0.
 *  publish     T0 fills a record and sets a flag with an RMW; T1 reads the
 *              flag with smp_load_acquire() and then the record.
 *              cmpxchg-relaxed (bug, --memory lkmm): cmpxchg_relaxed()
 *              orders nothing before it: the record can read stale;
 *              try-cmpxchg-release, xchg-release (clean).
 */
#include <weft/kernel.h>

#define WEFT_TEST_SOURCE "Documentation/atomic_t.txt"
#define WEFT_TEST_FILE "atomics_models.c"
#include "../model_driver.h"

/* ------------------------------------------------------------ token-take */

enum { TT_READ_THEN_DEC, TT_DEC_IF_POSITIVE, TT_TRY_CMPXCHG };

struct tt_world {
	unsigned variant;
	atomic_t tokens;
	atomic_t holders;
};

WEFT_TEST_SETUP(tt, struct tt_world)
{
	atomic_set(&W->tokens, 1);
}

static bool tt_take(struct tt_world *W)
{
	int c;

	switch (W->variant) {
	case TT_READ_THEN_DEC:
		if (atomic_read(&W->tokens) <= 0)
			return false;
		atomic_dec(&W->tokens);
		return true;
	case TT_DEC_IF_POSITIVE:
		return atomic_dec_if_positive(&W->tokens) >= 0;
	default:
		c = atomic_read(&W->tokens);
		do {
			if (c <= 0)
				return false;
		} while (!atomic_try_cmpxchg(&W->tokens, &c, c - 1));
		return true;
	}
}

static void tt_thread(void *w, unsigned tid)
{
	struct tt_world *W = w;

	(void)tid;
	if (!tt_take(W)) {
		if (atomic_read(&W->tokens) != 0)
			weft_report(WEFT_KIND_ASSERT, &W->tokens, WEFT_SITE(WEFT_EV_NOTE, "tt none"),
				    "no token taken, yet the count is not 0");
		return;
	}
	if (atomic_inc_return(&W->holders) != 1)
		weft_report(WEFT_KIND_ASSERT, &W->holders, WEFT_SITE(WEFT_EV_NOTE, "tt holders"),
			    "two holders of the one token");
}

static const struct weft_variant tt_variants[] = {
	WEFT_TEST_BUG("read-then-dec", "atomic_read() > 0, then atomic_dec()", WEFT_KIND_ASSERT,
		      TT_READ_THEN_DEC),
	WEFT_TEST_FIX("dec-if-positive", "atomic_dec_if_positive() >= 0", TT_DEC_IF_POSITIVE),
	WEFT_TEST_FIX("try-cmpxchg", "an atomic_try_cmpxchg() loop", TT_TRY_CMPXCHG),
};

WEFT_TEST_SCENARIO(token_take, "token-take", "test: two threads take the one token",
		   struct tt_world, 2, 2, 32, tt);

/* ------------------------------------------------------------ flag-claim */

enum { FC_READ_THEN_OR, FC_NONATOMIC_BIT, FC_FETCH_OR, FC_CHANGE_BIT };

struct fc_world {
	unsigned variant;
	atomic_t flags;
	unsigned long bits;
	unsigned long flips;
	atomic_t owners, done;
};

WEFT_TEST_SETUP(fc, struct fc_world)
{
	atomic_set(&W->flags, 2);
}

static bool fc_claim(struct fc_world *W)
{
	switch (W->variant) {
	case FC_READ_THEN_OR:
		if (atomic_read(&W->flags) & 1)
			return false;
		atomic_or(1, &W->flags);
		return true;
	case FC_NONATOMIC_BIT:
		return !__test_and_set_bit(0, &W->bits);
	default:
		return !(atomic_fetch_or(1, &W->flags) & 1);
	}
}

static void fc_thread(void *w, unsigned tid)
{
	struct fc_world *W = w;

	(void)tid;
	if (W->variant == FC_CHANGE_BIT) {
		change_bit(0, &W->flips);
		if (atomic_inc_return(&W->done) == 2 && test_bit(0, &W->flips))
			weft_report(WEFT_KIND_ASSERT, &W->flips, WEFT_SITE(WEFT_EV_NOTE, "fc flips"),
				    "two change_bit() flips left the bit set");
		return;
	}
	if (!fc_claim(W))
		return;
	if (atomic_inc_return(&W->owners) != 1)
		weft_report(WEFT_KIND_ASSERT, &W->owners, WEFT_SITE(WEFT_EV_NOTE, "fc owners"),
			    "two owners of the flag");
	/* the owner clears bit 1, set by setup: the old value has it, the new not */
	if (W->variant == FC_FETCH_OR && (!(atomic_fetch_andnot(2, &W->flags) & 2) ||
					  (atomic_read(&W->flags) & 3) != 1))
		weft_report(WEFT_KIND_ASSERT, &W->flags, WEFT_SITE(WEFT_EV_NOTE, "fc clear"),
			    "atomic_fetch_andnot() of bit 1: wrong old or new value");
}

static const struct weft_variant fc_variants[] = {
	WEFT_TEST_BUG("read-then-or", "atomic_read(), then atomic_or()", WEFT_KIND_ASSERT,
		      FC_READ_THEN_OR),
	WEFT_TEST_BUG("nonatomic-bit", "__test_and_set_bit(): a load and a store",
		      WEFT_KIND_ASSERT, FC_NONATOMIC_BIT),
	WEFT_TEST_FIX("fetch-or", "atomic_fetch_or(); the owner then atomic_fetch_andnot()s bit 1",
		      FC_FETCH_OR),
	WEFT_TEST_FIX("change-bit", "two change_bit() flips of one bit", FC_CHANGE_BIT),
};

WEFT_TEST_SCENARIO(flag_claim, "flag-claim", "test: two threads claim one flag bit",
		   struct fc_world, 2, 2, 32, fc);

/* --------------------------------------------------------------- publish */

enum { PB_CMPXCHG_RELAXED, PB_TRY_CMPXCHG_RELEASE, PB_XCHG_RELEASE };

struct pb_world {
	unsigned variant;
	int record[2];
	int flag;
};

WEFT_TEST_SETUP_VARIANT_ONLY(pb, struct pb_world)

static void pb_thread(void *w, unsigned tid)
{
	struct pb_world *W = w;
	int old = 0;

	if (tid == 0) {
		WRITE_ONCE(W->record[0], 1);
		WRITE_ONCE(W->record[1], 2);
		if (W->variant == PB_CMPXCHG_RELAXED)
			(void)cmpxchg_relaxed(&W->flag, 0, 1);
		else if (W->variant == PB_TRY_CMPXCHG_RELEASE)
			(void)try_cmpxchg_release(&W->flag, &old, 1);
		else
			(void)xchg_release(&W->flag, 1);
		return;
	}
	if (!smp_load_acquire(&W->flag))
		return;
	if (READ_ONCE(W->record[0]) != 1 || READ_ONCE(W->record[1]) != 2)
		weft_report(WEFT_KIND_ASSERT, W->record, WEFT_SITE(WEFT_EV_NOTE, "pb record"),
			    "the flag was set but the record read stale");
}

static const struct weft_variant pb_variants[] = {
	WEFT_TEST_BUG("cmpxchg-relaxed", "cmpxchg_relaxed() sets the flag: orders nothing",
		      WEFT_KIND_ASSERT, PB_CMPXCHG_RELAXED),
	WEFT_TEST_FIX("try-cmpxchg-release", "try_cmpxchg_release() sets the flag",
		      PB_TRY_CMPXCHG_RELEASE),
	WEFT_TEST_FIX("xchg-release", "xchg_release() sets the flag", PB_XCHG_RELEASE),
};

WEFT_TEST_SCENARIO(publish, "publish", "test: a record published by an RMW on its flag",
		   struct pb_world, 2, 2, 32, pb);

WEFT_DEFINE_REGISTRY(&token_take, &flag_claim, &publish);
