/* libcall-jump.c -- signal handlers that interrupted the recorder's own
 * work and left it with siglongjmp: the library calls after each jump are
 * recorded as before.
 *
 * First the recorder's slow path for the first call of getppid (a new
 * pair, inside the trampoline's C side) is made 20 ms longer
 * (testdelay.h); a timer 1 ms after the call's start sends SIGALRM, whose
 * handler jumps back, out of the recorder.  Then CALLS more calls of
 * getppid.  Then the same out of ctrace_flush (the public API: the
 * recorder's work is made 20 ms longer there too), and CALLS calls again.
 * The handler counts the jumps: 2 in any run, as 20 ms of the recorder's
 * busy time lie after the 1 ms each time.
 *
 *	libcall-jump CALLS
 *	prints "jumps N" and "calls N" (after both jumps)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

#include "ctrace.h"
#include "testdelay.h"

static sigjmp_buf env;
static volatile int jumps;

__attribute__((noinline)) static void on_alarm(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(env, 1);
}

__attribute__((noinline)) static void first_call(void)
{
	struct itimerval it = {{0, 0}, {0, 1000}};
	setitimer(ITIMER_REAL, &it, NULL);
	getppid(); /* the handler jumps out of its trampoline */
}


__attribute__((noinline)) static void flush_call(void)
{
	struct itimerval it = {{0, 0}, {0, 1000}};
	setitimer(ITIMER_REAL, &it, NULL);
	ctrace_flush(); /* the handler jumps out of the recorder's work */
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	long n = strtol(argv[1], NULL, 10), done = 0;
	char *delay[] = {argv[0], "delay", "20000000", NULL};
	signal(SIGALRM, on_alarm);
	if (sigsetjmp(env, 1) == 0) {
		testdelay_set(3, delay);
		first_call();
	}
	ctrace__clock_test_delay_ns = 0;
	/* From main, above the frames the jumps left: a library call made
	 * deeper than the work a jump left is taken for that work's until
	 * one is made at or above it (doc/recording.md). */
	for (long i = 0; i < n; i++, done++)
		getppid();
	if (sigsetjmp(env, 1) == 0) {
		testdelay_set(3, delay);
		flush_call();
	}
	ctrace__clock_test_delay_ns = 0;
	for (long i = 0; i < n; i++, done++)
		getppid();
	printf("jumps %d\n", jumps);
	printf("calls %ld\n", done);
	return 0;
}
