/* json_header.h -- the processes in the JSON document's header. */
#ifndef CTRACE_SYMBOLIZER_JSON_HEADER_H
#define CTRACE_SYMBOLIZER_JSON_HEADER_H

#include "internal.h"

/* One process, as a JSON object (json_header.c). */
void json_put_process(struct outbuf *out, const struct trace *t,
		      const struct options *opts);

#endif /* CTRACE_SYMBOLIZER_JSON_HEADER_H */
