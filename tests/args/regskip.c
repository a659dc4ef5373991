/* regskip.c -- a function whose plan entry names registers alone (its
 * arguments inside its ENTRYs, format 6; in ARGS_REGS records in format
 * 5.5, which a 5.4 reader skipped) and one that reads a string too
 * (ARGS_SHORT), their pointers one after the other: the second may be
 * written relative to the first's. */
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int walk(int *p)
{
	return *p;
}

__attribute__((noinline)) int slen(const char *s)
{
	return (int)strlen(s);
}

int main(void)
{
	char *a = malloc(8192);
	int s = 0;
	if (a == NULL)
		return 1;
	memset(a, 'x', 8191);
	a[8191] = 0;
	for (int i = 0; i < 20; i++) {
		s += walk((int *)(a + 8 * i));
		s += slen(a + 8 * i + 4);
	}
	free(a);
	return s == 42;
}
