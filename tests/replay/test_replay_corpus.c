/*
 * test_replay_corpus.c
 *
 *   test_replay_corpus regressions DIR
 *	Every .weft file in DIR must bind to this build (not stale) and replay to
 *	its recorded verdict and trace hash; its raw fuzzer input, run with
 *	the bytes strategy as weft replay --variant runs it (the file's lock,
 *	memory model and store delays), must report the recorded kind on the
 *	file's own variant and be clean on every fixed (non-buggy) variant of
 *	the same scenario (docs/replay-format.md, "regressions"). Every
 *	buggy zoo variant must have a file (z1b under both lock models).
 *
 *   test_replay_corpus minimal
 *	For every buggy zoo variant: take its trigger workload, find its bug
 *	with the random strategy (a schedule with many preemptions), minimize
 *	it, and require the known minimal preemption count of ZOO.md (Z1b: 1
 *	with the tas lock, 2 with the ticket lock).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include <weft/replay.h>

#include "check.h"
#include "regressions.h"

static void regressions(const char *dir)
{
	DIR *d = opendir(dir);
	unsigned files = 0, hashed = 0;
	char path[4096], err[300];
	struct weft_replay rf;
	/* which buggy variants (x lock) have a file */
	bool have[64 * 16][2];

	memset(have, 0, sizeof(have));
	CHECK(d != NULL, "cannot open %s", dir);
	if (!d)
		return;
	while (regression_next(d, dir, path, sizeof(path), &rf)) {
		files++;
		const struct weft_scenario *sc;
		unsigned vi;
		int rc = weft_replay_bind(&rf, &sc, &vi, err, sizeof(err));
		CHECK(rc == 0, "%s: %s (re-make it: tests/replay/make-regressions.sh)", path, err);
		if (rc) {
			weft_replay_free(&rf);
			continue;
		}
		struct weft_replay_check c;
		CHECK(weft_replay_execute(&rf, sc, vi, &c) == 0 && c.reproduced &&
		      c.r.kind != WEFT_KIND_NONE, "%s: does not reproduce: %s", path, c.why);
		/* the last periodic state hash changed: the replay finds that the
		 * model computed other values between the same decisions */
		if (rf.nr_state_hashes) {
			struct weft_replay_check t;
			rf.state_hashes[rf.nr_state_hashes - 1] ^= 1;
			CHECK(weft_replay_execute(&rf, sc, vi, &t) == 0 && t.desync && !t.reproduced,
			      "%s: a changed state hash replays: %s", path, t.why);
			rf.state_hashes[rf.nr_state_hashes - 1] ^= 1;
			hashed++;
		}
		unsigned si = 0;
		while (si < weft_nr_scenarios && weft_scenarios[si] != sc)
			si++;
		if (si * 16 + vi < 64 * 16)
			have[si * 16 + vi][rf.lock & 1] = true;
		/* the raw input, run as weft replay --variant runs it (the file's
		 * lock, memory model and store delays), fails on its own variant
		 * as recorded: else its fixed variants' silence below proves
		 * nothing (a weak-memory file's input without its delays is
		 * clean everywhere) */
		struct weft_run_opts o;
		struct weft_exec_result r;
		int erc = weft_replay_run_input(&rf, sc, vi, false, &o, &r);
		CHECK(erc == 0 && r.kind == rf.kind,
		      "%s: its raw input on its own variant %s reports %s, not the recorded %s "
		      "(rc %d)", path, rf.variant, weft_kind_name(r.kind), weft_kind_name(rf.kind),
		      erc);
		/* the raw input on each fixed variant: clean */
		unsigned fixed = 0;
		for (unsigned v = 0; v < sc->nr_variants && !erc; v++) {
			if (sc->variants[v].buggy)
				continue;
			CHECK(weft_replay_run_input(&rf, sc, v, false, &o, &r) == 0 &&
			      r.kind == WEFT_KIND_NONE, "%s: fixed variant %s reports %s", path,
			      sc->variants[v].name, weft_kind_name(r.kind));
			fixed++;
		}
		printf("  %s: %s %s:%s (%s), %u fixed variants clean\n", strrchr(path, '/') + 1,
		       weft_kind_name(c.r.kind), rf.scenario, rf.variant,
		       rf.lock ? "ticket" : "tas", fixed);
		weft_replay_free(&rf);
	}
	closedir(d);
	CHECK(files >= 5, "only %u replay files in %s", files, dir);
	CHECK(hashed >= 3, "only %u replay files in %s have state hashes", hashed, dir);
	for (unsigned si = 0; si < weft_nr_scenarios && si < 64; si++) {
		const struct weft_scenario *sc = weft_scenarios[si];
		for (unsigned v = 0; v < sc->nr_variants; v++) {
			if (!sc->variants[v].buggy || !sc->variants[v].zoo || v >= 16)
				continue;
			CHECK(have[si * 16 + v][0] || have[si * 16 + v][1],
			      "no regression replay for %s:%s", sc->name, sc->variants[v].name);
			if (!strcmp(sc->variants[v].name, "z1b"))
				CHECK(have[si * 16 + v][0] && have[si * 16 + v][1],
				      "z1b needs a replay under both lock models");
		}
	}
}

