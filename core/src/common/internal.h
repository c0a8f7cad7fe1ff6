/* internal.h - declarations shared by the folders of core/src only. */
#ifndef WEFT_INTERNAL_H
#define WEFT_INTERNAL_H

#include <stdlib.h>

#include <weft/strategy.h>

/* The workload ops of both byte encodings (input.c, genome.c): up to n
 * two-byte ops from buf[i], as many as len holds, into wl[0..*nr).
 * Returns where the schedule's three-byte records start: the index past
 * the last op, or len when the bytes end before the n ops (a declared op
 * count larger than the bytes: no schedule, in both encodings). */
size_t weft_wl_decode(struct weft_wl_op *wl, unsigned *nr, unsigned n, const uint8_t *buf,
		      size_t len, size_t i);
/* Their encoding: the op count nr, then the ops, from buf[i] (the caller
 * has checked the room: 1 + 2 x nr bytes). Returns the index past them. */
size_t weft_wl_encode(uint8_t *buf, size_t i, const struct weft_wl_op *wl, unsigned nr);
/* The schedule records after the ops, in both encodings three bytes each:
 * a 16-bit little-endian key (an input entry's position, a genome
 * override's key; the field named key) and a byte b. Decoding appends them
 * to recs[nr..] from buf[i] while three bytes are left and there is room
 * (WEFT_MAX_ENTRIES); encoding writes recs[0..nr) from buf[i] (the caller
 * has checked the room). Both leave i past what they read or wrote. */
#define WEFT_REC3_DECODE(recs, nr, key, buf, len, i)                                   \
	do {                                                                            \
		for (; (i) + 3 <= (len) && (nr) < WEFT_MAX_ENTRIES; (i) += 3, (nr)++) { \
			(recs)[nr].key = (uint16_t)((buf)[i] | (buf)[(i) + 1] << 8);     \
			(recs)[nr].b = (buf)[(i) + 2];                                   \
		}                                                                       \
	} while (0)
#define WEFT_REC3_ENCODE(buf, i, recs, nr, key)                                        \
	do {                                                                            \
		for (unsigned rec3_k = 0; rec3_k < (nr); rec3_k++) {                    \
			(buf)[(i)++] = (uint8_t)(recs)[rec3_k].key;                      \
			(buf)[(i)++] = (uint8_t)((recs)[rec3_k].key >> 8);               \
			(buf)[(i)++] = (recs)[rec3_k].b;                                 \
		}                                                                       \
	} while (0)

/* An array *p of *cap elements of elem bytes made to hold need, grown
 * by doubling (from 64); false (unchanged) when memory runs out. */
static inline bool weft_grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	uint32_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *n = realloc(*p, (size_t)c * elem);
	if (!n)
		return false;
	*p = n;
	*cap = c;
	return true;
}

/* A 64-bit finaliser (Stafford's Mix13, as in splitmix64). */
static inline uint64_t weft_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The two halves of the 128-bit product a * b, xor-ed (the "mum" of
 * wyhash): one multiply instruction and an xor on x86-64 (mul) and
 * aarch64 (mul, umulh); the value is exact integer arithmetic, the same
 * in every build. Every 64-bit target of gcc and clang has __int128. */
#ifndef __SIZEOF_INT128__
#error "weft needs unsigned __int128 (a 64-bit gcc or clang target)"
#endif
static inline uint64_t weft_mum(uint64_t a, uint64_t b)
{
	unsigned __int128 p = (unsigned __int128)a * b;

	return (uint64_t)p ^ (uint64_t)(p >> 64);
}

/* Bits set in a thread mask, without libgcc's __popcountdi2 call that
 * __builtin_popcountll becomes where the popcnt instruction is not
 * assumed (x86-64 baseline). */
