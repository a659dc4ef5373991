// inlined_cxx.cc -- arguments of a C++ inline function inlined in two
// compilation units (see inlined_cxx.h); prints its expectations like
// matrix.c.
#include "inlined_cxx.h"

void expect(const char *fn, const char *fmt, ...)
{
	va_list ap;
	std::printf("C\t%s\t", fn);
	va_start(ap, fmt);
	std::vprintf(fmt, ap);
	va_end(ap);
	std::printf("\n");
}

__attribute__((noinline)) long use_this_unit(Acc &a, long v)
{
	expect("Acc::add", "this=%p\tv=%ld\tk=%d", (void *)&a, v, 3);
	return a.add(v, 3);
}

int main(int argc, char **)
{
	Acc a{0};
	long s = 0;
	for (int i = 0; i < 3; i++) {
		s += use_this_unit(a, i + argc);
		s += use_other_unit(a, 10L * i + argc);
	}
	std::fprintf(stderr, "%ld\n", s);
	return 0;
}
