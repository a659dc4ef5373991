/* outbuf.c -- buffered output and number formatting for the hot loop.
 *
 * A tree line costs a handful of memcpy calls into a 64 KiB buffer; stdio's
 * locking and format parsing would cost more than everything else per
 * event together.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"

void outbuf_init(struct outbuf *o, int fd, const char *name)
{
	o->fd = fd;
	o->name = name;
	o->error = 0;
	o->len = 0;
	o->mem = NULL;
	o->mem_len = o->mem_cap = 0;
}

void outbuf_init_memory(struct outbuf *o)
{
	outbuf_init(o, -1, "memory");
}

void outbuf_free_memory(struct outbuf *o)
{
	free(o->mem);
	o->mem = NULL;
	o->mem_len = o->mem_cap = 0;
}

static void flush_to_memory(struct outbuf *o)
{
	if (!o->len)
		return;
	if (o->len > o->mem_cap - o->mem_len) {
		size_t cap = o->mem_cap ? o->mem_cap : OUTBUF_SIZE;
		while (o->len > cap - o->mem_len)
			cap *= 2;
		o->mem = must_realloc(o->mem, cap, 1);
		o->mem_cap = cap;
	}
	memcpy(o->mem + o->mem_len, o->buf, o->len);
	o->mem_len += o->len;
	o->len = 0;
}

/* After a write error the output is discarded: main reports the error once
 * at the end, instead of once per buffer. */
void outbuf_flush(struct outbuf *o)
{
	const char *p = o->buf;
	size_t n = o->len;

	if (o->fd < 0) {
		flush_to_memory(o);
		return;
	}
	o->len = 0;
	while (n && !o->error) {
		ssize_t w = write(o->fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			o->error = errno;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
}

void outbuf_write_slow(struct outbuf *o, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		size_t room = OUTBUF_SIZE - o->len;
		size_t k = n < room ? n : room;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
		if (o->len == OUTBUF_SIZE)
			outbuf_flush(o);
	}
}

static const char spaces[256] = {
#define S8 ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '
#define S64 S8, S8, S8, S8, S8, S8, S8, S8
	S64, S64, S64, S64
#undef S64
#undef S8
};

void outbuf_spaces(struct outbuf *o, size_t n)
{
	while (n > sizeof spaces) {
		outbuf_write(o, spaces, sizeof spaces);
		n -= sizeof spaces;
	}
	outbuf_write(o, spaces, n);
}

/* The digits are counted first (from v's highest bit) and written in
 * place from the right, two at a time: no loop that reverses them, and
 * no copy (a copy of digits just stored one pair at a time would wait
 * for those stores, once per number). */
size_t outbuf_format_u64_slow(char *dst, uint64_t v)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930"
		"31323334353637383940414243444546474849505152535455565758596061"
		"62636465666768697071727374757677787980818283848586878889909192"
		"93949596979899";
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull,
		1000000ull, 10000000ull, 100000000ull, 1000000000ull,
		10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull,
		10000000000000000000ull,
	};

	if (v < 100) { /* a depth, a short duration: often */
		if (v < 10) {
			dst[0] = (char)('0' + v);
			return 1;
		}
		memcpy(dst, pairs + 2 * v, 2);
		return 2;
	}
	unsigned bits = 64u - (unsigned)__builtin_clzll(v);
	size_t n = (bits * 1233u) >> 12; /* log10(2) * bits, or one less */
	n += v >= pow10[n];
	char *p = dst + n;
	while (v >= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(p - 2, pairs + 2 * v, 2);
	else
		p[-1] = (char)('0' + v);
	return n;
}

void outbuf_u64(struct outbuf *o, uint64_t v)
{
	char *p = outbuf_reserve(o, 20);
	o->len += outbuf_format_u64(p, v);
}

void outbuf_i64(struct outbuf *o, int64_t v)
{
	if (v < 0) {
		outbuf_putc(o, '-');
		outbuf_u64(o, -(uint64_t)v);
	} else {
		outbuf_u64(o, (uint64_t)v);
	}
}

/* printf("%7.3f %s", whole + frac / 1000.0, unit): the whole part is right
 * aligned in three columns and grows past them when it must. */
static size_t format_fixed3(char *dst, uint64_t whole, unsigned frac,
			    const char *unit)
{
	char digits[20];
	size_t n, len = 0;

	if (whole < 1000) { /* nearly always: three columns, no copy */
		dst[0] = whole >= 100 ? (char)('0' + whole / 100) : ' ';
		dst[1] = whole >= 10 ? (char)('0' + whole / 10 % 10) : ' ';
		dst[2] = (char)('0' + whole % 10);
		len = 3;
	} else {
		n = outbuf_format_u64(digits, whole);
		memcpy(dst, digits, n);
		len = n;
	}
	dst[len++] = '.';
	dst[len++] = (char)('0' + frac / 100);
	dst[len++] = (char)('0' + frac / 10 % 10);
	dst[len++] = (char)('0' + frac % 10);
	dst[len++] = ' ';
	dst[len++] = unit[0];
	dst[len++] = unit[1];
	return len;
}

size_t outbuf_format_duration(char *dst, uint64_t ns)
{
	uint64_t r;

	if (ns < 1000000)
		return format_fixed3(dst, ns / 1000, (unsigned)(ns % 1000), "us");
	if (ns < 1000000000) {
		r = (ns + 500) / 1000; /* us, rounded like %.3f of ms */
		return format_fixed3(dst, r / 1000, (unsigned)(r % 1000), "ms");
	}
	r = ns / 1000000 + (ns % 1000000 >= 500000);
	return format_fixed3(dst, r / 1000, (unsigned)(r % 1000), " s");
}

size_t outbuf_format_duration_color(char *dst, uint64_t ns)
{
	size_t n = outbuf_format_duration(dst, ns), len;
	const char *esc;
	char unit[2];

	if (ns < 1000000)
		return n;
	esc = ns < 1000000000 ? "\033[33m" : "\033[91m";
	len = strlen(esc);
	memcpy(unit, dst + n - 2, 2);
	memcpy(dst + n - 2, esc, len);
	memcpy(dst + n - 2 + len, unit, 2);
	memcpy(dst + n + len, OUTBUF_COLOR_RESET, 4);
	return n + len + 4;
}
