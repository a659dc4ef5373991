/* index.c -- the tui's sidecar: the call tree as the tree format writes
 * it, in compressed blocks of lines with each line's place in the tree,
 * so that a trace of any size is browsed without holding it.
 *
 * Two files next to the first trace (TRACE.tui-tree and TRACE.tui-index;
 * for a directory, DIR/.ctrace.tui-tree and -index), or, where that
 * cannot be written, in $XDG_CACHE_HOME/ctrace (~/.cache/ctrace) under
 * a name made of the key.  The key hashes ctrace's version, the format's
 * magic, the command line and, for each trace, its size, modification
 * time, inode and first 4 KiB (the header): an index with another key,
 * or left unfinished, is made again.
 *
 * TRACE.tui-tree is a sequence of blocks of BLOCK_LINES lines (the last
 * one shorter), each a raw deflate stream (level 1, memLevel 4) of its
 * lines' records, then their text (format ctrtuix5):
 *
 *   per line, LEB128: depth << 2 | flags (TUIX_*); its parent
 *   (PARENT_*: of a closing line whose call is in the block,
 *   PARENT_SAME is its call's) and end (END_*, LATE: not known as the
 *   block was written) in a byte, or PE_ESCAPE and both; its shape
 *   (SHAPE_*: what of its text is made again from the depth and the
 *   thread), with the length of a new thread column after it; its
 *   text (what follows its indentation, or its duration for SHAPE_RAW):
 *   its number in the block's table of distinct texts plus 1, or
 *   TEXT_NEW for a new one followed by its length (a line is at most
 *   TUIX_TEXT_MAX bytes, a longer one is cut: the browser shows and
 *   searches a line's first 4 KiB)
 *   then, line after line, its new thread column and its new text, if
 *   any: each distinct text once a block, without durations, thread
 *   columns, indentations nor newlines
 *
 * followed by one 8-byte slot per line whose end was not known (a call
 * still open when its block was written: at most the tree's depth a
 * block), written in place when its call ends, then a LEB128 code a line
 * for its duration (dur_code), outside the deflate stream.
 * TRACE.tui-index is a 64-byte header (magic, state, key, lines, size of
 * the tree file) and 32 bytes a block (struct dir_entry): where it is,
 * its sizes and how many late ends follow it.  On the benchmark's tree
 * (bench/tui), a line of 34 bytes of text costs about 1.5 bytes, most of
 * it its duration: see doc/views.md.  What deflate is given is what it
 * compresses at little cost (long matches of records that repeat from
 * call to call, a block's few distinct texts once): the durations, the
 * texts of every line, the records' distances and a window slid within a
 * block would be most of the indexing's time.
 *
 * Making it: the replay (the tree, one thread after another) runs in a
 * child process writing the text into a pipe; the browser reads it as it
 * comes and gives each line its depth (the tree's indentation, or its
 * "[depth N]"), its parent and, when the line that ends its subtree
 * comes, its end: a closing "}" at the same depth, or the last line
 * before one as shallow.  Most lines are one of a few but for their
 * duration: what is read of a line is kept by its bytes after the
 * duration (struct parse_slot), so that such a line costs its duration,
 * a hash and a comparison.  Blocks are written behind, WRITE_BYTES at
 * once.  Memory: the stack of the open calls (as deep as the tree), the
 * block being filled and its table of texts, a read buffer of 1 MiB, the
 * blocks written behind (256 KiB, or one block larger), PARSE_SLOTS
 * lines read (26 KiB), and a cache of CACHE_BLOCKS decoded blocks; none
 * of it grows with the trace.
 *
 * The files are the user's alone (mode 0600), as the trace, and never
 * opened through a symbolic link or when another user owns them (then
 * the cache directory serves).  Two browsers may read one index; while
 * one makes it (an exclusive lock), another says so and stops.  A
 * damaged sidecar shows its lines as empty "#" lines, never crashes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ */
#endif
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
#include <zlib.h>

#include "tui/tui.h"
#include "util/util.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define TUIX_MAGIC "ctrtuix5"
#define HEADER_SIZE 64
#define DIR_ENTRY 32
#define BLOCK_LINES 1024 /* a block given to deflate fits its 32 KiB window */
#define CACHE_BLOCKS 8
#define CHUNK (1u << 20)
#define LATE 0 /* an end code: in the slots after the block */
#define NO_SHAPE UINT16_MAX
#define TEXT_SLOTS (2 * BLOCK_LINES) /* a table at most half full */
/* Blocks are written behind, this many bytes or blocks at once: a write
 * or two a block (and one a late end) took a tenth of the indexing */
#define WRITE_BYTES (256u << 10)
#define WRITE_BLOCKS 256

enum { STATE_BUILDING = 0, STATE_COMPLETE = 1 };

struct tuix_header {
	char magic[8];
	uint32_t state;
	int32_t status;     /* the replay's exit status */
	uint64_t key;
	uint64_t n_lines;
	uint64_t tree_size; /* of the .tui-tree file */
	uint64_t text_size; /* the tree's text, uncompressed */
	uint64_t reserved[2];
};

/* One block's entry in the index. */
struct dir_entry {
	uint64_t off;    /* of its deflate stream in the .tui-tree file */
	uint32_t zlen;   /* the stream's size; its late ends follow it */
	uint32_t rawlen; /* the records and text, uncompressed */
	uint32_t n_lines;
	uint32_t n_late;
	uint32_t dlen;   /* its durations' codes, after the late ends */
	uint32_t reserved;
};

/* Lines first.. of one block, decoded (or being filled); a line's off
 * is where its text starts in text. */
struct block {
	uint64_t first; /* TUIX_NONE: empty */
	uint32_t n;
	struct tuix_line lines[BLOCK_LINES];
	char *text;
	size_t len, cap;
	uint64_t used; /* for the cache's choice of a block to replace */
};

/* What add_line reads of a line's bytes (parse_line), its duration
 * known: where its bar ("] | ", NO_SHAPE when none: a head line) and
 * thread column ("[") are, its depth, whether its text starts with "}",
 * and what code_line wants of it (col_off: its thread column, or
 * NO_SHAPE when the line is not shaped; rest_off: its text after the
 * indentation). */
struct parse {
	uint16_t bar, col, col_off, rest_off;
	uint32_t depth;
	bool close;
};

/* Most lines are one of a few seen before but for their duration ("  0.030
 * us [ 11848] |       leaf();"): what add_line reads of them is kept by
 * the bytes after the duration (the duration's length, the key), with
 * the number of its text in the table of the block of generation gen.
 * A line longer than PARSE_KEY after its duration is read each time. */
#define PARSE_SLOTS 256
#define PARSE_KEY 64
struct parse_slot {
	uint32_t hash;
	uint8_t n, klen;
	bool used;
	uint16_t id;
	char key[PARSE_KEY];
	struct parse p;
	uint64_t gen;
};

struct open_call {
	uint64_t line;
	uint64_t slot; /* where its end goes once its block is written */
	uint32_t depth;
};

