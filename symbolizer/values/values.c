/* values.c -- a call's values as the rest of the symbolizer sees them:
 * built (the arguments by args.c), the return value read from the
 * registers the calling convention puts it in (abi.c), and written in the
 * tree and JSON outputs.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values/dwinfo.h"
#include "resolve/resolve.h"
#include "trace/trace.h"
#include "util/util.h"
#include "values/values.h"

/* ---------------------------------------------------------------------------
 * A call's values, built
 * ------------------------------------------------------------------------ */

void values_add(struct values_build *vb, const char *name,
		      Dwarf_Die *type, char *text, const char *why)
{
	struct str tn = {0};
	if (vb->n == vb->cap) {
		vb->cap = vb->cap ? 2 * vb->cap : 8;
		vb->v = must_realloc(vb->v, vb->cap, sizeof *vb->v);
	}
	if (type)
		type_name(type, &tn, 0);
	vb->v[vb->n++] = (struct value){
		name ? must_strndup(name, strlen(name)) : NULL,
		str_take(&tn), text, text ? NULL : why, 0};
}

struct values *values_finish(struct values_build *vb, bool unknown)
{
	struct values *v = must_malloc(sizeof *v + vb->n * sizeof(struct value));
	v->n = vb->n;
	v->refs = 0;
	v->packed = false;
	v->unknown = unknown;
	v->unknown_why = unknown ? "no debug information" : NULL;
	v->pieces = NULL;
	v->shown = NULL;
	if (vb->n)
		memcpy(v->v, vb->v, vb->n * sizeof *vb->v);
	free(vb->v);
	return v;
}

/* The module of fn, its bias, its DWARF. */
struct dw_module *values_module_of(struct trace *t, uint64_t addr,
				   uint64_t ticks, uint64_t *bias)
{
	const struct resolve_info *ri = resolve_function(t->resolver, addr, ticks);
	if (!ri->module)
		return NULL;
	*bias = addr - ri->module_offset;
	struct dw_module *m = dw_module_at(t, ri, addr, ticks);
	return m && m->dw ? m : NULL;
}

/* Modules already named by no_debug_info_hint. */
static struct {
	char **paths;
	size_t n;
} hinted;

/* A call's values show as `?` because its function has no DWARF: say so
 * once per module, with the fix, rather than leave `f(?) = ?` a puzzle.
 * Names come from the trace: control characters are not printed. */
void values_no_debug_hint(struct trace *t, const struct values_call *p)
{
	const struct resolve_info *ri =
		resolve_function(t->resolver, p->fn, p->ticks);

	if (!ri->module || !dw_module(ri->module))
		return; /* no file: the resolver said so */
	for (size_t i = 0; i < hinted.n; i++)
		if (!strcmp(hinted.paths[i], ri->module))
			return;
	hinted.paths = must_realloc(hinted.paths, hinted.n + 1,
				    sizeof *hinted.paths);
	hinted.paths[hinted.n++] = must_strndup(ri->module,
						strlen(ri->module));
	fputs(PROGRAM_NAME ": ", stderr);
	for (const char *c = ri->module; *c; c++)
		fputc((unsigned char)*c < 0x20 ? '?' : *c, stderr);
	fputs(": no debug information for ", stderr);
	for (const char *c = p->name; *c; c++)
		fputc((unsigned char)*c < 0x20 ? '?' : *c, stderr);
	fputs(": the arguments and return values of functions built "
	      "without -g show as ?; compile with -g\n", stderr);
}

/* Parameters unknown for another reason than missing debug information. */
struct values *values_finish_unknown(struct values_build *vb, const char *why)
{
	struct values *v = values_finish(vb, true);
	v->unknown_why = why;
	return v;
}

static void shown_free(struct values *v);

/* Values in one block, the strings after them (recipe.c): one a call,
 * freed after its output (util.c's spares). */
static struct spares packed;

