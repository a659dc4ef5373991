/* filter.c -- which functions to record: patterns to addresses, once.
 *
 * CTRACE_FILTER (and the capture lists) name functions; the hot path only
 * ever sees addresses.  At start-up, and when a new object is loaded, the
 * ELF symbol table of each object is read from its file and every function
 * symbol matched against the patterns; functions whose flags differ from
 * the default go into an open-addressing table keyed by address.  A lookup
 * is a multiply, a load and a compare, with no string work.
 *
 * Pattern rules (as in doc/recording.md): patterns are separated by commas; a
 * leading `!` excludes; the first pattern that matches decides; a function
 * no pattern matches is recorded unless there is at least one include
 * pattern.  Globs by default (as fnmatch, glob_match), POSIX extended
 * regular expressions with CTRACE_MATCH=regex.  C++ functions match by their mangled name or by
 * their name as the symbolizer shows it (demangle.c: ns::Class::method,
 * ns::pick<int, char>, main::{lambda(int)#1}::operator()).  A pattern that
 * matches no function of the program and the libraries loaded at start-up
 * gets a warning.
 *
 * Library calls (plt.c) are recorded under their GOT slot's address, for
 * which no symbol exists: the slot's relocation symbol is matched once,
 * when plt.c redirects it, and its flags go into the table under the
 * slot's address, kept across rescans (libcall_*).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "elfsym.h"
#include "internal.h"

/* ---------------------------------------------------------------------------
 * Pattern lists
 * ------------------------------------------------------------------------ */

struct pattern {
	const char *text; /* points into the environment string copy */
	int exclude;
	int matched; /* some function at start-up matched it */
	regex_t re;
};

struct pattern_list {
	struct pattern *items;
	size_t n;
	int has_include;
	int all; /* the single word "all" */
};

/* Which list sets which flag. */
struct rule {
	struct pattern_list list;
	uint8_t flag;
};

static struct rule rules[3];
static size_t n_rules;
/* Some list has a pattern: the names are matched (else each is "all"). */
static int names_read;
static int use_regex;

static void *mmap_alloc(size_t size)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

/* Cuts the list at its commas, but not at those inside <>, (), [] or {}:
 * `ns::pick<int, char>` is one pattern, as the symbolizer shows the name. */
static char *next_pattern(char **rest)
{
	char *tok = *rest;
	int depth = 0;
	if (tok == NULL)
		return NULL;
	for (char *c = tok;; c++) {
		if (*c == '<' || *c == '(' || *c == '[' || *c == '{')
			depth++;
		else if ((*c == '>' || *c == ')' || *c == ']' || *c == '}') &&
			 depth > 0)
			depth--;
		else if (*c == '\0' || (*c == ',' && depth == 0)) {
			*rest = *c ? c + 1 : NULL;
			*c = '\0';
			return tok;
		}
	}
}

/* Bounds on the work at start-up, where every pattern is tried on every
 * function of every object: 5,000 regular expressions took 16 s.  And
 * glibc's regcomp copies a repeated group once per repetition, so a
 * repetition of a repetition, ((a*){1,16}){1,16}, multiplies: three
 * levels took 8 s, ((((((((((a*)*)*)*)*)*)*)*)*)*){1,100}{1,100}x
 * never ended.  A regular expression is refused when it is longer than
 * MAX_REGEX_LEN, when a repetition count ({m,n}) is above MAX_REPEAT, or
 * when a count applies to what has one already (a group holding one, or
 * another count).  Measured: a count of 32 over eight nested stars
 * compiles in 0.1 s. */
#define MAX_PATTERNS 256
#define MAX_REGEX_LEN 256
#define MAX_REPEAT 32