struct tuix {
	int tree_fd, idx_fd;
	char *tree_path, *idx_path, *log_path;
	uint64_t key;
	uint64_t n;         /* lines indexed */
	uint64_t tree_size; /* of the .tui-tree file */
	uint64_t text_size;
	bool complete;
	int status;
	/* making it */
	pid_t child;
	int pipe_fd;
	char *chunk;        /* what the pipe gave, not a whole line yet */
	size_t chunk_len;
	bool skipping;      /* a line cut: its rest is skipped */
	struct block *fill; /* the block being filled */
	unsigned char *raw, *z;
	size_t raw_cap, z_cap;
	z_stream def;
	bool def_ok;
	struct open_call *stack;
	size_t sp, stack_cap;
	char tid[64]; /* the thread column of the previous line */
	size_t tid_len;
	/* the block being filled, coded as its lines come (code_line):
	 * each line's shape, thread column, the length of the column kept
	 * (SHAPE_TID) and its text's number in the block's table; the
	 * durations' codes */
	uint8_t shape[BLOCK_LINES];
	uint16_t col[BLOCK_LINES], tidl[BLOCK_LINES], id[BLOCK_LINES];
	bool shaped; /* the block's last line */
	unsigned char dur[BLOCK_LINES * 10];
	size_t dl;
	/* the table of the block's distinct texts: a hash table of
	 * TEXT_SLOTS slots (an entry + 1, 0 for none), and for each entry
	 * its hash, where its first line's text is in the block, its
	 * length */
	uint16_t slot[TEXT_SLOTS];
	uint32_t t_hash[BLOCK_LINES], t_off[BLOCK_LINES];
	uint16_t t_len[BLOCK_LINES];
	uint32_t n_texts;
	uint64_t gen; /* blocks written: the table's generation */
	struct parse_slot parsed[PARSE_SLOTS];
	/* written behind (write_out): the tree file from woff on, the
	 * directory's entries from block wblk on */
	unsigned char *wbuf;
	size_t wlen, wcap;
	uint64_t woff, wblk;
	struct dir_entry wdir[WRITE_BLOCKS];
	uint32_t n_wdir;
	/* reading */
	struct block *cache[CACHE_BLOCKS];
	uint64_t clock;
	z_stream inf;
	bool inf_ok;
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
	ix->tree_path = concat(base, ".tui-tree");
	ix->log_path = concat(base, ".tui-log");
	ix->idx_fd = open_own(ix->idx_path);
	if (ix->idx_fd >= 0) {
		ix->tree_fd = open_own(ix->tree_path);
		if (ix->tree_fd >= 0)
			return true;
		close(ix->idx_fd);
	}
	free(ix->idx_path);
	free(ix->tree_path);
	free(ix->log_path);
	ix->idx_fd = ix->tree_fd = -1;
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
	h.tree_size = ix->tree_size;
	h.text_size = ix->text_size;
	if (pwrite(ix->idx_fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
		warn_msg(errno, "%s: write error", ix->idx_path);
}

static uint64_t n_blocks(uint64_t lines)
{
	return (lines + BLOCK_LINES - 1) / BLOCK_LINES;
}

/* Whether the files hold a complete index of this key. */
static bool reusable(struct tuix *ix)
{
	struct tuix_header h;
	struct stat st;

	if (!read_header(ix, &h) || h.state != STATE_COMPLETE ||
	    h.key != ix->key || fstat(ix->tree_fd, &st) != 0 ||
	    (uint64_t)st.st_size != h.tree_size ||
	    fstat(ix->idx_fd, &st) != 0 || h.n_lines > UINT64_MAX / 2 ||
	    (uint64_t)st.st_size != HEADER_SIZE + DIR_ENTRY * n_blocks(h.n_lines))
		return false;
	ix->n = h.n_lines;
	ix->tree_size = h.tree_size;
	ix->text_size = h.text_size;
	ix->status = h.status;
	ix->complete = true;
	return true;
}

static struct block *new_block(void)
{
	struct block *b = must_calloc(1, sizeof *b);

	b->first = TUIX_NONE;
	return b;
}

static void free_block(struct block *b)
{
	if (b)
		free(b->text);
	free(b);
}

/* Appends n bytes to the block's text. */
static void block_text(struct block *b, const char *s, size_t n)
{
	if (n > b->cap - b->len) {
		b->cap = b->cap ? b->cap : 64 * 1024;
		while (n > b->cap - b->len)
			b->cap *= 2;
		b->text = must_realloc(b->text, b->cap, 1);
	}
	if (n)
		memcpy(b->text + b->len, s, n);
	b->len += n;
}

/* The number of spaces s starts with, of its n bytes. */
static size_t spaces(const char *s, size_t n)
{
	size_t k = 0;

	/* 8 at a time: the indentation is most of a line */
	for (uint64_t w; k + 8 <= n; k += 8) {
		memcpy(&w, s + k, 8);
		w ^= 0x2020202020202020u;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (w)
			return k + (size_t)__builtin_ctzll(w) / 8;
#else
		if (w)
			break;
#endif
	}
	while (k < n && s[k] == ' ')
		k++;
	return k;
}

/* Appends a line read, of n bytes at s, to the block being filled: for
 * most lines, 16 bytes at a time (the text and the read buffer have
 * COPY_SLACK bytes of room after them), not memcpy's call and its rep
 * movs, half of the indexing's samples on short lines. */
#define COPY_SLACK 16
static inline void fill_text(struct block *b, const char *s, size_t n)
{
	if (n > 256 || n + COPY_SLACK > b->cap - b->len) {
		block_text(b, s, n);
		return;
	}
	for (size_t k = 0; k < n; k += 16)
		memcpy(b->text + b->len + k, s + k, 16);
	b->len += n;
}

/* Appends n spaces to the block's text. */
static void block_spaces(struct block *b, size_t n)
{
	static const char sp[64] = "                                "
				   "                                ";

	for (; n > sizeof sp; n -= sizeof sp)
		block_text(b, sp, sizeof sp);
	block_text(b, sp, n);
}

/* ---------------------------------------------------------------------------
 * A block written, a block read
 * ------------------------------------------------------------------------ */

static size_t put_uleb(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	if (v < 0x80) { /* most */
		*p = (unsigned char)v;
		return 1;
	}
	do {
		unsigned char c = v & 0x7f;
		v >>= 7;
		p[n++] = (unsigned char)(c | (v ? 0x80 : 0));
	} while (v);
	return n;
}

/* The next LEB128 of [*p, end), false past the end or over 64 bits. */
static bool get_uleb(const unsigned char **p, const unsigned char *end,
		     uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char c = *(*p)++;
		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

static uint32_t line_len(const struct block *b, uint32_t k)
{
	uint64_t end = k + 1 < b->n ? b->lines[k + 1].off : b->len;

	return (uint32_t)(end - b->lines[k].off);
}

static void grow(unsigned char **p, size_t *cap, size_t need)
{
	if (need > *cap) {
		*cap = need + need / 2;
		*p = must_realloc(*p, *cap, 1);
	}
}

/* A line's duration column ("  0.018 us"), kept out of the deflate
 * stream: its digits are most of deflate's work (literals, each a search
 * of the window) but a few bits as a number.  A line starting with a
 * number right-aligned in 3 columns (1 to 9 digits, no leading zero,
 * spaces before it up to 3 columns), a point, 3 digits, a space and
 * "us", "ms" or " s" has the code 1 + (v << 2 | unit), v the number in
 * thousandths; any other line the code DUR_NONE.  The code gives back
 * the same bytes. */
#define DUR_NONE 0
#define DUR_LEN_MAX 20
static const char dur_units[3][2] = {{'u', 's'}, {'m', 's'}, {' ', 's'}};

/* The code of the line s (len bytes); the duration's length in *n (0 for
 * DUR_NONE). */
static uint64_t dur_code(const char *s, size_t len, size_t *n)
{
	size_t i = 0, d0;
	uint64_t v = 0;
	unsigned u;

	*n = 0;
	/* most: 1 to 3 digits before the point, at the 4th byte */
	if (len >= 10 && s[3] == '.' && s[7] == ' ') {
		unsigned d0 = (unsigned char)s[0] - '0';
		unsigned d1 = (unsigned char)s[1] - '0';
		unsigned d2 = (unsigned char)s[2] - '0';
		unsigned f0 = (unsigned char)s[4] - '0';
		unsigned f1 = (unsigned char)s[5] - '0';
		unsigned f2 = (unsigned char)s[6] - '0';
		bool ok = d2 <= 9 && f0 <= 9 && f1 <= 9 && f2 <= 9;
		if (s[0] == ' ' && s[1] == ' ')
			v = d2;
		else if (s[0] == ' ' && d1 >= 1 && d1 <= 9)
			v = d1 * 10 + d2;
		else if (d0 >= 1 && d0 <= 9 && d1 <= 9)
			v = d0 * 100 + d1 * 10 + d2;
		else
			ok = false;
		for (u = 0; ok && u < 3; u++)
			if (s[8] == dur_units[u][0] && s[9] == dur_units[u][1]) {
				*n = 10;
				return 1 + ((v * 1000 + f0 * 100 + f1 * 10 +
					     f2) << 2 | u);
			}
		v = 0;
	}
	while (i < len && i < 3 && s[i] == ' ')
		i++;
	d0 = i;
	while (i < len && i - d0 < 9 && s[i] >= '0' && s[i] <= '9')
		v = v * 10 + (uint64_t)(s[i++] - '0');
	if (i == d0 || (s[d0] == '0' && i - d0 > 1) ||
	    (i - d0 < 3 && i != 3) || (i - d0 >= 3 && d0) || len - i < 7 ||
	    s[i] != '.' || s[i + 4] != ' ')
		return DUR_NONE;
	for (size_t k = i + 1; k < i + 4; k++) {
		if (s[k] < '0' || s[k] > '9')
			return DUR_NONE;
		v = v * 10 + (uint64_t)(s[k] - '0');
	}
	for (u = 0; u < 3; u++)
		if (s[i + 5] == dur_units[u][0] && s[i + 6] == dur_units[u][1])
			break;
	if (u == 3)
		return DUR_NONE;
	*n = i + 7;
	return 1 + (v << 2 | u);
}

/* The duration of code c appended to the block's text; false when c is
 * no code. */
static bool dur_text(struct block *b, uint64_t c)
{
	char buf[DUR_LEN_MAX], digits[20];
	uint64_t v = (c - 1) >> 2;
	unsigned u = (c - 1) & 3;
	size_t len = 0, nd;

	if (c == DUR_NONE)
		return true;
	if (u == 3 || v / 1000 >= 1000000000u)
		return false;
	nd = outbuf_format_u64(digits, v / 1000);
	for (size_t k = nd; k < 3; k++)
		buf[len++] = ' ';
	memcpy(buf + len, digits, nd);
	len += nd;
	buf[len++] = '.';
	buf[len++] = (char)('0' + v / 100 % 10);
	buf[len++] = (char)('0' + v / 10 % 10);
	buf[len++] = (char)('0' + v % 10);
	buf[len++] = ' ';
	buf[len++] = dur_units[u][0];
	buf[len++] = dur_units[u][1];
	block_text(b, buf, len);
	return true;
}

/* A line's parent and end are coded as what most lines repeat, that
 * deflate finds at little cost, rather than as distances that differ
 * from line to line.  A parent: */
enum {
	PARENT_SAME = 0, /* the previous line's (none for a block's first) */
	PARENT_NONE = 1, /* else the line minus its parent plus 1 */
};
/* The end of a call's line (LATE: in a slot after the block): */
enum {
	END_SELF = 1,  /* the line itself (a leaf, a head line) */
	END_CLOSE = 2, /* its closing line, further in the block; else
			* the end minus the line plus END_CLOSE */
};
/* and of a closing line: END_OPEN, the innermost call opened in the
 * block (END_CLOSE) not closed yet, else the line minus the one it
 * closes.  The closing lines nest as their calls (add_line). */
#define END_OPEN 0
/* A line's depth and flags are one number (depth << 2 | flags), its
 * parent and end one byte, parent | end << 3, when the parent's code is
 * below PE_PARENTS and the end's below PE_ENDS (most: the previous
 * line's parent, a leaf, a call closed in the block), else PE_ESCAPE
 * followed by both: deflate's time goes with the bytes it is given. */
#define PE_PARENTS 8
#define PE_ENDS 15
#define PE_ESCAPE 127

/* A line's shape: most lines are "<duration><spaces>[ tid] | <depth
 * times 2 spaces><function...>", and deflate is given only what follows
 * the indentation, the columns being the same from line to line (made
 * again from the depth and the block's last thread column).  A line is
 * SHAPE_RAW, kept whole after its duration, or 1 + (the spaces before
 * its thread column << 1 | SHAPE_TID), SHAPE_TID when its thread column
 * is not the one of the previous shaped line of its block: then the
 * column's length follows, and its bytes are in the block's text. */
enum { SHAPE_RAW = 0, SHAPE_TID = 1 };
#define SHAPE_SPACES_MAX 64 /* before the thread column, as add_line */

/* What is kept of a line's text (after its indentation, or after its
 * duration for SHAPE_RAW) is one of the block's table of distinct texts,
 * by its number: most lines repeat a few texts ("leaf();", "mid() {"),
 * and deflate is given each text once and a number a line, not the
 * text of every line.  The code is the entry's number plus 1, or
 * TEXT_NEW for a new entry (the next number): its length follows, and
 * its bytes are in the block's text.  A constant for the new ones, so
 * that lines that all differ (arguments) cost no growing numbers. */
#define TEXT_NEW 0

/* Whether the n bytes at a and b are the same: most texts, thread
 * columns and lines after their duration are 4 to 64 bytes, compared a
 * word at a time, the last word read again, rather than by a call. */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	uint32_t x4, y4, z4, w4;

	if (n >= 8) {
		for (size_t k = 0; k + 8 < n; k += 8) {
			memcpy(&x, a + k, 8);
			memcpy(&y, b + k, 8);
			if (x != y)
				return false;
		}
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&x4, a, 4);
		memcpy(&y4, b, 4);
		memcpy(&z4, a + n - 4, 4);
		memcpy(&w4, b + n - 4, 4);
		return !((x4 ^ y4) | (z4 ^ w4));
	}
	return !memcmp(a, b, n);
}

/* The hash of a text of n bytes: 8 bytes at a time, the last 8 read
 * again rather than byte by byte (2 overlapping 4-byte words below 8).
 * Equal hashes are compared in full. */
static inline uint32_t text_hash(const char *s, size_t n)
{
	uint64_t h = n, w = 0;
	uint32_t a, b;

	if (n < 8) {
		if (n >= 4) {
			memcpy(&a, s, 4);
			memcpy(&b, s + n - 4, 4);
			w = (uint64_t)a << 32 | b;
		} else {
			for (size_t k = 0; k < n; k++)
				w = w << 8 | (unsigned char)s[k];
		}
		h = (h ^ w) * 0x9e3779b97f4a7c15u;
		return (uint32_t)(h >> 32);
	}
	for (size_t k = 0; k + 8 < n; k += 8) {
		memcpy(&w, s + k, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15u;
		h ^= h >> 29;
	}
	memcpy(&w, s + n - 8, 8);
	h = (h ^ w) * 0x9e3779b97f4a7c15u;
	return (uint32_t)(h >> 32);
}

/* The number of the text t of n bytes in the block being filled's
 * table, a new entry (at `off` in the block's text) if it is not there.
 * t is the line as read, not its copy in the block, just written: read
 * back at once, a copy stalls the loads. */
static uint16_t text_id(struct tuix *ix, const char *t, uint32_t off,
			size_t n)
{
	uint32_t h = text_hash(t, n), i = h & (TEXT_SLOTS - 1), e;

	for (;; i = (i + 1) & (TEXT_SLOTS - 1)) {
		if (!ix->slot[i])
			break;
		e = ix->slot[i] - 1u;
		if (ix->t_hash[e] == h && ix->t_len[e] == n &&
		    same_bytes(ix->fill->text + ix->t_off[e], t, n))
			return (uint16_t)e;
	}
	e = ix->n_texts++;
	ix->slot[i] = (uint16_t)(e + 1);
	ix->t_hash[e] = h;
	ix->t_off[e] = off;
	ix->t_len[e] = (uint16_t)n;
	return (uint16_t)e;
}

/* Codes the line just added to the block being filled, of len bytes at
 * s (cut to TUIX_TEXT_MAX), the code dur of its duration of n bytes, p
 * what add_line read of it: its duration, its shape and its text's
 * number (kept in slot, if any, for the lines like it in this block). */
static void code_line(struct tuix *ix, const char *s, size_t len,
		      uint64_t dur, size_t n, const struct parse *p,
		      bool same_tid, struct parse_slot *slot)
{
	struct block *b = ix->fill;
	uint32_t k = b->n - 1;
	size_t from = n, col = p->col_off, rest = p->rest_off;
	uint16_t id;

	ix->dl += put_uleb(ix->dur + ix->dl, dur);
	ix->tidl[k] = 0;
	ix->shape[k] = SHAPE_RAW;
	/* the thread column is the previous shaped line's when that is the
	 * previous line and add_line found them the same */
	if (col != NO_SHAPE) {
		bool same = ix->shaped && same_tid;
		ix->shape[k] = (uint8_t)(1 + ((col - n) << 1 |
					      (same ? 0 : SHAPE_TID)));
		if (!same)
			ix->tidl[k] = (uint16_t)(rest - 4 -
						 2 * (size_t)p->depth - col);
		ix->col[k] = (uint16_t)col;
		from = rest;
		ix->shaped = true;
	} else {
		ix->shaped = false;
	}
	if (slot && slot->gen == ix->gen) {
		id = slot->id;
	} else {
		id = text_id(ix, s + from, (uint32_t)(b->lines[k].off + from),
			     len - from);
		if (slot) {
			slot->id = id;
			slot->gen = ix->gen;
		}
	}
	ix->id[k] = id;
}

/* Whether the call of line `line` ends at a closing line of block b. */
static bool closed_in_block(const struct block *b, uint64_t line,
			    uint64_t end)
{
	return end - b->first < b->n &&
	       (b->lines[end - b->first].flags & TUIX_CLOSE) &&
	       b->lines[end - b->first].end == line;
}

/* Whether a closing line of block b closes the call of line `open`
 * coded END_CLOSE. */
static bool closes_in_block(const struct block *b, uint64_t open)
{
	return open >= b->first && open - b->first < b->n &&
	       !(b->lines[open - b->first].flags & TUIX_CLOSE) &&
	       closed_in_block(b, open, b->lines[open - b->first].end);
}

/* Writes what was written behind. */
static void write_out(struct tuix *ix)
{
	if (ix->wlen && pwrite(ix->tree_fd, ix->wbuf, ix->wlen,
			       (off_t)ix->woff) != (ssize_t)ix->wlen)
		warn_msg(errno, "%s: write error", ix->tree_path);
	if (ix->n_wdir &&
	    pwrite(ix->idx_fd, ix->wdir, sizeof *ix->wdir * ix->n_wdir,
		   (off_t)(HEADER_SIZE + DIR_ENTRY * ix->wblk)) !=
		    (ssize_t)(sizeof *ix->wdir * ix->n_wdir))
		warn_msg(errno, "%s: write error", ix->idx_path);
	ix->woff += ix->wlen;
	ix->wlen = 0;
	ix->wblk += ix->n_wdir;
	ix->n_wdir = 0;
}

/* Writes the block being filled at the end of the tree file (behind);
 * the calls of its lines still open get their slot. */
static void flush_block(struct tuix *ix)
{
	struct block *b = ix->fill;
	struct dir_entry d;
	size_t rl = 0, k, late_sp, dl = ix->dl;
	uint32_t n_late = 0, seen = 0;
	uint64_t size, parent = TUIX_NONE;
	unsigned char *r, *z;

	if (!b->n)
		return;
	grow(&ix->raw, &ix->raw_cap, (size_t)b->n * 8 * 10 + b->len);
	r = ix->raw;
	for (uint32_t i = 0; i < b->n; i++) {
		const struct tuix_line *l = &b->lines[i];
		uint64_t line = b->first + i, end, pc;
		/* a closing line's parent is its call's: the previous
		 * line's would be a distance growing from call to call */
		uint64_t same = (l->flags & TUIX_CLOSE) && l->end >= b->first &&
						l->end < line
					? b->lines[l->end - b->first].parent
					: parent;
		pc = l->parent == same	      ? PARENT_SAME
		     : l->parent == TUIX_NONE ? PARENT_NONE
					      : line - l->parent + 1;
		parent = l->parent;
		if (l->flags & TUIX_CLOSE)
			end = closes_in_block(b, l->end) ? END_OPEN
							 : line - l->end;
		else if (l->end == TUIX_NONE)
			end = LATE, n_late++;
		else if (l->end == line)
			end = END_SELF;
		else if (closed_in_block(b, line, l->end))
			end = END_CLOSE;
		else
			end = l->end - line + END_CLOSE;
		rl += put_uleb(r + rl, (uint64_t)l->depth << 2 | l->flags);
		if (pc < PE_PARENTS && end < PE_ENDS) {
			r[rl++] = (unsigned char)(pc | end << 3);
		} else {
			r[rl++] = PE_ESCAPE;
			rl += put_uleb(r + rl, pc);
			rl += put_uleb(r + rl, end);
		}
		rl += put_uleb(r + rl, ix->shape[i]);
		if (ix->shape[i] != SHAPE_RAW &&
		    ((ix->shape[i] - 1) & SHAPE_TID))
			rl += put_uleb(r + rl, ix->tidl[i]);
		if (ix->id[i] != seen) {
			rl += put_uleb(r + rl, ix->id[i] + 1u);
		} else {
			r[rl++] = TEXT_NEW;
			rl += put_uleb(r + rl, ix->t_len[seen]);
			seen++;
		}
	}
	/* then the thread columns and the new texts, line after line */
	seen = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		if (ix->tidl[i]) {
			memcpy(r + rl, b->text + b->lines[i].off + ix->col[i],
			       ix->tidl[i]);
			rl += ix->tidl[i];
		}
		if (ix->id[i] == seen) {
			memcpy(r + rl, b->text + ix->t_off[seen],
			       ix->t_len[seen]);
			rl += ix->t_len[seen];
			seen++;
		}
	}

	grow(&ix->wbuf, &ix->wcap,
	     ix->wlen + deflateBound(&ix->def, rl) + 8 * (size_t)n_late + dl);
	z = ix->wbuf + ix->wlen;
	deflateReset(&ix->def);
	ix->def.next_in = ix->raw;
	ix->def.avail_in = (uInt)rl;
	ix->def.next_out = z;
	ix->def.avail_out = (uInt)(ix->wcap - ix->wlen);
	if (deflate(&ix->def, Z_FINISH) != Z_STREAM_END)
		warn_msg(0, "%s: cannot compress a block", ix->tree_path);
	d = (struct dir_entry){ix->tree_size, (uint32_t)ix->def.total_out,
			       (uint32_t)rl, b->n, n_late, (uint32_t)dl, 0};

	/* the open calls of this block are the top of the stack (the
	 * newest line, of the next block, excepted) in the order of their
	 * lines, as the late ends in the block */
	late_sp = ix->sp;
	while (late_sp && ix->stack[late_sp - 1].line >= b->first + b->n)
		late_sp--;
	k = late_sp;
	while (k && ix->stack[k - 1].line >= b->first)
		k--;
	for (uint32_t j = 0; j < n_late; j++) {
		uint64_t none = TUIX_NONE;
		memcpy(z + d.zlen + 8 * j, &none, 8);
		if (k + j < late_sp)
			ix->stack[k + j].slot = d.off + d.zlen + 8 * j;
	}
	memcpy(z + d.zlen + 8 * (size_t)n_late, ix->dur, dl);
	size = d.zlen + 8 * (uint64_t)n_late + dl;
	ix->wlen += (size_t)size;
	ix->wdir[ix->n_wdir++] = d;
	ix->tree_size += size;
	if (ix->wlen >= WRITE_BYTES || ix->n_wdir == WRITE_BLOCKS)
		write_out(ix);
	b->first += b->n;
	b->n = 0;
	b->len = 0;
	ix->dl = 0;
	ix->shaped = false;
	ix->n_texts = 0;
	ix->gen++;
	memset(ix->slot, 0, sizeof ix->slot);
}

/* One line's record: depth, flags, parent, end, shape, the length of
 * its thread column kept (0 but for SHAPE_TID), its text's number and,
 * for a new one, its length. */
struct record {
	uint64_t v[4];
	uint64_t shape, tidl, id, len;
};

/* The next record of [*p, end), n_texts the table's entries so far;
 * false when it is damaged. */
static bool get_record(const unsigned char **p, const unsigned char *end,
		       struct record *r, uint32_t n_texts)
{
	uint64_t df;
	unsigned c;

