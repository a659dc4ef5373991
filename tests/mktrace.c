/* mktrace.c -- writes synthetic ctrace traces, valid or deliberately not.
 *
 *   mktrace OUTPUT [SCRIPT]          trace described by SCRIPT (or stdin)
 *   mktrace --synthetic=EVENTS [--threads=N] [--chunk-size=BYTES]
 *           [--clock=tsc|monotonic] [--module=PATH] OUTPUT
 *                                    a large trace of random call trees, for
 *                                    benchmarks
 *
 * A script has one command per line; '#' starts a comment.  Numbers are
 * decimal or 0x-hex.  Streams are selected, then records appended to the
 * selected stream's current chunk; a full chunk continues in a new one.
 * Chunks are laid out in the file in the order they are opened.
 *
 *   header KEY=VALUE...   file header fields: magic=TEXT version=MAJ.MIN
 *                         byte_order machine pointer_size clock=tsc|monotonic|N
 *                         header_size chunk_size pid ppid flags base_ticks
 *                         base_ns ticks_per_sec last_seq last_ticks last_ns
 *                         chunks_claimed lost_events final_size (default: a valid 1.0
 *                         header, MONOTONIC clock, 4096-byte chunks)
 *   meta [new] [seq=N]                      select the metadata stream
 *   events THREAD [tid=N] [new] [seq=N] [base=TICKS] [kind=N] [flags=N]
 *   signal THREAD [tid=N] [new] [seq=N] [base=TICKS]
 *                         select a thread's event or signal stream; "new"
 *                         starts a new chunk; seq/base/kind/flags
 *                         override the new chunk's header
 *   unstarted             the current chunk's magic is left zero
 *   enter FN SITE [+DELTA|@TICKS] [sp=ADDR]
 *                         ENTRY (DEFINE first when needed); the default
 *                         delta is +10; without sp=, the stack pointer is
 *                         the chunk's previous ENTRY's (0: unknown)
 *   leave FN SITE [+DELTA|@TICKS]  EXIT
 *   define SLOT FN SITE / entry SLOT [+DELTA] [sp=ADDR] / exit SLOT [+DELTA]
 *                         the raw records, slots chosen by hand
 *   lost COUNT REASON [FIRST LAST]
 *   thread_end [TICKS]
 *   process PID PPID PATH [ticks=T]
 *   module PATH START END [bias=B] [ticks=T] [build_id=HEX]
 *   module_gone START [ticks=T]
 *   thread SERIAL TID [NAME] [ticks=T]
 *   argv ARG...
 *   ext TYPE [HEX]        an extended record with the given payload
 *   raw HEX               bytes, as they are
 *   truncate SIZE | -N    cut the finished file to SIZE bytes, or by N
 *
 * In a word, \xHH stands for the byte HH (any byte but NUL): names with
 * spaces, control characters or bytes that are not UTF-8.
 *
 * It needs nothing but ctrace_format.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrace_format.h"
#include "leb128.h"

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("mktrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---------------------------------------------------------------------------
 * The file being written
 * ------------------------------------------------------------------------ */

struct stream {
	uint16_t kind;
	uint32_t thread, tid;
	uint64_t next_seq;
	uint64_t time;
	uint64_t last_sp; /* of the chunk's previous ENTRY */
	bool has_chunk;
	uint64_t chunk_offset;
	struct ctrace_chunk_header ch;
	bool unstarted;
	uint8_t *buf; /* chunk_size bytes */
	size_t used;
	/* auto-assigned slots of the current chunk */
	uint64_t slot_fn[CTRACE_V1_PAIR_SLOTS], slot_site[CTRACE_V1_PAIR_SLOTS];
	bool slot_used[CTRACE_V1_PAIR_SLOTS];
	unsigned next_slot;
};

static int out_fd;
static struct ctrace_file_header hdr;
static uint64_t n_chunks;
static struct stream **streams;
static size_t n_streams;
static struct stream *cur;

static void pwrite_all(const void *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(out_fd, p, n, (off_t)off);
		if (w < 0)
			die("write: %s", strerror(errno));
		p = (const char *)p + w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
}

