/* epilogue.c -- what the code after the exit hook's call does to the
 * return registers (x86-64), for the capture plan's `exit` lines.
 *
 * The exit hook is called before the function returns, so the value is
 * kept across the call in callee-saved registers or stack slots, and the
 * code between the call and the `ret` moves it into rax (rdx, xmm0,
 * xmm1), often finishing its computation on the way (gcc -O2 moves a
 * comparison's `setl`/`setg`/`sub` there, or a conversion to double).
 * When that code is straight-line and made only of the instructions
 * below, and reads only the callee-saved registers, the stack pointer
 * and the function's own frame, it is written into the plan as a list of
 * operations; the recorder runs them at the exit hook over the registers
 * its stub saved (lib/retread.c) and writes the return value then,
 * instead of replacing the function's return address with its
 * trampoline, which costs a mispredicted return and a list of patched
 * frames at every call.
 *
 * Nothing is guessed.  Each register's bytes are followed as known (a
 * callee-saved register, the stack pointer, a load from the frame, a
 * constant, what is computed from known bytes) or not (what the hook
 * left in the others); a return register that is not known at the `ret`
 * and the line is not written.  A store (the value the recorder reads at
 * the hook could change before the `ret`), a push, a call, a conditional
 * jump, an instruction not listed here, x87 code, or a load through
 * anything but the stack pointer (or rbp where it is the frame pointer)
 * or of a constant outside the program's read-only data: and the
 * function keeps the trampoline.  Floating-point arithmetic (addsd...,
 * conversions) is run by the recorder with the instruction itself, in
 * the program's rounding mode.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <string.h>

#include "ctrace_format.h"
#include "ctrace_plan.h"
#include "values/dwinfo.h"

#define HW_RAX 0
#define HW_RDX 2
#define HW_RSP 4
#define HW_RBP 5
#define XMM(n) (16 + (n))

struct state {
	uint8_t known[32];   /* bytes known, bit per byte: gpr 0-15, then
			      * the low 8 bytes of xmm0-15 */
	bool flags;          /* the flags are of known operands */
	bool rbp_frame;      /* rbp is the frame pointer, unchanged */
	bool rsp_lost;       /* rsp written but by a pop, leave or add: no
			      * load through it is the frame's */
	struct epilogue *out;
	struct dw_module *m; /* the read-only data of constants, or NULL */
	uint64_t base;       /* code[0]'s link-time address */
};

static bool emit(struct state *st, int op, int dsz, int ssz, int d, int s,
		 int base, int64_t arg)
{
	struct epilogue *e = st->out;
	if (e->n == CTRACE_PLAN_MAX_OPS)
		return false;
	e->ops[e->n++] = (struct epi_op){op, dsz, ssz, d, s, base, arg};
	return true;
}

static uint8_t bytes_mask(int n)
{
	return n >= 8 ? 0xff : (uint8_t)((1u << n) - 1);
}

/* The low n bytes of register r are known. */
static bool has(const struct state *st, int r, int n)
{
	uint8_t m = bytes_mask(n);
	return (st->known[r] & m) == m;
}

/* Register d written at size dsz (x86: 8 all of it, 4 all of it with the
 * upper half zero, 2 and 1 the low bytes only), known or not. */
static void wrote(struct state *st, int d, int dsz, bool ok)
{
	if (d == HW_RBP)
		st->rbp_frame = false;
	if (d == HW_RSP)
		st->rsp_lost = true;
	if (dsz >= 4)
		st->known[d] = ok ? 0xff : 0;
	else if (ok)
		st->known[d] |= bytes_mask(dsz);
	else
		st->known[d] &= (uint8_t)~bytes_mask(dsz);
}

/* The low 8 bytes of xmm register x written: all of them (bytes 8), or
 * the low 4 with the next 4 kept (a float's move or conversion). */
static void xmm_wrote(struct state *st, int x, int bytes, bool ok)
{
	uint8_t *k = &st->known[XMM(x)];
	if (bytes == 8)
		*k = ok ? 0xff : 0;
	else
		*k = ok ? *k | 0x0f : *k & 0xf0;
}

/* An operand: a register (hw number) or memory base + disp. */
struct operand {
	bool is_reg;
	int hw;
	int64_t disp;
	size_t len; /* of the ModRM operand */
};

static bool modrm(const uint8_t *p, const uint8_t *end, unsigned rex,
		  struct operand *o)
{
	size_t n = i386dec_modrm_len(p, end);
	if (n == 0)
		return false;
	o->len = n;
	int mod = p[0] >> 6, rm = p[0] & 7;
	o->is_reg = mod == 3;
	o->disp = 0;
	if (mod == 3) {
		o->hw = rm | ((rex & 1) ? 8 : 0);
		return true;
	}
	const uint8_t *d = p + 1;
	if (rm == 4) { /* SIB: a base alone */
		int index = ((d[0] >> 3) & 7) | ((rex & 2) ? 8 : 0);
		if (index != 4 || ((d[0] & 7) == 5 && mod == 0))
			return false;
		rm = d[0] & 7;
		d++;
	} else if (rm == 5 && mod == 0) {
		return false; /* rip-relative */
	}
	o->hw = rm | ((rex & 1) ? 8 : 0);
	if (mod == 1) {
		o->disp = (int8_t)d[0];
	} else if (mod == 2) {
		int32_t d32;
		memcpy(&d32, d, 4);
		o->disp = d32;
	}
	return true;
}

