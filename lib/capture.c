/* capture.c -- entry capture: arguments (CTRACE_ARGS), and the return
 * address a return value needs (CTRACE_RETVAL), handed to retval.c.
 *
 * The recorder knows nothing of types or parameters: it saves machine
 * state, and the symbolizer finds the values in it with the program's
 * DWARF.  At entry that is the callee-saved registers and the stack around
 * the function's frame (where optimized code keeps its arguments across
 * the call to the hook, and where -O0 code spilled them).  At return it is
 * the return registers, caught by a trampoline (retval.c): the exit hook
 * runs before an optimized function has computed its result, so the value
 * is only certain once the function has returned.
 *
 * The frame's canonical frame address (CFA) comes from the function's CFI
 * (cfi.c), once per call site: the answer is cached per thread, keyed by
 * PC.  The return address lies just
 * below the CFA; the recorder checks it holds the call site the hook was
 * given before replacing it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "capture.h"
#include "retval.h"
#include "state.h"

static size_t string_max = 64; /* CTRACE_STRLEN */
#define STRING_MAX_LIMIT 1024
#define STRING_BUDGET 1024 /* string bytes per ARGS record */
static void compute_args_max(void);

#define PTR_SIZE sizeof(uintptr_t)

/* Stack windows: below the frame (spills, -O0 slots) and above it (stack
 * arguments, the return address). */
#define WINDOW_BELOW 256
#define WINDOW_ABOVE 128
#define WINDOW_JOINED 640
#define WINDOW_NO_CFA 512

/* ---------------------------------------------------------------------------
 * Per-thread state
 * ------------------------------------------------------------------------ */

#define CACHE_SIZE 1024 /* entries, a power of two */
struct cfa_rule {
	uintptr_t pc;
	int32_t offset;
	uint8_t reg;      /* 0: unknown, else CTRACE_DW_SP or CTRACE_DW_FP + 1 */
	uint8_t own_body; /* pc lies in fn's own FDE: not an inlined copy */
	uintptr_t fn;
};

