/*
 * store_buffer.c - the per-CPU store buffers of the weak memory models
 * (memory.h says what each model allows, docs/memory-model.md why).
 *
 * The delays a strategy picks are the only inputs: the same delays (and
 * decisions) give the same flushes at the same steps in every build.
 */
#include <string.h>

#include <weft/kernel.h>

#include "sched.h"

/* A store buffer holds at most this many stores; one more makes the oldest
 * visible first (real store buffers are finite too: 56 entries on Intel
 * Skylake, tens on Arm cores). */
#define SB_CAP 32

struct sb_entry {
	uint8_t *addr;
	uint32_t loc;
	uint8_t size;
	uint8_t tid;
	uint32_t due;       /* visible at the first point at or after this step */
	uint32_t step;      /* when the store executed */
	uint64_t val;
	const struct weft_site *site;
};

struct store_buffer {
	unsigned head, n;   /* ring of SB_CAP entries, oldest at head */
	struct sb_entry e[SB_CAP];
};

static struct {
	enum weft_memory_model model;
	unsigned nr_buffered;            /* entries over every CPU */
	uint32_t nr_delays;              /* stores that asked for a delay */
	uint8_t delays[WEFT_MAX_DELAYS];
	struct store_buffer sb[WEFT_EXEC_MAX_CPUS];
	/* a plain read's forwarded value put in memory (plain_read_begin) */
	uint8_t *patch_addr;
	unsigned patch_size;
	uint64_t patch_saved;
} mem;

uint32_t weft_mem_due = UINT32_MAX;
bool weft_mem_weak;

/* ------------------------------------------------------------- memory */

static uint64_t mem_read(const void *addr, unsigned size)
{
	switch (size) {
	case 1: return __atomic_load_n((const uint8_t *)addr, __ATOMIC_RELAXED);
	case 2: return __atomic_load_n((const uint16_t *)addr, __ATOMIC_RELAXED);
	case 4: return __atomic_load_n((const uint32_t *)addr, __ATOMIC_RELAXED);
	default: return __atomic_load_n((const uint64_t *)addr, __ATOMIC_RELAXED);
	}
}

static void mem_write(void *addr, unsigned size, uint64_t v)
{
	switch (size) {
	case 1: __atomic_store_n((uint8_t *)addr, (uint8_t)v, __ATOMIC_RELAXED); break;
	case 2: __atomic_store_n((uint16_t *)addr, (uint16_t)v, __ATOMIC_RELAXED); break;
	case 4: __atomic_store_n((uint32_t *)addr, (uint32_t)v, __ATOMIC_RELAXED); break;
	default: __atomic_store_n((uint64_t *)addr, v, __ATOMIC_RELAXED); break;
	}
}

static uint64_t size_mask(unsigned size)
{
	return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
}

/* ------------------------------------------------------------ buffers */

void weft_mem_reset(enum weft_memory_model m)
{
	mem.model = m;
	mem.nr_delays = 0;
	mem.patch_addr = NULL;
	if (mem.nr_buffered)   /* an aborted execution left stores behind */
		for (unsigned c = 0; c < WEFT_EXEC_MAX_CPUS; c++)
			mem.sb[c].head = mem.sb[c].n = 0;
	mem.nr_buffered = 0;
	weft_mem_weak = m != WEFT_MEM_SC;
	weft_mem_due = weft_mem_weak ? 0 : UINT32_MAX;
}

enum weft_memory_model weft_last_memory(void)
{
	return mem.model;
}

const uint8_t *weft_last_delays(size_t *n)
{
	*n = mem.nr_delays < WEFT_MAX_DELAYS ? mem.nr_delays : WEFT_MAX_DELAYS;
	return mem.delays;
}

static struct sb_entry *sb_at(struct store_buffer *b, unsigned i)
{
	return &b->e[(b->head + i) % SB_CAP];
}

/* The head of cpu's buffer becomes visible. */
static void flush_head(unsigned cpu)
{
	struct store_buffer *b = &mem.sb[cpu];
	struct sb_entry *e = sb_at(b, 0);
	uint64_t old = mem_read(e->addr, e->size);

	mem_write(e->addr, e->size, e->val);
	weft_trace_flush(e->tid, (uint8_t)cpu, e->loc, old, e->val, e->site);
	if (e->loc != WEFT_NO_LOC) {
		/* the shadow names the store, as an unbuffered one would */
		struct shadow *sh = &M.shadow[e->loc];
		sh->epoch = M.epoch;
		sh->step = e->step;
		sh->site = e->site;
		sh->tid = e->tid;
		sh->poisoned = 0;
		if (M.fb)
			feedback_write(e->loc, e->site);
	}
	b->head = (b->head + 1) % SB_CAP;
	b->n--;
	mem.nr_buffered--;
}

