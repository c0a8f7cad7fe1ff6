/*
 * test_spawn_cpu.c - where weft_pthread_create puts a thread
 * (WEFT_CPU_ANY): with WEFT_CHECK_SPAWN_CPU, each of main's 3 children on
 * a CPU of its own (CPUs 1, 2, 3 of 4: verdict-threads:cpus audits it);
 * without it, as files recorded before it replay, on the CPU after its
 * creator's (every child of main on CPU 1, the audit fails on child 2).
 */
#include <string.h>

#include <weft/strategy.h>

#include "check.h"

static enum weft_kind run(unsigned checks, char *msg, size_t n)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("verdict-threads:cpus", &vi);
	static struct weft_bytes b;
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .checks = checks };
	struct weft_exec_result r;

	weft_bytes_init(&b, sc, NULL, 0);
	if (weft_execute(&o, &weft_strategy_bytes, &b, &r) < 0)
		return (enum weft_kind)-1;
	snprintf(msg, n, "%s", r.report.msg);
	return r.kind;
}

int main(void)
{
	char msg[200];
	enum weft_kind k = run(WEFT_CHECKS_DEFAULT, msg, sizeof(msg));

	CHECK(k == WEFT_KIND_NONE, "each child on its own CPU: %s (%s)", weft_kind_name(k), msg);
	k = run(WEFT_CHECKS_DEFAULT & ~WEFT_CHECK_SPAWN_CPU, msg, sizeof(msg));
	CHECK(k == WEFT_KIND_ASSERT && strstr(msg, "child 2 ran on CPU1"),
	      "recorded before it: children after their creator's CPU, got %s (%s)",
	      weft_kind_name(k), msg);
	return check_done();
}
