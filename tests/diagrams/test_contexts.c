/*
 * test_contexts.c - diagrams and timelines that show contexts (issue 14,
 * item 7), and the lost wake-up drawn on its sleeper:
 *  - an interrupt's entry and return in its CPU's column, naming the
 *    thread it interrupted, its handler's rows between them, and the
 *    context tags (H in a hard interrupt, P preemption off, I interrupts
 *    off, B bottom halves off, S in a softirq): demo-irq-lock at bound 1
 *    without lockdep (the CPU deadlocks on itself), demo-percpu-irq;
 *  - a softirq and a BH-disabled stretch (a test model);
 *  - machine-made and spawned threads in the column of the CPU they ran
 *    on, named (kworker/1, T2), rows prefixed by whose they are when
 *    several threads share a CPU: a workqueue model;
 *  - a migrating thread changes column;
 *  - the HTML and Perfetto timelines name the threads of each lane and
 *    carry the interrupt and masking spans;
 *  - a lost wake-up reported from another thread's step is drawn in the
 *    sleeper's column, and says where the sleeper fell asleep.
 */
#include <weft/kernel.h>

#include "diag_test.h"
#include "../model_driver.h"

static const struct weft_scenario *find(const char *spec, unsigned *vi)
{
	const struct weft_scenario *sc = weft_scenario_find(spec, vi);

	CHECK(sc != NULL, "%s is in the registry", spec);
	return sc;
}

/* The line of the diagram that contains s, or "" (for column checks). */
static const char *line_with(const char *d, const char *s, char *buf, size_t n)
{
	const char *p = strstr(d, s);

	buf[0] = 0;
	if (!p)
		return buf;
	const char *b = p;
	while (b > d && b[-1] != '\n')
		b--;
	const char *e = strchr(p, '\n');
	snprintf(buf, n, "%.*s", (int)(e ? e - b : (long)strlen(b)), b);
	return buf;
}

/* The column (0, 1, ...) a line's text s is in: how many " | " before it
 * (the step column's own "|" not counted). */
static int column_of(const char *line, const char *s)
{
	const char *p = strstr(line, s);
	int c = -1;

	if (!p)
		return -2;
	for (const char *q = line; q < p; q++)
		if (*q == '|')
			c++;
	return c;
}

/* ------------------------------------------------------- interrupts */

static void check_irq_deadlock(void)
{
	unsigned vi;
	const struct weft_scenario *sc = find("demo-irq-lock:irq-unsafe", &vi);
	if (!sc)
		return;
	struct d_run run = d_dfs(sc, vi, 1, 0);   /* --no-lockdep */
	char *d = d_diagram(&run, false), l[512];

	if (getenv("DIAG_VERBOSE"))
		printf("%s\n", d);
	CHECK(run.kind == WEFT_KIND_DEADLOCK, "deadlock, got %s", weft_kind_name(run.kind));
	CHECK(strstr(d, "CPU0: T0, IRQ dev_irq") != NULL, "header names the handler:\n%s", d);
	CHECK(strstr(d, " * H   IRQ dev_irq interrupts T0") != NULL, "the entry row:\n%s", d);
	CHECK(strstr(d, "^^  P  spin_lock(&W->lock) [takes lock]") != NULL,
	      "T0 takes the lock with preemption off:\n%s", d);
	CHECK(strstr(d, "   HP    spin_lock(&W->lock) [waits: lock held") != NULL,
	      "the handler's spin, indented, in a hard interrupt:\n%s", d);
	CHECK(strstr(d, "!! HP    deadlock: spin_lock(&W->lock)") != NULL, "the failure:\n%s", d);
	CHECK(strstr(d, "  context: I interrupts off, H in a hard interrupt") != NULL,
	      "legend:\n%s", d);
	CHECK(strstr(line_with(d, "!! HP", l, sizeof(l)), "|") != NULL, "a CPU column row");
	free(d);

	/* the timelines: lanes named, the handler's span */
	char *j = d_timeline(&run, false), *h = d_timeline(&run, true);
	CHECK(strstr(j, "\"name\": \"CPU0: T0, IRQ dev_irq\"") != NULL, "JSON lane name:\n%s", j);
	CHECK(strstr(j, "\"CPU0 interrupts\"") != NULL, "JSON interrupt lane");
	CHECK(strstr(j, "\"name\": \"IRQ dev_irq interrupts T0\", \"cat\": \"context\"") != NULL,
	      "JSON interrupt span:\n%s", j);
	CHECK(strstr(j, "\"T0: preemption off\"") != NULL, "JSON preemption-off span");
	CHECK(strstr(j, "\"thread\": \"IRQ dev_irq\"") != NULL, "JSON event thread names");
	CHECK(strstr(h, "T0, IRQ dev_irq") != NULL, "HTML lane names");
	CHECK(strstr(h, "IRQ dev_irq interrupts T0 (steps") != NULL, "HTML interrupt span");
	CHECK(strstr(h, "T0: preemption off (steps") != NULL, "HTML masking band");
	CHECK(strstr(h, "<td>IRQ dev_irq</td><td>0</td><td>HP </td>") != NULL,
	      "HTML table: thread, CPU, context");
	free(j);
	free(h);
}

