/* output.h -- the output stage: calls shown in one format.
 *
 *   out_tree.c, out_json.c, out_report.c, out_dot.c, out_chrome.c,
 *   out_folded.c, out_flamegraph.c, out_perfetto.c, out_stats.c,
 *   out_graph.c
 *               one file per format, each an out_*_init() filling a
 *               struct output with its callbacks (replay.h)
 *   formats.c   the table of the formats: name, help line, out_*_init;
 *               the values of --sort and --weight
 *   agg.c what the summarizing formats share (below)
 *   callstats.c the tables of the report and the call graph
 *   paths.c     the call paths of folded stacks, flame graphs and graph
 *   json_header.c  the processes in the JSON document's header
 *   protobuf.c  the protocol buffers wire format (perfetto)
 *
 * The contract: an output is given calls by the replay stage, in time
 * order per thread, and writes its format into o->out.  Whatever bytes
 * the program's names and messages hold, the output stays valid for its
 * format (util.h's escaping).
 */
#ifndef CTRACE_SYMBOLIZER_OUTPUT_H
#define CTRACE_SYMBOLIZER_OUTPUT_H

#include "replay/replay.h"

/* ---------------------------------------------------------------------------
 * The formats
 * ------------------------------------------------------------------------ */

/* report: --sort=KEY */
enum report_sort { SORT_TOTAL, SORT_CALLS, SORT_SELF, SORT_AVG, SORT_MAX,
		   SORT_NAME };

/* What the command line asks of some formats only (struct options, in
 * replay.h, holds what the replay needs too). */
struct output_options {
	enum report_sort sort; /* report: --sort */
	bool weight_calls;     /* folded, flamegraph: --weight=calls */
	const char *function;  /* graph: --function; NULL: main */
	bool by_module;        /* report: --by-module */
};

/* One output format (formats.c): its -f name, a one-line description and
 * the function that fills a struct output with its callbacks and state. */
struct output_format {
	const char *name;
	const char *help;
	void (*init)(struct output *o, const struct output_options *oo);
};

/* Every format, the default first, ending with a NULL name. */
extern const struct output_format formats_all[];
/* The format named `name`, or NULL. */
const struct output_format *formats_find(const char *name);
/* --sort's KEY and --weight's value: 0, or -1 if unknown. */
int formats_sort_key(const char *name, enum report_sort *key);
int formats_weight(const char *name, bool *by_calls);


void out_tree_init(struct output *o, const struct output_options *oo);
void out_json_init(struct output *o, const struct output_options *oo);
void out_report_init(struct output *o, const struct output_options *oo);
void out_dot_init(struct output *o, const struct output_options *oo);
void out_chrome_init(struct output *o, const struct output_options *oo);
void out_folded_init(struct output *o, const struct output_options *oo);
void out_flamegraph_init(struct output *o, const struct output_options *oo);
void out_perfetto_init(struct output *o, const struct output_options *oo);
void out_stats_init(struct output *o, const struct output_options *oo);
void out_info_init(struct output *o, const struct output_options *oo);
void out_info_json_init(struct output *o, const struct output_options *oo);
void out_graph_init(struct output *o, const struct output_options *oo);
void out_graph_stats_init(struct output *o, const struct output_options *oo);

/* ---------------------------------------------------------------------------
 * The JSON header (json_header.c)
 * ------------------------------------------------------------------------ */

/* One process, as a JSON object (json_header.c). */
void json_header_put_process(struct outbuf *out, const struct trace *t,
			     const struct options *opts);

/* ---------------------------------------------------------------------------
 * The protocol buffers wire format (protobuf.c)
 * ------------------------------------------------------------------------ */

/* One message being written, nested messages open in it; the caller
 * writes pb->buf[0 .. len) out and sets len to 0 for the next one. */
#define PROTOBUF_MAX_DEPTH 8
struct protobuf {
	uint8_t *buf;
	size_t len, cap;
	size_t open[PROTOBUF_MAX_DEPTH]; /* where each open message starts */
	unsigned depth;
};

void protobuf_init(struct protobuf *pb);
void protobuf_free(struct protobuf *pb);
/* A varint field (uint32, uint64, bool, enum). */
void protobuf_varint(struct protobuf *pb, uint32_t field, uint64_t v);
/* A length-delimited field: bytes as they are. */
void protobuf_bytes(struct protobuf *pb, uint32_t field, const void *p,
		    size_t n);
