/*
 * native_tasks.h - what native_kthread.c calls of native_sleep.c: the
 * task state of thread tid lives with its sleeper entry there.
 */
#ifndef WEFT_NATIVE_TASKS_H
#define WEFT_NATIVE_TASKS_H

#include <stdbool.h>

/* try_to_wake_up(): TASK_RUNNING and woken if tid's state is one of state */
bool weft_native_task_wake(unsigned tid, unsigned state);
bool weft_native_task_running(unsigned tid);

#endif
