/*
 * litmus_parse.c - the kernel's C litmus format (herdtools7's "C" tests as
 * tools/memory-model/litmus-tests writes them): a name line, comments
 * (* ... *) holding "Result: ...", an initial state { ... }, processes
 * P0(...) { C body }, optional locations [...] and filter (...), and a
 * final condition exists/~exists/forall (...).
 *
 * Hostile input: every read is bounds-checked through peek(); every array
 * has its cap, and an overflow is a syntax error naming the place; no
 * recursion deeper than MAX_DEPTH.
 *
 * Longer than ~800 lines: one recursive-descent parser (the lexer, the
 * node arena, expressions, statements, the test's parts) whose sections
 * share the parse state and its error path (struct ps, fail()).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "litmus_ast.h"

#define MAX_DEPTH 64

struct ps {
	const char *s;
	size_t n, i;
	unsigned line, col;
	struct weft_litmus *t;
	int proc;               /* the process being parsed, or -1 */
	unsigned depth;
	char *err;
	size_t errn;
	bool failed;
	const char *name;
	bool in_c;              /* inside a process: "(*" is C, not a comment */
};

/* A place in the text to come back to (a rule that tried one reading and
 * takes another). */
struct mark {
	size_t i;
	unsigned line, col;
};

static struct mark mark(const struct ps *p)
{
	return (struct mark){ p->i, p->line, p->col };
}

static void rewind_to(struct ps *p, struct mark m)
{
	p->i = m.i;
	p->line = m.line;
	p->col = m.col;
}

static void fail(struct ps *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct ps *p, const char *fmt, ...)
{
	va_list ap;
	char msg[200];

	if (p->failed)
		return;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errn, "%s:%u:%u: %s", p->name, p->line, p->col, msg);
}

/* One level deeper into what (a recursive rule, which counts it back out
 * when it returns); false, and the parse failed, past MAX_DEPTH. */
static bool deeper(struct ps *p, const char *what)
{
	if (++p->depth <= MAX_DEPTH)
		return true;
	fail(p, "%s nested too deeply", what);
	return false;
}

static int peek_at(const struct ps *p, size_t k)
{
	return p->i + k < p->n ? (unsigned char)p->s[p->i + k] : -1;
}

static int peek(const struct ps *p)
{
	return peek_at(p, 0);
}

static void adv(struct ps *p)
{
	if (p->i >= p->n)
		return;
	if (p->s[p->i] == '\n') {
		p->line++;
		p->col = 1;
	} else {
		p->col++;
	}
	p->i++;
}

/* A "Result:" whose value is none of the four the kernel's litmus scripts
 * know (herd7 reads no Result line): the test says what no run can check (an "Expect ... ?: unchecked" would pass it with exit 0).
 * The error is at the value: the place of the comment's start, counted on
 * to r. */
static void bad_result(struct ps *p, struct mark open, size_t start, const char *r)
{
	char word[24];
	size_t k = 0;
	const char *end = p->s + p->i;

	while (r + k < end && k + 1 < sizeof(word) && (isalnum((unsigned char)r[k]) || r[k] == '_'))
		k++;
	memcpy(word, r, k);
	word[k] = 0;
	p->line = open.line;
	p->col = open.col;
	for (const char *c = p->s + start; c < r; c++) {
		if (*c == '\n') {
			p->line++;
			p->col = 1;
		} else {
			p->col++;
		}
	}
	fail(p, "Result: '%s' is none of Never, Sometimes, Always, DEADLOCK", word);
}

/* Skip blanks and comments: (* ... *) (nesting), C comments. A comment's
 * "Result: X" sets the expectation. */
static void skip(struct ps *p)
{
	for (;;) {
		int c = peek(p);
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
			adv(p);
		} else if (c == '(' && peek_at(p, 1) == '*' && !p->in_c) {
			unsigned lvl = 0;
			size_t start = p->i;
			struct mark open = mark(p);
			do {
				if (peek(p) == '(' && peek_at(p, 1) == '*') {
					lvl++;
					adv(p);
				} else if (peek(p) == '*' && peek_at(p, 1) == ')') {
					lvl--;
					adv(p);
				}
				adv(p);
			} while (lvl && p->i < p->n);
			if (lvl) {
				fail(p, "unterminated (* comment");
				return;
			}
			const char *r = NULL;
			for (size_t k = start; k + 7 <= p->i; k++)
				if (!memcmp(p->s + k, "Result:", 7)) {
					r = p->s + k + 7;
					break;
				}
			if (r && !p->t->expect) {
				while (r < p->s + p->i && (*r == ' ' || *r == '\t'))
					r++;
				size_t left = (size_t)(p->s + p->i - r);
				if (left >= 5 && !strncmp(r, "Never", 5))
					p->t->expect = WEFT_LITMUS_NEVER;
				else if (left >= 9 && !strncmp(r, "Sometimes", 9))
					p->t->expect = WEFT_LITMUS_SOMETIMES;
				else if (left >= 6 && !strncmp(r, "Always", 6))
					p->t->expect = WEFT_LITMUS_ALWAYS;
				else if (left >= 8 && !strncmp(r, "DEADLOCK", 8))
					p->t->expect = WEFT_LITMUS_DEADLOCK;
				else
					bad_result(p, open, start, r);
			}
			if (p->failed)
				return;
		} else if (c == '/' && peek_at(p, 1) == '*') {
			adv(p);
			adv(p);
			while (p->i < p->n && !(peek(p) == '*' && peek_at(p, 1) == '/'))
				adv(p);
			if (p->i >= p->n) {
				fail(p, "unterminated /* comment");
				return;
			}
			adv(p);
			adv(p);
		} else if (c == '/' && peek_at(p, 1) == '/') {
			while (p->i < p->n && peek(p) != '\n')
				adv(p);
		} else {
			return;
		}
	}
}

