/* prologue.c -- where the code before the entry hook's call put the
 * registers the function was entered with (x86-64).
 *
 * Optimized code often moves an argument from its ABI register into a
 * callee-saved one before calling __cyg_profile_func_enter, while the
 * DWARF names only the ABI register there (clang: `c in RDX' up to the
 * hook's return address, `in R14' after it), or nothing at all (clang -O2,
 * a small struct by value).  The ABI register is not captured (the hook
 * clobbers it); the callee-saved copy is.  Reading the straight-line code
 * from the function's entry to the hook's call proves which registers
 * still hold which entry register's bytes.  Any instruction not understood
 * here, or any jump or other call, and nothing is proved.
 *
 * clang -O0 has the opposite problem: its homes are written only after
 * the hook, from spill slots the code right after the call reads
 * (dw_clang_spill_at).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "values/dwinfo.h"

/* Hardware register number (ModRM, opcode) to DWARF number. */
static const int hw_to_dwarf[16] = {0, 2, 1, 3, 7, 6, 4, 5,
				    8, 9, 10, 11, 12, 13, 14, 15};

/* What a register holds at the call: an entry register's low bytes, a
 * value the code computed from registers (`sar $32, %r14' on a copy of
 * rdx: no parameter's value as passed), or something else (a load, a
 * constant). */
#define COMPUTED (-2)
#define UNKNOWN (-1)

struct regs {
	int origin[16];       /* entry register whose bytes it holds, or
			       * COMPUTED, UNKNOWN */
	unsigned width[16];   /* how many low bytes of it */
	unsigned bytes[16];   /* how many low bytes of the register may
			       * hold anything: those above are zeros or
			       * copies of the sign of those below (a load
			       * or move of 4 bytes, an extension) */
	/* Stack bytes [watch_off, watch_off + watch_len) from rsp (none
	 * when watch_len is 0), and whether a store may have written them. */
	int64_t watch_off;
	size_t watch_len;
	bool watch_hit;
};

/* Every register holds its own value, no stack bytes watched. */
static void regs_init(struct regs *r)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < 16; i++) {
		r->origin[i] = i;
		r->width[i] = 8;
		r->bytes[i] = 8;
	}
}

static void clobber(struct regs *r, int hw)
{
	r->origin[hw] = UNKNOWN;
	r->width[hw] = 0;
	r->bytes[hw] = 8;
}

/* hw is now a load of `bytes` bytes (8: all of it), zero- or
 * sign-extended to the register. */
static void loaded(struct regs *r, int hw, unsigned bytes)
{
	clobber(r, hw);
	r->bytes[hw] = bytes;
}

/* hw is now a computation's result. */
static void compute(struct regs *r, int hw)
{
	r->origin[hw] = COMPUTED;
	r->width[hw] = 0;
	r->bytes[hw] = 8;
}

/* hw now holds the low `w` bytes of src (a move, an extension). */
static void copy(struct regs *r, int hw, int src, unsigned w)
{
	int o = r->origin[src];
	r->origin[hw] = o;
	r->width[hw] = o < 0 ? 0 : r->width[src] < w ? r->width[src] : w;
	r->bytes[hw] = r->bytes[src] < w ? r->bytes[src] : w;
}

/* A store of up to len bytes to the memory operand whose ModRM byte is at
 * p (rex: the instruction's REX prefix).  It may write the watched bytes
 * when it is relative to rsp and overlaps them, or relative to rbp or
 * indexed by rsp or rbp (where those point is not followed).  A store
 * through another register is to memory a pointer reaches, not to the
 * slots clang's call-site values read (spill slots, which none does). */
