/* arch/x86_64/pltarch.h -- what plt.c needs to know of x86-64: its
 * relocations, the frames of the trampolines (plt.S), and the code that
 * references a GOT slot. */
#ifndef CTRACE_ARCH_PLTARCH_H
#define CTRACE_ARCH_PLTARCH_H

#include <elf.h>
#include <link.h>
#include <string.h>

#include "plt.h"

#include "capture.h"
#include "arch/x86/insn.h"
#include "arch/x86/modrm.h"

typedef ElfW(Rela) plt_rel;
#define PLT_DT_REL DT_RELA
#define PLT_DT_RELSZ DT_RELASZ
#define PLT_R_SYM(i) ELF64_R_SYM(i)
#define PLT_R_TYPE(i) ELF64_R_TYPE(i)
#define PLT_ST_TYPE(i) ELF64_ST_TYPE(i)
#define PLT_JUMP_SLOT R_X86_64_JUMP_SLOT
#define PLT_GLOB_DAT R_X86_64_GLOB_DAT

#define PLT_TRAMP_SIZE 16
/* plt.S's frames: the entry's registers from PLT_SAVED_BYTES below the
 * return address (rdi, rsi, rdx, rcx, r8, r9, ..., then the slot's index
 * and the call site's copy), with xmm0-7 from PLT_SAVED_XMM; the
 * return's rax and rdx from PLT_RET_BYTES below the stack pointer after
 * the function's ret, xmm0 and xmm1 from PLT_RET_XMM0 above, st(0)'s 10
 * bytes from PLT_RET_ST0 and whether st(0) held a value at
 * PLT_RET_ST0_VALID, st(1)'s from PLT_RET_ST1 and whether both held one
 * at PLT_RET_ST1_VALID. */
#define PLT_SAVED_BYTES 216
#define PLT_SAVED_XMM 64
#define PLT_RET_BYTES 80
#define PLT_RET_XMM0 16
#define PLT_RET_ST0 48
#define PLT_RET_ST0_VALID 64
#define PLT_RET_ST1_VALID 65
#define PLT_RET_ST1 66

static inline struct ctrace__libvals
plt_arch_entry_vals(const uintptr_t *ret, struct ctrace__libcall_how how)
{
	const uint8_t *saved = (const uint8_t *)ret - PLT_SAVED_BYTES;
	return (struct ctrace__libvals){(const uintptr_t *)saved,
					saved + PLT_SAVED_XMM, NULL, NULL,
					how};
}

/* mask: the return registers to record (CTRACE_RETVAL_*), the slot's */
static inline struct ctrace__libvals plt_arch_exit_vals(uintptr_t sp,
							uint8_t mask)
{
	const uint8_t *saved = (const uint8_t *)sp - PLT_RET_BYTES;
	return (struct ctrace__libvals){
		(const uintptr_t *)saved, saved + PLT_RET_XMM0,
		saved[PLT_RET_ST0_VALID] ? saved + PLT_RET_ST0 : NULL,
		saved[PLT_RET_ST1_VALID] ? saved + PLT_RET_ST1 : NULL,
		{0, 0, 0, mask, 0}};
}

/* At c + i, the disp32 of `mov slot(%rip), %reg` whose next instruction
 * calls or jumps through %reg (clang -O0 -fno-plt): a call too. */
static inline int plt_load_then_call(const uint8_t *c, size_t i, size_t size)
{
	if (i < 3 || i + 7 > size || (c[i - 3] != 0x48 && c[i - 3] != 0x4c) ||
	    c[i - 2] != 0x8b || (c[i - 1] & 0xc7) != 0x05)
		return 0;
	unsigned reg = (c[i - 1] >> 3) & 7;
	const uint8_t *n = c + i + 4;
	if (c[i - 3] == 0x4c) { /* r8-r15: a REX.B prefix on the call */
		if (n[0] != 0x41)
			return 0;
		n++;
	}
	return n[0] == 0xff && (n[1] == 0xd0 + reg || n[1] == 0xe0 + reg);
}

/* Whether the byte before c[i - 1] can be the last byte of the opcode
 * of an instruction whose ModRM is c[i - 1]: a one-byte opcode that takes
 * a ModRM, or any byte after an escape (0f, 0f 38, 0f 3a) or a VEX, EVEX
 * or XOP prefix, which read the opcode map another way.  Else c[i - 1]
 * is no ModRM (in `8d 7c 05 00 b9 01 00 00`, lea 0(%rbp,%rax), then mov
 * $1,%ecx, the 05 is a SIB byte whose next four bytes once named a slot
 * of strlen: a load, which left its calls unrecorded).  Bit k of word
 * k / 32: one-byte opcode k takes a ModRM (00-03, 08-0b, ... 38-3b, 63,
 * 69, 6b, 80-8f, c0, c1, c6, c7, d0-d3, d8-df, f6, f7, fe, ff; c4, c5
 * and 62 are VEX and EVEX prefixes in 64-bit code, taken below). */
static inline int plt_opcode_before_modrm(const uint8_t *c, size_t i)
{
	static const uint32_t modrm[8] = {
		0x0f0f0f0f, 0x0f0f0f0f, 0x00000000, 0x00000a08,
		0x0000ffff, 0x00000000, 0xff0f00c3, 0xc0c00000,
	};
	return ctrace__x86_opcode_before_modrm(c, i, modrm);
}

