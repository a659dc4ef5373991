/* retval.c -- the return trampoline's side in C: return values
 * (CTRACE_RETVAL).
 *
 * capture.c finds a frame's return address at entry and hands it here:
 * the address is replaced with ctrace__retval_trampoline (arch/<arch>/
 * retval.S), listed per thread, and its exit hook reserves a RETVAL record
 * after the EXIT.  When the function returns, the trampoline calls
 * ctrace__retval_exit with the return registers, which fills the record
 * and gives back the real return address.  Before an exception unwinds,
 * every real return address is put back (the trampoline has no CFI).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "capture.h"
#include "retval.h"
#include "state.h"

#define PTR_SIZE sizeof(uintptr_t)
#if defined(__x86_64__)
#define RET0 rax
#define RET1 rdx
#else
#define RET0 eax
#define RET1 edx
#endif

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
	uintptr_t tramp;    /* what the slot was patched with: the return
			     * trampoline, or plt.c's */
};

/* Whether the trampoline must look at st0 (read by retval.S): set by the
 * exit hook for the frame about to return. */
__thread uint8_t ctrace__retval_st0 __attribute__((tls_model("initial-exec")));

#define TRAMP_MAX 16384 /* patched frames per thread */

struct retval_thread {
	struct ctrace__tramp_entry *stack;
	size_t depth;
	int failed; /* no memory: patch nothing more on this thread */
	/* The highest return address slot of a frame left unpatched because
	 * the list was full (0: none): the exits at or below it may be such
	 * frames', whose RETVAL record says so. */
	uintptr_t refused_top;
};

static __thread struct retval_thread rt
	__attribute__((tls_model("initial-exec")));

