/*
 * seqlock.h - sequence counters and sequential locks for Weft models
 * (include/linux/seqlock.h, v6.12), as the kernel writes them, on Weft's
 * marked accesses, barriers and spinlocks. A family header of its own: a
 * model includes it when it wants these.
 *
 * The reader's side takes no lock: read_seqcount_begin() spins
 * (cpu_relax()) while the sequence is odd, then smp_rmb();
 * read_seqcount_retry() is smp_rmb() and a re-read of the sequence. The
 * writer's side is an increment of the sequence, smp_wmb(), the update,
 * smp_wmb(), an increment: writers must exclude each other (a seqlock_t's
 * spinlock, or the model's own lock for a bare seqcount_t). So what the
 * search finds is what the kernel gets wrong:
 *  - a reader that uses what it read without read_seqcount_retry(), or a
 *    writer that does not bump the sequence (a torn snapshot: the model's
 *    own check);
 *  - two writers of one seqcount_t with no lock between them (the
 *    sequence goes even in mid-update);
 *  - a reader in an interrupt or on the writer's own CPU while the
 *    writer is preempted with the sequence odd (it spins for ever: a
 *    `livelock`, the reason write_seqcount_begin() wants preemption off);
 *  - under `--memory lkmm`, a missing smp_rmb()/smp_wmb() in open-coded
 *    variants.
 * Every seqcount_LOCKNAME_t is a counter as seqcount_t is (a type of its
 * own): the associated lock is only a lockdep annotation in the kernel,
 * and the init forms accept it. write_seqcount_begin() of a bare
 * seqcount_t with preemption on is a `warn-on` (the kernel's
 * seqprop_assert(): lockdep_assert_preemption_disabled());
 * raw_write_seqcount_begin() checks nothing, as the kernel's.
 *
 *   seqcount_t, SEQCNT_ZERO(name), seqcount_init(s),
 *   seqcount_spinlock_t (raw_spinlock, rwlock, mutex), seqcount_LOCKNAME_init(s, lock)
 *   read_seqcount_begin(s), raw_read_seqcount_begin(s), __read_seqcount_begin(s)
 *   raw_read_seqcount(s), read_seqcount_retry(s, start), __read_seqcount_retry(s, start)
 *   write_seqcount_begin(s), write_seqcount_end(s), raw_write_seqcount_begin(s),
 *   raw_write_seqcount_end(s), write_seqcount_invalidate(s)
 *   seqlock_t, DEFINE_SEQLOCK(name), seqlock_init(sl)
 *   read_seqbegin(sl), read_seqretry(sl, start)
 *   write_seqlock(sl), write_sequnlock(sl) and their _bh, _irq and
 *   _irqsave(sl, flags)/_irqrestore(sl, flags) forms
 *   read_seqlock_excl(sl), read_sequnlock_excl(sl) (and _bh, _irq)
 *   read_seqbegin_or_lock(sl, &seq), need_seqretry(sl, seq), done_seqretry(sl, seq)
 *
 * A model with kernel names of its own for these defines WEFT_OWN_SEQLOCK
 * before including it.
 */
#ifndef WEFT_SEQLOCK_H
#define WEFT_SEQLOCK_H

#include <weft/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* seqcount_t: the sequence, odd while a writer is inside */
struct weft_seqcount {
	unsigned sequence;
};

/* seqcount_LOCKNAME_t: the same counter, a type of its own (the kernel's
 * holds the lock), so that write_seqcount_begin() tells a bare seqcount_t */
struct weft_seqcount_locked {
	unsigned sequence;
};

/* seqlock_t: the sequence and the writers' spinlock */
struct weft_seqlock {
	struct weft_seqcount seqcount;
	struct weft_spinlock lock;
};

#ifndef WEFT_OWN_SEQLOCK

typedef struct weft_seqcount seqcount_t;
typedef struct weft_seqcount_locked seqcount_spinlock_t;
typedef struct weft_seqcount_locked seqcount_raw_spinlock_t;
typedef struct weft_seqcount_locked seqcount_rwlock_t;
typedef struct weft_seqcount_locked seqcount_mutex_t;
typedef struct weft_seqlock seqlock_t;

#define SEQCNT_ZERO(name) { 0 }
#define __weft_seq_load(s, name)                                                        \
	((unsigned)WEFT_ACCESS(&(s)->sequence, WEFT_A_LOAD, 0, 0, WEFT_EV_READ, name))
#define __weft_seq_store(s, v, name)                                                    \
	((void)WEFT_ACCESS(&(s)->sequence, WEFT_A_STORE, (v), 0, WEFT_EV_WRITE, name))

