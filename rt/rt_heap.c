/*
 * rt_heap.c - malloc(), calloc(), realloc(), free() and friends of an
 * instrumented program, from a heap arena inside its world.
 *
 * Interposed process-wide (libweft_rt precedes the C library), a call is
 * served by the arena only when it comes from the program's own code
 * (its return address is in the executable's text) during an execution on
 * one of its threads; everything else - Weft itself, the C library's
 * internal allocations, native runs of the program - goes to the C
 * library's allocator (__libc_malloc and friends). free() and realloc()
 * tell the two apart by address.
 *
 * The arena is a bump allocator that never reuses memory within an
 * execution (a freed block stays poisoned until the execution ends, so
 * every use after free is seen, as with an unbounded ASan quarantine);
 * blocks are 16-byte aligned; block metadata lives outside the world
 * (the program cannot corrupt it). Addresses are a function of the
 * allocation order alone, so they are the same in every execution and
 * every process, and their world offsets are what the trace records.
 *
 * Detectors: free of a freed block (double-free), of a pointer that is
 * not a block's start (invalid-free), accesses to freed blocks
 * (use-after-free, through the shadow), and at exit every block no
 * pointer in the program's globals, the live threads' stacks and __thread
 * variables, the loaded libraries' globals and the environment, or other
 * reachable blocks points into (memory-leak), as LeakSanitizer decides.
 * A full arena is a limit, reported as such (WEFT_HEAP_MIB raises it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_internal.h"

void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
void *__libc_memalign(size_t, size_t);

enum { B_LIVE = 1, B_FREED = 2 };

struct block {
	uint32_t off;          /* from heap_lo */
	uint32_t size;
	uint8_t state;
	uint8_t tid;           /* allocating thread */
	uint8_t ftid;
	uint8_t mark;          /* leak scan */
	uint32_t step, fstep;
	const struct weft_site *site, *fsite;
};

static struct block *blk;
static size_t nr_blk, cap_blk;
static size_t top, hwm;      /* bump offset; highest offset used since the last reset */

void rt_heap_reset(void)
{
	if (hwm)
		memset(rt_w.heap_lo, 0, hwm);
	top = hwm = 0;
	nr_blk = 0;
}

static inline bool in_heap(const void *p)
{
	return (uintptr_t)p - (uintptr_t)rt_w.heap_lo < rt_w.heap_bytes;
}

/* The block starting at or containing p (binary search: blocks are in
 * address order). */
