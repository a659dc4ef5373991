/* arch/i386/pltarch.h -- what plt.c needs to know of i386: its
 * relocations, the frames of the trampolines (plt.S), and the code that
 * references a GOT slot. */
#ifndef CTRACE_ARCH_PLTARCH_H
#define CTRACE_ARCH_PLTARCH_H

#include <elf.h>
#include <link.h>
#include <string.h>

#include "capture.h"
#include "plt.h"
#include "arch/x86/modrm.h"

typedef ElfW(Rel) plt_rel;
#define PLT_DT_REL DT_REL
#define PLT_DT_RELSZ DT_RELSZ
#define PLT_R_SYM(i) ELF32_R_SYM(i)
#define PLT_R_TYPE(i) ELF32_R_TYPE(i)
#define PLT_ST_TYPE(i) ELF32_ST_TYPE(i)
#define PLT_JUMP_SLOT R_386_JMP_SLOT
#define PLT_GLOB_DAT R_386_GLOB_DAT

#define PLT_TRAMP_SIZE 16
/* plt.S's return frame: eax, edx, st(0)'s 10 bytes and whether st(0)
 * held a value, from PLT_RET_BYTES below the stack pointer after the
 * function's ret. */
#define PLT_RET_BYTES 32
#define PLT_RET_ST0 8
#define PLT_RET_ST0_VALID 20

/* cdecl: the arguments are the words above the return address. */
static inline struct ctrace__libvals
plt_arch_entry_vals(const uintptr_t *ret, struct ctrace__libcall_how how)
{
	return (struct ctrace__libvals){ret + 1, NULL, NULL, NULL, how};
}

/* mask: the slot's (protos.c): eax, edx and st(0) for every function,
 * and for some the memory eax points to */
static inline struct ctrace__libvals plt_arch_exit_vals(uintptr_t sp,
							uint8_t mask)
{
	const uint8_t *saved = (const uint8_t *)sp - PLT_RET_BYTES;
	return (struct ctrace__libvals){
		(const uintptr_t *)saved, NULL,
		saved[PLT_RET_ST0_VALID] ? saved + PLT_RET_ST0 : NULL, NULL,
		{0, 0, 0, mask, 0}};
}

/* PIC code reaches the GOT from a register it loads with the GOT's
 * address, a base the linker chooses: GNU ld, gold and lld take
 * _GLOBAL_OFFSET_TABLE_, the start of .got.plt (DT_PLTGOT); mold the
 * start of .got, which no dynamic entry names (so that every -fno-plt
 * call of its builds was read as a displacement from the wrong base, and
 * none was recorded).  The code says which: each function that needs it
 * computes it from its own address, as
 *
 *   e8 rel32             call __x86.get_pc_thunk.REG  (8b /r 24 c3:
 *                        mov (%esp),%REG; ret)
 *   81 c0+REG imm32      add $GOT-., %REG  (05 imm32 for eax)
 *
 * (gcc) or as `e8 00 00 00 00; 58+REG; 81 c0+REG imm32` (call the next
 * instruction, pop it into REG, add; clang): the GOT is the address
 * after the call plus imm32.  PLT_GOT_BASES is how many bases a module
 * may use before its GLOB_DAT slots are all left alone. */
#define PLT_GOT_BASES 4
/* plt_arch_region reads from a function's start to the next one's
 * (arch/i386/gotreg.h follows its jumps), not its FDE's range alone. */
#define PLT_REGION_EXTENT 0

/* Whether c + i (c at address base, size bytes of code) starts one of
 * those sequences, and if so the GOT's address in *got and the register
 * that holds it in *reg (0-7: eax, ecx, edx, ebx, esp, ebp, esi, edi). */
static inline int plt_arch_got_base(const uint8_t *c, size_t i, size_t size,
				    uintptr_t base, uintptr_t *got,
				    unsigned *reg_out)
{
	if (c[i] != 0xe8 || i + 12 > size)
		return 0;
	int32_t rel;
	memcpy(&rel, c + i + 1, 4);
	size_t next = i + 5, imm;
	unsigned reg;
	if (rel == 0 && c[next] >= 0x58 && c[next] <= 0x5f) {
		reg = c[next] - 0x58u;
		next++;
	} else {
		uintptr_t f = next + (uintptr_t)(intptr_t)rel; /* mod 2^32 */
		if (f > size - 4 || c[f] != 0x8b || (c[f + 1] & 0xc7) != 0x04 ||
		    c[f + 2] != 0x24 || c[f + 3] != 0xc3)
			return 0;
		reg = (c[f + 1] >> 3) & 7;
	}
	if (c[next] == 0x81 && c[next + 1] == 0xc0 + reg)
		imm = next + 2;
	else if (reg == 0 && c[next] == 0x05)
		imm = next + 1;
	else
		return 0;
	if (reg == 4 || imm + 4 > size)
		return 0; /* not %esp */
	int32_t d;
	memcpy(&d, c + imm, 4);
	*got = base + i + 5 + (uintptr_t)(intptr_t)d;
	*reg_out = reg;
	return 1;
}

