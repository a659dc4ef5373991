/* where.c -- --where EXPR: a call's arguments and return value, queried.
 *
 *   expr    := and ('||' and)*
 *   and     := unary ('&&' unary)*
 *   unary   := '!' unary | '(' expr ')' | REF OP LITERAL
 *   REF     := [FUNC '.'] FIELD      FIELD: an argument's name, retval,
 *                                    or name (the function's name)
 *   OP      := == != < <= > >=
 *   LITERAL := integer (decimal or 0x hex, may be negative) | decimal
 *              number with a point | "string" (\" and \\ inside)
 *
 * FUNC.FIELD holds only for calls of FUNC (its name as shown); FIELD
 * alone for a call of any function that has it.  A comparison is false
 * when the call has no such argument or return value, when its value is
 * `?` (not known: nothing can be said of it) or when the value is not of
 * the literal's kind.  Values are compared as the text the other formats
 * show: an integer literal with the number the text starts with (a
 * pointer's address, a char's code, true as 1), a number with a point as
 * a double, a string with the text between the value's quotes (a
 * string's) or, without quotes, the whole text (an enum's name).  A
 * string the recorder kept only the start of ("barb"...) compares where
 * the literal differs from that start, and is not known otherwise.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"
#include "values/values.h"

enum node_kind { N_OR, N_AND, N_NOT, N_CMP };
enum cmp_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };
enum lit_kind { LIT_INT, LIT_FLOAT, LIT_STR };
enum field_kind { F_ARG, F_RETVAL, F_NAME };

struct num {
	bool neg;
	uint64_t mag;
};

struct where {
	enum node_kind kind;
	struct where *a, *b;
	/* N_CMP */
	char *func; /* NULL: any */
	char *field;
	enum field_kind field_kind;
	enum cmp_op op;
	enum lit_kind lit;
	struct num num;
	double d;
	char *str;
};

/* How deep '(' and '!' may nest: the parser recurses once a level, and
 * an argument of 128 KiB of them would otherwise overflow the stack. */
#define WHERE_MAX_DEPTH 256

struct parser {
	const char *text, *p;
	int depth;         /* '(' and '!' open around p */
	const char *error; /* what was expected */
	size_t error_at;   /* column, from 1 */
};

static void where_error(struct parser *ps, const char *what)
{
	if (!ps->error) {
		ps->error = what;
		ps->error_at = (size_t)(ps->p - ps->text) + 1;
	}
}

static void skip_space(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n')
		ps->p++;
}

static bool accept(struct parser *ps, const char *tok)
{
	size_t n = strlen(tok);

	skip_space(ps);
	if (strncmp(ps->p, tok, n))
		return false;
	ps->p += n;
	return true;
}

static bool ident_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || c == '$' ||
	       (!first && (isdigit((unsigned char)c) || c == ':' || c == '~'));
}

static char *ident(struct parser *ps)
{
	const char *s;

	skip_space(ps);
	s = ps->p;
	if (!ident_char(*s, true)) {
		where_error(ps, "a function or argument name");
		return NULL;
	}
	while (ident_char(*ps->p, false))
		ps->p++;
	return must_strndup(s, (size_t)(ps->p - s));
}

/* "-12", "0x1f", "42abc" -> the number at s (end: after it); false if
 * none or if its magnitude does not fit in 64 bits. */
static bool parse_num(const char *s, struct num *n, const char **end)
{
	char *e;

	n->neg = *s == '-';
	if (n->neg)
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	/* 0x: hex; a leading 0 is no octal here */
	errno = 0;
	n->mag = strtoull(s, &e, s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
					 ? 16 : 10);
	*end = e;
	return errno != ERANGE;
}

