// inlined_cxx2.cc -- the second unit of inlined_cxx.cc's program.
#include "inlined_cxx.h"

__attribute__((noinline)) long use_other_unit(Acc &a, long v)
{
	expect("Acc::add", "this=%p\tv=%ld\tk=%d", (void *)&a, v + 1, 5);
	return a.add(v + 1, 5);
}
