/* trace.h -- the trace stage: a trace file read into plain data.
 *
 *   trace.c    the header, the chunk index, chunks read on demand
 *   meta.c     the META chunks: process, modules, threads, command line
 *   stream.c   one stream's records decoded into events
 *   payload.c  the ARGS, ARGS_SHORT and RETVAL payloads decoded
 *
 * The contract: decoding needs nothing but the file and ctrace_format.h.
 * It resolves no address and reads no debug information; its events name
 * the slot that holds the raw addresses of their (function, call site)
 * pair and carry their raw payload bytes, which the replay stage names
 * (resolve/) and interprets (values/).  A damaged input is reported
 * with its file and offset (trace_error), and decoding goes on with what
 * can be trusted.
 *
 * Memory depends on the number of threads and chunks (a few dozen bytes
 * per chunk), never on the length of the trace nor on the chunk size: a
 * stream holds a window of its chunk (STREAM_WINDOW bytes, or one record
 * when longer) and the wide slots it uses.
 */
#ifndef CTRACE_SYMBOLIZER_TRACE_H
#define CTRACE_SYMBOLIZER_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctrace_format.h"
#include "leb128.h"
#include "util/util.h"

struct pair;
struct resolver;
struct symtab;
struct frame;
struct spawn_point;

/* ---------------------------------------------------------------------------
 * Trace files (trace.c, meta.c)
 * ------------------------------------------------------------------------ */

struct chunk_ref {
	uint64_t offset; /* of the chunk header in the file */
	uint64_t seq;
	uint64_t base_time;
	uint32_t thread;
	uint32_t tid;
	uint16_t kind;
	uint16_t header_size;
	uint32_t flags; /* CTRACE_CHUNK_CONTINUES; 0 before format 5 */
	uint32_t size; /* bytes present in the file (< chunk_size: cut short) */
};

/* A run of chunk_refs: one stream, in sequence order. */
struct chunk_span {
	const struct chunk_ref *first;
	size_t n;
};

struct thread_info {
	uint32_t serial;
	uint32_t tid;
	char *name; /* from the THREAD record, or NULL */
	struct chunk_span events;
	struct chunk_span signal;
};

struct trace_module {
	char *path;
	uint64_t start, end, bias;
	uint8_t build_id[64];
	size_t build_id_len;
};

/* A module loaded (MODULE: modules[module]) or unloaded (MODULE_GONE: the
 * one that started at `start`) at `ticks`.  24 bytes: one per module. */
struct trace_module_event {
	uint64_t ticks;
	union {
		size_t module;  /* !gone */
		uint64_t start; /* gone */
	};
	bool gone;
};

/* A GOT slot whose calls are library calls (PLT_SLOT): the relocation's
 * symbol and the target, 0 until a record gives it. */
struct trace_plt_slot {
	uint64_t slot, target;
	char *name;
	size_t seq; /* the record's rank: a slot's later records win */
};

struct trace {
	const char *path;
	char *owned_path; /* path, when the trace owns it */
	int fd;
	uint64_t file_size;
	struct ctrace_file_header hdr;

	/* Chunk index, sorted by (thread, kind, seq); META first. */
	struct chunk_ref *chunks;
	size_t n_chunks;
	/* The largest chunk_ref.size: what a chunk buffer needs, never more
	 * than the file holds whatever chunk_size claims. */
	uint32_t max_chunk_bytes;
	struct chunk_span meta;
	struct thread_info *threads; /* by serial */
	size_t n_threads;

	/* Stack pointers wrap at the pointer size. */
	uint64_t sp_mask;

	/* Clock: ns since the start = (ticks - base_ticks) * ns_per_tick. */
	bool ticks_are_ns;
	double ns_per_tick;

	/* Metadata */
	char *exe;
	uint32_t pid, ppid;
	struct trace_module *modules; /* as recorded, for the JSON header */
	size_t n_modules;
	/* Every MODULE and MODULE_GONE record, in the order of the META
	 * stream: what the replay stage tells the resolver and the pair
	 * table (symtab_attach). */
	struct trace_module_event *module_events;
	size_t n_module_events;
	/* PLT_SLOT records, one per slot (its last target kept); and
	 * whether the recorder said library calls cannot be seen. */
	/* In record order, a slot named again by a later record (lazy
	 * binding) more than once; symtab_attach() sorts and merges them. */
	struct trace_plt_slot *plt_slots;
	size_t n_plt_slots, cap_plt_slots;
	bool libcalls_unseen;
	/* LIB_RETURN's: what library calls return through; 0 unknown. */
	uint64_t lib_return;
	char *argv;      /* the command line, NUL-separated; or NULL */
	size_t argv_len;
	char *settings;  /* the recorder's CTRACE* variables, NAME=VALUE
			    NUL-separated; or NULL */
	size_t settings_len;

