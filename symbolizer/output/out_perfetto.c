/* out_perfetto.c -- Perfetto's own trace format: protobuf TracePackets.
 *
 * The Perfetto UI and its trace processor read JSON too (chrome), but at
 * about 100 bytes an event; this is the format they are made for, at a
 * few bytes an event.  A trace is a sequence of TracePackets (field 1 of
 * message Trace), each written as the calls happen, so that memory does
 * not grow with the trace:
 *
 *   sequence 1     a TrackDescriptor per process (ProcessDescriptor: pid,
 *                  name) and per thread (ThreadDescriptor: pid, tid,
 *                  name), written when the trace begins
 *   sequence 2...  one per thread, in the order threads first call:
 *                  its first packet clears the sequence's incremental
 *                  state, defines clock 64 as incremental nanoseconds
 *                  (ClockSnapshot: 0 on it is 0 on BOOTTIME) and sets the
 *                  defaults of the packets that follow (TracePacketDefaults:
 *                  that clock, the thread's track); then a packet per
 *                  event: a TrackEvent SLICE_BEGIN or SLICE_END, or
 *                  INSTANT for what has no duration, its time as the delta
 *                  from the sequence's previous event.
 *
 * Names are interned per sequence (InternedData in the packet that first
 * needs them): a function's name (EventName) and where it is defined
 * (SourceLocation: file, function, line), the names of arguments
 * (DebugAnnotationName).  Arguments and return values are debug
 * annotations with their text, "return" for a return value, "ctrace" for
 * what ctrace says of a call (no exit recorded...); the trace processor
 * merges an end's annotations into its slice.  Lost events and notes are
 * instant events with their text as name.
 *
 * Times are nanoseconds since the start of the trace (the earliest of
 * several), as in every other format; a thread's events never go back in
 * time (a call left by longjmp ends where the thread's latest event was).
 * Memory: what is kept per thread is a bit per name ever sent on its
 * sequence (names, locations and argument names are few: one per
 * function, not per event).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "values/values.h"

/* Field numbers of the published schema (protos/perfetto/trace/). */
enum {
	TRACE_PACKET = 1,                 /* Trace */
	PACKET_CLOCK_SNAPSHOT = 6,        /* TracePacket */
	PACKET_TIMESTAMP = 8,
	PACKET_SEQUENCE_ID = 10,          /* trusted_packet_sequence_id */
	PACKET_TRACK_EVENT = 11,
	PACKET_INTERNED_DATA = 12,
	PACKET_SEQUENCE_FLAGS = 13,
	PACKET_TIMESTAMP_CLOCK_ID = 58,
	PACKET_DEFAULTS = 59,             /* trace_packet_defaults */
	PACKET_TRACK_DESCRIPTOR = 60,
	SNAPSHOT_CLOCKS = 1,              /* ClockSnapshot */
	CLOCK_ID = 1,                     /* ClockSnapshot.Clock */
	CLOCK_TIMESTAMP = 2,
	CLOCK_IS_INCREMENTAL = 3,
	DEFAULTS_TRACK_EVENT = 11,        /* TracePacketDefaults */
	DEFAULTS_CLOCK_ID = 58,
	EVENT_DEFAULTS_TRACK_UUID = 11,   /* TrackEventDefaults */
	TRACK_UUID = 1,                   /* TrackDescriptor */
	TRACK_PROCESS = 3,
	TRACK_THREAD = 4,
	TRACK_PARENT_UUID = 5,
	PROCESS_PID = 1,                  /* ProcessDescriptor */
	PROCESS_NAME = 6,
	THREAD_PID = 1,                   /* ThreadDescriptor */
	THREAD_TID = 2,
	THREAD_NAME = 5,
	EVENT_ANNOTATIONS = 4,            /* TrackEvent */
	EVENT_TYPE = 9,
	EVENT_NAME_IID = 10,
	EVENT_NAME = 23,
	EVENT_LOCATION_IID = 34,
	ANNOTATION_NAME_IID = 1,          /* DebugAnnotation */
	ANNOTATION_STRING = 6,
	INTERNED_EVENT_NAMES = 2,         /* InternedData */
	INTERNED_ANNOTATION_NAMES = 3,
	INTERNED_LOCATIONS = 4,
	IID = 1,                          /* EventName, DebugAnnotationName */
	IID_NAME = 2,
	LOCATION_FILE = 2,                /* SourceLocation (IID = 1) */
	LOCATION_FUNCTION = 3,
	LOCATION_LINE = 4,
};