struct values *values_alloc_packed(size_t size)
{
	struct values *v = spare_alloc(&packed, size);
	v->packed = true;
	return v;
}

/* ---------------------------------------------------------------------------
 * Return values
 * ------------------------------------------------------------------------ */

/* The offset of a register in a full RETVAL payload. */
static size_t retval_at(unsigned reg)
{
	switch (reg) {
	case CTRACE_RETVAL_R1:
		return CTRACE_RETVAL_AT_R1;
	case CTRACE_RETVAL_XMM0:
		return CTRACE_RETVAL_AT_XMM0;
	case CTRACE_RETVAL_XMM1:
		return CTRACE_RETVAL_AT_XMM1;
	default:
		return CTRACE_RETVAL_AT_R0;
	}
}

/* What a function's return value needs, found once per function (and
 * the modules loaded when its pair was first seen) rather than per call:
 * its module and DIE looked up, its type sized and named, where the
 * calling convention puts it.  Bounded: RET_SHAPES_MAX of them, later
 * functions looked up per call. */
struct ret_shape {
	struct ret_shape *next; /* in its hash bucket */
	const struct trace *t;
	uint64_t fn, ticks;
	enum { RET_NO_DEBUG, RET_VOID, RET_TYPED } state;
	Dwarf_Die type; /* valid until dw_modules_free */
	size_t size;
	struct abi_ret ret;
	enum fmt_kind kind;
	char type_name[]; /* RET_TYPED */
};

enum { RET_SHAPE_BUCKETS = 4096, RET_SHAPES_MAX = 65536 };

static struct {
	struct ret_shape **bucket;
	size_t count;
} shapes;

static size_t shape_bucket(const struct trace *t, uint64_t fn,
			   uint64_t ticks)
{
	uint64_t h = ((uint64_t)(uintptr_t)t ^ fn) * 0x9e3779b97f4a7c15ull;
	h = (h ^ ticks) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 40) & (RET_SHAPE_BUCKETS - 1);
}

/* The shape of p's return value into *out: cached, or found and cached
 * (a copy in *out and NULL returned when the cache is full). */
static const struct ret_shape *ret_shape_of(struct trace *t,
					    const struct values_call *p,
					    struct ret_shape *out)
{
	size_t b = shape_bucket(t, p->fn, p->ticks);
	if (shapes.bucket)
		for (struct ret_shape *r = shapes.bucket[b]; r; r = r->next)
			if (r->t == t && r->fn == p->fn && r->ticks == p->ticks)
				return r;

	int ptr_size = t->hdr.pointer_size;
	uint64_t bias;
	struct ret_shape sh = {.t = t, .fn = p->fn, .ticks = p->ticks};
	struct str tn = {0};
	struct dw_module *m = values_module_of(t, p->fn, p->ticks, &bias);
	Dwarf_Die fn_die;
	if (!m || dw_function_at(m, p->fn - bias, &fn_die) < 0) {
		sh.state = RET_NO_DEBUG;
	} else if (!type_of(&fn_die, &sh.type)) {
		sh.state = RET_VOID;
	} else {
		sh.state = RET_TYPED;
		sh.size = type_size(&sh.type, ptr_size);
		abi_return(&sh.type, t->hdr.machine == EM_386, &sh.ret);
		sh.kind = format_kind(&sh.type, ptr_size, sh.size);
		type_name(&sh.type, &tn, 0);
	}
	char *name = str_take(&tn);
	size_t n = strlen(name) + 1;
	if (shapes.count == RET_SHAPES_MAX) {
		*out = sh; /* no name: the caller names it */
		free(name);
		return NULL;
	}
	if (!shapes.bucket)
		shapes.bucket = must_calloc(RET_SHAPE_BUCKETS,
					    sizeof *shapes.bucket);
	struct ret_shape *r = must_malloc(sizeof *r + n);
	*r = sh;
	memcpy(r->type_name, name, n);
	free(name);
	r->next = shapes.bucket[b];
	shapes.bucket[b] = r;
	shapes.count++;
	return r;
}

