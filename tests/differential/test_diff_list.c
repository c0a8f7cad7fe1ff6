/*
 * test_diff_list.c - the lists of <weft/kernel.h> (list_add, list_add_tail,
 * list_del with CONFIG_DEBUG_LIST) against a reference written from
 * include/linux/list.h and lib/list_debug.c on index arrays:
 *  - list_add(new, head) links new between head and head->next,
 *    list_add_tail(new, head) between head->prev and head;
 *  - __list_add_valid: the add is corruption unless next->prev == prev,
 *    prev->next == next, new != prev and new != next;
 *  - list_del(entry) unlinks entry and poisons its pointers
 *    (LIST_POISON1/2); __list_del_entry_valid: corruption if next is
 *    LIST_POISON1, prev is LIST_POISON2, prev->next != entry or
 *    next->prev != entry.
 * Every sequence of up to MAXOPS operations on NODES self-linked nodes and
 * one head (exhaustive up to a length, then random), run by a setup (the
 * host context): the execution's verdict must be list corruption exactly
 * when the reference finds an invalid operation, and a valid sequence must
 * leave the list the reference has, walked both ways.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "lockstep.h"
#include "../model_driver.h"

#define NODES 3
#define MAXOPS 8
#define HEAD NODES               /* the reference's index of the head */
#define P1 (-1)                  /* LIST_POISON1 */
#define P2 (-2)                  /* LIST_POISON2 */

enum opk { L_ADD, L_ADD_TAIL, L_DEL, OP__N };
static const char *const opname[OP__N] = { "list_add", "list_add_tail", "list_del" };

struct op {
	uint8_t k, node;
};

static struct {
	unsigned n;
	struct op ops[MAXOPS];
} P;

struct world {
	struct weft_list_head node[NODES], head;
};

/* the list as the program left it, walked from the head both ways */
static int got_fwd[NODES + 2], got_bwd[NODES + 2];
static unsigned got_nf, got_nb;

/* ----------------------------------------------------------- the reference */

struct ref {
	int next[NODES + 1], prev[NODES + 1];
};

static bool ref_link(struct ref *s, int n, int prev, int next)
{
	bool ok = s->prev[next] == prev && s->next[prev] == next && n != prev && n != next;
	s->prev[next] = n;
	s->next[n] = next;
	s->prev[n] = prev;
	s->next[prev] = n;
	return ok;
}

/* Applies o; false when lib/list_debug.c calls it corruption. */
static bool ref_op(struct ref *s, const struct op *o)
{
	int e = o->node, next = s->next[e], prev = s->prev[e];

	switch (o->k) {
	case L_ADD:
		return ref_link(s, e, HEAD, s->next[HEAD]);
	case L_ADD_TAIL:
		return ref_link(s, e, s->prev[HEAD], HEAD);
	default:
		if (next == P1 || prev == P2 || s->next[prev] != e || s->prev[next] != e)
			return false;
		s->prev[next] = prev;
		s->next[prev] = next;
		s->next[e] = P1;
		s->prev[e] = P2;
		return true;
	}
}

/* ------------------------------------------------------------- the program */

/* a list pointer as the reference's index (P1, P2 for the poisons) */
static int index_of(struct world *W, struct weft_list_head *p)
{
	if (p == WEFT_LIST_POISON1)
		return P1;
	if (p == WEFT_LIST_POISON2)
		return P2;
	if (p == &W->head)
		return HEAD;
	for (int i = 0; i < NODES; i++)
		if (p == &W->node[i])
			return i;
	return -3;
}

WEFT_TEST_SETUP_WORLD(dl, struct world)
{
	weft_list_init(&W->head);
	for (int i = 0; i < NODES; i++)
		weft_list_init(&W->node[i]);
	for (unsigned k = 0; k < P.n; k++) {
		struct weft_list_head *e = &W->node[P.ops[k].node];
		switch (P.ops[k].k) {
		case L_ADD:
			weft_list_add(e, &W->head);
			break;
		case L_ADD_TAIL:
			weft_list_add_tail(e, &W->head);
			break;
		default:
			weft_list_del(e);
		}
	}
	/* a valid sequence can still leave a poisoned entry reachable (an entry
	 * added twice, away from the head, passes the check): a walk stops there */
	got_nf = got_nb = 0;
	for (int i = index_of(W, weft_peek(W->head.next)); got_nf < NODES + 2; ) {
		got_fwd[got_nf++] = i;
		if (i < 0 || i == HEAD)
			break;
		i = index_of(W, weft_peek(W->node[i].next));
	}
	for (int i = index_of(W, weft_peek(W->head.prev)); got_nb < NODES + 2; ) {
		got_bwd[got_nb++] = i;
		if (i < 0 || i == HEAD)
			break;
		i = index_of(W, weft_peek(W->node[i].prev));
	}
}

