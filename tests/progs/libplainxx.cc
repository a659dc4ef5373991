// libplainxx.cc -- a C++ shared library built without
// -finstrument-functions: the program's callback throws through its frame.
extern "C" int plain_apply(int (*f)(int), int x)
{
	return f(x) + 1;
}
