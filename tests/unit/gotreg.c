/* gotreg.c -- i386 code read instruction by instruction for its references
 * to GOT slots (lib/arch/i386/gotreg.h, insn.h): `disp32(%reg)` names a
 * slot only where %reg may hold the GOT's address.  Each row is the body
 * of a function (bytes from objdump) that starts by computing the GOT
 * base, 0x1000, into %ebx (call __x86.get_pc_thunk.bx; add $imm,%ebx),
 * read as plt.c's scan_code reads a function: whether the slot at 0x1094
 * is taken as called, loaded (which wins) or not named, and how the
 * region was read; where a row gives the CFI (the CFA from an offset in
 * the body on), spill slots are told apart.  Then the lengths of some
 * instructions. */
#include <stdint.h>
#include <string.h>

#include "arch/i386/pltarch.h"
#include "tap.h"

#define GOT 0x1000u
#define SLOT 0x1094u
#define AT 0x100 /* the function's start; the thunk is at THUNK */
#define THUNK 0x1f0

enum { NONE = PLT_REF_NONE, LOAD = PLT_REF_LOAD, CALL = PLT_REF_CALL };

static const struct row {
	const char *name;
	uint8_t code[40];
	size_t len;
	uint8_t pre; /* a byte before the base's computation, or 0 */
	int base;    /* the body follows the base's computation */
	int entry;   /* the region starts as a function does */
	int kind, how;
	/* the CFA (esp + offset) from offsets in the body on; none: the
	 * CFI is not known */
	struct {
		uint8_t at, offset;
	} cfa[3];
} rows[] = {
	{"call *slot@GOT(%ebx): called", {0xff, 0x93, 0x94, 0, 0, 0, 0xc3},
	 7, 0, 1, 1, CALL, PLT_SCAN_TRACKED, {{0, 0}}},
	{"mov 0x94(%eax),%eax then call *slot@GOT(%ebx): %eax holds no base",
	 {0x8b, 0x80, 0x94, 0, 0, 0, 0xff, 0x93, 0x94, 0, 0, 0, 0xc3}, 13, 0, 1,
	 1, CALL, PLT_SCAN_TRACKED, {{0, 0}}},
	{"movl $0,0x94(%esi): a structure's field",
	 {0xc7, 0x86, 0x94, 0, 0, 0, 0, 0, 0, 0, 0xc3}, 11, 0, 1, 1, NONE,
	 PLT_SCAN_TRACKED, {{0, 0}}},
	{"mov slot@GOT(%ebx),%eax; mov %eax,(%esp): loaded",
	 {0x8b, 0x83, 0x94, 0, 0, 0, 0x89, 0x04, 0x24, 0xc3}, 10, 0, 1, 1, LOAD,
	 PLT_SCAN_TRACKED, {{0, 0}}},
	{"mov %ebx,%esi; push slot@GOT(%esi): a copy of the base",
	 {0x89, 0xde, 0xff, 0xb6, 0x94, 0, 0, 0, 0xc3}, 9, 0, 1, 1, LOAD,
	 PLT_SCAN_TRACKED, {{0, 0}}},
	{"mov %ebx,0x1c(%esp); mov 0x1c(%esp),%ecx; mov slot@GOT(%ecx),%eax",
	 {0x89, 0x5c, 0x24, 0x1c, 0x8b, 0x4c, 0x24, 0x1c, 0x8b, 0x81, 0x94, 0,
	  0, 0, 0xc3},
	 15, 0, 1, 1, LOAD, PLT_SCAN_TRACKED, {{0, 0}}},
	{"movd %ebx,%xmm1; movd %xmm1,%edx; push slot@GOT(%edx)",
	 {0x66, 0x0f, 0x6e, 0xcb, 0x66, 0x0f, 0x7e, 0xca, 0xff, 0xb2, 0x94, 0,
	  0, 0, 0xc3},
	 15, 0, 1, 1, LOAD, PLT_SCAN_TRACKED, {{0, 0}}},
	{"a loop: push slot@GOT(%esi) before mov %ebx,%esi; jmp back",
	 {0xff, 0xb6, 0x94, 0, 0, 0, 0x89, 0xde, 0xeb, 0xf6}, 10, 0, 1, 1, LOAD,
	 PLT_SCAN_TRACKED, {{0, 0}}},
	{"a loop: mov %esi,%edi; mov %ebx,%esi; push slot@GOT(%edi); jmp back",
	 {0x89, 0xf7, 0x89, 0xde, 0xff, 0xb7, 0x94, 0, 0, 0, 0xeb, 0xf4}, 12,
	 0, 1, 1, LOAD, PLT_SCAN_TRACKED, {{0, 0}}},
	{"after a loop: push %edi; pop %eax; mov 0x94(%eax),%eax, %edi no base",
	 {0x85, 0xc0, 0x75, 0xfc, 0x57, 0x58, 0x8b, 0x80, 0x94, 0, 0, 0, 0xc3},
	 13, 0, 1, 1, NONE, PLT_SCAN_TRACKED, {{0, 0}}},
	{"test %eax,%eax; mov $0x94,%edx: c0 ba is no sar 0x94(%edx)",
	 {0x85, 0xc0, 0xba, 0x94, 0, 0, 0, 0xff, 0xd2, 0xc3}, 10, 0, 1, 1, NONE,
	 PLT_SCAN_TRACKED, {{0, 0}}},
	{"lea 0(%ebx),%edi; call *slot@GOT(%edi)",
	 {0x8d, 0xbb, 0, 0, 0, 0, 0xff, 0x97, 0x94, 0, 0, 0, 0xc3}, 13, 0, 1, 1,
	 CALL, PLT_SCAN_TRACKED, {{0, 0}}},
	{"no base computed (a .cold part?): mov 0x94(%eax),%eax counts",
	 {0x8b, 0x80, 0x94, 0, 0, 0, 0xc3}, 7, 0, 0, 1, LOAD, PLT_SCAN_ALIGNED,
	 {{0, 0}}},
	{"not a function's start: mov 0x94(%eax),%eax counts",
	 {0x8b, 0x80, 0x94, 0, 0, 0, 0xc3}, 7, 0, 1, 0, LOAD, PLT_SCAN_ALIGNED,
	 {{0, 0}}},
	{"no base computed: mov $0x94,%edx still no reference",
	 {0x85, 0xc0, 0xba, 0x94, 0, 0, 0, 0xc3}, 8, 0, 0, 1, NONE,
	 PLT_SCAN_ALIGNED, {{0, 0}}},
	{"spilled to 0xc(%esp), CFI not known: every frame load may reload it",
	 {0x83, 0xec, 0x1c, 0x89, 0x5c, 0x24, 0x0c, 0x8b, 0x44, 0x24, 0x10,
	  0x8b, 0x80, 0x94, 0, 0, 0, 0x83, 0xc4, 0x1c, 0xc3},
	 21, 0, 1, 1, LOAD, PLT_SCAN_TRACKED, {{0, 0}}},
	{"spilled to 0xc(%esp); mov 0x10(%esp),%eax, another slot (CFI)",
	 {0x83, 0xec, 0x1c, 0x89, 0x5c, 0x24, 0x0c, 0x8b, 0x44, 0x24, 0x10,
	  0x8b, 0x80, 0x94, 0, 0, 0, 0x83, 0xc4, 0x1c, 0xc3},
	 21, 0, 1, 1, NONE, PLT_SCAN_TRACKED, {{0, 4}, {3, 0x20}, {20, 4}}},
	{"spilled to 0xc(%esp); push $0; mov 0x10(%esp),%eax, the same slot",
	 {0x83, 0xec, 0x1c, 0x89, 0x5c, 0x24, 0x0c, 0x6a, 0x00, 0x8b, 0x44,
	  0x24, 0x10, 0x8b, 0x80, 0x94, 0, 0, 0, 0xc3},
	 20, 0, 1, 1, LOAD, PLT_SCAN_TRACKED, {{0, 4}, {3, 0x20}, {9, 0x24}}},
	{"mov %ebx,%eax; mov 0x4(%esp),%eax: overwritten, no base",
	 {0x89, 0xd8, 0x8b, 0x44, 0x24, 0x04, 0x8b, 0x80, 0x94, 0, 0, 0, 0xc3},
	 13, 0, 1, 1, NONE, PLT_SCAN_TRACKED, {{0, 0}}},
	{"mov %ebx,%ecx; call f; mov slot@GOT(%ecx),%eax: a call keeps it",
	 {0x89, 0xd9, 0xe8, 0xce, 0, 0, 0, 0x8b, 0x81, 0x94, 0, 0, 0, 0xc3},
	 14, 0, 1, 1, LOAD, PLT_SCAN_TRACKED, {{0, 0}}},
	{"je 1f; mov %ebx,%esi; 1: push slot@GOT(%esi): a join",
	 {0x85, 0xc0, 0x74, 0x02, 0x89, 0xde, 0xff, 0xb6, 0x94, 0, 0, 0, 0xc3},
	 13, 0, 1, 1, LOAD, PLT_SCAN_TRACKED, {{0, 0}}},
	{"push %ebx before the base: the prologue saves the caller's %ebx",
	 {0x85, 0xc0, 0x75, 0xfc, 0x8b, 0x04, 0x24, 0x8b, 0x80, 0x94, 0, 0, 0,
	  0x5b, 0xc3},
	 15, 0x53, 1, 1, NONE, PLT_SCAN_TRACKED, {{0, 0}}},
	{"padding after the function", {0x8b, 0x80, 0x94, 0, 0, 0, 0xc3, 0},
	 8, 0, 1, 1, NONE, PLT_SCAN_TRACKED, {{0, 0}}},
	{"code that does not decode (16-bit addressing): bytes",
	 {0x67, 0x8b, 0x07, 0xc3}, 4, 0, 1, 1, NONE, PLT_SCAN_BYTES, {{0, 0}}},
};