	if (!get_uleb(p, end, &df) || *p == end)
		return false;
	r->v[0] = df >> 2;
	r->v[1] = df & 3;
	c = *(*p)++;
	if (c < PE_ESCAPE) {
		r->v[2] = c & 7;
		r->v[3] = c >> 3;
	} else if (c != PE_ESCAPE || !get_uleb(p, end, &r->v[2]) ||
		   !get_uleb(p, end, &r->v[3])) {
		return false;
	}
	if (!get_uleb(p, end, &r->shape))
		return false;
	r->tidl = r->len = 0;
	if (r->shape != SHAPE_RAW && ((r->shape - 1) & SHAPE_TID) &&
	    (!get_uleb(p, end, &r->tidl) || r->tidl > TUIX_TEXT_MAX))
		return false;
	if (!get_uleb(p, end, &r->id) || r->id > n_texts)
		return false;
	if (r->id != TEXT_NEW) {
		r->id--;
		return true;
	}
	r->id = n_texts;
	return get_uleb(p, end, &r->len) && r->len <= TUIX_TEXT_MAX;
}

/* Block blk read into b; false when the sidecar is damaged. */
static bool load_block(struct tuix *ix, uint64_t blk, struct block *b)
{
	struct dir_entry d;
	const unsigned char *p, *end, *dp, *dend;
	uint64_t first = blk * BLOCK_LINES, text = 0, late[BLOCK_LINES], size;
	uint64_t parent = TUIX_NONE;
	uint32_t n_late = 0, open[BLOCK_LINES], sp = 0, n_texts = 0;
	uint32_t t_off[BLOCK_LINES];
	uint16_t t_len[BLOCK_LINES];
	const char *ref = NULL; /* the last thread column (SHAPE_TID) */
	size_t ref_len = 0;
	struct record r;

	b->first = TUIX_NONE;
	b->n = 0;
	b->len = 0;
	if (blk >= ix->wblk && blk - ix->wblk < ix->n_wdir)
		d = ix->wdir[blk - ix->wblk]; /* not written yet */
	else if (pread(ix->idx_fd, &d, sizeof d,
		       (off_t)(HEADER_SIZE + DIR_ENTRY * blk)) != sizeof d)
		return false;
	if (d.n_lines == 0 || d.n_lines > BLOCK_LINES ||
	    d.n_late > d.n_lines || d.dlen > BLOCK_LINES * 10 ||
	    d.rawlen > BLOCK_LINES * (8 * 10 + 2 * TUIX_TEXT_MAX))
		return false;
	size = d.zlen + 8 * (uint64_t)d.n_late + d.dlen;
	if (size > ix->tree_size || d.off > ix->tree_size - size)
		return false;
	/* the stream, its late ends and its durations: one read */
	grow(&ix->z, &ix->z_cap, (size_t)size);
	grow(&ix->raw, &ix->raw_cap, d.rawlen);
	if (d.off >= ix->woff && d.off - ix->woff < ix->wlen &&
	    size <= ix->wlen - (d.off - ix->woff))
		memcpy(ix->z, ix->wbuf + (d.off - ix->woff), (size_t)size);
	else if (pread(ix->tree_fd, ix->z, (size_t)size, (off_t)d.off) !=
		 (ssize_t)size)
		return false;
	memcpy(late, ix->z + d.zlen, 8 * (size_t)d.n_late);
	dp = ix->z + d.zlen + 8 * (size_t)d.n_late;
	dend = dp + d.dlen;
	inflateReset(&ix->inf);
	ix->inf.next_in = ix->z;
	ix->inf.avail_in = d.zlen;
	ix->inf.next_out = ix->raw;
	ix->inf.avail_out = d.rawlen;
	if (inflate(&ix->inf, Z_FINISH) != Z_STREAM_END ||
	    ix->inf.total_out != d.rawlen)
		return false;
	p = ix->raw;
	end = ix->raw + d.rawlen;
	/* the records first: where the text starts */
	for (uint32_t i = 0; i < d.n_lines; i++) {
		if (!get_record(&p, end, &r, n_texts))
			return false;
		text += r.tidl + r.len;
		n_texts += r.id == n_texts;
	}
	if ((uint64_t)(end - p) != text)
		return false;
	text = (uint64_t)(p - ix->raw); /* now: where the next text is */
	p = ix->raw;
	n_texts = 0;
	for (uint32_t i = 0; i < d.n_lines; i++) {
		struct tuix_line *l = &b->lines[i];
		uint64_t line = first + i, c, *v = r.v;
		get_record(&p, end, &r, n_texts);
		if (v[0] > UINT32_MAX || v[1] > (TUIX_HEAD | TUIX_CLOSE) ||
		    v[2] > line + 1)
			return false;
		l->depth = (uint32_t)v[0];
		l->flags = (uint32_t)v[1];
		if (l->flags & TUIX_CLOSE) {
			if (v[3] == END_OPEN) {
				if (!sp)
					return false;
				b->lines[open[--sp]].end = line;
				l->end = first + open[sp];
			} else if (v[3] > line) {
				return false;
			} else {
				l->end = line - v[3];
			}
		} else if (v[3] == END_SELF) {
			l->end = line;
		} else if (v[3] == END_CLOSE) {
			l->end = TUIX_NONE; /* its closing line's */
			open[sp++] = i;
		} else if (v[3] == LATE) {
			if (n_late == d.n_late)
				return false;
			l->end = late[n_late++];
			if (l->end != TUIX_NONE && l->end < line)
				return false;
		} else {
			l->end = line + v[3] - END_CLOSE;
		}
		if ((l->flags & TUIX_CLOSE) && l->end >= first)
			parent = b->lines[l->end - first].parent; /* its call's */
		l->parent = v[2] == PARENT_SAME	  ? parent
			    : v[2] == PARENT_NONE ? TUIX_NONE
						  : line + 1 - v[2];
		parent = l->parent;
		l->off = b->len;
		if (!get_uleb(&dp, dend, &c) || !dur_text(b, c))
			return false;
		if (r.shape != SHAPE_RAW) {
			if ((r.shape - 1) >> 1 > SHAPE_SPACES_MAX ||
			    v[0] > TUIX_TEXT_MAX / 2)
				return false;
			if ((r.shape - 1) & SHAPE_TID) {
				ref = (const char *)ix->raw + text;
				ref_len = (size_t)r.tidl;
				text += r.tidl;
			} else if (!ref) {
				return false;
			}
			block_spaces(b, (size_t)(r.shape - 1) >> 1);
			block_text(b, ref, ref_len);
			block_text(b, "] | ", 4);
			block_spaces(b, 2 * (size_t)v[0]);
		}
		if (r.id == n_texts) {
			t_off[n_texts] = (uint32_t)text;
			t_len[n_texts++] = (uint16_t)r.len;
			text += r.len;
		}
		block_text(b, (const char *)ix->raw + t_off[r.id],
			   t_len[r.id]);
	}
	if (n_late != d.n_late || dp != dend || sp)
		return false;
	b->n = d.n_lines;
	b->first = first;
	return true;
}

/* The block holding line i: the one being filled, a cached one, or one
 * read into the cache; NULL when the sidecar is damaged there. */
static struct block *block_of(struct tuix *ix, uint64_t i)
{
	uint64_t first = i - i % BLOCK_LINES;
	struct block *victim = NULL;

