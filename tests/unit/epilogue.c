/* epilogue.c -- the capture plan's `exit` operations against the CPU
 * (symbolizer/values/x86/epilogue.c, lib/retread.c).
 *
 * Each row is the code compilers put between a call of the exit hook and
 * the function's `ret` (bytes from objdump of gcc and clang builds at
 * -O0 to -Os, and a few made to reach every operation), and whether the
 * decoder is to prove where the return value is (rax's low 4 bytes or
 * xmm0's low 8 known).  For a proved row, the operations the plan would
 * carry (written by epilogue_print, read back as lib/plan.c reads them)
 * are run by the recorder's interpreter, and the very bytes are run by
 * the CPU, from the same callee-saved registers and stack frame, random
 * each time, with garbage in every other register: every byte the
 * decoder says is known must be the CPU's, and so must the stack pointer
 * after the `ret`.  The oracle cannot be wrong: it is the code itself.
 * x86-64 only.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctrace_format.h"
#include "ctrace_plan.h"
#include "values/dwinfo.h"
#include "capture.h"
#include "retval.h"
#include "tap.h"

static const struct row {
	const char *name;
	uint8_t code[40];
	size_t len;
	int proved;
} rows[] = {
{"clang -O0: mov -0x8(%rbp),%eax; add $0x10,%rsp; pop %rbp; ret",
 {0x8b, 0x45, 0xf8, 0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3}, 9, 1},
{"clang -O0: mov -0x30(%rbp),%rax; add $0x30,%rsp; pop %rbp; ret",
 {0x48, 0x8b, 0x45, 0xd0, 0x48, 0x83, 0xc4, 0x30, 0x5d, 0xc3}, 10, 1},
{"clang -O0: movsd -0x18(%rbp),%xmm0; add $0x40,%rsp; pop %rbp; ret",
 {0xf2, 0x0f, 0x10, 0x45, 0xe8, 0x48, 0x83, 0xc4, 0x40, 0x5d, 0xc3}, 11, 1},
{"clang -O0: mov -0x28(%rbp),%rax; mov -0x20(%rbp),%rdx; add $0x40,%rsp; pop %rbp; ret",
 {0x48, 0x8b, 0x45, 0xd8, 0x48, 0x8b, 0x55, 0xe0, 0x48, 0x83, 0xc4, 0x40, 0x5d, 0xc3}, 14, 1},
{"clang -O0: mov -0x10(%rbp),%rax; add $0x20,%rsp; pop %rbp; ret",
 {0x48, 0x8b, 0x45, 0xf0, 0x48, 0x83, 0xc4, 0x20, 0x5d, 0xc3}, 10, 1},
{"clang -O0: movss -0x8(%rbp),%xmm0; add $0x10,%rsp; pop %rbp; ret",
 {0xf3, 0x0f, 0x10, 0x45, 0xf8, 0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3}, 11, 1},
{"clang -O0: mov -0x5(%rbp),%al; and $0x1,%al; movzbl %al,%eax; add $0x10,%rsp; pop %rbp; ret",
 {0x8a, 0x45, 0xfb, 0x24, 0x01, 0x0f, 0xb6, 0xc0, 0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3}, 14, 1},
{"clang -O0: mov -0x5(%rbp),%al; movzbl %al,%eax; add $0x10,%rsp; pop %rbp; ret",
 {0x8a, 0x45, 0xfb, 0x0f, 0xb6, 0xc0, 0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3}, 12, 1},
{"clang -O0: fldt -0x20(%rbp); add $0x50,%rsp; pop %rbp; ret",
 {0xdb, 0x6d, 0xe0, 0x48, 0x83, 0xc4, 0x50, 0x5d, 0xc3}, 9, 0},
{"clang -O0: mov -0x1c(%rbp),%eax; add $0x20,%rsp; pop %rbp; ret",
 {0x8b, 0x45, 0xe4, 0x48, 0x83, 0xc4, 0x20, 0x5d, 0xc3}, 9, 1},
{"clang -O0: mov -0x18(%rbp),%rax; add $0x20,%rsp; pop %rbp; ret",
 {0x48, 0x8b, 0x45, 0xe8, 0x48, 0x83, 0xc4, 0x20, 0x5d, 0xc3}, 10, 1},
{"clang -O0: mov -0x4(%rbp),%ax; cwtl; add $0x10,%rsp; pop %rbp; ret",
 {0x66, 0x8b, 0x45, 0xfc, 0x98, 0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3}, 11, 1},
{"clang -O0: mov -0xc(%rbp),%eax; add $0x10,%rsp; pop %rbp; ret",
 {0x8b, 0x45, 0xf4, 0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3}, 9, 1},
{"clang -O0: movsd -0x10(%rbp),%xmm0; add $0x20,%rsp; pop %rbp; ret",
 {0xf2, 0x0f, 0x10, 0x45, 0xf0, 0x48, 0x83, 0xc4, 0x20, 0x5d, 0xc3}, 11, 1},
{"clang -O0: mov -0x38(%rbp),%rax; add $0x40,%rsp; pop %rbp; ret",
 {0x48, 0x8b, 0x45, 0xc8, 0x48, 0x83, 0xc4, 0x40, 0x5d, 0xc3}, 10, 1},
{"clang -O1: mov %ebp,%eax; pop %rbx; pop %r14; pop %rbp; ret",
 {0x89, 0xe8, 0x5b, 0x41, 0x5e, 0x5d, 0xc3}, 7, 1},
{"clang -O1: mov %rbx,%rax; pop %rbx; pop %r14; pop %r15; ret",
 {0x48, 0x89, 0xd8, 0x5b, 0x41, 0x5e, 0x41, 0x5f, 0xc3}, 9, 1},
{"clang -O1: movsd 0x8(%rsp),%xmm0; add $0x18,%rsp; pop %rbx; pop %r14; ret",
 {0xf2, 0x0f, 0x10, 0x44, 0x24, 0x08, 0x48, 0x83, 0xc4, 0x18, 0x5b, 0x41, 0x5e, 0xc3}, 14, 1},
{"clang -O1: mov %r14,%rax; mov %r12,%rdx; add $0x8,%rsp; pop %rbx; pop %r12; pop %r14; pop %r15; ret",
 {0x4c, 0x89, 0xf0, 0x4c, 0x89, 0xe2, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x41, 0x5c, 0x41, 0x5e, 0x41, 0x5f, 0xc3}, 18, 1},
{"clang -O1: mov %rbx,%rax; add $0x8,%rsp; pop %rbx; pop %r12; pop %r14; pop %r15; ret",
 {0x48, 0x89, 0xd8, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x41, 0x5c, 0x41, 0x5e, 0x41, 0x5f, 0xc3}, 15, 1},
{"clang -O1: movss 0x4(%rsp),%xmm0; add $0x8,%rsp; pop %rbx; pop %r14; ret",
 {0xf3, 0x0f, 0x10, 0x44, 0x24, 0x04, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x41, 0x5e, 0xc3}, 14, 1},
{"clang -O1: fldt 0xc(%rsp); add $0x18,%rsp; pop %rbx; pop %r14; ret",
 {0xdb, 0x6c, 0x24, 0x0c, 0x48, 0x83, 0xc4, 0x18, 0x5b, 0x41, 0x5e, 0xc3}, 12, 0},
{"clang -O1: mov %ebp,%eax; pop %rbx; pop %r12; pop %r14; pop %r15; pop %rbp; ret",
 {0x89, 0xe8, 0x5b, 0x41, 0x5c, 0x41, 0x5e, 0x41, 0x5f, 0x5d, 0xc3}, 11, 1},
{"clang -O1: mov %ebp,%eax; add $0x8,%rsp; pop %rbx; pop %r14; pop %r15; pop %rbp; ret",
 {0x89, 0xe8, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x41, 0x5e, 0x41, 0x5f, 0x5d, 0xc3}, 13, 1},
{"clang -O1: movsd 0x8(%rsp),%xmm0; add $0x10,%rsp; pop %rbx; pop %r14; pop %r15; ret",
 {0xf2, 0x0f, 0x10, 0x44, 0x24, 0x08, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0x41, 0x5e, 0x41, 0x5f, 0xc3}, 16, 1},
{"clang -O1: movss 0xc(%rsp),%xmm0; add $0x10,%rsp; pop %rbx; pop %r14; pop %rbp; ret",
 {0xf3, 0x0f, 0x10, 0x44, 0x24, 0x0c, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0x41, 0x5e, 0x5d, 0xc3}, 15, 1},
{"clang -O1: mov %ebx,%eax; add $0x10,%rsp; pop %rbx; pop %r14; pop %r15; ret",
 {0x89, 0xd8, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0x41, 0x5e, 0x41, 0x5f, 0xc3}, 12, 1},
{"gcc -O0: mov %ebx,%eax; mov -0x8(%rbp),%rbx; leave; ret",
 {0x89, 0xd8, 0x48, 0x8b, 0x5d, 0xf8, 0xc9, 0xc3}, 8, 1},
{"gcc -O0: mov %rbx,%rax; mov -0x8(%rbp),%rbx; leave; ret",
 {0x48, 0x89, 0xd8, 0x48, 0x8b, 0x5d, 0xf8, 0xc9, 0xc3}, 9, 1},
{"gcc -O0: mov -0x18(%rbp),%rax; movq %rax,%xmm0; leave; ret",
 {0x48, 0x8b, 0x45, 0xe8, 0x66, 0x48, 0x0f, 0x6e, 0xc0, 0xc9, 0xc3}, 11, 1},
{"gcc -O0: mov %r12,%rax; mov %r13,%rdx; add $0x20,%rsp; pop %r12; pop %r13; pop %rbp; ret",
 {0x4c, 0x89, 0xe0, 0x4c, 0x89, 0xea, 0x48, 0x83, 0xc4, 0x20, 0x41, 0x5c, 0x41, 0x5d, 0x5d, 0xc3}, 16, 1},
{"gcc -O0: mov -0x28(%rbp),%rax; leave; ret",
 {0x48, 0x8b, 0x45, 0xd8, 0xc9, 0xc3}, 6, 1},
{"gcc -O0: movss -0x8(%rbp),%xmm0; leave; ret",
 {0xf3, 0x0f, 0x10, 0x45, 0xf8, 0xc9, 0xc3}, 7, 1},
{"gcc -O0: fldt -0x10(%rbp); leave; ret",
 {0xdb, 0x6d, 0xf0, 0xc9, 0xc3}, 5, 0},
{"gcc -O0: mov -0x10(%rbp),%rax; movq %rax,%xmm0; leave; ret",
 {0x48, 0x8b, 0x45, 0xf0, 0x66, 0x48, 0x0f, 0x6e, 0xc0, 0xc9, 0xc3}, 11, 1},
{"gcc -O1: lea 0x1(%rbx),%eax; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x8d, 0x43, 0x01, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 10, 1},
{"gcc -O1: mov %rbx,%rax; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x48, 0x89, 0xd8, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 10, 1},
{"gcc -O1: pxor %xmm0,%xmm0; cvtsi2sd %ebx,%xmm0; addsd 0x8(%rsp),%xmm0; add $0x10,%rsp; pop %rbx; pop %rbp; pop %r14; ret",
 {0x66, 0x0f, 0xef, 0xc0, 0xf2, 0x0f, 0x2a, 0xc3, 0xf2, 0x0f, 0x58, 0x44, 0x24, 0x08, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0x5d, 0x41, 0x5e, 0xc3}, 23, 1},
{"gcc -O1: mov %rbx,%rax; mov %rbp,%rdx; pop %rbx; pop %rbp; pop %r12; ret",
 {0x48, 0x89, 0xd8, 0x48, 0x89, 0xea, 0x5b, 0x5d, 0x41, 0x5c, 0xc3}, 11, 1},
{"gcc -O1: mov %rbx,%rax; pop %rbx; pop %rbp; pop %r12; ret",
 {0x48, 0x89, 0xd8, 0x5b, 0x5d, 0x41, 0x5c, 0xc3}, 8, 1},
{"gcc -O1: lea 0x1(%rbx),%rax; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x48, 0x8d, 0x43, 0x01, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 11, 1},
{"gcc -O1: pxor %xmm0,%xmm0; cvtsi2ss %ebx,%xmm0; mulss 0xc(%rsp),%xmm0; add $0x18,%rsp; pop %rbx; pop %rbp; ret",
 {0x66, 0x0f, 0xef, 0xc0, 0xf3, 0x0f, 0x2a, 0xc3, 0xf3, 0x0f, 0x59, 0x44, 0x24, 0x0c, 0x48, 0x83, 0xc4, 0x18, 0x5b, 0x5d, 0xc3}, 21, 1},
{"gcc -O1: cmp $0x3,%ebx; setg %al; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x83, 0xfb, 0x03, 0x0f, 0x9f, 0xc0, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 13, 1},
{"gcc -O1: mov %ebx,%eax; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x89, 0xd8, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 9, 1},
{"gcc -O1: fildl 0xc(%rsp); fldt 0x20(%rsp); fmulp %st,%st(1); add $0x10,%rsp; pop %rbx; ret",
 {0xdb, 0x44, 0x24, 0x0c, 0xdb, 0x6c, 0x24, 0x20, 0xde, 0xc9, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0xc3}, 16, 0},
{"gcc -O1: cmp %ebp,%ebx; mov %ebp,%eax; cmovle %ebx,%eax; pop %rbx; pop %rbp; pop %r12; ret",
 {0x39, 0xeb, 0x89, 0xe8, 0x0f, 0x4e, 0xc3, 0x5b, 0x5d, 0x41, 0x5c, 0xc3}, 12, 1},
{"gcc -O1: movslq %ebx,%rax; neg %rax; sar $0x3,%rax; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x48, 0x63, 0xc3, 0x48, 0xf7, 0xd8, 0x48, 0xc1, 0xf8, 0x03, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 17, 1},
{"gcc -O1: lea 0x0(,%rbx,8),%eax; sub %ebx,%eax; add $0x3,%eax; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x8d, 0x04, 0xdd, 0x00, 0x00, 0x00, 0x00, 0x29, 0xd8, 0x83, 0xc0, 0x03, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 19, 1},
{"gcc -O1: mov %ebx,%eax; or $0x1,%eax; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x89, 0xd8, 0x83, 0xc8, 0x01, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 12, 1},
{"gcc -O1: test %ebx,%ebx; sete %al; movzbl %al,%eax; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x85, 0xdb, 0x0f, 0x94, 0xc0, 0x0f, 0xb6, 0xc0, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 15, 1},
{"gcc -O1: pxor %xmm0,%xmm0; cvtsi2sd %rbx,%xmm0; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x66, 0x0f, 0xef, 0xc0, 0xf2, 0x48, 0x0f, 0x2a, 0xc3, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 16, 1},
{"gcc -O1: pxor %xmm0,%xmm0; cvtsi2ss %ebx,%xmm0; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x66, 0x0f, 0xef, 0xc0, 0xf3, 0x0f, 0x2a, 0xc3, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 15, 1},
{"gcc -O1: mov %ebx,%eax; add $0x18,%rsp; pop %rbx; pop %rbp; ret",
 {0x89, 0xd8, 0x48, 0x83, 0xc4, 0x18, 0x5b, 0x5d, 0xc3}, 9, 1},
{"gcc -O2: add $0x8,%rsp; lea 0x1(%rbx),%eax; pop %rbx; pop %rbp; ret",
 {0x48, 0x83, 0xc4, 0x08, 0x8d, 0x43, 0x01, 0x5b, 0x5d, 0xc3}, 10, 1},
{"gcc -O2: pxor %xmm0,%xmm0; cvtsi2sd %ebx,%xmm0; addsd (%rsp),%xmm0; add $0x18,%rsp; pop %rbx; pop %rbp; ret",
 {0x66, 0x0f, 0xef, 0xc0, 0xf2, 0x0f, 0x2a, 0xc3, 0xf2, 0x0f, 0x58, 0x04, 0x24, 0x48, 0x83, 0xc4, 0x18, 0x5b, 0x5d, 0xc3}, 20, 1},
{"gcc -O2: add $0x8,%rsp; lea 0x1(%rbx),%rax; pop %rbx; pop %rbp; ret",
 {0x48, 0x83, 0xc4, 0x08, 0x48, 0x8d, 0x43, 0x01, 0x5b, 0x5d, 0xc3}, 11, 1},
/* One move or extension of a saved register into rax or eax (a plan's
 * commonest exit, which the recorder runs without its machine). */
{"made: movslq %ebx,%rax; pop %rbx; ret",
 {0x48, 0x63, 0xc3, 0x5b, 0xc3}, 5, 1},
{"made: movsbl %bl,%eax; pop %rbx; ret",
 {0x0f, 0xbe, 0xc3, 0x5b, 0xc3}, 5, 1},
{"made: movzwl %bp,%eax; pop %rbp; ret",
 {0x0f, 0xb7, 0xc5, 0x5d, 0xc3}, 5, 1},
{"made: mov %r12,%rax; pop %r12; ret",
 {0x4c, 0x89, 0xe0, 0x41, 0x5c, 0xc3}, 6, 1},
{"gcc -O2: add $0x8,%rsp; mov %ebx,%eax; pop %rbx; pop %rbp; ret",
 {0x48, 0x83, 0xc4, 0x08, 0x89, 0xd8, 0x5b, 0x5d, 0xc3}, 9, 1},
{"gcc -O2: fildl 0xc(%rsp); fldt 0x20(%rsp); add $0x10,%rsp; pop %rbx; fmulp %st,%st(1); ret",
 {0xdb, 0x44, 0x24, 0x0c, 0xdb, 0x6c, 0x24, 0x20, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0xde, 0xc9, 0xc3}, 16, 0},
{"gcc -O2: movslq %ebx,%rax; add $0x8,%rsp; neg %rax; pop %rbx; pop %rbp; sar $0x3,%rax; ret",
 {0x48, 0x63, 0xc3, 0x48, 0x83, 0xc4, 0x08, 0x48, 0xf7, 0xd8, 0x5b, 0x5d, 0x48, 0xc1, 0xf8, 0x03, 0xc3}, 17, 1},
{"gcc -O2: lea 0x0(,%rbx,8),%eax; add $0x8,%rsp; sub %ebx,%eax; pop %rbx; pop %rbp; add $0x3,%eax; ret",
 {0x8d, 0x04, 0xdd, 0x00, 0x00, 0x00, 0x00, 0x48, 0x83, 0xc4, 0x08, 0x29, 0xd8, 0x5b, 0x5d, 0x83, 0xc0, 0x03, 0xc3}, 19, 1},
{"gcc -O2: mov %ebx,%eax; add $0x8,%rsp; or $0x1,%eax; pop %rbx; pop %rbp; ret",
 {0x89, 0xd8, 0x48, 0x83, 0xc4, 0x08, 0x83, 0xc8, 0x01, 0x5b, 0x5d, 0xc3}, 12, 1},
{"gcc -O2: xor %eax,%eax; test %ebx,%ebx; sete %al; add $0x8,%rsp; pop %rbx; pop %rbp; ret",
 {0x31, 0xc0, 0x85, 0xdb, 0x0f, 0x94, 0xc0, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0x5d, 0xc3}, 14, 1},
{"gcc -O2: add $0x8,%rsp; pxor %xmm0,%xmm0; cvtsi2sd %rbx,%xmm0; pop %rbx; pop %rbp; ret",
 {0x48, 0x83, 0xc4, 0x08, 0x66, 0x0f, 0xef, 0xc0, 0xf2, 0x48, 0x0f, 0x2a, 0xc3, 0x5b, 0x5d, 0xc3}, 16, 1},
{"gcc -O2: add $0x8,%rsp; pxor %xmm0,%xmm0; cvtsi2ss %ebx,%xmm0; pop %rbx; pop %rbp; ret",
 {0x48, 0x83, 0xc4, 0x08, 0x66, 0x0f, 0xef, 0xc0, 0xf3, 0x0f, 0x2a, 0xc3, 0x5b, 0x5d, 0xc3}, 15, 1},
{"gcc -O2: add $0x18,%rsp; mov %ebx,%eax; pop %rbx; pop %rbp; ret",
 {0x48, 0x83, 0xc4, 0x18, 0x89, 0xd8, 0x5b, 0x5d, 0xc3}, 9, 1},
{"gcc -Os: lea 0x1(%rbx),%eax; pop %rbx; ret",
 {0x8d, 0x43, 0x01, 0x5b, 0xc3}, 5, 1},
{"gcc -Os: mov %rbp,%rax; pop %rbx; pop %rbp; pop %r12; ret",
 {0x48, 0x89, 0xe8, 0x5b, 0x5d, 0x41, 0x5c, 0xc3}, 8, 1},
{"gcc -Os: cvtsi2sd %ebx,%xmm0; addsd (%rsp),%xmm0; add $0x10,%rsp; pop %rbx; ret",
 {0xf2, 0x0f, 0x2a, 0xc3, 0xf2, 0x0f, 0x58, 0x04, 0x24, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0xc3}, 15, 1},
{"gcc -Os: mov %rbx,%rax; mov %rbp,%rdx; pop %rcx; pop %rbx; pop %rbp; ret",
 {0x48, 0x89, 0xd8, 0x48, 0x89, 0xea, 0x59, 0x5b, 0x5d, 0xc3}, 10, 1},
{"gcc -Os: mov %rbx,%rax; pop %rdx; pop %rbx; pop %rbp; ret",
 {0x48, 0x89, 0xd8, 0x5a, 0x5b, 0x5d, 0xc3}, 7, 1},
{"gcc -Os: lea 0x1(%rbx),%rax; pop %rbx; ret",
 {0x48, 0x8d, 0x43, 0x01, 0x5b, 0xc3}, 6, 1},
{"gcc -Os: cvtsi2ss %ebx,%xmm0; mulss 0xc(%rsp),%xmm0; add $0x10,%rsp; pop %rbx; ret",
 {0xf3, 0x0f, 0x2a, 0xc3, 0xf3, 0x0f, 0x59, 0x44, 0x24, 0x0c, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0xc3}, 16, 1},
{"gcc -Os: cmp $0x3,%ebx; pop %rbx; setg %al; ret",
 {0x83, 0xfb, 0x03, 0x5b, 0x0f, 0x9f, 0xc0, 0xc3}, 8, 1},
{"gcc -Os: mov %ebx,%eax; pop %rbx; ret",
 {0x89, 0xd8, 0x5b, 0xc3}, 4, 1},
{"gcc -Os: mov %ebx,0xc(%rsp); fldt 0x20(%rsp); fimull 0xc(%rsp); add $0x10,%rsp; pop %rbx; ret",
 {0x89, 0x5c, 0x24, 0x0c, 0xdb, 0x6c, 0x24, 0x20, 0xda, 0x4c, 0x24, 0x0c, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0xc3}, 18, 0},
{"gcc -Os: cmp %ebp,%ebx; mov %ebp,%eax; pop %rdx; cmovle %ebx,%eax; pop %rbx; pop %rbp; ret",
 {0x39, 0xeb, 0x89, 0xe8, 0x5a, 0x0f, 0x4e, 0xc3, 0x5b, 0x5d, 0xc3}, 11, 1},
{"gcc -Os: movslq %ebx,%rax; pop %rbx; neg %rax; sar $0x3,%rax; ret",
 {0x48, 0x63, 0xc3, 0x5b, 0x48, 0xf7, 0xd8, 0x48, 0xc1, 0xf8, 0x03, 0xc3}, 12, 1},
{"gcc -Os: imul $0x7,%ebx,%eax; pop %rbx; add $0x3,%eax; ret",
 {0x6b, 0xc3, 0x07, 0x5b, 0x83, 0xc0, 0x03, 0xc3}, 8, 1},
{"gcc -Os: mov %ebx,%eax; pop %rbx; or $0x1,%eax; ret",
 {0x89, 0xd8, 0x5b, 0x83, 0xc8, 0x01, 0xc3}, 7, 1},
{"gcc -Os: xor %eax,%eax; test %ebx,%ebx; pop %rbx; sete %al; ret",
 {0x31, 0xc0, 0x85, 0xdb, 0x5b, 0x0f, 0x94, 0xc0, 0xc3}, 9, 1},
{"gcc -Os: cvtsi2sd %rbx,%xmm0; pop %rbx; ret",
 {0xf2, 0x48, 0x0f, 0x2a, 0xc3, 0x5b, 0xc3}, 7, 1},
{"gcc -Os: cvtsi2ss %ebx,%xmm0; pop %rbx; ret",
 {0xf3, 0x0f, 0x2a, 0xc3, 0x5b, 0xc3}, 6, 1},
{"gcc -Os: pop %rdx; mov %rbx,%rax; pop %rbx; pop %rbp; ret",
 {0x5a, 0x48, 0x89, 0xd8, 0x5b, 0x5d, 0xc3}, 7, 1},
{"gcc -Os: add $0x10,%rsp; mov %ebx,%eax; pop %rbx; ret",
 {0x48, 0x83, 0xc4, 0x10, 0x89, 0xd8, 0x5b, 0xc3}, 8, 1},
{"xor %eax,%eax; jmp +2; ud2; pop %rbx; ret (a jump followed)",
 {0x31, 0xc0, 0xeb, 0x02, 0x0f, 0x0b, 0x5b, 0xc3}, 8, 1},
{"mov %ebx,%eax; mov %eax,(%rsp); ret (a store: refused)",
 {0x89, 0xd8, 0x89, 0x04, 0x24, 0xc3}, 6, 0},
{"mov %ebx,%eax; call .+0 (a call: refused)",
 {0x89, 0xd8, 0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3}, 8, 0},
{"test %ebx,%ebx; jne +1; ret (a conditional jump: refused)",
 {0x85, 0xdb, 0x75, 0x01, 0xc3, 0xc3}, 6, 0},
{"mov %ecx,%eax; ret (the hook's register: read, not known)",
 {0x89, 0xc8, 0xc3}, 3, 0},
{"lea 0x7(%rbx),%eax; cmp $0x3,%r12d; cmovl %r12d,%eax; ret",
 {0x8d, 0x43, 0x07, 0x41, 0x83, 0xfc, 0x03, 0x41, 0x0f, 0x4c, 0xc4, 0xc3}, 12, 1},
{"test %rbx,%rbx; sete %al; movzbl %al,%eax; shl $0x3,%eax; ret",
 {0x48, 0x85, 0xdb, 0x0f, 0x94, 0xc0, 0x0f, 0xb6, 0xc0, 0xc1, 0xe0, 0x03, 0xc3}, 13, 1},
{"mov %rbx,%rax; neg %rax; sar $0x3,%rax; not %eax; ret",
 {0x48, 0x89, 0xd8, 0x48, 0xf7, 0xd8, 0x48, 0xc1, 0xf8, 0x03, 0xf7, 0xd0, 0xc3}, 13, 1},
{"imul %r13,%rbx; mov %rbx,%rax; shr $0x7,%rax; ret",
 {0x49, 0x0f, 0xaf, 0xdd, 0x48, 0x89, 0xd8, 0x48, 0xc1, 0xe8, 0x07, 0xc3}, 12, 1},
{"movsbl %bl,%eax; movswq %bp,%rdx; cvtsi2sd %r12,%xmm0; ret",
 {0x0f, 0xbe, 0xc3, 0x48, 0x0f, 0xbf, 0xd5, 0xf2, 0x49, 0x0f, 0x2a, 0xc4, 0xc3}, 13, 1},
{"pxor %xmm1,%xmm1; cvtsi2ss %ebx,%xmm1; movq %xmm1,%rax; movd %r12d,%xmm0; ret",
 {0x66, 0x0f, 0xef, 0xc9, 0xf3, 0x0f, 0x2a, 0xcb, 0x66, 0x48, 0x0f, 0x7e, 0xc8, 0x66, 0x41, 0x0f, 0x6e, 0xc4, 0xc3}, 19, 1},
{"cmp %r12,%rbx; setb %al; seta %dl; sub %edx,%eax; movsbl %al,%eax; ret (unsigned)",
 {0x4c, 0x39, 0xe3, 0x0f, 0x92, 0xc0, 0x0f, 0x97, 0xc2, 0x29, 0xd0, 0x0f, 0xbe, 0xc0, 0xc3}, 15, 0},
{"cmp %r12d,%ebx; setl %al; setle %cl; setp %dl; seto %sil; ret (partial bytes)",
 {0x44, 0x39, 0xe3, 0x0f, 0x9c, 0xc0, 0x0f, 0x9e, 0xc1, 0x0f, 0x9a, 0xc2, 0x40, 0x0f, 0x90, 0xc6, 0xc3}, 17, 1},
{"mov 0x10(%rsp),%rax; and $0xff,%eax; or $0x100,%eax; xor %edx,%edx; add $0x18,%rsp; ret",
 {0x48, 0x8b, 0x44, 0x24, 0x10, 0x81, 0xe0, 0xff, 0x00, 0x00, 0x00, 0x81, 0xc8, 0x00, 0x01, 0x00, 0x00, 0x31, 0xd2, 0x48, 0x83, 0xc4, 0x18, 0xc3}, 24, 1},
{"movss 0x4(%rsp),%xmm0; movss %xmm0,%xmm1; movaps %xmm1,%xmm0; add $0x8,%rsp; ret",
 {0xf3, 0x0f, 0x10, 0x44, 0x24, 0x04, 0xf3, 0x0f, 0x10, 0xc8, 0x0f, 0x28, 0xc1, 0x48, 0x83, 0xc4, 0x08, 0xc3}, 18, 1},
{"movsd 0x8(%rsp),%xmm0; divsd 0x10(%rsp),%xmm0; subsd 0x18(%rsp),%xmm0; add $0x20,%rsp; ret (NaNs and denormals too)",
 {0xf2, 0x0f, 0x10, 0x44, 0x24, 0x08, 0xf2, 0x0f, 0x5e, 0x44, 0x24, 0x10, 0xf2, 0x0f, 0x5c, 0x44, 0x24, 0x18, 0x48, 0x83, 0xc4, 0x20, 0xc3}, 23, 1},
{"movss 0x4(%rsp),%xmm1; cvtss2sd %xmm1,%xmm0; movsd 0x8(%rsp),%xmm2; cvtsd2ss %xmm2,%xmm1; add $0x10,%rsp; ret",
 {0xf3, 0x0f, 0x10, 0x4c, 0x24, 0x04, 0xf3, 0x0f, 0x5a, 0xc1, 0xf2, 0x0f, 0x10, 0x54, 0x24, 0x08, 0xf2, 0x0f, 0x5a, 0xca, 0x48, 0x83, 0xc4, 0x10, 0xc3}, 25, 1},
{"movq %rbx,%xmm0; movq %r12,%xmm1; mulsd %xmm1,%xmm0; addss %xmm1,%xmm1; ret",
 {0x66, 0x48, 0x0f, 0x6e, 0xc3, 0x66, 0x49, 0x0f, 0x6e, 0xcc, 0xf2, 0x0f, 0x59, 0xc1, 0xf3, 0x0f, 0x58, 0xc9, 0xc3}, 19, 1},
{"mov %ebx,%eax; add $0x10,%eax; xor $0xff,%al; cmp $0x7,%eax; setge %dl; test $0x1,%al; sete %cl; ret (short forms)",
 {0x89, 0xd8, 0x05, 0x10, 0x00, 0x00, 0x00, 0x34, 0xff, 0x3d, 0x07, 0x00, 0x00, 0x00, 0x0f, 0x9d, 0xc2, 0xa8, 0x01, 0x0f, 0x94, 0xc1, 0xc3}, 23, 1},
{"mov %ebx,%eax; lea 0x5(%rbx),%ax; ret (16-bit lea: a partial write)",
 {0x89, 0xd8, 0x66, 0x8d, 0x43, 0x05, 0xc3}, 7, 0},
{"setg %spl; mov 0x8(%rsp),%rax; ret (rsp written: refused)",
 {0x40, 0x0f, 0x9f, 0xc4, 0x48, 0x8b, 0x44, 0x24, 0x08, 0xc3}, 10, 0},
{"leave; ret after mov -0x8(%rbp),%rax",
 {0x48, 0x8b, 0x45, 0xf8, 0xc9, 0xc3}, 6, 1},
};

