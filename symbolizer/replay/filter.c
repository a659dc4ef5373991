/* filter.c -- which calls the outputs see.
 *
 * The filter sits between thread.c and the output, as an output itself, and
 * only exists when a filter option was given.  Each call gets one verdict
 * when it is entered, from these rules in this order (the first that
 * applies wins):
 *
 *   1. --tid: a thread (or process) not listed shows nothing.
 *   2. Inside a call hidden with its callees, everything is hidden.
 *   3. -N PATTERN, or a start at or after the end of --time-range:
 *      hidden with its callees.  So -N wins over -F and -H.
 *   4. -F PATTERN given, and neither this call nor a caller matches one:
 *      hidden alone; its callees get their own verdict (a -F function
 *      called from it shows).
 *   5. -H PATTERN, or a start before the start of --time-range: hidden
 *      alone, its callees taking its place and depth.
 *   6. -D DEPTH: a call DEPTH or more levels below the outermost shown
 *      call (depths count shown calls only) is hidden with its callees.
 *   7. -t TIME: a call shorter than TIME is hidden with its callees (they
 *      are shorter still).  A call that never returned is kept if it ran
 *      TIME or longer before it was found gone.
 *
 * Patterns are globs (fnmatch) matching the whole name as shown (C++
 * names demangled, see --demangle), or with --match=regex extended regular
 * expressions matching anywhere in it.  A function's verdict is computed
 * once and cached in its struct func.
 *
 * A call whose callees are all hidden becomes a leaf (`f();` in the tree).
 * So a shown entry is held back until its first shown callee or its
 * return; with -t, until it lasted TIME, since only then is it known to
 * show.  Held-back entries are the open calls of a thread not yet shown:
 * memory stays bounded by the depth of the stack, whatever the trace.
 */
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>

#include "replay/replay.h"

enum pattern_kind { PAT_ONLY, PAT_NOT, PAT_HIDE };

struct pattern {
	enum pattern_kind kind;
	const char *text;
	regex_t re;
	bool compiled;
};

struct filters {
	struct pattern *pats;
	size_t n_pats;
	bool regex;
	bool any_only; /* some -F */
	bool has_depth;
	size_t max_depth;
	bool has_min;
	uint64_t min_ns;
	bool has_range;
	int64_t range_start, range_end; /* ns since the start */
	uint64_t *ids; /* --tid */
	bool *id_found; /* ids[i] names a thread or process of some trace */
	size_t n_ids;

	struct output self;
	struct output *inner;
	void **states; /* every thread's, to free them */
	size_t n_states;
};

/* func->filter_verdict bits */
#define V_KNOWN 0x1
#define V_ONLY 0x2
#define V_NOT 0x4
#define V_HIDE 0x8

enum frame_state { SHOWN, HIDDEN_ALONE };

struct fframe {
	const struct pair *pair;
	uint64_t start;
	const struct values *args;
	size_t out_depth;   /* SHOWN: its depth; else its callees' */
	size_t child_depth; /* the depth of its shown callees */
	uint8_t state;
	bool in_only;  /* this call or a caller matched -F */
	bool emitted;  /* its entry went to the output */
	bool resumed;  /* reopened on its stack (thread.resumed) */
};

struct fthread {
	bool shown; /* --tid */
	size_t hidden; /* depth inside a call hidden with its callees */
	struct fframe *stack;
	size_t depth, cap;
	size_t first_pending; /* below it, every SHOWN frame was emitted */
};

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------ */

struct filters *filter_new(void)
{
	struct filters *f = must_calloc(1, sizeof *f);

	f->range_end = INT64_MAX;
	return f;
}

void filter_free(struct filters *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n_pats; i++)
		if (f->pats[i].compiled)
			regfree(&f->pats[i].re);
	for (size_t i = 0; i < f->n_states; i++) {
		struct fthread *ft = f->states[i];
		free(ft->stack);
		free(ft);
	}
	free(f->states);
	free(f->pats);
	free(f->ids);
	free(f->id_found);
	free(f);
}

/* "[START]~[END]", each a duration since the start of the trace. */
static int parse_range(struct filters *f, const char *s)
{
	const char *tilde = strchr(s, '~');
	char *first;
	uint64_t a = 0, b = 0;
	bool has_start = tilde && tilde > s;
	int r = 0;

	if (!tilde)
		return -1;
	first = must_strndup(s, (size_t)(tilde - s));
	if (has_start && ctrace__parse_duration(first, &a) < 0)
		r = -1;
	if (tilde[1] && ctrace__parse_duration(tilde + 1, &b) < 0)
		r = -1;
	free(first);
	if (r < 0 || a > INT64_MAX || b > INT64_MAX)
		return -1;
	f->range_start = has_start ? (int64_t)a : INT64_MIN;
	f->range_end = tilde[1] ? (int64_t)b : INT64_MAX;
	if (f->range_end <= f->range_start)
		return -1;
	f->has_range = true;
	return 0;
}

