// crosscu-b.cc -- a host that inlines crosscu.hh's members, one into the
// other, at -O1 and up: their copies' hooks run in host's frame and name
// the copies of crosscu-a.cc.  Nested as they ran, each call at its
// depth.
#include "crosscu.hh"

__attribute__((noinline)) int host(int x)
{
	Acc a;
	a.twice(x);
	a.twice(x + 2);
	return a.v;
}

int main()
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += host(i);
	return s == 0;
}
