// libcall-uftrace.cc -- library calls from C++, built once with
// -finstrument-functions (ctrace) and once with -pg (uftrace), whose trees
// tests/libcall-uftrace.sh compares: operator new and delete; operator new
// calling the new handler set by std::set_new_handler when malloc fails,
// the handler throwing through operator new's frame; qsort's comparator
// throwing through qsort's frames; both caught in main.  Own functions are
// never inlined (-pg keeps no trace of an inlined function), and every
// value comes from the command line.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#define NOINLINE __attribute__((noinline))

struct stop {
	int n;
};

static const char *words[] = {"pear", "apple", "fig", "kiwi"};

// Throws at the first pair out of order.
static NOINLINE int by_name(const void *a, const void *b)
{
	int r = std::strcmp(*(const char *const *)a, *(const char *const *)b);
	if (r > 0)
		throw stop{r};
	return r;
}

static NOINLINE void no_memory()
{
	std::set_new_handler(nullptr);
	throw stop{-1};
}

static NOINLINE int sorted(const char **v)
{
	try {
		std::qsort(v, 4, sizeof v[0], by_name);
	} catch (const stop &e) {
		return e.n;
	}
	return 0;
}

static NOINLINE int allocated(std::size_t n)
{
	std::set_new_handler(no_memory);
	try {
		// More than malloc ever gives (PTRDIFF_MAX): it fails at once.
		void *volatile p = ::operator new(n);
		::operator delete(p);
	} catch (const stop &e) {
		return e.n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int *volatile p = new int(argc);
	const char *v[4];
	for (int i = 0; i < 4; i++)
		v[i] = words[(i + *p - 1) % 4];
	delete p;
	std::printf("%d\n", sorted(v) > 0);
	std::printf("%d\n", allocated(SIZE_MAX / 2 + (std::size_t)argc) < 0);
	(void)argv;
	return 0;
}
