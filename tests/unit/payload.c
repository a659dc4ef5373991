/* payload.c -- the ARGS, ARGS_SHORT and compact RETVAL payloads, built
 * byte by byte as ctrace_format.h describes them (with the recorder's
 * LEB128 encoder), decoded by the symbolizer (symbolizer/trace/payload.c). */
#include <stdlib.h>
#include <string.h>

#include "ctrace_format.h"
#include "trace/trace.h"
#include "tap.h"

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

/* ARGS: pc, sp, cfa, two registers, one block of three bytes. */
static size_t full_args(uint8_t *buf)
{
	uint8_t *p = buf;
	p = put64(p + CTRACE_ARGS_PC, 0x401234);
	p = put64(p, 0x7ffc0000);
	p = put64(p, 0x7ffc0040);
	*p++ = 2;
	*p++ = 3;
	p = put64(p, 0x1111);
	*p++ = 12;
	p = put64(p, 0xffffffffffffffffull);
	p = put64(p, 0x7ffc0008);
	p = ctrace__uleb_put(p, 3);
	memcpy(p, "abc", 3);
	return (size_t)(p + 3 - buf);
}

static void test_full_args(void)
{
	uint8_t buf[128];
	size_t len = full_args(buf);
	struct capture c;
	char got[4] = {0};
	tap_ok(capture_parse(buf, len, &c) == 0 && c.pc == 0x401234 &&
		       c.sp == 0x7ffc0000 && c.cfa == 0x7ffc0040,
	       "ARGS: pc, sp and cfa at their offsets");
	tap_ok(c.nregs == 2 && c.regno[0] == 3 && c.regval[0] == 0x1111 &&
		       c.regno[1] == 12 && c.regval[1] == UINT64_MAX,
	       "ARGS: registers, number and value");
	tap_ok(c.nblocks == 1 && capture_read(&c, 0x7ffc0009, got, 2) &&
		       !memcmp(got, "bc", 2),
	       "ARGS: a block's bytes read at their address");
	tap_ok(!capture_read(&c, 0x7ffc000a, got, 2) &&
		       !capture_read(&c, 0x7ffc0007, got, 1),
	       "ARGS: bytes outside the blocks are not captured");
	tap_ok(capture_parse(buf, CTRACE_ARGS_REGS - 1, &c) < 0,
	       "ARGS: shorter than its fixed part is refused");
	tap_ok(capture_parse(buf, CTRACE_ARGS_REGS + 9, &c) < 0,
	       "ARGS: registers cut short are refused");
	tap_ok(capture_parse(buf, len - 1, &c) < 0,
	       "ARGS: a block cut short is refused");
	buf[CTRACE_ARGS_NREGS] = CAPTURE_MAX_REGS + 1;
	tap_ok(capture_parse(buf, len, &c) < 0,
	       "ARGS: too many registers is refused");
}

/* ARGS_SHORT for a function at fn whose ENTRY's stack pointer is sp. */
static size_t short_args(uint8_t *buf, uint64_t sp, unsigned ptr, int both)
{
	uint8_t *p = buf;
	p = ctrace__sleb_put(p, 23); /* pc = fn + 23 */
	*p++ = (uint8_t)(3 | ((sp / ptr) & CTRACE_ARGS_SHORT_SP_MASK)
				     << CTRACE_ARGS_SHORT_COUNT_BITS);
	*p++ = 3;
	p = ctrace__sleb_put(p, -42);
	*p++ = 6 | CTRACE_ARGS_SHORT_REL_SP;
	p = ctrace__sleb_put(p, 0x20);
	*p++ = (uint8_t)(12 | CTRACE_ARGS_SHORT_REL_PREV |
			 (both ? CTRACE_ARGS_SHORT_REL_SP : 0));
	p = ctrace__sleb_put(p, -8);
	p = ctrace__sleb_put(p, -16);
	p = ctrace__uleb_put(p, 2);
	*p++ = 'h';
	*p++ = 'i';
	return (size_t)(p - buf);
}

