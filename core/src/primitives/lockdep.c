/*
 * lockdep.c - lockdep-lite: the kernel's lock validator (kernel/locking/
 * lockdep.c, CONFIG_PROVE_LOCKING) reduced to what a model needs, so that a
 * lock-order inversion or an interrupt-unsafe lock is reported from one
 * execution that takes the locks, not from the unlucky schedule that
 * deadlocks.
 *
 * Lock classes are keyed by the site that initialised the lock
 * (spin_lock_init(), mutex_init(): weft_lockdep_init), in setup or in a
 * thread, or, for a lock never initialised (a zeroed world's lock), by its
 * world offset: one class per instance, which can miss an inversion
 * between two instances of one kernel class but never reports a false one.
 * (Runs without WEFT_CHECK_LOCKDEP_SETUP_CLASSES, replay files recorded
 * before it, class a lock initialised in setup by its offset, as Weft did
 * then: setup runs before the execution's lockdep state is reset.)
 *
 * Checked, with both sides named:
 *  - lock-order-inversion: acquiring B while holding A adds the edge A->B to
 *    the class graph (at the attempt, before any spin or sleep, as
 *    lock_acquire() does); an edge that closes a cycle is reported, with
 *    the acquisitions of both orders. Trylocks take no edge (they cannot
 *    wait). Nested acquisition of one class is left to the deadlock
 *    detector (it would need spin_lock_nested annotations).
 *  - irq-lock-inversion: a class used in hard-IRQ (softirq) context and
 *    also acquired with hard IRQs (bottom halves) enabled, or held when
 *    they are enabled again (weft_lockdep_irqs_on(), the kernel's
 *    mark_held_locks())
 *    ("inconsistent {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage"); an rwlock's
 *    read_lock() has the _READ usages (weft_lockdep_acquire_read(): a
 *    read in the IRQ conflicts with a write with it on, not with a read;
 *    read holds add no order edges); and, with
 *    the same kind, an IRQ-safe class (used in hard-IRQ / softirq context)
 *    that reaches an IRQ-unsafe class (acquired with hard IRQs / BHs on) in
 *    the order graph ("HARDIRQ-safe -> HARDIRQ-unsafe lock order
 *    detected", check_irq_usage()): an interrupt on a CPU that holds the
 *    unsafe lock spins on the safe one, whose holder waits for the unsafe
 *    one. Checked when an edge or a usage bit is new, in both directions,
 *    under its own check bit (WEFT_CHECK_LOCKDEP_IRQ_ORDER: files recorded
 *    before the rule replay without it).
 *  - bad-unlock: releasing a lock the thread does not hold.
 *  - lock-held-at-exit: a thread or handler ending with a lock held.
 *
 * The graph and the usage bits persist across the executions of a run
 * (while the scenario, variant and lock model stay the same), as lockdep's
 * persist across a boot: one execution may take A then B and a later one B
 * then A. A report that needed a fact of an earlier execution lists it as
 * a witness (weft_lockdep_last_witness); a replay seeds the graph with the
 * witness (weft_run_opts.lockdep_seed) so the report reproduces alone.
 * Fuzz targets run with persistence off: an input must reproduce by itself.
 *
 * Invariant (what makes a persistent run deterministic): an execution's
 * outcome depends on earlier executions only through facts it reports as
 * its witness. So every edge and usage bit is checked at its first use in
 * each execution, whether or not an earlier execution already added it
 * (checking only new facts made a later execution silent because an
 * earlier one had reported: its re-run from a fresh graph then reported
 * and disagreed), the fact's sites are refreshed to this execution's on
 * that first use, and the graph gains every fact whether or not its check
 * reported (a warning the run goes on past, weft_run_opts.continue_kinds,
 * leaves the graph as a silent check would). A re-run from a fresh graph
 * seeded with the witness then meets the same first fatal report: every
 * check before it sees a subset of the facts the original saw.
 *
 * Length (~860 lines): one validator whose checks share the class table,
 * the graph, the usage bits and the witness: the usage rules, the two
 * graph searches and the held-lock hooks each read all of them.
 */
#include <string.h>

#include <weft/kernel.h>

#include "families.h"

#define LD_MAX_CLASSES 256
#define LD_MAX_EDGES 4096
#define LD_MAX_HELD 16
#define LD_MAX_INITS 128

/* A usage: bit 0 the direction (in the IRQ context, or with it enabled),
 * bit 1 the IRQ kind (hard, soft), bit 2 a read acquisition (an rwlock_t's
 * read_lock(): lockdep's separate _READ bits). */
