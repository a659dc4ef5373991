/* retread.c -- return values read at the exit hook (x86-64), where the
 * capture plan proves where they are.
 *
 * The code between a call of the exit hook and the function's `ret`
 * often only moves the value kept across the call (in a callee-saved
 * register or a stack slot of the function's frame) into the return
 * registers, finishing its computation on the way.  `ctrace-symbolize --make-plan` proves it from that code
 * (symbolizer/values/x86/epilogue.c) and writes, per call of the exit
 * hook, that code as a list of operations (include/ctrace_plan.h, `exit`
 * lines).  The exit stub saves the callee-saved registers and the stack
 * pointer; the operations run here over them, as the code will, and the
 * record is written filled:
 * the function's entry set no trampoline (its plan line says `ret_read`),
 * so its return costs no mispredicted return and no list of patched
 * frames.  Any other function keeps the trampoline (retval.c).
 */
#include <string.h>

#include "capture.h"
#include "retval.h"
#include "internal.h"

/* Faster forms of some operations (struct ctrace__plan_op's `how`),
 * chosen as the plan is read.  A write of a whole register (4 or 8
 * bytes: x86 zero-extends a 4-byte one) needs not the register's old
 * value, whose load would wait for the store before it to complete; and
 * `xor r, r` (or `sub`) is 0 whatever r held. */
enum {
	HOW_MOV_WHOLE = CTRACE_EOP_LAST + 1,
	HOW_ZX_WHOLE,
	HOW_SX_WHOLE,
	HOW_ZERO,
	HOW_SET_B, /* a set of condition b or ae, e or ne, ... */
	HOW_SET_E,
	HOW_SET_BE,
	HOW_SET_L,
	HOW_SET_LE,
	HOW_END, /* the end of the list */
	HOW_LAST = HOW_END
};

void ctrace__retread_prepare(struct ctrace__plan_op *o)
{
	uint64_t dmask = o->dsz >= 8 ? ~0ull : (1ull << (o->dsz * 8)) - 1;
	/* a 4-byte write zero-extends, a narrower one merges */
	o->keep = o->dsz >= 4 ? 0 : ~dmask;
	o->put = o->dsz == 4 ? 0xffffffffull : dmask;
	o->cut = o->ssz >= 8 ? ~0ull : (1ull << (o->ssz * 8)) - 1;
	o->sx = (uint8_t)(64 - o->ssz * 8);
	o->how = o->op == CTRACE__EOP_END ? HOW_END : o->op;
	if (o->op == CTRACE_EOP_SET) {
		static const uint8_t set_how[8] = {
			CTRACE_EOP_SET, HOW_SET_B,      HOW_SET_E,
			HOW_SET_BE,     CTRACE_EOP_SET, CTRACE_EOP_SET,
			HOW_SET_L,      HOW_SET_LE};
		o->how = set_how[(o->arg >> 1) & 7];
		return;
	}
	if (o->keep != 0)
		return;
	switch (o->op) {
	case CTRACE_EOP_MOV: o->how = HOW_MOV_WHOLE; break;
	case CTRACE_EOP_ZX: o->how = HOW_ZX_WHOLE; break;
	case CTRACE_EOP_SX: o->how = HOW_SX_WHOLE; break;
	case CTRACE_EOP_XOR:
	case CTRACE_EOP_SUB:
		if (o->s == (int8_t)o->d)
			o->how = HOW_ZERO;
		break;
	default: break;
	}
}

#if defined(__x86_64__)

/* The registers as the operations leave them: 0-15 the general ones,
 * 16-31 the low 8 bytes of xmm0-15. */
struct machine {
	uint64_t r[32] __attribute__((aligned(16)));
};

static uint64_t cut(uint64_t v, unsigned sz)
{
	return sz >= 8 ? v : v & ((1ull << (sz * 8)) - 1);
}

static uint64_t sign_extend(uint64_t v, unsigned sz)
{
	unsigned shift = 64 - sz * 8;
	return sz >= 8 ? v : (uint64_t)((int64_t)(v << shift) >> shift);
}

