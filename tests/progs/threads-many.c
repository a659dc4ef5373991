/* threads-many.c -- N threads (argv[1]) alive at the same time, each making
 * ten calls of mid() and ten of leaf() once all of them have started: N
 * event streams that the symbolizer reads side by side. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static pthread_barrier_t start;

NOINLINE static int leaf(int x)
{
	return x + 1;
}

NOINLINE static int mid(int x)
{
	return leaf(x) * 2;
}

NOINLINE static void *worker(void *arg)
{
	long sum = 0;

	pthread_barrier_wait(&start);
	for (int i = 0; i < 10; i++)
		sum += mid(i);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	pthread_t *t = calloc((size_t)n, sizeof *t);
	pthread_attr_t attr;
	long total = 0;

	if (!t || n < 1)
		return 2;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], &attr, worker, NULL) != 0)
			return 3;
	pthread_barrier_wait(&start);
	for (int i = 0; i < n; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("%ld\n", total);
	free(t);
	return 0;
}
