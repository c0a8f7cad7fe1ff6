/*
 * mm_shmem.c - the v3.0 (2011) swap device of mm_shmem.h: swap_map byte
 * arithmetic of that era, the swap cache, the slot audit.
 *
 * Every swap_map and cache access is one primitive under its lock; the
 * checks around a byte change read nothing else, so a check and the
 * change it guards see the same byte.
 */
#define WEFT_KIT_INTERNAL 1
#include <weft/mm/shmem.h>

void weft_swap11_init(struct weft_swap11 *si, struct weft_mm *mm, unsigned nr_slots)
{
	if (!WEFT_CHECK_WORLD(si, "weft_swap11_init()"))
		return;
	si->mm = mm;
	si->nr_slots = nr_slots < WEFT_SWAP11_MAX_SLOTS ? nr_slots : WEFT_SWAP11_MAX_SLOTS;
}

int weft_swap11_get_swap_page(struct weft_swap11 *si)
{
	int slot = -1;

	spin_lock(&si->swap_lock);
	/* scan_swap_map(si, SWAP_HAS_CACHE): the lowest free slot */
	for (unsigned i = 0; i < si->nr_slots; i++) {
		if (READ_ONCE(si->swap_map[i]))
			continue;
		WRITE_ONCE(si->swap_map[i], WEFT_SWAP11_HAS_CACHE);
		WRITE_ONCE(si->inuse_pages, READ_ONCE(si->inuse_pages) + 1);
		slot = (int)i;
		break;
	}
	spin_unlock(&si->swap_lock);
	return slot;
}

int weft_swap11_duplicate(struct weft_swap11 *si, unsigned slot, uint8_t usage)
{
	uint8_t byte, count, has_cache;
	int err = 0;

	spin_lock(&si->swap_lock);
	byte = READ_ONCE(si->swap_map[slot]);
	has_cache = byte & WEFT_SWAP11_HAS_CACHE;
	count = WEFT_SWAP11_COUNT(byte);
	if (usage == WEFT_SWAP11_HAS_CACHE) {
		/* swapcache_prepare(): pin an entry that is in use */
		if (!has_cache && count)
			has_cache = WEFT_SWAP11_HAS_CACHE;
		else if (has_cache)
			err = WEFT_SWAP11_EEXIST;
		else
			err = WEFT_SWAP11_ENOENT;
	} else if (count || has_cache) {
		if ((count & ~WEFT_SWAP11_COUNT_CONTINUED) < WEFT_SWAP11_MAP_MAX)
			count = (uint8_t)(count + usage);
		else
			/* > MAX (SHMEM, BAD); == MAX would need count
			 * continuation, which no path of the model reaches */
			err = WEFT_SWAP11_EINVAL;
	} else {
		err = WEFT_SWAP11_ENOENT;
	}
	WRITE_ONCE(si->swap_map[slot], (uint8_t)(count | has_cache));
	spin_unlock(&si->swap_lock);
	return err;
}

uint8_t __weft_swap11_entry_free(struct weft_swap11 *si, unsigned slot, uint8_t usage)
{
	uint8_t byte = READ_ONCE(si->swap_map[slot]);
	uint8_t has_cache = byte & WEFT_SWAP11_HAS_CACHE;
	uint8_t count = WEFT_SWAP11_COUNT(byte);
	bool wrapped = false;

	if (usage == WEFT_SWAP11_HAS_CACHE) {
		if (!has_cache) {
			struct weft_access other = weft_last_write(&si->swap_map[slot]);

			weft_report2(WEFT_KIND_SWAP_UNDERFLOW, &si->swap_map[slot],
				     WEFT_SITE(WEFT_EV_NOTE, "swap_entry_free: VM_BUG_ON(!has_cache)"),
				     &other, "SWAP_HAS_CACHE dropped from slot %u (0x%02x) that has none",
				     slot, byte);
			return byte;
		}
		has_cache = 0;
	} else if (count == WEFT_SWAP11_MAP_SHMEM) {
		count = 0;
	} else if ((count & ~WEFT_SWAP11_COUNT_CONTINUED) <= WEFT_SWAP11_MAP_MAX) {
		/* v3.0 decrements an unsigned char: 0 wraps to 0xff */
		wrapped = count == 0;
		count = (uint8_t)(count - 1);
	}
	uint8_t now = (uint8_t)(count | has_cache);
	/* the other side of a wrap: whoever set the byte it decrements */
	struct weft_access other = weft_last_write(&si->swap_map[slot]);

	WRITE_ONCE(si->swap_map[slot], now);
	if (wrapped) {
		weft_report2(WEFT_KIND_SWAP_UNDERFLOW, &si->swap_map[slot],
			     WEFT_SITE(WEFT_EV_NOTE, "swap_entry_free: count-- on a count of 0"),
			     &other, "swap slot %u: a reference dropped from count 0: 0x%02x -> 0x%02x "
			     "(reads as SWAP_MAP_SHMEM%s, owned by nobody)", slot, byte, now,
			     has_cache ? " | SWAP_HAS_CACHE" : "");
		return now;
	}
	if (!now)
		WRITE_ONCE(si->inuse_pages, READ_ONCE(si->inuse_pages) - 1);
	return now;
}

uint8_t weft_swap11_entry_free(struct weft_swap11 *si, unsigned slot, uint8_t usage)
{
	uint8_t now;

	spin_lock(&si->swap_lock);
	now = __weft_swap11_entry_free(si, slot, usage);
	spin_unlock(&si->swap_lock);
	return now;
}

void weft_swap11_add_to_cache(struct weft_swap11 *si, struct weft_page *p, unsigned slot)
{
	weft_get_page(si->mm, p);
	spin_lock(&si->cache_lock);
	weft_page_set(p, swapcache);
	WRITE_ONCE(p->private, (unsigned long)slot);
	WRITE_ONCE(si->cache[slot], p);
	spin_unlock(&si->cache_lock);
}

