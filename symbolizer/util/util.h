/* util.h -- what every stage of the symbolizer uses: allocation that
 * stops the program when memory runs out, messages, unaligned loads, the
 * buffered output, the escaping of names for each output format and the
 * output file written whole or not at all.
 *
 * Nothing here knows a trace, a call or a format: util/ depends on no
 * other folder of the symbolizer, and every other folder may use it.
 */
#ifndef CTRACE_SYMBOLIZER_UTIL_H
#define CTRACE_SYMBOLIZER_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/pool.h"

#define PROGRAM_NAME "ctrace-symbolize"

/* ---------------------------------------------------------------------------
 * Small helpers (util.c)
 * ------------------------------------------------------------------------ */

void *must_malloc(size_t size);
void *must_calloc(size_t n, size_t size);
void *must_realloc(void *p, size_t n, size_t size); /* n * size, checked */
char *must_strndup(const char *s, size_t n);
/* pool_add and pool_ids_reserve (pool.h) that stop the program when they
 * cannot. */
void *must_pool_add(struct pool *p);
void must_reserve_grow(struct id_table *t, size_t n, id_hash_fn hash,
		       const void *ctx);
/* Inline: it runs at every lookup that may insert. */
static inline void must_reserve(struct id_table *t, size_t n, id_hash_fn hash,
				const void *ctx)
{
	if (pool_ids_full(t, n))
		must_reserve_grow(t, n, hash, ctx);
}

/* Blocks that come and go once per call, a few alive at a time (an
 * event's payload, a call's values): one of at most SPARE_SMALL bytes
 * is kept, when freed, for the next (at most SPARES_MAX of them), which
 * costs a tenth of malloc and free.  spare_free ends spare_alloc's
 * blocks only, in the same struct spares. */
enum { SPARE_SMALL = 512, SPARES_MAX = 16 };
struct spares {
	void *block[SPARES_MAX];
	size_t n;
};
void *spare_alloc(struct spares *s, size_t n);
void spare_free(struct spares *s, void *p);

