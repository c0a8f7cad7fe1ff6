/*
 * The main thread frees a node a reader thread may still be using: the
 * reader loads the pointer, is preempted, and dereferences freed memory.
 * -DFIXED unpublishes the node and waits for the reader before freeing.
 *
 * weft-expect: bug use-after-free
 * weft-expect-fixed: verified
 */
#include <pthread.h>
#include <stdlib.h>

struct node {
	int key;
	int value;
};

static struct node *_Atomic published;
int result;   /* not static: the compiler keeps the store */

static void *reader(void *arg)
{
	struct node *n = published;
	if (n)
		result = n->value;
	return arg;
}

int main(void)
{
	pthread_t t;
	struct node *n = malloc(sizeof(*n));

	n->key = 1;
	n->value = 42;
	published = n;
	pthread_create(&t, NULL, reader, NULL);
	published = NULL;
#ifdef FIXED
	pthread_join(t, NULL);
	free(n);
#else
	free(n);
	pthread_join(t, NULL);
#endif
	return 0;
}
