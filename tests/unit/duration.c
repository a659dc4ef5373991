/* duration.c -- every spelling of a duration that doc/recording.md and the tests
 * accept, and the ones they refuse (common/duration.c). */
#include <stdint.h>
#include <string.h>

#include "duration.h"
#include "tap.h"

static const struct {
	const char *s;
	uint64_t ns;
} good[] = {
	{"0", 0},
	{"0ns", 0},
	{"0us", 0},
	{"1ns", 1},
	{"300ns", 300},
	{"500ns", 500},
	{"5us", 5000},
	{"1ms", 1000000},
	{"2ms", 2000000},
	{"1.5ms", 1500000},
	{"1s", 1000000000},
	{"3600s", 3600000000000ull},
	{"10ms", 10000000},
	{"20ms", 20000000},
	{"0.1s", 100000000},
	{"0.000000001s", 1},
	{"1.5ns", 2},  /* below a nanosecond: to the nearest */
	{"1.49ns", 1},
	{"0.0000000015s", 2},
	{"007us", 7000},
	{"9223372036854775807ns", 9223372036854775807ull},
	{"9223372036.854775807s", 9223372036854775807ull},
};

static const struct {
	const char *s;
	int err;
} bad[] = {
	{"", CTRACE_DURATION_NOT_A_NUMBER},
	{"abc", CTRACE_DURATION_NOT_A_NUMBER},
	{"us", CTRACE_DURATION_NOT_A_NUMBER},
	{"-1us", CTRACE_DURATION_NOT_A_NUMBER},
	{"+1us", CTRACE_DURATION_NOT_A_NUMBER},
	{" 5us", CTRACE_DURATION_NOT_A_NUMBER},
	{".5ms", CTRACE_DURATION_NOT_A_NUMBER},
	{"5.ms", CTRACE_DURATION_NOT_A_NUMBER},
	{"5", CTRACE_DURATION_NO_UNIT},
	{"300", CTRACE_DURATION_NO_UNIT},
	{"00", CTRACE_DURATION_NO_UNIT},
	{"1.5", CTRACE_DURATION_NO_UNIT},
	{"5xs", CTRACE_DURATION_BAD_UNIT},
	{"5parsecs", CTRACE_DURATION_BAD_UNIT},
	{"5 us", CTRACE_DURATION_BAD_UNIT},
	{"5us ", CTRACE_DURATION_BAD_UNIT},
	{"5US", CTRACE_DURATION_BAD_UNIT},
	{"5m", CTRACE_DURATION_BAD_UNIT},
	{"1e3us", CTRACE_DURATION_BAD_UNIT},
	{"0x10us", CTRACE_DURATION_BAD_UNIT},
	{"5ms~", CTRACE_DURATION_BAD_UNIT},
	{"9223372036854775808ns", CTRACE_DURATION_TOO_LARGE},
	{"9223372037s", CTRACE_DURATION_TOO_LARGE},
	{"99999999999999999999999s", CTRACE_DURATION_TOO_LARGE},
};

int main(void)
{
	tap_plan(TAP_COUNT(good) + TAP_COUNT(bad) + 1);
	for (int i = 0; i < TAP_COUNT(good); i++) {
		uint64_t ns = 12345;
		int err = ctrace__parse_duration(good[i].s, &ns);
		if (!tap_ok(err == 0 && ns == good[i].ns, "accepts '%s' as %llu ns",
			    good[i].s, (unsigned long long)good[i].ns))
			tap_diag("got %d, %llu ns", err, (unsigned long long)ns);
	}
	for (int i = 0; i < TAP_COUNT(bad); i++) {
		uint64_t ns = 12345;
		int err = ctrace__parse_duration(bad[i].s, &ns);
		if (!tap_ok(err == bad[i].err && ns == 12345,
			    "refuses '%s' (%s)", bad[i].s,
			    ctrace__duration_error(bad[i].err)))
			tap_diag("got %d, %llu ns", err, (unsigned long long)ns);
	}
	tap_ok(!strcmp(ctrace__duration_error(CTRACE_DURATION_NO_UNIT),
		       "missing unit") &&
		       !strcmp(ctrace__duration_error(CTRACE_DURATION_BAD_UNIT),
			       "unknown unit"),
	       "error words the launcher's messages use");
	return tap_done();
}
