/*
 * main waits for a worker's reply, but counts its wake-ups: after three
 * with no reply it takes the worker for stuck, frees the request and
 * leaves, and the worker, late, writes the freed request. Spurious
 * wake-ups alone (WEFT_SPURIOUS_WAKEUPS=1) reach the give-up path: a
 * waiter woken spuriously again with nothing changed since is an unfair
 * choice (Weft sees the wait and the others' changes, not the counter),
 * which plain dfs --bound none's fairness bound of 0 prunes, saying the
 * search is not complete; with a fairness bound of 2 (or a preemption
 * bound of 2: each repeat costs one) dfs finds the bug, and so does
 * random; pct passes a repeat over, as it does a spinning thread. Before,
 * a repeat was never offered and dfs --bound none said "covered
 * completely". The reduction takes no unfair value: dfs falls back to
 * plain dfs (JSON por_why). -DFIXED waits while there is no reply
 * (cond_if_spurious.c's fix), which dfs --bound none cannot certify
 * either: the waiter's spurious wake-ups again are pruned the same way.
 *
 * weft-expect: bug use-after-free
 * weft-expect-fixed: fair-bounded
 * weft-found-by: dfs random
 * weft-env: WEFT_SPURIOUS_WAKEUPS=1
 */
#include <pthread.h>
#include <stdlib.h>

struct req {
	int replied;
	int result;
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct req *req;

static void *worker(void *arg)
{
	struct req *r = req;

	pthread_mutex_lock(&m);
	r->result = 42;
	r->replied = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t t;
	int replied;

	req = calloc(1, sizeof(*req));
	pthread_create(&t, NULL, worker, NULL);
	pthread_mutex_lock(&m);
#ifdef FIXED
	while (!req->replied)
		pthread_cond_wait(&cv, &m);
#else
	for (int tries = 0; tries < 3 && !req->replied; tries++)
		pthread_cond_wait(&cv, &m);
#endif
	replied = req->replied;
	pthread_mutex_unlock(&m);
	if (!replied) {
		/* the worker is taken for stuck: the request freed, main gone */
		free(req);
		pthread_detach(t);
		pthread_exit(NULL);
	}
	pthread_join(t, NULL);
	free(req);
	return 0;
}