/* A string field from the program's bytes: valid UTF-8 (escape.c). */
void protobuf_text(struct protobuf *pb, uint32_t field, const char *s,
		   size_t n);
/* A nested message: its fields go between begin and end. */
void protobuf_begin(struct protobuf *pb, uint32_t field);
void protobuf_end(struct protobuf *pb);

/* ---------------------------------------------------------------------------
 * What the summarizing outputs share (agg.c)
 * ------------------------------------------------------------------------ */

/* report, dot, folded and flamegraph never keep events: they add each
 * call into a table as it returns.  Tables are keyed by small integers
 * (interned names, thread numbers, call-path nodes), so their size is the
 * number of distinct functions, threads or call paths, whatever the
 * length of the trace.
 *
 *   names      function names interned across traces: equal names, equal
 *              ids, as long as the output lives
 *   u64map     open addressing from a nonzero 64-bit key to a 32-bit value
 *   agg_thread a thread's stack of open calls with the time of their
 *              callees, so that self time = duration - callees' time
 */

/* ---------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

/* The id (from 1) of the function's name; cached in the func. */
uint32_t agg_name_id(const struct pair *p);
/* What the report counts a call under: agg_name_id(p), or with
 * agg_by_module set, the id of the name of its module (a library call's:
 * its library's), "?" when none is known. */
uint32_t agg_row_id(struct thread *th, const struct pair *p);
extern bool agg_by_module;
const char *agg_name(uint32_t id);
size_t agg_name_len(uint32_t id);
/* Ids handed out so far, plus one: valid ids are 1 .. agg_names_end()-1. */
uint32_t agg_names_end(void);
/* Forgets every name: a name is its first function's text, which lives
 * only as long as the function's trace (callstats_free and paths_free
 * call it). */
void agg_names_free(void);
/* Frees the index that finds a name's id by its text, for the memory of
 * what follows the last agg_name_id (sorting); agg_name_id builds it
 * again if called. */
void agg_names_drop_index(void);

/* ---------------------------------------------------------------------------
 * Integer map
 * ------------------------------------------------------------------------ */

struct u64map {
	uint64_t *keys; /* 0: empty slot */
	uint32_t *values;
	size_t n, mask;
};

void agg_map_init(struct u64map *m);
void agg_map_free(struct u64map *m);
/* The slot of key, inserting it with value `fresh` when missing; returns
 * a pointer to the value (valid until the next insertion). */
uint32_t *agg_map_get(struct u64map *m, uint64_t key, uint32_t fresh,
		      bool *inserted);

static inline size_t u64map_slot(const struct u64map *m, uint64_t key)
{
	key *= 0x9e3779b97f4a7c15u;
	return (size_t)(key >> 29) & m->mask;
}

/* ---------------------------------------------------------------------------
 * Threads
 * ------------------------------------------------------------------------ */

struct agg_frame {
	uint32_t ref;      /* the output's: a statistics row or a path node */
	uint32_t name;     /* the function's name id */
	uint32_t edge_ref; /* callstats: its edge's id + 1, or 0 */
	/* reopened on its stack (thread.resumed): counted already, when the
	 * thread first left it */
	bool resumed;
	/* callstats: its name (and edge) are in its segment's counts */
	bool counted;
	uint64_t child_ns; /* time of the returned callees */
};

/* The names of the calls open in one segment, with how many calls of each
 * are open: open addressing over names (0: empty), as large as the stack
 * is deep, never as the number of functions. */
struct open_name {
	uint32_t name, count;
};

struct open_names {
	struct open_name *slots;
	size_t mask, n;
};

/* The open calls of a thread are a chain of segments, each its own array,
 * as the replay's runs (replay.h): the calls of a stack the thread left
 * are parked in one, moved by pointer, and come back as one, so that a
 * switch of coroutines costs the same whatever their depth.  Segment 0
 * starts at depth 0; each other starts where the one below ends. */
struct agg_seg {
	struct agg_frame *frames;
	size_t base;   /* the depth of frames[0] */
	size_t n, cap; /* frames[0 .. n) are open */
	size_t high;   /* frames[0 .. high) were written (closed ones stay) */
	/* callstats: how many calls of each name, and of each edge (id +
	 * 1), are open in the segment; a thread's count is its segments' */
	struct open_names names, edges;
	/* paths, callstats: what the outermost call's caller was when the
	 * segment was parked (its path node, its name) */
	uint32_t parent_ref, parent_name;
};

