/* out_tree.c -- the call tree, in the manner of `uftrace replay`.
 *
 *   # DURATION     TID     FUNCTION
 *               [ 41424] | main() {
 *      0.052 us [ 41424] |   fib();
 *      1.020 us [ 41424] | } /+ main +/
 *
 * Every line is printf("%10s [%6s] | %s%s\n", duration, tid, indent, text)
 * but built with memcpy: this runs once per event.
 */
#include <stdio.h>
#include <string.h>

#include "output/output.h"
#include "values/values.h"

#define HEADER_LINE "# DURATION     TID     FUNCTION\n"

/* A stack switch (coroutines) shows as one line, not as a line per call
 * left or reopened: those calls' lines would make the tree quadratic in
 * the trace (every switch of a coroutine D calls deep, D lines).  A run of
 * closes that suspend calls, or of entries that reopen them, is counted,
 * and shown when the next line of any kind comes: at the innermost call's
 * depth, "leaves the stack of F, N calls suspended" or "back to the stack
 * of F, N calls resumed" (whose callees then nest under it). */
enum switch_run { RUN_NONE, RUN_SUSPEND, RUN_RESUME };

struct tree_state {
	bool header_done;
	enum switch_run run;
	const struct thread *run_th;
	const struct pair *run_fn; /* the innermost call of the run */
	size_t run_depth, run_n;
};

static struct tree_state tree_state;

static inline void line_start(struct output *o, const struct thread *th,
			      uint64_t ns, uint64_t ticks, const struct pair *p,
			      size_t depth);
static inline void put_name(struct output *o, const struct thread *th,
			    const struct pair *p);

/* Shows the switch counted so far, if any. */
static void run_flush(struct output *o)
{
	struct tree_state *ts = o->state;

	if (ts->run == RUN_NONE)
		return;
	line_start(o, ts->run_th, UINT64_MAX, UINT64_MAX, ts->run_fn,
		   ts->run_depth);
	outbuf_str(o->out, ts->run == RUN_SUSPEND
				   ? "/* ctrace: leaves the stack of "
				   : "/* ctrace: back to the stack of ");
	put_name(o, NULL, ts->run_fn); /* a switch line: never coloured */
	outbuf_str(o->out, ", ");
	outbuf_u64(o->out, ts->run_n);
	outbuf_str(o->out, ts->run_n == 1 ? " call" : " calls");
	outbuf_str(o->out, ts->run == RUN_SUSPEND ? " suspended */\n"
						  : " resumed */\n");
	ts->run = RUN_NONE;
}

/* Counts a suspended or resumed call in the current run (a new run after
 * showing one of another kind or thread). */
static void run_add(struct output *o, const struct thread *th,
		    enum switch_run kind, const struct pair *p, size_t depth,
		    size_t n)
{
	struct tree_state *ts = o->state;

	if (ts->run != kind || ts->run_th != th)
		run_flush(o);
	if (ts->run == RUN_NONE) {
		ts->run = kind;
		ts->run_th = th;
		ts->run_n = 0;
		ts->run_fn = p;
		ts->run_depth = depth;
	}
	/* closes come innermost first, entries outermost first (a whole
	 * switch comes with its innermost call) */
	if (kind == RUN_RESUME) {
		ts->run_fn = p;
		ts->run_depth = depth;
	}
	ts->run_n += n;
}

/* A whole switch at once: the same line as its calls one by one. */
static void tree_switch(struct output *o, struct thread *th,
			const struct pair *p, size_t depth, size_t n,
			bool resume, uint64_t ticks)
{
	(void)ticks;
	run_add(o, th, resume ? RUN_RESUME : RUN_SUSPEND, p, depth, n);
}

/* --fields: each column's title and width. */
static const struct {
	const char *title;
	int width;
} field_info[] = {
	[FIELD_DURATION] = {"DURATION", 10}, [FIELD_TID] = {"TID", 8},
	[FIELD_ELAPSED] = {"ELAPSED", 10},  [FIELD_TIMESTAMP] = {"TIMESTAMP", 20},
	[FIELD_ADDR] = {"ADDRESS", 18},     [FIELD_MODULE] = {"MODULE", 16},
};

/* The header line of --fields: each title at the right of its column
 * (MODULE's at the left, as its values), then FUNCTION. */