static struct block *find(const void *p, bool containing)
{
	uint32_t off = (uint32_t)((uintptr_t)p - (uintptr_t)rt_w.heap_lo);
	size_t lo = 0, hi = nr_blk;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (blk[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	struct block *b = &blk[lo - 1];
	if (b->off == off || (containing && off < b->off + (b->size ? b->size : 1)))
		return b;
	return NULL;
}

static bool serve(const void *ra)
{
	return rt_active() && rt_from_program(ra);
}

static void *arena_alloc(size_t n, size_t align, const void *ra, const char *fn)
{
	rt_flush();
	const struct weft_site *s = RT_CALL_SITE(ra, WEFT_EV_ALLOC, fn);
	if (align < 16)
		align = 16;
	size_t at = (top + align - 1) & ~(align - 1);
	if (n > rt_w.heap_bytes || at > rt_w.heap_bytes - n || n > UINT32_MAX) {
		weft_report(WEFT_KIND_LIMIT, NULL, s,
			    "limit reached: %s(%zu) does not fit in the program's %zu MiB heap arena "
			    "(WEFT_HEAP_MIB raises it)", fn, n, rt_w.heap_bytes >> 20);
		return NULL;
	}
	if (nr_blk == cap_blk) {
		size_t cap = cap_blk ? cap_blk * 2 : 1024;
		struct block *b = __libc_realloc(blk, cap * sizeof(*b));
		if (!b) {
			weft_report(WEFT_KIND_LIMIT, NULL, s, "limit reached: no memory for heap metadata");
			return NULL;
		}
		blk = b;
		cap_blk = cap;
	}
	struct block *b = &blk[nr_blk++];
	b->off = (uint32_t)at;
	b->size = (uint32_t)n;
	b->state = B_LIVE;
	b->tid = (uint8_t)M.cur;
	b->step = M.step;
	b->site = s;
	b->fsite = NULL;
	top = at + (n ? n : 1);
	if (top > hwm)
		hwm = top;
	void *p = rt_w.heap_lo + at;
	/* no scheduling point: a new block is touched by nobody else yet */
	weft_trace(WEFT_EV_ALLOC, loc_of(p), 0, n, s);
	weft_sched_step(WEFT_DEP_WRITE, loc_of(p), (uint32_t)(n ? n : 1), 0, s);
	return p;
}

static void arena_free(void *p, const void *ra, const char *fn)
{
	rt_flush();
	const struct weft_site *s = RT_CALL_SITE(ra, WEFT_EV_FREE, fn);
	struct block *b = find(p, false);
	uint32_t size = b ? b->size : 1;

	/* freeing is visible to every thread that uses the block */
	sched_point_at(s, p, size ? size : 1, NULL);
	if (!b) {
		char where[160];
		struct block *in = find(p, true);
		if (in)
			snprintf(where, sizeof(where), "%zu bytes inside a %u-byte block",
				 (size_t)((uint8_t *)p - rt_w.heap_lo - in->off), in->size);
		else
			snprintf(where, sizeof(where), "not a block of the heap");
		weft_report(WEFT_KIND_INVALID_FREE, p, s, "%s(%p): %s", fn, p, where);
		return;
	}
	if (b->state == B_FREED) {
		struct weft_access other = { true, b->ftid, M.cpu_of[b->ftid], b->fstep, b->fsite };
		weft_report2(WEFT_KIND_DOUBLE_FREE, p, s, &other,
			     "%s of a %u-byte block already freed", fn, b->size);
		return;
	}
	b->state = B_FREED;
	b->ftid = (uint8_t)M.cur;
	b->fstep = M.step;
	b->fsite = s;
	weft_poison(p, size ? size : 1, s);
}

/* ------------------------------------------------------------- the API */

void *malloc(size_t n)
{
	if (!serve(__builtin_return_address(0)))
		return __libc_malloc(n);
	return arena_alloc(n, 16, __builtin_return_address(0), "malloc");
}

void *calloc(size_t n, size_t k)
{
	if (!serve(__builtin_return_address(0)))
		return __libc_calloc(n, k);
	size_t bytes;
	if (__builtin_mul_overflow(n, k, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	/* the arena is zero where it was never used in this execution */
	return arena_alloc(bytes, 16, __builtin_return_address(0), "calloc");
}

void free(void *p)
{
	if (!p)
		return;
	if (!in_heap(p) || !rt_active()) {
		if (in_heap(p))
			return;   /* a block of an execution that is over */
		__libc_free(p);
		return;
	}
	arena_free(p, __builtin_return_address(0), "free");
}

void *realloc(void *p, size_t n)
{
	const void *ra = __builtin_return_address(0);

	if (p && in_heap(p) && !rt_active())
		return NULL;   /* a block of an execution that is over */
	if (!(p ? in_heap(p) : serve(ra)))
		return __libc_realloc(p, n);
	if (!p)
		return arena_alloc(n, 16, ra, "realloc");
	struct block *b = find(p, false);
	if (!b || b->state != B_LIVE) {
		arena_free(p, ra, "realloc");   /* reports */
		return NULL;
	}
	void *q = arena_alloc(n, 16, ra, "realloc");
	if (!q)
		return NULL;
	rt_real.memcpy(q, p, n < b->size ? n : b->size);
	arena_free(p, ra, "realloc");
	return q;
}

/* The aligned allocations: what (a C library function) called from ra;
 * NULL for an alignment that is not a power of two */
static void *aligned_block(size_t align, size_t n, const void *ra, const char *what)
{
	if (!serve(ra))
		return __libc_memalign(align, n);
	if (!align || (align & (align - 1)))
		return NULL;
	return arena_alloc(n, align, ra, what);
}

void *memalign(size_t align, size_t n);
void *memalign(size_t align, size_t n)
{
	return aligned_block(align, n, __builtin_return_address(0), "memalign");
}

void *aligned_alloc(size_t align, size_t n)
{
	return aligned_block(align, n, __builtin_return_address(0), "aligned_alloc");
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	void *p = aligned_block(align, n, __builtin_return_address(0), "posix_memalign");
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *valloc(size_t n);
void *valloc(size_t n)
{
	return aligned_block(4096, n, __builtin_return_address(0), "valloc");
}

size_t malloc_usable_size(void *p);
size_t malloc_usable_size(void *p)
{
	extern size_t __malloc_usable_size(void *) __attribute__((weak));
	if (p && in_heap(p)) {
		struct block *b = find(p, false);
		return b && b->state == B_LIVE ? b->size : 0;
	}
	return p && __malloc_usable_size ? __malloc_usable_size(p) : 0;
}

char *strdup(const char *s)
{
	if (!serve(__builtin_return_address(0))) {
		size_t n = strlen(s) + 1;
		char *d = __libc_malloc(n);
		return d ? rt_real.memcpy(d, s, n) : NULL;
	}
	size_t n = strlen(s) + 1;
	char *d = arena_alloc(n, 16, __builtin_return_address(0), "strdup");
	return d ? rt_real.memcpy(d, s, n) : NULL;
}

char *strndup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *d = serve(__builtin_return_address(0))
			  ? arena_alloc(n + 1, 16, __builtin_return_address(0), "strndup")
			  : __libc_malloc(n + 1);
	if (!d)
		return NULL;
	rt_real.memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* ---------------------------------------------------------------- leaks */

/* Mark every block a word of [lo, hi) points into; returns how many were new. */
static size_t scan(const uint8_t *lo, const uint8_t *hi)
{
	size_t fresh = 0;

	lo = (const uint8_t *)(((uintptr_t)lo + 7) & ~(uintptr_t)7);
	for (const uint8_t *p = lo; p + 8 <= hi; p += 8) {
		uintptr_t v;
		rt_real.memcpy(&v, p, 8);
		if (!in_heap((void *)v))
			continue;
		struct block *b = find((void *)v, true);
		if (b && b->state == B_LIVE && !b->mark) {
			b->mark = 1;
			fresh++;
		}
	}
	return fresh;
}

/* The writable segments (PT_LOAD with PF_W: .data, .bss) of every loaded
 * object but the executable (its globals are scanned as the world's) and
 * libweft_rt (Weft's own state, which holds the program's pointers it
 * traced and would hide their blocks' leaks): the C library's state, as
 * LeakSanitizer scans every module's globals (stdout's buffer given by
 * setvbuf() is in one). In dl_iterate_phdr()'s order, the load order. */
static int scan_module(struct dl_phdr_info *info, size_t size, void *data)
{
	static uintptr_t self = UINTPTR_MAX;
	size_t *fresh = data;

	(void)size;
	if (self == UINTPTR_MAX) {
		Dl_info di;
		struct link_map *lm = NULL;
		self = dladdr1((void *)rt_heap_leak_check, &di, (void **)&lm, RTLD_DL_LINKMAP) && lm
			       ? lm->l_addr
			       : 0;
	}
	if (!info->dlpi_name || !info->dlpi_name[0] || info->dlpi_addr == self)
		return 0;   /* the executable, the runtime */
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		const uint8_t *lo = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		*fresh += scan(lo, lo + ph->p_memsz);
	}
	return 0;
}

/* Roots the C library keeps outside its segments: the environment, whose
 * array putenv() and setenv() allocate with the C library's malloc (which
 * LeakSanitizer tracks and Weft does not): putenv(strdup("A=1")) keeps
 * its block in it. */
static size_t scan_libc_roots(void)
{
	size_t fresh = 0;

	dl_iterate_phdr(scan_module, &fresh);
	if (environ) {
		size_t n = 0;
		while (environ[n])
			n++;
		fresh += scan((const uint8_t *)environ, (const uint8_t *)(environ + n));
	}
	return fresh;
}

void rt_heap_leak_check(void)
{
	size_t fresh;

	for (size_t i = 0; i < nr_blk; i++)
		blk[i].mark = 0;
	fresh = scan(rt_w.snap_lo, rt_w.snap_hi);
	/* threads still alive at exit() keep what their stacks point to (not
	 * the one that exited: its frames are gone) */
	for (unsigned t = 0; t < M.nr_threads; t++) {
		const struct wthread *w = &M.th[t];
		if (w->started && w->state != T_DONE && w->fib.sp && (int)t != M.abort_tid)
			fresh += scan(w->fib.sp, (uint8_t *)w->fib.stack_lo + w->fib.stack_size);
	}
	/* and every thread alive at exit keeps what its __thread variables
	 * point to, the one that ended the process too (it is done by now, its
	 * storage is not gone): LeakSanitizer scans thread-local storage
	 * (use_tls); a thread that ended before frees its block */
	for (unsigned t = 0; t < M.nr_threads; t++) {
		size_t n = 0;
		bool alive = M.th[t].started &&
			     (M.th[t].state != T_DONE || (rt_x.exited && t == rt_x.exit_tid));
		const uint8_t *tls = alive ? rt_tls_copy(t, &n) : NULL;
		if (tls)
			fresh += scan(tls, tls + n);
		/* its pthread_setspecific() values too (glibc keeps them in the
		 * thread's descriptor, which LeakSanitizer scans) */
		if (alive)
			fresh += scan((const uint8_t *)rt_th[t].tls,
				      (const uint8_t *)rt_th[t].tls + sizeof(rt_th[t].tls));
	}
	size_t leaks = 0, bytes = 0;
	struct block *first = NULL;
	/* the C library's roots only when the program's leave a block
	 * unreached: their scan is most of an execution's exit otherwise */
	for (bool libc = false;; libc = true) {
		while (fresh) {
			fresh = 0;
			for (size_t i = 0; i < nr_blk; i++)
				if (blk[i].mark == 1) {
					blk[i].mark = 2;
					fresh += scan(rt_w.heap_lo + blk[i].off,
						      rt_w.heap_lo + blk[i].off + blk[i].size);
				}
		}
		leaks = bytes = 0;
		first = NULL;
		for (size_t i = 0; i < nr_blk; i++)
			if (blk[i].state == B_LIVE && !blk[i].mark) {
				leaks++;
				bytes += blk[i].size;
				if (!first)
					first = &blk[i];
			}
		if (!first || libc)
			break;
		fresh = scan_libc_roots();
	}
	if (!first)
		return;
	struct weft_access alloc = { true, first->tid, M.cpu_of[first->tid], first->step,
				     first->site };
	weft_report2(WEFT_KIND_MEMORY_LEAK, rt_w.heap_lo + first->off, first->site, &alloc,
		     "%zu heap block%s (%zu bytes) unreachable at exit; the first, %u bytes, "
		     "allocated by T%u", leaks, leaks == 1 ? "" : "s", bytes, first->size, first->tid);
}

bool rt_heap_describe(uintptr_t addr, char *buf, size_t n)
{
	if (!in_heap((void *)addr))
		return false;
	struct block *b = find((void *)addr, true);
	if (!b) {
		snprintf(buf, n, "heap+0x%lx", (unsigned long)(addr - (uintptr_t)rt_w.heap_lo));
		return true;
	}
	size_t idx = (size_t)(b - blk);
	size_t off = addr - (uintptr_t)rt_w.heap_lo - b->off;
	char where[96] = "";
	if (b->site && b->site->line)
		snprintf(where, sizeof(where), " (%s:%u)", weft_site_file(b->site), b->site->line);
	if (off)
		snprintf(buf, n, "heap block %zu%s +%zu", idx, where, off);
	else
		snprintf(buf, n, "heap block %zu%s", idx, where);
	return true;
}
