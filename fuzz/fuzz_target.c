/*
 * fuzz_target.c - the fuzz target of one scenario variant, for every
 * engine (libweft_fuzz; the variant is weft_fuzz_target_spec, defined by
 * the program at link time, see <weft/fuzz.h>).
 *
 * One input is one search step: the bytes strategy runs it once (a genome
 * or a legacy input, weft.h; an input of 0 or 1 bytes as the genome of
 * weft_raw_input(), strategy.h) on a zeroed world, without trace
 * hashing (a report is re-run with full recording before it is printed).
 * A report prints the ERROR:/SUMMARY: lines and aborts so the engine keeps
 * the input.
 *
 * Feedback (docs/fuzzing.md, "feedback"): code coverage (the engine's
 * own), plus the interleaving families chosen by WEFT_FUZZ_FEATURES (by
 * default the scenario's state buckets and lock outcomes) in the engine's
 * map; the other families can go to a private map whose rare features
 * weight which inputs the mutator starts from (WEFT_FUZZ_RARITY=1; RFF,
 * Wolff et al., ASPLOS 2024, weights rare reads-from pairs).
 *
 * The systematic stage (WEFT_FUZZ_SYSTEMATIC, on in the engine builds):
 * when an input's execution reaches abstract state never seen in this
 * process, its workload's interleavings are searched by bounded dfs (bound
 * 1, at most WEFT_FUZZ_DFS_CAP executions) inside the same call. A bug
 * found there is no function of that input alone (the stage waits for 1000
 * executions in the process): its one-execution reproducer is written to
 * $WEFT_FUZZ_REPRO_DIR/repro-<hash> and printed, and under libFuzzer's loop
 * it is the next input, so that the crash file is the reproducer (below).
 * Every machine execution counts in the live counters (executions and
 * steps), the stage's included.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <weft/fuzz.h>

#include "weft_fuzz_glue.h"

static struct weft_run_opts opts;
static struct weft_bytes bytes_st;
static struct weft_exec_result result;
static char spec[160];

static struct weft_mutator mut;
static bool structured = true;
static bool systematic;
static unsigned dfs_cap = 128;
/* The stage may use at most a sixth of all executions: it pays off on
 * deep states (Z7), and must not crowd out the search that reaches them
 * (Z3: found on 2 of 5 seeds with a third, 5 of 5 without the stage). */
static uint64_t stage_execs, search_execs;
static bool rarity;
static unsigned in_map = WEFT_FB_STATE | WEFT_FB_LOCK;
/* WEFT_FUZZ_KIND (weft fuzz --kind): only this kind stops the target */
static enum weft_kind only_kind;
/* WEFT_FUZZ_KEEP_GOING=DIR (weft fuzz --keep-going): a report does not
 * stop the target; the first input of each kind and site goes to DIR */
static const char *keep_dir;

static bool stops(enum weft_kind k)
{
	if (k == WEFT_KIND_NONE)
		return false;
	if (only_kind && k != only_kind) {
		static bool told;
		if (!told)
			fprintf(stderr, "weft: a %s report goes on (WEFT_FUZZ_KIND=%s)\n",
				weft_kind_name(k), weft_kind_name(only_kind));
		told = true;
		return false;
	}
	return true;
}

/* Features of the engine map ever seen (novelty: the bandit's reward and
 * the systematic stage's trigger). */
static uint8_t seen[WEFT_FUZZ_MAP_SIZE];

/* ------------------------------------------------------------ shapes */

#define SHAPES 4096
static struct {
	uint64_t h;
	struct weft_fuzz_shape s;
} shapes[SHAPES];

static void shape_store(const uint8_t *data, size_t size, const struct weft_exec_result *r)
{
	uint64_t h = weft_fuzz_hash(data, size);
	struct weft_fuzz_shape *s = &shapes[h % SHAPES].s;

	shapes[h % SHAPES].h = h;
	s->known = true;
	s->steps = r->steps;
	if (opts.memory) {
		size_t nd;
		weft_last_delays(&nd);
		s->stores = (uint32_t)nd;
	} else {
		s->stores = 0;
	}
	if (bytes_st.genome)
		memcpy(s->cnt, bytes_st.gr.cnt, sizeof(s->cnt));
	else
		memset(s->cnt, 0, sizeof(s->cnt));
}

