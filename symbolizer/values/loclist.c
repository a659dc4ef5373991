/* loclist.c -- questions about a parameter's location list, asked
 * without evaluating it: the register it names at the entry or at the
 * call, whether it is a plain place or a computed value, whether the code
 * before the hook contradicts it or may have rewritten its register, and
 * the callee-saved copies the prologue made of its entry registers
 * (prologue.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <string.h>

#include "values/dwinfo.h"

/* The location in force at pc as general or other registers, each holding
 * `len` bytes of a value of `size` (one register without a piece: all of
 * it); the number of pieces, or -1 for any other location. */
static int reg_pieces(Dwarf_Attribute *attr, uint64_t pc, size_t size,
		      struct dw_reg_piece *out, size_t max)
{
	Dwarf_Op *ops;
	size_t n, k = 0, done = 0;
	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t reg;
		if (ops[i].atom >= DW_OP_reg0 && ops[i].atom <= DW_OP_reg31)
			reg = ops[i].atom - DW_OP_reg0;
		else if (ops[i].atom == DW_OP_regx && ops[i].number < DW_MAX_REG)
			reg = ops[i].number;
		else
			return -1;
		size_t len = size - done;
		if (i + 1 < n) {
			if (ops[i + 1].atom != DW_OP_piece)
				return -1;
			len = ops[++i].number;
		} else if (i > 0) {
			return -1; /* pieces end with a piece */
		}
		if (k == max || len == 0 || len > size - done)
			return -1;
		out[k++] = (struct dw_reg_piece){(int)reg, len};
		done += len;
	}
	return done == size ? (int)k : -1;
}

int dw_entry_copies(struct dw_module *m, Dwarf_Attribute *attr,
		    uint64_t entry, uint64_t call, size_t size,
		    struct dw_reg_piece *out, size_t max)
{
	int n = reg_pieces(attr, entry, size, out, max);
	for (int i = 0; i < n; i++) {
		int copy;
		if (out[i].len > 8 ||
		    !dw_entry_reg_copy(m, entry, call, out[i].reg, out[i].len,
				       &copy))
			return -1;
		out[i].reg = copy;
	}
	return n;
}

int dw_eval_entry_copy(struct frame_state *f, Dwarf_Attribute *attr,
		       uint64_t entry, uint8_t *out, size_t size)
{
	struct dw_reg_piece pc[8];
	int n = f->machine == EM_X86_64 ? dw_entry_copies(f->m, attr, entry,
						    f->rel_pc - 5, size, pc, 8)
				 : -1;
	size_t done = 0;
	for (int i = 0; i < n; i++) {
		if (!f->have[pc[i].reg])
			return -1;
		frame_sink_reg(out + done, f, pc[i].reg, pc[i].len);
		done += pc[i].len;
	}
	return n > 0 ? 0 : -1;
}

/* A location that is exactly one register: its DWARF number, or -1. */
static int single_reg(Dwarf_Attribute *attr, uint64_t pc)
{
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || n != 1)
		return -1;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return ops[0].atom - DW_OP_reg0;
	if (ops[0].atom == DW_OP_regx && ops[0].number < DW_MAX_REG)
		return (int)ops[0].number;
	return -1;
}

bool dw_location_contradicted(struct frame_state *f, Dwarf_Attribute *attr,
			      uint64_t entry, size_t size)
{
	struct dw_reg_piece at_call[8], at_entry[8];
	int n, ne;
	if (f->machine != EM_X86_64 || f->is_caller ||
	    (n = reg_pieces(attr, f->rel_pc - 1, size, at_call, 8)) <= 0)
		return false;
	ne = reg_pieces(attr, entry, size, at_entry, 8);
	for (int i = 0; i < n; i++) {
		int reg = at_call[i].reg, origin;
		size_t len = at_call[i].len, width, bytes;
		if (!dw_entry_reg_origin(f->m, entry, f->rel_pc - 5, reg, &origin,
					 &width) ||
		    !dw_reg_bytes_at_call(f->m, entry, f->rel_pc - 5, reg,
					  &bytes))
			return false; /* not understood: nothing proved */
		/* the upper bytes an extension of the lower: not a value of
		 * `len` bytes as passed (its upper part shown 0 or -1) */
		if (bytes < len)
			return true;
		/* a callee-saved register (rbx, rbp, r12 to r15) the code
		 * never wrote holds the caller's value, never an argument
		 * (gcc -O1: an __int128 said to be in R12 and R13 where the
		 * prologue moved it to R12 and RBP) */
		if (origin == reg &&
		    (reg == 3 || reg == 6 || (reg >= 12 && reg <= 15)))
			return true;
		/* a computation's result, or another register's bytes than
		 * the piece the location names at the entry */
		if (ne == n && at_entry[i].len == len &&
		    (origin == -2 || (origin >= 0 && (origin != at_entry[i].reg ||
						      width < len))))
			return true;
	}
	return false;
}

