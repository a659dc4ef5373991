/* stream.c -- event streams: chunk switching, lost events, extended
 * records.  The process metadata stream is meta.c's. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

/* A stream's first chunk is reserved on disk this much at first. */
#define FIRST_PIECE 4096u

/* ---------------------------------------------------------------------------
 * Streams
 * ------------------------------------------------------------------------ */

void ctrace__stream_init(struct ctrace__stream *s, uint16_t kind,
			 uint32_t thread, uint32_t tid)
{
	struct ctrace__pair *wide = s->wide; /* a thread's, kept */
	memset(s, 0, sizeof *s);
	s->wide = wide;
	/* Kept in a fork()ed child with the parent's pairs, which the
	 * child's file never defined: emptied with the table. */
	s->wide_used = wide != NULL;
	s->kind = kind;
	s->thread = thread;
	s->tid = tid;
}

void ctrace__pairs_reset(struct ctrace__stream *s)
{
	memset(s->pair, 0, sizeof s->pair);
	memset(s->credit, 0, sizeof s->credit);
	if (s->wide_used)
		memset(s->wide, 0, CTRACE_PAIR_HOMES * sizeof *s->wide);
	s->wide_used = 0;
}

/* Writes a record known to fit between cur and chunk_end. */
static void put_record(struct ctrace__stream *s, uint8_t type,
		       const void *payload, size_t len)
{
	uint8_t *p = s->cur;
	size_t n = 1;
	p[n++] = type;
	n = (size_t)(ctrace__uleb_put(p + n, len) - p);
	memcpy(p + n, payload, len);
	n += len;
	ctrace__barrier();
	p[0] = CTRACE_TAG_EXTENDED;
	s->cur = p + n;
}

static void put_lost_record(struct ctrace__stream *s)
{
	uint8_t b[1 + 10 + 16];
	size_t n = (size_t)(ctrace__uleb_put(b, s->lost) - b);
	b[n++] = s->lost_reason ? s->lost_reason : CTRACE_LOST_NO_SPACE;
	memcpy(b + n, &s->lost_first, 8);
	memcpy(b + n + 8, &s->lost_last, 8);
	n += 16;
	put_record(s, CTRACE_REC_LOST, b, n);
	s->lost = 0;
	s->lost_reason = 0;
}

/* Faults in the pages a stream is about to write, one system call for
 * them all, rather than one page fault per 4 KiB page amid its events
 * (each a trap, a page-cache lookup and ext4's page_mkwrite): measured on
 * mujs and jsoncpp, 3% less CPU time per run.  The pages are the chunk
 * in use, resident anyway once written.  Advice only: a kernel without
 * MADV_POPULATE_WRITE (before 5.14) refuses it, and the pages fault in
 * as they are written, as before. */
