/* abi.c -- the return-value and parameter classifier (symbolizer/values/abi.c)
 * against the calling conventions, on the DWARF the compiler wrote for
 * the functions below: the registers the capture plan asks the recorder
 * for (x86-64 SysV and i386 cdecl), the registers an x86-64 C function
 * receives each parameter in, and where on the stack the others lie
 * (x86-64, and i386 cdecl by this program's sizes). */
#include <dwarf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "values/dwinfo.h"
#include "trace/trace.h"
#include "util/util.h"
#include "tap.h"

/* ---------------------------------------------------------------------------
 * The functions classified (built with -g: their DWARF is read back)
 * ------------------------------------------------------------------------ */

#define USED __attribute__((used, noinline))

struct two_longs { long a, b; };
struct two_doubles { double x, y; };
struct long_double_pair { long a; double b; };
struct double_long_pair { double a; long b; };
struct int_float { int a; float b; };
struct two_floats { float a, b; };
struct three_chars { char c[3]; };
struct three_longs { long a, b, c; };
struct one_long_double { long double x; };
struct too_big { char b[100]; };
union int_or_float { int i; float f; };
enum colour { RED, GREEN };

USED void r_void(void) {}
USED char r_char(void) { return 1; }
USED _Bool r_bool(void) { return 1; }
USED int r_int(void) { return 1; }
USED long r_long(void) { return 1; }
USED long long r_long_long(void) { return 1; }
USED void *r_ptr(void) { return 0; }
USED enum colour r_enum(void) { return GREEN; }
USED float r_float(void) { return 1; }
USED double r_double(void) { return 1; }
USED long double r_long_double(void) { return 1; }
USED __int128 r_int128(void) { return 1; }
USED struct two_longs r_two_longs(void) { return (struct two_longs){0}; }
USED struct two_doubles r_two_doubles(void)
{
	return (struct two_doubles){0};
}
USED struct long_double_pair r_long_double_pair(void)
{
	return (struct long_double_pair){0};
}
USED struct double_long_pair r_double_long_pair(void)
{
	return (struct double_long_pair){0};
}
USED struct int_float r_int_float(void) { return (struct int_float){0}; }
USED struct two_floats r_two_floats(void) { return (struct two_floats){0}; }
USED struct three_chars r_three_chars(void)
{
	return (struct three_chars){{0}};
}
USED struct three_longs r_three_longs(void)
{
	return (struct three_longs){0};
}
USED struct one_long_double r_one_long_double(void)
{
	return (struct one_long_double){0};
}
USED struct too_big r_too_big(void) { return (struct too_big){{0}}; }
USED float _Complex r_complex_float(void) { return 1; }
USED double _Complex r_complex_double(void) { return 1; }
USED long double _Complex r_complex_long_double(void) { return 1; }
USED union int_or_float r_int_or_float(void)
{
	return (union int_or_float){0};
}

USED long p_mix(int a, double b, struct two_longs c, struct three_longs d,
		char *e, struct double_long_pair f, long g)
{
	return a + (long)b + c.a + d.a + (e != 0) + f.b + g;
}
/* Returned in memory: its hidden pointer takes rdi. */
USED long p_after_hidden(struct three_longs *unused, long a)
{
	return (long)unused + a;
}
USED struct three_longs p_hidden(long a)
{
	return (struct three_longs){a, a, a};
}

/* Stack parameters: long doubles (16-byte aligned), a struct in memory,
 * and ints past the six registers. */
USED long p_stack(long double a, struct three_chars x, long double b,
		  struct three_longs d, int e, int f, int g, int h, int i,
		  int j, int k)
{
	return (long)a + x.c[0] + (long)b + d.a + e + f + g + h + i + j + k;
}

/* ---------------------------------------------------------------------------
 * The tables
 * ------------------------------------------------------------------------ */

#define R0 CTRACE_RETVAL_R0
#define R1 CTRACE_RETVAL_R1
#define XMM0 CTRACE_RETVAL_XMM0
#define XMM1 CTRACE_RETVAL_XMM1
#define ST0 CTRACE_RETVAL_ST0
#define MEM CTRACE_RETVAL_MEM
#define NARROW CTRACE_RETVAL_NARROW