static bool ident(struct ps *p, char *out, size_t cap)
{
	size_t k = 0;

	skip(p);
	if (!(isalpha(peek(p)) || peek(p) == '_'))
		return false;
	while (isalnum(peek(p)) || peek(p) == '_') {
		if (k + 1 < cap)
			out[k++] = (char)peek(p);
		adv(p);
	}
	out[k] = 0;
	return true;
}

/* The next characters are tok (punctuation); consume them. */
static bool accept(struct ps *p, const char *tok)
{
	size_t n = strlen(tok);

	skip(p);
	if (p->i + n > p->n || memcmp(p->s + p->i, tok, n))
		return false;
	for (size_t k = 0; k < n; k++)
		adv(p);
	return true;
}

static void expect(struct ps *p, const char *tok)
{
	if (!accept(p, tok)) {
		int c = peek(p);
		if (c < 0)
			fail(p, "expected '%s', got the end of the file", tok);
		else
			fail(p, "expected '%s', got '%c'", tok, isprint(c) ? c : '?');
	}
}

static bool keyword(struct ps *p, const char *kw)
{
	size_t n = strlen(kw);
	struct mark save = mark(p);
	char w[32];

	skip(p);
	if (p->i + n <= p->n && !memcmp(p->s + p->i, kw, n) && ident(p, w, sizeof(w)) &&
	    !strcmp(w, kw))
		return true;
	rewind_to(p, save);
	return false;
}

static bool number(struct ps *p, int64_t *v)
{
	skip(p);
	bool neg = false;
	struct mark save = mark(p);
	if (peek(p) == '-') {
		neg = true;
		adv(p);
	}
	if (!isdigit(peek(p))) {
		rewind_to(p, save);
		return false;
	}
	uint64_t x = 0;
	bool hex = peek(p) == '0' && (peek_at(p, 1) == 'x' || peek_at(p, 1) == 'X');
	if (hex) {
		adv(p);
		adv(p);
	}
	while (hex ? isxdigit(peek(p)) : isdigit(peek(p))) {
		int d = peek(p);
		d = isdigit(d) ? d - '0' : (tolower(d) - 'a' + 10);
		x = x * (hex ? 16u : 10u) + (unsigned)d;
		adv(p);
	}
	*v = neg ? -(int64_t)x : (int64_t)x;
	return true;
}

/* ------------------------------------------------------------ nodes */

static uint32_t node(struct ps *p, unsigned kind)
{
	struct weft_litmus *t = p->t;

	if (t->nr_nodes + 1 >= WEFT_LITMUS_MAX_NODES) {
		fail(p, "the test is too large (more than %u nodes)", WEFT_LITMUS_MAX_NODES);
		return 0;
	}
	uint32_t k = ++t->nr_nodes;
	memset(&t->n[k], 0, sizeof(t->n[k]));
	t->n[k].kind = (uint8_t)kind;
	t->n[k].line = (uint16_t)(p->line > 65535 ? 65535 : p->line);
	t->n[k].col = (uint16_t)(p->col > 65535 ? 65535 : p->col);
	return k;
}

/* An operation's site: file = the test's file, func = its process,
 * what = the operation as written. */
static void site_of(struct ps *p, uint32_t k, unsigned ev, const char *what)
{
	struct weft_litmus *t = p->t;

	if (!k)
		return;
	snprintf(t->texts[k], sizeof(t->texts[k]), "%s", what);
	t->sites[k] = (struct weft_site){ t->file, p->proc >= 0 ? t->procs[p->proc].name : "init",
					  t->texts[k], t->n[k].line, ev, 0, 0 };
	t->n[k].site = &t->sites[k];
}

static int var_index(struct weft_litmus *t, const char *name)
{
	for (unsigned v = 0; v < t->nr_vars; v++)
		if (!strcmp(t->vars[v], name))
			return (int)v;
	return -1;
}

static int add_var(struct ps *p, const char *name)
{
	int v = var_index(p->t, name);

	if (v >= 0)
		return v;
	if (p->t->nr_vars == WEFT_LITMUS_MAX_VARS) {
		fail(p, "more than %u shared variables", WEFT_LITMUS_MAX_VARS);
		return 0;
	}
	size_t len = strlen(name);
	if (len >= sizeof(p->t->vars[0])) {   /* cut, two names could become one */
		fail(p, "shared variable name '%s' is longer than %zu bytes", name,
		     sizeof(p->t->vars[0]) - 1);
		return 0;
	}
	memcpy(p->t->vars[p->t->nr_vars], name, len + 1);
	return (int)p->t->nr_vars++;
}

/* A shared variable named in process p's body (by name or &name): herd7
 * passes a process its parameters as registers holding their addresses, so
 * any other name is a register never set (its deref is herd7's
 * "Non-symbolic memory access"). A name that is neither a register nor a
 * parameter of this process is refused here: a typo (*yy for *y) or a
 * variable only another process declares, never a fresh variable. The
 * error is at the name (at). */
static int param_var(struct ps *p, const char *name, struct mark at)
{
	const struct lproc *pr = &p->t->procs[p->proc];
	int v = var_index(p->t, name);

	if (v < 0 || !(pr->params >> v & 1)) {
		rewind_to(p, at);
		fail(p, "'%s' is neither a register nor a parameter of %s (a shared variable "
		     "a process uses must be among its parameters)", name, pr->name);
		return 0;
	}
	return v;
}

static int reg_index(const struct lproc *pr, const char *name)
{
	for (unsigned r = 0; r < pr->nr_regs; r++)
		if (!strcmp(pr->regs[r], name))
			return (int)r;
	return -1;
}

static int add_reg(struct ps *p, struct lproc *pr, const char *name)
{
	int r = reg_index(pr, name);

	if (r >= 0)
		return r;
	if (pr->nr_regs == WEFT_LITMUS_MAX_REGS) {
		fail(p, "more than %u registers in %s", WEFT_LITMUS_MAX_REGS, pr->name);
		return 0;
	}
	size_t len = strlen(name);
	if (len >= sizeof(pr->regs[0])) {   /* cut, two names could become one */
		fail(p, "register name '%s' in %s is longer than %zu bytes", name, pr->name,
		     sizeof(pr->regs[0]) - 1);
		return 0;
	}
	memcpy(pr->regs[pr->nr_regs], name, len + 1);
	return (int)pr->nr_regs++;
}