#define seqcount_init(s) __weft_seq_store(s, 0, "seqcount_init(" #s ")")
#define seqcount_spinlock_init(s, lock) ((void)(lock), seqcount_init(s))
#define seqcount_raw_spinlock_init(s, lock) ((void)(lock), seqcount_init(s))
#define seqcount_rwlock_init(s, lock) ((void)(lock), seqcount_init(s))
#define seqcount_mutex_init(s, lock) ((void)(lock), seqcount_init(s))

/* __read_seqcount_begin(): wait for an even sequence (no barrier after) */
#define __weft_read_seqcount_begin(s, name)                                             \
	({                                                                              \
		unsigned __weft_seq;                                                    \
		while ((__weft_seq = __weft_seq_load(s, name)) & 1)                    \
			cpu_relax();                                                    \
		__weft_seq;                                                             \
	})
#define __read_seqcount_begin(s) __weft_read_seqcount_begin(s, "__read_seqcount_begin(" #s ")")
/* the begin, then smp_rmb(): the reader's loads stay after it */
#define __weft_read_seqcount_begin_rmb(s, what)                                         \
	({                                                                              \
		unsigned __weft_rs = __weft_read_seqcount_begin(s, what);               \
		smp_rmb();                                                              \
		__weft_rs;                                                              \
	})
