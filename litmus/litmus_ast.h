/*
 * litmus_ast.h - a parsed C litmus test (litmus/ only): an arena of nodes
 * per test, indices instead of pointers (0: none).
 */
#ifndef WEFT_LITMUS_AST_H
#define WEFT_LITMUS_AST_H

#include <weft/kernel.h>
#include <weft/litmus.h>

enum lk {
	/* expressions */
	L_NUM = 1,      /* num; op 1: the placeholder of a call not modelled */
	L_REG,          /* a: register index */
	L_VAR,          /* a: shared variable: its address (a parameter name) */
	L_DEREF,        /* a: address expression: a plain load */
	L_LOAD,         /* a: address; op: LD_* */
	L_RMW,          /* a: address, b, c: operands; op: RMW_*; num: returns (1) or not */
	L_BIN,          /* op: token; a, b */
	L_UN,           /* op: '!', '-', '~'; a */
	L_TRYLOCK,      /* a: lock address; op: 0 trylock, 1 is_locked */
	/* statements (next: the following statement) */
	L_SETREG,       /* a: register, b: expression */
	L_STORE,        /* a: address, b: value; op: ST_* */
	L_FENCE,        /* op: WEFT_FENCE_* */
	L_LOCK,         /* a: lock address; op: 0 lock, 1 unlock */
	L_RCU,          /* op: 0 rcu_read_lock, 1 rcu_read_unlock, 2 synchronize_rcu */
	L_EXPR,         /* a: expression evaluated for its effect */
	L_IF,           /* a: condition, b: then, c: else */
	L_BLOCK,        /* a: first statement */
	/* the final condition */
	C_AND, C_OR, C_NOT,   /* a, b */
	C_EQ,           /* a: location (index into locs), num: value, b: 1 if num is &var */
	C_TRUE,
};

enum { LD_ONCE, LD_ACQUIRE, LD_RCU, LD_ATOMIC };
enum { ST_PLAIN, ST_ONCE, ST_RELEASE, ST_RCU, ST_ATOMIC };

struct lnode {
	uint8_t kind;
	uint8_t op2;            /* RMW: the weft_aop */
	uint16_t line, col;
	int op;
	uint32_t a, b, c, next;
	int64_t num;
	struct weft_site *site; /* operations: their site (allocated with the test) */
};

/* A location of the final state: a register of a process or a variable. */
struct lloc {
	int proc;               /* -1: a shared variable */
	unsigned idx;           /* register or variable index */
};

_Static_assert(WEFT_LITMUS_MAX_VARS <= 32, "lproc.params is a 32-bit set of variables");

struct lproc {
	char name[8];           /* "P0" */
	uint32_t body;          /* first statement */
	uint32_t params;        /* bit v: variable v is a parameter (herd7: a register
				 * holding its address; a name that is neither is refused) */
	unsigned nr_regs;
	char regs[WEFT_LITMUS_MAX_REGS][16];
};

struct weft_litmus {
	char name[96];
	char file[128];         /* basename, for sites */
	enum weft_litmus_expect expect;
	char unsupported[160];
	char cond_text[256];
	unsigned nr_procs, nr_vars, nr_locs;
	struct lproc procs[WEFT_LITMUS_MAX_PROCS];
	char vars[WEFT_LITMUS_MAX_VARS][24];
	int64_t init[WEFT_LITMUS_MAX_VARS];
	int init_addr[WEFT_LITMUS_MAX_VARS];     /* 1 + variable whose address it holds */
	int64_t reg_init[WEFT_LITMUS_MAX_PROCS][WEFT_LITMUS_MAX_REGS];
	int reg_init_addr[WEFT_LITMUS_MAX_PROCS][WEFT_LITMUS_MAX_REGS];
	struct lloc locs[WEFT_LITMUS_MAX_SHOWN];  /* shown: condition's and locations[] */
	char quant[8];
	uint32_t cond, filter;
	unsigned nr_nodes;
	struct lnode n[WEFT_LITMUS_MAX_NODES];
	struct weft_site sites[WEFT_LITMUS_MAX_NODES];
	char texts[WEFT_LITMUS_MAX_NODES][48];
};

/* binop(op, a, b) of two register values, as the runner computes it
 * (litmus_run.c; the parser folds a constant divisor with it). */
int64_t weft_litmus_binop(int op, int64_t a, int64_t b);

#endif
