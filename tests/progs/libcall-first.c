/* libcall-first.c -- a thread whose first event is a library call: its
 * function is not instrumented, and calls strlen before the program's
 * instrumented count().  The recorder registers the thread at that call
 * and records it, with its values.  Prints the length. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static int count(size_t n)
{
	return (int)n + 1;
}

__attribute__((no_instrument_function)) static void *worker(void *arg)
{
	static volatile size_t len;
	len = strlen(arg);
	printf("%zu %d\n", len, count(len));
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, worker, "abcdef") ||
	    pthread_join(t, NULL))
		return 1;
	return 0;
}