/* Prints "ctrace-symbolize: MSG" (with ": strerror" when errnum != 0). */
void warn_msg(int errnum, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Unaligned native-order loads. */
static inline uint64_t load_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline uint32_t load_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* ---------------------------------------------------------------------------
 * Buffered output (outbuf.c)
 * ------------------------------------------------------------------------ */

#define OUTBUF_SIZE (64 * 1024)

struct outbuf {
	int fd;           /* -1: flushes go to mem instead */
	const char *name; /* for error messages */
	int error;        /* errno of the first failed write, or 0 */
	size_t len;
	char *mem;
	size_t mem_len, mem_cap;
	char buf[OUTBUF_SIZE];
};

void outbuf_init(struct outbuf *o, int fd, const char *name);
/* An outbuf that collects everything in o->mem (after a flush). */
void outbuf_init_memory(struct outbuf *o);
void outbuf_free_memory(struct outbuf *o);
void outbuf_flush(struct outbuf *o);
void outbuf_write_slow(struct outbuf *o, const void *p, size_t n);

static inline void outbuf_write(struct outbuf *o, const void *p, size_t n)
{
	if (n > OUTBUF_SIZE - o->len) {
		outbuf_write_slow(o, p, n);
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static inline void outbuf_str(struct outbuf *o, const char *s)
{
	outbuf_write(o, s, strlen(s));
}

static inline void outbuf_putc(struct outbuf *o, char c)
{
	if (o->len == OUTBUF_SIZE)
		outbuf_flush(o);
	o->buf[o->len++] = c;
}

/* Room for n (<= OUTBUF_SIZE) bytes at the end of the buffer. */
static inline char *outbuf_reserve(struct outbuf *o, size_t n)
{
	if (n > OUTBUF_SIZE - o->len)
		outbuf_flush(o);
	return o->buf + o->len;
}

void outbuf_spaces(struct outbuf *o, size_t n);

/* Names and messages from the traced program, escaped so that the output
 * stays valid for its format whatever bytes they hold (escape.c). */
enum escape_mode {
	ESCAPE_TEXT,   /* tree, report: \n \t \r \0 \\ \xHH */
	ESCAPE_FOLDED, /* text, and ';' */
	ESCAPE_DOT,    /* text, inside a quoted DOT string */
	ESCAPE_XML,    /* text, with XML's entities */
	ESCAPE_JSON,   /* inside a JSON string; not UTF-8 becomes U+FFFD */
	ESCAPE_UTF8,   /* bytes as they are, but not UTF-8 becomes U+FFFD */
};
void outbuf_escaped(struct outbuf *o, const char *s, size_t n,
		    enum escape_mode mode);
/* True if outbuf_escaped would change s. */
bool escape_needed(const char *s, size_t n, enum escape_mode mode);
/* A JSON string with its quotes. */
void outbuf_json_str(struct outbuf *o, const char *s, size_t n);
/* Byte c inside a C literal quoted by quote (0: none) at out: itself if
 * printable ASCII, else \n \t \r \0 \\ \' \" or \xHH.  Returns the
 * length (1 to 4). */
size_t escape_c_byte(unsigned char c, char quote, char out[4]);
void outbuf_u64(struct outbuf *o, uint64_t v);
void outbuf_i64(struct outbuf *o, int64_t v);

/* Decimal digits of v at dst (at least 20 bytes, which may be written
 * past the digits); returns their count. */
size_t outbuf_format_u64_slow(char *dst, uint64_t v);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The 8 decimal digits of v < 10^8, zeros in front, as the values 0-9
 * of a word's bytes, the first digit in the lowest: the halves, quarters
 * and eighths of the digits split side by side in the word's lanes by
 * multiplications (x * 10486 >> 20 is x / 100 below 10^4, x * 103 >> 10
 * is x / 10 below 100), no loop, no division. */
static inline uint64_t outbuf_digits8(uint64_t v)
{
	uint64_t hi = v / 10000, x = hi | (v - hi * 10000) << 32, q;
	q = ((x * 10486) >> 20) & 0x0000007f0000007full;
	x = q | (x - q * 100) << 16;
	q = ((x * 103) >> 10) & 0x000f000f000f000full;
	return q | (x - q * 10) << 8;
}

/* The digits of 8 digits d (outbuf_digits8 of a number not 0) without
 * the zeros in front, written at dst as 8 bytes; their count. */
static inline size_t outbuf_put_digits8(char *dst, uint64_t d)
{
	unsigned z = (unsigned)__builtin_ctzll(d) & ~7u; /* zeros, in bits */
	uint64_t w = (d + 0x3030303030303030ull) >> z;
	memcpy(dst, &w, 8);
	return 8 - z / 8;
}

static inline size_t outbuf_format_u64(char *dst, uint64_t v)
{
	if (v < 10) { /* a depth, a flag: often */
		dst[0] = (char)('0' + v);
		return 1;
	}
	if (v < 100000000)
		return outbuf_put_digits8(dst, outbuf_digits8(v));
	if (v < 10000000000000000ull) { /* a timestamp in ns: 8 more */
		uint64_t hi = v / 100000000, lo = outbuf_digits8(
						     v - hi * 100000000);
		size_t n = outbuf_put_digits8(dst, outbuf_digits8(hi));
		lo += 0x3030303030303030ull;
		memcpy(dst + n, &lo, 8);
		return n + 8;
	}
	return outbuf_format_u64_slow(dst, v);
}
#else
static inline size_t outbuf_format_u64(char *dst, uint64_t v)
{
	return outbuf_format_u64_slow(dst, v);
}
#endif

/* The tree's duration column: exactly 10 characters for anything below
 * 1000 s ("  0.412 us", " 12.000 ms", "  1.500  s"). Returns the length. */
size_t outbuf_format_duration(char *dst, uint64_t ns);
/* The same with its unit coloured as uftrace colours it on a terminal:
 * ms in yellow, s in red (the escape sequences add up to 13 bytes). */
size_t outbuf_format_duration_color(char *dst, uint64_t ns);
/* The escape sequence that ends a colour. */
#define OUTBUF_COLOR_RESET "\033[0m"

/* ---------------------------------------------------------------------------
 * The file named by -o (outfile.c)
 * ------------------------------------------------------------------------ */

struct outfile {
	const char *path;
	char *tmp; /* written here, renamed to path at the end; or NULL */
	int fd;
};

/* Opens path for writing, refusing one of the n inputs (same device and
 * inode).  Returns the descriptor, or -1 after a message. */
int outfile_open(struct outfile *f, const char *path, char *const *inputs,
		 size_t n_inputs);
/* Closes it; a complete output takes path's place, an incomplete one is
 * removed.  Returns 0, or -1 after a message. */
int outfile_close(struct outfile *f, bool complete);

#endif /* CTRACE_SYMBOLIZER_UTIL_H */
