// catcher.cc -- return values of the calls an exception passed by: the
// one that catches it, and its callers.  Prints "catcher R" and
// "outer R", the values the program got.
#include <cstdio>

__attribute__((noinline)) int thrower(int x)
{
	if (x == 0)
		throw 42;
	return x;
}

__attribute__((noinline)) int catcher()
{
	try {
		return thrower(0);
	} catch (...) {
		return -1;
	}
}

__attribute__((noinline)) int outer()
{
	int r = catcher();
	std::printf("catcher %d\n", r);
	return r * 10;
}

int main()
{
	std::printf("outer %d\n", outer());
	return 0;
}
