/*
 * <weft/linux/mm_compat.h> - pages, folios and the LRU of Linux 6.12
 * (include/linux/mm_types.h, page-flags.h, page_ref.h, mm.h, pagevec.h,
 * mmzone.h, mm_inline.h, memcontrol.h, swap.h) for functions taken from
 * mm/swap.c (docs/kernel-text.md). Written by this project: the kernel's
 * names, field names and flag numbers (6.12, x86-64: CONFIG_MMU=y,
 * CONFIG_MEMORY_FAILURE, CONFIG_PAGE_IDLE_FLAG, PG_arch_2/3 off), its
 * semantics for what is here, one node, one lruvec.
 *
 * Covered: struct page and struct folio (order 0: a folio is its page),
 * the page flags, generated from one list as page-flags.h generates them
 * (folio_test_*, folio_set_*, folio_clear_*, __folio_set_*,
 * __folio_clear_*, folio_test_set_*, folio_test_clear_*, and the
 * PageX/SetPageX/ClearPageX forms), page_ref.h, folio_get()/folio_put(),
 * struct folio_batch, struct lruvec with its lists and lock,
 * lruvec_add_folio(), lruvec_add_folio_tail(), lruvec_del_folio(),
 * folio_lruvec_relock_irqsave().
 * Out of scope, as in a kernel built without them (empty, or false):
 * memcg (one lruvec), MGLRU (lru_gen_enabled() false), VM event and
 * lruvec size statistics, tracepoints, mlock's per-CPU batches and buffer
 * heads (nothing here can fill them: mlock_folio() and buffer heads are
 * not provided, their calls would not link). Stubs that say so (a
 * limit-reached report): large folios, freeing a folio whose last
 * reference a batch drops (mm/page_alloc.c).
 *
 * Not with <weft/linux/swap_compat.h> in one program yet: that header
 * has its own smaller struct folio for the swap paths.
 */
#ifndef WEFT_LINUX_MM_COMPAT_H
#define WEFT_LINUX_MM_COMPAT_H

#ifdef WEFT_LINUX_SWAP_COMPAT_H
#error "<weft/linux/mm_compat.h> and <weft/linux/swap_compat.h> define struct folio each"
#endif

#include <weft/linux/kernel_compat.h>

struct address_space;
struct vm_area_struct;
struct mem_cgroup;
typedef struct { unsigned long val; } swp_entry_t;

/* ---------------------------------------------------- page-flags.h */
/* The flags of 6.12's enum pageflags, in its order: X(name, Name).
 * Everything below about flags is generated from this one list. */
#define WEFT_LINUX_PAGEFLAGS(X)                                                 \
	X(locked, Locked)                                                       \
	X(writeback, Writeback)                                                 \
	X(referenced, Referenced)                                               \
	X(uptodate, Uptodate)                                                   \
	X(dirty, Dirty)                                                         \
	X(lru, LRU)                                                             \
	X(head, Head)                                                           \
	X(waiters, Waiters)                                                     \
	X(active, Active)                                                       \
	X(workingset, Workingset)                                               \
	X(owner_priv_1, OwnerPriv1)                                             \
	X(owner_2, Owner2)                                                      \
	X(arch_1, Arch1)                                                        \
	X(reserved, Reserved)                                                   \
	X(private, Private)                                                     \
	X(private_2, Private2)                                                  \
	X(reclaim, Reclaim)                                                     \
	X(swapbacked, SwapBacked)                                               \
	X(unevictable, Unevictable)                                             \
	X(mlocked, Mlocked)

enum pageflags {
#define __WEFT_PG_ENUM(n, N) PG_##n,
	WEFT_LINUX_PAGEFLAGS(__WEFT_PG_ENUM)
#undef __WEFT_PG_ENUM
	__NR_PAGEFLAGS,
	PG_readahead = PG_reclaim,
	PG_swapcache = PG_owner_priv_1,
	PG_checked = PG_owner_priv_1,
	PG_anon_exclusive = PG_owner_2,
	PG_mappedtodisk = PG_owner_2,
	PG_isolated = PG_reclaim,
	PG_reported = PG_uptodate,
};

