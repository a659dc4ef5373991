/* capture.c -- arguments and return values (CTRACE_ARGS, CTRACE_RETVAL).
 *
 * The recorder knows nothing of types or parameters: it saves machine
 * state, and the symbolizer finds the values in it with the program's
 * DWARF.  At entry that is the callee-saved registers and the stack around
 * the function's frame (where optimized code keeps its arguments across
 * the call to the hook, and where -O0 code spilled them).  At return it is
 * the return registers, caught by a trampoline: the exit hook runs before
 * an optimized function has computed its result, so the value is only
 * certain once the function has returned.
 *
 * The frame's canonical frame address (CFA) comes from the function's CFI
 * (cfi.c), once per call site: the answer is cached per thread, keyed by
 * PC.  The return address lies just
 * below the CFA; the recorder checks it holds the call site the hook was
 * given before replacing it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "capture.h"
#include "state.h"

static size_t string_max = 64; /* CTRACE_STRLEN */
#define STRING_MAX_LIMIT 1024
#define STRING_BUDGET 1024 /* string bytes per ARGS record */
static void compute_args_max(void);

#define PTR_SIZE sizeof(uintptr_t)
#if defined(__x86_64__)
static const uint8_t saved_regnos[CTRACE_NREGS] = CTRACE_SAVED_REGS_X86_64;
#define RET0 rax
#define RET1 rdx
#else
#define RET0 eax
#define RET1 edx
static const uint8_t saved_regnos[CTRACE_NREGS] = CTRACE_SAVED_REGS_I386;
#endif

/* Stack windows: below the frame (spills, -O0 slots) and above it (stack
 * arguments, the return address). */
#define WINDOW_BELOW 256
#define WINDOW_ABOVE 128
#define WINDOW_JOINED 640
#define WINDOW_NO_CFA 512

/* ---------------------------------------------------------------------------
 * Per-thread state
 * ------------------------------------------------------------------------ */

/* One patched return address. */
struct ctrace__tramp_entry {
	uintptr_t slot;     /* where the return address lives */
	uintptr_t real;     /* the real return address */
	uintptr_t fn;
	uint8_t *rec;       /* the reserved RETVAL payload, or NULL */
	uint64_t chunk;     /* the chunk rec lies in */
	uint8_t mask;       /* CTRACE_RETVAL_* to save; 0: the full form */
	uint8_t mem;        /* bytes at r0 with CTRACE_RETVAL_MEM */
	uint8_t len;        /* the RETVAL payload's size, if compact */
	uint8_t restored;   /* its real return address put back for an
			     * unwinder: patched again at its exit */
};

/* Whether the trampoline must look at st0 (read by hooks.S): set by the
 * exit hook for the frame about to return. */
__thread uint8_t ctrace__tramp_st0 __attribute__((tls_model("initial-exec")));

#define CACHE_SIZE 1024 /* entries, a power of two */
struct cfa_rule {
	uintptr_t pc;
	int32_t offset;
	uint8_t reg;      /* 0: unknown, else CTRACE_DW_SP or CTRACE_DW_FP + 1 */
	uint8_t own_body; /* pc lies in fn's own FDE: not an inlined copy */
	uintptr_t fn;
};

#define TRAMP_MAX 16384 /* patched frames per thread */

struct cap_thread {
	struct ctrace__tramp_entry *stack;
	size_t depth;
	struct cfa_rule *cache;
	int failed; /* no memory: capture nothing more on this thread */
	/* The top of this thread's stack (0: unknown): memory from the stack
	 * pointer up to it is mapped. */
	uintptr_t stack_top;
	/* The highest return address slot of a frame left unpatched because
	 * the list was full (0: none): the exits at or below it may be such
	 * frames', whose RETVAL record says so. */
	uintptr_t refused_top;
};

/* Set by the dynamic loader: the initial thread's stack pointer at
 * start-up, below argv and the environment. */
extern void *__libc_stack_end;

static uintptr_t find_stack_top(void)
{
	if (ctrace__state_tls.main.tid == (uint32_t)getpid())
		return ((uintptr_t)__libc_stack_end + 4095) & ~(uintptr_t)4095;
	/* glibc puts a thread's descriptor (and its static TLS) at the top
	 * of its stack block, be it allocated or given by the program. */
	return (uintptr_t)pthread_self();
}

static __thread struct cap_thread cap
	__attribute__((tls_model("initial-exec")));

static int thread_ready(struct cap_thread *c)
{
	if (c->stack != NULL)
		return 1;
	if (c->failed)
		return 0;
	size_t bytes = TRAMP_MAX * sizeof *c->stack +
		       CACHE_SIZE * sizeof *c->cache;
	int saved_errno = errno;
	uint8_t *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	errno = saved_errno;
	if (m == MAP_FAILED) {
		c->failed = 1;
		return 0;
	}
	c->cache = (struct cfa_rule *)(m + TRAMP_MAX * sizeof *c->stack);
	c->stack_top = find_stack_top();
	ctrace__barrier();
	c->stack = (struct ctrace__tramp_entry *)m;
	return 1;
}

/* ---------------------------------------------------------------------------
 * Set-up
 * ------------------------------------------------------------------------ */

