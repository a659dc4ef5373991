/* protobuf.c -- the protocol buffers wire format, written.
 *
 * Enough of it for a format that writes messages of its own schema
 * (out_perfetto.c): varint fields, length-delimited fields (bytes,
 * strings) and nested messages.  A message is built in one buffer that
 * is reused, so that writing costs no allocation once the buffer has
 * grown to the largest message.
 *
 * A nested message's length comes before it, but is known only at its
 * end: protobuf_end() moves the message's bytes up by the length's size
 * and writes the length in front, so that every length takes the fewest
 * bytes (protobuf also reads lengths padded to a fixed size, which would
 * cost bytes on every event).
 */
#include <stdlib.h>
#include <string.h>

#include "output/output.h"

enum {
	WIRE_VARINT = 0,
	WIRE_LEN = 2,
};

void protobuf_init(struct protobuf *pb)
{
	memset(pb, 0, sizeof *pb);
}

void protobuf_free(struct protobuf *pb)
{
	free(pb->buf);
	memset(pb, 0, sizeof *pb);
}

static void reserve(struct protobuf *pb, size_t n)
{
	if (pb->cap - pb->len >= n)
		return;
	size_t cap = pb->cap ? pb->cap : 256;
	while (cap - pb->len < n)
		cap *= 2;
	pb->buf = must_realloc(pb->buf, cap, 1);
	pb->cap = cap;
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static void put_varint(struct protobuf *pb, uint64_t v)
{
	reserve(pb, 10);
	pb->len += varint_put(pb->buf + pb->len, v);
}

static void put_key(struct protobuf *pb, uint32_t field, unsigned wire)
{
	put_varint(pb, (uint64_t)field << 3 | wire);
}

void protobuf_varint(struct protobuf *pb, uint32_t field, uint64_t v)
{
	put_key(pb, field, WIRE_VARINT);
	put_varint(pb, v);
}

void protobuf_bytes(struct protobuf *pb, uint32_t field, const void *p,
		    size_t n)
{
	put_key(pb, field, WIRE_LEN);
	put_varint(pb, n);
	reserve(pb, n);
	if (n)
		memcpy(pb->buf + pb->len, p, n);
	pb->len += n;
}

void protobuf_text(struct protobuf *pb, uint32_t field, const char *s,
		   size_t n)
{
	if (!escape_needed(s, n, ESCAPE_UTF8)) {
		protobuf_bytes(pb, field, s, n);
		return;
	}
	/* rare: names that are not UTF-8 */
	struct outbuf *mem = must_malloc(sizeof *mem);
	outbuf_init_memory(mem);
	outbuf_escaped(mem, s, n, ESCAPE_UTF8);
	outbuf_flush(mem);
	protobuf_bytes(pb, field, mem->mem, mem->mem_len);
	outbuf_free_memory(mem);
	free(mem);
}

void protobuf_begin(struct protobuf *pb, uint32_t field)
{
	if (pb->depth == PROTOBUF_MAX_DEPTH)
		abort(); /* the schemas written here nest less deeply */
	put_key(pb, field, WIRE_LEN);
	pb->open[pb->depth++] = pb->len;
}

void protobuf_end(struct protobuf *pb)
{
	size_t start = pb->open[--pb->depth];
	size_t n = pb->len - start;
	size_t k = varint_size(n);

	reserve(pb, k);
	memmove(pb->buf + start + k, pb->buf + start, n);
	varint_put(pb->buf + start, n);
	pb->len += k;
}
