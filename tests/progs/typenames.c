/* typenames.c -- parameters whose types are qualified pointers: a
 * qualifier of the pointer itself is written after its star. */
#include <stdio.h>

__attribute__((noinline)) int f(const char *const s, const int *const p,
				char *const q, volatile int *volatile v)
{
	printf("%s %d %s %d\n", s, *p, q, *v);
	return *p;
}

int main(void)
{
	int x = 7;
	volatile int y = 8;
	char b[] = "qq";
	return f("ss", &x, b, &y) - 7;
}
