/* replay.h -- the replay stage: decoded events become calls.
 *
 *   symtab.c    (function, call site) pairs and their names, per module
 *               epoch, from the resolver
 *   thread.c    one thread's events to calls: its stack, unwinding,
 *               signals, coroutines, the values of a call (values/)
 *   replay.c    every thread of every trace merged on one timeline, each
 *               child process where its parent made it
 *   filter.c    -F, -N, -H, -C, -T, -D, -t, --tid, --time-range, --where:
 *               an output that passes on only the calls the filters keep
 *   where.c     --where's expressions on arguments and return values
 *   progress.c  the progress line on stderr
 *
 * The contract: replay reads the trace stage's events and hands the
 * output the calls, in time order, through struct output_ops.  It names
 * each pair once (symtab), decodes a call's arguments and return value
 * once (values/), and never prints.  Memory depends on the number of
 * threads, of distinct pairs and on the deepest call stack.
 */
#ifndef CTRACE_SYMBOLIZER_REPLAY_H
#define CTRACE_SYMBOLIZER_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "duration.h"
#include "resolve/resolve.h"
#include "trace/trace.h"
#include "util/util.h"

/* ---------------------------------------------------------------------------
 * Options: what the command line asks of replay and the outputs
 * (main.c fills them)
 * ------------------------------------------------------------------------ */

/* --max-depth's default: deep enough for any real program's stack, shallow
 * enough that a million-deep recursion prints megabytes, not terabytes. */
#define DEFAULT_MAX_DEPTH 256

struct filters;

/* tree: --fields, the columns before the function */
enum tree_field {
	FIELD_DURATION,
	FIELD_TID,
	FIELD_ELAPSED,   /* since the start of the traces shown */
	FIELD_TIMESTAMP, /* the wall clock, s.ns since the epoch */
	FIELD_ADDR,      /* the function's address */
	FIELD_MODULE,    /* its module's file name */
	N_FIELDS
};

struct options {
	bool srcline;
	bool per_thread;
	bool per_process; /* --per-process (replay: as per_thread, threads
			   * of a process merged) */
	bool no_duration;
	bool serial_ids; /* --thread-ids=serial */
	bool progress;   /* a progress line on stderr (a terminal) */
	/* tree, graph: terminal colours (--color, and a terminal for auto):
	 * durations of 1 ms or more in yellow, 1 s or more in red, as
	 * uftrace shows them, and -T FUNC@color=COLOR's names */
	bool color;
	/* tree, folded: --max-depth, 0 for none.  Deeper calls stay in the
	 * output, but so that its size stays linear in the trace's: the tree
	 * indents no further and shows the depth, folded stacks end in one
	 * "[deeper]" frame that holds the deeper calls' weight. */
	size_t max_depth;
	/* tree: --fields, in order; n_fields 0: duration and tid, the
	 * default, printed by the fast path */
	enum tree_field fields[N_FIELDS];
	size_t n_fields;
	struct filters *filters;  /* filter.c; NULL when there is none */
	struct resolve_options resolve;
};

/* ---------------------------------------------------------------------------
 * Names of (function, call site) pairs (symtab.c)
 * ------------------------------------------------------------------------ */

/* A function address in one module epoch: its name and what the outputs
 * cache about it.  32 bytes: the name is the resolver's (interned, kept
 * nowhere else: resolve_function_name); the rest of the resolver's answer
 * (module, source lines) no output of a function needs. */
struct func {
	uint64_t addr;
	const char *name;
	uint32_t name_len;
	/* Module events before its time: its names hold for an event of
	 * the same epoch (symtab_pair_holds). */
	uint32_t epoch;
	uint32_t name_id; /* agg.c's interned name; 0 until asked */
	bool has_params; /* the name ends in its parameter list already */
	bool plain_name; /* the name needs no escaping in text output */
	bool libcall; /* a library call: addr is the GOT slot it went by */
	uint32_t module_name_id; /* agg.c's, with --by-module; 0 until asked */
	uint16_t filter_verdict; /* filter.c's, cached; 0 until asked */
};

/* What a DEFINE record names.  Interned: one per distinct (function, call
 * site, module epoch), so events carry a pointer and names are looked up
 * once per pair.  24 bytes: the function's address and module epoch are
 * its func's (pair_fn), and so is the time at which the pair's modules
 * were loaded (symtab_pair_time); what only some pairs need (the call
 * site's lookup, the --srcline text, an inlined copy's variants) is in an
 * extra record, made when first needed (symtab.c). */
