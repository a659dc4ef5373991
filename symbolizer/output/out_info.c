/* out_info.c -- what ctrace info shows of each process of a session, in
 * the manner of uftrace info: the program, its command line, its outcome
 * (exit status, times, memory: from the header's end-of-process fields,
 * doc/format.md), its threads, events and trace size, and the recorder's
 * settings.  Format "info" is text, one "name: value" line each, a blank
 * line between processes; "info-json" the same as one JSON object:
 *
 *   {"processes": [{"trace": "trace.bin", "program": "/bin/x", ...}]}
 *
 * A value the trace does not hold is "?" with the reason (null in JSON).
 * Events are the entries and returns the trace holds.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "output/output.h"

struct info_process {
	struct trace *trace;
	uint64_t events;
};

struct info_state {
	struct info_process *procs;
	size_t n;
	bool json;
};

static struct info_process *find(struct info_state *s, const struct trace *t)
{
	for (size_t i = s->n; i-- > 0;)
		if (s->procs[i].trace == t)
			return &s->procs[i];
	return NULL;
}

static void info_begin_trace(struct output *o, struct trace *t)
{
	struct info_state *s = o->state;

	if (find(s, t) != NULL)
		return;
	s->procs = must_realloc(s->procs, s->n + 1, sizeof *s->procs);
	s->procs[s->n++] = (struct info_process){.trace = t};
}

static void count(struct output *o, const struct thread *th, uint64_t n)
{
	struct info_process *p = find(o->state, th->trace);

	if (p != NULL)
		p->events += n;
}

static void info_entry(struct output *o, struct thread *th,
		       const struct pair *p, uint64_t ticks, size_t depth)
{
	(void)p, (void)ticks, (void)depth;
	count(o, th, 1);
}

/* Inherited calls are the parent's events. */
static void info_inherit(struct output *o, struct thread *th,
			 const struct pair *p, uint64_t start, size_t depth)
{
	(void)o, (void)th, (void)p, (void)start, (void)depth;
}

static void info_close(struct output *o, struct thread *th,
		       const struct pair *p, uint64_t start, uint64_t end,
		       size_t depth, enum close_kind kind)
{
	(void)p, (void)start, (void)end, (void)depth;
	if (kind == CLOSE_RETURNED || kind == CLOSE_BEFORE_TRACE)
		count(o, th, 1);
}

/* A coroutine switch, told in one call: the calls left or reopened are
 * no events of the program (neither is counted), and the replay need not
 * give them one by one. */
static void info_switch(struct output *o, struct thread *th,
			const struct pair *p, size_t depth, size_t n,
			bool resume, uint64_t ticks)
{
	(void)o, (void)th, (void)p, (void)depth, (void)n, (void)resume;
	(void)ticks;
}

/* ---------------------------------------------------------------------------
 * Values
 * ------------------------------------------------------------------------ */

static void put(struct outbuf *out, const char *s)
{
	outbuf_str(out, s);
}

static void put_text(struct outbuf *out, const char *s, size_t n, bool json)
{
	if (json)
		put_json_str(out, s, n);
	else
		outbuf_escaped(out, s, n, ESCAPE_TEXT);
}

/* The main program's build id, in hex; "" if unknown. */
static void build_id(const struct trace *t, char *buf, size_t size)
{
	const struct trace_module *m = NULL;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n_modules && m == NULL; i++)
		if (t->exe != NULL && !strcmp(t->modules[i].path, t->exe))
			m = &t->modules[i];
	if (m == NULL && t->n_modules > 0)
		m = &t->modules[0];
	for (size_t i = 0; m != NULL && i < m->build_id_len &&
			   2 * i + 3 <= size;
	     i++)
		snprintf(buf + 2 * i, 3, "%02x", m->build_id[i]);
}

static void iso_time(uint64_t ns, char *buf, size_t size)
{
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (ns == 0 || gmtime_r(&secs, &tm) == NULL) {
		snprintf(buf, size, "?");
		return;
	}
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%09uZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (unsigned)(ns % 1000000000u));
}

static void seconds(uint64_t ns, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRIu64 ".%06" PRIu64 " s", ns / 1000000000u,
		 ns % 1000000000u / 1000u);
}

/* A list of NUL-terminated strings, space-separated (text) or a JSON
 * array. */
static void put_list(struct outbuf *out, const char *list, size_t len,
		     bool json)
{
	size_t i = 0;
	bool first = true;

	if (json)
		outbuf_putc(out, '[');
	while (i < len) {
		size_t n = strnlen(list + i, len - i);
		if (!first)
			put(out, json ? ", " : " ");
		first = false;
		put_text(out, list + i, n, json);
		i += n + 1;
	}
	if (json)
		outbuf_putc(out, ']');
}

/* ---------------------------------------------------------------------------
 * One process
 * ------------------------------------------------------------------------ */