/* ---------------------------------------------------------------------------
 * The CPU: registers set, the code jumped to, its `ret` caught
 * ------------------------------------------------------------------------ */

struct cpu {
	uint64_t rbx, rbp, r12, r13, r14, r15, rsp; /* in */
	uint64_t rax, rdx, xmm0, xmm1, rsp_after;  /* out */
	uint64_t garbage;                          /* in: every other */
};

struct cpu *epi_cpu;
uint64_t epi_saved;
void epi_call(const void *code, struct cpu *c);
extern char epi_back[];

__asm__(".text\n"
	".globl epi_call\n"
	"epi_call:\n"
	"	push %rbx\n	push %rbp\n	push %r12\n"
	"	push %r13\n	push %r14\n	push %r15\n"
	"	mov %rsp, epi_saved(%rip)\n"
	"	mov %rsi, epi_cpu(%rip)\n"
	"	mov 96(%rsi), %rax\n"
	"	movq %rax, %xmm0\n	movq %rax, %xmm1\n	movq %rax, %xmm2\n"
	"	mov %rax, %rcx\n	mov %rax, %rdx\n	mov %rax, %r8\n"
	"	mov %rax, %r9\n	mov %rax, %r10\n	mov %rax, %r11\n"
	"	mov 0(%rsi), %rbx\n	mov 8(%rsi), %rbp\n"
	"	mov 16(%rsi), %r12\n	mov 24(%rsi), %r13\n"
	"	mov 32(%rsi), %r14\n	mov 40(%rsi), %r15\n"
	"	mov 48(%rsi), %rsp\n"
	"	mov %rdi, %r11\n"
	"	mov %rax, %rdi\n	mov %rax, %rsi\n"
	"	jmp *%r11\n"
	".globl epi_back\n"
	"epi_back:\n"
	"	mov epi_cpu(%rip), %rsi\n"
	"	mov %rax, 56(%rsi)\n	mov %rdx, 64(%rsi)\n"
	"	movq %xmm0, 72(%rsi)\n	movq %xmm1, 80(%rsi)\n"
	"	mov %rsp, 88(%rsi)\n"
	"	mov epi_saved(%rip), %rsp\n"
	"	pop %r15\n	pop %r14\n	pop %r13\n"
	"	pop %r12\n	pop %rbp\n	pop %rbx\n"
	"	ret\n");

