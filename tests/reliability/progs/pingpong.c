/* pingpong.c -- two coroutines (swapcontext), each DEPTH calls deep, that
 * switch to each other SWITCHES times.
 *
 *   pingpong DEPTH SWITCHES
 *
 * main starts coroutine a; a and b each recurse DEPTH deep (descend), then
 * call ping SWITCHES times, which switches to the other one; a second
 * ping, once b ended, goes back to main.  Prints the calls the program
 * made: "descend N", "ping N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include "walk.h"

#define STACK_SIZE ((size_t)8 << 20)

static ucontext_t main_ctx, ctx[2];
static long depth, switches;
static long descends, pings;

NOINLINE static void ping(int self)
{
	pings++;
	swapcontext(&ctx[self], &ctx[!self]);
}

NOINLINE static void descend(int self, long d)
{
	descends++;
	if (d > 1) {
		descend(self, d - 1);
		return;
	}
	for (long i = 0; i < switches; i++)
		ping(self);
}

UNTRACED static void run_a(void)
{
	descend(0, depth);
	/* b still waits in its last ping: let it end too */
	swapcontext(&ctx[0], &ctx[1]);
}

UNTRACED static void run_b(void)
{
	descend(1, depth);
}

int main(int argc, char **argv)
{
	char *stacks;

	if (argc != 3)
		return 2;
	depth = atol(argv[1]);
	switches = atol(argv[2]);
	if (depth < 1 || switches < 1)
		return 2;
	stacks = malloc(2 * STACK_SIZE);
	if (stacks == NULL)
		return 1;
	for (int i = 0; i < 2; i++) {
		getcontext(&ctx[i]);
		ctx[i].uc_stack.ss_sp = stacks + (size_t)i * STACK_SIZE;
		ctx[i].uc_stack.ss_size = STACK_SIZE;
		ctx[i].uc_link = &main_ctx;
		makecontext(&ctx[i], i ? run_b : run_a, 0);
	}
	swapcontext(&main_ctx, &ctx[0]);
	printf("descend %ld\nping %ld\n", descends, pings);
	free(stacks);
	return 0;
}
