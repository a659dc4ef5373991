/* trace.c -- trace files: the header, the chunk index, the clock.
 *
 * Everything is read with pread, never mmap: a trace may be truncated or
 * still growing, and a mapping past the end of a file raises SIGBUS.  The
 * chunk headers are all read once, up front, to find out which chunks
 * belong to which stream; the chunks' data is read later, a window of a
 * few KiB at a time per stream (stream.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* SEEK_DATA */
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64 /* traces beyond 2 GiB on 32-bit hosts */
#endif
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/trace.h"

/* Chunks larger than this are refused: the metadata's chunks are read
 * whole, and the recorder's chunks are far smaller. */
#define MAX_CHUNK_SIZE (256u << 20)

/* A badly damaged trace is summed up in its first few problems. */
#define MAX_ERRORS 20

void trace_error(struct trace *t, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	t->damaged = true;
	if (t->quiet)
		return;
	if (++t->n_errors > MAX_ERRORS) {
		if (t->n_errors == MAX_ERRORS + 1)
			fprintf(stderr, PROGRAM_NAME ": %s: more problems, "
					"not shown\n", t->path);
		return;
	}
	fprintf(stderr, PROGRAM_NAME ": %s: ", t->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (offset != NO_OFFSET)
		fprintf(stderr, " at offset %llu", (unsigned long long)offset);
	fputc('\n', stderr);
}

/* Reads exactly n bytes at off, or fewer at the end of the file.  Returns
 * the count read, or -1 with errno set. */
static ssize_t pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got,
				  (off_t)(off + got));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int trace_read_part(struct trace *t, const struct chunk_ref *c, uint32_t from,
		    uint32_t n, void *buf)
{
	ssize_t r = pread_full(t->fd, buf, n, c->offset + from);

	if (r < 0) {
		trace_error(t, c->offset + from, "cannot read chunk: %s",
			    strerror(errno));
		return -1;
	}
	if ((size_t)r < n) /* the file shrank under us */
		memset((char *)buf + r, 0, n - (size_t)r);
	return 0;
}

int trace_read_chunk(struct trace *t, const struct chunk_ref *c, void *buf)
{
	return trace_read_part(t, c, 0, c->size, buf);
}

/* ---------------------------------------------------------------------------
 * File header
 * ------------------------------------------------------------------------ */

