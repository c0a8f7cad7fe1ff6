/*
 * llist_text.c - 6.12's lib/llist.c under Weft (docs/kernel-text.md): the
 * lock-less list's llist_add_batch() and llist_del_first() in the kernel's
 * own text, a file outside mm/ with headers of its own (the two structs of
 * include/linux/llist.h are written here, as a harness does for what the
 * compatibility headers leave out).
 *
 * The file's comment states the contract: any number of producers, one
 * consumer at a time, unless the consumers never put a deleted node back
 * (llist_del_first() is not ABA-safe).
 *   default    two producers and one consumer: silent
 *   recycle    two consumers, one of which deletes two nodes and puts the
 *              first back: the other's try_cmpxchg() can succeed on a stale
 *              next, so one node has two owners and another none (bug-on)
 * At the end every node has exactly one owner: a thread that took it, or
 * the list.
 */
#include <weft/linux/kernel_compat.h>

struct llist_node { struct llist_node *next; };
struct llist_head { struct llist_node *first; };

#include "ktext_llist.c"

#define NR 3

static struct llist_head head;
static struct llist_node nodes[NR];
static int owners[NR];

static void own(struct llist_node *n)
{
	if (n)
		__atomic_fetch_add(&owners[n - nodes], 1, __ATOMIC_SEQ_CST);
}

static void *producer(void *arg)
{
	struct llist_node *n = arg;

	llist_add_batch(n, n, &head);
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	own(llist_del_first(&head));
	return NULL;
}

static void *recycler(void *arg)
{
	struct llist_node *first = llist_del_first(&head);
	struct llist_node *second = llist_del_first(&head);

	(void)arg;
	if (first)
		llist_add_batch(first, first, &head);
	own(second);
	return NULL;
}

int main(int argc, char **argv)
{
	bool recycle = argc > 1 && strcmp(argv[1], "recycle") == 0;
	pthread_t t[3];
	int n = 0;

	if (recycle) {
		for (int i = NR - 1; i >= 0; i--)
			llist_add_batch(&nodes[i], &nodes[i], &head);
		pthread_create(&t[n++], NULL, consumer, NULL);
		pthread_create(&t[n++], NULL, recycler, NULL);
	} else {
		llist_add_batch(&nodes[0], &nodes[0], &head);
		pthread_create(&t[n++], NULL, producer, &nodes[1]);
		pthread_create(&t[n++], NULL, consumer, NULL);
		pthread_create(&t[n++], NULL, producer, &nodes[2]);
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (struct llist_node *p = head.first; p; p = p->next)
		own(p);
	for (int i = 0; i < NR; i++)
		BUG_ON(owners[i] != 1);
	return 0;
}
