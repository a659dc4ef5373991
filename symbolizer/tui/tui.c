/* tui.c -- the browser's screens and keys (ncurses).
 *
 * The tree view draws the sidecar's lines (index.c) as the tree format
 * wrote them, two columns in front: ">" on the cursor's line (as well as
 * reverse video), then "-" for a call whose callees are shown, "+" for
 * one folded (its line then ends in "{ ... }" and shows the
 * duration of its closing line).  Folded calls are a sorted array of
 * their line numbers: only what the user folded, whatever the trace's
 * size.  The report view is the stats format's table (one row per
 * function), sorted by any column; a function's graph is the graph
 * format's text; both are made on demand by a child process (main.c's
 * produce) into an unlinked temporary file, while the tree stays usable.
 * Every redraw reads the screen's lines again from the sidecar: nothing
 * of the tree is kept but what is on the screen.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tui/tui.h"
#include "util/util.h"

#define LINE_MAX_SHOWN 4096

enum view { VIEW_TREE, VIEW_REPORT, VIEW_PAGE };
enum col { COL_TOTAL, COL_SELF, COL_CALLS, COL_NAME, N_COLS };

struct row {
	char *name;
	uint64_t calls, total, self;
};

/* A text shown whole: a function's graph, the help. */
struct page {
	char **lines;
	size_t n, top;
	char *title;
};

struct job {
	pid_t pid;
	FILE *out;
	bool report;   /* else a graph */
	char *function;
};

struct ui {
	const struct tui_params *p;
	struct tuix *ix;
	enum view view, page_back;
	int rows, cols;
	char msg[256];
	/* tree */
	uint64_t top, cur;
	uint64_t *folded;
	size_t n_folded, cap_folded;
	regex_t re;
	bool have_re;
	/* report */
	struct row *report;
	size_t n_report, report_top, report_cur;
	bool have_report;
	enum col sort;
	/* graph, help */
	struct page page;
	struct job job;
	char line[LINE_MAX_SHOWN];
};

/* ---------------------------------------------------------------------------
 * Folding
 * ------------------------------------------------------------------------ */

