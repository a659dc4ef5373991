/* recipe.c -- a call's arguments decoded once per function and call
 * site, then read from each call's registers.
 *
 * Deciding which location to trust (args.c) walks the DWARF, the location
 * lists and the code before the hook: the same work for every call of a
 * (function, call site) at one hook address.  frame.c counts every read
 * of a captured value that is not a copy of a register's bytes into the
 * buffer a parameter's value is built in, and logs those copies.  When a
 * call's decoding counted none (x86-64: parameters in registers, or
 * constants), every decision it took came from the DWARF, the code and
 * which registers the payload holds, never from their values; its
 * recipe is: the values' names, types and reasons as they are, and for
 * each value shown, its buffer (constant bytes) with the log of register
 * copies, to replay with another call's registers before formatting them
 * (format.c, with that call's captured memory).  A call with the same
 * pair, hook address and captured register numbers gets its values by the
 * recipe: the bytes the decoding would have produced.  Any other call
 * (a stack slot, a computed location, an entry value) is decoded in full.
 * CTRACE_VALUE_CACHE=0 switches recipes off, and the tests compare.
 *
 * A call by recipe costs what changes from call to call: its registers
 * placed in each value's bytes (their places in the capture found once),
 * numbers formatted into one block with the values, and the output
 * around the texts made once (values.c's pieces, tree and JSON).
 *
 * Memory: one recipe per (pair, hook address, register numbers) that has
 * one, at most RECIPE_MAX (4,096) of them, each of at most RECIPE_TEXTS
 * (16) values of about 1 KiB, and its pieces (its output without the
 * texts): 64 MiB at worst, about 1 KiB a recipe of one argument; later
 * ones are not kept (decoded in full).
 */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "values/dwinfo.h"
#include "values/values.h"

enum {
	RECIPE_MAX = 4096, /* a power of two */
	RECIPE_TEXTS = 16, /* values shown per call, at most */
	RECIPE_HOT_BITS = 10, /* the last recipe of 1,024 call sites */
};

/* One value shown: format_text's type and size, the buffer's bytes, the
 * register copies to replay into it. */
struct recipe_text {
	Dwarf_Die type;
	enum fmt_kind kind; /* shown without the DWARF: format_kind */
	size_t size;
	/* kind not FMT_OTHER, at most eight bytes: built in image_word
	 * (word_of), the image's first eight bytes */
	bool word;
	uint64_t image_word;
	uint8_t image[VALUES_MAX_BYTES];
	size_t n;
	struct frame_sink log[FRAME_SINK_MAX];
	/* where each copy's register is in a capture of the recipe's
	 * key, whose register numbers are the same: its index, or
	 * FROM_SP, FROM_NONE (a number the capture lacks: zero) or
	 * FROM_BYTES (the log's constant) */
	int8_t from[FRAME_SINK_MAX];
};

enum { FROM_BYTES = -1, FROM_SP = -2, FROM_NONE = -3 };

struct recipe_key {
	const struct trace *t;
	uint64_t fn, site, ticks, pc;
	bool cfa_zero;
	int nregs;
	uint8_t regno[CAPTURE_MAX_REGS];
};

struct recipe {
	struct recipe *next; /* in its hash bucket */
	struct recipe_key key;
	struct values *shape;  /* texts left out */
	struct values_pieces *pieces; /* the output around the texts */
	int *text_of;          /* each value's text, or -1 */
	size_t n_texts;
	struct recipe_text *texts;
	size_t *value_of;      /* each text's value */
	bool all_words;        /* every text x->word */
	size_t word_room;      /* FMT_TEXT_MAX + 1 a word */
};

static struct {
	struct recipe **bucket; /* RECIPE_MAX buckets */
	struct recipe *hot[1u << RECIPE_HOT_BITS]; /* by fn and site */
	size_t count;
	/* the decoding in progress */
	bool recording, ok;
	size_t n;
	struct recipe_text texts[RECIPE_TEXTS];
} rc;



static void key_of(struct recipe_key *k, const struct trace *t,
		   const struct values_call *p, const struct capture *cap)
{
	memset(k, 0, sizeof *k);
	k->t = t;
	k->fn = p->fn;
	k->site = p->site;
	k->ticks = p->ticks;
	k->pc = cap->pc;
	k->cfa_zero = cap->cfa == 0;
	k->nregs = cap->nregs;
	memcpy(k->regno, cap->regno, (size_t)cap->nregs);
}

