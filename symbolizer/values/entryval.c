/* entryval.c -- DW_OP_entry_value: what the caller passed.
 *
 * gcc describes a parameter the function no longer keeps as the value a
 * register had at the function's entry.  A callee-saved register the
 * function has not changed yet is found by one CFI step to the caller;
 * any other is found at the caller: its DW_TAG_call_site for the hook's
 * site says, as an expression over the caller's registers and frame,
 * what it passed in that register.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "values/dwinfo.h"
#include "trace/trace.h"
#include "resolve/resolve.h"
#include "util/util.h"

bool entryval_site_return(Dwarf_Die *site, uint64_t *ret)
{
	Dwarf_Attribute a;
	Dwarf_Addr pc;
	if ((!dwarf_attr(site, DW_AT_call_return_pc, &a) &&
	     !dwarf_attr(site, DW_AT_low_pc, &a)) ||
	    dwarf_formaddr(&a, &pc) != 0)
		return false;
	*ret = pc;
	return true;
}

/* Searches the subtree of die for the call site returning to ret. */
static bool find_call_site(Dwarf_Die *die, uint64_t ret, Dwarf_Die *out,
			   int depth)
{
	Dwarf_Die child;
	if (depth > 32 || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
			uint64_t pc;
			if (entryval_site_return(&child, &pc) && pc == ret) {
				*out = child;
				return true;
			}
		} else if (tag == DW_TAG_lexical_block ||
			   tag == DW_TAG_inlined_subroutine) {
			if (find_call_site(&child, ret, out, depth + 1))
				return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The latest return address of a call site below die before `before`
 * (0: none). */
static uint64_t previous_return(Dwarf_Die *die, uint64_t before, int depth)
{
	Dwarf_Die child;
	uint64_t best = 0;
	if (depth > 32 || dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		uint64_t r = 0;
		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
			uint64_t pc;
			if (entryval_site_return(&child, &pc) && pc < before)
				r = pc;
		} else if (tag == DW_TAG_lexical_block ||
			   tag == DW_TAG_inlined_subroutine) {
			r = previous_return(&child, before, depth + 1);
		}
		if (r > best)
			best = r;
	} while (dwarf_siblingof(&child, &child) == 0);
	return best;
}

/* The stack bytes clang's call-site value (ops, n) loads, as an offset
 * from rsp at the call and a length: a frame base that is rsp, or rsp,
 * plus a constant, then DW_OP_deref or DW_OP_deref_size; false for
 * anything else. */
static bool call_value_slot(Dwarf_Die *sub, uint64_t call, const Dwarf_Op *ops,
			    size_t n, int64_t *off, size_t *len)
{
	Dwarf_Attribute a;
	Dwarf_Op *fb;
	size_t fbn;
	if (n != 2 || (ops[1].atom != DW_OP_deref &&
		       ops[1].atom != DW_OP_deref_size))
		return false;
	*len = ops[1].atom == DW_OP_deref ? 8 : (size_t)ops[1].number;
	*off = (int64_t)ops[0].number;
	if (ops[0].atom == DW_OP_breg0 + 7)
		return true;
	return ops[0].atom == DW_OP_fbreg &&
	       dwarf_attr_integrate(sub, DW_AT_frame_base, &a) &&
	       dwarf_getlocation_addr(&a, call, &fb, &fbn, 1) == 1 &&
	       fbn == 1 && fb[0].atom == DW_OP_reg0 + 7;
}

/* clang's DW_AT_call_value names the register the argument was copied
 * from, even when the code overwrites that register between the copy and
 * the call (`mov %r14,%rdi; mov %rbx,%r14; call f': RDI given as R14).
 * Such a value is used only when the code from the previous call (or the
 * function's entry) proves the argument register holds it at the call.
 * Likewise a stack slot it loaded the argument from: clang names the
 * slot even when the code stores another value there between the load
 * and the call (`movzwl 0x20(%rsp),%edi; mov %r15,0x20(%rsp); call f'). */
static bool call_value_proven(struct dw_module *m, Dwarf_Die *sub,
			      uint64_t ret, uint64_t param_reg,
			      const Dwarf_Op *ops, size_t n)
{
	int value_reg = -1;
	bool load = false;
	for (size_t i = 0; i < n; i++) {
		unsigned a = ops[i].atom;
		int r = -1;
		if (a == DW_OP_deref || a == DW_OP_deref_size)
			load = true;
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
			r = a - DW_OP_breg0;
		else if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
			r = a - DW_OP_reg0;
		else if (a == DW_OP_bregx || a == DW_OP_regx)
			r = (int)ops[i].number;
		if (r < 0 || r == 7 || r == 16)
			continue; /* none, the stack pointer, the pc */
		if (value_reg >= 0 && value_reg != r)
			return false;
		value_reg = r;
	}
	if ((value_reg < 0 && !load) || !dw_is_clang(sub))
		return true;
	/* The call instruction: direct, or through a register. */
	uint8_t code[3];
	uint64_t call;
	if (dw_read_code(m, ret - 5, code, 1) && code[0] == 0xe8)
		call = ret - 5;
	else if (dw_read_code(m, ret - 2, code, 2) && code[0] == 0xff &&
		 (code[1] & 0xf8) == 0xd0)
		call = ret - 2;
	else if (dw_read_code(m, ret - 3, code, 3) && code[0] == 0x41 &&
		 code[1] == 0xff && (code[2] & 0xf8) == 0xd0)
		call = ret - 3;
	else
		return false;
	uint64_t from = previous_return(sub, ret, 0);
	Dwarf_Addr lo;
	if (from == 0 && dwarf_entrypc(sub, &lo) == 0)
		from = lo;
	if (from == 0)
		return false;
	if (load) {
		int64_t off;
		size_t len;
		return value_reg < 0 &&
		       call_value_slot(sub, call, ops, n, &off, &len) &&
		       dw_stack_kept(m, from, call, off, len);
	}
	return dw_call_value_holds(m, from, call, (int)param_reg, value_reg);
}

bool entryval_site_param(Dwarf_Die *site, uint64_t reg, Dwarf_Die *out)
{
	Dwarf_Die child;
	if (dwarf_child(site, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t n;
		if ((tag != DW_TAG_call_site_parameter &&
		     tag != DW_TAG_GNU_call_site_parameter) ||
		    !dwarf_attr(&child, DW_AT_location, &a) ||
		    dwarf_getlocation(&a, &ops, &n) != 0 || n != 1)
			continue;
		uint64_t r = ops[0].atom == DW_OP_regx
				     ? ops[0].number
				     : (uint64_t)(ops[0].atom - DW_OP_reg0);
		if ((ops[0].atom == DW_OP_regx ||
		     (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)) &&
		    r == reg) {
			*out = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* How many low bytes of the register clang's call-site value (ops, n)
 * gives: clang describes an argument loaded from memory as the load
 * alone, DW_OP_deref_size N, whatever the instruction did to the bytes
 * above N (`movsbl' of a signed char into the register of a short, or
 * `movslq' of an int into a long's: their sign, not the zeros the
 * expression says).  SIZE_MAX: all of them (a register, a constant, a
 * full load, or gcc's, which describes an extension as such). */
static size_t call_value_bytes(Dwarf_Die *sub, const Dwarf_Op *ops, size_t n,
			       int ptr_size)
{
	if (n > 0 && ops[n - 1].atom == DW_OP_stack_value)
		n--;
	if (n == 0 || ops[n - 1].atom != DW_OP_deref_size ||
	    ops[n - 1].number >= (uint64_t)ptr_size || !dw_is_clang(sub))
		return SIZE_MAX;
	return (size_t)ops[n - 1].number;
}

int entryval_eval(struct frame_state *f, Dwarf_Attribute *attr,
		  const Dwarf_Op *op, size_t bytes, uint64_t *v,
		  const char **why, int depth)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;
	*why = "optimized out";
	if (f->is_caller || depth > 1 || attr == NULL ||
	    dwarf_getlocation_attr(attr, op, &sub) != 0 ||
	    dwarf_getlocation(&sub, &ops, &n) != 0 || n != 1)
		return -1;
	uint64_t reg;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		reg = ops[0].atom - DW_OP_reg0;
	else if (ops[0].atom == DW_OP_regx)
		reg = ops[0].number;
	else
		return -1;
	/* A callee-saved register the function has not changed yet. */
	struct frame_state c;
	memset(&c, 0, sizeof c);
	if (frame_unwind_to_caller(f, &c) < 0)
		return -1;
	if (reg < DW_MAX_REG && c.have[reg] && reg != (uint64_t)f->sp_reg) {
		*v = c.reg[reg];
		return 0;
	}

	/* The caller: its module, scope and call site. */
	const struct resolve_info *si = resolve_call_site(
		f->trace->resolver, f->site, f->ticks);
	if (!si->module)
		return -1;
	struct dw_module *cm = dw_module_at(f->trace, si, f->site, f->ticks);
	if (!cm || !cm->dw)
		return -1;
	c.m = cm;
	c.bias = f->site - si->module_offset;
	c.rel_pc = si->module_offset;
	c.is_caller = true;
	c.mem = f->mem;
	c.ptr_size = f->ptr_size;
	c.sp_reg = f->sp_reg;
	c.machine = f->machine;
	c.callee = f;
	Dwarf_Die scope, sub_die, site_die, param;
	if (dw_scope_at(cm, c.rel_pc - 1, &scope, &sub_die) < 0 ||
	    !find_call_site(&sub_die, c.rel_pc, &site_die, 0) ||
	    !entryval_site_param(&site_die, reg, &param))
		return -1;
	c.subprogram = sub_die;
	c.have_subprogram = true;
	/* The caller's CFA, from its own CFI at the call. */
	Dwarf_Frame *fr = NULL;
	if (cm->cfi && dwarf_cfi_addrframe(cm->cfi, c.rel_pc - 1, &fr) == 0) {
		Dwarf_Op *cops;
		size_t cn;
		const char *w;
		uint64_t cfa;
		if (dwarf_frame_cfa(fr, &cops, &cn) == 0 && cn > 0 &&
		    frame_eval_value(&c, NULL, cops, cn, &cfa, &w, 3) == 0) {
			c.cfa = cfa;
			c.have_cfa = true;
		}
		free(fr);
	}
	Dwarf_Attribute val;
	if (!dwarf_attr(&param, DW_AT_call_value, &val) &&
	    !dwarf_attr(&param, DW_AT_GNU_call_site_value, &val))
		return -1;
	if (dwarf_getlocation(&val, &ops, &n) != 0 || n == 0)
		return -1;
	if (f->machine == EM_X86_64 &&
	    !call_value_proven(cm, &sub_die, c.rel_pc, reg, ops, n)) {
		*why = "the caller's call-site value is not proven at the call";
		return -1;
	}
	size_t known = call_value_bytes(&sub_die, ops, n, f->ptr_size);
	if (known != SIZE_MAX && (bytes == 0 || bytes > known)) {
		*why = "the caller's call-site value does not say how its "
		       "load was extended";
		return -1;
	}
	/* DW_AT_call_value is a DWARF expression: its result is the value
	 * (a register named alone: the caller's register's value). */
	return frame_eval_value(&c, &val, ops, n, v, why, depth + 1);
}