/* The CPU whose head is due first (ties: the lowest CPU), or -1. */
static int first_head(void)
{
	int best = -1;
	uint32_t due = UINT32_MAX;

	for (unsigned c = 0; c < WEFT_EXEC_MAX_CPUS; c++)
		if (mem.sb[c].n && sb_at(&mem.sb[c], 0)->due < due) {
			due = sb_at(&mem.sb[c], 0)->due;
			best = (int)c;
		}
	return best;
}

static void flush_due(void)
{
	int c;

	while (mem.nr_buffered && (c = first_head()) >= 0 && sb_at(&mem.sb[c], 0)->due <= M.step)
		flush_head((unsigned)c);
}

void weft_mem_drain_cpu(unsigned cpu)
{
	while (mem.sb[cpu].n)
		flush_head(cpu);
}

void weft_mem_drain_all(void)
{
	int c;

	while (mem.nr_buffered && (c = first_head()) >= 0)
		flush_head((unsigned)c);
}

static unsigned cur_cpu(void)
{
	return M.cpu_of[M.cur];
}

/* Events after which a CPU's buffer must be empty: everything but plain
 * and marked loads and stores and events that touch no memory. */
static bool orders(unsigned ev)
{
	switch (ev) {
	case WEFT_EV_READ:
	case WEFT_EV_WRITE:
	case WEFT_EV_YIELD:
	case WEFT_EV_BARRIER:   /* weft_fence() says which kind */
	case WEFT_EV_CHOICE:
	case WEFT_EV_NOTE:
	case WEFT_EV_OP:
	case WEFT_EV_CTX:
		return false;
	default:
		return true;
	}
}

void weft_mem_point(const struct weft_site *s)
{
	if (mem.nr_buffered) {
		flush_due();
		if (M.cur >= 0 && s && orders(s->ev))
			weft_mem_drain_cpu(cur_cpu());
	}
}

/* The buffered value cpu forwards to a load of [addr, addr+size): true and
 * *v if its newest store there covers exactly that; a store overlapping it
 * otherwise drains the buffer (the load then reads memory). */
static bool forward(unsigned cpu, const uint8_t *addr, unsigned size, uint64_t *v)
{
	struct store_buffer *b = &mem.sb[cpu];

	for (unsigned i = b->n; i-- > 0;) {
		const struct sb_entry *e = sb_at(b, i);
		if (e->addr == addr && e->size == size) {
			*v = e->val;
			return true;
		}
		if (e->addr < addr + size && addr < e->addr + e->size) {
			weft_mem_drain_cpu(cpu);
			return false;
		}
	}
	return false;
}

static uint32_t ask_delay(void)
{
	uint32_t code = 0;

	if (M.ops->pick_delay)
		code = M.ops->pick_delay(M.st, mem.nr_delays, WEFT_DELAY_CODES) % WEFT_DELAY_CODES;
	if (mem.nr_delays < WEFT_MAX_DELAYS)
		mem.delays[mem.nr_delays] = (uint8_t)code;
	mem.nr_delays++;
	return code;
}

/* A store of the current thread: buffered (true) or to be written now. */
static bool store(uint8_t *addr, uint32_t loc, unsigned size, uint64_t val,
		  const struct weft_site *s)
{
	unsigned cpu = cur_cpu();
	struct store_buffer *b = &mem.sb[cpu];
	uint32_t code = ask_delay();

	if (size > 8) {   /* not a value the buffer can hold */
		weft_mem_drain_cpu(cpu);
		return false;
	}
	if (!code && !b->n)
		return false;
	if (b->n == SB_CAP)
		flush_head(cpu);
	uint32_t due = M.step + 1 + weft_delay_steps(code);
	if (b->n && sb_at(b, b->n - 1)->due > due)   /* FIFO: after its predecessor */
		due = sb_at(b, b->n - 1)->due;
	*sb_at(b, b->n) = (struct sb_entry){ .addr = addr, .loc = loc, .size = (uint8_t)size,
					     .tid = (uint8_t)M.cur, .due = due, .step = M.step,
					     .val = val & size_mask(size), .site = s };
	b->n++;
	mem.nr_buffered++;
	return true;
}