static const struct {
	const char *fn;
	bool i386;
	unsigned regs, mem;
} returns[] = {
	{"r_void", false, 0, 0},
	{"r_char", false, R0 | NARROW, 0},
	{"r_bool", false, R0 | NARROW, 0},
	{"r_int", false, R0 | NARROW, 0},
	{"r_long", false, R0, 0},
	{"r_ptr", false, R0, 0},
	{"r_enum", false, R0 | NARROW, 0},
	{"r_float", false, XMM0 | NARROW, 0},
	{"r_double", false, XMM0 | NARROW, 0},
	{"r_long_double", false, ST0, 0},
	{"r_int128", false, R0 | R1, 0},
	{"r_two_longs", false, R0 | R1, 0},
	{"r_two_doubles", false, XMM0 | XMM1, 0},
	{"r_long_double_pair", false, R0 | XMM0, 0},
	{"r_double_long_pair", false, XMM0 | R0, 0},
	/* one eightbyte with an int: INTEGER; 8 bytes: all of rax */
	{"r_int_float", false, R0, 0},
	{"r_two_floats", false, XMM0 | NARROW, 0},
	{"r_three_chars", false, R0 | NARROW, 0},
	{"r_three_longs", false, R0 | MEM, 24},
	{"r_one_long_double", false, R0 | MEM, 16},
	{"r_int_or_float", false, R0 | NARROW, 0},
	/* beyond what the recorder copies: rax only, shown as unsupported */
	{"r_too_big", false, R0, 0},
	/* _Complex: a float's parts both in xmm0, a double's in xmm0 and
	 * xmm1; a long double's in st0 and st1, which the recorder saves at
	 * library calls alone (rax asked, as of a value not shown; below:
	 * its kind) */
	{"r_complex_float", false, XMM0 | NARROW, 0},
	{"r_complex_double", false, XMM0 | XMM1, 0},
	{"r_complex_long_double", false, R0, 0},
	/* i386: eax, edx:eax, st0, a struct always in memory */
	{"r_void", true, 0, 0},
	{"r_char", true, R0 | NARROW, 0},
	{"r_int", true, R0 | NARROW, 0},
	{"r_long_long", true, R0 | R1 | NARROW, 0},
	{"r_ptr", true, R0 | NARROW, 0},
	{"r_float", true, ST0, 0},
	{"r_double", true, ST0, 0},
	{"r_two_longs", true, R0 | MEM | NARROW, 16},
	{"r_three_chars", true, R0 | MEM | NARROW, 3},
	/* _Complex float in eax and edx, double in memory */
	{"r_complex_float", true, R0 | R1 | NARROW, 0},
	{"r_complex_double", true, R0 | MEM | NARROW, 16},
};

/* DWARF numbers: rdi 5, rsi 4, rdx 1, rcx 2, r8 8, r9 9. */
static const struct {
	const char *fn, *param;
	int n, regs[2];
	size_t lens[2];
} params[] = {
	{"p_mix", "a", 1, {5}, {4}},
	{"p_mix", "b", 0, {0}, {0}},          /* xmm0 */
	{"p_mix", "c", 2, {4, 1}, {8, 8}},
	{"p_mix", "d", 0, {0}, {0}},          /* the stack */
	{"p_mix", "e", 1, {2}, {8}},
	{"p_mix", "f", 0, {0}, {0}},          /* xmm1 and r8 */
	{"p_mix", "g", 1, {9}, {8}},
	{"p_after_hidden", "a", 1, {4}, {8}},
	{"p_hidden", "a", 1, {4}, {8}},       /* rdi: the result's buffer */
};

/* Where the k-th parameter lies above the return address's word: in
 * registers (REGS) or at stack_off; i386 by this program's sizes (a long
 * 8 bytes, a long double 16), a pointer 4. */
#define REGS ((size_t)-2)
static const struct {
	const char *fn;
	bool i386;
	int k;
	size_t stack_off;
} stack[] = {
	{"p_mix", false, 0, REGS},
	{"p_mix", false, 3, 0},         /* d: memory, 24 bytes */
	{"p_stack", false, 0, 0},       /* a: a long double */
	{"p_stack", false, 1, REGS},    /* x: rdi */
	{"p_stack", false, 2, 16},      /* b */
	{"p_stack", false, 3, 32},      /* d */
	{"p_stack", false, 8, REGS},    /* i: r9 */
	{"p_stack", false, 9, 56},      /* j */
	{"p_stack", false, 10, 64},     /* k */
	{"p_mix", true, 0, 0},          /* int */
	{"p_mix", true, 1, 4},          /* double */
	{"p_mix", true, 2, 12},         /* two_longs */
	{"p_mix", true, 3, 28},         /* three_longs */
	{"p_mix", true, 4, 52},         /* char * */
	{"p_mix", true, 6, 72},         /* long, after double_long_pair */
	{"p_hidden", true, 0, 4},       /* after the hidden pointer */
	{"p_stack", true, 1, 16},       /* three_chars: one word */
	{"p_stack", true, 2, 20},
};

/* ---------------------------------------------------------------------------
 * Reading this program's DWARF
 * ------------------------------------------------------------------------ */

static struct dw_module *self;

