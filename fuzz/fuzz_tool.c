/*
 * fuzz_tool.c - corpus and measurement tool of the fuzz targets (not part
 * of the product; docs/fuzzing.md says how its numbers were made).
 *
 *   weft_fuzz_tool seeds S:V DIR     write the seed corpus of a target: the
 *                                     empty input (a serial run) and one
 *                                     small serial workload per thread and
 *                                     opcode; inputs that report are left out
 *   weft_fuzz_tool dict S:V FILE     libFuzzer/AFL++ dictionary: whole
 *                                     workload ops and early preemptions
 *   weft_fuzz_tool crash S:V DIR     find a crashing input of a buggy variant
 *                                     (its trigger, else a random search),
 *                                     shrink it, write DIR/bug-KIND
 *   weft_fuzz_tool speed S:V DIR [R]  exec/s of the machine alone over the
 *                                     inputs in DIR (R rounds), feedback on
 *   weft_fuzz_tool yield S:V [N]     executions per report of the variant's
 *                                     own kind, N executions each: the
 *                                     random and pct strategies, and fresh
 *                                     genomes of each schedule mode (what
 *                                     the mutator's generation draws from)
 *   weft_fuzz_tool mix S:V [N]       the mutator's own fresh genomes (its
 *                                     mode priors, or WEFT_FUZZ_MODES; no
 *                                     rewards): executions per report and
 *                                     tries per mode class
 *   weft_fuzz_tool locality S:V [N]  fraction of single-byte mutations of a
 *                                     crashing input that still crash: the
 *                                     bytes encoding vs a naive one byte per
 *                                     decision encoding (N random searches)
 *
 * Exit: 0 done, 1 nothing found (crash, locality), 2 usage, 3 I/O.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <weft/fuzz.h>

static const struct weft_scenario *sc;
static unsigned vi;

/* The options every command runs the target with: its variant, default
 * lock and memory model, the default checks. */
static struct weft_run_opts tool_opts(void)
{
	return (struct weft_run_opts){ .sc = sc, .variant = vi, .lock = sc->default_lock,
				       .checks = WEFT_CHECKS_DEFAULT,
				       .memory = (uint8_t)sc->memory };
}

static struct weft_exec_result run_bytes(const uint8_t *buf, size_t len, bool record)
{
	static struct weft_bytes b;
	struct weft_run_opts o = tool_opts();
	struct weft_exec_result r;
	o.record = record;

	weft_bytes_init(&b, sc, buf, len);
	if (weft_execute(&o, &weft_strategy_bytes, &b, &r) < 0)
		r.kind = WEFT_KIND_NONE;
	return r;
}

static int write_file(const char *dir, const char *name, const uint8_t *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || (len && fwrite(buf, 1, len, f) != len) || fclose(f)) {
		fprintf(stderr, "weft_fuzz_tool: cannot write %s: %s\n", path, strerror(errno));
		return 3;
	}
	printf("%s (%zu bytes)\n", path, len);
	return 0;
}

/* ------------------------------------------------------------ seeds */

/* Generated genomes (random workloads x schedule modes, weft/fuzz.h) that
 * do not report, and the serial run of the empty workload; the old legacy
 * seeds are removed first, so a regenerated corpus holds only these. */
static int cmd_seeds(const char *dir)
{
	char cmd[4200];
	int n;

	snprintf(cmd, sizeof(cmd), "rm -f '%s'/* 2>/dev/null", dir);
	if (system(cmd) == -1)
		return 3;
	n = weft_fuzz_write_seeds(sc, vi, dir, WEFT_FUZZ_NR_SEEDS, 0x5745465453454544ull);
	if (n < 0) {
		fprintf(stderr, "weft_fuzz_tool: cannot write seeds to %s: %s\n", dir, strerror(errno));
		return 3;
	}
	printf("%s: %d seeds\n", dir, n);
	return 0;
}

/* ------------------------------------------------------------- dict */

