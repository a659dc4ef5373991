/* filter.c -- which calls the outputs see.
 *
 * The filter sits between thread.c and the output, as an output itself, and
 * only exists when a filter option was given.  Each call gets one verdict
 * when it is entered, from these rules in this order (the first that
 * applies wins):
 *
 *   1. --tid, --pid: a thread (or process) not listed shows nothing.
 *   1b. -C PATTERN given: a call that neither matches one nor runs inside
 *      one that does shows only if one is called below it (it is then a
 *      caller on the way to it), else it hides with its callees; inside
 *      a -C call the rules below apply as usual.
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
 *   8. --where EXPR (where.c): a call whose arguments and return value do
 *      not satisfy EXPR is hidden with its callees, unless one of them
 *      shows: the calls that match show with their callers, for context.
 *      Known at its return only, so it is held back as -t's are.
 *
 * Triggers (-T PATTERN@ACTION,...), uftrace's that make sense after the
 * run: `filter` is -F PATTERN; `trace_off` at a matching call's entry
 * hides (alone, as -H) the calls its thread enters from then on, and
 * `trace_on` shows them again (with some trace_on, every thread starts
 * off), calls already shown being closed as usual; `depth=N` shows a
 * matching call's callees down to N - 1 levels below it, hiding deeper
 * ones with theirs (rule 6's place, counted in calls, not shown calls);
 * `color=COLOR` gives the outputs the escape sequence of the colour
 * (thread.color) with the call.
 * Inside a call hidden with its callees no trigger fires.
 *
 * Patterns are globs (fnmatch) matching the whole name as shown (C++
 * names demangled, see --demangle), or with --match=regex extended regular
 * expressions matching anywhere in it.  A function's verdict is computed
 * once and cached in its struct func.
 *
 * -C's callers are held back like the others, until a -C call is entered
 * below them (or dropped when they return without one): unrelated
 * siblings are never shown, and memory stays bounded by the depth.
 *
 * A call whose callees are all hidden becomes a leaf (`f();` in the tree).
 * So a shown entry is held back until its first shown callee or its
 * return; with -t, until it lasted TIME, since only then is it known to
 * show.  Held-back entries are the open calls of a thread not yet shown:
 * memory stays bounded by the depth of the stack, whatever the trace.
 */
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>

#include "replay/replay.h"
#include "values/values.h"

enum pattern_kind { PAT_ONLY, PAT_NOT, PAT_HIDE, PAT_CALLER, PAT_TRIGGER };

struct pattern {
	enum pattern_kind kind;
	const char *text;
	char *owned; /* text, when it is a part of a -T value */
	regex_t re;
	bool compiled;
	/* PAT_TRIGGER: its V_ON, V_OFF, V_DEPTH, V_COLOR actions; depth=N,
	 * color=COLOR's escape sequence */
	unsigned actions;
	size_t depth;
	const char *color;
};

struct filters {
	struct pattern *pats;
	size_t n_pats;
	bool regex;
	bool any_only; /* some -F */
	bool any_caller; /* some -C */
	bool any_on;     /* some -T FUNC@trace_on: threads start off */
	bool has_depth;
	size_t max_depth;
	bool has_min;
	uint64_t min_ns;
	bool has_range;
	int64_t range_start, range_end; /* ns since the start */
	uint64_t *ids; /* --tid */
	bool *id_found; /* ids[i] names a thread or process of some trace */
	size_t n_ids;
	uint64_t *pids; /* --pid */
	bool *pid_found; /* pids[i] is the pid of some trace */
	size_t n_pids;
	struct where *where; /* --where, NULL if none */

	struct output self;
	struct output *inner;
	bool parks; /* told a switch in one call (filter_switch_ops) */
	/* -C, -t, --where: a call's verdict waits for a callee or its
	 * return, so a reopened stack's calls are held back too */
	bool holds;
	void **states; /* every thread's, to free them */
	size_t n_states;
};

/* func->filter_verdict bits */
#define V_KNOWN 0x1
#define V_ONLY 0x2
#define V_NOT 0x4
#define V_HIDE 0x8
#define V_CALLER 0x10
#define V_ON 0x20    /* -T FUNC@trace_on */
#define V_OFF 0x40   /* -T FUNC@trace_off */
#define V_DEPTH 0x80 /* -T FUNC@depth=N */
#define V_COLOR 0x100 /* -T FUNC@color=COLOR */

/* HIDDEN_ALL: a call hidden with its callees, or inside one (kept so
 * that a suspended stack's calls move with their verdicts, see "Stack
 * switches" below) */
enum frame_state { SHOWN, HIDDEN_ALONE, HIDDEN_ALL };

struct fframe {
	const struct pair *pair;
	uint64_t start;
	const struct values *args;
	size_t out_depth;   /* SHOWN: its depth; else its callees' */
	size_t child_depth; /* the depth of its shown callees */
	/* -T FUNC@depth=N: how many levels of callees may show below it;
	 * SIZE_MAX: no limit */
	size_t limit;
	/* the SHOWN call below it in its segment, + 1; the same of those
	 * --where keeps (wkeep) */
	uint32_t prev_shown, prev_kept;
	uint8_t state;
	bool wkeep; /* --where keeps it reopened (where_keeps()) */
	bool in_only;  /* this call or a caller matched -F */
	bool in_caller; /* this call or a caller matched -C (or no -C) */
	bool emitted;  /* its entry went to the output */
	bool resumed;  /* reopened on its stack (thread.resumed) */
	bool off_after; /* the thread's -T trace_off state after its entry */
	/* its verdict's part of --time-range: 1 before the start, 2 in the
	 * range, 4 at or after the end; 0 none taken (inside a call hidden
	 * with its callees) */
	uint8_t range;
};

/* What a segment's outermost call's verdict was taken under: its
 * caller's verdict, or the thread's shift when it has none. */
struct fkey {
	bool caller, hidden, in_only, in_caller, off;
	size_t limit, child_depth;
};

/* A part of a thread's open calls, each its own array (as thread.c's
 * runs), so that a stack the thread leaves moves by pointer. */
struct fseg {
	struct fframe *frames;
	size_t n, cap;
	/* frames [n, kept) were closed by the suspension being told: park()
	 * keeps them with the others */
	size_t kept;
	size_t first;  /* the thread's index of frames[0] */
	size_t tdepth; /* thread.c's depth of frames[0] */
	/* frames [0, reopened) were reopened as a whole: each SHOWN one was
	 * given to the output (emitted), and is resumed */
	size_t reopened;
	size_t n_shown, first_shown, top_shown; /* indices + 1, 0: none */
	size_t top_kept; /* the innermost SHOWN with wkeep + 1, 0: none */
	size_t first_hidden; /* the first HIDDEN_ALL frame + 1; 0 if none */
	unsigned range; /* its frames' range bits, or'ed (of some popped) */
	struct fkey key;
	/* filters.holds: frames [0, reopened) reopened at reopen_ticks are
	 * held back as the calls entered then would be, until released
	 * (given to the output: all their shown ones, or rel_shown of them
	 * up to rel_top); pre_shown and pre_top count their shown ones as
	 * n_shown and top_shown do; inner is what the output kept of the
	 * first inner_n shown ones when it was last told them (park()),
	 * NULL if nothing */
	bool released;
	uint64_t reopen_ticks;
	size_t pre_shown, pre_top, pre_kept, rel_shown, rel_top;
	void *inner;
	size_t inner_n;
};

/* A suspended stack's frames (park()), and what the output kept of its
 * shown calls. */