enum {
	USE_IN_HARDIRQ, USE_HARDIRQ_ON, USE_IN_SOFTIRQ, USE_SOFTIRQ_ON,
	USE_READ,   /* + one of the four above */
	USE__COUNT = 8
};

struct ld_use {
	uint32_t site_id;
	const struct weft_site *site;   /* NULL when seeded */
	uint32_t step;
	uint32_t exec;                  /* execution number in the run */
	uint8_t tid;
};

struct ld_class {
	uint64_t key;
	uint32_t loc;                   /* an instance, for names */
	uint8_t used;                   /* 1 << USE_* */
	uint8_t checked;                /* 1 << USE_*: checked in execution
					   checked_exec (use[u].exec == G.exec) */
	uint32_t checked_exec;
	struct ld_use use[USE__COUNT];  /* use[u].exec: the execution of its
					   last check (its first use there) */
};

struct ld_edge {
	uint16_t a, b;
	struct ld_use from, to;         /* the acquisition of a (held), of b;
					   to.exec: the execution of its last
					   check (its first use there) */
};

struct ld_held {
	uint16_t cls;
	bool trylock;
	bool read;                      /* a read hold: no order edges */
	const void *lock;
	struct ld_use at;
};

static struct {
	const struct weft_scenario *sc;
	unsigned variant, lock;
	uint32_t exec;
	struct ld_class cls[LD_MAX_CLASSES];
	unsigned nr_cls;
	uint64_t adj[LD_MAX_CLASSES][LD_MAX_CLASSES / 64];
	struct ld_edge edges[LD_MAX_EDGES];
	unsigned nr_edges;
	bool full;                      /* a table filled: checks degrade, said once */
	uint8_t used_any;               /* the or of every class's used: no class
					   IRQ-safe (or unsafe) means no BFS */
} G;

static struct {
	struct ld_held h[LD_MAX_HELD];
	uint8_t n;
} T[WEFT_EXEC_MAX_THREADS];

/* locks initialised in this execution (M.epoch: setup runs before
 * weft_lockdep_begin): world offset -> init site id */
static struct {
	uint32_t loc, site_id;
	bool setup;                     /* initialised by the scenario's setup */
} inits[LD_MAX_INITS];
static unsigned nr_inits;
static uint32_t inits_epoch;

/* the witness of the last report: facts of earlier executions it used */
static struct weft_lockdep_fact witness[WEFT_LOCKDEP_MAX_FACTS];
static unsigned nr_witness;

bool weft_lockdep_on;   /* M.o->checks & WEFT_CHECK_LOCKDEP, cached */
bool weft_lockdep_held_reads;   /* and WEFT_CHECK_LOCKDEP_HELD_READS */
static bool irq_order_on;   /* and WEFT_CHECK_LOCKDEP_IRQ_ORDER */
static bool setup_classes_on;   /* and WEFT_CHECK_LOCKDEP_SETUP_CLASSES */
/* Set while weft_lockdep_irqs_on() marks the held locks: a usage bit
 * that comes from interrupts being enabled, not from an acquisition. */
static bool marking_held;

/* ---------------------------------------------------------- classes */

/* A lock's class by its world offset, remembered: key_of() and
 * class_find() are linear scans. An entry holds while its gen is
 * class_cache_gen, which changes whenever a lock's key may (a lock
 * initialised: weft_lockdep_init; setup_classes_on and the inits of a new
 * execution: weft_lockdep_begin) or the class table is emptied
 * (graph_reset). A class, once made, keeps its index until then. */
#define LD_CLASS_CACHE 256
static struct {
	uint32_t loc, gen;
	uint16_t cls;
} class_cache[LD_CLASS_CACHE];
static uint32_t class_cache_gen = 1;   /* 0: the zeroed entries are stale */

static uint64_t key_of(const void *lock)
{
	uint32_t loc = loc_of(lock);

	for (unsigned i = 0; i < nr_inits; i++)
		if (inits[i].loc == loc && (setup_classes_on || !inits[i].setup))
			return 1ull << 32 | inits[i].site_id;
	return 2ull << 32 | loc;
}

static int class_find(uint64_t key)
{
	for (unsigned i = 0; i < G.nr_cls; i++)
		if (G.cls[i].key == key)
			return (int)i;
	return -1;
}

static int class_get(uint64_t key, uint32_t loc)
{
	int c = class_find(key);

	if (c >= 0)
		return c;
	if (G.nr_cls == LD_MAX_CLASSES) {
		G.full = true;
		return -1;
	}
	c = (int)G.nr_cls++;
	memset(&G.cls[c], 0, sizeof(G.cls[c]));
	G.cls[c].key = key;
	G.cls[c].loc = loc;
	return c;
}

