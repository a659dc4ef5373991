/* agg.c -- interned names, the integer map and per-thread stacks of
 * the summarizing outputs (see aggregate.h).
 */
#include <stdlib.h>

#include "output/output.h"

/* ---------------------------------------------------------------------------
 * Integer map
 * ------------------------------------------------------------------------ */

void agg_map_init(struct u64map *m)
{
	m->n = 0;
	m->mask = 255;
	m->keys = must_calloc(m->mask + 1, sizeof *m->keys);
	m->values = must_calloc(m->mask + 1, sizeof *m->values);
}

void agg_map_free(struct u64map *m)
{
	free(m->keys);
	free(m->values);
	m->keys = NULL;
	m->values = NULL;
	m->n = m->mask = 0;
}

static void u64map_grow(struct u64map *m)
{
	struct u64map big = {
		.mask = 2 * m->mask + 1,
		.n = m->n,
	};

	big.keys = must_calloc(big.mask + 1, sizeof *big.keys);
	big.values = must_calloc(big.mask + 1, sizeof *big.values);
	for (size_t i = 0; i <= m->mask; i++) {
		size_t j;
		if (!m->keys[i])
			continue;
		for (j = u64map_slot(&big, m->keys[i]); big.keys[j];
		     j = (j + 1) & big.mask)
			;
		big.keys[j] = m->keys[i];
		big.values[j] = m->values[i];
	}
	agg_map_free(m);
	*m = big;
}

uint32_t *agg_map_get(struct u64map *m, uint64_t key, uint32_t fresh,
		      bool *inserted)
{
	size_t i = u64map_slot(m, key);

	for (;; i = (i + 1) & m->mask) {
		if (m->keys[i] == key) {
			*inserted = false;
			return &m->values[i];
		}
		if (!m->keys[i])
			break;
	}
	/* at most three quarters full: the keys are in the slots, so a
	 * probe costs no other memory access */
	if (4 * (m->n + 1) > 3 * (m->mask + 1)) {
		u64map_grow(m);
		for (i = u64map_slot(m, key); m->keys[i]; i = (i + 1) & m->mask)
			;
	}
	m->keys[i] = key;
	m->values[i] = fresh;
	m->n++;
	*inserted = true;
	return &m->values[i];
}

/* ---------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

/* A name is known by the first function that had it: 8 bytes per name
 * and a slot of the table, the text being the resolver's.  Functions and
 * their resolvers outlive the output (main.c detaches the traces after
 * output_finish), so the text is never copied. */
static struct {
	const struct func **all; /* by id; [0] unused */
	size_t n, cap;
	struct id_table ids;
} names;

static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
	return h;
}

/* The hash of name id + 1: the table holds ids from 1, as id + 1 - 1. */
static size_t name_id_hash(const void *ctx, uint32_t id)
{
	const struct func *x = names.all[id + 1];

	(void)ctx;
	return (size_t)name_hash(x->name, x->name_len);
}

static uint32_t intern(const struct func *f)
{
	uint64_t h = name_hash(f->name, f->name_len);
	size_t i;

	if (!names.n)
		names.n = 1;
	/* ids 1 .. n-1 are the table's 0 .. n-2 */
	must_reserve(&names.ids, names.n - 1, name_id_hash, NULL);
	for (i = h & names.ids.mask; names.ids.slots[i];
	     i = (i + 1) & names.ids.mask) {
		uint32_t id = names.ids.slots[i]; /* table id + 1 */
		const struct func *x = names.all[id];
		if (x->name_len == f->name_len &&
		    !memcmp(x->name, f->name, f->name_len))
			return id;
	}
	if (names.n >= names.cap) {
		names.cap = names.cap ? 2 * names.cap : 1024;
		names.all = must_realloc(names.all, names.cap,
					 sizeof *names.all);
	}
	names.all[names.n] = f;
	names.ids.slots[i] = (uint32_t)names.n;
	return (uint32_t)names.n++;
}

uint32_t agg_name_id(const struct pair *p)
{
	struct func *f = p->func;

	if (!f->name_id)
		f->name_id = intern(f);
	return f->name_id;
}

