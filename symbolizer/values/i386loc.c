/* i386loc.c -- i386: the frame base and the stack parameters around the
 * entry hook's call, where the DWARF does not follow esp.  The code is
 * read with the one i386 decoder (i386dec.c).
 *
 * clang on i386 ends a stack parameter's location where the code starts
 * pushing the hook's arguments (it does not follow esp there).  The value
 * is still in its slot above the CFA if nothing between the function's
 * entry and the hook's call can have written there: the prologue is read
 * and accepted only when every instruction is one that writes no memory
 * but below the CFA.  gcc keeps a 64-bit value in a register pair that the
 * code before the call may have written.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <string.h>

#include "dwinfo.h"

/* clang on i386 gives esp as the frame base: esp as the function body
 * keeps it.  At the hook's call, the hook's arguments may be on top of
 * it: the `add $n, %esp` that removes them after the call says by how
 * much, found by reading forward from the return address over
 * instructions that leave esp alone; arguments stored into the frame
 * rather than pushed leave esp alone.  Anything else (a jump, an
 * instruction not understood): unknown. */
bool dw_i386_esp_adjust(struct dw_module *m, uint64_t ra, int64_t *adjust)
{
	uint8_t code[64];
	size_t len = sizeof code;
	while (len >= 3 && !dw_read_code(m, ra, code, len))
		len /= 2;
	if (len < 3)
		return false;
	/* The hook's first argument stored at (%esp) right before the call
	 * (mov %reg, (%esp)): the frame reserves its calls' arguments and
	 * esp does not move in the body. */
	uint8_t before[3];
	if (dw_read_code(m, ra - 8, before, 3) && before[0] == 0x89 &&
	    (before[1] & 0xc7) == 0x04 && before[2] == 0x24) {
		*adjust = 0;
		return true;
	}
	/* Pushed: the add that removes them, before any call (the exit
	 * hook's comes before the epilogue) or jump. */
	const uint8_t *p = code, *end = code + len;
	for (int k = 0; k < 16 && p + 3 <= end; k++) {
		if (p[0] == 0x83 && p[1] == 0xc4) {
			*adjust = (int8_t)p[2];
			return *adjust >= 0;
		}
		if (p[0] == 0x81 && p[1] == 0xc4 && p + 6 <= end) {
			int32_t imm;
			memcpy(&imm, p + 2, 4);
			*adjust = imm;
			return imm >= 0;
		}
		/* an instruction that leaves esp alone */
		struct i386_insn in;
		size_t n = i386dec_insn(p, end, &in);
		if (n == 0 || in.call || (in.writes & 1u << I386_ESP))
			return false;
		p += n;
	}
	return false;
}

/* Whether the code [lo, call) writes no memory at or above the CFA. */
static bool prologue_harmless(struct dw_module *m, uint64_t lo, uint64_t call)
{
	uint8_t code[128];
	if (call <= lo || call - lo > sizeof code ||
	    !dw_read_code(m, lo, code, call - lo))
		return false;
	const uint8_t *p = code, *end = code + (call - lo);
	int64_t esp = -4; /* relative to the CFA */
	while (p < end) {
		struct i386_insn in;
		size_t n = i386dec_step(m, lo + (uint64_t)(p - code), p, end,
					&in);
		/* esp followed exactly; a store only into the frame, below
		 * the CFA, addressed from esp */
		if (n == 0 || in.call || !in.esp_known ||
		    in.store == I386_STORE_OTHER ||
		    (in.store == I386_STORE_ESP &&
		     esp + in.store_disp + (int64_t)in.store_len > 0))
			return false;
		esp += in.esp_delta;
		p += n;
	}
	return p == end;
}

/* A call other than to a PIC thunk writes the call-clobbered eax, ecx and
 * edx; a thunk `mov (%esp), %reg; ret` writes its register. */
