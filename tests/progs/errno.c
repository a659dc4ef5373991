/* errno.c -- the hooks must leave errno alone: at the first traced call
 * (when the recorder starts), in a new thread (its first event), and over
 * many calls (when the recorder moves to new chunks).  So must a recorded
 * library call: the errno the library function set reaches the program,
 * and one that sets none leaves the program's, at a thread's first event
 * too.  Exit status 0 when errno always survived; otherwise a message
 * says where it did not. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define UNTRACED __attribute__((no_instrument_function))

static int failures;

/* Runs with errno as the caller set it, after the entry hook. */
NOINLINE static int errno_is(int expected)
{
	return errno == expected;
}

NOINLINE static void nothing(void)
{
	__asm__ volatile("");
}

UNTRACED static void expect(int ok, const char *where)
{
	if (!ok) {
		fprintf(stderr, "errno clobbered: %s\n", where);
		failures++;
	}
}

/* Runs before any other constructor and before any traced call. */
__attribute__((constructor(101))) UNTRACED static void first(void)
{
	errno = 4242;
	expect(errno_is(4242), "by the entry hook of the first call");
	expect(errno == 4242, "by the exit hook of the first call");
}

UNTRACED static void *worker(void *arg)
{
	(void)arg;
	errno = 5151;
	expect(errno_is(5151), "by the first entry hook of a thread");
	expect(errno == 5151, "by the first exit hook of a thread");
	return NULL;
}

/* The thread's first event is a library call's. */
UNTRACED static void *lib_worker(void *arg)
{
	errno = 6262;
	expect(strlen(arg) == 3 && errno == 6262,
	       "by a thread's first library call");
	errno = 0;
	expect(close(-1) == -1 && errno == EBADF,
	       "the library function's, by a thread's library call");
	return NULL;
}

/* Library calls, many (the recorder moves to new chunks): one that sets
 * errno (close(-1): EBADF) and one that sets none (strlen). */
NOINLINE static int library_calls(int n)
{
	static volatile const char *word = "word";
	for (int i = 1; i <= n; i++) {
		errno = 0;
		if (close(-1) != -1 || errno != EBADF) {
			expect(0, "the library function's, by a library call");
			return 0;
		}
		errno = i;
		if (strlen((const char *)word) != 4 || errno != i) {
			expect(0, "by a library call that sets none");
			return 0;
		}
	}
	return 1;
}

int main(void)
{
	pthread_t thread;
	int i;

	if (pthread_create(&thread, NULL, worker, NULL) ||
	    pthread_join(thread, NULL))
		return 2;
	if (pthread_create(&thread, NULL, lib_worker, "abc") ||
	    pthread_join(thread, NULL))
		return 2;
	library_calls(100000);
	for (i = 1; i <= 300000; i++) {
		errno = i;
		nothing();
		if (errno != i) {
			expect(0, "by the hooks of a call in a long run");
			break;
		}
	}
	errno = ENOENT;
	expect(errno_is(ENOENT), "by an entry hook in main");
	return failures ? 1 : 0;
}
