/* abi.c -- the calling conventions, once: where a function's return value
 * comes back and where a parameter arrives (x86-64 SysV and i386 cdecl).
 *
 * The capture plan (plan.c) asks the recorder for exactly the registers
 * abi_return names, and values_retval reads the value back from exactly
 * those: both ask here, so what is recorded and what is read cannot
 * drift apart.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <string.h>

#include "values/dwinfo.h"
#include "trace/trace.h"
#include "util/util.h"

/* ---------------------------------------------------------------------------
 * SysV x86-64 classification (the psABI's eightbyte classes)
 * ------------------------------------------------------------------------ */

enum cls { CLS_NONE, CLS_INT, CLS_SSE, CLS_X87, CLS_MEMORY };

static enum cls merge(enum cls a, enum cls b)
{
	if (a == b || b == CLS_NONE)
		return a;
	if (a == CLS_NONE)
		return b;
	if (a == CLS_MEMORY || b == CLS_MEMORY || a == CLS_X87 || b == CLS_X87)
		return CLS_MEMORY;
	if (a == CLS_INT || b == CLS_INT)
		return CLS_INT;
	return CLS_SSE;
}

/* The classes of the two eightbytes of the bytes [off, off + size) of
 * type, merged into c. */
static void classify(Dwarf_Die *type, size_t off, enum cls c[2], int depth)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	type_strip(type, &t);
	size_t size = type_size(&t, 8);
	if (depth > 8 || size == 0) {
		c[0] = c[1] = CLS_MEMORY;
		return;
	}
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		if (dwarf_attr(&t, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		if (enc == DW_ATE_float && size == 16) {
			c[0] = merge(c[0], CLS_X87);
			c[1] = merge(c[1], CLS_X87);
			return;
		}
		/* _Complex long double: COMPLEX_X87, in memory as a
		 * parameter (abi_return does not show it returned in st0
		 * and st1) */
		if ((enc == DW_ATE_complex_float && size > 16) ||
		    enc == DW_ATE_lo_user) {
			c[0] = c[1] = CLS_MEMORY;
			return;
		}
		/* _Complex float and double: SSE, as their two parts */
		for (size_t i = off / 8; i <= (off + size - 1) / 8 && i < 2; i++)
			c[i] = merge(c[i], enc == DW_ATE_float ||
						   enc == DW_ATE_complex_float
					   ? CLS_SSE
					   : CLS_INT);
		if (off + size > 16)
			c[0] = c[1] = CLS_MEMORY;
		return;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_enumeration_type:
		if (off / 8 < 2)
			c[off / 8] = merge(c[off / 8], CLS_INT);
		return;
	case DW_TAG_array_type: {
		Dwarf_Die et;
		size_t es;
		if (!type_of(&t, &et) || (es = type_size(&et, 8)) == 0) {
			c[0] = c[1] = CLS_MEMORY;
			return;
		}
		for (size_t i = 0; i + es <= size; i += es)
			classify(&et, off + i, c, depth + 1);
		return;
	}
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type: {
		Dwarf_Word cc;
		Dwarf_Die m;
		/* C++: a type with a non-trivial copy or destructor */
		if (dwarf_attr(&t, DW_AT_calling_convention, &a) &&
		    dwarf_formudata(&a, &cc) == 0 &&
		    cc == DW_CC_pass_by_reference) {
			c[0] = c[1] = CLS_MEMORY;
			return;
		}
		if (off + size > 16) {
			c[0] = c[1] = CLS_MEMORY;
			return;
		}
		if (dwarf_child(&t, &m) == 0) {
			do {
				Dwarf_Word moff = 0;
				Dwarf_Die mt;
				int tag = dwarf_tag(&m);
				if ((tag != DW_TAG_member &&
				     tag != DW_TAG_inheritance) ||
				    dwarf_attr(&m, DW_AT_external, &a) ||
				    !type_of(&m, &mt))
					continue;
				if (dwarf_attr(&m, DW_AT_bit_size, &a)) {
					c[0] = c[1] = CLS_MEMORY;
					return;
				}
				if (dwarf_attr(&m, DW_AT_data_member_location,
					       &a))
					dwarf_formudata(&a, &moff);
				classify(&mt, off + moff, c, depth + 1);
			} while (dwarf_siblingof(&m, &m) == 0);
		}
		return;
	}
	default:
		c[0] = c[1] = CLS_MEMORY;
	}
}

/* The classes of a whole value of `size` bytes: false when it goes in
 * memory. */
