/* internal.h -- the recorder's private interfaces.
 *
 * HACKING.md describes which file does what.  Nothing here is
 * instrumented (-fno-instrument-functions), and nothing calls malloc:
 * memory comes from mmap, so an instrumented allocator in the program
 * cannot recurse into the recorder.
 */
#ifndef CTRACE_INTERNAL_H
#define CTRACE_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "ctrace.h"
#include "ctrace_format.h"
#include "leb128.h"

#if defined(__x86_64__)
#include "arch/x86_64/cpu.h"
#elif defined(__i386__)
#include "arch/i386/cpu.h"
#else
#error "ctrace: unsupported architecture (x86-64 and i386 only)"
#endif

#define CTRACE_HIDDEN __attribute__((visibility("hidden")))
/* On a C function that the hooks' stubs, the trampolines or the hooks'
 * fast path hand control to: it aligns the stack itself.  A function
 * entered on a misaligned stack (called so by hand-written assembly; its
 * own compiled code may never need the alignment) calls its hooks on
 * that stack, and the recorder must not crash the program for it.  The
 * plain hooks' fast path has no aligned access and calls nothing; what
 * it reaches out of line, and every path with values or library calls,
 * aligns here, at a few instructions (tests/misaligned.sh). */
#define CTRACE_REALIGN __attribute__((force_align_arg_pointer))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Blocks every signal a program may block (not the C library's own 32 and
 * 33, as pthread_sigmask) around the recorder's locks, with the kernel's
 * 8-byte mask: a sigset_t would cost 256 bytes of stack on paths that run
 * on the program's threads, whose stacks may be small. */
static inline uint64_t ctrace__block_signals(void)
{
	uint64_t all = ~((1ull << 31) | (1ull << 32)), saved = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &saved, sizeof all);
	return saved;
}

static inline void ctrace__restore_signals(uint64_t saved)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &saved, NULL, sizeof saved);
}

/* Orders our own stores against a signal handler on this thread and
 * against a SIGKILL: x86 keeps stores in program order, so only the
 * compiler must be stopped from reordering. */
#define ctrace__barrier() atomic_signal_fence(memory_order_seq_cst)

/* ---------------------------------------------------------------------------
 * Configuration (config.c)
 * ------------------------------------------------------------------------ */

struct ctrace__config {
	int enabled;           /* CTRACE != off */
	const char *output;    /* CTRACE_OUTPUT, default "trace.bin" */
	uint32_t chunk_size;   /* CTRACE_CHUNK_SIZE, bytes */
	int quiet;             /* CTRACE_QUIET: no messages on stderr */
	int start_off;         /* CTRACE_START=off */
	int match_regex;       /* CTRACE_MATCH=regex */
	uint32_t max_depth;    /* CTRACE_DEPTH, 0: none */
	uint64_t min_ns;       /* CTRACE_MIN_DURATION */
	int toggle_signal;     /* CTRACE_SIGNAL, 0: none */
	const char *tracepoints; /* CTRACE_TRACEPOINTS */
	unsigned mode;         /* CTRACE_MODE, default 0600 */
	int libcall;           /* CTRACE_LIBCALL: CTRACE_PLT_* (plt.h) */
	const char *run;       /* CTRACE_RUN, NULL: none */
};

/* Fills c from the environment.  Returns 0, or -EAGAIN when the C library
 * has not set up the environment yet (an IFUNC resolver). */
CTRACE_HIDDEN int ctrace__config_load(struct ctrace__config *c);
/* demangle.c: a C++ symbol's name as the symbolizer shows it (no
 * parameters).  0, or -1 when the name is not read (match the mangled
 * one); state: ctrace__demangle_state_size() bytes. */
CTRACE_HIDDEN size_t ctrace__demangle_state_size(void);
CTRACE_HIDDEN int ctrace__demangle_name(void *state, const char *mangled,
					char *out, size_t size);
/* CTRACE_FILTER, CTRACE_ARGS, CTRACE_RETVAL or CTRACE_PLAN; NULL when
 * unset or empty.  config.c is the only reader of the environment. */
enum { CTRACE_LIST_FILTER, CTRACE_LIST_ARGS, CTRACE_LIST_RETVAL,
       CTRACE_LIST_PLAN };
