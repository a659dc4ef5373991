/* tuix.c -- ctrace tui's index (symbolizer/tui/index.c) made alone from
 * a tree's text saved in a file, without the browser, the replay or a
 * terminal: for callgrind and CPU times of the indexing itself, and to
 * compare the lines two versions of the index give back.
 *
 *   tuix TEXT BASE [--dump | --check]
 *
 * Makes BASE.tui-tree and BASE.tui-index (BASE a file that exists: the
 * index's key reads it) from TEXT, as the browser does from the replay's
 * pipe (the child process copies TEXT into it), and prints the lines,
 * the sidecar's size and the CPU time the indexing took (user + system,
 * the child's copy not counted).  With --dump, then every line read
 * back from the sidecar: its depth, flags, parent, end and text.  With
 * --check, lines are read while the index is made (the newest ones, in
 * the block being filled or not written yet, and older ones) and
 * compared with the same lines once it is complete (an end not known
 * then excepted, but known now): exit status 1 if one differs.
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
static char text[TUIX_TEXT_MAX + 1];

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

static long ms(const struct timeval *t)
{
	return (long)t->tv_sec * 1000 + (long)t->tv_usec / 1000;
}

/* A line read while the index was made. */
struct seen {
	uint64_t i, hash;
	struct tuix_line l;
};

static uint64_t line_hash(struct tuix *ix, uint64_t i)
{
	uint64_t h = 0xcbf29ce484222325u;
	size_t n = tuix_text(ix, i, text, sizeof text);

	for (size_t k = 0; k < n; k++)
		h = (h ^ (unsigned char)text[k]) * 0x100000001b3u;
	return h;
}

static struct seen *seen;
static size_t n_seen, cap_seen;

static void see(struct tuix *ix, uint64_t i)
{
	if (n_seen == cap_seen) {
		cap_seen = cap_seen ? 2 * cap_seen : 1024;
		seen = realloc(seen, cap_seen * sizeof *seen);
		if (!seen)
			exit(1);
	}
	seen[n_seen].i = i;
	tuix_get(ix, i, &seen[n_seen].l);
	seen[n_seen].hash = line_hash(ix, i);
	n_seen++;
}

/* The lines as read then and now: the number that differ. */
static size_t check(struct tuix *ix)
{
	size_t bad = 0;

	for (size_t k = 0; k < n_seen; k++) {
		struct tuix_line l, *e = &seen[k].l;
		tuix_get(ix, seen[k].i, &l);
		if (l.depth != e->depth || l.flags != e->flags ||
		    l.parent != e->parent ||
		    (e->end != TUIX_NONE && l.end != e->end) ||
		    l.end == TUIX_NONE ||
		    line_hash(ix, seen[k].i) != seen[k].hash) {
			if (bad++ < 10)
				fprintf(stderr, "line %" PRIu64 " differs\n",
					seen[k].i);
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	struct tui_params p;
	struct tuix *ix;
	struct rusage ru;
	bool dump = argc == 4 && !strcmp(argv[3], "--dump");
	bool checking = argc == 4 && !strcmp(argv[3], "--check");
	size_t bad = 0;

	if (argc < 3 || (argc == 4 && !dump && !checking) || argc > 4) {
		fprintf(stderr, "usage: tuix TEXT BASE [--dump | --check]\n");
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
		uint64_t n;
		if (pfd.fd >= 0 && poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return 1;
		tuix_poll(ix, checking ? 1 << 16 : SIZE_MAX);
		n = tuix_lines(ix);
		if (checking && n)
			for (uint64_t d = 1; d <= n; d = 3 * d + 1)
				see(ix, n - d);
	}
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "%" PRIu64 " lines, status %d, sidecar %" PRIu64
			" bytes, CPU %ld ms (user %ld, system %ld)\n",
		tuix_lines(ix), tuix_status(ix),
		size_of(argv[2], ".tui-tree") + size_of(argv[2], ".tui-index"),
		ms(&ru.ru_utime) + ms(&ru.ru_stime), ms(&ru.ru_utime),
		ms(&ru.ru_stime));
	if (checking) {
		bad = check(ix);
		fprintf(stderr, "%zu lines read while indexing, %zu differ\n",
			n_seen, bad);
	}
	if (dump)
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
	free(seen);
	return bad != 0;
}
