/* arch/x86/modrm.h -- what x86-64 and i386 share of telling a ModRM
 * byte from an immediate's or a displacement's (pltarch.h's GOT
 * references). */
#ifndef CTRACE_ARCH_X86_MODRM_H
#define CTRACE_ARCH_X86_MODRM_H

#include <stddef.h>
#include <stdint.h>

/* Whether the byte before c[i - 1] can be the last byte of the opcode
 * of an instruction whose ModRM is c[i - 1]: a one-byte opcode that takes
 * a ModRM (bit k of one_byte[k / 32], which differs between the two
 * modes), or any byte after an escape (0f, 0f 38, 0f 3a) or a VEX, EVEX
 * or XOP prefix, which read the opcode map another way.  Else c[i - 1]
 * is no ModRM. */
static inline int ctrace__x86_opcode_before_modrm(const uint8_t *c, size_t i,
						  const uint32_t one_byte[8])
{
	uint8_t op = c[i - 2];
	if (one_byte[op >> 5] >> (op & 31) & 1)
		return 1;
	/* the second byte of 0f xx, the third of 0f 38 xx and 0f 3a xx,
	 * the opcode after c5 x, c4 x x, 8f x x (XOP) or 62 x x x */
	return (i >= 3 && c[i - 3] == 0x0f) ||
	       (i >= 4 && c[i - 4] == 0x0f &&
		(c[i - 3] == 0x38 || c[i - 3] == 0x3a)) ||
	       (i >= 4 && c[i - 4] == 0xc5) ||
	       (i >= 5 && (c[i - 5] == 0xc4 || c[i - 5] == 0x8f)) ||
	       (i >= 6 && c[i - 6] == 0x62);
}

#endif