CTRACE_HIDDEN const char *ctrace__config_list(int which);
/* CTRACE_STRLEN: bytes of string text to capture, 0 to `limit`. */
CTRACE_HIDDEN size_t ctrace__config_string_max(size_t dflt, size_t limit);
/* The program runs with privileges its user does not have (AT_SECURE). */
CTRACE_HIDDEN int ctrace__secure(void);
/* Prints "ctrace: <message>" on stderr unless quiet; async-signal-safe. */
CTRACE_HIDDEN void ctrace__warn(const char *a, const char *b, const char *c);
/* The same with n parts (at most 6). */
CTRACE_HIDDEN void ctrace__warnv(const char *const *parts, int n);

/* ---------------------------------------------------------------------------
 * Clock (clock.c)
 * ------------------------------------------------------------------------ */

CTRACE_HIDDEN extern int ctrace__use_tsc;

/* CLOCK_MONOTONIC in ns (through the vDSO: no system call). */
CTRACE_HIDDEN uint64_t ctrace__monotonic_ns(void);

static inline uint64_t ctrace__now(void)
{
	if (likely(ctrace__use_tsc))
		return ctrace__rdtsc();
	return ctrace__monotonic_ns();
}

/* Ticks between two events of a stream beyond which the loader's list is
 * looked at again (emit.h's after_gap; ctrace__entry_flags): about 11 us
 * at 3 GHz, shorter than a dlopen, which opens, maps and relocates a
 * file. */
#define CTRACE_GAP_TICKS ((uint64_t)1 << 15)

/* For tests alone: when non-zero, the recorder's slow paths for a new
 * pair and a new capture rule each take this many ns longer
 * (ctrace__clock_test_delay), so that a test can show that their time is
 * never in a call's duration with a margin no load or CPU can cover
 * (tests/durations.sh).  Test programs set it through a weak declaration
 * (tests/progs/testdelay.h); nothing else does. */
CTRACE_HIDDEN extern volatile uint64_t ctrace__clock_test_delay_ns;
CTRACE_HIDDEN void ctrace__clock_test_spin(uint64_t ns);
static inline void ctrace__clock_test_delay(void)
{
	uint64_t ns = ctrace__clock_test_delay_ns;
	if (unlikely(ns != 0))
		ctrace__clock_test_spin(ns);
}

/* Chooses the clock and fills the header's calibration fields. */
CTRACE_HIDDEN void ctrace__clock_init(struct ctrace_file_header *h);
/* Records a fresh (ticks, ns) pair in the header for the symbolizer. */
CTRACE_HIDDEN void ctrace__clock_update(struct ctrace_file_header *h);
/* Nanoseconds since the start of the trace (for callbacks). */
CTRACE_HIDDEN uint64_t
ctrace__clock_ticks_to_ns(const struct ctrace_file_header *h, uint64_t ticks);
CTRACE_HIDDEN uint64_t
ctrace__clock_ns_to_ticks(const struct ctrace_file_header *h, uint64_t ns);

/* ---------------------------------------------------------------------------
 * Streams (stream.c)
 * ------------------------------------------------------------------------ */

/* pc: an ENTRY's hook return address (0 for a pair an EXIT defined), part
 * of an ENTRY's key: copies of a function inlined into itself share its
 * function, call site and stack pointer, and only their hook calls differ.
 * An EXIT matches a pair whatever its pc. */
struct ctrace__pair {
	uintptr_t fn, site, pc;
};

/* One writer's position in its current chunk.  A thread has a main
 * stream and, once a signal handler has interrupted the recorder itself,
 * a signal stream; the process has one metadata stream. */
/* The argument registers a library call's ARGS_LIB may hold (x86-64:
 * rdi to r9, and the low 8 bytes of xmm0-7). */
#define CTRACE__LIB_INT_REGS 6
#define CTRACE__LIB_VEC_REGS 8

