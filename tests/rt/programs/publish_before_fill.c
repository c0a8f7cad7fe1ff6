/*
 * A publisher allocates a zeroed message buffer and publishes it; a
 * filler writes the greeting into the buffer, but only if it is already
 * published. When the filler looks first, the buffer is published empty
 * and main finds no greeting (one reversal, no preemption).
 *
 * What it pins: the allocation is the publisher's first record and has
 * no scheduling point of its own, and the machine passes a new thread's
 * first point without a decision, so the allocation and the publishing
 * store are one transition. Source- and optimal DPOR once logged them as
 * two events, dropped the store's race with the filler's load as
 * irreversible and certified this program after two executions.
 * -DFIXED: the publisher writes the greeting itself before publishing.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define GREETING "hello"

static char *message;

static void *publisher(void *arg)
{
#ifdef FIXED
	char *buf = calloc(16, 1);
	strcpy(buf, GREETING);
	message = buf;
#else
	message = calloc(16, 1);
#endif
	return arg;
}

static void *filler(void *arg)
{
	char *buf = message;

	if (buf)
		strcpy(buf, GREETING);
	return arg;
}

int main(void)
{
	pthread_t p, f;

	pthread_create(&p, NULL, publisher, NULL);
	pthread_create(&f, NULL, filler, NULL);
	pthread_join(p, NULL);
	pthread_join(f, NULL);
	assert(!message || message[0] == GREETING[0]);
	free(message);
	return 0;
}
