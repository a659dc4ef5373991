/* arch/i386/gotreg.h -- which registers hold a GOT base in a function of
 * i386 code, so that `disp(%reg)` is read as a reference to a GOT slot
 * only where %reg holds one (pltarch.h, plt.c's only_called).
 *
 * Scanning every byte for `disp32(%reg)` takes structure fields and
 * immediates for slots: in a mold build, whose GOT base is .got, slots lie
 * at small offsets (0x80) that a field's equals (`movl $0,0x90(%esi)` in
 * the recorder's own code), and `mov $0x7c,%edx` read from the byte before
 * it (`c0 ba 7c 00 00 00`) is `sar $..,0x7c(%edx)`; in GNU ld's, below
 * _GLOBAL_OFFSET_TABLE_, `mov $-36,%ecx` named qsort's slot.  A slot so
 * "loaded" is left alone, and its calls unrecorded.
 *
 * A function (a region of code from an FDE's start to the next one's) in
 * which such a displacement would name a slot is decoded instruction by
 * instruction (insn.h).  PIC code computes a GOT base from its own
 * address (plt_arch_got_base) and then moves it as any value: copies it
 * (mov, xchg, lea 0(%reg)), spills it (push, mov to the stack, movd to an
 * SSE register) and reloads it into any register (gcc -O2's main keeps it
 * in six; the recorder's ctrace__capture_entry in eax, a stack slot and
 * ebx for its PLT calls).  Each register, each stack slot and the rest
 * of memory carry the set of bases they may hold, followed through the
 * function's jumps until the set at each jump target holds still (a
 * dataflow over its blocks); an instruction that overwrites a register
 * with something else (an arithmetic result, a load of another value)
 * clears its set, a call does not (gcc -O2 keeps values in the registers
 * a local callee leaves alone, -fipa-ra).  An arithmetic result (add, lea
 * 8(%ebx)) is no base: compilers name a slot `sym@GOT(%base)` from the
 * base itself.
 *
 * Where this cannot be relied on, the reading is the one before, which can
 * only keep more slots from being redirected: a region whose code does
 * not decode (data, or instructions compilers do not emit) is scanned
 * byte by byte; one that computes no base, or does not start as a
 * function does (a .cold part, entered with the base of the function it
 * belongs to), or has too many jump targets, is read instruction by
 * instruction with every register taken for a base.
 */
#ifndef CTRACE_ARCH_I386_GOTREG_H
#define CTRACE_ARCH_I386_GOTREG_H

#include "arch/x86/insn.h"


/* What may hold a base: the registers, the stack slots compilers spill
 * to (by their offset from the CFA, which the CFI gives at each
 * instruction, whatever pushes moved the stack pointer in between), and
 * the rest of memory with the SSE, MMX and x87 registers as one.  A load
 * from a slot gets its bases and memory's; from the frame at an offset
 * not known, all of them; from elsewhere, memory's: compilers never reach
 * a spill slot through another pointer. */
#define GOTREG_SLOTS 16
struct gotreg_state {
	uint8_t r[8]; /* eax, ecx, edx, ebx, esp, ebp, esi, edi */
	uint8_t mem;
	uint8_t n_slots;
	uint8_t slot_bits[GOTREG_SLOTS];
	int32_t slot[GOTREG_SLOTS];
};

/* The bases (bits) that c + i, a call, computes into *reg, if any. */
static inline uint8_t gotreg_computed(const struct plt_gotreg *g, size_t i,
				      unsigned *reg)
{
	uintptr_t got;
	if (g->c[i] != 0xe8 ||
	    !plt_arch_got_base(g->c, i, g->size, g->base, &got, reg))
		return 0;
	for (size_t b = 0; b < g->n_bases; b++)
		if (g->bases[b] == got)
			return (uint8_t)(1u << b);
	return 0;
}

/* Whether the immediate or absolute address of the instruction is a
 * base's: `mov $base,%reg` and the like put one in a register too. */
