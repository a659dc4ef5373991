/* ctrace_format.h -- the ctrace trace file format: its constants,
 * structures and the named offsets of every fixed payload.
 *
 * This header is the only thing the recorder (libctrace.a) and the
 * symbolizer (ctrace-symbolize) share.  doc/format.md is the format's
 * specification (layout, chunks and streams, records and tags, the pair
 * table, returns, crash safety, extended records, older formats); the
 * values defined here are normative.  The two change together. */
#ifndef CTRACE_FORMAT_H
#define CTRACE_FORMAT_H

#include <stdint.h>

/* ---------------------------------------------------------------------------
 * File header
 * ------------------------------------------------------------------------ */

#define CTRACE_FILE_MAGIC "\177CTRACE\n" /* 8 bytes, no terminator stored */
#define CTRACE_VERSION_MAJOR 6           /* incompatible layout changes */
#define CTRACE_VERSION_MINOR 1           /* compatible additions */
#define CTRACE_BYTE_ORDER_MARK 0x01020304u
#define CTRACE_HEADER_SIZE 4096u

enum ctrace_clock {
	CTRACE_CLOCK_TSC = 1,       /* x86 invariant time-stamp counter */
	CTRACE_CLOCK_MONOTONIC = 2, /* clock_gettime(CLOCK_MONOTONIC), in ns */
};

/* header flags */
#define CTRACE_FLAG_FINALIZED 0x1u /* the process exited through exit() */
#define CTRACE_FLAG_FORKED 0x2u    /* written by a fork()ed child */

/* ancestors[] in the header (5.1) */
#define CTRACE_ANCESTORS 4

struct ctrace_file_header {
	char magic[8];          /* CTRACE_FILE_MAGIC */
	uint16_t version_major; /* CTRACE_VERSION_MAJOR */
	uint16_t version_minor; /* CTRACE_VERSION_MINOR */
	uint32_t byte_order;    /* CTRACE_BYTE_ORDER_MARK, native order */
	uint16_t machine;       /* ELF e_machine: 62 x86-64, 3 i386 */
	uint8_t pointer_size;   /* 8 or 4 */
	uint8_t clock;          /* enum ctrace_clock */
	uint32_t header_size;   /* CTRACE_HEADER_SIZE; chunk 0 starts here */
	uint32_t chunk_size;    /* bytes per chunk, a power of two >= 4096 */
	uint32_t pid;
	uint32_t ppid;
	uint32_t flags;         /* CTRACE_FLAG_* */
	uint64_t start_realtime_ns; /* CLOCK_REALTIME at start, ns since epoch */
	/* Clock calibration: the recorder reads (ticks, CLOCK_MONOTONIC ns)
	 * pairs.  base_* is the first, taken at start-up; last_* is updated
	 * as the program runs (at every chunk claim and at exit), under the
	 * sequence counter last_seq (odd while being written: ignore the
	 * pair then).  ticks_per_sec is the start-up estimate, used when the
	 * two pairs are too close to measure the rate. */
	uint64_t base_ticks;
	uint64_t base_ns;
	uint64_t ticks_per_sec;
	uint64_t last_seq;
	uint64_t last_ticks;
	uint64_t last_ns;
	/* Updated atomically while the program runs: */
	uint64_t chunks_claimed; /* chunks handed out so far */
	uint64_t lost_events;    /* events that could not be stored */
	uint64_t parent_ticks;   /* FORKED: parent's clock just before fork */
	uint32_t parent_pid;     /* FORKED: the parent's pid */
	uint32_t parent_thread;  /* FORKED: thread serial that called fork */
	/* FINALIZED: the file's length when the recorder finished it, which
	 * may end its last chunk early, at a page boundary (format 5): a
	 * file of exactly this length is whole.  0: the file covers whole
	 * chunks. */
	uint64_t final_size;
	/* (5.1) The pids above the parent: its parent, then that one's, up
	 * to CTRACE_ANCESTORS, read from /proc at start; 0 past the first
	 * unknown (or pid 1).  A reader places a process started by a
	 * program it has no trace of (a shell run by system()) under the
	 * nearest one it has. */
	uint32_t ancestors[CTRACE_ANCESTORS];
	/* The run (doc/format.md, "Processes"; zero in traces of earlier
	 * releases): every trace of one run is kept, never replaced by
	 * another of the same run.  run_id: a hash of CTRACE_RUN, which
	 * ctrace record sets, or 0; else run_pgid is the process group at
	 * start-up and run_start its leader's start time (clock ticks since
	 * boot, as /proc gives it; 0 when unknown). */
	uint64_t run_id;
	uint64_t run_start;
	uint32_t run_pgid;
	/* CTRACE_EXIT_*: which of the fields below hold values. */
	uint32_t exit_flags;
	/* At the process's end (CTRACE_EXIT_USAGE): CLOCK_REALTIME, and
	 * getrusage(RUSAGE_SELF) as the recorder read it when it finished
	 * the file; or, with CTRACE_EXIT_WAITED, as ctrace record's wait4
	 * for the process it started gave them (its reaped children
	 * included). */
	uint64_t end_realtime_ns;
	uint64_t user_ns;
	uint64_t system_ns;
	uint64_t max_rss_kb;
	uint64_t voluntary_switches;
	uint64_t involuntary_switches;
	/* CTRACE_EXIT_WAITED: the wait status (exit status or signal, as
	 * waitpid gives it) of the process ctrace record started;
	 * CTRACE_EXIT_RUN: the same of wait_pid, the process ctrace record
	 * started, which wrote no trace (a shell). */
	uint32_t wait_status;
	uint32_t wait_pid;
};

