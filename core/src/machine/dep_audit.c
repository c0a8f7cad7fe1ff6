/*
 * dep_audit.c - the dependence audit (WEFT_DPOR_AUDIT=1): a debugging mode
 * that checks the dependence records (weft_sched_step(), sched.h) which
 * partial-order reduction trusts, against what each step really changed.
 *
 * At every scheduling point it compares the world and the families' core
 * area (every location, [0, M.loc_limit)) with a copy taken at the point
 * before, and each family's state outside the world behind a location its
 * records name (struct weft_family's audit_state: a worklist behind its
 * wq_pool[] byte) with the digest taken then. A changed byte, or a changed
 * digest, that no write-class record of the step(s) in between covers is
 * reported on stderr: such a step looked independent of a later access to
 * that location, and DPOR may have left an order unexplored (a1de7ac's
 * worklist dequeue was one).
 *
 * Write-class records are the kinds dpor_clocks.c's classify() marks as
 * writes: WEFT_DEP_WRITE, ACQUIRE, RELEASE, BLOCKED, and a READ at a
 * trylock's site. Every byte below M.loc_limit counts: no byte of the
 * world or of the core area is bookkeeping that another thread never reads
 * (none is excluded; a family that adds such state keeps it outside the
 * world, in the machine).
 *
 * Only under sc (a weak model's buffered stores become visible at points
 * of other threads, a flush with no record by design) and for executions
 * that end without a report (a report ends a step before its records).
 * A window ends at every point and at every switch to another thread (a
 * thread's start and a wake-up run code before their first point;
 * weft_mem_switch_in() calls in), so it is one thread's. It can hold more than one step of it where a family
 * counts a step without a scheduling point (a sleep's wake-up, a join):
 * the audit then checks the changes of those steps together against all
 * their records, which can only hide a fault, never invent one.
 *
 * A change of the model's world with no record is plain C of a model or
 * a kit: the audit remembers who made it, and reports it ("unrecorded
 * shared change") when a record of another thread touches it that the
 * records' happens-before (clock_record()) does not order after it. An
 * object initialised before it is published, or state a lock both hold
 * guards, is ordered so; a change another thread can meet in either order
 * is a dependence the reductions do not see.
 *
 * Off unless WEFT_DPOR_AUDIT is set when the machine starts: then
 * weft_point_hook is set and weft_mem_due is 0 and weft_mem_switch_due
 * true under sc too, so every point and every switch calls in; otherwise nothing here runs and the hot path is as it
 * was (bench/instr-per-step).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

#define AUDIT_RECORDS 512
#define AUDIT_STATES 256
#define AUDIT_FINDINGS 256
#define AUDIT_CLOCKS (1u << 16)

/* A vector clock of the records: per thread, the last step of it that
 * happens before (program order, a spawn, a join, and two records of an
 * overlapping range, one of them write-class: the dependence the
 * reductions take). */
typedef uint32_t vclock[WEFT_MAX_THREADS];

static struct {
	bool active;               /* this execution is audited */
	uint8_t *snap;             /* the locations at the last point */
	uint8_t *changer;          /* per world byte: 1 + the thread that changed
				      it unrecorded in this execution, or 0 */
	const struct weft_site **changed_at;  /* per world byte: the first record
				      of that change's window (its step's site) */
	uint32_t *changed_step;    /* per world byte: the last step of that window */
	/* happens-before of this execution's records: each thread's clock, a
	 * pool of the clocks records left behind, per byte the pool index of
	 * its last write-class record and of each thread's reads since (0:
	 * none) */
	vclock vc[WEFT_MAX_THREADS];
	vclock *pool;
	uint32_t nr_pool;
	uint32_t (*last_write);
	uint32_t (*last_read)[WEFT_MAX_THREADS];
	bool clocks_full;
	size_t snap_cap;
	uint32_t snap_len;
	uint32_t snap_step;        /* the first step of the window */
	int snap_tid;              /* the thread that ran it */
	struct weft_audit_state st[AUDIT_STATES];
	unsigned nr_st;
	struct weft_step_info rec[AUDIT_RECORDS];
	unsigned nr_rec;
	bool rec_overflow;
	void (*inner)(void *st, const struct weft_step_info *si);
	/* per process */
	uint64_t windows, changes, shared;
	struct finding {
		const struct weft_site *site;
		uint32_t region;        /* where the change starts, per region */
		uint64_t count;
	} found[AUDIT_FINDINGS];
	unsigned nr_found;
	bool weak_noted, overflow_noted, clocks_noted;
	bool enabled;              /* WEFT_DPOR_AUDIT (weft_point_hook may be the
				      swap audit's alone, swap_audit.c) */
} A;