static inline uint8_t gotreg_literal(const struct plt_gotreg *g,
				     const struct x86_insn *in)
{
	uint8_t bits = 0;
	for (size_t b = 0; b < g->n_bases; b++) {
		uint32_t v = (uint32_t)g->bases[b];
		if ((uint32_t)in->imm == v ||
		    (in->disp_size == 4 && (uint32_t)in->disp == v))
			bits |= (uint8_t)(1u << b);
	}
	return bits;
}

/* Where an access to memory goes: FRAME_AT a known stack slot (*key, its
 * offset from the CFA), FRAME somewhere in the frame, or ELSEWHERE. */
enum { GOTREG_ELSEWHERE, GOTREG_FRAME, GOTREG_FRAME_AT };

/* An access at esp + delta (push, pop) by the instruction at c + i. */
static inline int gotreg_stack(const struct plt_gotreg *g, uintptr_t fn,
			       size_t i, int32_t delta, int32_t *key)
{
	int32_t off;
	if (g->cfa(fn, g->base + i, &off) != 4)
		return GOTREG_FRAME;
	*key = delta - off;
	return GOTREG_FRAME_AT;
}

/* The instruction's memory operand (ModRM, not a register). */
static inline int gotreg_where(const struct plt_gotreg *g, uintptr_t fn,
			       size_t i, const struct x86_insn *in,
			       int32_t *key)
{
	unsigned b = in->rm;
	if (!(b == 4 || (b == 5 && in->mod != 0)))
		return GOTREG_ELSEWHERE; /* another register, or absolute */
	int32_t off;
	if (in->index != 4 || g->cfa(fn, g->base + i, &off) != (int)b)
		return GOTREG_FRAME;
	*key = in->disp - off;
	return GOTREG_FRAME_AT;
}

static inline uint8_t gotreg_load(const struct gotreg_state *s, int where,
				  int32_t key)
{
	uint8_t bits = s->mem;
	for (unsigned k = 0; where != GOTREG_ELSEWHERE && k < s->n_slots; k++)
		if (where == GOTREG_FRAME || s->slot[k] == key)
			bits |= s->slot_bits[k];
	return bits;
}

static inline void gotreg_store(struct gotreg_state *s, int where,
				int32_t key, uint8_t bits)
{
	if (bits == 0)
		return;
	if (where == GOTREG_FRAME_AT) {
		for (unsigned k = 0; k < s->n_slots; k++)
			if (s->slot[k] == key) {
				s->slot_bits[k] |= bits;
				return;
			}
		if (s->n_slots < GOTREG_SLOTS) {
			s->slot[s->n_slots] = key;
			s->slot_bits[s->n_slots++] = bits;
			return;
		}
	}
	s->mem |= bits; /* read back by every load */
}

/* The bases that the instruction at c + i, `add $imm,%reg` right after
 * `call __x86.get_pc_thunk.reg` or `call 1f; 1: pop %reg`, puts in *reg:
 * the end of a base's computation. */
static inline uint8_t gotreg_added(const struct plt_gotreg *g, size_t i,
				   const struct x86_insn *in, unsigned *reg)
{
	static const uint8_t call0[5] = {0xe8, 0, 0, 0, 0};
	if (in->map != X86_MAP1 || in->vex ||
	    (in->op != 0x81 && in->op != 0x05))
		return 0;
	if (i >= 5 && memcmp(g->c + i - 5, call0, 5) != 0) {
		uint8_t bits = gotreg_computed(g, i - 5, reg);
		if (bits)
			return bits;
	}
	if (i >= 6 && memcmp(g->c + i - 6, call0, 5) == 0)
		return gotreg_computed(g, i - 6, reg);
	return 0;
}

/* What the instruction at c + i (decoded as *in) of the function at fn
 * does to the sets: where a base it reads goes, and which registers it
 * overwrites with something else (an arithmetic result, a load).  A
 * partial or conditional write (8 or 16 bits, cmov) keeps what the
 * register may hold, as does any instruction not listed (a call: the
 * callee may leave a register alone, and gcc -fipa-ra relies on it). */