/* exit_flags */
#define CTRACE_EXIT_USAGE 0x1u  /* end_realtime_ns and the usage are set */
#define CTRACE_EXIT_WAITED 0x2u /* ...from wait4, and wait_status too */
#define CTRACE_EXIT_RUN 0x4u    /* wait_status and wait_pid: see above */

/* ---------------------------------------------------------------------------
 * Chunk header
 * ------------------------------------------------------------------------ */

#define CTRACE_CHUNK_MAGIC 0x4b484354u /* "TCHK" read as little-endian */

enum ctrace_chunk_kind {
	CTRACE_CHUNK_EVENTS = 1, /* a thread's events */
	CTRACE_CHUNK_SIGNAL = 2, /* events of signal handlers that ran while
				    the thread was inside the recorder */
	CTRACE_CHUNK_META = 3,   /* process metadata (modules, threads) */
};

struct ctrace_chunk_header {
	uint32_t magic;       /* CTRACE_CHUNK_MAGIC, stored last */
	uint16_t kind;        /* enum ctrace_chunk_kind */
	uint16_t header_size; /* sizeof(struct ctrace_chunk_header) */
	uint32_t thread;      /* process-unique thread serial, from 1; 0 META */
	uint32_t tid;         /* kernel thread id */
	uint64_t seq;         /* position of this chunk in its stream, from 0 */
	uint64_t base_time;   /* clock ticks the first delta is relative to */
	/* Since format 5 (earlier chunk headers end before flags; a reader
	 * takes their flags as 0): */
	uint32_t flags;       /* CTRACE_CHUNK_CONTINUES */
	uint32_t reserved;    /* 0 */
};

/* An event chunk whose pair table and NEW bases are those its stream's
 * previous chunk (seq - 1) ended with, where other chunks start with an
 * empty table.  Decoding it needs every event of that chunk: a reader
 * that could not decode the previous chunk to its end skips the
 * continuing chunks up to the stream's next chunk without the flag, and
 * says so.  The recorder starts a chunk afresh at least once per MiB of
 * a stream, and after events were lost. */
#define CTRACE_CHUNK_CONTINUES 0x1u

/* ---------------------------------------------------------------------------
 * Record tags
 * ------------------------------------------------------------------------ */

