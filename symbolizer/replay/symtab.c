/* symtab.c -- (function, call site) pairs and the names of functions.
 *
 * Every DEFINE record of every chunk names a pair; interning them here means
 * an event carries a pointer, and each distinct function address is resolved
 * once.  The trace stage decodes the raw addresses; symtab_name_head gives
 * each event its pair, and keeps it in the stream's per-slot cache with
 * the times at which it holds (thread.c's advance reads the cache first).
 * Addresses are keyed with their module epoch, the number of module
 * loads and unloads before the event: after a dlclose, the same address
 * may belong to another library.  A slot's pair is checked against the
 * time of every event that uses it (symtab_pair_holds), so a name always
 * comes from the modules of the event's own time.
 *
 * Memory per distinct address: a pair of 24 bytes, a func of 32 that points
 * to the resolver's interned name (kept nowhere else), and a slot of each
 * id table; the rest of a pair is made only for the pairs that need it
 * (struct pair_extra, in a pool: no allocation per pair).
 */
#include <stdio.h>
#include <stdlib.h>

#include "replay/replay.h"
#include "values/values.h"

#include <errno.h>

struct symtab {
	struct resolver *resolver;
	bool full_names;
	uint64_t *module_ticks; /* sorted once the first pair is asked for */
	size_t n_module_ticks, cap_module_ticks;
	bool sorted;

	struct pool funcs, pairs, extras;
	struct id_table func_ids, pair_ids;
	/* the inlined copies' pairs (struct variant), to free */
	struct variant **variants;
	size_t n_variants, cap_variants;
	/* the trace's library call slots (struct trace), sorted by slot */
	const struct trace_plt_slot *plt_slots;
	size_t n_plt_slots;
};

/* What a pair needs only sometimes (see struct pair), by id in
 * symtab.extras: 40 bytes. */
struct pair_extra {
	const struct resolve_info *site_info; /* lazy: see symtab_pair_site */
	/* " /" "* file.c:42 *" "/", lazy; no_srcline if unknown */
	const char *srcline;
	size_t srcline_len;
	/* the function's module path, lazy; no_module if none */
	const char *module;
	/* The inlined copies of this pair, one per host function (or per
	 * entry hook in a host that inlines it at several lines), linked
	 * through their own extra (symtab_inlined_pair). */
	struct pair *variants;
};

/* An inlined copy's pair as called from one host function: its call site
 * is the inlined call's, in inline_site.  One allocation; its extra is in
 * the pool. */
struct variant {
	struct pair pair; /* first: a variant's pair is the variant */
	uint64_t host_fn;
	uint64_t hook; /* 0: every copy in the host, one call line */
	struct resolve_info inline_site;
};

/* The --srcline text of a call site whose file is unknown, and the module
 * of a function that none covers. */
static const char no_srcline[] = "", no_module[] = "";

struct symtab *symtab_new(struct resolver *r, bool full_names)
{
	struct symtab *st = must_calloc(1, sizeof *st);

	st->resolver = r;
	st->full_names = full_names;
	pool_init(&st->funcs, sizeof(struct func));
	pool_init(&st->pairs, sizeof(struct pair));
	pool_init(&st->extras, sizeof(struct pair_extra));
	return st;
}

