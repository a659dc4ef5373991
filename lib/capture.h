/* capture.h -- arguments and return values: what the entry stub, the
 * return trampoline and the policy path share.
 *
 * With CTRACE_ARGS or CTRACE_RETVAL set, __cyg_profile_func_enter (an asm
 * stub, arch/<cpu>/hooks.S) saves the callee-saved registers, the stack
 * pointer and its return address before any C code can change them, and
 * calls ctrace__hook_enter_regs.  For the functions selected, the policy
 * path then
 *   - writes an ARGS record after the ENTRY: the registers and a window of
 *     stack memory (the symbolizer finds the arguments in them with DWARF);
 *   - replaces the function's return address with ctrace__retval_trampoline
 *     (retval.c), which records the return registers into a RETVAL record
 *     reserved by the exit hook, and jumps to the real return address.
 * Without either variable the stub costs one compare and one jump.
 */
#ifndef CTRACE_CAPTURE_H
#define CTRACE_CAPTURE_H

#include "ctrace_plan.h"
#include "internal.h"

/* Registers saved by the entry stub; the layout is shared with hooks.S. */
struct ctrace__regs {
#if defined(__x86_64__)
	uintptr_t rbx, rbp, r12, r13, r14, r15;
#define CTRACE_NREGS 6
#else
	uintptr_t ebx, esi, edi, ebp;
#define CTRACE_NREGS 4
#endif
	uintptr_t sp; /* the stub's CFA: the function's stack pointer */
	uintptr_t pc; /* the stub's return address, in the function */
};

#if defined(__x86_64__)
#define CTRACE_REGS_FP(r) ((r)->rbp)
#else
#define CTRACE_REGS_FP(r) ((r)->ebp)
#endif

/* What the trampoline saved; the layout is shared with retval.S. */
struct ctrace__retregs {
#if defined(__x86_64__)
	uint64_t rax, rdx;
	uint8_t xmm0[16], xmm1[16];
	uint8_t st0[16];
	uint64_t st0_valid;
	uint64_t sp; /* stack pointer after the function's ret */
#else
	uint32_t eax, edx;
	uint8_t st0[12];
	uint32_t st0_valid;
	uint32_t sp;
#endif
};

/* ---------------------------------------------------------------------------
 * The capture plan (plan.c)
 * ------------------------------------------------------------------------ */

/* The grammar and limits are ctrace_plan.h's.  Bases of plan offsets,
 * as the table keeps them: */
#define CTRACE_PLAN_CFA 0
#define CTRACE_PLAN_SP 1
#define CTRACE_PLAN_REG 2 /* a string's pointer in a saved register */

struct ctrace__plan_mem {
	uint8_t base;
	int32_t off;
	uint32_t len;
};

/* Where a string argument's pointer is: a register (off is its DWARF
 * number) or a stack slot. */
struct ctrace__plan_str {
	uint8_t base;
	int32_t off;
};

/* A pc line's memory and string items, for the few lines that have any:
 * apart from its entry, so that an entry is one cache line. */
struct ctrace__plan_extra {
	struct ctrace__plan_mem mem[CTRACE_PLAN_MAX_MEM];
	struct ctrace__plan_str str[CTRACE_PLAN_MAX_STR];
};

/* What to save at one call of the entry hook, keyed by its return
 * address (runtime).  One cache line: an entry hook's lookup reads one
 * (a C++ program's hot functions are a few hundred of them, more than
 * the first-level cache holds), and a C++ program's table of 8,700
 * lines took 1 MB instead of 2.4. */
struct ctrace__plan_entry {
	uintptr_t pc;
	uintptr_t fde;     /* start of the function whose body holds pc */
	int32_t cfa_off;
	uint8_t cfa_reg;   /* DWARF number + 1 */
	uint8_t wide;      /* also the generic windows */
	uint8_t nmem, nstr;
	/* The return value's registers (CTRACE_RETVAL_* bits), when the plan
	 * knows them (ret_known); none: the function returns nothing. */
	uint8_t ret_known, ret_mask, ret_mem;
	/* Every exit of the function at fde has a ctrace__plan_exit: its
	 * return value is read there, no trampoline is set. */
	uint8_t ret_read;
	/* The saved registers to record, by DWARF number (regs_known; else
	 * all of them). */
	uint8_t regs_known;
	uint8_t regs_sel; /* the same as bits of struct ctrace__regs' order */
	/* Derived at set-up: the ARGS record is the short form with
	 * registers alone (the common case), and the size of the compact
	 * RETVAL payload. */
	uint8_t regs_only;
	uint8_t ret_len;
	uint32_t regs;
	/* The flags of the function whose entry hook this is, as an exit's
	 * slot keeps them (ctrace__plan_entry_flags, event.h). */
	_Atomic uintptr_t flags_seen;
	/* nmem memory items and nstr strings (NULL: none). */
	const struct ctrace__plan_extra *extra;
} __attribute__((aligned(64)));
#if UINTPTR_MAX > 0xffffffffu
_Static_assert(sizeof(struct ctrace__plan_entry) == 64,
	       "a plan entry is one cache line");
