/* out_json.c -- the calls as one JSON document.
 *
 *   {"calls": [
 *   {"function": "fib", "library": "/usr/bin/fib", "address": "0x401136",
 *    "call_site": "src/fib.c:12", "timestamp": 1200, "duration": 52,
 *    "thread_id": 41424, "depth": 1},
 *   ...
 *   ], "lost_events": 0,
 *   "header": {"processes": [{"program": "/usr/bin/fib", "pid": 41424, ...}]}}
 *
 * One call per line, written when it returns: post-order, in the time
 * order of the returns across threads.  Calls left without an exit
 * (longjmp) come, with "duration": null, where they were found to be gone;
 * a call a coroutine left open when it switched away comes once, where it
 * was first left, with null, whether or not it resumes and returns later;
 * calls still running when the trace ended come last, also with null, so
 * only those are kept back.  Exits of calls entered before the trace are
 * left out: neither their start nor their depth is known.
 */
#include <stdlib.h>

#include "output/output.h"
#include "values/values.h"

enum { TID_TEXT_MAX = 64 };

struct json_state {
	bool started;
	const struct trace **traces; /* for the header */
	size_t n_traces;
	size_t n_calls; /* written to the output */
	uint64_t lost;
	/* Calls that never returned, each as ",\n{...}", kept for the end
	 * of the document: at most the open calls of every thread. */
	struct outbuf unfinished;
	size_t n_unfinished;
	/* Markers, tracepoint hits and recording switches, each as
	 * ",\n{...}", written after the calls: as many as the program made. */
	struct outbuf marks;
	size_t n_marks;
	/* Each pair's fields before the timestamp, written once (every
	 * call of it has the same): open addressing by the pair's
	 * address, which stays while the traces are open. */
	struct call_head *heads;
	size_t heads_cap, n_heads;
	const struct call_head *last_head; /* found last: often again */
	/* ", \"thread_id\": N, \"depth\": " of the thread last written */
	const struct thread *tid_of;
	uint64_t tid;
	char tid_text[TID_TEXT_MAX];
	size_t tid_len;
};

struct call_head {
	const struct pair *p;
	char *bytes;
	size_t len;
};

static void put_json_string(struct outbuf *out, const char *s)
{
	outbuf_json_str(out, s, strlen(s));
}

