/* jmpinline.c -- longjmp out of calls that clang -O2 inlines into main:
 * their hooks and those of the calls made after setjmp returns again run
 * in main's frame, with main's call site and stack pointer.  The calls
 * the jump left close before the next ones. */
#include <setjmp.h>

static jmp_buf jb;

int after(int x)
{
	return x;
}

void deep3(int x)
{
	longjmp(jb, x);
}

void deep2(int x)
{
	deep3(x);
}

void deep1(int x)
{
	deep2(x);
}

int main(void)
{
	if (!setjmp(jb))
		deep1(5);
	after(1);
	after(2);
	return 0;
}