static void unsupported(struct ps *p, const char *what)
{
	if (!p->t->unsupported[0])
		snprintf(p->t->unsupported, sizeof(p->t->unsupported), "%s (line %u)", what,
			 p->line);
}

/* ------------------------------------------------------ expressions */

static uint32_t expr(struct ps *p);

/* The address an lvalue argument names: *e -> e; a name -> its address. */
static uint32_t address_of(struct ps *p, uint32_t e)
{
	if (!e)
		return 0;
	if (p->t->n[e].kind == L_DEREF)
		return p->t->n[e].a;
	return e;
}

struct call {
	const char *name;
	unsigned kind, op, nargs;
	uint8_t aop;
	bool returns;
};

/* The primitives a test may call (the LKMM's vocabulary, linux-kernel.def). */
static const struct call calls[] = {
	{ "READ_ONCE", L_LOAD, LD_ONCE, 1, 0, true },
	{ "smp_load_acquire", L_LOAD, LD_ACQUIRE, 1, 0, true },
	{ "rcu_dereference", L_LOAD, LD_RCU, 1, 0, true },
	{ "atomic_read", L_LOAD, LD_ATOMIC, 1, 0, true },
	{ "WRITE_ONCE", L_STORE, ST_ONCE, 2, 0, false },
	{ "smp_store_release", L_STORE, ST_RELEASE, 2, 0, false },
	{ "rcu_assign_pointer", L_STORE, ST_RCU, 2, 0, false },
	{ "atomic_set", L_STORE, ST_ATOMIC, 2, 0, false },
	/* linux-kernel.def: smp_load_acquire() and smp_store_release() of the counter */
	{ "atomic_read_acquire", L_LOAD, LD_ACQUIRE, 1, 0, true },
	{ "atomic_set_release", L_STORE, ST_RELEASE, 2, 0, false },
	{ "smp_mb", L_FENCE, WEFT_FENCE_MB, 0, 0, false },
	{ "smp_rmb", L_FENCE, WEFT_FENCE_RMB, 0, 0, false },
	{ "smp_wmb", L_FENCE, WEFT_FENCE_WMB, 0, 0, false },
	{ "smp_mb__before_atomic", L_FENCE, WEFT_FENCE_BEFORE_ATOMIC, 0, 0, false },
	{ "smp_mb__after_atomic", L_FENCE, WEFT_FENCE_AFTER_ATOMIC, 0, 0, false },
	{ "smp_mb__after_spinlock", L_FENCE, WEFT_FENCE_AFTER_SPINLOCK, 0, 0, false },
	{ "rcu_read_lock", L_RCU, 0, 0, 0, false },
	{ "rcu_read_unlock", L_RCU, 1, 0, 0, false },
	{ "synchronize_rcu", L_RCU, 2, 0, 0, false },
	{ "spin_lock", L_LOCK, 0, 1, 0, false },
	{ "spin_unlock", L_LOCK, 1, 1, 0, false },
	{ "spin_trylock", L_TRYLOCK, 0, 1, 0, true },
	{ "spin_is_locked", L_TRYLOCK, 1, 1, 0, true },
	/* read-modify-writes: op 0 add-return, 1 add (void); suffixes below */
	{ "atomic_add_return", L_RMW, 0, 2, WEFT_A_ADD, true },
	{ "atomic_sub_return", L_RMW, 1, 2, WEFT_A_ADD, true },
	{ "atomic_inc_return", L_RMW, 2, 1, WEFT_A_ADD, true },
	{ "atomic_dec_return", L_RMW, 3, 1, WEFT_A_ADD, true },
	{ "atomic_fetch_add", L_RMW, 4, 2, WEFT_A_ADD, true },
	{ "atomic_fetch_inc", L_RMW, 5, 1, WEFT_A_ADD, true },
	{ "atomic_add", L_RMW, 0, 2, WEFT_A_ADD, false },
	{ "atomic_sub", L_RMW, 1, 2, WEFT_A_ADD, false },
	{ "atomic_inc", L_RMW, 2, 1, WEFT_A_ADD, false },
	{ "atomic_dec", L_RMW, 3, 1, WEFT_A_ADD, false },
	{ "atomic_add_unless", L_RMW, 6, 3, WEFT_A_ADD_UNLESS, true },
	{ "atomic_inc_not_zero", L_RMW, 7, 1, WEFT_A_ADD_UNLESS, true },
	{ "xchg", L_RMW, 8, 2, WEFT_A_XCHG, true },
	{ "atomic_xchg", L_RMW, 8, 2, WEFT_A_XCHG, true },
	{ "cmpxchg", L_RMW, 9, 3, WEFT_A_CMPXCHG, true },
	{ "atomic_cmpxchg", L_RMW, 9, 3, WEFT_A_CMPXCHG, true },
};

/* The rest of the LKMM's vocabulary (linux-kernel.def): a test that
 * calls one is skipped with the reason, never run. docs/litmus.md lists
 * these names (tests/litmus/check-skipped.py keeps the two equal, and checks
 * that calls[] and this table cover the kernel's linux-kernel.def). A name in
 * neither is skipped too, as "not a primitive weft models". */