bool agg_by_module;

/* The modules' names as funcs, so that intern() takes them; one per
 * distinct module path, kept to the end. */
static struct func **module_funcs;
static size_t n_module_funcs;

uint32_t agg_row_id(struct thread *th, const struct pair *p)
{
	if (!agg_by_module)
		return agg_name_id(p);
	if (p->func->module_name_id)
		return p->func->module_name_id;
	const char *path = symtab_pair_module(th->trace->symtab, p);
	const char *base = path ? strrchr(path, '/') : NULL;
	const char *name = base ? base + 1 : path ? path : "?";
	size_t len = strlen(name);
	struct func *m = NULL;
	for (size_t i = 0; i < n_module_funcs; i++)
		if (module_funcs[i]->name_len == len &&
		    !memcmp(module_funcs[i]->name, name, len))
			m = module_funcs[i];
	if (!m) {
		module_funcs = must_realloc(module_funcs, n_module_funcs + 1,
					   sizeof *module_funcs);
		m = must_calloc(1, sizeof *m);
		m->name = name;
		m->name_len = (uint32_t)len;
		module_funcs[n_module_funcs++] = m;
	}
	if (!m->name_id)
		m->name_id = intern(m);
	/* A function's module is one, but a pair of another epoch may be
	 * another object at the address: cached per func, whose epoch is
	 * its own. */
	p->func->module_name_id = m->name_id;
	return m->name_id;
}

const char *agg_name(uint32_t id)
{
	return id && id < names.n ? names.all[id]->name : "?";
}

size_t agg_name_len(uint32_t id)
{
	return id && id < names.n ? names.all[id]->name_len : 1;
}

void agg_names_free(void)
{
	free(names.all);
	pool_ids_free(&names.ids);
	memset(&names, 0, sizeof names);
}

void agg_names_drop_index(void)
{
	pool_ids_free(&names.ids);
}

uint32_t agg_names_end(void)
{
	return names.n ? (uint32_t)names.n : 1;
}

/* ---------------------------------------------------------------------------
 * Threads
 * ------------------------------------------------------------------------ */

static void seg_free(struct agg_seg *s);

struct agg_thread *agg_thread_get(struct agg_threads *ts, struct thread *th)
{
	struct agg_thread *at = th->output_state;

	if (at)
		return at;
	at = must_calloc(1, sizeof *at);
	at->index = (uint32_t)ts->n;
	at->trace = th->trace;
	at->group = ts->n_groups;
	for (size_t i = 0; ts->by_process && i < ts->n; i++)
		if (ts->all[i]->trace == th->trace) {
			at->group = ts->all[i]->group;
			break;
		}
	if (at->group == ts->n_groups)
		ts->n_groups++;
	at->pid = th->trace->pid;
	at->id = th->id;
	if (th->info->name && th->info->name[0])
		at->name = must_strndup(th->info->name, strlen(th->info->name));
	at->segs = must_calloc(1, sizeof *at->segs);
	at->n_segs = at->cap_segs = 1;
	ts->all = must_realloc(ts->all, ts->n + 1, sizeof *ts->all);
	ts->all[ts->n++] = at;
	th->output_state = at;
	return at;
}

void agg_threads_free(struct agg_threads *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		for (size_t k = 0; k < ts->all[i]->n_segs; k++)
			seg_free(&ts->all[i]->segs[k]);
		free(ts->all[i]->segs);
		free(ts->all[i]->name);
		free(ts->all[i]);
	}
	free(ts->all);
	ts->all = NULL;
	ts->n = 0;
	ts->n_groups = 0;
}

/* ---------------------------------------------------------------------------
 * Shared text helpers
 * ------------------------------------------------------------------------ */

void agg_put_xml_str(struct outbuf *out, const char *s, size_t n)
{
	outbuf_escaped(out, s, n, ESCAPE_XML);
}