/* lea's operand: base (-1: none), index (-1: none) times scale, plus
 * disp; false for rip-relative, or past end. */
static bool lea_operand(const uint8_t *p, const uint8_t *end, unsigned rex,
			int *base, int *index, int *scale, int64_t *disp,
			size_t *len)
{
	size_t n = i386dec_modrm_len(p, end);
	if (n == 0 || (p[0] >> 6) == 3)
		return false;
	int mod = p[0] >> 6, rm = p[0] & 7;
	const uint8_t *d = p + 1;
	*index = -1;
	*scale = 1;
	if (rm == 4) {
		int ix = ((d[0] >> 3) & 7) | ((rex & 2) ? 8 : 0);
		*index = ix == 4 ? -1 : ix;
		*scale = 1 << (d[0] >> 6);
		*base = (d[0] & 7) == 5 && mod == 0
				? -1
				: (d[0] & 7) | ((rex & 1) ? 8 : 0);
		d++;
	} else if (rm == 5 && mod == 0) {
		return false; /* rip-relative: an address in the module */
	} else {
		*base = rm | ((rex & 1) ? 8 : 0);
	}
	*disp = 0;
	if (mod == 1) {
		*disp = (int8_t)d[0];
	} else if (mod == 2 || (mod == 0 && *base < 0)) {
		int32_t d32;
		memcpy(&d32, d, 4);
		*disp = d32;
	}
	*len = n;
	return true;
}

/* The immediate at p: a signed byte (n 1) or a signed 32-bit word. */
static int64_t immediate(const uint8_t *p, size_t n)
{
	if (n == 1)
		return (int8_t)p[0];
	int32_t i32;
	memcpy(&i32, p, 4);
	return i32;
}

/* A memory operand the recorder may read: the function's own frame,
 * through the stack pointer (never below it) or the frame pointer. */
static bool frame_load(const struct state *st, const struct operand *o)
{
	if (o->is_reg)
		return false;
	if (o->disp < -CTRACE_PLAN_MAX_OFFSET ||
	    o->disp > CTRACE_PLAN_MAX_OFFSET)
		return false;
	return (o->hw == HW_RSP && o->disp >= 0 && !st->rsp_lost) ||
	       (o->hw == HW_RBP && st->rbp_frame);
}

/* A source operand of ssz bytes (reg: register number 0-31 as the
 * instruction names it): emits `op` with it, d written at dsz; true with
 * whether the source is known in *ok. */
static bool with_source(struct state *st, const struct operand *o, int reg,
			int op, int dsz, int ssz, int d, bool *ok)
{
	if (o->is_reg) {
		*ok = has(st, reg, ssz);
		return emit(st, op, dsz, ssz, d, reg, 0, 0);
	}
	if (!frame_load(st, o))
		return false;
	*ok = true;
	return emit(st, op, dsz, ssz, d, CTRACE_EOP_MEM, o->hw, o->disp);
}

/* 8-bit registers without REX are al..bh: ah..bh are not followed. */
static bool byte_reg_ok(int hw, unsigned rex, bool is_reg)
{
	return !is_reg || rex != 0 || hw < 4;
}

#define MAX_INSNS 64
#define MAX_JUMPS 8

