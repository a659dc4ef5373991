/* demangle.c -- C++ names as the symbolizer shows them, without libiberty.
 *
 * Record-time patterns (CTRACE_FILTER, CTRACE_ARGS, CTRACE_RETVAL) must
 * match the names the symbolizer's -F matches: libiberty's demangling
 * without the parameter list (`ns::Vec::operator+`, `ns::pick<int, char>`,
 * `main::{lambda(int)#1}::operator()`, `counter` for `_ZL7counterv`), with
 * a clone's suffix kept (`ns::f.cold`).  The recorder links nothing but
 * libc, so this is a small recursive-descent reader of the Itanium ABI's
 * mangling for that form: nested, local and unscoped names, templates
 * and their arguments (types and integer literals), operators,
 * constructors and destructors, lambdas and unnamed types, ABI tags,
 * substitutions.  What it does not know (function and array types,
 * pointers to members, expressions, template parameters in a name, special
 * names such as vtables) makes it give up: the function then matches by
 * its mangled name only.  tests/demangle.sh compares it with libiberty on
 * every symbol of libstdc++ and of the test programs: where it answers, it
 * must answer exactly as libiberty does.
 *
 * Runs at start-up and after a dlopen, possibly inside a hook on a small
 * thread stack: its state (an arena of text and the substitution table)
 * lives in memory the caller provides, ctrace__demangle_state_size bytes.
 */
#include <string.h>

#include "internal.h"

#define ARENA_BYTES 16384
#define MAX_SUBS 64

struct text {
	unsigned at, len; /* in the arena */
};

struct dm {
	const char *p;
	char arena[ARENA_BYTES];
	unsigned used;
	struct text subs[MAX_SUBS];
	unsigned n_subs;
	int failed;
};

/* ---------------------------------------------------------------------------
 * Text in the arena: every piece is appended at its end, so a piece being
 * built is always the arena's tail.
 * ------------------------------------------------------------------------ */

static struct text begin(struct dm *d)
{
	return (struct text){d->used, 0};
}

static void put(struct dm *d, struct text *t, const char *s, size_t n)
{
	if (t->at + t->len != d->used || d->used + n > ARENA_BYTES) {
		d->failed = 1;
		return;
	}
	memcpy(d->arena + d->used, s, n);
	d->used += (unsigned)n;
	t->len += (unsigned)n;
}

static void puts_(struct dm *d, struct text *t, const char *s)
{
	put(d, t, s, strlen(s));
}

/* A copy of `src` (an earlier piece) at the tail, for `t`. */
static void put_text(struct dm *d, struct text *t, struct text src)
{
	if (t->at + t->len != d->used || d->used + src.len > ARENA_BYTES) {
		d->failed = 1;
		return;
	}
	memmove(d->arena + d->used, d->arena + src.at, src.len);
	d->used += src.len;
	t->len += src.len;
}

/* The class a constructor of prefix `t` names: its last component, without
 * template arguments. */
static struct text class_name(const struct dm *d, struct text t)
{
	const char *s = d->arena + t.at;
	unsigned start = 0, end = t.len;
	int depth = 0;
	for (unsigned i = 0; i < t.len; i++) {
		if (s[i] == '<' || s[i] == '(')
			depth++;
		else if (s[i] == '>' || s[i] == ')')
			depth--;
		else if (!depth && s[i] == ':' && i + 1 < t.len &&
			 s[i + 1] == ':')
			start = i + 2;
	}
	for (unsigned i = start; i < t.len; i++)
		if (s[i] == '<' || s[i] == '[') {
			end = i;
			break;
		}
	return (struct text){t.at + start, end > start ? end - start : 0};
}

static char last_char(const struct dm *d, struct text t)
{
	return t.len ? d->arena[t.at + t.len - 1] : '\0';
}

static void add_sub(struct dm *d, struct text t)
{
	if (d->n_subs == MAX_SUBS) {
		d->failed = 1;
		return;
	}
	d->subs[d->n_subs++] = t;
}

