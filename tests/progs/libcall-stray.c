/* libcall-stray.c -- bytes that the scan by bytes takes for a load of
 * exit's GOT slot (`and $0xf000,%eax; cmp $imm32,%eax`, the immediate
 * naming the slot from its own end, as a RIP-relative operand would), in
 * a function whose instructions are an and and a cmp: exit's slot is
 * called, never loaded, and its call is recorded.  Built -fno-plt, so
 * that the call of exit goes through that slot.  Prints the result of
 * the comparison, then exits through exit(). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int stray(int mode)
{
	int r = mode;
	/* cmp $imm32,%eax in its short form, 3d imm32 */
	__asm__("and $0xf000, %0\n\t"
		".byte 0x3d\n\t"
		".reloc ., R_X86_64_GOTPCREL, exit-4\n\t"
		".long 0\n\t"
		"sete %b0\n\t"
		"movzbl %b0, %0"
		: "+a"(r)
		:
		: "cc");
	return r;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", stray(argc));
	exit(0);
}
