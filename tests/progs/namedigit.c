/* namedigit.c -- two external C functions whose names differ in one
 * digit after a C, as a C++ constructor's variants do (C1, C4): clang
 * inlines both into main, and the first is left by longjmp.  The
 * second's copies are main's calls, not the first's callees (the
 * symbolizer once took the two names for one function's). */
#include <setjmp.h>
#include <stdio.h>

jmp_buf jb;
volatile int sink;

void MX_ADC1_Init(int x)
{
	sink += x;
	if (sink == 1)
		longjmp(jb, 1);
	sink++;
}

void MX_ADC4_Init(int x)
{
	sink += 2 * x;
}

int main(void)
{
	if (setjmp(jb) == 0)
		MX_ADC1_Init(1);
	MX_ADC4_Init(2);
	MX_ADC4_Init(3);
	printf("%d\n", sink);
	return 0;
}
