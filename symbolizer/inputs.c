/* inputs.c -- the trace files named on the command line.
 *
 * A directory stands for every ctrace trace in it (the files that start
 * with the trace magic), in name order: where a program that forks left
 * trace.bin and trace.bin.PID.  A forked child's trace may also need its
 * parent's, found next to it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolizer.h"

/* O_NONBLOCK: a FIFO among the files must not block the open. */
static bool is_trace(const char *path)
{
	char magic[sizeof CTRACE_FILE_MAGIC - 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	bool yes = false;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    read(fd, magic, sizeof magic) == (ssize_t)sizeof magic)
		yes = !memcmp(magic, CTRACE_FILE_MAGIC, sizeof magic);
	close(fd);
	return yes;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add(char ***list, size_t *n, char *path)
{
	*list = must_realloc(*list, *n + 1, sizeof **list);
	(*list)[(*n)++] = path;
}

/* The traces in directory `dir`, sorted, appended to the list. */
static void add_directory(const char *dir, char ***list, size_t *n,
			  int *status)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = *n;

	if (!d) {
		warn_msg(errno, "%s", dir);
		*status = 1;
		return;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(dir);
		char *path;
		if (e->d_name[0] == '.')
			continue;
		path = must_malloc(len + strlen(e->d_name) + 2);
		sprintf(path, "%s%s%s", dir,
			len && dir[len - 1] == '/' ? "" : "/", e->d_name);
		if (is_trace(path))
			add(list, n, path);
		else
			free(path);
	}
	closedir(d);
	if (*n == first) {
		warn_msg(0, "%s: no ctrace trace in this directory", dir);
		*status = 1;
		return;
	}
	qsort(*list + first, *n - first, sizeof **list, name_cmp);
}

char **inputs_expand(char **args, size_t n_args, size_t *n, int *status)
{
	char **list = NULL;
	struct stat st;

	*n = 0;
	for (size_t i = 0; i < n_args; i++) {
		if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode))
			add_directory(args[i], &list, n, status);
		else
			add(&list, n, must_strndup(args[i], strlen(args[i])));
	}
	return list;
}

void inputs_free(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* ---------------------------------------------------------------------------
 * A forked child's parent
 * ------------------------------------------------------------------------ */

static bool read_header(const char *path, struct ctrace_file_header *h)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	bool ok;

	if (fd < 0)
		return false;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	     read(fd, h, sizeof *h) == (ssize_t)sizeof *h &&
	     !memcmp(h->magic, CTRACE_FILE_MAGIC, sizeof h->magic) &&
	     h->byte_order == CTRACE_BYTE_ORDER_MARK;
	close(fd);
	return ok;
}

/* The recorder names a child's trace OUTPUT.PID (or OUTPUT.PID.N), and its
 * parent's is OUTPUT or OUTPUT.PPID...: every trace of one recording starts
 * with OUTPUT, the child's name without its numeric suffixes. */
static size_t output_name_length(const char *name)
{
	size_t n = strlen(name);

	for (;;) {
		size_t d = n;
		while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
			d--;
		if (d == n || d == 0 || name[d - 1] != '.' || d == 1)
			return n;
		n = d - 1;
	}
}

char *inputs_find_parent(const char *child_path,
			 const struct ctrace_file_header *child)
{
	const char *slash = strrchr(child_path, '/');
	const char *name = slash ? slash + 1 : child_path;
	size_t dir_len = slash ? (size_t)(slash - child_path) + 1 : 0;
	size_t prefix = output_name_length(name);
	char *dir = must_strndup(dir_len ? child_path : ".",
				 dir_len ? dir_len : 1);
	char *best = NULL;
	uint64_t best_ns = 0;
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		struct ctrace_file_header h;
		char *path;
		if (strncmp(e->d_name, name, prefix) ||
		    !strcmp(e->d_name, name))
			continue;
		path = must_malloc(dir_len + strlen(e->d_name) + 1);
		memcpy(path, child_path, dir_len);
		strcpy(path + dir_len, e->d_name);
		if (read_header(path, &h) && h.pid == child->parent_pid &&
		    h.base_ns <= child->base_ns &&
		    (!best || h.base_ns > best_ns)) {
			free(best);
			best = path;
			best_ns = h.base_ns;
		} else {
			free(path);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	return best;
}