uint64_t weft_mem_access(void *addr, uint32_t loc, unsigned size, unsigned aop, uint64_t a,
			 uint64_t b, const struct weft_site *s, uint64_t *nv, bool *buffered)
{
	unsigned cpu = cur_cpu();
	uint64_t old, mask = size_mask(size);

	*buffered = false;
	if (s->flags & WEFT_SITE_SC) {   /* the machine's own vocabulary */
		weft_mem_drain_cpu(cpu);
		if (aop == WEFT_A_LOAD) {
			*nv = old = mem_read(addr, size);
			return old;
		}
		if (aop == WEFT_A_STORE) {
			old = mem_read(addr, size);
			*nv = a & mask;
			mem_write(addr, size, *nv);
			return old;
		}
	}
	switch (aop) {
	case WEFT_A_LOAD:
		if (!forward(cpu, addr, size, &old))
			old = mem_read(addr, size);
		*nv = old;
		return old;
	case WEFT_A_STORE:
		/* old: what memory holds now (the trace's before-value) */
		old = mem_read(addr, size);
		*nv = a & mask;
		*buffered = store(addr, loc, size, a, s);
		if (!*buffered)
			mem_write(addr, size, *nv);
		return old;
	default:
		break;
	}
	/* an atomic read-modify-write: a locked instruction, which drains */
	weft_mem_drain_cpu(cpu);
	old = mem_read(addr, size);
	uint64_t v;
	switch (aop) {
	case WEFT_A_ADD: v = old + a; break;
	case WEFT_A_XCHG: v = a; break;
	case WEFT_A_CMPXCHG: v = old == (a & mask) ? b : old; break;
	case WEFT_A_OR: v = old | a; break;
	case WEFT_A_ANDNOT: v = old & ~a; break;
	case WEFT_A_ADD_UNLESS: v = old == (b & mask) ? old : old + a; break;
	default: v = old; break;
	}
	*nv = v & mask;
	mem_write(addr, size, *nv);
	return old;
}

void weft_mem_fence(unsigned kind)
{
	/* tso: only a full fence drains; loads are not reordered with loads
	 * nor stores with stores, so smp_rmb()/smp_wmb() are no-ops */
	switch (kind) {
	case WEFT_FENCE_MB:
		weft_mem_drain_cpu(cur_cpu());
		break;
	default:
		break;
	}
}

void weft_mem_plain_read_begin(void *addr, unsigned size)
{
	uint64_t v;

	if (size > 8 || !mem.sb[cur_cpu()].n || !forward(cur_cpu(), addr, size, &v))
		return;
	mem.patch_addr = addr;
	mem.patch_size = size;
	mem.patch_saved = mem_read(addr, size);
	mem_write(addr, size, v);
}

void weft_mem_plain_read_end(void)
{
	if (mem.patch_addr) {
		mem_write(mem.patch_addr, mem.patch_size, mem.patch_saved);
		mem.patch_addr = NULL;
	}
}

bool weft_mem_plain_write(void *addr, uint32_t loc, unsigned size, uint64_t old, uint64_t val,
			  const struct weft_site *s)
{
	if (!store(addr, loc, size, val, s))
		return false;
	mem_write(addr, size, old);   /* the model's own store waits in the buffer */
	return true;
}

/* -------------------------------------------------------------- names */

static const char *const model_names[WEFT_MEM__COUNT] = { "sc", "tso" };

const char *weft_memory_name(enum weft_memory_model m)
{
	return (unsigned)m < WEFT_MEM__COUNT ? model_names[m] : "?";
}

bool weft_memory_parse(const char *s, enum weft_memory_model *out, const char **why)
{
	for (unsigned m = 0; m < WEFT_MEM__COUNT; m++)
		if (!strcmp(s, model_names[m])) {
			*out = (enum weft_memory_model)m;
			return true;
		}
	if (why)
		*why = !strcmp(s, "lkmm")
			       ? "lkmm (the Linux-kernel memory model) is not in this build yet: "
				 "sc and tso are (docs/memory-model.md)"
			       : "the memory models are sc and tso";
	return false;
}
