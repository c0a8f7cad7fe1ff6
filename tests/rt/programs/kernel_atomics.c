/*
 * The kernel's atomic API of <weft/linux/kernel_compat.h> (the headers for
 * kernel text): main first checks what each operation returns, single
 * threaded, against atomic_t.txt's definitions; then a lookup races the
 * last put of an object. The bug takes its reference with atomic_inc()
 * on a count the put may have dropped to zero, resurrecting a released
 * object that is then released twice; -DFIXED takes it with
 * atomic_inc_not_zero(), which fails on a dying object.
 *
 * weft-expect: bug bug-on
 * weft-expect-fixed: verified
 * weft-cflags: -I@WEFT_INCLUDE@
 */
#include <weft/linux/kernel_compat.h>

struct obj {
	atomic_t ref;
	int releases;
};

static struct obj object = { ATOMIC_INIT(1), 0 };
static struct obj *table = &object;     /* the table's reference */

static void put(struct obj *o)
{
	if (atomic_dec_and_test(&o->ref)) {
		o->releases++;
		BUG_ON(o->releases > 1);
	}
}

static void *lookup(void *arg)
{
	struct obj *o = READ_ONCE(table);

	(void)arg;
	if (!o)
		return NULL;
#ifdef FIXED
	if (!atomic_inc_not_zero(&o->ref))
		return NULL;
#else
	atomic_inc(&o->ref);
#endif
	put(o);
	return NULL;
}

static void *remove_last(void *arg)
{
	struct obj *o = table;

	(void)arg;
	WRITE_ONCE(table, NULL);
	put(o);
	return NULL;
}

static void check_single_threaded(void)
{
	atomic_t v = ATOMIC_INIT(5);
	atomic_long_t l = ATOMIC_LONG_INIT(7);
	long word = 3, expect;
	int old;

	BUG_ON(xchg(&word, 4) != 3 || word != 4);
	BUG_ON(cmpxchg(&word, 3, 9) != 4 || word != 4);         /* fails: returns the value */
	BUG_ON(cmpxchg(&word, 4, 9) != 4 || word != 9);
	expect = 1;
	BUG_ON(try_cmpxchg(&word, &expect, 2) || expect != 9);   /* fails: expect updated */
	BUG_ON(!try_cmpxchg_release(&word, &expect, 2) || word != 2);
	BUG_ON(atomic_xchg(&v, 6) != 5 || atomic_cmpxchg(&v, 6, 8) != 6 || atomic_read(&v) != 8);
	old = 0;
	BUG_ON(atomic_try_cmpxchg(&v, &old, 1) || old != 8);
	BUG_ON(atomic_fetch_add(2, &v) != 8 || atomic_fetch_sub(1, &v) != 10);
	BUG_ON(atomic_fetch_or(0x10, &v) != 9 || atomic_fetch_and(0x18, &v) != 0x19);
	BUG_ON(atomic_fetch_xor(0x8, &v) != 0x18 || atomic_read(&v) != 0x10);
	BUG_ON(atomic_fetch_inc(&v) != 0x10 || atomic_fetch_dec(&v) != 0x11);
	atomic_set(&v, -1);
	BUG_ON(!atomic_inc_and_test(&v) || atomic_add_negative(1, &v) || !atomic_add_negative(-2, &v));
	atomic_set(&v, 0);
	BUG_ON(atomic_inc_not_zero(&v) || atomic_read(&v) != 0);
	BUG_ON(atomic_fetch_add_unless(&v, 1, 0) != 0 || atomic_add_unless(&v, 5, 0));
	atomic_set(&v, 2);
	BUG_ON(!atomic_add_unless(&v, 5, 0) || atomic_read(&v) != 7);
	atomic_set_release(&v, 3);
	BUG_ON(atomic_read_acquire(&v) != 3);
	BUG_ON(atomic_long_inc_return(&l) != 8 || atomic_long_cmpxchg(&l, 8, 1) != 8);
	BUG_ON(!atomic_long_dec_and_test(&l) || atomic_long_inc_not_zero(&l));
}

int main(void)
{
	pthread_t t[2];

	check_single_threaded();
	pthread_create(&t[0], NULL, lookup, NULL);
	pthread_create(&t[1], NULL, remove_last, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	BUG_ON(object.releases != 1);
	return 0;
}
