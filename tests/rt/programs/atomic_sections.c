/*
 * SV-COMP's atomic sections (__VERIFIER_atomic_begin/_end) as one
 * transition each, with a scheduling point where they begin: the writer
 * sets x, then y in a section; the reader reads both in a section. Another
 * thread can run between the writer's store of x and its section, so the
 * reader can see x set and y not. -DFIXED puts both stores in the section.
 * (Partial-order reduction once missed this: a section's accesses were
 * steps without decisions, and dfs "verified" the bug.)
 *
 * weft-expect: bug reach-error
 * weft-expect-fixed: verified
 */
#include <pthread.h>

extern void __assert_fail(const char *, const char *, unsigned int, const char *)
	__attribute__((__noreturn__));
void reach_error(void);
void reach_error(void) { __assert_fail("0", "atomic_sections.c", 20, "reach_error"); }
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

int x, y;

static void *writer(void *arg)
{
#ifdef FIXED
	__VERIFIER_atomic_begin();
	x = 1;
#else
	x = 1;
	__VERIFIER_atomic_begin();
#endif
	y = 1;
	__VERIFIER_atomic_end();
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, writer, NULL);
	__VERIFIER_atomic_begin();
	int a = x, b = y;
	__VERIFIER_atomic_end();
	if (a != b)
		reach_error();
	pthread_join(t, NULL);
	return 0;
}