struct ctrace__stream {
	/* What every event reads or writes, together after the thread's
	 * state (struct ctrace__thread): the open calls' counters were a
	 * cache line of their own. */
	uint8_t *cur;   /* next byte to write */
	uint8_t *limit; /* chunk end minus CTRACE_MAX_EVENT_BYTES */
	uint64_t last;  /* clock reading of the previous timed record */
	uintptr_t last_sp; /* of the previous ENTRY or STACK record */
	/* The open calls a RETURN may end (see ctrace_format.h): the top
	 * open_n of the ENTRYs pushed (open[] below), open_top counting
	 * pushes minus pops (the index wraps in the window). */
	uint32_t open_top, open_n;
	/* The wide slots (CTRACE_PAIR_HOMES, mapped at thread start; NULL in
	 * signal streams and when mapping failed: pairs then leave the
	 * table when pushed out of their narrow slot). */
	struct ctrace__pair *wide;
	struct ctrace__pair pair[CTRACE_PAIR_SLOTS]; /* narrow slots */
	/* The home of each narrow slot's pair, and the bases of the next
	 * NEW: the function and call site of the chunk's last NEW, the hook
	 * of its last NEW ENTRY. */
	uint16_t home[CTRACE_PAIR_SLOTS];
	struct ctrace__pair new_base;
	uint8_t *chunk_end; /* end of the part reserved on disk so far */
	uint8_t *chunk_start;
	uint64_t chunk;   /* index of the current chunk, if cur != NULL */
#define CTRACE_NO_CHUNK UINT64_MAX /* cur is in memory of no file */
	uint64_t seq;     /* sequence number of the next chunk */
	uint64_t carried; /* bytes of chunks since one started afresh */
	uint16_t kind;    /* enum ctrace_chunk_kind */
	uint32_t thread;  /* thread serial (0: metadata) */
	uint32_t tid;
	/* Events not stored since the last LOST record. */
	uint64_t lost, lost_first, lost_last;
	uint8_t lost_reason;
	uint32_t modules_epoch; /* ctrace__modules_epoch the pairs belong to */
	uint8_t victim;         /* which narrow slot a NEW takes, without wide ones */
	uint8_t credit[CTRACE_PAIR_SLOTS]; /* of each narrow slot (emit.h) */
	uint8_t wide_used;      /* some wide slot holds a pair */
	uint8_t miss_tag;       /* the tag pair_miss() chose (emit.h) */
	uint16_t moved_home;    /* the home of the pair the last miss moved out */
	uint16_t miss_home;     /* the home of the pair the last miss moved in */
	uint8_t miss_slot;      /* the narrow slot it took (0: none) */
	struct ctrace__pair miss_base; /* new_base once the missed event is
					* written */
	uint64_t looked; /* clock reading after the last look at the loader */
	struct ctrace__open {
		uintptr_t fn, site;
	} open[CTRACE_RETURN_WINDOW];
	/* The recorder's pauses written in PAUSE records so far (emit.h:
	 * pause_put), and one that found no room, for the next. */
	uint64_t paused, pause_pending;
	/* The bases of ARGS_SHORT registers written relative to their
	 * previous value (format 5.3): each register's value in the chunk's
	 * last ARGS_SHORT that held it, as struct ctrace__regs orders them
	 * (capture.c); zero at every chunk's start, as the reader's.
	 * arg_base_off: a record the reader will not see (a short call
	 * rewound, one a jump out of a signal handler abandoned) may have
	 * moved them, so they are not used again before the next chunk.
	 * Any ARGS_SHORT, ARGS_REGS or registers inline in an ENTRY moves
	 * and uses them (format 5.5 kept ARGS_SHORT from counting from an
	 * ARGS_REGS, which a 5.4 reader skipped; none reads format 6). */
	uintptr_t arg_base[8];
	uint8_t arg_base_off;
	/* The same bases for the registers of library calls' ARGS_LIB
	 * (other DWARF numbers), in the order capture.c writes them: the
	 * integer argument registers, then the vector ones. */
	uintptr_t lib_base[CTRACE__LIB_INT_REGS + CTRACE__LIB_VEC_REGS];
};
/* Empties the stream's pair table (a chunk that starts afresh, objects
 * unloaded, a jump out of the recorder): the reader keeps pairs the
 * recorder forgot, never the other way round.  Leaves new_base, which the
 * reader keeps until a chunk starts afresh. */
CTRACE_HIDDEN void ctrace__pairs_reset(struct ctrace__stream *s);

CTRACE_HIDDEN void ctrace__stream_init(struct ctrace__stream *s, uint16_t kind,
				       uint32_t thread, uint32_t tid);
/* Moves the stream to a new chunk.  Returns the write position, or NULL
 * if no chunk could be had (the event is then counted as lost). */
CTRACE_HIDDEN uint8_t *ctrace__stream_refill(struct ctrace__stream *s,
					     uint64_t now);
/* Counts one event that could not be stored. */
CTRACE_HIDDEN void ctrace__stream_lost(struct ctrace__stream *s, uint64_t now,
				       uint8_t reason);
/* Gives the stream's chunk back (thread exit, fork). */
CTRACE_HIDDEN void ctrace__stream_release(struct ctrace__stream *s);
/* At exit, by the thread that writes s (NULL: none): finishes the file
 * (ctrace__file_finish), cutting s's chunk to the pages it used when it
 * is the file's last; s's next event reserves the rest again. */