enum {
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_INSTANT = 3,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,
	CLOCK_BOOTTIME = 6,
	CLOCK_INCREMENTAL = 64, /* 64..127: defined by the sequence */
	DESCRIPTOR_SEQUENCE = 1,
};

/* Ids handed out by the output, each sent on a sequence at most once
 * since its state was cleared: one bit per id. */
struct sent {
	uint64_t *bits;
	size_t n; /* words */
};

/* true the first time, after which the id counts as sent */
static bool sent_first(struct sent *s, uint32_t id)
{
	size_t w = id / 64;
	uint64_t bit = (uint64_t)1 << (id % 64);

	if (w >= s->n) {
		size_t n = s->n ? s->n : 4;
		while (n <= w)
			n *= 2;
		s->bits = must_realloc(s->bits, n, sizeof *s->bits);
		memset(s->bits + s->n, 0, (n - s->n) * sizeof *s->bits);
		s->n = n;
	}
	if (s->bits[w] & bit)
		return false;
	s->bits[w] |= bit;
	return true;
}

struct perfetto_thread {
	uint32_t seq;
	uint64_t last_ns; /* the time of the sequence's latest packet */
	struct sent names, locations, arg_names;
};

/* The interned argument names: open addressing over index + 1. */
struct arg_names {
	char **all; /* by id - 1 */
	size_t n;
	uint32_t *slots;
	size_t mask;
};

struct perfetto_state {
	struct protobuf pb;
	uint32_t *ids; /* an event's annotation names */
	size_t cap_ids;
	const struct trace **traces; /* a process's track is its index + 1 */
	size_t n_traces;
	uint32_t next_seq;
	struct u64map locations; /* struct func * -> location id, 0: none */
	uint32_t n_locations;
	struct arg_names arg_names;
	struct perfetto_thread **threads; /* to free them */
	size_t n_threads;
};

static void packet_begin(struct perfetto_state *ps)
{
	ps->pb.len = 0;
	protobuf_begin(&ps->pb, TRACE_PACKET);
}

static void packet_end(struct output *o)
{
	struct perfetto_state *ps = o->state;

	protobuf_end(&ps->pb);
	outbuf_write(o->out, ps->pb.buf, ps->pb.len);
}

static uint64_t process_uuid(size_t trace_index)
{
	return (uint64_t)(trace_index + 1) << 32;
}

static uint64_t thread_uuid(size_t trace_index, uint32_t serial)
{
	return process_uuid(trace_index) + serial + 1;
}

static size_t trace_index(struct perfetto_state *ps, const struct trace *t)
{
	for (size_t i = 0; i < ps->n_traces; i++)
		if (ps->traces[i] == t)
			return i;
	return 0; /* begin_trace saw every trace */
}

static void put_str(struct protobuf *pb, uint32_t field, const char *s)
{
	protobuf_text(pb, field, s, strlen(s));
}

static void perfetto_begin_trace(struct output *o, struct trace *t)
{
	struct perfetto_state *ps = o->state;
	struct protobuf *pb = &ps->pb;
	size_t index = ps->n_traces;

	ps->traces = must_realloc(ps->traces, ps->n_traces + 1,
				  sizeof *ps->traces);
	ps->traces[ps->n_traces++] = t;

	packet_begin(ps);
	protobuf_varint(pb, PACKET_SEQUENCE_ID, DESCRIPTOR_SEQUENCE);
	protobuf_begin(pb, PACKET_TRACK_DESCRIPTOR);
	protobuf_varint(pb, TRACK_UUID, process_uuid(index));
	protobuf_begin(pb, TRACK_PROCESS);
	protobuf_varint(pb, PROCESS_PID, t->pid);
	put_str(pb, PROCESS_NAME, t->exe ? t->exe : t->path);
	protobuf_end(pb);
	protobuf_end(pb);
	packet_end(o);

	for (size_t i = 0; i < t->n_threads; i++) {
		const struct thread_info *ti = &t->threads[i];
		uint64_t id = o->opts->serial_ids ? ti->serial : ti->tid;
		packet_begin(ps);
		protobuf_varint(pb, PACKET_SEQUENCE_ID, DESCRIPTOR_SEQUENCE);
		protobuf_begin(pb, PACKET_TRACK_DESCRIPTOR);
		protobuf_varint(pb, TRACK_UUID, thread_uuid(index, ti->serial));
		protobuf_varint(pb, TRACK_PARENT_UUID, process_uuid(index));
		protobuf_begin(pb, TRACK_THREAD);
		protobuf_varint(pb, THREAD_PID, t->pid);
		protobuf_varint(pb, THREAD_TID, id);
		if (ti->name && ti->name[0]) {
			put_str(pb, THREAD_NAME, ti->name);
		} else {
			char name[32];
			snprintf(name, sizeof name, "thread %u", ti->serial);
			put_str(pb, THREAD_NAME, name);
		}
		protobuf_end(pb);
		protobuf_end(pb);
		packet_end(o);
	}
}