static const struct skip {
	const char *name;
	const char *why;
} skipped[] = {
	{ "srcu_read_lock", "SRCU (weft models RCU, not SRCU)" },
	{ "srcu_read_unlock", "SRCU (weft models RCU, not SRCU)" },
	{ "srcu_down_read", "SRCU (weft models RCU, not SRCU)" },
	{ "srcu_up_read", "SRCU (weft models RCU, not SRCU)" },
	{ "synchronize_srcu", "SRCU (weft models RCU, not SRCU)" },
	{ "synchronize_srcu_expedited", "SRCU (weft models RCU, not SRCU)" },
	{ "smp_mb__after_srcu_read_unlock", "SRCU (weft models RCU, not SRCU)" },
	{ "smp_mb__after_unlock_lock", "smp_mb__after_unlock_lock (no such fence in weft's locks)" },
	{ "smp_store_mb", "smp_store_mb (not modelled: write WRITE_ONCE() then smp_mb())" },
	{ "barrier", "barrier (the LKMM's compiler barrier is not modelled)" },
	{ "synchronize_rcu_expedited", "synchronize_rcu_expedited (not modelled: synchronize_rcu() is)" },
	{ "atomic_fetch_sub", "atomic_fetch_sub and its _relaxed/_acquire/_release forms (not modelled)" },
	{ "atomic_fetch_dec", "atomic_fetch_dec and its _relaxed/_acquire/_release forms (not modelled)" },
	{ "atomic_sub_and_test", "atomic_sub_and_test (not modelled)" },
	{ "atomic_dec_and_test", "atomic_dec_and_test (not modelled)" },
	{ "atomic_inc_and_test", "atomic_inc_and_test (not modelled)" },
	{ "atomic_add_negative", "atomic_add_negative (not modelled)" },
};

/* The reason name (or its _relaxed/_acquire/_release form) is in
 * skipped[], or NULL. */
static const char *skip_reason(const char *name)
{
	static const char *const sfx[] = { "", "_relaxed", "_acquire", "_release" };
	size_t n = strlen(name);

	for (size_t k = 0; k < sizeof(skipped) / sizeof(skipped[0]); k++) {
		size_t m = strlen(skipped[k].name);
		for (unsigned j = 0; j < 4; j++)
			if (n == m + strlen(sfx[j]) && !strncmp(name, skipped[k].name, m) &&
			    !strcmp(name + m, sfx[j]))
				return skipped[k].why;
	}
	return NULL;
}

static const struct call *find_call(const char *name, bool *suffixed)
{
	char base[64];
	size_t n = strlen(name);

	*suffixed = false;
	for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
		if (!strcmp(calls[k].name, name))
			return &calls[k];
	snprintf(base, sizeof(base), "%s", name);
	static const char *const sfx[] = { "_relaxed", "_acquire", "_release" };
	for (unsigned k = 0; k < 3; k++) {
		size_t m = strlen(sfx[k]);
		if (n > m && !strcmp(name + n - m, sfx[k])) {
			base[n - m] = 0;
			*suffixed = true;
		}
	}
	for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
		if (!strcmp(calls[k].name, base) && (!*suffixed || calls[k].kind == L_RMW))
			return &calls[k];
	return NULL;
}

/* name( already read: the call's node. */
static uint32_t call_expr(struct ps *p, const char *name)
{
	bool suffixed;
	const struct call *c = find_call(name, &suffixed);
	uint32_t args[3] = { 0, 0, 0 };
	unsigned na = 0;

	if (!c) {
		const char *why = skip_reason(name);
		if (why)
			unsupported(p, why);
		else if (!strncmp(name, "srcu_", 5))
			unsupported(p, "SRCU (weft models RCU, not SRCU)");
		else {
			char msg[128];
			snprintf(msg, sizeof(msg), "%s() is not a primitive weft models", name);
			unsupported(p, msg);
		}
	}
	if (!accept(p, ")")) {
		do {
			if (na == 3) {
				fail(p, "%s: too many arguments", name);
				return 0;
			}
			args[na++] = expr(p);
		} while (!p->failed && accept(p, ","));
		expect(p, ")");
	}
	if (p->failed)
		return 0;
	if (!c) {
		uint32_t k = node(p, L_NUM);   /* unsupported: the test is not run */
		if (k)
			p->t->n[k].op = 1;     /* a placeholder: no constant */
		return k;
	}
	if (na != c->nargs) {
		fail(p, "%s takes %u argument%s, not %u", name, c->nargs, c->nargs == 1 ? "" : "s", na);
		return 0;
	}
	uint32_t k = node(p, c->kind);
	if (!k)
		return 0;
	struct lnode *e = &p->t->n[k];
	e->op = (int)c->op;
	e->op2 = c->aop;
	e->num = c->returns;
	char what[48];
	snprintf(what, sizeof(what), "%s()", name);
	switch (c->kind) {
	case L_LOAD:
		e->a = c->op == LD_ONCE || c->op == LD_RCU ? address_of(p, args[0]) : args[0];
		site_of(p, k, WEFT_EV_READ, what);
		break;
	case L_STORE:
		e->a = c->op == ST_ONCE || c->op == ST_RCU ? address_of(p, args[0]) : args[0];
		e->b = args[1];
		site_of(p, k, WEFT_EV_WRITE, what);
		break;
	case L_FENCE:
		site_of(p, k, WEFT_EV_BARRIER, what);
		break;
	case L_LOCK:
		e->a = args[0];
		site_of(p, k, c->op ? WEFT_EV_UNLOCK : WEFT_EV_LOCK, what);
		break;
	case L_RCU:
		site_of(p, k, c->op == 0 ? WEFT_EV_LOCK : c->op == 1 ? WEFT_EV_UNLOCK : WEFT_EV_WAIT,
			what);
		break;
	case L_TRYLOCK:
		e->a = args[0];
		site_of(p, k, c->op ? WEFT_EV_READ : WEFT_EV_TRYLOCK, what);
		break;
	case L_RMW:
		/* atomic ops take (i, v) but xchg/cmpxchg/add_unless (v, ...) */
		if (c->op <= 1 || c->op == 4) {
			e->a = args[1];
			e->b = args[0];
		} else {
			e->a = args[0];
			e->b = args[1];
			e->c = args[2];
		}
		site_of(p, k, WEFT_EV_RMW, what);
		break;
	}
	/* the ordering class (atomic_t.txt): the _relaxed, _acquire and
	 * _release forms; the non-returning atomics order nothing; the
	 * value-returning ones fully (0); an acquire load, a release store */
	unsigned ord = 0;
	size_t nl = strlen(name);
	if (c->kind == L_RMW) {
		if (suffixed && nl > 8 && !strcmp(name + nl - 8, "_relaxed"))
			ord = WEFT_SITE_RELAXED;
		else if (suffixed && nl > 8 && !strcmp(name + nl - 8, "_acquire"))
			ord = WEFT_SITE_ACQUIRE;
		else if (suffixed && nl > 8 && !strcmp(name + nl - 8, "_release"))
			ord = WEFT_SITE_RELEASE;
		else if (!c->returns)
			ord = WEFT_SITE_RELAXED;
	} else if (c->kind == L_LOAD && c->op == LD_ACQUIRE) {
		ord = WEFT_SITE_ACQUIRE;
	} else if (c->kind == L_STORE && (c->op == ST_RELEASE || c->op == ST_RCU)) {
		ord = WEFT_SITE_RELEASE;   /* rcu_assign_pointer(): a release store */
	} else if (c->kind == L_LOCK) {
		/* spin_unlock(): a release store; spin_lock(): an acquire */
		ord = c->op ? WEFT_SITE_RELEASE : WEFT_SITE_ACQUIRE;
	} else if (c->kind == L_TRYLOCK && !c->op) {
		ord = WEFT_SITE_ACQUIRE;   /* spin_trylock() that succeeds */
	}
	p->t->sites[k].flags = ord;
	return k;
}

