/* duration.c -- parsing durations (duration.h gives the grammar).
 *
 * Integer arithmetic only: "0.1s" is exactly 100000000 ns, and what is
 * accepted does not depend on the C library's float parsing (hexadecimal
 * floats, "inf", locales).
 */
#include "duration.h"

#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* n = n * 10 + d within CTRACE_DURATION_MAX; -1 on overflow. */
static int push_digit(uint64_t *n, unsigned d)
{
	if (*n > (CTRACE_DURATION_MAX - d) / 10)
		return -1;
	*n = *n * 10 + d;
	return 0;
}

int ctrace__parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
	};
	const char *p = s, *frac = NULL, *unit;
	size_t nfrac = 0;

	if (!is_digit(*p))
		return CTRACE_DURATION_NOT_A_NUMBER;
	while (is_digit(*p))
		p++;
	if (*p == '.') {
		frac = ++p;
		while (is_digit(*p))
			p++;
		nfrac = (size_t)(p - frac);
		if (nfrac == 0)
			return CTRACE_DURATION_NOT_A_NUMBER;
	}
	unit = p;
	if (*unit == '\0') {
		if (p - s == 1 && *s == '0')
			return *ns = 0, 0;
		return CTRACE_DURATION_NO_UNIT;
	}
	uint64_t scale = 0;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(unit, units[i].name))
			scale = units[i].ns;
	if (scale == 0)
		return CTRACE_DURATION_BAD_UNIT;

	/* The whole part, then each fraction digit at its weight; the
	 * first digit below a nanosecond rounds. */
	uint64_t whole = 0, v;
	for (const char *d = s; is_digit(*d); d++)
		if (push_digit(&whole, (unsigned)(*d - '0')) < 0)
			return CTRACE_DURATION_TOO_LARGE;
	if (whole > CTRACE_DURATION_MAX / scale)
		return CTRACE_DURATION_TOO_LARGE;
	v = whole * scale;
	uint64_t weight = scale;
	for (size_t i = 0; i < nfrac; i++) {
		unsigned d = (unsigned)(frac[i] - '0');
		weight /= 10;
		if (weight == 0) {
			v += d >= 5;
			break;
		}
		v += d * weight;
	}
	if (v > CTRACE_DURATION_MAX)
		return CTRACE_DURATION_TOO_LARGE;
	*ns = v;
	return 0;
}

const char *ctrace__duration_error(int err)
{
	switch (err) {
	case CTRACE_DURATION_NO_UNIT:
		return "missing unit";
	case CTRACE_DURATION_BAD_UNIT:
		return "unknown unit";
	case CTRACE_DURATION_TOO_LARGE:
		return "too large";
	default:
		return "not a number";
	}
}