void agg_put_us(struct outbuf *out, int64_t ns)
{
	uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	char *p = outbuf_reserve(out, 32);
	size_t n = 0;
	unsigned frac = (unsigned)(v % 1000);

	if (ns < 0)
		p[n++] = '-';
	n += outbuf_format_u64(p + n, v / 1000);
	p[n++] = '.';
	p[n++] = (char)('0' + frac / 100);
	p[n++] = (char)('0' + frac / 10 % 10);
	p[n++] = (char)('0' + frac % 10);
	out->len += n;
}

/* ---------------------------------------------------------------------------
 * Counts of open calls by name
 * ------------------------------------------------------------------------ */

static size_t open_hash(uint32_t name)
{
	uint64_t h = name * 0x9e3779b97f4a7c15u;
	return (size_t)(h >> 29);
}

/* The slot of name in t: its own, or the empty one where it would go. */
static size_t open_slot(const struct open_names *t, uint32_t name)
{
	size_t i = open_hash(name) & t->mask;

	while (t->slots[i].name && t->slots[i].name != name)
		i = (i + 1) & t->mask;
	return i;
}

/* How many calls of name are open in t. */
uint32_t agg_open_count(const struct open_names *t, uint32_t name)
{
	size_t i;

	if (!t->slots)
		return 0;
	i = open_slot(t, name);
	return t->slots[i].name ? t->slots[i].count : 0;
}

/* One more call of name open in t; at most half full. */
void agg_open_add(struct open_names *t, uint32_t name)
{
	size_t i;

	if (!t->slots || 2 * (t->n + 1) > t->mask + 1) {
		struct open_names big = {.mask = t->slots ? 2 * t->mask + 1
							  : 15,
					 .n = t->n};
		big.slots = must_calloc(big.mask + 1, sizeof *big.slots);
		for (size_t j = 0; t->slots && j <= t->mask; j++) {
			if (!t->slots[j].name)
				continue;
			i = open_slot(&big, t->slots[j].name);
			big.slots[i] = t->slots[j];
		}
		free(t->slots);
		*t = big;
	}
	i = open_slot(t, name);
	if (!t->slots[i].name) {
		t->slots[i] = (struct open_name){name, 0};
		t->n++;
	}
	t->slots[i].count++;
}

/* One call of name fewer open in t (none: nothing to do, after damage);
 * returns how many stay open.  A name with no open call leaves the table,
 * whose later names move up to keep every name reachable from its hash's
 * slot. */
