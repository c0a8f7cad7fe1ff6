/*
 * cli.c - shared helpers of the weft subcommands, and `weft list`,
 * `weft help`, `weft version`.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "cli.h"
#include "help.h"

void cli_print_stats(FILE *f, const struct weft_scenario *sc, bool json)
{
	const char *names[32];
	uint64_t vals[32];
	unsigned n;

	if (!sc->stats)
		return;
	n = sc->stats(weft_last_world(), names, vals, 32);
	for (unsigned i = 0; i < n; i++) {
		if (json) {
			fprintf(f, "%s", i ? ", " : "");
			cli_json_str(f, names[i]);
			fprintf(f, ": %llu", (unsigned long long)vals[i]);
		} else {
			fprintf(f, "%-28s %llu\n", names[i], (unsigned long long)vals[i]);
		}
	}
}

/* ----------------------------------------------------------------- list */

int cmd_list(int argc, char **argv)
{
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else
			return cli_usage_error("list: unknown argument '%s' (try %s help list)",
					       argv[i], cli_prog);
	}
	if (json)
		printf("[");
	bool first = true;
	for (unsigned i = 0; i < weft_nr_scenarios; i++) {
		const struct weft_scenario *sc = weft_scenarios[i];
		if (!json) {
			/* a weak-memory entry: the model its bugs need */
			char mem[40] = "";
			if (sc->memory)
				snprintf(mem, sizeof(mem), ", --memory %s",
					 weft_memory_name((enum weft_memory_model)sc->memory));
			printf("%s  (%u CPU%s%s) %s\n    source: %s\n", sc->name, sc->nr_cpus,
			       sc->nr_cpus == 1 ? "" : "s", mem, sc->summary, sc->source);
		}
		for (unsigned v = 0; v < sc->nr_variants; v++) {
			const struct weft_variant *va = &sc->variants[v];
			if (!json) {
				printf("  %-28s %-5s %-24s %s\n", va->name,
				       va->buggy ? "bug" : "clean", va->zoo ? va->zoo : "-",
				       va->summary);
				continue;
			}
			printf("%s\n  {\"scenario\": ", first ? "" : ",");
			first = false;
			cli_json_str(stdout, sc->name);
			printf(", \"variant\": ");
			cli_json_str(stdout, va->name);
			printf(", \"expect\": \"%s\", \"cpus\": %u, \"threads\": %u, \"memory\": \"%s\"",
			       va->buggy ? "bug" : "clean", sc->nr_cpus, sc->nr_threads,
			       weft_memory_name((enum weft_memory_model)sc->memory));
			printf(", \"zoo\": ");
			if (va->zoo)
				cli_json_str(stdout, va->zoo);
			else
				printf("null");
			if (va->buggy)
				printf(", \"kind\": \"%s\", \"min_preemptions\": %u",
				       weft_kind_name(va->expect_kind), va->min_preemptions);
			printf(", \"summary\": ");
			cli_json_str(stdout, va->summary);
			printf(", \"source\": ");
			cli_json_str(stdout, va->source && *va->source ? va->source : sc->source);
			printf(", \"fingerprint\": \"%016llx\"}",
			       (unsigned long long)weft_scenario_fingerprint(sc));
		}
	}
	if (json)
		printf("\n]\n");
	return WEFT_EXIT_CLEAN;
}

/* ------------------------------------------------------------- dispatch */

/* `weft COMMAND ... --help` (or -h) anywhere before a `--`: COMMAND's help,
 * exit 0, as `weft help COMMAND` (what a user types first). */
static bool asks_for_help(int argc, char **argv)
{
	if (argc < 3 || !weft_help_text(argv[1]))
		return false;
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

int weft_cli_main(int argc, char **argv)
{
	if (asks_for_help(argc, argv))
		return cmd_help(2, argv);
	int handed = cli_program_handoff(argc, argv);
	if (handed >= 0)
		return handed;
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(1, argv);
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv);
#define X(name, fn, summary)                                                   \
	if (!strcmp(argv[1], #name))                                           \
		return fn(argc - 1, argv + 1);
#include "commands.def"
#undef X
	return cli_usage_error("unknown command '%s' (%s help lists them)", argv[1], cli_prog);
}

/* ----------------------------------------------------------- help, version */

int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: %s COMMAND [ARGS]\n\ncommands:\n", cli_prog);
#define X(name, fn, summary) printf("  %-9s %s\n", #name, summary);
#include "commands.def"
#undef X
		printf("\n%s help COMMAND (or COMMAND --help) shows every flag of COMMAND.\n"
		       "exit codes: 0 clean, 1 bug found (or limit-reached: no verdict), 2 usage error,\n"
		       "            3 I/O or format error, 4 replay diverged (DESYNC),\n"
		       "            5 replay file made by another model\n",
		       cli_prog);
		return WEFT_EXIT_CLEAN;
	}
	const char *text = weft_help_text(argv[1]);
	if (!text)
		return cli_usage_error("help: no command '%s'", argv[1]);
	cli_print_help(stdout, text);
	return WEFT_EXIT_CLEAN;
}

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (strcmp(cli_prog, "weft"))
		printf("%s (weft %s)\n", cli_prog, WEFT_VERSION_STRING);
	else
		printf("weft %s\n", WEFT_VERSION_STRING);
	return WEFT_EXIT_CLEAN;
}
