// tailthrow-lib.cc -- a shared library built without
// -finstrument-functions, at -O2: tail_apply ends in a jump to the
// program's tail_target (a tail call through the library's PLT), which
// then runs in the frame of the program's library call (tailthrow.cc).
extern "C" int tail_target(int x);

extern "C" int tail_apply(int x)
{
	return tail_target(x + 1);
}
