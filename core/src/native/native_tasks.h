/*
 * native_tasks.h - what the native files call of each other:
 * native_kthread.c of native_sleep.c (the task state of thread tid lives
 * with its sleeper entry there), native.c of native_workqueue.c.
 */
#ifndef WEFT_NATIVE_TASKS_H
#define WEFT_NATIVE_TASKS_H

#include <stdbool.h>

/* try_to_wake_up(): TASK_RUNNING and woken if tid's state is one of state */
bool weft_native_task_wake(unsigned tid, unsigned state);
bool weft_native_task_running(unsigned tid);
/* The current thread polls in a wait the kernel sleeps in
 * (synchronize_rcu(), rcu_barrier(), flush_work(), flush_workqueue(),
 * cancel_work_sync(), del_timer_sync(), kthread_stop()): asleep,
 * TASK_UNINTERRUPTIBLE for task_is_running(), until it is done (!asleep:
 * TASK_RUNNING). */
void weft_native_task_polls(bool asleep);

/* native_workqueue.c: every spawned thread has ended (end of an
 * iteration): the work records and the workqueues made start over */
void weft_native_workqueue_reset(void);

#endif
