/*
 * kthread_init.c - the task of a new kthread, as both builds fill it
 * (primitives/kthread.c, native/native_kthread.c): its name from the
 * caller's format, its function, and -EINTR until the function returns
 * (kthread(): a kthread stopped before it runs never calls it).
 */
#include <errno.h>
#include <stdio.h>

#include <weft/kthread.h>

void weft_kthread_init(struct task_struct *p, int (*threadfn)(void *data), void *data,
		       const char *namefmt, va_list ap)
{
	vsnprintf(p->comm, sizeof(p->comm), namefmt, ap);
	p->weft_kthread = 1;
	p->weft_threadfn = threadfn;
	p->weft_data = data;
	p->weft_result = -EINTR;
}
