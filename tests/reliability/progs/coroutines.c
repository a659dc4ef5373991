/* coroutines.c -- coroutines (swapcontext) that call, yield and return at
 * random.
 *
 *   coroutines SEED CALLS
 *
 * main resumes one of four coroutines at random, each on a 128 KiB stack
 * of its own (allocated together, so the stacks may lie side by side),
 * until CALLS calls were made.  Prints "DEPTH NAME" for every call, in
 * order, main at depth 0 (a resumed coroutine's open calls are not calls
 * again: the tree shows one line for the switch).
 */
#include <ucontext.h>

#include "walk.h"

#define COROUTINES 4
#define STACK_SIZE (128 << 10)
#define MAX_CHAIN 24

static ucontext_t main_ctx, co_ctx[COROUTINES];
static int running;
static int chain_len[COROUTINES];
static int finished[COROUTINES];

/* Calls in a coroutine sit below main and resume(). */
UNTRACED static void enter(const char *name)
{
	chain_len[running]++;
	note(1 + chain_len[running], name);
}

UNTRACED static void leave(void)
{
	chain_len[running]--;
}

NOINLINE static void yield(void)
{
	enter("yield");
	swapcontext(&co_ctx[running], &main_ctx);
	leave();
}

NOINLINE static void work(void);
NOINLINE static void big_work(void);

UNTRACED static void step(void)
{
	unsigned n = pick(4);

	for (unsigned i = 0; i < n && budget > 0; i++) {
		unsigned r = pick(10);
		budget--;
		if (r < 3 && chain_len[running] < MAX_CHAIN - 2)
			work();
		else if (r < 5 && chain_len[running] < MAX_CHAIN - 2)
			big_work();
		else if (r < 9)
			yield();
	}
}

NOINLINE static void work(void)
{
	enter("work");
	step();
	leave();
}

NOINLINE static void big_work(void)
{
	volatile char buf[2000];

	buf[0] = 0;
	enter("big_work");
	step();
	leave();
	(void)buf[0];
}

NOINLINE static void co_main(void)
{
	enter("co_main");
	while (budget > 0)
		step();
	leave();
	finished[running] = 1;
}

/* A resumed coroutine's open calls nest below the resume() that switched
 * to it again, but are not new calls. */
NOINLINE static void resume(int i)
{
	note(1, "resume");
	running = i;
	swapcontext(&main_ctx, &co_ctx[i]);
}

int main(int argc, char **argv)
{
	char *stacks;

	if (!walk_start(argc, argv))
		return 2;
	stacks = malloc((size_t)COROUTINES * STACK_SIZE);
	if (stacks == NULL)
		return 1;
	note(0, "main");
	for (int i = 0; i < COROUTINES; i++) {
		getcontext(&co_ctx[i]);
		co_ctx[i].uc_stack.ss_sp = stacks + (size_t)i * STACK_SIZE;
		co_ctx[i].uc_stack.ss_size = STACK_SIZE;
		co_ctx[i].uc_link = &main_ctx;
		makecontext(&co_ctx[i], co_main, 0);
	}
	while (budget > 0) {
		int i = (int)pick(COROUTINES);
		if (!finished[i])
			resume(i);
	}
	/* let every coroutine run to its end */
	for (int i = 0; i < COROUTINES; i++)
		while (!finished[i])
			resume(i);
	free(stacks);
	return 0;
}