#define CTRACE_TAG_END 0x00
#define CTRACE_TAG_EXIT_BIT 0x80
#define CTRACE_TAG_EXTENDED 0x80
#define CTRACE_PAIR_SLOTS 128   /* narrow slot numbers are below this */
#define CTRACE_PAIR_NARROW 62   /* narrow slots 1..62 */
#define CTRACE_TAG_NEW 0x3f     /* low bits: a NEW pair */
#define CTRACE_TAG_WIDE 0x40    /* low bits 0x40..0x5f: a wide slot */
#define CTRACE_TAG_WIDE_MOVE 0x60 /* 0x60..0x7f: one moving to narrow */
#define CTRACE_PAIR_HOME_BITS 13
#define CTRACE_PAIR_HOMES (1u << CTRACE_PAIR_HOME_BITS)
/* Formats 2.0 to 4.0 (still read): fewer homes, more narrow slots. */
#define CTRACE_V4_PAIR_NARROW 110
#define CTRACE_V4_TAG_NEW 0x6f
#define CTRACE_V4_TAG_WIDE 0x70
#define CTRACE_V4_PAIR_HOME_BITS 11
/* The home of a pair of a table with 2^bits homes (since format 4 a
 * reader computes a NEW's home with it): a hash of the offsets of its
 * function and call site in their 4 KiB pages, which address
 * randomisation leaves alone.  Format 5 hashes an ENTRY's function and
 * its call site XOR its hook; format 4, so only a NEW whose key has
 * CTRACE_NEW_KEY_SIBLING (else the function and call site). */
#define CTRACE_PAIR_HOME_OF(fn, site, bits)                                    \
	((uint32_t)((uint32_t)(((uint32_t)(fn) & 0xfffu) << 12 |               \
			       ((uint32_t)(site) & 0xfffu)) *                  \
		    0x9e3779b1u) >>                                            \
	 (32 - (bits)))
#define CTRACE_PAIR_HOME(fn, site)                                             \
	CTRACE_PAIR_HOME_OF(fn, site, CTRACE_PAIR_HOME_BITS)
#define CTRACE_NEW_KEY_CHOICE 1u  /* the pair's second narrow slot */
#define CTRACE_NEW_KEY_SIBLING 2u /* format 4: home of (fn, site ^ hook) */
#define CTRACE_NEW_KEY_WIDE 4u    /* format 5: into its home's wide slot */
/* Format 6, an ENTRY's NEW: every ENTRY of the pair is followed, inside
 * its group, by an ARGS_REGS payload without its record header (the
 * count byte, then the registers; see doc/format.md). */
#define CTRACE_NEW_KEY_ARGS 8u
/* The narrow slot (1..narrow) of a pair of home h, choice c, in a table
 * with 2^bits homes and `narrow` narrow slots. */
#define CTRACE_PAIR_NARROW_SLOT_OF(h, c, bits, narrow)                         \
	(((((c) ? (h) * 0x5bdu : (h)) & ((1u << (bits)) - 1)) * (narrow) >>    \
	  (bits)) + 1)
#define CTRACE_PAIR_NARROW_SLOT(h, c)                                          \
	CTRACE_PAIR_NARROW_SLOT_OF(h, c, CTRACE_PAIR_HOME_BITS,                \
				   CTRACE_PAIR_NARROW)
#define CTRACE_V1_PAIR_SLOTS 128 /* format 1: slots 1..127, no wide ones */
/* Format 5's EXIT tags (doc/format.md, "Returns"). */
#define CTRACE_TAG_EXIT_PAIR 0x81   /* an EXIT record follows */
#define CTRACE_TAG_RETURN 0x82      /* RETURN, time delta tag - 0x82 */
#define CTRACE_TAG_RETURN_LONG 0xff /* RETURN, uleb128 time delta */
#define CTRACE_RETURN_SHORT (CTRACE_TAG_RETURN_LONG - CTRACE_TAG_RETURN)
#define CTRACE_RETURN_WINDOW 256    /* open calls a RETURN may reach */

/* Extended record types. */
enum ctrace_record_type {
	/* --- in event and signal streams ----------------------------------- */

	/* Format 1 only (format 2 has NEW tags): define pair slot: u8 slot,
	 * u64 function, u64 call_site, and in the DEFINE of an ENTRY, when
	 * the recorder found the function's CFI (format 1.1), uleb frame:
	 * 2 * (CFA - the ENTRY's stack pointer) / pointer_size, plus 1 when
	 * the entry hook was called from outside the function's own code (a
	 * copy inlined into its caller, whose frame it then shares).  A
	 * call's frame lies below its caller's CFA, so frames tell a callee
	 * from a call made after its caller was left by longjmp.  A NEW
	 * ENTRY's frame field is the same, 0 when unknown. */
	CTRACE_REC_DEFINE = 1,

