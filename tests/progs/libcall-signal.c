/* libcall-signal.c -- a library call made both by the program and by a
 * signal handler that interrupts it every 50 us, library call or not:
 * the handler's calls come while the recorder pushes the program's
 * pending return, which they must not overwrite (the program aborted,
 * "the real return address is lost").  Prints how many calls each made. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

__attribute__((noinline)) int inst(const char *s)
{
	return (int)strlen(s);
}

static volatile long in_handler;

static void on_alarm(int sig)
{
	(void)sig;
	in_handler += inst("handler") > 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000000, in_main = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 50}, {0, 50}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; i < n; i++)
		in_main += inst("main") > 0;
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("main %ld handler %ld\n", in_main, (long)in_handler);
	return 0;
}