void values_forget_ret_shapes(void)
{
	if (!shapes.bucket)
		return;
	for (size_t i = 0; i < RET_SHAPE_BUCKETS; i++)
		for (struct ret_shape *r = shapes.bucket[i], *next; r;
		     r = next) {
			next = r->next;
			free(r);
		}
	free(shapes.bucket);
	shapes.bucket = NULL;
	shapes.count = 0;
}

/* The one value of a return: its type's name, its text (taken) or why
 * not. */
static struct values *ret_value(const struct ret_shape *sh,
				struct ret_shape *uncached, char *text,
				const char *why)
{
	struct values_build vb = {0};
	if (sh) {
		values_add(&vb, NULL, NULL, text, why);
		free(vb.v[0].type); /* the "" of no type given */
		vb.v[0].type = must_strndup(sh->type_name,
					    strlen(sh->type_name));
	} else {
		values_add(&vb, NULL, &uncached->type, text, why);
	}
	return values_finish(&vb, false);
}

struct values *retval_decode(struct trace *t, const struct values_call *p,
			     const uint8_t *payload, size_t len)
{
	struct ret_shape uncached;
	const struct ret_shape *sh = ret_shape_of(t, p, &uncached);
	const struct ret_shape *s = sh ? sh : &uncached;
	int ptr_size = t->hdr.pointer_size;
	if (s->state == RET_NO_DEBUG) {
		struct values_build vb = {0};
		values_no_debug_hint(t, p);
		values_add(&vb, NULL, NULL, NULL, "no debug information");
		return values_finish(&vb, true);
	}
	if (s->state == RET_VOID)
		return NULL;
	size_t size = s->size;
	const char *why = NULL;
	uint8_t buf[VALUES_MAX_BYTES] = {0};
	/* Where the calling convention put it: the registers the plan
	 * asked the recorder for (abi.c). */
	const struct abi_ret ret = s->ret;

	uint8_t full[CTRACE_RETVAL_PAYLOAD];
	unsigned have = CTRACE_RETVAL_R0 | CTRACE_RETVAL_R1 |
			CTRACE_RETVAL_XMM0 | CTRACE_RETVAL_XMM1 |
			CTRACE_RETVAL_ST0 | CTRACE_RETVAL_MEM;
	if (len == 1 && payload[0] == CTRACE_RETVAL_REFUSED) {
		why = "not captured (the recorder's list of 16384 calls "
		      "waiting to return was full)";
		goto out;
	}
	if (len >= 1 && (payload[0] & CTRACE_RETVAL_COMPACT)) {
		if (retval_expand(payload, len, full, &have) < 0) {
			why = "not captured";
			goto out;
		}
		payload = full;
		len = sizeof full;
	}
	if (len < CTRACE_RETVAL_PAYLOAD) {
		why = "not captured";
		goto out;
	}
	if (payload[0] == 0) {
		why = "not captured (left by longjmp or an exception, "
		      "or inlined into a call that returned later)";
		goto out;
	}
	if (payload[0] != 1) {
		why = "not captured (inlined or cloned call)";
		goto out;
	}
	/* st(1) is saved at library calls alone (RETVAL_ST1) */
	if (size == 0 || size > CTRACE_RETVAL_MEM_MAX ||
	    ret.kind == ABI_RET_UNSUPPORTED || ret.kind == ABI_RET_X87_PAIR) {
		why = "unsupported type";
		goto out;
	}
	/* The compact form holds the registers the plan named: a value
	 * whose registers are missing is not shown (never a zero). */
	if ((ret.regs & ~have) != 0) {
		why = ret.kind == ABI_RET_MEMORY
			      ? "not captured (returned in memory)"
			      : "not captured";
		goto out;
	}
	if (ret.kind == ABI_RET_X87) {
		/* st0 holds it, converted to the type's precision */
		const uint8_t *st0 = payload + CTRACE_RETVAL_AT_ST0;
		if (!payload[CTRACE_RETVAL_AT_ST0_VALID]) {
			why = "not captured";
			goto out;
		}
		long double ld = 0;
		memcpy(&ld, st0, 10);
		if (size == 4) {
			float f = (float)ld;
			memcpy(buf, &f, 4);
		} else if (size == 8) {
			double d = (double)ld;
			memcpy(buf, &d, 8);
		} else {
			memcpy(buf, st0, 10);
		}
	} else if (ret.kind == ABI_RET_MEMORY) {
		/* Returned in memory: r0 holds the buffer's address. */
		uint64_t mem_addr =
			load_u64(payload + CTRACE_RETVAL_AT_MEM_ADDR);
		uint64_t r0 = 0;
		memcpy(&r0, payload + CTRACE_RETVAL_AT_R0, (size_t)ptr_size);
		if (payload[CTRACE_RETVAL_AT_MEM_LEN] < size ||
		    mem_addr != r0 || mem_addr == 0) {
			why = "not captured (returned in memory)";
			goto out;
		}
		memcpy(buf, payload + CTRACE_RETVAL_AT_MEM, size);
	} else {
		for (size_t i = 0; i < ret.npieces; i++)
			memcpy(buf + ret.piece[i].off,
			       payload + retval_at(ret.piece[i].reg),
			       ret.piece[i].len);
	}
	char *text;
	if (s->kind != FMT_OTHER) {
		/* numbers and pointers without their DWARF */
		char fast[FMT_TEXT_MAX + 1];
		size_t n = format_kind_text(s->kind, ptr_size, buf, size, fast);
		text = must_strndup(fast, n);
	} else {
		Dwarf_Die type = s->type;
		text = format_text(NULL, ptr_size, &type, buf, size);
	}
	return ret_value(sh, &uncached, text, NULL);
out:
	return ret_value(sh, &uncached, NULL, why);
}

