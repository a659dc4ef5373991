/* sigrelease.c -- a signal at every place where the recorder unblocks
 * signals, whose handler calls an instrumented function and jumps out.
 *
 *   sigrelease ROUNDS CALLS
 *
 * The program defines syscall(), which the recorder (linked into it)
 * calls to block and restore signals.  At the first block after a round
 * starts, it sends itself SIGUSR1, which stays pending until the recorder
 * unblocks signals: the handler runs exactly there, calls leaf() and
 * jumps back to start the next round, whose first event finds the
 * recorder left by a jump and recovers; the recovery gives its chunk back
 * with signals blocked, so the next round's signal comes as that ends.
 * Each round makes up to CALLS calls of leaf().  Prints "ROUNDS SIGNALS
 * JUMPS CALLS", CALLS the calls of leaf() made, the handler's included.
 *
 *   sigrelease ROUNDS CALLS fork
 *
 * The handler makes a child with _Fork() instead, which calls leaf() and
 * ends (_exit), and returns when the child has; it jumps nowhere.
 * Prints "ROUNDS SIGNALS CHILDREN".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNTRACED __attribute__((no_instrument_function))
#define NOINLINE __attribute__((noinline))

static long (*real_syscall)(long, ...);
static volatile sig_atomic_t armed;
static volatile long signals, jumps, leaf_calls, round_no, children;
static int fork_mode;
static sigjmp_buf env;

UNTRACED __attribute__((constructor(101))) static void find_syscall(void)
{
	real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (real_syscall == NULL) {
		printf("no syscall\n");
		exit(2);
	}
}

UNTRACED long syscall(long n, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (real_syscall == NULL)
		find_syscall();
	long r = real_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (n == SYS_rt_sigprocmask && a[0] == SIG_BLOCK && armed) {
		armed = 0;
		signals++;
		real_syscall(SYS_tgkill, (long)getpid(),
			     real_syscall(SYS_gettid), (long)SIGUSR1);
	}
	return r;
}

NOINLINE static void leaf(void)
{
	leaf_calls++;
}

UNTRACED static void on_signal(int sig)
{
	(void)sig;
	if (fork_mode) {
		pid_t pid = _Fork();
		if (pid == 0) {
			leaf();
			_exit(0);
		}
		if (pid > 0 && waitpid(pid, NULL, 0) == pid)
			children++;
		return;
	}
	leaf();
	jumps++;
	siglongjmp(env, 1);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long rounds = atol(argv[1]), calls = atol(argv[2]);
	fork_mode = argc > 3 && strcmp(argv[3], "fork") == 0;
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigsetjmp(env, 1);
	while (round_no < rounds) {
		round_no++;
		armed = 1;
		for (long i = 0; i < calls; i++)
			leaf();
	}
	armed = 0;
	if (fork_mode)
		printf("%ld %ld %ld\n", rounds, signals, children);
	else
		printf("%ld %ld %ld %ld\n", rounds, signals, jumps, leaf_calls);
	return 0;
}