/* The code [from, to) leaves the general register reg holding at least
 * its low `size` bytes (i386: does not write it); false if it may not or
 * is not understood. */
static bool code_keeps(struct frame_state *f, uint64_t from, uint64_t to,
		       int reg, size_t size)
{
	int w;
	if (f->machine == EM_X86_64)
		return dw_reg_kept(f->m, from, to, reg, size) == 1;
	w = dw_i386_written(f->m, from, to);
	return w >= 0 && !(w & 1 << reg);
}

uint64_t dw_location_bound_from(Dwarf_Die *scope, Dwarf_Die *sub,
				uint64_t start, uint64_t call)
{
	Dwarf_Addr entry, base, lo, hi;
	ptrdiff_t off = 0;
	bool scope_start = dwarf_entrypc(scope, &entry) == 0 && entry == start;
	while (!scope_start &&
	       (off = dwarf_ranges(scope, off, &base, &lo, &hi)) > 0)
		scope_start = lo == start;
	if (!scope_start)
		return start;
	/* the code laid out before the start in the same block as the call
	 * (not a cold part elsewhere, run later) */
	off = 0;
	while (sub && (off = dwarf_ranges(sub, off, &base, &lo, &hi)) > 0)
		if (call >= lo && call < hi)
			return lo < start ? lo : start;
	return 0;
}

/* i386: whether the instruction that ends at `start' (the location list's
 * entry in force at the call begins there) leaves register reg holding
 * where the parameter was until then: it does not write reg, or it is a
 * 32-bit copy into reg of the previous entry's place (the register it
 * names, or its slot at an offset from esp), as a mov or a zero or sign
 * extension.  clang moves a statement of the body such as `p1 |= 8' above
 * the hook and starts the parameter's entry in the register right after
 * it: the register then holds the value that statement gives, not the
 * one passed.  The code is decoded from the start of the block of the
 * function that holds `start'; false when it is not understood. */