void ctrace__capture_setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	const char *a = ctrace__config_list(CTRACE_LIST_ARGS);
	const char *r = ctrace__config_list(CTRACE_LIST_RETVAL);
	string_max = ctrace__config_string_max(string_max, STRING_MAX_LIMIT);
	compute_args_max();
	if ((a != NULL && *a) || (r != NULL && *r)) {
		/* The plan also knows each function's return registers. */
		ctrace__state_capture_on = 1;
		ctrace__plan_load();
	}
}

/* Before main, so main's own arguments are captured; constructors of the
 * program that run earlier are caught by the hooks' start-up path. */
__attribute__((constructor(101))) static void capture_constructor(void)
{
	ctrace__capture_setup();
}

static const struct cfa_rule *lookup_rule(struct cap_thread *c, uintptr_t pc,
					  uintptr_t fn)
{
	struct cfa_rule *e =
		&c->cache[((pc >> 1) ^ (pc >> 11)) & (CACHE_SIZE - 1)];
	if (e->pc == pc && e->fn == fn)
		return e;
	struct ctrace__cfa st;
	uintptr_t begin = 0;
	/* The key is written last, after the rule: a jump out of a signal
	 * handler that interrupted this (inside the loader's lookup, say)
	 * leaves an entry that matches no address, never one address's key
	 * with another's rule. */
	e->pc = 0;
	ctrace__barrier();
	int saved_errno = errno; /* the loader's lookup */
	int found = ctrace__cfa_at(pc, &st, &begin) == 0;
	errno = saved_errno;
	if (found) {
		e->reg = (uint8_t)(st.reg + 1);
		e->offset = st.offset;
		e->own_body = begin == fn;
	} else {
		e->reg = 0;
		e->own_body = 0;
	}
	e->fn = fn;
	ctrace__barrier();
	e->pc = pc;
	return e;
}

static uintptr_t cfa_of(const struct cfa_rule *rule,
			const struct ctrace__regs *r)
{
	if (rule->reg == CTRACE_DW_SP + 1)
		return r->sp + (uintptr_t)(intptr_t)rule->offset;
#if defined(__x86_64__)
	if (rule->reg == CTRACE_DW_FP + 1)
		return r->rbp + (uintptr_t)(intptr_t)rule->offset;
#else
	if (rule->reg == CTRACE_DW_FP + 1)
		return r->ebp + (uintptr_t)(intptr_t)rule->offset;
#endif
	return 0;
}

/* ---------------------------------------------------------------------------
 * The ARGS record
 * ------------------------------------------------------------------------ */

/* Block headers take up to 14 bytes in the short form. */
#define ARGS_MAX(strings)                                                    \
	(4 + CTRACE_ARGS_REGS + CTRACE_NREGS * CTRACE_ARGS_REG_BYTES +      \
	 2 * 14 + WINDOW_JOINED +                                            \
	 CTRACE_PLAN_MAX_MEM * 14 + CTRACE_PLAN_MAX_BYTES +                  \
	 CTRACE_PLAN_MAX_STR * 14 + (strings))

size_t ctrace__args_max_bytes = ARGS_MAX(STRING_BUDGET);

static void compute_args_max(void)
{
	size_t strings = CTRACE_PLAN_MAX_STR * string_max;
	if (strings > STRING_BUDGET)
		strings = STRING_BUDGET;
	ctrace__args_max_bytes = ARGS_MAX(strings);
}

/* A block's address: a u64, or in the short form (base != 0) an sleb
 * relative to base, the stack pointer. */
static uint8_t *put_address(uint8_t *p, uintptr_t addr, uintptr_t base)
{
	if (base != 0)
		return ctrace__sleb_put_word(p, (intptr_t)(addr - base));
	uint64_t a = addr;
	memcpy(p, &a, 8);
	return p + 8;
}

static uint8_t *put_block_header(uint8_t *p, uintptr_t addr, size_t len,
				 uintptr_t base)
{
	p = put_address(p, addr, base);
	return ctrace__uleb_put_word(p, len);
}

/* Stack memory [start, end), cut to what is known to be mapped: from the
 * stack pointer up to the top of the stack. */
static uint8_t *put_block(uint8_t *p, uintptr_t start, uintptr_t end,
			  uintptr_t sp, uintptr_t top, uintptr_t base)
{
	if (start < sp)
		start = sp;
	if (end > top)
		end = top;
	if (start >= end)
		return p;
	p = put_block_header(p, start, end - start, base);
	memcpy(p, (const void *)start, end - start);
	return p + (end - start);
}

/* How far up stack memory may be read.  On a stack whose top is not
 * known (sigaltstack, a coroutine's), the page holding the CFA's return
 * address is mapped, and nothing above it is assumed. */
static uintptr_t stack_limit(const struct cap_thread *c, uintptr_t sp,
			     uintptr_t cfa)
{
	if (c->stack_top > sp && c->stack_top - sp < ((uintptr_t)1 << 28))
		return c->stack_top;
	uintptr_t known = cfa > sp ? cfa : sp + 1;
	return (known + 4095) & ~(uintptr_t)4095;
}

/* Reads the string at a into out, at most max bytes: its length with the
 * terminator, max when it is longer, or 0 when a is not readable.  Never
 * faults: only the caller's own frame, which is mapped while it runs, is
 * read directly; anything else, even the executable's read-only data
 * (which the program may mprotect PROT_NONE), is read by the kernel. */
