/* x87const.c -- whether a constant a variable is said to have may be
 * gcc's misreading of an x87 conversion (seed 84817666 of the value
 * fuzzer): the code is searched for a floating constant pushed on the
 * x87 stack, popped, and followed by an integer store of ST0, and the
 * constant's integer conversions are compared with the variable's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "values/dwinfo.h"

/* Whether the bytes [p, end) hold an x87 instruction that pops (a
 * compare or move: fcomip, fucomip, fstp %st(i), ffreep, fcomp, fucomp,
 * ficomp, fcompp, fucompp, the arithmetic pops DE /r) and, at most
 * X87_POP_TO_CONVERT bytes after it, one that stores ST0 as an integer
 * (fist, fistp, fisttp: DB /1-/3, DD /1, DF /1-/3, DF /7, a memory
 * operand).  gcc's range check and conversion: the compare, the branch,
 * the rounding mode set, 29 bytes.  The opcodes are the same in 64-bit
 * code. */
#define X87_POP_TO_CONVERT 64
static bool x87_pop_then_convert(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *pop = NULL;
	for (; p + 1 < end; p++) {
		unsigned op = p[0], mod = p[1] >> 6, reg = p[1] >> 3 & 7;
		if (pop && p - pop <= X87_POP_TO_CONVERT && mod != 3 &&
		    ((op == 0xdb && reg >= 1 && reg <= 3) ||
		     (op == 0xdd && reg == 1) ||
		     (op == 0xdf && ((reg >= 1 && reg <= 3) || reg == 7))))
			return true;
		if ((mod == 3 &&
		     (op == 0xde || (op == 0xda && p[1] == 0xe9) ||
		      (op == 0xdf && (reg == 0 || reg == 5 || reg == 6)) ||
		      (op == 0xdd && (reg == 3 || reg == 5)) ||
		      (op == 0xd8 && reg == 3))) ||
		    (mod != 3 && reg == 3 &&
		     (op == 0xd8 || op == 0xdc || op == 0xda || op == 0xde)))
			pop = p;
	}
	return false;
}

/* The integer conversions of a floating constant: each fist width's
 * (16, 32, 64 bits) truncation, saturated as gcc folds one out of range,
 * and the 64-bit truncation modulo 2^64 (an unsigned conversion), as
 * little-endian bytes compared with the `size' of k (its low 8 bytes for
 * a wider one).  The constant: sign, exponent e and significand mant
 * whose top bit is the integer bit (value mant * 2^(e - 63)); special:
 * an infinity or a NaN, which may fold to either bound or to 0. */
static bool conversion_is(bool neg, int e, uint64_t mant, bool special,
			  const uint8_t *k, size_t size)
{
	bool big = special || e >= 64;
	uint64_t mag = e < 0 || special ? 0
		       : big ? UINT64_MAX
		       : mant >> (63 - e);
	uint64_t v[8];
	size_t n = 0;
	for (int w = 16; w <= 64; w *= 2) {
		uint64_t max = (UINT64_C(1) << (w - 1)) - 1;
		if (neg)
			v[n++] = mag > max ? ~max : -mag;
		else
			v[n++] = mag > max ? max : mag;
		if (big)
			v[n++] = neg ? max : ~max;
	}
	if (!big)
		v[n++] = neg ? -mag : mag;
	if (special)
		v[n++] = 0;
	size_t len = size < 8 ? size : 8;
	for (size_t i = 0; i < n; i++) {
		size_t b = 0;
		while (b < len && k[b] == (uint8_t)(v[i] >> (8 * b)))
			b++;
		if (b == len)
			return true;
	}
	return false;
}

/* The x87 push of a floating constant at p (bytes up to end; the code at
 * link-time address `at'): its length, 0 if it is none, and whether one
 * of its integer conversions is k (conversion_is).  A load from memory
 * (fld m32, m64, m80: D9 /0, DD /0, DB /5) is a constant when its
 * operand is in read-only data: an absolute (i386) or rip-relative
 * (x86-64) address, or on i386 a register plus a displacement read as
 * from the GOT register (PIC: gcc's constant pool is addressed so).  A
 * register operand that is not the GOT register (a pointer, ebp as frame
 * pointer) rarely lands in read-only data; when it does, the bytes
 * there are taken as a constant, which only makes a value `?'.  Stack
 * slots (esp, an index) hold what was stored there, a constant only if
 * pushed first: not constants.  With no GOT address known, a register
 * operand may be one: *any is set. */
