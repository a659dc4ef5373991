/* internal.h -- the parts of ctrace-symbolize and what they share.
 *
 * HACKING.md describes the pipeline and which file does what.  Memory
 * depends on the number of threads, of distinct pairs and on the deepest
 * call stack, never on the length of the trace (the chunk index aside: a
 * few dozen bytes per chunk).
 */
#ifndef CTRACE_SYMBOLIZER_INTERNAL_H
#define CTRACE_SYMBOLIZER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ctrace_format.h"
#include "leb128.h"
#include "pool.h"
#include "resolve.h"

#define PROGRAM_NAME "ctrace-symbolize"

/* ---------------------------------------------------------------------------
 * Options (main.c)
 * ------------------------------------------------------------------------ */

enum output_format {
	FORMAT_TREE,
	FORMAT_JSON,
	FORMAT_REPORT,
	FORMAT_DOT,
	FORMAT_CHROME,
	FORMAT_FOLDED,
	FORMAT_FLAMEGRAPH,
};

/* --max-depth's default: deep enough for any real program's stack, shallow
 * enough that a million-deep recursion prints megabytes, not terabytes. */
#define DEFAULT_MAX_DEPTH 256

/* report: --sort=KEY */
enum report_sort { SORT_TOTAL, SORT_CALLS, SORT_SELF, SORT_AVG, SORT_MAX,
		   SORT_NAME };

struct filters;

struct options {
	enum output_format format;
	bool srcline;
	bool per_thread;
	bool no_duration;
	bool serial_ids; /* --thread-ids=serial */
	bool progress;   /* a progress line on stderr (a terminal) */
	enum report_sort sort;
	bool weight_calls;        /* folded, flamegraph: --weight=calls */
	/* tree, folded: --max-depth, 0 for none.  Deeper calls stay in the
	 * output, but so that its size stays linear in the trace's: the tree
	 * indents no further and shows the depth, folded stacks end in one
	 * "[deeper]" frame that holds the deeper calls' weight. */
	size_t max_depth;
	struct filters *filters;  /* filter.c; NULL when there is none */
	struct resolve_options resolve;
};

/* The trace files of the command line, a directory standing for every
 * trace in it (inputs.c).  Problems are reported and set *status to 1. */
char **expand_inputs(char **args, size_t n_args, size_t *n, int *status);
void free_inputs(char **list, size_t n);

struct ctrace_file_header;
/* The trace of the process that fork()ed the one whose header is `child`,
 * looked for next to it (same directory and output name): a malloc'd path,
 * or NULL. */
char *find_parent_trace(const char *child_path,
			const struct ctrace_file_header *child);

/* ---------------------------------------------------------------------------
 * Small helpers (util.c)
 * ------------------------------------------------------------------------ */

void *must_malloc(size_t size);
void *must_calloc(size_t n, size_t size);
void *must_realloc(void *p, size_t n, size_t size); /* n * size, checked */
char *must_strndup(const char *s, size_t n);
/* pool_add and id_table_reserve (pool.h) that stop the program when they
 * cannot. */
void *must_pool_add(struct pool *p);
void must_reserve(struct id_table *t, size_t n, id_hash_fn hash,
		  const void *ctx);

