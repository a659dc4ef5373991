/* tuix.c -- ctrace tui's index (symbolizer/tui/index.c) made alone from
 * a tree's text saved in a file, without the browser, the replay or a
 * terminal: for callgrind and CPU times of the indexing itself, and to
 * compare the lines two versions of the index give back.
 *
 *   tuix TEXT BASE [--dump]
 *
 * Makes BASE.tui-tree and BASE.tui-index (BASE a file that exists: the
 * index's key reads it) from TEXT, as the browser does from the replay's
 * pipe (the child process copies TEXT into it), and prints the lines,
 * the sidecar's size and the CPU time the indexing took (user + system,
 * the child's copy not counted); with --dump, then every line read back from
 * the sidecar: its depth, flags, parent, end and text.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui/tui.h"

static const char *text_path;

/* The replay's stand-in: TEXT into fd. */
static int copy_text(const char *format, const char *function, int fd)
{
	static char buf[1 << 16];
	int in = open(text_path, O_RDONLY);
	ssize_t got;

	(void)format;
	(void)function;
	if (in < 0)
		return 1;
	while ((got = read(in, buf, sizeof buf)) > 0)
		for (ssize_t done = 0, w; done < got; done += w)
			if ((w = write(fd, buf + done, (size_t)(got - done))) <= 0)
				return 1;
	return got < 0;
}

static uint64_t size_of(const char *base, const char *ext)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof path, "%s%s", base, ext);
	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

int main(int argc, char **argv)
{
	struct tui_params p;
	struct tuix *ix;
	struct rusage ru;
	static char text[TUIX_TEXT_MAX + 1];

	if (argc < 3 || (argc == 4 && strcmp(argv[3], "--dump")) || argc > 4) {
		fprintf(stderr, "usage: tuix TEXT BASE [--dump]\n");
		return 2;
	}
	text_path = argv[1];
	memset(&p, 0, sizeof p);
	p.first = argv[2];
	p.paths = &argv[2];
	p.n_paths = 1;
	p.args = &argv[1];
	p.n_args = 1;
	p.produce = copy_text;
	unlink(strcat(strcpy(text, argv[2]), ".tui-index"));
	if (!(ix = tuix_open(&p)))
		return 1;
	while (!tuix_complete(ix)) {
		struct pollfd pfd = {tuix_fd(ix), POLLIN, 0};
		if (pfd.fd >= 0 && poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return 1;
		tuix_poll(ix, SIZE_MAX);
	}
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "%" PRIu64 " lines, status %d, sidecar %" PRIu64
			" bytes, CPU %ld ms\n",
		tuix_lines(ix), tuix_status(ix),
		size_of(argv[2], ".tui-tree") + size_of(argv[2], ".tui-index"),
		(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
	if (argc == 4)
		for (uint64_t i = 0; i < tuix_lines(ix); i++) {
			struct tuix_line l;
			tuix_get(ix, i, &l);
			tuix_text(ix, i, text, sizeof text);
			printf("%" PRIu32 " %" PRIu32 " %" PRId64 " %" PRId64
			       " %s\n",
			       l.depth, l.flags, (int64_t)l.parent,
			       (int64_t)l.end, text);
		}
	tuix_close(ix);
	return 0;
}
