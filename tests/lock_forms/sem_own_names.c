/*
 * sem_own_names.c - a model with a down_timeout() of its own (as models
 * written before <weft/sleep.h> had it) still builds:
 * WEFT_OWN_SEMAPHORE_TIMEOUT keeps the header's out (CHANGELOG.md). Built
 * into bin/weft-lock-forms; without the switch this file does not compile.
 */
#define WEFT_OWN_SEMAPHORE_TIMEOUT
#include <weft/kernel.h>

int down_timeout(struct semaphore *sem, long jiffies);

int down_timeout(struct semaphore *sem, long jiffies)
{
	return weft_down_timeout(&sem->weft, jiffies,
				 WEFT_SITE(WEFT_EV_LOCK, "own down_timeout(sem)"));
}
