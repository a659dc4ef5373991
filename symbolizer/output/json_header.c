/* json_header.c -- what the JSON document says about each process:
 *
 *   "header": {"processes": [{"trace": "trace.bin", "program": "/usr/bin/x",
 *     "command_line": ["x", "-v"], "pid": 41424, "ppid": 41000,
 *     "forked_from": null, "started_by": null,
 *     "recorded_at": "2024-05-01T12:00:00.123456789Z",
 *     "start_realtime_ns": 1714564800123456789, "time_offset": 0,
 *     "threads": [{"serial": 1, "tid": 41424, "name": "x"}],
 *     "modules": [{"path": "/usr/bin/x", "start": "0x400000",
 *                  "end": "0x401000", "load_bias": "0x0",
 *                  "build_id": "ab12..."}],
 *     "lost_events": 0}]}
 *
 * Written after the calls, so that lost_events is final: the events the
 * recorder counted as lost in the file header or in LOST records,
 * whichever says more (trace_lost_events).
 */
#include <stdio.h>
#include <time.h>

#include "output/output.h"

static void put_hex(struct outbuf *out, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof buf, "\"0x%llx\"", (unsigned long long)v);
	outbuf_str(out, buf);
}

static void put_str_or_null(struct outbuf *out, const char *s)
{
	if (s)
		put_json_str(out, s, strlen(s));
	else
		outbuf_str(out, "null");
}

/* ISO 8601 in UTC with the nanoseconds. */
static void put_time(struct outbuf *out, uint64_t ns)
{
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;
	char buf[64];

	if (!ns || !gmtime_r(&secs, &tm)) {
		outbuf_str(out, "null");
		return;
	}
	snprintf(buf, sizeof buf, "\"%04d-%02d-%02dT%02d:%02d:%02d.%09uZ\"",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (unsigned)(ns % 1000000000u));
	outbuf_str(out, buf);
}

static void put_argv(struct outbuf *out, const struct trace *t)
{
	size_t i = 0;
	bool first = true;

	if (!t->argv) {
		outbuf_str(out, "null");
		return;
	}
	outbuf_putc(out, '[');
	while (i < t->argv_len) {
		size_t n = strnlen(t->argv + i, t->argv_len - i);
		if (!first)
			outbuf_str(out, ", ");
		put_json_str(out, t->argv + i, n);
		first = false;
		i += n + 1;
	}
	outbuf_putc(out, ']');
}

void json_header_put_process(struct outbuf *out, const struct trace *t,
			     const struct options *opts)
{
	static const char hex[] = "0123456789abcdef";
	const struct ctrace_file_header *h = &t->hdr;

	(void)opts;
	outbuf_str(out, "\n{\"trace\": ");
	put_json_str(out, t->path, strlen(t->path));
	outbuf_str(out, ", \"program\": ");
	put_str_or_null(out, t->exe);
	outbuf_str(out, ", \"command_line\": ");
	put_argv(out, t);
	outbuf_str(out, ", \"pid\": ");
	outbuf_u64(out, t->pid);
	outbuf_str(out, ", \"ppid\": ");
	outbuf_u64(out, t->ppid);
	outbuf_str(out, ", \"forked_from\": ");
	if (h->flags & CTRACE_FLAG_FORKED) {
		outbuf_str(out, "{\"pid\": ");
		outbuf_u64(out, h->parent_pid);
		outbuf_str(out, ", \"thread\": ");
		outbuf_u64(out, h->parent_thread);
		outbuf_putc(out, '}');
	} else {
		outbuf_str(out, "null");
	}
	/* where the process shows in the tree of the run: the process
	 * and thread that made it, when, and how */
	outbuf_str(out, ", \"started_by\": ");
	if (t->spawner) {
		static const char *const how[] = {
			[SPAWN_NONE] = "?", [SPAWN_FORK] = "fork",
			[SPAWN_EXEC] = "exec", [SPAWN_CHILD] = "child"};
		outbuf_str(out, "{\"pid\": ");
		outbuf_u64(out, t->spawner->pid);
		outbuf_str(out, ", \"tid\": ");
		outbuf_u64(out, t->spawner_tid);
		outbuf_str(out, ", \"trace\": ");
		put_json_str(out, t->spawner->path, strlen(t->spawner->path));
		outbuf_str(out, ", \"how\": \"");
		outbuf_str(out, how[t->how]);
		outbuf_str(out, "\", \"time\": ");
		outbuf_i64(out, trace_ns(t->spawner, t->spawn_ticks));
		outbuf_putc(out, '}');
	} else {
		outbuf_str(out, "null");
	}
	outbuf_str(out, ", \"recorded_at\": ");
	put_time(out, h->start_realtime_ns);
	outbuf_str(out, ", \"start_realtime_ns\": ");
	outbuf_u64(out, h->start_realtime_ns);
	outbuf_str(out, ", \"time_offset\": ");
	outbuf_i64(out, t->time_offset);
	outbuf_str(out, ",\n \"threads\": [");
	for (size_t i = 0; i < t->n_threads; i++) {
		const struct thread_info *ti = &t->threads[i];
		outbuf_str(out, i ? ", {\"serial\": " : "{\"serial\": ");
		outbuf_u64(out, ti->serial);
		outbuf_str(out, ", \"tid\": ");
		outbuf_u64(out, ti->tid);
		outbuf_str(out, ", \"name\": ");
		put_str_or_null(out, ti->name);
		outbuf_putc(out, '}');
	}
	outbuf_str(out, "],\n \"modules\": [");
	for (size_t i = 0; i < t->n_modules; i++) {
		const struct trace_module *m = &t->modules[i];
		outbuf_str(out, i ? ",\n  {\"path\": " : "\n  {\"path\": ");
		put_json_str(out, m->path, strlen(m->path));
		outbuf_str(out, ", \"start\": ");
		put_hex(out, m->start);
		outbuf_str(out, ", \"end\": ");
		put_hex(out, m->end);
		outbuf_str(out, ", \"load_bias\": ");
		put_hex(out, m->bias);
		outbuf_str(out, ", \"build_id\": ");
		if (m->build_id_len) {
			outbuf_putc(out, '"');
			for (size_t k = 0; k < m->build_id_len; k++) {
				outbuf_putc(out, hex[m->build_id[k] >> 4]);
				outbuf_putc(out, hex[m->build_id[k] & 15]);
			}
			outbuf_putc(out, '"');
		} else {
			outbuf_str(out, "null");
		}
		outbuf_putc(out, '}');
	}
	outbuf_str(out, "],\n \"lost_events\": ");
	outbuf_u64(out, trace_lost_events(t));
	outbuf_putc(out, '}');
}
