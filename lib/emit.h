/* emit.h -- writing one ENTRY or EXIT into a stream: the inner loop of
 * the recorder, inlined into each hook. */
#ifndef CTRACE_EMIT_H
#define CTRACE_EMIT_H

#include <errno.h>
#include <string.h>

#include "capture.h"
#include "internal.h"

/* ---------------------------------------------------------------------------
 * Pair slots
 * ------------------------------------------------------------------------ */

/* The hash reads only the addresses' offsets in their pages, which
 * address randomisation leaves alone (objects are placed at page
 * boundaries): which pairs share a slot, and so the trace's size and the
 * recorder's cost, are the same from run to run.  It gives the pair's
 * home (CTRACE_PAIR_HOME of the function and the call site XOR the hook
 * return address pc, which a reader computes too): copies of a function
 * inlined into one host share its call site, and differ by their hooks.
 * An EXIT's pc is 0.  A pair sits in either of the two narrow slots of
 * its home or in its home's wide slot. */
static inline unsigned pair_home(uintptr_t fn, uintptr_t site, uintptr_t pc)
{
	return CTRACE_PAIR_HOME(fn, site ^ pc);
}

/* An ENTRY's pc in the pair table: its hook's return address, marked
 * (capture.h, CTRACE__PAIR_ARGS) when its registers follow it inline. */
static inline uintptr_t entry_pc(uintptr_t sp,
				const struct ctrace__args_inline *args)
{
	return ctrace__hook_return(sp) | (args != NULL ? CTRACE__PAIR_ARGS : 0);
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof v);
}

/* ---------------------------------------------------------------------------
 * Open calls
 * ------------------------------------------------------------------------ */

/* Whether the innermost open call is (fn, site): then its EXIT is a
 * RETURN (see ctrace_format.h), which names no pair. */
static inline int open_top_is(const struct ctrace__stream *s, uintptr_t fn,
			      uintptr_t site)
{
	const struct ctrace__open *o =
		&s->open[(s->open_top - 1) & (CTRACE_RETURN_WINDOW - 1)];
	return s->open_n != 0 && o->fn == fn && o->site == site;
}

/* An ENTRY written: its call is the innermost open one, the oldest
 * falling out of the window when it is full. */
static inline void open_push(struct ctrace__stream *s, uintptr_t fn,
			     uintptr_t site)
{
	struct ctrace__open *o =
		&s->open[s->open_top++ & (CTRACE_RETURN_WINDOW - 1)];
	o->fn = fn;
	o->site = site;
	s->open_n += s->open_n < CTRACE_RETURN_WINDOW;
}

/* The RETURN at p of the innermost open call, delta ticks after the
 * stream's previous event: returns its tag (stored by the caller) and
 * *end, the byte after it. */
static inline uint8_t return_put(uint8_t *p, uint64_t delta, uint8_t **end)
{
	if (likely(delta < CTRACE_RETURN_SHORT)) {
		*end = p + 1;
		return (uint8_t)(CTRACE_TAG_RETURN + delta);
	}
	*end = ctrace__uleb_put(p + 1, delta);
	return CTRACE_TAG_RETURN_LONG;
}

/* An ENTRY's pair is also its hook call's (pc); an EXIT's, any of them. */
static inline int pair_is(const struct ctrace__pair *e, uint8_t exit_bit,
			  uintptr_t fn, uintptr_t site, uintptr_t pc)
{
	return e->fn == fn && e->site == site && (exit_bit || e->pc == pc);
}

/* Moves (fn, site, pc) into narrow slot `slot`, and the pair there into its
 * home's wide slot, as a reader does on a NEW into a narrow slot or a
 * CTRACE_TAG_WIDE_MOVE event.  An empty slot too: the reader may still
 * hold there a pair the recorder forgot (rewind_call, a table emptied in
 * the middle of a chunk), which it moves to that wide slot; so the
 * recorder keeps nothing there, or a later event of the pair it kept
 * there would name the reader's. */
static inline void pair_move_in(struct ctrace__stream *s, unsigned slot,
				unsigned home, uintptr_t fn, uintptr_t site,
				uintptr_t pc)
{
	struct ctrace__pair *out = &s->pair[slot];
	s->moved_home = s->home[slot];
	s->miss_slot = (uint8_t)slot;
	if (s->wide != NULL) {
		s->wide[s->moved_home] = *out;
		s->wide_used = 1;
	}
	out->fn = fn;
	out->site = site;
	out->pc = pc;
	s->home[slot] = (uint16_t)home;
}