static uint64_t rnd(void)
{
	return (uint64_t)random() << 40 ^ (uint64_t)random() << 20 ^
	       (uint64_t)random();
}

/* Small values too, so that comparisons go both ways and sign bits
 * vary. */
static uint64_t value(void)
{
	switch (random() % 4) {
	case 0: return (uint64_t)(random() % 7) - 3;
	case 1: return (uint64_t)(random() % 300);
	default: return rnd();
	}
}

/* The operations epilogue_print writes, read back as the recorder does. */
static size_t read_ops(const char *text, struct ctrace__plan_op *ops)
{
	size_t n = 0;
	const char *p = text;
	while ((p = strstr(p, " op ")) != NULL && n < CTRACE_PLAN_MAX_OPS) {
		long long v[7];
		if (sscanf(p, " op %lld %lld %lld %lld %lld %lld %lld", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
			break;
		ops[n] = (struct ctrace__plan_op){
			.op = (uint8_t)v[0], .dsz = (uint8_t)v[1],
			.ssz = (uint8_t)v[2], .d = (uint8_t)v[3],
			.s = (int8_t)v[4],
			.base = (uint8_t)(v[5] < 0 ? CTRACE_EOP_NO_BASE : v[5]),
			.arg = v[6]};
		ctrace__retread_prepare(&ops[n]); /* as plan.c does */
		n++;
		p += 4;
	}
	return n;
}

static uint64_t bytes_mask(uint8_t known)
{
	uint64_t m = 0;
	for (int i = 0; i < 8; i++)
		if (known & (1u << i))
			m |= 0xffull << (i * 8);
	return m;
}

/* One row, in a child (a wrong stack pointer jumps anywhere): 0 when the
 * interpreter and the CPU agree over 64 random states. */
static int check(const struct row *r, const struct epilogue *e,
		 unsigned mask, unsigned size)
{
	char *text = NULL;
	size_t text_size = 0;
	FILE *f = open_memstream(&text, &text_size);
	if (f == NULL || !epilogue_print(f, e, mask, size))
		return 1;
	fclose(f);
	struct ctrace__plan_op ops[CTRACE_PLAN_MAX_OPS];
	size_t n = read_ops(text, ops);
	free(text);

	long page = sysconf(_SC_PAGESIZE);
	uint8_t *code = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, r->code, r->len);
	if (mprotect(code, (size_t)page, PROT_READ | PROT_EXEC) < 0)
		return 1;
	/* The stack pointer after the ret from every operation (the plan
	 * keeps those of rsp only when the record needs it). */
	struct ctrace__plan_op all[CTRACE_PLAN_MAX_OPS];
	for (size_t i = 0; i < e->n; i++) {
		const struct epi_op *o = &e->ops[i];
		all[i] = (struct ctrace__plan_op){
			.op = (uint8_t)o->op, .dsz = (uint8_t)o->dsz,
			.ssz = (uint8_t)o->ssz, .d = (uint8_t)o->d,
			.s = (int8_t)o->s,
			.base = (uint8_t)(o->base < 0 ? CTRACE_EOP_NO_BASE
						      : o->base),
			.arg = o->arg};
		ctrace__retread_prepare(&all[i]);
	}
	static uint64_t stack[1024];
	for (int round = 0; round < 64; round++) {
		for (size_t i = 0; i < 1024; i++)
			stack[i] = value();
		struct ctrace__regs regs = {
			.rbx = value(), .rbp = (uintptr_t)&stack[512],
			.r12 = value(), .r13 = value(), .r14 = value(),
			.r15 = value(), .sp = (uintptr_t)&stack[256]};
		uint64_t out[CTRACE_RETREAD_OUT];
		if (!ctrace__retread_run(all, e->n,
					 ctrace__retread_reads(all, e->n), &regs,
					 out))
			return 1; /* every exception is masked here */
		/* The return address where the ret will read it. */
		uint64_t *slot = (uint64_t *)(uintptr_t)(out[4] - 8);
		uint64_t sp_after = out[4];
		if (slot < &stack[0] || slot >= &stack[1024])
			return 1;
		*slot = (uintptr_t)epi_back;
		/* The interpreter again: its loads may have read that slot
		 * (a pop of it is the ret's own). */
		if (!ctrace__retread_run(ops, n, ctrace__retread_reads(ops, n),
					 &regs, out))
			return 1;
		struct cpu c = {regs.rbx, regs.rbp, regs.r12, regs.r13,
				regs.r14, regs.r15, regs.sp, 0, 0, 0, 0, 0,
				rnd()};
		epi_call(code, &c);
		if (!(mask & CTRACE_RETVAL_MEM))
			out[4] = sp_after; /* not kept: from all of them */
		uint64_t cpu[5] = {c.rax, c.rdx, c.xmm0, c.xmm1, c.rsp_after};
		uint64_t known[5] = {bytes_mask(e->r0), bytes_mask(e->r1),
				     bytes_mask(e->x0), bytes_mask(e->x1),
				     ~0ull};
		for (int k = 0; k < 5; k++)
			if ((cpu[k] ^ out[k]) & known[k]) {
				printf("# %s: output %d cpu %#llx plan %#llx\n",
				       r->name, k, (unsigned long long)cpu[k],
				       (unsigned long long)out[k]);
				fflush(stdout);
				return 1;
			}
	}
	return 0;
}

/* With the program's floating-point exceptions unmasked, a division by
 * zero the operations make does not trap in the recorder, and the MXCSR
 * (its flags too) is as the program left it. */
static void unmasked(void)
{
	struct ctrace__plan_op ops[2] = {
		{.op = CTRACE_EOP_XMOV, .dsz = 8, .ssz = 8, .d = 16,
		 .s = CTRACE_EOP_IMM, .arg = 0x3ff0000000000000ll}, /* 1.0 */
		{.op = CTRACE_EOP_FDIV, .dsz = 8, .ssz = 8, .d = 16,
		 .s = CTRACE_EOP_IMM, .arg = 0}}; /* / 0.0 */
	ctrace__retread_prepare(&ops[0]);
	ctrace__retread_prepare(&ops[1]);
	struct ctrace__regs regs = {.sp = (uintptr_t)&ops};
	uint64_t out[CTRACE_RETREAD_OUT];
	uint32_t before, after, csr;
	__asm__ volatile("stmxcsr %0" : "=m"(csr));
	csr &= ~(0x200u | 0x3fu); /* divide-by-zero unmasked, no flag */
	__asm__ volatile("ldmxcsr %0" : : "m"(csr));
	__asm__ volatile("stmxcsr %0" : "=m"(before));
	int ok = ctrace__retread_run(ops, 2, ctrace__retread_reads(ops, 2),
				     &regs, out);
	__asm__ volatile("stmxcsr %0" : "=m"(after));
	csr |= 0x200u;
	__asm__ volatile("ldmxcsr %0" : : "m"(csr));
	/* The program's own divsd will trap: no value is the program's. */
	tap_ok(before == after && !ok,
	       "a division by zero, unmasked: no trap, no value, MXCSR %#x "
	       "kept (%#x)", before, after);
	/* Masked (the default), the same division is +inf, flag raised by
	 * the program's own instruction, not by the recorder. */
	__asm__ volatile("ldmxcsr %0" : : "m"(csr));
	ok = ctrace__retread_run(ops, 2, ctrace__retread_reads(ops, 2), &regs,
				 out);
	__asm__ volatile("stmxcsr %0" : "=m"(after));
	tap_ok(ok && out[2] == 0x7ff0000000000000ull && after == csr,
	       "a division by zero, masked: +inf, MXCSR %#x kept (%#x)", csr,
	       after);
}

/* The CPU runs `mov %r13,%rax`, text[0..len) and a `ret` (copied into
 * code, a page), and the interpreter ops[0..n) (the mov first), from the
 * same rbx, r12 and r13, 256 times: rbx and r12 equal a quarter of the
 * time, a sign bit of size bytes apart a quarter, any bit apart a
 * quarter, so that comparisons go every way.  1 when rax is the same
 * every time; cc names the condition tried in a message. */
static int same_rax(uint8_t *code, long page, const uint8_t *text,
		    size_t len, const struct ctrace__plan_op *ops, size_t n,
		    unsigned size, unsigned cc)
{
	static uint64_t stack[64];
	if (mprotect(code, (size_t)page, PROT_READ | PROT_WRITE) < 0)
		return 0;
	code[0] = 0x4c, code[1] = 0x89, code[2] = 0xe8; /* mov %r13,%rax */
	memcpy(code + 3, text, len);
	code[3 + len] = 0xc3;
	if (mprotect(code, (size_t)page, PROT_READ | PROT_EXEC) < 0)
		return 0;
	for (int round = 0; round < 256; round++) {
		uint64_t a = value(), b = value();
		if (round % 4 == 0)
			b = a;
		else if (round % 4 == 1)
			b = a ^ (1ull << (size * 8 - 1));
		else if (round % 4 == 2)
			b = a ^ (1ull << (random() % 64));
		stack[32] = (uintptr_t)epi_back;
		struct cpu c = {.rbx = a, .r12 = b, .r13 = value(),
				.rsp = (uintptr_t)&stack[32], .garbage = rnd()};
		struct ctrace__regs regs = {.rbx = a, .r12 = b, .r13 = c.r13,
					    .sp = c.rsp};
		uint64_t out[CTRACE_RETREAD_OUT];
		if (!ctrace__retread_run(ops, n, ctrace__retread_reads(ops, n),
					 &regs, out))
			return 0;
		epi_call(code, &c);
		if (c.rax != out[0]) {
			printf("# cc %u, rbx %#llx r12 %#llx r13 %#llx: cpu %#llx, "
			       "interpreter %#llx\n", cc, (unsigned long long)a,
			       (unsigned long long)b, (unsigned long long)c.r13,
			       (unsigned long long)c.rax,
			       (unsigned long long)out[0]);
			return 0;
		}
	}
	return 1;
}

/* Every condition (the sixteen of set and of cmov) after a cmp and after
 * a test of each size, from values that make each go both ways: the
 * interpreter's rax against the CPU's, running
 *   mov %r13,%rax; cmp|test %r12,%rbx; setcc %al | cmovcc %r12,%rax; ret
 * A line for each operation and size. */
static void conditions_all(uint8_t *code, long page)
{
	static const uint8_t cmp_code[2][4][4] = {
		{{0x44, 0x38, 0xe3}, {0x66, 0x44, 0x39, 0xe3},
		 {0x44, 0x39, 0xe3}, {0x4c, 0x39, 0xe3}},
		{{0x44, 0x84, 0xe3}, {0x66, 0x44, 0x85, 0xe3},
		 {0x44, 0x85, 0xe3}, {0x4c, 0x85, 0xe3}}};
	for (int use = 0; use < 2; use++) /* set, cmov */
		for (int test = 0; test < 2; test++)
			for (unsigned k = 0, size = 1; k < 4; k++, size *= 2) {
				int ok = code != MAP_FAILED;
				for (unsigned cc = 0; cc < 16 && ok; cc++) {
					uint8_t text[16];
					size_t n = k == 1 ? 4 : 3;
					memcpy(text, cmp_code[test][k], n);
					if (use == 0) {
						const uint8_t set[3] = {0x0f, (uint8_t)(0x90 + cc), 0xc0};
						memcpy(text + n, set, 3);
						n += 3;
					} else {
						const uint8_t mov[4] = {0x49, 0x0f, (uint8_t)(0x40 + cc), 0xc4};
						memcpy(text + n, mov, 4);
						n += 4;
					}
					struct ctrace__plan_op ops[3] = {
						{.op = CTRACE_EOP_MOV, .dsz = 8, .ssz = 8, .d = 0, .s = 13},
						{.op = (uint8_t)(test ? CTRACE_EOP_TEST : CTRACE_EOP_CMP),
						 .dsz = (uint8_t)size, .ssz = (uint8_t)size, .d = 3, .s = 12},
						{.op = (uint8_t)(use ? CTRACE_EOP_CMOV : CTRACE_EOP_SET),
						 .dsz = (uint8_t)(use ? 8 : 1), .ssz = (uint8_t)(use ? 8 : 1),
						 .d = 0, .s = (int8_t)(use ? 12 : 0), .arg = cc}};
					for (int i = 0; i < 3; i++) {
						ops[i].base = CTRACE_EOP_NO_BASE;
						ctrace__retread_prepare(&ops[i]);
					}
					ok = same_rax(code, page, text, n, ops, 3, size, cc);
				}
				tap_ok(ok, "%s after %s, %u byte%s: all 16 conditions as the CPU's",
				       use ? "cmov" : "set", test ? "test" : "cmp", size,
				       size > 1 ? "s" : "");
			}
}

/* Operations the decoder does not make today but a plan may carry (the
 * format takes every size): sizes 1 and 2, constants, a set's byte read
 * again, a cmov of 4 bytes that zero-extends when false, and the flags
 * before any comparison (those of 0 - 0 on 8 bytes, as the CPU's after
 * cmp %rax,%rax).  Each row's code, after mov %r13,%rax, against its
 * operations, rax whole; a row with CC_AT >= 0 is run for each of the
 * sixteen conditions (added to code[CC_AT] and to ops[CC_OP].arg). */
#define X(op_, dsz_, ssz_, d_, s_, arg_)                                     \
	{.op = CTRACE_EOP_##op_, .dsz = dsz_, .ssz = ssz_, .d = d_,          \
	 .s = s_, .base = CTRACE_EOP_NO_BASE, .arg = arg_}
static const struct direct {
	const char *name;
	uint8_t code[16];
	size_t len;
	int cc_at, cc_op;
	size_t n;
	struct ctrace__plan_op ops[4];
} directs[] = {
{"add %bl,%al", {0x00, 0xd8}, 2, -1, 0, 1, {X(ADD, 1, 1, 0, 3, 0)}},
{"add %bx,%ax", {0x66, 0x01, 0xd8}, 3, -1, 0, 1, {X(ADD, 2, 2, 0, 3, 0)}},
{"sub $0x7f,%al", {0x2c, 0x7f}, 2, -1, 0, 1,
 {X(SUB, 1, 1, 0, CTRACE_EOP_IMM, 0x7f)}},
{"xor $-5,%ax", {0x66, 0x83, 0xf0, 0xfb}, 4, -1, 0, 1,
 {X(XOR, 2, 2, 0, CTRACE_EOP_IMM, -5)}},
{"and %r12w,%ax", {0x66, 0x44, 0x21, 0xe0}, 4, -1, 0, 1,
 {X(AND, 2, 2, 0, 12, 0)}},
{"or %r12b,%al", {0x44, 0x08, 0xe0}, 3, -1, 0, 1, {X(OR, 1, 1, 0, 12, 0)}},
{"xor %ax,%ax (a merge, not a zeroing)", {0x66, 0x31, 0xc0}, 3, -1, 0, 1,
 {X(XOR, 2, 2, 0, 0, 0)}},
{"sub %al,%al", {0x28, 0xc0}, 2, -1, 0, 1, {X(SUB, 1, 1, 0, 0, 0)}},
{"neg %al", {0xf6, 0xd8}, 2, -1, 0, 1, {X(NEG, 1, 1, 0, 0, 0)}},
{"not %ax", {0x66, 0xf7, 0xd0}, 3, -1, 0, 1, {X(NOT, 2, 2, 0, 0, 0)}},
{"shl $3,%ax", {0x66, 0xc1, 0xe0, 0x03}, 4, -1, 0, 1,
 {X(SHL, 2, 2, 0, 0, 3)}},
{"shl $9,%al (the count masked to 5 bits)", {0xc0, 0xe0, 0x09}, 3, -1, 0,
 1, {X(SHL, 1, 1, 0, 0, 9)}},
{"shr $9,%al", {0xc0, 0xe8, 0x09}, 3, -1, 0, 1, {X(SHR, 1, 1, 0, 0, 9)}},
{"sar $9,%al", {0xc0, 0xf8, 0x09}, 3, -1, 0, 1, {X(SAR, 1, 1, 0, 0, 9)}},
{"sar $17,%ax", {0x66, 0xc1, 0xf8, 0x11}, 4, -1, 0, 1,
 {X(SAR, 2, 2, 0, 0, 17)}},
{"mov %r12w,%ax", {0x66, 0x44, 0x89, 0xe0}, 4, -1, 0, 1,
 {X(MOV, 2, 2, 0, 12, 0)}},
{"movzbw %bl,%ax", {0x66, 0x0f, 0xb6, 0xc3}, 4, -1, 0, 1,
 {X(ZX, 2, 1, 0, 3, 0)}},
{"movsbw %bl,%ax", {0x66, 0x0f, 0xbe, 0xc3}, 4, -1, 0, 1,
 {X(SX, 2, 1, 0, 3, 0)}},
{"lea 0x5(%rbx),%ax", {0x66, 0x8d, 0x43, 0x05}, 4, -1, 0, 1,
 {{.op = CTRACE_EOP_LEA, .dsz = 2, .ssz = 1, .d = 0,
   .s = CTRACE_EOP_IMM, .base = 3, .arg = 5}}},
{"cmp $-3,%al; setcc %al", {0x3c, 0xfd, 0x0f, 0x90, 0xc0}, 5, 3, 1, 2,
 {X(CMP, 1, 1, 0, CTRACE_EOP_IMM, -3), X(SET, 1, 1, 0, 0, 0)}},
{"cmp $0x1234,%ax; setcc %al", {0x66, 0x3d, 0x34, 0x12, 0x0f, 0x90, 0xc0},
 7, 5, 1, 2,
 {X(CMP, 2, 2, 0, CTRACE_EOP_IMM, 0x1234), X(SET, 1, 1, 0, 0, 0)}},
{"cmp $-100,%rbx; setcc %al", {0x48, 0x83, 0xfb, 0x9c, 0x0f, 0x90, 0xc0},
 7, 5, 1, 2,
 {X(CMP, 8, 8, 3, CTRACE_EOP_IMM, -100), X(SET, 1, 1, 0, 0, 0)}},
{"test $0x80,%al; setcc %al", {0xa8, 0x80, 0x0f, 0x90, 0xc0}, 5, 3, 1, 2,
 {X(TEST, 1, 1, 0, CTRACE_EOP_IMM, 0x80), X(SET, 1, 1, 0, 0, 0)}},
{"cmp %r12,%rbx; setcc %al; movzwl %ax,%eax",
 {0x4c, 0x39, 0xe3, 0x0f, 0x90, 0xc0, 0x0f, 0xb7, 0xc0}, 9, 4, 1, 3,
 {X(CMP, 8, 8, 3, 12, 0), X(SET, 1, 1, 0, 0, 0), X(ZX, 4, 2, 0, 0, 0)}},
{"cmp %r12d,%ebx; setcc %al; neg %al; movsbq %al,%rax",
 {0x44, 0x39, 0xe3, 0x0f, 0x90, 0xc0, 0xf6, 0xd8, 0x48, 0x0f, 0xbe, 0xc0},
 12, 4, 1, 4,
 {X(CMP, 4, 4, 3, 12, 0), X(SET, 1, 1, 0, 0, 0), X(NEG, 1, 1, 0, 0, 0),
  X(SX, 8, 1, 0, 0, 0)}},
{"cmp %r12,%rbx; cmovcc %r12d,%eax (zero-extended either way)",
 {0x4c, 0x39, 0xe3, 0x41, 0x0f, 0x40, 0xc4}, 7, 5, 1, 2,
 {X(CMP, 8, 8, 3, 12, 0), X(CMOV, 4, 4, 0, 12, 0)}},
{"cmp %r12b,%bl; cmovcc %r12w,%ax (a merge)",
 {0x44, 0x38, 0xe3, 0x66, 0x41, 0x0f, 0x40, 0xc4}, 8, 6, 1, 2,
 {X(CMP, 1, 1, 3, 12, 0), X(CMOV, 2, 2, 0, 12, 0)}},
{"no comparison (cmp %rax,%rax for the CPU); setcc %al",
 {0x48, 0x39, 0xc0, 0x0f, 0x90, 0xc0}, 6, 4, 0, 1,
 {X(SET, 1, 1, 0, 0, 0)}},
{"no comparison (cmp %rax,%rax for the CPU); cmovcc %r12,%rax",
 {0x48, 0x39, 0xc0, 0x49, 0x0f, 0x40, 0xc4}, 7, 5, 0, 1,
 {X(CMOV, 8, 8, 0, 12, 0)}},
};
#undef X

static void directs_all(uint8_t *code, long page)
{
	for (size_t i = 0; i < (size_t)TAP_COUNT(directs); i++) {
		const struct direct *d = &directs[i];
		int ok = code != MAP_FAILED;
		for (unsigned cc = 0; cc < (d->cc_at >= 0 ? 16u : 1u) && ok;
		     cc++) {
			uint8_t text[32];
			memcpy(text, d->code, d->len);
			if (d->cc_at >= 0)
				text[d->cc_at] = (uint8_t)(text[d->cc_at] + cc);
			struct ctrace__plan_op ops[5] = {
				{.op = CTRACE_EOP_MOV, .dsz = 8, .ssz = 8, .d = 0,
				 .s = 13, .base = CTRACE_EOP_NO_BASE}};
			memcpy(ops + 1, d->ops, d->n * sizeof *ops);
			if (d->cc_at >= 0)
				ops[1 + d->cc_op].arg = cc;
			for (size_t k = 0; k <= d->n; k++)
				ctrace__retread_prepare(&ops[k]);
			ok = same_rax(code, page, text, d->len, ops, d->n + 1,
				      d->ops[0].dsz ? d->ops[0].dsz : 8, cc);
		}
		tap_ok(ok, "%s: as the CPU's", d->name);
	}
}

int main(void)
{
	tap_plan(2 * TAP_COUNT(rows) + 2 + 16 + TAP_COUNT(directs));
	unmasked();
	srandom(1);
	/* A page for the code the CPU runs against the interpreter. */
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *code = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	conditions_all(code, page);
	directs_all(code, page);
	if (code != MAP_FAILED)
		munmap(code, (size_t)page);
	for (size_t i = 0; i < (size_t)TAP_COUNT(rows); i++) {
		const struct row *r = &rows[i];
		struct epilogue e;
		int proved = epilogue_decode(r->code, r->len, 0, true, NULL, 0, &e) &&
			     ((e.r0 & 1) || (e.x0 & 0x0f) == 0x0f);
		if (getenv("EPILOGUE_PRINT"))
			printf("# %d %s\n", proved, r->name);
		tap_ok(proved == r->proved, "%s: %s", r->name,
		       r->proved ? "proved" : "refused");
		if (!proved) {
			tap_ok(1, "%s: nothing to run", r->name);
			continue;
		}
		/* Every register the row leaves known (as many low bytes as
		 * all of them have), and rsp kept live by MEM when rax is
		 * whole. */
		unsigned mask = CTRACE_RETVAL_NARROW, size = 8;
		const uint8_t known[4] = {e.r0, e.r1, e.x0, e.x1};
		const unsigned bit[4] = {CTRACE_RETVAL_R0, CTRACE_RETVAL_R1,
					 CTRACE_RETVAL_XMM0,
					 CTRACE_RETVAL_XMM1};
		for (int k = 0; k < 4; k++) {
			if (!(known[k] & 1))
				continue;
			mask |= bit[k];
			unsigned n = 1;
			while (n < 8 && (known[k] & (1u << n)))
				n++;
			n = n >= 8 ? 8 : n >= 4 ? 4 : n >= 2 ? 2 : 1;
			if (n < size)
				size = n;
		}
		if (e.r0 == 0xff)
			mask |= CTRACE_RETVAL_MEM;
		fflush(stdout);
		pid_t pid = fork();
		/* With MEM, rsp's operations stay; without it, the pruned
		 * list the plans of most functions carry (one move, often). */
		if (pid == 0)
			_exit(check(r, &e, mask, size) ||
			      ((mask & CTRACE_RETVAL_MEM) &&
			       check(r, &e, mask & ~CTRACE_RETVAL_MEM, size)));
		int status = 0;
		waitpid(pid, &status, 0);
		tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "%s: the plan's operations give what the CPU gives",
		       r->name);
	}
	return tap_done();
}
