/* arch/i386/insn.h -- the length and the operands of one instruction of
 * 32-bit x86 code, enough to walk a function's code instruction by
 * instruction (gotreg.h): its prefixes, opcode, ModRM, SIB, displacement
 * and immediate.  What compilers emit is decoded; what they do not (16-bit
 * addressing, far jumps, EVEX, XOP, 3DNow!) is refused, and the caller
 * then reads the code some other way. */
#ifndef CTRACE_ARCH_I386_INSN_H
#define CTRACE_ARCH_I386_INSN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The opcode maps: one byte, 0f, 0f 38, 0f 3a. */
enum { I386_MAP1, I386_MAP0F, I386_MAP0F38, I386_MAP0F3A };

struct i386_insn {
	uint8_t len;    /* bytes, prefixes included */
	uint8_t map;    /* I386_MAP* */
	uint8_t op;     /* the opcode byte in its map */
	uint8_t vex;    /* a VEX prefix */
	uint8_t p66;    /* 66 (or VEX pp 01): 16-bit operands, or SSE */
	uint8_t rep;    /* f3 (or VEX pp 10) */
	uint8_t has_modrm, mod, reg, rm; /* rm: the base when sib */
	uint8_t has_sib, index;          /* index 4: none */
	uint8_t disp_at;                 /* the displacement's offset, or 0 */
	uint8_t disp_size;               /* 0, 1 or 4 */
	int32_t disp;
	uint8_t imm_at;
	int32_t imm; /* the first immediate, sign-extended (rel8/rel32) */
};

/* One-byte opcodes: what follows the opcode. */
#define I386_M 0x01    /* a ModRM */
#define I386_I8 0x02   /* an 8-bit immediate */
#define I386_IZ 0x04   /* a 32-bit immediate (16-bit after 66) */
#define I386_I16 0x08  /* a 16-bit immediate */
#define I386_AD 0x10   /* a 32-bit address (mov moffs) */
#define I386_OK 0x20   /* a valid opcode with none of those */
#define I386_PFX 0x40  /* a prefix */
#define I386_GRP3 0x80 /* f6 and f7: an immediate after /0 and /1 */

