/*
 * test_litmus_parse.c - the litmus parser and runner on weft's own tests
 * (corpus/fuzz_litmus_parse/): results, errors with FILE:LINE:COL, and
 * robustness: every truncation and 20000 byte mutations of each seed parse
 * or fail with a message, never crash (the fuzz target's body, run here as
 * a plain test).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/litmus.h>

#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	static char buf[1 << 16];

	if (!f)
		return NULL;
	*n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[*n] = 0;
	return buf;
}

static void error_case(const char *text, const char *want)
{
	char err[300];
	struct weft_litmus *t = weft_litmus_parse("bad.litmus", text, strlen(text), err,
						  sizeof(err));
	CHECK(!t && strstr(err, want), "'%s': got '%s', want '%s'", text, t ? "(parsed)" : err,
	      want);
	weft_litmus_free(t);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "corpus/fuzz_litmus_parse";
	char path[4096], err[300], why[200];
	size_t n;

	/* SB with smp_mb(): never both 0, under sc and tso, dfs complete */
	snprintf(path, sizeof(path), "%s/sb.litmus", dir);
	char *text = slurp(path, &n);
	CHECK(text != NULL, "cannot read %s", path);
	if (!text)
		return check_done();
	struct weft_litmus *t = weft_litmus_parse(path, text, n, err, sizeof(err));
	CHECK(t != NULL, "%s", err);
	struct weft_litmus_result *r = malloc(sizeof(*r));
	for (int m = 0; t && m < WEFT_MEM__COUNT; m++) {
		struct weft_litmus_run_opts o = { .memory = (enum weft_memory_model)m,
						  .strategy = "dfs", .delay_bound = 2,
						  .preemption_bound = WEFT_BOUND_NONE };
		CHECK(weft_litmus_run(t, &o, r, why, sizeof(why)) == 0, "%s", why);
		CHECK(r->complete && r->positive == 0 && r->nr_states == 3,
		      "sb+mb under %s: complete %d positive %llu states %u", weft_memory_name(o.memory),
		      r->complete, (unsigned long long)r->positive, r->nr_states);
		CHECK(weft_litmus_expected(t) == WEFT_LITMUS_NEVER, "Result line");
	}
	weft_litmus_free(t);

	/* the lock test: x is 2 in the end, r1 = &x, never y */
	snprintf(path, sizeof(path), "%s/lock-if.litmus", dir);
	text = slurp(path, &n);
	t = text ? weft_litmus_parse(path, text, n, err, sizeof(err)) : NULL;
	CHECK(t != NULL, "%s", err);
	if (t) {
		struct weft_litmus_run_opts o = { .memory = WEFT_MEM_TSO, .strategy = "random",
						  .executions = 3000, .seed = 1 };
		CHECK(weft_litmus_run(t, &o, r, why, sizeof(why)) == 0, "%s", why);
		CHECK(r->positive == 0 && r->negative == 3000, "lock-if: %llu positive",
		      (unsigned long long)r->positive);
		CHECK(r->nr_states == 1 && strstr(r->states[0].text, "0:r1=x") &&
		      strstr(r->states[0].text, "x=2") && strstr(r->states[0].text, "a=1"),
		      "lock-if states: %u, '%s'", r->nr_states, r->nr_states ? r->states[0].text : "");
		weft_litmus_free(t);
	}
	free(r);

	error_case("", "bad.litmus:1:1: a C litmus test starts with 'C NAME'");
	error_case("C t\n{}\nP0(int *x) {\n  WRITE_ONCE(*x 1);\n}\nexists (x=1)\n",
		   "bad.litmus:4:17: expected ')'");
	error_case("C t\n{}\nP0(int *x) {\n  x = 1;\n}\nexists (x=1)\n", "cannot assign");
	error_case("C t\n{}\nP0(int *x) {\n  r9 = 1;\n}\nexists (x=1)\n",
		   "bad.litmus:4:3: 'r9' is neither a register nor a parameter of P0");
	error_case("C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (0:r7=1)\n",
		   "P0 has no register r7");
	error_case("C t\n(* open\n", "unterminated (* comment");
	/* a loop is named, not "expected ';'" at its body's brace */
	error_case("C t\n{}\nP0(int *x) { int r0; while (1) { r0 = READ_ONCE(*x); } }\n"
		   "exists (0:r0=0)\n",
		   "bad.litmus:3:22: 'while' is not supported in a process body");
	error_case("C t\n{}\nP0(int *x) { return; }\nexists (x=0)\n",
		   "'return' is not supported");
	error_case("C t\n{}\nP1(int *x) { }\nexists (x=1)\n", "out of order");
	/* a name longer than its field is refused, never cut (two names
	 * sharing their first bytes would become one variable) */
	error_case("C t\n{}\nP0(int *abcdefghijklmnopqrstuvwxyz0123456789) "
		   "{ WRITE_ONCE(*abcdefghijklmnopqrstuvwxyz0123456789, 1); }\n"
		   "exists (abcdefghijklmnopqrstuvwxyz0123456789=1)\n",
		   "shared variable name 'abcdefghijklmnopqrstuvwxyz0123456789' is longer than 23");
	error_case("C t\n{}\nP0(int *x) { int r0123456789abcdefgh; "
		   "r0123456789abcdefgh = READ_ONCE(*x); }\nexists (x=1)\n",
		   "register name 'r0123456789abcdefgh' in P0 is longer than 15");

	/* a name neither a register nor a parameter of its process is refused
	 * at the name (herd7 passes parameters as registers holding the
	 * addresses): a typo, a variable of another process or of the initial
	 * state only; never a fresh variable */
	error_case("C t\n{}\nP0(int *x, int *y) { int r0; r0 = READ_ONCE(*yy); }\nexists (x=1)\n",
		   "bad.litmus:3:46: 'yy' is neither a register nor a parameter of P0");
	error_case("C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nP1(int *y) { WRITE_ONCE(*x, 2); }\n"
		   "exists (x=1)\n",
		   "bad.litmus:4:26: 'x' is neither a register nor a parameter of P1");
	error_case("C t\n{ z=1; }\nP0(int *x) { spin_lock(z); }\nexists (x=1)\n",
		   "bad.litmus:3:24: 'z' is neither");
	error_case("C t\n{}\nP0(int *x) { int *r0; r0 = &w; }\nexists (x=1)\n",
		   "bad.litmus:3:29: 'w' is neither");
	/* the initial state's N:reg=var is P0's register, as herd7's */
	{
		const char *ok = "C t\n{ 0:r1=y; }\nP0(int *x) { WRITE_ONCE(*r1, 1); }\nexists (y=1)\n";
		t = weft_litmus_parse("ok.litmus", ok, strlen(ok), err, sizeof(err));
		CHECK(t != NULL, "0:r1=y: %s", err);
		weft_litmus_free(t);
	}
	/* a division or modulo by a constant 0 (it was 0), at the divisor */
	error_case("C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 1 / 0); }\nexists (x=1)\n",
		   "bad.litmus:3:33: division by zero");
	error_case("C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 7 % -(3 - 3)); }\nexists (x=1)\n",
		   "bad.litmus:3:33: modulo by zero");
	/* a Result: herd7 has not (it was "?: unchecked"), at the value */
	error_case("C t\n(*\n * Result: Maybe\n *)\n{}\nP0(int *x) { }\nexists (x=1)\n",
		   "bad.litmus:3:12: Result: 'Maybe' is none of Never, Sometimes, Always, DEADLOCK");

	/* the LKMM primitives not modelled are skipped with their reason
	 * (skipped[], listed in docs/litmus.md), a suffixed form too */
	{
		static const char *const prims[][2] = {
			{ "smp_store_mb(*x, 1);", "smp_store_mb (not modelled: write WRITE_ONCE()" },
			{ "barrier();", "barrier (the LKMM's compiler barrier is not modelled) (line 3)" },
			{ "atomic_fetch_sub_relaxed(1, x);", "atomic_fetch_sub and its _relaxed" },
			{ "srcu_read_lock(x);", "SRCU (weft models RCU, not SRCU)" },
			{ "smp_mb__after_unlock_lock();", "smp_mb__after_unlock_lock (no such fence" },
		};
		for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++) {
			char src[256];
			snprintf(src, sizeof(src), "C t\n{}\nP0(int *x) { %s }\nexists (x=1)\n",
				 prims[i][0]);
			t = weft_litmus_parse("skip.litmus", src, strlen(src), err, sizeof(err));
			const char *reason = t ? weft_litmus_unsupported(t) : NULL;
			CHECK(reason && strstr(reason, prims[i][1]), "%s: skipped as '%s', want '%s'",
			      prims[i][0], reason ? reason : t ? "(run)" : err, prims[i][1]);
			weft_litmus_free(t);
		}
	}

	/* robustness: truncations and mutations of every seed */
	const char *seeds[] = { "sb.litmus", "lock-if.litmus" };
	static char buf[1 << 16];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t s = 0; s < 2; s++) {
		snprintf(path, sizeof(path), "%s/%s", dir, seeds[s]);
		text = slurp(path, &n);
		if (!text)
			continue;
		memcpy(buf, text, n);
		for (size_t len = 0; len <= n; len++)
			LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
		for (int i = 0; i < 20000; i++) {
			memcpy(buf, text, n);
			for (int k = 0; k < 1 + i % 4; k++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				buf[x % n] = (char)(x >> 40);
			}
			LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
		}
	}
	CHECK(1, "no crash");
	return check_done();
}