/* Why the regular expression p would cost too much, or NULL. */
static const char *regex_too_costly(const char *p)
{
	if (strlen(p) > MAX_REGEX_LEN)
		return ": longer than 256 bytes: ";
	/* counted[d]: the group open at depth d holds a count */
	unsigned char counted[MAX_REGEX_LEN + 1] = {0};
	size_t depth = 0;
	int last_counted = 0; /* the atom just before holds a count */
	for (const char *c = p; *c; c++) {
		switch (*c) {
		case '\\':
			if (c[1])
				c++;
			last_counted = 0;
			break;
		case '[': /* a bracket expression: '{' in it is literal */
			c++;
			if (*c == '^')
				c++;
			if (*c == ']')
				c++;
			while (*c && *c != ']')
				c++;
			if (*c == '\0')
				return NULL; /* regcomp refuses it */
			last_counted = 0;
			break;
		case '(':
			counted[++depth] = 0;
			last_counted = 0;
			break;
		case ')':
			last_counted = depth > 0 && counted[depth];
			if (depth > 0) {
				depth--;
				counted[depth] |= (unsigned char)last_counted;
			}
			break;
		case '{': {
			unsigned long m = 0;
			const char *q = c + 1;
			int digits = 0;
			for (; *q >= '0' && *q <= '9'; q++, digits++)
				m = m * 10 + (unsigned long)(*q - '0');
			if (digits > 3 || m > MAX_REPEAT)
				return ": a repetition count above 32: ";
			if (*q == ',') {
				unsigned long n = 0;
				digits = 0;
				for (q++; *q >= '0' && *q <= '9'; q++, digits++)
					n = n * 10 + (unsigned long)(*q - '0');
				if (digits > 3 || n > MAX_REPEAT)
					return ": a repetition count above 32: ";
			}
			if (last_counted)
				return ": a repetition count applied to a "
				       "repetition count: ";
			counted[depth] = 1;
			last_counted = 1;
			if (*q == '}')
				c = q;
			break;
		}
		case '*': /* the same atom, repeated: still counted */
		case '+':
		case '?':
			break;
		default:
			last_counted = 0;
		}
	}
	return NULL;
}

static int parse_list(const char *env, const char *value,
		      struct pattern_list *l)
{
	size_t len = strlen(value), n = 1;
	for (size_t i = 0; i < len; i++)
		n += value[i] == ',';
	if (n > MAX_PATTERNS) {
		ctrace__warn(env, ": more than 256 patterns", "");
		return -EINVAL;
	}
	char *copy = mmap_alloc(len + 1);
	l->items = mmap_alloc(n * sizeof *l->items);
	if (copy == NULL || l->items == NULL)
		return -ENOMEM;
	memcpy(copy, value, len + 1);
	for (char *rest = copy, *tok; (tok = next_pattern(&rest)) != NULL;) {
		struct pattern *p = &l->items[l->n];
		p->exclude = tok[0] == '!';
		p->text = tok + p->exclude;
		if (*p->text == '\0')
			continue;
		if (!strcmp(p->text, "all") && !p->exclude) {
			l->all = 1;
			continue;
		}
		const char *why = use_regex ? regex_too_costly(p->text) : NULL;
		if (why != NULL) {
			ctrace__warn(env, why, p->text);
			return -EINVAL;
		}
		if (use_regex &&
		    regcomp(&p->re, p->text, REG_EXTENDED | REG_NOSUB) != 0) {
			ctrace__warn(env, ": bad regular expression: ", p->text);
			return -EINVAL;
		}
		l->has_include |= !p->exclude;
		l->n++;
	}
	return 0;
}

/* The bracket expression at p (after its '['): whether it holds c; *end
 * the byte after its ']'.  NULL *end: no ']', the '[' is a plain byte. */
static int bracket_holds(const char *p, unsigned char c, const char **end)
{
	int negate = *p == '!' || *p == '^';
	int found = 0;
	p += negate;
	for (int first = 1; *p != '\0' && (first || *p != ']'); first = 0) {
		unsigned char lo = (unsigned char)*p++, hi = lo;
		if (lo == '\\' && *p != '\0')
			lo = hi = (unsigned char)*p++;
		if (*p == '-' && p[1] != ']' && p[1] != '\0') {
			hi = (unsigned char)p[1];
			p += 2;
			if (hi == '\\' && *p != '\0')
				hi = (unsigned char)*p++;
		}
		found |= lo <= c && c <= hi;
	}
	*end = *p == ']' ? p + 1 : NULL;
	return found != negate;
}

/* fnmatch(pattern, name, 0) for the globs of the filters: `*', `?',
 * bracket expressions with ranges and `!' or `^', a backslash quoting
 * the next byte.  Byte by byte, and in a few words of stack whatever the
 * name's length: this runs on a program's thread that noticed a dlopen,
 * where the C library's fnmatch took about 2.7 KiB (more in a multibyte
 * locale).  A `*' retried from the byte after its last start is enough
 * to backtrack (the pieces between stars match leftmost). */