/* Runs the code from code[at] to its `ret`. */
static bool run(const uint8_t *code, size_t size, size_t at,
		struct state *st)
{
	int jumps = 0;
	for (int count = 0; count < MAX_INSNS; count++) {
		if (at >= size)
			return false;
		const uint8_t *p = code + at, *end = code + size;
		bool o16 = false, f2 = false, f3 = false;
		unsigned rex = 0;
		for (; p < end; p++) {
			if (*p == 0x66)
				o16 = true;
			else if (*p == 0xf2)
				f2 = true;
			else if (*p == 0xf3)
				f3 = true;
			else if (*p != 0x2e && *p != 0x3e)
				break; /* 2e, 3e: long nops' prefixes */
		}
		if (p < end && (*p & 0xf0) == 0x40)
			rex = *p++;
		if (p >= end)
			return false;
		uint8_t op = *p++;
		int w = (rex & 8) ? 8 : o16 ? 2 : 4;
		int regf = p < end ? (((p[0] >> 3) & 7) | ((rex & 4) ? 8 : 0))
				   : 0;
		int digit = p < end ? (p[0] >> 3) & 7 : 0;
		struct operand o;
		bool ok;

		if (op == 0xc3 && !o16) {
			return true; /* ret, rep ret */
		} else if (op == 0x90 && !rex && !f3) {
			; /* nop, xchg %ax,%ax */
		} else if (op >= 0x58 && op <= 0x5f && !o16) {
			int d = (op & 7) | ((rex & 1) ? 8 : 0);
			if (d == HW_RSP || !emit(st, CTRACE_EOP_POP, 8, 8, d, 0,
						 0, 0))
				return false;
			wrote(st, d, 8, true);
		} else if (op == 0xc9 && !rex && !o16) {
			if (!st->rbp_frame ||
			    !emit(st, CTRACE_EOP_LEAVE, 8, 8, HW_RBP, 0, 0, 0))
				return false;
			wrote(st, HW_RBP, 8, true);
		} else if ((op == 0xeb || op == 0xe9) && !o16 && !rex) {
			int64_t rel;
			if (op == 0xeb) {
				if (p >= end)
					return false;
				rel = (int8_t)p[0];
				p += 1;
			} else {
				int32_t r32;
				if (p + 4 > end)
					return false;
				memcpy(&r32, p, 4);
				rel = r32;
				p += 4;
			}
			int64_t to = (int64_t)(p - code) + rel;
			if (++jumps > MAX_JUMPS || to < 0 || (size_t)to >= size)
				return false;
			at = (size_t)to;
			continue;
		} else if (op == 0x0f) {
			if (p >= end)
				return false;
			uint8_t op2 = *p++;
			regf = p < end ? (((p[0] >> 3) & 7) |
					  ((rex & 4) ? 8 : 0))
				       : 0;
			size_t n = 0;
			if (op2 == 0x1f && !f2 && !f3) { /* nopl, nopw */
				if (!(n = i386dec_modrm_len(p, end)))
					return false;
			} else if (op2 == 0x1e && f3 && p < end &&
				   (*p == 0xfa || *p == 0xfb)) {
				n = 1; /* endbr64, endbr32 */
			} else if ((op2 == 0xb6 || op2 == 0xb7 || op2 == 0xbe ||
				    op2 == 0xbf) && !f2 && !f3 && !o16) {
				int ssz = (op2 & 1) ? 2 : 1;
				int eop = op2 >= 0xbe ? CTRACE_EOP_SX
						      : CTRACE_EOP_ZX;
				if (!modrm(p, end, rex, &o) ||
				    (ssz == 1 && !byte_reg_ok(o.hw, rex,
							      o.is_reg)) ||
				    !with_source(st, &o, o.hw, eop, w, ssz,
						 regf, &ok))
					return false;
				wrote(st, regf, w, ok);
				n = o.len;
			} else if (op2 >= 0x90 && op2 <= 0x9f && !f2 && !f3 &&
				   !o16) { /* setcc */
				if (!modrm(p, end, rex, &o) || !o.is_reg ||
				    !byte_reg_ok(o.hw, rex, true) ||
				    !emit(st, CTRACE_EOP_SET, 1, 1, o.hw, 0, 0,
					  op2 & 0x0f))
					return false;
				wrote(st, o.hw, 1, st->flags);
				n = o.len;
			} else if (op2 >= 0x40 && op2 <= 0x4f && !f2 && !f3 &&
				   !o16) { /* cmovcc, between registers */
				if (!modrm(p, end, rex, &o) || !o.is_reg ||
				    !emit(st, CTRACE_EOP_CMOV, w, w, regf, o.hw,
					  0, op2 & 0x0f))
					return false;
				/* 32 bits: written (zero-extended) either
				 * way */
				wrote(st, regf, w,
				      st->flags && has(st, regf, w) &&
					      has(st, o.hw, w));
				n = o.len;
			} else if (op2 == 0xaf && !f2 && !f3 && !o16) {
				if (!modrm(p, end, rex, &o) ||
				    !with_source(st, &o, o.hw, CTRACE_EOP_IMUL,
						 w, w, regf, &ok))
					return false;
				wrote(st, regf, w, ok && has(st, regf, w));
				st->flags = false;
				n = o.len;
			} else if (op2 == 0x10 && (f2 || f3) && !o16) {
				/* movsd, movss */
				int ssz = f2 ? 8 : 4;
				if (!modrm(p, end, rex, &o))
					return false;
				/* from memory the rest is zeroed; between
				 * registers only the low bytes move */
				int dsz = o.is_reg ? ssz : 8;
				if (!with_source(st, &o, XMM(o.hw),
						 CTRACE_EOP_XMOV, dsz, ssz,
						 XMM(regf), &ok))
					return false;
				xmm_wrote(st, regf, dsz, ok);
				n = o.len;
			} else if ((op2 == 0x7e && f3 && !o16) ||
				   (op2 == 0x6e && o16 && !f2 && !f3)) {
				/* movq xmm/m64, xmm; movd, movq r/m, xmm */
				int ssz = op2 == 0x7e ? 8 : (rex & 8) ? 8 : 4;
				if (!modrm(p, end, rex, &o) ||
				    !with_source(st, &o,
						 op2 == 0x7e ? XMM(o.hw) : o.hw,
						 CTRACE_EOP_XMOV, 8, ssz,
						 XMM(regf), &ok))
					return false;
				xmm_wrote(st, regf, 8, ok);
				n = o.len;
			} else if ((op2 == 0x7e && o16 && !f2 && !f3) ||
				   (op2 == 0xd6 && o16 && !f2 && !f3)) {
				/* movd, movq xmm, r; movq xmm, xmm */
				int ssz = op2 == 0xd6 ? 8 : (rex & 8) ? 8 : 4;
				if (!modrm(p, end, rex, &o) || !o.is_reg)
					return false;
				int d = op2 == 0xd6 ? XMM(o.hw) : o.hw;
				ok = has(st, XMM(regf), ssz);
				if (!emit(st, op2 == 0xd6 ? CTRACE_EOP_XMOV
							  : CTRACE_EOP_MOV,
					  op2 == 0xd6 ? 8 : ssz, ssz, d,
					  XMM(regf), 0, 0))
					return false;
				if (op2 == 0xd6)
					st->known[d] = ok ? 0xff : 0;
				else
					wrote(st, d, ssz, ok);
				n = o.len;
			} else if (op2 == 0x28 && !f2 && !f3) {
				/* movaps, movapd xmm, xmm */
				if (!modrm(p, end, rex, &o) || !o.is_reg ||
				    !emit(st, CTRACE_EOP_XMOV, 8, 8, XMM(regf),
					  XMM(o.hw), 0, 0))
					return false;
				st->known[XMM(regf)] = st->known[XMM(o.hw)];
				n = o.len;
			} else if ((op2 == 0x57 || (op2 == 0xef && o16)) &&
				   !f2 && !f3) {
				/* xorps, xorpd, pxor of a register with
				 * itself: zero */
				if (!modrm(p, end, rex, &o) || !o.is_reg ||
				    o.hw != regf ||
				    !emit(st, CTRACE_EOP_XZERO, 8, 8, XMM(regf),
					  0, 0, 0))
					return false;
				st->known[XMM(regf)] = 0xff;
				n = o.len;
			} else if ((op2 == 0x58 || op2 == 0x59 || op2 == 0x5c ||
			    op2 == 0x5e || op2 == 0x5a) &&
			   (f2 || f3) && !o16) {
				/* addsd, mulsd, subsd, divsd (ss), cvtss2sd,
				 * cvtsd2ss: run with the program's rounding,
				 * its exceptions masked (lib/retread.c) */
				int sz = f2 ? 8 : 4;
				int eop = op2 == 0x58   ? CTRACE_EOP_FADD
					  : op2 == 0x59 ? CTRACE_EOP_FMUL
					  : op2 == 0x5c ? CTRACE_EOP_FSUB
					  : op2 == 0x5e ? CTRACE_EOP_FDIV
							: CTRACE_EOP_FCVT;
				/* the result's low bytes: 8 for a double, 4
				 * for a float (the rest kept) */
				int rsz = eop == CTRACE_EOP_FCVT ? 12 - sz : sz;
				bool merge = rsz == 4;
				bool in_ok;
				if (p < end && (p[0] & 0xc7) == 0x05) {
					/* a constant: rip-relative, in the
					 * program's read-only data */
					int32_t d32;
					uint8_t k[8] = {0};
					if (st->m == NULL || p + 5 > end)
						return false;
					memcpy(&d32, p + 1, 4);
					uint64_t addr = st->base +
							(uint64_t)(p + 5 - code) +
							(uint64_t)(int64_t)d32;
					if (!dw_read_rodata(st->m, addr, k,
							    (size_t)sz))
						return false;
					uint64_t kv;
					memcpy(&kv, k, 8);
					if (!emit(st, eop, rsz, sz, XMM(regf),
						  CTRACE_EOP_IMM, 0, (int64_t)kv))
						return false;
					in_ok = true;
					n = 5;
				} else {
					if (!modrm(p, end, rex, &o) ||
					    !with_source(st, &o, XMM(o.hw), eop,
							 rsz, sz, XMM(regf),
							 &in_ok))
						return false;
					n = o.len;
				}
				bool ok_d = eop == CTRACE_EOP_FCVT ||
					    has(st, XMM(regf), sz);
				xmm_wrote(st, regf, merge ? 4 : 8, in_ok && ok_d);
		} else if (op2 == 0x2a && (f2 || f3) && !o16) {
				/* cvtsi2sd, cvtsi2ss: exact or rounded as
				 * the program's rounding mode says, never a
				 * trap but the inexact flag, set anyway */
				int ssz = (rex & 8) ? 8 : 4;
				if (!modrm(p, end, rex, &o) ||
				    !with_source(st, &o, o.hw,
						 f2 ? CTRACE_EOP_CVTSD
						    : CTRACE_EOP_CVTSS,
						 f2 ? 8 : 4, ssz, XMM(regf),
						 &ok))
					return false;
				xmm_wrote(st, regf, f2 ? 8 : 4, ok);
				n = o.len;
			} else {
				return false;
			}
			p += n;
		} else if (f2 || f3) {
			return false;
		} else if (op == 0x88 || op == 0x89 || op == 0x8a || op == 0x8b) {
			int sz = (op & 1) ? w : 1;
			if (!modrm(p, end, rex, &o) ||
			    (sz == 1 && (!byte_reg_ok(o.hw, rex, o.is_reg) ||
					 !byte_reg_ok(regf, rex, true))))
				return false;
			if (op == 0x88 || op == 0x89) {
				if (!o.is_reg || o.hw == HW_RSP)
					return false; /* a store */
				ok = has(st, regf, sz);
				if (!emit(st, CTRACE_EOP_MOV, sz, sz, o.hw, regf,
					  0, 0))
					return false;
				wrote(st, o.hw, sz, ok);
			} else {
				if (regf == HW_RSP ||
				    !with_source(st, &o, o.hw, CTRACE_EOP_MOV,
						 sz, sz, regf, &ok))
					return false;
				wrote(st, regf, sz, ok);
			}
			p += o.len;
		} else if ((op == 0xc6 || op == 0xc7) && digit == 0) {
			int sz = op == 0xc6 ? 1 : w;
			int ilen = op == 0xc6 ? 1 : sz == 2 ? 2 : 4;
			if (!modrm(p, end, rex, &o) || !o.is_reg ||
			    o.hw == HW_RSP || p + o.len + ilen > end ||
			    (sz == 1 && !byte_reg_ok(o.hw, rex, true)))
				return false;
			int64_t imm = ilen == 1   ? (int8_t)p[o.len]
				      : ilen == 2 ? (int16_t)(p[o.len] |
							      p[o.len + 1] << 8)
						  : 0;
			if (ilen == 4) {
				int32_t i32;
				memcpy(&i32, p + o.len, 4);
				imm = i32;
			}
			if (!emit(st, CTRACE_EOP_MOV, sz, sz, o.hw,
				  CTRACE_EOP_IMM, 0, imm))
				return false;
			wrote(st, o.hw, sz, true);
			p += o.len + (size_t)ilen;
		} else if (op >= 0xb0 && op <= 0xbf) { /* mov $imm, reg */
			int d = (op & 7) | ((rex & 1) ? 8 : 0);
			int sz = op < 0xb8 ? 1 : w;
			uint64_t imm = 0;
			if (d == HW_RSP || p + sz > end ||
			    (sz == 1 && !byte_reg_ok(d, rex, true)))
				return false;
			memcpy(&imm, p, (size_t)sz);
			if (!emit(st, CTRACE_EOP_MOV, sz, sz, d, CTRACE_EOP_IMM,
				  0, (int64_t)imm))
				return false;
			wrote(st, d, sz, true);
			p += sz;
		} else if (op == 0x63 && (rex & 8)) { /* movslq */
			if (!modrm(p, end, rex, &o) ||
			    !with_source(st, &o, o.hw, CTRACE_EOP_SX, 8, 4,
					 regf, &ok))
				return false;
			wrote(st, regf, 8, ok);
			p += o.len;
		} else if (op == 0x98 && !o16) { /* cltq, cwtl */
			int dsz = (rex & 8) ? 8 : 4;
			ok = has(st, HW_RAX, dsz / 2);
			if (!emit(st, CTRACE_EOP_SX, dsz, dsz / 2, HW_RAX, HW_RAX,
				  0, 0))
				return false;
			wrote(st, HW_RAX, dsz, ok);
		} else if (op == 0x8d && w != 2) {
			/* lea base + index * scale + disp (not 16-bit: a
			 * partial write) */
			int base, index, scale;
			size_t n = 0;
			int64_t disp;
			if (!lea_operand(p, end, rex, &base, &index, &scale,
					 &disp, &n) ||
			    regf == HW_RSP ||
			    !emit(st, CTRACE_EOP_LEA, w, scale, regf,
				  index < 0 ? CTRACE_EOP_IMM : index, base,
				  disp))
				return false;
			wrote(st, regf, w,
			      (base < 0 || has(st, base, 8)) &&
				      (index < 0 || has(st, index, 8)));
			p += n;
		} else if (op == 0x01 || op == 0x03 || op == 0x29 || op == 0x2b ||
			   op == 0x21 || op == 0x23 || op == 0x09 || op == 0x0b ||
			   op == 0x31 || op == 0x33) {
			static const int alu[8] = {
				CTRACE_EOP_ADD, CTRACE_EOP_OR, 0, 0,
				CTRACE_EOP_AND, CTRACE_EOP_SUB, CTRACE_EOP_XOR,
				0};
			int eop = alu[op >> 3];
			if (!modrm(p, end, rex, &o) || w == 2)
				return false;
			int d = (op & 2) ? regf : o.hw, s = (op & 2) ? o.hw : regf;
			if (!(op & 2) && !o.is_reg)
				return false; /* a store */
			if (d == HW_RSP)
				return false;
			/* xor or sub of a register with itself: zero */
			bool zero = o.is_reg && d == s &&
				    (eop == CTRACE_EOP_XOR ||
				     eop == CTRACE_EOP_SUB);
			if (o.is_reg) {
				ok = has(st, s, w);
				if (!emit(st, eop, w, w, d, s, 0, 0))
					return false;
			} else if (!with_source(st, &o, o.hw, eop, w, w, d,
						&ok)) {
				return false;
			}
			wrote(st, d, w, zero || (ok && has(st, d, w)));
			st->flags = false;
			p += o.len;
		} else if ((op == 0x83 || op == 0x81) && p < end &&
			   (p[0] >> 6) == 3 && digit != 2 && digit != 3) {
			/* add, or, and, sub, xor, cmp $imm, reg */
			static const int alu[8] = {
				CTRACE_EOP_ADD, CTRACE_EOP_OR, 0, 0,
				CTRACE_EOP_AND, CTRACE_EOP_SUB, CTRACE_EOP_XOR,
				CTRACE_EOP_CMP};
			int d = (p[0] & 7) | ((rex & 1) ? 8 : 0);
			size_t ilen = op == 0x83 ? 1 : 4;
			if (w == 2 || p + 1 + ilen > end)
				return false;
			int64_t imm = immediate(p + 1, ilen);
			/* The stack pointer only goes up (add): loads
			 * through it stay in the frame. */
			if (d == HW_RSP &&
			    !(w == 8 && ((digit == 0 && imm >= 0) ||
					 (digit == 5 && imm <= 0))))
				return false;
			if (!emit(st, alu[digit], w, w, d, CTRACE_EOP_IMM, 0,
				  imm))
				return false;
			if (digit == 7) {
				st->flags = has(st, d, w);
			} else {
				if (d != HW_RSP) /* rsp: moved up, known */
					wrote(st, d, w, has(st, d, w));
				st->flags = false;
			}
			p += 1 + ilen;
		} else if (((op & 0xc7) == 0x04 || (op & 0xc7) == 0x05 ||
			    op == 0xa8 || op == 0xa9) &&
			   !(o16 && (op & 1))) {
			/* add, or, and, sub, xor, cmp $imm, al or eax (rax);
			 * test $imm, al or eax */
			static const int alu[8] = {
				CTRACE_EOP_ADD, CTRACE_EOP_OR, 0, 0,
				CTRACE_EOP_AND, CTRACE_EOP_SUB, CTRACE_EOP_XOR,
				CTRACE_EOP_CMP};
			int sz = (op & 1) ? w : 1;
			int eop = op >= 0xa8 ? CTRACE_EOP_TEST : alu[op >> 3];
			size_t ilen = sz == 1 ? 1 : 4;
			if (eop == 0 || p + ilen > end)
				return false;
			int64_t imm = immediate(p, ilen);
			if (!emit(st, eop, sz, sz, HW_RAX, CTRACE_EOP_IMM, 0,
				  imm))
				return false;
			if (eop == CTRACE_EOP_CMP || eop == CTRACE_EOP_TEST) {
				st->flags = has(st, HW_RAX, sz);
			} else {
				wrote(st, HW_RAX, sz, has(st, HW_RAX, sz));
				st->flags = false;
			}
			p += ilen;
		} else if (op == 0x39 || op == 0x3b || op == 0x85 ||
			   op == 0x38 || op == 0x3a || op == 0x84) {
			/* cmp, test */
			int sz = (op & 1) ? w : 1;
			int eop = (op & 0xfe) == 0x84 ? CTRACE_EOP_TEST
						      : CTRACE_EOP_CMP;
			if (!modrm(p, end, rex, &o) || w == 2 ||
			    (sz == 1 && (!byte_reg_ok(o.hw, rex, o.is_reg) ||
					 !byte_reg_ok(regf, rex, true))))
				return false;
			/* cmp r/m, reg (39, 38) compares r/m with reg: the
			 * first operand is the register operand of 3b. */
			bool rm_first = op == 0x39 || op == 0x38 ||
					eop == CTRACE_EOP_TEST;
			if (o.is_reg) {
				int a = rm_first ? o.hw : regf;
				int b = rm_first ? regf : o.hw;
				st->flags = has(st, a, sz) && has(st, b, sz);
				if (!emit(st, eop, sz, sz, a, b, 0, 0))
					return false;
			} else {
				/* a memory operand second: 3b, 3a, test */
				if (rm_first && eop == CTRACE_EOP_CMP)
					return false;
				if (!with_source(st, &o, o.hw, eop, sz, sz,
						 regf, &ok))
					return false;
				st->flags = ok && has(st, regf, sz);
			}
			p += o.len;
		} else if ((op == 0x69 || op == 0x6b) && p < end &&
			   (p[0] >> 6) == 3 && w != 2) {
			/* imul $imm, reg, reg */
			int s = (p[0] & 7) | ((rex & 1) ? 8 : 0);
			size_t ilen = op == 0x6b ? 1 : 4;
			if (p + 1 + ilen > end || regf == HW_RSP)
				return false;
			int64_t imm = immediate(p + 1, ilen);
			if (!emit(st, CTRACE_EOP_IMULI, w, w, regf, s, 0, imm))
				return false;
			wrote(st, regf, w, has(st, s, w));
			st->flags = false;
			p += 1 + ilen;
		} else if (op == 0xf7 && p < end && (p[0] >> 6) == 3 &&
			   (digit == 2 || digit == 3) && w != 2) {
			/* not, neg */
			int d = (p[0] & 7) | ((rex & 1) ? 8 : 0);
			if (d == HW_RSP ||
			    !emit(st, digit == 2 ? CTRACE_EOP_NOT : CTRACE_EOP_NEG,
				  w, w, d, 0, 0, 0))
				return false;
			wrote(st, d, w, has(st, d, w));
			st->flags = false;
			p += 1;
		} else if ((op == 0xc1 || op == 0xd1) && p < end &&
			   (p[0] >> 6) == 3 &&
			   (digit == 4 || digit == 5 || digit == 7) && w != 2) {
			/* shl, shr, sar by a constant */
			int d = (p[0] & 7) | ((rex & 1) ? 8 : 0);
			int64_t count = 1;
			if (op == 0xc1) {
				if (p + 2 > end)
					return false;
				count = p[1] & (w == 8 ? 63 : 31);
				if (count == 0)
					return false; /* flags untouched */
			}
			int eop = digit == 4   ? CTRACE_EOP_SHL
				  : digit == 5 ? CTRACE_EOP_SHR
					       : CTRACE_EOP_SAR;
			if (d == HW_RSP || !emit(st, eop, w, w, d, 0, 0, count))
				return false;
			wrote(st, d, w, has(st, d, w));
			st->flags = false;
			p += op == 0xc1 ? 2 : 1;
		} else {
			return false;
		}
		at = (size_t)(p - code);
	}
	return false;
}