/* ------------------------------------------------------ mm_types.h */
/* The first fields of struct page and struct folio (6.12): flags, the LRU
 * link (or the mlock count), the mapping and the index. */
#define WEFT_LINUX_PAGE_HEAD                                                    \
	unsigned long flags;                                                    \
	union {                                                                 \
		struct list_head lru;                                           \
		struct {                                                        \
			void *__filler;                                         \
			unsigned int mlock_count;                               \
		};                                                              \
	};                                                                      \
	struct address_space *mapping;                                          \
	pgoff_t index;

/* struct page of 6.12, order-0 pages: the fields of the page-cache and
 * anonymous union arm, in order */
struct page {
	WEFT_LINUX_PAGE_HEAD
	unsigned long private;
	atomic_t _mapcount;       /* -1: no PTE maps it */
	atomic_t _refcount;
};

/* struct folio of 6.12: the first page's fields under the folio's names */
struct folio {
	WEFT_LINUX_PAGE_HEAD
	union {
		void *private;
		swp_entry_t swap;
	};
	atomic_t _mapcount;
	atomic_t _refcount;
};
_Static_assert(offsetof(struct folio, lru) == offsetof(struct page, lru), "folio.lru");
_Static_assert(offsetof(struct folio, _refcount) == offsetof(struct page, _refcount),
	       "folio._refcount");
#define page_folio(p) ((struct folio *)(p))
#define folio_page(f, n) ((struct page *)(f) + (n))
#define lru_to_folio(head) container_of((head)->prev, struct folio, lru)

#define PAGE_MAPPING_ANON 0x1
#define PAGE_MAPPING_MOVABLE 0x2
#define PAGE_MAPPING_FLAGS (PAGE_MAPPING_ANON | PAGE_MAPPING_MOVABLE)

/* The flag operations of page-flags.h for every flag of the list: the
 * atomic forms are the bitops (set_bit(): an unordered RMW), the __ forms
 * a plain load and store, the test_and forms fully ordered RMWs. */
