/* protos.c -- what the recorder saves at a library call: the prototype
 * table (include/ctrace_protos.def) says how many integer and
 * floating-point argument registers the function takes and which point
 * to strings, whose text is then saved at the call, as an instrumented
 * function's string arguments are.  Types are the symbolizer's business:
 * the recorder keeps none.  Read once per redirected GOT slot.
 */
#include <string.h>

#include "ctrace_protos.h"
#include "protos.h"

struct proto {
	const char *name;
	uint8_t ret;
	uint8_t arg[CTRACE_PROTO_MAX_ARGS];
};

#define CTRACE_ARG(kind, name) CTRACE_PROTO_##kind
#define CTRACE_PROTO(name, ret, variadic, ...)                               \
	{#name, CTRACE_PROTO_##ret, {__VA_ARGS__}},
static const struct proto table[] = {
#include "ctrace_protos.def"
};
#undef CTRACE_PROTO
#undef CTRACE_ARG

#if defined(__x86_64__)
/* x86-64: six integer argument registers, eight floating-point ones;
 * strmask has a bit per integer register. */
#define INT_REGS 6
#define FP_REGS 8
#define ON_STACK 0

/* A function the table does not know is saved whole, as far as
 * registers go: every argument register (of xmm0-7 the low 8 bytes, a
 * double's or a float's; for a variadic function al says how many hold
 * its variable arguments, but its fixed ones may be in any of them) and
 * the first CTRACE_LIBARGS_STACK bytes of its stack arguments (two long
 * doubles, which go there), and at its return rax, rdx, xmm0, xmm1,
 * st(0) when it holds a value (a long double) and the memory rax points
 * to when it lies in the stack (a struct returned in memory), wherever
 * its type (from the library's DWARF, read later) puts the value
 * (capture.c writes all of those whenever R1 is asked).  The table's
 * functions return in rax or xmm0, but a _Complex long double (complex.h:
 * st0 and st1), for which the recorder saves all of those too, and its
 * argument in the first CTRACE_LIBARGS_STACK bytes of the stack. */
#define UNKNOWN_STACK 1
#define UNKNOWN_RET                                                          \
	(CTRACE_RETVAL_R0 | CTRACE_RETVAL_R1 | CTRACE_RETVAL_XMM0 |          \
	 CTRACE_RETVAL_XMM1 | CTRACE_RETVAL_ST0 | CTRACE_RETVAL_MEM)
/* The table's functions return in rax or xmm0 (but a _Complex long
 * double, above): their return needs nothing (void), eax (an int: capture.c
 * writes RETVAL_INT, the sleb of eax), rax (RETVAL_WORD) or the low half
 * of xmm0 (a double, a float), by kind. */
static uint8_t known_ret(uint8_t kind)
{
	switch (kind) {
	case CTRACE_PROTO_VOID:
		return 0;
	case CTRACE_PROTO_INT:
	case CTRACE_PROTO_UINT:
	case CTRACE_PROTO_MODE:
	case CTRACE_PROTO_FD:
	case CTRACE_PROTO_OFLAGS:
	case CTRACE_PROTO_CHAR:
		return CTRACE_RETVAL_R0 | CTRACE_RETVAL_NARROW;
	case CTRACE_PROTO_DOUBLE:
	case CTRACE_PROTO_FLOAT:
		return CTRACE_RETVAL_XMM0 | CTRACE_RETVAL_NARROW;
	default:
		return CTRACE_RETVAL_R0;
	}
}
#else
/* i386 cdecl: every argument in words on the stack, a long long or a
 * double in two; nint counts the words, strmask has a bit per word, no
 * floating-point register (nfp 0).  Without a prototype, six words are
 * saved.  Every function's return is eax, edx and st(0), what the
 * trampoline keeps anyway (a long long in edx:eax, a double in st(0)),
 * and for a function the table does not know the memory eax points to
 * when it lies in the stack: every struct is returned in memory, its
 * address in eax; and so for a function the table lists that returns a
 * _Complex long double, whose buffer's address is the first word of its
 * arguments. */
#define INT_REGS 6
#define FP_REGS 0
#define ON_STACK 1
#define UNKNOWN_STACK 0
#define KNOWN_RET (CTRACE_RETVAL_R0 | CTRACE_RETVAL_R1 | CTRACE_RETVAL_ST0)
#define UNKNOWN_RET (KNOWN_RET | CTRACE_RETVAL_MEM)
static uint8_t known_ret(uint8_t kind)
{
	(void)kind;
	return KNOWN_RET;
}
#endif

void ctrace__protos_how(const char *name, struct ctrace__libcall_how *how)
{
	*how = (struct ctrace__libcall_how){INT_REGS, FP_REGS, 0, UNKNOWN_RET,
					    UNKNOWN_STACK};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		if (strcmp(table[i].name, name) != 0)
			continue;
		uint8_t nint = 0, nfp = 0, strmask = 0, stack = 0;
		uint8_t ret = known_ret(table[i].ret);
		if (table[i].ret == CTRACE_PROTO_CLDOUBLE) {
			ret = UNKNOWN_RET;
			nint = ON_STACK; /* the buffer's address */
		}
		for (int k = 0; k < CTRACE_PROTO_MAX_ARGS; k++) {
			uint8_t kind = table[i].arg[k];
			if (kind == CTRACE_PROTO_VOID)
				break;
			if (ON_STACK) {
				if (kind == CTRACE_PROTO_CSTR && nint < 8)
					strmask |= (uint8_t)(1u << nint);
				nint = (uint8_t)(nint + CTRACE_PROTO_WORDS32(kind));
				continue;
			}
			if (CTRACE_PROTO_IS_FP(kind)) {
				nfp++;
				continue;
			}
			if (CTRACE_PROTO_IS_MEM(kind)) {
				stack = 1;
				continue;
			}
			if (kind == CTRACE_PROTO_CSTR)
				strmask |= (uint8_t)(1u << nint);
			nint++;
		}
		*how = (struct ctrace__libcall_how){nint, nfp, strmask, ret,
						    stack};
		return;
	}
}
