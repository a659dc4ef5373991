/* payload.c -- the fixed layouts of ARGS, ARGS_SHORT and RETVAL payloads,
 * read by the offsets ctrace_format.h names (the recorder writes them by
 * the same names).  Everything here checks lengths against the payload: a
 * damaged record is refused, never read past.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

/* Payloads come and go once per call, one or two alive at a time: kept
 * for the next (util.c's spares). */
static struct spares payloads;

uint8_t *payload_alloc(size_t n)
{
	return spare_alloc(&payloads, n);
}

void payload_free(uint8_t *p)
{
	spare_free(&payloads, p);
}

int capture_parse(const uint8_t *p, size_t len, struct capture *c)
{
	const uint8_t *end = p + len;
	/* not the arrays, which are read up to nregs and nblocks only: a
	 * call's arguments are parsed per call */
	c->nregs = 0;
	c->nblocks = 0;
	if (len < CTRACE_ARGS_REGS) {
		c->pc = c->sp = c->cfa = 0;
		return -1;
	}
	c->pc = load_u64(p + CTRACE_ARGS_PC);
	c->sp = load_u64(p + CTRACE_ARGS_SP);
	c->cfa = load_u64(p + CTRACE_ARGS_CFA);
	unsigned n = p[CTRACE_ARGS_NREGS];
	p += CTRACE_ARGS_REGS;
	if (n > CAPTURE_MAX_REGS ||
	    (size_t)(end - p) < n * (size_t)CTRACE_ARGS_REG_BYTES)
		return -1;
	for (unsigned i = 0; i < n; i++, p += CTRACE_ARGS_REG_BYTES) {
		c->regno[i] = p[0];
		c->regval[i] = load_u64(p + 1);
	}
	c->nregs = (int)n;
	while (p < end && c->nblocks < CAPTURE_MAX_BLOCKS) {
		uint64_t addr, blen;
		if (end - p < 9)
			return -1;
		addr = load_u64(p);
		p += 8;
		if (ctrace__uleb_get(&p, end, &blen) < 0 ||
		    blen > (uint64_t)(end - p))
			return -1;
		c->blocks[c->nblocks++] =
			(struct capture_block){addr, (size_t)blen, p};
		p += blen;
	}
	return 0;
}

bool capture_read(const struct capture *c, uint64_t addr, void *out,
		  size_t n)
{
	for (size_t i = 0; i < c->nblocks; i++) {
		const struct capture_block *b = &c->blocks[i];
		if (addr >= b->addr && addr - b->addr <= b->len &&
		    n <= b->len - (addr - b->addr)) {
			memcpy(out, b->bytes + (addr - b->addr), n);
			return true;
		}
	}
	return false;
}