/* ---------------------------------------------------------------------------
 * Grammar
 * ------------------------------------------------------------------------ */

static struct text type(struct dm *d);
static struct text encoding(struct dm *d, int params);
static struct text name(struct dm *d, int *is_template, int *cdtor);

static unsigned long number(struct dm *d)
{
	unsigned long n = 0;
	if (*d->p < '0' || *d->p > '9') {
		d->failed = 1;
		return 0;
	}
	while (*d->p >= '0' && *d->p <= '9') {
		n = n * 10 + (unsigned long)(*d->p++ - '0');
		if (n > 4096) {
			d->failed = 1;
			return 0;
		}
	}
	return n;
}

/* <source-name>; `(anonymous namespace)` for _GLOBAL__N. */
static struct text source_name(struct dm *d)
{
	struct text t = begin(d);
	unsigned long n = number(d);
	if (d->failed || n == 0 || strnlen(d->p, n) < n) {
		d->failed = 1;
		return t;
	}
	if (n >= 10 && !strncmp(d->p, "_GLOBAL__N", 10))
		puts_(d, &t, "(anonymous namespace)");
	else
		put(d, &t, d->p, n);
	d->p += n;
	return t;
}

/* <seq-id> _ after S: the substitution's index. */
static struct text substitution(struct dm *d)
{
	static const struct {
		char c;
		const char *text;
	} std_subs[] = {
		{'a', "std::allocator"}, {'b', "std::basic_string"},
		{'s', "std::string"},    {'i', "std::istream"},
		{'o', "std::ostream"},   {'d', "std::iostream"},
	};
	struct text t = begin(d);
	unsigned long id = 0;
	d->p++; /* S */
	for (size_t i = 0; i < sizeof std_subs / sizeof std_subs[0]; i++)
		if (*d->p == std_subs[i].c) {
			d->p++;
			puts_(d, &t, std_subs[i].text);
			return t;
		}
	if (*d->p != '_') {
		while ((*d->p >= '0' && *d->p <= '9') ||
		       (*d->p >= 'A' && *d->p <= 'Z')) {
			id = id * 36 + (unsigned long)(*d->p <= '9'
							 ? *d->p - '0'
							 : *d->p - 'A' + 10);
			d->p++;
			if (id > MAX_SUBS)
				break;
		}
		id++;
	}
	if (*d->p != '_' || id >= d->n_subs) {
		d->failed = 1;
		return t;
	}
	d->p++;
	put_text(d, &t, d->subs[id]);
	return t;
}

static const struct {
	const char code[3];
	const char *text;
} operators[] = {
	{"nw", "new"},  {"na", "new[]"}, {"dl", "delete"}, {"da", "delete[]"},
	{"ps", "+"},    {"ng", "-"},     {"ad", "&"},      {"de", "*"},
	{"co", "~"},    {"pl", "+"},     {"mi", "-"},      {"ml", "*"},
	{"dv", "/"},    {"rm", "%"},     {"an", "&"},      {"or", "|"},
	{"eo", "^"},    {"aS", "="},     {"pL", "+="},     {"mI", "-="},
	{"mL", "*="},   {"dV", "/="},    {"rM", "%="},     {"aN", "&="},
	{"oR", "|="},   {"eO", "^="},    {"ls", "<<"},     {"rs", ">>"},
	{"lS", "<<="},  {"rS", ">>="},   {"eq", "=="},     {"ne", "!="},
	{"lt", "<"},    {"gt", ">"},     {"le", "<="},     {"ge", ">="},
	{"ss", "<=>"},  {"nt", "!"},     {"aa", "&&"},     {"oo", "||"},
	{"pp", "++"},   {"mm", "--"},    {"cm", ","},      {"pm", "->*"},
	{"pt", "->"},   {"cl", "()"},    {"ix", "[]"},     {"qu", "?"},
};