CTRACE_HIDDEN void ctrace__stream_finish(struct ctrace__stream *s);
/* Appends one extended record; returns 0 or -ENOSPC.  The caller makes
 * sure nothing else writes to the stream meanwhile. */
CTRACE_HIDDEN int ctrace__stream_record(struct ctrace__stream *s, uint8_t type,
					const void *payload, size_t len);

/* The metadata stream (meta.c), shared by all threads: these take a lock
 * with signals blocked, so they must not be called from the hot path. */
CTRACE_HIDDEN void ctrace__meta_lock(uint64_t *saved);
CTRACE_HIDDEN void ctrace__meta_unlock(const uint64_t *saved);
CTRACE_HIDDEN int ctrace__meta_record(uint8_t type, const void *payload,
				      size_t len); /* with the lock held */
CTRACE_HIDDEN void ctrace__meta_reset(void);

/* ---------------------------------------------------------------------------
 * Trace file (file.c)
 * ------------------------------------------------------------------------ */

struct ctrace__file {
	int fd;
	struct ctrace_file_header *header; /* mapped, shared */
	uint32_t chunk_size;
	uint64_t size;                     /* the file's length */
	char path[4096];                   /* the file actually written */
	char base[4096];                   /* CTRACE_OUTPUT, made absolute */
};

CTRACE_HIDDEN extern struct ctrace__file ctrace__file;

/* naming.c: the trace's name and its safe creation. */
struct ctrace__file_id {
	dev_t dev;
	ino_t ino;
};
/* -CTRACE_ERR_FILE_LIMIT: the file size limit is below the header. */
#define CTRACE_ERR_FILE_LIMIT 10003
/* path made absolute (against the current directory) into dst. */
CTRACE_HIDDEN int ctrace__naming_absolute(char *dst, size_t size,
					  const char *path);
/* Creates a new trace for `base` with `mode`, locked: named <base> if
 * base_first and that is free (or an old trace of ours), else the first
 * free <base>.<pid>[.<n>], below directories nobody else can change.
 * Sets path (size bytes) to the name taken, or to the name refused, and
 * *id to the file's identity.  Returns the descriptor, or a negative
 * error for ctrace__naming_report. */
CTRACE_HIDDEN int ctrace__naming_open(const char *base, int base_first,
				      unsigned mode, char *path, size_t size,
				      struct ctrace__file_id *id);
/* config.c: the variables the recorder reads that are set, each NAME=VALUE
 * and a NUL, into buf (what fits of size bytes, whole variables only);
 * returns the bytes used. */
CTRACE_HIDDEN size_t ctrace__config_settings(char *buf, size_t size);
/* The run this process belongs to (CTRACE_RUN, else its process group):
 * read once at start-up, inherited by forked children. */
CTRACE_HIDDEN void ctrace__naming_set_run(const char *run);
/* Stores the run in a header being filled. */
CTRACE_HIDDEN void ctrace__naming_fill_run(struct ctrace_file_header *h);
/* Says, in one line naming path, why the trace could not be created;
 * returns err. */
CTRACE_HIDDEN int ctrace__naming_report(int err, const char *path);

/* Creates the trace file and its header.  Returns 0 or a negative errno;
 * prints why on failure. */
CTRACE_HIDDEN int ctrace__file_open(const struct ctrace__config *c);
/* In a fork()ed child: leaves the parent's file alone and starts
 * <base>.<pid>.  Returns 0 or a negative errno. */
CTRACE_HIDDEN int ctrace__file_reopen_child(uint32_t parent_pid,
					    uint32_t parent_thread,
					    uint64_t fork_ticks);
/* Gives back chunk `old` (if not negative) and claims the next one,
 * mapped alone if `lone` (the metadata's: seldom written, long kept), with its first *len bytes reserved on disk: returns its address and
 * index, or NULL with *reason set (enum ctrace_lost_reason).  One lock for
 * both, taken with signals blocked by the caller (a stream's refill). */
CTRACE_HIDDEN uint8_t *ctrace__file_claim(int64_t old, int lone,
					  uint64_t *index, uint32_t *len,
					  uint8_t *reason);
/* Nonzero (the reason, enum ctrace_lost_reason) while the trace cannot
 * grow: from a failed claim to the next one that succeeds.  A relaxed
 * load: a stream that finds it set counts its events lost and tries a
 * claim only now and then (ctrace__stream_refill). */