static bool is_power_of_two(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int check_header(struct trace *t)
{
	struct ctrace_file_header *h = &t->hdr;
	ssize_t n;

	memset(h, 0, sizeof *h);
	n = pread_full(t->fd, h, sizeof *h, 0);
	if (n < 0) {
		trace_error(t, NO_OFFSET, "cannot read: %s", strerror(errno));
		return -1;
	}
	if (n == 0) {
		trace_error(t, NO_OFFSET, "empty file, not a ctrace trace");
		return -1;
	}
	if ((size_t)n < sizeof h->magic ||
	    memcmp(h->magic, CTRACE_FILE_MAGIC, sizeof h->magic) != 0) {
		trace_error(t, NO_OFFSET, "not a ctrace trace");
		return -1;
	}
	if ((size_t)n < sizeof *h) {
		trace_error(t, (uint64_t)n, "truncated file header");
		return -1;
	}
	if (h->byte_order != CTRACE_BYTE_ORDER_MARK) {
		if (h->byte_order == __builtin_bswap32(CTRACE_BYTE_ORDER_MARK))
			trace_error(t, NO_OFFSET,
				    "trace written with the other byte order, "
				    "not supported");
		else
			trace_error(t, offsetof(struct ctrace_file_header,
						byte_order),
				    "bad byte order mark");
		return -1;
	}
	if (h->version_major > CTRACE_VERSION_MAJOR) {
		trace_error(t, NO_OFFSET,
			    "trace version %u.%u is newer than this symbolizer "
			    "(%u.%u)",
			    h->version_major, h->version_minor,
			    CTRACE_VERSION_MAJOR, CTRACE_VERSION_MINOR);
		return -1;
	}
	if (h->version_major < 1) {
		trace_error(t, NO_OFFSET, "unsupported trace version %u.%u",
			    h->version_major, h->version_minor);
		return -1;
	}
	if (h->pointer_size != 4 && h->pointer_size != 8) {
		trace_error(t, offsetof(struct ctrace_file_header, pointer_size),
			    "bad pointer size %u", h->pointer_size);
		return -1;
	}
	if (h->machine == 0) {
		trace_error(t, offsetof(struct ctrace_file_header, machine),
			    "no machine type");
		return -1;
	}
	if (h->clock != CTRACE_CLOCK_TSC && h->clock != CTRACE_CLOCK_MONOTONIC) {
		trace_error(t, offsetof(struct ctrace_file_header, clock),
			    "unknown clock %u", h->clock);
		return -1;
	}
	if (h->header_size < sizeof *h || h->header_size > MAX_CHUNK_SIZE) {
		trace_error(t, offsetof(struct ctrace_file_header, header_size),
			    "bad header size %u", h->header_size);
		return -1;
	}
	if (h->chunk_size < 4096 || !is_power_of_two(h->chunk_size) ||
	    h->chunk_size > MAX_CHUNK_SIZE) {
		trace_error(t, offsetof(struct ctrace_file_header, chunk_size),
			    "bad chunk size %u", h->chunk_size);
		return -1;
	}
	if (t->file_size < h->header_size) {
		trace_error(t, t->file_size, "truncated file header");
		return -1;
	}
	return 0;
}

/* TSC ticks: the rate measured between the start-up and the latest
 * calibration pair when they are far enough apart (an odd last_seq means
 * the recorder was updating the pair when the trace was cut), else the
 * recorder's start-up estimate. */
static void setup_clock(struct trace *t)
{
	const struct ctrace_file_header *h = &t->hdr;

	t->ticks_are_ns = h->clock == CTRACE_CLOCK_MONOTONIC;
	t->ns_per_tick = 1.0;
	if (t->ticks_are_ns)
		return;
	if (!(h->last_seq & 1) && h->last_ns >= h->base_ns + 1000000 &&
	    h->last_ticks > h->base_ticks) {
		t->ns_per_tick = (double)(h->last_ns - h->base_ns) /
				 (double)(h->last_ticks - h->base_ticks);
	} else if (h->ticks_per_sec) {
		t->ns_per_tick = 1e9 / (double)h->ticks_per_sec;
	} else {
		warn_msg(0, "%s: no clock calibration: durations are in "
			 "clock ticks", t->path);
	}
}

/* ---------------------------------------------------------------------------
 * Chunk index
 * ------------------------------------------------------------------------ */

static int chunk_cmp(const void *a, const void *b)
{
	const struct chunk_ref *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->kind != y->kind) /* META sorts before everything (thread 0) */
		return x->kind < y->kind ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Checks one chunk header; returns true when the chunk goes in the index. */
/* The size of a chunk header of the trace's format: before format 5, it
 * ended before flags. */
static size_t chunk_header_min(const struct trace *t)
{
	return t->hdr.version_major >= 5
		       ? sizeof(struct ctrace_chunk_header)
		       : offsetof(struct ctrace_chunk_header, flags);
}

static bool check_chunk(struct trace *t, const struct ctrace_chunk_header *ch,
			uint64_t off, uint64_t max_seq)
{
	if (ch->kind < CTRACE_CHUNK_EVENTS || ch->kind > CTRACE_CHUNK_META) {
		trace_error(t, off, "unknown chunk kind %u", ch->kind);
		return false;
	}
	if (ch->header_size < chunk_header_min(t) ||
	    ch->header_size > t->hdr.chunk_size) {
		trace_error(t, off, "bad chunk header size %u", ch->header_size);
		return false;
	}
	if ((ch->kind == CTRACE_CHUNK_META) != (ch->thread == 0)) {
		trace_error(t, off, "chunk of kind %u for thread %u", ch->kind,
			    ch->thread);
		return false;
	}
	if (ch->seq > max_seq) {
		trace_error(t, off, "impossible chunk sequence number %llu",
			    (unsigned long long)ch->seq);
		return false;
	}
	return true;
}

/* A chunk at `off` starts with zeros, perhaps in a hole of a sparse file:
 * returns the offset of the last chunk before the next data, so that the
 * scan's next step lands on it (the file's end when only a hole is left). */
static uint64_t skip_hole(struct trace *t, uint64_t off)
{
	uint64_t cs = t->hdr.chunk_size, first = t->hdr.header_size;
	off_t data = lseek(t->fd, (off_t)off, SEEK_DATA);

	if (data < 0)
		return errno == ENXIO ? t->file_size : off;
	if ((uint64_t)data < off + cs)
		return off;
	return first + ((uint64_t)data - first) / cs * cs - cs;
}

/* Reads every chunk header.  Chunks without the magic were never started
 * (a zero-filled or preallocated tail) and are skipped quietly; holes of a
 * sparse file are skipped with SEEK_DATA rather than read. */
static int scan_chunks(struct trace *t)
{
	uint64_t cs = t->hdr.chunk_size, off = t->hdr.header_size;
	uint64_t n_slots = (t->file_size - off + cs - 1) / cs;
	size_t cap = 0;

	for (; off < t->file_size; off += cs) {
		struct ctrace_chunk_header ch;
		uint64_t size;
		ssize_t n;

		memset(&ch, 0, sizeof ch);
		n = pread_full(t->fd, &ch, sizeof ch, off);
		if (n < 0) {
			trace_error(t, off, "cannot read: %s", strerror(errno));
			return -1;
		}
		if (ch.magic != CTRACE_CHUNK_MAGIC) {
			static const struct ctrace_chunk_header zero;
			if (!memcmp(&ch, &zero, sizeof ch))
				off = skip_hole(t, off);
			continue;
		}
		if ((size_t)n < chunk_header_min(t)) {
			trace_error(t, off, "truncated chunk");
			continue;
		}
		if (t->hdr.version_major < 5)
			ch.flags = 0;
		if (!check_chunk(t, &ch, off, n_slots - 1))
			continue;
		if (t->n_chunks == cap) {
			cap = cap ? 2 * cap : 64;
			t->chunks = must_realloc(t->chunks, cap, sizeof *t->chunks);
		}
		size = t->file_size - off < cs ? t->file_size - off : cs;
		if (size > t->max_chunk_bytes)
			t->max_chunk_bytes = (uint32_t)size;
		t->chunks[t->n_chunks++] = (struct chunk_ref){
			.offset = off,
			.seq = ch.seq,
			.base_time = ch.base_time,
			.thread = ch.thread,
			.tid = ch.tid,
			.kind = ch.kind,
			.header_size = ch.header_size,
			.flags = ch.flags,
			.size = (uint32_t)size, /* the last may be cut short */
		};
	}
	return 0;
}

/* The recorder publishes chunks_claimed only once the file covers the new
 * chunk, so a file that ends before the start of a claimed chunk was cut
 * (by a copy, a transfer, a full disk after the fact).  The size is taken
 * again now: a program still writing the trace may have grown it since the
 * header was read. */
static void check_length(struct trace *t)
{
	uint64_t cs = t->hdr.chunk_size, first = t->hdr.header_size;
	uint64_t claimed = t->hdr.chunks_claimed, size = t->file_size;
	struct stat st;

	if (fstat(t->fd, &st) == 0 && (uint64_t)st.st_size > size)
		size = (uint64_t)st.st_size;
	if (claimed > (size - first + cs - 1) / cs)
		trace_error(t, t->file_size,
			    "cut short (it holds %llu of the %llu chunks "
			    "the program wrote)",
			    (unsigned long long)((t->file_size - first +
						  cs - 1) / cs),
			    (unsigned long long)claimed);
}

/* An empty tree needs a reason: say what the file holds. */
static void report_no_events(struct trace *t)
{
	size_t meta = 0;

	if (t->quiet || t->n_threads)
		return;
	for (size_t i = 0; i < t->n_chunks; i++)
		meta += t->chunks[i].kind == CTRACE_CHUNK_META;
	if (meta)
		warn_msg(0, "%s: no events: the file holds its header and "
			 "%zu chunk%s of metadata", t->path, meta,
			 meta == 1 ? "" : "s");
	else
		warn_msg(0, "%s: no events: the file holds its header only",
			 t->path);
}

/* "thread 3", "the signal stream of thread 3", "the metadata". */
static const char *stream_name(const struct chunk_ref *c, char *buf,
			       size_t size)
{
	if (c->kind == CTRACE_CHUNK_META)
		return "the metadata";
	snprintf(buf, size, "%sthread %u",
		 c->kind == CTRACE_CHUNK_SIGNAL ? "the signal stream of " : "",
		 c->thread);
	return buf;
}

static bool same_stream(const struct chunk_ref *a, const struct chunk_ref *b)
{
	return a->thread == b->thread && a->kind == b->kind;
}

/* Sorts the index into streams, drops duplicated chunks and reports gaps:
 * the recorder numbers a stream's chunks 0, 1, 2... as it claims them. */
static void check_sequences(struct trace *t)
{
	size_t n = 0;
	char name[64];

	if (t->n_chunks)
		qsort(t->chunks, t->n_chunks, sizeof *t->chunks, chunk_cmp);
	for (size_t i = 0; i < t->n_chunks; i++) {
		const struct chunk_ref *c = &t->chunks[i];
		const struct chunk_ref *prev = n ? &t->chunks[n - 1] : NULL;
		uint64_t expect = prev && same_stream(prev, c) ? prev->seq + 1
							      : 0;

		if (c->seq + 1 == expect) {
			trace_error(t, c->offset,
				    "duplicate chunk %llu of %s (ignored)",
				    (unsigned long long)c->seq,
				    stream_name(c, name, sizeof name));
			continue;
		}
		if (c->seq == expect + 1)
			trace_error(t, c->offset, "chunk %llu of %s is missing",
				    (unsigned long long)expect,
				    stream_name(c, name, sizeof name));
		else if (c->seq != expect)
			trace_error(t, c->offset,
				    "chunks %llu to %llu of %s are missing",
				    (unsigned long long)expect,
				    (unsigned long long)c->seq - 1,
				    stream_name(c, name, sizeof name));
		t->chunks[n++] = *c;
	}
	t->n_chunks = n;
}

/* Splits the sorted index into the metadata and the threads' streams. */
static void build_streams(struct trace *t)
{
	size_t n_threads = 0;

	check_sequences(t);
	for (size_t i = 0; i < t->n_chunks; i++)
		if (t->chunks[i].thread &&
		    (!i || t->chunks[i - 1].thread != t->chunks[i].thread))
			n_threads++;
	t->threads = must_calloc(n_threads, sizeof *t->threads);

	for (size_t i = 0, j; i < t->n_chunks; i = j) {
		const struct chunk_ref *c = &t->chunks[i];
		struct chunk_span span;
		struct thread_info *ti;

		for (j = i + 1; j < t->n_chunks && same_stream(c, &t->chunks[j]);)
			j++;
		span = (struct chunk_span){c, j - i};
		if (c->kind == CTRACE_CHUNK_META) {
			t->meta = span;
			continue;
		}
		if (!t->n_threads ||
		    t->threads[t->n_threads - 1].serial != c->thread) {
			ti = &t->threads[t->n_threads++];
			ti->serial = c->thread;
			ti->tid = c->tid; /* until a THREAD record says */
		}
		ti = &t->threads[t->n_threads - 1];
		if (c->kind == CTRACE_CHUNK_EVENTS)
			ti->events = span;
		else
			ti->signal = span;
	}
}

/* ---------------------------------------------------------------------------
 * Opening and closing
 * ------------------------------------------------------------------------ */

int trace_open(struct trace *t, const char *path, bool quiet)
{
	struct stat st;

	memset(t, 0, sizeof *t);
	t->path = path;
	t->quiet = quiet;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0) {
		trace_error(t, NO_OFFSET, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(t->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		trace_error(t, NO_OFFSET, "not a regular file");
		goto fail;
	}
	t->file_size = (uint64_t)st.st_size;
	if (check_header(t) < 0)
		goto fail;
	setup_clock(t);
	t->sp_mask = t->hdr.pointer_size == 8 ? UINT64_MAX : UINT32_MAX;
	t->pid = t->hdr.pid;
	t->ppid = t->hdr.ppid;
	if (scan_chunks(t) < 0)
		goto fail;
	check_length(t);
	build_streams(t);
	report_no_events(t);

	meta_read(t);
	return 0;
fail:
	close(t->fd);
	t->fd = -1;
	return -1;
}

void trace_close(struct trace *t)
{
	for (size_t i = 0; i < t->n_threads; i++)
		free(t->threads[i].name);
	free(t->threads);
	free(t->chunks);
	free(t->exe);
	for (size_t i = 0; i < t->n_modules; i++)
		free(t->modules[i].path);
	free(t->modules);
	free(t->module_events);
	for (size_t i = 0; i < t->n_plt_slots; i++)
		free(t->plt_slots[i].name);
	free(t->plt_slots);
	free(t->argv);
	free(t->settings);
	free(t->inherited);
	free(t->nest_key);
	free(t->spawn_points);
	free(t->owned_path);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

/* The recorder counts every lost event in the header as well as writing a
 * LOST record where it could: the two count the same events, so the total
 * is the larger of them, not their sum.  The header wins when LOST records
 * could not be written (no chunk left); the records win when the trace was
 * cut before the header's counter was last updated. */
bool trace_chunk_is_cut(const struct trace *t, const struct chunk_ref *c)
{
	/* final_size: the length the recorder gave the file when it
	 * finished it, ending the last chunk early (format 5). */
	bool ended_early = t->hdr.version_major >= 5 &&
			   (t->hdr.flags & CTRACE_FLAG_FINALIZED) &&
			   t->hdr.final_size != 0 &&
			   t->hdr.final_size % 4096 == 0 &&
			   t->hdr.final_size == t->file_size;
	return c->size < t->hdr.chunk_size && !ended_early;
}

uint64_t trace_lost_events(const struct trace *t)
{
	return t->hdr.lost_events > t->lost_recorded ? t->hdr.lost_events
						      : t->lost_recorded;
}

uint64_t trace_lost_unplaced(const struct trace *t)
{
	return t->hdr.lost_events > t->lost_recorded
		       ? t->hdr.lost_events - t->lost_recorded
		       : 0;
}

const char *trace_lost_reason_text(unsigned reason)
{
	switch (reason) {
	case CTRACE_LOST_NO_SPACE:
		return "no space left on device";
	case CTRACE_LOST_NO_MEMORY:
		return "the trace file could not be mapped";
	case CTRACE_LOST_NESTED:
		return "nested signal handlers";
	case CTRACE_LOST_TOO_LARGE:
		return "the trace reached its size limit";
	case CTRACE_LOST_JUMPED:
		return "a jump out of a signal handler interrupted the recorder";
	case CTRACE_LOST_EARLY:
		return "IFUNC resolvers ran before the environment was set up";
	case CTRACE_LOST_RETURNS:
		return "library calls while the recorder's list of calls "
		       "waiting to return was full";
	default:
		return "unknown reason";
	}
}