/* A narrow slot's credit: how many NEW pairs whose first narrow slot it
 * is go to their wide slots instead before one takes its place, and so
 * how many events of pairs staying in those wide slots may pass (each
 * takes one) before that.  Each ENTRY that finds its pair in the slot
 * restores it.  So a pair keeps its narrow slot while it is used about as
 * often as the pairs that would take it, and pairs used in turn do not
 * push each other out.  The recorder's choice alone: a NEW's key tells
 * the reader where the pair goes. */
#define PAIR_CREDIT 5

/* The pair in its home's wide slot moves into its first narrow slot `first`
 * (a CTRACE_TAG_WIDE_MOVE event), whose pair goes to its own home's wide
 * slot. */
static inline __attribute__((always_inline, unused)) void
wide_move(struct ctrace__stream *s, unsigned first, unsigned home,
	  uintptr_t fn, uintptr_t site, uintptr_t pc)
{
	s->miss_home = (uint16_t)home;
	s->wide[home].fn = 0;
	s->wide[home].site = 0;
	pair_move_in(s, first, home, fn, site, pc);
	s->credit[first] = PAIR_CREDIT;
}

/* The pair is in neither of its narrow slots: its wide slot (a two-byte
 * tag), or a NEW record.  Writes what follows the tag byte (the tag is
 * stored by the caller, last), leaves the tag in s->miss_tag (not through
 * a pointer: the inline path would keep it in memory) and returns where
 * the time delta goes.  Out of line: emit_fast() takes an ENTRY whose pair
 * is in its wide slot; this one runs for a pair not in the table (its
 * first event since the table started afresh, or since it was pushed
 * out), for an EXIT that names its pair, and for an event of the slow
 * path (a new chunk, a pause) whose pair is in neither narrow slot.  A NEW ENTRY carries the function's
 * frame size when its CFI tells; not from a signal handler that
 * interrupted the recorder (may_scan 0), which must not touch the frame
 * cache.  A NEW ENTRY carries its hook call's return address pc too (0
 * for an EXIT). */
