/* i386dec.c -- the one decoder of i386 code, for the questions the values
 * stage asks about the few instructions around an entry hook's call:
 * which general registers they write (and which a register copy), which
 * they read, how they move esp, and where they store.
 *
 * Four readers ask: the i386 frame base (dwinfo: how far the hook's
 * pushed arguments moved esp), the i386 stack parameter whose location
 * list stops before the hook (does the prologue write at or above the
 * CFA?), a parameter said to be in the function's own frame (does the
 * prologue store every byte of it, from esp or from an ebp copied from
 * esp?), and register pairs (does the code before the call write one of
 * them, or copy one into another, or give one a new value after its value
 * was used?).  Each judges from the effects
 * described here; an instruction the decoder does not know ends every
 * reading (nothing is proved).  The set known is what gcc and clang put in
 * prologues and around the hook's call: moves, arithmetic, pushes and
 * pops, x87 and SSE moves, PIC thunk calls.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "values/dwinfo.h"

size_t i386dec_modrm_len(const uint8_t *p, const uint8_t *end)
{
	if (p >= end)
		return 0;
	unsigned mod = p[0] >> 6, rm = p[0] & 7;
	size_t n = 1;
	if (mod == 3)
		return n;
	if (rm == 4) {
		if (p + 1 >= end)
			return 0;
		if (mod == 0 && (p[1] & 7) == 5)
			n += 4;
		n++;
	} else if (mod == 0 && rm == 5) {
		n += 4;
	}
	n += mod == 1 ? 1 : mod == 2 ? 4 : 0;
	return p + n <= end ? n : 0;
}

/* The store of `len` bytes to the memory operand whose ModRM byte is at p:
 * at a known offset from esp when addressed as disp(%esp), else somewhere
 * not known (its offset from ebp noted when addressed as disp(%ebp)). */
static void store_to(struct i386_insn *in, const uint8_t *p, size_t len)
{
	unsigned mod = p[0] >> 6;
	/* the displacement: after the ModRM byte and its SIB byte if any */
	const uint8_t *d = p + 1 + ((p[0] & 7) == 4);
	in->store = I386_STORE_OTHER;
	in->store_len = len;
	if (mod == 1) {
		in->store_disp = (int8_t)d[0];
	} else if (mod == 2) {
		int32_t d32;
		memcpy(&d32, d, 4);
		in->store_disp = d32;
	} else {
		in->store_disp = 0;
	}
	/* disp(%ebp), without an index: mod 0 with base ebp is an
	 * absolute address */
	in->store_ebp = mod != 0 && ((p[0] & 7) == 5 ||
				     ((p[0] & 7) == 4 && p[1] == 0x25));
	if ((p[0] & 7) == 4 && p[1] == 0x24)
		in->store = I386_STORE_ESP;
}

/* The registers lea at p (its ModRM byte) adds: its base and index. */
static void lea_reads(struct i386_insn *in, const uint8_t *p)
{
	unsigned mod = p[0] >> 6, rm = p[0] & 7;
	if (rm != 4) {
		if (!(mod == 0 && rm == 5))
			in->reads |= 1u << rm;
		return;
	}
	unsigned base = p[1] & 7, index = (p[1] >> 3) & 7;
	if (!(mod == 0 && base == 5))
		in->reads |= 1u << base;
	if (index != 4)
		in->reads |= 1u << index;
}

/* reg is written: esp with a change not known. */
static void writes(struct i386_insn *in, unsigned reg)
{
	in->writes |= 1u << reg;
	if (reg == I386_ESP)
		in->esp_known = false;
}

static void push(struct i386_insn *in, int bytes)
{
	in->writes |= 1u << I386_ESP;
	in->esp_delta -= bytes;
	in->store = I386_STORE_ESP;
	in->store_disp = -bytes;
	in->store_len = (size_t)bytes;
}