static int glob_match(const char *pat, const char *name)
{
	const char *star = NULL, *resume = NULL;
	for (;;) {
		unsigned char c = (unsigned char)*name;
		const char *next = NULL;
		int ok = 0;
		if (*pat == '*') {
			while (*pat == '*')
				pat++;
			star = pat;
			resume = name;
			continue;
		}
		if (c == '\0' && *pat == '\0')
			return 1;
		if (c != '\0') {
			if (*pat == '?') {
				ok = 1;
				next = pat + 1;
			} else if (*pat == '[') {
				const char *end;
				ok = bracket_holds(pat + 1, c, &end);
				if (end == NULL) {
					ok = c == '[';
					end = pat + 1;
				}
				next = end;
			} else if (*pat == '\\') {
				if (pat[1] == '\0')
					return 0; /* as fnmatch: an error */
				ok = c == (unsigned char)pat[1];
				next = pat + 2;
			} else if (*pat != '\0') {
				ok = c == (unsigned char)*pat;
				next = pat + 1;
			}
		}
		if (ok) {
			pat = next;
			name++;
			continue;
		}
		if (star == NULL || *resume == '\0')
			return 0;
		pat = star;
		name = ++resume;
	}
}

static int pattern_match(const struct pattern *p, const char *name)
{
	if (use_regex)
		return regexec(&p->re, name, 0, NULL, 0) == 0;
	return glob_match(p->text, name);
}

/* 1 if the list selects the function, 0 if not. */
static int list_selects(const struct pattern_list *l, const char *mangled,
			const char *plain)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct pattern *p = &l->items[i];
		if (pattern_match(p, mangled) ||
		    (plain != NULL && pattern_match(p, plain)))
			return !p->exclude;
	}
	return l->all || !l->has_include;
}

/* ---------------------------------------------------------------------------
 * The address table
 * ------------------------------------------------------------------------ */

/* The table's lookup is in internal.h, inlined into the hooks. */
struct ctrace__flags_table_t *_Atomic ctrace__flags_table;
uint8_t ctrace__default_flags;
_Atomic uint8_t ctrace__flags_any;

static void table_put(struct ctrace__flags_table_t *t, uintptr_t addr, uint8_t flags)
{
	size_t i = ctrace__flags_slot_of(addr, t->mask);
	while (t->slots[i].addr != 0 && t->slots[i].addr != addr)
		i = (i + 1) & t->mask;
	t->used += t->slots[i].addr == 0;
	t->slots[i].addr = addr;
	t->slots[i].flags = flags;
	/* Before any reader can see the table. */
	atomic_fetch_or_explicit(&ctrace__flags_any, flags,
				 memory_order_relaxed);
}

static struct ctrace__flags_table_t *table_new(size_t min_entries)
{
	size_t n = 1024;
	while (n < min_entries * 2)
		n *= 2;
	struct ctrace__flags_table_t *t = mmap_alloc(sizeof *t + n * sizeof(struct ctrace__flags_slot));
	if (t != NULL)
		t->mask = n - 1;
	return t;
}

/* ---------------------------------------------------------------------------
 * Reading one object's symbols
 * ------------------------------------------------------------------------ */

/* Marks the patterns that `name` matches, for the start-up warning about
 * patterns that match nothing (each is tried until it matched once). */
static void note_matches(const char *mangled, const char *plain)
{
	for (size_t i = 0; i < n_rules; i++)
		for (size_t k = 0; k < rules[i].list.n; k++) {
			struct pattern *p = &rules[i].list.items[k];
			if (!p->matched &&
			    (pattern_match(p, mangled) ||
			     (plain != NULL && pattern_match(p, plain))))
				p->matched = 1;
		}
}

/* C++ names are matched as the symbolizer shows them (demangle.c). */
/* A demangled name's room, after the demangler's state in its mapping
 * (not on the stack of the program's thread that rescans). */
#define PLAIN_MAX 1024