static inline int class_of_lock(const void *lock)
{
	uint32_t loc = loc_of(lock);
	unsigned slot = (loc * 0x9e3779b1u) >> 24;

	if (class_cache[slot].gen == class_cache_gen && class_cache[slot].loc == loc)
		return class_cache[slot].cls;
	int c = class_get(key_of(lock), loc);
	if (c >= 0) {
		class_cache[slot].loc = loc;
		class_cache[slot].gen = class_cache_gen;
		class_cache[slot].cls = (uint16_t)c;
	}
	return c;
}

static void class_name(int c, char *buf, size_t n)
{
	weft_describe_loc(M.sc, G.cls[c].loc, buf, n);
}

static struct ld_use use_now(const struct weft_site *s)
{
	struct ld_use u = { site_id(s), s, M.step, G.exec, (uint8_t)(M.cur < 0 ? 0xff : M.cur) };

	return u;
}

/* A seeded fact names sites by id (they are in this build's weft_sites
 * section if the model is the same; NULL otherwise). */
extern struct weft_site *const __start_weft_sites[] __attribute__((weak));
extern struct weft_site *const __stop_weft_sites[] __attribute__((weak));

static const struct weft_site *site_by_id(uint32_t id)
{
	if (!__start_weft_sites)
		return NULL;
	for (struct weft_site *const *p = __start_weft_sites; p < __stop_weft_sites; p++)
		if (*p && (*p)->id == id)
			return *p;
	return NULL;
}

/* ------------------------------------------------------------ reset */

static void graph_reset(void)
{
	/* only the rows of classes in use: edges join classes below
	 * G.nr_cls, so the rows above it are zero already (8 KiB otherwise, at
	 * every execution of a search without persistence: the fuzz targets'
	 * 8.3 k instructions per execution, 11 per step on Z1) */
	memset(G.adj, 0, G.nr_cls * sizeof(G.adj[0]));
	G.nr_cls = 0;
	G.nr_edges = 0;
	G.exec = 0;
	G.full = false;
	G.used_any = 0;
	class_cache_gen++;
}

void weft_lockdep_reset(void)
{
	G.sc = NULL;
	graph_reset();
}

/* Execution start (its begin hook), after the threads exist. */
static void weft_lockdep_begin(void)
{
	const struct weft_run_opts *o = M.o;

	weft_lockdep_on = (o->checks & ~o->sc->checks_off & WEFT_CHECK_LOCKDEP) != 0;
	irq_order_on = weft_lockdep_on &&
		       (o->checks & ~o->sc->checks_off & WEFT_CHECK_LOCKDEP_IRQ_ORDER) != 0;
	setup_classes_on = weft_lockdep_on &&
			   (o->checks & ~o->sc->checks_off & WEFT_CHECK_LOCKDEP_SETUP_CLASSES) != 0;
	weft_lockdep_held_reads = weft_lockdep_on &&
				  (o->checks & ~o->sc->checks_off & WEFT_CHECK_LOCKDEP_HELD_READS) != 0;
	nr_witness = 0;
	marking_held = false;   /* a report ended the last execution in the middle */
	class_cache_gen++;
	if (inits_epoch != M.epoch) {   /* setup initialised no lock */
		inits_epoch = M.epoch;
		nr_inits = 0;
	}
	if (!weft_lockdep_on)
		return;
	for (unsigned i = 0; i < M.nr_threads; i++)
		T[i].n = 0;   /* spawned threads: lockdep_spawned() */
	if (!o->lockdep_persist || G.sc != o->sc || G.variant != o->variant ||
	    G.lock != (unsigned)o->lock) {
		graph_reset();
		G.sc = o->sc;
		G.variant = o->variant;
		G.lock = (unsigned)o->lock;
	}
	G.exec++;
	/* a replay's witness: facts an earlier execution had established */
	for (size_t i = 0; i < o->nr_lockdep_seed; i++) {
		const struct weft_lockdep_fact *f = &o->lockdep_seed[i];
		int a = class_get(f->a, f->loc_a), b;
		if (a < 0)
			break;
		struct ld_use u = { f->site_a, site_by_id(f->site_a), f->step_a, 0, f->tid_a };
		if (f->type == WEFT_LOCKDEP_FACT_EDGE) {
			b = class_get(f->b, f->loc_b);
			if (b < 0 || G.nr_edges == LD_MAX_EDGES || (G.adj[a][b / 64] >> (b % 64) & 1))
				continue;
			struct ld_edge *e = &G.edges[G.nr_edges++];
			e->a = (uint16_t)a;
			e->b = (uint16_t)b;
			e->from = u;
			e->to = (struct ld_use){ f->site_b, site_by_id(f->site_b), f->step_b, 0, f->tid_b };
			G.adj[a][b / 64] |= 1ull << (b % 64);
		} else if (f->use < USE__COUNT && !(G.cls[a].used >> f->use & 1)) {
			G.cls[a].used |= (uint8_t)(1u << f->use);
			G.used_any |= (uint8_t)(1u << f->use);
			G.cls[a].use[f->use] = u;
		}
	}
}