	/* Events that could not be stored: uleb count, u8 reason
	 * (enum ctrace_lost_reason), u64 first_ticks, u64 last_ticks
	 * (absolute clock readings of the first and last lost event).
	 * Written at the point of the stream where they were lost. */
	CTRACE_REC_LOST = 2,

	/* The thread exited normally: u64 ticks (absolute). */
	CTRACE_REC_THREAD_END = 3,

	/* Machine state at a call's entry, for its arguments (CTRACE_ARGS);
	 * directly follows the ENTRY it belongs to, in the same chunk:
	 * u64 pc (the return address of the entry hook: a PC inside the
	 * function), u64 sp (the function's stack pointer at that call: the
	 * ENTRY's), u64 cfa (the function's canonical frame address as the
	 * recorder found it in its CFI; 0 if unknown), u8 n, then n times
	 * (u8 DWARF register number, u64 value): the callee-saved registers;
	 * then memory blocks up to the end of the payload, each u64 address,
	 * uleb length, the bytes: stack windows around sp and cfa (or the
	 * ranges a capture plan names), and the text of string arguments
	 * (CTRACE_STRLEN bytes at most, the terminator included when it
	 * fits; a block of length 0: the pointer could not be read).
	 * After a library call's ENTRY (a PLT_SLOT's): pc is the call site,
	 * cfa 0, the registers the argument registers its prototype uses
	 * (xmm0-7, DWARF 17-24: their low 8 bytes), or all of them for a
	 * function the recorder's table does not list, the blocks the text
	 * of its string arguments; on i386 no register, the first block the
	 * arguments' words on the stack above sp (doc/format.md). */
	CTRACE_REC_ARGS = 4,
	/* A call's return registers (CTRACE_RETVAL); directly follows the
	 * EXIT it belongs to.  The exit hook reserves it and the function's
	 * return fills it in: u8 state (0: not filled, the function left
	 * another way; 1: filled), u64 r0 (rax/eax), u64 r1 (rdx/edx),
	 * 16 bytes xmm0, 16 bytes xmm1 (zero on i386), 10 bytes st0, u8 st0
	 * valid, u64 address, u8 length, 64 bytes: memory at r0 when it
	 * points into the caller's stack frame (a returned struct).  Payload
	 * CTRACE_RETVAL_PAYLOAD bytes.
	 * Compact form, when the capture plan knows the return type's
	 * registers: u8 state (0: not filled; filled: CTRACE_RETVAL_COMPACT
	 * plus the mask of the fields that follow, CTRACE_RETVAL_R0...),
	 * then those fields in bit order: u64 r0, u64 r1, 16 bytes xmm0,
	 * 16 bytes xmm1, 10 bytes st0, and for CTRACE_RETVAL_MEM u64
	 * address, u8 length, the bytes (at r0: a struct returned in
	 * memory).  With CTRACE_RETVAL_NARROW (format 1.1), r0 and r1 are
	 * u32 and xmm0 and xmm1 8 bytes: the low halves, all the type
	 * needs.  A field the recorder could not have (st0 empty, memory
	 * outside the caller's frame) is left out with its bit; zero bytes
	 * may follow the last field.  Always shorter than
	 * CTRACE_RETVAL_PAYLOAD, so a reader of the full form alone finds
	 * it "not captured".  A one-byte payload CTRACE_RETVAL_REFUSED:
	 * the value was not captured, the recorder's list was full.  After
	 * a library call's EXIT: the compact form, filled, R0 and XMM0, and
	 * R1 and XMM1 for a function the recorder's table does not list
	 * (i386: R0 and R1 for every function, and ST0 when st(0) held a
	 * value); on x86-64 a CTRACE_REC_RETVAL_ST1 instead when st(1)
	 * held a value too (format 5.6). */
	CTRACE_REC_RETVAL = 5,