static size_t bucket_of(const struct recipe_key *k)
{
	uint64_t h = (uint64_t)(uintptr_t)k->t;
	const uint64_t w[] = {k->fn, k->site, k->ticks, k->pc,
			      (uint64_t)k->nregs};
	for (size_t i = 0; i < sizeof w / sizeof *w; i++)
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < k->nregs; i++)
		h = (h ^ k->regno[i]) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 40) & (RECIPE_MAX - 1);
}

static bool same_key(const struct recipe_key *a, const struct recipe_key *b)
{
	return a->t == b->t && a->fn == b->fn && a->site == b->site &&
	       a->ticks == b->ticks && a->pc == b->pc &&
	       a->cfa_zero == b->cfa_zero && a->nregs == b->nregs &&
	       !memcmp(a->regno, b->regno, (size_t)a->nregs);
}

static char *dup_or_null(const char *s)
{
	return s ? must_strndup(s, strlen(s)) : NULL;
}

/* Register reg of cap as frame_init sets it (a later copy of a number
 * wins; the stack pointer is the capture's): one the log copied, which
 * the capture has. */
static uint64_t reg_of(const struct capture *cap, int reg)
{
	uint64_t v = 0;
	if (reg == CTRACE_DW_SP_X86_64)
		return cap->sp;
	for (int i = 0; i < cap->nregs; i++)
		if (cap->regno[i] == reg)
			v = cap->regval[i];
	return v;
}

/* Whether r is the recipe of a call of p in t with capture cap: its
 * key, compared without making one. */
static bool matches(const struct recipe *r, const struct trace *t,
		    const struct values_call *p, const struct capture *cap)
{
	const struct recipe_key *k = &r->key;
	if (k->t != t || k->fn != p->fn || k->site != p->site ||
	    k->ticks != p->ticks || k->pc != cap->pc ||
	    k->cfa_zero != (cap->cfa == 0) || k->nregs != cap->nregs)
		return false;
	for (int i = 0; i < k->nregs; i++)
		if (k->regno[i] != cap->regno[i])
			return false;
	return true;
}

/* The recipe of a call of p with capture cap, or NULL: the one its
 * call site found last (one comparison, nearly always), else the one
 * of its key. */
static struct recipe *recipe_of(const struct trace *t,
				const struct values_call *p,
				const struct capture *cap)
{
	size_t h = (size_t)(((p->fn ^ p->site) * 0x9e3779b97f4a7c15ull) >>
			    (64 - RECIPE_HOT_BITS));
	struct recipe *r = rc.hot[h];
	if (r && matches(r, t, p, cap))
		return r;
	struct recipe_key k;
	key_of(&k, t, p, cap);
	for (r = rc.bucket[bucket_of(&k)]; r; r = r->next)
		if (same_key(&r->key, &k))
			break;
	if (r)
		rc.hot[h] = r;
	return r;
}

/* Value x's bytes, as the recipe's decoding built them, in its first
 * eight: the image with cap's registers copied in (x->word: the log's
 * copies lie in those eight bytes, recipe_end checked). */
static uint64_t word_of(const struct recipe_text *x,
			const struct capture *cap)
{
	uint64_t w = x->image_word;
	for (size_t j = 0; j < x->n; j++) {
		const struct frame_sink *l = &x->log[j];
		uint64_t v, m = l->len >= 8 ? ~0ull : (1ull << 8 * l->len) - 1;
		unsigned sh = 8u * l->off;
		switch (x->from[j]) {
		case FROM_BYTES:
			memcpy(&v, l->bytes, 8);
			break;
		case FROM_SP:
			v = cap->sp;
			break;
		case FROM_NONE:
			v = 0;
			break;
		default:
			v = cap->regval[x->from[j]];
			break;
		}
		w = (w & ~(m << sh)) | (v & m) << sh;
	}
	return w;
}

/* Value x's text by format_text, or by its kind (a value wider than
 * eight bytes), allocated. */