/* The sixteen x86 conditions (0 o, 2 b, 4 e, 6 be, 8 s, 10 p, 12 l,
 * 14 le; odd: not) after `cmp b, a` (a - b) or `test` (a & b) of sz
 * bytes, as a mask (a test clears of and cf). */
static inline __attribute__((always_inline)) unsigned
conditions(unsigned op, unsigned sz, uint64_t a, uint64_t b)
{
	unsigned top = sz * 8 - 1;
	int test = op == CTRACE_EOP_TEST;
	a = cut(a, sz);
	b = cut(b, sz);
	uint64_t res = test ? a & b : cut(a - b, sz);
	unsigned zf = res == 0, sf = (unsigned)(res >> top) & 1;
	unsigned cf = !test && a < b;
	unsigned of = !test && (unsigned)(((a ^ b) & (a ^ res)) >> top) & 1;
	unsigned pf = !__builtin_parity((unsigned)(res & 0xff));
	unsigned lt = sf ^ of;
	unsigned even = of | cf << 2 | zf << 4 | (cf | zf) << 6 | sf << 8 |
			pf << 10 | lt << 12 | (zf | lt) << 14;
	return even | (~even & 0x5555u) << 1;
}

/* Condition cc (x86's number) after the last cmp or test, kept as
 * `cmp b, a` of sz bytes (a and b cut to it; a test of x and y sets the
 * flags of a comparison of x & y with 0): computed only when read.
 * Below, equal, below or equal, less and less or equal are one
 * comparison of a with b (signed: both shifted to the top, which keeps
 * their order); overflow, sign and parity take the whole mask. */
static inline __attribute__((always_inline)) int
condition(uint64_t a, uint64_t b, unsigned sz, unsigned cc)
{
	unsigned shift = 64 - sz * 8;
	int c;
	switch ((cc >> 1) & 7) {
	case 1: c = a < b; break;
	case 2: c = a == b; break;
	case 3: c = a <= b; break;
	case 6: c = (int64_t)(a << shift) < (int64_t)(b << shift); break;
	case 7: c = (int64_t)(a << shift) <= (int64_t)(b << shift); break;
	default:
		return (int)(conditions(CTRACE_EOP_CMP, sz, a, b) >>
			     (cc & 15)) & 1;
	}
	return c ^ (int)(cc & 1);
}

/* The source of an operation that is no register: a constant, or
 * memory of the function's frame (the plan proved where).  Out of line:
 * the registers are the common case. */
static __attribute__((noinline)) uint64_t
source_other(const struct machine *m, const struct ctrace__plan_op *o)
{
	uint64_t v = 0;
	if (o->s == CTRACE_EOP_IMM)
		return (uint64_t)o->arg;
	/* Sizes known to the compiler: a call of memcpy would go through
	 * the program's GOT, redirected for library calls. */
	const uint8_t *a =
		(const uint8_t *)(uintptr_t)(m->r[o->base] + (uint64_t)o->arg);
	switch (o->ssz) {
	case 1: v = a[0]; break;
	case 2: { uint16_t h; memcpy(&h, a, 2); v = h; break; }
	case 4: { uint32_t w; memcpy(&w, a, 4); v = w; break; }
	default: memcpy(&v, a, 8); break;
	}
	return v;
}

/* An SSE operation as the instruction itself computes it (a NaN's
 * payload included): op on the low sz bytes of a and b. */