uint32_t agg_open_remove(struct open_names *t, uint32_t name)
{
	size_t i, j, home;

	if (!t->slots)
		return 0;
	i = open_slot(t, name);
	if (!t->slots[i].name)
		return 0;
	if (--t->slots[i].count)
		return t->slots[i].count;
	t->n--;
	for (j = (i + 1) & t->mask; t->slots[j].name; j = (j + 1) & t->mask) {
		home = open_hash(t->slots[j].name) & t->mask;
		/* j's name may fill the hole at i when its home is not in
		 * the cyclic range (i, j] */
		if (i <= j ? home > i && home <= j : home > i || home <= j)
			continue;
		t->slots[i] = t->slots[j];
		i = j;
	}
	t->slots[i].name = 0;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Segments of open calls, parked and reopened
 * ------------------------------------------------------------------------ */

uint64_t agg_work;

static void seg_free(struct agg_seg *s)
{
	free(s->frames);
	free(s->names.slots);
	free(s->edges.slots);
	memset(s, 0, sizeof *s);
}

static void seg_reserve(struct agg_seg *s, size_t n)
{
	if (n <= s->cap)
		return;
	s->cap = s->cap ? 2 * s->cap : 64;
	while (s->cap < n)
		s->cap *= 2;
	s->frames = must_realloc(s->frames, s->cap, sizeof *s->frames);
}

/* A new empty segment on top of the chain, at depth at->depth. */
static struct agg_seg *seg_new(struct agg_thread *at)
{
	if (at->n_segs == at->cap_segs) {
		at->cap_segs = at->cap_segs ? 2 * at->cap_segs : 4;
		at->segs = must_realloc(at->segs, at->cap_segs,
					sizeof *at->segs);
	}
	at->segs[at->n_segs] = (struct agg_seg){.base = at->depth};
	return &at->segs[at->n_segs++];
}

static void uncount(struct agg_seg *s, struct agg_frame *f);

void agg_truncate(struct agg_thread *at, size_t depth)
{
	struct agg_seg *s;

	if (depth >= at->depth)
		return;
	while (at->n_segs > 1 && at->segs[at->n_segs - 1].base > depth) {
		struct agg_seg *top = &at->segs[at->n_segs - 1];
		struct agg_seg *below = top - 1;
		size_t off = top->base - below->base;
		/* its frames, closed now, stay readable where they were:
		 * agg_park takes the closed calls of a run it parks (once
		 * each: a frame is closed once before it is parked) */
		seg_reserve(below, off + top->high);
		for (size_t i = 0; i < top->high; i++) {
			agg_work++;
			uncount(top, &top->frames[i]);
			below->frames[off + i] = top->frames[i];
		}
		if (top->high && below->high < off + top->high)
			below->high = off + top->high;
		seg_free(top);
		at->n_segs--;
	}
	s = &at->segs[at->n_segs - 1];
	s->n = depth - s->base;
	at->depth = depth;
}

struct agg_frame *agg_push_slow(struct agg_thread *at, size_t depth)
{
	struct agg_seg *s;

	agg_truncate(at, depth);
	s = &at->segs[at->n_segs - 1];
	seg_reserve(s, depth - s->base + 1);
	for (size_t i = at->depth; i < depth; i++) /* only after damage */
		s->frames[i - s->base] = (struct agg_frame){0};
	s->n = depth - s->base + 1;
	if (s->high < s->n)
		s->high = s->n;
	at->depth = depth + 1;
	return &s->frames[s->n - 1];
}

static void count(struct agg_seg *s, struct agg_frame *f)
{
	if (f->name)
		agg_open_add(&s->names, f->name);
	if (f->edge_ref)
		agg_open_add(&s->edges, f->edge_ref);
	f->counted = true;
}

static void uncount(struct agg_seg *s, struct agg_frame *f)
{
	if (!f->counted)
		return;
	if (f->name)
		agg_open_remove(&s->names, f->name);
	if (f->edge_ref)
		agg_open_remove(&s->edges, f->edge_ref);
	f->counted = false;
}

/* Segment src's frames [0, high) after dst's n open ones, their counts
 * with them: two segments made one (rare: a stack reopened on the calls
 * of another, which the replay then keeps as one run). */
static void seg_append(struct agg_seg *dst, struct agg_seg *src)
{
	seg_reserve(dst, dst->n + src->high);
	memcpy(dst->frames + dst->n, src->frames,
	       src->high * sizeof *src->frames);
	for (size_t i = 0; i < src->high; i++) {
		struct agg_frame *f = &dst->frames[dst->n + i];
		agg_work++;
		if (f->counted && i < src->n) {
			f->counted = false;
			count(dst, f);
		} else {
			f->counted = false;
		}
	}
	dst->high = dst->n + src->high;
	dst->n += src->n;
	seg_free(src);
}

struct agg_parked *agg_park(struct agg_thread *at, size_t depth, size_t n,
			    bool counts)
{
	struct agg_parked *p;
	struct agg_seg *b;
	size_t k = at->n_segs - 1, first, keep;

	while (k && at->segs[k].base > depth)
		k--;
	p = must_calloc(1, sizeof *p);
	b = &p->seg;
	if (depth > at->depth) {
		/* calls the output was never given (damage): empty frames */
		seg_reserve(b, n ? n : 1);
		for (size_t i = 0; i < n; i++)
			b->frames[i] = (struct agg_frame){.resumed = true};
		b->n = b->high = n;
		return p;
	}
	if (at->segs[k].base == depth) {
		/* the common case: the segment moves by pointer */
		*b = at->segs[k];
		first = k + 1;
		keep = k;
		if (k == 0) {
			at->segs[0] = (struct agg_seg){.base = 0};
			keep = 1;
		}
	} else {
		/* a run that began inside a segment: its frames move */
		struct agg_seg *s = &at->segs[k];
		size_t from = depth - s->base;
		size_t end = s->high > from + n ? from + n : s->high;
		seg_reserve(b, end > from ? end - from : 1);
		for (size_t i = from; i < end; i++) {
			struct agg_frame *f = &s->frames[i];
			agg_work++;
			b->frames[i - from] = *f;
			b->frames[i - from].counted = false;
			if (i < s->n && f->counted) {
				uncount(s, f);
				count(b, &b->frames[i - from]);
			}
		}
		b->n = s->n > from ? s->n - from : 0;
		b->high = end > from ? end - from : 0;
		if (s->n > from)
			s->n = from;
		s->high = from;
		first = keep = k + 1;
	}
	while (at->n_segs > first) {
		/* segments above, in order: appended after the block's */
		struct agg_seg *s = &at->segs[first];
		if (b->n < s->base - depth) {
			seg_reserve(b, s->base - depth);
			while (b->n < s->base - depth)
				b->frames[b->n++] = (struct agg_frame){0};
		}
		b->n = s->base - depth;
		seg_append(b, s);
		memmove(s, s + 1, (at->n_segs - first - 1) * sizeof *s);
		at->n_segs--;
	}
	at->n_segs = keep;
	at->depth = depth;
	for (size_t i = n; i < b->n; i++) /* only after damage */
		uncount(b, &b->frames[i]);
	if (b->n > n)
		b->n = n;
	/* the calls closed since: counted again and marked, once each */
	if (b->high > n)
		b->high = n;
	seg_reserve(b, n ? n : 1);
	for (size_t i = b->n; i < n; i++) {
		struct agg_frame *f = &b->frames[i];
		agg_work++;
		if (i >= b->high)
			*f = (struct agg_frame){0};
		f->resumed = true;
		f->counted = false;
		if (counts)
			count(b, f);
	}
	b->n = b->high = n;
	{
		const struct agg_frame *parent = agg_parent(at, depth);
		b->parent_ref = parent ? parent->ref : 0;
		b->parent_name = parent ? parent->name : 0;
	}
	return p;
}

struct agg_seg *agg_unpark(struct agg_thread *at, size_t depth, size_t n,
			   struct agg_parked *p)
{
	struct agg_seg b = p ? p->seg : (struct agg_seg){0}, *top;

	free(p);
	if (depth < at->depth)
		agg_truncate(at, depth);
	else if (depth > at->depth) /* only after damage */
		*agg_push_slow(at, depth - 1) = (struct agg_frame){0};
	/* those beyond n are gone for good */
	for (size_t i = n; i < b.n; i++) {
		agg_work++;
		uncount(&b, &b.frames[i]);
	}
	seg_reserve(&b, n ? n : 1);
	for (size_t i = b.n; i < n; i++) {
		agg_work++;
		b.frames[i] = (struct agg_frame){.resumed = true};
	}
	b.n = b.high = n;
	b.base = depth;
	top = &at->segs[at->n_segs - 1];
	if (top->n == 0 && top->base == depth && !top->names.n &&
	    !top->edges.n) {
		seg_free(top);
		at->n_segs--;
	}
	top = seg_new(at);
	*top = b;
	at->depth = depth + n;
	return top;
}

void agg_parked_free(struct agg_parked *p)
{
	if (p)
		seg_free(&p->seg);
	free(p);
}

uint32_t agg_thread_count(const struct agg_thread *at, uint32_t name)
{
	uint32_t n = 0;

	for (size_t k = 0; k < at->n_segs; k++)
		n += agg_open_count(&at->segs[k].names, name);
	return n;
}

uint32_t agg_thread_edge_count(const struct agg_thread *at, uint32_t edge_ref)
{
	uint32_t n = 0;

	for (size_t k = 0; k < at->n_segs; k++)
		n += agg_open_count(&at->segs[k].edges, edge_ref);
	return n;
}

void agg_drop_parked(struct output *o, struct thread *th, void *state)
{
	(void)o;
	(void)th;
	agg_parked_free(state);
}
