/* symbolize.c -- ctrace-symbolize as the launcher runs it: which one, what
 * its options and formats are, and the views of a trace.
 *
 * The launcher must know which of ctrace-symbolize's options take a value
 * in the next argument: in `ctrace replay --max-depth 3', 3 is not a trace,
 * and trace.bin is read.  It asks the symbolizer it runs (--list-options),
 * so that the two always agree; likewise dump's format flags come from
 * --list-formats.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"
#include "session.h"
#include "symbolize.h"

/* ---------------------------------------------------------------------------
 * Running it
 * ------------------------------------------------------------------------ */

/* Set by the test suite, or to use another build. */
static const char *symbolize_override(void)
{
	const char *path = getenv("CTRACE_SYMBOLIZE");
	return path != NULL && *path != '\0' ? path : NULL;
}

void symbolize_exec(char **args)
{
	const char *path = symbolize_override();

	fflush(NULL);
	if (path != NULL) {
		execv(path, args);
		error_msg("cannot run %s: %s", path, strerror(errno));
		return;
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
}

char *symbolize_capture(char **args, int *status)
{
	int out[2];
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (pipe2(out, O_CLOEXEC) < 0) {
		error_msg("cannot run " SYMBOLIZER ": %s", strerror(errno));
		exit(127);
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		error_msg("cannot run " SYMBOLIZER ": %s", strerror(errno));
		exit(127);
	}
	if (pid == 0) {
		if (dup2(out[1], STDOUT_FILENO) >= 0)
			symbolize_exec(args);
		_exit(127);
	}
	close(out[1]);
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 65536;
			buf = must_realloc(buf, cap, 1);
		}
		ssize_t n = read(out[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(out[0]);
	buf[len] = '\0';
	int ws;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	if (*status == 127)
		exit(127); /* it could not run, and said so */
	return buf;
}

/* The symbolizer's name in messages. */
static const char *symbolize_shown(void)
{
	const char *path = symbolize_override();
	return path != NULL ? path : SYMBOLIZER;
}

/* Runs ctrace-symbolize OPTION and returns what it printed, a string.
 * Exits 127 when it cannot run or fails. */
static char *symbolize_query(const char *option)
{
	int out[2], failed[2];

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(failed, O_CLOEXEC) < 0) {
		error_msg("cannot run " SYMBOLIZER ": %s", strerror(errno));
		exit(127);
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		error_msg("cannot run " SYMBOLIZER ": %s", strerror(errno));
		exit(127);
	}
	if (pid == 0) {
		char *args[] = {SYMBOLIZER, (char *)option, NULL};
		if (dup2(out[1], STDOUT_FILENO) >= 0)
			symbolize_exec(args);
		/* A successful exec closes FAILED without a byte. */
		ssize_t w = write(failed[1], "", 1);
		(void)w;
		_exit(127);
	}
	close(out[1]);
	close(failed[1]);

	size_t len = 0, cap = 4096;
	char *text = must_alloc(cap);
	for (;;) {
		if (len + 1 == cap)
			text = must_realloc(text, cap *= 2, 1);
		ssize_t n = read(out[0], text + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error_msg("reading what %s %s printed: %s",
				  symbolize_shown(), option, strerror(errno));
			exit(127);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	text[len] = '\0';
	close(out[0]);

	char byte;
	ssize_t n;
	do
		n = read(failed[0], &byte, 1);
	while (n < 0 && errno == EINTR);
	close(failed[0]);

	/* 0 if it cannot be known (SIGCHLD ignored): what it printed is
	 * still checked line by line. */
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n == 1)
		exit(127); /* symbolize_exec() said why */
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		error_msg("%s %s failed (%s %d): is it from another version "
			  "of ctrace?",
			  symbolize_shown(), option,
			  WIFEXITED(status) ? "exit status" : "signal",
			  WIFEXITED(status) ? WEXITSTATUS(status) :
					      WTERMSIG(status));
		exit(127);
	}
	return text;
}

/* Splits TEXT's next line at its tabs into at most MAX fields, the last
 * one taking the rest of the line.  Returns the number of fields, 0 at
 * the end; *TEXT moves to the next line. */
static int symbolize_fields(char **text, char **fields, int max)
{
	char *line = *text;
	if (*line == '\0')
		return 0;
	char *end = line + strcspn(line, "\n");
	*text = *end ? end + 1 : end;
	*end = '\0';
	int n = 0;
	fields[n++] = line;
	for (char *p = line; n < max && (p = strchr(p, '\t')) != NULL;) {
		*p++ = '\0';
		fields[n++] = p;
	}
	return n;
}

static void symbolize_bad_line(const char *option, size_t line,
			       const char *expected)
{
	error_msg("%s %s: line %zu is not %s separated by tabs: is it from "
		  "another version of ctrace?",
		  symbolize_shown(), option, line, expected);
	exit(127);
}

/* ---------------------------------------------------------------------------
 * Options and formats
 * ------------------------------------------------------------------------ */

/* Lines LONGNAME<TAB>LETTER<TAB>ARG<TAB>HELP: LONGNAME with or without
 * its "--", or "-" for none; LETTER one character or "-"; ARG none,
 * required or optional. */
const struct symbolize_option *symbolize_options(size_t *count)
{
	static const char *const args[] = {
		[SYMBOLIZE_ARG_NONE] = "none",
		[SYMBOLIZE_ARG_REQUIRED] = "required",
		[SYMBOLIZE_ARG_OPTIONAL] = "optional",
	};
	static const char what[] = "LONGNAME, LETTER, ARG and HELP";
	static struct symbolize_option *options;
	static size_t n_options;
	static int options_read;

	if (!options_read) {
		char *text = symbolize_query("--list-options"), *f[4];
		size_t line = 0;
		int n;

		while ((n = symbolize_fields(&text, f, 4)) > 0) {
			struct symbolize_option o = {0};
			size_t a;

			line++;
			if (n != 4)
				symbolize_bad_line("--list-options", line, what);
			const char *name = f[0], *letter = f[1];
			if (!strncmp(name, "--", 2))
				name += 2;
			if (strcmp(name, "-")) {
				if (*name == '\0' || *name == '-' ||
				    strpbrk(name, "= ") != NULL)
					symbolize_bad_line("--list-options",
							   line, what);
				o.name = name;
			}
			if (strcmp(letter, "-")) {
				if (strlen(letter) != 1 || *letter == ':' ||
				    *letter == ' ')
					symbolize_bad_line("--list-options",
							   line, what);
				o.letter = *letter;
			}
			for (a = 0; a < sizeof args / sizeof *args; a++)
				if (!strcmp(f[2], args[a]))
					break;
			if ((o.name == NULL && o.letter == 0) ||
			    a == sizeof args / sizeof *args)
				symbolize_bad_line("--list-options", line, what);
			o.arg = (enum symbolize_arg)a;
			o.help = f[3];
			options = must_realloc(options, n_options + 1,
					       sizeof *options);
			options[n_options++] = o;
		}
		options_read = 1;
	}
	*count = n_options;
	return options;
}

const struct symbolize_format *symbolize_formats(size_t *count)
{
	static struct symbolize_format *formats;
	static size_t n_formats;
	static int formats_read;

	if (!formats_read) {
		char *text = symbolize_query("--list-formats"), *f[2];
		size_t line = 0;
		int n;

		while ((n = symbolize_fields(&text, f, 2)) > 0) {
			line++;
			if (n != 2 || f[0][0] == '\0' ||
			    strspn(f[0], "abcdefghijklmnopqrstuvwxyz0123456789"
					 "-_") != strlen(f[0]))
				symbolize_bad_line("--list-formats", line,
						   "NAME and HELP");
			formats = must_realloc(formats, n_formats + 1,
					       sizeof *formats);
			formats[n_formats++] =
				(struct symbolize_format){f[0], f[1]};
		}
		formats_read = 1;
	}
	*count = n_formats;
	return formats;
}

/* The option a long NAME (LEN bytes, without "--") means, as
 * getopt_long() takes it: the exact name, or the only one it starts, or
 * one of several that all take their value alike.  NULL if none. */
static const struct symbolize_option *symbolize_long(const char *name,
						     size_t len)
{
	size_t count;
	const struct symbolize_option *o = symbolize_options(&count), *found;

	found = NULL;
	for (size_t i = 0; i < count; i++) {
		if (o[i].name == NULL || strncmp(o[i].name, name, len))
			continue;
		if (o[i].name[len] == '\0')
			return &o[i];
		if (found != NULL && found->arg != o[i].arg)
			return NULL; /* ambiguous: ctrace-symbolize says so */
		if (found == NULL)
			found = &o[i];
	}
	return found;
}

static const struct symbolize_option *symbolize_letter(char c)
{
	size_t count;
	const struct symbolize_option *o = symbolize_options(&count);

	for (size_t i = 0; i < count; i++)
		if (o[i].letter == c)
			return &o[i];
	return NULL;
}

enum symbolize_word symbolize_word(char **argv, int i)
{
	const char *a = argv[i];
	const struct symbolize_option *o;

	if (!strcmp(a, "--"))
		return SYMBOLIZE_END;
	if (a[0] != '-' || a[1] == '\0')
		return SYMBOLIZE_OPERAND;
	/* Last, it takes no next argument: no need to ask (running
	 * ctrace-symbolize once more costs its start-up). */
	if (argv[i + 1] == NULL)
		return SYMBOLIZE_OPTION;
	if (a[1] == '-') {
		size_t len = strcspn(a + 2, "=");
		if (a[2 + len] == '=')
			return SYMBOLIZE_OPTION;
		o = symbolize_long(a + 2, len);
		return o != NULL && o->arg == SYMBOLIZE_ARG_REQUIRED ?
			       SYMBOLIZE_OPTION_VALUE :
			       SYMBOLIZE_OPTION;
	}
	/* -xyz: the value of a letter that takes one is the rest, or (if
	 * it is required) the next argument.  ctrace-symbolize complains
	 * of a letter it does not know and goes on. */
	for (const char *p = a + 1; *p; p++) {
		o = symbolize_letter(*p);
		if (o == NULL || o->arg == SYMBOLIZE_ARG_NONE)
			continue;
		return p[1] == '\0' && o->arg == SYMBOLIZE_ARG_REQUIRED ?
			       SYMBOLIZE_OPTION_VALUE :
			       SYMBOLIZE_OPTION;
	}
	return SYMBOLIZE_OPTION;
}

/* ---------------------------------------------------------------------------
 * Views
 * ------------------------------------------------------------------------ */

/* Whether ARGV names a trace, so that the last run's need not be added. */
static int symbolize_has_operand(char **argv)
{
	for (int i = 0; argv[i] != NULL; i++) {
		switch (symbolize_word(argv, i)) {
		case SYMBOLIZE_OPERAND:
			return 1;
		case SYMBOLIZE_END:
			return argv[i + 1] != NULL;
		case SYMBOLIZE_OPTION_VALUE:
			i++;
			break;
		case SYMBOLIZE_OPTION:
			break;
		}
	}
	return 0;
}

int symbolize_view(const char *format, char **argv)
{
	char *format_option = must_alloc(strlen(format) + sizeof "--format=");

	sprintf(format_option, "--format=%s", format);
	return symbolize_mode(format_option, argv);
}

int symbolize_mode(const char *option, char **argv)
{
	int argc = 0;
	while (argv[argc] != NULL)
		argc++;
	char **session = symbolize_has_operand(argv) ? NULL : session_default();
	int traces = 0;
	while (session != NULL && session[traces] != NULL)
		traces++;
	char **args = must_alloc((argc + traces + 4) * sizeof *args);
	int n = 0;

	args[n++] = SYMBOLIZER;
	args[n++] = (char *)option;
	for (int i = 0; i < argc; i++)
		args[n++] = argv[i];
	/* None named: the last run's (session.c) */
	for (int i = 0; i < traces; i++)
		args[n++] = session[i];
	args[n] = NULL;
	symbolize_exec(args);
	return 127;
}

void symbolize_diff_args(const char *format, const char *other, char **args,
			 char ***base_out, char ***now_out)
{
	int argc = 0, nb = 0, nn = 0;
	bool operands = false, end = false;

	while (args[argc])
		argc++;
	char **base = must_alloc((size_t)(argc + 5) * sizeof *base);
	char **now = must_alloc((size_t)(argc + 5) * sizeof *now);
	char *format_option = must_alloc(strlen(format) + 10);
	sprintf(format_option, "--format=%s", format);
	base[nb++] = now[nn++] = SYMBOLIZER;
	base[nb++] = now[nn++] = format_option;
	for (int i = 0; i < argc; i++) {
		enum symbolize_word w = end ? SYMBOLIZE_OPERAND
					    : symbolize_word(args, i);
		if (w == SYMBOLIZE_END) {
			end = true;
			now[nn++] = base[nb++] = args[i];
		} else if (w == SYMBOLIZE_OPERAND) {
			operands = true;
			now[nn++] = args[i];
		} else {
			now[nn++] = base[nb++] = args[i];
			if (w == SYMBOLIZE_OPTION_VALUE) {
				i++;
				now[nn++] = base[nb++] = args[i];
			}
		}
	}
	if (!end)
		base[nb++] = "--";
	base[nb++] = (char *)other;
	if (!operands) {
		if (!end)
			now[nn++] = "--";
		now[nn++] = DEFAULT_TRACE;
	}
	base[nb] = now[nn] = NULL;
	*base_out = base;
	*now_out = now;
}
