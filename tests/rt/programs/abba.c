/*
 * Two threads take two mutexes in opposite orders. lockdep-lite reports
 * the inversion from a serial run, before any deadlock happens. -DFIXED
 * takes them in one order.
 *
 * weft-expect: bug lock-order-inversion
 * weft-expect-fixed: verified
 */
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static int balance[2];

static void *transfer(void *arg)
{
	int from = arg != NULL;
	pthread_mutex_t *first = from ? &b : &a, *second = from ? &a : &b;
#ifdef FIXED
	first = &a;
	second = &b;
#endif
	pthread_mutex_lock(first);
	pthread_mutex_lock(second);
	balance[from]--;
	balance[!from]++;
	pthread_mutex_unlock(second);
	pthread_mutex_unlock(first);
	return arg;
}

int main(void)
{
	pthread_t t[2];

	pthread_create(&t[0], NULL, transfer, NULL);
	pthread_create(&t[1], NULL, transfer, &t[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	return balance[0] + balance[1];
}