	if (ix->fill && i >= ix->fill->first)
		return ix->fill;
	for (int k = 0; k < CACHE_BLOCKS; k++) {
		struct block *b = ix->cache[k];
		if (!b) {
			victim = ix->cache[k] = new_block();
			break;
		}
		if (b->first == first) {
			b->used = ++ix->clock;
			return b;
		}
		if (!victim || b->used < victim->used)
			victim = b;
	}
	if (!ix->inf_ok) {
		if (inflateInit2(&ix->inf, -15) != Z_OK)
			return NULL;
		ix->inf_ok = true;
	}
	victim->used = ++ix->clock;
	return load_block(ix, first / BLOCK_LINES, victim) ? victim : NULL;
}

/* Forgets the cached block of line i (its late end was written). */
static void uncache(struct tuix *ix, uint64_t i)
{
	uint64_t first = i - i % BLOCK_LINES;

	for (int k = 0; k < CACHE_BLOCKS; k++)
		if (ix->cache[k] && ix->cache[k]->first == first)
			ix->cache[k]->first = TUIX_NONE;
}

/* ---------------------------------------------------------------------------
 * Making it
 * ------------------------------------------------------------------------ */

static void start_child(struct tuix *ix, const struct tui_params *p)
{
	int log = open_own(ix->log_path), fds[2];

	if (log >= 0 && ftruncate(log, 0) != 0) {
		close(log);
		log = -1;
	}
	if (pipe2(fds, O_CLOEXEC) != 0) {
		warn_msg(errno, "pipe");
		ix->child = -1;
		ix->pipe_fd = -1;
		if (log >= 0)
			close(log);
		return;
	}
	/* a larger pipe: fewer stops of the replay between two polls */
	fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);
	ix->child = fork();
	if (ix->child == 0) {
		int null = open("/dev/null", O_RDWR);
		/* a browser that dies leaves no replay writing on */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(log >= 0 ? log : null, STDERR_FILENO);
		_exit(p->produce("tree", NULL, fds[1]));
	}
	if (log >= 0)
		close(log);
	close(fds[1]);
	ix->pipe_fd = fds[0];
	if (ix->child < 0) {
		warn_msg(errno, "fork");
		close(fds[0]);
		ix->pipe_fd = -1;
	} else {
		fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	}
}

