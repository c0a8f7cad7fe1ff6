/*
 * cli_program.c - the weft command in front of an instrumented program
 * (docs/testing-c-programs.md). A program built by weft-cc carries the
 * whole command line in its runtime (libweft_rt); `weft` hands it over:
 *
 *   weft run ./prog [options] [-- args]    a target that is a path to an
 *   weft fuzz ./prog ...                   executable file: exec the program
 *   weft import CRASH --target ./prog      with the command, the path
 *   weft min CRASH --target ./prog
 *                                          replaced by "@weft-program"
 *                                          (rt_main.c puts its scenario
 *                                          there)
 *   weft replay found/x.weft ...           a replay file a program recorded
 *   weft min found/x.weft ...              (its WEFT_RT_PROGRAM section):
 *   weft info found/x.weft                 exec the program the file names,
 *                                          with its arguments and options
 *
 * WEFT_PROGRAM_CLI tells the program it is started as a weft program,
 * WEFT_PROGRAM_AS how the user named it (for the commands it prints).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <weft/replay.h>

#include "cli.h"

#define PLACEHOLDER "@weft-program"

static bool is_program(const char *p)
{
	struct stat st;

	return strchr(p, '/') && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* Flags whose value is a path that is never the target. */
static bool path_flag(const char *f)
{
	static const char *const flags[] = { "--input", "--out", "--html", "--trace-json",
					     "--build-dir", "--target-bin", "-o", NULL };
	for (const char *const *p = flags; *p; p++)
		if (!strcmp(f, *p))
			return true;
	return false;
}

/* Whether the executable at path was linked by weft-cc or weft_instrument():
 * its dynamic symbol table names weft_rt_main, the libweft_rt entry that
 * rt_start.c's __wrap_main calls (a dynamic symbol: strip keeps it). Any
 * other executable would ignore WEFT_PROGRAM_CLI and run natively, so its
 * exit status would pass for a verdict. The file is untrusted: every
 * offset is checked against its size (Elf64 only, as rt_elf.c). */
static bool links_weft_runtime(const char *path)
{
	static const char entry[] = "weft_rt_main";
	FILE *f = fopen(path, "rb");
	unsigned char *img = NULL;
	bool found = false;
	long size;

	if (!f)
		return false;
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < (long)sizeof(Elf64_Ehdr) ||
	    size > (1L << 30) || fseek(f, 0, SEEK_SET) != 0 || !(img = malloc((size_t)size)) ||
	    fread(img, 1, (size_t)size, f) != (size_t)size)
		goto out;
	const Elf64_Ehdr *eh = (const void *)img;
	uint64_t n = (uint64_t)size;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > n ||
	    (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > n - eh->e_shoff)
		goto out;
	const Elf64_Shdr *sh = (const void *)(img + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum && !found; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_offset > n ||
		    sh[i].sh_size > n - sh[i].sh_offset)
			continue;
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		if (str->sh_offset > n || str->sh_size > n - str->sh_offset)
			continue;
		const Elf64_Sym *sym = (const void *)(img + sh[i].sh_offset);
		const char *names = (const char *)img + str->sh_offset;
		for (uint64_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym) && !found; k++)
			found = sym[k].st_name < str->sh_size &&
				str->sh_size - sym[k].st_name >= sizeof(entry) &&
				!memcmp(names + sym[k].st_name, entry, sizeof(entry));
	}
out:
	free(img);
	fclose(f);
	return found;
}

static int exec_program(const char *path, char **argv)
{
	setenv("WEFT_PROGRAM_CLI", "1", 1);
	execv(path, argv);
	return cli_io_error("cannot run %s: %s", path, strerror(errno));
}

