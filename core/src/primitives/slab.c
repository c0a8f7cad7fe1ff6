/*
 * slab.c - kmalloc(), kfree() and kmem caches (<weft/slab.h>) on the
 * scenario's heap: world offsets [weft_heap_offset(), M.world_size), which
 * the machine zeroes with the world before every execution.
 *
 * A bump allocator in 16-byte units. The block table (offset, size, cache)
 * is the machine's, reset lazily when an execution first allocates (its
 * epoch differs). A freed block is poisoned (shadow.c) and never handed out
 * again, except by a SLAB_TYPESAFE_BY_RCU cache: its freed objects stay
 * valid memory on the cache's freelist, newest first, as SLUB's per-CPU
 * freelist hands them out.
 *
 * Dependence records: every allocation, free and kmem_cache_destroy()
 * writes the allocator's location, the heap's first byte (the bump pointer
 * and the freelists decide which block the next allocation gets; the
 * destroy's check reads every block's state). An allocation or a free also
 * writes the block it hands out or takes back (weft_unpoison() /
 * weft_poison(): one WRITE over the range).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/slab.h>

#include "sched.h"

#define SLAB_BLOCKS 1024
#define SLAB_CACHES 16
#define SLAB_ALIGN 16u

struct kmem_cache {
	char name[32];
	uint32_t size;
	unsigned long flags;
	void (*ctor)(void *);
};

static struct slab {
	uint32_t epoch;
	uint32_t bump;              /* next free offset, relative to the heap */
	unsigned nr;
	struct block {
		uint32_t off;           /* world offset */
		uint32_t size;          /* usable bytes (the request rounded up) */
		int16_t cache;          /* index into caches, -1: kmalloc() */
		bool freed;             /* on its cache's freelist (typesafe caches) */
		uint8_t mark;           /* the leak scan's: 1 reached, 2 scanned */
		int32_t next_free;      /* the freelist's next block, -1: end */
		/* the allocation (a leak report's other side) */
		const struct weft_site *site;
		uint32_t step;
		int16_t tid;
	} b[SLAB_BLOCKS];
	unsigned nr_caches;
	struct kmem_cache caches[SLAB_CACHES];
	int32_t free_head[SLAB_CACHES];
} slab;

static void slab_fresh(void)
{
	if (slab.epoch == M.epoch)
		return;
	slab.epoch = M.epoch;
	slab.bump = 0;
	slab.nr = 0;
	slab.nr_caches = 0;
}

static uint32_t heap_start(void)
{
	return (uint32_t)weft_heap_offset(M.sc);
}

static bool has_heap(void)
{
	return M.sc && M.sc->heap_size;
}

/* the operation's point (a model thread's) and its write of the allocator */
static void slab_op(const struct weft_site *s)
{
	if (M.cur >= 0)
		sched_point_at(s, NULL, 0, NULL);
	weft_sched_step(WEFT_DEP_WRITE, heap_start(), 1, 0, s);
}

