/*
 * cmd_fuzz.c - `weft fuzz`: build or find the fuzz target of a scenario
 * variant, run libFuzzer or AFL++ on it from its corpus, report progress,
 * and hand the first crash to `weft import` (minimize, write the .weft,
 * print the race).
 *
 * Where things are (docs/fuzzing.md):
 *  - targets: <build>/fuzz/ when this build's WEFT_FUZZ_ENGINE is the one
 *    asked for, else <build>/fuzz-<engine>/fuzz/, configured and built on
 *    demand with cmake from the source tree recorded at configure time
 *    (WEFT_SOURCE_DIR, WEFT_BUILD_DIR; both can be overridden from the
 *    environment, and --build-dir names the engine build directly);
 *  - seeds, dictionary, options: <source>/corpus/<target>{/,.dict,.options};
 *  - work: OUT/work/<target>-<engine>/ (the growing corpus, raw crashes,
 *    the engine's log, the live counters the target adds to).
 * The engine and everything it forks run in their own process group,
 * which is what gets signalled at the end (never anything else).
 *
 * Files: this one parses and runs the pipeline; fuzz_build.c finds or
 * builds the target, fuzz_engines.c starts and reads the engines,
 * fuzz_crashes.c collects the crashes and imports them (fuzz_cmd.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <weft/strategy.h>

#include "cli.h"
#include "fuzz_cmd.h"

const char weft_help_fuzz[] =
	"usage: weft fuzz SCENARIO:VARIANT [options]\n"
	"       weft fuzz ./PROGRAM [options] [-- ARGS]  (built by weft-cc: its own libFuzzer target)\n\n"
	"Fuzzes the variant's target (interleaving and workload) with libFuzzer or AFL++,\n"
	"printing progress every 2 s. On the first crash it stops and runs\n"
	"`weft import CRASH --target SCENARIO:VARIANT --out DIR`, which minimizes the\n"
	"input, writes the .weft replay file and prints the race.\n"
	"  --engine E        libfuzzer (default) or afl\n"
	"  --time S          stop after S seconds without a crash (default 60)\n"
	"  --jobs N          parallel fuzzers: libFuzzer -fork=N, AFL++ -M + N-1 -S (default 1)\n"
	"  --seed N          engine seed (default 1; 0: libFuzzer picks one)\n"
	"  --out DIR         replay files and work files (default ./weft-out)\n"
	"  --lock tas|ticket lock model (default: the scenario's)\n"
	"  --memory M        sc, tso or lkmm: the weakest memory model an input may ask\n"
	"                    for (default: the scenario's, sc but for the weak-memory zoo\n"
	"                    entries); under a weak one the genomes carry the weak\n"
	"                    choices (docs/memory-model.md)\n"
	"  --keep-going      do not stop at the first crash: the target keeps the first\n"
	"                    input of each report kind and site (OUT/work/*/keep/) and\n"
	"                    goes on (a bug the empty input hits does not hide others);\n"
	"                    every one kept, and every engine crash, is imported at the end\n"
	"  --no-feedback     without interleaving feedback (code coverage only; measurements)\n"
	"  --kind K          stop only at a report of kind K; the target goes on past others\n"
	"                    (measurements: weft bench counts the declared kind only)\n"
	"  --build-dir DIR   the engine's build directory (default: beside this build)\n"
	"  --json            one JSON object: scenario, variant, engine, verdict (bug,\n"
	"                    clean, unreproducible, error), kind,\n"
	"                    executions and steps (to the first report when there is\n"
	"                    one; executions_total: all), seconds, seconds_to_crash\n"
	"                    (from the start of this command), exec_per_sec, crash (raw input; a\n"
	"                    systematic-stage crash: its one-execution reproducer),\n"
	"                    artifact (.weft), import (its JSON)\n"
	"  --target-bin PATH a prebuilt target of the engine (nothing is configured or built)\n"
	"Environment: WEFT_SOURCE_DIR, WEFT_BUILD_DIR override the trees this program was\n"
	"built with (a program made by weft_add_model() or this tree knows them).\n"
	"Both engines start from the empty input; WEFT_FUZZ_SEEDS=corpus runs the seed\n"
	"folder (corpus/<target>/) first.\n"
	"exit: 0 clean, 1 bug, 2 usage, 3 I/O or engine failure (also: weft import could\n"
	"      not be run; JSON verdict \"error\"), 4 the crash did not reproduce\n";