static void check_percpu_irq(void)
{
	unsigned vi;
	const struct weft_scenario *sc = find("demo-percpu-irq:irq-racy", &vi);
	if (!sc)
		return;
	struct d_run run = d_dfs(sc, vi, 1, WEFT_CHECKS_DEFAULT);
	char *d = d_diagram(&run, false);

	if (getenv("DIAG_VERBOSE"))
		printf("%s\n", d);
	CHECK(run.kind == WEFT_KIND_LOST_UPDATE, "lost-update, got %s", weft_kind_name(run.kind));
	CHECK(strstr(d, "     P  preempt_disable() [preemption off]") != NULL, "masking row:\n%s", d);
	CHECK(strstr(d, "     P  READ_ONCE(*__weft_p): count[CPU0] = 0") != NULL,
	      "T0's load, preemption off:\n%s", d);
	CHECK(strstr(d, "IRQ stat_irq interrupts T0") != NULL, "entry:\n%s", d);
	CHECK(strstr(d, "    H     this_cpu_add(W->count)") != NULL, "the handler's add:\n%s", d);
	CHECK(strstr(d, "    H   IRQ stat_irq returns to T0") != NULL, "return:\n%s", d);
	CHECK(strstr(d, "preempt_enable() [preemption on]") != NULL, "unmasking row:\n%s", d);
	free(d);
}

/* ------------------------------------------------------ softirq, BH */

struct sirq_world {
	int count;
};

static void sirq_thread(void *w, unsigned tid)
{
	struct sirq_world *W = w;
	int c;

	(void)tid;
	local_bh_disable();
	c = READ_ONCE(W->count);
	local_bh_enable();          /* the bug: the update is not under BH off */
	WRITE_ONCE(W->count, c + 1);
}

static void sirq_handler(void *w, unsigned irq)
{
	struct sirq_world *W = w;

	(void)irq;
	WRITE_ONCE(W->count, READ_ONCE(W->count) + 1);
}

static void sirq_quiesce(void *w)
{
	struct sirq_world *W = w;

	if (weft_peek(W->count) != 2)
		weft_report(WEFT_KIND_LOST_UPDATE, &W->count, WEFT_SITE(WEFT_EV_NOTE, "count == 2"),
			    "count is %d", weft_peek(W->count));
}

static const struct weft_field sirq_fields[] = {
	WEFT_FIELD(struct sirq_world, count, "count"),
	{ 0, NULL },
};

static const struct weft_irq sirq_irqs[] = {
	{ "net_rx", WEFT_SOFTIRQ, 1u, sirq_handler, true },
};
D_SCENARIO(sirq_scn, sirq, "diag-softirq",
	   "test only: a softirq between a BH-off load and its store",
	   "racy", WEFT_KIND_LOST_UPDATE, 1, 1, 1,
	   .thread = sirq_thread, .quiesce = sirq_quiesce, .fields = sirq_fields,
	   WEFT_TEST_VARIANTS(sirq), .irqs = sirq_irqs, .nr_irqs = 1);

static void check_softirq(void)
{
	struct d_run run = d_dfs(&sirq_scn, 0, 1, 0);
	char *d = d_diagram(&run, true);

	if (getenv("DIAG_VERBOSE"))
		printf("%s\n", d);
	CHECK(run.kind == WEFT_KIND_LOST_UPDATE, "lost-update, got %s", weft_kind_name(run.kind));
	CHECK(strstr(d, "|      B READ_ONCE(W->count): count = 0") != NULL, "BH off:\n%s", d);
	CHECK(strstr(d, "local_bh_enable() [BH on]") != NULL, "BH on row:\n%s", d);
	CHECK(strstr(d, "IRQ net_rx interrupts T0") != NULL, "the softirq's entry:\n%s", d);
	CHECK(strstr(d, "|      S   READ_ONCE(W->count)") != NULL, "in a softirq, indented:\n%s", d);
	free(d);
}

/* --------------------------------------------- workqueue and spawn */

struct wqd_world {
	struct work_struct w;
	int stat;
	int done;
};

static void wqd_fn(struct work_struct *w)
{
	struct wqd_world *W = weft_list_entry(w, struct wqd_world, w);

	WRITE_ONCE(W->stat, READ_ONCE(W->stat) + 1);
}

static void wqd_child(void *world, void *arg)
{
	struct wqd_world *W = world;

	(void)arg;
	WRITE_ONCE(W->done, 1);
}