static size_t x87_constant_push(struct dw_module *m, bool x86_64,
				uint64_t at, const uint8_t *p,
				const uint8_t *end, const uint8_t *k,
				size_t size, bool *match, bool *any)
{
	/* fld1, fldl2t, fldl2e, fldpi, fldlg2, fldln2, fldz: 1, 3.3, 1.4,
	 * 3.1, 0.3, 0.7, 0 as (exponent, significand) */
	static const struct { int e; uint64_t mant; } builtin[7] = {
		{0, UINT64_C(1) << 63}, {1, UINT64_C(3) << 62},
		{0, UINT64_C(1) << 63}, {1, UINT64_C(3) << 62},
		{-1, 0}, {-1, 0}, {-1, 0}};
	*match = false;
	if (p + 1 >= end)
		return 0;
	unsigned op = p[0], mod = p[1] >> 6, reg = p[1] >> 3 & 7,
		 rm = p[1] & 7;
	if (op == 0xd9 && p[1] >= 0xe8 && p[1] <= 0xee) {
		*match = conversion_is(false, builtin[p[1] - 0xe8].e,
				       builtin[p[1] - 0xe8].mant, false, k,
				       size);
		return 2;
	}
	size_t width = op == 0xd9 && reg == 0 ? 4 : op == 0xdd && reg == 0 ? 8
		       : op == 0xdb && reg == 5 ? 10 : 0;
	size_t n = width && mod != 3 ? i386dec_modrm_len(p + 1, end) : 0;
	if (n == 0)
		return 0;
	/* the operand: base register (of the SIB byte if any), index,
	 * displacement */
	bool sib = rm == 4;
	unsigned base = sib ? p[2] & 7 : rm;
	bool index = sib && (p[2] >> 3 & 7) != 4;
	const uint8_t *d = p + 2 + sib;
	int32_t disp = 0;
	if (mod == 1)
		disp = (int8_t)d[0];
	else if (mod == 2 || (mod == 0 && rm == 5))
		memcpy(&disp, d, 4);
	uint64_t addr;
	if (mod == 0 && rm == 5) {
		addr = x86_64 ? at + 1 + n + (uint64_t)(int64_t)disp
			      : (uint32_t)disp;
	} else if (x86_64 || base == I386_ESP || index ||
		   (sib && mod == 0 && base == 5)) {
		return 1 + n;               /* a stack slot or an index */
	} else if (!dw_got_address(m, &addr)) {
		*any = true;
		return 1 + n;
	} else {
		addr = (uint32_t)(addr + (uint64_t)(int64_t)disp);
	}
	uint8_t c[10];
	if (!dw_read_rodata(m, addr, c, width))
		return 1 + n;
	/* a float, a double or an x87 extended: the sign and exponent
	 * above a fraction of fbits (an extended's in its own bytes, with
	 * the integer bit explicit) */
	uint64_t bits = 0;
	for (size_t i = 0; i < 8 && i < width; i++)
		bits |= (uint64_t)c[i] << (8 * i);
	unsigned fbits = width == 4 ? 23 : width == 8 ? 52 : 64;
	unsigned emax = width == 4 ? 0xff : width == 8 ? 0x7ff : 0x7fff;
	unsigned se = width == 10 ? (unsigned)(c[8] | c[9] << 8)
				  : (unsigned)(bits >> fbits);
	unsigned ex = se & emax;
	uint64_t mant = width == 10 ? bits
				    : bits << (63 - fbits) | UINT64_C(1) << 63;
	/* a zero or a subnormal truncates to 0; an infinity or a NaN is
	 * special */
	int e = ex == 0 ? -1 : (int)ex - (int)(emax >> 1);
	*match = conversion_is(se > emax, e, mant, ex == emax, k, size);
	return 1 + n;
}

/* gcc's variable tracking does not see a popping x87 instruction change
 * what ST0 holds: a value converted to an integer from ST0 after a
 * constant was pushed and popped there (a range check's bound: `fld
 * bound; fcomip; jbe; fistpll') is taken for the conversion of that
 * constant, which a variable of the function, and an inlined copy it is
 * passed to, may be said to have from its binding on (seed 84817666, gcc
 * -O1 to -O3 i386: 0, the low 16 bits of (long long)1e18, for -23164).
 * Whether the constant k (`size' bytes) a variable of `sub' is said to
 * have may be that: the code of every range of the function, in any
 * order (a binding may follow the conversion in the flow but not in the
 * address order: a loop, a block moved away), pushes a floating
 * constant one of whose integer conversions is k, then pops within
 * X87_POP_TO_CONVERT bytes, then stores ST0 as an integer.  x86-64 code
 * converts a float or a double with SSE; its long double conversions are
 * x87 ones, found alike.  The bytes are searched, not decoded (the code
 * is not all understood): a byte pattern that is no instruction only
 * makes a constant `?'; so does code that cannot be read. */
bool x87const_converted(struct dw_module *m, Dwarf_Die *sub, bool x86_64,
			 const uint8_t *k, size_t size)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	bool may = false;
	while (!may && (off = dwarf_ranges(sub, off, &base, &lo, &hi)) > 0) {
		uint8_t *code = hi > lo && hi - lo <= 1u << 24
					? malloc(hi - lo)
					: NULL;
		if (code == NULL || !dw_read_code(m, lo, code, hi - lo)) {
			free(code);
			return true;
		}
		const uint8_t *end = code + (hi - lo);
		for (const uint8_t *p = code; !may && p < end; p++) {
			bool match, any = false;
			size_t n = x87_constant_push(m, x86_64,
						     lo + (uint64_t)(p - code),
						     p, end, k, size, &match,
						     &any);
			/* the pop after the push, the conversion after it */
			size_t left = (size_t)(end - p) - n;
			if (left > 2 * X87_POP_TO_CONVERT)
				left = 2 * X87_POP_TO_CONVERT;
			may = n && (match || any) &&
			      x87_pop_then_convert(p + n, p + n + left);
		}
		free(code);
	}
	return may || off < 0;
}
