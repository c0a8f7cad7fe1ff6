/*
 * test_values.c - values and labels as the model wrote them (issue 19,
 * item 6), in the race diagram and in the report's last events:
 *  - an atomic_long_t going 0 -> -1 prints -1 (its trace value has bit 63
 *    set, which the printers took for a world pointer: "&(outside the
 *    world)", and the diagram printed no value);
 *  - a PTE (or any field named so) prints in hex, not as a negative int;
 *  - site labels undo the kit's internal spellings ("test_bit(PG_dirty,
 *    &p->flags)", not "test_bit(WEFT_PG_dirty, &(p)->flags)");
 *  - a lock taken by setup is "held by setup" (a spinlock's was T0's);
 *  - a bit lock released with a plain store names no holder afterwards;
 *  - wake_up_process() names the task it woke (its event's old value is
 *    the task state, which the text read as a mask: T2 asleep in
 *    TASK_UNINTERRUPTIBLE, 2, was "wakes T1"); schedule() on no wait
 *    queue "sleeps", not "sleeps on ".
 */
#include <weft/kernel.h>
#include <weft/kthread.h>
#include <weft/mm/page.h>

#include "diag_test.h"
#include "../model_driver.h"

enum { V_LONG, V_PTE, V_LABEL, V_SETUP_SPIN, V_SETUP_MUTEX, V_BIT_PLAIN, V_TASK_WAKE, V_NR };

struct vw {
	unsigned variant;
	atomic_long_t nr;
	uint32_t pte[2];
	spinlock_t lock;
	struct weft_mutex mutex;
	unsigned long word;
	struct weft_page page;
	int woken;
};

/* V_TASK_WAKE's kthreads: T1 ends at once, T2 sleeps until woken */
static int vw_idle(void *data)
{
	(void)data;
	return 0;
}

static int vw_sleeper(void *data)
{
	int *woken = data;

	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (smp_load_acquire(woken))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

WEFT_TEST_SETUP(vw, struct vw)
{
	spin_lock_init(&W->lock);
	mutex_init(&W->mutex);
	if (W->variant == V_SETUP_SPIN)
		spin_lock(&W->lock);
	if (W->variant == V_SETUP_MUTEX)
		mutex_lock(&W->mutex);
}

static void vw_thread(void *w, unsigned tid)
{
	struct vw *W = w;

	switch (W->variant) {
	case V_LONG:
		if (tid == 0) {
			atomic_long_dec(&W->nr);
			BUG_ON(atomic_long_read(&W->nr) < 0);
		}
		break;
	case V_PTE:
		if (tid == 0) {
			WRITE_ONCE(W->pte[0], 0x80000401u);   /* a swap entry's bits */
			BUG_ON(READ_ONCE(W->pte[0]) >> 31);
		}
		break;
	case V_LABEL:
		if (tid == 0) {
			weft_page_set(&W->page, dirty);
			BUG_ON(weft_page_test(&W->page, dirty));
		}
		break;
	case V_SETUP_SPIN:
		if (tid == 0)
			spin_lock(&W->lock);   /* setup never releases it */
		break;
	case V_SETUP_MUTEX:
		if (tid == 0)
			mutex_lock(&W->mutex);
		break;
	case V_BIT_PLAIN:
		if (tid == 0) {
			(void)test_and_set_bit_lock(0, &W->word);
			__clear_bit_unlock(0, &W->word);     /* released, no holder now */
			set_bit(0, &W->word);                /* set again, not as a lock */
			weft_wait_on_bit_waiters(&W->word, 0, 1, true,
						 WEFT_SITE(WEFT_EV_LOCK, "wait_on_bit_lock(&W->word)"));
		}
		break;
	case V_TASK_WAKE:
		if (tid == 0) {
			(void)kthread_run(vw_idle, NULL, "idle");
			struct task_struct *k = kthread_run(vw_sleeper, &W->woken, "sleeper");
			while (task_is_running(k))
				cpu_relax();
			smp_store_release(&W->woken, 1);
			wake_up_process(k);
			BUG_ON(READ_ONCE(W->woken));
		}
		break;
	}
}

static void vw_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off == offsetof(struct vw, nr))
		snprintf(buf, n, "nr");
	else if (off >= offsetof(struct vw, pte) && off < offsetof(struct vw, pte) + 8)
		snprintf(buf, n, "pte %u", (unsigned)(off - offsetof(struct vw, pte)) / 4);
	else if (off >= offsetof(struct vw, lock) && off < offsetof(struct vw, lock) + 12)
		snprintf(buf, n, "the lock");
	else if (off >= offsetof(struct vw, mutex) && off < offsetof(struct vw, mutex) + 8)
		snprintf(buf, n, "the mutex");
	else if (off == offsetof(struct vw, word))
		snprintf(buf, n, "the word");
	else if (off >= offsetof(struct vw, page) && off < offsetof(struct vw, page) + 56)
		snprintf(buf, n, "page ->flags");
}

