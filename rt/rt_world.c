/*
 * rt_world.c - the world of an instrumented program and its reset.
 *
 *   base:  the machine's core area (one page)
 *          a guard page
 *          heap arena (rt_heap.c)     WEFT_HEAP_MIB MiB, default 2
 *          thread stacks              WEFT_EXEC_MAX_THREADS fibers, WEFT_STACK_KIB
 *                                     each (the machine's, 256 KiB by
 *                                     default), each above a guard page
 *          a guard page
 *          the executable: text, read-only data, RELRO, .data, .bss
 *   end:   the end of .bss
 *
 * The first five are one mapping placed right below the executable
 * (MAP_FIXED_NOREPLACE: the space below a PIE executable is free), so the
 * whole world is one range of offsets below 4 GiB, as the machine wants
 * it, and every address in it - a global, a heap block, a local another
 * thread was given, a function or a string literal - is the same world
 * offset in every process (ASLR moves the whole). Nothing of it is above
 * the executable, where the C library's brk heap starts at a random
 * place.
 *
 * Every execution starts from the state main() found: .data and .bss are
 * copied back from a snapshot taken when program mode started (after the
 * constructors ran: what main() sees), the heap bytes the last execution
 * used are zeroed (so memory from malloc() reads the same in every
 * execution, fresh or not), and each thread's stack is scrubbed below its
 * first frame as it starts (rt_stack_scrub). RELRO and .got.plt are not
 * restored: the program cannot write the first, the dynamic linker
 * writes the second with the same values in every execution.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fiber.h"
#include "rt_internal.h"

struct rt_world rt_w;
size_t rt_lim;
static void environ_save(void);
__thread bool rt_machine_thread __attribute__((tls_model("initial-exec")));

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

static size_t env_size(const char *name, size_t unit, size_t dflt, size_t min, size_t max)
{
	const char *e = getenv(name);
	char *end;

	if (!e || !*e)
		return dflt;
	unsigned long v = strtoul(e, &end, 10);
	if (*end || v * unit < min || v * unit > max) {
		fprintf(stderr, "weft: %s=%s ignored (%zu..%zu)\n", name, e, min / unit, max / unit);
		return dflt;
	}
	return v * unit;
}

int rt_world_map(void)
{
	size_t pg = page_size();
	size_t stack = env_size("WEFT_STACK_KIB", 1024, WEFT_FIBER_STACK, 16u << 10, 64u << 20);
	size_t stride = (stack + pg - 1) / pg * pg + pg;   /* a guard page and the stack */

	rt_w.heap_bytes = env_size("WEFT_HEAP_MIB", 1u << 20, 2u << 20, 1u << 20, 1024u << 20);
	rt_w.stack_bytes = stride * WEFT_EXEC_MAX_THREADS;
	size_t core = (weft_core_area_size() + pg - 1) / pg * pg;
	size_t len = core + pg + rt_w.heap_bytes + rt_w.stack_bytes;
	uintptr_t image = rt_img.lo & ~(uintptr_t)(pg - 1);
	if (image < len + pg + (1u << 20)) {
		fprintf(stderr, "weft: no room below the executable for its heap and stacks "
			"(built without -fPIE? weft-cc builds position-independent executables)\n");
		return -1;
	}
	uintptr_t want = image - pg - len;
	void *m = mmap((void *)want, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (m != MAP_FAILED && (uintptr_t)m != want) {
		munmap(m, len);   /* a kernel older than 4.17 took it as a hint */
		m = MAP_FAILED;
		errno = EEXIST;
	}
	if (m == MAP_FAILED) {
		fprintf(stderr, "weft: cannot map the program's heap and stacks below its image at "
			"%#lx: %s\n", (unsigned long)want, strerror(errno));
		return -1;
	}
	uint8_t *b = m;
	if (mprotect(b + core, pg, PROT_NONE) != 0)
		return -1;
	rt_w.base = b;
	rt_w.heap_lo = b + core + pg;
	rt_w.heap_hi = rt_w.heap_lo + rt_w.heap_bytes;
	rt_w.stacks_lo = rt_w.heap_hi;
	rt_w.stacks_hi = rt_w.stacks_lo + rt_w.stack_bytes;
	rt_w.snap_lo = (uint8_t *)(rt_img.relro_hi > rt_img.rw_lo ? rt_img.relro_hi : rt_img.rw_lo);
	rt_w.snap_hi = (uint8_t *)rt_img.rw_hi;
	rt_w.size = (size_t)(rt_w.snap_hi - rt_w.base);
	if (rt_w.size >= 0xffff0000u) {
		fprintf(stderr, "weft: the program's world is %zu bytes: more than 4 GiB (lower "
			"WEFT_HEAP_MIB or WEFT_STACK_KIB)\n", rt_w.size);
		return -1;
	}
	weft_fiber_stack_region(rt_w.stacks_lo, rt_w.stack_bytes);
	if (rt_escape_init() != 0)
		return -1;
	rt_machine_thread = true;

	size_t snap = (size_t)(rt_w.snap_hi - rt_w.snap_lo);
	rt_w.snapshot = malloc(snap ? snap : 1);
	if (!rt_w.snapshot)
		return -1;
	memcpy(rt_w.snapshot, rt_w.snap_lo, snap);
	environ_save();
	return 0;
}