void weft_lockdep_init(const void *lock, const struct weft_site *s)
{
	uint32_t loc = loc_of(lock);

	if (loc == WEFT_NO_LOC)
		return;
	class_cache_gen++;
	if (inits_epoch != M.epoch) {
		inits_epoch = M.epoch;
		nr_inits = 0;
	}
	for (unsigned i = 0; i < nr_inits; i++)
		if (inits[i].loc == loc) {
			inits[i].site_id = site_id(s);
			inits[i].setup = !M.in_exec;
			return;
		}
	if (nr_inits < LD_MAX_INITS) {
		inits[nr_inits].loc = loc;
		inits[nr_inits].site_id = site_id(s);
		inits[nr_inits].setup = !M.in_exec;
		nr_inits++;
	}
}

/* ------------------------------------------------------------ witness */

static void witness_use(int c, unsigned use)
{
	const struct ld_use *u = &G.cls[c].use[use];

	if (u->exec == G.exec || nr_witness == WEFT_LOCKDEP_MAX_FACTS)
		return;
	struct weft_lockdep_fact *f = &witness[nr_witness++];
	memset(f, 0, sizeof(*f));
	f->type = WEFT_LOCKDEP_FACT_USE;
	f->use = (uint8_t)use;
	f->a = G.cls[c].key;
	f->loc_a = G.cls[c].loc;
	f->site_a = u->site_id;
	f->step_a = u->step;
	f->tid_a = u->tid;
}

static void witness_edge(const struct ld_edge *e)
{
	if (e->to.exec == G.exec || nr_witness == WEFT_LOCKDEP_MAX_FACTS)
		return;
	struct weft_lockdep_fact *f = &witness[nr_witness++];
	memset(f, 0, sizeof(*f));
	f->type = WEFT_LOCKDEP_FACT_EDGE;
	f->a = G.cls[e->a].key;
	f->b = G.cls[e->b].key;
	f->loc_a = G.cls[e->a].loc;
	f->loc_b = G.cls[e->b].loc;
	f->site_a = e->from.site_id;
	f->site_b = e->to.site_id;
	f->step_a = e->from.step;
	f->step_b = e->to.step;
	f->tid_a = e->from.tid;
	f->tid_b = e->to.tid;
}

const struct weft_lockdep_fact *weft_lockdep_last_witness(size_t *n)
{
	*n = nr_witness;
	return witness;
}

/* ------------------------------------------------------ the two checks */

static const struct ld_edge *edge_of(int a, int b)
{
	for (unsigned i = 0; i < G.nr_edges; i++)
		if (G.edges[i].a == a && G.edges[i].b == b)
			return &G.edges[i];
	return NULL;
}

/* A path from -> to in the graph (breadth first: the shortest); returns
 * its length in classes (path[0] = from, path[len-1] = to), 0 if none. */
static unsigned find_path(int from, int to, uint16_t *path, unsigned cap)
{
	static int16_t prev[LD_MAX_CLASSES];
	static uint16_t queue[LD_MAX_CLASSES];
	unsigned head = 0, tail = 0;

	for (unsigned i = 0; i < G.nr_cls; i++)
		prev[i] = -2;
	prev[from] = -1;
	queue[tail++] = (uint16_t)from;
	while (head < tail) {
		int c = queue[head++];
		if (c == to)
			break;
		for (unsigned w = 0; w < (G.nr_cls + 63) / 64; w++)
			for (uint64_t m = G.adj[c][w]; m; m &= m - 1) {
				int d = (int)(w * 64 + (unsigned)__builtin_ctzll(m));
				if (prev[d] == -2) {
					prev[d] = (int16_t)c;
					queue[tail++] = (uint16_t)d;
				}
			}
	}
	if (prev[to] == -2)
		return 0;
	unsigned len = 0;
	for (int c = to; c >= 0 && len < cap; c = prev[c])
		path[len++] = (uint16_t)c;
	for (unsigned i = 0; i < len / 2; i++) {
		uint16_t t = path[i];
		path[i] = path[len - 1 - i];
		path[len - 1 - i] = t;
	}
	return len;
}

static struct weft_access access_of(const struct ld_use *u)
{
	struct weft_access a = { true, u->tid == 0xff ? -1 : u->tid, -1, u->step, u->site };