	/* A user marker or tracepoint hit: u64 ticks (absolute), u8 kind
	 * (enum ctrace_mark_kind); for a tracepoint its name and a NUL;
	 * then the message (rest of the payload, no terminator). */
	CTRACE_REC_MARK = 6,

	/* Recording switched: u64 ticks (absolute), u8 what
	 * (enum ctrace_control), u8 scope (enum ctrace_control_scope). */
	CTRACE_REC_CONTROL = 7,

	/* CTRACE_REC_ARGS in short form, written when the capture plan
	 * names the registers a call needs (and so the CFA rule, which a
	 * reader finds in the same CFI): sleb pc minus the ENTRY's function,
	 * u8 n plus 8 times the low 5 bits of the stack pointer divided by
	 * pointer_size (a reader whose ENTRY stack pointer disagrees must
	 * not use the record), n times (u8 DWARF register number, sleb value: the register
	 * as a signed pointer-sized integer, or with 0x80 added to the
	 * number, the register minus the ENTRY's stack pointer, or with
	 * 0x40 added (format 1.1), the register minus the value of the
	 * previous register of the record), or with both (format 5.3),
	 * the register minus its own value in the chunk's previous
	 * ARGS_SHORT that held it (0 in none, at the chunk's start), then
	 * memory blocks up to the
	 * end of the payload, each sleb address minus the ENTRY's stack
	 * pointer, uleb length, the bytes.  The stack pointer is the
	 * ENTRY's; the CFA is not recorded.  Sums wrap at the pointer size. */
	CTRACE_REC_ARGS_SHORT = 8,

	/* The EXIT that follows may run on another stack than the previous
	 * ENTRY of the chunk (a coroutine resumed by swapcontext): sleb its
	 * stack pointer (within the exit hook) minus the previous ENTRY's,
	 * or the last STACK's, or 0 at the start of the chunk, divided by
	 * pointer_size.  Later ENTRY deltas count from it.  Written when the
	 * two are over 64 KiB apart, so also before a chunk's first EXIT
	 * when no ENTRY precedes it; a reader matches an EXIT to a call on
	 * another stack only with it, and falls back to its function and
	 * call site alone (a frame grown by alloca). */
	CTRACE_REC_STACK = 9,

	/* Format 5.2: the recorder worked this long (uleb ticks) after the
	 * event before it (and that event's ARGS or RETVAL) was timed: a
	 * new pair defined, its frame read from the CFI, its module checked,
	 * a chunk claimed, values located and copied.  Every later time of
	 * the thread (both its streams) is that much later on the wall clock
	 * than in the program's own time: a reader takes it out of durations
	 * and keeps it where it places threads and processes by the wall
	 * clock.  Written when at least CTRACE_PAUSE_MIN_TICKS. */
	CTRACE_REC_PAUSE = 10,

	/* Format 5.4: CTRACE_REC_RETVAL's compact form, filled, as the exit
	 * hook writes it when it reads the value itself (a capture plan's
	 * `exit` line, x86-64): the u8 state (CTRACE_RETVAL_COMPACT plus the
	 * mask), then r0 and r1 each as a sleb (with CTRACE_RETVAL_NARROW
	 * of their low 32 bits, sign-extended), the other fields as in the
	 * compact form.  A 5.3 reader skips it: the value shows as not
	 * captured. */
	CTRACE_REC_RETVAL_SHORT = 11,

	/* Format 5.5: CTRACE_REC_ARGS_SHORT of registers alone, without its
	 * pc: the ENTRY's hook, which its pair carries (the NEW that defined
	 * it), is the record's pc.  The payload is ARGS_SHORT's after the
	 * pc (the count byte, then the registers), no memory blocks.  A 5.4
	 * reader skips it: the arguments show as not captured.  Its
	 * registers move the bases (CTRACE_ARGS_SHORT_REL_BASE), but in
	 * format 5.5 no ARGS_SHORT counts from a base an ARGS_REGS set,
	 * which a 5.4 reader does not have (since 6.0 any may).  Format 6
	 * writes its payload inside the ENTRY's group instead, without this
	 * header, when the ENTRY's pair has CTRACE_NEW_KEY_ARGS (64-bit
	 * traces). */
	CTRACE_REC_ARGS_REGS = 12,

