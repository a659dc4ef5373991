/* duration.h -- the one spelling of a duration, for every program.
 *
 *   DURATION = "0" | DIGITS [ "." DIGITS ] UNIT
 *   UNIT     = "ns" | "us" | "ms" | "s"
 *
 * `500ns`, `5us`, `1.5ms`, `2s`, `0` (no unit needed for nothing).  The
 * unit is required otherwise: uftrace users expect microseconds where the
 * recorder counts nanoseconds, and a bare number would mean either.  No
 * sign, no space, no exponent; fractions below a nanosecond are rounded to
 * the nearest; at most CTRACE_DURATION_MAX nanoseconds (292 years).
 * CTRACE_MIN_DURATION, `ctrace record -t` and the symbolizer's `-t` and
 * `--time-range` all take this.
 */
#ifndef CTRACE_COMMON_DURATION_H
#define CTRACE_COMMON_DURATION_H

#include <stdint.h>

#include "common.h"

#define CTRACE_DURATION_MAX ((uint64_t)INT64_MAX)

enum ctrace_duration_error {
	CTRACE_DURATION_NOT_A_NUMBER = -1, /* no digit first, or "5." */
	CTRACE_DURATION_NO_UNIT = -2,      /* "5" */
	CTRACE_DURATION_BAD_UNIT = -3,     /* "5xs", "5 us" */
	CTRACE_DURATION_TOO_LARGE = -4,    /* over CTRACE_DURATION_MAX */
};

/* Parses s (the whole string) into *ns.  Returns 0, or a negative
 * enum ctrace_duration_error, leaving *ns alone. */
CTRACE_COMMON_API int ctrace__parse_duration(const char *s, uint64_t *ns);

/* The words for an error code, for messages: "missing unit", ... */
CTRACE_COMMON_API const char *ctrace__duration_error(int err);

#endif /* CTRACE_COMMON_DURATION_H */