	/* ns from the start of the earliest of the traces shown together to
	 * this one's (0 when alone): trace_ns() counts from there. */
	int64_t time_offset;

	/* The names of the trace's addresses: set up and freed by the
	 * replay stage (symtab_attach, symtab_detach), never used here. */
	struct resolver *resolver;
	struct symtab *symtab;

	/* Lost events seen in LOST records while decoding. */
	uint64_t lost_recorded;
	unsigned lost_reasons; /* bit (1 << reason) for each reason seen */

	bool damaged; /* an error was reported: exit status 1 */
	unsigned n_errors;
	bool quiet; /* read a second time: its errors were reported once */
	/* ARGS and RETVAL payloads are stepped over, not copied: the output
	 * shows no values (events then have no extra). */
	bool skip_payloads;

	/* A fork()ed child: the calls its parent's thread had open at the
	 * fork, outermost first (replay_inherit()), which the child's thread
	 * `inherited_tid` returns through. */
	struct frame *inherited;
	size_t n_inherited;
	uint32_t inherited_tid;

	/* Where the process sits in the tree of the run (replay_inherit()):
	 * the trace of the process that made it (fork, vfork, posix_spawn,
	 * or the same process before an exec), NULL if none is at hand; the
	 * thread of it that did, when (in its ticks), and how. */
	struct trace *spawner;
	uint32_t spawner_tid;
	uint64_t spawn_ticks;
	enum trace_spawn { SPAWN_NONE, SPAWN_FORK, SPAWN_EXEC, SPAWN_CHILD } how;
	/* The depth its first calls show at: the spawning call's, plus one */
	size_t base_depth;
	bool announced; /* the note naming the process was shown */
	/* Its place in the order of the replay: (time, rank) pairs, one per
	 * ancestor that made a child, so that a child's calls come in one
	 * block where its parent made it. */
	uint64_t *nest_key;
	size_t nest_len;
	/* The times (this trace's ticks, sorted) at which threads of this
	 * process made a child shown in the tree: a call open across one
	 * is not a leaf. */
	struct spawn_point *spawn_points;
	size_t n_spawn_points;
};

/* Reports a damaged input, "ctrace-symbolize: FILE: MSG at offset N", and
 * marks the trace damaged.  offset (uint64_t)-1 leaves out " at offset". */
