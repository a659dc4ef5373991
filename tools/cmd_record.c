/* cmd_record.c -- ctrace record: the options, checked, become the
 * recorder's environment variables; then the program runs (program.c).
 *
 * The recorder is configured only through its environment variables (see
 * ctrace-env(7)); this command is a front end that spells them as options,
 * checks them before anything runs, and makes the common mistakes (a
 * program not linked with the recorder, a typo in an option) fail with a
 * message rather than with an empty trace.
 *
 * Exit status: the program's (128+N when signal N killed it); 2 when
 * ctrace refuses the command line or the program (not found, not built
 * with ctrace), 127 when the program's exec fails (program.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "duration.h"
#include "launcher.h"
#include "program.h"
#include "record.h"
#include "runid.h"
#include "session.h"
#include "signame.h"
#include "symbolize.h"

static const char record_usage[] =
	"Usage: ctrace record [OPTION]... [--] PROGRAM [ARG]...\n"
	"Run PROGRAM, built with ctrace, recording its calls.\n"
	"\n"
	"  -o, --output=FILE        write the trace to FILE (default trace.bin);\n"
	"                           every other process of the run writes\n"
	"                           FILE.PID (FILE.PID.N after an exec)\n"
	"  -d, --directory=DIR      record the session into directory DIR\n"
	"                           (DIR/trace.bin...), created if needed and\n"
	"                           emptied of an earlier session's traces\n"
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
	"      --no-libcall         do not record library calls (calls through\n"
	"                           the PLT into libc and other libraries)\n"
	"      --nest-libcall       record the calls libraries make to other\n"
	"                           libraries too\n"
	"      --force              run PROGRAM even if it does not look built\n"
	"                           with ctrace\n"
	"  -h, --help               show this help and exit\n"
	"  -V, --version            show the version and exit\n"
	"\n"
	"Exit status: PROGRAM's (128+N if signal N killed it); 2 when ctrace\n"
	"refuses the command line or PROGRAM, 127 when PROGRAM cannot be run.\n";

/* ---------------------------------------------------------------------------
 * Lists
 * ------------------------------------------------------------------------ */

/* Returns "A,B": frees A. */
static char *join_list(char *a, const char *b)
{
	if (a == NULL)
		return must_strdup(b);
	char *r = must_alloc(strlen(a) + strlen(b) + 2);
	sprintf(r, "%s,%s", a, b);
	free(a);
	return r;
}

/* Whether the comma-separated LIST holds "all". */
static int list_has_all(const char *list)
{
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		if (len == 3 && !strncmp(p, "all", 3))
			return 1;
		p += len;
		if (*p == '\0')
			return 0;
	}
}

/* ---------------------------------------------------------------------------
 * Checking option values
 *
 * The recorder reads its variables in a process that is already running
 * and can only warn about a bad value; here a bad value stops everything
 * before the program starts.
 * ------------------------------------------------------------------------ */

/* Parses a whole decimal number in [lo, hi], or returns -1. */
static long parse_number(const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno || v < lo || v > hi)
		return -1;
	return v;
}

/* The recorder names a fork()ed child's file OUTPUT.PID: OUTPUT must name
 * a file, not a directory. */
static void check_output(const char *s)
{
	size_t len = strlen(s);
	if (len == 0)
		usage_error("empty output file name");
	if (s[len - 1] == '/' || !strcmp(s, ".") || !strcmp(s, "..") ||
	    (len >= 2 && !strcmp(s + len - 2, "/.")) ||
	    (len >= 3 && !strcmp(s + len - 3, "/..")))
		usage_error("invalid output file name '%s': a directory", s);
}

static void check_depth(const char *s)
{
	if (parse_number(s, 1, INT_MAX) < 0)
		usage_error("invalid depth '%s': expected a positive integer", s);
}

/* A duration (common/duration.h): the recorder takes the same
 * spelling, so the value is passed on as given. */
static void check_time(const char *s)
{
	uint64_t ns;
	int err = ctrace__parse_duration(s, &ns);

	if (err == CTRACE_DURATION_NOT_A_NUMBER)
		usage_error("invalid time '%s': expected a number and a unit "
			    "(5us, 2ms; ns, us, ms or s)",
			    s);
	if (err < 0)
		usage_error("invalid time '%s': %s (ns, us, ms or s)", s,
			    ctrace__duration_error(err));
	if (ns == 0)
		usage_error("invalid time '%s': must be more than zero", s);
}