static void key(struct outbuf *out, const char *name, bool json, bool *first)
{
	if (json) {
		put(out, *first ? "\n    {" : ",\n     ");
		outbuf_putc(out, '"');
		put(out, name);
		put(out, "\": ");
	} else {
		char buf[32];
		snprintf(buf, sizeof buf, "%-20s", name);
		for (char *c = buf; *c; c++)
			if (*c == '_')
				*c = ' ';
		put(out, buf);
		put(out, ": ");
	}
	*first = false;
}

static void end_line(struct outbuf *out, bool json)
{
	if (!json)
		outbuf_putc(out, '\n');
}

/* An unknown value: null in JSON, "?" and why in text. */
static void unknown(struct outbuf *out, bool json, const char *why)
{
	if (json) {
		put(out, "null");
		return;
	}
	put(out, "? (");
	put(out, why);
	put(out, ")");
}

static void u64_or_unknown(struct outbuf *out, bool json, bool known,
			   uint64_t v, const char *unit, const char *why)
{
	if (!known) {
		unknown(out, json, why);
		return;
	}
	outbuf_u64(out, v);
	if (!json && unit != NULL)
		put(out, unit);
}

/* A line NAME: seconds in text, NAME_ns: nanoseconds in JSON (or unknown,
 * with why). */
static void time_field(struct outbuf *out, bool json, bool *first,
		       const char *name, bool known, uint64_t ns,
		       const char *why)
{
	char json_name[32], buf[48];

	snprintf(json_name, sizeof json_name, "%s_ns", name);
	key(out, json ? json_name : name, json, first);
	if (known && !json) {
		seconds(ns, buf, sizeof buf);
		put(out, buf);
	} else {
		u64_or_unknown(out, json, known, ns, NULL, why);
	}
	end_line(out, json);
}

static void text_or_unknown(struct outbuf *out, bool json, bool known,
			    const char *s, const char *why)
{
	if (known)
		put_text(out, s, strlen(s), json);
	else
		unknown(out, json, why);
}

