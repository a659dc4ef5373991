/* leb128.c -- LEB128 numbers written by the recorder's encoder and read by
 * the symbolizer's decoder (common/leb128.h): edge values round trip with
 * the DWARF encoding's exact bytes; truncated and overlong numbers are
 * refused; a time and stack delta pair written at once are the bytes of
 * the two written one after the other. */
#include <stdint.h>
#include <string.h>

#include "leb128.h"
#include "tap.h"

static const uint64_t unsigned_values[] = {
	0, 1, 63, 64, 127, 128, 129, 255, 256, 16383, 16384, 2097151,
	2097152, 0xffffffffull, 0x100000000ull, 0x7fffffffffffffffull,
	0x8000000000000000ull, 0xffffffffffffffffull,
};

static const int64_t signed_values[] = {
	0, 1, -1, 63, -63, 64, -64, 65, -65, 127, -128, 8191, -8192, 8192,
	-8193, INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1,
	(int64_t)INT32_MIN - 1, INT64_MAX, INT64_MIN, INT64_MIN + 1,
	-((int64_t)1 << 62), ((int64_t)1 << 62) - 1, -((int64_t)1 << 62) - 1,
	(int64_t)1 << 62, -((int64_t)1 << 55), ((int64_t)1 << 55) - 1,
};