static void put_hex(struct outbuf *out, uint64_t v)
{
	char buf[18];
	size_t n = sizeof buf;

	do {
		buf[--n] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	buf[--n] = 'x';
	buf[--n] = '0';
	outbuf_write(out, buf + n, sizeof buf - n);
}

/* Traces stay open until the output is finished: the header, which comes
 * last so that its counts are final, describes them then. */
static void json_begin_trace(struct output *o, struct trace *t)
{
	struct json_state *js = o->state;

	if (!js->started) {
		outbuf_str(o->out, "{\"calls\": [");
		js->started = true;
	}
	js->traces = must_realloc(js->traces, js->n_traces + 1,
				  sizeof *js->traces);
	js->traces[js->n_traces++] = t;
}

/* The fields of a call of p before its timestamp. */
static void put_head(struct outbuf *out, struct thread *th,
		     const struct pair *p)
{
	const struct resolve_info *si = symtab_pair_site(th->trace->symtab, p);
	const char *module = symtab_pair_module(th->trace->symtab, p);

	outbuf_str(out, "{\"function\": ");
	put_json_string(out, p->func->name);
	if (p->func->libcall)
		outbuf_str(out, ", \"kind\": \"libcall\"");
	outbuf_str(out, ", \"library\": ");
	if (module)
		put_json_string(out, module);
	else
		outbuf_str(out, "null");
	outbuf_str(out, ", \"address\": \"");
	put_hex(out, pair_fn(p));
	outbuf_str(out, "\", \"call_site\": ");
	if (si->src.file) {
		char line[24];
		size_t n = outbuf_format_u64(line + 1, si->src.line);
		line[0] = ':';
		outbuf_putc(out, '"');
		outbuf_escaped(out, si->src.file, strlen(si->src.file),
			       ESCAPE_JSON);
		outbuf_write(out, line, n + 1);
		outbuf_putc(out, '"');
	} else {
		outbuf_str(out, "null");
	}
	outbuf_str(out, ", \"timestamp\": ");
}

static size_t head_slot(const struct json_state *js, const struct pair *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (js->heads_cap - 1);
}

/* p's head, made the first time. */
static const struct call_head *head_of(struct json_state *js,
				       struct thread *th, const struct pair *p)
{
	if (js->last_head && js->last_head->p == p)
		return js->last_head;
	if (js->heads_cap) {
		for (size_t i = head_slot(js, p);;
		     i = (i + 1) & (js->heads_cap - 1)) {
			if (js->heads[i].p == p)
				return js->last_head = &js->heads[i];
			if (!js->heads[i].p)
				break;
		}
	}
	if (2 * (js->n_heads + 1) > js->heads_cap) {
		struct call_head *old = js->heads;
		size_t old_cap = js->heads_cap;
		js->heads_cap = old_cap ? 2 * old_cap : 1024;
		js->heads = must_calloc(js->heads_cap, sizeof *js->heads);
		for (size_t k = 0; k < old_cap; k++) {
			if (!old[k].p)
				continue;
			size_t i = head_slot(js, old[k].p);
			while (js->heads[i].p)
				i = (i + 1) & (js->heads_cap - 1);
			js->heads[i] = old[k];
		}
		free(old);
	}
	size_t i = head_slot(js, p);
	while (js->heads[i].p)
		i = (i + 1) & (js->heads_cap - 1);
	/* made in memory, kept in an allocation of its size */
	struct outbuf *m = must_malloc(sizeof *m);
	outbuf_init_memory(m);
	put_head(m, th, p);
	outbuf_flush(m);
	char *bytes = must_malloc(m->mem_len);
	memcpy(bytes, m->mem, m->mem_len);
	js->heads[i] = (struct call_head){p, bytes, m->mem_len};
	outbuf_free_memory(m);
	free(m);
	js->n_heads++;
	return js->last_head = &js->heads[i]; /* the table may have moved */
}

static void heads_free(struct json_state *js)
{
	for (size_t i = 0; i < js->heads_cap; i++)
		free(js->heads[i].bytes);
	free(js->heads);
	js->heads = NULL;
	js->last_head = NULL;
	js->heads_cap = js->n_heads = 0;
}

/* ", \"thread_id\": N, \"depth\": " of th, made. */
static void tid_text_make(struct json_state *js, const struct thread *th)
{
	static const char a[] = ", \"thread_id\": ", b[] = ", \"depth\": ";
	char *t = js->tid_text;

	memcpy(t, a, sizeof a - 1);
	t += sizeof a - 1;
	t += outbuf_format_u64(t, th->id);
	memcpy(t, b, sizeof b - 1);
	js->tid_len = (size_t)(t + sizeof b - 1 - js->tid_text);
	js->tid_of = th;
	js->tid = th->id;
}

/* The same, made when the thread changes. */
static inline void tid_text(struct json_state *js, const struct thread *th)
{
	if (js->tid_of != th || js->tid != th->id)
		tid_text_make(js, th);
}

/* The most a call's fields before its values take besides its head:
 * the separator, three numbers and the texts between them. */
enum { CALL_FIXED_MAX = 2 + 21 + 14 + 20 + TID_TEXT_MAX + 20 };

/* A call's line, after a newline alone if it is the document's first
 * (first), else after ",\n". */
static void put_call(struct json_state *js, struct outbuf *out, bool first,
		     struct thread *th, const struct pair *p, uint64_t start,
		     const uint64_t *duration, size_t depth)
{
	static const char dur[] = ", \"duration\": ";
	const struct call_head *h = head_of(js, th, p);
	int64_t ts = trace_ns(th->trace, start);
	size_t need = h->len + CALL_FIXED_MAX;

	tid_text(js, th);
	if (need <= OUTBUF_SIZE) {
		/* room for all of it checked once: the common case, every
		 * field written in place */
		char *q = outbuf_reserve(out, need);
		if (!first)
			*q++ = ',';
		*q++ = '\n';
		memcpy(q, h->bytes, h->len);
		q += h->len;
		if (ts < 0) {
			*q++ = '-';
			q += outbuf_format_u64(q, -(uint64_t)ts);
		} else {
			q += outbuf_format_u64(q, (uint64_t)ts);
		}
		memcpy(q, dur, sizeof dur - 1);
		q += sizeof dur - 1;
		if (duration) {
			q += outbuf_format_u64(q, *duration);
		} else {
			memcpy(q, "null", 4);
			q += 4;
		}
		memcpy(q, js->tid_text, js->tid_len);
		q += js->tid_len;
		q += outbuf_format_u64(q, depth);
		out->len = (size_t)(q - out->buf);
	} else {
		outbuf_str(out, first ? "\n" : ",\n");
		outbuf_write(out, h->bytes, h->len);
		outbuf_i64(out, ts);
		outbuf_str(out, dur);
		if (duration)
			outbuf_u64(out, *duration);
		else
			outbuf_str(out, "null");
		outbuf_write(out, js->tid_text, js->tid_len);
		outbuf_u64(out, depth);
	}
	values_put_args_json(out, th->args);
	values_put_ret_json(out, th->retval);
	outbuf_putc(out, '}');
}

static void json_leaf(struct output *o, struct thread *th,
		      const struct pair *p, uint64_t start, uint64_t end,
		      size_t depth)
{
	struct json_state *js = o->state;
	uint64_t d = trace_duration(th->trace, start, end);

	put_call(js, o->out, js->n_calls++ == 0, th, p, start, &d, depth);
}

static void json_close(struct output *o, struct thread *th,
		       const struct pair *p, uint64_t start, uint64_t end,
		       size_t depth, enum close_kind kind)
{
	struct json_state *js = o->state;

	/* a call a coroutine left and came back to: written when it was
	 * first left, with no duration (one line a call, however many
	 * switches) */
	if (th->closing_resumed)
		return;
	switch (kind) {
	case CLOSE_RETURNED:
		json_leaf(o, th, p, start, end, depth);
		break;
	case CLOSE_NO_EXIT: /* it ended somewhere before this point */
		put_call(js, o->out, js->n_calls++ == 0, th, p, start, NULL,
			 depth);
		break;
	case CLOSE_UNFINISHED:
		put_call(js, &js->unfinished, false, th, p, start, NULL,
			 depth);
		js->n_unfinished++;
		break;
	case CLOSE_BEFORE_TRACE:
		break;
	}
}

static void json_note(struct output *o, struct thread *th,
		      const struct note *n, size_t depth)
{
	struct json_state *js = o->state;
	struct outbuf *out = &js->marks;

	if (js->n_marks++ == 0)
		outbuf_init_memory(out);
	outbuf_str(out, ",\n{\"kind\": ");
	outbuf_str(out, n->control ? "\"control\"" : n->tracepoint
				    ? "\"tracepoint\"" : "\"mark\"");
	if (n->tracepoint) {
		outbuf_str(out, ", \"tracepoint\": ");
		put_json_str(out, n->tracepoint, strlen(n->tracepoint));
	}
	outbuf_str(out, ", \"message\": ");
	put_json_str(out, n->text, n->text_len);
	outbuf_str(out, ", \"timestamp\": ");
	outbuf_i64(out, trace_ns(th->trace, n->ticks));
	tid_text(js, th);
	outbuf_write(out, js->tid_text, js->tid_len);
	outbuf_u64(out, depth);
	outbuf_putc(out, '}');
}

static void json_end_trace(struct output *o, struct trace *t)
{
	struct json_state *js = o->state;
	uint64_t lost = trace_lost_events(t);

	js->lost = js->lost + lost < js->lost ? UINT64_MAX : js->lost + lost;
}

/* Always a complete document, even when no trace could be read. */
static void json_finish(struct output *o)
{
	struct json_state *js = o->state;

	if (!js->started)
		outbuf_str(o->out, "{\"calls\": [");
	outbuf_flush(&js->unfinished);
	if (js->n_unfinished) {
		/* the first one needs no comma if nothing came before */
		size_t skip = js->n_calls ? 0 : 1;
		outbuf_write(o->out, js->unfinished.mem + skip,
			     js->unfinished.mem_len - skip);
	}
	outbuf_free_memory(&js->unfinished);
	outbuf_str(o->out, js->n_calls + js->n_unfinished ? "\n], \"marks\": ["
							  : "], \"marks\": [");
	if (js->n_marks) {
		outbuf_flush(&js->marks);
		outbuf_write(o->out, js->marks.mem + 1, js->marks.mem_len - 1);
		outbuf_free_memory(&js->marks);
		js->n_marks = 0;
		outbuf_putc(o->out, '\n');
	}
	outbuf_str(o->out, "], \"lost_events\": ");
	outbuf_u64(o->out, js->lost);
	outbuf_str(o->out, ",\n\"header\": {\"processes\": [");
	for (size_t i = 0; i < js->n_traces; i++) {
		if (i)
			outbuf_putc(o->out, ',');
		json_header_put_process(o->out, js->traces[i], o->opts);
	}
	outbuf_str(o->out, js->n_traces ? "\n]}}\n" : "]}}\n");
	outbuf_flush(o->out);
	free(js->traces);
	js->traces = NULL;
	js->n_traces = 0;
	heads_free(js);
}

/* A switch writes nothing: each call is one line, written when it ends
 * or is first left. */
static void json_switch(struct output *o, struct thread *th,
			const struct pair *p, size_t depth, size_t n,
			bool resume, uint64_t ticks)
{
	(void)o, (void)th, (void)p, (void)depth, (void)n, (void)resume,
		(void)ticks;
}

static const struct output_ops json_ops = {
	.switch_stack = json_switch,
	.begin_trace = json_begin_trace,
	.leaf = json_leaf,
	.close = json_close,
	.note = json_note,
	.end_trace = json_end_trace,
	.finish = json_finish,
};

void out_json_init(struct output *o, const struct output_options *oo)
{
	static struct json_state state;

	(void)oo; /* reads none of them */
	memset(&state, 0, sizeof state); /* a fresh document each time */
	o->ops = &json_ops;
	outbuf_init_memory(&state.unfinished);
	/* every call at its exit's place in time: a leaf only where its
	 * exit comes next */
	o->leaves_in_order = true;
	o->call_sites = true;
	o->state = &state;
}
