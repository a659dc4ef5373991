/* sigjumps.c -- siglongjmp out of a timer signal's handler, wherever the
 * signal lands, the recorder included.
 *
 *   sigjumps SEED ROUNDS
 *
 * Each round arms the jump and dives into a random walk of nested calls;
 * a timer signal every 50 us runs a handler that, while armed, calls an
 * instrumented function that jumps back to the round's start.  A signal
 * that comes while the handler runs (SA_NODEFER) calls an instrumented
 * function and returns.  Between rounds, with the jump disarmed, main
 * calls mark() once.  Prints "ROUNDS JUMPS": the trace must hold ROUNDS
 * calls of mark at depth 1 and the end of main.
 *
 * Every event made is then either recorded or counted lost, which the
 * counting oracle (tests/oracle/tee.S) checks per function, provided the
 * handler jumps only where the event in progress is known to both: in the
 * program's own instrumented code (no hook running), or while the
 * recorder is busy with an event, which it then recorded whole or counts
 * lost.  Not inside the oracle's hook, nor in the few instructions of the
 * recorder's hook before it marks itself busy: an event abandoned there is
 * counted by the oracle and unknown to the recorder.  So the handler's
 * first part is not instrumented; it reads the recorder's per-thread
 * state (its first byte, see enum ctrace__state in lib/internal.h) and
 * the interrupted instruction's address.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>

#include "walk.h"

/* The instrumented functions, apart from every hook's code. */
#define WALK __attribute__((noinline, section("sigjumps_walk")))
extern const char __start_sigjumps_walk[], __stop_sigjumps_walk[];

/* The recorder's per-thread state; a weak stand-in in the oracle's own
 * build, which has no recorder (never busy there). */
__thread unsigned char ctrace__self[1] __attribute__((weak));
#define RECORDER_BUSY 2    /* CTRACE_T_BUSY: its event not stored yet */
#define RECORDER_SETTLED 5 /* CTRACE_T_SETTLED: its event stored */

static sigjmp_buf env;
static volatile sig_atomic_t armed;
static volatile long jumps;
static volatile int sink;

static volatile int level; /* of the handler */

WALK static void jump_out(int sig)
{
	(void)sig;
	armed = 0;
	jumps++;
	siglongjmp(env, 1);
}

UNTRACED static uintptr_t interrupted_pc(const void *ctx)
{
	const ucontext_t *uc = ctx;
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#else
	return (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
#endif
}

/* A handler nested in another (l 1) records its call or counts it lost
 * (nested in one that interrupted the recorder's handler path). */
WALK static void nested(int sig)
{
	sink += sig;
}

UNTRACED static void on_timer(int sig, siginfo_t *info, void *ctx)
{
	(void)info;
	int l = level++;
	if (l == 0 && armed) {
		uintptr_t pc = interrupted_pc(ctx);
		unsigned char state = ctrace__self[0];
		int in_walk = pc >= (uintptr_t)__start_sigjumps_walk &&
			      pc < (uintptr_t)__stop_sigjumps_walk;
		if (in_walk || state == RECORDER_BUSY ||
		    state == RECORDER_SETTLED)
			jump_out(sig);
	} else if (l == 1) {
		nested(sig);
	}
	level--;
}

WALK static int leaf(int x)
{
	return x + 1;
}

WALK static void dive(int depth)
{
	unsigned n = pick(3);
	for (unsigned i = 0; i < n && depth < 30; i++)
		dive(depth + 1);
	sink += leaf(depth);
}

WALK static void mark(long round)
{
	sink += (int)round;
}

WALK int main(int argc, char **argv)
{
	if (!walk_start(argc, argv))
		return 2;
	long rounds = budget;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_timer;
	sa.sa_flags = SA_NODEFER | SA_SIGINFO;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 50}, {0, 50}};
	setitimer(ITIMER_REAL, &it, NULL);

	for (long r = 0; r < rounds; r++) {
		if (sigsetjmp(env, 1) == 0) {
			armed = 1;
			for (int k = 0; k < 20; k++)
				dive(1);
			armed = 0;
		} else {
			level = 0;
		}
		mark(r);
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("%ld %ld\n", rounds, (long)jumps);
	return 0;
}
