/* retval.h -- return values: the return trampoline's C side (retval.c). */
#ifndef CTRACE_RETVAL_H
#define CTRACE_RETVAL_H

#include "capture.h"

/* The compact RETVAL payload's size for CTRACE_RETVAL_* bits (plan.c
 * keeps it in each entry). */
CTRACE_HIDDEN size_t ctrace__retval_payload(uint8_t mask, uint8_t mem);
/* Set for the trampoline when the returning frame may need st0. */
CTRACE_HIDDEN extern __thread uint8_t ctrace__retval_st0
	__attribute__((tls_model("initial-exec")));
/* Exit hook: the patched frame of fn waiting for its RETVAL record, or
 * NULL; sp is the exit hook's return address slot (else its stack
 * pointer; 0: unknown): no slot of a live patched frame lies below it, and
 * it tells the frame's stack when a thread runs several (coroutines);
 * patched: the hook was given the trampoline as its call site.  Its real
 * return address (*real) and the record's size (with its header) come
 * with it.  NULL with *bytes set to CTRACE_RETVAL_REFUSED_BYTES: the frame
 * may be one left unpatched because the list of patched frames was full,
 * for ctrace__retval_mark_refused to say (room made by the caller).
 * *scanned grows by the entries of the list looked at (one, commonly). */
struct ctrace__tramp_entry;
CTRACE_HIDDEN struct ctrace__tramp_entry *
ctrace__retval_pending(uintptr_t fn, uintptr_t sp, int patched,
		       uintptr_t *real, size_t *bytes, size_t *scanned);
CTRACE_HIDDEN void ctrace__retval_mark_refused(struct ctrace__stream *s);
#define CTRACE_RETVAL_REFUSED_BYTES 4
/* The real return address of the patched frame a hook given the
 * trampoline as call site runs in (an inlined copy's hooks), from the
 * hook's stack pointer sp; 0 if none is found. */
CTRACE_HIDDEN uintptr_t ctrace__retval_real(uintptr_t sp);
/* The return address the program left in return address slot `slot`,
 * below the entries of tail calls that found it patched with tramp; 0 if
 * none. */
CTRACE_HIDDEN uintptr_t ctrace__retval_real_at(uintptr_t slot,
					       uintptr_t tramp);
/* Reserves the RETVAL record right after the EXIT (room made by the
 * caller), for the trampoline to fill. */
CTRACE_HIDDEN void ctrace__retval_reserve(struct ctrace__stream *s,
					  struct ctrace__tramp_entry *e);

/* Replaces the return address of fn's frame (just below cfa, where the
 * CFI says) with the trampoline, if it holds the call site; mask, mem and
 * len: the plan's compact form (0: the full form). */
CTRACE_HIDDEN void ctrace__retval_patch(uintptr_t fn, uintptr_t site,
					uintptr_t cfa, uint8_t mask,
					uint8_t mem, uint8_t len);

/* Replaces the return address in slot with tramp (another return
 * trampoline: plt.c's), listed as any patched frame, so that unwinding
 * and longjmp treat both alike; fn: what the caller names the call by,
 * mask: the return registers it wants (CTRACE_RETVAL_*), kept for it.
 * Returns 1; 0 if the list is full, -1 if the thread has none (it is
 * exiting, or no memory): nothing patched then. */
CTRACE_HIDDEN int ctrace__retval_push(uintptr_t slot, uintptr_t fn,
				      uintptr_t tramp, uint8_t mask);
/* For that trampoline: the real return address of the frame whose return
 * left the stack pointer at sp, its fn and mask; the entry is taken
 * off. */
CTRACE_HIDDEN uintptr_t ctrace__retval_pop(uintptr_t sp, uintptr_t *fn,
					   uint8_t *mask);

/* The thread exits: its list of patched frames is unmapped. */
CTRACE_HIDDEN void ctrace__retval_thread_end(void);

/* retread.c: runs the operations ops[0..n) over the registers r (their
 * stack pointer: the function's at the exit hook's call), as the code
 * after that call will: out[] gets rax, rdx, the low 8 bytes of xmm0 and
 * xmm1, and the stack pointer after the `ret`. */
#define CTRACE_RETREAD_OUT 5
/* reads: ctrace__retread_reads(ops, n), the registers zeroed first; n
 * from 1 to CTRACE_PLAN_MAX_OPS (no end operation needed: the list is
 * copied).  For tests: the exit hook runs a plan's list in place
 * (ctrace__retread_put).  Returns 1, or 0 when an operation raised a
 * floating-point exception the program left unmasked (its own
 * instruction will trap: no value), or n is out of range. */
CTRACE_HIDDEN int ctrace__retread_run(const struct ctrace__plan_op *ops,
				      size_t n, uint32_t reads,
				      const struct ctrace__regs *r,
				      uint64_t out[CTRACE_RETREAD_OUT]);
/* retread.c: the registers (0-31) operations ops[0..n) may read before
 * they write them, and the record's: kept in the plan's exit entry. */
CTRACE_HIDDEN uint32_t ctrace__retread_reads(const struct ctrace__plan_op *ops,
					     size_t n);
/* retread.c: the largest RETVAL_SHORT payload of the registers of mask
 * (CTRACE_RETVAL_*) and mem bytes at r0. */
CTRACE_HIDDEN size_t ctrace__retread_payload_max(uint8_t mask, uint8_t mem);
/* retread.c: writes the filled RETVAL record of an exit whose return
 * value x says how to read from the exit hook's registers r (room made by
 * the caller: 4 + x->len bytes). */
CTRACE_HIDDEN void ctrace__retread_put(struct ctrace__stream *s,
				       const struct ctrace__plan_exit *x,
				       const struct ctrace__regs *r);

/* Called by the trampoline: fills the RETVAL record, returns the real
 * return address. */
CTRACE_HIDDEN CTRACE_REALIGN uintptr_t
ctrace__retval_exit(struct ctrace__retregs *r);
CTRACE_HIDDEN void ctrace__retval_trampoline(void);

#endif /* CTRACE_RETVAL_H */