static const char *const vw_files[] = { "test_values.c", NULL };

#define V(name, kind) { name, NULL, true, name, "test", kind, 0, 0 }
static const struct weft_variant vw_variants[V_NR] = {
	V("long", WEFT_KIND_BUG_ON),        V("pte", WEFT_KIND_BUG_ON),
	V("label", WEFT_KIND_BUG_ON),       V("setup-spin", WEFT_KIND_DEADLOCK),
	V("setup-mutex", WEFT_KIND_LOST_WAKEUP), V("bit-plain", WEFT_KIND_LOST_WAKEUP),
	V("task-wake", WEFT_KIND_BUG_ON),
};

static const struct weft_scenario vw_sc = {
	.name = "test-values", .summary = "values and labels", .source = "tests/diagrams",
	.nr_cpus = 1, .nr_threads = 1, .world_size = sizeof(struct vw), WEFT_TEST_NOP_OP,
	.decision_hint = 64, .files = vw_files,
	WEFT_TEST_HOOKS(vw), .describe = vw_describe,
};

/* The report's text (ERROR: ... last events ... SUMMARY:) of the run. */
static char *report_text(const struct d_run *run)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	weft_report_print(f, &run->o, &run->r);
	fclose(f);
	return out;
}

int main(void)
{
	for (unsigned v = 0; v < V_NR; v++) {
		struct d_run run = d_dfs(&vw_sc, v, 0, 0);
		char *d = d_diagram(&run, false);
		char *rep = report_text(&run);
		CHECK(run.kind == vw_variants[v].expect_kind, "%s: %s", vw_variants[v].name,
		      weft_kind_name(run.kind));
		switch (v) {
		case V_LONG:
			CHECK(d_row(d, "atomic_long_dec(&W->nr): nr 0", "\u2192 -1"), "diagram:\n%s", d);
			CHECK(d_row(rep, "atomic_long_dec(&W->nr)", "0 -> -1"), "report:\n%s", rep);
			CHECK(!strstr(rep, "outside the world") && !strstr(d, "outside the world"),
			      "-1 read as a pointer:\n%s\n%s", rep, d);
			break;
		case V_PTE:
			CHECK(d_row(d, "WRITE_ONCE(W->pte[0]): pte 0", "0x80000401"), "diagram:\n%s", d);
			CHECK(d_row(rep, "pte 0", "0x80000401"), "report:\n%s", rep);
			break;
		case V_LABEL:
			CHECK(d_row(d, "set_bit(PG_dirty, &W->page.flags)", NULL) ||
			      d_row(d, "set_bit(PG_dirty, &(&W->page)->flags)", NULL) ||
			      d_row(d, "set_bit(PG_dirty,", NULL), "diagram:\n%s", d);
			CHECK(!strstr(d, "WEFT_PG_") && !strstr(rep, "WEFT_PG_"),
			      "internal names shown:\n%s\n%s", d, rep);
			break;
		case V_SETUP_SPIN:
			CHECK(strstr(run.r.report.msg, "held by setup") != NULL, "message: %s",
			      run.r.report.msg);
			CHECK(d_text_has(&run, 0, "spin_lock(&W->lock) [waits: the lock held by setup]"),
			      "diagram:\n%s", d);
			break;
		case V_SETUP_MUTEX:
			CHECK(d_text_has(&run, 0, "[sleeps: the mutex held by setup]"), "diagram:\n%s", d);
			break;
		case V_BIT_PLAIN:
			CHECK(!strstr(d, "held by T0"), "a released bit lock's holder named:\n%s", d);
			CHECK(d_text_has(&run, 0, "wait_on_bit_lock(&W->word) [sleeps on the word]"),
			      "diagram:\n%s", d);
			break;
		case V_TASK_WAKE:
			CHECK(d_text_has(&run, 0, "wake_up_process(k) [wakes sleeper (T2)]") ||
			      d_text_has(&run, 0, "wake_up_process(k) [wakes T2]"), "diagram:\n%s", d);
			CHECK(!d_text_has(&run, 0, "[wakes T1]"), "diagram:\n%s", d);
			CHECK(strstr(d, "schedule() [sleeps]\n") != NULL, "diagram:\n%s", d);
			break;
		}
		if (getenv("DIAG_VERBOSE"))
			printf("%s\n%s\n", d, rep);
		free(d);
		free(rep);
	}
	return check_done();
}