/* Template arguments: <...>, each a type or an integer literal. */
static struct text template_args(struct dm *d, int after_less)
{
	static const struct {
		char c;
		const char *suffix; /* NULL: shown as (type)value */
	} ints[] = {
		{'i', ""}, {'j', "u"}, {'l', "l"}, {'m', "ul"},
		{'x', "ll"}, {'y', "ull"},
	};
	struct text t = begin(d);
	int first = 1;
	d->p++; /* I */
	puts_(d, &t, after_less ? " <" : "<"); /* operator<< <int> */
	while (!d->failed && *d->p != 'E') {
		if (!first)
			puts_(d, &t, ", ");
		first = 0;
		if (*d->p == 'L' && d->p[1] != 'Z') {
			char c = d->p[1];
			const char *suffix = NULL, *cast = NULL;
			d->p += 2;
			for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
				if (c == ints[i].c)
					suffix = ints[i].suffix;
			if (c == 'c')
				cast = "(char)";
			else if (c == 'a')
				cast = "(signed char)";
			else if (c == 'h')
				cast = "(unsigned char)";
			else if (c == 's')
				cast = "(short)";
			else if (c == 't')
				cast = "(unsigned short)";
			if (c == 'b' && (*d->p == '0' || *d->p == '1') &&
			    d->p[1] == 'E') {
				puts_(d, &t, *d->p == '1' ? "true" : "false");
				d->p += 2;
				continue;
			}
			if (!suffix && !cast) {
				d->failed = 1;
				break;
			}
			if (cast)
				puts_(d, &t, cast);
			if (*d->p == 'n') {
				puts_(d, &t, "-");
				d->p++;
			}
			const char *digits = d->p;
			while (*d->p >= '0' && *d->p <= '9')
				d->p++;
			if (d->p == digits || *d->p != 'E') {
				d->failed = 1;
				break;
			}
			put(d, &t, digits, (size_t)(d->p - digits));
			if (suffix)
				puts_(d, &t, suffix);
			d->p++;
			continue;
		}
		struct text x = type(d);
		struct text t2 = begin(d);
		put_text(d, &t2, t);
		put_text(d, &t2, x);
		t = t2;
	}
	if (*d->p != 'E')
		d->failed = 1;
	d->p++;
	if (last_char(d, t) == '>')
		puts_(d, &t, " ");
	puts_(d, &t, ">");
	return t;
}

/* `{lambda(int, char)#2}` from Ul <types> E [n] _ */
static struct text lambda(struct dm *d)
{
	struct text t = begin(d);
	unsigned long n = 1;
	int first = 1;
	d->p += 2; /* Ul */
	puts_(d, &t, "{lambda(");
	if (*d->p == 'v' && d->p[1] == 'E')
		d->p++;
	while (!d->failed && *d->p && *d->p != 'E') {
		struct text x = type(d);
		struct text t2 = begin(d);
		put_text(d, &t2, t);
		if (!first)
			puts_(d, &t2, ", ");
		first = 0;
		put_text(d, &t2, x);
		t = t2;
	}
	if (*d->p++ != 'E')
		d->failed = 1;
	if (*d->p != '_')
		n = number(d) + 2;
	if (*d->p++ != '_')
		d->failed = 1;
	char buf[24];
	int k = 0;
	char digits[24];
	do
		digits[k++] = (char)('0' + n % 10);
	while ((n /= 10) && k < 20);
	buf[0] = ')';
	buf[1] = '#';
	for (int i = 0; i < k; i++)
		buf[2 + i] = digits[k - 1 - i];
	buf[2 + k] = '}';
	put(d, &t, buf, (size_t)k + 3);
	return t;
}

/* <unqualified-name>: `last` is the enclosing class, for a constructor's
 * or destructor's name. */