struct fparked {
	struct fseg *segs;
	size_t n_segs;
	void *inner;
	size_t inner_n; /* filters.holds: the shown calls inner holds */
};

struct fthread {
	bool shown; /* --tid */
	/* the open calls in segments: the filter parks stacks and the
	 * thread switched once (ft_segment()); else in stack */
	bool seg;
	size_t hidden; /* depth inside a call hidden with its callees */
	struct fseg *segs;
	size_t n_segs, cap_segs;
	/* until the thread first switches stacks (or always, told a
	 * switch call by call: filter.parks false), the open calls in one
	 * array, without segments (ft_push_flat()) */
	struct fframe *stack;
	size_t cap;
	size_t depth; /* the open calls with a frame (stack's or segments') */
	size_t first_pending; /* below it, every SHOWN frame was emitted */
	bool off; /* between -T trace_off and trace_on: calls hidden alone */
	/* The switch being told: the closes kept for park(), and the
	 * shown calls the stacks left hold, for the output's
	 * switch_stack(); the time of a stack being reopened. */
	size_t closed_kept;
	const struct pair *left_p;
	size_t left_depth, left_n;
	uint64_t reopen_ticks;
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
	for (size_t i = 0; i < f->n_pats; i++) {
		if (f->pats[i].compiled)
			regfree(&f->pats[i].re);
		free(f->pats[i].owned);
	}
	for (size_t i = 0; i < f->n_states; i++) {
		struct fthread *ft = f->states[i];
		for (size_t k = 0; k < ft->n_segs; k++)
			free(ft->segs[k].frames);
		free(ft->segs);
		free(ft->stack);
		free(ft);
	}
	free(f->states);
	free(f->pats);
	free(f->ids);
	free(f->id_found);
	free(f->pids);
	free(f->pid_found);
	where_free(f->where);
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

/* Numbers separated by commas, added to ids[n] (and found[n], false). */
static int parse_ids(const char *s, uint64_t **ids, bool **found, size_t *n)
{
	while (*s) {
		char *end;
		unsigned long long v;
		if (*s < '0' || *s > '9')
			return -1;
		v = strtoull(s, &end, 10);
		*ids = must_realloc(*ids, *n + 1, sizeof **ids);
		*found = must_realloc(*found, *n + 1, sizeof **found);
		(*found)[*n] = false;
		(*ids)[(*n)++] = v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return *n ? 0 : -1;
}

static struct pattern *add_pattern(struct filters *f, enum pattern_kind kind,
				   const char *text)
{
	struct pattern *p;

	f->pats = must_realloc(f->pats, f->n_pats + 1, sizeof *f->pats);
	p = &f->pats[f->n_pats++];
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->text = text;
	return p;
}

/* color=NAME's escape sequences: uftrace's names and colours. */
static const char *color_escape(const char *name)
{
	static const char *const colors[][2] = {
		{"red", "\033[91m"},    {"green", "\033[32m"},
		{"yellow", "\033[33m"}, {"blue", "\033[94m"},
		{"magenta", "\033[35m"}, {"cyan", "\033[36m"},
		{"gray", "\033[90m"},   {"bold", "\033[1m"},
	};

	for (size_t i = 0; i < sizeof colors / sizeof *colors; i++)
		if (!strcmp(name, colors[i][0]))
			return colors[i][1];
	return NULL;
}

/* -T PATTERN@ACTION[,ACTION...]: filter (as -F), trace_on, trace_off,
 * depth=N (N >= 1), color=COLOR. */
static int parse_trigger(struct filters *f, const char *s)
{
	const char *at = strrchr(s, '@');
	char *name, *actions, *save = NULL;
	struct pattern trig;
	int r = 0;

	if (!at || at == s || !at[1])
		return -1;
	memset(&trig, 0, sizeof trig);
	trig.kind = PAT_TRIGGER;
	name = must_strndup(s, (size_t)(at - s));
	actions = must_strndup(at + 1, strlen(at + 1));
	for (char *a = strtok_r(actions, ",", &save); a && !r;
	     a = strtok_r(NULL, ",", &save)) {
		char *end;
		if (!strcmp(a, "filter")) {
			struct pattern *only = add_pattern(f, PAT_ONLY, NULL);
			only->owned = must_strndup(name, strlen(name));
			only->text = only->owned;
			f->any_only = true;
		} else if (!strcmp(a, "trace_on")) {
			trig.actions |= V_ON;
			f->any_on = true;
		} else if (!strcmp(a, "trace_off")) {
			trig.actions |= V_OFF;
		} else if (!strncmp(a, "depth=", 6) && a[6] >= '1' &&
			   a[6] <= '9') {
			errno = 0;
			trig.depth = strtoul(a + 6, &end, 10);
			if (*end || errno)
				r = -1;
			trig.actions |= V_DEPTH;
		} else if (!strncmp(a, "color=", 6) && color_escape(a + 6)) {
			trig.color = color_escape(a + 6);
			trig.actions |= V_COLOR;
		} else {
			r = -1;
		}
	}
	free(actions);
	if (r < 0 || !trig.actions) {
		free(name);
		return r;
	}
	trig.owned = name;
	trig.text = name;
	*add_pattern(f, PAT_TRIGGER, NULL) = trig;
	return 0;
}

const char *filter_option(struct filters *f, int code, const char *value)
{
	struct pattern *p;
	char *end;

	switch (code) {
	case 'F':
	case 'N':
	case 'H':
	case 'C':
		f->pats = must_realloc(f->pats, f->n_pats + 1, sizeof *f->pats);
		p = &f->pats[f->n_pats++];
		memset(p, 0, sizeof *p);
		p->kind = code == 'F'	? PAT_ONLY
			  : code == 'N' ? PAT_NOT
			  : code == 'H' ? PAT_HIDE
					: PAT_CALLER;
		p->text = value;
		f->any_only |= code == 'F';
		f->any_caller |= code == 'C';
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
	case 'T':
		if (parse_trigger(f, value) < 0)
			return "bad trigger '%s' (FUNC@ACTION[,ACTION...], each "
			       "filter, trace_on, trace_off, depth=N or color=red, "
			       "green, yellow, blue, magenta, cyan, gray or bold)";
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
		if (parse_ids(value, &f->ids, &f->id_found, &f->n_ids) < 0)
			return "bad thread ids '%s' (numbers separated by "
			       "commas)";
		return NULL;
	case FILTER_OPT_PID:
		if (parse_ids(value, &f->pids, &f->pid_found, &f->n_pids) < 0)
			return "bad process ids '%s' (numbers separated by "
			       "commas)";
		return NULL;
	case FILTER_OPT_WHERE: {
		static char msg[160];
		const char *what;
		size_t column;
		struct where *w = where_parse(value, &what, &column);
		if (!w) {
			snprintf(msg, sizeof msg, "bad --where expression '%%s': "
				 "at column %zu, expected %s", column, what);
			return msg;
		}
		if (f->where) /* several: all of them hold */
			w = where_and(f->where, w);
		f->where = w;
		return NULL;
	}
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
			v |= p->kind == PAT_ONLY     ? V_ONLY
			     : p->kind == PAT_NOT     ? V_NOT
			     : p->kind == PAT_HIDE    ? V_HIDE
			     : p->kind == PAT_CALLER  ? V_CALLER
						      : p->actions;
	}
	fn->filter_verdict = (uint16_t)v;
	return v;
}

/* The smallest N of the -T FUNC@depth=N that match p's function (V_DEPTH
 * says one does: few functions, so this is matched again). */
static size_t trigger_depth(const struct filters *f, const struct pair *pr)
{
	size_t depth = SIZE_MAX;

	for (size_t i = 0; i < f->n_pats; i++) {
		const struct pattern *p = &f->pats[i];
		const char *name = pr->func->name;
		if (p->kind != PAT_TRIGGER || !(p->actions & V_DEPTH) ||
		    p->depth >= depth)
			continue;
		if (f->regex ? regexec(&p->re, name, 0, NULL, 0) == 0
			     : fnmatch(p->text, name, 0) == 0)
			depth = p->depth;
	}
	return depth;
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
	bool pid_listed = !f->n_pids;

	for (size_t i = 0; i < f->n_pids && !pid_listed; i++)
		pid_listed = f->pids[i] == th->trace->pid;
	if (!pid_listed)
		return false;
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
	ft->off = f->any_on; /* -T trace_on: off until one is entered */
	f->states = must_realloc(f->states, f->n_states + 1, sizeof *f->states);
	f->states[f->n_states++] = ft;
	th->filter_state = ft;
	return ft;
}

/* ---------------------------------------------------------------------------
 * The open calls: segments of frames
 * ------------------------------------------------------------------------ */

/* The key of a call entered below parent (NULL: none) with the thread's
 * -T trace_off state off. */
static struct fkey key_of(const struct thread *th, const struct fframe *parent,
			  bool off)
{
	if (!parent)
		return (struct fkey){.off = off, .child_depth = th->shift};
	return (struct fkey){
		.caller = true,
		.hidden = parent->state == HIDDEN_ALL,
		.in_only = parent->in_only,
		.in_caller = parent->in_caller,
		.off = off,
		.limit = parent->limit,
		.child_depth = parent->child_depth,
	};
}

static bool key_equal(const struct fkey *a, const struct fkey *b)
{
	return a->caller == b->caller && a->hidden == b->hidden &&
	       a->in_only == b->in_only && a->in_caller == b->in_caller &&
	       a->off == b->off &&
	       a->limit == b->limit &&
	       a->child_depth == b->child_depth;
}

/* The innermost open call, NULL if none. */
static struct fframe *ft_top(struct fthread *ft)
{
	for (size_t k = ft->n_segs; k-- > 0;)
		if (ft->segs[k].n)
			return &ft->segs[k].frames[ft->segs[k].n - 1];
	return NULL;
}

/* A new innermost frame of s, to fill and then count (seg_count()). */
static struct fframe *seg_slot(struct fseg *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->frames = must_realloc(s->frames, s->cap, sizeof *s->frames);
	}
	return &s->frames[s->n++];
}

/* Keeps s's counts of its innermost frame fr, filled. */
static void seg_count(struct fseg *s, struct fframe *fr)
{
	size_t i = s->n - 1;

	fr->prev_shown = (uint32_t)s->top_shown;
	fr->prev_kept = (uint32_t)s->top_kept;
	if (fr->state == SHOWN) {
		if (fr->wkeep)
			s->top_kept = i + 1;
		s->top_shown = i + 1;
		if (!s->n_shown++)
			s->first_shown = i + 1;
	}
	if (fr->state == HIDDEN_ALL && !s->first_hidden)
		s->first_hidden = i + 1;
	s->range |= fr->range;
}

/* Appends a copy of v to s, keeping s's counts. */
static struct fframe *seg_append(struct fseg *s, const struct fframe *v)
{
	struct fframe *fr = seg_slot(s);