static void dl_thread(void *w, unsigned tid)
{
	(void)w;
	(void)tid;
}

WEFT_TEST_ONLY_VARIANT(dl, "a sequence");
static const struct weft_scenario dlsc = {
	.name = "diff-list", .summary = "differential: lists", .source = "test", .nr_cpus = 1,
	.nr_threads = 1, .world_size = sizeof(struct world), WEFT_TEST_NOP_OP,
	.decision_hint = 64, WEFT_TEST_HOOKS(dl),
};

static unsigned failures, nr_seq, nr_bad;

static void check_seq(void)
{
	struct weft_run_opts o = { .sc = &dlsc };
	struct weft_exec_result r;
	struct weft_bytes b;
	struct ref s;
	bool valid = true;
	char why[300] = "";

	for (int i = 0; i <= NODES; i++)
		s.next[i] = s.prev[i] = i;
	for (unsigned k = 0; k < P.n && valid; k++)
		valid = ref_op(&s, &P.ops[k]);
	nr_seq++;
	nr_bad += !valid;
	weft_bytes_init(&b, &dlsc, NULL, 0);
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute");
	if (r.kind != (valid ? WEFT_KIND_NONE : WEFT_KIND_LIST_CORRUPTION)) {
		snprintf(why, sizeof(why), "verdict %s (%s), the reference %s", weft_kind_name(r.kind),
			 r.report.msg, valid ? "clean" : "list corruption");
	} else if (valid) {
		unsigned nf = 0, nb = 0;
		bool same = true;
		for (int p = s.next[HEAD]; nf < NODES + 2; p = s.next[p]) {
			same &= nf < got_nf && got_fwd[nf] == p;
			nf++;
			if (p < 0 || p == HEAD)
				break;
		}
		for (int p = s.prev[HEAD]; nb < NODES + 2; p = s.prev[p]) {
			same &= nb < got_nb && got_bwd[nb] == p;
			nb++;
			if (p < 0 || p == HEAD)
				break;
		}
		if (!same || nf != got_nf || nb != got_nb)
			snprintf(why, sizeof(why), "the list differs from the reference's");
	}
	CHECK(!why[0], "%s", why);
	if (why[0] && failures++ < 5) {
		fprintf(stderr, "   ");
		for (unsigned k = 0; k < P.n; k++)
			fprintf(stderr, " %s(n%u)", opname[P.ops[k].k], P.ops[k].node);
		fprintf(stderr, "\n");
	}
}

/* every sequence of length len over the OP__N * NODES operations */
static void all_of_length(unsigned len)
{
	unsigned total = 1;

	for (unsigned k = 0; k < len; k++)
		total *= OP__N * NODES;
	for (unsigned c = 0; c < total; c++) {
		unsigned x = c;
		P.n = len;
		for (unsigned k = 0; k < len; k++, x /= OP__N * NODES)
			P.ops[k] = (struct op){ (uint8_t)(x % OP__N), (uint8_t)(x / OP__N % NODES) };
		check_seq();
	}
}

int main(void)
{
	unsigned longest = ls_large() ? 6 : 4, nrand = ls_large() ? 200000 : 20000;

	weft_machine_init();
	for (unsigned len = 1; len <= longest; len++)
		all_of_length(len);
	ls_seed();
	for (unsigned q = 0; q < nrand; q++) {
		P.n = 1 + ls_rnd(MAXOPS);
		for (unsigned k = 0; k < P.n; k++)
			P.ops[k] = (struct op){ (uint8_t)ls_rnd(OP__N), (uint8_t)ls_rnd(NODES) };
		check_seq();
	}
	printf("%u sequences against the reference, %u with corruption (%s size)\n", nr_seq, nr_bad,
	       ls_large() ? "large" : "quick");
	return check_done();
}
