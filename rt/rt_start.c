/*
 * rt_start.c - the one object of libweft_rt_start.a, linked into an
 * instrumented executable with -Wl,--wrap=main (weft-cc and
 * weft_instrument() add both): the C runtime's call of main() arrives
 * here, and libweft_rt decides whether the program runs natively or as a
 * weft program (rt_main.c). It is a static object because only the
 * executable's own link can name its main() (__real_main).
 */
int __real_main(int argc, char **argv, char **envp);
int __wrap_main(int argc, char **argv, char **envp);
int weft_rt_main(int argc, char **argv, char **envp, int (*real_main)(int, char **, char **));

int __wrap_main(int argc, char **argv, char **envp)
{
	return weft_rt_main(argc, argv, envp, __real_main);
}