static int cmd_dict(const char *path)
{
	if (weft_fuzz_write_dict(sc, vi, path)) {
		fprintf(stderr, "weft_fuzz_tool: cannot write %s: %s\n", path, strerror(errno));
		return 3;
	}
	return 0;
}

/* ------------------------------------------------------------ crash */

/* Does t, run as bytes, still report kind? */
static bool keeps_kind(const struct weft_input *t, enum weft_kind kind)
{
	uint8_t tmp[WEFT_INPUT_MAX];
	size_t n = weft_input_encode(t, tmp, sizeof(tmp));

	return run_bytes(tmp, n, false).kind == kind;
}

/* Element k (of size sz) out of the *nr in arr. */
static void drop_at(void *arr, unsigned k, unsigned *nr, size_t sz)
{
	memmove((uint8_t *)arr + k * sz, (uint8_t *)arr + (k + 1) * sz, (*nr - k - 1) * sz);
	(*nr)--;
}

/* Greedy shrink: drop schedule entries, then workload ops, while the same
 * kind is reported. */
static size_t shrink(uint8_t *buf, size_t len, enum weft_kind kind)
{
	struct weft_input in, t;
	bool progress = true;

	weft_input_decode(&in, buf, len);
	while (progress) {
		progress = false;
		for (unsigned ops = 0; ops < 2; ops++) {
			for (unsigned k = 0; k < (ops ? in.nr_wl_ops : in.nr_entries); k++) {
				t = in;
				if (ops)
					drop_at(t.wl, k, &t.nr_wl_ops, sizeof(t.wl[0]));
				else
					drop_at(t.e, k, &t.nr_entries, sizeof(t.e[0]));
				if (keeps_kind(&t, kind)) {
					in = t;
					progress = true;
					k--;
				}
			}
		}
	}
	return weft_input_encode(&in, buf, WEFT_INPUT_MAX);
}

/* A crashing input of the variant: its trigger, else random search. */
static size_t find_crash(uint64_t seed, uint8_t *buf, enum weft_kind *kind)
{
	const struct weft_variant *v = &sc->variants[vi];

	if (seed == 0 && sc->triggers && sc->triggers[vi]) {
		size_t n = sc->trigger_lens[vi];
		memcpy(buf, sc->triggers[vi], n);
		struct weft_exec_result r = run_bytes(buf, n, false);
		if (r.kind != WEFT_KIND_NONE) {
			*kind = r.kind;
			/* a genome trigger (weak memory: its delays) as written */
			return weft_input_is_genome(buf, n) ? n : shrink(buf, n, r.kind);
		}
	}
	struct weft_random rs;
	struct weft_run_opts o = tool_opts();
	struct weft_exec_result r;
	weft_random_init(&rs, sc, seed + 1, NULL, 0);
	for (unsigned it = 0; it < 2000000; it++) {
		weft_execute(&o, &weft_strategy_random, &rs, &r);
		if (r.kind == WEFT_KIND_NONE || (v->buggy && v->expect_kind &&
						 r.kind != v->expect_kind && it < 1000000))
			continue;
		size_t n = weft_last_input(sc, buf, WEFT_INPUT_MAX);
		if (!n || run_bytes(buf, n, false).kind != r.kind)
			continue;
		*kind = r.kind;
		return shrink(buf, n, r.kind);
	}
	return 0;
}

static int cmd_crash(const char *dir)
{
	uint8_t buf[WEFT_INPUT_MAX];
	enum weft_kind kind;
	char name[64];
	size_t n;

	if (!sc->variants[vi].buggy) {
		printf("%s:%s is a fixed variant: no crash input\n", sc->name, sc->variants[vi].name);
		return 0;
	}
	n = find_crash(0, buf, &kind);
	if (!n) {
		fprintf(stderr, "weft_fuzz_tool: no crash found\n");
		return 1;
	}
	mkdir(dir, 0777);
	snprintf(name, sizeof(name), "bug-%s", weft_kind_name(kind));
	/* not crash-*: .gitignore keeps raw engine crashes out of the tree */
	return write_file(dir, name, buf, n);
}