static struct text unqualified(struct dm *d, struct text last, int *cdtor)
{
	struct text t = begin(d);
	*cdtor = 0;
	if (*d->p == 'L')
		d->p++; /* internal linkage */
	if (*d->p >= '0' && *d->p <= '9') {
		t = source_name(d);
	} else if ((*d->p == 'C' && d->p[1] >= '1' && d->p[1] <= '5') ||
		   (*d->p == 'D' && d->p[1] >= '0' && d->p[1] <= '5')) {
		if (*d->p == 'D')
			puts_(d, &t, "~");
		put_text(d, &t, last);
		d->p += 2;
		*cdtor = 1;
	} else if (*d->p == 'U' && d->p[1] == 'l') {
		t = lambda(d);
	} else if (*d->p == 'U' && d->p[1] == 't') {
		unsigned long n = 1;
		d->p += 2;
		if (*d->p != '_')
			n = number(d) + 2;
		if (*d->p++ != '_' || n > 9)
			d->failed = 1;
		char buf[] = "{unnamed type#0}";
		buf[14] = (char)('0' + n);
		puts_(d, &t, buf);
	} else if (*d->p == 'c' && d->p[1] == 'v') {
		d->p += 2;
		struct text x = type(d);
		t = begin(d);
		puts_(d, &t, "operator ");
		put_text(d, &t, x);
		*cdtor = 1; /* no return type either */
	} else {
		size_t i;
		for (i = 0; i < sizeof operators / sizeof operators[0]; i++)
			if (d->p[0] == operators[i].code[0] &&
			    d->p[1] == operators[i].code[1])
				break;
		if (i == sizeof operators / sizeof operators[0] || !d->p[1]) {
			d->failed = 1;
			return t;
		}
		d->p += 2;
		puts_(d, &t, "operator");
		if (operators[i].text[0] >= 'a' && operators[i].text[0] <= 'z')
			puts_(d, &t, " ");
		puts_(d, &t, operators[i].text);
	}
	while (!d->failed && *d->p == 'B') { /* ABI tags */
		d->p++;
		struct text tag = source_name(d);
		struct text t2 = begin(d);
		put_text(d, &t2, t);
		puts_(d, &t2, "[abi:");
		put_text(d, &t2, tag);
		puts_(d, &t2, "]");
		t = t2;
	}
	return t;
}

/* <nested-name> after N: prefixes joined by ::, each a substitution
 * candidate but the whole. */
static struct text nested(struct dm *d, int *is_template, int *cdtor,
			  const char **quals)
{
	struct text t = begin(d);
	int fresh = 0; /* t is St's "std" or a substitution: not a candidate */
	*quals = "";
	d->p++; /* N */
	if (*d->p == 'r')
		d->p++;
	if (*d->p == 'V')
		d->p++;
	if (*d->p == 'K') {
		*quals = " const";
		d->p++;
	}
	if (*d->p == 'R' || *d->p == 'O')
		d->p++;
	*is_template = 0;
	while (!d->failed && *d->p != 'E') {
		if (!*d->p) {
			d->failed = 1;
			break;
		}
		if (t.len && !fresh)
			add_sub(d, t);
		fresh = 0;
		if (*d->p == 'I') {
			if (!t.len) {
				d->failed = 1;
				break;
			}
			struct text args = template_args(d, last_char(d, t) == '<');
			struct text t2 = begin(d);
			put_text(d, &t2, t);
			put_text(d, &t2, args);
			t = t2;
			*is_template = 1;
			continue;
		}
		*is_template = 0;
		if (t.len == 0 && *d->p == 'S') {
			/* a standard one names the full type before a
			 * constructor or destructor, as libiberty does */
			static const struct {
				char c;
				const char *text;
			} full[] = {
				{'s', "std::basic_string<char, std::char_traits"
				      "<char>, std::allocator<char> >"},
				{'i', "std::basic_istream<char, std::char_traits"
				      "<char> >"},
				{'o', "std::basic_ostream<char, std::char_traits"
				      "<char> >"},
				{'d', "std::basic_iostream<char, std::char_traits"
				      "<char> >"},
			};
			size_t i;
			for (i = 0; i < sizeof full / sizeof full[0]; i++)
				if (d->p[1] == full[i].c)
					break;
			if (d->p[1] == 't') {
				d->p += 2;
				puts_(d, &t, "std");
			} else if (i < sizeof full / sizeof full[0] &&
				   (d->p[2] == 'C' || d->p[2] == 'D') &&
				   d->p[3] >= '0' && d->p[3] <= '9') {
				d->p += 2; /* std::string::~basic_string */
				puts_(d, &t, full[i].text);
			} else {
				t = substitution(d);
			}
			fresh = 1;
			continue;
		}
		struct text u = unqualified(d, class_name(d, t), cdtor);
		struct text t2 = begin(d);
		put_text(d, &t2, t);
		if (t.len)
			puts_(d, &t2, "::");
		put_text(d, &t2, u);
		t = t2;
	}
	d->p++;
	return t;
}

