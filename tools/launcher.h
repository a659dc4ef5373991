/* launcher.h -- what every file of the ctrace launcher uses: messages and
 * allocation (launcher.c).  The commands are in commands.def, the program
 * record runs in program.h, ctrace-symbolize's side in symbolize.h. */
#ifndef CTRACE_TOOLS_LAUNCHER_H
#define CTRACE_TOOLS_LAUNCHER_H

#include <stddef.h>

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

#endif /* CTRACE_TOOLS_LAUNCHER_H */
