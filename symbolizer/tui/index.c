/* index.c -- the tui's sidecar: the call tree as the tree format writes
 * it, and an index of its lines, so that a trace of any size is browsed
 * without holding it.
 *
 * Two files next to the first trace (TRACE.tui-tree and TRACE.tui-index;
 * for a directory, DIR/.ctrace.tui-tree and -index), or, where that
 * cannot be written, in $XDG_CACHE_HOME/ctrace (~/.cache/ctrace) under
 * a name made of the key.  The index is a 64-byte header (magic, state,
 * key, lines, text size) and 32 bytes a line (struct tuix_line).  The
 * key hashes ctrace's version, the command line and, for each trace, its
 * size, modification time, inode and first 4 KiB (the header): an index
 * with another key, or left unfinished, is made again.
 *
 * Making it: the replay (the tree, one thread after another) runs in a
 * child process writing the text; the browser reads the text as it
 * grows and gives each line its depth (the tree's indentation, or its
 * "[depth N]"), its parent and, when the line that ends its subtree
 * comes, its end: a closing "}" at the same depth, or the last line
 * before one as shallow.  Memory: the stack of the open calls (as deep
 * as the tree), a write buffer of 64 Ki lines (2 MiB) and a read cache
 * of 1 Ki lines; each line costs 32 bytes of disk on top of its text.
 * An end found after its line was written is written in place.
 *
 * The files are the user's alone (mode 0600), as the trace, and never
 * opened through a symbolic link or when another user owns them (then
 * the cache directory serves).  Two
 * browsers may read one index; while one makes it (an exclusive
 * lock), another says so and stops.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tui/tui.h"
#include "util/util.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define TUIX_MAGIC "ctrtuix1"
#define HEADER_SIZE 64
#define WBUF_LINES 65536
#define CACHE_LINES 1024
#define CHUNK (1u << 20)

enum { STATE_BUILDING = 0, STATE_COMPLETE = 1 };

struct tuix_header {
	char magic[8];
	uint32_t state;
	int32_t status; /* the replay's exit status */
	uint64_t key;
	uint64_t n_lines;
	uint64_t text_size;
	uint64_t reserved[3];
};

struct open_call {
	uint64_t line;
	uint32_t depth;
};

struct tuix {
	int text_fd, idx_fd;
	char *text_path, *idx_path, *log_path;
	uint64_t key;
	uint64_t n;       /* lines indexed */
	uint64_t end_off; /* the text's offset after the last line indexed */
	bool complete;
	int status;
	/* making it */
	pid_t child;
	bool child_done;
	int child_status;
	char *chunk;
	size_t chunk_cap;
	struct tuix_line *wbuf; /* lines wbuf_first.. not written yet */
	uint64_t wbuf_first;
	size_t wbuf_n;
	struct open_call *stack;
	size_t sp, stack_cap;
	char tid[64]; /* the thread column of the previous line */
	size_t tid_len;
	/* reading */
	struct tuix_line *cache;
	uint64_t cache_first;
	size_t cache_n;
};

/* ---------------------------------------------------------------------------
 * The key
 * ------------------------------------------------------------------------ */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3u;
	return h;
}

