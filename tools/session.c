/* session.c -- the traces of one run.
 *
 * Every process of a run writes its own trace, OUTPUT, OUTPUT.PID or
 * OUTPUT.PID.N, stamped with the run (doc/format.md, "Processes"): ctrace
 * record names its run in CTRACE_RUN and finds its traces by it, and a
 * view given no trace reads trace.bin with every trace of trace.bin's run
 * next to it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"
#include "runid.h"
#include "session.h"

int session_header(const char *path, struct ctrace_file_header *h)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	int ok;

	if (fd < 0)
		return -1;
	memset(h, 0, sizeof *h);
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	     pread(fd, h, sizeof *h, 0) == (ssize_t)sizeof *h &&
	     !memcmp(h->magic, CTRACE_FILE_MAGIC, sizeof h->magic) &&
	     h->byte_order == CTRACE_BYTE_ORDER_MARK;
	close(fd);
	return ok ? 0 : -1;
}

/* The length of a run of digits at S. */
static size_t digits(const char *s)
{
	return strspn(s, "0123456789");
}

int session_is_trace_name(const char *name, const char *base)
{
	size_t len = strlen(base), d;

	if (strncmp(name, base, len) != 0)
		return 0;
	name += len;
	if (*name == '\0')
		return 1;
	if (*name != '.' || (d = digits(name + 1)) == 0)
		return 0;
	name += 1 + d;
	if (*name == '\0')
		return 1;
	if (*name != '.' || (d = digits(name + 1)) == 0)
		return 0;
	return name[1 + d] == '\0';
}

/* BASE first, then by pid, then by exec count: the numbers compared as
 * numbers (shorter digit strings first). */
static int compare_names(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	for (;;) {
		const char *dx = strchr(x, '.'), *dy = strchr(y, '.');
		size_t lx = dx ? (size_t)(dx - x) : strlen(x);
		size_t ly = dy ? (size_t)(dy - y) : strlen(y);
		if (lx != ly)
			return lx < ly ? -1 : 1;
		int c = strncmp(x, y, lx);
		if (c != 0)
			return c;
		if (dx == NULL || dy == NULL)
			return dx == NULL ? (dy == NULL ? 0 : -1) : 1;
		x = dx + 1;
		y = dy + 1;
	}
}

/* The names BASE... in DIR whose header has run RUN, or (RUN 0) the same
 * run as the header *REF. */
static size_t list_run(const char *dir, const char *base, uint64_t run,
		       const struct ctrace_file_header *ref, char ***paths)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;
	char **list = NULL;

	*paths = NULL;
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		struct ctrace_file_header h;
		if (!session_is_trace_name(e->d_name, base))
			continue;
		char *path = must_alloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!strcmp(dir, "."))
			strcpy(path, e->d_name);
		else
			sprintf(path, "%s%s%s", dir,
				dir[strlen(dir) - 1] == '/' ? "" : "/",
				e->d_name);
		if (session_header(path, &h) < 0 ||
		    (run != 0 ? h.run_id != run : !ctrace__run_same(&h, ref))) {
			free(path);
			continue;
		}
		list = must_realloc(list, n + 1, sizeof *list);
		list[n++] = path;
	}
	closedir(d);
	/* compare the names only: DIR is the same prefix */
	size_t skip = !strcmp(dir, ".") ? 0 : strlen(dir) + (dir[strlen(dir) - 1] != '/');
	for (size_t i = 0; i < n; i++)
		list[i] += skip;
	if (n > 1)
		qsort(list, n, sizeof *list, compare_names);
	for (size_t i = 0; i < n; i++)
		list[i] -= skip;
	*paths = list;
	return n;
}

size_t session_run_traces(const char *dir, const char *base, uint64_t run,
			  char ***paths)
{
	return list_run(dir, base, run, NULL, paths);
}

