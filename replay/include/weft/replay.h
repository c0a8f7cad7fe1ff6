/*
 * replay.h - .weft replay files (docs/replay-format.md): the in-memory
 * form, the zstd writer, the hardened reader, re-execution with DESYNC
 * detection, and the minimizer.
 *
 * Invariants:
 *  - weft_replay_decode() and weft_replay_decode_content() accept any byte
 *    string: they return 0 or a negative WEFT_E* with a message, never
 *    assert, never allocate more than WEFT_REPLAY_MAX_CONTENT plus the
 *    decoded arrays (each bounded by its own cap below).
 *  - A decoded file is structurally valid: every count within its cap,
 *    every decision names existing threads (< nr_threads) that it marks
 *    runnable, the verdict kind is a known kind name.
 *  - Whether it matches the current model is a separate question
 *    (weft_replay_bind): stale is not corrupt.
 *  - Writers never overwrite: temporary file, fsync, link(2) to the final
 *    name (fails if it exists), unlink the temporary, fsync the directory.
 */
#ifndef WEFT_REPLAY_H
#define WEFT_REPLAY_H

#include <weft/weft.h>
#include <weft/strategy.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_REPLAY_MAGIC "WEFT"
#define WEFT_REPLAY_VERSION_MAJOR 1
#define WEFT_REPLAY_VERSION_MINOR 0
/* Files of a weak-memory run are version 1.1: they carry the critical
 * memory section, which a 1.0 reader refuses ("unknown critical section
 * tag 9"), so no reader replays them as sequentially consistent. */
#define WEFT_REPLAY_VERSION_MINOR_MEMORY 1
#define WEFT_REPLAY_HEADER_SIZE 8

#define WEFT_REPLAY_MAX_FILE     (1u << 20)   /* compressed file */
#define WEFT_REPLAY_MAX_CONTENT  (16u << 20)  /* decompressed content */
#define WEFT_REPLAY_WINDOW_LOG   24           /* == log2(MAX_CONTENT) */
#define WEFT_REPLAY_MAX_NAME     64
#define WEFT_REPLAY_MAX_SITES    4096
/* every decision of an execution within the default step budget of a
 * program (10^6 steps; the machine records as many, WEFT_MAX_RECORD_DECISIONS) */
#define WEFT_REPLAY_MAX_DECISIONS (1u << 20)
#define WEFT_REPLAY_MAX_CHOICES  4096
#define WEFT_REPLAY_MAX_HASHES   (1u << 16)

/* Section tags of format 1 (critical: < 0x80, required, in this order). */
enum weft_replay_tag {
	WEFT_RT_META = 1,
	WEFT_RT_INPUT,
	WEFT_RT_WORKLOAD,
	WEFT_RT_SITES,
	WEFT_RT_DECISIONS,
	WEFT_RT_CHOICES,
	WEFT_RT_VERDICT,
	WEFT_RT_HASHES,
	WEFT_RT__LAST = WEFT_RT_HASHES,
	/* critical, but only in version 1.1 files (weak memory), after the
	 * others: the memory model and each store's delay code */
	WEFT_RT_MEMORY = 9,
	/* optional sections (>= 0x80: a reader skips those it does not know) */
	WEFT_RT_CHECKS = 0x90,   /* the run's optional detectors, lockdep witness */
	WEFT_RT_PROGRAM = 0x91,  /* an instrumented program: path, build id, arguments */
	WEFT_RT_RUNTIME = 0x92,  /* the program's libweft_rt: its build id */
};

/* Flags byte of each decision in the decisions section. */
#define WEFT_RD_STEP1   0x01   /* step = previous step + 1 (no delta follows) */
#define WEFT_RD_SAMERUN 0x02   /* runnable mask = the previous decision's */
#define WEFT_RD_CONT    0x04   /* dflt = chosen = cur (one byte, cur, follows) */
#define WEFT_RD_NOSITE  0x08   /* no site index: the site of a decision that let
				  the current thread go on is not stored (the
				  trace and state hashes cover it); in memory
				  its site_id is WEFT_SITE_ANY */
#define WEFT_SITE_ANY   0xffffffffu

struct weft_replay_side {
	uint32_t site_id;       /* 0: none */
	uint32_t step;
	uint8_t tid;            /* 0xff: setup/audit or none */
	uint8_t cpu;
};

struct weft_replay {
	uint8_t version_major, version_minor;
	char scenario[WEFT_REPLAY_MAX_NAME + 1];
	char variant[WEFT_REPLAY_MAX_NAME + 1];
	char strategy[33];
	char tool[33];
	uint64_t fingerprint;
	uint8_t nr_cpus, nr_threads;
	uint8_t lock;                       /* enum weft_lock_model */