/* Sets the end of the open call c, in the block being filled or in its
 * slot. */
static void set_end(struct tuix *ix, const struct open_call *c, uint64_t end)
{
	if (c->line >= ix->fill->first) {
		ix->fill->lines[c->line - ix->fill->first].end = end;
		return;
	}
	if (c->slot >= ix->woff && c->slot - ix->woff < ix->wlen)
		memcpy(ix->wbuf + (c->slot - ix->woff), &end, sizeof end);
	else if (pwrite(ix->tree_fd, &end, sizeof end, (off_t)c->slot) !=
		 sizeof end)
		warn_msg(errno, "%s: write error", ix->tree_path);
	uncache(ix, c->line);
}

/* Closes the open calls deeper than `depth` (all for -1), their subtrees
 * ending at the line before `line`. */
static void pop_to(struct tuix *ix, int64_t depth, uint64_t line)
{
	while (ix->sp && (int64_t)ix->stack[ix->sp - 1].depth > depth) {
		set_end(ix, &ix->stack[ix->sp - 1], line - 1);
		ix->sp--;
	}
}

/* What add_line reads of the line s of len bytes, its duration n
 * bytes. */
static void parse_line(const char *s, size_t len, size_t n, struct parse *p)
{
	const char *bar = NULL, *col, *t;
	size_t sp, col_off = NO_SHAPE, rest_off = 0;
	size_t kept = len > TUIX_TEXT_MAX ? TUIX_TEXT_MAX : len;

	*p = (struct parse){NO_SHAPE, 0, NO_SHAPE, 0, 0, false};
	if (len >= 4 && s[0] != '#') {
		/* the first "] | " starting in the first 64 bytes */
		size_t lim = len - 3 < 64 ? len - 3 : 64;
		const char *q = s;
		while ((q = memchr(q, ']', lim - (size_t)(q - s)))) {
			if (q[1] == ' ' && q[2] == '|' && q[3] == ' ') {
				bar = q;
				break;
			}
			q++;
		}
	}
	if (!bar)
		return; /* a "#" line: the header, a process begins, ... */
	/* the thread is the "[ tid" before the bar, not the columns before
	 * it: a duration differs from line to line */
	col = memrchr(s, '[', (size_t)(bar - s));
	if (!col)
		col = s;
	t = bar + 4;
	sp = spaces(t, (size_t)(s + len - t));
	t += sp;
	p->depth = (uint32_t)(sp / 2);
	if ((size_t)(s + len - t) > 7 && !memcmp(t, "[depth ", 7)) {
		p->depth = (uint32_t)strtoul(t + 7, NULL, 10);
		t = memchr(t, ']', (size_t)(s + len - t));
		t = t ? t + 2 : s + len;
	} else if (sp % 2 == 0) {
		col_off = (size_t)(col - s);
		rest_off = (size_t)(t - s);
	}
	p->bar = (uint16_t)(bar - s);
	p->col = (uint16_t)(col - s);
	p->close = t < s + len && *t == '}';
	/* shaped: spaces alone between its duration and thread column, its
	 * text after the indentation kept */
	if (col_off != NO_SHAPE && rest_off <= kept && col_off >= n &&
	    spaces(s + n, col_off - n) == col_off - n) {
		p->col_off = (uint16_t)col_off;
		p->rest_off = (uint16_t)rest_off;
	}
}

