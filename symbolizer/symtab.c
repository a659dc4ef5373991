/* symtab.c -- (function, call site) pairs and the names of functions.
 *
 * Every DEFINE record of every chunk names a pair; interning them here means
 * an event carries a pointer, and each distinct function address is resolved
 * once.  Addresses are keyed with their module epoch, the number of module
 * loads and unloads before the event: after a dlclose, the same address
 * may belong to another library.  A slot's pair is checked against the
 * time of every event that uses it (pair_holds), so a name always comes
 * from the modules of the event's own time.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dwinfo.h"
#include "internal.h"

struct symtab {
	struct resolver *resolver;
	bool full_names;
	uint64_t *module_ticks; /* sorted once the first pair is asked for */
	size_t n_module_ticks, cap_module_ticks;
	bool sorted;

	struct func **funcs;
	size_t n_funcs, funcs_mask;
	struct pair **pairs;
	size_t n_pairs, pairs_mask;

	/* funcs and pairs live in blocks freed together: no allocator
	 * header per object, and no walk of millions of them to free */
	struct block *blocks;
	char *free_space;
	size_t free_left;
};

struct block {
	struct block *next;
	max_align_t data[];
};

#define BLOCK_BYTES (256 * 1024)

/* size zeroed bytes that live as long as st. */
static void *block_alloc(struct symtab *st, size_t size)
{
	void *p;

	size = (size + _Alignof(max_align_t) - 1) &
	       ~(_Alignof(max_align_t) - 1);
	if (size > st->free_left) {
		struct block *b = must_calloc(1, sizeof *b + BLOCK_BYTES);
		b->next = st->blocks;
		st->blocks = b;
		st->free_space = (char *)b->data;
		st->free_left = BLOCK_BYTES;
	}
	p = st->free_space;
	st->free_space += size;
	st->free_left -= size;
	return p;
}

struct symtab *symtab_new(struct resolver *r, bool full_names)
{
	struct symtab *st = must_calloc(1, sizeof *st);

	st->resolver = r;
	st->full_names = full_names;
	st->funcs_mask = st->pairs_mask = 255;
	st->funcs = must_calloc(st->funcs_mask + 1, sizeof *st->funcs);
	st->pairs = must_calloc(st->pairs_mask + 1, sizeof *st->pairs);
	return st;
}

void symtab_free(struct symtab *st)
{
	for (size_t i = 0; i <= st->pairs_mask; i++)
		for (struct pair *p = st->pairs[i]; p; p = p->hash_next) {
			/* variants are malloc'd one by one; pairs live in
			 * the blocks */
			for (struct pair *v = p->variants, *vn; v; v = vn) {
				vn = v->variants;
				free((char *)v->inline_site.src.file);
				free((char *)v->srcline);
				free(v);
			}
			free((char *)p->srcline);
		}
	while (st->blocks) {
		struct block *b = st->blocks;
		st->blocks = b->next;
		free(b);
	}
	free(st->funcs);
	free(st->pairs);
	free(st->module_ticks);
	free(st);
}

void symtab_module_event(struct symtab *st, uint64_t ticks)
{
	if (st->n_module_ticks == st->cap_module_ticks) {
		st->cap_module_ticks = st->cap_module_ticks ?
					       2 * st->cap_module_ticks : 16;
		st->module_ticks = must_realloc(st->module_ticks,
					    st->cap_module_ticks,
					    sizeof *st->module_ticks);
	}
	st->module_ticks[st->n_module_ticks++] = ticks;
	st->sorted = false;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Module events at or before `ticks`.  Nearly always all of them: modules
 * are recorded at start-up, so the last one is checked first. */
static unsigned epoch_at(struct symtab *st, uint64_t ticks)
{
	size_t lo = 0, hi = st->n_module_ticks;

	if (!st->sorted && st->n_module_ticks) {
		qsort(st->module_ticks, st->n_module_ticks,
		      sizeof *st->module_ticks, u64_cmp);
	}
	st->sorted = true;
	if (!hi || ticks >= st->module_ticks[hi - 1])
		return (unsigned)hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->module_ticks[mid] <= ticks)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (unsigned)lo;
}

static size_t hash3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = a * 0x9e3779b97f4a7c15u;
	h ^= b * 0xc2b2ae3d27d4eb4fu + (h >> 29);
	h ^= c * 0x165667b19e3779f9u + (h >> 32);
	return (size_t)(h ^ (h >> 31));
}

/* Doubles a chained table when it is as full as it is long. */
#define GROW(table, mask, count, type, keyfn)                                \
	do {                                                                 \
		size_t new_mask = 2 * (mask) + 1;                            \
		type **t2 = must_calloc(new_mask + 1, sizeof *t2);               \
		for (size_t i_ = 0; i_ <= (mask); i_++)                      \
			for (type *e_ = (table)[i_], *n_; e_; e_ = n_) {     \
				size_t h_ = keyfn(e_) & new_mask;            \
				n_ = e_->hash_next;                          \
				e_->hash_next = t2[h_];                      \
				t2[h_] = e_;                                 \
			}                                                    \
		free(table);                                                 \
		(table) = t2;                                                \
		(mask) = new_mask;                                           \
	} while (0)

