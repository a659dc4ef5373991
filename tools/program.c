/* program.c -- the program ctrace record runs: finding it as execvp()
 * would, refusing it when it would record nothing, running it, and naming
 * the trace files it wrote.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elfprobe.h"
#include "launcher.h"
#include "program.h"
#include "session.h"

/* Every program linked with the recorder defines it (lib/init.c). */
#define RECORDER_SYMBOL "ctrace_trace_path"

/* ---------------------------------------------------------------------------
 * Finding and checking the program
 * ------------------------------------------------------------------------ */

/* 0 if PATH is an executable regular file, else a negative errno. */
static int check_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0)
		return -EACCES;
	return 0;
}

/* Finds NAME the way execvp() does.  Returns the path (allocated), or
 * exits with a message. */
char *program_find(const char *name)
{
	if (strchr(name, '/') != NULL) {
		int err = check_executable(name);
		if (err < 0) {
			error_msg("%s: %s", name, strerror(-err));
			exit(2);
		}
		return must_strdup(name);
	}

	const char *path = getenv("PATH");
	if (path == NULL)
		path = "/bin:/usr/bin";
	int denied = 0;
	for (const char *dir = path;; dir++) {
		size_t len = strcspn(dir, ":");
		char *full = must_alloc(len + strlen(name) + 3);
		/* An empty entry is the current directory. */
		sprintf(full, "%.*s%s%s", (int)len, len ? dir : ".", "/", name);
		int err = check_executable(full);
		if (err == 0)
			return full;
		denied |= err == -EACCES;
		free(full);
		dir += len;
		if (*dir == '\0')
			break;
	}
	if (denied)
		error_msg("%s: %s", name, strerror(EACCES));
	else
		error_msg("%s: command not found", name);
	exit(2);
}

/* A shell: `ctrace record -- sh -c './a | ./b'` traces the programs it
 * starts, so it is run although it was not built with ctrace (a run that
 * writes no trace says so at the end). */
static int is_shell(const char *path)
{
	static const char *const shells[] = {"sh",  "bash", "dash", "zsh",
					     "ksh", "mksh", "busybox"};
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof shells / sizeof *shells; i++)
		if (strcmp(base, shells[i]) == 0)
			return 1;
	return 0;
}

/* Refuses, with the reason, a program that would record nothing. */
void program_check(const char *path, const char *shown)
{
	static const char how[] =
		"compile with -finstrument-functions and link with -lctrace "
		"(pkg-config --cflags --libs ctrace)";
	struct elfprobe probe;
	int err = elfprobe_file(path, RECORDER_SYMBOL, &probe);

	if (err < 0) {
		error_msg("%s: %s", shown, strerror(-err));
		exit(2);
	}
	switch (probe.kind) {
	case ELFPROBE_ELF:
		if (probe.defines_symbol || is_shell(path))
			return;
		if (probe.damaged) {
			error_msg("%s is damaged: its section headers or "
				  "symbols lie past the end of the file "
				  "(--force runs it anyway)",
				  shown);
			break;
		}
		error_msg("%s was not built with ctrace: %s", shown, how);
		if (!probe.has_symtab)
			error_msg("%s has no symbol table: if it was stripped "
				  "after linking with -lctrace, --force runs "
				  "it anyway",
				  shown);
		break;
	case ELFPROBE_SCRIPT:
		error_msg("%s is a script, not a program built with ctrace "
			  "(--force runs it anyway: the programs it starts "
			  "record if they were built with ctrace)",
			  shown);
		break;
	case ELFPROBE_ELF_OTHER:
		error_msg("%s is not an executable program", shown);
		break;
	case ELFPROBE_OTHER:
		error_msg("%s is not an ELF executable", shown);
		break;
	}
	exit(2);
}

/* ---------------------------------------------------------------------------
 * Trace files
 *
 * The recorder writes OUTPUT, OUTPUT.PID for each fork()ed child and
 * OUTPUT.PID.N for each program a process execs, each stamped with the
 * run (CTRACE_RUN): the files of this run are the ones it wrote.
 * ------------------------------------------------------------------------ */

