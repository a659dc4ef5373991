/* arch/x86/insn.h -- the length and the operands of one instruction of
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
enum { X86_MAP1, X86_MAP0F, X86_MAP0F38, X86_MAP0F3A };

struct x86_insn {
	uint8_t len;    /* bytes, prefixes included */
	uint8_t map;    /* X86_MAP* */
	uint8_t op;     /* the opcode byte in its map */
	uint8_t vex;    /* a VEX (or, long mode, EVEX) prefix */
	uint8_t rex;    /* long mode: a REX prefix (40-4f), else 0 */
	uint8_t rip;    /* long mode: the ModRM names disp32(%rip) */
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
#define X86_M 0x01    /* a ModRM */
#define X86_I8 0x02   /* an 8-bit immediate */
#define X86_IZ 0x04   /* a 32-bit immediate (16-bit after 66) */
#define X86_I16 0x08  /* a 16-bit immediate */
#define X86_AD 0x10   /* a 32-bit address (mov moffs) */
#define X86_OK 0x20   /* a valid opcode with none of those */
#define X86_PFX 0x40  /* a prefix */
#define X86_GRP3 0x80 /* f6 and f7: an immediate after /0 and /1 */

static const uint8_t x86_map1[256] = {
	/* 00-3f: the ALU operations, each as 8 opcodes: r/m,r (2),
	 * r,r/m (2), al,imm8, eax,imm32, then push/pop seg, a prefix
	 * or a BCD adjustment; 0f is the escape */
	[0x00 ... 0x03] = X86_M, [0x04] = X86_I8, [0x05] = X86_IZ,
	[0x06 ... 0x07] = X86_OK,
	[0x08 ... 0x0b] = X86_M, [0x0c] = X86_I8, [0x0d] = X86_IZ,
	[0x0e] = X86_OK,
	[0x10 ... 0x13] = X86_M, [0x14] = X86_I8, [0x15] = X86_IZ,
	[0x16 ... 0x17] = X86_OK,
	[0x18 ... 0x1b] = X86_M, [0x1c] = X86_I8, [0x1d] = X86_IZ,
	[0x1e ... 0x1f] = X86_OK,
	[0x20 ... 0x23] = X86_M, [0x24] = X86_I8, [0x25] = X86_IZ,
	[0x26] = X86_PFX, [0x27] = X86_OK,
	[0x28 ... 0x2b] = X86_M, [0x2c] = X86_I8, [0x2d] = X86_IZ,
	[0x2e] = X86_PFX, [0x2f] = X86_OK,
	[0x30 ... 0x33] = X86_M, [0x34] = X86_I8, [0x35] = X86_IZ,
	[0x36] = X86_PFX, [0x37] = X86_OK,
	[0x38 ... 0x3b] = X86_M, [0x3c] = X86_I8, [0x3d] = X86_IZ,
	[0x3e] = X86_PFX, [0x3f] = X86_OK,
	/* inc, dec, push, pop of a register; pusha, popa, bound, arpl */
	[0x40 ... 0x61] = X86_OK, [0x62 ... 0x63] = X86_M,
	[0x64 ... 0x67] = X86_PFX, [0x68] = X86_IZ,
	[0x69] = X86_M | X86_IZ, [0x6a] = X86_I8, [0x6b] = X86_M | X86_I8,
	[0x6c ... 0x6f] = X86_OK,
	[0x70 ... 0x7f] = X86_I8, /* jcc rel8 */
	[0x80] = X86_M | X86_I8, [0x81] = X86_M | X86_IZ,
	[0x82 ... 0x83] = X86_M | X86_I8, [0x84 ... 0x8f] = X86_M,
	[0x90 ... 0x99] = X86_OK, /* 9a: far call, refused */
	[0x9b ... 0x9f] = X86_OK,
	[0xa0 ... 0xa3] = X86_AD, [0xa4 ... 0xa7] = X86_OK,
	[0xa8] = X86_I8, [0xa9] = X86_IZ, [0xaa ... 0xaf] = X86_OK,
	[0xb0 ... 0xb7] = X86_I8, [0xb8 ... 0xbf] = X86_IZ,
	[0xc0 ... 0xc1] = X86_M | X86_I8, [0xc2] = X86_I16,
	[0xc3] = X86_OK, [0xc4 ... 0xc5] = X86_M, /* or VEX */
	[0xc6] = X86_M | X86_I8, [0xc7] = X86_M | X86_IZ,
	[0xc8] = X86_I16 | X86_I8, [0xc9] = X86_OK, [0xca] = X86_I16,
	[0xcb ... 0xcc] = X86_OK, [0xcd] = X86_I8, [0xce ... 0xcf] = X86_OK,
	[0xd0 ... 0xd3] = X86_M, [0xd4 ... 0xd5] = X86_I8,
	[0xd6 ... 0xd7] = X86_OK, [0xd8 ... 0xdf] = X86_M, /* x87 */
	[0xe0 ... 0xe7] = X86_I8, [0xe8 ... 0xe9] = X86_IZ, /* ea: far */
	[0xeb] = X86_I8, [0xec ... 0xef] = X86_OK,
	[0xf0] = X86_PFX, [0xf1] = X86_OK, [0xf2 ... 0xf3] = X86_PFX,
	[0xf4 ... 0xf5] = X86_OK, [0xf6 ... 0xf7] = X86_M | X86_GRP3,
	[0xf8 ... 0xfd] = X86_OK, [0xfe ... 0xff] = X86_M,
};

