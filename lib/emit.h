/* emit.h -- writing one ENTRY or EXIT into a stream: the inner loop of
 * the recorder, inlined into each hook. */
#ifndef CTRACE_EMIT_H
#define CTRACE_EMIT_H

#include <errno.h>
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------------------------
 * Pair slots
 * ------------------------------------------------------------------------ */

/* Slots 1..127: tags 0x00 and 0x80 are taken by END and EXTENDED.  The
 * hash reads only the addresses' offsets in their pages, which address
 * randomisation leaves alone (objects are placed at page boundaries): which
 * pairs share a slot, and so the trace's size and the recorder's cost,
 * are the same from run to run.  A pair may sit in either of two slots
 * (the reader takes whatever slot a DEFINE names): the first is looked at
 * inline, the second only when the first holds another pair. */
#define CTRACE_PAGE_OFFSET_MASK ((uintptr_t)0xfff)

static inline uint32_t pair_hash(uintptr_t fn, uintptr_t site)
{
	uint32_t k = (uint32_t)((fn & CTRACE_PAGE_OFFSET_MASK) << 12 |
				(site & CTRACE_PAGE_OFFSET_MASK));
	return k * 0x9e3779b1u;
}

static inline unsigned pair_slot(uint32_t h)
{
	unsigned slot = (unsigned)(h >> 25);
	return slot + (slot == 0);
}

static inline unsigned pair_slot2(uint32_t h)
{
	unsigned slot = (unsigned)(h >> 18) & 0x7f;
	return slot + (slot == 0);
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof v);
}

/* Writes the body of a DEFINE record at p (its tag is stored by the
 * caller, last) and returns the byte after it.  Out of line: it runs once
 * per pair per chunk, and when the pair was pushed out of its slots.  An ENTRY's DEFINE carries the function's frame
 * size when its CFI tells; not from a signal handler that interrupted the
 * recorder (may_scan 0), which must not touch the frame cache. */
static __attribute__((noinline, unused)) uint8_t *
define_pair(struct ctrace__stream *s, uint8_t *p, unsigned slot, uintptr_t fn,
	    uintptr_t site, uintptr_t sp, uintptr_t fp, uint64_t now,
	    int may_scan)
{
	int saved_errno = errno;
	uintptr_t frame = sp && may_scan ? ctrace__frame_field(fn, sp, fp) : 0;
	uint8_t *q = p + 20;

	p[1] = CTRACE_REC_DEFINE;
	p[3] = (uint8_t)slot;
	put_u64(p + 4, fn);
	put_u64(p + 12, site);
	if (frame)
		q = ctrace__uleb_put_word(q, frame);
	p[2] = (uint8_t)(q - p - 3);
	s->pair[slot].fn = fn;
	s->pair[slot].site = site;
	if (may_scan)
		ctrace__modules_check(fn, now);
	errno = saved_errno;
	return q;
}

/* The pair is not in its first slot: its second, or a DEFINE into one of
 * the two (an empty one, else each in turn).  Leaves the slot in
 * s->miss_slot (not through a pointer: the inline path would keep its
 * slot in memory); returns where the event's own tag goes (p when nothing
 * was written). */
static __attribute__((noinline, unused)) uint8_t *
pair_miss(struct ctrace__stream *s, uint8_t *p, unsigned first, uint32_t h,
	  uintptr_t fn, uintptr_t site, uintptr_t sp, uintptr_t fp,
	  uint64_t now, int may_scan)
{
	unsigned second = pair_slot2(h);
	if (s->pair[second].fn == fn && s->pair[second].site == site) {
		s->miss_slot = (uint8_t)second;
		return p;
	}
	unsigned victim = first;
	if (s->pair[first].fn != 0 &&
	    (s->pair[second].fn == 0 || (s->victim ^= 1)))
		victim = second;
	s->miss_slot = (uint8_t)victim;
	return define_pair(s, p, victim, fn, site, sp, fp, now, may_scan);
}

/* Ticks between two events of a stream beyond which the loader's list is
 * looked at again (about 11 us at 3 GHz): a dlopen opens, maps and
 * relocates a file, which takes longer, and the look (two signal mask
 * changes and the loader's lock, well under a microsecond) is then a
 * small part of the pause. */
#define CTRACE_GAP_TICKS ((uint64_t)1 << 15)

/* The slow side of the time test in emit(): returns the time to record.
 * Never lets time run backwards inside a stream.  After a pause, notices
 * objects loaded or unloaded meanwhile, and then starts the pair table
 * afresh, so that a function of a new object at an address an unloaded one
 * used is defined again, dated after the loader's calls.  Not from a
 * signal handler that interrupted the recorder (may_scan 0): the loader's
 * lock is not async-signal-safe. */