static void put_fields_header(struct output *o)
{
	const struct options *opts = o->opts;
	struct outbuf *out = o->out;

	outbuf_putc(out, '#');
	for (size_t i = 0; i < opts->n_fields; i++) {
		enum tree_field f = opts->fields[i];
		int pad = field_info[f].width - (int)strlen(field_info[f].title) -
			  (i == 0);
		if (i)
			outbuf_putc(out, ' ');
		if (f != FIELD_MODULE)
			outbuf_spaces(out, pad > 0 ? (size_t)pad : 0);
		outbuf_str(out, field_info[f].title);
		if (f == FIELD_MODULE)
			outbuf_spaces(out, pad > 0 ? (size_t)pad : 0);
	}
	outbuf_str(out, "   FUNCTION\n");
}

/* `text` left-aligned (right: right-aligned) in `width` columns. */
static void put_padded(struct outbuf *out, const char *text, size_t len,
		       int width, bool right)
{
	size_t pad = (size_t)width > len ? (size_t)width - len : 0;

	if (right)
		outbuf_spaces(out, pad);
	outbuf_escaped(out, text, len, ESCAPE_TEXT);
	if (!right)
		outbuf_spaces(out, pad);
}

/* --fields: the columns asked for, in their order, then " | ".  ticks
 * (UINT64_MAX: none) is the line's time, p (NULL: none) its call. */
static void line_fields(struct output *o, const struct thread *th,
			uint64_t ns, uint64_t ticks, const struct pair *p)
{
	const struct options *opts = o->opts;
	struct outbuf *out = o->out;
	const struct trace *t = th->trace;
	char buf[48];
	size_t n;

	for (size_t i = 0; i < opts->n_fields; i++) {
		enum tree_field f = opts->fields[i];
		int64_t at;
		if (i)
			outbuf_putc(out, ' ');
		switch (f) {
		case FIELD_DURATION:
			if (ns == UINT64_MAX || opts->no_duration) {
				outbuf_spaces(out, 10);
				break;
			}
			n = opts->color ? outbuf_format_duration_color(buf, ns)
					: outbuf_format_duration(buf, ns);
			outbuf_write(out, buf, n);
			break;
		case FIELD_TID:
			/* " [  1234] | " without its first and last 2 */
			outbuf_write(out, th->id_text + 1, th->id_len - 4);
			break;
		case FIELD_ELAPSED:
			if (ticks == UINT64_MAX) {
				outbuf_spaces(out, 10);
				break;
			}
			at = trace_ns(t, ticks);
			n = outbuf_format_duration(buf, at > 0 ? (uint64_t)at : 0);
			outbuf_write(out, buf, n);
			break;
		case FIELD_TIMESTAMP:
			if (ticks == UINT64_MAX) {
				outbuf_spaces(out, 20);
				break;
			}
			/* the wall clock: the start's, plus the time since */
			at = (int64_t)t->hdr.start_realtime_ns +
			     (trace_ns(t, ticks) - trace_ns(t, t->hdr.base_ticks));
			if (at < 0)
				at = 0;
			n = (size_t)snprintf(buf, sizeof buf, "%llu.%09llu",
					     (unsigned long long)at / 1000000000,
					     (unsigned long long)at % 1000000000);
			put_padded(out, buf, n, 20, true);
			break;
		case FIELD_ADDR:
			if (!p) {
				outbuf_spaces(out, 18);
				break;
			}
			n = (size_t)snprintf(buf, sizeof buf, "0x%llx",
					     (unsigned long long)pair_fn(p));
			put_padded(out, buf, n, 18, true);
			break;
		case FIELD_MODULE: {
			const char *path =
				p ? symtab_pair_module(t->symtab, p) : NULL;
			const char *base = path ? strrchr(path, '/') : NULL;
			base = base ? base + 1 : path;
			if (!p)
				outbuf_spaces(out, 16);
			else if (!base)
				put_padded(out, "?", 1, 16, false);
			else
				put_padded(out, base, strlen(base), 16, false);
			break;
		}
		case N_FIELDS:
			break;
		}
	}
	outbuf_write(out, " | ", 3);
}

/* Duration column (blank when ns is UINT64_MAX or --no-duration), thread
 * column and indentation; with --fields, the columns it lists. */