static size_t read_string(uintptr_t a, uint8_t *out, size_t max,
			  uintptr_t sp, uintptr_t top)
{
	uintptr_t limit = 0;
	if (a >= sp && a < top)
		limit = top;
	size_t n;
	if (limit != 0) {
		n = limit - a < max ? limit - a : max;
		memcpy(out, (const void *)a, n);
	} else {
		/* Split at the page boundary: the kernel copies whole iovecs
		 * only, and the string may end just before an unmapped page. */
		uintptr_t page = (a | 4095) + 1;
		struct iovec local = {out, max};
		struct iovec remote[2] = {{(void *)a, max}, {NULL, 0}};
		int nr = 1;
		if (page - a < max) {
			remote[0].iov_len = page - a;
			remote[1].iov_base = (void *)page;
			remote[1].iov_len = max - (page - a);
			nr = 2;
		}
		int saved_errno = errno;
		ssize_t got = syscall(SYS_process_vm_readv,
				      (long)ctrace__state_tls.main.tid, &local, 1L,
				      remote, (long)nr, 0L);
		errno = saved_errno;
		if (got <= 0)
			return 0;
		n = (size_t)got;
	}
	const uint8_t *z = memchr(out, '\0', n);
	size_t len = z != NULL ? (size_t)(z - out) + 1 : n;
	/* What lies past the record in the chunk must stay zero: readers
	 * stop at a zero tag. */
	memset(out + len, 0, n - len);
	return len;
}

uint8_t ctrace__regs_select(uint32_t dwarf_mask)
{
	uint8_t sel = 0;
	for (int i = 0; i < CTRACE_NREGS; i++)
		if (dwarf_mask & ((uint32_t)1 << saved_regnos[i]))
			sel |= (uint8_t)(1u << i);
	return sel;
}

static uintptr_t saved_register(const struct ctrace__regs *r, int regno)
{
	const uintptr_t *regs = (const uintptr_t *)r;
	for (int i = 0; i < CTRACE_NREGS; i++)
		if (saved_regnos[i] == regno)
			return regs[i];
	return 0;
}

/* The text of the string arguments the plan names.  A pointer that
 * cannot be read leaves an empty block at its address; NULL none.  With
 * CTRACE_STRLEN=0 no text is taken, so no block either: the pointers
 * show as addresses. */
static uint8_t *put_strings(uint8_t *p, const struct ctrace__plan_entry *e,
			    const struct ctrace__regs *r, uintptr_t cfa,
			    uintptr_t top, uintptr_t rel)
{
	size_t budget = string_max ? STRING_BUDGET : 0;
	for (int i = 0; i < e->nstr && budget > 0; i++) {
		const struct ctrace__plan_str *ps = &e->str[i];
		uintptr_t a;
		if (ps->base == CTRACE_PLAN_REG) {
			a = saved_register(r, ps->off);
		} else {
			uintptr_t base = ps->base == CTRACE_PLAN_CFA ? cfa
								     : r->sp;
			uintptr_t slot = base + (uintptr_t)(intptr_t)ps->off;
			if (base == 0 || slot < r->sp || slot + PTR_SIZE > top)
				continue;
			memcpy(&a, (const void *)slot, PTR_SIZE);
		}
		if (a == 0)
			continue;
		size_t max = string_max < budget ? string_max : budget;
		uint8_t *hdr = put_address(p, a, rel);
		/* The length fits in two bytes: write it after the text. */
		size_t n = read_string(a, hdr + 2, max, r->sp, top);
		ctrace__uleb_put2(hdr, n);
		p = hdr + 2 + n;
		budget -= n;
	}
	return p;
}

/* The short form's registers: a count byte, which also carries bits of
 * the stack pointer in words (the reader checks its own against them),
 * then the registers of sel: small integers in a byte or two, a pointer
 * into the stack relative to the stack pointer (flag 0x80 on its
 * number), another pointer relative to the previous register when it is
 * near it (flag 0x40): two pointers into one object or array, as many
 * functions take, cost 7 bytes and a few rather than 14. */
static inline uint8_t *put_short_regs(uint8_t *p, const struct ctrace__regs *r,
				      unsigned sel)
{
	const uintptr_t *regs = (const uintptr_t *)r;
	uintptr_t sp = r->sp, prev = 0;
	uint8_t *count = p++;
	unsigned n = 0; /* in a register: not read back from the record */
	for (; sel != 0; sel &= sel - 1, n++) {
		int i = __builtin_ctz(sel);
		uintptr_t x = regs[i];
		intptr_t v = (intptr_t)x, d = (intptr_t)(x - sp);
		intptr_t dp = (intptr_t)(x - prev);
		uint8_t regno = saved_regnos[i];
		if (v < -(1 << 20) || v >= (1 << 20)) {
			if (d >= -(1 << 20) && d < (1 << 20)) {
				regno |= CTRACE_ARGS_SHORT_REL_SP;
				v = d;
			} else if (n > 0 && dp >= -(1 << 27) &&
				   dp < (1 << 27)) {
				regno |= CTRACE_ARGS_SHORT_REL_PREV;
				v = dp;
			}
		}
		prev = x;
		*p++ = regno;
		p = ctrace__sleb_put_word(p, v);
	}
	*count = (uint8_t)(n | ((sp / PTR_SIZE) & CTRACE_ARGS_SHORT_SP_MASK)
				       << CTRACE_ARGS_SHORT_COUNT_BITS);
	return p;
}

