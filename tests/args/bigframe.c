/* bigframe.c -- parameters kept 100 KB below the frame's CFA (at -O0,
 * spilled below a large array): further than a capture plan may reach
 * (CTRACE_PLAN_MAX_OFFSET), so the plan must not name them. */
#include <stdio.h>

__attribute__((noinline)) int big(int a, const char *s)
{
	volatile char buf[100000];
	buf[0] = (char)a;
	buf[sizeof buf - 1] = s[0];
	return buf[0] + buf[sizeof buf - 1];
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", big(argc, "x"));
	return 0;
}