/* ---------------------------------------------------------- locality */

/* The naive encoding, for comparison only: the same workload section,
 * then one byte per decision (byte i picks runnable[b % |runnable|] at
 * decision i; missing bytes take the default). */
struct naive {
	const uint8_t *wl;
	size_t wl_len;
	const uint8_t *dec;
	size_t nr_dec;
};

static int naive_begin(void *st, uint8_t *wl, size_t cap)
{
	struct naive *nv = st;

	return weft_begin_fixed_workload(wl, cap, nv->wl, nv->wl_len);
}

static int naive_pick(void *st, const struct weft_decision *d)
{
	struct naive *nv = st;

	if (d->index >= nv->nr_dec)
		return d->dflt;
	unsigned n = (unsigned)__builtin_popcountll(d->runnable), k = nv->dec[d->index] % n;
	uint64_t m = d->runnable;
	while (k--)
		m &= m - 1;
	return __builtin_ctzll(m);
}

static const struct weft_strategy_ops naive_ops = {
	.name = "naive",
	.begin = naive_begin,
	.pick_next = naive_pick,
};

static struct weft_exec_result run_naive(const uint8_t *buf, size_t len, size_t wl_len)
{
	struct naive nv = { buf, wl_len, buf + wl_len, len - wl_len };
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .checks = WEFT_CHECKS_DEFAULT };
	struct weft_exec_result r;

	weft_execute(&o, &naive_ops, &nv, &r);
	return r;
}

/* crash: still the same kind; changed: another execution (trace hash) */
struct tally {
	uint64_t crash, changed, total;
};

static void tally_add(struct tally *t, const struct weft_exec_result *r, enum weft_kind kind,
		      uint64_t hash)
{
	t->crash += r->kind == kind;
	t->changed += r->trace_hash != hash;
	t->total++;
}

static void tally_print(const char *what, const struct tally *t)
{
	printf("  %-34s %6.2f%% still crash, %6.2f%% change the execution (of %llu)\n", what,
	       t->total ? 100.0 * (double)t->crash / (double)t->total : 0.0,
	       t->total ? 100.0 * (double)t->changed / (double)t->total : 0.0,
	       (unsigned long long)t->total);
}