CTRACE_HIDDEN extern _Atomic uint8_t ctrace__file_stalled;
/* Unlocks the recorder's mappings of the file, should the program have
 * locked them with mlockall(MCL_CURRENT).  With signals blocked. */
CTRACE_HIDDEN void ctrace__file_unlock(void);
/* Reserves the rest of chunk `index` from byte `from`: 0 or -errno. */
CTRACE_HIDDEN int ctrace__file_extend(uint64_t index, uint32_t from);
/* In a child forked while this thread was writing chunk `index` (fork()
 * in a signal handler that interrupted the recorder): the writer goes on
 * when the handler returns, so the chunk's memory becomes the child's own
 * (its file mapping is replaced), and the child's file never sees it. */
CTRACE_HIDDEN void ctrace__file_orphan_chunk(uint64_t index);
/* A writer is done with chunk `index`: its pages leave our memory. */
CTRACE_HIDDEN void ctrace__file_release(uint64_t index);
/* Trims the file to the chunks claimed and marks the trace finalized.
 * When chunk `last` (CTRACE_NO_CHUNK: none), of which the caller wrote
 * `used` bytes, is the last one claimed, the file ends with its pages
 * holding those bytes: returns how many bytes of it the file still holds
 * (a multiple of 4096), the writer's new chunk_end; 0 when the chunk was
 * not cut.  Before the writer's next event, with signals blocked. */
CTRACE_HIDDEN uint32_t ctrace__file_finish(uint64_t last, uint32_t used);
/* Refreshes the clock calibration in the header. */
CTRACE_HIDDEN void ctrace__file_sync(void);
/* pthread_atfork: hold the file lock across fork() in the parent. */
CTRACE_HIDDEN void ctrace__file_lock_for_fork(void);
CTRACE_HIDDEN void ctrace__file_unlock_after_fork(void);

/* ---------------------------------------------------------------------------
 * Modules (modules.c)
 * ------------------------------------------------------------------------ */

/* Records every loaded object not yet recorded, and unloads, as seen at
 * clock reading `now`.  Takes the metadata lock itself. */
CTRACE_HIDDEN void ctrace__modules_scan(uint64_t now);
/* Unlocks the table of known objects (see ctrace__file_unlock). */
CTRACE_HIDDEN void ctrace__modules_unlock(void);
/* Called when a new address shows up in an event at `now`: rescans if it
 * lies outside every known module and the loader's list has changed.
 * The scan is dated `now`, so the module is known from that event on. */
CTRACE_HIDDEN void ctrace__modules_check(uintptr_t addr, uint64_t now);
/* 1 when addr lies in a known object (loaded, scanned) that the first
 * scan found, 2 in one found since (dlopen), whose range it then gives;
 * else 0. */
CTRACE_HIDDEN int ctrace__modules_find(uintptr_t addr, uintptr_t *lo,
				       uintptr_t *len);
/* Rescans if the loader's list changed (at chunk claims, after a pause);
 * `signals_blocked`: the caller has blocked signals already. */
CTRACE_HIDDEN void ctrace__modules_refresh(uint64_t now, int signals_blocked);
/* Bumped whenever a scan finds an object loaded or unloaded. */
CTRACE_HIDDEN extern _Atomic uint32_t ctrace__modules_epoch;
CTRACE_HIDDEN void ctrace__modules_reset(void);
/* The NT_GNU_BUILD_ID of a loaded object, copied to id (at most max bytes);
 * returns its length, 0 if it has none. */
struct dl_phdr_info;
CTRACE_HIDDEN size_t ctrace__build_id(const struct dl_phdr_info *info,
				      uint8_t *id, size_t max);

/* log2 of the word size: an ENTRY's stack delta counts words.  Stack
 * pointers at calls are whole words apart, so a shift divides exactly,
 * without the rounding toward zero a signed division costs. */
#define CTRACE_WORD_SHIFT (sizeof(void *) == 8 ? 3 : 2)

/* Stack pointers this far apart are on different stacks (coroutines'). */
#define CTRACE_STACK_NEAR ((uintptr_t)64 << 10)

/* ---------------------------------------------------------------------------
 * Call frame information (cfi.c)
 * ------------------------------------------------------------------------ */

/* A canonical frame address rule: CFA = register + offset. */
struct ctrace__cfa {
	int32_t offset;
	uint8_t reg; /* CTRACE_DW_SP or CTRACE_DW_FP */
};

/* The rule in effect at the call that returns to pc, from the .eh_frame of
 * the object holding pc; *begin is set to the start of the FDE's range.
 * Returns 0, or -1 when the CFI cannot tell (none, an expression, another
 * register).  Async-signal-safe. */