/* The hash of a line's bytes after its duration (n of them at s, at
 * most PARSE_KEY, the duration's length d): of its first, middle and
 * last 8 bytes, multiplied apart rather than one after the other (the
 * chain of a word at a time was a fifth of add_line's time).  Lines of
 * the same hash are compared in full: it chooses a slot, no more. */
static inline uint32_t key_hash(const char *s, size_t n, size_t d)
{
	uint64_t a, m, z;

	if (n < 8)
		return text_hash(s, n) ^ (uint32_t)d * 0x9e3779b1u;
	memcpy(&a, s, 8);
	memcpy(&m, s + n / 2 - 4, 8);
	memcpy(&z, s + n - 8, 8);
	a = a * 0x9e3779b97f4a7c15u ^ m * 0xc2b2ae3d27d4eb4fu ^
	    z * 0x165667b19e3779f9u ^ (n << 8 | d);
	return (uint32_t)(a >> 32 ^ a);
}

/* What add_line reads of the line s of len bytes, its duration n bytes:
 * kept in *slot for the lines like it (NULL for a line too long). */
static const struct parse *parse_of(struct tuix *ix, const char *s,
				    size_t len, size_t n, struct parse *tmp,
				    struct parse_slot **slot)
{
	size_t klen = len - n;
	uint32_t h;
	struct parse_slot *sl;