static void flush_chunk(struct stream *s)
{
	if (!s->has_chunk)
		return;
	s->ch.magic = s->unstarted ? 0 : CTRACE_CHUNK_MAGIC;
	memcpy(s->buf, &s->ch, sizeof s->ch);
	pwrite_all(s->buf, hdr.chunk_size, s->chunk_offset);
	s->has_chunk = false;
}

static struct stream *get_stream(uint16_t kind, uint32_t thread)
{
	for (size_t i = 0; i < n_streams; i++)
		if (streams[i]->kind == kind && streams[i]->thread == thread)
			return streams[i];
	streams = realloc(streams, (n_streams + 1) * sizeof *streams);
	struct stream *s = calloc(1, sizeof *s);
	if (!streams || !s)
		die("out of memory");
	s->kind = kind;
	s->thread = thread;
	s->tid = 1000 + thread;
	s->time = hdr.base_ticks;
	streams[n_streams++] = s;
	return s;
}

static void new_chunk(struct stream *s)
{
	flush_chunk(s);
	if (!s->buf) {
		s->buf = malloc(hdr.chunk_size);
		if (!s->buf)
			die("out of memory");
	}
	memset(s->buf, 0, hdr.chunk_size);
	s->chunk_offset = hdr.header_size + n_chunks++ * (uint64_t)hdr.chunk_size;
	s->ch = (struct ctrace_chunk_header){
		.kind = s->kind,
		.header_size = sizeof(struct ctrace_chunk_header),
		.thread = s->thread,
		.tid = s->tid,
		.seq = s->next_seq++,
		.base_time = s->time,
	};
	s->used = sizeof(struct ctrace_chunk_header);
	s->last_sp = 0;
	s->has_chunk = true;
	s->unstarted = false;
	memset(s->slot_used, 0, sizeof s->slot_used);
	s->next_slot = 1;
}

/* Room for n more bytes in the current chunk (a new one if needed). */
static uint8_t *room(size_t n)
{
	if (!cur)
		die("no stream selected (meta, events or signal first)");
	if (n > hdr.chunk_size - sizeof(struct ctrace_chunk_header))
		die("record of %zu bytes does not fit in a chunk", n);
	if (!cur->has_chunk || cur->used + n > hdr.chunk_size)
		new_chunk(cur);
	uint8_t *p = cur->buf + cur->used;
	cur->used += n;
	return p;
}

static size_t put_uleb(uint8_t *p, uint64_t v)
{
	return (size_t)(ctrace__uleb_put(p, v) - p);
}

/* An extended record, whole in one chunk. */
static void put_ext(uint8_t type, const void *payload, size_t len)
{
	uint8_t head[12];
	size_t n = 0;

	head[n++] = CTRACE_TAG_EXTENDED;
	head[n++] = type;
	n += put_uleb(head + n, len);
	uint8_t *p = room(n + len);
	memcpy(p, head, n);
	memcpy(p + n, payload, len);
}

static size_t put_sleb(uint8_t *p, int64_t v)
{
	return (size_t)(ctrace__sleb_put(p, v) - p);
}

/* ENTRY or EXIT; an ENTRY also gets the stack delta (sp 0: the same as the
 * chunk's previous ENTRY, so "unknown" when no ENTRY of the chunk had one). */
static void put_timed(uint8_t tag, uint64_t t, uint64_t sp)
{
	uint8_t buf[24];
	size_t n;

	if (t < cur->time)
		die("time goes backwards (%llu < %llu)", (unsigned long long)t,
		    (unsigned long long)cur->time);
	buf[0] = tag;
	n = 1 + put_uleb(buf + 1, t - cur->time);
	if (!(tag & CTRACE_TAG_EXIT_BIT)) {
		if (!sp)
			sp = cur->last_sp;
		n += put_sleb(buf + n, ((int64_t)sp - (int64_t)cur->last_sp) /
					       (int64_t)hdr.pointer_size);
		cur->last_sp = sp;
	}
	memcpy(room(n), buf, n);
	cur->time = t;
}

static void put_define(unsigned slot, uint64_t fn, uint64_t site)
{
	uint8_t pl[17];

	pl[0] = (uint8_t)slot;
	memcpy(pl + 1, &fn, 8);
	memcpy(pl + 9, &site, 8);
	put_ext(CTRACE_REC_DEFINE, pl, sizeof pl);
}