void values_free(struct values *v)
{
	if (!v)
		return;
	if (v->refs) { /* shared: another owner frees it */
		v->refs--;
		return;
	}
	shown_free(v);
	if (v->packed) {
		spare_free(&packed, v);
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		free(v->v[i].name);
		free(v->v[i].type);
		free(v->v[i].text);
	}
	free(v);
}

void values_forget_hints(void)
{
	for (size_t i = 0; i < hinted.n; i++)
		free(hinted.paths[i]);
	free(hinted.paths);
	hinted.paths = NULL;
	hinted.n = 0;
}

/* ---------------------------------------------------------------------------
 * Output
 *
 * One function per output writes values as the format has them.  It
 * either writes each value's text or, making the pieces of a recipe
 * (values_pieces_make), marks its place: the calls of a recipe differ
 * only in their texts, so the rest is made once and copied (put_pieces),
 * with the same bytes.  Values the memo shares are written once and the
 * bytes kept with them (values_shown).
 * ------------------------------------------------------------------------ */

/* The pieces of one output: the text before each value's text, and the
 * end; that value, and whether JSON escapes its text (quoted in the
 * pieces) or it goes as it is. */
struct piece_set {
	size_t n;      /* texts; n + 1 pieces */
	char *bytes;   /* the pieces, one after the other, PIECE_PAD more */
	size_t *len;   /* each piece's length */
	size_t *index; /* the value whose text follows piece k */
	bool *escape;
	bool *plain;   /* a number's (recipe.c leaves PIECE_PAD bytes) */
	/* every text a number's: the output's room for the pieces and the
	 * longest texts, with PIECE_PAD more for copies 16 bytes at a time
	 * (put_pieces) */
	bool all_plain;
	size_t room;
};

