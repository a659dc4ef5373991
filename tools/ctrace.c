/* ctrace.c -- the launcher: `ctrace record' runs a program with the
 * recorder configured from the command line (record.c), and `ctrace
 * replay', `report', `graph' and `dump' hand a trace to ctrace-symbolize
 * in the right format (here).
 *
 * The recorder is configured only through its environment variables (see
 * ctrace-env(7)); this program is a front end that spells them as options,
 * checks them before anything runs, and makes the common mistakes (a
 * program not linked with the recorder, a typo in an option) fail with a
 * message rather than with an empty trace.
 *
 * Exit status: record exits with the program's status (128+N when signal N
 * killed it); the other commands with ctrace-symbolize's.  2 when ctrace
 * refuses the command line, 127 when ctrace-symbolize cannot be run.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define SYMBOLIZER "ctrace-symbolize"

/* ---------------------------------------------------------------------------
 * Messages
 * ------------------------------------------------------------------------ */

static const char usage_text[] =
	"Usage: ctrace record [OPTION]... [--] PROGRAM [ARG]...\n"
	"       ctrace replay|report|graph [SYMBOLIZER-OPTION]... [TRACE]...\n"
	"       ctrace dump [--json|--chrome|--flame-graph] [SYMBOLIZER-OPTION]..."
	" [TRACE]...\n"
	"Record the calls of a program built with ctrace, then show them.\n"
	"\n"
	"Commands:\n"
	"  record    run PROGRAM, recording its calls (into trace.bin)\n"
	"  replay    print the call tree         (ctrace-symbolize --format=tree)\n"
	"  report    print the time per function (ctrace-symbolize --format=report)\n"
	"  graph     print the call graph in dot (ctrace-symbolize --format=dot)\n"
	"  dump      print every call as JSON (default), as a Chrome trace\n"
	"            (--chrome) or as folded stacks for flame graphs (--flame-graph)\n"
	"The commands that read a trace read trace.bin unless given TRACE, and\n"
	"pass their options to ctrace-symbolize (see ctrace-symbolize --help).\n"
	"\n"
	"Options of record:\n"
	"  -o, --output=FILE        write the trace to FILE (default trace.bin);\n"
	"                           a fork()ed child writes FILE.PID\n"
	"  -F, --filter=PATTERN     trace only the functions matching PATTERN\n"
	"  -N, --notrace=PATTERN    never trace the functions matching PATTERN\n"
	"                           (-F and -N repeat; the first that matches a\n"
	"                           function decides)\n"
	"      --match=glob|regex   how patterns match names (default glob)\n"
	"  -D, --depth=DEPTH        record calls at most DEPTH levels deep\n"
	"  -t, --time-filter=TIME   record only calls lasting TIME or longer\n"
	"                           (a number and a unit: 5us, 1.5ms; ns, us, ms\n"
	"                           or s)\n"
	"      --args[=PATTERNS]    record the arguments of every function, or of\n"
	"                           those matching the comma-separated PATTERNS\n"
	"      --retval[=PATTERNS]  the same for return values\n"
	"      --signal=SIGNAL      turn recording on and off when PROGRAM gets\n"
	"                           SIGNAL (USR2, SIGUSR2 or a number)\n"
	"      --no-start           start with recording off\n"
	"      --force              run PROGRAM even if it does not look built\n"
	"                           with ctrace\n"
	"\n"
	"  -h, --help               show this help and exit\n"
	"  -V, --version            show the version and exit\n"
	"\n"
	"Exit status: record exits with PROGRAM's status (128+N if signal N\n"
	"killed it), the other commands with ctrace-symbolize's; 2 when ctrace\n"
	"refuses the command line.\n";

void error_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("ctrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ctrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'ctrace --help' for more information.\n", stderr);
	exit(2);
}

void *must_alloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (p == NULL) {
		error_msg("out of memory");
		exit(2);
	}
	return p;
}

char *must_strdup(const char *s)
{
	return strcpy(must_alloc(strlen(s) + 1), s);
}

void print_usage(FILE *f)
{
	fputs(usage_text, f);
}

void print_version(void)
{
	printf("ctrace " PACKAGE_VERSION "\n");
	exit(0);
}

/* ---------------------------------------------------------------------------
 * replay, report, graph, dump: ctrace-symbolize
 * ------------------------------------------------------------------------ */

/* ctrace-symbolize's options that take their value in the next argument
 * (keep in step with symbolizer/main.c). */
