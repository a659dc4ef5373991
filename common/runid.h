/* runid.h -- which run a trace belongs to (doc/format.md, "Processes"):
 * the recorder stamps it in the header, and keeps every trace of its run;
 * the launcher finds the traces of its recording, and of the last run,
 * by it.
 */
#ifndef CTRACE_COMMON_RUNID_H
#define CTRACE_COMMON_RUNID_H

#include <stdint.h>

#include "ctrace_format.h"

/* The header's run_id for a CTRACE_RUN value: FNV-1a, never 0. */
static inline uint64_t ctrace__run_hash(const char *run)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = run; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	return h ? h : 1;
}

/* Whether two headers name the same run: the same CTRACE_RUN, or without
 * one the same process group, unless both know its leader's start time
 * and they differ.  Traces of earlier releases (all zero) are of no run. */
static inline int ctrace__run_same(const struct ctrace_file_header *a,
				   const struct ctrace_file_header *b)
{
	if (a->run_id != 0 || b->run_id != 0)
		return a->run_id == b->run_id;
	if (a->run_pgid == 0 || a->run_pgid != b->run_pgid)
		return 0;
	return a->run_start == b->run_start || a->run_start == 0 ||
	       b->run_start == 0;
}

#endif /* CTRACE_COMMON_RUNID_H */