static uint64_t fp_op(unsigned op, unsigned sz, uint64_t a, uint64_t b)
{
	if (sz == 8) {
		double x, y;
		memcpy(&x, &a, 8);
		memcpy(&y, &b, 8);
		switch (op) {
		case CTRACE_EOP_FADD: __asm__("addsd %1, %0" : "+x"(x) : "x"(y)); break;
		case CTRACE_EOP_FSUB: __asm__("subsd %1, %0" : "+x"(x) : "x"(y)); break;
		case CTRACE_EOP_FMUL: __asm__("mulsd %1, %0" : "+x"(x) : "x"(y)); break;
		default: __asm__("divsd %1, %0" : "+x"(x) : "x"(y)); break;
		}
		memcpy(&a, &x, 8);
		return a;
	}
	float x, y;
	uint32_t lo = (uint32_t)a, blo = (uint32_t)b;
	memcpy(&x, &lo, 4);
	memcpy(&y, &blo, 4);
	switch (op) {
	case CTRACE_EOP_FADD: __asm__("addss %1, %0" : "+x"(x) : "x"(y)); break;
	case CTRACE_EOP_FSUB: __asm__("subss %1, %0" : "+x"(x) : "x"(y)); break;
	case CTRACE_EOP_FMUL: __asm__("mulss %1, %0" : "+x"(x) : "x"(y)); break;
	default: __asm__("divss %1, %0" : "+x"(x) : "x"(y)); break;
	}
	memcpy(&lo, &x, 4);
	return (a & ~0xffffffffull) | lo;
}

/* Floating-point work runs with every exception masked, so that none
 * traps in the recorder where the program unmasked one, and the MXCSR is
 * then put back as it was: the flags it raised are the program's to
 * raise, when it runs the same instructions after the hook. */
static void fp_begin(uint32_t *saved)
{
	uint32_t masked;
	__asm__ volatile("stmxcsr %0" : "=m"(*saved));
	masked = (*saved | 0x1f80u) & ~0x3fu; /* all masked, no flag */
	__asm__ volatile("ldmxcsr %0" : : "m"(masked));
}

/* 0 when an operation raised an exception the program left unmasked:
 * its own instruction will trap there, and the function never returns
 * the value computed here. */
static int fp_end(const uint32_t *saved)
{
	uint32_t raised;
	__asm__ volatile("stmxcsr %0" : "=m"(raised));
	__asm__ volatile("ldmxcsr %0" : : "m"(*saved));
	uint32_t unmasked = ~(*saved >> 7) & 0x3fu;
	return (raised & 0x3fu & unmasked) == 0;
}

/* The source of an operation: a register, memory of the function's
 * frame, or a constant. */
static inline __attribute__((always_inline)) uint64_t
src(const struct machine *m, const struct ctrace__plan_op *o)
{
	if (likely(o->s >= 0))
		return m->r[(uint8_t)o->s];
	return source_other(m, o);
}

/* 1, or 0 when the value is not the program's (see fp_end()).  Threaded
 * code: each operation jumps to the next one's handler through the
 * table (one indirect jump an operation, each predicted on its own),
 * with the sizes' masks made when the plan was read; the operations are
 * valid, and end with CTRACE__EOP_END's. */
