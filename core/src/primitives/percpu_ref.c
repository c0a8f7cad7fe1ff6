/*
 * percpu_ref.c - percpu_ref on per-CPU counters (<weft/percpu_ref.h>),
 * following lib/percpu-refcount.c of v6.x: __ref_is_percpu(),
 * percpu_ref_get_many(), percpu_ref_tryget_live(), percpu_ref_put_many(),
 * percpu_ref_kill_and_confirm(), __percpu_ref_switch_mode(),
 * __percpu_ref_switch_to_atomic(), percpu_ref_switch_to_atomic_rcu() and
 * percpu_ref_call_confirm_rcu().
 *
 * Written on the public primitives only (kernel.h, rcu.h): the same source
 * is the controlled library's and the native one's. The switch's wait for
 * an in-progress switch (wait_event_lock_irq on percpu_ref_switch_waitq) is
 * rcu_barrier(): the switch ends in an RCU callback queued before the wait.
 */
#include <weft/percpu_ref.h>

static void noop_confirm(struct percpu_ref *ref)
{
	(void)ref;
}

/* __ref_is_percpu(): one READ_ONCE of the mode word. */
static bool ref_is_percpu(struct percpu_ref *ref)
{
	return !(READ_ONCE(ref->percpu_count_ptr) & __PERCPU_REF_ATOMIC_DEAD);
}

static long count_add(struct percpu_ref *ref, long nr, const struct weft_site *s)
{
	return (long)weft_access(&ref->count.counter, sizeof(ref->count.counter), WEFT_A_ADD,
				 (uint64_t)nr, 0, s);
}

/* this_cpu_add(*percpu_count, nr) */
static void pcpu_add(struct percpu_ref *ref, long nr, const struct weft_site *s)
{
	long *c = &ref->percpu_count[weft_percpu_slot(raw_smp_processor_id(), WEFT_MAX_CPUS)];

	(void)weft_access(c, sizeof(*c), WEFT_A_ADD, (uint64_t)nr, 0, s);
}

int (percpu_ref_init)(struct percpu_ref *ref, percpu_ref_func_t *release, unsigned flags)
{
	unsigned long mode = 0;
	long start = 0;

	if (!WEFT_CHECK_WORLD(ref, "percpu_ref_init()"))
		return -1;   /* as -ENOMEM: no ref */
	weft_unpoison(ref->percpu_count, sizeof(ref->percpu_count),
		      WEFT_SITE(WEFT_EV_ALLOC, "percpu_ref_init(): alloc_percpu()"));
	ref->allow_reinit = flags & PERCPU_REF_ALLOW_REINIT;
	if (flags & (PERCPU_REF_INIT_ATOMIC | PERCPU_REF_INIT_DEAD)) {
		mode |= __PERCPU_REF_ATOMIC;
		ref->allow_reinit = true;
	} else {
		start += PERCPU_COUNT_BIAS;
	}
	if (flags & PERCPU_REF_INIT_DEAD)
		mode |= __PERCPU_REF_DEAD;
	else
		start++;
	for (unsigned cpu = 0; cpu < nr_cpu_ids && cpu < WEFT_MAX_CPUS; cpu++)
		WRITE_ONCE(ref->percpu_count[cpu], 0l);
	atomic_long_set(&ref->count, start);
	WRITE_ONCE(ref->switching, 0);
	WRITE_ONCE(ref->force_atomic, (flags & PERCPU_REF_INIT_ATOMIC) ? 1 : 0);
	ref->release = release;
	ref->confirm_switch = NULL;
	WRITE_ONCE(ref->percpu_count_ptr, mode);
	return 0;
}

void percpu_ref_exit(struct percpu_ref *ref)
{
	weft_poison(ref->percpu_count, sizeof(ref->percpu_count),
		    WEFT_SITE(WEFT_EV_FREE, "__percpu_ref_exit(): free_percpu()"));
}

void weft_percpu_ref_get_many(struct percpu_ref *ref, unsigned long nr, const struct weft_site *s)
{
	rcu_read_lock();
	if (ref_is_percpu(ref)) {
		pcpu_add(ref, (long)nr, s);
	} else if (count_add(ref, (long)nr, s) == 0) {
		weft_report(WEFT_KIND_INC_FROM_ZERO, &ref->count,
			    WEFT_SITE(WEFT_EV_NOTE, "percpu_ref_get(): count 0 in atomic mode"),
			    "%s on a released percpu_ref (atomic count 0)", s->what);
	}
	rcu_read_unlock();
}

bool weft_percpu_ref_tryget_many(struct percpu_ref *ref, unsigned long nr,
				 const struct weft_site *s)
{
	bool ret;

	rcu_read_lock();
	if (ref_is_percpu(ref)) {
		pcpu_add(ref, (long)nr, s);
		ret = true;
	} else {
		ret = (long)weft_access(&ref->count.counter, sizeof(ref->count.counter),
					WEFT_A_ADD_UNLESS, (uint64_t)nr, 0, s) != 0;
	}
	rcu_read_unlock();
	return ret;
}

bool weft_percpu_ref_tryget_live(struct percpu_ref *ref, const struct weft_site *s)
{
	bool ret = false;

	rcu_read_lock();
	if (ref_is_percpu(ref)) {
		pcpu_add(ref, 1, s);
		ret = true;
	} else if (!(READ_ONCE(ref->percpu_count_ptr) & __PERCPU_REF_DEAD)) {
		ret = (long)weft_access(&ref->count.counter, sizeof(ref->count.counter),
					WEFT_A_ADD_UNLESS, 1, 0, s) != 0;
	}
	rcu_read_unlock();
	return ret;
}