/* The thread's sequence, started by its first packet on first use. */
static struct perfetto_thread *pthread(struct output *o, struct thread *th)
{
	struct perfetto_state *ps = o->state;
	struct perfetto_thread *pt = th->output_state;
	struct protobuf *pb = &ps->pb;

	if (pt)
		return pt;
	pt = must_calloc(1, sizeof *pt);
	th->output_state = pt;
	ps->threads = must_realloc(ps->threads, ps->n_threads + 1,
				   sizeof *ps->threads);
	ps->threads[ps->n_threads++] = pt;
	pt->seq = ps->next_seq++;

	packet_begin(ps);
	protobuf_varint(pb, PACKET_TIMESTAMP, 0);
	protobuf_varint(pb, PACKET_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME);
	protobuf_varint(pb, PACKET_SEQUENCE_ID, pt->seq);
	protobuf_varint(pb, PACKET_SEQUENCE_FLAGS,
			SEQ_INCREMENTAL_STATE_CLEARED);
	protobuf_begin(pb, PACKET_CLOCK_SNAPSHOT);
	protobuf_begin(pb, SNAPSHOT_CLOCKS);
	protobuf_varint(pb, CLOCK_ID, CLOCK_INCREMENTAL);
	protobuf_varint(pb, CLOCK_TIMESTAMP, 0);
	protobuf_varint(pb, CLOCK_IS_INCREMENTAL, 1);
	protobuf_end(pb);
	protobuf_begin(pb, SNAPSHOT_CLOCKS);
	protobuf_varint(pb, CLOCK_ID, CLOCK_BOOTTIME);
	protobuf_varint(pb, CLOCK_TIMESTAMP, 0);
	protobuf_end(pb);
	protobuf_end(pb);
	protobuf_begin(pb, PACKET_DEFAULTS);
	protobuf_varint(pb, DEFAULTS_CLOCK_ID, CLOCK_INCREMENTAL);
	protobuf_begin(pb, DEFAULTS_TRACK_EVENT);
	protobuf_varint(pb, EVENT_DEFAULTS_TRACK_UUID,
			thread_uuid(trace_index(ps, th->trace),
				    th->info->serial));
	protobuf_end(pb);
	protobuf_end(pb);
	packet_end(o);
	return pt;
}

/* The id (from 1) of an argument's name. */
static uint32_t arg_name_id(struct arg_names *an, const char *name)
{
	uint64_t h = 14695981039346656037u;

	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	if (!an->slots || 4 * (an->n + 1) > 3 * (an->mask + 1)) {
		size_t cap = an->slots ? 2 * (an->mask + 1) : 64;
		free(an->slots);
		an->slots = must_calloc(cap, sizeof *an->slots);
		an->mask = cap - 1;
		for (size_t i = 0; i < an->n; i++) {
			uint64_t g = 14695981039346656037u;
			for (const char *s = an->all[i]; *s; s++)
				g = (g ^ (unsigned char)*s) * 1099511628211u;
			size_t j = g & an->mask;
			while (an->slots[j])
				j = (j + 1) & an->mask;
			an->slots[j] = (uint32_t)i + 1;
		}
	}
	size_t j = h & an->mask;
	for (; an->slots[j]; j = (j + 1) & an->mask)
		if (!strcmp(an->all[an->slots[j] - 1], name))
			return an->slots[j];
	an->all = must_realloc(an->all, an->n + 1, sizeof *an->all);
	an->all[an->n] = must_malloc(strlen(name) + 1);
	strcpy(an->all[an->n], name);
	an->slots[j] = (uint32_t)++an->n;
	return an->slots[j];
}

