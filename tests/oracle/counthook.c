/* counthook.c -- the call-count oracle: a second implementation of the
 * -finstrument-functions hooks that only counts.
 *
 * Linked into the same object files in place of -lctrace, it is the ground
 * truth for a trace of them: for every instrumented function, how many
 * times its entry hook ran and the sum of the depths (0 = outermost call of
 * its thread) it was entered at.  Nothing here can be wrong the way a
 * tracer can: there is no decoding, no stack matching, no inference.
 *
 * At exit it writes one line per function to $CTRACE_ORACLE_OUT (default
 * "oracle.out"; a fork()ed child appends ".PID"):
 *
 *     MODULE-PATH LINK-TIME-ADDRESS(hex) CALLS EXITS DEPTH-SUM
 *
 * where MODULE-PATH is "[exe]" for the executable.
 * tests/oracle/compare.py matches it against a trace's JSON by name.
 * Build it without -finstrument-functions.  Thread-safe and lock-free; the
 * table never drops a function: a full table aborts with a message.
 *
 * Built with -DCOUNTHOOK_TEE, the hooks are named counthook_enter and
 * counthook_exit, for tee.S, which calls them and then the recorder's: the
 * counts are then those of the traced run itself.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define TABLE_BITS 20 /* a million functions: more than any test needs */
#define TABLE_SIZE (1u << TABLE_BITS)

struct counter {
	void *_Atomic fn;
	_Atomic uint64_t calls, exits, depth_sum;
};

static struct counter table[TABLE_SIZE];
/* The slots claimed, each as its index + 1 (0: a claim not yet noted), in
 * the order claimed: writing the counts and clearing them in a forked
 * child visit these only, not the 32 MiB of the table (which cost 0.1 s
 * of CPU a run, most of an oracle run). */
static _Atomic uint32_t used[TABLE_SIZE];
static _Atomic uint32_t n_used;
static __thread uint64_t depth;
static char out_path[4096];

#define NO_INSTRUMENT __attribute__((no_instrument_function))

#ifdef COUNTHOOK_TEE
#define __cyg_profile_func_enter counthook_enter
#define __cyg_profile_func_exit counthook_exit
#endif

NO_INSTRUMENT static struct counter *counter_of(void *fn)
{
	uint32_t i = (uint32_t)(((uintptr_t)fn * 0x9E3779B97F4A7C15ull) >>
				(64 - TABLE_BITS));
	for (uint32_t n = 0; n < TABLE_SIZE; n++, i = (i + 1) & (TABLE_SIZE - 1)) {
		void *seen = atomic_load(&table[i].fn);
		/* A failed claim leaves in `seen` who won the slot. */
		if (!seen && atomic_compare_exchange_strong(&table[i].fn, &seen, fn)) {
			atomic_store(&used[atomic_fetch_add(&n_used, 1)], i + 1);
			return &table[i];
		}
		if (seen == fn)
			return &table[i];
	}
	fputs("counthook: function table full\n", stderr);
	abort();
}

NO_INSTRUMENT void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	struct counter *c = counter_of(fn);
	atomic_fetch_add_explicit(&c->calls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->depth_sum, depth, memory_order_relaxed);
	depth++;
}

NO_INSTRUMENT void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	atomic_fetch_add_explicit(&counter_of(fn)->exits, 1,
				  memory_order_relaxed);
	if (depth)
		depth--;
}

/* The last destructor of the executable (priority 101 runs after every
 * default one, and after the atexit handlers), so that the calls made by
 * atexit handlers and destructors are counted too. */
__attribute__((destructor(101))) NO_INSTRUMENT static void write_counts(void)
{
	FILE *f = fopen(out_path, "w");
	if (!f) {
		perror(out_path);
		return;
	}
	uint32_t n = atomic_load(&n_used);
	for (uint32_t k = 0; k < n && k < TABLE_SIZE; k++) {
		uint32_t i = atomic_load(&used[k]);
		void *fn;
		Dl_info info;
		struct link_map *map = NULL;
		if (!i || !(fn = atomic_load(&table[--i].fn)))
			continue;
		if (!dladdr1(fn, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
			info.dli_fname = "?";
		else if (!map->l_name[0]) /* the executable: its name differs */
			info.dli_fname = "[exe]"; /* from the traced build's */
		fprintf(f, "%s %#jx %ju %ju %ju\n", info.dli_fname,
			(uintmax_t)((uintptr_t)fn - (map ? map->l_addr : 0)),
			(uintmax_t)table[i].calls, (uintmax_t)table[i].exits,
			(uintmax_t)table[i].depth_sum);
	}
	fclose(f);
}

/* A fork()ed child counts only its own calls, into a file of its own; its
 * thread keeps the depth it inherited, as the child's trace does. */
NO_INSTRUMENT static void after_fork_in_child(void)
{
	const char *base = getenv("CTRACE_ORACLE_OUT");
	snprintf(out_path, sizeof out_path, "%s.%ld",
		 base ? base : "oracle.out", (long)getpid());
	uint32_t n = atomic_load(&n_used);
	for (uint32_t k = 0; k < n && k < TABLE_SIZE; k++) {
		uint32_t i = atomic_load(&used[k]);
		if (!i--)
			continue;
		atomic_store(&table[i].calls, 0);
		atomic_store(&table[i].exits, 0);
		atomic_store(&table[i].depth_sum, 0);
	}
}

__attribute__((constructor(101))) NO_INSTRUMENT static void start(void)
{
	const char *base = getenv("CTRACE_ORACLE_OUT");
	snprintf(out_path, sizeof out_path, "%s", base ? base : "oracle.out");
	pthread_atfork(NULL, NULL, after_fork_in_child);
}
