/* internal.h - declarations shared by core/src files only. */
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

/* Native build: RCU's per-iteration reset (host, before setup) and its
 * check at the end of a model thread (rcu_native.c, called by native.c). */
void weft_rcu_native_reset(const struct weft_scenario *sc);
void weft_rcu_native_thread_end(void);

#endif