/* The id of where p's function is defined, 0 if unknown. */
static uint32_t location_id(struct perfetto_state *ps, struct thread *th,
			    const struct pair *p, const struct resolve_info **ri)
{
	bool inserted;
	uint32_t *id = agg_map_get(&ps->locations, (uintptr_t)p->func, 0,
				   &inserted);
	struct trace *t = th->trace;

	*ri = NULL;
	if (!inserted && !*id)
		return 0;
	if (!t->resolver)
		return 0;
	*ri = resolve_function(t->resolver, pair_fn(p),
			       symtab_pair_time(t->symtab, p));
	if (inserted)
		*id = (*ri)->src.file ? ++ps->n_locations : 0;
	return *id;
}

/* What goes in an event's debug annotations. */
struct annotations {
	const struct values *args, *retval;
	const char *note_name, *note; /* "ctrace": what ctrace says */
};

/* put_event's time for what happens where the thread's latest event was */
#define AT_LATEST UINT64_MAX

static void put_annotation(struct protobuf *pb, uint32_t name_id,
			   const struct value *v, const char *text)
{
	protobuf_begin(pb, EVENT_ANNOTATIONS);
	protobuf_varint(pb, ANNOTATION_NAME_IID, name_id);
	if (v && v->text) {
		put_str(pb, ANNOTATION_STRING, v->text);
	} else if (v) {
		char why[128];
		snprintf(why, sizeof why, "? (%s)", v->why ? v->why : "unknown");
		put_str(pb, ANNOTATION_STRING, why);
	} else {
		put_str(pb, ANNOTATION_STRING, text);
	}
	protobuf_end(pb);
}

