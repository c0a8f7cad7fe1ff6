/*
 * rculist_models.c - lists under their kernel names (<weft/list.h>) and
 * RCU-protected lists (<weft/rculist.h>) in the shapes kernel code gets
 * wrong, each bug beside its fix, run through the weft command line of
 * this program (bin/weft-rculist; tests/rculist/CMakeLists.txt):
 *
 *  rcu-del    T0, the updater, finds entry A under the list's lock
 *             (list_for_each_entry_rcu() with lockdep_is_held()), unlinks
 *             it and frees it; T1 walks the list in rcu_read_lock().
 *             sync: list_del_rcu(), synchronize_rcu(), free (clean under
 *             sc, tso and lkmm); no-sync: the free right after
 *             list_del_rcu() (rcu-free-in-use); plain-del: list_del(),
 *             which poisons ->next under the reader, then the grace
 *             period (the reader follows the poison: out-of-world).
 *  rcu-add    T0 publishes entry C; T1 walks and reads each entry's
 *             value. init-first: the value, then list_add_tail_rcu()
 *             (clean under sc, tso and lkmm: the reader's loads of the
 *             entry's fields depend on the pointer it loaded, through
 *             container_of()); init-after: list_add_rcu()
 *             then the value (assertion: a reader saw it unset).
 *  list-move  T0 moves entries between two lists under a spinlock
 *             (list_move_tail(), list_del_init(), list_for_each_entry_safe());
 *             T1 counts both lists under the same lock: locked (clean);
 *             unlocked-count (T1 walks without the lock: a wrong count,
 *             an assertion, or a walk led round a half-moved entry for
 *             ever, a livelock).
 */
#include <weft/kernel.h>
#include <weft/rculist.h>

static const char *const rculist_files[] = { "rculist_models.c", NULL };

#define RSITE(what) WEFT_SITE(WEFT_EV_NOTE, what)

struct entry {
	int key;
	int val;
	struct list_head node;
};

/* ----------------------------------------------------------------- rcu-del */

enum { RD_SYNC, RD_NO_SYNC, RD_PLAIN_DEL };

struct rdel_world {
	unsigned variant;
	spinlock_t lock;
	struct list_head head;
	struct entry a, b;
};

static void rdel_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct rdel_world *W = w;

	(void)wl;
	W->variant = variant;
	spin_lock_init(&W->lock);
	INIT_LIST_HEAD(&W->head);
	W->a.key = 1;
	W->a.val = 10;
	W->b.key = 2;
	W->b.val = 20;
	list_add_tail(&W->a.node, &W->head);
	list_add_tail(&W->b.node, &W->head);
}

static void rdel_thread(void *w, unsigned tid)
{
	struct rdel_world *W = w;
	struct entry *pos, *victim = NULL;

	if (tid == 1) {
		int sum = 0;
		rcu_read_lock();
		list_for_each_entry_rcu(pos, &W->head, node)
			sum += READ_ONCE(pos->val);
		rcu_read_unlock();
		if (sum != 20 && sum != 30)
			weft_report(WEFT_KIND_ASSERT, &W->head, RSITE("rdel sum"),
				    "the walk summed %d", sum);
		return;
	}
	spin_lock(&W->lock);
	list_for_each_entry_rcu(pos, &W->head, node, lockdep_is_held(&W->lock)) {
		if (READ_ONCE(pos->key) == 1) {
			victim = pos;
			break;
		}
	}
	if (victim) {
		if (W->variant == RD_PLAIN_DEL)
			list_del(&victim->node);
		else
			list_del_rcu(&victim->node);
	}
	spin_unlock(&W->lock);
	if (!victim)
		return;
	if (W->variant != RD_NO_SYNC)
		synchronize_rcu();
	weft_poison(victim, sizeof(*victim), RSITE("kfree(victim)"));
}

static const struct weft_variant rdel_variants[] = {
	{ "sync", NULL, false, "list_del_rcu(), synchronize_rcu(), then the free",
	  "tests/rculist", WEFT_KIND_NONE, 0, RD_SYNC },
	{ "no-sync", NULL, true, "the free right after list_del_rcu()", "tests/rculist",
	  WEFT_KIND_RCU_FREE_IN_USE, 0, RD_NO_SYNC },
	{ "plain-del", NULL, true, "list_del() poisons ->next under a reader", "tests/rculist",
	  WEFT_KIND_OUT_OF_WORLD, 0, RD_PLAIN_DEL },
};

static const struct weft_scenario rcu_del = {
	.name = "rcu-del",
	.summary = "test: removing an entry from an RCU-protected list",
	.source = "tests/rculist",
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct rdel_world),
	.decision_hint = 64,
	.files = rculist_files,
	.setup = rdel_setup,
	.thread = rdel_thread,
	.variants = rdel_variants,
	.nr_variants = 3,
};

