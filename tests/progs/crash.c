/* crash.c -- programs that never return from main.
 *
 *	crash abort|segv	die inside nested calls
 *	crash thread-abort	die while a second thread is inside a call
 *	crash loop		call forever (until killed)
 *	crash loop-threads	call forever in three threads
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int ready[2];

NOINLINE static void leaf(void)
{
	__asm__ volatile("");
}

NOINLINE static void crash_now(const char *how)
{
	if (strcmp(how, "segv") == 0) {
		/* Both volatile, or the compiler drops the store as dead. */
		volatile int *volatile nowhere = NULL;

		*nowhere = 1;
	}
	abort();
}

NOINLINE static void level2(const char *how)
{
	leaf();
	crash_now(how);
}

NOINLINE static void level1(const char *how)
{
	leaf();
	level2(how);
}

/* The second thread: tells main it is inside a call, then waits there. */
NOINLINE static void block_forever(void)
{
	char c = 1;

	if (write(ready[1], &c, 1) != 1)
		abort();
	for (;;)
		pause();
}

NOINLINE static void *blocker(void *arg)
{
	(void)arg;
	leaf();
	block_forever();
	return NULL;
}

NOINLINE static void spin(int depth)
{
	if (depth > 0)
		spin(depth - 1);
	else
		leaf();
}

NOINLINE static void *loop_forever(void *arg)
{
	unsigned i;

	(void)arg;
	for (i = 0;; i++) {
		spin(i % 8);
		/* Pauses keep the trace of a run of a few hundred ms small. */
		if (i % 8 == 7)
			usleep(100);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "abort";
	pthread_t thread;
	char c;

	if (strcmp(how, "loop") == 0)
		loop_forever(NULL);
	if (strcmp(how, "loop-threads") == 0) {
		if (pthread_create(&thread, NULL, loop_forever, NULL) ||
		    pthread_create(&thread, NULL, loop_forever, NULL))
			return 2;
		loop_forever(NULL);
	}
	if (strcmp(how, "thread-abort") == 0) {
		if (pipe(ready) || pthread_create(&thread, NULL, blocker, NULL) ||
		    read(ready[0], &c, 1) != 1)
			return 2;
		how = "abort";
	}
	level1(how);
	return 0;
}
