/* pltref64.c -- which bytes of x86-64 code plt.c takes for a reference to
 * a GOT slot, and for a call through it (lib/arch/x86_64/pltarch.h).  A
 * GLOB_DAT slot is redirected only when every reference to it is a call:
 * each row is an instruction as gcc, clang or the linkers lay it out
 * (bytes from objdump), scanned at its displacement as plt.c's
 * only_called scans, the displacement made to name the slot at 0x1008:
 * whether the slot is taken as called, loaded (which wins), or not
 * named.  Then functions read instruction by instruction
 * (plt_arch_region, arch/x86/insn.h), as plt.c reads each FDE's range:
 * bytes the scan by bytes takes for a load (a stray) are none there; and
 * the lengths of some instructions in long mode. */
#include <stdint.h>
#include <string.h>

#include "arch/x86_64/pltarch.h"
#include "tap.h"

#define SLOT 0x1008u

static const struct row {
	const char *name;
	uint8_t code[16];
	size_t len, at; /* the displacement's offset */
	int kind;
} rows[] = {
	{"call *slot(%rip)", {0xff, 0x15}, 6, 2, PLT_REF_CALL},
	{"jmp *slot(%rip) (a tail call)", {0xff, 0x25}, 6, 2, PLT_REF_CALL},
	{"mov slot(%rip),%rax; call *%rax (clang -O0 -fno-plt)",
	 {0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xff, 0xd0, 0x90}, 10, 3,
	 PLT_REF_CALL},
	{"mov slot(%rip),%r11; call *%r11",
	 {0x4c, 0x8b, 0x1d, 0, 0, 0, 0, 0x41, 0xff, 0xd3}, 10, 3,
	 PLT_REF_CALL},
	{"mov slot(%rip),%rax; mov %rax,(%rsp)",
	 {0x48, 0x8b, 0x05, 0, 0, 0, 0, 0x48, 0x89, 0x04, 0x24}, 11, 3,
	 PLT_REF_LOAD},
	{"cmp slot(%rip),%rax", {0x48, 0x3b, 0x05}, 7, 3, PLT_REF_LOAD},
	{"push slot(%rip)", {0xff, 0x35}, 6, 2, PLT_REF_LOAD},
	{"movq $0,slot(%rip)", {0x48, 0xc7, 0x05, 0, 0, 0, 0, 0, 0, 0, 0},
	 11, 3, PLT_REF_LOAD},
	{"movq slot(%rip),%xmm0", {0xf3, 0x0f, 0x7e, 0x05}, 8, 4,
	 PLT_REF_LOAD},
	{"vmovq slot(%rip),%xmm0 (VEX)", {0xc5, 0xfa, 0x7e, 0x05}, 8, 4,
	 PLT_REF_LOAD},
	{"pshufb slot(%rip),%xmm0 (0f 38)", {0x66, 0x0f, 0x38, 0x00, 0x05},
	 9, 5, PLT_REF_LOAD},
	{"lea 0(%rbp,%rax),%rdi; mov $imm32,%ecx: 05 is a SIB byte",
	 {0x48, 0x8d, 0x7c, 0x05, 0, 0, 0, 0, 0}, 9, 4, PLT_REF_NONE},
	{"jl .+5, then four bytes: 05 is a rel8", {0x7c, 0x05}, 6, 2,
	 PLT_REF_NONE},
	{"mov 0x8(%rax),%eax: disp8", {0x8b, 0x40, 0x08, 0, 0, 0}, 6, 2,
	 PLT_REF_NONE},
};

/* A function: its displacement at `at` made to name the slot from the
 * end of its instruction (`end`; at + 4 for a stray, as the scan by
 * bytes reads it). */
static const struct fn {
	const char *name;
	uint8_t code[24];
	size_t len, at, end;
	int kind, how;
	int stray; /* the scan by bytes takes the bytes at `at` for a load */
} fns[] = {
	{"call *slot(%rip); ret", {0xff, 0x15, 0, 0, 0, 0, 0xc3}, 7, 2, 6,
	 PLT_REF_CALL, PLT_SCAN_ALIGNED, 0},
	{"mov slot(%rip),%rax; call *%rax; ret",
	 {0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xff, 0xd0, 0xc3}, 10, 3, 7,
	 PLT_REF_CALL, PLT_SCAN_ALIGNED, 0},
	{"mov slot(%rip),%r11; jmp *%r11",
	 {0x4c, 0x8b, 0x1d, 0, 0, 0, 0, 0x41, 0xff, 0xe3}, 10, 3, 7,
	 PLT_REF_CALL, PLT_SCAN_ALIGNED, 0},
	{"mov slot(%rip),%rax; call *%rcx: loaded",
	 {0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xff, 0xd1, 0xc3}, 10, 3, 7,
	 PLT_REF_LOAD, PLT_SCAN_ALIGNED, 0},
	{"movq $0,slot(%rip): named from after the immediate",
	 {0x48, 0xc7, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0xc3}, 12, 3, 11,
	 PLT_REF_LOAD, PLT_SCAN_ALIGNED, 0},
	{"vmovups slot(%rip),%zmm0 (EVEX)",
	 {0x62, 0xf1, 0x7c, 0x48, 0x10, 0x05, 0, 0, 0, 0, 0xc3}, 11, 6, 10,
	 PLT_REF_LOAD, PLT_SCAN_ALIGNED, 0},
	{"mov 0x18(%rsp),%eax; and $0xf000,%eax; cmp $imm,%eax: no load",
	 {0x8b, 0x44, 0x24, 0x18, 0x25, 0x00, 0xf0, 0x00, 0x00, 0x3d, 0, 0, 0,
	  0, 0xc3},
	 15, 10, 14, PLT_REF_NONE, PLT_SCAN_ALIGNED, 1},
	{"movabs $imm64,%rax holding `ff 15 disp32`: no call",
	 {0x48, 0xb8, 0xff, 0x15, 0, 0, 0, 0, 0x90, 0x90, 0xc3}, 11, 4, 8,
	 PLT_REF_NONE, PLT_SCAN_ALIGNED, 0},
	{"push %es (none in long mode): read by bytes",
	 {0x06, 0xff, 0x15, 0, 0, 0, 0, 0xc3}, 8, 3, 7, PLT_REF_NONE,
	 PLT_SCAN_BYTES, 0},
	{"extrq $8,$4,%xmm0 (SSE4a, two immediates): read by bytes",
	 {0x66, 0x0f, 0x78, 0xc0, 0x08, 0x04, 0x48, 0x8b, 0x05, 0, 0, 0, 0,
	  0xc3},
	 14, 9, 13, PLT_REF_NONE, PLT_SCAN_BYTES, 0},
};

