/* out_chrome.c -- the Trace Event Format of chrome://tracing and Perfetto.
 *
 *   {"traceEvents": [
 *   {"ph": "M", "name": "process_name", "pid": 41424, "tid": 41424,
 *    "args": {"name": "/usr/bin/fib"}},
 *   {"ph": "B", "name": "main", "pid": 41424, "tid": 41424, "ts": 0.120},
 *   {"ph": "X", "name": "fib", "pid": 41424, "tid": 41424, "ts": 0.180,
 *    "dur": 0.052},
 *   {"ph": "E", "pid": 41424, "tid": 41424, "ts": 1.140},
 *   ...
 *   ], "displayTimeUnit": "ns"}
 *
 * Written as the calls happen, in time order: a call with callees as a
 * B(egin) and an E(nd) event, a call without as one complete X event; so
 * nothing is kept whatever the length of the trace, and every thread's
 * events nest.  Timestamps are microseconds since the start of the trace
 * (the earliest one when there are several), with three decimals: the
 * nanoseconds.  Process and thread names come first, as metadata (M)
 * events; lost events are instant (i) events.  Arguments and return
 * values go in "args", as text.
 *
 * A stack switch (coroutines) is one instant event, "ctrace: leaves the
 * stack of F, N calls suspended" or "ctrace: back to the stack of F, N
 * calls resumed", not an E per call left and a B per call reopened: those
 * would make the output grow as switches times depth.  A call is ended
 * once, when its coroutine first leaves it (noted "suspended"); a resumed
 * call gets no new B, so the calls its coroutine then makes are slices at
 * the track's outer level, after the switch's instant event, and its
 * later end (or suspension) writes nothing.  Every track's events still
 * nest.
 */
#include <stdio.h>
#include <stdlib.h>

#include "output/output.h"
#include "values/values.h"

enum switch_run { RUN_NONE, RUN_SUSPEND, RUN_RESUME };

struct chrome_state {
	bool started;
	size_t n_events;
	/* the switch being counted: its closes (innermost first) or entries
	 * (outermost first) come one by one, its event when the next event
	 * of any kind comes */
	enum switch_run run;
	const struct thread *run_th; /* compared, not read: may be gone */
	const struct trace *run_trace;
	uint32_t run_pid;
	uint64_t run_tid;
	const struct pair *run_fn; /* the innermost call of the run */
	uint64_t run_ticks;
	size_t run_n;
	void **states; /* every chrome_thread, to free them */
	size_t n_states;
};

/* The time of each thread's latest event: calls still open at the end of
 * its data end there. */
struct chrome_thread {
	uint64_t last;
	const struct trace *trace;
};

static struct chrome_thread *cthread(struct output *o, struct thread *th)
{
	struct chrome_thread *ct = th->output_state;
	struct chrome_state *cs = o->state;

	if (!ct) {
		ct = must_calloc(1, sizeof *ct);
		ct->trace = th->trace;
		th->output_state = ct;
		cs->states = must_realloc(cs->states, cs->n_states + 1,
					  sizeof *cs->states);
		cs->states[cs->n_states++] = ct;
	}
	return ct;
}

/* `{"ph": "X", "pid": 1, "tid": 2, "ts": 1.000` and the separator. */
static void event_start(struct output *o, const char *ph, uint32_t pid,
			uint64_t tid, int64_t ns)
{
	struct chrome_state *cs = o->state;
	struct outbuf *out = o->out;

	outbuf_str(out, cs->n_events++ ? ",\n{\"ph\": \"" : "\n{\"ph\": \"");
	outbuf_str(out, ph);
	outbuf_str(out, "\", \"pid\": ");
	outbuf_u64(out, pid);
	outbuf_str(out, ", \"tid\": ");
	outbuf_u64(out, tid);
	if (ns != INT64_MIN) {
		outbuf_str(out, ", \"ts\": ");
		agg_put_us(out, ns);
	}
}

static void put_name(struct outbuf *out, const struct pair *p)
{
	outbuf_str(out, ", \"name\": ");
	put_json_str(out, p->func->name, p->func->name_len);
	/* a library call: its own category, to tell and to filter */
	if (p->func->libcall)
		outbuf_str(out, ", \"cat\": \"libcall\"");
}

