/* util.c -- allocation that cannot fail quietly, small blocks kept for
 * reuse, and warnings. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Out of memory while symbolizing: nothing sensible is left to do, and the
 * partial output is already flushed in order. */
static void out_of_memory(void)
{
	fputs(PROGRAM_NAME ": out of memory\n", stderr);
	exit(1);
}

void *must_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *must_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

/* Not under AddressSanitizer, which should see every use after a
 * free: spares are freed there. */
#if defined(__SANITIZE_ADDRESS__)
#define SPARES_KEEP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPARES_KEEP 0
#endif
#endif
#ifndef SPARES_KEEP
#define SPARES_KEEP 1
#endif

union spare_head {
	size_t cap;
	max_align_t align;
};

void *spare_alloc(struct spares *s, size_t n)
{
	union spare_head *h;
	if (n <= SPARE_SMALL && s->n) {
		h = s->block[--s->n];
	} else {
		size_t cap = n <= SPARE_SMALL ? SPARE_SMALL : n;
		if (cap > SIZE_MAX - sizeof *h)
			out_of_memory();
		h = must_malloc(sizeof *h + cap);
		h->cap = cap;
	}
	return h + 1;
}

void spare_free(struct spares *s, void *p)
{
	if (!p)
		return;
	union spare_head *h = (union spare_head *)p - 1;
	if (SPARES_KEEP && h->cap == SPARE_SMALL && s->n < SPARES_MAX) {
		s->block[s->n++] = h;
		return;
	}
	free(h);
}

void *must_realloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		out_of_memory();
	p = realloc(p, n && size ? n * size : 1);
	if (!p)
		out_of_memory();
	return p;
}

char *must_strndup(const char *s, size_t n)
{
	char *p = must_malloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void *must_pool_add(struct pool *p)
{
	uint32_t id;
	void *obj = pool_add(p, &id);

	if (!obj) {
		if (p->n >= UINT32_MAX) {
			/* 4 billion distinct names or addresses would take
			 * hundreds of gigabytes first */
			fprintf(stderr, PROGRAM_NAME ": more than %u distinct "
				"names or addresses\n", UINT32_MAX - 1);
			exit(1);
		}
		out_of_memory();
	}
	return obj;
}

void must_reserve_grow(struct id_table *t, size_t n, id_hash_fn hash,
		       const void *ctx)
{
	if (pool_ids_reserve(t, n, hash, ctx) < 0)
		out_of_memory();
}

void warn_msg(int errnum, const char *fmt, ...)
{
	va_list ap;

	fputs(PROGRAM_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}