static uint8_t flags_of(const char *name, void *demangle_state,
			int first_scan)
{
	char *plain = demangle_state != NULL
			      ? (char *)demangle_state +
					ctrace__demangle_state_size()
			      : NULL;
	/* Lists without patterns ("all") read no name: demangling every
	 * symbol of every object (libstdc++'s thousands) took half of a
	 * C++ program's start-up with CTRACE_ARGS=all. */
	const char *p = demangle_state != NULL && names_read &&
				ctrace__demangle_name(demangle_state, name,
						      plain, PLAIN_MAX) == 0
			? plain
			: NULL;
	uint8_t flags = 0;
	for (size_t i = 0; i < n_rules; i++) {
		int sel = list_selects(&rules[i].list, name, p);
		/* CTRACE_FILTER's flag means "skip": set when not selected. */
		if (rules[i].flag == CTRACE_F_SKIP ? !sel : sel)
			flags |= rules[i].flag;
	}
	if (first_scan)
		note_matches(name, p);
	return flags;
}

/* Calls `fn` for each defined function symbol of the ELF file at `path`,
 * mapped at `bias`.  Bounds-checks the file: it may be anything. */
static void for_each_function(const char *path, uintptr_t bias,
			      void (*fn)(void *, uintptr_t, const char *),
			      void *data)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		close(fd);
		return;
	}
	size_t size = (size_t)st.st_size;
	const uint8_t *f = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return;
	/* Decoded by common/elfsym.c; every offset checked here against
	 * the mapping. */
	struct ctrace_elf e;
	if (ctrace__elf_header(f, size, &e) < 0 || e.shoff >= size ||
	    e.shentsize < ctrace__elf_shdr_size(&e) ||
	    e.shnum > (size - e.shoff) / e.shentsize)
		goto out;
	size_t symsize = ctrace__elf_sym_size(&e);
	/* .symtab has the static functions too; .dynsym is what a stripped
	 * object still has. */
	for (unsigned want = SHT_SYMTAB, pass = 0; pass < 2;
	     pass++, want = SHT_DYNSYM) {
		int found = 0;
		for (uint64_t i = 0; i < e.shnum; i++) {
			struct ctrace_elf_section sec, str;
			ctrace__elf_section(&e, f + e.shoff + i * e.shentsize,
					    &sec);
			if (sec.type != want || sec.link >= e.shnum)
				continue;
			ctrace__elf_section(
				&e, f + e.shoff + sec.link * e.shentsize, &str);
			if (sec.offset > size || sec.size > size - sec.offset ||
			    str.offset > size || str.size > size - str.offset)
				continue;
			const char *names = (const char *)f + str.offset;
			for (uint64_t k = 0; k < sec.size / symsize; k++) {
				struct ctrace_elf_symbol sym;
				ctrace__elf_symbol(&e, f + sec.offset + k * symsize,
						   &sym);
				if (!ctrace__elf_function(&sym) ||
				    sym.value == 0 || sym.name >= str.size ||
				    !memchr(names + sym.name, '\0',
					    str.size - sym.name))
					continue;
				fn(data, bias + (uintptr_t)sym.value,
				   names + sym.name);
				found = 1;
			}
		}
		if (found)
			break;
	}
out:
	munmap((void *)f, size);
}

struct build {
	struct ctrace__flags_table_t *t;
	size_t count; /* pass 1: symbols seen */
	void *demangle_state;
	int first_scan;
};

static void count_one(void *data, uintptr_t addr, const char *name)
{
	(void)addr;
	(void)name;
	((struct build *)data)->count++;
}

static void add_one(void *data, uintptr_t addr, const char *name)
{
	struct build *b = data;
	uint8_t flags = flags_of(name, b->demangle_state, b->first_scan);
	/* No return value to catch: its exit needs nothing more than its
	 * EXIT, and takes the hooks' fast path. */
	if ((flags & CTRACE_F_RETVAL) && ctrace__plan_returns_nothing(addr))
		flags &= (uint8_t)~CTRACE_F_RETVAL;
	/* Read at its exits: its entries take the hooks' fast path unless
	 * its arguments are asked for. */
	if ((flags & CTRACE_F_RETVAL) && ctrace__plan_reads_return(addr))
		flags |= CTRACE_F_RETREAD;
	if (flags != ctrace__default_flags && b->t->used * 2 < b->t->mask)
		table_put(b->t, addr, flags);
}

struct object_list {
	struct build *b;
	void (*fn)(void *, uintptr_t, const char *);
	char *exe; /* EXE_MAX bytes for the executable's path */
};