void symtab_free(struct symtab *st)
{
	for (size_t i = 0; i < st->extras.n; i++) {
		struct pair_extra *x = pool_at(&st->extras, (uint32_t)i);
		if (x->srcline != no_srcline)
			free((char *)x->srcline);
	}
	for (size_t i = 0; i < st->n_variants; i++) {
		free((char *)st->variants[i]->inline_site.src.file);
		free(st->variants[i]);
	}
	free(st->variants);
	pool_free(&st->funcs);
	pool_free(&st->pairs);
	pool_free(&st->extras);
	pool_ids_free(&st->func_ids);
	pool_ids_free(&st->pair_ids);
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

static size_t func_hash(const void *st, uint32_t id)
{
	const struct func *f = pool_at(&((const struct symtab *)st)->funcs, id);
	return hash3(f->addr, f->epoch, 0);
}

/* A pair is keyed by its call site and its func (the function address and
 * epoch): the func is found first, so that probing compares the pair
 * alone. */
static size_t pair_hash(const void *st, uint32_t id)
{
	const struct pair *p = pool_at(&((const struct symtab *)st)->pairs, id);
	return hash3(p->func->addr, p->site, p->func->epoch);
}

/* The func of addr in epoch, or NULL and in *slot the func table's slot
 * where it goes (make_func). */
static struct func *find_func(struct symtab *st, uint64_t addr,
			      unsigned epoch, size_t *slot)
{
	size_t i;
	struct func *f;

	must_reserve(&st->func_ids, st->funcs.n, func_hash, st);
	for (i = hash3(addr, epoch, 0) & st->func_ids.mask;
	     st->func_ids.slots[i]; i = (i + 1) & st->func_ids.mask) {
		f = pool_at(&st->funcs, st->func_ids.slots[i] - 1);
		if (f->addr == addr && f->epoch == epoch)
			return f;
	}
	*slot = i;
	return NULL;
}

static int plt_slot_cmp(const void *a, const void *b)
{
	const struct trace_plt_slot *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* By slot, then in record order. */
static int plt_record_cmp(const void *a, const void *b)
{
	const struct trace_plt_slot *x = a, *y = b;
	int c = plt_slot_cmp(a, b);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* One entry per slot: the last record's name, the last target given (a
 * slot bound late gets a second record).  Returns the entries kept. */
static size_t plt_slots_merge(struct trace_plt_slot *v, size_t n)
{
	size_t kept = 0;

	qsort(v, n, sizeof *v, plt_record_cmp);
	for (size_t i = 0; i < n; i++) {
		if (kept && v[kept - 1].slot == v[i].slot) {
			struct trace_plt_slot *k = &v[kept - 1];
			free(k->name);
			k->name = v[i].name;
			if (v[i].target)
				k->target = v[i].target;
			continue;
		}
		v[kept++] = v[i];
	}
	return kept;
}

/* The library call slot at addr, or NULL. */
static const struct trace_plt_slot *plt_slot(const struct symtab *st,
					     uint64_t addr)
{
	struct trace_plt_slot key = {.slot = addr};

	if (!st->n_plt_slots)
		return NULL;
	return bsearch(&key, st->plt_slots, st->n_plt_slots,
		       sizeof key, plt_slot_cmp);
}

/* A new func, named by the resolver, in the slot find_func gave. */
static struct func *make_func(struct symtab *st, uint64_t addr,
			      unsigned epoch, uint64_t ticks, size_t slot)
{
	struct func *f = must_pool_add(&st->funcs);
	size_t len;

	st->func_ids.slots[slot] = (uint32_t)st->funcs.n;
	f->addr = addr;
	f->epoch = epoch;
	const struct trace_plt_slot *ps = plt_slot(st, addr);
	if (ps && ps->name[0]) {
		/* a library call: named by its relocation's symbol */
		f->name = resolve_display_name(st->resolver, ps->name);
		f->libcall = true;
	} else {
		f->name = resolve_function_name(st->resolver, addr, ticks);
	}
	len = strlen(f->name);
	if (len > UINT32_MAX) {
		warn_msg(0, "a function name of more than 4 GiB");
		exit(1);
	}
	f->name_len = (uint32_t)len;
	f->plain_name = !escape_needed(f->name, f->name_len, ESCAPE_TEXT);
	/* "ns::f(int)" needs no "()" after it; C names never have one */
	f->has_params = st->full_names && strchr(f->name, '(');
	return f;
}

/* Both tables are probed before a new function is resolved: the two
 * cache misses of a new address then overlap. */
struct pair *symtab_pair(struct symtab *st, uint64_t fn, uint64_t site,
			 uint64_t ticks)
{
	unsigned epoch = epoch_at(st, ticks);
	size_t func_slot = 0, i;
	struct func *f = find_func(st, fn, epoch, &func_slot);
	struct pair *p;

	must_reserve(&st->pair_ids, st->pairs.n, pair_hash, st);
	for (i = hash3(fn, site, epoch) & st->pair_ids.mask;
	     st->pair_ids.slots[i]; i = (i + 1) & st->pair_ids.mask) {
		p = pool_at(&st->pairs, st->pair_ids.slots[i] - 1);
		if (p->func == f && p->site == site)
			return p; /* never when f is NULL: every pair has one */
	}
	if (!f)
		f = make_func(st, fn, epoch, ticks, func_slot);
	p = must_pool_add(&st->pairs);
	st->pair_ids.slots[i] = (uint32_t)st->pairs.n;
	p->site = site;
	p->func = f;
	return p;
}

uint64_t symtab_pair_time(const struct symtab *st, const struct pair *p)
{
	uint32_t epoch = p->func ? p->func->epoch : 0;

	return epoch ? st->module_ticks[epoch - 1] : 0;
}

bool symtab_pair_holds(const struct symtab *st, const struct pair *p,
		       uint64_t ticks)
{
	/* the epoch spans [module_ticks[epoch - 1], module_ticks[epoch]) */
	uint32_t epoch = p->func->epoch;

	return (!epoch || ticks >= st->module_ticks[epoch - 1]) &&
	       (epoch >= st->n_module_ticks || ticks < st->module_ticks[epoch]);
}

struct pair *symtab_pair_moved(struct symtab *st, const struct pair *p,
			       uint64_t ticks)
{
	struct pair *q = symtab_pair(st, pair_fn(p), p->site, ticks);

	if (!q->frame) {
		q->frame = p->frame;
		q->inlined = p->inlined;
	}
	return q;
}

/* The extra record of p, made when first asked for.  Its id is kept in
 * 31 bits: more extra records than that stop the program, as running out
 * of memory does. */
static struct pair_extra *extra_of(struct symtab *st, struct pair *p)
{
	if (!p->extra) {
		if (st->extras.n >= ((uint32_t)1 << 31) - 1) {
			warn_msg(0, "out of memory (2^31 call sites)");
			exit(1);
		}
		must_pool_add(&st->extras);
		p->extra = (uint32_t)st->extras.n & 0x7fffffffu;
	}
	return pool_at(&st->extras, p->extra - 1);
}

const struct pair *symtab_inlined_pair(struct symtab *st, struct trace *t,
				       const struct pair *cp, uint64_t host_fn,
				       uint64_t hook)
{
	struct pair *p = (struct pair *)cp;
	struct pair_extra *px = extra_of(st, p), *vx;
	struct variant *v;
	const char *file;
	unsigned line;
	bool found;

	for (struct pair *q = px->variants; q;
	     q = ((struct pair_extra *)pool_at(&st->extras, q->extra - 1))
			 ->variants) {
		v = (struct variant *)q;
		if (v->host_fn == host_fn && (!v->hook || v->hook == hook)) {
			q->frame = p->frame; /* a later DEFINE may tell it */
			return q;
		}
	}
	v = must_calloc(1, sizeof *v);
	v->pair = *p;
	v->pair.extra = 0;
	v->host_fn = host_fn;
	v->inline_site = (struct resolve_info){.name = p->func->name};
	found = dw_inlined_call_site(t, host_fn, pair_fn(p), 0,
				     symtab_pair_time(st, p), &file, &line);
	if (!found && hook) {
		/* Inlined at several lines: the copy holding this hook's
		 * call, a variant of its own. */
		v->hook = hook;
		found = dw_inlined_call_site(t, host_fn, pair_fn(p), hook,
					     symtab_pair_time(st, p), &file,
					     &line);
	}
	if (found) {
		v->inline_site.src.file = must_strndup(file, strlen(file));
		v->inline_site.src.line = line;
	}
	if (st->n_variants == st->cap_variants) {
		st->cap_variants = st->cap_variants ? 2 * st->cap_variants : 16;
		st->variants = must_realloc(st->variants, st->cap_variants,
					    sizeof *st->variants);
	}
	st->variants[st->n_variants++] = v;
	vx = extra_of(st, &v->pair); /* px stays: pool objects never move */
	vx->site_info = &v->inline_site;
	vx->variants = px->variants;
	px->variants = &v->pair;
	return &v->pair;
}

const struct resolve_info *symtab_pair_site(struct symtab *st,
					    const struct pair *cp)
{
	struct pair_extra *x = extra_of(st, (struct pair *)cp); /* ours */

	if (!x->site_info)
		x->site_info = resolve_call_site(st->resolver, cp->site,
						 symtab_pair_time(st, cp));
	return x->site_info;
}

bool symtab_pair_libcall(const struct symtab *st, const struct pair *cp,
			 uint64_t *target, const char **symbol)
{
	const struct trace_plt_slot *ps;

	if (!cp->func || !cp->func->libcall ||
	    !(ps = plt_slot(st, pair_fn(cp))))
		return false;
	*target = ps->target;
	*symbol = ps->name;
	return true;
}

const char *symtab_pair_module(struct symtab *st, const struct pair *cp)
{
	struct pair_extra *x = extra_of(st, (struct pair *)cp);

	if (!x->module) {
		uint64_t fn = pair_fn(cp);
		/* a library call's module is its target's: the library */
		if (cp->func->libcall) {
			const struct trace_plt_slot *ps = plt_slot(st, fn);
			fn = ps ? ps->target : 0;
		}
		x->module = fn ? resolve_function_module(
					 st->resolver, fn,
					 symtab_pair_time(st, cp))
			       : NULL;
		if (!x->module)
			x->module = no_module;
	}
	return x->module != no_module ? x->module : NULL;
}

const char *symtab_pair_srcline(struct symtab *st, const struct pair *cp,
				size_t *len)
{
	struct pair_extra *x = extra_of(st, (struct pair *)cp);

	if (!x->srcline) {
		const struct resolve_info *si = symtab_pair_site(st, cp);
		const char *file = si->src.file, *base;
		char *s;

		if (!file) {
			x->srcline = no_srcline;
			x->srcline_len = 0;
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
			x->srcline_len = mem.mem_len - 1;
			x->srcline = s;
		}
	}
	*len = x->srcline_len;
	return x->srcline;
}

/* ---------------------------------------------------------------------------
 * A trace's names
 * ------------------------------------------------------------------------ */

/* Resolver messages quote paths read from the trace: a damaged one must
 * not break the one-line-per-message rule of stderr. */
static void resolver_error(void *data, const char *msg, int errnum)
{
	struct outbuf clean;

	(void)data;
	/* paths come from the trace: escaped as in the text outputs */
	outbuf_init_memory(&clean);
	outbuf_escaped(&clean, msg, strlen(msg), ESCAPE_TEXT);
	outbuf_putc(&clean, '\0');
	outbuf_flush(&clean);
	warn_msg(errnum, "%s", clean.mem);
	outbuf_free_memory(&clean);
}

void symtab_attach(struct trace *t, const struct resolve_options *ro,
		   bool open_modules)
{
	t->resolver = resolve_new(ro, resolver_error, t);
	if (!t->resolver) {
		warn_msg(ENOMEM, "%s", t->path);
		exit(1);
	}
	t->symtab = symtab_new(t->resolver,
			       ro->demangle == RESOLVE_DEMANGLE_FULL);
	if (t->n_plt_slots) {
		t->n_plt_slots = plt_slots_merge(t->plt_slots, t->n_plt_slots);
		t->symtab->plt_slots = t->plt_slots;
		t->symtab->n_plt_slots = t->n_plt_slots;
	}
	for (size_t i = 0; i < t->n_module_events; i++) {
		const struct trace_module_event *e = &t->module_events[i];
		const struct trace_module *m;
		symtab_module_event(t->symtab, e->ticks);
		if (!open_modules)
			continue;
		if (e->gone) {
			resolve_remove_module(t->resolver, e->start, e->ticks);
			continue;
		}
		m = &t->modules[e->module];
		if (resolve_add_module(t->resolver, m->path, m->bias, m->start,
				       m->end,
				       m->build_id_len ? m->build_id : NULL,
				       m->build_id_len, e->ticks) < 0) {
			warn_msg(0, "out of memory");
			exit(1);
		}
	}
}

void symtab_detach(struct trace *t)
{
	if (t->symtab)
		symtab_free(t->symtab);
	if (t->resolver)
		resolve_free(t->resolver);
	t->symtab = NULL;
	t->resolver = NULL;
}

/* The times [*from, *until) at which p's names hold: its epoch's. */
static void pair_span(const struct symtab *st, const struct pair *p,
		      uint64_t *from, uint64_t *until)
{
	uint32_t epoch = p->func->epoch;

	*from = epoch ? st->module_ticks[epoch - 1] : 0;
	*until = epoch < st->n_module_ticks ? st->module_ticks[epoch]
					    : UINT64_MAX;
}

void symtab_name_head(struct stream *s)
{
	struct event *ev = &s->head;
	struct symtab *st = s->trace->symtab;
	struct stream_named *n = stream_named_at(s, ev->slot);
	const struct pair *p = n->pair;

	if (ev->kind != EV_ENTRY && ev->kind != EV_EXIT)
		return;
	if (!p) {
		const struct stream_slot *sl = stream_slot_at(s, ev->slot);
		struct pair *q = symtab_pair(st, sl->fn, sl->site, sl->defined);
		/* The first frame a DEFINE gave stays: a pair's entries may
		 * come from several frames (a copy inlined into functions
		 * called from one site), and which of them a later chunk's
		 * DEFINE saw depends on where chunks and slot collisions
		 * fell, not on the program. */
		if (q->frame == 0 && sl->frame) {
			q->frame = sl->frame;
			q->inlined = sl->inlined;
		}
		p = q;
		pair_span(st, p, &n->from, &n->until);
	}
	if (!symtab_pair_holds(st, p, ev->ticks)) {
		p = symtab_pair_moved(st, p, ev->ticks);
		pair_span(st, p, &n->from, &n->until);
	}
	n->pair = p;
	ev->pair = p;
}