	/* Format 5.5: CTRACE_REC_RETVAL_SHORT of rax alone, its state byte
	 * left out: RETVAL_INT, the state CTRACE_RETVAL_COMPACT |
	 * CTRACE_RETVAL_R0 | CTRACE_RETVAL_NARROW (an int), the payload the
	 * sleb of eax; RETVAL_WORD, the state CTRACE_RETVAL_COMPACT |
	 * CTRACE_RETVAL_R0 (a long, a pointer), the sleb of rax.  A 5.4
	 * reader skips them: the value shows as not captured.  Also a
	 * library call's return on x86-64, when the recorder's prototype
	 * table says the function returns such a value. */
	CTRACE_REC_RETVAL_INT = 13,
	CTRACE_REC_RETVAL_WORD = 14,

	/* Format 5.6: CTRACE_REC_RETVAL in its compact form, filled, then
	 * st(1)'s 10 bytes (the payload's last CTRACE_RETVAL_ST1_BYTES): a
	 * library call's EXIT on x86-64 whose function returned with both
	 * st(0) and st(1) holding a value, a _Complex long double (its real
	 * part in st0, its imaginary part in st1), written instead of its
	 * RETVAL when the recorder saves st(0) (CTRACE_RETVAL_ST0 in the
	 * mask).  The compact RETVAL's mask has no bit left to say st(1)
	 * follows.  A 5.5 reader skips it: the value shows as not
	 * captured. */
	CTRACE_REC_RETVAL_ST1 = 15,

	/* Format 6.1: a library call's ARGS (x86-64) in short form: sleb
	 * pc minus the ENTRY's function (its GOT slot), u8 n, u8 the low
	 * bits of the stack pointer in words (CTRACE_ARGS_SHORT_SP_MASK),
	 * then n registers and the memory blocks as in ARGS_SHORT (a
	 * string's text, the stack arguments).  ARGS_SHORT's count byte
	 * holds 7 registers at most, and a function the prototype table
	 * does not know passes 14 (six integer, eight vector).  Its
	 * registers move the bases as any ARGS_SHORT's (theirs are other
	 * DWARF numbers: the argument registers, xmm0-7's low 8 bytes).
	 * The full form took 47 to 196 bytes a call.  A 6.0 reader skips it:
	 * the arguments show as not captured. */
	CTRACE_REC_ARGS_LIB = 16,

	/* --- in the metadata stream ---------------------------------------- */

	/* The process: u64 ticks, u32 pid, u32 ppid, then the executable's
	 * path (rest of the payload, no terminator). */
	CTRACE_REC_PROCESS = 32,

	/* A loaded ELF object, seen at the time given: u64 ticks,
	 * u64 load_bias (runtime address minus link-time address),
	 * u64 start, u64 end (runtime address range of its PT_LOAD segments),
	 * u8 build_id_length, build_id bytes, then its path (rest of the
	 * payload, no terminator; "" never: the main program's real path is
	 * recorded; absolute: a library loaded by a relative name, as
	 * dlopen("./plugin.so"), has the path the kernel gives its mapping). */
	CTRACE_REC_MODULE = 33,

	/* An ELF object was unloaded: u64 ticks, u64 start. */
	CTRACE_REC_MODULE_GONE = 34,

	/* A thread's identity: u64 ticks, u32 thread serial, u32 tid,
	 * then its name (rest of the payload; may be empty). */
	CTRACE_REC_THREAD = 35,

	/* The command line: the arguments, each NUL-terminated. */
	CTRACE_REC_ARGV = 36,

