// exceptions.cc -- calls left by a C++ exception.  gcc runs the exit hooks
// while unwinding; clang does not, and the symbolizer closes those calls
// itself when the thread is next seen further out on the stack.
#include <cstdio>

#define NOINLINE __attribute__((noinline))

NOINLINE void thrower(int x)
{
	if (x)
		throw x;
}

NOINLINE void middle(int x)
{
	thrower(x);
}

NOINLINE void handled(int e)
{
	std::printf("caught %d\n", e);
}

// After the throw, a return.
NOINLINE int catch_then_return()
{
	try {
		middle(1);
	} catch (int e) {
		return e;
	}
	return 0;
}

// After the throw, a call.
NOINLINE int catch_then_call()
{
	try {
		middle(2);
	} catch (int e) {
		handled(e);
		return e;
	}
	return 0;
}

int main()
{
	int n = catch_then_return();

	n += catch_then_call();
	middle(0);
	return n == 3 ? 0 : 1;
}