/* The short form for a plan that names registers alone, the common
 * case: no memory to read, and a payload always under 128 bytes (its
 * length fits the one byte). */
static void write_args_regs(struct ctrace__stream *s,
			    const struct ctrace__regs *r, uintptr_t fn,
			    const struct ctrace__plan_entry *e)
{
	uint8_t *rec = s->cur;
	uint8_t *p = ctrace__sleb_put_word(rec + 3, (intptr_t)(r->pc - fn));
	p = put_short_regs(p, r, e->regs_sel);
	rec[1] = CTRACE_REC_ARGS_SHORT;
	rec[2] = (uint8_t)(p - (rec + 3));
	ctrace__barrier();
	rec[0] = CTRACE_TAG_EXTENDED;
	s->cur = p;
}

/* The ARGS record, or with a plan that names the registers (and so the
 * CFA rule, which the symbolizer reads in the same CFI) the short form:
 * no stack pointer (the ENTRY's), no CFA, addresses relative. */
static void write_args(struct ctrace__stream *s, const struct cap_thread *c,
		       const struct ctrace__regs *r, uintptr_t cfa,
		       uintptr_t fn, const struct ctrace__plan_entry *e)
{
	/* The reader has the ENTRY's stack pointer in words: exact for an
	 * aligned one, as compiled code keeps it. */
	int short_form = e != NULL && e->regs_known && !e->wide &&
			 (r->sp & (PTR_SIZE - 1)) == 0;
	uintptr_t rel = short_form ? r->sp : 0; /* addresses relative to */
	/* tag, type, length: one byte in the short form, moved up below if
	 * the payload is longer than 127 bytes; else two. */
	uint8_t *rec = s->cur, *p = rec + (short_form ? 3 : 4);
	uint8_t *payload = p;
	if (short_form) {
		p = ctrace__sleb_put_word(p, (intptr_t)(r->pc - fn));
		p = put_short_regs(p, r, e->regs_sel);
	} else {
		/* All the registers. */
		uint64_t pc = r->pc, sp = r->sp, cfa64 = cfa;
		memcpy(p + CTRACE_ARGS_PC, &pc, 8);
		memcpy(p + CTRACE_ARGS_SP, &sp, 8);
		memcpy(p + CTRACE_ARGS_CFA, &cfa64, 8);
		p[CTRACE_ARGS_NREGS] = CTRACE_NREGS;
		p += CTRACE_ARGS_REGS;
		const uintptr_t *regs = (const uintptr_t *)r;
		for (int i = 0; i < CTRACE_NREGS; i++) {
			uint64_t x = regs[i];
			p[0] = saved_regnos[i];
			memcpy(p + 1, &x, 8);
			p += CTRACE_ARGS_REG_BYTES;
		}
	}
	/* A plan of registers alone reads no memory. */
	if (e != NULL && !e->wide && e->nmem == 0 && e->nstr == 0)
		goto done;
	uintptr_t sp = r->sp, top = stack_limit(c, sp, cfa);
	if (e != NULL) {
		for (int i = 0; i < e->nmem; i++) {
			const struct ctrace__plan_mem *m = &e->mem[i];
			uintptr_t base = m->base == CTRACE_PLAN_CFA ? cfa : sp;
			if (base == 0)
				continue;
			uintptr_t a = base + (uintptr_t)(intptr_t)m->off;
			p = put_block(p, a, a + m->len, sp, top, rel);
		}
	}
	if (e == NULL || e->wide) {
		if (cfa > sp && cfa + WINDOW_ABOVE - sp <= WINDOW_JOINED) {
			p = put_block(p, sp, cfa + WINDOW_ABOVE, sp, top, 0);
		} else if (cfa > sp) {
			p = put_block(p, sp, sp + WINDOW_BELOW, sp, top, 0);
			uintptr_t lo = cfa - WINDOW_BELOW;
			if (lo < sp + WINDOW_BELOW)
				lo = sp + WINDOW_BELOW;
			p = put_block(p, lo, cfa + WINDOW_ABOVE, sp, top, 0);
		} else {
			p = put_block(p, sp, sp + WINDOW_NO_CFA, sp, top, 0);
		}
	}
	if (e != NULL && e->nstr)
		p = put_strings(p, e, r, cfa, top, rel);
done:;
	size_t len = (size_t)(p - payload);
	if (short_form && len < 0x80) {
		rec[2] = (uint8_t)len;
	} else {
		if (short_form) {
			memmove(payload + 1, payload, len);
			p++;
		}
		ctrace__uleb_put2(rec + 2, len);
	}
	rec[1] = short_form ? CTRACE_REC_ARGS_SHORT : CTRACE_REC_ARGS;
	ctrace__barrier();
	rec[0] = CTRACE_TAG_EXTENDED;
	s->cur = p;
}

/* ---------------------------------------------------------------------------
 * Return addresses
 * ------------------------------------------------------------------------ */