void weft_swap11_delete_from_cache(struct weft_swap11 *si, struct weft_page *p)
{
	unsigned slot = (unsigned)READ_ONCE(p->private);

	spin_lock(&si->cache_lock);
	WRITE_ONCE(si->cache[slot], NULL);
	weft_page_clear(p, swapcache);
	WRITE_ONCE(p->private, 0ul);
	spin_unlock(&si->cache_lock);
	weft_swap11_entry_free(si, slot, WEFT_SWAP11_HAS_CACHE);     /* swapcache_free() */
}

struct weft_page *weft_swap11_lookup(struct weft_swap11 *si, unsigned slot)
{
	struct weft_page *p;

	spin_lock(&si->cache_lock);
	p = READ_ONCE(si->cache[slot]);
	if (p)
		weft_get_page(si->mm, p);
	spin_unlock(&si->cache_lock);
	return p;
}

unsigned weft_swap11_audit(struct weft_swap11 *si,
			   unsigned (*owners)(const void *ctx, unsigned slot), const void *ctx)
{
	unsigned problems = 0, inuse = 0;

	for (unsigned s = 0; s < si->nr_slots; s++) {
		uint8_t byte = weft_peek(si->swap_map[s]);
		uint8_t count = WEFT_SWAP11_COUNT(byte);
		unsigned own = owners(ctx, s);
		bool cached = weft_peek(si->cache[s]) != NULL;
		const char *why = NULL;

		inuse += byte != 0;
		if (own > 1)
			why = "named by more than one shmem index entry";
		else if (own == 1 && count != WEFT_SWAP11_MAP_SHMEM)
			why = "a shmem index entry names it but its count is not SWAP_MAP_SHMEM";
		else if (own == 0 && count)
			why = "a count with no shmem index entry behind it";
		else if (cached != !!(byte & WEFT_SWAP11_HAS_CACHE))
			why = cached ? "a swap-cache page without SWAP_HAS_CACHE" :
				       "SWAP_HAS_CACHE without a swap-cache page";
		if (!why || problems++)
			continue;
		weft_report(WEFT_KIND_SLOT_LEAK, &si->swap_map[s],
			    WEFT_SITE(WEFT_EV_NOTE, "audit: swap slot owned as counted"),
			    "swap slot %u is 0x%02x: %s (%u index entries, %s swap cache)", s, byte,
			    why, own, cached ? "in the" : "not in the");
	}
	if (!problems && inuse != weft_peek(si->inuse_pages)) {
		problems++;
		weft_report(WEFT_KIND_SLOT_LEAK, &si->inuse_pages,
			    WEFT_SITE(WEFT_EV_NOTE, "audit: inuse_pages == slots in use"),
			    "inuse_pages is %u but %u slots are in use", weft_peek(si->inuse_pages),
			    inuse);
	}
	return problems;
}

bool weft_swap11_describe(const struct weft_swap11 *si, const void *world, uint32_t off,
			  char *buf, size_t n)
{
	uintptr_t base = (uintptr_t)si - (uintptr_t)world;
	uint32_t rel;

	if (off < base || off >= base + sizeof(*si))
		return false;
	rel = (uint32_t)(off - base);
	if (rel >= offsetof(struct weft_swap11, swap_map) &&
	    rel < offsetof(struct weft_swap11, swap_map) + sizeof(si->swap_map)) {
		unsigned s = rel - (uint32_t)offsetof(struct weft_swap11, swap_map);

		snprintf(buf, n, "swap slot %u (0x%02x)", s, weft_peek(si->swap_map[s]));
	} else if (rel >= offsetof(struct weft_swap11, cache) &&
		   rel < offsetof(struct weft_swap11, cache) + sizeof(si->cache)) {
		snprintf(buf, n, "swap cache slot %u",
			 (unsigned)((rel - offsetof(struct weft_swap11, cache)) /
				    sizeof(si->cache[0])));
	} else if (rel >= offsetof(struct weft_swap11, swap_lock) &&
		   rel < offsetof(struct weft_swap11, swap_lock) + sizeof(si->swap_lock)) {
		snprintf(buf, n, "swap_lock");
	} else if (rel >= offsetof(struct weft_swap11, cache_lock) &&
		   rel < offsetof(struct weft_swap11, cache_lock) + sizeof(si->cache_lock)) {
		snprintf(buf, n, "swapper_space.tree_lock");
	} else if (rel >= offsetof(struct weft_swap11, inuse_pages) &&
		   rel < offsetof(struct weft_swap11, inuse_pages) + sizeof(si->inuse_pages)) {
		snprintf(buf, n, "inuse_pages");
	} else {
		snprintf(buf, n, "swap+0x%x", rel);
	}
	return true;
}

uint32_t weft_swap11_state_bucket(const struct weft_swap11 *si, const void *world,
				  uint32_t off)
{
	uintptr_t m = (uintptr_t)si->swap_map - (uintptr_t)world;

	if (off < m || off >= m + si->nr_slots)
		return 0;
	unsigned s = (unsigned)(off - m);
	uint8_t byte = weft_peek(si->swap_map[s]);
	uint8_t count = WEFT_SWAP11_COUNT(byte);
	uint32_t cb = count == 0 ? 0 : count <= WEFT_SWAP11_MAP_MAX ? 1 :
		      count == WEFT_SWAP11_MAP_SHMEM ? 2 : 3;

	return 1 + (cb | (uint32_t)!!(byte & WEFT_SWAP11_HAS_CACHE) << 2 | (uint32_t)s << 3);
}