struct pair {
	uint64_t site;
	struct func *func;
	/* The function's frame at its entry hook (CFA minus the ENTRY's
	 * stack pointer) in bytes, from a DEFINE; 0 if unknown.  inlined:
	 * the hooks ran in the caller's code and frame. */
	uint32_t frame;
	uint32_t inlined : 1;
	uint32_t extra : 31; /* symtab.c's extra record + 1; 0: none yet */
};

/* The address of the pair's function. */
static inline uint64_t pair_fn(const struct pair *p)
{
	return p->func->addr;
}

/* Whether two pairs name the same function address (in any epoch). */
static inline bool pair_same_fn(const struct pair *p, const struct pair *q)
{
	return p->func == q->func || p->func->addr == q->func->addr;
}

struct symtab;
struct trace;

/* Sets up t->resolver and t->symtab from the trace's modules, in the order
 * the trace recorded them.  open_modules false gives the resolver none of
 * them, so that no path the trace names is opened: every address is then
 * named by its value. */
void symtab_attach(struct trace *t, const struct resolve_options *ro,
		   bool open_modules);
/* Frees them; before trace_close. */
void symtab_detach(struct trace *t);
/* Names s->head, just decoded, if an ENTRY or EXIT: its pair, from the
 * slot's cached pair when it still holds at the event's time, and caches
 * the pair with the times at which it holds (which the caller checks
 * first: s->named). */
void symtab_name_head(struct stream *s);

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
 * function host_fn with its entry hook's return address `hook` (0 if
 * unknown): the same call, whose call site is the inlined call's line in
 * the source (DW_AT_call_file/line; the copy holding the hook's call when
 * host inlines p at several lines), or unknown when DWARF does not tell
 * -- never its host's call site, which its hooks were given. */
const struct pair *symtab_inlined_pair(struct symtab *st, struct trace *t,
				       const struct pair *p, uint64_t host_fn,
				       uint64_t hook);

/* A time at which p's modules were loaded, for the lookups of its call
 * site and values: the start of its module epoch (the same modules are
 * loaded throughout an epoch). */
uint64_t symtab_pair_time(const struct symtab *st, const struct pair *p);

/* Whether p's names hold for an event at `ticks`: no module came or went
 * between p's time and then. */
bool symtab_pair_holds(const struct symtab *st, const struct pair *p,
		       uint64_t ticks);
const struct resolve_info *symtab_pair_site(struct symtab *st,
					    const struct pair *p);
/* A library call's GOT slot (p's function is its address): the target
 * the loader bound it to (0: not known) and the relocation's symbol as
 * recorded; false when p is no library call. */
bool symtab_pair_libcall(const struct symtab *st, const struct pair *p,
			 uint64_t *target, const char **symbol);
/* The path of the module of p's function, NULL if none (cached). */
const char *symtab_pair_module(struct symtab *st, const struct pair *p);
/* The --srcline suffix of a pair (cached). */
const char *symtab_pair_srcline(struct symtab *st, const struct pair *p,
				size_t *len);

/* ---------------------------------------------------------------------------
 * Calls (thread.c, replay.c) and the outputs' callbacks
 * ------------------------------------------------------------------------ */

enum close_kind {
	CLOSE_RETURNED,     /* the exit was recorded */
	CLOSE_NO_EXIT,      /* skipped by longjmp or an exception */
	CLOSE_UNFINISHED,   /* still open at the end of the thread's data */
	CLOSE_BEFORE_TRACE, /* exit of a call entered before the trace began */
};

struct heap;
struct values;

struct frame {
	const struct pair *pair;
	/* what the outputs show, NULL: pair.  A function a library call
	 * went to (thread.c, libcall_target) returns to the recorder's
	 * trampoline, its hooks' call site: shown at the library call's. */
	const struct pair *shown;
	uint64_t start; /* below its stack's `shown`: the stack's resumed_at */
	uint64_t sp; /* 0 if unknown */
	uint64_t hook; /* the entry hook's return address, 0 if unknown */
	struct values *args; /* captured arguments, NULL if none */
	/* Over the calls of its stack from the outermost up to it (thread.c,
	 * so that a switch never walks a stack's calls): the lowest stack
	 * pointer (0 if one is unknown or near the top of the address
	 * space), and the highest address a callee's CFA may have and
	 * still be nested in them. */
	uint64_t lo, hi;
	bool resumed; /* reopened on its stack: closed (suspended) before */
	/* a forked child's call made by its parent before the fork (shown
	 * there): its return in the child is not shown */
	bool inherited;
};

