/*
 * shared_lib.c - the library half of rt_shared_lib_refused: a counter in a
 * shared library, built with -fsanitize=thread. Its global is outside the
 * program's world, so Weft would not restore it between executions (the
 * second execution of shared_main.c saw 4 and reported a false assertion)
 * nor see its accesses: weft run refuses the program, naming the library.
 */
int shared_counter;

void shared_inc(void);
void shared_inc(void)
{
	__atomic_fetch_add(&shared_counter, 1, __ATOMIC_SEQ_CST);
}

int shared_get(void);
int shared_get(void)
{
	return __atomic_load_n(&shared_counter, __ATOMIC_SEQ_CST);
}