	/* A GOT slot whose calls are recorded as library calls (their
	 * ENTRY's function is the slot's address): u64 ticks, u64 slot,
	 * u64 target (0 until the loader bound it; a later record gives
	 * it), then the relocation's symbol (rest of the payload, no
	 * terminator).  A slot of 0: the process's library calls cannot be
	 * seen (a static program). */
	CTRACE_REC_PLT_SLOT = 37,
	/* The recorder's settings: the variables of ctrace-env(7) set in
	 * the environment it started with, each NAME=VALUE NUL-terminated
	 * (none set: no record).  Written once, after ARGV. */
	CTRACE_REC_SETTINGS = 38,
	/* Format 6.1: the address the recorder puts in place of a library
	 * call's return address (u64; lib/plt.c), written with the
	 * process's first PLT_SLOT.  An instrumented function whose ENTRY
	 * has it for call site was jumped to by the library function (a
	 * tail call: libstdc++'s basic_string constructor jumping to the
	 * program's _M_construct), and runs in that call's frame: it nests
	 * in the library call, and is shown at the call's site.  A 6.0
	 * reader ignores it. */
	CTRACE_REC_LIB_RETURN = 39,
};

enum ctrace_mark_kind {
	CTRACE_MARK_USER = 0,       /* ctrace_mark() */
	CTRACE_MARK_TRACEPOINT = 1, /* CTRACE_TRACEPOINT() */
};

enum ctrace_control {
	CTRACE_CONTROL_OFF = 1,
	CTRACE_CONTROL_ON = 2,
};

enum ctrace_control_scope {
	CTRACE_CONTROL_PROCESS = 0,
	CTRACE_CONTROL_THREAD = 1,
};

enum ctrace_lost_reason {
	CTRACE_LOST_NO_SPACE = 1,  /* the file could not grow (disk full) */
	CTRACE_LOST_NO_MEMORY = 2, /* the file could not be mapped */
	CTRACE_LOST_NESTED = 3,    /* signal within a signal within the hook */
	CTRACE_LOST_TOO_LARGE = 4, /* the trace reached its address limit */
	CTRACE_LOST_JUMPED = 5,    /* a jump out of a handler left the hook */
	CTRACE_LOST_EARLY = 6,     /* before the environment existed (IFUNC) */
	/* A library call the recorder's list of calls waiting to return
	 * (16384 a thread) had no room for: no ENTRY without its EXIT.  A
	 * reason of this release's recorder; a reader from before it says
	 * "unknown reason". */
	CTRACE_LOST_RETURNS = 7,
};

/* ---------------------------------------------------------------------------
 * Fixed payloads of ARGS, ARGS_SHORT and RETVAL: byte offsets and sizes
 * ------------------------------------------------------------------------ */

/* ARGS: u64 pc, u64 sp, u64 cfa, u8 n, then n registers of
 * CTRACE_ARGS_REG_BYTES (u8 DWARF number, u64 value), then blocks. */
#define CTRACE_ARGS_PC 0
#define CTRACE_ARGS_SP 8
#define CTRACE_ARGS_CFA 16
#define CTRACE_ARGS_NREGS 24
#define CTRACE_ARGS_REGS 25
#define CTRACE_ARGS_REG_BYTES 9

/* ARGS_SHORT: the count byte holds the number of registers in its low
 * CTRACE_ARGS_SHORT_COUNT_BITS bits and the low bits of the stack pointer
 * in words above them; each register number may carry one flag saying
 * what its sleb value is relative to. */
#define CTRACE_ARGS_SHORT_COUNT_BITS 3
#define CTRACE_ARGS_SHORT_COUNT_MASK 0x07
#define CTRACE_ARGS_SHORT_SP_MASK 0x1f  /* stack pointer bits, in words */
#define CTRACE_ARGS_SHORT_REL_SP 0x80   /* minus the ENTRY's stack pointer */
#define CTRACE_ARGS_SHORT_REL_PREV 0x40 /* minus the previous register */
#define CTRACE_ARGS_SHORT_REL_BASE 0xc0 /* (5.3) minus its own last value */
#define CTRACE_ARGS_SHORT_REGNO 0x3f    /* the DWARF number */

/* The callee-saved registers the entry stub saves, by DWARF number, in
 * the order ARGS records list them: rbx, rbp, r12-r15 on x86-64; ebx,
 * esi, edi, ebp on i386. */