static char *text_of(const struct trace *t, struct recipe_text *x,
		     const struct capture *cap)
{
	uint8_t buf[VALUES_MAX_BYTES];
	/* as args.c's buffer: zero past the value */
	memset(buf, 0, x->kind != FMT_OTHER ? 16 : sizeof buf);
	memcpy(buf, x->image, x->size);
	for (size_t j = 0; j < x->n; j++) {
		const struct frame_sink *l = &x->log[j];
		uint64_t rv = l->reg < 0 ? 0 : reg_of(cap, l->reg);
		memcpy(buf + l->off,
		       l->reg < 0 ? (const void *)l->bytes : (const void *)&rv,
		       l->len);
	}
	if (x->kind == FMT_OTHER)
		return format_text(cap, t->hdr.pointer_size, &x->type, buf,
				   x->size);
	char fast[FMT_TEXT_MAX + 1];
	size_t n = format_kind_text(x->kind, t->hdr.pointer_size, buf,
				    x->size, fast);
	return must_strndup(fast, n);
}

struct values *recipe_apply(struct trace *t, const struct values_call *p,
			    const uint8_t *payload, size_t len)
{
	struct capture cap;

	if (!rc.bucket || capture_parse(payload, len, &cap) < 0)
		return NULL;
	struct recipe *r = recipe_of(t, p, &cap);
	if (!r)
		return NULL;

	/* each value's text: numbers and pointers formatted in place
	 * below, the rest by format_text (its DWARF, the captured memory)
	 * here */
	char *other[RECIPE_TEXTS];
	size_t room = r->word_room, n;
	for (size_t k = 0; !r->all_words && k < r->n_texts; k++) {
		other[k] = NULL;
		if (!r->texts[k].word) {
			other[k] = text_of(t, &r->texts[k], &cap);
			n = strlen(other[k]) + 1;
			/* a number's text has FMT_TEXT_MAX + 1 bytes, which
			 * values.c may read */
			if (r->texts[k].kind != FMT_OTHER &&
			    n < FMT_TEXT_MAX + 1)
				n = FMT_TEXT_MAX + 1;
			room += n;
		}
	}
	/* one allocation: the values, then their texts; names and types
	 * are the shape's, which lives until values_reset, after every
	 * view is done with its values */
	const struct values *s = r->shape;
	size_t head = sizeof(struct values) + s->n * sizeof(struct value);
	struct values *v = values_alloc_packed(head + room);
	memcpy(v, s, head); /* no texts, not shared */
	v->packed = true;
	v->pieces = r->pieces;
	char *at = (char *)v + head;
	for (size_t k = 0; k < r->n_texts; k++) {
		const struct recipe_text *x = &r->texts[k];
		struct value *y = &v->v[r->value_of[k]];
		y->text = at;
		if (x->word) {
			/* may write FMT_TEXT_MAX + 1 bytes: the room */
			y->len = format_kind_word(x->kind, t->hdr.pointer_size,
						  word_of(x, &cap), x->size,
						  at);
		} else {
			y->len = strlen(other[k]);
			memcpy(at, other[k], y->len + 1);
			free(other[k]);
		}
		/* packed: from each text on, the rooms of those after it */
		at += y->len + 1;
	}
	return v;
}

void recipe_begin(bool record)
{
	rc.recording = record;
	rc.ok = true;
	rc.n = 0;
	frame_taint.reads = 0;
	frame_sink_start(NULL, 0);
}

char *recipe_text(const struct capture *cap, int ptr_size, Dwarf_Die *type,
		  const uint8_t *buf, size_t size)
{
	if (rc.recording) {
		if (rc.n == RECIPE_TEXTS || size > VALUES_MAX_BYTES) {
			rc.ok = false;
		} else {
			struct recipe_text *x = &rc.texts[rc.n++];
			x->type = *type;
			x->kind = format_kind(type, ptr_size, size);
			x->size = size;
			memcpy(x->image, buf, size);
			x->word = x->kind != FMT_OTHER && size <= 8;
			x->image_word = 0;
			memcpy(&x->image_word, buf, size <= 8 ? size : 8);
			/* the log is of this buffer's copies, if it is the
			 * one they went to; else there were none */
			x->n = frame_taint.buf == buf ? frame_taint.n : 0;
			memcpy(x->log, frame_taint.log, x->n * sizeof *x->log);
			for (size_t j = 0; j < x->n; j++)
				if (x->log[j].off + x->log[j].len > size)
					rc.ok = false; /* not in the value */
		}
	}
	return format_text(cap, ptr_size, type, buf, size);
}