#endif

/* One operation of the code after a call of the exit hook (a plan `exit`
 * line's `op`, include/ctrace_plan.h), checked as the line is read. */
struct ctrace__plan_op {
	uint8_t op;   /* CTRACE_EOP_* */
	uint8_t dsz, ssz;
	uint8_t d;    /* 0-15 general registers, 16-31 xmm0-15 */
	int8_t s;     /* the same, or CTRACE_EOP_MEM, CTRACE_EOP_IMM */
	uint8_t base; /* CTRACE_EOP_NO_BASE: none (lea) */
	uint8_t sx;   /* 64 - 8 * ssz: a shift that sign-extends S */
	uint8_t how;  /* the interpreter's handler (retread.c): op, or a
		       * faster form of it */
	int64_t arg;
	/* A write of dsz bytes to D, as x86 does it: D = (D & keep) |
	 * (value & put); and S's ssz low bytes (S & cut).  Set by
	 * ctrace__retread_prepare, so that no operation tests a size. */
	uint64_t keep, put, cut;
};
/* Fills an operation's derived fields (plan.c, as it reads the line).
 * An exit's list ends with an operation of op CTRACE__EOP_END, prepared
 * too: the interpreter stops there, counting nothing. */
CTRACE_HIDDEN void ctrace__retread_prepare(struct ctrace__plan_op *o);
#define CTRACE__EOP_END 0
#define CTRACE_EOP_NO_BASE 0xff

/* Where the return value of a function is at one call of its exit hook,
 * keyed by the hook's return address (runtime): its operations are
 * ops[0 .. nops). */
struct ctrace__plan_exit {
	uintptr_t pc;
	uintptr_t fn; /* the function whose own exit it is */
	const struct ctrace__plan_op *ops; /* and the CTRACE__EOP_END after */
	uint32_t reads; /* ctrace__retread_reads(): zeroed before a run */
	uint8_t nops;
	uint8_t mask, mem; /* as a plan entry's ret_mask, ret_mem */
	uint8_t len;       /* the largest RETVAL_SHORT payload */
	uint8_t rx;        /* fn is read at all its exits (`rx`): its
			    * entries set no trampoline; else the line is
			    * not used (the trampoline's list keeps the
			    * frame) */
	/* fn's flags, and the flags table they were read from: its address
	 * (a mapping's, so page-aligned) | the flags; 0 none yet.  The
	 * exit hook then finds them without a second lookup
	 * (ctrace__plan_exit_flags). */
	_Atomic uintptr_t flags_seen;
};
#if defined(__x86_64__)
/* arch/x86_64/hooks.S finds an exit's slot itself: 48 bytes, pc first. */
_Static_assert(sizeof(struct ctrace__plan_exit) == 48 &&
		       offsetof(struct ctrace__plan_exit, pc) == 0,
	       "struct ctrace__plan_exit as hooks.S reads it");
#endif
/* The saved registers of a DWARF number mask, as bits in the order of
 * struct ctrace__regs (plan.c). */
CTRACE_HIDDEN uint8_t ctrace__plan_regs_select(uint32_t dwarf_mask);
/* The DWARF number of each register of struct ctrace__regs, in order. */
CTRACE_HIDDEN extern const uint8_t ctrace__plan_regnos[CTRACE_NREGS];
/* Reads CTRACE_PLAN (or PROGRAM.ctrace-plan) once, at set-up. */
CTRACE_HIDDEN void ctrace__plan_load(void);
/* 1 if the plan says the function at fn returns nothing (void). */
CTRACE_HIDDEN int ctrace__plan_returns_nothing(uintptr_t fn);
/* 1 if its return value is read at its exits (`rx`, and the exit stub on):
 * its entries set no trampoline. */