CTRACE_HIDDEN int ctrace__cfa_at(uintptr_t pc, struct ctrace__cfa *rule,
				 uintptr_t *begin);

/* The rule in effect at pc in function fn (an FDE's start), for a reader
 * that walks fn's code in order: asked for pcs that do not decrease, the
 * CFA program runs once.  Returns 0, or -1 as ctrace__cfa_at.  Not for
 * two walkers at a time: plt.c's scans alone use it. */
CTRACE_HIDDEN int ctrace__cfa_walk(uintptr_t fn, uintptr_t pc,
				   struct ctrace__cfa *rule);

/* The range of the FDE that starts at fn, from the .eh_frame of the
 * object holding it: 0 and its length in *len, or -1 when no FDE starts
 * there (or this reader does not take it). */
CTRACE_HIDDEN int ctrace__cfi_extent(uintptr_t fn, uintptr_t *len);

/* .eh_frame_hdr's search table (hdr: the PT_GNU_EH_FRAME segment): count
 * pairs of the offsets from hdr of a function's start and of its FDE,
 * sorted by start; NULL when the header uses another encoding or the
 * table is empty. */
CTRACE_HIDDEN const int32_t *ctrace__cfi_table(const uint8_t *hdr,
					       size_t *count);

/* The frame field of an ENTRY's DEFINE record (see ctrace_format.h) for
 * function fn, whose stack pointer at its call to the entry hook is sp and
 * frame pointer register fp: 2 * (CFA - sp) / pointer size, plus 1 when
 * the call lies outside fn's own code (an inlined copy); 0 when unknown.
 * Cached for the process, keyed by the hook's return address and fn
 * (cfi.c); the signal path, which never looks there, does not ask. */
CTRACE_HIDDEN uintptr_t ctrace__frame_field(uintptr_t fn, uintptr_t sp,
					    uintptr_t fp);

/* The entry hook's return address, in the instrumented function, given
 * its caller's stack pointer at the call (the hook's CFA). */
static inline uintptr_t ctrace__hook_return(uintptr_t sp)
{
	uintptr_t pc;
	memcpy(&pc, (const void *)(sp - sizeof pc), sizeof pc);
	return pc;
}

/* ---------------------------------------------------------------------------
 * Threads and process life (init.c, hooks.c)
 * ------------------------------------------------------------------------ */

enum ctrace__state {
	CTRACE_T_NEW = 0,  /* first event of this thread not seen yet */
	CTRACE_T_IDLE,     /* recording, not inside the recorder */
	CTRACE_T_BUSY,     /* inside the recorder, its event not stored yet */
	CTRACE_T_OFF,      /* never recording (CTRACE=off, no file) */
	CTRACE_T_CALLBACK, /* running the user's callback: ignore events */
	/* Inside the recorder, its event stored or counted lost (or none):
	 * a jump out of a signal handler that interrupted it costs nothing. */
	CTRACE_T_SETTLED,
};

/* A call on the shadow stack (policy.c). */
struct ctrace__frame {
	uintptr_t fn, site, sp;
	uint8_t *pos, *end;  /* its ENTRY group in the stream, if recorded */
	uint64_t chunk;
	uint64_t ticks;      /* when it was entered */
	uint64_t paused;     /* the stream's `paused` then, before its own */
	uint64_t prev_last;  /* stream state before the ENTRY */
	uintptr_t prev_sp;
	struct ctrace__pair prev_base;
	uint8_t recorded;
};

struct ctrace__thread {
	uint8_t state;          /* enum ctrace__state */
	uint8_t signal_busy;    /* inside the recorder for the signal stream:
				 * 1, then CTRACE_T_SETTLED once stored */
	uint8_t thread_off;     /* ctrace_thread_disable() */
	/* The stack pointer the recorder was last entered with, stored
	 * before the state says busy: a hook far below it runs in a signal
	 * handler that interrupted the recorder, one near or above it
	 * follows a jump out of such a handler. */
	uintptr_t busy_sp;
	struct ctrace__stream main;
	struct ctrace__stream *signal; /* allocated on first use */
	/* Shadow stack, kept only on the policy path. */
	struct ctrace__frame *stack;
	size_t depth, capacity;
	size_t recorded;        /* frames on it whose ENTRY was recorded */
	/* The object of the last function an entry did not find in the
	 * flags table, known to the table it was checked against
	 * (ctrace__entry_flags). */
	const struct ctrace__flags_table_t *known_table;
	uintptr_t known_lo, known_len;
	/* ... an object loaded since start (dlopen): it may be unloaded and
	 * another loaded at its address before a scan notices, so it is
	 * trusted for CTRACE_GAP_TICKS from known_checked, when the loader's
	 * list was looked at (a reload takes longer) */
	uint8_t known_later;
	uint64_t known_checked;
};

