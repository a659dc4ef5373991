// tailthrow.cc -- an exception out of a function a library function
// jumped to (tailthrow-lib.cc): the unwinder puts the library call's
// real return address back, so that the function's exit hook (gcc calls
// it as the exception leaves) names the library call's site, not the
// recorder's trampoline its entry named.  It closes that call.
#include <cstdio>
#include <stdexcept>

extern "C" int tail_apply(int x); // libtailthrow.so

__attribute__((noinline)) static int leaf(int x)
{
	if (x > 25)
		throw std::runtime_error("big");
	return x * 3;
}

extern "C" int tail_target(int x)
{
	return leaf(x) + 1;
}

int main()
{
	std::printf("%d\n", tail_apply(20));
	try {
		std::printf("%d\n", tail_apply(30));
	} catch (const std::exception &e) {
		std::printf("caught %s\n", e.what());
	}
	std::printf("%d\n", tail_apply(21));
	return 0;
}