static __attribute__((unused)) const struct weft_fuzz_shape *shape_find(const uint8_t *data, size_t size)
{
	uint64_t h = weft_fuzz_hash(data, size);

	return shapes[h % SHAPES].h == h && shapes[h % SHAPES].s.known ? &shapes[h % SHAPES].s
								     : NULL;
}

/* ------------------------------------------------------------ rarity */

/* Private map of the families kept out of the engine's (RFF-style weights):
 * per feature, how many executions hit it; an input's weight is the sum of
 * 1/hits over its features; the POOL heaviest inputs are mutated instead
 * of the engine's choice with a probability that follows the measured yield
 * of doing so against not (between 5% and 50%, 25% to start). */
#define POOL 32
static uint8_t aux[WEFT_FUZZ_MAP_SIZE];
static uint32_t hits[WEFT_FUZZ_MAP_SIZE];
static struct {
	double w;
	size_t len;
	uint8_t buf[WEFT_INPUT_MAX];
} pool[POOL];
/* yield of mutations from a pool parent [1] and from the engine's [0] */
static double rare_gain[2] = { 1, 1 }, rare_tries[2] = { 4, 4 };
static int last_rare = -1;
static uint64_t last_mut_hash;

static __attribute__((unused)) double rare_share(void)
{
	double a = rare_gain[1] / rare_tries[1], b = rare_gain[0] / rare_tries[0];
	double p = a / (a + b + 1e-9);
	return p < 0.05 ? 0.05 : p > 0.5 ? 0.5 : p;
}

static void rarity_account(const uint8_t *data, size_t size)
{
	double w = 0;

	for (unsigned i = 0; i < WEFT_FUZZ_MAP_SIZE; i += 8) {
		uint64_t x;
		memcpy(&x, aux + i, 8);
		if (!x)
			continue;
		for (unsigned k = 0; k < 8; k++) {
			if (!aux[i + k])
				continue;
			aux[i + k] = 0;
			hits[i + k]++;
			w += 1.0 / hits[i + k];
		}
	}
	if (size > WEFT_INPUT_MAX)
		return;
	unsigned lo = 0;
	for (unsigned i = 1; i < POOL; i++)
		if (pool[i].w < pool[lo].w)
			lo = i;
	if (w > pool[lo].w) {
		pool[lo].w = w;
		pool[lo].len = size;
		memcpy(pool[lo].buf, data, size);
	}
	/* the weights of old entries age with the counts they came from */
	for (unsigned i = 0; i < POOL; i++)
		pool[i].w *= 0.999;
}

/* --------------------------------------------------------------- init */

static unsigned parse_features(const char *e)
{
	unsigned m = 0;

	if (!strcmp(e, "all"))
		return WEFT_FB_ALL;
	if (!strcmp(e, "none"))
		return 0;
	m |= strstr(e, "switch") ? WEFT_FB_SWITCH : 0;
	m |= strstr(e, "rf") || strstr(e, "reads-from") ? WEFT_FB_READS_FROM : 0;
	m |= strstr(e, "state") ? WEFT_FB_STATE : 0;
	m |= strstr(e, "lock") ? WEFT_FB_LOCK : 0;
	return m;
}

/* WEFT_FUZZ_MODES, WEFT_FUZZ_WARMUP_MODES: the mode classes' prior shares,
 * comma-separated, all of them or all but the last (pct d8, then 0: the
 * eight of the lists written before it existed); nonzero when malformed. */
static int parse_modes(const char *e, double *prior)
{
	double v[WEFT_MUT_MODE_CLASSES] = { 0 }, sum = 0;
	unsigned c;

	for (c = 0; c < WEFT_MUT_MODE_CLASSES; c++) {
		char *end;
		v[c] = strtod(e, &end);
		if (end == e || !(v[c] >= 0) || v[c] > 1e6)
			return -1;
		sum += v[c];
		e = end;
		if (*e != ',')
			break;
		e++;
	}
	if (*e || c + 1 < WEFT_MUT_MODE_CLASSES - 1 || !(sum > 0))
		return -1;
	memcpy(prior, v, sizeof(v));
	return 0;
}