/* Two-byte opcodes (0f xx) at p, the byte after 0f. */
static size_t decode_0f(const uint8_t *p, const uint8_t *end, bool o16,
			int rep, struct i386_insn *in)
{
	if (p >= end)
		return 0;
	uint8_t op2 = *p++;
	size_t n;
	if (op2 == 0x1e && rep == 0xf3 && p < end && *p == 0xfb)
		return 2; /* endbr32 */
	if (!(n = i386dec_modrm_len(p, end)))
		return 0;
	unsigned reg = (p[0] >> 3) & 7, rm = p[0] & 7;
	bool direct = (p[0] >> 6) == 3;
	switch (op2) {
	case 0x1f: /* nop r/m */
		return rep ? 0 : 1 + n;
	case 0xb6: case 0xbe: /* movzx, movsx from a byte register */
		if (direct)
			in->reads |= 1u << (rm & 3);
		writes(in, reg);
		return 1 + n;
	case 0xb7: case 0xbf: /* movzx, movsx */
		if (direct)
			in->reads |= 1u << rm;
		writes(in, reg);
		return 1 + n;
	case 0xaf:                                  /* imul */
	case 0x40: case 0x41: case 0x42: case 0x43: /* cmov */
	case 0x44: case 0x45: case 0x46: case 0x47:
	case 0x48: case 0x49: case 0x4a: case 0x4b:
	case 0x4c: case 0x4d: case 0x4e: case 0x4f:
		in->reads |= 1u << reg | (direct ? 1u << rm : 0);
		writes(in, reg);
		return 1 + n;
	case 0x6e: /* movd r32 or memory -> xmm or mm */
		if (direct)
			in->reads |= 1u << rm;
		return 1 + n;
	case 0x10: case 0x12: case 0x14: case 0x16: case 0x28: case 0x57:
	case 0x5a: case 0x6f:
		return 1 + n; /* SSE: into xmm, no general register */
	case 0x11: case 0x13: case 0x17: case 0x29: case 0x7f: case 0xd6:
		/* SSE stores: into xmm, or memory (16 bytes at most) */
		if (!direct)
			store_to(in, p, 16);
		return 1 + n;
	case 0x7e:
		if (rep == 0xf3)
			return 1 + n; /* movq xmm/m64 -> xmm */
		if (direct)
			writes(in, rm); /* movd xmm or mm -> r32 */
		else
			store_to(in, p, 4);
		return 1 + n;
	}
	(void)o16;
	return 0;
}

