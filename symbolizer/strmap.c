/* strmap.c -- the string map of interned names, and the display names.
 *
 * Each distinct function and file name is stored once for the life of the
 * resolver, so results hand out plain pointers, equal for equal names.
 * The map is open addressing with linear probing, kept at most half full.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "resolve_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * String map
 * ------------------------------------------------------------------------ */

uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h;
}

const char *str_map_find(const struct str_map *m, const char *key,
			 uint64_t hash)
{
	if (m->cap == 0)
		return NULL;
	for (size_t i = hash & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		const struct str_slot *s = &m->slots[i];
		if (s->key == NULL)
			return NULL;
		if (s->hash == hash && strcmp(s->key, key) == 0)
			return s->value;
	}
}

static void insert(struct str_slot *slots, size_t cap,
		   const struct str_slot *from)
{
	size_t i = from->hash & (cap - 1);

	while (slots[i].key != NULL)
		i = (i + 1) & (cap - 1);
	slots[i] = *from;
}

int str_map_add(struct str_map *m, char *key, const char *value,
		uint64_t hash)
{
	struct str_slot slot = {key, value, hash};

	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		struct str_slot *slots = calloc(cap, sizeof *slots);
		if (slots == NULL)
			return -ENOMEM;
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].key != NULL)
				insert(slots, cap, &m->slots[i]);
		free(m->slots);
		m->slots = slots;
		m->cap = cap;
	}
	insert(m->slots, m->cap, &slot);
	m->n++;
	return 0;
}

void str_map_free(struct str_map *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		struct str_slot *s = &m->slots[i];
		if (s->key == NULL)
			continue;
		if (s->value != s->key)
			free((char *)s->value);
		free(s->key);
	}
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
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

const char *names_display(struct str_map *names, enum resolve_demangle mode,
			  const char *raw)
{
	uint64_t h = str_hash(raw);
	const char *known = str_map_find(names, raw, h);
	char *key, *shown = NULL;

	if (known != NULL)
		return known;
	key = strdup(raw);
	if (key == NULL)
		return NULL;
	if (mode == RESOLVE_DEMANGLE_FULL)
		shown = cplus_demangle(raw, DMGL_PARAMS | DMGL_ANSI);
	else if (mode == RESOLVE_DEMANGLE_NAME)
		shown = demangle_name(raw);
	if (str_map_add(names, key, shown ? shown : key, h) < 0) {
		free(shown);
		free(key);
		return NULL;
	}
	return shown ? shown : key;
}

const char *names_intern(struct str_map *set, const char *s)
{
	uint64_t h = str_hash(s);
	const char *known = str_map_find(set, s, h);
	char *key;

	if (known != NULL)
		return known;
	key = strdup(s);
	if (key == NULL)
		return NULL;
	if (str_map_add(set, key, key, h) < 0) {
		free(key);
		return NULL;
	}
	return key;
}