/* Known encodings (DWARF 5, section 7.6, and its usual examples). */
static const struct {
	uint64_t v;
	uint8_t bytes[10];
	size_t n;
} unsigned_known[] = {
	{2, {0x02}, 1},
	{63, {0x3f}, 1},
	{64, {0x40}, 1},
	{127, {0x7f}, 1},
	{128, {0x80, 0x01}, 2},
	{129, {0x81, 0x01}, 2},
	{130, {0x82, 0x01}, 2},
	{12857, {0xb9, 0x64}, 2},
	{624485, {0xe5, 0x8e, 0x26}, 3},
	{UINT64_MAX,
	 {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
	 10},
};

static const struct {
	int64_t v;
	uint8_t bytes[10];
	size_t n;
} signed_known[] = {
	{2, {0x02}, 1},
	{-2, {0x7e}, 1},
	{63, {0x3f}, 1},
	{-64, {0x40}, 1},
	{64, {0xc0, 0x00}, 2},
	{-65, {0xbf, 0x7f}, 2},
	{127, {0xff, 0x00}, 2},
	{-127, {0x81, 0x7f}, 2},
	{128, {0x80, 0x01}, 2},
	{-128, {0x80, 0x7f}, 2},
	{129, {0x81, 0x01}, 2},
	{-129, {0xff, 0x7e}, 2},
	{-123456, {0xc0, 0xbb, 0x78}, 3},
	{INT64_MIN,
	 {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f},
	 10},
};

/* ctrace__uleb_sleb_put against ctrace__uleb_put then
 * ctrace__sleb_put_word, for every pair of u in [0, 300) and w in
 * [-300, 300) and a few far ones: returns how many differ (and prints
 * the first). */
static int uleb_sleb_mismatches(void)
{
	static const uint64_t far_u[] = {16383, 16384, UINT64_MAX};
	static const intptr_t far_w[] = {-8193, 8192, INTPTR_MIN, INTPTR_MAX};
	int bad = 0;
	for (int k = 0; k < 300 + 3; k++) {
		uint64_t u = k < 300 ? (uint64_t)k : far_u[k - 300];
		for (int j = 0; j < 600 + 4; j++) {
			intptr_t w = j < 600 ? j - 300 : far_w[j - 600];
			uint8_t a[32], b[32];
			memset(a, 0xaa, sizeof a);
			memset(b, 0xaa, sizeof b);
			uint8_t *ea = ctrace__uleb_sleb_put(a, u, w);
			uint8_t *eb = ctrace__sleb_put_word(
				ctrace__uleb_put(b, u), w);
			if (ea - a == eb - b && !memcmp(a, b, sizeof a))
				continue;
			if (bad++ == 0)
				tap_diag("u=%llu w=%lld: %d bytes, want %d",
					 (unsigned long long)u, (long long)w,
					 (int)(ea - a), (int)(eb - b));
		}
	}
	return bad;
}

int main(void)
{
	tap_plan(2 * TAP_COUNT(unsigned_values) + TAP_COUNT(signed_values) +
		 TAP_COUNT(unsigned_known) + TAP_COUNT(signed_known) + 7);

	for (int i = 0; i < TAP_COUNT(unsigned_values); i++) {
		uint8_t buf[16];
		uint64_t v = unsigned_values[i], back = 0;
		const uint8_t *p = buf;
		uint8_t *end = ctrace__uleb_put(buf, v);
		int r = ctrace__uleb_get(&p, end, &back);
		tap_ok(r == 0 && back == v && p == end,
		       "uleb %llu round trip", (unsigned long long)v);
		tap_ok((size_t)(end - buf) == ctrace__uleb_size(v) &&
			       end - buf <= CTRACE_LEB128_MAX,
		       "uleb %llu takes ctrace__uleb_size bytes",
		       (unsigned long long)v);
	}
	for (int i = 0; i < TAP_COUNT(signed_values); i++) {
		uint8_t buf[16];
		int64_t v = signed_values[i], back = 0;
		const uint8_t *p = buf;
		uint8_t *end = ctrace__sleb_put(buf, v);
		int r = ctrace__sleb_get(&p, end, &back);
		tap_ok(r == 0 && back == v && p == end &&
			       end - buf <= CTRACE_LEB128_MAX,
		       "sleb %lld round trip", (long long)v);
	}
	for (int i = 0; i < TAP_COUNT(unsigned_known); i++) {
		uint8_t buf[16];
		uint8_t *end = ctrace__uleb_put(buf, unsigned_known[i].v);
		tap_ok((size_t)(end - buf) == unsigned_known[i].n &&
			       !memcmp(buf, unsigned_known[i].bytes,
				       unsigned_known[i].n),
		       "uleb %llu is DWARF's encoding",
		       (unsigned long long)unsigned_known[i].v);
	}
	for (int i = 0; i < TAP_COUNT(signed_known); i++) {
		uint8_t buf[16];
		uint8_t *end = ctrace__sleb_put(buf, signed_known[i].v);
		tap_ok((size_t)(end - buf) == signed_known[i].n &&
			       !memcmp(buf, signed_known[i].bytes,
				       signed_known[i].n),
		       "sleb %lld is DWARF's encoding",
		       (long long)signed_known[i].v);
	}

	/* Damaged input: refused, the cursor left where it was. */
	static const uint8_t cut[] = {0x80, 0x80};
	static const uint8_t overlong[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					     0x80, 0x80, 0x80, 0x80, 0x00};
	const uint8_t *p = cut;
	uint64_t u = 7;
	int64_t s = 7;
	tap_ok(ctrace__uleb_get(&p, cut + sizeof cut, &u) < 0 && p == cut &&
		       u == 7,
	       "uleb cut short is refused");
	tap_ok(ctrace__sleb_get(&p, cut + sizeof cut, &s) < 0 && p == cut &&
		       s == 7,
	       "sleb cut short is refused");
	tap_ok(ctrace__uleb_get(&p, cut, &u) < 0, "uleb of no bytes is refused");
	p = overlong;
	tap_ok(ctrace__uleb_get(&p, overlong + sizeof overlong, &u) < 0,
	       "uleb longer than %d bytes is refused", CTRACE_LEB128_MAX);
	tap_ok(ctrace__sleb_get(&p, overlong + sizeof overlong, &s) < 0,
	       "sleb longer than %d bytes is refused", CTRACE_LEB128_MAX);
	/* A padded zero (0x80 0x00) is a valid two-byte encoding of 0. */
	static const uint8_t padded[] = {0x80, 0x00};
	p = padded;
	tap_ok(ctrace__uleb_get(&p, padded + 2, &u) == 0 && u == 0 &&
		       p == padded + 2,
	       "uleb padded zero reads as 0");
	tap_ok(uleb_sleb_mismatches() == 0,
	       "uleb then sleb at once: the bytes of each in turn");
	return tap_done();
}