static void show_process(struct outbuf *out, const struct info_process *p,
			 bool json)
{
	const struct trace *t = p->trace;
	const struct ctrace_file_header *h = &t->hdr;
	bool first = true;
	bool usage = (h->exit_flags & CTRACE_EXIT_USAGE) != 0;
	bool waited = (h->exit_flags & CTRACE_EXIT_WAITED) != 0;
	const char *no_end = "not recorded: the program ended by exec, _exit "
			     "or a signal, or still runs";
	char buf[160];

	key(out, "trace", json, &first);
	put_text(out, t->path, strlen(t->path), json);
	end_line(out, json);
	key(out, "program", json, &first);
	text_or_unknown(out, json, t->exe != NULL, t->exe,
			"no PROCESS record");
	end_line(out, json);
	build_id(t, buf, sizeof buf);
	key(out, "build_id", json, &first);
	text_or_unknown(out, json, buf[0] != '\0', buf, "none recorded");
	end_line(out, json);
	key(out, "command_line", json, &first);
	if (t->argv != NULL)
		put_list(out, t->argv, t->argv_len, json);
	else
		unknown(out, json, "not recorded");
	end_line(out, json);
	key(out, "pid", json, &first);
	outbuf_u64(out, h->pid);
	end_line(out, json);
	key(out, "ppid", json, &first);
	outbuf_u64(out, h->ppid);
	end_line(out, json);
	key(out, "forked_from", json, &first);
	if (h->flags & CTRACE_FLAG_FORKED)
		outbuf_u64(out, h->parent_pid);
	else
		put(out, json ? "null" : "-");
	end_line(out, json);
	key(out, "started", json, &first);
	iso_time(h->start_realtime_ns, buf, sizeof buf);
	text_or_unknown(out, json, h->start_realtime_ns != 0, buf,
			"not recorded");
	end_line(out, json);

	bool ended = usage && h->end_realtime_ns >= h->start_realtime_ns;
	time_field(out, json, &first, "elapsed", ended,
		   h->end_realtime_ns - h->start_realtime_ns, no_end);
	time_field(out, json, &first, "user_cpu", usage, h->user_ns, no_end);
	time_field(out, json, &first, "system_cpu", usage, h->system_ns,
		   no_end);
	key(out, json ? "max_rss_kb" : "max_rss", json, &first);
	u64_or_unknown(out, json, usage, h->max_rss_kb, " KiB", no_end);
	end_line(out, json);
	key(out, "voluntary_switches", json, &first);
	u64_or_unknown(out, json, usage, h->voluntary_switches, NULL, no_end);
	end_line(out, json);
	key(out, "involuntary_switches", json, &first);
	u64_or_unknown(out, json, usage, h->involuntary_switches, NULL,
		       no_end);
	end_line(out, json);
	key(out, json ? "usage_from" : "usage from", json, &first);
	if (usage)
		put_text(out, waited ? "wait4" : "getrusage",
			 waited ? 5 : 9, json);
	else
		unknown(out, json, no_end);
	end_line(out, json);

	int ws = (int)h->wait_status;
	key(out, "exit_status", json, &first);
	if (waited && WIFEXITED(ws))
		outbuf_u64(out, (uint64_t)WEXITSTATUS(ws));
	else if (waited)
		put(out, json ? "null" : "-");
	else
		unknown(out, json, "known for the process ctrace record "
				   "started");
	end_line(out, json);
	key(out, "signal", json, &first);
	if (waited && WIFSIGNALED(ws)) {
		int sig = WTERMSIG(ws);
		if (json) {
			outbuf_u64(out, (uint64_t)sig);
		} else {
			snprintf(buf, sizeof buf, "%d (%s)%s", sig,
				 strsignal(sig),
				 WCOREDUMP(ws) ? ", core dumped" : "");
			put(out, buf);
		}
	} else if (waited) {
		put(out, json ? "null" : "-");
	} else {
		unknown(out, json, "known for the process ctrace record "
				   "started");
	}
	end_line(out, json);

	if (h->exit_flags & CTRACE_EXIT_RUN) {
		/* the status of the program ctrace record started, untraced */
		int rs = (int)h->wait_status;
		key(out, json ? "run_exit" : "run's program", json, &first);
		if (json) {
			put(out, "{\"pid\": ");
			outbuf_u64(out, h->wait_pid);
			put(out, ", \"exit_status\": ");
			if (WIFEXITED(rs))
				outbuf_u64(out, (uint64_t)WEXITSTATUS(rs));
			else
				put(out, "null");
			put(out, ", \"signal\": ");
			if (WIFSIGNALED(rs))
				outbuf_u64(out, (uint64_t)WTERMSIG(rs));
			else
				put(out, "null");
			put(out, "}");
		} else if (WIFEXITED(rs)) {
			snprintf(buf, sizeof buf,
				 "pid %u (no trace): exit status %d",
				 h->wait_pid, WEXITSTATUS(rs));
			put(out, buf);
		} else {
			snprintf(buf, sizeof buf,
				 "pid %u (no trace): signal %d (%s)",
				 h->wait_pid, WTERMSIG(rs),
				 strsignal(WTERMSIG(rs)));
			put(out, buf);
		}
		end_line(out, json);
	}
	key(out, "threads", json, &first);
	outbuf_u64(out, t->n_threads);
	end_line(out, json);
	key(out, "events", json, &first);
	outbuf_u64(out, p->events);
	end_line(out, json);
	key(out, "lost_events", json, &first);
	outbuf_u64(out, trace_lost_events(t));
	end_line(out, json);
	key(out, json ? "trace_bytes" : "trace size", json, &first);
	outbuf_u64(out, t->file_size);
	if (!json)
		put(out, " bytes");
	end_line(out, json);
	key(out, json ? "bytes_per_event" : "bytes per event", json, &first);
	if (p->events > 0) {
		snprintf(buf, sizeof buf, "%.1f",
			 (double)t->file_size / (double)p->events);
		put(out, buf);
	} else {
		unknown(out, json, "no events");
	}
	end_line(out, json);
	key(out, json ? "settings" : "recorder settings", json, &first);
	if (t->settings != NULL)
		put_list(out, t->settings, t->settings_len, json);
	else if (json)
		put(out, "[]");
	else
		put(out, "(defaults)");
	end_line(out, json);
	if (json)
		outbuf_putc(out, '}');
}

static void info_finish(struct output *o)
{
	struct info_state *s = o->state;

	if (s->json)
		put(o->out, "{\"processes\": [");
	for (size_t i = 0; i < s->n; i++) {
		if (i > 0)
			put(o->out, s->json ? "," : "\n");
		show_process(o->out, &s->procs[i], s->json);
	}
	if (s->json)
		put(o->out, "\n]}\n");
	outbuf_flush(o->out);
	free(s->procs);
	s->procs = NULL;
	s->n = 0;
}

static const struct output_ops info_ops = {
	.begin_trace = info_begin_trace,
	.entry = info_entry,
	.inherit = info_inherit,
	.close = info_close,
	.switch_stack = info_switch,
	.finish = info_finish,
};

static void init(struct output *o, bool json)
{
	static struct info_state state;

	state.json = json;
	o->ops = &info_ops;
	o->leaves = false;
	o->stack_only = true; /* no values to decode */
	o->state = &state;
}

void out_info_init(struct output *o, const struct output_options *oo)
{
	(void)oo;
	init(o, false);
}

void out_info_json_init(struct output *o, const struct output_options *oo)
{
	(void)oo;
	init(o, true);
}