static uint32_t primary(struct ps *p)
{
	char w[64];
	int64_t v;
	uint32_t k;
	struct mark at;

	if (!deeper(p, "expression"))
		return 0;
	skip(p);
	if (accept(p, "(")) {
		/* a cast: (void) or (int) or (int *) */
		struct mark save = mark(p);
		if (ident(p, w, sizeof(w)) &&
		    (!strcmp(w, "void") || !strcmp(w, "int") || !strcmp(w, "long") ||
		     !strcmp(w, "uintptr_t") || !strcmp(w, "intptr_t"))) {
			while (accept(p, "*"))
				;
			if (accept(p, ")")) {
				k = primary(p);
				p->depth--;
				return k;
			}
		}
		rewind_to(p, save);
		k = expr(p);
		expect(p, ")");
	} else if (number(p, &v)) {
		k = node(p, L_NUM);
		if (k)
			p->t->n[k].num = v;
	} else if (accept(p, "*")) {
		uint32_t a = primary(p);
		k = node(p, L_DEREF);
		if (k) {
			p->t->n[k].a = a;
			site_of(p, k, WEFT_EV_READ, "plain load");
		}
	} else if (accept(p, "&")) {
		skip(p);
		at = mark(p);
		if (!ident(p, w, sizeof(w))) {
			fail(p, "expected a variable after '&'");
			return 0;
		}
		int var = p->proc >= 0 ? param_var(p, w, at) : add_var(p, w);
		k = p->failed ? 0 : node(p, L_VAR);
		if (k)
			p->t->n[k].a = (uint32_t)var;
	} else if (accept(p, "!") || accept(p, "~") || accept(p, "-")) {
		char op = p->s[p->i - 1];
		uint32_t a = primary(p);
		k = node(p, L_UN);
		if (k) {
			p->t->n[k].op = op;
			p->t->n[k].a = a;
		}
	} else if (at = mark(p), ident(p, w, sizeof(w))) {
		if (accept(p, "(")) {
			k = call_expr(p, w);
		} else if (!strcmp(w, "NULL")) {
			k = node(p, L_NUM);
		} else if (p->proc >= 0 && reg_index(&p->t->procs[p->proc], w) >= 0) {
			k = node(p, L_REG);
			if (k)
				p->t->n[k].a = (uint32_t)reg_index(&p->t->procs[p->proc], w);
		} else {
			/* a parameter: the variable's address */
			int var = p->proc >= 0 ? param_var(p, w, at) : add_var(p, w);
			k = p->failed ? 0 : node(p, L_VAR);
			if (k)
				p->t->n[k].a = (uint32_t)var;
		}
	} else {
		int c = peek(p);
		fail(p, c < 0 ? "expected an expression, got the end of the file"
			      : "expected an expression, got '%c'", isprint(c) ? c : '?');
		return 0;
	}
	p->depth--;
	return k;
}

/* Binary operators by precedence, lowest first. */
static const char *const levels[][6] = {
	{ "||" }, { "&&" }, { "|" }, { "^" }, { "&" }, { "==", "!=" },
	{ "<=", ">=", "<", ">" }, { "+", "-" }, { "*", "/", "%" },
};
#define NR_LEVELS (sizeof(levels) / sizeof(levels[0]))

static int op_code(const char *s)
{
	return s[1] ? s[0] * 256 + s[1] : s[0];
}

/* The value of expression k if it is made of numbers and operators only
 * (no register, no memory); false if it is not, or nests deeper than
 * MAX_DEPTH (a chain "1+1+1..." is a tree as deep as it is long). */
static bool constant(const struct weft_litmus *t, uint32_t k, int64_t *v, unsigned depth)
{
	const struct lnode *n = &t->n[k];
	int64_t a, b;

	if (!k || depth > MAX_DEPTH)
		return false;
	switch (n->kind) {
	case L_NUM:
		*v = n->num;
		return !n->op;
	case L_UN:
		if (!constant(t, n->a, &a, depth + 1))
			return false;
		*v = n->op == '!' ? !a : n->op == '~' ? ~a : (int64_t)(0 - (uint64_t)a);
		return true;
	case L_BIN:
		if (!constant(t, n->a, &a, depth + 1) || !constant(t, n->b, &b, depth + 1))
			return false;
		*v = weft_litmus_binop(n->op, a, b);
		return true;
	}
	return false;
}