#define FUNC_HASH(f) hash3((f)->addr, (f)->epoch, 0)
#define PAIR_HASH(p) hash3((p)->fn, (p)->site, (p)->epoch)

static struct func *get_func(struct symtab *st, uint64_t addr, unsigned epoch,
			     uint64_t ticks)
{
	size_t h = hash3(addr, epoch, 0);
	struct func *f;

	for (f = st->funcs[h & st->funcs_mask]; f; f = f->hash_next)
		if (f->addr == addr && f->epoch == epoch)
			return f;
	if (st->n_funcs > st->funcs_mask) {
		GROW(st->funcs, st->funcs_mask, st->n_funcs, struct func,
		     FUNC_HASH);
	}
	f = block_alloc(st, sizeof *f);
	f->addr = addr;
	f->epoch = epoch;
	f->info = resolve_function(st->resolver, addr, ticks);
	f->name_len = strlen(f->info->name);
	f->plain_name = !escape_needed(f->info->name, f->name_len, ESCAPE_TEXT);
	/* "ns::f(int)" needs no "()" after it; C names never have one */
	f->has_params = st->full_names && strchr(f->info->name, '(');
	f->hash_next = st->funcs[h & st->funcs_mask];
	st->funcs[h & st->funcs_mask] = f;
	st->n_funcs++;
	return f;
}

struct pair *symtab_pair(struct symtab *st, uint64_t fn, uint64_t site,
			 uint64_t ticks)
{
	unsigned epoch = epoch_at(st, ticks);
	size_t h = hash3(fn, site, epoch);
	struct pair *p;

	for (p = st->pairs[h & st->pairs_mask]; p; p = p->hash_next)
		if (p->fn == fn && p->site == site && p->epoch == epoch)
			return p;
	if (st->n_pairs > st->pairs_mask) {
		GROW(st->pairs, st->pairs_mask, st->n_pairs, struct pair,
		     PAIR_HASH);
	}
	p = block_alloc(st, sizeof *p);
	p->fn = fn;
	p->site = site;
	p->ticks = ticks;
	p->epoch = epoch;
	p->valid_from = epoch ? st->module_ticks[epoch - 1] : 0;
	p->valid_to = epoch < st->n_module_ticks ? st->module_ticks[epoch]
						 : UINT64_MAX;
	p->func = get_func(st, fn, epoch, ticks);
	p->hash_next = st->pairs[h & st->pairs_mask];
	st->pairs[h & st->pairs_mask] = p;
	st->n_pairs++;
	return p;
}

struct pair *symtab_pair_moved(struct symtab *st, const struct pair *p,
			       uint64_t ticks)
{
	struct pair *q = symtab_pair(st, p->fn, p->site, ticks);

	if (!q->frame) {
		q->frame = p->frame;
		q->inlined = p->inlined;
	}
	return q;
}

const struct pair *symtab_inlined_pair(struct symtab *st, struct trace *t,
				       const struct pair *cp, uint64_t host_fn)
{
	struct pair *p = (struct pair *)cp, *v;
	const char *file;
	unsigned line;

	for (v = p->variants; v; v = v->variants)
		if (v->host_fn == host_fn) {
			v->frame = p->frame; /* a later DEFINE may tell it */
			return v;
		}
	v = must_calloc(1, sizeof *v);
	*v = *p;
	v->hash_next = NULL;
	v->srcline = NULL;
	v->host_fn = host_fn;
	v->site_done = true;
	v->site_info = &v->inline_site;
	v->inline_site = (struct resolve_info){.name = p->func->info->name};
	if (dw_inlined_call_site(t, host_fn, p->fn, p->ticks, &file, &line)) {
		v->inline_site.src.file = must_strndup(file, strlen(file));
		v->inline_site.src.line = line;
	}
	v->variants = p->variants;
	p->variants = v;
	(void)st;
	return v;
}

const struct resolve_info *pair_site(struct symtab *st, const struct pair *cp)
{
	struct pair *p = (struct pair *)cp; /* the caches are ours */

	if (!p->site_done) {
		p->site_info = resolve_call_site(st->resolver, p->site,
						 p->ticks);
		p->site_done = true;
	}
	return p->site_info;
}

const char *pair_srcline(struct symtab *st, const struct pair *cp, size_t *len)
{
	struct pair *p = (struct pair *)cp;

	if (!p->srcline) {
		const struct resolve_info *si = pair_site(st, cp);
		const char *file = si->src.file, *base;
		char *s;

		if (!file) {
			p->srcline = must_strndup("", 0);
			p->srcline_len = 0;
		} else {
			struct outbuf mem;
			char line[32];
			base = strrchr(file, '/');
			base = base ? base + 1 : file;
			outbuf_init_memory(&mem);
			outbuf_write(&mem, " /* ", 4);
			outbuf_escaped(&mem, base, strlen(base), ESCAPE_TEXT);
			outbuf_write(&mem, line,
				     (size_t)sprintf(line, ":%u */",
						     si->src.line));
			outbuf_putc(&mem, '\0');
			outbuf_flush(&mem);
			s = mem.mem;
			p->srcline_len = mem.mem_len - 1;
			p->srcline = s;
		}
	}
	*len = p->srcline_len;
	return p->srcline;
}
