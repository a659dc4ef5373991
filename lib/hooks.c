/* hooks.c -- __cyg_profile_func_enter/exit: the recorder's hot path.
 *
 * An event costs: one clock read, a 7-bit hash of (function, call site)
 * into the stream's pair table, and two or three byte stores.  There is no
 * lock, no system call, no allocation and no branch that is not predicted
 * in the steady state.  Everything else (the first event of a thread, a
 * full chunk, a new pair, a signal handler that interrupted the recorder)
 * takes a slow path out of line.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

__thread struct ctrace__thread ctrace__self
	__attribute__((tls_model("initial-exec"))) CTRACE_HIDDEN;

/* ---------------------------------------------------------------------------
 * Pair slots
 * ------------------------------------------------------------------------ */

/* Slots 1..127: tags 0x00 and 0x80 are taken by END and EXTENDED. */
static inline unsigned pair_slot(uintptr_t fn, uintptr_t site)
{
#if UINTPTR_MAX > 0xffffffffu
	uint64_t h = ((uint64_t)fn ^ ((uint64_t)site << 7)) *
		     0x9e3779b97f4a7c15ull;
	unsigned slot = (unsigned)(h >> 57);
#else
	uint32_t h = ((uint32_t)fn ^ ((uint32_t)site << 7)) * 0x9e3779b1u;
	unsigned slot = (unsigned)(h >> 25);
#endif
	return slot + (slot == 0);
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof v);
}

/* Writes the body of a DEFINE record at p (its tag is stored by the
 * caller, last) and returns the byte after it.  Out of line: it runs once
 * per pair per chunk. */
static __attribute__((noinline)) uint8_t *
define_pair(struct ctrace__stream *s, uint8_t *p, unsigned slot, uintptr_t fn,
	    uintptr_t site, int may_scan)
{
	p[1] = CTRACE_REC_DEFINE;
	p[2] = 17;
	p[3] = (uint8_t)slot;
	put_u64(p + 4, fn);
	put_u64(p + 12, site);
	s->pair[slot].fn = fn;
	s->pair[slot].site = site;
	if (may_scan) {
		int saved_errno = errno;
		ctrace__modules_check(fn);
		errno = saved_errno;
	}
	return p + 20;
}

/* ---------------------------------------------------------------------------
 * Emitting one event
 * ------------------------------------------------------------------------ */

static inline __attribute__((always_inline)) void
emit(struct ctrace__stream *s, uint8_t exit_bit, uintptr_t fn, uintptr_t site,
     int may_scan)
{
	uint64_t now = ctrace__now();
	uint8_t *p = s->cur;

	/* `>=`, not `>`: a fresh stream has cur == limit == NULL. */
	if (unlikely(p >= s->limit)) {
		p = ctrace__stream_refill(s, now);
		if (unlikely(p == NULL)) {
			ctrace__stream_lost(s, now, 0);
			return;
		}
	}

	unsigned slot = pair_slot(fn, site);
	uint8_t *q = p;
	if (unlikely(s->pair[slot].fn != fn || s->pair[slot].site != site))
		q = define_pair(s, p, slot, fn, site, may_scan);

	/* The TSC of another CPU may lag by a few ticks after a migration:
	 * never let time run backwards inside a stream. */
	uint64_t delta = now - s->last;
	if (unlikely((int64_t)delta < 0)) {
		delta = 0;
		now = s->last;
	}
	uint8_t *d = q + 1;
	while (delta >= 0x80) {
		*d++ = (uint8_t)(delta | 0x80);
		delta >>= 7;
	}
	*d++ = (uint8_t)delta;
	s->last = now;

	/* The group's first tag is stored last: a reader (or a SIGKILL) sees
	 * either the whole group or a zero byte. */
	uint8_t tag = (uint8_t)(exit_bit | slot);
	if (likely(q == p)) {
		ctrace__barrier();
		*p = tag;
	} else {
		*q = tag;
		ctrace__barrier();
		*p = CTRACE_TAG_EXTENDED;
	}
	s->cur = d;
}

/* ---------------------------------------------------------------------------
 * Slow path
 * ------------------------------------------------------------------------ */

static struct ctrace__stream *signal_stream(struct ctrace__thread *t)
{
	if (t->signal == NULL) {
		void *m = mmap(NULL, sizeof *t->signal, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		ctrace__stream_init(m, CTRACE_CHUNK_SIGNAL, t->main.thread,
				    t->main.tid);
		t->signal = m;
	}
	return t->signal;
}

static __attribute__((noinline)) void
hook_slow(struct ctrace__thread *t, uint8_t exit_bit, uintptr_t fn,
	  uintptr_t site)
{
	int saved_errno = errno;

	switch (t->state) {
	case CTRACE_T_NEW:
		ctrace__thread_start(t);
		if (t->state != CTRACE_T_IDLE)
			break;
		t->state = CTRACE_T_BUSY;
		ctrace__barrier();
		emit(&t->main, exit_bit, fn, site, 1);
		ctrace__barrier();
		t->state = CTRACE_T_IDLE;
		break;

	case CTRACE_T_BUSY: {
		/* A signal handler interrupted the recorder on this thread: its
		 * events go to the thread's signal stream, merged back by time
		 * when the trace is read.  A signal inside that one is counted,
		 * not stored. */
		uint64_t now = ctrace__now();
		if (t->signal_busy) {
			ctrace__stream_lost(&t->main, now, CTRACE_LOST_NESTED);
			break;
		}
		t->signal_busy = 1;
		ctrace__barrier();
		struct ctrace__stream *s = signal_stream(t);
		if (s != NULL)
			emit(s, exit_bit, fn, site, 0);
		else
			ctrace__stream_lost(&t->main, now,
					    CTRACE_LOST_NO_MEMORY);
		ctrace__barrier();
		t->signal_busy = 0;
		break;
	}

	default: /* CTRACE_T_OFF */
		break;
	}
	errno = saved_errno;
}

/* ---------------------------------------------------------------------------
 * The hooks
 * ------------------------------------------------------------------------ */

__attribute__((visibility("default"))) void
__cyg_profile_func_enter(void *fn, void *site)
{
	struct ctrace__thread *t = &ctrace__self;
	if (likely(t->state == CTRACE_T_IDLE)) {
		t->state = CTRACE_T_BUSY;
		ctrace__barrier();
		emit(&t->main, 0, (uintptr_t)fn, (uintptr_t)site, 1);
		ctrace__barrier();
		t->state = CTRACE_T_IDLE;
		return;
	}
	hook_slow(t, 0, (uintptr_t)fn, (uintptr_t)site);
}

__attribute__((visibility("default"))) void
__cyg_profile_func_exit(void *fn, void *site)
{
	struct ctrace__thread *t = &ctrace__self;
	if (likely(t->state == CTRACE_T_IDLE)) {
		t->state = CTRACE_T_BUSY;
		ctrace__barrier();
		emit(&t->main, CTRACE_TAG_EXIT_BIT, (uintptr_t)fn,
		     (uintptr_t)site, 1);
		ctrace__barrier();
		t->state = CTRACE_T_IDLE;
		return;
	}
	hook_slow(t, CTRACE_TAG_EXIT_BIT, (uintptr_t)fn, (uintptr_t)site);
}