static const uint8_t i386_map1[256] = {
	/* 00-3f: the ALU operations, each as 8 opcodes: r/m,r (2),
	 * r,r/m (2), al,imm8, eax,imm32, then push/pop seg, a prefix
	 * or a BCD adjustment; 0f is the escape */
	[0x00 ... 0x03] = I386_M, [0x04] = I386_I8, [0x05] = I386_IZ,
	[0x06 ... 0x07] = I386_OK,
	[0x08 ... 0x0b] = I386_M, [0x0c] = I386_I8, [0x0d] = I386_IZ,
	[0x0e] = I386_OK,
	[0x10 ... 0x13] = I386_M, [0x14] = I386_I8, [0x15] = I386_IZ,
	[0x16 ... 0x17] = I386_OK,
	[0x18 ... 0x1b] = I386_M, [0x1c] = I386_I8, [0x1d] = I386_IZ,
	[0x1e ... 0x1f] = I386_OK,
	[0x20 ... 0x23] = I386_M, [0x24] = I386_I8, [0x25] = I386_IZ,
	[0x26] = I386_PFX, [0x27] = I386_OK,
	[0x28 ... 0x2b] = I386_M, [0x2c] = I386_I8, [0x2d] = I386_IZ,
	[0x2e] = I386_PFX, [0x2f] = I386_OK,
	[0x30 ... 0x33] = I386_M, [0x34] = I386_I8, [0x35] = I386_IZ,
	[0x36] = I386_PFX, [0x37] = I386_OK,
	[0x38 ... 0x3b] = I386_M, [0x3c] = I386_I8, [0x3d] = I386_IZ,
	[0x3e] = I386_PFX, [0x3f] = I386_OK,
	/* inc, dec, push, pop of a register; pusha, popa, bound, arpl */
	[0x40 ... 0x61] = I386_OK, [0x62 ... 0x63] = I386_M,
	[0x64 ... 0x67] = I386_PFX, [0x68] = I386_IZ,
	[0x69] = I386_M | I386_IZ, [0x6a] = I386_I8, [0x6b] = I386_M | I386_I8,
	[0x6c ... 0x6f] = I386_OK,
	[0x70 ... 0x7f] = I386_I8, /* jcc rel8 */
	[0x80] = I386_M | I386_I8, [0x81] = I386_M | I386_IZ,
	[0x82 ... 0x83] = I386_M | I386_I8, [0x84 ... 0x8f] = I386_M,
	[0x90 ... 0x99] = I386_OK, /* 9a: far call, refused */
	[0x9b ... 0x9f] = I386_OK,
	[0xa0 ... 0xa3] = I386_AD, [0xa4 ... 0xa7] = I386_OK,
	[0xa8] = I386_I8, [0xa9] = I386_IZ, [0xaa ... 0xaf] = I386_OK,
	[0xb0 ... 0xb7] = I386_I8, [0xb8 ... 0xbf] = I386_IZ,
	[0xc0 ... 0xc1] = I386_M | I386_I8, [0xc2] = I386_I16,
	[0xc3] = I386_OK, [0xc4 ... 0xc5] = I386_M, /* or VEX */
	[0xc6] = I386_M | I386_I8, [0xc7] = I386_M | I386_IZ,
	[0xc8] = I386_I16 | I386_I8, [0xc9] = I386_OK, [0xca] = I386_I16,
	[0xcb ... 0xcc] = I386_OK, [0xcd] = I386_I8, [0xce ... 0xcf] = I386_OK,
	[0xd0 ... 0xd3] = I386_M, [0xd4 ... 0xd5] = I386_I8,
	[0xd6 ... 0xd7] = I386_OK, [0xd8 ... 0xdf] = I386_M, /* x87 */
	[0xe0 ... 0xe7] = I386_I8, [0xe8 ... 0xe9] = I386_IZ, /* ea: far */
	[0xeb] = I386_I8, [0xec ... 0xef] = I386_OK,
	[0xf0] = I386_PFX, [0xf1] = I386_OK, [0xf2 ... 0xf3] = I386_PFX,
	[0xf4 ... 0xf5] = I386_OK, [0xf6 ... 0xf7] = I386_M | I386_GRP3,
	[0xf8 ... 0xfd] = I386_OK, [0xfe ... 0xff] = I386_M,
};

/* Whether 0f op takes a ModRM (almost all do), and an 8-bit immediate
 * after it. */
static inline int i386_0f_modrm(uint8_t op)
{
	return !((op >= 0x05 && op <= 0x0b) || op == 0x0e ||
		 (op >= 0x30 && op <= 0x37) || op == 0x77 ||
		 (op >= 0x80 && op <= 0x8f) || (op >= 0xa0 && op <= 0xa2) ||
		 (op >= 0xa8 && op <= 0xaa) || (op >= 0xc8 && op <= 0xcf));
}