static void parse_literal(struct parser *ps, struct where *w)
{
	const char *end;

	skip_space(ps);
	if (*ps->p == '"') {
		size_t cap = strlen(ps->p), n = 0;
		char *out = must_malloc(cap + 1);
		ps->p++;
		while (*ps->p && *ps->p != '"') {
			if (*ps->p == '\\' && (ps->p[1] == '"' || ps->p[1] == '\\'))
				ps->p++;
			out[n++] = *ps->p++;
		}
		out[n] = 0;
		w->lit = LIT_STR;
		w->str = out;
		if (*ps->p != '"') {
			where_error(ps, "the string's closing quote");
			return;
		}
		ps->p++;
		return;
	}
	if (!isdigit((unsigned char)ps->p[*ps->p == '-'])) {
		where_error(ps, "a number or a \"string\"");
		return;
	}
	/* an integer past 64 bits is refused, not saturated (a number
	 * with a point is a double, any size) */
	if (!parse_num(ps->p, &w->num, &end) && *end != '.') {
		where_error(ps, "a number that fits in 64 bits");
		return;
	}
	if (*end == '.') {
		char *e;
		w->d = strtod(ps->p, &e);
		w->lit = LIT_FLOAT;
		end = e;
	} else {
		w->lit = LIT_INT;
	}
	if (ident_char(*end, false) || *end == '.') {
		ps->p = end;
		where_error(ps, "a number");
		return;
	}
	ps->p = end;
}

static struct where *node(enum node_kind kind, struct where *a,
			  struct where *b)
{
	struct where *w = must_calloc(1, sizeof *w);

	w->kind = kind;
	w->a = a;
	w->b = b;
	return w;
}

static struct where *parse_or(struct parser *ps);

static struct where *parse_cmp(struct parser *ps)
{
	static const struct {
		const char *tok;
		enum cmp_op op;
	} ops[] = {
		{"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE},
		{">=", OP_GE}, {"<", OP_LT},  {">", OP_GT},
	};
	struct where *w = node(N_CMP, NULL, NULL);
	char *first = ident(ps);
	size_t i;

	if (!first)
		return w;
	skip_space(ps);
	if (*ps->p == '.') {
		ps->p++;
		w->func = first;
		w->field = ident(ps);
		if (!w->field)
			return w;
	} else {
		w->field = first;
	}
	w->field_kind = !strcmp(w->field, "retval") ? F_RETVAL
			: !strcmp(w->field, "name") ? F_NAME
						    : F_ARG;
	for (i = 0; i < sizeof ops / sizeof *ops; i++)
		if (accept(ps, ops[i].tok))
			break;
	if (i == sizeof ops / sizeof *ops) {
		where_error(ps, "a comparison (== != < <= > >=)");
		return w;
	}
	w->op = ops[i].op;
	parse_literal(ps, w);
	return w;
}

static struct where *parse_unary(struct parser *ps)
{
	struct where *w;

	skip_space(ps);
	if ((*ps->p == '!' && ps->p[1] != '=') || *ps->p == '(') {
		if (ps->depth == WHERE_MAX_DEPTH) {
			where_error(ps, "at most 256 nested '(' and '!'");
			return node(N_CMP, NULL, NULL);
		}
		ps->depth++;
		if (*ps->p++ == '!') {
			w = node(N_NOT, parse_unary(ps), NULL);
		} else {
			w = parse_or(ps);
			if (!accept(ps, ")"))
				where_error(ps, "')'");
		}
		ps->depth--;
		return w;
	}
	return parse_cmp(ps);
}

static struct where *parse_and(struct parser *ps)
{
	struct where *w = parse_unary(ps);

	while (!ps->error && accept(ps, "&&"))
		w = node(N_AND, w, parse_unary(ps));
	return w;
}

static struct where *parse_or(struct parser *ps)
{
	struct where *w = parse_and(ps);

