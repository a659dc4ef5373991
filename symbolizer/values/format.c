/* format.c -- typed bytes as the text a value is shown as: C literals
 * for numbers, characters, enumerators, pointers, strings the recorder
 * copied, structs and arrays member by member.  The text is made once per
 * value here; the tree and JSON writers (values.c) print it as it is.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values/dwinfo.h"
#include "trace/trace.h"
#include "util/util.h"

/* ---------------------------------------------------------------------------
 * Growing strings
 * ------------------------------------------------------------------------ */

void str_add(struct str *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = must_realloc(b->s, b->cap, 1);
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void str_cat(struct str *b, const char *p)
{
	str_add(b, p, strlen(p));
}

void str_printf(struct str *b, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0)
		str_add(b, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

char *str_take(struct str *b)
{
	if (!b->s)
		return must_strndup("", 0);
	return b->s;
}

/* ---------------------------------------------------------------------------
 * Values as text
 * ------------------------------------------------------------------------ */

struct fmt_ctx {
	const struct capture *mem; /* for strings; may be NULL */
	int ptr_size;
};

static uint64_t get_uint(const uint8_t *p, size_t size)
{
	uint64_t v = 0;
	memcpy(&v, p, size > 8 ? 8 : size);
	return v;
}

static int64_t get_int(const uint8_t *p, size_t size)
{
	uint64_t v = get_uint(p, size);
	if (size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~0ull << (8 * size);
	return (int64_t)v;
}

/* One byte of a string or char value, as a C literal (escape.c). */
static void put_char(struct str *b, unsigned c, char quote)
{
	char e[4];
	str_add(b, e, escape_c_byte((unsigned char)c, quote, e));
}

static void u128_text(struct str *b, unsigned __int128 v, bool neg)
{
	char d[48];
	size_t n = sizeof d;
	d[--n] = '\0';
	do {
		d[--n] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	if (neg)
		d[--n] = '-';
	str_cat(b, d + n);
}

static void format_value(struct fmt_ctx *fc, Dwarf_Die *type,
			 const uint8_t *p, size_t size, struct str *b,
			 int depth);

static void format_pointer(struct fmt_ctx *fc, Dwarf_Die *t, uint64_t addr,
			   struct str *b)
{
	Dwarf_Die target;
	bool has_target = type_of(t, &target);
	if (has_target && type_is_char(&target) && addr != 0 && fc->mem) {
		/* The text of a string argument, if the recorder saved it;
		 * an empty block: it tried, and the pointer was bad. */
		bool unreadable = false;
		for (size_t i = 0; i < fc->mem->nblocks; i++) {
			const struct capture_block *blk = &fc->mem->blocks[i];
			if (blk->addr != addr)
				continue;
			if (blk->len == 0) {
				unreadable = true;
				continue;
			}
			size_t n = strnlen((const char *)blk->bytes, blk->len);
			str_cat(b, "\"");
			for (size_t k = 0; k < n; k++)
				put_char(b, blk->bytes[k], '"');
			str_cat(b, n == blk->len ? "\"..." : "\"");
			return;
		}
		if (unreadable) {
			str_printf(b, "0x%" PRIx64 " <unreadable>", addr);
			return;
		}
	}
	if (addr == 0)
		str_cat(b, "NULL");
	else
		str_printf(b, "0x%" PRIx64, addr);
}

static void format_struct(struct fmt_ctx *fc, Dwarf_Die *t, const uint8_t *p,
			  size_t size, struct str *b, int depth)
{
	Dwarf_Die m;
	bool first = true;
	str_cat(b, "{");
	if (dwarf_child(t, &m) == 0) {
		do {
			Dwarf_Attribute a;
			Dwarf_Word off = 0;
			Dwarf_Die mt;
			if (dwarf_tag(&m) != DW_TAG_member ||
			    dwarf_attr(&m, DW_AT_external, &a) || /* static */
			    !type_of(&m, &mt))
				continue;
			if (dwarf_attr(&m, DW_AT_data_member_location, &a) &&
			    dwarf_formudata(&a, &off) != 0)
				continue;
			const char *name = dwarf_diename(&m);
			if (!first)
				str_cat(b, ", ");
			first = false;
			if (name) {
				str_cat(b, name);
				str_cat(b, "=");
			}
			size_t ms = type_size(&mt, fc->ptr_size);
			if (dwarf_attr(&m, DW_AT_bit_size, &a) ||
			    dwarf_attr(&m, DW_AT_data_bit_offset, &a) || ms == 0 ||
			    off + ms > size)
				str_cat(b, "?");
			else
				format_value(fc, &mt, p + off, ms, b, depth + 1);
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	str_cat(b, "}");
}

static void format_value(struct fmt_ctx *fc, Dwarf_Die *type,
			 const uint8_t *p, size_t size, struct str *b,
			 int depth)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	if (depth > 6) {
		str_cat(b, "...");
		return;
	}
	type_strip(type, &t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		if (dwarf_attr(&t, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		switch (enc) {
		case DW_ATE_boolean:
			str_cat(b, get_uint(p, size) ? "true" : "false");
			return;
		case DW_ATE_signed_char:
		case DW_ATE_unsigned_char:
			/* plain char as a character; signed and unsigned
			 * char are small numbers */
			if (size == 1 && dwarf_diename(&t) &&
			    !strcmp(dwarf_diename(&t), "char")) {
				str_cat(b, "'");
				put_char(b, p[0], '\'');
				str_cat(b, "'");
				return;
			}
			/* fall through */
		case DW_ATE_unsigned:
		case DW_ATE_UTF:
			if (enc == DW_ATE_signed_char) {
				str_printf(b, "%" PRId64, get_int(p, size));
			} else if (size == 16) {
				unsigned __int128 v;
				memcpy(&v, p, 16);
				u128_text(b, v, false);
			} else {
				str_printf(b, "%" PRIu64, get_uint(p, size));
			}
			return;
		case DW_ATE_signed:
			if (size == 16) {
				__int128 v;
				memcpy(&v, p, 16);
				u128_text(b, v < 0 ? -(unsigned __int128)v
						   : (unsigned __int128)v,
					  v < 0);
			} else {
				str_printf(b, "%" PRId64, get_int(p, size));
			}
			return;
		case DW_ATE_float:
			if (size == 4) {
				float f;
				memcpy(&f, p, 4);
				str_printf(b, "%.9g", f);
			} else if (size == 8) {
				double d;
				memcpy(&d, p, 8);
				str_printf(b, "%.17g", d);
			} else if (size == 16 || size == 12 || size == 10) {
				long double ld = 0;
				memcpy(&ld, p, 10);
				str_printf(b, "%.21Lg", ld);
			} else {
				str_cat(b, "?");
			}
			return;
		case DW_ATE_complex_float:
			/* the real part, then the imaginary: 1+2i */
			if (size == 8) {
				float f[2];
				memcpy(f, p, 8);
				str_printf(b, "%.9g%+.9gi", f[0], f[1]);
			} else if (size == 16) {
				double d[2];
				memcpy(d, p, 16);
				str_printf(b, "%.17g%+.17gi", d[0], d[1]);
			} else if (size == 24 || size == 32) {
				/* long double's two parts, each in 12 bytes
				 * (i386) or 16 (x86-64) */
				long double ld[2] = {0, 0};
				memcpy(&ld[0], p, 10);
				memcpy(&ld[1], p + size / 2, 10);
				str_printf(b, "%.21Lg%+.21Lgi", ld[0], ld[1]);
			} else {
				str_cat(b, "?");
			}
			return;
		default:
			str_cat(b, "?");
			return;
		}
	case DW_TAG_enumeration_type: {
		int64_t v = get_int(p, size);
		Dwarf_Die e;
		if (dwarf_child(&t, &e) == 0) {
			do {
				Dwarf_Sword sv;
				if (dwarf_tag(&e) == DW_TAG_enumerator &&
				    dwarf_attr(&e, DW_AT_const_value, &a) &&
				    dwarf_formsdata(&a, &sv) == 0 &&
				    (get_uint((const uint8_t *)&sv, size) ==
				     get_uint(p, size))) {
					str_cat(b, dwarf_diename(&e));
					return;
				}
			} while (dwarf_siblingof(&e, &e) == 0);
		}
		str_printf(b, "%" PRId64, v);
		return;
	}
	case DW_TAG_pointer_type:
		format_pointer(fc, &t, get_uint(p, (size_t)fc->ptr_size), b);
		return;
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		/* The address: the object is rarely in the captured stack. */
		str_printf(b, "@0x%" PRIx64, get_uint(p, (size_t)fc->ptr_size));
		return;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		format_struct(fc, &t, p, size, b, depth);
		return;
	case DW_TAG_array_type: {
		Dwarf_Die et;
		size_t es;
		if (!type_of(&t, &et) || (es = type_size(&et, fc->ptr_size)) == 0) {
			str_cat(b, "?");
			return;
		}
		str_cat(b, "{");
		for (size_t i = 0; i + es <= size; i += es) {
			if (i)
				str_cat(b, ", ");
			format_value(fc, &et, p + i, es, b, depth + 1);
		}
		str_cat(b, "}");
		return;
	}
	default:
		str_cat(b, "?");
	}
}

/* The cases of format_value that read nothing but the bytes: a base
 * type of at most 8 bytes that is a number or a bool (not a plain char,
 * nor a float), a pointer whose target is not a character, a
 * reference. */
enum fmt_kind format_kind(Dwarf_Die *type, int ptr_size, size_t size)
{
	Dwarf_Die t, target;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	type_strip(type, &t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		if (size > 8)
			return FMT_OTHER;
		if (dwarf_attr(&t, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		switch (enc) {
		case DW_ATE_boolean:
			return FMT_BOOL;
		case DW_ATE_signed_char:
		case DW_ATE_unsigned_char:
			if (size == 1 && dwarf_diename(&t) &&
			    !strcmp(dwarf_diename(&t), "char"))
				return FMT_OTHER;
			return enc == DW_ATE_signed_char ? FMT_SIGNED
							 : FMT_UNSIGNED;
		case DW_ATE_unsigned:
		case DW_ATE_UTF:
			return FMT_UNSIGNED;
		case DW_ATE_signed:
			return FMT_SIGNED;
		default:
			return FMT_OTHER;
		}
	case DW_TAG_pointer_type:
		if (ptr_size > 8 ||
		    (type_of(&t, &target) && type_is_char(&target)))
			return FMT_OTHER;
		return FMT_POINTER;
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return ptr_size > 8 ? FMT_OTHER : FMT_REFERENCE;
	default:
		return FMT_OTHER;
	}
}

static const char dec_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930"
	"31323334353637383940414243444546474849505152535455565758596061"
	"62636465666768697071727374757677787980818283848586878889909192"
	"93949596979899";

static const uint64_t pow10[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull,
	10000000000000000000ull,
};

#if defined(__SSE2__) && defined(__x86_64__)
/* v's 16 hexadecimal digits, zeros in front, at out: its bytes, first
 * the highest, each spread to two (high nibble, then low), '0' added,
 * and 'a' - '0' - 10 more to the digits above 9, 16 at a time. */
static inline void hex16(uint64_t v, char *out)
{
	__m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
	__m128i f = _mm_set1_epi8(0x0f);
	__m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi64(x, 4), f),
				      _mm_and_si128(x, f));
	__m128i above9 = _mm_cmpgt_epi8(d, _mm_set1_epi8(9));
	d = _mm_add_epi8(d, _mm_set1_epi8('0'));
	d = _mm_add_epi8(d, _mm_and_si128(above9,
					  _mm_set1_epi8('a' - '0' - 10)));
	_mm_storeu_si128((__m128i *)out, d);
}
#else
/* Two hexadecimal digits at a time. */
static const char hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

static inline void hex16(uint64_t v, char *out)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		memcpy(out + 2 * i, hex_pairs + 2 * (v & 255), 2);
}
#endif

/* v's digits in base 10 or 16 and a NUL, at out, after the prefix of
 * plen (at most 3) bytes; their length.  The digits are counted first;
 * decimal ones are written in place from the right, two at a time,
 * hexadecimal ones all at once (hex16): every value of a trace passes
 * here. */
static inline size_t digits(uint64_t v, bool hex, const char *prefix,
			    size_t plen, char *out)
{
	unsigned bits = v ? 64u - (unsigned)__builtin_clzll(v) : 1u;
	size_t n;
	if (hex) {
		n = (bits + 3) / 4;
	} else {
		n = (bits * 1233u) >> 12; /* log10(2) * bits, or one less */
		n += v >= pow10[n] || v == 0;
	}
	for (size_t i = 0; i < plen; i++)
		out[i] = prefix[i];
	if (hex) {
		/* all 16 digits, then the last n of them as one 16-byte
		 * copy (out has the room) */
		char all[32] = {0}; /* nothing undefined copied */
		hex16(v, all);
		memcpy(out + plen, all + 16 - n, 16);
		out[plen + n] = '\0';
		return plen + n;
	}
	char *s = out + plen + n;
	*s = '\0';
	for (; v >= 100; v /= 100) {
		s -= 2;
		memcpy(s, dec_pairs + 2 * (v % 100), 2);
	}
	if (v >= 10) {
		s -= 2;
		memcpy(s, dec_pairs + 2 * v, 2);
	} else {
		*--s = (char)('0' + v);
	}
	return plen + n;
}

/* format_kind_text of a value whose bytes, read as one of its size and
 * one of the pointer size, are u and ptr. */
static inline size_t kind_text(enum fmt_kind k, uint64_t u, uint64_t ptr,
			       size_t size, char *out)
{
	switch (k) {
	case FMT_BOOL:
		if (u) {
			memcpy(out, "true", 5);
			return 4;
		}
		memcpy(out, "false", 6);
		return 5;
	case FMT_SIGNED:
		if (size < 8 && (u >> (8 * size - 1)) & 1)
			u |= ~0ull << (8 * size);
		if ((int64_t)u < 0)
			return digits(-u, false, "-", 1, out);
		return digits(u, false, "", 0, out);
	case FMT_UNSIGNED:
		return digits(u, false, "", 0, out);
	case FMT_POINTER:
		if (ptr == 0) {
			memcpy(out, "NULL", 5);
			return 4;
		}
		return digits(ptr, true, "0x", 2, out);
	case FMT_REFERENCE:
		return digits(ptr, true, "@0x", 3, out);
	default:
		out[0] = '\0';
		return 0;
	}
}

size_t format_kind_text(enum fmt_kind k, int ptr_size, const uint8_t *p,
			size_t size, char *out)
{
	return kind_text(k, get_uint(p, size), get_uint(p, (size_t)ptr_size),
			 size, out);
}

size_t format_kind_word(enum fmt_kind k, int ptr_size, uint64_t w,
			size_t size, char *out)
{
	uint64_t ptr = ptr_size >= 8 ? w : w & ((1ull << 8 * ptr_size) - 1);
	return kind_text(k, w, ptr, size, out);
}

char *format_text(const struct capture *mem, int ptr_size, Dwarf_Die *type,
		  const uint8_t *p, size_t size)
{
	struct fmt_ctx fc = {mem, ptr_size};
	struct str s = {0};
	format_value(&fc, type, p, size, &s, 0);
	return str_take(&s);
}