static int run(struct machine *m, const struct ctrace__plan_op *o)
{
	static const void *const at[HOW_LAST + 1] = {
		[CTRACE_EOP_MOV] = &&mov,     [CTRACE_EOP_ZX] = &&zx,
		[CTRACE_EOP_SX] = &&sx,       [CTRACE_EOP_LEA] = &&lea,
		[CTRACE_EOP_ADD] = &&add,     [CTRACE_EOP_SUB] = &&sub,
		[CTRACE_EOP_AND] = &&and,     [CTRACE_EOP_OR] = &&or,
		[CTRACE_EOP_XOR] = &&xor,     [CTRACE_EOP_IMUL] = &&imul,
		[CTRACE_EOP_NEG] = &&neg,     [CTRACE_EOP_NOT] = &&not,
		[CTRACE_EOP_SHL] = &&shl,     [CTRACE_EOP_SHR] = &&shr,
		[CTRACE_EOP_SAR] = &&sar,     [CTRACE_EOP_CMP] = &&cmp,
		[CTRACE_EOP_TEST] = &&test,   [CTRACE_EOP_SET] = &&set,
		[CTRACE_EOP_CMOV] = &&cmov,   [CTRACE_EOP_POP] = &&pop,
		[CTRACE_EOP_LEAVE] = &&leave, [CTRACE_EOP_XMOV] = &&xmov,
		[CTRACE_EOP_XZERO] = &&xzero, [CTRACE_EOP_CVTSD] = &&cvtsd,
		[CTRACE_EOP_CVTSS] = &&cvtss, [CTRACE_EOP_IMULI] = &&imuli,
		[CTRACE_EOP_FADD] = &&fpop,   [CTRACE_EOP_FSUB] = &&fpop,
		[CTRACE_EOP_FMUL] = &&fpop,   [CTRACE_EOP_FDIV] = &&fpop,
		[CTRACE_EOP_FCVT] = &&fcvt,   [HOW_MOV_WHOLE] = &&mov_whole,
		[HOW_ZX_WHOLE] = &&zx_whole,  [HOW_SX_WHOLE] = &&sx_whole,
		[HOW_ZERO] = &&zero,          [HOW_SET_B] = &&set_b,
		[HOW_SET_E] = &&set_e,        [HOW_SET_BE] = &&set_be,
		[HOW_SET_L] = &&set_l,        [HOW_SET_LE] = &&set_le,
		[HOW_END] = &&done,
	};
	uint32_t csr;
	int fp = 0;
	uint64_t *r = m->r, v;
	/* The last cmp or test (see condition()), none yet: the flags of
	 * 0 - 0. */
	uint64_t ca = 0, cb = 0;
	unsigned csz = 8;
	/* The MXCSR set once, at the first floating-point operation. */
#define FP_FIRST()                                                           \
	do {                                                                 \
		if (!fp) {                                                   \
			fp_begin(&csr);                                      \
			fp = 1;                                              \
		}                                                            \
	} while (0)
#define PUT(x) (r[o->d] = (r[o->d] & o->keep) | ((x) & o->put))
#define NEXT()                                                               \
	do {                                                                 \
		o++;                                                         \
		goto *at[o->how];                                            \
	} while (0)
	goto *at[o->how];
mov:
	PUT(src(m, o));
	NEXT();
zx:
	PUT(src(m, o) & o->cut);
	NEXT();
sx:
	PUT((uint64_t)((int64_t)(src(m, o) << o->sx) >> o->sx));
	NEXT();
mov_whole:
	r[o->d] = src(m, o) & o->put;
	NEXT();
zx_whole:
	r[o->d] = src(m, o) & o->cut & o->put;
	NEXT();
sx_whole:
	r[o->d] = (uint64_t)((int64_t)(src(m, o) << o->sx) >> o->sx) & o->put;
	NEXT();
zero:
	r[o->d] = 0;
	NEXT();
lea:
	v = (uint64_t)o->arg;
	if (o->base != CTRACE_EOP_NO_BASE)
		v += r[o->base];
	if (o->s != CTRACE_EOP_IMM)
		v += r[(uint8_t)o->s] * o->ssz;
	PUT(v);
	NEXT();
add:
	PUT(r[o->d] + src(m, o));
	NEXT();
sub:
	PUT(r[o->d] - src(m, o));
	NEXT();
and:
	PUT(r[o->d] & src(m, o));
	NEXT();
or:
	PUT(r[o->d] | src(m, o));
	NEXT();
xor:
	PUT(r[o->d] ^ src(m, o));
	NEXT();
imul:
	PUT(r[o->d] * src(m, o));
	NEXT();
imuli:
	PUT(r[(uint8_t)o->s] * (uint64_t)o->arg);
	NEXT();
neg:
	PUT(0 - r[o->d]);
	NEXT();
not:
	PUT(~r[o->d]);
	NEXT();
	/* x86 masks the count to 5 bits (6 for 8 bytes) whatever the
	 * size: a byte shifted by 9 is 0 (or its sign), not shifted by 1. */
#define COUNT() (o->arg & (o->dsz == 8 ? 63 : 31))
shl:
	PUT(r[o->d] << COUNT());
	NEXT();
shr:
	PUT(cut(r[o->d], o->dsz) >> COUNT());
	NEXT();
sar:
	PUT((uint64_t)((int64_t)sign_extend(cut(r[o->d], o->dsz), o->dsz) >>
		       COUNT()));
	NEXT();
#undef COUNT
cmp: /* put: the mask of dsz bytes */
	ca = r[o->d] & o->put;
	cb = src(m, o) & o->put;
	csz = o->dsz;
	NEXT();
test:
	ca = r[o->d] & src(m, o) & o->put;
	cb = 0;
	csz = o->dsz;
	NEXT();
	/* The low byte, whatever dsz; each common condition a handler of
	 * its own, which computes it without a switch.  Stored whole: a
	 * store of the byte alone (what the compiler would make of this)
	 * cannot be forwarded to the next operation's load of the
	 * register, which then waits for it to complete. */
#define SET(cc)                                                              \
	do {                                                                 \
		v = r[o->d] & ~0xffull;                                      \
		__asm__("" : "+r"(v));                                       \
		r[o->d] = v | (uint64_t)condition(ca, cb, csz, (cc));        \
		NEXT();                                                      \
	} while (0)
set:
	SET((unsigned)o->arg);
set_b:
	SET(2u | ((unsigned)o->arg & 1));
set_e:
	SET(4u | ((unsigned)o->arg & 1));
set_be:
	SET(6u | ((unsigned)o->arg & 1));
set_l:
	SET(12u | ((unsigned)o->arg & 1));
set_le:
	SET(14u | ((unsigned)o->arg & 1));
#undef SET
cmov:
	PUT(condition(ca, cb, csz, (unsigned)o->arg) ? src(m, o) : r[o->d]);
	NEXT();
pop:
	memcpy(&r[o->d], (const void *)(uintptr_t)r[4], 8);
	r[4] += 8;
	NEXT();
leave:
	r[4] = r[5];
	memcpy(&r[5], (const void *)(uintptr_t)r[4], 8);
	r[4] += 8;
	NEXT();
xmov:
	v = src(m, o) & o->cut;
	r[o->d] = o->dsz >= 8 ? v : (r[o->d] & ~o->cut) | v;
	NEXT();
xzero:
	r[o->d] = 0;
	NEXT();
cvtsd: {
	FP_FIRST();
	/* The program's own rounding: the same instruction (cvtsi2sd), in
	 * this thread's MXCSR. */
	double x = (double)(int64_t)((int64_t)((src(m, o) & o->cut)
					       << o->sx) >> o->sx);
	memcpy(&r[o->d], &x, 8);
	NEXT();
}
cvtss: {
	FP_FIRST();
	float x = (float)(int64_t)((int64_t)((src(m, o) & o->cut) << o->sx) >>
				   o->sx);
	uint32_t bits;
	memcpy(&bits, &x, 4);
	r[o->d] = (r[o->d] & ~0xffffffffull) | bits;
	NEXT();
}
fpop:
	FP_FIRST();
	r[o->d] = fp_op(o->op, o->ssz, r[o->d], src(m, o));
	NEXT();
fcvt:
	FP_FIRST();
	v = src(m, o);
	if (o->ssz == 4) {
		float x;
		double y;
		uint32_t lo = (uint32_t)v;
		memcpy(&x, &lo, 4);
		__asm__("cvtss2sd %1, %0" : "=x"(y) : "x"(x));
		memcpy(&r[o->d], &y, 8);
	} else {
		double x;
		float y;
		uint32_t lo;
		memcpy(&x, &v, 8);
		__asm__("cvtsd2ss %1, %0" : "=x"(y) : "x"(x));
		memcpy(&lo, &y, 4);
		r[o->d] = (r[o->d] & ~0xffffffffull) | lo;
	}
	NEXT();
done:
#undef NEXT
#undef PUT
#undef FP_FIRST
	return fp ? fp_end(&csr) : 1;
}