static int parse_ids(struct filters *f, const char *s)
{
	while (*s) {
		char *end;
		unsigned long long v;
		if (*s < '0' || *s > '9')
			return -1;
		v = strtoull(s, &end, 10);
		f->ids = must_realloc(f->ids, f->n_ids + 1, sizeof *f->ids);
		f->id_found = must_realloc(f->id_found, f->n_ids + 1,
					   sizeof *f->id_found);
		f->id_found[f->n_ids] = false;
		f->ids[f->n_ids++] = v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return f->n_ids ? 0 : -1;
}

const char *filter_option(struct filters *f, int code, const char *value)
{
	struct pattern *p;
	char *end;

	switch (code) {
	case 'F':
	case 'N':
	case 'H':
		f->pats = must_realloc(f->pats, f->n_pats + 1, sizeof *f->pats);
		p = &f->pats[f->n_pats++];
		memset(p, 0, sizeof *p);
		p->kind = code == 'F' ? PAT_ONLY : code == 'N' ? PAT_NOT
							       : PAT_HIDE;
		p->text = value;
		f->any_only |= code == 'F';
		return NULL;
	case 'D':
		if (*value < '0' || *value > '9')
			return "bad depth '%s' (a number)";
		f->max_depth = strtoul(value, &end, 10);
		if (*end)
			return "bad depth '%s' (a number)";
		f->has_depth = true;
		return NULL;
	case 't':
		if (ctrace__parse_duration(value, &f->min_ns) < 0)
			return "bad time '%s' (a number and ns, us, ms or s)";
		f->has_min = f->min_ns > 0;
		return NULL;
	case FILTER_OPT_MATCH:
		if (!strcmp(value, "glob"))
			f->regex = false;
		else if (!strcmp(value, "regex"))
			f->regex = true;
		else
			return "unknown matching '%s' (glob or regex)";
		return NULL;
	case FILTER_OPT_TID:
		if (parse_ids(f, value) < 0)
			return "bad thread ids '%s' (numbers separated by "
			       "commas)";
		return NULL;
	case FILTER_OPT_TIME_RANGE:
		if (parse_range(f, value) < 0)
			return "bad time range '%s' (START~END, each a time "
			       "like 10ms, either may be left out)";
		return NULL;
	}
	return "unknown filter option '%s'";
}

const char *filter_ready(struct filters *f, const char **what)
{
	if (!f->regex)
		return NULL;
	for (size_t i = 0; i < f->n_pats; i++) {
		struct pattern *p = &f->pats[i];
		if (regcomp(&p->re, p->text, REG_EXTENDED | REG_NOSUB) != 0) {
			*what = p->text;
			return "bad regular expression '%s'";
		}
		p->compiled = true;
	}
	return NULL;
}

/* ---------------------------------------------------------------------------
 * Verdicts
 * ------------------------------------------------------------------------ */

static unsigned verdict(const struct filters *f, const struct pair *pr)
{
	struct func *fn = pr->func;
	unsigned v = fn->filter_verdict;

	if (v)
		return v;
	v = V_KNOWN;
	for (size_t i = 0; i < f->n_pats; i++) {
		const struct pattern *p = &f->pats[i];
		const char *name = fn->name;
		bool hit = f->regex ? regexec(&p->re, name, 0, NULL, 0) == 0
				    : fnmatch(p->text, name, 0) == 0;
		if (hit)
			v |= p->kind == PAT_ONLY ? V_ONLY
			     : p->kind == PAT_NOT ? V_NOT
						  : V_HIDE;
	}
	fn->filter_verdict = (uint8_t)v;
	return v;
}

/* An id names a thread by kernel tid or by serial, whichever
 * --thread-ids shows, or a whole process by its pid. */
static bool id_names(uint64_t id, const struct trace *t,
		     const struct thread_info *ti)
{
	return id == ti->tid || id == ti->serial || id == t->pid;
}

static bool thread_listed(const struct filters *f, const struct thread *th)
{
	if (!f->n_ids)
		return true;
	for (size_t i = 0; i < f->n_ids; i++)
		if (id_names(f->ids[i], th->trace, th->info))
			return true;
	return false;
}

static struct fthread *fthread_of(struct filters *f, struct thread *th)
{
	struct fthread *ft = th->filter_state;

	if (ft)
		return ft;
	ft = must_calloc(1, sizeof *ft);
	ft->shown = thread_listed(f, th);
	f->states = must_realloc(f->states, f->n_states + 1, sizeof *f->states);
	f->states[f->n_states++] = ft;
	th->filter_state = ft;
	return ft;
}

enum decision { D_SHOW, D_HIDE_ALONE, D_HIDE_ALL };

/* Rules 3 to 6 for a call entered at `ticks` below `parent`. */
static enum decision decide(const struct filters *f, struct thread *th,
			    const struct fframe *parent, const struct pair *p,
			    uint64_t ticks, bool *in_only, size_t *depth)
{
	unsigned v = verdict(f, p);
	int64_t ns = f->has_range ? trace_ns(th->trace, ticks) : 0;

	if ((v & V_NOT) || ns >= f->range_end)
		return D_HIDE_ALL;
	*in_only = parent ? parent->in_only : !f->any_only;
	*in_only |= (v & V_ONLY) != 0;
	*depth = parent ? parent->child_depth : 0;
	if (!*in_only || (v & V_HIDE) || ns < f->range_start)
		return D_HIDE_ALONE;
	if (f->has_depth && *depth >= f->max_depth)
		return D_HIDE_ALL;
	return D_SHOW;
}

/* ---------------------------------------------------------------------------
 * The output
 * ------------------------------------------------------------------------ */

/* Shows the held-back entries: a callee of theirs is about to show. */
static void flush(struct filters *f, struct thread *th, struct fthread *ft)
{
	const struct values *args = th->args, *retval = th->retval;
	bool resumed = th->resumed;

	for (size_t i = ft->first_pending; i < ft->depth; i++) {
		struct fframe *fr = &ft->stack[i];
		if (fr->state != SHOWN || fr->emitted)
			continue;
		th->args = fr->args;
		th->retval = NULL;
		th->resumed = fr->resumed;
		output_entry(f->inner, th, fr->pair, fr->start,
				     fr->out_depth);
		fr->emitted = true;
	}
	ft->first_pending = ft->depth;
	th->args = args;
	th->retval = retval;
	th->resumed = resumed;
}

static void filter_begin_trace(struct output *o, struct trace *t)
{
	struct filters *f = o->state;

	for (size_t i = 0; i < f->n_ids; i++) {
		if (f->ids[i] == t->pid)
			f->id_found[i] = true;
		for (size_t k = 0; k < t->n_threads; k++)
			if (id_names(f->ids[i], t, &t->threads[k]))
				f->id_found[i] = true;
	}
	output_begin_trace(f->inner, t);
}

/* Takes a call's verdict and pushes its frame; NULL if it hides with its
 * callees or the thread is not shown. */
static struct fframe *enter(struct filters *f, struct thread *th,
			    const struct pair *p, uint64_t ticks)
{
	struct fthread *ft = fthread_of(f, th);
	struct fframe *parent, *fr;
	enum decision d;
	bool in_only = false;
	size_t out_depth = 0;

	if (!ft->shown)
		return NULL;
	if (ft->hidden) {
		ft->hidden++;
		return NULL;
	}
	parent = ft->depth ? &ft->stack[ft->depth - 1] : NULL;
	d = decide(f, th, parent, p, ticks, &in_only, &out_depth);
	if (d == D_HIDE_ALL) {
		ft->hidden = 1;
		return NULL;
	}
	if (ft->depth == ft->cap) {
		ft->cap = ft->cap ? 2 * ft->cap : 64;
		ft->stack = must_realloc(ft->stack, ft->cap, sizeof *ft->stack);
	}
	fr = &ft->stack[ft->depth++];
	*fr = (struct fframe){
		.pair = p,
		.start = ticks,
		.args = th->args,
		.out_depth = out_depth,
		.child_depth = out_depth + (d == D_SHOW),
		.state = d == D_SHOW ? SHOWN : HIDDEN_ALONE,
		.in_only = in_only,
		.resumed = th->resumed,
	};
	return fr;
}

static void filter_entry(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t ticks, size_t depth)
{
	struct filters *f = o->state;
	struct fframe *fr = enter(f, th, p, ticks);

	(void)depth;
	/* Outputs that take no leaves see every entry; without -t there is
	 * nothing to wait for. */
	if (fr && fr->state == SHOWN && !f->inner->leaves && !f->has_min)
		flush(f, th, fthread_of(f, th));
}

/* Shown in the parent process: nothing to hold back. */
static void filter_inherit(struct output *o, struct thread *th,
			   const struct pair *p, uint64_t start, size_t depth)
{
	struct filters *f = o->state;
	struct fframe *fr = enter(f, th, p, start);

	(void)depth;
	if (!fr || fr->state != SHOWN)
		return;
	fr->emitted = true;
	output_inherit(f->inner, th, p, start, fr->out_depth);
}

static void filter_leaf(struct output *o, struct thread *th,
			const struct pair *p, uint64_t start, uint64_t end,
			size_t depth)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);
	struct fframe *parent;
	bool in_only = false;
	size_t out_depth = 0;

	(void)depth;
	if (!ft->shown || ft->hidden)
		return;
	parent = ft->depth ? &ft->stack[ft->depth - 1] : NULL;
	if (decide(f, th, parent, p, start, &in_only, &out_depth) != D_SHOW)
		return;
	if (f->has_min && trace_duration(th->trace, start, end) < f->min_ns)
		return;
	flush(f, th, ft);
	output_leaf(f->inner, th, p, start, end, out_depth);
}