enum ctrace__global_state {
	CTRACE_G_UNINIT = 0,
	CTRACE_G_STARTING,
	CTRACE_G_ON,
	CTRACE_G_OFF,
};
CTRACE_HIDDEN extern _Atomic int ctrace__global;

/* First event of a thread: starts the recorder if needed and registers the
 * thread.  Leaves t->state IDLE (record) or OFF. */
CTRACE_HIDDEN void ctrace__thread_start(struct ctrace__thread *t);
/* A hook found CTRACE_GATE_LIVE clear in a process that was recording:
 * a child no fork handler ran in.  Stops recording in it. */
CTRACE_HIDDEN void ctrace__fork_unseen(void);
CTRACE_HIDDEN uint32_t ctrace__gettid(void);

/* ---------------------------------------------------------------------------
 * Control (policy.c, filter.c, control.c)
 * ------------------------------------------------------------------------ */

/* Any bit set sends every hook through the policy path. */
#define CTRACE_GATE_TABLE 0x01    /* per-function flags (filters, capture) */
#define CTRACE_GATE_DEPTH 0x02    /* CTRACE_DEPTH */
#define CTRACE_GATE_DURATION 0x04 /* CTRACE_MIN_DURATION */
#define CTRACE_GATE_OFF 0x08      /* tracing switched off process-wide */
#define CTRACE_GATE_SHADOW 0x10   /* tracing may be switched: keep stacks */
#define CTRACE_GATE_CALLBACK 0x20 /* ctrace_set_callback */
/* Set once the process records.  The gate has a page of its own, wiped in
 * a forked child (MADV_WIPEONFORK) until the child's fork handler sets it
 * again: a child made without fork handlers (_Fork) finds it clear at its
 * first event, on the path any other bit takes, and records nothing. */
#define CTRACE_GATE_LIVE 0x80
struct ctrace__gate_page {
	_Alignas(4096) _Atomic uint8_t gate;
	uint8_t rest[4095];
};
CTRACE_HIDDEN extern ctrace_callback_fn ctrace__callback;
CTRACE_HIDDEN extern void *ctrace__callback_data;

/* Per-function flags. */
#define CTRACE_F_SKIP 0x01   /* not recorded (CTRACE_FILTER) */
#define CTRACE_F_ARGS 0x02   /* capture arguments (CTRACE_ARGS) */
#define CTRACE_F_RETVAL 0x04 /* capture the return value (CTRACE_RETVAL) */
#define CTRACE_F_RETREAD 0x08 /* ... read at its exits (a plan's `rx`):
			       * its entry needs nothing for it */

/* Reads the pattern lists; returns 1 if a table is in use, 0 if none is
 * needed, or a negative errno. */
CTRACE_HIDDEN int ctrace__filter_init(const struct ctrace__config *c);
CTRACE_HIDDEN int ctrace__filter_rescan(void);
/* Library calls (plt.c), decided once per GOT slot by the name of the
 * function it calls: its flags (CTRACE_F_SKIP: left out, not redirected);
 * then, for a slot redirected, slot `slot` (below CTRACE_FILTER_LIBCALLS,
 * the trampolines' count) at `got` with these flags, which every table
 * holds from the next ctrace__filter_libcalls_done() on. */
#define CTRACE_FILTER_LIBCALLS 4096
CTRACE_HIDDEN uint8_t ctrace__filter_libcall_flags(const char *name);
CTRACE_HIDDEN void ctrace__filter_libcall(uint32_t slot, uintptr_t got,
					  uint8_t flags);
CTRACE_HIDDEN void ctrace__filter_libcalls_done(void);

/* Function address to flags: open addressing, replaced whole (never
 * changed in place) when objects are loaded. */
struct ctrace__flags_slot {
	uintptr_t addr;
	uint8_t flags;
};
struct ctrace__flags_table_t {
	size_t mask; /* entries - 1 */
	size_t used;
	struct ctrace__flags_slot slots[];
};
CTRACE_HIDDEN extern struct ctrace__flags_table_t *_Atomic ctrace__flags_table;
CTRACE_HIDDEN extern uint8_t ctrace__default_flags;
/* Every flag some function may have: the default's, and each a table was
 * given before it was published (it only grows).  An exit needs no lookup
 * when no function is filtered out or has its return value captured. */