static bool env_on(const char *name, bool dflt)
{
	const char *e = getenv(name);

	return e && *e ? strcmp(e, "0") != 0 : dflt;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsigned vi;
	const struct weft_scenario *sc;
	const char *e;

	(void)argc;
	(void)argv;
	snprintf(spec, sizeof(spec), "%s", weft_fuzz_target_spec);
	sc = weft_scenario_find(spec, &vi);
	if (!sc) {
		/* a build error: the program names a variant its registry lacks */
		fprintf(stderr, "weft: this target's scenario %s is not in the registry\n", spec);
		exit(WEFT_EXIT_USAGE);
	}
	const char *ws = getenv("WEFT_FUZZ_WRITE_SEEDS"), *wd = getenv("WEFT_FUZZ_WRITE_DICT");
	if ((ws && *ws) || (wd && *wd)) {
		int rc = 0;
		if (ws && *ws && weft_fuzz_write_seeds(sc, vi, ws, WEFT_FUZZ_NR_SEEDS,
						      0x5745465453454544ull) < 0)
			rc = WEFT_EXIT_IO;
		if (wd && *wd && weft_fuzz_write_dict(sc, vi, wd))
			rc = WEFT_EXIT_IO;
		if (rc)
			fprintf(stderr, "weft: cannot write the seeds or dictionary of %s\n", spec);
		exit(rc);
	}
	e = getenv("WEFT_FUZZ_FEATURES");
	if (e && *e)
		in_map = parse_features(e);
	rarity = env_on("WEFT_FUZZ_RARITY", true);
	e = getenv("WEFT_FUZZ_KEEP_GOING");
	if (e && *e)
		keep_dir = e;
	e = getenv("WEFT_FUZZ_KIND");
	if (e && *e && (only_kind = weft_kind_from_name(e)) == WEFT_KIND_NONE) {
		fprintf(stderr, "weft: WEFT_FUZZ_KIND=%s: not a report kind\n", e);
		exit(WEFT_EXIT_USAGE);
	}
	if (weft_fuzz_glue_init_route(in_map, rarity ? aux : NULL))
		exit(WEFT_EXIT_USAGE);
	opts.sc = sc;
	opts.variant = vi;
	opts.lock = weft_fuzz_lock(sc);
	/* WEFT_FUZZ_MEMORY (weft fuzz --memory), else the scenario's own: the
	 * weakest model an input may ask for */
	unsigned memory;
	if (!weft_fuzz_memory(sc, &memory))
		exit(WEFT_EXIT_USAGE);
	opts.memory = (uint8_t)memory;
	opts.checks = WEFT_CHECKS_DEFAULT;   /* every input reproduces alone: no persistence */
	if (only_kind && WEFT_WARNING_KINDS & ~(1ull << only_kind)) {
		/* go past the warnings not asked for, as weft run --kind does
		 * (weft import --kind re-runs the crash the same way) */
		opts.checks |= WEFT_CHECK_CONTINUE_WARNINGS;
		opts.continue_kinds = weft_continue_kinds(opts.checks, 1ull << only_kind);
	}
	opts.feedback = weft_fuzz_feedback_on();
	opts.no_trace_hash = true;
	/* the genomes' executions (LLVMFuzzerTestOneInput) take the lean
	 * access path with on_step and feedback; the systematic stage's dfs
	 * and a report's re-run do not (they clear it) */
	opts.genome_lean = true;
	systematic = env_on("WEFT_FUZZ_SYSTEMATIC", WEFT_FUZZ_ENGINE_BUILD) && opts.feedback;
	e = getenv("WEFT_FUZZ_DFS_CAP");
	if (e && atoi(e) > 0)
		dfs_cap = (unsigned)atoi(e);
	weft_mutator_init(&mut, sc, 0x5745465446555a5aull);
	mut.memory = opts.memory;
	mut.variant = opts.variant;
	e = getenv("WEFT_FUZZ_MUTATOR");
	structured = !(e && !strcmp(e, "bytes"));
	mut.adaptive = env_on("WEFT_FUZZ_BANDIT", true);
	mut.mode_bandit = env_on("WEFT_FUZZ_MODE_BANDIT", true);
	static const char *const mode_env[2] = { "WEFT_FUZZ_MODES", "WEFT_FUZZ_WARMUP_MODES" };
	for (unsigned k = 0; k < 2; k++) {
		e = getenv(mode_env[k]);
		if (e && *e && parse_modes(e, k ? mut.warmup_prior : mut.mode_prior)) {
			fprintf(stderr, "weft: %s=%s: want %d or %d shares >= 0, comma-separated "
					"(walk, walk p4, p16, p48, pct d2, d3, pos, serial[, pct d8])\n",
				mode_env[k], e, WEFT_MUT_MODE_CLASSES - 1, WEFT_MUT_MODE_CLASSES);
			exit(WEFT_EXIT_USAGE);
		}
	}
	e = getenv("WEFT_FUZZ_WARMUP");
	if (e && *e)
		mut.warmup = (unsigned)strtoul(e, NULL, 10);
	e = getenv("WEFT_FUZZ_WARMUP_FRESH");
	if (e && *e)
		mut.warmup_fresh = (unsigned)strtoul(e, NULL, 10);
	e = getenv("WEFT_FUZZ_ARM");
	if (e && *e)
		for (unsigned a = 0; a < WEFT_MUT__COUNT; a++)
			if (!strcmp(e, weft_mut_arm_name(a)))
				mut.fixed_arm = (int)a;
	return 0;
}