	uint8_t input[WEFT_INPUT_MAX];      /* raw fuzzer input (bytes encoding) */
	size_t input_len;
	uint8_t workload[WEFT_INPUT_MAX];   /* workload section as executed */
	size_t workload_len;

	struct weft_decision_rec *dec;      /* malloc'd */
	size_t nr_dec;
	uint32_t *choices;                  /* malloc'd */
	size_t nr_choices;

	/* the expected verdict */
	enum weft_kind kind;                /* NONE: the recording was clean */
	struct weft_replay_side here, other;
	char site_text[201];                /* "put_page() at z1_lru.c:120: atomic_dec..." */
	char object[65];
	char msg[193];

	/* optional section WEFT_RT_CHECKS: absent in files of the first
	 * landing, which replay with no optional detector */
	unsigned checks;                    /* WEFT_CHECK_* the run used */
	struct weft_lockdep_fact lockdep[WEFT_LOCKDEP_MAX_FACTS];   /* the witness */
	size_t nr_lockdep;

	/* section WEFT_RT_MEMORY (version 1.1): absent, sc and no delays */
	uint8_t memory;                     /* enum weft_memory_model */
	uint8_t *delays;                    /* malloc'd; trailing zeros implied */
	size_t nr_delays;

	/* optional section WEFT_RT_PROGRAM: the instrumented program that
	 * recorded it (rt/); absent for models */
	bool has_program;
	struct weft_replay_program {
		char path[1024];
		uint8_t build_id[WEFT_BUILD_ID_MAX];
		unsigned build_id_len;
		unsigned argc;                  /* <= WEFT_PROGRAM_MAX_ARGS */
		char args[2048];                /* argc strings, each NUL-terminated */
		char options[161];
		/* section WEFT_RT_RUNTIME: the build id of the libweft_rt that
		 * ran it (0 bytes: a file from before that section, which
		 * replays under any runtime) */
		uint8_t runtime_id[WEFT_BUILD_ID_MAX];
		unsigned runtime_id_len;
	} program;

	uint64_t trace_hash;
	uint32_t steps, preemptions;
	uint64_t *state_hashes;             /* malloc'd; every WEFT_STATE_HASH_EVERY events */
	size_t nr_state_hashes;
};

void weft_replay_free(struct weft_replay *rf);

/* The run options that re-execute rf on (sc, vi): its lock model, optional
 * detectors, lockdep witness, and the warnings its run went on past (every
 * warning kind but its verdict's, when the file says the run went on). */
void weft_replay_run_opts(const struct weft_replay *rf, const struct weft_scenario *sc,
			  unsigned vi, struct weft_run_opts *o);

/* Run rf's raw fuzzer input with the bytes strategy on variant vi of sc
 * (weft replay --variant, the regression corpus's fixed-variant check),
 * under what the file recorded beside it: its lock model, detectors,
 * lockdep witness, memory model and store delays (the raw input holds no
 * delays; the n-th store of the run gets the n-th recorded store's code,
 * so on a variant with other stores they may fall on other stores).
 * record: keep the events (a diagram). WEFT_EINVAL when the input cannot
 * stand for the file (no raw input, and the schedule preempts). */
int weft_replay_run_input(const struct weft_replay *rf, const struct weft_scenario *sc,
			  unsigned vi, bool record, struct weft_run_opts *o,
			  struct weft_exec_result *r);

/* Fill rf from the last execution (weft_last_*; o->record must have been
 * set for the state hashes). raw/raw_len: the fuzzer input that produced
 * it, stored when the decisions do not fit the bytes encoding (NULL: none). */
int weft_replay_from_last(struct weft_replay *rf, const struct weft_run_opts *o,
			  const struct weft_exec_result *r, const char *strategy,
			  const uint8_t *raw, size_t raw_len);

/* Serialize: header + one zstd frame (checksum on). *out is malloc'd.
 * WEFT_EFORMAT when the content would exceed WEFT_REPLAY_MAX_CONTENT or
 * the file WEFT_REPLAY_MAX_FILE (a reader would refuse it). */
int weft_replay_encode(const struct weft_replay *rf, uint8_t **out, size_t *len);
/* The uncompressed content (sections only; for tests and the fuzz target). */
int weft_replay_encode_content(const struct weft_replay *rf, uint8_t **out, size_t *len);

/* Header + one zstd frame around arbitrary content. Flags other than 0
 * make files a reader must refuse (tests and corpus/malformed only). */
#define WEFT_WRAP_NO_CHECKSUM 1u
#define WEFT_WRAP_NO_SIZE     2u    /* streaming frame: content size unknown */
int weft_replay_wrap(const uint8_t *content, size_t n, unsigned flags, uint8_t **out,
		     size_t *len);

/* Parse hostile bytes. On error rf is freed and err says why. */
int weft_replay_decode(const uint8_t *buf, size_t len, struct weft_replay *rf, char *err,
		       size_t errn);
