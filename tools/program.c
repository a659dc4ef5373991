/* program.c -- the program ctrace record runs: finding it as execvp()
 * would, refusing it when it would record nothing, running it, and naming
 * the trace files it wrote.
 */
#define _GNU_SOURCE /* pipe2 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elfprobe.h"
#include "launcher.h"
#include "program.h"

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
		if (probe.defines_symbol)
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
 * The recorder writes OUTPUT, and OUTPUT.PID for each fork()ed child.  The
 * files that are new or changed after the run are the ones it wrote.
 * ------------------------------------------------------------------------ */

/* Whether NAME is BASE or BASE.PID. */
static int is_trace_name(const char *name, const char *base)
{
	size_t len = strlen(base);

	if (strncmp(name, base, len) != 0)
		return 0;
	if (name[len] == '\0')
		return 1;
	if (name[len] != '.' || name[len + 1] == '\0')
		return 0;
	return strspn(name + len + 1, "0123456789") == strlen(name + len + 1);
}

/* OUTPUT first, then its children's files by pid. */
static int compare_trace_files(const void *a, const void *b)
{
	const char *x = ((const struct trace_file *)a)->name;
	const char *y = ((const struct trace_file *)b)->name;
	size_t lx = strlen(x), ly = strlen(y);

	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

void program_list_traces(const char *dir, const char *base,
			 struct trace_files *out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;

	out->files = NULL;
	out->count = 0;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		if (!is_trace_name(e->d_name, base) ||
		    fstatat(dirfd(d), e->d_name, &st, 0) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (out->count == cap) {
			cap = cap ? 2 * cap : 8;
			struct trace_file *f =
				realloc(out->files, cap * sizeof *f);
			if (f == NULL)
				break;
			out->files = f;
		}
		out->files[out->count++] = (struct trace_file){
			.name = must_strdup(e->d_name),
			.ino = st.st_ino,
			.size = st.st_size,
			.mtime = st.st_mtim,
		};
	}
	closedir(d);
	if (out->count > 0)
		qsort(out->files, out->count, sizeof *out->files,
		      compare_trace_files);
}

static int is_unchanged(const struct trace_file *f,
			const struct trace_files *before)
{
	for (size_t i = 0; i < before->count; i++) {
		const struct trace_file *b = &before->files[i];
		if (!strcmp(b->name, f->name))
			return b->ino == f->ino && b->size == f->size &&
			       b->mtime.tv_sec == f->mtime.tv_sec &&
			       b->mtime.tv_nsec == f->mtime.tv_nsec;
	}
	return 0;
}

/* Prints the files written since BEFORE was listed. */
void program_report_traces(const char *output, const char *dir,
			   const char *base, const struct trace_files *before,
			   const char *program)
{
	struct trace_files after;
	int written = 0;
	const char *slash = strrchr(output, '/');
	int dir_len = slash ? (int)(slash - output) + 1 : 0;

	program_list_traces(dir, base, &after);
	for (size_t i = 0; i < after.count; i++) {
		if (is_unchanged(&after.files[i], before))
			continue;
		error_msg("trace written to %.*s%s", dir_len, output,
			  after.files[i].name);
		written = 1;
	}
	if (!written)
		error_msg("%s wrote no trace to %s (did any instrumented "
			  "function run?)",
			  program, output);
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
int program_run(const char *path, char **argv)
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

	while (waitpid(pid, &status, 0) < 0) {
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