static int thread_ready(struct retval_thread *c)
{
	if (c->stack != NULL)
		return 1;
	if (c->failed)
		return 0;
	int saved_errno = errno;
	void *m = mmap(NULL, TRAMP_MAX * sizeof *c->stack,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	errno = saved_errno;
	if (m == MAP_FAILED) {
		c->failed = 1;
		return 0;
	}
	c->stack = m;
	return 1;
}

/* The thread is exiting (its key destructor): its list is given back, and
 * nothing more is patched on it.  With library calls on, every thread
 * makes one: a program that starts thread after thread would otherwise
 * run out of mappings.  Its frames are gone (returned, or unwound by
 * pthread_exit, which put their real return addresses back). */
void ctrace__retval_thread_end(void)
{
	struct retval_thread *c = &rt;
	c->failed = 1;
	if (c->stack != NULL) {
		int saved_errno = errno;
		munmap(c->stack, TRAMP_MAX * sizeof *c->stack);
		errno = saved_errno;
		c->stack = NULL;
		c->depth = 0;
	}
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

static struct ctrace__tramp_entry *push(struct retval_thread *c,
					uintptr_t slot, uintptr_t fn,
					uintptr_t tramp);

void ctrace__retval_patch(uintptr_t fn, uintptr_t site, uintptr_t cfa,
			  uint8_t mask, uint8_t mem, uint8_t len)
{
	struct retval_thread *c = &rt;
	if (unlikely(c->stack == NULL) && !thread_ready(c))
		return;
	uintptr_t slot = cfa - PTR_SIZE;
	if (*(uintptr_t *)slot != site)
		return; /* not where the CFI says: leave it alone */
	struct ctrace__tramp_entry *e =
		push(c, slot, fn, (uintptr_t)ctrace__retval_trampoline);
	if (e == NULL)
		return;
	e->mask = mask;
	e->mem = mem;
	e->len = len;
	ctrace__barrier();
	*(uintptr_t *)slot = (uintptr_t)ctrace__retval_trampoline;
}

int ctrace__retval_push(uintptr_t slot, uintptr_t fn, uintptr_t tramp,
			uint8_t mask)
{
	struct retval_thread *c = &rt;
	if (unlikely(c->stack == NULL) && !thread_ready(c))
		return -1;
	struct ctrace__tramp_entry *e = push(c, slot, fn, tramp);
	if (e == NULL)
		return 0;
	/* No record is reserved for it (rec stays NULL): the mask is the
	 * caller's, handed back by ctrace__retval_pop. */
	e->mask = mask;
	e->mem = 0;
	e->len = 0;
	ctrace__barrier();
	*(uintptr_t *)slot = tramp;
	return 1;
}

/* What a counted entry names as its slot until it is filled: no frame's,
 * and never holding a trampoline. */
static uintptr_t no_slot = 1;

/* The entry for a return address slot about to be patched with tramp,
 * counted, and filled but for the plan's fields (the caller fills those,
 * then patches); NULL if the list is full.  It is counted first, naming
 * no_slot: a signal handler on this thread that records calls while it
 * is filled (a library call's, which plt.c makes with the thread idle)
 * pushes its own above it, not over it, and takes it for another
 * stack's; its slot set last, it is one whose slot does not hold the
 * trampoline yet (a frame still running). */
static struct ctrace__tramp_entry *push(struct retval_thread *c,
					uintptr_t slot, uintptr_t fn,
					uintptr_t tramp)
{
	/* Entries above whose slot no longer holds the trampoline belong
	 * to frames that are gone (longjmp). */
	while (c->depth > 0) {
		const struct ctrace__tramp_entry *top =
			&c->stack[c->depth - 1];
		if (top->slot > slot || slot - top->slot >= CTRACE_STACK_NEAR ||
		    *(const uintptr_t *)top->slot == top->tramp)
			break; /* a caller, another stack's, or live */
		c->depth--;
	}
	if (unlikely(c->depth == TRAMP_MAX)) {
		if (slot > c->refused_top)
			c->refused_top = slot;
		return NULL;
	}
	size_t d = c->depth;
	struct ctrace__tramp_entry *e = &c->stack[d];
	e->slot = (uintptr_t)&no_slot;
	e->tramp = 0;
	ctrace__barrier();
	c->depth = d + 1;
	ctrace__barrier();
	e->real = *(uintptr_t *)slot;
	e->fn = fn;
	e->rec = NULL;
	e->chunk = 0;
	e->restored = 0;
	e->tramp = tramp;
	ctrace__barrier();
	e->slot = slot;
	return e;
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
static struct ctrace__tramp_entry *pending(struct retval_thread *c,
					   uintptr_t fn, uintptr_t sp,
					   int patched, size_t *scanned)
{
	struct ctrace__tramp_entry *best = NULL;

	if (c->stack == NULL)
		return NULL;
	for (size_t i = c->depth; i > 0; i--) {
		struct ctrace__tramp_entry *e = &c->stack[i - 1];
		++*scanned;
		int near = sp == 0 ||
			   (e->slot >= sp && e->slot - sp < CTRACE_STACK_NEAR);
		uintptr_t at = *(const uintptr_t *)e->slot;
		if ((!near && !(patched && e->slot >= sp)) ||
		    (at != e->tramp &&
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
static int above_refused(struct retval_thread *c, uintptr_t sp)
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
static int refused(struct retval_thread *c, uintptr_t sp)
{
	return c->refused_top != 0 && !above_refused(c, sp);
}

struct ctrace__tramp_entry *
ctrace__retval_pending(uintptr_t fn, uintptr_t sp, int patched,
		       uintptr_t *real, size_t *bytes, size_t *scanned)
{
	struct ctrace__tramp_entry *e = pending(&rt, fn, sp, patched, scanned);
	/* A slot the full list refused between the exit and e: the exit is
	 * a frame's at or below it (recursion deeper than the list), not a
	 * copy of fn inlined into e's frame, which exits above it. */
	uintptr_t top = rt.refused_top;
	if (e != NULL && !patched && top != 0 && sp < top && top < e->slot)
		e = NULL;
	if (e != NULL) {
		if (unlikely(top != 0))
			above_refused(&rt, sp);
		/* A frame an exception passed by (caught below it): its
		 * return goes through the trampoline again. */
		if (unlikely(e->restored)) {
			e->restored = 0;
			ctrace__barrier();
			*(uintptr_t *)e->slot = e->tramp;
		}
		*real = e->real;
		*bytes = 4 + (e->mask != 0 ? e->len : CTRACE_RETVAL_PAYLOAD);
		return e;
	}
	if (patched)
		*real = ctrace__retval_real(sp);
	if (unlikely(refused(&rt, sp)))
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
	const struct retval_thread *c = &rt;
	const struct ctrace__tramp_entry *best = NULL;

	if (c->stack == NULL)
		return 0;
	for (size_t i = c->depth; i > 0; i--) {
		const struct ctrace__tramp_entry *e = &c->stack[i - 1];
		if (e->slot < sp || *(const uintptr_t *)e->slot !=
					    (uintptr_t)ctrace__retval_trampoline)
			continue;
		if (e->slot - sp < CTRACE_STACK_NEAR)
			return e->real;
		if (best == NULL || e->slot < best->slot)
			best = e;
	}
	return best != NULL ? best->real : 0;
}

/* The return address the program left in slot, under the entries of
 * calls that jumped to their function with slot already holding tramp
 * (tail calls through a PLT from a call whose return tramp patched): the
 * real return of the newest entry of slot that is not tramp; 0 if none.
 * The newest entries lie lowest: the search ends above slot. */
uintptr_t ctrace__retval_real_at(uintptr_t slot, uintptr_t tramp)
{
	const struct retval_thread *c = &rt;

	if (c->stack == NULL)
		return 0;
	for (size_t i = c->depth; i > 0; i--) {
		const struct ctrace__tramp_entry *e = &c->stack[i - 1];
		if (e->slot > slot)
			break;
		if (e->slot == slot && e->real != tramp)
			return e->real;
	}
	return 0;
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
	ctrace__retval_st0 = e->mask == 0 || (e->mask & CTRACE_RETVAL_ST0);
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

/* The entry of the patched frame whose return brought the stack pointer
 * to sp, taken off the list with those above it; aborts if there is
 * none (the real return address is lost). */
static struct ctrace__tramp_entry take(struct retval_thread *c, uintptr_t sp)
{
	/* The common case, the newest entry's slot just below the stack
	 * pointer: what the search below finds first, with nothing above
	 * it to keep. */
	size_t d = c->depth;
	if (likely(d > 0 && c->stack[d - 1].slot == sp - PTR_SIZE)) {
		struct ctrace__tramp_entry e = c->stack[d - 1];
		ctrace__barrier();
		c->depth = d - 1;
		return e;
	}
	/* The slot is just below the stack pointer after ret, or a few words
	 * further down after `ret $n` (i386 struct returns). */
	size_t found = 0;
	for (uintptr_t slot = sp - PTR_SIZE;
	     !found && slot >= sp - PTR_SIZE * 4; slot -= PTR_SIZE)
		for (size_t i = c->depth; i > 0; i--)
			if (c->stack[i - 1].slot == slot) {
				found = i;
				break;
			}
	if (!found)
		lost_return();
	struct ctrace__tramp_entry e = c->stack[found - 1];
	ctrace__barrier();
	/* The entries above it are of frames gone with it (longjmp), unless
	 * they lie on another stack (coroutines): those still hold the
	 * trampoline.  A stale entry kept by chance is harmless: the search
	 * takes the newest match, and push() drops it once its slot is
	 * reused. */
	size_t keep = found - 1;
	for (size_t i = found; i < c->depth; i++) {
		uintptr_t s = c->stack[i].slot;
		if (s >= sp || sp - s >= CTRACE_STACK_NEAR ||
		    *(const uintptr_t *)s == c->stack[i].tramp)
			c->stack[keep++] = c->stack[i];
	}
	c->depth = keep;
	return e;
}

uintptr_t ctrace__retval_exit(struct ctrace__retregs *r)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	struct ctrace__tramp_entry e = take(&rt, r->sp);
	/* Not in a child no fork handler ran in: the chunk is the parent's. */
	if (e.rec != NULL && t->main.cur != NULL &&
	    t->main.chunk == e.chunk &&
	    (atomic_load_explicit(&ctrace__gate, memory_order_relaxed) &
	     CTRACE_GATE_LIVE)) {
		if (e.mask != 0)
			fill_compact(e.rec, r, e.mask, e.mem);
		else
			fill_full(e.rec, r);
	}
	return e.real;
}

uintptr_t ctrace__retval_pop(uintptr_t sp, uintptr_t *fn, uint8_t *mask)
{
	struct ctrace__tramp_entry e = take(&rt, sp);
	*fn = e.fn;
	*mask = e.mask;
	return e.real;
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
	struct retval_thread *c = &rt;
	if (c->stack == NULL)
		return;
	for (size_t i = c->depth; i > 0; i--) {
		struct ctrace__tramp_entry *e = &c->stack[i - 1];
		if (*(uintptr_t *)e->slot == e->tramp) {
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