/* ------------------------------------------------------------ reports */

static void repro_write(const uint8_t *buf, size_t n)
{
	const char *dir = getenv("WEFT_FUZZ_REPRO_DIR");
	char path[4096];

	fprintf(stderr, "weft: one-execution reproducer (bytes input): ");
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%02x", buf[i]);
	fprintf(stderr, "\n");
	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/repro-%016llx", dir,
		 (unsigned long long)weft_fuzz_hash(buf, n));
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f))
		fprintf(stderr, "weft: cannot write %s\n", path);
	else
		fprintf(stderr, "weft: reproducer written to %s\n", path);
}

/* A report: re-run the failing execution with its trace hash (searching
 * skips it) from its own reproducer, print, abort. */
static void __attribute__((noreturn)) report(const uint8_t *repro, size_t n)
{
	struct weft_run_opts ro = opts;
	struct weft_exec_result r = result;
	static struct weft_bytes b;

	weft_fuzz_glue_report();
	if (getenv("WEFT_FUZZ_DEBUG")) {
		fprintf(stderr, "weft: debug: %llu search + %llu stage executions; arms:",
			(unsigned long long)search_execs, (unsigned long long)stage_execs);
		for (unsigned a = 0; a < WEFT_MUT__COUNT; a++)
			fprintf(stderr, " %s %.0f/%.0f", weft_mut_arm_name(a), mut.gain[a],
				mut.tries[a]);
		fprintf(stderr, "; modes:");
		for (unsigned c = 0; c < WEFT_MUT_MODE_CLASSES; c++)
			fprintf(stderr, " %.0f/%.0f", mut.mgain[c], mut.mtries[c]);
		fprintf(stderr, "; input mode %d", n > 2 && repro[0] == 0xff ? repro[2] : -1);
		/* the arm and mode class that made the reporting input (the
		 * last mutation's output; otherwise a start-up input or the
		 * systematic stage's) */
		bool last = mut.last_arm >= 0 && weft_fuzz_hash(repro, n) == mut.last_hash;
		fprintf(stderr, "; made by %s class %d after %llu mutations\n",
			last ? weft_mut_arm_name((unsigned)mut.last_arm) : "-", last ? mut.last_mode : -1,
			(unsigned long long)mut.total);
	}
	ro.no_trace_hash = false;
	ro.feedback = false;
	ro.genome_lean = false;   /* as weft replay runs it */
	weft_feedback_attach(NULL, 0);
	if (n) {
		weft_bytes_init(&b, opts.sc, repro, n);
		if (weft_execute(&ro, &weft_strategy_bytes, &b, &r) || r.kind == WEFT_KIND_NONE)
			r = result;
	}
	weft_report_print(stderr, &ro, &r);
	fprintf(stderr, "weft: minimize and store this input: %s import FILE --target %s --lock %s "
		"--memory %s%s%s\n", weft_fuzz_program ? weft_fuzz_program : "weft", spec,
		opts.lock == WEFT_LOCK_TICKET ? "ticket" : "tas",
		weft_memory_name((enum weft_memory_model)opts.memory), only_kind ? " --kind " : "",
		only_kind ? weft_kind_name(only_kind) : "");
	fflush(stderr);
	abort();
}

