/* errno.c -- the hooks must leave errno alone: at the first traced call
 * (when the recorder starts), in a new thread (its first event), and over
 * many calls (when the recorder moves to new chunks).  Exit status 0 when
 * errno always survived; otherwise a message says where it did not. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

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

int main(void)
{
	pthread_t thread;
	int i;

	if (pthread_create(&thread, NULL, worker, NULL) ||
	    pthread_join(thread, NULL))
		return 2;
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
