// inlined_cxx.h -- an inline member function used by two compilation
// units (inlined_cxx.cc, inlined_cxx2.cc), for tests/args/inlined.sh.
// Each unit inlines it and keeps an out-of-line copy (its entry hook
// takes its address); the linker keeps one of the copies, so the hooks of
// the other unit's inlined copies name a function that unit's debug
// information describes with DIEs of its own.
#include <cstdarg>
#include <cstdio>

void expect(const char *fn, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct Acc {
	long total;
	long add(long v, int k)
	{
		total += v * k;
		return total;
	}
};

long use_other_unit(Acc &a, long v);
