// libplainxx.cc -- a C++ shared library built without
// -finstrument-functions: the program's callback throws through its frame.
extern "C" int plain_apply(int (*f)(int), int x)
{
	return f(x) + 1;
}

// Two functions whose mangled names share their first 55 bytes: a
// library call is named by its whole symbol (the recorder once kept 47
// bytes of it, and showed both as one cut name).
namespace a_namespace_whose_name_is_long_enough_for_a_prefix {
int first_function(int x)
{
	return x + 1;
}
int second_function(int x)
{
	return x + 2;
}
} // namespace a_namespace_whose_name_is_long_enough_for_a_prefix