static __attribute__((noinline, unused)) uint8_t *
pair_miss(struct ctrace__stream *s, uint8_t *p, uint8_t exit_bit,
	  unsigned home, uintptr_t fn, uintptr_t site, uintptr_t pc,
	  uintptr_t sp, uintptr_t fp, uint64_t now, int may_scan)
{
	unsigned first = CTRACE_PAIR_NARROW_SLOT(home, 0);
	unsigned second = CTRACE_PAIR_NARROW_SLOT(home, 1);
	int has_wide = s->wide != NULL;
	s->miss_base = s->new_base;
	s->miss_home = (uint16_t)home;
	s->moved_home = (uint16_t)home;
	s->miss_slot = 0;

	/* In its wide slot: it stays there while the first narrow slot has
	 * credit, else takes that slot, whose pair moves to its own home's
	 * wide slot. */
	if (has_wide && pair_is(&s->wide[home], exit_bit, fn, site, pc)) {
		if (s->credit[first] != 0) {
			s->credit[first]--;
			s->miss_tag = (uint8_t)(CTRACE_TAG_WIDE | home >> 8);
		} else {
			/* an EXIT's pc: any of the pair's hooks */
			wide_move(s, first, home, fn, site, s->wide[home].pc);
			s->miss_tag =
				(uint8_t)(CTRACE_TAG_WIDE_MOVE | home >> 8);
		}
		p[1] = (uint8_t)home;
		return p + 2;
	}

	/* A NEW pair: into an empty narrow slot, else into the first one
	 * when it has no credit left, else into the wide slot (whose pair,
	 * if any, leaves the table).  The first slot holding the pair as an
	 * EXIT defined it, with no hook (its call was entered before the
	 * chunk began): an ENTRY takes the slot over, or every later ENTRY
	 * of the pair would come here. */
	const struct ctrace__pair *e = &s->pair[first];
	int exit_defined = !exit_bit && e->pc == 0 && e->fn == fn &&
			   e->site == site;
	unsigned key = 0, slot = first;
	if (exit_defined || e->fn == 0) {
		slot = first;
	} else if (s->pair[second].fn == 0) {
		key = CTRACE_NEW_KEY_CHOICE;
		slot = second;
	} else if (!has_wide) {
		/* both taken, nowhere to move a pair out to: each in turn */
		key = (s->victim ^= 1) ? CTRACE_NEW_KEY_CHOICE : 0;
		slot = key ? second : first;
	} else if (s->credit[first] != 0) {
		s->credit[first]--;
		key = CTRACE_NEW_KEY_WIDE;
	}

	/* The pair in the narrow slot taken goes to its home's wide slot
	 * (pair_move_in), a line the caches rarely hold: fetched now, the
	 * miss overlaps the frame's lookup instead of outlasting the pause's
	 * end (pause_put). */
	if (key != CTRACE_NEW_KEY_WIDE && has_wide)
		__builtin_prefetch(&s->wide[s->home[slot]], 1);
	int saved_errno = errno;
	ctrace__clock_test_delay();
	/* A library call's hook is its call site (plt.c), and its stack
	 * pointer the one it starts with: its CFA is one word above. */
	uintptr_t frame = !exit_bit && sp && may_scan
				  ? (pc == site ? 2
						: ctrace__frame_field(fn, sp, fp))
				  : 0;
	/* A copy inlined into its caller (the frame's low bit) has its call
	 * site and hook near those of the chunk's previous NEW: the copies
	 * inlined into one host come one after another, with the host's call
	 * site and hooks in its code (about three bytes less each). */
	const struct ctrace__pair *base = &s->new_base;
	uintptr_t site_base = fn, pc_base = fn;
	if (frame & 1) {
		site_base = base->site;
		pc_base = base->pc;
	}
	/* The reader computes the home from the addresses, as here. */
	uintptr_t hook = pc & ~CTRACE__PAIR_ARGS;
	unsigned args_key = hook != pc ? CTRACE_NEW_KEY_ARGS : 0;
	uint8_t *q = ctrace__uleb_put(p + 1, key | args_key);
	q = ctrace__sleb_put_word(q, (intptr_t)(fn - base->fn));
	if (exit_bit) {
		q = ctrace__sleb_put_word(q, (intptr_t)(site - fn));
	} else {
		q = ctrace__uleb_put_word(q, frame);
		q = ctrace__sleb_put_word(q, (intptr_t)(site - site_base));
		q = ctrace__sleb_put_word(q, (intptr_t)(hook - pc_base));
		s->miss_base.pc = hook;
	}
	if (key == CTRACE_NEW_KEY_WIDE) {
		struct ctrace__pair *w = &s->wide[home];
		w->fn = fn;
		w->site = site;
		w->pc = pc;
		s->wide_used = 1;
	} else {
		/* The same pair as an EXIT defined it is replaced in place,
		 * not moved to the wide slot (see ctrace_format.h). */
		struct ctrace__pair *old = &s->pair[slot];
		if (!exit_bit && old->pc == 0 && old->fn == fn &&
		    old->site == site)
			old->fn = 0;
		pair_move_in(s, slot, home, fn, site, pc);
		s->credit[slot] = PAIR_CREDIT;
	}
	s->miss_base.fn = fn;
	s->miss_base.site = site;
	s->miss_tag = CTRACE_TAG_NEW;
	if (may_scan)
		ctrace__modules_check(fn, now);
	errno = saved_errno;
	return q;
}

