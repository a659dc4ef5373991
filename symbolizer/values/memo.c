/* memo.c -- a call's values, remembered by what they were decoded from.
 *
 * The values of a call are a function of its trace, its pair (function,
 * call site, the time the pair was first seen: which modules were
 * loaded) and the bytes of its ARGS or RETVAL payload, nothing else: the
 * DWARF, the code and the calling convention they are read by are the
 * module's.  A call whose payload is byte for byte that of an earlier
 * call of the same pair has that call's values: fib(3) is shown as it was
 * the first time, without walking the DWARF again.  So the shown values
 * cannot differ from a decoding without the memo (CTRACE_VALUE_CACHE=0
 * switches it off, cache.c, and the tests compare the two).
 *
 * Bounded: MEMO_SLOTS entries, direct-mapped by a hash of the key (a
 * newer entry replaces the one in its slot), each of a payload of at most
 * MEMO_MAX_PAYLOAD bytes and values of at most MEMO_MAX_TEXT bytes of
 * text; larger ones are decoded every time.  At most about 16,384 x 1.5
 * KiB, 24 MiB, whatever the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "values/dwinfo.h"
#include "values/values.h"

enum {
	MEMO_SLOTS = 16384, /* a power of two */
	MEMO_MAX_PAYLOAD = 512,
	MEMO_MAX_TEXT = 1024,
};

struct memo_entry {
	uint64_t hash;
	const struct trace *t;
	uint64_t fn, site, ticks;
	int kind;
	struct values *v; /* holds one reference */
	size_t len;
	uint8_t payload[];
};

static struct {
	struct memo_entry **slot;
} memo;


static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* The r bytes at p, 1 to 8 (a return value's payload is 4 or 5), as a
 * word that differs whenever they do, for this r: loads that overlap
 * rather than a call to memcpy of r bytes. */
static inline uint64_t tail_word(const uint8_t *p, size_t r)
{
	if (r >= 4) {
		uint32_t a, b;
		memcpy(&a, p, 4);
		memcpy(&b, p + r - 4, 4);
		return a | (uint64_t)b << 32;
	}
	return p[0] | (uint64_t)p[r / 2] << 8 | (uint64_t)p[r - 1] << 16;
}

/* The key's fields are multiplied side by side, then mixed with the
 * payload's words one after the other: a chain of three multiplications
 * for a return value rather than eight. */
static uint64_t key_hash(int kind, const struct trace *t,
			 const struct values_call *p, const uint8_t *payload,
			 size_t len)
{
	uint64_t h = mix(((uint64_t)(uintptr_t)t ^ (uint64_t)kind << 56 ^
			  len << 40) * 0xff51afd7ed558ccdull ^
				 p->fn * 0xc4ceb9fe1a85ec53ull ^
				 p->site * 0x9e3779b97f4a7c15ull ^
				 p->ticks * 0xd6e8feb86659fd93ull,
			 0);
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, payload + i, 8);
		h = mix(h, w);
	}
	if (i < len)
		h = mix(h, tail_word(payload + i, len - i));
	return h;
}

/* memcmp's answer to "equal?", inline for the short payloads of return
 * values. */
static bool same_bytes(const uint8_t *a, const uint8_t *b, size_t len)
{
	if (len == 0)
		return true;
	if (len <= 8)
		return tail_word(a, len) == tail_word(b, len);
	if (len <= 16) {
		uint64_t a0, a1, b0, b1;
		memcpy(&a0, a, 8);
		memcpy(&b0, b, 8);
		memcpy(&a1, a + len - 8, 8);
		memcpy(&b1, b + len - 8, 8);
		return a0 == b0 && a1 == b1;
	}
	return memcmp(a, b, len) == 0;
}

static struct memo_entry **slot_of(uint64_t h)
{
	if (!memo.slot)
		memo.slot = must_calloc(MEMO_SLOTS, sizeof *memo.slot);
	return &memo.slot[h & (MEMO_SLOTS - 1)];
}

struct values *memo_get(int kind, const struct trace *t,
			const struct values_call *p, const uint8_t *payload,
			size_t len, uint64_t *hash)
{
	if (len > MEMO_MAX_PAYLOAD)
		return NULL;
	*hash = key_hash(kind, t, p, payload, len);
	struct memo_entry *e = *slot_of(*hash);
	if (!e || e->hash != *hash || e->kind != kind || e->t != t ||
	    e->fn != p->fn || e->site != p->site || e->ticks != p->ticks ||
	    e->len != len || !same_bytes(e->payload, payload, len))
		return NULL;
	e->v->refs++;
	return e->v;
}

/* The bytes of text v holds, to keep entries small. */
static size_t text_bytes(const struct values *v)
{
	size_t n = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct value *x = &v->v[i];
		n += (x->name ? strlen(x->name) : 0) +
		     (x->type ? strlen(x->type) : 0) +
		     (x->text ? strlen(x->text) : 0);
	}
	return n;
}

void memo_put(int kind, const struct trace *t, const struct values_call *p,
	      const uint8_t *payload, size_t len, uint64_t hash,
	      struct values *v)
{
	if (!v || len > MEMO_MAX_PAYLOAD ||
	    text_bytes(v) > MEMO_MAX_TEXT)
		return;
	struct memo_entry **s = slot_of(hash);
	if (*s) {
		values_free((*s)->v);
		free(*s);
	}
	struct memo_entry *e = must_malloc(sizeof *e + len);
	*e = (struct memo_entry){.hash = hash, .t = t, .fn = p->fn,
				 .site = p->site, .ticks = p->ticks,
				 .kind = kind, .v = v, .len = len};
	memcpy(e->payload, payload, len);
	v->refs++; /* the caller's, and the memo's */
	*s = e;
}

void memo_reset(void)
{
	if (!memo.slot)
		return;
	for (size_t i = 0; i < MEMO_SLOTS; i++) {
		if (memo.slot[i]) {
			values_free(memo.slot[i]->v);
			free(memo.slot[i]);
		}
	}
	free(memo.slot);
	memo.slot = NULL;
}