/* Whether the 4 bytes at c + i (c at address base, size bytes of code,
 * i >= 2, i + 4 <= size) are the address or displacement of a memory
 * operand, and if so the address it names (*t) and whether the
 * instruction calls or jumps through it: PLT_REF_CALL for `ff /2` (call
 * *) and `ff /4` (jmp *), and for a load into a register the next
 * instruction calls through (clang -O0 -fno-plt); any other use
 * PLT_REF_LOAD.  Non-PIC code names a slot by its absolute address
 * (ModRM mod 00, r/m 101; mov's moffs32 form is plt_arch_abs_load's),
 * PIC code as a disp32
 * from a register holding the GOT's address (mod 10, no SIB), which is
 * gotplt (one of the module's GOT bases, above) whichever register holds
 * it.  Not one: the rel32 of a jcc (0f 8x: no instruction has 0f right
 * before its ModRM), and ff /7 (no such instruction; `ff | ba imm32`, a
 * rel32's last byte and `mov $imm32, %edx`, in gold's and lld's
 * builds). */
enum { PLT_REF_NONE, PLT_REF_LOAD, PLT_REF_CALL };

/* The same bytes read as an opcode and its absolute address: `mov
 * moffs32` to or from eax, `mov $imm32` to a register, `push $imm32` (a
 * slot's address taken, never a call).  Each of those opcodes is also a
 * ModRM byte (a3: jmp *disp32(%ebx)), so both readings count: true and
 * the address in *t when this one applies. */
static inline int plt_arch_abs_load(const uint8_t *c, size_t i, uintptr_t *t)
{
	uint8_t m = c[i - 1];
	if (m != 0xa1 && m != 0xa3 && (m < 0xb8 || m > 0xbf) && m != 0x68)
		return 0;
	uint32_t d;
	memcpy(&d, c + i, 4);
	*t = d;
	return 1;
}
/* Whether the byte before c[i - 1] can be the last byte of the opcode
 * of an instruction whose ModRM is c[i - 1] (as x86-64's
 * plt_opcode_before_modrm; in 32-bit code 62, c4 and c5 are BOUND, LES
 * and LDS, which take one, as well as the EVEX and VEX prefixes): else
 * c[i - 1] is no ModRM.  A mold build's GOT base is .got, which puts its
 * slots at small offsets that the immediates of `mov $imm32, %reg` (b8-bf,
 * read as a ModRM with a disp32) often equal: `fb b9 50 00 00 00`,
 * endbr32's last byte then mov $0x50,%ecx, is no reference (fb, sti,
 * takes no ModRM). */
static inline int plt_opcode_before_modrm(const uint8_t *c, size_t i)
{
	static const uint32_t modrm[8] = {
		0x0f0f0f0f, 0x0f0f0f0f, 0x00000000, 0x00000a0c,
		0x0000ffff, 0x00000000, 0xff0f00f3, 0xc0c00000,
	};
	return ctrace__x86_opcode_before_modrm(c, i, modrm);
}

/* Whether a reference plt_arch_ref found at c + i is from a register
 * (`disp32(%reg)`, which arch/i386/gotreg.h reads), not an absolute
 * address. */
static inline int plt_arch_by_reg(const uint8_t *c, size_t i)
{
	return (c[i - 1] & 0xc7) != 0x05;
}

static inline int plt_arch_ref(const uint8_t *c, size_t i, size_t size,
			       uintptr_t base, uintptr_t gotplt, uintptr_t *t)
{
	(void)base;
	uint8_t m = c[i - 1];
	int abs = (m & 0xc7) == 0x05;
	if (!abs && ((m & 0xc0) != 0x80 || (m & 7) == 4 || gotplt == 0))
		return PLT_REF_NONE;
	/* 0f 80-8f: a jcc's rel32 (no instruction has 0f right before
	 * its ModRM) */
	if (c[i - 2] == 0x0f || !plt_opcode_before_modrm(c, i))
		return PLT_REF_NONE;
	int32_t d;
	memcpy(&d, c + i, 4);
	*t = abs ? (uintptr_t)(uint32_t)d : gotplt + (uintptr_t)(intptr_t)d;
	unsigned reg = (m >> 3) & 7;
	if (c[i - 2] == 0xff && reg == 7)
		return PLT_REF_NONE; /* no such instruction */
	if (c[i - 2] == 0xff && (reg == 2 || reg == 4))
		return PLT_REF_CALL;
	if (c[i - 2] == 0x8b && i + 6 <= size && c[i + 4] == 0xff &&
	    (c[i + 5] == 0xd0 + reg || c[i + 5] == 0xe0 + reg))
		return PLT_REF_CALL;
	return PLT_REF_LOAD;
}

#include "arch/i386/gotreg.h"

#endif /* CTRACE_ARCH_PLTARCH_H */