/* <local-name> after Z: the function (with its parameters) :: entity */
static struct text local(struct dm *d, int *cdtor)
{
	d->p++; /* Z */
	struct text fn = encoding(d, 1), t;
	if (*d->p++ != 'E' || *d->p == 's') { /* s: a string literal */
		d->failed = 1;
		return fn;
	}
	int is_template;
	struct text entity = name(d, &is_template, cdtor);
	t = begin(d);
	put_text(d, &t, fn);
	puts_(d, &t, "::");
	put_text(d, &t, entity);
	if (*d->p == '_') { /* discriminator */
		d->p++;
		if (*d->p == '_') {
			d->p++;
			number(d);
			if (*d->p++ != '_')
				d->failed = 1;
		} else if (*d->p >= '0' && *d->p <= '9') {
			d->p++;
		} else {
			d->failed = 1;
		}
	}
	return t;
}

static struct text name(struct dm *d, int *is_template, int *cdtor)
{
	struct text t = begin(d), none = {0, 0};
	const char *quals;
	int from_sub = 0;
	*is_template = 0;
	*cdtor = 0;
	if (*d->p == 'N')
		return nested(d, is_template, cdtor, &quals);
	if (*d->p == 'Z')
		return local(d, cdtor);
	if (*d->p == 'S' && d->p[1] == 't') {
		d->p += 2;
		struct text u = unqualified(d, none, cdtor);
		t = begin(d);
		puts_(d, &t, "std::");
		put_text(d, &t, u);
	} else if (*d->p == 'S') {
		t = substitution(d);
		from_sub = 1;
	} else {
		t = unqualified(d, none, cdtor);
	}
	if (*d->p == 'I') {
		if (!from_sub)
			add_sub(d, t); /* a substitution is one already */
		struct text args = template_args(d, last_char(d, t) == '<');
		struct text whole = begin(d);
		put_text(d, &whole, t);
		put_text(d, &whole, args);
		*is_template = 1;
		return whole;
	}
	return t;
}

static const struct {
	char c;
	const char *text;
} builtins[] = {
	{'v', "void"}, {'w', "wchar_t"}, {'b', "bool"}, {'c', "char"},
	{'a', "signed char"}, {'h', "unsigned char"}, {'s', "short"},
	{'t', "unsigned short"}, {'i', "int"}, {'j', "unsigned int"},
	{'l', "long"}, {'m', "unsigned long"}, {'x', "long long"},
	{'y', "unsigned long long"}, {'n', "__int128"},
	{'o', "unsigned __int128"}, {'f', "float"}, {'d', "double"},
	{'e', "long double"}, {'g', "__float128"}, {'z', "..."},
};

