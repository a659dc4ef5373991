/* threads-busy.c -- four threads calling at the same time, so that their
 * chunks interleave in the file.  Each thread makes exactly CALLS calls of
 * leaf() (and one of worker() or main()), whatever the scheduling. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define THREADS 3

static int calls = 20000;
static pthread_barrier_t start;

NOINLINE static int leaf(int x)
{
	return x ^ 1;
}

NOINLINE static int spin(void)
{
	int sum = 0;
	int i;

	for (i = 0; i < calls; i++)
		sum += leaf(i);
	return sum;
}

NOINLINE static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	spin();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[THREADS];
	int i;

	if (argc > 1)
		calls = (int)strtol(argv[1], NULL, 10);
	pthread_barrier_init(&start, NULL, THREADS + 1);
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&threads[i], NULL, worker, NULL))
			return 1;
	pthread_barrier_wait(&start);
	spin();
	for (i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