static inline unsigned weft_popcount64(uint64_t x)
{
	/* up to four threads (most decisions): the counts of 0..15 are the
	 * nibbles of one constant */
	if (__builtin_expect(x < 16, 1))
		return (unsigned)(0x4332322132212110ull >> (4 * x) & 15);
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* The n-th set bit of mask (n < its popcount). */
static inline unsigned weft_nth_bit(uint64_t mask, unsigned n)
{
	for (; n; n--)
		mask &= mask - 1;
	return (unsigned)__builtin_ctzll(mask);
}

static inline uint64_t weft_rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna): the next number of r. Inline, the
 * one definition behind weft_rng_next() and the draws of the search and
 * the machine. */
static inline uint64_t weft_rng_step(struct weft_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = weft_rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = weft_rotl64(s[3], 45);
	return res;
}

/* Uniform in [0, n), n > 0: weft_rng_below(), inline. */
static inline uint32_t weft_rng_draw(struct weft_rng *r, uint32_t n)
{
	return (uint32_t)(((weft_rng_step(r) >> 32) * (uint64_t)n) >> 32);
}

/* A thread of mask (not empty) drawn uniformly from r: the random
 * strategy's pick, and the machine's draw of it (ops->uniform). */
static inline unsigned weft_uniform_pick(struct weft_rng *r, uint64_t mask)
{
	return weft_nth_bit(mask, weft_rng_draw(r, weft_popcount64(mask)));
}

void weft_sites_init(void);

/* Epoch counters. An entry of a table kept across executions (the
 * machine's shadow, the lkmm CPU views and word slots, DPOR's loc[] and
 * jm[]) is valid while it carries its counter's current epoch; epoch 0 is
 * never current, so a zeroed entry is stale. Advances the counter; true on
 * a wrap (after 2^32 advances), when the caller must clear its table: an
 * entry set up 2^32 advances ago would pass for a current one.
 * WEFT_EPOCH_WRAP_EVERY=k (read by weft_machine_init(), for tests) makes
 * every counter leap from epoch 1 to 2^32 - k, so that it wraps back to 1
 * every k + 1 advances with epoch 1's entries still in the tables (ctest
 * core_epoch_wrap). */
extern uint32_t weft_epoch_wrap_every;
static inline bool weft_epoch_advance(uint32_t *epoch)
{
	if (__builtin_expect(weft_epoch_wrap_every != 0, 0) && *epoch == 1)
		*epoch = (uint32_t)0 - weft_epoch_wrap_every - 1;
	if (__builtin_expect(++*epoch != 0, 1))
		return false;
	*epoch = 1;
	return true;
}

/* The size of the primitive families' state of one execution, the core
 * area after the world (primitives/core_state.h, families.c): world offsets
 * below the world rounded up to 64 bytes plus this are locations. */
extern const uint32_t weft_core_size;
/* RCU's reader slots (rcu.rd[]) in the core area: their offset from its
 * start and their size. Every non-preemptible region's entry and exit
 * records its thread's slot (rcu.c), so DPOR's block signatures give them
 * bits of their own rather than alias them to world bytes. */
extern const uint32_t weft_core_rd_off, weft_core_rd_size;
/* What a thread's free reads of the core area whether or not the
 * execution used it yet (rcu.c, rcu_freed(): every reader's held
 * pointers, the RCU state past rd[]): shadow.c records it for a free
 * made before any family used the core area, so that the free's records
 * do not depend on whether another thread's section began first. */
extern const uint32_t weft_core_freed_off, weft_core_freed_size;

/* Defines `static void NAME(TYPE *a, unsigned n)`: a stable insertion sort
 * of a small array by the unsigned field KEY (elements with equal keys
 * keep their input order, so the first of them fires). The searchers sort
 * their overrides and bytes-input entries with it. */
#define WEFT_DEFINE_STABLE_SORT(NAME, TYPE, KEY)                               \
	static void NAME(TYPE *a, unsigned n)                                  \
	{                                                                      \
		for (unsigned i = 1; i < n; i++) {                             \
			TYPE x = a[i];                                         \
			unsigned j = i;                                        \
			while (j > 0 && a[j - 1].KEY > x.KEY) {                \
				a[j] = a[j - 1];                               \
				j--;                                           \
			}                                                      \
			a[j] = x;                                              \
		}                                                              \
	}

#endif