static void stored(struct regs *r, const uint8_t *p, const uint8_t *end,
		   unsigned rex, size_t len)
{
	if (r->watch_len == 0 || p >= end || (p[0] >> 6) == 3)
		return;
	int mod = p[0] >> 6, rm = p[0] & 7, base, index = -1;
	const uint8_t *d = p + 1;
	if (rm == 5 && mod == 0)
		return; /* rip-relative: a global */
	base = rm | ((rex & 1) ? 8 : 0);
	if (rm == 4) { /* SIB */
		if (d >= end) {
			r->watch_hit = true;
			return;
		}
		int ix = ((d[0] >> 3) & 7) | ((rex & 2) ? 8 : 0);
		index = ix == 4 ? -1 : ix;
		base = (d[0] & 7) == 5 && mod == 0
			       ? -1 /* no base: an absolute address */
			       : (d[0] & 7) | ((rex & 1) ? 8 : 0);
		d++;
	}
	if (base == 4 && index < 0) {
		int64_t disp = 0;
		int32_t d32;
		if (mod == 1 && d < end) {
			disp = (int8_t)d[0];
		} else if (mod == 2 && d + 4 <= end) {
			memcpy(&d32, d, 4);
			disp = d32;
		} else if (mod != 0) {
			r->watch_hit = true;
			return;
		}
		if (disp < r->watch_off + (int64_t)r->watch_len &&
		    r->watch_off < disp + (int64_t)len)
			r->watch_hit = true;
		return;
	}
	if (base == 4 || base == 5 || index == 4 || index == 5)
		r->watch_hit = true;
}

/* Runs the code [entry, call) over r; false if any of it is not
 * understood. */
