/* clock.c -- timestamps.
 *
 * The TSC costs about 8 ns to read where clock_gettime costs 18, so it is
 * used whenever it is invariant (constant rate, running in every C-state),
 * which makes it a monotonic clock shared by all cores.  Ticks are turned
 * into nanoseconds offline, from (ticks, CLOCK_MONOTONIC) pairs that the
 * recorder stores in the file header as the program runs.
 */
#include <time.h>

#include "internal.h"

int ctrace__use_tsc;
static int clock_forced = -1; /* CTRACE_CLOCK: -1 auto, 0 monotonic, 1 tsc */

uint64_t ctrace__monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

volatile uint64_t ctrace__clock_test_delay_ns;

/* Busy, as the recorder's own work is: a sleep would leave the CPU. */
void ctrace__clock_test_spin(uint64_t ns)
{
	uint64_t end = ctrace__monotonic_ns() + ns;
	while (ctrace__monotonic_ns() < end)
		;
}

void ctrace__clock_force(int tsc)
{
	clock_forced = tsc;
}

static int tsc_invariant(void)
{
	uint32_t r[4];
	ctrace__cpuid(0x80000000u, r);
	if (r[0] < 0x80000007u)
		return 0;
	ctrace__cpuid(0x80000007u, r);
	return (r[3] >> 8) & 1; /* EDX bit 8: invariant TSC */
}

/* A (ticks, ns) pair, ticks taken on both sides of the clock read. */
static void read_pair(uint64_t *ticks, uint64_t *ns)
{
	uint64_t a = ctrace__now();
	*ns = ctrace__monotonic_ns();
	uint64_t b = ctrace__now();
	*ticks = a + (b - a) / 2;
}

void ctrace__clock_init(struct ctrace_file_header *h)
{
	ctrace__use_tsc = clock_forced >= 0 ? clock_forced : tsc_invariant();
	h->clock = ctrace__use_tsc ? CTRACE_CLOCK_TSC : CTRACE_CLOCK_MONOTONIC;
	read_pair(&h->base_ticks, &h->base_ns);
	h->ticks_per_sec = 1000000000u;
	if (ctrace__use_tsc) {
		/* A 200 us estimate for short runs; the pairs taken later
		 * are what the symbolizer uses for longer ones. */
		uint64_t t, n;
		do
			read_pair(&t, &n);
		while (n - h->base_ns < 200000);
		h->ticks_per_sec = (uint64_t)((double)(t - h->base_ticks) *
					      1e9 / (double)(n - h->base_ns));
	}
	h->last_seq = 0;
	h->last_ticks = h->base_ticks;
	h->last_ns = h->base_ns;
}

/* Called with the file lock held, so there is one writer at a time. */
void ctrace__clock_update(struct ctrace_file_header *h)
{
	uint64_t t, n;
	read_pair(&t, &n);
	__atomic_store_n(&h->last_seq, h->last_seq + 1, __ATOMIC_RELAXED);
	ctrace__barrier();
	h->last_ticks = t;
	h->last_ns = n;
	ctrace__barrier();
	__atomic_store_n(&h->last_seq, h->last_seq + 1, __ATOMIC_RELEASE);
}

/* For callbacks: the start-up rate is good enough for live use; the
 * symbolizer refines it from the pairs. */
uint64_t ctrace__clock_ticks_to_ns(const struct ctrace_file_header *h,
				    uint64_t ticks)
{
	if (h == NULL || ticks < h->base_ticks)
		return 0;
	return (uint64_t)((double)(ticks - h->base_ticks) * 1e9 /
			  (double)h->ticks_per_sec);
}

uint64_t ctrace__clock_ns_to_ticks(const struct ctrace_file_header *h,
				    uint64_t ns)
{
	if (h == NULL)
		return ns;
	return (uint64_t)((double)ns * (double)h->ticks_per_sec / 1e9);
}
