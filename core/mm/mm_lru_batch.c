/*
 * mm_lru_batch.c - per-CPU folio batches (<weft/mm/lru_batch.h>), after
 * mm/swap.c of v6.1: folio_add_lru(), folio_rotate_reclaimable() with
 * lru_move_tail_fn(), folio_deactivate(), folio_batch_move_lru(),
 * lru_add_drain_cpu(), lru_add_drain(); cpu_needs_drain() of
 * __lru_add_drain_all(). The batches are per-CPU world data; every access
 * to them is a primitive, under the local lock that keeps the CPU's other
 * contexts out (preemption off; interrupts too for lru_move_tail).
 */
#define WEFT_KIT_INTERNAL 1
#include <string.h>

#include <weft/mm/lru_batch.h>
#include <weft/workqueue.h>

struct workqueue_struct weft_mm_percpu_wq = { "mm_percpu_wq" };

void weft_lru_batches_init(struct weft_lru_batches *b, struct weft_lru *lru, unsigned size)
{
	memset(b, 0, sizeof(*b));
	if (!WEFT_CHECK_WORLD(b, "weft_lru_batches_init()"))
		return;
	b->lru = lru;
	b->size = size < 1 ? 1 : size > WEFT_FBATCH_MAX ? WEFT_FBATCH_MAX : size;
}

void weft_lru_batches_setup(struct weft_lru_batches *b, struct weft_lru *lru, struct weft_mm *mm,
			    unsigned nr_pages, unsigned size)
{
	weft_mm_init(mm, nr_pages, false);
	weft_lru_init(lru, mm, WEFT_LRU_UNLESS_ZERO, false);
	weft_lru_batches_init(b, lru, size);
}

/* folio_batch_add(): false when the batch is now full. */
static bool fbatch_add(struct weft_lru_batches *b, struct weft_folio_batch *fb,
		       struct weft_page *p)
{
	uint32_t nr = READ_ONCE(fb->nr);

	WRITE_ONCE(fb->pages[nr], p);
	WRITE_ONCE(fb->nr, nr + 1);
	return nr + 1 < b->size;
}

enum move { MOVE_ADD, MOVE_TAIL, MOVE_DEACTIVATE };

/* folio_batch_move_lru(): move every page under the LRU lock, then drop
 * the batch's references (release_pages), emptying the batch. */
static void fbatch_move_lru(struct weft_lru_batches *b, struct weft_folio_batch *fb,
			    enum move how)
{
	struct weft_lru *lru = b->lru;
	struct weft_page *pages[WEFT_FBATCH_MAX];
	uint32_t nr = READ_ONCE(fb->nr);
	unsigned long flags;

	if (nr > WEFT_FBATCH_MAX)
		nr = WEFT_FBATCH_MAX;
	for (uint32_t i = 0; i < nr; i++)
		pages[i] = READ_ONCE(fb->pages[i]);
	spin_lock_irqsave(&lru->lock, flags);
	for (uint32_t i = 0; i < nr; i++) {
		struct weft_page *p = pages[i];
		switch (how) {
		case MOVE_ADD:
			/* lru_add_fn(): a page is added once */
			VM_BUG_ON_OBJ(weft_page_test(p, lru), p);
			weft_page_set(p, lru);
			weft_list_add(&p->lru, weft_page_test(p, active) ? &lru->active
									  : &lru->inactive);
			break;
		case MOVE_TAIL:
			/* lru_move_tail_fn(): still on the LRU and inactive */
			if (weft_page_test(p, lru) && !weft_page_test(p, active)) {
				weft_list_del(&p->lru);
				weft_list_add_tail(&p->lru, &lru->inactive);
			}
			break;
		case MOVE_DEACTIVATE:
			if (weft_page_test(p, lru) && weft_page_test(p, active)) {
				weft_list_del(&p->lru);
				weft_page_clear(p, active);
				weft_list_add(&p->lru, &lru->inactive);
			}
			break;
		}
	}
	spin_unlock_irqrestore(&lru->lock, flags);
	WRITE_ONCE(fb->nr, 0);
	weft_release_pages(lru, pages, nr);
}

void weft_folio_add_lru(struct weft_lru_batches *b, struct weft_page *p)
{
	weft_get_page(b->lru->mm, p);   /* the batch's reference */
	local_lock(&b->cpu[0].lock);   /* this CPU's: preemption off */
	struct weft_cpu_fbatches *c = &b->cpu[raw_smp_processor_id()];
	if (!fbatch_add(b, &c->lru_add, p))
		fbatch_move_lru(b, &c->lru_add, MOVE_ADD);
	local_unlock(&b->cpu[0].lock);
}

void weft_folio_rotate_reclaimable(struct weft_lru_batches *b, struct weft_page *p)
{
	unsigned long flags;

	if (!weft_page_test(p, lru) || weft_page_test(p, active))
		return;
	weft_get_page(b->lru->mm, p);
	local_lock_irqsave(&b->cpu[0].lock_irq, flags);   /* this CPU's */
	struct weft_cpu_fbatches *c = &b->cpu[raw_smp_processor_id()];
	if (!fbatch_add(b, &c->lru_move_tail, p))
		fbatch_move_lru(b, &c->lru_move_tail, MOVE_TAIL);
	local_unlock_irqrestore(&b->cpu[0].lock_irq, flags);
}