size_t program_report_traces(const char *output, uint64_t run,
			     const char *program, int announce, char ***paths)
{
	const char *slash = strrchr(output, '/');
	const char *base = slash ? slash + 1 : output;
	char *dir = must_strdup(slash == NULL ? "." : output);
	if (slash != NULL)
		dir[slash == output ? 1 : slash - output] = '\0';
	int dir_len = slash ? (int)(slash - output) + 1 : 0;

	size_t n = session_run_traces(dir, base, run, paths);
	size_t skip = !strcmp(dir, ".") ? 0 : strlen(dir) + (dir[strlen(dir) - 1] != '/');
	for (size_t i = 0; announce && i < n; i++)
		error_msg("trace written to %.*s%s", dir_len, output,
			  (*paths)[i] + skip);
	if (n == 0)
		error_msg("%s wrote no trace to %s (did any instrumented "
			  "function run?)",
			  program, output);
	free(dir);
	return n;
}

/* ---------------------------------------------------------------------------
 * Running the program
 * ------------------------------------------------------------------------ */

static volatile sig_atomic_t child_pid;

/* SIGTERM and SIGHUP meant for the recording reach the program: it stops
 * the way it would without ctrace, and its trace file is complete. */
static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/* In the child: execs PATH, or a script without #! through sh as
 * execvp() does.  Returns only on failure, with errno set. */
static void exec_program(const char *path, char **argv)
{
	execv(path, argv);
	if (errno != ENOEXEC)
		return;
	int argc = 0;
	while (argv[argc] != NULL)
		argc++;
	char **sh = malloc((argc + 2) * sizeof *sh);
	if (sh == NULL)
		return;
	sh[0] = "sh";
	sh[1] = (char *)path;
	memcpy(sh + 2, argv + 1, argc * sizeof *sh); /* and the NULL */
	execv("/bin/sh", sh);
}

/* Runs PATH with ARGV like system() does, and returns its wait status.
 * The terminal's SIGINT and SIGQUIT reach the program directly; ctrace
 * waits for it to end, whatever it does with them. */
int program_run(const char *path, char **argv, pid_t *child,
		struct rusage *usage)
{
	static const int caught[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
	struct sigaction ignore = {.sa_handler = SIG_IGN};
	struct sigaction forward = {.sa_handler = forward_signal,
				    .sa_flags = SA_RESTART};
	struct sigaction saved[4];
	sigset_t block, saved_mask;
	int exec_pipe[2], status, err = 0;

	/* The child reports a failed exec through a pipe that a successful
	 * one closes: the program's own exit status stays its own. */
	if (pipe2(exec_pipe, O_CLOEXEC) < 0) {
		error_msg("cannot run %s: %s", argv[0], strerror(errno));
		exit(2);
	}
	/* Blocked until the parent's handlers are in place, so that none
	 * of these signals is lost or ends ctrace without the program. */
	sigemptyset(&block);
	for (size_t i = 0; i < 4; i++)
		sigaddset(&block, caught[i]);
	sigprocmask(SIG_BLOCK, &block, &saved_mask);
	fflush(NULL);

	pid_t pid = fork();
	if (pid < 0) {
		error_msg("cannot run %s: %s", argv[0], strerror(errno));
		exit(2);
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &saved_mask, NULL);
		close(exec_pipe[0]);
		exec_program(path, argv);
		err = errno;
		ssize_t w = write(exec_pipe[1], &err, sizeof err);
		(void)w;
		_exit(127);
	}

	child_pid = pid;
	sigaction(SIGINT, &ignore, &saved[0]);
	sigaction(SIGQUIT, &ignore, &saved[1]);
	sigaction(SIGTERM, &forward, &saved[2]);
	sigaction(SIGHUP, &forward, &saved[3]);
	sigprocmask(SIG_SETMASK, &saved_mask, NULL);

	close(exec_pipe[1]);
	ssize_t n;
	do
		n = read(exec_pipe[0], &err, sizeof err);
	while (n < 0 && errno == EINTR);
	close(exec_pipe[0]);

	*child = pid;
	memset(usage, 0, sizeof *usage);
	while (wait4(pid, &status, 0, usage) < 0) {
		if (errno != EINTR) {
			error_msg("waiting for %s: %s", argv[0],
				  strerror(errno));
			exit(2);
		}
	}
	child_pid = 0;
	for (size_t i = 0; i < 4; i++)
		sigaction(caught[i], &saved[i], NULL);
	if (n == (ssize_t)sizeof err) {
		error_msg("%s: %s", argv[0], strerror(err));
		exit(127);
	}
	return status;
}