static bool find_function(const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(self->dw, off, &next, &hsize, NULL, NULL, NULL) ==
	       0) {
		Dwarf_Die cu, c;
		if (dwarf_offdie(self->dw, off + hsize, &cu) &&
		    dwarf_child(&cu, &c) == 0) {
			do {
				Dwarf_Attribute a;
				const char *n = dwarf_diename(&c);
				if (dwarf_tag(&c) == DW_TAG_subprogram && n &&
				    !strcmp(n, name) &&
				    (dwarf_attr(&c, DW_AT_low_pc, &a) ||
				     dwarf_attr(&c, DW_AT_ranges, &a))) {
					*out = c;
					return true;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
	return false;
}

static bool find_param(Dwarf_Die *fn, const char *name, Dwarf_Die *out)
{
	Dwarf_Die c;
	if (dwarf_child(fn, &c) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&c);
		if (dwarf_tag(&c) == DW_TAG_formal_parameter && n &&
		    !strcmp(n, name)) {
			*out = c;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

int main(void)
{
	char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
	tap_plan(TAP_COUNT(returns) + 1 + TAP_COUNT(params) +
		 TAP_COUNT(stack));
	if (len > 0) {
		path[len] = '\0';
		self = dw_module(path);
	}
	if (!self || !self->dw) {
		printf("Bail out! no DWARF in this test program\n");
		return 1;
	}
	for (int i = 0; i < TAP_COUNT(returns); i++) {
		Dwarf_Die fn;
		unsigned mem = ~0u, regs = ~0u;
		if (find_function(returns[i].fn, &fn))
			regs = abi_ret_regs(&fn, returns[i].i386, &mem);
		if (!tap_ok(regs == returns[i].regs && mem == returns[i].mem,
			    "%s %s returns in 0x%x, %u in memory",
			    returns[i].i386 ? "i386" : "x86-64", returns[i].fn,
			    returns[i].regs, returns[i].mem))
			tap_diag("got 0x%x, %u", regs, mem);
	}
	/* a _Complex long double x86-64 returns: st0 and st1, 32 bytes */
	{
		Dwarf_Die fn, type;
		struct abi_ret r = {0};
		bool found = find_function("r_complex_long_double", &fn) &&
			     type_of(&fn, &type);
		if (found)
			abi_return(&type, false, &r);
		if (!tap_ok(found && r.kind == ABI_RET_X87_PAIR && r.size == 32,
			    "x86-64 r_complex_long_double returns in st0 and "
			    "st1"))
			tap_diag("got kind %d, size %zu", (int)r.kind, r.size);
	}
	for (int i = 0; i < TAP_COUNT(params); i++) {
		Dwarf_Die fn, p;
		int regs[2] = {-1, -1}, n = -1;
		size_t lens[2] = {0, 0};
		if (find_function(params[i].fn, &fn) &&
		    find_param(&fn, params[i].param, &p))
			n = abi_param_regs(&fn, &fn, &p, regs, lens);
		bool ok = n == params[i].n;
		for (int k = 0; ok && k < n; k++)
			ok = regs[k] == params[i].regs[k] &&
			     lens[k] == params[i].lens[k];
		if (!tap_ok(ok, "x86-64 %s(%s) arrives in %d registers",
			    params[i].fn, params[i].param, params[i].n))
			tap_diag("got %d: %d (%zu bytes), %d (%zu bytes)", n,
				 regs[0], lens[0], regs[1], lens[1]);
	}
	for (int i = 0; i < TAP_COUNT(stack); i++) {
		Dwarf_Die fn;
		struct abi_param at[ABI_PARAMS_MAX];
		bool variadic;
		int n = -1;
		size_t got = (size_t)-3;
		if (find_function(stack[i].fn, &fn))
			n = stack[i].i386 ? abi_params_i386(&fn, at,
							    ABI_PARAMS_MAX,
							    &variadic)
					  : abi_params(&fn, at, ABI_PARAMS_MAX,
						       &variadic);
		if (stack[i].k < n)
			got = at[stack[i].k].kind == ABI_PARAM_REGS ? REGS
			      : at[stack[i].k].kind == ABI_PARAM_STACK
				      ? at[stack[i].k].stack_off
				      : (size_t)-3;
		char where[32] = "in registers";
		if (stack[i].stack_off != REGS)
			snprintf(where, sizeof where, "at stack + %zu",
				 stack[i].stack_off);
		if (!tap_ok(got == stack[i].stack_off,
			    "%s %s's parameter %d lies %s",
			    stack[i].i386 ? "i386" : "x86-64", stack[i].fn,
			    stack[i].k, where))
			tap_diag("got %zd", (ssize_t)got);
	}
	dw_modules_free();
	return tap_done();
}
