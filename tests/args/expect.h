/* expect.h -- the oracle line of the argument tests' programs.
 *
 * One line per call: "C<TAB>function", then "<TAB>name=text" per argument
 * and "<TAB>=text" for the return value, printed by the program itself at
 * the call site; tests/args/check.py compares each with what
 * ctrace-symbolize shows. */
#ifndef CTRACE_TESTS_ARGS_EXPECT_H
#define CTRACE_TESTS_ARGS_EXPECT_H

#include <stdarg.h>
#include <stdio.h>

static void expect(const char *fn, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void expect(const char *fn, const char *fmt, ...)
{
	va_list ap;
	printf("C\t%s\t", fn);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#endif