CTRACE_HIDDEN int ctrace__plan_reads_return(uintptr_t fn);

/* The exit hook's table, the same way; NULL when the plan has none. */
CTRACE_HIDDEN extern const struct ctrace__plan_exit *ctrace__plan_exits;
CTRACE_HIDDEN extern size_t ctrace__plan_exit_mask;

/* The table, open addressing by PC; filled at set-up, read-only after
 * but for the flags its slots keep (flags_seen). */
CTRACE_HIDDEN extern const struct ctrace__plan_entry *ctrace__plan_slots;
CTRACE_HIDDEN extern size_t ctrace__plan_mask;

static inline size_t ctrace__plan_hash(uintptr_t pc)
{
	return (size_t)(((uint64_t)pc * 0x9e3779b97f4a7c15ull) >> 40);
}

static inline size_t ctrace__plan_slot_of(uintptr_t pc)
{
	return ctrace__plan_hash(pc) & ctrace__plan_mask;
}

/* The plan for a hook return address, or NULL.  Inline: every captured
 * call looks it up. */
static inline const struct ctrace__plan_entry *ctrace__plan_find(uintptr_t pc)
{
	const struct ctrace__plan_entry *slots = ctrace__plan_slots;
	if (slots == NULL)
		return NULL;
	for (size_t i = ctrace__plan_slot_of(pc);;
	     i = (i + 1) & ctrace__plan_mask) {
		if (slots[i].pc == pc)
			return &slots[i];
		if (slots[i].pc == 0)
			return NULL;
	}
}

/* Where the return value is at the exit hook whose return address is
 * pc, or NULL. */
static inline const struct ctrace__plan_exit *
ctrace__plan_find_exit(uintptr_t pc)
{
	const struct ctrace__plan_exit *slots = ctrace__plan_exits;
	if (slots == NULL)
		return NULL;
	for (size_t i = ctrace__plan_hash(pc) & ctrace__plan_exit_mask;;
	     i = (i + 1) & ctrace__plan_exit_mask) {
		if (slots[i].pc == pc)
			return &slots[i];
		if (slots[i].pc == 0)
			return NULL;
	}
}

/* ---------------------------------------------------------------------------
 * Capture (capture.c)
 * ------------------------------------------------------------------------ */

/* Reads CTRACE_ARGS, CTRACE_RETVAL and CTRACE_STRLEN (once). */
CTRACE_HIDDEN void ctrace__capture_setup(void);

/* i386: the stub passes all three in registers. */
#if defined(__i386__)
#define CTRACE_HOOK_ABI __attribute__((regparm(3)))
#else
#define CTRACE_HOOK_ABI
#endif
CTRACE_HIDDEN CTRACE_HOOK_ABI void ctrace__hook_enter(void *fn, void *site,
						      uintptr_t fp);
CTRACE_HIDDEN void ctrace__hook_enter_regs(void *fn, void *site,
					   const struct ctrace__regs *r);
CTRACE_HIDDEN void ctrace__hook_exit(void *fn, void *site);
/* x: the exit table's slot of r->pc that the stub found, or NULL for
 * one it did not (looked up here). */
CTRACE_HIDDEN void ctrace__hook_exit_regs(void *fn, void *site,
					  const struct ctrace__regs *r,
					  const struct ctrace__plan_exit *x);
/* The general paths of an exit whose return value x says how to read
 * from r (recorded with its RETVAL record, filled now), and of an entry
 * whose registers r were saved: the hooks try their short paths first
 * (event.h). */
CTRACE_HIDDEN void ctrace__policy_exit_read(struct ctrace__thread *t,
					    uintptr_t fn, uintptr_t site,
					    uintptr_t sp,
					    const struct ctrace__plan_exit *x,
					    const struct ctrace__regs *r);
CTRACE_HIDDEN void ctrace__policy_enter_regs(struct ctrace__thread *t,
					     uintptr_t fn, uintptr_t site,
					     uintptr_t sp,
					     const struct ctrace__regs *r);

/* The ARGS record of a call whose plan entry names registers alone
 * (regs_only), its stack pointer aligned: ARGS_REGS, a few stores and
 * no memory read, right after the call's ENTRY.  Room for
 * CTRACE_ARGS_REGS_MAX bytes is the caller's to make.  Inline (here, with
 * the registers' encoding the general path shares, capture.c): the
 * captured call's short path (policy.c) writes it, and a call cost it
 * a frame of six saved registers. */