	*slot = NULL;
	if (klen > PARSE_KEY) {
		parse_line(s, len, n, tmp);
		return tmp;
	}
	h = key_hash(s + n, klen, n);
	sl = &ix->parsed[h & (PARSE_SLOTS - 1)];
	if (!sl->used || sl->hash != h || sl->n != n || sl->klen != klen ||
	    !same_bytes(sl->key, s + n, klen)) {
		parse_line(s, len, n, &sl->p);
		sl->used = true;
		sl->hash = h;
		sl->n = (uint8_t)n;
		sl->klen = (uint8_t)klen;
		memcpy(sl->key, s + n, klen);
		sl->gen = 0; /* its text's number not known */
	}
	*slot = sl;
	return &sl->p;
}

/* One line of text, of `len` bytes. */
static void add_line(struct tuix *ix, const char *s, size_t len)
{
	struct tuix_line l = {0, TUIX_NONE, TUIX_NONE, 0, 0};
	uint64_t i = ix->n, dur;
	struct parse tmp;
	struct parse_slot *slot;
	const struct parse *p;
	const char *bar, *col;
	bool same_tid = false;
	size_t n;

	dur = dur_code(s, len, &n);
	p = parse_of(ix, s, len, n, &tmp, &slot);
	if (p->bar == NO_SHAPE) {
		/* a "#" line: the header, a process begins, lost events */
		pop_to(ix, -1, i);
		ix->tid_len = 0;
		l.flags = TUIX_HEAD;
		l.end = i;
		goto add;
	}
	bar = s + p->bar;
	col = s + p->col;
	same_tid = (size_t)(bar - col) == ix->tid_len &&
		   same_bytes(ix->tid, col, ix->tid_len);
	if (!same_tid) {
		/* another thread: its calls are not the last one's */
		pop_to(ix, -1, i);
		ix->tid_len = (size_t)(bar - col) < sizeof ix->tid
				      ? (size_t)(bar - col)
				      : sizeof ix->tid - 1;
		memcpy(ix->tid, col, ix->tid_len);
	}
	l.depth = p->depth;
	pop_to(ix, p->depth, i);
	if (p->close && ix->sp && ix->stack[ix->sp - 1].depth == p->depth) {
		/* the closing line of the call open at its depth */
		struct open_call *c = &ix->stack[--ix->sp];
		set_end(ix, c, i);
		l.flags = TUIX_CLOSE;
		l.end = c->line;
		l.parent = ix->sp ? ix->stack[ix->sp - 1].line : TUIX_NONE;
		goto add;
	}
	/* the call of a sibling before it ends (the stack's depths grow,
	 * and none above this one's is left) */
	if (ix->sp && ix->stack[ix->sp - 1].depth == p->depth) {
		set_end(ix, &ix->stack[ix->sp - 1], i - 1);
		ix->sp--;
	}
	l.parent = ix->sp ? ix->stack[ix->sp - 1].line : TUIX_NONE;
	if (ix->sp == ix->stack_cap) {
		ix->stack_cap = ix->stack_cap ? 2 * ix->stack_cap : 256;
		ix->stack = must_realloc(ix->stack, ix->stack_cap,
					 sizeof *ix->stack);
	}
	ix->stack[ix->sp++] = (struct open_call){i, 0, p->depth};
add:
	/* written only now: the ends this line gave are in the block */
	if (ix->fill->n == BLOCK_LINES)
		flush_block(ix);
	if (len > TUIX_TEXT_MAX)
		len = TUIX_TEXT_MAX;
	l.off = ix->fill->len;
	ix->fill->lines[ix->fill->n++] = l;
	fill_text(ix->fill, s, len);
	code_line(ix, s, len, dur, n, p, same_tid, slot);
	ix->n++;
	ix->text_size += len + 1;
}