#define __WEFT_PG_OPS(n, N)                                                     \
	static inline bool folio_test_##n(const struct folio *f)                \
	{ return test_bit(PG_##n, &f->flags); }                                 \
	static inline void folio_set_##n(struct folio *f) { set_bit(PG_##n, &f->flags); } \
	static inline void folio_clear_##n(struct folio *f) { clear_bit(PG_##n, &f->flags); } \
	static inline void __folio_set_##n(struct folio *f) { __set_bit(PG_##n, &f->flags); } \
	static inline void __folio_clear_##n(struct folio *f) { __clear_bit(PG_##n, &f->flags); } \
	static inline bool folio_test_set_##n(struct folio *f)                  \
	{ return test_and_set_bit(PG_##n, &f->flags); }                         \
	static inline bool folio_test_clear_##n(struct folio *f)                \
	{ return test_and_clear_bit(PG_##n, &f->flags); }                       \
	static inline int Page##N(const struct page *p) { return test_bit(PG_##n, &p->flags); } \
	static inline void SetPage##N(struct page *p) { set_bit(PG_##n, &p->flags); } \
	static inline void ClearPage##N(struct page *p) { clear_bit(PG_##n, &p->flags); }
WEFT_LINUX_PAGEFLAGS(__WEFT_PG_OPS)
#undef __WEFT_PG_OPS

static inline bool folio_test_swapcache(const struct folio *f)
{
	return folio_test_swapbacked(f) && test_bit(PG_swapcache, &f->flags);
}
static inline bool folio_test_anon(const struct folio *f)
{
	return ((unsigned long)READ_ONCE(f->mapping) & PAGE_MAPPING_ANON) != 0;
}
/* order 0 only: a large folio (PG_head) is out of scope */
static inline bool folio_test_large(const struct folio *f) { return folio_test_head(f); }
static inline long folio_nr_pages(const struct folio *f)
{
	if (folio_test_large(f))
		weft_linux_stub("a large folio (folio_nr_pages())");
	return 1;
}
static inline unsigned folio_order(const struct folio *f) { (void)f; return 0; }
static inline bool folio_mapped(const struct folio *f) { return atomic_read(&f->_mapcount) >= 0; }

/* -------------------------------------------------------- page_ref.h */
static inline int folio_ref_count(const struct folio *f) { return atomic_read(&f->_refcount); }
static inline int page_ref_count(const struct page *p) { return atomic_read(&p->_refcount); }
static inline void set_page_count(struct page *p, int v) { atomic_set(&p->_refcount, v); }
static inline void folio_set_count(struct folio *f, int v) { atomic_set(&f->_refcount, v); }
static inline void folio_ref_add(struct folio *f, int nr) { atomic_add(nr, &f->_refcount); }
static inline void folio_ref_sub(struct folio *f, int nr) { atomic_sub(nr, &f->_refcount); }
static inline void folio_ref_inc(struct folio *f) { atomic_inc(&f->_refcount); }
static inline void folio_ref_dec(struct folio *f) { atomic_dec(&f->_refcount); }
static inline int folio_ref_sub_return(struct folio *f, int nr)
{
	return atomic_sub_return(nr, &f->_refcount);
}
static inline bool folio_ref_sub_and_test(struct folio *f, int nr)
{
	return atomic_sub_and_test(nr, &f->_refcount);
}
static inline bool folio_ref_dec_and_test(struct folio *f) { return folio_ref_sub_and_test(f, 1); }
/* atomic_add_unless(&_refcount, 1, 0) */
static inline bool folio_ref_try_add(struct folio *f, int nr)
{
	int old = atomic_read(&f->_refcount);

	do {
		if (old == 0)
			return false;
	} while (!__atomic_compare_exchange_n(&f->_refcount.counter, &old, old + nr, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	return true;
}
static inline bool folio_try_get(struct folio *f) { return folio_ref_try_add(f, 1); }
static inline bool folio_ref_freeze(struct folio *f, int count)
{
	int old = count;

	return __atomic_compare_exchange_n(&f->_refcount.counter, &old, 0, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
static inline void folio_ref_unfreeze(struct folio *f, int count)
{
	VM_BUG_ON_FOLIO(folio_ref_count(f) != 0, f);
	__atomic_store_n(&f->_refcount.counter, count, __ATOMIC_RELEASE);
}

/* ----------------------------------------------------------- mm.h */
static inline void folio_get(struct folio *f)
{
	VM_BUG_ON_FOLIO(folio_ref_count(f) <= 0, f);
	folio_ref_inc(f);
}
/* __folio_put(): freeing is mm/page_alloc.c's, out of scope */
static inline void folio_put(struct folio *f)
{
	int v = folio_ref_sub_return(f, 1);

	if (v < 0)
		weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, f, WEFT_SITE(WEFT_EV_NOTE, "folio_put"),
			    "folio refcount underflow: %d", v);
	else if (v == 0)
		weft_linux_stub("freeing a folio (__folio_put(), mm/page_alloc.c)");
}
#define put_page(p) folio_put(page_folio(p))
#define get_page(p) folio_get(page_folio(p))

/* --------------------------------------------------------- pagevec.h */
#define PAGEVEC_SIZE 31
struct folio_batch {
	unsigned char nr;
	unsigned char i;
	bool percpu_pvec_drained;
	struct folio *folios[PAGEVEC_SIZE];
};
static inline void folio_batch_init(struct folio_batch *fb)
{
	fb->nr = 0;
	fb->i = 0;
	fb->percpu_pvec_drained = false;
}
static inline void folio_batch_reinit(struct folio_batch *fb)
{
	fb->nr = 0;
	fb->i = 0;
}
static inline unsigned int folio_batch_count(struct folio_batch *fb) { return fb->nr; }
static inline unsigned int folio_batch_space(struct folio_batch *fb)
{
	return PAGEVEC_SIZE - fb->nr;
}
static inline unsigned folio_batch_add(struct folio_batch *fb, struct folio *folio)
{
	fb->folios[fb->nr++] = folio;
	return folio_batch_space(fb);
}
/* folios_put(): mm/swap.c's folios_put_refs() for folios that keep a
 * reference (a batch's is never the last one here: freeing is a stub) */
static inline void folios_put(struct folio_batch *fb)
{
	for (unsigned i = 0; i < fb->nr; i++)
		folio_put(fb->folios[i]);
	folio_batch_reinit(fb);
}

/* ---------------------------------------------------------- mmzone.h */
enum lru_list {
	LRU_INACTIVE_ANON,
	LRU_ACTIVE_ANON,
	LRU_INACTIVE_FILE,
	LRU_ACTIVE_FILE,
	LRU_UNEVICTABLE,
	NR_LRU_LISTS
};
#define LRU_ACTIVE 1
#define LRU_FILE 2
struct lruvec {
	struct list_head lists[NR_LRU_LISTS];
	spinlock_t lru_lock;
};
/* the node's lruvec (one node, no memcg: &NODE_DATA(nid)->__lruvec) */
static struct lruvec weft_linux_lruvec;
static inline void weft_linux_lruvec_init(void)
{
	for (int l = 0; l < NR_LRU_LISTS; l++)
		INIT_LIST_HEAD(&weft_linux_lruvec.lists[l]);
	spin_lock_init(&weft_linux_lruvec.lru_lock);
}
static inline struct lruvec *folio_lruvec(struct folio *f) { (void)f; return &weft_linux_lruvec; }
static inline struct mem_cgroup *lruvec_memcg(struct lruvec *l) { (void)l; return NULL; }
static inline bool folio_matches_lruvec(struct folio *f, struct lruvec *l)
{
	return folio_lruvec(f) == l;
}
static inline struct lruvec *folio_lruvec_lock_irqsave(struct folio *f, unsigned long *flags)
{
	struct lruvec *l = folio_lruvec(f);

	spin_lock_irqsave(&l->lru_lock, *flags);
	return l;
}
static inline void unlock_page_lruvec_irqrestore(struct lruvec *l, unsigned long flags)
{
	spin_unlock_irqrestore(&l->lru_lock, flags);
}
/* memcontrol.h */
static inline void folio_lruvec_relock_irqsave(struct folio *f, struct lruvec **lp,
					       unsigned long *flags)
{
	if (*lp) {
		if (folio_matches_lruvec(f, *lp))
			return;
		unlock_page_lruvec_irqrestore(*lp, *flags);
	}
	*lp = folio_lruvec_lock_irqsave(f, flags);
}

/* -------------------------------------------------------- mm_inline.h */
static inline int folio_is_file_lru(struct folio *f) { return !folio_test_swapbacked(f); }
static inline enum lru_list folio_lru_list(struct folio *f)
{
	enum lru_list lru;

	VM_BUG_ON_FOLIO(folio_test_active(f) && folio_test_unevictable(f), f);
	if (folio_test_unevictable(f))
		return LRU_UNEVICTABLE;
	lru = folio_is_file_lru(f) ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON;
	if (folio_test_active(f))
		lru += LRU_ACTIVE;
	return lru;
}
/* update_lru_size() is statistics: out of scope. The unevictable list is
 * a list here too (the kernel keeps it only under CONFIG_MMU's mlock
 * rules; the harness's audit walks every list). */
static inline void lruvec_add_folio(struct lruvec *l, struct folio *f)
{
	list_add(&f->lru, &l->lists[folio_lru_list(f)]);
}
static inline void lruvec_add_folio_tail(struct lruvec *l, struct folio *f)
{
	list_add_tail(&f->lru, &l->lists[folio_lru_list(f)]);
}
static inline void lruvec_del_folio(struct lruvec *l, struct folio *f)
{
	(void)l;
	list_del(&f->lru);
}
/* mm/internal.h: no mapping is unevictable here */
static inline bool folio_evictable(struct folio *f) { return !folio_test_mlocked(f); }

/* ----------------------------------------------- swap.h, out of scope */
static atomic_t lru_disable_count;
static inline bool lru_cache_disabled(void) { return atomic_read(&lru_disable_count); }
static inline bool folio_may_be_lru_cached(struct folio *f) { return !folio_test_large(f); }
#define lru_gen_enabled() false
#define lru_gen_in_fault() false
struct task_struct { unsigned int flags; };
static struct task_struct weft_linux_task __maybe_unused;
#define current (&weft_linux_task)
#define PF_MEMALLOC 0x00000800
/* mlock's per-CPU batches (mm/mlock.c) and buffer-head LRUs
 * (fs/buffer.c): nothing here can fill them */
static inline void mlock_drain_local(void) {}
static inline bool need_mlock_drain(int cpu) { (void)cpu; return false; }
static inline void invalidate_bh_lrus_cpu(void) {}
static inline bool has_bh_in_lru(int cpu, void *dummy) { (void)cpu; (void)dummy; return false; }
/* vmstat and memcg event counters, tracepoints */
enum vm_event_item { PGACTIVATE, PGDEACTIVATE, PGLAZYFREE, PGROTATED, UNEVICTABLE_PGCULLED,
		     UNEVICTABLE_PGRESCUED };
#define __count_vm_events(item, delta) ((void)(item), (void)(delta))
#define __count_memcg_events(memcg, item, delta) ((void)(memcg), (void)(item), (void)(delta))
#define trace_mm_lru_insertion(folio) ((void)(folio))
#define trace_mm_lru_activate(folio) ((void)(folio))
/* workingset_activation() (mm/workingset.c) counts an activation in the
 * memcg's WORKINGSET_ACTIVATE statistics: statistics, out of scope */
static inline void workingset_activation(struct folio *f) { (void)f; }
/* page_idle.h without CONFIG_PAGE_IDLE_FLAG: no idle or young tracking */
static inline bool folio_test_idle(const struct folio *f) { (void)f; return false; }
static inline void folio_set_idle(struct folio *f) { (void)f; }
static inline void folio_clear_idle(struct folio *f) { (void)f; }
static inline bool folio_test_young(const struct folio *f) { (void)f; return false; }
static inline void folio_set_young(struct folio *f) { (void)f; }
static inline bool folio_test_clear_young(struct folio *f) { (void)f; return false; }

/* ------------------------------------------------ the harness's audits */
/* Every folio is on at most one LRU list, exactly when PG_lru is set, and
 * the lists are well linked; nr folios of the array are checked. Read at
 * quiescence (after the threads are joined). */
static inline void weft_linux_lru_audit(struct folio *folios, int nr)
{
	int on[64] = { 0 };

	for (int l = 0; l < NR_LRU_LISTS; l++) {
		struct list_head *h = &weft_linux_lruvec.lists[l], *e = h->next;
		for (int steps = 0; e != h; e = e->next, steps++) {
			struct folio *f = container_of(e, struct folio, lru);
			long i = f - folios;
			if (steps > nr || i < 0 || i >= nr || i >= 64 || e->next->prev != e) {
				weft_report(WEFT_KIND_LRU_STATE, h, WEFT_SITE(WEFT_EV_NOTE, "lru audit"),
					    "LRU list %d is corrupt", l);
				return;
			}
			on[i]++;
		}
	}
	for (int i = 0; i < nr && i < 64; i++)
		if (on[i] > 1 || (on[i] == 1) != folio_test_lru(&folios[i]))
			weft_report(WEFT_KIND_LRU_STATE, &folios[i],
				    WEFT_SITE(WEFT_EV_NOTE, "lru audit"),
				    "folio %d: on %d LRU lists, PG_lru %d", i, on[i],
				    (int)folio_test_lru(&folios[i]));
}

#endif