static void minimal_one(const struct weft_scenario *sc, unsigned vi, enum weft_lock_model lock,
			unsigned expect)
{
	const struct weft_variant *va = &sc->variants[vi];
	uint8_t wl[WEFT_INPUT_MAX];
	size_t wl_len = weft_trigger_workload(sc, vi, wl, sizeof(wl));
	struct weft_random rnd;
	/* a weak-memory entry: under its model, one delayed store at most */
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = lock,
				   .memory = (uint8_t)sc->memory };
	struct weft_exec_result r;
	bool found = false;

	/* a lockdep report (z12's) needs lockdep-lite, on by default in the CLI */
	if (va->expect_kind == WEFT_KIND_LOCK_ORDER || va->expect_kind == WEFT_KIND_IRQ_LOCK_INVERSION)
		o.checks = WEFT_CHECKS_DEFAULT;

	/* the seed bug: kind and site of the first bug DFS finds, bounds
	 * tried upwards (its preemption count is the minimum) */
	static struct weft_dfs dfs;
	uint32_t site = 0;
	unsigned dfs_pre = 0;
	for (unsigned b = 0; b <= 3 && !found; b++) {
		weft_dfs_init(&dfs, sc, b, wl, wl_len);
		dfs.delay_bound = 1;
		for (unsigned it = 0; it < 200000 && !found; it++) {
			if (weft_execute(&o, &weft_strategy_dfs, &dfs, &r) < 0)
				break;
			found = r.kind == va->expect_kind;
		}
	}
	CHECK(found, "%s:%s (%s): dfs found no %s", sc->name, va->name, lock ? "ticket" : "tas",
	      weft_kind_name(va->expect_kind));
	if (!found)
		return;
	site = r.report.here.site ? r.report.here.site->id : 0;
	dfs_pre = r.preemptions;
	CHECK(dfs_pre == expect, "%s:%s (%s): dfs needs %u preemptions, ZOO.md says %u",
	      sc->name, va->name, lock ? "ticket" : "tas", dfs_pre, expect);
	found = false;
#define SAME(r) ((r).kind == va->expect_kind && (r).report.here.site && \
		 (r).report.here.site->id == site)
	/* the same bug under a random (then PCT) schedule of the trigger
	 * workload: typically far more preemptions than needed */
	weft_random_init(&rnd, sc, 1, wl_len ? wl : NULL, wl_len);
	for (unsigned it = 0; it < 100000 && !found; it++) {
		if (weft_execute(&o, &weft_strategy_random, &rnd, &r) < 0)
			break;
		found = SAME(r);
	}
	for (unsigned depth = 3; depth <= 4 && !found; depth++) {
		static struct weft_pct pct;
		weft_pct_init(&pct, sc, 1, depth, wl_len ? wl : NULL, wl_len);
		for (unsigned it = 0; it < 100000 && !found; it++) {
			if (weft_execute(&o, &weft_strategy_pct, &pct, &r) < 0)
				break;
			found = SAME(r);
		}
	}
	CHECK(found, "%s:%s (%s): random and pct found no %s", sc->name, va->name,
	      lock ? "ticket" : "tas", weft_kind_name(va->expect_kind));
	if (!found)
		return;
	uint8_t out[WEFT_INPUT_MAX];
	size_t out_len;
	struct weft_min_result mr;
	int rc = weft_minimize_last(&o, &r, out, &out_len, &mr);
	CHECK(rc == 0, "%s:%s: minimizer failed (%d)", sc->name, va->name, rc);
	if (rc)
		return;
	CHECK(mr.after.preemptions == expect, "%s:%s (%s): %u preemptions after minimizing, "
	      "ZOO.md says %u", sc->name, va->name, lock ? "ticket" : "tas",
	      mr.after.preemptions, expect);
	CHECK(mr.final.kind == va->expect_kind, "%s:%s: the kind changed", sc->name, va->name);
	printf("  %s:%s (%s): preemptions %u -> %u, ops %u -> %u, steps %u -> %u, bytes %u -> %u, "
	       "%llu executions, %.3f s\n", sc->name, va->name, lock ? "ticket" : "tas",
	       mr.before.preemptions, mr.after.preemptions, mr.before.ops, mr.after.ops,
	       mr.before.steps, mr.after.steps, mr.before.bytes, mr.after.bytes,
	       (unsigned long long)mr.executions, mr.seconds);
}

