// lambda.cc -- a lambda's operator() that gcc keeps out of line and never
// inlines: the DIE of its definition is a child of the closure type,
// itself a child of the function that holds the lambda, not of the
// compilation unit (tests/args/inlined.sh).  Prints its expectations like
// matrix.c.
#include <cstdio>

struct Escaper {
	long run(unsigned n)
	{
		auto digits = [](unsigned ch) __attribute__((noinline)) {
			unsigned sum = 0;
			for (int shift = 12; shift >= 0; shift -= 4)
				sum += (ch >> shift) & 0xf;
			return sum;
		};
		long total = 0;
		for (unsigned ch = 1; ch <= n; ch++) {
			unsigned r = digits(ch * 0x111);
			std::printf("C\tEscaper::run(unsigned int)::"
				    "{lambda(unsigned int)#1}::operator()"
				    "\tch=%u\t=%u\n", ch * 0x111, r);
			total += r;
		}
		return total;
	}
};

int main(int argc, char **)
{
	Escaper e;
	std::fprintf(stderr, "%ld\n", e.run((unsigned)argc + 2));
	return 0;
}