static int cmd_locality(unsigned searches)
{
	struct tally ours_all = { 0 }, ours_sched = { 0 }, naive_sched = { 0 }, ours_trunc = { 0 };
	unsigned found = 0;
	size_t ours_len_sum = 0, naive_len_sum = 0;

	for (unsigned s = 0; s < searches; s++) {
		uint8_t buf[WEFT_INPUT_MAX], m[WEFT_INPUT_MAX];
		enum weft_kind kind;
		size_t n = find_crash(s, buf, &kind);
		if (!n)
			continue;
		/* the same execution in the naive encoding */
		struct weft_exec_result r = run_bytes(buf, n, true);
		size_t nd;
		const struct weft_decision_rec *d = weft_last_decisions(&nd);
		size_t wl_len = buf[0] * 2u + 1u;
		if (wl_len > n)
			wl_len = n;
		uint8_t naive[WEFT_INPUT_MAX + 4096];
		if (wl_len + nd > sizeof(naive))
			continue;
		memcpy(naive, buf, wl_len);
		for (size_t i = 0; i < nd; i++)
			naive[wl_len + i] = (uint8_t)__builtin_popcountll(d[i].runnable &
									  ((1ull << d[i].chosen) - 1));
		size_t naive_len = wl_len + nd;
		struct weft_exec_result rn = run_naive(naive, naive_len, wl_len);
		if (r.kind != kind || rn.kind != kind) {
			fprintf(stderr, "weft_fuzz_tool: search %u: encodings disagree, skipped\n", s);
			continue;
		}
		found++;
		ours_len_sum += n;
		naive_len_sum += naive_len;
		for (size_t i = 0; i < n; i++)
			for (unsigned v = 0; v < 256; v++) {
				if (v == buf[i])
					continue;
				memcpy(m, buf, n);
				m[i] = (uint8_t)v;
				struct weft_exec_result rm = run_bytes(m, n, false);
				tally_add(&ours_all, &rm, kind, r.trace_hash);
				if (i >= wl_len)
					tally_add(&ours_sched, &rm, kind, r.trace_hash);
			}
		for (size_t i = wl_len; i < naive_len; i++)
			for (unsigned v = 0; v < 256; v++) {
				if (v == naive[i])
					continue;
				uint8_t save = naive[i];
				naive[i] = (uint8_t)v;
				struct weft_exec_result rm = run_naive(naive, naive_len, wl_len);
				tally_add(&naive_sched, &rm, kind, rn.trace_hash);
				naive[i] = save;
			}
		for (size_t k = 0; k < n; k++) {
			struct weft_exec_result rm = run_bytes(buf, k, false);
			tally_add(&ours_trunc, &rm, kind, r.trace_hash);
		}
	}
	if (!found) {
		fprintf(stderr, "weft_fuzz_tool: no crash found\n");
		return 1;
	}
	printf("%s:%s  crashing inputs: %u  mean length: bytes %.1f, naive %.1f\n", sc->name,
	       sc->variants[vi].name, found, (double)ours_len_sum / found,
	       (double)naive_len_sum / found);
	tally_print("bytes encoding, any byte:", &ours_all);
	tally_print("bytes encoding, schedule bytes:", &ours_sched);
	tally_print("naive encoding, schedule bytes:", &naive_sched);
	tally_print("bytes encoding, proper prefixes:", &ours_trunc);
	return 0;
}

/* ------------------------------------------------------------- yield */

/* Executions per report of the declared kind (n / hits), for the in-process
 * strategies as `weft bench --sections fuzz` runs them and for fresh genomes
 * of each mode on the random strategy's workload distribution: which
 * schedule class finds a variant's bug, and how often (docs/fuzzing.md). */