void trace_error(struct trace *t, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define NO_OFFSET UINT64_MAX

/* Opens and indexes a trace and reads its metadata.  Returns 0, or -1
 * when nothing of the file can be used (reported unless `quiet`: a trace
 * read only for what it tells about another). */
int trace_open(struct trace *t, const char *path, bool quiet);
void trace_close(struct trace *t);

/* Reads the META chunks (meta.c). */
void meta_read(struct trace *t);

/* Reads `size` bytes of a chunk; returns 0 or -1 (reported). */
int trace_read_chunk(struct trace *t, const struct chunk_ref *c, void *buf);
/* Reads n bytes of a chunk from its byte `from` on (the caller keeps them
 * within c->size); bytes past the end of the file read as 0.  Returns 0 or
 * -1 (reported). */
int trace_read_part(struct trace *t, const struct chunk_ref *c, uint32_t from,
		    uint32_t n, void *buf);

/* The most a time in ns may be either side of 0: a damaged trace's ticks
 * saturate there, never overflow (replay.c adds 2^62 to order times). */
#define TRACE_NS_MAX ((INT64_C(1) << 62) - 1)

/* ticks as ns since the start of the trace set (saturated at
 * +-TRACE_NS_MAX, which only a damaged trace reaches). */
static inline int64_t trace_ns(const struct trace *t, uint64_t ticks)
{
	int64_t d = (int64_t)(ticks - t->hdr.base_ticks);
	double ns = (t->ticks_are_ns ? (double)d : (double)d * t->ns_per_tick) +
		    (double)t->time_offset;

	if (!(ns > -(double)TRACE_NS_MAX && ns < (double)TRACE_NS_MAX))
		return ns < 0 ? -TRACE_NS_MAX : TRACE_NS_MAX;
	if (t->ticks_are_ns) /* exact, and in range by the test above */
		return t->time_offset + d;
	return t->time_offset + (int64_t)((double)d * t->ns_per_tick);
}

static inline uint64_t trace_duration(const struct trace *t, uint64_t start,
				      uint64_t end)
{
	if (end <= start)
		return 0;
	return t->ticks_are_ns ? end - start
			       : (uint64_t)((double)(end - start) *
						    t->ns_per_tick + 0.5);
}

/* Total lost events: see the definition. */
uint64_t trace_lost_events(const struct trace *t);
/* The lost events the file header counts that no LOST record places: a
 * stream writes its losses' record when it gets a chunk again, so these
 * were lost after the data of their threads ends (the trace could not
 * grow again).  Known once every stream was decoded. */
uint64_t trace_lost_unplaced(const struct trace *t);
/* How the views name them: "N events lost" and this. */
#define TRACE_LOST_UNPLACED_TEXT "after the data of their threads ends"
/* Whether the file ends inside chunk c, cutting it short (a copy, a full
 * disk): not where the recorder ended the file's last chunk early. */
bool trace_chunk_is_cut(const struct trace *t, const struct chunk_ref *c);
/* "no space left on device", ...; "" when none recorded. */
const char *trace_lost_reason_text(unsigned reason);

/* ---------------------------------------------------------------------------
 * Event streams (stream.c)
 * ------------------------------------------------------------------------ */

enum event_kind {
	EV_ENTRY,
	EV_EXIT,
	EV_LOST,
	EV_THREAD_END,
	EV_MARK,    /* extra: the MARK payload after its time */
	EV_CONTROL, /* reason: enum ctrace_control, count: its scope */
};

struct event {
	uint64_t ticks;
	/* ENTRY, EXIT: NULL from the decoder; the replay stage names the
	 * event (symtab_name_head). */
	const struct pair *pair;
	/* ENTRY: the stack pointer, 0 if unknown; EXIT: where a STACK record
	 * put it (another stack than the previous ENTRY's), else 0 */
	uint64_t sp;
	/* ENTRY: its hook's return address (format 3), telling copies of a
	 * function inlined into itself from their host; 0 if unknown */
	uint64_t hook;
	uint64_t count;          /* LOST */
	uint8_t reason;          /* LOST */
	uint8_t kind;            /* enum event_kind */
	/* ENTRY, EXIT: the pair's slot, whose definition (stream.slots)
	 * holds the raw addresses until the next stream_advance (not
	 * copied here: the event stays small); other kinds: 0, a slot
	 * never defined (see stream_slot_at()). */
	uint16_t slot;
	/* ENTRY: its ARGS payload; EXIT: its RETVAL payload, or a
	 * RETVAL_ST1's after the byte RETVAL_ST1_HELD (by
	 * payload_alloc, owned by whoever holds the event, who ends it by
	 * payload_free; NULL when none). */
	uint8_t *extra;
	size_t extra_len;
};

/* A stream reads its chunk through a window of this many bytes, whatever
 * the chunk size: a trace of thousands of threads with chunks of megabytes
 * needs kilobytes per thread.  A record longer than the window (ARGS, MARK)
 * widens it for as long as the record is in it. */
#define STREAM_WINDOW 4096u
/* What the window holds past the record being decoded, unless the chunk
 * ends first: any record but an EXTENDED one's payload (at most
 * CTRACE_MAX_EVENT_BYTES, and LEB128 numbers a reader takes up to
 * CTRACE_LEB128_MAX bytes of), or an EXTENDED record's tag, type and
 * length. */
#define STREAM_LOOKAHEAD 160u

/* A block of wide slots: the wide table (CTRACE_PAIR_HOMES slots) is
 * allocated in blocks as the stream uses them, so that a stream's memory
 * follows its distinct pairs. */
#define STREAM_WIDE_BLOCK 64u
#define STREAM_WIDE_BLOCKS (CTRACE_PAIR_HOMES / STREAM_WIDE_BLOCK)

/* Decodes the chunks of one stream, one at a time, with one event of
 * lookahead in `head`. */
/* The bases of ARGS_SHORT registers written relative to their own
 * previous value (format 5.3): by DWARF number, the value in the chunk's
 * last ARGS_SHORT that held it; all zero at a chunk's start.  bad: a
 * record of the chunk could not be read, so the bases may be stale and a
 * register relative to them is not believed before the next chunk. */
struct arg_bases {
	uint64_t value[CTRACE_ARGS_SHORT_REGNO + 1];
	bool bad;
};

struct stream {
	struct trace *trace;
	const struct chunk_ref *next_chunk, *chunks_end;
	const struct chunk_ref *chunk; /* being decoded */
	/* The window: bytes [win, win + (end - buf)) of the chunk, in a
	 * buffer of cap bytes; pos is the next record. */
	uint8_t *buf;
	size_t cap;
	uint32_t win;
	const uint8_t *pos, *end;
	uint64_t time;
	/* The PAUSE records (format 5.2) decoded so far, up to the head:
	 * ticks, saturated (see own_time() in replay/thread.c). */
	uint64_t paused;
	uint64_t sp;      /* of the chunk's previous ENTRY or STACK record */
	uint64_t exit_sp; /* from a STACK record, for the next EXIT; or 0 */
	struct arg_bases arg_bases;
	bool has_head;
	struct event head;
	/* The pair table is the one chunk table_seq ended with (a chunk
	 * decoded to its end): a chunk that continues it may be read. */
	bool table_ok, skipping;
	uint64_t table_seq;
	/* Each pair slot as its DEFINE record gave it: the function's and
	 * the call site's addresses, the entry hook's return address (a NEW
	 * ENTRY's since format 3; else 0), the DEFINE's time, and the
	 * function's frame at its entry hook in bytes (0 if unknown;
	 * inlined: the hooks ran in the caller's frame). */
	struct stream_slot {
		uint64_t fn, site, hook, defined;
		uint32_t frame;
		uint32_t gen; /* which definition (stream.gen when made) */
		bool inlined, set;
		/* Format 6: each ENTRY is followed by its registers
		 * (CTRACE_NEW_KEY_ARGS). */
		bool args_inline;
	} slots[CTRACE_PAIR_SLOTS];
	uint32_t gen;
	/* Format 2: the wide slots, by home, in blocks of STREAM_WIDE_BLOCK
	 * allocated at their first use (the array of blocks too), with the
	 * replay stage's cache of their names; the home of each narrow slot's
	 * pair, the function and call site of the chunk's last NEW and
	 * (format 3) the hook of its last NEW ENTRY: the bases a NEW's
	 * addresses are written from. */
	struct stream_wide {
		struct stream_slot slot[STREAM_WIDE_BLOCK];
		struct stream_named {
			const struct pair *pair;
			uint64_t from, until;
		} named[STREAM_WIDE_BLOCK];
	} **wide;
	bool wide_used;
	/* Format 5: a pair in a wide slot may stay there (named by its own
	 * slot number, STREAM_WIDE_SLOT + home); before, every event moves
	 * it into a narrow slot. */
	bool wide_stays;
	/* Format 5: an ENTRY's home is that of its function and its call
	 * site XOR its hook (format 4: only with CTRACE_NEW_KEY_SIBLING). */
	bool home_by_hook;
	/* The table's layout in the trace's format: narrow slots, the NEW
	 * tag, the first wide tag, bits of a home (CTRACE_PAIR_*, or
	 * CTRACE_V4_* before format 5). */
	uint8_t narrow, tag_new, tag_wide, home_bits;
	bool returns; /* format 5: RETURN and EXIT tags, open calls */
	/* Format 5: the calls open (a window of CTRACE_RETURN_WINDOW, the
	 * top open_n of them, allocated at the first ENTRY), each the pair
	 * its ENTRY named and its slot: a RETURN ends the top one, named by
	 * that slot while it holds the same definition, else by the copy in
	 * STREAM_RETURN_SLOT. */
	struct stream_open {
		struct stream_slot pair;
		uint16_t slot;
	} *open;
	uint32_t open_top, open_n;
	uint16_t home[CTRACE_PAIR_SLOTS];
	uint64_t new_fn, new_site, new_hook;
	/* The replay stage's cache of each slot's pair and of the times
	 * [from, until) at which that pair's names hold, so that an event
	 * is named by two comparisons; decoding zeroes a slot's (an empty
	 * span) when the slot is defined again or a chunk begins. */
	struct stream_named named[CTRACE_PAIR_SLOTS];
};

/* Slot numbers from here on name the wide slots, by home. */
#define STREAM_WIDE_SLOT CTRACE_PAIR_SLOTS

/* The pair slot numbered `slot` (an event's, an open call's): a narrow
 * slot, or a wide one (whose block the decoder allocated when it set it). */
static inline struct stream_slot *stream_slot_at(struct stream *s,
						 unsigned slot)
{
	unsigned h = slot - STREAM_WIDE_SLOT;
	return slot < STREAM_WIDE_SLOT
		       ? &s->slots[slot]
		       : &s->wide[h / STREAM_WIDE_BLOCK]
				  ->slot[h % STREAM_WIDE_BLOCK];
}

/* The replay stage's cache of the pair in slot `slot`. */
static inline struct stream_named *stream_named_at(struct stream *s,
						   unsigned slot)
{
	unsigned h = slot - STREAM_WIDE_SLOT;
	return slot < STREAM_WIDE_SLOT
		       ? &s->named[slot]
		       : &s->wide[h / STREAM_WIDE_BLOCK]
				  ->named[h % STREAM_WIDE_BLOCK];
}

/* The slot of a RETURN whose pair no longer holds its ENTRY's slot. */
#define STREAM_RETURN_SLOT (CTRACE_PAIR_SLOTS - 1)

void stream_init(struct stream *s, struct trace *t, struct chunk_span span);
void stream_fini(struct stream *s);
/* Decodes the next event into s->head; false at the end of the stream. */
bool stream_advance(struct stream *s);

/* ---------------------------------------------------------------------------
 * ARGS, ARGS_SHORT and RETVAL payloads (payload.c)
 * ------------------------------------------------------------------------ */

/* The payloads decoded into plain data: no DWARF, no resolver, only
 * ctrace_format.h's layout.  values/ turns the result into values with the
 * program's DWARF. */
/* An ARGS payload, decoded.  Blocks point into the payload. */
#define CAPTURE_MAX_REGS 16
#define CAPTURE_MAX_BLOCKS 32
struct capture_block {
	uint64_t addr;
	size_t len;
	const uint8_t *bytes;
};

struct capture {
	uint64_t pc, sp, cfa;
	int nregs;
	uint8_t regno[CAPTURE_MAX_REGS];
	uint64_t regval[CAPTURE_MAX_REGS];
	size_t nblocks;
	struct capture_block blocks[CAPTURE_MAX_BLOCKS];
};

/* Decodes an ARGS payload; 0, or -1 if it is malformed. */
int capture_parse(const uint8_t *p, size_t len, struct capture *c);
/* Copies n captured bytes at addr; false if any of them was not saved. */
bool capture_read(const struct capture *c, uint64_t addr, void *out,
		  size_t n);

/* An event's payload of n bytes (struct event's extra), and its end:
 * payload_free, never free. */
uint8_t *payload_alloc(size_t n);
void payload_free(uint8_t *p);

/* An ARGS_SHORT payload in the ARGS layout (by payload_alloc; NULL if
 * it is malformed), given its ENTRY's function and stack pointer;
 * addr_mask makes sums wrap at the trace's pointer size.  hook: 0 for
 * ARGS_SHORT and ARGS_LIB, whose payload starts with its pc; for
 * ARGS_REGS, which has none, the ENTRY's hook, its pc.  lib: an
 * ARGS_LIB's, whose register count and stack pointer bits take a byte
 * each.  b: the stream's bases, moved on to this record's registers
 * (set bad if it is malformed). */
uint8_t *payload_expand_short(const uint8_t *p, size_t len, uint64_t fn,
			      uint64_t hook, bool lib, uint64_t sp,
			      uint64_t addr_mask, struct arg_bases *b,
			      size_t *out_len);

/* An EXIT's payload that starts with this byte is a RETVAL_ST1's after
 * it: the compact RETVAL, then st(1)'s CTRACE_RETVAL_ST1_BYTES.  No
 * RETVAL payload starts with it (the full form's state is 0 or 1, the
 * compact form's has CTRACE_RETVAL_COMPACT, CTRACE_RETVAL_REFUSED is 2):
 * a reader of RETVAL alone finds it not captured. */
#define RETVAL_ST1_HELD 3

/* The compact RETVAL payload p (its state byte has CTRACE_RETVAL_COMPACT)
 * spread into the full layout full (CTRACE_RETVAL_PAYLOAD bytes); *have:
 * the CTRACE_RETVAL_* fields it holds.  0, or -1 if it is malformed. */
int retval_expand(const uint8_t *p, size_t len, uint8_t *full,
		  unsigned *have);

#endif /* CTRACE_SYMBOLIZER_TRACE_H */
