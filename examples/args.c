/* args.c -- arguments and return values of several types, for the README:
 *   ctrace record --args --retval -- ./args && ctrace replay */
#include <stdio.h>
#include <string.h>
#define NI __attribute__((noinline))
struct point { int x, y; };
enum color { RED, GREEN, BLUE };
NI int add3(int a, int b, int c) { return a + b + c; }
NI size_t strlen2(const char *s) { return strlen(s) * 2; }
NI double scale(struct point p, double k, enum color c) { return (p.x + p.y) * k + c; }
NI long fact(int n) { return n < 2 ? 1 : n * fact(n - 1); }
int main(void) {
	struct point p = {3, 4};
	printf("%d %zu %g %ld\n", add3(1, -2, 30), strlen2("hello"), scale(p, 1.5, BLUE), fact(3));
	return 0;
}
