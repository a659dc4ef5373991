/* tui.h -- ctrace-symbolize --tui (ctrace tui): an interactive terminal
 * browser of the calls, above the output stage.
 *
 *   index.c  the sidecar: the tree format's text of the traces, one
 *            thread after another, in compressed blocks of lines with
 *            each line's depth, parent and end of subtree, built while
 *            the browser already shows the first lines, and kept next
 *            to the trace for the next time
 *   tui.c    the screens (tree, report, a function's graph, help) and
 *            the keys, with ncurses
 *
 * The contract: the browser reads no trace.  Every view is the text of
 * one of the output formats (tree, stats, graph), made by the ordinary
 * replay of the command line's traces with its options and filters,
 * which main.c runs in a child process for it (struct tui_params).  What
 * the browser holds in memory is bounded: a screen of lines, the index's
 * block being filled and a few decoded blocks, the stack of the open
 * calls while indexing, the report's one row per function; the tree
 * itself stays in the sidecar files.
 */
#ifndef CTRACE_SYMBOLIZER_TUI_H
#define CTRACE_SYMBOLIZER_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What main.c gives the browser. */
struct tui_params {
	const char *first;  /* the first trace (or directory) as given */
	char **paths;       /* the traces it reads, directories expanded */
	size_t n_paths;
	char **args;        /* the options and operands: the index's key */
	size_t n_args;
	bool no_duration;   /* --no-duration: the report's times blank */
	/* Writes the traces in `format` (tree, stats, graph; with function
	 * for graph) to fd, with the command line's options and filters,
	 * the tree one thread after another and without colours; returns
	 * ctrace-symbolize's exit status.  Called in a child process. */
	int (*produce)(const char *format, const char *function, int fd);
};

/* Runs the browser on the terminal; returns the exit status (0, or 1
 * when the index cannot be made). */
int tui_main(const struct tui_params *p);

/* ---------------------------------------------------------------------------
 * The index (index.c)
 * ------------------------------------------------------------------------ */

#define TUIX_NONE UINT64_MAX
/* The bytes of a line kept: the browser shows and searches no more. */
#define TUIX_TEXT_MAX 4095

/* One line of the tree's text. */
struct tuix_line {
	uint64_t off;    /* where its text starts in its block's */
	/* a call's line: the last line of its subtree (its closing line,
	 * or itself for a leaf), TUIX_NONE while not known yet; a closing
	 * line (TUIX_CLOSE): the line that opened it */
	uint64_t end;
	uint64_t parent; /* the line of the enclosing call, or TUIX_NONE */
	uint32_t depth;
	uint32_t flags;
};

enum {
	TUIX_HEAD = 1,  /* a "#" line: the header, a process, lost events */
	TUIX_CLOSE = 2, /* "} ..." of a call that has callees */
};

struct tuix;

/* Opens the index of p's traces, reused when it was made by the same
 * ctrace, options and traces (size, time, header bytes), else started
 * anew: the tree's replay then runs in a child process, writing the
 * text, and tuix_poll() indexes what it wrote.  NULL after an error,
 * said on stderr. */
struct tuix *tuix_open(const struct tui_params *p);
void tuix_close(struct tuix *ix);
/* The descriptor to wait on (poll) for more of the replay's text while
 * the index is being made, else -1. */
int tuix_fd(const struct tuix *ix);
/* Indexes what the replay wrote since, up to about `budget` bytes of
 * text; true when it made progress. */
bool tuix_poll(struct tuix *ix, size_t budget);
/* Lines indexed so far; whether that is all of them. */
uint64_t tuix_lines(const struct tuix *ix);
bool tuix_complete(const struct tuix *ix);
/* The replay's exit status (once complete), and the file its messages
 * went to (empty when it said nothing). */
int tuix_status(const struct tuix *ix);
const char *tuix_log(const struct tuix *ix, bool *empty);
/* Line i (< tuix_lines()). */
void tuix_get(struct tuix *ix, uint64_t i, struct tuix_line *l);
/* Line i's text, without its newline, truncated to cap - 1 bytes and
 * NUL-terminated; its length. */
size_t tuix_text(struct tuix *ix, uint64_t i, char *dst, size_t cap);
/* Where the sidecar is. */
const char *tuix_path(const struct tuix *ix);

#endif /* CTRACE_SYMBOLIZER_TUI_H */
