/* outfile.c -- the file named by -o, written so that no run destroys data.
 *
 * An output that is one of the inputs (same device and inode, whatever
 * the names) is refused before anything is opened for writing: opening it
 * with O_TRUNC would empty the trace before it is read.
 *
 * A regular file (or a name that does not exist yet) is written as a
 * temporary file in the same directory, renamed over the name at the end
 * of a run that wrote everything: a run that fails, is interrupted or
 * runs out of memory leaves the old file as it was and no half-written
 * one (an existing file in a directory we may not write to is written in
 * place).  Anything else -- a terminal, a pipe, /dev/null, a symbolic link
 * such as /dev/stdout -- is written in place, as it is: renaming over it
 * would replace the link, not write where it points.
 *
 * Outputs get the care traces get: in a directory another user can write
 * to (/tmp), an entry that user planted -- a symbolic link to a file of
 * ours, a FIFO that would block the open -- is refused, not followed, and
 * a symbolic link is followed only when it is ours (or root's) in a sticky
 * directory of ours (or root's), where nobody else can replace it; the
 * open in place then takes O_NOFOLLOW, so that a link put there between
 * the check and the open is not followed either.  A new name goes through
 * a temporary file created with O_EXCL and renamed over the name, which
 * replaces whatever appeared there without following it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

/* The temporary file to remove if the program ends before the rename. */
static char *volatile pending;

static void remove_pending(void)
{
	char *p = pending;

	if (p != NULL) {
		pending = NULL;
		unlink(p);
	}
}

static void on_signal(int sig)
{
	remove_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void remove_on_exit(char *tmp)
{
	static const int signals[] = {SIGHUP, SIGINT, SIGPIPE, SIGTERM,
				      SIGXFSZ};
	static bool installed;

	pending = tmp;
	if (installed)
		return;
	installed = true;
	atexit(remove_pending);
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		/* a signal ignored by whoever started us stays ignored */
		if (sigaction(signals[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_DFL)
			sigaction(signals[i], &sa, NULL);
	}
}

static bool owned_by_us(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/* Whether someone else than the owner and the user's group can add or
 * replace entries in the directory of path (the directory is followed:
 * only its last entry is ours to judge here); sets *trusted_sticky when
 * it is sticky and ours or root's, where nobody else replaces our
 * entries. */
static bool dir_writable_by_others(const char *path, bool *trusted_sticky)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	struct stat st;
	bool others;

	*trusted_sticky = false;
	size_t len = slash == NULL ? 0 : slash == path ? 1
						    : (size_t)(slash - path);
	dir = must_malloc(len + 2);
	if (len == 0)
		strcpy(dir, ".");
	else {
		memcpy(dir, path, len);
		dir[len] = '\0';
	}
	if (stat(dir, &st) < 0) {
		free(dir);
		return false; /* the open says why */
	}
	free(dir);
	others = (st.st_mode & S_IWOTH) ||
		 ((st.st_mode & S_IWGRP) && st.st_gid != getegid());
	*trusted_sticky = others && (st.st_mode & S_ISVTX) && owned_by_us(&st);
	return others;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The input that `st` is, or NULL. */
static const char *input_named(const struct stat *st, char *const *inputs,
			       size_t n_inputs)
{
	for (size_t i = 0; i < n_inputs; i++) {
		struct stat in;
		if (stat(inputs[i], &in) == 0 && same_file(st, &in))
			return inputs[i];
	}
	return NULL;
}

static int refuse_input(const char *path, const char *input)
{
	warn_msg(0, "%s: is the input %s; choose another output file", path,
		 input);
	return -1;
}

/* A new file beside `path`: DIR/.NAME.XXXXXX, with the mode a file
 * created by open(path, O_CREAT, 0666) would have (or the old file's). */
static int open_temporary(struct outfile *f, const struct stat *old)
{
	const char *slash = strrchr(f->path, '/');
	size_t dir_len = slash != NULL ? (size_t)(slash - f->path) + 1 : 0;
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	f->tmp = must_malloc(strlen(f->path) + 16);
	sprintf(f->tmp, "%.*s.%s.XXXXXX", (int)dir_len, f->path,
		f->path + dir_len);
	fd = mkstemp(f->tmp);
	if (fd < 0) {
		int err = errno;
		if (old == NULL || (err != EACCES && err != EROFS &&
				    err != EPERM))
			warn_msg(err, "%s", f->path);
		free(f->tmp);
		f->tmp = NULL;
		errno = err;
		return -1;
	}
	remove_on_exit(f->tmp);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (fchmod(fd, old != NULL ? old->st_mode & 07777 : 0666 & ~mask) < 0)
		warn_msg(errno, "%s", f->tmp);
	return fd;
}

int outfile_open(struct outfile *f, const char *path, char *const *inputs,
		 size_t n_inputs)
{
	struct stat st, lst;
	const char *input;
	int fd;

	memset(f, 0, sizeof *f);
	f->path = path;
	f->fd = -1;
	if (lstat(path, &lst) < 0) {
		if (errno != ENOENT) {
			warn_msg(errno, "%s", path);
			return -1;
		}
		return f->fd = open_temporary(f, NULL);
	}
	if (S_ISREG(lst.st_mode)) {
		if ((input = input_named(&lst, inputs, n_inputs)) != NULL)
			return refuse_input(path, input);
		f->fd = open_temporary(f, &lst);
		/* a writable file in a directory we cannot write to: in
		 * place, as before (it is not an input) */
		if (f->fd < 0 && (errno == EACCES || errno == EROFS ||
				  errno == EPERM)) {
			f->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC |
						   O_NOCTTY | O_NOFOLLOW);
			if (f->fd < 0)
				warn_msg(errno, "%s", path);
		}
		return f->fd;
	}
	/* in place: opened without O_TRUNC, which waits for the check */
	bool sticky, others = dir_writable_by_others(path, &sticky);
	int nofollow = 0;
	if (others && !owned_by_us(&lst)) {
		warn_msg(0, "%s: %s of another user in a directory others can "
			    "write to; not written", path,
			 S_ISLNK(lst.st_mode) ? "a symbolic link" : "a file");
		return -1;
	}
	if (others && S_ISLNK(lst.st_mode) && !sticky) {
		warn_msg(0, "%s: a symbolic link in a directory others can "
			    "change; not followed", path);
		return -1;
	}
	if (others && !S_ISLNK(lst.st_mode))
		nofollow = O_NOFOLLOW;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | nofollow,
		  0666);
	if (fd < 0) {
		warn_msg(errno, "%s", path);
		return -1;
	}
	if (fstat(fd, &st) == 0 &&
	    (input = input_named(&st, inputs, n_inputs)) != NULL) {
		close(fd);
		return refuse_input(path, input);
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
		warn_msg(errno, "%s", path);
		close(fd);
		return -1;
	}
	f->fd = fd;
	return fd;
}

/* f->fd may be -1 when a stream closed it already. */
int outfile_close(struct outfile *f, bool complete)
{
	int status = 0;

	if (f->fd >= 0 && close(f->fd) < 0 && complete) {
		warn_msg(errno, "%s", f->path);
		complete = false;
		status = -1;
	}
	f->fd = -1;
	if (f->tmp != NULL) {
		if (complete && rename(f->tmp, f->path) < 0) {
			warn_msg(errno, "%s", f->path);
			status = -1;
			complete = false;
		}
		if (!complete)
			unlink(f->tmp);
		pending = NULL;
		free(f->tmp);
		f->tmp = NULL;
	}
	return status;
}