static bool writes(const struct weft_step_info *si)
{
	switch (si->kind) {
	case WEFT_DEP_WRITE:
	case WEFT_DEP_ACQUIRE:
	case WEFT_DEP_RELEASE:
	case WEFT_DEP_BLOCKED:
		return si->loc != WEFT_NO_LOC;
	case WEFT_DEP_READ:
		return si->loc != WEFT_NO_LOC && si->site && si->site->ev == WEFT_EV_TRYLOCK;
	default:
		return false;
	}
}

static bool covered_range(uint32_t off, uint32_t len)
{
	for (unsigned i = 0; i < A.nr_rec; i++) {
		const struct weft_step_info *r = &A.rec[i];
		uint32_t size = r->size ? r->size : 1;
		if (writes(r) && r->loc < off + len && off < r->loc + size)
			return true;
	}
	return false;
}

/* A change of off is covered by a write record of off, or, in a part of
 * the core area that a family names by another range (its alias), by a
 * write record overlapping that range. */
static bool covered(uint32_t off)
{
	if (covered_range(off, 1))
		return true;
	if (off < M.core_off || off - M.core_off >= weft_core_size)
		return false;
	for (unsigned i = 0; i < weft_nr_core_regions; i++) {
		const struct weft_core_region *r = &weft_core_regions[i];
		if (off - M.core_off >= r->off && off - M.core_off < r->off + r->size)
			return r->alias_size &&
			       covered_range(M.core_off + r->alias_off, r->alias_size);
	}
	return false;
}

static void join(uint32_t *to, const uint32_t *from)
{
	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++)
		if (from[t] > to[t])
			to[t] = from[t];
}

/* The record si in the happens-before of the records: its thread's clock
 * takes in what it depends on (the last write-class record of every byte
 * it touches, and for a write-class record every read since), and it
 * stays behind at those bytes. The relation is the records' own, never
 * wider than the reductions' dependence (dpor_clocks.c, which also orders
 * a yield with everything and a woken thread after its waker; locations
 * past the core area, per-CPU there, are not in the world here either): a
 * change it orders before another thread's access is ordered so in every
 * execution the reductions take as equivalent to this one. */
static void clock_record(const struct weft_step_info *si)
{
	if (si->tid >= WEFT_MAX_THREADS)
		return;
	uint32_t *v = A.vc[si->tid];
	if (si->step > v[si->tid])
		v[si->tid] = si->step;
	if (si->kind == WEFT_DEP_SPAWN && si->arg < WEFT_MAX_THREADS) {
		join(A.vc[si->arg], v);
		return;
	}
	if (si->kind == WEFT_DEP_JOIN && si->arg < WEFT_MAX_THREADS) {
		join(v, A.vc[si->arg]);
		return;
	}
	if (si->loc == WEFT_NO_LOC || si->kind == WEFT_DEP_NONE || si->kind > WEFT_DEP_BLOCKED)
		return;
	/* what dpor_clocks.c's classify() takes for no access at all (a
	 * phantom: a join's or a spinner's going to sleep) orders nothing */
	if (si->kind == WEFT_DEP_BLOCKED &&
	    ((si->site && si->site->ev == WEFT_EV_JOIN) || (si->flags & WEFT_STEP_SPIN)))
		return;
	bool w = writes(si);
	uint32_t size = si->size ? si->size : 1;
	uint32_t end = si->loc + size < A.snap_len ? si->loc + size : A.snap_len;
	for (uint32_t b = si->loc; b < end; b++) {
		if (A.last_write[b])
			join(v, A.pool[A.last_write[b]]);
		if (w)
			for (unsigned t = 0; t < WEFT_MAX_THREADS; t++)
				if (A.last_read[b][t])
					join(v, A.pool[A.last_read[b][t]]);
	}
	if (A.nr_pool == AUDIT_CLOCKS) {
		A.clocks_full = true;
		return;
	}
	uint32_t at = A.nr_pool;
	if (at > 1 && !memcmp(A.pool[at - 1], v, sizeof(vclock)))
		at--;   /* the same clock as the last record's */
	else
		memcpy(A.pool[A.nr_pool++], v, sizeof(vclock));
	for (uint32_t b = si->loc; b < end; b++) {
		if (w) {
			A.last_write[b] = at;
			memset(A.last_read[b], 0, sizeof(A.last_read[b]));
		} else {
			A.last_read[b][si->tid] = at;
		}
	}
}