static bool run(const uint8_t *code, size_t len, struct regs *r)
{
	const uint8_t *p = code, *end = code + len;
	while (p < end) {
		unsigned rex = 0;
		bool o16 = false, rep = false;
		for (;; p++) {
			if (p >= end)
				return false;
			if (*p == 0x66)
				o16 = true;
			else if (*p == 0xf2 || *p == 0xf3)
				rep = true;
			else
				break;
		}
		if (p < end && (*p & 0xf0) == 0x40)
			rex = *p++;
		if (p >= end)
			return false;
		uint8_t op = *p++;
		int regf = 0, rmf = 0;
		size_t n = 0;
		unsigned w = (rex & 8) ? 8 : 4;
		if (op != 0x0f && p < end) {
			regf = ((p[0] >> 3) & 7) | ((rex & 4) ? 8 : 0);
			rmf = (p[0] & 7) | ((rex & 1) ? 8 : 0);
		}
		bool reg_direct = p < end && (p[0] >> 6) == 3;
		if (op >= 0x50 && op <= 0x57 && !o16) {
			clobber(r, 4);                  /* push */
		} else if (op >= 0x58 && op <= 0x5f && !o16) {
			clobber(r, (op & 7) | ((rex & 1) ? 8 : 0));
			clobber(r, 4);                  /* pop */
		} else if (op == 0x90 && !rex) {
			;                               /* nop */
		} else if ((op == 0x89 || op == 0x8b) && !rep) {
			if (!(n = i386dec_modrm_len(p, end)))
				return false;
			int dst = op == 0x89 ? rmf : regf;
			int src = op == 0x89 ? regf : rmf;
			if (reg_direct && !o16) {       /* mov reg, reg */
				copy(r, dst, src, w);
			} else if (reg_direct || (o16 && op == 0x8b)) {
				clobber(r, dst);
			} else if (op == 0x8b) {
				loaded(r, dst, w);      /* mov mem, reg */
			} else {
				/* mov reg, mem: no register written */
				stored(r, p, end, rex, o16 ? 2 : w);
			}
		} else if (op == 0x63 && reg_direct && !rep) {
			/* movsxd: the low half */
			n = 1;
			copy(r, regf, rmf, 4);
		} else if (op == 0x88 || op == 0x8a || op == 0x8d || op == 0x63 ||
			   op == 0x01 || op == 0x03 || op == 0x09 || op == 0x0b ||
			   op == 0x21 || op == 0x23 || op == 0x29 || op == 0x2b ||
			   op == 0x31 || op == 0x33 || op == 0x85 || op == 0x39 ||
			   op == 0x3b || op == 0x84 || op == 0x38 || op == 0x3a) {
			if (rep || !(n = i386dec_modrm_len(p, end)))
				return false;
			bool to_reg = op == 0x8a || op == 0x8d || op == 0x63 ||
				      (op & 0x0f) == 0x03 || (op & 0x0f) == 0x0b ||
				      op == 0x3b || op == 0x3a;
			bool compare = op == 0x85 || op == 0x84 ||
				       op == 0x38 || op == 0x39 ||
				       op == 0x3a || op == 0x3b;
			/* a load, or an operation on registers */
			bool load = op == 0x8a || op == 0x63;
			if (!compare && to_reg && load && !reg_direct)
				loaded(r, regf, op == 0x63 ? 4 : 8);
			else if (!compare && to_reg)
				compute(r, regf);
			else if (!compare && reg_direct)
				compute(r, rmf);
			else if (!compare)
				stored(r, p, end, rex,
				       op == 0x88 ? 1 : o16 ? 2 : w);
		} else if (op == 0x83 || op == 0x81 || op == 0xc7 || op == 0xc6 ||
			   op == 0x80) {
			if (rep || !(n = i386dec_modrm_len(p, end)))
				return false;
			unsigned digit = (p[0] >> 3) & 7;
			if ((op == 0xc7 || op == 0xc6) && digit != 0)
				return false;
			size_t imm = op == 0x83 || op == 0x80 || op == 0xc6
					     ? 1
					     : (o16 ? 2 : 4);
			if (reg_direct && digit != 7) {
				if (op == 0xc7 || op == 0xc6)
					clobber(r, rmf);
				else
					compute(r, rmf);
			} else if (digit != 7) {
				bool byte = op == 0x80 || op == 0xc6;
				stored(r, p, end, rex, byte ? 1 : o16 ? 2 : w);
			}
			n += imm;
		} else if (op == 0xc0 || op == 0xc1 || op == 0xd0 ||
			   op == 0xd1 || op == 0xd2 || op == 0xd3) {
			/* shifts and rotates: the register no longer holds
			 * the entry register's bytes */
			if (rep || !(n = i386dec_modrm_len(p, end)))
				return false;
			if (reg_direct)
				compute(r, rmf);
			else
				stored(r, p, end, rex, 8);
			n += op == 0xc0 || op == 0xc1 ? 1 : 0;
		} else if (op == 0x6b || op == 0x69) {
			if (rep || !(n = i386dec_modrm_len(p, end)))
				return false;   /* imul $imm, r/m, reg */
			compute(r, regf);
			n += op == 0x6b ? 1 : (o16 ? 2 : 4);
		} else if ((op == 0xf7 || op == 0xf6) && p < end &&
			   ((p[0] >> 3) & 7) >= 2 && ((p[0] >> 3) & 7) <= 3) {
			if (rep || !(n = i386dec_modrm_len(p, end)))
				return false;   /* not, neg */
			if (reg_direct)
				compute(r, rmf);
			else
				stored(r, p, end, rex, 8);
		} else if ((op == 0xff || op == 0xfe) && p < end &&
			   ((p[0] >> 3) & 7) <= 1) {
			if (rep || !(n = i386dec_modrm_len(p, end)))
				return false;   /* inc, dec */
			if (reg_direct)
				compute(r, rmf);
			else
				stored(r, p, end, rex, 8);
		} else if (op >= 0xd8 && op <= 0xdf && !rep && !o16) {
			/* x87 (a long double argument moved from the stack:
			 * fldt, fstpt): no general register written but by
			 * fnstsw %ax */
			if (!(n = i386dec_modrm_len(p, end)))
				return false;
			if (op == 0xdf && p[0] == 0xe0)
				clobber(r, 0);
			/* fst, fstp, fist(t)p, fnstcw, fnstsw: up to 10
			 * bytes; fnstenv, fnsave: up to 108 */
			unsigned x87 = (p[0] >> 3) & 7;
			if ((op & 1) && x87 != 0 && x87 != 4 && x87 != 5)
				stored(r, p, end, rex, x87 == 6 ? 108 : 10);
		} else if (op >= 0xb8 && op <= 0xbf) {
			clobber(r, (op & 7) | ((rex & 1) ? 8 : 0));
			n = (rex & 8) ? 8 : o16 ? 2 : 4; /* mov $imm, reg */
		} else if (op == 0x0f) {
			if (p >= end)
				return false;
			uint8_t op2 = *p++;
			if (op2 == 0x1e && rep && p < end && *p == 0xfa) {
				n = 1;                  /* endbr64 */
			} else if (op2 == 0x1f && !rep) {
				if (!(n = i386dec_modrm_len(p, end)))
					return false;   /* nop r/m */
			} else if (op2 == 0x10 || op2 == 0x11 || op2 == 0x28 ||
				   op2 == 0x29 || op2 == 0x6f || op2 == 0x7f ||
				   op2 == 0xd6 || op2 == 0x6e || op2 == 0x16 ||
				   op2 == 0x12 || op2 == 0x13 || op2 == 0x17 ||
				   op2 == 0x14 || op2 == 0x57) {
				/* SSE moves into xmm or memory: no general
				 * register written */
				if (!(n = i386dec_modrm_len(p, end)))
					return false;
				if (op2 == 0x11 || op2 == 0x29 || op2 == 0x7f ||
				    op2 == 0xd6 || op2 == 0x13 || op2 == 0x17)
					stored(r, p, end, rex, 16);
			} else if (op2 == 0xc6 || op2 == 0x70) {
				/* shufps, shufpd, pshufd (a struct of two
				 * floats split into its fields): an xmm
				 * register written, then an immediate byte */
				if (!(n = i386dec_modrm_len(p, end)))
					return false;
				n++;
			} else if (op2 == 0x7e && o16 && !rep) {
				if (!(n = i386dec_modrm_len(p, end)))
					return false;   /* movd/movq xmm -> r/m */
				if ((p[0] >> 6) == 3)
					clobber(r, (p[0] & 7) |
						       ((rex & 1) ? 8 : 0));
				else
					stored(r, p, end, rex, 8);
			} else if (op2 == 0xb6 || op2 == 0xb7 || op2 == 0xbe ||
				   op2 == 0xbf || op2 == 0xaf ||
				   (op2 >= 0x40 && op2 <= 0x4f)) {
				/* movzx, movsx, imul, cmov */
				if (!(n = i386dec_modrm_len(p, end)))
					return false;
				int dst = ((p[0] >> 3) & 7) |
					  ((rex & 4) ? 8 : 0);
				if ((p[0] >> 6) != 3 && op2 >= 0xb6 && !o16)
					loaded(r, dst, op2 & 1 ? 2 : 1);
				else if ((p[0] >> 6) != 3)
					clobber(r, dst);  /* from memory */
				else if (op2 >= 0xb6 && op2 <= 0xbf &&
					 (rex || (p[0] & 7) < 4 || op2 & 1))
					/* an extension of the low byte or
					 * word (without REX, rm 4-7 of a byte
					 * are ah, ch, dh, bh) */
					copy(r, dst, rmf, op2 & 1 ? 2 : 1);
				else
					compute(r, dst);
			} else {
				return false;
			}
		} else {
			return false;
		}
		p += n;
	}
	return p == end;
}