static uint32_t binary(struct ps *p, unsigned lvl)
{
	if (lvl == NR_LEVELS)
		return primary(p);
	uint32_t a = binary(p, lvl + 1);
	for (;;) {
		const char *hit = NULL;
		skip(p);
		for (unsigned k = 0; k < 6 && levels[lvl][k]; k++) {
			const char *o = levels[lvl][k];
			size_t n = strlen(o);
			if (p->i + n <= p->n && !memcmp(p->s + p->i, o, n) &&
			    /* '|' is not '||', '&' not '&&' */
			    !(n == 1 && (o[0] == '|' || o[0] == '&') && peek_at(p, 1) == o[0])) {
				hit = o;
				break;
			}
		}
		if (!hit || p->failed)
			return a;
		accept(p, hit);
		struct mark at = (skip(p), mark(p));
		uint32_t b = binary(p, lvl + 1);
		int64_t zero;
		if (!p->failed && (hit[0] == '/' || hit[0] == '%') &&
		    constant(p->t, b, &zero, 0) && zero == 0) {
			/* no value (a register that holds 0 at run time is
			 * the runner's report) */
			rewind_to(p, at);
			fail(p, "%s by zero", hit[0] == '/' ? "division" : "modulo");
			return 0;
		}
		uint32_t k = node(p, L_BIN);
		if (!k)
			return 0;
		p->t->n[k].op = op_code(hit);
		p->t->n[k].a = a;
		p->t->n[k].b = b;
		a = k;
	}
}

static uint32_t expr(struct ps *p)
{
	return binary(p, 0);
}

/* ------------------------------------------------------- statements */

static bool is_type(const char *w)
{
	static const char *const types[] = { "int", "long", "unsigned", "spinlock_t", "atomic_t",
					     "atomic_long_t", "intptr_t", "uintptr_t", "bool",
					     "u32", "u64", "s32", "s64", "struct" };
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
		if (!strcmp(w, types[k]))
			return true;
	return false;
}

static uint32_t statement(struct ps *p);

static uint32_t block_body(struct ps *p)
{
	uint32_t first = 0, last = 0;

	while (!p->failed && !accept(p, "}")) {
		if (p->i >= p->n) {
			fail(p, "expected '}', got the end of the file");
			return 0;
		}
		uint32_t s = statement(p);
		if (!s)
			continue;
		if (last)
			p->t->n[last].next = s;
		else
			first = s;
		last = s;
		while (p->t->n[last].next)
			last = p->t->n[last].next;
	}
	return first;
}

/* A declaration of registers (inside a process): int r0, *r1 = e; */
static uint32_t declaration(struct ps *p)
{
	struct lproc *pr = &p->t->procs[p->proc];
	char w[64];
	uint32_t first = 0, last = 0;

	do {
		while (accept(p, "*"))
			;
		if (!ident(p, w, sizeof(w))) {
			fail(p, "expected a register name");
			return 0;
		}
		int r = add_reg(p, pr, w);
		if (accept(p, "=")) {
			uint32_t e = expr(p), k = node(p, L_SETREG);
			if (!k)
				return 0;
			p->t->n[k].a = (uint32_t)r;
			p->t->n[k].b = e;
			if (last)
				p->t->n[last].next = k;
			else
				first = k;
			last = k;
		}
	} while (!p->failed && accept(p, ","));
	expect(p, ";");
	return first;
}

/* A C statement keyword this parser has no node for (a loop, a jump):
 * named in the error, which would otherwise be "expected ';'" at the
 * token after it. Leaves the position as it was. */
static bool unsupported_statement(struct ps *p, char *w, size_t wn)
{
	static const char *const kws[] = { "while", "for", "do", "switch", "goto", "return",
					   "break", "continue" };

	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++) {
		struct mark save = mark(p);
		bool hit = keyword(p, kws[i]);
		rewind_to(p, save);
		if (hit) {
			snprintf(w, wn, "%s", kws[i]);
			return true;
		}
	}
	return false;
}

static uint32_t statement(struct ps *p)
{
	char w[64];
	uint32_t k;

	if (!deeper(p, "statements"))
		return 0;
	skip(p);
	if (accept(p, ";")) {
		k = 0;
	} else if (accept(p, "{")) {
		k = node(p, L_BLOCK);
		uint32_t b = block_body(p);
		if (k)
			p->t->n[k].a = b;
	} else if (keyword(p, "if")) {
		k = node(p, L_IF);
		expect(p, "(");
		uint32_t c = expr(p);
		expect(p, ")");
		uint32_t th = statement(p), el = 0;
		if (keyword(p, "else"))
			el = statement(p);
		if (k) {
			p->t->n[k].a = c;
			p->t->n[k].b = th;
			p->t->n[k].c = el;
		}
	} else if (unsupported_statement(p, w, sizeof(w))) {
		fail(p, "'%s' is not supported in a process body (statements: declarations, "
		     "assignments, calls, if/else, blocks)", w);
		k = 0;
	} else {
		struct mark save = mark(p);
		if (ident(p, w, sizeof(w)) && is_type(w)) {
			for (;;) {   /* more type words: "unsigned long" */
				struct mark s2 = mark(p);
				if (ident(p, w, sizeof(w)) && is_type(w))
					continue;
				rewind_to(p, s2);
				break;
			}
			k = declaration(p);
			p->depth--;
			return k;
		}
		rewind_to(p, save);
		uint32_t lhs = expr(p);
		if (accept(p, "=")) {
			uint32_t rhs = expr(p);
			if (p->failed)
				return 0;
			const struct lnode *L = &p->t->n[lhs];
			if (L->kind == L_REG) {
				k = node(p, L_SETREG);
				if (k) {
					p->t->n[k].a = L->a;
					p->t->n[k].b = rhs;
				}
			} else if (L->kind == L_DEREF) {
				k = node(p, L_STORE);
				if (k) {
					p->t->n[k].op = ST_PLAIN;
					p->t->n[k].a = L->a;
					p->t->n[k].b = rhs;
					site_of(p, k, WEFT_EV_WRITE, "plain store");
				}
			} else {
				fail(p, "cannot assign to this: a register or *pointer only");
				return 0;
			}
		} else {
			k = lhs && p->t->n[lhs].kind >= L_SETREG ? lhs : node(p, L_EXPR);
			if (k && k != lhs)
				p->t->n[k].a = lhs;
		}
		expect(p, ";");
	}
	p->depth--;
	return p->failed ? 0 : k;
}

