/* strmap.c -- the string map of interned names, and the display names.
 *
 * Each distinct function and file name is stored once for the life of the
 * resolver, so results hand out plain pointers, equal for equal names.
 * The map is open addressing over 32-bit ids, kept at most five eighths
 * full (pool.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "resolve/resolve_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * String map
 * ------------------------------------------------------------------------ */

uint64_t strmap_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h;
}

/* An entry is the key's text in the arena (8 bytes in the pool, a slot of
 * the table, no allocator header), preceded by one byte that says whether
 * the value follows the key's NUL (1) or is the key itself (0): most names
 * map to themselves, and then the entry holds one string. */
static const char *entry_value(const char *key)
{
	return key[-1] ? key + strlen(key) + 1 : key;
}

const char *strmap_find(const struct str_map *m, const char *key,
			uint64_t hash)
{
	if (m->ids.slots == NULL)
		return NULL;
	for (size_t i = hash & m->ids.mask; m->ids.slots[i];
	     i = (i + 1) & m->ids.mask) {
		const char *const *e =
			pool_at(&m->entries, m->ids.slots[i] - 1);
		if (strcmp(*e, key) == 0)
			return entry_value(*e);
	}
	return NULL;
}

static size_t entry_hash(const void *m, uint32_t id)
{
	const char *const *e =
		pool_at(&((const struct str_map *)m)->entries, id);
	return (size_t)strmap_hash(*e);
}

const char *strmap_add(struct str_map *m, const char *key,
		       const char *value, uint64_t hash)
{
	size_t klen = strlen(key), vlen = 0, i;
	const char **e;
	char *text;
	uint32_t id;

	if (m->entries.size == 0)
		pool_init(&m->entries, sizeof(const char *));
	if (pool_ids_reserve(&m->ids, m->entries.n, entry_hash, m) < 0)
		return NULL;
	if (value != NULL && strcmp(value, key) == 0)
		value = NULL;
	if (value != NULL)
		vlen = strlen(value) + 1;
	if (klen > SIZE_MAX - 2 - vlen)
		return NULL;
	text = pool_arena_alloc(&m->strings, 1 + klen + 1 + vlen);
	if (text == NULL)
		return NULL;
	text[0] = value != NULL;
	memcpy(text + 1, key, klen + 1);
	if (value != NULL)
		memcpy(text + 1 + klen + 1, value, vlen);
	e = pool_add(&m->entries, &id);
	if (e == NULL)
		return NULL;
	*e = text + 1;
	for (i = hash & m->ids.mask; m->ids.slots[i]; i = (i + 1) & m->ids.mask)
		;
	m->ids.slots[i] = id + 1;
	return entry_value(*e);
}

void strmap_free(struct str_map *m)
{
	pool_free(&m->entries);
	pool_ids_free(&m->ids);
	pool_arena_free(&m->strings);
}

/* ---------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

/* GCC names clones of a function by appending ".constprop.0", ".isra.0",
 * ".part.0", ".cold" and the like to its symbol.  Demangling without the
 * parameter list drops that suffix; it is put back so that a C++ clone
 * reads like a C one ("ns::f.cold"), and is never mistaken for f. */
static char *demangle_name(const char *raw)
{
	char *name = cplus_demangle(raw, DMGL_ANSI);
	const char *suffix = strchr(raw, '.');
	char *with_suffix;

	if (name == NULL || suffix == NULL)
		return name;
	with_suffix = malloc(strlen(name) + strlen(suffix) + 1);
	if (with_suffix != NULL)
		strcat(strcpy(with_suffix, name), suffix);
	free(name);
	return with_suffix;
}

const char *strmap_display(struct str_map *names, enum resolve_demangle mode,
			   const char *raw)
{
	uint64_t h = strmap_hash(raw);
	const char *known = strmap_find(names, raw, h);
	char *shown = NULL;

	if (known != NULL)
		return known;
	if (mode == RESOLVE_DEMANGLE_FULL)
		shown = cplus_demangle(raw, DMGL_PARAMS | DMGL_ANSI);
	else if (mode == RESOLVE_DEMANGLE_NAME)
		shown = demangle_name(raw);
	known = strmap_add(names, raw, shown, h);
	free(shown);
	return known;
}

const char *strmap_intern(struct str_map *set, const char *s)
{
	uint64_t h = strmap_hash(s);
	const char *known = strmap_find(set, s, h);

	return known != NULL ? known : strmap_add(set, s, NULL, h);
}
