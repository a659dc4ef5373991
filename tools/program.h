/* program.h -- the program ctrace record runs (program.c). */
#ifndef CTRACE_TOOLS_PROGRAM_H
#define CTRACE_TOOLS_PROGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/* Finding, checking and running the program. */
char *program_find(const char *name);
void program_check(const char *path, const char *shown);
int program_run(const char *path, char **argv, pid_t *child,
		struct rusage *usage);

/* Finds the traces of the run RUN (CTRACE_RUN's hash) next to OUTPUT and
 * names them (if ANNOUNCE), one "trace written to" line each, or says
 * there is none; returns their count, their paths in *paths
 * (allocated). */
size_t program_report_traces(const char *output, uint64_t run,
			     const char *program, int announce, char ***paths);

#endif /* CTRACE_TOOLS_PROGRAM_H */