void weft_folio_deactivate(struct weft_lru_batches *b, struct weft_page *p)
{
	if (!weft_page_test(p, lru) || !weft_page_test(p, active))
		return;
	weft_get_page(b->lru->mm, p);
	local_lock(&b->cpu[0].lock);   /* this CPU's: preemption off */
	struct weft_cpu_fbatches *c = &b->cpu[raw_smp_processor_id()];
	if (!fbatch_add(b, &c->lru_deactivate, p))
		fbatch_move_lru(b, &c->lru_deactivate, MOVE_DEACTIVATE);
	local_unlock(&b->cpu[0].lock);
}

void weft_lru_add_drain_cpu(struct weft_lru_batches *b, unsigned cpu)
{
	struct weft_cpu_fbatches *c = &b->cpu[weft_percpu_slot(cpu, WEFT_MAX_CPUS)];
	unsigned long flags;

	if (READ_ONCE(c->lru_add.nr))
		fbatch_move_lru(b, &c->lru_add, MOVE_ADD);
	if (READ_ONCE(c->lru_move_tail.nr)) {
		/* the rotate batch is filled from interrupts: mask them */
		local_irq_save(flags);
		fbatch_move_lru(b, &c->lru_move_tail, MOVE_TAIL);
		local_irq_restore(flags);
	}
	if (READ_ONCE(c->lru_deactivate.nr))
		fbatch_move_lru(b, &c->lru_deactivate, MOVE_DEACTIVATE);
}

void weft_lru_add_drain(struct weft_lru_batches *b)
{
	local_lock(&b->cpu[0].lock);   /* this CPU's: preemption off */
	weft_lru_add_drain_cpu(b, raw_smp_processor_id());
	local_unlock(&b->cpu[0].lock);
}

bool weft_lru_cpu_needs_drain(struct weft_lru_batches *b, unsigned cpu)
{
	struct weft_cpu_fbatches *c = &b->cpu[weft_percpu_slot(cpu, WEFT_MAX_CPUS)];

	return READ_ONCE(c->lru_add.nr) || READ_ONCE(c->lru_move_tail.nr) ||
	       READ_ONCE(c->lru_deactivate.nr);
}

unsigned weft_lru_batch_refs(const struct weft_lru_batches *b, const struct weft_page *p)
{
	unsigned n = 0;

	for (unsigned c = 0; c < WEFT_MAX_CPUS; c++) {
		const struct weft_folio_batch *fbs[3] = { &b->cpu[c].lru_add, &b->cpu[c].lru_move_tail,
							  &b->cpu[c].lru_deactivate };
		for (unsigned k = 0; k < 3; k++) {
			uint32_t nr = weft_peek(fbs[k]->nr);
			for (uint32_t i = 0; i < nr && i < WEFT_FBATCH_MAX; i++)
				n += weft_peek(fbs[k]->pages[i]) == p;
		}
	}
	return n;
}

unsigned weft_lru_batched(const struct weft_lru_batches *b, unsigned cpu)
{
	const struct weft_cpu_fbatches *c = &b->cpu[weft_percpu_slot(cpu, WEFT_MAX_CPUS)];

	return weft_peek(c->lru_add.nr) + weft_peek(c->lru_move_tail.nr) +
	       weft_peek(c->lru_deactivate.nr);
}

int weft_lru_batch_cpu(const struct weft_lru_batches *b, const struct weft_page *p)
{
	for (unsigned c = 0; c < WEFT_MAX_CPUS; c++) {
		const struct weft_folio_batch *fb = &b->cpu[c].lru_add;
		uint32_t nr = weft_peek(fb->nr);

		for (uint32_t i = 0; i < nr && i < WEFT_FBATCH_MAX; i++)
			if (weft_peek(fb->pages[i]) == p)
				return (int)c;
	}
	return -1;
}

uint32_t weft_lru_batches_state_bucket(const struct weft_lru_batches *b, const void *world,
				       uint32_t off)
{
	uintptr_t a = (uintptr_t)world + off;

	for (unsigned c = 0; c < WEFT_MAX_CPUS; c++)
		if (a == (uintptr_t)&b->cpu[c].lru_add.nr)
			return 0x20000u | c << 8 | weft_peek(b->cpu[c].lru_add.nr);
	return 0;
}

bool weft_lru_batches_describe(const struct weft_lru_batches *b, const void *world,
			       uint32_t off, char *buf, size_t n)
{
	uintptr_t base = (uintptr_t)b - (uintptr_t)world, a = (uintptr_t)world + off;

	if (off < base || off >= base + sizeof(*b))
		return false;
	for (unsigned c = 0; c < WEFT_MAX_CPUS; c++) {
		const struct weft_cpu_fbatches *f = &b->cpu[c];
		const struct {
			const char *name;
			const struct weft_folio_batch *fb;
		} bs[3] = { { "lru_add", &f->lru_add }, { "lru_move_tail", &f->lru_move_tail },
			    { "lru_deactivate", &f->lru_deactivate } };
		for (unsigned k = 0; k < 3; k++) {
			uintptr_t lo = (uintptr_t)bs[k].fb;
			if (a == (uintptr_t)&bs[k].fb->nr) {
				snprintf(buf, n, "CPU%u %s.nr", c, bs[k].name);
				return true;
			}
			if (a >= lo && a < lo + sizeof(*bs[k].fb)) {
				snprintf(buf, n, "CPU%u %s[%u]", c, bs[k].name,
					 (unsigned)((a - (uintptr_t)bs[k].fb->pages) /
						    sizeof(bs[k].fb->pages[0])));
				return true;
			}
		}
	}
	snprintf(buf, n, "lru batches");
	return true;
}
