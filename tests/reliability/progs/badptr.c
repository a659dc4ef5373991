/* badptr.c -- a string argument the program made unreadable.
 *
 *   badptr
 *
 * msg, page-aligned read-only data, is made PROT_NONE with mprotect and
 * passed to takes(), which never reads it; then readable again and passed
 * once more.  Prints "ok".  Recorded with a capture plan that knows
 * takes() takes a string: reading it must never fault.
 */
#include <stdio.h>
#include <sys/mman.h>

#define NOINLINE __attribute__((noinline))

static const char msg[8192] __attribute__((aligned(4096))) = "hello";

NOINLINE int takes(const char *s)
{
	return s != NULL;
}

int main(void)
{
	int n = 0;
	if (mprotect((void *)msg, sizeof msg, PROT_NONE) != 0) {
		perror("mprotect");
		return 1;
	}
	n += takes(msg);
	mprotect((void *)msg, sizeof msg, PROT_READ);
	n += takes(msg);
	printf(n == 2 ? "ok\n" : "wrong\n");
	return 0;
}