	*fr = *v;
	seg_count(s, fr);
	return fr;
}

/* Takes s's innermost frame off, keeping s's counts. */
static void seg_drop_top(struct fseg *s)
{
	size_t i = --s->n;
	const struct fframe *fr = &s->frames[i];

	if (fr->state == SHOWN) {
		s->top_shown = fr->prev_shown;
		if (!--s->n_shown)
			s->first_shown = 0;
	}
	if (s->top_kept == i + 1)
		s->top_kept = fr->prev_kept;
	if (s->first_hidden == i + 1)
		s->first_hidden = 0;
	if (s->reopened > i) {
		s->reopened = i;
		if (fr->state == SHOWN) {
			s->pre_top = fr->prev_shown;
			s->pre_shown--;
		}
		if (s->pre_kept == i + 1)
			s->pre_kept = fr->prev_kept;
	}
}

static void seg_truncate(struct fseg *s, size_t n)
{
	while (s->n > n) {
		seg_drop_top(s);
		replay_work++;
	}
}

static struct fseg *seg_insert(struct fthread *ft, size_t k)
{
	if (ft->n_segs == ft->cap_segs) {
		ft->cap_segs = ft->cap_segs ? 2 * ft->cap_segs : 8;
		ft->segs = must_realloc(ft->segs, ft->cap_segs,
					sizeof *ft->segs);
	}
	memmove(ft->segs + k + 1, ft->segs + k,
		(ft->n_segs - k) * sizeof *ft->segs);
	ft->n_segs++;
	memset(&ft->segs[k], 0, sizeof ft->segs[k]);
	return &ft->segs[k];
}

/* Empty segments at the top go. */
static void ft_trim(struct fthread *ft)
{
	while (ft->n_segs && !ft->segs[ft->n_segs - 1].n &&
	       !ft->segs[ft->n_segs - 1].kept)
		free(ft->segs[--ft->n_segs].frames);
}

/* The closes kept for a park() that did not come (thread.c unwound
 * instead): they were ends. */
static void ft_discard_kept(struct fthread *ft)
{
	if (!ft->closed_kept)
		return;
	for (size_t k = 0; k < ft->n_segs; k++) {
		struct fseg *s = &ft->segs[k];
		if (!s->kept)
			continue;
		size_t n = s->n;
		s->n = s->kept;
		s->kept = 0;
		seg_truncate(s, n);
	}
	ft->closed_kept = 0;
	ft_trim(ft);
}

/* A new innermost frame, of a call at thread.c's depth tdepth whose
 * verdict is taken with the -T trace_off state off: filled in place,
 * then given to ft_pushed(). */
static struct fframe *ft_push(struct fthread *ft, const struct thread *th,
			      size_t tdepth, bool off)
{
	struct fseg *s;

	if (ft->closed_kept)
		ft_discard_kept(ft);
	if (!ft->n_segs) {
		s = seg_insert(ft, 0);
		s->tdepth = tdepth;
		s->key = key_of(th, NULL, off);
	}
	ft->depth++;
	return seg_slot(&ft->segs[ft->n_segs - 1]);
}

static void ft_pushed(struct fthread *ft, struct fframe *fr)
{
	fr->off_after = ft->off;
	seg_count(&ft->segs[ft->n_segs - 1], fr);
}

/* What the output kept of s's reopened calls goes. */
static void seg_drop_inner(const struct filters *f, struct thread *th,
			   struct fseg *s)
{
	if (s->inner && f->inner->ops->drop_parked)
		f->inner->ops->drop_parked(f->inner, th, s->inner);
	s->inner = NULL;
}

/* Pops the innermost frame into *out.  keep: a close that suspends the
 * call, told as part of a switch: the frame stays for park(). */
static struct fframe *ft_pop(const struct filters *f, struct thread *th,
			     struct fthread *ft, bool keep,
			     struct fframe *out)
{
	size_t k = ft->n_segs, i;
	struct fseg *s;