/* The RETVAL payload's size for a mask (0: the full form). */
size_t ctrace__retval_payload(uint8_t mask, uint8_t mem)
{
	if (mask == 0)
		return CTRACE_RETVAL_PAYLOAD;
	size_t n = 1, narrow = (mask & CTRACE_RETVAL_NARROW) != 0;
	n += (mask & CTRACE_RETVAL_R0) ? CTRACE_RETVAL_R_BYTES >> narrow : 0;
	n += (mask & CTRACE_RETVAL_R1) ? CTRACE_RETVAL_R_BYTES >> narrow : 0;
	n += (mask & CTRACE_RETVAL_XMM0) ? CTRACE_RETVAL_XMM_BYTES >> narrow
					 : 0;
	n += (mask & CTRACE_RETVAL_XMM1) ? CTRACE_RETVAL_XMM_BYTES >> narrow
					 : 0;
	n += (mask & CTRACE_RETVAL_ST0) ? CTRACE_RETVAL_ST0_BYTES : 0;
	n += (mask & CTRACE_RETVAL_MEM) ? CTRACE_RETVAL_MEM_HEAD + (size_t)mem
					: 0;
	return n;
}

/* len: the payload's size for mask (compact form), or 0. */
static inline __attribute__((always_inline)) void
patch_return(struct cap_thread *c, uintptr_t fn, uintptr_t site,
	     uintptr_t cfa, uint8_t mask, uint8_t mem, uint8_t len)
{
	uintptr_t slot = cfa - PTR_SIZE;
	if (*(uintptr_t *)slot != site)
		return; /* not where the CFI says: leave it alone */
	/* Entries above whose slot no longer holds the trampoline belong
	 * to frames that are gone (longjmp). */
	while (c->depth > 0) {
		const struct ctrace__tramp_entry *top =
			&c->stack[c->depth - 1];
		if (top->slot > slot || slot - top->slot >= CTRACE_STACK_NEAR ||
		    *(const uintptr_t *)top->slot ==
			    (uintptr_t)ctrace__return_trampoline)
			break; /* a caller, another stack's, or live */
		c->depth--;
	}
	if (unlikely(c->depth == TRAMP_MAX)) {
		if (slot > c->refused_top)
			c->refused_top = slot;
		return;
	}
	/* Fill, publish, then patch: a signal handler on this thread sees
	 * either no entry or a complete one. */
	struct ctrace__tramp_entry *e = &c->stack[c->depth];
	e->slot = slot;
	e->real = site;
	e->fn = fn;
	e->rec = NULL;
	e->chunk = 0;
	e->mask = mask;
	e->mem = mem;
	e->len = len;
	e->restored = 0;
	ctrace__barrier();
	c->depth++;
	ctrace__barrier();
	*(uintptr_t *)slot = (uintptr_t)ctrace__return_trampoline;
}

void ctrace__capture_locate(struct ctrace__capture_where *w, uintptr_t fn,
			    const struct ctrace__regs *r)
{
	struct cap_thread *c = &cap;
	w->ready = 0;
	if (unlikely(c->stack == NULL) && !thread_ready(c))
		return;
	w->ready = 1;
	/* The plan knows the CFA rule; else the CFI, read at run time. */
	const struct ctrace__plan_entry *e = ctrace__plan_find(r->pc);
	uintptr_t cfa;
	if (likely(e != NULL)) {
		struct cfa_rule rule = {r->pc, e->cfa_off, e->cfa_reg, 0, fn};
		cfa = cfa_of(&rule, r);
		w->own_body = e->fde == fn;
	} else {
		const struct cfa_rule *rule = lookup_rule(c, r->pc, fn);
		cfa = cfa_of(rule, r);
		w->own_body = rule->own_body;
	}
	if (cfa != 0 && (cfa <= r->sp || cfa - r->sp > (1u << 20)))
		cfa = 0; /* not believable */
	w->plan = e;
	w->cfa = cfa;
}

void ctrace__capture_entry(struct ctrace__stream *s, uint8_t flags,
			   uintptr_t fn, uintptr_t site,
			   const struct ctrace__regs *r,
			   const struct ctrace__capture_where *w)
{
	struct cap_thread *c = &cap;
	if (unlikely(!w->ready))
		return;
	const struct ctrace__plan_entry *e = w->plan;
	uintptr_t cfa = w->cfa;
	if (flags & CTRACE_F_ARGS) {
		/* The reader has the ENTRY's stack pointer in words: the
		 * short form needs an aligned one, as compiled code keeps. */
		if (likely(e != NULL && e->regs_only &&
			   (r->sp & (PTR_SIZE - 1)) == 0))
			write_args_regs(s, r, fn, e);
		else
			write_args(s, c, r, cfa, fn, e);
	}
	if (!(flags & CTRACE_F_RETVAL) || cfa == 0 || !w->own_body)
		return;
	/* A function the plan knows returns nothing: no trampoline. */
	if (likely(e != NULL && e->ret_known)) {
		if (e->ret_mask != 0)
			patch_return(c, fn, site, cfa, e->ret_mask, e->ret_mem,
				     e->ret_len);
	} else {
		patch_return(c, fn, site, cfa, 0, 0, 0);
	}
}

/* The patched frame the exit of fn (its hook's stack pointer sp, 0 if
 * unknown) belongs to: the innermost live one of sp's stack, whose slot
 * lies just above sp; the first such entry from the top is it.  Entries of
 * other stacks (coroutines) are skipped unread: their stack may be gone.
 * When the hook was given the trampoline (`patched`), the frame is known
 * to be patched and may be bigger than a stack's reach: failing a nearby
 * one, the nearest live entry of fn above sp.  The whole list is searched:
 * calls a longjmp left inside the frame may lie above its entry in any
 * number, each skipped by a compare (its slot is below sp, never read). */
