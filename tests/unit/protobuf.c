/* protobuf.c -- the protocol buffers wire format writer
 * (symbolizer/output/protobuf.c) against bytes worked out by hand from
 * protobuf's encoding rules: keys are field << 3 | wire type, varints
 * 7 bits a byte low first, a nested message's length in front of it in
 * the fewest bytes, also when it needs two. */
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "tap.h"

static int same(const struct protobuf *pb, const uint8_t *want, size_t n)
{
	if (pb->len == n && !memcmp(pb->buf, want, n))
		return 1;
	for (size_t i = 0; i < pb->len; i++)
		tap_diag("byte %zu: %02x", i, pb->buf[i]);
	return 0;
}

int main(void)
{
	struct protobuf pb;

	tap_plan(5);
	protobuf_init(&pb);

	/* field 1 = 150: 08 96 01 (the encoding guide's example) */
	protobuf_varint(&pb, 1, 150);
	tap_ok(same(&pb, (const uint8_t[]){0x08, 0x96, 0x01}, 3), "varint");

	/* field 58 (two-byte key) = 64, field 2 = "hi" */
	pb.len = 0;
	protobuf_varint(&pb, 58, 64);
	protobuf_bytes(&pb, 2, "hi", 2);
	tap_ok(same(&pb, (const uint8_t[]){0xd0, 0x03, 0x40, 0x12, 0x02, 'h',
					   'i'}, 7), "two-byte key, bytes");

	/* 1 { 11 { 9: 1 } }: lengths written after the contents */
	pb.len = 0;
	protobuf_begin(&pb, 1);
	protobuf_begin(&pb, 11);
	protobuf_varint(&pb, 9, 1);
	protobuf_end(&pb);
	protobuf_end(&pb);
	tap_ok(same(&pb, (const uint8_t[]){0x0a, 0x04, 0x5a, 0x02, 0x48, 0x01},
		    6), "nested messages");

	/* a message of 200 bytes: its length takes two bytes (c8 01) */
	char big[196];
	memset(big, 'x', sizeof big);
	pb.len = 0;
	protobuf_begin(&pb, 1);
	protobuf_bytes(&pb, 2, big, 196); /* 12 c4 01 + 196 = 199 */
	protobuf_varint(&pb, 3, 0);       /* + 18 00 = 201 */
	protobuf_end(&pb);
	tap_ok(pb.len == 204 && pb.buf[0] == 0x0a && pb.buf[1] == 0xc9 &&
	       pb.buf[2] == 0x01 && pb.buf[3] == 0x12 && pb.buf[4] == 0xc4 &&
	       pb.buf[5] == 0x01 && pb.buf[6] == 'x' && pb.buf[201] == 'x' &&
	       pb.buf[202] == 0x18 && pb.buf[203] == 0x00,
	       "a two-byte length moves the message up");

	/* text that is not UTF-8: 0xff becomes U+FFFD (ef bf bd) */
	pb.len = 0;
	protobuf_text(&pb, 2, "a\xff", 2);
	tap_ok(same(&pb, (const uint8_t[]){0x12, 0x04, 'a', 0xef, 0xbf, 0xbd},
		    6), "text: not UTF-8 becomes U+FFFD");

	protobuf_free(&pb);
	return tap_done();
}
