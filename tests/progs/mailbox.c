/* mailbox.c -- calls whose number depends on how two threads interleave,
 * as in a thread pool: main hands ITEMS items to a worker through a
 * mailbox of one slot, trying again while the slot is full, and the worker
 * polls the slot until it gets one.  The sum printed is the same in every
 * run; how many times try_put and try_take are called is not. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static _Atomic int slot; /* 0: empty, else the item + 1 */
static int items = 1000;

NOINLINE static int try_put(int item)
{
	int empty = 0;
	return atomic_compare_exchange_strong(&slot, &empty, item + 1);
}

NOINLINE static int try_take(void)
{
	return atomic_exchange(&slot, 0) - 1;
}

NOINLINE static long consume(int item)
{
	return (long)item * 3 + 1;
}

NOINLINE static void *worker(void *arg)
{
	long *sum = arg;
	int n = 0;

	while (n < items) {
		int item = try_take();
		if (item < 0) {
			sched_yield();
			continue;
		}
		*sum += consume(item);
		n++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t thread;
	long sum = 0;
	int i;

	if (argc > 1)
		items = atoi(argv[1]);
	if (pthread_create(&thread, NULL, worker, &sum) != 0)
		return 1;
	for (i = 0; i < items; i++)
		while (!try_put(i))
			sched_yield();
	pthread_join(thread, NULL);
	printf("%ld\n", sum);
	return 0;
}