	if (u->exec == G.exec && u->tid != 0xff && u->tid < M.nr_threads)
		a.cpu = M.cpu_of[u->tid];
	else if (u->tid < M.sc->nr_threads)   /* an earlier execution: its home CPU */
		a.cpu = (int)weft_cpu_of(M.sc, u->tid);
	if (!u->site)
		a.valid = false;
	return a;
}

/* "A -> B -> C" for a path of the graph into buf, witnessing each edge (a
 * fact of an earlier execution the report relies on); *first gets the
 * path's first edge, *earlier whether any edge came from an earlier
 * execution. */
static void path_text(const uint16_t *path, unsigned len, char *buf, size_t cap,
		      const struct ld_edge **first, bool *earlier)
{
	size_t n = 0;

	buf[0] = 0;
	*first = NULL;
	*earlier = false;
	for (unsigned i = 0; i < len; i++) {
		if (i + 1 < len) {
			const struct ld_edge *e = edge_of(path[i], path[i + 1]);
			if (e) {
				if (!*first)
					*first = e;
				*earlier |= e->to.exec != G.exec;
				witness_edge(e);
			}
		}
		char x[48];
		class_name(path[i], x, sizeof(x));
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? " -> " : "", x);
		if (n >= cap)
			n = cap - 1;
	}
}

static void inversion_report(int held, int next, const struct ld_held *h, const void *lock,
			     const struct weft_site *s)
{
	uint16_t path[16];
	unsigned len = find_path(next, held, path, 16);
	char a[48], b[48], chain[160];
	const struct ld_edge *back;
	bool earlier;

	unsigned w0 = nr_witness;   /* a warning gone past keeps no witness */
	path_text(path, len, chain, sizeof(chain), &back, &earlier);
	class_name(held, b, sizeof(b));
	class_name(next, a, sizeof(a));
	struct weft_access other = back ? access_of(&back->to) : access_of(&h->at);
	if (weft_warn2(WEFT_KIND_LOCK_ORDER, lock, s, &other,
		       "possible circular locking dependency: T%d takes %s while holding %s "
		       "(taken at step %u); the other order %s was taken %s",
		       M.cur, a, b, h->at.step, chain,
		       earlier ? "in an earlier execution of this run" : "in this execution"))
		nr_witness = w0;
}

/* Classes reachable from c along the order graph, c included: forward
 * (c -> ...) or backward (... -> c). Returns how many are in out[]. */
static unsigned reach(int c, bool back, uint16_t *out)
{
	static uint8_t seen[LD_MAX_CLASSES];
	unsigned head = 0, tail = 0;

	memset(seen, 0, G.nr_cls);
	seen[c] = 1;
	out[tail++] = (uint16_t)c;
	while (head < tail) {
		int x = out[head++];
		for (unsigned y = 0; y < G.nr_cls; y++) {
			bool e = back ? (G.adj[y][x / 64] >> (x % 64) & 1) : (G.adj[x][y / 64] >> (y % 64) & 1);
			if (e && !seen[y]) {
				seen[y] = 1;
				out[tail++] = (uint16_t)y;
			}
		}
	}
	return tail;
}

/* An IRQ-safe class among the classes that reach `from` (from included)
 * and an IRQ-unsafe one among those `to` reaches (to included), for the
 * IRQ kind of `in` (USE_IN_HARDIRQ or USE_IN_SOFTIRQ): reported. Returns
 * whether it reported. */
