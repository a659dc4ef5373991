/* stream.c -- decoding one stream's chunks into events.
 *
 * This is the symbolizer's inner loop: a tag byte, a slot lookup and one
 * or two LEB128 deltas per event.  A stream holds a window of its chunk in
 * memory (STREAM_WINDOW bytes, refilled before a record could reach past
 * it), so that memory never grows with the chunk size; a damaged
 * record ends the decoding of its chunk (everything before it stays) and
 * the stream goes on with its next chunk that starts afresh (its time
 * base never depends on the damaged one; its slots do when it continues
 * the damaged chunk's pair table, CTRACE_CHUNK_CONTINUES).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/trace.h"

void stream_init(struct stream *s, struct trace *t, struct chunk_span span)
{
	memset(s, 0, sizeof *s);
	s->trace = t;
	s->next_chunk = span.first;
	/* An empty span may have no array at all: NULL + 0 is undefined. */
	s->chunks_end = span.n ? span.first + span.n : span.first;
	bool v5 = t->hdr.version_major >= 5;
	s->narrow = v5 ? CTRACE_PAIR_NARROW : CTRACE_V4_PAIR_NARROW;
	s->tag_new = v5 ? CTRACE_TAG_NEW : CTRACE_V4_TAG_NEW;
	s->tag_wide = v5 ? CTRACE_TAG_WIDE : CTRACE_V4_TAG_WIDE;
	s->home_bits = v5 ? CTRACE_PAIR_HOME_BITS : CTRACE_V4_PAIR_HOME_BITS;
	s->returns = v5;
	s->wide_stays = v5;
	s->home_by_hook = v5;
}

/* The wide slot of `home`, NULL when its block was never used (the slot
 * is not set), or allocated when `make`. */
static struct stream_wide *wide_block(struct stream *s, unsigned home,
				      bool make)
{
	if (!s->wide) {
		if (!make)
			return NULL;
		s->wide = must_calloc(STREAM_WIDE_BLOCKS, sizeof *s->wide);
	}
	struct stream_wide **b = &s->wide[home / STREAM_WIDE_BLOCK];
	if (!*b && make)
		*b = must_calloc(1, sizeof **b);
	return *b;
}

static struct stream_slot *wide_slot(struct stream *s, unsigned home)
{
	return &wide_block(s, home, true)->slot[home % STREAM_WIDE_BLOCK];
}

static struct stream_named *wide_named(struct stream *s, unsigned home)
{
	return &wide_block(s, home, true)->named[home % STREAM_WIDE_BLOCK];
}

/* Empties every wide slot (the blocks stay, for the next chunk). */
static void wide_clear(struct stream *s)
{
	for (unsigned i = 0; s->wide && i < STREAM_WIDE_BLOCKS; i++)
		if (s->wide[i])
			memset(s->wide[i], 0, sizeof *s->wide[i]);
}

static void wide_free(struct stream *s)
{
	for (unsigned i = 0; s->wide && i < STREAM_WIDE_BLOCKS; i++)
		free(s->wide[i]);
	free(s->wide);
	s->wide = NULL;
}

void stream_fini(struct stream *s)
{
	if (s->has_head)
		payload_free(s->head.extra);
	s->head.extra = NULL;
	free(s->buf);
	s->buf = NULL;
	s->cap = 0;
	wide_free(s);
	free(s->open);
	s->open = NULL;
	s->has_head = false;
	s->next_chunk = s->chunks_end;
	s->pos = s->end = NULL;
}

static bool chunk_is_cut(const struct stream *s)
{
	return trace_chunk_is_cut(s->trace, s->chunk);
}

/* Leaves the current chunk; a chunk the file ends inside of is reported
 * once all of it that could be decoded was. */
static void leave_chunk(struct stream *s, bool report_cut)
{
	if (report_cut && s->chunk && chunk_is_cut(s)) {
		trace_error(s->trace, s->chunk->offset, "truncated chunk");
		s->table_ok = false;
	}
	s->chunk = NULL;
	s->pos = s->end = NULL;
}

