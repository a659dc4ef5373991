// cxxnames.cc -- C++ names that record-time patterns (CTRACE_FILTER) must
// match exactly as the symbolizer's -F does: operators, a lambda inside
// main, templates whose names hold ", ", a static function, a constructor
// and a function in the anonymous namespace.
#include <cstdio>
#include <utility>

#define NOINLINE __attribute__((noinline))

namespace ns {
struct Vec {
	int x, y;
	NOINLINE Vec(int a, int b) : x(a), y(b) {}
	NOINLINE Vec operator+(const Vec &o) const { return Vec(x + o.x, y + o.y); }
	NOINLINE bool operator==(const Vec &o) const { return x == o.x && y == o.y; }
};

template <typename A, typename B> NOINLINE A pick(A a, B b)
{
	return a + (A)b;
}
} // namespace ns

namespace {
NOINLINE int hidden(int x)
{
	return x - 1;
}
} // namespace

NOINLINE static int counter()
{
	static int n;
	return ++n;
}

int main()
{
	ns::Vec a(1, 2), b(3, 4);
	ns::Vec c = a + b;
	bool same = a == b;
	auto twice = [](int v) NOINLINE { return v * 2; };
	int r = twice(c.x) + counter() + counter();
	r += ns::pick<int, char>(1, 'a');
	r += (int)ns::pick<long, std::pair<int, int> *>(2, nullptr);
	r += hidden(same ? 0 : 5);
	std::printf("%d\n", r);
	return 0;
}