/* The registers' state at the call: false if the code is not understood. */
static bool state_at_call(struct dw_module *m, uint64_t entry, uint64_t call,
			  struct regs *r)
{
	uint8_t code[256], op;
	if (call <= entry || call - entry > sizeof code ||
	    !dw_read_code(m, call, &op, 1) || op != 0xe8 ||
	    !dw_read_code(m, entry, code, call - entry))
		return false;
	regs_init(r);
	return run(code, call - entry, r);
}

static int hw_of(int dwarf_reg)
{
	for (int i = 0; i < 16; i++)
		if (hw_to_dwarf[i] == dwarf_reg)
			return i;
	return -1;
}

bool dw_entry_reg_origin(struct dw_module *m, uint64_t entry, uint64_t call,
			 int reg, int *origin, size_t *width)
{
	struct regs r;
	int hw = hw_of(reg);
	if (hw < 0 || !state_at_call(m, entry, call, &r))
		return false;
	*origin = r.origin[hw] < 0 ? r.origin[hw] : hw_to_dwarf[r.origin[hw]];
	*width = r.width[hw];
	return true;
}

bool dw_reg_bytes_at_call(struct dw_module *m, uint64_t entry, uint64_t call,
			  int reg, size_t *bytes)
{
	struct regs r;
	int hw = hw_of(reg);
	if (hw < 0 || !state_at_call(m, entry, call, &r))
		return false;
	*bytes = r.bytes[hw];
	return true;
}