/* The index of the first folded line >= i. */
static size_t fold_pos(const struct ui *u, uint64_t i)
{
	size_t lo = 0, hi = u->n_folded;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (u->folded[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool is_folded(const struct ui *u, uint64_t i)
{
	size_t k = fold_pos(u, i);
	return k < u->n_folded && u->folded[k] == i;
}

static void set_folded(struct ui *u, uint64_t i, bool fold)
{
	size_t k = fold_pos(u, i);
	bool now = k < u->n_folded && u->folded[k] == i;

	if (now == fold)
		return;
	if (fold) {
		if (u->n_folded == u->cap_folded) {
			u->cap_folded = u->cap_folded ? 2 * u->cap_folded : 64;
			u->folded = must_realloc(u->folded, u->cap_folded,
						 sizeof *u->folded);
		}
		memmove(u->folded + k + 1, u->folded + k,
			(u->n_folded - k) * sizeof *u->folded);
		u->folded[k] = i;
		u->n_folded++;
	} else {
		memmove(u->folded + k, u->folded + k + 1,
			(u->n_folded - k - 1) * sizeof *u->folded);
		u->n_folded--;
	}
}

/* The last line of i's subtree as far as it is indexed. */
static uint64_t subtree_end(struct ui *u, uint64_t i, const struct tuix_line *l)
{
	if (l->flags & (TUIX_HEAD | TUIX_CLOSE))
		return i;
	return l->end != TUIX_NONE ? l->end : tuix_lines(u->ix) - 1;
}

/* Whether line i is a call with callees (or a closing line to come). */
static bool foldable(struct ui *u, uint64_t i, const struct tuix_line *l)
{
	return !(l->flags & (TUIX_HEAD | TUIX_CLOSE)) &&
	       subtree_end(u, i, l) > i;
}

/* The visible line after i, or TUIX_NONE. */
static uint64_t next_visible(struct ui *u, uint64_t i)
{
	struct tuix_line l;
	uint64_t j;

	tuix_get(u->ix, i, &l);
	j = is_folded(u, i) && foldable(u, i, &l) ? subtree_end(u, i, &l) + 1
						  : i + 1;
	return j < tuix_lines(u->ix) ? j : TUIX_NONE;
}

/* The line that shows line j: j, or its outermost folded call. */
static uint64_t shown_as(struct ui *u, uint64_t j)
{
	struct tuix_line l;
	uint64_t shown = j, x = j;

	tuix_get(u->ix, x, &l);
	if (l.flags & TUIX_CLOSE) {
		x = l.end;
		if (is_folded(u, x))
			shown = x;
		tuix_get(u->ix, x, &l);
	}
	while (l.parent != TUIX_NONE) {
		x = l.parent;
		if (is_folded(u, x))
			shown = x;
		tuix_get(u->ix, x, &l);
	}
	return shown;
}

static uint64_t prev_visible(struct ui *u, uint64_t i)
{
	return i == 0 ? TUIX_NONE : shown_as(u, i - 1);
}

/* Unfolds what hides line j. */
static void reveal(struct ui *u, uint64_t j)
{
	uint64_t s;

	while ((s = shown_as(u, j)) != j)
		set_folded(u, s, false);
}

/* ---------------------------------------------------------------------------
 * Lines
 * ------------------------------------------------------------------------ */

/* Where the function's text starts in a tree line (after the thread
 * column and the indentation, and a "[depth N] "), or NULL for a "#"
 * line. */
static const char *line_body(const char *s)
{
	const char *bar = strstr(s, "] | ");

	if (!bar || bar - s > 64 || s[0] == '#')
		return NULL;
	bar += 4;
	while (*bar == ' ')
		bar++;
	if (!strncmp(bar, "[depth ", 7)) {
		const char *e = strchr(bar, ']');
		if (e)
			bar = e[1] ? e + 2 : e + 1;
	}
	return bar;
}

/* The function named on line i (its opening line's for a closing line),
 * in a new string, or NULL. */
static char *line_function(struct ui *u, uint64_t i)
{
	struct tuix_line l;
	const char *b;
	size_t n;

	tuix_get(u->ix, i, &l);
	if (l.flags & TUIX_CLOSE)
		i = l.end;
	tuix_text(u->ix, i, u->line, sizeof u->line);
	b = line_body(u->line);
	if (!b || *b == '/' || *b == '}')
		return NULL;
	n = strcspn(b, "(;{ ");
	return n ? must_strndup(b, n) : NULL;
}

static void draw_tree_line(struct ui *u, int y, uint64_t i)
{
	struct tuix_line l;
	bool fold, folded;
	char mark = ' ';
	size_t n;

	tuix_get(u->ix, i, &l);
	fold = foldable(u, i, &l);
	folded = fold && is_folded(u, i);
	n = tuix_text(u->ix, i, u->line, sizeof u->line - 8);
	if (fold)
		mark = folded ? '+' : '-';
	if (folded && l.end != TUIX_NONE) {
		/* the call's duration, from its closing line */
		char close[16];
		struct tuix_line e;
		tuix_get(u->ix, l.end, &e);
		if (e.flags & TUIX_CLOSE) {
			size_t k = tuix_text(u->ix, l.end, close, sizeof close);
			if (k >= 10 && n >= 10)
				memcpy(u->line, close, 10);
		}
	}
	if (folded)
		strcpy(u->line + n, " ... }");
	if (i == u->cur)
		attron(A_REVERSE);
	mvaddch(y, 0, i == u->cur ? '>' : ' ');
	addch((chtype)mark);
	addnstr(u->line, u->cols - 2);
	for (int x = getcurx(stdscr); x < u->cols && x > 0; x++)
		addch(' ');
	if (i == u->cur)
		attroff(A_REVERSE);
}

static void status_line(struct ui *u, const char *left)
{
	char right[64];
	int n;

	if (u->job.pid > 0)
		snprintf(right, sizeof right, "making the %s... (Esc: cancel)",
			 u->job.report ? "report" : "graph");
	else if (!tuix_complete(u->ix))
		snprintf(right, sizeof right, "indexing...");
	else
		snprintf(right, sizeof right, "?: help  q: %s",
			 u->view == VIEW_TREE ? "quit" : "back");
	attron(A_REVERSE);
	mvhline(u->rows - 1, 0, ' ', u->cols);
	mvaddnstr(u->rows - 1, 0, u->msg[0] ? u->msg : left, u->cols);
	n = (int)strlen(right);
	if (n < u->cols)
		mvaddstr(u->rows - 1, u->cols - n, right);
	attroff(A_REVERSE);
}

/* Keeps the cursor on the screen, the top moved as little as needed. */
static void scroll_to_cursor(struct ui *u)
{
	int room = u->rows - 1, k = 0;
	uint64_t x;

	u->cur = shown_as(u, u->cur);
	u->top = shown_as(u, u->top);
	if (u->cur < u->top) {
		u->top = u->cur;
		return;
	}
	for (x = u->top; x != u->cur && x != TUIX_NONE && k < room - 1; k++)
		x = next_visible(u, x);
	if (x == u->cur)
		return;
	/* below the screen: the cursor goes on the last row */
	x = u->cur;
	for (k = 0; k < room - 1; k++) {
		uint64_t p = prev_visible(u, x);
		if (p == TUIX_NONE)
			break;
		x = p;
	}
	u->top = x;
}

static void draw_tree(struct ui *u)
{
	uint64_t i = u->top;
	char left[128];
	int y;

	for (y = 0; y < u->rows - 1 && i != TUIX_NONE && tuix_lines(u->ix);
	     y++) {
		draw_tree_line(u, y, i);
		i = next_visible(u, i);
	}
	for (; y < u->rows - 1; y++) {
		move(y, 0);
		clrtoeol();
	}
	snprintf(left, sizeof left, " tree: line %llu of %llu",
		 (unsigned long long)(tuix_lines(u->ix) ? u->cur + 1 : 0),
		 (unsigned long long)tuix_lines(u->ix));
	status_line(u, left);
}

/* ---------------------------------------------------------------------------
 * Tree keys
 * ------------------------------------------------------------------------ */

static void move_lines(struct ui *u, int n)
{
	for (; n > 0; n--) {
		uint64_t j = next_visible(u, u->cur);
		if (j == TUIX_NONE)
			break;
		u->cur = j;
	}
	for (; n < 0; n++) {
		uint64_t j = prev_visible(u, u->cur);
		if (j == TUIX_NONE)
			break;
		u->cur = j;
	}
}

static void toggle_fold(struct ui *u, int want) /* -1 fold, 1 unfold, 0 */
{
	struct tuix_line l;
	uint64_t i = u->cur;

	tuix_get(u->ix, i, &l);
	if (l.flags & TUIX_CLOSE) {
		i = l.end;
		tuix_get(u->ix, i, &l);
	}
	if (!foldable(u, i, &l)) {
		if (want < 0 && l.parent != TUIX_NONE) {
			/* a leaf: fold its caller */
			u->cur = l.parent;
			set_folded(u, l.parent, true);
		}
		return;
	}
	u->cur = i;
	set_folded(u, i, want ? want < 0 : !is_folded(u, i));
}

/* The call at the cursor's line (its opening line for a closing line). */
static uint64_t cursor_call(struct ui *u, struct tuix_line *l)
{
	uint64_t i = u->cur;

	tuix_get(u->ix, i, l);
	if (l->flags & TUIX_CLOSE) {
		i = l->end;
		tuix_get(u->ix, i, l);
	}
	return i;
}

static void go_parent(struct ui *u)
{
	struct tuix_line l;

	cursor_call(u, &l);
	if (l.parent == TUIX_NONE || (l.flags & TUIX_HEAD))
		snprintf(u->msg, sizeof u->msg, " no caller in the trace");
	else
		u->cur = l.parent;
}

static void go_sibling(struct ui *u, bool next)
{
	struct tuix_line l, s;
	uint64_t i = cursor_call(u, &l), j;

	if (l.flags & TUIX_HEAD)
		return;
	if (next) {
		j = subtree_end(u, i, &l) + 1;
		if (j < tuix_lines(u->ix)) {
			tuix_get(u->ix, j, &s);
			if (!(s.flags & (TUIX_HEAD | TUIX_CLOSE)) &&
			    s.parent == l.parent && s.depth == l.depth) {
				u->cur = j;
				return;
			}
		}
	} else if (i > 0) {
		tuix_get(u->ix, i - 1, &s);
		j = i - 1;
		if (s.flags & TUIX_CLOSE) {
			j = s.end;
			tuix_get(u->ix, j, &s);
		}
		if (!(s.flags & TUIX_HEAD) && s.parent == l.parent &&
		    s.depth == l.depth && j != l.parent) {
			u->cur = shown_as(u, j);
			return;
		}
	}
	snprintf(u->msg, sizeof u->msg, " no %s call of the same caller",
		 next ? "next" : "previous");
}

/* The next (or previous) line after the cursor whose function matches
 * the search; a closing line never does (its opening line did). */
static void search(struct ui *u, bool forward)
{
	uint64_t n = tuix_lines(u->ix), i = u->cur;

	if (!u->have_re) {
		snprintf(u->msg, sizeof u->msg, " no search yet: / to search");
		return;
	}
	for (uint64_t k = 1; k < n; k++) {
		struct tuix_line l;
		const char *b;
		if (forward ? i + 1 >= n : i == 0)
			break;
		i = forward ? i + 1 : i - 1;
		if (!(k & 0xffff) && k) {
			/* a long search: where it is, and Esc stops it */
			char where[96];
			snprintf(where, sizeof where,
				 " searching: line %llu of %llu (Esc: stop)",
				 (unsigned long long)i + 1,
				 (unsigned long long)n);
			status_line(u, where);
			refresh();
			timeout(0);
			if (getch() == 27) {
				snprintf(u->msg, sizeof u->msg,
					 " search stopped at line %llu",
					 (unsigned long long)i + 1);
				return;
			}
		}
		tuix_get(u->ix, i, &l);
		if (l.flags & (TUIX_CLOSE | TUIX_HEAD))
			continue;
		tuix_text(u->ix, i, u->line, sizeof u->line);
		b = line_body(u->line);
		if (b && *b != '/' && regexec(&u->re, b, 0, NULL, 0) == 0) {
			reveal(u, i);
			u->cur = i;
			return;
		}
	}
	snprintf(u->msg, sizeof u->msg, " not found %s",
		 forward ? "below" : "above");
}

/* Never waiting for a key longer than this: curses learns of a resize
 * from its SIGWINCH handler's flag, which getch() looks at before it
 * waits; a signal that comes between the look and the wait can be seen
 * only at the next call, and without a timeout that is the next key
 * (tests/tui.sh resize once found the screen half drawn, under load,
 * for the two minutes it waits).  An idle wake redraws nothing that did
 * not change. */
#define IDLE_MS 250

/* Reads a line of input on the status line; false on Esc. */
static bool prompt(struct ui *u, const char *what, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	timeout(IDLE_MS);
	for (;;) {
		int c;
		attron(A_REVERSE);
		mvhline(u->rows - 1, 0, ' ', u->cols);
		mvprintw(u->rows - 1, 0, "%s%s", what, buf);
		attroff(A_REVERSE);
		refresh();
		c = getch();
		if (c == ERR) /* IDLE_MS passed */
			continue;
		if (c == '\n' || c == KEY_ENTER || c == '\r')
			return true;
		if (c == 27)
			return false;
		if (c == KEY_RESIZE) {
			getmaxyx(stdscr, u->rows, u->cols);
			clearok(curscr, TRUE); /* see the main loop */
			continue;
		}
		if ((c == KEY_BACKSPACE || c == 127 || c == 8) && n)
			buf[--n] = '\0';
		else if (c >= 32 && c < 256 && c != 127 && n + 1 < cap) {
			buf[n++] = (char)c;
			buf[n] = '\0';
		}
	}
}

static void start_search(struct ui *u)
{
	char pat[256];
	int err;

	if (!prompt(u, "search (regex): /", pat, sizeof pat) || !pat[0])
		return;
	if (u->have_re)
		regfree(&u->re);
	u->have_re = false;
	err = regcomp(&u->re, pat, REG_EXTENDED | REG_NOSUB);
	if (err) {
		char why[128];
		regerror(err, &u->re, why, sizeof why);
		snprintf(u->msg, sizeof u->msg, " bad regex: %s", why);
		return;
	}
	u->have_re = true;
	search(u, true);
}

/* ---------------------------------------------------------------------------
 * Jobs: the report and graphs, made by a child process
 * ------------------------------------------------------------------------ */

static void start_job(struct ui *u, bool report, char *function)
{
	FILE *f;

	if (u->job.pid > 0) {
		free(function);
		snprintf(u->msg, sizeof u->msg, " wait: the %s is being made",
			 u->job.report ? "report" : "graph");
		return;
	}
	f = tmpfile();
	if (!f) {
		free(function);
		snprintf(u->msg, sizeof u->msg, " no temporary file: %s",
			 strerror(errno));
		return;
	}
	u->job.pid = fork();
	if (u->job.pid == 0) {
		int null = open("/dev/null", O_RDWR);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		_exit(u->p->produce(report ? "stats" : "graph", function,
				    fileno(f)));
	}
	if (u->job.pid < 0) {
		fclose(f);
		free(function);
		u->job.pid = 0;
		snprintf(u->msg, sizeof u->msg, " fork: %s", strerror(errno));
		return;
	}
	u->job.out = f;
	u->job.report = report;
	u->job.function = function;
}

static void cancel_job(struct ui *u)
{
	if (u->job.pid <= 0)
		return;
	kill(u->job.pid, SIGTERM);
	waitpid(u->job.pid, NULL, 0);
	fclose(u->job.out);
	free(u->job.function);
	memset(&u->job, 0, sizeof u->job);
	snprintf(u->msg, sizeof u->msg, " cancelled");
}

static void free_page(struct page *pg)
{
	for (size_t i = 0; i < pg->n; i++)
		free(pg->lines[i]);
	free(pg->lines);
	free(pg->title);
	memset(pg, 0, sizeof *pg);
}

static void page_add(struct page *pg, const char *s, size_t n)
{
	pg->lines = must_realloc(pg->lines, pg->n + 1, sizeof *pg->lines);
	pg->lines[pg->n++] = must_strndup(s, n);
}

static int row_cmp_col;

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t vx, vy;

	switch (row_cmp_col) {
	case COL_NAME:
		return strcmp(x->name, y->name);
	case COL_CALLS:
		vx = x->calls, vy = y->calls;
		break;
	case COL_SELF:
		vx = x->self, vy = y->self;
		break;
	default:
		vx = x->total, vy = y->total;
		break;
	}
	if (vx != vy)
		return vx < vy ? 1 : -1; /* the largest first */
	return strcmp(x->name, y->name);
}

static void sort_report(struct ui *u)
{
	row_cmp_col = (int)u->sort;
	qsort(u->report, u->n_report, sizeof *u->report, row_cmp);
}

static void read_report(struct ui *u, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	for (size_t i = 0; i < u->n_report; i++)
		free(u->report[i].name);
	u->n_report = u->report_top = u->report_cur = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *tab[3], *end;
		struct row r;
		if (line[0] == '#')
			continue;
		line[n - 1] = line[n - 1] == '\n' ? '\0' : line[n - 1];
		tab[0] = strchr(line, '\t');
		tab[1] = tab[0] ? strchr(tab[0] + 1, '\t') : NULL;
		tab[2] = tab[1] ? strchr(tab[1] + 1, '\t') : NULL;
		if (!tab[2])
			continue;
		r.name = must_strndup(line, (size_t)(tab[0] - line));
		r.calls = strtoull(tab[0] + 1, &end, 10);
		r.total = strtoull(tab[1] + 1, &end, 10);
		r.self = strtoull(tab[2] + 1, &end, 10);
		u->report = must_realloc(u->report, u->n_report + 1,
					 sizeof *u->report);
		u->report[u->n_report++] = r;
	}
	free(line);
	u->have_report = true;
	sort_report(u);
}

static void finish_job(struct ui *u, int status)
{
	FILE *f = u->job.out;

	rewind(f);
	if (u->job.report) {
		read_report(u, f);
		u->view = VIEW_REPORT;
	} else {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		free_page(&u->page);
		while ((n = getline(&line, &cap, f)) > 0)
			page_add(&u->page, line,
				 (size_t)n - (line[n - 1] == '\n'));
		free(line);
		if (!u->page.n)
			page_add(&u->page, "(no call of this function)", 26);
		u->page.title = u->job.function;
		u->job.function = NULL;
		if (u->view != VIEW_PAGE)
			u->page_back = u->view;
		u->view = VIEW_PAGE;
	}
	if (status)
		snprintf(u->msg, sizeof u->msg,
			 " the replay said the trace is damaged (exit %d)",
			 status);
	fclose(f);
	free(u->job.function);
	memset(&u->job, 0, sizeof u->job);
}

/* Whether the job ended (and was taken). */
static bool poll_job(struct ui *u)
{
	int st;

	if (u->job.pid <= 0 || waitpid(u->job.pid, &st, WNOHANG) != u->job.pid)
		return false;
	finish_job(u, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return true;
}

/* ---------------------------------------------------------------------------
 * Report and pages
 * ------------------------------------------------------------------------ */

static void put_ns(char *dst, uint64_t ns)
{
	size_t n = outbuf_format_duration(dst, ns);
	dst[n] = '\0';
}

static void draw_report(struct ui *u)
{
	static const char *const heads[N_COLS] = {
		[COL_TOTAL] = "  Total time", [COL_SELF] = "   Self time",
		[COL_CALLS] = "       Calls", [COL_NAME] = "  Function",
	};
	char left[128];
	int room = u->rows - 2;

	move(0, 0);
	clrtoeol();
	attron(A_BOLD);
	for (int c = 0; c < N_COLS; c++) {
		if (c == (int)u->sort)
			attron(A_UNDERLINE);
		addstr(heads[c]);
		if (c == (int)u->sort)
			attroff(A_UNDERLINE);
	}
	attroff(A_BOLD);
	if (u->report_cur < u->report_top)
		u->report_top = u->report_cur;
	if (room > 0 && u->report_cur >= u->report_top + (size_t)room)
		u->report_top = u->report_cur - (size_t)room + 1;
	for (int y = 1; y < u->rows - 1; y++) {
		size_t i = u->report_top + (size_t)(y - 1);
		char tot[32], self[32];
		move(y, 0);
		clrtoeol();
		if (i >= u->n_report)
			continue;
		put_ns(tot, u->report[i].total);
		put_ns(self, u->report[i].self);
		if (u->p->no_duration)
			tot[0] = self[0] = '\0';
		if (i == u->report_cur)
			attron(A_REVERSE);
		snprintf(u->line, sizeof u->line, "%12s%12s%12llu  %s", tot,
			 self, (unsigned long long)u->report[i].calls,
			 u->report[i].name);
		if (i == u->report_cur)
			u->line[0] = '>';
		mvaddnstr(y, 0, u->line, u->cols);
		for (int x = getcurx(stdscr); x < u->cols && x > 0; x++)
			addch(' ');
		if (i == u->report_cur)
			attroff(A_REVERSE);
	}
	snprintf(left, sizeof left, " report: %zu functions, by %s", u->n_report,
		 u->sort == COL_TOTAL  ? "total time"
		 : u->sort == COL_SELF ? "self time"
		 : u->sort == COL_CALLS ? "calls"
					: "name");
	status_line(u, left);
}

static void draw_page(struct ui *u)
{
	char left[192];

	for (int y = 0; y < u->rows - 1; y++) {
		size_t i = u->page.top + (size_t)y;
		move(y, 0);
		clrtoeol();
		if (i < u->page.n)
			mvaddnstr(y, 0, u->page.lines[i], u->cols);
	}
	snprintf(left, sizeof left, " %s", u->page.title ? u->page.title : "");
	status_line(u, left);
}

static const char *const help_text[] = {
	"ctrace tui: the calls of a trace",
	"",
	"Everywhere",
	"  ?            this help",
	"  q, Esc       back to the view before; in the tree: quit",
	"  t            the call tree",
	"  r            the report: time and calls of each function",
	"  Up, Down, k, j, PgUp, PgDn, Home, End    move",
	"  mouse        the wheel moves 3 lines, a click selects a line,",
	"               a click on the selected line is Enter",
	"",
	"The tree",
	"  Enter        fold or unfold the call's callees",
	"  Left, h      fold (on a leaf: fold its caller)",
	"  Right, l     unfold",
	"  u            go to the caller",
	"  n, p         go to the next, previous call of the same caller",
	"  /            search a function by name (extended regex)",
	"  N, P         go to the next, previous match",
	"  g            the graph of the function: its callers and callees",
	"",
	"The report",
	"  Left, Right  sort by another column",
	"  Enter, g     the function's callers and callees (its graph)",
};

static void show_help(struct ui *u)
{
	free_page(&u->page);
	for (size_t i = 0; i < sizeof help_text / sizeof *help_text; i++)
		page_add(&u->page, help_text[i], strlen(help_text[i]));
	u->page.title = must_strndup("help", 4);
	if (u->view != VIEW_PAGE)
		u->page_back = u->view;
	u->view = VIEW_PAGE;
}

/* ---------------------------------------------------------------------------
 * The loop
 * ------------------------------------------------------------------------ */

static void draw(struct ui *u)
{
	getmaxyx(stdscr, u->rows, u->cols);
	if (u->rows < 2 || u->cols < 10) {
		erase();
		mvaddnstr(0, 0, "(too small)", u->cols);
		refresh();
		return;
	}
	switch (u->view) {
	case VIEW_TREE:
		if (tuix_lines(u->ix))
			scroll_to_cursor(u);
		draw_tree(u);
		break;
	case VIEW_REPORT:
		draw_report(u);
		break;
	case VIEW_PAGE:
		draw_page(u);
		break;
	}
	refresh();
}

/* Up, down, pages, home and end in a list of n rows; false if c is none
 * of them. */
static bool list_key(int c, size_t *cur, size_t n, int room)
{
	size_t page = room > 1 ? (size_t)room - 1 : 1;

	switch (c) {
	case KEY_UP:
	case 'k':
		if (*cur)
			--*cur;
		return true;
	case KEY_DOWN:
	case 'j':
		if (*cur + 1 < n)
			++*cur;
		return true;
	case KEY_PPAGE:
		*cur = *cur > page ? *cur - page : 0;
		return true;
	case KEY_NPAGE:
		*cur = *cur + page < n ? *cur + page : (n ? n - 1 : 0);
		return true;
	case KEY_HOME:
		*cur = 0;
		return true;
	case KEY_END:
		*cur = n ? n - 1 : 0;
		return true;
	}
	return false;
}

static void tree_key(struct ui *u, int c)
{
	if (!tuix_lines(u->ix))
		return;
	switch (c) {
	case KEY_UP:
	case 'k':
		move_lines(u, -1);
		break;
	case KEY_DOWN:
	case 'j':
		move_lines(u, 1);
		break;
	case KEY_PPAGE:
		move_lines(u, -(u->rows - 2));
		break;
	case KEY_NPAGE:
		move_lines(u, u->rows - 2);
		break;
	case KEY_HOME:
		u->cur = u->top = 0;
		break;
	case KEY_END:
		u->cur = shown_as(u, tuix_lines(u->ix) - 1);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		toggle_fold(u, 0);
		break;
	case KEY_LEFT:
	case 'h':
		toggle_fold(u, -1);
		break;
	case KEY_RIGHT:
	case 'l':
		toggle_fold(u, 1);
		break;
	case 'u':
		go_parent(u);
		break;
	case 'n':
		go_sibling(u, true);
		break;
	case 'p':
		go_sibling(u, false);
		break;
	case '/':
		start_search(u);
		break;
	case 'N':
		search(u, true);
		break;
	case 'P':
		search(u, false);
		break;
	case 'g': {
		char *f = line_function(u, u->cur);
		if (f)
			start_job(u, false, f);
		else
			snprintf(u->msg, sizeof u->msg,
				 " no function on this line");
		break;
	}
	}
}

static void report_key(struct ui *u, int c)
{
	switch (c) {
	case KEY_LEFT:
	case 'h':
		u->sort = (enum col)((u->sort + N_COLS - 1) % N_COLS);
		sort_report(u);
		break;
	case KEY_RIGHT:
	case 'l':
		u->sort = (enum col)((u->sort + 1) % N_COLS);
		sort_report(u);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case 'g':
		if (u->report_cur < u->n_report)
			start_job(u, false,
				  must_strndup(u->report[u->report_cur].name,
					       strlen(u->report[u->report_cur]
							      .name)));
		break;
	default:
		list_key(c, &u->report_cur, u->n_report, u->rows - 2);
	}
}

static void page_key(struct ui *u, int c)
{
	size_t room = u->rows > 1 ? (size_t)u->rows - 1 : 1;
	size_t max = u->page.n > room ? u->page.n - room : 0;

	list_key(c, &u->page.top, max + 1, u->rows - 1);
}

/* The mouse: the wheel moves three lines; a click selects a row, a click
 * on the selected row does what Enter does there (a double click then
 * folds, whatever the time between its clicks). */
static void mouse_event(struct ui *u)
{
	MEVENT ev;
	int step = 0;

	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON4_PRESSED)
		step = -3;
#ifdef BUTTON5_PRESSED
	else if (ev.bstate & BUTTON5_PRESSED)
		step = 3;
#endif
	else if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) ||
		 ev.y < 0 || ev.y >= u->rows - 1)
		return;
	switch (u->view) {
	case VIEW_TREE: {
		uint64_t i = u->top;
		if (!tuix_lines(u->ix))
			return;
		if (step) {
			move_lines(u, step);
			return;
		}
		for (int y = 0; y < ev.y && i != TUIX_NONE; y++)
			i = next_visible(u, i);
		if (i == TUIX_NONE)
			return;
		if (i == u->cur)
			toggle_fold(u, 0);
		else
			u->cur = i;
		return;
	}
	case VIEW_REPORT: {
		size_t i = u->report_top + (size_t)ev.y - 1;
		if (step) {
			for (int k = 0; k < (step < 0 ? -step : step); k++)
				list_key(step < 0 ? KEY_UP : KEY_DOWN,
					 &u->report_cur, u->n_report,
					 u->rows - 2);
			return;
		}
		if (ev.y == 0 || i >= u->n_report)
			return;
		if (i == u->report_cur)
			report_key(u, '\n');
		else
			u->report_cur = i;
		return;
	}
	case VIEW_PAGE:
		for (int k = 0; k < (step < 0 ? -step : step); k++)
			page_key(u, step < 0 ? KEY_UP : KEY_DOWN);
		return;
	}
}