/* How many bytes a value takes as an sleb, in order: the bits that
 * differ from its sign. */
#define SLEB_MAGNITUDE(v)                                                    \
	((uintptr_t)((v) ^ ((v) >> (sizeof(intptr_t) * 8 - 1))))

_Static_assert(CTRACE_NREGS <= sizeof ((struct ctrace__stream *)0)->arg_base /
				       sizeof(uintptr_t),
	       "a base for every register");

/* One register of a short form, x its value, regno its DWARF number,
 * written the shortest of four ways: as it is (small integers), minus
 * the stack pointer sp (a pointer into the stack, flag 0x80 on its
 * number), minus the previous register of the record, prev (flag 0x40:
 * two pointers into one object or array, as many functions take; not
 * for the record's first, first set), or minus its own value in the
 * chunk's previous record that held it, *base, whichever function's
 * (both flags: a heap pointer passed again one element on, as a sort's
 * comparator gets it, differs from the last in a few low bits).  A heap
 * pointer takes 7 bytes as it is, 1 or 2 so; the one-byte cases are
 * written straight.  *base moves on to x; on: it may be used (a record
 * abandoned half-written turns the bases off, event.c). */
static inline __attribute__((always_inline)) uint8_t *
ctrace__capture_short_reg(uint8_t *p, uint8_t regno, uintptr_t x,
			  uintptr_t sp, uintptr_t prev, int first,
			  uintptr_t *base, int on)
{
	intptr_t v = (intptr_t)x;
	intptr_t db = (intptr_t)(x - *base);
	*base = x;
	if ((uintptr_t)(v + 64) < 128) {
		p[0] = regno;
		p[1] = (uint8_t)(v & 0x7f);
		return p + 2;
	}
	if (on && (uintptr_t)(db + 64) < 128) {
		p[0] = regno | CTRACE_ARGS_SHORT_REL_BASE;
		p[1] = (uint8_t)(db & 0x7f);
		return p + 2;
	}
	/* The shortest of the other three. */
	uintptr_t m = SLEB_MAGNITUDE(v);
	uint8_t how = 0;
	intptr_t d = (intptr_t)(x - sp);
	if (SLEB_MAGNITUDE(d) < m) {
		m = SLEB_MAGNITUDE(d);
		how = CTRACE_ARGS_SHORT_REL_SP;
		v = d;
	}
	d = (intptr_t)(x - prev);
	if (!first && SLEB_MAGNITUDE(d) < m) {
		m = SLEB_MAGNITUDE(d);
		how = CTRACE_ARGS_SHORT_REL_PREV;
		v = d;
	}
	if (on && SLEB_MAGNITUDE(db) < m) {
		how = CTRACE_ARGS_SHORT_REL_BASE;
		v = db;
	}
	*p++ = regno | how;
	return ctrace__sleb_put_word(p, v);
}

/* The short form's registers: a count byte, which also carries bits of
 * the stack pointer in words (the reader checks its own against them),
 * then the registers of sel (ctrace__capture_short_reg).  base: the
 * stream's bases, as struct ctrace__regs orders them; on: they may be
 * used. */
static inline uint8_t *
ctrace__capture_short_regs(uint8_t *p, const struct ctrace__regs *r,
				      unsigned sel, uintptr_t *base, int on)
{
	const uintptr_t *regs = (const uintptr_t *)r;
	uintptr_t sp = r->sp, prev = 0;
	uint8_t *count = p++;
	unsigned n = 0; /* in a register: not read back from the record */
	for (; sel != 0; sel &= sel - 1, n++) {
		int i = __builtin_ctz(sel);
		uintptr_t x = regs[i];
		p = ctrace__capture_short_reg(p, ctrace__plan_regnos[i], x, sp,
					      prev, n == 0, &base[i], on);
		prev = x;
	}
	*count = (uint8_t)(n | ((sp / sizeof(uintptr_t)) & CTRACE_ARGS_SHORT_SP_MASK)
				       << CTRACE_ARGS_SHORT_COUNT_BITS);
	return p;
}

/* The short form for a plan that names registers alone, the common
 * case: no memory to read, and a payload always under 128 bytes (its
 * length fits the one byte).  Without the pc: the ENTRY's pair has it
 * (its hook, the same return address). */