/* Whether the 4 bytes at c + i (c at address base, size bytes of code,
 * i >= 2, i + 4 <= size) are the disp32 of a RIP-relative operand, and if
 * so its address (*t) and whether the instruction calls or jumps through
 * it: PLT_REF_CALL for `ff 15` (call *) and `ff 25` (jmp *), and for a
 * load into a register the next instruction calls through; any other use
 * PLT_REF_LOAD.  A RIP-relative operand's ModRM byte (mod 00, r/m 101)
 * comes right before its disp32, and its opcode right before the ModRM,
 * in every instruction: other bytes are not a reference.  gotplt is not
 * needed here. */
enum { PLT_REF_NONE, PLT_REF_LOAD, PLT_REF_CALL };
static inline int plt_arch_ref(const uint8_t *c, size_t i, size_t size,
			       uintptr_t base, uintptr_t gotplt, uintptr_t *t)
{
	(void)gotplt;
	if ((c[i - 1] & 0xc7) != 0x05 || !plt_opcode_before_modrm(c, i))
		return PLT_REF_NONE;
	int32_t d;
	memcpy(&d, c + i, 4);
	*t = base + i + 4 + (uintptr_t)(intptr_t)d;
	if ((c[i - 2] == 0xff && (c[i - 1] == 0x15 || c[i - 1] == 0x25)) ||
	    plt_load_then_call(c, i, size))
		return PLT_REF_CALL;
	return PLT_REF_LOAD;
}

/* x86-64 code names a GOT slot RIP-relative, from no base register
 * (arch/i386/pltarch.h finds its modules' bases in their code). */
#define PLT_GOT_BASES 1
static inline int plt_arch_got_base(const uint8_t *c, size_t i, size_t size,
				    uintptr_t base, uintptr_t *got,
				    unsigned *reg)
{
	(void)c;
	(void)i;
	(void)size;
	(void)base;
	(void)got;
	(void)reg;
	return 0;
}

/* A reference from a register, as i386's `disp32(%reg)`: none. */
static inline int plt_arch_by_reg(const uint8_t *c, size_t i)
{
	(void)c;
	(void)i;
	return 0;
}

/* No register holds a GOT base either (arch/i386/gotreg.h).  A function
 * (its FDE's range, PLT_REGION_EXTENT) is read instruction by instruction
 * from its start: each disp32(%rip) names the address after its
 * instruction plus disp32, a reference exactly where one is.  Other code
 * (none of its FDEs covers it, or an instruction x86_decode refuses),
 * byte by byte: plt_arch_ref takes any bytes shaped like a RIP-relative
 * operand for one, and a stray match (`and $0xf000,%eax; cmp
 * $0xa000,%eax` read as `add %al, disp32(%rip)`, pointed at exit's slot
 * in a gold build) kept a slot called only from being redirected. */
#define PLT_BLOCK_BYTES 0
#define PLT_REGION_EXTENT 1

/* Whether the instruction at c + k, in, calls or jumps through its
 * RIP-relative operand: `ff /2` (call *), `ff /4` (jmp *), or `mov
 * slot(%rip), %reg` whose next instruction calls or jumps through %reg
 * (clang -O0 -fno-plt). */
static inline int plt_insn_calls(const uint8_t *c, size_t k, size_t hi,
				 const struct x86_insn *in)
{
	if (in->map != X86_MAP1 || in->vex)
		return 0;
	if (in->op == 0xff)
		return in->reg == 2 || in->reg == 4;
	if (in->op != 0x8b || !(in->rex & 8))
		return 0;
	struct x86_insn next;
	size_t at = k + in->len;
	unsigned reg = in->reg + ((in->rex & 4) ? 8u : 0u);
	return at < hi && x86_decode(c + at, hi - at, &next, 1) == 0 &&
	       next.map == X86_MAP1 && !next.vex && next.op == 0xff &&
	       next.mod == 3 && (next.reg == 2 || next.reg == 4) &&
	       next.rm + ((next.rex & 1) ? 8u : 0u) == reg;
}

static inline int plt_arch_region(const struct plt_gotreg *g, size_t lo,
				  size_t hi)
{
	struct x86_insn in;
	/* A function that stops decoding is read again byte by byte: what
	 * was noted before the refusal was read in step, and is found
	 * again. */
	for (size_t k = lo; k < hi; k += in.len) {
		if (x86_decode(g->c + k, hi - k, &in, 1) < 0)
			return PLT_SCAN_BYTES;
		if (!in.rip)
			continue;
		uintptr_t t = g->base + k + in.len + (uintptr_t)(intptr_t)in.disp;
		if (t - g->lo >= g->hi - g->lo)
			continue;
		g->ref(g->ctx, t,
		       plt_insn_calls(g->c, k, hi, &in) ? PLT_REF_CALL
							: PLT_REF_LOAD);
	}
	return PLT_SCAN_ALIGNED;
}

/* i386 reads some bytes a second way (arch/i386/pltarch.h); x86-64 names
 * a slot RIP-relative only. */
static inline int plt_arch_abs_load(const uint8_t *c, size_t i, uintptr_t *t)
{
	(void)c;
	(void)i;
	(void)t;
	return 0;
}

#endif /* CTRACE_ARCH_PLTARCH_H */
