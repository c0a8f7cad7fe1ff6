/*
 * fuzz_engines.c - `weft fuzz`: starting libFuzzer (-fork=N) or AFL++ (-M and
 * -S instances, the genome mutator) on the target, and reading their
 * progress (coverage, corpus, stability) for the 2 s report.
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

/* ---------------------------------------------------------- progress */

/* libFuzzer: the last "cov: N ft: N corp: N/..." of the log. */
void fuzz_libfuzzer_progress(const char *log, struct progress *p)
{
	FILE *f = fopen(log, "r");
	char line[1024];
	long sz;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, sz > 65536 ? sz - 65536 : 0, SEEK_SET);
	while (fgets(line, sizeof(line), f)) {
		const char *c = strstr(line, " cov: "), *t = strstr(line, " ft: "),
			   *k = strstr(line, " corp: ");
		if (c && t) {
			p->cov = strtoul(c + 6, NULL, 10);
			p->ft = strtoul(t + 5, NULL, 10);
			p->corp = k ? strtoul(k + 7, NULL, 10) : p->corp;
			p->have_cov = true;
		}
	}
	fclose(f);
}

/* AFL++: fuzzer_stats of the main instance. */
void fuzz_afl_progress(const struct fuzz_opts *o, struct progress *p)
{
	char path[PATH_MAX + 400], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/afl/main/fuzzer_stats", o->work);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		if (!strncmp(line, "edges_found", 11)) {
			p->cov = strtoul(colon + 1, NULL, 10);
			p->have_cov = true;
		} else if (!strncmp(line, "corpus_count", 12)) {
			p->corp = strtoul(colon + 1, NULL, 10);
		} else if (!strncmp(line, "stability", 9)) {
			p->stability = strtod(colon + 1, NULL);
			p->have_stab = true;
		}
	}
	fclose(f);
}

/* ------------------------------------------------------------ engines */

/* libFuzzer flags from corpus/<target>.options ([libfuzzer] key = value). */
static unsigned read_options(const struct fuzz_opts *o, char flags[][128], unsigned max)
{
	char path[PATH_MAX + 300], line[256];
	bool in_lf = false;
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.options", o->src, o->target);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < max) {
		char key[64], val[64];
		if (line[0] == '[') {
			in_lf = !strncmp(line, "[libfuzzer]", 11);
			continue;
		}
		if (in_lf && sscanf(line, " %63[A-Za-z_] = %60s", key, val) == 2 &&
		    snprintf(flags[n], sizeof(flags[0]), "-%s=%s", key, val) < (int)sizeof(flags[0]))
			n++;
	}
	fclose(f);
	return n;
}

/* WEFT_FUZZ_SEEDS: corpus (the seed folder first) or none (default for
 * libFuzzer: the empty input). */
static bool seeds_wanted(void)
{
	const char *e = getenv("WEFT_FUZZ_SEEDS");

	return e && !strcmp(e, "corpus");
}

pid_t fuzz_start_libfuzzer(const struct fuzz_opts *o, int logfd, char *const envs[])
{
	static char a_seed[64], a_time[64], a_art[PATH_MAX + 400], a_dict[PATH_MAX + 400 + sizeof("-dict=")],
		a_fork[64], a_corpus[PATH_MAX + 400], a_seeds[PATH_MAX + 400], opt[16][128];
	char *argv[48];
	unsigned n = 0;

	argv[n++] = (char *)o->bin;
	snprintf(a_seed, sizeof(a_seed), "-seed=%" PRIu64, o->seed);
	argv[n++] = a_seed;
	snprintf(a_time, sizeof(a_time), "-max_total_time=%" PRIu64, o->time);
	argv[n++] = a_time;
	snprintf(a_art, sizeof(a_art), "-artifact_prefix=%s/crashes/", o->work);
	argv[n++] = a_art;
	argv[n++] = "-print_final_stats=1";
	/* Entropic's per-feature frequency bookkeeping was 36 % of the Z1
	 * target's instructions (its state-bucket features number in the
	 * thousands): -entropic=0 takes the target from 2.31x to 1.17x the
	 * instructions per step of in-process execution, at no measured cost
	 * in executions to the bug (docs/fuzzing.md, "libFuzzer's overhead").
	 * A target's .options (read after this) can turn it back on. */
	argv[n++] = "-entropic=0";
	if (o->dict[0]) {
		snprintf(a_dict, sizeof(a_dict), "-dict=%s", o->dict);
		argv[n++] = a_dict;
	}
	unsigned no = read_options(o, opt, 16);
	for (unsigned i = 0; i < no; i++)
		argv[n++] = opt[i];
	if (o->jobs > 1 || o->keep_going) {
		snprintf(a_fork, sizeof(a_fork), "-fork=%" PRIu64, o->jobs);
		argv[n++] = a_fork;
		if (o->keep_going)
			argv[n++] = "-ignore_crashes=1";
	}
	snprintf(a_corpus, sizeof(a_corpus), "%s/corpus", o->work);
	argv[n++] = a_corpus;
	/* libFuzzer runs every seed before its first mutation: the 33
	 * generated seeds of a target were a floor of ~35 executions, 17x
	 * random's median on Z8 and 23x on Z10. From the empty input alone,
	 * every early mutation is a fresh genome (a parent without ops), a
	 * random search with feedback (docs/fuzzing.md, "Where the executions
	 * go"); WEFT_FUZZ_SEEDS=corpus brings the seeds back. */
	if (o->seeds[0] && seeds_wanted()) {
		snprintf(a_seeds, sizeof(a_seeds), "%s", o->seeds);
		argv[n++] = a_seeds;
	}
	argv[n] = NULL;
	return fuzz_spawn(argv, logfd, envs);
}