/* Returns the number of the signal named S (common/signame.h): "USR2",
 * "SIGUSR2", "12", "RTMIN+2", "SIGRTMAX-1". */
static int check_signal(const char *s)
{
	int n = ctrace__signal_number(s);

	if (n < 0)
		usage_error("invalid signal '%s': expected a name (USR2, "
			    "SIGUSR2) or a number",
			    s);
	if (n == SIGKILL || n == SIGSTOP)
		usage_error("invalid signal '%s': it cannot be caught", s);
	if (n == SIGSEGV || n == SIGBUS || n == SIGFPE || n == SIGILL ||
	    n == SIGTRAP || n == SIGSYS)
		usage_error("invalid signal '%s': it reports a fault (a "
			    "crashing program would loop on it)",
			    s);
	return n;
}

/* Whether the recorder, which splits its lists at the commas outside
 * <>, (), [] and {}, would cut pat. */
static int splits(const char *pat)
{
	int depth = 0;
	for (const char *c = pat; *c; c++) {
		if (*c == '<' || *c == '(' || *c == '[' || *c == '{')
			depth++;
		else if ((*c == '>' || *c == ')' || *c == ']' || *c == '}') &&
			 depth > 0)
			depth--;
		else if (*c == ',' && depth == 0)
			return 1;
	}
	return 0;
}

/* A pattern must reach the recorder whole (`ns::pick<int, char>` does);
 * a leading `!' would turn an -F pattern into an -N one. */
static void check_pattern(const char *pat, int include, int regex)
{
	if (*pat == '\0')
		usage_error("empty pattern");
	if (splits(pat))
		usage_error("invalid pattern '%s': patterns cannot contain a "
			    "comma outside <>, (), [] or {} (give one pattern "
			    "per -F or -N)",
			    pat);
	if (include && *pat == '!')
		usage_error("invalid pattern '%s': patterns cannot start with "
			    "'!' (use -N to exclude)",
			    pat);
	if (regex) {
		regex_t re;
		int err = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB);
		if (err != 0) {
			char why[256];
			regerror(err, &re, why, sizeof why);
			usage_error("invalid regular expression '%s': %s", pat,
				    why);
		}
		regfree(&re);
	}
}

/* ---------------------------------------------------------------------------
 * ctrace record
 * ------------------------------------------------------------------------ */

enum {
	OPT_MATCH = 256,
	OPT_ARGS,
	OPT_RETVAL,
	OPT_SIGNAL,
	OPT_NO_START,
	OPT_FORCE,
	OPT_NO_LIBCALL,
	OPT_NEST_LIBCALL,
};