static inline void gotreg_gen(const struct plt_gotreg *g, uintptr_t fn,
			      size_t i, const struct x86_insn *in,
			      struct gotreg_state *s)
{
	uint8_t *r = s->r;
	int regs = in->has_modrm && in->mod == 3; /* r/m is a register */
	/* a memory operand's address (base + index: lea's value) and where
	 * it lies */
	uint8_t addr = 0;
	int where = GOTREG_ELSEWHERE;
	int32_t key = 0;
	if (in->has_modrm && !regs) {
		if (!(in->mod == 0 && in->rm == 5))
			addr |= r[in->rm];
		if (in->index != 4)
			addr |= r[in->index];
		if (!(in->map == X86_MAP1 && !in->vex && in->op == 0x8d))
			where = gotreg_where(g, fn, i, in, &key);
	}
	unsigned reg;
	uint8_t bits = gotreg_added(g, i, in, &reg);
	if (bits) {
		r[reg] = bits;
		return;
	}
	bits = gotreg_literal(g, in);
	uint8_t op = in->op, t;
	int32_t at;
	int full = !in->p66; /* 32-bit operands */
	if (in->map == X86_MAP1 && !in->vex) {
		switch (op) {
		case 0x89: /* mov r, r/m */
			if (!regs)
				gotreg_store(s, where, key, r[in->reg]);
			else if (full)
				r[in->rm] = r[in->reg];
			else
				r[in->rm] |= r[in->reg];
			break;
		case 0x8b: /* mov r/m, r */
		case 0xc4: /* les, lds */
		case 0xc5:
			t = regs ? r[in->rm] : gotreg_load(s, where, key);
			if (full)
				r[in->reg] = t;
			else
				r[in->reg] |= t;
			break;
		case 0x87: /* xchg */
			if (regs) {
				t = r[in->rm];
				r[in->rm] = r[in->reg];
				r[in->reg] = t;
			} else {
				t = gotreg_load(s, where, key);
				gotreg_store(s, where, key, r[in->reg]);
				r[in->reg] |= t;
			}
			break;
		case 0x91 ... 0x97: /* xchg %eax, r */
			t = r[0];
			r[0] = r[op & 7];
			r[op & 7] = t;
			break;
		case 0x8d: /* lea: a base only as itself, 0(%reg) */
			t = in->disp == 0 ? addr : 0;
			if (in->mod == 0 && in->rm == 5 && in->index == 4)
				t |= bits; /* lea base, %reg */
			if (full)
				r[in->reg] = t;
			else
				r[in->reg] |= t;
			break;
		case 0x50 ... 0x57: /* push r */
			at = gotreg_stack(g, fn, i, -4, &key);
			gotreg_store(s, at, key, r[op & 7]);
			break;
		case 0x68: /* push $imm */
			at = gotreg_stack(g, fn, i, -4, &key);
			gotreg_store(s, at, key, bits);
			break;
		case 0xff:
			if (in->reg == 6) { /* push r/m */
				t = regs ? r[in->rm]
					 : gotreg_load(s, where, key);
				at = gotreg_stack(g, fn, i, -4, &key);
				gotreg_store(s, at, key, t);
			} else if (in->reg < 2 && regs && full) {
				r[in->rm] = 0; /* inc, dec */
			}
			break;
		case 0x58 ... 0x5f: /* pop r */
			at = gotreg_stack(g, fn, i, 0, &key);
			r[op & 7] = gotreg_load(s, at, key);
			break;
		case 0x8f: /* pop r/m */
			at = gotreg_stack(g, fn, i, 0, &key);
			t = gotreg_load(s, at, key);
			if (regs)
				r[in->rm] = t;
			else
				s->mem |= t;
			break;
		case 0x60: /* pusha */
			for (int k = 0; k < 8; k++)
				s->mem |= r[k];
			break;
		case 0x61: /* popa */
			t = gotreg_load(s, GOTREG_FRAME, 0);
			for (int k = 0; k < 8; k++)
				r[k] |= t;
			break;
		case 0xc9: /* leave: mov %ebp,%esp; pop %ebp */
			if (g->cfa(fn, g->base + i, &key) == 5)
				r[5] = gotreg_load(s, GOTREG_FRAME_AT, -key);
			else
				r[5] = gotreg_load(s, GOTREG_FRAME, 0);
			break;
		case 0xa1: /* mov moffs, %eax */
		case 0xad: /* lods */
			r[0] = s->mem;
			break;
		case 0xa3: /* mov %eax, moffs */
		case 0xab: /* stos */
			s->mem |= r[0];
			break;
		case 0xb8 ... 0xbf: /* mov $imm, r */
			r[op & 7] = bits;
			break;
		case 0xc7: /* mov $imm, r/m */
			if (regs)
				r[in->rm] = bits;
			else
				gotreg_store(s, where, key, bits);
			break;
		case 0xd8 ... 0xdf: /* x87: memory to its registers */
			if (!regs)
				s->mem |= gotreg_load(s, where, key);
			break;
		/* arithmetic: the result is no base */
		case 0x01: case 0x09: case 0x11: case 0x19: /* op r, r/m */
		case 0x21: case 0x29: case 0x31:
			if (regs && full)
				r[in->rm] = 0;
			break;
		case 0x03: case 0x0b: case 0x13: case 0x1b: /* op r/m, r */
		case 0x23: case 0x2b: case 0x33:
		case 0x69: case 0x6b: /* imul */
			if (full)
				r[in->reg] = 0;
			break;
		case 0x05: case 0x0d: case 0x15: case 0x1d: /* op $imm, %eax */
		case 0x25: case 0x2d: case 0x35:
		case 0x98: /* cwde */
			if (full)
				r[0] = 0;
			break;
		case 0x99: /* cdq */
			if (full)
				r[2] = 0;
			break;
		case 0x40 ... 0x4f: /* inc, dec */
			if (full)
				r[op & 7] = 0;
			break;
		case 0x81: case 0x83: /* op $imm, r/m; /7 is cmp */
		case 0xc1: case 0xd1: case 0xd3: /* shifts */
			if (regs && full && !(op <= 0x83 && in->reg == 7))
				r[in->rm] = 0;
			break;
		case 0xf7:
			if (regs && full && (in->reg == 2 || in->reg == 3))
				r[in->rm] = 0; /* not, neg */
			else if (in->reg >= 4 && full)
				r[0] = r[2] = 0; /* mul, div */
			break;
		}
		return;
	}
	/* 0f and VEX maps: the moves between general registers and memory,
	 * SSE or MMX registers (memory's set) */
	if (in->map == X86_MAP0F && !in->vex) {
		switch (op) {
		case 0x40 ... 0x4f: /* cmov */
		case 0xc1:          /* xadd: the old value */
		case 0xb2:          /* lss, lfs, lgs */
		case 0xb4:
		case 0xb5:
			r[in->reg] |=
				regs ? r[in->rm] : gotreg_load(s, where, key);
			return;
		case 0xb1: /* cmpxchg */
			if (regs) {
				r[in->rm] |= r[in->reg];
				r[0] |= r[in->rm];
			} else {
				r[0] |= gotreg_load(s, where, key);
				gotreg_store(s, where, key, r[in->reg]);
			}
			return;
		case 0xc3: /* movnti */
			gotreg_store(s, where, key, r[in->reg]);
			return;
		case 0xc7: /* cmpxchg8b */
			if (regs)
				return; /* rdrand, rdseed */
			t = gotreg_load(s, where, key);
			r[0] |= t;
			r[2] |= t;
			gotreg_store(s, where, key, r[1] | r[3]);
			return;
		case 0xaf: /* imul */
		case 0xb6: /* movzx, movsx */
		case 0xb7:
		case 0xbe:
		case 0xbf:
			if (full)
				r[in->reg] = 0;
			return;
		case 0xc8 ... 0xcf: /* bswap */
			r[op & 7] = 0;
			return;
		}
	}
	if (in->map == X86_MAP0F && regs && op == 0x6e)
		s->mem |= r[in->rm]; /* movd r, %xmm or %mm */
	else if (in->map == X86_MAP0F && regs && op == 0x7e && !in->rep)
		r[in->rm] |= s->mem; /* movd %xmm or %mm, r */
	else if (in->map == X86_MAP0F3A && regs && op == 0x22)
		s->mem |= r[in->rm]; /* pinsrd */
	else if (in->map == X86_MAP0F3A && regs && op == 0x16)
		r[in->rm] |= s->mem; /* pextrd */
	else if (!regs && in->has_modrm)
		s->mem |= gotreg_load(s, where, key); /* to an SSE register */
}

