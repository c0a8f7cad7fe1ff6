/* internal.h - declarations shared by the folders of core/src only. */
#ifndef WEFT_INTERNAL_H
#define WEFT_INTERNAL_H

#include <weft/weft.h>

/* A 64-bit finaliser (Stafford's Mix13, as in splitmix64). */
static inline uint64_t weft_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void weft_sites_init(void);

/* The size of the primitive families' state of one execution, the core
 * area after the world (primitives/core_state.h, families.c): world offsets
 * below the world rounded up to 64 bytes plus this are locations. */
extern const uint32_t weft_core_size;

#endif
