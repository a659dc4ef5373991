/* plt.h -- library calls through the PLT (plt.c). */
#ifndef CTRACE_PLT_H
#define CTRACE_PLT_H

#include "internal.h"

/* CTRACE_LIBCALL: off, on (the instrumented modules' calls), nest (every
 * module's calls, those libraries make to each other too). */
enum { CTRACE_PLT_OFF, CTRACE_PLT_ON, CTRACE_PLT_NEST };

/* At start-up, once the modules are recorded: redirects the slots of the
 * modules loaded so far. */
CTRACE_HIDDEN void ctrace__plt_start(int how);
/* The loader's list grew: redirects the slots of the new modules. */
CTRACE_HIDDEN void ctrace__plt_scan(void);
/* Library calls recorded: writes the LIB_RETURN record and a PLT_SLOT
 * record of each slot redirected so far into the trace (at start-up, or
 * a fork()ed child's, which starts without them). */
CTRACE_HIDDEN void ctrace__plt_describe(void);

/* plt.c's scan of a module's code for its GOT references, as the
 * architecture's pltarch.h reads it (plt_arch_region): how a region was
 * read, not at all (plt.c scans its bytes), with every register a base,
 * or with the registers that may hold one (i386, arch/i386/gotreg.h). */
enum { PLT_SCAN_BYTES, PLT_SCAN_ALIGNED, PLT_SCAN_TRACKED };

/* A segment's code and the module's GOT bases (bases[b] is bit b of a
 * register's set), and where each reference goes. */
struct plt_gotreg {
	const uint8_t *c;
	size_t size;
	uintptr_t base; /* c's address */
	const uintptr_t *bases;
	size_t n_bases;
	uintptr_t lo, hi; /* the slots' span: other addresses are no slot */
	void (*ref)(void *ctx, uintptr_t target, int kind);
	/* whether code at pc starts as a function does (its CFA the stack
	 * pointer above the return address) */
	int (*entry)(uintptr_t pc);
	/* the CFA's register at pc in the function at fn (4: esp, 5: ebp;
	 * else not known) and its offset, asked for in the code's order */
	int (*cfa)(uintptr_t fn, uintptr_t pc, int32_t *offset);
	/* scratch: a bit for each byte of code, or NULL (every register
	 * counts), and room for blocks_cap jump targets' states */
	uint8_t *marks;
	void *blocks;
	size_t blocks_cap;
	void *ctx;
};

#endif /* CTRACE_PLT_H */