static inline __attribute__((always_inline)) void
ctrace__capture_args_regs(struct ctrace__stream *s,
			  const struct ctrace__regs *r,
			  const struct ctrace__plan_entry *e)
{
	uint8_t *rec = s->cur;
	uint8_t *p = ctrace__capture_short_regs(rec + 3, r, e->regs_sel,
				    s->arg_base, !s->arg_base_off);
	rec[1] = CTRACE_REC_ARGS_REGS;
	rec[2] = (uint8_t)(p - (rec + 3));
	ctrace__barrier();
	rec[0] = CTRACE_TAG_EXTENDED;
	s->cur = p;
}

/* An ENTRY whose registers follow it inline (format 6: the NEW of its
 * pair has CTRACE_NEW_KEY_ARGS) belongs to a pair of its own: the pair
 * table (emit.h) holds its hook with this bit, which no user-space
 * address has, so that the same call recorded otherwise (its values not
 * captured, or in a record of their own) names another pair and is
 * never followed by bytes a reader would take for registers.  The hash
 * and the NEW's hook leave the bit out.  64-bit only: on i386 (no bit to
 * spare) every ARGS_REGS has its record header. */
#if UINTPTR_MAX > 0xffffffffu
#define CTRACE__PAIR_ARGS ((uintptr_t)1 << 63)
#else
#define CTRACE__PAIR_ARGS ((uintptr_t)0)
#endif

/* Format 6: the same payload without its record header, written inside
 * its ENTRY's group (emit.h), before the ENTRY's tag is stored: the
 * ENTRY's pair says it follows (CTRACE_NEW_KEY_ARGS; the pair bit
 * CTRACE__PAIR_ARGS), three bytes less a call.  What the ENTRY's
 * writer needs: the saved registers and which of them. */
struct ctrace__args_inline {
	const struct ctrace__regs *r;
	unsigned sel;
};

static inline __attribute__((always_inline)) uint8_t *
ctrace__args_inline_put(struct ctrace__stream *s, uint8_t *p,
			const struct ctrace__args_inline *a)
{
	return ctrace__capture_short_regs(p, a->r, a->sel, s->arg_base,
					  !s->arg_base_off);
}

/* Whether a call whose plan entry is e, its registers r, has its
 * registers written inline: a plan naming registers alone, the stack
 * pointer aligned (the count byte carries it in words), and a pair bit
 * to mark it with (64-bit). */
static inline __attribute__((always_inline)) int
ctrace__args_inline_ok(const struct ctrace__plan_entry *e,
		       const struct ctrace__regs *r)
{
	return CTRACE__PAIR_ARGS != 0 && e != NULL && e->regs_only &&
	       (r->sp & (sizeof(uintptr_t) - 1)) == 0;
}

/* Its largest size: the header, the count byte, and each register's
 * number and sleb. */
#define CTRACE_ARGS_REGS_MAX (3 + 1 + CTRACE_NREGS * 11)

/* The largest ARGS record, extended header included. */
CTRACE_HIDDEN extern size_t ctrace__args_max_bytes;
/* Where an entry's values lie: the function's plan entry (NULL: none),
 * its CFA (0: unknown) and whether the CFI's code is the function's own
 * body.  Found before the ENTRY's time is read (the thread's first
 * capture maps its lists, a function without a plan has its CFI read):
 * the call's duration never holds that work. */
struct ctrace__capture_where {
	const struct ctrace__plan_entry *plan;
	uintptr_t cfa;
	int own_body;
	int ready;
	/* The capture does work a call's duration must not hold, which
	 * the caller times (pause_put, emit.h): the thread's first, the
	 * CFI read for a function the plan does not name, strings read
	 * through the kernel, the generic windows.  A plan's registers,
	 * its stack bytes (at most CTRACE_PLAN_MAX_BYTES) and a return
	 * address patched are work every call of the function does alike,
	 * as the hooks' own: timing them would cost more than it corrects
	 * (doc/recording.md). */
	int timed;
};
CTRACE_HIDDEN void ctrace__capture_locate(struct ctrace__capture_where *w,
					  uintptr_t fn,
					  const struct ctrace__regs *r);
/* Writes the ARGS record (room checked by the caller) and, with
 * CTRACE_F_RETVAL, patches the return address; `w` from
 * ctrace__capture_locate. */
CTRACE_HIDDEN void ctrace__capture_entry(struct ctrace__stream *s,
					 uint8_t flags, uintptr_t fn,
					 uintptr_t site,
					 const struct ctrace__regs *r,
					 const struct ctrace__capture_where *w);