size_t i386dec_insn(const uint8_t *p, const uint8_t *end,
		    struct i386_insn *in)
{
	const uint8_t *start = p;
	bool o16 = false;
	int rep = 0;
	memset(in, 0, sizeof *in);
	in->esp_known = true;
	for (; p < end; p++) {
		if (*p == 0x66)
			o16 = true;
		else if (*p == 0xf2 || *p == 0xf3)
			rep = *p;
		else
			break;
	}
	if (p >= end)
		return 0;
	size_t pre = (size_t)(p - start), n = 0;
	uint8_t op = *p++;
	if (op == 0x0f) {
		n = decode_0f(p, end, o16, rep, in);
		return n ? pre + 1 + n : 0;
	}
	if (rep)
		return 0; /* string instructions: not known */
	unsigned reg = p < end ? (p[0] >> 3) & 7 : 0;
	unsigned rm = p < end ? p[0] & 7 : 0;
	bool direct = p < end && (p[0] >> 6) == 3;
	int word = o16 ? 2 : 4;
	if (op == 0x90) {
		;                                   /* nop */
	} else if (op >= 0x50 && op <= 0x57) {
		in->reads |= 1u << (op & 7);
		push(in, word);
	} else if (op >= 0x58 && op <= 0x5f) {
		writes(in, op & 7);                 /* pop */
		if ((op & 7) != I386_ESP) {
			in->writes |= 1u << I386_ESP;
			in->esp_delta += word;
		}
	} else if (op >= 0x40 && op <= 0x4f) {
		in->reads |= 1u << (op & 7);
		writes(in, op & 7);                 /* inc, dec */
	} else if (op == 0x6a || op == 0x68) {
		n = op == 0x6a ? 1 : (size_t)word;  /* push $imm */
		push(in, word);
	} else if (op >= 0xb8 && op <= 0xbf) {
		writes(in, op & 7);                 /* mov $imm, reg */
		n = (size_t)word;
	} else if (op >= 0xb0 && op <= 0xb7) {
		in->reads |= 1u << (op & 3);        /* the bytes kept */
		writes(in, op & 3);                 /* mov $imm8, r8 */
		n = 1;
	} else if (op == 0x88 || op == 0x89 || op == 0x01 || op == 0x09 ||
		   op == 0x11 || op == 0x19 || op == 0x21 || op == 0x29 ||
		   op == 0x31) {
		/* mov, add, or, adc, sbb, and, sub, xor into r/m */
		if (!(n = i386dec_modrm_len(p, end)))
			return 0;
		bool byte = op == 0x88;
		/* the source; the destination too but for a mov and the
		 * zeroing `xor %r, %r', `sub %r, %r' (and `sbb %r, %r',
		 * made of the carry) */
		in->reads |= 1u << (byte ? reg & 3 : reg);
		if (direct && (op == 0x31 || op == 0x29 || op == 0x19) &&
		    reg == rm)
			in->reads = 0;
		else if (direct && (op != 0x89 || o16))
			in->reads |= 1u << (byte ? rm & 3 : rm);
		if (direct)
			writes(in, byte ? rm & 3 : rm);
		else
			store_to(in, p, byte ? 1 : (size_t)word);
		if (direct && op == 0x89 && !o16) {
			in->reg_copy = true;        /* mov %reg, %rm */
			in->copy_src = reg;
		}
	} else if (op == 0x8a || op == 0x8b || op == 0x8d || op == 0x03 ||
		   op == 0x0b || op == 0x13 || op == 0x1b || op == 0x23 ||
		   op == 0x2b || op == 0x33) {
		/* loads, lea, operations into a register */
		if (!(n = i386dec_modrm_len(p, end)))
			return 0;
		/* the source; the destination too but for a 32-bit mov or
		 * lea and the zeroing `xor %r, %r', `sub %r, %r' (and
		 * `sbb %r, %r', made of the carry) */
		unsigned r8 = op == 0x8a ? 3 : 7;
		if (op == 0x8d)
			lea_reads(in, p);
		else if (direct)
			in->reads |= 1u << (rm & r8);
		if (op == 0x8a || (op != 0x8b && op != 0x8d) || o16)
			in->reads |= 1u << (reg & r8);
		if (direct && (op == 0x33 || op == 0x2b || op == 0x1b) &&
		    reg == rm)
			in->reads = 0;
		writes(in, op == 0x8a ? reg & 3 : reg);
		if (direct && op == 0x8b && !o16) {
			in->reg_copy = true;        /* mov %rm, %reg */
			in->copy_src = rm;
		}
	} else if (op == 0x84 || op == 0x85 || (op >= 0x38 && op <= 0x3b)) {
		if (!(n = i386dec_modrm_len(p, end)))
			return 0;                   /* test, cmp */
		bool byte = op == 0x84 || op == 0x38 || op == 0x3a;
		in->reads |= 1u << (byte ? reg & 3 : reg);
		if (direct)
			in->reads |= 1u << (byte ? rm & 3 : rm);
	} else if (op == 0x83 || op == 0x81 || op == 0x80 || op == 0xc7 ||
		   op == 0xc6) {
		if (!(n = i386dec_modrm_len(p, end)))
			return 0;
		if ((op == 0xc7 || op == 0xc6) && reg != 0)
			return 0;
		bool byte = op == 0x80 || op == 0xc6;
		size_t imm = op == 0x83 || byte ? 1 : (size_t)word;
		if (direct && (op != 0xc7 || o16))
			in->reads |= 1u << (byte ? rm & 3 : rm);
		if (p + n + imm > end)
			return 0;
		int32_t v = 0;
		if (imm == 1)
			v = (int8_t)p[n];
		else if (imm == 4)
			memcpy(&v, p + n, 4);
		if (direct && rm == I386_ESP && !o16 &&
		    (op == 0x83 || op == 0x81) && (reg == 0 || reg == 5)) {
			in->writes |= 1u << I386_ESP;  /* add, sub $imm, esp */
			in->esp_delta = reg == 0 ? v : -v;
		} else if (direct && reg != 7) {       /* not cmp */
			writes(in, byte ? rm & 3 : rm);
		} else if (!direct && reg != 7) {
			store_to(in, p, byte ? 1 : (size_t)word);
		}
		n += imm;
	} else if (op == 0xc0 || op == 0xc1 || op == 0xd0 || op == 0xd1 ||
		   op == 0xd2 || op == 0xd3) {
		if (!(n = i386dec_modrm_len(p, end)))
			return 0;                   /* shifts, rotates */
		bool byte = !(op & 1);
		if (op == 0xd2 || op == 0xd3)
			in->reads |= 1u << 1;       /* the count in cl */
		if (direct) {
			in->reads |= 1u << (byte ? rm & 3 : rm);
			writes(in, byte ? rm & 3 : rm);
		} else {
			store_to(in, p, byte ? 1 : (size_t)word);
		}
		n += op == 0xc0 || op == 0xc1 ? 1 : 0;
	} else if (op == 0x69 || op == 0x6b) {
		if (!(n = i386dec_modrm_len(p, end)))
			return 0;                   /* imul $imm, r/m, reg */
		if (direct)
			in->reads |= 1u << rm;
		writes(in, reg);
		n += op == 0x6b ? 1 : (size_t)word;
	} else if (op == 0xf7 && reg >= 2) {
		if (!(n = i386dec_modrm_len(p, end)))
			return 0;
		if (direct)
			in->reads |= 1u << rm;
		if (reg >= 4) {                     /* mul, imul, div, idiv */
			in->reads |= 1u << 0 | (reg >= 6 ? 1u << 2 : 0);
			writes(in, 0);
			writes(in, 2);
		} else if (direct) {                /* not, neg */
			writes(in, rm);
		} else {
			store_to(in, p, (size_t)word);
		}
	} else if (op == 0x99) {
		in->reads |= 1u << 0;
		writes(in, 2);                      /* cltd */
	} else if (op == 0xff && reg == 6) {
		if (!(n = i386dec_modrm_len(p, end)))
			return 0;                   /* push r/m */
		if (direct)
			in->reads |= 1u << rm;
		push(in, word);
	} else if (op == 0xd9 || op == 0xdd || op == 0xdb) {
		if (!(n = i386dec_modrm_len(p, end)))
			return 0;
		/* x87: register forms touch no general register; from
		 * memory, loads (fld, fild, fldcw) store nothing */
		bool load = reg == 0 || (op != 0xdd && reg == 5);
		if (!direct && !load)
			in->store = I386_STORE_OTHER;
	} else if (op == 0xe8 && end - p >= 4) {
		memcpy(&in->call_rel, p, 4);
		in->call = true;
		n = 4;
	} else {
		return 0;
	}
	if ((size_t)(end - p) < n)
		return 0;
	return pre + 1 + n;
}