struct agg_thread {
	uint32_t index; /* 0, 1, 2... in the order threads were first seen */
	/* its rows' table: index, or with by_process the process's, 0, 1,
	 * 2... in the order processes were first seen */
	uint32_t group;
	const struct trace *trace;
	uint32_t pid;
	uint64_t id;  /* as shown: tid or serial */
	char *name;   /* the thread's name, or NULL */
	struct agg_seg *segs; /* the chain, segs[0] the outermost */
	size_t n_segs, cap_segs;
	size_t depth; /* open calls: the top segment's base + n */
};

struct agg_threads {
	struct agg_thread **all;
	size_t n;
	bool by_process; /* a group per process (--per-process) */
	uint32_t n_groups;
};

/* Calls a thread left on another stack and their counts, parked
 * (agg_park) until it comes back (agg_unpark): one segment. */
struct agg_parked {
	struct agg_seg seg;
};

/* How many frames the summarizing outputs moved one by one at stack
 * switches (the tests read it with the replay's work, CTRACE_REPLAY_WORK):
 * those first left, dropped or moved to another caller, never those
 * moved by pointer. */
extern uint64_t agg_work;

/* The output's state for th, created on first use. */
struct agg_thread *agg_thread_get(struct agg_threads *ts, struct thread *th);
void agg_threads_free(struct agg_threads *ts);

/* The segment that holds the frame at depth (< at->depth). */
static inline struct agg_seg *agg_seg_of(struct agg_thread *at, size_t depth)
{
	size_t k = at->n_segs - 1;

	while (k && at->segs[k].base > depth)
		k--;
	return &at->segs[k];
}

/* The open frame at depth, NULL if there is none. */
static inline struct agg_frame *agg_at(struct agg_thread *at, size_t depth)
{
	struct agg_seg *s;

	if (depth >= at->depth)
		return NULL;
	s = agg_seg_of(at, depth);
	return &s->frames[depth - s->base];
}

/* Leaves depth open calls (fewer than at->depth): the frames above keep
 * their contents until overwritten; emptied segments above the first
 * are freed once they have no counts. */
void agg_truncate(struct agg_thread *at, size_t depth);

/* A new frame at the top, at->depth (filled up to `depth` with empty ones
 * after damage). */
struct agg_frame *agg_push_slow(struct agg_thread *at, size_t depth);

/* Makes room for and returns the frame at `depth`, leaving depth + 1 open
 * calls (the filter and thread.c give consistent depths; this never trusts
 * them to). */
static inline struct agg_frame *agg_push(struct agg_thread *at, size_t depth)
{
	struct agg_seg *s = &at->segs[at->n_segs - 1]; /* one at least */

	if (depth == at->depth && s->base + s->n == depth &&
	    s->n < s->cap) {
		at->depth = depth + 1;
		if (s->high < s->n + 1)
			s->high = s->n + 1;
		return &s->frames[s->n++];
	}
	return agg_push_slow(at, depth);
}

/* The frame closed at `depth`, or NULL if there is none; its contents
 * stay until the next push. */
static inline struct agg_frame *agg_pop(struct agg_thread *at, size_t depth)
{
	struct agg_seg *s;

	if (depth >= at->depth)
		return NULL;
	s = agg_seg_of(at, depth);
	if (depth + 1 == at->depth && s == &at->segs[at->n_segs - 1]) {
		s->n--;
		at->depth = depth;
		return &s->frames[depth - s->base];
	}
	agg_truncate(at, depth);
	return &s->frames[depth - s->base];
}

/* The caller of a call at `depth`, or NULL. */
static inline struct agg_frame *agg_parent(struct agg_thread *at,
					   size_t depth)
{
	return depth && depth <= at->depth ? agg_at(at, depth - 1) : NULL;
}

/* The calls from depth up (the frames of a stack's run, n of them from
 * depth, those closed since its last park included), parked in a new
 * block: whole segments move by pointer.  The calls closed since (each
 * once: first left) are marked resumed and, with counts, counted again
 * in the block. */
struct agg_parked *agg_park(struct agg_thread *at, size_t depth, size_t n,
			    bool counts);
