/* pool.h -- compact storage for millions of small objects.
 *
 * The symbolizer keeps a few objects per distinct address (pairs, names,
 * resolver answers); with one malloc each and a chained hash table, the
 * allocator's header, the chain pointer and the bucket head cost more than
 * the object.  Here:
 *
 *   pool       objects of one size, in blocks, named by a 32-bit id; no
 *              header per object, freed all at once
 *   id_table   open addressing over ids (id + 1, 0 empty), at most five
 *              eighths full: 6.4 to 12.8 bytes per object, the keys
 *              staying in the objects
 *   str_arena  strings copied one after the other into blocks
 *
 * Errors are returned (NULL, -ENOMEM): the resolver reports them, the
 * rest of the symbolizer stops on them.
 */
#ifndef CTRACE_SYMBOLIZER_POOL_H
#define CTRACE_SYMBOLIZER_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POOL_SHIFT 12 /* 4096 objects per block */

struct pool {
	char **blocks;
	size_t n, n_blocks;
	size_t size; /* of an object */
};

static inline void pool_init(struct pool *p, size_t size)
{
	*p = (struct pool){.size = size};
}

static inline void *pool_at(const struct pool *p, uint32_t id)
{
	return p->blocks[id >> POOL_SHIFT] +
	       (id & (((size_t)1 << POOL_SHIFT) - 1)) * p->size;
}

/* A new zeroed object and its id (p->n - 1).  NULL when out of memory, or
 * when UINT32_MAX objects exist already. */
void *pool_add(struct pool *p, uint32_t *id);
void pool_free(struct pool *p);

struct id_table {
	uint32_t *slots; /* id + 1; 0: empty */
	size_t mask;     /* slots - 1, a power of two minus one; 0: none */
};

/* The hash of object `id` (the caller's key). */
typedef size_t (*id_hash_fn)(const void *ctx, uint32_t id);

/* Whether a table holding n ids must grow before it takes one more: at
 * most five eighths full, 6.4 to 12.8 bytes per id. */
static inline bool pool_ids_full(const struct id_table *t, size_t n)
{
	return t->slots == NULL || 8 * (n + 1) > 5 * (t->mask + 1);
}

/* Makes room for one more id when the table holds n: doubles it (rehashing
 * ids 0 .. n-1) when n + 1 would fill more than five eighths, or builds it
 * again for the n ids after pool_ids_free.  Returns 0, or -ENOMEM with the
 * table unchanged. */
int pool_ids_reserve(struct id_table *t, size_t n, id_hash_fn hash,
		     const void *ctx);
void pool_ids_free(struct id_table *t);

/* Probing, for the caller who compares keys:
 *
 *	for (i = h & t->mask; t->slots[i]; i = (i + 1) & t->mask)
 *		if (key of object t->slots[i] - 1 matches) return it;
 *	t->slots[i] = new_id + 1;
 */

struct str_arena {
	struct arena_block *blocks;
	char *free;
	size_t left;
};

/* n bytes, for the caller to fill; NULL when out of memory. */
char *pool_arena_alloc(struct str_arena *a, size_t n);
/* s[0..n) and a NUL, copied; NULL when out of memory. */
const char *pool_arena_copy(struct str_arena *a, const char *s, size_t n);
void pool_arena_free(struct str_arena *a);

#endif /* CTRACE_SYMBOLIZER_POOL_H */