/* ---------------------------------------------------------------------------
 * Library calls (plt.c): the values at a call through a redirected slot
 * ------------------------------------------------------------------------ */

/* What the recorder saves at a library call, from the prototype table
 * (protos.c): on x86-64 the integer and floating-point argument
 * registers the function takes, which integer ones point to strings,
 * and with stack the first CTRACE_LIBARGS_STACK bytes of its stack
 * arguments; on i386 (nfp 0, stack 0) the words of its arguments on the
 * stack, and which words point to strings.  retmask: the return
 * registers (CTRACE_RETVAL_R0...) to record; on i386 always R0, R1 and
 * ST0 (st(0) only when it held a value); with CTRACE_RETVAL_MEM, the
 * memory r0 points to when it lies in the stack. */
struct ctrace__libcall_how {
	uint8_t nint, nfp, strmask, retmask, stack;
};
#define CTRACE_LIBARGS_STACK 32 /* two long doubles */

/* What the PLT trampoline saved.  x86-64: at an entry the argument
 * registers (rdi, rsi, rdx, rcx, r8, r9) and xmm0-7, 16 bytes apart; at
 * an exit rax and rdx in gpr[0] and gpr[1], xmm0 and xmm1, st(0)'s 10
 * bytes (NULL when it held no value) and st(1)'s (NULL unless both held
 * one: a _Complex long double).  i386: at an entry gpr the arguments on
 * the stack; at an exit eax and edx in gpr[0] and gpr[1], and st(0)'s
 * 10 bytes (NULL when it held no value); st1 NULL (i386 returns a
 * _Complex long double in memory). */
struct ctrace__libvals {
	const uintptr_t *gpr;
	const uint8_t *xmm;
	const uint8_t *st0;
	const uint8_t *st1;
	struct ctrace__libcall_how how;
};

/* The thread's capture state, made before an entry's time is read. */
CTRACE_HIDDEN void ctrace__capture_lib_ready(void);
/* Writes the ARGS record of a library call's ENTRY, fn its GOT slot
 * (the ENTRY's function), when the chunk has room for
 * ctrace__args_max_bytes: its argument registers and the text of its
 * string arguments, read now.  x86-64 writes the short form, ARGS_LIB;
 * i386 the full ARGS. */
CTRACE_HIDDEN void ctrace__capture_lib_args(struct ctrace__stream *s,
					    uintptr_t fn, uintptr_t site,
					    uintptr_t sp,
					    const struct ctrace__libvals *v);
/* Writes the filled RETVAL record of a library call's EXIT, of at most
 * CTRACE_LIBRET_BYTES (room checked by the caller): the registers of
 * v->how.retmask (x86-64: none for a void function, eax or rax alone as
 * a RETVAL_INT or RETVAL_WORD, xmm0's low half, or rax, rdx, xmm0, xmm1
 * and st(0); i386 eax, edx and st(0)), st(0) when it held a value (x86-64: and
 * st(1) when it did too, in a RETVAL_ST1 record), and with
 * CTRACE_RETVAL_MEM up to CTRACE_LIBRET_MEM bytes at r0 when they lie
 * in the stack between sp (after the function's ret) and its top. */
CTRACE_HIDDEN void ctrace__capture_lib_ret(struct ctrace__stream *s,
					   const struct ctrace__libvals *v,
					   uintptr_t sp);
#define CTRACE_LIBRET_MEM 32
#if defined(__x86_64__)
#define CTRACE_LIBRET_BYTES                                                  \
	(3 + 1 + 8 + 8 + 16 + 16 + 10 + CTRACE_RETVAL_MEM_HEAD +             \
	 CTRACE_LIBRET_MEM + CTRACE_RETVAL_ST1_BYTES)
#else
#define CTRACE_LIBRET_BYTES                                                  \
	(3 + 1 + 8 + 8 + 10 + CTRACE_RETVAL_MEM_HEAD + CTRACE_LIBRET_MEM)
#endif

CTRACE_HIDDEN void ctrace__policy_lib_enter(struct ctrace__thread *t,
					    uintptr_t fn, uintptr_t site,
					    uintptr_t sp,
					    const struct ctrace__libvals *v);
CTRACE_HIDDEN void ctrace__policy_lib_exit(struct ctrace__thread *t,
					   uintptr_t fn, uintptr_t site,
					   uintptr_t sp,
					   const struct ctrace__libvals *v);
#endif /* CTRACE_CAPTURE_H */