static bool i386_bound_by_copy(struct frame_state *f, Dwarf_Attribute *attr,
			       Dwarf_Die *scope, uint64_t start, int reg)
{
	Dwarf_Addr base, lo = 0, hi, slo, shi;
	ptrdiff_t off = 0;
	bool found = false;
	uint8_t code[512];
	while (f->have_subprogram &&
	       (off = dwarf_ranges(&f->subprogram, off, &base, &lo, &hi)) > 0)
		if (start > lo && start < hi) {
			found = true;
			break;
		}
	if (!found)
		return true; /* the block's first instruction: none before */
	/* An inlined copy's range that starts there: the code before is its
	 * caller's, which sets up the argument.  One that starts before, in
	 * the same block: an instruction's start nearer to decode from. */
	if (dwarf_entrypc(scope, &slo) == 0 && slo == start)
		return true;
	off = 0;
	while ((off = dwarf_ranges(scope, off, &base, &slo, &shi)) > 0) {
		if (slo == start)
			return true;
		if (slo > lo && slo < start && start < hi)
			lo = slo;
	}
	/* with the longest instruction's bytes after it, in the block */
	size_t len = start - lo + 15 < hi - lo ? start - lo + 15 : hi - lo;
	if (len > sizeof code || !dw_read_code(f->m, lo, code, len))
		return false;
	const uint8_t *p = code, *at = code + (start - lo), *last = NULL;
	struct i386_insn in;
	while (p < at) {
		size_t n = i386dec_step(f->m, lo + (uint64_t)(p - code), p,
					code + len, &in);
		if (n == 0)
			return false;
		last = p;
		p += n;
	}
	/* no instruction ends there (gcc starts a range at a call's
	 * return address - 1), or the one that does keeps reg */
	if (p != at || !(in.writes & 1u << reg))
		return true;
	/* the previous entry, ending at start: one register or one slot */
	Dwarf_Op *ops;
	size_t n;
	Dwarf_Addr b, e;
	int prev = -1;
	int64_t slot = 0;
	off = 0;
	while ((off = dwarf_getlocations(attr, off, &base, &b, &e, &ops,
					 &n)) > 0)
		if (e == start && n == 1) {
			if (ops[0].atom >= DW_OP_reg0 &&
			    ops[0].atom <= DW_OP_reg7)
				prev = ops[0].atom - DW_OP_reg0;
			else if (ops[0].atom == DW_OP_breg4)
				prev = 8, slot = (int64_t)ops[0].number;
			break;
		}
	if (in.reg_copy)
		return prev >= 0 && prev < 8 && in.copy_src == (unsigned)prev;
	/* a load of 32 bits or an extension (no prefix) from disp(%esp) */
	const uint8_t *m = last[0] == 0x8b ? last + 1
			   : last[0] == 0x0f && (last[1] == 0xb6 ||
						 last[1] == 0xb7 ||
						 last[1] == 0xbe ||
						 last[1] == 0xbf) ? last + 2
			   : NULL;
	if (!m || prev != 8 || (m[0] & 7) != 4 || m[1] != 0x24)
		return false;
	int32_t d = 0;
	if (m[0] >> 6 == 1)
		d = (int8_t)m[2];
	else if (m[0] >> 6 == 2)
		memcpy(&d, m + 2, 4);
	else if (m[0] >> 6 != 0)
		return false;
	return d == slot;
}

bool dw_location_rewritten(struct frame_state *f, Dwarf_Attribute *attr,
			   Dwarf_Die *scope, size_t size)
{
	uint64_t call = f->rel_pc - 5, from = 0;
	int reg = single_reg(attr, f->rel_pc - 1);
	uint8_t op;
	if (f->is_caller || reg < 0 ||
	    reg >= (f->machine == EM_X86_64 ? 16 : 8) ||
	    (f->machine != EM_X86_64 && f->machine != EM_386))
		return false;
	if (!dw_read_code(f->m, call, &op, 1) || op != 0xe8)
		return true;
	/* where the list's entry in force at the call starts: the DWARF
	 * says the register holds the parameter from there on */
	Dwarf_Addr base, start, end, lo, hi;
	Dwarf_Op *ops;
	size_t n;
	ptrdiff_t off = 0;
	while ((off = dwarf_getlocations(attr, off, &base, &start, &end, &ops,
					 &n)) > 0)
		if (!(start == 0 && end == (Dwarf_Addr)-1) &&
		    f->rel_pc - 1 >= start && f->rel_pc - 1 < end) {
			from = dw_location_bound_from(
				scope, f->have_subprogram ? &f->subprogram : NULL,
				start, call);
			if (f->machine == EM_386 &&
			    !i386_bound_by_copy(f, attr, scope, start, reg))
				return true;
			break;
		}
	/* each of the scope's own ranges before the call, from there (an
	 * inlined copy's: the code of the function around it is not the
	 * copy's, and may set up the argument) */
	off = 0;
	while ((off = dwarf_ranges(scope, off, &base, &lo, &hi)) > 0) {
		uint64_t a = lo > from ? lo : from, b = hi < call ? hi : call;
		if (a < b && !code_keeps(f, a, b, reg, size))
			return true;
	}
	return off < 0;
}