/* ------------------------------------------------------------ output */

/* The program's own output would repeat once per execution: during
 * executions fds 1 and 2 go to /dev/null, unless WEFT_PROGRAM_OUTPUT=1
 * (replays, debugging). */
static int devnull = -1, saved_out = -1, saved_err = -1;
static bool show_output;

static void output_mute(void)
{
	if (show_output)
		return;
	if (devnull < 0) {
		const char *e = getenv("WEFT_PROGRAM_OUTPUT");
		show_output = e && !strcmp(e, "1");
		if (show_output)
			return;
		devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
		saved_out = fcntl(1, F_DUPFD_CLOEXEC, 3);
		saved_err = fcntl(2, F_DUPFD_CLOEXEC, 3);
		if (devnull < 0 || saved_out < 0 || saved_err < 0) {
			show_output = true;
			return;
		}
	}
	fflush(stdout);
	fflush(stderr);
	dup2(devnull, 1);
	dup2(devnull, 2);
}

static void output_restore(void)
{
	if (show_output || devnull < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
}

/* ------------------------------------------------------------- reset */

static uint8_t *world_base(void)
{
	return rt_w.base;
}

static size_t core_offset(void)
{
	return 0;   /* the first page of the mapping */
}

/* __thread variables: each thread has its own copy of the executable's
 * TLS block. All fibers run on one host thread, so one block is live
 * (rt_img.tls_data); world_resume() saves the copy of the thread that left
 * it and puts in the copy of the thread that runs (its initial image on its
 * first run). Accesses to them are not scheduling points: they are the
 * thread's own. A thread-local's address handed to another thread reads
 * that thread's copy instead (docs/testing-c-programs.md, "Limits"). */
static uint8_t *tls_copies;        /* WEFT_EXEC_MAX_THREADS x tls_memsz */
static uint64_t tls_saved;         /* bit t: thread t's copy is in tls_copies */
static int tls_owner = -1;         /* whose copy is live (-1: the initial image) */

static void tls_initial_image(void)
{
	memcpy(rt_img.tls_data, rt_img.tls_init, rt_img.tls_filesz);
	memset((uint8_t *)rt_img.tls_data + rt_img.tls_filesz, 0,
	       rt_img.tls_memsz - rt_img.tls_filesz);
}

static void world_resume(unsigned tid)
{
	if (!tls_copies || (int)tid == tls_owner)
		return;
	size_t n = rt_img.tls_memsz;
	if (tls_owner >= 0) {
		memcpy(tls_copies + (size_t)tls_owner * n, rt_img.tls_data, n);
		tls_saved |= 1ull << tls_owner;
	}
	if (tls_saved >> tid & 1)
		memcpy(rt_img.tls_data, tls_copies + (size_t)tid * n, n);
	else
		tls_initial_image();
	tls_owner = (int)tid;
}

/* Thread tid's copy of the __thread block as it is now: the live block if
 * it ran last, its saved copy, or NULL when it never ran (its copy is then
 * the initial image, which holds no heap pointer). The leak scan's roots. */
const uint8_t *rt_tls_copy(unsigned tid, size_t *n)
{
	if (!rt_img.tls_data || !rt_img.tls_memsz)
		return NULL;
	*n = rt_img.tls_memsz;
	if ((int)tid == tls_owner)
		return rt_img.tls_data;
	if (tls_copies && tid < WEFT_EXEC_MAX_THREADS && (tls_saved >> tid & 1))
		return tls_copies + (size_t)tid * rt_img.tls_memsz;
	return NULL;
}

/* stdin: every execution must read the same input. A regular file is
 * rewound before each execution (the stream and the descriptor); /dev/null
 * gives every execution the same end of file; anything else (a pipe, a
 * terminal) cannot be read again, so a program that read it through the
 * stream (its buffer exists, or it met the end) is refused before its
 * next execution: later executions would have read what the first left
 * (a search of `echo 2 | weft run ./prog` saw the 2 once and called the
 * program verified on executions that read nothing). */
static enum { STDIN_OTHER, STDIN_FILE, STDIN_NULL } stdin_kind;
static off_t stdin_off0;

void rt_stdin_init(void)
{
	struct stat st, dn;
	off_t o = lseek(0, 0, SEEK_CUR);

	if (fstat(0, &st) != 0)
		stdin_kind = STDIN_NULL;   /* closed: every read fails alike */
	else if (S_ISREG(st.st_mode) && o >= 0) {
		stdin_kind = STDIN_FILE;
		stdin_off0 = o;
	} else if (stat("/dev/null", &dn) == 0 && st.st_dev == dn.st_dev && st.st_ino == dn.st_ino)
		stdin_kind = STDIN_NULL;
	else
		stdin_kind = STDIN_OTHER;
}

static void stdin_rewind(void)
{
	if (stdin_kind == STDIN_FILE) {
		fseeko(stdin, stdin_off0, SEEK_SET);
		clearerr(stdin);
	} else if (stdin_kind == STDIN_OTHER && (stdin->_IO_read_base || feof(stdin))) {
		fprintf(stderr, "weft: the program read its standard input, which is not a file: "
			"only the first execution saw it, and the next would read what that "
			"one left; give the input as a file (./prog < FILE), which every "
			"execution reads from the start (docs/testing-c-programs.md)\n");
		fflush(NULL);
		_exit(WEFT_EXIT_USAGE);
	}
}

/* The environment main() found: putenv() and setenv() in one execution
 * must not carry to the next (a getenv() that sees them, or an entry that
 * points into the last execution's heap arena, which the leak check takes
 * for a root: rt_heap.c). The array and its entries as they were, put
 * back at every execution's start (unsetenv() shifts entries in place). */
static char **environ0;
static char **environ0_copy;
static size_t environ0_n;

static void environ_save(void)
{
	environ0 = environ;
	while (environ0 && environ0[environ0_n])
		environ0_n++;
	environ0_copy = malloc((environ0_n + 1) * sizeof(char *));
	if (environ0_copy && environ0)
		memcpy(environ0_copy, environ0, (environ0_n + 1) * sizeof(char *));
}

static void environ_restore(void)
{
	if (!environ0 || !environ0_copy)
		return;
	memcpy(environ0, environ0_copy, (environ0_n + 1) * sizeof(char *));
	environ = environ0;
}

static void world_reset(uint8_t *world, size_t size)
{
	(void)world;
	(void)size;
	stdin_rewind();
	environ_restore();
	memcpy(rt_w.snap_lo, rt_w.snapshot, (size_t)(rt_w.snap_hi - rt_w.snap_lo));
	/* __thread variables start from their initial values in every
	 * thread of every execution: else an execution saw what the last one
	 * left there (SV-COMP's pthread-ext/46_monabsex2_vs came out a false
	 * alarm) */
	if (rt_img.tls_data) {
		if (!tls_copies && rt_img.tls_memsz)
			tls_copies = calloc(WEFT_EXEC_MAX_THREADS, rt_img.tls_memsz);
		/* the live copy is the running thread's: await compares it
		 * across a spin's iterations with its stack */
		weft_user_tls = rt_img.tls_data;
		weft_user_tls_size = rt_img.tls_memsz;
		tls_initial_image();
		tls_saved = 0;
		tls_owner = -1;
	}
	rt_heap_reset();
	rt_escape_reset();
	rt_threads_reset();
	memset(&rt_x, 0, sizeof(rt_x));
	rt_pthread_np_reset();
	rt_time_reset();
	rt_random_reset();
	rt_x.rand_state = 1;
	output_mute();
	rt_lim = rt_w.size;
}

static void world_done(uint8_t *world, size_t size)
{
	(void)world;
	(void)size;
	rt_lim = 0;
	rt_x.pend_site = NULL;
	memset(rt_x.deferred, 0, sizeof(rt_x.deferred));
	output_restore();
}

const struct weft_world_ops rt_world_ops = {
	.base = world_base,
	.core_offset = core_offset,
	.reset = world_reset,
	.done = world_done,
	.resume = world_resume,
};