static const struct option record_options[] = {
	{"output", required_argument, NULL, 'o'},
	{"directory", required_argument, NULL, 'd'},
	{"filter", required_argument, NULL, 'F'},
	{"notrace", required_argument, NULL, 'N'},
	{"match", required_argument, NULL, OPT_MATCH},
	{"depth", required_argument, NULL, 'D'},
	{"time-filter", required_argument, NULL, 't'},
	{"args", optional_argument, NULL, OPT_ARGS},
	{"retval", optional_argument, NULL, OPT_RETVAL},
	{"signal", required_argument, NULL, OPT_SIGNAL},
	{"no-start", no_argument, NULL, OPT_NO_START},
	{"no-libcall", no_argument, NULL, OPT_NO_LIBCALL},
	{"nest-libcall", no_argument, NULL, OPT_NEST_LIBCALL},
	{"force", no_argument, NULL, OPT_FORCE},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

/* The variables record sets from its options.  Those whose option is not
 * given are removed, so that a recording depends on the command line
 * only, not on what the shell happens to export. */
static const char *const record_variables[] = {
	"CTRACE",	 "CTRACE_OUTPUT", "CTRACE_FILTER",
	"CTRACE_MATCH",	 "CTRACE_DEPTH",  "CTRACE_MIN_DURATION",
	"CTRACE_ARGS",	 "CTRACE_RETVAL", "CTRACE_SIGNAL",
	"CTRACE_START",	 "CTRACE_PLAN",	  "CTRACE_RUN",
};

/* What the command line asks for, as the recorder's variables spell it
 * (NULL: not set). */
struct recording {
	const char *output;
	const char *directory; /* -d: the session's directory */
	char *filter;
	const char *match;
	const char *depth;
	const char *min_duration;
	char *args;
	char *retval;
	char signal[16];
	int no_start;
	int force;
	const char *libcall;
};

/* Parses and checks record's options; returns the index of PROGRAM. */
static int parse_options(int argc, char **argv, struct recording *r)
{
	int regex = 0, c;

	/* Patterns are checked once --match is known. */
	struct {
		const char *text;
		int exclude;
	} *patterns = must_alloc(argc * sizeof *patterns);
	int n_patterns = 0;

	/* "+": PROGRAM's own options are not ctrace's. */
	while ((c = getopt_long(argc, argv, "+o:d:F:N:D:t:hV", record_options,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			check_output(optarg);
			r->output = optarg;
			r->directory = NULL;
			break;
		case 'd':
			if (*optarg == '\0')
				usage_error("empty directory name");
			r->directory = optarg;
			break;
		case 'F':
		case 'N':
			patterns[n_patterns].text = optarg;
			patterns[n_patterns++].exclude = c == 'N';
			break;
		case OPT_MATCH:
			if (strcmp(optarg, "glob") && strcmp(optarg, "regex"))
				usage_error("invalid --match '%s': expected "
					    "glob or regex",
					    optarg);
			r->match = optarg;
			regex = !strcmp(optarg, "regex");
			break;
		case 'D':
			check_depth(optarg);
			r->depth = optarg;
			break;
		case 't':
			check_time(optarg);
			r->min_duration = optarg;
			break;
		case OPT_ARGS:
		case OPT_RETVAL: {
			char **list = c == OPT_ARGS ? &r->args : &r->retval;
			if (optarg != NULL && *optarg == '\0')
				usage_error("empty --%s pattern list",
					    c == OPT_ARGS ? "args" : "retval");
			*list = join_list(*list, optarg ? optarg : "all");
			break;
		}
		case OPT_SIGNAL:
			snprintf(r->signal, sizeof r->signal, "%d",
				 check_signal(optarg));
			break;
		case OPT_NO_START:
			r->no_start = 1;
			break;
		case OPT_NO_LIBCALL:
			r->libcall = "off";
			break;
		case OPT_NEST_LIBCALL:
			r->libcall = "nest";
			break;
		case OPT_FORCE:
			r->force = 1;
			break;
		case 'h':
			fputs(record_usage, stdout);
			exit(0);
		case 'V':
			print_version();
		default:
			usage_hint();
			exit(2);
		}
	}
	if (optind >= argc)
		usage_error("record: no program given");

	/* In the order given, as the first that matches decides; "!"
	 * marks an exclusion. */
	for (int i = 0; i < n_patterns; i++) {
		const char *pat = patterns[i].text;
		check_pattern(pat, !patterns[i].exclude, regex);
		if (patterns[i].exclude) {
			char *bang = must_alloc(strlen(pat) + 2);
			sprintf(bang, "!%s", pat);
			r->filter = join_list(r->filter, bang);
			free(bang);
		} else {
			r->filter = join_list(r->filter, pat);
		}
	}
	free(patterns);
	/* "all" covers every other pattern. */
	if (r->args != NULL && list_has_all(r->args))
		strcpy(r->args, "all");
	if (r->retval != NULL && list_has_all(r->retval))
		strcpy(r->retval, "all");
	return optind;
}

static void set_variable(const char *name, const char *value)
{
	if (value != NULL && setenv(name, value, 1) < 0) {
		error_msg("cannot set %s: %s", name, strerror(errno));
		exit(2);
	}
}

static void set_environment(const struct recording *r)
{
	for (size_t i = 0;
	     i < sizeof record_variables / sizeof *record_variables; i++)
		unsetenv(record_variables[i]);
	set_variable("CTRACE_OUTPUT", r->output);
	set_variable("CTRACE_FILTER", r->filter);
	set_variable("CTRACE_MATCH", r->match);
	set_variable("CTRACE_DEPTH", r->depth);
	set_variable("CTRACE_MIN_DURATION", r->min_duration);
	set_variable("CTRACE_ARGS", r->args);
	set_variable("CTRACE_RETVAL", r->retval);
	set_variable("CTRACE_SIGNAL", *r->signal ? r->signal : NULL);
	set_variable("CTRACE_START", r->no_start ? "off" : NULL);
	/* Kept from the environment unless an option says (a test suite
	 * runs with library calls off). */
	set_variable("CTRACE_LIBCALL", r->libcall);
}

/* A name for this run, unique on the machine: every trace the program and
 * its descendants write carries it (doc/format.md), so none replaces
 * another, and the run's traces are told from earlier ones. */
static uint64_t name_run(void)
{
	struct timespec t;
	char run[64];

	clock_gettime(CLOCK_REALTIME, &t);
	snprintf(run, sizeof run, "record-%ld-%lld.%09ld", (long)getpid(),
		 (long long)t.tv_sec, t.tv_nsec);
	set_variable("CTRACE_RUN", run);
	return ctrace__run_hash(run);
}

/* ---------------------------------------------------------------------------
 * The capture plan
 *
 * With --args, ctrace-symbolize --make-plan reads the program's DWARF and
 * tells the recorder what each function's arguments need (CTRACE_PLAN):
 * far less copying, and the text of string arguments.  It is made for
 * each recording, in a temporary file removed afterwards.
 * ------------------------------------------------------------------------ */

/* Returns the plan's file name (to remove), or NULL without a plan. */
static char *make_plan(const char *program)
{
	const char *tmp = getenv("TMPDIR");
	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	char *file = must_alloc(strlen(tmp) + sizeof "/ctrace-plan.XXXXXX");
	sprintf(file, "%s/ctrace-plan.XXXXXX", tmp);
	int fd = mkstemp(file);
	if (fd < 0) {
		error_msg("cannot create a capture plan in %s: %s; string "
			  "arguments will show as addresses",
			  tmp, strerror(errno));
		free(file);
		return NULL;
	}
	close(fd);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		char *args[] = {SYMBOLIZER, "--make-plan", "-o", file,
				(char *)program, NULL};
		symbolize_exec(args);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		error_msg("no capture plan for %s: string arguments will show "
			  "as addresses",
			  program);
		unlink(file);
		free(file);
		return NULL;
	}
	set_variable("CTRACE_PLAN", file);
	return file;
}

int cmd_record(int argc, char **argv)
{
	return record_run(argc, argv, NULL);
}

int record_run(int argc, char **argv, const char *session)
{
	struct recording r = {.output = DEFAULT_TRACE};

	/* getopt's messages then start with "ctrace: ". */
	argv[0] = (char *)"ctrace";
	char **program_argv = argv + parse_options(argc, argv, &r);

	char *path = program_find(program_argv[0]);
	if (!r.force)
		program_check(path, strchr(program_argv[0], '/') ?
					    program_argv[0] :
					    path);
	if (session != NULL && (r.directory != NULL ||
				strcmp(r.output, DEFAULT_TRACE) != 0))
		usage_error("live records into a session of its own: no -o "
			    "or -d");
	if (session != NULL)
		r.directory = session;
	if (r.directory != NULL)
		r.output = session_directory(r.directory);
	set_environment(&r);
	uint64_t run = name_run();
	char *plan = r.args != NULL ? make_plan(path) : NULL;

	pid_t child;
	struct rusage usage;
	int status = program_run(path, program_argv, &child, &usage);
	if (plan != NULL) {
		unlink(plan);
		free(plan);
	}
	int exit_status;
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		error_msg("%s terminated by signal %d (%s)%s", program_argv[0],
			  sig, strsignal(sig),
			  WCOREDUMP(status) ? ", core dumped" : "");
		exit_status = 128 + sig;
	} else {
		exit_status = WEXITSTATUS(status);
	}
	char **traces;
	size_t n = program_report_traces(r.output, run, program_argv[0],
					 session == NULL, &traces);
	session_store_wait(traces, n, child, status, &usage);
	for (size_t i = 0; i < n; i++)
		free(traces[i]);
	free(traces);
	return exit_status;
}