static void finish(struct tuix *ix)
{
	int st = 1 << 8; /* as exit(1) */

	pop_to(ix, -1, ix->n);
	flush_block(ix);
	write_out(ix);
	free(ix->wbuf);
	ix->wbuf = NULL;
	ix->wcap = 0;
	if (ix->child > 0)
		while (waitpid(ix->child, &st, 0) < 0 && errno == EINTR)
			;
	ix->child = 0;
	ix->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	ix->complete = true;
	/* killed: not an index of the whole trace, made again next time */
	write_header(ix, WIFEXITED(st) ? STATE_COMPLETE : STATE_BUILDING);
	free_block(ix->fill);
	ix->fill = NULL;
	free(ix->chunk);
	ix->chunk = NULL;
	free(ix->stack);
	ix->stack = NULL;
	if (ix->pipe_fd >= 0)
		close(ix->pipe_fd);
	ix->pipe_fd = -1;
	flock(ix->idx_fd, LOCK_SH);
}

/* The whole lines of the chunk indexed, the rest kept (or, of a line
 * longer than the chunk, its start indexed and the rest skipped). */
static void take_lines(struct tuix *ix)
{
	size_t used = 0;

	for (;;) {
		char *nl = memchr(ix->chunk + used, '\n', ix->chunk_len - used);
		if (!nl)
			break;
		if (ix->skipping)
			ix->skipping = false;
		else
			add_line(ix, ix->chunk + used,
				 (size_t)(nl - ix->chunk) - used);
		used = (size_t)(nl - ix->chunk) + 1;
	}
	if (!used && ix->chunk_len == CHUNK) {
		if (!ix->skipping)
			add_line(ix, ix->chunk, ix->chunk_len);
		ix->skipping = true;
		used = ix->chunk_len;
	}
	memmove(ix->chunk, ix->chunk + used, ix->chunk_len - used);
	ix->chunk_len -= used;
}

bool tuix_poll(struct tuix *ix, size_t budget)
{
	bool progress = false;

	while (!ix->complete && budget) {
		ssize_t got = 0;

		if (ix->pipe_fd >= 0)
			got = read(ix->pipe_fd, ix->chunk + ix->chunk_len,
				   CHUNK - ix->chunk_len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EAGAIN)
			break;
		if (got <= 0) {
			/* the end (or an error: what came is the index) */
			if (ix->chunk_len && !ix->skipping)
				add_line(ix, ix->chunk, ix->chunk_len);
			ix->chunk_len = 0;
			finish(ix);
			return true;
		}
		ix->chunk_len += (size_t)got;
		take_lines(ix);
		progress = true;
		budget = budget > (size_t)got ? budget - (size_t)got : 0;
	}
	return progress;
}

struct tuix *tuix_open(const struct tui_params *p)
{
	struct tuix *ix = must_calloc(1, sizeof *ix);
	char *base;

	ix->pipe_fd = -1;
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
	if (flock(ix->idx_fd, LOCK_SH) == 0 && reusable(ix))
		return ix;
	if (flock(ix->idx_fd, LOCK_EX | LOCK_NB) != 0) {
		warn_msg(0, "%s: another ctrace tui is reading or making this "
			    "index; try again when it is done",
			 ix->idx_path);
		tuix_close(ix);
		return NULL;
	}
	if (ftruncate(ix->tree_fd, 0) != 0 ||
	    ftruncate(ix->idx_fd, HEADER_SIZE) != 0) {
		warn_msg(errno, "%s: cannot truncate", ix->idx_path);
		tuix_close(ix);
		return NULL;
	}
	/* raw deflate: zlib's checksum would cost a tenth of the indexing,
	 * and load_block checks what it decodes; memLevel 4: a hash table
	 * of 2,048 entries, cleared for each block, for the few KiB of a
	 * block's records and distinct texts (memLevel 6 cleared 4 times
	 * as much for the same output, 8 took a tenth of the indexing) */
	if (deflateInit2(&ix->def, 1, Z_DEFLATED, -15, 4,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		warn_msg(0, "%s: zlib: %s", ix->tree_path,
			 ix->def.msg ? ix->def.msg : "cannot start");
		tuix_close(ix);
		return NULL;
	}
	ix->def_ok = true;
	ix->n = ix->tree_size = ix->text_size = 0;
	write_header(ix, STATE_BUILDING);
	ix->chunk = must_malloc(CHUNK + COPY_SLACK);
	ix->fill = new_block();
	ix->gen = 1; /* no slot's text number known (gen 0) */
	ix->fill->first = 0;
	start_child(ix, p);
	return ix;
}

void tuix_close(struct tuix *ix)
{
	if (!ix)
		return;
	if (ix->child > 0) {
		kill(ix->child, SIGTERM);
		waitpid(ix->child, NULL, 0);
	}
	if (ix->pipe_fd >= 0)
		close(ix->pipe_fd);
	if (ix->idx_fd >= 0)
		close(ix->idx_fd);
	if (ix->tree_fd >= 0)
		close(ix->tree_fd);
	if (ix->def_ok)
		deflateEnd(&ix->def);
	if (ix->inf_ok)
		inflateEnd(&ix->inf);
	for (int k = 0; k < CACHE_BLOCKS; k++)
		free_block(ix->cache[k]);
	free_block(ix->fill);
	free(ix->idx_path);
	free(ix->tree_path);
	free(ix->log_path);
	free(ix->chunk);
	free(ix->stack);
	free(ix->raw);
	free(ix->z);
	free(ix->wbuf);
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

int tuix_fd(const struct tuix *ix)
{
	return ix->complete ? -1 : ix->pipe_fd;
}

void tuix_get(struct tuix *ix, uint64_t i, struct tuix_line *l)
{
	struct block *b = block_of(ix, i);

	if (!b || i - b->first >= b->n) {
		/* unreadable: a head line, so that nothing nests */
		*l = (struct tuix_line){0, i, TUIX_NONE, 0, TUIX_HEAD};
		return;
	}
	*l = b->lines[i - b->first];
}

size_t tuix_text(struct tuix *ix, uint64_t i, char *dst, size_t cap)
{
	struct block *b = block_of(ix, i);
	size_t n = 0;

	if (b && i - b->first < b->n) {
		n = line_len(b, (uint32_t)(i - b->first));
		if (n > cap - 1)
			n = cap - 1;
		memcpy(dst, b->text + b->lines[i - b->first].off, n);
	}
	dst[n] = '\0';
	return n;
}
