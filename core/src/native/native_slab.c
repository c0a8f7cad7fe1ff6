/*
 * native_slab.c - <weft/slab.h> for weft stress: the host's allocator.
 * kmalloc() is calloc() (zeroed, as under Weft), kfree() is free(); a
 * SLAB_TYPESAFE_BY_RCU cache never gives its objects back to the host (its
 * readers may still look at them): a freed one goes on the cache's
 * freelist, newest first, and is the next one handed out. The checks
 * (double and invalid frees) are Weft's, not this build's: under
 * AddressSanitizer the host's allocator reports them.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/slab.h>

#define SLAB_ALIGN 16u

struct kmem_cache {
	char name[32];
	size_t size;
	unsigned long flags;
	void (*ctor)(void *);
	pthread_mutex_t lock;
	void **free_head;   /* typesafe caches: the freelist (first word: next) */
};

static size_t rounded(size_t size)
{
	return ((size ? size : 1) + SLAB_ALIGN - 1) / SLAB_ALIGN * SLAB_ALIGN;
}

/* a block: a 16-byte header holding its usable size, then the object */
void *weft_kmalloc(size_t size, unsigned int gfp, const struct weft_site *s)
{
	size_t n = rounded(size);
	uint8_t *b;

	(void)gfp;
	(void)s;
	if (n > SIZE_MAX - SLAB_ALIGN || !(b = calloc(1, n + SLAB_ALIGN)))
		return NULL;
	memcpy(b, &n, sizeof(n));
	return b + SLAB_ALIGN;
}

void *weft_kmalloc_array(size_t n, size_t size, unsigned int gfp, const struct weft_site *s)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return weft_kmalloc(n * size, gfp, s);
}

void weft_slab_free(const void *p, const struct weft_site *s)
{
	(void)s;
	if (p)
		free((uint8_t *)p - SLAB_ALIGN);
}

size_t weft_ksize(const void *p)
{
	size_t n = 0;

	if (p)
		memcpy(&n, (const uint8_t *)p - SLAB_ALIGN, sizeof(n));
	return n;
}

struct kmem_cache *weft_kmem_cache_create(const char *name, size_t size, unsigned long flags,
					  void (*ctor)(void *), const struct weft_site *s)
{
	struct kmem_cache *c = calloc(1, sizeof(*c));

	(void)s;
	if (!c)
		return NULL;
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "(unnamed)");
	c->size = rounded(size < sizeof(void *) ? sizeof(void *) : size);
	c->flags = flags;
	c->ctor = ctor;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void *weft_kmem_cache_alloc(struct kmem_cache *c, unsigned int gfp, const struct weft_site *s)
{
	void *p = NULL;

	if (c->flags & SLAB_TYPESAFE_BY_RCU) {
		pthread_mutex_lock(&c->lock);
		if (c->free_head) {
			p = c->free_head;
			c->free_head = *(void ***)p;
		}
		pthread_mutex_unlock(&c->lock);
		if (p) {
			if (gfp & __GFP_ZERO)
				memset(p, 0, c->size);
			return p;
		}
	}
	p = weft_kmalloc(c->size, gfp, s);
	if (p && c->ctor)
		c->ctor(p);
	return p;
}

void weft_kmem_cache_free(struct kmem_cache *c, void *p, const struct weft_site *s)
{
	if (!p)
		return;
	if (!(c->flags & SLAB_TYPESAFE_BY_RCU)) {
		weft_slab_free(p, s);
		return;
	}
	pthread_mutex_lock(&c->lock);
	*(void ***)p = c->free_head;
	c->free_head = p;
	pthread_mutex_unlock(&c->lock);
}

void weft_kmem_cache_destroy(struct kmem_cache *c, const struct weft_site *s)
{
	if (!c)
		return;
	while (c->free_head) {
		void **p = c->free_head;
		c->free_head = *p;
		weft_slab_free(p, s);
	}
	pthread_mutex_destroy(&c->lock);
	free(c);
}
