/* libcall-jump.c -- a signal handler that interrupted the recorder's
 * library-call trampoline leaves it with siglongjmp: the library calls
 * after it are recorded as before.
 *
 * The recorder's slow path for the first call of getppid (a new pair,
 * inside the trampoline's C side) is made 20 ms longer (testdelay.h); a
 * timer 1 ms after the call's start sends SIGALRM, whose handler jumps
 * back, out of the recorder.  Then CALLS more calls of getppid.  The
 * handler counts the jumps that came from inside the recorder's delay
 * (the timer fired during the call): 1 in any run, as 20 ms of the
 * recorder's busy time lie after the 1 ms.
 *
 *	libcall-jump CALLS
 *	prints "jumps N" and "calls N" (after the jump)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

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

__attribute__((noinline)) static long more_calls(long n)
{
	long done = 0;
	for (long i = 0; i < n; i++) {
		getppid();
		done++;
	}
	return done;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	long n = atol(argv[1]);
	char *delay[] = {argv[0], "delay", "20000000", NULL};
	signal(SIGALRM, on_alarm);
	if (sigsetjmp(env, 1) == 0) {
		testdelay_set(3, delay);
		first_call();
	}
	ctrace__clock_test_delay_ns = 0;
	printf("jumps %d\n", jumps);
	printf("calls %ld\n", more_calls(n));
	return 0;
}
