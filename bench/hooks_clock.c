/* Variant: -finstrument-functions hooks that read the clock ctrace times
 * events with and keep the reading, nothing more: what a tracer that
 * timestamps every entry and exit with that clock cannot avoid, the floor
 * below the recorder's own work.  The time-stamp counter on x86 (no
 * fence, as the recorder reads it; the recorder falls back to
 * CLOCK_MONOTONIC where the TSC is not invariant, this does not),
 * CLOCK_MONOTONIC elsewhere.  Each reading is stored into a small
 * per-thread ring, a cache line in use; the ring has external linkage, so
 * the stores are not optimised away.  Linked statically into the program,
 * as hooks_empty.c. */
#include <stdint.h>
#include <time.h>

#define NI __attribute__((no_instrument_function, noinline))

__thread uint64_t hooks_clock_ring[64];
__thread unsigned hooks_clock_pos;

static inline __attribute__((no_instrument_function)) uint64_t read_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

NI void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn;
    (void)site;
    hooks_clock_ring[hooks_clock_pos++ % 64] = read_clock();
}

NI void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
    hooks_clock_ring[hooks_clock_pos++ % 64] = read_clock();
}