/* AFL++ wants non-empty seeds: copy them, the empty one as the serial
 * genome FF C1 (the serial run of the empty workload, which the single 0
 * byte written here before meant: an input of 0 or 1 bytes is now a fresh
 * genome, weft_raw_input, which may report, and afl-fuzz refuses to start
 * on a seed that crashes when it calibrates the seeds). */
static int afl_inputs(const struct fuzz_opts *o, char *dir, size_t cap)
{

	struct name_set s = { .n = 0 };
	unsigned written = 0;

	snprintf(dir, cap, "%s/afl-in", o->work);
	if (fuzz_mkdirs(dir))
		return -1;
	/* as libFuzzer: the empty input alone unless WEFT_FUZZ_SEEDS=corpus
	 * (AFL++ fuzzes its first queue entry a whole havoc stage long: from
	 * a generated seed those were local edits of one genome) */
	if (o->seeds[0] && seeds_wanted())
		fuzz_list_files(o->seeds, "", "", &s);
	for (unsigned i = 0; i <= s.n; i++) {
		static uint8_t buf[65536];
		long len = 0;
		if (i < s.n) {
			len = cli_read_file(s.names[i], buf, sizeof(buf));
			if (len < 0)
				continue;
		}
		if (len == 0) {
			buf[0] = WEFT_GENOME_MAGIC0;
			buf[1] = WEFT_GENOME_MAGIC1;
			len = 2;
		}
		char p[PATH_MAX + 400];
		FILE *f = NULL;
		if (snprintf(p, sizeof(p), "%s/seed-%u", dir, i) < (int)sizeof(p))
			f = fopen(p, "wb");
		if (!f || fwrite(buf, 1, (size_t)len, f) != (size_t)len || fclose(f)) {
			fuzz_set_free(&s);
			return -1;
		}
		written++;
	}
	fuzz_set_free(&s);
	return written ? 0 : -1;
}

int fuzz_start_afl(const struct fuzz_opts *o, int logfd, char *const envs[], pid_t *pids)
{
	char in[PATH_MAX + 400], outd[PATH_MAX + 400], dict[PATH_MAX + 400];
	char seed[32], tm[32], name[32];

	if (afl_inputs(o, in, sizeof(in)))
		return cli_io_error("fuzz: cannot prepare AFL++ inputs in %s/afl-in", o->work);
	snprintf(outd, sizeof(outd), "%s/afl", o->work);
	snprintf(dict, sizeof(dict), "%s", o->dict);
	snprintf(tm, sizeof(tm), "%" PRIu64, o->time);
	for (uint64_t j = 0; j < o->jobs; j++) {
		char *argv[24];
		unsigned n = 0;
		snprintf(seed, sizeof(seed), "%" PRIu64, o->seed + j);
		if (j)
			snprintf(name, sizeof(name), "s%" PRIu64, j);
		else
			snprintf(name, sizeof(name), "main");
		argv[n++] = "afl-fuzz";
		argv[n++] = "-i";
		argv[n++] = in;
		argv[n++] = "-o";
		argv[n++] = outd;
		argv[n++] = j ? "-S" : "-M";
		argv[n++] = name;
		argv[n++] = "-s";
		argv[n++] = seed;
		argv[n++] = "-V";
		argv[n++] = tm;
		if (fuzz_is_file(dict)) {
			argv[n++] = "-x";
			argv[n++] = dict;
		}
		argv[n++] = "--";
		argv[n++] = (char *)o->bin;
		argv[n] = NULL;
		pids[j] = fuzz_spawn(argv, logfd, envs);
		if (pids[j] < 0)
			return cli_io_error("fuzz: cannot start afl-fuzz");
	}
	return 0;
}

