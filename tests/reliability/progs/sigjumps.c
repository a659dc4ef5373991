/* sigjumps.c -- siglongjmp out of a timer signal's handler, wherever the
 * signal lands, the recorder included.
 *
 *   sigjumps SEED ROUNDS
 *
 * Each round arms the jump and dives into a random walk of nested calls;
 * a timer signal every 50 us runs an instrumented handler (re-entered by
 * later signals: SA_NODEFER) that, while armed, jumps back to the round's
 * start.  Between rounds, with the jump disarmed, main calls mark() once.
 * Prints "ROUNDS JUMPS": the trace must hold ROUNDS calls of mark at depth
 * 1 and the end of main, and lose at most one event per jump.
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "walk.h"

static sigjmp_buf env;
static volatile sig_atomic_t armed;
static volatile long jumps;
static volatile int sink;

NOINLINE static void on_timer(int sig)
{
	(void)sig;
	if (armed) {
		armed = 0;
		jumps++;
		siglongjmp(env, 1);
	}
}

NOINLINE static int leaf(int x)
{
	return x + 1;
}

NOINLINE static void dive(int depth)
{
	unsigned n = pick(3);
	for (unsigned i = 0; i < n && depth < 30; i++)
		dive(depth + 1);
	sink += leaf(depth);
}

NOINLINE static void mark(long round)
{
	sink += (int)round;
}

int main(int argc, char **argv)
{
	if (!walk_start(argc, argv))
		return 2;
	long rounds = budget;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_timer;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 50}, {0, 50}};
	setitimer(ITIMER_REAL, &it, NULL);

	for (long r = 0; r < rounds; r++) {
		if (sigsetjmp(env, 1) == 0) {
			armed = 1;
			for (int k = 0; k < 20; k++)
				dive(1);
			armed = 0;
		}
		mark(r);
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("%ld %ld\n", rounds, (long)jumps);
	return 0;
}
