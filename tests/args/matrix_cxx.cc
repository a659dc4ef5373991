// matrix_cxx.cc -- C++ arguments and return values for tests/args/matrix.sh:
// methods (this), references, templates.  Prints its expectations like
// matrix.c.
#include <cstdarg>
#include <cstdio>

#define TESTED __attribute__((noinline, used))

namespace shapes {
struct Box {
	int v;
	TESTED int get(int extra) const { return v + extra; }
	TESTED void set(int x) { v = x; }
};
} // namespace shapes

TESTED int addref(const int &a, int &b) { return a + b; }

template <class T> TESTED T twice(T x) { return x + x; }

static void expect(const char *fn, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void expect(const char *fn, const char *fmt, ...)
{
	va_list ap;
	std::printf("C\t%s\t", fn);
	va_start(ap, fmt);
	std::vprintf(fmt, ap);
	va_end(ap);
	std::printf("\n");
}

int main()
{
	shapes::Box b = {5};
	b.set(9);
	expect("shapes::Box::set", "this=%p\tx=9", (void *)&b);
	int g = b.get(3);
	expect("shapes::Box::get", "this=%p\textra=3\t=%d", (void *)&b, g);
	int x = 4, y = 6;
	int s = addref(x, y);
	expect("addref", "a=@%p\tb=@%p\t=%d", (void *)&x, (void *)&y, s);
	expect("twice<int>", "x=21\t=%d", twice(21));
	expect("twice<double>", "x=1.5\t=%.17g", twice(1.5));
	return 0;
}