static uint64_t make_key(const struct tui_params *p)
{
	uint64_t h = 0xcbf29ce484222325u;
	char head[4096];

	h = fnv(h, PACKAGE_VERSION, sizeof PACKAGE_VERSION);
	h = fnv(h, TUIX_MAGIC, sizeof TUIX_MAGIC);
	for (size_t i = 0; i < p->n_args; i++)
		h = fnv(h, p->args[i], strlen(p->args[i]) + 1);
	for (size_t i = 0; i < p->n_paths; i++) {
		struct stat st;
		int fd = open(p->paths[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		ssize_t got = 0;
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0) {
			uint64_t v[4] = {(uint64_t)st.st_size,
					 (uint64_t)st.st_mtim.tv_sec,
					 (uint64_t)st.st_mtim.tv_nsec,
					 (uint64_t)st.st_ino};
			h = fnv(h, v, sizeof v);
			if (S_ISREG(st.st_mode))
				got = read(fd, head, sizeof head);
			if (got > 0)
				h = fnv(h, head, (size_t)got);
		}
		close(fd);
	}
	return h;
}

/* ---------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------ */

static char *concat(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = must_malloc(na + nb + 1);

	memcpy(s, a, na);
	memcpy(s + na, b, nb + 1);
	return s;
}

/* Opens `path` read-write, made if missing: a regular file of ours, never
 * through a symbolic link (one planted in a directory others can write
 * to), else -1. */
static int open_own(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid()) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Opens base.tui-index and base.tui-tree; false if they cannot be made. */
static bool open_files(struct tuix *ix, const char *base)
{
	ix->idx_path = concat(base, ".tui-index");
	ix->text_path = concat(base, ".tui-tree");
	ix->log_path = concat(base, ".tui-log");
	ix->idx_fd = open_own(ix->idx_path);
	if (ix->idx_fd >= 0) {
		ix->text_fd = open_own(ix->text_path);
		if (ix->text_fd >= 0)
			return true;
		close(ix->idx_fd);
	}
	free(ix->idx_path);
	free(ix->text_path);
	free(ix->log_path);
	ix->idx_fd = ix->text_fd = -1;
	return false;
}

/* The cache directory's base name for the key, made; NULL if none. */
static char *cache_base(uint64_t key)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir, *base, name[64];

	if (xdg && *xdg == '/')
		dir = concat(xdg, "/ctrace");
	else if (home && *home == '/') {
		char *c = concat(home, "/.cache");
		mkdir(c, 0700);
		dir = concat(c, "/ctrace");
		free(c);
	} else
		return NULL;
	mkdir(dir, 0700);
	snprintf(name, sizeof name, "/%016llx", (unsigned long long)key);
	base = concat(dir, name);
	free(dir);
	return base;
}

static bool read_header(struct tuix *ix, struct tuix_header *h)
{
	return pread(ix->idx_fd, h, sizeof *h, 0) == (ssize_t)sizeof *h &&
	       !memcmp(h->magic, TUIX_MAGIC, 8);
}

