/* program.h -- the program ctrace record runs (program.c). */
#ifndef CTRACE_TOOLS_PROGRAM_H
#define CTRACE_TOOLS_PROGRAM_H

#include <sys/types.h>
#include <time.h>

/* Finding, checking and running the program. */
char *program_find(const char *name);
void program_check(const char *path, const char *shown);
int program_run(const char *path, char **argv);

/* The trace files in a directory, to tell afterwards which ones a run
 * wrote. */
struct trace_file {
	char *name; /* in the output's directory */
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct trace_files {
	struct trace_file *files;
	size_t count;
};

void program_list_traces(const char *dir, const char *base,
			 struct trace_files *out);
void program_report_traces(const char *output, const char *dir,
			   const char *base, const struct trace_files *before,
			   const char *program);

#endif /* CTRACE_TOOLS_PROGRAM_H */