WEFT_TEST_SETUP_WORLD(wqd, struct wqd_world)
{
	INIT_WORK(&W->w, wqd_fn);
}

static void wqd_thread(void *w, unsigned tid)
{
	struct wqd_world *W = w;

	if (tid == 0) {
		int child = WEFT_THREAD_SPAWN(wqd_child, NULL, 0);
		queue_work_on(1, NULL, &W->w);
		flush_work(&W->w);
		WEFT_THREAD_JOIN(child);
	} else {
		/* T1 on CPU1 updates the statistic without the worker's
		 * exclusion: a lost update with kworker/1 */
		WRITE_ONCE(W->stat, READ_ONCE(W->stat) + 1);
	}
}

static void wqd_quiesce(void *w)
{
	struct wqd_world *W = w;

	if (weft_peek(W->stat) != 2)
		weft_report(WEFT_KIND_LOST_UPDATE, &W->stat, WEFT_SITE(WEFT_EV_NOTE, "stat == 2"),
			    "stat is %d", weft_peek(W->stat));
}

static const struct weft_field wqd_fields[] = {
	WEFT_FIELD(struct wqd_world, stat, "stat"),
	WEFT_FIELD(struct wqd_world, done, "done"),
	{ 0, NULL },
};

static void wqd_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off < sizeof(struct work_struct))
		snprintf(buf, n, "work");
}

D_SCENARIO(wqd_scn, wqd, "diag-workqueue",
	   "test only: a work item on CPU1 races with a thread of CPU1",
	   "racy", WEFT_KIND_LOST_UPDATE, 1, 2, 2,
	   WEFT_TEST_HOOKS(wqd), .quiesce = wqd_quiesce, .describe = wqd_describe,
	   .fields = wqd_fields);

static void check_workqueue(void)
{
	struct d_run run = d_dfs(&wqd_scn, 0, 1, 0);
	char *d = d_diagram(&run, false), l[512];

	if (getenv("DIAG_VERBOSE"))
		printf("%s\n%s\n", d, d_diagram(&run, true));
	CHECK(run.kind == WEFT_KIND_LOST_UPDATE, "lost-update, got %s", weft_kind_name(run.kind));
	CHECK(strstr(d, "CPU1: T1, kworker/1") != NULL, "header names the worker:\n%s", d);
	CHECK(strstr(d, "CPU0: T0, T2") != NULL, "header names the spawned thread:\n%s", d);
	struct weft_trace_view v;
	d_view(&run, &v);
	CHECK(d_kept(&v, 0, "spawn(wqd_child) [starts T2 on CPU0]", NULL), "spawn row:\n%s", d);
	CHECK(d_kept(&v, 0, "queue_work_on(&W->w) [starts kworker/1 on CPU1]", NULL),
	      "the worker's start:\n%s", d);
	CHECK(d_kept(&v, 0, "flush_work(&W->w) [waits: work pending or running]", NULL),
	      "the flush's wait:\n%s", d);
	weft_trace_view_fini(&v);
	/* CPU1 runs T1 and the worker: its rows say whose */
	CHECK(column_of(line_with(d, "kworker/1: WRITE_ONCE(W->stat)", l, sizeof(l)),
			"kworker/1: WRITE_ONCE(W->stat)") == 1, "the worker's store in CPU1's column:\n%s",
	      d);
	CHECK(column_of(line_with(d, "T1: READ_ONCE(W->stat)", l, sizeof(l)),
			"T1: READ_ONCE(W->stat)") == 1, "T1's load in CPU1's column:\n%s", d);
	CHECK(strstr(d, "T2: WRITE_ONCE(W->done)") != NULL || !strstr(d, "WRITE_ONCE(W->done)"),
	      "the spawned thread's rows say whose:\n%s", d);
	CHECK(strstr(d, "P preemption off") != NULL, "CPUs shared: contexts drawn:\n%s", d);
	CHECK(!strstr(d, "migrate \u2192"), "no machine choices in the default view:\n%s", d);
	free(d);
	d = d_diagram(&run, true);
	CHECK(column_of(line_with(d, "T2: WRITE_ONCE(W->done)", l, sizeof(l)),
			"T2: WRITE_ONCE(W->done)") == 0, "the spawned thread in CPU0's column:\n%s", d);
	CHECK(strstr(d, "T2: ends") != NULL, "a spawned thread's end:\n%s", d);
	free(d);
}

/* -------------------------------------------------------- migration */

struct mig_world {
	int x;
};

static void mig_thread(void *w, unsigned tid)
{
	struct mig_world *W = w;

	(void)tid;
	WRITE_ONCE(W->x, READ_ONCE(W->x) + 1);
}

