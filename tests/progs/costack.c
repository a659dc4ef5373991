/* costack.c -- a coroutine whose stack is a local array of main's: its
 * calls run inside the frame of a call that is still open.  foo switches
 * to it, it calls baz and switches back, three times. */
#include <stdio.h>
#include <ucontext.h>

static ucontext_t main_ctx, co_ctx;
static volatile int sink;

__attribute__((noinline)) static void baz(void)
{
	sink++;
}

__attribute__((noinline)) static void bar(void)
{
	for (;;) {
		baz();
		swapcontext(&co_ctx, &main_ctx);
	}
}

__attribute__((noinline)) static void foo(void)
{
	swapcontext(&main_ctx, &co_ctx);
}

int main(void)
{
	char stack[16384];

	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = sizeof stack;
	co_ctx.uc_link = NULL;
	makecontext(&co_ctx, bar, 0);
	for (int i = 0; i < 3; i++)
		foo();
	printf("%d\n", sink);
	return 0;
}