/* `, "args": {...}` from the arguments and the return value, if any. */
static void put_values(struct outbuf *out, const struct values *args,
		       const struct values *retval, const char *note)
{
	bool any = false;

	if (!(args && args->n) && !(retval && retval->n) && !note)
		return;
	outbuf_str(out, ", \"args\": {");
	for (size_t i = 0; args && i < args->n; i++) {
		const struct value *v = &args->v[i];
		const char *name = v->name ? v->name : "?";
		const char *text = v->text ? v->text : "?";
		if (any)
			outbuf_str(out, ", ");
		put_json_str(out, name, strlen(name));
		outbuf_str(out, ": ");
		put_json_str(out, text, strlen(text));
		any = true;
	}
	if (retval && retval->n) {
		const char *text = retval->v[0].text ? retval->v[0].text : "?";
		if (any)
			outbuf_str(out, ", ");
		outbuf_str(out, "\"return\": ");
		put_json_str(out, text, strlen(text));
		any = true;
	}
	if (note) {
		if (any)
			outbuf_str(out, ", ");
		outbuf_str(out, "\"ctrace\": ");
		put_json_str(out, note, strlen(note));
	}
	outbuf_putc(out, '}');
}

static void put_meta(struct output *o, const char *what, uint32_t pid,
		     uint64_t tid, const char *key, const char *name,
		     uint64_t number)
{
	struct outbuf *out = o->out;

	event_start(o, "M", pid, tid, INT64_MIN);
	outbuf_str(out, ", \"name\": \"");
	outbuf_str(out, what);
	outbuf_str(out, "\", \"args\": {\"");
	outbuf_str(out, key);
	outbuf_str(out, "\": ");
	if (name)
		put_json_str(out, name, strlen(name));
	else
		outbuf_u64(out, number);
	outbuf_str(out, "}}");
}

/* Writes the switch counted so far, if any, as an instant event on its
 * thread's track. */
static void run_flush(struct output *o)
{
	struct chrome_state *cs = o->state;
	const struct pair *p = cs->run_fn;
	size_t cap, n;
	char *text;

	if (cs->run == RUN_NONE)
		return;
	cap = p->func->name_len + 96;
	text = must_calloc(1, cap);
	n = (size_t)snprintf(text, cap, "ctrace: %s the stack of ",
			     cs->run == RUN_SUSPEND ? "leaves" : "back to");
	memcpy(text + n, p->func->name, p->func->name_len);
	n += p->func->name_len;
	n += (size_t)snprintf(text + n, cap - n, ", %zu call%s %s", cs->run_n,
			      cs->run_n == 1 ? "" : "s",
			      cs->run == RUN_SUSPEND ? "suspended"
						     : "resumed");
	event_start(o, "i", cs->run_pid, cs->run_tid,
		    trace_ns(cs->run_trace, cs->run_ticks));
	outbuf_str(o->out, ", \"s\": \"t\", \"cat\": \"ctrace\", \"name\": ");
	put_json_str(o->out, text, n);
	outbuf_putc(o->out, '}');
	free(text);
	cs->run = RUN_NONE;
}

/* Counts a call suspended or resumed at ticks in the current switch (a
 * new one after writing one of another kind or thread). */
static void run_add(struct output *o, const struct thread *th,
		    enum switch_run kind, const struct pair *p, uint64_t ticks,
		    size_t n)
{
	struct chrome_state *cs = o->state;

	if (cs->run != kind || cs->run_th != th)
		run_flush(o);
	if (cs->run == RUN_NONE) {
		cs->run = kind;
		cs->run_th = th;
		cs->run_trace = th->trace;
		cs->run_pid = th->trace->pid;
		cs->run_tid = th->id;
		cs->run_n = 0;
		cs->run_fn = p;
		cs->run_ticks = ticks;
	}
	/* closes come innermost first, entries outermost first */
	if (kind == RUN_RESUME)
		cs->run_fn = p;
	cs->run_n += n;
}

/* A whole switch at once: the calls suspended for the first time have
 * had their E events. */
static void chrome_switch(struct output *o, struct thread *th,
			  const struct pair *p, size_t depth, size_t n,
			  bool resume, uint64_t ticks)
{
	struct chrome_thread *ct = cthread(o, th);

	(void)depth;
	/* as chrome_close() ends a call, and chrome_entry() begins one */
	if (!resume && ticks < ct->last)
		ticks = ct->last;
	ct->last = ticks;
	run_add(o, th, resume ? RUN_RESUME : RUN_SUSPEND, p, ticks, n);
}

/* The id a thread of t shows with, by its tid. */
static uint64_t shown_id(const struct output *o, const struct trace *t,
			 uint32_t tid)
{
	for (size_t i = 0; o->opts->serial_ids && i < t->n_threads; i++)
		if (t->threads[i].tid == tid)
			return t->threads[i].serial;
	return tid;
}

