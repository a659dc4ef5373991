/* nonlocal.c -- calls left without their exit hook:
 *
 *   nonlocal sibling     longjmp, then a call from the frame jumped to whose
 *                        own frame is far larger than the abandoned ones'
 *   nonlocal segv        SIGSEGV caught by an instrumented handler on an
 *                        alternate signal stack, left by siglongjmp
 *   nonlocal coroutine   makecontext/swapcontext: a coroutine on its own
 *                        stack yields twice from inside nested calls
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define NOINLINE __attribute__((noinline))

static jmp_buf env;
static sigjmp_buf senv;

NOINLINE static void leaf(void)
{
	__asm__ volatile("");
}

/* ---- longjmp, then a sibling with a big frame ---- */

NOINLINE static void jump_deep(void)
{
	leaf();
	longjmp(env, 1);
}

NOINLINE static void jump_small(void)
{
	jump_deep();
}

NOINLINE static void big_frame(void)
{
	volatile char buf[8192];
	buf[0] = 1;
	leaf();
	(void)buf[0];
}

NOINLINE static void sibling(void)
{
	if (setjmp(env) == 0)
		jump_small();
	big_frame();
	leaf();
}

/* ---- SIGSEGV on an alternate stack ---- */

NOINLINE static void on_segv(int sig)
{
	(void)sig;
	leaf();
	siglongjmp(senv, 1);
}

NOINLINE static void fault(volatile int *p)
{
	leaf();
	*p = 1;
}

NOINLINE static void segv(void)
{
	static char altstack[1 << 16];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
	struct sigaction sa;

	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(senv, 1) == 0)
		fault(NULL);
	leaf();
}

/* ---- a coroutine ---- */

static ucontext_t main_ctx, co_ctx;

NOINLINE static void yield(void)
{
	swapcontext(&co_ctx, &main_ctx);
}

NOINLINE static void co_inner(void)
{
	leaf();
	yield();
	leaf();
}

NOINLINE static void co_body(void)
{
	co_inner();
	yield();
}

NOINLINE static void resume(void)
{
	swapcontext(&main_ctx, &co_ctx);
}

NOINLINE static void coroutine(void)
{
	size_t size = 1 << 20;
	char *stack = malloc(size);

	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = size;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_body, 0);
	resume();
	leaf();
	resume();
	leaf();
	resume();
	free(stack);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "sibling"))
		sibling();
	else if (!strcmp(mode, "segv"))
		segv();
	else if (!strcmp(mode, "coroutine"))
		coroutine();
	else {
		fprintf(stderr, "nonlocal: unknown mode %s\n", mode);
		return 2;
	}
	leaf();
	return 0;
}
