/* leb128.h -- LEB128 numbers, as the trace format and DWARF write them.
 *
 * One encoder and one decoder for the recorder (which writes the trace and
 * reads .eh_frame), the symbolizer and the test tools.  Header-only and
 * always inlined: the recorder's hot path writes a time delta and a stack
 * delta per event with them, at no call's cost.  libc-free.
 */
#ifndef CTRACE_COMMON_LEB128_H
#define CTRACE_COMMON_LEB128_H

#include <stddef.h>
#include <stdint.h>

/* The longest LEB128 encoding of a 64-bit number. */
#define CTRACE_LEB128_MAX 10

#define CTRACE__LEB_INLINE static inline __attribute__((always_inline, unused))

/* Writes v at p as unsigned LEB128; returns the byte after it.  As for
 * the signed encoders below, one body serves two types: any 64-bit value,
 * and a pointer-sized one for the recorder's sizes on i386. */
#define CTRACE__DEFINE_ULEB_PUT(name, type)                                  \
	CTRACE__LEB_INLINE uint8_t *name(uint8_t *p, type v)                 \
	{                                                                    \
		while (v >= 0x80) {                                          \
			*p++ = (uint8_t)(v | 0x80);                          \
			v >>= 7;                                             \
		}                                                            \
		*p++ = (uint8_t)v;                                           \
		return p;                                                    \
	}
CTRACE__DEFINE_ULEB_PUT(ctrace__uleb_put, uint64_t)
CTRACE__DEFINE_ULEB_PUT(ctrace__uleb_put_word, uintptr_t)

/* Writes v at p as signed LEB128; returns the byte after it.  Defined for
 * two types from one body: ctrace__sleb_put for any 64-bit value, and
 * ctrace__sleb_put_word for a pointer-sized one, which the recorder's
 * hot path uses: on i386, 64-bit shifts would cost every event. */
#define CTRACE__DEFINE_SLEB_PUT(name, type)                                  \
	CTRACE__LEB_INLINE uint8_t *name(uint8_t *p, type v)                 \
	{                                                                    \
		while (v < -64 || v > 63) {                                  \
			*p++ = (uint8_t)(v | 0x80);                          \
			v >>= 7; /* arithmetic shift: gcc and clang */       \
		}                                                            \
		*p++ = (uint8_t)(v & 0x7f);                                  \
		return p;                                                    \
	}
CTRACE__DEFINE_SLEB_PUT(ctrace__sleb_put, int64_t)
CTRACE__DEFINE_SLEB_PUT(ctrace__sleb_put_word, intptr_t)

/* Writes u at p as unsigned LEB128, then w as signed LEB128 (an ENTRY's
 * time delta and stack delta in words), and returns the byte after them:
 * the same bytes as ctrace__uleb_put and ctrace__sleb_put_word one after
 * the other.  The recorder's hot path: when both take one byte (u below
 * 128, w from -64 to 63) one test finds it and one store writes them. */
CTRACE__LEB_INLINE uint8_t *ctrace__uleb_sleb_put(uint8_t *p, uint64_t u,
						  intptr_t w)
{
	if (__builtin_expect((u | (uint64_t)(w + 64)) < 128, 1)) {
		uint16_t v = (uint16_t)(u | ((uintptr_t)w & 0x7f) << 8);
		/* the bytes in order, whatever the host's byte order */
		uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
		__builtin_memcpy(p, b, 2);
		return p + 2;
	}
	return ctrace__sleb_put_word(ctrace__uleb_put(p, u), w);
}

/* Writes v (below 16384) at p as a uleb of exactly two bytes: the length
 * of a record reserved before its payload is known, or written after it
 * (a one-byte v gets a padding group, which every decoder accepts). */
CTRACE__LEB_INLINE void ctrace__uleb_put2(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)(v | 0x80);
	p[1] = (uint8_t)(v >> 7);
}

/* The bytes ctrace__uleb_put writes for v. */
CTRACE__LEB_INLINE size_t ctrace__uleb_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Reads the 7-bit groups of a LEB128 number from [*p, end) into *out;
 * *bits: how many bits the encoding held.  Returns 0 and advances *p, or -1
 * (and leaves *p) when the number runs past end or is longer than
 * CTRACE_LEB128_MAX bytes.  Bits beyond the 64th are dropped. */
CTRACE__LEB_INLINE int ctrace__leb_get(const uint8_t **p, const uint8_t *end,
				       uint64_t *out, unsigned *bits)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	unsigned shift = 0;

	while (q < end && shift < 7 * CTRACE_LEB128_MAX) {
		uint8_t b = *q++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*p = q;
			*out = v;
			*bits = shift;
			return 0;
		}
	}
	return -1;
}

/* An unsigned LEB128 number, as ctrace__leb_get reads it. */
CTRACE__LEB_INLINE int ctrace__uleb_get(const uint8_t **p, const uint8_t *end,
					uint64_t *out)
{
	unsigned bits;
	return ctrace__leb_get(p, end, out, &bits);
}

/* A signed LEB128 number: the last group's top bit is the sign. */
CTRACE__LEB_INLINE int ctrace__sleb_get(const uint8_t **p, const uint8_t *end,
					int64_t *out)
{
	uint64_t v;
	unsigned bits;
	if (ctrace__leb_get(p, end, &v, &bits) < 0)
		return -1;
	if (bits < 64 && (v >> (bits - 1)) & 1)
		v |= ~(uint64_t)0 << bits;
	*out = (int64_t)v;
	return 0;
}

#endif /* CTRACE_COMMON_LEB128_H */
