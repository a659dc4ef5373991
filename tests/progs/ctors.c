/* ctors.c -- constructors run before main, atexit handlers and destructors
 * after it; all of them are traced. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static void setup_step(void)
{
	__asm__ volatile("");
}

NOINLINE static void teardown_step(void)
{
	__asm__ volatile("");
}

__attribute__((constructor)) NOINLINE static void early_init(void)
{
	setup_step();
}

NOINLINE static void at_exit_handler(void)
{
	teardown_step();
}

__attribute__((destructor)) NOINLINE static void late_fini(void)
{
	teardown_step();
}

NOINLINE static void work(void)
{
	__asm__ volatile("");
}

int main(void)
{
	atexit(at_exit_handler);
	work();
	return 0;
}