/* A call that was not entered in the trace: it shows when nothing would
 * hide it that can be known without its entry. */
static void close_before_trace(struct filters *f, struct thread *th,
			       struct fthread *ft, const struct pair *p,
			       uint64_t start, uint64_t end)
{
	unsigned v = verdict(f, p);

	if (ft->hidden || ft->depth || f->has_min || f->has_range ||
	    (v & (V_NOT | V_HIDE)) || (f->any_only && !(v & V_ONLY)) ||
	    (f->has_depth && f->max_depth == 0))
		return;
	output_close(f->inner, th, p, start, end, 0,
			     CLOSE_BEFORE_TRACE);
}

static void filter_close(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t start, uint64_t end,
			 size_t depth, enum close_kind kind)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);
	struct fframe fr;

	(void)depth;
	if (!ft->shown)
		return;
	if (kind == CLOSE_BEFORE_TRACE) {
		close_before_trace(f, th, ft, p, start, end);
		return;
	}
	if (ft->hidden) {
		ft->hidden--;
		return;
	}
	if (!ft->depth) /* cannot happen: thread.c closes what it opened */
		return;
	fr = ft->stack[--ft->depth];
	if (ft->first_pending > ft->depth)
		ft->first_pending = ft->depth;
	if (fr.state != SHOWN)
		return;
	if (!fr.emitted) {
		if (f->has_min && (end <= start || trace_duration(th->trace, start,
								  end) <
							   f->min_ns))
			return;
		flush(f, th, ft); /* its callers */
		/* a resumed call was entered before: not a leaf */
		if (kind == CLOSE_RETURNED && f->inner->leaves && !fr.resumed) {
			output_leaf(f->inner, th, p, start, end,
					    fr.out_depth);
			return;
		}
		const struct values *retval = th->retval;
		th->retval = NULL;
		th->resumed = fr.resumed;
		output_entry(f->inner, th, p, start, fr.out_depth);
		th->resumed = false; /* closes come from thread.c, never resumed */
		th->retval = retval;
	}
	output_close(f->inner, th, p, start, end, fr.out_depth, kind);
}