#define CTRACE_SAVED_REGS_X86_64 {3, 6, 12, 13, 14, 15}
#define CTRACE_SAVED_REGS_I386 {3, 6, 7, 5}
#define CTRACE_SAVED_REGS_MAX 6
/* The stack pointer's and frame pointer's DWARF numbers. */
#define CTRACE_DW_SP_X86_64 7
#define CTRACE_DW_FP_X86_64 6
#define CTRACE_DW_SP_I386 4
#define CTRACE_DW_FP_I386 5

/* RETVAL, full form: where each field lies in the payload. */
#define CTRACE_RETVAL_STATE 0
#define CTRACE_RETVAL_AT_R0 1
#define CTRACE_RETVAL_AT_R1 9
#define CTRACE_RETVAL_AT_XMM0 17
#define CTRACE_RETVAL_AT_XMM1 33
#define CTRACE_RETVAL_AT_ST0 49
#define CTRACE_RETVAL_AT_ST0_VALID 59
#define CTRACE_RETVAL_AT_MEM_ADDR 60
#define CTRACE_RETVAL_AT_MEM_LEN 68
#define CTRACE_RETVAL_AT_MEM 69
#define CTRACE_RETVAL_PAYLOAD 133
/* Field sizes, in both forms (a NARROW field is half of R or XMM). */
#define CTRACE_RETVAL_R_BYTES 8
#define CTRACE_RETVAL_XMM_BYTES 16
#define CTRACE_RETVAL_ST0_BYTES 10
#define CTRACE_RETVAL_ST1_BYTES 10 /* CTRACE_REC_RETVAL_ST1's last bytes */
#define CTRACE_RETVAL_MEM_HEAD 9 /* u64 address, u8 length */

/* RETVAL, a one-byte payload: the call's return value was not captured
 * because the recorder's list of patched frames (16384 per thread) was
 * full.  A reader of the full form alone finds it too short: "not
 * captured". */
#define CTRACE_RETVAL_REFUSED 2

/* RETVAL compact form: its filled state, or'ed with the mask bits. */
#define CTRACE_RETVAL_COMPACT 0x80
#define CTRACE_RETVAL_R0 0x01   /* rax / eax */
#define CTRACE_RETVAL_R1 0x02   /* rdx / edx */
#define CTRACE_RETVAL_XMM0 0x04
#define CTRACE_RETVAL_XMM1 0x08
#define CTRACE_RETVAL_ST0 0x10
#define CTRACE_RETVAL_MEM 0x20  /* up to CTRACE_RETVAL_MEM_MAX bytes at r0 */
#define CTRACE_RETVAL_NARROW 0x40 /* r0, r1, xmm0, xmm1: their low halves */
#define CTRACE_RETVAL_MEM_MAX 64

/* The full form's layout, checked where the compiler can. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(CTRACE_RETVAL_AT_MEM + CTRACE_RETVAL_MEM_MAX ==
		       CTRACE_RETVAL_PAYLOAD,
	       "RETVAL full form: 133 bytes");
_Static_assert(CTRACE_ARGS_REGS == CTRACE_ARGS_NREGS + 1,
	       "ARGS: registers follow their count");
#endif

/* The largest ENTRY or EXIT: a NEW tag, a 2-byte key, three 10-byte
 * address deltas (function, call site, hook), a 10-byte frame, a 10-byte
 * time delta and a 10-byte stack delta (63); an EXIT's STACK record
 * (3 + 10) and EXIT tag (1) fit in place of the frame, hook and stack
 * delta.  The recorder keeps at least this much room at a chunk's end. */
#define CTRACE_MAX_EVENT_BYTES 64

/* A PAUSE record: tag, type, length and a uleb128 of up to 10 bytes.  The
 * recorder writes one for a pause of at least CTRACE_PAUSE_MIN_TICKS
 * (about 60 ns at 2 GHz): a pair defined again after it was pushed out
 * of the table takes 60 to 120 ns, and with a record for each from 32
 * ticks on the trace of bench/sites.c (6% of its events such pairs)
 * grew by 12.7%; from 128 on, by 7.6% (bench/work.c's by 0.15%).  A
 * first call's pause, 0.3 to 1 us, is always written. */
#define CTRACE_PAUSE_MAX_BYTES 13
#define CTRACE_PAUSE_MIN_TICKS 128

#endif /* CTRACE_FORMAT_H */
