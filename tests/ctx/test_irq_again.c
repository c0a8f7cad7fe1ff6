/*
 * test_irq_again.c - an interrupt raised again while its handler runs is
 * delivered once more after it returns (<weft/context.h>, weft_irq_raise()),
 * also when the scheduler picks it again at once, with nothing else to run
 * or by choice: the handler's pseudo-thread then delivers again on its own
 * fiber (before, the switch to itself returned into thread_main's trap).
 * T0 on CPU1 raises the interrupt of CPU0 (pending from the start) while
 * it may be running, twice; every interleaving within 2 preemptions ends
 * without a report, the handler run 1 to 3 times (raises coalesce while it
 * is pending; one that finds it running delivers it once more).
 */
#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

struct ia_world {
	int runs;          /* handler deliveries (this_cpu-free: CPU0 only) */
	int x;
};

static void ia_handler(void *w, unsigned irq)
{
	struct ia_world *W = w;

	(void)irq;
	WRITE_ONCE(W->runs, READ_ONCE(W->runs) + 1);
	(void)READ_ONCE(W->x);
}

static void ia_thread(void *w, unsigned tid)
{
	struct ia_world *W = w;

	(void)tid;
	for (int i = 0; i < 2; i++) {
		WRITE_ONCE(W->x, i + 1);
		WEFT_IRQ_RAISE(0);
	}
}

WEFT_TEST_ONLY_VARIANT(ia, "an interrupt raised again");
static const uint8_t ia_cpu_of[] = { 1 };
static const struct weft_irq ia_irqs[] = {
	{ "again_irq", WEFT_HARDIRQ, 1u << 0, ia_handler, true },
};
static const struct weft_scenario ia_sc =
	WEFT_TEST_UNLISTED("irq-again-test", struct ia_world, 2, 1, 1024, .cpu_of = ia_cpu_of,
			   .thread = ia_thread, WEFT_TEST_VARIANTS(ia), .irqs = ia_irqs,
			   .nr_irqs = 1);

int main(void)
{
	static struct weft_dfs d;
	struct weft_exec_result r;
	struct weft_run_opts o = { .sc = &ia_sc, .checks = WEFT_CHECKS_DEFAULT };
	unsigned max_runs = 0, min_runs = 99, execs = 0;

	weft_machine_init();
	weft_dfs_init(&d, &ia_sc, 2, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		const struct ia_world *W = weft_last_world();
		unsigned runs = (unsigned)W->runs;

		execs++;
		CHECK(r.kind == WEFT_KIND_NONE, "execution %u: %s: %s", execs, weft_kind_name(r.kind),
		      r.report.msg);
		if (runs > max_runs)
			max_runs = runs;
		if (runs < min_runs)
			min_runs = runs;
	}
	CHECK(d.complete, "dfs bound 2 complete (%u executions)", execs);
	/* the pending interrupt coalesces raises (1 run), or runs after each
	 * raise that finds it idle or running (3 runs) */
	CHECK(min_runs == 1 && max_runs == 3, "handler runs %u..%u, want 1..3", min_runs,
	      max_runs);
	printf("irq raised while running: %u executions, handler runs %u..%u\n", execs,
	       min_runs, max_runs);
	return check_done();
}
