/*
 * kthread.h - tasks and kernel threads (include/linux/sched.h's current,
 * wake_up_process(), get/put_task_struct(); include/linux/kthread.h). A
 * family header of its own: a model includes it when it wants tasks.
 *
 * The model:
 *  - Every model thread has a task (struct task_struct) for the
 *    execution; `current` is the running thread's. A task's state is the
 *    one set_current_state(), prepare_to_wait() and schedule() use
 *    (<weft/timer.h>, <weft/sleep.h>): its location is the task's
 *    weft_state byte, which those calls and wake_up_process() write
 *    through the scheduler as steps of their own, so the race of a
 *    wake-up with a sleeper's condition check is explored. A task asleep
 *    in a sleeping lock, a completion or the page lock (<weft/sleep.h>),
 *    in synchronize_rcu(), rcu_barrier(), flush_work(),
 *    flush_workqueue(), cancel_work_sync(), del_timer_sync() or
 *    kthread_stop() is TASK_UNINTERRUPTIBLE from its block to the
 *    wake-up, which makes it TASK_RUNNING (both steps write the state).
 *    The idle sleeps of Weft's own threads (a workqueue worker's, the RCU
 *    callback kthread's) leave it TASK_RUNNING.
 *  - wake_up_process(p) is try_to_wake_up(p, TASK_NORMAL): a full barrier
 *    (smp_mb__after_spinlock()), then, if p's state is not TASK_RUNNING,
 *    TASK_RUNNING and, if p sleeps in schedule(), runnable. 1 if it woke
 *    p, 0 if p was running. A task on a wait queue stays on it until its
 *    finish_wait(). So the classic lost wake-up - the condition tested
 *    before set_current_state() - is a `lost-wakeup` report, and the
 *    correct order is silent.
 *  - kthread_create() starts a model thread that sleeps until its first
 *    wake-up (kthread_run(): created and woken); if kthread_stop() comes
 *    first, threadfn never runs and the result is -EINTR, as kthread()
 *    does. kthread_should_stop() reads the stop flag (a step).
 *    kthread_stop(k) sets the flag, wakes k and waits for it to end; it
 *    returns threadfn's result.
 *  - A kthread's task is freed when its threadfn returns, unless a
 *    reference is held (get_task_struct(); kthread_stop() holds one while
 *    it runs): wake_up_process(), kthread_stop() or get_task_struct() of a
 *    freed task is a `use-after-free` report. kthread_stop()'s comment:
 *    "if threadfn() may call kthread_exit() itself, the caller must ensure
 *    task_struct can't go away". The tasks of the scenario's own threads
 *    and of weft_thread_spawn() threads are never freed.
 *  - No signals: TASK_INTERRUPTIBLE sleeps as TASK_UNINTERRUPTIBLE does.
 *
 *   current, struct task_struct (pid, comm, flags: the model's)
 *   wake_up_process(p), wake_up_state(p, state), task_is_running(p)
 *   kthread_create(fn, data, fmt, ...), kthread_run(fn, data, fmt, ...)
 *   kthread_create_on_cpu(fn, data, cpu, fmt), kthread_run_on_cpu(...)
 *   kthread_should_stop(), kthread_stop(k), kthread_stop_put(k)
 *   get_task_struct(p), put_task_struct(p)
 *   signal_pending(p), fatal_signal_pending(p) (0: no signals),
 *   set_freezable(), try_to_freeze(), freezing(p), kthread_freezable_should_stop()
 *   (no freezer), set_user_nice(), sched_set_fifo(_low)(), sched_set_normal()
 *   (accepted: priorities are the strategy's)
 *   IS_ERR(p), PTR_ERR(p), ERR_PTR(e) (unless the model defines them)
 *
 * Natively (weft stress) the same calls run on the model's pthreads.
 */
#ifndef WEFT_KTHREAD_H
#define WEFT_KTHREAD_H

#include <stdarg.h>

#include <weft/kernel.h>
#include <weft/sleep.h>
#include <weft/timer.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TASK_NORMAL (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)
#define TASK_COMM_LEN 16

struct task_struct {
	int pid;               /* 1 + the thread number */
	unsigned int flags;    /* PF_*: the model's own */
	char comm[TASK_COMM_LEN];
	/* Weft's: the location of the task's state (never holds it: the
	 * machine does); a wake-up and the sleeper's state changes are
	 * dependent steps on it */
	uint8_t weft_state;
	/* Weft's: kthread_should_stop()'s flag (a traced byte), a kthread,
	 * ended, freed */
	uint8_t weft_should_stop;
	uint8_t weft_kthread;
	uint8_t weft_exited;
	uint8_t weft_freed;
	int weft_usage;        /* references beyond the running thread's own */
	int weft_result;       /* threadfn's result (-EINTR if it never ran) */
	int (*weft_threadfn)(void *data);
	void *weft_data;
};