bool dw_location_plain(Dwarf_Attribute *attr, uint64_t pc)
{
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || n == 0)
		return true; /* nothing to read: the caller says why */
	for (size_t i = 0; i < n; i++) {
		unsigned op = ops[i].atom;
		bool last_value = i + 1 < n && ops[i + 1].atom == DW_OP_stack_value;
		if ((op >= DW_OP_reg0 && op <= DW_OP_reg31) || op == DW_OP_regx ||
		    op == DW_OP_piece || op == DW_OP_bit_piece ||
		    op == DW_OP_implicit_value || op == DW_OP_addr ||
		    op == DW_OP_fbreg || op == DW_OP_deref ||
		    op == DW_OP_deref_size || op == DW_OP_stack_value ||
		    (op >= DW_OP_lit0 && op <= DW_OP_lit31) ||
		    op == DW_OP_constu || op == DW_OP_consts ||
		    (op >= DW_OP_const1u && op <= DW_OP_const8s))
			continue;
		/* A register's value as it is, or the memory at an offset
		 * from it; an offset folded into a computed value (`p--` as
		 * breg RAX-1) is arithmetic. */
		if (((op >= DW_OP_breg0 && op <= DW_OP_breg31) ||
		     op == DW_OP_bregx) &&
		    (!last_value ||
		     (op == DW_OP_bregx ? ops[i].number2 : ops[i].number) == 0))
			continue;
		return false;
	}
	return true;
}

/* The register of a DW_OP_entry_value among ops, or -1. */
static int entry_value_reg(Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		Dwarf_Attribute sub;
		Dwarf_Op *e;
		size_t en;
		if (ops[i].atom != DW_OP_entry_value &&
		    ops[i].atom != DW_OP_GNU_entry_value)
			continue;
		if (dwarf_getlocation_attr(attr, &ops[i], &sub) != 0 ||
		    dwarf_getlocation(&sub, &e, &en) != 0 || en != 1)
			return -1;
		if (e[0].atom >= DW_OP_reg0 && e[0].atom <= DW_OP_reg31)
			return e[0].atom - DW_OP_reg0;
		if (e[0].atom == DW_OP_regx && e[0].number < DW_MAX_REG)
			return (int)e[0].number;
		return -1;
	}
	return -1;
}

/* Whether ops read the machine state: a register, memory, the frame or
 * an entry value.  Those that do not are a constant. */
static bool reads_state(const Dwarf_Op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned op = ops[i].atom;
		if ((op >= DW_OP_reg0 && op <= DW_OP_reg31) ||
		    (op >= DW_OP_breg0 && op <= DW_OP_breg31) ||
		    op == DW_OP_regx || op == DW_OP_bregx ||
		    op == DW_OP_fbreg || op == DW_OP_deref ||
		    op == DW_OP_deref_size || op == DW_OP_xderef ||
		    op == DW_OP_xderef_size || op == DW_OP_deref_type ||
		    op == DW_OP_regval_type || op == DW_OP_GNU_deref_type ||
		    op == DW_OP_GNU_regval_type ||
		    op == DW_OP_GNU_parameter_ref || op == DW_OP_call_frame_cfa ||
		    op == DW_OP_push_object_address ||
		    op == DW_OP_form_tls_address ||
		    op == DW_OP_GNU_push_tls_address ||
		    op == DW_OP_entry_value || op == DW_OP_GNU_entry_value ||
		    op == DW_OP_implicit_pointer ||
		    op == DW_OP_GNU_implicit_pointer ||
		    op == DW_OP_GNU_variable_value || op == DW_OP_call2 ||
		    op == DW_OP_call4 || op == DW_OP_call_ref)
			return true;
	}
	return false;
}

bool dw_location_changed_value(Dwarf_Attribute *attr, uint64_t entry,
			       uint64_t pc)
{
	Dwarf_Op *ops, *eops;
	size_t n, en;
	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || n == 0)
		return false;
	/* the value passed itself */
	if (n == 2 && (ops[0].atom == DW_OP_entry_value ||
		       ops[0].atom == DW_OP_GNU_entry_value) &&
	    ops[1].atom == DW_OP_stack_value)
		return false;
	bool value = !dw_location_plain(attr, pc);
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_stack_value ||
		    ops[i].atom == DW_OP_implicit_value)
			value = true;
	if (!value)
		return false;
	if (dwarf_getlocation_addr(attr, entry, &eops, &en, 1) <= 0 ||
	    en != n)
		return true;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom != eops[i].atom ||
		    ops[i].number != eops[i].number ||
		    ops[i].number2 != eops[i].number2)
			return true;
	/* The same constant from the entry on: clang starts a constant
	 * location at the function's first instruction wherever the
	 * statement giving it is (an unused argument's `p0 - 1' after a
	 * loop the compiler evaluated, as 0 - 1): it may not be the value
	 * passed. */
	return !reads_state(ops, n);
}