/* Reopens the first n calls of p at depth (at->depth), p's segment on top
 * of the chain; those after them are gone (uncounted).  Returns the new
 * top segment; frames p had fewer than n are empty ones.  Takes p. */
struct agg_seg *agg_unpark(struct agg_thread *at, size_t depth, size_t n,
			   struct agg_parked *p);
/* Frees a parked block never reopened. */
void agg_parked_free(struct agg_parked *p);
/* The drop_parked() callback of the summarizing outputs. */
void agg_drop_parked(struct output *o, struct thread *th, void *state);

/* Counts of open calls by name (or any nonzero key). */
uint32_t agg_open_count(const struct open_names *t, uint32_t name);
void agg_open_add(struct open_names *t, uint32_t name);
/* returns how many stay open */
uint32_t agg_open_remove(struct open_names *t, uint32_t name);
/* How many calls of name, or along edge edge_ref, are open in the
 * thread: the sum of its segments'. */
uint32_t agg_thread_count(const struct agg_thread *at, uint32_t name);
uint32_t agg_thread_edge_count(const struct agg_thread *at, uint32_t edge_ref);

/* ---------------------------------------------------------------------------
 * Call statistics (callstats.c): the report and the call graph
 * ------------------------------------------------------------------------ */

/* One function, in one thread (--per-thread) or in all.  A call of a
 * function already running in the same thread (recursion) adds to every
 * column but total: total is the time of the outermost calls only, so
 * that it never exceeds the time the thread ran. */
struct stat_row {
	uint32_t name;   /* name id */
	uint32_t active; /* --per-thread: calls running now in its thread */
	uint64_t calls;
	uint64_t total, self, sum; /* ns; sum: of every call's duration */
	uint64_t min, max;         /* ns, of the returned calls */
	uint64_t returned;         /* calls whose duration is known */
};

/* Calls from one function to another, all threads together.  As a
 * row's total, an edge's total counts only the calls made while no call
 * along the same edge was running in the same thread (fib -> fib inside
 * fib -> fib adds nothing), so that it never exceeds the time the threads
 * ran. */
struct stat_edge {
	uint32_t caller, callee; /* name ids */
	uint64_t calls, total;   /* total: of the outermost calls, in ns */
};

/* One thread's rows by name: open addressing over row indexes + 1. */
struct row_table {
	uint32_t *slots;
	size_t mask, n;
};

struct callstats {
	struct agg_threads threads;
	bool per_thread;
	/* per_thread: rows in the order they were made, indexed by thread
	 * (its agg_thread index) and name, 64 bytes and a slot per row.
	 * Otherwise, one row per name for all threads, by name id: a byte
	 * of kind and a cell of 8 bytes that holds the one call of a function
	 * called once without time in callees or in itself, else the index
	 * of its 64-byte row in rows (callstats.c); the calls open in each
	 * thread are in open, by thread. */
	struct row_table *row_ids;
	size_t n_row_ids;
	struct stat_row *rows;
	size_t n_rows, cap_rows;
	uint8_t *kinds;
	uint64_t *cells;
	size_t cap_names;
	bool with_edges;
	struct u64map edge_index; /* caller << 32 | callee -> edge */
	struct stat_edge *edges;
	size_t n_edges, cap_edges;
	/* Lost events by where they were lost: the name of the innermost
	 * call open then (0: none), as many as the functions; those that no
	 * thread's data places (trace_lost_unplaced); the reasons seen. */
	struct stat_lost {
		uint32_t name;
		uint64_t count;
	} *lost;
	size_t n_lost, cap_lost;
	struct u64map lost_index; /* name + 1 -> lost */
	uint64_t lost_unplaced;
	uint32_t lost_reasons; /* bit (1 << reason) */
};

/* per_thread: a row per function and thread; else per function. */
void callstats_init(struct callstats *cs, bool with_edges, bool per_thread);
void callstats_free(struct callstats *cs);
void callstats_entry(struct callstats *cs, struct thread *th,
		     const struct pair *p, size_t depth);
void callstats_leaf(struct callstats *cs, struct thread *th,
		    const struct pair *p, uint64_t start, uint64_t end,
		    size_t depth);
void callstats_close(struct callstats *cs, struct thread *th,
		     const struct pair *p, uint64_t start, uint64_t end,
		     size_t depth, enum close_kind kind);
/* Events lost at `depth` of th (an output's lost()), and those of trace t
 * that no thread's data places (an output's end_trace()). */