static const char *const symbolizer_value_options[] = {
	"--format",   "--output", "--thread-ids", "--demangle",
	"--search-dir", "--sort", "--weight",     "--filter",
	"--notrace",  "--hide",   "--match",      "--depth",
	"--time-filter", "--tid", "--time-range",
};
static const char symbolizer_value_letters[] = "foFNHDt";

/* Whether ARGV names a trace, so that trace.bin need not be added. */
static int has_operand(char **argv)
{
	for (int i = 0; argv[i] != NULL; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			return argv[i + 1] != NULL;
		if (a[0] != '-' || a[1] == '\0')
			return 1;
		if (a[1] == '-') {
			for (size_t k = 0; k < sizeof symbolizer_value_options /
						       sizeof *symbolizer_value_options;
			     k++)
				if (!strcmp(a, symbolizer_value_options[k]) &&
				    argv[i + 1] != NULL)
					i++;
			continue;
		}
		/* -xyz: the value of a letter that takes one is the rest,
		 * or the next argument. */
		for (const char *p = a + 1; *p; p++) {
			if (strchr(symbolizer_value_letters, *p) == NULL)
				continue;
			if (p[1] == '\0' && argv[i + 1] != NULL)
				i++;
			break;
		}
	}
	return 0;
}

/* Execs ctrace-symbolize --format=FORMAT ARGV [trace.bin]. */
static int run_symbolizer(const char *format, char **argv)
{
	int argc = 0;
	while (argv[argc] != NULL)
		argc++;
	char **args = must_alloc((argc + 4) * sizeof *args);
	char format_option[64];
	int n = 0;

	snprintf(format_option, sizeof format_option, "--format=%s", format);
	args[n++] = SYMBOLIZER;
	args[n++] = format_option;
	for (int i = 0; i < argc; i++)
		args[n++] = argv[i];
	if (!has_operand(argv))
		args[n++] = DEFAULT_TRACE;
	args[n] = NULL;
	fflush(NULL);

	/* Set by the test suite, or to use another build. */
	const char *path = getenv("CTRACE_SYMBOLIZE");
	if (path != NULL && *path != '\0') {
		execv(path, args);
		error_msg("cannot run %s: %s", path, strerror(errno));
		return 127;
	}

	/* Installed, or built, next to ctrace: the pair that belongs
	 * together comes first. */
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len > 0) {
		self[len] = '\0';
		char *slash = strrchr(self, '/');
		if (slash != NULL &&
		    (size_t)(slash - self) + sizeof "/" SYMBOLIZER <= sizeof self) {
			strcpy(slash + 1, SYMBOLIZER);
			if (access(self, X_OK) == 0)
				execv(self, args);
		}
	}
	execvp(SYMBOLIZER, args);
	error_msg("cannot run " SYMBOLIZER ": %s", strerror(errno));
	return 127;
}

static int cmd_dump(char **argv)
{
	const char *format = "json";
	int argc = 0, kept = 0, options_end = 0;

	while (argv[argc] != NULL)
		argc++;
	char **rest = must_alloc((argc + 1) * sizeof *rest);
	/* dump's own options go anywhere before "--"; the others are for
	 * ctrace-symbolize. */
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!options_end && !strcmp(a, "--chrome"))
			format = "chrome";
		else if (!options_end && !strcmp(a, "--flame-graph"))
			format = "folded";
		else if (!options_end && !strcmp(a, "--json"))
			format = "json";
		else
			rest[kept++] = argv[i];
		options_end |= !strcmp(a, "--");
	}
	rest[kept] = NULL;
	return run_symbolizer(format, rest);
}

/* ---------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	if (argc < 2)
		usage_error("no command given (record, replay, report, graph "
			    "or dump)");
	const char *cmd = argv[1];

	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		print_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version"))
		print_version();
	if (!strcmp(cmd, "record")) {
		/* getopt's messages then start with "ctrace: ". */
		argv[1] = (char *)"ctrace";
		return cmd_record(argc - 1, argv + 1);
	}
	if (!strcmp(cmd, "replay"))
		return run_symbolizer("tree", argv + 2);
	if (!strcmp(cmd, "report"))
		return run_symbolizer("report", argv + 2);
	if (!strcmp(cmd, "graph"))
		return run_symbolizer("dot", argv + 2);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argv + 2);
	usage_error("unknown command '%s' (record, replay, report, graph or "
		    "dump)",
		    cmd);
}