static int cmd_yield(unsigned n)
{
	static struct weft_random rs;
	static struct weft_pct ps;
	static struct weft_bytes b;
	enum weft_kind k = sc->variants[vi].expect_kind;
	struct weft_run_opts o = tool_opts();
	struct weft_exec_result r;
	uint64_t steps = 0;
	o.no_trace_hash = true;

	if (!k) {
		fprintf(stderr, "weft_fuzz_tool: %s:%s declares no bug kind\n", sc->name,
			sc->variants[vi].name);
		return 2;
	}
	if (WEFT_WARNING_KINDS & ~(1ull << k)) {
		/* as the fuzz target under WEFT_FUZZ_KIND */
		o.checks |= WEFT_CHECK_CONTINUE_WARNINGS;
		o.continue_kinds = weft_continue_kinds(o.checks, 1ull << k);
	}
	printf("%s:%s  kind %s, %u executions per row: executions per hit (hits, mean steps)\n",
	       sc->name, sc->variants[vi].name, weft_kind_name(k), n);
	for (unsigned s = 0; s < 3; s++) {
		unsigned hits = 0;
		steps = 0;
		if (s == 0)
			weft_random_init(&rs, sc, 1, NULL, 0);
		else
			weft_pct_init(&ps, sc, 1, s + 1, NULL, 0);
		for (unsigned i = 0; i < n; i++) {
			if (weft_execute(&o, s ? &weft_strategy_pct : &weft_strategy_random,
					 s ? (void *)&ps : (void *)&rs, &r) < 0)
				break;
			hits += r.kind == k;
			steps += r.steps;
		}
		printf("  %-22s %10.1f  (%u, %.0f)\n", s == 0 ? "strategy random" : s == 1 ?
		       "strategy pct-d2" : "strategy pct-d3", hits ? (double)n / hits : INFINITY,
		       hits, (double)steps / n);
	}
	/* the genome modes: walk, sparse walks, pct d2/d3 (k from the mean
	 * length, as the mutator sets it), pos, serial */
	static const struct {
		const char *name;
		uint8_t mode, param;
		bool pct_k;     /* param gains PCT's k from the mean length */
		unsigned ovs;   /* preemptions added at uniform positions */
	} cls[] = {
		{ "genome walk", WEFT_MODE_WALK, 0, false, 0 },
		{ "genome walk p4", WEFT_MODE_WALK, 4, false, 0 },
		{ "genome walk p16", WEFT_MODE_WALK, 16, false, 0 },
		{ "genome walk p48", WEFT_MODE_WALK, 48, false, 0 },
		{ "genome pct d2", WEFT_MODE_PCT, 1, true, 0 },
		{ "genome pct d3", WEFT_MODE_PCT, 2, true, 0 },
		{ "genome pct d5", WEFT_MODE_PCT, 4, true, 0 },
		{ "genome pct d8", WEFT_MODE_PCT, 7, true, 0 },
		{ "genome walk p96", WEFT_MODE_WALK, 96, false, 0 },
		{ "genome walk p160", WEFT_MODE_WALK, 160, false, 0 },
		{ "genome pos", WEFT_MODE_POS, 0, false, 0 },
		{ "genome serial", WEFT_MODE_SERIAL, 0, false, 0 },
		{ "genome serial+1 ov", WEFT_MODE_SERIAL, 0, false, 1 },
		{ "genome serial+2 ov", WEFT_MODE_SERIAL, 0, false, 2 },
	};
	uint64_t mean = steps / (n ? n : 1);
	unsigned e = 0;
	while (e < 20 && (1ull << e) < mean)
		e++;
	for (unsigned c = 0; c < sizeof(cls) / sizeof(cls[0]); c++) {
		struct weft_rng rng;
		static struct weft_genome g;
		uint8_t wl[WEFT_INPUT_MAX], buf[WEFT_INPUT_MAX];
		unsigned hits = 0;
		steps = 0;
		weft_rng_seed(&rng, 7 + c);
		for (unsigned i = 0; i < n; i++) {
			size_t wn = weft_random_workload(sc, &rng, wl, 1 + 2 * 255);
			memset(&g, 0, sizeof(g));
			g.version = 1;
			if (o.memory) {
				/* weak memory: a version-2 genome at random's delay
				 * rate (each store delayed with probability 1/2) */
				g.version = 2;
				g.mem = (uint8_t)((o.memory & 3u) | 32u << 2);
			}
			g.mode = cls[c].mode;
			g.param = (uint8_t)(cls[c].param | (cls[c].pct_k ? e << 3 : 0));
			g.seed = (uint32_t)weft_rng_next(&rng);
			g.nr_ops = wn ? wl[0] : 0;
			for (unsigned j = 0; j < g.nr_ops; j++) {
				g.wl[j].t_op = wl[1 + 2 * j];
				g.wl[j].arg = wl[2 + 2 * j];
			}
			size_t len = weft_genome_encode(&g, buf, sizeof(buf));
			weft_bytes_init(&b, sc, buf, len);
			if (weft_execute(&o, &weft_strategy_bytes, &b, &r) < 0)
				continue;
			if (cls[c].ovs) {
				/* preemptions at uniform positions of the serial
				 * run (its per-thread operation counts) */
				uint32_t tot = 0;
				for (unsigned t = 0; t < sc->nr_threads; t++)
					tot += b.gr.cnt[t];
				for (unsigned q = 0; q < cls[c].ovs && tot; q++) {
					uint32_t x = weft_rng_below(&rng, tot);
					unsigned t = 0;
					while (x >= b.gr.cnt[t])
						x -= b.gr.cnt[t++];
					g.ov[g.nr_ov].key = WEFT_OV_KEY(t, x);
					g.ov[g.nr_ov++].b = (uint8_t)weft_rng_below(&rng, 4);
				}
				len = weft_genome_encode(&g, buf, sizeof(buf));
				weft_bytes_init(&b, sc, buf, len);
				if (weft_execute(&o, &weft_strategy_bytes, &b, &r) < 0)
					continue;
			}
			hits += r.kind == k;
			steps += r.steps;
		}
		printf("  %-22s %10.1f  (%u, %.0f)\n", cls[c].name,
		       hits ? (double)n / hits : INFINITY, hits, (double)steps / n);
	}
	return 0;
}

