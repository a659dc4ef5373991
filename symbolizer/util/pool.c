/* pool.c -- objects by 32-bit id, tables of ids, string arenas (pool.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/pool.h"

#define POOL_BLOCK_OBJS ((size_t)1 << POOL_SHIFT)

void *pool_add(struct pool *p, uint32_t *id)
{
	if (p->n >= UINT32_MAX)
		return NULL;
	if ((p->n >> POOL_SHIFT) == p->n_blocks) {
		char **blocks = realloc(p->blocks,
					(p->n_blocks + 1) * sizeof *blocks);
		char *block;
		if (blocks == NULL)
			return NULL;
		p->blocks = blocks;
		block = calloc(POOL_BLOCK_OBJS, p->size);
		if (block == NULL)
			return NULL;
		p->blocks[p->n_blocks++] = block;
	}
	*id = (uint32_t)p->n++;
	return pool_at(p, *id);
}

void pool_free(struct pool *p)
{
	for (size_t i = 0; i < p->n_blocks; i++)
		free(p->blocks[i]);
	free(p->blocks);
	p->blocks = NULL;
	p->n = p->n_blocks = 0;
}

int pool_ids_reserve(struct id_table *t, size_t n, id_hash_fn hash,
		     const void *ctx)
{
	size_t mask = t->mask ? 2 * t->mask + 1 : 255;
	uint32_t *slots;

	/* at most five eighths full (pool_ids_full).  Each probe reads the
	 * caller's object, a cache miss in a large table: fuller tables
	 * (three quarters) made the long unsuccessful searches of every
	 * insertion cost more than the memory saved. */
	if (!pool_ids_full(t, n))
		return 0;
	while (8 * (n + 1) > 5 * (mask + 1)) /* a freed table, rebuilt */
		mask = 2 * mask + 1;
	slots = calloc(mask + 1, sizeof *slots);
	if (slots == NULL)
		return -ENOMEM;
	for (size_t id = 0; id < n; id++) {
		size_t i = hash(ctx, (uint32_t)id) & mask;
		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = (uint32_t)id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = mask;
	return 0;
}

void pool_ids_free(struct id_table *t)
{
	free(t->slots);
	t->slots = NULL;
	t->mask = 0;
}

/* Strings longer than a quarter of a block get a block of their own, so
 * that at most a quarter of a block is left unused at its end. */
#define ARENA_BLOCK_BYTES ((size_t)64 * 1024)

struct arena_block {
	struct arena_block *next;
	char data[];
};

static char *arena_block_new(struct str_arena *a, size_t size)
{
	struct arena_block *b = malloc(sizeof *b + size);

	if (b == NULL)
		return NULL;
	b->next = a->blocks;
	a->blocks = b;
	return b->data;
}

char *pool_arena_alloc(struct str_arena *a, size_t n)
{
	char *dst;

	if (n > ARENA_BLOCK_BYTES / 4) {
		if (n > SIZE_MAX - sizeof(struct arena_block))
			return NULL;
		return arena_block_new(a, n);
	}
	if (n > a->left) {
		a->free = arena_block_new(a, ARENA_BLOCK_BYTES);
		a->left = a->free != NULL ? ARENA_BLOCK_BYTES : 0;
	}
	dst = a->free;
	if (dst != NULL) {
		a->free += n;
		a->left -= n;
	}
	return dst;
}

const char *pool_arena_copy(struct str_arena *a, const char *s, size_t n)
{
	char *dst = n < SIZE_MAX ? pool_arena_alloc(a, n + 1) : NULL;

	if (dst == NULL)
		return NULL;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return dst;
}

void pool_arena_free(struct str_arena *a)
{
	while (a->blocks != NULL) {
		struct arena_block *b = a->blocks;
		a->blocks = b->next;
		free(b);
	}
	a->free = NULL;
	a->left = 0;
}