static void *alloc_block(size_t size, unsigned int gfp, int cache, const struct weft_site *s)
{
	if (M.cur >= 0 && (gfp & __GFP_DIRECT_RECLAIM))
		weft_might_sleep(s);
	slab_fresh();
	if (!has_heap()) {
		weft_report(WEFT_KIND_LIMIT, NULL, s,
			    "%s: the scenario has no heap: give it .heap_size (bytes; 4096 holds "
			    "256 small objects)", s->what);
		return NULL;
	}
	slab_op(s);
	/* a typesafe cache's freed object first, newest first */
	if (cache >= 0 && slab.free_head[cache] >= 0) {
		struct block *b = &slab.b[slab.free_head[cache]];
		slab.free_head[cache] = b->next_free;
		b->freed = false;
		void *p = M.world + b->off;
		weft_unpoison(p, b->size, s);
		if (gfp & __GFP_ZERO)
			memset(p, 0, b->size);
		return p;
	}
	uint32_t units = (uint32_t)((size ? size : 1) + SLAB_ALIGN - 1) / SLAB_ALIGN;
	uint64_t need = (uint64_t)units * SLAB_ALIGN;
	if (size > M.sc->heap_size || slab.bump + need > M.sc->heap_size ||
	    slab.nr == SLAB_BLOCKS) {
		weft_report(WEFT_KIND_LIMIT, NULL, s,
			    "%s of %zu bytes: the scenario's heap (.heap_size %zu bytes, %u "
			    "blocks) is used up after %u allocations (freed blocks are never "
			    "reused)", s->what, size, M.sc->heap_size, SLAB_BLOCKS, slab.nr);
		return NULL;
	}
	struct block *b = &slab.b[slab.nr++];
	b->off = heap_start() + slab.bump;
	b->size = (uint32_t)need;
	b->cache = (int16_t)cache;
	b->freed = false;
	b->next_free = -1;
	b->site = s;
	b->step = M.step;
	b->tid = (int16_t)M.cur;
	slab.bump += (uint32_t)need;
	void *p = M.world + b->off;
	weft_unpoison(p, b->size, s);
	if (cache >= 0 && slab.caches[cache].ctor)
		slab.caches[cache].ctor(p);
	return p;
}

void *weft_kmalloc(size_t size, unsigned int gfp, const struct weft_site *s)
{
	return alloc_block(size, gfp, -1, s);
}

void *weft_kmalloc_array(size_t n, size_t size, unsigned int gfp, const struct weft_site *s)
{
	if (size && n > SIZE_MAX / size)
		return NULL;   /* kmalloc_array()'s overflow check */
	return alloc_block(n * size, gfp, -1, s);
}

/* The block address v lies in (at its start or inside), or -1. Blocks
 * are in offset order and tile the heap up to the bump pointer. */
static int block_at(uintptr_t v)
{
	uintptr_t lo = (uintptr_t)M.world + heap_start();

	if (!M.world || v < lo || v >= lo + slab.bump)
		return -1;
	uint32_t off = (uint32_t)(v - (uintptr_t)M.world);
	unsigned a = 0, z = slab.nr;
	while (a < z) {
		unsigned mid = (a + z) / 2;
		if (slab.b[mid].off + slab.b[mid].size <= off)
			a = mid + 1;
		else
			z = mid;
	}
	return a < slab.nr && slab.b[a].off <= off ? (int)a : -1;
}

/* The block p starts, or -1; *inside: p lies inside one (not at its start) */
static int block_of(const void *p, bool *inside)
{
	int i = block_at((uintptr_t)p);

	*inside = i >= 0 && M.world + slab.b[i].off != (const uint8_t *)p;
	return *inside ? -1 : i;
}

static void free_block(struct kmem_cache *c, const void *p, const struct weft_site *s)
{
	bool inside;

	if (!p)
		return;
	slab_fresh();
	int i = block_of(p, &inside);
	if (i < 0) {
		if (M.cur >= 0)
			sched_point_at(s, NULL, 0, NULL);
		weft_report(WEFT_KIND_BAD_FREE, p, s,
			    "%s: invalid free of %s", s->what,
			    inside ? "a pointer inside an allocated object"
				   : "memory kmalloc() did not return");
		return;
	}
	struct block *b = &slab.b[i];
	int cache = b->cache;
	slab_op(s);
	if (c && (cache < 0 || &slab.caches[cache] != c)) {
		weft_report(WEFT_KIND_BAD_FREE, p, s,
			    "%s: the object is from %s, not from cache %s", s->what,
			    cache < 0 ? "kmalloc()" : slab.caches[cache].name, c->name);
		return;
	}
	if (b->freed || weft_is_poisoned(p)) {
		struct weft_access other = weft_last_write(p);
		weft_report2(WEFT_KIND_DOUBLE_FREE, p, s, other.valid ? &other : NULL,
			     "%s: object already freed", s->what);
		return;
	}
	if (cache >= 0 && (slab.caches[cache].flags & SLAB_TYPESAFE_BY_RCU)) {
		/* the memory stays the cache's: readers under RCU may still
		 * look at it, and the next allocation from the cache reuses it */
		b->freed = true;
		b->next_free = slab.free_head[cache];
		slab.free_head[cache] = i;
		weft_trace(WEFT_EV_FREE, b->off, 0, 0, s);
		weft_sched_step(WEFT_DEP_WRITE, b->off, b->size, 0, s);
		return;
	}
	weft_poison(p, b->size, s);
}