/* The bytes from c + i to c + hi are padding: what linkers and
 * assemblers put between functions. */
static inline int gotreg_padding(const uint8_t *c, size_t i, size_t hi)
{
	for (; i < hi; i++)
		if (c[i] != 0x00 && c[i] != 0x90 && c[i] != 0xcc)
			return 0;
	return 1;
}

/* Decodes the instruction at c + i, region end hi: its length, 0 at the
 * padding that ends the region, -1 when it does not decode. */
static inline int gotreg_decode(const struct plt_gotreg *g, size_t i,
				size_t hi, struct x86_insn *in)
{
	if (x86_decode(g->c + i, hi - i, in, 0) == 0)
		return in->len;
	return gotreg_padding(g->c, i, hi) ? 0 : -1;
}

/* The reference the instruction at c + i makes, if it has a `disp32(%reg)`
 * operand: to each base in bits (its register's set). */
static inline void gotreg_ref(const struct plt_gotreg *g, size_t i,
			      size_t hi, const struct x86_insn *in,
			      uint8_t bits)
{
	if (!in->has_modrm || in->mod != 2 || in->has_sib || bits == 0)
		return;
	int kind = PLT_REF_LOAD;
	const uint8_t *next = g->c + i + in->len;
	if (in->map == X86_MAP1 && !in->vex && in->op == 0xff &&
	    (in->reg == 2 || in->reg == 4))
		kind = PLT_REF_CALL; /* call *, jmp * */
	else if (in->map == X86_MAP1 && !in->vex && in->op == 0x8b &&
		 i + in->len + 2 <= hi && next[0] == 0xff &&
		 (next[1] == 0xd0 + in->reg || next[1] == 0xe0 + in->reg))
		kind = PLT_REF_CALL; /* mov slot, %reg; call *%reg */
	for (size_t b = 0; b < g->n_bases; b++)
		if (bits >> b & 1)
			g->ref(g->ctx,
			       g->bases[b] + (uintptr_t)(intptr_t)in->disp,
			       kind);
}