/* --------------------------------------------------------------- mix */

/* N fresh genomes as the mutator generates them (weft_mutator_generate:
 * its workload, mode and delay draws, pct's k from the running mean
 * length), no rewards: the generation's own yield and which mode class
 * made each hit (docs/fuzzing.md, "the warm-up's mix"). */
static int cmd_mix(unsigned n)
{
	static struct weft_mutator m;
	static struct weft_bytes b;
	enum weft_kind k = sc->variants[vi].expect_kind;
	struct weft_run_opts o = tool_opts();
	struct weft_exec_result r;
	unsigned tries[WEFT_MUT_MODE_CLASSES] = { 0 }, hits[WEFT_MUT_MODE_CLASSES] = { 0 }, all = 0;
	uint8_t buf[WEFT_INPUT_MAX];
	o.no_trace_hash = true;

	if (!k)
		return 2;
	if (WEFT_WARNING_KINDS & ~(1ull << k)) {
		o.checks |= WEFT_CHECK_CONTINUE_WARNINGS;
		o.continue_kinds = weft_continue_kinds(o.checks, 1ull << k);
	}
	weft_mutator_init(&m, sc, 0x5745465446555a5aull);
	m.memory = o.memory;
	m.variant = vi;
	/* WEFT_FUZZ_WARMUP_MODES, else WEFT_FUZZ_MODES (the warm-up's
	 * genomes when either is "warm"): 8 or 9 shares */
	const char *e = getenv("WEFT_FUZZ_WARMUP_MODES");
	double *prior = m.warmup_prior;
	m.warm = true;
	if (!(e && *e)) {
		e = getenv("WEFT_FUZZ_MODES");
		prior = m.mode_prior;
		m.warm = false;
	}
	if (e && !strcmp(e, "warm"))
		e = NULL;
	else if (!(e && *e))
		m.warm = false;
	for (unsigned c = 0; e && *e && c < WEFT_MUT_MODE_CLASSES; c++) {
		char *end;
		prior[c] = strtod(e, &end);
		for (unsigned d = c + 1; d < WEFT_MUT_MODE_CLASSES; d++)
			prior[d] = 0;
		e = *end == ',' ? end + 1 : end;
	}
	for (unsigned i = 0; i < n; i++) {
		size_t len = weft_mutator_generate(&m, buf, sizeof(buf));
		struct weft_genome g;
		weft_genome_decode(&g, buf, len);
		unsigned c = g.mode == WEFT_MODE_WALK ?
				     (!g.param ? 0 : g.param < 10 ? 1 : g.param < 32 ? 2 : 3) :
			     g.mode == WEFT_MODE_PCT ?
				     ((g.param & 7) == 7 ? 8 : (g.param & 7) >= 2 ? 5 : 4) :
			     g.mode == WEFT_MODE_POS ? 6 : 7;
		weft_bytes_init(&b, sc, buf, len);
		if (weft_execute(&o, &weft_strategy_bytes, &b, &r) < 0)
			continue;
		weft_mutator_reward(&m, buf, len, false, r.steps);
		tries[c]++;
		hits[c] += r.kind == k;
		all += r.kind == k;
	}
	printf("%s:%s  kind %s, %u fresh genomes: %.1f executions per hit (%u hits)\n", sc->name,
	       sc->variants[vi].name, weft_kind_name(k), n, all ? (double)n / all : INFINITY, all);
	static const char *const names[] = { "walk", "walk p4", "walk p16", "walk p48", "pct d2",
					     "pct d3", "pos", "serial", "pct d8" };
	for (unsigned c = 0; c < WEFT_MUT_MODE_CLASSES; c++)
		printf("  %-10s tries %6u  hits %5u  %10.1f per hit\n", names[c], tries[c], hits[c],
		       hits[c] ? (double)tries[c] / hits[c] : INFINITY);
	return 0;
}

