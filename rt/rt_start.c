/*
 * rt_start.c - the one object of libweft_rt_start.a, linked into an
 * instrumented executable with -Wl,--wrap=main (weft-cc and
 * weft_instrument() add both): the C runtime's call of main() arrives
 * here, and libweft_rt decides whether the program runs natively or as a
 * weft program (rt_main.c). It is a static object because only the
 * executable's own link can name its main() (__real_main).
 *
 * It also receives -fsanitize-coverage=trace-pc's call at every basic block
 * (weft-cc compiles with it): a loop that touches only its own state never
 * reaches a scheduling point, and the runtime bounds it by counting blocks
 * (rt_tsan.c). Defined here, in the executable, because libFuzzer in
 * libweft_rt.so has a function of the same name for its own purposes.
 */
int __real_main(int argc, char **argv, char **envp);
int __wrap_main(int argc, char **argv, char **envp);
int weft_rt_main(int argc, char **argv, char **envp, int (*real_main)(int, char **, char **));

int __wrap_main(int argc, char **argv, char **envp)
{
	return weft_rt_main(argc, argv, envp, __real_main);
}

void weft_rt_block(void);
void __sanitizer_cov_trace_pc(void);

void __sanitizer_cov_trace_pc(void)
{
	weft_rt_block();
}