/* A flow arrow from the call that made the process to its first thread
 * (an exec'd image goes on in its process's own track). */
static void put_spawn_flow(struct output *o, const struct trace *t)
{
	const struct trace *p = t->spawner;
	struct outbuf *out = o->out;

	if (p == NULL || t->how == SPAWN_EXEC)
		return;
	event_start(o, "s", p->pid, shown_id(o, p, t->spawner_tid),
		    trace_ns(p, t->spawn_ticks));
	outbuf_str(out, ", \"name\": \"process\", \"cat\": \"process\", "
			"\"id\": ");
	outbuf_u64(out, t->pid);
	outbuf_putc(out, '}');
	event_start(o, "f", t->pid, shown_id(o, t, t->pid),
		    trace_ns(t, t->hdr.base_ticks));
	outbuf_str(out, ", \"bp\": \"e\", \"name\": \"process\", "
			"\"cat\": \"process\", \"id\": ");
	outbuf_u64(out, t->pid);
	outbuf_putc(out, '}');
}

static void chrome_begin_trace(struct output *o, struct trace *t)
{
	struct chrome_state *cs = o->state;

	if (!cs->started) {
		outbuf_str(o->out, "{\"traceEvents\": [");
		cs->started = true;
	}
	put_meta(o, "process_name", t->pid, t->pid, "name",
		 t->exe ? t->exe : t->path, 0);
	put_meta(o, "process_sort_index", t->pid, t->pid, "sort_index", NULL,
		 t->pid);
	for (size_t i = 0; i < t->n_threads; i++) {
		const struct thread_info *ti = &t->threads[i];
		uint64_t id = o->opts->serial_ids ? ti->serial : ti->tid;
		char name[64];
		const char *shown = ti->name && ti->name[0] ? ti->name : NULL;
		if (!shown) {
			snprintf(name, sizeof name, "thread %u", ti->serial);
			shown = name;
		}
		put_meta(o, "thread_name", t->pid, id, "name", shown, 0);
		put_meta(o, "thread_sort_index", t->pid, id, "sort_index",
			 NULL, ti->serial);
	}
	put_spawn_flow(o, t);
}

static void chrome_entry(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t ticks, size_t depth)
{
	(void)depth;
	cthread(o, th)->last = ticks;
	if (th->resumed) {
		run_add(o, th, RUN_RESUME, p, ticks, 1);
		return;
	}
	run_flush(o);
	event_start(o, "B", th->trace->pid, th->id, trace_ns(th->trace, ticks));
	put_name(o->out, p);
	put_values(o->out, th->args, NULL, NULL);
	outbuf_putc(o->out, '}');
}

static void chrome_leaf(struct output *o, struct thread *th,
			const struct pair *p, uint64_t start, uint64_t end,
			size_t depth)
{
	(void)depth;
	run_flush(o);
	cthread(o, th)->last = end;
	event_start(o, "X", th->trace->pid, th->id, trace_ns(th->trace, start));
	outbuf_str(o->out, ", \"dur\": ");
	agg_put_us(o->out, (int64_t)trace_duration(th->trace, start, end));
	put_name(o->out, p);
	put_values(o->out, th->args, th->retval, NULL);
	outbuf_putc(o->out, '}');
}

static void chrome_close(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t start, uint64_t end,
			 size_t depth, enum close_kind kind)
{
	struct chrome_thread *ct = cthread(o, th);
	const char *note = NULL;

	(void)depth;
	if (!th->suspending)
		run_flush(o);
	switch (kind) {
	case CLOSE_RETURNED:
		break;
	case CLOSE_NO_EXIT:
		note = th->suspending ? "suspended" : "no exit recorded";
		break;
	case CLOSE_UNFINISHED:
		note = "unfinished";
		break;
	case CLOSE_BEFORE_TRACE:
		/* no B to end: an instant event where it returned */
		ct->last = end;
		event_start(o, "i", th->trace->pid, th->id,
			    trace_ns(th->trace, end));
		outbuf_str(o->out, ", \"s\": \"t\"");
		put_name(o->out, p);
		put_values(o->out, NULL, th->retval,
			   "returned, entered before the trace");
		outbuf_putc(o->out, '}');
		return;
	}
	if (!end || end < ct->last)
		end = ct->last;
	if (end < start)
		end = start;
	ct->last = end;
	if (th->suspending && !th->switch_told) /* else chrome_switch() */
		run_add(o, th, RUN_SUSPEND, p, end, 1);
	/* a resumed call was ended when first left: no B is open */
	if (th->closing_resumed)
		return;
	event_start(o, "E", th->trace->pid, th->id, trace_ns(th->trace, end));
	put_name(o->out, p);
	put_values(o->out, NULL, kind == CLOSE_RETURNED ? th->retval : NULL,
		   note);
	outbuf_putc(o->out, '}');
}