int dw_i386_written(struct dw_module *m, uint64_t from, uint64_t call)
{
	uint8_t code[128];
	if (call < from || call - from > sizeof code ||
	    (call > from && !dw_read_code(m, from, code, call - from)))
		return -1;
	const uint8_t *p = code, *end = code + (call - from);
	int w = 0;
	while (p < end) {
		struct i386_insn in;
		size_t n = i386dec_step(m, from + (uint64_t)(p - code), p, end,
					&in);
		if (n == 0)
			return -1;
		w |= (int)in.writes;
		p += n;
	}
	return w;
}

/* gcc on i386 keeps a 64-bit value in a register pair and may name the
 * pair after an instruction wrote one of its registers (seen: the high
 * half in edi through `lea this_fn, %edi' that sets up the entry hook's
 * argument).  A location of register pieces is used only when the code
 * from the start of its range to the call writes none of them. */
bool i386loc_pieces_kept(struct frame_state *f, Dwarf_Attribute *attr,
			 const Dwarf_Op *ops, size_t n)
{
	int regs = 0, nregs = 0;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom >= DW_OP_reg0 && ops[i].atom <= DW_OP_reg7) {
			regs |= 1 << (ops[i].atom - DW_OP_reg0);
			nregs++;
		} else if (ops[i].atom == DW_OP_regx) {
			return false;
		}
	if (nregs == 0)
		return true;
	uint64_t call = f->rel_pc - 5;
	uint8_t op;
	if (!dw_read_code(f->m, call, &op, 1) || op != 0xe8)
		return false;
	Dwarf_Addr base, start, end;
	Dwarf_Op *lops;
	size_t ln;
	ptrdiff_t off = 0;
	while ((off = dwarf_getlocations(attr, off, &base, &start, &end, &lops,
					 &ln)) > 0) {
		if (start == 0 && end == (Dwarf_Addr)-1)
			return true;    /* one expression for the whole scope */
		if (call < start || call >= end)
			continue;
		int w = dw_i386_written(f->m, start, call);
		return w >= 0 && !(w & regs);
	}
	return false;
}

bool dw_i386_stack_slot(struct dw_module *m, Dwarf_Attribute *loc,
			Dwarf_Die *sub, uint64_t ra, int64_t *slot)
{
	Dwarf_Addr base, lo = 0, hi, start, end;
	ptrdiff_t it = 0;
	uint8_t call;
	while ((it = dwarf_ranges(sub, it, &base, &lo, &hi)) > 0)
		if (ra - 1 >= lo && ra - 1 < hi)
			break;
	if (it <= 0 || !m->cfi || !dw_read_code(m, ra - 5, &call, 1) ||
	    call != 0xe8 || !prologue_harmless(m, lo, ra - 5))
		return false;
	Dwarf_Op *ops;
	size_t n;
	ptrdiff_t off = 0;
	while ((off = dwarf_getlocations(loc, off, &base, &start, &end, &ops,
					 &n)) > 0) {
		if (start < lo || start >= ra - 5 || n != 1 ||
		    (ops[0].atom != DW_OP_breg4 && ops[0].atom != DW_OP_fbreg))
			continue;
		if (ops[0].atom == DW_OP_fbreg) {
			Dwarf_Attribute fa;
			Dwarf_Op *fops;
			size_t fn;
			if (!dwarf_attr_integrate(sub, DW_AT_frame_base, &fa) ||
			    dwarf_getlocation(&fa, &fops, &fn) != 0 || fn != 1 ||
			    fops[0].atom != DW_OP_reg4)
				continue;
		}
		/* the CFA as esp + cfa_off where the location starts */
		int cfa_reg;
		int64_t cfa_off;
		bool ok = frame_cfa_rule(m, start, &cfa_reg, &cfa_off) &&
			  cfa_reg == 4;
		int64_t k = (int64_t)ops[0].number - cfa_off;
		if (ok && k >= 0) {
			*slot = k;
			return true;
		}
	}
	return false;
}

