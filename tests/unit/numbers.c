/* numbers.c -- the numbers every call with values formats, written digit
 * pairs at a time and counted from their highest bit (format.c's
 * format_kind_text and format_kind_word, outbuf.c's outbuf_format_u64
 * and outbuf_format_duration), against printf: every power of two and of
 * ten, one below and one above, and pseudo-random values of every width,
 * as each kind shows them (signed and unsigned of 1, 2, 4 and 8 bytes,
 * booleans, pointers and references of 4 and 8 bytes). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "values/dwinfo.h"
#include "tap.h"

static uint64_t values[4096];
static size_t n_values;

static void add(uint64_t v)
{
	if (n_values < sizeof values / sizeof values[0])
		values[n_values++] = v;
}

static void make_values(void)
{
	uint64_t p = 1, r = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 64; i++) {
		add(1ull << i);
		add((1ull << i) - 1);
		add((1ull << i) + 1);
		add(~(1ull << i));
	}
	for (int i = 0; i < 20; i++, p *= 10) {
		add(p);
		add(p - 1);
		add(p + 1);
		add(-p);
	}
	add(0);
	add(UINT64_MAX);
	add((uint64_t)INT64_MIN);
	while (n_values < sizeof values / sizeof values[0]) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		add(r >> (r % 64));
	}
}

/* What format.c writes for v's low `size` bytes, by printf. */
static void expected(enum fmt_kind k, int ptr_size, uint64_t v, size_t size,
		     char *out, size_t n)
{
	uint64_t mask = size >= 8 ? UINT64_MAX : (1ull << 8 * size) - 1;
	uint64_t pmask = ptr_size >= 8 ? UINT64_MAX
				       : (1ull << 8 * ptr_size) - 1;
	uint64_t u = v & mask;
	int64_t s = (int64_t)u;
	if (size < 8 && (u >> (8 * size - 1)) & 1)
		s = (int64_t)(u | ~mask);
	switch (k) {
	case FMT_BOOL:
		snprintf(out, n, "%s", u ? "true" : "false");
		break;
	case FMT_SIGNED:
		snprintf(out, n, "%" PRId64, s);
		break;
	case FMT_UNSIGNED:
		snprintf(out, n, "%" PRIu64, u);
		break;
	case FMT_POINTER:
		if (v & pmask)
			snprintf(out, n, "0x%" PRIx64, v & pmask);
		else
			snprintf(out, n, "NULL");
		break;
	default:
		snprintf(out, n, "@0x%" PRIx64, v & pmask);
		break;
	}
}

/* Every value as kind k of this size: by its bytes (format_kind_text,
 * the return values) and by its word (format_kind_word, the recipes). */
static void check_kind(enum fmt_kind k, int ptr_size, size_t size,
		       const char *name)
{
	size_t bad = 0;
	for (size_t i = 0; i < n_values; i++) {
		uint64_t v = values[i];
		uint64_t mask = size >= 8 ? UINT64_MAX
					  : (1ull << 8 * size) - 1;
		uint8_t bytes[16] = {0};
		char want[64], by_bytes[FMT_TEXT_MAX + 1],
			by_word[FMT_TEXT_MAX + 1];
		memcpy(bytes, &v, size); /* zero past the value */
		expected(k, ptr_size, v, size, want, sizeof want);
		size_t nb = format_kind_text(k, ptr_size, bytes, size,
					     by_bytes);
		size_t nw = format_kind_word(k, ptr_size, v & mask, size,
					     by_word);
		if (strcmp(want, by_bytes) || nb != strlen(want) ||
		    strcmp(want, by_word) || nw != strlen(want)) {
			if (bad++ < 3)
				tap_diag("%s of 0x%" PRIx64 ": %s, %s, not %s",
					 name, v, by_bytes, by_word, want);
		}
	}
	tap_ok(bad == 0, "%s: %zu values as printf writes them", name,
	       n_values);
}

static void check_u64(void)
{
	size_t bad = 0;
	for (size_t i = 0; i < n_values; i++) {
		char want[32], got[24];
		size_t n = outbuf_format_u64(got, values[i]);
		snprintf(want, sizeof want, "%" PRIu64, values[i]);
		if (n != strlen(want) || memcmp(got, want, n))
			bad++;
	}
	tap_ok(bad == 0, "outbuf_format_u64: %zu values", n_values);
}

/* "%7.3f us" and the same of ms and s, rounded as printf rounds. */
static void check_duration(void)
{
	size_t bad = 0;
	for (size_t i = 0; i < n_values; i++) {
		uint64_t ns = values[i] % 5000000000000ull;
		char want[48], got[48];
		if (ns < 1000000)
			snprintf(want, sizeof want, "%3" PRIu64 ".%03u us",
				 ns / 1000, (unsigned)(ns % 1000));
		else if (ns < 1000000000) {
			uint64_t r = (ns + 500) / 1000;
			snprintf(want, sizeof want, "%3" PRIu64 ".%03u ms",
				 r / 1000, (unsigned)(r % 1000));
		} else {
			uint64_t r = ns / 1000000 + (ns % 1000000 >= 500000);
			snprintf(want, sizeof want, "%3" PRIu64 ".%03u  s",
				 r / 1000, (unsigned)(r % 1000));
		}
		size_t n = outbuf_format_duration(got, ns);
		if (n != strlen(want) || memcmp(got, want, n)) {
			if (bad++ < 3)
				tap_diag("%" PRIu64 " ns: '%.*s', not '%s'", ns,
					 (int)n, got, want);
		}
	}
	tap_ok(bad == 0, "outbuf_format_duration: %zu durations", n_values);
}

int main(void)
{
	static const size_t sizes[] = {1, 2, 4, 8};
	char name[64];

	make_values();
	tap_plan(2 * 4 + 1 + 4 + 2);
	for (size_t i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "signed of %zu bytes", sizes[i]);
		check_kind(FMT_SIGNED, 8, sizes[i], name);
		snprintf(name, sizeof name, "unsigned of %zu bytes",
			 sizes[i]);
		check_kind(FMT_UNSIGNED, 8, sizes[i], name);
	}
	check_kind(FMT_BOOL, 8, 1, "bool");
	check_kind(FMT_POINTER, 8, 8, "pointer of 8 bytes");
	check_kind(FMT_POINTER, 4, 4, "pointer of 4 bytes");
	check_kind(FMT_REFERENCE, 8, 8, "reference of 8 bytes");
	check_kind(FMT_REFERENCE, 4, 4, "reference of 4 bytes");
	check_u64();
	check_duration();
	return tap_done();
}