	while (!ps->error && accept(ps, "||"))
		w = node(N_OR, w, parse_and(ps));
	return w;
}

struct where *where_and(struct where *a, struct where *b)
{
	return node(N_AND, a, b);
}

/* Along the left spine without recursion: a chain of 20,000 && is a
 * tree 20,000 deep on that side (its right side is bounded by the
 * parser's depth limit). */
void where_free(struct where *w)
{
	while (w) {
		struct where *next = w->a;
		where_free(w->b);
		free(w->func);
		free(w->field);
		free(w->str);
		free(w);
		w = next;
	}
}

struct where *where_parse(const char *text, const char **error,
			  size_t *column)
{
	struct parser ps = {.text = text, .p = text};
	struct where *w = parse_or(&ps);

	skip_space(&ps);
	if (!ps.error && *ps.p)
		where_error(&ps, "&&, || or the end");
	if (ps.error) {
		*error = ps.error;
		*column = ps.error_at;
		where_free(w);
		return NULL;
	}
	return w;
}

/* ---------------------------------------------------------------------------
 * Evaluation
 * ------------------------------------------------------------------------ */

static bool holds(enum cmp_op op, int c)
{
	switch (op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	case OP_GE: return c >= 0;
	}
	return false;
}

static int num_cmp(struct num a, struct num b)
{
	if (a.mag == 0 && b.mag == 0)
		return 0;
	if (a.neg != b.neg)
		return a.neg ? -1 : 1;
	int c = a.mag < b.mag ? -1 : a.mag > b.mag;
	return a.neg ? -c : c;
}

/* The text between a value's first and last quote, unescaped as far as
 * \" and \\ (NULL if it has no quotes); free it. */
static char *quoted(const char *text)
{
	const char *a = strchr(text, '"'), *b = strrchr(text, '"');
	char *out;
	size_t n = 0;

	if (!a || b == a)
		return NULL;
	out = must_malloc((size_t)(b - a));
	for (const char *s = a + 1; s < b; s++) {
		if (*s == '\\' && s + 1 < b && (s[1] == '"' || s[1] == '\\'))
			s++;
		out[n++] = *s;
	}
	out[n] = 0;
	return out;
}

static bool compare(const struct where *w, const char *text)
{
	switch (w->lit) {
	case LIT_STR: {
		char *q = quoted(text);
		size_t tl = strlen(text);
		int c;
		/* "barb"...: the recorder kept only the start of the string.
		 * Decided where the literal differs from that start; not
		 * known (false) where the literal goes on from it. */
		if (q && tl >= 4 && !strcmp(text + tl - 4, "\"...") &&
		    !strncmp(q, w->str, strlen(q))) {
			free(q);
			return false;
		}
		c = strcmp(q ? q : text, w->str);
		free(q);
		return holds(w->op, c);
	}
	case LIT_INT: {
		struct num n;
		const char *end;
		if (!strcmp(text, "true") || !strcmp(text, "false"))
			n = (struct num){false, text[0] == 't'};
		else if (!parse_num(text, &n, &end) ||
			 (*end && *end != ' '))
			return false;
		return holds(w->op, num_cmp(n, w->num));
	}
	case LIT_FLOAT: {
		char *end;
		double d = strtod(text, &end);
		if (end == text || (*end && *end != ' '))
			return false;
		return holds(w->op, d < w->d ? -1 : d > w->d);
	}
	}
	return false;
}

static bool match_cmp(const struct where *w, const char *fname,
		      const struct values *args, const struct values *retval)
{
	if (w->func && strcmp(w->func, fname))
		return false;
	switch (w->field_kind) {
	case F_NAME:
		return w->lit == LIT_STR && holds(w->op, strcmp(fname, w->str));
	case F_RETVAL:
		if (!retval || !retval->n || !retval->v[0].text)
			return false;
		return compare(w, retval->v[0].text);
	case F_ARG:
		if (!args || args->unknown)
			return false;
		for (size_t i = 0; i < args->n; i++)
			if (args->v[i].name && !strcmp(args->v[i].name, w->field))
				return args->v[i].text &&
				       compare(w, args->v[i].text);
		return false;
	}
	return false;
}

/* A chain of && or || is walked down its left spine in a loop, as
 * where_free (nothing here has side effects, so the order is free). */
bool where_match(const struct where *w, const char *fname,
		 const struct values *args, const struct values *retval)
{
	for (;;) {
		switch (w->kind) {
		case N_OR:
			if (where_match(w->b, fname, args, retval))
				return true;
			w = w->a;
			continue;
		case N_AND:
			if (!where_match(w->b, fname, args, retval))
				return false;
			w = w->a;
			continue;
		case N_NOT:
			return !where_match(w->a, fname, args, retval);
		case N_CMP:
			return match_cmp(w, fname, args, retval);
		}
		return false;
	}
}