static void prefault(uint8_t *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	madvise(p, len, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}

/* Bytes of a stream after which a chunk starts with an empty pair table
 * again: a damaged chunk costs the reader the chunks that continue it up
 * to there.  The pairs a chunk gives again cost about 1% of the trace
 * at this distance (jsoncpp's test driver, 64 KiB chunks). */
#define CARRY_BYTES (1u << 20)

/* Whether the next chunk of s continues its pair table (see
 * CTRACE_CHUNK_CONTINUES), after the chunk `old` (-1: none, the stream
 * lost events or was left by a jump): in an event stream, whose chunks
 * are read in turn, while the objects loaded are those the pairs belong
 * to (else they are defined again, dated after the change). */
static int carries(const struct ctrace__stream *s, int64_t old)
{
	return s->kind == CTRACE_CHUNK_EVENTS && old >= 0 && s->lost == 0 &&
	       s->carried < CARRY_BYTES &&
	       s->modules_epoch == atomic_load_explicit(&ctrace__modules_epoch,
							memory_order_relaxed);
}

#define UNLOCK_EVERY 32

static void unlock_own(const struct ctrace__stream *s)
{
	ctrace__file_unlock();
	ctrace__modules_unlock();
	if (s->wide != NULL)
		munlock(s->wide, CTRACE_PAIR_HOMES * sizeof *s->wide);
}

/* The stream between two chunks, which a signal handler must not see
 * (see ctrace__stream_refill). */
static uint8_t *refill(struct ctrace__stream *s, uint64_t now)
{
	int saved_errno = errno;
	uint32_t size = ctrace__file.chunk_size;
	/* A chunk of which only the first pages are reserved (a stream's
	 * first chunk, or one cut at exit, see ctrace__stream_finish): the
	 * rest. */
	if (s->cur != NULL && s->chunk_end < s->chunk_start + size &&
	    ctrace__file_extend(s->chunk, (uint32_t)(s->chunk_end -
						     s->chunk_start)) == 0) {
		prefault(s->chunk_end, (size_t)(s->chunk_start + size -
						 s->chunk_end));
		s->chunk_end = s->chunk_start + size;
		s->limit = s->chunk_end - CTRACE_MAX_EVENT_BYTES;
		errno = saved_errno;
		return s->cur;
	}
	int64_t old = s->cur != NULL ? (int64_t)s->chunk : -1;
	s->cur = s->limit = s->chunk_end = NULL;

	/* A stream's first chunk: one page first, so that a process or a
	 * thread that writes little takes little disk. */
	uint64_t index;
	uint32_t len = s->seq == 0 ? FIRST_PIECE : size;
	uint8_t reason = 0;
	uint8_t *c = ctrace__file_claim(old, s->kind == CTRACE_CHUNK_META,
					&index, &len, &reason);
	if (c == NULL) {
		s->lost_reason = reason;
		errno = saved_errno;
		return NULL;
	}
	/* Once a chunk: a library loaded or unloaded since the last look.
	 * Never for the signal stream (a handler that
	 * interrupted the recorder) or the metadata (its lock is held). */
	if (s->kind == CTRACE_CHUNK_EVENTS)
		ctrace__modules_refresh(now, 1);
	/* Once every UNLOCK_EVERY chunks of the file: the program may have
	 * called mlockall(MCL_CURRENT) meanwhile, which locked the
	 * recorder's mappings of that moment, and its locked-memory budget
	 * is its own.  A few system calls a couple of MiB of trace. */
	if (s->kind == CTRACE_CHUNK_EVENTS && index % UNLOCK_EVERY == 0)
		unlock_own(s);
	prefault(c, len);

	struct ctrace_chunk_header *h = (struct ctrace_chunk_header *)c;
	h->kind = s->kind;
	h->header_size = sizeof *h;
	h->thread = s->thread;
	h->tid = s->tid;
	h->seq = s->seq++;
	h->base_time = now;
	h->flags = carries(s, old) ? CTRACE_CHUNK_CONTINUES : 0;
	h->reserved = 0;
	ctrace__barrier();
	h->magic = CTRACE_CHUNK_MAGIC;

	s->chunk = index;
	s->cur = c + sizeof *h;
	s->chunk_start = c;
	s->chunk_end = c + len;
	s->limit = s->chunk_end - CTRACE_MAX_EVENT_BYTES;
	s->last = now;
	s->last_sp = 0;
	memset(s->arg_base, 0, sizeof s->arg_base);
	memset(s->lib_base, 0, sizeof s->lib_base);
	s->arg_base_off = 0;
	if (!h->flags) {
		ctrace__pairs_reset(s);
		s->new_base = (struct ctrace__pair){0, 0, 0};
		s->open_n = 0;
		s->carried = 0;
	}
	s->carried += size;
	s->modules_epoch = atomic_load_explicit(&ctrace__modules_epoch,
						memory_order_relaxed);
	if (s->lost)
		put_lost_record(s);
	errno = saved_errno;
	return s->cur;
}

/* With signals blocked, so that a jump out of a handler never leaves the
 * stream between two chunks (a chunk claimed and not known, a LOST record
 * half written): the handler runs before or after. */
/* While the trace cannot grow, a stream tries a claim at its first lost
 * event and then once every this many: the others cost no system call
 * (and the claims that come before the file's retry time fail at once). */
#define STALLED_TRIES 1024

uint8_t *ctrace__stream_refill(struct ctrace__stream *s, uint64_t now)
{
	uint8_t stalled = atomic_load_explicit(&ctrace__file_stalled,
					       memory_order_relaxed);
	if (unlikely(stalled) && s->lost % STALLED_TRIES != 0) {
		s->lost_reason = stalled;
		return NULL;
	}
	uint64_t saved = ctrace__block_signals();
	uint8_t *p = refill(s, now);
	ctrace__restore_signals(saved);
	/* An event stream's refill looked at the loader's list: the claim's
	 * own pause (the chunk's pages written and mapped, the signal mask
	 * set back: tens of microseconds, far more under strace) must not
	 * make its next event look again (after_gap). */
	if (p != NULL && s->kind == CTRACE_CHUNK_EVENTS)
		s->looked = ctrace__now();
	return p;
}

void ctrace__stream_lost(struct ctrace__stream *s, uint64_t now,
			 uint8_t reason)
{
	if (s->lost++ == 0)
		s->lost_first = now;
	s->lost_last = now;
	if (reason)
		s->lost_reason = reason;
	struct ctrace_file_header *h = ctrace__file.header;
	if (h != NULL)
		__atomic_fetch_add(&h->lost_events, 1, __ATOMIC_RELAXED);
}

/* The stream forgets its chunk before the chunk is unmapped, signals
 * blocked from before the one to after the other: a handler that comes
 * as they are unblocked (a signal that became pending meanwhile) may
 * write events or jump out, and then the recovery that follows must find
 * no chunk, never one that is no longer mapped. */
void ctrace__stream_release(struct ctrace__stream *s)
{
	uint64_t saved = ctrace__block_signals();
	int live = s->cur != NULL && s->chunk != CTRACE_NO_CHUNK;
	uint64_t chunk = s->chunk;
	s->cur = s->limit = s->chunk_end = NULL;
	ctrace__barrier();
	if (live)
		ctrace__file_release(chunk);
	ctrace__restore_signals(saved);
}

#define FINISH_ROOM (8 * (CTRACE_MAX_EVENT_BYTES + CTRACE_PAUSE_MAX_BYTES))

void ctrace__stream_finish(struct ctrace__stream *s)
{
	/* Signals blocked from the cut to the new chunk_end: a handler's
	 * event in between would write past the end of the file (SIGBUS). */
	uint64_t saved = ctrace__block_signals();
	int live = s != NULL && s->cur != NULL && s->chunk != CTRACE_NO_CHUNK;
	/* The pages kept hold room for a few more events (and their PAUSE
	 * records) after the last one: a destructor's calls after this do
	 * not reserve the whole chunk again, wherever the data ends (its
	 * length depends on the pauses the recorder wrote, so on time). */
	uint32_t kept = ctrace__file_finish(
		live ? s->chunk : CTRACE_NO_CHUNK,
		live ? (uint32_t)(s->cur - s->chunk_start) +
			       FINISH_ROOM
		     : 0);
	if (kept != 0) {
		s->chunk_end = s->chunk_start + kept;
		s->limit = s->chunk_end - CTRACE_MAX_EVENT_BYTES;
	}
	ctrace__restore_signals(saved);
}

int ctrace__stream_record(struct ctrace__stream *s, uint8_t type,
			  const void *payload, size_t len)
{
	size_t need = 2 + ctrace__uleb_size(len) + len;
	if (need > ctrace__file.chunk_size - sizeof(struct ctrace_chunk_header))
		return -E2BIG;
	/* Twice at most: the rest of a chunk begun small, then a new one. */
	while (s->cur == NULL || need > (size_t)(s->chunk_end - s->cur)) {
		if (ctrace__stream_refill(s, ctrace__now()) == NULL) {
			ctrace__stream_lost(s, ctrace__now(), 0);
			return -ENOSPC;
		}
	}
	put_record(s, type, payload, len);
	return 0;
}