static struct ctrace__tramp_entry *pending(struct cap_thread *c,
					   uintptr_t fn, uintptr_t sp,
					   int patched)
{
	struct ctrace__tramp_entry *best = NULL;

	if (c->stack == NULL)
		return NULL;
	for (size_t i = c->depth; i > 0; i--) {
		struct ctrace__tramp_entry *e = &c->stack[i - 1];
		int near = sp == 0 ||
			   (e->slot >= sp && e->slot - sp < CTRACE_STACK_NEAR);
		uintptr_t at = *(const uintptr_t *)e->slot;
		if ((!near && !(patched && e->slot >= sp)) ||
		    (at != (uintptr_t)ctrace__return_trampoline &&
		     !(e->restored && at == e->real)))
			continue; /* another stack, or gone (longjmp) */
		/* A record reserved already was for a copy of fn inlined
		 * into its own frame (recursion): the frame's last exit is
		 * its own, and takes the value; the copy's stays unfilled. */
		if (near)
			return e->fn == fn ? e : NULL;
		if (e->fn == fn && (best == NULL || e->slot < best->slot))
			best = e;
	}
	return best;
}

/* Whether an exit whose hook's stack pointer is sp lies above every slot
 * the full list refused, on their stack: then those frames are gone, and
 * are forgotten. */
static int above_refused(struct cap_thread *c, uintptr_t sp)
{
	uintptr_t top = c->refused_top;
	if (sp > top && sp - top < CTRACE_STACK_NEAR) {
		c->refused_top = 0;
		return 1;
	}
	return 0;
}

/* An exit that found no patched frame: whether its frame may be one the
 * full list refused. */
static int refused(struct cap_thread *c, uintptr_t sp)
{
	return c->refused_top != 0 && !above_refused(c, sp);
}

struct ctrace__tramp_entry *
ctrace__retval_pending(uintptr_t fn, uintptr_t sp, int patched,
		       uintptr_t *real, size_t *bytes)
{
	struct ctrace__tramp_entry *e = pending(&cap, fn, sp, patched);
	/* A slot the full list refused between the exit and e: the exit is
	 * a frame's at or below it (recursion deeper than the list), not a
	 * copy of fn inlined into e's frame, which exits above it. */
	uintptr_t top = cap.refused_top;
	if (e != NULL && !patched && top != 0 && sp < top && top < e->slot)
		e = NULL;
	if (e != NULL) {
		if (unlikely(top != 0))
			above_refused(&cap, sp);
		/* A frame an exception passed by (caught below it): its
		 * return goes through the trampoline again. */
		if (unlikely(e->restored)) {
			e->restored = 0;
			ctrace__barrier();
			*(uintptr_t *)e->slot =
				(uintptr_t)ctrace__return_trampoline;
		}
		*real = e->real;
		*bytes = 4 + (e->mask != 0 ? e->len : CTRACE_RETVAL_PAYLOAD);
		return e;
	}
	if (patched)
		*real = ctrace__retval_real(sp);
	if (unlikely(refused(&cap, sp)))
		*bytes = CTRACE_RETVAL_REFUSED_BYTES;
	return NULL;
}

void ctrace__retval_mark_refused(struct ctrace__stream *s)
{
	uint8_t *rec = s->cur;
	if (rec == NULL ||
	    (size_t)(s->chunk_end - rec) < CTRACE_RETVAL_REFUSED_BYTES)
		return;
	rec[1] = CTRACE_REC_RETVAL;
	rec[2] = 1;
	rec[3] = CTRACE_RETVAL_REFUSED;
	ctrace__barrier();
	rec[0] = CTRACE_TAG_EXTENDED;
	ctrace__barrier();
	s->cur = rec + CTRACE_RETVAL_REFUSED_BYTES;
}

/* A hook given the trampoline as call site runs in a patched frame: a
 * function inlined into the patched one, whose hooks read the host's
 * return address from its slot.  The frame is the innermost live one of
 * sp's stack, whose slot lies just above sp: the first such entry from
 * the top; failing one, as in pending(), the nearest live slot above sp
 * (a frame bigger than a stack's reach).  The whole list, as there. */
uintptr_t ctrace__retval_real(uintptr_t sp)
{
	const struct cap_thread *c = &cap;
	const struct ctrace__tramp_entry *best = NULL;

	if (c->stack == NULL)
		return 0;
	for (size_t i = c->depth; i > 0; i--) {
		const struct ctrace__tramp_entry *e = &c->stack[i - 1];
		if (e->slot < sp || *(const uintptr_t *)e->slot !=
					    (uintptr_t)ctrace__return_trampoline)
			continue;
		if (e->slot - sp < CTRACE_STACK_NEAR)
			return e->real;
		if (best == NULL || e->slot < best->slot)
			best = e;
	}
	return best != NULL ? best->real : 0;
}