/* ENTRY or EXIT of (fn, site), defining a slot in this chunk when none
 * holds the pair, the way the recorder does. */
static void put_event(bool exit, uint64_t fn, uint64_t site, uint64_t t,
		      uint64_t sp)
{
	unsigned slot = 0;

	/* DEFINE and the event must land in the same chunk */
	if (!cur->has_chunk ||
	    cur->used + CTRACE_MAX_EVENT_BYTES > hdr.chunk_size)
		new_chunk(cur);
	for (unsigned i = 1; i < CTRACE_V1_PAIR_SLOTS; i++)
		if (cur->slot_used[i] && cur->slot_fn[i] == fn &&
		    cur->slot_site[i] == site) {
			slot = i;
			break;
		}
	if (!slot) {
		slot = cur->next_slot;
		cur->next_slot = slot % (CTRACE_V1_PAIR_SLOTS - 1) + 1;
		cur->slot_used[slot] = true;
		cur->slot_fn[slot] = fn;
		cur->slot_site[slot] = site;
		put_define(slot, fn, site);
	}
	put_timed((uint8_t)(slot | (exit ? CTRACE_TAG_EXIT_BIT : 0)), t, sp);
}

static void finish_file(void)
{
	for (size_t i = 0; i < n_streams; i++)
		flush_chunk(streams[i]);
	if (!hdr.chunks_claimed)
		hdr.chunks_claimed = n_chunks;
	uint8_t *page = calloc(1, hdr.header_size < sizeof hdr ? sizeof hdr
								: hdr.header_size);
	if (!page)
		die("out of memory");
	memcpy(page, &hdr, sizeof hdr);
	pwrite_all(page, hdr.header_size < sizeof hdr ? sizeof hdr : hdr.header_size,
		   0);
	free(page);
	if (ftruncate(out_fd, (off_t)(hdr.header_size +
				      n_chunks * (uint64_t)hdr.chunk_size)) < 0)
		die("ftruncate: %s", strerror(errno));
}

static void default_header(void)
{
	memcpy(hdr.magic, CTRACE_FILE_MAGIC, sizeof hdr.magic);
	/* Format 1.1: slots defined by DEFINE records, which format 2
	 * readers still read (the recorder writes NEW tags instead). */
	hdr.version_major = 1;
	hdr.version_minor = 1;
	hdr.byte_order = CTRACE_BYTE_ORDER_MARK;
	hdr.machine = 62;
	hdr.pointer_size = 8;
	hdr.clock = CTRACE_CLOCK_MONOTONIC;
	hdr.header_size = CTRACE_HEADER_SIZE;
	hdr.chunk_size = 4096;
	hdr.pid = 4242;
	hdr.ppid = 1;
	hdr.flags = CTRACE_FLAG_FINALIZED;
	hdr.base_ticks = 1000;
	hdr.base_ns = 1000;
	hdr.ticks_per_sec = 1000000000;
}

/* ---------------------------------------------------------------------------
 * Scripts
 * ------------------------------------------------------------------------ */

static unsigned line_no;

static uint64_t num(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("line %u: bad number '%s'", line_no, s);
	return v;
}

static size_t hex_bytes(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (; s[0] && s[1]; s += 2) {
		unsigned v;
		if (sscanf(s, "%2x", &v) != 1)
			die("line %u: bad hex '%s'", line_no, s);
		if (n == cap)
			die("line %u: too many bytes", line_no);
		out[n++] = (uint8_t)v;
	}
	if (*s)
		die("line %u: odd number of hex digits", line_no);
	return n;
}

/* "key=value" in args[from..n); NULL when absent. */
static const char *opt(char **args, int n, int from, const char *key)
{
	size_t k = strlen(key);

	for (int i = from; i < n; i++)
		if (!strncmp(args[i], key, k) && args[i][k] == '=')
			return args[i] + k + 1;
	return NULL;
}

static bool flag(char **args, int n, int from, const char *word)
{
	for (int i = from; i < n; i++)
		if (!strcmp(args[i], word))
			return true;
	return false;
}

/* The time of an event: +DELTA, @TICKS, or 10 after the last one. */
static uint64_t when(char **args, int n, int i)
{
	for (; i < n; i++) {
		if (args[i][0] == '+')
			return cur->time + num(args[i] + 1);
		if (args[i][0] == '@')
			return num(args[i] + 1);
	}
	return cur->time + 10;
}