uint8_t *payload_expand_short(const uint8_t *p, size_t len, uint64_t fn,
			      uint64_t hook, bool lib, uint64_t sp,
			      uint64_t addr_mask, struct arg_bases *b,
			      size_t *out_len)
{
	const uint8_t *end = p + len;
	int64_t d = (int64_t)(hook - fn);
	/* Until the record is read whole, the bases cannot be trusted. */
	bool was_bad = b->bad;
	b->bad = true;
	if ((hook == 0 && ctrace__sleb_get(&p, end, &d) < 0) || p == end)
		return NULL;
	/* The count, and bits of the stack pointer in words: the recorder's
	 * and the ENTRY's must agree. */
	unsigned n = *p & CTRACE_ARGS_SHORT_COUNT_MASK;
	unsigned check = *p >> CTRACE_ARGS_SHORT_COUNT_BITS;
	if (lib) {
		if (end - p < 2)
			return NULL;
		n = p[0];
		check = *++p;
	}
	uint64_t words = sp >> (addr_mask == UINT32_MAX ? 2 : 3); /* no div */
	p++;
	if (n > CAPTURE_MAX_REGS || (words & CTRACE_ARGS_SHORT_SP_MASK) != check)
		return NULL;
	/* The full form: its fixed part, CTRACE_ARGS_REG_BYTES per
	 * register, at most CTRACE_LEB128_MAX + 8 - 1 more per block header
	 * (one per byte of the short form at worst). */
	uint8_t *out = payload_alloc(CTRACE_ARGS_REGS +
				     n * (size_t)CTRACE_ARGS_REG_BYTES +
				     (size_t)(end - p) * (CTRACE_LEB128_MAX + 8));
	uint8_t *q = out;
	uint64_t pc = (fn + (uint64_t)d) & addr_mask, cfa = 0;
	memcpy(q + CTRACE_ARGS_PC, &pc, 8);
	memcpy(q + CTRACE_ARGS_SP, &sp, 8);
	memcpy(q + CTRACE_ARGS_CFA, &cfa, 8);
	q[CTRACE_ARGS_NREGS] = (uint8_t)n;
	q += CTRACE_ARGS_REGS;
	uint64_t prev = 0; /* the previous register's value */
	uint8_t regnos[CAPTURE_MAX_REGS];
	uint64_t values[CAPTURE_MAX_REGS];
	for (unsigned i = 0; i < n; i++) {
		if (p == end)
			goto bad;
		uint8_t regno = *p++;
		unsigned dw = regno & CTRACE_ARGS_SHORT_REGNO;
		q[0] = (uint8_t)dw;
		if (ctrace__sleb_get(&p, end, &d) < 0)
			goto bad;
		uint64_t value = (uint64_t)d & addr_mask;
		switch (regno & CTRACE_ARGS_SHORT_REL_BASE) {
		case CTRACE_ARGS_SHORT_REL_BASE:
			if (was_bad)
				goto bad;
			value = (b->value[dw] + (uint64_t)d) & addr_mask;
			break;
		case CTRACE_ARGS_SHORT_REL_SP:
			value = (sp + (uint64_t)d) & addr_mask;
			break;
		case CTRACE_ARGS_SHORT_REL_PREV:
			value = (prev + (uint64_t)d) & addr_mask;
			break;
		}
		prev = value;
		regnos[i] = (uint8_t)dw;
		values[i] = value;
		memcpy(q + 1, &value, 8);
		q += CTRACE_ARGS_REG_BYTES;
	}
	/* ARGS_REGS has registers alone: bytes after them are damage. */
	if (hook != 0 && p != end)
		goto bad;
	while (p < end) {
		uint64_t blen;
		if (ctrace__sleb_get(&p, end, &d) < 0 ||
		    ctrace__uleb_get(&p, end, &blen) < 0 ||
		    blen > (uint64_t)(end - p))
			goto bad;
		uint64_t addr = (sp + (uint64_t)d) & addr_mask;
		memcpy(q, &addr, 8);
		q = ctrace__uleb_put(q + 8, blen);
		memcpy(q, p, (size_t)blen);
		q += blen;
		p += blen;
	}
	/* Read whole: its registers are the next bases, in order (a number
	 * twice in one record: the recorder's base is the later). */
	for (unsigned i = 0; i < n; i++)
		b->value[regnos[i]] = values[i];
	b->bad = was_bad;
	*out_len = (size_t)(q - out);
	return out;
bad:
	payload_free(out);
	return NULL;
}

int retval_expand(const uint8_t *p, size_t len, uint8_t *full,
		  unsigned *have)
{
	static const struct {
		unsigned bit;
		size_t at, n;
		bool halves; /* to n / 2 bytes with CTRACE_RETVAL_NARROW */
	} fields[] = {
		{CTRACE_RETVAL_R0, CTRACE_RETVAL_AT_R0, CTRACE_RETVAL_R_BYTES,
		 true},
		{CTRACE_RETVAL_R1, CTRACE_RETVAL_AT_R1, CTRACE_RETVAL_R_BYTES,
		 true},
		{CTRACE_RETVAL_XMM0, CTRACE_RETVAL_AT_XMM0,
		 CTRACE_RETVAL_XMM_BYTES, true},
		{CTRACE_RETVAL_XMM1, CTRACE_RETVAL_AT_XMM1,
		 CTRACE_RETVAL_XMM_BYTES, true},
		{CTRACE_RETVAL_ST0, CTRACE_RETVAL_AT_ST0,
		 CTRACE_RETVAL_ST0_BYTES, false},
	};
	if (len < 1)
		return -1;
	unsigned mask = p[0] & ~CTRACE_RETVAL_COMPACT;
	bool narrow = mask & CTRACE_RETVAL_NARROW;
	size_t i = 1;
	memset(full, 0, CTRACE_RETVAL_PAYLOAD);
	full[CTRACE_RETVAL_STATE] = 1; /* filled */
	for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
		if (!(mask & fields[k].bit))
			continue;
		/* A narrow field is the register's low half: the rest of it
		 * reads as zero. */
		size_t n = narrow && fields[k].halves ? fields[k].n / 2
						      : fields[k].n;
		if (len - i < n)
			return -1;
		memcpy(full + fields[k].at, p + i, n);
		i += n;
	}
	if (mask & CTRACE_RETVAL_ST0)
		full[CTRACE_RETVAL_AT_ST0_VALID] = 1;
	if (mask & CTRACE_RETVAL_MEM) {
		if (len - i < CTRACE_RETVAL_MEM_HEAD ||
		    p[i + 8] > CTRACE_RETVAL_MEM_MAX ||
		    len - i - CTRACE_RETVAL_MEM_HEAD < p[i + 8])
			return -1;
		memcpy(full + CTRACE_RETVAL_AT_MEM_ADDR, p + i,
		       CTRACE_RETVAL_MEM_HEAD + (size_t)p[i + 8]);
	}
	*have = mask;
	return 0;
}