/* ------------------------------------------------------------ parts */

/* { x=1; y=&z; 0:r1=2; int x; atomic_t v = ATOMIC_INIT(1); } */
static void init_state(struct ps *p)
{
	char w[64];

	expect(p, "{");
	while (!p->failed && !accept(p, "}")) {
		if (accept(p, ";"))
			continue;
		if (p->i >= p->n) {
			fail(p, "expected '}' to end the initial state");
			return;
		}
		int64_t pn;
		int proc = -1;
		if (number(p, &pn)) {
			expect(p, ":");
			if (pn < 0 || pn >= WEFT_LITMUS_MAX_PROCS) {
				fail(p, "no process %lld", (long long)pn);
				return;
			}
			proc = (int)pn;
		}
		if (!ident(p, w, sizeof(w))) {
			fail(p, "expected a variable in the initial state");
			return;
		}
		while (proc < 0 && is_type(w)) {
			while (accept(p, "*"))
				;
			if (!ident(p, w, sizeof(w))) {
				fail(p, "expected a variable name");
				return;
			}
		}
		int64_t *slot;
		int *addr;
		if (proc >= 0) {
			struct lproc *pr = &p->t->procs[proc];
			snprintf(pr->name, sizeof(pr->name), "P%d", proc);
			int r = add_reg(p, pr, w);
			slot = &p->t->reg_init[proc][r];
			addr = &p->t->reg_init_addr[proc][r];
		} else {
			int v = add_var(p, w);
			slot = &p->t->init[v];
			addr = &p->t->init_addr[v];
		}
		if (accept(p, "=")) {
			int64_t v;
			if (number(p, &v)) {
				*slot = v;
			} else if (accept(p, "&") && ident(p, w, sizeof(w))) {
				*addr = 1 + add_var(p, w);
			} else if (ident(p, w, sizeof(w)) && !strcmp(w, "ATOMIC_INIT")) {
				expect(p, "(");
				if (!number(p, slot))
					fail(p, "ATOMIC_INIT takes a number");
				expect(p, ")");
			} else if (w[0]) {
				*addr = 1 + add_var(p, w);   /* herd's x=y: the address of y */
			} else {
				fail(p, "expected a value");
			}
		}
		if (!accept(p, ";") && !(skip(p), peek(p) == '}'))
			fail(p, "expected ';' in the initial state");
	}
}

/* N:reg or var, as an index into t->locs (added if new). */
static int location(struct ps *p)
{
	struct weft_litmus *t = p->t;
	int64_t pn;
	char w[64];
	struct lloc l = { -1, 0 };

	if (number(p, &pn)) {
		expect(p, ":");
		if (pn < 0 || (uint64_t)pn >= t->nr_procs) {
			fail(p, "no process %lld", (long long)pn);
			return -1;
		}
		if (!ident(p, w, sizeof(w))) {
			fail(p, "expected a register after '%lld:'", (long long)pn);
			return -1;
		}
		int r = reg_index(&t->procs[pn], w);
		if (r < 0) {
			fail(p, "P%lld has no register %s", (long long)pn, w);
			return -1;
		}
		l.proc = (int)pn;
		l.idx = (unsigned)r;
	} else if (ident(p, w, sizeof(w))) {
		int v = var_index(t, w);
		if (v < 0) {
			fail(p, "no variable %s", w);
			return -1;
		}
		l.idx = (unsigned)v;
	} else {
		fail(p, "expected a location (N:reg or a variable)");
		return -1;
	}
	for (unsigned k = 0; k < t->nr_locs; k++)
		if (t->locs[k].proc == l.proc && t->locs[k].idx == l.idx)
			return (int)k;
	if (t->nr_locs == WEFT_LITMUS_MAX_SHOWN) {
		fail(p, "more than %u locations", WEFT_LITMUS_MAX_SHOWN);
		return -1;
	}
	t->locs[t->nr_locs] = l;
	return (int)t->nr_locs++;
}

static uint32_t cond_or(struct ps *p);

static uint32_t cond_atom(struct ps *p)
{
	uint32_t k;

	if (!deeper(p, "condition"))
		return 0;
	if (accept(p, "(")) {
		k = cond_or(p);
		expect(p, ")");
	} else if (accept(p, "~") || keyword(p, "not")) {
		uint32_t a = cond_atom(p);
		k = node(p, C_NOT);
		if (k)
			p->t->n[k].a = a;
	} else if (keyword(p, "true")) {
		k = node(p, C_TRUE);
	} else {
		int l = location(p);
		if (l < 0)
			return 0;
		expect(p, "=");
		k = node(p, C_EQ);
		if (!k)
			return 0;
		p->t->n[k].a = (uint32_t)l;
		int64_t v;
		char w[64];
		if (number(p, &v)) {
			p->t->n[k].num = v;
		} else if (ident(p, w, sizeof(w))) {
			int var = var_index(p->t, w);
			if (var < 0) {
				fail(p, "no variable %s", w);
				return 0;
			}
			p->t->n[k].num = var;
			p->t->n[k].b = 1;
		} else {
			fail(p, "expected a value");
			return 0;
		}
	}
	p->depth--;
	return k;
}

/* operand (op operand)*, left-associative: the nodes of kind C_AND or C_OR */
static uint32_t cond_chain(struct ps *p, uint32_t (*operand)(struct ps *), const char *op,
			   unsigned kind)
{
	uint32_t a = operand(p);

	while (!p->failed && accept(p, op)) {
		uint32_t b = operand(p), k = node(p, kind);
		if (!k)
			return 0;
		p->t->n[k].a = a;
		p->t->n[k].b = b;
		a = k;
	}
	return a;
}

static uint32_t cond_and(struct ps *p)
{
	return cond_chain(p, cond_atom, "/\\", C_AND);
}

static uint32_t cond_or(struct ps *p)
{
	return cond_chain(p, cond_and, "\\/", C_OR);
}