/* One event on th's sequence: p's (interned) or `name`. */
static void put_event(struct output *o, struct thread *th, unsigned type,
		      const struct pair *p, const char *name, size_t name_len,
		      uint64_t ticks, const struct annotations *an)
{
	struct perfetto_state *ps = o->state;
	struct perfetto_thread *pt = pthread(o, th);
	struct protobuf *pb = &ps->pb;
	int64_t ns = ticks == AT_LATEST ? 0 : trace_ns(th->trace, ticks);
	uint64_t at = ns > 0 && (uint64_t)ns > pt->last_ns ? (uint64_t)ns
							  : pt->last_ns;
	uint32_t name_id = 0, loc_id = 0;
	const struct resolve_info *ri = NULL;
	bool new_name = false, new_loc = false, interned = false;
	const struct values *args = an ? an->args : NULL;
	const struct values *ret = an ? an->retval : NULL;
	bool has_args = args && (args->n || args->unknown);
	bool has_ret = ret && ret->n;

	packet_begin(ps);
	protobuf_varint(pb, PACKET_TIMESTAMP, at - pt->last_ns);
	pt->last_ns = at;
	protobuf_varint(pb, PACKET_SEQUENCE_ID, pt->seq);
	protobuf_varint(pb, PACKET_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);

	/* what this event names for the first time on the sequence */
	if (p && type != TYPE_SLICE_END) {
		name_id = agg_name_id(p);
		new_name = sent_first(&pt->names, name_id);
		loc_id = location_id(ps, th, p, &ri);
		new_loc = loc_id && sent_first(&pt->locations, loc_id);
		if (new_loc && !ri)
			loc_id = 0, new_loc = false;
	}
	if (new_name || new_loc) {
		protobuf_begin(pb, PACKET_INTERNED_DATA);
		interned = true;
	}
	if (new_name) {
		protobuf_begin(pb, INTERNED_EVENT_NAMES);
		protobuf_varint(pb, IID, name_id);
		protobuf_text(pb, IID_NAME, p->func->name, p->func->name_len);
		protobuf_end(pb);
	}
	if (new_loc) {
		protobuf_begin(pb, INTERNED_LOCATIONS);
		protobuf_varint(pb, IID, loc_id);
		put_str(pb, LOCATION_FILE, ri->src.file);
		protobuf_text(pb, LOCATION_FUNCTION, p->func->name,
			      p->func->name_len);
		if (ri->src.line)
			protobuf_varint(pb, LOCATION_LINE, ri->src.line);
		protobuf_end(pb);
	}
	/* argument names: ids first, then those new to the sequence */
	size_t n_ids = 0, n_args = has_args && !args->unknown ? args->n : 1;
	if (n_args + 2 > ps->cap_ids) {
		ps->cap_ids = n_args + 2;
		ps->ids = must_realloc(ps->ids, ps->cap_ids, sizeof *ps->ids);
	}
	uint32_t *ids = ps->ids;
	if (has_args && !args->unknown) {
		for (size_t i = 0; i < args->n; i++)
			ids[n_ids++] = arg_name_id(&ps->arg_names, args->v[i].name
						   ? args->v[i].name : "?");
	} else if (has_args) {
		ids[n_ids++] = arg_name_id(&ps->arg_names, "args");
	}
	size_t n_all = n_ids;
	uint32_t ret_id = 0, note_id = 0;
	if (has_ret)
		ids[n_all++] = ret_id = arg_name_id(&ps->arg_names, "return");
	if (an && an->note)
		ids[n_all++] = note_id = arg_name_id(&ps->arg_names,
						     an->note_name);
	for (size_t i = 0; i < n_all; i++) {
		if (!sent_first(&pt->arg_names, ids[i]))
			continue;
		if (!interned) {
			protobuf_begin(pb, PACKET_INTERNED_DATA);
			interned = true;
		}
		protobuf_begin(pb, INTERNED_ANNOTATION_NAMES);
		protobuf_varint(pb, IID, ids[i]);
		put_str(pb, IID_NAME, ps->arg_names.all[ids[i] - 1]);
		protobuf_end(pb);
	}
	if (interned)
		protobuf_end(pb);

	protobuf_begin(pb, PACKET_TRACK_EVENT);
	protobuf_varint(pb, EVENT_TYPE, type);
	if (name_id)
		protobuf_varint(pb, EVENT_NAME_IID, name_id);
	else if (name)
		protobuf_text(pb, EVENT_NAME, name, name_len);
	if (loc_id)
		protobuf_varint(pb, EVENT_LOCATION_IID, loc_id);
	if (has_args && !args->unknown) {
		for (size_t i = 0; i < n_ids; i++)
			put_annotation(pb, ids[i], &args->v[i], NULL);
	} else if (has_args) {
		char why[128];
		snprintf(why, sizeof why, "? (%s)",
			 args->unknown_why ? args->unknown_why : "unknown");
		put_annotation(pb, ids[0], NULL, why);
	}
	if (has_ret)
		put_annotation(pb, ret_id, &ret->v[0], NULL);
	if (note_id)
		put_annotation(pb, note_id, NULL, an->note);
	protobuf_end(pb);
	packet_end(o);
}

static void perfetto_entry(struct output *o, struct thread *th,
			   const struct pair *p, uint64_t ticks, size_t depth)
{
	struct annotations an = {th->args, NULL, NULL, NULL};

	(void)depth;
	put_event(o, th, TYPE_SLICE_BEGIN, p, NULL, 0, ticks, &an);
}

static void perfetto_leaf(struct output *o, struct thread *th,
			  const struct pair *p, uint64_t start, uint64_t end,
			  size_t depth)
{
	struct annotations begin = {th->args, NULL, NULL, NULL};
	struct annotations ret = {NULL, th->retval, NULL, NULL};

	(void)depth;
	put_event(o, th, TYPE_SLICE_BEGIN, p, NULL, 0, start, &begin);
	put_event(o, th, TYPE_SLICE_END, p, NULL, 0, end, &ret);
}