	while (k > 1 && !ft->segs[k - 1].n)
		k--;
	s = &ft->segs[k - 1];
	i = s->n - 1;
	*out = s->frames[i];
	if (i < s->reopened) {
		/* as the entry that reopened it (thread.resumed) */
		out->emitted = out->state == SHOWN && s->released;
		out->resumed = true;
		if (f->holds) {
			out->args = NULL;
			out->start = s->reopen_ticks;
		}
	}
	ft->depth--;
	if (keep) {
		if (!s->kept)
			s->kept = s->n;
		s->n--;
		ft->closed_kept++;
		return &s->frames[i];
	}
	seg_drop_top(s);
	if (!s->reopened)
		seg_drop_inner(f, th, s);
	if (!s->n)
		ft_trim(ft);
	return NULL;
}

/* Until a thread switches stacks (ft_segment()), or told a switch call
 * by call (filter_ops), the filter parks no stack: the open calls are one
 * array without the segments' counts, and a call inside one hidden with
 * its callees takes no frame (ft->hidden counts it), so that a thread
 * without coroutines costs per call what it did before segments. */
static struct fframe *ft_push_flat(struct fthread *ft)
{
	if (ft->depth == ft->cap) {
		ft->cap = ft->cap ? 2 * ft->cap : 64;
		ft->stack = must_realloc(ft->stack, ft->cap, sizeof *ft->stack);
	}
	return &ft->stack[ft->depth++];
}

/* The innermost frame, taken off: valid until the next push. */
static const struct fframe *ft_pop_flat(struct fthread *ft)
{
	return &ft->stack[--ft->depth];
}

/* The innermost open call, NULL if none. */
static inline struct fframe *top_of(const struct filters *f,
				    struct fthread *ft)
{
	(void)f;
	if (ft->seg)
		return ft_top(ft);
	return ft->depth ? &ft->stack[ft->depth - 1] : NULL;
}

/* The part of --time-range a call entered at ticks is in (fframe.range),
 * all that decide() reads of its time. */
static uint8_t range_part(const struct filters *f, const struct thread *th,
			  uint64_t ticks)
{
	int64_t ns;

	if (!f->has_range)
		return 2;
	ns = trace_ns(th->trace, ticks);
	return ns < f->range_start ? 1 : ns >= f->range_end ? 4 : 2;
}

/* Whether --where keeps a reopened call: its values are not known. */
static bool where_keeps(const struct filters *f, const struct fframe *fr)
{
	return !f->where ||
	       where_match(f->where, fr->pair->func->name, NULL, NULL);
}

/* The thread's open calls moved from stack (one array, what costs least
 * a call) to segments, which a switch moves by pointer, when it first
 * switches: top is thread.c's depth of the innermost.  The calls hidden
 * with their callees, counted only, take frames, from thread.c's. */
static void ft_segment(const struct filters *f, struct thread *th,
		       struct fthread *ft, size_t top)
{
	size_t n = ft->depth, all = ft->depth + ft->hidden;
	struct fseg *s;

	ft->seg = true;
	if (!all)
		goto out;
	s = seg_insert(ft, 0);
	s->tdepth = top + 1 - all;
	/* -T trace_off's state before the outermost's entry, as after it
	 * unless its function has trace_on or trace_off, whose verdicts
	 * do not depend on it (a wrong one only costs reenter()) */
	s->key = key_of(th, NULL, n ? ft->stack[0].off_after : ft->off);
	for (size_t i = 0; i < n; i++) {
		struct fframe *fr = &ft->stack[i];
		fr->range = range_part(f, th, fr->start);
		fr->wkeep = where_keeps(f, fr);
		seg_append(s, fr);
		replay_work++;
	}
	for (size_t i = n; i < all; i++) {
		const struct frame *tf =
			thread_frame(th, s->tdepth + i - th->shift);
		struct fframe hid = {.pair = tf->pair, .state = HIDDEN_ALL};
		if (i == n)
			hid.range = range_part(f, th, tf->start);
		hid.off_after = ft->off; /* no verdict taken since */
		seg_append(s, &hid);
		replay_work++;
	}
	ft->depth = all;
out:
	free(ft->stack);
	ft->stack = NULL;
	ft->cap = 0;
}

enum decision { D_SHOW, D_HIDE_ALONE, D_HIDE_ALL };

/* Rules 3 to 6 for a call entered at `ticks` below `parent`; *in_caller
 * false: it shows only if a -C call is entered below it (rule 1b). */
static enum decision decide(const struct filters *f, struct thread *th,
			    struct fthread *ft, const struct fframe *parent,
			    const struct pair *p, uint64_t ticks, bool *in_only,
			    bool *in_caller, size_t *limit, size_t *depth)
{
	unsigned v = verdict(f, p);
	int64_t ns = f->has_range ? trace_ns(th->trace, ticks) : 0;
	size_t up = parent ? parent->limit : SIZE_MAX;

	*in_caller = (parent ? parent->in_caller : !f->any_caller) ||
		     (v & V_CALLER) != 0;
	/* -T: trace_on and trace_off take effect at the entry, depth=N for
	 * the callees */
	if (v & V_ON)
		ft->off = false;
	if (v & V_OFF)
		ft->off = true;
	if (up == 0)
		return D_HIDE_ALL;
	*limit = up == SIZE_MAX ? SIZE_MAX : up - 1;
	if (v & V_DEPTH) {
		size_t n = trigger_depth(f, p);
		if (n != SIZE_MAX && n - 1 < *limit)
			*limit = n - 1;
	}
	if ((v & V_NOT) || ns >= f->range_end)
		return D_HIDE_ALL;
	*in_only = parent ? parent->in_only : !f->any_only;
	*in_only |= (v & V_ONLY) != 0;
	*depth = parent ? parent->child_depth : th->shift;
	if (!*in_only || (v & V_HIDE) || ns < f->range_start || ft->off)
		return D_HIDE_ALONE;
	if (f->has_depth && *depth >= f->max_depth)
		return D_HIDE_ALL;
	return D_SHOW;
}

/* Sets th->color for a call of p's function that goes to the output: the
 * colour of the first -T color=COLOR that matches it, or NULL. */
static void paint(const struct filters *f, struct thread *th,
		  const struct pair *pr)
{
	th->color = NULL;
	if (!(verdict(f, pr) & V_COLOR))
		return;
	for (size_t i = 0; i < f->n_pats; i++) {
		const struct pattern *p = &f->pats[i];
		const char *name = pr->func->name;
		if (p->kind != PAT_TRIGGER || !(p->actions & V_COLOR))
			continue;
		if (f->regex ? regexec(&p->re, name, 0, NULL, 0) == 0
			     : fnmatch(p->text, name, 0) == 0) {
			th->color = p->color;
			return;
		}
	}
}

/* ---------------------------------------------------------------------------
 * The output
 * ------------------------------------------------------------------------ */

/* Gives the output a held-back entry. */
static void show_entry(struct filters *f, struct thread *th,
		       const struct fframe *fr)
{
	th->args = fr->args;
	th->retval = NULL;
	th->resumed = fr->resumed;
	paint(f, th, fr->pair);
	output_entry(f->inner, th, fr->pair, fr->start, fr->out_depth);
}

/* Reopened calls given to the output as one switch (switch_stack()):
 * how many, the innermost and their start. */
struct frun {
	const struct fframe *fr;
	uint64_t start;
	size_t n;
};

static void run_tell(struct filters *f, struct thread *th, struct frun *run)
{
	if (run->n)
		f->inner->ops->switch_stack(f->inner, th, run->fr->pair,
					    run->fr->out_depth, run->n, true,
					    run->start);
	run->n = 0;
}

/* Gives the output shown call fr, reopened at start, as the entry that
 * reopened it. */
static void show_reopened(struct filters *f, struct thread *th,
			  const struct fframe *fr, uint64_t start,
			  struct frun *run)
{
	struct fframe c = *fr;