void recipe_end(struct trace *t, const struct values_call *p,
		const struct capture *cap, bool usable, const struct values *v)
{
	bool record = rc.recording;
	rc.recording = false;
	if (!record || !usable || !rc.ok || frame_taint.reads ||
	    t->hdr.machine != EM_X86_64 || rc.count == RECIPE_MAX)
		return;
	size_t shown = 0;
	for (size_t i = 0; i < v->n; i++)
		shown += v->v[i].text != NULL;
	if (shown != rc.n)
		return;
	if (!rc.bucket)
		rc.bucket = must_calloc(RECIPE_MAX, sizeof *rc.bucket);
	struct recipe *r = must_calloc(1, sizeof *r);
	key_of(&r->key, t, p, cap);
	size_t b = bucket_of(&r->key);
	for (struct recipe *o = rc.bucket[b]; o; o = o->next)
		if (same_key(&o->key, &r->key)) {
			free(r);
			return;
		}
	struct values *s = must_malloc(sizeof *s + v->n * sizeof(struct value));
	s->n = v->n;
	s->refs = 0;
	s->packed = false;
	s->unknown = v->unknown;
	s->unknown_why = v->unknown_why;
	s->pieces = NULL;
	s->shown = NULL;
	r->text_of = must_malloc((v->n ? v->n : 1) * sizeof *r->text_of);
	r->n_texts = rc.n;
	r->texts = must_malloc((rc.n ? rc.n : 1) * sizeof *r->texts);
	memcpy(r->texts, rc.texts, rc.n * sizeof *r->texts);
	r->value_of = must_malloc((rc.n ? rc.n : 1) * sizeof *r->value_of);
	for (size_t i = 0, k = 0; i < v->n; i++) {
		s->v[i] = (struct value){dup_or_null(v->v[i].name),
					 dup_or_null(v->v[i].type), NULL,
					 v->v[i].why, 0};
		r->text_of[i] = v->v[i].text ? (int)k : -1;
		if (v->v[i].text)
			r->value_of[k++] = i;
	}
	r->all_words = true;
	for (size_t k = 0; k < rc.n; k++) {
		struct recipe_text *x = &r->texts[k];
		for (size_t j = 0; j < x->n; j++) {
			/* as reg_of finds it: the stack pointer, else the
			 * last copy of the number, else none */
			int reg = x->log[j].reg;
			x->from[j] = reg < 0		       ? FROM_BYTES
				     : reg == CTRACE_DW_SP_X86_64 ? FROM_SP
								  : FROM_NONE;
			for (int i = 0; reg >= 0 && reg != CTRACE_DW_SP_X86_64 &&
					i < cap->nregs;
			     i++)
				if (cap->regno[i] == reg)
					x->from[j] = (int8_t)i;
		}
		r->all_words = r->all_words && r->texts[k].word;
		r->word_room += r->texts[k].word ? FMT_TEXT_MAX + 1 : 0;
	}
	r->shape = s;
	/* numbers, pointers and booleans need no escaping in JSON */
	bool *plain = must_calloc(v->n ? v->n : 1, sizeof *plain);
	for (size_t i = 0; i < v->n; i++)
		plain[i] = r->text_of[i] >= 0 &&
			   r->texts[r->text_of[i]].kind != FMT_OTHER;
	r->pieces = v->unknown ? NULL : values_pieces_make(v, plain);
	free(plain);
	r->next = rc.bucket[b];
	rc.bucket[b] = r;
	rc.count++;
}

void recipe_reset(void)
{
	if (!rc.bucket)
		return;
	for (size_t i = 0; i < RECIPE_MAX; i++) {
		struct recipe *r = rc.bucket[i], *next;
		for (; r; r = next) {
			next = r->next;
			values_free(r->shape);
			values_pieces_free(r->pieces);
			free(r->text_of);
			free(r->value_of);
			free(r->texts);
			free(r);
		}
	}
	free(rc.bucket);
	rc.bucket = NULL;
	rc.count = 0;
	memset(rc.hot, 0, sizeof rc.hot);
}
