/* filter.c -- which functions to record: patterns to addresses, once.
 *
 * CTRACE_FILTER (and the capture lists) name functions; the hot path only
 * ever sees addresses.  At start-up, and when a new object is loaded, the
 * ELF symbol table of each object is read from its file and every function
 * symbol matched against the patterns; functions whose flags differ from
 * the default go into an open-addressing table keyed by address.  A lookup
 * is a multiply, a load and a compare, with no string work.
 *
 * Pattern rules (as in README): patterns are separated by commas; a
 * leading `!` excludes; the first pattern that matches decides; a function
 * no pattern matches is recorded unless there is at least one include
 * pattern.  Globs by default (fnmatch), POSIX extended regular expressions
 * with CTRACE_MATCH=regex.  C++ functions match by their mangled name or by
 * their qualified name without parameters (ns::Class::method).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* ---------------------------------------------------------------------------
 * Pattern lists
 * ------------------------------------------------------------------------ */

struct pattern {
	const char *text; /* points into the environment string copy */
	int exclude;
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
static int use_regex;

static void *mmap_alloc(size_t size)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

static int parse_list(const char *env, const char *value,
		      struct pattern_list *l)
{
	size_t len = strlen(value), n = 1;
	for (size_t i = 0; i < len; i++)
		n += value[i] == ',';
	char *copy = mmap_alloc(len + 1);
	l->items = mmap_alloc(n * sizeof *l->items);
	if (copy == NULL || l->items == NULL)
		return -ENOMEM;
	memcpy(copy, value, len + 1);
	for (char *save, *tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		struct pattern *p = &l->items[l->n];
		p->exclude = tok[0] == '!';
		p->text = tok + p->exclude;
		if (*p->text == '\0')
			continue;
		if (!strcmp(p->text, "all") && !p->exclude) {
			l->all = 1;
			continue;
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

static int pattern_match(const struct pattern *p, const char *name)
{
	if (use_regex)
		return regexec(&p->re, name, 0, NULL, 0) == 0;
	return fnmatch(p->text, name, 0) == 0;
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
 * A small demangler: enough of the Itanium ABI to name functions the way
 * users write them in patterns (ns::Class<...>::method).  Anything it does
 * not understand leaves the mangled name as the only one to match.
 * ------------------------------------------------------------------------ */

static const char *skip_template_args(const char *p)
{
	int depth = 0;
	do {
		if (*p == '\0')
			return NULL;
		if (*p == 'I' || *p == 'L')
			depth++;
		else if (*p == 'E')
			depth--;
		p++;
	} while (depth > 0);
	return p;
}

static int simple_demangle(const char *m, char *out, size_t size)
{
	if (strncmp(m, "_Z", 2) != 0)
		return -1;
	m += 2;
	int nested = *m == 'N';
	m += nested;
	while (nested && (*m == 'K' || *m == 'V' || *m == 'r'))
		m++;
	size_t n = 0;
	char last[256] = "";
	if (!strncmp(m, "St", 2)) {
		if (n + 5 >= size)
			return -1;
		memcpy(out, "std::", 5);
		n = 5;
		m += 2;
	}
	for (;;) {
		if (*m >= '0' && *m <= '9') {
			char *end;
			unsigned long len = strtoul(m, &end, 10);
			if (len == 0 || len >= sizeof last || strlen(end) < len)
				return -1;
			if (n && out[n - 1] != ':') {
				if (n + 2 >= size)
					return -1;
				out[n++] = ':';
				out[n++] = ':';
			}
			if (n + len + 1 >= size)
				return -1;
			memcpy(out + n, end, len);
			memcpy(last, end, len);
			last[len] = '\0';
			n += len;
			m = end + len;
		} else if (*m == 'I') {
			if ((m = skip_template_args(m)) == NULL)
				return -1;
		} else if (nested && (m[0] == 'C' || m[0] == 'D') &&
			   m[1] >= '0' && m[1] <= '9') {
			size_t len = strlen(last);
			if (len == 0 || n + len + 4 >= size)
				return -1;
			out[n++] = ':';
			out[n++] = ':';
			if (m[0] == 'D')
				out[n++] = '~';
			memcpy(out + n, last, len);
			n += len;
			m += 2;
		} else {
			break;
		}
		if (!nested)
			break;
	}
	if (nested && *m != 'E')
		return -1;
	if (n == 0)
		return -1;
	out[n] = '\0';
	return 0;
}

/* ---------------------------------------------------------------------------
 * The address table
 * ------------------------------------------------------------------------ */

/* The table's lookup is in internal.h, inlined into the hooks. */
struct ctrace__flags_table_t *_Atomic ctrace__flags_table;
uint8_t ctrace__default_flags;

static void table_put(struct ctrace__flags_table_t *t, uintptr_t addr, uint8_t flags)
{
	size_t i = ctrace__flags_slot_of(addr, t->mask);
	while (t->slots[i].addr != 0 && t->slots[i].addr != addr)
		i = (i + 1) & t->mask;
	t->used += t->slots[i].addr == 0;
	t->slots[i].addr = addr;
	t->slots[i].flags = flags;
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

static uint8_t flags_of(const char *name)
{
	char plain[1024];
	const char *p = simple_demangle(name, plain, sizeof plain) == 0 ? plain
									 : NULL;
	uint8_t flags = 0;
	for (size_t i = 0; i < n_rules; i++) {
		int sel = list_selects(&rules[i].list, name, p);
		/* CTRACE_FILTER's flag means "skip": set when not selected. */
		if (rules[i].flag == CTRACE_F_SKIP ? !sel : sel)
			flags |= rules[i].flag;
	}
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
	const ElfW(Ehdr) *eh = (const void *)f;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff >= size ||
	    eh->e_shnum > (size - eh->e_shoff) / sizeof(ElfW(Shdr)))
		goto out;
	const ElfW(Shdr) *sh = (const void *)(f + eh->e_shoff);
	/* .symtab has the static functions too; .dynsym is what a stripped
	 * object still has. */
	for (int want = SHT_SYMTAB, pass = 0; pass < 2;
	     pass++, want = SHT_DYNSYM) {
		int found = 0;
		for (unsigned i = 0; i < eh->e_shnum; i++) {
			if (sh[i].sh_type != (unsigned)want ||
			    sh[i].sh_link >= eh->e_shnum)
				continue;
			const ElfW(Shdr) *str = &sh[sh[i].sh_link];
			if (sh[i].sh_offset > size ||
			    sh[i].sh_size > size - sh[i].sh_offset ||
			    str->sh_offset > size ||
			    str->sh_size > size - str->sh_offset)
				continue;
			const ElfW(Sym) *sym = (const void *)(f + sh[i].sh_offset);
			size_t n = sh[i].sh_size / sizeof *sym;
			const char *names = (const char *)f + str->sh_offset;
			for (size_t k = 0; k < n; k++) {
				unsigned type = ELF64_ST_TYPE(sym[k].st_info);
				if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
				    sym[k].st_shndx == SHN_UNDEF ||
				    sym[k].st_value == 0 ||
				    sym[k].st_name >= str->sh_size ||
				    !memchr(names + sym[k].st_name, '\0',
					    str->sh_size - sym[k].st_name))
					continue;
				fn(data, bias + sym[k].st_value,
				   names + sym[k].st_name);
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
	uint8_t flags = flags_of(name);
	if (flags != ctrace__default_flags && b->t->used * 2 < b->t->mask)
		table_put(b->t, addr, flags);
}

struct object_list {
	struct build *b;
	void (*fn)(void *, uintptr_t, const char *);
};

static int visit_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct object_list *o = data;
	char exe[4096];
	const char *path = info->dlpi_name;
	if (path == NULL || *path == '\0') {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
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
 * Entry points
 * ------------------------------------------------------------------------ */

int ctrace__filter_init(const struct ctrace__config *c)
{
	use_regex = c->match_regex;
	static const struct {
		const char *env;
		uint8_t flag;
	} lists[] = {
		{"CTRACE_FILTER", CTRACE_F_SKIP},
		{"CTRACE_ARGS", CTRACE_F_ARGS},
		{"CTRACE_RETVAL", CTRACE_F_RETVAL},
	};
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
		const char *v = ctrace__env(lists[i].env);
		if (v == NULL || *v == '\0')
			continue;
		struct rule *r = &rules[n_rules];
		if (parse_list(lists[i].env, v, &r->list) < 0)
			return -EINVAL;
		r->flag = lists[i].flag;
		n_rules++;
		if (r->flag == CTRACE_F_SKIP ? r->list.has_include
					     : r->list.all)
			ctrace__default_flags |= r->flag;
	}
	if (n_rules == 0)
		return 0;
	return ctrace__filter_rescan();
}

/* Builds a new table over every loaded object.  Readers keep using the
 * old one meanwhile; it is never freed, since a hook on another thread
 * may still be looking at it (a few pages per dlopen). */
int ctrace__filter_rescan(void)
{
	if (n_rules == 0)
		return 0;
	struct build b = {0};
	struct object_list o = {&b, count_one};
	dl_iterate_phdr(visit_object, &o);
	b.t = table_new(b.count);
	if (b.t == NULL)
		return -ENOMEM;
	o.fn = add_one;
	dl_iterate_phdr(visit_object, &o);
	/* Every function has the default flags (CTRACE_ARGS=all, say): no
	 * table, so the hooks look nothing up. */
	struct ctrace__flags_table_t *t = b.t;
	if (t->used == 0) {
		munmap(t, sizeof *t + (t->mask + 1) * sizeof t->slots[0]);
		t = NULL;
	}
	atomic_store_explicit(&ctrace__flags_table, t, memory_order_release);
	return 1;
}