	if (f->inner->ops->switch_stack) {
		run->fr = fr;
		run->start = start;
		run->n++;
		return;
	}
	c.args = NULL;
	c.start = start;
	c.resumed = true;
	show_entry(f, th, &c);
}

/* filters.holds: gives the output the first `count` shown calls of s's
 * reopened ones, frames[top - 1] the innermost: what it kept of them
 * back (unpark()), or as the entries that reopened them. */
static void release(struct filters *f, struct thread *th, struct fseg *s,
		    size_t count, size_t top, bool all, struct frun *run)
{
	size_t up = 0;

	if (count && f->inner->ops->switch_stack) {
		/* one switch, as the entries would be */
		run->fr = &s->frames[top - 1];
		run->start = s->reopen_ticks;
		run->n += count;
		up = count;
	} else if (count && s->inner && f->inner->ops->unpark) {
		up = count < s->inner_n ? count : s->inner_n;
		f->inner->ops->unpark(f->inner, th,
				      s->frames[s->first_shown - 1].out_depth,
				      up, s->inner);
		s->inner = NULL;
	}
	seg_drop_inner(f, th, s);
	if (up < count) {
		size_t i = top;
		for (size_t m = count - up; m > 1; m--) {
			i = s->frames[i - 1].prev_shown;
			replay_work++;
		}
		for (i--; i < top; i++) {
			if (s->frames[i].state == SHOWN)
				show_reopened(f, th, &s->frames[i],
					      s->reopen_ticks, run);
			replay_work++;
		}
	}
	s->released = true;
	s->rel_shown = all ? SIZE_MAX : count;
	s->rel_top = all ? SIZE_MAX : top;
}

/* Shows the held-back entries of the calls below the thread's index lim:
 * a callee of theirs is about to show.  An output told switches in one
 * call is told the calls reopened (those that took their verdicts
 * again, see reenter(), or held back, filters.holds) so, as a switch. */
static void flush_upto(struct filters *f, struct thread *th,
		       struct fthread *ft, size_t lim)
{
	const struct values *args = th->args, *retval = th->retval;
	bool resumed = th->resumed;
	bool as_switch = f->parks && f->inner->ops->switch_stack;
	struct frun run = {0};
	size_t k = ft->n_segs;

	/* from the segment of the first held back, each reopened part
	 * shown already */
	while (k > 0 && (!ft->segs[k - 1].n ||
			 ft->segs[k - 1].first + ft->segs[k - 1].n >
				 ft->first_pending))
		k--;
	for (; k < ft->n_segs && ft->segs[k].first < lim; k++) {
		struct fseg *s = &ft->segs[k];
		size_t i = ft->first_pending > s->first
				   ? ft->first_pending - s->first
				   : 0;
		if (s->reopened && !s->released) {
			size_t end = lim - s->first, top = s->pre_top;
			size_t count = s->pre_shown;
			while (top > end) {
				top = s->frames[top - 1].prev_shown;
				count--;
				replay_work++;
			}
			release(f, th, s, count, top, end >= s->reopened,
				&run);
		}
		for (i = i > s->reopened ? i : s->reopened;
		     i < s->n && s->first + i < lim; i++) {
			struct fframe *fr = &s->frames[i];
			if (fr->state != SHOWN || fr->emitted)
				continue;
			fr->emitted = true;
			replay_work++;
			if (as_switch && fr->resumed) {
				run.fr = fr;
				run.start = fr->start;
				run.n++;
				continue;
			}
			run_tell(f, th, &run);
			show_entry(f, th, fr);
		}
	}
	run_tell(f, th, &run);
	if (ft->first_pending < lim)
		ft->first_pending = lim < ft->depth ? lim : ft->depth;
	th->args = args;
	th->retval = retval;
	th->resumed = resumed;
}

static void flush(struct filters *f, struct thread *th, struct fthread *ft)
{
	const struct values *args, *retval;
	bool resumed;

	if (ft->seg) {
		flush_upto(f, th, ft, SIZE_MAX);
		return;
	}
	/* one array (ft_push_flat()), no segments */
	args = th->args;
	retval = th->retval;
	resumed = th->resumed;
	for (size_t i = ft->first_pending; i < ft->depth; i++) {
		struct fframe *fr = &ft->stack[i];
		if (fr->state != SHOWN || fr->emitted)
			continue;
		fr->emitted = true;
		replay_work++;
		show_entry(f, th, fr);
	}
	ft->first_pending = ft->depth;
	th->args = args;
	th->retval = retval;
	th->resumed = resumed;
}

static void filter_begin_trace(struct output *o, struct trace *t)
{
	struct filters *f = o->state;

	for (size_t i = 0; i < f->n_pids; i++)
		if (f->pids[i] == t->pid)
			f->pid_found[i] = true;
	for (size_t i = 0; i < f->n_ids; i++) {
		if (f->ids[i] == t->pid)
			f->id_found[i] = true;
		for (size_t k = 0; k < t->n_threads; k++)
			if (id_names(f->ids[i], t, &t->threads[k]))
				f->id_found[i] = true;
	}
	output_begin_trace(f->inner, t);
}

/* Fills a call's frame, from its verdict (in place: fewer instructions
 * than a copy). */
static inline void frame_set(struct fframe *fr, const struct thread *th,
			     const struct pair *p, uint64_t ticks,
			     enum decision d, bool in_only, bool in_caller,
			     size_t limit, size_t out_depth, bool off_after)
{
	*fr = (struct fframe){
		.pair = p,
		.start = ticks,
		.args = th->args,
		.out_depth = out_depth,
		.child_depth = out_depth + (d == D_SHOW),
		.state = d == D_SHOW ? SHOWN : HIDDEN_ALONE,
		.in_only = in_only,
		.in_caller = in_caller,
		.limit = limit,
		.resumed = th->resumed,
		.off_after = off_after,
	};
}

/* enter() for a filter that parks stacks: the frames in segments, with
 * those of the calls hidden with their callees. */
static struct fframe *enter_parked(struct filters *f, struct thread *th,
				   struct fthread *ft, const struct pair *p,
				   uint64_t ticks, size_t tdepth)
{
	struct fframe *parent, *fr;
	enum decision d;
	bool in_only = false, in_caller = true, off = ft->off;
	size_t out_depth = 0, limit = SIZE_MAX;

	if (ft->hidden) {
		ft->hidden++;
		fr = ft_push(ft, th, tdepth, off);
		*fr = (struct fframe){.pair = p, .state = HIDDEN_ALL};
		ft_pushed(ft, fr);
		return NULL;
	}
	parent = ft_top(ft);
	d = decide(f, th, ft, parent, p, ticks, &in_only, &in_caller, &limit,
		   &out_depth);
	fr = ft_push(ft, th, tdepth, off);
	if (d == D_HIDE_ALL) {
		ft->hidden = 1;
		*fr = (struct fframe){.pair = p, .state = HIDDEN_ALL};
	} else {
		frame_set(fr, th, p, ticks, d, in_only, in_caller, limit,
			  out_depth, false); /* off_after: ft_pushed() */
		fr->wkeep = where_keeps(f, fr);
	}
	fr->range = range_part(f, th, ticks);
	ft_pushed(ft, fr);
	return d == D_HIDE_ALL ? NULL : fr;
}

/* Takes a call's verdict and pushes its frame; NULL if it hides with its
 * callees or the thread is not shown.  tdepth: thread.c's depth. */
static struct fframe *enter(struct filters *f, struct thread *th,
			    const struct pair *p, uint64_t ticks,
			    size_t tdepth)
{
	struct fthread *ft = fthread_of(f, th);
	struct fframe *parent, *fr;
	enum decision d;
	bool in_only = false, in_caller = true;
	size_t out_depth = 0, limit = SIZE_MAX;

	if (!ft->shown)
		return NULL;
	if (ft->seg)
		return enter_parked(f, th, ft, p, ticks, tdepth);
	if (ft->hidden) {
		ft->hidden++;
		return NULL;
	}
	parent = ft->depth ? &ft->stack[ft->depth - 1] : NULL;
	d = decide(f, th, ft, parent, p, ticks, &in_only, &in_caller, &limit,
		   &out_depth);
	if (d == D_HIDE_ALL) {
		ft->hidden = 1;
		return NULL;
	}
	fr = ft_push_flat(ft);
	frame_set(fr, th, p, ticks, d, in_only, in_caller, limit, out_depth,
		  ft->off);
	return fr;
}

static void filter_entry(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t ticks, size_t depth)
{
	struct filters *f = o->state;
	struct fframe *fr = enter(f, th, p, ticks, depth);

/* Outputs that take no leaves see every entry; without -t there is
	 * nothing to wait for. */
	if (fr && fr->state == SHOWN && fr->in_caller && !f->inner->leaves &&
	    !f->has_min && !f->where)
		flush(f, th, fthread_of(f, th));
}

/* Shown in the parent process: nothing to hold back. */
static void filter_inherit(struct output *o, struct thread *th,
			   const struct pair *p, uint64_t start, size_t depth)
{
	struct filters *f = o->state;
	struct fframe *fr = enter(f, th, p, start, depth);

	if (!fr || fr->state != SHOWN || !fr->in_caller)
		return;
	fr->emitted = true;
	paint(f, th, p);
	output_inherit(f->inner, th, p, start, fr->out_depth);
}

static void filter_leaf(struct output *o, struct thread *th,
			const struct pair *p, uint64_t start, uint64_t end,
			size_t depth)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);
	struct fframe *parent;
	/* set by decide() when it returns D_SHOW, the only values read */
	bool in_only, in_caller;
	size_t out_depth, limit;

	(void)depth;
	if (!ft->shown || ft->hidden)
		return;
	parent = top_of(f, ft);
	if (decide(f, th, ft, parent, p, start, &in_only, &in_caller, &limit,
		   &out_depth) != D_SHOW ||
	    !in_caller)
		return;
	if (f->has_min && trace_duration(th->trace, start, end) < f->min_ns)
		return;
	if (f->where && !where_match(f->where, p->func->name, th->args,
				     th->retval))
		return;
	flush(f, th, ft);
	paint(f, th, p);
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
	    (f->any_caller && !(v & V_CALLER)) || ft->off ||
	    (f->has_depth && f->max_depth == 0) ||
	    (f->where && !where_match(f->where, p->func->name, NULL,
				      th->retval)))
		return;
	paint(f, th, p);
	output_close(f->inner, th, p, start, end, 0,
			     CLOSE_BEFORE_TRACE);
}