/* ----------------------------------------------------------------- rcu-add */

enum { RA_INIT_FIRST, RA_INIT_AFTER };

struct radd_world {
	unsigned variant;
	struct list_head head;
	struct entry a, c;
};

static void radd_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct radd_world *W = w;

	(void)wl;
	W->variant = variant;
	INIT_LIST_HEAD(&W->head);
	W->a.val = 10;
	list_add_tail(&W->a.node, &W->head);
}

static void radd_thread(void *w, unsigned tid)
{
	struct radd_world *W = w;
	struct entry *pos;

	if (tid == 1) {
		rcu_read_lock();
		list_for_each_entry_rcu(pos, &W->head, node)
			if (!READ_ONCE(pos->val))
				weft_report(WEFT_KIND_ASSERT, &pos->val, RSITE("radd val"),
					    "a reader found an entry not yet initialised");
		rcu_read_unlock();
		return;
	}
	if (W->variant == RA_INIT_FIRST) {
		WRITE_ONCE(W->c.val, 30);
		list_add_tail_rcu(&W->c.node, &W->head);
	} else {
		list_add_rcu(&W->c.node, &W->head);
		WRITE_ONCE(W->c.val, 30);
	}
}

static const struct weft_variant radd_variants[] = {
	{ "init-first", NULL, false, "the entry initialised, then list_add_tail_rcu()",
	  "tests/rculist", WEFT_KIND_NONE, 0, RA_INIT_FIRST },
	{ "init-after", NULL, true, "list_add_rcu() before the entry is initialised",
	  "tests/rculist", WEFT_KIND_ASSERT, 0, RA_INIT_AFTER },
};

static const struct weft_scenario rcu_add = {
	.name = "rcu-add",
	.summary = "test: publishing an entry on an RCU-protected list",
	.source = "tests/rculist",
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct radd_world),
	.decision_hint = 48,
	.files = rculist_files,
	.setup = radd_setup,
	.thread = radd_thread,
	.variants = radd_variants,
	.nr_variants = 2,
};

/* --------------------------------------------------------------- list-move */

enum { LM_LOCKED, LM_UNLOCKED_COUNT };

struct lm_world {
	unsigned variant;
	spinlock_t lock;
	struct list_head from, to;
	struct entry e[3];
};

static void lm_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct lm_world *W = w;

	(void)wl;
	W->variant = variant;
	spin_lock_init(&W->lock);
	INIT_LIST_HEAD(&W->from);
	INIT_LIST_HEAD(&W->to);
	for (unsigned i = 0; i < ARRAY_SIZE(W->e); i++) {
		W->e[i].key = (int)i;
		list_add_tail(&W->e[i].node, &W->from);
	}
}

static void lm_thread(void *w, unsigned tid)
{
	struct lm_world *W = w;
	struct entry *pos, *n;

	if (tid == 0) {
		spin_lock(&W->lock);
		list_for_each_entry_safe(pos, n, &W->from, node)
			if (READ_ONCE(pos->key) != 1)
				list_move_tail(&pos->node, &W->to);
		spin_unlock(&W->lock);
		return;
	}
	unsigned count = 0;
	if (W->variant == LM_LOCKED)
		spin_lock(&W->lock);
	list_for_each_entry(pos, &W->from, node)
		count++;
	list_for_each_entry(pos, &W->to, node)
		count++;
	if (W->variant == LM_LOCKED)
		spin_unlock(&W->lock);
	if (count != ARRAY_SIZE(W->e))
		weft_report(WEFT_KIND_ASSERT, &W->from, RSITE("lm count"),
			    "counted %u entries on the two lists, not %zu", count,
			    ARRAY_SIZE(W->e));
}

static const struct weft_variant lm_variants[] = {
	{ "locked", NULL, false, "the mover and the counter under one spinlock",
	  "tests/rculist", WEFT_KIND_NONE, 0, LM_LOCKED },
	{ "unlocked-count", NULL, true, "the counter walks without the lock", "tests/rculist",
	  WEFT_KIND_ASSERT, 0, LM_UNLOCKED_COUNT },
};

static const struct weft_scenario list_move_scn = {
	.name = "list-move",
	.summary = "test: moving entries between lists under a lock",
	.source = "tests/rculist",
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct lm_world),
	.decision_hint = 96,
	.files = rculist_files,
	.setup = lm_setup,
	.thread = lm_thread,
	.variants = lm_variants,
	.nr_variants = 2,
};

WEFT_DEFINE_REGISTRY(&rcu_del, &rcu_add, &list_move_scn);
