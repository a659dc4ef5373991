/* longjmp.c -- calls left by longjmp() never return through the exit
 * hook; the symbolizer closes them when the thread is next seen further
 * out on the stack. */
#include <setjmp.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static jmp_buf env;

NOINLINE static void jumper(int depth)
{
	if (depth == 0)
		longjmp(env, 1);
	jumper(depth - 1);
}

NOINLINE static void after_jump(void)
{
	__asm__ volatile("");
}

/* After the jump, a call: its entry shows the jumper frames are gone. */
NOINLINE static int jump_then_call(void)
{
	if (setjmp(env)) {
		after_jump();
		return 1;
	}
	jumper(2);
	return 0;
}

/* After the jump, a return: its exit shows the same. */
NOINLINE static int jump_then_return(void)
{
	if (setjmp(env))
		return 1;
	jumper(1);
	return 0;
}

NOINLINE static void done(void)
{
	__asm__ volatile("");
}

int main(void)
{
	int n = jump_then_call();

	n += jump_then_return();
	done();
	printf("%d\n", n);
	return n == 2 ? 0 : 1;
}
