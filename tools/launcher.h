/* launcher.h -- what the commands of the ctrace launcher share: messages
 * and allocation (launcher.c), the program record runs (program.c).  The
 * commands themselves are in commands.def, ctrace-symbolize's side in
 * symbolize.h. */
#ifndef CTRACE_TOOLS_LAUNCHER_H
#define CTRACE_TOOLS_LAUNCHER_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#define DEFAULT_TRACE "trace.bin"

/* launcher.c: messages, all "ctrace: ..." on stderr. */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The command that runs (NULL: none yet), named by usage_hint(). */
void launcher_set_command(const char *name);
/* "Try 'ctrace [COMMAND] --help' for more information." */
void usage_hint(void);
/* A mistake in the command line: exits 2 with a hint. */
void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void print_version(void) __attribute__((noreturn));
/* Exit 2 when memory runs out. */
void *must_alloc(size_t size);
void *must_realloc(void *p, size_t count, size_t size);
char *must_strdup(const char *s);

/* program.c: finding, checking and running the program. */
char *find_program(const char *name);
void check_program(const char *path, const char *shown);
int run_program(const char *path, char **argv);

/* program.c: the trace files in a directory, to tell afterwards which
 * ones a run wrote. */
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

void list_trace_files(const char *dir, const char *base,
		      struct trace_files *out);
void report_trace_files(const char *output, const char *dir, const char *base,
			const struct trace_files *before, const char *program);

#endif /* CTRACE_TOOLS_LAUNCHER_H */
