/* arch/x86_64/cpu.h -- clock and CPU queries for x86-64. */
#ifndef CTRACE_ARCH_CPU_H
#define CTRACE_ARCH_CPU_H

#include <stdint.h>

#define CTRACE_ARCH_MACHINE 62 /* EM_X86_64 */
#define CTRACE_ARCH_HAS_TSC 1

/* DWARF register numbers of the stack and frame pointers. */
#define CTRACE_DW_SP CTRACE_DW_SP_X86_64
#define CTRACE_DW_FP CTRACE_DW_FP_X86_64

/* No fence: ordering against surrounding loads does not matter for call
 * timing, and lfence would double the cost of the hook. */
static inline uint64_t ctrace__rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* The TSC once every instruction before has completed: the time after
 * a slow path (see pause_put() in emit.h), which must not be read while
 * that path's last loads are still outstanding. */
static inline uint64_t ctrace__rdtsc_after(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/* The TSC once every instruction before has completed and every store
 * before has left the store buffer: the end of a long pause of a
 * captured call (pause_put() in emit.h), whose last stores (the values
 * copied, the frame cache, a pair moved to its wide slot) miss the
 * caches; read after lfence alone, the time they still took fell to the
 * program's next loads and stores.  Not for every pause: waiting for the
 * stores costs more than they delay the program when they are few. */
static inline uint64_t ctrace__rdtsc_drained(void)
{
	uint32_t lo, hi;
	__asm__ volatile("mfence\n\tlfence\n\trdtsc"
			 : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/* The caller's stack pointer at the call to the hook (the hook's CFA).
 * Must be expanded in the hook itself.  Not from the frame address, which
 * would make the hook keep a frame pointer: rbp saved, set and restored,
 * one register fewer, on every event. */
#define CTRACE_CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())

/* The stack pointer where this is expanded: within a hook, a few words
 * below its caller's. */
static inline __attribute__((always_inline)) uintptr_t ctrace__sp(void)
{
	uintptr_t sp;
	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	return sp;
}

static inline void ctrace__cpuid(uint32_t leaf, uint32_t r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(0));
}

#endif