void weft_slab_free(const void *p, const struct weft_site *s)
{
	free_block(NULL, p, s);
}

size_t weft_ksize(const void *p)
{
	bool inside;
	int i;

	slab_fresh();
	i = block_of(p, &inside);
	return i < 0 ? 0 : slab.b[i].size;
}

struct kmem_cache *weft_kmem_cache_create(const char *name, size_t size, unsigned long flags,
					  void (*ctor)(void *), const struct weft_site *s)
{
	slab_fresh();
	if (slab.nr_caches == SLAB_CACHES) {
		weft_report(WEFT_KIND_LIMIT, NULL, s, "%s: more than %u kmem caches", s->what,
			    SLAB_CACHES);
		return NULL;
	}
	struct kmem_cache *c = &slab.caches[slab.nr_caches];
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "(unnamed)");
	c->size = (uint32_t)size;
	c->flags = flags;
	c->ctor = ctor;
	slab.free_head[slab.nr_caches++] = -1;
	return c;
}

static int cache_index(const struct kmem_cache *c, const struct weft_site *s)
{
	if (c >= slab.caches && c < slab.caches + slab.nr_caches)
		return (int)(c - slab.caches);
	weft_report(WEFT_KIND_ASSERT, NULL, s,
		    "%s: not a cache kmem_cache_create() made in this execution", s->what);
	return -1;
}

void *weft_kmem_cache_alloc(struct kmem_cache *c, unsigned int gfp, const struct weft_site *s)
{
	slab_fresh();
	int i = cache_index(c, s);

	return i < 0 ? NULL : alloc_block(c->size, gfp, i, s);
}

void weft_kmem_cache_free(struct kmem_cache *c, void *p, const struct weft_site *s)
{
	slab_fresh();
	if (cache_index(c, s) >= 0)
		free_block(c, p, s);
}

void weft_kmem_cache_destroy(struct kmem_cache *c, const struct weft_site *s)
{
	slab_fresh();
	if (!c || cache_index(c, s) < 0)
		return;
	unsigned ci = (unsigned)(c - slab.caches);
	/* its check reads every block's state, which allocations and frees
	 * write: the same point and allocator record they make */
	if (has_heap())
		slab_op(s);
	for (unsigned i = 0; i < slab.nr; i++)
		if (slab.b[i].cache == (int16_t)ci && !slab.b[i].freed &&
		    !weft_is_poisoned(M.world + slab.b[i].off)) {
			weft_report(WEFT_KIND_BAD_FREE, M.world + slab.b[i].off, s,
				    "%s: cache %s still has objects in use (kmem_cache_destroy() "
				    "of a cache with objects: the kernel's \"Objects remaining\")",
				    s->what, c->name);
			return;
		}
}

/* ------------------------------------------------------------- leaks */

static bool slab_describe(uint32_t off, char *buf, size_t n);

/* Marks the blocks the aligned words of [lo, hi) point into; how many
 * were new. */
static unsigned scan(const uint8_t *lo, const uint8_t *hi)
{
	unsigned fresh = 0;

	lo = (const uint8_t *)(((uintptr_t)lo + 7) & ~(uintptr_t)7);
	for (const uint8_t *p = lo; p + 8 <= hi; p += 8) {
		uintptr_t v;
		memcpy(&v, p, sizeof(v));
		int i = block_at(v);
		if (i >= 0 && !slab.b[i].mark) {
			slab.b[i].mark = 1;
			fresh++;
		}
	}
	return fresh;
}

