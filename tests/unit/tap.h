/* tap.h -- the Test Anything Protocol for the unit tests: a plan line
 * ("1..N"), then "ok N - name" or "not ok N - name" per check.  The exit
 * status is 1 when a check failed, so that any test driver sees it. */
#ifndef CTRACE_TESTS_TAP_H
#define CTRACE_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static inline void tap_plan(int n)
{
	printf("1..%d\n", n);
}

/* One check: cond true passes.  The name is a printf format. */
static inline __attribute__((format(printf, 2, 3))) int
tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

/* A note after a failed check, in TAP's comment form. */
static inline __attribute__((format(printf, 1, 2))) void
tap_diag(const char *fmt, ...)
{
	va_list ap;
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline int tap_done(void)
{
	return tap_failed != 0;
}

#define TAP_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif /* CTRACE_TESTS_TAP_H */