static bool safe_unsafe(int from, int to, unsigned in, const void *lock, const struct weft_site *s)
{
	static uint16_t bw[LD_MAX_CLASSES], fw[LD_MAX_CLASSES];
	static const char *const what[4] = { "HARDIRQ", "HARDIRQ", "SOFTIRQ", "SOFTIRQ" };
	unsigned nb, nf, i, j;
	int safe = -1, unsafe = -1;

	if (!irq_order_on)
		return false;
	/* no class used in that IRQ context, or none with it on: neither
	 * search below could find one (a model without interrupts). A read
	 * usage counts as its write one here (exclusive_mask()) */
	if (((G.used_any | G.used_any >> USE_READ) >> in & 3u) != 3u)
		return false;
	nb = reach(from, true, bw);
	for (i = 0; i < nb && safe < 0; i++)
		if ((G.cls[bw[i]].used | G.cls[bw[i]].used >> USE_READ) >> in & 1)
			safe = bw[i];
	if (safe < 0)
		return false;
	nf = reach(to, false, fw);
	for (j = 0; j < nf && unsafe < 0; j++)
		if ((G.cls[fw[j]].used | G.cls[fw[j]].used >> USE_READ) >> (in + 1) & 1)
			unsafe = fw[j];
	if (unsafe < 0 || unsafe == safe)
		return false;   /* one class used both ways: usage() reports it */

	uint16_t path[16];
	unsigned len = find_path(safe, unsafe, path, 16);
	unsigned w0 = nr_witness;   /* a warning gone past keeps no witness */
	char chain[160];
	const struct ld_edge *first;
	bool earlier;
	path_text(path, len, chain, sizeof(chain), &first, &earlier);
	/* each end's write usage, else its read one */
	unsigned ui = G.cls[safe].used >> in & 1 ? in : in + USE_READ;
	unsigned uo = G.cls[unsafe].used >> (in + 1) & 1 ? in + 1 : in + 1 + USE_READ;
	witness_use(safe, ui);
	witness_use(unsafe, uo);
	const struct ld_use *us = &G.cls[safe].use[ui], *uu = &G.cls[unsafe].use[uo];
	struct weft_access other = access_of(uu);
	if (weft_warn2(WEFT_KIND_IRQ_LOCK_INVERSION, lock, s, &other,
		       "%s-safe -> %s-unsafe lock order %s: the first in %s context (step %u, "
		       "T%u%s), the last with %ss on (step %u, T%u%s)",
		       what[in], what[in], chain, in == USE_IN_HARDIRQ ? "hard-IRQ" : "softirq",
		       us->step, us->tid, us->exec != G.exec ? ", earlier" : "",
		       in == USE_IN_HARDIRQ ? "interrupt" : "bottom half", uu->step, uu->tid,
		       uu->exec != G.exec ? ", earlier" : ""))
		nr_witness = w0;
	return true;
}

static void __attribute__((noinline))
usage_first(int c, unsigned use, const void *lock, const struct weft_site *s)
{
	static const char *const names[4] = { "IN-HARDIRQ", "HARDIRQ-ON", "IN-SOFTIRQ",
					      "SOFTIRQ-ON" };
	struct ld_class *k = &G.cls[c];

	k->used |= (uint8_t)(1u << use);
	G.used_any |= (uint8_t)(1u << use);
	k->use[use] = use_now(s);
	if (k->checked_exec != G.exec) {
		k->checked_exec = G.exec;
		k->checked = 0;
	}
	k->checked |= (uint8_t)(1u << use);
	/* IN-X <-> X-ON: the other direction's write usage, and for a write
	 * usage its read one too (mark_lock_irq(): a read in the interrupt
	 * and a read with it enabled are consistent, an rwlock_t's readers
	 * in interrupt context being recursive) */
	unsigned opp = (use ^ 1u) & 3u;
	if (!(k->used >> opp & 1) && !(use & USE_READ) && (k->used >> (opp + USE_READ) & 1))
		opp += USE_READ;
	if (!(k->used >> opp & 1)) {
		/* safe -> unsafe through the graph (an IRQ-safe class reaching
		 * an unsafe one, or reached by a safe one) */
		if (G.nr_edges)
			(void)safe_unsafe(c, c, use & 2u, lock, s);
		return;
	}
	/* the kernel's names: -R and -W when a read usage is one of the two */
	unsigned in = use & 1 ? opp : use, on = use & 1 ? use : opp;
	bool rw = (use | opp) & USE_READ;
	char in_name[24], on_name[24];
	snprintf(in_name, sizeof(in_name), "%s%s", names[in & 3u],
		 rw ? in & USE_READ ? "-R" : "-W" : "");
	snprintf(on_name, sizeof(on_name), "%s%s", names[on & 3u],
		 rw ? on & USE_READ ? "-R" : "-W" : "");
	char name[48];
	class_name(c, name, sizeof(name));
	unsigned w0 = nr_witness;   /* a warning gone past keeps no witness */
	witness_use(c, opp);
	struct weft_access other = access_of(&k->use[opp]);
	if (weft_warn2(WEFT_KIND_IRQ_LOCK_INVERSION, lock, s, &other,
		       "inconsistent {%s} -> {%s} usage of %s: %s, and %s (step %u, T%u%s)",
		       in_name, on_name, name,
		       use & 1 ? marking_held ? "held as interrupts are enabled here"
					      : "taken with interrupts enabled here"
			       : "taken in interrupt context here",
		       opp & 1 ? "with them enabled" : "in interrupt context",
		       k->use[opp].step, k->use[opp].tid,
		       k->use[opp].exec != G.exec ? ", an earlier execution" : ""))
		nr_witness = w0;
}

/* Checked at its first use in this execution (the invariant above); a use
 * already seen in this execution returns here, without the call (every
 * acquisition comes here twice). */