static inline void line_start(struct output *o, const struct thread *th,
			      uint64_t ns, uint64_t ticks, const struct pair *pr,
			      size_t depth)
{
	struct outbuf *out = o->out;
	char *p;
	size_t n;

	if (o->opts->n_fields) {
		line_fields(o, th, ns, ticks, pr);
		goto indent;
	}
	p = outbuf_reserve(out, 48 + sizeof th->id_text);
	if (ns == UINT64_MAX || o->opts->no_duration) {
		memset(p, ' ', 10);
		n = 10;
	} else if (o->opts->color) {
		n = outbuf_format_duration_color(p, ns);
	} else {
		n = outbuf_format_duration(p, ns);
	}
	memcpy(p + n, th->id_text, th->id_len);
	out->len += n + th->id_len;
indent:
	if (o->opts->max_depth && depth > o->opts->max_depth) {
		/* indented no further: the depth says where the line is */
		outbuf_spaces(out, 2 * o->opts->max_depth);
		outbuf_write(out, "[depth ", 7);
		outbuf_u64(out, depth);
		outbuf_write(out, "] ", 2);
		return;
	}
	outbuf_spaces(out, 2 * depth);
}

/* The name, in its thread's -T color=COLOR when colours are on (th NULL:
 * plain). */
static inline void put_name(struct output *o, const struct thread *th,
			    const struct pair *p)
{
	const struct func *f = p->func;
	bool color = th && th->color && o->opts->color;

	if (color)
		outbuf_str(o->out, th->color);
	if (f->plain_name)
		outbuf_write(o->out, f->name, f->name_len);
	else
		outbuf_escaped(o->out, f->name, f->name_len, ESCAPE_TEXT);
	if (color)
		outbuf_str(o->out, OUTBUF_COLOR_RESET);
}

static void put_srcline(struct output *o, const struct thread *th,
			const struct pair *p)
{
	if (o->opts->srcline) {
		size_t len;
		const char *s = symtab_pair_srcline(th->trace->symtab, p, &len);
		outbuf_write(o->out, s, len);
	}
}

static void tree_begin_trace(struct output *o, struct trace *t)
{
	struct tree_state *ts = o->state;

	if (!ts->header_done) {
		if (o->opts->n_fields)
			put_fields_header(o);
		else
			outbuf_str(o->out, HEADER_LINE);
		ts->header_done = true;
	}
	if (o->n_traces > 1) {
		/* which process the following lines belong to */
		outbuf_str(o->out, "# ");
		outbuf_escaped(o->out, t->path, strlen(t->path), ESCAPE_TEXT);
		outbuf_str(o->out, ": pid ");
		outbuf_u64(o->out, t->pid);
		if (t->exe) {
			outbuf_str(o->out, " (");
			outbuf_escaped(o->out, t->exe, strlen(t->exe), ESCAPE_TEXT);
			outbuf_putc(o->out, ')');
		}
		outbuf_putc(o->out, '\n');
	}
	if (t->libcalls_unseen)
		outbuf_str(o->out, "# ctrace: library calls cannot be seen: "
				   "the program is linked statically\n");
}

/* "()" or, with captured arguments, "(a=1, b=2)"; nothing after a name
 * that already has its parameter types (--demangle=full). */
static void put_params(struct output *o, const struct thread *th,
		       const struct pair *p)
{
	if (th->args) {
		outbuf_putc(o->out, '(');
		values_put_args_tree(o->out, th->args);
		outbuf_putc(o->out, ')');
	} else if (!p->func->has_params) {
		outbuf_write(o->out, "()", 2);
	}
}

static void tree_entry(struct output *o, struct thread *th,
		       const struct pair *p, uint64_t ticks, size_t depth)
{
	if (th->resumed) {
		run_add(o, th, RUN_RESUME, p, depth, 1);
		return;
	}
	run_flush(o);
	line_start(o, th, UINT64_MAX, ticks, p, depth);
	put_name(o, th, p);
	put_params(o, th, p);
	outbuf_write(o->out, " {", 2);
	put_srcline(o, th, p);
	outbuf_putc(o->out, '\n');
}

/* Its entry line is in the parent process's part of the tree. */
static void tree_inherit(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t start, size_t depth)
{
	(void)o, (void)th, (void)p, (void)start, (void)depth;
}

static void tree_leaf(struct output *o, struct thread *th,
		      const struct pair *p, uint64_t start, uint64_t end,
		      size_t depth)
{
	run_flush(o);
	line_start(o, th, trace_duration(th->trace, start, end), start, p,
		   depth);
	put_name(o, th, p);
	put_params(o, th, p);
	values_put_ret_tree(o->out, th->retval);
	outbuf_putc(o->out, ';');
	put_srcline(o, th, p);
	outbuf_putc(o->out, '\n');
}