/* A piece or a number's text of at most PIECE_PAD bytes is copied as
 * PIECE_PAD bytes (one load and store, not a call), which it has after
 * it: the pieces are padded, a number's text has FMT_TEXT_MAX + 1. */
enum { PIECE_PAD = 16 };

static inline void put_short(struct outbuf *o, const char *s, size_t n,
			     bool padded)
{
	if (padded && n <= PIECE_PAD && OUTBUF_SIZE - o->len >= PIECE_PAD) {
		memcpy(o->buf + o->len, s, PIECE_PAD);
		o->len += n;
	} else {
		outbuf_write(o, s, n);
	}
}

struct values_pieces {
	struct piece_set tree, json;
};

/* The outputs a shared value keeps. */
enum { SHOWN_ARGS_TREE, SHOWN_RET_TREE, SHOWN_ARGS_JSON, SHOWN_RET_JSON,
       SHOWN_KINDS };

struct values_shown {
	char *bytes[SHOWN_KINDS];
	size_t len[SHOWN_KINDS];
};

/* The pieces being made: where each text goes (NULL: write the texts). */
struct cuts {
	struct piece_set *ps;
	const bool *plain; /* value i's text needs no JSON escaping */
	size_t cap;
	size_t *at; /* the output's length at each cut */
};

static size_t out_at(const struct outbuf *o)
{
	return o->mem_len + o->len;
}

/* Value i's text: written, or its place noted. */
static void put_text(struct outbuf *o, struct cuts *c, size_t i,
		     const char *text, bool json)
{
	if (json)
		outbuf_putc(o, '"');
	if (!c) {
		if (json)
			outbuf_escaped(o, text, strlen(text), ESCAPE_JSON);
		else
			outbuf_str(o, text);
	} else {
		struct piece_set *ps = c->ps;
		if (ps->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 8;
			c->at = must_realloc(c->at, c->cap, sizeof *c->at);
			ps->index = must_realloc(ps->index, c->cap,
						 sizeof *ps->index);
			ps->escape = must_realloc(ps->escape, c->cap,
						  sizeof *ps->escape);
			ps->plain = must_realloc(ps->plain, c->cap,
						 sizeof *ps->plain);
		}
		c->at[ps->n] = out_at(o);
		ps->index[ps->n] = i;
		ps->plain[ps->n] = c->plain && c->plain[i];
		ps->escape[ps->n] = json && !ps->plain[ps->n];
		ps->n++;
	}
	if (json)
		outbuf_putc(o, '"');
}

static void put_args_tree(struct outbuf *o, const struct values *v,
			  struct cuts *c)
{
	if (v->unknown) {
		outbuf_putc(o, '?');
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			outbuf_write(o, ", ", 2);
		if (v->v[i].name && !strcmp(v->v[i].name, "...")) {
			outbuf_write(o, "...", 3);
			continue;
		}
		if (v->v[i].name) /* from the binary's DWARF: any bytes */
			outbuf_escaped(o, v->v[i].name, strlen(v->v[i].name),
				       ESCAPE_TEXT);
		else
			outbuf_putc(o, '?');
		outbuf_putc(o, '=');
		if (v->v[i].text)
			put_text(o, c, i, v->v[i].text, false);
		else
			outbuf_putc(o, '?');
	}
}

static void put_ret_tree(struct outbuf *o, const struct values *v)
{
	if (v->n == 0)
		return;
	outbuf_write(o, " = ", 3);
	outbuf_str(o, v->v[0].text ? v->v[0].text : "?");
}

static void json_str(struct outbuf *o, const char *s)
{
	outbuf_json_str(o, s, strlen(s));
}

