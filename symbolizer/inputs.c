/* inputs.c -- the trace files named on the command line.
 *
 * A directory stands for every ctrace trace in it (the files that start
 * with the trace magic), in name order: where a program that forks left
 * trace.bin and trace.bin.PID.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static bool is_trace(const char *path)
{
	char magic[sizeof CTRACE_FILE_MAGIC - 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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

char **expand_inputs(char **args, size_t n_args, size_t *n, int *status)
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

void free_inputs(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}
