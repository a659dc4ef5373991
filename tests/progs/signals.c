/* signals.c -- a timer signal whose handler makes traced calls while the
 * program is busy making traced calls, so that the handler often
 * interrupts the recorder itself.  Prints how many times the handler ran;
 * every one of those runs must show in the trace. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define NOINLINE __attribute__((noinline))

static volatile sig_atomic_t ticks;

NOINLINE static void on_tick(void)
{
	ticks++;
}

NOINLINE static void handler(int sig)
{
	(void)sig;
	on_tick();
}

NOINLINE static void leaf(void)
{
	__asm__ volatile("");
}

int main(void)
{
	struct itimerval timer;
	struct sigaction sa;
	long i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	memset(&timer, 0, sizeof timer);
	timer.it_interval.tv_usec = 200;
	timer.it_value.tv_usec = 200;
	setitimer(ITIMER_REAL, &timer, NULL);
	for (i = 0; ticks < 200 && i < 100000000; i++)
		leaf();
	memset(&timer, 0, sizeof timer);
	setitimer(ITIMER_REAL, &timer, NULL);
	printf("%d\n", (int)ticks);
	return 0;
}