bool epilogue_decode(const uint8_t *code, size_t size, size_t at,
		     bool fp_frame, struct dw_module *m, uint64_t base,
		     struct epilogue *e)
{
	struct state st;
	memset(&st, 0, sizeof st);
	memset(e, 0, sizeof *e);
	st.out = e;
	st.m = m;
	st.base = base;
	st.rbp_frame = fp_frame;
	/* The callee-saved registers and the stack pointer hold their
	 * values at the hook's call; the others are the hook's. */
	static const int kept[] = {3, 4, 5, 12, 13, 14, 15};
	for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
		st.known[kept[i]] = 0xff;
	if (!run(code, size, at, &st) || st.rsp_lost)
		return false;
	e->r0 = st.known[HW_RAX];
	e->r1 = st.known[HW_RDX];
	e->x0 = st.known[XMM(0)];
	e->x1 = st.known[XMM(1)];
	return true;
}

#define FLAGS (1ull << 32)
#define BIT(r) (1ull << (r))

/* What an operation reads (*uses) and writes whole (*defs). */
static void op_effects(const struct epi_op *o, uint64_t *uses, uint64_t *defs)
{
	uint64_t src = o->s >= 0		     ? BIT(o->s)
		       : o->s == CTRACE_EOP_MEM ? BIT(o->base)
						: 0;
	bool merge = o->d < 16 ? o->dsz < 4 : o->dsz < 8;
	*defs = BIT(o->d);
	switch (o->op) {
	case CTRACE_EOP_LEA:
		*uses = (o->base >= 0 ? BIT(o->base) : 0) | src |
			(merge ? BIT(o->d) : 0);
		break;
	case CTRACE_EOP_ADD: case CTRACE_EOP_SUB: case CTRACE_EOP_AND:
	case CTRACE_EOP_OR: case CTRACE_EOP_XOR: case CTRACE_EOP_IMUL:
		*uses = src | BIT(o->d);
		break;
	case CTRACE_EOP_IMULI:
		*uses = src;
		break;
	case CTRACE_EOP_NEG: case CTRACE_EOP_NOT: case CTRACE_EOP_SHL:
	case CTRACE_EOP_SHR: case CTRACE_EOP_SAR:
		*uses = BIT(o->d);
		break;
	case CTRACE_EOP_CMP: case CTRACE_EOP_TEST:
		*uses = src | BIT(o->d);
		*defs = FLAGS;
		break;
	case CTRACE_EOP_SET:
		*uses = FLAGS | BIT(o->d);
		break;
	case CTRACE_EOP_CMOV:
		*uses = FLAGS | src | BIT(o->d);
		break;
	case CTRACE_EOP_POP:
		*uses = BIT(HW_RSP);
		*defs = BIT(o->d) | BIT(HW_RSP);
		break;
	case CTRACE_EOP_LEAVE:
		*uses = BIT(HW_RBP);
		*defs = BIT(HW_RBP) | BIT(HW_RSP);
		break;
	case CTRACE_EOP_XZERO:
		*uses = 0;
		break;
	case CTRACE_EOP_CVTSS:
	case CTRACE_EOP_FADD: case CTRACE_EOP_FSUB: case CTRACE_EOP_FMUL:
	case CTRACE_EOP_FDIV:
		*uses = src | BIT(o->d);
		break;
	case CTRACE_EOP_FCVT:
		*uses = src | (o->ssz == 8 ? BIT(o->d) : 0);
		break;
	default: /* MOV, ZX, SX, XMOV, CVTSD */
		*uses = src | (merge ? BIT(o->d) : 0);
		break;
	}
}