bool dw_entry_reg_copy(struct dw_module *m, uint64_t entry, uint64_t call,
		       int reg, size_t size, int *copy)
{
	static const int saved[] = {3, 6, 12, 13, 14, 15}; /* DWARF */
	uint8_t code[256], op;
	struct regs r;
	int hw = -1;
	if (call <= entry || call - entry > sizeof code ||
	    !dw_read_code(m, call, &op, 1) || op != 0xe8 ||
	    !dw_read_code(m, entry, code, call - entry))
		return false;
	regs_init(&r);
	for (int i = 0; i < 16; i++)
		if (hw_to_dwarf[i] == reg)
			hw = i;
	if (hw < 0 || hw == 4 || !run(code, call - entry, &r))
		return false;
	for (size_t k = 0; k < sizeof saved / sizeof *saved; k++) {
		int i;
		for (i = 0; i < 16 && hw_to_dwarf[i] != saved[k]; i++)
			;
		if (r.origin[i] == hw && r.width[i] >= size) {
			*copy = saved[k];
			return true;
		}
	}
	return false;
}

bool dw_call_value_holds(struct dw_module *m, uint64_t from, uint64_t call,
			 int param_reg, int value_reg)
{
	uint8_t code[256];
	struct regs r;
	int hp = hw_of(param_reg), hv = hw_of(value_reg);
	if (hp < 0 || hv < 0 || hp == 4 || call < from ||
	    call - from > sizeof code ||
	    (call > from && !dw_read_code(m, from, code, call - from)))
		return false;
	regs_init(&r);
	if (call > from && !run(code, call - from, &r))
		return false;
	return r.origin[hp] >= 0 && r.origin[hp] == r.origin[hv] &&
	       r.width[hp] == 8 && r.width[hv] == 8;
}

bool dw_stack_kept(struct dw_module *m, uint64_t from, uint64_t call,
		   int64_t off, size_t len)
{
	uint8_t code[256];
	struct regs r;
	if (len == 0 || call < from || call - from > sizeof code ||
	    (call > from && !dw_read_code(m, from, code, call - from)))
		return false;
	regs_init(&r);
	r.watch_off = off;
	r.watch_len = len;
	if (call > from && !run(code, call - from, &r))
		return false;
	/* rsp unmoved: an offset from it names the same bytes throughout */
	return !r.watch_hit && r.origin[4] == 4 && r.width[4] == 8;
}

int dw_reg_kept(struct dw_module *m, uint64_t from, uint64_t to, int reg,
		size_t size)
{
	uint8_t code[256];
	struct regs r;
	int hw = hw_of(reg);
	if (hw < 0 || hw == 4 || to < from || to - from > sizeof code ||
	    (to > from && !dw_read_code(m, from, code, to - from)))
		return -1;
	regs_init(&r);
	if (to > from && !run(code, to - from, &r))
		return -1;
	return r.origin[hw] == hw && r.width[hw] >= size;
}

bool dw_entry_reg_kept(struct dw_module *m, uint64_t entry, uint64_t pc,
		       int reg)
{
	return dw_reg_kept(m, entry, pc, reg, 8) == 1;
}

bool dw_code_understood(struct dw_module *m, uint64_t from, uint64_t to)
{
	uint8_t code[256];
	struct regs r;
	if (to < from || to - from > sizeof code ||
	    (to > from && !dw_read_code(m, from, code, to - from)))
		return false;
	regs_init(&r);
	return to == from || run(code, to - from, &r);
}