/* A record of thread t touching a byte another thread changed with no
 * record (the model's world: plain C of a model or a kit), where the
 * records do not order the change before it: the reductions took the two
 * for independent, so an order between them may be unexplored. Where the
 * records do order them (the writer published the object, or a lock both
 * hold orders the two, by records the reductions see) no reduction puts
 * the access first, and nothing is reported. Per-thread state
 * (vm_event-like counters) never meets another thread's record. While
 * the clocks are full (a long execution) every meeting is reported. */
static void shared_check(const struct weft_step_info *si)
{
	if (!A.active || si->loc == WEFT_NO_LOC || si->tid == 0xff)
		return;
	uint32_t size = si->size ? si->size : 1;
	uint32_t end = si->loc + size < A.snap_len ? si->loc + size : A.snap_len;
	for (uint32_t b = si->loc; b < end; b++) {
		unsigned c = A.changer[b];
		if (!c || c - 1 == si->tid)
			continue;
		/* one finding per run of bytes the same change made (a field) */
		const struct weft_site *at = A.changed_at[b];
		uint32_t step = A.changed_step[b];
		uint32_t run = b + 1;
		while (run < end && A.changer[run] == c && A.changed_at[run] == at &&
		       A.changed_step[run] == step)
			run++;
		if (!A.clocks_full && si->tid < WEFT_MAX_THREADS &&
		    A.vc[si->tid][c - 1] >= step) {
			b = run - 1;   /* ordered after the change: it may still meet a later one */
			continue;
		}
		memset(&A.changer[b], 0, run - b);   /* once per change */
		A.shared++;
		char what[96];
		weft_describe_loc(M.sc, b, what, sizeof(what));
		fprintf(stderr,
			"weft: dpor audit: unrecorded shared change: %s: step %u, T%u's %s of "
			"world offset %u (%u bytes, %s) [the model's world, shared] meets T%u's "
			"change of it with no record\n", M.sc->name, si->step, si->tid,
			si->kind == WEFT_DEP_READ ? "read" : "access", b, run - b, what, c - 1);
		if (si->site)
			fprintf(stderr, "weft: dpor audit:   at %s:%u %s(): %s\n", si->site->file,
				si->site->line, si->site->func, si->site->what);
		if (at)
			fprintf(stderr, "weft: dpor audit:   changed in the step of %s:%u %s(): %s\n",
				at->file, at->line, at->func, at->what);
		b = run - 1;
	}
}

static void audit_step(void *st, const struct weft_step_info *si)
{
	if (A.active) {
		clock_record(si);
		shared_check(si);
	}
	if (A.nr_rec < AUDIT_RECORDS)
		A.rec[A.nr_rec++] = *si;
	else
		A.rec_overflow = true;
	if (A.inner)
		A.inner(st, si);
}