/* CTRACE_GAP_TICKS (internal.h): the look after a pause (two signal mask
 * changes and the loader's lock, well under a microsecond) is a small
 * part of it. */

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
		ctrace__modules_refresh(now, 0);
		errno = saved_errno;
		s->looked = ctrace__now();
	}
	uint32_t epoch = atomic_load_explicit(&ctrace__modules_epoch,
					      memory_order_relaxed);
	if (s->modules_epoch != epoch) {
		s->modules_epoch = epoch;
		ctrace__pairs_reset(s);
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

/* Stores the tags of a group whose event's tag is at p after a STACK
 * record or an EXIT tag at first, whose tag is first_tag: the group's
 * first tag is stored last. */
static __attribute__((noinline, unused)) void
store_tags(uint8_t *first, uint8_t first_tag, uint8_t *p, uint8_t tag)
{
	*p = tag;
	ctrace__barrier();
	*first = first_tag;
}

/* An ENTRY's registers (capture.h, ctrace__args_inline_put) where the
 * ENTRY is not emit_fast()'s common case of a narrow slot: one copy out
 * of line, so that the paths that inline the rest of the event keep
 * their frames (and the recorder's stack bound, doc/security.md); given
 * what they are, not where: the callers' struct then needs no memory. */
static __attribute__((noinline, unused)) uint8_t *
args_put_apart(struct ctrace__stream *s, uint8_t *d,
	       const struct ctrace__regs *r, unsigned sel)
{
	const struct ctrace__args_inline a = {r, sel};
	return ctrace__args_inline_put(s, d, &a);
}

/* pause_put()'s `drain`: never, and from a pause of about 200 ns at
 * 2.5 GHz, longer than the values of a known call take. */
#define CTRACE_PAUSE_NO_DRAIN UINT64_MAX
#define CTRACE_PAUSE_DRAIN_TICKS 512

/* ---------------------------------------------------------------------------
 * Emitting one event
 * ------------------------------------------------------------------------ */

/* The recorder's work for an event, from `since` (the event's time, read
 * before that work) to now, plus `extra` ticks of it that are out of the
 * stream already (a call rewound): a PAUSE record after the event and
 * whatever records follow it (ARGS, RETVAL), which the reader takes out
 * of every later time of the thread (see CTRACE_REC_PAUSE).  So a call's
 * duration is the program's own time, never the recorder's: neither the
 * slow path of the call's own first event nor those of its callees (a
 * new pair, whose frame size the CFI tells and whose module is checked;
 * a chunk claimed and its pages faulted in; the loader's list looked at
 * after a pause; values located).  A pause under `min` ticks is not
 * written (it would cost more bytes than the time it corrects); one that
 * finds no room waits for the next.  One of at least `drain` ticks ends
 * once its stores have left the store buffer (ctrace__rdtsc_drained):
 * the values located and copied for a function's first call leave so
 * many that their time made its duration 60 to 110 ns longer than its
 * later calls' with gcc -O0.  Not for every slow path: a new call site
 * of a known function costs a third more with it, and its stores are
 * few.  Called with the event stored (`settled`): a jump out of a
 * signal handler that interrupts this finds a zero byte at cur, or the
 * whole record. */
static __attribute__((noinline, unused)) void
pause_put(struct ctrace__stream *s, uint64_t since, uint64_t extra,
	  uint64_t min, uint64_t drain)
{
	uint64_t t = likely(ctrace__use_tsc) ? ctrace__rdtsc_after()
					     : ctrace__monotonic_ns();
	uint64_t p = ((int64_t)(t - since) > 0 ? t - since : 0) + extra +
		     s->pause_pending;
	if (p < min)
		return;
	if (p >= drain && likely(ctrace__use_tsc)) {
		t = ctrace__rdtsc_drained();
		p = ((int64_t)(t - since) > 0 ? t - since : 0) + extra +
		    s->pause_pending;
	}
	uint8_t *c = s->cur;
	if (c == NULL || (size_t)(s->chunk_end - c) < CTRACE_PAUSE_MAX_BYTES) {
		s->pause_pending = p;
		return;
	}
	s->pause_pending = 0;
	c[1] = CTRACE_REC_PAUSE;
	uint8_t *e = ctrace__uleb_put(c + 3, p);
	c[2] = (uint8_t)(e - c - 3);
	ctrace__barrier();
	*c = CTRACE_TAG_EXTENDED;
	ctrace__barrier();
	s->paused += p;
	s->cur = e;
}

/* `settled`: the byte that tells a jump out of a signal handler that
 * interrupted this whether the event is stored (or counted lost), set to
 * CTRACE_T_SETTLED once it is: the thread's state for its stream, the
 * signal stream's busy flag for that one (see hooks.c).  Every case: a
 * full chunk, a stack switch, a pause, a pair in neither narrow slot;
 * emit_fast() below sends the first three here. */
static inline __attribute__((always_inline, unused)) void
emit_slow_body(struct ctrace__stream *s, uint8_t exit_bit, uintptr_t fn,
	       uintptr_t site, uintptr_t sp,
	       const struct ctrace__args_inline *args, uintptr_t fp,
	       uint64_t now, int may_scan, uint8_t *settled)
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
	uint8_t first_tag = CTRACE_TAG_EXTENDED;

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

	/* The EXIT of the innermost open call: a RETURN. */
	int ret = exit_bit && open_top_is(s, fn, site);
	uint8_t tag, *d;
	int miss = 0;
	if (ret) {
		tag = return_put(p, delta, &d);
	} else {
		/* An EXIT of another call names its pair after an EXIT
		 * tag. */
		if (exit_bit) {
			if (p == first)
				first_tag = CTRACE_TAG_EXIT_PAIR;
			else
				*p = CTRACE_TAG_EXIT_PAIR;
			p++;
		}
		/* Both narrow slots inline: with more pairs in use than
		 * narrow slots (a C++ test driver), a pair hits its second
		 * slot about as often as its first, and a call out of line
		 * for each of those cost more than the second compare. */
		uintptr_t pc = exit_bit ? 0 : entry_pc(sp, args);
		unsigned home = pair_home(fn, site, pc);
		unsigned slot = CTRACE_PAIR_NARROW_SLOT(home, 0);
		uint8_t *q = p + 1;
		if (!pair_is(&s->pair[slot], exit_bit, fn, site, pc)) {
			slot = CTRACE_PAIR_NARROW_SLOT(home, 1);
			if (unlikely(!pair_is(&s->pair[slot], exit_bit, fn,
					      site, pc))) {
				miss = 1;
				q = pair_miss(s, p, exit_bit, home, fn, site,
					      pc, sp, fp, now, may_scan);
				slot = s->miss_tag;
			}
		}
		if (!miss && !exit_bit)
			s->credit[slot] = PAIR_CREDIT;

		if (!exit_bit) {
			/* sleb128 of the stack delta in words: one byte
			 * for frames up to 512 bytes apart on x86-64. */
			d = ctrace__uleb_sleb_put(q, delta,
						  (intptr_t)(sp - last_sp) >>
							  CTRACE_WORD_SHIFT);
			last_sp = sp;
			if (args != NULL)
				d = args_put_apart(s, d, args->r,
						   args->sel);
		} else {
			d = ctrace__uleb_put(q, delta);
		}
		tag = (uint8_t)(exit_bit | slot);
	}

	/* The group's first tag is stored last: a reader (or a SIGKILL) sees
	 * either the whole group or a zero byte.  Then `settled`, then the
	 * stream's state, so that a jump out of a signal handler that
	 * interrupted this finds a zero byte at cur and the event unstored,
	 * or a group at cur, or the event stored and cur after it (hooks.c
	 * recovers from there; the pair table, changed before the tag, is
	 * emptied then; the open calls change after it). */
	if (likely(p == first)) {
		ctrace__barrier();
		*p = tag;
	} else {
		store_tags(first, first_tag, p, tag);
	}
	ctrace__barrier();
	*settled = CTRACE_T_SETTLED;
	ctrace__barrier();
	s->last = now;
	s->last_sp = last_sp;
	if (!exit_bit)
		open_push(s, fn, site);
	else if (ret)
		s->open_top--, s->open_n--;
	if (unlikely(miss))
		s->new_base = s->miss_base;
	/* cur last: a jump out of a handler that came before it finds the
	 * event's tag at cur and moves the stream to a new chunk, whatever
	 * of the stream's state (time, stack, NEW base) was updated. */
	ctrace__barrier();
	s->cur = d;
}

