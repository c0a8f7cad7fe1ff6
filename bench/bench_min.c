/*
 * bench_min.c - minimization (section min of `weft bench`): `weft min` on
 * a finding of each buggy variant, before -> after.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/*
 * An input to minimize: the first finding, over random then pct d=3 then
 * pct d=2 and seeds 1..5, that has a bytes reproducer (`weft run` prints an
 * empty "input" when the schedule needs more than WEFT_MAX_ENTRIES entries,
 * as random's many preemptions often do). src names where it came from.
 */
static bool finding_input(const struct bvariant *v, char *hex, size_t n, char *src, size_t sn)
{
	static const struct {
		const char *strategy;
		unsigned depth;
	} from[] = { { "random", 0 }, { "pct", 3 }, { "pct", 2 } };
	bool ok = false;

	for (unsigned k = 0; k < 3 && !ok; k++) {
		for (unsigned seed = 1; seed <= 5 && !ok && !bench_budget_spent(); seed++) {
			struct argv_buf a;
			struct child c;
			bench_av_init(&a, bench_self);
			bench_av_add(&a, "run");
			bench_av_add(&a, "%s:%s", v->scenario, v->variant);
			bench_av_add(&a, "--strategy");
			bench_av_add(&a, "%s", from[k].strategy);
			if (from[k].depth) {
				bench_av_add(&a, "--depth");
				bench_av_add(&a, "%u", from[k].depth);
			}
			bench_av_add(&a, "--seed");
			bench_av_add(&a, "%u", seed);
			bench_av_add(&a, "--iterations");
			bench_av_add(&a, "%u", B.quick ? 2000u : 20000u);
			if (v->kind[0]) {
				bench_av_add(&a, "--kind");
				bench_av_add(&a, "%s", v->kind);
			}
			bench_av_add(&a, "--quiet");
			bench_av_add(&a, "--json");
			bench_run_child(a.v, 120, true, &c);
			struct jnode *j = bench_child_json(&c);
			/* a clean run reports its last execution's input too */
			const char *in = bench_jstr(j, "input"), *verdict = bench_jstr(j, "verdict");
			if (in && *in && strlen(in) < n && verdict && !strcmp(verdict, "bug")) {
				snprintf(hex, n, "%s", in);
				if (from[k].depth)
					snprintf(src, sn, "pct-d%u seed %u", from[k].depth, seed);
				else
					snprintf(src, sn, "random seed %u", seed);
				ok = true;
			}
			bench_jfree(j);
			bench_child_free(&c);
		}
	}
	return ok;
}

static void min_field(const struct jnode *o, const char *key, char *buf, size_t n)
{
	const struct jnode *k = bench_jget(o, key);

	if (k && k->t == J_NUM)
		snprintf(buf, n, "%.0f", k->num);
	else
		snprintf(buf, n, "-");
}

void bench_section_min(void)
{
	/* weft min --json (tools/cmd_import.c): before/after {preemptions, ops,
	 * steps, bytes, threads}, executions, seconds */
	static const char *const fields[] = { "preemptions", "ops", "steps", "bytes" };

	fprintf(md, "## Minimization (weft min on a finding of random or pct)\n\n");
	fprintf(md, "| variant | input from | preemptions | operations | steps | bytes | executions "
		    "| seconds | note |\n|---|---|---|---|---|---|---:|---:|---|\n");
	bench_js_section("minimization");
	for (unsigned i = 0; i < bench_nr_vars; i++) {
		const struct bvariant *v = &bench_vars[i];
		char why[600] = "", hex[2048], path[PATH_MAX + 64], src[48] = "";
		struct jnode *n = NULL;
		struct child c = { .status = -1 };

		if (!v->buggy || !bench_selected(v))
			continue;
		if (!B.have_min) {
			snprintf(why, sizeof(why), "this weft has no `min` subcommand yet");
		} else if (bench_budget_spent()) {
			snprintf(why, sizeof(why), "time budget spent");
		} else if (!finding_input(v, hex, sizeof(hex), src, sizeof(src))) {
			snprintf(why, sizeof(why), "no finding with a bytes reproducer from random, "
				 "pct d=3, pct d=2 (seeds 1..5, %u executions each)",
				 B.quick ? 2000u : 20000u);
		} else {
			/* the raw bytes input, as a fuzzer would have saved it */
			uint8_t raw[1024];
			long len = cli_hex_decode(hex, raw, sizeof(raw));
			snprintf(path, sizeof(path), "%s/min-%s-%s.input", B.out, v->scenario,
				 v->variant);
			FILE *f = len >= 0 ? fopen(path, "wb") : NULL;
			if (!f || fwrite(raw, 1, (size_t)len, f) != (size_t)len) {
				snprintf(why, sizeof(why), "cannot write the input file: %s",
					 strerror(errno));
			} else {
				struct argv_buf a;
				fclose(f);
				f = NULL;
				bench_av_init(&a, bench_self);
				bench_av_add(&a, "min");
				bench_av_add(&a, "%s", path);
				bench_av_add(&a, "--target");
				bench_av_add(&a, "%s:%s", v->scenario, v->variant);
				bench_av_add(&a, "--out");
				bench_av_add(&a, "%s/min", B.out);
				bench_av_add(&a, "--json");
				bench_run_child(a.v, B.quick ? 30 : 300, true, &c);
				n = bench_child_json(&c);
				if (!n || n->t != J_OBJ || c.status > 1)
					bench_child_why(&c, why, sizeof(why));
			}
			if (f)
				fclose(f);
		}
		const struct jnode *before = bench_jget(n, "before"), *after = bench_jget(n, "after");
		char cell[4][64];
		for (unsigned k = 0; k < 4; k++) {
			char x[24], y[24];
			min_field(before, fields[k], x, sizeof(x));
			min_field(after, fields[k], y, sizeof(y));
			snprintf(cell[k], sizeof(cell[k]), "%s → %s", x, y);
		}
		double secs = n ? bench_jnum(n, "seconds", c.seconds) : -1;
		char b1[32], b2[32];
		double mexecs = bench_jnum(n, "executions", -1);
		fprintf(md, "| %s:%s | %s | %s | %s | %s | %s | %s | %s | %s%s |\n", v->scenario,
			v->variant, src[0] ? src : "-", cell[0], cell[1], cell[2], cell[3],
			bench_fmt_si(b2, 32, mexecs),
			bench_fmt_num(b1, 32, n ? secs : -1, 3), why[0] ? "not measured: " : "", why);
		bench_js_variant_row(v->scenario, v->variant);
		bench_js_kstr("zoo", v->zoo[0] ? v->zoo : NULL, true);
		bench_js_kstr("input_from", src[0] ? src : NULL, true);
		for (unsigned k = 0; k < 4; k++) {
			char kb[32], ka[32];
			snprintf(kb, sizeof(kb), "%s_before", fields[k]);
			snprintf(ka, sizeof(ka), "%s_after", fields[k]);
			bench_js_num(kb, bench_jnum(before, fields[k], -1), true);
			bench_js_num(ka, bench_jnum(after, fields[k], -1), true);
		}
		bench_js_num("executions", mexecs, true);
		bench_js_num("seconds", n ? secs : -1, true);
		bench_js_kstr("not_measured", why[0] ? why : NULL, false);
		fprintf(js, "}");
		bench_jfree(n);
		bench_child_free(&c);
	}
	bench_js_end_section();
	fprintf(md, "\n");
}