void ctrace__retval_reserve(struct ctrace__stream *s,
			    struct ctrace__tramp_entry *e)
{
	uint8_t *rec = s->cur, *p;
	if (rec == NULL)
		return;
	if (e->mask != 0) {
		/* The fields are read only once the state says filled, and
		 * those left out by their bit not at all: nothing to clear. */
		size_t len = e->len;
		if ((size_t)(s->chunk_end - rec) < len + 4)
			return;
		if (len < 0x80) {
			rec[2] = (uint8_t)len;
			p = rec + 3;
		} else {
			ctrace__uleb_put2(rec + 2, len);
			p = rec + 4;
		}
		p[0] = 0;
	} else {
		size_t len = CTRACE_RETVAL_PAYLOAD;
		if ((size_t)(s->chunk_end - rec) < len + 4)
			return;
		ctrace__uleb_put2(rec + 2, len);
		p = rec + 4;
		memset(p, 0, len);
	}
	rec[1] = CTRACE_REC_RETVAL;
	ctrace__barrier();
	rec[0] = CTRACE_TAG_EXTENDED;
	/* After the tag: a jump out of a signal handler that interrupted
	 * this must not leave cur past a zero byte (see hooks.c). */
	ctrace__barrier();
	s->cur = p + (e->mask != 0 ? e->len : CTRACE_RETVAL_PAYLOAD);
	e->rec = p;
	e->chunk = s->chunk;
	ctrace__tramp_st0 = e->mask == 0 || (e->mask & CTRACE_RETVAL_ST0);
}

static void fill_full(uint8_t *p, const struct ctrace__retregs *r)
{
	uint64_t r0 = r->RET0, r1 = r->RET1;
	memcpy(p + CTRACE_RETVAL_AT_R0, &r0, 8);
	memcpy(p + CTRACE_RETVAL_AT_R1, &r1, 8);
#if defined(__x86_64__)
	memcpy(p + CTRACE_RETVAL_AT_XMM0, r->xmm0, CTRACE_RETVAL_XMM_BYTES);
	memcpy(p + CTRACE_RETVAL_AT_XMM1, r->xmm1, CTRACE_RETVAL_XMM_BYTES);
#endif
	memcpy(p + CTRACE_RETVAL_AT_ST0, r->st0, CTRACE_RETVAL_ST0_BYTES);
	p[CTRACE_RETVAL_AT_ST0_VALID] = (uint8_t)r->st0_valid;
	/* A struct returned in memory: rax holds the buffer, which is
	 * usually in the caller's frame, just above the stack pointer. */
	uintptr_t a = (uintptr_t)r->RET0;
	if (a >= r->sp && a < r->sp + 4096) {
		uint64_t a64 = a;
		memcpy(p + CTRACE_RETVAL_AT_MEM_ADDR, &a64, 8);
		p[CTRACE_RETVAL_AT_MEM_LEN] = CTRACE_RETVAL_MEM_MAX;
		memcpy(p + CTRACE_RETVAL_AT_MEM, (const void *)a,
		       CTRACE_RETVAL_MEM_MAX);
	}
	ctrace__barrier();
	p[CTRACE_RETVAL_STATE] = 1;
}

/* A register field: the whole register, or with CTRACE_RETVAL_NARROW its
 * low half (little-endian: its first bytes). */
static uint8_t *put_reg(uint8_t *q, const void *reg, size_t size,
			int narrow)
{
	if (narrow) {
		memcpy(q, reg, size / 2);
		return q + size / 2;
	}
	memcpy(q, reg, size);
	return q + size;
}

/* The compact form: the registers the plan named, nothing else.  A field
 * that cannot be had (st0 empty, memory not in the caller's frame) is left
 * out and its bit cleared; the bytes reserved for it stay zero at the end
 * of the payload. */
static void fill_compact(uint8_t *p, const struct ctrace__retregs *r,
			 uint8_t mask, uint8_t mem)
{
	uint8_t *q = p + 1;
	int narrow = (mask & CTRACE_RETVAL_NARROW) != 0;
	if (mask & CTRACE_RETVAL_R0) {
		uint64_t v = r->RET0;
		q = put_reg(q, &v, CTRACE_RETVAL_R_BYTES, narrow);
	}
	if (mask & CTRACE_RETVAL_R1) {
		uint64_t v = r->RET1;
		q = put_reg(q, &v, CTRACE_RETVAL_R_BYTES, narrow);
	}
#if defined(__x86_64__)
	if (mask & CTRACE_RETVAL_XMM0)
		q = put_reg(q, r->xmm0, CTRACE_RETVAL_XMM_BYTES, narrow);
	if (mask & CTRACE_RETVAL_XMM1)
		q = put_reg(q, r->xmm1, CTRACE_RETVAL_XMM_BYTES, narrow);
#else
	q += (mask & CTRACE_RETVAL_XMM0) ? CTRACE_RETVAL_XMM_BYTES >> narrow
					 : 0;
	q += (mask & CTRACE_RETVAL_XMM1) ? CTRACE_RETVAL_XMM_BYTES >> narrow
					 : 0;
#endif
	if (mask & CTRACE_RETVAL_ST0) {
		if (r->st0_valid) {
			memcpy(q, r->st0, CTRACE_RETVAL_ST0_BYTES);
			q += CTRACE_RETVAL_ST0_BYTES;
		} else {
			mask &= (uint8_t)~CTRACE_RETVAL_ST0;
		}
	}
	if (mask & CTRACE_RETVAL_MEM) {
		uintptr_t a = (uintptr_t)r->RET0;
		if (a >= r->sp && a < r->sp + 4096) {
			uint64_t a64 = a;
			memcpy(q, &a64, 8);
			q[8] = mem;
			memcpy(q + CTRACE_RETVAL_MEM_HEAD, (const void *)a, mem);
		} else {
			mask &= (uint8_t)~CTRACE_RETVAL_MEM;
		}
	}
	ctrace__barrier();
	p[0] = CTRACE_RETVAL_COMPACT | mask;
}