static void test_short_args(unsigned ptr)
{
	uint64_t mask = ptr == 4 ? UINT32_MAX : UINT64_MAX;
	uint64_t sp = ptr == 4 ? 0xfffffff0 : 0x7ffc1230;
	uint64_t fn = 0x1000;
	uint8_t buf[64];
	size_t len = short_args(buf, sp, ptr, 0), out_len = 0;
	struct arg_bases b;
	memset(&b, 0, sizeof b);
	uint8_t *full = payload_expand_short(buf, len, fn, 0, false, sp, mask, &b,
					     &out_len);
	struct capture c;
	char got[2];
	tap_ok(full != NULL && capture_parse(full, out_len, &c) == 0 &&
		       c.pc == fn + 23 && c.sp == sp && c.cfa == 0,
	       "ARGS_SHORT (%u-byte pointers): pc relative to the function, "
	       "the ENTRY's sp",
	       ptr);
	tap_ok(full != NULL && c.nregs == 3 && c.regno[0] == 3 &&
		       c.regval[0] == ((uint64_t)-42 & mask) &&
		       c.regno[1] == 6 && c.regval[1] == ((sp + 0x20) & mask) &&
		       c.regno[2] == 12 && c.regval[2] == ((sp + 0x18) & mask),
	       "ARGS_SHORT (%u-byte pointers): plain, sp-relative and "
	       "previous-relative registers, wrapping at the pointer size",
	       ptr);
	tap_ok(full != NULL && c.nblocks == 1 &&
		       c.blocks[0].addr == ((sp - 16) & mask) &&
		       capture_read(&c, (sp - 16) & mask, got, 2) &&
		       !memcmp(got, "hi", 2),
	       "ARGS_SHORT (%u-byte pointers): a block at sp plus its offset",
	       ptr);
	payload_free(full);
	tap_ok(payload_expand_short(buf, len, fn, 0, false, sp + ptr, mask, &b,
				   &out_len) == NULL && b.bad,
	       "ARGS_SHORT (%u-byte pointers): another stack pointer than "
	       "the recorder's is refused",
	       ptr);
	/* Both flags (5.3): r12 minus its value in the last record. */
	len = short_args(buf, sp, ptr, 1);
	tap_ok(payload_expand_short(buf, len, fn, 0, false, sp, mask, &b, &out_len) ==
		       NULL,
	       "ARGS_SHORT (%u-byte pointers): a register relative to its "
	       "last value is refused once a record could not be read",
	       ptr);
	memset(&b, 0, sizeof b);
	b.value[12] = (sp + 0x1000) & mask;
	full = payload_expand_short(buf, len, fn, 0, false, sp, mask, &b, &out_len);
	uint8_t *again = NULL;
	if (full != NULL && capture_parse(full, out_len, &c) == 0 &&
	    c.regval[2] == ((sp + 0x1000 - 8) & mask))
		again = payload_expand_short(buf, len, fn, 0, false, sp, mask, &b,
					     &out_len);
	tap_ok(again != NULL && capture_parse(again, out_len, &c) == 0 &&
		       c.regval[2] == ((sp + 0x1000 - 16) & mask) &&
		       b.value[3] == ((uint64_t)-42 & mask) && !b.bad,
	       "ARGS_SHORT (%u-byte pointers): a register relative to its "
	       "value in the previous record, which each record moves on",
	       ptr);
	payload_free(full);
	payload_free(again);
	len = short_args(buf, sp, ptr, 0);
	tap_ok(payload_expand_short(buf, len - 1, fn, 0, false, sp, mask, &b,
				   &out_len) == NULL && b.bad,
	       "ARGS_SHORT (%u-byte pointers): a block cut short is refused",
	       ptr);
	/* ARGS_REGS (5.5): the same registers without the pc, which is
	 * the ENTRY's hook. */
	uint8_t regs[64];
	size_t pc_len = (size_t)(ctrace__sleb_put(regs, 23) - regs);
	size_t regs_len = 0;
	{
		uint8_t with_pc[64];
		size_t n = short_args(with_pc, sp, ptr, 0);
		/* up to the block: count byte and three registers */
		regs_len = n - pc_len - 4;
		memcpy(regs, with_pc + pc_len, regs_len);
	}
	memset(&b, 0, sizeof b);
	full = payload_expand_short(regs, regs_len, fn, fn + 0x40, false, sp, mask,
				    &b, &out_len);
	tap_ok(full != NULL && capture_parse(full, out_len, &c) == 0 &&
		       c.pc == fn + 0x40 && c.sp == sp && c.nregs == 3 &&
		       c.regval[1] == ((sp + 0x20) & mask) && c.nblocks == 0 &&
		       !b.bad,
	       "ARGS_REGS (%u-byte pointers): the ENTRY's hook as the pc, "
	       "the registers as ARGS_SHORT's",
	       ptr);
	payload_free(full);
	/* With ARGS_SHORT's block after the registers: damage. */
	memcpy(regs + regs_len, buf + pc_len + regs_len, 4);
	tap_ok(payload_expand_short(regs, regs_len + 4, fn, fn + 0x40, false, sp,
				    mask, &b, &out_len) == NULL && b.bad,
	       "ARGS_REGS (%u-byte pointers): bytes after the registers are "
	       "refused",
	       ptr);
}