void callstats_lost(struct callstats *cs, struct thread *th, uint64_t count,
		    unsigned reason, size_t depth);
void callstats_end_trace(struct callstats *cs, struct trace *t);
/* A stack's calls the thread left (its run from depth, n calls), parked
 * in *state, and reopened (n of them) at depth: see agg_park. */
void callstats_park(struct callstats *cs, struct thread *th, size_t depth,
		    size_t n, void **state);
void callstats_unpark(struct callstats *cs, struct thread *th, size_t depth,
		      size_t n, void *state);
/* The lost events as lines that `prefix` starts: "ctrace: N events lost
 * (reasons):", then how many where ("  in f: N", "  outside any call: N",
 * "  after the data of their threads ends: N"), the most first.  Nothing
 * when none were lost. */
void callstats_put_lost(struct outbuf *out, const struct callstats *cs,
			const char *prefix);

/* Not per_thread: the row of name id `name`, all threads together, into
 * *r; false if the name has none.  Names with a row are those of the
 * calls given, and their ids are 1 .. agg_names_end() - 1. */
bool callstats_row(const struct callstats *cs, uint32_t name,
		   struct stat_row *r);
/* per_thread: the indexes in cs->rows of one thread's rows (by
 * agg_thread index), in no particular order, in a new array; *n their
 * number. */
uint32_t *callstats_thread_rows(const struct callstats *cs, uint32_t thread,
				size_t *n);

/* ---------------------------------------------------------------------------
 * Call paths (paths.c): folded stacks and flame graphs
 * ------------------------------------------------------------------------ */

/* A trie of the call paths that occurred: node = (parent node, function
 * name), node 0 the root above every thread's outermost calls.  Parents
 * come before their children in the array. */
struct path_node {
	uint32_t parent, name;
	uint64_t self;  /* ns: durations minus the callees' */
	uint64_t total; /* ns: durations of the calls that returned */
	uint64_t calls;
};

struct paths {
	bool weight_calls; /* weigh paths by calls, not self time */
	struct agg_threads threads;
	struct u64map index; /* parent << 32 | name -> node */
	struct path_node *nodes;
	size_t n, cap;
};

void paths_init(struct paths *ps);
void paths_free(struct paths *ps);
/* The output callbacks of both formats: o->state is their struct paths,
 * o->leaves true. */
void paths_entry(struct output *o, struct thread *th, const struct pair *p,
		 uint64_t ticks, size_t depth);
void paths_leaf(struct output *o, struct thread *th, const struct pair *p,
		uint64_t start, uint64_t end, size_t depth);
void paths_close(struct output *o, struct thread *th, const struct pair *p,
		 uint64_t start, uint64_t end, size_t depth,
		 enum close_kind kind);
/* Lost events: a frame PATHS_LOST_NAME on the path where they were lost
 * (at the root for those no thread's data places, trace_lost_unplaced),
 * whose weight is their number in both weightings: their time is not
 * known. */
#define PATHS_LOST_NAME "[ctrace: events lost]"
void paths_lost(struct output *o, struct thread *th, uint64_t count,
		unsigned reason, size_t depth);
void paths_end_trace(struct output *o, struct trace *t);
/* park() and unpark(): as callstats_park, the outermost's path node from
 * its new caller (and its callees' after it) when that differs. */
void paths_park(struct output *o, struct thread *th, size_t depth, size_t n,
		void **state);
void paths_unpark(struct output *o, struct thread *th, size_t depth,
		  size_t n, void *state);

/* The nodes' children, sorted by name: the children of node i are
 * order[first[i]] .. order[first[i + 1] - 1].  Free both. */
void paths_children(const struct paths *ps, uint32_t **order,
		    uint32_t **first);

/* ---------------------------------------------------------------------------
 * Shared text helpers
 * ------------------------------------------------------------------------ */

/* A JSON string with its quotes. */
static inline void put_json_str(struct outbuf *out, const char *s, size_t n)
{
	outbuf_json_str(out, s, n);
}
/* Text escaped for XML. */
void agg_put_xml_str(struct outbuf *out, const char *s, size_t n);
/* ns as microseconds with three decimals: "12.345". */
void agg_put_us(struct outbuf *out, int64_t ns);

#endif /* CTRACE_SYMBOLIZER_OUTPUT_H */
