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
	ts->all = must_realloc(ts->all, ts->n + 1, sizeof *ts->all);
	ts->all[ts->n++] = at;
	th->output_state = at;
	return at;
}

void agg_threads_free(struct agg_threads *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		free(ts->all[i]->stack);
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