int dw_entry_reg(Dwarf_Attribute *attr, uint64_t entry)
{
	Dwarf_Op *ops;
	size_t n;
	int r;
	if (dwarf_getlocation_addr(attr, entry, &ops, &n, 1) <= 0 || n == 0)
		return -1;
	if ((r = single_reg(attr, entry)) >= 0)
		return r;
	if (ops[0].atom == DW_OP_entry_value ||
	    ops[0].atom == DW_OP_GNU_entry_value)
		return entry_value_reg(attr, ops, 1);
	return -1;
}

int dw_first_reg_after(Dwarf_Attribute *attr, uint64_t entry, uint64_t call,
		       uint64_t *start)
{
	Dwarf_Addr base, lo, hi, best = 0;
	Dwarf_Op *ops;
	size_t n;
	ptrdiff_t off = 0;
	int reg = -1;
	bool any = false;
	while ((off = dwarf_getlocations(attr, off, &base, &lo, &hi, &ops,
					 &n)) > 0) {
		if (lo > call || hi <= entry)
			continue;
		if (lo <= entry)
			return -1; /* a location at the entry: dw_entry_reg */
		if (any && lo >= best)
			continue;
		any = true;
		best = lo;
		reg = -1;
		if (n == 1 && ops[0].atom >= DW_OP_reg0 &&
		    ops[0].atom <= DW_OP_reg31)
			reg = ops[0].atom - DW_OP_reg0;
		else if (n == 1 && ops[0].atom == DW_OP_regx &&
			 ops[0].number < DW_MAX_REG)
			reg = (int)ops[0].number;
	}
	*start = best;
	return reg;
}

int dw_location_reg(Dwarf_Attribute *attr, uint64_t pc)
{
	return single_reg(attr, pc);
}

int dw_entry_value_reg(Dwarf_Attribute *attr, uint64_t pc)
{
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || n == 0)
		return -1;
	return entry_value_reg(attr, ops, n);
}


/* ops as a constant of `size` bytes (at most 16) in out. */
static bool constant_of(Dwarf_Attribute *attr, const Dwarf_Op *ops, size_t n,
			uint8_t *out, size_t size)
{
	Dwarf_Block b;
	uint64_t v;
	if (size == 0 || size > 16)
		return false;
	if (n == 1 && ops[0].atom == DW_OP_implicit_value) {
		if (dwarf_getlocation_implicit_value(attr, &ops[0], &b) != 0 ||
		    b.length < size)
			return false;
		memcpy(out, b.data, size);
		return true;
	}
	if (n != 2 || ops[1].atom != DW_OP_stack_value)
		return false;
	unsigned op = ops[0].atom;
	if (op >= DW_OP_lit0 && op <= DW_OP_lit31)
		v = op - DW_OP_lit0;
	else if (op == DW_OP_constu || op == DW_OP_consts ||
		 (op >= DW_OP_const1u && op <= DW_OP_const8s))
		v = ops[0].number; /* the signed forms sign-extended */
	else
		return false;
	memset(out, 0, size);
	memcpy(out, &v, size < 8 ? size : 8);
	return true;
}

bool dw_location_constant(Dwarf_Attribute *attr, uint64_t pc, uint8_t *out,
			  size_t size)
{
	Dwarf_Op *ops;
	size_t n;
	return dwarf_getlocation_addr(attr, pc, &ops, &n, 1) > 0 &&
	       constant_of(attr, ops, n, out, size);
}