static void json_value(struct outbuf *o, const struct values *vs, size_t i,
		       struct cuts *c)
{
	const struct value *v = &vs->v[i];
	outbuf_putc(o, '{');
	if (v->name) {
		outbuf_str(o, "\"name\": ");
		json_str(o, v->name);
		outbuf_str(o, ", ");
	}
	outbuf_str(o, "\"type\": ");
	json_str(o, v->type ? v->type : "");
	if (v->text) {
		outbuf_str(o, ", \"value\": ");
		put_text(o, c, i, v->text, true);
	} else {
		outbuf_str(o, ", \"unavailable\": ");
		json_str(o, v->why ? v->why : "unknown");
	}
	outbuf_putc(o, '}');
}

static void put_args_json(struct outbuf *o, const struct values *v,
			  struct cuts *c)
{
	if (v->unknown) {
		outbuf_str(o, ", \"args\": null, \"args_unavailable\": ");
		json_str(o, v->unknown_why);
		return;
	}
	outbuf_str(o, ", \"args\": [");
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			outbuf_str(o, ", ");
		json_value(o, v, i, c);
	}
	outbuf_putc(o, ']');
}

static void put_ret_json(struct outbuf *o, const struct values *v)
{
	if (v->n == 0)
		return;
	outbuf_str(o, ", \"retval\": ");
	json_value(o, v, 0, NULL);
}

/* Pieces and shown values are made in memory (small: one call's), in a
 * scratch outbuf whose memory is kept from one to the next. */
static struct outbuf *scratch(void)
{
	static struct outbuf *o;
	if (!o) {
		o = must_malloc(sizeof *o);
		outbuf_init_memory(o);
	}
	o->len = 0;
	o->mem_len = 0;
	return o;
}

/* The bytes written to o (a scratch), copied, and PIECE_PAD zero bytes
 * after them (put_short may read them). */
static char *scratch_take(struct outbuf *o, size_t *len)
{
	outbuf_flush(o);
	*len = o->mem_len;
	char *b = must_malloc(o->mem_len + PIECE_PAD);
	if (o->mem_len)
		memcpy(b, o->mem, o->mem_len);
	memset(b + o->mem_len, 0, PIECE_PAD);
	return b;
}

static void make_set(struct piece_set *ps, const struct values *v,
		     const bool *plain, bool json)
{
	struct outbuf *o = scratch();
	struct cuts c = {.ps = ps, .plain = plain};
	size_t total;
	if (json)
		put_args_json(o, v, &c);
	else
		put_args_tree(o, v, &c);
	ps->bytes = scratch_take(o, &total);
	ps->len = must_malloc((ps->n + 1) * sizeof *ps->len);
	for (size_t k = 0, from = 0; k <= ps->n; k++) {
		size_t to = k < ps->n ? c.at[k] : total;
		ps->len[k] = to - from;
		from = to;
	}
	free(c.at);
	ps->all_plain = true;
	for (size_t k = 0; k < ps->n; k++)
		ps->all_plain = ps->all_plain && ps->plain[k];
	ps->room = total + ps->n * FMT_TEXT_MAX + PIECE_PAD;
}

struct values_pieces *values_pieces_make(const struct values *v,
					 const bool *plain)
{
	struct values_pieces *pc = must_calloc(1, sizeof *pc);
	make_set(&pc->tree, v, plain, false);
	make_set(&pc->json, v, plain, true);
	return pc;
}

static void free_set(struct piece_set *ps)
{
	free(ps->bytes);
	free(ps->len);
	free(ps->index);
	free(ps->escape);
	free(ps->plain);
}

void values_pieces_free(struct values_pieces *pc)
{
	if (!pc)
		return;
	free_set(&pc->tree);
	free_set(&pc->json);
	free(pc);
}

/* n bytes from s at q, 16 at a time (s has PIECE_PAD bytes more and q
 * the room); the end of what was copied. */
static inline char *copy16s(char *q, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i += PIECE_PAD)
		memcpy(q + i, s + i, PIECE_PAD);
	return q + n;
}

/* A number's text, at most FMT_TEXT_MAX bytes, followed by readable
 * bytes up to FMT_TEXT_MAX + 1 (recipe.c), at q: one or two copies of
 * 16 that overlap. */