static void write_header(struct tuix *ix, uint32_t state)
{
	struct tuix_header h;

	memset(&h, 0, sizeof h);
	memcpy(h.magic, TUIX_MAGIC, 8);
	h.state = state;
	h.status = ix->status;
	h.key = ix->key;
	h.n_lines = ix->n;
	h.text_size = ix->end_off;
	if (pwrite(ix->idx_fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
		warn_msg(errno, "%s: write error", ix->idx_path);
}

/* Whether the files hold a complete index of this key. */
static bool reusable(struct tuix *ix)
{
	struct tuix_header h;
	struct stat st;

	if (!read_header(ix, &h) || h.state != STATE_COMPLETE ||
	    h.key != ix->key || fstat(ix->text_fd, &st) != 0 ||
	    (uint64_t)st.st_size != h.text_size ||
	    fstat(ix->idx_fd, &st) != 0 ||
	    (uint64_t)st.st_size != HEADER_SIZE + 32 * h.n_lines)
		return false;
	ix->n = h.n_lines;
	ix->end_off = h.text_size;
	ix->status = h.status;
	ix->complete = true;
	return true;
}

/* ---------------------------------------------------------------------------
 * Making it
 * ------------------------------------------------------------------------ */

static void start_child(struct tuix *ix, const struct tui_params *p)
{
	int log = open_own(ix->log_path);

	if (log >= 0 && ftruncate(log, 0) != 0) {
		close(log);
		log = -1;
	}

	ix->child = fork();
	if (ix->child == 0) {
		int null = open("/dev/null", O_RDWR);
		/* a browser that dies leaves no replay writing on */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(log >= 0 ? log : null, STDERR_FILENO);
		_exit(p->produce("tree", NULL, ix->text_fd));
	}
	if (log >= 0)
		close(log);
	if (ix->child < 0) {
		warn_msg(errno, "fork");
		ix->child_done = true;
		ix->child_status = 1 << 8; /* as exit(1) */
	}
}

/* Line i's record, where it is now: the write buffer or the file. */
static void set_end(struct tuix *ix, uint64_t line, uint64_t end)
{
	if (line >= ix->wbuf_first) {
		ix->wbuf[line - ix->wbuf_first].end = end;
		return;
	}
	if (pwrite(ix->idx_fd, &end, sizeof end,
		   (off_t)(HEADER_SIZE + 32 * line +
			   offsetof(struct tuix_line, end))) != sizeof end)
		warn_msg(errno, "%s: write error", ix->idx_path);
	if (line >= ix->cache_first && line < ix->cache_first + ix->cache_n)
		ix->cache_n = 0;
}

static void flush_wbuf(struct tuix *ix)
{
	size_t size = ix->wbuf_n * sizeof *ix->wbuf;

	if (size &&
	    pwrite(ix->idx_fd, ix->wbuf, size,
		   (off_t)(HEADER_SIZE + 32 * ix->wbuf_first)) != (ssize_t)size)
		warn_msg(errno, "%s: write error", ix->idx_path);
	ix->wbuf_first += ix->wbuf_n;
	ix->wbuf_n = 0;
}

/* Closes the open calls deeper than `depth` (all for -1), their subtrees
 * ending at the line before `line`. */
static void pop_to(struct tuix *ix, int64_t depth, uint64_t line)
{
	while (ix->sp && (int64_t)ix->stack[ix->sp - 1].depth > depth) {
		set_end(ix, ix->stack[ix->sp - 1].line, line - 1);
		ix->sp--;
	}
}

/* One line of text, of `len` bytes at offset `off`. */
static void add_line(struct tuix *ix, const char *s, size_t len, uint64_t off)
{
	struct tuix_line l = {off, TUIX_NONE, TUIX_NONE, 0, 0};
	uint64_t i = ix->n;
	const char *bar = NULL, *t;
	size_t sp = 0;
	uint32_t depth;

	if (len && s[0] != '#') {
		for (size_t k = 0; k + 4 <= len && k < 64; k++)
			if (!memcmp(s + k, "] | ", 4)) {
				bar = s + k;
				break;
			}
	}
	if (!bar) {
		/* a "#" line: the header, a process begins, lost events */
		pop_to(ix, -1, i);
		ix->tid_len = 0;
		l.flags = TUIX_HEAD;
		l.end = i;
		goto add;
	}
	if ((size_t)(bar - s) != ix->tid_len ||
	    memcmp(ix->tid, s, ix->tid_len)) {
		/* another thread: its calls are not the last one's */
		pop_to(ix, -1, i);
		ix->tid_len = (size_t)(bar - s) < sizeof ix->tid
				      ? (size_t)(bar - s)
				      : sizeof ix->tid - 1;
		memcpy(ix->tid, s, ix->tid_len);
	}
	t = bar + 4;
	while (t + sp < s + len && t[sp] == ' ')
		sp++;
	t += sp;
	depth = (uint32_t)(sp / 2);
	if ((size_t)(s + len - t) > 7 && !memcmp(t, "[depth ", 7)) {
		depth = (uint32_t)strtoul(t + 7, NULL, 10);
		t = memchr(t, ']', (size_t)(s + len - t));
		t = t ? t + 2 : s + len;
	}
	l.depth = depth;
	pop_to(ix, depth, i);
	if (t < s + len && *t == '}' && ix->sp &&
	    ix->stack[ix->sp - 1].depth == depth) {
		/* the closing line of the call open at its depth */
		struct open_call *c = &ix->stack[--ix->sp];
		set_end(ix, c->line, i);
		l.flags = TUIX_CLOSE;
		l.end = c->line;
		l.parent = ix->sp ? ix->stack[ix->sp - 1].line : TUIX_NONE;
		goto add;
	}
	pop_to(ix, (int64_t)depth - 1, i);
	l.parent = ix->sp ? ix->stack[ix->sp - 1].line : TUIX_NONE;
	if (ix->sp == ix->stack_cap) {
		ix->stack_cap = ix->stack_cap ? 2 * ix->stack_cap : 256;
		ix->stack = must_realloc(ix->stack, ix->stack_cap,
					 sizeof *ix->stack);
	}
	ix->stack[ix->sp++] = (struct open_call){i, depth};
add:
	if (ix->wbuf_n == WBUF_LINES)
		flush_wbuf(ix);
	ix->wbuf[ix->wbuf_n++] = l;
	ix->n++;
	ix->end_off = off + len + 1;
}

static void finish(struct tuix *ix)
{
	pop_to(ix, -1, ix->n);
	flush_wbuf(ix);
	ix->status = WIFEXITED(ix->child_status) ? WEXITSTATUS(ix->child_status)
						 : 128 + WTERMSIG(ix->child_status);
	ix->complete = true;
	/* killed: not an index of the whole trace, made again next time */
	write_header(ix, WIFEXITED(ix->child_status) ? STATE_COMPLETE
						     : STATE_BUILDING);
	free(ix->wbuf);
	ix->wbuf = NULL;
	ix->wbuf_first = TUIX_NONE;
	free(ix->chunk);
	ix->chunk = NULL;
	free(ix->stack);
	ix->stack = NULL;
	flock(ix->idx_fd, LOCK_SH);
}

bool tuix_poll(struct tuix *ix, size_t budget)
{
	bool progress = false;

	while (!ix->complete && budget) {
		ssize_t got;
		size_t used = 0;

		if (!ix->child_done) {
			pid_t w = waitpid(ix->child, &ix->child_status, WNOHANG);
			if (w == ix->child || (w < 0 && errno == ECHILD))
				ix->child_done = true;
		}
		got = pread(ix->text_fd, ix->chunk, ix->chunk_cap,
			    (off_t)ix->end_off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (ix->child_done) {
				finish(ix);
				return true;
			}
			break;
		}
		for (;;) {
			char *nl = memchr(ix->chunk + used, '\n',
					  (size_t)got - used);
			if (!nl)
				break;
			add_line(ix, ix->chunk + used,
				 (size_t)(nl - ix->chunk) - used,
				 ix->end_off);
			used = (size_t)(nl - ix->chunk) + 1;
			progress = true;
		}
		if (!used) {
			if ((size_t)got == ix->chunk_cap) {
				/* a line longer than the buffer */
				ix->chunk_cap *= 2;
				ix->chunk = must_realloc(ix->chunk,
							 ix->chunk_cap + 1, 1);
				continue;
			}
			if (ix->child_done) {
				/* the text ends without a newline */
				ix->chunk[got] = '\n';
				add_line(ix, ix->chunk, (size_t)got,
					 ix->end_off);
				ix->end_off--;
				progress = true;
				continue;
			}
			break;
		}
		budget = budget > used ? budget - used : 0;
	}
	return progress;
}

struct tuix *tuix_open(const struct tui_params *p)
{
	struct tuix *ix = must_calloc(1, sizeof *ix);
	char *base;

	ix->key = make_key(p);
	{
		struct stat st;
		if (stat(p->first, &st) == 0 && S_ISDIR(st.st_mode))
			base = concat(p->first, "/.ctrace");
		else
			base = concat(p->first, "");
	}
	if (!open_files(ix, base)) {
		char *cb = cache_base(ix->key);
		if (!cb || !open_files(ix, cb)) {
			warn_msg(errno, "%s.tui-index: cannot make the index "
					"(nor in the cache directory)",
				 base);
			free(cb);
			free(base);
			free(ix);
			return NULL;
		}
		free(cb);
	}
	free(base);
	if (flock(ix->idx_fd, LOCK_SH) == 0 && reusable(ix)) {
		ix->cache_first = 0;
		ix->wbuf_first = TUIX_NONE;
		return ix;
	}
	if (flock(ix->idx_fd, LOCK_EX | LOCK_NB) != 0) {
		warn_msg(0, "%s: another ctrace tui is reading or making this "
			    "index; try again when it is done",
			 ix->idx_path);
		tuix_close(ix);
		return NULL;
	}
	if (ftruncate(ix->text_fd, 0) != 0 ||
	    ftruncate(ix->idx_fd, HEADER_SIZE) != 0) {
		warn_msg(errno, "%s: cannot truncate", ix->idx_path);
		tuix_close(ix);
		return NULL;
	}
	write_header(ix, STATE_BUILDING);
	ix->chunk_cap = CHUNK;
	ix->chunk = must_malloc(ix->chunk_cap + 1);
	ix->wbuf = must_calloc(WBUF_LINES, sizeof *ix->wbuf);
	start_child(ix, p);
	return ix;
}

void tuix_close(struct tuix *ix)
{
	if (!ix)
		return;
	if (!ix->complete && ix->child > 0 && !ix->child_done) {
		kill(ix->child, SIGTERM);
		waitpid(ix->child, NULL, 0);
	}
	if (ix->idx_fd >= 0)
		close(ix->idx_fd);
	if (ix->text_fd >= 0)
		close(ix->text_fd);
	free(ix->idx_path);
	free(ix->text_path);
	free(ix->log_path);
	free(ix->wbuf);
	free(ix->chunk);
	free(ix->stack);
	free(ix->cache);
	free(ix);
}

/* ---------------------------------------------------------------------------
 * Reading it
 * ------------------------------------------------------------------------ */

uint64_t tuix_lines(const struct tuix *ix)
{
	return ix->n;
}

bool tuix_complete(const struct tuix *ix)
{
	return ix->complete;
}

int tuix_status(const struct tuix *ix)
{
	return ix->status;
}

const char *tuix_log(const struct tuix *ix, bool *empty)
{
	struct stat st;

	*empty = stat(ix->log_path, &st) != 0 || st.st_size == 0;
	return ix->log_path;
}

const char *tuix_path(const struct tuix *ix)
{
	return ix->idx_path;
}

void tuix_get(struct tuix *ix, uint64_t i, struct tuix_line *l)
{
	if (ix->wbuf && i >= ix->wbuf_first) {
		*l = ix->wbuf[i - ix->wbuf_first];
		return;
	}
	if (i < ix->cache_first || i >= ix->cache_first + ix->cache_n) {
		ssize_t got;
		if (!ix->cache)
			ix->cache = must_calloc(CACHE_LINES, sizeof *ix->cache);
		ix->cache_first = i - i % CACHE_LINES;
		got = pread(ix->idx_fd, ix->cache,
			    CACHE_LINES * sizeof *ix->cache,
			    (off_t)(HEADER_SIZE + 32 * ix->cache_first));
		ix->cache_n = got > 0 ? (size_t)got / sizeof *ix->cache : 0;
		if (i >= ix->cache_first + ix->cache_n) {
			/* unreadable: a head line, so that nothing nests */
			*l = (struct tuix_line){0, i, TUIX_NONE, 0, TUIX_HEAD};
			return;
		}
	}
	*l = ix->cache[i - ix->cache_first];
}

size_t tuix_text(struct tuix *ix, uint64_t i, char *dst, size_t cap)
{
	struct tuix_line l, next;
	uint64_t end;
	ssize_t got;
	size_t n;

	tuix_get(ix, i, &l);
	if (i + 1 < ix->n) {
		tuix_get(ix, i + 1, &next);
		end = next.off - 1;
	} else {
		end = ix->end_off - 1;
	}
	n = end > l.off ? (size_t)(end - l.off) : 0;
	if (n > cap - 1)
		n = cap - 1;
	got = pread(ix->text_fd, dst, n, (off_t)l.off);
	n = got > 0 ? (size_t)got : 0;
	dst[n] = '\0';
	return n;
}