static void filter_close(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t start, uint64_t end,
			 size_t depth, enum close_kind kind)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);
	/* a call suspended by a switch told in one call: its frame stays
	 * for park() */
	bool keep = th->switch_told; /* set with th->suspending only */
	struct fframe popped, *kept = NULL;
	const struct fframe *fr = &popped;

	if (!ft->shown)
		return;
	if (kind == CLOSE_BEFORE_TRACE) {
		close_before_trace(f, th, ft, p, start, end);
		return;
	}
	if (!ft->seg) {
		if (keep) { /* the thread's first switch */
			ft_segment(f, th, ft, depth);
		} else if (ft->hidden) { /* no frame: see ft_push_flat() */
			ft->hidden--;
			return;
		} else if (ft->depth) {
			fr = ft_pop_flat(ft);
			goto popped;
		}
	}
	if (!ft->depth) /* cannot happen: thread.c closes what it opened */
		return;
	kept = ft_pop(f, th, ft, keep, &popped);
popped:
	if (ft->first_pending > ft->depth)
		ft->first_pending = ft->depth;
	if (ft->hidden) {
		ft->hidden--;
		return;
	}
	if (fr->state != SHOWN || (!fr->in_caller && !fr->emitted))
		return; /* -C: no -C call below it */
	if (!fr->emitted) {
		if (f->has_min && (end <= start || trace_duration(th->trace, start,
								  end) <
							   f->min_ns))
			return;
		if (f->where &&
		    !where_match(f->where, p->func->name, fr->args,
				 kind == CLOSE_RETURNED ? th->retval : NULL))
			return;
		flush(f, th, ft); /* its callers */
		if (kept) /* parked: the output has it */
			kept->emitted = true;
		paint(f, th, p);
		/* a resumed call was entered before: not a leaf */
		if (kind == CLOSE_RETURNED && f->inner->leaves && !fr->resumed) {
			output_leaf(f->inner, th, p, start, end,
					    fr->out_depth);
			return;
		}
		const struct values *retval = th->retval;
		th->retval = NULL;
		th->resumed = fr->resumed;
		output_entry(f->inner, th, p, start, fr->out_depth);
		th->resumed = false; /* closes come from thread.c, never resumed */
		th->retval = retval;
	}
	paint(f, th, p);
	output_close(f->inner, th, p, start, end, fr->out_depth, kind);
}

/* -C: whether what happens now is on a path to a -C call or inside one
 * (not on an unrelated sibling's). */
static bool in_caller(const struct filters *f, struct fthread *ft)
{
	const struct fframe *top = top_of(f, ft);

	if (ft->off) /* -T trace_off */
		return false;
	return top ? top->in_caller : !f->any_caller;
}

static void filter_lost(struct output *o, struct thread *th, uint64_t count,
			unsigned reason, size_t depth)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);

	(void)depth;
	if (!ft->shown || ft->hidden || !in_caller(f, ft))
		return;
	flush(f, th, ft);
	output_lost(f->inner, th, count, reason,
			    top_of(f, ft) ? top_of(f, ft)->child_depth : 0);
}

static void filter_note(struct output *o, struct thread *th,
			const struct note *n, size_t depth)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);

	(void)depth;
	if (!ft->shown || ft->hidden || f->inner->ops->note == NULL ||
	    !in_caller(f, ft))
		return;
	flush(f, th, ft);
	output_note(f->inner, th, n,
			    top_of(f, ft) ? top_of(f, ft)->child_depth : 0);
}

/* ---------------------------------------------------------------------------
 * Stack switches (coroutines)
 *
 * A switch is told in one call, as to the outputs (replay.h), to an
 * output that takes it so (all do): the frames of the stack left move
 * by pointer
 * (park()), and back (unpark()) with the verdicts they had, when their
 * outermost call's caller and the thread's -T trace_off state are what
 * they were when those were taken (the segment's key), and the time is
 * in the same part of --time-range: the verdicts the calls would take
 * again.  Each shown
 * call of a reopened stack was given to the output (a shown callee
 * soon flushes it, a switch away closes it: either way before anything
 * else), so the output is told the shown ones at once, in one call
 * (switch_stack(), or its own unpark()).  Otherwise, under another
 * caller, the calls take their verdicts again one by one, as entries.
 *
 * Behind -C, -t and --where (filters.holds, see verdicts_kept), whose
 * verdicts wait for a callee or the return, a reopened call is held back
 * as the entry reopening it would be: the segment's reopened part, one
 * start for all, is given to the output as a whole (release()) when a
 * callee shows, or when the switch away closes one that shows (the
 * innermost shown that --where keeps decides, park_release()); what the
 * output kept of those it was given goes with the frames, parked or
 * held back (fseg.inner), so that it is told them back in one call
 * too.  Else they drop at the switch as their closes would.
 * A parked stack's frames go when thread.c forgets the stack's calls
 * (drop_parked()): memory stays bounded as thread.c's is.
 * ------------------------------------------------------------------------ */