static void set_header_field(const char *kv)
{
	const char *eq = strchr(kv, '=');
	const char *v;
	size_t k;

	if (!eq)
		die("line %u: expected KEY=VALUE, not '%s'", line_no, kv);
	k = (size_t)(eq - kv);
	v = eq + 1;
#define FIELD(name)                                                  \
	if (k == strlen(#name) && !strncmp(kv, #name, k)) {          \
		hdr.name = (__typeof__(hdr.name))num(v);             \
		return;                                              \
	}
	if (k == 5 && !strncmp(kv, "magic", 5)) {
		memset(hdr.magic, 0, sizeof hdr.magic);
		memcpy(hdr.magic, v, strnlen(v, sizeof hdr.magic));
		return;
	}
	if (k == 7 && !strncmp(kv, "version", 7)) {
		unsigned maj, min;
		if (sscanf(v, "%u.%u", &maj, &min) != 2)
			die("line %u: version=MAJOR.MINOR", line_no);
		hdr.version_major = (uint16_t)maj;
		hdr.version_minor = (uint16_t)min;
		return;
	}
	if (k == 5 && !strncmp(kv, "clock", 5)) {
		hdr.clock = !strcmp(v, "tsc")         ? CTRACE_CLOCK_TSC
			    : !strcmp(v, "monotonic") ? CTRACE_CLOCK_MONOTONIC
						      : (uint8_t)num(v);
		return;
	}
	FIELD(byte_order)
	FIELD(machine)
	FIELD(pointer_size)
	FIELD(header_size)
	FIELD(chunk_size)
	FIELD(pid)
	FIELD(ppid)
	FIELD(flags)
	FIELD(start_realtime_ns)
	FIELD(base_ticks)
	FIELD(base_ns)
	FIELD(ticks_per_sec)
	FIELD(last_seq)
	FIELD(last_ticks)
	FIELD(last_ns)
	FIELD(chunks_claimed)
	FIELD(lost_events)
	FIELD(final_size)
	FIELD(parent_ticks)
	FIELD(parent_pid)
	FIELD(parent_thread)
#undef FIELD
	die("line %u: unknown header field '%.*s'", line_no, (int)k, kv);
}

static void select_stream(char **a, int n, uint16_t kind)
{
	uint32_t thread = kind == CTRACE_CHUNK_META ? 0 : (uint32_t)num(a[1]);
	const char *v;

	cur = get_stream(kind, thread);
	if ((v = opt(a, n, 1, "tid")))
		cur->tid = (uint32_t)num(v);
	if ((v = opt(a, n, 1, "seq")))
		cur->next_seq = num(v);
	if ((v = opt(a, n, 1, "base")))
		cur->time = num(v);
	if (!cur->has_chunk || flag(a, n, 1, "new") || opt(a, n, 1, "seq") ||
	    opt(a, n, 1, "base") || opt(a, n, 1, "kind") ||
	    opt(a, n, 1, "flags"))
		new_chunk(cur);
	if ((v = opt(a, n, 1, "kind")))
		cur->ch.kind = (uint16_t)num(v);
	if ((v = opt(a, n, 1, "flags")))
		cur->ch.flags = (uint32_t)num(v);
}

static void need(int n, int min, const char *usage)
{
	if (n < min)
		die("line %u: usage: %s", line_no, usage);
}

/* Ticks of a metadata record: ticks=T, else the header's base. */
static uint64_t meta_ticks(char **a, int n, int from)
{
	const char *v = opt(a, n, from, "ticks");
	return v ? num(v) : hdr.base_ticks;
}

static void run_command(char **a, int n)
{
	uint8_t pl[4096];
	size_t len;

	if (!strcmp(a[0], "header")) {
		for (int i = 1; i < n; i++)
			set_header_field(a[i]);
	} else if (!strcmp(a[0], "meta")) {
		select_stream(a, n, CTRACE_CHUNK_META);
	} else if (!strcmp(a[0], "events")) {
		need(n, 2, "events THREAD [tid=N] [new] [seq=N] [base=T]");
		select_stream(a, n, CTRACE_CHUNK_EVENTS);
	} else if (!strcmp(a[0], "signal")) {
		need(n, 2, "signal THREAD [tid=N] [new] [seq=N] [base=T]");
		select_stream(a, n, CTRACE_CHUNK_SIGNAL);
	} else if (!strcmp(a[0], "unstarted")) {
		room(0);
		cur->unstarted = true;
	} else if (!strcmp(a[0], "enter") || !strcmp(a[0], "leave")) {
		need(n, 3, "enter|leave FN SITE [+DELTA|@TICKS]");
		room(0);
		const char *sp = opt(a, n, 3, "sp");
		put_event(a[0][0] == 'l', num(a[1]), num(a[2]), when(a, n, 3),
			  sp ? num(sp) : 0);
	} else if (!strcmp(a[0], "define")) {
		need(n, 4, "define SLOT FN SITE");
		put_define((unsigned)num(a[1]), num(a[2]), num(a[3]));
	} else if (!strcmp(a[0], "entry") || !strcmp(a[0], "exit")) {
		need(n, 2, "entry|exit SLOT [+DELTA|@TICKS]");
		room(0);
		const char *sp = opt(a, n, 2, "sp");
		put_timed((uint8_t)(num(a[1]) |
				    (a[0][1] == 'x' ? CTRACE_TAG_EXIT_BIT : 0)),
			  when(a, n, 2), sp ? num(sp) : 0);
	} else if (!strcmp(a[0], "lost")) {
		need(n, 3, "lost COUNT REASON [FIRST LAST]");
		uint64_t first = n > 3 ? num(a[3]) : cur ? cur->time : 0;
		uint64_t last = n > 4 ? num(a[4]) : first;
		len = put_uleb(pl, num(a[1]));
		pl[len++] = (uint8_t)num(a[2]);
		memcpy(pl + len, &first, 8);
		memcpy(pl + len + 8, &last, 8);
		put_ext(CTRACE_REC_LOST, pl, len + 16);
	} else if (!strcmp(a[0], "thread_end")) {
		room(0);
		uint64_t t = n > 1 ? num(a[1]) : cur->time;
		put_ext(CTRACE_REC_THREAD_END, &t, 8);
	} else if (!strcmp(a[0], "process")) {
		need(n, 4, "process PID PPID PATH");
		uint64_t t = meta_ticks(a, n, 4);
		uint32_t pid = (uint32_t)num(a[1]), ppid = (uint32_t)num(a[2]);
		len = strnlen(a[3], 4000);
		memcpy(pl, &t, 8);
		memcpy(pl + 8, &pid, 4);
		memcpy(pl + 12, &ppid, 4);
		memcpy(pl + 16, a[3], len);
		put_ext(CTRACE_REC_PROCESS, pl, 16 + len);
	} else if (!strcmp(a[0], "module")) {
		need(n, 4, "module PATH START END [bias=B] [ticks=T] "
			   "[build_id=HEX]");
		uint64_t f[4] = {meta_ticks(a, n, 4), 0, num(a[2]), num(a[3])};
		const char *v;
		if ((v = opt(a, n, 4, "bias")))
			f[1] = num(v);
		memcpy(pl, f, 32);
		len = 33;
		pl[32] = 0;
		if ((v = opt(a, n, 4, "build_id"))) {
			pl[32] = (uint8_t)hex_bytes(v, pl + 33, 255);
			len += pl[32];
		}
		memcpy(pl + len, a[1], strnlen(a[1], 3000));
		put_ext(CTRACE_REC_MODULE, pl, len + strnlen(a[1], 3000));
	} else if (!strcmp(a[0], "module_gone")) {
		need(n, 2, "module_gone START [ticks=T]");
		uint64_t f[2] = {meta_ticks(a, n, 2), num(a[1])};
		put_ext(CTRACE_REC_MODULE_GONE, f, 16);
	} else if (!strcmp(a[0], "thread")) {
		need(n, 3, "thread SERIAL TID [NAME] [ticks=T]");
		uint64_t t = meta_ticks(a, n, 3);
		uint32_t ids[2] = {(uint32_t)num(a[1]), (uint32_t)num(a[2])};
		const char *name = n > 3 && !strchr(a[3], '=') ? a[3] : "";
		memcpy(pl, &t, 8);
		memcpy(pl + 8, ids, 8);
		len = strnlen(name, 1000);
		memcpy(pl + 16, name, len);
		put_ext(CTRACE_REC_THREAD, pl, 16 + len);
	} else if (!strcmp(a[0], "argv")) {
		len = 0;
		for (int i = 1; i < n; i++) {
			size_t k = strnlen(a[i], 1000);
			if (len + k + 1 > sizeof pl)
				die("line %u: argv too long", line_no);
			memcpy(pl + len, a[i], k + 1);
			len += k + 1;
		}
		put_ext(CTRACE_REC_ARGV, pl, len);
	} else if (!strcmp(a[0], "ext")) {
		need(n, 2, "ext TYPE [HEX]");
		len = n > 2 ? hex_bytes(a[2], pl, sizeof pl) : 0;
		put_ext((uint8_t)num(a[1]), pl, len);
	} else if (!strcmp(a[0], "raw")) {
		need(n, 2, "raw HEX");
		len = hex_bytes(a[1], pl, sizeof pl);
		memcpy(room(len), pl, len);
	} else {
		die("line %u: unknown command '%s'", line_no, a[0]);
	}
}

/* \xHH in a word, in place. */
static char *unescape(char *word)
{
	char *r = word, *w = word;

	while (*r) {
		unsigned v;
		if (r[0] == '\\' && r[1] == 'x' && isxdigit((unsigned char)r[2]) &&
		    isxdigit((unsigned char)r[3]) &&
		    sscanf(r + 2, "%2x", &v) == 1 && v != 0) {
			*w++ = (char)v;
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return word;
}

static void run_script(FILE *f)
{
	char line[8192];
	const char *truncate_to = NULL;
	static char truncate_buf[64];

	while (fgets(line, sizeof line, f)) {
		char *args[64], *save = NULL, *tok;
		int n = 0;

		line_no++;
		*strchrnul(line, '#') = '\0';
		for (tok = strtok_r(line, " \t\r\n", &save); tok && n < 64;
		     tok = strtok_r(NULL, " \t\r\n", &save))
			args[n++] = unescape(tok);
		if (!n)
			continue;
		if (!strcmp(args[0], "truncate")) {
			need(n, 2, "truncate SIZE|-N");
			snprintf(truncate_buf, sizeof truncate_buf, "%s",
				 args[1]);
			truncate_to = truncate_buf;
			continue;
		}
		run_command(args, n);
	}
	finish_file();
	if (truncate_to) {
		uint64_t size = hdr.header_size + n_chunks * (uint64_t)hdr.chunk_size;
		if (truncate_to[0] == '-')
			size -= num(truncate_to + 1);
		else
			size = num(truncate_to);
		if (ftruncate(out_fd, (off_t)size) < 0)
			die("ftruncate: %s", strerror(errno));
	}
}

/* ---------------------------------------------------------------------------
 * Synthetic traces for benchmarks
 * ------------------------------------------------------------------------ */

#define SYN_FUNCS 64
#define SYN_MAX_DEPTH 24
#define SYN_BASE 0x401000u

static uint64_t rng_state = 0x853c49e6748fea9bu;

static uint32_t rng(void)
{
	rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
	return (uint32_t)(rng_state >> 33);
}

struct syn_thread {
	struct stream *s;
	uint64_t stack_fn[SYN_MAX_DEPTH], stack_site[SYN_MAX_DEPTH];
	unsigned depth;
};

/* Random call trees with about as many leaf calls as inner ones, in a
 * program of SYN_FUNCS functions; threads take turns, one event each. */
static void synthetic(uint64_t events, unsigned n_threads, const char *module)
{
	struct syn_thread *th = calloc(n_threads, sizeof *th);
	uint64_t now = hdr.base_ticks;

	if (!th)
		die("out of memory");
	cur = get_stream(CTRACE_CHUNK_META, 0);
	{
		char *a[] = {"process", "4242", "1", (char *)module};
		run_command(a, 4);
	}
	{
		char start[32], end[32];
		snprintf(start, sizeof start, "%#x", SYN_BASE);
		snprintf(end, sizeof end, "%#x", SYN_BASE + SYN_FUNCS * 0x100);
		char *a[] = {"module", (char *)module, start, end};
		run_command(a, 4);
	}
	for (unsigned i = 0; i < n_threads; i++) {
		char serial[16], tid[16];
		snprintf(serial, sizeof serial, "%u", i + 1);
		snprintf(tid, sizeof tid, "%u", 5000 + i);
		char *a[] = {"thread", serial, tid};
		cur = get_stream(CTRACE_CHUNK_META, 0);
		run_command(a, 3);
		th[i].s = get_stream(CTRACE_CHUNK_EVENTS, i + 1);
		th[i].s->tid = 5000 + i;
	}
	for (uint64_t e = 0; e < events; e++) {
		struct syn_thread *t = &th[e % n_threads];
		bool enter = t->depth == 0 ||
			     (t->depth < SYN_MAX_DEPTH && rng() % 100 < 50);
		uint64_t remaining = events - e;

		if (remaining <= t->depth * (uint64_t)n_threads)
			enter = false; /* leave room to close every call */
		if (!enter && t->depth == 0)
			continue;
		now += 1 + rng() % 40;
		cur = t->s;
		if (enter) {
			/* each function calls four others, each from its own
			 * call site: a program's few hundred distinct pairs */
			unsigned parent = t->depth ? (unsigned)((t->stack_fn[t->depth - 1] -
								 SYN_BASE) / 0x100)
						   : 0;
			unsigned k = rng() % 4;
			uint64_t fn = SYN_BASE +
				      (parent * 7 + k * 13 + 1) % SYN_FUNCS * 0x100;
			uint64_t site = SYN_BASE + parent * 0x100 + 0x10 + k * 8;
			t->stack_fn[t->depth] = fn;
			t->stack_site[t->depth++] = site;
			put_event(false, fn, site, now,
				  0x7ffffffde000u - t->depth * 48u);
		} else {
			t->depth--;
			put_event(true, t->stack_fn[t->depth],
				  t->stack_site[t->depth], now, 0);
		}
		/* a full chunk goes to the file at once: memory stays small */
	}
	for (unsigned i = 0; i < n_threads; i++) {
		cur = th[i].s;
		if (cur->has_chunk) {
			uint64_t t = now;
			put_ext(CTRACE_REC_THREAD_END, &t, 8);
		}
	}
	hdr.last_ticks = now;
	hdr.last_ns = hdr.base_ns + (now - hdr.base_ticks);
	finish_file();
	free(th);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"synthetic", required_argument, NULL, 's'},
		{"threads", required_argument, NULL, 't'},
		{"chunk-size", required_argument, NULL, 'c'},
		{"clock", required_argument, NULL, 'k'},
		{"module", required_argument, NULL, 'm'},
		{NULL, 0, NULL, 0},
	};
	uint64_t events = 0;
	unsigned threads = 1;
	const char *module = "/nonexistent/synthetic-program";
	bool syn = false;
	int c;

	default_header();
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			syn = true;
			events = num(optarg);
			break;
		case 't':
			threads = (unsigned)num(optarg);
			break;
		case 'c':
			hdr.chunk_size = (uint32_t)num(optarg);
			break;
		case 'k':
			hdr.clock = !strcmp(optarg, "tsc") ? CTRACE_CLOCK_TSC
							   : CTRACE_CLOCK_MONOTONIC;
			break;
		case 'm':
			module = optarg;
			break;
		default:
			die("usage: mktrace OUTPUT [SCRIPT] | mktrace "
			    "--synthetic=EVENTS [--threads=N] OUTPUT");
		}
	}
	if (optind >= argc || threads == 0)
		die("usage: mktrace OUTPUT [SCRIPT] | mktrace "
		    "--synthetic=EVENTS [--threads=N] OUTPUT");
	out_fd = open(argv[optind], O_RDWR | O_CREAT | O_TRUNC, 0666);
	if (out_fd < 0)
		die("%s: %s", argv[optind], strerror(errno));
	if (syn) {
		if (hdr.clock == CTRACE_CLOCK_TSC)
			hdr.ticks_per_sec = 1000000000;
		synthetic(events, threads, module);
	} else {
		FILE *f = stdin;
		if (optind + 1 < argc && !(f = fopen(argv[optind + 1], "r")))
			die("%s: %s", argv[optind + 1], strerror(errno));
		run_script(f);
	}
	if (close(out_fd) < 0)
		die("close: %s", strerror(errno));
	return 0;
}
