// xcopy.cc -- Box<int>'s members inlined in host (at -O1 and up), their
// hooks given the library's copies' addresses (xcopy.hh): each copy is
// shown at its line in the program, nested as it ran.
#include <cstdio>

#include "xcopy.hh"

__attribute__((noinline)) int host(int x)
{
	Box<int> b{0};
	return b.inner(x) + b.inner(x + 1);
}

int main()
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += host(i);
	std::printf("%d\n", s);
	return 0;
}