static void minimal(void)
{
	unsigned n = 0;

	for (unsigned si = 0; si < weft_nr_scenarios; si++) {
		const struct weft_scenario *sc = weft_scenarios[si];
		for (unsigned v = 0; v < sc->nr_variants; v++) {
			const struct weft_variant *va = &sc->variants[v];
			if (!va->buggy || !va->zoo)
				continue;
			minimal_one(sc, v, WEFT_LOCK_TAS, va->min_preemptions);
			if (!strcmp(va->name, "z1b"))
				minimal_one(sc, v, WEFT_LOCK_TICKET, 2);
			n++;
		}
	}
	CHECK(n >= 4, "only %u buggy zoo variants in this build", n);
}

/* One replay, by path: 1 reproduced, 0 not, -1 unreadable. */
static int replay_one(const char *path, enum weft_kind *kind)
{
	char err[300];
	struct weft_replay rf;
	const struct weft_scenario *sc;
	unsigned vi;
	struct weft_replay_check c;
	int ok;

	if (weft_replay_load(path, &rf, err, sizeof(err)))
		return -1;
	if (weft_replay_bind(&rf, &sc, &vi, err, sizeof(err))) {
		weft_replay_free(&rf);
		return -1;
	}
	ok = weft_replay_execute(&rf, sc, vi, &c) == 0 && c.reproduced;
	if (kind)
		*kind = c.r.kind;
	weft_replay_free(&rf);
	return ok;
}

/* Every replay reproduces whatever ran before it in the process: after
 * each lost wake-up (which ends with a sleeper's wait-list entry still
 * TASK_UNINTERRUPTIBLE). Growing the world once restarted the machine's
 * epoch, so z11's replay right after one, in a process whose world was
 * smaller, saw that entry as its own and reported "do not call blocking
 * ops when !TASK_RUNNING". Each pair runs in a fresh child process, so
 * the first replay's world is the process's first. */
static void order(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	static char paths[128][300];
	unsigned n = 0, pairs = 0;

	CHECK(d != NULL, "cannot open %s", dir);
	if (!d)
		return;
	while ((de = readdir(d)) && n < 128) {
		size_t l = strlen(de->d_name);
		if (l >= 6 && !strcmp(de->d_name + l - 5, ".weft"))
			snprintf(paths[n++], sizeof(paths[0]), "%s/%s", dir, de->d_name);
	}
	closedir(d);
	for (unsigned i = 0; i < n; i++) {
		if (!strstr(paths[i], "/lost-wakeup-"))
			continue;
		for (unsigned j = 0; j < n; j++) {
			if (j == i)
				continue;
			fflush(stdout);
			pid_t pid = fork();
			if (pid == 0)
				_exit(replay_one(paths[i], NULL) == 1 && replay_one(paths[j], NULL) == 1
					      ? 0 : 1);
			int st = 0;
			CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
			      WEXITSTATUS(st) == 0, "%s does not reproduce after %s", paths[j],
			      paths[i]);
			pairs++;
		}
	}
	printf("%u replays after a lost wake-up\n", pairs);
	CHECK(pairs >= 100, "only %u pairs", pairs);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "regressions"))
		regressions(argv[2]);
	else if (argc >= 3 && !strcmp(argv[1], "order"))
		order(argv[2]);
	else if (argc >= 2 && !strcmp(argv[1], "minimal"))
		minimal();
	else {
		fprintf(stderr, "usage: test_replay_corpus regressions DIR | order DIR | minimal\n");
		return 2;
	}
	return check_done();
}