/* Drops the operations whose results nothing after them reads (the
 * callee-saved registers popped, mostly); a pop whose register is dead
 * but whose stack pointer is not becomes an addition to it.  live: what
 * is read at the `ret`. */
static size_t prune(const struct epilogue *e, uint64_t live,
		    struct epi_op *out)
{
	size_t n = 0;
	struct epi_op kept[CTRACE_PLAN_MAX_OPS];
	for (size_t i = e->n; i > 0; i--) {
		struct epi_op o = e->ops[i - 1];
		uint64_t uses, defs;
		op_effects(&o, &uses, &defs);
		if (!(defs & live))
			continue;
		if (o.op == CTRACE_EOP_POP && !(live & BIT(o.d))) {
			o = (struct epi_op){CTRACE_EOP_ADD, 8, 8, HW_RSP,
					    CTRACE_EOP_IMM, 0, 8};
			uses = defs = BIT(HW_RSP);
		}
		bool partial = (uses & defs & ~FLAGS) != 0;
		live = (live & ~(partial ? 0 : defs)) | uses;
		if (o.op == CTRACE_EOP_POP)
			live |= BIT(HW_RSP);
		kept[n++] = o;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = kept[n - 1 - i];
	return n;
}

bool epilogue_print(FILE *out, const struct epilogue *e, unsigned mask,
		    unsigned size)
{
	/* What the RETVAL record holds of each register must be known; of
	 * one scalar, the bytes of its type (a _Bool set by `setg %al`). */
	uint8_t need = (mask & CTRACE_RETVAL_NARROW) ? 0x0f : 0xff;
	uint8_t need_x = 0xff;
	if (size == 1 || size == 2 || size == 4 || size == 8)
		need = need_x = bytes_mask((int)size);
	if ((mask & CTRACE_RETVAL_ST0) || mask == 0 ||
	    ((mask & CTRACE_RETVAL_R0) && (e->r0 & need) != need) ||
	    ((mask & CTRACE_RETVAL_R1) && (e->r1 & need) != need) ||
	    ((mask & (CTRACE_RETVAL_XMM0 | CTRACE_RETVAL_XMM1)) &&
	     !(mask & CTRACE_RETVAL_NARROW)) ||
	    ((mask & CTRACE_RETVAL_XMM0) && (e->x0 & need_x) != need_x) ||
	    ((mask & CTRACE_RETVAL_XMM1) && (e->x1 & need_x) != need_x) ||
	    ((mask & CTRACE_RETVAL_MEM) && e->r0 != 0xff))
		return false;
	if (out == NULL)
		return true;
	uint64_t live = 0;
	if (mask & (CTRACE_RETVAL_R0 | CTRACE_RETVAL_MEM))
		live |= BIT(HW_RAX);
	if (mask & CTRACE_RETVAL_R1)
		live |= BIT(HW_RDX);
	if (mask & CTRACE_RETVAL_XMM0)
		live |= BIT(XMM(0));
	if (mask & CTRACE_RETVAL_XMM1)
		live |= BIT(XMM(1));
	if (mask & CTRACE_RETVAL_MEM)
		live |= BIT(HW_RSP); /* where the caller's frame starts */
	struct epi_op ops[CTRACE_PLAN_MAX_OPS];
	size_t n = prune(e, live, ops);
	for (size_t i = 0; i < n; i++) {
		const struct epi_op *o = &ops[i];
		fprintf(out, " op %d %d %d %d %d %d %" PRId64, o->op, o->dsz,
			o->ssz, o->d, o->s, o->base, o->arg);
	}
	return true;
}