/* ARGS_LIB (6.1): a library call's, fn its GOT slot: the pc, a whole
 * count byte and the stack pointer's bits, then 14 registers (more than
 * ARGS_SHORT's count holds), the last relative to its value in the last
 * record, and a string's block. */
static size_t lib_args(uint8_t *buf, uint64_t sp)
{
	uint8_t *p = buf;
	p = ctrace__sleb_put(p, -0x2000); /* the call site, before the GOT */
	*p++ = 14;
	*p++ = (uint8_t)((sp / 8) & CTRACE_ARGS_SHORT_SP_MASK);
	static const uint8_t regnos[14] = {5,  4,  1,  2,  8,  9,  17,
					   18, 19, 20, 21, 22, 23, 24};
	for (int i = 0; i < 13; i++) {
		*p++ = regnos[i];
		p = ctrace__sleb_put(p, i);
	}
	*p++ = 24 | CTRACE_ARGS_SHORT_REL_BASE;
	p = ctrace__sleb_put(p, 5);
	p = ctrace__sleb_put(p, 0x100); /* the string, above sp */
	p = ctrace__uleb_put(p, 3);
	memcpy(p, "ok", 3);
	return (size_t)(p + 3 - buf);
}

static void test_lib_args(void)
{
	uint64_t sp = 0x7ffc1238, fn = 0x555555558000;
	uint8_t buf[128];
	size_t len = lib_args(buf, sp), out_len = 0;
	struct arg_bases b;
	memset(&b, 0, sizeof b);
	b.value[24] = 1000;
	uint8_t *full = payload_expand_short(buf, len, fn, 0, true, sp,
					     UINT64_MAX, &b, &out_len);
	struct capture c;
	char got[3];
	tap_ok(full != NULL && capture_parse(full, out_len, &c) == 0 &&
		       c.pc == fn - 0x2000 && c.sp == sp && c.nregs == 14 &&
		       c.regno[0] == 5 && c.regval[12] == 12 &&
		       c.regno[13] == 24 && c.regval[13] == 1005 &&
		       b.value[24] == 1005 && c.nblocks == 1 &&
		       capture_read(&c, sp + 0x100, got, 3) &&
		       !memcmp(got, "ok", 3),
	       "ARGS_LIB: 14 registers, one relative to its last value, and "
	       "a string's block at sp plus its offset");
	payload_free(full);
	tap_ok(payload_expand_short(buf, len, fn, 0, true, sp + 8, UINT64_MAX,
				    &b, &out_len) == NULL && b.bad,
	       "ARGS_LIB: another stack pointer than the recorder's is "
	       "refused");
	memset(&b, 0, sizeof b);
	tap_ok(payload_expand_short(buf, 3, fn, 0, true, sp, UINT64_MAX, &b,
				    &out_len) == NULL &&
		       payload_expand_short(buf, len - 1, fn, 0, true, sp,
					    UINT64_MAX, &b, &out_len) == NULL,
	       "ARGS_LIB: cut short in its count or its block is refused");
}