/* ------------------------------------------------------------- speed */

/* Executions per second of the machine alone on a folder of inputs (a
 * fuzzer's corpus), with a feedback map attached as in the targets: what
 * the fuzz target costs per input, without the engine. */
static int cmd_speed(const char *dir, unsigned reps)
{
	static uint8_t inputs[4096][WEFT_INPUT_MAX];
	static size_t lens[4096];
	static uint8_t map[4096];
	unsigned n = 0;
	char cmd[4200];
	FILE *ls;

	snprintf(cmd, sizeof(cmd), "ls -1 '%s'", dir);
	ls = popen(cmd, "r");
	if (!ls)
		return 3;
	while (n < 4096 && fgets(cmd, sizeof(cmd), ls)) {
		char path[8400];
		cmd[strcspn(cmd, "\n")] = 0;
		snprintf(path, sizeof(path), "%s/%s", dir, cmd);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		lens[n] = fread(inputs[n], 1, WEFT_INPUT_MAX, f);
		fclose(f);
		n++;
	}
	pclose(ls);
	if (!n)
		return 1;
	weft_feedback_attach(map, sizeof(map));
	struct timespec t0, t1;
	uint64_t steps = 0, execs = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned r = 0; r < reps; r++)
		for (unsigned i = 0; i < n; i++) {
			struct weft_exec_result res = run_bytes(inputs[i], lens[i], false);
			steps += res.steps;
			execs++;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("%s:%s  %u inputs x %u: %.0f exec/s, %.1f steps/exec, %.1f ns/step\n", sc->name,
	       sc->variants[vi].name, n, reps, (double)execs / secs, (double)steps / (double)execs,
	       secs * 1e9 / (double)steps);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: weft_fuzz_tool seeds|dict|crash|locality S:V [ARG]\n");
		return 2;
	}
	sc = weft_scenario_find(argv[2], &vi);
	if (!sc || !strchr(argv[2], ':')) {
		fprintf(stderr, "weft_fuzz_tool: no scenario variant '%s'\n", argv[2]);
		return 2;
	}
	if (weft_machine_init())
		return 3;
	if (!strcmp(argv[1], "seeds") && argc == 4)
		return cmd_seeds(argv[3]);
	if (!strcmp(argv[1], "dict") && argc == 4)
		return cmd_dict(argv[3]);
	if (!strcmp(argv[1], "crash") && argc == 4)
		return cmd_crash(argv[3]);
	if (!strcmp(argv[1], "locality") && argc <= 4)
		return cmd_locality(argc == 4 ? (unsigned)atoi(argv[3]) : 10);
	if (!strcmp(argv[1], "yield") && argc <= 4)
		return cmd_yield(argc == 4 ? (unsigned)atoi(argv[3]) : 20000);
	if (!strcmp(argv[1], "mix") && argc <= 4)
		return cmd_mix(argc == 4 ? (unsigned)atoi(argv[3]) : 20000);
	if (!strcmp(argv[1], "speed") && (argc == 4 || argc == 5))
		return cmd_speed(argv[3], argc == 5 ? (unsigned)atoi(argv[4]) : 20);
	fprintf(stderr, "weft_fuzz_tool: bad arguments (see fuzz/fuzz_tool.c)\n");
	return 2;
}
