/* internal.h - declarations shared by the folders of core/src only. */
#ifndef WEFT_INTERNAL_H
#define WEFT_INTERNAL_H

#include <stdlib.h>

#include <weft/weft.h>

/* The workload ops of both byte encodings (input.c, genome.c): up to n
 * two-byte ops from buf[i], as many as len holds, into wl[0..*nr).
 * Returns the index past the last one read. */
size_t weft_wl_decode(struct weft_wl_op *wl, unsigned *nr, unsigned n, const uint8_t *buf,
		      size_t len, size_t i);
/* Their encoding: the op count nr, then the ops, from buf[i] (the caller
 * has checked the room: 1 + 2 x nr bytes). Returns the index past them. */
size_t weft_wl_encode(uint8_t *buf, size_t i, const struct weft_wl_op *wl, unsigned nr);

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

void weft_sites_init(void);

/* The size of the primitive families' state of one execution, the core
 * area after the world (primitives/core_state.h, families.c): world offsets
 * below the world rounded up to 64 bytes plus this are locations. */
extern const uint32_t weft_core_size;

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
