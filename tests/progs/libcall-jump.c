/* libcall-jump.c -- ROUNDS jumps out of a signal handler, each raised by
 * the program from a library call (raise) at one of 8 depths, the handler
 * leaving with siglongjmp; then CALLS calls of getppid.
 *
 * siglongjmp is a library call that never returns: its return is not
 * patched.  It was: its entry stayed in the recorder's list of patched
 * frames, its slot (in the handler's frame, deeper than the program's
 * next calls) still holding the trampoline, taken for a frame still
 * running; after 16,384 of them the list was full, and every later
 * library call went unrecorded, unsaid.
 *
 *	libcall-jump ROUNDS CALLS
 *	prints "pid 1", "jumps N" and "calls N"
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static sigjmp_buf env;
static volatile long jumps;

__attribute__((noinline)) static void on_usr1(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(env, 1);
}

/* raise at depth d, each level a frame of 256 bytes */
__attribute__((noinline)) static void down(int d)
{
	volatile char pad[256];
	pad[0] = (char)d;
	if (d > 0) {
		down(d - 1);
		return;
	}
	raise(SIGUSR1); /* the handler jumps out of it */
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long rounds = strtol(argv[1], NULL, 10);
	long calls = strtol(argv[2], NULL, 10), done = 0;
	signal(SIGUSR1, on_usr1);
	/* Each slot bound before the list fills: a first call through a slot
	 * the loader binds lazily that finds the list full leaves it the
	 * loader's, and the calls after it are neither recorded nor counted
	 * until a call through another slot is recorded (doc/recording.md). */
	printf("pid %d\n", getppid() > 0);
	for (volatile long r = 0; r < rounds; r++)
		if (sigsetjmp(env, 1) == 0)
			down((int)(r % 8));
	for (long i = 0; i < calls; i++, done++)
		getppid();
	printf("jumps %ld\n", (long)jumps);
	printf("calls %ld\n", done);
	return 0;
}