static void filter_lost(struct output *o, struct thread *th, uint64_t count,
			unsigned reason, size_t depth)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);

	(void)depth;
	if (!ft->shown || ft->hidden)
		return;
	flush(f, th, ft);
	output_lost(f->inner, th, count, reason,
			    ft->depth ? ft->stack[ft->depth - 1].child_depth
				      : 0);
}

static void filter_note(struct output *o, struct thread *th,
			const struct note *n, size_t depth)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);

	(void)depth;
	if (!ft->shown || ft->hidden || f->inner->ops->note == NULL)
		return;
	flush(f, th, ft);
	output_note(f->inner, th, n,
			    ft->depth ? ft->stack[ft->depth - 1].child_depth
				      : 0);
}

static void filter_end_trace(struct output *o, struct trace *t)
{
	struct filters *f = o->state;

	output_end_trace(f->inner, t);
}

static void filter_finish(struct output *o)
{
	struct filters *f = o->state;

	for (size_t i = 0; i < f->n_ids; i++)
		if (!f->id_found[i])
			warn_msg(0, "--tid: no thread or process %llu in the "
				 "trace", (unsigned long long)f->ids[i]);

	output_finish(f->inner);
}

static const struct output_ops filter_ops = {
	.note = filter_note,
	.begin_trace = filter_begin_trace,
	.entry = filter_entry,
	.inherit = filter_inherit,
	.leaf = filter_leaf,
	.close = filter_close,
	.lost = filter_lost,
	.end_trace = filter_end_trace,
	.finish = filter_finish,
};

struct output *filter_wrap(struct filters *f, struct output *inner)
{
	f->inner = inner;
	f->self = *inner;
	f->self.ops = &filter_ops;
	f->self.state = f;
	return &f->self;
}