static inline char *copy_number(char *q, const char *s, size_t n)
{
	memcpy(q, s, 16);
	if (n > 16)
		memcpy(q + n - 16, s + n - 16, 16);
	return q + n;
}

static void put_pieces(struct outbuf *o, const struct piece_set *ps,
		       const struct values *v)
{
	const char *b = ps->bytes;
	if (ps->all_plain && OUTBUF_SIZE - o->len >= ps->room) {
		/* the room checked once; nothing to escape */
		char *q = o->buf + o->len;
		for (size_t k = 0; k < ps->n; k++) {
			q = copy16s(q, b, ps->len[k]);
			b += ps->len[k];
			const struct value *x = &v->v[ps->index[k]];
			q = copy_number(q, x->text, x->len);
		}
		q = copy16s(q, b, ps->len[ps->n]);
		o->len = (size_t)(q - o->buf);
		return;
	}
	for (size_t k = 0; k < ps->n; k++) {
		put_short(o, b, ps->len[k], true);
		b += ps->len[k];
		const struct value *x = &v->v[ps->index[k]];
		if (ps->escape[k])
			outbuf_escaped(o, x->text, x->len, ESCAPE_JSON);
		else
			put_short(o, x->text, x->len, ps->plain[k]);
	}
	if (ps->len[ps->n])
		put_short(o, b, ps->len[ps->n], true);
}

static void put_kind(struct outbuf *o, const struct values *v, int kind)
{
	switch (kind) {
	case SHOWN_ARGS_TREE:
		put_args_tree(o, v, NULL);
		break;
	case SHOWN_RET_TREE:
		put_ret_tree(o, v);
		break;
	case SHOWN_ARGS_JSON:
		put_args_json(o, v, NULL);
		break;
	default:
		put_ret_json(o, v);
		break;
	}
}

/* v's output of this kind: shared values' kept, others' written. */
static void put(struct outbuf *o, const struct values *cv, int kind)
{
	struct values *v = (struct values *)cv; /* only v->shown changes */
	if (!v->refs) {
		put_kind(o, v, kind);
		return;
	}
	if (!v->shown)
		v->shown = must_calloc(1, sizeof *v->shown);
	struct values_shown *sh = v->shown;
	if (!sh->bytes[kind]) {
		struct outbuf *s = scratch();
		put_kind(s, v, kind);
		sh->bytes[kind] = scratch_take(s, &sh->len[kind]);
	}
	if (OUTBUF_SIZE - o->len >= sh->len[kind] + PIECE_PAD) {
		/* padded by scratch_take: 16 bytes at a time */
		o->len = (size_t)(copy16s(o->buf + o->len, sh->bytes[kind],
					  sh->len[kind]) -
				  o->buf);
		return;
	}
	outbuf_write(o, sh->bytes[kind], sh->len[kind]);
}

static void shown_free(struct values *v)
{
	if (!v->shown)
		return;
	for (int k = 0; k < SHOWN_KINDS; k++)
		free(v->shown->bytes[k]);
	free(v->shown);
	v->shown = NULL;
}

void values_put_args_tree(struct outbuf *o, const struct values *v)
{
	if (!v)
		return;
	if (v->pieces)
		put_pieces(o, &v->pieces->tree, v);
	else
		put(o, v, SHOWN_ARGS_TREE);
}

void values_put_ret_tree(struct outbuf *o, const struct values *v)
{
	if (v && v->n)
		put(o, v, SHOWN_RET_TREE);
}

void values_put_args_json(struct outbuf *o, const struct values *v)
{
	if (!v)
		return;
	if (v->pieces)
		put_pieces(o, &v->pieces->json, v);
	else
		put(o, v, SHOWN_ARGS_JSON);
}

void values_put_ret_json(struct outbuf *o, const struct values *v)
{
	if (v && v->n)
		put(o, v, SHOWN_RET_JSON);
}
