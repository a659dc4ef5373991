/* payload.h -- the ARGS, ARGS_SHORT and RETVAL payloads decoded into plain
 * data (payload.c): no DWARF, no resolver, only ctrace_format.h's layout.
 * values.c turns the result into values with the program's DWARF.
 */
#ifndef CTRACE_SYMBOLIZER_PAYLOAD_H
#define CTRACE_SYMBOLIZER_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An ARGS payload, decoded.  Blocks point into the payload. */
#define CAPTURE_MAX_REGS 16
#define CAPTURE_MAX_BLOCKS 32
struct capture_block {
	uint64_t addr;
	size_t len;
	const uint8_t *bytes;
};

struct capture {
	uint64_t pc, sp, cfa;
	int nregs;
	uint8_t regno[CAPTURE_MAX_REGS];
	uint64_t regval[CAPTURE_MAX_REGS];
	size_t nblocks;
	struct capture_block blocks[CAPTURE_MAX_BLOCKS];
};

/* Decodes an ARGS payload; 0, or -1 if it is malformed. */
int capture_parse(const uint8_t *p, size_t len, struct capture *c);
/* Copies n captured bytes at addr; false if any of them was not saved. */
bool capture_read(const struct capture *c, uint64_t addr, void *out,
		  size_t n);

/* An ARGS_SHORT payload in the ARGS layout (malloc'd; NULL if it is
 * malformed), given its ENTRY's function and stack pointer; addr_mask
 * makes sums wrap at the trace's pointer size. */
uint8_t *args_expand_short(const uint8_t *p, size_t len, uint64_t fn,
			   uint64_t sp, uint64_t addr_mask, size_t *out_len);

/* The compact RETVAL payload p (its state byte has CTRACE_RETVAL_COMPACT)
 * spread into the full layout full (CTRACE_RETVAL_PAYLOAD bytes); *have:
 * the CTRACE_RETVAL_* fields it holds.  0, or -1 if it is malformed. */
int retval_expand(const uint8_t *p, size_t len, uint8_t *full,
		  unsigned *have);

#endif /* CTRACE_SYMBOLIZER_PAYLOAD_H */