static struct text type(struct dm *d)
{
	struct text t = begin(d), inner;
	const char *suffix = NULL;
	char c = *d->p;

	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (c == builtins[i].c) {
			d->p++;
			puts_(d, &t, builtins[i].text);
			return t;
		}
	if (c == 'D' && (d->p[1] == 'n' || d->p[1] == 's' || d->p[1] == 'i' ||
			 d->p[1] == 'u')) {
		puts_(d, &t, d->p[1] == 'n'   ? "decltype(nullptr)"
			     : d->p[1] == 's' ? "char16_t"
			     : d->p[1] == 'i' ? "char32_t"
					      : "char8_t");
		d->p += 2;
		return t;
	}
	switch (c) {
	case 'P':
		suffix = "*";
		break;
	case 'R':
		suffix = "&";
		break;
	case 'O':
		suffix = "&&";
		break;
	case 'K':
		suffix = " const";
		break;
	case 'V':
		suffix = " volatile";
		break;
	case 'r':
		suffix = " restrict";
		break;
	}
	if (suffix) {
		d->p++;
		inner = type(d);
		t = begin(d);
		put_text(d, &t, inner);
		puts_(d, &t, suffix);
		add_sub(d, t);
		return t;
	}
	if (c == 'N' || c == 'Z' || (c >= '0' && c <= '9')) {
		int is_template, cdtor;
		t = name(d, &is_template, &cdtor);
		add_sub(d, t);
		return t;
	}
	if (c == 'S') {
		int std = d->p[1] == 't';
		int is_template, cdtor;
		if (std) {
			t = name(d, &is_template, &cdtor);
			add_sub(d, t);
			return t;
		}
		t = substitution(d);
		if (*d->p == 'I') {
			struct text args = template_args(d, last_char(d, t) == '<');
			struct text whole = begin(d);
			put_text(d, &whole, t);
			put_text(d, &whole, args);
			add_sub(d, whole);
			return whole;
		}
		return t;
	}
	/* function, array, member pointer, template parameter, pack,
	 * decltype, vendor qualifier: not read */
	d->failed = 1;
	return t;
}

/* <encoding>: a function's name, its parameters when `params` (a local
 * name's function shows them), and nothing of its type otherwise. */
static struct text encoding(struct dm *d, int params)
{
	int is_template, cdtor;
	const char *quals = "";
	struct text n;

	if (*d->p == 'N') {
		n = nested(d, &is_template, &cdtor, &quals);
	} else {
		n = name(d, &is_template, &cdtor);
	}
	if (!params || d->failed)
		return n;
	struct text t, ret = {0, 0};
	int has_ret = is_template && !cdtor;
	struct text list[16];
	int n_list = 0;
	if (*d->p == 'E' || !*d->p)
		return n; /* main: no parameters mangled */
	if (has_ret)
		ret = type(d);
	while (!d->failed && *d->p && *d->p != 'E' && n_list < 16)
		list[n_list++] = type(d);
	if (n_list == 16)
		d->failed = 1;
	t = begin(d);
	if (has_ret) {
		put_text(d, &t, ret);
		puts_(d, &t, " ");
	}
	put_text(d, &t, n);
	puts_(d, &t, "(");
	for (int i = 0; i < n_list; i++) {
		struct text x = list[i];
		if (n_list == 1 && x.len == 4 &&
		    !memcmp(d->arena + x.at, "void", 4))
			break;
		if (i)
			puts_(d, &t, ", ");
		put_text(d, &t, x);
	}
	puts_(d, &t, ")");
	puts_(d, &t, quals);
	return t;
}

size_t ctrace__demangle_state_size(void)
{
	return sizeof(struct dm);
}

int ctrace__demangle_name(void *state, const char *mangled, char *out,
			  size_t size)
{
	struct dm *d = state;
	const char *dot;
	size_t n, suffix;

	if (strncmp(mangled, "_Z", 2) != 0)
		return -1;
	d->p = mangled + 2;
	d->used = 0;
	d->n_subs = 0;
	d->failed = 0;
	/* special names (vtables, guards, thunks) are not functions */
	if (*d->p == 'T' || *d->p == 'G')
		return -1;
	struct text t = encoding(d, 0);
	if (d->failed)
		return -1;
	/* what follows is the function's type; a clone suffix ends it */
	dot = strchr(d->p, '.');
	suffix = dot ? strlen(dot) : 0;
	n = t.len;
	if (n + suffix + 1 > size)
		return -1;
	memcpy(out, d->arena + t.at, n);
	memcpy(out + n, dot ? dot : "", suffix);
	out[n + suffix] = '\0';
	return 0;
}