static inline void usage(int c, unsigned use, const void *lock, const struct weft_site *s)
{
	const struct ld_class *k = &G.cls[c];

	if (!(k->used >> use & 1) || k->use[use].exec != G.exec)
		usage_first(c, use, lock, s);
}

/* ---------------------------------------------------------- the hooks */

/* The uses (1 << USE_*) of an acquisition by t, as its context stands. */
static inline unsigned uses_of(const struct wthread *t)
{
	/* IN-HARDIRQ in a hard-IRQ handler (in_irq 1), IN-SOFTIRQ in a
	 * softirq (2); HARDIRQ-ON outside a hard-IRQ handler with interrupts
	 * on, SOFTIRQ-ON when also outside a softirq with bottom halves on */
	unsigned in = t->in_irq, u;

	if (__builtin_expect(in == 1, 0))
		return 1u << USE_IN_HARDIRQ;
	u = in == 2 ? 1u << USE_IN_SOFTIRQ : 0;
	if (!t->irq_off) {
		u |= 1u << USE_HARDIRQ_ON;
		if (in != 2 && !t->bh)
			u |= 1u << USE_SOFTIRQ_ON;
	}
	return u;
}

static __attribute__((noinline)) void acquire_slow(const void *lock, bool trylock, bool read,
						   const struct weft_site *s)
{
	struct wthread *t = &M.th[M.cur];
	int c = class_of_lock(lock);
	if (c < 0)
		return;
	unsigned need = uses_of(t) << (read ? USE_READ : 0);
	/* irq usage, as the context stands at the acquisition */
	if (G.cls[c].checked_exec != G.exec || (need & ~(unsigned)G.cls[c].checked))
		for (unsigned u = 0; u < USE__COUNT; u++)
			if (need >> u & 1)
				usage(c, u, lock, s);
	/* order: every held class -> this one (read holds take no part:
	 * their recursive and non-recursive forms are not modelled) */
	if (!trylock && !read) {
		for (unsigned i = 0; i < T[M.cur].n; i++) {
			const struct ld_held *h = &T[M.cur].h[i];
			int a = h->cls;
			if (a == c || h->read)
				continue;
			struct ld_edge *e = NULL;
			if (G.adj[a][c / 64] >> (c % 64) & 1) {
				e = (struct ld_edge *)edge_of(a, c);
				if (!e || e->to.exec == G.exec)
					continue;   /* checked in this execution */
			}
			/* each report below, if the run goes on past it, leaves
			 * the graph as a silent check would (the invariant) */
			bool inverted = find_path(c, a, (uint16_t[16]){ 0 }, 16) != 0;
			if (inverted)
				inversion_report(a, c, h, lock, s);
			if (!e) {
				if (G.nr_edges == LD_MAX_EDGES) {
					G.full = true;
					continue;
				}
				e = &G.edges[G.nr_edges++];
				e->a = (uint16_t)a;
				e->b = (uint16_t)c;
				G.adj[a][c / 64] |= 1ull << (c % 64);
			}
			e->from = h->at;
			e->to = use_now(s);
			if (!inverted && !safe_unsafe(a, c, USE_IN_HARDIRQ, lock, s))
				(void)safe_unsafe(a, c, USE_IN_SOFTIRQ, lock, s);
		}
	}
	if (T[M.cur].n < LD_MAX_HELD) {
		struct ld_held *h = &T[M.cur].h[T[M.cur].n++];
		h->cls = (uint16_t)c;
		h->trylock = trylock;
		h->read = read;
		h->lock = lock;
		h->at = use_now(s);
	}
}

/* The common acquisition has a fast path that calls nothing: a lock whose
 * class is remembered, every use of it already checked in this execution
 * (usage()), no edge to add (a trylock, or nothing held) and a site with
 * its id. It does what acquire_slow() would. */
void weft_lockdep_acquire(const void *lock, bool trylock, const struct weft_site *s)
{
	int cur = M.cur;

	if (cur < 0)
		return;
	uint32_t loc = loc_of(lock);
	unsigned slot = (loc * 0x9e3779b1u) >> 24;
	if (class_cache[slot].gen != class_cache_gen || class_cache[slot].loc != loc)
		goto slow;
	unsigned n = T[cur].n;
	if ((n && !trylock) || n >= LD_MAX_HELD || !s->id)
		goto slow;
	unsigned c = class_cache[slot].cls;
	const struct ld_class *k = &G.cls[c];
	if (k->checked_exec != G.exec || (uses_of(&M.th[cur]) & ~(unsigned)k->checked))
		goto slow;
	struct ld_held *h = &T[cur].h[n];
	T[cur].n = (uint8_t)(n + 1);
	h->cls = (uint16_t)c;
	h->trylock = trylock;
	h->read = false;
	h->lock = lock;
	h->at = (struct ld_use){ s->id, s, M.step, G.exec, (uint8_t)cur };
	return;
slow:
	acquire_slow(lock, trylock, false, s);
}