/* Subcommands compiled into this binary (is `import` there yet?). */
static const char *const known_cmds[] = {
#define X(name, fn, summary) #name,
#include "commands.def"
#undef X
};

static bool have_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(known_cmds) / sizeof(known_cmds[0]); i++)
		if (!strcmp(known_cmds[i], name))
			return true;
	return false;
}

/* ------------------------------------------------------------ command */

static int parse(int argc, char **argv, struct fuzz_opts *o)
{
	const char *spec = NULL;
	struct cli_model_flags model = { 0 };
	int flag_rc;

	o->engine = "libfuzzer";
	o->time = 60;
	o->jobs = 1;
	o->seed = 1;
	o->out = "weft-out";
	const struct cli_flag flags[] = {
		{ "--json", NULL, &o->json, NULL },
		{ "--keep-going", NULL, &o->keep_going, NULL },
		{ "--no-feedback", NULL, &o->no_feedback, NULL },
		{ "--out", NULL, NULL, &o->out },
		{ "--build-dir", NULL, NULL, &o->build_dir },
		{ "--target-bin", NULL, NULL, &o->target_bin },
		{ 0 },
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV() CLI_NEEDV("fuzz")
		if (cli_flag_take("fuzz", flags, argc, argv, &i, &flag_rc)) {
			if (flag_rc)
				return flag_rc;
		} else if (!strcmp(a, "--engine")) {
			NEEDV();
			if (strcmp(v, "libfuzzer") && strcmp(v, "afl"))
				return cli_usage_error("fuzz: --engine takes libfuzzer or afl, not '%s'",
						       v);
			o->engine = v;
		} else if (!strcmp(a, "--time")) {
			NEEDV();
			if (!cli_parse_u64(v, &o->time) || !o->time || o->time > 1000000)
				return cli_usage_error("fuzz: --time takes 1..1000000 seconds");
		} else if (!strcmp(a, "--jobs")) {
			NEEDV();
			if (!cli_parse_u64(v, &o->jobs) || !o->jobs || o->jobs > 64)
				return cli_usage_error("fuzz: --jobs takes 1..64");
		} else if (!strcmp(a, "--seed")) {
			NEEDV();
			if (!cli_parse_u64(v, &o->seed) || o->seed > UINT32_MAX)
				return cli_usage_error("fuzz: --seed takes 0..4294967295");
		} else if (!strcmp(a, "--kind")) {
			NEEDV();
			o->only_kind = weft_kind_from_name(v);
			if (o->only_kind == WEFT_KIND_NONE)
				return cli_usage_error("fuzz: --kind takes a report kind "
						       "(docs/detectors.md), not '%s'", v);
		} else if (cli_model_flag("fuzz", a, v, &model, &flag_rc)) {
			if (flag_rc)
				return flag_rc;
			i++;
		} else {
			int rc = cli_operand("fuzz", a, &spec);
			if (rc)
				return rc;
		}
#undef NEEDV
	}
	o->sc = cli_operand_scenario("fuzz", "SCENARIO:VARIANT", spec, &o->vi);
	if (!o->sc)
		return WEFT_EXIT_USAGE;
	cli_model_of(&model, o->sc, &o->lock, &o->memory);
	if (!strcmp(o->engine, "afl") && o->seed == 0)
		o->seed = 1;
	snprintf(o->target, sizeof(o->target), "fuzz_%s_%s", o->sc->name,
		 o->sc->variants[o->vi].name);
	for (char *p = o->target; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			*p = '_';
	if (*prog_str(weft_program_corpus_dir) && !getenv("WEFT_SOURCE_DIR"))
		snprintf(o->src, sizeof(o->src), "%s", weft_program_corpus_dir);
	else if (getenv("WEFT_SOURCE_DIR"))
		snprintf(o->src, sizeof(o->src), "%s/corpus", getenv("WEFT_SOURCE_DIR"));
	return 0;
}

static volatile sig_atomic_t interrupted;

int cmd_fuzz(int argc, char **argv)
{
	static struct fuzz_opts o;
	int rc;

	double t_start = fuzz_now();

	memset(&o, 0, sizeof(o));
	if ((rc = parse(argc, argv, &o)))
		return rc;
	if ((rc = fuzz_ensure_target(&o)))
		return rc;

	/* work files */
	char path[PATH_MAX + 500], log[PATH_MAX + 400], statp[PATH_MAX + 400];
	snprintf(o.work, sizeof(o.work), "%s/work/%s-%s", o.out, o.target, o.engine);
	snprintf(path, sizeof(path), "%s/corpus", o.work);
	if (fuzz_mkdirs(path))
		return cli_io_error("fuzz: cannot create %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/crashes", o.work);
	if (fuzz_mkdirs(path))
		return cli_io_error("fuzz: cannot create %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/repro", o.work);
	if (fuzz_mkdirs(path))
		return cli_io_error("fuzz: cannot create %s: %s", path, strerror(errno));
	/* an earlier run's reproducers: the first crash of this one would be
	 * swapped for one of them below (a bug, but maybe not this one) */
	struct name_set old_repro = { .n = 0 };
	fuzz_list_files(path, "repro-", "", &old_repro);
	for (unsigned i = 0; i < old_repro.n; i++)
		unlink(old_repro.names[i]);
	fuzz_set_free(&old_repro);
	/* --keep-going: the target keeps one input per report kind and site
	 * here (WEFT_FUZZ_KEEP_GOING); an earlier run's would stop it from
	 * keeping the same ones again, so they go */
	snprintf(path, sizeof(path), "%s/keep", o.work);
	if (o.keep_going) {
		if (fuzz_mkdirs(path))
			return cli_io_error("fuzz: cannot create %s: %s", path, strerror(errno));
		struct name_set stale = { .n = 0 };
		fuzz_list_files(path, "", "", &stale);
		for (unsigned i = 0; i < stale.n; i++)
			unlink(stale.names[i]);
		fuzz_set_free(&stale);
	}
	/* seeds and dictionary: the program's corpus folder, else generated
	 * by the target itself (WEFT_FUZZ_WRITE_SEEDS, <weft/fuzz.h>) */
	snprintf(o.seeds, sizeof(o.seeds), "%s/%s", o.src, o.target);
	snprintf(o.dict, sizeof(o.dict), "%s/%s.dict", o.src, o.target);
	if (!o.src[0] || !fuzz_is_dir(o.seeds)) {
		static char e_ws[PATH_MAX + 500], e_wd[PATH_MAX + 500];
		snprintf(o.seeds, sizeof(o.seeds), "%s/seeds", o.work);
		snprintf(o.dict, sizeof(o.dict), "%s/generated.dict", o.work);
		snprintf(e_ws, sizeof(e_ws), "WEFT_FUZZ_WRITE_SEEDS=%s", o.seeds);
		snprintf(e_wd, sizeof(e_wd), "WEFT_FUZZ_WRITE_DICT=%s", o.dict);
		char *genv[8] = { e_ws, e_wd, NULL };
		cli_program_target_env(genv, 2);
		/* an argument: the regression and AFL++ drivers' main() refuses
		 * an empty command line (usage, exit 2) before the target's
		 * initializer writes the seeds; every driver ignores -runs=0 */
		char *gargv[] = { o.bin, "-runs=0", NULL };
		pid_t gp = fuzz_spawn(gargv, -1, genv);
		if (gp < 0 || fuzz_wait_exit(gp) != 0)
			return cli_io_error("fuzz: %s could not write its seeds to %s", o.bin,
					    o.seeds);
	}
	if (!fuzz_is_file(o.dict))
		o.dict[0] = 0;
	snprintf(log, sizeof(log), "%s/engine.log", o.work);
	snprintf(statp, sizeof(statp), "%s/stats", o.work);
	int sfd = open(statp, O_RDWR | O_CREAT | O_TRUNC, 0666);
	if (sfd < 0 || ftruncate(sfd, 4096))
		return cli_io_error("fuzz: cannot create %s: %s", statp, strerror(errno));
	/* the layout of struct weft_fuzz_stats (fuzz/weft_fuzz_glue.h) */
	struct weft_fuzz_stats_view {
		uint64_t magic, execs, reports, steps, first_report_execs, first_report_steps;
	} *stats = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
	close(sfd);
	if (stats == MAP_FAILED)
		return cli_io_error("fuzz: cannot map %s", statp);
	int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (logfd < 0)
		return cli_io_error("fuzz: cannot create %s: %s", log, strerror(errno));

	struct name_set old_crashes = { .n = 0 };
	fuzz_crash_files(&o, &old_crashes);

	static char e_stats[PATH_MAX + 500];
	snprintf(e_stats, sizeof(e_stats), "WEFT_FUZZ_STATS=%s", statp);
	char *envs[32];
	unsigned ne = 0;
	envs[ne++] = e_stats;
	envs[ne++] = o.lock == WEFT_LOCK_TICKET ? "WEFT_FUZZ_LOCK=ticket" : "WEFT_FUZZ_LOCK=tas";
	envs[ne++] = o.no_feedback ? "WEFT_NO_FEEDBACK=1" : "WEFT_NO_FEEDBACK=0";
	static char e_memory[64];
	snprintf(e_memory, sizeof(e_memory), "WEFT_FUZZ_MEMORY=%s", weft_memory_name(o.memory));
	envs[ne++] = e_memory;
	static char e_kind[96], e_repro[PATH_MAX + 500];
	if (o.only_kind) {
		snprintf(e_kind, sizeof(e_kind), "WEFT_FUZZ_KIND=%s", weft_kind_name(o.only_kind));
		envs[ne++] = e_kind;
	}
	snprintf(e_repro, sizeof(e_repro), "WEFT_FUZZ_REPRO_DIR=%s/repro", o.work);
	envs[ne++] = e_repro;
	static char e_keep[PATH_MAX + 500];
	if (o.keep_going) {
		snprintf(e_keep, sizeof(e_keep), "WEFT_FUZZ_KEEP_GOING=%s/keep", o.work);
		envs[ne++] = e_keep;
	}
	ne = cli_program_target_env(envs, ne);
	/* the target prints the model's report itself; libFuzzer's stack
	 * trace of the abort() costs ~0.5 s of llvm-symbolizer per crash */
	if (!getenv("UBSAN_OPTIONS"))
		envs[ne++] = "UBSAN_OPTIONS=symbolize=0";
	if (!strcmp(o.engine, "afl")) {
		envs[ne++] = "AFL_NO_UI=1";
		envs[ne++] = "AFL_SKIP_CPUFREQ=1";
		envs[ne++] = "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1";
		envs[ne++] = "AFL_NO_AFFINITY=1";
		envs[ne++] = "AFL_AUTORESUME=1";
		if (!o.keep_going)
			envs[ne++] = "AFL_BENCH_UNTIL_CRASH=1";
		/* where AFL++'s executions went before its first mutation
		 * (z8-thp-split:z8, seeds 1-5, executions at the first crash):
		 * calibrating the 34 seeds 8 times each, 273; without it, 66;
		 * calibration of new entries 3 times instead of 8 and no
		 * trimming (a genome trimmed is another schedule), 34. The
		 * environment may set each otherwise. */
		static const char *const afl_defaults[] = { "AFL_NO_STARTUP_CALIBRATION=1",
							    "AFL_FAST_CAL=1", "AFL_DISABLE_TRIM=1" };
		for (unsigned i = 0; i < sizeof(afl_defaults) / sizeof(afl_defaults[0]); i++) {
			char name[64];
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(afl_defaults[i], "="),
				 afl_defaults[i]);
			if (!getenv(name))
				envs[ne++] = (char *)afl_defaults[i];
		}
		static char e_mut[PATH_MAX + 400], e_tgt[300];
		if (o.mutator[0]) {
			snprintf(e_mut, sizeof(e_mut), "AFL_CUSTOM_MUTATOR_LIBRARY=%s", o.mutator);
			envs[ne++] = e_mut;
			envs[ne++] = "AFL_CUSTOM_MUTATOR_ONLY=1";
			snprintf(e_tgt, sizeof(e_tgt), "WEFT_FUZZ_TARGET=%s:%s", o.sc->name,
				 o.sc->variants[o.vi].name);
			envs[ne++] = e_tgt;
		}
	}
	envs[ne] = NULL;

	if (!o.json)
		fprintf(stderr, "weft: fuzzing %s:%s with %s (%s, %" PRIu64 " job%s, seed %" PRIu64
				", %" PRIu64 " s%s)\n",
			o.sc->name, o.sc->variants[o.vi].name, o.engine, o.bin, o.jobs,
			o.jobs > 1 ? "s" : "", o.seed, o.time,
			o.no_feedback ? ", no interleaving feedback" : "");

	/* The engine is waited on, not polled: SIGCHLD (an engine ended: it
	 * stops at its first crash), SIGINT/SIGTERM, or the 2 s progress tick
	 * wake sigtimedwait(). */
	sigset_t wset, old_mask;
	sigemptyset(&wset);
	sigaddset(&wset, SIGCHLD);
	sigaddset(&wset, SIGINT);
	sigaddset(&wset, SIGTERM);
	sigprocmask(SIG_BLOCK, &wset, &old_mask);

	static pid_t pids[64];
	unsigned nr_pids = 0;
	double t0 = fuzz_now();
	if (!strcmp(o.engine, "libfuzzer")) {
		pids[0] = fuzz_start_libfuzzer(&o, logfd, envs);
		nr_pids = pids[0] > 0;
	} else {
		if ((rc = fuzz_start_afl(&o, logfd, envs, pids))) {
			sigprocmask(SIG_SETMASK, &old_mask, NULL);
			return rc;
		}
		nr_pids = (unsigned)o.jobs;
	}
	close(logfd);
	if (!nr_pids) {
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		return cli_io_error("fuzz: cannot start %s", o.engine);
	}

	struct progress pr = { 0 };
	struct name_set crashes = { .n = 0 };
	double last = t0, deadline = t0 + (double)o.time + 30.0, t_crash = -1;
	unsigned alive = nr_pids;
	int engine_rc = 0;
	bool stopped = false;
	while (alive) {
		double t = fuzz_now();
		double wake = last + 2.0;
		if (!stopped && deadline < wake)
			wake = deadline;
		if (stopped && deadline + 10.0 < wake)
			wake = deadline + 10.0;
		double dt = wake - t;
		if (dt < 0.001)
			dt = 0.001;
		struct timespec ts = { (time_t)dt, (long)((dt - (double)(time_t)dt) * 1e9) };
		siginfo_t si;
		int sig = sigtimedwait(&wset, &si, &ts);
		if (sig == SIGINT || sig == SIGTERM)
			interrupted = 1;
		bool reaped = false;
		for (unsigned i = 0; i < nr_pids; i++) {
			int st;
			if (pids[i] > 0 && waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
				if (!i || code)
					engine_rc = engine_rc ? engine_rc : code;
				pids[i] = 0;
				alive--;
				reaped = true;
			}
		}
		t = fuzz_now();
		if (reaped || t - last >= 2.0 || interrupted) {
			struct name_set cur = { .n = 0 };
			fuzz_crash_files(&o, &cur);
			for (unsigned i = 0; i < cur.n && crashes.n < MAX_CRASHES; i++)
				if (!fuzz_set_has_unchanged(&old_crashes, cur.names[i]) &&
				    !fuzz_set_has(&crashes, cur.names[i]))
					crashes.names[crashes.n++] = strdup(cur.names[i]);
			fuzz_set_free(&cur);
			if (crashes.n && t_crash < 0)
				t_crash = t;
		}
		bool stop = interrupted || t > deadline || (crashes.n && !o.keep_going);
		if (stop && !stopped && alive) {
			/* each engine process leads its own group: stop its workers too */
			for (unsigned i = 0; i < nr_pids; i++)
				if (pids[i] > 0)
					kill(-pids[i], SIGINT);
			stopped = true;
		}
		if (t - last >= 2.0 || !alive) {
			if (!strcmp(o.engine, "libfuzzer"))
				fuzz_libfuzzer_progress(log, &pr);
			else
				fuzz_afl_progress(&o, &pr);
			if (t - last >= 2.0) {
				uint64_t ex = __atomic_load_n(&stats->execs, __ATOMIC_RELAXED);
				fprintf(stderr, "weft: %5.0f s  %12" PRIu64 " execs  %9.0f exec/s  ",
					t - t0, ex, (double)ex / (t - t0));
				if (pr.have_cov && !strcmp(o.engine, "libfuzzer"))
					fprintf(stderr, "cov %lu ft %lu corp %lu  ", pr.cov, pr.ft,
						pr.corp);
				else if (pr.have_cov)
					fprintf(stderr, "edges %lu corp %lu  ", pr.cov, pr.corp);
				fprintf(stderr, "crashes %u\n", crashes.n);
				last = t;
			}
		}
		if (stopped && t > deadline + 10.0) {
			for (unsigned i = 0; i < nr_pids; i++)
				if (pids[i] > 0)
					kill(-pids[i], SIGKILL);
		}
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	double secs = fuzz_now() - t0;
	uint64_t execs = __atomic_load_n(&stats->execs, __ATOMIC_RELAXED);
	uint64_t steps = __atomic_load_n(&stats->steps, __ATOMIC_RELAXED);
	/* to the first report: the engine runs on after it (AFL++ to the end
	 * of the queue entry's stage: 997 executions where the crash came at
	 * the 273rd on z8-thp-split:z8) */
	uint64_t execs_to_report = __atomic_load_n(&stats->first_report_execs, __ATOMIC_RELAXED);
	uint64_t steps_to_report = __atomic_load_n(&stats->first_report_steps, __ATOMIC_RELAXED);
	munmap(stats, 4096);
	fuzz_set_free(&old_crashes);
	/* a crash found by the target's systematic stage: import its
	 * one-execution reproducer (under libFuzzer the crash file is that
	 * reproducer; under AFL++ it is the input that started the stage) */
	if (crashes.n && !o.keep_going) {
		struct name_set rep = { .n = 0 };
		char rdir[PATH_MAX + 400];
		snprintf(rdir, sizeof(rdir), "%s/repro", o.work);
		fuzz_list_files(rdir, "repro-", "", &rep);
		if (rep.n) {
			free(crashes.names[0]);
			crashes.names[0] = strdup(rep.names[0]);
		}
		fuzz_set_free(&rep);
	}

	if (!crashes.n && !interrupted && engine_rc && engine_rc != 128 + SIGINT) {
		fuzz_print_log_tail(log, 25);
		return cli_io_error("fuzz: %s exited with %d and no crash (log: %s)", o.engine,
				    engine_rc, log);
	}

	/* the crashes: import (minimize, store, print the race) */
	enum weft_kind kind = WEFT_KIND_NONE;
	struct import_result ir = { .rc = -1 };
	const char *first = crashes.n ? crashes.names[0] : NULL;
	bool reproduced = false, can_import = have_cmd("import");
	/* an import that could not run (this program gone: rebuilt while it
	 * fuzzed, exec failed) says nothing of the crash: an I/O failure,
	 * not "did not reproduce" */
	bool import_unrun = false;
	unsigned nr_reproduced = 0;
	unsigned nr_imports = o.keep_going ? crashes.n : (crashes.n ? 1 : 0);
	if (!o.json)
		fprintf(stderr, "weft: %s after %" PRIu64 " executions in %.1f s (%.0f exec/s)\n",
			crashes.n ? "crash" : interrupted ? "interrupted" : "no crash", execs, secs,
			secs > 0 ? (double)execs / secs : 0.0);
	for (unsigned i = 0; i < nr_imports; i++) {
		enum weft_kind k = fuzz_rerun(&o, crashes.names[i], !can_import && !o.json);
		if (k != WEFT_KIND_NONE && kind == WEFT_KIND_NONE) {
			kind = k;
			first = crashes.names[i];
		}
		if (can_import) {
			struct import_result r;
			char tn[256];
			if (!o.json) {
				printf("%s import %s --target %s --lock %s --memory %s --out %s", cli_prog,
				       crashes.names[i], cli_target_name(o.sc, o.vi, tn, sizeof(tn)),
				       o.lock == WEFT_LOCK_TICKET ? "ticket" : "tas",
				       weft_memory_name(o.memory), o.out);
				cli_print_program_args(stdout);
				printf("\n");
			}
			fuzz_import_crash(&o, crashes.names[i], &r);
			if (r.rc == WEFT_EXIT_BUG) {
				reproduced = true;
				nr_reproduced++;
			}
			else if (r.rc < 0 || r.rc == 127)
				import_unrun = true;
			if (ir.rc != WEFT_EXIT_BUG) {
				free(ir.json);
				ir = r;
			} else {
				free(r.json);
			}
		} else {
			reproduced |= k != WEFT_KIND_NONE;
			nr_reproduced += k != WEFT_KIND_NONE;
			if (!o.json) {
				char tn[256];
				printf("raw crash: %s\nreproduce: %s run %s --lock %s --memory %s "
				       "--strategy bytes --input %s",
				       crashes.names[i], cli_prog, cli_target_name(o.sc, o.vi, tn, sizeof(tn)),
				       o.lock == WEFT_LOCK_TICKET ? "ticket" : "tas",
				       weft_memory_name(o.memory), crashes.names[i]);
				cli_print_program_args(stdout);
				printf("\n");
			}
		}
	}
	if (o.keep_going && nr_imports && !o.json)
		fprintf(stderr, "weft: --keep-going: %u crash%s imported, %u reproduced\n",
			nr_imports, nr_imports == 1 ? "" : "es", nr_reproduced);
	if (can_import && nr_imports && !reproduced && import_unrun && !o.json)
		fprintf(stderr, "weft: fuzz: could not run %s import (exit %d): the crash is "
			"not judged; import it by hand (the command above)\n", cli_prog, ir.rc);
	else if (can_import && nr_imports && !reproduced && !o.json)
		fprintf(stderr, "weft: import did not reproduce the crash (exit %d)\n", ir.rc);

	if (o.json) {
		printf("{\"scenario\": ");
		cli_json_str(stdout, o.sc->name);
		printf(", \"variant\": ");
		cli_json_str(stdout, o.sc->variants[o.vi].name);
		printf(", \"target\": ");
		cli_json_str(stdout, o.target);
		printf(", \"engine\": \"%s\", \"jobs\": %" PRIu64 ", \"seed\": %" PRIu64
		       ", \"feedback\": %s, \"lock\": \"%s\", \"memory\": \"%s\"",
		       o.engine, o.jobs, o.seed, o.no_feedback ? "false" : "true",
		       o.lock == WEFT_LOCK_TICKET ? "ticket" : "tas", weft_memory_name(o.memory));
		printf(", \"verdict\": \"%s\", \"kind\": ",
		       crashes.n ? (reproduced ? "bug" : import_unrun ? "error" : "unreproducible")
				 : "clean");
		if (kind != WEFT_KIND_NONE)
			cli_json_str(stdout, weft_kind_name(kind));
		else
			printf("null");
		bool to_report = crashes.n && execs_to_report;
		printf(", \"executions\": %" PRIu64 ", \"steps\": %" PRIu64
		       ", \"executions_total\": %" PRIu64
		       ", \"seconds\": %.3f, \"exec_per_sec\": %.0f",
		       to_report ? execs_to_report : execs, to_report ? steps_to_report : steps,
		       execs, secs, secs > 0 ? (double)execs / secs : 0.0);
		if (t_crash >= 0)
			printf(", \"seconds_to_crash\": %.3f", t_crash - t_start);
		printf(", \"crashes\": %u, \"crash\": ", crashes.n);
		if (first)
			cli_json_str(stdout, first);
		else
			printf("null");
		printf(", \"artifact\": ");
		if (ir.artifact[0])
			cli_json_str(stdout, ir.artifact);
		else
			printf("null");
		if (!strcmp(o.engine, "afl") && pr.have_stab)
			printf(", \"stability\": %.2f", pr.stability);
		printf(", \"import\": ");
		char *j = ir.json;
		size_t jl = j ? strlen(j) : 0;
		while (jl && (j[jl - 1] == '\n' || j[jl - 1] == ' '))
			j[--jl] = 0;
		if (j && jl && j[0] == '{' && j[jl - 1] == '}')
			fputs(j, stdout);
		else if (j && jl)
			cli_json_str(stdout, j);
		else
			printf("null");
		printf("}\n");
	} else if (!crashes.n) {
		printf("clean: %" PRIu64 " executions in %.1f s, no report (%s %s)\n", execs, secs,
		       o.engine, o.target);
	}
	free(ir.json);
	fuzz_set_free(&crashes);
	if (!nr_imports)
		return WEFT_EXIT_CLEAN;
	return reproduced ? WEFT_EXIT_BUG : import_unrun ? WEFT_EXIT_IO : WEFT_EXIT_DESYNC;
}