/* Reports a damaged record and gives up the rest of its chunk. */
static void corrupt(struct stream *s, const uint8_t *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void corrupt(struct stream *s, const uint8_t *at, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	trace_error(s->trace, s->chunk->offset + s->win + (uint64_t)(at - s->buf),
		    "%s", msg);
	s->table_ok = false;
	leave_chunk(s, false);
}

/* A record that does not fit in its chunk: in a chunk the file ends inside
 * of, that is the cut, not damage. */
static void past_end(struct stream *s, const uint8_t *at)
{
	if (chunk_is_cut(s))
		leave_chunk(s, true);
	else
		corrupt(s, at, "record runs past the end of its chunk");
}

/* Makes the window hold the next `need` bytes of the chunk from s->pos on,
 * or all that is left of the chunk when fewer: keeps the bytes not decoded
 * yet and reads what follows them.  The buffer grows for a record longer
 * than STREAM_WINDOW and shrinks back once past it. */
static void window_fill(struct stream *s, size_t need)
{
	const struct chunk_ref *c = s->chunk;
	size_t keep = (size_t)(s->end - s->pos);
	uint32_t at = s->win + (uint32_t)(s->pos - s->buf);
	size_t left = c->size - at; /* of the chunk, from pos */
	size_t want = need > STREAM_WINDOW ? need : STREAM_WINDOW;

	if (keep >= need || keep == left)
		return;
	if (want > left)
		want = left;
	if (want > s->cap || (s->cap > STREAM_WINDOW && want <= STREAM_WINDOW)) {
		size_t cap = want > STREAM_WINDOW ? want : STREAM_WINDOW;
		uint8_t *b = must_malloc(cap);
		if (keep)
			memcpy(b, s->pos, keep);
		free(s->buf);
		s->buf = b;
		s->cap = cap;
	} else if (keep) {
		memmove(s->buf, s->pos, keep);
	}
	/* A chunk that cannot be read reads as zeros, its end. */
	if (trace_read_part(s->trace, c, at + (uint32_t)keep,
			    (uint32_t)(want - keep), s->buf + keep) < 0) {
		memset(s->buf + keep, 0, want - keep);
		s->table_ok = false;
	}
	s->win = at;
	s->pos = s->buf;
	s->end = s->buf + want;
}

static bool load_next_chunk(struct stream *s)
{
	struct trace *t = s->trace;

	while (s->next_chunk < s->chunks_end) {
		const struct chunk_ref *c = s->next_chunk++;

		/* A chunk that continues the pair table of one not decoded to
		 * its end (damaged, cut, missing) would name pairs wrongly:
		 * it and those that continue it are skipped, said once. */
		bool carry = c->flags & CTRACE_CHUNK_CONTINUES;
		if (carry && !(s->table_ok && c->seq == s->table_seq + 1)) {
			if (!s->skipping || c->seq != s->table_seq + 1)
				trace_error(t, c->offset,
					    "thread %u: chunk %llu continues "
					    "the pair table of chunk %llu, "
					    "which could not be decoded to its "
					    "end: its events are skipped up "
					    "to the thread's next chunk that "
					    "starts afresh",
					    c->thread,
					    (unsigned long long)c->seq,
					    (unsigned long long)c->seq - 1);
			s->table_ok = false;
			s->skipping = true;
			s->table_seq = c->seq;
			continue;
		}
		s->table_ok = true;
		s->skipping = false;
		s->table_seq = c->seq;
		s->chunk = c;
		if (c->header_size > c->size) {
			leave_chunk(s, true);
			continue;
		}
		s->win = c->header_size;
		s->pos = s->end = s->buf;
		window_fill(s, STREAM_LOOKAHEAD);
		/* A thread's time never goes back: a chunk that starts
		 * before the stream's latest event (a wrapped or reset tick
		 * counter, a damaged header) goes on from that event, so
		 * that no duration comes out negative or absurd. */
		if (c->base_time < s->time)
			trace_error(t, c->offset,
				    "thread %u: time goes back by %llu ticks "
				    "(the chunk is placed after the thread's "
				    "previous event)",
				    c->thread,
				    (unsigned long long)(s->time - c->base_time));
		else
			s->time = c->base_time;
		s->sp = 0;
		s->exit_sp = 0;
		memset(&s->arg_bases, 0, sizeof s->arg_bases);
		memset(s->named, 0, sizeof s->named);
		if (carry)
			return true;
		memset(s->slots, 0, sizeof s->slots);
		s->open_n = 0;
		/* The wide slots' cached names are emptied with their
		 * pairs, not at every chunk as the narrow slots' above: a
		 * chunk that continues the table keeps both, and their names
		 * hold over the same times. */
		if (s->wide_used)
			wide_clear(s);
		s->wide_used = false;
		s->new_fn = s->new_site = s->new_hook = 0;
		return true;
	}
	free(s->buf);
	s->buf = NULL;
	s->cap = 0;
	return false;
}

static uint64_t add_saturated(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* The EXTENDED record at s->pos, whole in the window (unless it runs past
 * its chunk's end, which decoding reports): where it starts. */
static const uint8_t *extended_whole(struct stream *s)
{
	const uint8_t *p = s->pos + 2;
	uint64_t len;

	if (s->end - s->pos >= 2 &&
	    ctrace__uleb_get(&p, s->end, &len) == 0 &&
	    len <= s->chunk->size)
		window_fill(s, (size_t)(p - s->pos) + (size_t)len);
	return s->pos;
}

/* An EXTENDED record at p.  Returns true when it produced an event. */
static bool extended(struct stream *s, const uint8_t *p)
{
	const uint8_t *rec = p, *end = s->end;
	struct event *ev = &s->head;
	struct trace *t = s->trace;
	uint64_t len, count;
	unsigned type, slot;
	struct stream_slot *sl;

	ev->slot = 0; /* no pair: slot 0 is never defined */
	if (end - p < 2)
		goto past;
	type = p[1];
	p += 2;
	if (ctrace__uleb_get(&p, end, &len) < 0 || len > (uint64_t)(end - p))
		goto past;
	s->pos = p + len;

	switch (type) {
	case CTRACE_REC_DEFINE:
		if (len < 17)
			goto short_rec;
		slot = p[0];
		if (slot == 0 || slot >= (t->hdr.version_major >= 2
						  ? s->narrow + 1u
						  : CTRACE_V1_PAIR_SLOTS)) {
			corrupt(s, rec, "bad pair slot %u", slot);
			return false;
		}
		sl = &s->slots[slot];
		*sl = (struct stream_slot){.fn = load_u64(p + 1),
					   .site = load_u64(p + 9),
					   .defined = s->time,
					   .gen = ++s->gen,
					   .set = true};
		/* An ENTRY's DEFINE may add the frame (which the replay
		 * stage keeps when the pair has none yet). */
		p += 17;
		if (p < s->pos && ctrace__uleb_get(&p, s->pos, &count) == 0 &&
		    count >= 2 && count < (64u << 20)) {
			sl->frame = (uint32_t)(count / 2 * t->hdr.pointer_size);
			sl->inlined = count & 1;
		}
		s->named[slot] = (struct stream_named){0};
		return false;
	case CTRACE_REC_STACK: {
		int64_t words;
		if (ctrace__sleb_get(&p, s->pos, &words) < 0)
			goto short_rec;
		s->sp = (s->sp + (uint64_t)words * t->hdr.pointer_size) &
			t->sp_mask;
		s->exit_sp = s->sp;
		return false;
	}
	case CTRACE_REC_LOST:
		if (ctrace__uleb_get(&p, s->pos, &count) < 0 || s->pos - p < 17)
			goto short_rec;
		ev->kind = EV_LOST;
		ev->extra = NULL;
		ev->ticks = s->time;
		ev->count = count;
		ev->reason = p[0];
		ev->pair = NULL;
		t->lost_recorded = add_saturated(t->lost_recorded, count);
		if (p[0] < 32)
			t->lost_reasons |= 1u << p[0];
		return true;
	case CTRACE_REC_THREAD_END:
		if (len < 8)
			goto short_rec;
		ev->kind = EV_THREAD_END;
		ev->extra = NULL;
		/* never before the stream's last event: keeps time monotonic */
		ev->ticks = load_u64(p) > s->time ? load_u64(p) : s->time;
		ev->pair = NULL;
		return true;
	case CTRACE_REC_MARK:
		if (len < 9)
			goto short_rec;
		ev->kind = EV_MARK;
		ev->ticks = load_u64(p) > s->time ? load_u64(p) : s->time;
		ev->pair = NULL;
		ev->extra_len = len - 8;
		ev->extra = payload_alloc(ev->extra_len);
		memcpy(ev->extra, p + 8, ev->extra_len);
		return true;
	case CTRACE_REC_PAUSE:
		if (ctrace__uleb_get(&p, s->pos, &count) < 0)
			goto short_rec;
		s->paused = add_saturated(s->paused, count);
		return false;
	case CTRACE_REC_CONTROL:
		if (len < 10)
			goto short_rec;
		ev->kind = EV_CONTROL;
		ev->extra = NULL;
		ev->ticks = load_u64(p) > s->time ? load_u64(p) : s->time;
		ev->pair = NULL;
		ev->reason = p[8];
		ev->count = p[9];
		return true;
	case CTRACE_REC_ARGS_SHORT:
	case CTRACE_REC_ARGS_REGS:
	case CTRACE_REC_ARGS_LIB:
		/* Not after an ENTRY (a damaged one): its registers, which
		 * later ones may count from, were not read. */
		s->arg_bases.bad = true;
		return false;
	default: /* later versions' records */
		return false;
	}
short_rec:
	corrupt(s, rec, "extended record of type %u too short", type);
	return false;
past:
	past_end(s, rec);
	return false;
}

/* A RETVAL_SHORT payload spread into the compact RETVAL form (the
 * registers' slebs at their width); a payload that does not parse gives
 * the one byte 0, "not captured".  state: that of a RETVAL_INT or
 * RETVAL_WORD, whose payload has none (0 for RETVAL_SHORT's, its first
 * byte). */
static uint8_t *retval_expand_short(const uint8_t *p, uint64_t len,
				    uint8_t state, size_t *n)
{
	const uint8_t *end = p + len;
	uint8_t *out = payload_alloc(CTRACE_RETVAL_PAYLOAD), *q = out;
	*n = 1;
	out[0] = 0;
	if (len == 0)
		return out;
	uint8_t mask = state ? state : p[0];
	int narrow = (mask & CTRACE_RETVAL_NARROW) != 0;
	const uint8_t *r = state ? p : p + 1;
	q = out + 1;
	if (!(mask & CTRACE_RETVAL_COMPACT) || (mask & CTRACE_RETVAL_ST0))
		return out;
	for (int k = 0; k < 2; k++) {
		if (!(mask & (k ? CTRACE_RETVAL_R1 : CTRACE_RETVAL_R0)))
			continue;
		int64_t v;
		if (ctrace__sleb_get(&r, end, &v) < 0)
			return out;
		memcpy(q, &v, narrow ? 4 : 8); /* little-endian */
		q += narrow ? 4 : 8;
	}
	size_t rest = (size_t)(end - r);
	size_t want = ((mask & CTRACE_RETVAL_XMM0) ? (narrow ? 8u : 16u) : 0) +
		      ((mask & CTRACE_RETVAL_XMM1) ? (narrow ? 8u : 16u) : 0);
	if (mask & CTRACE_RETVAL_MEM) {
		if (rest < want + CTRACE_RETVAL_MEM_HEAD ||
		    r[want + 8] > CTRACE_RETVAL_MEM_MAX)
			return out;
		want += CTRACE_RETVAL_MEM_HEAD + r[want + 8];
	}
	if (rest != want || (size_t)(q - out) + want > CTRACE_RETVAL_PAYLOAD)
		return out;
	if (want) /* the vector registers, in memory: rare */
		memcpy(q, r, want);
	out[0] = mask;
	*n = (size_t)(q - out) + want;
	return out;
}

/* An ARGS_SHORT payload (regs: ARGS_REGS', registers alone, whose pc is
 * the ENTRY's hook) spread into the ARGS layout for the event; one that
 * does not read gives the one byte "not captured". */
static void attach_short_args(struct stream *s, struct event *ev,
			      const uint8_t *p, uint64_t len, uint64_t fn,
			      bool regs, bool lib)
{
	size_t n = 0;
	/* An ENTRY of a pair without its hook (not a 5.5 trace's): the
	 * registers cannot be placed. */
	ev->extra = regs && ev->hook == 0
			    ? (s->arg_bases.bad = true, NULL)
			    : payload_expand_short(p, len, fn,
						   regs ? ev->hook : 0, lib,
						   ev->sp,
						   s->trace->sp_mask,
						   &s->arg_bases, &n);
	if (ev->extra == NULL) /* shown as not captured */
		ev->extra = payload_alloc(1);
	ev->extra_len = n;
}

/* An ARGS record right after an ENTRY, or a RETVAL record right after an
 * EXIT, belongs to it: the event takes a copy of its payload.  fn: the
 * function's address, which the short form of ARGS leaves out. */
static void attach_extra(struct stream *s, struct event *ev, uint64_t fn)
{
	const uint8_t *p = s->pos;
	uint8_t want = ev->kind == EV_ENTRY ? CTRACE_REC_ARGS
					    : CTRACE_REC_RETVAL;
	uint64_t len;

	ev->extra = NULL;
	ev->extra_len = 0;
	if ((size_t)(s->end - p) < STREAM_LOOKAHEAD) {
		window_fill(s, STREAM_LOOKAHEAD);
		p = s->pos;
	}
	if (s->end - p < 3 || p[0] != CTRACE_TAG_EXTENDED)
		return;
	/* The short forms of ARGS are spread into the ARGS layout; that of
	 * registers alone has the ENTRY's hook as its pc. */
	bool regs_args = ev->kind == EV_ENTRY && p[1] == CTRACE_REC_ARGS_REGS;
	bool lib_args = ev->kind == EV_ENTRY && p[1] == CTRACE_REC_ARGS_LIB;
	bool short_args = regs_args || lib_args ||
			  (ev->kind == EV_ENTRY && p[1] == CTRACE_REC_ARGS_SHORT);
	uint8_t ret_state =
		p[1] == CTRACE_REC_RETVAL_INT
			? CTRACE_RETVAL_COMPACT | CTRACE_RETVAL_R0 |
				  CTRACE_RETVAL_NARROW
		: p[1] == CTRACE_REC_RETVAL_WORD
			? CTRACE_RETVAL_COMPACT | CTRACE_RETVAL_R0
			: 0;
	bool short_ret = ev->kind != EV_ENTRY &&
			 (p[1] == CTRACE_REC_RETVAL_SHORT || ret_state != 0);
	/* a RETVAL with st(1) after it: kept behind RETVAL_ST1_HELD */
	bool st1_ret = ev->kind != EV_ENTRY && p[1] == CTRACE_REC_RETVAL_ST1;
	if (p[1] != want && !short_args && !short_ret && !st1_ret)
		return;
	p += 2;
	if (ctrace__uleb_get(&p, s->end, &len) < 0)
		return; /* left to the main loop to report */
	if (len > (uint64_t)(s->end - p)) {
		/* longer than the window holds: widened to it */
		p = extended_whole(s) + 2;
		if (ctrace__uleb_get(&p, s->end, &len) < 0 ||
		    len > (uint64_t)(s->end - p))
			return;
	}
	if (s->trace->skip_payloads) {
		/* nothing shows them: not even copied */
		s->arg_bases.bad = true;
	} else if (short_ret) {
		size_t n = 0;
		ev->extra = retval_expand_short(p, len, ret_state, &n);
		ev->extra_len = n;
	} else if (short_args) {
		attach_short_args(s, ev, p, len, fn, regs_args, lib_args);
	} else if (st1_ret) {
		ev->extra = payload_alloc(1 + len);
		ev->extra[0] = RETVAL_ST1_HELD;
		memcpy(ev->extra + 1, p, len);
		ev->extra_len = 1 + len;
	} else {
		ev->extra = payload_alloc(len ? len : 1);
		memcpy(ev->extra, p, len);
		ev->extra_len = len;
	}
	s->pos = p + len;
}

/* Format 6: the registers that follow an ENTRY of a pair whose NEW said
 * so (CTRACE_NEW_KEY_ARGS), an ARGS_REGS payload without its header: a
 * count byte, then as many registers, each a number byte and an sleb.
 * Its length is read from it; one that runs past the chunk is damage
 * (the rest of the chunk cannot be found).  The event takes a copy
 * spread into the ARGS layout, as attach_extra() does for an ARGS_REGS
 * record. */
static void attach_inline_args(struct stream *s, struct event *ev, uint64_t fn)
{
	const uint8_t *p = s->pos;
	ev->extra = NULL;
	ev->extra_len = 0;
	if ((size_t)(s->end - p) < STREAM_LOOKAHEAD) {
		window_fill(s, STREAM_LOOKAHEAD);
		p = s->pos;
	}
	const uint8_t *q = p;
	if (q >= s->end) {
		past_end(s, p);
		return;
	}
	unsigned n = *q++ & CTRACE_ARGS_SHORT_COUNT_MASK;
	for (unsigned i = 0; i < n; i++) {
		int64_t v;
		/* its number byte, then its sleb */
		if (++q > s->end || ctrace__sleb_get(&q, s->end, &v) < 0) {
			past_end(s, p);
			return;
		}
	}
	size_t len = (size_t)(q - p);
	s->pos = q;
	if (s->trace->skip_payloads) {
		/* nothing shows them: not even copied */
		s->arg_bases.bad = true;
		return;
	}
	attach_short_args(s, ev, p, len, fn, true, false);
}

/* Format 2: a NEW pair or one in a wide slot, whose tag was at p[-1]:
 * reads what follows the tag, moves the pair into its narrow slot (and
 * that slot's pair into its own home) as the recorder did, and returns
 * the narrow slot, or 0 after reporting damage.  Format 5: a pair may
 * stay in its wide slot, or a NEW go into one: returns that slot's
 * number then. */
static unsigned pair_moved_in(struct stream *s, const uint8_t **pp,
			      uint8_t tag)
{
	const uint8_t *p = *pp, *rec = p - 1;
	struct trace *t = s->trace;
	unsigned low = tag & 0x7fu, home, choice;
	struct stream_slot in;
	struct stream_named named_in = {0};

	if (low >= s->tag_wide) {
		/* Format 5: CTRACE_TAG_WIDE stays, CTRACE_TAG_WIDE_MOVE
		 * moves to the first narrow slot; before: the choice bit
		 * above the home's high bits. */
		unsigned high_bits = s->home_bits - 8u;
		if (p >= s->end)
			goto past;
		home = (low & ((1u << high_bits) - 1)) << 8 | *p++;
		choice = s->wide_stays ? 0 : (low >> high_bits) & 1u;
		const struct stream_wide *b = wide_block(s, home, false);
		in = b ? b->slot[home % STREAM_WIDE_BLOCK]
		       : (struct stream_slot){0};
		if (!in.set) {
			corrupt(s, rec,
				"wide pair slot %u used before its definition",
				home);
			return 0;
		}
		if (s->wide_stays && low < CTRACE_TAG_WIDE_MOVE) {
			*pp = p;
			return STREAM_WIDE_SLOT + home;
		}
		named_in = *wide_named(s, home);
		wide_slot(s, home)->set = false;
	} else {
		uint64_t key, frame = 0;
		int64_t dfn, dsite, dhook = 0;
		bool entry = !(tag & CTRACE_TAG_EXIT_BIT);
		bool has_hook = entry && t->hdr.version_major >= 3;
		/* Format 4: an ENTRY's frame before its call site, whose base
		 * (and its hook's) the frame's inlined bit picks. */
		bool v4 = t->hdr.version_major >= 4;
		bool frame_first = entry && v4;
		if (ctrace__uleb_get(&p, s->end, &key) < 0 ||
		    ctrace__sleb_get(&p, s->end, &dfn) < 0 ||
		    (frame_first &&
		     ctrace__uleb_get(&p, s->end, &frame) < 0) ||
		    ctrace__sleb_get(&p, s->end, &dsite) < 0 ||
		    (entry && !frame_first &&
		     ctrace__uleb_get(&p, s->end, &frame) < 0) ||
		    (has_hook && ctrace__sleb_get(&p, s->end, &dhook) < 0))
			goto past;
		/* Format 4: the key says which narrow slot and which hash;
		 * the home is the recorder's hash of the addresses. */
		uint64_t keys = CTRACE_NEW_KEY_CHOICE |
				(s->wide_stays ? CTRACE_NEW_KEY_WIDE
					       : CTRACE_NEW_KEY_SIBLING) |
				(entry && t->hdr.version_major >= 6
					 ? CTRACE_NEW_KEY_ARGS
					 : 0);
		bool bad_key =
			v4 ? (key & ~keys) != 0 ||
				     (!entry && (key & CTRACE_NEW_KEY_SIBLING)) ||
				     ((key & CTRACE_NEW_KEY_WIDE) &&
				      (key & CTRACE_NEW_KEY_CHOICE))
			   : key >= 2u << CTRACE_V4_PAIR_HOME_BITS;
		if (bad_key) {
			corrupt(s, rec, "bad pair key %llu",
				(unsigned long long)key);
			return 0;
		}
		home = (unsigned)(key >> 1);
		choice = (unsigned)(key & 1);
		uint64_t fn = (s->new_fn + (uint64_t)dfn) & t->sp_mask;
		bool from_host = frame_first && (frame & 1);
		uint64_t site = ((from_host ? s->new_site : fn) +
				 (uint64_t)dsite) & t->sp_mask;
		s->new_fn = fn;
		s->new_site = site;
		in = (struct stream_slot){
			.fn = fn, .site = site, .defined = s->time, .set = true,
			.args_inline = entry && t->hdr.version_major >= 6 &&
				       (key & CTRACE_NEW_KEY_ARGS)};
		if (has_hook) {
			in.hook = ((from_host ? s->new_hook : fn) +
				   (uint64_t)dhook) & t->sp_mask;
			s->new_hook = in.hook;
		}
		/* Format 5: an ENTRY's home is always that of its function
		 * and its call site XOR its hook (an EXIT's hook is 0). */
		if (v4)
			home = CTRACE_PAIR_HOME_OF(
				fn,
				s->home_by_hook ||
						(key & CTRACE_NEW_KEY_SIBLING)
					? site ^ in.hook
					: site,
				s->home_bits);
		/* Like a DEFINE's, a NEW ENTRY's frame is offered to the
		 * replay stage, which keeps a pair's first one. */
		if (frame >= 2 && frame < (64u << 20)) {
			in.frame = (uint32_t)(frame / 2 * t->hdr.pointer_size);
			in.inlined = frame & 1;
		}
		/* Format 5: into the wide slot, whose pair leaves the
		 * table. */
		if (v4 && (key & CTRACE_NEW_KEY_WIDE)) {
			in.gen = ++s->gen;
			*wide_slot(s, home) = in;
			*wide_named(s, home) = (struct stream_named){0};
			s->wide_used = true;
			*pp = p;
			return STREAM_WIDE_SLOT + home;
		}
	}
	unsigned slot = CTRACE_PAIR_NARROW_SLOT_OF(home, choice, s->home_bits,
						   s->narrow);
	const struct stream_slot *out = &s->slots[slot];
	/* Format 3: a NEW ENTRY replaces the same pair as an EXIT defined
	 * it (no hook) in place, as the recorder does. */
	bool replaced = in.hook && out->set && !out->hook &&
			out->fn == in.fn && out->site == in.site &&
			low == s->tag_new;
	if (out->set && !replaced) {
		*wide_slot(s, s->home[slot]) = *out;
		*wide_named(s, s->home[slot]) = s->named[slot];
		s->wide_used = true;
	}
	/* A pair from a wide slot keeps its definition and names. */
	if (low < s->tag_wide)
		in.gen = ++s->gen;
	s->slots[slot] = in;
	s->home[slot] = (uint16_t)home;
	s->named[slot] = named_in;
	*pp = p;
	return slot;
past:
	past_end(s, rec);
	return 0;
}

/* Format 5: an ENTRY in slot `slot` opens a call. */
static void open_push(struct stream *s, unsigned slot)
{
	if (!s->open)
		s->open = must_calloc(CTRACE_RETURN_WINDOW, sizeof *s->open);
	struct stream_open *o =
		&s->open[s->open_top++ & (CTRACE_RETURN_WINDOW - 1)];
	o->pair = *stream_slot_at(s, slot);
	o->slot = (uint16_t)slot;
	s->open_n += s->open_n < CTRACE_RETURN_WINDOW;
}

/* Format 5: a RETURN ends the innermost open call: the slot that names
 * its pair, or 0 when no call is open. */
static unsigned open_pop(struct stream *s)
{
	if (s->open_n == 0)
		return 0;
	s->open_n--;
	const struct stream_open *o =
		&s->open[--s->open_top & (CTRACE_RETURN_WINDOW - 1)];
	const struct stream_slot *sl = stream_slot_at(s, o->slot);
	if (sl->set && sl->gen == o->pair.gen)
		return o->slot;
	s->slots[STREAM_RETURN_SLOT] = o->pair;
	s->named[STREAM_RETURN_SLOT] = (struct stream_named){0};
	return STREAM_RETURN_SLOT;
}

bool stream_advance(struct stream *s)
{
	struct event *ev = &s->head;

	for (;;) {
		const uint8_t *p = s->pos;
		const struct stream_slot *sl;
		uint64_t delta;
		unsigned slot;
		uint8_t tag;

		if (s->chunk && (size_t)(s->end - p) < STREAM_LOOKAHEAD) {
			window_fill(s, STREAM_LOOKAHEAD);
			p = s->pos;
		}
		if (p >= s->end) {
			if (s->chunk)
				leave_chunk(s, true);
			if (!load_next_chunk(s))
				break;
			continue;
		}
		tag = *p;
		if (tag == CTRACE_TAG_END) {
			leave_chunk(s, true);
			continue;
		}
		if (tag == CTRACE_TAG_EXTENDED) {
			p = extended_whole(s);
			if (extended(s, p))
				return s->has_head = true;
			continue;
		}
		p++;
		if (s->returns && tag >= CTRACE_TAG_RETURN) {
			slot = open_pop(s);
			if (slot == 0) {
				corrupt(s, s->pos, "return with no call open");
				continue;
			}
			if (tag < CTRACE_TAG_RETURN_LONG) {
				delta = tag - CTRACE_TAG_RETURN;
			} else if (ctrace__uleb_get(&p, s->end, &delta) < 0) {
				past_end(s, s->pos);
				continue;
			}
			sl = stream_slot_at(s, slot);
			ev->kind = EV_EXIT;
			ev->sp = s->exit_sp;
			goto timed;
		}
		if (s->returns && tag == CTRACE_TAG_EXIT_PAIR) {
			if (p >= s->end) {
				past_end(s, s->pos);
				continue;
			}
			/* an EXIT's tag, 0x81 (narrow slot 1) included */
			tag = *p++;
			if (!(tag & CTRACE_TAG_EXIT_BIT) ||
			    tag == CTRACE_TAG_EXTENDED) {
				corrupt(s, s->pos, "bad exit tag 0x%02x", tag);
				continue;
			}
		}
		slot = tag & 0x7fu;
		if (s->trace->hdr.version_major >= 2 && slot > s->narrow) {
			slot = pair_moved_in(s, &p, tag);
			if (slot == 0)
				continue;
		}
		sl = stream_slot_at(s, slot);
		if (!sl->set) {
			corrupt(s, s->pos,
				"pair slot %u used before its definition", slot);
			continue;
		}
		if (ctrace__uleb_get(&p, s->end, &delta) < 0) {
			past_end(s, s->pos);
			continue;
		}
		if (tag & CTRACE_TAG_EXIT_BIT) {
			ev->kind = EV_EXIT;
			ev->sp = s->exit_sp;
		} else {
			int64_t words;
			if (ctrace__sleb_get(&p, s->end, &words) < 0) {
				past_end(s, s->pos);
				continue;
			}
			s->sp = (s->sp + (uint64_t)words *
						 s->trace->hdr.pointer_size) &
				s->trace->sp_mask;
			ev->kind = EV_ENTRY;
			ev->sp = s->sp;
			ev->hook = sl->hook;
			if (s->returns)
				open_push(s, slot);
		}
	timed:
		s->exit_sp = 0;
		if (s->time + delta < s->time) {
			trace_error(s->trace,
				    s->chunk->offset +
					    (uint64_t)(s->pos - s->buf),
				    "thread %u: time counter wraps",
				    s->chunk->thread);
			delta = 0;
		}
		s->pos = p;
		s->time += delta;
		ev->ticks = s->time;
		ev->slot = slot;
		ev->pair = NULL;
		if (ev->kind == EV_ENTRY && sl->args_inline)
			attach_inline_args(s, ev, sl->fn);
		else
			attach_extra(s, ev, sl->fn);
		return s->has_head = true;
	}
	return s->has_head = false;
}
