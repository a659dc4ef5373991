/* stub_resolve.c -- a resolver for the fuzz target that reads no file.
 *
 * A fuzzed trace names arbitrary paths as its modules; the real resolver
 * would open them (device files included).  This one keeps the module
 * list as the trace gives it, with the same rules for time and unloading,
 * and makes up names from it: "module+0xoffset", or "0xaddress" outside
 * every module.  It never reports a module path, so nothing downstream
 * opens one either.  Equal names are equal pointers, as resolve.h asks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"

struct stub_module {
	char *base; /* base name of the path */
	uint64_t start, end, bias, loaded, gone;
};

struct answer {
	uint64_t addr, ticks;
	int site;
	struct resolve_info info;
	struct answer *next;
};

#define BUCKETS 1024

struct resolver {
	struct stub_module *mods;
	size_t n_mods;
	struct answer *table[BUCKETS];
	char **names; /* interned, for pointer equality */
	size_t n_names;
};

struct resolver *resolver_new(const struct resolve_options *opts,
			      resolve_error_fn error, void *data)
{
	(void)opts, (void)error, (void)data;
	return calloc(1, sizeof(struct resolver));
}

int resolver_add_module(struct resolver *r, const char *path, uint64_t bias,
			uint64_t start, uint64_t end, const uint8_t *build_id,
			size_t build_id_len, uint64_t ticks)
{
	(void)build_id, (void)build_id_len;
	struct stub_module *m = realloc(r->mods, (r->n_mods + 1) * sizeof *m);
	if (m == NULL)
		return -ENOMEM;
	r->mods = m;
	const char *slash = strrchr(path, '/');
	m[r->n_mods] = (struct stub_module){
		.base = strdup(slash ? slash + 1 : path),
		.start = start, .end = end, .bias = bias,
		.loaded = ticks, .gone = UINT64_MAX,
	};
	if (m[r->n_mods].base == NULL)
		return -ENOMEM;
	r->n_mods++;
	return 0;
}

void resolver_remove_module(struct resolver *r, uint64_t start,
			    uint64_t ticks)
{
	for (size_t i = r->n_mods; i-- > 0;)
		if (r->mods[i].start == start && r->mods[i].gone == UINT64_MAX) {
			r->mods[i].gone = ticks;
			return;
		}
}

static const char *intern(struct resolver *r, const char *s)
{
	for (size_t i = 0; i < r->n_names; i++)
		if (!strcmp(r->names[i], s))
			return r->names[i];
	char **n = realloc(r->names, (r->n_names + 1) * sizeof *n);
	if (n == NULL)
		abort();
	r->names = n;
	if ((n[r->n_names] = strdup(s)) == NULL)
		abort();
	return n[r->n_names++];
}

static const struct resolve_info *lookup(struct resolver *r, uint64_t addr,
					 uint64_t ticks, int site)
{
	const struct stub_module *m = NULL;
	for (size_t i = r->n_mods; i-- > 0;) {
		const struct stub_module *c = &r->mods[i];
		if (addr >= c->start && addr < c->end && c->loaded <= ticks &&
		    ticks < c->gone) {
			m = c;
			break;
		}
	}
	/* Names depend on the module only: answers are cached per address
	 * and module, like the real resolver's. */
	uint64_t key = addr ^ (m ? (uint64_t)(m - r->mods) << 48 : 0);
	size_t b = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 54) % BUCKETS;
	for (struct answer *a = r->table[b]; a; a = a->next)
		if (a->addr == key && a->site == site)
			return &a->info;
	struct answer *a = calloc(1, sizeof *a);
	if (a == NULL)
		abort();
	char name[600];
	if (m)
		snprintf(name, sizeof name, "%.500s+0x%" PRIx64, m->base,
			 addr - m->bias);
	else
		snprintf(name, sizeof name, "0x%" PRIx64, addr);
	a->addr = key;
	a->site = site;
	a->info.name = intern(r, name);
	a->info.module = NULL;
	a->info.module_offset = m ? addr - m->bias : addr;
	a->info.src.function = site ? a->info.name : NULL;
	a->next = r->table[b];
	r->table[b] = a;
	return &a->info;
}

const struct resolve_info *resolve_function(struct resolver *r, uint64_t addr,
					    uint64_t ticks)
{
	return lookup(r, addr, ticks, 0);
}

const struct resolve_info *resolve_call_site(struct resolver *r, uint64_t ret,
					     uint64_t ticks)
{
	return lookup(r, ret, ticks, 1);
}

void resolve_function_uncached(struct resolver *r, uint64_t addr,
			       uint64_t ticks, struct resolve_info *out)
{
	*out = *lookup(r, addr, ticks, 0);
}

void resolver_free(struct resolver *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < BUCKETS; i++)
		for (struct answer *a = r->table[i], *next; a; a = next) {
			next = a->next;
			free(a);
		}
	for (size_t i = 0; i < r->n_mods; i++)
		free(r->mods[i].base);
	for (size_t i = 0; i < r->n_names; i++)
		free(r->names[i]);
	free(r->names);
	free(r->mods);
	free(r);
}