static const struct len {
	const char *name;
	uint8_t code[15];
	size_t len;
} lens[] = {
	{"endbr64", {0xf3, 0x0f, 0x1e, 0xfa}, 4},
	{"movabs $imm64,%rax", {0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}, 10},
	{"mov %fs:0x28,%rax", {0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0}, 9},
	{"vzeroupper", {0xc5, 0xf8, 0x77}, 3},
	{"vbroadcastss slot(%rip),%xmm0 (c4)",
	 {0xc4, 0xe2, 0x79, 0x18, 0x05, 0, 0, 0, 0}, 9},
	{"movq %rax,%xmm0", {0x66, 0x48, 0x0f, 0x6e, 0xc0}, 5},
	{"rep stos %rax,(%rdi)", {0xf3, 0x48, 0xab}, 3},
	{"cs nopw 0x0(%rax,%rax,1)",
	 {0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}, 10},
	{"mov $-1,%rax", {0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff}, 7},
	{"movw $1,slot(%rip)", {0x66, 0xc7, 0x05, 0, 0, 0, 0, 1, 0}, 9},
	{"movabs 0x1122334455667788,%eax (moffs)",
	 {0xa1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}, 9},
	{"addr32 mov 0x11223344,%eax (a 4-byte moffs)",
	 {0x67, 0xa1, 0x44, 0x33, 0x22, 0x11}, 6},
	{"vmovdqa64 %zmm0,0x40(%rsp) (EVEX, disp8)",
	 {0x62, 0xf1, 0xfd, 0x48, 0x7f, 0x44, 0x24, 0x01}, 8},
	{"vpternlogd $0xff,%zmm0,%zmm0,%zmm0 (EVEX, map 3)",
	 {0x62, 0xf3, 0x7d, 0x48, 0x25, 0xc0, 0xff}, 7},
	{"imul $imm32,%rax,%rax", {0x48, 0x69, 0xc0, 1, 2, 3, 4}, 7},
	{"lock cmpxchg %rdx,(%rdi)", {0xf0, 0x48, 0x0f, 0xb1, 0x17}, 5},
};

static void note(void *ctx, uintptr_t t, int kind)
{
	int *seen = ctx;
	if (t == SLOT && kind > *seen)
		*seen = kind;
}

int main(void)
{
	size_t n = sizeof rows / sizeof rows[0];
	size_t nf = sizeof fns / sizeof fns[0];
	size_t nl = sizeof lens / sizeof lens[0];
	tap_plan((int)(n + nf + nl));
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		uint8_t code[sizeof r->code];
		memcpy(code, r->code, sizeof code);
		/* the displacement that names the slot from here */
		int32_t d = (int32_t)(SLOT - (r->at + 4));
		memcpy(code + r->at, &d, 4);
		uintptr_t t = 0;
		int kind = plt_arch_ref(code, r->at, r->len, 0, 0, &t);
		int got = kind != PLT_REF_NONE && t == SLOT ? kind
							 : PLT_REF_NONE;
		if (!tap_ok(got == r->kind, "%s", r->name))
			tap_diag("kind %d, target %#lx", kind,
				 (unsigned long)t);
	}
	for (size_t i = 0; i < nf; i++) {
		const struct fn *f = &fns[i];
		uint8_t code[sizeof f->code];
		memcpy(code, f->code, sizeof code);
		int32_t d = (int32_t)(SLOT - f->end);
		memcpy(code + f->at, &d, 4);
		int seen = PLT_REF_NONE;
		struct plt_gotreg g = {.c = code, .size = f->len, .base = 0,
				       .lo = SLOT, .hi = SLOT + 8,
				       .ref = note, .ctx = &seen};
		int how = plt_arch_region(&g, 0, f->len);
		uintptr_t t = 0;
		/* a stray row is one only if the bytes fool the scan */
		int fools = !f->stray ||
			    (plt_arch_ref(code, f->at, f->len, 0, 0, &t) ==
				     PLT_REF_LOAD &&
			     t == SLOT);
		if (!tap_ok(seen == f->kind && how == f->how && fools, "%s",
			    f->name))
			tap_diag("kind %d, read %d, stray %d", seen, how,
				 fools);
	}
	for (size_t i = 0; i < nl; i++) {
		struct x86_insn in;
		int ok = x86_decode(lens[i].code, sizeof lens[i].code, &in, 1);
		if (!tap_ok(ok == 0 && in.len == lens[i].len, "%s: %zu bytes",
			    lens[i].name, lens[i].len))
			tap_diag("decoded %d, %d bytes", ok, in.len);
	}
	return tap_failed != 0;
}