struct seen {
	int called, loaded;
};

static void note(void *ctx, uintptr_t t, int kind)
{
	struct seen *s = ctx;
	if (t != SLOT)
		return;
	s->called |= kind == PLT_REF_CALL;
	s->loaded |= kind == PLT_REF_LOAD;
}

/* The row being read, and where its body starts. */
static const struct row *row;
static size_t body;

static int cfa_of(uintptr_t fn, uintptr_t pc, int32_t *offset)
{
	(void)fn;
	if (row->cfa[0].offset == 0)
		return -1;
	*offset = 4;
	for (size_t k = 0; k < 3 && row->cfa[k].offset != 0; k++)
		if (pc >= body + row->cfa[k].at)
			*offset = row->cfa[k].offset;
	return 4; /* esp */
}

static int entry_yes(uintptr_t pc)
{
	return pc == AT;
}

static int entry_no(uintptr_t pc)
{
	(void)pc;
	return 0;
}

static const struct len_row {
	const char *name;
	uint8_t code[16];
	size_t len;
} lens[] = {
	{"movl $0x7fffffff,0xc(%esp)",
	 {0xc7, 0x44, 0x24, 0x0c, 0xff, 0xff, 0xff, 0x7f}, 8},
	{"movzbl %gs:0x802(%ebp),%edi",
	 {0x65, 0x0f, 0xb6, 0xbd, 0x02, 0x08, 0, 0}, 8},
	{"testw $0x100,(%eax)", {0x66, 0xf7, 0x00, 0x00, 0x01}, 5},
	{"test $0x1,%al (f6 /0)", {0xf6, 0xc0, 0x01}, 3},
	{"pshufd $0,%xmm0,%xmm1", {0x66, 0x0f, 0x70, 0xc8, 0x00}, 5},
	{"vpinsrd $1,%eax,%xmm0,%xmm0 (VEX c4)",
	 {0xc4, 0xe3, 0x79, 0x22, 0xc0, 0x01}, 6},
	{"vzeroupper", {0xc5, 0xf8, 0x77}, 3},
	{"fldl 0x8(%esp)", {0xdd, 0x44, 0x24, 0x08}, 4},
	{"enter $0x10,$0", {0xc8, 0x10, 0x00, 0x00}, 4},
	{"mov 0x804a010,%eax (moffs)", {0xa1, 0x10, 0xa0, 0x04, 0x08}, 5},
	{"jne rel32", {0x0f, 0x85, 0x10, 0, 0, 0}, 6},
	{"pextrd $1,%xmm0,%eax (0f 3a)", {0x66, 0x0f, 0x3a, 0x16, 0xc0, 1}, 6},
	{"crc32l (%eax),%ecx (0f 38)", {0xf2, 0x0f, 0x38, 0xf1, 0x08}, 5},
	{"notrack jmp *%eax", {0x3e, 0xff, 0xe0}, 3},
};