/* Prints "ctrace-symbolize: MSG" (with ": strerror" when errnum != 0). */
void warn_msg(int errnum, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Unaligned native-order loads. */
static inline uint64_t load_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline uint32_t load_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* ---------------------------------------------------------------------------
 * Buffered output (outbuf.c)
 * ------------------------------------------------------------------------ */

#define OUTBUF_SIZE (64 * 1024)

struct outbuf {
	int fd;           /* -1: flushes go to mem instead */
	const char *name; /* for error messages */
	int error;        /* errno of the first failed write, or 0 */
	size_t len;
	char *mem;
	size_t mem_len, mem_cap;
	char buf[OUTBUF_SIZE];
};

void outbuf_init(struct outbuf *o, int fd, const char *name);
/* An outbuf that collects everything in o->mem (after a flush). */
void outbuf_init_memory(struct outbuf *o);
void outbuf_free_memory(struct outbuf *o);
void outbuf_flush(struct outbuf *o);
void outbuf_write_slow(struct outbuf *o, const void *p, size_t n);

static inline void outbuf_write(struct outbuf *o, const void *p, size_t n)
{
	if (n > OUTBUF_SIZE - o->len) {
		outbuf_write_slow(o, p, n);
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static inline void outbuf_str(struct outbuf *o, const char *s)
{
	outbuf_write(o, s, strlen(s));
}

static inline void outbuf_putc(struct outbuf *o, char c)
{
	if (o->len == OUTBUF_SIZE)
		outbuf_flush(o);
	o->buf[o->len++] = c;
}

/* Room for n (<= OUTBUF_SIZE) bytes at the end of the buffer. */
static inline char *outbuf_reserve(struct outbuf *o, size_t n)
{
	if (n > OUTBUF_SIZE - o->len)
		outbuf_flush(o);
	return o->buf + o->len;
}

void outbuf_spaces(struct outbuf *o, size_t n);
/* The file named by -o (outfile.c). */
struct outfile {
	const char *path;
	char *tmp; /* written here, renamed to path at the end; or NULL */
	int fd;
};

/* Opens path for writing, refusing one of the n inputs (same device and
 * inode).  Returns the descriptor, or -1 after a message. */
int outfile_open(struct outfile *f, const char *path, char *const *inputs,
		 size_t n_inputs);
/* Closes it; a complete output takes path's place, an incomplete one is
 * removed.  Returns 0, or -1 after a message. */
int outfile_close(struct outfile *f, bool complete);

/* Names and messages from the traced program, escaped so that the output
 * stays valid for its format whatever bytes they hold (escape.c). */
enum escape_mode {
	ESCAPE_TEXT,   /* tree, report: \n \t \r \0 \\ \xHH */
	ESCAPE_FOLDED, /* text, and ';' */
	ESCAPE_DOT,    /* text, inside a quoted DOT string */
	ESCAPE_XML,    /* text, with XML's entities */
	ESCAPE_JSON,   /* inside a JSON string; not UTF-8 becomes U+FFFD */
};
void outbuf_escaped(struct outbuf *o, const char *s, size_t n,
		    enum escape_mode mode);
/* True if outbuf_escaped would change s. */
bool escape_needed(const char *s, size_t n, enum escape_mode mode);
/* A JSON string with its quotes. */
void outbuf_json_str(struct outbuf *o, const char *s, size_t n);
/* Byte c inside a C literal quoted by quote (0: none) at out: itself if
 * printable ASCII, else \n \t \r \0 \\ \' \" or \xHH.  Returns the
 * length (1 to 4). */
size_t escape_c_byte(unsigned char c, char quote, char out[4]);
void outbuf_u64(struct outbuf *o, uint64_t v);
void outbuf_i64(struct outbuf *o, int64_t v);

/* Decimal digits of v at dst (at least 20 bytes); returns their count. */
size_t format_u64(char *dst, uint64_t v);

/* The tree's duration column: exactly 10 characters for anything below
 * 1000 s ("  0.412 us", " 12.000 ms", "  1.500  s"). Returns the length. */
size_t format_duration(char *dst, uint64_t ns);

/* ---------------------------------------------------------------------------
 * Names of (function, call site) pairs (symtab.c)
 * ------------------------------------------------------------------------ */

/* A function address in one module epoch: its name and what the outputs
 * cache about it.  88 bytes: the resolver's answer is kept here and not in
 * the resolver's cache too (resolve_function_uncached); its strings are
 * the resolver's. */
struct func {
	uint64_t addr;
	struct resolve_info info;
	size_t name_len;
	/* Module events before its time: its names hold for an event of
	 * the same epoch (symtab_pair_holds). */
	uint32_t epoch;
	uint32_t name_id; /* aggregate.c's interned name; 0 until asked */
	bool has_params; /* the name ends in its parameter list already */
	bool plain_name; /* the name needs no escaping in text output */
	uint8_t filter_verdict; /* filter.c's, cached; 0 until asked */
};

struct pair_extra;

/* What a DEFINE record names.  Interned: one per distinct (function, call
 * site, module epoch), so events carry a pointer and names are looked up
 * once per pair.  48 bytes: what only some pairs need (the call site's
 * lookup, the --srcline text, an inlined copy's variants) is in `extra`,
 * allocated when first needed (symtab.c); the module epoch is func's. */
struct pair {
	uint64_t fn;
	uint64_t site;
	uint64_t ticks;  /* when first seen: for the call site's lookup */
	struct func *func;
	struct pair_extra *extra; /* NULL until needed */
	/* The function's frame at its entry hook (CFA minus the ENTRY's
	 * stack pointer) in bytes, from a DEFINE; 0 if unknown.  inlined:
	 * the hooks ran in the caller's code and frame. */
	uint32_t frame;
	bool inlined;
};

struct symtab;
struct trace;

/* full_names: --demangle=full, names may carry their parameter list. */
struct symtab *symtab_new(struct resolver *r, bool full_names);
void symtab_free(struct symtab *st);

/* Declares that the modules changed at `ticks` (a MODULE or MODULE_GONE
 * record): names resolved before and after may differ.  Call in any order,
 * before the first symtab_pair. */
void symtab_module_event(struct symtab *st, uint64_t ticks);

struct pair *symtab_pair(struct symtab *st, uint64_t fn, uint64_t site,
			 uint64_t ticks);

/* The pair to use for an event at `ticks` of a slot defined as p: p
 * itself, or when modules were loaded or unloaded between p's definition
 * and the event (a DEFINE takes the time of the record before it, which
 * may precede a dlopen), the same addresses looked up at the event. */
struct pair *symtab_pair_moved(struct symtab *st, const struct pair *p,
			       uint64_t ticks);

/* The pair of the inlined copy p (p->inlined) when it runs in host
 * function host_fn: the same call, whose call site is the inlined call's
 * line in the source (DW_AT_call_file/line), or unknown when DWARF does
 * not tell -- never its host's call site, which its hooks were given. */
const struct pair *symtab_inlined_pair(struct symtab *st, struct trace *t,
				       const struct pair *p, uint64_t host_fn);

/* Whether p's names hold for an event at `ticks`: no module came or went
 * between p's time and then. */
bool symtab_pair_holds(const struct symtab *st, const struct pair *p,
		       uint64_t ticks);
const struct resolve_info *pair_site(struct symtab *st, const struct pair *p);
/* The --srcline suffix of a pair (cached). */
const char *pair_srcline(struct symtab *st, const struct pair *p,
			 size_t *len);

/* ---------------------------------------------------------------------------
 * Trace files (reader.c, meta.c)
 * ------------------------------------------------------------------------ */

struct chunk_ref {
	uint64_t offset; /* of the chunk header in the file */
	uint64_t seq;
	uint64_t base_time;
	uint32_t thread;
	uint32_t tid;
	uint16_t kind;
	uint16_t header_size;
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
	char *argv;      /* the command line, NUL-separated; or NULL */
	size_t argv_len;

	/* ns from the start of the earliest of the traces shown together to
	 * this one's (0 when alone): trace_ns() counts from there. */
	int64_t time_offset;

	struct resolver *resolver;
	struct symtab *symtab;

	/* Lost events seen in LOST records while decoding. */
	uint64_t lost_recorded;
	unsigned lost_reasons; /* bit (1 << reason) for each reason seen */

	bool damaged; /* an error was reported: exit status 1 */
	unsigned n_errors;
	bool quiet; /* read a second time: its errors were reported once */

	/* A fork()ed child: the calls its parent's thread had open at the
	 * fork, outermost first (calls_inherit()), which the child's thread
	 * `inherited_tid` returns through. */
	struct frame *inherited;
	size_t n_inherited;
	uint32_t inherited_tid;
};

/* Reports a damaged input, "ctrace-symbolize: FILE: MSG at offset N", and
 * marks the trace damaged.  offset (uint64_t)-1 leaves out " at offset". */
void trace_error(struct trace *t, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define NO_OFFSET UINT64_MAX

/* Opens and indexes a trace, reads its metadata and sets up the resolver.
 * Returns 0, or -1 when nothing of the file can be used (reported unless
 * `quiet`: a trace read only for what it tells about another). */
int trace_open(struct trace *t, const char *path, const struct options *o,
	       bool quiet);
void trace_close(struct trace *t);

/* Reads the META chunks (meta.c). */
void trace_read_meta(struct trace *t);

/* Reads `size` bytes of a chunk; returns 0 or -1 (reported). */
int trace_read_chunk(struct trace *t, const struct chunk_ref *c, void *buf);

static inline int64_t trace_ns(const struct trace *t, uint64_t ticks)
{
	int64_t d = (int64_t)(ticks - t->hdr.base_ticks);
	return t->time_offset +
	       (t->ticks_are_ns ? d : (int64_t)((double)d * t->ns_per_tick));
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
/* "no space left on device", ...; "" when none recorded. */
const char *lost_reason_text(unsigned reason);

/* ---------------------------------------------------------------------------
 * Event streams (reader.c)
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
	const struct pair *pair; /* ENTRY, EXIT */
	/* ENTRY: the stack pointer, 0 if unknown; EXIT: where a STACK record
	 * put it (another stack than the previous ENTRY's), else 0 */
	uint64_t sp;
	uint64_t count;          /* LOST */
	uint8_t reason;          /* LOST */
	uint8_t kind;            /* enum event_kind */
	/* ENTRY: its ARGS payload; EXIT: its RETVAL payload (malloc'd,
	 * owned by whoever holds the event; NULL when none). */
	uint8_t *extra;
	size_t extra_len;
};

/* Decodes the chunks of one stream, one at a time, with one event of
 * lookahead in `head`. */
struct stream {
	struct trace *trace;
	const struct chunk_ref *next_chunk, *chunks_end;
	const struct chunk_ref *chunk; /* being decoded */
	uint8_t *buf;
	const uint8_t *pos, *end;
	uint64_t time;
	uint64_t sp;      /* of the chunk's previous ENTRY or STACK record */
	uint64_t exit_sp; /* from a STACK record, for the next EXIT; or 0 */
	bool has_head;
	struct event head;
	const struct pair *slots[CTRACE_PAIR_SLOTS];
	/* Format 2: the wide slots (allocated at the first use), the home
	 * of each narrow slot's pair, the function of the chunk's last NEW. */
	const struct pair **wide;
	bool wide_used;
	uint16_t home[CTRACE_PAIR_SLOTS];
	uint64_t new_fn;
};

void stream_init(struct stream *s, struct trace *t, struct chunk_span span);
void stream_fini(struct stream *s);
/* Decodes the next event into s->head; false at the end of the stream. */
bool stream_advance(struct stream *s);

/* ---------------------------------------------------------------------------
 * Calls (calls.c) and outputs
 * ------------------------------------------------------------------------ */

enum close_kind {
	CLOSE_RETURNED,     /* the exit was recorded */
	CLOSE_NO_EXIT,      /* skipped by longjmp or an exception */
	CLOSE_UNFINISHED,   /* still open at the end of the thread's data */
	CLOSE_BEFORE_TRACE, /* exit of a call entered before the trace began */
};

struct values;

struct frame {
	const struct pair *pair;
	uint64_t start;
	uint64_t sp; /* 0 if unknown */
	struct values *args; /* captured arguments, NULL if none */
	size_t segment; /* the first open call on the same stack as this */
};

struct thread {
	struct trace *trace;
	const struct thread_info *info;
	struct stream main, sig;
	struct frame *stack;
	size_t depth, cap;
	char id_text[48]; /* the tid column, already formatted */
	size_t id_len;
	uint64_t id;      /* the thread id shown (tid or serial) */
	uint64_t next_ticks; /* time of the next event, while merging */
	/* Calls left open on other stacks when the thread switched away
	 * (coroutines): closed as "no exit recorded", reopened if it comes
	 * back.  At most one per stack. */
	struct suspended *suspended;
	size_t n_suspended;
	/* The arguments and return value of the call an output callback is
	 * given (values.h); NULL when not captured. */
	const struct values *args, *retval;
	/* The entry an output callback is given reopens a call suspended
	 * on another stack: its entry was shown before. */
	bool resumed;
	/* The next call pushed starts a stack of its own (calls.c). */
	bool new_stack;
	/* Per-thread state of the filter and of the output, theirs to
	 * allocate on first use (NULL until then) and to free. */
	void *filter_state, *output_state;
};

struct output;

/* A marker, a tracepoint hit or recording switched off or on: shown in
 * place, between calls. */
struct note {
	uint64_t ticks;
	const char *tracepoint; /* its name; NULL for ctrace_mark() */
	const char *text;       /* the message, or "recording off"... */
	size_t text_len;
	bool control;           /* text is the recorder's, not the user's */
};

struct output_ops {
	void (*begin_trace)(struct output *o, struct trace *t);
	/* entry of a call that has callees */
	void (*entry)(struct output *o, struct thread *th, const struct pair *p,
		      uint64_t ticks, size_t depth);
	/* a call whose exit is the thread's next event */
	void (*leaf)(struct output *o, struct thread *th, const struct pair *p,
		     uint64_t start, uint64_t end, size_t depth);
	/* optional, else entry(): a call open in the thread from the start,
	 * entered in the parent process before fork() (shown there) */
	void (*inherit)(struct output *o, struct thread *th,
			const struct pair *p, uint64_t start, size_t depth);
	/* end of a call that had callees; start/end per kind */
	void (*close)(struct output *o, struct thread *th, const struct pair *p,
		      uint64_t start, uint64_t end, size_t depth,
		      enum close_kind kind);
	void (*lost)(struct output *o, struct thread *th, uint64_t count,
		     unsigned reason, size_t depth);
	/* optional: aggregating formats leave it NULL */
	void (*note)(struct output *o, struct thread *th, const struct note *n,
		     size_t depth);
	void (*end_trace)(struct output *o, struct trace *t);
	void (*finish)(struct output *o);
};

struct output {
	const struct output_ops *ops;
	/* Whether a call without callees comes as one leaf() rather than
	 * entry() and close(): the leaf is reported at its entry's place in
	 * time, its exit read ahead. */
	bool leaves;
	/* Replaying only to learn which calls are open: no values decoded. */
	bool stack_only;
	/* Call sites are shown: an inlined copy's is looked up in DWARF. */
	bool call_sites;
	const struct options *opts;
	struct outbuf *out;
	size_t n_traces; /* how many TRACE arguments */
	void *state;
};

/* A call open from the thread's start: the output's inherit(), else its
 * entry(). */
static inline void output_inherit(struct output *o, struct thread *th,
				  const struct pair *p, uint64_t start,
				  size_t depth)
{
	if (o->ops->inherit)
		o->ops->inherit(o, th, p, start, depth);
	else
		o->ops->entry(o, th, p, start, depth);
}

void output_tree_init(struct output *o);
void output_json_init(struct output *o);
void output_report_init(struct output *o);
void output_dot_init(struct output *o);
void output_chrome_init(struct output *o);
void output_folded_init(struct output *o);
void output_flamegraph_init(struct output *o);

/* One thread's events to calls (calls.c).  with_pid: the thread column
 * reads PID/TID (several processes shown). */
void thread_init(struct thread *th, struct trace *t,
		 const struct thread_info *ti, const struct options *opts,
		 bool with_pid);
/* A fork()ed child's first thread: opens the calls it inherited. */
void thread_inherit(struct output *o, struct thread *th);
/* Handles the thread's next event (there is one: thread_peek). */
void thread_step(struct output *o, struct thread *th);
/* Closes what is still open as unfinished and frees the thread. */
void thread_finish(struct output *o, struct thread *th);

/* The earlier head of the thread's two streams, NULL at their end; ties
 * go to the main stream, whose events the signal handler interrupted. */
static inline struct event *thread_peek(struct thread *th)
{
	if (!th->main.has_head)
		return th->sig.has_head ? &th->sig.head : NULL;
	if (!th->sig.has_head || th->main.head.ticks <= th->sig.head.ticks)
		return &th->main.head;
	return &th->sig.head;
}

/* Replays the traces' events through the output, all on one timeline
 * (replay.c). */
void calls_replay(struct trace **traces, size_t n_traces, struct output *o);

/* Finds, for each fork()ed child among the traces whose parent's trace is
 * there too, the calls it inherited open (trace.inherited). */
void calls_inherit(struct trace **traces, size_t n_traces);

/* A progress line on stderr (progress.c), when opts->progress and the
 * replay takes more than a second: calls.c counts events down and calls
 * progress_tick() at zero. */
extern uint32_t progress_countdown;
void progress_start(bool enabled, struct trace **traces, size_t n_traces,
		    const struct thread *threads, size_t n_threads);
void progress_tick(void);
void progress_end(void);

#endif /* CTRACE_SYMBOLIZER_INTERNAL_H */