int weft_replay_decode_content(const uint8_t *buf, size_t len, struct weft_replay *rf,
			       char *err, size_t errn);
/* Read and decode a file (at most WEFT_REPLAY_MAX_FILE bytes). WEFT_EIO if
 * it cannot be read, WEFT_EFORMAT if it is not a valid replay file. */
int weft_replay_load(const char *path, struct weft_replay *rf, char *err, size_t errn);
/* Does buf start with the replay magic? */
bool weft_replay_sniff(const uint8_t *buf, size_t len);

/*
 * Store rf in directory dir as "<kind>-<scenario>-<variant>-<hash>.weft"
 * (hash: 8 hex digits of the trace hash: one execution, one name). Never
 * overwrites: if a file of that name holds the same bytes or the same
 * trace (model, scenario, variant, lock, verdict, trace hash), *existed is
 * set and it is kept; otherwise a "-2", "-3"... suffix is tried. path
 * receives the name.
 */
int weft_replay_save(const struct weft_replay *rf, const char *dir, char *path, size_t pathn,
		     bool *existed);
/* mkdir -p: path and its missing parents (weft_replay_save() makes its
 * directory so); 0, or -1 with errno */
int weft_replay_mkdirs(const char *path);
/* Write bytes to path through a temporary file, fsync and link(2); fails
 * with WEFT_EIO (errno EEXIST) if path exists. */
int weft_replay_write_new(const char *path, const uint8_t *buf, size_t len);

/* Match a decoded file to this build's registry. WEFT_ENOENT: no such
 * scenario/variant; WEFT_ESTALE: fingerprint or CPU/thread count differs
 * (still bound: replayable with force); WEFT_EFORMAT: a lockdep fact names
 * a world offset outside the scenario's world (corrupt, not stale). */
int weft_replay_bind(const struct weft_replay *rf, const struct weft_scenario **sc,
		     unsigned *vi, char *err, size_t errn);

/* A site of this build by id (NULL if unknown). */
const struct weft_site *weft_site_by_id(uint32_t id);

/* The result of re-executing a replay file. */
struct weft_replay_check {
	struct weft_exec_result r;
	bool reproduced;          /* same verdict, trace hash, no desync */
	bool desync;
	uint32_t desync_step;     /* first divergent step */
	uint32_t desync_index;    /* decision index, or UINT32_MAX (hash) */
	struct weft_decision_rec expected, got;
	bool have_views;          /* expected/got are decisions */
	bool ended;               /* it ran to its end (desync_step, its last
				     step) without the recorded verdict */
	char why[256];
};

/* Re-execute rf on (sc, vi) under the replay strategy with full recording
 * (weft_last_events() holds the trace afterwards) and compare decisions,
 * periodic state hashes, verdict (kind, site, step) and trace hash. */
int weft_replay_execute(const struct weft_replay *rf, const struct weft_scenario *sc,
			unsigned vi, struct weft_replay_check *c);

/* ------------------------------------------------------------ minimizer */

struct weft_min_measure {
	uint32_t preemptions, ops, steps, bytes, threads;
};

struct weft_min_result {
	enum weft_kind kind;        /* the verdict kept */
	uint32_t site_id;
	struct weft_min_measure before, after;
	uint64_t executions;
	double seconds;
	struct weft_exec_result final;  /* the minimized execution */
	bool encodable;             /* out holds its bytes input */
};

/*
 * Minimize a failing bytes input on (sc, vi, lock) while keeping the same
 * verdict (kind and site): fewer preemptions first (ddmin over schedule
 * entries, then a preemption-bounded DFS below the current count on the
 * current workload), then fewer workload operations (ddmin over ops), then
 * fewer steps (simpler op arguments, earlier preemptions), then fewer
 * threads (all ops of a thread). Candidates are accepted only when
 * (preemptions, ops, steps, bytes) decreases lexicographically.
 * Afterwards the machine's last execution is the minimized one, recorded
 * (weft_replay_from_last), and out holds its bytes input (*out_len 0 and
 * !encodable if its schedule does not fit the bytes encoding).
 * WEFT_ENOENT: the input does not fail. o names the scenario, variant,
 * lock model and optional detectors (checks, a lockdep witness to seed);
 * candidates never share lockdep's graph (lockdep_persist is ignored).
 */
int weft_minimize(const struct weft_run_opts *o, const uint8_t *in, size_t len, uint8_t *out,
		  size_t *out_len, struct weft_min_result *res);
/* The same, starting from the machine's last execution (o and its result
 * r), whose schedule need not fit the bytes encoding. */
int weft_minimize_last(const struct weft_run_opts *o, const struct weft_exec_result *r,
		       uint8_t *out, size_t *out_len, struct weft_min_result *res);

#ifdef __cplusplus
}
#endif
#endif