static bool classify_value(Dwarf_Die *type, size_t size, enum cls c[2])
{
	c[0] = c[1] = CLS_NONE;
	if (size > 16)
		return false;
	classify(type, 0, c, 0);
	return c[0] != CLS_MEMORY && c[1] != CLS_MEMORY;
}

/* ---------------------------------------------------------------------------
 * Return values
 * ------------------------------------------------------------------------ */

static void piece(struct abi_ret *r, unsigned reg, size_t off, size_t len)
{
	r->regs |= reg;
	r->piece[r->npieces++] = (struct abi_piece){reg, off, len};
}

void abi_return(Dwarf_Die *type, bool i386, struct abi_ret *r)
{
	Dwarf_Die st;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	memset(r, 0, sizeof *r);
	if (type == NULL) {
		r->kind = ABI_RET_VOID;
		return;
	}
	type_strip(type, &st);
	size_t size = type_size(type, i386 ? 4 : 8);
	r->size = size;
	if (size == 0 || size > CTRACE_RETVAL_MEM_MAX) {
		/* not shown: r0 only, as a function that returns something */
		r->kind = ABI_RET_UNSUPPORTED;
		r->regs = CTRACE_RETVAL_R0;
		return;
	}
	if (dwarf_tag(&st) == DW_TAG_base_type &&
	    dwarf_attr(&st, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	bool is_float = dwarf_tag(&st) == DW_TAG_base_type &&
			enc == DW_ATE_float;
	/* _Complex: x86-64 float and double in xmm0 (and xmm1), as a
	 * struct of their two parts; i386 float in eax and edx, double in
	 * memory */
	bool is_complex = dwarf_tag(&st) == DW_TAG_base_type &&
			  enc == DW_ATE_complex_float;
	int tag = dwarf_tag(&st);
	bool aggregate = tag == DW_TAG_structure_type ||
			 tag == DW_TAG_class_type || tag == DW_TAG_union_type;
	r->kind = ABI_RET_REGS;
	if (is_complex && !i386 && size > 16) {
		/* _Complex long double: st0 and st1, which the recorder saves
		 * at a library call's return alone */
		r->kind = ABI_RET_X87_PAIR;
		r->regs = CTRACE_RETVAL_R0;
		return;
	}
	if (is_float && (i386 || size > 8)) {
		/* x87: st0, in its own precision whatever the type's */
		r->kind = ABI_RET_X87;
		r->regs = CTRACE_RETVAL_ST0;
	} else if (is_float) {
		piece(r, CTRACE_RETVAL_XMM0, 0, size);
	} else if (i386 && (aggregate || (is_complex && size > 8))) {
		goto memory;
	} else if (i386) {
		/* edx:eax; wider than 8 bytes is no C type i386 returns in
		 * registers */
		piece(r, CTRACE_RETVAL_R0, 0, size < 4 ? size : 4);
		if (size > 4)
			piece(r, CTRACE_RETVAL_R1, 4, size - 4);
		if (size > 8)
			r->kind = ABI_RET_UNSUPPORTED;
	} else if (aggregate || size > 8 || is_complex) {
		enum cls c[2];
		if (!classify_value(type, size, c) || c[0] == CLS_X87)
			goto memory;
		int ni = 0, ns = 0;
		for (size_t i = 0; i < 2 && i * 8 < size; i++) {
			size_t n = size - i * 8 < 8 ? size - i * 8 : 8;
			if (c[i] == CLS_SSE)
				piece(r, ns++ ? CTRACE_RETVAL_XMM1
					      : CTRACE_RETVAL_XMM0, i * 8, n);
			else
				piece(r, ni++ ? CTRACE_RETVAL_R1
					      : CTRACE_RETVAL_R0, i * 8, n);
		}
	} else {
		piece(r, CTRACE_RETVAL_R0, 0, size);
	}
	return;
memory:
	/* the caller's buffer, whose address comes back in r0 */
	r->kind = ABI_RET_MEMORY;
	r->regs = CTRACE_RETVAL_R0 | CTRACE_RETVAL_MEM;
	r->npieces = 0;
}

unsigned abi_ret_regs(Dwarf_Die *fn_die, bool i386, unsigned *mem)
{
	Dwarf_Die type;
	struct abi_ret r;
	abi_return(type_of(fn_die, &type) ? &type : NULL, i386, &r);
	unsigned mask = r.regs;
	*mem = r.kind == ABI_RET_MEMORY ? (unsigned)r.size : 0;
	/* The recorder keeps the low half of each register when that is all
	 * the type needs: eax and edx are 32 bits wide; a value of up to 4
	 * bytes in rax alone, of up to 8 in xmm0 alone. */
	unsigned regs = CTRACE_RETVAL_R0 | CTRACE_RETVAL_R1 |
			CTRACE_RETVAL_XMM0 | CTRACE_RETVAL_XMM1;
	if ((i386 && (mask & regs) != 0 &&
	     !(mask & (CTRACE_RETVAL_XMM0 | CTRACE_RETVAL_XMM1))) ||
	    (!i386 && mask == CTRACE_RETVAL_R0 && r.size <= 4) ||
	    (!i386 && mask == CTRACE_RETVAL_XMM0 && r.size <= 8))
		mask |= CTRACE_RETVAL_NARROW;
	return mask;
}

/* ---------------------------------------------------------------------------
 * Parameters
 * ------------------------------------------------------------------------ */

/* The alignment of a value of the type (x86-64), 0 when not known: its
 * DW_AT_alignment, else a scalar's size, an array's element's, a
 * struct's or union's largest member's. */
static size_t type_align(Dwarf_Die *type, int depth)
{
	Dwarf_Die t, m, mt;
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (depth > 8 || !type_strip(type, &t))
		return 0;
	if (dwarf_attr(&t, DW_AT_alignment, &a) && dwarf_formudata(&a, &w) == 0)
		return (size_t)w;
	size_t size, align = 1;
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_pointer_type:
		size = type_size(&t, 8);
		return size > 16 ? 16 : size;
	case DW_TAG_array_type:
		return type_of(&t, &mt) ? type_align(&mt, depth + 1) : 0;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		if (dwarf_child(&t, &m) != 0)
			return 1;
		do {
			if (dwarf_tag(&m) != DW_TAG_member ||
			    dwarf_attr(&m, DW_AT_external, &a))
				continue;
			size_t k = type_of(&m, &mt) ? type_align(&mt, depth + 1)
						    : 0;
			if (k == 0)
				return 0;
			if (k > align)
				align = k;
		} while (dwarf_siblingof(&m, &m) == 0);
		return align;
	default:
		return 0;
	}
}

int abi_params(Dwarf_Die *fn, struct abi_param *out, size_t max,
	       bool *variadic)
{
	static const int gpr[6] = {5, 4, 1, 2, 8, 9}; /* rdi rsi rdx rcx r8 r9 */
	Dwarf_Die p, rtype;
	struct abi_ret ret;
	size_t n = 0;
	int ni = 0, ns = 0;
	bool lost = false; /* where the parameters from here on are */
	/* Where the next one passed on the stack goes: each in 8-byte
	 * words, aligned to 16 when its type is (long double). */
	size_t stack = 0;
	*variadic = false;
	abi_return(type_of(fn, &rtype) ? &rtype : NULL, false, &ret);
	if (ret.kind == ABI_RET_MEMORY)
		ni = 1; /* the hidden pointer to the result */
	if (dwarf_child(fn, &p) != 0)
		return 0;
	do {
		Dwarf_Die type;
		int tag = dwarf_tag(&p);
		if (tag == DW_TAG_unspecified_parameters)
			*variadic = true;
		if (tag != DW_TAG_formal_parameter)
			continue;
		struct abi_param a = {.kind = ABI_PARAM_UNKNOWN,
				      .stack_off = ABI_STACK_UNKNOWN};
		size_t size = type_of(&p, &type) ? type_size(&type, 8) : 0;
		enum cls c[2];
		a.size = size;
		if (size == 0)
			lost = true;
		if (lost) {
			if (n < max)
				out[n] = a;
			n++;
			continue;
		}
		bool memory = !classify_value(&type, size, c);
		int want_i = 0, want_s = 0;
		for (size_t i = 0; i < 2 && i * 8 < size; i++) {
			if (c[i] == CLS_INT)
				want_i++;
			else if (c[i] == CLS_SSE)
				want_s++;
			else
				memory = true;
		}
		bool in_regs = !memory && ni + want_i <= 6 && ns + want_s <= 8;
		/* Two general eightbytes with one general register left: the
		 * psABI puts the whole value on the stack and leaves r9 to
		 * the next parameter, but clang before 18 splits an __int128
		 * between r9 and the stack.  Whether r9 brings a parameter
		 * after it is then not known: none is said to be there. */
		bool r9_unknown = !memory && want_i == 2 && ni == 5;
		if (in_regs) {
			a.kind = ABI_PARAM_REGS;
			for (size_t i = 0; i < 2 && i * 8 < size; i++) {
				size_t len = size - i * 8 < 8 ? size - i * 8 : 8;
				if (c[i] == CLS_NONE)
					continue; /* padding alone */
				a.regs[a.nregs] = c[i] == CLS_SSE
							  ? ABI_DW_XMM0 + ns++
							  : gpr[ni++];
				a.offs[a.nregs] = i * 8;
				a.lens[a.nregs++] = len;
			}
		} else {
			a.kind = ABI_PARAM_STACK;
			if (r9_unknown) {
				ni = 6;
				stack = ABI_STACK_UNKNOWN;
			}
			size_t align = type_align(&type, 0);
			if (align == 0)
				stack = ABI_STACK_UNKNOWN;
			if (stack != ABI_STACK_UNKNOWN && align > 8)
				stack = (stack + 15) & ~(size_t)15;
			a.stack_off = stack;
			if (stack != ABI_STACK_UNKNOWN)
				stack += (size + 7) & ~(size_t)7;
		}
		if (n < max)
			out[n] = a;
		n++;
	} while (dwarf_siblingof(&p, &p) == 0);
	return (int)(n < INT32_MAX ? n : INT32_MAX);
}

int abi_params_i386(Dwarf_Die *fn, struct abi_param *out, size_t max,
		    bool *variadic)
{
	Dwarf_Die p, rtype;
	struct abi_ret ret;
	size_t n = 0;
	bool lost = false; /* where the parameters from here on are */
	*variadic = false;
	abi_return(type_of(fn, &rtype) ? &rtype : NULL, true, &ret);
	/* the hidden pointer to the result comes first */
	size_t stack = ret.kind == ABI_RET_MEMORY ? 4 : 0;
	if (dwarf_child(fn, &p) != 0)
		return 0;
	do {
		Dwarf_Die type;
		int tag = dwarf_tag(&p);
		if (tag == DW_TAG_unspecified_parameters)
			*variadic = true;
		if (tag != DW_TAG_formal_parameter)
			continue;
		struct abi_param a = {.kind = ABI_PARAM_UNKNOWN,
				      .stack_off = ABI_STACK_UNKNOWN};
		size_t size = type_of(&p, &type) ? type_size(&type, 4) : 0;
		a.size = size;
		if (size == 0)
			lost = true;
		if (!lost) {
			/* in order, each rounded up to 4-byte words */
			a.kind = ABI_PARAM_STACK;
			a.stack_off = stack;
			stack += (size + 3) & ~(size_t)3;
		}
		if (n < max)
			out[n] = a;
		n++;
	} while (dwarf_siblingof(&p, &p) == 0);
	return (int)(n < INT32_MAX ? n : INT32_MAX);
}

int abi_param_regs(Dwarf_Die *fn_die, Dwarf_Die *defn, Dwarf_Die *target,
		   int regs[2], size_t lens[2])
{
	Dwarf_Attribute a;
	Dwarf_Die cu, p;
	Dwarf_Word lang;
	bool ext = false, variadic;
	struct abi_param params[ABI_PARAMS_MAX];
	if (!dwarf_diecu(fn_die, &cu, NULL, NULL) ||
	    !dwarf_attr(&cu, DW_AT_language, &a) || dwarf_formudata(&a, &lang) ||
	    (lang != DW_LANG_C89 && lang != DW_LANG_C99 && lang != DW_LANG_C11 &&
	     lang != DW_LANG_C && lang != 0x2c /* DW_LANG_C17 */) ||
	    !dwarf_attr_integrate(fn_die, DW_AT_external, &a) ||
	    dwarf_formflag(&a, &ext) != 0 || !ext ||
	    dwarf_attr_integrate(fn_die, DW_AT_prototyped, &a) == NULL)
		return 0;
	int n = abi_params(defn, params, ABI_PARAMS_MAX, &variadic);
	if (dwarf_child(defn, &p) != 0)
		return 0;
	int k = 0;
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter)
			continue;
		if (dwarf_dieoffset(&p) != dwarf_dieoffset(target)) {
			k++;
			continue;
		}
		if (k >= n || k >= ABI_PARAMS_MAX ||
		    params[k].kind != ABI_PARAM_REGS)
			return 0;
		for (int i = 0; i < params[k].nregs; i++) {
			if (params[k].regs[i] >= ABI_DW_XMM0)
				return 0;
			regs[i] = params[k].regs[i];
			lens[i] = params[k].lens[i];
		}
		return params[k].nregs;
	} while (dwarf_siblingof(&p, &p) == 0);
	return 0;
}