struct task_struct *weft_current(void);
int weft_wake_up_state(struct task_struct *p, unsigned state, const struct weft_site *s);
bool weft_task_is_running(struct task_struct *p, const struct weft_site *s);
struct task_struct *weft_kthread_create(int (*threadfn)(void *data), void *data, unsigned cpu,
					bool run, const struct weft_site *s, const char *namefmt,
					...) __attribute__((format(printf, 6, 7)));
bool weft_kthread_should_stop(const struct weft_site *s);
int weft_kthread_stop(struct task_struct *k, bool put, const struct weft_site *s);
void weft_get_task_struct(struct task_struct *p, const struct weft_site *s);
void weft_put_task_struct(struct task_struct *p, const struct weft_site *s);
/* Weft's: a new kthread's task filled in (both builds) */
void weft_kthread_init(struct task_struct *p, int (*threadfn)(void *data), void *data,
		       const char *namefmt, va_list ap) __attribute__((format(printf, 4, 0)));

#ifndef WEFT_OWN_CURRENT
#define current (weft_current())
#endif

#define wake_up_process(p) \
	weft_wake_up_state((p), TASK_NORMAL, WEFT_SITE(WEFT_EV_WAKE, "wake_up_process(" #p ")"))
#define wake_up_state(p, state) \
	weft_wake_up_state((p), (state), WEFT_SITE(WEFT_EV_WAKE, "wake_up_state(" #p ")"))
#define task_is_running(p) \
	weft_task_is_running((p), WEFT_SITE(WEFT_EV_READ, "task_is_running(" #p ")"))

#define kthread_create(fn, data, ...) \
	weft_kthread_create((fn), (data), WEFT_CPU_ANY, false, \
			    WEFT_SITE(WEFT_EV_SPAWN, "kthread_create(" #fn ")"), __VA_ARGS__)
#define kthread_run(fn, data, ...) \
	weft_kthread_create((fn), (data), WEFT_CPU_ANY, true, \
			    WEFT_SITE(WEFT_EV_SPAWN, "kthread_run(" #fn ")"), __VA_ARGS__)
#define kthread_create_on_cpu(fn, data, cpu, namefmt) \
	weft_kthread_create((fn), (data), (cpu), false, \
			    WEFT_SITE(WEFT_EV_SPAWN, "kthread_create_on_cpu(" #fn ")"), (namefmt), (cpu))
#define kthread_run_on_cpu(fn, data, cpu, namefmt) \
	weft_kthread_create((fn), (data), (cpu), true, \
			    WEFT_SITE(WEFT_EV_SPAWN, "kthread_run_on_cpu(" #fn ")"), (namefmt), (cpu))
#define kthread_should_stop() \
	weft_kthread_should_stop(WEFT_SITE(WEFT_EV_READ, "kthread_should_stop()"))
#define kthread_stop(k) weft_kthread_stop((k), false, WEFT_SITE(WEFT_EV_JOIN, "kthread_stop(" #k ")"))
#define kthread_stop_put(k) \
	weft_kthread_stop((k), true, WEFT_SITE(WEFT_EV_JOIN, "kthread_stop_put(" #k ")"))
#define get_task_struct(p) \
	weft_get_task_struct((p), WEFT_SITE(WEFT_EV_RMW, "get_task_struct(" #p ")"))
#define put_task_struct(p) \
	weft_put_task_struct((p), WEFT_SITE(WEFT_EV_RMW, "put_task_struct(" #p ")"))

/* No signals and no freezer: what a kthread's loop asks of them */
#define signal_pending(p) ((void)(p), 0)
#define fatal_signal_pending(p) ((void)(p), 0)
#define set_freezable() ((void)0)
#define try_to_freeze() false
#define freezing(p) ((void)(p), false)
#define kthread_freezable_should_stop(was_frozen) \
	((was_frozen) ? (void)(*(bool *)(was_frozen) = false) : (void)0, kthread_should_stop())
#define set_user_nice(p, nice) ((void)(p), (void)(nice))
#define sched_set_fifo(p) ((void)(p))
#define sched_set_fifo_low(p) ((void)(p))
#define sched_set_normal(p, nice) ((void)(p), (void)(nice))

#ifndef IS_ERR
#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) ((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
#define IS_ERR(p) IS_ERR_VALUE(p)
#define PTR_ERR(p) ((long)(p))
#define ERR_PTR(e) ((void *)(long)(e))
#endif

#ifdef __cplusplus
}
#endif
#endif
