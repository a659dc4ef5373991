/* cmd_live.c -- ctrace live: record a program into a temporary session,
 * show its call tree (or, with --report, its time per function), and
 * remove the session unless --keep, as uftrace live does.
 *
 *   ctrace live [--report] [--keep] [RECORD-OPTION]... [--] PROGRAM [ARG]...
 *
 * Exit status: the program's, as ctrace record's; the view's when the
 * program succeeded and the view did not.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "launcher.h"
#include "record.h"
#include "symbolize.h"

static const char live_usage[] =
	"Usage: ctrace live [--report] [--keep] [RECORD-OPTION]... [--] "
	"PROGRAM [ARG]...\n"
	"Record PROGRAM into a temporary session and print its call tree.\n"
	"\n"
	"      --report             print the time per function instead\n"
	"      --keep               keep the session (its directory is named)\n"
	"  -h, --help               show this help and exit\n"
	"\n"
	"The options of ctrace record apply, but -o and -d (ctrace record\n"
	"--help).  Exit status: PROGRAM's, as ctrace record's.\n";

/* record's options that take their value in the next argument */
static int takes_value(const char *a)
{
	static const char *const with_value[] = {
		"-o", "-d", "-F", "-N", "-D", "-t", "--output", "--directory",
		"--filter", "--notrace", "--depth", "--time-filter", "--match",
		"--signal",
	};
	for (size_t i = 0; i < sizeof with_value / sizeof *with_value; i++)
		if (!strcmp(a, with_value[i]))
			return 1;
	return 0;
}

static void remove_session(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *path = must_alloc(strlen(dir) + strlen(e->d_name) + 2);
		sprintf(path, "%s/%s", dir, e->d_name);
		if (unlink(path) < 0)
			error_msg("cannot remove %s: %s", path,
				  strerror(errno));
		free(path);
	}
	if (d != NULL)
		closedir(d);
	if (rmdir(dir) < 0)
		error_msg("cannot remove %s: %s", dir, strerror(errno));
}

/* Runs ctrace-symbolize in FORMAT on DIR; returns its exit status. */
static int show(const char *format, const char *dir)
{
	char option[32];
	snprintf(option, sizeof option, "--format=%s", format);
	char *args[] = {SYMBOLIZER, option, (char *)dir, NULL};
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		error_msg("cannot run " SYMBOLIZER ": %s", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		symbolize_exec(args);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 128 + WTERMSIG(status);
}

int cmd_live(int argc, char **argv)
{
	char **rec = must_alloc((size_t)(argc + 1) * sizeof *rec);
	int n = 0, keep = 0, report = 0, i;

	rec[n++] = (char *)"ctrace";
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--") || a[0] != '-' || a[1] == '\0')
			break;
		if (!strcmp(a, "--keep")) {
			keep = 1;
		} else if (!strcmp(a, "--report")) {
			report = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(live_usage, stdout);
			exit(0);
		} else {
			rec[n++] = argv[i];
			if (takes_value(a) && i + 1 < argc)
				rec[n++] = argv[++i];
		}
	}
	for (; i < argc; i++)
		rec[n++] = argv[i];
	rec[n] = NULL;

	const char *tmp = getenv("TMPDIR");
	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	char *dir = must_alloc(strlen(tmp) + sizeof "/ctrace-live.XXXXXX");
	sprintf(dir, "%s/ctrace-live.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL) {
		error_msg("cannot create a session in %s: %s", tmp,
			  strerror(errno));
		return 2;
	}
	int status = record_run(n, rec, dir);
	int shown = show(report ? "report" : "tree", dir);
	if (keep)
		error_msg("session kept in %s", dir);
	else
		remove_session(dir);
	free(dir);
	free(rec);
	return status != 0 ? status : shown;
}