static void process(struct ps *p, const char *name)
{
	struct weft_litmus *t = p->t;
	long n = strtol(name + 1, NULL, 10);
	char w[64];

	if (n < 0 || n >= WEFT_LITMUS_MAX_PROCS || (unsigned long)n != t->nr_procs) {
		fail(p, "process %s out of order or beyond P%u", name, WEFT_LITMUS_MAX_PROCS - 1);
		return;
	}
	p->proc = (int)n;
	p->in_c = true;
	struct lproc *pr = &t->procs[n];
	snprintf(pr->name, sizeof(pr->name), "P%ld", n);
	t->nr_procs++;
	/* parameters: the shared variables it uses (types ignored) */
	expect(p, "(");
	if (!accept(p, ")")) {
		do {
			w[0] = 0;
			char last[64] = "";
			while (ident(p, w, sizeof(w)) || accept(p, "*"))
				if (w[0]) {
					snprintf(last, sizeof(last), "%s", w);
					w[0] = 0;
				}
			if (!last[0]) {
				fail(p, "expected a parameter");
				return;
			}
			int v = add_var(p, last);
			if (!p->failed)
				pr->params |= (uint32_t)1 << v;
		} while (!p->failed && accept(p, ","));
		expect(p, ")");
	}
	expect(p, "{");
	if (!p->failed)
		pr->body = block_body(p);
	p->proc = -1;
	p->in_c = false;
}

static void normalize_cond(struct weft_litmus *t, const char *s, size_t n)
{
	size_t k = 0;
	bool space = false;

	for (size_t i = 0; i < n && k + 2 < sizeof(t->cond_text); i++) {
		char c = s[i];
		if (c == '\n' || c == '\t' || c == '\r' || c == ' ') {
			space = k > 0;
			continue;
		}
		if (space)
			t->cond_text[k++] = ' ';
		space = false;
		t->cond_text[k++] = c;
	}
	t->cond_text[k] = 0;
}

struct weft_litmus *weft_litmus_parse(const char *name, const char *text, size_t len,
				      char *err, size_t errn)
{
	struct weft_litmus *t = calloc(1, sizeof(*t));
	struct ps p = { text, len, 0, 1, 1, t, -1, 0, err, errn, false, name, false };
	char w[96];

	if (!t) {
		snprintf(err, errn, "%s: out of memory", name);
		return NULL;
	}
	const char *base = strrchr(name, '/');
	snprintf(t->file, sizeof(t->file), "%s", base ? base + 1 : name);
	skip(&p);
	if (!ident(&p, w, sizeof(w)) || strcmp(w, "C")) {
		fail(&p, "a C litmus test starts with 'C NAME'");
		goto bad;
	}
	/* the name: up to the end of the line */
	while (peek(&p) == ' ' || peek(&p) == '\t')
		adv(&p);
	size_t k = 0;
	while (p.i < p.n && peek(&p) != '\n' && peek(&p) != '\r') {
		if (k + 1 < sizeof(t->name) && !isspace(peek(&p)))
			t->name[k++] = (char)peek(&p);
		adv(&p);
	}
	t->name[k] = 0;
	if (!k) {
		fail(&p, "the test has no name after 'C'");
		goto bad;
	}
	skip(&p);
	if (peek(&p) == '{')
		init_state(&p);
	while (!p.failed) {
		skip(&p);
		size_t save = p.i;
		unsigned l = p.line, c = p.col;
		if (!ident(&p, w, sizeof(w))) {
			if (peek(&p) == '~' && peek_at(&p, 1) == 'e')
				break;
			fail(&p, p.i >= p.n ? "no final condition (exists, ~exists or forall)"
					    : "expected a process P%u or the final condition", t->nr_procs);
			goto bad;
		}
		if (w[0] == 'P' && isdigit((unsigned char)w[1])) {
			process(&p, w);
			continue;
		}
		p.i = save;
		p.line = l;
		p.col = c;
		break;
	}
	if (p.failed)
		goto bad;
	if (!t->nr_procs) {
		fail(&p, "the test has no process");
		goto bad;
	}
	for (;;) {
		if (keyword(&p, "locations")) {
			expect(&p, "[");
			while (!p.failed && !accept(&p, "]")) {
				location(&p);
				accept(&p, ";");
			}
		} else if (keyword(&p, "filter")) {
			t->filter = cond_atom(&p);
		} else {
			break;
		}
		if (p.failed)
			goto bad;
	}
	skip(&p);
	size_t cstart = p.i;
	if (accept(&p, "~exists"))
		snprintf(t->quant, sizeof(t->quant), "~exists");
	else if (keyword(&p, "exists"))
		snprintf(t->quant, sizeof(t->quant), "exists");
	else if (keyword(&p, "forall"))
		snprintf(t->quant, sizeof(t->quant), "forall");
	else {
		fail(&p, "expected the final condition: exists, ~exists or forall");
		goto bad;
	}
	t->cond = cond_or(&p);
	if (p.failed)
		goto bad;
	normalize_cond(t, text + cstart, p.i - cstart);
	skip(&p);
	if (p.i < p.n && !p.failed) {
		fail(&p, "unexpected text after the final condition");
		goto bad;
	}
	if (!p.failed)
		return t;
bad:
	free(t);
	return NULL;
}

void weft_litmus_free(struct weft_litmus *t)
{
	free(t);
}

const char *weft_litmus_name(const struct weft_litmus *t)
{
	return t->name;
}

enum weft_litmus_expect weft_litmus_expected(const struct weft_litmus *t)
{
	return t->expect;
}

const char *weft_litmus_unsupported(const struct weft_litmus *t)
{
	return t->unsupported[0] ? t->unsupported : NULL;
}

const char *weft_litmus_condition(const struct weft_litmus *t)
{
	return t->cond_text;
}

unsigned weft_litmus_nr_procs(const struct weft_litmus *t)
{
	return t->nr_procs;
}

const char *weft_litmus_expect_name(enum weft_litmus_expect e)
{
	static const char *const names[] = { "?", "Never", "Sometimes", "Always", "DEADLOCK" };
	return (unsigned)e < 5 ? names[e] : "?";
}
