/*
 * bank.c - an ordinary pthread program, the kind Weft runs unmodified
 * (docs/testing-c-programs.md): tellers move money between accounts, each
 * account under its own mutex, and an auditor checks that the total is
 * constant. The transfer checks the balance before it takes the locks, so
 * two transfers out of one account can both pass the check and overdraw
 * it: the auditor's assert fails. -DFIXED checks under the locks.
 *
 *   ./bank                      runs natively (the bug is rare there)
 *   weft run ./bank --strategy pct --out found
 *   weft replay found/(the file it names)
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ACCOUNTS 3

struct account {
	pthread_mutex_t lock;
	int balance;
};

static struct account accounts[ACCOUNTS];

struct transfer {
	int from, to, amount;
};

static void lock_pair(int a, int b)
{
	/* one global order: the lower index first */
	pthread_mutex_lock(&accounts[a < b ? a : b].lock);
	pthread_mutex_lock(&accounts[a < b ? b : a].lock);
}

static void unlock_pair(int a, int b)
{
	pthread_mutex_unlock(&accounts[a].lock);
	pthread_mutex_unlock(&accounts[b].lock);
}

static void *teller(void *arg)
{
	const struct transfer *t = arg;

#ifndef FIXED
	if (accounts[t->from].balance < t->amount)
		return NULL;   /* refused */
	lock_pair(t->from, t->to);
#else
	lock_pair(t->from, t->to);
	if (accounts[t->from].balance < t->amount) {
		unlock_pair(t->from, t->to);
		return NULL;
	}
#endif
	accounts[t->from].balance -= t->amount;
	accounts[t->to].balance += t->amount;
	unlock_pair(t->from, t->to);
	return NULL;
}

int main(void)
{
	static const struct transfer work[] = { { 0, 1, 70 }, { 0, 2, 60 } };
	pthread_t t[2];

	for (int i = 0; i < ACCOUNTS; i++) {
		pthread_mutex_init(&accounts[i].lock, NULL);
		accounts[i].balance = 100;
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, teller, (void *)&work[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	int total = 0;
	for (int i = 0; i < ACCOUNTS; i++) {
		assert(accounts[i].balance >= 0);
		total += accounts[i].balance;
	}
	printf("total %d\n", total);
	return total == 100 * ACCOUNTS ? 0 : 1;
}
