/* testdelay.h -- the recorder's test delay, for tests/durations.sh.
 *
 * `PROGRAM delay NS` makes each of the recorder's slow paths for a new
 * pair or a new capture rule NS ns longer (ctrace__clock_test_delay_ns,
 * lib/clock.c: a weak reference, null unless linked with libctrace.a),
 * and the program prints "elapsed N", the ns its calls took in all, by
 * CLOCK_MONOTONIC: what the delays added, which no call's duration in the
 * trace may hold.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern volatile uint64_t ctrace__clock_test_delay_ns __attribute__((weak));

/* Sets the delay from argv; exits 2 on a bad command line or without the
 * recorder's variable. */
static void testdelay_set(int argc, char **argv)
{
	if (argc == 1)
		return;
	if (argc != 3 || strcmp(argv[1], "delay") != 0) {
		fprintf(stderr, "usage: %s [delay NS]\n", argv[0]);
		exit(2);
	}
	if (&ctrace__clock_test_delay_ns == NULL) {
		fprintf(stderr, "%s: not linked with libctrace.a\n", argv[0]);
		exit(2);
	}
	ctrace__clock_test_delay_ns = strtoull(argv[2], NULL, 10);
}

static uint64_t testdelay_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