static void perfetto_close(struct output *o, struct thread *th,
			   const struct pair *p, uint64_t start, uint64_t end,
			   size_t depth, enum close_kind kind)
{
	struct annotations an = {NULL, NULL, "ctrace", NULL};

	(void)depth;
	(void)start;
	switch (kind) {
	case CLOSE_RETURNED:
		an.retval = th->retval;
		break;
	case CLOSE_NO_EXIT:
		an.note = th->suspending ? "suspended" : "no exit recorded";
		end = AT_LATEST; /* it ended somewhere before this point */
		break;
	case CLOSE_UNFINISHED:
		an.note = "unfinished";
		end = AT_LATEST;
		break;
	case CLOSE_BEFORE_TRACE:
		/* no begin to end: an instant where it returned */
		an.retval = th->retval;
		an.note = "returned, entered before the trace";
		put_event(o, th, TYPE_INSTANT, p, NULL, 0, end, &an);
		return;
	}
	/* a resumed call's slice ended when the thread first left it */
	if (th->closing_resumed)
		return;
	put_event(o, th, TYPE_SLICE_END, p, NULL, 0, end, &an);
}

/* A stack switch (coroutines): one instant event, as the Chrome output
 * shows it, whatever the depth; the calls left end their slices when
 * first left (close(), "suspended"), and a resumed call's slice is not
 * begun again. */
static void perfetto_switch(struct output *o, struct thread *th,
			    const struct pair *p, size_t depth, size_t n,
			    bool resume, uint64_t ticks)
{
	size_t cap = p->func->name_len + 96, len;
	char *text = must_calloc(1, cap);

	(void)depth;
	len = (size_t)snprintf(text, cap, "ctrace: %s the stack of ",
			       resume ? "back to" : "leaves");
	memcpy(text + len, p->func->name, p->func->name_len);
	len += p->func->name_len;
	len += (size_t)snprintf(text + len, cap - len, ", %zu call%s %s", n,
				n == 1 ? "" : "s",
				resume ? "resumed" : "suspended");
	put_event(o, th, TYPE_INSTANT, NULL, text, len,
		  ticks, NULL);
	free(text);
}

static void perfetto_lost(struct output *o, struct thread *th,
			  uint64_t count, unsigned reason, size_t depth)
{
	char name[96];
	int n = snprintf(name, sizeof name, "ctrace: %llu events lost (%s)",
			 (unsigned long long)count,
			 trace_lost_reason_text(reason));

	(void)depth;
	put_event(o, th, TYPE_INSTANT, NULL, name,
		  n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n
						      : sizeof name - 1,
		  AT_LATEST, NULL);
}

static void perfetto_note(struct output *o, struct thread *th,
			  const struct note *n, size_t depth)
{
	struct annotations an = {NULL, NULL, "tracepoint", n->tracepoint};

	(void)depth;
	put_event(o, th, TYPE_INSTANT, NULL, n->text, n->text_len, n->ticks,
		  n->tracepoint ? &an : NULL);
}

static void perfetto_finish(struct output *o)
{
	struct perfetto_state *ps = o->state;

	outbuf_flush(o->out);
	for (size_t i = 0; i < ps->n_threads; i++) {
		free(ps->threads[i]->names.bits);
		free(ps->threads[i]->locations.bits);
		free(ps->threads[i]->arg_names.bits);
		free(ps->threads[i]);
	}
	free(ps->threads);
	free(ps->ids);
	for (size_t i = 0; i < ps->arg_names.n; i++)
		free(ps->arg_names.all[i]);
	free(ps->arg_names.all);
	free(ps->arg_names.slots);
	free(ps->traces);
	agg_map_free(&ps->locations);
	protobuf_free(&ps->pb);
	agg_names_free();
	memset(ps, 0, sizeof *ps);
}

static const struct output_ops perfetto_ops = {
	.begin_trace = perfetto_begin_trace,
	.entry = perfetto_entry,
	.leaf = perfetto_leaf,
	.close = perfetto_close,
	.switch_stack = perfetto_switch,
	.lost = perfetto_lost,
	.note = perfetto_note,
	.finish = perfetto_finish,
};

void out_perfetto_init(struct output *o, const struct output_options *oo)
{
	static struct perfetto_state state;

	(void)oo; /* reads none of them */
	memset(&state, 0, sizeof state);
	protobuf_init(&state.pb);
	agg_map_init(&state.locations);
	state.next_seq = DESCRIPTOR_SEQUENCE + 1;
	o->ops = &perfetto_ops;
	o->leaves = true;
	o->state = &state;
}