static bool block_live(const struct block *b)
{
	return !b->freed && !weft_is_poisoned(M.world + b->off);
}

/* kmemleak's rule, as LeakSanitizer applies it to programs (rt_heap.c): a
 * live block no pointer reaches from the world, the families' core area,
 * the stacks of threads left asleep or from another reached block (an
 * interior pointer counts) is a memory-leak. Off with WEFT_LEAKS=0. */
static void slab_exec_end(void)
{
	static int leaks_on = -1;

	if (leaks_on < 0) {
		const char *e = getenv("WEFT_LEAKS");
		leaks_on = !(e && !strcmp(e, "0"));
	}
	if (!leaks_on || !has_heap() || slab.epoch != M.epoch || !slab.nr)
		return;
	for (unsigned i = 0; i < slab.nr; i++)
		slab.b[i].mark = 0;
	unsigned fresh = scan(M.world, M.world + heap_start());
	fresh += scan((const uint8_t *)M.core, (const uint8_t *)M.core + weft_core_size);
	for (unsigned t = 0; t < M.nr_threads; t++) {
		const struct wthread *w = &M.th[t];
		if (w->started && w->state != T_DONE && w->fib.sp)
			fresh += scan(w->fib.sp, (const uint8_t *)w->fib.stack_lo + w->fib.stack_size);
	}
	while (fresh) {
		fresh = 0;
		for (unsigned i = 0; i < slab.nr; i++)
			if (slab.b[i].mark == 1) {
				slab.b[i].mark = 2;
				fresh += scan(M.world + slab.b[i].off,
					      M.world + slab.b[i].off + slab.b[i].size);
			}
	}
	unsigned leaks = 0, bytes = 0;
	const struct block *first = NULL;
	for (unsigned i = 0; i < slab.nr; i++)
		if (!slab.b[i].mark && block_live(&slab.b[i])) {
			leaks++;
			bytes += slab.b[i].size;
			if (!first)
				first = &slab.b[i];
		}
	if (!first)
		return;
	struct weft_access alloc = { true, first->tid, first->tid < 0 ? -1 : M.cpu_of[first->tid],
				     first->step, first->site };
	char name[64], by[16];
	slab_describe(first->off, name, sizeof(name));
	if (first->tid < 0)
		snprintf(by, sizeof(by), "setup");
	else
		snprintf(by, sizeof(by), "T%d", first->tid);
	weft_report2(WEFT_KIND_MEMORY_LEAK, M.world + first->off, first->site, &alloc,
		     "%u heap block%s (%u bytes) allocated and never freed, with no pointer to "
		     "them left (kmemleak); the first, %s, allocated by %s", leaks,
		     leaks == 1 ? "" : "s", bytes, name, by);
}

/* "kmalloc-32 #3+0x8": the kernel's name of the block's cache, the block's
 * number in allocation order, the offset in it */
static bool slab_describe(uint32_t off, char *buf, size_t n)
{
	if (!has_heap() || off < heap_start() || off - heap_start() >= M.sc->heap_size ||
	    slab.epoch != M.epoch)
		return false;
	int i = block_at((uintptr_t)M.world + off);
	if (i < 0) {
		snprintf(buf, n, "heap+0x%x (never allocated)", off - heap_start());
		return true;
	}
	const struct block *b = &slab.b[i];
	if (b->cache >= 0)
		snprintf(buf, n, "%s #%d", slab.caches[b->cache].name, i);
	else
		snprintf(buf, n, "kmalloc-%u #%d", b->size, i);
	if (off != b->off) {
		size_t l = strlen(buf);
		snprintf(buf + l, n > l ? n - l : 0, "+0x%x", off - b->off);
	}
	return true;
}

const struct weft_family weft_family_slab = {
	.name = "slab",
	.describe = slab_describe,
	.exec_end = slab_exec_end,
};