static inline int i386_0f_imm8(uint8_t op)
{
	return (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac ||
	       op == 0xba || (op >= 0xc2 && op <= 0xc6);
}

/* The ModRM at c[k] with its SIB and displacement (32-bit addressing);
 * k past them, or 0 when they run past n. */
static inline size_t i386_modrm(const uint8_t *c, size_t k, size_t n,
				struct i386_insn *in)
{
	if (k >= n)
		return 0;
	uint8_t m = c[k++];
	in->has_modrm = 1;
	in->mod = m >> 6;
	in->reg = (m >> 3) & 7;
	in->rm = m & 7;
	in->index = 4;
	size_t disp = in->mod == 1 ? 1 : in->mod == 2 ? 4 : 0;
	if (in->mod != 3 && in->rm == 4) {
		if (k >= n)
			return 0;
		uint8_t s = c[k++];
		in->has_sib = 1;
		in->index = (s >> 3) & 7;
		in->rm = s & 7;
		if (in->mod == 0 && in->rm == 5)
			disp = 4; /* no base */
	} else if (in->mod == 0 && in->rm == 5) {
		disp = 4; /* an absolute address */
	}
	if (k + disp > n)
		return 0;
	in->disp_size = (uint8_t)disp;
	if (disp == 1) {
		in->disp_at = (uint8_t)k;
		in->disp = (int8_t)c[k];
	} else if (disp == 4) {
		in->disp_at = (uint8_t)k;
		memcpy(&in->disp, c + k, 4);
	}
	return k + disp;
}

/* Decodes the instruction at c (n bytes available) into *in: 0, or -1
 * when it is none that compilers emit or runs past n. */
static inline int i386_decode(const uint8_t *c, size_t n,
			      struct i386_insn *in)
{
	memset(in, 0, sizeof *in);
	if (n > 15)
		n = 15;
	size_t k = 0;
	uint8_t flags;
	for (;;) {
		if (k >= n)
			return -1;
		flags = i386_map1[c[k]];
		if (!(flags & I386_PFX))
			break;
		if (c[k] == 0x67)
			return -1; /* 16-bit addressing */
		if (c[k] == 0x66)
			in->p66 = 1;
		if (c[k] == 0xf3)
			in->rep = 1;
		k++;
	}
	uint8_t op = c[k++];
	size_t imm = 0;
	in->map = I386_MAP1;
	in->op = op;
	if (op == 0x0f) {
		if (k >= n)
			return -1;
		op = c[k++];
		in->map = I386_MAP0F;
		flags = i386_0f_modrm(op) ? I386_M : 0;
		if (op >= 0x80 && op <= 0x8f)
			flags = I386_IZ; /* jcc rel32 */
		else if (i386_0f_imm8(op))
			flags |= I386_I8;
		else if (op == 0x0f)
			return -1; /* 3DNow! */
		if (op == 0x38 || op == 0x3a) {
			if (k >= n)
				return -1;
			in->map = op == 0x38 ? I386_MAP0F38 : I386_MAP0F3A;
			op = c[k++];
			flags = I386_M;
			if (in->map == I386_MAP0F3A)
				flags |= I386_I8;
		}
		if (flags == 0)
			flags = I386_OK;
		in->op = op;
	} else if ((op == 0xc4 || op == 0xc5) && k < n && c[k] >= 0xc0) {
		/* VEX: c5 RvvvvLpp, or c4 RXBmmmmm WvvvvLpp */
		size_t v = op == 0xc5 ? 1 : 2;
		if (k + v >= n)
			return -1;
		unsigned map = op == 0xc5 ? 1 : c[k] & 0x1f;
		unsigned pp = c[k + v - 1] & 3;
		if (map < 1 || map > 3)
			return -1;
		k += v;
		in->vex = 1;
		in->p66 = pp == 1;
		in->rep = pp == 2;
		in->map = (uint8_t)map;
		in->op = op = c[k++];
		flags = I386_M;
		if (map == 1 && op == 0x77)
			flags = I386_OK; /* vzeroupper, vzeroall */
		else if (map == 3 || (map == 1 && i386_0f_imm8(op)))
			flags |= I386_I8;
	} else if (op == 0x62 && k < n && c[k] >= 0xc0) {
		return -1; /* EVEX */
	} else if (op == 0x8f && k < n && (c[k] & 0x38) != 0) {
		return -1; /* XOP */
	}
	if (flags == 0)
		return -1;
	if (flags & I386_M) {
		k = i386_modrm(c, k, n, in);
		if (k == 0)
			return -1;
	}
	if (flags & I386_AD) {
		in->disp_at = (uint8_t)k;
		in->disp_size = 4;
		if (k + 4 > n)
			return -1;
		memcpy(&in->disp, c + k, 4);
		k += 4;
	}
	if ((flags & I386_IZ) ||
	    ((flags & I386_GRP3) && in->reg < 2 && in->op == 0xf7))
		imm += in->p66 && in->map == I386_MAP1 ? 2 : 4;
	if ((flags & I386_GRP3) && in->reg < 2 && in->op == 0xf6)
		imm += 1;
	if (flags & I386_I16)
		imm += 2;
	if (flags & I386_I8)
		imm += 1;
	if (k + imm > n)
		return -1;
	in->imm_at = (uint8_t)k;
	if (imm == 1) {
		in->imm = (int8_t)c[k];
	} else if (imm == 4) {
		memcpy(&in->imm, c + k, 4);
	}
	in->len = (uint8_t)(k + imm);
	return 0;
}

#endif /* CTRACE_ARCH_I386_INSN_H */