CTRACE_HIDDEN extern _Atomic uint8_t ctrace__flags_any;

static inline size_t ctrace__flags_slot_of(uintptr_t addr, size_t mask)
{
	return (size_t)(((uint64_t)addr * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

/* 1 with *flags when table t (not NULL) lists fn, else 0. */
static inline int ctrace__flags_find(const struct ctrace__flags_table_t *t,
				     uintptr_t fn, uint8_t *flags)
{
	for (size_t i = ctrace__flags_slot_of(fn, t->mask);;
	     i = (i + 1) & t->mask) {
		if (t->slots[i].addr == fn) {
			*flags = t->slots[i].flags;
			return 1;
		}
		if (t->slots[i].addr == 0)
			return 0;
	}
}

/* The flags of fn in table t (NULL: none built, the default's). */
static inline uint8_t
ctrace__function_flags_in(const struct ctrace__flags_table_t *t, uintptr_t fn)
{
	uint8_t flags;
	if (t != NULL && ctrace__flags_find(t, fn, &flags))
		return flags;
	return ctrace__default_flags;
}

static inline uint8_t ctrace__function_flags(uintptr_t fn)
{
	return ctrace__function_flags_in(
		atomic_load_explicit(&ctrace__flags_table,
				     memory_order_acquire),
		fn);
}

/* The flags of the function an entry enters.  One the table does not list
 * has the default flags only if its object is one the table was built
 * over: else the first call into a library loaded since (dlopen), decided
 * by the table without it, would have its exit decided by the one the
 * recorder builds on noticing the library, and be recorded at one end
 * only (a filter), or without the values asked for, or never (an include
 * filter that only the library's functions match: nothing else records,
 * so nothing would notice).  The thread keeps the range of the last
 * object it found known: a compare in the steady state (and a clock read
 * for a library loaded since start, which dlclose may have replaced with
 * another at the same address: looked at again after a pause). */
/* Reached from the hooks' fast path, which keeps the stack as it found it:
 * aligns it (it may scan the loader's list, whose code needs that). */
CTRACE_HIDDEN CTRACE_REALIGN uint8_t
ctrace__modules_flags_miss(struct ctrace__thread *t, uintptr_t fn);
/* Its part for a function table tab does not list: the default flags
 * in *flags, and 1 when its object is known to tab (else 0). */
static inline int
ctrace__entry_flags_unlisted(const struct ctrace__thread *t,
			     const struct ctrace__flags_table_t *tab,
			     uintptr_t fn, uint8_t *flags)
{
	*flags = ctrace__default_flags;
	if (t->known_table != tab || fn - t->known_lo >= t->known_len)
		return 0;
	return likely(!t->known_later) ||
	       (likely(ctrace__use_tsc) &&
		ctrace__rdtsc() - t->known_checked < CTRACE_GAP_TICKS);
}

/* Its part that calls nothing (the plain hooks' inline path has no
 * frame): 1 with *flags, or 0 when the object must be checked first. */
static inline int ctrace__entry_flags_known(const struct ctrace__thread *t,
					    uintptr_t fn, uint8_t *flags)
{
	const struct ctrace__flags_table_t *tab = atomic_load_explicit(
		&ctrace__flags_table, memory_order_acquire);
	if (tab != NULL && ctrace__flags_find(tab, fn, flags))
		return 1;
	return ctrace__entry_flags_unlisted(t, tab, fn, flags);
}

static inline uint8_t ctrace__entry_flags(struct ctrace__thread *t,
					  uintptr_t fn)
{
	uint8_t flags;
	if (likely(ctrace__entry_flags_known(t, fn, &flags)))
		return flags;
	return ctrace__modules_flags_miss(t, fn);
}

CTRACE_HIDDEN void ctrace__policy_enter(struct ctrace__thread *t,
					uintptr_t fn, uintptr_t site,
					uintptr_t sp, uintptr_t fp);
/* frame_sp: the exit hook's CFA (0: unknown), the function's stack pointer
 * at the hook's call (its CFA when it jumps to the hook, a tail call). */
CTRACE_HIDDEN void ctrace__policy_exit(struct ctrace__thread *t, uintptr_t fn,
				       uintptr_t site, uintptr_t sp,
				       uintptr_t frame_sp);

#endif /* CTRACE_INTERNAL_H */