/* The end of an event whose tag goes at p, the group's only byte, and
 * whose time and stack deltas go at q, in a chunk with room and with no
 * stack switch: writes the deltas, then stores the tag, `settled`, the
 * stream's time, stack pointer and (after a pair miss) NEW base, and cur
 * last, in the order emit_slow_body() explains. */
static inline __attribute__((always_inline, unused)) void
emit_commit(struct ctrace__stream *s, uint8_t *p, uint8_t *q, uint8_t tag,
	    uint8_t exit_bit, uintptr_t fn, uintptr_t site, uintptr_t sp,
	    const struct ctrace__args_inline *args, int args_apart,
	    uint64_t now, uint8_t *settled, int miss)
{
	uintptr_t last_sp = s->last_sp;
	uint8_t *d;
	if (!exit_bit) {
		d = ctrace__uleb_sleb_put(q, now - s->last,
					  (intptr_t)(sp - last_sp) >>
						  CTRACE_WORD_SHIFT);
		last_sp = sp;
		if (args != NULL)
			d = args_apart ? args_put_apart(s, d, args->r,
							args->sel)
				       : ctrace__args_inline_put(s, d, args);
	} else {
		d = ctrace__uleb_put(q, now - s->last);
	}
	ctrace__barrier();
	*p = tag;
	ctrace__barrier();
	*settled = CTRACE_T_SETTLED;
	ctrace__barrier();
	s->last = now;
	s->last_sp = last_sp;
	if (!exit_bit)
		open_push(s, fn, site);
	if (miss)
		s->new_base = s->miss_base;
	ctrace__barrier();
	s->cur = d;
}