static __attribute__((noinline, unused)) uint64_t
after_gap(struct ctrace__stream *s, uint64_t now, int may_scan)
{
	if ((int64_t)(now - s->last) < 0)
		return s->last;
	/* The pause is measured from the end of the last look too: a look
	 * slowed down (system calls under strace, a loaded machine) would
	 * otherwise make the next event's gap, and every event would look
	 * again.  A dlopen after that end is itself longer than the gap. */
	if (may_scan && now - s->looked >= CTRACE_GAP_TICKS) {
		int saved_errno = errno;
		ctrace__modules_refresh(now);
		errno = saved_errno;
		s->looked = ctrace__now();
	}
	uint32_t epoch = atomic_load_explicit(&ctrace__modules_epoch,
					      memory_order_relaxed);
	if (s->modules_epoch != epoch) {
		s->modules_epoch = epoch;
		memset(s->pair, 0, sizeof s->pair);
	}
	return now;
}

/* Writes a STACK record at p but its tag, which emit() stores last with
 * the event's, and returns the byte after it. */
static __attribute__((noinline, unused)) uint8_t *
stack_switch(struct ctrace__stream *s, uint8_t *p, uintptr_t sp)
{
	/* unsigned difference: stacks may be over half the space apart */
	intptr_t w = (intptr_t)(sp - s->last_sp) / (intptr_t)sizeof(void *);
	uint8_t *q = ctrace__sleb_put_word(p + 3, w);

	p[1] = CTRACE_REC_STACK;
	p[2] = (uint8_t)(q - p - 3);
	return q; /* the caller sets last_sp with cur */
}

/* Stores the first tags of a group whose event is at q, after a DEFINE
 * at p, after a STACK record at first (each where present), innermost
 * first: the group's first tag is stored last. */
static __attribute__((noinline, unused)) void
store_tags(uint8_t *first, uint8_t *p, uint8_t *q, uint8_t tag)
{
	*q = tag;
	ctrace__barrier();
	if (p != q)
		*p = CTRACE_TAG_EXTENDED;
	ctrace__barrier();
	if (first != p)
		*first = CTRACE_TAG_EXTENDED;
}

/* ---------------------------------------------------------------------------
 * Emitting one event
 * ------------------------------------------------------------------------ */

/* `settled`: the byte that tells a jump out of a signal handler that
 * interrupted this whether the event is stored (or counted lost), set to
 * CTRACE_T_SETTLED once it is: the thread's state for its stream, the
 * signal stream's busy flag for that one (see hooks.c). */
static inline __attribute__((always_inline, unused)) void
emit(struct ctrace__stream *s, uint8_t exit_bit, uintptr_t fn, uintptr_t site,
     uintptr_t sp, uintptr_t fp, uint64_t now, int may_scan, uint8_t *settled)
{
	uint8_t *p = s->cur;

	/* `>=`, not `>`: a fresh stream has cur == limit == NULL. */
	if (unlikely(p >= s->limit)) {
		p = ctrace__stream_refill(s, now);
		if (unlikely(p == NULL)) {
			ctrace__stream_lost(s, now, 0);
			ctrace__barrier();
			*settled = CTRACE_T_SETTLED;
			return;
		}
	}
	uint8_t *first = p;

	/* An EXIT on another stack than the last ENTRY: a coroutine came
	 * back, and the reader needs to know which.  sp is 0 when unknown. */
	uintptr_t last_sp = s->last_sp;
	if (exit_bit && unlikely(sp - last_sp + CTRACE_STACK_NEAR >
				 2 * CTRACE_STACK_NEAR))
		if (sp) {
			p = stack_switch(s, p, sp);
			last_sp = sp;
		}

	/* One test for two rare cases: time running backwards (the TSC of
	 * another CPU may lag by a few ticks after a migration) and a pause
	 * long enough to have held a dlopen or dlclose. */
	uint64_t delta = now - s->last;
	if (unlikely(delta >= CTRACE_GAP_TICKS)) {
		now = after_gap(s, now, may_scan);
		delta = now - s->last;
	}

	uint32_t h = pair_hash(fn, site);
	unsigned slot = pair_slot(h);
	uint8_t *q = p;
	if (unlikely(s->pair[slot].fn != fn || s->pair[slot].site != site)) {
		q = pair_miss(s, p, slot, h, fn, site, exit_bit ? 0 : sp, fp,
			      now, may_scan);
		slot = s->miss_slot;
	}

	uint8_t *d = ctrace__uleb_put(q + 1, delta);
	if (!exit_bit) {
		/* sleb128 of the stack delta in words: one byte for frames
		 * up to 512 bytes apart on x86-64. */
		intptr_t w = (intptr_t)(sp - last_sp) /
			     (intptr_t)sizeof(void *);
		last_sp = sp;
		d = ctrace__sleb_put_word(d, w);
	}

	/* The group's first tag is stored last: a reader (or a SIGKILL) sees
	 * either the whole group or a zero byte.  Then `settled`, then the
	 * stream's state, so that a jump out of a signal handler that
	 * interrupted this finds a zero byte at cur and the event unstored,
	 * or a group at cur, or the event stored and cur after it (hooks.c
	 * recovers from there). */
	uint8_t tag = (uint8_t)(exit_bit | slot);
	if (likely(q == first)) {
		ctrace__barrier();
		*q = tag;
	} else {
		store_tags(first, p, q, tag);
	}
	ctrace__barrier();
	*settled = CTRACE_T_SETTLED;
	ctrace__barrier();
	s->last = now;
	s->last_sp = last_sp;
	s->cur = d;
}

#endif /* CTRACE_EMIT_H */