uint32_t ctrace__retread_reads(const struct ctrace__plan_op *ops, size_t n)
{
	/* The record's registers, whatever the operations do. */
	uint32_t reads = 1u << 0 | 1u << 2 | 1u << 16 | 1u << 17;
	for (size_t i = 0; i < n; i++) {
		const struct ctrace__plan_op *o = &ops[i];
		if (o->s >= 0)
			reads |= 1u << o->s;
		if (o->s == CTRACE_EOP_MEM ||
		    (o->op == CTRACE_EOP_LEA && o->base != CTRACE_EOP_NO_BASE))
			reads |= 1u << o->base;
		if (o->op != CTRACE_EOP_POP && o->op != CTRACE_EOP_LEAVE)
			reads |= 1u << o->d; /* merged into, or both read */
	}
	return reads;
}

/* A saved register by its number (0-15); 0 for one the hook left. */
static inline __attribute__((always_inline)) uint64_t
saved(const struct ctrace__regs *r, unsigned i)
{
	switch (i) {
	case 3: return r->rbx;
	case 4: return r->sp;
	case 5: return r->rbp;
	case 12: return r->r12;
	case 13: return r->r13;
	case 14: return r->r14;
	case 15: return r->r15;
	default: return 0;
	}
}

/* The commonest exit, one move (or extension) of a register into the
 * whole of eax or rax: what the machine below computes for it, without
 * setting the machine up.  0 when the operations are not that. */