/* clang -O0 stores the arguments in their DWARF homes only after the
 * entry hook: before it they sit in spill slots.  The code right after the
 * hook's call reloads each spill and stores it in its home; read those
 * moves to map a home (rbp offset) to its spill.  Besides the moves of
 * general and SSE registers: a bool's `and $1' of its byte (its value
 * either way), which ends the mapping of a register for any other
 * operand; and a long double's fldt and fstpt (class 2, the x87 stack's
 * top). */
bool dw_clang_spill_at(struct dw_module *m, uint16_t machine, uint64_t rel_pc,
		       int64_t home, size_t size, int64_t *spill)
{
	uint8_t code[160];
	int64_t loaded[3][16];
	bool have[3][16] = {{false}};
	size_t loaded_width[16] = {0};
	if (machine != EM_X86_64 || !dw_read_code(m, rel_pc, code, sizeof code))
		return false;
	size_t i = 0;
	while (i + 4 < sizeof code - 8) {
		size_t k = i, width = 4;
		int cls = 0, rex = 0, store;
		if (code[k] == 0x66) {
			width = 2;
			k++;
		}
		if (code[k] == 0xf2 || code[k] == 0xf3) {
			cls = 1;
			width = code[k] == 0xf2 ? 8 : 4;
			k++;
		}
		if ((code[k] & 0xf0) == 0x40)
			rex = code[k++];
		if (rex & 8)
			width = 8;
		if (!cls && !rex && width == 4 && code[k] == 0x24) {
			/* and $imm8, %al */
			if (code[k + 1] != 1 || loaded_width[0] != 1)
				have[0][0] = false;
			i = k + 2;
			continue;
		}
		if (!cls && (code[k] == 0x80 || code[k] == 0x83) &&
		    (code[k + 1] >> 6) == 3 && ((code[k + 1] >> 3) & 7) == 4) {
			int r = (code[k + 1] & 7) | ((rex & 1) ? 8 : 0);
			if (code[k] == 0x80 && !rex && r >= 4)
				break; /* ah, ch, dh or bh */
			if (code[k] != 0x80 || code[k + 2] != 1 ||
			    loaded_width[r] != 1)
				have[0][r] = false;
			i = k + 3;
			continue;
		}
		if (!cls && !rex && width == 4 && code[k] == 0xdb &&
		    (((code[k + 1] >> 3) & 7) == 5 ||
		     ((code[k + 1] >> 3) & 7) == 7)) {
			cls = 2;
			width = 10;
			store = ((code[k + 1] >> 3) & 7) == 7;
			k++;
		} else if (cls) {
			if (code[k] != 0x0f ||
			    (code[k + 1] != 0x10 && code[k + 1] != 0x11))
				break;
			store = code[k + 1] == 0x11;
			k += 2;
		} else if (code[k] == 0x89 || code[k] == 0x88) {
			store = 1;
			width = code[k] == 0x88 ? 1 : width;
			k++;
		} else if (code[k] == 0x8b || code[k] == 0x8a) {
			store = 0;
			width = code[k] == 0x8a ? 1 : width;
			k++;
		} else {
			break;
		}
		uint8_t modrm = code[k++];
		int mod = modrm >> 6, rm = modrm & 7;
		int reg = cls == 2 ? 0 : ((modrm >> 3) & 7) | ((rex & 4) ? 8 : 0);
		if (rm != 5 || (rex & 1) || (mod != 1 && mod != 2))
			break;
		int64_t disp;
		if (mod == 1) {
			disp = (int8_t)code[k++];
		} else {
			int32_t d32;
			memcpy(&d32, code + k, 4);
			disp = d32;
			k += 4;
		}
		if (!store) {
			loaded[cls][reg] = disp;
			have[cls][reg] = true;
			if (cls == 0)
				loaded_width[reg] = width;
		} else if (disp == home) {
			/* one move of the whole value (a long double's 10
			 * bytes in its 16), or we do not know */
			if (!have[cls][reg] ||
			    (width != size && !(cls == 2 && size == 16)))
				return false;
			*spill = loaded[cls][reg];
			return true;
		} else if (cls == 2) {
			have[2][0] = false; /* fstpt pops */
		}
		i = k;
	}
	return false;
}