bool dw_location_has_constant(Dwarf_Attribute *attr, const uint8_t *bytes,
			      size_t size)
{
	uint8_t c[16];
	if (size == 0 || size > sizeof c)
		return false;
	if (dwarf_whatattr(attr) == DW_AT_const_value) {
		Dwarf_Block b;
		Dwarf_Word u;
		Dwarf_Sword s;
		unsigned form = dwarf_whatform(attr);
		memset(c, 0, sizeof c);
		if (form == DW_FORM_sdata && dwarf_formsdata(attr, &s) == 0)
			memcpy(c, &s, size < 8 ? size : 8);
		else if (dwarf_formudata(attr, &u) == 0)
			memcpy(c, &u, size < 8 ? size : 8);
		else if (dwarf_formblock(attr, &b) == 0 && b.length >= size)
			memcpy(c, b.data, size);
		else
			return false;
		/* a constant narrower than the type: its low bytes (the
		 * sign of DW_FORM_dataN is not known) */
		size_t w = form == DW_FORM_data1   ? 1
			   : form == DW_FORM_data2 ? 2
			   : form == DW_FORM_data4 ? 4
						   : size;
		return !memcmp(c, bytes, w < size ? w : size);
	}
	Dwarf_Addr base, lo, hi;
	Dwarf_Op *ops;
	size_t n;
	ptrdiff_t off = 0;
	while ((off = dwarf_getlocations(attr, off, &base, &lo, &hi, &ops,
					 &n)) > 0)
		if (constant_of(attr, ops, n, c, size) && !memcmp(c, bytes, size))
			return true;
	return false;
}

/* ops as a place in memory (an address from a register, or below the
 * frame base: not a parameter's slot in its caller's frame, gcc's frame
 * base being the CFA; not a computed value) or a read of a register
 * numbered lo to hi. */
static bool memory_or_reads(const Dwarf_Op *ops, size_t n, int lo, int hi)
{
	bool memory = n > 0 && ((ops[0].atom == DW_OP_fbreg &&
				 (int64_t)ops[0].number < 0) ||
				ops[0].atom == DW_OP_bregx ||
				(ops[0].atom >= DW_OP_breg0 &&
				 ops[0].atom <= DW_OP_breg31));
	for (size_t i = 0; i < n; i++) {
		unsigned a = ops[i].atom;
		int r = a >= DW_OP_reg0 && a <= DW_OP_reg31	  ? (int)(a - DW_OP_reg0)
			: a >= DW_OP_breg0 && a <= DW_OP_breg31 ? (int)(a - DW_OP_breg0)
			: (a == DW_OP_regx || a == DW_OP_bregx ||
			   a == DW_OP_regval_type ||
			   a == DW_OP_GNU_regval_type) &&
				  ops[i].number < DW_MAX_REG
			    ? (int)ops[i].number
			    : -1;
		if (r >= lo && r <= hi)
			return true;
		if (a == DW_OP_stack_value || a == DW_OP_implicit_value ||
		    a == DW_OP_implicit_pointer ||
		    a == DW_OP_GNU_implicit_pointer)
			memory = false;
	}
	return memory;
}

bool dw_location_constant_after_memory(Dwarf_Attribute *attr, uint64_t pc,
				       const uint8_t *bytes, size_t size,
				       int x87_lo, int x87_hi)
{
	Dwarf_Addr base, lo, hi, at = 0;
	Dwarf_Op *ops;
	size_t n;
	uint8_t c[16];
	ptrdiff_t off = 0;
	bool found = false;
	if (size == 0 || size > sizeof c)
		return false;
	while ((off = dwarf_getlocations(attr, off, &base, &lo, &hi, &ops,
					 &n)) > 0)
		if (lo <= pc && pc < hi && constant_of(attr, ops, n, c, size) &&
		    !memcmp(c, bytes, size)) {
			found = true;
			at = lo;
		}
	if (!found)
		return false;
	off = 0;
	while ((off = dwarf_getlocations(attr, off, &base, &lo, &hi, &ops,
					 &n)) > 0)
		if (hi <= at && memory_or_reads(ops, n, x87_lo, x87_hi))
			return true;
	return false;
}