/* The SHOWN frames of a parked stack: their number, the outermost and
 * the innermost. */
static size_t parked_shown(const struct fparked *fp, const struct fframe **out,
			   const struct fframe **in)
{
	size_t n = 0;

	*out = *in = NULL;
	for (size_t k = 0; k < fp->n_segs; k++) {
		const struct fseg *s = &fp->segs[k];
		if (!s->n_shown)
			continue;
		if (!*out)
			*out = &s->frames[s->first_shown - 1];
		*in = &s->frames[s->top_shown - 1];
		n += s->n_shown;
	}
	return n;
}

static void parked_free(struct filters *f, struct thread *th,
			struct fparked *fp)
{
	if (fp->inner && f->inner->ops->drop_parked)
		f->inner->ops->drop_parked(f->inner, th, fp->inner);
	for (size_t k = 0; k < fp->n_segs; k++)
		free(fp->segs[k].frames);
	free(fp->segs);
	free(fp);
}

/* Whether a call reopened at start and closed now by a switch (at the
 * thread's time of the event switching, th->own, which its closes are
 * given) lasted long enough for -t. */
static bool long_enough(const struct filters *f, const struct thread *th,
			uint64_t start)
{
	return !f->has_min ||
	       (th->own > start &&
		trace_duration(th->trace, start, th->own) >= f->min_ns);
}


/* filters.holds: the calls of segments k up that the switch suspends
 * and thread.c gave no close, those reopened (it was told them once),
 * each as filter_close() would take its close: the innermost that shows
 * does with its callers.  A reopened part of a segment, one start for
 * all, is decided by its innermost shown call that --where keeps. */
static void park_release(struct filters *f, struct thread *th,
			 struct fthread *ft, size_t k)
{
	for (size_t j = ft->n_segs; j-- > k;) {
		struct fseg *s = &ft->segs[j];
		size_t top;
		for (size_t i = s->n; i-- > s->reopened;) {
			const struct fframe *fr = &s->frames[i];
			replay_work++;
			if (fr->emitted)
				return;
			if (fr->state != SHOWN || !fr->resumed)
				continue;
			if (!fr->in_caller)
				return;
			if (long_enough(f, th, fr->start) && fr->wkeep) {
				flush_upto(f, th, ft, s->first + i + 1);
				return;
			}
		}
		if (!s->reopened)
			continue;
		if (s->released)
			return;
		top = s->pre_kept;
		if (!top || !long_enough(f, th, s->reopen_ticks))
			continue;
		/* callers of a -C call, or none is */
		if (!s->frames[top - 1].in_caller)
			return;
		flush_upto(f, th, ft, s->first + top);
		return;
	}
}

/* filters.holds: the shown calls of a parked stack the output was
 * given (a prefix of them all, flush()), the outermost and the
 * innermost; what it kept of those held back goes with them. */
static size_t parked_emitted(const struct filters *f, struct thread *th,
			     struct fparked *fp, const struct fframe **out,
			     const struct fframe **in)
{
	size_t n = 0;

	*out = *in = NULL;
	for (size_t k = 0; k < fp->n_segs; k++) {
		struct fseg *s = &fp->segs[k];
		if (s->reopened && s->released) {
			size_t c = s->rel_shown == SIZE_MAX ? s->pre_shown
							    : s->rel_shown;
			size_t t = s->rel_top == SIZE_MAX ? s->pre_top
							  : s->rel_top;
			if (c) {
				*out = *out ? *out
					    : &s->frames[s->first_shown - 1];
				*in = &s->frames[t - 1];
				n += c;
			}
		}
		for (size_t i = s->reopened; i < s->n; i++) {
			const struct fframe *fr = &s->frames[i];
			replay_work++;
			if (fr->state != SHOWN || !fr->emitted)
				continue;
			*out = *out ? *out : fr;
			*in = fr;
			n++;
		}
	}
	/* what the output kept of a stack held back since it reopened */
	if (!n && fp->n_segs == 1 && !fp->segs[0].released) {
		struct fseg *s = &fp->segs[0];
		fp->inner = s->inner;
		/* those still open: the reopened calls that returned
		 * since are the innermost it kept */
		fp->inner_n = s->inner_n < s->pre_shown ? s->inner_n
							 : s->pre_shown;
		s->inner = NULL;
	}
	for (size_t k = 0; k < fp->n_segs; k++)
		seg_drop_inner(f, th, &fp->segs[k]);
	return n;
}

static void filter_park(struct output *o, struct thread *th, size_t depth,
			size_t n, void **state)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);
	const struct fframe *out, *in;
	struct fparked *fp;
	size_t k, closed = ft->closed_kept, moved = 0, shown;

	*state = NULL;
	if (!ft->shown)
		return;
	if (!ft->seg)
		ft_segment(f, th, ft, depth + n - 1);
	/* the calls just closed, back in place */
	for (k = 0; k < ft->n_segs; k++) {
		struct fseg *s = &ft->segs[k];
		if (s->kept) {
			s->n = s->kept;
			s->kept = 0;
		}
	}
	ft->closed_kept = 0;
	/* those from depth up: whole segments, and the upper part of one
	 * (calls entered since it began) */
	k = ft->n_segs;
	while (k > 0 && ft->segs[k - 1].tdepth >= depth)
		k--;
	if (k > 0 && ft->segs[k - 1].tdepth + ft->segs[k - 1].n > depth) {
		struct fseg *lo, *up = seg_insert(ft, k);
		size_t at;
		lo = &ft->segs[k - 1];
		at = depth - lo->tdepth;
		up->tdepth = depth;
		up->first = lo->first + at;
		up->key = key_of(th, &lo->frames[at - 1],
				 lo->frames[at - 1].off_after);
		for (size_t i = at; i < lo->n; i++) {
			struct fframe *fr = seg_append(up, &lo->frames[i]);
			if (i < lo->reopened && f->holds) {
				/* as ft_pop() would give it */
				fr->emitted = fr->state == SHOWN &&
					      lo->released;
				fr->resumed = true;
				fr->args = NULL;
				fr->start = lo->reopen_ticks;
			}
			replay_work++;
		}
		if (at < lo->reopened)
			seg_drop_inner(f, th, lo);
		seg_truncate(lo, at);
	}
	if (k == ft->n_segs)
		return;
	if (f->holds) {
		ft->depth = ft->segs[ft->n_segs - 1].first +
			    ft->segs[ft->n_segs - 1].n;
		park_release(f, th, ft, k);
	}
	fp = must_calloc(1, sizeof *fp);
	fp->n_segs = ft->n_segs - k;
	fp->segs = must_calloc(fp->n_segs, sizeof *fp->segs);
	memcpy(fp->segs, ft->segs + k, fp->n_segs * sizeof *fp->segs);
	for (size_t i = 0; i < fp->n_segs; i++)
		moved += fp->segs[i].n;
	ft->n_segs = k;
	ft->depth = k ? ft->segs[k - 1].first + ft->segs[k - 1].n : 0;
	/* the hidden calls are the innermost of those still open */
	ft->hidden -= ft->hidden < moved - closed ? ft->hidden : moved - closed;
	if (ft->first_pending > ft->depth)
		ft->first_pending = ft->depth;
	shown = f->holds ? parked_emitted(f, th, fp, &out, &in)
			 : parked_shown(fp, &out, &in);
	if (shown) {
		if (f->inner->ops->park)
			f->inner->ops->park(f->inner, th, out->out_depth, shown,
					    &fp->inner);
		fp->inner_n = shown;
		if (!ft->left_n) {
			ft->left_p = in->pair;
			ft->left_depth = in->out_depth;
		}
		ft->left_n += shown;
	}
	*state = fp;
}