static void chrome_lost(struct output *o, struct thread *th, uint64_t count,
			unsigned reason, size_t depth)
{
	struct chrome_thread *ct = cthread(o, th);
	char name[96];

	(void)depth;
	run_flush(o);
	snprintf(name, sizeof name, "ctrace: %llu events lost (%s)",
		 (unsigned long long)count, trace_lost_reason_text(reason));
	event_start(o, "i", th->trace->pid, th->id,
		    trace_ns(th->trace, ct->last));
	outbuf_str(o->out, ", \"s\": \"t\", \"name\": ");
	put_json_str(o->out, name, strlen(name));
	outbuf_putc(o->out, '}');
}

/* An instant event on the thread's track. */
static void chrome_note(struct output *o, struct thread *th,
			const struct note *n, size_t depth)
{
	(void)depth;
	run_flush(o);
	cthread(o, th);
	event_start(o, "i", th->trace->pid, th->id, trace_ns(th->trace, n->ticks));
	outbuf_str(o->out, ", \"s\": \"t\", \"name\": ");
	put_json_str(o->out, n->text, n->text_len);
	if (n->tracepoint) {
		outbuf_str(o->out, ", \"cat\": \"tracepoint\", \"args\": {\"tracepoint\": ");
		put_json_str(o->out, n->tracepoint, strlen(n->tracepoint));
		outbuf_putc(o->out, '}');
	} else if (n->control) {
		outbuf_str(o->out, ", \"cat\": \"ctrace\"");
	}
	outbuf_putc(o->out, '}');
}

/* Lost events that no thread's data places: an instant event of the
 * process at the end of the trace (its last event's time, or the end the
 * header says when later). */
static void chrome_end_trace(struct output *o, struct trace *t)
{
	struct chrome_state *cs = o->state;
	uint64_t lost = trace_lost_unplaced(t);
	uint64_t end = t->hdr.last_ticks > t->hdr.base_ticks ? t->hdr.last_ticks
							    : t->hdr.base_ticks;
	char name[96];

	run_flush(o);
	if (!lost)
		return;
	for (size_t i = 0; i < cs->n_states; i++) {
		const struct chrome_thread *ct = cs->states[i];
		if (ct->trace == t && ct->last > end)
			end = ct->last;
	}
	snprintf(name, sizeof name,
		 "ctrace: %llu events lost " TRACE_LOST_UNPLACED_TEXT,
		 (unsigned long long)lost);
	/* on the first thread's track, which has a name (and is the main
	 * thread's), in the process's scope */
	event_start(o, "i", t->pid,
		    !t->n_threads	  ? t->pid
		    : o->opts->serial_ids ? t->threads[0].serial
					  : t->threads[0].tid,
		    trace_ns(t, end));
	outbuf_str(o->out, ", \"s\": \"p\", \"name\": ");
	put_json_str(o->out, name, strlen(name));
	outbuf_putc(o->out, '}');
}

/* Always a complete document, even when no trace could be read. */
static void chrome_finish(struct output *o)
{
	struct chrome_state *cs = o->state;

	run_flush(o);
	if (!cs->started)
		outbuf_str(o->out, "{\"traceEvents\": [");
	outbuf_str(o->out, cs->n_events ? "\n], \"displayTimeUnit\": \"ns\"}\n"
					: "], \"displayTimeUnit\": \"ns\"}\n");
	outbuf_flush(o->out);
	for (size_t i = 0; i < cs->n_states; i++)
		free(cs->states[i]);
	free(cs->states);
	cs->states = NULL;
	cs->n_states = 0;
}

static const struct output_ops chrome_ops = {
	.switch_stack = chrome_switch,
	.begin_trace = chrome_begin_trace,
	.entry = chrome_entry,
	.leaf = chrome_leaf,
	.close = chrome_close,
	.lost = chrome_lost,
	.note = chrome_note,
	.end_trace = chrome_end_trace,
	.finish = chrome_finish,
};

void out_chrome_init(struct output *o, const struct output_options *oo)
{
	static struct chrome_state state;

	(void)oo; /* reads none of them */
	o->ops = &chrome_ops;
	o->leaves = true;
	o->state = &state;
}