/* Whether the instruction transfers control: the end of a block. */
static inline int gotreg_jumps(const struct x86_insn *in)
{
	if (in->vex)
		return 0;
	if (in->map == X86_MAP0F)
		return (in->op >= 0x80 && in->op <= 0x8f) || in->op == 0x0b;
	if (in->map != X86_MAP1)
		return 0;
	uint8_t op = in->op;
	return (op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3) ||
	       op == 0xe9 || op == 0xeb || op == 0xc2 || op == 0xc3 ||
	       op == 0xca || op == 0xcb || op == 0xcf ||
	       (op == 0xff && (in->reg == 4 || in->reg == 5));
}

/* A direct jump's target, as an offset in c (or SIZE_MAX if none). */
static inline size_t gotreg_target(size_t i, const struct x86_insn *in)
{
	if (!gotreg_jumps(in) || in->p66 ||
	    (in->map == X86_MAP0F && in->op == 0x0b))
		return SIZE_MAX; /* ud2; rel16 */
	if (in->map == X86_MAP1 &&
	    (in->op == 0xff || (in->op >= 0xc2 && in->op <= 0xcf)))
		return SIZE_MAX; /* indirect jumps, returns */
	return i + in->len + (size_t)(intptr_t)in->imm;
}

/* Whether the instruction has a `disp32(%reg)` operand that names an
 * address in the slots' span from one of the bases. */
