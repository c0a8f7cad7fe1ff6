/*
 * gfp.h - the kernel's allocation flags (include/linux/gfp_types.h), for
 * the calls that take one (xa_store(), percpu_ref_init(), the kit's
 * allocators), so that kernel code passes GFP_KERNEL unchanged. Weft's
 * allocations never sleep or fail for lack of memory: the flags are
 * accepted and ignored. Included by <weft/xarray.h> and
 * <weft/percpu_ref.h>, and by <weft/linux/kernel_compat.h> for kernel text.
 *
 * A model with gfp names of its own defines WEFT_OWN_GFP before including
 * any Weft header (CHANGELOG.md).
 */
#ifndef WEFT_GFP_H
#define WEFT_GFP_H

#ifndef WEFT_OWN_GFP
typedef unsigned int gfp_t;
/* the bit values of include/linux/gfp_types.h (6.12, without KASAN and
 * lockdep's __GFP_NOLOCKDEP), so that a flag test in kernel text sees the
 * kernel's arithmetic */
#define __GFP_DMA 0x01u
#define __GFP_HIGHMEM 0x02u
#define __GFP_DMA32 0x04u
#define __GFP_MOVABLE 0x08u
#define __GFP_RECLAIMABLE 0x10u
#define __GFP_HIGH 0x20u
#define __GFP_IO 0x40u
#define __GFP_FS 0x80u
#define __GFP_ZERO 0x100u
#define __GFP_DIRECT_RECLAIM 0x400u
#define __GFP_KSWAPD_RECLAIM 0x800u
#define __GFP_WRITE 0x1000u
#define __GFP_NOWARN 0x2000u
#define __GFP_RETRY_MAYFAIL 0x4000u
#define __GFP_NOFAIL 0x8000u
#define __GFP_NORETRY 0x10000u
#define __GFP_MEMALLOC 0x20000u
#define __GFP_COMP 0x40000u
#define __GFP_NOMEMALLOC 0x80000u
#define __GFP_HARDWALL 0x100000u
#define __GFP_THISNODE 0x200000u
#define __GFP_ACCOUNT 0x400000u
#define __GFP_RECLAIM (__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)
#define GFP_ATOMIC (__GFP_HIGH | __GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL (__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_KERNEL_ACCOUNT (GFP_KERNEL | __GFP_ACCOUNT)
#define GFP_NOWAIT __GFP_KSWAPD_RECLAIM
#define GFP_NOIO __GFP_RECLAIM
#define GFP_NOFS (__GFP_RECLAIM | __GFP_IO)
#define GFP_USER (__GFP_RECLAIM | __GFP_IO | __GFP_FS | __GFP_HARDWALL)
#define GFP_DMA __GFP_DMA
#define GFP_DMA32 __GFP_DMA32
#define GFP_HIGHUSER (GFP_USER | __GFP_HIGHMEM)
#define GFP_HIGHUSER_MOVABLE (GFP_HIGHUSER | __GFP_MOVABLE)
#define GFP_TRANSHUGE_LIGHT ((GFP_HIGHUSER_MOVABLE | __GFP_COMP | __GFP_NOMEMALLOC | __GFP_NOWARN) & ~__GFP_RECLAIM)
#define GFP_TRANSHUGE (GFP_TRANSHUGE_LIGHT | __GFP_DIRECT_RECLAIM)
#endif /* WEFT_OWN_GFP */

#endif