static const char *kind_name(unsigned k)
{
	static const char *const names[] = { "none", "read", "write", "acquire", "release",
					     "blocked", "spawn", "join", "end", "yield" };
	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

/* The part of the world or core area off is in: a core region's start
 * (its family), else the location itself. */
static uint32_t region_of(uint32_t off, const char **family)
{
	*family = NULL;
	if (off >= M.core_off && off < M.core_off + weft_core_size) {
		for (unsigned i = 0; i < weft_nr_core_regions; i++) {
			const struct weft_core_region *r = &weft_core_regions[i];
			if (off - M.core_off >= r->off && off - M.core_off < r->off + r->size) {
				*family = r->name;
				return M.core_off + r->off;
			}
		}
		*family = "core (padding)";
	}
	return off;
}

/* One unrecorded change at [off, off + len) (a digest's: len 0) of the
 * window that ends now: counted, printed the first time its first
 * record's site and region are seen. */
static void finding(uint32_t off, uint32_t len)
{
	const char *family;
	uint32_t region = region_of(off, &family);
	const struct weft_site *site = A.nr_rec ? A.rec[0].site : NULL;

	A.changes++;
	int tid = A.nr_rec && A.rec[0].tid != 0xff ? A.rec[0].tid : A.snap_tid;
	/* the window's last step (a family may count steps without a point) */
	uint32_t last = A.snap_step;
	for (unsigned i = 0; i < A.nr_rec; i++)
		if (A.rec[i].step > last)
			last = A.rec[i].step;
	if (!family && tid >= 0)
		for (uint32_t b = off; b < off + len; b++) {
			A.changer[b] = (uint8_t)(tid + 1);
			A.changed_at[b] = site;
			A.changed_step[b] = last;
		}
	for (unsigned i = 0; i < A.nr_found; i++)
		if (A.found[i].site == site && A.found[i].region == region) {
			A.found[i].count++;
			return;
		}
	if (A.nr_found < AUDIT_FINDINGS)
		A.found[A.nr_found++] = (struct finding){ site, region, 1 };

	char what[96];
	weft_describe_loc(M.sc, off, what, sizeof(what));
	/* the funnel's last write of it (shadow.c), if in this window */
	const struct shadow *sh = len ? &M.shadow[off] : NULL;
	bool funnel = sh && sh->epoch == M.epoch && sh->step >= A.snap_step && sh->site;
	fprintf(stderr,
		"weft: dpor audit: unrecorded change: %s: step %u (to %u), T%d: %s %u (%u bytes) "
		"[%s] changed, no write record of the step covers it\n",
		M.sc->name, A.snap_step, M.step - 1, tid, len ? "world offset" : "the state behind location",
		off, len, family ? family : "the model's world");
	fprintf(stderr, "weft: dpor audit:   that is %s\n", what);
	if (funnel)
		fprintf(stderr, "weft: dpor audit:   written by the funnel at %s:%u %s(): %s\n",
			sh->site->file, sh->site->line, sh->site->func, sh->site->what);
	else if (len)
		fprintf(stderr, "weft: dpor audit:   written by plain C (no traced access)\n");
	if (!A.nr_rec)
		fprintf(stderr, "weft: dpor audit:   the step has no record\n");
	for (unsigned i = 0; i < A.nr_rec && i < 8; i++) {
		const struct weft_step_info *r = &A.rec[i];
		fprintf(stderr, "weft: dpor audit:   record: step %u T%d %s", r->step,
			r->tid == 0xff ? -1 : r->tid, kind_name(r->kind));
		if (r->loc != WEFT_NO_LOC)
			fprintf(stderr, " %u+%u", r->loc, r->size ? r->size : 1);
		if (r->site)
			fprintf(stderr, " at %s:%u %s(): %s", r->site->file, r->site->line,
				r->site->func, r->site->what);
		fputc('\n', stderr);
	}
}

unsigned weft_audit_gather_states(struct weft_audit_state *out, unsigned cap)
{
	unsigned n = 0;

	for (unsigned i = 0; i < weft_nr_families && n < cap; i++)
		if (weft_families[i]->audit_state)
			n += weft_families[i]->audit_state(out + n, cap - n);
	return n;
}

static void snapshot(void)
{
	A.snap_len = M.loc_limit;
	memcpy(A.snap, M.world, A.snap_len);
	A.nr_st = weft_audit_gather_states(A.st, AUDIT_STATES);
	A.snap_step = M.step;
	A.snap_tid = M.cur;
	A.nr_rec = 0;
	A.rec_overflow = false;
}

/* The window since the last point ends: its changes against its records. */
static void check(void)
{
	A.windows++;
	if (A.rec_overflow) {
		if (!A.overflow_noted)
			fprintf(stderr, "weft: dpor audit: a window had more than %u records: "
				"not checked\n", AUDIT_RECORDS);
		A.overflow_noted = true;
		return;
	}
	if (memcmp(A.snap, M.world, A.snap_len)) {
		const uint8_t *now = M.world;
		for (uint32_t off = 0; off < A.snap_len; off++) {
			if (A.snap[off] == now[off] || covered(off))
				continue;
			uint32_t end = off + 1;
			while (end < A.snap_len && A.snap[end] != now[end] && !covered(end))
				end++;
			finding(off, end - off);
			off = end;
		}
	}
	struct weft_audit_state cur[AUDIT_STATES];
	unsigned n = weft_audit_gather_states(cur, AUDIT_STATES);
	for (unsigned i = 0; i < n; i++) {
		uint64_t before = 0;   /* a state that was not there: its empty digest */
		for (unsigned k = 0; k < A.nr_st; k++)
			if (A.st[k].loc == cur[i].loc)
				before = A.st[k].digest;
		if (before != cur[i].digest && !covered(cur[i].loc))
			finding(cur[i].loc, 0);
	}
}

static void audit_point(void)
{
	if (!A.active || M.cur < 0)
		return;
	check();
	snapshot();
}

static void summary(void)
{
	fprintf(stderr, "weft: dpor audit: %llu windows checked, %llu unrecorded changes "
		"(%u distinct), %llu of the model's world met by another thread's record\n",
		(unsigned long long)A.windows, (unsigned long long)A.changes, A.nr_found,
		(unsigned long long)A.shared);
}

void weft_dep_audit_init(void)
{
	const char *e = getenv("WEFT_DPOR_AUDIT");

	if (!e || !*e || !strcmp(e, "0"))
		return;
	weft_point_hook = audit_point;
	A.enabled = true;
	atexit(summary);
}

void weft_dep_audit_wrap(void)
{
	if (!A.enabled)
		return;
	A.inner = M.on_step;
	M.on_step = audit_step;
	A.active = false;
	A.nr_rec = 0;
}

void weft_dep_audit_begin(void)
{
	if (!A.enabled)
		return;
	if (weft_mem_weak) {
		if (!A.weak_noted)
			fprintf(stderr, "weft: dpor audit: not under a weak memory model "
				"(buffered stores become visible unrecorded by design)\n");
		A.weak_noted = true;
		return;
	}
	if (A.snap_cap < M.loc_limit) {
		free(A.snap);
		free(A.changer);
		free(A.changed_at);
		free(A.changed_step);
		free(A.last_write);
		free(A.last_read);
		A.snap = malloc(M.loc_limit);
		A.changer = malloc(M.loc_limit);
		A.changed_at = malloc(M.loc_limit * sizeof(*A.changed_at));
		A.changed_step = malloc(M.loc_limit * sizeof(*A.changed_step));
		A.last_write = malloc(M.loc_limit * sizeof(*A.last_write));
		A.last_read = malloc(M.loc_limit * sizeof(*A.last_read));
		A.snap_cap = A.snap && A.changer && A.changed_at && A.changed_step &&
			     A.last_write && A.last_read ? M.loc_limit : 0;
		if (!A.snap_cap)
			return;
	}
	if (!A.pool && !(A.pool = malloc(AUDIT_CLOCKS * sizeof(vclock))))
		return;
	memset(A.changer, 0, M.loc_limit);
	memset(A.last_write, 0, M.loc_limit * sizeof(*A.last_write));
	memset(A.last_read, 0, M.loc_limit * sizeof(*A.last_read));
	memset(A.vc, 0, sizeof(A.vc));
	A.nr_pool = 1;   /* index 0: no record */
	A.clocks_full = false;
	A.active = true;
	snapshot();
}

void weft_dep_audit_end(bool clean)
{
	if (A.active && A.clocks_full && !A.clocks_noted) {
		fprintf(stderr, "weft: dpor audit: an execution had more than %u clocks: "
			"every later meeting of a change was reported\n", AUDIT_CLOCKS);
		A.clocks_noted = true;
	}
	if (A.active && clean)
		check();
	A.active = false;
}
