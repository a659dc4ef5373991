/* arch/i386/pltarch.h -- what plt.c needs to know of i386: its
 * relocations, the frames of the trampolines (plt.S), and the code that
 * references a GOT slot. */
#ifndef CTRACE_ARCH_PLTARCH_H
#define CTRACE_ARCH_PLTARCH_H

#include <elf.h>
#include <link.h>
#include <string.h>

#include "capture.h"

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
	return (struct ctrace__libvals){ret + 1, NULL, NULL, how};
}

/* mask: the slot's (protos.c): eax, edx and st(0) for every function,
 * and for some the memory eax points to */
static inline struct ctrace__libvals plt_arch_exit_vals(uintptr_t sp,
							uint8_t mask)
{
	const uint8_t *saved = (const uint8_t *)sp - PLT_RET_BYTES;
	return (struct ctrace__libvals){
		(const uintptr_t *)saved, NULL,
		saved[PLT_RET_ST0_VALID] ? saved + PLT_RET_ST0 : NULL,
		{0, 0, 0, mask, 0}};
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
 * gotplt (DT_PLTGOT, _GLOBAL_OFFSET_TABLE_) whichever register holds
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
static inline int plt_arch_ref(const uint8_t *c, size_t i, size_t size,
			       uintptr_t base, uintptr_t gotplt, uintptr_t *t)
{
	(void)base;
	uint8_t m = c[i - 1];
	int32_t d;
	memcpy(&d, c + i, 4);
	/* 0f 80-8f: a jcc's rel32 (no instruction has 0f right before
	 * its ModRM) */
	if (c[i - 2] == 0x0f)
		return PLT_REF_NONE;
	if ((m & 0xc7) == 0x05)
		*t = (uintptr_t)(uint32_t)d;
	else if ((m & 0xc0) == 0x80 && (m & 7) != 4 && gotplt != 0)
		*t = gotplt + (uintptr_t)(intptr_t)d;
	else
		return PLT_REF_NONE;
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

#endif /* CTRACE_ARCH_PLTARCH_H */