char *session_directory(const char *dir)
{
	char *path = must_alloc(strlen(dir) + sizeof "/" DEFAULT_TRACE);
	struct stat st;

	/* the parents first */
	strcpy(path, dir);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) < 0 && errno != EEXIST) {
			error_msg("cannot create %s: %s", path, strerror(errno));
			exit(2);
		}
		*p = '/';
	}
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		error_msg("cannot create %s: %s", dir, strerror(errno));
		exit(2);
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		error_msg("%s: %s", dir, strerror(errno ? errno : ENOTDIR));
		exit(2);
	}
	/* An earlier session's traces would be read with this one. */
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL) {
		struct ctrace_file_header h;
		if (!session_is_trace_name(e->d_name, DEFAULT_TRACE))
			continue;
		char *old = must_alloc(strlen(dir) + strlen(e->d_name) + 2);
		sprintf(old, "%s/%s", dir, e->d_name);
		if (session_header(old, &h) == 0 && unlink(old) < 0) {
			error_msg("cannot remove %s: %s", old, strerror(errno));
			exit(2);
		}
		free(old);
	}
	if (d != NULL)
		closedir(d);
	sprintf(path, "%s%s" DEFAULT_TRACE, dir,
		dir[strlen(dir) - 1] == '/' ? "" : "/");
	return path;
}

/* The process ctrace record started wrote no trace (a shell): its status
 * goes into the run's first trace, with CTRACE_EXIT_RUN, that trace's own
 * usage left as it is. */
static void store_run_status(char **paths, size_t count, pid_t pid,
			     int status)
{
	struct ctrace_file_header h, first;
	const char *path = NULL;

	for (size_t i = 0; i < count; i++) {
		if (session_header(paths[i], &h) < 0 ||
		    (path != NULL &&
		     h.start_realtime_ns >= first.start_realtime_ns))
			continue;
		path = paths[i];
		first = h;
	}
	if (path == NULL)
		return;
	first.exit_flags |= CTRACE_EXIT_RUN;
	first.wait_status = (uint32_t)status;
	first.wait_pid = (uint32_t)pid;
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	size_t at = offsetof(struct ctrace_file_header, exit_flags);
	size_t at_wait = offsetof(struct ctrace_file_header, wait_status);
	uint32_t wait[2] = {first.wait_status, first.wait_pid};
	if (fd < 0 ||
	    pwrite(fd, &first.exit_flags, sizeof first.exit_flags,
		   (off_t)at) != (ssize_t)sizeof first.exit_flags ||
	    pwrite(fd, wait, sizeof wait, (off_t)at_wait) != (ssize_t)sizeof wait)
		error_msg("%s: cannot store the program's exit status: %s",
			  path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

void session_store_wait(char **paths, size_t count, pid_t pid, int status,
			const struct rusage *ru)
{
	struct ctrace_file_header h, last;
	const char *path = NULL;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	/* The process's last image wrote the last of its traces. */
	for (size_t i = 0; i < count; i++) {
		if (session_header(paths[i], &h) < 0 ||
		    h.pid != (uint32_t)pid ||
		    (path != NULL && h.start_realtime_ns < last.start_realtime_ns))
			continue;
		path = paths[i];
		last = h;
	}
	if (path == NULL) {
		store_run_status(paths, count, pid, status);
		return;
	}
	last.exit_flags = CTRACE_EXIT_USAGE | CTRACE_EXIT_WAITED;
	last.end_realtime_ns =
		(uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	last.user_ns = (uint64_t)ru->ru_utime.tv_sec * 1000000000u +
		       (uint64_t)ru->ru_utime.tv_usec * 1000u;
	last.system_ns = (uint64_t)ru->ru_stime.tv_sec * 1000000000u +
			 (uint64_t)ru->ru_stime.tv_usec * 1000u;
	last.max_rss_kb = (uint64_t)ru->ru_maxrss;
	last.voluntary_switches = (uint64_t)ru->ru_nvcsw;
	last.involuntary_switches = (uint64_t)ru->ru_nivcsw;
	last.wait_status = (uint32_t)status;
	last.wait_pid = (uint32_t)pid;

	/* Only the fields from exit_flags on: the rest is the recorder's. */
	size_t from = offsetof(struct ctrace_file_header, exit_flags);
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 ||
	    pwrite(fd, (char *)&last + from, sizeof last - from, (off_t)from) !=
		    (ssize_t)(sizeof last - from))
		error_msg("%s: cannot store the program's exit status: %s",
			  path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

char **session_default(void)
{
	struct ctrace_file_header h;
	char **list = NULL;
	size_t n = 0;

	if (session_header(DEFAULT_TRACE, &h) == 0 &&
	    (h.run_id != 0 || h.run_pgid != 0))
		n = list_run(".", DEFAULT_TRACE, 0, &h, &list);
	if (n == 0) {
		list = must_alloc(sizeof *list);
		list[n++] = must_strdup(DEFAULT_TRACE);
	}
	list = must_realloc(list, n + 1, sizeof *list);
	list[n] = NULL;
	return list;
}