static inline __attribute__((always_inline)) int
run_one_move(const struct ctrace__plan_op *o, size_t n,
	     const struct ctrace__regs *r, uint64_t out[CTRACE_RETREAD_OUT])
{
	if (n != 1 || o->d != 0 || (o->dsz != 4 && o->dsz != 8) || o->s < 0 ||
	    o->s >= 16 ||
	    (o->op != CTRACE_EOP_MOV && o->op != CTRACE_EOP_ZX &&
	     o->op != CTRACE_EOP_SX))
		return 0;
	uint64_t v = saved(r, (unsigned)o->s);
	if (o->op == CTRACE_EOP_ZX)
		v = cut(v, o->ssz);
	else if (o->op == CTRACE_EOP_SX)
		v = sign_extend(cut(v, o->ssz), o->ssz);
	out[0] = o->dsz == 4 ? (uint32_t)v : v;
	out[1] = out[2] = out[3] = 0;
	out[4] = r->sp + 8; /* after the ret */
	return 1;
}

/* The machine as the exit hook leaves it, r its saved registers. */
static inline __attribute__((always_inline)) void
machine_start(struct machine *m, uint32_t reads, const struct ctrace__regs *r)
{
	/* The registers the hook left are proved not to count, but their
	 * bytes may reach the record's unknown ones: those the operations
	 * read are zeros, not the recorder's stack (the rest are never
	 * read; a memset of all 32 took the exit's longest instruction).
	 * The general registers, xmm0 and xmm1 (the record's) in nine
	 * stores; a loop is compiled as a slow rep stos. */
	typedef uint64_t pair __attribute__((vector_size(16), may_alias));
	const pair zero = {0, 0};
	pair *z = (pair *)(void *)m->r;
	z[0] = zero, z[1] = zero, z[2] = zero, z[3] = zero, z[4] = zero;
	z[5] = zero, z[6] = zero, z[7] = zero, z[8] = zero;
	for (reads >>= 18; reads != 0; reads &= reads - 1)
		m->r[18 + __builtin_ctz(reads)] = 0;
	m->r[3] = r->rbx;
	m->r[4] = r->sp;
	m->r[5] = r->rbp;
	m->r[12] = r->r12;
	m->r[13] = r->r13;
	m->r[14] = r->r14;
	m->r[15] = r->r15;
}

/* The record's registers from the machine, word by word: the operations
 * wrote them so, and a wider load would miss the store buffer's
 * forwarding. */
static inline __attribute__((always_inline)) void
machine_out(const struct machine *m, uint64_t out[CTRACE_RETREAD_OUT])
{
	uint64_t v[CTRACE_RETREAD_OUT] = {m->r[0], m->r[2], m->r[16], m->r[17],
					  m->r[4] + 8 /* after the ret */};
	for (int i = 0; i < CTRACE_RETREAD_OUT; i++) {
		__asm__("" : "+r"(v[i]));
		out[i] = v[i];
	}
}