static void tree_close(struct output *o, struct thread *th,
		       const struct pair *p, uint64_t start, uint64_t end,
		       size_t depth, enum close_kind kind)
{
	static const char *const note[] = {
		[CLOSE_RETURNED] = " */\n",
		[CLOSE_NO_EXIT] = " (no exit recorded) */\n",
		[CLOSE_UNFINISHED] = " (unfinished) */\n",
		[CLOSE_BEFORE_TRACE] = " (entered before the trace) */\n",
	};

	if (th->suspending) {
		/* else told in one tree_switch() */
		if (!th->switch_told)
			run_add(o, th, RUN_SUSPEND, p, depth, 1);
		return;
	}
	run_flush(o);
	line_start(o, th,
		   kind == CLOSE_RETURNED ? trace_duration(th->trace, start, end)
					  : UINT64_MAX,
		   end ? end : UINT64_MAX, p, depth);
	if (th->retval && kind == CLOSE_RETURNED) {
		outbuf_putc(o->out, '}');
		values_put_ret_tree(o->out, th->retval);
		outbuf_write(o->out, "; /* ", 5);
	} else {
		outbuf_write(o->out, "} /* ", 5);
	}
	put_name(o, th, p);
	outbuf_str(o->out, note[kind]);
}

static void tree_lost(struct output *o, struct thread *th, uint64_t count,
		      unsigned reason, size_t depth)
{
	run_flush(o);
	line_start(o, th, UINT64_MAX, UINT64_MAX, NULL, depth);
	outbuf_str(o->out, "/* ctrace: ");
	outbuf_u64(o->out, count);
	outbuf_str(o->out, " events lost (");
	outbuf_str(o->out, trace_lost_reason_text(reason));
	outbuf_str(o->out, ") */\n");
}

/* A note as a comment line: the message, "tracepoint: message" or
 * "ctrace: recording off"; a "*" "/" pair inside gets a space between, so
 * the comment cannot end early. */
static void tree_note(struct output *o, struct thread *th, const struct note *n,
		      size_t depth)
{
	run_flush(o);
	line_start(o, th, UINT64_MAX, n->ticks, NULL, depth);
	outbuf_str(o->out, n->control ? "/* ctrace: " : "/* ");
	if (n->tracepoint) {
		outbuf_escaped(o->out, n->tracepoint, strlen(n->tracepoint),
			       ESCAPE_TEXT);
		outbuf_str(o->out, ": ");
	}
	/* escaped, and no "*" "/" that would end the comment early */
	for (size_t i = 0, run = 0; i <= n->text_len; i++) {
		if (i < n->text_len &&
		    !(n->text[i] == '*' && i + 1 < n->text_len &&
		      n->text[i + 1] == '/'))
			continue;
		outbuf_escaped(o->out, n->text + run, i - run, ESCAPE_TEXT);
		if (i < n->text_len)
			outbuf_write(o->out, "* ", 2);
		run = i + 1;
	}
	outbuf_str(o->out, " */\n");
}

/* Lost events that no thread's data places, after the trace's threads:
 * "# ctrace: N events lost after the data of their threads ends" (with
 * several traces, "# FILE: ctrace: ..."). */
static void tree_end_trace(struct output *o, struct trace *t)
{
	uint64_t lost = trace_lost_unplaced(t);

	run_flush(o);
	if (lost) {
		outbuf_str(o->out, "# ");
		if (o->n_traces > 1) {
			outbuf_escaped(o->out, t->path, strlen(t->path),
				       ESCAPE_TEXT);
			outbuf_str(o->out, ": ");
		}
		outbuf_str(o->out, "ctrace: ");
		outbuf_u64(o->out, lost);
		outbuf_str(o->out, " events lost " TRACE_LOST_UNPLACED_TEXT
				   "\n");
	}
	outbuf_flush(o->out);
}

static void tree_finish(struct output *o)
{
	run_flush(o);
	outbuf_flush(o->out);
}

static const struct output_ops tree_ops = {
	.switch_stack = tree_switch,
	.begin_trace = tree_begin_trace,
	.entry = tree_entry,
	.inherit = tree_inherit,
	.leaf = tree_leaf,
	.close = tree_close,
	.lost = tree_lost,
	.note = tree_note,
	.end_trace = tree_end_trace,
	.finish = tree_finish,
};

void out_tree_init(struct output *o, const struct output_options *oo)
{
	(void)oo; /* reads none of them */
	o->ops = &tree_ops;
	o->leaves = true;
	o->call_sites = o->opts->srcline;
	o->state = &tree_state;
}