void weft_percpu_ref_put_many(struct percpu_ref *ref, unsigned long nr, const struct weft_site *s)
{
	rcu_read_lock();
	if (ref_is_percpu(ref)) {
		pcpu_add(ref, -(long)nr, s);
	} else {
		long now = count_add(ref, -(long)nr, s) - (long)nr;
		if (now == 0)
			ref->release(ref);
		else if (now < 0)
			weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, &ref->count,
				    WEFT_SITE(WEFT_EV_NOTE, "percpu_ref_put(): count below 0"),
				    "%s took the atomic count to %ld", s->what, now);
	}
	rcu_read_unlock();
}

/* percpu_ref_switch_to_atomic_rcu() + percpu_ref_call_confirm_rcu(): after
 * a grace period every CPU sees atomic mode; sum the per-CPU counters. */
static void switch_to_atomic_rcu(struct rcu_head *head)
{
	struct percpu_ref *ref = weft_list_entry(head, struct percpu_ref, rcu);
	long count = 0;

	for (unsigned cpu = 0; cpu < nr_cpu_ids && cpu < WEFT_MAX_CPUS; cpu++)
		count += READ_ONCE(ref->percpu_count[cpu]);
	long now = atomic_long_add_return(count - PERCPU_COUNT_BIAS, &ref->count);
	if (now <= 0)
		weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, &ref->count,
			    WEFT_SITE(WEFT_EV_NOTE, "percpu_ref_switch_to_atomic_rcu(): count <= 0"),
			    "percpu ref <= 0 (%ld) after switching to atomic", now);
	/* @ref is viewed as dead on all CPUs, send out switch confirmation */
	percpu_ref_func_t *confirm = ref->confirm_switch;
	confirm(ref);
	ref->confirm_switch = NULL;
	WRITE_ONCE(ref->switching, 0);
	if (!ref->allow_reinit)
		percpu_ref_exit(ref);
	/* drop the reference taken by the switch */
	percpu_ref_put(ref);
}

static void switch_to_atomic(struct percpu_ref *ref, percpu_ref_func_t *confirm,
			     const struct weft_site *s)
{
	unsigned long old = (unsigned long)weft_access(&ref->percpu_count_ptr,
						       sizeof(ref->percpu_count_ptr), WEFT_A_OR,
						       __PERCPU_REF_ATOMIC, 0, s);

	if (old & __PERCPU_REF_ATOMIC) {
		if (confirm)
			confirm(ref);
		return;
	}
	/* Non-NULL ->confirm_switch marks a switch in progress. */
	ref->confirm_switch = confirm ? confirm : noop_confirm;
	WRITE_ONCE(ref->switching, 1);
	percpu_ref_get(ref);   /* put after confirmation */
	call_rcu_hurry(&ref->rcu, switch_to_atomic_rcu);
}

/* __percpu_ref_switch_mode() with switch_lock held: wait out a switch in
 * progress (dropping the lock), then switch to atomic when dying or forced
 * (switching back to per-CPU mode is not modelled). */
static void switch_mode(struct percpu_ref *ref, percpu_ref_func_t *confirm,
			const struct weft_site *s)
{
	while (READ_ONCE(ref->switching)) {
		spin_unlock(&ref->switch_lock);
		rcu_barrier();
		spin_lock(&ref->switch_lock);
	}
	switch_to_atomic(ref, confirm, s);
}

void weft_percpu_ref_kill_and_confirm(struct percpu_ref *ref, percpu_ref_func_t *confirm_kill,
				      const struct weft_site *s)
{
	spin_lock(&ref->switch_lock);
	unsigned long old = (unsigned long)weft_access(&ref->percpu_count_ptr,
						       sizeof(ref->percpu_count_ptr), WEFT_A_OR,
						       __PERCPU_REF_DEAD, 0, s);
	if (old & __PERCPU_REF_DEAD) {
		spin_unlock(&ref->switch_lock);
		weft_report(WEFT_KIND_WARN_ON, &ref->percpu_count_ptr,
			    WEFT_SITE(WEFT_EV_NOTE, "percpu_ref_kill_and_confirm(): already dying"),
			    "%s called more than once", s->what);
		return;
	}
	switch_mode(ref, confirm_kill, WEFT_SITE(WEFT_EV_RMW, "__percpu_ref_switch_to_atomic()"));
	spin_unlock(&ref->switch_lock);
	percpu_ref_put(ref);   /* the initial reference (after the unlock: see the header) */
}

void weft_percpu_ref_switch_to_atomic(struct percpu_ref *ref, percpu_ref_func_t *confirm,
				      const struct weft_site *s)
{
	spin_lock(&ref->switch_lock);
	WRITE_ONCE(ref->force_atomic, 1);
	switch_mode(ref, confirm, s);
	spin_unlock(&ref->switch_lock);
}

void weft_percpu_ref_switch_wait(struct percpu_ref *ref, const struct weft_site *s)
{
	weft_rcu_might_sleep(s);
	while (weft_access(&ref->switching, sizeof(ref->switching), WEFT_A_LOAD, 0, 0, s))
		rcu_barrier();
}

bool weft_percpu_ref_is_zero(struct percpu_ref *ref, const struct weft_site *s)
{
	if (ref_is_percpu(ref))
		return false;
	/* the kernel's rcu_read_lock() here protects ref->data, which the
	 * model does not free apart from the ref */
	return weft_access(&ref->count.counter, sizeof(ref->count.counter), WEFT_A_LOAD, 0, 0,
			   s) == 0;
}

bool weft_percpu_ref_is_dying(struct percpu_ref *ref, const struct weft_site *s)
{
	return weft_access(&ref->percpu_count_ptr, sizeof(ref->percpu_count_ptr), WEFT_A_LOAD, 0,
			   0, s) & __PERCPU_REF_DEAD;
}