static inline int gotreg_names(const struct plt_gotreg *g,
			       const struct x86_insn *in)
{
	if (!in->has_modrm || in->mod != 2 || in->has_sib)
		return 0;
	for (size_t b = 0; b < g->n_bases; b++)
		if (g->bases[b] + (uintptr_t)(intptr_t)in->disp - g->lo <
		    g->hi - g->lo)
			return 1;
	return 0;
}

/* The instructions that name a slot, found by the first reading of a
 * region, read again at the end; when there are more, the region is. */
#define GOTREG_NAMING 32
/* Readings of a function before its sets hold still: beyond, every
 * register counts. */
#define GOTREG_ROUNDS 64

/* Joins from into to: whether to grew. */
static inline int gotreg_join(struct gotreg_state *to,
			      const struct gotreg_state *from)
{
	int grew = 0;
	for (int k = 0; k < 8; k++) {
		grew |= (from->r[k] & ~to->r[k]) != 0;
		to->r[k] |= from->r[k];
	}
	grew |= (from->mem & ~to->mem) != 0;
	to->mem |= from->mem;
	for (unsigned k = 0; k < from->n_slots; k++) {
		int32_t key = from->slot[k];
		uint8_t had = gotreg_load(to, GOTREG_FRAME_AT, key);
		grew |= (from->slot_bits[k] & ~had) != 0;
		gotreg_store(to, GOTREG_FRAME_AT, key, from->slot_bits[k]);
	}
	return grew;
}

/* The state a block starts with: at each jump target (plt_arch_region's
 * scratch, g->blocks). */
struct gotreg_block {
	uint32_t at; /* its offset in the segment */
	struct gotreg_state in;
};
#define PLT_BLOCK_BYTES sizeof(struct gotreg_block)

static inline struct gotreg_block *
gotreg_block_at(struct gotreg_block *b, size_t n, size_t at)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && b[lo].at == at ? &b[lo] : NULL;
}

/* One reading of the function [lo, hi) in order, each instruction from
 * the state the one before left, or at a jump target from the join of
 * every way into it (b, the n targets), or after a jump with no jump to
 * it from *ind, the join of the states at the indirect jumps and at the
 * jumps out of the function (a switch's case, or a block the function's
 * .cold part jumps back to).  Each jump joins its state into its
 * target's.  Whether any target's state grew; with emit, the references
 * of the instructions that name a slot go to g->ref. */
static inline int gotreg_flow(const struct plt_gotreg *g, size_t lo,
			      size_t hi, struct gotreg_block *b, size_t n,
			      struct gotreg_state *ind, int emit)
{
	uintptr_t fn = g->base + lo;
	struct gotreg_state s;
	memset(&s, 0, sizeof s); /* a function starts with no base */
	struct x86_insn in;
	int len, grew = 0, live = 1;
	size_t k = 0;
	for (size_t i = lo; i < hi; i += (size_t)len) {
		if ((len = gotreg_decode(g, i, hi, &in)) <= 0)
			break;
		while (k < n && b[k].at < i)
			k++; /* a target inside an instruction: none */
		if (k < n && b[k].at == i) {
			if (live)
				grew |= gotreg_join(&b[k].in, &s);
			s = b[k].in;
			live = 1;
		} else if (!live) {
			s = *ind;
			live = 1;
		}
		if (emit && gotreg_names(g, &in))
			gotreg_ref(g, i, hi, &in, s.r[in.rm]);
		gotreg_gen(g, fn, i, &in, &s);
		if (!gotreg_jumps(&in))
			continue;
		int ret = in.map == X86_MAP1 && !in.vex &&
			  ((in.op >= 0xc2 && in.op <= 0xc3) ||
			   (in.op >= 0xca && in.op <= 0xcb) || in.op == 0xcf);
		size_t t = gotreg_target(i, &in);
		struct gotreg_block *to =
			t >= lo && t < hi ? gotreg_block_at(b, n, t) : NULL;
		if (to != NULL)
			grew |= gotreg_join(&to->in, &s);
		else if (!ret)
			grew |= gotreg_join(ind, &s);
		/* jmp, ret, ud2: nothing falls into what follows */
		int jmp = in.map == X86_MAP1 && !in.vex &&
			  (in.op == 0xe9 || in.op == 0xeb || in.op == 0xff);
		if (ret || jmp || (in.map == X86_MAP0F && in.op == 0x0b))
			live = 0;
	}
	return grew;
}

