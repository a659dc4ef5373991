/* libvals.c -- library calls' arguments and return values: the program
 * prints, for each call it makes of the functions below, the line the
 * call tree should show for it (`strlen(s="hello") = 5`), with the values
 * it passed and got itself.  Inputs come from the command line and the
 * program is built with -fno-builtin, so that no compiler folds a call;
 * llabs, div, strchrnul (an IFUNC), fdim, scalbn, ldiv, lldiv, strtold,
 * ldexpl, sqrtl, fmal, cabs, cexp and cexpf have no prototype in the
 * table (cexpl, csqrtl and cpowl, of complex.h, have):
 * their registers show raw, unless the C library's debug information
 * types them, as the lines that start with `# typed: ` say (the test
 * drops the parameters' names, which are the library's). */
#define _GNU_SOURCE
#include <complex.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Not from <stdlib.h>: optimizing, glibc makes its atoi an inline
 * strtol, which gcc then calls and clang defines in the program. */
void *malloc(size_t size);
void free(void *ptr);
void abort(void);
int atoi(const char *nptr);
double strtod(const char *nptr, char **endptr);
long long strtoll(const char *nptr, char **endptr, int base);
long double strtold(const char *nptr, char **endptr);
long long llabs(long long j);
typedef struct {
	int quot, rem;
} div_t;
div_t div(int numerator, int denominator);
typedef struct {
	long quot, rem;
} ldiv_t;
ldiv_t ldiv(long numerator, long denominator);
typedef struct {
	long long quot, rem;
} lldiv_t;
lldiv_t lldiv(long long numerator, long long denominator);
char *strchrnul(const char *s, int c);

static char out[8192];
static size_t used;

/* The expected lines are kept and written at the end, formatted by
 * vsnprintf: none of the functions checked is called for them. */
__attribute__((format(printf, 1, 2))) static void expect(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out + used, sizeof out - used - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof out - used - 1)
		abort();
	used += (size_t)n;
	out[used++] = '\n';
}

static unsigned long ptr(const void *p)
{
	return (unsigned long)(uintptr_t)p;
}