/* A child process shown in the tree, made by thread `tid` of the process
 * at `ticks` (its ticks): the thread's call open then is not a leaf. */
struct spawn_point {
	uint64_t ticks;
	uint32_t tid;
};

/* The open calls of a thread on one stack (thread.c): the thread's stacks
 * are a chain of them, each with its own array, so that a switch moves a
 * stack's calls by pointer, never call by call. */
struct stack_run {
	struct frame *frames; /* outermost first */
	size_t n, cap;
	size_t base; /* in the thread's chain: the depth of frames[0] */
	/* frames[0 .. shown) were reopened at resumed_at (their start) */
	size_t shown;
	uint64_t resumed_at;
	/* While suspended: what the output keeps of its calls (park()),
	 * moved with them by pointer; NULL when it keeps nothing. */
	void *output_state;
};

struct thread {
	struct trace *trace;
	const struct thread_info *info;
	struct stream main, sig;
	/* The open calls: one run per stack, the outermost first. */
	struct stack_run *runs;
	size_t n_runs, cap_runs;
	size_t depth;
	/* Added to depth for the outputs: the depth of the call that made
	 * the process, grown by each return through a call it inherited, so
	 * that a child's calls all show under the call that made it. */
	size_t shift;
	/* This thread's spawn points, sorted (trace.spawn_points) */
	const struct spawn_point *spawns;
	size_t n_spawns;
	/* The process's first thread, whose first event comes after a
	 * note saying which process it is and how it started. */
	bool announce;
	char id_text[48]; /* the tid column, already formatted */
	size_t id_len;
	uint64_t id;      /* the thread id shown (tid or serial) */
	/* The next event's time while merging: recorded (wall clock), for
	 * placing child processes; and the thread's own (own_time()), by
	 * which threads are merged, so that calls are given in the order of
	 * the times shown. */
	uint64_t next_ticks, next_own;
	/* The merge of the thread with others, the thread at its top while
	 * it steps (replay.c); NULL: the thread replays alone (the last one
	 * left, --per-thread) or is done. */
	const struct heap *merge;
	/* The recorded (wall-clock) time of the event being handled, and
	 * the thread's own time of the last one (see own_time() in
	 * thread.c). */
	uint64_t wall, own;
	/* Calls left open on other stacks when the thread switched away
	 * (coroutines): closed as "no exit recorded", reopened if it comes
	 * back.  At most one per stack. */
	struct stack_run *suspended;
	size_t n_suspended;
	/* The arguments and return value of the call an output callback is
	 * given (values.h); NULL when not captured. */
	const struct values *args, *retval;
	/* -T FUNC@color=COLOR: the escape sequence that colours the name of
	 * the call an output callback is given; NULL: none (filter.c). */
	const char *color;
	/* The entry an output callback is given reopens a call suspended
	 * on another stack: its entry was shown before. */
	bool resumed;
	/* The close an output callback is given suspends a call: the thread
	 * switches to another stack and the call may be reopened (resumed)
	 * if it comes back.  Not an end of the call: a summarizing output
	 * does not count it, the tree shows one line for the switch. */
	bool suspending;
	/* The call an output's close callback is given was resumed: its
	 * first suspension closed it already (shown once, then). */
	bool closing_resumed;
	/* The suspending closes an output's close callback is given are
	 * followed by one switch_stack() telling the whole switch. */
	bool switch_told;
	/* The next call pushed starts a stack of its own (thread.c). */
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

/* What an output does with the calls, each callback optional (NULL:
 * nothing to do), called through output_*() below. */
struct output_ops {
	void (*begin_trace)(struct output *o, struct trace *t);
	/* entry of a call that has callees */
	void (*entry)(struct output *o, struct thread *th, const struct pair *p,
		      uint64_t ticks, size_t depth);
	/* a call whose exit is the thread's next event */
	void (*leaf)(struct output *o, struct thread *th, const struct pair *p,
		     uint64_t start, uint64_t end, size_t depth);
	/* optional: a call open in the thread from the start, entered in
	 * the parent process before fork() (shown and counted there); the
	 * child's return through it is given to no callback */
	void (*inherit)(struct output *o, struct thread *th,
			const struct pair *p, uint64_t start, size_t depth);
	/* end of a call that had callees; start/end per kind */
	void (*close)(struct output *o, struct thread *th, const struct pair *p,
		      uint64_t start, uint64_t end, size_t depth,
		      enum close_kind kind);
	/* optional: a stack switch (coroutines) in one call, n calls left
	 * (resume false) or reopened (resume true), the innermost of them p
	 * at depth.  An output that has it is given no close() for a
	 * suspended call it was given suspended before (closing_resumed),
	 * and no entry() for a reopened one: a switch costs it the same
	 * whatever the depth.  The closes of calls suspended for the first
	 * time still come, before, with thread.suspending and
	 * thread.switch_told set. */
	void (*switch_stack)(struct output *o, struct thread *th,
			     const struct pair *p, size_t depth, size_t n,
			     bool resume, uint64_t ticks);
	/* optional, for an output that keeps the open calls (the
	 * summarizing ones): the calls of one stack the thread leaves, n
	 * from depth (those just closed, suspending, included), to keep in
	 * *state; the replay keeps it with them until unpark() reopens the
	 * first n of them at depth, or drop_parked() says they are gone.  An
	 * output that has them is told a switch as one with switch_stack()
	 * (which it may leave NULL): no close() of a call it parked, no
	 * entry() of one reopened, so a switch costs the same whatever the
	 * depth. */
	void (*park)(struct output *o, struct thread *th, size_t depth,
		     size_t n, void **state);
	void (*unpark)(struct output *o, struct thread *th, size_t depth,
		       size_t n, void *state);
	void (*drop_parked)(struct output *o, struct thread *th, void *state);
	void (*lost)(struct output *o, struct thread *th, uint64_t count,
		     unsigned reason, size_t depth);
	/* aggregating formats leave it NULL, and the replay then does not
	 * make the note */
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
	/* Leaves too, but only where the merge of the threads takes the
	 * exit next (replay_takes_next): then the leaf comes where close()
	 * would have, so an output that writes calls as they end keeps
	 * their order (JSON) and is spared the push and pop of the call. */
	bool leaves_in_order;
	/* Replaying only to learn which calls are open: no values decoded. */
	bool stack_only;
	/* The format shows no values (report, graph, folded...): their
	 * payloads are skipped unread, unless a filter reads them (--where). */
	bool no_values;
	/* Call sites are shown: an inlined copy's is looked up in DWARF. */
	bool call_sites;
	const struct options *opts;
	struct outbuf *out;
	size_t n_traces; /* how many TRACE arguments */
	void *state;
};

/* The output's callbacks, as replay and the filters call them: a NULL
 * callback has nothing to do. */
static inline void output_begin_trace(struct output *o, struct trace *t)
{
	if (o->ops->begin_trace)
		o->ops->begin_trace(o, t);
}

static inline void output_entry(struct output *o, struct thread *th,
				const struct pair *p, uint64_t ticks,
				size_t depth)
{
	if (o->ops->entry)
		o->ops->entry(o, th, p, ticks, depth);
}

static inline void output_leaf(struct output *o, struct thread *th,
			       const struct pair *p, uint64_t start,
			       uint64_t end, size_t depth)
{
	if (o->ops->leaf)
		o->ops->leaf(o, th, p, start, end, depth);
}

static inline void output_inherit(struct output *o, struct thread *th,
				  const struct pair *p, uint64_t start,
				  size_t depth)
{
	if (o->ops->inherit)
		o->ops->inherit(o, th, p, start, depth);
}

static inline void output_close(struct output *o, struct thread *th,
				const struct pair *p, uint64_t start,
				uint64_t end, size_t depth,
				enum close_kind kind)
{
	if (o->ops->close)
		o->ops->close(o, th, p, start, end, depth, kind);
}

static inline void output_lost(struct output *o, struct thread *th,
			       uint64_t count, unsigned reason, size_t depth)
{
	if (o->ops->lost)
		o->ops->lost(o, th, count, reason, depth);
}

static inline void output_note(struct output *o, struct thread *th,
			       const struct note *n, size_t depth)
{
	if (o->ops->note)
		o->ops->note(o, th, n, depth);
}

static inline void output_end_trace(struct output *o, struct trace *t)
{
	if (o->ops->end_trace)
		o->ops->end_trace(o, t);
}

static inline void output_finish(struct output *o)
{
	if (o->ops->finish)
		o->ops->finish(o);
}

/* One thread's events to calls (thread.c).  with_pid: the thread column
 * reads PID/TID (several processes shown). */
void thread_init(struct thread *th, struct trace *t,
		 const struct thread_info *ti, const struct options *opts,
		 bool with_pid);
/* A fork()ed child's first thread: opens the calls it inherited. */
void thread_inherit(struct output *o, struct thread *th);
/* Handles the thread's next event (there is one: thread_peek). */
/* The thread's own time of `ev`, its next event (thread_peek), as
 * thread_step will give it; nothing changes. */
uint64_t thread_own_time(const struct thread *th, const struct event *ev);
void thread_step(struct output *o, struct thread *th);
/* Closes what is still open as unfinished and frees the thread. */
void thread_finish(struct output *o, struct thread *th);
/* The open call at `depth` (< th->depth). */
const struct frame *thread_frame(const struct thread *th, size_t depth);
/* The calls the replay touched so far: calls pushed, closed, reopened,
 * looked at, each once a time.  A measure of the replay's work that
 * tests read (CTRACE_REPLAY_WORK, main.c): it grows with the events,
 * never with the events times the depth. */
extern uint64_t replay_work;

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
void replay_run(struct trace **traces, size_t n_traces, struct output *o);
/* Whether the merge would take th's event ev next, before every other
 * thread's: ev is th's next event once the one it steps through now is
 * consumed (thread_peek), th->merge not NULL. */
bool replay_takes_next(const struct thread *th, const struct event *ev);

/* Finds where each trace's process was made, when the trace of the
 * process that made it is there too (trace.spawner, .base_depth,
 * .nest_key, the spawner's spawn_points), and for each fork()ed child the
 * calls it inherited open (trace.inherited).  After the clocks are
 * aligned. */
void replay_inherit(struct trace **traces, size_t n_traces);

/* A progress line on stderr (progress.c), when opts->progress and the
 * replay takes more than a second: thread.c counts events down and calls
 * progress_tick() at zero. */
extern uint32_t progress_countdown;
void progress_start(bool enabled, struct trace **traces, size_t n_traces,
		    const struct thread *threads, size_t n_threads);
void progress_tick(void);
void progress_end(void);

/* ---------------------------------------------------------------------------
 * Filters (filter.c)
 * ------------------------------------------------------------------------ */

struct filters *filter_new(void);
void filter_free(struct filters *f);

/* One command-line option: its getopt code ('F', 'N', 'H', 'C', 'T', 'D', 't', or
 * the long-only codes below) and its value.  Returns NULL, or a message
 * for usage_error() with one %s for the value. */
enum {
	FILTER_OPT_MATCH = 0x1000,
	FILTER_OPT_TID,
	FILTER_OPT_TIME_RANGE,
	FILTER_OPT_WHERE,
	FILTER_OPT_PID,
};
const char *filter_option(struct filters *f, int code, const char *value);

/* Compiles the patterns once every option is known (--match may come
 * last).  Returns NULL, or a message with one %s and sets *what. */
const char *filter_ready(struct filters *f, const char **what);

/* An output that shows `inner` only the calls the filters keep. */
struct output *filter_wrap(struct filters *f, struct output *inner);

/* ---------------------------------------------------------------------------
 * --where (where.c)
 * ------------------------------------------------------------------------ */

struct where;
/* The expression in `text`, or NULL with *error (what was expected) and
 * *column (where, from 1). */
struct where *where_parse(const char *text, const char **error,
			  size_t *column);
void where_free(struct where *w);
/* a && b, which it takes. */
struct where *where_and(struct where *a, struct where *b);
/* Whether a call of the function named fname, with these arguments and
 * return value (either may be NULL: not known), satisfies w. */
bool where_match(const struct where *w, const char *fname,
		 const struct values *args, const struct values *retval);

#endif /* CTRACE_SYMBOLIZER_REPLAY_H */
