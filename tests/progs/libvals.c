/* libvals.c -- library calls' arguments and return values: the program
 * prints, for each call it makes of the functions below, the line the
 * call tree should show for it (`strlen(s="hello") = 5`), with the values
 * it passed and got itself.  Inputs come from the command line and the
 * program is built with -fno-builtin, so that no compiler folds a call;
 * llabs has no prototype in the table: its registers show raw. */
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
long long llabs(long long j);

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

	fwrite(out, 1, used, stdout);
	return 0;
}
