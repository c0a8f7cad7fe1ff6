/*
 * test_wake_text.c - what the diagram says of a contended up_write()'s
 * wake-up step (rwsem_wake(), a step after the release, sleep.c) that
 * wakes no one though waiters are queued: another thread took the rwsem
 * between the release and the wake-up ("was taken again, its waiters
 * sleep on"; it said "has no waiter", which contradicted the queue).
 *
 * T0 (CPU0) holds the rwsem for write and releases it while T2 (CPU0)
 * sleeps queued for it; T1 (CPU1) takes it for write when it finds it
 * free, and holds it until T0's up_write() has returned. dfs runs until
 * an execution where T1 took it before T0's wake-up step (the BUG_ON
 * fires after T0's up_write() in every execution where T1 held it by
 * then; the text appears only where that was before the wake-up step).
 */
#include <weft/kernel.h>
#include <weft/sleep.h>

#include "diag_test.h"
#include "../model_driver.h"

struct ww {
	unsigned variant;
	struct weft_rw_semaphore sem;
	int held, t0_done, t1_has;
};

WEFT_TEST_SETUP(ww, struct ww)
{
	init_rwsem(&W->sem);
}

static void ww_thread(void *w, unsigned tid)
{
	struct ww *W = w;

	switch (tid) {
	case 0:
		down_write(&W->sem);
		WRITE_ONCE(W->held, 1);
		up_write(&W->sem);
		WRITE_ONCE(W->t0_done, 1);
		BUG_ON(READ_ONCE(W->t1_has));
		break;
	case 1:   /* CPU1: takes it when it finds it free */
		while (!READ_ONCE(W->held))
			cpu_relax();
		down_write(&W->sem);
		WRITE_ONCE(W->t1_has, 1);
		while (!READ_ONCE(W->t0_done))
			cpu_relax();
		WRITE_ONCE(W->t1_has, 0);
		up_write(&W->sem);
		break;
	case 2:   /* CPU0: queues behind T0 */
		while (!READ_ONCE(W->held))
			cpu_relax();
		down_write(&W->sem);
		up_write(&W->sem);
		break;
	}
}

static void ww_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off >= offsetof(struct ww, sem) && off < offsetof(struct ww, sem) + sizeof(((struct ww *)0)->sem))
		snprintf(buf, n, "the rwsem");
}

static const char *const ww_files[] = { "test_wake_text.c", NULL };

static const struct weft_variant ww_variants[] = {
	{ "taken-again", NULL, true, "taken-again", "test", WEFT_KIND_BUG_ON, 0, 0 },
};

static const struct weft_scenario ww_sc = {
	.name = "test-wake-text", .summary = "an rwsem wake-up that finds it taken again",
	.source = "tests/diagrams", .nr_cpus = 2, .nr_threads = 3,
	.world_size = sizeof(struct ww), WEFT_TEST_NOP_OP, .decision_hint = 256,
	.files = ww_files, WEFT_TEST_HOOKS(ww), .describe = ww_describe,
};

int main(void)
{
	static struct weft_dfs d;
	struct d_run run;
	unsigned bugs = 0, said = 0;

	memset(&run, 0, sizeof(run));
	run.o.sc = &ww_sc;
	run.o.lock = ww_sc.default_lock;
	run.o.record = true;
	weft_dfs_init(&d, &ww_sc, 2, NULL, 0);
	for (unsigned n = 0; n < 100000 && !said &&
	     weft_execute(&run.o, &weft_strategy_dfs, &d, &run.r) == 0; n++) {
		if (run.r.kind == WEFT_KIND_NONE)
			continue;
		run.kind = run.r.kind;
		CHECK(run.kind == WEFT_KIND_BUG_ON, "kind %s", weft_kind_name(run.kind));
		bugs++;
		CHECK(!d_text_has(&run, 0, "has no waiter"), "a queued waiter denied:\n%s",
		      d_diagram(&run, false));
		if (d_text_has(&run, 0, "up_write(&W->sem) [wakes nobody: the rwsem was taken again, "
				   "its waiters sleep on]"))
			said++;
	}
	CHECK(said == 1, "no execution with the wake-up after T1 took the rwsem (%u bugs)", bugs);
	if (getenv("DIAG_VERBOSE"))
		printf("%u bug executions before the text\n", bugs);
	return check_done();
}
