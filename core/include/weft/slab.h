/*
 * slab.h - kmalloc(), kfree() and kmem caches, on the scenario's heap
 * (struct weft_scenario.heap_size bytes after the world, zeroed before
 * every execution; docs/writing-a-model.md, "Allocating objects").
 *
 * What a model sees:
 *  - an allocation is 16-byte aligned and reads as zero (kmalloc() too:
 *    the heap is never handed out twice in an execution);
 *  - kfree() poisons the block: a later access to it is a use-after-free
 *    report naming the free, a second kfree() a double-free, a kfree() of
 *    a pointer no allocation returned (inside a block, outside the heap)
 *    an invalid-free (bad-free), kfree(NULL) nothing; a freed block is
 *    never handed out again (KASAN's quarantine without bound), so no use
 *    after free hides behind a reuse;
 *  - a cache made with SLAB_TYPESAFE_BY_RCU keeps its objects' memory: a
 *    freed object is not poisoned and is the next one the cache hands out
 *    (newest first, as SLUB's per-CPU freelist), so a reader that checks
 *    the identity of what it found sees the reuse, and one that does not
 *    reads the new object (the kernel's contract);
 *  - with __GFP_DIRECT_RECLAIM (GFP_KERNEL, GFP_NOFS...) the call may
 *    sleep: from atomic context it is a sleep-in-atomic report
 *    (might_sleep()); GFP_ATOMIC and GFP_NOWAIT never sleep;
 *  - allocations do not fail; a heap too small for the model is a
 *    limit-reached report naming the call and the heap's size;
 *  - at the end of an execution with no other report, a block never freed
 *    that no pointer in the world, another reached block or a sleeping
 *    thread's stack points into is a memory-leak (kmemleak's rule;
 *    WEFT_LEAKS=0 turns it off).
 * An allocation or free in a model thread is a scheduling point.
 */
#ifndef WEFT_SLAB_H
#define WEFT_SLAB_H

#include <weft/gfp.h>
#include <weft/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kmem_cache;

/* gfp: the GFP_* flags (gfp_t, spelt so that a model with WEFT_OWN_GFP
 * includes this header too) */
void *weft_kmalloc(size_t size, unsigned int gfp, const struct weft_site *s);
/* n * size bytes; NULL if that overflows (kmalloc_array()) */
void *weft_kmalloc_array(size_t n, size_t size, unsigned int gfp, const struct weft_site *s);
void weft_slab_free(const void *p, const struct weft_site *s);
/* the usable size of an allocation (its request rounded up to 16) */
size_t weft_ksize(const void *p);
struct kmem_cache *weft_kmem_cache_create(const char *name, size_t size, unsigned long flags,
					  void (*ctor)(void *), const struct weft_site *s);
void *weft_kmem_cache_alloc(struct kmem_cache *c, unsigned int gfp, const struct weft_site *s);
void weft_kmem_cache_free(struct kmem_cache *c, void *p, const struct weft_site *s);
void weft_kmem_cache_destroy(struct kmem_cache *c, const struct weft_site *s);

/* cache flags (the ones a model's behaviour depends on; the others are
 * accepted) */
#define SLAB_HWCACHE_ALIGN 0x2000ul
#define SLAB_PANIC 0x40000ul
#define SLAB_TYPESAFE_BY_RCU 0x80000ul
#define SLAB_RECLAIM_ACCOUNT 0x20000ul
#define SLAB_ACCOUNT 0x4000000ul

#define __WEFT_SLAB_SITE(ev, what, x) WEFT_SITE((ev), what "(" #x ")")
#define kmalloc(size, gfp) weft_kmalloc((size), (gfp), __WEFT_SLAB_SITE(WEFT_EV_ALLOC, "kmalloc", size))
#define kzalloc(size, gfp) \
	weft_kmalloc((size), (gfp) | __GFP_ZERO, __WEFT_SLAB_SITE(WEFT_EV_ALLOC, "kzalloc", size))
#define kmalloc_array(n, size, gfp) \
	weft_kmalloc_array((n), (size), (gfp), __WEFT_SLAB_SITE(WEFT_EV_ALLOC, "kmalloc_array", size))
#define kcalloc(n, size, gfp) \
	weft_kmalloc_array((n), (size), (gfp) | __GFP_ZERO, \
			   __WEFT_SLAB_SITE(WEFT_EV_ALLOC, "kcalloc", size))
#define kvmalloc(size, gfp) weft_kmalloc((size), (gfp), __WEFT_SLAB_SITE(WEFT_EV_ALLOC, "kvmalloc", size))
#define kvzalloc(size, gfp) \
	weft_kmalloc((size), (gfp) | __GFP_ZERO, __WEFT_SLAB_SITE(WEFT_EV_ALLOC, "kvzalloc", size))
#define kfree(p) weft_slab_free((p), __WEFT_SLAB_SITE(WEFT_EV_FREE, "kfree", p))
#define kvfree(p) weft_slab_free((p), __WEFT_SLAB_SITE(WEFT_EV_FREE, "kvfree", p))
#define ksize(p) weft_ksize(p)
#define kmem_cache_create(name, size, align, flags, ctor) \
	((void)(align), weft_kmem_cache_create((name), (size), (flags), (ctor), \
		__WEFT_SLAB_SITE(WEFT_EV_ALLOC, "kmem_cache_create", name)))
#define KMEM_CACHE(s, flags) \
	kmem_cache_create(#s, sizeof(struct s), __alignof__(struct s), (flags), NULL)
#define kmem_cache_alloc(c, gfp) \
	weft_kmem_cache_alloc((c), (gfp), __WEFT_SLAB_SITE(WEFT_EV_ALLOC, "kmem_cache_alloc", c))
#define kmem_cache_zalloc(c, gfp) \
	weft_kmem_cache_alloc((c), (gfp) | __GFP_ZERO, \
			      __WEFT_SLAB_SITE(WEFT_EV_ALLOC, "kmem_cache_zalloc", c))
#define kmem_cache_free(c, p) \
	weft_kmem_cache_free((c), (p), __WEFT_SLAB_SITE(WEFT_EV_FREE, "kmem_cache_free", p))
#define kmem_cache_destroy(c) \
	weft_kmem_cache_destroy((c), __WEFT_SLAB_SITE(WEFT_EV_FREE, "kmem_cache_destroy", c))

#ifdef __cplusplus
}
#endif
#endif