int cli_program_handoff(int argc, char **argv)
{
	if (weft_program_self() || argc < 3)
		return -1;
	const char *cmd = argv[1];

	/* import and min name the program with --target only: their
	 * positional argument is a crash or a replay, which may well be an
	 * executable file */
	bool by_target = !strcmp(cmd, "min") || !strcmp(cmd, "import");
	bool has_target = false;
	for (int i = 2; i + 1 < argc && by_target; i++)
		has_target |= !strcmp(argv[i], "--target") && is_program(argv[i + 1]);
	if (!strcmp(cmd, "run") || !strcmp(cmd, "fuzz") || !strcmp(cmd, "stress") ||
	    !strcmp(cmd, "list") || has_target) {
		for (int i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "--"))
				break;
			if (path_flag(argv[i - 1]) || !is_program(argv[i]) ||
			    (by_target && strcmp(argv[i - 1], "--target")))
				continue;
			char **nv = calloc((size_t)argc + 1, sizeof(char *));
			if (!nv)
				return cli_io_error("out of memory");
			nv[0] = argv[i];
			for (int k = 1, j = 1; k < argc; k++)
				nv[j++] = k == i ? (char *)PLACEHOLDER : argv[k];
			if (!links_weft_runtime(argv[i])) {
				free(nv);
				return cli_usage_error("%s is not a weft program: it was not linked "
						       "with libweft_rt (build it with weft-cc or "
						       "weft_instrument(): "
						       "docs/testing-c-programs.md)", argv[i]);
			}
			setenv("WEFT_PROGRAM_AS", argv[i], 1);
			return exec_program(argv[i], nv);
		}
		return -1;
	}
	if (strcmp(cmd, "replay") && strcmp(cmd, "min") && strcmp(cmd, "info"))
		return -1;
	for (int i = 2; i < argc; i++) {
		if (argv[i][0] == '-' || path_flag(argv[i - 1]))
			continue;
		struct weft_replay rf;
		char err[256];
		if (weft_replay_load(argv[i], &rf, err, sizeof(err)) != 0)
			return -1;   /* the command says why */
		bool mine = false;
		for (unsigned s = 0; s < weft_nr_scenarios; s++)
			mine |= !strcmp(weft_scenarios[s]->name, rf.scenario);
		if (!rf.has_program || mine) {
			weft_replay_free(&rf);
			return -1;
		}
		struct stat st;
		if (stat(rf.program.path, &st) != 0) {
			if (!strcmp(cmd, "info")) {
				weft_replay_free(&rf);
				return -1;   /* the metadata is all in the file */
			}
			fprintf(stderr, "weft: %s was recorded by the program %s, which is not there "
				"any more (%s); rebuild it where it was\n", argv[i], rf.program.path,
				strerror(errno));
			weft_replay_free(&rf);
			return WEFT_EXIT_STALE;
		}
		if (!links_weft_runtime(rf.program.path)) {
			if (!strcmp(cmd, "info")) {
				weft_replay_free(&rf);
				return -1;   /* the metadata is all in the file */
			}
			fprintf(stderr, "weft: %s was recorded by the program %s, which is not a "
				"weft program any more (rebuilt without libweft_rt); rebuild it "
				"with weft-cc\n", argv[i], rf.program.path);
			weft_replay_free(&rf);
			return WEFT_EXIT_STALE;
		}
		/* the program, the command, then main()'s arguments */
		char **nv = calloc((size_t)argc + rf.program.argc + 3, sizeof(char *));
		if (!nv)
			return cli_io_error("out of memory");
		int j = 0;
		nv[j++] = strdup(rf.program.path);
		for (int k = 1; k < argc; k++)
			nv[j++] = argv[k];
		nv[j++] = (char *)"--";
		const char *a = rf.program.args;
		for (unsigned k = 0; k < rf.program.argc; k++) {
			nv[j++] = strdup(a);
			a += strlen(a) + 1;
		}
		/* the options that shaped the recording */
		char opts[sizeof(rf.program.options)];
		snprintf(opts, sizeof(opts), "%s", rf.program.options);
		for (char *tok = strtok(opts, " "); tok; tok = strtok(NULL, " ")) {
			char *eq = strchr(tok, '=');
			if (eq && !strncmp(tok, "WEFT_", 5)) {
				*eq = 0;
				setenv(tok, eq + 1, 1);
			}
		}
		setenv("WEFT_PROGRAM_AS", rf.program.path, 1);
		weft_replay_free(&rf);
		return exec_program(nv[0], nv);
	}
	return -1;
}

const char *cli_target_name(const struct weft_scenario *sc, unsigned vi, char *buf, size_t n)
{
	const struct weft_program *pg = weft_program_self();
	const char *as = getenv("WEFT_PROGRAM_AS");

	if (pg)
		snprintf(buf, n, "%s", as && *as ? as : pg->path);
	else
		snprintf(buf, n, "%s:%s", sc->name, sc->variants[vi].name);
	return buf;
}