#define raw_read_seqcount_begin(s) __weft_read_seqcount_begin_rmb(s, "raw_read_seqcount_begin(" #s ")")
#define read_seqcount_begin(s) __weft_read_seqcount_begin_rmb(s, "read_seqcount_begin(" #s ")")
/* raw_read_seqcount(): the sequence as it is, odd or not */
#define raw_read_seqcount(s)                                                            \
	({                                                                              \
		unsigned __weft_rs = __weft_seq_load(s, "raw_read_seqcount(" #s ")");   \
		smp_rmb();                                                              \
		__weft_rs;                                                              \
	})
#define __read_seqcount_retry(s, start) \
	(__weft_seq_load(s, "__read_seqcount_retry(" #s ")") != (unsigned)(start))
#define read_seqcount_retry(s, start)                                                   \
	({                                                                              \
		smp_rmb();                                                              \
		__weft_seq_load(s, "read_seqcount_retry(" #s ")") != (unsigned)(start); \
	})

/* the writer's plain increment (writers exclude each other) */
#define __weft_seq_bump(s, name) \
	__weft_seq_store(s, __weft_seq_load(s, name " load") + 1u, name " store")
/* begin: the bump (odd), then smp_wmb() before the writer's stores;
 * end: smp_wmb() after them, then the bump (even) */
#define __weft_write_seqcount_begin(s, what) \
	do {                                 \
		__weft_seq_bump(s, what);    \
		smp_wmb();                   \
	} while (0)
#define __weft_write_seqcount_end(s, what) \
	do {                               \
		smp_wmb();                 \
		__weft_seq_bump(s, what);  \
	} while (0)
#define raw_write_seqcount_begin(s) __weft_write_seqcount_begin(s, "raw_write_seqcount_begin(" #s ")")
#define raw_write_seqcount_end(s) __weft_write_seqcount_end(s, "raw_write_seqcount_end(" #s ")")
/* seqprop_assert(): a bare seqcount_t's writer must run with preemption
 * off (lockdep_assert_preemption_disabled(), a warn-on), or a reader on
 * its CPU spins on the odd sequence while it is preempted. A
 * seqcount_LOCKNAME_t's (lockdep_assert_held() of its lock) is not
 * checked: the lock is not kept. The site is outside the weft_sites
 * section (WEFT_CHECK_WORLD's way): no model's fingerprint changes. */
static inline void __weft_seqprop_none(const struct weft_site *s)
{
	(void)s;
}
#define __weft_seqprop_assert(s, what_)                                                 \
	({                                                                              \
		static struct weft_site __weft_sps = {                                  \
			__FILE__, __func__, (what_), __LINE__, WEFT_EV_NOTE, 0,          \
			WEFT_SITE_FLAGS_DEFAULT };                                      \
		_Generic((s), struct weft_seqcount * : weft_assert_preemption_disabled, \
			 default : __weft_seqprop_none)(&__weft_sps);                    \
	})
#define write_seqcount_begin(s)                                                         \
	do {                                                                            \
		__weft_seqprop_assert(s, "write_seqcount_begin(" #s ")");              \
		__weft_write_seqcount_begin(s, "write_seqcount_begin(" #s ")");         \
	} while (0)
#define write_seqcount_end(s) __weft_write_seqcount_end(s, "write_seqcount_end(" #s ")")
/* write_seqcount_invalidate(): the sequence moves on by two, so every
 * reader in progress retries */
#define write_seqcount_invalidate(s)                                                    \
	do {                                                                            \
		smp_wmb();                                                              \
		__weft_seq_store(s, __weft_seq_load(s, "write_seqcount_invalidate(" #s ") load") + 2u, \
				 "write_seqcount_invalidate(" #s ") store");             \
	} while (0)

/* seqlock_t */
#define DEFINE_SEQLOCK(name) seqlock_t name = { { 0 }, { 0 } }
#define seqlock_init(sl)                                                                \
	do {                                                                            \
		seqcount_init(&(sl)->seqcount);                                         \
		spin_lock_init(&(sl)->lock);                                            \
	} while (0)
#define read_seqbegin(sl) __weft_read_seqcount_begin_rmb(&(sl)->seqcount, "read_seqbegin(" #sl ")")
#define read_seqretry(sl, start)                                                        \
	({                                                                              \
		smp_rmb();                                                              \
		__weft_seq_load(&(sl)->seqcount, "read_seqretry(" #sl ")") != (unsigned)(start); \
	})

#define __weft_write_seqlock(sl, lock_stmt, name)                   \
	do {                                                        \
		lock_stmt;                                          \
		__weft_write_seqcount_begin(&(sl)->seqcount, name); \
	} while (0)
#define __weft_write_sequnlock(sl, unlock_stmt, name)             \
	do {                                                      \
		__weft_write_seqcount_end(&(sl)->seqcount, name); \
		unlock_stmt;                                      \
	} while (0)
#define write_seqlock(sl) __weft_write_seqlock(sl, spin_lock(&(sl)->lock), "write_seqlock(" #sl ")")
#define write_sequnlock(sl) \
	__weft_write_sequnlock(sl, spin_unlock(&(sl)->lock), "write_sequnlock(" #sl ")")
#define write_seqlock_bh(sl) \
	__weft_write_seqlock(sl, spin_lock_bh(&(sl)->lock), "write_seqlock_bh(" #sl ")")
#define write_sequnlock_bh(sl) \
	__weft_write_sequnlock(sl, spin_unlock_bh(&(sl)->lock), "write_sequnlock_bh(" #sl ")")
#define write_seqlock_irq(sl) \
	__weft_write_seqlock(sl, spin_lock_irq(&(sl)->lock), "write_seqlock_irq(" #sl ")")
#define write_sequnlock_irq(sl) \
	__weft_write_sequnlock(sl, spin_unlock_irq(&(sl)->lock), "write_sequnlock_irq(" #sl ")")
#define write_seqlock_irqsave(sl, flags) \
	__weft_write_seqlock(sl, spin_lock_irqsave(&(sl)->lock, flags), \
			     "write_seqlock_irqsave(" #sl ")")
#define write_sequnlock_irqrestore(sl, flags) \
	__weft_write_sequnlock(sl, spin_unlock_irqrestore(&(sl)->lock, flags), \
			       "write_sequnlock_irqrestore(" #sl ")")

/* A reader that locks out the writers (and other locking readers)
 * instead of retrying; the sequence does not move. */
#define read_seqlock_excl(sl) spin_lock(&(sl)->lock)
#define read_sequnlock_excl(sl) spin_unlock(&(sl)->lock)
#define read_seqlock_excl_bh(sl) spin_lock_bh(&(sl)->lock)
#define read_sequnlock_excl_bh(sl) spin_unlock_bh(&(sl)->lock)
#define read_seqlock_excl_irq(sl) spin_lock_irq(&(sl)->lock)
#define read_sequnlock_excl_irq(sl) spin_unlock_irq(&(sl)->lock)

/* The lockless pass first (seq even), then, once the caller makes seq
 * odd, a pass under the lock:
 *     int seq = 0;
 *     again: read_seqbegin_or_lock(&sl, &seq); ...;
 *     if (need_seqretry(&sl, seq)) { seq = 1; goto again; }
 *     done_seqretry(&sl, seq);                                          */
#define read_seqbegin_or_lock(sl, seqp)                                                 \
	do {                                                                            \
		if (!(*(seqp) & 1))                                                     \
			*(seqp) = (int)read_seqbegin(sl);                               \
		else                                                                    \
			read_seqlock_excl(sl);                                          \
	} while (0)
#define need_seqretry(sl, seq) (!((seq) & 1) && read_seqretry(sl, seq))
#define done_seqretry(sl, seq)                                                          \
	do {                                                                            \
		if ((seq) & 1)                                                          \
			read_sequnlock_excl(sl);                                        \
	} while (0)

#endif /* WEFT_OWN_SEQLOCK */

#ifdef __cplusplus
}
#endif
#endif
