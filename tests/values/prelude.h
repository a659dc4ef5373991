/* prelude.h -- the types and printing helpers every program of gen.py
 * starts with: gen.py copies it into each program, and the reduced cases
 * of tests/args (values-*.c, values-*.cc) include it. */
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#define NI __attribute__((no_instrument_function))
#define NOINLINE __attribute__((noinline))
#define ALWAYS static inline __attribute__((always_inline))
/* A floating value as an integer: converting one out of the range of the
 * integer type (or NaN) is undefined behaviour, which compilers exploit
 * (clang leaves whatever a register held: an address). */
#define FTOI(x) ((x) > -1e18 && (x) < 1e18 ? (long long)(x) : 0LL)
enum color { RED, GREEN = 3, BLUE = 7, BLACK = -2 };
struct s2 { int a; int b; };
struct s3 { char c; short h; int i; };
struct sd { double d; int i; };
struct sf { float x; float y; };
struct big { long v[5]; };
struct mixed { unsigned char tag; long long n; double w; };
union u { int i; float f; };
/* A union's int whose bits are not a signalling NaN as its float (made
 * quiet, as the x87 makes it): on i386 a float that goes through the x87
 * stack has a signalling NaN made quiet, so the printed bits would depend
 * on the compiler. */
#define NOSNAN(x) ({ int i_ = (int)(x); \
	(i_ & 0x7fc00000) == 0x7f800000 && (i_ & 0x003fffff) ? \
		i_ | 0x00400000 : i_; })
/* big enough for every pointer walk gen.py writes (see PTR_WALK) */
static int g_arr[4096];
static volatile unsigned long long sink;
static int next_id;
NI static void pr_i(long long v) { printf("%lld", v); }
NI static void pr_u(unsigned long long v) { printf("%llu", v); }
NI static void pr_bool(int v) { printf("%s", v ? "true" : "false"); }
NI static void pr_ch(char v)
{
	unsigned c = (unsigned char)v;
	switch (c) {
	case '\n': printf("'\\n'"); return;
	case '\t': printf("'\\t'"); return;
	case '\r': printf("'\\r'"); return;
	case 0: printf("'\\0'"); return;
	case '\\': printf("'\\\\'"); return;
	case '\'': printf("'\\''"); return;
	}
	if (c < 0x20 || c >= 0x7f)
		printf("'\\x%02x'", c);
	else
		printf("'%c'", (int)c);
}
NI static void pr_color(enum color c)
{
	switch (c) {
	case RED: printf("RED"); return;
	case GREEN: printf("GREEN"); return;
	case BLUE: printf("BLUE"); return;
	case BLACK: printf("BLACK"); return;
	}
	printf("%d", (int)c);
}
NI static void pr_ptr(const void *p)
{
	if (p)
		printf("0x%llx", (unsigned long long)(uintptr_t)p);
	else
		printf("NULL");
}
NI static void pr_str(const char *name, const char *s)
{
	printf("\"");
	for (const char *p = s; *p; p++) {
		unsigned c = (unsigned char)*p;
		if (c == '\n') printf("\\n");
		else if (c == '\t') printf("\\t");
		else if (c == '\r') printf("\\r");
		else if (c == '\\') printf("\\\\");
		else if (c == '"') printf("\\\"");
		else if (c < 0x20 || c >= 0x7f) printf("\\x%02x", c);
		else putchar((int)c);
	}
	printf("\"\t#%s=", name);
	pr_ptr(s);
}
NI static void pr_f(float f) { printf("%.9g", f); }
NI static void pr_d(double d) { printf("%.17g", d); }
NI static void pr_ld(long double d) { printf("%.21Lg", d); }
#ifdef __SIZEOF_INT128__
NI static void pr_i128(__int128 v)
{
	char d[48];
	int n = sizeof d;
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	d[--n] = '\0';
	do {
		d[--n] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (v < 0)
		d[--n] = '-';
	printf("%s", d + n);
}
#endif
NI static void pr_s2(struct s2 s) { printf("{a=%d, b=%d}", s.a, s.b); }
NI static void pr_s3(struct s3 s)
{
	printf("{c=");
	pr_ch(s.c);
	printf(", h=%d, i=%d}", s.h, s.i);
}
NI static void pr_sd(struct sd s) { printf("{d=%.17g, i=%d}", s.d, s.i); }
NI static void pr_sf(struct sf s) { printf("{x=%.9g, y=%.9g}", s.x, s.y); }
NI static void pr_big(struct big s)
{
	printf("{v={%ld, %ld, %ld, %ld, %ld}}", s.v[0], s.v[1], s.v[2], s.v[3],
	       s.v[4]);
}
NI static void pr_mixed(struct mixed s)
{
	printf("{tag=%u, n=%lld, w=%.17g}", s.tag, s.n, s.w);
}
NI static void pr_u_(union u v)
{
	float f; /* the bits of i: reading f, not written, is undefined in C++ */

	memcpy(&f, &v.i, sizeof f);
	printf("{i=%d, f=%.9g}", v.i, f);
}
NI static int open_call(const char *fn)
{
	int id = next_id++;
	printf("A\t%s\t%d", fn, id);
	return id;
}
NI static void arg(const char *name) { printf("\t%s=", name); }
NI static void end_args(void) { printf("\n"); }
NI static void result(int id) { printf("R\t%d\t", id); }
NI static void end_result(void) { printf("\n"); }