struct cap_thread {
	struct cfa_rule *cache;
	int failed; /* no memory: capture nothing more on this thread */
	/* The top of this thread's stack (0: unknown): memory from the stack
	 * pointer up to it is mapped. */
	uintptr_t stack_top;
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
	if (c->cache != NULL)
		return 1;
	if (c->failed)
		return 0;
	size_t bytes = CACHE_SIZE * sizeof *c->cache;
	int saved_errno = errno;
	uint8_t *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	errno = saved_errno;
	if (m == MAP_FAILED) {
		c->failed = 1;
		return 0;
	}
	c->stack_top = find_stack_top();
	ctrace__barrier();
	c->cache = (struct cfa_rule *)m;
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
		ctrace__state_exit_regs_on = r != NULL && *r &&
					     ctrace__plan_exits != NULL;
		/* Return values read at the exits ask nothing of most
		 * entries: those alone go through the plain hook. */
		ctrace__state_entry_regs_on = (a != NULL && *a) ||
					      !ctrace__state_exit_regs_on;
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
	ctrace__clock_test_delay();
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

/* A string's header in the record: its address (put_address) and a
 * two-byte length. */
#define STRING_HEADER_MAX (10 + 2)
/* The most strings of one record: a plan's, or a library call's (a bit
 * each of its strmask). */
#define TEXTS_MAX 8
_Static_assert(CTRACE_PLAN_MAX_STR <= TEXTS_MAX, "a plan's strings fit");

/* lens[i] of read_strings(): not read, read_string's to do. */
#define READ_LATER ((size_t)-1)

/* The strings at at[0..n) that the kernel reads, string_max bytes each,
 * into out + i * string_max by one system call; lens[i] their lengths as
 * read_string gives them, or READ_LATER for those on the stack (read
 * directly), those after a string the kernel stopped at (it stops at the
 * first piece it cannot read whole), and all when only one string is
 * the kernel's. */
static void read_strings(const uintptr_t *at, int n, uint8_t *out,
			 uintptr_t sp, uintptr_t top, size_t *lens)
{
	struct iovec local[TEXTS_MAX];
	struct iovec remote[2 * TEXTS_MAX];
	int kernel[TEXTS_MAX], nk = 0, nr = 0;
	size_t max = string_max;
	for (int i = 0; i < n; i++) {
		lens[i] = READ_LATER;
		uintptr_t a = at[i];
		if (a >= sp && a < top)
			continue;
		/* Split at the page boundary, as read_string does. */
		uintptr_t page = (a | 4095) + 1;
		kernel[nk] = i;
		local[nk++] = (struct iovec){out + (size_t)i * max, max};
		if (page - a < max) {
			remote[nr++] = (struct iovec){(void *)a, page - a};
			remote[nr++] =
				(struct iovec){(void *)page, max - (page - a)};
		} else {
			remote[nr++] = (struct iovec){(void *)a, max};
		}
	}
	if (nk < 2)
		return;
	int saved_errno = errno;
	ssize_t got = syscall(SYS_process_vm_readv,
			      (long)ctrace__state_tls.main.tid, local, (long)nk,
			      remote, (long)nr, 0L);
	errno = saved_errno;
	size_t left = got > 0 ? (size_t)got : 0;
	for (int k = 0; k < nk; k++) {
		size_t m = left < max ? left : max;
		left -= m;
		if (m == 0)
			break;
		uint8_t *t = out + (size_t)kernel[k] * max;
		const uint8_t *z = memchr(t, '\0', m);
		/* Cut short (m < max): the kernel stopped in this string,
		 * whose text is then what read_string gives; the next ones
		 * get nothing, and wait. */
		lens[kernel[k]] = z != NULL ? (size_t)(z - t) + 1 : m;
	}
}

static uintptr_t saved_register(const struct ctrace__regs *r, int regno)
{
	const uintptr_t *regs = (const uintptr_t *)r;
	for (int i = 0; i < CTRACE_NREGS; i++)
		if (ctrace__plan_regnos[i] == regno)
			return regs[i];
	return 0;
}

/* The texts of the strings at at[0..n), string_max bytes at most each
 * and STRING_BUDGET in all (string_max not 0): a block each at its
 * address (put_address's, relative to rel), empty when the pointer
 * cannot be read, within top on the stack.  Those the kernel reads
 * (read_string) are read in one system call when their lengths fit the
 * budget together: a C++ test driver's calls with two strings (a
 * range's first and last) made a third of its system calls.  Each text
 * goes into a slot of its own past every header, then down into place
 * (later slots lie past any string's place); the slots' bytes past the
 * record are zeroed again.  Else one at a time, within the budget. */
static uint8_t *put_texts(uint8_t *p, const uintptr_t *at, int n,
			  uintptr_t sp, uintptr_t top, uintptr_t rel)
{
	size_t lens[TEXTS_MAX];
	uint8_t *slots = p + (size_t)n * STRING_HEADER_MAX;
	int batched = n > 1 && n <= TEXTS_MAX &&
		      (size_t)n * string_max <= STRING_BUDGET;
	if (batched)
		read_strings(at, n, slots, sp, top, lens);
	size_t budget = STRING_BUDGET;
	for (int i = 0; i < n && budget > 0; i++) {
		size_t max = string_max < budget ? string_max : budget;
		uint8_t *hdr = put_address(p, at[i], rel);
		/* The length fits in two bytes: written after the text. */
		size_t len;
		if (batched && lens[i] != READ_LATER) {
			len = lens[i];
			memmove(hdr + 2, slots + (size_t)i * string_max, len);
		} else {
			len = read_string(at[i], hdr + 2, max, sp, top);
		}
		ctrace__uleb_put2(hdr, len);
		p = hdr + 2 + len;
		budget -= len;
	}
	if (batched) {
		uint8_t *end = slots + (size_t)n * string_max;
		if (end > p)
			memset(p, 0, (size_t)(end - p));
	}
	return p;
}

/* The text of the string arguments the plan names.  A pointer that
 * cannot be read leaves an empty block at its address; NULL none.  With
 * CTRACE_STRLEN=0 no text is taken, so no block either: the pointers
 * show as addresses. */
static uint8_t *put_strings(uint8_t *p, const struct ctrace__plan_entry *e,
			    const struct ctrace__regs *r, uintptr_t cfa,
			    uintptr_t top, uintptr_t rel)
{
	uintptr_t at[CTRACE_PLAN_MAX_STR];
	int n = 0;
	for (int i = 0; i < e->nstr && string_max != 0; i++) {
		const struct ctrace__plan_str *ps = &e->extra->str[i];
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
		if (a != 0)
			at[n++] = a;
	}
	return put_texts(p, at, n, r->sp, top, rel);
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
		p = ctrace__capture_short_regs(p, r, e->regs_sel, s->arg_base,
					       !s->arg_base_off);
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
			p[0] = ctrace__plan_regnos[i];
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
			const struct ctrace__plan_mem *m = &e->extra->mem[i];
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
 * Entry
 * ------------------------------------------------------------------------ */

void ctrace__capture_locate(struct ctrace__capture_where *w, uintptr_t fn,
			    const struct ctrace__regs *r)
{
	struct cap_thread *c = &cap;
	int first = c->cache == NULL;
	w->ready = 0;
	w->timed = 1;
	if (unlikely(first) && !thread_ready(c))
		return;
	w->ready = 1;
	/* The plan knows the CFA rule; else the CFI, read at run time. */
	const struct ctrace__plan_entry *e = ctrace__plan_find(r->pc);
	uintptr_t cfa;
	if (likely(e != NULL)) {
		struct cfa_rule rule = {r->pc, e->cfa_off, e->cfa_reg, 0, fn};
		cfa = cfa_of(&rule, r);
		w->own_body = e->fde == fn;
		w->timed = first || e->wide || (e->nstr != 0 && string_max != 0);
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
	const struct cap_thread *c = &cap;
	if (unlikely(!w->ready))
		return;
	const struct ctrace__plan_entry *e = w->plan;
	uintptr_t cfa = w->cfa;
	if (flags & CTRACE_F_ARGS) {
		/* The reader has the ENTRY's stack pointer in words: the
		 * short form needs an aligned one, as compiled code keeps. */
		if (likely(e != NULL && e->regs_only &&
			   (r->sp & (PTR_SIZE - 1)) == 0))
			ctrace__capture_args_regs(s, r, e);
		else
			write_args(s, c, r, cfa, fn, e);
	}
	if (!(flags & CTRACE_F_RETVAL) || cfa == 0 || !w->own_body)
		return;
	/* A function the plan knows returns nothing: no trampoline. */
	if (likely(e != NULL && e->ret_known)) {
		/* Read at its exits instead (ctrace__policy_exit_read). */
		if (e->ret_read && ctrace__state_exit_regs_on)
			return;
		if (e->ret_mask != 0)
			ctrace__retval_patch(fn, site, cfa, e->ret_mask,
					     e->ret_mem, e->ret_len);
	} else {
		ctrace__retval_patch(fn, site, cfa, 0, 0, 0);
	}
}

/* ---------------------------------------------------------------------------
 * Library calls
 * ------------------------------------------------------------------------ */

void ctrace__capture_lib_ready(void)
{
	struct cap_thread *c = &cap;
	if (unlikely(c->cache == NULL))
		(void)thread_ready(c);
}

/* The text of a library call's string arguments: of the first n of
 * v->gpr (registers on x86-64, stack words on i386) that strmask names, a
 * block each, as put_strings' (empty: the pointer was unreadable; NULL
 * none), within top, addresses relative to rel (put_address). */
static uint8_t *put_lib_strings(uint8_t *p, const struct cap_thread *c,
				const struct ctrace__libvals *v, unsigned n,
				uintptr_t sp, uintptr_t top, uintptr_t rel)
{
	uintptr_t at[TEXTS_MAX];
	int k = 0;
	for (unsigned i = 0; i < n && string_max && c->cache != NULL; i++) {
		uintptr_t a = v->gpr[i];
		if ((v->how.strmask & (1u << i)) && a != 0)
			at[k++] = a;
	}
	return put_texts(p, at, k, sp, top, rel);
}

/* The ARGS (or ARGS_LIB: type) at rec, ending at end, published. */
static void lib_args_end(struct ctrace__stream *s, uint8_t *rec, uint8_t *end,
			 uint8_t type)
{
	ctrace__uleb_put2(rec + 2, (size_t)(end - (rec + 4)));
	rec[1] = type;
	ctrace__barrier();
	rec[0] = CTRACE_TAG_EXTENDED;
	s->cur = end;
}

/* The RETVAL record (or RETVAL_ST1: type) begun at rec, filled up to end
 * (its payload under 0x80 bytes: CTRACE_LIBRET_BYTES), published. */
static void lib_ret_end(struct ctrace__stream *s, uint8_t *rec, uint8_t *end,
			uint8_t type)
{
	rec[2] = (uint8_t)(end - (rec + 3));
	rec[1] = type;
	ctrace__barrier();
	rec[0] = CTRACE_TAG_EXTENDED;
	s->cur = end;
}

/* RETVAL's memory field, where a struct may be returned: the bytes at a
 * (r0), CTRACE_LIBRET_MEM of them or fewer at the stack's top, when a
 * lies in the stack between sp (after the function's ret: the caller's
 * frame holds the buffer) and its top, with CTRACE_RETVAL_MEM added to
 * *mask; else none.  Whether r0 is such an address at all, the
 * library's DWARF says later. */
static uint8_t *put_lib_mem(uint8_t *p, uint8_t *mask, uintptr_t a,
			    uintptr_t sp)
{
	if (a < sp)
		return p;
	uintptr_t top = stack_limit(&cap, sp, 0);
	if (a >= top)
		return p;
	*mask |= CTRACE_RETVAL_MEM;
	uint64_t a64 = a;
	memcpy(p, &a64, 8);
	uint8_t *len = p + 8;
	p += CTRACE_RETVAL_MEM_HEAD;
	/* Of a constant size, the common case, the copy is inlined, as a
	 * library call's stack block. */
	if (top - a >= CTRACE_LIBRET_MEM) {
		*len = CTRACE_LIBRET_MEM;
		memcpy(p, (const void *)a, CTRACE_LIBRET_MEM);
		return p + CTRACE_LIBRET_MEM;
	}
	*len = (uint8_t)(top - a);
	memcpy(p, (const void *)a, top - a);
	return p + (top - a);
}

#if defined(__x86_64__)
/* DWARF numbers of the x86-64 argument registers, in the ABI's order,
 * and of xmm0. */
static const uint8_t lib_regnos[CTRACE__LIB_INT_REGS] = {5, 4, 1, 2, 8, 9};
#define LIB_DW_XMM0 17

/* ARGS_LIB, the short form of a library call's ARGS (ctrace_format.h):
 * its pc the call site, relative to the ENTRY's function, the GOT slot
 * fn; the integer argument registers, the low 8 bytes of the
 * floating-point ones (a double or a float), as ARGS_SHORT writes
 * registers (with bases of their own, s->lib_base); then a block per
 * string argument, as the instrumented functions' (an empty one: the
 * pointer was unreadable), then the first of the stack arguments above
 * the return address (sp), within the stack.  Addresses are relative to
 * sp, the ENTRY's stack pointer, which the trampoline keeps aligned. */
void ctrace__capture_lib_args(struct ctrace__stream *s, uintptr_t fn,
			      uintptr_t site, uintptr_t sp,
			      const struct ctrace__libvals *v)
{
	const struct cap_thread *c = &cap;
	if (s->cur == NULL ||
	    (size_t)(s->chunk_end - s->cur) < ctrace__args_max_bytes ||
	    (sp & (PTR_SIZE - 1)) != 0)
		return;
	uint8_t *rec = s->cur, *payload = rec + 4;
	unsigned nint = v->how.nint > CTRACE__LIB_INT_REGS ? CTRACE__LIB_INT_REGS
							   : v->how.nint;
	unsigned nfp = v->how.nfp > CTRACE__LIB_VEC_REGS ? CTRACE__LIB_VEC_REGS
							 : v->how.nfp;
	uint8_t *p = ctrace__sleb_put_word(payload, (intptr_t)(site - fn));
	*p++ = (uint8_t)(nint + nfp);
	*p++ = (uint8_t)((sp / PTR_SIZE) & CTRACE_ARGS_SHORT_SP_MASK);
	int on = !s->arg_base_off;
	uintptr_t prev = 0;
	for (unsigned i = 0; i < nint; i++) {
		uintptr_t x = v->gpr[i];
		p = ctrace__capture_short_reg(p, lib_regnos[i], x, sp, prev,
					      i == 0, &s->lib_base[i], on);
		prev = x;
	}
	for (unsigned i = 0; i < nfp; i++) {
		uint64_t x;
		memcpy(&x, v->xmm + 16 * i, 8);
		p = ctrace__capture_short_reg(p, (uint8_t)(LIB_DW_XMM0 + i),
					      (uintptr_t)x, sp, prev,
					      nint + i == 0,
					      &s->lib_base[CTRACE__LIB_INT_REGS + i],
					      on);
		prev = (uintptr_t)x;
	}
	if (v->how.strmask != 0 && string_max && c->cache != NULL)
		p = put_lib_strings(p, c, v, nint, sp, stack_limit(c, sp, 0),
				    sp);
	if (v->how.stack) {
		/* Of a constant size, the common case, the copy is inlined:
		 * the recorder's own memcpy would come back through a
		 * redirected slot. */
		uintptr_t from = sp + PTR_SIZE, top = stack_limit(c, sp, 0);
		if (top > from && top - from >= CTRACE_LIBARGS_STACK) {
			p = put_block_header(p, from, CTRACE_LIBARGS_STACK, sp);
			memcpy(p, (const void *)from, CTRACE_LIBARGS_STACK);
			p += CTRACE_LIBARGS_STACK;
		} else {
			p = put_block(p, from, from + CTRACE_LIBARGS_STACK, sp,
				      top, sp);
		}
	}
	lib_args_end(s, rec, p, CTRACE_REC_ARGS_LIB);
}
/* Its longest: header, pc, count and stack bytes, 14 registers, the
 * strings' headers, the stack block; the strings' text is ARGS_MAX's.
 * A register: its number and an sleb of up to 10 bytes. */
_Static_assert(4 + 10 + 2 +
			       (CTRACE__LIB_INT_REGS + CTRACE__LIB_VEC_REGS) * 11 +
			       TEXTS_MAX * STRING_HEADER_MAX + 12 +
			       CTRACE_LIBARGS_STACK <=
		       ARGS_MAX(0),
	       "a library call's ARGS_LIB fits the room checked");

/* A function the prototypes know: what its return kind needs (protos.c,
 * known_ret), nothing for void, else the compact RETVAL, filled; for a
 * function they do not know rax, rdx, xmm0, xmm1, st(0) and the memory
 * rax points to, where the library's DWARF may say a value goes (ldiv_t,
 * __int128, a struct of two doubles; a long double; a struct returned in
 * memory).  When st(1)
 * held a value too (a _Complex long double), the record is a RETVAL_ST1:
 * the same, then st(1). */
void ctrace__capture_lib_ret(struct ctrace__stream *s,
			     const struct ctrace__libvals *v, uintptr_t sp)
{
	if (s->cur == NULL ||
	    (size_t)(s->chunk_end - s->cur) < CTRACE_LIBRET_BYTES)
		return;
	uint8_t *rec = s->cur, *p = rec + 3;
	/* A function the table lists (protos.c, known_ret): nothing for a
	 * void one; eax or rax alone as the hooks' return values are
	 * (their state the record's type, the register a sleb); the low
	 * half of xmm0.  Else everything the trampoline saved, written
	 * straight: rax and rdx, and xmm0 and xmm1, side by side, in the
	 * format's order of the fields; st(0) and the memory follow. */
	uint8_t m = v->how.retmask;
	if (likely(!(m & CTRACE_RETVAL_R1))) {
		if (m == 0)
			return;
		int narrow = (m & CTRACE_RETVAL_NARROW) != 0;
		if (m & CTRACE_RETVAL_R0) {
			uint64_t r = v->gpr[0];
			p = ctrace__sleb_put(p, narrow ? (int64_t)(int32_t)(uint32_t)r
						       : (int64_t)r);
			lib_ret_end(s, rec, p,
				    narrow ? CTRACE_REC_RETVAL_INT
					   : CTRACE_REC_RETVAL_WORD);
			return;
		}
		*p++ = CTRACE_RETVAL_COMPACT | m;
		memcpy(p, v->xmm, narrow ? 8 : 16);
		p += narrow ? 8 : 16;
	} else {
		uint8_t *state = p++;
		uint8_t mask = CTRACE_RETVAL_COMPACT | CTRACE_RETVAL_R0 |
			       CTRACE_RETVAL_R1 | CTRACE_RETVAL_XMM0 |
			       CTRACE_RETVAL_XMM1;
		memcpy(p, v->gpr, 16);
		memcpy(p + 16, v->xmm, 32);
		p += 48;
		if (v->st0 != NULL) {
			mask |= CTRACE_RETVAL_ST0;
			memcpy(p, v->st0, CTRACE_RETVAL_ST0_BYTES);
			p += CTRACE_RETVAL_ST0_BYTES;
		}
		p = put_lib_mem(p, &mask, v->gpr[0], sp);
		*state = mask;
		if (v->st0 != NULL && v->st1 != NULL) {
			memcpy(p, v->st1, CTRACE_RETVAL_ST1_BYTES);
			p += CTRACE_RETVAL_ST1_BYTES;
			lib_ret_end(s, rec, p, CTRACE_REC_RETVAL_ST1);
			return;
		}
	}
	lib_ret_end(s, rec, p, CTRACE_REC_RETVAL);
}
#else /* i386 */
/* The start of a library call's full ARGS at s->cur: NULL when the
 * chunk has no room for the longest; else the record, its pc the call
 * site, its sp, its CFA unknown (the architecture's part writes the rest,
 * then lib_args_end). */
static uint8_t *lib_args_begin(struct ctrace__stream *s, uintptr_t site,
			       uintptr_t sp)
{
	if (s->cur == NULL ||
	    (size_t)(s->chunk_end - s->cur) < ctrace__args_max_bytes)
		return NULL;
	uint8_t *payload = s->cur + 4;
	uint64_t pc = site, sp64 = sp, cfa = 0;
	memcpy(payload + CTRACE_ARGS_PC, &pc, 8);
	memcpy(payload + CTRACE_ARGS_SP, &sp64, 8);
	memcpy(payload + CTRACE_ARGS_CFA, &cfa, 8);
	return s->cur;
}

/* The most argument words saved (protos.c asks for no more). */
#define LIB_MAX_WORDS 12

/* The full form of ARGS, its pc the call site, its CFA unknown, no
 * register: cdecl passes every argument on the stack, so the first block
 * is the words of the arguments above the return address (sp), then a
 * block per string argument, as the instrumented functions' (an empty
 * one: the pointer was unreadable). */
void ctrace__capture_lib_args(struct ctrace__stream *s, uintptr_t fn,
			      uintptr_t site, uintptr_t sp,
			      const struct ctrace__libvals *v)
{
	const struct cap_thread *c = &cap;
	(void)fn;
	uint8_t *rec = lib_args_begin(s, site, sp);
	if (rec == NULL)
		return;
	uint8_t *payload = rec + 4, *p = payload;
	p[CTRACE_ARGS_NREGS] = 0;
	p += CTRACE_ARGS_REGS;
	unsigned words = v->how.nint > LIB_MAX_WORDS ? LIB_MAX_WORDS
						     : v->how.nint;
	uintptr_t top = stack_limit(c, sp, 0);
	uintptr_t args = (uintptr_t)v->gpr;
	/* The caller's frame holds them; never past the stack's top. */
	if (args < top && (top - args) / 4 < words)
		words = (unsigned)((top - args) / 4);
	p = put_block_header(p, args, 4 * (size_t)words, 0);
	memcpy(p, v->gpr, 4 * (size_t)words);
	p += 4 * (size_t)words;
	p = put_lib_strings(p, c, v, words < 8 ? words : 8, sp, top, 0);
	lib_args_end(s, rec, p, CTRACE_REC_ARGS);
}

/* The compact RETVAL, filled: eax and edx, and st(0) when it held a
 * value (a float or double returned), which every return type the
 * prototypes know needs no more of, for every function; and for a
 * function they do not know (the slot's mask: CTRACE_RETVAL_MEM) the
 * memory eax points to, where a struct is returned. */
void ctrace__capture_lib_ret(struct ctrace__stream *s,
			     const struct ctrace__libvals *v, uintptr_t sp)
{
	if (s->cur == NULL ||
	    (size_t)(s->chunk_end - s->cur) < CTRACE_LIBRET_BYTES)
		return;
	uint8_t *rec = s->cur, *p = rec + 3;
	uint8_t *state = p++;
	uint8_t mask = CTRACE_RETVAL_COMPACT | CTRACE_RETVAL_R0 |
		       CTRACE_RETVAL_R1 |
		       (v->st0 != NULL ? CTRACE_RETVAL_ST0 : 0);
	uint64_t r0 = v->gpr[0], r1 = v->gpr[1];
	memcpy(p, &r0, 8);
	memcpy(p + 8, &r1, 8);
	p += 16;
	if (v->st0 != NULL) {
		memcpy(p, v->st0, CTRACE_RETVAL_ST0_BYTES);
		p += CTRACE_RETVAL_ST0_BYTES;
	}
	if (v->how.retmask & CTRACE_RETVAL_MEM)
		p = put_lib_mem(p, &mask, v->gpr[0], sp);
	*state = mask;
	lib_ret_end(s, rec, p, CTRACE_REC_RETVAL);
}
#endif
