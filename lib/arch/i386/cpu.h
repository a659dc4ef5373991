/* arch/i386/cpu.h -- clock and CPU queries for i386. */
#ifndef CTRACE_ARCH_CPU_H
#define CTRACE_ARCH_CPU_H

#include <stdint.h>

#define CTRACE_ARCH_MACHINE 3 /* EM_386 */
#define CTRACE_ARCH_HAS_TSC 1

/* DWARF register numbers of the stack and frame pointers. */
#define CTRACE_DW_SP CTRACE_DW_SP_I386
#define CTRACE_DW_FP CTRACE_DW_FP_I386

static inline uint64_t ctrace__rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* The TSC once every instruction before has completed: the time after
 * a slow path (see pause_put() in emit.h), which must not be read while
 * that path's last loads are still outstanding.  lfence needs SSE2; without
 * it, cpuid would serialize at a far higher cost, and the plain read is
 * kept. */
static inline uint64_t ctrace__rdtsc_after(void)
{
	uint32_t lo, hi;
#ifdef __SSE2__
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
#else
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
#endif
	return ((uint64_t)hi << 32) | lo;
}

/* The TSC once every store before has left the store buffer too (see
 * arch/x86_64/cpu.h); mfence needs SSE2 as lfence does. */
static inline uint64_t ctrace__rdtsc_drained(void)
{
#ifdef __SSE2__
	uint32_t lo, hi;
	__asm__ volatile("mfence\n\tlfence\n\trdtsc"
			 : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
#else
	return ctrace__rdtsc_after();
#endif
}

/* The caller's stack pointer at the call to the hook (the hook's CFA).
 * Not from the frame address, which would make the hook keep a frame
 * pointer. */
#define CTRACE_CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())

/* ebx may be the PIC register on i386: save it around cpuid. */
/* The stack pointer where this is expanded: within a hook, a few words
 * below its caller's. */
static inline __attribute__((always_inline)) uintptr_t ctrace__sp(void)
{
	uintptr_t sp;
	__asm__ volatile("mov %%esp, %0" : "=r"(sp));
	return sp;
}

static inline void ctrace__cpuid(uint32_t leaf, uint32_t r[4])
{
	__asm__ volatile("xchgl %%ebx, %1\n\tcpuid\n\txchgl %%ebx, %1"
			 : "=a"(r[0]), "=&r"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(0));
}

#endif
