/* crosscu-b.c -- a host that inlines crosscu.h's functions, one into
 * the other, at -O1 and up: their copies' hooks run in host's frame and
 * name the functions of crosscu-a.c.  Nested as they ran, each call at
 * its depth. */
#include "crosscu.h"

__attribute__((noinline)) void host(int x)
{
	crosscu_outer(x);
	crosscu_outer(x + 2);
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		host(i);
	return crosscu_sink == 0;
}
