/* threads.c -- a main thread and three workers.  Each worker is joined
 * before the next one starts, so the workers make their first traced
 * calls in a known order and get thread serials 2, 3 and 4. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static int leaf(int x)
{
	return x + 1;
}

NOINLINE static int work(int n)
{
	int sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += leaf(i);
	return sum;
}

NOINLINE static void *worker(void *arg)
{
	work((int)(intptr_t)arg);
	return NULL;
}

NOINLINE static int run_worker(int n)
{
	pthread_t thread;

	if (pthread_create(&thread, NULL, worker, (void *)(intptr_t)n))
		return -1;
	return pthread_join(thread, NULL);
}

int main(void)
{
	int n;

	work(1);
	for (n = 1; n <= 3; n++)
		if (run_worker(n))
			return 1;
	return 0;
}
