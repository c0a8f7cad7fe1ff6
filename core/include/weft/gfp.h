/*
 * gfp.h - the kernel's allocation flags (include/linux/gfp_types.h), for
 * the calls that take one (xa_store(), percpu_ref_init(), the kit's
 * allocators), so that kernel code passes GFP_KERNEL unchanged. Weft's
 * allocations never sleep or fail for lack of memory: the flags are
 * accepted and ignored. Included by <weft/xarray.h> and
 * <weft/percpu_ref.h>.
 *
 * A model with gfp names of its own defines WEFT_OWN_GFP before including
 * any Weft header (CHANGELOG.md).
 */
#ifndef WEFT_GFP_H
#define WEFT_GFP_H

#ifndef WEFT_OWN_GFP
typedef unsigned int gfp_t;
#define __GFP_HIGH 0x20u
#define __GFP_IO 0x40u
#define __GFP_FS 0x80u
#define __GFP_ZERO 0x100u
#define __GFP_DIRECT_RECLAIM 0x400u
#define __GFP_KSWAPD_RECLAIM 0x800u
#define __GFP_NOWARN 0x2000u
#define __GFP_NOFAIL 0x8000u
#define __GFP_RECLAIM (__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)
#define GFP_ATOMIC (__GFP_HIGH | __GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL (__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_NOWAIT __GFP_KSWAPD_RECLAIM
#define GFP_NOIO __GFP_RECLAIM
#define GFP_NOFS (__GFP_RECLAIM | __GFP_IO)
#endif /* WEFT_OWN_GFP */

#endif