static void filter_switch(struct output *o, struct thread *th,
			  const struct pair *p, size_t depth, size_t n,
			  bool resume, uint64_t ticks)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);

	(void)p, (void)depth, (void)n;
	if (resume) {
		ft->reopen_ticks = ticks; /* for unpark(), which follows */
		return;
	}
	if (ft->left_n && f->inner->ops->switch_stack)
		f->inner->ops->switch_stack(f->inner, th, ft->left_p,
					    ft->left_depth, ft->left_n, false,
					    ticks);
	ft->left_n = 0;
}

/* The calls of fp reopened under another caller than they were left
 * under: each takes its verdict again, as an entry that reopens it
 * (thread.resumed), and what the output kept of them goes. */
static void reenter(struct filters *f, struct thread *th, struct fparked *fp,
		    size_t depth, uint64_t ticks)
{
	const struct values *args = th->args;
	bool resumed = th->resumed, any = false;

	if (fp->inner && f->inner->ops->drop_parked)
		f->inner->ops->drop_parked(f->inner, th, fp->inner);
	fp->inner = NULL;
	th->args = NULL;
	th->resumed = true;
	for (size_t k = 0; k < fp->n_segs; k++)
		for (size_t i = 0; i < fp->segs[k].n; i++) {
			struct fframe *fr = enter(f, th,
						  fp->segs[k].frames[i].pair,
						  ticks, depth++);
			any |= fr && fr->state == SHOWN;
			replay_work++;
		}
	th->args = args;
	th->resumed = resumed;
	/* shown at once: a shown callee or the next switch would (held
	 * back as entries are, with -C, -t, --where) */
	if (any && !f->holds)
		flush(f, th, fthread_of(f, th));
	parked_free(f, th, fp);
}

static void filter_unpark(struct output *o, struct thread *th, size_t depth,
			  size_t n, void *state)
{
	struct filters *f = o->state;
	struct fthread *ft = fthread_of(f, th);
	struct fparked *fp = state;
	const struct fframe *out, *in;
	size_t total = 0, shown, below;
	uint64_t ticks = ft->reopen_ticks;

	if (!fp)
		return;
	if (!ft->shown) {
		parked_free(f, th, fp);
		return;
	}
	if (!ft->seg)
		ft_segment(f, th, ft, depth - 1);
	ft_discard_kept(ft);
	below = ft->depth;
	/* the first n calls */
	for (size_t k = 0; k < fp->n_segs; k++)
		total += fp->segs[k].n;
	while (fp->n_segs && total > n) {
		struct fseg *s = &fp->segs[fp->n_segs - 1];
		size_t cut = total - n < s->n ? total - n : s->n;
		seg_truncate(s, s->n - cut);
		total -= cut;
		if (!s->n)
			free(fp->segs[--fp->n_segs].frames);
	}
	if (fp->n_segs) {
		struct fkey now = key_of(th, ft_top(ft), ft->off);
		unsigned range = range_part(f, th, ticks), ranges = 0;
		for (size_t k = 0; k < fp->n_segs; k++)
			ranges |= fp->segs[k].range;
		if (!key_equal(&fp->segs[0].key, &now) || (ranges & ~range)) {
			reenter(f, th, fp, depth, ticks);
			return;
		}
	}
	shown = parked_shown(fp, &out, &in);
	if (shown && !f->holds)
		flush(f, th, ft); /* their callers held back */
	for (size_t k = 0, d = depth; k < fp->n_segs; k++) {
		struct fseg *s = seg_insert(ft, ft->n_segs);
		*s = fp->segs[k];
		s->first = ft->depth;
		s->tdepth = d;
		s->reopened = s->n;
		/* held back as the entries that reopen them would be */
		s->released = !f->holds;
		s->reopen_ticks = ticks;
		s->pre_shown = s->n_shown;
		s->pre_top = s->top_shown;
		s->pre_kept = s->top_kept;
		s->inner = NULL;
		if (f->holds && !k && fp->n_segs == 1) {
			s->inner = fp->inner;
			s->inner_n = fp->inner_n;
			fp->inner = NULL;
		}
		d += s->n;
		ft->depth += s->n;
		if (s->first_hidden)
			ft->hidden += s->n - (s->first_hidden - 1);
		ft->off = s->frames[s->n - 1].off_after;
	}
	if (f->holds) {
		fp->n_segs = 0; /* the thread's now */
		parked_free(f, th, fp); /* what the output kept, unless the
					 * segment has it */
		return;
	}
	if (ft->first_pending == below)
		ft->first_pending = ft->depth;
	if (shown && fp->inner && f->inner->ops->unpark) {
		f->inner->ops->unpark(f->inner, th, out->out_depth, shown,
				      fp->inner);
		fp->inner = NULL;
	}
	if (shown && f->inner->ops->switch_stack)
		f->inner->ops->switch_stack(f->inner, th, in->pair,
					    in->out_depth, shown, true, ticks);
	fp->n_segs = 0; /* the thread's now */
	parked_free(f, th, fp);
}

static void filter_drop_parked(struct output *o, struct thread *th,
			       void *state)
{
	parked_free(o->state, th, state);
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
	for (size_t i = 0; i < f->n_pids; i++)
		if (!f->pid_found[i])
			warn_msg(0, "--pid: no process %llu in the traces",
				 (unsigned long long)f->pids[i]);

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

/* The same, told a switch in one call. */
static const struct output_ops filter_switch_ops = {
	.note = filter_note,
	.begin_trace = filter_begin_trace,
	.entry = filter_entry,
	.inherit = filter_inherit,
	.leaf = filter_leaf,
	.close = filter_close,
	.switch_stack = filter_switch,
	.park = filter_park,
	.unpark = filter_unpark,
	.drop_parked = filter_drop_parked,
	.lost = filter_lost,
	.end_trace = filter_end_trace,
	.finish = filter_finish,
};

/* Whether a call's verdict is known at its entry, from the call, its
 * callers and the thread's state then (-T trace_off, the time's part of
 * --time-range), so that a reopened stack's shown calls show at once
 * (see "Stack switches"): not with -C, whose callers wait for a -C call
 * below, nor -t or --where, which wait for the return (filters.holds). */
static bool verdicts_kept(const struct filters *f)
{
	return !f->any_caller && !f->has_min && !f->where;
}

struct output *filter_wrap(struct filters *f, struct output *inner)
{
	f->inner = inner;
	f->self = *inner;
	f->self.ops = inner->ops->switch_stack || inner->ops->park
			      ? &filter_switch_ops
			      : &filter_ops;
	f->self.state = f;
	/* the filter takes leaves where the output does, at their entries */
	f->self.leaves_in_order = false;
	f->parks = f->self.ops == &filter_switch_ops;
	f->holds = !verdicts_kept(f);
	/* --where reads the values of every call, whatever the format */
	if (f->where)
		inner->no_values = f->self.no_values = false;
	return &f->self;
}