/* ops[0..n), at most CTRACE_PLAN_MAX_OPS, copied with the end after
 * them (a test's list has none). */
int ctrace__retread_run(const struct ctrace__plan_op *ops, size_t n,
			uint32_t reads, const struct ctrace__regs *r,
			uint64_t out[CTRACE_RETREAD_OUT])
{
	struct ctrace__plan_op list[CTRACE_PLAN_MAX_OPS + 1];
	if (n == 0 || n > CTRACE_PLAN_MAX_OPS)
		return 0;
	if (run_one_move(ops, n, r, out))
		return 1;
	memcpy(list, ops, n * sizeof *ops);
	list[n] = (struct ctrace__plan_op){.op = CTRACE__EOP_END};
	ctrace__retread_prepare(&list[n]);
	struct machine m;
	machine_start(&m, reads, r);
	int ok = run(&m, list);
	machine_out(&m, out);
	return ok;
}

/* A register of the short form: a sleb, of its low half with NARROW. */
static inline uint8_t *reg_field(uint8_t *q, uint64_t v, int narrow)
{
	return ctrace__sleb_put(q, narrow ? (int64_t)(int32_t)(uint32_t)v
					  : (int64_t)v);
}

/* n bytes (at most CTRACE_RETVAL_MEM_MAX), word by word: no call. */
static inline void copy_small(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		memcpy(dst + i, src + i, 8);
	for (; i < n; i++)
		((volatile uint8_t *)dst)[i] = src[i];
}

static inline uint8_t *xmm_field(uint8_t *q, uint64_t v, int narrow)
{
	memcpy(q, &v, 8);
	if (!narrow)
		memset(q + 8, 0, 8);
	return q + (narrow ? 8 : 16);
}

/* The record at rec made whole, its payload up to q: its type, then
 * its tag stored last, so that a reader, a crash or a jump out of a
 * signal handler finds all of it or none. */
static inline void record_close(struct ctrace__stream *s, uint8_t *rec,
				uint8_t type, uint8_t *q)
{
	rec[1] = type;
	ctrace__barrier();
	rec[0] = CTRACE_TAG_EXTENDED;
	ctrace__barrier();
	s->cur = q;
}

/* The record at rec of the values out, mask's (x's, or 0 for none that
 * is the program's), in its general form. */
static __attribute__((noinline)) void
put_general(struct ctrace__stream *s, const struct ctrace__plan_exit *x,
	    uint8_t *rec, uint8_t mask, const uint64_t out[CTRACE_RETREAD_OUT])
{
	/* A value's size depends on the value (an int of -1, 0 or 1 takes a
	 * byte): the length is a byte when the largest payload fits one. */
	int wide = x->len >= 0x80;
	uint8_t *p = rec + 3 + wide, *q = p + 1;
	int narrow = (mask & CTRACE_RETVAL_NARROW) != 0;
	uint8_t type = CTRACE_REC_RETVAL_SHORT;
	if ((mask & ~CTRACE_RETVAL_NARROW) == CTRACE_RETVAL_R0) {
		/* rax alone: its state is the record's type, a byte less. */
		type = narrow ? CTRACE_REC_RETVAL_INT : CTRACE_REC_RETVAL_WORD;
		q = p;
	}
	if (mask & CTRACE_RETVAL_R0)
		q = reg_field(q, out[0], narrow);
	if (mask & CTRACE_RETVAL_R1)
		q = reg_field(q, out[1], narrow);
	if (mask & CTRACE_RETVAL_XMM0)
		q = xmm_field(q, out[2], narrow);
	if (mask & CTRACE_RETVAL_XMM1)
		q = xmm_field(q, out[3], narrow);
	if (mask & CTRACE_RETVAL_MEM) {
		/* As the trampoline does: a struct returned in memory is in
		 * the caller's frame, just above the stack pointer after the
		 * ret. */
		uint64_t a = out[0], after = out[4];
		if (a >= after && a < after + 4096) {
			memcpy(q, &a, 8);
			q[8] = x->mem;
			copy_small(q + CTRACE_RETVAL_MEM_HEAD,
				   (const uint8_t *)(uintptr_t)a, x->mem);
			q += CTRACE_RETVAL_MEM_HEAD + x->mem;
		} else {
			mask &= (uint8_t)~CTRACE_RETVAL_MEM;
		}
	}
	if (type == CTRACE_REC_RETVAL_SHORT)
		p[0] = mask ? CTRACE_RETVAL_COMPACT | mask : 0;
	size_t len = (size_t)(q - p);
	if (wide)
		ctrace__uleb_put2(rec + 2, len);
	else
		rec[2] = (uint8_t)len;
	record_close(s, rec, type, q);
}