static __attribute__((noreturn)) void lost_return(void)
{
	ctrace__warn("return trampoline: the real return address is lost",
		     "", "");
	abort();
}

uintptr_t ctrace__trampoline_exit(struct ctrace__retregs *r)
{
	struct cap_thread *c = &cap;
	struct ctrace__thread *t = &ctrace__state_tls;
	/* The slot is just below the stack pointer after ret, or a few words
	 * further down after `ret $n` (i386 struct returns). */
	size_t found = 0;
	for (uintptr_t slot = r->sp - PTR_SIZE;
	     !found && slot >= r->sp - PTR_SIZE * 4; slot -= PTR_SIZE)
		for (size_t i = c->depth; i > 0; i--)
			if (c->stack[i - 1].slot == slot) {
				found = i;
				break;
			}
	if (!found)
		lost_return();
	struct ctrace__tramp_entry *e = &c->stack[found - 1];
	uintptr_t real = e->real;
	/* Not in a child no fork handler ran in: the chunk is the parent's. */
	if (e->rec != NULL && t->main.cur != NULL &&
	    t->main.chunk == e->chunk &&
	    (atomic_load_explicit(&ctrace__gate, memory_order_relaxed) &
	     CTRACE_GATE_LIVE)) {
		if (e->mask != 0)
			fill_compact(e->rec, r, e->mask, e->mem);
		else
			fill_full(e->rec, r);
	}
	ctrace__barrier();
	/* The entries above it are of frames gone with it (longjmp), unless
	 * they lie on another stack (coroutines): those still hold the
	 * trampoline.  A stale entry kept by chance is harmless: the search
	 * takes the newest match, and patch_return drops it once its slot is
	 * reused. */
	size_t keep = found - 1;
	for (size_t i = found; i < c->depth; i++) {
		uintptr_t s = c->stack[i].slot;
		if (s >= r->sp || r->sp - s >= CTRACE_STACK_NEAR ||
		    *(const uintptr_t *)s == (uintptr_t)ctrace__return_trampoline)
			c->stack[keep++] = c->stack[i];
	}
	c->depth = keep;
	return real;
}

/* ---------------------------------------------------------------------------
 * Unwinding through patched frames
 *
 * The unwinder finds no CFI for the trampoline: before an exception (or
 * a forced unwind) walks the stack, put every real return address back.
 * The entries stay, marked: the frames the exception unwinds are gone
 * (their entries are dropped as any gone frame's), and those above the
 * handler that catches it are patched again when they exit (see
 * ctrace__retval_pending), so that they show their return values.
 * ------------------------------------------------------------------------ */

static void restore_all(void)
{
	struct cap_thread *c = &cap;
	if (c->stack == NULL)
		return;
	for (size_t i = c->depth; i > 0; i--) {
		struct ctrace__tramp_entry *e = &c->stack[i - 1];
		if (*(uintptr_t *)e->slot ==
		    (uintptr_t)ctrace__return_trampoline) {
			e->restored = 1;
			ctrace__barrier();
			*(uintptr_t *)e->slot = e->real;
		}
	}
}

static void *next_symbol(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

struct _Unwind_Exception;
typedef int (*raise_fn)(struct _Unwind_Exception *);
typedef int (*forced_fn)(struct _Unwind_Exception *, void *, void *);

__attribute__((weak, visibility("default"))) int
_Unwind_RaiseException(struct _Unwind_Exception *e)
{
	static raise_fn real;
	restore_all();
	if (real == NULL)
		real = (raise_fn)next_symbol("_Unwind_RaiseException");
	return real ? real(e) : 5; /* _URC_END_OF_STACK */
}

/* A cleanup (a destructor, or gcc's exit hook at -O0) runs in a frame
 * the exception passes through and may have patched its return address
 * again (its exit hook): put back before the unwinding goes on. */
typedef void (*resume_fn)(struct _Unwind_Exception *);
__attribute__((weak, visibility("default"), noreturn)) void
_Unwind_Resume(struct _Unwind_Exception *e)
{
	static resume_fn real;
	restore_all();
	if (real == NULL)
		real = (resume_fn)next_symbol("_Unwind_Resume");
	if (real != NULL)
		real(e);
	abort(); /* as the unwinder does when it cannot go on */
}

__attribute__((weak, visibility("default"))) int
_Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	static raise_fn real;
	restore_all();
	if (real == NULL)
		real = (raise_fn)next_symbol("_Unwind_Resume_or_Rethrow");
	return real ? real(e) : 5;
}

__attribute__((weak, visibility("default"))) int
_Unwind_ForcedUnwind(struct _Unwind_Exception *e, void *stop, void *arg)
{
	static forced_fn real;
	restore_all();
	if (real == NULL)
		real = (forced_fn)next_symbol("_Unwind_ForcedUnwind");
	return real ? real(e, stop, arg) : 5;
}
