/* sigstep.c -- a signal handler at every instruction of the recorder:
 * single-stepped calls, with jumps out of the handlers.
 *
 *   sigstep ROUNDS STEPS
 *
 * Each round single-steps (the trap flag) a call of target(), whose
 * frame is big and which calls leaf(): the hooks, the counting oracle's
 * and the recorder's, run one instruction at a time, and after each one a
 * SIGTRAP handler calls the instrumented nested().  At one instruction of
 * the round (the round's step, 1 to STEPS), where the event in progress is
 * known to both the oracle and the recorder (as in sigjumps.c: the program's
 * own instrumented code, or the recorder busy or settled), the handler
 * jumps back to the round's start instead (even rounds), or (odd rounds,
 * the recorder busy) calls inner(), single-stepped too: its events go to
 * the thread's signal stream, and a handler nested in this one calls
 * nested() at each of its instructions, or at the round's second step
 * jumps out of both handlers if the signal stream's write is under way
 * (its busy flag, the second byte of the recorder's per-thread state) or
 * inner's own code runs.  Then main steps through a call of mark(), with
 * one call of nested() at one of its instructions: after a jump, the
 * recorder recovers there, with a handler at any point of it.
 *
 * Stepping stops at a system call instruction: the recorder blocks every
 * signal around its locks, and a trap with SIGTRAP blocked kills.
 *
 * Prints "ROUNDS TRAPS JUMPS".  Every event made must be recorded or
 * counted lost, exactly (tests/oracle/compare.py --lost).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define UNTRACED __attribute__((no_instrument_function))
/* The instrumented functions, apart from every hook's code. */
#define WALK __attribute__((noinline, section("sigstep_walk")))
extern const char __start_sigstep_walk[], __stop_sigstep_walk[];

/* The recorder's per-thread state: its state (enum ctrace__state in
 * lib/internal.h) and its signal stream's busy flag; a weak stand-in in
 * the oracle's own build, which has no recorder. */
__thread unsigned char ctrace__self[2] __attribute__((weak));
#define RECORDER_BUSY 2    /* CTRACE_T_BUSY */
#define RECORDER_SETTLED 5 /* CTRACE_T_SETTLED */

static sigjmp_buf env;
static volatile int sink, level;
static volatile long traps, jumps, steps, nested_steps;
static volatile long step, nested_step, mark_step, odd;

WALK static void nested(int x)
{
	sink += x;
}

WALK static void inner(int x)
{
	sink += x;
}

WALK static int leaf(int x)
{
	return x + 1;
}

WALK static int target(int x)
{
	volatile char pad[8192];
	pad[x & 4095] = (char)x;
	return leaf(x) + pad[(x + 1) & 4095];
}

WALK static void mark(long round)
{
	sink += (int)round;
}

WALK static void jump_out(void)
{
	jumps++;
	siglongjmp(env, 1);
}

#if defined(__x86_64__)
#define TRAP_FLAG 0x100
UNTRACED static inline void trap_on(void)
{
	__asm__ volatile("pushf; orl $0x100, (%%rsp); popf" ::: "memory", "cc");
}
UNTRACED static inline void trap_off(void)
{
	__asm__ volatile("pushf; andl $~0x100, (%%rsp); popf" ::: "memory",
			 "cc");
}
#endif

UNTRACED static void on_trap(int sig, siginfo_t *info, void *ctx)
{
	(void)info;
#if defined(__x86_64__)
	ucontext_t *uc = ctx;
	const unsigned char *pc =
		(const unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
	if (pc[0] == 0x0f && pc[1] == 0x05) /* syscall */
		uc->uc_mcontext.gregs[REG_EFL] &= ~TRAP_FLAG;
	traps++;
	int in_walk = pc >= (const unsigned char *)__start_sigstep_walk &&
		      pc < (const unsigned char *)__stop_sigstep_walk;
	if (mark_step) {
		if (++steps == mark_step)
			nested(sig);
		return;
	}
	int l = level++;
	if (l == 0) {
		unsigned char state = ctrace__self[0];
		if (++steps == step &&
		    (in_walk || state == RECORDER_BUSY ||
		     state == RECORDER_SETTLED)) {
			if (!odd || in_walk)
				jump_out();
			nested_steps = 0;
			trap_on();
			inner(sig);
			trap_off();
		} else {
			nested(sig);
		}
	} else if (l == 1) {
		if (++nested_steps == nested_step &&
		    (in_walk || ctrace__self[1] != 0))
			jump_out();
		nested(sig);
	}
	level--;
#else
	(void)sig;
	(void)ctx;
#endif
}

WALK int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long rounds = strtol(argv[1], NULL, 10);
	long max_step = strtol(argv[2], NULL, 10);
#if defined(__x86_64__)
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_NODEFER | SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	for (long r = 0; r < rounds; r++) {
		if (sigsetjmp(env, 1) == 0) {
			steps = 0;
			mark_step = 0;
			odd = r & 1;
			step = 1 + (r >> 1) % max_step;
			nested_step = 1 + (r * 7) % max_step;
			trap_on();
			sink += target((int)r);
			trap_off();
		}
		level = 0;
		steps = 0;
		mark_step = 1 + (r * 13) % max_step;
		trap_on();
		mark(r);
		trap_off();
	}
#else
	rounds = 0;
#endif
	printf("%ld %ld %ld\n", rounds, (long)traps, (long)jumps);
	return 0;
}