int main(void)
{
	size_t n = sizeof rows / sizeof rows[0];
	size_t nl = sizeof lens / sizeof lens[0];
	tap_plan((int)(n + nl));
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		uint8_t code[0x200];
		memset(code, 0xcc, sizeof code);
		size_t at = AT;
		if (r->pre)
			code[at++] = r->pre;
		if (r->base) {
			/* call THUNK; add $GOT-.,%ebx */
			int32_t rel = THUNK - (int32_t)(at + 5);
			int32_t imm = (int32_t)GOT - (int32_t)(at + 5);
			code[at] = 0xe8;
			memcpy(code + at + 1, &rel, 4);
			code[at + 5] = 0x81;
			code[at + 6] = 0xc3;
			memcpy(code + at + 7, &imm, 4);
			at += 11;
		}
		memcpy(code + at, r->code, r->len);
		row = r;
		body = at;
		memcpy(code + THUNK, "\x8b\x1c\x24\xc3", 4);
		uintptr_t bases[1] = {GOT};
		uint8_t marks[sizeof code / 8];
		struct gotreg_block blocks[16];
		struct seen s = {0, 0};
		struct plt_gotreg g = {code,
				       sizeof code,
				       0,
				       bases,
				       1,
				       SLOT,
				       SLOT + 4,
				       note,
				       r->entry ? entry_yes : entry_no,
				       cfa_of,
				       marks,
				       blocks,
				       16,
				       &s};
		int how = plt_arch_region(&g, AT, at + r->len);
		int kind = s.loaded ? LOAD : s.called ? CALL : NONE;
		if (!tap_ok(kind == r->kind && how == r->how, "%s", r->name))
			tap_diag("called %d, loaded %d, read %d", s.called,
				 s.loaded, how);
	}
	for (size_t i = 0; i < nl; i++) {
		struct x86_insn in;
		int ok = x86_decode(lens[i].code, sizeof lens[i].code, &in, 0);
		if (!tap_ok(ok == 0 && in.len == lens[i].len, "%s: %zu bytes",
			    lens[i].name, lens[i].len))
			tap_diag("decoded %d, %d bytes", ok, in.len);
	}
	return tap_failed != 0;
}