int main(int argc, char **argv)
{
	const char *a = argc > 1 ? argv[1] : "hello";
	const char *b = argc > 2 ? argv[2] : "help";
	const char *num = argc > 3 ? argv[3] : "-42";
	double x = argc > 4 ? strtod(argv[4], NULL) : 2.0;
	double y = argc > 5 ? strtod(argv[5], NULL) : 0.5;
	const char *path = argc > 6 ? argv[6] : "/dev/null";

	size_t n = strlen(a);
	expect("strlen(s=\"%s\") = %zu", a, n);

	/* A string longer than CTRACE_STRLEN (64, the default): its first
	 * 64 bytes, and `...`. */
	char longer[101];
	memset(longer, 'x', 100);
	longer[100] = '\0';
	size_t ln = strlen(longer);
	expect("strlen(s=\"%.64s\"...) = %zu", longer, ln);

	/* A pointer that cannot be read, which strndup does not read for a
	 * length of 0: the recorder reads it safely, and says so. */
	const char *bad = (const char *)(uintptr_t)(16 + n);
	char *e = strndup(bad, n - 5);
	expect("strndup(s=0x%lx <unreadable>, n=%zu) = 0x%lx", ptr(bad), n - 5,
	       ptr(e));
	free(e);
	expect("free(ptr=0x%lx)", ptr(e));

	int c = strcmp(a, b);
	expect("strcmp(s1=\"%s\", s2=\"%s\") = %d", a, b, c);

	void *m = malloc(n + 27);
	expect("malloc(size=%zu) = 0x%lx", n + 27, ptr(m));
	void *r = memcpy(m, a, n + 1);
	expect("memcpy(dest=0x%lx, src=0x%lx, n=%zu) = 0x%lx", ptr(m), ptr(a),
	       n + 1, ptr(r));
	free(m);
	expect("free(ptr=0x%lx)", ptr(m));

	int i = atoi(num);
	expect("atoi(nptr=\"%s\") = %d", num, i);

	int fd = open(path, O_RDONLY | O_CLOEXEC);
	expect("open(pathname=\"%s\", flags=O_RDONLY|O_CLOEXEC, ...) = %d",
	       path, fd);
	int cl = close(fd);
	expect("close(fd=%d) = %d", fd, cl);

	double s = sqrt(x);
	expect("sqrt(x=%.17g) = %.17g", x, s);
	double p = pow(x, y);
	expect("pow(x=%.17g, y=%.17g) = %.17g", x, y, p);

	char buf[64];
	int k = snprintf(buf, sizeof buf, "%s-%d", a, i);
	expect("snprintf(str=0x%lx, size=%zu, format=\"%%s-%%d\", ...) = %d",
	       ptr(buf), sizeof buf, k);

	/* No prototype of llabs is known: its first argument register and
	 * rax, raw (the test drops the other five registers); on i386 its
	 * first stack word (the argument's low half) and eax (the value's
	 * low half). */
	long long q = llabs(strtoll(num, NULL, 10) * 1000000007LL);
#if defined(__i386__)
	expect("llabs([esp+4]=0x%x) = 0x%x",
	       (unsigned)(strtoll(num, NULL, 10) * 1000000007LL),
	       (unsigned)q);
#else
	expect("llabs(rdi=0x%llx) = 0x%llx",
	       (unsigned long long)(strtoll(num, NULL, 10) * 1000000007LL),
	       (unsigned long long)q);
#endif

	expect("# typed: llabs(%lld) = %lld",
	       strtoll(num, NULL, 10) * 1000000007LL, q);

	/* A struct returned in rax, all of it: typed, it shows whole. */
	div_t d = div(i, n);
	expect("div(rdi=0x%x) = 0x%lx", (unsigned)i,
	       (unsigned long)(unsigned)d.quot |
		       (unsigned long)(unsigned)d.rem << 32);
	expect("# typed: div(%d, %zu) = {quot=%d, rem=%d}", i, n, d.quot,
	       d.rem);

	/* An IFUNC: typed by its resolver's type, its string shown as a
	 * pointer (the table does not say to save its text).  On i386 it is
	 * assembly, which no DWARF types. */
	char *nul = strchrnul(a, 'l');
	expect("strchrnul(rdi=0x%lx) = 0x%lx", ptr(a), ptr(nul));
#if !defined(__i386__)
	expect("# typed: strchrnul(0x%lx, %d) = 0x%lx", ptr(a), 'l',
	       ptr(nul));
#endif

	/* Doubles in xmm0 and xmm1, and one after an int, of functions the
	 * table does not list: saved all the same (their DWARF types them). */
	double dim = fdim(x, y);
	expect("# typed: fdim(%.17g, %.17g) = %.17g", x, y, dim);
	double sc = scalbn(y, i);
	expect("# typed: scalbn(%.17g, %d) = %.17g", y, i, sc);

	/* Structs of two longs, returned in rax and rdx (i386: in the
	 * caller's memory, whose address comes back in eax).  The product
	 * in long long: i386's 32-bit long would overflow (its low half is
	 * kept). */
	long big = (long)(strtoll(num, NULL, 10) * 1000000007LL);
	ldiv_t ld = ldiv(big, (long)n + 1000);
	expect("# typed: ldiv(%ld, %ld) = {quot=%ld, rem=%ld}", big,
	       (long)n + 1000, ld.quot, ld.rem);
	lldiv_t lld = lldiv((long long)big * 3, -(long long)n);
	expect("# typed: lldiv(%lld, %lld) = {quot=%lld, rem=%lld}",
	       (long long)big * 3, -(long long)n, lld.quot, lld.rem);

	/* long double: returned in st(0), passed on the stack on both
	 * architectures.  fmal's three take more than the stack saved at a
	 * call of a function the table does not list (x86-64 32 bytes,
	 * i386 6 words): its last shows `?`. */
	long double lx = strtold(argv[argc > 5 ? 5 : 0], NULL);
	expect("# typed: strtold(0x%lx, NULL) = %.21Lg",
	       ptr(argv[argc > 5 ? 5 : 0]), lx);
	long double le = ldexpl(lx, i);
	expect("# typed: ldexpl(%.21Lg, %d) = %.21Lg", lx, i, le);
	long double lq = sqrtl(le);
	expect("# typed: sqrtl(%.21Lg) = %.21Lg", le, lq);
	long double lf = fmal(lx, le, lq);
	expect("# typed: fmal(%.21Lg, %.21Lg, ?) = %.21Lg", lx, le, lf);

	/* _Complex: x86-64 passes and returns a double's parts in two xmm
	 * registers, a float's both in one; i386 passes them on the stack
	 * and returns a float's in eax and edx, a double's in memory.
	 * (The parts by __real__ and __imag__: creal and cimag would be
	 * library calls too.) */
	double _Complex z = x + y * I;
	double ab = cabs(z);
	expect("# typed: cabs(%.17g%+.17gi) = %.17g", __real__ z, __imag__ z,
	       ab);
	double _Complex ez = cexp(z);
	expect("# typed: cexp(%.17g%+.17gi) = %.17g%+.17gi", __real__ z,
	       __imag__ z, __real__ ez, __imag__ ez);
	float _Complex zf = (float)y + (float)x * I;
	float _Complex ef = cexpf(zf);
	expect("# typed: cexpf(%.9g%+.9gi) = %.9g%+.9gi", (double)__real__ zf,
	       (double)__imag__ zf, (double)__real__ ef,
	       (double)__imag__ ef);

	/* _Complex long double, of the table's complex.h: passed in memory
	 * on both (x86-64 32 bytes of stack, all saved: cpowl's second `?`;
	 * i386 after the hidden pointer, 6 words each, 12 saved: cpowl's
	 * second `?`), returned in st0 and st1 on x86-64 (st1 saved in a
	 * RETVAL_ST1 record), in the caller's memory on i386 (24 bytes of
	 * the 32 saved). */
	long double _Complex zl = lx + (long double)y * I;
	long double _Complex el = cexpl(zl);
	long double _Complex sl = csqrtl(zl);
	long double _Complex wl = (long double)x - lx * I;
	long double _Complex pl = cpowl(zl, wl);
	expect("cexpl(z=%.21Lg%+.21Lgi) = %.21Lg%+.21Lgi", __real__ zl,
	       __imag__ zl, __real__ el, __imag__ el);
	expect("csqrtl(z=%.21Lg%+.21Lgi) = %.21Lg%+.21Lgi", __real__ zl,
	       __imag__ zl, __real__ sl, __imag__ sl);
	expect("cpowl(x=%.21Lg%+.21Lgi, y=?) = %.21Lg%+.21Lgi", __real__ zl,
	       __imag__ zl, __real__ pl, __imag__ pl);

	fwrite(out, 1, used, stdout);
	return 0;
}
