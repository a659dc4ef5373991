// libcallxx.cc -- library calls from C++: operator new and delete, and an
// exception thrown by a callback through an uninstrumented library's frame
// (libplainxx.so), caught in the caller.
#include <cstdio>

extern "C" int plain_apply(int (*f)(int), int x);

static int thrower(int x)
{
	if (x > 0)
		throw x;
	return x;
}

static int catcher(int x)
{
	try {
		return plain_apply(thrower, x);
	} catch (int e) {
		return -e;
	}
}

static void report(int v)
{
	std::printf("%d\n", v);
}

int main(int argc, char **)
{
	int *volatile p = new int(argc);
	int v = catcher(*p);
	delete p;
	report(v);
	return 0;
}
