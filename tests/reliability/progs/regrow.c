/* regrow.c -- threads created and joined one at a time, while the
 * recorder's table of mapped windows of the trace grows and moves.
 *
 *   regrow THREADS CALLS [move]
 *
 * THREADS threads, one after the other, each making CALLS calls of
 * leaf(); prints "done THREADS".  With "move", the recorder's test switch
 * (ctrace__file_regrow, lib/file.c) moves the table at every addition, so
 * that each one is a growth point: a pointer kept into the old table
 * faults.  Prints "no switch" and exits 2 when the recorder has none.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNTRACED __attribute__((no_instrument_function))
#define NOINLINE __attribute__((noinline))

extern int ctrace__file_regrow __attribute__((weak));

static volatile unsigned long sink;
static long calls;

NOINLINE static void leaf(void)
{
	sink++;
}

NOINLINE static void *body(void *arg)
{
	for (long i = 0; i < calls; i++)
		leaf();
	return arg;
}

/* Before main's first event, which starts the recorder (the C library
 * passes a constructor the program's arguments). */
UNTRACED __attribute__((constructor(101))) static void move_switch(
	int argc, char **argv)
{
	if (argc < 4 || strcmp(argv[3], "move") != 0)
		return;
	if (&ctrace__file_regrow == NULL) {
		printf("no switch\n");
		exit(2);
	}
	ctrace__file_regrow = 1;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long n = atol(argv[1]);
	calls = atol(argv[2]);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, body, NULL) != 0 ||
		    pthread_join(t, NULL) != 0) {
			printf("thread %ld failed\n", i);
			return 1;
		}
	}
	printf("done %ld\n", n);
	return 0;
}