/* Reads the region [lo, hi) of the segment, a function: each
 * `disp32(%reg)` reference goes to g->ref, and the way it was read is
 * returned (PLT_SCAN_BYTES: none was, the caller scans the bytes).
 *
 * The function is read again until the state at each jump target holds
 * still; a block entered by an indirect jump (a switch's case) or from
 * the function's .cold part, and also by falling into it, has its base
 * where the block before left it: a compiler keeps a value where the code
 * after a join expects it on every way in. */
static inline int plt_arch_region(const struct plt_gotreg *g, size_t lo,
				  size_t hi)
{
	struct x86_insn in;
	int n;
	uint8_t computes = 0;
	uint32_t naming[GOTREG_NAMING];
	size_t n_naming = 0;
	if (g->marks != NULL)
		memset(g->marks + (lo >> 3), 0, ((hi + 7) >> 3) - (lo >> 3));
	for (size_t i = lo; i < hi; i += (size_t)n) {
		if ((n = gotreg_decode(g, i, hi, &in)) < 0)
			return PLT_SCAN_BYTES;
		if (n == 0)
			break;
		unsigned reg;
		computes |= gotreg_computed(g, i, &reg);
		size_t t = gotreg_target(i, &in);
		if (t >= lo && t < hi && g->marks != NULL)
			g->marks[t >> 3] |= (uint8_t)(1u << (t & 7));
		if (gotreg_names(g, &in)) {
			if (n_naming < GOTREG_NAMING)
				naming[n_naming] = (uint32_t)(i - lo);
			n_naming++;
		}
	}
	int how = computes && g->marks != NULL && g->entry(g->base + lo)
			  ? PLT_SCAN_TRACKED
			  : PLT_SCAN_ALIGNED;
	if (n_naming == 0)
		return how; /* nothing to tell */
	/* the jump targets, in order */
	struct gotreg_block *b = g->blocks;
	size_t nb = 0;
	for (size_t i = lo; how == PLT_SCAN_TRACKED && i < hi; i++) {
		if (!(g->marks[i >> 3] >> (i & 7) & 1))
			continue;
		if (nb == g->blocks_cap) {
			how = PLT_SCAN_ALIGNED; /* too many */
			break;
		}
		b[nb].at = (uint32_t)i;
		memset(&b[nb].in, 0, sizeof b[nb].in);
		nb++;
	}
	if (how == PLT_SCAN_TRACKED) {
		struct gotreg_state ind;
		memset(&ind, 0, sizeof ind);
		int round = 0;
		while (gotreg_flow(g, lo, hi, b, nb, &ind, 0))
			if (++round == GOTREG_ROUNDS)
				break;
		if (round < GOTREG_ROUNDS) {
			gotreg_flow(g, lo, hi, b, nb, &ind, 1);
			return how;
		}
		how = PLT_SCAN_ALIGNED;
	}
	/* every register may hold a base */
	uint8_t all = (uint8_t)((1u << g->n_bases) - 1);
	for (size_t k = 0; n_naming <= GOTREG_NAMING && k < n_naming; k++) {
		size_t i = lo + naming[k];
		gotreg_decode(g, i, hi, &in);
		gotreg_ref(g, i, hi, &in, all);
	}
	for (size_t i = lo; n_naming > GOTREG_NAMING && i < hi;
	     i += (size_t)n) {
		if ((n = gotreg_decode(g, i, hi, &in)) <= 0)
			break;
		if (gotreg_names(g, &in))
			gotreg_ref(g, i, hi, &in, all);
	}
	return how;
}

#endif /* CTRACE_ARCH_I386_GOTREG_H */
