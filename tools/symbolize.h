/* symbolize.h -- running ctrace-symbolize, and what the launcher learns
 * from it: the options it takes (--list-options) and the formats it
 * writes (--list-formats).  The launcher keeps no copy of either. */
#ifndef CTRACE_TOOLS_SYMBOLIZE_H
#define CTRACE_TOOLS_SYMBOLIZE_H

#include <stddef.h>

#define SYMBOLIZER "ctrace-symbolize"

enum symbolize_arg {
	SYMBOLIZE_ARG_NONE,
	SYMBOLIZE_ARG_REQUIRED,
	SYMBOLIZE_ARG_OPTIONAL, /* only as --NAME=VALUE or -XVALUE */
};

struct symbolize_option {
	const char *name; /* without "--"; NULL if it has only a letter */
	char letter; /* 0 if it has only a name */
	enum symbolize_arg arg;
	const char *help;
};

struct symbolize_format {
	const char *name;
	const char *help;
};

/* Execs ctrace-symbolize with ARGS (ARGS[0] is its name): the one
 * CTRACE_SYMBOLIZE names, else the one next to ctrace, else PATH's.
 * Returns only when none could run, having said so. */
void symbolize_exec(char **args);

/* Runs ctrace-symbolize with ARGS, its standard output read into a new
 * string (the whole of it: the callers read tables, not traces), its
 * exit status in *STATUS (128+N for signal N).  Exits 127 when it cannot
 * run. */
char *symbolize_capture(char **args, int *status);

/* What ctrace-symbolize --list-options and --list-formats print, read
 * once.  When it cannot be run, or answers what the launcher cannot
 * read, they say why and exit 127. */
const struct symbolize_option *symbolize_options(size_t *count);
const struct symbolize_format *symbolize_formats(size_t *count);

/* What ARGV[I] is on ctrace-symbolize's command line, as its
 * getopt_long() will see it. */
enum symbolize_word {
	SYMBOLIZE_OPERAND,      /* a trace */
	SYMBOLIZE_OPTION,       /* an option, with its value if any */
	SYMBOLIZE_OPTION_VALUE, /* an option whose value is ARGV[I + 1] */
	SYMBOLIZE_END,          /* "--": operands follow */
};
enum symbolize_word symbolize_word(char **argv, int i);

/* The two command lines of a comparison of sessions: ctrace-symbolize
 * --format=FORMAT with the options of ARGS (ctrace-symbolize's words
 * only) on OTHER into *base, and on ARGS' traces (trace.bin when it names
 * none) into *now, both NULL-terminated and allocated. */
void symbolize_diff_args(const char *format, const char *other, char **args,
			 char ***base, char ***now);

/* Execs ctrace-symbolize --format=FORMAT ARGV..., with trace.bin after
 * them when they name no trace.  Returns 127 when it cannot run. */
int symbolize_view(const char *format, char **argv);
/* The same with OPTION (--tui) instead of --format=FORMAT. */
int symbolize_mode(const char *option, char **argv);

#endif /* CTRACE_TOOLS_SYMBOLIZE_H */
