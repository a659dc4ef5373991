// fixture-cxx.cc -- the C++ fixture of the resolver tests (see fixture.h).
//
// Names the demangler must get right without their parameter lists:
// namespaces, class templates, function templates, operators (operator()
// and operator< among them), constructors, destructors, static members,
// the anonymous namespace, a lambda, and a method inlined into another.
#include "fixture.h"

#include <stddef.h>

volatile int fixture_sink;

#ifdef FIXTURE_OTHER
volatile int fixture_other = 1; // a different build, another build-id
#endif

NOINLINE void fixture_callee(int i)
{
	RECORD_RETURN(i);
	fixture_sink += i;
}

// The address of a non-virtual member function: the first word of the
// pointer to member (Itanium C++ ABI).
template <class PMF> static const void *member_address(PMF pmf)
{
	struct {
		uintptr_t ptr;
		ptrdiff_t adj;
	} raw;
	static_assert(sizeof pmf == sizeof raw, "Itanium ABI pointer to member");
	memcpy(&raw, &pmf, sizeof raw);
	return (const void *)raw.ptr;
}

enum { box_first = __LINE__ };
namespace ns {
template <class T> struct Box {
	T v;
	NOINLINE T get() const {
		fixture_callee(SITE(0, "ns::Box<int>::get", "ns::Box<int>::get() const", 1, "ns::Box<int>::get"));
		return v;
	}
	NOINLINE void operator()(int x) {
		fixture_callee(SITE(1, "ns::Box<int>::operator()", "ns::Box<int>::operator()(int)", 1, "ns::Box<int>::operator()"));
		v += x;
	}
	NOINLINE bool operator<(const Box &o) const {
		fixture_callee(SITE(2, "ns::Box<int>::operator<", "ns::Box<int>::operator<(ns::Box<int> const&) const", 1, "ns::Box<int>::operator<"));
		return v < o.v;
	}
	template <class U> NOINLINE U conv(U u) {
		fixture_callee(SITE(3, "ns::Box<int>::conv<long>", "long ns::Box<int>::conv<long>(long)", 1, "ns::Box<int>::conv<long>"));
		return u + v;
	}
	// Inlined into its callers: the call inside belongs to them.
	ALWAYS_INLINE int twice(int slot, const char *caller, const char *full) {
		fixture_callee(SITE(slot, caller, full, 1, "ns::Box<int>::twice"));
		return 2 * v;
	}
};
enum { box_last = __LINE__ };

enum { maxv_first = __LINE__ };
template <class T> NOINLINE T maxv(T a, T b) {
	fixture_callee(SITE(4, "ns::maxv<int>", "int ns::maxv<int>(int, int)", 1, "ns::maxv<int>"));
	return a < b ? b : a;
}
enum { maxv_last = __LINE__ };

enum { less_first = __LINE__ };
NOINLINE bool operator<(const Box<int> &b, long x) {
	fixture_callee(SITE(5, "ns::operator<", "ns::operator<(ns::Box<int> const&, long)", 1, "ns::operator<"));
	return b.v < x;
}
enum { less_last = __LINE__ };

struct Widget {
	int n;
	Widget();
	~Widget();
	static int count(int x);
};

// Work after each recorded call keeps it from becoming a tail call, whose
// return address would be in the caller's caller.
NOINLINE Widget::Widget() : n(1) {
	fixture_callee(SITE(6, "ns::Widget::Widget", "ns::Widget::Widget()", 1, "ns::Widget::Widget"));
	n += fixture_sink;
}

NOINLINE Widget::~Widget() {
	fixture_callee(SITE(7, "ns::Widget::~Widget", "ns::Widget::~Widget()", 1, "ns::Widget::~Widget"));
	fixture_sink += n;
}

enum { count_first = __LINE__ };
NOINLINE int Widget::count(int x) {
	fixture_callee(SITE(8, "ns::Widget::count", "ns::Widget::count(int)", 1, "ns::Widget::count"));
	return x + 1;
}
enum { count_last = __LINE__ };
} // namespace ns

namespace {
enum { hidden_first = __LINE__ };
NOINLINE int hidden(int x) {
	fixture_callee(SITE(9, "(anonymous namespace)::hidden", "(anonymous namespace)::hidden(int)", 0, "(anonymous namespace)::hidden"));
	return x * 3;
}
enum { hidden_last = __LINE__ };
} // namespace

// gcc and clang number lambdas differently.
#ifdef __clang__
#define LAMBDA "run_all(int)::$_0::operator()"
#else
#define LAMBDA "run_all(int)::{lambda(int)#1}::operator()"
#endif

NOINLINE int run_all(int x) {
	ns::Box<int> b = {x};
	ns::Box<int> c = {x + 1};
	int r = b.get();
	b(2);
	r += (b < c) + (b < 7L) + (int)b.conv<long>(5);
	r += ns::maxv(r, x) + ns::Widget::count(x) + hidden(x);
	{
		ns::Widget w;
		r += w.n;
	}
	auto lambda = [](int y) NOINLINE {
		fixture_callee(SITE(10, LAMBDA, LAMBDA "(int) const", 0, LAMBDA));
		return y + 1;
	};
	r += lambda(x);
	r += b.twice(INLINED_AT(11, "run_all"), "run_all", "run_all(int)");
	fixture_callee(SITE(12, "run_all", "run_all(int)", 1, "run_all"));
	return r;
}

#define FUNC(addr, name, full, exported, range)                             \
	fixture_print_func(addr, name, full, exported, __FILE__,             \
			   range##_first, range##_last)

#ifdef FIXTURE_SHARED
extern "C" int fixture_run(int argc);
extern "C" int fixture_run(int argc)
#else
int main(int argc, char **argv)
#endif
{
	using namespace ns; // the line ranges

#ifndef FIXTURE_SHARED
	(void)argv;
#endif
	fixture_sink = run_all(argc);
	fixture_print_module((const void *)&run_all);
	FUNC(member_address(&ns::Box<int>::get), "ns::Box<int>::get",
	     "ns::Box<int>::get() const", 1, box);
	FUNC(member_address(&ns::Box<int>::operator()),
	     "ns::Box<int>::operator()", "ns::Box<int>::operator()(int)", 1,
	     box);
	FUNC(member_address(&ns::Box<int>::operator<),
	     "ns::Box<int>::operator<",
	     "ns::Box<int>::operator<(ns::Box<int> const&) const", 1, box);
	FUNC(member_address(&ns::Box<int>::conv<long>),
	     "ns::Box<int>::conv<long>", "long ns::Box<int>::conv<long>(long)",
	     1, box);
	FUNC((const void *)&ns::maxv<int>, "ns::maxv<int>",
	     "int ns::maxv<int>(int, int)", 1, maxv);
	FUNC((const void *)(bool (*)(const ns::Box<int> &, long)) & ns::operator<,
	     "ns::operator<", "ns::operator<(ns::Box<int> const&, long)", 1,
	     less);
	FUNC((const void *)&ns::Widget::count, "ns::Widget::count",
	     "ns::Widget::count(int)", 1, count);
	FUNC((const void *)&hidden, "(anonymous namespace)::hidden",
	     "(anonymous namespace)::hidden(int)", 0, hidden);
	fixture_print_sites(__FILE__);
	return fflush(stdout) == 0 ? 0 : 1;
}