static void mig_quiesce(void *w)
{
	struct mig_world *W = w;

	if (weft_peek(W->x) != 2)
		weft_report(WEFT_KIND_LOST_UPDATE, &W->x, WEFT_SITE(WEFT_EV_NOTE, "x == 2"),
			    "x is %d", weft_peek(W->x));
}

static void mig_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off == 0)
		snprintf(buf, n, "x");
}

D_SCENARIO(mig_scn, mig, "diag-migrate",
	   "test only: a task migrates between its load and its store",
	   "racy", WEFT_KIND_LOST_UPDATE, 1, 2, 2,
	   .thread = mig_thread, .quiesce = mig_quiesce, .describe = mig_describe,
	   WEFT_TEST_VARIANTS(mig), .migratable = 1u << 0);

/* T0 is preempted after its load (second decision: T1 runs), every
 * choice (the migration's) picks 1: T0 resumes one CPU on. */
static int mig_pick(void *st, const struct weft_decision *d)
{
	unsigned *k = st;

	return (*k)++ == 1 && (d->runnable & 2) ? 1 : d->dflt;
}

static uint32_t mig_value(void *st, uint32_t index, uint32_t n)
{
	(void)st;
	(void)index;
	return n > 1 ? 1 : 0;
}

static const struct weft_strategy_ops mig_ops = {
	.name = "script", .pick_next = mig_pick, .pick_value = mig_value,
};

static void check_migration(void)
{
	struct d_run run;
	unsigned k = 0;

	memset(&run, 0, sizeof(run));
	run.o.sc = &mig_scn;
	run.o.record = true;
	CHECK(weft_execute(&run.o, &mig_ops, &k, &run.r) == 0, "ran");
	run.kind = run.r.kind;
	char *d = d_diagram(&run, false), l[512];
	if (getenv("DIAG_VERBOSE"))
		printf("%s\n", d);
	CHECK(run.kind == WEFT_KIND_LOST_UPDATE, "lost-update, got %s", weft_kind_name(run.kind));
	CHECK(column_of(line_with(d, "T0 migrates CPU0 \u2192 CPU1", l, sizeof(l)),
			"T0 migrates") == 0, "the migration, drawn where T0 leaves:\n%s", d);
	CHECK(column_of(line_with(d, "T0: WRITE_ONCE(W->x)", l, sizeof(l)), "T0: WRITE_ONCE(W->x)") == 1,
	      "T0's store in CPU1's column, named (CPU1 has T0 and T1 now):\n%s", d);
	CHECK(column_of(line_with(d, "T0: READ_ONCE(W->x)", l, sizeof(l)), "T0: READ_ONCE(W->x)") == 0,
	      "T0's load in CPU0's column, named (T0 migrated):\n%s", d);
	CHECK(!strstr(d, "migrate \u2192"), "the machine's choice of a CPU is not a row:\n%s", d);
	CHECK(strstr(d, "CPU1: T1, T0") != NULL || strstr(d, "CPU1: T0, T1") != NULL,
	      "CPU1's header names T0 too:\n%s", d);
	free(d);
}

/* ------------------------------------------------------ lost wake-up */

static void check_lost_wakeup(void)
{
	unsigned vi;
	const struct weft_scenario *sc = find("demo-pagelock:nonatomic-flags", &vi);
	if (!sc)
		return;
	struct d_run run = d_dfs(sc, vi, 1, WEFT_CHECKS_DEFAULT);
	char *d = d_diagram(&run, false), l[512];
	size_t n;
	const struct weft_event *ev = weft_last_events(&n);

	if (getenv("DIAG_VERBOSE"))
		printf("%s\n", d);
	CHECK(run.kind == WEFT_KIND_LOST_WAKEUP, "lost-wakeup, got %s", weft_kind_name(run.kind));
	/* the report comes from the last thread to run (T0), about T1 */
	CHECK(n && ev[n - 1].tid == 0 && run.r.report.here.tid == 1, "reported from T0 about T1");
	CHECK(run.r.report.here_since == 4 && run.r.report.here.step == 6,
	      "asleep since step %u, stuck at step %u", run.r.report.here_since,
	      run.r.report.here.step);
	CHECK(column_of(line_with(d, "!! lost-wakeup", l, sizeof(l)), "!! lost-wakeup") == 1,
	      "the failure in the sleeper's column:\n%s", d);
	CHECK(strstr(d, "!! fails: step 4, T1 on CPU1 sleeps, __folio_lock()") != NULL,
	      "where it fell asleep:\n%s", d);
	CHECK(strstr(d, "; from step 6 no thread is left that can wake it") != NULL,
	      "and when nobody was left:\n%s", d);
	free(d);
}

int main(void)
{
	check_irq_deadlock();
	check_percpu_irq();
	check_softirq();
	check_workqueue();
	check_migration();
	check_lost_wakeup();
	return check_done();
}