/* While the index is made, the screen is drawn again at most every
 * DRAW_MS milliseconds (its line count and "indexing..." change), at once
 * after a key, a job's end or while the tree did not fill it: drawn for
 * each of the replay's writes (64 KiB of text), it took about a fifth
 * of the browser's CPU time. */
#define DRAW_MS 100
/* Text is read from the replay when this much came, or after this many
 * milliseconds (or a key) */
#define BATCH_BYTES (512 << 10)
#define BATCH_MS 1

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

int tui_main(const struct tui_params *p)
{
	struct ui u;
	int status = 0;
	bool empty, dirty = true;
	uint64_t drawn = 0, shown = 0; /* lines when last drawn */

	memset(&u, 0, sizeof u);
	u.p = p;
	/* without times (--no-duration), the report's first order is the
	 * calls' */
	u.sort = p->no_duration ? COL_CALLS : COL_TOTAL;
	u.ix = tuix_open(p);
	if (!u.ix)
		return 1;
	setlocale(LC_ALL, "");
	if (!initscr()) {
		tuix_close(u.ix);
		return 1;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	/* presses, not clicks: no waiting for a release or a second click */
	mouseinterval(0);
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
			  | BUTTON5_PRESSED
#endif
		  ,
		  NULL);
	for (;;) {
		int c;
		bool progress = false;
		uint64_t now;
		if (!tuix_complete(u.ix)) {
			progress = tuix_poll(u.ix, 8u << 20);
			if (tuix_complete(u.ix) && tuix_status(u.ix))
				snprintf(u.msg, sizeof u.msg,
					 " the replay exited %d: its messages "
					 "are in %s",
					 tuix_status(u.ix), tuix_log(u.ix, &empty));
		}
		dirty |= poll_job(&u);
		now = now_ms();
		if (dirty || tuix_complete(u.ix) || now - drawn >= DRAW_MS ||
		    (shown < (uint64_t)LINES && tuix_lines(u.ix) != shown)) {
			shown = tuix_lines(u.ix);
			draw(&u);
			drawn = now;
			dirty = false;
		}
		if (!tuix_complete(u.ix) && !progress) {
			/* a key or more text, whichever comes first: the
			 * replay never waits on a browser asleep */
			struct pollfd w[2] = {{STDIN_FILENO, POLLIN, 0},
					      {tuix_fd(u.ix), POLLIN, 0}};
			int avail = 0;
			poll(w, 2, 50);
			/* text, no key: a little more is let come first (the
			 * pipe holds 1 MiB): woken for each write of the
			 * replay (64 KiB), the browser spent a fifth of its
			 * time going to sleep and waking */
			if (!w[0].revents && w[1].revents == POLLIN &&
			    ioctl(w[1].fd, FIONREAD, &avail) == 0 &&
			    avail < BATCH_BYTES)
				poll(w, 1, BATCH_MS);
		}
		timeout(!tuix_complete(u.ix) ? 0
					     : u.job.pid > 0 ? 50 : IDLE_MS);
		c = getch();
		if (c == ERR)
			continue;
		dirty = true;
		u.msg[0] = '\0';
		if (c == KEY_RESIZE) {
			/* The next refresh repaints the whole screen: the
			 * terminal may have reflowed or cleared what curses
			 * believes it shows (tmux did; only the changes were
			 * sent, and the screen stayed half drawn). */
			clearok(curscr, TRUE);
			continue;
		}
		if (c == KEY_MOUSE) {
			mouse_event(&u);
			continue;
		}
		if (c == 27 && u.job.pid > 0) {
			cancel_job(&u);
			continue;
		}
		if (c == 'q' || c == 27) {
			if (u.view == VIEW_TREE)
				break;
			u.view = u.view == VIEW_PAGE ? u.page_back : VIEW_TREE;
			continue;
		}
		if (c == '?') {
			show_help(&u);
			continue;
		}
		if (c == 't') {
			u.view = VIEW_TREE;
			continue;
		}
		if (c == 'r') {
			if (u.have_report)
				u.view = VIEW_REPORT;
			else
				start_job(&u, true, NULL);
			continue;
		}
		switch (u.view) {
		case VIEW_TREE:
			tree_key(&u, c);
			break;
		case VIEW_REPORT:
			report_key(&u, c);
			break;
		case VIEW_PAGE:
			page_key(&u, c);
			break;
		}
	}
	endwin();
	cancel_job(&u);
	if (tuix_complete(u.ix)) {
		status = tuix_status(u.ix) ? 1 : 0;
		tuix_log(u.ix, &empty);
		if (!empty)
			fprintf(stderr, PROGRAM_NAME ": the replay's messages "
						     "are in %s\n",
				tuix_log(u.ix, &empty));
	}
	tuix_close(u.ix);
	if (u.have_re)
		regfree(&u.re);
	free(u.folded);
	for (size_t i = 0; i < u.n_report; i++)
		free(u.report[i].name);
	free(u.report);
	free_page(&u.page);
	return status;
}