static void test_retval(void)
{
	uint8_t full[CTRACE_RETVAL_PAYLOAD];
	unsigned have = 0;

	/* An int: the low half of rax. */
	uint8_t i[] = {CTRACE_RETVAL_COMPACT | CTRACE_RETVAL_R0 |
			       CTRACE_RETVAL_NARROW,
		       0x2a, 0, 0, 0x80};
	uint32_t r0 = 0;
	tap_ok(retval_expand(i, sizeof i, full, &have) == 0 &&
		       full[CTRACE_RETVAL_STATE] == 1 &&
		       (memcpy(&r0, full + CTRACE_RETVAL_AT_R0, 4), 1) &&
		       r0 == 0x8000002a &&
		       !memcmp(full + CTRACE_RETVAL_AT_R0 + 4, "\0\0\0\0", 4) &&
		       have == (CTRACE_RETVAL_R0 | CTRACE_RETVAL_NARROW),
	       "RETVAL compact: a narrow int is rax's low half, the rest 0");

	/* rax:rdx whole, then st0. */
	uint8_t w[1 + 8 + 8 + 10];
	w[0] = CTRACE_RETVAL_COMPACT | CTRACE_RETVAL_R0 | CTRACE_RETVAL_R1 |
	       CTRACE_RETVAL_ST0;
	for (size_t k = 1; k < sizeof w; k++)
		w[k] = (uint8_t)k;
	tap_ok(retval_expand(w, sizeof w, full, &have) == 0 &&
		       !memcmp(full + CTRACE_RETVAL_AT_R0, w + 1, 8) &&
		       !memcmp(full + CTRACE_RETVAL_AT_R1, w + 9, 8) &&
		       !memcmp(full + CTRACE_RETVAL_AT_ST0, w + 17, 10) &&
		       full[CTRACE_RETVAL_AT_ST0_VALID] == 1,
	       "RETVAL compact: fields in bit order at their full offsets");

	/* A double in xmm0's low half, and xmm1's. */
	uint8_t d[1 + 8 + 8];
	d[0] = CTRACE_RETVAL_COMPACT | CTRACE_RETVAL_XMM0 | CTRACE_RETVAL_XMM1 |
	       CTRACE_RETVAL_NARROW;
	memset(d + 1, 0xaa, 8);
	memset(d + 9, 0xbb, 8);
	tap_ok(retval_expand(d, sizeof d, full, &have) == 0 &&
		       full[CTRACE_RETVAL_AT_XMM0] == 0xaa &&
		       full[CTRACE_RETVAL_AT_XMM0 + 7] == 0xaa &&
		       full[CTRACE_RETVAL_AT_XMM0 + 8] == 0 &&
		       full[CTRACE_RETVAL_AT_XMM1] == 0xbb &&
		       full[CTRACE_RETVAL_AT_ST0_VALID] == 0,
	       "RETVAL compact: narrow xmm0 and xmm1");

	/* A struct returned in memory: r0, then address, length, bytes. */
	uint8_t m[1 + 8 + CTRACE_RETVAL_MEM_HEAD + 12];
	m[0] = CTRACE_RETVAL_COMPACT | CTRACE_RETVAL_R0 | CTRACE_RETVAL_MEM;
	put64(m + 1, 0x7ffd0000);
	put64(m + 9, 0x7ffd0000);
	m[17] = 12;
	memcpy(m + 18, "twelve bytes", 12);
	tap_ok(retval_expand(m, sizeof m, full, &have) == 0 &&
		       full[CTRACE_RETVAL_AT_MEM_LEN] == 12 &&
		       !memcmp(full + CTRACE_RETVAL_AT_MEM, "twelve bytes", 12) &&
		       !memcmp(full + CTRACE_RETVAL_AT_MEM_ADDR,
			       full + CTRACE_RETVAL_AT_R0, 8),
	       "RETVAL compact: memory at r0");
	tap_ok(retval_expand(m, sizeof m - 1, full, &have) < 0,
	       "RETVAL compact: memory cut short is refused");
	m[17] = CTRACE_RETVAL_MEM_MAX + 1;
	tap_ok(retval_expand(m, sizeof m, full, &have) < 0,
	       "RETVAL compact: more memory than CTRACE_RETVAL_MEM_MAX is "
	       "refused");
	tap_ok(retval_expand(w, 10, full, &have) < 0,
	       "RETVAL compact: registers cut short are refused");
	tap_ok(CTRACE_RETVAL_AT_MEM + CTRACE_RETVAL_MEM_MAX ==
			       CTRACE_RETVAL_PAYLOAD &&
		       1 + 8 + 8 + 16 + 16 + 10 + 1 == CTRACE_RETVAL_AT_MEM_ADDR,
	       "RETVAL full form: the fields fill its 133 bytes");
}

int main(void)
{
	tap_plan(8 + 2 * 9 + 3 + 8);
	test_full_args();
	test_short_args(8);
	test_short_args(4);
	test_lib_args();
	test_retval();
	return tap_done();
}