static int pic_thunk_reg(struct dw_module *m, uint64_t target)
{
	uint8_t t[4];
	if (!dw_read_code(m, target, t, 4) || t[0] != 0x8b ||
	    (t[1] & 0xc7) != 0x04 || t[2] != 0x24 || t[3] != 0xc3)
		return -1;
	return (t[1] >> 3) & 7;
}

size_t i386dec_step(struct dw_module *m, uint64_t addr, const uint8_t *p,
		    const uint8_t *end, struct i386_insn *in)
{
	size_t n = i386dec_insn(p, end, in);
	if (n == 0 || !in->call)
		return n;
	/* A call's own effects: the PIC register's set-up (a call to the
	 * next instruction, whose return address is popped next, or to a
	 * thunk `mov (%esp), %reg; ret'), or any other function, which
	 * writes the call-clobbered eax, ecx and edx and memory anywhere. */
	uint64_t target = addr + n + (uint64_t)(int64_t)in->call_rel;
	int thunk;
	if (in->call_rel == 0) {
		push(in, 4);
		in->call = false;
	} else if ((thunk = pic_thunk_reg(m, target)) >= 0) {
		in->writes |= 1u << thunk;
		in->store = I386_STORE_ESP; /* the return address, popped */
		in->store_disp = -4;
		in->store_len = 4;
		in->call = false;
	} else {
		/* eax, edx and ecx may pass its arguments (regparm) */
		in->reads |= 1u << 0 | 1u << 1 | 1u << 2;
		in->writes |= 1u << 0 | 1u << 1 | 1u << 2;
		in->store = I386_STORE_OTHER;
	}
	return n;
}