/* Keep-going (WEFT_FUZZ_KEEP_GOING=DIR): the first input of each report
 * kind and site (the failing access's site id) is written to
 * DIR/<kind>-<site id>, a one-execution reproducer the bytes strategy and
 * `weft import` run, and the search goes on: an engine that stopped, or
 * (libFuzzer -fork -ignore_crashes) restarted on the first crash found the
 * same one again and again when the empty input or a seed reported. The
 * file is made under a temporary (dot) name and linked into place, so that two
 * processes of one campaign (-fork, AFL++ -S) keep one each and the
 * reader never sees half of one. */
static void keep_report(const struct weft_exec_result *r, const uint8_t *in, size_t n)
{
	static uint64_t seen_keys[256];
	static unsigned nr_seen;
	uint32_t site = r->report.here.site ? r->report.here.site->id : 0;
	uint64_t key = (uint64_t)r->kind << 32 | site;
	char path[4096], tmp[4200];

	for (unsigned i = 0; i < nr_seen; i++)
		if (seen_keys[i] == key)
			return;
	if (nr_seen < 256)
		seen_keys[nr_seen++] = key;
	snprintf(path, sizeof(path), "%s/%s-%08x", keep_dir, weft_kind_name(r->kind), site);
	snprintf(tmp, sizeof(tmp), "%s/.%s-%08x.%ld", keep_dir, weft_kind_name(r->kind), site,
		 (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	bool ok = fd >= 0 && write(fd, in, n) == (ssize_t)n;
	if (fd >= 0 && close(fd))
		ok = false;
	if (ok && link(tmp, path)) {
		ok = false;
		if (errno == EEXIST) {   /* another process kept this one */
			unlink(tmp);
			return;
		}
	}
	if (fd >= 0)
		unlink(tmp);
	if (!ok) {
		fprintf(stderr, "weft: keep-going: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	weft_fuzz_glue_report();
	fprintf(stderr, "weft: keep-going: %s at %s (%s), input kept in %s\n",
		weft_kind_name(r->kind), r->report.here.site ? r->report.here.site->what : "-",
		r->report.here.site ? r->report.here.site->func : "-", path);
}

/* ------------------------------------------------------- systematic */

#if defined(WEFT_FUZZ_LIBFUZZER)
/* A bug the stage found, under libFuzzer's loop: its one-execution
 * reproducer is the next input LLVMFuzzerCustomMutator hands libFuzzer,
 * which runs it, so the input that aborts, and libFuzzer's crash file, is
 * the reproducer itself (fuzz_X CRASH, weft import, an OSS-Fuzz
 * reproduction run it alone). Before, the target aborted inside the input
 * whose novelty started the stage, and that crash file run alone is one
 * execution with no stage. Outside the loop (files run one by one: the
 * mutator never ran), or when the reproducer does not come back within
 * PENDING_TRIES inputs (longer than the mutation may be), the target
 * aborts inside the input as before; the repro-* file is written either way. */
#define PENDING_TRIES 64
static uint8_t pending[WEFT_INPUT_MAX];
static size_t pending_n;
static unsigned pending_tries;
static struct weft_exec_result pending_result;
static bool mutating;   /* the custom mutator ran: libFuzzer's loop */
#endif

static void systematic_stage(void)
{
	static struct weft_dfs d;
	static uint8_t wl[WEFT_INPUT_MAX];
	size_t nw;
	const uint8_t *w = weft_last_workload(&nw);
	struct weft_run_opts ro = opts;
	struct weft_exec_result r;

	memcpy(wl, w, nw);
	ro.feedback = false;
	ro.genome_lean = false;   /* dfs, not a genome */
	weft_fuzz_glue_detach();
	weft_dfs_init(&d, opts.sc, 1, wl, nw);
	/* bound 1 over a long execution has about one execution per decision:
	 * a cap of twice the input's decisions (at least dfs_cap) covers most
	 * of it; the one-third budget keeps the total in check */
	unsigned cap = result.decisions * 2 > dfs_cap ? result.decisions * 2 : dfs_cap;
	for (unsigned i = 0; i < cap; i++) {
		if (weft_execute(&ro, &weft_strategy_dfs, &d, &r) < 0)
			break;
		weft_fuzz_glue_count(r.steps);
		stage_execs++;
		if (stops(r.kind)) {
			uint8_t buf[WEFT_INPUT_MAX];
			size_t n = weft_last_input(opts.sc, buf, sizeof(buf));
			if (keep_dir) {
				if (n)
					keep_report(&r, buf, n);
				continue;
			}
			if (n)
				repro_write(buf, n);
#if defined(WEFT_FUZZ_LIBFUZZER)
			if (n && mutating) {
				memcpy(pending, buf, n);
				pending_n = n;
				pending_tries = 0;
				pending_result = r;
				fprintf(stderr, "weft: the systematic stage found a %s report: its "
					"one-execution reproducer is the next input\n",
					weft_kind_name(r.kind));
				break;
			}
#endif
			result = r;
			report(buf, n);
		}
	}
	weft_fuzz_glue_reattach();
}

/* ------------------------------------------------------------ one input */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t short_genome[WEFT_INPUT_MAX];
	size_t run_len = size;
	/* libFuzzer's start-up inputs (empty, "\n") run as fresh genomes */
	const uint8_t *run = weft_raw_input(opts.sc, opts.variant, opts.memory, data, &run_len, short_genome);

#if defined(WEFT_FUZZ_LIBFUZZER)
	if (pending_n && ++pending_tries > PENDING_TRIES) {
		/* never handed back: report it here, as before */
		result = pending_result;
		report(pending, pending_n);
	}
	if (pending_n && run_len == pending_n && !memcmp(run, pending, run_len))
		pending_n = 0;   /* this is it: it reports below */
#endif
	weft_fuzz_glue_begin();
	weft_bytes_init(&bytes_st, opts.sc, run, run_len);
	/* a stored genome replays under the model it asks for (found under) */
	uint8_t memory = opts.memory;
	int asked = bytes_st.genome ? weft_genome_run_memory(&bytes_st.gr) : -1;
	if (weft_fuzz_replaying && asked >= 0 && !weft_fuzz_memory_forced())
		opts.memory = (uint8_t)asked;
	weft_execute(&opts, &weft_strategy_bytes, &bytes_st, &result);
	weft_fuzz_glue_count(result.steps);
	search_execs++;
	if (stops(result.kind)) {
		if (!keep_dir)
			report(run, run_len);
		keep_report(&result, run, run_len);
	}
	opts.memory = memory;
	shape_store(data, size, &result);
	uint8_t *map = weft_fuzz_glue_end();
	bool fresh = false;
	if (map) {
		/* new features: presence bits never seen before (the map is
		 * reduced to presence by glue_end) */
		for (unsigned i = 0; i < WEFT_FUZZ_MAP_SIZE; i += 8) {
			uint64_t x, s;
			memcpy(&x, map + i, 8);
			if (!x)
				continue;
			memcpy(&s, seen + i, 8);
			if (x & ~s) {
				fresh = true;
				s |= x;
				memcpy(seen + i, &s, 8);
			}
		}
	}
	if (rarity) {
		rarity_account(data, size);
		if (last_rare >= 0 && weft_fuzz_hash(data, size) == last_mut_hash)
			rare_gain[last_rare] += fresh;
		last_rare = -1;
	}
	weft_mutator_reward(&mut, data, size, fresh, result.steps);
	/* after the first thousand executions (early novelty is shallow), and
	 * at most a sixth of all executions */
	if (fresh && systematic && search_execs >= 1000 && 5 * stage_execs < search_execs)
		systematic_stage();
	return 0;
}

/* ------------------------------------------------------------ mutator */

#if defined(WEFT_FUZZ_LIBFUZZER)
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	mutating = true;
	if (pending_n && pending_n <= max_size) {
		memcpy(data, pending, pending_n);
		return pending_n;
	}
	if (!structured)
		return LLVMFuzzerMutate(data, size, max_size);
	mut.byte_mutate = LLVMFuzzerMutate;
	int rare = 0;
	if (rarity && (double)(seed % 1000) < 1000 * rare_share()) {
		/* start from a heavy (rare-feature) input instead */
		unsigned i = (seed >> 10) % POOL;
		if (pool[i].len && pool[i].len <= max_size) {
			memcpy(data, pool[i].buf, pool[i].len);
			size = pool[i].len;
			rare = 1;
		}
	}
	size_t n = weft_mutator_mutate(&mut, data, size, max_size, seed, shape_find(data, size));
	if (rarity) {
		rare_tries[rare] += 1;
		last_rare = rare;
		last_mut_hash = weft_fuzz_hash(data, n);
		if (rare_tries[0] + rare_tries[1] > 4096) {
			for (unsigned k = 0; k < 2; k++) {
				rare_gain[k] /= 2;
				rare_tries[k] /= 2;
			}
		}
	}
	return n;
}
#endif