void ctrace__retread_put(struct ctrace__stream *s,
			 const struct ctrace__plan_exit *x,
			 const struct ctrace__regs *r)
{
	uint8_t *rec = s->cur;
	if (rec == NULL || (size_t)(s->chunk_end - rec) < 4 + (size_t)x->len)
		return;
	uint64_t out[CTRACE_RETREAD_OUT], rax;
	struct machine m;
	int ok = 1, machine = !run_one_move(x->ops, x->nops, r, out);
	if (machine) {
		machine_start(&m, x->reads, r);
		ok = run(&m, x->ops);
		rax = m.r[0];
	} else {
		rax = out[0];
	}
	if (likely(ok) &&
	    (x->mask & ~CTRACE_RETVAL_NARROW) == CTRACE_RETVAL_R0) {
		/* rax alone, the common case, written here: its state is the
		 * record's type, and its length (at most 10) a byte. */
		int narrow = (x->mask & CTRACE_RETVAL_NARROW) != 0;
		uint8_t *q = reg_field(rec + 3, rax, narrow);
		rec[2] = (uint8_t)(q - (rec + 3));
		record_close(s, rec,
			     narrow ? CTRACE_REC_RETVAL_INT
				    : CTRACE_REC_RETVAL_WORD,
			     q);
		return;
	}
	if (machine)
		machine_out(&m, out);
	/* Not the program's value: the record says not filled (state 0),
	 * as for a function that left another way, which it will. */
	put_general(s, x, rec, ok ? x->mask : 0, out);
}

#endif

size_t ctrace__retread_payload_max(uint8_t mask, uint8_t mem)
{
	size_t xmm = (mask & CTRACE_RETVAL_NARROW) ? 8 : 16;
	return 1 + ((mask & CTRACE_RETVAL_R0) ? 10 : 0) +
	       ((mask & CTRACE_RETVAL_R1) ? 10 : 0) +
	       ((mask & CTRACE_RETVAL_XMM0) ? xmm : 0) +
	       ((mask & CTRACE_RETVAL_XMM1) ? xmm : 0) +
	       ((mask & CTRACE_RETVAL_MEM) ? CTRACE_RETVAL_MEM_HEAD + mem : 0);
}

#if !defined(__x86_64__) /* i386: no `exit` line is read (plan.c), the trampoline serves */

uint32_t ctrace__retread_reads(const struct ctrace__plan_op *ops, size_t n)
{
	(void)ops, (void)n;
	return 0;
}

int ctrace__retread_run(const struct ctrace__plan_op *ops, size_t n,
			uint32_t reads, const struct ctrace__regs *r,
			uint64_t out[CTRACE_RETREAD_OUT])
{
	(void)ops, (void)n, (void)reads, (void)r;
	memset(out, 0, CTRACE_RETREAD_OUT * sizeof *out);
	return 0;
}

void ctrace__retread_put(struct ctrace__stream *s,
			 const struct ctrace__plan_exit *x,
			 const struct ctrace__regs *r)
{
	(void)s, (void)x, (void)r;
}

#endif