#define EXE_MAX 4096

static int visit_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct object_list *o = data;
	char *exe = o->exe;
	const char *path = info->dlpi_name;
	if (path == NULL || *path == '\0') {
		if (exe == NULL)
			return 0;
		ssize_t n = readlink("/proc/self/exe", exe, EXE_MAX - 1);
		if (n <= 0)
			return 0;
		exe[n] = '\0';
		path = exe;
	}
	if (strchr(path, '/') != NULL)
		for_each_function(path, info->dlpi_addr, o->fn, o->b);
	return 0;
}

/* ---------------------------------------------------------------------------
 * Library calls
 * ------------------------------------------------------------------------ */

/* The flags of each redirected slot, by plt.c's slot index: every table
 * built holds them.  libcalls_gen counts the changes, so that a rescan
 * that built its table from an older list than the one a publish just
 * used gives way to it (publish again). */
struct libcall_entry {
	_Atomic uintptr_t got; /* 0: not yet set */
	uint8_t flags;
};
static struct libcall_entry *libcalls;
static _Atomic uint32_t n_libcalls;
static _Atomic uint64_t libcalls_gen;
static char *libcall_scratch; /* the demangler's state and a name */

/* Puts the library calls' flags into t, a table no reader sees yet.  A
 * slot whose flags are the default goes in too: its address may have held
 * another slot's with other flags (an object unloaded, another loaded). */
static void libcall_merge(struct ctrace__flags_table_t *t)
{
	uint32_t n = atomic_load_explicit(&n_libcalls, memory_order_acquire);
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t got = atomic_load_explicit(&libcalls[i].got,
						     memory_order_acquire);
		if (got != 0 && t->used * 2 < t->mask)
			table_put(t, got, libcalls[i].flags);
	}
}

/* The current table with the library calls' flags, published; again
 * until no other table came in between. */
static void libcall_publish(void)
{
	for (;;) {
		struct ctrace__flags_table_t *old = atomic_load_explicit(
			&ctrace__flags_table, memory_order_acquire);
		uint64_t gen = atomic_load(&libcalls_gen);
		size_t want = atomic_load(&n_libcalls) + (old ? old->used : 0);
		struct ctrace__flags_table_t *t = table_new(want);
		if (t == NULL)
			return;
		for (size_t i = 0; old != NULL && i <= old->mask; i++)
			if (old->slots[i].addr != 0)
				table_put(t, old->slots[i].addr,
					  old->slots[i].flags);
		libcall_merge(t);
		if (!atomic_compare_exchange_strong(&ctrace__flags_table, &old,
						    t)) {
			/* No reader saw it. */
			munmap(t, sizeof *t + (t->mask + 1) * sizeof t->slots[0]);
			continue;
		}
		if (atomic_load(&libcalls_gen) == gen)
			return;
	}
}

uint8_t ctrace__filter_libcall_flags(const char *name)
{
	if (n_rules == 0)
		return ctrace__default_flags;
	if (libcalls == NULL) {
		libcalls = mmap_alloc(CTRACE_FILTER_LIBCALLS * sizeof *libcalls);
		libcall_scratch = mmap_alloc(ctrace__demangle_state_size() +
					     PLAIN_MAX);
		if (libcalls == NULL || libcall_scratch == NULL) {
			/* Then the default: an include pattern leaves the
			 * library calls out, as before the filters knew them. */
			libcalls = NULL;
			return ctrace__default_flags;
		}
	}
	/* Whether it is recorded, and its values by CTRACE_ARGS and
	 * CTRACE_RETVAL's patterns as a function's: the slot's flags are
	 * the same at its call and its return. */
	return flags_of(name, libcall_scratch, 0) &
	       (CTRACE_F_SKIP | CTRACE_F_ARGS | CTRACE_F_RETVAL);
}

void ctrace__filter_libcall(uint32_t slot, uintptr_t got, uint8_t flags)
{
	if (libcalls == NULL || slot >= CTRACE_FILTER_LIBCALLS)
		return;
	struct libcall_entry *e = &libcalls[slot];
	atomic_store_explicit(&e->got, 0, memory_order_release);
	e->flags = flags;
	atomic_store_explicit(&e->got, got, memory_order_release);
	if (slot >= atomic_load(&n_libcalls))
		atomic_store_explicit(&n_libcalls, slot + 1,
				      memory_order_release);
	atomic_fetch_add(&libcalls_gen, 1);
}

