/*
 * mmap_sem.c - a model written against the previous release's installed
 * headers (commit 111b56f, the last whose <weft/kernel.h> did not include
 * <weft/sleep.h> and <weft/rcu.h>), kept unchanged: it has its own rw
 * semaphore called init_rwsem()/down_read()/up_read()/down_write()/
 * up_write() and its own atomic_long_t, as models of that release had to.
 *
 * It builds against today's headers with the two switches CHANGELOG.md
 * names (-DWEFT_OWN_RWSEM -DWEFT_OWN_ATOMIC_LONG) and nothing else changed;
 * tests/compat/CMakeLists.txt builds it so, and check-previous.sh also
 * builds it against 111b56f's own headers (from git) with no switch, which
 * shows it is a model of that release.
 *
 * The model: a writer updates a two-word mapping (start, end) under the
 * semaphore's write side; a reader checks that it never sees a torn pair.
 * "unlocked-read" reads without the semaphore (a torn read, one
 * preemption); "locked-read" takes the read side.
 */
#include <weft/kernel.h>
#include "../model_driver.h"

enum { V_UNLOCKED_READ, V_LOCKED_READ };

/* the model's own rw semaphore: a spinlock, a reader count, a writer flag */
struct rw_semaphore {
	spinlock_t lock;
	int readers;
	int writer;
};

/* the model's own atomic_long_t */
typedef struct {
	long counter;
} atomic_long_t;

static long atomic_long_read(atomic_long_t *v)
{
	return READ_ONCE(v->counter);
}

static void atomic_long_inc(atomic_long_t *v)
{
	atomic_t *a = (atomic_t *)(void *)&v->counter;   /* low word: counts stay small */

	atomic_inc(a);
}

static void init_rwsem(struct rw_semaphore *s)
{
	spin_lock_init(&s->lock);
	WRITE_ONCE(s->readers, 0);
	WRITE_ONCE(s->writer, 0);
}

static void down_read(struct rw_semaphore *s)
{
	for (;;) {
		spin_lock(&s->lock);
		if (!READ_ONCE(s->writer)) {
			WRITE_ONCE(s->readers, READ_ONCE(s->readers) + 1);
			spin_unlock(&s->lock);
			return;
		}
		spin_unlock(&s->lock);
		cpu_relax();
	}
}

static void up_read(struct rw_semaphore *s)
{
	spin_lock(&s->lock);
	WRITE_ONCE(s->readers, READ_ONCE(s->readers) - 1);
	spin_unlock(&s->lock);
}

static void down_write(struct rw_semaphore *s)
{
	for (;;) {
		spin_lock(&s->lock);
		if (!READ_ONCE(s->writer) && !READ_ONCE(s->readers)) {
			WRITE_ONCE(s->writer, 1);
			spin_unlock(&s->lock);
			return;
		}
		spin_unlock(&s->lock);
		cpu_relax();
	}
}

static void up_write(struct rw_semaphore *s)
{
	spin_lock(&s->lock);
	WRITE_ONCE(s->writer, 0);
	spin_unlock(&s->lock);
}

struct mm_world {
	unsigned variant;
	struct rw_semaphore mmap_sem;
	unsigned long vm_start, vm_end;   /* end - start is always 2 pages */
	atomic_long_t nr_faults;
};

WEFT_TEST_SETUP(mm, struct mm_world)
{
	init_rwsem(&W->mmap_sem);
	WRITE_ONCE(W->vm_start, 0x1000);
	WRITE_ONCE(W->vm_end, 0x3000);
}

static void mm_thread(void *w, unsigned tid)
{
	struct mm_world *W = w;

	if (tid == 0) {   /* mremap(): move the mapping up one page */
		down_write(&W->mmap_sem);
		WRITE_ONCE(W->vm_start, 0x2000);
		WRITE_ONCE(W->vm_end, 0x4000);
		up_write(&W->mmap_sem);
		return;
	}
	/* a page fault: reads the mapping */
	if (W->variant == V_LOCKED_READ)
		down_read(&W->mmap_sem);
	unsigned long start = READ_ONCE(W->vm_start);
	unsigned long end = READ_ONCE(W->vm_end);
	if (W->variant == V_LOCKED_READ)
		up_read(&W->mmap_sem);
	atomic_long_inc(&W->nr_faults);
	if (end - start != 0x2000)
		weft_report(WEFT_KIND_DATA_LOSS, &W->vm_start,
			    WEFT_SITE(WEFT_EV_NOTE, "vm_end - vm_start == 2 pages"),
			    "a torn mapping: [%#lx, %#lx)", start, end);
}

static void mm_quiesce(void *w)
{
	struct mm_world *W = w;

	if (weft_peek(W->nr_faults.counter) != 1)
		weft_report(WEFT_KIND_LOST_UPDATE, &W->nr_faults,
			    WEFT_SITE(WEFT_EV_NOTE, "one fault counted"), "%ld faults counted",
			    atomic_long_read(&W->nr_faults));
}

static const char *const mm_files[] = { "mmap_sem.c", NULL };

static const struct weft_variant mm_variants[] = {
	{ "unlocked-read", NULL, true, "the fault reads the mapping without mmap_sem",
	  "compat test", WEFT_KIND_DATA_LOSS, 1, V_UNLOCKED_READ },
	{ "locked-read", NULL, false, "down_read(&mmap_sem) around the reads", "compat test",
	  WEFT_KIND_NONE, 0, V_LOCKED_READ },
};

static const struct weft_scenario compat_mmap_sem = {
	.name = "compat-mmap-sem",
	.summary = "a model of the previous release with its own rw semaphore",
	.source = "tests/compat", .nr_cpus = 2, .nr_threads = 2,
	.world_size = sizeof(struct mm_world), WEFT_TEST_NOP_OP,
	.decision_hint = 64, .files = mm_files, WEFT_TEST_HOOKS(mm), .quiesce = mm_quiesce,
};

WEFT_DEFINE_REGISTRY(&compat_mmap_sem);