/* A read acquisition (read_lock() of an rwlock_t): the _READ usages
 * ({IN-HARDIRQ-R}, {HARDIRQ-ON-R} ...), and a hold that takes no part in
 * the order graph. */
void weft_lockdep_acquire_read(const void *lock, bool trylock, const struct weft_site *s)
{
	if (M.cur >= 0)
		acquire_slow(lock, trylock, true, s);
}

/* Interrupts (bottom halves) were enabled in the current context
 * (local_irq_enable(), local_irq_restore() to on, spin_unlock_irq(),
 * local_bh_enable() ...): every lock it still holds is from now on held
 * with them on, the HARDIRQ-ON (SOFTIRQ-ON) usage of its class, checked
 * as an acquisition's is (the kernel's mark_held_locks() from
 * trace_hardirqs_on() and lockdep_softirqs_on()). A lock taken with
 * interrupts off and still held when they come back on is as unsafe as
 * one taken with them on: the interrupt that takes it spins on its own
 * CPU's holder. */
void weft_lockdep_irqs_on(const struct weft_site *s)
{
	if (M.cur < 0 || !T[M.cur].n)
		return;
	unsigned on = uses_of(&M.th[M.cur]) & (1u << USE_HARDIRQ_ON | 1u << USE_SOFTIRQ_ON);

	marking_held = true;
	for (unsigned i = 0; i < T[M.cur].n && on; i++) {
		const struct ld_held *h = &T[M.cur].h[i];
		unsigned r = h->read ? USE_READ : 0;
		if (on & 1u << USE_HARDIRQ_ON)
			usage(h->cls, USE_HARDIRQ_ON + r, h->lock, s);
		if (on & 1u << USE_SOFTIRQ_ON)
			usage(h->cls, USE_SOFTIRQ_ON + r, h->lock, s);
	}
	marking_held = false;
}

static __attribute__((noinline)) bool release_slow(const void *lock, const struct weft_site *s)
{
	for (unsigned i = T[M.cur].n; i-- > 0;) {
		if (T[M.cur].h[i].lock != lock)
			continue;
		memmove(&T[M.cur].h[i], &T[M.cur].h[i + 1],
			(T[M.cur].n - i - 1) * sizeof(T[M.cur].h[0]));
		T[M.cur].n--;
		return true;
	}
	char name[48];
	weft_describe_loc(M.sc, loc_of(lock), name, sizeof(name));
	weft_report(WEFT_KIND_BAD_UNLOCK, lock, s,
		    "T%d releases %s, which it does not hold (%u locks held)", M.cur, name,
		    T[M.cur].n);
	return false;
}

/* The lock is released: false (and a report) if the thread does not hold
 * it. The last lock taken, the usual one, without a call. */
bool weft_lockdep_release(const void *lock, const struct weft_site *s)
{
	if (M.cur < 0)
		return true;
	unsigned cur = (unsigned)M.cur, n = T[cur].n;
	if (n && T[cur].h[n - 1].lock == lock) {
		T[cur].n = (uint8_t)(n - 1);
		return true;
	}
	return release_slow(lock, s);
}

/* A thread (or a handler) ends: it must hold nothing. */
void weft_lockdep_exit(unsigned tid)
{
	if (!weft_lockdep_on || tid >= WEFT_EXEC_MAX_THREADS || !T[tid].n)
		return;
	const struct ld_held *h = &T[tid].h[T[tid].n - 1];
	char name[48];
	struct weft_access other = access_of(&h->at);
	weft_describe_loc(M.sc, loc_of(h->lock), name, sizeof(name));
	weft_warn2(WEFT_KIND_LOCK_HELD_AT_EXIT, h->lock, h->at.site, &other,
		     "T%u %s holding %s (taken at step %u)%s", tid,
		     thread_irq(&M.th[tid]) >= 0 ? "returns from its interrupt handler" : "ends",
		     name, h->at.step, T[tid].n > 1 ? " and more" : "");
}

/* A spawned thread holds nothing yet (its slot may hold an earlier
 * execution's stack). */
static void lockdep_spawned(unsigned tid)
{
	T[tid].n = 0;
}

const struct weft_family weft_family_lockdep = {
	.name = "lockdep",
	.begin = weft_lockdep_begin,
	.spawned = lockdep_spawned,
	.thread_exit = weft_lockdep_exit,
};