void ctrace__filter_libcalls_done(void)
{
	if (n_rules != 0 && libcalls != NULL)
		libcall_publish();
}

/* ---------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------ */

static int first_scan;

static const char *lists_env(uint8_t flag)
{
	return flag == CTRACE_F_SKIP	 ? "CTRACE_FILTER"
	       : flag == CTRACE_F_ARGS ? "CTRACE_ARGS"
				       : "CTRACE_RETVAL";
}

int ctrace__filter_init(const struct ctrace__config *c)
{
	use_regex = c->match_regex;
	static const struct {
		const char *env;
		int which;
		uint8_t flag;
	} lists[] = {
		{"CTRACE_FILTER", CTRACE_LIST_FILTER, CTRACE_F_SKIP},
		{"CTRACE_ARGS", CTRACE_LIST_ARGS, CTRACE_F_ARGS},
		{"CTRACE_RETVAL", CTRACE_LIST_RETVAL, CTRACE_F_RETVAL},
	};
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
		const char *v = ctrace__config_list(lists[i].which);
		if (v == NULL)
			continue;
		struct rule *r = &rules[n_rules];
		if (parse_list(lists[i].env, v, &r->list) < 0)
			return -EINVAL;
		r->flag = lists[i].flag;
		n_rules++;
		names_read |= r->list.n != 0;
		if (r->flag == CTRACE_F_SKIP ? r->list.has_include
					     : r->list.all)
			ctrace__default_flags |= r->flag;
	}
	atomic_store_explicit(&ctrace__flags_any, ctrace__default_flags,
			      memory_order_relaxed);
	if (n_rules == 0)
		return 0;
	first_scan = 1;
	int r = ctrace__filter_rescan();
	first_scan = 0;
	/* A pattern no function matches is most likely a typo, or a name
	 * written otherwise than the symbolizer shows it. */
	for (size_t i = 0; r >= 0 && i < n_rules; i++)
		for (size_t k = 0; k < rules[i].list.n; k++)
			if (!rules[i].list.items[k].matched)
				ctrace__warn(lists_env(rules[i].flag),
					     ": no function loaded so far matches ",
					     rules[i].list.items[k].text);
	return r;
}

/* Builds a new table over every loaded object.  Readers keep using the
 * old one meanwhile; it is never freed, since a hook on another thread
 * may still be looking at it (a few pages per dlopen). */
int ctrace__filter_rescan(void)
{
	if (n_rules == 0)
		return 0;
	/* The demangler's state, a demangled name and the executable's
	 * path in one mapping: this runs on a program's thread that noticed
	 * a dlopen, whose stack may be small. */
	size_t state_size = ctrace__demangle_state_size();
	size_t scratch_size = state_size + PLAIN_MAX + EXE_MAX;
	char *scratch = mmap_alloc(scratch_size);
	if (scratch == NULL)
		return -ENOMEM;
	uint64_t gen = atomic_load(&libcalls_gen);
	struct build b = {0};
	struct object_list o = {&b, count_one, scratch + state_size + PLAIN_MAX};
	dl_iterate_phdr(visit_object, &o);
	b.t = table_new(b.count + atomic_load(&n_libcalls));
	if (b.t == NULL) {
		munmap(scratch, scratch_size);
		return -ENOMEM;
	}
	b.demangle_state = scratch;
	b.first_scan = first_scan;
	o.fn = add_one;
	dl_iterate_phdr(visit_object, &o);
	munmap(scratch, scratch_size);
	if (libcalls != NULL)
		libcall_merge(b.t);
	/* Every function has the default flags (CTRACE_ARGS=all, say): no
	 * table, so the hooks look nothing up. */
	struct ctrace__flags_table_t *t = b.t;
	if (t->used == 0) {
		munmap(t, sizeof *t + (t->mask + 1) * sizeof t->slots[0]);
		t = NULL;
	}
	atomic_store_explicit(&ctrace__flags_table, t, memory_order_release);
	/* A slot redirected meanwhile may have published a table this one
	 * replaced without its flags. */
	if (libcalls != NULL && atomic_load(&libcalls_gen) != gen)
		libcall_publish();
	return 1;
}