/* Whether 0f op takes a ModRM (almost all do), and an 8-bit immediate
 * after it. */
static inline int x86_0f_modrm(uint8_t op)
{
	return !((op >= 0x05 && op <= 0x0b) || op == 0x0e ||
		 (op >= 0x30 && op <= 0x37) || op == 0x77 ||
		 (op >= 0x80 && op <= 0x8f) || (op >= 0xa0 && op <= 0xa2) ||
		 (op >= 0xa8 && op <= 0xaa) || (op >= 0xc8 && op <= 0xcf));
}

static inline int x86_0f_imm8(uint8_t op)
{
	return (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac ||
	       op == 0xba || (op >= 0xc2 && op <= 0xc6);
}

/* The ModRM at c[k] with its SIB and displacement (32-bit addressing);
 * k past them, or 0 when they run past n. */
static inline size_t x86_modrm(const uint8_t *c, size_t k, size_t n,
				struct x86_insn *in)
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

/* One-byte opcodes long mode lacks (push and pop of segment registers,
 * the BCD adjustments, pusha, popa, 82, far call and jump, into, salc):
 * bit k of word k / 32.  40-4f are REX prefixes there, 62 EVEX, c4 and
 * c5 VEX, each taken before the table is read. */
static inline int x86_not_long(uint8_t op)
{
	static const uint32_t gone[8] = {
		0xc0c040c0, 0x80808080, 0x00000000, 0x00000003,
		0x04000004, 0x00000000, 0x00704000, 0x00000400,
	};
	return gone[op >> 5] >> (op & 31) & 1;
}

/* An EVEX instruction (long mode) at c, k past its 62: its payload,
 * opcode and ModRM read into *in; k past them, or 0 when it is none
 * known (maps 1, 2, 3, 5 and 6) or runs past n.  *imm8: whether an 8-bit
 * immediate follows. */
static inline size_t x86_evex(const uint8_t *c, size_t k, size_t n,
			      struct x86_insn *in, int *imm8)
{
	if (k + 4 > n)
		return 0;
	unsigned map = c[k] & 7, pp = c[k + 2] & 3;
	if (map == 0 || map == 4 || map == 7)
		return 0;
	k += 3;
	in->vex = 1;
	in->p66 = pp == 1;
	in->rep = pp == 2;
	in->map = map <= 3 ? (uint8_t)map : X86_MAP1;
	in->op = c[k++];
	*imm8 = map == 3 || (map == 1 && x86_0f_imm8(in->op));
	return x86_modrm(c, k, n, in);
}

/* Decodes the instruction at c (n bytes available) into *in, as 64-bit
 * code when long_mode, else as 32-bit code: 0, or -1 when it is none that
 * compilers emit or runs past n. */
static inline int x86_decode(const uint8_t *c, size_t n, struct x86_insn *in,
			     int long_mode)
{
	memset(in, 0, sizeof *in);
	if (n > 15)
		n = 15;
	size_t k = 0;
	uint8_t flags;
	int a32 = 0, repne = 0;
	for (;;) {
		if (k >= n)
			return -1;
		if (long_mode && (c[k] & 0xf0) == 0x40) {
			/* REX: the last prefix, right before the opcode */
			in->rex = c[k++];
			if (k >= n || (x86_map1[c[k]] & X86_PFX) ||
			    (c[k] & 0xf0) == 0x40)
				return -1;
			flags = x86_map1[c[k]];
			break;
		}
		flags = x86_map1[c[k]];
		if (!(flags & X86_PFX))
			break;
		if (c[k] == 0x67 && !long_mode)
			return -1; /* 16-bit addressing */
		if (c[k] == 0x67)
			a32 = 1; /* 32-bit addressing: a 4-byte moffs */
		if (c[k] == 0x66)
			in->p66 = 1;
		if (c[k] == 0xf3)
			in->rep = 1;
		if (c[k] == 0xf2)
			repne = 1;
		k++;
	}
	uint8_t op = c[k++];
	if (long_mode && x86_not_long(op))
		return -1;
	if (long_mode && op == 0x62) {
		int imm8;
		k = x86_evex(c, k, n, in, &imm8);
		if (k == 0 || k + (size_t)imm8 > n)
			return -1;
		in->rip = in->mod == 0 && in->rm == 5 && !in->has_sib;
		in->imm_at = (uint8_t)k;
		if (imm8)
			in->imm = (int8_t)c[k];
		in->len = (uint8_t)(k + (size_t)imm8);
		return 0;
	}
	size_t imm = 0;
	in->map = X86_MAP1;
	in->op = op;
	if (op == 0x0f) {
		if (k >= n)
			return -1;
		op = c[k++];
		in->map = X86_MAP0F;
		flags = x86_0f_modrm(op) ? X86_M : 0;
		if (op >= 0x80 && op <= 0x8f)
			flags = X86_IZ; /* jcc rel32 */
		else if (x86_0f_imm8(op))
			flags |= X86_I8;
		else if (op == 0x0f)
			return -1; /* 3DNow! */
		else if (op == 0x78 && (in->p66 || repne))
			return -1; /* SSE4a extrq, insertq: two immediates */
		if (op == 0x38 || op == 0x3a) {
			if (k >= n)
				return -1;
			in->map = op == 0x38 ? X86_MAP0F38 : X86_MAP0F3A;
			op = c[k++];
			flags = X86_M;
			if (in->map == X86_MAP0F3A)
				flags |= X86_I8;
		}
		if (flags == 0)
			flags = X86_OK;
		in->op = op;
	} else if ((op == 0xc4 || op == 0xc5) && k < n &&
		   (long_mode || c[k] >= 0xc0)) {
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
		flags = X86_M;
		if (map == 1 && op == 0x77)
			flags = X86_OK; /* vzeroupper, vzeroall */
		else if (map == 3 || (map == 1 && x86_0f_imm8(op)))
			flags |= X86_I8;
	} else if (op == 0x62 && k < n && c[k] >= 0xc0) {
		return -1; /* EVEX in 32-bit code */
	} else if (op == 0x8f && k < n && (c[k] & 0x38) != 0) {
		return -1; /* XOP */
	}
	if (flags == 0)
		return -1;
	if (flags & X86_M) {
		k = x86_modrm(c, k, n, in);
		if (k == 0)
			return -1;
	}
	if (long_mode)
		in->rip = in->has_modrm && in->mod == 0 && in->rm == 5 &&
			  !in->has_sib;
	if (flags & X86_AD) {
		/* mov moffs: a 64-bit address in long mode */
		size_t ad = long_mode && !a32 ? 8 : 4;
		in->disp_at = (uint8_t)k;
		in->disp_size = (uint8_t)ad;
		if (k + ad > n)
			return -1;
		memcpy(&in->disp, c + k, 4);
		k += ad;
	}
	int wide = (in->rex & 8) != 0; /* REX.W: 64-bit operands */
	if (wide && in->map == X86_MAP1 && op >= 0xb8 && op <= 0xbf)
		imm += 4; /* movabs: a 64-bit immediate */
	if ((flags & X86_IZ) ||
	    ((flags & X86_GRP3) && in->reg < 2 && in->op == 0xf7))
		imm += in->p66 && !wide && in->map == X86_MAP1 ? 2 : 4;
	if ((flags & X86_GRP3) && in->reg < 2 && in->op == 0xf6)
		imm += 1;
	if (flags & X86_I16)
		imm += 2;
	if (flags & X86_I8)
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

#endif /* CTRACE_ARCH_X86_INSN_H */