/* The RETURN of the innermost open call, in a chunk with room, with no
 * pause and no stack switch before it: stored in emit_commit()'s
 * order. */
static inline __attribute__((always_inline, unused)) void
return_commit(struct ctrace__stream *s, uint64_t now, uint8_t *settled)
{
	uint8_t *p = s->cur, *d;
	uint8_t tag = return_put(p, now - s->last, &d);
	ctrace__barrier();
	*p = tag;
	ctrace__barrier();
	*settled = CTRACE_T_SETTLED;
	ctrace__barrier();
	s->last = now;
	/* Apart: the compiler would otherwise load and store both counters
	 * as one vector, a load that the two stores of the ENTRY just before
	 * cannot be forwarded to. */
	s->open_top--;
	ctrace__barrier();
	s->open_n--;
	ctrace__barrier();
	s->cur = d;
}

/* An event whose pair is in neither narrow slot, in a chunk with room,
 * with no pause and no stack switch before it (emit_fast() checked):
 * what emit_slow_body() does in that case, without checking again. */
static inline __attribute__((always_inline, unused)) void
emit_miss_body(struct ctrace__stream *s, uint8_t exit_bit, uintptr_t fn,
	       uintptr_t site, uintptr_t sp,
	       const struct ctrace__args_inline *args, uintptr_t fp,
	       uint64_t now, int may_scan, uint8_t *settled)
{
	uint8_t *p = s->cur;
	uintptr_t pc = exit_bit ? 0 : entry_pc(sp, args);
	uint8_t *q = pair_miss(s, p, exit_bit, pair_home(fn, site, pc), fn, site,
			       pc, sp, fp, now, may_scan);
	emit_commit(s, p, q, (uint8_t)(exit_bit | s->miss_tag), exit_bit, fn,
		    site, sp, args, 1, now, settled, 1);
}

#define EMIT_MISS 1
#define EMIT_SLOW 2

/* What an event that is not emit_fast()'s needs: emit_slow_body() for a
 * full chunk, a pause or a stack switch (EMIT_SLOW), else only its pair
 * looked up past the narrow slots (EMIT_MISS, emit_miss_body()). */
static inline __attribute__((always_inline, unused)) int
emit_how(const struct ctrace__stream *s, uint8_t exit_bit, uintptr_t sp,
	 uint64_t now)
{
	if (s->cur >= s->limit || now - s->last >= CTRACE_GAP_TICKS)
		return EMIT_SLOW;
	if (exit_bit && sp - s->last_sp + CTRACE_STACK_NEAR >
				2 * CTRACE_STACK_NEAR)
		return EMIT_SLOW;
	return EMIT_MISS;
}

/* The common case of an event, inline: room in the chunk, no pause, no
 * stack switch, and an ENTRY's pair in one of its two narrow slots or
 * in its wide slot (staying there or moving into a narrow one: out of
 * line, the 12% of a C++ test driver's ENTRYs that moved at a credit of
 * three cost it 1 ns per call), or an EXIT of the innermost open call.  It calls nothing, so a
 * hook whose common case is this alone keeps no register across a call
 * (the hooks pass the other cases on in a tail call).  It stores what
 * emit_slow_body() stores in that case, in the same order, and returns 0; else it stores nothing and returns EMIT_MISS (only the
 * pair is not in a narrow slot: emit_miss_body() takes it) or EMIT_SLOW. */

