/* filter.h -- which calls the outputs see: -F, -N, -H, -D, -t, --tid,
 * --time-range (filter.c explains the rules).
 */
#ifndef CTRACE_SYMBOLIZER_FILTER_H
#define CTRACE_SYMBOLIZER_FILTER_H

#include "duration.h"
#include "internal.h"

struct filters *filters_new(void);
void filters_free(struct filters *f);

/* One command-line option: its getopt code ('F', 'N', 'H', 'D', 't', or
 * the long-only codes below) and its value.  Returns NULL, or a message
 * for usage_error() with one %s for the value. */
enum {
	FILTER_OPT_MATCH = 0x1000,
	FILTER_OPT_TID,
	FILTER_OPT_TIME_RANGE,
};
const char *filters_option(struct filters *f, int code, const char *value);

/* Compiles the patterns once every option is known (--match may come
 * last).  Returns NULL, or a message with one %s and sets *what. */
const char *filters_ready(struct filters *f, const char **what);

/* An output that shows `inner` only the calls the filters keep. */
struct output *filter_wrap(struct filters *f, struct output *inner);

#endif /* CTRACE_SYMBOLIZER_FILTER_H */
