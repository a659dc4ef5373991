// libcallxx.cc -- library calls from C++: operator new and delete, and an
// exception thrown by a callback through an uninstrumented library's frame
// (libplainxx.so), caught in the caller; two library functions whose
// mangled names share a long prefix.
#include <cstdio>

extern "C" int plain_apply(int (*f)(int), int x);
namespace a_namespace_whose_name_is_long_enough_for_a_prefix {
int first_function(int x);
int second_function(int x);
} // namespace a_namespace_whose_name_is_long_enough_for_a_prefix

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
	namespace ns = a_namespace_whose_name_is_long_enough_for_a_prefix;
	report(ns::first_function(v) + ns::second_function(v));
	return 0;
}