static inline __attribute__((always_inline, unused)) int
emit_fast(struct ctrace__stream *s, uint8_t exit_bit, uintptr_t fn,
	  uintptr_t site, uintptr_t sp, const struct ctrace__args_inline *args,
	  int args_apart, uint64_t now, uint8_t *settled)
{
	if (unlikely(emit_how(s, exit_bit, sp, now) == EMIT_SLOW))
		return EMIT_SLOW;
	/* An EXIT: a RETURN, or one that names its pair (rare: after a
	 * longjmp, an exception, a coroutine switch, beyond the window of
	 * open calls), which emit_slow_body() writes. */
	if (exit_bit) {
		if (unlikely(!open_top_is(s, fn, site)))
			return EMIT_SLOW;
		return_commit(s, now, settled);
		return 0;
	}
	uintptr_t pc = entry_pc(sp, args);
	unsigned home = pair_home(fn, site, pc);
	unsigned first = CTRACE_PAIR_NARROW_SLOT(home, 0), slot = first;
	if (!pair_is(&s->pair[slot], 0, fn, site, pc)) {
		slot = CTRACE_PAIR_NARROW_SLOT(home, 1);
		if (!pair_is(&s->pair[slot], 0, fn, site, pc)) {
			/* In its wide slot, a two-byte tag: it stays there
			 * while its first narrow slot has credit, else moves
			 * into that slot. */
			if (unlikely(s->wide == NULL ||
				     !pair_is(&s->wide[home], 0, fn, site,
					      pc)))
				return EMIT_MISS;
			uint8_t tag = (uint8_t)(CTRACE_TAG_WIDE | home >> 8);
			if (likely(s->credit[first] != 0)) {
				s->credit[first]--;
			} else {
				wide_move(s, first, home, fn, site, pc);
				tag = (uint8_t)(CTRACE_TAG_WIDE_MOVE |
						home >> 8);
			}
			uint8_t *p = s->cur;
			p[1] = (uint8_t)home;
			emit_commit(s, p, p + 2, tag, 0, fn, site, sp, args,
				    1, now, settled, 0);
			return 0;
		}
	}
	s->credit[slot] = PAIR_CREDIT;
	emit_commit(s, s->cur, s->cur + 1, (uint8_t)slot, 0, fn, site, sp,
		    args, args_apart, now, settled, 0);
	return 0;
}

/* The case emit_fast() could not take: `how` is what it returned, or
 * emit_how() tells again (out-of-line paths short of an argument register).
 * Inlined into the hooks' out-of-line paths, which the hooks reach by a
 * jump: one frame below the hook's, as few bytes of the program's stack
 * as when the whole event was one function. */
static inline __attribute__((always_inline, unused)) void
emit_rest_body(int how, struct ctrace__stream *s, uint8_t exit_bit,
	       uintptr_t fn, uintptr_t site, uintptr_t sp,
	       const struct ctrace__args_inline *args, uintptr_t fp,
	       uint64_t now, int may_scan, uint8_t *settled)
{
	if (how == EMIT_MISS)
		emit_miss_body(s, exit_bit, fn, site, sp, args, fp, now,
			       may_scan, settled);
	else
		emit_slow_body(s, exit_bit, fn, site, sp, args, fp, now,
			       may_scan, settled);
}

/* One event, all inline: for the slow paths (hook_slow, the policy), whose
 * frame the event's slow path then shares, as the hooks' out-of-line
 * paths do.  Returns 0 when it took emit_fast()'s common case, else
 * non-zero: the caller then measures the recorder's work (pause_put). */
static inline __attribute__((always_inline, unused)) int
emit(struct ctrace__stream *s, uint8_t exit_bit, uintptr_t fn, uintptr_t site,
     uintptr_t sp, const struct ctrace__args_inline *args, uintptr_t fp,
     uint64_t now, int may_scan, uint8_t *settled)
{
	int how = emit_fast(s, exit_bit, fn, site, sp, args, 1, now, settled);
	if (unlikely(how != 0))
		emit_rest_body(how, s, exit_bit, fn, site, sp, args, fp, now,
			       may_scan, settled);
	return how;
}

/* emit(), then the recorder's work for it, if it took a slow path, in a
 * PAUSE record. */
static inline __attribute__((always_inline, unused)) void
emit_timed(struct ctrace__stream *s, uint8_t exit_bit, uintptr_t fn,
	   uintptr_t site, uintptr_t sp, uintptr_t fp, uint64_t now,
	   int may_scan, uint8_t *settled)
{
	if (unlikely(emit(s, exit_bit, fn, site, sp, NULL, fp, now, may_scan,
			  settled) != 0))
		pause_put(s, now, 0, CTRACE_PAUSE_MIN_TICKS,
			  CTRACE_PAUSE_NO_DRAIN);
}

#endif /* CTRACE_EMIT_H */