void cli_print_program_args(FILE *f)
{
	const struct weft_program *pg = weft_program_self();

	if (!pg || !pg->argc)
		return;
	fputs(" --", f);
	for (unsigned i = 0; i < pg->argc; i++) {
		const char *a = pg->argv[i];
		bool plain = *a != 0;
		for (const char *c = a; *c; c++)
			plain &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
				 (*c >= '0' && *c <= '9') || strchr("-_./=:,+", *c);
		if (plain) {
			fprintf(f, " %s", a);
			continue;
		}
		fputs(" '", f);
		for (const char *c = a; *c; c++) {
			if (*c == '\'')
				fputs("'\\''", f);
			else
				fputc(*c, f);
		}
		fputc('\'', f);
	}
}

/* The environment a program needs as its own fuzz target (cmd_fuzz.c):
 * the engine, and main()'s arguments joined by 0x1f (rt_main.c). */
unsigned cli_program_target_env(char **envs, unsigned n)
{
	static char e_args[4096 + 32];
	const struct weft_program *pg = weft_program_self();
	size_t k;

	if (!pg)
		return n;
	envs[n++] = (char *)"WEFT_PROGRAM_ENGINE=libfuzzer";
	/* no code coverage in a program (only its accesses are instrumented):
	 * every interleaving feature goes to the engine's map */
	if (!getenv("WEFT_FUZZ_FEATURES"))
		envs[n++] = (char *)"WEFT_FUZZ_FEATURES=all";
	k = (size_t)snprintf(e_args, sizeof(e_args), "WEFT_PROGRAM_ARGS=");
	for (unsigned i = 0; i < pg->argc && k < sizeof(e_args); i++)
		k += (size_t)snprintf(e_args + k, sizeof(e_args) - k, "%s%s", i ? "\x1f" : "",
				      pg->argv[i]);
	envs[n++] = e_args;
	return n;
}

/* argv[0..n) of a weft command run by this program on itself ("import"):
 * the scenario as "@weft-program", "--" and main()'s arguments appended;
 * WEFT_PROGRAM_CLI set for the child. Returns the new count. */
unsigned cli_program_self_argv(char **argv, unsigned n, unsigned cap)
{
	const struct weft_program *pg = weft_program_self();

	if (!pg)
		return n;
	setenv("WEFT_PROGRAM_CLI", "1", 1);
	if (n + pg->argc + 2 > cap)
		return n;
	argv[n++] = (char *)"--";
	for (unsigned i = 0; i < pg->argc; i++)
		argv[n++] = pg->argv[i];
	argv[n] = NULL;
	return n;
}

bool cli_last_unrecorded(const struct weft_exec_result *r, char *why, size_t n)
{
	size_t nd, nc;

	weft_last_decisions(&nd);
	weft_last_choices(&nc);
	if (r->decisions > nd)
		snprintf(why, n,
			 "not replayable: the execution took %" PRIu32 " scheduling decisions, more "
			 "than the %zu a replay records, so it has no reproducer and no .weft file and "
			 "its determinism is not checked (a shorter run, with fewer loop iterations or "
			 "--steps %zu at most, can be replayed)",
			 r->decisions, nd, nd);
	else if (r->nr_choices > nc)
		snprintf(why, n,
			 "not replayable: the execution drew %" PRIu32 " values (__VERIFIER_nondet_*, "
			 "weft_choose), more than the %zu a replay records, so it has no reproducer "
			 "and no .weft file and its determinism is not checked (a shorter run, with "
			 "fewer draws, can be replayed)",
			 r->nr_choices, nc);
	else
		return false;
	return true;
}

void cli_print_reproduce(const struct weft_scenario *sc, unsigned vi, enum weft_lock_model lock,
			 enum weft_memory_model memory, const uint8_t *repro, size_t len)
{
	size_t nwit;
	char tn[256];

	weft_lockdep_last_witness(&nwit);
	if (nwit) {
		printf("(the report relies on the lock order of an earlier execution of this "
		       "run: only its replay file, which carries it, reproduces it alone)\n");
		return;
	}
	if (!len)
		return;
	printf("reproduce: %s run %s --lock %s%s%s --strategy bytes --input-hex ", cli_prog,
	       cli_target_name(sc, vi, tn, sizeof(tn)), lock == WEFT_LOCK_TICKET ? "ticket" : "tas",
	       memory ? " --memory " : "", memory ? weft_memory_name(memory) : "");
	cli_hex_print(stdout, repro, len);
	cli_print_program_args(stdout);
	printf("\n");
}
